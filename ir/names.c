/* Name hygiene. The IR links every use to its variable or array, but the
 * emitted C links them by name, with C's scoping. A schedule that moves code
 * (inlining, compute_at, ...) can put a use under a declaration of the same
 * name, which would silently capture it. This check walks the IR with C's
 * scopes and requires every name to resolve to the object the IR means, and
 * no scope to declare a name twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/strmap.h"

typedef struct {
  const char *name;
  const void *obj;
  int line;
  int depth; /* scope level */
  int shadowed; /* the declaration of the same name this one hides, + 1; 0: none */
} Decl;

typedef struct {
  Decl *d;
  int n, cap;
  int depth;
  IrMap innermost; /* name -> index + 1 of its innermost declaration in scope */
  char *why;
  size_t why_size;
  bool ok;
} Names;

/* True for the first failure only: the one to describe. */
static bool first_failure(Names *s) {
  bool first = s->ok;
  s->ok = false;
  return first;
}

static const Decl *lookup(const Names *s, const char *name) {
  intptr_t i = (intptr_t)ir_map_get(&s->innermost, name);
  return i ? &s->d[i - 1] : NULL;
}

static void declare(Names *s, const char *name, const void *obj, int line) {
  /* the innermost declaration of the name is the one a second one in the same scope meets */
  const Decl *in = lookup(s, name);
  if (in && in->depth == s->depth && in->obj != obj && first_failure(s))
    snprintf(s->why, s->why_size, "'%s' would be declared twice in one scope (lines %d and %d)", name, in->line, line);
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->d = realloc(s->d, sizeof *s->d * (size_t)s->cap);
  }
  s->d[s->n] = (Decl){name, obj, line, s->depth, (int)(intptr_t)ir_map_get(&s->innermost, name)};
  ir_map_put(&s->innermost, name, (void *)(intptr_t)++s->n);
}

static void open_scope(Names *s) { s->depth++; }

static void close_scope(Names *s) {
  while (s->n && s->d[s->n - 1].depth == s->depth) {
    const Decl *d = &s->d[--s->n];
    ir_map_put(&s->innermost, d->name, (void *)(intptr_t)d->shadowed);
  }
  s->depth--;
}

static void use(Names *s, const char *name, const void *obj, int line, int meant_line) {
  const Decl *d = lookup(s, name);
  if (d && d->obj != obj && first_failure(s))
    snprintf(s->why, s->why_size, "'%s' at line %d would refer to the declaration at line %d, not to the one at line %d",
             name, line, d->line, meant_line);
  else if (!d && first_failure(s))
    snprintf(s->why, s->why_size, "'%s' at line %d would be used outside the scope of its declaration (line %d)", name,
             line, meant_line);
}

static void check_expr(Names *s, const Expr *e, int depth) {
  if (!e || depth > 256) return;
  if (e->kind == EX_VAR) use(s, e->var->name, e->var, e->loc.line, e->var->loc.line);
  if (e->kind == EX_LOAD) {
    use(s, e->buf->name, e->buf, e->loc.line, e->buf->loc.line);
    for (int i = 0; i < e->buf->ndim; i++) check_expr(s, e->idx[i], depth + 1);
  }
  check_expr(s, e->a, depth + 1);
  check_expr(s, e->b, depth + 1);
  check_expr(s, e->c, depth + 1);
  for (int i = 0; i < e->nargs; i++) check_expr(s, e->args[i], depth + 1);
}

static void check_list(Names *s, const Stmt *list);

static void check_block(Names *s, const Stmt *b) {
  open_scope(s);
  check_list(s, b && b->kind == ST_BLOCK ? b->body : b);
  close_scope(s);
}

/* A marked call is emitted as `fn(args)` (emit/emit_file.c): only its
 * arguments are names here; its body is another function's C. */
static void check_call(Names *s, const Stmt *c) {
  for (int i = 0; i < c->call->nparams; i++) {
    const Buffer *b = c->call->arg_buf[i];
    if (b) use(s, b->name, b, c->loc.line, b->loc.line);
    else check_expr(s, ir_call_scalar_arg(c, i), 0);
  }
}

static void check_list(Names *s, const Stmt *list) {
  for (const Stmt *c = list; c && s->ok; c = c->next) {
    switch (c->kind) {
    case ST_BLOCK:
      if (c->call) check_call(s, c);
      else check_block(s, c);
      break;
    case ST_FOR:
      open_scope(s); /* for (int v = lo; v < hi; ...): v is in scope in lo */
      declare(s, c->var->name, c->var, c->var->loc.line);
      check_expr(s, c->lo, 0);
      check_expr(s, c->hi, 0);
      check_block(s, c->body);
      close_scope(s);
      break;
    case ST_IF:
      check_expr(s, c->cond, 0);
      check_block(s, c->then_s);
      if (c->else_s) check_block(s, c->else_s);
      break;
    case ST_ASSIGN:
      check_expr(s, c->lhs, 0);
      check_expr(s, c->rhs, 0);
      break;
    case ST_DECL:
      if (c->buf) declare(s, c->buf->name, c->buf, c->buf->loc.line);
      else declare(s, c->var->name, c->var, c->var->loc.line);
      check_expr(s, c->init, 0);
      break;
    }
  }
}

bool ir_check_names(const Kernel *k, char *why, size_t why_size) {
  Names s = {.why = why, .why_size = why_size, .ok = true};
  ir_map_init(&s.innermost, NULL);
  for (const Param *p = k->params; p; p = p->next) {
    if (p->buf) declare(&s, p->buf->name, p->buf, p->buf->loc.line);
    else declare(&s, p->var->name, p->var, p->var->loc.line);
  }
  check_block(&s, k->body);
  free(s.d);
  ir_map_free(&s.innermost);
  return s.ok;
}

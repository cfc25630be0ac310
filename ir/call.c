/* Calls of kernels in the IR (CallSite, ir/ir.h): a marked ST_BLOCK that
 * holds the function the call runs, inlined. The helpers every layer
 * shares: the scalar arguments, walks that leave the calls' insides alone,
 * and the fingerprint by which a schedule notices a step that changed
 * what a call holds. */
#include "ir/ir.h"

static const Stmt *binding(const Stmt *s, int i) {
  const Var *v = s->call->arg_var[i];
  if (!v) return NULL;
  for (const Stmt *c = s->body; c; c = c->next)
    if (c->kind == ST_DECL && c->var == v) return c;
  return NULL;
}

const Expr *ir_call_scalar_arg(const Stmt *s, int i) {
  const Stmt *d = binding(s, i);
  return d ? d->init : NULL;
}

bool ir_call_binds(const Stmt *s, const Stmt *st) {
  if (!s->call || st->kind != ST_DECL || !st->var) return false;
  for (int i = 0; i < s->call->nparams; i++)
    if (s->call->arg_var[i] == st->var) return true;
  return false;
}

static bool walk_outside(Stmt *s, StmtVisitor fn, void *ctx, int depth) {
  for (; s; s = s->next) {
    if (!fn(s, depth, ctx)) return false;
    if (s->kind == ST_BLOCK && s->call) continue;
    bool go = true;
    if (s->kind == ST_BLOCK || s->kind == ST_FOR) go = walk_outside(s->body, fn, ctx, depth + 1);
    else if (s->kind == ST_IF)
      go = walk_outside(s->then_s, fn, ctx, depth + 1) && walk_outside(s->else_s, fn, ctx, depth + 1);
    if (!go) return false;
  }
  return true;
}

void ir_walk_outside_calls(Stmt *s, StmtVisitor fn, void *ctx) { walk_outside(s, fn, ctx, 0); }

static bool holds(const Stmt *list, const Stmt *st) {
  for (const Stmt *c = list; c; c = c->next) {
    if (c == st) return true;
    if ((c->kind == ST_BLOCK || c->kind == ST_FOR) && holds(c->body, st)) return true;
    if (c->kind == ST_IF && (holds(c->then_s, st) || holds(c->else_s, st))) return true;
  }
  return false;
}

typedef struct {
  const Stmt *target;
  Stmt *around;
} Around;

static bool around_visit(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Around *a = ctx;
  if (s->kind == ST_BLOCK && s->call && holds(s->body, a->target)) a->around = s;
  return !a->around;
}

Stmt *ir_call_around(Stmt *body, const Stmt *st) {
  Around a = {st, NULL};
  ir_walk_outside_calls(body, around_visit, &a);
  return a.around;
}

/* ---- the fingerprint ---- */

static void print_array(StrBuf *sb, const Buffer *b) {
  sb_printf(sb, "%s %s %s%s", b->name, b->elem->name, b->scope ? b->scope : "", b->layout ? " layout" : "");
  for (int i = 0; i < b->ndim; i++) sb_printf(sb, "[%lld]", (long long)b->shape[i]);
  sb_putc(sb, ';');
}

static void print_list(StrBuf *sb, const Stmt *owner, const Stmt *s);

/* Loop names and labels are left out: a step may rename a copy's loops
 * (unroll of a loop around the call) without changing what it runs. */
static void print_one(StrBuf *sb, const Stmt *s) {
  switch (s->kind) {
  case ST_BLOCK:
    sb_puts(sb, "{");
    if (s->call) sb_printf(sb, "call %s ", s->call->fn);
    print_list(sb, s, s->body);
    sb_puts(sb, "}");
    break;
  case ST_FOR:
    sb_printf(sb, "for %s %s ", s->var->name, s->var->type->name);
    ir_print_expr(sb, s->lo);
    sb_printf(sb, " %s ", op_spelling(s->cmp));
    ir_print_expr(sb, s->hi);
    sb_printf(sb, " %lld %d %s{", (long long)s->step, (int)s->loop_kind, s->intrin ? s->intrin : "");
    print_list(sb, NULL, s->body->body);
    sb_puts(sb, "}");
    break;
  case ST_IF:
    sb_puts(sb, "if ");
    ir_print_expr(sb, s->cond);
    sb_puts(sb, "{");
    print_list(sb, NULL, s->then_s->body);
    sb_puts(sb, "}{");
    if (s->else_s) print_list(sb, NULL, s->else_s->body);
    sb_puts(sb, "}");
    break;
  case ST_ASSIGN:
    ir_print_expr(sb, s->lhs);
    sb_printf(sb, " %s= ", op_spelling(s->op));
    ir_print_expr(sb, s->rhs);
    break;
  case ST_DECL:
    if (s->buf) {
      print_array(sb, s->buf);
      for (int i = 0; i < s->ninit; i++) ir_print_expr(sb, s->init_list[i]), sb_putc(sb, ',');
    } else {
      sb_printf(sb, "%s %s = ", s->var->type->name, s->var->name);
      if (s->init) ir_print_expr(sb, s->init);
    }
    break;
  }
  sb_puts(sb, ";\n");
}

static void print_list(StrBuf *sb, const Stmt *owner, const Stmt *s) {
  for (; s; s = s->next)
    if (!(owner && ir_call_binds(owner, s))) print_one(sb, s);
}

const char *ir_call_fingerprint(Arena *a, const Stmt *s) {
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < s->call->nparams; i++)
    if (s->call->arg_buf[i]) print_array(&sb, s->call->arg_buf[i]);
  sb_putc(&sb, '\n');
  print_list(&sb, s, s->body);
  const char *f = arena_strdup(a, sb.data ? sb.data : "");
  sb_free(&sb);
  return f;
}

static bool call_visit(Stmt *s, int depth, void *ctx) {
  (void)depth;
  bool *found = ctx;
  if (s->kind == ST_BLOCK && s->call) *found = true;
  return !*found;
}

bool ir_has_calls(const Kernel *k) {
  bool found = false;
  ir_walk_outside_calls(k->body, call_visit, &found);
  return found;
}

/* Kernel functions: signature, parameters, body, and the checks that need
 * the whole body (buffer roles, statement names). */
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"

/* An extent that is not a constant: it must be affine in integer scalar
 * parameters declared before it (C99's `float A[n][m]`, `A[2 * n + 1]`). */
static bool size_affine(const Expr *e) {
  int64_t c;
  switch (e->kind) {
  case EX_INT: return true;
  case EX_VAR: return e->var->kind == VAR_PARAM && type_is_integer(e->var->type);
  case EX_CAST: return type_is_integer(e->type) && size_affine(e->a);
  case EX_UNARY: return (e->op == OP_NEG || e->op == OP_PLUS) && size_affine(e->a);
  case EX_BINARY:
    if (e->op == OP_ADD || e->op == OP_SUB) return size_affine(e->a) && size_affine(e->b);
    if (e->op == OP_MUL) return (fe_eval_int(e->a, &c) && size_affine(e->b)) || (fe_eval_int(e->b, &c) && size_affine(e->a));
    return false;
  default: return false;
  }
}

static Expr *size_expr(Fe *fe, TSNode at, Expr *e) {
  if (!size_affine(e))
    fe_error(fe, at,
             "array extent '%s' must be a constant or affine in integer parameters declared before it "
             "(e.g. 'float A[n][m]' after 'int n, int m')",
             fe_text(fe, at));
  return e;
}

static Param *parameter(Fe *fe, TSNode pd) {
  uint32_t cnt = ts_node_named_child_count(pd);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = ts_node_named_child(pd, i);
    if (fe_is(c, "storage_class_specifier"))
      fe_error(fe, c, "storage class '%s' is not supported on parameters", fe_text(fe, c));
  }
  const Type *t = fe_type_of(fe, fe_field(pd, "type"));
  TSNode d = fe_field(pd, "declarator");
  if (ts_node_is_null(d)) fe_error(fe, pd, "kernel parameters need names");
  if (fe_is(d, "pointer_declarator") || fe_is(d, "abstract_pointer_declarator"))
    fe_error(fe, d, "pointer parameters are not supported; declare an array, e.g. 'float A[64][64]', or 'float A[n][m]' after "
             "'int n, int m'");
  if (t->kind == TY_VOID) fe_error(fe, pd, "parameters cannot have type 'void'");
  bool is_const = fe_has_const(pd);
  Param *p = ARENA_NEW(fe->arena, Param);
  if (fe_is(d, "identifier")) {
    const char *name = fe_text(fe, d);
    fe_check_name(fe, d, name, "parameter");
    p->var = fe_new_var(fe, name, t, VAR_PARAM, fe_loc(fe, d));
    Sym *y = fe_declare(fe, d, name, SYM_VAR);
    y->var = p->var;
    fe_vinfo(fe, p->var)->is_const = is_const;
    p->var->is_const = is_const;
    return p;
  }
  if (!fe_is(d, "array_declarator")) fe_error(fe, d, "unsupported parameter declarator");
  int64_t dims[IR_MAX_DIMS];
  const char *dim_names[IR_MAX_DIMS];
  const ExtentSpelling *spelt[IR_MAX_DIMS]; /* a constant extent written as an expression (`H + 2`) */
  Expr *sized[IR_MAX_DIMS]; /* an extent that names sizes (`float A[n][m]`) */
  int nd = 0;
  bool is_restrict = false;
  while (fe_is(d, "array_declarator")) {
    if (nd == IR_MAX_DIMS) fe_error(fe, d, "too many array dimensions (at most %d)", IR_MAX_DIMS);
    TSNode size = fe_field(d, "size");
    TSNode inner = fe_field(d, "declarator");
    if (ts_node_is_null(size)) {
      const char *nm = fe_is(inner, "identifier") ? fe_text(fe, inner) : "?";
      TSNode base = inner;
      while (fe_is(base, "array_declarator")) base = fe_field(base, "declarator");
      fe_error(fe, d, "array parameter '%s' needs an extent in every dimension (a constant, or sizes: 'float A[n][m]')",
               fe_is(base, "identifier") ? fe_text(fe, base) : nm);
    }
    is_restrict |= fe_array_restrict(fe, d, !fe_is(inner, "array_declarator"));
    Expr *e = fe_expr(fe, size);
    int64_t v = 0;
    sized[nd] = NULL;
    if (!type_is_integer(e->type)) fe_error(fe, size, "array extent must be an integer, not '%s'", e->type->name);
    if (fe_eval_int(e, &v)) {
      if (v <= 0) fe_error(fe, size, "array extent must be positive, not %lld", (long long)v);
    } else {
      sized[nd] = size_expr(fe, size, e);
    }
    dim_names[nd] = fe_is(size, "identifier") && !sized[nd] ? fe_text(fe, size) : NULL;
    spelt[nd] = sized[nd] ? NULL : fe_extent_spelling(fe, size);
    dims[nd++] = v;
    d = inner;
  }
  if (fe_is(d, "pointer_declarator")) fe_error(fe, d, "pointer parameters are not supported");
  if (!fe_is(d, "identifier")) fe_error(fe, d, "unsupported parameter declarator");
  Buffer *b = ARENA_NEW(fe->arena, Buffer);
  b->name = fe_text(fe, d);
  fe_check_name(fe, d, b->name, "parameter");
  b->elem = t;
  b->ndim = nd;
  /* C compilers refuse an extent of 2^31 (tcc: "invalid array size"), and
   * the emitted code indexes with int. */
  int64_t total = 1;
  for (int i = 0; i < nd; i++) {
    b->shape[i] = dims[nd - 1 - i];
    b->dim_macro[i] = dim_names[nd - 1 - i];
    b->dim_spelling[i] = spelt[nd - 1 - i];
    b->extent[i] = sized[nd - 1 - i];
    if (b->extent[i]) continue; /* its size is checked where the sizes are known */
    if (b->shape[i] > INT32_MAX || (total *= b->shape[i]) > INT32_MAX)
      fe_error(fe, pd, "array '%s' is too large (at most 2147483647 elements, 2^31 - 1)", b->name);
  }
  b->scope = "global";
  b->is_const = is_const;
  b->is_restrict = is_restrict;
  b->role = is_const ? ROLE_INPUT : ROLE_INOUT;
  b->loc = fe_loc(fe, d);
  b->id = fe->k->nbufs++;
  Sym *y = fe_declare(fe, d, b->name, SYM_BUF);
  y->buf = b;
  p->buf = b;
  return p;
}

/* ---- whole-body passes ---- */

typedef struct {
  bool *read; /* by buffer id */
} BodyPass;

static bool mark_read(const Expr *e, void *ctx) {
  bool *read = ctx;
  if (e->kind == EX_LOAD) read[e->buf->id] = true;
  return true;
}

static void mark_reads(const Expr *e, bool *read) { ir_walk_expr(e, mark_read, read); }

static bool collect(Stmt *s, int depth, void *ctx) {
  (void)depth;
  BodyPass *bp = ctx;
  switch (s->kind) {
  case ST_ASSIGN:
    mark_reads(s->rhs, bp->read);
    if (s->lhs->kind == EX_LOAD) {
      for (int i = 0; i < s->lhs->buf->ndim; i++) mark_reads(s->lhs->idx[i], bp->read);
      if (s->op != OP_NONE) bp->read[s->lhs->buf->id] = true;
    }
    break;
  case ST_FOR:
    mark_reads(s->lo, bp->read);
    mark_reads(s->hi, bp->read);
    break;
  case ST_IF:
    mark_reads(s->cond, bp->read);
    break;
  case ST_DECL:
    mark_reads(s->init, bp->read);
    for (int i = 0; i < s->ninit; i++) mark_reads(s->init_list[i], bp->read);
    break;
  default:
    break;
  }
  return true;
}

/* The kernel's labels by name (each maps to its statement): thousands of
 * them are checked and avoided by hash. */
typedef struct {
  Fe *fe;
  IrMap by_name;
} Labels;

static bool check_label(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Labels *L = ctx;
  if (!s->labeled) return true;
  const Stmt *first = ir_map_get(&L->by_name, s->name);
  if (first) {
    diag_error(L->fe->diags, L->fe->file, L->fe->src, s->loc.line, s->loc.col,
               "duplicate label '%s' (first used on line %d)", s->name, first->loc.line);
    longjmp(L->fe->fail, 1);
  }
  ir_map_put(&L->by_name, s->name, s);
  return true;
}

static bool label_taken(const Labels *L, const char *name) { return ir_map_get(&L->by_name, name) != NULL; }

typedef struct {
  Fe *fe;
  const Labels *labels;
  int seq;
} Namer;

/* Unlabeled statements get s1, s2, ... in source order, skipping user labels. */
static bool name_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Namer *nm = ctx;
  bool named_kind = s->kind == ST_ASSIGN || (s->kind == ST_DECL && (s->init || s->ninit));
  if (!named_kind || s->labeled) return true;
  const char *name;
  do name = arena_printf(nm->fe->arena, "s%d", ++nm->seq);
  while (label_taken(nm->labels, name));
  s->name = name;
  return true;
}

typedef struct {
  Stmt **loops;
  int n, cap;
} LoopList;

static bool list_loops(Stmt *s, int depth, void *ctx) {
  (void)depth;
  LoopList *l = ctx;
  if (s->kind != ST_FOR) return true;
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    l->loops = realloc(l->loops, sizeof *l->loops * (size_t)l->cap);
  }
  l->loops[l->n++] = s;
  return true;
}

/* A count per name, in a map of the arena. */
static intptr_t count_of(const IrMap *m, const char *name) { return (intptr_t)ir_map_get(m, name); }
static void count_add(IrMap *m, const char *name, intptr_t d) { ir_map_put(m, name, (void *)(count_of(m, name) + d)); }

/* Sibling loops that reuse a counter name (`i` twice) get stable suffixed
 * names in source order (i_1, i_2, ...), so a schedule can name each. */
static void name_loops(Fe *fe, Kernel *k, const Labels *labels) {
  LoopList l = {0};
  ir_walk_outside_calls(k->body, list_loops, &l);
  IrMap held, dups; /* loops holding each name now; unlabeled loops per counter name */
  ir_map_init(&held, fe->arena);
  ir_map_init(&dups, fe->arena);
  for (int i = 0; i < l.n; i++) {
    count_add(&held, l.loops[i]->name, 1);
    if (!l.loops[i]->labeled) count_add(&dups, l.loops[i]->var->name, 1);
  }
  for (int i = 0; i < l.n; i++) {
    Stmt *s = l.loops[i];
    if (s->labeled || count_of(&dups, s->var->name) < 2) continue;
    int seq = 0;
    const char *name;
    do name = arena_printf(fe->arena, "%s_%d", s->var->name, ++seq);
    while (count_of(&held, name) > 0 || label_taken(labels, name));
    count_add(&held, s->name, -1);
    count_add(&held, name, 1);
    s->name = name;
  }
  free(l.loops);
}

/* Drops declarations of locals that are never used at all, such as counters
 * declared at the top (`int i, j;`) and then only adopted by loops: the
 * emitted loops declare their own counters. */
static void prune_unused(Fe *fe, Stmt **list) {
  while (*list) {
    Stmt *s = *list;
    if (s->kind == ST_DECL && s->var && !s->init) {
      VarInfo *vi = fe_vinfo(fe, s->var);
      if (!vi->reads && !vi->assigns) {
        *list = s->next;
        continue;
      }
    }
    /* a call's statements are the callee's, pruned already */
    if ((s->kind == ST_BLOCK && !s->call) || s->kind == ST_FOR) prune_unused(fe, &s->body);
    if (s->kind == ST_IF) {
      prune_unused(fe, &s->then_s->body);
      if (s->else_s) prune_unused(fe, &s->else_s->body);
    }
    list = &s->next;
  }
}

/* ---- sizes: the integer parameters that size arrays or bound loops ---- */

typedef struct {
  bool *used;     /* by Var.id: in an extent or a loop bound */
  const Stmt **assigned; /* by Var.id: a statement that assigns it */
} SizeUse;

typedef struct {
  Fe *fe;
  const Kernel *k;
} Hiding;

/* The C that tcc compiles indexes with a size's name (emit_cu_hooks.c):
 * no loop counter or local scalar may hide one. */
static bool hides_size(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Hiding *h = ctx;
  const Var *v = s->kind == ST_FOR || s->kind == ST_DECL ? s->var : NULL;
  for (int i = 0; v && i < h->k->nsizes; i++)
    if (!strcmp(v->name, h->k->sizes[i]->name))
      fe_error_at(h->fe, v->loc, "'%s' hides the size '%s' (a parameter that sizes an array or bounds a loop); rename it",
                  v->name, v->name);
  return true;
}

static void mark_vars(const Expr *e, bool *used) {
  if (!e) return;
  if (e->kind == EX_VAR) used[e->var->id] = true;
  mark_vars(e->a, used);
  mark_vars(e->b, used);
  mark_vars(e->c, used);
}

static bool size_uses(Stmt *s, int depth, void *ctx) {
  (void)depth;
  SizeUse *u = ctx;
  if (s->kind == ST_FOR) {
    mark_vars(s->lo, u->used);
    mark_vars(s->hi, u->used);
  }
  if (s->kind == ST_ASSIGN && s->lhs->kind == EX_VAR && !u->assigned[s->lhs->var->id]) u->assigned[s->lhs->var->id] = s;
  return true;
}

/* Kernel.sizes, in parameter order; a size the body assigns is refused
 * (the extents and bounds it gives must hold for the whole call). */
static void find_sizes(Fe *fe, Kernel *k) {
  SizeUse u = {ARENA_ARRAY(fe->arena, bool, k->nvars + 1), ARENA_ARRAY(fe->arena, const Stmt *, k->nvars + 1)};
  for (Param *p = k->params; p; p = p->next)
    for (int i = 0; p->buf && i < p->buf->ndim; i++) mark_vars(p->buf->extent[i], u.used);
  ir_walk_stmts(k->body, size_uses, &u);
  for (Param *p = k->params; p; p = p->next) {
    if (!p->var || !u.used[p->var->id]) continue;
    const Stmt *a = u.assigned[p->var->id];
    if (a)
      fe_error_at(fe, a->loc, "'%s' sizes an array or bounds a loop, so the kernel may not assign it; copy it into a local",
                  p->var->name);
    if (k->nsizes == IR_MAX_SIZES)
      fe_error_at(fe, p->var->loc, "too many size parameters (at most %d)", IR_MAX_SIZES);
    int64_t lo;
    uint64_t hi;
    type_int_range(p->var->type, &lo, &hi);
    if (hi > INT64_MAX) /* the proofs' arithmetic is in 64-bit signed integers */
      fe_error_at(fe, p->var->loc, "size '%s' is %s, which holds values past 2^63 - 1; give it a signed type (long)",
                  p->var->name, p->var->type->name);
    p->var->is_size = true;
    k->sizes[k->nsizes++] = p->var;
  }
  Hiding h = {fe, k};
  if (k->nsizes) ir_walk_stmts(k->body, hides_size, &h);
}

/* A name of the kernel's own statements and loops (not a call's). */
typedef struct {
  const Labels *labels;
  Kernel *k;
} NameUse;

typedef struct {
  const char *name;
  bool found;
} LoopName;

static bool loop_named(Stmt *s, int depth, void *ctx) {
  (void)depth;
  LoopName *l = ctx;
  l->found |= s->kind == ST_FOR && !strcmp(s->name, l->name);
  return !l->found;
}

static bool name_used(void *ctx, const char *name) {
  NameUse *u = ctx;
  LoopName l = {name, false};
  ir_walk_outside_calls(u->k->body, loop_named, &l);
  return l.found || label_taken(u->labels, name);
}

Kernel *fe_kernel(Fe *fe, TSNode fn) {
  Kernel *k = ARENA_NEW(fe->arena, Kernel);
  fe->k = k;
  fe->depth = 0;
  fe->loop_depth = 0;
  const Type *rt = fe_type_of(fe, fe_field(fn, "type"));
  TSNode decl = fe_field(fn, "declarator");
  if (!fe_is(decl, "function_declarator"))
    fe_error(fe, decl, "kernels must be plain functions returning void");
  if (rt->kind != TY_VOID) fe_error(fe, fe_field(fn, "type"), "kernels must return void");
  TSNode name_n = fe_field(decl, "declarator");
  if (!fe_is(name_n, "identifier")) fe_error(fe, name_n, "unsupported function declarator");
  k->name = fe_text(fe, name_n);
  k->loc = fe_loc(fe, name_n);
  if (!(fe->intrinsic_file && !strncmp(k->name, "npu_", 4))) fe_check_name(fe, name_n, k->name, "kernel");
  const Kernel *o = ir_map_get(&fe->kernel_names, k->name);
  if (o) fe_error(fe, name_n, "redefinition of kernel '%s' (first defined on line %d)", k->name, o->loc.line);

  fe_push_scope(fe);
  TSNode params = fe_field(decl, "parameters");
  Param **tail = &k->params;
  uint32_t cnt = ts_node_named_child_count(params);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode pd = ts_node_named_child(params, i);
    if (fe_is(pd, "comment")) continue;
    if (fe_is(pd, "variadic_parameter")) fe_error(fe, pd, "variadic kernels are not supported");
    if (!fe_is(pd, "parameter_declaration")) fe_error(fe, pd, "unsupported parameter");
    /* f(void) */
    if (cnt == 1 && ts_node_is_null(fe_field(pd, "declarator")) &&
        !strcmp(fe_text(fe, fe_field(pd, "type")), "void"))
      break;
    *tail = parameter(fe, pd);
    tail = &(*tail)->next;
    k->nparams++;
  }

  /* The body; a final bare `return;` is allowed and dropped. */
  TSNode body = fe_field(fn, "body");
  uint32_t nc = ts_node_named_child_count(body);
  TSNode last = nc ? ts_node_named_child(body, nc - 1) : body;
  while (nc > 1 && fe_is(last, "comment")) last = ts_node_named_child(body, --nc - 1);
  /* Parameters and the body's top level share one scope, as in C. */
  Stmt *list = NULL, **lt = &list;
  uint32_t all = ts_node_child_count(body);
  for (uint32_t i = 0; i < all; i++) {
    TSNode c = ts_node_child(body, i);
    if (!ts_node_is_named(c) || fe_is(c, "comment")) continue;
    if (fe_is(c, "return_statement") && ts_node_eq(c, last) && ts_node_named_child_count(c) == 0) continue;
    if (fe_is(c, "return_statement") && ts_node_named_child_count(c) != 0)
      fe_error(fe, c, "kernels return void; 'return' cannot have a value");
    Stmt *s = fe_stmt(fe, c);
    *lt = s;
    while (*lt) lt = &(*lt)->next;
  }
  fe_pop_scope(fe);
  k->body = ir_stmt(fe->arena, ST_BLOCK, fe_loc(fe, body));
  k->body->body = list;
  prune_unused(fe, &k->body->body);

  /* Buffer roles: a non-const parameter never read is a pure output. */
  BodyPass bp = {ARENA_ARRAY(fe->arena, bool, k->nbufs + 1)};
  ir_walk_stmts(k->body, collect, &bp);
  for (Param *p = k->params; p; p = p->next)
    if (p->buf && !p->buf->is_const) p->buf->role = bp.read[p->buf->id] ? ROLE_INOUT : ROLE_OUTPUT;

  find_sizes(fe, k);

  /* the statements a call holds are named after the call's (fe_name_calls) */
  Labels labels = {fe, {0}};
  ir_map_init(&labels.by_name, fe->arena);
  ir_walk_outside_calls(k->body, check_label, &labels);
  Namer nm = {fe, &labels, 0};
  ir_walk_outside_calls(k->body, name_stmt, &nm);
  name_loops(fe, k, &labels);
  NameUse used = {&labels, k};
  fe_name_calls(fe, k, name_used, &used);
  k->nstmts = nm.seq + (int)labels.by_name.n;
  return k;
}

/* Calls of kernels (docs/programs.md): `conv(A, T, n);` as a statement,
 * calling a kernel defined earlier in the file. The call becomes a marked
 * ST_BLOCK (CallSite, ir/ir.h) holding the callee's body inlined: its array
 * parameters replaced by the caller's arrays (same element type and
 * shape), each scalar parameter a fresh local initialised from the
 * argument (C passes by value), its locals and counters fresh copies. So
 * every analysis of the caller sees ordinary statements, and the kernel
 * as written (a valid C file) stays the reference. */
#include <isl/ctx.h>
#include <isl/options.h>
#include <string.h>

#include "frontend/fe.h"
#include "ir/affine.h"
#include "ir/sizes.h"

/* ---- finding kernels in the file ---- */

/* Is n the definition of a function named `name`? (its declarator's
 * identifier, read in the source without a copy) */
static bool defines(Fe *fe, TSNode n, const char *name) {
  if (!fe_is(n, "function_definition")) return false;
  TSNode d = fe_field(n, "declarator");
  if (!fe_is(d, "function_declarator")) return false;
  TSNode id = fe_field(d, "declarator");
  if (!fe_is(id, "identifier")) return false;
  uint32_t a = ts_node_start_byte(id), b = ts_node_end_byte(id);
  return strlen(name) == b - a && !memcmp(fe->file_text + a, name, b - a);
}

/* The file's function definition named `name`, as a null node when none
 * (or when no file is parsed: an expression of a schedule step). */
static TSNode definition(Fe *fe, const char *name) {
  if (ts_node_is_null(fe->root)) return fe->root;
  uint32_t n = ts_node_child_count(fe->root);
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = ts_node_child(fe->root, i);
    if (defines(fe, c, name)) return c;
  }
  return (TSNode){0};
}

/* The name a call expression calls, when it is an identifier; NULL
 * otherwise. in_file: a node of another function of the file (its bytes
 * index the source, not the text being parsed, which may be a macro's). */
static const char *called(Fe *fe, TSNode call, bool in_file) {
  TSNode fn = fe_field(call, "function");
  if (!fe_is(fn, "identifier")) return NULL;
  if (!in_file) return fe_text(fe, fn);
  uint32_t a = ts_node_start_byte(fn), b = ts_node_end_byte(fn);
  return arena_strndup(fe->arena, fe->file_text + a, b - a);
}

static const char *callee_name(Fe *fe, TSNode call) { return called(fe, call, false); }

bool fe_names_kernel(Fe *fe, TSNode call) {
  const char *name = callee_name(fe, call);
  if (!name || !fe->k) return false;
  return ir_map_get(&fe->kernel_names, name) || !strcmp(name, fe->k->name) || !ts_node_is_null(definition(fe, name));
}

/* ---- recursion ---- */

enum { CALL_CHAIN_MAX = 32 };

typedef struct {
  Fe *fe;
  const char *target;           /* the kernel being parsed */
  const char *chain[CALL_CHAIN_MAX]; /* the path of calls from the callee */
  int n;
  IrMap seen;
} CycleSearch;

static bool calls_back(CycleSearch *c, TSNode n);

/* Does function `name` reach c->target through calls? (the path in chain) */
static bool reaches(CycleSearch *c, const char *name) {
  if (c->n == CALL_CHAIN_MAX) return false;
  c->chain[c->n++] = name;
  if (!strcmp(name, c->target)) return true;
  if (!ir_map_get(&c->seen, name)) {
    ir_map_put(&c->seen, name, (void *)1);
    TSNode def = definition(c->fe, name);
    if (!ts_node_is_null(def) && calls_back(c, fe_field(def, "body"))) return true;
  }
  c->n--;
  return false;
}

static bool calls_back(CycleSearch *c, TSNode n) {
  if (ts_node_is_null(n)) return false;
  if (fe_is(n, "call_expression")) {
    const char *name = called(c->fe, n, true);
    if (name && reaches(c, name)) return true;
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (calls_back(c, ts_node_named_child(n, i))) return true;
  return false;
}

/* The source line of a node of the file's tree (not of a snippet). */
static unsigned def_line(const Fe *fe, TSNode def) {
  if (fe->fmap) return (unsigned)fe_file_loc(fe, ts_node_start_byte(def)).line;
  return ts_node_start_point(def).row + 1;
}

/* A call of the kernel being parsed, or of one defined after it: a
 * recursion (named with its cycle) or a call before the definition. */
static _Noreturn void refuse_forward(Fe *fe, TSNode at, const char *name) {
  CycleSearch c = {.fe = fe, .target = fe->k->name};
  ir_map_init(&c.seen, fe->arena);
  c.chain[c.n++] = fe->k->name;
  if (reaches(&c, name)) { /* chain: the caller, the callee, ..., the caller */
    StrBuf sb;
    sb_init(&sb);
    for (int i = 0; i < c.n; i++) sb_printf(&sb, "%s%s", i ? " -> " : "", c.chain[i]);
    const char *cycle = arena_strdup(fe->arena, sb.data);
    sb_free(&sb);
    fe_error(fe, at, "recursive call: %s; a kernel may not call itself, directly or through other kernels", cycle);
  }
  TSNode def = definition(fe, name);
  unsigned line = def_line(fe, def);
  if (line < (unsigned)fe->k->loc.line) /* above, and no kernel: its own error said why */
    fe_error(fe, at, "kernel '%s' (line %u) was refused, see its error above; '%s' cannot call it", name, line,
             fe->k->name);
  fe_error(fe, at, "kernel '%s' is defined after '%s' (line %u); define a kernel before the kernels that call it",
           name, fe->k->name, line);
}

/* ---- arguments ---- */

/* "int8_t [8][8]", "float [n][64]" */
static const char *array_text(Fe *fe, const Buffer *b) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s%s ", b->is_const ? "const " : "", b->elem->name);
  for (int i = 0; i < b->ndim; i++) {
    sb_putc(&sb, '[');
    if (b->extent[i]) ir_print_expr(&sb, b->extent[i]);
    else sb_printf(&sb, "%lld", (long long)b->shape[i]);
    sb_putc(&sb, ']');
  }
  const char *t = arena_strdup(fe->arena, sb.data);
  sb_free(&sb);
  return t;
}

/* Extent d of callee parameter p at this call: its expression in the
 * callee's sizes with each size's argument put in (a constant when they
 * are; block holds the call's bound sizes). */
static Expr *extent_here(Fe *fe, const Stmt *block, const Buffer *p, int d) {
  if (!p->extent[d]) return ir_int(fe->arena, p->shape[d], &ty_int, p->loc);
  Expr *e = ir_expr_copy(fe->arena, p->extent[d]);
  const CallSite *cs = block->call;
  int i = 0;
  for (const Param *q = cs->callee->params; q; q = q->next, i++)
    if (q->var && q->var->is_size && ir_call_scalar_arg(block, i))
      e = ir_subst_expr(fe->arena, e, q->var, ir_call_scalar_arg(block, i));
  return e;
}

/* Does caller's array b have parameter p's element type and shape at
 * this call? A constant extent equals the callee's at the call's sizes;
 * one of the caller's sizes is the same expression. */
static bool same_array_type(Fe *fe, const Stmt *block, const Buffer *b, const Buffer *p) {
  if (type_canonical(b->elem)->kind != type_canonical(p->elem)->kind || b->ndim != p->ndim) return false;
  for (int d = 0; d < b->ndim; d++) {
    Expr *want = extent_here(fe, block, p, d);
    int64_t v;
    bool constant = fe_eval_int(want, &v);
    if (b->extent[d] ? constant || !ir_expr_same(b->extent[d], want) : !constant || v != b->shape[d]) return false;
  }
  return true;
}

/* "float [n]" of parameter p, and " ([64] at this call)" where sizes set it. */
static const char *param_text(Fe *fe, const Stmt *block, const Buffer *p) {
  if (!buffer_symbolic(p)) return array_text(fe, p);
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s (", array_text(fe, p));
  for (int d = 0; d < p->ndim; d++) {
    sb_putc(&sb, '[');
    ir_print_expr(&sb, extent_here(fe, block, p, d));
    sb_putc(&sb, ']');
  }
  sb_printf(&sb, " at this call)");
  const char *t = arena_strdup(fe->arena, sb.data);
  sb_free(&sb);
  return t;
}

/* The caller's array passed for array parameter p (argument `a`, number i + 1). */
static Buffer *array_arg(Fe *fe, TSNode a, const Stmt *block, const Buffer *p, int i) {
  const Kernel *callee = block->call->callee;
  while (fe_is(a, "parenthesized_expression")) a = fe_child(a, 0);
  const Sym *y = fe_is(a, "identifier") ? fe_lookup(fe, fe_text(fe, a)) : NULL;
  if (!y || y->kind != SYM_BUF)
    fe_error(fe, a, "argument %d of '%s' must be a whole array for parameter '%s' (%s), not '%s'", i + 1, callee->name,
             p->name, param_text(fe, block, p), fe_text(fe, a));
  Buffer *b = y->buf;
  if (!same_array_type(fe, block, b, p))
    fe_error(fe, a, "argument %d of '%s': array '%s' is %s, but parameter '%s' of '%s' (line %d) is %s", i + 1,
             callee->name, b->name, array_text(fe, b), p->name, callee->name, p->loc.line, param_text(fe, block, p));
  if (b->is_const && !p->is_const)
    fe_error(fe, a, "argument %d of '%s': array '%s' is const, but parameter '%s' of '%s' (line %d) is not: '%s' may "
             "write it", i + 1, callee->name, b->name, p->name, callee->name, p->loc.line, callee->name);
  return b;
}

/* A name for the local bound to scalar parameter v: v's own unless the
 * caller sees that name (the argument may read it: `int n = n;` would
 * read the new n), else callee_v, callee_v_2, ... */
static const char *binding_name(Fe *fe, const Kernel *callee, const Var *v) {
  const char *name = v->name;
  for (int i = 1; fe_lookup(fe, name) || ir_map_get(&fe->kernel_names, name); i++)
    name = i == 1 ? arena_printf(fe->arena, "%s_%s", callee->name, v->name)
                  : arena_printf(fe->arena, "%s_%s_%d", callee->name, v->name, i);
  return name;
}

/* A size's argument is an integer expression that reads constants and
 * the caller's integer parameters only: in the call the callee's extents
 * and bounds are then constants, or the caller's sizes (each parameter
 * read becomes one). */
static bool reads_params_only(const Expr *e, void *ctx) {
  (void)ctx;
  if (e->kind == EX_LOAD || e->kind == EX_CALL) return false;
  return e->kind != EX_VAR || (e->var->kind == VAR_PARAM && type_is_integer(e->var->type));
}

static void size_arg(Fe *fe, TSNode a, const Kernel *callee, const Var *p, int i, const Expr *e) {
  if (!type_is_integer(e->type) || !ir_walk_expr(e, reads_params_only, NULL))
    fe_error(fe, a, "argument %d of '%s' is its size '%s', which sizes its arrays or bounds its loops: pass an integer "
             "constant or an integer expression of %s's integer parameters, not '%s'", i + 1, callee->name, p->name, fe->k->name,
             fe_text(fe, a));
}

static Stmt *scalar_arg(Fe *fe, TSNode a, const Kernel *callee, const Var *p, int i, Var **bound) {
  TSNode id = a;
  while (fe_is(id, "parenthesized_expression")) id = fe_child(id, 0);
  const Sym *y = fe_is(id, "identifier") ? fe_lookup(fe, fe_text(fe, id)) : NULL;
  if (y && y->kind == SYM_BUF)
    fe_error(fe, a, "argument %d of '%s' must be a scalar for parameter '%s' (%s), not the array '%s'", i + 1,
             callee->name, p->name, p->type->name, y->buf->name);
  Expr *e = fe_expr(fe, a);
  if (!type_is_integer(e->type) && !type_is_float(e->type))
    fe_error(fe, a, "argument %d of '%s' must be a scalar for parameter '%s' (%s)", i + 1, callee->name, p->name,
             p->type->name);
  Var *v = fe_new_var(fe, binding_name(fe, callee, p), p->type, VAR_LOCAL, fe_loc(fe, a));
  fe_vinfo(fe, v)->reads++;
  Stmt *d = ir_stmt(fe->arena, ST_DECL, fe_loc(fe, a));
  d->var = v;
  d->name = p->name; /* prefixed with the call's name (fe_name_calls) */
  d->init = fe_convert(fe, e, p->type);
  if (p->is_size) size_arg(fe, a, callee, p, i, e); /* as written: an integer, not a float converted */
  *bound = v;
  return d;
}

/* One array passed for two parameters the callee may write through: its
 * variants assume their arrays do not overlap. */
static void refuse_alias(Fe *fe, TSNode args, const Kernel *callee, const CallSite *cs) {
  int i = 0;
  for (const Param *p = callee->params; p; p = p->next, i++) {
    int j = 0;
    for (const Param *q = callee->params; q != p; q = q->next, j++)
      if (cs->arg_buf[i] && cs->arg_buf[i] == cs->arg_buf[j] && (!p->buf->is_const || !q->buf->is_const))
        fe_error(fe, args, "array '%s' is passed to '%s' as both '%s' and '%s', and '%s' may write one of them; "
                 "pass distinct arrays (the callee's variants assume its arrays do not overlap)",
                 cs->arg_buf[i]->name, callee->name, q->buf->name, p->buf->name, callee->name);
  }
}

/* ---- the inlined body ---- */

typedef struct {
  Fe *fe;
  const Kernel *callee;
  const CallSite *cs;
  Stmt *block;
} Fresh;

/* A name the caller's objects in the block have: an array passed or a
 * bound local (a declaration of the callee with that name would hide it). */
static bool caller_name(const Fresh *f, const char *name, const void *self) {
  for (int i = 0; i < f->cs->nparams; i++) {
    if (f->cs->arg_buf[i] && f->cs->arg_buf[i] != self && !strcmp(f->cs->arg_buf[i]->name, name)) return true;
    if (f->cs->arg_var[i] && f->cs->arg_var[i] != self && !strcmp(f->cs->arg_var[i]->name, name)) return true;
  }
  return false;
}

static const char *unhidden(const Fresh *f, const char *name, const void *self) {
  if (!caller_name(f, name, self)) return name;
  const char *n = arena_printf(f->fe->arena, "%s_%s", f->callee->name, name);
  for (int i = 2; caller_name(f, n, self); i++) n = arena_printf(f->fe->arena, "%s_%s_%d", f->callee->name, name, i);
  return n;
}

static bool rename_hiding(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Fresh *f = ctx;
  if (ir_call_binds(f->block, s)) return true;
  if ((s->kind == ST_FOR || s->kind == ST_DECL) && s->var) s->var->name = unhidden(f, s->var->name, s->var);
  if (s->kind == ST_DECL && s->buf) s->buf->name = unhidden(f, s->buf->name, s->buf);
  return true;
}

/* The kernel a call names, defined before the caller and not hidden by
 * a local of the caller's. */
static const Kernel *called_kernel(Fe *fe, TSNode call) {
  const char *name = callee_name(fe, call);
  TSNode fn = fe_field(call, "function");
  const Sym *hides = fe_lookup(fe, name);
  if (hides && (hides->kind == SYM_VAR || hides->kind == SYM_BUF))
    fe_error(fe, fn, "'%s' names %s of '%s' here (line %d), which hides the kernel '%s'; rename one of them", name,
             hides->kind == SYM_BUF ? "an array" : "a variable", fe->k->name,
             hides->kind == SYM_BUF ? hides->buf->loc.line : hides->var->loc.line, name);
  const Kernel *callee = ir_map_get(&fe->kernel_names, name);
  if (!callee) refuse_forward(fe, fn, name);
  return callee;
}

enum { CALL_MAX_ARGS = 64 };

/* The call's argument nodes, one per parameter of callee. */
static void call_arguments(Fe *fe, TSNode args, const Kernel *callee, TSNode *arg) {
  int na = 0;
  uint32_t cnt = ts_node_named_child_count(args);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode a = ts_node_named_child(args, i);
    if (fe_is(a, "comment")) continue;
    if (na == CALL_MAX_ARGS) fe_error(fe, a, "too many arguments (at most %d)", CALL_MAX_ARGS);
    arg[na++] = a;
  }
  if (na != callee->nparams)
    fe_error(fe, args, "'%s' (line %d) takes %d argument%s, got %d", callee->name, callee->loc.line, callee->nparams,
             callee->nparams == 1 ? "" : "s", na);
}

/* The marked block of a call, its arguments checked: each array's, and a
 * declaration per scalar (first in the block). */
static Stmt *bind_arguments(Fe *fe, TSNode call, const Kernel *callee, TSNode *arg) {
  int n = callee->nparams;
  CallSite *cs = ARENA_NEW(fe->arena, CallSite);
  *cs = (CallSite){.name = callee->name, .callee = callee, .fn = callee->name, .fn_ir = callee, .nparams = n};
  cs->arg_buf = ARENA_ARRAY(fe->arena, Buffer *, n ? n : 1);
  cs->arg_var = ARENA_ARRAY(fe->arena, Var *, n ? n : 1);
  Stmt *block = ir_stmt(fe->arena, ST_BLOCK, fe_loc(fe, call));
  block->call = cs;
  Stmt **tail = &block->body;
  int i = 0;
  for (const Param *p = callee->params; p; p = p->next, i++) {
    if (p->buf) continue;
    *tail = scalar_arg(fe, arg[i], callee, p->var, i, &cs->arg_var[i]);
    tail = &(*tail)->next;
  }
  i = 0; /* the arrays after the sizes, which set their extents here */
  for (const Param *p = callee->params; p; p = p->next, i++)
    if (p->buf) cs->arg_buf[i] = array_arg(fe, arg[i], block, p->buf, i);
  refuse_alias(fe, fe_field(call, "arguments"), callee, cs);
  return block;
}

/* The callee's body after the block's declarations, over the call's arrays
 * and bound scalars. No error here: one would unwind past the map's free. */
static void inline_callee(Fe *fe, Stmt *block, const Kernel *callee) {
  const CallSite *cs = block->call;
  Stmt **tail = &block->body;
  while (*tail) tail = &(*tail)->next;
  CloneMap cm = {.k = fe->k};
  int i = 0;
  for (const Param *p = callee->params; p; p = p->next, i++)
    ir_clone_map_put(&cm, p->buf ? (const void *)p->buf : p->var, p->buf ? (void *)cs->arg_buf[i] : cs->arg_var[i]);
  for (const Stmt *s = callee->body->body; s; s = s->next) {
    *tail = ir_clone_stmt(fe->arena, s, &cm);
    tail = &(*tail)->next;
  }
  clone_map_free(&cm);
  ir_call_pass_sizes(fe->arena, block);
  Fresh f = {fe, callee, cs, block};
  ir_walk_stmts(block->body, rename_hiding, &f);
}

Stmt *fe_kernel_call(Fe *fe, TSNode call) {
  const Kernel *callee = called_kernel(fe, call);
  TSNode arg[CALL_MAX_ARGS];
  call_arguments(fe, fe_field(call, "arguments"), callee, arg);
  Stmt *block = bind_arguments(fe, call, callee, arg);
  inline_callee(fe, block, callee);
  return block;
}

/* ---- a callee's assumptions at its calls ---- */

typedef struct {
  const Kernel *caller;
  DiagList *d;
  const char *file, *src;
} CallCheck;

/* "assumption 'n % 4 == 0' (line 7)", or "precondition 'n <= 121' (line 3:
 * derived: why)" for one npugen derived (ir/preconditions.c). */
static void assumption_text(StrBuf *sb, const Kernel *callee, int j) {
  sb_printf(sb, "%s '", callee->assume_why[j] ? "precondition" : "assumption");
  ir_print_expr(sb, callee->assume[j]);
  sb_printf(sb, "' (line %d", callee->assume_loc[j].line);
  if (callee->assume_why[j]) sb_printf(sb, ": %s", callee->assume_why[j]);
  sb_printf(sb, ")");
}

/* The call's sizes, when each one's argument is a constant. */
static bool constant_sizes(const Stmt *call, SizeSet *set) {
  const Kernel *callee = call->call->callee;
  memset(set, 0, sizeof *set);
  for (int s = 0; s < callee->nsizes; s++) {
    int i = 0;
    const Param *p = callee->params;
    while (p->var != callee->sizes[s]) p = p->next, i++;
    const Expr *arg = ir_call_scalar_arg(call, i);
    if (!arg || !fe_eval_int(arg, &set->val[s])) return false;
  }
  return true;
}

/* Constant sizes: each assumption holds there, and so does each extent's
 * rule (at least 1). */
static void check_constant(const CallCheck *cc, const Stmt *call, const SizeSet *set) {
  const Kernel *callee = call->call->callee;
  int j = ir_size_set_breaks(callee, set);
  if (j < 0) return;
  char sz[200];
  ir_size_set_text(callee, set, sz, sizeof sz);
  StrBuf t;
  sb_init(&t);
  if (j == callee->nassume) sb_printf(&t, "an extent of its arrays is less than 1 there");
  else {
    sb_printf(&t, "that breaks its ");
    assumption_text(&t, callee, j);
  }
  diag_error(cc->d, cc->file, cc->src, call->loc.line, call->loc.col, "call %s of '%s' passes %s: %s", call->call->name,
             callee->name, sz, t.data);
  sb_free(&t);
}

/* Sizes of the caller: each assumption of the callee, its sizes replaced
 * by the call's arguments, follows from the caller's assumptions (isl). */
static void check_sized(const CallCheck *cc, const Stmt *call) {
  const Kernel *callee = call->call->callee;
  Arena a;
  arena_init(&a, 1 << 20);
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  AffCtx c;
  aff_init(&c, ctx, cc->caller);
  char why[300];
  bool pushed = aff_push_sizes(&c, why, sizeof why);
  for (int j = 0; pushed && j < callee->nassume; j++) {
    Expr *cond = ir_expr_copy(&a, callee->assume[j]);
    int i = 0;
    for (const Param *p = callee->params; p; p = p->next, i++)
      if (p->var && p->var->is_size && ir_call_scalar_arg(call, i))
        cond = ir_subst_expr(&a, cond, p->var, ir_call_scalar_arg(call, i));
    if (aff_cond_value(&c, cond) == 1) continue;
    StrBuf t, at;
    sb_init(&t);
    sb_init(&at);
    assumption_text(&t, callee, j);
    ir_print_expr(&at, cond);
    diag_error(cc->d, cc->file, cc->src, call->loc.line, call->loc.col,
               "call %s of '%s': its %s does not follow from %s's assumptions at this call ('%s'); assume it (#pragma "
               "npu assume(%s, ...))", call->call->name, callee->name, t.data, cc->caller->name, at.data,
               cc->caller->name);
    sb_free(&t);
    sb_free(&at);
    break;
  }
  aff_free(&c);
  isl_ctx_free(ctx);
  arena_free(&a);
}

static bool check_call(Stmt *s, int depth, void *ctx) {
  (void)depth;
  if (s->kind != ST_BLOCK || !s->call || !s->call->callee->nsizes) return true;
  SizeSet set;
  if (constant_sizes(s, &set)) check_constant(ctx, s, &set);
  else check_sized(ctx, s);
  return true;
}

static bool sized_call(Stmt *s, int depth, void *ctx) {
  (void)depth;
  bool *found = ctx;
  *found |= s->kind == ST_BLOCK && s->call && s->call->callee->nsizes;
  return !*found;
}

bool fe_calls_sized(Kernel *k) {
  bool found = false;
  ir_walk_stmts(k->body, sized_call, &found);
  return found;
}

void fe_check_call_sizes(Kernel *k, DiagList *d, const char *file, const char *src) {
  if (!fe_calls_sized(k)) return;
  CallCheck cc = {k, d, file, src};
  int errors = d->errors;
  ir_walk_stmts(k->body, check_call, &cc);
  /* a kernel of constant sizes: its bounds, once each call's sizes are
   * known to be the callee's (the message above names the call) */
  if (!k->nsizes && d->errors == errors) ir_check_bounds(k, d, file, src);
}

/* ---- names ---- */

typedef struct {
  Fe *fe;
  Stmt *calls[256];
  int n;
} CallList;

static bool list_calls(Stmt *s, int depth, void *ctx) {
  (void)depth;
  CallList *l = ctx;
  if (s->kind != ST_BLOCK || !s->call) return true;
  if (l->n == 256) fe_error_at(l->fe, s->loc, "too many calls in one kernel (at most 256)");
  l->calls[l->n++] = s;
  return true;
}

typedef struct {
  Fe *fe;
  const char *prefix;
} Prefix;

static bool prefix_names(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Prefix *p = ctx;
  if (s->name) s->name = arena_printf(p->fe->arena, "%s_%s", p->prefix, s->name);
  if (s->kind == ST_BLOCK && s->call) s->call->name = arena_printf(p->fe->arena, "%s_%s", p->prefix, s->call->name);
  return true;
}

void fe_name_calls(Fe *fe, Kernel *k, bool (*taken)(void *ctx, const char *name), void *ctx) {
  CallList l = {.fe = fe};
  ir_walk_outside_calls(k->body, list_calls, &l);
  for (int i = 0; i < l.n; i++) {
    Stmt *c = l.calls[i];
    if (c->labeled) continue;
    int same = 0, nth = 0;
    for (int j = 0; j < l.n; j++)
      if (!l.calls[j]->labeled && l.calls[j]->call->callee == c->call->callee) same += 1, nth += j <= i;
    const char *name = c->call->callee->name;
    if (same > 1 || taken(ctx, name)) {
      int seq = same > 1 ? nth : 1;
      do name = arena_printf(fe->arena, "%s_%d", c->call->callee->name, seq++);
      while (taken(ctx, name));
    }
    c->call->name = name;
  }
  for (int i = 0; i < l.n; i++) {
    Prefix p = {fe, l.calls[i]->call->name};
    ir_walk_stmts(l.calls[i]->body, prefix_names, &p);
  }
}

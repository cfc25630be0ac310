/* The headers a variant's C includes (lower/lower.h): <stdint.h> for the
 * fixed-width types it names, <math.h> for the math calls, <stdlib.h>
 * for abs, npu_intrinsics.h when it uses the NPU (an intrinsic's nest or
 * an on-chip buffer). Read from the scheduled IR: the lowering adds no
 * type, call or NPU use that is not there. */
#include <math.h>
#include <string.h>

#include "lower/lower.h"

static void need_type(Includes *n, const Type *t) {
  while (t->alias_of) t = t->alias_of; /* a typedef's or a type macro's own type */
  if (strchr(t->name, '_')) n->stdint = true; /* int8_t, uint32_t, ... */
}

void lower_includes_typedefs(const Module *m, Includes *n) {
  for (const Define *d = m->defines; d; d = d->next)
    if (d->is_typedef) need_type(n, d->type);
}

static bool need_visit(const Expr *e, void *ctx) {
  Includes *n = ctx;
  need_type(n, e->type);
  if (e->kind == EX_CALL && !strcmp(e->text, "abs")) n->stdlib = true;
  else if (e->kind == EX_CALL) n->math = true;
  else if (e->kind == EX_FLOAT && !isfinite(e->fval)) n->math = true; /* INFINITY, NAN: no literal spells them */
  return true;
}

static void needs_expr(Includes *n, const Expr *e) { ir_walk_expr(e, need_visit, n); }

static bool needs_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Includes *n = ctx;
  needs_expr(n, s->lo);
  needs_expr(n, s->hi);
  needs_expr(n, s->cond);
  needs_expr(n, s->lhs);
  needs_expr(n, s->rhs);
  needs_expr(n, s->init);
  for (int i = 0; i < s->ninit; i++) needs_expr(n, s->init_list[i]);
  if (s->var) need_type(n, s->var->type);
  if (s->buf) need_type(n, s->buf->elem);
  if (stmt_uses_npu(s)) n->npu = true;
  return true;
}

Includes lower_includes(const Kernel *k, bool prototype_only) {
  Includes n = {0};
  for (const Param *p = k->params; p; p = p->next) need_type(&n, p->buf ? p->buf->elem : p->var->type);
  if (!prototype_only) ir_walk_stmts(k->body, needs_stmt, &n);
  /* NPUGEN_ASSUME's abort() is declared by the macro's block, not by
   * <stdlib.h>: in GNU mode glibc's declares ulong, uint, ushort and
   * u_char, which a kernel may be named (lower_assume_macro) */
  return n;
}

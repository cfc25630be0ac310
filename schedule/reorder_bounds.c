/* New loop bounds for reorder of a nest whose bounds use one another's
 * counters (a triangle: `for i; for j <= i` becomes `for j; for i >= j`).
 * isl takes the nest's iteration domain and, for the loops in their new
 * order, projects out the loops inside each one and reads its lower and
 * upper bound off the constraints left, simplified against the loops
 * around it. Each must be one affine bound with a unit coefficient; what
 * is not (a max or min of bounds, a stride) is refused. The proof after
 * the step checks that the new nest runs exactly the old instances. */
#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>
#include <stdint.h>
#include <string.h>

#include "ir/affine.h"
#include "schedule/primitives.h"

typedef struct {
  Sched *s;
  int pos;                  /* the loop's dimension */
  const Var *const *vars;   /* the dimensions' counters */
  int nvars;
  Expr *lo, *hi;            /* found: var >= lo, var < hi */
  int nlo, nhi;
  bool bad;
} Bounds;

/* sum of coefficients * counters + constant, the loop's own dimension left
 * out and its coefficient's sign folded in (sign: -1 for a lower bound
 * `v + rest >= 0`, i.e. v >= -rest; +1 for an upper `-v + rest >= 0`). */
static Expr *affine_rest(Bounds *b, isl_constraint *c, int sign) {
  const Type *t = b->vars[b->pos]->type;
  SrcLoc loc = b->vars[b->pos]->loc;
  isl_val *k = isl_constraint_get_constant_val(c);
  Expr *e = NULL;
  int64_t k0 = isl_val_get_num_si(k);
  isl_val_free(k);
  for (int d = 0; d < b->nvars; d++) {
    if (d == b->pos) continue;
    isl_val *v = isl_constraint_get_coefficient_val(c, isl_dim_set, d);
    int64_t cv = isl_val_get_num_si(v) * sign;
    isl_val_free(v);
    if (!cv) continue;
    Expr *term = ir_var(b->s->a, (Var *)b->vars[d], loc);
    if (cv != 1 && cv != -1) term = ir_binary(b->s->a, OP_MUL, ir_int(b->s->a, cv < 0 ? -cv : cv, t, loc), term, t, loc);
    if (!e) e = cv < 0 ? ir_binary(b->s->a, OP_SUB, ir_int(b->s->a, 0, t, loc), term, t, loc) : term;
    else e = cv < 0 ? ir_sub(b->s->a, e, term, t) : ir_add(b->s->a, e, term, t);
  }
  Expr *k1 = ir_int(b->s->a, k0 * sign, t, loc);
  return e ? ir_add(b->s->a, e, k1, t) : k1;
}

static isl_stat one_constraint(isl_constraint *c, void *user) {
  Bounds *b = user;
  isl_val *v = isl_constraint_get_coefficient_val(c, isl_dim_set, b->pos);
  int64_t cv = isl_val_get_num_si(v);
  isl_val_free(v);
  if (cv) {
    if (isl_constraint_is_equality(c) || (cv != 1 && cv != -1) || isl_constraint_involves_dims(c, isl_dim_div, 0, isl_constraint_dim(c, isl_dim_div)))
      b->bad = true;
    else if (cv > 0) { /* v + rest >= 0: v >= -rest */
      b->lo = affine_rest(b, c, -1);
      b->nlo++;
    } else { /* -v + rest >= 0: v <= rest, v < rest + 1 */
      b->hi = ir_add(b->s->a, affine_rest(b, c, 1), ir_int(b->s->a, 1, b->vars[b->pos]->type, b->vars[b->pos]->loc),
                     b->vars[b->pos]->type);
      b->nhi++;
    }
  }
  isl_constraint_free(c);
  return isl_stat_ok;
}

bool reorder_bounds(Sched *s, const Stmt *bottom, Var *const *order, int n, Expr **lo, Expr **hi, const char **why) {
  /* the loops from the kernel's top down to bottom, and their domain (a
   * guard above the chain only leaves out whole iterations around it) */
  Stmt *path[256];
  int np = sched_loops_around(s, bottom, path, 255);
  if (np >= 0) path[np++] = (Stmt *)bottom;
  if (np < n) {
    *why = "the nest is too deep";
    return false;
  }
  if (s->k->nsizes) { /* its bounds would name the sizes, which this domain does not model yet */
    *why = "the kernel has symbolic sizes, and new bounds of a triangle are computed only with constant ones";
    return false;
  }
  AffCtx ac;
  aff_init(&ac, s->ctx, s->k);
  const Var *vars[256];
  for (int i = 0; i < np; i++) {
    aff_push_loop(&ac, path[i]);
    vars[i] = path[i]->var;
  }
  isl_set *dom = aff_domain(&ac);
  aff_free(&ac);
  if (!dom) {
    *why = "isl cannot model the nest";
    return false;
  }
  /* the chain is the last n dimensions; put them in the new order */
  int outer = np - n;
  int perm[256];
  for (int i = 0; i < n; i++) {
    perm[i] = -1;
    for (int d = outer; d < np; d++)
      if (vars[d] == order[i]) perm[i] = d;
  }
  isl_space *sp = isl_set_get_space(dom);
  isl_multi_aff *ma = isl_multi_aff_identity(isl_space_map_from_set(sp));
  isl_multi_aff *to = isl_multi_aff_copy(ma);
  for (int i = 0; i < n; i++) to = isl_multi_aff_set_aff(to, outer + i, isl_multi_aff_get_aff(ma, perm[i]));
  isl_multi_aff_free(ma);
  /* dims in the new order: the image of dom under the permutation */
  isl_set *nd = isl_set_apply(dom, isl_map_from_multi_aff(to));
  const Var *nvars[256];
  for (int d = 0; d < outer; d++) nvars[d] = vars[d];
  for (int i = 0; i < n; i++) nvars[outer + i] = order[i];
  bool ok = nd != NULL;
  for (int i = 0; i < n && ok; i++) {
    int pos = outer + i;
    /* the loop's own constraints: inner loops projected out, simplified
     * against the loops around it */
    isl_set *mine = isl_set_project_out(isl_set_copy(nd), isl_dim_set, (unsigned)pos + 1, (unsigned)(np - pos - 1));
    isl_set *ctx = isl_set_project_out(isl_set_copy(mine), isl_dim_set, (unsigned)pos, 1);
    ctx = isl_set_add_dims(ctx, isl_dim_set, 1);
    mine = isl_set_remove_redundancies(isl_set_gist(mine, ctx));
    if (!mine || isl_set_n_basic_set(mine) != 1) {
      *why = "its new bounds are not one convex piece";
      ok = false;
      isl_set_free(mine);
      break;
    }
    Bounds b = {s, pos, nvars, pos + 1, NULL, NULL, 0, 0, false};
    isl_basic_set_list *l = isl_set_get_basic_set_list(mine);
    isl_basic_set *piece = isl_basic_set_list_get_basic_set(l, 0);
    isl_basic_set_list_free(l);
    isl_basic_set_foreach_constraint(piece, one_constraint, &b);
    isl_basic_set_free(piece);
    isl_set_free(mine);
    if (b.bad || b.nlo != 1 || b.nhi != 1) {
      *why = b.bad ? "a new bound has a stride or a coefficient other than 1" : "a new bound is the maximum or minimum of several";
      ok = false;
      break;
    }
    lo[i] = b.lo;
    hi[i] = b.hi;
  }
  isl_set_free(nd);
  return ok;
}

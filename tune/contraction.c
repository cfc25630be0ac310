/* A contraction nest, as the NU and host sketches read it: spatial loops
 * around `init: C[..] = ..; for k { update: C[..] += A.. * B.. }`. With one
 * spatial loop it is a GEMV (y[i] += A[i][k] * x[k]): the NU's matmul with
 * N = 1, the loop it lacks left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "schedule/intrinsics.h"
#include "tune/tune.h"

typedef struct {
  const Expr **out;
  int n;
} Reads;

static bool add_read(const Expr *e, void *ctx) {
  Reads *r = ctx;
  if (e->kind != EX_LOAD) return true;
  for (int i = 0; i < r->n; i++)
    if (r->out[i]->buf == e->buf) return true;
  if (r->n < 4) r->out[r->n++] = e;
  return true;
}

/* The loads of e's arrays, in order, each array once: those in a call's
 * arguments and in an index too (an update that reads a third array is
 * no contraction). */
static void reads(const Expr *e, const Expr **out, int *n) {
  Reads r = {out, *n};
  ir_walk_expr(e, add_read, &r);
  *n = r.n;
}

/* "loop j (line 9)", "statement s1 (line 12)": what the messages name. */
void tune_stmt_name(const Stmt *st, char *out, size_t n) {
  if (!st) snprintf(out, n, "nothing");
  else if (st->kind == ST_FOR) snprintf(out, n, "loop %s (line %d)", st->name, st->loc.line);
  else if (st->kind == ST_ASSIGN) snprintf(out, n, "statement %s (line %d)", st->name, st->loc.line);
  else if (st->kind == ST_IF) snprintf(out, n, "an if (line %d)", st->loc.line);
  else snprintf(out, n, "a block (line %d)", st->loc.line);
}

/* X of an update `L += X`, or of `L = L + X` (`X + L`) computed in L's
 * type, which C defines to be the same (PolyBench writes atax, mvt and
 * gemver so); NULL for any other statement. */
static const Expr *accumulated(const Stmt *upd) {
  if (upd->kind != ST_ASSIGN) return NULL;
  if (upd->op == OP_ADD) return upd->rhs;
  const Expr *r = upd->rhs;
  if (upd->op != OP_NONE || r->kind != EX_BINARY || r->op != OP_ADD || !type_same(r->type, upd->lhs->type)) return NULL;
  return ir_expr_same(r->a, upd->lhs) ? r->b : ir_expr_same(r->b, upd->lhs) ? r->a : NULL;
}

/* The init and the reduction loop of loop j's body, or false with why. */
static bool init_and_loop(const Stmt *j, const Stmt **init, const Stmt **kl, char *why, size_t n) {
  char at[120], here[120];
  tune_stmt_name(j, at, sizeof at);
  for (const Stmt *c = j->body->kind == ST_BLOCK ? j->body->body : j->body; c; c = c->next) {
    if (c->kind == ST_DECL) continue;
    if (!*init && c->kind == ST_ASSIGN) *init = c;
    else if (*init && !*kl && c->kind == ST_FOR) *kl = c;
    else {
      tune_stmt_name(c, here, sizeof here);
      snprintf(why, n, "%s holds %s where %s; a prologue or a second nest there needs a nest of its own "
                       "(fission) first", at, here, *init ? "only the reduction loop may follow the init"
                                                          : "the init `C[..] = ..;` must come first");
      return false;
    }
  }
  if (!*init || !*kl || (*init)->op != OP_NONE || (*init)->lhs->kind != EX_LOAD) {
    snprintf(why, n, "%s does not hold an init `C[..] = ..;` followed by a reduction loop", at);
    return false;
  }
  return true;
}

bool tune_contraction(const TuneShape *sh, TuneContraction *f, char *why, size_t wn) {
  if (sh->nchain < 1) {
    snprintf(why, wn, "the kernel's body is %d statements, not one loop nest; a contraction is one nest "
                      "`for i, j { C[i][j] = ..; for k C[i][j] += A * B; }` (a kernel of its own per nest would be)",
             sh->ntop);
    return false;
  }
  const Stmt *j = sh->chain[sh->nchain - 1];
  const Stmt *init = NULL, *kl = NULL;
  if (!init_and_loop(j, &init, &kl, why, wn)) return false;
  const Stmt *upd = kl->body->kind == ST_BLOCK ? kl->body->body : kl->body;
  char at[120];
  tune_stmt_name(upd && !upd->next ? upd : kl, at, sizeof at);
  const Expr *added = upd && !upd->next ? accumulated(upd) : NULL;
  if (!added || upd->lhs->kind != EX_LOAD || upd->lhs->buf != init->lhs->buf) {
    snprintf(why, wn, "%s is not one update `%s[..] += A[..] * B[..]` of the init's array", at,
             init->lhs->buf->name);
    return false;
  }
  const Expr *in[4];
  int n = 0;
  reads(added, in, &n);
  if (n != 2) {
    snprintf(why, wn, "%s reads %d arrays; a contraction's update reads two (A and B)", at, n);
    return false;
  }
  bool gemv = sh->nchain == 1;
  const Stmt *i = gemv ? j : sh->chain[sh->nchain - 2];
  f->i = i->name;
  f->j = gemv ? NULL : j->name;
  f->k = kl->name;
  f->init = init->name;
  f->top = sh->chain[0]->name;
  f->c = upd->lhs->buf->name;
  f->a = in[0]->buf->name;
  f->b = in[1]->buf->name;
  f->a_uses_i = ir_expr_uses(in[0], i->var, NULL);
  f->b_uses_i = ir_expr_uses(in[1], i->var, NULL);
  f->elem_c = upd->lhs->buf->elem->size;
  f->elem_a = in[0]->buf->elem->size;
  f->elem_b = in[1]->buf->elem->size;
  f->fp32 = upd->lhs->buf->elem->kind == TY_FLOAT;
  f->m = sh->trip[gemv ? 0 : sh->nchain - 2];
  f->n = gemv ? 1 : sh->trip[sh->nchain - 1];
  f->kk = tune_trip(kl);
  f->batch = 1;
  f->batch_loop = sh->nchain == 3 ? sh->chain[0]->name : NULL;
  for (int l = 0; l < sh->nchain - 2; l++) f->batch *= sh->trip[l] > 0 ? sh->trip[l] : 1;
  if (f->m > 0 && f->n > 0 && f->kk > 0) return true;
  snprintf(why, wn, "the loops around %s have no constant trip counts (give the sizes with --size)", at);
  return false;
}

static const Expr *uncast(const Expr *e) {
  while (e && e->kind == EX_CAST) e = e->a;
  return e;
}

static const Var *index_var(const Expr *load, int d) {
  const Expr *e = uncast(load->idx[d]);
  return e && e->kind == EX_VAR ? e->var : NULL;
}

typedef struct {
  const Stmt *update; /* `C[i][j] += A[..] * B[..]`, 2-D arrays each */
} Update;

static bool find_update(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Update *u = ctx;
  const Expr *m = st->kind == ST_ASSIGN && st->op == OP_ADD && st->lhs->kind == EX_LOAD ? uncast(st->rhs) : NULL;
  if (!u->update && m && m->kind == EX_BINARY && m->op == OP_MUL && st->lhs->buf->ndim == 2) {
    const Expr *a = uncast(m->a), *b = uncast(m->b);
    if (a && b && a->kind == EX_LOAD && b->kind == EX_LOAD && a->buf->ndim == 2 && b->buf->ndim == 2) u->update = st;
  }
  return !u->update;
}

/* The intrinsic's meaning from its semantics kernel: its update is
 * `C[i][j] += A[i][k] * B[k][j]` (or B[j][k]: bt), C in the NU's output
 * buffer (its `scopes:` line), int8 operands into int32 or fp32 ones. */
static bool matmul_meaning(const Kernel *k, const SchedScopes *scopes, TuneNuMatmul *mm) {
  Update u = {NULL};
  ir_walk_stmts(k->body, find_update, &u);
  if (!u.update) return false;
  const Expr *c = u.update->lhs, *m = uncast(u.update->rhs), *a = uncast(m->a), *b = uncast(m->b);
  const Var *i = index_var(c, 0), *j = index_var(c, 1);
  if (index_var(b, 0) == i) { /* A is the operand indexed by C's row */
    const Expr *t = a;
    a = b, b = t;
  }
  const Var *kv = index_var(a, 1);
  if (!i || !j || !kv || index_var(a, 0) != i || kv == i || kv == j) return false;
  bool kj = index_var(b, 0) == kv && index_var(b, 1) == j, jk = index_var(b, 0) == j && index_var(b, 1) == kv;
  const Type *tc = c->buf->elem, *ta = a->buf->elem, *tb = b->buf->elem;
  mm->fp32 = tc->kind == TY_FLOAT && ta->kind == TY_FLOAT && tb->kind == TY_FLOAT;
  bool i8 = type_is_integer(tc) && tc->size == 4 && type_is_integer(ta) && ta->size == 1 && type_is_integer(tb) &&
            tb->size == 1;
  mm->bt = jk;
  const char *out = sched_scope_of(scopes, c->buf->name);
  return (kj || jk) && (mm->fp32 || i8) && out && !strcmp(out, "nu_ob");
}

/* Some operand of the intrinsic is in the NU's output buffer. */
static bool writes_nu_ob(const SchedScopes *scopes) {
  for (int i = 0; i < scopes->n; i++)
    if (!strcmp(scopes->v[i].scope, "nu_ob")) return true;
  return false;
}

char *tune_nu_semantics(const char *name, char *path, size_t path_size, size_t *len) {
  snprintf(path, path_size, "%s/%s.c", sched_intrinsics_dir(), name);
  char *src = read_file(path, len);
  SchedScopes scopes = {.n = 0};
  if (src) sched_intrinsic_scopes(src, &scopes);
  bool nu = src && writes_nu_ob(&scopes);
  if (!nu) free(src);
  return nu ? src : NULL;
}

bool tune_nu_matmul(const char *file, const char *src, size_t len, TuneNuMatmul *mm) {
  DiagList d;
  diag_init(&d);
  Module *m = frontend_parse_intrinsic(file, src, len, &d);
  SchedScopes scopes;
  sched_intrinsic_scopes(src, &scopes);
  bool is = m && m->kernels && matmul_meaning(m->kernels, &scopes, mm);
  if (m) module_free(m);
  diag_free(&d);
  return is;
}

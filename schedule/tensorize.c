/* tensorize(loop, INTRINSIC): the loop nest under `loop` computes exactly
 * what one call of an NPU intrinsic computes; the emitter calls it instead.
 *
 * An intrinsic's semantics is a kernel in the DSL, npu_intrinsics/NAME.c
 * (like TVM's TensorIntrin desc and Exo's instr). The match is structural,
 * up to renaming: loop for loop (the user's trip counts bind the size
 * macros, M = 32), statement for statement, expression for expression with
 * the same operators, casts and types. A semantics `if (p == c)` on a
 * scalar parameter is taken (p = c) or not (p = c + 1), whichever matches
 * (the matmul's accumulate flag). Each semantics array binds to one user
 * array: every index must be the semantics index plus an offset that does
 * not vary inside the nest, so the operand is &USER[offset...] and its
 * leading dimensions are the user array's. The comment lines of the
 * semantics file give the scopes the operands must live in ("scopes: C
 * nu_ob, A nu_ib") and the order of the call's arguments ("abi: ..."):
 * operands, size macros, scalar parameters, and LDX for the leading
 * dimension of operand X.
 *
 * Forms C defines to be equal match too (docs/schedules.md, "Nests with
 * fewer loops" and "Equivalent forms"): a semantics loop the nest has no
 * loop for runs once (size 1, a GEMV as the matmul with N = 1), and an
 * operand of lower rank leaves out the dimensions whose index is then 0;
 * commuted operands, mirrored comparisons, S = S + X for S += X and back,
 * an operand written in place, element for element, and an if under a
 * mask that stores one element as the select it is; `c != d ? x : y` as
 * `c == d ? y : x`, `e > k` on ints as `e >= k + 1`; a lane's index, the
 * semantics' `P + i`, as any signed int index with coefficient 1 on the
 * counter (P its value at counter 0), and `E & k` as `E % (k + 1)` where
 * E is not negative (tested at run time). A guard on a matched
 * loop's counter that keeps a prefix (a split's tail) or any window of
 * its iterations (`if (i >= 7)`, schedule/vectorize_window.c) runs the
 * call over what it keeps: start and length at run time.
 *
 * The nest stays in the IR, marked with the intrinsic, so later steps and
 * their proofs see the code it stands for; the emitter matches again and
 * writes the call (or the loops, with a comment, if a later step changed
 * the nest so that it no longer matches).
 *
 * Files: this one takes the step and writes the call; the matcher is
 * tensorize_bind.c, tensorize_expr.c and tensorize_stmt.c (their shared
 * state: tensorize_match.h), the checks after a match tensorize_check.c,
 * and the pattern table, the semantics kernels by name, tensorize_sems.c. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "ir/arith.h"
#include "schedule/primitives.h"
#include "schedule/expand.h"
#include "schedule/tensorize.h"
#include "schedule/intrinsics.h"
#include "schedule/tensorize_match.h"

static Expr *binary(Arena *a, Op op, Expr *x, Expr *y) {
  Expr *e = ARENA_NEW(a, Expr);
  *e = (Expr){.kind = EX_BINARY, .type = &ty_int, .loc = x->loc, .op = op, .a = x, .b = y};
  return e;
}

static Expr *cond(Arena *a, Expr *c, Expr *x, Expr *y, int parens) {
  Expr *e = ARENA_NEW(a, Expr);
  *e = (Expr){.kind = EX_COND, .type = x->type, .loc = c->loc, .a = c, .b = x, .c = y, .parens = parens};
  return e;
}

/* A tail's size, end - start clamped to [0, extent] (the loops around may
 * reach the nest where its guard holds for no iteration): a number when
 * it is one; npu_clamp for an int; else the comparisons, keeping the
 * count's wider type. */
static Expr *tail_size(Arena *a, const Expr *start, const Expr *end, int64_t extent) {
  int64_t c; /* a constant end as its number, not its #define's name */
  Expr *e = ir_const_int(end, &c) ? ir_int(a, c, &ty_int, (SrcLoc){0, 0}) : ir_expr_copy(a, end);
  Expr *left = arith_simplify(a, ir_sub(a, e, ir_expr_copy(a, start), &ty_int), NULL, 0);
  if (ir_const_int(left, &c)) return ir_int(a, c <= 0 ? 0 : c < extent ? c : extent, &ty_int, left->loc);
  if (left->type->kind == TY_INT && extent <= INT32_MAX) return ir_npu_clamp(a, left, extent);
  Expr *n = ir_int(a, extent, &ty_int, left->loc), *zero = ir_int(a, 0, &ty_int, left->loc);
  return cond(a, binary(a, OP_GE, left, n), n, cond(a, binary(a, OP_GT, left, zero), left, zero, 0), 1);
}

/* The argument the abi's name t binds: an operand's address, a size or a
 * scalar parameter; false when the match binds none. */
static bool abi_arg(Match *m, Arena *a, const char *t, IntrinArg *arg) {
  *arg = (IntrinArg){0};
  for (int i = 0; i < m->nbufs; i++)
    if (!strcmp(m->sbuf[i]->name, t)) {
      Expr *e = ARENA_NEW(a, Expr);
      *e = (Expr){.kind = EX_LOAD, .buf = (Buffer *)m->ubuf[i], .type = m->ubuf[i]->elem, .idx = tensorize_window_offsets(m, i)};
      /* a _Bool mask passed as the intrinsic's uint8_t bytes: C calls the pointer types incompatible */
      const Type *ue = m->ubuf[i]->elem, *se = m->sbuf[i]->elem;
      if ((ue->rank == 0) != (se->rank == 0) && type_is_integer(ue) && type_is_integer(se))
        arg->cast = arena_printf(a, "%s%s *", m->sbuf[i]->is_const ? "const " : "", se->name);
      arg->value = e;
      arg->address = true;
      return true;
    }
  for (int i = 0; i < m->nsizes; i++)
    if (!strcmp(m->size[i], t)) {
      int tail = -1, win = -1;
      for (int j = 0; j < m->ntails; j++)
        if (m->size_loop[i] && m->size_loop[i] == m->tail_var[j]) tail = j;
      for (int j = 0; j < m->nwins; j++)
        if (m->size_loop[i] && m->size_loop[i] == m->win_var[j]) win = j;
      arg->value = win >= 0 ? sched_window_count(a, &m->win[win], m->size_val[i])
                 : tail >= 0 ? tail_size(a, m->tail_start[tail], m->tail_end[tail], m->size_val[i])
                 : ir_int(a, m->size_val[i], &ty_int, (SrcLoc){0, 0});
      return true;
    }
  for (int i = 0; i < m->nparams; i++)
    if (!strcmp(m->sparam[i]->name, t)) {
      arg->value = m->sparam_expr[i] ? m->sparam_expr[i] : ir_int(a, m->sparam_val[i], &ty_int, (SrcLoc){0, 0});
      return true;
    }
  return false;
}

/* Matches and checks scopes; fills the call's arguments when call is not
 * NULL, and the operands' domain test when guard is not NULL
 * (check_domains). */
static bool match_intrinsic(SemCache *cache, Arena *a, const Stmt *loop, const char *name, TensorizedCall *call,
                            StrBuf *guard, char *why, size_t n, bool *known, int *progress) {
  Sem own = {0};
  const Sem *sem = tensorize_sem_get(cache, name, &own, why, n);
  *known = sem != NULL;
  if (!sem) {
    tensorize_sem_free(&own);
    return false;
  }
  Match *m = calloc(1, sizeof *m);
  m->sem = sem->m->kernels;
  m->a = a;
  Stmt one = *loop;
  one.next = NULL;
  bool ok = tensorize_match_list(m, &one, m->sem->body->body);
  if (progress) *progress = m->progress;
  if (!ok) snprintf(why, n, "%s", m->why);
  else ok = tensorize_check_match(m, sem->m, name, guard, why, n);
  char *abi = ok ? sched_intrinsic_meta(sem->m->src, "abi: ") : NULL;
  SchedScopes scopes = {.n = 0};
  if (ok) sched_intrinsic_scopes(sem->m->src, &scopes); /* "C nu_ob, A nu_ib, B nu_wb" */
  for (int k = 0; ok && k < scopes.n; k++) {
    const char *op = scopes.v[k].operand, *scope = scopes.v[k].scope;
    for (int i = 0; i < m->nbufs; i++)
      if (!strcmp(m->sbuf[i]->name, op) && strcmp(m->ubuf[i]->scope, scope)) {
        snprintf(why, n, "its operand %s would be %s, which is in %s; it must be in %s (stage it there with "
                 "cache_read or cache_write)", op, m->ubuf[i]->name,
                 strcmp(m->ubuf[i]->scope, "global") ? m->ubuf[i]->scope : "DDR", scope);
        ok = false;
      }
  }
  /* abi: "npu_nu_matmul_i8(C, A, B, M, N, K, LDA, LDB, LDC, accumulate)" */
  char *args = abi ? strchr(abi, '(') : NULL;
  if (ok && !args) ok = snprintf(why, n, "the semantics of %s give no abi line", name) < 0;
  if (ok && call) {
    call->nargs = 0;
    for (char *t = strtok(args + 1, ", )"); t && ok; t = strtok(NULL, ", )")) {
      if (call->nargs == TENSORIZE_MAX_ARGS) ok = snprintf(why, n, "the abi of %s has more than %d arguments", name, TENSORIZE_MAX_ARGS) < 0;
      else if (!abi_arg(m, a, t, &call->args[call->nargs++]))
        ok = snprintf(why, n, "the abi of %s names '%s', which the match does not bind", name, t) < 0;
    }
  }
  free(abi);
  free(m);
  tensorize_sem_free(&own);
  return ok;
}

bool tensorize_call(Arena *a, const Stmt *loop, TensorizedCall *call, StrBuf *guard, char *why, size_t n) {
  bool known;
  return loop->intrin && match_intrinsic(NULL, a, loop, loop->intrin, call, guard, why, n, &known, NULL);
}

bool tensorize_matches(SemCache *cache, Arena *a, const Stmt *loop, const char *name) {
  char why[1024];
  bool known;
  TensorizedCall call; /* written, so the abi is known to bind */
  return match_intrinsic(cache, a, loop, name, &call, NULL, why, sizeof why, &known, NULL);
}

bool tensorize_shape_matches(SemCache *cache, Arena *a, const Stmt *loop, const char *name) {
  char why[512];
  Sem own = {0};
  const Sem *sem = tensorize_sem_get(cache, name, &own, why, sizeof why);
  bool ok = false;
  if (sem) {
    Match *m = calloc(1, sizeof *m);
    m->sem = sem->m->kernels;
    m->a = a;
    Stmt one = *loop;
    one.next = NULL;
    ok = tensorize_match_list(m, &one, m->sem->body->body);
    free(m);
  }
  tensorize_sem_free(&own);
  return ok;
}

static const Stmt *first_assign(const Stmt *list) {
  for (const Stmt *c = list; c; c = c->next) {
    const Stmt *f = c->kind == ST_ASSIGN ? c : c->kind == ST_FOR ? first_assign(c->body->body)
                  : c->kind == ST_BLOCK ? first_assign(c->body) : c->kind == ST_IF ? first_assign(c->then_s) : NULL;
    if (f) return f;
  }
  return NULL;
}

/* The operator at the root of an assignment's value: a compound
 * assignment's own, else its right-hand side's (a call: OP_NONE). */
static bool assign_root(const Stmt *s, ExprKind *kind, Op *op, const char **fn) {
  if (!s) return false;
  *kind = s->op != OP_NONE ? EX_BINARY : s->rhs->kind;
  *op = s->op != OP_NONE ? s->op : s->rhs->op;
  *fn = s->op == OP_NONE && s->rhs->kind == EX_CALL ? s->rhs->text : "";
  return true;
}

/* Whether the nest's first assignment and the intrinsic's compute their
 * values with one operator (or one call): between misses that came as
 * near, the one whose operation the nest shares is the nearer. */
static bool same_root(SemCache *cache, const Stmt *loop, const char *name) {
  char why[512];
  Sem own = {0};
  const Sem *sem = tensorize_sem_get(cache, name, &own, why, sizeof why);
  Stmt one = *loop;
  one.next = NULL;
  ExprKind uk, sk;
  Op uo, so;
  const char *uf, *sf;
  bool same = sem && assign_root(first_assign(&one), &uk, &uo, &uf) &&
              assign_root(first_assign(sem->m->kernels->body->body), &sk, &so, &sf) && uk == sk &&
              (uk == EX_CALL ? !strcmp(uf, sf) : uk != EX_BINARY && uk != EX_UNARY ? true : uo == so);
  tensorize_sem_free(&own);
  return same;
}

static int intrinsic_file(const struct dirent *e) {
  size_t n = strlen(e->d_name);
  return n > 2 && !strcmp(e->d_name + n - 2, ".c");
}

const char *tensorize_find(SemCache *cache, Arena *a, const Stmt *loop, const char *prefix, char *why, size_t n) {
  struct dirent **files;
  int count = scandir(NPG_INTRINSICS_INCLUDE_DIR, &files, intrinsic_file, alphasort);
  if (count < 0) {
    snprintf(why, n, "cannot read the intrinsics' semantics in %s: %s", NPG_INTRINSICS_INCLUDE_DIR, strerror(errno));
    return NULL;
  }
  const char *found = NULL;
  int best = -1;
  bool best_root = false;
  snprintf(why, n, "npu_intrinsics/ has no %s* semantics kernel", prefix);
  for (int i = 0; i < count; i++) {
    char name[256], miss[1024];
    snprintf(name, sizeof name, "%.*s", (int)strlen(files[i]->d_name) - 2, files[i]->d_name);
    bool known;
    int progress = 0;
    if (!found && !strncmp(name, prefix, strlen(prefix))) {
      TensorizedCall call; /* written, so the abi is known to bind */
      if (match_intrinsic(cache, a, loop, name, &call, NULL, miss, sizeof miss, &known, &progress)) found = arena_strdup(a, name);
      else if (known && (progress > best || (progress == best && !best_root && same_root(cache, loop, name)))) {
        /* the nearest miss: the one that matched furthest; of those, the
         * first that computes what the nest does at its root */
        best_root = progress == best || same_root(cache, loop, name);
        best = progress;
        snprintf(why, n, "nearest %s: %s", name, miss);
      }
    }
    free(files[i]);
  }
  free(files);
  return found;
}

static bool nest_matches(Sched *s, const Stmt *loop, void *intrin) {
  return tensorize_matches(s->sems, s->a, loop, intrin);
}

/* The same, keeping why the nest (a copy with its loops to sizes bounded)
 * does not match: that is the reason to report, not the size's. */
typedef struct {
  const char *name;
  char why[1024];
  bool tried;
} BoundMatch;

static bool bounded_matches(Sched *s, const Stmt *loop, void *ctx) {
  BoundMatch *b = ctx;
  TensorizedCall call;
  bool known;
  b->tried = true;
  return match_intrinsic(s->sems, s->a, loop, b->name, &call, NULL, b->why, sizeof b->why, &known, NULL);
}

bool prim_tensorize(Sched *s, const SchedStep *st) {
  Stmt *loop = sched_loop(s, &st->args[0]);
  if (!loop) return false;
  const Stmt *unrolled = sched_unrolled_inside(loop->body);
  if (unrolled)
    return sched_error(s, &st->args[0], "loop %s under %s is unrolled (%s, line %d), and one intrinsic call runs the whole nest; tensorize before the unroll",
                       unrolled->name, loop->name, unrolled->mark_step ? unrolled->mark_step : "unroll", unrolled->mark_loc.line);
  const SchedArg *ia = &st->args[1];
  if (ia->kind != SA_NAME) return sched_error(s, ia, "expected an intrinsic's name, got '%s'", ia->text);
  char why[1024];
  TensorizedCall call; /* written, so the abi is known to bind */
  bool known, ok = match_intrinsic(s->sems, s->a, loop, ia->name, &call, NULL, why, sizeof why, &known, NULL);
  if (!known) return sched_error(s, ia, "%s", why);
  if (!ok && sched_expand_to_match(s, loop, nest_matches, (void *)ia->name)) ok = true; /* schedule/expand.c */
  BoundMatch bm = {.name = ia->name};
  if (!ok && sched_bound_to_match(s, loop, bounded_matches, &bm)) ok = true; /* schedule/tensorize_sized.c */
  if (!ok) {
    sched_error(s, ia, "the nest under %s does not match %s: %s", loop->name, ia->name, bm.tried ? bm.why : why);
    tensorize_hint(s, loop, ia->name);
    return false;
  }
  loop->intrin = arena_strdup(s->a, ia->name);
  return true;
}

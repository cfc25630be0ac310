/* The check's C of a variant keeps an accumulated element in a local
 * (docs/check.md, "What the check runs").
 *
 * tcc keeps nothing in registers and computes every address in full, so
 * `C[i][j] += A[i][k] * B[k][j]` in a loop over k loads and stores C[i][j]
 * through a two-dimensional address at every iteration. In the check's
 * text only (never the emitted file), such a loop becomes
 *
 *   T npg_accN = C[i][j];
 *   for (k ...) npg_accN += A[i][k] * B[k][j];
 *   C[i][j] = npg_accN;
 *
 * which is the same computation in C: the element is read once before the
 * first iteration and written once after the last, with the same value at
 * every step between, when
 *   - the loop is innermost and its body is one assignment to X[idx];
 *   - idx does not change in the loop (it does not use the loop's counter
 *     or X, and the body assigns nothing else);
 *   - every other read of X in the body is X[idx] itself;
 *   - the loop runs at least once for sure (constant bounds): otherwise
 *     X[idx] would be read and written where the variant never touches it,
 *     perhaps past the array's end;
 *   - X's accesses are not ones the check times (lower_cu_hooked in a
 *     variant that uses the NPU: the control unit's cost of each access).
 * The arrays the check passes never alias, so nothing else reaches X[idx]
 * during the loop. */
#include "lower/variant_promote.h"
#include "lower/lower.h"

typedef struct {
  Arena *a;
  Kernel *k;
  bool npu; /* the variant uses the NPU: hooked buffers keep their accesses */
  int made;
} Promote;

static bool runs_once_at_least(const Stmt *loop) {
  int64_t n;
  return ir_trip_count(loop, &n) && n > 0;
}

/* ir_visit_expr's step: a read of x's buffer is x itself (its indices
 * are x's, so not walked). */
static IrVisit read_is_x(const Expr *e, int depth, void *ctx) {
  (void)depth;
  const Expr *x = ctx;
  if (e->kind != EX_LOAD || e->buf != x->buf) return IR_VISIT_ON;
  return ir_expr_same(e, x) ? IR_VISIT_SKIP : IR_VISIT_STOP;
}

/* Every read of x's buffer in e is x itself. */
static bool reads_only(const Expr *e, const Expr *x) { return ir_visit_expr(e, read_is_x, (void *)x); }

/* What replaces a read of x: local t. */
typedef struct {
  const Expr *x;
  Var *t;
} ReadOfX;

/* ir_map_expr's step: a read of x's buffer (x itself: reads_only) is t,
 * inside an index too, where the array still holds the value from before
 * the loop (the store back comes after it). */
static Expr *read_as_local(Arena *a, Expr *e, void *ctx) {
  const ReadOfX *r = ctx;
  return e->kind == EX_LOAD && e->buf == r->x->buf ? ir_var(a, r->t, e->loc) : e;
}

/* e with every read of x replaced by t (a copy where it changes). */
static Expr *replace(Arena *a, Expr *e, const Expr *x, Var *t) {
  ReadOfX r = {x, t};
  return ir_map_expr(a, e, read_as_local, &r);
}

static const Stmt *promotable_store(const Promote *p, const Stmt *loop) {
  if (loop->kind != ST_FOR || loop->low || loop->intrin || loop->loop_kind != LOOP_SERIAL) return NULL;
  const Stmt *s = loop->body ? loop->body->body : NULL;
  if (!s || s->next || s->low || s->kind != ST_ASSIGN || s->lhs->kind != EX_LOAD) return NULL;
  const Expr *x = s->lhs;
  if (p->npu && lower_cu_hooked(x->buf)) return NULL;
  for (int i = 0; i < x->buf->ndim; i++)
    if (ir_expr_uses(x->idx[i], loop->var, x->buf)) return NULL;
  if (!reads_only(s->rhs, x) || !runs_once_at_least(loop)) return NULL;
  return s;
}

static Stmt *copy_of(Arena *a, const Stmt *s) {
  Stmt *c = ARENA_NEW(a, Stmt);
  *c = *s;
  c->next = NULL;
  return c;
}

static Stmt *promote_list(Promote *p, const Stmt *list);

/* Block b (a loop's body, an if's branch) with its list promoted. */
static Stmt *promote_block(Promote *p, const Stmt *b) {
  if (!b) return NULL;
  Stmt *c = copy_of(p->a, b);
  c->body = promote_list(p, b->body);
  return c;
}

/* The three statements of a promoted loop, linked. */
static Stmt *promote_loop(Promote *p, const Stmt *loop, const Stmt *s) {
  Arena *a = p->a;
  Var *t = ir_new_var(a, p->k, arena_printf(a, "npg_acc%d", ++p->made), s->lhs->buf->elem, VAR_LOCAL, s->loc);
  Stmt *decl = ir_stmt(a, ST_DECL, s->loc);
  decl->var = t;
  decl->init = s->lhs;
  Stmt *body = copy_of(a, s);
  body->lhs = ir_var(a, t, s->loc);
  body->rhs = replace(a, s->rhs, s->lhs, t);
  body->labeled = false; /* its label's comment stays on the store back */
  Stmt *l = copy_of(a, loop);
  l->body = copy_of(a, loop->body);
  l->body->body = body;
  Stmt *back = ir_stmt(a, ST_ASSIGN, s->loc);
  back->lhs = s->lhs;
  back->op = OP_NONE;
  back->rhs = ir_var(a, t, s->loc);
  back->name = s->name;
  back->labeled = s->labeled;
  decl->next = l;
  l->next = back;
  decl->annots = loop->annots;
  l->annots = NULL;
  return decl;
}

static Stmt *promote_list(Promote *p, const Stmt *list) {
  Stmt *out = NULL, **tail = &out;
  for (const Stmt *s = list; s; s = s->next) {
    const Stmt *store = promotable_store(p, s);
    Stmt *c;
    if (store) {
      c = promote_loop(p, s, store);
    } else {
      c = copy_of(p->a, s);
      if (s->kind == ST_FOR || s->kind == ST_BLOCK) {
        c->body = s->kind == ST_FOR ? promote_block(p, s->body) : promote_list(p, s->body);
      } else if (s->kind == ST_IF) {
        c->then_s = promote_block(p, s->then_s);
        c->else_s = promote_block(p, s->else_s);
      }
    }
    *tail = c;
    while (*tail) tail = &(*tail)->next;
  }
  return out;
}

const Kernel *lower_check_promote(Arena *a, const Kernel *ir, const Kernel *low) {
  /* the emitter's test for the hooks (lower/module.c) */
  Promote p = {.a = a, .k = ARENA_NEW(a, Kernel), .npu = lower_includes(ir, false).npu};
  *p.k = *low;
  p.k->body = promote_block(&p, low->body);
  return p.made ? p.k : low;
}

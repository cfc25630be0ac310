/* The check's permuted orders (EmitOrder, docs/check.md): each marked
 * loop of a lowered kernel (lower_permutable) rewritten to run its
 * iterations in order o. Marked iterations are proven independent, so
 * every order computes the same: the differential check runs the others
 * to catch a mark that a later step broke. A loop over positions 0 .. n-1
 * maps each position to an iteration number k and sets the counter to
 * lo + k * step, so one copy of the body serves every order, for any
 * bounds: affine in outer counters, inclusive or not, any step, counting
 * up or down.
 *
 *   { // loop i in reversed order (the check's)
 *     const long long npg_i_lo = 0;
 *     const long long npg_i_hi = N;
 *     const unsigned long long npg_i_n = npg_i_hi > npg_i_lo ? ... : 0;
 *     for (unsigned long long npg_i_at = 0; npg_i_at < npg_i_n; npg_i_at++) {
 *       const unsigned long long npg_i_k = npg_i_n - 1 - npg_i_at;
 *       int i = (int)((unsigned long long)npg_i_lo + npg_i_k);
 *       (void)i;
 *       ...
 *
 * Counter values fit in long long (the frontend refuses 2^63 and more);
 * the trip count and the steps are computed in unsigned long long, where
 * the differences of two such values cannot overflow, and the counter's
 * value, which lies between lo and hi, converts back exactly. A loop that
 * keeps the source order (Stmt.order_note) gets a note saying why. */
#include "lower/lower.h"

typedef struct {
  Lower lw;
  EmitOrder o;
} Order;

const char *lower_order_name(EmitOrder o) {
  switch (o) {
  case EMIT_ORDER_SOURCE: return "source";
  case EMIT_ORDER_REVERSED: return "reversed";
  case EMIT_ORDER_ODD_EVEN: return "odd-even";
  default: return "?";
  }
}

static Expr *ull(Lower *lw, int64_t v) { return ir_int(lw->arena, v, &ty_ullong, (SrcLoc){0}); }
static Expr *op(Lower *lw, Op o, Expr *a, Expr *b) { return ir_binary(lw->arena, o, a, b, &ty_ullong, (SrcLoc){0}); }
static Expr *as_ull(Lower *lw, const Var *v) { return ir_cast(lw->arena, lower_var(lw, v), &ty_ullong, false); }

static Expr *cond(Lower *lw, Expr *c, Expr *then, Expr *other) {
  Expr *e = ARENA_NEW(lw->arena, Expr);
  *e = (Expr){.kind = EX_COND, .type = &ty_ullong, .a = c, .b = then, .c = other};
  return e;
}

/* npg_V_WHAT of loop counter V */
static Var *local(Lower *lw, const Stmt *loop, const char *what, const Type *t, bool is_const) {
  Var *v = ARENA_NEW(lw->arena, Var);
  *v = (Var){.name = arena_printf(lw->arena, "npg_%s_%s", loop->var->name, what), .type = t, .kind = VAR_LOCAL,
             .is_const = is_const, .loc = loop->loc};
  return v;
}

/* `T v = init;` */
static Stmt *decl(Lower *lw, Var *v, Expr *init) {
  Stmt *s = ir_stmt(lw->arena, ST_DECL, v->loc);
  s->var = v;
  s->init = init;
  return s;
}

/* The iteration number k of position at (n iterations). */
static Expr *iteration_of(Order *r, const Var *n, const Var *at) {
  Lower *lw = &r->lw;
  if (r->o == EMIT_ORDER_REVERSED) return op(lw, OP_SUB, op(lw, OP_SUB, lower_var(lw, n), lower_int(lw, 1)), lower_var(lw, at));
  /* EMIT_ORDER_ODD_EVEN: the n / 2 odd iterations first */
  Expr *half = op(lw, OP_DIV, lower_var(lw, n), lower_int(lw, 2));
  Expr *odd = op(lw, OP_ADD, op(lw, OP_MUL, lower_int(lw, 2), lower_var(lw, at)), lower_int(lw, 1));
  Expr *even = op(lw, OP_MUL, lower_int(lw, 2), op(lw, OP_SUB, lower_var(lw, at), half));
  return cond(lw, ir_binary(lw->arena, OP_LT, lower_var(lw, at), half, &ty_int, (SrcLoc){0}), odd, even);
}

/* Loop s in order o, as a block around body (s's, rewritten). */
static Stmt *permuted(Order *r, const Stmt *s, Stmt *body) {
  Lower *lw = &r->lw;
  Var *lo = local(lw, s, "lo", &ty_llong, true), *hi = local(lw, s, "hi", &ty_llong, true),
      *n = local(lw, s, "n", &ty_ullong, true), *at = local(lw, s, "at", &ty_ullong, false),
      *k = local(lw, s, "k", &ty_ullong, true);
  bool up = s->step > 0;
  uint64_t mag = up ? (uint64_t)s->step : 0ull - (uint64_t)s->step;
  Expr *by = mag == 1 ? lower_var(lw, k) : op(lw, OP_MUL, ull(lw, (int64_t)mag), lower_var(lw, k));
  Stmt *unused = lower_node(lw, LOW_UNUSED, s->loc); /* the body may not read the counter */
  unused->note = s->var->name;
  unused->next = body;
  Stmt *counter = decl(lw, s->var, ir_cast(lw->arena, op(lw, up ? OP_ADD : OP_SUB, as_ull(lw, lo), by), s->var->type, false));
  counter->next = unused;
  Stmt *in = ir_stmt(lw->arena, ST_BLOCK, s->loc);
  in->body = decl(lw, k, iteration_of(r, n, at));
  in->body->next = counter;
  Stmt *f = ir_stmt(lw->arena, ST_FOR, s->loc);
  *f = (Stmt){.kind = ST_FOR, .loc = s->loc, .name = s->name, .body = in, .var = at, .lo = lower_int(lw, 0),
              .hi = lower_var(lw, n), .cmp = OP_LT, .step = 1};
  Stmt *out = ir_stmt(lw->arena, ST_BLOCK, s->loc), **tail = &out->body;
  out->note = arena_printf(lw->arena, "loop %s in %s order (the check's)", s->var->name, lower_order_name(r->o));
  tail = lower_append(tail, decl(lw, lo, s->lo));
  tail = lower_append(tail, decl(lw, hi, s->hi));
  /* counted in unsigned long long, which holds hi - lo (see the top) */
  tail = lower_append(tail, decl(lw, n, ir_trips_between(lw->arena, s->cmp, s->step, lower_var(lw, lo), lower_var(lw, hi),
                                                         &ty_ullong).trips));
  lower_append(tail, f);
  return out;
}

static Stmt *rewrite(Lower *lw, const Stmt *list, const void *ctx);

/* Marked loop s (c: a copy, its body rewritten) in order o, after the
 * notes the loop as written would print (a tensorize that no longer
 * matches, its phase or vectorize's hint), the first with s's
 * annotations, and without its OpenMP pragma (which must precede a
 * `for`: the loop over positions is not the marked one); or in the
 * source order, after a note saying why. */
static Stmt *marked(Order *r, const Stmt *s, Stmt *c) {
  Lower *lw = &r->lw;
  const char *notes[2] = {s->intrin_call ? s->intrin_call->note : NULL, s->note};
  StrBuf vec;
  sb_init(&vec);
  if (!s->note && s->order_note)
    notes[1] = arena_printf(lw->arena, "loop %s in source order, not %s: %s", s->var->name, lower_order_name(r->o),
                            s->order_note);
  else if (!s->note && lower_vec_note(s, &vec))
    notes[1] = arena_strdup(lw->arena, vec.data);
  sb_free(&vec);
  Stmt *out = NULL, **tail = &out;
  for (int i = 0; i < 2; i++)
    if (notes[i]) tail = lower_append(tail, lower_note(lw, s->loc, notes[i]));
  c->intrin_call = NULL; /* its note is printed */
  Stmt *last = !s->note && s->order_note ? c : permuted(r, s, c->body->body);
  lower_append(tail, last);
  last->annots = NULL;
  out->annots = s->annots;
  return out;
}

/* A tensorized nest's fallback, where its operands' test fails, rewritten. */
static Stmt *with_fallback(Order *r, Stmt *c) {
  IntrinCall *ic = ARENA_NEW(r->lw.arena, IntrinCall);
  *ic = *c->intrin_call;
  ic->fallback = rewrite(&r->lw, ic->fallback, r);
  c->intrin_call = ic;
  return c;
}

static Stmt *rewrite(Lower *lw, const Stmt *list, const void *ctx) {
  Order *r = (Order *)ctx;
  Stmt *out = NULL, **tail = &out;
  for (const Stmt *s = list; s; s = s->next) {
    Stmt *c = lower_rebuild(lw, s, rewrite, ctx);
    const IntrinCall *ic = s->kind == ST_FOR ? s->intrin_call : NULL;
    if (ic && ic->fn) c = ic->guard ? with_fallback(r, c) : c; /* the call is one instruction */
    else if (s->kind == ST_FOR && lower_permutable(s)) c = marked(r, s, c);
    tail = lower_append(tail, c);
  }
  return out;
}

Kernel *lower_order(Arena *a, const Kernel *lowered, EmitOrder o) {
  if (o == EMIT_ORDER_SOURCE) return (Kernel *)lowered; /* as it runs: nothing to permute */
  Order r = {.lw = {.arena = a}, .o = o};
  Kernel *k = ARENA_NEW(a, Kernel);
  *k = *lowered;
  k->body = lower_shallow(&r.lw, lowered->body);
  k->body->body = rewrite(&r.lw, lowered->body->body, &r);
  return k;
}

/* Over-computation into padding. When buffers are padded, a split's tail
 * guard (or any if without else, with an affine condition) can often go: the
 * instances it skips would only touch padding. The guard is dropped when every
 * statement instance it would let run is harmless, which is proven here with
 * isl over the instances the guard excludes:
 *
 *   - every element such an instance reads or writes lies inside its
 *     buffer's physical extents (padding included), and
 *   - it writes only padding (which no logical element maps to: unpack drops
 *     it, and no instance of the kernel as written reads it), and evaluates
 *     nothing undefined on arbitrary values (no division by a variable, no
 *     signed integer arithmetic or shift by a variable, no float to integer
 *     conversion; an integer update of padding must add 0, as below); or
 *   - it adds (+=, -=, |=, ^=) a product with a factor read from the padding
 *     of a buffer that the kernel never writes and whose pad_value is 0, so
 *     it adds exactly 0. For floats every other factor must be read from such
 *     padding too (finite values), since 0 * inf is NaN.
 *
 * Anything else keeps the guard (docs/layouts.md). Extra instances that add
 * exactly 0 or write only padding cannot change a logical value, in any
 * order, so dependences need no further check. */
#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/set.h>
#include <stdlib.h>
#include <string.h>

#include "ir/affine.h"
#include "schedule/layout.h"
#include "schedule/primitives.h"

typedef struct {
  Sched *s;
  AffCtx aff;
  int nbufs;
  bool *written;     /* by Buffer.id */
  isl_set **pad;     /* by Buffer.id, built on first use */
  isl_set **box;
  int dropped;       /* guards dropped */
} Pad;

static bool mark_written(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Pad *p = ctx;
  if (st->kind == ST_ASSIGN && st->lhs->kind == EX_LOAD && st->lhs->buf->id < p->nbufs) p->written[st->lhs->buf->id] = true;
  return true;
}

static isl_set *buf_set(Pad *p, const Buffer *b, bool pad) {
  isl_set **slot = pad ? &p->pad[b->id] : &p->box[b->id];
  if (!*slot) *slot = pad ? layout_pad_set(p->s, b) : layout_box_set(p->s, b);
  return *slot;
}

/* The elements a load touches over the current domain lie in `target`. */
static bool image_within(Pad *p, const Expr *load, isl_set *target) {
  if (!target) return false;
  char *space = aff_space_text(&p->aff), *cons = aff_cons_text(&p->aff);
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "{ %s -> [", space);
  for (int d = 0; d < load->buf->ndim; d++) sb_printf(&sb, "%st%d", d ? ", " : "", d);
  sb_printf(&sb, "] : %s", cons);
  bool ok = true;
  for (int d = 0; d < load->buf->ndim && ok; d++) {
    char *t = aff_text(&p->aff, load->idx[d]);
    if (t) sb_printf(&sb, " and t%d = %s", d, t);
    else ok = false;
    free(t);
  }
  sb_puts(&sb, " }");
  free(space);
  free(cons);
  if (ok) {
    isl_map *m = isl_map_read_from_str(p->s->ctx, sb.data);
    isl_set *img = m ? isl_map_range(m) : NULL;
    ok = img && isl_set_is_subset(img, target) == isl_bool_true;
    isl_set_free(img);
  }
  sb_free(&sb);
  return ok;
}

/* How deep the two checks below look: a deeper expression is refused. */
enum { MAX_DEPTH = 64 };

/* ir_visit_expr's step of safe_expr: a load inside its buffer, an
 * integer division by a constant other than 0 and -1. */
static IrVisit safe_node(const Expr *e, int depth, void *ctx) {
  Pad *p = ctx;
  if (depth > MAX_DEPTH) return IR_VISIT_STOP;
  if (e->kind == EX_LOAD && !image_within(p, e, buf_set(p, e->buf, false))) return IR_VISIT_STOP;
  int64_t c;
  if (e->kind == EX_BINARY && (e->op == OP_DIV || e->op == OP_MOD) && type_is_integer(e->type) &&
      !(ir_const_int(e->b, &c) && c != 0 && c != -1))
    return IR_VISIT_STOP;
  return IR_VISIT_ON;
}

/* Every load in e stays inside its buffer, and e cannot trap. */
static bool safe_expr(Pad *p, const Expr *e) { return ir_visit_expr(e, safe_node, p); }

/* ir_visit_expr's step of no_overflow: e's own operation is defined for
 * every operand value; a load's indices are not walked. */
static IrVisit defined_node(const Expr *e, int depth, void *ctx) {
  (void)ctx;
  if (depth > MAX_DEPTH) return IR_VISIT_STOP;
  int64_t c;
  switch (e->kind) {
  case EX_LOAD: return IR_VISIT_SKIP;
  case EX_CAST: return type_is_integer(e->type) && type_is_float(e->a->type) ? IR_VISIT_STOP : IR_VISIT_ON;
  case EX_UNARY:
    return e->op == OP_NEG && type_is_integer(e->type) && e->type->is_signed ? IR_VISIT_STOP : IR_VISIT_ON;
  case EX_BINARY:
    if ((e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL) && type_is_integer(e->type) && e->type->is_signed)
      return IR_VISIT_STOP;
    if ((e->op == OP_SHL || e->op == OP_SHR) && !(ir_const_int(e->b, &c) && c >= 0 && c < 8 * e->type->size))
      return IR_VISIT_STOP;
    if (e->op == OP_SHL && type_is_integer(e->type) && e->type->is_signed) return IR_VISIT_STOP;
    return IR_VISIT_ON;
  default: return IR_VISIT_ON;
  }
}

/* Evaluating e on arbitrary element values cannot overflow a signed integer,
 * shift out of range or convert an out-of-range float to an integer (all
 * undefined in C). Index arithmetic is exempt: indices stay in the box. */
static bool no_overflow(const Expr *e) { return ir_visit_expr(e, defined_node, NULL); }

static const Expr *strip_casts(const Expr *e) {
  while (e->kind == EX_CAST && (type_is_integer(e->type) || type_is_float(e->type))) e = e->a;
  return e;
}

/* A read from the padding of a buffer the kernel never writes. */
static bool known_pad_read(Pad *p, const Expr *e, bool zero) {
  e = strip_casts(e);
  if (e->kind != EX_LOAD) return false;
  const Buffer *b = e->buf;
  if (!b->layout || !b->layout->pad_text || b->id >= p->nbufs || p->written[b->id]) return false;
  if (zero && b->layout->pad_value != 0) return false;
  return image_within(p, e, buf_set(p, b, true));
}

static bool is_zero(Pad *p, const Expr *e, bool is_float);

/* A factor that keeps 0 * factor == 0. */
static bool finite_factor(Pad *p, const Expr *e, bool is_float) {
  if (!is_float) return no_overflow(e); /* integers: 0 * x == 0, if x itself is defined */
  const Expr *x = strip_casts(e);
  if (x->kind == EX_INT || x->kind == EX_FLOAT) return true;
  return known_pad_read(p, x, false) || is_zero(p, x, is_float);
}

static bool is_zero(Pad *p, const Expr *e, bool is_float) {
  e = strip_casts(e);
  if (e->kind == EX_INT) return e->ival == 0;
  if (known_pad_read(p, e, true)) return true;
  if (e->kind == EX_BINARY && e->op == OP_MUL)
    return (is_zero(p, e->a, is_float) && finite_factor(p, e->b, is_float)) ||
           (is_zero(p, e->b, is_float) && finite_factor(p, e->a, is_float));
  return false;
}

static bool harmless_leaf(Pad *p, const Stmt *st) {
  if (st->kind != ST_ASSIGN) return false;
  if (!safe_expr(p, st->rhs) || !safe_expr(p, st->lhs)) return false;
  bool adds = st->op == OP_ADD || st->op == OP_SUB || st->op == OP_BOR || st->op == OP_BXOR;
  bool adds_zero = adds && is_zero(p, st->rhs, type_is_float(st->rhs->type));
  if (st->lhs->kind == EX_LOAD && st->lhs->buf->layout && image_within(p, st->lhs, buf_set(p, st->lhs->buf, true))) {
    /* writes padding only: any value will do, if computing it is defined
     * (an integer `x op= v` on padding of unknown value needs v == 0) */
    bool int_update = st->op != OP_NONE && type_is_integer(st->lhs->type);
    return adds_zero || (!int_update && no_overflow(st->rhs));
  }
  return adds_zero;
}

/* All leaves of a list are harmless over the current (excluded) domain. */
static bool harmless_list(Pad *p, const Stmt *list) {
  for (const Stmt *c = list; c; c = c->next) {
    bool ok = true;
    switch (c->kind) {
    case ST_BLOCK:
      ok = harmless_list(p, c->body);
      break;
    case ST_FOR:
      aff_push_loop(&p->aff, c);
      ok = harmless_list(p, c->body);
      aff_pop_loop(&p->aff);
      break;
    case ST_IF:
      /* a nested if: over-approximate by both branches, each unguarded */
      ok = harmless_list(p, c->then_s) && (!c->else_s || harmless_list(p, c->else_s)) && safe_expr(p, c->cond);
      break;
    default:
      ok = harmless_leaf(p, c);
      break;
    }
    if (!ok) return false;
  }
  return true;
}

static void drop_list(Pad *p, Stmt **list);

/* Tries to drop the guard at *link; true when it did. */
static bool try_drop(Pad *p, Stmt **link) {
  Stmt *g = *link;
  if (g->else_s || p->aff.nloops == 0) return false;
  if (!aff_push_cond(&p->aff, g->cond, true)) return false;
  bool ok = harmless_list(p, g->then_s);
  aff_pop_cond(&p->aff);
  if (!ok) return false;
  Stmt *body = g->then_s->kind == ST_BLOCK ? g->then_s->body : g->then_s;
  p->dropped++;
  if (!body) {
    *link = g->next;
    return true;
  }
  /* no declaration to splice: harmless_list accepts assignments only */
  Stmt *last = body;
  while (last->next) last = last->next;
  last->next = g->next;
  *link = body;
  return true;
}

static void drop_list(Pad *p, Stmt **list) {
  for (Stmt **link = list; *link;) {
    Stmt *c = *link;
    switch (c->kind) {
    case ST_BLOCK:
      drop_list(p, &c->body);
      break;
    case ST_FOR:
      aff_push_loop(&p->aff, c);
      drop_list(p, &c->body);
      aff_pop_loop(&p->aff);
      break;
    case ST_IF:
      if (try_drop(p, link)) continue; /* look again at what took its place */
      if (aff_push_cond(&p->aff, c->cond, false)) {
        drop_list(p, &c->then_s);
        aff_pop_cond(&p->aff);
      }
      break;
    default:
      break;
    }
    link = &c->next;
  }
}

static bool any_padding(const Kernel *k) {
  for (const Param *p = k->params; p; p = p->next)
    if (p->buf && p->buf->layout && p->buf->layout->padded) return true;
  return false;
}

bool pad_drop_guards(Sched *s) {
  if (!any_padding(s->k)) return false;
  Pad p = {s, {0}, s->k->nbufs, NULL, NULL, NULL, 0};
  p.written = calloc((size_t)p.nbufs + 1, sizeof *p.written);
  p.pad = calloc((size_t)p.nbufs + 1, sizeof *p.pad);
  p.box = calloc((size_t)p.nbufs + 1, sizeof *p.box);
  ir_walk_stmts(s->k->body, mark_written, &p);
  aff_init(&p.aff, s->ctx, s->k);
  drop_list(&p, &s->k->body->body);
  aff_free(&p.aff);
  for (int i = 0; i <= p.nbufs; i++) {
    isl_set_free(p.pad[i]);
    isl_set_free(p.box[i]);
  }
  free(p.written);
  free(p.pad);
  free(p.box);
  return p.dropped > 0;
}

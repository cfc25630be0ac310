/* Guard simplification: an if whose condition is always true (or always
 * false) inside its loops is replaced by the branch that runs. Used after
 * loop_partition, where a split's tail guard holds on every main tile; and
 * on the tail tile itself (a loop of one iteration around), the guard
 * `start + ii < end` that is all a loop runs becomes that loop's bound:
 * the tail's loops then have constant extents, as tensorize needs. */
#include <isl/ctx.h>

#include "ir/affine.h"
#include "schedule/primitives.h"

enum { MAX_LOOPS = 64 };

typedef struct {
  AffCtx aff;    /* the loops and guards around the statement at hand */
  Arena *a;
  Stmt **target; /* the list to simplify */
} Simp;

static bool has_decl(const Stmt *list) {
  for (const Stmt *c = list; c; c = c->next)
    if (c->kind == ST_DECL) return true;
  return false;
}

/* `for v in 0 .. < E: [for w ...:] if (start + v < end) BODY`
 * (ir_tail_guard; the loops between, as tile() leaves them, have bounds
 * and start free of v and of each other), with start one value over the
 * loops and guards around (a tail tile of one iteration): the guard goes
 * and v's bound becomes end - start when that is below E. The iterations
 * dropped ran nothing. */
static void tighten(Simp *p, Stmt *loop) {
  int64_t lo, hi, end, start, start_hi;
  bool exact, empty;
  if (loop->step != 1 || loop->cmp != OP_LT || !ir_const_int(loop->lo, &lo) || lo != 0 || !ir_const_int(loop->hi, &hi))
    return;
  const Stmt *between[MAX_LOOPS];
  int nb = 0;
  Stmt **link = &loop->body->body;
  while (*link && !(*link)->next && (*link)->kind == ST_FOR && nb < MAX_LOOPS) {
    Stmt *w = *link;
    if (ir_expr_uses(w->lo, loop->var, NULL) || ir_expr_uses(w->hi, loop->var, NULL)) return;
    between[nb++] = w;
    link = &w->body->body;
  }
  Stmt *g = *link;
  Expr *x;
  const Expr *end_e;
  if (!ir_tail_guard(p->a, g, loop->var, &x, &end_e) || !ir_const_int(end_e, &end) || has_decl(g->then_s->body))
    return;
  for (int i = 0; i < nb; i++)
    if (ir_expr_uses(x, between[i]->var, NULL)) return;
  if (!aff_range(&p->aff, x, &start, &start_hi, &exact, &empty) || !exact || empty || start != start_hi ||
      end - start <= 0 || end - start >= hi)
    return;
  loop->hi = ir_int(p->a, end - start, loop->hi->type, loop->hi->loc);
  *link = g->then_s->body;
}

static void simp_list(Simp *p, Stmt **list, bool active);

static void simp_stmt(Simp *p, Stmt **link, bool active) {
  Stmt *c = *link;
  switch (c->kind) {
  case ST_BLOCK:
    simp_list(p, &c->body, active);
    break;
  case ST_FOR:
    if (active) tighten(p, c);
    aff_push_loop(&p->aff, c);
    simp_list(p, &c->body->body, active);
    aff_pop_loop(&p->aff);
    break;
  case ST_IF: {
    int v = active ? aff_cond_value(&p->aff, c->cond) : -1;
    if (v >= 0) {
      Stmt *branch = v ? c->then_s : c->else_s;
      Stmt *list = branch ? branch->body : NULL;
      if (list && has_decl(list)) list = branch; /* keep the block: its locals' scope */
      else if (list && branch) branch->body = NULL;
      if (list) {
        Stmt *last = list;
        while (last->next) last = last->next;
        last->next = c->next;
        *link = list;
      } else {
        *link = c->next;
      }
      return;
    }
    for (int b = 0; b < 2; b++) {
      Stmt *br = b ? c->else_s : c->then_s;
      if (!br) continue;
      bool pushed = aff_push_cond(&p->aff, c->cond, b == 1);
      simp_list(p, &br->body, active);
      if (pushed) aff_pop_cond(&p->aff);
    }
    break;
  }
  default:
    break;
  }
}

static void simp_list(Simp *p, Stmt **list, bool active) {
  active = active || list == p->target;
  Stmt **l = list;
  while (*l) {
    Stmt *before = *l;
    simp_stmt(p, l, active);
    if (*l == before) l = &(*l)->next; /* replaced: look at the spliced-in statements again */
  }
}

void simplify_guards(Sched *s, Stmt **list) {
  Simp p = {.target = list, .a = s->a};
  aff_init(&p.aff, s->ctx, s->k);
  simp_list(&p, &s->k->body->body, false);
  aff_free(&p.aff);
}

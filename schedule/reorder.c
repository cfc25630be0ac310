/* reorder(l1, l2, ...): permutes loops of one perfectly nested chain. The
 * loops listed take, outermost first, the places the listed loops occupy;
 * loops not listed stay where they are. A loop whose bounds use a counter
 * that would run inside it (a triangular nest) gets bounds that isl
 * computes for the new order (schedule/reorder_bounds.c); refused when
 * those are not plain affine bounds, or a dependence reverses. */
#include <string.h>

#include "schedule/primitives.h"

/* The loop header fields that move; the bodies stay put. */
typedef struct {
  Var *var;
  Expr *lo, *hi;
  Op cmp;
  int64_t step;
  LoopKind kind;
  const char *mark_step; /* a mark moves with its loop */
  SrcLoc mark_loc;
  const char *name;
  bool labeled;
  SrcLoc loc;
  Annot *annots;
} Header;

static Header header_of(const Stmt *l) {
  return (Header){l->var, l->lo, l->hi, l->cmp, l->step, l->loop_kind, l->mark_step, l->mark_loc, l->name, l->labeled, l->loc, l->annots};
}

static void set_header(Stmt *l, Header h) {
  l->var = h.var;
  l->lo = h.lo;
  l->hi = h.hi;
  l->cmp = h.cmp;
  l->step = h.step;
  l->loop_kind = h.kind;
  l->mark_step = h.mark_step;
  l->mark_loc = h.mark_loc;
  l->name = h.name;
  l->labeled = h.labeled;
  l->loc = h.loc;
  l->annots = h.annots;
}

/* Names what keeps loop c, whose body starts with b, from being perfectly
 * nested. Returns false. */
static bool imperfect(Sched *s, const SchedArg *at, const Stmt *c, const Stmt *b) {
  if (!b) return sched_error(s, at, "loop %s has an empty body", c->name);
  const Stmt *other = b->kind == ST_FOR ? b->next : b;
  const char *what = other->kind == ST_IF ? "an if" : other->name ? other->name : "a declaration";
  if (b->kind == ST_FOR && other->kind == ST_FOR)
    return sched_error(s, at, "loop %s is not perfectly nested: its body holds loops %s and %s; use fission first",
                       c->name, b->name, other->name);
  if (b->kind == ST_FOR)
    return sched_error(s, at, "loop %s is not perfectly nested: besides loop %s its body holds %s (line %d); use fission or decompose_reduction first",
                       c->name, b->name, what, other->loc.line);
  return sched_error(s, at, "loop %s is not perfectly nested: its body holds %s (line %d) before the next loop; use fission or decompose_reduction first",
                     c->name, what, other->loc.line);
}

/* Guards reorder_loops sinks into the loop under them (see there): b is
 * the first of a chain of ifs, each the only statement of the one before
 * (a tile's two tail guards), around one loop: the loop, else NULL; the
 * innermost if in *last. */
static Stmt *under_sinkable_guard(const Kernel *k, const Stmt *b, Stmt **last) {
  for (; b && !b->next && b->kind == ST_IF && !b->else_s && ir_expr_counters_only(k, b->cond) && b->then_s->body;
       b = b->then_s->body) {
    const Stmt *in = b->then_s->body;
    if (!in->next && in->kind == ST_FOR) {
      if (last) *last = (Stmt *)b;
      return (Stmt *)in;
    }
  }
  return NULL;
}

bool reorder_check_chain(Sched *s, const Stmt *top, const Stmt *bottom, const SchedArg *at) {
  for (const Stmt *c = top; c != bottom;) {
    const Stmt *b = c->body->body, *sunk = under_sinkable_guard(s->k, b, NULL);
    if (sunk) b = sunk;
    if (!b || b->next || b->kind != ST_FOR) return imperfect(s, at, c, b);
    c = b;
  }
  return true;
}

/* After the headers moved: each guard the walk sank goes back up, out of
 * every chain loop whose counter it does not read (`for y if (g) B` is
 * `if (g) for y B`, as in the sinking), so it sits right under the
 * innermost loop it reads: a tile's row guard under the row loop, not
 * under the column loop a vectorize or tensorize matches. */
static bool lift_guards(const Kernel *k, Stmt **chain, int nc) {
  bool any = false;
  for (bool moved = true; moved;) {
    moved = false;
    for (int i = 1; i < nc; i++) {
      Stmt *L = chain[i], **slot = &chain[i - 1]->body->body;
      while (*slot && *slot != L && !(*slot)->next && (*slot)->kind == ST_IF) slot = &(*slot)->then_s->body;
      Stmt *g = L->body->body;
      if (*slot != L || L->next || !g || g->next || g->kind != ST_IF || g->else_s || !g->then_s->body ||
          !ir_expr_counters_only(k, g->cond) || ir_expr_uses(g->cond, L->var, NULL))
        continue;
      L->body->body = g->then_s->body;
      g->then_s->body = L;
      *slot = g;
      moved = any = true;
    }
  }
  return any;
}

/* The rewrite alone: the caller models the program before it (the guard
 * sinking below changes it too) and proves the result. */
bool reorder_loops(Sched *s, Stmt **loops, int n, const SchedArg *const *args) {
  /* The outermost listed loop encloses all the others. */
  Stmt *top = NULL;
  for (int i = 0; i < n; i++) {
    int inside = 0;
    for (int j = 0; j < n; j++)
      if (j != i && sched_encloses(loops[i], loops[j])) inside++;
    if (inside == n - 1) top = loops[i];
  }
  if (!top) return sched_error(s, args[0], "the loops must be nested in one another (one loop nest)");
  /* The chain from top down to the innermost listed loop must be perfect. */
  Stmt *chain[256];
  int nc = 0, seen = 0;
  bool sank = false;
  for (Stmt *c = top; c; ) {
    if (nc == 256) return sched_error(s, args[0], "loop nest too deep");
    chain[nc++] = c;
    for (int i = 0; i < n; i++)
      if (loops[i] == c) seen++;
    if (seen == n) break;
    Stmt *b = c->body->body;
    /* Guards around the next loop (a split's tail guard; a tile's two)
     * sink into it: `if (g) for y B` is `for y if (g) B` when B cannot change g (y,
     * declared inside, cannot occur in g). The isl model charges a
     * condition's reads to every instance under it, so it could not tell
     * the two apart: ir_expr_counters_only is what makes this sound
     * (no statement assigns a counter or a size). */
    Stmt *last, *inner = under_sinkable_guard(s->k, b, &last);
    if (inner) {
      last->then_s->body = inner->body->body;
      inner->body->body = b;
      b->next = NULL;
      c->body->body = inner;
      b = inner;
      sank = true;
    }
    if (!b || b->next || b->kind != ST_FOR) return imperfect(s, args[0], c, b);
    c = b;
  }
  /* New headers: the listed loops fill the listed places in list order. */
  Header h[256];
  int slot = 0;
  for (int i = 0; i < nc; i++) {
    bool listed = false;
    for (int j = 0; j < n; j++)
      if (loops[j] == chain[i]) listed = true;
    h[i] = listed ? header_of(loops[slot++]) : header_of(chain[i]);
  }
  /* Bounds that use the counter of a loop that would run inside them (a
   * triangle) are computed anew for the new order, by isl. */
  bool unit = true;
  for (int i = 0; i < nc; i++) unit = unit && loop_up(chain[i]) && chain[i]->step == 1;
  for (int i = 0; i < nc; i++)
    for (int j = i; j < nc; j++)
      if (ir_expr_uses(h[i].lo, h[j].var, NULL) || ir_expr_uses(h[i].hi, h[j].var, NULL)) {
        const SchedArg *at = args[0];
        for (int a = 0; a < n; a++)
          if (!strcmp(args[a]->name, h[i].name)) at = args[a];
        Var *order[256];
        Expr *lo[256], *hi[256];
        for (int k = 0; k < nc; k++) order[k] = h[k].var;
        const char *why = "its loops do not all count up by 1";
        if (!unit || !reorder_bounds(s, chain[nc - 1], order, nc, lo, hi, &why))
          return sched_error(s, at, "loop %s's bounds depend on %s, which would run inside it, and npugen cannot bound it in the new order: %s",
                             h[i].name, h[j].var->name, why);
        for (int k = 0; k < nc; k++) {
          h[k].lo = lo[k];
          h[k].hi = hi[k];
          h[k].cmp = OP_LT;
        }
        i = j = nc; /* all of them are new */
      }
  for (int i = 0; i < nc; i++) set_header(chain[i], h[i]);
  /* a guard the kernel wrote inside the innermost loop goes up as well (a
   * stencil's padding guard after its window loops moved out: the vector
   * loop under it is then the whole nest a VU instruction computes) */
  if (lift_guards(s->k, chain, nc)) sank = true;
  /* for the proof: where each header went, when no guard sank (a guard
   * changes the time vectors' shape, not only their order) */
  s->reorder.top = sank || n > 64 || nc > 64 ? NULL : top;
  s->reorder.n = 0;
  s->reorder.nchain = s->reorder.top ? nc : 0;
  for (int i = 0; i < s->reorder.nchain; i++) s->reorder.chain[i] = chain[i];
  for (int i = 0, slot = 0; i < nc && s->reorder.top; i++)
    for (int j = 0; j < n; j++)
      if (loops[j] == chain[i]) {
        s->reorder.from[s->reorder.n] = loops[slot++];
        s->reorder.to[s->reorder.n++] = chain[i];
      }
  return true;
}

/* True when inner is reached from outer through loops whose bodies are
 * each one loop: no guard between them that reorder_loops would sink. */
static bool perfect_down_to(const Stmt *outer, const Stmt *inner) {
  for (const Stmt *c = outer; c != inner; c = c->body->body) {
    const Stmt *b = c->body->body;
    if (!b || b->next || b->kind != ST_FOR) return false;
  }
  return true;
}

/* A reorder that changes nothing (each listed loop already holds the next
 * in a perfect chain) is a warning, not an error: it is a likely mistake
 * when trying schedules by hand, but a harmless one, and a generated
 * schedule may well contain it (docs/schedules.md). */
static bool already_in_order(Stmt *const *loops, int n) {
  for (int i = 0; i + 1 < n; i++)
    if (!sched_encloses(loops[i], loops[i + 1]) || !perfect_down_to(loops[i], loops[i + 1])) return false;
  return true;
}

/* "i, j and k", in the arena. */
static const char *listed(Sched *s, Stmt *const *loops, int n) {
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < n; i++) sb_printf(&sb, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " and ", loops[i]->name);
  const char *t = arena_strdup(s->a, sb.data);
  sb_free(&sb);
  return t;
}

bool prim_reorder(Sched *s, const SchedStep *st) {
  Stmt *loops[64];
  const SchedArg *args[64];
  for (int i = 0; i < st->nargs; i++) {
    loops[i] = sched_loop(s, &st->args[i]);
    if (!loops[i]) return false;
    args[i] = &st->args[i];
    for (int j = 0; j < i; j++)
      if (loops[j] == loops[i]) return sched_error(s, &st->args[i], "loop %s is listed twice", loops[i]->name);
  }
  if (already_in_order(loops, st->nargs)) {
    sched_warning(s, NULL, "loops %s are already in this order; the step changes nothing", listed(s, loops, st->nargs));
    return true;
  }
  return sched_begin_rewrite(s) && reorder_loops(s, loops, st->nargs, args) && sched_legal(s);
}

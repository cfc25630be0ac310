/* fission(loop, after, ...): loop distribution. The loop's body is cut after
 * the statement `after` (a statement or loop directly in the body); the rest
 * runs in a second loop with the same bounds, named <counter>_N. C kernels
 * keep init statements inside the loops: this is how they come out. */
#include "schedule/primitives.h"

typedef struct {
  const Var *v;
  const Buffer *b;
  bool used;
} Use;

static bool use_visit(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Use *u = ctx;
  u->used = u->used || ir_stmt_uses(s, u->v, u->b);
  return !u->used;
}

/* Cuts `loop` after its direct child `cut`: the rest goes to a new loop. */
static bool cut_loop(Sched *s, Stmt *loop, Stmt *cut, const SchedArg *at) {
  /* A local declared before the cut and used after it would leave its scope. */
  for (Stmt *c = loop->body->body; c != cut->next; c = c->next) {
    if (c->kind != ST_DECL) continue;
    Use u = {c->var, c->buf, false};
    ir_walk_stmts(cut->next, use_visit, &u);
    if (u.used)
      return sched_error(s, at, "local %s (line %d) is declared before the cut and used after it", c->var ? c->var->name : c->buf->name, c->loc.line);
  }
  Stmt *rest = cut->next;
  cut->next = NULL;
  Stmt *second = ir_stmt(s->a, ST_FOR, loop->loc);
  *second = *loop;
  second->annots = NULL;
  second->var = ir_new_var(s->a, s->k, loop->var->name, loop->var->type, VAR_LOOP, loop->loc);
  second->lo = ir_expr_copy(s->a, loop->lo);
  second->hi = ir_expr_copy(s->a, loop->hi);
  second->body = sched_block(s, rest, loop->loc);
  for (Stmt *x = rest; x; x = x->next) ir_subst_stmt(s->a, x, loop->var, ir_var(s->a, second->var, loop->loc));
  second->name = NULL;
  second->labeled = false;
  second->next = loop->next;
  loop->next = second;
  second->name = sched_fresh_name(s, loop->var->name); /* now that rest is linked again */
  return true;
}

typedef struct {
  const Stmt *then_block;
  Stmt *found;
} IfFind;

static bool find_if(Stmt *st, int depth, void *ctx) {
  (void)depth;
  IfFind *f = ctx;
  if (st->kind == ST_IF && st->then_s == f->then_block) f->found = st;
  return !f->found;
}

/* The guard (an if with no else over loop counters only) whose branch
 * directly holds stmt, or NULL. */
static Stmt *parent_guard(Sched *s, const Stmt *stmt) {
  Stmt *owner = NULL;
  if (!sched_link(s, stmt, &owner) || !owner) return NULL;
  IfFind f = {owner, NULL};
  ir_walk_stmts(s->k->body, find_if, &f);
  return f.found && !f.found->else_s && ir_expr_counters_only(s->k, f.found->cond) ? f.found : NULL;
}

/* Cuts guard g after its branch's statement `cut`: the rest goes under a
 * copy of the guard right after it. */
static void cut_guard(Sched *s, Stmt *g, Stmt *cut) {
  if (!cut->next) return;
  Stmt *g2 = ir_stmt(s->a, ST_IF, g->loc);
  g2->cond = ir_expr_copy(s->a, g->cond);
  g2->then_s = sched_block(s, cut->next, g->loc);
  cut->next = NULL;
  g2->next = g->next;
  g->next = g2;
}

/* Cuts `loop` after `after`: when `after` sits deeper (inside inner loops,
 * or a split's guard), each level from the innermost out to `loop` is cut
 * in turn, so the part up to `after` and the rest end up in two separate
 * nests (a guard is repeated in both). */
static bool cut_after(Sched *s, Stmt *loop, const SchedArg *at) {
  Stmt *after = sched_target(s, at);
  if (!after) return false;
  if (!sched_encloses(loop, after))
    return sched_error(s, at, "%s (line %d) is not inside loop %s%s", after->name, after->loc.line, loop->name,
                       at > &s->step->args[1] ? " (the cut points must come in the order of the body)" : "");
  Stmt *levels[256], *cuts[256];
  int n = 0;
  Stmt *cut = after;
  for (;;) {
    Stmt *p = sched_parent_loop(s, cut);
    Stmt *g = p ? NULL : parent_guard(s, cut);
    if ((!p && !g) || n == 256)
      return sched_error(s, at, "%s (line %d) must sit directly in loops, or in ifs over loop counters with no else, "
                         "up to loop %s", after->name, after->loc.line, loop->name);
    levels[n] = p ? p : g;
    cuts[n++] = cut;
    cut = levels[n - 1];
    if (p == loop) break;
  }
  bool any = false;
  for (int i = 0; i < n; i++)
    if (cuts[i]->next) any = true;
  if (!any) return sched_error(s, at, "nothing follows %s in loop %s: there is nothing to split off", after->name, loop->name);
  for (int i = 0; i < n; i++) {
    if (!cuts[i]->next) continue;
    if (levels[i]->kind == ST_IF) cut_guard(s, levels[i], cuts[i]);
    else if (!cut_loop(s, levels[i], cuts[i], at)) return false;
  }
  return true;
}

/* fission(loop, after[, after2, ...]): one cut per statement named, in the
 * order of the body; each later cut splits the loop the previous one made
 * (softmax's stages: fission(ri, max, shift, ex, acc) gives ri .. ri_4). */
bool prim_fission(Sched *s, const SchedStep *st) {
  Stmt *loop = sched_loop(s, &st->args[0]);
  if (!loop) return false;
  if (!sched_begin_rewrite(s)) return false;
  for (int k = 1; k < st->nargs; k++) {
    if (!cut_after(s, loop, &st->args[k])) return false;
    loop = loop->next; /* the second part, where the next cut falls */
  }
  s->step_runs_once = true; /* each statement in one part, under the same header */
  return sched_legal(s);
}

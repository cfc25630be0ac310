/* loop_partition(loop, p1, p2, ...): cuts a loop into consecutive loops
 * [lo, p1), [p1, p2), ..., [pk, hi) (the TY-NNP primitive), then drops the
 * guards that are always true or always false in each piece, so boundary
 * tiles become their own loops without guards. */
#include "schedule/primitives.h"

bool prim_loop_partition(Sched *s, const SchedStep *st) {
  Stmt *loop = sched_loop(s, &st->args[0]);
  if (!loop || !sched_loop_unmarked(s, st, &st->args[0], loop)) return false;
  Expr *lo, *end;
  if (!loop_unit_range(s, loop, &st->args[0], &lo, &end)) return false;
  int64_t lo_c, end_c;
  if (!ir_const_int(lo, &lo_c) || !ir_const_int(end, &end_c))
    return sched_error(s, &st->args[0], "loop %s needs constant bounds to be partitioned", loop->name);
  int np = st->nargs - 1;
  int64_t pts[64];
  for (int i = 0; i < np; i++) {
    if (!sched_int(s, &st->args[i + 1], &pts[i])) return false;
    int64_t prev = i ? pts[i - 1] : lo_c;
    if (pts[i] <= prev || pts[i] >= end_c)
      return sched_error(s, &st->args[i + 1], "point %lld must satisfy %lld < point < %lld (loop %s runs %lld .. < %lld) and follow the previous point",
                         (long long)pts[i], (long long)prev, (long long)end_c, loop->name, (long long)lo_c, (long long)end_c);
  }
  if (!sched_begin_rewrite(s)) return false;
  const Type *t = loop->var->type;
  Stmt **link = sched_link(s, loop, NULL);
  Stmt *after = loop->next;
  Stmt *head = NULL, **tail = &head;
  for (int i = 0; i <= np; i++) {
    Stmt *piece;
    if (i == np) {
      piece = loop;
    } else {
      CloneMap cm = {.k = s->k};
      piece = ir_clone_stmt(s->a, loop, &cm);
      clone_map_free(&cm);
    }
    piece->lo = ir_int(s->a, i ? pts[i - 1] : lo_c, t, loop->loc);
    piece->hi = ir_int(s->a, i < np ? pts[i] : end_c, t, loop->loc);
    piece->cmp = OP_LT;
    *tail = piece;
    tail = &piece->next;
  }
  *tail = after;
  *link = head;
  /* the first piece keeps the loop's name; the others get fresh ones */
  const char *name = loop->name;
  bool labeled = loop->labeled;
  for (Stmt *p = head; p != after; p = p->next) {
    p->name = NULL;
    p->labeled = false;
  }
  head->name = name;
  head->labeled = labeled;
  for (Stmt *p = head->next; p != after; p = p->next) sched_rename_copies(s, p);
  for (Stmt **p = link; *p != after; p = &(*p)->next) simplify_guards(s, &(*p)->body->body);
  return sched_legal(s);
}

/* tile(x, y, fx, fy, xo, yo, xi, yi): split x and y, then reorder to
 * xo, yo, xi, yi. Sugar for the three steps, checked the same way. */
#include <string.h>

#include "schedule/primitives.h"

bool prim_tile(Sched *s, const SchedStep *st) {
  Stmt *x = sched_loop(s, &st->args[0]);
  if (!x || !sched_loop_unmarked(s, st, &st->args[0], x)) return false;
  Stmt *y = sched_loop(s, &st->args[1]);
  if (!y || !sched_loop_unmarked(s, st, &st->args[1], y)) return false;
  if (x == y) return sched_error(s, &st->args[1], "tile needs two different loops");
  if (!sched_encloses(x, y)) return sched_error(s, &st->args[1], "loop %s must be inside loop %s", y->name, x->name);
  /* the user's loops, not the split's, name an imperfect nest */
  if (!reorder_check_chain(s, x, y, &st->args[0])) return false;
  int64_t fx, fy;
  if (!sched_positive(s, &st->args[2], "the tile factor", &fx) || !sched_positive(s, &st->args[3], "the tile factor", &fy))
    return false;
  const char *names[4];
  for (int i = 0; i < 4; i++) {
    if (!(names[i] = sched_new_name(s, &st->args[4 + i]))) return false;
    for (int j = 0; j < i; j++)
      if (!strcmp(names[i], names[j])) return sched_error(s, &st->args[4 + i], "the new loops need different names");
  }
  if (!sched_begin_rewrite(s)) return false;
  if (!split_loop(s, x, fx, names[0], names[2], &st->args[0])) return false;
  /* y's statement object is unchanged by splitting x */
  if (!split_loop(s, y, fy, names[1], names[3], &st->args[1])) return false;
  SchedArg a[4];
  Stmt *loops[4];
  const SchedArg *ap[4];
  for (int i = 0; i < 4; i++) {
    a[i] = (SchedArg){.kind = SA_NAME, .name = names[i], .text = names[i], .loc = st->args[4 + i].loc};
    if (!(loops[i] = sched_loop(s, &a[i]))) return false;
    ap[i] = &a[i];
  }
  return reorder_loops(s, loops, 4, ap) && sched_legal(s); /* one proof for the three steps */
}

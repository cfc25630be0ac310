/* parallel(loop): marks a loop whose iterations carry no dependence; the
 * emitted C gets `#pragma omp parallel for` under `#ifdef _OPENMP`. */
#include "schedule/primitives.h"

bool prim_parallel(Sched *s, const SchedStep *st) {
  Stmt *loop = sched_loop(s, &st->args[0]);
  if (!loop) return false;
  if (loop->loop_kind == LOOP_VU) return sched_error(s, &st->args[0], "loop %s is bound to the VU cores", loop->name);
  if (loop->loop_kind == LOOP_VECTORIZE) return sched_error(s, &st->args[0], "loop %s is already vectorized", loop->name);
  if (!sched_loop_is_parallel(s, loop)) return false;
  loop->loop_kind = LOOP_PARALLEL;
  loop->mark_step = st->text;
  loop->mark_loc = st->loc;
  return true;
}

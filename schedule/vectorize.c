/* vectorize(loop): marks a loop whose iterations carry no dependence; the
 * emitted C gets `#pragma omp simd` under `#ifdef _OPENMP`, a hint that
 * changes nothing for a compiler without OpenMP. */
#include "schedule/primitives.h"

bool prim_vectorize(Sched *s, const SchedStep *st) {
  Stmt *loop = sched_loop(s, &st->args[0]);
  if (!loop) return false;
  if (loop->loop_kind == LOOP_VU) return sched_error(s, &st->args[0], "loop %s is bound to the VU cores", loop->name);
  if (loop->loop_kind == LOOP_PARALLEL) return sched_error(s, &st->args[0], "loop %s is already parallel", loop->name);
  if (!sched_loop_is_parallel(s, loop)) return false;
  loop->loop_kind = LOOP_VECTORIZE;
  return true;
}

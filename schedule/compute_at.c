/* compute_at / reverse_compute_at: PLACEHOLDER, being written. */
#include "schedule/primitives.h"

bool prim_compute_at(Sched *s, const SchedStep *st) {
  (void)st;
  return sched_error(s, NULL, "not implemented yet");
}

bool prim_reverse_compute_at(Sched *s, const SchedStep *st) {
  (void)st;
  return sched_error(s, NULL, "not implemented yet");
}

/* vectorize(loop) / vectorize(loop, lanes): the nest under `loop` runs as
 * vectors; with lanes, loop is split first (split_lanes).
 *
 * On a nest over vector memory (it reads or writes a vu_vm buffer) that is
 * the VU's instruction for the nest when one computes it: the first of
 * npu_intrinsics/npu_vu_*.c, in name order, that the nest matches, exactly
 * as tensorize(loop, that intrinsic) would make it. The user names the
 * loop; the matcher picks the instruction. A guard on the loop's counter
 * that keeps a window of its iterations (a tail that is not a prefix)
 * runs the instruction over the window; an index mask (`i % 2 == 0`) is
 * an instruction with the mask inside (npu_vu_store_lane_f32 ...); a guard
 * that is neither (`i % 2 != 0`) leaves the hint, saying so
 * (schedule/vectorize_window.c).
 *
 * Otherwise it marks a loop whose iterations carry no dependence: the
 * emitted C gets `#pragma omp simd` under `#ifdef _OPENMP`, a hint that
 * changes nothing for a compiler without OpenMP. On a vu_vm nest that is a
 * hint not met: a warning at the step (an error under --strict) and a
 * comment on the emitted loop name the nearest VU instruction and how the
 * nest differs from it. */
#include "schedule/expand.h"
#include "schedule/isel.h"
#include "schedule/primitives.h"
#include "schedule/tensorize.h"
#include "schedule/vectorize_unsigned.h"

bool sched_vu_matches(Sched *s, const Stmt *loop, void *ctx) {
  char why[1024];
  const char **found = ctx;
  *found = tensorize_find(s->sems, s->a, loop, "npu_vu_", why, sizeof why);
  return *found != NULL;
}

static bool find_vm_access(Stmt *st, int depth, void *ctx) {
  (void)depth;
  bool *found = ctx;
  *found = *found || ir_stmt_in_scope(st, "vu_vm");
  return !*found;
}

static bool nest_in_vm(const Stmt *loop) {
  bool found = false;
  ir_walk_one(loop, find_vm_access, &found);
  return found;
}

/* vectorize(loop, lanes): split(loop, lanes, loop, loop_v), then
 * vectorize(loop_v). The outer loop keeps the loop's name (it runs over
 * the vectors), the inner gets `<name>_v`. A trip count lanes does not
 * divide leaves a guarded tail, which a VU instruction takes as its length
 * at run time. */
static Stmt *split_lanes(Sched *s, const SchedStep *st, Stmt *loop) {
  int64_t lanes;
  if (!sched_loop_unmarked(s, st, &st->args[0], loop) || !sched_positive(s, &st->args[1], "the vector length", &lanes))
    return NULL;
  int64_t n;
  if (ir_trip_count(loop, &n) && lanes > n)
    return sched_error(s, &st->args[1], "the vector length %lld is larger than loop %s's trip count %lld",
                       (long long)lanes, loop->name, (long long)n), NULL;
  const char *name = loop->name, *inner = sched_derived_name(s, loop->name, "_v");
  if (!sched_begin_rewrite(s) || !split_loop(s, loop, lanes, name, inner, &st->args[0]) || !sched_legal(s))
    return NULL;
  SchedArg at = st->args[0];
  at.name = inner;
  return sched_loop(s, &at);
}

bool prim_vectorize(Sched *s, const SchedStep *st) {
  Stmt *loop = sched_loop(s, &st->args[0]);
  if (loop && st->nargs == 2) loop = split_lanes(s, st, loop);
  if (!loop) return false;
  if (loop->loop_kind == LOOP_VU) return sched_error(s, &st->args[0], "loop %s is bound to the VU cores", loop->name);
  if (loop->loop_kind == LOOP_PARALLEL) return sched_error(s, &st->args[0], "loop %s is already parallel", loop->name);
  if (loop->intrin)
    return sched_error(s, &st->args[0], "loop %s is already tensorized (%s)", loop->name, loop->intrin);
  char why[1024] = "";
  if (loop->loop_kind != LOOP_DMA && nest_in_vm(loop)) { /* a copy nest computes nothing */
    const char *intrin = tensorize_find(s->sems, s->a, loop, "npu_vu_", why, sizeof why);
    const char *found = NULL;
    if (!intrin && sched_expand_to_match(s, loop, sched_vu_matches, &found)) intrin = found; /* its locals expanded */
    char why_unsigned[700] = "";
    if (!intrin) intrin = sched_vectorize_unsigned(s, loop, why_unsigned, sizeof why_unsigned); /* counted in int */
    if (intrin) {
      loop->intrin = intrin; /* the loops stay serial: the call computes them in order */
      return true;
    }
    if (sched_isel_sequence(s, loop, why, sizeof why)) return true; /* several instructions: schedule/isel_cover.c */
    sched_window_refusal(s->a, loop, why, sizeof why); /* a nearer reason than the nearest instruction's */
    if (why_unsigned[0]) /* nearer still: the counter's type */
      snprintf(why, sizeof why, "loop %s counts in unsigned and a VU instruction in int; counted in int it is not: %s",
               loop->name, why_unsigned);
  }
  if (!sched_loop_is_parallel(s, loop)) {
    if (why[0]) {
      sched_note(s, 0, "no VU instruction computes the nest under %s either: %s", loop->name, why);
      vectorize_hint(s, loop);
    }
    return false;
  }
  loop->loop_kind = LOOP_VECTORIZE;
  loop->mark_step = st->text;
  loop->mark_loc = st->loc;
  if (why[0]) {
    loop->vec_note = arena_strdup(s->a, why);
    /* a hint not met says so where it was written, in emit and check alike */
    sched_weakening(s, &st->args[0], "%s stays a hint: no VU instruction computes the nest under %s (%s)", st->text,
                    loop->name, why);
  }
  return true;
}

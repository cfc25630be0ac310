/* The documented limits (docs/limits.md) and what a user gets past them:
 * loop counters that would overflow, local arrays, the check's step and
 * memory budgets, the simulator's step budget and trace cap, and a stack
 * overflow in JIT-run code. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit/guard.h"
#include "npu_intrinsics.h"
#include "npugen.h"
#include "sim/npusim.h"
#include "tests/test_sched_util.h"

/* The first error of a kernel that must be refused. */
static void refused_with(const char *src, const char *want) {
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert(s);
  cr_expect_gt(npg_error_count(s), 0, "accepted:\n%s", src);
  const char *errs = npg_errors(s);
  cr_expect(strstr(errs, want), "want '%s' in:\n%s", want, errs);
  npg_close(s);
}

static void accepted(const char *src) {
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert(s);
  cr_expect_eq(npg_error_count(s), 0, "%s\n%s", src, npg_errors(s));
  npg_close(s);
}

Test(limits, loop_counters_must_not_overflow) {
  refused_with("void k(float A[4]) {\n  for (int i = 0; i < 3000000000; i++) A[0] += 1.0f;\n}\n",
               "k.c:2:3: error: loop counter 'i' (int) would reach, after its last iteration, 3000000000, "
               "outside its type's range [-2147483648, 2147483647]");
  refused_with("void k(float A[4]) {\n  for (int i = 0; i <= 2147483647; i++) A[0] += 1.0f;\n}\n",
               "would reach, after its last iteration, 2147483648");
  refused_with("void k(float A[4]) {\n  for (int i = 0; i < 2147483647; i += 2) A[0] += 1.0f;\n}\n",
               "would reach, after its last iteration, 2147483648");
  refused_with("void k(float A[4]) {\n  for (int i = 9; i >= -2147483647 - 1; i--) A[0] += 1.0f;\n}\n",
               "would reach, after its last iteration, -2147483649");
  refused_with("void k(float A[4]) {\n  for (signed char i = 0; i < 200; i++) A[0] += 1.0f;\n}\n",
               "loop counter 'i' (signed char) would reach, after its last iteration, 200");
  /* an inner bound that depends on the outer counter: its widest run */
  refused_with("void k(float A[4]) {\n  for (int i = 0; i < 100; i++)\n"
               "    for (signed char j = i; j < i + 100; j++) A[0] += 1.0f;\n}\n",
               "k.c:3:5: error: loop counter 'j' (signed char) would reach, after its last iteration, 199");
  /* right at the edge, and a step that lands exactly on it */
  accepted("void k(float A[4]) {\n  for (int i = 0; i < 2147483647; i++) A[0] += 1.0f;\n}\n");
  accepted("void k(float A[4]) {\n  for (int i = 1; i < 2147483647; i += 2) A[0] += 1.0f;\n}\n");
  accepted("void k(float A[4]) {\n  for (int i = 9; i > -2147483647 - 1; i--) A[0] += 1.0f;\n}\n");
  accepted("void k(float A[256]) {\n  for (unsigned char i = 0; i < 255; i++) A[i] += 1.0f;\n}\n");
}

Test(limits, local_arrays_are_limited) {
  /* 1 MiB in all is allowed, one more element is not */
  accepted("void k(float A[4]) {\n  float t[131072];\n  float u[131072];\n"
           "  t[0] = A[0]; u[0] = t[0]; A[1] = u[0];\n}\n");
  refused_with("void k(float A[4]) {\n  float t[131072];\n  float u[131073];\n"
               "  t[0] = A[0]; u[0] = t[0]; A[1] = u[0];\n}\n",
               "k.c:3:9: error: local array 'u' brings the kernel's local arrays to 1048580 bytes; the "
               "limit is 1048576");
}

/* 10 + 10*10 loop iterations and 10*10 statement instances: 210 steps. */
static const char counted[] =
    "void k(const float A[10][10], float B[10][10]) {\n"
    "  for (int i = 0; i < 10; i++)\n"
    "    for (int j = 0; j < 10; j++) B[i][j] += A[j][i];\n"
    "}\n";

static bool check_with(const char *src, uint64_t steps, uint64_t bytes, NpgCheckResult *r) {
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert(s && npg_error_count(s) == 0);
  npg_set_check_limits(s, steps, bytes);
  bool ok = npg_check(s, 0, 1, r);
  npg_close(s);
  return ok;
}

Test(limits, the_check_counts_steps_before_it_runs) {
  NpgCheckResult r;
  cr_expect(check_with(counted, 210, 0, &r), "%s", r.message);
  cr_expect_not(check_with(counted, 209, 0, &r));
  cr_expect(strstr(r.message, "not run: a run takes up to 210 steps (loop iterations plus statement "
                              "instances), past the step budget of 209"), "%s", r.message);
  /* 4 * 10^18 iterations: stopped before the JIT runs them (by default) */
  const char *huge = "void k(float A[4]) {\n  float s = 0;\n"
                     "  for (int i = 0; i < 2000000000; i++)\n"
                     "    for (int j = 0; j < 2000000000; j++) s += 1.0f;\n  A[0] = s;\n}\n";
  cr_expect_not(check_with(huge, 0, 0, &r));
  cr_expect(strstr(r.message, "past the step budget of 4294967296"), "%s", r.message);
}

/* An NPU variant's host code reaches every array element through the
 * simulator (npu_cu_access), some 32 times a plain access's cost: each
 * such access counts 32 steps, or a 1000^3 host matmul over a cache in NU
 * memory ran for minutes within a budget made for plain loops. */
Test(limits, host_accesses_of_an_npu_variant_count_as_the_simulator_costs_them) {
  const char *src = "void k(const float X[8][4], float Y[8][4]) {\n"
                    "  for (int i = 0; i < 8; i++)\n"
                    "    for (int j = 0; j < 4; j++)\n"
                    "      s: Y[i][j] = X[i][j] * 2;\n"
                    "}\n"
                    "#pragma npu schedule(k, v)\n#pragma npu cache_write(Y, dm, i, Y_dm)\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert(s && npg_error_count(s) == 0, "%s", npg_errors(s));
  NpgCheckResult r;
  npg_set_check_limits(s, 1000, 0); /* the kernel as written: 8 + 32 + 32 steps */
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  cr_expect_not(npg_check(s, 1, 1, &r)); /* v: 32 instances of 1 + 2 * 32 steps, and more */
  cr_expect(strstr(r.message, "statement instances, each array access of host code, which the simulator sees, as 32), "
                              "past the step budget of 1000"), "%s", r.message);
  npg_set_check_limits(s, 100000, 0);
  cr_expect(npg_check(s, 1, 1, &r), "%s", r.message);
  npg_close(s);
}

/* A loop from i to i + 1 runs once per i (10 + 10 + 10 steps), though its
 * counter takes ten values over the run: the count is per run of the loop
 * (it was 10 + 10*10 + 10*10, and a reverse_compute_at of a 1024^3 matmul
 * was "not run"). */
Test(limits, a_loop_that_starts_at_an_outer_counter_counts_its_own_trips) {
  const char *shifted = "void k(const float A[10], float B[11]) {\n"
                        "  for (int i = 0; i < 10; i++)\n"
                        "    for (int j = i; j < i + 1; j++) B[j] += A[i];\n"
                        "}\n";
  NpgCheckResult r;
  cr_expect(check_with(shifted, 30, 0, &r), "%s", r.message);
  cr_expect_not(check_with(shifted, 29, 0, &r));
  cr_expect(strstr(r.message, "a run takes up to 30 steps"), "%s", r.message);
}

Test(limits, the_check_bounds_its_memory) {
  /* two copies (reference, variant) of 2^20 doubles: 16 MiB */
  const char *src = "void k(double A[1048576]) {\n  A[0] += 1.0;\n}\n";
  NpgCheckResult r;
  cr_expect(check_with(src, 0, 16 << 20, &r), "%s", r.message);
  cr_expect_not(check_with(src, 0, (16 << 20) - 1, &r));
  cr_expect(strstr(r.message, "not run: the check needs 16 MiB for its copies of the arrays, past the "
                              "limit of 15 MiB"), "%s", r.message);
}

Test(limits, the_simulator_stops_at_its_step_budget) {
  NpuTarget t;
  npusim_target_default(&t);
  NpuSim *sim = npusim_new(&t);
  cr_assert(sim);
  npusim_set_step_budget(sim, 3);
  npusim_bind(sim);
  for (int i = 0; i < 3; i++) npu_barrier_at("k.c", 10 + i);
  cr_expect_not(npusim_failed(sim));
  npu_barrier_at("k.c", 20);
  cr_expect(npusim_failed(sim));
  cr_expect_str_eq(npusim_error(sim), "k.c:20: npusim: the run exceeded its step budget of 3 intrinsic "
                                      "calls (npusim_set_step_budget)");
  npusim_unbind();
  npusim_free(sim);
}

Test(limits, the_trace_keeps_a_bounded_number_of_events) {
  NpuTarget t;
  npusim_target_default(&t);
  NpuSim *sim = npusim_new(&t);
  cr_assert(sim);
  npusim_set_trace(sim, true);
  npusim_bind(sim);
  int32_t *vm = npu_scope_base_at("k.c", 1, NPU_VU_VM, 0);
  cr_assert(vm);
  /* at least one event each (and CU stalls when the queue is full) */
  for (int i = 0; i < NPUSIM_MAX_TRACE_EVENTS + 5; i++) npu_vu_relu_i32_at("k.c", 2, vm, vm, 16);
  cr_expect_not(npusim_failed(sim), "%s", npusim_error(sim));
  npusim_unbind();
  char path[] = "/tmp/npg-trace-XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  char err[256];
  cr_assert_eq(npusim_write_trace(sim, path, err, sizeof err), 0, "%s", err);
  npusim_free(sim);
  FILE *f = fopen(path, "r");
  cr_assert(f);
  long events = 0;
  bool cut = false;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    events += strstr(line, "\"ph\":\"X\"") != NULL;
    cut |= strstr(line, "later events dropped (the limit is 1048576)") != NULL;
  }
  fclose(f);
  remove(path);
  cr_expect_eq(events, NPUSIM_MAX_TRACE_EVENTS);
  cr_expect(cut);
}

/* 2^20 frames of 4 KiB run off any thread's stack; not a tail call. Host code
 * under guarded_call, as JIT code runs: the guard is what is tested. */
static int recurse(volatile char *up, int depth) {
  volatile char frame[4096];
  frame[0] = up ? up[0] : 1;
  return depth ? recurse(frame, depth - 1) + frame[1] : 0;
}

static void overflow_stack(void **args) {
  (void)args;
  recurse(NULL, 1 << 20);
}

Test(limits, a_stack_overflow_under_the_guard_is_an_error) {
  char err[256];
  cr_expect_not(guarded_call(overflow_stack, NULL, err, sizeof err));
  cr_expect(strstr(err, "SIGSEGV"), "%s", err);
}

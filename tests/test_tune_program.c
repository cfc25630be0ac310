/* npugen tune --kernel PROGRAM (docs/tune.md, "Programs"): a small
 * program of three calls to two kernels, tuned with a few trials. Each
 * kernel it calls is tuned once, the program's variant runs every call on
 * its callee's tuned variant, its two intermediates go on chip (dm) where
 * that takes fewer cycles, and npugen check reads the one schedule file
 * tune writes. Before, tune timed the program on the host and wrote
 * an empty schedule. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_cli_util.h"

static const char *program = "tests/kernels/tune_program/three_calls.c";

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
  return n;
}

Test(tune_program, each_callee_tuned_once_and_every_call_uses_it) {
  char cmd[1024], out[32768];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --kernel net --trials 2 -o $d/p.sched 2>/dev/null && cat $d/p.sched && "
           "%s check %s --schedule $d/p.sched 2>&1; rc=$?; rm -rf $d; exit $rc",
           npugen(), program, npugen(), program);
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  /* scale is called twice and tuned once; relu once */
  cr_expect_eq(count(out, "#pragma npu schedule(scale, three_calls_scale_tuned)"), 1, "%s", out);
  cr_expect_eq(count(out, "#pragma npu schedule(relu, three_calls_relu_tuned)"), 1, "%s", out);
  /* T and U, in DDR as written, go on chip where the whole program's cycles drop */
  cr_expect(strstr(out, "#pragma npu schedule(net, three_calls_net_tuned)\n"
                        "#pragma npu set_scope(T, dm)\n"
                        "#pragma npu set_scope(U, dm)\n"
                        "#pragma npu use(s1, three_calls_scale_tuned)\n"
                        "#pragma npu use(relu, three_calls_relu_tuned)\n"
                        "#pragma npu use(s2, three_calls_scale_tuned)\n"),
            "%s", out);
  /* tune's figures: the whole program's cycles against its own bound */
  cr_expect(strstr(out, "net: ") && strstr(out, " cycles; its own bound: "), "%s", out);
  cr_expect(strstr(out, "2 intermediates on chip (set_scope), costed by the whole program's cycles: "), "%s", out);
  /* npugen check reads the file: the program's variant runs on the NPU, bit-exact */
  const char *v = strstr(out, "\nthree_calls_net_tuned ");
  v = v ? v + strspn(v + 22, " ") + 22 : NULL;
  cr_expect(v && !strncmp(v, "PASS  max error 0 (bit-exact)", 29) && strstr(v, "sim: "), "%s", out);
  cr_expect(strstr(out, "6 passed, 0 failed"), "%s", out);
}

/* --plan, --merge and --trial tune one kernel's space: a program is
 * refused with a usage error, not planned as a host kernel. */
Test(tune_program_cli, plan_is_refused_for_a_program) {
  char cmd[1024], out[8192];
  snprintf(cmd, sizeof cmd, "d=$(mktemp -d) && %s tune %s --kernel net --plan $d/p 2>&1; rc=$?; rm -rf $d; exit $rc",
           npugen(), program);
  cr_expect_eq(run(cmd, out, sizeof out), 2, "%s", out);
  cr_expect(strstr(out, "net calls kernels: tune it whole without them"), "%s", out);
}

/* A callee no NPU sketch takes (column_sum: a running sum down the
 * columns, which no VU instruction computes; until vu:halo it was a 3-tap
 * sum with a padded window's guards), in a program whose other call
 * runs on the NPU: it runs as written, on the CU, in the simulated
 * program, so it is not tuned for this CPU (a time measured here is not
 * its cycles there, and a timed pick made the schedule vary from run to
 * run); tune says why no sketch takes it. Before, it was host-tuned and
 * its note said only "no candidate beat it as written". */
Test(tune_program, a_callee_no_npu_sketch_takes_runs_as_written_on_the_cu) {
  char cmd[1024], out[32768];
  const char *file = "tests/kernels/tune_program/cu_callee.c";
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --kernel net --trials 2 -o $d/p.sched 2>&1 && cat $d/p.sched; "
           "rc=$?; rm -rf $d; exit $rc",
           npugen(), file);
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "npugen tune: no NPU sketch takes column_sum, so the program runs it as written, on the CU"),
            "%s", out);
  cr_expect(strstr(out, "vu:rows: no stage vectorizes onto the VU"), "%s", out); /* vu:rows's reason */
  cr_expect(strstr(out, "column_sum as written: no NPU sketch takes it, so it runs as written, on the CU"), "%s", out);
  cr_expect(!strstr(out, "median us") && !strstr(out, "tune column_sum:"), "no host trial: %s", out);
  cr_expect(!strstr(out, "schedule(column_sum,"), "%s", out);
  cr_expect(strstr(out, "#pragma npu use(scale, cu_callee_scale_tuned)\n"), "%s", out);
  /* tune's own check of the program's variant, in the simulator */
  cr_expect(strstr(out, "\ncu_callee_net_tuned: PASS npugen check (bit-exact); sim: "), "%s", out);
}

/* examples/mobilenet_block.c, the MobileNetV2 block of issue 43, with the
 * schedule `npugen tune --kernel block` wrote for it
 * (examples/mobilenet_block.sched, docs/programs.md): the program's
 * variant checked against the block as written, bit-exact, in the
 * simulator. Only that variant: it runs each callee's tuned variant, so
 * their code is checked with it (the committed schedule, not a tune run,
 * keeps the test cheap). */
Test(tune_program, the_mobilenet_block_as_tuned_is_bit_exact_with_its_intermediates_on_chip) {
  NpgSession *s = npg_open_file("examples/mobilenet_block.c");
  cr_assert(npg_error_count(s) == 0, "%s", npg_errors(s));
  cr_assert(npg_add_schedule_file(s, "examples/mobilenet_block.sched") && npg_error_count(s) == 0, "%s",
            npg_errors(s));
  int v = npg_variant_index(s, "mobilenet_block_block_tuned");
  cr_assert_geq(v, 0);
  NpgCheckResult r;
  cr_assert(npg_check(s, v, 1, &r) && r.pass, "%s", r.message);
  cr_expect_eq(r.max_error, 0.0);
  cr_expect_gt(r.sim_cycles, 0, "%s", r.summary);
  /* e, d and j stay on chip: the DDR traffic is the block's inputs (the
   * depthwise's filter, bias and multipliers once into each VU core), x
   * a second time for the residual add, and y, 23,552 bytes as tuned */
  cr_expect_leq(r.ddr_bytes, 23552, "%s", r.summary);
  cr_expect_lt(r.ddr_bytes, r.dma_bytes, "%s", r.summary);
  /* every call on the NPU: the CU runs no loop of the block itself
   * (before vu:halo the depthwise ran on it, the residual add's
   * requantisation too) */
  cr_expect(!strstr(r.summary, "host code touched"), "%s", r.summary);
  const char *c = npg_emit_source(s, v);
  cr_assert(c);
  cr_expect(strstr(c, "transform_layout(input_dm, (h0, h1), (h0 + 17, h1), 0)"), "the depthwise's halo stage:\n%s", c);
  cr_expect(strstr(c, "npu_vu_requant_q31_pc_range_i8("), "%s", c);
  cr_expect(strstr(c, "npu_vu_requant_q31_i8("), "the residual add's requantisation:\n%s", c);
  /* the depthwise's taps go to the four VU cores in turn (lower/interleave.c):
   * one core's whole stream first left the others idle behind its full queue */
  const char *dw = strstr(c, "static void mobilenet_block_depthwise_tuned_depthwise(");
  const char *kx = "for (int kx = 0; kx < 3; kx++) {\n", *taps = dw ? strstr(dw, kx) : NULL;
  if (taps) taps += strspn(taps + strlen(kx), " ") + strlen(kx);
  cr_expect(taps && !strncmp(taps, "for (int core = 0; core < 4; core++) {", 38),
            "the depthwise's taps are not issued to the cores in turn:\n%s", c);
  npg_close(s);
}

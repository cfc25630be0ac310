/* npugen tune as a user runs it: a small kernel tuned with a fixed seed
 * and a small budget; the schedule it writes passes npugen check, beats
 * the untiled variant (one tile of the whole arrays) and is the same at
 * every run; --plan, --trial and --merge give a schedule too. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "jit/session_ir.h"
#include "npugen.h"
#include "tests/test_cli_util.h"
#include "tune/tune.h"

static const char *kernel = "tests/kernels/tune_matmul_small.c";

/* The simulated cycles npugen check prints for variant v. */
static unsigned long cycles_of(const char *out, const char *v) {
  char key[64];
  snprintf(key, sizeof key, "%s ", v);
  const char *p = strstr(out, key);
  p = p ? strstr(p, "sim: ") : NULL;
  return p ? strtoul(p + 5, NULL, 10) : 0;
}

Test(tune, small_matmul_passes_the_check_and_beats_the_untiled_variant) {
  char cmd[1024], out[16384];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --seed 7 --trials 24 --jobs 2 -o $d/t.sched 2>&1 && "
           "printf '#pragma npu schedule(mm, mm_untiled)\\n#pragma npu tile(i, j, 96, 80, io, jo, ii, ji)\\n"
           "#pragma npu cache_read(A, nu_ib, io, A_ib)\\n#pragma npu cache_read(B, nu_wb, jo, B_wb)\\n"
           "#pragma npu cache_write(C, nu_ob, jo, C_ob)\\n#pragma npu tensorize(ii, npu_nu_matmul_i8)\\n' >> $d/t.sched && "
           "%s check %s --schedule $d/t.sched 2>&1; rc=$?; rm -rf $d; exit $rc",
           npugen(), kernel, npugen(), kernel);
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "tune mm: gen ") && strstr(out, "rank       cycles"), "the progress line and the table: %s", out);
  cr_expect(strstr(out, "3 passed, 0 failed"), "%s", out);
  unsigned long tuned = cycles_of(out, "mm_tuned"), untiled = cycles_of(out, "mm_untiled");
  cr_expect(tuned > 0 && untiled > 0 && tuned < untiled, "tuned %lu against untiled %lu cycles: %s", tuned, untiled,
            out);
  /* no double_buffer of a cache whose loop runs once (io: 96 rows in one
   * tile), which changes nothing and warns (before: double_buffer(A_ib)) */
  cr_expect(!strstr(out, "warning: double_buffer"), "%s", out);
}

/* 20 trials: generation 0 (16, no random choice) and four bred with the
 * seed's generator; --jobs 2 runs the same batches as --jobs 1. */
Test(tune, the_same_seed_gives_the_same_schedule) {
  char cmd[1024], out[16384];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --seed 3 --trials 20 -o $d/a.sched >/dev/null 2>&1 && "
           "%s tune %s --seed 3 --trials 20 --jobs 2 -o $d/b.sched >/dev/null 2>&1 && cmp $d/a.sched $d/b.sched 2>&1; "
           "rc=$?; rm -rf $d; exit $rc",
           npugen(), kernel, npugen(), kernel);
  cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
}

Test(tune, plan_trials_and_merge) {
  char cmd[2048], out[16384];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --plan $d/p --trials 2 --trial-timeout 60 2>/dev/null && "
           "test $(wc -l < $d/p/trials.txt) = 2 && test $(grep -c -- ' --trial-timeout 60 --trial ' $d/p/trials.txt) = 2 && "
           "sh $d/p/trials.txt && %s tune %s --plan $d/p --trials 1 2>/dev/null && sh $d/p/trials.txt && "
           "%s tune %s --merge $d/p -o $d/m.sched 2>&1 && %s check %s --schedule $d/m.sched 2>&1; "
           "rc=$?; rm -rf $d; exit $rc",
           npugen(), kernel, npugen(), kernel, npugen(), kernel, npugen(), kernel);
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "3 results in") && strstr(out, "mm_tuned") && strstr(out, "2 passed, 0 failed"), "%s", out);
}

/* A results file that does not hold its trial's line, and a file in
 * trials/ that is not a trial of the plan, are named on stderr (before,
 * both were silently counted as not run or left out). */
Test(tune, merge_names_a_broken_result_and_a_foreign_trial) {
  char cmd[2048], out[16384];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --plan $d/p --trials 2 >/dev/null 2>&1 && sh $d/p/trials.txt >/dev/null 2>&1 && "
           "f=$(ls $d/p/results/*.tsv | head -1) && echo garbage > $f && echo x > $d/p/trials/zz.sched && "
           "%s tune %s --merge $d/p -o $d/m.sched 2>&1; rc=$?; rm -rf $d; exit $rc",
           npugen(), kernel, npugen(), kernel);
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, ".tsv is not this trial's result line: the trial counts as not run") &&
                strstr(out, "zz.sched is not a trial of this plan") && strstr(out, "1 results in") &&
                strstr(out, "(1 trials without one)"),
            "%s", out);
}

/* --host: the host sketch, each candidate compiled with the system C
 * compiler and timed; the winner passes npugen check and the kernel as
 * written is timed as a candidate (no timed assertion: which is faster
 * is for bench/tune.sh, the structure is what can be asserted). */
Test(tune, host_sketch_is_timed_and_its_winner_passes_the_check) {
  char cmd[1024], out[16384];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --host --seed 1 --trials 4 --jobs 2 -o $d/h.sched 2>&1 && cat $d/h.sched && "
           "%s check %s --schedule $d/h.sched 2>&1; rc=$?; rm -rf $d; exit $rc",
           npugen(), kernel, npugen(), kernel);
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "1 sketch: host:cc") && strstr(out, "--jobs 2 ignored") && strstr(out, "median us") &&
                strstr(out, "generated 4, legal 4, timed 4"),
            "the sketch, the table, four candidates timed: %s", out);
  /* the best timed again when their race is close, which is the timer's to say */
  cr_expect(strstr(out, "mm as written: ") && strstr(out, "  as-written\n") &&
                (strstr(out, " timed 2 times more each") || strstr(out, "by more than the timer's noise")),
            "the kernel as written timed as a candidate, a close race timed again: %s", out);
  /* which wins is the timer's: host:cc's steps, or the kernel as written (no step), said so */
  cr_expect((strstr(out, "#pragma npu decompose_reduction(init, i)\n#pragma npu tile(i, j, ") &&
             strstr(out, "#pragma npu split(k, ")) ||
                strstr(out, " * the kernel as written: no candidate beat it, so the schedule has no step\n"),
            "%s", out);
  cr_expect(strstr(out, "cc -O3 -march=native -fopenmp-simd"), "%s", out);
  cr_expect(!strstr(out, "cache_read") && !strstr(out, "tensorize"), "host steps only: %s", out);
  cr_expect(strstr(out, "mm_tuned: PASS npugen check") && strstr(out, "2 passed, 0 failed"), "%s", out);
}

/* A long reduction: the space has the K-split sketch, and its seed (K in
 * tiles of 1024, each one NU call into the output buffer, the first with
 * accumulate = 0: the init in its pass, init_at) passes npugen check. */
Test(tune, long_k_gets_a_k_split_sketch_that_passes_the_check) {
  char cmd[1024], out[16384];
  const char *longk = "tests/kernels/tune_matmul_longk.c";
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --plan $d/p --trials 4 2>&1 && f=$(grep -l 'split(k, ' $d/p/trials/*.sched) && "
           "cat $f && %s check %s --schedule $f 2>&1; rc=$?; rm -rf $d; exit $rc",
           npugen(), longk, npugen(), longk);
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, " nu:npu_nu_matmul_i8+ksplit "), "%s", out);
  cr_expect(strstr(out, "#pragma npu split(k, 1024, ko, ki)\n#pragma npu init_at(init, ko)\n"
                        "#pragma npu reorder(ko, ii, ji)\n") &&
                strstr(out, "#pragma npu cache_read(A, nu_ib, ko, A_ib)"),
            "%s", out);
  cr_expect(strstr(out, "2 passed, 0 failed") && strstr(out, "sim: "), "%s", out);
}

Test(tune, usage_and_input_errors) {
  char cmd[1024], out[8192];
  snprintf(cmd, sizeof cmd, "%s tune %s 2>&1", npugen(), kernel);
  cr_expect_eq(run(cmd, out, sizeof out), 2, "no -o: %s", out);
  snprintf(cmd, sizeof cmd, "%s tune %s --jobs 0 -o /dev/null 2>&1", npugen(), kernel);
  cr_expect_eq(run(cmd, out, sizeof out), 2, "%s", out);
  snprintf(cmd, sizeof cmd, "%s tune %s --kernel nope -o /dev/null 2>&1", npugen(), kernel);
  cr_expect_eq(run(cmd, out, sizeof out), 1, "%s", out);
  cr_expect(strstr(out, "no kernel 'nope'"), "%s", out);
}

/* Writes text to a new file in a new temporary folder; its path in path. */
static void write_kernel(const char *name, const char *text, char *path, size_t n) {
  char dir[] = "/tmp/npugen-tune-test-XXXXXX";
  cr_assert(mkdtemp(dir), "mkdtemp");
  snprintf(path, n, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  cr_assert(f, "%s", path);
  fputs(text, f);
  fclose(f);
}

/* Tunes path (its only kernel) with a small budget and checks the winner;
 * the folder path is in is removed after. The exit status; the output
 * (the table, OUT.sched, npugen check's) in out. */
static int tune_and_check(const char *path, char *out, size_t n) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "p=%s; d=$(dirname $p) && %s tune $p --seed 1 --trials 16 --jobs 2 -o $d/t.sched 2>&1 && cat $d/t.sched && "
           "%s check $p --schedule $d/t.sched 2>&1; rc=$?; rm -rf $d; exit $rc",
           path, npugen(), npugen());
  return run(cmd, out, n);
}

/* A GEMV (one spatial loop) is the NU's matmul with N = 1: its rows in
 * bands in the input buffer, the vector staged once at the root, each
 * band one NU call. Both forms: y = A x (A in the input buffer) and
 * y = x A (x is then the matmul's A, the matrix in the weight buffer). */
Test(tune, a_gemv_gets_the_nu_sketch_and_passes_the_check) {
  char path[256], out[16384];
  write_kernel("mv.c",
               "#include <stdint.h>\n"
               "void mv(const int8_t A[200][384], const int8_t x[384], int32_t y[200]) {\n"
               "  for (int i = 0; i < 200; i++) {\n"
               "    y[i] = 0;\n"
               "    for (int k = 0; k < 384; k++)\n"
               "      y[i] += (int32_t)A[i][k] * (int32_t)x[k];\n"
               "  }\n"
               "}\n",
               path, sizeof path);
  cr_assert_eq(tune_and_check(path, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "1 sketch: nu:npu_nu_matmul_i8\n"), "%s", out);
  cr_expect(strstr(out, "#pragma npu split(i, ") && strstr(out, "#pragma npu cache_read(x, nu_wb, root, x_wb)") &&
                strstr(out, "#pragma npu tensorize(ii, npu_nu_matmul_i8)"),
            "the seed's x at the root wins at this size: %s", out);
  cr_expect(strstr(out, "mv_tuned: PASS npugen check") && strstr(out, "2 passed, 0 failed") && strstr(out, "sim: "),
            "%s", out);
  write_kernel("vm.c",
               "void vm(const float x[256], const float A[256][320], float y[320]) {\n"
               "  for (int j = 0; j < 320; j++) {\n"
               "    y[j] = 0.0f;\n"
               "    for (int k = 0; k < 256; k++)\n"
               "      y[j] += x[k] * A[k][j];\n"
               "  }\n"
               "}\n",
               path, sizeof path);
  cr_assert_eq(tune_and_check(path, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "#pragma npu cache_read(A, nu_wb, jo, A_wb)") &&
                strstr(out, "#pragma npu tensorize(ji, npu_nu_matmul_f32)"),
            "%s", out);
  cr_expect(strstr(out, "vm_tuned: PASS npugen check") && strstr(out, "2 passed, 0 failed"), "%s", out);
  /* fewer rows than the smallest band tried elsewhere (8): one band of all */
  write_kernel("mv4.c",
               "#include <stdint.h>\n"
               "void mv4(const int8_t A[4][64], const int8_t x[64], int32_t y[4]) {\n"
               "  for (int i = 0; i < 4; i++) {\n"
               "    y[i] = 0;\n"
               "    for (int k = 0; k < 64; k++)\n"
               "      y[i] += (int32_t)A[i][k] * (int32_t)x[k];\n"
               "  }\n"
               "}\n",
               path, sizeof path);
  cr_assert_eq(tune_and_check(path, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "#pragma npu split(i, 4, io, ii)") && strstr(out, "mv4_tuned: PASS npugen check") &&
                strstr(out, "2 passed, 0 failed"),
            "%s", out);
}

/* A max pool: the VU's window op computes the whole nest under the row
 * loop, its init (the window's first element) included, so the sketch
 * that keeps the nest whole vectorizes it; the ones that split the init
 * off find no instruction. */
Test(tune, a_max_pool_vectorizes_its_whole_window_nest_and_passes_the_check) {
  char path[256], out[16384];
  write_kernel("mp.c",
               "void mp(const float in[8][16][16], float out[8][8][8]) {\n"
               "  for (int c = 0; c < 8; c++)\n"
               "    for (int i = 0; i < 8; i++)\n"
               "      for (int j = 0; j < 8; j++) {\n"
               "        out[c][i][j] = in[c][2 * i][2 * j];\n"
               "        for (int a = 0; a < 2; a++)\n"
               "          for (int b = 0; b < 2; b++)\n"
               "            out[c][i][j] = in[c][2 * i + a][2 * j + b] > out[c][i][j] ? in[c][2 * i + a][2 * j + b]"
               " : out[c][i][j];\n"
               "      }\n"
               "}\n",
               path, sizeof path);
  cr_assert_eq(tune_and_check(path, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "1 sketch: vu:channels+whole\n"), "%s", out);
  cr_expect(strstr(out, "#pragma npu bind(core, vu)") && strstr(out, "#pragma npu vectorize(i)\n") &&
                !strstr(out, "decompose_reduction"),
            "%s", out);
  cr_expect(strstr(out, "mp_tuned: PASS npugen check") && strstr(out, "2 passed, 0 failed") && strstr(out, "sim: "),
            "%s", out);
}

/* A triangular kernel no NPU sketch fits is tuned on the host by the
 * general sketch, and the default output says, one line each, why each
 * other sketch does not apply, naming the loop that blocked it (before:
 * "no sketch of npugen tune applies", the reasons without a loop). */
Test(tune, sketches_that_do_not_apply_say_why_naming_the_loop) {
  char cmd[1024], out[8192];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && printf '#include <stdint.h>\\nvoid tri(const int32_t A[3][5], int32_t C[3][5]) {\\n"
           "  for (int i = 0; i < 3; i++)\\n    for (int j = 0; j <= i; j++)\\n      C[i][j] = A[i][j] * 2;\\n}\\n' > $d/t.c && "
           "%s tune $d/t.c --trials 1 -o $d/t.sched 2>&1; rc=$?; rm -rf $d; exit $rc", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "1 sketch: host:loops") && strstr(out, "sketches that do not apply, and why:\n"), "%s", out);
  cr_expect(strstr(out, "\n  nu: not a contraction nest: loop j (line 4) does not hold an init") &&
                strstr(out, "\n  vu: the top loop i has fewer iterations than the 4 VU cores (a top loop of at least 4") &&
                strstr(out, "\n  host:cc: not a contraction nest (host:loops tunes the kernel's own loops instead)"),
            "%s", out);
  /* the depth said is the perfect nest's, with where it stops (before: "the
   * nest is 1 loop deep" of a gemm's 3-deep nest with a prologue) */
  cr_expect(strstr(out, "\n  nu conv: not a windowed convolution: its perfect nest is 2 loops deep (loop j (line 4) "
                        "holds 1 statement)"),
            "%s", out);
  cr_expect(strstr(out, "tri_tuned: PASS npugen check"), "%s", out);
}

/* A VU sketch whose own steps are refused says that refusal (bind of a
 * loop that carries a dependence), not that no statement is a VU op
 * (before: "no statement under loop i is an elementwise or reduction op"
 * of y = x * 3 + 1 on a kernel with sizes, where bind was not built; now
 * the sketch applies there). */
Test(tune, a_vu_sketch_refused_at_its_own_steps_says_which) {
  char cmd[1024], out[8192];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && printf 'void vs(int n, const float a[n], float b[n]) {\\n"
           "  for (int i = 1; i < n; i++)\\n    b[i] = b[i - 1] * 0.5f + a[i];\\n}\\n' > $d/t.c && "
           "%s tune $d/t.c --size n=1000 --trials 1 -o $d/t.sched 2>&1; rc=$?; rm -rf $d; exit $rc", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "\n  vu:rows: bind: illegal: loop core would run its iterations in any order, but it carries "
                        "the flow dependence on b"),
            "%s", out);
  cr_expect(!strstr(out, "elementwise or reduction op"), "%s", out);
  /* the same form without the dependence, with sizes: on the VU */
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && printf 'void vs(int n, const float a[n], float b[n]) {\\n"
           "  for (int i = 0; i < n; i++)\\n    b[i] = a[i] * 3.0f + 1.0f;\\n}\\n' > $d/t.c && "
           "%s tune $d/t.c --size n=1000 --trials 1 -o $d/t.sched 2>&1 && cat $d/t.sched; rc=$?; rm -rf $d; exit $rc",
           npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "npugen tune: kernel vs, 1 sketch: vu:rows\n"), "%s", out);
  cr_expect(strstr(out, "#pragma npu bind(core, vu)\n"), "%s", out);
}

/* A 1-D kernel of 16 elements over the 4 VU cores: the sketch's probe
 * vectorized a loop of one element (one row a core), which vectorize
 * leaves as it is, and said "no statement is a VU op" of c = a + b. */
Test(tune, a_short_elementwise_kernel_is_probed_with_vectors_of_two) {
  char cmd[1024], out[8192];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && printf 'void vadd(const float a[16], const float b[16], float c[16]) {\\n"
           "  for (int i = 0; i < 16; i++)\\n    c[i] = a[i] + b[i];\\n}\\n' > $d/t.c && "
           "%s tune $d/t.c --trials 1 -o $d/t.sched 2>&1; rc=$?; rm -rf $d; exit $rc", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "npugen tune: kernel vadd, 1 sketch: vu:rows\n"), "%s", out);
  cr_expect(!strstr(out, "elementwise or reduction op"), "%s", out);
}

/* "no sketch applies" is for a kernel without a loop. */
Test(tune, a_kernel_without_a_loop_has_no_sketch) {
  char cmd[1024], out[8192];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && printf '#include <stdint.h>\\nvoid one(int32_t C[2]) {\\n  C[0] = 1;\\n}\\n' > $d/t.c && "
           "%s tune $d/t.c -o $d/t.sched 2>&1; rc=$?; rm -rf $d; exit $rc", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 1, "%s", out);
  cr_expect(strstr(out, "t.c:2:6: error: no sketch of npugen tune applies to kernel 'one'") &&
                strstr(out, "host:loops: kernel 'one' has no loop: there is nothing to schedule"),
            "%s", out);
}

/* npg_simulate, the search's cost, is the figure npugen check reports for
 * the same variant and seed (host code's accesses counted the same way),
 * on NU and VU variants; and it runs no reference. (The kernel as
 * written, which calls no intrinsic, has no figure in the check; its CU
 * cycles are npg_simulate's own: tests/test_tune_aswritten.c.) */
Test(tune, npg_simulate_costs_what_the_check_measures) {
  const char *files[] = {"examples/softmax_npu.c", "examples/dwconv_npu.c", "examples/conv2d_npu.c"};
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    NpgSession *s = npg_open_file(files[f]);
    cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
    for (int i = 0; i < npg_variant_count(s); i++) {
      NpgCheckResult c;
      NpgSimResult r;
      const char *v = npg_variant_name(s, i);
      bool passed = npg_check(s, i, 5, &c);
      cr_expect(passed, "%s: check %s", v, c.message);
      if (!c.sim_cycles) continue; /* the kernel as written */
      bool ran = npg_simulate(s, i, 5, &r);
      cr_expect(passed && ran, "%s: check %s, simulate %s", v, c.message, r.message);
      cr_expect_eq(r.sim_cycles, c.sim_cycles, "%s: %llu against the check's %llu", v, (unsigned long long)r.sim_cycles,
                   (unsigned long long)c.sim_cycles);
      cr_expect_eq(r.dma_bytes, c.dma_bytes, "%s", v);
      cr_expect_eq(r.onchip_peak, c.onchip_peak, "%s", v);
      cr_expect(r.sim_cycles == 0 || (r.roofline > 0 && r.roofline <= 1 && r.ideal_cycles <= r.sim_cycles), "%s", v);
    }
    npg_close(s);
  }
  NpgSession *s = npg_open_file(kernel);
  NpgSimResult r;
  cr_expect(!npg_simulate(s, npg_variant_count(s), 1, &r) && strstr(r.message, "no variant"), "%s", r.message);
  npg_close(s);
}

/* The VU sketch's estimate follows its knobs: one row a core a pass pays
 * a DMA latency per row on the load channels, eight rows a pass a
 * fraction of it, and the simulator agrees; neither estimate is above the
 * simulated cycles by the search's prune margin (5%), so pruning by it
 * cannot drop a better candidate; and a q whose double-buffered rows do
 * not fit a core's vector memory is refused before any trial. */
static uint64_t vu_estimate_at(const TuneSpace *sp, const TuneSketch *sk, long long q, int db, TuneGenome *g) {
  memset(g, 0, sizeof *g);
  g->sketch = (int)(sk - sp->sketch);
  for (int c = 0; c < sk->knobs[0].n; c++)
    if (sk->knobs[0].val[c] == q) g->choice[0] = c;
  cr_assert_eq(sk->knobs[0].val[g->choice[0]], q, "q=%lld is not a choice of %s", q, sk->name);
  for (int i = 1; i < sk->nknobs; i++) g->choice[i] = db < sk->knobs[i].n ? db : 0;
  return sk->estimate(sk, g->choice, session_target(sp->s));
}

static uint64_t simulated(TuneSpace *sp, const TuneGenome *g, const char *variant) {
  char *steps = tune_render(sp, g, variant);
  TrialResult r;
  tune_trial_run(sp->s, steps, variant, 1, false, &r);
  cr_assert_eq(r.status, TRIAL_SIMULATED, "%s: %s", steps, r.message);
  free(steps);
  return r.cycles;
}

Test(tune, the_vu_estimate_ranks_rows_per_core_and_refuses_what_does_not_fit) {
  static const char src[] = "void scale(const float X[128][768], float Y[128][768]) {\n"
                            "  for (int r = 0; r < 128; r++)\n"
                            "    for (int c = 0; c < 768; c++)\n"
                            "      Y[r][c] = X[r][c] * 2.0f;\n"
                            "}\n";
  NpgSession *s = npg_open_string("scale.c", src, sizeof src - 1);
  cr_assert(s && npg_error_count(s) == 0, "%s", s ? npg_errors(s) : "");
  TuneSpace sp;
  char why[4096];
  cr_assert(tune_space_build(&sp, s, "scale", false, why, sizeof why), "%s", why);
  sp.variant = "scale_tuned";
  const TuneSketch *sk = NULL;
  for (int i = 0; i < sp.nsketch; i++)
    if (!strcmp(sp.sketch[i].name, "vu:rows")) sk = &sp.sketch[i];
  cr_assert(sk, "no vu:rows sketch");
  TuneGenome one, eight, big;
  uint64_t e1 = vu_estimate_at(&sp, sk, 1, 1, &one), e8 = vu_estimate_at(&sp, sk, 8, 1, &eight);
  cr_expect_gt(e1, e8 + e8 / 10, "one row a core a pass: %llu, eight: %llu", (unsigned long long)e1,
               (unsigned long long)e8);
  uint64_t c1 = simulated(&sp, &one, "scale_q1"), c8 = simulated(&sp, &eight, "scale_q8");
  cr_expect_gt(c1, c8, "simulated: q=1 %llu, q=8 %llu", (unsigned long long)c1, (unsigned long long)c8);
  cr_expect_leq(e1, c1 + c1 / 20, "estimate %llu, simulated %llu", (unsigned long long)e1, (unsigned long long)c1);
  cr_expect_leq(e8, c8 + c8 / 20, "estimate %llu, simulated %llu", (unsigned long long)e8, (unsigned long long)c8);
  /* 16 rows of 3 KiB, X and Y: 96 KiB of the 128 KiB; with two copies each, 192 KiB */
  cr_expect_lt(vu_estimate_at(&sp, sk, 16, 0, &big), UINT64_MAX);
  cr_expect_eq(vu_estimate_at(&sp, sk, 16, 1, &big), UINT64_MAX);
  tune_space_free(&sp);
  npg_close(s);
}

/* A kernel with symbolic sizes is tuned for the sizes --size gives: the
 * trials run there, the schedule found is one for every size, and its
 * check runs at the file's own size sets. Without --size, with a size
 * missing, unknown or breaking an assumption, it is refused. */
Test(tune, a_kernel_with_sizes_is_tuned_for_the_size_given) {
  char path[512], cmd[2048], out[16384];
  write_kernel("sized.c",
               "#include <stdint.h>\n"
               "void mm(int m, const int8_t A[m][64], const int8_t B[64][64], int32_t C[m][64]) {\n"
               "  for (int i = 0; i < m; i++)\n"
               "    for (int j = 0; j < 64; j++) {\n"
               "      init: C[i][j] = 0;\n"
               "      for (int k = 0; k < 64; k++)\n"
               "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
               "    }\n"
               "}\n"
               "#pragma npu assume(mm, m <= 4096)\n",
               path, sizeof path);
  snprintf(cmd, sizeof cmd,
           "p=%s; d=$(dirname $p) && %s tune $p --size m=300 --seed 1 --trials 8 -o $d/t.sched 2>&1 && cat $d/t.sched && "
           "%s check $p --schedule $d/t.sched 2>&1",
           path, npugen(), npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "--size m=300 --seed 1: best of") && strstr(out, "mm_tuned") &&
                strstr(out, "(m = 257: ") && strstr(out, "2 passed, 0 failed"),
            "%s", out);
  const char *bad[][2] = {
      {"--size n=3", "--size takes each size of kernel mm once, as NAME=VALUE separated by commas (its sizes: m); got 'n=3'"},
      {"--size m=3,m=4", "got 'm=3,m=4'"},
      {"--size m=5000", "--size: m = 5000 breaks the assumption 'm <= 4096' of kernel mm"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "%s tune %s %s --trials 2 -o /dev/null 2>&1", npugen(), path, bad[i][0]);
    cr_expect_eq(run(cmd, out, sizeof out), 1, "%s: %s", bad[i][0], out);
    cr_expect(strstr(out, bad[i][1]), "%s: %s", bad[i][0], out);
  }
  snprintf(cmd, sizeof cmd, "rm -rf $(dirname %s)", path);
  cr_expect_eq(run(cmd, out, sizeof out), 0);
}

/* Without --size, a kernel with sizes is tuned at the largest of the
 * check's size sets (its #pragma npu sizes sets here), and tune says so;
 * the schedule's comment repeats the sizes as --size (trial 41c, D6:
 * "give the sizes to tune for with --size", though the file named its
 * sets). */
Test(tune, a_kernel_with_sizes_and_no_size_option_is_tuned_at_its_largest_set) {
  char path[512], cmd[2048], out[16384];
  write_kernel("sized_sets.c",
               "void scale(int n, float a[n], float s) {\n"
               "  for (int i = 0; i < n; i++)\n"
               "    a[i] = a[i] * s;\n"
               "}\n"
               "#pragma npu sizes(scale, n = 40)\n"
               "#pragma npu sizes(scale, n = 1000)\n"
               "#pragma npu sizes(scale, n = 7)\n",
               path, sizeof path);
  snprintf(cmd, sizeof cmd, "p=%s; d=$(dirname $p) && %s tune $p --seed 1 --trials 1 -o $d/t.sched 2>&1 && cat $d/t.sched; "
           "rc=$?; rm -rf $d; exit $rc", path, npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "kernel scale has symbolic sizes and no --size: tuning at n=1000, the largest"), "%s", out);
  cr_expect(strstr(out, "--size n=1000 --seed 1"), "%s", out);
}

/* --time-limit is checked before each trial, not only between
 * generations (issue 41: a limit of 40 s stopped after 71 s, a whole
 * generation of host trials past it): a trial starts only when it would
 * end within the limit at the pace of those before, the first trial of a
 * run always. With a limit of 0 s that is the first alone, and the output
 * says the others were not started for the limit (before: --time-limit 0
 * meant no limit, and all 5 trials ran). Trials, not seconds, are
 * asserted. */
Test(tune, the_time_limit_stops_a_trial_from_starting_and_says_so) {
  char cmd[1024], out[16384];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --seed 1 --time-limit 0 --trials 5 -o $d/t.sched 2>&1; rc=$?; rm -rf $d; "
           "exit $rc", npugen(), kernel);
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "generated 1, legal 1, simulated 1") &&
                strstr(out, "stopped: the time limit is reached: 4 trials of generation 1 not started (a trial takes "
                            "about "),
            "%s", out);
  cr_expect(strstr(out, "mm_tuned: PASS npugen check"), "%s", out);
}

/* The NU convolution sketch double-buffers its weight and output caches
 * only where the output-channel block loop runs twice or more: at
 * oc_block = OC (128) it runs once, and double_buffer there changes
 * nothing and warns (before: written whenever the knob said so). The
 * plan renders the candidates without running them. */
Test(tune, no_double_buffer_over_a_block_loop_that_runs_once) {
  char cmd[1024], out[8192];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune examples/conv2d_fused_npu.c --kernel conv_relu_q --plan $d/p --trials 40 "
           ">/dev/null 2>&1 && f=$(grep -l 'oc_block=128 ' $d/p/trials/*) && test -n \"$f\" && "
           "echo once: $(grep -c double_buffer $f) && echo blocks: $(grep -L 'oc_block=128 ' $d/p/trials/* | "
           "xargs grep -l double_buffer | wc -l); rc=$?; rm -rf $d; exit $rc",
           npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "once: 0\n"), "%s", out);
  cr_expect(!strstr(out, "blocks: 0\n"), "the other blocks are double-buffered: %s", out);
}

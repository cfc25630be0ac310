/* Kernels as people write them reach the NPU through `npugen tune`, with
 * no schedule written by hand (issue 40): a local-accumulator int8
 * matmul, a 2x2 fmaxf max pool with its corner in locals, a row softmax
 * with scalar locals for the max and the sum, a leaky ReLU through a
 * local, an int32 sum pool, TFLite's pointwise int8 convolution with its
 * requantisation. Each is the example of that name in
 * examples/ (its kernel, copied under another file name so that its
 * committed tuned variant does not clash with the one tune writes), tuned
 * with a budget counted in trials (never seconds: load cannot change what
 * is tried). The winner must pass the check, call the NU or the VU for
 * its main work, not be bound by the control unit, and reach at least 75%
 * of its roofline (the kernel's own bound, jit/kernel_bound.c). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/session_ir.h"
#include "npugen.h"
#include "tests/test_cli_util.h"
#include "tune/tune.h"

/* Tunes the kernel file (`examples/<name>.c`, copied as k.c) with
 * `trials` trials and emits the winner: tune's output, then the tuned
 * variant's emitted C, into out. */
static void tune_example(const char *file, const char *kernel, int trials, char *out, size_t n) {
  char cmd[2048], variant[200];
  tune_variant_name("k.c", kernel, variant, sizeof variant);
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && cp %s $d/k.c && %s tune $d/k.c --seed 1 --trials %d --jobs 1 -o $d/t.sched "
           "2>&1 && %s emit $d/k.c --schedule $d/t.sched -o $d/out 2>&1 && cat $d/out/%s.c; rc=$?; "
           "rm -rf $d; exit $rc",
           file, npugen(), trials, npugen(), variant);
  int rc = run(cmd, out, n);
  cr_assert_eq(rc, 0, "%s", out);
}

/* The check's line of the tuned variant: PASS, bound by a unit other than
 * the CU, at least `share_min` percent of the roofline; and the emitted C
 * calls `call`. */
static const char *reaches_share(const char *example, const char *kernel, int trials, const char *call,
                                 double share_min) {
  static char out[1 << 18];
  char file[256];
  snprintf(file, sizeof file, strchr(example, '/') ? "%s" : "examples/%s.c", example);
  tune_example(file, kernel, trials, out, sizeof out);
  char variant[200], pass[240];
  tune_variant_name("k.c", kernel, variant, sizeof variant);
  snprintf(pass, sizeof pass, "%s: PASS npugen check", variant);
  const char *line = strstr(out, pass);
  cr_assert(line, "the tuned variant's check: %s", out);
  const char *bound = strstr(line, "bound by ");
  cr_assert(bound, "%s", line);
  cr_expect(strncmp(bound, "bound by cu", 11) != 0, "the control unit does the work: %.300s", line);
  const char *roof = strstr(line, "roofline ");
  cr_assert(roof, "%.300s", line);
  double share = strtod(roof + 9, NULL);
  cr_expect(share >= share_min, "roofline %.1f%% < %.0f%%: %.300s", share, share_min, line);
  cr_expect(strstr(out, call), "the tuned variant does not call %s:\n%s", call, out);
  return out;
}

/* The must-show's bar: 75% of the roofline. */
static const char *reaches(const char *example, const char *kernel, int trials, const char *call) {
  return reaches_share(example, kernel, trials, call, 75.0);
}

/* Before: no NPU sketch applied (the init is the declaration of acc), and
 * the kernel was tuned on the host. The matmul sketch now applies to the
 * kernel with acc expanded into C; the seed reaches 75%. */
Test(tune_reach, a_local_accumulator_matmul_on_the_nu) {
  reaches("matmul_acc", "matmul", 1, "npu_nu_matmul_i8(");
}

/* Before: vectorize stayed a hint (the index locals blocked the
 * instruction sequence) and tune timed the kernel on the host. */
Test(tune_reach, a_fmaxf_max_pool_with_its_corner_in_locals_on_the_vu) {
  reaches("maxpool2x2_fmaxf", "maxpool", 2, "npu_vu_fmax_str_plane_f32(");
}

/* Before: no NPU sketch applied (fission refused the cut with the scalar
 * locals, and the exp-and-sum loop is two statements) and tune timed the
 * kernel on the host. Now tune cuts that loop, expands max and sum (the
 * sum's init moved beside its loop) and the rows' sketch applies: five VU
 * instructions a pass. The kernel as written is a candidate too, its
 * CU cycles simulated (issue 41: before, an NPU round had no figure for
 * it): a row of the table below the winner, and the last line says how
 * much faster the winner is (tests/test_tune_aswritten.c has the rest). */
Test(tune_reach, a_softmax_with_scalar_locals_on_the_vu) {
  const char *out = reaches("softmax_rows", "softmax", 2, "npu_vu_reduce_sum_f32(");
  const char *row = strstr(out, "  as-written\n");
  while (row && row > out && row[-1] != '\n') row--;
  char rank[8] = "", bound[8] = "";
  unsigned long long cycles = 0, as_written = 0, tuned = 0;
  double roofline = 0, ratio = 0;
  cr_expect(row && sscanf(row, "%7s %llu %lf%% %7s", rank, &cycles, &roofline, bound) == 4 && strcmp(rank, "1") &&
                !strcmp(bound, "cu"),
            "the kernel as written's row, bound by the CU and not first: %s", out);
  const char *line = strstr(out, "\nsoftmax as written: ");
  cr_assert(line, "%s", out);
  cr_expect(sscanf(line, "\nsoftmax as written: %llu cycles (bound by cu, roofline %*f%%); tuned: %llu cycles, %lfx",
                   &as_written, &tuned, &ratio) == 3 && as_written == cycles && tuned < as_written &&
                ratio > (double)as_written / (double)tuned - 0.01 && ratio < (double)as_written / (double)tuned + 0.01,
            "%s", line);
}

/* The same written another way: `float e = expf(..); y = e; sum += e;`
 * (e lives in y) and `const float inv = 1.0f / sum;` before `y *= inv`
 * (an array over the rows: npu_vu_rdivs_f32, then npu_vu_mul_rows_f32).
 * Before: the CU computed all but the max (2.4% of the roofline); then,
 * without the reciprocal op, the CU's 1 / sum held it at 40%. */
Test(tune_reach, a_softmax_with_a_temporary_and_a_reciprocal_on_the_vu) {
  reaches("tests/kernels/tune_reach/softmax_exp_inv.c", "softmax", 2, "npu_vu_rdivs_f32(");
}

/* A softmax that reduces an expression (`sum += expf(x - max)`): tune
 * stages the terms into an array, and the VU computes them and their sum
 * (trial 40, D5: the loop stayed on the CU, 4.0% of the roofline). */
Test(tune_reach, a_softmax_that_sums_an_expression_on_the_vu) {
  reaches("tests/kernels/tune_reach/softmax_recompute.c", "softmax", 2, "npu_vu_reduce_sum_f32(");
}

/* A TFLite convolution over 49 pixels, which no tile of the epilogue
 * sketch divides: the last tile is a tail, and the NU and the VU run it
 * (trial 40, D3: the sketch was left out without a word and the kernel
 * tuned on the host). At this size the DMA latencies dominate: the bar
 * here is the units, not 75%. Its tile holds all 64 output channels, so
 * the filter is one DMA at the start; before, it was loaded again for
 * each tile of pixels (a 196-pixel one: 6,350 cycles, now 5,960). */
Test(tune_reach, a_tflite_convolution_no_tile_divides_runs_a_tail_tile) {
  const char *out = reaches_share("tests/kernels/tune_reach/tflite_pw_tail.c", "conv_pw", 1, "npu_nu_matmul_i8", 0);
  cr_expect(strstr(out, "npu_vu_requant_q31_pc"), "the requantisation on the VU:\n%s", out);
  cr_expect(strstr(out, " *   cache_read(filter, nu_wb, root, filter_wb)\n"), "the filter loaded once:\n%s", out);
}

/* The NU sketch with an epilogue for s's kernel, as tune_space_build
 * makes it (in sp), rendered at its seed and checked by execution: it
 * passes, the NU runs, and no host code touches on-chip elements (every
 * epilogue stage on the VU). The steps, malloc'ed. */
static char *epilogue_seed_checked(NpgSession *s, const char *kernel, TuneSpace *sp) {
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  memset(sp, 0, sizeof *sp);
  sp->s = s;
  sp->kernel = kernel;
  arena_init(&sp->arena, 0);
  tune_shape(module_kernel(session_module(s), kernel), &sp->shape);
  tune_sketch_nu_epilogue(sp);
  cr_assert_geq(sp->nsketch, 1, "%s", sp->notes);
  TuneGenome g = {.sketch = 0};
  for (int k = 0; k < sp->sketch[0].nknobs; k++) g.choice[k] = sp->sketch[0].knobs[k].seed;
  cr_assert_str_eq(sp->sketch[0].knobs[0].name, "ti");
  char *steps = tune_render(sp, &g, "tuned");
  cr_assert(npg_add_schedule_string(s, "<tuned>", steps, strlen(steps)), "%s", npg_errors(s));
  NpgCheckResult r;
  cr_assert(npg_check(s, npg_variant_index(s, "tuned"), 1, &r), "%s", r.message);
  cr_expect(r.pass && r.compared > 0, "%s", r.message);
  cr_expect_gt(r.nu_utilization, 0.0, "the NU does not run: %s", r.summary);
  cr_expect(!strstr(r.summary, "host code touched"), "%s", r.summary);
  return steps;
}

/* A matmul whose store is its epilogue, `C[i][j] = acc > 0 ? acc : 0`, with
 * no reassignment of acc between (trial isel7, from issue 40's held-back
 * kinds). Before: the NU sketch with an epilogue wanted a reassignment
 * ("acc is not reassigned after its loop"), the plain one a store of acc
 * as it is, and the kernel was tuned on the host. Now the NU computes acc
 * and the VU cores the ReLU (128x128x256: 6,425 cycles, 63.8% of the
 * roofline after 8 trials). This one: the sketch's seed, checked by
 * execution, the ReLU a VU op (no host code on on-chip elements).
 *
 * Its 196 rows (a 14 x 14 map's pixels) no tile of a multiple of 32 rows
 * divides: the sketch also cuts them in 1 to 4 tiles of nearly equal size
 * (a multiple of the 4 VU cores: 196, 100, 68, 52), none past the 196
 * rows. Before, its tiles were 32, 64, 128 and 192 rows only: 128 left a
 * tail of 68, two cores idle in its epilogue (trial 40's 196x128x96
 * pwE.c, 12 trials: 5,960 cycles; now 100 a tile, 5,801). */
Test(tune_reach, a_matmul_with_its_relu_in_the_store_on_the_nu_and_the_vu) {
  TuneSpace sp;
  NpgSession *s = npg_open_file("tests/kernels/isel7/matmul_relu_store.c");
  char *steps = epilogue_seed_checked(s, "matmul", &sp);
  cr_expect(strstr(steps, "#pragma npu vectorize(j_1)\n") && !strstr(steps, "fold("), "%s", steps);
  const TuneKnob *ti = &sp.sketch[0].knobs[0];
  bool even[4] = {false};
  for (int c = 0; c < ti->n; c++) {
    cr_expect(ti->val[c] <= 196, "a tile of %lld rows", ti->val[c]);
    for (int k = 0; k < 4; k++) even[k] |= ti->val[c] == (long long[]){196, 100, 68, 52}[k];
  }
  cr_expect(even[0] && even[1] && even[2] && even[3], "the tiles of nearly equal size");
  free(steps);
  tune_space_free(&sp);
  npg_close(s);
}

Test(tune_reach, a_leaky_relu_through_a_local_on_the_vu) {
  reaches("leaky_relu", "leaky_relu", 2, "npu_vu_select_ge_muls_f32(");
}

Test(tune_reach, an_int32_sum_pool_with_a_local_accumulator_on_the_vu) {
  reaches("sumpool_i32", "sumpool", 2, "npu_vu_window_sum_i32(");
}

/* TFLite's pointwise convolution as its reference kernels write it: the
 * accumulator reassigned in sequence (bias, requantisation, offset, max,
 * min) before the store. Before: no sketch took it (the plain contraction
 * refuses an epilogue, and vu:rows's buffers did not fit) and tune timed
 * it on the host. Now the NU sketch with an epilogue folds the chain and
 * the NU and the VU cores share the work. */
Test(tune_reach, a_tflite_pointwise_convolution_on_the_nu_and_the_vu) {
  const char *out = reaches("conv_pw_tflite", "conv_pw", 1, "npu_vu_requant_q31_pc_i8(");
  cr_expect(strstr(out, "npu_nu_matmul_i8("), "the tuned variant does not call the NU:\n%s", out);
  cr_expect(strstr(out, " *   fold(s3)\n"), "%s", out);
}

/* The same with the filter stored as TFLite stores it, `filter[oc][ic]`:
 * the NU reads its weights output-channel major too
 * (npu_nu_matmul_i8_bt, B[j][k]), so each tile of the filter is one
 * double-buffered DMA as stored, and the caller passes it unpacked.
 * Before: the NU read B[k][j] only, the sketch copied the filter whole
 * into the DM and each tile from there transposed (buffer_reorder on
 * nu_wb), one DMA per output channel waited for by the NU: 70.7% of the
 * roofline. Now 81.0% (docs/schedules.md), as the input-channel-major
 * form; the must-show's 75% is the bar. */
Test(tune_reach, a_tflite_convolution_with_its_filter_output_channel_major) {
  const char *out = reaches_share("conv_pw_tflite_ohwi", "conv_pw", 1, "npu_nu_matmul_i8_bt(", 75.0);
  cr_expect(!strstr(out, "buffer_reorder(filter_wb"), "the filter's copy still transposes:\n%s", out);
  cr_expect(strstr(out, "const int8_t filter[OC][IC]") && !strstr(out, "_pack_filter"), "%s", out);
  cr_expect(strstr(out, "npu_vu_requant_q31_pc_i8("), "%s", out);
}

/* When no NPU sketch fits the array form either (double: no NPU op takes
 * it), the host sketches read the kernel as written first; host:cc, which
 * refuses it, then takes the array form with its steps before its own
 * (expand(acc)). Before: host:cc read the expanded shape without its steps
 * and was refused ("decompose_reduction: s1 (line 8) is not a reduction's
 * init"). */
Test(tune_reach, the_host_sketches_read_the_kernel_as_written) {
  NpgSession *s = npg_open_file("tests/kernels/tune_reach/matmul_acc_f64.c");
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  TuneSpace sp;
  char why[4096];
  cr_assert(tune_space_build(&sp, s, "matmul", false, why, sizeof why), "%s", why);
  cr_expect(sp.host && !strcmp(sp.prefix, "#pragma npu expand(acc)\n"), "%s", sp.notes);
  cr_expect(strstr(sp.notes, "after the kernel's array form (expand(acc)), again:"), "%s", sp.notes);
  cr_expect(strstr(sp.notes, "host:cc: not a contraction nest") && !strstr(sp.notes, "decompose_reduction"), "%s",
            sp.notes);
  tune_space_free(&sp);
  npg_close(s);
}

/* A VU sketch that does not apply names the stage's expression that no
 * instruction computes, and why (issue 41's trial was `fmaxf(x, 0.0f)`, a
 * ReLU against a constant, which npu_vu_scalar_fmax_f32 computes now: the
 * sum with sinf(x) here has no instruction). Before: "no statement under
 * loop i is an elementwise or reduction op of the VU's families", which
 * named nothing. */
Test(tune_reach, a_vu_sketch_that_does_not_apply_names_what_blocks_it) {
  static const char src[] = "#include <math.h>\n"
                            "void relu(const float x[256][128], float y[256][128]) {\n"
                            "  for (int i = 0; i < 256; i++)\n"
                            "    for (int j = 0; j < 128; j++)\n"
                            "      y[i][j] = fmaxf(x[i][j], 0.0f) + sinf(x[i][j]);\n"
                            "}\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  TuneSpace sp;
  char why[4096];
  cr_assert(tune_space_build(&sp, s, "relu", false, why, sizeof why), "%s", why);
  cr_expect(strstr(sp.notes, "vu:rows: no stage vectorizes onto the VU: vectorize(j) stays a hint: no VU instruction "
                             "computes the nest under j (nearest npu_vu_add_f32: the expressions differ: "
                             "'fmaxf(x_vm[ii][j], 0.0f)' in s1 (line 5) against the intrinsic's 'a[i]' (line 12); as a "
                             "sequence of instructions: no VU instruction computes 'sinf(x_vm[ii][j])' (nearest "
                             "npu_vu_abs_f32: the calls differ"),
            "%s", sp.notes);
  tune_space_free(&sp);
  npg_close(s);
}

/* An element-wise kernel that updates its array in place at its DDR
 * bound: vu:rows stages the array as a read cache and a write cache, each
 * double-buffered (db_a=1). Before, every db_a=1 candidate was illegal
 * ("a_vm is both filled and drained by DMA") and the winner, one pass of
 * one buffer copied in and out, reached 68% of the roofline at 256x512. */
Test(tune_reach, an_in_place_scale_at_its_ddr_bound) {
  const char *out = reaches_share("tests/kernels/tune_reach/scale_in_place.c", "scale", 4, "npu_vu_muls_f32(", 80.0);
  cr_expect(strstr(out, " *   double_buffer(a_in)\n") && strstr(out, " *   double_buffer(a_vm)\n"), "%s", out);
}

/* vu:rows at each q: a double-buffered array is ruled out where one pass
 * covers the rows (q = 16 of 64 rows on 4 cores: double_buffer would only
 * warn that it changes nothing, issue 44), and kept where there are two
 * passes or more. Before, every q offered it. */
Test(tune_reach, double_buffer_only_where_the_pass_loop_runs_twice_or_more) {
  static const char src[] = "void sc(const float x[64][64], float y[64][64]) {\n"
                            "  for (int i = 0; i < 64; i++)\n"
                            "    for (int j = 0; j < 64; j++)\n"
                            "      y[i][j] = x[i][j] * 2.0f;\n"
                            "}\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  TuneSpace sp;
  char why[4096];
  cr_assert(tune_space_build(&sp, s, "sc", false, why, sizeof why), "%s", why);
  const TuneSketch *sk = NULL;
  for (int i = 0; i < sp.nsketch; i++)
    if (!strcmp(sp.sketch[i].name, "vu:rows")) sk = &sp.sketch[i];
  cr_assert(sk, "%s", sp.notes);
  cr_assert_str_eq(sk->knobs[0].name, "q");
  int ch[TUNE_MAX_KNOBS] = {0};
  int checked_once = 0, checked_twice = 0;
  for (int q = 0; q < sk->knobs[0].n; q++) {
    ch[0] = q;
    for (int k = 1; k < sk->nknobs; k++) ch[k] = sk->knobs[k].n - 1; /* every array double-buffered */
    uint64_t est = sk->estimate(sk, ch, session_target(s));
    if (64 / (sk->knobs[0].val[q] * 4) < 2) {
      cr_expect_eq(est, UINT64_MAX, "q=%lld: one pass, and double_buffer is offered", sk->knobs[0].val[q]);
      checked_once++;
    } else {
      cr_expect_neq(est, UINT64_MAX, "q=%lld: %lld passes, and double_buffer is not offered", sk->knobs[0].val[q],
                    64 / (sk->knobs[0].val[q] * 4));
      checked_twice++;
    }
  }
  cr_expect(checked_once && checked_twice, "q values: %d of one pass, %d of more", checked_once, checked_twice);
  tune_space_free(&sp);
  npg_close(s);
}

/* The same scale with sized rows (issue 42), tuned at n = 256, m = 512:
 * vu:rows splits the sized vector loop into vectors of 512 (the --size
 * value), its outer part outermost, so each core stages 16 x 512 floats
 * whatever m is (its tail guarded) and DMAs them with the run-time pitch
 * m. The winner's trial at 256 x 512 is at least 80% of the roofline, and
 * tune's check passes it at every default size set (tails in both
 * dimensions). Before: the cache of a whole sized row was refused
 * ("spans more than 1 GiB") and tune timed the kernel on the host. */
Test(tune_reach, a_sized_in_place_scale_on_the_vu_at_its_ddr_bound) {
  static char out[1 << 17];
  char cmd[2048], variant[200];
  tune_variant_name("k.c", "scale", variant, sizeof variant);
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && printf '%%s\\n' 'void scale(int n, int m, float a[n][m], float s) {' "
           "'  for (int i = 0; i < n; i++)' '    for (int j = 0; j < m; j++)' '      a[i][j] = a[i][j] * s;' '}' "
           "> $d/k.c && %s tune $d/k.c --seed 1 --size n=256,m=512 --trials 2 --jobs 1 -o $d/t.sched 2>&1 && "
           "%s emit $d/k.c --schedule $d/t.sched -o $d/out 2>&1 && cat $d/out/%s.c; rc=$?; rm -rf $d; exit $rc",
           npugen(), npugen(), variant);
  int rc = run(cmd, out, sizeof out);
  cr_assert_eq(rc, 0, "%s", out);
  const char *best = strstr(out, "\n1  ");
  cr_assert(best, "no ranked candidate:\n%s", out);
  double cycles = 0, share = 0;
  char sketch[64] = "";
  cr_assert_eq(sscanf(best, " 1 %lf %lf%% %*s %*s %*s %63s", &cycles, &share, sketch), 3, "%.200s", best);
  cr_expect_str_eq(sketch, "vu:rows", "%s", out);
  cr_expect(share >= 80.0, "roofline %.1f%% < 80%% at n = 256, m = 512:\n%s", share, out);
  char pass[240];
  snprintf(pass, sizeof pass, "%s: PASS npugen check", variant);
  const char *line = strstr(out, pass);
  cr_assert(line, "the tuned variant's check: %s", out);
  cr_expect(strstr(line, "at 9 size sets: (n = 1, m = 1") && strstr(line, "(n = 257, m = 257"), "%.400s", line);
  cr_expect(strstr(out, "npu_vu_muls_f32(") && strstr(out, "npu_dma_2d("), "%s", out);
  cr_expect(!strstr(out, "host code touched"), "copies on the host: %.400s", line);
}

/* A kernel of two top-level nests, the second reading what the first
 * writes (t = A x; y = B t, fp32): each nest gets the NU's GEMV sketch, as
 * if it were a kernel of its own, and one candidate schedules both
 * (tune/sketch_nests.c), faster than the kernel as written on the CU.
 * Before: no NPU sketch applied to a body of two nests, and the kernel was
 * timed on the host; then the second nest's probe staged t at the root,
 * above the nest that writes it, and was refused (its seed now stages it
 * at the band loop). */
Test(tune_reach, each_nest_of_a_two_nest_kernel_gets_its_own_nu_sketch) {
  const char *f = "tests/kernels/tune_reach/chained_gemvs.c";
  char cmd[2048], out[1 << 15], variant[200], pass[300];
  tune_variant_name(f, "chained_gemvs", variant, sizeof variant);
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --seed 1 --trials 1 -o $d/t.sched 2>&1 && cat $d/t.sched; rc=$?; rm -rf $d; "
           "exit $rc",
           npugen(), f);
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "1 sketch: nests:i_1=nu:npu_nu_matmul_f32,i_2=nu:npu_nu_matmul_f32\n"), "%s", out);
  cr_expect(strstr(out, "#pragma npu tensorize(i_1i, npu_nu_matmul_f32)\n") &&
                strstr(out, "#pragma npu tensorize(i_2i, npu_nu_matmul_f32)\n"),
            "both nests on the NU: %s", out);
  snprintf(pass, sizeof pass, "%s: PASS npugen check", variant);
  const char *line = strstr(out, pass);
  cr_expect(line && strstr(line, "bound by ") && strncmp(strstr(line, "bound by "), "bound by cu", 11),
            "tune's check of the winner: %s", out);
  cr_expect(strstr(out, "chained_gemvs as written: ") && strstr(out, " (bound by cu, ") && strstr(out, "); tuned: "),
            "%s", out);
}

/* The VU sketch's note of a stage that stays a hint is read from the
 * probe's IR (the loop's vec_note, schedule/vectorize.c), not from the
 * session's warnings (issue 45): a probe proven before comes from the
 * space's memo and repeats no warning, so the note read from the text
 * became the generic one ("no statement under loop r is an elementwise or
 * reduction op"). Built a second time on the same space, every probe from
 * the memo, the sketch now notes the same hint (one line: tune_note keeps
 * one of equal lines). */
Test(tune_reach, a_vu_stage_left_a_hint_is_named_from_the_ir_when_its_probe_is_memoized) {
  NpgSession *s = npg_open_file("tests/kernels/tune_reach/double_rows.c");
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  TuneSpace sp;
  char why[4096];
  cr_assert(tune_space_build(&sp, s, "dscale", false, why, sizeof why), "%s", why);
  const char *hint = "  vu:rows: no stage vectorizes onto the VU: vectorize(c) stays a hint: no VU instruction computes "
                     "the nest under c (nearest npu_vu_mul_f32: the types differ: ";
  cr_expect(strstr(sp.notes, hint), "%s", sp.notes);
  size_t before = strlen(sp.notes);
  int sketches = sp.nsketch;
  tune_sketch_vu(&sp);
  cr_expect_eq(sp.nsketch, sketches);
  cr_expect_eq(strlen(sp.notes), before, "a note other than the hint's: %s", sp.notes + before);
  tune_space_free(&sp);
  npg_close(s);
}

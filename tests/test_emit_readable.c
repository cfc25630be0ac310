/* What a reviewer reads in a variant's C (issue 44's list): each finding
 * is a decision of lower/, printed by emit/; each variant is also checked
 * by execution against its kernel as written. */
#include <criterion/criterion.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* x * 2 over two VU cores, each with its own load and copy out. */
static const char two_cores[] = "void sc(const float x[64], float y[64]) {\n"
                                "  for (int i = 0; i < 64; i++) y[i] = x[i] * 2.0f;\n"
                                "}\n";

/* The DMA channel alternates by core (`core % 2`); over cores 0 and 1
 * alone that is `core` (before: `npu_dma_1d(core % 2, ...)` under
 * `for (int core = 0; core < 2; core++)`). Four cores keep `core % 2`. */
Test(emit_readable, the_channel_of_two_cores_is_the_core) {
  NpgSession *s = open_ok(two_cores, "#pragma npu schedule(sc, two)\n"
                                     "#pragma npu split(i, 32, core, ii)\n"
                                     "#pragma npu bind(core, vu)\n"
                                     "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                                     "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                                     "#pragma npu vectorize(ii)\n"
                                     "#pragma npu schedule(sc, four)\n"
                                     "#pragma npu split(i, 16, core, ii)\n"
                                     "#pragma npu bind(core, vu)\n"
                                     "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                                     "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                                     "#pragma npu vectorize(ii)\n");
  const char *c = npg_emit_source(s, checked(s, "two"));
  has(c, "for (int core = 0; core < 2; core++)");
  has(c, "x_vm_tok[core] = npu_dma_1d(core, &x_vm[0], &x[core * 32], 128);");
  has(c, "y_vm_tok[core] = npu_dma_1d(2 + core, &y[core * 32], &y_vm[0], 128);");
  lacks(c, "% 2");
  c = npg_emit_source(s, checked(s, "four"));
  has(c, "x_vm_tok[core] = npu_dma_1d(core % 2, &x_vm[0], &x[core * 16], 64);");
  npg_close(s);
}

/* After a pipelined loop, the waits for its last two copies out need no
 * guard (the loop runs 4 times: both tokens were issued), beside the
 * loop's own wait guarded by `io >= 2`; each says which iteration issued
 * its token (before: two bare waits a reviewer took for unguarded ones). */
Test(emit_readable, the_last_waits_say_which_iteration_issued_them) {
  NpgSession *s = open_ok(test_matmul, "#pragma npu schedule(matmul, db)\n"
                                       "#pragma npu split(i, 16, io, ii)\n"
                                       "#pragma npu cache_read(A, nu_ib, io, A_ib)\n"
                                       "#pragma npu cache_read(B, nu_wb, root, B_wb)\n"
                                       "#pragma npu cache_write(C, nu_ob, io, C_ob)\n"
                                       "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n"
                                       "#pragma npu double_buffer(C_ob)\n");
  const char *c = npg_emit_source(s, checked(s, "db"));
  has(c, "if (io >= 2) npu_dma_wait(C_ob_tok[io % 2]); /* its copy out two iterations ago */");
  has(c, "    }\n"
         "    npu_dma_wait(C_ob_tok[0]); /* the copy out of io = 2, the iteration before the last */\n"
         "    npu_dma_wait(C_ob_tok[1]); /* the copy out of io = 3, the last iteration */\n");
  npg_close(s);
}

/* An extent written as an expression of #defines keeps its spelling: in
 * the .c with the kernel's names, in the header with the variant's
 * (before: `x[18]`, its value). One with a cast is printed as its value. */
Test(emit_readable, an_extent_written_as_an_expression_keeps_its_spelling) {
  static const char kernel[] = "#define N 16\n"
                               "void sh(const float x[2 * (N + 1)], const float w[(int)N + 2], float y[N]) {\n"
                               "  for (int i = 0; i < N; i++) y[i] = x[2 * i + 2] * w[i + 2];\n"
                               "}\n";
  NpgSession *s = open_ok(kernel, "#pragma npu schedule(sh, halves)\n"
                                  "#pragma npu split(i, 8, io, ii)\n");
  int v = checked(s, "halves");
  has(npg_emit_source(s, v), "void halves(const float x[2 * (N + 1)], const float w[18], float y[N]) {");
  const char *h = npg_emit_header(s, v);
  has(h, "#define HALVES_N 16\n");
  has(h, "void halves(const float x[2 * (HALVES_N + 1)], const float w[18], float y[HALVES_N]);");
  npg_close(s);
}

/* A bound loop that is the home of its copies out (no pass loop around
 * it) runs once after its tokens are zeroed, each core's compute before
 * its copy out: the compute's wait for the last copy out would always
 * see 0, so there is none (before: `if (y_vm_tok[core]) npu_dma_wait(...)`
 * in the compute phase). Under a pass loop the wait stays: the next pass
 * writes y_vm again. The waits after the loop stay in both. */
Test(emit_readable, a_bound_loop_run_once_has_no_wait_for_a_last_pass) {
  NpgSession *s = open_ok(two_cores, "#pragma npu schedule(sc, once)\n"
                                     "#pragma npu split(i, 16, core, ii)\n"
                                     "#pragma npu bind(core, vu)\n"
                                     "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                                     "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                                     "#pragma npu vectorize(ii)\n"
                                     "#pragma npu schedule(sc, passes)\n"
                                     "#pragma npu split(i, 32, io, i1)\n"
                                     "#pragma npu split(i1, 8, core, ii)\n"
                                     "#pragma npu bind(core, vu)\n"
                                     "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                                     "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                                     "#pragma npu vectorize(ii)\n");
  const char *c = npg_emit_source(s, checked(s, "once"));
  lacks(c, "npu_dma_wait(y_vm_tok[core]); /*");
  has(c, "      if (y_vm_tok[core]) npu_dma_wait(y_vm_tok[core]);\n");
  c = npg_emit_source(s, checked(s, "passes"));
  has(c, "if (y_vm_tok[core]) npu_dma_wait(y_vm_tok[core]); /* this core's copy out of y_vm in the last pass */");
  npg_close(s);
}

/* A window's first iteration, clamped to the tile, offsets every operand
 * and shortens the length: one const local holds it, declared just before
 * the call (before: `npu_clamp(7 - ii_start, 16)` three times in the
 * call). Its name is one the kernel does not use: `ii_bound` is a
 * parameter here, so the local is `ii_bound2`. */
Test(emit_readable, a_bound_the_call_repeats_is_held_once) {
  static const char kernel[] = "void suffix(const float x[64], float y[64], float ii_bound) {\n"
                               "  for (int i = 0; i < 64; i++)\n"
                               "    if (i >= 7) y[i] = x[i] * ii_bound;\n"
                               "}\n";
  NpgSession *s = open_ok(kernel, "#pragma npu schedule(suffix, tiles)\n"
                                  "#pragma npu split(i, 16, core, ii)\n"
                                  "#pragma npu bind(core, vu)\n"
                                  "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                                  "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                                  "#pragma npu vectorize(ii)\n");
  const char *c = npg_emit_source(s, checked(s, "tiles"));
  has(c, "const int ii_bound2 = npu_clamp(7 - ii_start, 16);\n");
  has(c, "(&y_vm[ii_bound2], &x_vm[ii_bound2], 16 - ii_bound2, ii_bound);");
  lacks(c, "npu_clamp(7 - ii_start, 16)]");
  npg_close(s);
}

/* A local array keeps the extent as the source spelt it: `float x[WP]`
 * with `#define WP (W + 2)`, or `W + 2`, where the schedule left that
 * extent as it was; a layout step that changes it gives the numbers
 * (before: every local array was declared with numbers, `x[18]`). */
Test(emit_readable, local_arrays_keep_the_spelling_of_their_extents) {
  static const char kernel[] = "#define W 16\n"
                               "#define WP (W + 2)\n"
                               "#define R 4\n"
                               "void blur(const float in[R][WP], float y[R][W]) {\n"
                               "  float x[R][WP];\n"
                               "  float t[W + 2];\n"
                               "  for (int r = 0; r < R; r++) {\n"
                               "    for (int i = 0; i < WP; i++) x[r][i] = in[r][i] * 2.0f;\n"
                               "    for (int i = 0; i < W + 2; i++) t[i] = x[r][i] + 1.0f;\n"
                               "    for (int o = 0; o < W; o++) y[r][o] = t[o] + t[o + 1] + x[r][o + 2];\n"
                               "  }\n"
                               "}\n";
  NpgSession *s = open_ok(kernel, "#pragma npu schedule(blur, rows)\n"
                                  "#pragma npu split(r, 2, ro, ri)\n"
                                  "#pragma npu schedule(blur, swapped)\n"
                                  "#pragma npu transform_layout(x, (r, i), (i, r))\n"
                                  "#pragma npu schedule(blur, padded)\n"
                                  "#pragma npu storage_align(x, 0, 32, 0)\n");
  const char *names[] = {"blur", "rows"};
  for (int i = 0; i < 2; i++) {
    const char *c = npg_emit_source(s, checked(s, names[i]));
    has(c, "  float x[R][WP];\n");
    has(c, "  float t[W + 2];\n");
  }
  has(npg_emit_source(s, checked(s, "swapped")), "  float x[18][4];\n");
  const char *c = npg_emit_source(s, checked(s, "padded"));
  has(c, "  float x[4][32];\n");
  has(c, "  float t[W + 2];\n");
  npg_close(s);
}

/* A core whose rows run past the array's end: its count is computed once
 * per core, by the loads, with the size spelt as the kernel wrote it, and
 * the load, the call and the copy out name it (before: `npu_clamp(100 -
 * (io * 64 + core * 16), 16)` three times a core, once in each phase's
 * loop over the cores). In the last pass core 2 has 4 rows and core 3
 * none. */
Test(emit_readable, a_core_tail_count_is_held_once_per_core) {
  static const char kernel[] = "#define LEN 100\n"
                               "void scale(const float x[LEN], float y[LEN]) {\n"
                               "  for (int i = 0; i < LEN; i++) y[i] = x[i] * 2.0f;\n"
                               "}\n";
  NpgSession *s = open_ok(kernel, "#pragma npu schedule(scale, cores)\n"
                                  "#pragma npu split(i, 64, io, ir)\n"
                                  "#pragma npu split(ir, 16, core, ii)\n"
                                  "#pragma npu bind(core, vu)\n"
                                  "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                                  "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                                  "#pragma npu vectorize(ii)\n");
  const char *c = npg_emit_source(s, checked(s, "cores"));
  has(c, "        int core_count[4];\n");
  has(c, "          core_count[core] = npu_clamp(LEN - (io * 64 + core * 16), 16);\n");
  has(c, ", &x[io * 64 + core * 16], 4 * core_count[core]) : 0;");
  has(c, "npu_vu_muls_f32(&y_vm[0], &x_vm[0], core_count[core], /*s=*/2.0f);");
  has(c, ", &y_vm[0], 4 * core_count[core]) : 0;");
  const char *first = strstr(c, "npu_clamp(");
  cr_assert(first && !strstr(first + 1, "npu_clamp("), "the count is printed more than once:\n%s", c);
  npg_close(s);
}

/* Comments name a loop by the counter the C declares, and only where the
 * C still has it. Before: "loop nest io (line 2)" above a nest whose io
 * ran once (tidied away), "loop nest x_dm_0" above the one DMA call its
 * copy nest became, and "bound to the VU cores: iteration core runs on
 * core core". */
Test(emit_readable, comments_name_only_counters_the_c_declares) {
  NpgSession *s = open_ok(two_cores, "#pragma npu schedule(sc, once)\n"
                                     "#pragma npu split(i, 64, io, ir)\n"
                                     "#pragma npu split(ir, 16, core, ii)\n"
                                     "#pragma npu bind(core, vu)\n"
                                     "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                                     "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                                     "#pragma npu vectorize(ii)\n"
                                     "#pragma npu schedule(sc, staged)\n"
                                     "#pragma npu cache_read(x, dm, root, x_dm)\n");
  const char *c = npg_emit_source(s, checked(s, "once"));
  has(c, "  /* nest at line 2: x_vm_load (line 8), s1 (line 2), y_vm_store (line 9) */\n"
         "  { /* loop io (line 2) runs once, io = 0 */\n");
  has(c, "/* loop core bound to the VU cores, one iteration on each, phase by phase */\n");
  lacks(c, "loop nest io");
  lacks(c, "runs on core");
  c = npg_emit_source(s, checked(s, "staged"));
  has(c, "  /* nest at line 12: x_dm_load (line 12) */\n  /* x_dm_load: x_dm <- x */\n");
  has(c, "  /* loop nest i (line 2): s1 (line 2) */\n  for (int i = 0; i < 64; i++) {\n");
  lacks(c, "x_dm_0");
  npg_close(s);
}

/* A split tail without cores: its count is held once per pass of the
 * loop, as a bound loop's is per core (lower/intrin_repeats.c). Before:
 * `npu_clamp(100 - io * 32, 32)` in the load, the call and the copy out. */
Test(emit_readable, a_split_tail_count_is_held_once_per_pass) {
  static const char hundred[] = "void sc(const float x[100], float y[100]) {\n"
                                "  for (int i = 0; i < 100; i++) y[i] = x[i] * 2.0f;\n"
                                "}\n";
  NpgSession *s = open_ok(hundred, "#pragma npu schedule(sc, tail)\n"
                                   "#pragma npu split(i, 32, io, ii)\n"
                                   "#pragma npu cache_read(x, vu_vm, io, x_vm)\n"
                                   "#pragma npu cache_write(y, vu_vm, io, y_vm)\n"
                                   "#pragma npu vectorize(ii)\n");
  const char *c = npg_emit_source(s, checked(s, "tail"));
  has(c, "  for (int io = 0; io < 4; io++) {\n    const int io_count = npu_clamp(100 - io * 32, 32);\n");
  has(c, "npu_dma_wait(npu_dma_1d(0, &x_vm[0], &x[io * 32], 4 * io_count));");
  has(c, "npu_vu_muls_f32(&y_vm[0], &x_vm[0], io_count, /*s=*/2.0f);");
  has(c, "npu_dma_wait(npu_dma_1d(0, &y[io * 32], &y_vm[0], 4 * io_count));");
  const char *first = strstr(c, "npu_clamp(");
  cr_expect(first && !strstr(first + 1, "npu_clamp("), "npu_clamp printed more than once:\n%s", c);
  npg_close(s);
}

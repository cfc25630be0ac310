/* Programs on the NPU (docs/programs.md): a callee variant that pipelines
 * its copies (double_buffer on VU cores) keeps doing so when a call gives
 * it the caller's intermediate, in DDR or on chip; the static check of
 * the lowered program sees each DMA's region of such an intermediate; and
 * the check says how many of the bytes moved crossed DDR. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* addk on the four VU cores, its rows double-buffered; net chains two
 * calls of it through T (lines 1-22). */
static const char *chain =
    "#include <stdint.h>\n"
    "#define R 16\n"
    "#define N 64\n"
    "void addk(const int32_t X[R][N], const int32_t Y[R][N], int32_t Z[R][N]) {\n"
    "  for (int i = 0; i < R; i++)\n"
    "    for (int j = 0; j < N; j++)\n"
    "      add: Z[i][j] = X[i][j] + Y[i][j];\n"
    "}\n"
    "#pragma npu schedule(addk, addk_vu)\n"
    "#pragma npu split(i, 4, io, core)\n"
    "#pragma npu bind(core, vu)\n"
    "#pragma npu cache_read(X, vu_vm, core, X_vm)\n"
    "#pragma npu cache_read(Y, vu_vm, core, Y_vm)\n"
    "#pragma npu cache_write(Z, vu_vm, core, Z_vm)\n"
    "#pragma npu double_buffer(X_vm)\n"
    "#pragma npu double_buffer(Y_vm)\n"
    "#pragma npu double_buffer(Z_vm)\n"
    "#pragma npu vectorize(j)\n"
    "void net(const int32_t A[R][N], const int32_t B[R][N], int32_t C[R][N]) {\n"
    "  int32_t T[R][N];\n"
    "  s1: addk(A, B, T);\n"
    "  s2: addk(T, A, C);\n"
    "}\n";

static NpgCheckResult run(NpgSession *s, const char *variant) {
  NpgCheckResult r;
  int v = checked(s, variant);
  cr_assert(npg_check(s, v, 1, &r), "%s: %s", variant, r.message);
  return r;
}

/* The caller's T in DDR: the copies into and out of it overlap the VU's
 * work as they do for the callee's own parameters (before, double_buffer
 * refused a copy from or to anything but a parameter, and so `use`
 * refused the variant). */
Test(program_npu, a_callee_pipelines_its_copies_of_the_callers_intermediate) {
  NpgSession *s = open_ok(chain, "#pragma npu schedule(net, net_ddr)\n"
                                 "#pragma npu use(s1, addk_vu)\n#pragma npu use(s2, addk_vu)\n");
  run(s, "net_ddr");
  const char *c = npg_emit_source(s, npg_variant_index(s, "net_ddr"));
  has(c, "  addk_vu(A, B, T); /* s1, line 21 */\n");
  has(c, "phase by phase");
  lacks(c, "does nothing here");
  npg_close(s);
}

/* T on chip: the call runs a function of its own, planned for where T is.
 * Its bound loop still runs phase by phase with both copies of each
 * buffer (the function's copy of the loop kept its buffers' cores; they
 * pointed at the variant's counter, so every load looked like compute and
 * the cores ran one after another, double_buffer doing nothing), and the
 * static check of the program sees that the copies out of consecutive
 * passes write different rows of T (it checked an on-chip array whole, so
 * two DMAs in flight into T were taken for a hazard: an internal error). */
Test(program_npu, an_on_chip_intermediate_keeps_the_callees_pipeline) {
  NpgSession *s = open_ok(chain, "#pragma npu schedule(net, net_ddr)\n"
                                 "#pragma npu use(s1, addk_vu)\n#pragma npu use(s2, addk_vu)\n"
                                 "#pragma npu schedule(net, net_chip)\n#pragma npu set_scope(T, dm)\n"
                                 "#pragma npu use(s1, addk_vu)\n#pragma npu use(s2, addk_vu)\n");
  NpgCheckResult ddr = run(s, "net_ddr"), chip = run(s, "net_chip");
  const char *c = npg_emit_source(s, npg_variant_index(s, "net_chip"));
  has(c, "static void addk_vu_s1(");
  has(c, "static void addk_vu_s2(");
  has(c, " *   Z is the caller's T, in dm: addk_vu does not stage it whole, so this function writes it there, on chip\n");
  has(c, " *   X is the caller's T, in dm: addk_vu does not stage it whole, so this function reads it there, on chip\n");
  /* each function's bound loop, s1's and s2's */
  const char *s2 = strstr(c, "static void addk_vu_s2(");
  cr_assert(strstr(c, "phase by phase") < s2 && strstr(s2, "phase by phase"), "%s", c);
  lacks(c, "does nothing here");
  lacks(c, "one core after another");
  /* T's 4096 bytes stay on chip: written once and read once less in DDR */
  cr_assert_eq(ddr.ddr_bytes, 6 * 4096, "%s", ddr.summary);
  cr_assert_eq(chip.ddr_bytes, 4 * 4096, "%s", chip.summary);
  cr_assert_eq(chip.dma_bytes, ddr.dma_bytes);
  has(chip.summary, "(16384 to or from DDR)");
  npg_close(s);
}

/* --dump-ir=lowered of a program is what runs: the program, whose calls
 * keep their statements unlowered (a call is a call: it reads and writes
 * its arrays when it runs), then each function it calls, lowered on its
 * own (its DMAs and waits, its tokens its own). Before, the program's
 * lowering lowered each call's statements in place: a plan no function
 * ran, whose tokens the static check matched by name across calls. */
Test(program_npu, the_lowered_dump_of_a_program_shows_each_function_it_calls) {
  NpgSession *s = open_ok(chain, "#pragma npu schedule(net, net_chip)\n#pragma npu set_scope(T, dm)\n"
                                 "#pragma npu use(s1, addk_vu)\n#pragma npu use(s2, addk_vu)\n");
  const char *d = npg_dump_ir_lowered(s, checked(s, "net_chip"));
  const char *f1 = strstr(d, "\nfunction addk_vu_s1, which call s1 (line 21) runs:\n");
  const char *f2 = strstr(d, "\nfunction addk_vu_s2, which call s2 (line 22) runs:\n");
  cr_assert(f1 && f2 && f1 < f2, "%s", d);
  char *program = strndup(d, (size_t)(f1 - d));
  lacks(program, "dma_start");
  lacks(program, "dma_wait");
  has(program, "call s1 = addk_vu_s1(A, B, T)");
  free(program);
  char *first = strndup(f1, (size_t)(f2 - f1));
  has(first, "dma_start(Z_vm_tok");
  free(first);
  has(f2, "dma_start(Z_vm_tok");
  npg_close(s);
}

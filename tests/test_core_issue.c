/* The order the control unit issues a bound loop's compute to the VU
 * cores in (lower/interleave.c). Each core's queue holds 8 instructions
 * (targets/default.ini), so a compute issued one core's whole stream
 * after another kept the cores running one after another: the
 * MobileNetV2 block's depthwise had its four cores busy 25% of the time
 * each (docs/programs.md). The loop over the cores now goes inside the
 * loops that do not read the core, so the cores are issued to in turn.
 * Every variant here is checked against the kernel as written (in the
 * check's permuted orders of the loops over the cores too); the cycles
 * compared are the simulator's, never a clock's. */
#include <criterion/criterion.h>
#include <string.h>

#include "npugen.h"

/* 32 taps a row, two VU instructions each (the product into a
 * temporary, then the sum): 4 rows a core on four cores, or all 16 rows
 * on one. */
static const char taps[] = "#include <stdint.h>\n"
                           "#define R 16\n"
                           "#define K 32\n"
                           "#define N 64\n"
                           "void taps(const int32_t a[R][N], const int32_t w[K][N], int32_t y[R][N]) {\n"
                           "  for (int r = 0; r < R; r++) {\n"
                           "    for (int j = 0; j < N; j++)\n"
                           "      init: y[r][j] = 0;\n"
                           "    for (int k = 0; k < K; k++)\n"
                           "      for (int jj = 0; jj < N; jj++)\n"
                           "        upd: y[r][jj] += a[r][jj] * w[k][jj];\n"
                           "  }\n"
                           "}\n"
                           "#pragma npu schedule(taps, on_four)\n"
                           "#pragma npu split(r, 4, core, ri)\n"
                           "#pragma npu bind(core, vu)\n"
                           "#pragma npu cache_read(a, vu_vm, core, a_vm)\n"
                           "#pragma npu cache_read(w, vu_vm, core, w_vm)\n"
                           "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                           "#pragma npu vectorize(j)\n"
                           "#pragma npu vectorize(jj)\n"
                           "#pragma npu schedule(taps, on_one)\n"
                           "#pragma npu split(r, 16, core, ri)\n"
                           "#pragma npu bind(core, vu)\n"
                           "#pragma npu cache_read(a, vu_vm, core, a_vm)\n"
                           "#pragma npu cache_read(w, vu_vm, core, w_vm)\n"
                           "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                           "#pragma npu vectorize(j)\n"
                           "#pragma npu vectorize(jj)\n"
                           /* one tap: three instructions a core */
                           "void tap(const int32_t a[4][N], const int32_t w[1][N], int32_t y[4][N]) {\n"
                           "  for (int r = 0; r < 4; r++) {\n"
                           "    for (int j = 0; j < N; j++)\n"
                           "      init: y[r][j] = 0;\n"
                           "    for (int k = 0; k < 1; k++)\n"
                           "      for (int jj = 0; jj < N; jj++)\n"
                           "        upd: y[r][jj] += a[r][jj] * w[k][jj];\n"
                           "  }\n"
                           "}\n"
                           "#pragma npu schedule(tap, short_v)\n"
                           "#pragma npu split(r, 1, core, ri)\n"
                           "#pragma npu bind(core, vu)\n"
                           "#pragma npu cache_read(a, vu_vm, core, a_vm)\n"
                           "#pragma npu cache_read(w, vu_vm, core, w_vm)\n"
                           "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                           "#pragma npu vectorize(j)\n"
                           "#pragma npu vectorize(jj)\n";

static uint64_t checked_cycles(NpgSession *s, const char *variant) {
  int v = npg_variant_index(s, variant);
  cr_assert(v >= 0, "%s", npg_errors(s));
  NpgCheckResult r;
  cr_assert(npg_check(s, v, 1, &r) && r.pass && r.exact, "%s: %s", variant, r.message);
  return r.sim_cycles;
}

/* One session for the three variants (make test's CPU budget: its
 * sessions' setup is most of the cost). */
static NpgSession *open_taps(void) {
  NpgSession *s = npg_open_string("taps.c", taps, strlen(taps));
  cr_assert(s && npg_error_count(s) == 0, "%s", s ? npg_errors(s) : "");
  return s;
}

/* Four cores take less than half the cycles of one: before, the control
 * unit stalled on core 0's full queue until core 0 had nearly finished,
 * and four cores took about as long as one (8,872 cycles against 8,978).
 * The emitted C says why: each tap's two instructions go to each core in
 * turn, and a core's loads are waited for just before its first
 * instruction. */
Test(core_issue, four_cores_run_at_once) {
  NpgSession *s = open_taps();
  uint64_t four = checked_cycles(s, "on_four"), one = checked_cycles(s, "on_one");
  cr_expect(2 * four < one, "four cores %llu cycles, one core %llu", (unsigned long long)four,
            (unsigned long long)one);
  const char *c = npg_emit_source(s, npg_variant_index(s, "on_four"));
  cr_assert(c, "%s", npg_errors(s));
  const char *at = strstr(c, "/* compute, the cores in turn:");
  cr_assert(at, "%s", c);
  at = strstr(at, "for (int ri = 0; ri < 4; ri++) {\n        for (int core = 0; core < 4; core++) {");
  cr_assert(at, "%s", c);
  cr_expect(strstr(at, "if (ri == 0) { /* this core's first instruction here: its waits first */\n"
                       "            npu_dma_wait(w_vm_tok[core]);\n"
                       "            npu_dma_wait(a_vm_tok[core]);\n"
                       "          }\n"
                       "          npu_vu_fill_i32("),
            "%s", c);
  at = strstr(at, "for (int k = 0; k < K; k++) {\n          for (int core = 0; core < 4; core++) {");
  cr_assert(at, "%s", c);
  const char *mul = strstr(at, "npu_vu_mul_i32("), *out = strstr(at, "/* copies out */");
  cr_expect(mul && out && mul < out, "%s", c);

  /* A core's compute of at most twice its queue (16 instructions on the
   * default target; three here) stays one loop over the cores: the
   * control unit waits on a full queue for half of it at most, and
   * issuing core after core lets one core's loads overlap the other
   * cores' compute (tests/test_bind.c's depthwise, 10 instructions a
   * core, stays so too). */
  checked_cycles(s, "short_v");
  c = npg_emit_source(s, npg_variant_index(s, "short_v"));
  cr_assert(c, "%s", npg_errors(s));
  cr_expect(strstr(c, "for (int core = 0; core < 4; core++) { /* compute */"), "%s", c);
  cr_expect(!strstr(c, "the cores in turn"), "%s", c);
  npg_close(s);
}

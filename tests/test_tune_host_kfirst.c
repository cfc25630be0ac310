/* tune --host on a matmul whose K is long: the seed takes k in panels
 * outside the tiles of C (kfirst: split(k), then reorder(ko, i, j, ki)
 * before the tile), so a panel of B is reused by a whole row of register
 * blocks; the tails of M and N are still split off by loop_partition and
 * blocked, and no guard is left. Before, the seed summed all of K inside
 * each 6 x 16 block (k whole up to 1024), re-reading B's columns from L3
 * for every block: 38 GFLOP/s at N = 1000 on one thread, against 58 to 61
 * with panels of 50 to 125 (docs/tune.md, host section). The figures are
 * the bench's; this test checks the structure and the result only, with
 * a budget in trials (--plan writes the seed, nothing is timed). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests/test_cli_util.h"

/* M and N leave tails of 2 rows and 4 columns; K = 256 is two panels of 128. */
static const char *matmul_long_k =
    "#define M 8\n"
    "#define N 20\n"
    "#define K 256\n"
    "void mm(const float A[restrict M][K], const float B[restrict K][N], float C[restrict M][N]) {\n"
    "  for (int i = 0; i < M; i++)\n"
    "    for (int j = 0; j < N; j++) {\n"
    "      init: C[i][j] = 0;\n"
    "      for (int k = 0; k < K; k++)\n"
    "        update: C[i][j] += A[i][k] * B[k][j];\n"
    "    }\n"
    "}\n";

Test(tune_host_kfirst, the_seed_takes_k_in_panels_outside_the_tiles_and_splits_the_tails_off) {
  static char out[1 << 16];
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && cat > $d/mmk.c <<'EOF'\n%sEOF\n"
           "%s tune $d/mmk.c --host --seed 1 --plan $d/p --trials 1 >/dev/null 2>&1 && cat $d/p/trials/*.sched && "
           "%s check $d/mmk.c --schedule $d/p/trials/*.sched 2>&1 | tail -1 && "
           "%s emit $d/mmk.c --schedule $d/p/trials/*.sched --dump-ir 2>&1; rc=$?; rm -rf $d; exit $rc",
           matmul_long_k, npugen(), npugen(), npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "regblock=1 kfirst=1"), "%s", out);
  cr_expect(strstr(out, "#pragma npu decompose_reduction(init, i)\n#pragma npu split(k, 128, ko, ki)\n"
                        "#pragma npu reorder(ko, i, j, ki)\n#pragma npu tile(i, j, 6, 16, io, jo, ii, ji)\n"
                        "#pragma npu loop_partition(io, 1)\n#pragma npu loop_partition(jo, 1)\n"
                        "#pragma npu loop_partition(jo_1, 1)\n#pragma npu reorder(ki, ii, ji)\n"),
            "k's panel loop outermost, then the tile and its tails split off: %s", out);
  /* each tail piece, a copy of ki's nest, is blocked for registers too */
  cr_expect(strstr(out, "#pragma npu reorder(ki_2, ii_2, ji_2)\n#pragma npu unroll(ji_2)\n#pragma npu unroll(ii_2)\n") &&
                strstr(out, "#pragma npu reorder(ki_1, ii_1, ji_1)\n") &&
                strstr(out, "#pragma npu reorder(ki_3, ii_3, ji_3)\n"),
            "the tails' register blocks: %s", out);
  cr_expect(strstr(out, "2 passed, 0 failed"), "the seed computes what the kernel as written does: %s", out);
  const char *tuned = strstr(out, "kernel mmk_mm_tuned(");
  cr_expect(tuned && !strstr(tuned, "  if "), "no guard in the tuned variant's IR: %s", tuned ? tuned : out);
  cr_expect(tuned && strstr(tuned, "\n  for ko in 0 .. < 2 step 1:"), "two panels of k: %s", tuned ? tuned : out);
}

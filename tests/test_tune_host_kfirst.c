/* tune --host on a matmul whose K is long: the seed takes k in panels
 * outside the tiles of C (kfirst: split(k), then reorder(ko, i, j, ki)
 * before the tile), so a panel of B is reused by a whole row of register
 * blocks; the tails of M and N are still split off by loop_partition and
 * blocked, and no guard is left. Before, the seed summed all of K inside
 * each 6 x 16 block (k whole up to 1024), re-reading B's columns from L3
 * for every block: 38 GFLOP/s at N = 1000 on one thread, against 58 to 61
 * with panels of 50 to 125 (docs/tune.md, host section). The figures are
 * the bench's; this test checks the seed's structure and its result only,
 * in process (the seed is what `tune --plan --trials 1` writes; nothing
 * is timed). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "jit/session_ir.h"
#include "npugen.h"
#include "tune/tune.h"

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

static bool count_guard(Stmt *st, int depth, void *ctx) {
  (void)depth;
  *(int *)ctx += st->kind == ST_IF;
  return true;
}

Test(tune_host_kfirst, the_seed_takes_k_in_panels_outside_the_tiles_and_splits_the_tails_off) {
  NpgSession *s = npg_open_string("mmk.c", matmul_long_k, strlen(matmul_long_k));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  TuneSpace sp;
  char why[4096];
  cr_assert(tune_space_build(&sp, s, "mm", true, why, sizeof why), "%s", why);
  cr_assert(sp.nsketch == 1 && !strcmp(sp.sketch[0].name, "host:cc"), "%s", sp.notes);
  const TuneSketch *sk = &sp.sketch[0];
  int seed[TUNE_MAX_KNOBS];
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "#pragma npu schedule(mm, mm_seed)\n");
  for (int i = 0; i < sk->nknobs; i++) seed[i] = sk->knobs[i].seed;
  sk->render(sk, seed, &sb);
  const char *text = sb.data;
  cr_expect(strstr(text, "#pragma npu decompose_reduction(init, i)\n#pragma npu split(k, 128, ko, ki)\n"
                         "#pragma npu reorder(ko, i, j, ki)\n#pragma npu tile(i, j, 6, 16, io, jo, ii, ji)\n"
                         "#pragma npu loop_partition(io, 1)\n#pragma npu loop_partition(jo, 1)\n"
                         "#pragma npu loop_partition(jo_1, 1)\n#pragma npu reorder(ki, ii, ji)\n"),
            "k's panel loop outermost, then the tile and its tails split off: %s", text);
  /* each tail piece, a copy of ki's nest, is blocked for registers too */
  cr_expect(strstr(text, "#pragma npu reorder(ki_2, ii_2, ji_2)\n#pragma npu unroll(ji_2)\n#pragma npu unroll(ii_2)\n") &&
                strstr(text, "#pragma npu reorder(ki_1, ii_1, ji_1)\n") &&
                strstr(text, "#pragma npu reorder(ki_3, ii_3, ji_3)\n"),
            "the tails' register blocks: %s", text);
  cr_assert(npg_add_schedule_string(s, "seed.sched", text, strlen(text)), "%s", npg_errors(s));
  int v = npg_variant_index(s, "mm_seed");
  cr_assert_geq(v, 0, "%s", npg_errors(s));
  NpgCheckResult r;
  cr_expect(npg_check(s, v, 1, &r), "the seed computes what the kernel as written does: %s", r.message);
  const Kernel *k = session_variant_ir(s, v);
  cr_assert_not_null(k);
  int guards = 0;
  ir_walk_stmts(k->body, count_guard, &guards);
  cr_expect_eq(guards, 0, "no guard in the seed's IR");
  /* the update's nest (after the init's) is ko's: two panels of 128 */
  const Stmt *top = k->body && k->body->kind == ST_BLOCK ? k->body->body : k->body;
  const Stmt *ko = top ? top->next : NULL;
  int64_t trips = 0;
  cr_expect(ko && ko->kind == ST_FOR && !strcmp(ko->name, "ko") && ir_trip_count(ko, &trips) && trips == 2,
            "ko outermost in the update's nest, 2 trips: %s", ko && ko->name ? ko->name : "(none)");
  sb_free(&sb);
  tune_space_free(&sp);
  npg_close(s);
}

/* Guards that are not a prefix tail, on the VU: cache_read and cache_write
 * copy the hull of a region whose start is a max of affine pieces (a
 * guard `if (i >= 7)` under a split), and vectorize runs the instruction
 * over the window of iterations the guard keeps, its operands' start and
 * its length computed at run time (schedule/vectorize_window.c). Every
 * variant is JIT-run against its kernel, bit-exact. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "frontend/frontend.h"
#include "jit/check.h"
#include "npugen.h"
#include "tests/test_sched_util.h"

/* kernel k(x, z, y) over n elements with `body` as the loop's statement,
 * split by `tile` onto four VU cores, every array in vector memory */
static NpgSession *guarded(int n, int tile, const char *body) {
  char src[2048];
  snprintf(src, sizeof src,
           "void k(const float x[%d], const float z[%d], float y[%d]) {\n"
           "  for (int i = 0; i < %d; i++)\n"
           "    %s\n"
           "}\n"
           "#pragma npu schedule(k, v)\n"
           "#pragma npu split(i, %d, core, ii)\n"
           "#pragma npu bind(core, vu)\n"
           "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
           "%s"
           "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
           "#pragma npu vectorize(ii)\n",
           n, n, n, n, body, tile, strstr(body, "z[") ? "#pragma npu cache_read(z, vu_vm, core, z_vm)\n" : "");
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  return s;
}

Test(masks, a_guard_that_is_not_a_prefix_is_cached_as_its_hull) {
  /* core 0 reads x[7..255], the others x[256 * core ..]: the region starts
   * at max(7, 256 * core), and the box from 256 * core covers every core's
   * (before, refused as piecewise). y's box is copied in too: the writes
   * leave y[0..6] as they were. */
  NpgSession *s = guarded(1024, 256, "if (i >= 7) y[i] = x[i] * 2.0f;");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "x_vm_tok[core] = npu_dma_1d(1, &x_vm[0], &x[core * 256], 1024);");
  has(c, "y_vm_tok[core] = npu_dma_1d(0, &y_vm[0], &y[core * 256], 1024);");
  npg_close(s);
}

Test(masks, cores_the_guard_keeps_nothing_of_cache_their_own_tile) {
  /* i >= 900 keeps nothing of cores 0..2: the region starts at 900 where
   * it is not empty, but a box from 900 for every core would have all four
   * copy y[900..1023] out at once (refused by bind's proof before); each
   * core's box is its own tile, as without the guard */
  static const char *const bodies[] = {"if (i >= 900) y[i] = x[i] * 2.0f;", "if (i == 513) y[i] = x[i] * 2.0f;"};
  for (size_t b = 0; b < sizeof bodies / sizeof bodies[0]; b++) {
    NpgSession *s = guarded(1024, 256, bodies[b]);
    const char *c = npg_emit_source(s, checked(s, "v"));
    /* for 513, the box is the tile's first 2 elements: core 2's reach 513 */
    has(c, b ? "npu_dma_wait(npu_dma_1d(0, &y[core * 256], &y_vm[0], 8));"
             : "npu_dma_wait(npu_dma_1d(0, &y[core * 256], &y_vm[0], 1024));");
    has(c, b ? "const int ii_bound = npu_clamp(513 - ii_start, 256);" : "const int ii_bound = npu_clamp(900 - ii_start, 256);");
    has(c, b ? "npu_vu_muls_f32(&y_vm[ii_bound], &x_vm[ii_bound], npu_clamp(npu_clamp(514 - ii_start, 256) - ii_bound, 256), "
               "/*s=*/2.0f);"
             : "npu_vu_muls_f32(&y_vm[ii_bound], &x_vm[ii_bound], 256 - ii_bound, /*s=*/2.0f);");
    npg_close(s);
  }
}

Test(masks, vectorize_runs_the_instruction_over_the_window_the_guard_keeps) {
  static const char *const cases[][3] = {
      /* from 7 on: a suffix, core 0's window starts at 7, the others' at 0 */
      {"if (i >= 7) y[i] = x[i] * 2.0f;", "const int ii_bound = npu_clamp(7 - ii_start, 256);",
       "npu_vu_muls_f32(&y_vm[ii_bound], &x_vm[ii_bound], 256 - ii_bound, /*s=*/2.0f);"},
      /* the comparison mirrored and strict */
      {"if (700 < i) y[i] = x[i] + z[i];", "const int ii_bound = npu_clamp(701 - ii_start, 256);",
       "npu_vu_add_f32(&y_vm[ii_bound], &x_vm[ii_bound], &z_vm[ii_bound], 256 - ii_bound);"},
      /* a band: both ends, clamped at 0 where it keeps nothing */
      {"if (i >= 300 && i <= 776) y[i] = x[i] * 2.0f;", "const int ii_bound = npu_clamp(300 - ii_start, 256);",
       "npu_vu_muls_f32(&y_vm[ii_bound], &x_vm[ii_bound], npu_clamp(npu_clamp(777 - ii_start, 256) - ii_bound, 256), "
       "/*s=*/2.0f);"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    NpgSession *s = guarded(1024, 256, cases[c][0]);
    const char *text = npg_emit_source(s, checked(s, "v"));
    has(text, cases[c][1]);
    has(text, cases[c][2]);
    lacks(text, "omp simd");
    npg_close(s);
  }
}

Test(masks, a_window_inside_a_split_tail_is_one_window) {
  /* 1000 = 3 * 256 + 232: the split's guard `core * 256 + ii < 1000`
   * around the kernel's band cuts the window at 1000 */
  NpgSession *s = guarded(1000, 256, "if (i >= 300 && i < 999) y[i] = x[i] + z[i];");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "const int ii_bound = npu_clamp(300 - core * 256, 256);\n");
  has(c,
      "npu_vu_add_f32(&y_vm[ii_bound], &x_vm[ii_bound], &z_vm[ii_bound], npu_clamp(npu_clamp(999 - core * 256, "
      "256) - ii_bound, 256));");
  npg_close(s);
  /* the kernel's bound past the array's end: the tail's end is the window's */
  s = guarded(1000, 256, "if (i >= 300) y[i] = x[i] + z[i];");
  has(npg_emit_source(s, checked(s, "v")), "npu_clamp(npu_clamp(1000 - core * 256, 256) - ii_bound, 256));");
  npg_close(s);
}

Test(masks, a_guard_that_keeps_no_window_stays_scalar_and_says_so) {
  /* two elements of three: neither a window nor an index mask the lane
   * instructions take (one remainder each); exact as scalar code */
  NpgSession *s = guarded(1024, 256, "if (i % 3 != 0) y[i] = x[i] * 2.0f;");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "/* vectorize(ii) stays a hint: no VU instruction computes this nest (the guard '(core * 256 + ii) % 3 != 0' "
         "(line 3) on loop ii is neither a window a VU instruction takes (i >= lo, i < hi, i == k or their &&, on a "
         "signed int counter with coefficient 1) nor an index mask (i % m == r, (i & k) == r with k + 1 a power of "
         "two, or i odd: i % 2 != 0, i & 1); the loop stays scalar and exact (a mask that keeps several remainders, "
         "i % 3 != 0, can be an array of bytes: if (m[i]))) */");
  lacks(c, "npu_vu_");
  npg_close(s);
}

/* ---- byte masks: npu_vu_select_u8_f32, npu_vu_select_u8s_f32 ---- */

/* k(m, x, y) with a uint8_t mask m and `body` as the loop's statement, on
 * two VU cores with every array in vector memory */
static NpgSession *byte_masked(const char *body) {
  char src[1024];
  snprintf(src, sizeof src,
           "#include <stdint.h>\n"
           "void k(const uint8_t m[64], const float x[64], float y[64]) {\n"
           "  for (int i = 0; i < 64; i++)\n"
           "    %s\n"
           "}\n"
           "#pragma npu schedule(k, v)\n"
           "#pragma npu split(i, 32, core, ii)\n"
           "#pragma npu bind(core, vu)\n"
           "#pragma npu cache_read(m, vu_vm, core, m_vm)\n"
           "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
           "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
           "#pragma npu vectorize(ii)\n",
           body);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  return s;
}

Test(masks, a_byte_mask_selects_on_the_vu) {
  static const char *const cases[][2] = {
      /* a masked select: the else is the scalar */
      {"y[i] = m[i] ? x[i] : 0.0f;", "npu_vu_select_u8s_f32(&y_vm[0], &m_vm[0], &x_vm[0], /*n=*/32, /*e=*/0.0f);"},
      /* an if and an else that store one element */
      {"if (m[i]) y[i] = x[i]; else y[i] = -1.0f;", "npu_vu_select_u8s_f32(&y_vm[0], &m_vm[0], &x_vm[0], /*n=*/32, /*e=*/-1.0f);"},
      /* a masked store: y kept where the mask is 0 (and copied in) */
      {"if (m[i]) y[i] = x[i];", "npu_vu_select_u8_f32(&y_vm[0], &m_vm[0], &x_vm[0], &y_vm[0], /*n=*/32);"},
      /* the test written out: not 0, or above 0 (unsigned) */
      {"y[i] = m[i] != 0 ? x[i] : 0.0f;", "npu_vu_select_u8s_f32(&y_vm[0], &m_vm[0], &x_vm[0], /*n=*/32, /*e=*/0.0f);"},
      {"if (0 < m[i]) y[i] = x[i];", "npu_vu_select_u8_f32(&y_vm[0], &m_vm[0], &x_vm[0], &y_vm[0], /*n=*/32);"},
      /* the else from the array itself, in place */
      {"y[i] = m[i] ? x[i] : y[i];", "npu_vu_select_u8_f32(&y_vm[0], &m_vm[0], &x_vm[0], &y_vm[0], /*n=*/32);"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    NpgSession *s = byte_masked(cases[c][0]);
    const char *text = npg_emit_source(s, checked(s, "v"));
    has(text, cases[c][1]);
    npg_close(s);
  }
}

Test(masks, look_alikes_of_a_byte_mask_stay_scalar) {
  /* a mask compared with 1, not with 0; below 0 (never, for a uint8_t).
   * (`m[i] ? x[i] + 1.0f : 0.0f`, another value selected, is an add and a
   * select now: isel::a_select_of_a_sum_is_an_add_then_a_select) */
  static const char *const bodies[] = {
      "y[i] = m[i] == 1 ? x[i] : 0.0f;",
      "y[i] = 0 > m[i] ? x[i] : 0.0f;",
  };
  for (size_t c = 0; c < sizeof bodies / sizeof bodies[0]; c++) {
    NpgSession *s = byte_masked(bodies[c]);
    const char *text = npg_emit_source(s, checked(s, "v"));
    lacks(text, "npu_vu_select_u8_f32(&");
    lacks(text, "npu_vu_select_u8s_f32(&");
    npg_close(s);
  }
}

Test(masks, windows_with_lanes_and_on_the_rows_of_a_2d_instruction) {
  /* vectorize(ii, 16): a window per vector of 16, its start the vector's */
  NpgSession *s = open_ok("void k(const float x[1000], float y[1000]) {\n"
                          "  for (int i = 0; i < 1000; i++)\n"
                          "    if (i >= 7 && i < 990) y[i] = x[i] * 2.0f;\n"
                          "}\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu split(i, 256, core, ii)\n"
                          "#pragma npu bind(core, vu)\n"
                          "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                          "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                          "#pragma npu vectorize(ii, 16)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "const int ii_v_bound = npu_clamp(7 - (core * 256 + ii * 16), 16);\n");
  has(c,
      "npu_vu_muls_f32(&y_vm[ii * 16 + ii_v_bound], &x_vm[ii * 16 + ii_v_bound], npu_clamp(npu_clamp(990 - "
      "(core * 256 + ii * 16), 16) - ii_v_bound, 16), /*s=*/2.0f);");
  npg_close(s);
  /* a guard on the row inside the column loop: the row op from the first
   * row kept, each operand's row start moved (m's too) */
  s = open_ok("void k(const float X[64][16], const float m[64], float Y[64][16]) {\n"
              "  for (int r = 0; r < 64; r++)\n"
              "    for (int c = 0; c < 16; c++)\n"
              "      if (r >= 5) Y[r][c] = X[r][c] - m[r];\n"
              "}\n",
              "#pragma npu schedule(k, v)\n"
              "#pragma npu split(r, 16, core, ri)\n"
              "#pragma npu bind(core, vu)\n"
              "#pragma npu cache_read(X, vu_vm, core, X_vm)\n"
              "#pragma npu cache_read(m, vu_vm, core, m_vm)\n"
              "#pragma npu cache_write(Y, vu_vm, core, Y_vm)\n"
              "#pragma npu vectorize(ri)\n");
  c = npg_emit_source(s, checked(s, "v"));
  has(c, "const int ri_bound = npu_clamp(5 - core * 16, 16);\n");
  has(c, "npu_vu_sub_rows_f32(&Y_vm[ri_bound][0], &X_vm[ri_bound][0], &m_vm[ri_bound], 16 - ri_bound, /*cols=*/16, /*ldd=*/16, /*lda=*/16);");
  npg_close(s);
}

/* ---- index masks: i % m == r and (i & k) == r on the lane counter ---- */

Test(masks, an_index_mask_runs_on_the_vu) {
  static const char *const cases[][3] = {
      /* a scaled masked store: the odd elements of y are neither read nor
       * written (y's cache is the tile's first 255 elements) */
      {"if (i % 2 == 0) y[i] = 2.0f * x[i];", "npu_vu_muls_lane_f32(&y_vm[0], &x_vm[0], /*n=*/256, core * 256, /*m=*/2, /*r=*/0, /*c=*/2.0f);",
       NULL},
      {"if (i % 2 == 0) y[i] = x[i];", "npu_vu_store_lane_f32(&y_vm[0], &x_vm[0], /*n=*/256, core * 256, /*m=*/2, /*r=*/0);", NULL},
      /* a select with the scalar elsewhere */
      {"y[i] = i % 4 == 1 ? x[i] : 0.0f;", "npu_vu_select_lanes_f32(&y_vm[0], &x_vm[0], /*n=*/256, core * 256, /*m=*/4, /*r=*/1, /*e=*/0.0f);",
       NULL},
      /* & as %: only where the index is not negative, tested at run time */
      {"y[i] = (i & 3) == 1 ? x[i] : 0.0f;", "npu_vu_select_lanes_f32(&y_vm[0], &x_vm[0], /*n=*/256, core * 256, /*m=*/4, /*r=*/1, /*e=*/0.0f);",
       "if ((core * 256) >= 0) {"},
      /* odd, as C writes it: i % 2 == 1 where i is not negative */
      {"if (i % 2) y[i] = x[i];", "npu_vu_store_lane_f32(&y_vm[0], &x_vm[0], /*n=*/256, core * 256, /*m=*/2, /*r=*/1);",
       "if ((core * 256) >= 0) {"},
      {"y[i] = (i & 1) != 0 ? x[i] : 0.0f;",
       "npu_vu_select_lanes_f32(&y_vm[0], &x_vm[0], /*n=*/256, core * 256, /*m=*/2, /*r=*/1, /*e=*/0.0f);", "if ((core * 256) >= 0) {"},
      /* odd ? x : y is even ? y : x, for every index */
      {"y[i] = (i % 2) ? 0.0f : x[i];", "npu_vu_select_lanes_f32(&y_vm[0], &x_vm[0], /*n=*/256, core * 256, /*m=*/2, /*r=*/0, /*e=*/0.0f);",
       NULL},
      /* the kernel's index is not the loop's counter: its start moves */
      {"if (((i - 8) & 1) == 0) y[i] = x[i];", "npu_vu_store_lane_f32(&y_vm[0], &x_vm[0], /*n=*/256, core * 256 - 8, /*m=*/2, /*r=*/0);",
       "if ((core * 256 - 8) >= 0) {"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    NpgSession *s = guarded(1024, 256, cases[c][0]);
    const char *text = npg_emit_source(s, checked(s, "v"));
    has(text, cases[c][1]);
    if (cases[c][2]) has(text, cases[c][2]);
    else lacks(text, ">= 0) {");
    lacks(text, "stays a hint");
    npg_close(s);
  }
}

Test(masks, an_index_mask_in_a_split_tail_unsplit_and_by_vectors) {
  /* 1000 = 3 * 256 + 232: the split's tail guard around the mask sizes the call */
  NpgSession *s = guarded(1000, 256, "if (i % 2 == 0) y[i] = 2.0f * x[i];");
  has(npg_emit_source(s, checked(s, "v")),
      "npu_vu_muls_lane_f32(&y_vm[0], &x_vm[0], npu_clamp(1000 - core * 256, 256), core * 256, /*m=*/2, /*r=*/0, /*c=*/2.0f);");
  npg_close(s);
  /* the loop as written, cached at the root: the start is 0 */
  s = open_ok("void k(const float x[1024], float y[1024]) {\n"
              "  for (int i = 0; i < 1024; i++)\n"
              "    if (i % 2 == 0) y[i] = x[i];\n"
              "}\n",
              "#pragma npu schedule(k, v)\n"
              "#pragma npu cache_read(x, vu_vm, root, x_vm)\n"
              "#pragma npu cache_write(y, vu_vm, root, y_vm)\n"
              "#pragma npu vectorize(i)\n");
  has(npg_emit_source(s, checked(s, "v")), "npu_vu_store_lane_f32(&y_vm[0], &x_vm[0], /*n=*/1024, /*s=*/0, /*m=*/2, /*r=*/0);");
  npg_close(s);
  /* vectorize(ii, 16): each vector's start, core * 256 + ii * 16 */
  s = open_ok("void k(const float x[1024], float y[1024]) {\n"
              "  for (int i = 0; i < 1024; i++)\n"
              "    y[i] = i % 3 == 2 ? x[i] : 0.0f;\n"
              "}\n",
              "#pragma npu schedule(k, v)\n"
              "#pragma npu split(i, 256, core, ii)\n"
              "#pragma npu bind(core, vu)\n"
              "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
              "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
              "#pragma npu vectorize(ii, 16)\n");
  has(npg_emit_source(s, checked(s, "v")),
      "npu_vu_select_lanes_f32(&y_vm[ii * 16], &x_vm[ii * 16], /*n=*/16, core * 256 + ii * 16, /*m=*/3, /*r=*/2, /*e=*/0.0f);");
  npg_close(s);
}

Test(masks, an_index_mask_whose_cache_starts_past_the_tile_starts_there) {
  /* i % 4 == 1 touches elements 1, 5, ... of each tile: y's and x's
   * caches start at the tile's element 1, and a call from the tile's
   * start would point before them: it starts at lane 1, and so does its
   * index */
  NpgSession *s = guarded(1024, 256, "if (i % 4 == 1) y[i] = x[i];");
  has(npg_emit_source(s, checked(s, "v")), "npu_vu_store_lane_f32(&y_vm[0], &x_vm[0], /*n=*/255, core * 256 + 1, /*m=*/4, /*r=*/1);");
  npg_close(s);
  /* a select that keeps y's own value elsewhere: the lane select takes a
   * scalar for the other lanes, and y's element is no scalar */
  s = guarded(1024, 256, "y[i] = i % 4 == 1 ? x[i] : y[i];");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "stays a hint: no VU instruction computes this nest (nearest npu_vu_select_lanes_f32: a scalar operand of "
         "the intrinsic must not change inside the nest: 'y_vm[ii]' in s1 (line 3)) */");
  lacks(c, "npu_vu_select_lanes_f32(&");
  npg_close(s);
}

/* ---- ?: on a suffix of the loop: npu_vu_select_from_f32 ---- */

Test(masks, a_select_on_a_suffix_runs_on_the_vu) {
  static const char *const cases[][2] = {
      {"y[i] = i >= 7 ? x[i] : 0.0f;", "npu_vu_select_from_f32(&y_vm[0], &x_vm[0], /*n=*/256, core * 256, /*lo=*/7, /*e=*/0.0f);"},
      {"y[i] = 300 <= i ? x[i] : -1.0f;", "npu_vu_select_from_f32(&y_vm[0], &x_vm[0], /*n=*/256, core * 256, /*lo=*/300, /*e=*/-1.0f);"},
      /* on ints, i > 6 is i >= 7 */
      {"y[i] = i > 6 ? x[i] : 0.0f;", "npu_vu_select_from_f32(&y_vm[0], &x_vm[0], /*n=*/256, core * 256, /*lo=*/7, /*e=*/0.0f);"},
      {"y[i] = 6 < i ? x[i] : 0.0f;", "npu_vu_select_from_f32(&y_vm[0], &x_vm[0], /*n=*/256, core * 256, /*lo=*/7, /*e=*/0.0f);"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    NpgSession *s = guarded(1024, 256, cases[c][0]);
    has(npg_emit_source(s, checked(s, "v")), cases[c][1]);
    npg_close(s);
  }
}

/* ---- compares of two arrays, leaky ReLUs, compares into a mask ---- */

Test(masks, data_dependent_compares_run_on_the_vu) {
  static const char *const cases[][2] = {
      /* a masked store under x < z: y kept (and copied in) elsewhere */
      {"if (x[i] < z[i]) y[i] = x[i];", "npu_vu_select_lt_f32(&y_vm[0], &x_vm[0], &z_vm[0], &x_vm[0], &y_vm[0], /*n=*/256);"},
      /* >= mirrored: z <= x */
      {"y[i] = x[i] >= z[i] ? z[i] : x[i];",
       "npu_vu_select_le_f32(&y_vm[0], &z_vm[0], &x_vm[0], &z_vm[0], &x_vm[0], /*n=*/256);"},
      {"y[i] = x[i] == z[i] ? x[i] : z[i];",
       "npu_vu_select_eq_f32(&y_vm[0], &x_vm[0], &z_vm[0], &x_vm[0], &z_vm[0], /*n=*/256);"},
      /* != is == with the branches swapped, for a NaN too */
      {"y[i] = x[i] != z[i] ? x[i] : z[i];",
       "npu_vu_select_eq_f32(&y_vm[0], &x_vm[0], &z_vm[0], &z_vm[0], &x_vm[0], /*n=*/256);"},
      {"if (x[i] != z[i]) y[i] = z[i];",
       "npu_vu_select_eq_f32(&y_vm[0], &x_vm[0], &z_vm[0], &y_vm[0], &z_vm[0], /*n=*/256);"},
      /* leaky ReLUs, with the int 0 C converts and with 0.0f */
      {"y[i] = x[i] >= 0 ? x[i] : 0.1f * x[i];",
       "npu_vu_select_ge_muls_f32(&y_vm[0], &x_vm[0], &x_vm[0], &x_vm[0], /*n=*/256, /*t=*/0, /*c=*/0.1f);"},
      {"y[i] = x[i] > 0.0f ? x[i] : x[i] * 0.01f;",
       "npu_vu_select_gt_muls_f32(&y_vm[0], &x_vm[0], &x_vm[0], &x_vm[0], /*n=*/256, /*t=*/0.0f, /*c=*/0.01f);"},
      /* the scaled branch first: another instruction (a NaN tells < from
       * a negated >=) */
      {"y[i] = x[i] < 0.0f ? 0.01f * x[i] : x[i];",
       "npu_vu_select_lt_muls_f32(&y_vm[0], &x_vm[0], &x_vm[0], &x_vm[0], /*n=*/256, /*t=*/0.0f, /*c=*/0.01f);"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    NpgSession *s = guarded(1024, 256, cases[c][0]);
    has(npg_emit_source(s, checked(s, "v")), cases[c][1]);
    npg_close(s);
  }
}

Test(masks, compares_into_a_byte_mask_and_an_index_mask_run_on_the_vu) {
  static const char *const cases[][2] = {
      {"m[i] = x[i] < z[i];", "npu_vu_cmplt_f32(&m_vm[0], &x_vm[0], &z_vm[0], /*n=*/256);"},
      {"m[i] = z[i] >= x[i];", "npu_vu_cmple_f32(&m_vm[0], &x_vm[0], &z_vm[0], /*n=*/256);"},
      {"m[i] = x[i] == z[i];", "npu_vu_cmpeq_f32(&m_vm[0], &x_vm[0], &z_vm[0], /*n=*/256);"},
      {"m[i] = i % 3 == 0;", "npu_vu_lane_mask_u8(&m_vm[0], /*n=*/256, core * 256, /*m=*/3, /*r=*/0);"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char src[512];
    snprintf(src, sizeof src,
             "#include <stdint.h>\n"
             "void k(const float x[1024], const float z[1024], uint8_t m[1024]) {\n"
             "  for (int i = 0; i < 1024; i++)\n"
             "    %s\n"
             "}\n",
             cases[c][0]);
    bool loads = strstr(cases[c][0], "x[") != NULL;
    NpgSession *s = open_ok(src, loads ? "#pragma npu schedule(k, v)\n"
                                         "#pragma npu split(i, 256, core, ii)\n"
                                         "#pragma npu bind(core, vu)\n"
                                         "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                                         "#pragma npu cache_read(z, vu_vm, core, z_vm)\n"
                                         "#pragma npu cache_write(m, vu_vm, core, m_vm)\n"
                                         "#pragma npu vectorize(ii)\n"
                                       : "#pragma npu schedule(k, v)\n"
                                         "#pragma npu split(i, 256, core, ii)\n"
                                         "#pragma npu bind(core, vu)\n"
                                         "#pragma npu cache_write(m, vu_vm, core, m_vm)\n"
                                         "#pragma npu vectorize(ii)\n");
    has(npg_emit_source(s, checked(s, "v")), cases[c][1]);
    npg_close(s);
  }
}

/* ---- bool masks: <stdbool.h>'s bool and _Bool, one byte of 0 or 1 ---- */

Test(masks, a_bool_mask_is_a_byte_mask) {
  static const char *const cases[][3] = {
      /* the mask passed as the instruction's bytes: C calls _Bool * and
       * uint8_t * incompatible (gcc -Werror refused the call without it) */
      {"bool", "y[i] = m[i] ? x[i] : 0.0f;", "npu_vu_select_u8s_f32(&y_vm[0], (const uint8_t *)&m_vm[0], &x_vm[0], /*n=*/32, /*e=*/0.0f);"},
      {"_Bool", "if (m[i]) y[i] = x[i];",
       "npu_vu_select_u8_f32(&y_vm[0], (const uint8_t *)&m_vm[0], &x_vm[0], &y_vm[0], /*n=*/32);"},
      /* == true is the bool itself (0 or 1); true prints as 1 (the emitted
       * C includes no <stdbool.h>) */
      {"bool", "y[i] = m[i] == true ? x[i] : 0.0f;",
       "npu_vu_select_u8s_f32(&y_vm[0], (const uint8_t *)&m_vm[0], &x_vm[0], /*n=*/32, /*e=*/0.0f);"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char src[512];
    snprintf(src, sizeof src,
             "#include <stdbool.h>\n"
             "void k(const %s m[64], const float x[64], float y[64]) {\n"
             "  for (int i = 0; i < 64; i++)\n"
             "    %s\n"
             "}\n",
             cases[c][0], cases[c][1]);
    NpgSession *s = open_ok(src, "#pragma npu schedule(k, v)\n"
                                 "#pragma npu split(i, 32, core, ii)\n"
                                 "#pragma npu bind(core, vu)\n"
                                 "#pragma npu cache_read(m, vu_vm, core, m_vm)\n"
                                 "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                                 "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                                 "#pragma npu vectorize(ii)\n");
    const char *text = npg_emit_source(s, checked(s, "v"));
    has(text, "void v(const _Bool m[64], const float x[64], float y[64])");
    has(text, cases[c][2]);
    npg_close(s);
  }
}

/* C defines only 0 and 1 in a bool's byte: the check draws nothing else,
 * for an array and for a scalar (at its maximum, 1, in the scalar-ends
 * run); a constant converted to bool is whether it is not 0 */
Test(masks, the_check_draws_bools_of_0_and_1) {
  const char *src = "#include <stdbool.h>\n"
                    "void k(const bool m[256], bool f, int y[256]) {\n"
                    "  for (int i = 0; i < 256; i++) y[i] = m[i] + f + (bool)2 + (_Bool)0.5f + (_Bool)(y[i] & 6);\n"
                    "}\n";
  DiagList d;
  diag_init(&d);
  Module *mod = frontend_parse("k.c", src, strlen(src), &d);
  cr_assert_not_null(mod);
  void **a = check_make_inputs(mod->kernels, mod->check_specs, 1, false);
  void **e = check_make_inputs(mod->kernels, mod->check_specs, 1, true);
  const unsigned char *m = a[0];
  int ones = 0;
  for (int i = 0; i < 256; i++) {
    cr_assert(m[i] <= 1, "m[%d] = %d", i, m[i]);
    ones += m[i];
  }
  cr_assert(ones > 64 && ones < 192, "%d ones", ones);
  cr_assert_leq(*(unsigned char *)a[1], 1);
  cr_assert_eq(*(unsigned char *)e[1], 1);
  check_free_args(a, mod->kernels->nparams);
  check_free_args(e, mod->kernels->nparams);
  module_free(mod);
  diag_free(&d);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  checked(s, "k");
  npg_close(s);
}

/* An index mask after a second split (vectorize(ii, 16)): the caches start
 * at the first element the nest touches (1), so each call's operands
 * would start one lane before its tile, at run time (&x_vm[ii * 16 - 1],
 * before x_vm at ii = 0); the call starts one lane later instead. */
Test(masks, an_index_mask_with_a_run_time_start_before_its_cache_starts_later) {
  NpgSession *s = open_ok("void odd4(const float x[4096], float y[4096]) {\n"
                          "  for (int i = 0; i < 4096; i++)\n"
                          "    if (i % 4 == 1) y[i] = x[i];\n"
                          "}\n",
                          "#pragma npu schedule(odd4, v)\n#pragma npu split(i, 1024, core, ii)\n"
                          "#pragma npu bind(core, vu)\n#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                          "#pragma npu cache_write(y, vu_vm, core, y_vm)\n#pragma npu vectorize(ii, 16)\n");
  has(npg_emit_source(s, checked(s, "v")),
      "npu_vu_store_lane_f32(&y_vm[ii * 16], &x_vm[ii * 16], /*n=*/15, core * 1024 + ii * 16 + 1, /*m=*/4, /*r=*/1);");
  npg_close(s);
}

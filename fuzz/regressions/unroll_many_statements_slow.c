/* sched_random finding (performance, open): the legality proof still grows
 * steeply with the number of statements. unroll(r) below makes 8 copies of
 * the ~50-statement row pass of an 8x8 DCT (style_manylocals.c):
 *   time ./build/npugen check fuzz/regressions/unroll_many_statements_slow.c
 *     -> 15 s CPU (26 s wall on a loaded 2-CPU machine) after af9822c;
 *        loop_partition(r, 2, 6) (3 copies) takes about 2 s.
 * The time is in conflict_deltas (schedule/legality.c): applying the
 * before/after schedules to dep_conflicts, a union map with a piece per
 * conflicting statement pair (the local scalars d0..z5 are written and
 * read by every copy), in isl_union_map_apply_domain / add_map. The random
 * tester keeps its unrolls small for this reason (SgOptions) and leaves
 * style_manylocals.c out of the Criterion test.
 * Expected: well under a second, like split(r, 4, ro, ri) on the same
 * kernel (about 0.7 s). */
#include <stdint.h>

#define NB 12

void fdct8x8_blocks(const int16_t in[NB][8][8], int32_t out[NB][8][8]) {
  int32_t ws[8][8];
  int32_t d0, d1, d2, d3, d4, d5, d6, d7;
  int32_t tmp0, tmp1, tmp2, tmp3, tmp4, tmp5, tmp6, tmp7;
  int32_t tmp10, tmp11, tmp12, tmp13;
  int32_t z1, z2, z3, z4, z5;
  int b, r, c;

  for (b = 0; b < NB; b++) {
    for (r = 0; r < 8; r++) {
      d0 = in[b][r][0]; d1 = in[b][r][1]; d2 = in[b][r][2]; d3 = in[b][r][3];
      d4 = in[b][r][4]; d5 = in[b][r][5]; d6 = in[b][r][6]; d7 = in[b][r][7];
      tmp0 = d0 + d7; tmp7 = d0 - d7;
      tmp1 = d1 + d6; tmp6 = d1 - d6;
      tmp2 = d2 + d5; tmp5 = d2 - d5;
      tmp3 = d3 + d4; tmp4 = d3 - d4;
      tmp10 = tmp0 + tmp3; tmp13 = tmp0 - tmp3;
      tmp11 = tmp1 + tmp2; tmp12 = tmp1 - tmp2;
      ws[r][0] = (tmp10 + tmp11) * 4;
      ws[r][4] = (tmp10 - tmp11) * 4;
      z1 = (tmp12 + tmp13) * 4433;
      ws[r][2] = (z1 + tmp13 * 6270 + 1024) >> 11;
      ws[r][6] = (z1 - tmp12 * 15137 + 1024) >> 11;
      z1 = tmp4 + tmp7; z2 = tmp5 + tmp6; z3 = tmp4 + tmp6; z4 = tmp5 + tmp7;
      z5 = (z3 + z4) * 9633;
      tmp4 = tmp4 * 2446; tmp5 = tmp5 * 16819; tmp6 = tmp6 * 25172; tmp7 = tmp7 * 12299;
      z1 = z1 * -7373; z2 = z2 * -20995; z3 = z3 * -16069; z4 = z4 * -3196;
      z3 += z5; z4 += z5;
      ws[r][7] = (tmp4 + z1 + z3 + 1024) >> 11;
      ws[r][5] = (tmp5 + z2 + z4 + 1024) >> 11;
      ws[r][3] = (tmp6 + z2 + z3 + 1024) >> 11;
      ws[r][1] = (tmp7 + z1 + z4 + 1024) >> 11;
    }
    for (c = 0; c < 8; c++) {
      int32_t e0 = ws[0][c], e1 = ws[1][c], e2 = ws[2][c], e3 = ws[3][c];
      int32_t e4 = ws[4][c], e5 = ws[5][c], e6 = ws[6][c], e7 = ws[7][c];
      int32_t s07 = e0 + e7, t07 = e0 - e7, s16 = e1 + e6, t16 = e1 - e6;
      int32_t s25 = e2 + e5, t25 = e2 - e5, s34 = e3 + e4, t34 = e3 - e4;
      int32_t u10 = s07 + s34, u13 = s07 - s34, u11 = s16 + s25, u12 = s16 - s25;
      int32_t w1 = (u12 + u13) * 4433;
      int32_t q1 = t34 + t07, q2 = t25 + t16, q3 = t34 + t16, q4 = t25 + t07;
      int32_t q5 = (q3 + q4) * 9633;
      int32_t p4 = t34 * 2446, p5 = t25 * 16819, p6 = t16 * 25172, p7 = t07 * 12299;
      q1 = q1 * -7373; q2 = q2 * -20995; q3 = q3 * -16069 + q5; q4 = q4 * -3196 + q5;
      out[b][0][c] = (u10 + u11 + 2) >> 2;
      out[b][4][c] = (u10 - u11 + 2) >> 2;
      out[b][2][c] = (w1 + u13 * 6270 + 8192) >> 14;
      out[b][6][c] = (w1 - u12 * 15137 + 8192) >> 14;
      out[b][7][c] = (p4 + q1 + q3 + 8192) >> 14;
      out[b][5][c] = (p5 + q2 + q4 + 8192) >> 14;
      out[b][3][c] = (p6 + q2 + q3 + 8192) >> 14;
      out[b][1][c] = (p7 + q1 + q4 + 8192) >> 14;
    }
  }
}

#pragma npu schedule(fdct8x8_blocks, v)
#pragma npu unroll(r)

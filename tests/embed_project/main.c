/* A user's program: every header of the three kernel files in one file,
 * with names of its own that the kernel files use too (C, M, N). */
#include <stdint.h>
#include <stdio.h>

#include "mm.h"
#include "mm_tiled.h"
#include "pool.h"
#include "pool_split.h"
#include "rows.h"
#include "rows_split.h"

#define C 3
enum { M = 2, N = 5 };

int cxx_rows(void); /* use.cc: a C++ file calls rows_split */

static float in[POOL_C][8][8], pooled[2][POOL_SPLIT_C][4][4];
static float A[MM_M][MM_K], B[MM_K][MM_N], prod[2][MM_TILED_M][MM_TILED_N];

static int check_pool(void) {
  for (int c = 0; c < POOL_C; c++)
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < 8; j++) in[c][i][j] = (float)((c * 7 + i * 3 + j) % 11);
  pool(in, pooled[0]);
  pool_split(in, pooled[1]);
  int bad = 0;
  for (int c = 0; c < POOL_C; c++)
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) {
        float want = (in[c][2 * i][2 * j] + in[c][2 * i][2 * j + 1] + in[c][2 * i + 1][2 * j] + in[c][2 * i + 1][2 * j + 1]) / 4;
        bad += pooled[0][c][i][j] != want || pooled[1][c][i][j] != want;
      }
  return bad;
}

static int check_mm(void) {
  for (int i = 0; i < MM_M; i++)
    for (int k = 0; k < MM_K; k++) A[i][k] = (float)(i - k), B[k][i] = (float)(i * k % 5);
  mm(A, B, prod[0]);
  mm_tiled(A, B, prod[1]);
  int bad = 0;
  for (int i = 0; i < MM_M; i++)
    for (int j = 0; j < MM_N; j++) {
      float want = 0;
      for (int k = 0; k < MM_K; k++) want += A[i][k] * B[k][j];
      bad += prod[0][i][j] != want || prod[1][i][j] != want;
    }
  return bad;
}

static int check_rows(void) {
  int32_t x[N][ROWS_K], y[2][N][ROWS_SPLIT_K];
  for (int i = 0; i < N; i++)
    for (int k = 0; k < ROWS_K; k++) x[i][k] = i * C - k * M;
  rows(N, x, y[0]);
  rows_split(N, x, y[1]);
  int bad = 0;
  for (int i = 0; i < N; i++)
    for (int k = 0; k < ROWS_K; k++) bad += y[0][i][k] != 2 * x[i][k] + k || y[1][i][k] != 2 * x[i][k] + k;
  return bad;
}

int main(void) {
  int bad_pool = check_pool(), bad_mm = check_mm(), bad_rows = check_rows(), cxx = cxx_rows();
  printf("pool: %d wrong, mm: %d wrong, rows: %d wrong, C++ rows_split: %d (want 7)\n", bad_pool, bad_mm, bad_rows, cxx);
  return bad_pool || bad_mm || bad_rows || cxx != 7;
}

/* Stencils with scheduled variants: a two-array 5-point Jacobi sweep over
 * time, and an in-place 1-d Gauss-Seidel smoother whose time loop cannot
 * move inside (see the refusal in tests/test_sched.c). */
#define T 8
#define N 64

void jacobi2d(float A[N][N], float B[N][N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        sweep: B[i][j] = 0.2f * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        copy: A[i][j] = B[i][j];
  }
}

void smooth(int A[N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      A[i] = (A[i - 1] + 2 * A[i] + A[i + 1]) / 4;
}

/* Sweep rows in strips of 8: 62 rows = 7 * 8 + 6, so the last strip keeps
 * its guard and loop_partition gives the 7 full strips a guard-free loop.
 * Columns are vectorized, copy-back rows run in parallel. (Merging the two
 * row loops is refused: copy overwrites A[i] that sweep reads at row i+1.) */
#pragma npu schedule(jacobi2d, jacobi2d_strips)
#pragma npu split(i_1, 8, io, ii)
#pragma npu loop_partition(io, 7)
#pragma npu vectorize(j_1)
#pragma npu parallel(i_2)
#pragma npu vectorize(j_2)

/* The smoother's sweep unrolled by 4 (62 = 15 * 4 + 2: a remainder loop). */
#pragma npu schedule(smooth, smooth_unrolled)
#pragma npu unroll(i, 4)

/* random-schedule finding: stage staged `i - 1`, which the statement used
 * only inside array indices; the indices became data (r1_a[i - 1]) and
 * the variant failed the static bounds check.
 * Status: fixed (schedule/stage.c: an occurrence inside an index is not
 * staged; with no other one the step is refused).
 * Expect: refused only inside an array index, which must stay an expression of the loop counters
 */
/* PolyBench/C 3.2 convolution-2d: 3x3 filter with nine named coefficient locals, interior only (float). */
#define NI 50
#define NJ 47

void kernel_conv2d(const float A[NI][NJ], float B[NI][NJ]) {
  int i, j;
  float c11, c12, c13, c21, c22, c23, c31, c32, c33;

  c11 = +0.2f;  c21 = +0.5f;  c31 = -0.8f;
  c12 = -0.3f;  c22 = +0.6f;  c32 = -0.9f;
  c13 = +0.4f;  c23 = +0.7f;  c33 = +0.10f;

  for (i = 1; i < NI - 1; ++i)
    for (j = 1; j < NJ - 1; ++j)
      B[i][j] = c11 * A[i - 1][j - 1] + c12 * A[i + 0][j - 1] + c13 * A[i + 1][j - 1]
              + c21 * A[i - 1][j + 0] + c22 * A[i + 0][j + 0] + c23 * A[i + 1][j + 0]
              + c31 * A[i - 1][j + 1] + c32 * A[i + 0][j + 1] + c33 * A[i + 1][j + 1];
}

/* sched_random: seed 3337189590240, FAILED */
#pragma npu schedule(kernel_conv2d, kernel_conv2d_rs)
#pragma npu parallel(i)
#pragma npu stage(s10, "i - 1", r1_a)

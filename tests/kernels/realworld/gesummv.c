/* PolyBench gesummv: y = alpha*A*x + beta*B*x, tmp as an output argument (float). */
#define N 70

void kernel_gesummv(float alpha, float beta, const float A[N][N], const float B[N][N], float tmp[N],
                    const float x[N], float y[N]) {
  int i, j;

  for (i = 0; i < N; i++) {
    tmp[i] = 0.0f;
    y[i] = 0.0f;
    for (j = 0; j < N; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}

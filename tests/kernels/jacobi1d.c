/* Jacobi-1d: ping-pong between two arrays over time steps (boundaries of B copied first). */
#define T 20
#define N 401

void jacobi_1d(float A[N], float B[N]) {
  B[0] = A[0];
  B[N - 1] = A[N - 1];
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      B[i] = 0.33333f * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < N - 1; i++)
      A[i] = 0.33333f * (B[i - 1] + B[i] + B[i + 1]);
  }
}

/* PolyBench floyd-warshall on int path lengths (made non-negative first), min written with ?: */
#define N 60

void kernel_floyd_warshall(int path[N][N]) {
  int i, j, k;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      path[i][j] = path[i][j] < 0 ? -path[i][j] : path[i][j];

  for (k = 0; k < N; k++) {
    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
  }
}

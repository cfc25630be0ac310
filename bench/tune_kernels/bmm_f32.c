/* fp32 batched matmul: 8 batches of 128 x 128, K = 256 (npugen tune figures, docs/tune.md). */
void bmm(const float A[8][128][256], const float B[8][256][128], float C[8][128][128]) {
  for (int b = 0; b < 8; b++)
    for (int i = 0; i < 128; i++)
      for (int j = 0; j < 128; j++) {
        C[b][i][j] = 0.0f;
        for (int k = 0; k < 256; k++)
          C[b][i][j] += A[b][i][k] * B[b][k][j];
      }
}

/* Symbolic sizes: BLAS-style gemm, its three extents parameters (C99
 * variably modified arrays), written plainly; and tiled, with guarded
 * tails. The tiling's loop bounds, (ni + 31) / 32, need the sizes below
 * 2^31 - 31: the assumption says so (without it, tile is refused and the
 * bounds check names the bound that would overflow). */
void gemm(int ni, int nj, int nk, float alpha, float beta, float C[ni][nj], const float A[ni][nk],
          const float B[nk][nj]) {
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}
#pragma npu assume(gemm, ni <= 1 << 20, nj <= 1 << 20, nk <= 1 << 20)

#pragma npu schedule(gemm, gemm_tiled)
#pragma npu tile(i, j, 32, 32, io, jo, ii, ji)
#pragma npu split(k, 8, ko, ki)
#pragma npu parallel(io)

/* The kernel as written as a candidate of an NPU tune
 * (tests/test_tune_aswritten.c). The CU runs the kernel as written at one
 * cycle per element it reads or writes (targets/default.ini,
 * cu.access_cycles): small is 64 floats in and out, 128 cycles, where a
 * VU pass pays a DMA latency (200 cycles) each way. big is 2048 x 2048:
 * 8.4 million accesses, past what a variant on the CU alone is simulated
 * for (jit/simulate.c). */
void small(const float X[4][16], float Y[4][16]) {
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 16; c++)
      Y[r][c] = X[r][c] * 2.0f;
}

void big(const float X[2048][2048], float Y[2048][2048]) {
  for (int r = 0; r < 2048; r++)
    for (int c = 0; c < 2048; c++)
      Y[r][c] = X[r][c] * 2.0f;
}

/* A small element-wise kernel for tune's plan, trial and merge files
 * (tests/test_tune_plan.c): its space is a VU sketch and a host one, built
 * in a fraction of a matmul's time by every process a planned run starts
 * (each of them under ASan in make test). */
void vadd(const float a[4096], const float b[4096], float c[4096]) {
  for (int i = 0; i < 4096; i++)
    c[i] = a[i] + b[i];
}

/* A second kernel file named mm.c, in another directory: its emit rule
 * and stamp must not clash with ../mm.c's (npugen_add_kernels). */
void mm_scale(const float x[8], float y[8]) {
  for (int i = 0; i < 8; i++)
    y[i] = 3 * x[i];
}

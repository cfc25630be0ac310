/* An element-wise kernel that updates its array in place (issue 41): tune
 * stages `a` as a read cache and a write cache, each double-buffered. */
void scale(float a[128][512], float s) {
  for (int i = 0; i < 128; i++)
    for (int j = 0; j < 512; j++)
      a[i][j] = a[i][j] * s;
}

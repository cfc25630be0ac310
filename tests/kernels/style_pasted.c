/* Style: a kernel as pasted from an older code base: top declarations, <=, decreasing loop, locals, if/else. */
#include <math.h>

#define NROWS 24
#define NCOLS 35

void normalize_and_smooth(float img[NROWS][NCOLS], float colmax[NCOLS], float rowavg[NROWS]) {
  int r, c;
  float mx, s, a, b;

  for (c = 0; c <= NCOLS - 1; c++) {
    mx = fabsf(img[0][c]);
    for (r = 1; r <= NROWS - 1; r++)
      if (fabsf(img[r][c]) > mx)
        mx = fabsf(img[r][c]);
    colmax[c] = mx;
  }
  for (r = NROWS - 1; r >= 0; r--) {
    s = 0;
    for (c = 0; c < NCOLS; c++) {
      if (colmax[c] > 0.0f)
        img[r][c] = img[r][c] / colmax[c];
      else
        img[r][c] = 0;
      s += img[r][c];
    }
    rowavg[r] = s / NCOLS;
  }
  for (r = 0; r < NROWS; r++) {
    a = img[r][0];
    for (c = 1; c < NCOLS; c++) {
      b = img[r][c];
      img[r][c] = 0.5f * (a + b);
      a = b;
    }
  }
}

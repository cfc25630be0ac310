/* A row softmax as written in C: the row's maximum and sum in scalar
 * locals, the exponentials stored and summed in one loop (issue 40). No
 * schedule is written by hand: no NPU sketch of `npugen tune` fits the
 * kernel as written, so tune gives it its array form first
 * (docs/schedules.md, "Kernels as written, through tune"): the
 * exp-and-sum loop cut in two (fission), the max and the sum expanded into
 * arrays over the rows (the max's `if` becomes the store of a select, the
 * sum's init moves down beside its loop), and the rows' sketch spreads the
 * rows over the VU cores: a row max, a subtraction and an exponential (an
 * instruction sequence), a row sum and a division, five VU instructions
 * per pass. The schedule below is what tune wrote. */
#include <math.h>

#define ROWS 256
#define COLS 128

void softmax(const float x[ROWS][COLS], float y[ROWS][COLS]) {
  for (int r = 0; r < ROWS; r++) {
    float max = x[r][0];
    for (int c = 1; c < COLS; c++)
      if (x[r][c] > max) max = x[r][c];
    float sum = 0.0f;
    for (int c = 0; c < COLS; c++) {
      y[r][c] = expf(x[r][c] - max);
      sum += y[r][c];
    }
    for (int c = 0; c < COLS; c++)
      y[r][c] = y[r][c] / sum;
  }
}


/* Found by: npugen tune examples/softmax_rows.c --seed 1 --trials 12 --jobs 1 -o softmax_rows.sched */
/* npugen tune examples/softmax_rows.c --kernel softmax --seed 1: best of 12 candidates (12 legal, 12 simulated)
 * vu:rows q=32 db_x=1 db_y=1
 * 4297 cycles, roofline 95.3%; passes npugen check (seed 1) */
#pragma npu schedule(softmax, softmax_rows_softmax_tuned)
#pragma npu fission(c_2, s4)
#pragma npu expand(max)
#pragma npu expand(sum)
#pragma npu split(r, 128, ro, rr)
#pragma npu split(rr, 32, core, ri)
#pragma npu bind(core, vu)
#pragma npu fission(ri, s2, s4, s5)
#pragma npu cache_read(x, vu_vm, core, x_vm)
#pragma npu cache_write(y, vu_vm, core, y_vm)
#pragma npu cache_write(max, vu_vm, core, max_vm)
#pragma npu cache_write(sum, vu_vm, core, sum_vm)
#pragma npu double_buffer(x_vm)
#pragma npu double_buffer(y_vm)
#pragma npu vectorize(ri)
#pragma npu vectorize(ri_1)
#pragma npu vectorize(ri_2)
#pragma npu vectorize(ri_3)

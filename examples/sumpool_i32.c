/* A 2x2 sum pool over int32 as written in C: a local accumulator over the
 * window (issue 40). No schedule is written by hand: `npugen tune` spreads
 * the channels over the VU cores, and vectorize expands the accumulator
 * into its destination and finds the VU's window sum
 * (npu_vu_window_sum_i32). The schedule below is what tune wrote;
 * docs/schedules.md ("Kernels as written, through tune") has its cycles. */
#include <stdint.h>

#define C 64
#define H 56
#define W 56

void sumpool(const int32_t in[C][H][W], int32_t out[C][H / 2][W / 2]) {
  for (int c = 0; c < C; c++)
    for (int oh = 0; oh < H / 2; oh++)
      for (int ow = 0; ow < W / 2; ow++) {
        int32_t sum = 0;
        for (int kh = 0; kh < 2; kh++)
          for (int kw = 0; kw < 2; kw++)
            sum += in[c][2 * oh + kh][2 * ow + kw];
        out[c][oh][ow] = sum;
      }
}

/* four values a window: no int32 sum overflows (the kernel's own would be
 * undefined) */
#pragma npu inputs(sumpool, in, -100000000, 100000000)

/* Found by: npugen tune examples/sumpool_i32.c --seed 1 --trials 12 --jobs 1 -o sumpool_i32.sched */
/* npugen tune examples/sumpool_i32.c --kernel sumpool --seed 1: best of 12 candidates (12 legal, 12 simulated)
 * vu:rows q=4 db_in=1 db_out=1
 * 15901 cycles, roofline 98.6%; passes npugen check (seed 1) */
#pragma npu schedule(sumpool, sumpool_i32_sumpool_tuned)
#pragma npu split(c, 16, co, cr)
#pragma npu split(cr, 4, core, ci)
#pragma npu bind(core, vu)
#pragma npu cache_read(in, vu_vm, core, in_vm)
#pragma npu cache_write(out, vu_vm, core, out_vm)
#pragma npu double_buffer(in_vm)
#pragma npu double_buffer(out_vm)
#pragma npu vectorize(oh)

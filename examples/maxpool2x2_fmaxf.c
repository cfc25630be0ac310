/* A 2x2 max pool in fp32 as PyTorch's C code writes one: the window's
 * corner in locals, fmaxf of its four elements (issue 40). No schedule is
 * written by hand: `npugen tune` spreads the channels over the VU cores,
 * and vectorize inlines the index locals (they only name a value) and
 * covers the expression with a sequence of VU instructions
 * (schedule/isel_cover.c): two strided plane maxes and one max per
 * channel, NaNs and signed zeros as the C library's fmaxf gives them. The
 * schedule below is what tune wrote; docs/schedules.md ("Kernels as
 * written, through tune") has its cycles. */
#include <math.h>

#define C 64
#define H 56
#define W 56

void maxpool(const float in[C][H][W], float out[C][H / 2][W / 2]) {
  for (int c = 0; c < C; c++)
    for (int oh = 0; oh < H / 2; oh++)
      for (int ow = 0; ow < W / 2; ow++) {
        const int ih = 2 * oh, iw = 2 * ow;
        out[c][oh][ow] = fmaxf(fmaxf(in[c][ih][iw], in[c][ih][iw + 1]), fmaxf(in[c][ih + 1][iw], in[c][ih + 1][iw + 1]));
      }
}

/* Found by: npugen tune examples/maxpool2x2_fmaxf.c --seed 1 --trials 12 --jobs 1 -o maxpool2x2_fmaxf.sched */
/* npugen tune examples/maxpool2x2_fmaxf.c --kernel maxpool --seed 1: best of 12 candidates (11 legal, 11 simulated)
 * vu:rows q=2 db_in=1 db_out=1
 * 16799 cycles, roofline 93.3%; passes npugen check (seed 1) */
#pragma npu schedule(maxpool, maxpool2x2_fmaxf_maxpool_tuned)
#pragma npu split(c, 8, co, cr)
#pragma npu split(cr, 2, core, ci)
#pragma npu bind(core, vu)
#pragma npu cache_read(in, vu_vm, core, in_vm)
#pragma npu cache_write(out, vu_vm, core, out_vm)
#pragma npu double_buffer(in_vm)
#pragma npu double_buffer(out_vm)
#pragma npu vectorize(oh)

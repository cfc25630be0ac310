/* 2x2 max pooling in fp32 as people write it: each output element is
 * fmaxf of the four elements of its window, one expression, no loop over
 * the window (issue 40). No VU instruction takes four operands, so
 * vectorize covers the expression with a sequence of them, largest
 * pattern first (schedule/isel_cover.c): per channel, two strided maxes
 * over the plane (npu_vu_fmax_str_plane_f32, one per input row of the
 * windows, into temporaries in the VM) and one max of the two. fmaxf's
 * NaNs and signed zeros are the C library's in every op
 * (docs/schedules.md). `npugen check` runs it in the simulator against
 * this source. */
#include <math.h>

#define C 64
#define H 56
#define W 56

void maxpool(const float in[C][H][W], float out[C][H / 2][W / 2]) {
  for (int c = 0; c < C; c++)
    for (int i = 0; i < H / 2; i++)
      for (int j = 0; j < W / 2; j++)
        window: out[c][i][j] = fmaxf(fmaxf(in[c][2 * i][2 * j], in[c][2 * i][2 * j + 1]),
                                     fmaxf(in[c][2 * i + 1][2 * j], in[c][2 * i + 1][2 * j + 1]));
}

/* Staged as examples/pool_npu.c stages it, with 8 channels a pass, 2 on
 * each VU core: the two temporaries (28 x 28 floats each, placed in the
 * VM beside the double-buffered planes) do not fit beside 4 channels'
 * planes, and the step says so with the VM's usage table. vectorize(i)
 * names the plane's row loop: three instructions per channel. Pooling is
 * bound by DDR: 16,799 cycles against the bound of 15,680 (93.3%); the
 * window reduction of examples/pool_npu.c, one instruction, takes 15,901. */
#pragma npu schedule(maxpool, maxpool_vu)
#pragma npu split(c, 8, co, cr)
#pragma npu split(cr, 2, core, ci)
#pragma npu bind(core, vu)
#pragma npu cache_read(in, vu_vm, core, in_vm)
#pragma npu cache_write(out, vu_vm, core, out_vm)
#pragma npu double_buffer(in_vm)
#pragma npu double_buffer(out_vm)
#pragma npu vectorize(i)

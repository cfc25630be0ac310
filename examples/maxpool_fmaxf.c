/* 2x2 max pooling in fp32 as people write it: each output element is
 * fmaxf of the four elements of its window, one expression, no loop over
 * the window (issue 40). No VU instruction takes four operands, so
 * vectorize covers the expression with a sequence of them, largest
 * pattern first (schedule/isel_cover.c): per output row, two strided
 * maxes (npu_vu_fmax_str_f32, one per input row of the windows, into
 * temporaries in the VM) and one max of the two. fmaxf's NaNs and signed
 * zeros are the C library's in every op (docs/schedules.md). `npugen
 * check` runs it in the simulator against this source. */
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

/* As examples/pool_npu.c stages it: 16 channels a pass, 4 on each VU core,
 * input and output planes double-buffered in each core's VM. vectorize(j)
 * names the output row's loop: three instructions per row, the two
 * temporaries (28 floats each) placed in the VM beside the planes. */
#pragma npu schedule(maxpool, maxpool_vu)
#pragma npu split(c, 16, co, cr)
#pragma npu split(cr, 4, core, ci)
#pragma npu bind(core, vu)
#pragma npu cache_read(in, vu_vm, core, in_vm)
#pragma npu cache_write(out, vu_vm, core, out_vm)
#pragma npu double_buffer(in_vm)
#pragma npu double_buffer(out_vm)
#pragma npu vectorize(j)

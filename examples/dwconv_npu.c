/* Depthwise 3x3 conv, int8 in, int32 out, on the four VU cores: a
 * MobileNet-style layer of 64 channels on a 56x56 image. The input comes
 * padded by its producer (a 58x58 plane per channel, a zero border), so the
 * kernel has no guard. `npugen check` runs it in the simulator against this
 * source. */
#include <stdint.h>

#define C 64
#define H 56
#define W 56

void dwconv3x3(const int8_t in[C][H + 2][W + 2], const int8_t wt[C][3][3], int32_t out[C][H][W]) {
  for (int c = 0; c < C; c++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        init: out[c][y][x] = 0;
        for (int r = 0; r < 3; r++)
          for (int s = 0; s < 3; s++)
            update: out[c][y][x] += (int32_t)in[c][y + r][x + s] * (int32_t)wt[c][r][s];
      }
}

/* Four channels at a time, one per VU core (bind). Each core stages its
 * channel's input plane and 3x3 weights in its own vector memory and
 * accumulates the output plane there: a fill, then one multiply-accumulate
 * by a scalar weight per kernel tap over the whole 56x56 plane (taps
 * outside, the plane inside: reorder). The emitter issues every core's
 * loads, then every core's compute, then every core's copy out. Each core
 * has two copies of its buffers (double_buffer), used in turn by the
 * passes of co: the next four channels load while these compute, and a
 * copy out is waited for only when its copy is written again, two passes
 * later. */
#pragma npu schedule(dwconv3x3, dw_vu)
#pragma npu split(c, 4, co, ci)
#pragma npu decompose_reduction(init, y)
#pragma npu reorder(r, s, y, x)
#pragma npu bind(ci, vu)
#pragma npu cache_read(in, vu_vm, ci, in_vm)
#pragma npu cache_read(wt, vu_vm, ci, wt_vm)
#pragma npu cache_write(out, vu_vm, ci, out_vm)
#pragma npu double_buffer(in_vm)
#pragma npu double_buffer(wt_vm)
#pragma npu double_buffer(out_vm)
#pragma npu tensorize(y_1, npu_vu_fill_i32)
#pragma npu tensorize(y, npu_vu_macs_i8_i32)

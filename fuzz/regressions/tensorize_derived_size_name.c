/* frontend fuzz smoke finding (the seed corpus holds examples/pool_npu.c):
 * tensorize's size check bound a size derived from the others (a #define
 * whose body is an expression of them) by the name of a define in a
 * module it had parsed for the purpose and then freed; a later lookup
 * read the freed name (heap-use-after-free under ASan).
 * Status: fixed (schedule/tensorize.c check_sizes: the name is copied into
 * the variant's arena).
 * Expect: passes
 */
/* 2x2 max and average pooling in fp32 over 64 channels of 56 x 56 (a
 * ResNet stage), on the four VU cores, written as the loops of their
 * definition: each output element is the largest (the mean) of a 2x2
 * window of the input, windows 2 apart. No layout is changed by hand:
 * vectorize finds the VU's window reductions (npu_vu_window_max_f32,
 * npu_vu_window_avg_f32), which read the strided windows in vector memory.
 * `npugen check` runs both in the simulator against this source. */
#define C 64
#define H 56
#define W 56

void maxpool(const float in[C][H][W], float out[C][H / 2][W / 2]) {
  for (int c = 0; c < C; c++)
    for (int i = 0; i < H / 2; i++)
      for (int j = 0; j < W / 2; j++) {
        first: out[c][i][j] = in[c][2 * i][2 * j];
        for (int a = 0; a < 2; a++)
          for (int b = 0; b < 2; b++)
            larger: out[c][i][j] = in[c][2 * i + a][2 * j + b] > out[c][i][j] ? in[c][2 * i + a][2 * j + b] : out[c][i][j];
      }
}

void avgpool(const float in[C][H][W], float out[C][H / 2][W / 2]) {
  for (int c = 0; c < C; c++)
    for (int i = 0; i < H / 2; i++)
      for (int j = 0; j < W / 2; j++) {
        zero: out[c][i][j] = 0.0f;
        for (int a = 0; a < 2; a++)
          for (int b = 0; b < 2; b++)
            sum: out[c][i][j] += in[c][2 * i + a][2 * j + b];
        mean: out[c][i][j] /= 4.0f;
      }
}

/* 16 channels a pass, 4 on each core (bind). Each core stages its 4
 * input planes (49 KiB) and output planes (12 KiB) in its vector memory,
 * both double-buffered: the next pass loads while this one computes, and
 * its copies out overlap the next pass. vectorize(i) names the plane's
 * row loop: the nest under it is one window reduction per channel,
 * npu_vu_window_max_f32(&out_vm[ci][0][0], &in_vm[ci][0][0], 28, 28, 2, 2,
 * 2, 2, 28, 56). Pooling is bound by DDR (four input elements read for
 * each output): 15,901 cycles against the bound of 15,680 (98.6%), each. */
#pragma npu schedule(maxpool, maxpool_vu)
#pragma npu split(c, 16, co, cr)
#pragma npu split(cr, 4, core, ci)
#pragma npu bind(core, vu)
#pragma npu cache_read(in, vu_vm, core, in_vm)
#pragma npu cache_write(out, vu_vm, core, out_vm)
#pragma npu double_buffer(in_vm)
#pragma npu double_buffer(out_vm)
#pragma npu vectorize(i)

#pragma npu schedule(avgpool, avgpool_vu)
#pragma npu split(c, 16, co, cr)
#pragma npu split(cr, 4, core, ci)
#pragma npu bind(core, vu)
#pragma npu cache_read(in, vu_vm, core, in_vm)
#pragma npu cache_write(out, vu_vm, core, out_vm)
#pragma npu double_buffer(in_vm)
#pragma npu double_buffer(out_vm)
#pragma npu vectorize(i)

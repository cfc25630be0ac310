/* A vector whose last pass over the VU cores runs past its end (issue
 * 44): with LEN 1000 in passes of 256, the last pass gives the cores 64,
 * 64, 64 and 40 elements. Each core's count is computed once, spelt with
 * LEN, and its load, its instruction and its copy out name it. */
#define LEN 1000

void scale(const float x[LEN], float y[LEN]) {
  for (int i = 0; i < LEN; i++) y[i] = x[i] * 2.0f;
}

#pragma npu schedule(scale, scale_cores)
#pragma npu split(i, 256, io, ir)
#pragma npu split(ir, 64, core, ii)
#pragma npu bind(core, vu)
#pragma npu cache_read(x, vu_vm, core, x_vm)
#pragma npu cache_write(y, vu_vm, core, y_vm)
#pragma npu vectorize(ii)

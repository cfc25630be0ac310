/* Masks on the VU, written as C writes them: a masked select (attention's
 * mask: keep x where the mask is positive, else 0), a ReLU with a
 * threshold (keep x above t), and a masked store (overwrite y only where
 * the mask is above one half). vectorize finds the VU's selects, a
 * compare with a scalar and a predicated move in one instruction
 * (npu_vu_select_gts_f32, npu_vu_select_gt_f32; under a uint8_t mask,
 * npu_vu_select_u8s_f32 and npu_vu_select_u8_f32). A guard on the index
 * that is not a prefix tail (scale every element from the 7th on): the
 * instruction runs over the window of each tile the guard keeps. An index
 * mask (the even elements: npu_vu_select_lanes_f32, which builds the mask
 * from the lane counter) and a leaky ReLU (npu_vu_select_ge_muls_f32).
 * fp32, 256 Ki elements, on the four VU cores. `npugen check` runs each in
 * the simulator against this source. */
#include <stdint.h>
#define N 262144

void masked_select(const float m[N], const float x[N], float y[N]) {
  for (int i = 0; i < N; i++)
    y[i] = m[i] > 0 ? x[i] : 0.0f;
}

void relu_threshold(const float x[N], float y[N], float t) {
  for (int i = 0; i < N; i++)
    y[i] = x[i] > t ? x[i] : 0.0f;
}

void masked_store(const float m[N], const float x[N], float y[N]) {
  for (int i = 0; i < N; i++)
    if (m[i] > 0.5f)
      y[i] = x[i];
}

void byte_masked_select(const uint8_t m[N], const float x[N], float y[N]) {
  for (int i = 0; i < N; i++)
    y[i] = m[i] ? x[i] : 0.0f;
}

void scaled_suffix(const float x[N], float y[N]) {
  for (int i = 0; i < N; i++)
    if (i >= 7)
      y[i] = x[i] * 2.0f;
}

void even_lanes(const float x[N], float y[N]) {
  for (int i = 0; i < N; i++)
    y[i] = i % 2 == 0 ? x[i] : 0.0f;
}

void leaky_relu(const float x[N], float y[N]) {
  for (int i = 0; i < N; i++)
    y[i] = x[i] >= 0 ? x[i] : 0.1f * x[i];
}

/* 16 Ki elements a pass, 4 Ki on each core (bind), every cache
 * double-buffered: the next pass loads while this one computes. Each
 * core's slice is one instruction, npu_vu_select_gts_f32(&y_vm[0],
 * &m_vm[0], &x_vm[0], 4096, 0, 0.0f). Bound by DDR (one compare per 12
 * bytes moved): 49,353 cycles against the bound of 49,152 (99.6%). */
#pragma npu schedule(masked_select, masked_select_vu)
#pragma npu split(i, 16384, io, ir)
#pragma npu split(ir, 4096, core, ii)
#pragma npu bind(core, vu)
#pragma npu cache_read(m, vu_vm, core, m_vm)
#pragma npu cache_read(x, vu_vm, core, x_vm)
#pragma npu cache_write(y, vu_vm, core, y_vm)
#pragma npu double_buffer(m_vm)
#pragma npu double_buffer(x_vm)
#pragma npu double_buffer(y_vm)
#pragma npu vectorize(ii)

/* x is both the compared and the selected operand:
 * npu_vu_select_gts_f32(&y_vm[0], &x_vm[0], &x_vm[0], 4096, t, 0.0f).
 * 32,969 cycles against the bound of 32,768 (99.4%). */
#pragma npu schedule(relu_threshold, relu_threshold_vu)
#pragma npu split(i, 16384, io, ir)
#pragma npu split(ir, 4096, core, ii)
#pragma npu bind(core, vu)
#pragma npu cache_read(x, vu_vm, core, x_vm)
#pragma npu cache_write(y, vu_vm, core, y_vm)
#pragma npu double_buffer(x_vm)
#pragma npu double_buffer(y_vm)
#pragma npu vectorize(ii)

/* The if with no else keeps y where the mask fails: y is copied in too
 * (a write under a data-dependent condition covers nothing), and the
 * select takes y's own elements there: npu_vu_select_gt_f32(&y_vm[0],
 * &m_vm[0], &x_vm[0], &y_vm[0], 2048, 0.5f). A buffer both filled and
 * drained by DMA is not double-buffered, so y's copies are synchronous:
 * 139,040 cycles against the bound of 65,536 (47.1%). */
#pragma npu schedule(masked_store, masked_store_vu)
#pragma npu split(i, 8192, io, ir)
#pragma npu split(ir, 2048, core, ii)
#pragma npu bind(core, vu)
#pragma npu cache_read(m, vu_vm, core, m_vm)
#pragma npu cache_read(x, vu_vm, core, x_vm)
#pragma npu cache_write(y, vu_vm, core, y_vm)
#pragma npu double_buffer(m_vm)
#pragma npu double_buffer(x_vm)
#pragma npu vectorize(ii)

/* A mask of bytes (uint8_t, not 0: keep x): the masked select's schedule,
 * npu_vu_select_u8s_f32(&y_vm[0], &m_vm[0], &x_vm[0], 4096, 0.0f); the
 * mask moves a quarter of the bytes an fp32 mask does: 43,729 cycles
 * against the bound of 36,864 (84.3%; the DMA engine is busy 95.7% of
 * the time: the channels' 200-cycle latencies, which the fp32 mask's
 * larger copies hide, show). */
#pragma npu schedule(byte_masked_select, byte_masked_select_vu)
#pragma npu split(i, 16384, io, ir)
#pragma npu split(ir, 4096, core, ii)
#pragma npu bind(core, vu)
#pragma npu cache_read(m, vu_vm, core, m_vm)
#pragma npu cache_read(x, vu_vm, core, x_vm)
#pragma npu cache_write(y, vu_vm, core, y_vm)
#pragma npu double_buffer(m_vm)
#pragma npu double_buffer(x_vm)
#pragma npu double_buffer(y_vm)
#pragma npu vectorize(ii)

/* The guard keeps i >= 7: core 0's tile of the first pass starts at
 * max(7, 0), every other tile at its own start, so each cache holds the
 * hull, the tile (x[7..] and the tile's first 7 elements, unused), and
 * the guard stays on the compute. vectorize runs the multiply over the
 * window the guard keeps, its start and length at run time:
 * npu_vu_muls_f32(&y_vm[npu_clamp(7 - (io * 32768 + core * 8192), 8192)],
 * ..., 8192 - npu_clamp(7 - (io * 32768 + core * 8192), 8192), 2.0f): 0
 * and 8192 in every tile but the first. y is copied in too (the writes
 * leave y[0..6] as they were), so y's copies are synchronous: 8 Ki
 * elements a core, twice the masked select's, to amortize them. 68,816
 * cycles against the bound of 32,768 (47.6%; 71.4% of the 3 MiB the
 * copies move). */
#pragma npu schedule(scaled_suffix, scaled_suffix_vu)
#pragma npu split(i, 32768, io, ir)
#pragma npu split(ir, 8192, core, ii)
#pragma npu bind(core, vu)
#pragma npu cache_read(x, vu_vm, core, x_vm)
#pragma npu cache_write(y, vu_vm, core, y_vm)
#pragma npu double_buffer(x_vm)
#pragma npu vectorize(ii)

/* An index mask: keep the even elements, 0 elsewhere. The VU builds the
 * mask from the lane counter, (start + lane) % 2 == 0, start the tile's
 * first index: npu_vu_select_lanes_f32(&y_vm[0], &x_vm[0], 4096, io *
 * 16384 + core * 4096, 2, 0, 0.0f). x's odd elements are copied too (the
 * cache holds the box of what the tile reads) but the instruction reads
 * the even ones alone. The masked select's schedule: 32,969 cycles
 * against the bound of 32,768 (99.4%). */
#pragma npu schedule(even_lanes, even_lanes_vu)
#pragma npu split(i, 16384, io, ir)
#pragma npu split(ir, 4096, core, ii)
#pragma npu bind(core, vu)
#pragma npu cache_read(x, vu_vm, core, x_vm)
#pragma npu cache_write(y, vu_vm, core, y_vm)
#pragma npu double_buffer(x_vm)
#pragma npu double_buffer(y_vm)
#pragma npu vectorize(ii)

/* A leaky ReLU: x, or a tenth of x below 0, one instruction per slice:
 * npu_vu_select_ge_muls_f32(&y_vm[0], &x_vm[0], &x_vm[0], &x_vm[0], 4096,
 * 0, 0.1f): 32,969 cycles against the bound of 32,768 (99.4%). */
#pragma npu schedule(leaky_relu, leaky_relu_vu)
#pragma npu split(i, 16384, io, ir)
#pragma npu split(ir, 4096, core, ii)
#pragma npu bind(core, vu)
#pragma npu cache_read(x, vu_vm, core, x_vm)
#pragma npu cache_write(y, vu_vm, core, y_vm)
#pragma npu double_buffer(x_vm)
#pragma npu double_buffer(y_vm)
#pragma npu vectorize(ii)

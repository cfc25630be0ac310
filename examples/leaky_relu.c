/* A leaky ReLU through a local, as written in C (issue 40). No schedule is
 * written by hand: `npugen tune` splits the vector over the VU cores, and
 * vectorize replaces the local by its value and finds the one VU
 * instruction that computes the select (npu_vu_select_ge_muls_f32). The
 * schedule below is what tune wrote; docs/schedules.md ("Kernels as
 * written, through tune") has its cycles. */
#define N 65536

void leaky_relu(const float x[N], float y[N], float alpha) {
  for (int i = 0; i < N; i++) {
    float v = x[i];
    y[i] = v >= 0 ? v : v * alpha;
  }
}

/* Found by: npugen tune examples/leaky_relu.c --seed 1 --trials 12 --jobs 1 -o leaky_relu.sched */
/* npugen tune examples/leaky_relu.c --kernel leaky_relu --seed 1: best of 12 candidates (12 legal, 12 simulated)
 * vu:rows q=4096 db_x=1 db_y=1
 * 8393 cycles, roofline 97.6%; passes npugen check (seed 1) */
#pragma npu schedule(leaky_relu, leaky_relu_leaky_relu_tuned)
#pragma npu split(i, 16384, io, ir)
#pragma npu split(ir, 4096, core, ii)
#pragma npu bind(core, vu)
#pragma npu cache_read(x, vu_vm, core, x_vm)
#pragma npu cache_write(y, vu_vm, core, y_vm)
#pragma npu double_buffer(x_vm)
#pragma npu double_buffer(y_vm)
#pragma npu vectorize(ii)

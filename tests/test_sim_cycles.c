/* The cycle model against figures worked out by hand on the default target:
 * DDR 64 B/cycle + 200 cycles latency, DM fabric 256 B/cycle + 16, NU 1024
 * int8 MACs/cycle + 32 cycles per instruction, VU 64 B/cycle + 4, 1 cycle to
 * issue each intrinsic, queues of 8 per unit. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "npu_intrinsics.h"
#include "test_sim_util.h"

static int8_t simcy_host[1 << 16];

static NpuSimReport simcy_finish(NpuSim *s) {
  cr_assert_eq(npusim_finish(s), 0, "%s", npusim_error(s));
  NpuSimReport r;
  npusim_report(s, &r);
  return r;
}

static const NpuSimUnitStats *simcy_unit(const NpuSimReport *r, const char *name) {
  for (int i = 0; i < r->unit_count; i++)
    if (!strcmp(r->units[i].name, name)) return &r->units[i];
  cr_assert_fail("no unit %s", name);
  return NULL;
}

Test(sim_cycles, lone_dma) {
  NpuSim *s = simt_new();
  /* issue at 1; 4096 B / 64 = 64 cycles on the DDR port; + 200 latency */
  npu_token_t t = npu_dma_1d(0, npu_scope_base(NPU_DM, 0), simcy_host, 4096);
  npu_dma_wait(t);
  NpuSimReport r = simcy_finish(s);
  cr_assert_eq(r.total_cycles, 265);
  cr_assert_eq(simcy_unit(&r, "dma0")->busy, 264);
  cr_assert_eq(simcy_unit(&r, "cu")->busy, 2); /* the DMA's and the wait's issue slots */
  cr_assert_eq(r.bytes_read[NPUSIM_LEVEL_DDR], 4096);
  cr_assert_eq(r.bytes_written[NPUSIM_LEVEL_DM], 4096);
  cr_assert_eq(r.peak[NPUSIM_LEVEL_DM], 4096);
  cr_assert_eq(r.peak[NPUSIM_LEVEL_NU_IB], 0);
  simt_free(s);
}

Test(sim_cycles, on_chip_dma_uses_the_dm_fabric) {
  NpuSim *s = simt_new();
  /* DM -> IB: 4096 / 256 = 16 cycles + 16 latency, issued at 1 */
  npu_dma_wait(npu_dma_1d(0, npu_scope_base(NPU_NU_IB, 0), npu_scope_base(NPU_DM, 0), 4096));
  cr_assert_eq(simcy_finish(s).total_cycles, 33);
  simt_free(s);
}

Test(sim_cycles, nu_overlaps_dma_on_another_channel) {
  NpuSim *s = simt_new();
  npu_token_t t = npu_dma_1d(0, npu_scope_base(NPU_DM, 0), simcy_host, 4096); /* 1 .. 265 */
  /* 64^3 = 262144 MACs / 1024 = 256 + 32 = 288 cycles, issued at 2: 2 .. 290 */
  npu_nu_matmul_i8(npu_scope_base(NPU_NU_OB, 0), npu_scope_base(NPU_NU_IB, 0),
                   npu_scope_base(NPU_NU_WB, 0), 64, 64, 64, 64, 64, 64, 0);
  npu_dma_wait(t);
  NpuSimReport r = simcy_finish(s);
  cr_assert_eq(r.total_cycles, 290, "overlapped: max(265, 290), not 265 + 288");
  cr_assert_eq(simcy_unit(&r, "nu")->busy, 288);
  cr_assert_float_eq(simcy_unit(&r, "nu")->utilization, 288.0 / 290.0, 1e-12);
  cr_assert_eq(r.macs, 262144);
  simt_free(s);
}

Test(sim_cycles, two_dmas_contend_for_one_channel) {
  NpuSim *s = simt_new();
  char *dm = npu_scope_base(NPU_DM, 0);
  /* same channel: the second starts when the first ends (265) and ends at 529 */
  npu_token_t a = npu_dma_1d(0, dm, simcy_host, 4096);
  npu_token_t b = npu_dma_1d(0, dm + 4096, simcy_host + 4096, 4096);
  npu_dma_wait(a);
  npu_dma_wait(b);
  NpuSimReport r = simcy_finish(s);
  cr_assert_eq(r.total_cycles, 529);
  cr_assert_eq(simcy_unit(&r, "dma0")->busy, 528);
  cr_assert_eq(simcy_unit(&r, "dma1")->busy, 0);
  simt_free(s);

  /* two channels: the DDR port serializes the transfers (1..65, 65..129) but
   * the latencies overlap: the second ends at 129 + 200 = 329 */
  s = simt_new();
  dm = npu_scope_base(NPU_DM, 0);
  a = npu_dma_1d(0, dm, simcy_host, 4096);
  b = npu_dma_1d(1, dm + 4096, simcy_host + 4096, 4096);
  npu_dma_wait(a);
  npu_dma_wait(b);
  r = simcy_finish(s);
  cr_assert_eq(r.total_cycles, 329);
  cr_assert_eq(simcy_unit(&r, "dma1")->busy, 329 - 2);
  simt_free(s);
}

Test(sim_cycles, nu_utilization_with_a_full_queue) {
  NpuSim *s = simt_new();
  /* ten 32^3 matmuls of 32 + 32 = 64 cycles; op k ends at 1 + 64k. The 9th
   * finds 8 queued, so the CU stalls to 65 and issues at 66; the NU itself
   * never idles: 10 * 64 = 640 busy cycles, done at 641. */
  for (int i = 0; i < 10; i++)
    npu_nu_matmul_i8(npu_scope_base(NPU_NU_OB, 0), npu_scope_base(NPU_NU_IB, 0),
                     npu_scope_base(NPU_NU_WB, 0), 32, 32, 32, 32, 32, 32, 1);
  NpuSimReport r = simcy_finish(s);
  cr_assert_eq(r.total_cycles, 641);
  cr_assert_eq(simcy_unit(&r, "nu")->busy, 640);
  cr_assert_eq(simcy_unit(&r, "nu")->ops, 10);
  cr_assert_float_eq(simcy_unit(&r, "nu")->utilization, 640.0 / 641.0, 1e-12);
  cr_assert_eq(simcy_unit(&r, "cu")->busy, 10);
  cr_assert_float_eq(simcy_unit(&r, "vu0")->utilization, 0.0, 1e-12);
  simt_free(s);
}

Test(sim_cycles, dma_waits_for_the_nu_result_it_reads) {
  NpuSim *s = simt_new();
  char *ob = npu_scope_base(NPU_NU_OB, 0);
  static int32_t out[64 * 64 * 2];
  npu_nu_matmul_i8((int32_t *)ob, npu_scope_base(NPU_NU_IB, 0), npu_scope_base(NPU_NU_WB, 0),
                   64, 64, 64, 64, 64, 64, 0); /* 1 .. 289 */
  /* reads C: interlocked, starts at 289; 16384 B / 64 = 256 + 200 -> 745 */
  npu_dma_wait(npu_dma_1d(0, out, ob, 64 * 64 * 4));
  cr_assert_eq(simcy_finish(s).total_cycles, 745);
  simt_free(s);

  s = simt_new();
  ob = npu_scope_base(NPU_NU_OB, 0);
  npu_nu_matmul_i8((int32_t *)ob, npu_scope_base(NPU_NU_IB, 0), npu_scope_base(NPU_NU_WB, 0),
                   64, 64, 64, 64, 64, 64, 0);
  /* bytes next to C: no interlock, 2 + 256 + 200 = 458 */
  npu_dma_wait(npu_dma_1d(0, out, ob + 64 * 64 * 4, 64 * 64 * 4));
  cr_assert_eq(simcy_finish(s).total_cycles, 458);
  simt_free(s);
}

Test(sim_cycles, vu_cores_run_in_parallel) {
  NpuSim *s = simt_new();
  int32_t *v0 = npu_scope_base(NPU_VU_VM, 0), *v1 = npu_scope_base(NPU_VU_VM, 1);
  /* 1024 int32 = 4096 B = 64 vectors + 4 = 68 cycles each */
  npu_vu_add_i32(v0, v0 + 1024, v0 + 2048, 1024); /* core 0: 1 .. 69 */
  npu_vu_add_i32(v1, v1 + 1024, v1 + 2048, 1024); /* core 1: 2 .. 70 */
  npu_vu_max_i32(v0 + 4096, v0 + 1024, v0 + 2048, 1024); /* core 0: 69 .. 137 */
  NpuSimReport r = simcy_finish(s);
  cr_assert_eq(r.total_cycles, 137);
  cr_assert_eq(simcy_unit(&r, "vu0")->busy, 136);
  cr_assert_eq(simcy_unit(&r, "vu1")->busy, 68);
  cr_assert_float_eq(simcy_unit(&r, "vu1")->utilization, 68.0 / 137.0, 1e-12);
  cr_assert_eq(r.peak_vm[0], 5120 * 4);
  cr_assert_eq(r.peak_vm[1], 3072 * 4);
  simt_free(s);
}

Test(sim_cycles, barrier_waits_for_everything) {
  NpuSim *s = simt_new();
  npu_dma_1d(3, npu_scope_base(NPU_DM, 0), simcy_host, 4096); /* 1 .. 265, never waited */
  npu_barrier();                                               /* retires the token */
  NpuSimReport r = simcy_finish(s);
  cr_assert_eq(r.total_cycles, 265);
  cr_assert_eq(simcy_unit(&r, "dma3")->busy, 264);
  char *text = npusim_report_text(&r);
  cr_assert(strstr(text, "total cycles: 265"), "%s", text);
  cr_assert(strstr(text, "dma3"), "%s", text);
  free(text);
  simt_free(s);
}

Test(sim_cycles, custom_target_changes_the_figures) {
  NpuTarget t;
  npusim_target_default(&t);
  t.ddr_bandwidth = 32;
  t.ddr_latency = 100;
  t.cu_issue_cycles = 0;
  NpuSim *s = npusim_new(&t);
  npusim_bind(s);
  npu_dma_wait(npu_dma_1d(0, npu_scope_base(NPU_DM, 0), simcy_host, 4096));
  cr_assert_eq(simcy_finish(s).total_cycles, 4096 / 32 + 100);
  simt_free(s);
}

/* A DMA that waits for an interlock books the DDR port only from when it
 * can start: a later DMA on another channel uses the port before it. */
Test(sim_cycles, waiting_dma_does_not_hold_the_ddr_port) {
  NpuSim *s = simt_new();
  int32_t *vm = npu_scope_base(NPU_VU_VM, 0);
  /* issued at 1: 65536 B / 64 = 1024 + 4 cycles on core 0, 1 .. 1029 */
  npu_vu_fill_i32(vm, 1, 16384, 16384, 0);
  /* issued at 2; reads what the fill writes: starts at 1029, port 1029 .. 1093, ends 1293 */
  npu_token_t out = npu_dma_1d(2, simcy_host, vm, 4096);
  /* issued at 3 on channel 0: the port is free from 3 to 1029, so 3 .. 67, ends 267 */
  npu_token_t in = npu_dma_1d(0, npu_scope_base(NPU_DM, 0), simcy_host + 8192, 4096);
  npu_dma_wait(in);
  npu_dma_wait(out);
  NpuSimReport r = simcy_finish(s);
  cr_assert_eq(simcy_unit(&r, "dma0")->busy, 264, "the load ran in the port's free window");
  cr_assert_eq(r.total_cycles, 1293);
  simt_free(s);
}

/* A byte mask's work is one byte a lane, the widest operand's: 4096 lanes
 * = 64 vectors + 4 = 68 cycles (the lane ops charged 4 bytes a lane to
 * every one, 260 cycles here). */
Test(sim_cycles, a_lane_mask_costs_its_bytes) {
  NpuSim *s = simt_new();
  uint8_t *m = npu_scope_base(NPU_VU_VM, 0);
  npu_vu_lane_mask_u8(m, 4096, 0, 2, 0);
  NpuSimReport r = simcy_finish(s);
  cr_assert_eq(simcy_unit(&r, "vu0")->busy, 68);
  simt_free(s);
}

/* The ABI header compiles as plain C99 under libtcc, and every intrinsic it
 * declares is bound through npusim_symbols() (a missing entry fails to link). */
#include <criterion/criterion.h>
#include <string.h>

#include "npu_intrinsics.h"
#include "schedule/vu_families.h"
#include "test_sim_util.h"

static const char simabi_all[] =
    "#include <stdint.h>\n"
    "#include \"npu_intrinsics.h\"\n"
    "int run(void) {\n"
    "  char *d = npu_scope_base(NPU_DM, 0);\n"
    "  int32_t *v = npu_scope_base(NPU_VU_VM, 2);\n"
    "  float *f = (float *)(v + 256);\n"
    "  int8_t *b = (int8_t *)(v + 512);\n"
    "  int8_t *ib = npu_scope_base(NPU_NU_IB, 0), *wb = npu_scope_base(NPU_NU_WB, 0);\n"
    "  int32_t *ob = npu_scope_base(NPU_NU_OB, 0);\n"
    "  if (npu_scope_size(NPU_DM, 0) != 2u << 20) return 1;\n"
    "  npu_dma_wait(npu_dma_1d(0, d, ib, 16));\n"
    "  npu_dma_wait(npu_dma_2d(1, d, 16, ib, 32, 16, 2));\n"
    "  npu_dma_wait(npu_dma_3d(2, d, 16, 64, ib, 16, 64, 16, 2, 2));\n"
    "  npu_nu_matmul_i8(ob, ib, wb, 4, 4, 4, 4, 4, 4, 0);\n"
    "  npu_nu_matmul_f32((float *)ob, (float *)ib, (float *)wb, 4, 4, 4, 4, 4, 4, 1);\n"
    "  npu_nu_conv2d_i8(ob, ib, wb, 4, 4, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1, 0);\n"
    "  npu_vu_add_i32(v, v + 16, v + 32, 16); npu_vu_sub_i32(v, v + 16, v + 32, 16);\n"
    "  npu_vu_mul_i32(v, v + 16, v + 32, 16); npu_vu_max_i32(v, v + 16, v + 32, 16);\n"
    "  npu_vu_min_i32(v, v + 16, v + 32, 16);\n"
    "  npu_vu_add_f32(f, f + 16, f + 32, 16); npu_vu_sub_f32(f, f + 16, f + 32, 16);\n"
    "  npu_vu_mul_f32(f, f + 16, f + 32, 16); npu_vu_max_f32(f, f + 16, f + 32, 16);\n"
    "  npu_vu_min_f32(f, f + 16, f + 32, 16);\n"
    "  npu_vu_relu_i32(v, v + 16, 16); npu_vu_relu_f32(f, f + 16, 16);\n"
    "  npu_vu_cast_i8_i32(v, b, 16); npu_vu_cast_i32_f32(f, v, 16); npu_vu_cast_f32_i32(v, f, 16);\n"
    "  npu_vu_requant_i8(b, v, 16, 1 << 20, 24, -3);\n"
    "  npu_vu_reduce_sum_i32(v, v + 64, 4, 4, 4); npu_vu_reduce_max_i32(v, v + 64, 4, 4, 4);\n"
    "  npu_vu_reduce_sum_f32(f, f + 64, 4, 4, 4); npu_vu_reduce_max_f32(f, f + 64, 4, 4, 4);\n"
    "  npu_vu_fill_i32(v, 4, 4, 8, 7); npu_vu_macs_i8_i32(v, b, b + 32, 4, 4, 8, 4);\n"
    "  npu_vu_exp_f32(f, f + 64, 4, 4, 8, 4);\n"
    "  npu_vu_add_rows_f32(f, f + 64, f + 96, 4, 4, 8, 4); npu_vu_sub_rows_f32(f, f + 64, f + 96, 4, 4, 8, 4);\n"
    "  npu_vu_mul_rows_f32(f, f + 64, f + 96, 4, 4, 8, 4); npu_vu_div_rows_f32(f, f + 64, f + 96, 4, 4, 8, 4);\n"
    "  npu_vu_muladd_cols_f32(f, f + 64, f + 96, f + 100, 4, 4, 8, 4);\n"
    "  npu_vu_muls_f32(f, f + 16, 16, 0.5f); npu_vu_divs_f32(f, f + 16, 16, 3.0f);\n"
    "  npu_vu_rsqrt_f32(f, f + 16, 16, 1e-5f); npu_vu_reduce_dot_f32(f, f + 64, f + 64, 4, 4, 4, 4);\n"
    "  npu_vu_window_max_f32(f, f + 64, 2, 2, 2, 2, 2, 2, 2, 4);\n"
    "  npu_vu_window_avg_f32(f, f + 64, 2, 2, 2, 2, 2, 2, 2, 4, 4.0f);\n"
    "  npu_vu_select_gt_f32(f, f + 16, f + 32, f, 16, 0.0f); npu_vu_select_gts_f32(f, f + 16, f + 16, 16, 0.5f, 0.0f);\n"
    "  npu_vu_select_u8_f32(f, (uint8_t *)(f + 64), f + 16, f, 16);\n"
    "  npu_vu_select_u8s_f32(f, (uint8_t *)(f + 64), f + 16, 16, 0.0f);\n"
    "  npu_vu_lane_mask_u8((uint8_t *)(f + 64), 16, 3, 2, 1); npu_vu_store_lane_f32(f, f + 16, 16, 3, 2, 1);\n"
    "  npu_vu_muls_lane_f32(f, f + 16, 16, 0, 4, 1, 2.0f); npu_vu_select_lanes_f32(f, f + 16, 16, 0, 3, 0, 0.0f);\n"
    "  npu_vu_select_from_f32(f, f + 16, 16, 0, 7, 0.0f);\n"
    "  npu_vu_cmplt_f32((uint8_t *)(f + 64), f, f + 16, 16); npu_vu_cmple_f32((uint8_t *)(f + 64), f, f + 16, 16);\n"
    "  npu_vu_cmpeq_f32((uint8_t *)(f + 64), f, f + 16, 16);\n"
    "  npu_vu_select_lt_f32(f, f + 16, f + 32, f + 48, f, 16); npu_vu_select_le_f32(f, f + 16, f + 32, f + 48, f, 16);\n"
    "  npu_vu_select_eq_f32(f, f + 16, f + 32, f + 48, f, 16);\n"
    "  npu_vu_select_gt_muls_f32(f, f, f, f, 16, 0.0f, 0.1f); npu_vu_select_ge_muls_f32(f, f, f, f, 16, 0.0f, 0.1f);\n"
    "  npu_vu_select_lt_muls_f32(f, f, f, f, 16, 0.0f, 0.1f); npu_vu_select_le_muls_f32(f, f, f, f, 16, 0.0f, 0.1f);\n"
    "  if (npu_clamp(-3, 8) != 0 || npu_clamp(5, 8) != 5 || npu_clamp(9, 8) != 8) return 2;\n"
    "  npu_barrier();\n"
    "  return 0;\n"
    "}\n";

Test(sim_abi, every_intrinsic_binds_and_runs) {
  TccUnit *u = simt_compile(simabi_all, "all.c");
  int (*run)(void) = (int (*)(void))tcc_unit_symbol(u, "run");
  cr_assert_not_null(run);
  NpuSim *s = simt_new();
  cr_assert_eq(run(), 0);
  cr_assert_eq(npusim_finish(s), 0, "%s", npusim_error(s));
  NpuSimReport r;
  npusim_report(s, &r);
  simt_free(s);
  tcc_unit_free(u);
  cr_assert_eq(r.dma_transfers, 3);
  cr_assert_gt(r.macs, 0);
}

Test(sim_abi, symbol_table_is_complete_and_unique) {
  size_t n;
  const NpuSimSymbol *t = npusim_symbols(&n);
  int families;
  sched_vu_ops(&families); /* one entry per row of npu_vu_families.def */
  cr_assert_eq(n, 23 + (size_t)families); /* and npu_cu_fallback_at: the check's count of fallbacks */
  for (size_t i = 0; i < n; i++) {
    cr_assert_not_null(t[i].addr);
    size_t len = strlen(t[i].name);
    cr_assert(len > 3 && !strcmp(t[i].name + len - 3, "_at"), "%s", t[i].name);
    for (size_t j = i + 1; j < n; j++) cr_assert_str_neq(t[i].name, t[j].name);
  }
}

Test(sim_abi, later_calls_are_noops_after_an_error) {
  NpuSim *s = simt_new();
  int32_t *v = npu_scope_base(NPU_VU_VM, 0);
  v[0] = -5;
  npu_vu_relu_i32(v, v, -1); /* negative shape: the error */
  cr_assert(npusim_failed(s));
  npu_vu_relu_i32(v, v, 1);
  cr_assert_eq(v[0], -5);
  cr_assert_null(npu_scope_base(NPU_DM, 0));
  cr_assert(strstr(npusim_error(s), "test_sim_abi.c:"), "%s", npusim_error(s));
  cr_assert(strstr(npusim_error(s), ": npu_vu_relu_i32: negative shape: n=-1"), "%s", npusim_error(s));
  cr_assert_eq(npusim_finish(s), -1);
  simt_free(s);
}

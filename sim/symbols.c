/* The one table of ABI symbols: the JIT binds each entry into emitted code
 * (the VU families' from their table, npu_vu_families.def). */
#include "sim/internal.h"

#define SYM(f) {#f, (const void *)f}
static const NpuSimSymbol table[] = {
    SYM(npu_scope_base_at),        SYM(npu_scope_size_at),
    SYM(npu_dma_1d_at),            SYM(npu_dma_2d_at),
    SYM(npu_dma_3d_at),            SYM(npu_dma_wait_at),
    SYM(npu_nu_matmul_i8_at),      SYM(npu_nu_matmul_f32_at),
    SYM(npu_nu_matmul_i8_bt_at),
    SYM(npu_nu_conv2d_i8_at),      SYM(npu_vu_requant_i8_at),     SYM(npu_barrier_at),
    SYM(npu_vu_lane_mask_u8_at),   SYM(npu_vu_store_lane_f32_at),
    SYM(npu_vu_select_lanes_f32_at), SYM(npu_vu_muls_lane_f32_at),
    SYM(npu_vu_select_from_f32_at),
    SYM(npu_cu_access_at),
    SYM(npu_cu_fallback_at),
    SYM(npu_vu_requant_q31_i8_at), SYM(npu_vu_requant_q31_pc_i8_at),
    SYM(npu_vu_requant_q31_range_i8_at), SYM(npu_vu_requant_q31_pc_range_i8_at),
#define NPU_VU_OP(NAME, ...) SYM(NAME##_at),
#include "npu_vu_families.def"
#undef NPU_VU_OP
};
#undef SYM

const NpuSimSymbol *npusim_symbols(size_t *count) {
  *count = sizeof table / sizeof table[0];
  return table;
}

/* TFLite's pointwise int8 convolution (examples/conv_pw_tflite.c) with
 * the filter stored as TFLite stores it: output-channel major,
 * `filter[oc][ic]` (OHWI with H = W = 1; tensorflow/lite/kernels/internal/
 * reference/integer_ops/conv.h reads filter_data[Offset(filter_shape,
 * out_channel, filter_y, filter_x, in_channel)]). The rest is the same:
 * the int32 accumulator, the bias, MultiplyByQuantizedMultiplier written
 * with int64, the output offset, the clamp; the input offset is 0.
 *
 * The NU reads weights output-channel major too: npu_nu_matmul_i8_bt
 * (C[i][j] += A[i][k] * B[j][k]) takes each tile of the filter as stored,
 * one double-buffered 2-D DMA per tile, so this form reaches 81.0% of its
 * roofline, as the input-channel-major one does (docs/tune.md). Nothing
 * is packed or transposed: the caller passes the filter as TFLite stores
 * it. No schedule is written by hand: the one below is what `npugen tune`
 * wrote. */
#include <stdint.h>

#define P 256
#define IC 512
#define OC 256

void conv_pw(const int8_t input[P][IC], const int8_t filter[OC][IC], const int32_t bias[OC],
             const int32_t output_multiplier[OC], const int32_t output_shift[OC], int8_t output[P][OC],
             int32_t output_offset) {
  for (int p = 0; p < P; p++)
    for (int oc = 0; oc < OC; oc++) {
      int32_t acc = 0;
      for (int ic = 0; ic < IC; ic++)
        acc += input[p][ic] * filter[oc][ic];
      acc += bias[oc];
      /* MultiplyByQuantizedMultiplier(acc, output_multiplier[oc], output_shift[oc]) */
      int64_t ab = (int64_t)acc * output_multiplier[oc];
      int32_t high = acc == (-2147483647 - 1) && output_multiplier[oc] == (-2147483647 - 1)
                         ? 2147483647
                         : (int32_t)((ab + (ab >= 0 ? (1 << 30) : 1 - (1 << 30))) / ((int64_t)1 << 31));
      int32_t mask = (int32_t)(((int64_t)1 << -output_shift[oc]) - 1);
      acc = (high >> -output_shift[oc]) + ((high & mask) > (mask >> 1) + (high < 0 ? 1 : 0) ? 1 : 0);
      acc += output_offset;
      acc = acc > -128 ? acc : -128;
      acc = acc < 127 ? acc : 127;
      output[p][oc] = (int8_t)acc;
    }
}

/* Q31 multipliers for scales in [0.5, 1), right shifts (TFLite's
 * output_shift <= 0; at 0 the kernel's own int32 sum with the offset
 * could overflow), an int8 zero point */
#pragma npu inputs(conv_pw, output_multiplier, 1073741824, 2147483647)
#pragma npu inputs(conv_pw, output_shift, -31, -1)
#pragma npu inputs(conv_pw, output_offset, -128, 127)



/* Found by: npugen tune examples/conv_pw_tflite_ohwi.c --seed 1 --trials 12 --jobs 1 -o conv_pw_tflite_ohwi.sched */
/* npugen tune examples/conv_pw_tflite_ohwi.c --kernel conv_pw --seed 1: best of 12 candidates (11 legal, 11 simulated)
 * nu:npu_nu_matmul_i8_bt+epilogue ti=256 tj=128 db_a=1 db_b=1
 * 40535 cycles, roofline 80.8%; passes npugen check (seed 1) */
#pragma npu schedule(conv_pw, conv_pw_tflite_ohwi_conv_pw_tuned)
#pragma npu compute_inline(s4)
#pragma npu compute_inline(s5)
#pragma npu compute_inline(s6)
#pragma npu fold(s3)
#pragma npu expand(acc)
#pragma npu stage(s11, "acc[p][oc] + bias[oc]", acc_in)
#pragma npu split(oc, 128, oco, oci)
#pragma npu reorder(oco, p, oci)
#pragma npu split(p, 64, pc, pr)
#pragma npu fission(oci, ic)
#pragma npu fission(pr, oci)
#pragma npu fission(pc, pr)
#pragma npu fission(oci_1, acc_in)
#pragma npu bind(pc_1, vu)
#pragma npu cache_read(input, nu_ib, root, input_ib)
#pragma npu cache_read(filter, nu_wb, oco, filter_wb)
#pragma npu cache_write(acc, nu_ob, oco, acc_ob)
#pragma npu cache_read(acc_ob, vu_vm, pc_1, acc_vm)
#pragma npu cache_read(bias, vu_vm, pc_1, bias_vm)
#pragma npu cache_read(output_multiplier, vu_vm, pc_1, output_multiplier_vm)
#pragma npu cache_read(output_shift, vu_vm, pc_1, output_shift_vm)
#pragma npu cache_write(acc_in, vu_vm, pc_1, acc_in_vm)
#pragma npu cache_write(output, vu_vm, pc_1, output_vm)
#pragma npu tensorize(pr, npu_nu_matmul_i8_bt)
#pragma npu vectorize(oci_1)
#pragma npu vectorize(oci_2)
#pragma npu double_buffer(filter_wb)

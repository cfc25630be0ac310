/* npu_vu_families.h -- the VU's op families, part of the ABI of npu_intrinsics.h
 * (which includes it). Generated from npu_vu_families.def (make vu-ops):
 * change the table, not this file.
 *
 * Every operand is in the VU_VM of one core; the op runs on that core.
 * 1-D forms run over n elements; boxes over rows x cols elements, rows
 * ldd (lda) apart; row reductions over cols >= 1 elements of each row;
 * windows over rows x cols outputs, the
 * kh x kw window of output (r, c) starting at a[(r*sh)*lda + c*sw]
 * (ldd >= cols when rows > 1; lda >= (cols-1)*sw + kw when the windows
 * cover more than one row). int8 and int32 arithmetic wraps (the kernel
 * language leaves int32 overflow undefined, as C does). A byte mask m is
 * one uint8_t per element, not 0 = the op's value. Cycles: one vector of
 * work per vector of the widest operand (a window: of a's box). Each op's
 * exact semantics is npu_intrinsics/<name>.c. */
#ifndef NPU_VU_FAMILIES_H
#define NPU_VU_FAMILIES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i] = a[i] + b[i] */
void npu_vu_add_i8_at(const char *file, int line, int8_t *dst, const int8_t *a, const int8_t *b, int n);
#define npu_vu_add_i8(...) npu_vu_add_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] + b[i] */
void npu_vu_add_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int n);
#define npu_vu_add_i32(...) npu_vu_add_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] + b[i] */
void npu_vu_add_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n);
#define npu_vu_add_f32(...) npu_vu_add_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] - b[i] */
void npu_vu_sub_i8_at(const char *file, int line, int8_t *dst, const int8_t *a, const int8_t *b, int n);
#define npu_vu_sub_i8(...) npu_vu_sub_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] - b[i] */
void npu_vu_sub_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int n);
#define npu_vu_sub_i32(...) npu_vu_sub_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] - b[i] */
void npu_vu_sub_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n);
#define npu_vu_sub_f32(...) npu_vu_sub_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] * b[i] */
void npu_vu_mul_i8_at(const char *file, int line, int8_t *dst, const int8_t *a, const int8_t *b, int n);
#define npu_vu_mul_i8(...) npu_vu_mul_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] * b[i] */
void npu_vu_mul_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int n);
#define npu_vu_mul_i32(...) npu_vu_mul_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] * b[i] */
void npu_vu_mul_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n);
#define npu_vu_mul_f32(...) npu_vu_mul_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] / b[i] */
void npu_vu_div_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n);
#define npu_vu_div_f32(...) npu_vu_div_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] < b[i] ? a[i] : b[i] */
void npu_vu_min_i8_at(const char *file, int line, int8_t *dst, const int8_t *a, const int8_t *b, int n);
#define npu_vu_min_i8(...) npu_vu_min_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] < b[i] ? a[i] : b[i] */
void npu_vu_min_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int n);
#define npu_vu_min_i32(...) npu_vu_min_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] < b[i] ? a[i] : b[i] */
void npu_vu_min_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n);
#define npu_vu_min_f32(...) npu_vu_min_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] > b[i] ? a[i] : b[i] */
void npu_vu_max_i8_at(const char *file, int line, int8_t *dst, const int8_t *a, const int8_t *b, int n);
#define npu_vu_max_i8(...) npu_vu_max_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] > b[i] ? a[i] : b[i] */
void npu_vu_max_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int n);
#define npu_vu_max_i32(...) npu_vu_max_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] > b[i] ? a[i] : b[i] */
void npu_vu_max_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n);
#define npu_vu_max_f32(...) npu_vu_max_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = fmaxf(a[i], b[i]) */
void npu_vu_fmax_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n);
#define npu_vu_fmax_f32(...) npu_vu_fmax_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = fminf(a[i], b[i]) */
void npu_vu_fmin_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n);
#define npu_vu_fmin_f32(...) npu_vu_fmin_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] + s */
void npu_vu_adds_i8_at(const char *file, int line, int8_t *dst, const int8_t *a, int n, int8_t s);
#define npu_vu_adds_i8(...) npu_vu_adds_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] + s */
void npu_vu_adds_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, int n, int32_t s);
#define npu_vu_adds_i32(...) npu_vu_adds_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] + s */
void npu_vu_adds_f32_at(const char *file, int line, float *dst, const float *a, int n, float s);
#define npu_vu_adds_f32(...) npu_vu_adds_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] - s */
void npu_vu_subs_i8_at(const char *file, int line, int8_t *dst, const int8_t *a, int n, int8_t s);
#define npu_vu_subs_i8(...) npu_vu_subs_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] - s */
void npu_vu_subs_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, int n, int32_t s);
#define npu_vu_subs_i32(...) npu_vu_subs_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] - s */
void npu_vu_subs_f32_at(const char *file, int line, float *dst, const float *a, int n, float s);
#define npu_vu_subs_f32(...) npu_vu_subs_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] * s */
void npu_vu_muls_i8_at(const char *file, int line, int8_t *dst, const int8_t *a, int n, int8_t s);
#define npu_vu_muls_i8(...) npu_vu_muls_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] * s */
void npu_vu_muls_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, int n, int32_t s);
#define npu_vu_muls_i32(...) npu_vu_muls_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] * s */
void npu_vu_muls_f32_at(const char *file, int line, float *dst, const float *a, int n, float s);
#define npu_vu_muls_f32(...) npu_vu_muls_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] / s */
void npu_vu_divs_f32_at(const char *file, int line, float *dst, const float *a, int n, float s);
#define npu_vu_divs_f32(...) npu_vu_divs_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = s / a[i] */
void npu_vu_rdivs_f32_at(const char *file, int line, float *dst, const float *a, int n, float s);
#define npu_vu_rdivs_f32(...) npu_vu_rdivs_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = 1.0f / sqrtf(a[i] + s) */
void npu_vu_rsqrt_f32_at(const char *file, int line, float *dst, const float *a, int n, float s);
#define npu_vu_rsqrt_f32(...) npu_vu_rsqrt_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] < s ? a[i] : s */
void npu_vu_scalar_min_i8_at(const char *file, int line, int8_t *dst, const int8_t *a, int n, int8_t s);
#define npu_vu_scalar_min_i8(...) npu_vu_scalar_min_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] < s ? a[i] : s */
void npu_vu_scalar_min_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, int n, int32_t s);
#define npu_vu_scalar_min_i32(...) npu_vu_scalar_min_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] < s ? a[i] : s */
void npu_vu_scalar_min_f32_at(const char *file, int line, float *dst, const float *a, int n, float s);
#define npu_vu_scalar_min_f32(...) npu_vu_scalar_min_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] > s ? a[i] : s */
void npu_vu_scalar_max_i8_at(const char *file, int line, int8_t *dst, const int8_t *a, int n, int8_t s);
#define npu_vu_scalar_max_i8(...) npu_vu_scalar_max_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] > s ? a[i] : s */
void npu_vu_scalar_max_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, int n, int32_t s);
#define npu_vu_scalar_max_i32(...) npu_vu_scalar_max_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] > s ? a[i] : s */
void npu_vu_scalar_max_f32_at(const char *file, int line, float *dst, const float *a, int n, float s);
#define npu_vu_scalar_max_f32(...) npu_vu_scalar_max_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = fmaxf(a[i], s) */
void npu_vu_scalar_fmax_f32_at(const char *file, int line, float *dst, const float *a, int n, float s);
#define npu_vu_scalar_fmax_f32(...) npu_vu_scalar_fmax_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = fminf(a[i], s) */
void npu_vu_scalar_fmin_f32_at(const char *file, int line, float *dst, const float *a, int n, float s);
#define npu_vu_scalar_fmin_f32(...) npu_vu_scalar_fmin_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] < 0 ? -a[i] : a[i] */
void npu_vu_abs_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, int n);
#define npu_vu_abs_i32(...) npu_vu_abs_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = fabsf(a[i]) */
void npu_vu_abs_f32_at(const char *file, int line, float *dst, const float *a, int n);
#define npu_vu_abs_f32(...) npu_vu_abs_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = -a[i] */
void npu_vu_neg_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, int n);
#define npu_vu_neg_i32(...) npu_vu_neg_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = -a[i] */
void npu_vu_neg_f32_at(const char *file, int line, float *dst, const float *a, int n);
#define npu_vu_neg_f32(...) npu_vu_neg_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] > 0 ? a[i] : 0 */
void npu_vu_relu_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, int n);
#define npu_vu_relu_i32(...) npu_vu_relu_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] > 0 ? a[i] : 0.0f */
void npu_vu_relu_f32_at(const char *file, int line, float *dst, const float *a, int n);
#define npu_vu_relu_f32(...) npu_vu_relu_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = expf(a[r*lda + c]) */
void npu_vu_exp_f32_at(const char *file, int line, float *dst, const float *a, int rows, int cols, int ldd, int lda);
#define npu_vu_exp_f32(...) npu_vu_exp_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = logf(a[r*lda + c]) */
void npu_vu_log_f32_at(const char *file, int line, float *dst, const float *a, int rows, int cols, int ldd, int lda);
#define npu_vu_log_f32(...) npu_vu_log_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = (int32_t)a[i] */
void npu_vu_cast_i8_i32_at(const char *file, int line, int32_t *dst, const int8_t *a, int n);
#define npu_vu_cast_i8_i32(...) npu_vu_cast_i8_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = (float)a[i] */
void npu_vu_cast_i32_f32_at(const char *file, int line, float *dst, const int32_t *a, int n);
#define npu_vu_cast_i32_f32(...) npu_vu_cast_i32_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = (int8_t)a[i] */
void npu_vu_cast_i32_i8_at(const char *file, int line, int8_t *dst, const int32_t *a, int n);
#define npu_vu_cast_i32_i8(...) npu_vu_cast_i32_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] != a[i] ? 0 : a[i] >= 2147483648.0f ? 2147483647 : a[i] < -2147483648.0f ? -2147483647 - 1 : (int32_t)a[i] */
void npu_vu_cast_f32_i32_at(const char *file, int line, int32_t *dst, const float *a, int n);
#define npu_vu_cast_f32_i32(...) npu_vu_cast_f32_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] < b[i] */
void npu_vu_cmplt_i8_at(const char *file, int line, uint8_t *dst, const int8_t *a, const int8_t *b, int n);
#define npu_vu_cmplt_i8(...) npu_vu_cmplt_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] < b[i] */
void npu_vu_cmplt_i32_at(const char *file, int line, uint8_t *dst, const int32_t *a, const int32_t *b, int n);
#define npu_vu_cmplt_i32(...) npu_vu_cmplt_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] < b[i] */
void npu_vu_cmplt_f32_at(const char *file, int line, uint8_t *dst, const float *a, const float *b, int n);
#define npu_vu_cmplt_f32(...) npu_vu_cmplt_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] <= b[i] */
void npu_vu_cmple_i8_at(const char *file, int line, uint8_t *dst, const int8_t *a, const int8_t *b, int n);
#define npu_vu_cmple_i8(...) npu_vu_cmple_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] <= b[i] */
void npu_vu_cmple_i32_at(const char *file, int line, uint8_t *dst, const int32_t *a, const int32_t *b, int n);
#define npu_vu_cmple_i32(...) npu_vu_cmple_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] <= b[i] */
void npu_vu_cmple_f32_at(const char *file, int line, uint8_t *dst, const float *a, const float *b, int n);
#define npu_vu_cmple_f32(...) npu_vu_cmple_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] == b[i] */
void npu_vu_cmpeq_i8_at(const char *file, int line, uint8_t *dst, const int8_t *a, const int8_t *b, int n);
#define npu_vu_cmpeq_i8(...) npu_vu_cmpeq_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] == b[i] */
void npu_vu_cmpeq_i32_at(const char *file, int line, uint8_t *dst, const int32_t *a, const int32_t *b, int n);
#define npu_vu_cmpeq_i32(...) npu_vu_cmpeq_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i] == b[i] */
void npu_vu_cmpeq_f32_at(const char *file, int line, uint8_t *dst, const float *a, const float *b, int n);
#define npu_vu_cmpeq_f32(...) npu_vu_cmpeq_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? a[i] : b[i] */
void npu_vu_select_u8_i8_at(const char *file, int line, int8_t *dst, const uint8_t *m, const int8_t *a, const int8_t *b, int n);
#define npu_vu_select_u8_i8(...) npu_vu_select_u8_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? a[i] : b[i] */
void npu_vu_select_u8_i32_at(const char *file, int line, int32_t *dst, const uint8_t *m, const int32_t *a, const int32_t *b, int n);
#define npu_vu_select_u8_i32(...) npu_vu_select_u8_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? a[i] : b[i] */
void npu_vu_select_u8_f32_at(const char *file, int line, float *dst, const uint8_t *m, const float *a, const float *b, int n);
#define npu_vu_select_u8_f32(...) npu_vu_select_u8_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? a[i] : e */
void npu_vu_select_u8s_f32_at(const char *file, int line, float *dst, const uint8_t *m, const float *a, int n, float e);
#define npu_vu_select_u8s_f32(...) npu_vu_select_u8s_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] > t ? a[i] : b[i] */
void npu_vu_select_gt_f32_at(const char *file, int line, float *dst, const float *m, const float *a, const float *b, int n, float t);
#define npu_vu_select_gt_f32(...) npu_vu_select_gt_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] > t ? a[i] : e */
void npu_vu_select_gts_f32_at(const char *file, int line, float *dst, const float *m, const float *a, int n, float t, float e);
#define npu_vu_select_gts_f32(...) npu_vu_select_gts_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = p[i] < q[i] ? a[i] : b[i] */
void npu_vu_select_lt_f32_at(const char *file, int line, float *dst, const float *p, const float *q, const float *a, const float *b, int n);
#define npu_vu_select_lt_f32(...) npu_vu_select_lt_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = p[i] <= q[i] ? a[i] : b[i] */
void npu_vu_select_le_f32_at(const char *file, int line, float *dst, const float *p, const float *q, const float *a, const float *b, int n);
#define npu_vu_select_le_f32(...) npu_vu_select_le_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = p[i] == q[i] ? a[i] : b[i] */
void npu_vu_select_eq_f32_at(const char *file, int line, float *dst, const float *p, const float *q, const float *a, const float *b, int n);
#define npu_vu_select_eq_f32(...) npu_vu_select_eq_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] > t ? a[i] : b[i] * c */
void npu_vu_select_gt_muls_f32_at(const char *file, int line, float *dst, const float *m, const float *a, const float *b, int n, float t, float c);
#define npu_vu_select_gt_muls_f32(...) npu_vu_select_gt_muls_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] >= t ? a[i] : b[i] * c */
void npu_vu_select_ge_muls_f32_at(const char *file, int line, float *dst, const float *m, const float *a, const float *b, int n, float t, float c);
#define npu_vu_select_ge_muls_f32(...) npu_vu_select_ge_muls_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] < t ? b[i] * c : a[i] */
void npu_vu_select_lt_muls_f32_at(const char *file, int line, float *dst, const float *m, const float *a, const float *b, int n, float t, float c);
#define npu_vu_select_lt_muls_f32(...) npu_vu_select_lt_muls_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] <= t ? b[i] * c : a[i] */
void npu_vu_select_le_muls_f32_at(const char *file, int line, float *dst, const float *m, const float *a, const float *b, int n, float t, float c);
#define npu_vu_select_le_muls_f32(...) npu_vu_select_le_muls_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] + b[i]) : c[i] */
void npu_vu_add_u8_i8_at(const char *file, int line, int8_t *dst, const uint8_t *m, const int8_t *a, const int8_t *b, const int8_t *c, int n);
#define npu_vu_add_u8_i8(...) npu_vu_add_u8_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] + b[i]) : c[i] */
void npu_vu_add_u8_i32_at(const char *file, int line, int32_t *dst, const uint8_t *m, const int32_t *a, const int32_t *b, const int32_t *c, int n);
#define npu_vu_add_u8_i32(...) npu_vu_add_u8_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] + b[i]) : c[i] */
void npu_vu_add_u8_f32_at(const char *file, int line, float *dst, const uint8_t *m, const float *a, const float *b, const float *c, int n);
#define npu_vu_add_u8_f32(...) npu_vu_add_u8_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] - b[i]) : c[i] */
void npu_vu_sub_u8_i8_at(const char *file, int line, int8_t *dst, const uint8_t *m, const int8_t *a, const int8_t *b, const int8_t *c, int n);
#define npu_vu_sub_u8_i8(...) npu_vu_sub_u8_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] - b[i]) : c[i] */
void npu_vu_sub_u8_i32_at(const char *file, int line, int32_t *dst, const uint8_t *m, const int32_t *a, const int32_t *b, const int32_t *c, int n);
#define npu_vu_sub_u8_i32(...) npu_vu_sub_u8_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] - b[i]) : c[i] */
void npu_vu_sub_u8_f32_at(const char *file, int line, float *dst, const uint8_t *m, const float *a, const float *b, const float *c, int n);
#define npu_vu_sub_u8_f32(...) npu_vu_sub_u8_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] * b[i]) : c[i] */
void npu_vu_mul_u8_i8_at(const char *file, int line, int8_t *dst, const uint8_t *m, const int8_t *a, const int8_t *b, const int8_t *c, int n);
#define npu_vu_mul_u8_i8(...) npu_vu_mul_u8_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] * b[i]) : c[i] */
void npu_vu_mul_u8_i32_at(const char *file, int line, int32_t *dst, const uint8_t *m, const int32_t *a, const int32_t *b, const int32_t *c, int n);
#define npu_vu_mul_u8_i32(...) npu_vu_mul_u8_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] * b[i]) : c[i] */
void npu_vu_mul_u8_f32_at(const char *file, int line, float *dst, const uint8_t *m, const float *a, const float *b, const float *c, int n);
#define npu_vu_mul_u8_f32(...) npu_vu_mul_u8_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] < b[i] ? a[i] : b[i]) : c[i] */
void npu_vu_min_u8_i8_at(const char *file, int line, int8_t *dst, const uint8_t *m, const int8_t *a, const int8_t *b, const int8_t *c, int n);
#define npu_vu_min_u8_i8(...) npu_vu_min_u8_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] < b[i] ? a[i] : b[i]) : c[i] */
void npu_vu_min_u8_i32_at(const char *file, int line, int32_t *dst, const uint8_t *m, const int32_t *a, const int32_t *b, const int32_t *c, int n);
#define npu_vu_min_u8_i32(...) npu_vu_min_u8_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] < b[i] ? a[i] : b[i]) : c[i] */
void npu_vu_min_u8_f32_at(const char *file, int line, float *dst, const uint8_t *m, const float *a, const float *b, const float *c, int n);
#define npu_vu_min_u8_f32(...) npu_vu_min_u8_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] > b[i] ? a[i] : b[i]) : c[i] */
void npu_vu_max_u8_i8_at(const char *file, int line, int8_t *dst, const uint8_t *m, const int8_t *a, const int8_t *b, const int8_t *c, int n);
#define npu_vu_max_u8_i8(...) npu_vu_max_u8_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] > b[i] ? a[i] : b[i]) : c[i] */
void npu_vu_max_u8_i32_at(const char *file, int line, int32_t *dst, const uint8_t *m, const int32_t *a, const int32_t *b, const int32_t *c, int n);
#define npu_vu_max_u8_i32(...) npu_vu_max_u8_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = m[i] ? (a[i] > b[i] ? a[i] : b[i]) : c[i] */
void npu_vu_max_u8_f32_at(const char *file, int line, float *dst, const uint8_t *m, const float *a, const float *b, const float *c, int n);
#define npu_vu_max_u8_f32(...) npu_vu_max_u8_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*lda + c] + b[r] */
void npu_vu_add_rows_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int rows, int cols, int ldd, int lda);
#define npu_vu_add_rows_f32(...) npu_vu_add_rows_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*lda + c] - b[r] */
void npu_vu_sub_rows_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int rows, int cols, int ldd, int lda);
#define npu_vu_sub_rows_f32(...) npu_vu_sub_rows_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*lda + c] * b[r] */
void npu_vu_mul_rows_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int rows, int cols, int ldd, int lda);
#define npu_vu_mul_rows_f32(...) npu_vu_mul_rows_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*lda + c] / b[r] */
void npu_vu_div_rows_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int rows, int cols, int ldd, int lda);
#define npu_vu_div_rows_f32(...) npu_vu_div_rows_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*lda + c] * g[c] + b[c] (rounded after each operation) */
void npu_vu_muladd_cols_f32_at(const char *file, int line, float *dst, const float *a, const float *g, const float *b, int rows, int cols, int ldd, int lda);
#define npu_vu_muladd_cols_f32(...) npu_vu_muladd_cols_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = dst[r*ldd + c] + (int32_t)a[r*lda + c] * (int32_t)b[0] */
void npu_vu_macs_i8_i32_at(const char *file, int line, int32_t *dst, const int8_t *a, const int8_t *b, int rows, int cols, int ldd, int lda);
#define npu_vu_macs_i8_i32(...) npu_vu_macs_i8_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = value (ldd >= cols when rows > 1) */
void npu_vu_fill_i32_at(const char *file, int line, int32_t *dst, int rows, int cols, int ldd, int32_t value);
#define npu_vu_fill_i32(...) npu_vu_fill_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r] = the row's y, from 0, y = y + x over each x = a[r*ld + c] in order (cols >= 1; ld >= cols when rows > 1) */
void npu_vu_reduce_sum_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, int rows, int cols, int ld);
#define npu_vu_reduce_sum_i32(...) npu_vu_reduce_sum_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r] = the row's y, from 0, y = y + x over each x = a[r*ld + c] in order (cols >= 1; ld >= cols when rows > 1) */
void npu_vu_reduce_sum_f32_at(const char *file, int line, float *dst, const float *a, int rows, int cols, int ld);
#define npu_vu_reduce_sum_f32(...) npu_vu_reduce_sum_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r] = the row's y, from its first element, y = x > y ? x : y over each x = a[r*ld + c] in order (cols >= 1; ld >= cols when rows > 1) */
void npu_vu_reduce_max_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, int rows, int cols, int ld);
#define npu_vu_reduce_max_i32(...) npu_vu_reduce_max_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r] = the row's y, from its first element, y = x > y ? x : y over each x = a[r*ld + c] in order (cols >= 1; ld >= cols when rows > 1) */
void npu_vu_reduce_max_f32_at(const char *file, int line, float *dst, const float *a, int rows, int cols, int ld);
#define npu_vu_reduce_max_f32(...) npu_vu_reduce_max_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r] = the row's y, from its first element, y = fmaxf(y, x) over each x = a[r*ld + c] in order (cols >= 1; ld >= cols when rows > 1) */
void npu_vu_reduce_fmax_f32_at(const char *file, int line, float *dst, const float *a, int rows, int cols, int ld);
#define npu_vu_reduce_fmax_f32(...) npu_vu_reduce_fmax_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r] = the row's y, from its first element, y = fminf(y, x) over each x = a[r*ld + c] in order (cols >= 1; ld >= cols when rows > 1) */
void npu_vu_reduce_fmin_f32_at(const char *file, int line, float *dst, const float *a, int rows, int cols, int ld);
#define npu_vu_reduce_fmin_f32(...) npu_vu_reduce_fmin_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r] = the row's y, from 0, y = y + x * z over each x = a[r*lda + c] and z = b[r*ldb + c] in order (cols >= 1; a and b may be the same rows) */
void npu_vu_reduce_dot_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int rows, int cols, int lda, int ldb);
#define npu_vu_reduce_dot_f32(...) npu_vu_reduce_dot_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = the window's y, from its first element, y = x > y ? x : y over each x of the window in row order */
void npu_vu_window_max_i8_at(const char *file, int line, int8_t *dst, const int8_t *a, int rows, int cols, int kh, int kw, int sh, int sw, int ldd, int lda);
#define npu_vu_window_max_i8(...) npu_vu_window_max_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = the window's y, from its first element, y = x > y ? x : y over each x of the window in row order */
void npu_vu_window_max_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, int rows, int cols, int kh, int kw, int sh, int sw, int ldd, int lda);
#define npu_vu_window_max_i32(...) npu_vu_window_max_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = the window's y, from its first element, y = x > y ? x : y over each x of the window in row order */
void npu_vu_window_max_f32_at(const char *file, int line, float *dst, const float *a, int rows, int cols, int kh, int kw, int sh, int sw, int ldd, int lda);
#define npu_vu_window_max_f32(...) npu_vu_window_max_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = the window's y, from its first element, y = fmaxf(y, x) over each x of the window in row order */
void npu_vu_window_fmax_f32_at(const char *file, int line, float *dst, const float *a, int rows, int cols, int kh, int kw, int sh, int sw, int ldd, int lda);
#define npu_vu_window_fmax_f32(...) npu_vu_window_fmax_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = the window's y, from 0, y = y + x over each x of the window in row order */
void npu_vu_window_sum_i8_at(const char *file, int line, int8_t *dst, const int8_t *a, int rows, int cols, int kh, int kw, int sh, int sw, int ldd, int lda);
#define npu_vu_window_sum_i8(...) npu_vu_window_sum_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = the window's y, from 0, y = y + x over each x of the window in row order */
void npu_vu_window_sum_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, int rows, int cols, int kh, int kw, int sh, int sw, int ldd, int lda);
#define npu_vu_window_sum_i32(...) npu_vu_window_sum_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = the window's y, from 0, y = y + x over each x of the window in row order */
void npu_vu_window_sum_f32_at(const char *file, int line, float *dst, const float *a, int rows, int cols, int kh, int kw, int sh, int sw, int ldd, int lda);
#define npu_vu_window_sum_f32(...) npu_vu_window_sum_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = the window's y, from 0, y = y + x over each x of the window in row order, then y / s */
void npu_vu_window_avg_f32_at(const char *file, int line, float *dst, const float *a, int rows, int cols, int kh, int kw, int sh, int sw, int ldd, int lda, float s);
#define npu_vu_window_avg_f32(...) npu_vu_window_avg_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i*sa] + b[i*sb] */
void npu_vu_add_str_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int n, int sa, int sb);
#define npu_vu_add_str_i32(...) npu_vu_add_str_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i*sa] + b[i*sb] */
void npu_vu_add_str_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n, int sa, int sb);
#define npu_vu_add_str_f32(...) npu_vu_add_str_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i*sa] - b[i*sb] */
void npu_vu_sub_str_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int n, int sa, int sb);
#define npu_vu_sub_str_i32(...) npu_vu_sub_str_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i*sa] - b[i*sb] */
void npu_vu_sub_str_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n, int sa, int sb);
#define npu_vu_sub_str_f32(...) npu_vu_sub_str_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i*sa] * b[i*sb] */
void npu_vu_mul_str_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int n, int sa, int sb);
#define npu_vu_mul_str_i32(...) npu_vu_mul_str_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i*sa] * b[i*sb] */
void npu_vu_mul_str_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n, int sa, int sb);
#define npu_vu_mul_str_f32(...) npu_vu_mul_str_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i*sa] < b[i*sb] ? a[i*sa] : b[i*sb] */
void npu_vu_min_str_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int n, int sa, int sb);
#define npu_vu_min_str_i32(...) npu_vu_min_str_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i*sa] < b[i*sb] ? a[i*sa] : b[i*sb] */
void npu_vu_min_str_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n, int sa, int sb);
#define npu_vu_min_str_f32(...) npu_vu_min_str_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i*sa] > b[i*sb] ? a[i*sa] : b[i*sb] */
void npu_vu_max_str_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int n, int sa, int sb);
#define npu_vu_max_str_i32(...) npu_vu_max_str_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = a[i*sa] > b[i*sb] ? a[i*sa] : b[i*sb] */
void npu_vu_max_str_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n, int sa, int sb);
#define npu_vu_max_str_f32(...) npu_vu_max_str_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = fmaxf(a[i*sa], b[i*sb]) */
void npu_vu_fmax_str_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n, int sa, int sb);
#define npu_vu_fmax_str_f32(...) npu_vu_fmax_str_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[i] = fminf(a[i*sa], b[i*sb]) */
void npu_vu_fmin_str_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int n, int sa, int sb);
#define npu_vu_fmin_str_f32(...) npu_vu_fmin_str_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*ra*lda + c*sa] + b[r*rb*ldb + c*sb] */
void npu_vu_add_str_plane_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int rows, int cols, int ra, int sa, int rb, int sb, int ldd, int lda, int ldb);
#define npu_vu_add_str_plane_i32(...) npu_vu_add_str_plane_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*ra*lda + c*sa] + b[r*rb*ldb + c*sb] */
void npu_vu_add_str_plane_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int rows, int cols, int ra, int sa, int rb, int sb, int ldd, int lda, int ldb);
#define npu_vu_add_str_plane_f32(...) npu_vu_add_str_plane_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*ra*lda + c*sa] - b[r*rb*ldb + c*sb] */
void npu_vu_sub_str_plane_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int rows, int cols, int ra, int sa, int rb, int sb, int ldd, int lda, int ldb);
#define npu_vu_sub_str_plane_i32(...) npu_vu_sub_str_plane_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*ra*lda + c*sa] - b[r*rb*ldb + c*sb] */
void npu_vu_sub_str_plane_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int rows, int cols, int ra, int sa, int rb, int sb, int ldd, int lda, int ldb);
#define npu_vu_sub_str_plane_f32(...) npu_vu_sub_str_plane_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*ra*lda + c*sa] * b[r*rb*ldb + c*sb] */
void npu_vu_mul_str_plane_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int rows, int cols, int ra, int sa, int rb, int sb, int ldd, int lda, int ldb);
#define npu_vu_mul_str_plane_i32(...) npu_vu_mul_str_plane_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*ra*lda + c*sa] * b[r*rb*ldb + c*sb] */
void npu_vu_mul_str_plane_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int rows, int cols, int ra, int sa, int rb, int sb, int ldd, int lda, int ldb);
#define npu_vu_mul_str_plane_f32(...) npu_vu_mul_str_plane_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*ra*lda + c*sa] < b[r*rb*ldb + c*sb] ? a[r*ra*lda + c*sa] : b[r*rb*ldb + c*sb] */
void npu_vu_min_str_plane_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int rows, int cols, int ra, int sa, int rb, int sb, int ldd, int lda, int ldb);
#define npu_vu_min_str_plane_i32(...) npu_vu_min_str_plane_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*ra*lda + c*sa] < b[r*rb*ldb + c*sb] ? a[r*ra*lda + c*sa] : b[r*rb*ldb + c*sb] */
void npu_vu_min_str_plane_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int rows, int cols, int ra, int sa, int rb, int sb, int ldd, int lda, int ldb);
#define npu_vu_min_str_plane_f32(...) npu_vu_min_str_plane_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*ra*lda + c*sa] > b[r*rb*ldb + c*sb] ? a[r*ra*lda + c*sa] : b[r*rb*ldb + c*sb] */
void npu_vu_max_str_plane_i32_at(const char *file, int line, int32_t *dst, const int32_t *a, const int32_t *b, int rows, int cols, int ra, int sa, int rb, int sb, int ldd, int lda, int ldb);
#define npu_vu_max_str_plane_i32(...) npu_vu_max_str_plane_i32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = a[r*ra*lda + c*sa] > b[r*rb*ldb + c*sb] ? a[r*ra*lda + c*sa] : b[r*rb*ldb + c*sb] */
void npu_vu_max_str_plane_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int rows, int cols, int ra, int sa, int rb, int sb, int ldd, int lda, int ldb);
#define npu_vu_max_str_plane_f32(...) npu_vu_max_str_plane_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = fmaxf(a[r*ra*lda + c*sa], b[r*rb*ldb + c*sb]) */
void npu_vu_fmax_str_plane_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int rows, int cols, int ra, int sa, int rb, int sb, int ldd, int lda, int ldb);
#define npu_vu_fmax_str_plane_f32(...) npu_vu_fmax_str_plane_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* dst[r*ldd + c] = fminf(a[r*ra*lda + c*sa], b[r*rb*ldb + c*sb]) */
void npu_vu_fmin_str_plane_f32_at(const char *file, int line, float *dst, const float *a, const float *b, int rows, int cols, int ra, int sa, int rb, int sb, int ldd, int lda, int ldb);
#define npu_vu_fmin_str_plane_f32(...) npu_vu_fmin_str_plane_f32_at(__FILE__, __LINE__, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif

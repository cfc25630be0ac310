/* Kernel rowsum of tests/golden/local.c as written, with checked arithmetic: npugen check's reference.
 */
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
  jmp_buf npg_jb;
  int *npg_site;
} NpgCk;

static void npg_ub(NpgCk *c, int site) {
  *c->npg_site = site;
  longjmp(c->npg_jb, 1);
}

#define NPG_LL_MAX 9223372036854775807LL
#define NPG_LL_MIN (-NPG_LL_MAX - 1)
static long long npg_add_ll(NpgCk *c, int s, long long a, long long b) {
  if (b > 0 ? a > NPG_LL_MAX - b : a < NPG_LL_MIN - b) npg_ub(c, s);
  return a + b;
}
static long long npg_sub_ll(NpgCk *c, int s, long long a, long long b) {
  if (b < 0 ? a > NPG_LL_MAX + b : a < NPG_LL_MIN + b) npg_ub(c, s);
  return a - b;
}
static long long npg_mul_ll(NpgCk *c, int s, long long a, long long b) {
  if (a > 0 ? (b > 0 ? a > NPG_LL_MAX / b : b < NPG_LL_MIN / a)
            : (b > 0 ? a < NPG_LL_MIN / b : a != 0 && b < NPG_LL_MAX / a))
    npg_ub(c, s);
  return a * b;
}

#define N 8

static void npg_checked_rowsum(NpgCk *npg_ck, const int16_t A[8][8], int32_t S[8]) {
  long long npg_t1;
  for (int i = 0; i < N; i++) {
    const int16_t (*npg_p1) = A[i];
    int32_t acc = 0;
    int32_t tmp[8];
    unsigned char npg_set_tmp[8] = {0};
    for (int j = 0; j < N; j++) {
      tmp[j] = ((((int)(npg_p1[j]))) * (2));
      npg_set_tmp[j] = 1;
      acc = (npg_t1 = (long long)(acc) + (long long)((npg_set_tmp[j] ? (void)0 : npg_ub(npg_ck, 1), tmp[j])), npg_t1 < (-2147483647 - 1) || npg_t1 > 2147483647 ? npg_ub(npg_ck, 2) : (void)0, (int)npg_t1);
    }
    S[i] = acc;
  }
}

void npg_ref_rowsum(void **npg_args) {
  NpgCk npg_ck;
  npg_ck.npg_site = (int *)npg_args[2];
  *npg_ck.npg_site = 0;
  if (!setjmp(npg_ck.npg_jb)) npg_checked_rowsum(&npg_ck, npg_args[0], npg_args[1]);
}

/* Kernel scale of tests/golden/sized.c as written, with checked arithmetic: npugen check's reference.
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

static void npg_checked_scale(NpgCk *npg_ck, int n, const int32_t X[7], int32_t Y[7], int32_t s) {
  long long npg_t1;
  long long npg_t2;
  for (int i = 0; i < 7; i++) {
    Y[i] = (npg_t2 = (long long)((npg_t1 = (long long)(X[i]) * (long long)(s), npg_t1 < (-2147483647 - 1) || npg_t1 > 2147483647 ? npg_ub(npg_ck, 1) : (void)0, (int)npg_t1)) + (long long)(1), npg_t2 < (-2147483647 - 1) || npg_t2 > 2147483647 ? npg_ub(npg_ck, 2) : (void)0, (int)npg_t2);
  }
}

void npg_ref_scale(void **npg_args) {
  NpgCk npg_ck;
  npg_ck.npg_site = (int *)npg_args[4];
  *npg_ck.npg_site = 0;
  if (!setjmp(npg_ck.npg_jb)) npg_checked_scale(&npg_ck, *(int *)npg_args[0], npg_args[1], npg_args[2], *(int32_t *)npg_args[3]);
}

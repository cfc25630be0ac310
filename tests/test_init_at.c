/* init_at(init, loop) (schedule/init_at.c): a reduction's init moves into
 * the first pass of a K-split's loop, so the NU matmul computes it with its
 * accumulate flag (`ko != 0`): no init runs on the CU before the K tiles
 * (mm_i8_longk's K-split spent 16,384 of its 143,963 cycles there). Each
 * variant is checked by execution against the kernel as written. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"

#define KERNEL                                                                                       \
  "#include <stdint.h>\n"                                                                            \
  "void mm(const int8_t A[64][2048], const int8_t B[2048][64], int32_t C[64][64]) {\n"               \
  "  for (int i = 0; i < 64; i++)\n"                                                                 \
  "    for (int j = 0; j < 64; j++) {\n"                                                             \
  "      init: C[i][j] = 0;\n"                                                                       \
  "      for (int k = 0; k < 2048; k++)\n"                                                           \
  "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"                                \
  "    }\n"                                                                                          \
  "}\n"

Test(init_at, a_k_splits_init_is_the_nus_accumulate_flag) {
  const char *src = KERNEL "#pragma npu schedule(mm, ks)\n"
                           "#pragma npu split(k, 512, ko, ki)\n"
                           "#pragma npu init_at(init, ko)\n"
                           "#pragma npu reorder(ko, i, j)\n"
                           "#pragma npu cache_write(C, nu_ob, root, C_ob)\n"
                           "#pragma npu cache_read(A, nu_ib, ko, A_ib)\n"
                           "#pragma npu cache_read(B, nu_wb, ko, B_wb)\n"
                           "#pragma npu tensorize(i, npu_nu_matmul_i8)\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  const char *c = npg_emit_source(s, 1);
  cr_expect(strstr(c, "/*ldc=*/64, ko != 0);"), "%s", c);
  cr_expect(!strstr(c, "= 0; /* init */"), "the init still runs on the CU:\n%s", c);
  NpgCheckResult r;
  cr_expect(npg_check_orders(s, 1, 1, 0, &r) && r.exact, "%s", r.message);
  npg_close(s);
}

Test(init_at, refuses_what_is_not_an_init_right_before_the_loop) {
  const struct {
    const char *steps, *error;
  } bad[] = {
      {"#pragma npu split(k, 512, ko, ki)\n#pragma npu init_at(update, ki)\n",
       "update (line 7) is not a reduction's init: it must be a plain assignment (=)"},
      {"#pragma npu split(k, 512, ko, ki)\n#pragma npu init_at(init, ki)\n", "loop ki must directly follow init (line 5)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char src[2048];
    snprintf(src, sizeof src, KERNEL "#pragma npu schedule(mm, v)\n%s", bad[i].steps);
    NpgSession *s = npg_open_string("k.c", src, strlen(src));
    cr_expect(npg_error_count(s) > 0 && strstr(npg_errors(s), bad[i].error), "%s: %s", bad[i].steps, npg_errors(s));
    npg_close(s);
  }
}

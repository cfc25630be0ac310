#include "tests/test_sched_util.h"

const char test_matmul[] =
    "#include <stdint.h>\n"
    "#define M 64\n"
    "void matmul(const int8_t A[M][32], const int8_t B[32][48], int32_t C[M][48]) {\n"
    "  for (int i = 0; i < M; i++)\n"
    "    for (int j = 0; j < 48; j++) {\n"
    "      init: C[i][j] = 0;\n"
    "      for (int k = 0; k < 32; k++)\n"
    "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
    "    }\n"
    "}\n";

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

NpgSession *open_ok(const char *kernel, const char *pragmas) {
  size_t nk = strlen(kernel), np = strlen(pragmas);
  char *src = malloc(nk + np + 1);
  cr_assert(src);
  memcpy(src, kernel, nk);
  memcpy(src + nk, pragmas, np + 1);
  NpgSession *s = npg_open_string("k.c", src, nk + np);
  free(src);
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  return s;
}

void check_fails(const char *src, const char *want) {
  NpgSession *s = open_ok(src, "");
  for (int v = 0; v < npg_variant_count(s); v++) {
    NpgCheckResult r;
    cr_expect(!npg_check(s, v, 1, &r), "%s passed", npg_variant_name(s, v));
    cr_expect_str_eq(r.message, want, "variant %s", npg_variant_name(s, v));
  }
  npg_close(s);
}

int checked_result(NpgSession *s, const char *variant, NpgCheckResult *first) {
  int i = npg_variant_index(s, variant);
  cr_assert_geq(i, 0, "no variant %s", variant);
  for (uint64_t seed = 1; seed <= 2; seed++) {
    NpgCheckResult r;
    cr_assert(npg_check(s, i, seed, &r), "%s: %s\n%s", variant, r.message, npg_emit_source(s, i));
    cr_assert_gt(r.compared, 0);
    if (seed == 1 && first) *first = r;
  }
  return i;
}

int checked(NpgSession *s, const char *variant) { return checked_result(s, variant, NULL); }

int checked_once(NpgSession *s, const char *variant) {
  int i = npg_variant_index(s, variant);
  cr_assert_geq(i, 0, "no variant %s", variant);
  NpgCheckResult r;
  cr_assert(npg_check(s, i, 1, &r), "%s: %s", variant, r.message);
  cr_assert_gt(r.compared, 0);
  return i;
}

void has(const char *text, const char *part) {
  cr_assert(strstr(text, part), "expected to find:\n%s\nin:\n%s", part, text);
}

void lacks(const char *text, const char *part) {
  cr_assert_null(strstr(text, part), "did not expect:\n%s\nin:\n%s", part, text);
}

const char *steps_then(const char *a, const char *b) {
  static char buf[8192];
  int n = snprintf(buf, sizeof buf, "%s%s", a, b);
  cr_assert(n >= 0 && (size_t)n < sizeof buf, "the steps do not fit in %zu bytes", sizeof buf);
  return buf;
}

void refused(const char *kernel, const char *pragmas, const char *want) {
  char src[8192];
  snprintf(src, sizeof src, "%s%s", kernel, pragmas);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_gt(npg_error_count(s), 0, "accepted:\n%s", pragmas);
  const char *e = npg_errors(s);
  const char *nl = strchr(e, '\n');
  char first[2048];
  snprintf(first, sizeof first, "%.*s", nl ? (int)(nl - e) : (int)strlen(e), e);
  cr_assert_str_eq(first, want, "full errors:\n%s", e);
  npg_close(s);
}

char *target_file(const char *name, int ddr_bandwidth, int dma_channels, int max_tokens) {
  char *path = strdup("/tmp/npugen-target-XXXXXX");
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f,
          "[target]\nname = %s\n[ddr]\nbandwidth = %d\nlatency = 200\n[dm]\nsize = 2MiB\nbandwidth = 256\n"
          "latency = 16\n[nu]\nib_size = 256KiB\nwb_size = 256KiB\nob_size = 256KiB\nmacs_int8 = 1024\n"
          "macs_fp32 = 256\noverhead = 32\n[vu]\ncount = 4\nvm_size = 128KiB\nvector_bytes = 64\noverhead = 4\n"
          "[dma]\nchannels = %d\nmax_tokens = %d\n[cu]\nissue_cycles = 1\nqueue_depth = 8\naccess_cycles = 1\n",
          name, ddr_bandwidth, dma_channels, max_tokens);
  fclose(f);
  return path;
}

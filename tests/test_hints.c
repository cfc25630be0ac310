/* Hints that speak (jit/strict.c, schedule/vectorize.c): a vectorize on
 * vector memory that no VU instruction computes stays a hint, and emit and
 * check say so on stderr at the pragma, naming the nearest instruction and
 * the sub-expression that differs; --strict and `#pragma npu strict` make
 * it an error, and the check fails the variant. Run as a user runs npugen. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "npugen.h"
#include "tests/test_cli_util.h"

/* No VU instruction computes sqrtf, so no sequence computes the tree
 * (X * 2 + 1 is a sequence now: schedule/isel_cover.c). */
static const char *two_ops =
    "#include <math.h>\n"
    "#define N 64\n"
    "void k(const float X[N][N], float Y[N][N]) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int j = 0; j < N; j++)\n"
    "      Y[i][j] = sqrtf(fabsf(X[i][j])) + 1.0f;\n"
    "}\n"
    "#pragma npu schedule(k, v)\n"
    "#pragma npu cache_read(X, vu_vm, root, X_vm)\n"
    "#pragma npu cache_write(Y, vu_vm, root, Y_vm)\n"
    "#pragma npu vectorize(j)\n";

static const char *warning =
    "hint.c:11:23: warning: vectorize: vectorize(j) stays a hint: no VU instruction computes the nest under j "
    "(nearest npu_vu_add_f32: the expressions differ: 'sqrtf(fabsf(X_vm[i][j]))' in s1 (line 6) against the "
    "intrinsic's 'a[i]' (line 12); as a sequence of instructions: no VU instruction computes "
    "'sqrtf(fabsf(X_vm[i][j]))' (nearest npu_vu_abs_f32: the calls differ: 'sqrtf(fabsf(X_vm[i][j]))' in s1 "
    "(line 6) against the intrinsic's 'fabsf(a[i])' (line 13)))\n";

/* The kernel (and `extra` after it) as hint.c in a fresh directory; the
 * command `npugen ARGS` run there, stdout and stderr in out. */
static int npugen_on(const char *extra, const char *args, char *out, size_t n) {
  char dir[] = "/tmp/npg_hints_XXXXXX";
  cr_assert(mkdtemp(dir));
  char path[256], cmd[8192];
  snprintf(path, sizeof path, "%s/hint.c", dir);
  FILE *f = fopen(path, "w");
  cr_assert(f);
  fputs(two_ops, f);
  fputs(extra, f);
  fclose(f);
  char cwd[4096];
  cr_assert(getcwd(cwd, sizeof cwd));
  const char *np = npugen();
  snprintf(cmd, sizeof cmd, "cd %s && %s%s%s %s hint.c 2>&1", dir, np[0] == '/' ? "" : cwd, np[0] == '/' ? "" : "/",
           np, args);
  int rc = run(cmd, out, n);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert(system(cmd) == 0);
  return rc;
}

Test(hints, a_vectorize_that_stays_a_hint_warns_in_emit_and_check) {
  static char out[16384];
  cr_assert_eq(npugen_on("", "emit", out, sizeof out), 0, "%s", out);
  cr_assert(strstr(out, warning), "no warning:\n%s", out);
  cr_assert_eq(npugen_on("", "check", out, sizeof out), 0, "%s", out);
  cr_assert(strstr(out, warning), "no warning:\n%s", out);
  cr_assert(strstr(out, "v                        PASS"), "%s", out);
}

Test(hints, strict_makes_a_hint_not_met_an_error) {
  static char out[16384];
  const char *error = strstr(warning, "vectorize: vectorize(j)");
  cr_assert_eq(npugen_on("", "emit --strict", out, sizeof out), 1, "%s", out);
  cr_assert(strstr(out, "hint.c:11:23: error: ") && strstr(out, error), "%s", out);
  cr_assert_eq(npugen_on("", "check --strict", out, sizeof out), 1, "%s", out);
  cr_assert(strstr(out, "v                        FAIL  strict: vectorize(j) (line 11) stays a hint: no VU instruction "
                        "computes the nest under j (nearest npu_vu_add_f32"),
            "%s", out);
  cr_assert(strstr(out, "k                        PASS"), "the kernel as written holds no hint:\n%s", out);
  /* the pragma does the same */
  cr_assert_eq(npugen_on("#pragma npu strict\n", "check", out, sizeof out), 1, "%s", out);
  cr_assert(strstr(out, "hint.c:11:23: error: ") && strstr(out, "v                        FAIL  strict:"), "%s", out);
}

/* A vectorize that a VU instruction computes weakens nothing: strict passes. */
Test(hints, a_hint_met_passes_under_strict) {
  static const char *one_op =
      "#define N 64\n"
      "void k(const float X[N][N], float Y[N][N]) {\n"
      "  for (int i = 0; i < N; i++)\n"
      "    for (int j = 0; j < N; j++)\n"
      "      Y[i][j] = X[i][j] * 2.0f;\n"
      "}\n"
      "#pragma npu schedule(k, v)\n"
      "#pragma npu cache_read(X, vu_vm, root, X_vm)\n"
      "#pragma npu cache_write(Y, vu_vm, root, Y_vm)\n"
      "#pragma npu vectorize(j)\n"
      "#pragma npu strict\n";
  NpgSession *s = npg_open_string("k.c", one_op, strlen(one_op));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  cr_assert(!strstr(npg_errors(s), "warning"), "%s", npg_errors(s));
  NpgCheckResult r;
  cr_assert(npg_check(s, npg_variant_index(s, "v"), 1, &r), "%s", r.message);
  npg_close(s);
  /* and the API's switch: the hint's warning becomes an error */
  s = npg_open_string("k.c", two_ops, strlen(two_ops));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  npg_set_strict(s, true);
  cr_assert_eq(npg_error_count(s), 1, "%s", npg_errors(s));
  cr_assert(!npg_check(s, npg_variant_index(s, "v"), 1, &r));
  cr_assert(strstr(r.message, "strict: vectorize(j) (line 11) stays a hint"), "%s", r.message);
  npg_close(s);
}

/* A requantization whose multiplier (a scalar parameter) is outside the
 * domain npu_vu_requant_i8 is defined for: the call's fallback, the nest
 * as written, runs, and the check's line says so; --strict fails it. The
 * kernel's own temporary r is inlined by tensorize (schedule/expand.c). */
static const char *requant =
    "#include <stdint.h>\n"
    "#include <math.h>\n"
    "void k(const int32_t a[256], int8_t y[256], int multiplier, int shift, int zero_point) {\n"
    "  for (int i = 0; i < 256; i++) {\n"
    "    double r = floor(ldexp((double)a[i] * (double)multiplier, -shift) + 0.5) + zero_point;\n"
    "    y[i] = (int8_t)(r > 127.0 ? 127.0 : r < -128.0 ? -128.0 : r);\n"
    "  }\n"
    "}\n"
    "#pragma npu inputs(k, multiplier, %d, %d)\n"
    "#pragma npu inputs(k, shift, %d, %d)\n"
    "#pragma npu inputs(k, zero_point, -3, -3)\n"
    "#pragma npu schedule(k, vu)\n"
    "#pragma npu cache_read(a, vu_vm, root, a_vm)\n"
    "#pragma npu cache_write(y, vu_vm, root, y_vm)\n"
    "#pragma npu tensorize(i, npu_vu_requant_i8)\n";

static NpgSession *open_requant(int multiplier, int shift) {
  static char src[4096];
  snprintf(src, sizeof src, requant, multiplier, multiplier, shift, shift);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  return s;
}

Test(hints, a_fallback_taken_at_run_time_is_on_the_checks_line) {
  NpgSession *s = open_requant(1073741824, 38); /* a TFLite multiplier: 2^30 */
  int v = npg_variant_index(s, "vu");
  NpgCheckResult r;
  cr_assert(npg_check(s, v, 1, &r), "%s", r.message);
  cr_assert(strstr(r.summary, "; 1 call of npu_vu_requant_i8 ran the nest as written instead (operands outside its "
                              "domain: a fallback)"), "%s", r.summary);
  cr_assert_eq(r.fallbacks, 1);
  npg_set_strict(s, true);
  cr_assert(!npg_check(s, v, 1, &r));
  cr_assert_str_eq(r.message, "strict: 1 call of npu_vu_requant_i8 ran the nest as written instead (its operands "
                              "outside the domain it is defined for)");
  npg_close(s);
  s = open_requant(1000, 12); /* inside: the instruction runs */
  npg_set_strict(s, true);
  cr_assert(npg_check(s, npg_variant_index(s, "vu"), 1, &r), "%s", r.message);
  cr_assert(!strstr(r.summary, "fallback") && r.fallbacks == 0, "%s", r.summary);
  npg_close(s);
}

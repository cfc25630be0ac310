/* The C API through npugen::npugen: every variant of a kernel file passes
 * npugen's own check. The program defines names that npugen and its
 * simulator use inside themselves: the libraries export their API alone,
 * so these link. */
#include <stdio.h>

#include <npugen.h>

int arena_alloc(int n);
int region_make(int n);
int arena_alloc(int n) { return n + 1; }
int region_make(int n) { return n * 2; }

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  NpgSession *s = npg_open_file(argv[1]);
  int failed = npg_error_count(s) != 0, n = npg_variant_count(s);
  fputs(npg_errors(s), stderr);
  for (int i = 0; i < n; i++) {
    NpgCheckResult r;
    bool ok = npg_check(s, i, 1, &r);
    printf("%s %s\n", npg_variant_name(s, i), ok ? "PASS" : r.message);
    failed += !ok;
  }
  npg_close(s);
  return failed || n == 0 || arena_alloc(1) != 2 || region_make(2) != 4;
}

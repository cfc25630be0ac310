/* Names for scalar types (frontend/type.c, preproc.c): a typedef or a
 * macro naming a type means that type, and the emitted code spells it as
 * written in the source, which repeats each definition once; the header
 * names the C types they stand for; both compile alone as strict C99. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

static void write_file(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  cr_assert(f);
  fputs(text, f);
  fclose(f);
}

static bool compiles(const char *dir, const char *file) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "cd %s && gcc -std=c99 -Wall -Wextra -pedantic -Werror -c %s -o /dev/null 2>&1", dir, file);
  return system(cmd) == 0;
}

Test(type_names, typedefs_and_type_macros_are_spelled_as_written) {
  NpgSession *s = npg_open_file("tests/kernels/type_names.c");
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  int v = checked(s, "axpy_split");
  const char *c = npg_emit_source(s, v), *h = npg_emit_header(s, v);
  /* the header names the types' own C types: it defines no macro and no
   * typedef of the kernel's, which a user's file may have too */
  lacks(h, "DATA_TYPE");
  lacks(h, "typedef");
  has(h, "void axpy_split(float alpha, const int8_t x[AXPY_SPLIT_N], float y[AXPY_SPLIT_N]);");
  has(c, "#include \"axpy_split.h\"\n\ntypedef int8_t base;\ntypedef DATA_TYPE real;\ntypedef DATA_TYPE scalar;\n");
  has(c, "void axpy_split(DATA_TYPE alpha, const base x[N], real y[N])");
  has(c, "scalar t = alpha * (DATA_TYPE)x[");
  has(c, " + (real)(t * 0.5f);");
  char dir[] = "/tmp/npg-types-XXXXXX";
  cr_assert(mkdtemp(dir));
  write_file(dir, "axpy_split.c", c);
  write_file(dir, "axpy_split.h", h);
  /* two variants' headers in one file: the kernel's and the variant's */
  write_file(dir, "axpy.h", npg_emit_header(s, npg_variant_index(s, "axpy")));
  write_file(dir, "use.c", "#include \"axpy.h\"\n#include \"axpy_split.h\"\n");
  cr_expect(compiles(dir, "axpy_split.c"), "the source does not compile:\n%s", c);
  cr_expect(compiles(dir, "use.c"), "the header alone does not compile:\n%s", h);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  (void)!system(cmd);
  npg_close(s);
}

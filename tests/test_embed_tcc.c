/* The emitted .c of a kernel with sizes builds with tcc 0.9.27 (libtcc,
 * the compiler npg_jit_run uses) as well as gcc: tcc refuses an array
 * parameter sized by an earlier one (`A[m][K]` after `int m`: "'m'
 * undeclared"), so the definition spells that first extent, which C
 * ignores, NPUGEN_FIRST_EXTENT(m): m, but nothing for tcc, as the header's
 * tcc prototype has it (trial 44e: the headers built with tcc, the .c did
 * not). */
#include <criterion/criterion.h>
#include <libtcc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npugen.h"
#include "tests/test_cli_util.h"

static const char *sized = "#include <stdint.h>\n"
                           "#define K 8\n"
                           "void mm(int m, const int8_t A[m][K], const int8_t B[K][4], int32_t C[m][4]) {\n"
                           "  for (int i = 0; i < m; i++)\n"
                           "    for (int j = 0; j < 4; j++) {\n"
                           "      C[i][j] = 0;\n"
                           "      for (int k = 0; k < K; k++) C[i][j] += A[i][k] * B[k][j];\n"
                           "    }\n"
                           "}\n"
                           "#pragma npu assume(mm, m >= 1, m <= 4096)\n"
                           "#pragma npu schedule(mm, mm_rows)\n"
                           "#pragma npu split(i, 2, io, ii)\n";

static void put(const char *dir, const char *name, const char *text) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  cr_assert(f, "%s", path);
  fputs(text, f);
  fclose(f);
}

static void on_error(void *opaque, const char *msg) {
  char *buf = opaque;
  snprintf(buf + strlen(buf), 4096 - strlen(buf), "%s\n", msg);
}

/* text (its header in dir) compiles with libtcc */
static void tcc_compiles(const char *dir, const char *text) {
  char errors[4096] = "";
  TCCState *s = tcc_new();
  tcc_set_error_func(s, errors, on_error);
  tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
  tcc_add_include_path(s, NPG_INTRINSICS_INCLUDE_DIR);
  tcc_add_include_path(s, dir);
  cr_expect_eq(tcc_compile_string(s, text), 0, "%s\n%s", errors, text);
  tcc_delete(s);
}

Test(embed_tcc, a_sized_kernels_emitted_c_builds_with_tcc_and_gcc) {
  char dir[] = "/tmp/npugen-embed-tcc-XXXXXX", cmd[8192], out[8192];
  cr_assert(mkdtemp(dir));
  NpgSession *s = npg_open_string("mm.c", sized, strlen(sized));
  cr_assert_eq(npg_variant_count(s), 2, "%s", npg_errors(s));
  for (int v = 1; v < 2; v++) { /* the scheduled variant (the kernel as written opens alike) */
    const char *name = npg_variant_name(s, v), *c = npg_emit_source(s, v);
    char file[256];
    snprintf(file, sizeof file, "%s.h", name);
    put(dir, file, npg_emit_header(s, v));
    snprintf(file, sizeof file, "%s.c", name);
    put(dir, file, c);
    tcc_compiles(dir, c);
    snprintf(cmd, sizeof cmd, "gcc -std=c99 -Wall -Wextra -pedantic -Werror -Wshadow -Wmissing-prototypes -I%s -I%s "
             "-c %s/%s -o /dev/null 2>&1", NPG_INTRINSICS_INCLUDE_DIR, dir, dir, file);
    cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
  }
  cr_expect(strstr(npg_emit_source(s, 1), "#ifdef __TINYC__ /* tcc 0.9.27 takes no variable-length array parameter: "
                                           "an array parameter's first extent, which C ignores, left out */\n"
                                           "#define NPUGEN_FIRST_EXTENT(e)\n#else\n#define NPUGEN_FIRST_EXTENT(e) e\n"
                                           "#endif\n\nvoid mm_rows(int m, const int8_t A[NPUGEN_FIRST_EXTENT(m)][K], "
                                           "const int8_t B[K][4], int32_t C[NPUGEN_FIRST_EXTENT(m)][4]) {\n"),
            "%s", npg_emit_source(s, 1));
  npg_close(s);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_expect_eq(run(cmd, out, sizeof out), 0);
}

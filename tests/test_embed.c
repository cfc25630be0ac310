/* npugen in a real project's tree: headers of several kernel files in one
 * user file, in C (gcc, clang, tcc) and C++. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test_cli_util.h"

/* Runs a script in a fresh directory $d, the repository $r, the command $n. */
static int in_tmp(const char *script, char *out, size_t n) {
  char cmd[16384];
  snprintf(cmd, sizeof cmd,
           "r=$PWD; n=%s; case $n in /*) ;; *) n=$r/$n;; esac; d=$(mktemp -d) && cd $d && { %s; } 2>&1; "
           "rc=$?; cd $r; rm -rf $d; exit $rc",
           npugen(), script);
  return run(cmd, out, n);
}

/* The three kernel files of tests/embed_project, emitted into out/. */
#define EMIT_THREE                                                                                 \
  "for k in pool mm rows; do $n emit $r/tests/embed_project/$k.c --schedule $r/tests/embed_project/$k.sched " \
  "-o out || exit 1; done"

Test(embed, headers_define_only_names_of_their_variant) {
  char out[16384];
  /* each #define of a header: the guard, or a size prefixed with the variant's name */
  int rc = in_tmp(EMIT_THREE " && for h in out/*.h; do v=$(basename $h .h | tr a-z A-Z); "
                  "grep '^#define' $h | grep -v \"^#define NPUGEN_.*_${v}_H$\" | grep -v \"^#define ${v}_[A-Z]* [0-9]*$\"; "
                  "done; echo; cat out/mm_tiled.h out/rows_split.h | grep -v '^ \\*'",
                  out, sizeof out);
  cr_assert_eq(rc, 0, "%s", out);
  cr_expect(out[0] == '\n', "a header defines another macro:\n%s", out);
  cr_expect(strstr(out, "#ifndef NPUGEN_MM_MM_TILED_H\n#define NPUGEN_MM_MM_TILED_H\n\n#define MM_TILED_M 8\n"
                        "#define MM_TILED_K 8\n#define MM_TILED_N 8\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
                        "void mm_tiled(const float A[MM_TILED_M][MM_TILED_K], const float B[MM_TILED_K][MM_TILED_N], "
                        "float C[MM_TILED_M][MM_TILED_N]);\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n"),
            "%s", out);
  cr_expect(strstr(out, "#if defined(__cplusplus) || defined(__TINYC__) /* C++ and tcc 0.9.27 take no variable-length "
                        "array parameter */\n"
                        "void rows_split(int n, const int32_t x[/* n */][ROWS_SPLIT_K], int32_t y[/* n */][ROWS_SPLIT_K]);\n"
                        "#else\n"
                        "void rows_split(int n, const int32_t x[n][ROWS_SPLIT_K], int32_t y[n][ROWS_SPLIT_K]);\n#endif\n"),
            "%s", out);
}

Test(embed, three_kernel_files_headers_compile_together_in_c_cxx_and_tcc) {
  char out[16384];
  const char *compilers[] = {
      "gcc -std=c99 -Wall -Wextra -Werror -Wshadow -c $r/tests/embed_project/main.c -Iout -o main.o",
      "clang -std=c99 -Wall -Wextra -Werror -Wshadow -c $r/tests/embed_project/main.c -Iout -o main.o",
      "tcc -Wall -Werror -c $r/tests/embed_project/main.c -Iout -o main.o",
      "g++ -std=c++11 -Wall -Wextra -pedantic -Werror -c $r/tests/embed_project/use.cc -Iout -o use.o",
      "clang++ -std=c++11 -Wall -Wextra -pedantic -Werror -c $r/tests/embed_project/use.cc -Iout -o use.o",
      /* the emitted files themselves, as strictly as a reviewer's build takes them */
      "for c in out/*.c; do gcc -std=c99 -Wall -Wextra -pedantic -Werror -Wshadow -Wmissing-prototypes -Iout -c $c "
      "-o x.o || exit 1; done",
  };
  for (size_t i = 0; i < sizeof compilers / sizeof *compilers; i++) {
    char script[4096];
    snprintf(script, sizeof script, EMIT_THREE " && %s", compilers[i]);
    cr_expect_eq(in_tmp(script, out, sizeof out), 0, "%s:\n%s", compilers[i], out);
  }
}

/* npugen in a real project's tree (docs/embedding.md): headers of several
 * kernel files in one user file, in C (gcc, clang, tcc) and C++; emit -o
 * that never loses a file (the manifest); libraries that export their API
 * alone. The CMake package is built by tests/embed_project/run.sh (make
 * install-smoke). */
#include <criterion/criterion.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npugen.h"
#include "tests/test_cli_util.h"
#include "tune/tune.h"

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

/* Kernel file $1.c: kernel $2 copying float arrays of extent macro $3 ($4). */
#define LOOKALIKE_KERNEL                                                                                        \
  "kernel() { printf '%s\\n' \"#define $3 $4\" \"void $2(const float x[$3], float y[$3]) {\" "                   \
  "\"  for (int i = 0; i < $3; i++) y[i] = x[i];\" '}' > $1.c; } && "

/* Names that read alike once joined by '_': variant conv with macro OUT_C
 * and variant conv_out with macro C (both CONV_OUT_C), kernel c of a_b.c
 * and kernel b_c of a.c (both NPUGEN_A_B_C_H). Their headers coexist: a
 * pair that is not plain (a macro with '_') carries a hash suffix
 * (lower/prototype.c). */
Test(embed, headers_of_lookalike_names_compile_together) {
  char out[16384];
  int rc = in_tmp(LOOKALIKE_KERNEL "kernel conv conv OUT_C 4 && kernel conv_out conv_out C 8 && "
                  "kernel a_b c N 2 && kernel a b_c N 3 && for f in conv conv_out a_b a; do $n emit $f.c -o out || exit 1; done && "
                  "printf '%s\\n' '#include \"conv.h\"' '#include \"conv_out.h\"' '#include \"c.h\"' '#include \"b_c.h\"' "
                  "'float x[8], y[8];' 'void use(void);' "
                  "'void use(void) { conv(x, y); conv_out(x, y); c(x, y); b_c(x, y); }' > use.c && "
                  "gcc -std=c99 -Wall -Wextra -Werror -Iout -c use.c -o use.o && grep -h '^#define' out/*.h",
                  out, sizeof out);
  cr_assert_eq(rc, 0, "%s", out);
  /* the plain pair (no '_' in the macro) reads back and keeps its name; the other, beside it, gets a hash suffix */
  cr_expect(strstr(out, "#define CONV_OUT_C 8\n"), "%s", out);
  cr_expect(strstr(out, "#define CONV_OUT_C_0"), "%s", out);
  cr_expect(strstr(out, "#define NPUGEN_AB_C_H\n"), "%s", out);
  cr_expect(strstr(out, "#define NPUGEN_A_B_C_H\n"), "%s", out);
}

/* Writes dir/file, a kernel file with one kernel of that name. */
static void put_kernel(const char *dir, const char *file, const char *kernel) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "w");
  cr_assert(f, "%s", path);
  fprintf(f, "void %s(const float x[4], float y[4]) {\n  for (int i = 0; i < 4; i++) y[i] = x[i];\n}\n", kernel);
  fclose(f);
}

/* The default name of dir/file's kernel into out. */
static const char *tuned_name(const char *dir, const char *file, const char *kernel, char *out, size_t n) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  tune_variant_name(path, kernel, out, n);
  return out;
}

/* tune's default variant name: readable unless another kernel file of
 * its directory really gives the same name, and then a hash suffix on
 * the pair whose seam is not the last '_' (its kernel's name has one, or
 * its file is not "<identifier>.c"). Before, kernel c of a_b.c and kernel
 * b_c of a.c both gave a_b_c_tuned; and then any '_' in the kernel's name
 * added the hash (scale_add.c's scale_add: scale_add_scale_add_tuned_0...). */
Test(embed, tuned_variant_names_of_lookalike_files_differ) {
  char d[] = "/tmp/npugen-names-XXXXXX", a[200], b[200];
  cr_assert(mkdtemp(d));
  put_kernel(d, "scale_add.c", "scale_add");
  put_kernel(d, "a.c", "b_c");
  cr_expect_str_eq(tuned_name(d, "scale_add.c", "scale_add", a, sizeof a), "scale_add_scale_add_tuned");
  cr_expect_str_eq(tuned_name(d, "a.c", "b_c", a, sizeof a), "a_b_c_tuned");
  put_kernel(d, "a_b.c", "c");
  cr_expect_str_eq(tuned_name(d, "a_b.c", "c", a, sizeof a), "a_b_c_tuned");
  cr_expect_str_eq(tuned_name(d, "a.c", "b_c", b, sizeof b), "a_b_c_tuned_0e476416d");
  /* one stem as an identifier, two files: a-b.c and a_b.c */
  put_kernel(d, "a-b.c", "c");
  tuned_name(d, "a-b.c", "c", a, sizeof a);
  cr_expect(!strncmp(a, "a_b_c_tuned_0", 13) && strlen(a) == 21, "%s", a);
  /* a file that does not have the kernel is no clash */
  cr_expect_str_eq(tuned_name(d, "a_b.c", "d", a, sizeof a), "a_b_d_tuned");
  cr_expect_str_eq(tuned_name(d, "a.c", "b_d", a, sizeof a), "a_b_d_tuned");
  tune_variant_name("examples/matmul_acc.c", "matmul", a, sizeof a);
  cr_expect_str_eq(a, "matmul_acc_matmul_tuned");
  const char *files[] = {"scale_add.c", "a.c", "a_b.c", "a-b.c"};
  for (int i = 0; i < 4; i++) {
    char path[300];
    snprintf(path, sizeof path, "%s/%s", d, files[i]);
    remove(path);
  }
  rmdir(d);
}

/* The two files above tuned into one directory: both variants are
 * emitted side by side (before: the second emit refused, a variant of the
 * same name from another kernel file), and one file includes both
 * headers and calls both. The normal build's alone: its cost is two
 * tune searches, which the ASan+UBSan run leaves out (ASAN_LEFT_OUT in
 * the Makefile: tune's own code runs under it in tune_plan). */
#if !defined(__SANITIZE_ADDRESS__)
Test(embed, lookalike_kernels_tuned_into_one_directory_coexist) {
  char out[16384];
  int rc = in_tmp("printf '%s\\n' 'void c(const float x[64], float y[64]) {' "
                  "'  for (int i = 0; i < 64; i++) y[i] = x[i] * 2.0f;' '}' > a_b.c && "
                  "sed 's/void c(/void b_c(/' a_b.c > a.c && "
                  "for k in a_b a; do $n tune $k.c --seed 1 --trials 1 --jobs 1 -o $k.sched >/dev/null 2>&1 && "
                  "$n emit $k.c --schedule $k.sched -o out || exit 1; done && "
                  "printf '%s\\n' '#include \"a_b_c_tuned.h\"' '#include \"a_b_c_tuned_0e476416d.h\"' "
                  "'float x[64], y[64];' 'void use(void);' "
                  "'void use(void) { a_b_c_tuned(x, y); a_b_c_tuned_0e476416d(x, y); }' > use.c && "
                  "gcc -std=c99 -Wall -Wextra -Werror -Iout -c use.c -o use.o && ls out | tr '\\n' ' '",
                  out, sizeof out);
  cr_assert_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "a_b_c_tuned.c a_b_c_tuned.h a_b_c_tuned_0e476416d.c a_b_c_tuned_0e476416d.h b_c.c b_c.h c.c c.h ");
}
#endif

/* C kernels may name a parameter `new` or `class`: the header's C++
 * prototype renames them (new_), its C one keeps the kernel's names. */
Test(embed, parameters_named_cxx_keywords_compile_in_cxx) {
  char out[16384];
  int rc = in_tmp("printf '%s\\n' 'void k(int class, const float new[class], float y[class]) {' "
                  "'  for (int i = 0; i < class; i++) y[i] = new[i];' '}' "
                  "'void k2(const float this[4], float delete[4], float delete_[4]) {' "
                  "'  for (int i = 0; i < 4; i++) delete[i] = delete_[i] = this[i];' '}' > kw.c && $n emit kw.c -o out && "
                  "printf '%s\\n' '#include \"k.h\"' '#include \"k2.h\"' 'float x[4], y[4], z[4];' "
                  "'int use(void);' 'int use(void) { k(4, x, y); k2(x, y, z); return 0; }' > use.c && cp use.c use.cc && "
                  "g++ -std=c++11 -Wall -Wextra -pedantic -Werror -Iout -c use.cc -o use_cc.o && "
                  "gcc -std=c99 -Wall -Wextra -Werror -Iout -c use.c -o use.o && grep -h '^void' out/k.h out/k2.h",
                  out, sizeof out);
  cr_assert_eq(rc, 0, "%s", out);
  cr_expect(strstr(out, "void k2(const float this_[4], float delete_2[4], float delete_[4]);\n"
                        "void k2(const float this[4], float delete[4], float delete_[4]);\n"), "%s", out);
}

/* Two kernel files (kernels ka and kb), each k.c in its own directory. */
#define TWO_DIRS                                                                                                     \
  "mkdir a b && printf '%s\\n' 'void ka(const float A[8], float B[8]) {' '  for (int i = 0; i < 8; i++) B[i] = A[i];' " \
  "'}' '#pragma npu schedule(ka, va)' '#pragma npu split(i, 4, io, ii)' > a/k.c && "                                \
  "sed -e 's/ka/kb/g' -e 's/va/vb/' a/k.c > b/k.c"

Test(embed, two_kernel_files_given_as_the_same_path_keep_their_files) {
  char out[8192];
  int rc = in_tmp(TWO_DIRS " && (cd a && $n emit k.c -o ../out) && (cd b && $n emit k.c -o ../out) && ls -A out | tr '\\n' ' '",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, ".npugen-manifest ka.c ka.h kb.c kb.h va.c va.h vb.c vb.h ");
}

Test(embed, two_kernel_files_with_a_variant_of_one_name_is_an_error) {
  char out[8192];
  int rc = in_tmp(TWO_DIRS " && sed -i 's/vb/va/' b/k.c && $n emit a/k.c -o out && $n emit b/k.c -o out; echo rc=$?; "
                  "grep -l 'from a/k.c' out/va.c out/va.h; ls out | tr '\\n' ' '",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "npugen: error: out/va.c was emitted from another kernel file (../a/k.c, relative to out), which "
                        "has a variant of the same name: left as it is; rename one of the two variants, or emit into "
                        "another directory\n"
                        "npugen: error: out/va.h was emitted from another kernel file (../a/k.c, relative to out), which "
                        "has a variant of the same name: left as it is; rename one of the two variants, or emit into "
                        "another directory\n"
                        "npugen: out left as it was: no file written or removed (the errors above)\n"
                        "rc=1\nout/va.c\nout/va.h\nka.c ka.h va.c va.h ");
}

#define KERNEL_AND_SCHEDULE                                                                                          \
  "printf '%s\\n' 'void k(const float A[64], float B[64]) {' '  for (int i = 0; i < 64; i++) B[i] = 2 * A[i];' '}' " \
  "> k.c && printf '%s\\n' '#pragma npu schedule(k, k_split)' '#pragma npu split(i, 8, io, ii)' > s.sched"

/* The manifest records each run's inputs (schedule file, target file,
 * options), so --check given none of them checks DIR with those and its
 * message gives the whole command back. Before, `emit k.c -o out --check`
 * after a run with --schedule and --target said "run: npugen emit k.c -o
 * out", which left the stale variant as it was and wrote the kernel as
 * written beside it. */
Test(embed, following_the_stale_message_loses_nothing) {
  char out[8192];
  int rc = in_tmp(KERNEL_AND_SCHEDULE " && cp $r/targets/small.ini 'my target.ini' && "
                  "$n emit k.c --schedule s.sched --target 'my target.ini' --assume-no-alias -o out && "
                  "sed -i 's/8, io/16, io/' s.sched && "
                  "$n emit k.c --schedule s.sched --target 'my target.ini' --assume-no-alias -o out --check 2>msg; "
                  "echo rc=$?; cat msg; cmd=$(sed -n '1s/.*: run: //p' msg); "
                  "eval \"\\$n ${cmd#npugen }\" && ls out | tr '\\n' ' ' && "
                  "$n emit k.c --schedule s.sched --target 'my target.ini' --assume-no-alias -o out --check && echo fresh && "
                  /* emitted with every input, checked with none */
                  "rm -r out && $n emit k.c --schedule s.sched --target 'my target.ini' --assume-no-alias --scheduled-only "
                  "-o out && $n emit k.c -o out --check && echo fresh && sed -i 's/16, io/4, io/' s.sched && "
                  "$n emit k.c -o out --check 2>msg; echo rc=$?; cat msg; cmd=$(sed -n '1s/.*: run: //p' msg); "
                  "eval \"\\$n ${cmd#npugen }\" && ls -A out | tr '\\n' ' ' && $n emit k.c -o out --check && "
                  "grep -c 'split(i, 4, io, ii)' out/k_split.c",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "rc=1\nnpugen: out/k_split.c is stale: run: npugen emit k.c --schedule s.sched --target 'my "
                        "target.ini' -o out --assume-no-alias\n"
                        "k.c k.h k_split.c k_split.h fresh\n"
                        "fresh\nrc=1\nnpugen: out/k_split.c is stale: run: npugen emit k.c --schedule s.sched --target 'my "
                        "target.ini' -o out --assume-no-alias --scheduled-only\n"
                        ".npugen-manifest k_split.c k_split.h 1\n");
}

/* --check's message, followed, succeeds: after a refused schedule it gives
 * no command (emit would refuse again) but says why; for a file edited by
 * hand (emit keeps it) it gives the command with --force; for a file an
 * earlier run emitted from other inputs it also gives that run's command.
 * The kernel's own k.c and k.h are the same from any schedule file: fresh
 * (tests/test_embed_cli.c). */
Test(embed, check_messages_can_be_followed_after_a_refusal_or_an_edit) {
  char out[8192];
  int rc = in_tmp(KERNEL_AND_SCHEDULE " && $n emit k.c --schedule s.sched -o out && sed -i 's/split(i,/split(q,/' s.sched && "
                  "cp k.c k0.c && sed -i 's/2 \\*/3 */' k.c && $n emit k.c --schedule s.sched -o out --check; "
                  "echo rc=$?; sed -i 's/split(q,/split(i,/' s.sched && cp k0.c k.c && "
                  "echo '/* mine */' >> out/k_split.c && $n emit k.c --schedule s.sched -o out --check 2>msg; "
                  "echo rc=$?; cat msg; cmd=$(sed -n '1s/.*: run: //p' msg); eval \"\\$n ${cmd#npugen }\" && "
                  "$n emit k.c --schedule s.sched -o out --check && echo fresh && echo '/* mine */' >> out/k_split.h && "
                  "$n emit k.c -o out --prune --check 2>msg; echo rc=$?; cat msg; cmd=$(sed -n '$s/.*: run: //p' msg); "
                  "eval \"\\$n ${cmd#npugen }\" && ls out | tr '\\n' ' '",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "s.sched:2:19: error: split: no loop named 'q' in k_split (loops: i)\n"
                        "    2 | #pragma npu split(q, 8, io, ii)\n"
                        "      |                   ^\n"
                        "npugen: out/k.c is stale, but a schedule was refused (the errors above), and emit writes nothing "
                        "into out until it is mended\n"
                        "npugen: out/k_split.c: this run emits no variant of that name, but a schedule was refused (the "
                        "errors above): mend it, then check again\n"
                        "npugen: out/k_split.h: this run emits no variant of that name, but a schedule was refused (the "
                        "errors above): mend it, then check again\n"
                        "rc=1\nrc=1\n"
                        "npugen: out/k_split.c is stale, and was edited by hand since npugen wrote it (its text is not the "
                        "one .npugen-manifest records); regenerating it loses the edit: run: npugen emit k.c --schedule "
                        "s.sched -o out --force\n"
                        "fresh\nrc=1\n"
                        "npugen: out/k_split.c is stale: this run emits no variant of that name; run: npugen emit k.c -o "
                        "out --prune --force\n"
                        "npugen: out/k_split.h is stale: this run emits no variant of that name, and it was edited by hand "
                        "since npugen wrote it; removing it loses the edit: run: npugen emit k.c -o out --prune --force\n"
                        "npugen: removed out/k_split.c: generated by an earlier run, this run emits no variant of that name\n"
                        "npugen: removed out/k_split.h: generated by an earlier run, this run emits no variant of that name\n"
                        "k.c k.h ");
}

/* The manifest records --assume-no-alias (it changes the text: restrict),
 * so --check without it checks with it, and its stale message names it,
 * rather than silently dropping it. */
Test(embed, manifest_records_assume_no_alias) {
  char out[8192];
  int rc = in_tmp(KERNEL_AND_SCHEDULE " && $n emit k.c -o out --assume-no-alias && grep -cP '\\t--assume-no-alias\\t' "
                  "out/.npugen-manifest && $n emit k.c -o out --check --assume-no-alias && echo fresh && "
                  "$n emit k.c -o out --check && echo fresh && sed -i 's/2 \\*/3 */' k.c && $n emit k.c -o out --check; "
                  "echo rc=$?",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "2\nfresh\nfresh\n"
                        "npugen: out/k.c is stale: run: npugen emit k.c -o out --assume-no-alias\n"
                        "rc=1\n");
}

/* The emitted text does not depend on how the kernel file's path is
 * typed: "./", "//" and "dir/.." are left out of its comments. */
Test(embed, emitted_text_does_not_depend_on_the_path_spelling) {
  char out[8192];
  int rc = in_tmp(KERNEL_AND_SCHEDULE " && mkdir sub && $n emit ./k.c -o out && $n emit k.c -o out --check && "
                  "echo fresh && { $n emit .//sub/../k.c | head -2; $n emit sub/../../$(basename $PWD)/./k.c | "
                  "head -1; } | sed -e 's/npugen [0-9.]* from/npugen V from/' -e \"s|$(basename $PWD)|D|\"",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "fresh\n/* C99 generated by npugen V from k.c. Do not edit.\n * Kernel: k (k.c:1)\n"
                        "/* C99 generated by npugen V from ../D/k.c. Do not edit.\n");
}

Test(embed, variants_of_other_inputs_stay_unless_pruned) {
  char out[8192];
  int rc = in_tmp(KERNEL_AND_SCHEDULE " && $n emit k.c --schedule s.sched -o out && $n emit k.c -o out && "
                  "ls out | tr '\\n' ' ' && $n emit k.c -o out --check && $n emit k.c -o out --prune && ls out | tr '\\n' ' '",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "npugen: warning: kept out/k_split.c: an earlier run emitted it from other inputs (schedule file "
                        "../s.sched (relative to out)); --prune removes it\n"
                        "npugen: warning: kept out/k_split.h: an earlier run emitted it from other inputs (schedule file "
                        "../s.sched (relative to out)); --prune removes it\n"
                        "k.c k.h k_split.c k_split.h "
                        "npugen: removed out/k_split.c: generated by an earlier run, this run emits no variant of that name\n"
                        "npugen: removed out/k_split.h: generated by an earlier run, this run emits no variant of that name\n"
                        "k.c k.h ");
}

/* A generated file edited since npugen wrote it (its hash is not the
 * manifest's) is neither removed nor overwritten, also once the manifest
 * no longer names it (as an older npugen's --prune left it): an error, and
 * DIR as it was. --force replaces it. */
Test(embed, an_edited_file_is_never_overwritten_or_removed_without_force) {
  char out[8192];
  int rc = in_tmp(KERNEL_AND_SCHEDULE " && $n emit k.c --schedule s.sched -o out && echo '/* mine */' >> out/k_split.c && "
                  "cp out/k_split.c mine.c && cp out/.npugen-manifest manifest && "
                  "$n emit k.c -o out --prune; echo rc=$?; ls out | tr '\\n' ' ' && cmp out/k_split.c mine.c && "
                  "sed -i 's/2 \\*/3 */' k.c && $n emit k.c --schedule s.sched -o out; echo rc=$?; "
                  "cmp out/k_split.c mine.c && cmp out/.npugen-manifest manifest && "
                  "sed -i '/^k_split.c/d' out/.npugen-manifest && $n emit k.c --schedule s.sched -o out; echo rc=$?; "
                  "cmp out/k_split.c mine.c && $n emit k.c --schedule s.sched -o out --force && "
                  "$n emit k.c --schedule s.sched -o out --check && echo fresh && echo '/* mine */' >> out/k_split.c && "
                  "$n emit k.c -o out --prune --force && ls out | tr '\\n' ' '",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "npugen: error: out/k_split.c changed since npugen wrote it, and this run emits no variant of that "
                        "name: left as it is; remove it yourself, or give --force to remove it\n"
                        "npugen: out left as it was: no file written or removed (the errors above)\n"
                        "rc=1\nk.c k.h k_split.c k_split.h "
                        "npugen: error: out/k_split.c changed since npugen wrote it (its text is not the one "
                        ".npugen-manifest records): left as it is; keep your edit elsewhere, or give --force to overwrite it\n"
                        "npugen: out left as it was: no file written or removed (the errors above)\n"
                        "rc=1\n"
                        "npugen: error: out/k_split.c opens with npugen's comment, but .npugen-manifest does not name it (it "
                        "may hold edits an earlier run left alone): left as it is; give --force to overwrite it\n"
                        "npugen: out left as it was: no file written or removed (the errors above)\n"
                        "rc=1\nfresh\n"
                        "npugen: removed out/k_split.c: generated by an earlier run, this run emits no variant of that name\n"
                        "npugen: removed out/k_split.h: generated by an earlier run, this run emits no variant of that name\n"
                        "k.c k.h ");
}

Test(embed, list_outputs_names_the_files_emit_writes) {
  char out[8192];
  int rc = in_tmp(KERNEL_AND_SCHEDULE " && $n emit k.c --schedule s.sched --list-outputs && ls", out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "k.c\nk.h\nk_split.c\nk_split.h\nk.c\ns.sched\n");
}

/* The public libraries beside the npugen under test define no global
 * outside their API's prefixes. */
Test(embed, libraries_export_only_the_api) {
  char dir[4096], cmd[8192], out[65536];
  snprintf(dir, sizeof dir, "%s", npugen());
  const char *d = dirname(dir);
  const struct {
    const char *lib, *api;
  } libs[] = {{"libnpugen.a", "npg_"}, {"libnpusim.a", "npusim_|npu_"}};
  for (int i = 0; i < 2; i++) {
    snprintf(cmd, sizeof cmd, "nm -g --defined-only %s/%s > /dev/null && nm -g --defined-only %s/%s | "
             "awk 'NF == 3 { print $3 }' | sort -u | grep -Ev '^(%s)' | head -20", d, libs[i].lib, d, libs[i].lib, libs[i].api);
    cr_expect_eq(run(cmd, out, sizeof out), 0, "nm failed: %s", out);
    cr_expect_str_eq(out, "", "%s exports names outside its API:\n%s", libs[i].lib, out);
  }
  /* and it still has its API */
  snprintf(cmd, sizeof cmd, "nm -g --defined-only %s/libnpugen.a | grep -c ' T npg_open_file$'", d);
  cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
}

/* Variant i's header in s, or "". */
static const char *header_of(NpgSession *s, const char *variant) {
  const char *h = npg_emit_header(s, npg_variant_index(s, variant));
  return h ? h : "";
}

/* A size macro reads "<VARIANT>_<MACRO>" for a macro without '_', and
 * carries the hash suffix for one with '_' (blur_rows's IMG_H would read
 * as blur's ROWS_IMG_H), whatever other variants there are: decided from
 * the pair alone. */
Test(embed, size_macros_with_underscore_carry_the_hash) {
  const char *one = "#define IMG_H 32\n#define N 4\n"
                    "void blur(const float x[IMG_H], float y[IMG_H], float z[N]) {\n"
                    "  for (int i = 0; i < IMG_H; i++) y[i] = x[i];\n  for (int j = 0; j < N; j++) z[j] = 0;\n}\n"
                    "#pragma npu schedule(blur, blur_rows)\n#pragma npu split(i, 8, io, ii)\n";
  NpgSession *s = npg_open_string("blur.c", one, strlen(one));
  cr_assert(s && npg_variant_count(s) == 2, "%s", npg_errors(s));
  const char *h = header_of(s, "blur_rows");
  cr_expect(strstr(h, "#define BLUR_ROWS_IMG_H_0") && strstr(h, "float x[BLUR_ROWS_IMG_H_0"), "%s", h);
  cr_expect(strstr(h, "#define BLUR_ROWS_N 4\n"), "%s", h);
  cr_expect(strstr(header_of(s, "blur"), "#define BLUR_IMG_H_0"), "%s", header_of(s, "blur"));
  npg_close(s);
}

/* The header carries the prototype, its preconditions and a pointer to
 * the .c: a change to the schedule that keeps the prototype leaves the
 * header's bytes as they were, so no includer recompiles. Before, the
 * header repeated the schedule comment (and the target). */
Test(embed, a_schedule_change_leaves_the_header_as_it_was) {
  const char *kernel = "void sc(const float x[64], float y[64]) {\n"
                       "  for (int i = 0; i < 64; i++) y[i] = x[i] * 2.0f;\n}\n";
  const char *steps[] = {"#pragma npu schedule(sc, tiled)\n#pragma npu split(i, 16, io, ii)\n",
                         "#pragma npu schedule(sc, tiled)\n#pragma npu split(i, 32, io, ii)\n#pragma npu unroll(ii)\n"};
  char *header[2], *source[2];
  for (int i = 0; i < 2; i++) {
    char src[1024];
    snprintf(src, sizeof src, "%s%s", kernel, steps[i]);
    NpgSession *s = npg_open_string("k.c", src, strlen(src));
    int v = npg_variant_index(s, "tiled");
    cr_assert(v >= 0, "%s", npg_errors(s));
    header[i] = strdup(npg_emit_header(s, v));
    source[i] = strdup(npg_emit_source(s, v));
    npg_close(s);
  }
  cr_expect_str_eq(header[0], header[1]);
  cr_expect_str_neq(source[0], source[1]);
  cr_expect(strstr(header[0], " * Schedule, target and notes: tiled.c\n"), "%s", header[0]);
  cr_expect(!strstr(header[0], "split(") && !strstr(header[0], "Target:"), "%s", header[0]);
  cr_expect(strstr(source[1], " *   split(i, 32, io, ii)\n *   unroll(ii)\n"), "%s", source[1]);
  for (int i = 0; i < 2; i++) free(header[i]), free(source[i]);
}

/* A header depends on its kernel file alone: a kernel file added beside
 * it, whose variant and macro read alike (conv_out's C beside conv's
 * OUT_C), leaves it as it was, and so does a FIFO named like a kernel
 * file. Before, emit read the kernel files beside the input, and the
 * second emit of conv.c renamed CONV_OUT_C to CONV_OUT_C_0... */
Test(embed, a_header_does_not_depend_on_the_files_beside_its_kernel_file) {
  char out[8192];
  int rc = in_tmp(LOOKALIKE_KERNEL "kernel conv conv OUT_C 4 && $n emit conv.c -o out && cp out/conv.h conv.h && "
                  "kernel conv_out conv_out C 8 && mkfifo fifo.c && $n emit conv.c -o out && cmp conv.h out/conv.h && "
                  "grep -h '^#define CONV' out/conv.h",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect(!strncmp(out, "#define CONV_OUT_C_0", 20) && !strchr(out, '\n')[1], "%s", out);
}

/* The one-way pipeline (docs/architecture.md): emit/ prints a
 * LoweredModule and asks lower/ nothing. Every file of emit/ is parsed
 * with tree-sitter-c (comments may name lower/ freely): no #include of a
 * lower/ header, and no identifier lower_* (a call, or a table of
 * lower/'s) in its code. The check's reference is a LoweredModule too,
 * printed by the same file printer (emit_file.c, the only file of emit/
 * that writes an #include line). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>
#include <unistd.h>

#include "emit/emit.h"
#include "frontend/frontend.h"
#include "ir/util.h"
#include "jit/c_text.h"
#include "lower/ref_lower.h"

const TSLanguage *tree_sitter_c(void);

/* Appends to found each offending include or name in node's subtree. */
static void scan(TSNode node, const char *src, const char *file, StrBuf *found) {
  const char *type = ts_node_type(node);
  uint32_t a = ts_node_start_byte(node), b = ts_node_end_byte(node);
  if (!strcmp(type, "preproc_include")) {
    TSNode path = ts_node_child_by_field_name(node, "path", 4);
    uint32_t pa = ts_node_start_byte(path);
    if (!ts_node_is_null(path) && !strncmp(src + pa, "\"lower/", 7))
      sb_printf(found, "%s: %.*s\n", file, (int)(ts_node_end_byte(path) - pa), src + pa);
  } else if (!strcmp(type, "identifier") && b - a > 6 && !strncmp(src + a, "lower_", 6)) {
    sb_printf(found, "%s:%u: %.*s\n", file, ts_node_start_point(node).row + 1, (int)(b - a), src + a);
  }
  for (uint32_t i = 0; i < ts_node_child_count(node); i++) scan(ts_node_child(node, i), src, file, found);
}

/* What of lower/ the C files of dir reach, one line each ("" when none). */
static char *lower_uses(const char *dir) {
  StrBuf found;
  sb_init(&found);
  DIR *d = opendir(dir);
  cr_assert(d, "no %s: run from the source tree", dir);
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_c());
  int files = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 3 || e->d_name[n - 2] != '.' || (e->d_name[n - 1] != 'c' && e->d_name[n - 1] != 'h')) continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t len;
    char *src = read_file(path, &len);
    cr_assert(src, "cannot read %s", path);
    TSTree *t = ts_parser_parse_string(p, NULL, src, (uint32_t)len);
    scan(ts_tree_root_node(t), src, path, &found);
    ts_tree_delete(t);
    free(src);
    files++;
  }
  closedir(d);
  ts_parser_delete(p);
  cr_assert_gt(files, 3, "emit/ holds the printer's files");
  return sb_take(&found);
}

Test(layering, emit_includes_and_calls_nothing_of_lower) {
  char *found = lower_uses("emit");
  cr_expect_str_empty(found, "emit/ reaches into lower/ (the printer asks no one):\n%s", found);
  free(found);
}

/* The lines of the C files of dir. */
static long lines_of(const char *dir) {
  DIR *d = opendir(dir);
  cr_assert(d, "no %s: run from the source tree", dir);
  long lines = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 3 || e->d_name[n - 2] != '.' || (e->d_name[n - 1] != 'c' && e->d_name[n - 1] != 'h')) continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t len;
    char *src = read_file(path, &len);
    cr_assert(src, "cannot read %s", path);
    for (size_t i = 0; i < len; i++) lines += src[i] == '\n';
    free(src);
  }
  closedir(d);
  return lines;
}

/* A printer that decides nothing is short: every decision, the
 * reference's checks included (lower/ref_body.c), is lower/'s. */
Test(layering, emit_is_under_900_lines) {
  long n = lines_of("emit");
  cr_expect_lt(n, 900, "emit/ has %ld lines: a decision has come back into the printer", n);
}

/* The scan itself: it finds an include and a call, and skips comments. */
Test(layering, the_scan_finds_an_include_and_a_call_not_a_comment) {
  char dir[] = "/tmp/npg_layering_XXXXXX";
  cr_assert(mkdtemp(dir));
  char path[600];
  const char *files[][2] = {
      {"a.c", "/* lower_includes decides (lower/lower.h) */\n#include \"emit/emit.h\"\nint a;\n"},
      {"b.c", "#include \"lower/lower.h\"\n"},
      {"c.c", "void f(void) { g(lower_vec_note(0, 0)); }\n"},
      {"d.h", "// lower_x\n"},
  };
  for (int i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(files[i][1], f);
    fclose(f);
  }
  char *found = lower_uses(dir);
  cr_expect(strstr(found, "b.c: \"lower/lower.h\""), "%s", found);
  cr_expect(strstr(found, "c.c:1: lower_vec_note"), "%s", found);
  cr_expect(!strstr(found, "a.c") && !strstr(found, "d.h"), "%s", found);
  free(found);
  for (int i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
    remove(path);
  }
  rmdir(dir);
}

/* Appends to found each string literal of node's subtree that holds
 * needle. */
static void scan_literals(TSNode node, const char *src, const char *file, const char *needle, StrBuf *found) {
  uint32_t a = ts_node_start_byte(node), b = ts_node_end_byte(node);
  if (!strcmp(ts_node_type(node), "string_literal")) {
    char *text = strndup(src + a, b - a);
    if (strstr(text, needle)) sb_printf(found, "%s:%u: %s\n", file, ts_node_start_point(node).row + 1, text);
    free(text);
    return;
  }
  for (uint32_t i = 0; i < ts_node_child_count(node); i++)
    scan_literals(ts_node_child(node, i), src, file, needle, found);
}

/* The string literals of dir's C files (but `except`) that hold needle,
 * one line each ("" when none). */
static char *literals_with(const char *dir, const char *except, const char *needle) {
  StrBuf found;
  sb_init(&found);
  DIR *d = opendir(dir);
  cr_assert(d, "no %s/: run from the source tree", dir);
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_c());
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 3 || strcmp(e->d_name + n - 2, ".c") || (except && !strcmp(e->d_name, except))) continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t len;
    char *src = read_file(path, &len);
    cr_assert(src, "cannot read %s", path);
    TSTree *t = ts_parser_parse_string(p, NULL, src, (uint32_t)len);
    scan_literals(ts_tree_root_node(t), src, path, needle, &found);
    ts_tree_delete(t);
    free(src);
  }
  closedir(d);
  ts_parser_delete(p);
  return sb_take(&found);
}

/* The files that frame a C file: emit_file.c alone, for a variant and
 * the reference alike (the reference's own file printer is gone). */
Test(layering, only_emit_file_writes_a_files_includes) {
  char *found = literals_with("emit", "emit_file.c", "#include");
  cr_expect_str_empty(found, "a file of emit/ other than emit_file.c writes #include lines:\n%s", found);
  free(found);
}

/* Text lower/ decides is not spelled in emit/: a call argument's cast
 * (lower/call_args.c), the line the check's C runs where an intrinsic
 * falls back (lower/intrinsic.c), the bytes an on-chip buffer takes
 * (lower_scope_note). */
Test(layering, emit_spells_no_cast_fallback_line_or_byte_range) {
  const char *decided[] = {" (*)", "npu_cu_fallback", "bytes ["};
  for (int i = 0; i < 3; i++) {
    char *found = literals_with("emit", NULL, decided[i]);
    cr_expect_str_empty(found, "emit/ spells what lower/ decides:\n%s", found);
    free(found);
  }
}

/* The reference's text is its LoweredModule as emit_c_source prints it,
 * then the thunk the JIT calls: framed as a variant's file is. */
Test(layering, the_reference_is_its_module_printed_then_its_thunk) {
  const char *src = "#include <stdint.h>\n#define N 4\n"
                    "void k(const int32_t A[N], int32_t B[N], const int s) {\n"
                    "  for (int i = 0; i < N; i++) B[i] = A[i] * s;\n}\n";
  DiagList dl;
  diag_init(&dl);
  Module *m = frontend_parse("k.c", src, strlen(src), &dl);
  cr_assert(m && !dl.errors, "the kernel parses");
  CheckedUnit u;
  jit_reference_text(m, m->kernels, &u);
  LoweredModule lm;
  lower_reference_module(m, m->kernels, &lm);
  char *printed = emit_c_source(&lm);
  lower_module_free(&lm);
  size_t n = strlen(printed);
  cr_expect(!strncmp(u.source, printed, n), "the reference starts with its printed module:\n%s", u.source);
  const char *thunk = "\nvoid npg_ref_k(void **npg_args) {\n";
  cr_expect(!strncmp(u.source + n, thunk, strlen(thunk)), "then its thunk:\n%s", u.source + n);
  const char *head = "/* Kernel k of k.c as written, with checked arithmetic: npugen check's reference.\n */\n"
                     "#include <math.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <stdlib.h>\n\n"
                     "typedef struct {\n";
  cr_expect(!strncmp(printed, head, strlen(head)), "%s", printed);
  cr_expect(strstr(printed, "}\n\n#define N 4\n\nstatic void npg_checked_k(NpgCk *npg_ck, const int32_t A[4], "
                            "int32_t B[4], const int s) {\n"),
            "%s", printed);
  cr_expect_eq(u.nsites, 1, "one check: the product's overflow");
  free(printed);
  jit_checked_unit_free(&u);
  module_free(m);
  diag_free(&dl);
}

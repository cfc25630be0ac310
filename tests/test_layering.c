/* The one-way pipeline (docs/architecture.md): emit/ prints a
 * LoweredModule and asks lower/ nothing. Every file of emit/ is parsed
 * with tree-sitter-c (comments may name lower/ freely): no #include of a
 * lower/ header, and no identifier lower_* (a call, or a table of
 * lower/'s) in its code. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>
#include <unistd.h>

#include "ir/util.h"

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

/* The one-way pipeline (docs/architecture.md): emit/ prints a
 * LoweredModule and asks lower/ nothing. Every file of emit/ is parsed
 * with tree-sitter-c (comments may name lower/ freely): no #include of a
 * lower/ header (by any spelling, or through a header of the tree that
 * includes one), and no identifier lower_* (a call, or a table of
 * lower/'s) in its code; and emit/'s objects use no symbol lower/'s
 * define (a call of lower/ by any name). The check's reference is a LoweredModule too,
 * printed by the same file printer (emit_file.c, the only file of emit/
 * that writes an #include line). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tree_sitter/api.h>
#include <unistd.h>

#include "emit/emit.h"
#include "frontend/frontend.h"
#include "ir/util.h"
#include "jit/c_text.h"
#include "lower/ref_lower.h"

const TSLanguage *tree_sitter_c(void);

/* path with "." and ".." segments folded away ("emit/../lower/x.h" is
 * "lower/x.h"), into out. */
static void fold_path(const char *path, char *out, size_t n) {
  const char *seg[64];
  size_t len[64];
  int k = 0;
  for (const char *p = path; *p;) {
    size_t l = strcspn(p, "/");
    if (l == 2 && !strncmp(p, "..", 2) && k > 0 && !(len[k - 1] == 2 && !strncmp(seg[k - 1], "..", 2))) k--;
    else if (l && !(l == 1 && *p == '.') && k < 64) seg[k] = p, len[k++] = l;
    p += l + (p[l] == '/');
  }
  out[0] = '\0';
  for (int i = 0; i < k; i++) snprintf(out + strlen(out), n - strlen(out), "%s%.*s", i ? "/" : "", (int)len[i], seg[i]);
}

typedef struct {
  const char *root; /* the source tree the include paths are resolved in */
  StrBuf *found;
  int depth;
} Scan;

static void scan_file(const Scan *sc, const char *rel, const char *shown);

/* The header an #include names, as the compiler's -I. finds it beside
 * the including file or from the root (rel_dir: the including file's
 * folder from the root), into out; false when it is no file of the tree
 * (a system header). */
static bool resolve_include(const Scan *sc, const char *rel_dir, const char *name, char *out, size_t n) {
  char joined[1024], full[2048];
  snprintf(joined, sizeof joined, "%s/%s", rel_dir, name);
  const char *tries[] = {joined, name};
  for (int i = 0; i < 2; i++) {
    fold_path(tries[i], out, n);
    if (!strncmp(out, "lower/", 6)) return true;
    snprintf(full, sizeof full, "%s/%s", sc->root, out);
    if (!access(full, R_OK)) return true;
  }
  return false;
}

/* Appends to found each include of node's subtree that reaches lower/
 * (named so, by any spelling, or through a header of the tree that
 * includes one), and each identifier lower_*. */
static void scan(const Scan *sc, TSNode node, const char *src, const char *rel, const char *shown) {
  const char *type = ts_node_type(node);
  uint32_t a = ts_node_start_byte(node), b = ts_node_end_byte(node);
  if (!strcmp(type, "preproc_include")) {
    TSNode path = ts_node_child_by_field_name(node, "path", 4);
    uint32_t pa = ts_node_start_byte(path), pb = ts_node_end_byte(path);
    char name[512], dir[512], header[1024];
    if (ts_node_is_null(path) || pb - pa < 2 || pb - pa >= sizeof name) goto children;
    snprintf(name, sizeof name, "%.*s", (int)(pb - pa - 2), src + pa + 1); /* without its quotes or <> */
    snprintf(dir, sizeof dir, "%s", rel);
    *(strrchr(dir, '/') ? strrchr(dir, '/') : dir) = '\0';
    if (!resolve_include(sc, dir, name, header, sizeof header)) goto children;
    if (!strncmp(header, "lower/", 6)) {
      sb_printf(sc->found, "%s: %.*s\n", shown, (int)(pb - pa), src + pa);
    } else if (sc->depth < 8) {
      char via[1200];
      snprintf(via, sizeof via, "%s via %.*s", shown, (int)(pb - pa), src + pa);
      Scan deeper = *sc;
      deeper.depth++;
      scan_file(&deeper, header, via);
    }
  } else if (!strcmp(type, "identifier") && b - a > 6 && !strncmp(src + a, "lower_", 6) && !sc->depth) {
    sb_printf(sc->found, "%s:%u: %.*s\n", shown, ts_node_start_point(node).row + 1, (int)(b - a), src + a);
  }
children:
  for (uint32_t i = 0; i < ts_node_child_count(node); i++) scan(sc, ts_node_child(node, i), src, rel, shown);
}

/* Scans the file rel (from the root), shown as shown in what is found. */
static void scan_file(const Scan *sc, const char *rel, const char *shown) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", sc->root, rel);
  size_t len;
  char *src = read_file(path, &len);
  cr_assert(src, "cannot read %s", path);
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_c());
  TSTree *t = ts_parser_parse_string(p, NULL, src, (uint32_t)len);
  scan(sc, ts_tree_root_node(t), src, rel, shown);
  ts_tree_delete(t);
  ts_parser_delete(p);
  free(src);
}

/* What of lower/ the C files of root/dir reach, one line each ("" when
 * none): their includes, followed through the tree's headers, and their
 * names lower_*. */
static char *lower_uses(const char *root, const char *dir) {
  StrBuf found;
  sb_init(&found);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", root, dir);
  DIR *d = opendir(path);
  cr_assert(d, "no %s: run from the source tree", path);
  Scan sc = {root, &found, 0};
  int files = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 3 || e->d_name[n - 2] != '.' || (e->d_name[n - 1] != 'c' && e->d_name[n - 1] != 'h')) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    scan_file(&sc, path, path);
    files++;
  }
  closedir(d);
  cr_assert_gt(files, 3, "emit/ holds the printer's files");
  return sb_take(&found);
}

/* The symbols objects (a shell glob) define (defined) or use undefined,
 * one a line between newlines: nm's. */
static char *symbols(const char *objects, bool defined) {
  StrBuf c;
  sb_init(&c);
  sb_printf(&c, "nm %s %s 2>&1", defined ? "-g --defined-only" : "-u", objects);
  char *cmd = sb_take(&c);
  FILE *p = popen(cmd, "r");
  cr_assert(p, "%s", cmd);
  StrBuf out;
  sb_init(&out);
  sb_putc(&out, '\n');
  char line[1024];
  while (fgets(line, sizeof line, p)) {
    char f[3][512];
    int n = sscanf(line, "%511s %511s %511s", f[0], f[1], f[2]);
    if (n >= 2 && strlen(f[n - 2]) == 1) sb_printf(&out, "%s\n", f[n - 1]); /* "[ADDR] KIND NAME" */
  }
  cr_assert_eq(pclose(p), 0, "%s failed: %s", cmd, out.data);
  free(cmd);
  return sb_take(&out);
}

/* The symbols of lower/'s objects that emit/'s use, one a line ("" when
 * none): what a call of lower/ leaves, whatever its name. */
static char *lower_symbols_used(const char *emit_objs, const char *lower_objs) {
  char *used = symbols(emit_objs, false), *lower = symbols(lower_objs, true);
  StrBuf found;
  sb_init(&found);
  for (char *u = strtok(used + 1, "\n"); u; u = strtok(NULL, "\n")) {
    char key[600];
    snprintf(key, sizeof key, "\n%s\n", u);
    if (strstr(lower, key)) sb_printf(&found, "%s\n", u);
  }
  free(used);
  free(lower);
  return sb_take(&found);
}

/* build/obj of the build whose npugen the tests run (NPUGEN), into out. */
static void objects_dir(char *out, size_t n) {
  const char *bin = getenv("NPUGEN") ? getenv("NPUGEN") : "build/npugen";
  const char *slash = strrchr(bin, '/');
  snprintf(out, n, "%.*s/obj", slash ? (int)(slash - bin) : 1, slash ? bin : ".");
}

/* The objects of dir's C files in obj, space-separated (not a glob of
 * obj/dir: an incremental build keeps the objects of deleted files). */
static char *objects_of(const char *obj, const char *dir) {
  StrBuf out;
  sb_init(&out);
  DIR *d = opendir(dir);
  cr_assert(d, "no %s: run from the source tree", dir);
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n > 2 && !strcmp(e->d_name + n - 2, ".c"))
      sb_printf(&out, " %s/%s/%.*s.o", obj, dir, (int)(n - 2), e->d_name);
  }
  closedir(d);
  return sb_take(&out);
}

/* The objects of emit/ use no symbol that lower/'s define. */
Test(layering, emit_objects_use_no_symbol_of_lower) {
  char obj[512];
  objects_dir(obj, sizeof obj);
  char *emit_objs = objects_of(obj, "emit"), *lower_objs = objects_of(obj, "lower");
  char *found = lower_symbols_used(emit_objs, lower_objs);
  cr_expect_str_empty(found, "emit/'s objects call into lower/:\n%s", found);
  free(found);
  free(emit_objs);
  free(lower_objs);
}

Test(layering, emit_includes_and_calls_nothing_of_lower) {
  char *found = lower_uses(".", "emit");
  cr_expect_str_empty(found, "emit/ reaches into lower/ (the printer asks no one):\n%s", found);
  free(found);
}

/* The lines of the file at path. */
static long lines_in(const char *path) {
  size_t len;
  char *src = read_file(path, &len);
  cr_assert(src, "cannot read %s", path);
  long lines = 0;
  for (size_t i = 0; i < len; i++) lines += src[i] == '\n';
  free(src);
  return lines;
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
    lines += lines_in(path);
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

/* cli/ parses and prints: tune's decisions are tune/'s, its output
 * cli/tune_print.c's, so the command itself stays short. */
Test(layering, cli_tune_is_under_200_lines) {
  long n = lines_in("cli/tune.c");
  cr_expect_lt(n, 200, "cli/tune.c has %ld lines: a decision or a printout has come back into the command", n);
}

/* Writes text into root/rel. */
static void write_at(const char *root, const char *rel, const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  FILE *f = fopen(path, "w");
  cr_assert(f, "%s", path);
  fputs(text, f);
  fclose(f);
}

/* The scan itself, on a copy of a tree in /tmp: it finds an include of
 * lower/ by any spelling (and through a header that includes one) and a
 * call, and skips comments. */
Test(layering, the_scan_finds_an_include_and_a_call_not_a_comment) {
  char root[] = "/tmp/npg_layering_XXXXXX";
  cr_assert(mkdtemp(root));
  const char *dirs[] = {"emit", "jit", "lower", "ir"};
  char path[1024];
  for (int i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
    cr_assert(!mkdir(path, 0700));
  }
  const char *files[][2] = {
      {"emit/a.c", "/* lower_includes decides (lower/lower.h) */\n#include \"emit/emit.h\"\n#include \"ir/ok.h\"\nint a;\n"},
      {"emit/b.c", "#include \"lower/lower.h\"\n"},
      {"emit/c.c", "void f(void) { g(lower_vec_note(0, 0)); }\n"},
      {"emit/d.h", "// lower_x\n#include <stdio.h>\n"},
      {"emit/e.c", "#include <lower/lower.h>\n"},
      {"emit/f.c", "#include \"../lower/lower.h\"\n"},
      {"emit/g.c", "#include \"jit/c_text.h\"\n"},
      {"emit/emit.h", "#include \"ir/ok.h\"\n"},
      {"jit/c_text.h", "#include \"lower/module.h\"\n"},
      {"ir/ok.h", "int lower_case_in_a_header_is_not_a_call;\n"},
      {"lower/lower.h", ""},
      {"lower/module.h", ""},
  };
  int nfiles = sizeof files / sizeof *files;
  for (int i = 0; i < nfiles; i++) write_at(root, files[i][0], files[i][1]);
  char *found = lower_uses(root, "emit");
  cr_expect(strstr(found, "emit/b.c: \"lower/lower.h\""), "%s", found);
  cr_expect(strstr(found, "emit/c.c:1: lower_vec_note"), "%s", found);
  cr_expect(strstr(found, "emit/e.c: <lower/lower.h>"), "%s", found);
  cr_expect(strstr(found, "emit/f.c: \"../lower/lower.h\""), "%s", found);
  cr_expect(strstr(found, "emit/g.c via \"jit/c_text.h\": \"lower/module.h\""), "%s", found);
  cr_expect(!strstr(found, "a.c") && !strstr(found, "d.h") && !strstr(found, "emit.h"), "%s", found);
  free(found);
  for (int i = nfiles - 1; i >= 0; i--) {
    snprintf(path, sizeof path, "%s/%s", root, files[i][0]);
    remove(path);
  }
  for (int i = 3; i >= 0; i--) {
    snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
    rmdir(path);
  }
  rmdir(root);
}

/* The symbol check itself: an object of a copy of emit/ in /tmp that
 * calls a function of lower/ not named lower_* (check_plan_free) is
 * found; one that calls nothing of lower/ is not. */
Test(layering, the_symbol_check_finds_a_call_of_lower_by_any_name) {
  char root[] = "/tmp/npg_layering_XXXXXX";
  cr_assert(mkdtemp(root));
  write_at(root, "bad.c", "void check_plan_free(void *);\nvoid f(void) { check_plan_free(0); }\n");
  write_at(root, "good.c", "#include <string.h>\nunsigned long f(const char *s) { return strlen(s); }\n");
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cd %s && cc -c bad.c good.c 2>&1", root);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  char obj[512], objs[1200], lower_objs[600];
  objects_dir(obj, sizeof obj);
  snprintf(lower_objs, sizeof lower_objs, "%s/lower/*.o", obj);
  snprintf(objs, sizeof objs, "%s/bad.o", root);
  char *found = lower_symbols_used(objs, lower_objs);
  cr_expect_str_eq(found, "check_plan_free\n");
  free(found);
  snprintf(objs, sizeof objs, "%s/good.o", root);
  found = lower_symbols_used(objs, lower_objs);
  cr_expect_str_empty(found);
  free(found);
  const char *made[] = {"bad.c", "good.c", "bad.o", "good.o"};
  for (int i = 0; i < 4; i++) {
    snprintf(cmd, sizeof cmd, "%s/%s", root, made[i]);
    remove(cmd);
  }
  rmdir(root);
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

typedef void (*ScanFn)(TSNode node, const char *src, const char *file, const char *what, StrBuf *found);

/* What scan finds in dir's C files (but `except`), one line each ("" when
 * none): each file parsed with tree-sitter-c and its tree walked. */
static char *scan_dir(const char *dir, const char *except, ScanFn scan, const char *what) {
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
    scan(ts_tree_root_node(t), src, path, what, &found);
    ts_tree_delete(t);
    free(src);
  }
  closedir(d);
  ts_parser_delete(p);
  return sb_take(&found);
}

/* The string literals of dir's C files (but `except`) that hold needle. */
static char *literals_with(const char *dir, const char *except, const char *needle) {
  return scan_dir(dir, except, scan_literals, needle);
}

/* Appends to found each read of a field `field` (x->field, x.field) in
 * node's subtree. */
static void scan_fields(TSNode node, const char *src, const char *file, const char *field, StrBuf *found) {
  if (!strcmp(ts_node_type(node), "field_expression")) {
    TSNode f = ts_node_child_by_field_name(node, "field", 5);
    uint32_t a = ts_node_start_byte(f), b = ts_node_end_byte(f);
    if (!ts_node_is_null(f) && b - a == strlen(field) && !strncmp(src + a, field, b - a))
      sb_printf(found, "%s:%u: %.*s\n", file, ts_node_start_point(node).row + 1,
                (int)(ts_node_end_byte(node) - ts_node_start_byte(node)), src + ts_node_start_byte(node));
  }
  for (uint32_t i = 0; i < ts_node_child_count(node); i++) scan_fields(ts_node_child(node, i), src, file, field, found);
}

/* emit/'s files but `except` that read the field `field`, one line a read. */
static char *field_reads(const char *dir, const char *except, const char *field) {
  return scan_dir(dir, except, scan_fields, field);
}

/* A function's spelling is printed by emit_cu_hooks.c alone (its switch
 * over the spellings of a host expression); every other choice it implies
 * is a field lower/ set (a fallback's line: LoweredFunction.mark_fallbacks). */
Test(layering, only_emit_cu_hooks_reads_the_spelling) {
  char *found = field_reads("emit", "emit_cu_hooks.c", "spelling");
  cr_expect_str_empty(found, "emit/ decides by the function's spelling:\n%s", found);
  free(found);
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

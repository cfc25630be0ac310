/* tree-sitter helpers: node text and position, errors, syntax checks. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"

SrcLoc fe_loc(const Fe *fe, TSNode n) {
  TSPoint p = ts_node_start_point(n);
  if (fe->map.active && fe->map.fixed) return (SrcLoc){fe->map.line, fe->map.col};
  if (fe->map.active) {
    int col = (int)p.column - fe->map.prefix;
    return (SrcLoc){fe->map.line, fe->map.col + (col > 0 ? col : 0)};
  }
  if (fe->fmap) return fe_file_loc(fe, ts_node_start_byte(n));
  return (SrcLoc){(int)p.row + 1, (int)p.column + 1};
}

const char *fe_text(Fe *fe, TSNode n) {
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  return arena_strndup(fe->arena, fe->text + a, b - a);
}

bool fe_is(TSNode n, const char *type) { return strcmp(ts_node_type(n), type) == 0; }

TSNode fe_child(TSNode n, uint32_t i) {
  uint32_t cnt = ts_node_named_child_count(n);
  for (uint32_t k = 0; k < cnt; k++) {
    TSNode c = ts_node_named_child(n, k);
    if (fe_is(c, "comment")) continue;
    if (i-- == 0) return c;
  }
  return (TSNode){0};
}

TSNode fe_field(TSNode n, const char *field) {
  return ts_node_child_by_field_name(n, field, (uint32_t)strlen(field));
}

_Noreturn void fe_error_at(Fe *fe, SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(fe->diags, false, fe->file, fe->src, loc.line, loc.col, fmt, ap);
  va_end(ap);
  longjmp(fe->fail, 1);
}

_Noreturn void fe_error(Fe *fe, TSNode n, const char *fmt, ...) {
  SrcLoc loc = fe_loc(fe, n);
  va_list ap;
  va_start(ap, fmt);
  diag_verror(fe->diags, false, fe->file, fe->src, loc.line, loc.col, fmt, ap);
  va_end(ap);
  longjmp(fe->fail, 1);
}

/* A short, printable excerpt of a node's text for messages. */
static void excerpt(Fe *fe, TSNode n, char *out, size_t size) {
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  size_t len = b - a, j = 0;
  for (size_t i = 0; i < len && j + 4 < size; i++) {
    unsigned char c = (unsigned char)fe->text[a + i];
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (c < 32 || c > 126) c = '?';
    out[j++] = (char)c;
  }
  if (len >= size - 4) {
    memcpy(out + j, "...", 3);
    j += 3;
  }
  out[j] = 0;
}

/* An identifier spelled with a universal character name (caf\u00e9): C99
 * allows it, but tcc, which runs the check, reads it as a stray '\'. The
 * character itself (UTF-8) is read by all three compilers. */
static bool spells_ucn(Fe *fe, TSNode n) {
  const char *type = ts_node_type(n);
  size_t len = strlen(type);
  if (len < 10 || strcmp(type + len - 10, "identifier")) return false;
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  return memchr(fe->text + a, '\\', b - a) != NULL;
}

/* Iterative walk (no recursion: the input may be 20,000 levels deep). */
bool fe_check_syntax(Fe *fe, TSNode root) {
  TSTreeCursor c = ts_tree_cursor_new(root);
  int depth = 0;
  bool ok = true;
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    if (ts_node_is_missing(n)) {
      SrcLoc l = fe_loc(fe, n);
      diag_error(fe->diags, fe->file, fe->src, l.line, l.col, "expected '%s'", ts_node_type(n));
      ok = false;
      break;
    }
    if (!strcmp(ts_node_type(n), "ERROR")) {
      SrcLoc l = fe_loc(fe, n);
      char ex[48];
      /* Point at the first unexpected token rather than the whole region. */
      TSNode first = ts_node_child_count(n) ? ts_node_child(n, 0) : n;
      while (ts_node_child_count(first)) first = ts_node_child(first, 0);
      excerpt(fe, first, ex, sizeof ex);
      l = fe_loc(fe, first);
      if (ex[0])
        diag_error(fe->diags, fe->file, fe->src, l.line, l.col, "syntax error at '%s'", ex);
      else
        diag_error(fe->diags, fe->file, fe->src, l.line, l.col, "syntax error");
      ok = false;
      break;
    }
    if (spells_ucn(fe, n)) {
      SrcLoc l = fe_loc(fe, n);
      char ex[48];
      excerpt(fe, n, ex, sizeof ex);
      diag_error(fe->diags, fe->file, fe->src, l.line, l.col,
                 "identifier '%s' is spelled with a universal character name, which tcc (the check's compiler) "
                 "does not read; write the character itself (UTF-8) or another name", ex);
      ok = false;
      break;
    }
    if (depth > FE_MAX_NESTING * 4) {
      SrcLoc l = fe_loc(fe, n);
      diag_error(fe->diags, fe->file, fe->src, l.line, l.col,
                 "nesting too deep (the limit is %d levels)", FE_MAX_NESTING);
      ok = false;
      break;
    }
    if (ts_tree_cursor_goto_first_child(&c)) {
      depth++;
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&c)) {
      if (!ts_tree_cursor_goto_parent(&c)) goto done;
      depth--;
    }
  }
done:
  ts_tree_cursor_delete(&c);
  return ok;
}

/* ---------------- parsing a file ---------------- */

/* tree-sitter-c's preproc_arg token ends at every comment opener (slash,
 * star), even one in a string literal: `#pragma npu annotate(s, k, "a` and
 * the opener and `b")` lex as that argument and a comment that runs to the
 * next closer (or a syntax error). So the directive's line is lexed again as C
 * tokens, in a snippet where a string is a token; openers that lie in a
 * string or character literal are left out of the file's parse (included
 * ranges), and the argument token runs across them: its text, read from the
 * source, is whole. A pass can reveal directives the false comment hid, so
 * passes repeat until none finds an opener, within a budget of parsed bytes
 * (past it, what is left stays a syntax error). */
enum { REPARSE_BUDGET = 64 << 20 };

typedef struct {
  uint32_t *at; /* offsets of the openers left out, sorted after each pass */
  int n, sorted, cap;
} Openers;

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static bool left_out(const Openers *o, uint32_t at) {
  return o->sorted && bsearch(&at, o->at, (size_t)o->sorted, sizeof at, cmp_u32);
}

/* A newline ending a backslash-continued line does not end the directive. */
static bool continued(const char *src, uint32_t nl) {
  return (nl >= 1 && src[nl - 1] == '\\') || (nl >= 2 && src[nl - 1] == '\r' && src[nl - 2] == '\\');
}

static bool in_literal(TSNode n) {
  for (; !ts_node_is_null(n); n = ts_node_parent(n))
    if (fe_is(n, "string_literal") || fe_is(n, "char_literal")) return true;
  return false;
}

/* The openers from `from` to the end of the directive line whose argument
 * starts at `arg` that lie in literals: the line, as fe_pragma reads it (a
 * schedule's call after "npu"), becomes a statement in a snippet. */
static void line_openers(const TSLanguage *lang, const char *src, uint32_t len, uint32_t arg, uint32_t from,
                         Openers *o) {
  uint32_t end = from;
  while (end < len && (src[end] != '\n' || continued(src, end))) end++;
  uint32_t start = arg;
  if (end - start > 3 && !strncmp(src + start, "npu", 3) && (src[start + 3] == ' ' || src[start + 3] == '\t'))
    for (start += 3; src[start] == ' ' || src[start] == '\t'; start++) {}
  static const char prefix[] = "void __npg_line(void) { ", suffix[] = "\n; }";
  size_t pl = sizeof prefix - 1, n = end - start;
  char *snippet = malloc(pl + n + sizeof suffix);
  memcpy(snippet, prefix, pl);
  memcpy(snippet + pl, src + start, n);
  memcpy(snippet + pl + n, suffix, sizeof suffix);
  for (size_t i = pl; i < pl + n; i++) /* continuations: blanks of the same length */
    if (snippet[i] == '\n' || snippet[i] == '\r' || (snippet[i] == '\\' && (snippet[i + 1] == '\n' || snippet[i + 1] == '\r')))
      snippet[i] = ' ';
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, lang);
  TSTree *tree = ts_parser_parse_string(p, NULL, snippet, (uint32_t)(pl + n + sizeof suffix - 1));
  TSNode root = ts_tree_root_node(tree);
  for (uint32_t at = from; at + 1 < end; at++) {
    if (src[at] != '/' || src[at + 1] != '*' || left_out(o, at)) continue;
    uint32_t s = (uint32_t)pl + at - start;
    if (!in_literal(ts_node_descendant_for_byte_range(root, s, s + 2))) continue;
    if (o->n == o->cap) {
      o->cap = o->cap ? 2 * o->cap : 16;
      o->at = realloc(o->at, sizeof *o->at * (size_t)o->cap);
    }
    o->at[o->n++] = at++;
  }
  ts_tree_delete(tree);
  ts_parser_delete(p);
  free(snippet);
}

/* One pass: every directive argument that ends at an opener not yet left out. */
static void find_openers(const TSLanguage *lang, TSTree *tree, const char *src, uint32_t len, Openers *o) {
  TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(tree));
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    uint32_t end = ts_node_end_byte(n);
    if (fe_is(n, "preproc_arg") && end + 1 < len && src[end] == '/' && src[end + 1] == '*' && !left_out(o, end))
      line_openers(lang, src, len, ts_node_start_byte(n), end, o);
    if (ts_tree_cursor_goto_first_child(&c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&c))
      if (!ts_tree_cursor_goto_parent(&c)) goto done;
  }
done:
  ts_tree_cursor_delete(&c);
}

/* The source without the openers, as included ranges (o sorted, unique). */
static bool set_ranges(TSParser *p, const char *src, uint32_t len, const Openers *o) {
  TSRange *r = malloc(sizeof *r * (size_t)(o->n + 1));
  uint32_t at = 0;
  TSPoint pt = {0, 0};
  r[0].start_byte = 0;
  r[0].start_point = pt;
  for (int i = 0; i <= o->n; i++) {
    uint32_t stop = i < o->n ? o->at[i] : len;
    for (; at < stop; at++) {
      if (src[at] == '\n') pt.row++, pt.column = 0;
      else pt.column++;
    }
    r[i].end_byte = stop;
    r[i].end_point = pt;
    if (i == o->n) break;
    at += 2, pt.column += 2; /* the opener holds no newline */
    r[i + 1].start_byte = at;
    r[i + 1].start_point = pt;
  }
  bool ok = ts_parser_set_included_ranges(p, r, (uint32_t)o->n + 1);
  free(r);
  return ok;
}

TSTree *fe_parse(const TSLanguage *lang, const char *src, uint32_t len) {
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, lang);
  TSTree *tree = ts_parser_parse_string(p, NULL, src, len);
  Openers o = {0};
  for (uint64_t parsed = 2 * (uint64_t)len; parsed <= REPARSE_BUDGET; parsed += len) {
    find_openers(lang, tree, src, len, &o);
    if (o.n == o.sorted) break;
    qsort(o.at, (size_t)o.n, sizeof *o.at, cmp_u32);
    int u = 0;
    for (int i = 0; i < o.n; i++)
      if (!u || o.at[i] != o.at[u - 1]) o.at[u++] = o.at[i];
    o.n = o.sorted = u;
    if (!set_ranges(p, src, len, &o)) break;
    ts_tree_delete(tree);
    tree = ts_parser_parse_string(p, NULL, src, len);
  }
  free(o.at);
  ts_parser_delete(p);
  return tree;
}

/* tree-sitter helpers: node text and position, errors, syntax checks. */
#include <stdarg.h>
#include <string.h>

#include "frontend/fe.h"

SrcLoc fe_loc(const Fe *fe, TSNode n) {
  TSPoint p = ts_node_start_point(n);
  if (fe->map.active) {
    int col = (int)p.column - fe->map.prefix;
    return (SrcLoc){fe->map.line, fe->map.col + (col > 0 ? col : 0)};
  }
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

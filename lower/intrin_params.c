/* A tensorized call's literal arguments named (lower/intrinsic.c): a run
 * of bare numbers such as `56, 56, 64, 4, 3, 3, 1, 1, 1, 1, 1, 1, 0`
 * tells a reviewer nothing, so each literal follows a comment that names
 * its parameter (`h=` before the 56 of conv2d's height). The names are the declaration's in
 * npu_intrinsics.h or npu_vu_families.h (the header the emitted C
 * includes), never a list of our own: the intrinsic NAME is the macro
 * over `NAME_at(const char *file, int line, <parameters>)`. The call and
 * the declaration are parsed with tree-sitter-c; a call whose
 * declaration is not found, or does not parse, is left as it is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "frontend/frontend.h"
#include "lower/lower.h"
#include "schedule/intrinsics.h"

enum { MAX_PARAMS = 32 };

/* The two headers' text, read once for the whole lowering. */
static const char *headers(Lower *lw) {
  Decided *d = lw->once;
  if (d->intrin_headers) return d->intrin_headers;
  StrBuf sb;
  sb_init(&sb);
  const char *files[] = {"npu_intrinsics.h", "npu_vu_families.h"};
  for (int i = 0; i < 2; i++) {
    char path[4096];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", sched_intrinsics_dir(), files[i]);
    char *text = read_file(path, &len);
    if (text) sb_putn(&sb, text, len), sb_putc(&sb, '\n');
    free(text);
  }
  d->intrin_headers = arena_strdup(lw->arena, sb.len ? sb.data : "");
  sb_free(&sb);
  return d->intrin_headers;
}

static bool is(TSNode n, const char *type) { return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type); }

/* The identifier a declarator declares (through pointers and arrays). */
static TSNode declared(TSNode n) {
  while (!ts_node_is_null(n) && !is(n, "identifier")) n = ts_node_child_by_field_name(n, "declarator", 10);
  return n;
}

/* The first function declarator under n (a declaration), or null. */
static TSNode function_declarator(TSNode n) {
  while (!ts_node_is_null(n) && !is(n, "function_declarator")) n = ts_node_child_by_field_name(n, "declarator", 10);
  return n;
}

/* The declaration of `fn`, the line that declares it up to its ';', in
 * hdr (its start in *at, its length in *len); false when absent. */
static bool find_declaration(const char *hdr, const char *fn, const char **at, size_t *len) {
  size_t n = strlen(fn);
  for (const char *p = strstr(hdr, fn); p; p = strstr(p + 1, fn)) {
    bool word = (p == hdr || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                               (p[-1] >= '0' && p[-1] <= '9')));
    if (!word || p[n] != '(') continue;
    const char *start = p, *semi = strchr(p, ';');
    while (start > hdr && start[-1] != '\n') start--;
    if (!semi || !strncmp(start, "#define", 7)) continue;
    *at = start;
    *len = (size_t)(semi + 1 - start);
    return true;
  }
  return false;
}

/* The names of fn_at's parameters after `file` and `line`, into names
 * (up to MAX_PARAMS, in a); their count, or -1. */
static int param_names(Lower *lw, TSParser *parser, const char *intrin, const char **names) {
  char fn[256];
  snprintf(fn, sizeof fn, "%s_at", intrin);
  const char *decl;
  size_t len;
  if (!find_declaration(headers(lw), fn, &decl, &len)) return -1;
  TSTree *tree = ts_parser_parse_string(parser, NULL, decl, (uint32_t)len);
  TSNode root = ts_tree_root_node(tree);
  TSNode f = function_declarator(ts_node_named_child(root, 0));
  TSNode id = ts_node_child_by_field_name(f, "declarator", 10);
  TSNode params = ts_node_child_by_field_name(f, "parameters", 10);
  int n = -1;
  if (!ts_node_has_error(root) && is(id, "identifier") && ts_node_end_byte(id) - ts_node_start_byte(id) == strlen(fn) &&
      !strncmp(decl + ts_node_start_byte(id), fn, strlen(fn)) && !ts_node_is_null(params)) {
    n = 0;
    uint32_t count = ts_node_named_child_count(params);
    for (uint32_t i = 2; i < count && n < MAX_PARAMS; i++) {
      TSNode name = declared(ts_node_child_by_field_name(ts_node_named_child(params, i), "declarator", 10));
      names[n++] = ts_node_is_null(name) ? NULL
                 : arena_strndup(lw->arena, decl + ts_node_start_byte(name), ts_node_end_byte(name) - ts_node_start_byte(name));
    }
  }
  ts_tree_delete(tree);
  return n;
}

/* call (`NAME(args);`) with each literal argument after a comment that
 * names its parameter. */
static const char *named(Lower *lw, TSParser *parser, const char *call) {
  TSTree *tree = ts_parser_parse_string(parser, NULL, call, (uint32_t)strlen(call));
  TSNode root = ts_tree_root_node(tree);
  TSNode expr = ts_node_named_child(ts_node_named_child(root, 0), 0);
  TSNode fn = ts_node_child_by_field_name(expr, "function", 8), args = ts_node_child_by_field_name(expr, "arguments", 9);
  const char *out = call;
  const char *names[MAX_PARAMS];
  int n = -1;
  if (!ts_node_has_error(root) && is(expr, "call_expression") && is(fn, "identifier")) {
    char intrin[200];
    snprintf(intrin, sizeof intrin, "%.*s", (int)(ts_node_end_byte(fn) - ts_node_start_byte(fn)), call + ts_node_start_byte(fn));
    n = param_names(lw, parser, intrin, names);
  }
  uint32_t nargs = n >= 0 ? ts_node_named_child_count(args) : 0;
  if (nargs && nargs == (uint32_t)n) {
    StrBuf sb;
    sb_init(&sb);
    uint32_t from = 0;
    for (uint32_t i = 0; i < nargs; i++) {
      TSNode a = ts_node_named_child(args, i);
      if (!is(a, "number_literal") || !names[i]) continue;
      sb_putn(&sb, call + from, ts_node_start_byte(a) - from);
      sb_printf(&sb, "/*%s=*/", names[i]);
      from = ts_node_start_byte(a);
    }
    sb_puts(&sb, call + from);
    out = arena_strdup(lw->arena, sb.data);
    sb_free(&sb);
  }
  ts_tree_delete(tree);
  return out;
}

const char *lower_named_args(Lower *lw, const char *call) {
  TSParser *parser = ts_parser_new();
  ts_parser_set_language(parser, frontend_language());
  const char *out = named(lw, parser, call);
  ts_parser_delete(parser);
  return out;
}

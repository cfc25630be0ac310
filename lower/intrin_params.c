/* A tensorized call's literal arguments named (lower/intrinsic.c): a run
 * of bare numbers such as `56, 56, 64, 4, 3, 3, 1, 1, 1, 1, 1, 1, 0`
 * tells a reviewer nothing, so each literal follows a comment that names
 * its parameter (`h=` before the 56 of conv2d's height). The names are the declaration's in
 * npu_intrinsics.h or npu_vu_families.h (the header the emitted C
 * includes), never a list of our own: the intrinsic NAME is the macro
 * over `NAME_at(const char *file, int line, <parameters>)`. The
 * declaration is parsed with tree-sitter-c; the call's arguments are
 * expressions (schedule/tensorize.c), and a literal is a number that
 * prints as one. A call whose declaration is not found, does not parse
 * or has another count of parameters is left as it is. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "frontend/frontend.h"
#include "lower/lower.h"
#include "schedule/intrinsics.h"

enum { MAX_PARAMS = 32 };

/* One intrinsic's parameter names after `file` and `line` (n -1: its
 * declaration is not found or does not parse). */
typedef struct {
  const char *fn;
  const char **names;
  int n;
} IntrinDecl;

/* The declarations named so far: the headers' text is read once for the
 * lowering and each intrinsic's declaration parsed the first time a call
 * of it is named (the whole headers would take a tree-sitter parse of
 * 47 kB, about 10 ms, for each lowering). */
struct IntrinDecls {
  const char *text;
  IntrinDecl *items;
  int n, cap;
};

static struct IntrinDecls *decls(Lower *lw) {
  Decided *d = lw->once;
  if (d->intrin_decls) return d->intrin_decls;
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
  d->intrin_decls = ARENA_NEW(lw->arena, struct IntrinDecls);
  d->intrin_decls->text = arena_strdup(lw->arena, sb.len ? sb.data : "");
  sb_free(&sb);
  return d->intrin_decls;
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
  if (!find_declaration(decls(lw)->text, fn, &decl, &len)) return -1;
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

/* intrin's declaration, parsed the first time it is asked for. */
static const IntrinDecl *declaration(Lower *lw, const char *intrin) {
  struct IntrinDecls *d = decls(lw);
  for (int i = 0; i < d->n; i++)
    if (!strcmp(d->items[i].fn, intrin)) return &d->items[i];
  const char *names[MAX_PARAMS];
  TSParser *parser = ts_parser_new();
  ts_parser_set_language(parser, frontend_language());
  int n = param_names(lw, parser, intrin, names);
  ts_parser_delete(parser);
  d->items = lower_room(lw->arena, d->items, d->n, &d->cap, sizeof *d->items);
  IntrinDecl *it = &d->items[d->n++];
  *it = (IntrinDecl){.fn = arena_strdup(lw->arena, intrin), .n = n};
  if (n > 0) {
    it->names = ARENA_ARRAY(lw->arena, const char *, n);
    memcpy(it->names, names, (size_t)n * sizeof *names);
  }
  return it;
}

static const Expr *bare(const Expr *e) {
  while (e->kind == EX_CAST && e->implicit && !e->parens) e = e->a; /* not printed */
  return e;
}

/* Whether e prints as a number, with a sign when signed is set: `3`,
 * `-1.0f`, not `(-2147483647 - 1)`, `inf` or a macro's name. */
static bool number(const Expr *e, bool sign) {
  if (e->macro || e->parens || (e->kind != EX_INT && e->kind != EX_FLOAT)) return false;
  if (e->text) {
    const char *t = e->text + (sign && (e->text[0] == '-' || e->text[0] == '+'));
    return isdigit((unsigned char)t[0]) || t[0] == '.';
  }
  if (e->kind == EX_FLOAT) return isfinite(e->fval) && (sign || !signbit(e->fval));
  bool minimum = e->type->is_signed && (e->ival == INT64_MIN || (e->type->kind == TY_INT && e->ival == INT32_MIN));
  return !e->type->is_signed || e->ival >= 0 || (sign && !minimum);
}

/* Whether e prints as a C number literal, a sign included as C's grammar
 * (tree-sitter-c's number_literal) takes it: the arguments a reader
 * cannot tell apart. */
static bool literal(const Expr *e) {
  e = bare(e);
  if (e->kind == EX_UNARY && (e->op == OP_NEG || e->op == OP_PLUS) && !e->parens && !e->macro)
    return number(bare(e->a), false);
  return number(e, true);
}

void lower_name_args(Lower *lw, IntrinCall *call) {
  const IntrinDecl *d = declaration(lw, call->fn);
  if (d->n != call->nargs) return; /* not found, or another count: left as it is */
  IntrinArg *args = (IntrinArg *)call->args; /* lower/intrinsic.c's, being decided */
  for (int i = 0; i < call->nargs; i++)
    if (!args[i].address && literal(args[i].value)) args[i].param = d->names[i];
}

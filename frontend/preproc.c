/* File-level preprocessor lines: #define constants, #include of standard
 * headers, #pragma. Macro bodies are parsed with tree-sitter as C expressions
 * (a small snippet), never by hand. */
#include <string.h>

#include "frontend/fe.h"
#include "frontend/inputs.h"
#include "ir/reserved.h"

static const char *const std_headers[] = {"stdint.h", "math.h", "stdlib.h", "stddef.h",
                                          "stdbool.h", "limits.h", "float.h", "inttypes.h"};

void fe_include(Fe *fe, TSNode n) {
  TSNode path = fe_field(n, "path");
  const char *p = fe_text(fe, path);
  if (!fe_is(path, "system_lib_string"))
    fe_error(fe, path, "only standard headers can be included (#include <...>), not %s", p);
  size_t len = strlen(p);
  for (size_t i = 0; i < sizeof std_headers / sizeof std_headers[0]; i++)
    if (len == strlen(std_headers[i]) + 2 && !strncmp(p + 1, std_headers[i], len - 2)) {
      fe->included |= 1u << i;
      return;
    }
  fe_error(fe, path, "header %s is not supported in kernels", p);
}

static int header_bit(const char *header) {
  for (size_t i = 0; i < sizeof std_headers / sizeof std_headers[0]; i++)
    if (!strcmp(std_headers[i], header)) return (int)i;
  return -1;
}

bool fe_included(const Fe *fe, const char *header) {
  int b = header_bit(header);
  if (b >= 0 && fe->included >> b & 1) return true;
  return !strcmp(header, "stdint.h") && fe_included(fe, "inttypes.h");
}

/* The body must keep its meaning when substituted: one constant, a name,
 * a parenthesized expression, or a sign/cast applied to one of those. */
static bool macro_shape_ok(TSNode e) {
  if (fe_is(e, "number_literal") || fe_is(e, "identifier") || fe_is(e, "parenthesized_expression"))
    return true;
  if (fe_is(e, "unary_expression")) return macro_shape_ok(ts_node_named_child(e, ts_node_named_child_count(e) - 1));
  if (fe_is(e, "cast_expression")) return macro_shape_ok(ts_node_child_by_field_name(e, "value", 5));
  return false;
}

/* `#define DATA_TYPE float`: a body that spells a type (C's, or a name
 * the file gave one before) makes the macro a name for that type. */
static bool type_macro(Fe *fe, TSNode n, TSNode name_n, const char *name, const char *body) {
  StrBuf words; /* "unsigned   char" -> "unsigned char" */
  sb_init(&words);
  for (const char *p = body; *p; p++) {
    bool blank = *p == ' ' || *p == '\t';
    if (blank && (!words.len || words.data[words.len - 1] == ' ')) continue;
    sb_putc(&words, blank ? ' ' : *p);
  }
  while (words.len && words.data[words.len - 1] == ' ') words.data[--words.len] = 0;
  const Type *base = words.len ? type_by_name(words.data) : NULL;
  if (!base && words.len) {
    const Sym *y = fe_lookup(fe, words.data);
    if (y && y->kind == SYM_TYPE) base = y->type;
  }
  sb_free(&words);
  if (!base) return false;
  if (base->kind == TY_VOID) fe_error(fe, n, "macro '%s' names 'void', which is not a kernel type", name);
  Sym *y = fe_declare(fe, name_n, name, SYM_TYPE);
  y->type = fe_alias_type(fe, name, base);
  Define *d = ARENA_NEW(fe->arena, Define);
  d->name = name;
  d->body = body;
  d->loc = fe_loc(fe, n);
  d->type = y->type;
  *fe->define_tail = d;
  fe->define_tail = &d->next;
  return true;
}

void fe_define(Fe *fe, TSNode n) {
  TSNode name_n = fe_field(n, "name"), value_n = fe_field(n, "value");
  const char *name = fe_text(fe, name_n);
  if (ir_reserved_why(name) && !fe_lookup(fe, name)) fe_declare(fe, name_n, name, SYM_DEFINE); /* no error at its uses */
  fe_check_name(fe, name_n, name, "macro");
  if (ts_node_is_null(value_n)) return; /* valueless flag macros define no constant */
  const char *raw = fe_text(fe, value_n), *body = raw;
  /* Trim the body (preproc_arg keeps leading blanks and a trailing newline). */
  while (*body == ' ' || *body == '\t') body++;
  char *b = arena_strdup(fe->arena, body);
  size_t bl = strlen(b);
  while (bl && (b[bl - 1] == '\n' || b[bl - 1] == '\r' || b[bl - 1] == ' ' || b[bl - 1] == '\t')) b[--bl] = 0;
  if (strchr(b, '\\') || strchr(b, '\n'))
    fe_error(fe, value_n, "macro '%s' must fit on one line", name);
  if (type_macro(fe, n, name_n, name, b)) return;

  static const char prefix[] = "int __npg_macro = ";
  /* The newline ends a trailing // comment before the ';'. */
  char *snippet = arena_printf(fe->arena, "%s%s\n;", prefix, b);
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, fe->lang);
  TSTree *tree = ts_parser_parse_string(p, NULL, snippet, (uint32_t)strlen(snippet));
  ts_parser_delete(p);

  /* Errors inside the body point into the real #define line. */
  SrcLoc vloc = fe_loc(fe, value_n);
  int lead = (int)(body - raw);
  LocMap saved_map = fe->map;
  const char *saved_text = fe->text;
  bool rewritten = fe->fmap && fe_file_fixed(fe, ts_node_start_byte(value_n) + (uint32_t)lead);
  fe->map = (LocMap){true, vloc.line, vloc.col + (rewritten ? 0 : lead), (int)sizeof prefix - 1, rewritten};
  fe->text = snippet;
  jmp_buf saved;
  memcpy(saved, fe->fail, sizeof saved);
  bool failed = setjmp(fe->fail);
  if (!failed) {
    TSNode root = ts_tree_root_node(tree);
    if (!fe_check_syntax(fe, root)) longjmp(fe->fail, 1);
    TSNode decl = fe_child(root, 0);
    TSNode init = fe_field(decl, "declarator");
    TSNode val = fe_field(init, "value");
    if (ts_node_is_null(val) || ts_node_named_child_count(root) != 1)
      fe_error(fe, value_n, "macro '%s' is not a constant expression", name);
    /* "4, M" parses as a second declarator here, and means (4, M) in C. */
    if (!macro_shape_ok(val) || !ts_node_is_null(fe_child(decl, 2)))
      fe_error(fe, val, "macro '%s' must be a single constant or be parenthesized, so that its uses keep C's meaning", name);
    Expr *e = fe_expr(fe, val);
    if (!ir_expr_constant(e)) fe_error(fe, val, "macro '%s' is not a constant expression", name);
    int64_t iv;
    if (type_is_integer(e->type) && fe_eval_int(e, &iv)) e = ir_int(fe->arena, iv, e->type, e->loc);
    e->macro = name;
    fe->map = saved_map;
    fe->text = saved_text;
    Sym *y = fe_declare(fe, name_n, name, SYM_DEFINE);
    y->value = e;
    Define *d = ARENA_NEW(fe->arena, Define);
    d->name = name;
    d->body = b;
    d->loc = fe_loc(fe, n);
    d->value = e;
    *fe->define_tail = d;
    fe->define_tail = &d->next;
  }
  fe->map = saved_map;
  fe->text = saved_text;
  ts_tree_delete(tree);
  memcpy(fe->fail, saved, sizeof saved);
  if (failed) {
    /* Declared without a value, so that its uses add no second error. */
    if (!fe_lookup(fe, name)) fe_declare(fe, name_n, name, SYM_DEFINE);
    longjmp(fe->fail, 1);
  }
}

void fe_pragma(Fe *fe, TSNode n) {
  TSNode dir = fe_field(n, "directive");
  if (strcmp(fe_text(fe, dir), "#pragma")) fe_error(fe, dir, "preprocessor directive '%s' is not supported in kernels", fe_text(fe, dir));
  TSNode arg = fe_field(n, "argument");
  if (ts_node_is_null(arg)) return;
  const char *text = fe_text(fe, arg);
  if (strncmp(text, "npu", 3) || (text[3] != ' ' && text[3] != '\t')) return; /* other pragmas are not ours */
  if (!fe_check_pragma(fe, text, fe_loc(fe, arg))) fe_schedule_pragma(fe, text, fe_loc(fe, arg));
}

void fe_import_defines(Fe *fe) {
  for (const Define *d = fe->m->defines; d; d = d->next) {
    Sym *y = fe_declare_global(fe, d->name, d->type ? SYM_TYPE : SYM_DEFINE);
    y->value = (Expr *)d->value;
    y->type = d->type;
  }
}

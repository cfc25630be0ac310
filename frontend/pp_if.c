/* Whether a conditional group is taken (C11 6.10.1): #ifdef and #ifndef ask
 * whether the file defined a macro so far; #if and #elif evaluate their
 * condition as cpp does: `defined` first, macros replaced (an object-like
 * macro by its body, read as a condition in turn), names left over are 0,
 * arithmetic in intmax_t, or uintmax_t when an operand is unsigned. The
 * condition is tree-sitter-c's own tree of the directive. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/pp.h"

typedef struct {
  int64_t v;
  bool u; /* uintmax_t */
} Val;

/* Where a condition is read: the source, or a snippet reported at `at`. */
typedef struct {
  const char *text;
  uint32_t at;
  const Hide *active; /* object-like macros being replaced */
  int depth;
} Cond;

static Val eval(Pp *pp, const Cond *c, TSNode n);

static uint32_t where(const Pp *pp, const Cond *c, TSNode n) {
  return c->text == pp->src ? ts_node_start_byte(n) : c->at;
}

static const char *text_of(Pp *pp, const Cond *c, TSNode n) {
  uint32_t a = ts_node_start_byte(n);
  return arena_strndup(pp->fe->arena, c->text + a, ts_node_end_byte(n) - a);
}

/* `text` read as the condition of a #if of its own. */
static Val eval_text(Pp *pp, const Cond *c, uint32_t at, const char *text, const Hide *active, const char *what) {
  if (c->depth > FE_MAX_NESTING) pp_error(pp, at, "macros in #if nested too deeply (the limit is %d levels)", FE_MAX_NESTING);
  char *snippet = arena_printf(pp->fe->arena, "#if %s\n#endif\n", text);
  for (char *p = snippet + 4; *p && p[1]; p++)
    if (*p == '\\' && (p[1] == '\n' || p[1] == '\r')) *p = ' ', p[1] = ' ';
  TSParser *parser = ts_parser_new();
  ts_parser_set_language(parser, pp->fe->lang);
  TSTree *tree = ts_parser_parse_string(parser, NULL, snippet, (uint32_t)strlen(snippet));
  ts_parser_delete(parser);
  pp->trees[pp->ntrees++] = tree; /* deleted by fe_preprocess when an error unwinds past it */
  TSNode root = ts_tree_root_node(tree), dir = ts_node_named_child(root, 0);
  TSNode cond = fe_field(dir, "condition");
  if (ts_node_has_error(root) || ts_node_named_child_count(root) != 1 || !fe_is(dir, "preproc_if") || ts_node_is_null(cond))
    pp_error(pp, at, "%s is not a #if expression", what);
  Cond inner = {snippet, at, active, c->depth + 1};
  Val v = eval(pp, &inner, cond);
  ts_tree_delete(pp->trees[--pp->ntrees]);
  return v;
}

static Val number(Pp *pp, const Cond *c, TSNode n) {
  const char *s = text_of(pp, c, n);
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  bool u = v > INT64_MAX;
  for (; *end == 'u' || *end == 'U' || *end == 'l' || *end == 'L'; end++) u |= *end == 'u' || *end == 'U';
  if (*end || errno) pp_error(pp, where(pp, c, n), "'%s' is not an integer constant that #if can use", s);
  return (Val){(int64_t)v, u};
}

static Val identifier(Pp *pp, const Cond *c, TSNode n) {
  uint32_t a = ts_node_start_byte(n);
  int mi = pp_macro(pp, c->text + a, ts_node_end_byte(n) - a, pp->nm);
  if (mi < 0 || pp->m[mi].function) return (Val){0, false};
  const Macro *m = &pp->m[mi];
  for (const Hide *h = c->active; h; h = h->next)
    if (h->macro == mi) return (Val){0, false}; /* a macro in its own body stays a name */
  Hide *active = ARENA_NEW(&pp->tmp, Hide);
  *active = (Hide){mi, c->active};
  const char *what = arena_printf(pp->fe->arena, "the body of macro '%s'", m->name);
  if (!*m->text) pp_error(pp, where(pp, c, n), "macro '%s' has no body to test in #if", m->name);
  return eval_text(pp, c, where(pp, c, n), m->text, active, what);
}

/* A function-like macro's use: expanded, then read as a condition. */
static Val call(Pp *pp, const Cond *c, TSNode n) {
  TSNode fn = fe_field(n, "function");
  uint32_t a = ts_node_start_byte(fn);
  int mi = fe_is(fn, "identifier") ? pp_macro(pp, c->text + a, ts_node_end_byte(fn) - a, pp->nm) : -1;
  if (mi < 0 || !pp->m[mi].function)
    pp_error(pp, where(pp, c, n), "'%s' in #if is not a function-like macro of the file", text_of(pp, c, fn));
  Toks in = {0}, out = {0};
  pp_leaves(pp, n, c->text, c->at, NULL, &in);
  pp_expand(pp, in.t, in.n, &out);
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < out.n; i++) sb_printf(&sb, " %.*s", (int)out.t[i].len, out.t[i].s);
  char *text = arena_strdup(pp->fe->arena, sb.data ? sb.data : "");
  sb_free(&sb);
  pp_toks_free(&in);
  pp_toks_free(&out);
  const char *what = arena_printf(pp->fe->arena, "the expansion of macro '%s'", pp->m[mi].name);
  return eval_text(pp, c, where(pp, c, n), text, c->active, what);
}

static Val unary(Pp *pp, const Cond *c, TSNode n) {
  Val a = eval(pp, c, fe_field(n, "argument"));
  const char *op = ts_node_type(fe_field(n, "operator"));
  if (!strcmp(op, "!")) return (Val){!a.v, false};
  if (!strcmp(op, "~")) return (Val){~a.v, a.u};
  if (!strcmp(op, "+")) return a;
  if (!a.u && a.v == INT64_MIN) pp_error(pp, where(pp, c, n), "the negation overflows in #if");
  return (Val){(int64_t)(0 - (uint64_t)a.v), a.u};
}

static Val arith(Pp *pp, const Cond *c, TSNode n, const char *op, Val a, Val b) {
  bool u = a.u || b.u;
  uint64_t x = (uint64_t)a.v, y = (uint64_t)b.v;
  int64_t r;
  bool over = false;
  if (!strcmp(op, "+")) over = u ? (r = (int64_t)(x + y), false) : __builtin_add_overflow(a.v, b.v, &r);
  else if (!strcmp(op, "-")) over = u ? (r = (int64_t)(x - y), false) : __builtin_sub_overflow(a.v, b.v, &r);
  else if (!strcmp(op, "*")) over = u ? (r = (int64_t)(x * y), false) : __builtin_mul_overflow(a.v, b.v, &r);
  else if (!strcmp(op, "/") || !strcmp(op, "%")) {
    if (!b.v) pp_error(pp, where(pp, c, n), "division by zero in #if");
    if (!u && a.v == INT64_MIN && b.v == -1) pp_error(pp, where(pp, c, n), "the quotient overflows in #if");
    bool div = op[0] == '/';
    r = u ? (int64_t)(div ? x / y : x % y) : div ? a.v / b.v : a.v % b.v;
  } else if (!strcmp(op, "<<") || !strcmp(op, ">>")) {
    if (b.v < 0 || b.v >= 64) pp_error(pp, where(pp, c, n), "shift by %lld in #if", (long long)b.v);
    u = a.u;
    r = op[0] == '<' ? (int64_t)(x << b.v) : a.u ? (int64_t)(x >> b.v) : a.v >> b.v;
  } else if (!strcmp(op, "&")) r = a.v & b.v;
  else if (!strcmp(op, "|")) r = a.v | b.v;
  else if (!strcmp(op, "^")) r = a.v ^ b.v;
  else {
    bool lt = u ? x < y : a.v < b.v, eq = a.v == b.v;
    if (!strcmp(op, "<")) r = lt;
    else if (!strcmp(op, "<=")) r = lt || eq;
    else if (!strcmp(op, ">")) r = !lt && !eq;
    else if (!strcmp(op, ">=")) r = !lt;
    else if (!strcmp(op, "==")) r = eq;
    else if (!strcmp(op, "!=")) r = !eq;
    else pp_error(pp, where(pp, c, n), "operator '%s' is not supported in #if", op);
    return (Val){r, false};
  }
  if (over) pp_error(pp, where(pp, c, n), "'%s' overflows in #if", text_of(pp, c, n));
  return (Val){r, u};
}

static Val binary(Pp *pp, const Cond *c, TSNode n) {
  const char *op = ts_node_type(fe_field(n, "operator"));
  Val a = eval(pp, c, fe_field(n, "left"));
  if (!strcmp(op, "&&") && !a.v) return (Val){0, false};
  if (!strcmp(op, "||") && a.v) return (Val){1, false};
  Val b = eval(pp, c, fe_field(n, "right"));
  if (!strcmp(op, "&&") || !strcmp(op, "||")) return (Val){b.v != 0, false};
  return arith(pp, c, n, op, a, b);
}

static Val eval(Pp *pp, const Cond *c, TSNode n) {
  if (fe_is(n, "number_literal")) return number(pp, c, n);
  if (fe_is(n, "identifier")) return identifier(pp, c, n);
  if (fe_is(n, "preproc_defined")) {
    TSNode name = fe_child(n, 0);
    uint32_t a = ts_node_start_byte(name);
    return (Val){pp_macro(pp, c->text + a, ts_node_end_byte(name) - a, pp->nm) >= 0, false};
  }
  if (fe_is(n, "parenthesized_expression")) return eval(pp, c, fe_child(n, 0));
  if (fe_is(n, "unary_expression")) return unary(pp, c, n);
  if (fe_is(n, "binary_expression")) return binary(pp, c, n);
  if (fe_is(n, "call_expression")) return call(pp, c, n);
  pp_error(pp, where(pp, c, n), "'%s' is not supported in #if: use integer constants, macros, defined and operators",
           text_of(pp, c, n));
}

bool pp_if_taken(Pp *pp, TSNode n) {
  if (fe_is(n, "preproc_ifdef") || fe_is(n, "preproc_elifdef")) {
    TSNode name = fe_field(n, "name");
    uint32_t a = ts_node_start_byte(name);
    bool defined = pp_macro(pp, pp->src + a, ts_node_end_byte(name) - a, pp->nm) >= 0;
    bool negated = strstr(ts_node_type(ts_node_child(n, 0)), "ndef") != NULL;
    return defined != negated;
  }
  Cond c = {pp->src, 0, NULL, 0};
  return eval(pp, &c, fe_field(n, "condition")).v != 0;
}

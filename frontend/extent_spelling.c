/* How the user spelt a constant extent of an array parameter that is an
 * expression (`in[C][H + 2][W + 2]`), or of a local array (also one
 * #define: `float x[WP]` with `#define WP (W + 2)`): the emitted C keeps
 * that spelling rather than its value, so a reader sees where 58 comes
 * from. Only #defines of integers, integer literals, parentheses and
 * arithmetic operators are kept, token by token (nothing else of the
 * input is copied into the output); any other extent is printed as its
 * value. */
#include <string.h>

#include "frontend/fe.h"

typedef struct {
  Fe *fe;
  ExtentToken *tok;
  int n, cap;
  bool macro; /* a #define among the tokens */
} Tokens;

static bool operator_token(const char *t) {
  static const char *const ops[] = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "~", "(", ")"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (!strcmp(t, ops[i])) return true;
  return false;
}

/* An identifier naming an integer #define: true, with its value. */
static bool integer_define(Fe *fe, const char *name, int64_t *value) {
  Sym *y = fe_lookup(fe, name);
  return y && y->kind == SYM_DEFINE && y->value && type_is_integer(y->value->type) && fe_eval_int(y->value, value);
}

/* Appends leaf n; false where it is not a kept token. */
static bool leaf(Tokens *t, TSNode n) {
  const char *text = fe_text(t->fe, n);
  ExtentToken k = {text, false, 0};
  if (fe_is(n, "identifier")) {
    if (!integer_define(t->fe, text, &k.value)) return false;
    k.is_macro = t->macro = true;
  } else if (!fe_is(n, "number_literal") && (ts_node_is_named(n) || !operator_token(text))) {
    return false;
  }
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 8;
    ExtentToken *grown = ARENA_ARRAY(t->fe->arena, ExtentToken, cap);
    if (t->n) memcpy(grown, t->tok, sizeof *grown * (size_t)t->n);
    t->tok = grown;
    t->cap = cap;
  }
  t->tok[t->n++] = k;
  return true;
}

static bool leaves(Tokens *t, TSNode n) {
  uint32_t cnt = ts_node_child_count(n);
  if (!cnt) return leaf(t, n);
  for (uint32_t i = 0; i < cnt; i++)
    if (!leaves(t, ts_node_child(n, i))) return false;
  return true;
}

static const ExtentSpelling *spelling(Fe *fe, TSNode size, int64_t value) {
  Tokens t = {.fe = fe};
  if (!leaves(&t, size) || !t.macro) return NULL;
  ExtentSpelling *s = ARENA_NEW(fe->arena, ExtentSpelling);
  s->n = t.n;
  s->tok = t.tok;
  s->value = value;
  return s;
}

const ExtentSpelling *fe_extent_spelling(Fe *fe, TSNode size) {
  if (fe_is(size, "identifier") || fe_is(size, "number_literal")) return NULL; /* dim_macro, or the value */
  return spelling(fe, size, 0);
}

const ExtentSpelling *fe_local_extent_spelling(Fe *fe, TSNode size, int64_t value) {
  return fe_is(size, "number_literal") ? NULL : spelling(fe, size, value);
}

/* A lint of the emitted C a reviewer reads (issue 44): every scheduled
 * variant's file in examples/emitted is parsed with tree-sitter-c and has
 *   - no loop of one pass (constant bounds, #define'd names included);
 *   - no index with terms that cancel (- oco * 4 and + oco * OB, OB being 4);
 *   - no subexpression of more than 8 tokens printed twice in one
 *     statement (a declaration, an expression statement, a return, or the
 *     condition of an if, while or for);
 *   - no term that adds 0 and no factor 1 (`+ 0`, `0 +`, `* 1`, `1 *`),
 *     and no comment that names a line 0 (there is none).
 * The kernels as written (their header comment says so) copy their
 * source and are exempt. Each rule is tested on a fixture under
 * tests/lint/ that breaks it, and one that comes close to each without
 * breaking it. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "ir/util.h"

const TSLanguage *tree_sitter_c(void);

enum { MAX_TOKENS = 8, MAX_DEFINES = 128, MAX_TERMS = 32, MAX_SUBS = 512 };

/* One file's lint: its text, its object-like #defines of an integer, and
 * what it found, a line each. */
typedef struct {
  const char *path, *src;
  const char *define_name[MAX_DEFINES];
  long long define_value[MAX_DEFINES];
  int ndefines;
  StrBuf *found;
} Lint;

static bool is(TSNode n, const char *type) { return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type); }

static TSNode field(TSNode n, const char *name) { return ts_node_child_by_field_name(n, name, (uint32_t)strlen(name)); }

/* The node's text, in a (malloc'ed) copy. */
static char *text(const Lint *l, TSNode n) {
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  char *s = malloc(b - a + 1);
  memcpy(s, l->src + a, b - a);
  s[b - a] = '\0';
  return s;
}

static void report(Lint *l, TSNode n, const char *what) {
  TSPoint p = ts_node_start_point(n);
  sb_printf(l->found, "%s:%u:%u: %s\n", l->path, p.row + 1, p.column + 1, what);
}

/* ---- constants ---- */

static bool integer(const char *s, long long *v) {
  char *end;
  while (*s == ' ' || *s == '\t') s++;
  *v = strtoll(s, &end, 0);
  while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L') end++;
  while (*end == ' ' || *end == '\t' || *end == '\n') end++;
  return end != s && !*end;
}

static void collect_defines(Lint *l, TSNode n) {
  if (is(n, "preproc_def") && l->ndefines < MAX_DEFINES) {
    TSNode value = field(n, "value");
    long long v;
    char *body = ts_node_is_null(value) ? NULL : text(l, value);
    if (body && integer(body, &v)) {
      l->define_name[l->ndefines] = text(l, field(n, "name"));
      l->define_value[l->ndefines++] = v;
    }
    free(body);
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) collect_defines(l, ts_node_named_child(n, i));
}

/* The value of a constant expression of literals and #define'd integers. */
static bool eval(const Lint *l, TSNode n, long long *v) {
  if (is(n, "number_literal")) {
    char *t = text(l, n);
    bool ok = integer(t, v);
    free(t);
    return ok;
  }
  if (is(n, "identifier")) {
    char *t = text(l, n);
    bool ok = false;
    for (int i = 0; i < l->ndefines && !ok; i++)
      if (!strcmp(l->define_name[i], t)) {
        *v = l->define_value[i];
        ok = true;
      }
    free(t);
    return ok;
  }
  if (is(n, "parenthesized_expression")) return eval(l, ts_node_named_child(n, 0), v);
  if (is(n, "unary_expression")) {
    char *op = text(l, field(n, "operator"));
    bool ok = !strcmp(op, "-") && eval(l, field(n, "argument"), v);
    free(op);
    if (ok) *v = -*v;
    return ok;
  }
  if (!is(n, "binary_expression")) return false;
  long long a, b;
  if (!eval(l, field(n, "left"), &a) || !eval(l, field(n, "right"), &b)) return false;
  char *op = text(l, field(n, "operator"));
  bool ok = true;
  if (!strcmp(op, "+")) *v = a + b;
  else if (!strcmp(op, "-")) *v = a - b;
  else if (!strcmp(op, "*")) *v = a * b;
  else if (!strcmp(op, "/") && b) *v = a / b;
  else ok = false;
  free(op);
  return ok;
}

/* ---- rule 1: loops of one pass ---- */

/* Does n name variable v? */
static bool names(const Lint *l, TSNode n, const char *v) {
  if (!is(n, "identifier")) return false;
  char *t = text(l, n);
  bool same = !strcmp(t, v);
  free(t);
  return same;
}

/* for (T v = lo; v < hi; v++ / v += step): its trip count, or -1. */
static long long trips(const Lint *l, TSNode f) {
  TSNode init = field(f, "initializer"), cond = field(f, "condition"), upd = field(f, "update");
  TSNode decl = is(init, "declaration") ? field(init, "declarator") : init;
  if (!is(decl, "init_declarator") || !is(cond, "binary_expression")) return -1;
  long long lo, hi, step = 0;
  char *v = text(l, field(decl, "declarator"));
  char *op = text(l, field(cond, "operator"));
  bool ok =
      eval(l, field(decl, "value"), &lo) && names(l, field(cond, "left"), v) && eval(l, field(cond, "right"), &hi);
  if (ok && is(upd, "update_expression") && names(l, field(upd, "argument"), v)) {
    char *u = text(l, field(upd, "operator"));
    step = !strcmp(u, "++") ? 1 : -1;
    free(u);
  } else if (ok && is(upd, "assignment_expression") && names(l, field(upd, "left"), v)) {
    char *u = text(l, field(upd, "operator"));
    long long by;
    if (eval(l, field(upd, "right"), &by)) step = !strcmp(u, "+=") ? by : !strcmp(u, "-=") ? -by : 0;
    free(u);
  }
  long long n = -1;
  if (ok && step > 0 && (!strcmp(op, "<") || !strcmp(op, "<="))) {
    long long end = !strcmp(op, "<=") ? hi + 1 : hi;
    n = end > lo ? (end - lo + step - 1) / step : 0;
  } else if (ok && step < 0 && (!strcmp(op, ">") || !strcmp(op, ">="))) {
    long long end = !strcmp(op, ">=") ? hi - 1 : hi;
    n = lo > end ? (lo - end - step - 1) / -step : 0;
  }
  free(v);
  free(op);
  return n;
}

/* ---- rule 2: index terms that cancel ---- */

typedef struct {
  long long coef;
  char *symbol; /* the factors that are not constants, as text; "" for a constant */
} Term;

typedef struct {
  Term t[MAX_TERMS];
  int n;
} Terms;

static void add_factor(char **symbol, const char *factor) {
  size_t n = strlen(*symbol), m = strlen(factor);
  *symbol = realloc(*symbol, n + m + 2);
  if (n) (*symbol)[n++] = '*';
  memcpy(*symbol + n, factor, m + 1);
}

/* The factors of a product: constants into coef, the rest into symbol. */
static void factors(const Lint *l, TSNode n, long long *coef, char **symbol) {
  long long v;
  if (eval(l, n, &v)) {
    *coef *= v;
    return;
  }
  if (is(n, "binary_expression")) {
    char *op = text(l, field(n, "operator"));
    bool mul = !strcmp(op, "*");
    free(op);
    if (mul) {
      factors(l, field(n, "left"), coef, symbol);
      factors(l, field(n, "right"), coef, symbol);
      return;
    }
  }
  char *t = text(l, n);
  add_factor(symbol, t);
  free(t);
}

/* The terms of a sum, each with its sign. */
static void terms(const Lint *l, TSNode n, int sign, Terms *out) {
  if (is(n, "parenthesized_expression")) {
    terms(l, ts_node_named_child(n, 0), sign, out);
    return;
  }
  if (is(n, "binary_expression")) {
    char *op = text(l, field(n, "operator"));
    int plus = !strcmp(op, "+") ? 1 : !strcmp(op, "-") ? -1 : 0;
    free(op);
    if (plus) {
      terms(l, field(n, "left"), sign, out);
      terms(l, field(n, "right"), sign * plus, out);
      return;
    }
  }
  if (out->n == MAX_TERMS) return;
  Term *t = &out->t[out->n++];
  t->coef = sign;
  t->symbol = calloc(1, 1);
  factors(l, n, &t->coef, &t->symbol);
}

/* Two terms of one symbol of opposite signs (oco * 4 against oco * OB),
 * or whose coefficients sum to 0. */
static bool cancels(const Terms *ts) {
  for (int i = 0; i < ts->n; i++) {
    if (!*ts->t[i].symbol) continue;
    long long sum = 0;
    int same = 0;
    bool opposite = false;
    for (int j = 0; j < ts->n; j++)
      if (!strcmp(ts->t[i].symbol, ts->t[j].symbol)) {
        sum += ts->t[j].coef;
        same++;
        opposite |= (ts->t[i].coef < 0) != (ts->t[j].coef < 0);
      }
    if (same > 1 && (sum == 0 || opposite)) return true;
  }
  return false;
}

/* ---- rule 3: subexpressions printed twice in a statement ---- */

typedef struct {
  char *tokens[MAX_SUBS]; /* each subexpression's tokens, space-separated */
  int ntokens[MAX_SUBS];
  TSNode node[MAX_SUBS];
  int n;
} Subs;

static int leaves(const Lint *l, TSNode n, StrBuf *sb) {
  if (ts_node_child_count(n) == 0) {
    char *t = text(l, n);
    sb_printf(sb, "%s ", t);
    free(t);
    return 1;
  }
  int k = 0;
  for (uint32_t i = 0; i < ts_node_child_count(n); i++) k += leaves(l, ts_node_child(n, i), sb);
  return k;
}

static bool expression(TSNode n) {
  const char *t = ts_node_type(n);
  size_t len = strlen(t);
  return len > 11 && !strcmp(t + len - 11, "_expression");
}

static void subexpressions(const Lint *l, TSNode n, Subs *s) {
  if (expression(n) && s->n < MAX_SUBS) {
    StrBuf sb;
    sb_init(&sb);
    int k = leaves(l, n, &sb);
    if (k > MAX_TOKENS) {
      s->tokens[s->n] = sb_take(&sb);
      s->ntokens[s->n] = k;
      s->node[s->n++] = n;
    } else {
      sb_free(&sb);
    }
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) subexpressions(l, ts_node_named_child(n, i), s);
}

static void repeats(Lint *l, TSNode statement) {
  Subs s = {.n = 0};
  subexpressions(l, statement, &s);
  bool found = false;
  for (int i = 0; i < s.n && !found; i++)
    for (int j = i + 1; j < s.n && !found; j++)
      if (!strcmp(s.tokens[i], s.tokens[j])) {
        char what[200];
        snprintf(what, sizeof what, "a subexpression of %d tokens printed twice in one statement", s.ntokens[i]);
        report(l, s.node[j], what);
        found = true;
      }
  for (int i = 0; i < s.n; i++) free(s.tokens[i]);
}

/* ---- rule 4: terms that add 0, factors 1, a line 0 ---- */

/* Is n the integer literal v (any suffix)? */
static bool literal(const Lint *l, TSNode n, long long v) {
  if (!is(n, "number_literal")) return false;
  char *t = text(l, n);
  char *end;
  long long got = strtoll(t, &end, 0);
  bool yes = end != t && strspn(end, "uUlL") == strlen(end) && got == v; /* not 1.5, 1e3 */
  free(t);
  return yes;
}

/* `x + 0`, `0 + x`, `x * 1`, `1 * x`: what it is, or NULL. */
static const char *idle_term(const Lint *l, TSNode n) {
  if (!is(n, "binary_expression")) return NULL;
  char *op = text(l, field(n, "operator"));
  bool add = !strcmp(op, "+"), mul = !strcmp(op, "*");
  free(op);
  TSNode a = field(n, "left"), b = field(n, "right");
  if (add && (literal(l, a, 0) || literal(l, b, 0))) return "a term that adds 0";
  if (mul && (literal(l, a, 1) || literal(l, b, 1))) return "a factor of 1";
  return NULL;
}

static bool names_line_0(const Lint *l, TSNode n) {
  if (!is(n, "comment")) return false;
  char *t = text(l, n);
  bool yes = strstr(t, "line 0)") || strstr(t, "line 0,") || strstr(t, "line 0 ");
  free(t);
  return yes;
}

/* ---- the walk ---- */

static void walk(Lint *l, TSNode n) {
  if (is(n, "for_statement") && trips(l, n) == 1) report(l, n, "a loop of one pass");
  if (is(n, "subscript_expression")) {
    Terms ts = {.n = 0};
    terms(l, field(n, "index"), 1, &ts);
    if (cancels(&ts)) report(l, field(n, "index"), "index terms that cancel");
    for (int i = 0; i < ts.n; i++) free(ts.t[i].symbol);
  }
  if (is(n, "expression_statement") || is(n, "declaration") || is(n, "return_statement")) repeats(l, n);
  const char *idle = idle_term(l, n);
  if (idle) report(l, n, idle);
  if (names_line_0(l, n)) report(l, n, "a comment that names line 0");
  if (is(n, "if_statement") || is(n, "while_statement") || is(n, "for_statement")) {
    TSNode cond = field(n, "condition");
    if (!ts_node_is_null(cond)) repeats(l, cond);
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) walk(l, ts_node_named_child(n, i));
}

/* The kernel as written: the file's opening comment says so. */
static bool as_written(const Lint *l, TSNode root) {
  TSNode first = ts_node_named_child(root, 0);
  if (!is(first, "comment")) return false;
  char *t = text(l, first);
  bool yes = strstr(t, "Schedule: none (the kernel as written)") != NULL;
  free(t);
  return yes;
}

/* Lints the file at path into found; false when it is a kernel as written
 * (exempt, not linted). */
static bool lint_file(TSParser *p, const char *path, StrBuf *found) {
  size_t len;
  char *src = read_file(path, &len);
  cr_assert(src, "cannot read %s", path);
  TSTree *tree = ts_parser_parse_string(p, NULL, src, (uint32_t)len);
  TSNode root = ts_tree_root_node(tree);
  cr_assert(!ts_node_has_error(root), "%s does not parse as C", path);
  Lint l = {.path = path, .src = src, .found = found};
  bool linted = !as_written(&l, root);
  if (linted) {
    collect_defines(&l, root);
    walk(&l, root);
  }
  for (int i = 0; i < l.ndefines; i++) free((char *)l.define_name[i]);
  ts_tree_delete(tree);
  free(src);
  return linted;
}

static char *lint_one(const char *path) {
  StrBuf found;
  sb_init(&found);
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_c());
  cr_assert(lint_file(p, path, &found), "%s is linted", path);
  ts_parser_delete(p);
  return found.data ? sb_take(&found) : strdup("");
}

static bool dot_c(const char *name) {
  size_t n = strlen(name);
  return n > 2 && !strcmp(name + n - 2, ".c");
}

Test(lint, the_scheduled_variants_in_examples_pass) {
  StrBuf found;
  sb_init(&found);
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_c());
  DIR *top = opendir("examples/emitted");
  cr_assert(top, "no examples/emitted: run from the source tree");
  int linted = 0, exempt = 0;
  for (struct dirent *d; (d = readdir(top));) {
    if (d->d_name[0] == '.') continue;
    char dir[512];
    snprintf(dir, sizeof dir, "examples/emitted/%s", d->d_name);
    DIR *in = opendir(dir);
    if (!in) continue;
    for (struct dirent *e; (e = readdir(in));) {
      if (!dot_c(e->d_name)) continue;
      char path[1024];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      if (lint_file(p, path, &found)) linted++;
      else exempt++;
    }
    closedir(in);
  }
  closedir(top);
  ts_parser_delete(p);
  cr_assert_gt(linted, 40, "the scheduled variants: %d", linted);
  cr_assert_gt(exempt, 10, "the kernels as written: %d", exempt);
  cr_assert_null(found.data, "%s", found.data);
}

Test(lint, a_loop_of_one_pass_is_found) {
  char *found = lint_one("tests/lint/one_pass.c");
  cr_assert_str_eq(found, "tests/lint/one_pass.c:7:3: a loop of one pass\n"
                          "tests/lint/one_pass.c:9:5: a loop of one pass\n");
  free(found);
}

Test(lint, index_terms_that_cancel_are_found) {
  char *found = lint_one("tests/lint/cancel.c");
  cr_assert_str_eq(found, "tests/lint/cancel.c:8:12: index terms that cancel\n");
  free(found);
}

Test(lint, a_subexpression_printed_twice_is_found) {
  char *found = lint_one("tests/lint/repeat.c");
  cr_assert_str_eq(found, "tests/lint/repeat.c:8:21: a subexpression of 23 tokens printed twice in one statement\n");
  free(found);
}

Test(lint, terms_that_add_0_factors_of_1_and_a_line_0_are_found) {
  char *found = lint_one("tests/lint/zero_terms.c");
  cr_assert_str_eq(found, "tests/lint/zero_terms.c:6:37: a term that adds 0\n"
                          "tests/lint/zero_terms.c:8:29: a term that adds 0\n"
                          "tests/lint/zero_terms.c:11:7: a comment that names line 0\n"
                          "tests/lint/zero_terms.c:12:9: a factor of 1\n");
  free(found);
}

Test(lint, near_misses_pass) {
  char *found = lint_one("tests/lint/clean.c");
  cr_assert_str_eq(found, "");
  free(found);
}

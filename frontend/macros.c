/* Function-like macros and conditional groups: the file as the C
 * preprocessor hands it to the compiler (C11 6.10.1, 6.10.3).
 *
 * The file's tree is walked in order: a #if/#ifdef/#ifndef group keeps the
 * lines of its taken branch and drops its directives (pp_if.c decides); a
 * function-like #define is recorded; every other leaf is a token. Then the
 * tokens are expanded as cpp does: each argument fully first, the result
 * rescanned with the rest of the file, a macro's name never replaced in its
 * own expansion. `#` and `##` are refused. Object-like #defines, #include
 * and #pragma lines stay as written: preproc.c reads them (it keeps a
 * constant's name in the emitted C).
 *
 * The expanded text is parsed again, and maps back to the source: a token
 * the user wrote (in an argument too) reports its own position, a token of
 * a macro's body the position of the macro's use. Files with neither
 * function-like macros nor conditional groups are read as they are. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/pp.h"

enum { PP_MAX_TOKENS = 1 << 20 };

/* ---------------- tokens ---------------- */

/* Token vectors live in pp->tmp, freed whole when the pass ends (an error
 * unwinds past them). */
static void push(Pp *pp, Toks *v, Tok t) {
  if (v->n == v->cap) {
    int cap = v->cap ? 2 * v->cap : 64;
    Tok *grown = ARENA_ARRAY(&pp->tmp, Tok, cap);
    if (v->n) memcpy(grown, v->t, sizeof *v->t * (size_t)v->n);
    v->t = grown;
    v->cap = cap;
  }
  v->t[v->n++] = t;
}

void pp_toks_free(Toks *t) { *t = (Toks){0}; }

static bool is(const Tok *t, const char *s) { return t->len == strlen(s) && !memcmp(t->s, s, t->len); }

static bool identifier_leaf(TSNode n) { return strstr(ts_node_type(n), "identifier") != NULL; }

/* A string or character literal, or <header>, is one token. */
static bool atomic(TSNode n) {
  return fe_is(n, "string_literal") || fe_is(n, "char_literal") || fe_is(n, "system_lib_string");
}

/* A line and column of the source offset, for messages. */
static SrcLoc src_loc(const char *src, uint32_t at) {
  SrcLoc l = {1, 1};
  for (uint32_t i = 0; i < at && src[i]; i++) {
    if (src[i] == '\n') l.line++, l.col = 1;
    else l.col++;
  }
  return l;
}

_Noreturn void pp_error(Pp *pp, uint32_t at, const char *fmt, ...) {
  SrcLoc l = src_loc(pp->src, at);
  va_list ap;
  va_start(ap, fmt);
  diag_verror(pp->fe->diags, false, pp->fe->file, pp->src, l.line, l.col, fmt, ap);
  va_end(ap);
  longjmp(pp->fe->fail, 1);
}

int pp_macro(const Pp *pp, const char *s, uint32_t len, int visible) {
  for (int i = (visible < pp->nm ? visible : pp->nm) - 1; i >= 0; i--)
    if (strlen(pp->m[i].name) == len && !memcmp(pp->m[i].name, s, len)) return i;
  return -1;
}

static bool hidden(const Hide *h, int macro) {
  for (; h; h = h->next)
    if (h->macro == macro) return true;
  return false;
}

static const Hide *hide_add(Pp *pp, const Hide *h, int macro) {
  if (hidden(h, macro)) return h;
  Hide *n = ARENA_NEW(&pp->tmp, Hide);
  n->macro = macro;
  n->next = h;
  return n;
}

static const Hide *hide_union(Pp *pp, const Hide *a, const Hide *b) {
  for (; b; b = b->next) a = hide_add(pp, a, b->macro);
  return a;
}

/* A tree cursor on the heap, known to pp until pp_cursor_close: an error
 * (a longjmp) unwinds past the walk, and fe_preprocess frees what it left. */
static TSTreeCursor *pp_cursor(Pp *pp, TSNode n) {
  if (pp->ncursors == (int)(sizeof pp->cursors / sizeof pp->cursors[0]))
    pp_error(pp, ts_node_start_byte(n), "nested too deeply for the preprocessor");
  TSTreeCursor *c = malloc(sizeof *c);
  if (!c) pp_error(pp, ts_node_start_byte(n), "out of memory");
  *c = ts_tree_cursor_new(n);
  pp->cursors[pp->ncursors++] = c;
  return c;
}

static void pp_cursor_close(Pp *pp, TSTreeCursor *c) {
  ts_tree_cursor_delete(c);
  free(c);
  pp->ncursors--; /* walks nest: the last opened closes first */
}

/* Iterative walk (the tree may be deep): each leaf of n becomes a token. */
void pp_leaves(Pp *pp, TSNode n, const char *text, uint32_t loc, const Hide *hide, Toks *out) {
  TSTreeCursor *c = pp_cursor(pp, n);
  for (;;) {
    TSNode x = ts_tree_cursor_current_node(c);
    bool leaf = atomic(x) || !ts_node_child_count(x);
    if (leaf && !ts_node_is_missing(x) && !fe_is(x, "comment") && ts_node_end_byte(x) > ts_node_start_byte(x)) {
      uint32_t a = ts_node_start_byte(x);
      Tok t = {text + a, ts_node_end_byte(x) - a, text == pp->src ? a : loc, a, text == pp->src, false,
               identifier_leaf(x), false, pp->nm, hide, ts_node_end_byte(x) - a};
      push(pp, out, t);
    }
    if (!leaf && ts_tree_cursor_goto_first_child(c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(c))
      if (!ts_tree_cursor_goto_parent(c)) goto done;
  }
done:
  pp_cursor_close(pp, c);
}

/* ---------------- definitions ---------------- */

static Macro *new_macro(Pp *pp, TSNode name_n) {
  uint32_t a = ts_node_start_byte(name_n), b = ts_node_end_byte(name_n);
  int prior = pp_macro(pp, pp->src + a, b - a, pp->nm);
  if (prior >= 0)
    pp_error(pp, a, "macro '%.*s' is already defined (line %d)", (int)(b - a), pp->src + a,
             src_loc(pp->src, pp->m[prior].at).line);
  if (pp->nm == pp->cap) {
    pp->cap = pp->cap ? 2 * pp->cap : 16;
    pp->m = realloc(pp->m, sizeof *pp->m * (size_t)pp->cap);
  }
  Macro *m = &pp->m[pp->nm++];
  *m = (Macro){arena_strndup(pp->fe->arena, pp->src + a, b - a), false, 0, NULL, {0}, "", a};
  return m;
}

static void define_object(Pp *pp, TSNode n) {
  Macro *m = new_macro(pp, fe_field(n, "name"));
  TSNode v = fe_field(n, "value");
  if (!ts_node_is_null(v)) m->text = fe_text(pp->fe, v);
}

/* A macro body's tokens: its text parsed as the statements of a function
 * (so that an expression, a statement or a fragment all lex as C), with
 * continuation lines blanked to keep every offset; each reports its own
 * place in the #define line. */
static void body_tokens(Pp *pp, TSNode v, Toks *out) {
  static const char prefix[] = "void __npg_body(void) {\n", suffix[] = "\n;}\n";
  uint32_t a = ts_node_start_byte(v), n = ts_node_end_byte(v) - a;
  size_t pl = sizeof prefix - 1;
  char *snippet = arena_alloc(pp->fe->arena, pl + n + sizeof suffix);
  memcpy(snippet, prefix, pl);
  memcpy(snippet + pl, pp->src + a, n);
  memcpy(snippet + pl + n, suffix, sizeof suffix);
  for (size_t i = pl; i < pl + n; i++)
    if ((snippet[i] == '\\' && (snippet[i + 1] == '\n' || snippet[i + 1] == '\r')) || snippet[i] == '\n' ||
        snippet[i] == '\r')
      snippet[i] = ' ';
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, pp->fe->lang);
  TSTree *tree = ts_parser_parse_string(p, NULL, snippet, (uint32_t)(pl + n + sizeof suffix - 1));
  ts_parser_delete(p);
  Toks all = {0};
  pp_leaves(pp, ts_tree_root_node(tree), snippet, 0, NULL, &all);
  ts_tree_delete(tree);
  for (int i = 0; i < all.n; i++) {
    Tok t = all.t[i];
    uint32_t off = t.gap; /* pp_leaves keeps a snippet token's offset there */
    if (off < pl || off >= pl + n) continue; /* the wrapper's own tokens */
    t.loc = a + (off - (uint32_t)pl);
    t.exact = true;
    t.s = pp->src + t.loc;
    push(pp, out, t);
  }
  pp_toks_free(&all);
}

static void refuse_operators(Pp *pp, const Macro *m) {
  for (int i = 0; i < m->body.n; i++) {
    const Tok *t = &m->body.t[i];
    if (t->s[0] == '#')
      pp_error(pp, t->loc, "'%s' in macro '%s' is not supported in kernels: kernels have no %s",
               t->s[1] == '#' ? "##" : "#", m->name, t->s[1] == '#' ? "token pasting" : "stringizing");
  }
}

static void token(Pp *pp, TSNode n, bool raw);

/* `#define N SQ(4)`: the body's function-like macros expanded where it is
 * defined, so that preproc.c reads a constant; the line is kept otherwise. */
static void define_line(Pp *pp, TSNode n) {
  TSNode v = fe_field(n, "value");
  Toks body = {0}, out = {0};
  if (!ts_node_is_null(v)) {
    body_tokens(pp, v, &body);
    pp_expand(pp, body.t, body.n, &out);
  }
  bool expanded = false;
  for (int i = 0; i < out.n; i++) expanded |= out.t[i].hide != NULL;
  if (!expanded) {
    token(pp, n, true);
  } else {
    uint32_t a = ts_node_start_byte(n), head = ts_node_start_byte(v) - a;
    StrBuf sb;
    sb_init(&sb);
    sb_putn(&sb, pp->src + a, head);
    for (int i = 0; i < out.n; i++) {
      /* a blank between tokens, as cpp leaves, but none inside brackets */
      bool tight = !i || is(&out.t[i - 1], "(") || is(&out.t[i - 1], "[") || is(&out.t[i], ")") ||
                   is(&out.t[i], "]") || is(&out.t[i], ",");
      sb_printf(&sb, "%s%.*s", tight ? "" : " ", (int)out.t[i].len, out.t[i].s);
    }
    sb_putc(&sb, '\n');
    Tok t = {arena_strndup(pp->fe->arena, sb.data, sb.len), (uint32_t)sb.len, a, pp->pos, true, true, false, true,
             pp->nm, NULL, head};
    sb_free(&sb);
    push(pp, &pp->file, t);
    pp->pos = ts_node_end_byte(n);
  }
  pp_toks_free(&body);
  pp_toks_free(&out);
}

static void define_function(Pp *pp, TSNode n) {
  Macro *m = new_macro(pp, fe_field(n, "name"));
  m->function = true;
  TSNode ps = fe_field(n, "parameters");
  uint32_t np = ts_node_named_child_count(ps);
  m->params = ARENA_ARRAY(pp->fe->arena, const char *, np + 1);
  for (uint32_t i = 0; i < ts_node_child_count(ps); i++) {
    TSNode p = ts_node_child(ps, i);
    if (fe_is(p, "..."))
      pp_error(pp, ts_node_start_byte(p), "variadic macros ('...') are not supported in kernels");
    if (!fe_is(p, "identifier")) continue;
    const char *name = fe_text(pp->fe, p);
    for (int k = 0; k < m->nparams; k++)
      if (!strcmp(m->params[k], name))
        pp_error(pp, ts_node_start_byte(p), "duplicate parameter '%s' of macro '%s'", name, m->name);
    m->params[m->nparams++] = name;
  }
  TSNode v = fe_field(n, "value");
  if (!ts_node_is_null(v)) body_tokens(pp, v, &m->body);
  for (int i = 0; i < m->body.n; i++) m->body.t[i].written = false;
  refuse_operators(pp, m);
}

/* ---------------- expansion ---------------- */

/* The input of one expansion: tokens, with what rescanning put back in
 * front (back, last first). */
typedef struct {
  const Tok *in;
  int n, i;
  Toks back;
} Stream;

static bool next(Stream *s, Tok *t) {
  if (s->back.n) *t = s->back.t[--s->back.n];
  else if (s->i < s->n) *t = s->in[s->i++];
  else return false;
  return true;
}

static bool next_is_paren(const Stream *s) {
  const Tok *t = s->back.n ? &s->back.t[s->back.n - 1] : s->i < s->n ? &s->in[s->i] : NULL;
  return t && !t->raw && is(t, "(");
}

/* The arguments up to the matching ')': commas split them only outside
 * nested parentheses. */
static int arguments(Pp *pp, Stream *s, const Tok *name, Toks *args, int max) {
  int n = 1, depth = 0;
  Tok t;
  for (;;) {
    if (!next(s, &t)) pp_error(pp, name->loc, "unterminated use of macro '%.*s': no ')'", (int)name->len, name->s);
    if (t.raw)
      pp_error(pp, t.loc, "a directive inside the arguments of macro '%.*s'", (int)name->len, name->s);
    if (is(&t, "(")) {
      depth++;
    } else if (is(&t, ")")) {
      if (depth == 0) return n;
      depth--;
    } else if (is(&t, ",") && depth == 0) {
      n++;
      continue;
    }
    if (n <= max) push(pp, &args[n - 1], t);
  }
}

static int param_index(const Macro *m, const Tok *t) {
  if (!t->ident) return -1;
  for (int k = 0; k < m->nparams; k++)
    if (strlen(m->params[k]) == t->len && !memcmp(m->params[k], t->s, t->len)) return k;
  return -1;
}

static void produce(Pp *pp, Toks *out, Tok t, const Tok *name) {
  if (--pp->budget < 0)
    pp_error(pp, name->loc, "the expansion of macro '%.*s' is too large (more than %d tokens)", (int)name->len,
             name->s, PP_MAX_TOKENS);
  push(pp, out, t);
}

/* The replacement of macro mi used at `name`: parameters replaced by their
 * arguments, expanded first; every token keeps the macro hidden. */
static void substitute(Pp *pp, int mi, const Tok *name, Toks *args, Toks *out) {
  const Macro *m = &pp->m[mi];
  const Hide *hide = hide_add(pp, name->hide, mi);
  Toks *expanded = ARENA_ARRAY(&pp->tmp, Toks, m->nparams + 1);
  bool *done = ARENA_ARRAY(&pp->tmp, bool, m->nparams + 1);
  for (int b = 0; b < m->body.n; b++) {
    const Tok *bt = &m->body.t[b];
    int p = param_index(m, bt);
    if (p < 0) {
      Tok t = *bt;
      t.loc = name->loc, t.exact = false, t.written = false, t.visible = name->visible, t.hide = hide;
      produce(pp, out, t, name);
      continue;
    }
    if (!done[p]) pp_expand(pp, args[p].t, args[p].n, &expanded[p]), done[p] = true;
    for (int k = 0; k < expanded[p].n; k++) {
      Tok t = expanded[p].t[k];
      t.hide = hide_union(pp, t.hide, hide);
      produce(pp, out, t, name);
    }
  }
}

/* One use of function-like macro mi (its name consumed, '(' next). */
static void invoke(Pp *pp, int mi, const Tok *name, Stream *s, Toks *out) {
  const Macro *m = &pp->m[mi];
  if (++pp->depth > FE_MAX_NESTING)
    pp_error(pp, name->loc, "macro uses nested too deeply (the limit is %d levels)", FE_MAX_NESTING);
  Tok paren;
  next(s, &paren);
  int max = m->nparams ? m->nparams : 1;
  Toks *args = ARENA_ARRAY(&pp->tmp, Toks, max);
  int n = arguments(pp, s, name, args, max);
  if (!m->nparams && (n > 1 || args[0].n))
    pp_error(pp, name->loc, "macro '%s' takes no arguments, but is given some", m->name);
  if (m->nparams && n != m->nparams)
    pp_error(pp, name->loc, "macro '%s' takes %d argument%s, but is given %d", m->name, m->nparams,
             m->nparams == 1 ? "" : "s", n);
  substitute(pp, mi, name, args, out);
  pp->depth--;
}

void pp_expand(Pp *pp, const Tok *in, int n, Toks *out) {
  Stream s = {in, n, 0, {0}};
  Tok t;
  while (next(&s, &t)) {
    int mi = t.ident ? pp_macro(pp, t.s, t.len, t.visible) : -1;
    if (mi < 0 || !pp->m[mi].function || hidden(t.hide, mi) || !next_is_paren(&s)) {
      push(pp, out, t);
      continue;
    }
    pp->changed = true;
    Toks result = {0};
    invoke(pp, mi, &t, &s, &result);
    for (int k = result.n - 1; k >= 0; k--) push(pp, &s.back, result.t[k]); /* rescanned with the rest */
    pp_toks_free(&result);
  }
  pp_toks_free(&s.back);
}

/* ---------------- the file's lines ---------------- */

static void token(Pp *pp, TSNode n, bool raw) {
  uint32_t a = ts_node_start_byte(n);
  Tok t = {pp->src + a, ts_node_end_byte(n) - a, a, pp->pos, true, true, !raw && identifier_leaf(n), raw, pp->nm, NULL,
           ts_node_end_byte(n) - a};
  push(pp, &pp->file, t);
  pp->pos = ts_node_end_byte(n);
}

static void leave_out(Pp *pp, TSNode n) {
  pp->pos = ts_node_end_byte(n);
  pp->changed = true;
}

static void walk(Pp *pp, TSNode root);

/* A group: its taken branch's lines are read, the rest left out. */
static void group(Pp *pp, TSNode n) {
  if (++pp->depth > FE_MAX_NESTING)
    pp_error(pp, ts_node_start_byte(n), "#if groups nested too deeply (the limit is %d levels)", FE_MAX_NESTING);
  bool taken = fe_is(n, "preproc_else") || pp_if_taken(pp, n);
  TSNode alt = fe_field(n, "alternative"), cond = fe_field(n, "condition"), name = fe_field(n, "name");
  for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
    TSNode c = ts_node_child(n, i);
    if (!ts_node_is_null(alt) && ts_node_eq(c, alt)) {
      if (taken) leave_out(pp, c);
      else group(pp, c);
    } else if (ts_node_is_named(c) && !ts_node_eq(c, cond) && !ts_node_eq(c, name) && taken) {
      walk(pp, c);
    } else {
      leave_out(pp, c);
    }
  }
  pp->changed = true;
  pp->depth--;
}

/* A conditional directive's name ("#if", "#endif"...), as a token of its
 * own or as the directive of a line tree-sitter-c read as preproc_call. */
static bool conditional_directive(const char *src, TSNode n) {
  if (fe_is(n, "preproc_call")) n = fe_field(n, "directive");
  else if (ts_node_is_named(n)) return false;
  uint32_t a = ts_node_start_byte(n);
  if (ts_node_is_null(n) || src[a] != '#') return false;
  for (a++; src[a] == ' ' || src[a] == '\t'; a++) {}
  return !strncmp(src + a, "if", 2) || !strncmp(src + a, "el", 2) || !strncmp(src + a, "endif", 5);
}

/* A directive tree-sitter-c could not read as one: each group must hold
 * whole items, since both of a group's branches are parsed. */
static _Noreturn void stray(Pp *pp, TSNode n) {
  uint32_t a = ts_node_start_byte(n), b = a + 1;
  while (b < pp->len && pp->src[b] != '\n' && pp->src[b] != ' ' && pp->src[b] != '\t' && pp->src[b] != '(') b++;
  pp_error(pp, a, "cannot read '%.*s' here: each branch of a conditional group must hold whole statements, "
           "declarations or directives", (int)(b - a), pp->src + a);
}

/* Whether the walk handles n whole (false: its children are walked). */
static bool whole(Pp *pp, TSNode n) {
  if (fe_is(n, "preproc_if") || fe_is(n, "preproc_ifdef")) group(pp, n);
  else if (fe_is(n, "preproc_def")) define_object(pp, n), define_line(pp, n);
  else if (fe_is(n, "preproc_function_def")) define_function(pp, n), token(pp, n, true);
  else if (conditional_directive(pp->src, n)) stray(pp, n);
  else if (fe_is(n, "preproc_include") || fe_is(n, "preproc_call")) token(pp, n, true);
  else if (ts_node_is_missing(n) || fe_is(n, "comment") || ts_node_end_byte(n) == ts_node_start_byte(n)) {}
  else if (atomic(n) || !ts_node_child_count(n)) token(pp, n, false);
  else return false;
  return true;
}

static void walk(Pp *pp, TSNode root) {
  TSTreeCursor *c = pp_cursor(pp, root);
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(c);
    if (!whole(pp, n) && ts_tree_cursor_goto_first_child(c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(c))
      if (!ts_tree_cursor_goto_parent(c)) goto done;
  }
done:
  pp_cursor_close(pp, c);
}

/* Does the file need the pass (a function-like macro or a group)? */
static bool needed(const char *src, TSNode root) {
  TSTreeCursor c = ts_tree_cursor_new(root);
  bool found = false;
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    if (fe_is(n, "preproc_function_def") || fe_is(n, "preproc_if") || fe_is(n, "preproc_ifdef") ||
        conditional_directive(src, n)) {
      found = true;
      break;
    }
    if (ts_tree_cursor_goto_first_child(&c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&c))
      if (!ts_tree_cursor_goto_parent(&c)) goto done;
  }
done:
  ts_tree_cursor_delete(&c);
  return found;
}

/* ---------------- the expanded text and its map ---------------- */

typedef struct {
  StrBuf text;
  MapSeg *seg;
  int n, cap;
} Out;

static void put(Out *o, const char *s, uint32_t len, uint32_t src, bool fixed) {
  if (!len) return;
  if (o->n == o->cap) {
    o->cap = o->cap ? 2 * o->cap : 256;
    o->seg = realloc(o->seg, sizeof *o->seg * (size_t)o->cap);
  }
  o->seg[o->n++] = (MapSeg){(uint32_t)o->text.len, src, fixed};
  sb_putn(&o->text, s, len);
}

static void write_token(Pp *pp, Out *o, const Tok *t) {
  if (t->written && !t->hide) {
    put(o, pp->src + t->gap, t->loc - t->gap, t->gap, false);
    if (t->raw && o->text.len && o->text.data[o->text.len - 1] != '\n') put(o, "\n", 1, t->loc, true);
    put(o, t->s, t->head, t->loc, false);
    put(o, t->s + t->head, t->len - t->head, t->loc + t->head, true); /* a #define's body rewritten */
    if (t->raw && t->s[t->len - 1] != '\n') put(o, "\n", 1, t->loc, true);
    return;
  }
  put(o, " ", 1, t->loc, true);
  put(o, t->s, t->len, t->loc, !t->exact);
}

static uint32_t *line_starts(Fe *fe, const char *src, uint32_t len, int *n) {
  int count = 1;
  for (uint32_t i = 0; i < len; i++) count += src[i] == '\n';
  uint32_t *ls = ARENA_ARRAY(fe->arena, uint32_t, count);
  ls[0] = 0;
  for (uint32_t i = 0, k = 1; i < len; i++)
    if (src[i] == '\n') ls[k++] = i + 1;
  *n = count;
  return ls;
}

const char *fe_preprocess(Fe *fe, TSNode root, uint32_t len, uint32_t *out_len) {
  if (!needed(fe->src, root)) return NULL;
  Pp pp = {fe, fe->src, len, NULL, 0, 0, {0}, 0, PP_MAX_TOKENS, 0, false, {0}, {0}, 0, {0}, 0};
  arena_init(&pp.tmp, 0);
  Toks expanded = {0};
  Out o = {0};
  sb_init(&o.text);
  const char *result = NULL;
  jmp_buf saved;
  memcpy(saved, fe->fail, sizeof saved);
  if (!setjmp(fe->fail)) {
    walk(&pp, root);
    pp_expand(&pp, pp.file.t, pp.file.n, &expanded);
    for (int i = 0; i < expanded.n; i++) write_token(&pp, &o, &expanded.t[i]);
    put(&o, pp.src + pp.pos, len - pp.pos, pp.pos, false);
    FileMap *map = ARENA_NEW(fe->arena, FileMap);
    map->n = o.n;
    map->seg = ARENA_ARRAY(fe->arena, MapSeg, o.n ? o.n : 1);
    if (o.n) memcpy(map->seg, o.seg, sizeof *o.seg * (size_t)o.n);
    map->line_start = line_starts(fe, fe->src, len, &map->nlines);
    fe->fmap = map;
    result = arena_strndup(fe->arena, o.text.data ? o.text.data : "", o.text.len);
    *out_len = (uint32_t)o.text.len;
  } else {
    result = ""; /* the error is reported */
    *out_len = 0;
    fe->fmap = NULL;
    fe->preprocess_failed = true;
  }
  memcpy(fe->fail, saved, sizeof saved);
  for (int i = 0; i < pp.ntrees; i++) ts_tree_delete(pp.trees[i]); /* those an error left */
  for (int i = 0; i < pp.ncursors; i++) {
    ts_tree_cursor_delete(pp.cursors[i]);
    free(pp.cursors[i]);
  }
  free(pp.m);
  arena_free(&pp.tmp);
  sb_free(&o.text);
  free(o.seg);
  return result;
}

/* The segment of the map that holds offset `at` (NULL: an empty map). */
static const MapSeg *segment(const FileMap *m, uint32_t at) {
  int lo = 0, hi = m->n - 1;
  if (hi < 0) return NULL;
  while (lo < hi) { /* the last segment that starts at or before `at` */
    int mid = (lo + hi + 1) / 2;
    if (m->seg[mid].at <= at) lo = mid;
    else hi = mid - 1;
  }
  return &m->seg[lo];
}

bool fe_file_fixed(const Fe *fe, uint32_t at) {
  const MapSeg *s = segment(fe->fmap, at);
  return s && s->fixed;
}

SrcLoc fe_file_loc(const Fe *fe, uint32_t at) {
  const FileMap *m = fe->fmap;
  const MapSeg *s = segment(m, at);
  if (!s) return (SrcLoc){1, 1};
  int lo, hi;
  uint32_t src = s->fixed || at < s->at ? s->src : s->src + (at - s->at);
  lo = 0, hi = m->nlines - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (m->line_start[mid] <= src) lo = mid;
    else hi = mid - 1;
  }
  return (SrcLoc){lo + 1, (int)(src - m->line_start[lo]) + 1};
}

/* A tensorized call's repeated bound held by a local (lower/intrinsic.c).
 * A window's first iteration is clamped to the loop (npu_clamp), and the
 * call prints it in every operand it offsets and again in its length:
 * `f(&y_vm[npu_clamp(7 - ii_start, 8192)], &x_vm[npu_clamp(7 - ii_start,
 * 8192)], 8192 - npu_clamp(7 - ii_start, 8192))`. The call then names a
 * const local declared just before it, `ii_bound`. The call is parsed with
 * tree-sitter-c; a bound is an `npu_clamp(...)` call, which has no side
 * effects, so evaluating it once before the call changes nothing. */
#include <string.h>
#include <tree_sitter/api.h>

#include "frontend/frontend.h"
#include "lower/lower.h"

typedef struct {
  uint32_t at[32], end[32]; /* the npu_clamp calls, outer before inner, in order */
  int n;
} Bounds;

static void find_bounds(const char *text, TSNode n, Bounds *b) {
  if (!strcmp(ts_node_type(n), "call_expression")) {
    TSNode fn = ts_node_child_by_field_name(n, "function", 8);
    uint32_t s = ts_node_start_byte(fn), e = ts_node_end_byte(fn);
    if (!strcmp(ts_node_type(fn), "identifier") && e - s == 9 && !strncmp(text + s, "npu_clamp", 9) && b->n < 32) {
      b->at[b->n] = ts_node_start_byte(n);
      b->end[b->n++] = ts_node_end_byte(n);
    }
  }
  for (uint32_t i = 0; i < ts_node_child_count(n); i++) find_bounds(text, ts_node_child(n, i), b);
}

static bool same_text(const char *text, const Bounds *b, int i, int j) {
  return b->end[i] - b->at[i] == b->end[j] - b->at[j] && !memcmp(text + b->at[i], text + b->at[j], b->end[i] - b->at[i]);
}

/* Whether the kernel, the call or an earlier local uses name. */
typedef struct {
  const char *name;
  bool found;
} Use;

static bool use_expr(const Expr *e, void *ctx) {
  Use *u = ctx;
  u->found |= (e->kind == EX_VAR && !strcmp(e->var->name, u->name)) || (e->macro && !strcmp(e->macro, u->name)) ||
              (e->kind == EX_LOAD && !strcmp(e->buf->name, u->name));
  return !u->found;
}

static bool use_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Use *u = ctx;
  u->found |= (s->var && !strcmp(s->var->name, u->name)) || (s->buf && !strcmp(s->buf->name, u->name));
  Expr *es[] = {s->lo, s->hi, s->cond, s->lhs, s->rhs, s->init};
  for (int i = 0; i < 6 && !u->found; i++) ir_walk_expr(es[i], use_expr, u);
  return !u->found;
}

static bool name_char(char c) { return c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9'); }

/* name as a whole word in call (a name the call prints), or used by the
 * kernel or an earlier local. */
static bool taken(Lower *lw, const char *call, const char *name) {
  Use u = {name, false};
  for (const Param *p = lw->k->params; p; p = p->next) u.found |= !strcmp(p->buf ? p->buf->name : p->var->name, name);
  if (!u.found) ir_walk_stmts(lw->k->body, use_stmt, &u);
  for (int i = 0; i < lw->once->nheld && !u.found; i++) u.found = !strcmp(lw->once->held[i], name);
  size_t n = strlen(name);
  for (const char *p = strstr(call, name); p && !u.found; p = strstr(p + 1, name)) {
    u.found = !(p > call && name_char(p[-1])) && !name_char(p[n]);
  }
  return u.found;
}

/* "<counter>_bound", or with a number after it: a name nothing uses. */
static const char *fresh(Lower *lw, const Stmt *loop, const char *call) {
  const char *base = arena_printf(lw->arena, "%s_bound", loop->var->name), *name = base;
  for (int n = 2; taken(lw, call, name); n++) name = arena_printf(lw->arena, "%s%d", base, n);
  Decided *d = lw->once;
  d->held = lower_room(lw->arena, d->held, d->nheld, &d->held_cap, sizeof *d->held);
  d->held[d->nheld++] = name;
  return name;
}

const char *lower_hold_repeat(Lower *lw, const Stmt *loop, const char **call) {
  const char *text = *call;
  TSParser *parser = ts_parser_new();
  ts_parser_set_language(parser, frontend_language());
  TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)strlen(text));
  TSNode root = ts_tree_root_node(tree);
  Bounds b = {.n = 0};
  if (!ts_node_has_error(root)) find_bounds(text, root, &b);
  int pick = -1;
  for (int i = 0; i < b.n && pick < 0; i++)
    for (int j = i + 1; j < b.n && pick < 0; j++)
      if (same_text(text, &b, i, j)) pick = i;
  const char *decl = NULL;
  if (pick >= 0) {
    const char *name = fresh(lw, loop, text);
    decl = arena_printf(lw->arena, "const int %s = %.*s;", name, (int)(b.end[pick] - b.at[pick]), text + b.at[pick]);
    StrBuf sb;
    sb_init(&sb);
    uint32_t from = 0;
    for (int i = 0; i < b.n; i++) {
      if (!same_text(text, &b, i, pick)) continue;
      sb_putn(&sb, text + from, b.at[i] - from);
      sb_puts(&sb, name);
      from = b.end[i];
    }
    sb_puts(&sb, text + from);
    *call = arena_strdup(lw->arena, sb.data);
    sb_free(&sb);
  }
  ts_tree_delete(tree);
  ts_parser_delete(parser);
  return decl;
}

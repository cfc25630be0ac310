/* A parameter's pack and unpack helpers as kernels (emit/emit_file.c
 * prints them), and the comment over them: loop nests over two arrays,
 * `logical` (the layout before every step) and `physical` (after all of
 * them), following the buffer's composed index map.
 *
 *   pack:   when padded, a note and every physical element set to the
 *           pad value; then physical[index(v)] = logical[v] for each
 *           logical v
 *   unpack: logical[v] = physical[index(v)], the padding dropped */
#include <stdio.h>
#include <string.h>

#include "lower/lower.h"

static Buffer *array(Arena *a, const char *name, const Type *elem, const int64_t *shape, int n) {
  Buffer *b = ARENA_NEW(a, Buffer);
  b->name = name;
  b->elem = elem;
  b->ndim = n;
  memcpy(b->shape, shape, sizeof *shape * (size_t)n);
  b->scope = "global";
  return b;
}

/* `for (int v0 = 0; v0 < n0; v0++) { ... inner }`, one loop a dimension. */
static Stmt *nest(Arena *a, Var *const *vars, const int64_t *shape, int n, Stmt *inner) {
  Stmt *s = inner;
  for (int d = n - 1; d >= 0; d--) {
    Stmt *f = ir_stmt(a, ST_FOR, inner->loc);
    f->var = vars[d];
    f->lo = ir_int(a, 0, &ty_int, inner->loc);
    f->hi = ir_int(a, shape[d], &ty_int, inner->loc);
    f->cmp = OP_LT;
    f->step = 1;
    f->body = ir_stmt(a, ST_BLOCK, inner->loc);
    f->body->body = s;
    s = f;
  }
  return s;
}

static Stmt *copy(Arena *a, Expr *dst, Expr *src) {
  Stmt *s = ir_stmt(a, ST_ASSIGN, dst->loc);
  s->lhs = dst;
  s->op = OP_NONE;
  s->rhs = src;
  return s;
}

static Expr *at(Arena *a, Buffer *b, Expr *const *idx) {
  Expr **i = arena_alloc(a, sizeof *i * (size_t)b->ndim);
  memcpy(i, idx, sizeof *i * (size_t)b->ndim);
  return ir_load(a, b, i);
}

/* Every physical element set to the pad value, after a note saying so. */
static Stmt *padding(Arena *a, const Buffer *b, Buffer *physical) {
  const Layout *L = b->layout;
  Var *p[IR_MAX_DIMS];
  Expr *idx[IR_MAX_DIMS];
  for (int d = 0; d < b->ndim; d++) {
    p[d] = ARENA_NEW(a, Var);
    *p[d] = (Var){.name = arena_printf(a, "p%d", d), .type = &ty_int, .kind = VAR_LOOP};
    idx[d] = ir_var(a, p[d], (SrcLoc){0});
  }
  Expr *pad = ARENA_NEW(a, Expr);
  *pad = (Expr){.kind = EX_FLOAT, .type = b->elem, .macro = L->pad_text}; /* printed as the user spelt it */
  Stmt *note = ir_stmt(a, ST_BLOCK, (SrcLoc){0});
  note->low = ARENA_NEW(a, Lowered);
  note->low->kind = LOW_NOTE;
  note->note = arena_printf(a, "the padding holds %s", L->pad_text);
  note->next = nest(a, p, b->shape, b->ndim, copy(a, at(a, physical, idx), pad));
  return note;
}

/* VARIANT_pack_B(const T from[..], T to[..]) (or unpack) with body. */
static Kernel *helper(Arena *a, const char *variant, const Buffer *b, bool pack, Buffer *from, Buffer *to, Stmt *body) {
  Kernel *k = ARENA_NEW(a, Kernel);
  *k = (Kernel){.name = arena_printf(a, "%s_%s_%s", variant, pack ? "pack" : "unpack", b->name), .nparams = 2};
  Buffer *in = ARENA_NEW(a, Buffer);
  *in = *from;
  in->is_const = true;
  Param *p = arena_alloc(a, 2 * sizeof *p);
  p[0] = (Param){.next = &p[1], .buf = in};
  p[1] = (Param){.buf = to};
  k->params = p;
  k->body = ir_stmt(a, ST_BLOCK, (SrcLoc){0});
  k->body->body = body;
  return k;
}

/* "W: logical [32][3][7][7] -> physical [8][1][4][4][7][7] (padded), by"
 * and the layout's steps, one a line */
static const char *comment(Arena *a, const Buffer *b) {
  const Layout *L = b->layout;
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s: logical ", b->name);
  for (int d = 0; d < L->ndim; d++) sb_printf(&sb, "[%lld]", (long long)L->shape[d]);
  sb_puts(&sb, " -> physical ");
  for (int d = 0; d < b->ndim; d++) sb_printf(&sb, "[%lld]", (long long)b->shape[d]);
  sb_printf(&sb, "%s, by\n", L->padded ? " (padded)" : "");
  lower_comment_lines(&sb, L->steps);
  const char *text = arena_strdup(a, sb.data);
  sb_free(&sb);
  return text;
}

void lower_layout_helpers(Arena *a, const char *variant, const Buffer *b, LayoutHelpers *out) {
  const Layout *L = b->layout;
  Buffer *physical = array(a, "physical", b->elem, b->shape, b->ndim),
         *logical = array(a, "logical", b->elem, L->shape, L->ndim);
  Expr *v[IR_MAX_DIMS];
  for (int d = 0; d < L->ndim; d++) v[d] = ir_var(a, L->var[d], (SrcLoc){0});
  Expr *phys = at(a, physical, L->index), *log = at(a, logical, v);
  Stmt *to = nest(a, L->var, L->shape, L->ndim, copy(a, phys, log)), *pack = to;
  if (L->padded) {
    pack = padding(a, b, physical);
    pack->next->next = to;
  }
  Stmt *unpack = nest(a, L->var, L->shape, L->ndim, copy(a, log, phys));
  out->pack = helper(a, variant, b, true, logical, physical, pack);
  out->unpack = helper(a, variant, b, false, physical, logical, unpack);
  out->comment = comment(a, b);
}

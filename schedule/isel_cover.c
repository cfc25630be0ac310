/* Instruction sequences (issue 40): vectorize's fallback when no single
 * VU instruction computes a nest. The nest's statement's right-hand side
 * is covered by several instructions, as instruction selectors cover a
 * tree (lcc's iburg, Cranelift's ISLE), greedily and deterministically:
 * at each node the largest pattern first, that is the fewest operands
 * cut out into temporaries (in left-to-right order among as many), and
 * the cut operands are covered the same way, before the node.
 *
 *     for j: y[j] = fmaxf(fmaxf(a[2j], a[2j+1]), fmaxf(b[2j], b[2j+1]));
 *   becomes, y_t1 and y_t2 arrays over j in vu_vm:
 *     for j_t1: y_t1[j_t1] = fmaxf(a[2j_t1], a[2j_t1+1]);   npu_vu_fmax_str_f32
 *     for j_t2: y_t2[j_t2] = fmaxf(b[2j_t2], b[2j_t2+1]);   npu_vu_fmax_str_f32
 *     for j:    y[j] = fmaxf(y_t1[j], y_t2[j]);             npu_vu_fmax_f32
 *
 * An operand computed more than once (MIN(MAX(x, lo), hi) as the usual
 * macros expand it holds the max twice) is computed once, into one
 * temporary that each occurrence reads, before the cuts are tried: a clamp
 * so written is a max and a min with scalars.
 *
 * Legal: by construction. A temporary holds its operand's value in the
 * operand's own type (the store converts nothing, the load reads the same
 * value back), one element per iteration of the nest's loops. The nest
 * writes only its destination's array, and no operand moved into a
 * temporary reads that array (checked), so computing the operands for
 * every iteration first reads what the nest as written read; the last
 * instruction is the statement itself, with the operands' values in their
 * place, in the nest's own order. Computing an operand where C would not
 * (the branch of a ?: not taken) changes nothing: the kernel language has
 * no side effects, and the VU's arithmetic does not trap. Under a split's
 * tail guard (an if with no else right around the statement) each
 * instruction's nest is a copy of the nest with the guard: a temporary's
 * element is written and read only where the guard holds, in the same
 * iterations as the statement. The temporaries are new vu_vm arrays,
 * placed and checked against the scope's capacity like every on-chip
 * buffer (schedule/placement.c). */
#include "schedule/isel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule/expand.h"
#include "schedule/primitives.h"
#include "schedule/tensorize.h"

enum { MAX_LOOPS = 8, MAX_PIECES = 64, MAX_KIDS = 3 };

/* One instruction of the sequence: dest = value over the nest's loops. */
typedef struct {
  Expr *dest, *value;
  const char *intrin;
  Buffer *temp; /* dest's array when it is a temporary, else NULL */
} Piece;

typedef struct {
  Sched *s;
  Stmt *loop, *leaf;
  Stmt *chain[MAX_LOOPS];
  int depth;
  Piece piece[MAX_PIECES];
  int npieces;
  char why[1024]; /* the deepest sub-expression no instruction computes, and why */
} Cover;

/* ---------------- the nest's shape ---------------- */

static Stmt *only_child(Stmt *body) {
  while (body && body->kind == ST_BLOCK && !body->next) body = body->body;
  return body && !body->next ? body : NULL;
}

/* st, or the one statement under st when st is an if without an else (a
 * split's tail guard, `if (jo * 12 + ji < 16)`): each piece's nest is a
 * copy of the nest, guard and all, so each instruction runs where the
 * statement ran. */
static Stmt *guarded_leaf(Stmt *st) {
  return st && st->kind == ST_IF && !st->else_s ? only_child(st->then_s) : st;
}

/* loop, then loops each the whole body of the one before, down to one
 * assignment; each runs by 1 between constants (the temporaries' extents). */
static bool nest_shape(Cover *c) {
  Stmt *cur = c->loop;
  while (cur && cur->kind == ST_FOR) {
    int64_t lo, hi;
    if (c->depth == MAX_LOOPS || cur->step != 1 || cur->cmp != OP_LT || !ir_const_int(cur->lo, &lo) ||
        !ir_const_int(cur->hi, &hi) || hi <= lo)
      return false;
    c->chain[c->depth++] = cur;
    cur = only_child(cur->body);
  }
  cur = guarded_leaf(cur);
  if (!cur || cur->kind != ST_ASSIGN || cur->lhs->kind != EX_LOAD) return false;
  c->leaf = cur;
  return true;
}

/* The statement's value as one expression (`L op= R` as `L = L op R`
 * where C converts nothing), or NULL. */
static Expr *statement_value(Cover *c) {
  const Stmt *u = c->leaf;
  Expr *v = u->rhs;
  if (u->op != OP_NONE) {
    const Type *t = u->lhs->type;
    if (!type_same(t, u->rhs->type) || !type_same(type_promote(t), t)) return NULL;
    v = ir_binary(c->s->a, u->op, ir_expr_copy(c->s->a, u->lhs), ir_expr_copy(c->s->a, u->rhs), t, u->loc);
  }
  return v;
}

/* ---------------- matching one instruction ---------------- */

/* The VU instruction that computes `dest = value` over the nest's loops
 * (tried on a copy), or NULL with why. */
static const char *instruction(Cover *c, Expr *dest, Expr *value, char *why, size_t n) {
  Stmt *u = c->leaf;
  Expr *lhs = u->lhs, *rhs = u->rhs;
  Op op = u->op;
  u->lhs = dest, u->rhs = value, u->op = OP_NONE;
  CloneMap cm = {0};
  Stmt *copy = ir_clone_stmt(c->s->a, c->loop, &cm);
  clone_map_free(&cm);
  u->lhs = lhs, u->rhs = rhs, u->op = op;
  return tensorize_find(c->s->sems, c->s->a, copy, "npu_vu_", why, n);
}

/* An operand an instruction takes as it is: an element, a constant, a
 * variable, or a value the nest's loops do not vary (a scalar operand). */
static bool operand_leaf(const Cover *c, const Expr *e) {
  if (e->kind == EX_LOAD || e->kind == EX_INT || e->kind == EX_FLOAT || e->kind == EX_VAR) return true;
  for (int i = 0; i < c->depth; i++)
    if (ir_expr_uses(e, c->chain[i]->var, NULL)) return false;
  return true;
}

static bool reads_buffer(const Expr *e, void *ctx) { return !(e->kind == EX_LOAD && e->buf == ctx); }

/* An operand that may move into a temporary: one computed (not a leaf)
 * that does not read the nest's destination array, which the nest writes
 * as it runs. */
static bool operand_movable(const Cover *c, const Expr *e) {
  return !operand_leaf(c, e) && ir_walk_expr(e, reads_buffer, c->leaf->lhs->buf);
}

/* The slots of e's operands, in order. */
static int operand_slots(Expr *e, Expr **slot[MAX_KIDS]) {
  switch (e->kind) {
  case EX_UNARY:
  case EX_CAST: slot[0] = &e->a; return 1;
  case EX_BINARY: slot[0] = &e->a, slot[1] = &e->b; return 2;
  case EX_COND: slot[0] = &e->a, slot[1] = &e->b, slot[2] = &e->c; return 3;
  case EX_CALL:
    if (e->nargs > MAX_KIDS) return 0;
    for (int i = 0; i < e->nargs; i++) slot[i] = &e->args[i];
    return e->nargs;
  default: return 0;
  }
}

/* A temporary of type t over the nest's loops (named and numbered when the
 * sequence is kept), and its element at the current iteration. */
static Buffer *new_temp(Cover *c, const Type *t) {
  Buffer *b = ARENA_NEW(c->s->a, Buffer);
  b->name = "isel_temp";
  b->elem = t;
  b->ndim = c->depth;
  for (int d = 0; d < c->depth; d++) {
    int64_t lo, hi;
    ir_const_int(c->chain[d]->lo, &lo);
    ir_const_int(c->chain[d]->hi, &hi);
    b->shape[d] = hi - lo;
  }
  b->scope = "vu_vm";
  b->role = ROLE_LOCAL;
  b->loc = c->leaf->loc;
  b->id = -1;
  return b;
}

static Expr *temp_element(Cover *c, Buffer *b) {
  Arena *a = c->s->a;
  Expr **idx = ARENA_ARRAY(a, Expr *, c->depth);
  for (int d = 0; d < c->depth; d++) {
    const Stmt *l = c->chain[d];
    int64_t lo;
    ir_const_int(l->lo, &lo);
    idx[d] = ir_var(a, l->var, l->loc);
    if (lo) idx[d] = ir_sub(a, idx[d], ir_expr_copy(a, l->lo), l->var->type);
  }
  return ir_load(a, b, idx);
}

/* The masks of the operands to cut, the fewest first, then in order. */
static int ones(int m) { return m ? (m & 1) + ones(m >> 1) : 0; }

static int cut_order(int nkids, int order[1 << MAX_KIDS]) {
  int n = 0;
  for (int bits = 1; bits <= nkids; bits++)
    for (int m = 1; m < (1 << nkids); m++)
      if (ones(m) == bits) order[n++] = m;
  return n;
}

static bool cover(Cover *c, Expr *dest, Expr *value, Buffer *temp);

/* ---------------- a value computed twice ---------------- */

/* How many times s occurs in e, through operands (not array indices). */
static int occurrences(Expr *e, const Expr *s) {
  if (ir_expr_same(e, s)) return 1;
  Expr **slot[MAX_KIDS];
  int n = 0, nkids = operand_slots(e, slot);
  for (int k = 0; k < nkids; k++) n += occurrences(*slot[k], s);
  return n;
}

/* The largest computed operand of e that occurs more than once in root,
 * first in left-to-right order, or NULL: MIN(MAX(x, lo), hi) as the usual
 * macros expand it, `(x > lo ? x : lo) < hi ? (x > lo ? x : lo) : hi`,
 * holds the max twice. */
static Expr *repeated(const Cover *c, Expr *root, Expr *e) {
  Expr **slot[MAX_KIDS];
  int nkids = operand_slots(e, slot);
  for (int k = 0; k < nkids; k++)
    if (operand_movable(c, *slot[k]) && occurrences(root, *slot[k]) > 1) return *slot[k];
  for (int k = 0; k < nkids; k++) {
    Expr *r = repeated(c, root, *slot[k]);
    if (r) return r;
  }
  return NULL;
}

/* e with every occurrence of s replaced by a copy of with (the read of
 * s's temporary). */
static Expr *shared(Cover *c, Expr *e, const Expr *s, const Expr *with) {
  if (ir_expr_same(e, s)) return ir_expr_copy(c->s->a, with);
  Expr *v = ARENA_NEW(c->s->a, Expr);
  *v = *e;
  if (v->kind == EX_CALL) {
    v->args = ARENA_ARRAY(c->s->a, Expr *, v->nargs);
    memcpy(v->args, e->args, sizeof *v->args * (size_t)v->nargs);
  }
  Expr **slot[MAX_KIDS];
  int nkids = operand_slots(v, slot);
  for (int k = 0; k < nkids; k++) *slot[k] = shared(c, *slot[k], s, with);
  return v;
}

/* A constant that type t holds. */
static bool constant_in(const Expr *e, const Type *t) {
  int64_t k, lo;
  uint64_t hi;
  if (!ir_const_int(e, &k)) return false;
  type_int_range(t, &lo, &hi);
  return k >= lo && (k < 0 || (uint64_t)k <= hi);
}

/* The narrower integer type T that the select r always takes a value of:
 * each of its two values is an operand of type T as C promotes it ((int)x
 * for an int8 x) or a constant T holds. MAX(x, lo) over int8 computes in
 * int, and a temporary of type int8 holds it exactly. NULL otherwise. */
static const Type *narrow_type(const Expr *r) {
  if (r->kind != EX_COND || !type_is_integer(r->type)) return NULL;
  const Expr *v[2] = {r->b, r->c};
  const Type *t = NULL;
  for (int k = 0; k < 2; k++) {
    const Expr *x = v[k];
    if (x->kind != EX_CAST || !x->implicit || !type_is_integer(x->a->type) || x->a->type->size >= r->type->size)
      continue;
    if (t && !type_same(t, x->a->type)) return NULL;
    t = x->a->type;
  }
  for (int k = 0; t && k < 2; k++)
    if (!(v[k]->kind == EX_CAST && type_same(v[k]->a->type, t)) && !constant_in(v[k], t)) return NULL;
  return t;
}

/* value with the operand r computed once into a temporary of type t (r's
 * own, or a narrower one that holds every value r takes, read back as C
 * promotes it), before it: r covered, then the rest. */
static bool cover_shared_as(Cover *c, Expr *dest, Expr *value, Buffer *temp, Expr *r, const Type *t) {
  Arena *a = c->s->a;
  bool narrow = !type_same(t, r->type);
  Buffer *b = new_temp(c, t);
  Expr *read = temp_element(c, b);
  int before = c->npieces;
  if (cover(c, temp_element(c, b), narrow ? ir_cast(a, r, t, true) : r, b) &&
      cover(c, dest, shared(c, value, r, narrow ? ir_cast(a, read, r->type, true) : read), temp))
    return true;
  c->npieces = before;
  return false;
}

/* value with an operand it computes more than once computed once, into
 * one temporary, before it. The temporary holds the operand's value
 * exactly (in its own type, or a narrower one that holds it), and every
 * occurrence reads that same value. */
static bool cover_shared(Cover *c, Expr *dest, Expr *value, Buffer *temp) {
  Expr *r = repeated(c, value, value);
  if (!r) return false;
  char why[sizeof c->why];
  memcpy(why, c->why, sizeof why);
  const Type *narrow = narrow_type(r);
  if ((narrow && cover_shared_as(c, dest, value, temp, r, narrow)) || cover_shared_as(c, dest, value, temp, r, r->type))
    return true;
  memcpy(c->why, why, sizeof why); /* the cuts below say why, as before */
  return false;
}

static bool add_piece(Cover *c, Expr *dest, Expr *value, const char *intrin, Buffer *temp) {
  if (c->npieces == MAX_PIECES)
    return snprintf(c->why, sizeof c->why, "the sequence would take more than %d instructions", MAX_PIECES) < 0;
  c->piece[c->npieces++] = (Piece){dest, value, intrin, temp};
  return true;
}

/* value with the operands in cut moved into temporaries, when an
 * instruction computes that: the operands covered, then it. */
static bool cover_cut(Cover *c, Expr *dest, Expr *value, int cut, bool *tried) {
  Expr *v = ARENA_NEW(c->s->a, Expr);
  *v = *value;
  if (v->kind == EX_CALL) {
    v->args = ARENA_ARRAY(c->s->a, Expr *, v->nargs);
    memcpy(v->args, value->args, sizeof *v->args * (size_t)v->nargs);
  }
  Expr **slot[MAX_KIDS];
  int nkids = operand_slots(v, slot);
  Buffer *temp[MAX_KIDS] = {0};
  for (int k = 0; k < nkids; k++) {
    if (!(cut >> k & 1)) continue;
    if (!operand_movable(c, *slot[k])) return false;
    temp[k] = new_temp(c, (*slot[k])->type);
    *slot[k] = temp_element(c, temp[k]);
  }
  char why[1024];
  const char *intrin = instruction(c, dest, v, why, sizeof why);
  if (!intrin) return false;
  *tried = true;
  Expr **orig[MAX_KIDS];
  operand_slots(value, orig);
  for (int k = 0; k < nkids; k++)
    if (temp[k] && !cover(c, temp_element(c, temp[k]), *orig[k], temp[k])) return false;
  return add_piece(c, dest, v, intrin, NULL);
}

/* dest = value as instructions appended to c->piece, in the order they run. */
static bool cover(Cover *c, Expr *dest, Expr *value, Buffer *temp) {
  char why[1024];
  const char *intrin = instruction(c, dest, value, why, sizeof why);
  if (intrin) return add_piece(c, dest, value, intrin, temp);
  if (cover_shared(c, dest, value, temp)) return true;
  Expr **slot[MAX_KIDS];
  int order[1 << MAX_KIDS], ncuts = cut_order(operand_slots(value, slot), order);
  for (int i = 0; i < ncuts; i++) {
    bool tried = false;
    int before = c->npieces;
    if (cover_cut(c, dest, value, order[i], &tried)) {
      if (temp) c->piece[c->npieces - 1].temp = temp;
      return true;
    }
    c->npieces = before;
    if (tried) return false; /* an instruction takes the node; an operand has none: c->why says which */
  }
  if (temp) { /* an operand: the statement's own nearest miss is the caller's */
    StrBuf e;
    sb_init(&e);
    ir_print_expr(&e, value);
    snprintf(c->why, sizeof c->why, "no VU instruction computes '%.200s' (%.700s)", e.data, why);
    sb_free(&e);
  }
  return false;
}

/* ---------------- the rewrite ---------------- */

static const char *piece_note(Cover *c, const Piece *p) {
  StrBuf sb;
  sb_init(&sb);
  ir_print_expr(&sb, p->dest);
  sb_puts(&sb, " = ");
  ir_print_expr(&sb, p->value);
  const char *note = arena_printf(c->s->a, "%s, of %s (line %d)", sb.data, c->leaf->name ? c->leaf->name : "the statement",
                                  c->leaf->loc.line);
  sb_free(&sb);
  return note;
}

/* Piece i's nest: a copy of the nest, its loops and statement renamed
 * with suffix, or (the last piece) the nest itself. */
static Stmt *piece_nest(Cover *c, const Piece *p, const char *suffix) {
  Stmt *u = c->leaf;
  u->lhs = p->dest, u->rhs = p->value, u->op = OP_NONE;
  Stmt *nest = c->loop;
  if (suffix) {
    CloneMap cm = {.k = c->s->k};
    nest = ir_clone_stmt(c->s->a, c->loop, &cm);
    clone_map_free(&cm);
    for (Stmt *l = nest; l && l->kind == ST_FOR; l = only_child(l->body)) {
      l->name = sched_derived_name(c->s, l->name, suffix);
      l->var->name = l->name;
      Stmt *a = guarded_leaf(only_child(l->body));
      if (a && a->kind == ST_ASSIGN && a->name) a->name = sched_derived_name(c->s, a->name, suffix);
    }
  }
  nest->intrin = p->intrin;
  nest->isel_note = piece_note(c, p);
  return nest;
}

static void rewrite(Cover *c) {
  Sched *s = c->s;
  Stmt *decls = NULL, **dtail = &decls, *nests = NULL, **ntail = &nests;
  const char *base = c->leaf->lhs->buf->name;
  int t = 0;
  for (int i = 0; i < c->npieces; i++) {
    Buffer *b = c->piece[i].temp;
    if (!b) continue;
    b->name = sched_derived_name(s, base, arena_printf(s->a, "_t%d", ++t));
    b->id = s->k->nbufs++;
    Stmt *d = ir_stmt(s->a, ST_DECL, c->leaf->loc);
    d->buf = b;
    *dtail = d, dtail = &d->next;
  }
  for (int i = 0; i < c->npieces - 1; i++) {
    Stmt *n = piece_nest(c, &c->piece[i], arena_printf(s->a, "_t%d", i + 1));
    *ntail = n, ntail = &n->next;
  }
  piece_nest(c, &c->piece[c->npieces - 1], NULL);
  Stmt **link = sched_link(s, c->loop, NULL);
  *dtail = nests;
  *ntail = c->loop;
  *link = decls;
  sched_model_drop(s); /* new statements and accesses: the next proof builds its model anew */
  s->reset_origins = true;
}

/* The nest under loop covered by more than one instruction: c->piece
 * holds them (their temporaries not yet named or declared). */
static bool covered(Cover *c, Sched *s, Stmt *loop) {
  memset(c, 0, sizeof *c);
  c->s = s;
  c->loop = loop;
  Expr *value = nest_shape(c) ? statement_value(c) : NULL;
  return value && cover(c, c->leaf->lhs, value, NULL) && c->npieces > 1;
}

/* For sched_expand_to_match: does the nest (a copy, its locals expanded)
 * take a sequence? Nothing is kept of the try. */
static bool sequence_matches(Sched *s, const Stmt *loop, void *ctx) {
  Cover *c = ctx;
  return covered(c, s, (Stmt *)loop);
}

bool sched_isel_sequence(Sched *s, Stmt *loop, char *why, size_t n) {
  Cover *c = calloc(1, sizeof *c);
  bool ok = covered(c, s, loop);
  char first_why[sizeof c->why];
  memcpy(first_why, c->why, sizeof first_why);
  /* a local that names an index or a value (`const int ih = 2 * oh;`)
   * blocks the nest's shape: expanded into its value, the nest may take
   * a sequence (schedule/expand.c), covered again on the nest itself */
  if (!ok && sched_expand_to_match(s, loop, sequence_matches, c)) ok = covered(c, s, loop);
  if (ok) rewrite(c);
  else if (first_why[0]) {
    size_t len = strlen(why);
    snprintf(why + len, n - len, "%sas a sequence of instructions: %s", len ? "; " : "", first_why);
  }
  free(c);
  return ok;
}

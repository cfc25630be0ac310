/* Emits readable C99 for one variant. Rules (DESIGN.md section 6): source
 * names kept, a header comment with the schedule, a comment on each loop
 * nest naming its statements and lines, deterministic bytes, and code that
 * gcc -std=c99 -Wall -Wextra -pedantic -Werror, clang and tcc accept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "schedule/sched.h"
#include "schedule/tensorize.h"

typedef struct {
  StrBuf *sb;
  const EmitUnit *u;
  Arena scratch;    /* expressions built while emitting (DMA addresses) */
  bool *var_read;   /* by Var.id: read somewhere */
  bool *buf_used;   /* by Buffer.id */
  bool *buf_read;
  /* bound loops' copies out whose waits are deferred (emit_bound) */
  struct Deferred {
    const Stmt *store, *loop;
    const Buffer *b;
  } defer[16];
  int ndefer;
} Emit;

/* ---------------- usage scan ---------------- */

static void scan_expr(Emit *em, const Expr *e) {
  if (!e) return;
  if (e->kind == EX_VAR) em->var_read[e->var->id] = true;
  if (e->kind == EX_LOAD) {
    em->buf_used[e->buf->id] = em->buf_read[e->buf->id] = true;
    for (int i = 0; i < e->buf->ndim; i++) scan_expr(em, e->idx[i]);
  }
  scan_expr(em, e->a);
  scan_expr(em, e->b);
  scan_expr(em, e->c);
  for (int i = 0; i < e->nargs; i++) scan_expr(em, e->args[i]);
}

static bool scan_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Emit *em = ctx;
  switch (s->kind) {
  case ST_FOR:
    scan_expr(em, s->lo);
    scan_expr(em, s->hi);
    break;
  case ST_IF:
    scan_expr(em, s->cond);
    break;
  case ST_ASSIGN:
    scan_expr(em, s->rhs);
    if (s->lhs->kind == EX_LOAD) {
      em->buf_used[s->lhs->buf->id] = true;
      for (int i = 0; i < s->lhs->buf->ndim; i++) scan_expr(em, s->lhs->idx[i]);
      if (s->op != OP_NONE) em->buf_read[s->lhs->buf->id] = true;
    } else {
      if (s->op != OP_NONE) em->var_read[s->lhs->var->id] = true;
    }
    break;
  case ST_DECL:
    scan_expr(em, s->init);
    for (int i = 0; i < s->ninit; i++) scan_expr(em, s->init_list[i]);
    break;
  default:
    break;
  }
  return true;
}

/* ---------------- pieces ---------------- */

static void emit_array_decl(StrBuf *sb, const Buffer *b) {
  sb_printf(sb, "%s%s %s", b->is_const ? "const " : "", b->elem->name, b->name);
  for (int i = 0; i < b->ndim; i++) sb_printf(sb, "[%lld]", (long long)b->shape[i]);
}

void emit_prototype(StrBuf *sb, const EmitUnit *u) {
  sb_printf(sb, "void %s(", u->name);
  if (!u->k->params) sb_puts(sb, "void");
  for (const Param *p = u->k->params; p; p = p->next) {
    if (p != u->k->params) sb_puts(sb, ", ");
    if (p->buf)
      emit_array_decl(sb, p->buf);
    else
      sb_printf(sb, "%s%s %s", p->var->is_const ? "const " : "", p->var->type->name, p->var->name);
  }
  sb_putc(sb, ')');
}

typedef struct {
  const char **names;
  int *lines;
  int n, cap;
} NameList;

static bool list_names(Stmt *s, int depth, void *ctx) {
  (void)depth;
  NameList *l = ctx;
  if (s->kind != ST_ASSIGN) return true;
  if (l->n < l->cap) {
    l->names[l->n] = s->name;
    l->lines[l->n] = s->loc.line;
  }
  l->n++;
  return true;
}

/* "loop nest i (line 4): init (line 6), update (line 8)" */
static void nest_comment(Emit *em, Stmt *loop, int ind) {
  const char *names[6];
  int lines[6];
  NameList l = {names, lines, 0, 6};
  Stmt *next = loop->next;
  loop->next = NULL; /* walk this nest only */
  ir_walk_stmts(loop, list_names, &l);
  loop->next = next;
  sb_indent(em->sb, ind);
  sb_printf(em->sb, "/* loop nest %s (line %d)", loop->name, loop->loc.line);
  for (int i = 0; i < l.n && i < l.cap; i++)
    sb_printf(em->sb, "%s %s (line %d)", i ? "," : ":", names[i], lines[i]);
  if (l.n > l.cap) sb_printf(em->sb, ", and %d more", l.n - l.cap);
  sb_puts(em->sb, " */\n");
}

/* A plain serial copy nest between DDR and an on-chip buffer (or two
 * on-chip buffers), such as a reduction's init from a bias vector after
 * decompose_reduction: the control unit does not store into unit buffers
 * element by element, so it becomes a DMA like the caches' copies. */
static bool onchip_copy(const Stmt *loop) {
  const Stmt *leaf = ir_nest_leaf(loop);
  if (!leaf || leaf->op != OP_NONE || (!buffer_onchip(leaf->lhs->buf) && !buffer_onchip(leaf->rhs->buf))) return false;
  for (const Stmt *l = loop; l->kind == ST_FOR; l = l->body->body)
    if (l->loop_kind != LOOP_SERIAL || l->intrin || l->annots) return false;
  return true;
}

static void emit_stmts(Emit *em, const Stmt *s, int ind, bool top);

static void emit_block_body(Emit *em, const Stmt *block, int ind) {
  emit_stmts(em, block->kind == ST_BLOCK ? block->body : block, ind, false);
}

static void emit_for_header(Emit *em, const Stmt *s) {
  StrBuf *sb = em->sb;
  const char *v = s->var->name;
  sb_printf(sb, "for (%s %s = ", s->var->type->name, v);
  ir_print_expr(sb, s->lo);
  sb_printf(sb, "; %s %s ", v, op_spelling(s->cmp));
  ir_print_expr(sb, s->hi);
  if (s->step == 1)
    sb_printf(sb, "; %s++)", v);
  else if (s->step == -1)
    sb_printf(sb, "; %s--)", v);
  else if (s->step > 0)
    sb_printf(sb, "; %s += %lld)", v, (long long)s->step);
  else
    sb_printf(sb, "; %s -= %lld)", v, (long long)-s->step);
}

static void emit_if(Emit *em, const Stmt *s, int ind) {
  StrBuf *sb = em->sb;
  sb_puts(sb, "if (");
  ir_print_expr(sb, s->cond);
  sb_puts(sb, ") {\n");
  emit_block_body(em, s->then_s, ind + 1);
  sb_indent(sb, ind);
  sb_putc(sb, '}');
  if (s->else_s) {
    const Stmt *e = s->else_s;
    if (e->kind == ST_BLOCK && e->body && !e->body->next && e->body->kind == ST_IF) {
      sb_puts(sb, " else ");
      emit_if(em, e->body, ind);
      return;
    }
    sb_puts(sb, " else {\n");
    emit_block_body(em, e, ind + 1);
    sb_indent(sb, ind);
    sb_putc(sb, '}');
  }
}

/* annotate() values, one comment line each, before their loop or statement. */
static void emit_annots(Emit *em, const Stmt *s, int ind) {
  for (const Annot *a = s->annots; a; a = a->next) {
    sb_indent(em->sb, ind);
    sb_printf(em->sb, "/* @%s = %s */\n", a->key, a->value);
  }
}

/* A tensorized nest: its intrinsic call, or (when a later step changed
 * the nest) a comment saying why the loops stay. */
static bool emit_intrinsic(Emit *em, const Stmt *s, int ind) {
  StrBuf call;
  sb_init(&call);
  char why[1024];
  bool ok = tensorize_call(&em->scratch, s, &call, why, sizeof why);
  sb_indent(em->sb, ind);
  if (ok) sb_printf(em->sb, "%s\n", call.data);
  else sb_printf(em->sb, "/* tensorize(%s, %s) no longer matches: %s */\n", s->name, s->intrin, why);
  sb_free(&call);
  return ok;
}

static void emit_loop_hint(Emit *em, const Stmt *s);

/* ---------------- double-buffered loops ---------------- */

enum { MAX_DB = 8 };

/* A loop whose body declares double-buffered buffers: the copy of the next
 * iteration's region (a read cache) is issued before this iteration's
 * compute, the copy out (a write cache) is waited for two iterations later,
 * and every other statement is emitted as it is. False (nothing written)
 * when a rule of double buffering no longer holds after later steps
 * (ir_double_buffer_rules) or a copy is not one DMA: then the loop runs with
 * synchronous copies. */
typedef struct {
  const Stmt *decl;
  DbCopies c;
} DbBuf;

static bool emit_pipelined(Emit *em, const Stmt *L, int ind) {
  DbBuf db[MAX_DB];
  int n = 0;
  int64_t trips;
  char why[512];
  for (const Stmt *c = L->body->body; c; c = c->next) {
    if (c->kind != ST_DECL || !c->buf || c->buf->copies < 2) continue;
    if (n == MAX_DB || !ir_double_buffer_rules(em->u->k, L, c, &db[n].c, why, sizeof why)) return false;
    db[n++].decl = c;
  }
  if (!n || !ir_const_int(L->hi, &trips)) return false;
  /* every copy must be one DMA: try them first */
  StrBuf dry;
  sb_init(&dry);
  bool ok = true;
  for (int i = 0; i < n && ok; i++) {
    DmaAsync as = {"t", 1, NULL, NULL};
    ok = emit_dma_copy(&dry, &em->scratch, db[i].c.load ? db[i].c.load : db[i].c.store, 0, &as);
  }
  sb_free(&dry);
  if (!ok) return false;

  StrBuf *sb = em->sb;
  const char *v = L->var->name;
  SrcLoc at = L->loc;
  /* a block: a loop emitted twice (loop_partition) declares its copies twice */
  sb_indent(sb, ind);
  sb_puts(sb, "{\n");
  ind++;
  for (int i = 0; i < n; i++) {
    const Buffer *b = db[i].decl->buf;
    sb_indent(sb, ind);
    emit_pointer_decl(sb, b, b->db_name, -1);
    sb_puts(sb, " = (");
    emit_pointer_decl(sb, b, "", -1);
    sb_printf(sb, ")(void *)((char *)npu_scope_base(%s, 0) + %lld); /* %s, two copies of %lld bytes */\n",
              emit_scope_macro(b->scope), (long long)b->offset, b->scope, (long long)(buffer_elems(b) * b->elem->size));
    sb_indent(sb, ind);
    if (db[i].c.store) {
      sb_printf(sb, "npu_token_t %s[2];\n", b->db_token);
      continue;
    }
    sb_printf(sb, "npu_token_t %s;\n", b->db_token);
    /* the first iteration's region, into copy 0 */
    sb_indent(sb, ind);
    sb_puts(sb, "{\n");
    sb_indent(sb, ind + 1);
    emit_pointer_decl(sb, b, b->name, 0);
    sb_printf(sb, " = %s[0];\n", b->db_name);
    DmaAsync as = {b->db_token, 1, L->var, L->lo};
    emit_dma_copy(sb, &em->scratch, db[i].c.load, ind + 1, &as);
    sb_indent(sb, ind);
    sb_puts(sb, "}\n");
  }
  emit_loop_hint(em, L);
  sb_indent(sb, ind);
  emit_for_header(em, L);
  sb_puts(sb, " {\n");
  for (const Stmt *c = L->body->body; c; c = c->next) {
    const DbBuf *d = NULL;
    for (int i = 0; i < n; i++)
      if (db[i].decl == c || db[i].c.load == c || db[i].c.store == c) d = &db[i];
    if (!d) {
      Stmt one = *c;
      one.next = NULL;
      emit_stmts(em, &one, ind + 1, false);
      continue;
    }
    const Buffer *b = d->decl->buf;
    if (c == d->decl) {
      sb_indent(sb, ind + 1);
      emit_pointer_decl(sb, b, b->name, 0);
      sb_printf(sb, " = %s[%s %% 2];\n", b->db_name, v);
      if (d->c.store) {
        sb_indent(sb, ind + 1);
        sb_printf(sb, "if (%s >= 2) npu_dma_wait(%s[%s %% 2]); /* its copy out two iterations ago */\n", v,
                  b->db_token, v);
      }
    } else if (c == d->c.load) {
      sb_indent(sb, ind + 1);
      sb_printf(sb, "npu_dma_wait(%s);\n", b->db_token);
      sb_indent(sb, ind + 1);
      sb_printf(sb, "if (%s + 1 < %lld) { /* the next iteration's region, into the other copy */\n", v, (long long)trips);
      sb_indent(sb, ind + 2);
      emit_pointer_decl(sb, b, b->name, 0);
      sb_printf(sb, " = %s[(%s + 1) %% 2];\n", b->db_name, v);
      Expr *next = ir_add(&em->scratch, ir_var(&em->scratch, L->var, at), ir_int(&em->scratch, 1, &ty_int, at),
                          L->var->type);
      DmaAsync as = {b->db_token, 1, L->var, next};
      emit_dma_copy(sb, &em->scratch, d->c.load, ind + 2, &as);
      sb_indent(sb, ind + 1);
      sb_puts(sb, "}\n");
    } else {
      char tok[200];
      snprintf(tok, sizeof tok, "%s[%s %% 2]", b->db_token, v);
      DmaAsync as = {tok, 2, NULL, NULL};
      emit_dma_copy(sb, &em->scratch, d->c.store, ind + 1, &as);
    }
  }
  sb_indent(sb, ind);
  sb_puts(sb, "}\n");
  for (int i = 0; i < n; i++) {
    if (!db[i].c.store) continue;
    const Buffer *b = db[i].decl->buf;
    for (int64_t t = trips >= 2 ? trips - 2 : trips - 1; t < trips; t++) {
      sb_indent(sb, ind);
      sb_printf(sb, "npu_dma_wait(%s[%lld]);\n", b->db_token, (long long)(t % 2));
    }
  }
  sb_indent(sb, ind - 1);
  sb_puts(sb, "}\n");
  return true;
}

/* ---------------- loops bound to the VU cores ---------------- */

/* bind(loop, vu): iteration i runs on VU core i while the control unit
 * goes on to the next core. A copy out of a core's buffer (a cache_write's
 * store) is not waited for where it is issued, which would stall the
 * control unit until that core finished: its token is kept per core and
 * waited for just before the core's copy is written again (at the
 * buffer's declaration in the next pass) and after `home`, the outermost
 * loop inside which nothing else uses the copy's destination and no other
 * VM buffer could share the buffer's bytes. */

typedef struct {
  const Stmt *skip;
  const Buffer *b;
  const Stmt *loop;
  bool found;
} UseScan;

static bool other_use(Stmt *st, int depth, void *ctx) {
  (void)depth;
  UseScan *u = ctx;
  if (u->skip && (st == u->skip || sched_encloses(u->skip, st))) return true;
  if (u->b && st->kind != ST_DECL && ir_stmt_uses(st, NULL, u->b)) u->found = true;
  if (u->loop && st->kind == ST_DECL && st->buf && st->buf->scope && !strcmp(st->buf->scope, "vu_vm") &&
      !sched_encloses(u->loop, st))
    u->found = true;
  return !u->found;
}

/* A copy nest in bound loop L's body from one of the body's VM buffers to
 * a buffer outside it: its buffer, or NULL. */
static const Buffer *bound_store(const Stmt *c, const Stmt *L) {
  if (c->kind != ST_FOR || (c->loop_kind != LOOP_DMA && !onchip_copy(c))) return NULL;
  const Stmt *leaf = ir_nest_leaf(c);
  if (!leaf || leaf->op != OP_NONE || leaf->rhs->kind != EX_LOAD || leaf->lhs->kind != EX_LOAD) return NULL;
  const Buffer *src = leaf->rhs->buf, *dst = leaf->lhs->buf;
  if (src->core != L->var || dst->core == L->var) return NULL;
  for (const Stmt *d = L->body->body; d; d = d->next)
    if (d->kind == ST_DECL && d->buf == src) return src;
  return NULL;
}

static const struct Deferred *deferred(const Emit *em, const Stmt *store, const Buffer *decl) {
  for (int i = 0; i < em->ndefer; i++)
    if ((store && em->defer[i].store == store) || (decl && em->defer[i].b == decl)) return &em->defer[i];
  return NULL;
}

/* Plans the deferred stores of the bound loops under home (home included)
 * that no outer home took; returns how many it added. */
typedef struct {
  Emit *em;
  const Stmt *home, *copy; /* copy: the stack copy of home being walked */
  int added;
} Plan;

static bool plan_bound(Stmt *L, int depth, void *ctx) {
  (void)depth;
  Plan *p = ctx;
  Emit *em = p->em;
  if (L->kind != ST_FOR || L->loop_kind != LOOP_VU) return true;
  if (L == p->copy) L = (Stmt *)p->home; /* keep the real statement, not the walk's copy */
  for (const Stmt *c = L->body->body; c; c = c->next) {
    const Buffer *b = bound_store(c, L);
    if (!b || deferred(em, c, NULL) || em->ndefer == (int)(sizeof em->defer / sizeof em->defer[0])) continue;
    UseScan dst = {c, ir_nest_leaf(c)->lhs->buf, NULL, false}, vm = {NULL, NULL, L, false};
    Stmt *home = (Stmt *)p->home;
    ir_walk_stmts(home->body, other_use, &dst);
    ir_walk_stmts(home->body, other_use, &vm);
    StrBuf dry;
    sb_init(&dry);
    DmaAsync as = {"t", 2, NULL, NULL};
    bool one_dma = emit_dma_copy(&dry, &em->scratch, c, 0, &as);
    sb_free(&dry);
    if (dst.found || vm.found || !one_dma) continue;
    em->defer[em->ndefer++] = (struct Deferred){c, L, b};
    p->added++;
  }
  return true;
}

/* The token arrays of the stores planned at home, before it. */
static void defer_open(Emit *em, int from, int ind) {
  StrBuf *sb = em->sb;
  sb_indent(sb, ind);
  sb_puts(sb, "{\n");
  for (int i = from; i < em->ndefer; i++) {
    int64_t cores;
    ir_const_int(em->defer[i].loop->hi, &cores);
    sb_indent(sb, ind + 1);
    sb_printf(sb, "npu_token_t %s[%lld] = {0}; /* per core: the copy out of %s not yet waited for */\n",
              em->defer[i].b->db_token, (long long)cores, em->defer[i].b->name);
  }
}

static void defer_close(Emit *em, int from, int ind) {
  StrBuf *sb = em->sb;
  for (int i = from; i < em->ndefer; i++) {
    int64_t cores;
    ir_const_int(em->defer[i].loop->hi, &cores);
    for (int64_t c = 0; c < cores; c++) {
      sb_indent(sb, ind + 1);
      sb_printf(sb, "if (%s[%lld]) npu_dma_wait(%s[%lld]);\n", em->defer[i].b->db_token, (long long)c,
                em->defer[i].b->db_token, (long long)c);
    }
  }
  sb_indent(sb, ind);
  sb_puts(sb, "}\n");
}

/* A copy nest into one of bound loop L's per-core buffers from outside
 * them that is one DMA: its buffer, or NULL. */
static const Buffer *bound_load(Emit *em, const Stmt *c, const Stmt *L) {
  if (c->kind != ST_FOR || (c->loop_kind != LOOP_DMA && !onchip_copy(c))) return NULL;
  const Stmt *leaf = ir_nest_leaf(c);
  if (!leaf || leaf->op != OP_NONE || leaf->rhs->kind != EX_LOAD || leaf->lhs->kind != EX_LOAD) return NULL;
  if (leaf->lhs->buf->core != L->var || leaf->rhs->buf->core == L->var) return NULL;
  StrBuf dry;
  sb_init(&dry);
  DmaAsync as = {"t", 0, NULL, NULL};
  bool one = emit_dma_copy(&dry, &em->scratch, c, 0, &as);
  sb_free(&dry);
  return one ? leaf->lhs->buf : NULL;
}

/* The body as phases, each a loop over the cores: every core's loads
 * (issued, not waited for), then every core's compute (after waiting for
 * its loads and for its last copy out of a buffer it writes again), then
 * every core's copies out. The control unit so keeps all cores busy rather
 * than waiting on one core's loads before issuing to the next. The
 * iterations are independent (bind proved it), so running the body
 * statement group by statement group over the cores changes nothing but
 * the order of issue. False (nothing written) for a body of another shape. */
static void bound_header(Emit *em, const Stmt *L, int ind, const char *what) {
  sb_indent(em->sb, ind);
  sb_printf(em->sb, "for (%s %s = 0; %s < ", L->var->type->name, L->var->name, L->var->name);
  ir_print_expr(em->sb, L->hi);
  sb_printf(em->sb, "; %s++) { /* %s */\n", L->var->name, what);
}

static int bound_phase(Emit *em, const Stmt *c, const Stmt *L) {
  return bound_load(em, c, L) ? 0 : deferred(em, c, NULL) ? 2 : 1;
}

static bool uses_buf(Stmt *st, int depth, void *ctx) {
  (void)depth;
  UseScan *u = ctx;
  if (st->kind != ST_DECL && ir_stmt_uses(st, NULL, u->b)) u->found = true;
  return !u->found;
}

/* Is b used by a statement of phase p? */
static bool phase_uses(Emit *em, const Stmt *L, int p, const Buffer *b) {
  for (const Stmt *c = L->body->body; c; c = c->next) {
    if (c->kind == ST_DECL || bound_phase(em, c, L) != p) continue;
    UseScan u = {NULL, b, NULL, false};
    Stmt one = *c;
    one.next = NULL;
    ir_walk_stmts(&one, uses_buf, &u);
    if (u.found) return true;
  }
  return false;
}

/* The buffers phase p uses (and the waits it needs before them). */
static void bound_decls(Emit *em, const Stmt *L, int ind, int p) {
  for (const Stmt *c = L->body->body; c; c = c->next)
    if (c->kind == ST_DECL && phase_uses(em, L, p, c->buf)) {
      sb_indent(em->sb, ind);
      emit_onchip_decl(em->sb, c->buf);
      sb_putc(em->sb, '\n');
    }
}

static bool emit_bound_phases(Emit *em, const Stmt *L, int ind) {
  int phase = 0, nload = 0; /* 0 loads, 1 compute, 2 stores */
  for (const Stmt *c = L->body->body; c; c = c->next) {
    if (c->kind == ST_DECL) {
      if (!c->buf || c->buf->core != L->var) return false;
      continue;
    }
    int p = bound_phase(em, c, L);
    if (p < phase) return false;
    phase = p;
    nload += p == 0;
  }
  if (!nload) return false;
  StrBuf *sb = em->sb;
  const char *v = L->var->name;
  int64_t cores;
  ir_const_int(L->hi, &cores);
  sb_indent(sb, ind);
  sb_printf(sb, "/* bound to the VU cores: iteration %s runs on core %s, phase by phase */\n", v, v);
  sb_indent(sb, ind);
  sb_puts(sb, "{\n");
  for (const Stmt *c = L->body->body; c; c = c->next) {
    const Buffer *b = bound_load(em, c, L);
    if (!b) continue;
    sb_indent(sb, ind + 1);
    sb_printf(sb, "npu_token_t %s[%lld]; /* per core: the load of %s */\n", b->db_token, (long long)cores, b->name);
  }
  for (int p = 0; p < 3; p++) {
    bound_header(em, L, ind + 1, p == 0 ? "loads" : p == 1 ? "compute" : "copies out");
    bound_decls(em, L, ind + 2, p);
    for (const Stmt *c = L->body->body; c; c = c->next) {
      const struct Deferred *d = c->kind == ST_DECL ? deferred(em, NULL, c->buf) : NULL;
      /* a buffer's last copy out is waited for before the first phase that writes it */
      bool loaded = d && phase_uses(em, L, 0, d->b);
      if (d && (p == 0) == loaded && p < 2) {
        sb_indent(sb, ind + 2);
        sb_printf(sb, "if (%s[%s]) npu_dma_wait(%s[%s]); /* this core's copy out of %s in the last pass */\n",
                  d->b->db_token, v, d->b->db_token, v, d->b->name);
      }
      const Buffer *b = p == 1 ? bound_load(em, c, L) : NULL;
      if (b) {
        sb_indent(sb, ind + 2);
        sb_printf(sb, "npu_dma_wait(%s[%s]);\n", b->db_token, v);
      }
    }
    for (const Stmt *c = L->body->body; c; c = c->next) {
      if (c->kind == ST_DECL || bound_phase(em, c, L) != p) continue;
      const Buffer *b = bound_load(em, c, L);
      const struct Deferred *d = deferred(em, c, NULL);
      char tok[200];
      snprintf(tok, sizeof tok, "%s[%s]", b ? b->db_token : d ? d->b->db_token : "", v);
      DmaAsync as = {tok, b ? 0 : 2, NULL, NULL};
      if (b || d) {
        sb_indent(sb, ind + 2);
        sb_printf(sb, "/* %s: %s <- %s */\n", ir_nest_leaf(c)->name, ir_nest_leaf(c)->lhs->buf->name,
                  ir_nest_leaf(c)->rhs->buf->name);
        emit_dma_copy(sb, &em->scratch, c, ind + 2, &as);
        continue;
      }
      Stmt one = *c;
      one.next = NULL;
      emit_stmts(em, &one, ind + 2, false);
    }
    sb_indent(sb, ind + 1);
    sb_puts(sb, "}\n");
  }
  sb_indent(sb, ind);
  sb_puts(sb, "}\n");
  return true;
}

static void emit_bound(Emit *em, const Stmt *L, int ind) {
  StrBuf *sb = em->sb;
  const char *v = L->var->name;
  if (emit_bound_phases(em, L, ind)) return;
  sb_indent(sb, ind);
  sb_printf(sb, "/* bound to the VU cores: iteration %s runs on core %s */\n", v, v);
  sb_indent(sb, ind);
  emit_for_header(em, L);
  sb_puts(sb, " {\n");
  for (const Stmt *c = L->body->body; c; c = c->next) {
    const struct Deferred *d = deferred(em, c, NULL);
    if (d) {
      char tok[200];
      snprintf(tok, sizeof tok, "%s[%s]", d->b->db_token, v);
      DmaAsync as = {tok, 2, NULL, NULL};
      sb_indent(sb, ind + 1);
      sb_printf(sb, "/* %s: %s <- %s, waited for when core %s writes %s again */\n", ir_nest_leaf(c)->name,
                ir_nest_leaf(c)->lhs->buf->name, d->b->name, v, d->b->name);
      emit_dma_copy(sb, &em->scratch, c, ind + 1, &as);
      continue;
    }
    Stmt one = *c;
    one.next = NULL;
    emit_stmts(em, &one, ind + 1, false);
    d = c->kind == ST_DECL ? deferred(em, NULL, c->buf) : NULL;
    if (d) {
      sb_indent(sb, ind + 1);
      sb_printf(sb, "if (%s[%s]) npu_dma_wait(%s[%s]); /* this core's copy out of %s in the last pass */\n",
                d->b->db_token, v, d->b->db_token, v, d->b->name);
    }
  }
  sb_indent(sb, ind);
  sb_puts(sb, "}\n");
}

/* vectorize/parallel: OpenMP hints that a compiler without OpenMP never sees
 * (so -Wunknown-pragmas stays quiet and the meaning cannot change). */
static void emit_loop_hint(Emit *em, const Stmt *s) {
  const char *p = s->loop_kind == LOOP_VECTORIZE ? "omp simd" : s->loop_kind == LOOP_PARALLEL ? "omp parallel for" : NULL;
  if (p) sb_printf(em->sb, "#ifdef _OPENMP\n#pragma %s\n#endif\n", p);
}

static void emit_stmts(Emit *em, const Stmt *s, int ind, bool top) {
  StrBuf *sb = em->sb;
  for (; s; s = s->next) {
    emit_annots(em, s, ind);
    switch (s->kind) {
    case ST_BLOCK:
      sb_indent(sb, ind);
      sb_puts(sb, "{\n");
      emit_stmts(em, s->body, ind + 1, false);
      sb_indent(sb, ind);
      sb_puts(sb, "}\n");
      break;
    case ST_FOR: {
      if (top) nest_comment(em, (Stmt *)s, ind);
      if ((s->loop_kind == LOOP_DMA || onchip_copy(s)) && emit_dma_copy(sb, &em->scratch, s, ind, NULL)) break;
      if (s->intrin && emit_intrinsic(em, s, ind)) break;
      /* a home for bound loops' deferred copies out: the kernel's loop nest, else the bound loop */
      Stmt one = *s;
      one.next = NULL;
      Plan plan = {em, s, &one, 0};
      if (top || s->loop_kind == LOOP_VU) ir_walk_stmts(&one, plan_bound, &plan);
      int from = em->ndefer - plan.added;
      if (plan.added) {
        defer_open(em, from, ind);
        ind++;
      }
      if (s->loop_kind == LOOP_VU) emit_bound(em, s, ind);
      else if (!emit_pipelined(em, s, ind)) {
        emit_loop_hint(em, s);
        sb_indent(sb, ind);
        emit_for_header(em, s);
        sb_puts(sb, " {\n");
        emit_block_body(em, s->body, ind + 1);
        sb_indent(sb, ind);
        sb_puts(sb, "}\n");
      }
      if (plan.added) {
        ind--;
        defer_close(em, from, ind);
      }
      break;
    }
    case ST_IF:
      sb_indent(sb, ind);
      emit_if(em, s, ind);
      sb_putc(sb, '\n');
      break;
    case ST_ASSIGN:
      sb_indent(sb, ind);
      ir_print_expr(sb, s->lhs);
      sb_printf(sb, " %s= ", op_spelling(s->op));
      ir_print_expr(sb, s->rhs);
      sb_putc(sb, ';');
      if (s->labeled) sb_printf(sb, " /* %s */", s->name);
      sb_putc(sb, '\n');
      break;
    case ST_DECL:
      sb_indent(sb, ind);
      if (s->buf && buffer_onchip(s->buf)) {
        emit_onchip_decl(sb, s->buf);
        sb_putc(sb, '\n');
      } else if (s->buf) {
        emit_array_decl(sb, s->buf);
        if (s->ninit) {
          sb_puts(sb, " = {");
          for (int i = 0; i < s->ninit; i++) {
            if (i) sb_puts(sb, ", ");
            ir_print_expr(sb, s->init_list[i]);
          }
          sb_putc(sb, '}');
        }
        sb_puts(sb, ";\n");
        if (!em->buf_read[s->buf->id]) {
          sb_indent(sb, ind);
          sb_printf(sb, "(void)%s;\n", s->buf->name);
        }
      } else {
        sb_printf(sb, "%s%s %s", s->var->is_const ? "const " : "", s->var->type->name, s->var->name);
        if (s->init) {
          sb_puts(sb, " = ");
          ir_print_expr(sb, s->init);
        }
        sb_puts(sb, ";\n");
        if (!em->var_read[s->var->id]) {
          sb_indent(sb, ind);
          sb_printf(sb, "(void)%s;\n", s->var->name);
        }
      }
      break;
    }
  }
}

/* ---------------- includes ---------------- */

typedef struct {
  bool stdint, math, stdlib, npu;
} Needs;

static void need_type(Needs *n, const Type *t) {
  if (strchr(t->name, '_')) n->stdint = true; /* int8_t, uint32_t, ... */
}

static void needs_expr(Needs *n, const Expr *e) {
  if (!e) return;
  need_type(n, e->type);
  if (e->kind == EX_CALL) {
    if (!strcmp(e->text, "abs")) n->stdlib = true;
    else n->math = true;
    for (int i = 0; i < e->nargs; i++) needs_expr(n, e->args[i]);
  }
  if (e->kind == EX_LOAD)
    for (int i = 0; i < e->buf->ndim; i++) needs_expr(n, e->idx[i]);
  needs_expr(n, e->a);
  needs_expr(n, e->b);
  needs_expr(n, e->c);
}

static bool needs_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Needs *n = ctx;
  needs_expr(n, s->lo);
  needs_expr(n, s->hi);
  needs_expr(n, s->cond);
  needs_expr(n, s->lhs);
  needs_expr(n, s->rhs);
  needs_expr(n, s->init);
  for (int i = 0; i < s->ninit; i++) needs_expr(n, s->init_list[i]);
  if (s->var) need_type(n, s->var->type);
  if (s->buf) need_type(n, s->buf->elem);
  if ((s->buf && buffer_onchip(s->buf)) || s->intrin) n->npu = true;
  return true;
}

static Needs unit_needs(const EmitUnit *u) {
  Needs n = {false, false, false, false};
  for (const Param *p = u->k->params; p; p = p->next) need_type(&n, p->buf ? p->buf->elem : p->var->type);
  ir_walk_stmts(u->k->body, needs_stmt, &n);
  return n;
}

static void header_comment(StrBuf *sb, const EmitUnit *u, const char *what) {
  sb_printf(sb, "/* %s generated by npugen %s from %s. Do not edit.\n", what, NPUGEN_VERSION,
            u->m->file);
  sb_printf(sb, " * Kernel: %s (%s:%d)\n", u->k->name, u->m->file, u->k->loc.line);
  if (u->schedule && *u->schedule) {
    sb_printf(sb, " * Schedule %s:\n", u->name);
    const char *p = u->schedule;
    while (*p) {
      const char *e = strchr(p, '\n');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      sb_puts(sb, " *   ");
      sb_putn(sb, p, n);
      sb_putc(sb, '\n');
      p += n + (e ? 1 : 0);
    }
  } else {
    sb_puts(sb, " * Schedule: none (the kernel as written)\n");
  }
  sb_puts(sb, " */\n");
}

char *emit_c_source(const EmitUnit *u) {
  StrBuf sb;
  sb_init(&sb);
  header_comment(&sb, u, "C99");
  Needs n = unit_needs(u);
  if (n.math) sb_puts(&sb, "#include <math.h>\n");
  if (n.stdint) sb_puts(&sb, "#include <stdint.h>\n");
  if (n.stdlib) sb_puts(&sb, "#include <stdlib.h>\n");
  if (n.npu) sb_puts(&sb, "#include \"npu_intrinsics.h\"\n");
  if (n.math || n.stdint || n.stdlib || n.npu) sb_putc(&sb, '\n');
  if (u->m->defines) {
    for (const Define *d = u->m->defines; d; d = d->next)
      sb_printf(&sb, "#define %s %s\n", d->name, d->body);
    sb_putc(&sb, '\n');
  }

  int nv = u->k->nvars + 1, nb = u->k->nbufs + 1;
  Emit em = {.sb = &sb, .u = u, .var_read = calloc((size_t)nv, 1), .buf_used = calloc((size_t)nb, 1),
             .buf_read = calloc((size_t)nb, 1)};
  arena_init(&em.scratch, 0);
  ir_walk_stmts(u->k->body, scan_stmt, &em);
  emit_prototype(&sb, u);
  sb_puts(&sb, " {\n");
  for (const Param *p = u->k->params; p; p = p->next) {
    bool used = p->buf ? em.buf_used[p->buf->id] : em.var_read[p->var->id];
    if (!used) sb_printf(&sb, "  (void)%s;\n", p->buf ? p->buf->name : p->var->name);
  }
  emit_stmts(&em, u->k->body->body, 1, true);
  sb_puts(&sb, "}\n");
  emit_layout_helpers(&sb, u);
  arena_free(&em.scratch);
  free(em.var_read);
  free(em.buf_used);
  free(em.buf_read);
  return sb_take(&sb);
}

char *emit_c_header(const EmitUnit *u) {
  StrBuf sb;
  sb_init(&sb);
  header_comment(&sb, u, "Header");
  StrBuf guard;
  sb_init(&guard);
  sb_puts(&guard, "NPUGEN_");
  for (const char *p = u->name; *p; p++)
    sb_putc(&guard, (*p >= 'a' && *p <= 'z') ? (char)(*p - 32) : *p);
  sb_puts(&guard, "_H");
  sb_printf(&sb, "#ifndef %s\n#define %s\n\n", guard.data, guard.data);
  sb_free(&guard);
  Needs n = {false, false, false, false};
  for (const Param *p = u->k->params; p; p = p->next) need_type(&n, p->buf ? p->buf->elem : p->var->type);
  if (n.stdint) sb_puts(&sb, "#include <stdint.h>\n\n");
  emit_prototype(&sb, u);
  sb_puts(&sb, ";\n\n");
  emit_layout_prototypes(&sb, u);
  sb_printf(&sb, "#endif\n");
  return sb_take(&sb);
}

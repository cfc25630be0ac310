/* Emits readable C99 for one variant. Rules (DESIGN.md section 6): source
 * names kept, a header comment with the schedule, a comment on each loop
 * nest naming its statements and lines, deterministic bytes, and code that
 * gcc -std=c99 -Wall -Wextra -pedantic -Werror, clang and tcc accept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "lower/lower.h"
#include "schedule/sched.h"
#include "sim/npusim.h"
#include "schedule/tensorize.h"

typedef struct {
  StrBuf *sb;
  const EmitUnit *u;
  Arena scratch;    /* expressions built while emitting (DMA addresses) */
  bool *var_read;   /* by Var.id: read somewhere */
  bool *buf_used;   /* by Buffer.id */
  bool *buf_read;
  bool cu_hooks;    /* host code's accesses through npu_cu_access (an NPU variant, for the check) */
  /* the top-level statement being emitted was not lowered (it holds a
   * bound loop): the planning below decides its DMA */
  bool legacy;
  /* bound loops' copies out whose waits are deferred (emit_bound) */
  struct Deferred {
    const Stmt *store, *loop;
    const Buffer *b;
    int64_t tokens; /* in flight at most, over all cores (one each) */
  } defer[16];
  int ndefer;
  int dma_channels; /* the unit's target's */
  const char *target_name;
  /* while the body of loop `pass` is emitted: bound loop `pass_bound` in
   * it alternates the two copies of its double-buffered read caches by
   * pass (emit_bound_pass) */
  const Stmt *pass, *pass_bound;
  /* and the read caches of pass_bound loaded once, before `pass` */
  const Buffer *resident[16];
  int nresident;
  /* DMAs in flight: the target's limit, and those held by the pipelines,
   * pass loops and phases around the statement being emitted (the bound
   * loops' deferred copies out are counted from defer[]) */
  int64_t max_tokens, held;
  struct Grant {
    const void *key;
    bool ok;
  } *grant; /* each structure's overlap, decided once (grant), in scratch */
  int ngrant, grant_cap;
} Emit;

/* DMA channel `base` as C text, within the target's channels. With a core
 * counter it alternates between base and base + 1 by core: a channel runs
 * its transfers one after another, each paying the DDR latency, so two in
 * flight hide each other's. */
static const char *dma_channel(const Emit *em, char *buf, size_t n, int base, const char *core) {
  if (core && em->dma_channels >= base + 2) snprintf(buf, n, "%d + %s %% 2", base, core);
  else snprintf(buf, n, "%d", base % em->dma_channels);
  return buf;
}

/* ---------------- DMAs in flight ---------------- */

/* A structure that overlaps copies with compute (a double-buffered loop, a
 * bound loop run phase by phase, a pass loop loading ahead, a deferred
 * copy out) keeps DMAs issued and not yet waited for, and the target has
 * at most max_tokens of them (npu_dma_* fails beyond). Each structure is
 * granted its overlap when the DMAs held by the structures it is emitted
 * in, its own and, when it holds a synchronous copy, one more fit; else it
 * is emitted with synchronous copies, after a comment that says why.
 * Structures are asked as the emitter meets them: the copies out deferred
 * over a whole loop nest first, then each loop's from the outside in. A
 * structure planned ahead (a pass loop plans its bound loop) is keyed by a
 * statement, so it is emitted as it was planned. */
typedef struct {
  int64_t tokens;   /* DMAs the structure keeps in flight at most */
  bool copy_inside; /* a synchronous copy runs while it holds them */
} Need;

static int64_t in_flight(const Emit *em) {
  int64_t n = em->held;
  for (int i = 0; i < em->ndefer; i++) n += em->defer[i].tokens;
  return n;
}

static int64_t peak(const Emit *em, Need need) { return in_flight(em) + need.tokens + need.copy_inside; }

/* Grants key its need, or not; decided once (*decided: before this call). */
static bool grant(Emit *em, const void *key, Need need, bool *decided) {
  if (decided) *decided = true;
  for (int i = 0; i < em->ngrant; i++)
    if (em->grant[i].key == key) return em->grant[i].ok;
  if (decided) *decided = false;
  if (em->ngrant == em->grant_cap) {
    int cap = em->grant_cap ? 2 * em->grant_cap : 16;
    struct Grant *g = arena_alloc(&em->scratch, sizeof *g * (size_t)cap);
    if (em->ngrant) memcpy(g, em->grant, sizeof *g * (size_t)em->ngrant);
    em->grant = g;
    em->grant_cap = cap;
  }
  bool ok = peak(em, need) <= em->max_tokens;
  em->grant[em->ngrant++] = (struct Grant){key, ok};
  return ok;
}

/* "would keep up to 24 DMAs in flight (with those around it and a copy
 * inside), and target 'small' allows 16" */
static const char *no_room(const Emit *em, Need need, char *buf, size_t n) {
  snprintf(buf, n, "would keep up to %lld DMAs in flight (with those around it%s), and target '%s' allows %lld",
           (long long)peak(em, need), need.copy_inside ? " and a copy inside" : "", em->target_name,
           (long long)em->max_tokens);
  return buf;
}

/* A copy nest (a DMA, or host loops of DMAs) in list, other than skip[]. */
static bool onchip_copy(const Stmt *loop);
typedef struct {
  const Stmt *const *skip;
  int nskip;
  bool found;
} CopyScan;

static bool scan_copy(Stmt *st, int depth, void *ctx) {
  (void)depth;
  CopyScan *c = ctx;
  for (int i = 0; i < c->nskip; i++)
    if (st == c->skip[i] || sched_encloses(c->skip[i], st)) return true;
  if (st->kind == ST_FOR && (st->loop_kind == LOOP_DMA || onchip_copy(st))) c->found = true;
  return !c->found;
}

static bool has_copy(const Stmt *list, const Stmt *const *skip, int nskip) {
  CopyScan c = {skip, nskip, false};
  for (const Stmt *s = list; s && !c.found; s = s->next) {
    bool skipped = false;
    for (int i = 0; i < nskip; i++) skipped |= s == skip[i];
    if (skipped) continue;
    Stmt one = *s; /* walked alone: its siblings are the loop's */
    one.next = NULL;
    ir_walk_stmts(&one, scan_copy, &c);
  }
  return c.found;
}

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

/* A plain serial copy nest between a DDR array (a parameter) and an on-chip
 * buffer (or two on-chip buffers), such as a reduction's init from a bias vector after
 * decompose_reduction: the control unit does not store into unit buffers
 * element by element, so it becomes a DMA like the caches' copies. */
static bool dma_addressable(const Buffer *b) { return buffer_onchip(b) || b->role != ROLE_LOCAL; }

static bool onchip_copy(const Stmt *loop) {
  const Stmt *leaf = ir_nest_leaf(loop);
  if (!leaf || leaf->op != OP_NONE || (!buffer_onchip(leaf->lhs->buf) && !buffer_onchip(leaf->rhs->buf))) return false;
  /* a local array lives in the control unit's memory, not in DDR: no DMA reaches it */
  if (!dma_addressable(leaf->lhs->buf) || !dma_addressable(leaf->rhs->buf)) return false;
  for (const Stmt *l = loop; l && l->kind == ST_FOR; l = ir_nest_inner(l))
    if (l->loop_kind != LOOP_SERIAL || l->intrin || l->annots) return false;
  return true;
}

static void emit_stmts(Emit *em, const Stmt *s, int ind, bool top);

static void emit_block_body(Emit *em, const Stmt *block, int ind) {
  emit_stmts(em, block->kind == ST_BLOCK ? block->body : block, ind, false);
}

static void emit_for_header(Emit *em, const Stmt *s);
static void emit_loop_hint(Emit *em, const Stmt *s, int ind, bool omp);

/* Loop s runs in the unit's permuted order: it is marked (parallel,
 * vectorize, bind) and the unit is emitted for the check in such an
 * order. An intrinsic or a DMA is one instruction: it is never asked. */
static bool permuted(const Emit *em, const Stmt *s) {
  return em->u->order != EMIT_ORDER_SOURCE &&
         (s->loop_kind == LOOP_PARALLEL || s->loop_kind == LOOP_VECTORIZE || s->loop_kind == LOOP_VU);
}

/* Opens loop s (or, for a bound loop's phases, a loop over its cores):
 * the header as written, or the permuted form (emit_order_open). Returns
 * the indentation of the body, which close_loop ends. */
static int open_loop(Emit *em, const Stmt *s, int ind, bool permute) {
  if (!permute) {
    sb_indent(em->sb, ind);
    emit_for_header(em, s);
    sb_puts(em->sb, " {\n");
    return ind + 1;
  }
  EmitLoopRange r = {s->var, s->lo, s->hi, s->cmp, s->step};
  return emit_order_open(em->sb, em->u->order, &r, em->var_read[s->var->id], ind);
}

static void close_loop(Emit *em, int ind, bool permute) {
  if (permute) {
    emit_order_close(em->sb, ind);
    return;
  }
  sb_indent(em->sb, ind);
  sb_puts(em->sb, "}\n");
}

/* In the check's C, why marked loop s keeps the source order. */
static void source_order_note(Emit *em, const Stmt *s, const char *why, int ind) {
  if (!permuted(em, s)) return;
  sb_indent(em->sb, ind);
  sb_printf(em->sb, "/* loop %s in source order, not %s: %s */\n", s->var->name, emit_order_name(em->u->order), why);
}

/* A loop as written: its hint, header and body; in the unit's order when
 * it is marked and may be permuted (not a pass loop that loads ahead). */
static void emit_plain_loop(Emit *em, const Stmt *s, int ind, bool may_permute) {
  bool permute = may_permute && permuted(em, s);
  emit_loop_hint(em, s, ind, !permute); /* an OpenMP pragma must precede a `for`, not the permuted form's block */
  int body = open_loop(em, s, ind, permute);
  emit_block_body(em, s->body, body);
  close_loop(em, ind, permute);
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

/* An expression the host evaluates: through the check's hooks when on. */
static void print_value(const Emit *em, const Expr *e) {
  if (em->cu_hooks) emit_cu_expr(em->sb, e);
  else if (em->u->cu_hooks) emit_check_expr(em->sb, e);
  else ir_print_expr(em->sb, e);
}

static void emit_if(Emit *em, const Stmt *s, int ind) {
  StrBuf *sb = em->sb;
  sb_puts(sb, "if (");
  if (s->note) ir_print_expr(sb, s->cond); /* a lowered guard: loop counters only */
  else print_value(em, s->cond);
  sb_puts(sb, ") {");
  if (s->note) sb_printf(sb, " /* %s */", s->note);
  sb_putc(sb, '\n');
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

/* A tensorized nest: its intrinsic call, under the test of its scalar
 * operands' domains when they are not constants (else the nest as
 * written), or (when a later step changed the nest) a comment saying why
 * the loops stay. */
static bool emit_intrinsic(Emit *em, const Stmt *s, int ind) {
  StrBuf call, guard;
  sb_init(&call);
  sb_init(&guard);
  char why[1024];
  bool ok = tensorize_call(&em->scratch, s, &call, &guard, why, sizeof why);
  sb_indent(em->sb, ind);
  if (ok && guard.len) {
    sb_printf(em->sb, "if (%s) {\n", guard.data);
    sb_indent(em->sb, ind + 1);
    sb_printf(em->sb, "%s\n", call.data);
    sb_indent(em->sb, ind);
    sb_printf(em->sb, "} else { /* outside the operands %s is defined for: the nest as written */\n", s->intrin);
    emit_plain_loop(em, s, ind + 1, true);
    sb_indent(em->sb, ind);
    sb_puts(em->sb, "}\n");
  } else if (ok) {
    sb_printf(em->sb, "%s\n", call.data);
  } else {
    sb_printf(em->sb, "/* tensorize(%s, %s) no longer matches: %s */\n", s->name, s->intrin, why);
  }
  sb_free(&call);
  sb_free(&guard);
  return ok;
}


/* ---------------- double-buffered loops ---------------- */

enum { MAX_DB = 8 };

/* A loop whose body declares double-buffered buffers: the copy of the next
 * iteration's region (a read cache) is issued before this iteration's
 * compute, the copy out (a write cache) is waited for two iterations later,
 * and every other statement is emitted as it is. False when a rule of
 * double buffering no longer holds after later steps
 * (ir_double_buffer_rules), a copy is not one DMA or no buffer's overlap
 * fits the target's DMAs in flight: then the loop runs with synchronous
 * copies, after a comment that says why. A buffer whose overlap does not
 * fit while others' do keeps synchronous copies alone (a comment says so). */
typedef struct {
  const Stmt *decl;
  DbCopies c;
} DbBuf;

/* Says why double_buffer(b) leaves L's copies synchronous; false. */
/* Copy nest c is one DMA that can run async (emit_dma_copy, written to
 * nowhere). */
static bool one_dma(Emit *em, const Stmt *c) {
  StrBuf dry;
  sb_init(&dry);
  DmaAsync as = {"t", "0", NULL, NULL};
  bool one = emit_dma_copy(&dry, &em->scratch, c, 0, &as);
  sb_free(&dry);
  return one;
}

static bool pipeline_note(Emit *em, const Buffer *b, const char *why, int ind) {
  sb_indent(em->sb, ind);
  sb_printf(em->sb, "/* double_buffer(%s) does nothing here: %s */\n", b->name, why);
  return false;
}

static bool emit_pipelined(Emit *em, const Stmt *L, int ind) {
  DbBuf db[MAX_DB];
  int n = 0;
  int64_t trips;
  char why[512];
  for (const Stmt *c = L->body->body; c; c = c->next) {
    if (c->kind != ST_DECL || !c->buf || c->buf->copies < 2) continue;
    if (n == MAX_DB) return pipeline_note(em, c->buf, "too many double-buffered buffers in one loop", ind);
    if (!ir_double_buffer_rules(em->u->k, L, c, NULL, &db[n].c, why, sizeof why))
      return pipeline_note(em, c->buf, why, ind);
    db[n++].decl = c;
  }
  if (!n || !ir_const_int(L->hi, &trips)) return false;
  /* every copy must be one DMA: try them first */
  for (int i = 0; i < n; i++)
    if (!one_dma(em, db[i].c.load ? db[i].c.load : db[i].c.store))
      return pipeline_note(em, db[i].decl->buf, "its copy is not one DMA (it needs host loops around the DMA "
                           "call, or it is not a plain box copy), so the copies stay synchronous", ind);
  /* in flight: a load ahead per read cache, two copies out per write
   * cache. When they do not all fit, loads are granted first (they cost
   * one) and a buffer left keeps synchronous copies, which then run inside
   * the others' overlap. */
  const Stmt *own[MAX_DB];
  int order[MAX_DB], nordered = 0;
  int64_t all = 0;
  for (int i = 0; i < n; i++) {
    own[i] = db[i].c.load ? db[i].c.load : db[i].c.store;
    all += db[i].c.store ? 2 : 1;
    if (!db[i].c.store) order[nordered++] = i;
  }
  for (int i = 0; i < n; i++)
    if (db[i].c.store) order[nordered++] = i;
  bool others = has_copy(L->body->body, own, n), all_fit = peak(em, (Need){all, others}) <= em->max_tokens;
  bool denied = false, ok[MAX_DB];
  int64_t need = 0;
  for (int k = 0; k < n; k++) {
    int i = order[k];
    Need one = {db[i].c.store ? 2 : 1, others || (!all_fit && (denied || k < n - 1))};
    if ((ok[i] = grant(em, db[i].decl, one, NULL))) {
      em->held += one.tokens;
      need += one.tokens;
      continue;
    }
    denied = true;
    char note[400] = "overlapping its copies ";
    no_room(em, one, note + strlen(note), sizeof note - strlen(note));
    pipeline_note(em, db[i].decl->buf, note, ind);
  }
  int kept = 0;
  for (int i = 0; i < n; i++)
    if (ok[i]) db[kept++] = db[i];
  if (!(n = kept)) return false;

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
    char ch[32];
    DmaAsync as = {b->db_token, dma_channel(em, ch, sizeof ch, 1, NULL), L->var, L->lo};
    emit_dma_copy(sb, &em->scratch, db[i].c.load, ind + 1, &as);
    sb_indent(sb, ind);
    sb_puts(sb, "}\n");
  }
  source_order_note(em, L, "each iteration loads the next one's region", ind);
  emit_loop_hint(em, L, ind, true);
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
      char ch[32];
      DmaAsync as = {b->db_token, dma_channel(em, ch, sizeof ch, 1, NULL), L->var, next};
      emit_dma_copy(sb, &em->scratch, d->c.load, ind + 2, &as);
      sb_indent(sb, ind + 1);
      sb_puts(sb, "}\n");
    } else {
      char tok[200], ch[32];
      snprintf(tok, sizeof tok, "%s[%s %% 2]", b->db_token, v);
      DmaAsync as = {tok, dma_channel(em, ch, sizeof ch, 2, NULL), NULL, NULL};
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
  em->held -= need;
  return true;
}

/* ---------------- loops bound to the VU cores ---------------- */

/* bind(loop, vu): iteration i runs on VU core i while the control unit
 * goes on to the next core. A copy out of a core's buffer (a cache_write's
 * store) is not waited for where it is issued, which would stall the
 * control unit until that core finished: its token is kept per core and
 * waited for just before the core writes the buffer again (in the next
 * pass) and after `home`, the outermost loop inside which nothing else uses
 * the copy's destination and no other VM buffer could share the buffer's
 * bytes. */

typedef struct {
  const Stmt *skip, *inside;
  const Buffer *b;
  bool found;
} Scan;

/* A statement outside skip that uses b. */
static bool scan_use(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Scan *u = ctx;
  if (u->skip && (st == u->skip || sched_encloses(u->skip, st))) return true;
  if (st->kind != ST_DECL && ir_stmt_uses(st, NULL, u->b)) u->found = true;
  return !u->found;
}

/* A vu_vm buffer declared outside loop `inside`. */
static bool scan_vm_decl(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Scan *u = ctx;
  if (st->kind == ST_DECL && st->buf && st->buf->scope && !strcmp(st->buf->scope, "vu_vm") &&
      !sched_encloses(u->inside, st))
    u->found = true;
  return !u->found;
}

static bool stmt_uses(const Stmt *c, const Buffer *b) {
  Scan u = {NULL, NULL, b, false};
  Stmt one = *c;
  one.next = NULL;
  ir_walk_stmts(&one, scan_use, &u);
  return u.found;
}

/* A copy nest of bound loop L's body between one of L's per-core buffers
 * and a buffer outside them that is one DMA: the per-core buffer (*load:
 * it is the destination), or NULL. */
static const Buffer *bound_copy(Emit *em, const Stmt *c, const Stmt *L, bool *load) {
  if (c->kind != ST_FOR || (c->loop_kind != LOOP_DMA && !onchip_copy(c))) return NULL;
  const Stmt *leaf = ir_nest_leaf(c);
  if (!leaf || leaf->op != OP_NONE) return NULL;
  const Buffer *dst = leaf->lhs->buf, *src = leaf->rhs->buf;
  if ((dst->core == L->var) == (src->core == L->var)) return NULL;
  *load = dst->core == L->var;
  return one_dma(em, c) ? (*load ? dst : src) : NULL;
}

static const struct Deferred *deferred(const Emit *em, const Stmt *store, const Buffer *decl) {
  for (int i = 0; i < em->ndefer; i++)
    if ((store && em->defer[i].store == store) || (decl && em->defer[i].b == decl)) return &em->defer[i];
  return NULL;
}

/* A per-core buffer of bound loop L whose two copies alternate by pass. */
static bool by_pass(const Emit *em, const Stmt *L, const Buffer *b) {
  return em->pass_bound == L && b->copies == 2 && b->core == L->var;
}

/* A read cache of bound loop L loaded once, before the pass loop. */
static bool resident(const Emit *em, const Stmt *L, const Buffer *b) {
  for (int i = 0; em->pass_bound == L && i < em->nresident; i++)
    if (em->resident[i] == b) return true;
  return false;
}

/* The copy of per-core buffer b of bound loop L, as C text in buf: NULL
 * when b has one; this pass's (with next: the next pass's) when its copies
 * alternate by pass; else copy 0. Its token is b_tok[copy][core] and its
 * pointer points into that copy (emit_onchip_decl). */
static const char *copy_of(const Emit *em, const Stmt *L, const Buffer *b, bool next, char *buf, size_t n) {
  if (b->copies < 2) return NULL;
  if (!by_pass(em, L, b)) snprintf(buf, n, "0");
  else if (next) snprintf(buf, n, "(%s + 1) %% 2", em->pass->var->name);
  else snprintf(buf, n, "%s %% 2", em->pass->var->name);
  return buf;
}

/* b's token for one core: b_tok[core], or b_tok[copy][core]. */
static const char *token_of(char *out, size_t n, const Buffer *b, const char *copy, const char *core) {
  if (copy) snprintf(out, n, "%s[%s][%s]", b->db_token, copy, core);
  else snprintf(out, n, "%s[%s]", b->db_token, core);
  return out;
}

/* b's token array (per copy when b has two, per core), zeroed with zero. */
static void token_decl(StrBuf *sb, const Buffer *b, int64_t cores, bool zero) {
  if (b->copies == 2) sb_printf(sb, "npu_token_t %s[2][%lld]%s;", b->db_token, (long long)cores, zero ? " = {{0}}" : "");
  else sb_printf(sb, "npu_token_t %s[%lld]%s;", b->db_token, (long long)cores, zero ? " = {0}" : "");
}

/* Plans the deferred stores of the bound loops under home (home included)
 * that no outer home took; counts them in added. */
typedef struct {
  Emit *em;
  const Stmt *home, *copy; /* copy: the stack copy of home being walked */
  int ind;                 /* of the comment on a copy out left synchronous */
  int added;
} Plan;

static bool plan_bound(Stmt *L, int depth, void *ctx) {
  (void)depth;
  Plan *p = ctx;
  Emit *em = p->em;
  if (L->kind != ST_FOR || L->loop_kind != LOOP_VU) return true;
  if (L == p->copy) L = (Stmt *)p->home; /* keep the real statement, not the walk's copy */
  int64_t cores;
  ir_const_int(L->hi, &cores);
  for (const Stmt *c = L->body->body; c; c = c->next) {
    bool load;
    const Buffer *b = bound_copy(em, c, L, &load);
    if (!b || load || deferred(em, c, NULL) || em->ndefer == (int)(sizeof em->defer / sizeof em->defer[0])) continue;
    Scan dst = {c, NULL, ir_nest_leaf(c)->lhs->buf, false}, vm = {NULL, L, NULL, false};
    ir_walk_stmts(p->home->body, scan_use, &dst);
    ir_walk_stmts(p->home->body, scan_vm_decl, &vm);
    if (dst.found || vm.found) continue;
    /* one per core: a pass loop that alternates a double-buffered one's
     * copies holds the second (emit_bound_pass); the home may hold
     * synchronous copies anywhere */
    Need need = {cores, true};
    bool decided;
    if (!grant(em, c, need, &decided)) {
      char why[300];
      if (decided) continue; /* said where it was first planned */
      sb_indent(em->sb, p->ind);
      sb_printf(em->sb, "/* the copies out of %s are waited for where they are issued: deferring them %s */\n", b->name,
                no_room(em, need, why, sizeof why));
      continue;
    }
    em->defer[em->ndefer++] = (struct Deferred){c, L, b, cores};
    p->added++;
  }
  return true;
}

/* The token arrays of the stores planned at home, before it, and their
 * last waits after it. */
static void defer_open(Emit *em, int from, int ind) {
  StrBuf *sb = em->sb;
  sb_indent(sb, ind);
  sb_puts(sb, "{\n");
  for (int i = from; i < em->ndefer; i++) {
    const Buffer *b = em->defer[i].b;
    int64_t cores;
    ir_const_int(em->defer[i].loop->hi, &cores);
    sb_indent(sb, ind + 1);
    token_decl(sb, b, cores, true);
    sb_printf(sb, " /* per %score: the copy out of %s not yet waited for */\n", b->copies == 2 ? "copy, per " : "",
              b->name);
  }
}

static void defer_close(Emit *em, int from, int ind) {
  StrBuf *sb = em->sb;
  for (int i = from; i < em->ndefer; i++) {
    const Buffer *b = em->defer[i].b;
    int64_t cores;
    ir_const_int(em->defer[i].loop->hi, &cores);
    for (int k = 0; k < (b->copies == 2 ? 2 : 1); k++)
      for (int64_t c = 0; c < cores; c++) {
        char copy[16], core[24], tok[300];
        snprintf(copy, sizeof copy, "%d", k);
        snprintf(core, sizeof core, "%lld", (long long)c);
        token_of(tok, sizeof tok, b, b->copies == 2 ? copy : NULL, core);
        sb_indent(sb, ind + 1);
        sb_printf(sb, "if (%s) npu_dma_wait(%s);\n", tok, tok);
      }
  }
  sb_indent(sb, ind);
  sb_puts(sb, "}\n");
}

/* How each statement of a bound loop's body is issued, found once. */
enum { BOUND_MAX = 64 };
typedef enum { B_LOAD, B_COMPUTE, B_STORE, B_DECL } BoundKind;
typedef struct {
  const Stmt *st[BOUND_MAX];
  BoundKind kind[BOUND_MAX];
  const Buffer *buf[BOUND_MAX]; /* B_LOAD: the buffer loaded */
  int n;
  const Stmt *loop; /* the bound loop */
} Body;

static bool classify(Emit *em, const Stmt *L, Body *b) {
  b->n = 0;
  b->loop = L;
  for (const Stmt *c = L->body->body; c; c = c->next) {
    if (b->n == BOUND_MAX) return false;
    bool load = false;
    const Buffer *cb = c->kind == ST_DECL ? NULL : bound_copy(em, c, L, &load);
    b->st[b->n] = c;
    b->buf[b->n] = load ? cb : NULL;
    b->kind[b->n++] = c->kind == ST_DECL ? B_DECL : load && cb ? B_LOAD : deferred(em, c, NULL) ? B_STORE : B_COMPUTE;
  }
  return true;
}

/* A statement of phase p that uses buf (a resident load is not in any). */
static bool phase_uses(const Emit *em, const Body *b, BoundKind p, const Buffer *buf) {
  for (int i = 0; i < b->n; i++)
    if (b->kind[i] == p && !(p == B_LOAD && resident(em, b->loop, b->buf[i])) && stmt_uses(b->st[i], buf)) return true;
  return false;
}

static void wait_last_store(Emit *em, const struct Deferred *d, const char *v, int ind) {
  char copy[100], tok[300];
  token_of(tok, sizeof tok, d->b, copy_of(em, d->loop, d->b, false, copy, sizeof copy), v);
  sb_indent(em->sb, ind);
  sb_printf(em->sb, "if (%s) npu_dma_wait(%s); /* this core's copy out of %s %s */\n", tok, tok, d->b->name,
            by_pass(em, d->loop, d->b) ? "two passes ago, from this copy" : "in the last pass");
}

/* The waits a core's compute needs before statement i (i == b->n: after
 * the last, for what no statement used): for the loads of the buffers it
 * uses, and for the last pass's copy out of a buffer it uses, each as late
 * as it can be, so the core's work on the other buffers is issued first. */
static void compute_waits(Emit *em, const Body *b, int i, bool *waited, const char *v, int ind) {
  for (int j = 0; j < b->n; j++) {
    if (waited[j] || (b->kind[j] != B_LOAD && b->kind[j] != B_DECL)) continue;
    const Buffer *buf = b->kind[j] == B_LOAD ? b->buf[j] : b->st[j]->buf;
    if (i < b->n && (b->kind[i] != B_COMPUTE || !stmt_uses(b->st[i], buf))) continue;
    const struct Deferred *d = b->kind[j] == B_DECL ? deferred(em, NULL, b->st[j]->buf) : NULL;
    if (d) wait_last_store(em, d, v, ind);
    if (b->kind[j] == B_LOAD) {
      char copy[100], tok[300];
      token_of(tok, sizeof tok, buf, copy_of(em, b->loop, buf, false, copy, sizeof copy), v);
      sb_indent(em->sb, ind);
      if (resident(em, b->loop, buf))
        sb_printf(em->sb, "if (%s == 0) npu_dma_wait(%s); /* loaded once, before the passes */\n",
                  em->pass->var->name, tok);
      else sb_printf(em->sb, "npu_dma_wait(%s);\n", tok);
    }
    waited[j] = d || b->kind[j] == B_LOAD;
  }
}

/* A load or deferred store: the DMA, not waited for, its token per core
 * (per copy and core when copy, C text, is given: the copy's region where
 * the pass counter has value `next`, or the current one when next is NULL).
 * The phases use two channels each, loads 0 and 1, copies out 2 and 3: a
 * single buffer alternates between its two by core (alternate); several
 * buffers take one each in turn, so each buffer's transfers stay in core
 * order on one channel. */
static void issue_async(Emit *em, const Stmt *c, const Buffer *b, const char *v, int channel, bool alternate,
                        const char *copy, const Expr *next, int ind) {
  char tok[300], ch[100];
  token_of(tok, sizeof tok, b, copy, v);
  DmaAsync as = {tok, dma_channel(em, ch, sizeof ch, channel, alternate ? v : NULL), next ? em->pass->var : NULL, next};
  const Stmt *leaf = ir_nest_leaf(c);
  sb_indent(em->sb, ind);
  sb_printf(em->sb, "/* %s: %s <- %s */\n", leaf->name, leaf->lhs->buf->name, leaf->rhs->buf->name);
  emit_dma_copy(em->sb, &em->scratch, c, ind, &as);
}

/* The body fits the phases: declarations of per-core buffers anywhere,
 * then loads, compute and copies out in that order, with at least one
 * load. Counts each phase's statements. */
static bool phases_fit(const Stmt *L, const Body *b, int count[3]) {
  BoundKind last = B_LOAD;
  count[0] = count[1] = count[2] = 0;
  for (int i = 0; i < b->n; i++) {
    if (b->kind[i] == B_DECL) {
      if (!b->st[i]->buf || b->st[i]->buf->core != L->var) return false;
      continue;
    }
    if (b->kind[i] < last) return false;
    last = b->kind[i];
    count[last]++;
  }
  return count[B_LOAD] > 0;
}

/* L's loads by how the phases issue them: for this pass (now), for the
 * next (ahead: by_pass), or not at all (once: resident). */
typedef struct {
  int now, ahead, once;
} Loads;

static Loads count_loads(const Emit *em, const Body *b) {
  Loads n = {0, 0, 0};
  for (int i = 0; i < b->n; i++) {
    if (b->kind[i] != B_LOAD) continue;
    if (resident(em, b->loop, b->buf[i])) n.once++;
    else if (by_pass(em, b->loop, b->buf[i])) n.ahead++;
    else n.now++;
  }
  return n;
}

/* A copy that the compute phase waits for where it is issued. */
static bool compute_copies(const Body *b) {
  for (int i = 0; i < b->n; i++) {
    Stmt one = *b->st[i]; /* alone: its siblings are the other phases' */
    one.next = NULL;
    if (b->kind[i] == B_COMPUTE && has_copy(&one, NULL, 0)) return true;
  }
  return false;
}

/* The body as phases, each a loop over the cores: every core's loads
 * (issued, not waited for), then every core's compute (after waiting for
 * its loads and for its last copy out of a buffer it writes again), then
 * every core's copies out. The control unit so keeps all cores busy rather
 * than waiting on one core's loads before issuing to the next. The
 * iterations are independent (bind proved it, again after every step), so
 * running the body phase by phase over the cores changes nothing but the
 * order of issue. A loaded buffer is never a deferred store (its load
 * uses the store's destination: plan_bound). Inside a pass loop
 * (emit_bound_pass), a read cache whose copies alternate (by_pass) is
 * loaded one pass ahead: the loads phase fills the other copy with the
 * next pass's region, after this pass's other loads; a resident one is not
 * loaded here at all. False, with nothing written, for a body of another
 * shape; false with the reason in why when its loads do not fit the
 * target's DMAs in flight. */
static bool emit_bound_phases(Emit *em, const Stmt *L, const Body *b, int ind, char *why, size_t nwhy) {
  int count[3];
  if (!phases_fit(L, b, count)) return false;
  StrBuf *sb = em->sb;
  const char *v = L->var->name;
  bool permute = permuted(em, L); /* each phase in the unit's order: the cores' tokens are per core */
  int64_t cores, passes = 0;
  ir_const_int(L->hi, &cores);
  if (em->pass_bound == L) ir_const_int(em->pass->hi, &passes);
  char copy[100];
  Loads loads = count_loads(em, b);
  int issued = loads.now + loads.ahead; /* loads issued in the loads phase */
  /* each core's loads of this pass are in flight until its compute (a pass
   * loop's grant counts them with its own) */
  Need need = {cores * loads.now, compute_copies(b)};
  if (em->pass_bound != L && !grant(em, L->body, need, NULL)) {
    snprintf(why, nwhy, "running it phase by phase ");
    no_room(em, need, why + strlen(why), nwhy - strlen(why));
    return false;
  }
  em->held += need.tokens;
  sb_indent(sb, ind);
  sb_printf(sb, "/* bound to the VU cores: iteration %s runs on core %s, phase by phase */\n", v, v);
  sb_indent(sb, ind);
  sb_puts(sb, "{\n");
  for (int i = 0; i < b->n; i++)
    if (b->kind[i] == B_LOAD && !by_pass(em, L, b->buf[i]) && !resident(em, L, b->buf[i])) {
      sb_indent(sb, ind + 1);
      token_decl(sb, b->buf[i], cores, false);
      sb_printf(sb, " /* per %score: the load of %s */\n", b->buf[i]->copies == 2 ? "copy, per " : "", b->buf[i]->name);
    }
  static const char *const what[3] = {"loads", "compute", "copies out"};
  for (BoundKind p = B_LOAD; p <= B_STORE; p++) {
    /* compute waits for the loads even when it computes nothing */
    if ((p == B_LOAD && !issued) || (p == B_STORE && !count[p])) continue;
    int in = ind + 2; /* the phase's body */
    if (permute) {
      sb_indent(sb, ind + 1);
      sb_printf(sb, "/* %s */\n", what[p]);
      in = open_loop(em, L, ind + 1, true);
    } else {
      sb_indent(sb, ind + 1);
      sb_printf(sb, "for (%s %s = 0; %s < ", L->var->type->name, v, v);
      ir_print_expr(sb, L->hi);
      sb_printf(sb, "; %s++) { /* %s */\n", v, what[p]);
    }
    for (int i = 0; i < b->n; i++)
      if (b->kind[i] == B_DECL && phase_uses(em, b, p, b->st[i]->buf)) {
        sb_indent(sb, in);
        emit_onchip_decl(sb, b->st[i]->buf, copy_of(em, L, b->st[i]->buf, p == B_LOAD, copy, sizeof copy));
        sb_putc(sb, '\n');
      }
    bool waited[BOUND_MAX] = {false};
    int nth[3] = {0};
    for (int i = 0; i <= b->n; i++) {
      if (p == B_COMPUTE) compute_waits(em, b, i, waited, v, in);
      if (i == b->n || b->kind[i] != p) continue;
      if (p == B_LOAD && (by_pass(em, L, b->buf[i]) || resident(em, L, b->buf[i]))) continue;
      if (p == B_LOAD)
        issue_async(em, b->st[i], b->buf[i], v, nth[p]++ % 2, issued == 1,
                    copy_of(em, L, b->buf[i], false, copy, sizeof copy), NULL, in);
      else if (p == B_STORE) {
        const Buffer *out = deferred(em, b->st[i], NULL)->b;
        issue_async(em, b->st[i], out, v, 2 + nth[p]++ % 2, count[p] == 1, copy_of(em, L, out, false, copy, sizeof copy),
                    NULL, in);
      } else {
        Stmt one = *b->st[i];
        one.next = NULL;
        emit_stmts(em, &one, in, false);
      }
    }
    int ahead = 0;
    for (int i = 0; p == B_LOAD && i < b->n; i++) {
      if (b->kind[i] != B_LOAD || !by_pass(em, L, b->buf[i])) continue;
      Expr *next = ir_add(&em->scratch, ir_var(&em->scratch, em->pass->var, em->pass->loc),
                          ir_int(&em->scratch, 1, &ty_int, em->pass->loc), em->pass->var->type);
      if (!ahead++) {
        sb_indent(sb, in);
        sb_printf(sb, "if (%s + 1 < %lld) { /* the next pass's regions, into the other copies */\n",
                  em->pass->var->name, (long long)passes);
      }
      issue_async(em, b->st[i], b->buf[i], v, nth[p]++ % 2, issued == 1, copy_of(em, L, b->buf[i], true, copy, sizeof copy),
                  next, in + 1);
    }
    if (ahead) {
      sb_indent(sb, in);
      sb_puts(sb, "}\n");
    }
    close_loop(em, ind + 1, permute);
  }
  sb_indent(sb, ind);
  sb_puts(sb, "}\n");
  em->held -= need.tokens;
  return true;
}

/* ---------------- pass loops around bound loops ---------------- */

typedef struct {
  const Buffer *b;
  const Stmt *skip; /* writes: the load's copy statement */
  const Var *v;     /* uses_var: the pass counter */
  bool found;
} Find;

static bool find_write(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Find *f = ctx;
  if (st != f->skip && st->kind == ST_ASSIGN && st->lhs->kind == EX_LOAD && st->lhs->buf == f->b) f->found = true;
  return !f->found;
}

static bool find_var(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Find *f = ctx;
  if (ir_stmt_uses(st, f->v, NULL)) f->found = true;
  return !f->found;
}

/* A load of bound loop L, in pass loop P, that brings the same region in
 * every pass into bytes nothing else writes: it can be loaded once, before
 * P. Its region does not use P's counter, nothing under P writes its
 * source, and nothing but the load writes the buffer. No other buffer
 * shares its bytes while P runs: nothing in P but L uses on-chip memory
 * (ir_other_onchip_user, checked by the caller), and placement keeps L's
 * buffers, all live with b, apart. */
static bool loads_once(const Stmt *P, const Stmt *load, const Buffer *b) {
  if (b->copies > 1) return false;
  Stmt one = *load;
  one.next = NULL;
  Find uses = {.v = P->var}, src = {.b = ir_nest_leaf(load)->rhs->buf}, dst = {.b = b, .skip = ir_nest_leaf(load)};
  ir_walk_stmts(&one, find_var, &uses);
  ir_walk_stmts(P->body, find_write, &src);
  ir_walk_stmts(P->body, find_write, &dst);
  return !uses.found && !src.found && !dst.found;
}

/* A loop `pass` whose body holds a bound loop L that fits the phases, with
 * double-buffered read caches (their copies alternate by pass) or read
 * caches that load the same region in every pass (loaded once): before the
 * loop come their token arrays and the loads of the first pass (into copy
 * 0) and of the resident ones, then L's phases (emit_bound_phases) load one
 * pass ahead and skip the resident ones. False when L does not fit the
 * phases, has no such buffer or its loads ahead do not fit the target's
 * DMAs in flight (then after a comment that says so; a copy out L's plan
 * leaves synchronous is said where it is planned, here or before). */
static bool emit_bound_pass(Emit *em, const Stmt *P, int ind) {
  const Stmt *L = NULL;
  for (const Stmt *c = P->body->body; c && !L; c = c->next)
    if (c->kind == ST_FOR && c->loop_kind == LOOP_VU) L = c;
  int64_t lo, passes, cores;
  if (!L || em->pass || !ir_const_int(P->lo, &lo) || lo != 0 || P->step != 1 || !ir_const_int(P->hi, &passes) ||
      !ir_const_int(L->hi, &cores) || ir_other_onchip_user(P, L))
    return false;
  /* classify L as emit_bound will: with the copies out L's own plan
   * defers (planned again, the same, when L is emitted) */
  int saved = em->ndefer;
  Stmt one = *L;
  one.next = NULL;
  Plan plan = {em, L, &one, ind, 0};
  ir_walk_stmts(&one, plan_bound, &plan);
  Body b;
  int count[3];
  bool fit = classify(em, L, &b) && phases_fit(L, &b, count);
  /* L's double-buffered copies out alternate across passes when deferred
   * over a nest around P; deferred at L they are waited for every pass */
  int64_t deferred_tokens = in_flight(em), alt_stores = 0;
  for (int i = 0; i < saved; i++) alt_stores += em->defer[i].loop == L && em->defer[i].b->copies == 2;
  em->ndefer = saved;
  deferred_tokens -= in_flight(em);
  if (!fit) return false;
  int alternate = 0; /* per-core buffers with two copies */
  for (int i = 0; i < b.n; i++) alternate += b.kind[i] == B_DECL && b.st[i]->buf->copies == 2;
  em->pass = P;
  em->pass_bound = L;
  em->nresident = 0;
  for (int i = 0; i < b.n; i++)
    if (b.kind[i] == B_LOAD && loads_once(P, b.st[i], b.buf[i]) &&
        em->nresident < (int)(sizeof em->resident / sizeof em->resident[0]))
      em->resident[em->nresident++] = b.buf[i];
  /* in flight: each core's loads of this pass and of the next (the
   * double-buffered ones), its resident loads until the first pass's
   * compute, its copies out (two of a double-buffered one: this pass's and
   * the last's), and L's other loads */
  Loads loads = count_loads(em, &b);
  int64_t held = cores * (2 * loads.ahead + loads.once + alt_stores);
  Need need = {deferred_tokens + held + cores * loads.now, compute_copies(&b)};
  if ((!alternate && !em->nresident) || !grant(em, P->body, need, NULL)) {
    if (alternate || em->nresident) {
      char why[400];
      sb_indent(em->sb, ind);
      sb_printf(em->sb, "/* pass loop %s loads nothing ahead", P->name);
      for (int i = 0; i < b.n; i++)
        if (b.kind[i] == B_DECL && b.st[i]->buf->copies == 2)
          sb_printf(em->sb, ", double_buffer(%s) does nothing here", b.st[i]->buf->name);
      sb_printf(em->sb, ": loading ahead %s */\n", no_room(em, need, why, sizeof why));
    }
    em->pass = em->pass_bound = NULL;
    em->nresident = 0;
    return false;
  }
  em->held += held;
  StrBuf *sb = em->sb;
  const char *v = L->var->name;
  int first = loads.ahead + loads.once; /* loads before the pass loop */
  if (!first) { /* only copies out alternate: nothing to load ahead */
    /* a core waits for its last copy out of a copy before writing it, in
     * any order of the passes: P may be permuted */
    emit_plain_loop(em, P, ind, true);
    em->pass = em->pass_bound = NULL;
    em->held -= held;
    return true;
  }
  sb_indent(sb, ind);
  sb_puts(sb, "{\n");
  for (int i = 0; i < b.n; i++) {
    if (b.kind[i] != B_LOAD || (!by_pass(em, L, b.buf[i]) && !resident(em, L, b.buf[i]))) continue;
    sb_indent(sb, ind + 1);
    token_decl(sb, b.buf[i], cores, false);
    if (by_pass(em, L, b.buf[i])) sb_printf(sb, " /* per copy, per core: the load of %s */\n", b.buf[i]->name);
    else sb_printf(sb, " /* per core: the load of %s, the same in every pass of %s */\n", b.buf[i]->name, P->name);
  }
  sb_indent(sb, ind + 1);
  sb_printf(sb, "for (%s %s = 0; %s < ", L->var->type->name, v, v);
  ir_print_expr(sb, L->hi);
  sb_printf(sb, "; %s++) { /* loaded ahead: the first pass's %s */\n", v, loads.ahead ? "regions, into copy 0" : "regions");
  int nth = 0;
  for (int i = 0; i < b.n; i++) {
    if (b.kind[i] != B_LOAD) continue;
    bool alt = by_pass(em, L, b.buf[i]);
    if (!alt && !resident(em, L, b.buf[i])) continue;
    sb_indent(sb, ind + 2);
    emit_onchip_decl(sb, b.buf[i], alt ? "0" : NULL);
    sb_putc(sb, '\n');
    issue_async(em, b.st[i], b.buf[i], v, nth++ % 2, first == 1, alt ? "0" : NULL, alt ? P->lo : NULL, ind + 2);
  }
  sb_indent(sb, ind + 1);
  sb_puts(sb, "}\n");
  source_order_note(em, P, "each pass loads the next one's regions", ind + 1);
  emit_plain_loop(em, P, ind + 1, false);
  sb_indent(sb, ind);
  sb_puts(sb, "}\n");
  em->pass = em->pass_bound = NULL;
  em->nresident = 0;
  em->held -= held;
  return true;
}

/* One loop over the cores, loads synchronous, copies out deferred. */
static void emit_bound(Emit *em, const Stmt *L, int ind) {
  StrBuf *sb = em->sb;
  const char *v = L->var->name;
  Body b;
  char why[400] = "";
  bool known = classify(em, L, &b);
  if (known && emit_bound_phases(em, L, &b, ind, why, sizeof why)) return;
  for (const Stmt *c = L->body->body; c; c = c->next)
    if (c->kind == ST_DECL && c->buf && c->buf->copies == 2) {
      sb_indent(sb, ind);
      sb_printf(sb, "/* double_buffer(%s) does nothing here: %s, so each core uses copy 0 */\n", c->buf->name,
                *why ? "the cores run one after another (below)"
                     : "the body does not run phase by phase (loads, compute, copies out)");
    }
  sb_indent(sb, ind);
  sb_printf(sb, "/* bound to the VU cores: iteration %s runs on core %s", v, v);
  if (*why) sb_printf(sb, ", one core after another: %s", why);
  sb_puts(sb, " */\n");
  bool permute = permuted(em, L);
  int in = open_loop(em, L, ind, permute);
  for (const Stmt *c = L->body->body; c; c = c->next) {
    const struct Deferred *d = deferred(em, c, NULL);
    if (d) {
      char copy[100];
      issue_async(em, c, d->b, v, 2, true, copy_of(em, L, d->b, false, copy, sizeof copy), NULL, in);
      continue;
    }
    Stmt one = *c;
    one.next = NULL;
    emit_stmts(em, &one, in, false);
    d = c->kind == ST_DECL ? deferred(em, NULL, c->buf) : NULL;
    if (d) wait_last_store(em, d, v, in);
  }
  close_loop(em, ind, permute);
}

/* vectorize/parallel: OpenMP hints that a compiler without OpenMP never sees
 * (so -Wunknown-pragmas stays quiet and the meaning cannot change). A
 * vectorized nest over vector memory that no VU instruction computes says
 * why, for the reviewer. */
static void emit_loop_hint(Emit *em, const Stmt *s, int ind, bool omp) {
  if (s->loop_kind == LOOP_VECTORIZE && s->vec_note) {
    sb_indent(em->sb, ind);
    sb_printf(em->sb, "/* vectorize(%s) stays a hint: no VU instruction computes this nest (%s) */\n", s->name,
              s->vec_note);
  }
  const char *p = s->loop_kind == LOOP_VECTORIZE ? "omp simd" : s->loop_kind == LOOP_PARALLEL ? "omp parallel for" : NULL;
  if (p && omp) sb_printf(em->sb, "#ifdef _OPENMP\n#pragma %s\n#endif\n", p);
}

/* ---------------- lowered nodes (lower/) ---------------- */

/* "A_tok", "C_ob_tok[jo % 2]" */
static const char *token_text(Emit *em, const DmaToken *t) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, t->base);
  for (int i = 0; i < t->nidx; i++) {
    sb_putc(&sb, '[');
    ir_print_expr(&sb, t->idx[i]);
    sb_putc(&sb, ']');
  }
  const char *text = arena_strdup(&em->scratch, sb.data);
  sb_free(&sb);
  return text;
}

static void emit_view(Emit *em, const Lowered *l) {
  StrBuf *sb = em->sb;
  const Buffer *b = l->view_buf;
  if (l->view_copy) {
    emit_pointer_decl(sb, b, b->name, 0);
    sb_printf(sb, " = %s[", b->db_name);
    ir_print_expr(sb, l->view_copy);
    sb_puts(sb, "];\n");
    return;
  }
  emit_pointer_decl(sb, b, b->db_name, -1);
  sb_puts(sb, " = (");
  emit_pointer_decl(sb, b, "", -1);
  sb_printf(sb, ")(void *)((char *)npu_scope_base(%s, 0) + %lld); /* %s, two copies of %lld bytes */\n",
            emit_scope_macro(b->scope), (long long)b->offset, b->scope, (long long)(buffer_elems(b) * b->elem->size));
}

/* A start waited for at once (no token name) prints as one call with its
 * wait; the wait then prints nothing. */
static void emit_lowered(Emit *em, const Stmt *s, int ind) {
  StrBuf *sb = em->sb;
  const Lowered *l = s->low;
  if ((l->kind == LOW_DMA_START && !l->token.base)) {
    emit_dma_copy(sb, &em->scratch, l->copy, ind, NULL);
    return;
  }
  if (l->kind == LOW_DMA_START) {
    StrBuf ch;
    sb_init(&ch);
    ir_print_expr(&ch, l->channel);
    DmaAsync as = {token_text(em, &l->token), arena_strdup(&em->scratch, ch.data), l->at_var, l->at_value};
    sb_free(&ch);
    emit_dma_copy(sb, &em->scratch, l->copy, ind, &as);
    return;
  }
  if (l->kind == LOW_DMA_WAIT && !l->token.base) return;
  sb_indent(sb, ind);
  switch (l->kind) {
  case LOW_NOTE:
    sb_printf(sb, "/* %s */\n", s->note);
    return;
  case LOW_VIEW:
    emit_view(em, l);
    return;
  case LOW_TOKENS:
    sb_printf(sb, "npu_token_t %s%s;\n", l->token.base, l->ndims ? "[2]" : "");
    return;
  case LOW_DMA_WAIT:
    if (l->guard) {
      sb_puts(sb, "if (");
      ir_print_expr(sb, l->guard);
      sb_puts(sb, ") ");
    }
    sb_printf(sb, "npu_dma_wait(%s);", token_text(em, &l->token));
    if (s->note) sb_printf(sb, " /* %s */", s->note);
    sb_putc(sb, '\n');
    return;
  case LOW_DMA_START:
    return;
  }
}

/* A lowered loop: in the unit's order unless it keeps the source order
 * (a pipeline), then after the check's note. */
static void emit_lowered_loop(Emit *em, const Stmt *s, int ind) {
  if (s->intrin && emit_intrinsic(em, s, ind)) return;
  if (s->order_note) source_order_note(em, s, s->order_note, ind);
  emit_plain_loop(em, s, ind, !s->order_note);
}

static void emit_stmts(Emit *em, const Stmt *s, int ind, bool top) {
  StrBuf *sb = em->sb;
  for (; s; s = s->next) {
    if (top) em->legacy = !s->from && !s->continued;
    emit_annots(em, s, ind);
    if (top && s->from && s->from->kind == ST_FOR && (s->low || s->kind != ST_FOR)) nest_comment(em, (Stmt *)s->from, ind);
    if (s->low) {
      emit_lowered(em, s, ind);
      continue;
    }
    switch (s->kind) {
    case ST_BLOCK:
      sb_indent(sb, ind);
      sb_puts(sb, "{\n");
      emit_stmts(em, s->body, ind + 1, false);
      sb_indent(sb, ind);
      sb_puts(sb, "}\n");
      break;
    case ST_FOR: {
      if (top && !s->continued) nest_comment(em, (Stmt *)(s->from ? s->from : s), ind);
      if (!em->legacy) {
        emit_lowered_loop(em, s, ind);
        break;
      }
      if ((s->loop_kind == LOOP_DMA || onchip_copy(s)) && emit_dma_copy(sb, &em->scratch, s, ind, NULL)) break;
      if (s->intrin && emit_intrinsic(em, s, ind)) break;
      /* a home for bound loops' deferred copies out: the kernel's loop nest, else the bound loop */
      Stmt one = *s;
      one.next = NULL;
      Plan plan = {em, s, &one, ind, 0};
      if (top || s->loop_kind == LOOP_VU) ir_walk_stmts(&one, plan_bound, &plan);
      int from = em->ndefer - plan.added;
      if (plan.added) {
        defer_open(em, from, ind);
        ind++;
      }
      if (s->loop_kind == LOOP_VU) emit_bound(em, s, ind);
      else if (!emit_pipelined(em, s, ind) && !emit_bound_pass(em, s, ind)) emit_plain_loop(em, s, ind, true);
      if (plan.added) {
        ind--;
        defer_close(em, from, ind);
        em->ndefer = from; /* an outer home's close must not wait on these tokens, out of scope there */
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
      if (em->cu_hooks) emit_cu_store(sb, s->lhs, s->op);
      else print_value(em, s->lhs);
      sb_printf(sb, " %s= ", op_spelling(s->op));
      print_value(em, s->rhs);
      sb_putc(sb, ';');
      if (s->labeled) sb_printf(sb, " /* %s */", s->name);
      sb_putc(sb, '\n');
      break;
    case ST_DECL:
      sb_indent(sb, ind);
      if (s->buf && buffer_onchip(s->buf)) {
        emit_onchip_decl(sb, s->buf, NULL);
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
          print_value(em, s->init);
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
    if (u->target) sb_printf(sb, " * Target: %s\n", u->target->name);
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

/* The lowered IR failed its synchronisation check (an npugen bug): the
 * emitted C says so and does not compile, so no run trusts it. */
static void internal_error(StrBuf *sb, const char *why) {
  sb_puts(sb, "#error \"npugen internal error: DMA synchronisation of the lowered IR: ");
  for (const char *p = why; *p; p++) {
    if (*p == '"' || *p == '\\') sb_putc(sb, '\\');
    sb_putc(sb, *p);
  }
  sb_puts(sb, "\"\n");
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
  NpuTarget def;
  const NpuTarget *target = u->target;
  if (!target) {
    npusim_target_default(&def);
    target = &def;
  }
  em.cu_hooks = u->cu_hooks && n.npu;
  em.dma_channels = target->dma_channels > 0 ? (int)target->dma_channels : 1;
  em.max_tokens = target->dma_max_tokens;
  em.target_name = target->name;
  arena_init(&em.scratch, 0);
  ir_walk_stmts(u->k->body, scan_stmt, &em);
  emit_prototype(&sb, u);
  sb_puts(&sb, " {\n");
  for (const Param *p = u->k->params; p; p = p->next) {
    bool used = p->buf ? em.buf_used[p->buf->id] : em.var_read[p->var->id];
    if (!used) sb_printf(&sb, "  (void)%s;\n", p->buf ? p->buf->name : p->var->name);
  }
  Kernel *lowered = lower_kernel(&em.scratch, u->k, target);
  char why[600];
  if (!lower_check_sync(lowered, target->dma_max_tokens, why, sizeof why)) internal_error(&sb, why);
  emit_stmts(&em, lowered->body->body, 1, true);
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

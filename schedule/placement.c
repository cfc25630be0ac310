/* Static placement of on-chip buffers: each gets a byte offset in its
 * scope at generation time, so the emitted code needs no allocator.
 *
 * A buffer lives from its declaration to the end of the block holding it.
 * Two buffers are live at once when one's block encloses (or is) the
 * other's; buffers in sibling blocks (two loops one after the other) may
 * share memory. Buffers are placed largest first, each at the lowest
 * 64-byte aligned offset clear of the live-at-once ones already placed.
 * Capacities are those of the target the variant is generated for
 * (Sched.target: --target, else targets/default.ini's). */
#include <stdlib.h>
#include <string.h>

#include "schedule/sched.h"
#include "sim/npusim.h"

enum { ALIGN = 64, MAX_ONCHIP = 256, MAX_DEPTH = 256 };

typedef struct {
  Buffer *b;
  const Stmt *path[MAX_DEPTH]; /* the blocks enclosing the declaration, outermost first */
  int depth;
  const Stmt *owner;           /* the loop or the call (a block marked CallSite) whose body declares it, or NULL */
  uint64_t bytes;
  bool placed;
} Onchip;

typedef struct {
  Onchip *v; /* grown as buffers are found: most variants have none */
  int n, cap;
  const Stmt *path[MAX_DEPTH];
  int depth;
  bool over, oom;
} Walk;

static void walk(Walk *w, const Stmt *list, const Stmt *block, const Stmt *owner) {
  if (w->depth == MAX_DEPTH) {
    w->over = true;
    return;
  }
  w->path[w->depth++] = block;
  for (const Stmt *s = list; s; s = s->next) {
    switch (s->kind) {
    case ST_BLOCK: walk(w, s->body, s, s->call ? s : owner); break;
    case ST_FOR: walk(w, s->body->body, s->body, s); break;
    case ST_IF:
      walk(w, s->then_s->body, s->then_s, owner);
      if (s->else_s) walk(w, s->else_s->body, s->else_s, owner);
      break;
    case ST_DECL:
      if (!s->buf || !buffer_onchip(s->buf)) break;
      if (w->n == MAX_ONCHIP) {
        w->over = true;
        break;
      }
      if (w->n == w->cap) {
        int cap = w->cap ? 2 * w->cap : 8;
        Onchip *v = realloc(w->v, sizeof *v * (size_t)cap);
        if (!v) {
          w->oom = true;
          break;
        }
        w->v = v;
        w->cap = cap;
      }
      Onchip *o = &w->v[w->n++];
      memset(o, 0, sizeof *o);
      o->b = s->buf;
      memcpy(o->path, w->path, sizeof o->path[0] * (size_t)w->depth);
      o->depth = w->depth;
      o->owner = owner;
      o->bytes = (uint64_t)buffer_elems(s->buf) * (uint64_t)s->buf->elem->size * (s->buf->copies > 1 ? 2 : 1);
      break;
    default: break;
    }
  }
  w->depth--;
}

static bool live_together(const Onchip *x, const Onchip *y) {
  int n = x->depth < y->depth ? x->depth : y->depth;
  for (int i = 0; i < n; i++)
    if (x->path[i] != y->path[i]) return false;
  return true;
}

static uint64_t capacity(const NpuTarget *t, const char *scope) {
  if (!strcmp(scope, "dm")) return (uint64_t)t->dm_size;
  if (!strcmp(scope, "nu_ib")) return (uint64_t)t->nu_ib_size;
  if (!strcmp(scope, "nu_wb")) return (uint64_t)t->nu_wb_size;
  if (!strcmp(scope, "nu_ob")) return (uint64_t)t->nu_ob_size;
  return (uint64_t)t->vu_vm_size;
}

static uint64_t round_up(uint64_t x) { return (x + ALIGN - 1) / ALIGN * ALIGN; }

/* The lowest offset where o fits beside the placed buffers live with it. */
static uint64_t first_fit(const Walk *w, const Onchip *o) {
  uint64_t off = 0;
  for (bool moved = true; moved;) {
    moved = false;
    for (int i = 0; i < w->n; i++) {
      const Onchip *p = &w->v[i];
      if (!p->placed || p == o || strcmp(p->b->scope, o->b->scope) || !live_together(p, o)) continue;
      uint64_t lo = (uint64_t)p->b->offset, hi = lo + p->bytes;
      if (off < hi && lo < off + o->bytes) {
        off = round_up(hi);
        moved = true;
      }
    }
  }
  return off;
}

static int by_size(const void *x, const void *y) {
  const Onchip *a = *(Onchip *const *)x, *b = *(Onchip *const *)y;
  if (a->bytes != b->bytes) return a->bytes < b->bytes ? 1 : -1;
  return a->b->id - b->b->id;
}

/* "nu_ib (262144 bytes): A_ib 131072 B in loop jo (line 9) at 0, ..." */
static void usage_line(StrBuf *sb, const Onchip *o) {
  sb_printf(sb, "\n    %-16s %10llu bytes  live in ", o->b->name, (unsigned long long)o->bytes);
  if (o->owner && o->owner->call) sb_printf(sb, "call %s (line %d)", o->owner->call->name, o->owner->loc.line);
  else if (o->owner) sb_printf(sb, "loop %s (line %d)", o->owner->name, o->owner->loc.line);
  else sb_puts(sb, "the whole kernel");
  if (o->placed) sb_printf(sb, ", at offset %lld", (long long)o->b->offset);
  else sb_puts(sb, ", does not fit");
}

/* The scope's buffers by offset, then those not placed. */
static void usage_table(StrBuf *sb, const Walk *w, const NpuTarget *t, const char *scope) {
  sb_printf(sb, "\n  %s, %llu bytes:", scope, (unsigned long long)capacity(t, scope));
  int64_t last = -1;
  for (;;) {
    const Onchip *next = NULL;
    for (int i = 0; i < w->n; i++) {
      const Onchip *o = &w->v[i];
      if (o->placed && !strcmp(o->b->scope, scope) && o->b->offset > last && (!next || o->b->offset < next->b->offset))
        next = o;
    }
    if (!next) break;
    /* buffers sharing an offset (not live together) are listed in walk order */
    for (int i = 0; i < w->n; i++)
      if (w->v[i].placed && !strcmp(w->v[i].b->scope, scope) && w->v[i].b->offset == next->b->offset)
        usage_line(sb, &w->v[i]);
    last = next->b->offset;
  }
  for (int i = 0; i < w->n; i++)
    if (!w->v[i].placed && !strcmp(w->v[i].b->scope, scope)) usage_line(sb, &w->v[i]);
}

/* The outermost call around o that passes an on-chip array: its
 * function's buffers are placed with the caller's (ir_call_function). */
static const Stmt *placed_call(const Onchip *o) {
  for (int i = 0; i < o->depth; i++)
    if (o->path[i]->kind == ST_BLOCK && o->path[i]->call && ir_call_onchip(o->path[i]->call)) return o->path[i];
  return NULL;
}

/* "call s2 (line 9) of net_v runs cp_v with T (vu_vm): ..." when o is a
 * buffer of such a call's function: the plan of both variants fails. */
static void call_clash(StrBuf *sb, const Sched *s, const Walk *w, const Onchip *o) {
  const Stmt *call = placed_call(o);
  for (int i = 0; !call && i < w->n; i++) /* o is the caller's: a buffer of the call's in its way */
    if (w->v[i].placed && !strcmp(w->v[i].b->scope, o->b->scope) && live_together(&w->v[i], o))
      call = placed_call(&w->v[i]);
  if (!call) return;
  const CallSite *c = call->call;
  sb_printf(sb, "call %s (line %d) cannot be planned: %s passes it ", c->name, call->loc.line, s->variant);
  for (int i = 0, n = 0; i < c->nparams; i++)
    if (c->arg_buf[i] && buffer_onchip(c->arg_buf[i]))
      sb_printf(sb, "%s%s (%s)", n++ ? ", " : "", c->arg_buf[i]->name, c->arg_buf[i]->scope);
  sb_printf(sb, " on chip, and %s's %s must be placed beside %s's buffers; the caller's array would need a DDR round "
            "trip, which npugen does not add (give it another scope, or use another variant of %s): ", c->fn_ir->name,
            placed_call(o) ? o->b->name : "buffers", s->variant, c->callee->name);
}

/* ---- copies of a call placed with its caller ---- */

typedef struct {
  const Stmt *calls[64]; /* outermost calls that pass an on-chip array */
  int n;
  int64_t offs[2][MAX_ONCHIP];
  int noffs[2];
  int which;
} Copies;

static bool copy_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Copies *c = ctx;
  if (st->kind == ST_BLOCK && st->call && ir_call_onchip(st->call) && c->n < 64) c->calls[c->n++] = st;
  return true;
}

static bool offset_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Copies *c = ctx;
  if (st->kind == ST_DECL && st->buf && buffer_onchip(st->buf) && c->noffs[c->which] < MAX_ONCHIP)
    c->offs[c->which][c->noffs[c->which]++] = st->buf->offset;
  return true;
}

static bool same_offsets(Copies *c, const Stmt *x, const Stmt *y) {
  const Stmt *two[2] = {x, y};
  for (c->which = 0; c->which < 2; c->which++) {
    c->noffs[c->which] = 0;
    ir_walk_stmts(two[c->which]->body, offset_visit, c);
  }
  return c->noffs[0] == c->noffs[1] && !memcmp(c->offs[0], c->offs[1], sizeof c->offs[0][0] * (size_t)c->noffs[0]);
}

/* Copies of such a call (unroll, loop_partition) run one function, so
 * their buffers must have been placed alike. */
static bool copies_alike(Sched *s) {
  Copies *c = calloc(1, sizeof *c);
  if (!c) return sched_error(s, NULL, "out of memory");
  ir_walk_outside_calls(s->k->body, copy_visit, c);
  bool ok = true;
  for (int i = 0; ok && i < c->n; i++)
    for (int j = i + 1; ok && j < c->n; j++)
      if (!strcmp(c->calls[i]->call->fn, c->calls[j]->call->fn) && !same_offsets(c, c->calls[i], c->calls[j]))
        ok = sched_error(s, NULL, "copies of call %s (line %d) run one function, %s, but their on-chip buffers are "
                         "placed differently around them; inline(%s)", c->calls[i]->call->name,
                         c->calls[i]->loc.line, c->calls[i]->call->fn, c->calls[i]->call->name);
  free(c);
  return ok;
}

bool sched_place_onchip(Sched *s) {
  Walk w = {.v = NULL};
  walk(&w, s->k->body->body, s->k->body, NULL);
  bool ok = !w.oom || sched_error(s, NULL, "out of memory");
  if (ok && w.over) ok = sched_error(s, NULL, "too many on-chip buffers or too deep a nest to place (at most %d, %d levels)",
                               MAX_ONCHIP, MAX_DEPTH);
  const NpuTarget *t = &s->target;
  Onchip *order[MAX_ONCHIP];
  for (int i = 0; i < w.n; i++) order[i] = &w.v[i];
  qsort(order, (size_t)w.n, sizeof order[0], by_size);
  for (int i = 0; ok && i < w.n; i++) {
    Onchip *o = order[i];
    uint64_t off = first_fit(&w, o), cap = capacity(t, o->b->scope);
    if (off + o->bytes > cap) {
      StrBuf sb;
      sb_init(&sb);
      call_clash(&sb, s, &w, o);
      sb_printf(&sb, "the on-chip buffers do not fit: %s (%llu bytes) needs %llu bytes of %s, which holds %llu "
                "on target '%s'; usage (buffers live at once share no bytes):", o->b->name, (unsigned long long)o->bytes,
                (unsigned long long)(off + o->bytes), o->b->scope, (unsigned long long)cap, t->name);
      usage_table(&sb, &w, t, o->b->scope);
      ok = sched_error(s, NULL, "%s", sb.data);
      sb_free(&sb);
      break;
    }
    o->b->offset = (int64_t)off;
    o->placed = true;
  }
  free(w.v);
  return ok && copies_alike(s);
}

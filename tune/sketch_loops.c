/* The general host sketch: any kernel with a loop, whatever its nests,
 * their order, their prologues or its time loop. It tunes the kernel's
 * own loops on this CPU (the cost is measured time, tune/host_timer.c):
 *   - parallel on the outermost loop of each nest that can run in
 *     parallel (a time loop that cannot is passed over for the loops in
 *     it), on or off;
 *   - on each innermost loop: nothing, vectorize, or unroll by 2 or 4
 *     (unroll(loop, f) splits the tail off as a remainder loop: no guard
 *     lands in the unrolled body);
 *   - on a loop around a window (loops of a few constant trips, WINDOW_MAX
 *     instances at most: a 3x3 convolution's taps): nothing, or the
 *     window unrolled whole and the loop around it vectorized, so that
 *     the sum stays in a vector register (Halide's stencil schedule);
 *   - on a perfect nest whose innermost loop is strided: nothing, or the
 *     nest reordered so that the loop with unit stride in the most
 *     accesses is innermost (a column sum written j-i), on in the seed.
 *     The nest's other knobs then mark its loops by place (outermost,
 *     innermost), each choice proven in each order (a choice legal in
 *     one order only is left out of the other's candidates).
 * Each step is proven alone (a probe) before it becomes a knob, so a knob
 * is only offered where its step is legal by itself; the engine still
 * proves every candidate whole. The seed turns on every proven reorder and
 * vectorize step (or none, when they are not legal together). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/session_ir.h"
#include "tune/tune.h"

enum { PLACE_PAR, PLACE_INNER, PLACE_WINDOW, PLACE_ORDER };
enum { AS_WRITTEN = 1, REORDERED = 2, BOTH_ORDERS = 3 };
enum { INNER_NONE, INNER_VEC, INNER_UNROLL2, INNER_UNROLL4, INNER_CHOICES };

/* A window's loops run at most WINDOW_TRIPS times each (taps, not a
 * kernel's own small extents), and unrolled whole they are at most
 * WINDOW_MAX copies of their body (a 5x5 window is 25): more only grows
 * the code. */
enum { WINDOW_TRIPS = 8, WINDOW_MAX = 32 };

typedef struct {
  int nplace;
  int place[TUNE_MAX_KNOBS];          /* PLACE_PAR, PLACE_INNER or PLACE_WINDOW */
  const char *loop[TUNE_MAX_KNOBS];   /* the loop each knob marks */
  /* a knob in a nest with a PLACE_ORDER knob (order[i], else -1): the
   * loop at the same place when that knob reorders the nest */
  const char *alt[TUNE_MAX_KNOBS];
  int order[TUNE_MAX_KNOBS];
  /* per choice, the orders it is legal in (AS_WRITTEN, REORDERED): a
   * choice legal in one order only (vectorize of a loop that carries a
   * reduction as written) is left out of candidates in the other */
  unsigned char legal_in[TUNE_MAX_KNOBS][INNER_CHOICES];
  char window[TUNE_MAX_KNOBS][256];   /* PLACE_WINDOW: its loops' unroll steps, innermost first; PLACE_ORDER: the reorder step */
  /* PLACE_INNER: unroll goes through a split (SPLIT_UNROLL: the loop's
   * bounds are not constant, a triangular loop's `j < i`) */
  bool split_unroll[TUNE_MAX_KNOBS];
} LoopKnobs;

/* A loop's steps, as step_legal formats them (%1$s the loop, %2$d the
 * factor). unroll(loop, f) needs constant bounds; a loop without them is
 * split by f instead, its tail guarded, and the inner loop unrolled. */
static const char *const VECTORIZE = "#pragma npu vectorize(%1$s)\n";
static const char *const UNROLL = "#pragma npu unroll(%1$s, %2$d)\n";
static const char *const SPLIT_UNROLL = "#pragma npu split(%1$s, %2$d, %1$s_o, %1$s_u)\n#pragma npu unroll(%1$s_u)\n";
static const char *const PARALLEL = "#pragma npu parallel(%1$s)\n";

/* The loop knob i marks in this candidate. */
static bool reordered(const TuneSketch *sk, const int *ch, int i) {
  const LoopKnobs *f = sk->data;
  int o = f->order[i];
  return o >= 0 && sk->knobs[o].val[ch[o]];
}

static const char *loop_of(const TuneSketch *sk, const int *ch, int i) {
  const LoopKnobs *f = sk->data;
  return reordered(sk, ch, i) ? f->alt[i] : f->loop[i];
}

/* One knob's step for choice c on loop l, appended to sb (nothing for choice 0). */
static void render_step(const LoopKnobs *f, int i, const char *l, long long c, StrBuf *sb) {
  if (f->place[i] == PLACE_ORDER && c) sb_printf(sb, "%s", f->window[i]);
  else if (f->place[i] == PLACE_PAR && c) sb_printf(sb, "#pragma npu parallel(%s)\n", l);
  else if (f->place[i] == PLACE_WINDOW && c) sb_printf(sb, "%s#pragma npu vectorize(%s)\n", f->window[i], l);
  else if (f->place[i] == PLACE_INNER && c == INNER_VEC) sb_printf(sb, "#pragma npu vectorize(%s)\n", l);
  else if (f->place[i] == PLACE_INNER && c > INNER_VEC)
    sb_printf(sb, f->split_unroll[i] ? SPLIT_UNROLL : UNROLL, l, c == INNER_UNROLL2 ? 2 : 4);
}

/* Is loop i's loop parallel in this candidate (a loop both outermost and
 * innermost: parallel wins, its other choice is left out)? */
static bool parallel_here(const TuneSketch *sk, const int *ch, int i) {
  const LoopKnobs *f = sk->data;
  for (int j = 0; j < f->nplace; j++)
    if (f->place[j] == PLACE_PAR && !strcmp(loop_of(sk, ch, j), loop_of(sk, ch, i)) && sk->knobs[j].val[ch[j]])
      return true;
  return false;
}

/* Reorders first (the other steps name the loops at their new places),
 * then unrolls: a loop is unrolled before any mark is set in it. */
static void render(const TuneSketch *sk, const int *ch, StrBuf *sb) {
  const LoopKnobs *f = sk->data;
  for (int pass = 0; pass < 3; pass++)
    for (int i = 0; i < f->nplace; i++) {
      long long c = sk->knobs[i].val[ch[i]];
      bool unroll = (f->place[i] == PLACE_INNER && c > INNER_VEC) || f->place[i] == PLACE_WINDOW;
      int my_pass = f->place[i] == PLACE_ORDER ? 0 : unroll ? 1 : 2;
      if (f->place[i] != PLACE_PAR && f->place[i] != PLACE_ORDER && parallel_here(sk, ch, i)) continue;
      if (!(f->legal_in[i][ch[i]] & (reordered(sk, ch, i) ? REORDERED : AS_WRITTEN))) continue;
      if (my_pass == pass) render_step(f, i, loop_of(sk, ch, i), c, sb);
    }
}

static bool has_loop(const Stmt *s) {
  for (; s; s = s->next) {
    if (s->kind == ST_FOR) return true;
    if (s->kind == ST_BLOCK && has_loop(s->body)) return true;
    if (s->kind == ST_IF && (has_loop(s->then_s) || has_loop(s->else_s))) return true;
  }
  return false;
}

typedef struct {
  TuneSpace *sp;
  LoopKnobs *f;
  long long vals[TUNE_MAX_KNOBS][INNER_CHOICES];
  int nvals[TUNE_MAX_KNOBS];
  /* in a nest with a reorder knob: its index, and where it moves the
   * loop the knob being found marks (else order -1) */
  int order;
  const char *alt;
} Finder;

/* The orders the one step is legal in: on the kernel as written, and (in
 * a nest with a reorder knob) after the reorder on the loop at the same
 * place. Outside such a nest: BOTH_ORDERS or 0. why (when not NULL): the
 * refusal as written. */
static int step_legal_why(const Finder *fd, const char *fmt, const char *loop, int arg, char *why, size_t size) {
  char step[600];
  snprintf(step, sizeof step, fmt, loop, arg);
  int in = tune_probe_why(fd->sp, step, why, size) ? AS_WRITTEN : 0;
  if (fd->order < 0) return in ? BOTH_ORDERS : 0;
  int n = snprintf(step, sizeof step, "%s", fd->f->window[fd->order]);
  snprintf(step + n, sizeof step - n, fmt, fd->alt, arg);
  return in | (tune_probe_steps(fd->sp, step, NULL) ? REORDERED : 0);
}

static int step_legal(const Finder *fd, const char *fmt, const char *loop, int arg) {
  return step_legal_why(fd, fmt, loop, arg, NULL, 0);
}

/* Offers choice v of knob i where it is legal in some order. */
static void offer(Finder *fd, int i, long long v, int legal_in) {
  if (!legal_in) return;
  fd->f->legal_in[i][fd->nvals[i]] = (unsigned char)legal_in;
  fd->vals[i][fd->nvals[i]++] = v;
}

/* Are all the loops in list (at any depth) of a few constant trips, the
 * list unrolled whole at most WINDOW_MAX statements? Their unroll steps,
 * innermost first, are appended to steps. *count: the statements. */
static bool window_loops(const Stmt *list, int64_t *count, char *steps, size_t n) {
  int64_t total = 0;
  for (const Stmt *s = list; s; s = s->next) {
    int64_t trips, inner = 1;
    if (s->kind == ST_IF || (s->kind == ST_BLOCK && !window_loops(s->body, &inner, steps, n))) return false;
    if (s->kind == ST_FOR) {
      if (!ir_trip_count(s, &trips) || trips > WINDOW_TRIPS || !window_loops(s->body, &inner, steps, n)) return false;
      inner *= trips;
      size_t len = strlen(steps);
      snprintf(steps + len, n - len, "#pragma npu unroll(%s)\n", s->name);
    }
    total += inner;
    if (total > WINDOW_MAX) return false;
  }
  *count = total;
  return strlen(steps) + 1 < n;
}

/* Loop s holds a window: its loops unrolled whole and s vectorized,
 * proven together on the kernel as written. */
static bool add_window(Finder *fd, const Stmt *s) {
  LoopKnobs *f = fd->f;
  int64_t count;
  if (f->nplace == TUNE_MAX_KNOBS) return false;
  char *steps = f->window[f->nplace];
  steps[0] = 0;
  if (!window_loops(s->body, &count, steps, sizeof f->window[0])) return false;
  char all[400];
  snprintf(all, sizeof all, "%s#pragma npu vectorize(%s)\n", steps, s->name);
  if (!tune_probe_steps(fd->sp, all, NULL)) return false;
  int i = f->nplace++;
  f->place[i] = PLACE_WINDOW;
  f->loop[i] = s->name;
  f->order[i] = -1;
  fd->nvals[i] = 0;
  offer(fd, i, 0, BOTH_ORDERS);
  offer(fd, i, 1, BOTH_ORDERS);
  return true;
}

/* An innermost loop's choices: vectorize, unroll by 2 or 4 (through a
 * split with a tail guard where unroll is refused: bounds that are not
 * constant); a line in the notes for each step refused, naming the loop. */
static void add_inner(Finder *fd, int i, const Stmt *s) {
  LoopKnobs *f = fd->f;
  char vec[400] = "", unroll[400] = "", name[160];
  offer(fd, i, INNER_VEC, step_legal_why(fd, VECTORIZE, s->name, 0, vec, sizeof vec));
  int by2 = step_legal_why(fd, UNROLL, s->name, 2, unroll, sizeof unroll);
  f->split_unroll[i] = !by2 && (by2 = step_legal(fd, SPLIT_UNROLL, s->name, 2));
  offer(fd, i, INNER_UNROLL2, by2);
  offer(fd, i, INNER_UNROLL4, step_legal(fd, f->split_unroll[i] ? SPLIT_UNROLL : UNROLL, s->name, 4));
  if (!*vec && !*unroll) return;
  tune_stmt_name(s, name, sizeof name);
  if (*vec && *unroll)
    tune_note(fd->sp, "host:loops: %s: vectorize refused (%s); unroll refused (%s)%s\n", name, vec, unroll,
              f->split_unroll[i] ? ": split with a tail guard and unrolled instead" : "");
  else if (*vec) tune_note(fd->sp, "host:loops: %s: vectorize refused (%s)\n", name, vec);
  else
    tune_note(fd->sp, "host:loops: %s: unroll refused (%s)%s\n", name, unroll,
              f->split_unroll[i] ? ": split with a tail guard and unrolled instead" : "");
}

static void add_knob(Finder *fd, int place, const Stmt *s) {
  LoopKnobs *f = fd->f;
  if (f->nplace == TUNE_MAX_KNOBS) return;
  int i = f->nplace;
  f->place[i] = place;
  f->loop[i] = s->name;
  f->order[i] = fd->order;
  f->alt[i] = fd->alt;
  f->split_unroll[i] = false;
  fd->nvals[i] = 0;
  offer(fd, i, 0, BOTH_ORDERS);
  if (place == PLACE_PAR) offer(fd, i, 1, BOTH_ORDERS); /* the caller proved it in both */
  else add_inner(fd, i, s);
  if (fd->nvals[i] > 1) f->nplace++;
}

static const Expr *uncast(const Expr *e) {
  while (e && e->kind == EX_CAST) e = e->a;
  return e;
}

/* Does index e step by one element as v steps (v, v + c, c + v, v - c)? */
static bool unit_in(const Expr *e, const Var *v) {
  e = uncast(e);
  if (e->kind == EX_VAR) return e->var == v;
  if (e->kind != EX_BINARY || (e->op != OP_ADD && e->op != OP_SUB)) return false;
  const Expr *a = uncast(e->a), *b = uncast(e->b);
  if (a->kind == EX_VAR && a->var == v) return !ir_expr_uses(e->b, v, NULL);
  return e->op == OP_ADD && b->kind == EX_VAR && b->var == v && !ir_expr_uses(e->a, v, NULL);
}

typedef struct {
  const Var *v;
  int n;
} UnitCount;

static bool count_if_unit(const Expr *e, void *ctx) {
  UnitCount *u = ctx;
  if (e->kind == EX_LOAD && e->buf->ndim > 0 && unit_in(e->idx[e->buf->ndim - 1], u->v)) u->n++;
  return true;
}

/* The array accesses in e (in its indices and a call's arguments too)
 * with unit stride in v, added to *n. */
static void count_unit(const Expr *e, const Var *v, int *n) {
  UnitCount u = {v, 0};
  ir_walk_expr(e, count_if_unit, &u);
  *n += u.n;
}

static void count_unit_stmts(const Stmt *s, const Var *v, int *n) {
  for (; s; s = s->next) {
    if (s->kind == ST_ASSIGN) {
      count_unit(s->lhs, v, n);
      count_unit(s->rhs, v, n);
    }
    if (s->kind == ST_DECL) count_unit(s->init, v, n);
    if (s->kind == ST_IF) {
      count_unit(s->cond, v, n);
      count_unit_stmts(s->then_s, v, n);
      count_unit_stmts(s->else_s, v, n);
    }
    if (s->kind == ST_BLOCK) count_unit_stmts(s->body, v, n);
  }
}

enum { NEST_MAX = 8 };

/* s heads a perfect nest (each loop's body one loop, the innermost's no
 * loop) whose innermost loop has unit stride in fewer accesses than
 * another of its loops: a reorder knob that moves that loop innermost,
 * when the reorder is legal, and the nest's parallel and innermost knobs
 * by place. False (nothing added) otherwise. */
static bool add_order(Finder *fd, const Stmt *s, bool par) {
  const Stmt *nest[NEST_MAX];
  int n = 0;
  for (const Stmt *c = s;; c = c->body->body) {
    if (n == NEST_MAX) return false;
    nest[n++] = c;
    const Stmt *b = c->body->body;
    if (!has_loop(b)) break;
    if (b->next || b->kind != ST_FOR) return false;
  }
  if (n < 2) return false;
  int units[NEST_MAX], best = n - 1;
  for (int k = 0; k < n; k++) {
    units[k] = 0;
    count_unit_stmts(nest[n - 1]->body->body, nest[k]->var, &units[k]);
  }
  for (int k = 0; k < n; k++)
    if (units[k] > units[best]) best = k;
  if (best == n - 1) return false;
  const Stmt *moved[NEST_MAX];
  for (int k = 0, m = 0; k < n; k++)
    if (k != best) moved[m++] = nest[k];
  moved[n - 1] = nest[best];
  LoopKnobs *f = fd->f;
  if (f->nplace == TUNE_MAX_KNOBS) return false;
  int o = f->nplace;
  char *step = f->window[o];
  int len = snprintf(step, sizeof f->window[0], "#pragma npu reorder(");
  for (int k = 0; k < n; k++)
    len += snprintf(step + len, sizeof f->window[0] - len, "%s%s", k ? ", " : "", moved[k]->name);
  snprintf(step + len, sizeof f->window[0] - len, ")\n");
  if (!tune_probe_steps(fd->sp, step, NULL)) return false;
  f->nplace++;
  f->place[o] = PLACE_ORDER;
  f->loop[o] = s->name;
  f->order[o] = -1;
  fd->nvals[o] = 0;
  offer(fd, o, 0, BOTH_ORDERS);
  offer(fd, o, 1, BOTH_ORDERS);
  /* find()'s walk of one perfect nest, each place proven in both orders */
  fd->order = o;
  for (int k = 0; k < n; k++) {
    fd->alt = moved[k]->name;
    bool here = par && step_legal(fd, PARALLEL, nest[k]->name, 0) == BOTH_ORDERS;
    if (here) add_knob(fd, PLACE_PAR, nest[k]);
    if (k == n - 1) add_knob(fd, PLACE_INNER, nest[k]);
    par = par && !here;
  }
  fd->order = -1;
  fd->alt = NULL;
  return true;
}

static int parallel_knobs(const LoopKnobs *f) {
  int n = 0;
  for (int i = 0; i < f->nplace; i++) n += f->place[i] == PLACE_PAR;
  return n;
}

/* The loops of list: parallel where a nest first can be (par: no loop
 * around is parallel yet), the innermost loops' choices. A nest at the
 * top (top) none of whose loops can run in parallel is named in the
 * notes, with the refusal of its outermost loop. */
static void find(Finder *fd, const Stmt *list, bool par, bool top) {
  for (const Stmt *s = list; s; s = s->next) {
    if (s->kind == ST_BLOCK) find(fd, s->body, par, top);
    if (s->kind == ST_IF) {
      find(fd, s->then_s, par, false);
      find(fd, s->else_s, par, false);
    }
    if (s->kind != ST_FOR) continue;
    if (add_order(fd, s, par)) continue;
    bool inner = !has_loop(s->body);
    char why[400] = "", name[160];
    int before = parallel_knobs(fd->f);
    bool here = par && step_legal_why(fd, PARALLEL, s->name, 0, why, sizeof why) != 0;
    if (here) add_knob(fd, PLACE_PAR, s);
    if (inner) add_knob(fd, PLACE_INNER, s);
    else if (!add_window(fd, s)) find(fd, s->body, par && !here, false);
    if (top && par && !here && parallel_knobs(fd->f) == before) {
      tune_stmt_name(s, name, sizeof name);
      tune_note(fd->sp, "host:loops: %s runs serially: parallel refused (%s)%s\n", name, why,
                inner ? "" : ", and in every loop it holds");
    }
  }
}

void tune_sketch_loops(TuneSpace *sp, const Kernel *k) {
  if (sp->nsketch == TUNE_MAX_SKETCHES) return;
  if (!has_loop(k->body)) {
    tune_note(sp, "host:loops: kernel '%s' has no loop: there is nothing to schedule\n", k->name);
    return;
  }
  LoopKnobs *f = calloc(1, sizeof *f);
  Finder fd = {.sp = sp, .f = f, .order = -1};
  find(&fd, k->body, true, true);
  TuneSketch *sk = &sp->sketch[sp->nsketch];
  memset(sk, 0, sizeof *sk);
  snprintf(sk->name, sizeof sk->name, "host:loops");
  for (int i = 0; i < f->nplace; i++) {
    char name[32];
    static const char *const prefix[] = {"par", "in", "win", "ord"};
    snprintf(name, sizeof name, "%s_%.24s", prefix[f->place[i]], f->loop[i]);
    /* the seed: reorder strided nests, vectorize where it is legal (windows unrolled); serial (two threads pay
     * only on nests larger than most kernels' own: the search tries them) */
    int seed = (f->place[i] == PLACE_INNER && fd.vals[i][1] == INNER_VEC) || f->place[i] == PLACE_WINDOW ||
                       f->place[i] == PLACE_ORDER
                   ? 1
                   : 0;
    tune_knob(sk, i, name, fd.vals[i], fd.nvals[i], seed);
  }
  sk->nknobs = f->nplace;
  sk->render = render;
  sk->estimate = NULL; /* no model of the CPU: every candidate is timed */
  sk->data = f;
  int seed[TUNE_MAX_KNOBS];
  for (int i = 0; i < sk->nknobs; i++) seed[i] = sk->knobs[i].seed;
  StrBuf sb;
  sb_init(&sb);
  render(sk, seed, &sb);
  if (sb.len && !tune_probe_steps(sp, sb.data, NULL)) /* legal alone, not together: the kernel's own loops */
    for (int i = 0; i < sk->nknobs; i++) sk->knobs[i].seed = 0;
  sb_free(&sb);
  sp->nsketch++;
}

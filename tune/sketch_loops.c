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
 *     the sum stays in a vector register (Halide's stencil schedule).
 * Each step is proven alone (a probe) before it becomes a knob, so a knob
 * is only offered where its step is legal by itself; the engine still
 * proves every candidate whole. The seed turns on every proven vectorize
 * step (or none, when they are not legal together). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/session_ir.h"
#include "tune/tune.h"

enum { PLACE_PAR, PLACE_INNER, PLACE_WINDOW };
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
  char window[TUNE_MAX_KNOBS][256];   /* PLACE_WINDOW: its loops' unroll steps, innermost first */
} LoopKnobs;

/* One knob's step for choice c, appended to sb (nothing for choice 0). */
static void render_step(const LoopKnobs *f, int i, long long c, StrBuf *sb) {
  if (f->place[i] == PLACE_PAR && c) sb_printf(sb, "#pragma npu parallel(%s)\n", f->loop[i]);
  else if (f->place[i] == PLACE_WINDOW && c) sb_printf(sb, "%s#pragma npu vectorize(%s)\n", f->window[i], f->loop[i]);
  else if (f->place[i] == PLACE_INNER && c == INNER_VEC) sb_printf(sb, "#pragma npu vectorize(%s)\n", f->loop[i]);
  else if (f->place[i] == PLACE_INNER && c > INNER_VEC)
    sb_printf(sb, "#pragma npu unroll(%s, %d)\n", f->loop[i], c == INNER_UNROLL2 ? 2 : 4);
}

/* Is loop i's loop parallel in this candidate (a loop both outermost and
 * innermost: parallel wins, its other choice is left out)? */
static bool parallel_here(const TuneSketch *sk, const int *ch, int i) {
  const LoopKnobs *f = sk->data;
  for (int j = 0; j < f->nplace; j++)
    if (f->place[j] == PLACE_PAR && !strcmp(f->loop[j], f->loop[i]) && sk->knobs[j].val[ch[j]]) return true;
  return false;
}

/* Unrolls first: a loop is unrolled before any mark is set in it. */
static void render(const TuneSketch *sk, const int *ch, StrBuf *sb) {
  const LoopKnobs *f = sk->data;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < f->nplace; i++) {
      long long c = sk->knobs[i].val[ch[i]];
      bool unroll = (f->place[i] == PLACE_INNER && c > INNER_VEC) || f->place[i] == PLACE_WINDOW;
      if (f->place[i] != PLACE_PAR && parallel_here(sk, ch, i)) continue;
      if (unroll == (pass == 0)) render_step(f, i, c, sb);
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
} Finder;

/* Is the one step legal on the kernel as written? */
static bool step_legal(TuneSpace *sp, const char *fmt, const char *loop, int arg) {
  char step[200];
  snprintf(step, sizeof step, fmt, loop, arg);
  return tune_probe_steps(sp, step, NULL) != NULL;
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
  fd->nvals[i] = 2;
  fd->vals[i][0] = 0;
  fd->vals[i][1] = 1;
  return true;
}

static void add_knob(Finder *fd, int place, const char *loop) {
  LoopKnobs *f = fd->f;
  if (f->nplace == TUNE_MAX_KNOBS) return;
  int i = f->nplace;
  f->place[i] = place;
  f->loop[i] = loop;
  fd->nvals[i] = 0;
  fd->vals[i][fd->nvals[i]++] = 0;
  if (place == PLACE_PAR) fd->vals[i][fd->nvals[i]++] = 1;
  else {
    if (step_legal(fd->sp, "#pragma npu vectorize(%s)\n", loop, 0)) fd->vals[i][fd->nvals[i]++] = INNER_VEC;
    if (step_legal(fd->sp, "#pragma npu unroll(%s, %d)\n", loop, 2)) fd->vals[i][fd->nvals[i]++] = INNER_UNROLL2;
    if (step_legal(fd->sp, "#pragma npu unroll(%s, %d)\n", loop, 4)) fd->vals[i][fd->nvals[i]++] = INNER_UNROLL4;
  }
  if (fd->nvals[i] > 1) f->nplace++;
}

/* The loops of list: parallel where a nest first can be (par: no loop
 * around is parallel yet), the innermost loops' choices. */
static void find(Finder *fd, const Stmt *list, bool par) {
  for (const Stmt *s = list; s; s = s->next) {
    if (s->kind == ST_BLOCK) find(fd, s->body, par);
    if (s->kind == ST_IF) {
      find(fd, s->then_s, par);
      find(fd, s->else_s, par);
    }
    if (s->kind != ST_FOR) continue;
    bool inner = !has_loop(s->body);
    bool here = par && step_legal(fd->sp, "#pragma npu parallel(%s)\n", s->name, 0);
    if (here) add_knob(fd, PLACE_PAR, s->name);
    if (inner) add_knob(fd, PLACE_INNER, s->name);
    else if (!add_window(fd, s)) find(fd, s->body, par && !here);
  }
}

void tune_sketch_loops(TuneSpace *sp, const Kernel *k) {
  if (sp->nsketch == TUNE_MAX_SKETCHES) return;
  if (!has_loop(k->body)) {
    tune_note(sp, "host:loops: kernel '%s' has no loop: there is nothing to schedule\n", k->name);
    return;
  }
  LoopKnobs *f = calloc(1, sizeof *f);
  Finder fd = {.sp = sp, .f = f};
  find(&fd, k->body, true);
  TuneSketch *sk = &sp->sketch[sp->nsketch];
  memset(sk, 0, sizeof *sk);
  snprintf(sk->name, sizeof sk->name, "host:loops");
  for (int i = 0; i < f->nplace; i++) {
    char name[32];
    static const char *const prefix[] = {"par", "in", "win"};
    snprintf(name, sizeof name, "%s_%.24s", prefix[f->place[i]], f->loop[i]);
    /* the seed: vectorize where it is legal (windows unrolled); serial (two threads pay
     * only on nests larger than most kernels' own: the search tries them) */
    int seed = (f->place[i] == PLACE_INNER && fd.vals[i][1] == INNER_VEC) || f->place[i] == PLACE_WINDOW ? 1 : 0;
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

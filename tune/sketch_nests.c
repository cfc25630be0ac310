/* A kernel of several top-level loop nests (2mm, atax, mvt, a softmax
 * written as nests): each nest is given the NPU sketches as if it were a
 * kernel of its own, on a space of that nest alone (its loops, the arrays
 * it touches): the NU's, and the VU's where the NU takes none (their
 * probes are most of the space's cost: 2.3 of 2.7 s CPU for two 32^3
 * matmuls); the sketch of least seed estimate is each nest's part, and
 * one sketch joins the parts: its knobs are the parts' knobs (named after
 * the nest's outer loop, `i_1.ti`), its steps each part's in turn, so
 * one candidate schedules every nest that a sketch takes, and a nest none
 * takes stays as written (on the CU). Every step is proven on the whole
 * kernel, in the same session, so a part that is legal alone but not
 * beside the others (two parts that stage one array under one name) is
 * refused with the engine's reason; then each part is a sketch of its own,
 * the other nests as written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/session_ir.h"
#include "tune/tune.h"

enum { NESTS_MAX = 8 };

/* The joined sketch's facts: each part (the data is owned here), and
 * where each joined knob comes from. */
typedef struct {
  int n;
  TuneSketch part[NESTS_MAX];
  int owner[TUNE_MAX_KNOBS], knob[TUNE_MAX_KNOBS]; /* joined knob -> part, its knob */
  int nknobs;
} NestsFacts;

/* Part p's choice of each knob: the joined choice where it has a knob,
 * else its seed. */
static void part_choice(const NestsFacts *f, int p, const int *choice, int *out) {
  const TuneSketch *sk = &f->part[p];
  for (int k = 0; k < sk->nknobs; k++) out[k] = sk->knobs[k].seed;
  for (int k = 0; k < f->nknobs; k++)
    if (f->owner[k] == p) out[f->knob[k]] = choice[k];
}

static void render(const TuneSketch *sk, const int *choice, StrBuf *sb) {
  const NestsFacts *f = sk->data;
  for (int p = 0; p < f->n; p++) {
    int ch[TUNE_MAX_KNOBS];
    part_choice(f, p, choice, ch);
    f->part[p].render(&f->part[p], ch, sb);
  }
}

/* The nests run one after the other, each at least its own bound: the
 * largest part's estimate is a bound on the whole (UINT64_MAX: a part
 * cannot run). */
static uint64_t estimate(const TuneSketch *sk, const int *choice, const NpuTarget *t) {
  const NestsFacts *f = sk->data;
  uint64_t most = 0;
  for (int p = 0; p < f->n; p++) {
    int ch[TUNE_MAX_KNOBS];
    part_choice(f, p, choice, ch);
    uint64_t e = f->part[p].estimate ? f->part[p].estimate(&f->part[p], ch, t) : 0;
    if (e == UINT64_MAX) return UINT64_MAX;
    if (e > most) most = e;
  }
  return most;
}

static void free_part(TuneSketch *sk) {
  if (sk->free_data) sk->free_data(sk->data);
  else free(sk->data);
}

static void free_facts(void *data) {
  NestsFacts *f = data;
  for (int p = 0; p < f->n; p++) free_part(&f->part[p]);
  free(f);
}

/* The top-level loops of k's body (at most NESTS_MAX; more: 0). */
static int top_nests(const Kernel *k, const Stmt **nest) {
  int n = 0;
  for (const Stmt *c = k->body && k->body->kind == ST_BLOCK ? k->body->body : k->body; c; c = c->next)
    if (c->kind == ST_FOR) {
      if (n == NESTS_MAX) return 0;
      nest[n++] = c;
    }
  return n;
}

typedef struct {
  const char *name;
  bool used;
} Uses;

static bool use_visit(const Expr *e, void *ctx) {
  Uses *u = ctx;
  if (e->kind == EX_LOAD && e->buf && !strcmp(e->buf->name, u->name)) u->used = true;
  return !u->used;
}

static bool uses_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Uses *u = ctx;
  const Expr *e[] = {st->lhs, st->rhs, st->cond, st->lo, st->hi, st->init};
  for (size_t i = 0; i < sizeof e / sizeof *e && !u->used; i++)
    if (e[i]) ir_walk_expr(e[i], use_visit, u);
  return !u->used;
}

/* The shape of nest alone: the kernel with the nest as its only
 * statement (after the body's declarations), its arrays those the nest
 * reads or writes. */
static void nest_shape(Arena *a, const Kernel *k, const Stmt *nest, TuneShape *sh) {
  Kernel one = *k;
  Stmt *block = ARENA_NEW(a, Stmt), **tail = &block->body;
  *block = *k->body;
  block->body = NULL;
  for (const Stmt *c = k->body->body; c; c = c->next)
    if (c->kind == ST_DECL || c == nest) {
      Stmt *copy = ARENA_NEW(a, Stmt);
      *copy = *c;
      copy->next = NULL;
      *tail = copy;
      tail = &copy->next;
    }
  one.body = block;
  tune_shape(&one, sh);
  int kept = 0;
  for (int i = 0; i < sh->narr; i++) {
    Uses u = {sh->arr[i].name, false};
    ir_walk_one(nest, uses_visit, &u);
    if (u.used) sh->arr[kept++] = sh->arr[i];
  }
  sh->narr = kept;
}

static bool narrow_write(Stmt *st, int depth, void *ctx) {
  (void)depth;
  bool *narrow = ctx;
  if (st->kind == ST_ASSIGN && st->lhs->kind == EX_LOAD && st->lhs->buf && st->lhs->buf->elem->size < 8) *narrow = true;
  return !*narrow;
}

/* Does the nest write an array of elements narrower than 8 bytes? No NU
 * or VU op computes a double or an int64 (npu_intrinsics/), so a nest
 * that writes only those is not probed: for PolyBench's double kernels
 * the probes cost seconds and could find nothing. */
static bool writes_narrow(const Stmt *nest) {
  bool narrow = false;
  ir_walk_one(nest, narrow_write, &narrow);
  return narrow;
}

/* The NPU sketches of nest alone, on a space that shares sp's session,
 * probes, memo and arena (the parts keep pointers into its shape, so it
 * lives in the arena): the one of least seed estimate into *part (false:
 * none applies; why: the nest's first note). */
static bool nest_part(TuneSpace *sp, const Kernel *k, const Stmt *nest, TuneSketch *part, char *why, size_t n) {
  if (!writes_narrow(nest)) {
    snprintf(why, n, "it writes only 8-byte elements (double, int64), which no NU or VU op computes");
    return false;
  }
  TuneSpace *sub = ARENA_NEW(&sp->arena, TuneSpace);
  *sub = *sp;
  sub->nsketch = 0;
  sub->notes[0] = 0;
  nest_shape(&sub->arena, k, nest, &sub->shape);
  tune_sketch_nu(sub);
  tune_sketch_conv(sub);
  if (!sub->nsketch) tune_sketch_vu(sub); /* a nest the NU takes is the NU's: the probes of the VU's cost seconds */
  /* what the sub-space shares goes back */
  sp->arena = sub->arena;
  sp->memo = sub->memo;
  sp->nmemo = sub->nmemo;
  sp->capmemo = sub->capmemo;
  sp->probes = sub->probes;
  int best = -1;
  uint64_t best_est = UINT64_MAX;
  for (int i = 0; i < sub->nsketch; i++) {
    const TuneSketch *sk = &sub->sketch[i];
    int ch[TUNE_MAX_KNOBS];
    for (int c = 0; c < sk->nknobs; c++) ch[c] = sk->knobs[c].seed;
    uint64_t e = sk->estimate ? sk->estimate(sk, ch, session_target(sp->s)) : 0;
    if (best < 0 || (e && e < best_est)) best = i, best_est = e ? e : best_est;
  }
  for (int i = 0; i < sub->nsketch; i++)
    if (i == best) *part = sub->sketch[i];
    else free_part(&sub->sketch[i]);
  const char *first = sub->notes[0] ? sub->notes + 2 : "no NPU sketch applies\n";
  snprintf(why, n, "%.*s", (int)strcspn(first, "\n"), first);
  return best >= 0;
}

/* The joined sketch of parts[0..n) (their data now its), with a name
 * after each part's nest; false when its knobs do not fit (then nothing
 * is owned). */
static bool join(TuneSketch *sk, const TuneSketch *parts, const Stmt *const *nests, int n) {
  NestsFacts *f = calloc(1, sizeof *f);
  memset(sk, 0, sizeof *sk);
  size_t len = (size_t)snprintf(sk->name, sizeof sk->name, "nests:");
  for (int p = 0; p < n; p++) {
    f->part[f->n++] = parts[p];
    if (len < sizeof sk->name)
      len += (size_t)snprintf(sk->name + len, sizeof sk->name - len, "%s%s=%s", p ? "," : "", nests[p]->name,
                              parts[p].name);
    for (int k = 0; k < parts[p].nknobs; k++) {
      const TuneKnob *kn = &parts[p].knobs[k];
      if (kn->n < 2) continue; /* no choice: its seed */
      if (f->nknobs == TUNE_MAX_KNOBS) {
        free(f);
        return false;
      }
      char name[64];
      snprintf(name, sizeof name, "%s.%s", nests[p]->name, kn->name);
      tune_knob(sk, f->nknobs, name, kn->val, kn->n, kn->seed);
      f->owner[f->nknobs] = p;
      f->knob[f->nknobs++] = k;
    }
  }
  sk->nknobs = f->nknobs;
  sk->render = render;
  sk->estimate = estimate;
  sk->data = f;
  sk->free_data = free_facts;
  return true;
}

/* sp->sketch[sp->nsketch], joined from parts: kept when its seed's steps
 * are legal (true), else freed but for the parts' data, and the refusal
 * noted. */
static bool add_joined(TuneSpace *sp, const TuneSketch *parts, const Stmt *const *nests, int n) {
  if (sp->nsketch == TUNE_MAX_SKETCHES) return false;
  TuneSketch *sk = &sp->sketch[sp->nsketch];
  if (!join(sk, parts, nests, n)) {
    tune_note(sp, "nests: the nests' knobs are more than the %d a sketch has\n", TUNE_MAX_KNOBS);
    return false;
  }
  int seed[TUNE_MAX_KNOBS];
  for (int k = 0; k < sk->nknobs; k++) seed[k] = sk->knobs[k].seed;
  if (tune_probe(sp, sp->nsketch, seed)) {
    sp->nsketch++;
    return true;
  }
  free(sk->data); /* the parts' data stays theirs */
  memset(sk, 0, sizeof *sk);
  return false;
}

void tune_sketch_nests(TuneSpace *sp, const Kernel *k) {
  const Stmt *nest[NESTS_MAX], *taken[NESTS_MAX];
  TuneSketch part[NESTS_MAX];
  int n = top_nests(k, nest), nparts = 0;
  if (n < 2) return;
  for (int i = 0; i < n; i++) {
    char why[600], at[160];
    tune_stmt_name(nest[i], at, sizeof at);
    if (nest_part(sp, k, nest[i], &part[nparts], why, sizeof why)) {
      taken[nparts++] = nest[i];
      tune_note(sp, "nests: %s gets %s\n", at, part[nparts - 1].name);
    } else
      tune_note(sp, "nests: %s stays as written (on the CU): %s\n", at, why);
  }
  if (!nparts || add_joined(sp, part, taken, nparts)) return;
  /* together refused: each part alone, the other nests as written */
  for (int p = 0; p < nparts; p++)
    if (nparts == 1 || !add_joined(sp, &part[p], &taken[p], 1)) free_part(&part[p]);
}

/* The VU sketches on a nest whose innermost loop computes a local, then
 * reassigns it through temporaries and stores it, as TFLite's reference
 * kernels end an element-wise op (the residual add):
 *
 *     for p, c { int32_t acc = a[p][c] + b[p][c];
 *                int64_t ab = ..; int32_t high = ..; int32_t mask = ..;
 *                acc = requantised; acc += offset; acc = max(..); acc = min(..);
 *                y[p][c] = (int8_t)acc; }
 *
 * The kernel's array form (tune/space.c) expands every temporary into an
 * array of its own, each step then a stage that no VU instruction
 * computes (the requantisation's int64 product): it stays on the CU.
 * Here instead the temporaries are inlined (compute_inline) and the
 * chain folded into the store (fold), as the NU epilogue sketch does: the
 * store is then one tree a VU instruction covers (npu_vu_requant_q31_i8);
 * the local becomes an array (expand) and the loop is cut after it
 * (fission). The VU sketches (tune/sketch_vu.c) then run on the kernel
 * after those steps, which every candidate starts with (sp->prefix).
 * Each step is kept where the engine accepts it. */
#include <stdio.h>
#include <string.h>

#include "jit/session_ir.h"
#include "tune/tune.h"

/* Appends `#pragma npu <step>` to sp->prefix when the engine accepts the
 * steps so far with it: the kernel after them, else NULL (and the prefix
 * as it was). */
static const Kernel *try_step(TuneSpace *sp, const char *fmt, const char *a, const char *b) {
  size_t len = strlen(sp->prefix);
  char step[300];
  snprintf(step, sizeof step, fmt, a, b);
  int n = snprintf(sp->prefix + len, sizeof sp->prefix - len, "#pragma npu %s\n", step);
  const Kernel *k = n > 0 && len + (size_t)n < sizeof sp->prefix ? tune_probe_steps(sp, "", NULL) : NULL;
  if (!k) sp->prefix[len] = 0;
  return k;
}

static const Stmt *loop_body(const Stmt *loop) {
  return loop->body && loop->body->kind == ST_BLOCK ? loop->body->body : loop->body;
}

/* The local the innermost loop starts with, when temporaries or
 * reassignments of it follow before its last statement: else NULL. */
static const Stmt *folded_local(const Stmt *v) {
  const Stmt *d = loop_body(v);
  if (!d || d->kind != ST_DECL || !d->var || d->buf || !d->init || !d->next) return NULL;
  int steps = 0;
  for (const Stmt *c = d->next; c && c->next; c = c->next) {
    bool temp = c->kind == ST_DECL && c->var && !c->buf && c->init;
    bool reassign = c->kind == ST_ASSIGN && c->lhs->kind == EX_VAR && c->lhs->var == d->var;
    if (!temp && !reassign) return NULL;
    steps++;
  }
  return steps ? d : NULL;
}

/* The fold's steps: compute_inline of each temporary, fold of the
 * chain's first reassignment, expand of the local, fission after it. */
static void render_fold(const Stmt *v, const Stmt *d, StrBuf *sb) {
  const Stmt *first = NULL;
  for (const Stmt *c = d->next; c; c = c->next) {
    if (c->kind == ST_DECL) sb_printf(sb, "#pragma npu compute_inline(%s)\n", c->name);
    else if (!first && c->kind == ST_ASSIGN && c->lhs->kind == EX_VAR && c->lhs->var == d->var) first = c;
  }
  if (first) sb_printf(sb, "#pragma npu fold(%s)\n", first->name);
  sb_printf(sb, "#pragma npu expand(%s)\n#pragma npu fission(%s, %s)\n", d->var->name, v->name, d->name);
}

/* The fold's steps into sp->prefix, all of them at once (each probe
 * proves every step before it again), else each kept where the engine
 * accepts it; the kernel after them, or NULL when the local does not
 * become an array. */
static const Kernel *fold_steps(TuneSpace *sp, const Stmt *v, const Stmt *d) {
  StrBuf sb;
  sb_init(&sb);
  render_fold(v, d, &sb);
  const Kernel *all = sb.len < sizeof sp->prefix ? tune_probe_steps(sp, sb.data, NULL) : NULL;
  if (all) snprintf(sp->prefix, sizeof sp->prefix, "%s", sb.data);
  sb_free(&sb);
  if (all) return all;
  const Stmt *first = NULL;
  for (const Stmt *c = d->next; c; c = c->next) {
    if (c->kind == ST_DECL) try_step(sp, "compute_inline(%s)", c->name, "");
    else if (!first && c->kind == ST_ASSIGN && c->lhs->kind == EX_VAR && c->lhs->var == d->var) first = c;
  }
  if (first) try_step(sp, "fold(%s)", first->name, "");
  const Kernel *k = try_step(sp, "expand(%s)", d->var->name, "");
  if (!k) return NULL;
  return try_step(sp, "fission(%s, %s)", v->name, d->name);
}

void tune_sketch_vu_fold(TuneSpace *sp) {
  const TuneShape *sh = &sp->shape;
  const Module *m = session_module(sp->s);
  const Kernel *k = m ? module_kernel(m, sp->kernel) : NULL;
  if (!k || k->nsizes || sp->prefix[0] || sp->nsketch || !sh->nchain) return;
  const Stmt *v = sh->chain[sh->nchain - 1], *d = folded_local(v);
  if (!d) return;
  const Kernel *folded = fold_steps(sp, v, d);
  TuneShape as_written = sp->shape;
  if (folded && tune_shape(folded, &sp->shape)) {
    tune_note(sp, "after the local's chain folded into the store (%s), again:\n", d->var->name);
    tune_sketch_vu(sp);
  }
  if (sp->nsketch) return;
  sp->prefix[0] = 0;
  sp->shape = as_written;
}

/* The search space of one kernel: the sketches that apply to its shape,
 * and a candidate's schedule text. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/sizes.h"
#include "jit/session_ir.h"
#include "tune/tune.h"

static void npu_sketches(TuneSpace *sp) {
  tune_sketch_nu(sp);
  tune_sketch_conv(sp);
  tune_sketch_vu(sp);
}

typedef struct {
  const Stmt *decl[32];
  int n;
} ScalarLocals;

static bool scalar_local(Stmt *st, int depth, void *ctx) {
  (void)depth;
  ScalarLocals *l = ctx;
  if (st->kind == ST_DECL && st->var && !st->buf && l->n < 32) l->decl[l->n++] = st;
  return true;
}

/* The kernel's scalar locals declared in its loops (an accumulator, a
 * running max, a temporary), each expanded (schedule/expand.c) where the
 * step is legal after the ones before it: the steps in sp->prefix, and the
 * kernel after them, or NULL when no local expands. */
static const Kernel *expand_locals(TuneSpace *sp, const Kernel *k) {
  ScalarLocals l = {.n = 0};
  ir_walk_stmts(k->body, scalar_local, &l);
  const Kernel *got = NULL;
  for (int i = 0; i < l.n; i++) {
    size_t len = strlen(sp->prefix);
    snprintf(sp->prefix + len, sizeof sp->prefix - len, "#pragma npu expand(%s)\n", l.decl[i]->var->name);
    const Kernel *e = strlen(sp->prefix) + 1 < sizeof sp->prefix ? tune_probe_steps(sp, "", NULL) : NULL;
    if (e) got = e;
    else sp->prefix[len] = 0; /* refused (or used outside the nest): as written */
  }
  return got;
}

/* No NPU sketch fits the kernel as written: the sketches again on the
 * kernel with its scalar locals expanded, each candidate starting with
 * those steps (a matmul's `int32_t acc` becomes C's own element, a
 * softmax row's max an array over the rows that fission can cut at). */
static void npu_sketches_expanded(TuneSpace *sp, const Kernel *k) {
  const Kernel *e = expand_locals(sp, k);
  if (!e) return;
  tune_shape(e, &sp->shape);
  npu_sketches(sp);
  if (!sp->nsketch) sp->prefix[0] = 0;
}

bool tune_space_build(TuneSpace *sp, NpgSession *s, const char *kernel, bool host, char *why, size_t n) {
  memset(sp, 0, sizeof *sp);
  sp->s = s;
  sp->kernel = kernel;
  arena_init(&sp->arena, 0);
  const Module *m = session_module(s);
  const Kernel *k = m ? module_kernel(m, kernel) : NULL;
  /* a kernel with sizes: its shape at the one size set tuned for (npugen
   * tune --size, session_fix_sizes); the schedules apply to every size */
  SizeSet set;
  char at[300] = "";
  if (k && k->nsizes && k->nsize_sets == 1 && ir_size_sets(k, &set, 1) == 1)
    k = ir_instantiate(&sp->arena, k, &set, at, sizeof at);
  else if (k && k->nsizes)
    snprintf(at, sizeof at, "kernel '%s' has symbolic sizes: give the sizes to tune for with --size (e.g. --size %s=1000)",
             kernel, k->sizes[0]->name);
  if (*at) snprintf(why, n, "%s\n", at);
  else if (!k) snprintf(why, n, "no kernel '%s' in the file\n", kernel);
  else {
    tune_shape(k, &sp->shape);
    sp->ideal = tune_kernel_bound(k, session_target(s), sp->ideal_unit, sizeof sp->ideal_unit);
    if (!host) {
      npu_sketches(sp);
      if (!sp->nsketch) npu_sketches_expanded(sp, k);
    }
    /* costs in one unit only: simulated cycles, or time on this CPU */
    if (!sp->nsketch) {
      tune_sketch_host(sp);
      /* the general sketch for any kernel the contraction's does not fit */
      if (!sp->nsketch) tune_sketch_loops(sp, k);
      sp->host = sp->nsketch > 0;
    }
    if (sp->nsketch) return true;
    snprintf(why, n, "no sketch of npugen tune applies to kernel '%s' (docs/tune.md):\n%s", kernel, sp->notes);
  }
  tune_space_free(sp);
  return false;
}

void tune_variant_name(const char *file, const char *kernel, char *out, size_t n) {
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  size_t len = strcspn(base, ".");
  char stem[128];
  size_t m = 0;
  if (len && base[0] >= '0' && base[0] <= '9') stem[m++] = 'f'; /* an identifier starts with no digit */
  for (size_t i = 0; i < len && m + 1 < sizeof stem; i++) {
    char c = base[i];
    bool ident = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    stem[m++] = ident ? c : '_';
  }
  stem[m] = 0;
  snprintf(out, n, "%s%s%s_tuned", stem, m ? "_" : "", kernel);
}

void tune_space_free(TuneSpace *sp) {
  for (int i = 0; i < sp->nsketch; i++) free(sp->sketch[i].data);
  sp->nsketch = 0;
  arena_free(&sp->arena);
}

char *tune_render(const TuneSpace *sp, const TuneGenome *g, const char *variant) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "#pragma npu schedule(%s, %s)\n%s", sp->kernel, variant, sp->prefix);
  const TuneSketch *sk = &sp->sketch[g->sketch];
  sk->render(sk, g->choice, &sb);
  return sb_take(&sb);
}

void tune_knob(TuneSketch *sk, int i, const char *name, const long long *v, int n, int seed) {
  TuneKnob *kn = &sk->knobs[i];
  snprintf(kn->name, sizeof kn->name, "%s", name);
  kn->n = n < TUNE_MAX_CHOICES ? n : TUNE_MAX_CHOICES;
  memcpy(kn->val, v, (size_t)kn->n * sizeof *v);
  kn->seed = seed < kn->n ? seed : kn->n - 1;
}

void tune_note(TuneSpace *sp, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (strstr(sp->notes, line)) return; /* one line for each reason (a sketch's variants refused alike) */
  size_t len = strlen(sp->notes);
  snprintf(sp->notes + len, sizeof sp->notes - len, "  %s", line);
}

const Kernel *tune_probe_steps(TuneSpace *sp, const char *steps, const char *note_as) {
  char name[96];
  snprintf(name, sizeof name, "%s_probe%d", sp->kernel, sp->probes++);
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "#pragma npu schedule(%s, %s)\n%s%s", sp->kernel, name, sp->prefix, steps);
  int errors = npg_error_count(sp->s);
  size_t before = strlen(npg_errors(sp->s));
  npg_add_schedule_string(sp->s, "<tune probe>", sb.data, sb.len);
  sb_free(&sb);
  if (npg_error_count(sp->s) == errors) return session_variant_ir(sp->s, npg_variant_index(sp->s, name));
  if (note_as) {
    char why[1024];
    tune_first_error(sp->s, before, why, sizeof why);
    tune_note(sp, "%s: %s\n", note_as, why);
  }
  return NULL;
}

bool tune_probe(TuneSpace *sp, int sketch, const int *choice) {
  const TuneSketch *sk = &sp->sketch[sketch];
  StrBuf sb;
  sb_init(&sb);
  sk->render(sk, choice, &sb);
  bool ok = tune_probe_steps(sp, sb.data, sk->name) != NULL;
  sb_free(&sb);
  return ok;
}

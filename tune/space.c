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
  if (!sp->nsketch) tune_sketch_vu_halo(sp);
  if (!sp->nsketch) tune_sketch_vu_fold(sp);
}

typedef struct {
  const Stmt *found[32];
  int n;
} Found;

static bool scalar_local(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Found *f = ctx;
  if (st->kind == ST_DECL && st->var && !st->buf && f->n < 32) f->found[f->n++] = st;
  return true;
}

/* An innermost loop (one that holds no loop). */
static bool innermost(const Stmt *loop) {
  for (const Stmt *c = tune_first_stmt(loop->body); c; c = c->next)
    if (c->kind == ST_FOR) return false;
  return true;
}

/* An innermost loop whose body is several statements and no declaration
 * (`for c { y = ..; sum += y; }`): cut after each but the last, each stage
 * a VU op. */
static bool innermost_with_several(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Found *f = ctx;
  if (st->kind != ST_FOR || f->n == 32 || !innermost(st)) return true;
  const Stmt *first = tune_first_stmt(st->body);
  bool decl = false;
  for (const Stmt *c = st->body && st->body->kind == ST_BLOCK ? st->body->body : st->body; c; c = c->next)
    decl = decl || c->kind == ST_DECL;
  if (first && first->next && !decl) f->found[f->n++] = st;
  return true;
}

/* The scalar locals declared right in an innermost loop (a temporary,
 * `float e = expf(..);`). */
static bool innermost_local(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Found *f = ctx;
  if (st->kind != ST_FOR || !innermost(st)) return true;
  for (const Stmt *c = st->body && st->body->kind == ST_BLOCK ? st->body->body : st->body; c && f->n < 32; c = c->next)
    if (c->kind == ST_DECL && c->var && !c->buf) f->found[f->n++] = c;
  return true;
}

/* The updates of innermost loops that reduce an expression into an
 * element the loop does not index (`total += expf(x[b][v] - mx);`): the
 * VU reduces an array, so the expression is staged into one first (not
 * a product: a contraction's). */
static bool reduces_an_expression(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Found *f = ctx;
  if (st->kind != ST_FOR || !innermost(st)) return true;
  for (Stmt *c = st->body && st->body->kind == ST_BLOCK ? st->body->body : st->body; c && f->n < 32; c = c->next) {
    if (c->kind != ST_ASSIGN || c->op == OP_NONE || !c->name) continue;
    const Expr *e = c->rhs, *root = e;
    while (root->kind == EX_CAST) root = root->a;
    /* a sum of products is a contraction the NU and the VU's
     * multiply-accumulate take as it is */
    bool plain = e->kind == EX_LOAD || e->kind == EX_VAR || ir_expr_constant(e) ||
                 (root->kind == EX_BINARY && root->op == OP_MUL);
    bool indexed = c->lhs->kind == EX_LOAD && ir_expr_uses(c->lhs, st->var, NULL);
    if (!plain && !indexed && ir_expr_uses(e, st->var, NULL)) f->found[f->n++] = c;
  }
  return true;
}

/* Appends `#pragma npu <step>` to sp->prefix when the engine accepts the
 * steps so far with it: the kernel after them, else NULL (and the prefix
 * as it was). */
static const Kernel *try_step(TuneSpace *sp, const char *step) {
  size_t len = strlen(sp->prefix);
  int n = snprintf(sp->prefix + len, sizeof sp->prefix - len, "#pragma npu %s\n", step);
  const Kernel *k = n > 0 && len + (size_t)n < sizeof sp->prefix ? tune_probe_steps(sp, "", NULL) : NULL;
  if (!k) sp->prefix[len] = 0;
  return k;
}

/* expand(local) for each of found[] not in skip[], kept where accepted:
 * the kernel after the last kept, else got. */
static const Kernel *expand_each(TuneSpace *sp, const Found *found, const Found *skip, const Kernel *got) {
  char step[200];
  for (int i = 0; i < found->n; i++) {
    bool done = false;
    for (int j = 0; skip && j < skip->n; j++) done = done || skip->found[j] == found->found[i];
    snprintf(step, sizeof step, "expand(%s)", found->found[i]->var->name);
    const Kernel *e = done ? NULL : try_step(sp, step);
    if (e) got = e;
  }
  return got;
}

/* The steps that give the NPU sketches the array form (sp->prefix), each
 * kept where the engine accepts it after the ones before: the temporaries
 * of innermost loops expanded (into the element they are stored to, or
 * their value: schedule/expand.c), an expression such a loop reduces
 * staged into an array (stage), those loops cut apart where they hold
 * several statements (fission), then the other scalar locals expanded (an
 * accumulator, a running max; an init then sits right before the loop
 * that first uses it, after the cut). The kernel after them, or NULL
 * when none applies (none is tried in a kernel without scalar locals in
 * its loops). */
static const Kernel *array_form(TuneSpace *sp, const Kernel *k) {
  Found locals = {.n = 0}, inner = {.n = 0}, loops = {.n = 0};
  ir_walk_stmts(k->body, scalar_local, &locals);
  if (!locals.n) return NULL; /* the array form it has already: no probes (each proves its steps) */
  ir_walk_stmts(k->body, innermost_local, &inner);
  const Kernel *got = expand_each(sp, &inner, NULL, NULL), *e;
  Found reductions = {.n = 0};
  ir_walk_stmts((got ? got : k)->body, reduces_an_expression, &reductions);
  for (int i = 0; i < reductions.n; i++) {
    StrBuf text;
    sb_init(&text);
    ir_print_expr(&text, reductions.found[i]->rhs);
    char step[1200];
    int n = snprintf(step, sizeof step, "stage(%s, \"%s\", %s_terms)", reductions.found[i]->name, text.data,
                     reductions.found[i]->name);
    sb_free(&text);
    if (n > 0 && (size_t)n < sizeof step && (e = try_step(sp, step))) got = e;
  }
  ir_walk_stmts((got ? got : k)->body, innermost_with_several, &loops);
  for (int i = 0; i < loops.n; i++)
    for (const Stmt *c = tune_first_stmt(loops.found[i]->body); c && c->next; c = c->next) {
      char step[200];
      snprintf(step, sizeof step, "fission(%s, %s)", loops.found[i]->name, c->name);
      if ((e = try_step(sp, step))) got = e;
    }
  return expand_each(sp, &locals, &inner, got);
}

/* A kernel with sizes at the one size set tuned for (npugen tune --size,
 * session_fix_sizes): the sketches read its shape there, and their
 * schedules apply to every size. NULL, with the reason in why, when it
 * has no one set; k itself when it has no sizes. */
static const Kernel *at_tuned_sizes(TuneSpace *sp, const Kernel *k, char *why, size_t n) {
  SizeSet set;
  if (!k->nsizes) return k;
  if (k->nsize_sets == 1 && ir_size_sets(k, &set, 1) == 1) return ir_instantiate(&sp->arena, k, &set, why, n);
  snprintf(why, n, "kernel '%s' has symbolic sizes: give the sizes to tune for with --size (e.g. --size %s=1000)",
           k->name, k->sizes[0]->name);
  return NULL;
}

/* The kernel's array form, found once and kept (the NPU round and
 * host:cc's read the same one): its IR at the sizes tuned for, or NULL;
 * sp->prefix is then its steps. */
static const Kernel *array_form_once(TuneSpace *sp, const Kernel *k) {
  if (!sp->array_found) {
    char before[sizeof sp->prefix];
    snprintf(before, sizeof before, "%s", sp->prefix);
    sp->prefix[0] = 0;
    const Kernel *e = array_form(sp, k);
    char why[300];
    sp->array_ir = e ? at_tuned_sizes(sp, e, why, sizeof why) : NULL;
    snprintf(sp->array_prefix, sizeof sp->array_prefix, "%s", sp->prefix);
    snprintf(sp->prefix, sizeof sp->prefix, "%s", before);
    sp->array_found = true;
  }
  if (sp->array_ir) snprintf(sp->prefix, sizeof sp->prefix, "%s", sp->array_prefix);
  return sp->array_ir;
}

/* sp->prefix's steps, comma-separated: "expand(acc), fission(c, s2)". */
static void prefix_steps(const TuneSpace *sp, char *steps, size_t size) {
  size_t n = 0;
  steps[0] = 0;
  for (const char *l = sp->prefix; *l && n + 1 < size;) {
    const char *step = l + strlen("#pragma npu "), *end = strchr(l, '\n');
    n += (size_t)snprintf(steps + n, size - n, "%s%.*s", n ? ", " : "", (int)(end - step), step);
    l = end + 1;
  }
}

/* No NPU sketch fits the kernel as written: the sketches again on its
 * array form, each candidate starting with those steps (a matmul's
 * `int32_t acc` becomes C's own element, a softmax row's max and sum
 * arrays over the rows, its exp and sum loop two loops). */
static void npu_sketches_expanded(TuneSpace *sp, const Kernel *k) {
  const Kernel *e = array_form_once(sp, k);
  if (!e) return;
  /* the notes that follow are the second round's: say after which steps */
  char steps[sizeof sp->prefix];
  prefix_steps(sp, steps, sizeof steps);
  tune_note(sp, "after the kernel's array form (%s), again:\n", steps);
  TuneShape as_written = sp->shape;
  tune_shape(e, &sp->shape);
  npu_sketches(sp);
  if (sp->nsketch) return;
  sp->prefix[0] = 0; /* the host sketches tune the kernel as written */
  sp->shape = as_written;
}

/* host:cc does not fit the kernel as written: again on its array form (a
 * matmul's local `acc` becomes C's own element, the contraction host:cc
 * takes), its candidates starting with those steps. Else the kernel as
 * written again (host:loops tunes its own loops), and the refusal says
 * which steps were tried. */
static void host_sketch_expanded(TuneSpace *sp, const Kernel *k) {
  Found locals = {.n = 0};
  ir_walk_stmts(k->body, scalar_local, &locals);
  if (!locals.n) return;
  TuneShape as_written = sp->shape;
  const Kernel *e = array_form_once(sp, k);
  if (e) {
    char steps[sizeof sp->prefix];
    prefix_steps(sp, steps, sizeof steps);
    size_t before = strlen(sp->notes);
    tune_note(sp, "host:cc: on the kernel's array form (%s), again:\n", steps);
    size_t preface = strlen(sp->notes);
    tune_shape(e, &sp->shape);
    tune_sketch_host(sp);
    bool same = strlen(sp->notes) == preface; /* refused as the kernel as written (one line per reason) */
    if (sp->nsketch || same) sp->notes[before] = 0; /* else the preface would introduce nothing */
    if (sp->nsketch)
      tune_note(sp, "host:cc: applies after %s (the kernel's array form): its candidates start with it\n", steps);
    else if (same)
      tune_note(sp, "host:cc: the kernel's array form (after %s) is refused for the same reason\n", steps);
    if (sp->nsketch) return;
  } else /* no expand was accepted: name the one the nest needs */
    tune_note(sp, "host:cc: expand(%s) would make the nest a contraction, but the engine refused it\n",
              locals.found[0]->var->name);
  sp->prefix[0] = 0;
  sp->shape = as_written;
}

/* The kernel as written has no step: not even the prefix's. */
static void no_step(const TuneSketch *sk, const int *choice, StrBuf *sb) {
  (void)sk, (void)choice, (void)sb;
}

bool tune_space_build(TuneSpace *sp, NpgSession *s, const char *kernel, bool host, char *why, size_t n) {
  memset(sp, 0, sizeof *sp);
  sp->s = s;
  sp->kernel = kernel;
  snprintf(sp->as_written.name, sizeof sp->as_written.name, "as-written");
  sp->as_written.render = no_step;
  arena_init(&sp->arena, 0);
  const Module *m = session_module(s);
  const Kernel *written = m ? module_kernel(m, kernel) : NULL;
  char at[300] = "";
  const Kernel *k = written ? at_tuned_sizes(sp, written, at, sizeof at) : NULL;
  if (*at) snprintf(why, n, "%s\n", at);
  else if (!k) snprintf(why, n, "no kernel '%s' in the file\n", kernel);
  else {
    tune_shape(k, &sp->shape);
    sp->ideal = kernel_bound(k, session_target(s), sp->ideal_unit, sizeof sp->ideal_unit);
    if (!host) {
      npu_sketches(sp);
      if (!sp->nsketch) npu_sketches_expanded(sp, k);
      if (!sp->nsketch) tune_sketch_nests(sp, k); /* several nests: each its own */
    }
    /* costs in one unit only: simulated cycles, or time on this CPU */
    if (!sp->nsketch) {
      tune_sketch_host(sp);
      if (!sp->nsketch) host_sketch_expanded(sp, k);
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

void tune_space_free(TuneSpace *sp) {
  for (int i = 0; i < sp->nsketch; i++) {
    TuneSketch *sk = &sp->sketch[i];
    if (sk->free_data) sk->free_data(sk->data);
    else free(sk->data);
  }
  sp->nsketch = 0;
  free(sp->memo);
  sp->memo = NULL;
  sp->nmemo = sp->capmemo = 0;
  arena_free(&sp->arena);
}

const TuneSketch *tune_sketch_of(const TuneSpace *sp, int sketch) {
  return sketch == TUNE_AS_WRITTEN ? &sp->as_written : &sp->sketch[sketch];
}

char *tune_render(const TuneSpace *sp, const TuneGenome *g, const char *variant) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "#pragma npu schedule(%s, %s)\n%s", sp->kernel, variant,
            g->sketch == TUNE_AS_WRITTEN ? "" : sp->prefix);
  const TuneSketch *sk = tune_sketch_of(sp, g->sketch);
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
  /* one line for each reason (a sketch's variants refused alike): a line
   * equal to an earlier one is left out, not one that is part of one */
  size_t want = strlen(line);
  for (const char *l = sp->notes; *l;) {
    const char *end = strchr(l, '\n');
    size_t len = end ? (size_t)(end - l) + 1 : strlen(l);
    if (len == want + 2 && !strncmp(l + 2, line, want)) return;
    l += len;
  }
  size_t len = strlen(sp->notes);
  snprintf(sp->notes + len, sizeof sp->notes - len, "  %s", line);
}

/* The memo of text's probe, or NULL. */
static const TuneProbeMemo *memo_of(const TuneSpace *sp, uint64_t hash) {
  for (int i = 0; i < sp->nmemo; i++)
    if (sp->memo[i].hash == hash) return &sp->memo[i];
  return NULL;
}

static const TuneProbeMemo *memo_put(TuneSpace *sp, uint64_t hash, const Kernel *k, const char *why) {
  if (sp->nmemo == sp->capmemo) {
    sp->capmemo = sp->capmemo ? 2 * sp->capmemo : 64;
    sp->memo = realloc(sp->memo, (size_t)sp->capmemo * sizeof *sp->memo);
    if (!sp->memo) abort();
  }
  sp->memo[sp->nmemo] = (TuneProbeMemo){hash, k, why ? arena_strdup(&sp->arena, why) : NULL};
  return &sp->memo[sp->nmemo++];
}

/* steps after the prefix, proven once: a text probed before gives its
 * first outcome (the engine's answer for one text never changes). */
static const TuneProbeMemo *probe(TuneSpace *sp, const char *steps) {
  StrBuf text;
  sb_init(&text);
  sb_printf(&text, "%s%s", sp->prefix, steps);
  uint64_t hash = tune_hash(text.data ? text.data : "");
  const TuneProbeMemo *m = memo_of(sp, hash);
  if (m) {
    sb_free(&text);
    return m;
  }
  char name[96];
  snprintf(name, sizeof name, "%s_probe%d", sp->kernel, sp->probes++);
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "#pragma npu schedule(%s, %s)\n%s", sp->kernel, name, text.data ? text.data : "");
  sb_free(&text);
  int errors = npg_error_count(sp->s);
  size_t before = strlen(npg_errors(sp->s));
  npg_add_schedule_string(sp->s, "<tune probe>", sb.data, sb.len);
  sb_free(&sb);
  if (npg_error_count(sp->s) == errors)
    return memo_put(sp, hash, session_variant_ir(sp->s, npg_variant_index(sp->s, name)), NULL);
  char why[1024];
  tune_first_error(sp->s, before, why, sizeof why);
  return memo_put(sp, hash, NULL, why);
}

const Kernel *tune_probe_why(TuneSpace *sp, const char *steps, char *why, size_t n) {
  const TuneProbeMemo *m = probe(sp, steps);
  if (!m->k && why) snprintf(why, n, "%s", m->why);
  return m->k;
}

const Kernel *tune_probe_steps(TuneSpace *sp, const char *steps, const char *note_as) {
  const TuneProbeMemo *m = probe(sp, steps);
  if (!m->k && note_as) tune_note(sp, "%s: %s\n", note_as, m->why);
  return m->k;
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

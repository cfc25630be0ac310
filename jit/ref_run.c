/* The reference of the differential check (docs/check.md): each kernel as
 * written, with checked arithmetic (jit_reference_text: lowered, then printed) and
 * compiled once, then run once per seed; every variant of the kernel is
 * compared with that run. A run fails, for every variant, when a check
 * stops it (undefined behaviour: the message gives the operation's place
 * in the kernel source and the seed), or when an output ends NaN or
 * infinite and the kernel does not allow it (the inputs never hold one,
 * so the kernel made it). A run can start in a thread of its own
 * (check_refs_start) while the caller runs a variant on the other core. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/c_text.h"
#include "jit/check.h"
#include "jit/guard.h"

/* Runs kept at most, failures included, besides their bytes. */
enum { MAX_RUNS = 64 };

typedef struct {
  const Kernel *k;
  CheckedUnit code;
  TccUnit *unit; /* NULL when it did not compile: error says why */
  char error[1024];
} Compiled;

typedef struct {
  const Kernel *k;
  uint64_t seed;
  bool scalar_ends;
  CheckReference ref; /* args NULL when the run failed */
  char *failure;      /* the message of a failed run */
  uint64_t bytes;
} Run;

/* A run under way in a thread of its own (check_refs_start). */
typedef struct {
  CheckRefs *c;
  const Kernel *k;
  uint64_t seed, max_bytes;
  double cpu_seconds;
  bool ends, busy;
  Run run;
  pthread_t thread;
} Pending;

struct CheckRefs {
  const Module *m;
  Compiled *units;
  int nunits;
  Run runs[MAX_RUNS]; /* least recently used first */
  int nruns;
  Pending pending;
};

CheckRefs *check_refs_new(const Module *m) {
  CheckRefs *c = calloc(1, sizeof *c);
  c->m = m;
  return c;
}

static void run_free(Run *r) {
  check_reference_free(&r->ref);
  free(r->failure);
}

static void keep_pending(CheckRefs *c);

void check_refs_free(CheckRefs *c) {
  if (!c) return;
  keep_pending(c);
  for (int i = 0; i < c->nunits; i++) {
    jit_checked_unit_free(&c->units[i].code);
    tcc_unit_free(c->units[i].unit);
  }
  free(c->units);
  for (int i = 0; i < c->nruns; i++) run_free(&c->runs[i]);
  free(c);
}

/* k's instrumented reference, compiled on first use. */
static Compiled *compiled(CheckRefs *c, const Kernel *k) {
  for (int i = 0; i < c->nunits; i++)
    if (c->units[i].k == k) return &c->units[i];
  c->units = realloc(c->units, sizeof *c->units * (size_t)(c->nunits + 1));
  Compiled *u = &c->units[c->nunits++];
  memset(u, 0, sizeof *u);
  u->k = k;
  jit_reference_text(c->m, k, &u->code);
  char err[4096];
  u->unit = tcc_unit_compile(u->code.source, c->m->file, err, sizeof err);
  if (!u->unit)
    snprintf(u->error, sizeof u->error, "internal error: the instrumented reference of '%s' does not compile:\n%.800s",
             k->name, err);
  return u;
}

/* The message of a failed reference run, or NULL when it ran clean. */
/* "seed 1" or "seed 1, integer scalars at their types' maximum" */
static const char *inputs_of(char *buf, size_t n, uint64_t seed, bool ends) {
  snprintf(buf, n, "seed %llu%s", (unsigned long long)seed, ends ? ", integer scalars at their types' maximum" : "");
  return buf;
}

static char *stopped(const CheckRefs *c, const Compiled *u, int site, const char *crash, uint64_t seed, bool ends) {
  char in[96];
  StrBuf sb;
  sb_init(&sb);
  if (crash) {
    sb_printf(&sb, "reference kernel '%s': %s", u->k->name, crash);
  } else if (site > 0 && site <= u->code.nsites) {
    const CheckedSite *s = &u->code.sites[site - 1];
    sb_printf(&sb, "%s:%d:%d: error: %s with inputs of %s", c->m->file, s->loc.line, s->loc.col, s->what,
              inputs_of(in, sizeof in, seed, ends));
    /* the random inputs may be outside what the kernel is meant for (a
     * graph with negative cycles): the pragma that says so, not the kernel */
    if (strncmp(s->what, "read of uninitialized", 21))
      sb_printf(&sb, "; if %s is defined for fewer inputs, give it its domain: #pragma npu inputs(%s, PARAM, LO, HI)",
                u->k->name, u->k->name);
  } else if (site) {
    sb_printf(&sb, "internal error: the instrumented reference of '%s' stopped at unknown check %d", u->k->name, site);
  }
  return sb.len ? sb_take(&sb) : NULL;
}

/* Counts the NaN and infinite elements of a floating array. */
static void count_nonfinite(const Buffer *b, const void *p, int64_t *nan, int64_t *inf) {
  *nan = *inf = 0;
  for (int64_t i = 0; i < buffer_elems(b); i++) {
    double v = b->elem->kind == TY_FLOAT ? ((const float *)p)[i] : ((const double *)p)[i];
    *nan += isnan(v) != 0;
    *inf += isinf(v) != 0; /* glibc's is -1 for -inf */
  }
}

/* The message when an output the kernel does not allow to be NaN or
 * infinite ends so; NULL when none does. */
static char *nonfinite(const CheckRefs *c, const Kernel *k, void **args, uint64_t seed, bool ends) {
  char in[96];
  int i = 0;
  for (const Param *p = k->params; p; p = p->next, i++) {
    const Buffer *b = p->buf;
    if (!b || b->is_const || !type_is_float(b->elem) ||
        ir_spec_find(c->m->check_specs, k, SPEC_ALLOW_NONFINITE, b->name))
      continue;
    int64_t nan, inf;
    count_nonfinite(b, args[i], &nan, &inf);
    if (!nan && !inf) continue;
    StrBuf sb;
    sb_init(&sb);
    sb_printf(&sb,
              "%s:%d:%d: error: output '%s' of '%s' ends with %lld NaN and %lld infinite of its %lld elements with "
              "inputs of %s (which hold none); give the kernel meaningful inputs (#pragma npu inputs(%s, %s, "
              "...)) or accept them (#pragma npu allow_nonfinite(%s, %s))",
              c->m->file, b->loc.line, b->loc.col, b->name, k->name, (long long)nan, (long long)inf,
              (long long)buffer_elems(b), inputs_of(in, sizeof in, seed, ends), k->name, b->name, k->name, b->name);
    return sb_take(&sb);
  }
  return NULL;
}

static uint64_t arrays_bytes(const Kernel *k) {
  uint64_t n = 0;
  for (const Param *p = k->params; p; p = p->next)
    if (p->buf) n += (uint64_t)buffer_elems(p->buf) * (uint64_t)p->buf->elem->size;
  return n;
}

/* Runs k's reference on seed's inputs into *run. */
static void run_reference(CheckRefs *c, const Kernel *k, uint64_t seed, bool ends, double cpu_seconds, Run *run) {
  memset(run, 0, sizeof *run);
  run->k = k;
  run->seed = seed;
  run->scalar_ends = ends;
  run->ref = (CheckReference){NULL, k->nparams, seed, c->m->check_specs, ends};
  Compiled *u = compiled(c, k);
  char name[300], err[256];
  snprintf(name, sizeof name, "npg_ref_%s", k->name);
  ThunkFn fn = u->unit ? (ThunkFn)tcc_unit_symbol(u->unit, name) : NULL;
  void **args = fn ? check_make_inputs(k, c->m->check_specs, seed, ends) : NULL;
  if (!fn || !args) {
    run->failure = strdup(!u->unit ? u->error : !fn ? "internal error: a JIT thunk is missing"
                                                    : "not run: out of memory for the arrays");
    return;
  }
  int site = 0;
  args[k->nparams] = &site;
  bool ran = guarded_call_limited(fn, args, cpu_seconds, err, sizeof err);
  args[k->nparams] = NULL;
  run->failure = stopped(c, u, site, ran ? NULL : err, seed, ends);
  if (!run->failure) run->failure = nonfinite(c, k, args, seed, ends);
  if (run->failure) {
    check_free_args(args, k->nparams);
    return;
  }
  run->ref.args = args;
  run->bytes = arrays_bytes(k);
}

/* Drops the least recently used runs while the kept ones and the one
 * added would take more than max_bytes, or be too many. */
static void evict(CheckRefs *c, uint64_t max_bytes, uint64_t adding) {
  uint64_t total = adding;
  for (int i = 0; i < c->nruns; i++) total += c->runs[i].bytes;
  int drop = 0;
  while (drop < c->nruns && (total > max_bytes || c->nruns - drop >= MAX_RUNS)) {
    total -= c->runs[drop].bytes;
    run_free(&c->runs[drop++]);
  }
  memmove(c->runs, c->runs + drop, sizeof *c->runs * (size_t)(c->nruns - drop));
  c->nruns -= drop;
}

/* Keeps run as the most recently used, within max_bytes (0: the
 * default). Half the check's memory: a run within its limits takes at
 * most as much again for the variant's arrays. */
static void keep(CheckRefs *c, Run run, uint64_t max_bytes) {
  evict(c, (max_bytes ? max_bytes : CHECK_DEFAULT_MAX_BYTES) / 2, run.bytes);
  c->runs[c->nruns++] = run;
}

static void *pending_main(void *arg) {
  Pending *p = arg;
  run_reference(p->c, p->k, p->seed, p->ends, p->cpu_seconds, &p->run);
  return NULL;
}

/* Waits for the run under way, if any, and keeps it. */
static void keep_pending(CheckRefs *c) {
  if (!c->pending.busy) return;
  pthread_join(c->pending.thread, NULL);
  c->pending.busy = false;
  keep(c, c->pending.run, c->pending.max_bytes);
}

static int kept(const CheckRefs *c, const Kernel *k, uint64_t seed, bool ends) {
  int i = 0;
  while (i < c->nruns && (c->runs[i].k != k || c->runs[i].seed != seed || c->runs[i].scalar_ends != ends)) i++;
  return i;
}

void check_refs_start(CheckRefs *c, const Kernel *k, const CheckOptions *o) {
  keep_pending(c);
  if (kept(c, k, o->seed, o->scalar_ends) < c->nruns) return;
  compiled(c, k); /* compiled here: the thread only reads the units */
  /* room for its arrays first, as when it runs alone: the variant's run
   * beside it takes what a run within the limits may */
  evict(c, (o->max_bytes ? o->max_bytes : CHECK_DEFAULT_MAX_BYTES) / 2, arrays_bytes(k));
  c->pending = (Pending){.c = c, .k = k, .seed = o->seed, .max_bytes = o->max_bytes,
                        .cpu_seconds = CHECK_CPU_SECONDS(o), .ends = o->scalar_ends, .busy = true};
  /* without a thread, check_refs_run runs it */
  if (pthread_create(&c->pending.thread, NULL, pending_main, &c->pending)) c->pending.busy = false;
}

const CheckReference *check_refs_run(CheckRefs *c, const Kernel *k, const CheckOptions *o, CheckResult *r) {
  keep_pending(c);
  int i = kept(c, k, o->seed, o->scalar_ends);
  Run run;
  if (i < c->nruns) { /* kept: now the most recently used */
    run = c->runs[i];
    memmove(c->runs + i, c->runs + i + 1, sizeof *c->runs * (size_t)(c->nruns - i - 1));
    c->nruns--;
    c->runs[c->nruns++] = run;
  } else {
    run_reference(c, k, o->seed, o->scalar_ends, CHECK_CPU_SECONDS(o), &run);
    keep(c, run, o->max_bytes);
  }
  if (!run.failure) return &c->runs[c->nruns - 1].ref;
  r->pass = false;
  snprintf(r->message, sizeof r->message, "%s", run.failure);
  return NULL;
}

/* Schedules in the session: the programs written as pragmas (or in a
 * schedule file) and the npg_sched_* C API. Both hand SchedSteps to the same
 * schedule/ driver, so a pragma and an API call are checked alike. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "ir/fits.h"
#include "ir/reserved.h"
#include "ir/suggest.h"
#include "jit/session.h"
#include "lower/lower.h"
#include "schedule/sched.h"
#include "schedule/tensorize.h"

/* lower_header_guard is NPUGEN_<FILE>_ and the name in capitals: names that
 * differ only in case would share it (and a file on a case-insensitive
 * file system). The key is malloc'ed. */
static char *guard_key(const char *name) {
  char *g = strdup(name);
  for (char *p = g; *p; p++)
    if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 32);
  return g;
}

const char *session_case_twin(const NpgSession *s, const char *name) {
  char *guard = guard_key(name);
  const char *twin = ir_map_get(&s->guards, guard);
  free(guard);
  return twin;
}

bool session_add_variant(NpgSession *s, const Kernel *kernel, const Kernel *ir, const char *name, char *schedule,
                         char *steps, const char *file, const char *src, SrcLoc loc) {
  /* the kernel as written (its own IR) prints as its source: not tidied */
  Kernel *low = ir == kernel ? lower_kernel_as_written(&s->m->arena, ir, &s->target)
                              : lower_kernel(&s->m->arena, ir, &s->target);
  char why[600];
  const char *where = name; /* the variant, or the function of one of its calls */
  bool synced = lower_check_sync(low, s->target.dma_max_tokens, why, sizeof why);
  ProgramFunctions fns;
  lower_program_functions(ir, name, &s->target, EMIT_ORDER_SOURCE, &fns);
  for (int f = 0; synced && f < fns.n; f++)
    if (*fns.fns[f].lower_error) {
      where = arena_printf(&s->m->arena, "%s (called by %s)", fns.fns[f].call->call->fn, name);
      snprintf(why, sizeof why, "%s", fns.fns[f].lower_error);
      synced = false;
    }
  lower_program_free(&fns);
  bool fits = !synced || ir_check_fits_lowered(ir, low, why, sizeof why); /* what the lowering wrote: ir/fits.h */
  if (!synced || !fits) {
    diag_error(&s->diags, file, src, loc.line, loc.col,
               "internal error: the %s of variant %s's lowered IR: %s (an npugen bug; the variant is not emitted)",
               fits ? "DMA synchronisation" : "arithmetic", where, why);
    free(schedule);
    free(steps);
    return false;
  }
  if (s->nv == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 8;
    s->v = realloc(s->v, sizeof *s->v * (size_t)s->cap);
  }
  Variant *v = &s->v[s->nv++];
  memset(v, 0, sizeof *v);
  v->kernel = kernel;
  v->ir = ir;
  v->name = name;
  v->schedule = schedule;
  v->steps = steps;
  v->low = low;
  ir_map_put(&s->names, name, "variant");
  char *guard = guard_key(name);
  if (ir_map_get(&s->guards, guard)) free(guard); /* a name of the API's own tests, never two variants */
  else ir_map_put(&s->guards, guard, (void *)name);
  return true;
}

void session_add_defines(NpgSession *s) {
  for (const Define *d = s->m->defines; d; d = d->next) ir_map_put(&s->names, d->name, "#define");
}

bool session_variant_name_ok(NpgSession *s, const char *name, const char *file, const char *src, SrcLoc loc) {
  if (!sched_is_c_name(name)) {
    diag_error(&s->diags, file, src, loc.line, loc.col, "schedule: the variant name '%s' is not a C identifier", name);
    return false;
  }
  const char *why = ir_reserved_why(name);
  if (why) {
    diag_error(&s->diags, file, src, loc.line, loc.col, "schedule: the variant name '%s' is reserved: %s", name, why);
    return false;
  }
  const char *taken = ir_map_get(&s->names, name), *twin = session_case_twin(s, name);
  if (!taken && twin) {
    diag_error(&s->diags, file, src, loc.line, loc.col,
               "schedule: the variant name '%s' differs from variant '%s' only in case: their headers' guards would be "
               "the same, and so would their files on a case-insensitive file system",
               name, twin);
    return false;
  }
  if (!taken) return true;
  if (!strcmp(taken, "variant"))
    diag_error(&s->diags, file, src, loc.line, loc.col, "schedule: a variant or kernel named '%s' already exists", name);
  else if (!strcmp(taken, "#define"))
    diag_error(&s->diags, file, src, loc.line, loc.col, "schedule: '%s' is a #define name; the variant needs another name", name);
  else
    diag_error(&s->diags, file, src, loc.line, loc.col, "schedule: '%s' is the name of %s; the variant needs another name",
               name, taken);
  return false;
}

/* The variant's pack/unpack helpers (emit/emit_file.c) are file-scope names
 * too: none may be taken. False, with an error at loc, if one is. */
static bool helpers_free(NpgSession *s, const Sched *sc, const char *file, const char *src, SrcLoc loc) {
  for (const Param *p = sc->k->params; p; p = p->next) {
    if (!p->buf || !p->buf->layout) continue;
    for (int pack = 0; pack < 2; pack++) {
      const char *h = arena_printf(&s->m->arena, "%s_%s_%s", sc->variant, pack ? "pack" : "unpack", p->buf->name);
      const char *taken = ir_map_get(&s->names, h);
      if (taken) {
        diag_error(&s->diags, file, src, loc.line, loc.col,
                   "schedule: variant '%s' would emit the helper '%s', which is already the name of a %s", sc->variant, h,
                   taken);
        return false;
      }
    }
  }
  return true;
}

static void add_helpers(NpgSession *s, const Sched *sc) {
  for (const Param *p = sc->k->params; p; p = p->next) {
    if (!p->buf || !p->buf->layout) continue;
    for (int pack = 0; pack < 2; pack++)
      ir_map_put(&s->names, arena_printf(&s->m->arena, "%s_%s_%s", sc->variant, pack ? "pack" : "unpack", p->buf->name),
                 arena_printf(&s->m->arena, "the %s helper of variant '%s'", pack ? "pack" : "unpack", sc->variant));
  }
}

static Kernel *find_kernel(NpgSession *s, const char *name, const char *file, const char *src, SrcLoc loc) {
  Kernel *k = ir_map_get(&s->kernels, name);
  if (k) return k;
  StrBuf sb;
  sb_init(&sb);
  IrSuggest near = ir_suggest_start(name);
  for (Kernel *x = s->m->kernels; x; x = x->next) {
    sb_printf(&sb, "%s%s", x == s->m->kernels ? "" : ", ", x->name);
    ir_suggest_add(&near, x->name);
  }
  char dym[160];
  diag_error(&s->diags, file, src, loc.line, loc.col, "schedule: no kernel named '%s' (kernels: %s)%s", name, sb.data,
             ir_suggest_text(&near, dym, sizeof dym));
  sb_free(&sb);
  return NULL;
}

static bool commit(NpgSession *s, Sched *sc, const Kernel *k, const SchedProgram *p, const char *file, const char *src,
                   SrcLoc loc) {
  if (!sched_finish(sc)) return false;
  char *steps = sc->keep_steps_ir ? sb_take(&sc->steps_ir) : NULL;
  if (!session_add_variant(s, k, sc->k, sc->variant, sb_take(&sc->applied), steps, file, src, loc)) return false;
  s->v[s->nv - 1].program = p;
  add_helpers(s, sc);
  return true;
}

/* The session's variant i, for use() (schedule/use.c). */
static bool variant_at(const void *ctx, int i, SchedVariantRef *out) {
  const NpgSession *s = ctx;
  if (i < 0 || i >= s->nv) return false;
  *out = (SchedVariantRef){s->v[i].name, s->v[i].kernel, s->v[i].ir, s->v[i].schedule};
  return true;
}

static Sched *session_sched(NpgSession *s, const Kernel *k, const char *variant, DiagList *d, const char *file,
                            const char *src) {
  Sched *sc = sched_new(&s->m->arena, s->m, k, variant, d, file, src, &s->target);
  if (!s->sems) s->sems = sem_cache_new();
  sched_share_sems(sc, s->sems);
  sc->variant_at = variant_at;
  sc->variants = s;
  return sc;
}

/* Program p's steps on kernel k, messages into d: the Sched, which the
 * caller frees; *ok false when a step was refused. keep_steps: print the
 * IR after each step (--dump-ir=steps). */
static Sched *apply_program(NpgSession *s, const SchedProgram *p, Kernel *k, DiagList *d, bool keep_steps, bool *ok) {
  Sched *sc = session_sched(s, k, p->variant, d, p->file, p->src);
  sc->keep_steps_ir = keep_steps;
  *ok = true;
  for (SchedStep *st = p->steps; st && *ok; st = st->next) *ok = sched_apply(sc, st);
  return sc;
}

void session_apply_programs(NpgSession *s, SchedProgram *first) {
  for (SchedProgram *p = first; p; p = p->next) {
    if (p->broken) continue; /* its parse error is reported already */
    if (p->target && strcmp(p->target, s->target.name)) continue; /* written for another target */
    Kernel *k = find_kernel(s, p->kernel, p->file, p->src, p->kernel_loc);
    if (!k || !session_variant_name_ok(s, p->variant, p->file, p->src, p->variant_loc)) continue;
    bool ok;
    Sched *sc = apply_program(s, p, k, &s->diags, false, &ok);
    if (ok && helpers_free(s, sc, p->file, p->src, p->variant_loc)) commit(s, sc, k, p, p->file, p->src, p->variant_loc);
    sched_free(sc);
  }
}

static bool add_schedules(NpgSession *s, const char *name, const char *src, size_t len) {
  if (!s->m) return false;
  SchedProgram *last = s->m->schedules;
  while (last && last->next) last = last->next;
  int before = s->diags.errors;
  frontend_parse_schedules(s->m, name, src, len, &s->diags);
  session_apply_programs(s, last ? last->next : s->m->schedules);
  session_strict_diags(s); /* its hints not met, under --strict */
  return s->diags.errors == before;
}

bool npg_add_schedule_string(NpgSession *s, const char *name, const char *src, size_t len) {
  if (!s || !name || !src) return session_null(s, "npg_add_schedule_string", !name ? "name" : "src");
  return add_schedules(s, name, src, len);
}

bool npg_add_schedule_file(NpgSession *s, const char *path) {
  if (!s || !path) return session_null(s, "npg_add_schedule_file", "path");
  size_t len;
  char *src = ir_read_input(path, FE_MAX_SOURCE_BYTES, &len);
  if (!src) {
    frontend_read_error(path, errno, &s->diags);
    return false;
  }
  bool ok = add_schedules(s, path, src, len);
  free(src);
  return ok;
}

const char *npg_variant_schedule(const NpgSession *s, int i) {
  return i >= 0 && i < npg_variant_count(s) ? s->v[i].schedule : NULL;
}

/* Printing the IR after every step costs as much as some steps: a
 * program's variant replays its schedule, printing, when asked. */
static char *replay_steps(NpgSession *s, const SchedProgram *p) {
  Kernel *k = ir_map_get(&s->kernels, p->kernel);
  if (!k) return NULL;
  DiagList quiet;
  diag_init(&quiet);
  bool ok;
  Sched *sc = apply_program(s, p, k, &quiet, true, &ok);
  char *steps = ok && sched_finish(sc) ? sb_take(&sc->steps_ir) : NULL;
  sched_free(sc);
  diag_free(&quiet);
  return steps;
}

const char *npg_dump_ir_steps(NpgSession *s, int i) {
  if (i < 0 || i >= npg_variant_count(s)) return NULL;
  Variant *v = &s->v[i];
  if (!v->steps && v->program) v->steps = replay_steps(s, v->program);
  return v->steps;
}

/* ---------------- the C API ---------------- */

/* A handle lives until npg_close (in s->scheds), so that a second
 * npg_sched_end, or a step after the first, is an error and no free of
 * freed memory. */
struct NpgSched {
  NpgSession *s;
  Sched *sc; /* NULL once ended */
  const Kernel *k;
  bool failed;
  Arena *a;
  NpgSched *next; /* the session's next handle */
};

void session_free_scheds(NpgSession *s) {
  while (s->scheds) {
    NpgSched *h = s->scheds;
    s->scheds = h->next;
    if (h->sc) sched_free(h->sc);
    free(h);
  }
}

/* The handle takes a step: not NULL, not ended, no NULL among the n names
 * the call passes, spelled in `spelled` ("loop, outer, inner"); otherwise
 * an error in the session naming the call and the argument. */
static bool usable(NpgSched *h, const char *fn, const char *const *names, int n, const char *spelled) {
  if (!h || h->failed) return false;
  if (!h->sc) {
    diag_error(&h->s->diags, NULL, NULL, 0, 0, "%s: the schedule handle was ended (npg_sched_end)", fn);
    return false;
  }
  for (int i = 0; i < n; i++, spelled += strcspn(spelled, ","), spelled += strspn(spelled, ", "))
    if (!names[i]) {
      diag_error(&h->s->diags, NULL, NULL, 0, 0, "%s: %.*s is NULL", fn, (int)strcspn(spelled, ","), spelled);
      h->failed = true;
      return false;
    }
  return true;
}

#define NAMES(...) (const char *const[]){__VA_ARGS__}
#define USABLE(h, ...) \
  usable(h, __func__, NAMES(__VA_ARGS__), (int)(sizeof NAMES(__VA_ARGS__) / sizeof(const char *)), #__VA_ARGS__)

NpgSched *npg_sched_begin(NpgSession *s, const char *kernel, const char *variant) {
  if (!s || !kernel || !variant) return session_null(s, "npg_sched_begin", !kernel ? "kernel" : "variant"), NULL;
  if (!s->m) return NULL;
  Kernel *k = find_kernel(s, kernel, s->m->file, NULL, (SrcLoc){0, 0});
  if (!k || !session_variant_name_ok(s, variant, s->m->file, NULL, (SrcLoc){0, 0})) return NULL;
  NpgSched *h = calloc(1, sizeof *h);
  h->s = s;
  h->k = k;
  h->a = &s->m->arena;
  h->sc = session_sched(s, k, arena_strdup(h->a, variant), &s->diags, s->m->file, NULL);
  h->sc->keep_steps_ir = true; /* no program to replay */
  h->next = s->scheds;
  s->scheds = h;
  return h;
}

static SchedArg arg_name(NpgSched *h, const char *n) {
  return (SchedArg){.kind = SA_NAME, .name = arena_strdup(h->a, n ? n : ""), .text = arena_strdup(h->a, n ? n : "")};
}

static SchedArg arg_int(NpgSched *h, long long v) {
  return (SchedArg){.kind = SA_INT, .ival = v, .text = arena_printf(h->a, "%lld", v)};
}

static SchedArg arg_str(NpgSched *h, const char *v) {
  return (SchedArg){.kind = SA_STR, .name = arena_strdup(h->a, v), .text = arena_printf(h->a, "\"%s\"", v)};
}

/* Applies prim(args...) as one step, with its text for the emitted header. */
static bool step(NpgSched *h, const char *prim, SchedArg *args, int n) {
  if (!h || h->failed) return false;
  SchedStep *st = ARENA_NEW(h->a, SchedStep);
  st->prim = prim;
  st->args = ARENA_ARRAY(h->a, SchedArg, n ? n : 1);
  memcpy(st->args, args, sizeof *args * (size_t)n);
  st->nargs = n;
  StrBuf t;
  sb_init(&t);
  sb_printf(&t, "%s(", prim);
  for (int i = 0; i < n; i++) sb_printf(&t, "%s%s", i ? ", " : "", args[i].text);
  sb_putc(&t, ')');
  st->text = arena_strdup(h->a, t.data);
  sb_free(&t);
  if (!sched_apply(h->sc, st)) h->failed = true;
  return !h->failed;
}

/* API steps have no source line: messages name the step, not a place. */
static void forget_locs(SchedArg *a, int n) {
  for (int i = 0; i < n; i++) {
    a[i].loc = (SrcLoc){0, 0};
    forget_locs(a[i].items, a[i].nitems);
  }
}

bool npg_sched_step(NpgSched *h, const char *call) {
  if (!USABLE(h, call)) return false;
  SchedStep *st = frontend_parse_step(h->s->m, "schedule step", call, &h->s->diags);
  if (!st) {
    h->failed = true;
    return false;
  }
  st->loc = (SrcLoc){0, 0};
  forget_locs(st->args, st->nargs);
  if (!sched_apply(h->sc, st)) h->failed = true;
  return !h->failed;
}

bool npg_sched_transform_layout(NpgSched *h, const char *buffer, const char *indices, const char *map,
                                const char *pad_value) {
  if (!USABLE(h, buffer, indices, map)) return false;
  char *call = arena_printf(h->a, "transform_layout(%s, %s, %s%s%s)", buffer, indices, map,
                            pad_value ? ", " : "", pad_value ? pad_value : "");
  return npg_sched_step(h, call);
}

bool npg_sched_split(NpgSched *h, const char *loop, long long factor, const char *outer, const char *inner) {
  if (!USABLE(h, loop, outer, inner)) return false;
  SchedArg a[4] = {arg_name(h, loop), arg_int(h, factor), arg_name(h, outer), arg_name(h, inner)};
  return step(h, "split", a, 4);
}

bool npg_sched_fuse(NpgSched *h, const char *outer, const char *inner, const char *fused) {
  if (!USABLE(h, outer, inner, fused)) return false;
  SchedArg a[3] = {arg_name(h, outer), arg_name(h, inner), arg_name(h, fused)};
  return step(h, "fuse", a, 3);
}

bool npg_sched_merge(NpgSched *h, const char *first, const char *second) {
  if (!USABLE(h, first, second)) return false;
  SchedArg a[2] = {arg_name(h, first), arg_name(h, second)};
  return step(h, "merge", a, 2);
}

bool npg_sched_fission(NpgSched *h, const char *loop, const char *after) {
  if (!USABLE(h, loop, after)) return false;
  SchedArg a[2] = {arg_name(h, loop), arg_name(h, after)};
  return step(h, "fission", a, 2);
}

bool npg_sched_reorder(NpgSched *h, const char *const *loops, int n) {
  if (!usable(h, __func__, NAMES((const char *)loops), 1, "loops") || n < 0 || n > 64) return false;
  for (int i = 0; i < n; i++)
    if (!usable(h, __func__, loops + i, 1, "an element of loops")) return false;
  SchedArg a[64];
  for (int i = 0; i < n; i++) a[i] = arg_name(h, loops[i]);
  return step(h, "reorder", a, n);
}

bool npg_sched_tile(NpgSched *h, const char *x, const char *y, long long fx, long long fy, const char *xo,
                    const char *yo, const char *xi, const char *yi) {
  if (!USABLE(h, x, y, xo, yo, xi, yi)) return false;
  SchedArg a[8] = {arg_name(h, x), arg_name(h, y), arg_int(h, fx), arg_int(h, fy),
                   arg_name(h, xo), arg_name(h, yo), arg_name(h, xi), arg_name(h, yi)};
  return step(h, "tile", a, 8);
}

bool npg_sched_unroll(NpgSched *h, const char *loop, long long factor) {
  if (!USABLE(h, loop)) return false;
  SchedArg a[2] = {arg_name(h, loop), arg_int(h, factor)};
  return step(h, "unroll", a, factor ? 2 : 1);
}

bool npg_sched_vectorize(NpgSched *h, const char *loop) {
  if (!USABLE(h, loop)) return false;
  SchedArg a[1] = {arg_name(h, loop)};
  return step(h, "vectorize", a, 1);
}

bool npg_sched_parallel(NpgSched *h, const char *loop) {
  if (!USABLE(h, loop)) return false;
  SchedArg a[1] = {arg_name(h, loop)};
  return step(h, "parallel", a, 1);
}

bool npg_sched_loop_partition(NpgSched *h, const char *loop, const long long *points, int n) {
  if (!usable(h, __func__, NAMES(loop, (const char *)points), 2, "loop, points") || n < 1 || n > 63) return false;
  SchedArg a[64];
  a[0] = arg_name(h, loop);
  for (int i = 0; i < n; i++) a[i + 1] = arg_int(h, points[i]);
  return step(h, "loop_partition", a, n + 1);
}

static bool two_names(NpgSched *h, const char *fn, const char *prim, const char *x, const char *y) {
  if (!usable(h, fn, NAMES(x, y), 2, "statement, loop")) return false;
  SchedArg a[2] = {arg_name(h, x), arg_name(h, y)};
  return step(h, prim, a, 2);
}

bool npg_sched_compute_at(NpgSched *h, const char *stmt, const char *loop) {
  return two_names(h, __func__, "compute_at", stmt, loop);
}
bool npg_sched_reverse_compute_at(NpgSched *h, const char *stmt, const char *loop) {
  return two_names(h, __func__, "reverse_compute_at", stmt, loop);
}
bool npg_sched_decompose_reduction(NpgSched *h, const char *init, const char *loop) {
  return two_names(h, __func__, "decompose_reduction", init, loop);
}

bool npg_sched_compute_inline(NpgSched *h, const char *stmt) {
  if (!USABLE(h, stmt)) return false;
  SchedArg a[1] = {arg_name(h, stmt)};
  return step(h, "compute_inline", a, 1);
}

bool npg_sched_reverse_compute_inline(NpgSched *h, const char *stmt) {
  if (!USABLE(h, stmt)) return false;
  SchedArg a[1] = {arg_name(h, stmt)};
  return step(h, "reverse_compute_inline", a, 1);
}

bool npg_sched_annotate_int(NpgSched *h, const char *target, const char *key, long long value) {
  if (!USABLE(h, target, key)) return false;
  SchedArg a[3] = {arg_name(h, target), arg_str(h, key), arg_int(h, value)};
  return step(h, "annotate", a, 3);
}

bool npg_sched_annotate_str(NpgSched *h, const char *target, const char *key, const char *value) {
  if (!USABLE(h, target, key, value)) return false;
  SchedArg a[3] = {arg_name(h, target), arg_str(h, key), arg_str(h, value)};
  return step(h, "annotate", a, 3);
}

int npg_sched_end(NpgSched *h) {
  if (!h) return -1;
  if (!h->sc) {
    diag_error(&h->s->diags, NULL, NULL, 0, 0, "npg_sched_end: the schedule handle was ended already");
    return -1;
  }
  int r = -1;
  if (!h->failed && helpers_free(h->s, h->sc, h->s->m->file, NULL, (SrcLoc){0, 0}) &&
      commit(h->s, h->sc, h->k, NULL, h->s->m->file, NULL, (SrcLoc){0, 0}))
    r = h->s->nv - 1;
  sched_free(h->sc);
  h->sc = NULL; /* the handle itself stays until npg_close */
  return r;
}

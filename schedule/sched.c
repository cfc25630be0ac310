/* The schedule driver: variant state, the primitive table, argument and
 * name resolution, and the structural helpers primitives share. */
#include "schedule/sched.h"

#include <isl/ctx.h>
#include <isl/options.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arith.h"
#include "ir/fits.h"
#include "ir/reserved.h"
#include "ir/suggest.h"
#include "schedule/primitives.h"
#include "schedule/tensorize.h"

/* What becomes of the variant's dependence model after the step:
 *  - MODEL_KEPT: the step keeps every statement instance and what it
 *    accesses (it moves, copies or marks them): the model carries over, and
 *    the IR's origins lead back to its instances. One that moves or copies
 *    calls sched_begin_rewrite first; one that does not only marks (loop
 *    kinds, intrinsics, scopes, annotations), so the IR's schedule and the
 *    marks proven on it still stand (schedule/marks.c);
 *  - MODEL_REBUILT: new statements, accesses or indices (caches, layouts):
 *    the next proof builds a new model, in which the existing statements
 *    keep their origins (an unrolled statement's copies stay one);
 *  - MODEL_RESET: the step merges or repeats statements (compute_at,
 *    compute_inline): the next model restarts every origin. */
typedef enum { MODEL_KEPT, MODEL_REBUILT, MODEL_RESET } ModelAfter;

/* KEEPS_ORDER: the step runs every instance once, in the order it ran
 * before (split, fuse, unroll, loop_partition only re-express the loops),
 * so no dependence can be reversed: the marks are proven again where a
 * marked loop's header changed, but the instances, "each once" and the
 * dependences are checked only where Sched.prove_kept_order asks it (the
 * random-schedule tester), which then reports a failure as an npugen bug. */
enum { MAY_REORDER, KEEPS_ORDER };

static const struct {
  const char *name;
  PrimFn fn;
  int min_args, max_args;
  const char *usage;
  ModelAfter after;
  int order;
} prims[] = {
    {"split", prim_split, 4, 4, "split(loop, factor, outer, inner)", MODEL_KEPT, KEEPS_ORDER},
    {"fuse", prim_fuse, 3, 3, "fuse(outer, inner, fused)", MODEL_KEPT, KEEPS_ORDER},
    {"merge", prim_merge, 2, 2, "merge(first, second)", MODEL_KEPT, MAY_REORDER},
    {"fission", prim_fission, 2, 64, "fission(loop, after_statement, ...)", MODEL_KEPT, MAY_REORDER},
    {"reorder", prim_reorder, 2, 64, "reorder(loop, loop, ...)", MODEL_KEPT, MAY_REORDER},
    {"tile", prim_tile, 8, 8, "tile(x, y, x_factor, y_factor, xo, yo, xi, yi)", MODEL_KEPT, MAY_REORDER},
    {"unroll", prim_unroll, 1, 2, "unroll(loop) or unroll(loop, factor)", MODEL_KEPT, KEEPS_ORDER},
    {"vectorize", prim_vectorize, 1, 2, "vectorize(loop) or vectorize(loop, lanes)", MODEL_KEPT, MAY_REORDER},
    {"parallel", prim_parallel, 1, 1, "parallel(loop)", MODEL_KEPT, MAY_REORDER},
    {"loop_partition", prim_loop_partition, 2, 64, "loop_partition(loop, point, ...)", MODEL_KEPT, KEEPS_ORDER},
    {"compute_at", prim_compute_at, 2, 2, "compute_at(statement, loop)", MODEL_RESET, MAY_REORDER},
    {"reverse_compute_at", prim_reverse_compute_at, 2, 2, "reverse_compute_at(statement, loop)", MODEL_RESET, MAY_REORDER},
    {"compute_inline", prim_compute_inline, 1, 1, "compute_inline(statement)", MODEL_RESET, MAY_REORDER},
    {"expand", prim_expand, 1, 2, "expand(local) or expand(local, loop)", MODEL_REBUILT, MAY_REORDER},
    {"fold", prim_fold, 1, 1, "fold(statement)", MODEL_RESET, MAY_REORDER},
    {"hoist_offset", prim_hoist_offset, 3, 3, "hoist_offset(update, offset, new_buffer)", MODEL_REBUILT, MAY_REORDER},
    {"stage", prim_stage, 3, 3, "stage(statement, \"expression\", new_buffer)", MODEL_REBUILT, MAY_REORDER},
    {"reverse_compute_inline", prim_reverse_compute_inline, 1, 1, "reverse_compute_inline(statement)", MODEL_RESET, MAY_REORDER},
    {"decompose_reduction", prim_decompose_reduction, 2, 2, "decompose_reduction(init_statement, loop)", MODEL_KEPT, MAY_REORDER},
    {"init_at", prim_init_at, 2, 2, "init_at(init_statement, loop)", MODEL_KEPT, MAY_REORDER},
    {"annotate", prim_annotate, 3, 3, "annotate(loop_or_statement, key, value)", MODEL_KEPT, MAY_REORDER},
    {"transform_layout", prim_transform_layout, 3, 4, "transform_layout(buffer, (i, j, ...), (index, ...)[, pad_value])", MODEL_REBUILT, MAY_REORDER},
    {"buffer_split", prim_buffer_split, 3, 4, "buffer_split(buffer, axis, factor[, pad_value])", MODEL_REBUILT, MAY_REORDER},
    {"buffer_fuse", prim_buffer_fuse, 3, 3, "buffer_fuse(buffer, axis, axis + 1)", MODEL_REBUILT, MAY_REORDER},
    {"buffer_reorder", prim_buffer_reorder, 2, 9, "buffer_reorder(buffer, axis, axis, ...)", MODEL_REBUILT, MAY_REORDER},
    {"buffer_pad", prim_buffer_pad, 3, 3, "buffer_pad(buffer, (extent, ...), pad_value)", MODEL_REBUILT, MAY_REORDER},
    {"storage_align", prim_storage_align, 4, 4, "storage_align(buffer, axis, factor, offset)", MODEL_KEPT, MAY_REORDER},
    {"set_axis_separators", prim_set_axis_separators, 1, 8, "set_axis_separators(buffer, axis, ...)", MODEL_KEPT, MAY_REORDER},
    {"set_scope", prim_set_scope, 2, 2, "set_scope(local_array, scope)", MODEL_KEPT, MAY_REORDER},
    {"cache_read", prim_cache_read, 4, 4, "cache_read(buffer, scope, at_loop or root, new_buffer)", MODEL_REBUILT, MAY_REORDER},
    {"cache_write", prim_cache_write, 4, 4, "cache_write(buffer, scope, at_loop or root, new_buffer)", MODEL_REBUILT, MAY_REORDER},
    {"tensorize", prim_tensorize, 2, 2, "tensorize(loop, intrinsic)", MODEL_KEPT, MAY_REORDER},
    {"double_buffer", prim_double_buffer, 1, 1, "double_buffer(buffer)", MODEL_KEPT, MAY_REORDER},
    {"bind", prim_bind, 2, 2, "bind(loop, vu)", MODEL_KEPT, MAY_REORDER},
    {"use", prim_use, 2, 2, "use(call, variant)", MODEL_RESET, MAY_REORDER},
    {"inline", prim_inline, 1, 1, "inline(call)", MODEL_REBUILT, MAY_REORDER},
};

Sched *sched_new(Arena *a, const Module *m, const Kernel *k, const char *variant, DiagList *d,
                 const char *file, const char *src, const NpuTarget *target) {
  Sched *s = calloc(1, sizeof *s);
  if (target) s->target = *target;
  else npusim_target_default(&s->target);
  s->a = a;
  s->m = m;
  s->k = ir_clone_kernel(a, k);
  s->written = k;
  sched_forget_copies(s); /* Stmt.clone_of means: copied by the step being applied */
  sched_start_calls(s);
  s->k->name = variant;
  s->variant = variant;
  s->d = d;
  s->file = file;
  s->src = src;
  s->reset_origins = true; /* the kernel as written: every leaf is new */
  s->ctx = isl_ctx_alloc();
  s->sems = sem_cache_new();
  isl_options_set_on_error(s->ctx, ISL_ON_ERROR_CONTINUE);
  sb_init(&s->applied);
  sb_init(&s->steps_ir);
  return s;
}

void sched_share_sems(Sched *s, SemCache *shared) {
  if (!shared || s->sems == shared) return;
  if (!s->sems_borrowed) sem_cache_free(s->sems);
  s->sems = shared;
  s->sems_borrowed = true;
}

void sched_free(Sched *s) {
  if (!s) return;
  sched_model_drop(s);
  if (!s->sems_borrowed) sem_cache_free(s->sems);
  isl_ctx_free(s->ctx);
  sb_free(&s->applied);
  sb_free(&s->steps_ir);
  free(s->fits_known);
  free(s);
}

/* Every expression the steps wrote fits its type (ir/fits.c); forms the
 * kernel as written already had are its own. */
static bool sched_check_fits(Sched *s) {
  char why[600];
  if (!s->fits_known) s->fits_known = ir_fits_failures(s->written);
  if (ir_check_fits(s->k, s->fits_known, why, sizeof why)) return true;
  return sched_error(s, NULL, "refused: npugen cannot prove that the code it writes fits its types: %s", why);
}

/* What holds after every rewrite, a step's or sched_finish's: the IR
 * simplified and well formed, no name captured, every mark proven, bound
 * loops and on-chip placement valid. */
static bool recheck(Sched *s) {
  arith_simplify_kernel(s->a, s->k); /* (io * 4 + ii) / 4 -> io, after splits and layouts (values only) */
  if (!ir_verify_kernel(s->k, s->d, s->file) || !sched_check_calls(s)) return false;
  char why[300];
  if (!ir_check_names(s->k, why, sizeof why))
    return sched_error(s, NULL, "refused: the emitted C would capture a name: %s; rename one of them in the kernel", why);
  /* symbolic sizes: the new bounds' arithmetic (a split's (n + 31) / 32)
   * and every index, at every size the assumptions allow */
  if (s->k->nsizes && !ir_check_bounds(s->k, s->d, s->m->file, s->m->src))
    return sched_error(s, NULL,
                       "refused: at some size the kernel after this step fails the bounds check above; assume "
                       "smaller sizes (#pragma npu assume)");
  return sched_unrolled_size_ok(s) && sched_check_fits(s) && sched_check_marks(s) && sched_check_bound_loops(s) &&
         sched_place_onchip(s);
}

/* Every step takes a kernel with symbolic sizes: its legality proofs
 * hold at every size (the sizes lead every instance of the model,
 * ir/deps.c), regions and buffers follow the sizes or are as large as the
 * assumptions let the counters run (schedule/cache.c, schedule/region.c,
 * expand's and stage's arrays), and the check runs each variant at the
 * kernel's size sets. A call of a sized kernel has its sizes put in
 * (ir_call_pass_sizes). Each step has a test on a sized kernel
 * (tests/test_sizes.c, tests/test_sized_steps.c, tests/test_sized_calls.c,
 * tests/kernels/sized_*.c). */
bool sched_apply(Sched *s, const SchedStep *st) {
  s->step = st;
  int pi = -1;
  for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++)
    if (!strcmp(prims[i].name, st->prim)) pi = (int)i;
  if (pi < 0) {
    IrSuggest near = ir_suggest_start(st->prim);
    for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++) ir_suggest_add(&near, prims[i].name);
    char dym[160];
    diag_error(s->d, s->file, s->src, st->loc.line, st->loc.col, "unknown schedule primitive '%s'%s", st->prim,
               ir_suggest_text(&near, dym, sizeof dym));
    StrBuf sb;
    sb_init(&sb);
    for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++) sb_printf(&sb, "%s%s", i ? ", " : "", prims[i].name);
    diag_note(s->d, s->file, NULL, st->loc.line, st->loc.col, "the primitives are: %s", sb.data);
    sb_free(&sb);
    return false;
  }
  int lo = prims[pi].min_args, hi = prims[pi].max_args;
  if (st->nargs < lo || st->nargs > hi) {
    char count[48]; /* "2", "3 or 4", "1 to 8", "at least 2" (hi > 8: a list) */
    if (lo == hi) snprintf(count, sizeof count, "%d", lo);
    else if (hi > 8) snprintf(count, sizeof count, "at least %d", lo);
    else snprintf(count, sizeof count, hi == lo + 1 ? "%d or %d" : "%d to %d", lo, hi);
    return sched_error(s, NULL, "takes %s argument%s, %s; got %d", count, hi == 1 ? "" : "s", prims[pi].usage, st->nargs);
  }
  s->step_keeps_order = prims[pi].order == KEEPS_ORDER;
  s->reorder.top = NULL;
  s->step_keeps_pairs = s->step_adds_no_access = s->step_runs_once = false;
  unsigned gen_before = s->ir_gen;
  bool ok = prims[pi].fn(s, st);
  bool reordered = s->reorder.top != NULL;
  s->step_keeps_order = false;
  s->reorder.top = NULL;
  s->step_runs_once = false;
  bool keeps_pairs = s->step_keeps_pairs, no_new_pairs = keeps_pairs && s->step_adds_no_access;
  s->step_keeps_pairs = s->step_adds_no_access = false;
  if (!ok) return false;
  /* a cache that only renamed a local array keeps the model (sched.h) */
  if (prims[pi].after != MODEL_KEPT && !(no_new_pairs && sched_model_keep_renamed(s))) sched_model_drop(s);
  if (prims[pi].after == MODEL_RESET) s->reset_origins = true;
  if (pad_drop_guards(s)) sched_model_drop(s); /* instances that only touch padding run now */
  else if (prims[pi].order == KEEPS_ORDER && prims[pi].after == MODEL_KEPT) sched_marks_after_copies(s, gen_before);
  else if (no_new_pairs) sched_marks_carry(s, gen_before); /* every pair was there, and each proof holds */
  else if (keeps_pairs) sched_marks_after_new_statements(s, gen_before);
  else if (reordered && prims[pi].after == MODEL_KEPT) sched_marks_after_reorder(s, gen_before);
  sched_forget_copies(s); /* a later step's copies are its own */
  if (!recheck(s)) return false;
  sb_printf(&s->applied, "%s\n", st->text);
  if (s->keep_steps_ir) {
    sb_printf(&s->steps_ir, "# after %s\n", st->text);
    ir_print_kernel(&s->steps_ir, s->k);
  }
  return true;
}

/* ---------------- messages ---------------- */

static SrcLoc where(const Sched *s, const SchedArg *arg) {
  if (arg && arg->loc.line) return arg->loc;
  return s->step ? s->step->loc : (SrcLoc){0, 0};
}

/* "PRIM: message" at the argument (or the step), as an error or a warning. */
static void report(Sched *s, const SchedArg *arg, bool warning, const char *fmt, va_list ap) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s: ", s->step ? s->step->prim : "schedule");
  sb_vprintf(&sb, fmt, ap);
  SrcLoc l = where(s, arg);
  if (warning) diag_warning(s->d, s->file, s->src, l.line, l.col, "%s", sb.data);
  else diag_error(s->d, s->file, s->src, l.line, l.col, "%s", sb.data);
  sb_free(&sb);
}

bool sched_error(Sched *s, const SchedArg *arg, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(s, arg, false, fmt, ap);
  va_end(ap);
  return false;
}

void sched_warning(Sched *s, const SchedArg *arg, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(s, arg, true, fmt, ap);
  va_end(ap);
}

void sched_weakening(Sched *s, const SchedArg *arg, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(s, arg, true, fmt, ap);
  va_end(ap);
  s->d->last->weakens = true;
}

void sched_note(Sched *s, int line, const char *fmt, ...) {
  (void)line;
  va_list ap;
  va_start(ap, fmt);
  SrcLoc l = where(s, NULL);
  diag_verror(s->d, true, s->file, NULL, l.line, l.col, fmt, ap);
  va_end(ap);
}

/* ---------------- name resolution ---------------- */

typedef struct {
  const char *name;
  bool loops, leaves;
  bool by_var;       /* match loops by their counter's name */
  Stmt *found[16];
  int n;
  StrBuf all;        /* every candidate name, for "no such" messages */
  IrSuggest near;    /* and the closest of them */
} Find;

static bool find_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Find *f = ctx;
  bool is_loop = st->kind == ST_FOR, is_leaf = st->kind == ST_ASSIGN || st->kind == ST_DECL;
  if (!st->name || !((is_loop && f->loops) || (is_leaf && f->leaves))) return true;
  const char *n = f->by_var && is_loop ? st->var->name : st->name;
  if (!strcmp(n, f->name)) {
    if (f->n < 16) f->found[f->n] = st;
    f->n++;
  }
  if (!f->by_var) sb_printf(&f->all, "%s%s", f->all.len ? ", " : "", st->name);
  if (!f->by_var) ir_suggest_add(&f->near, st->name);
  return true;
}

static bool ident_char(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* The last applied step whose arguments name `name` (a word), copied into
 * buf; "" when none does. A name no longer there was most likely replaced
 * by that step (split(i, ...) removes i): saying so names the user's own
 * loops, not only the ones the steps made. */
static const char *last_naming_step(const Sched *s, const char *name, char *buf, size_t n) {
  buf[0] = 0;
  size_t len = strlen(name);
  for (const char *line = s->applied.data; line && *line;) {
    const char *end = strchr(line, '\n');
    if (!end) end = line + strlen(line);
    const char *open = memchr(line, '(', (size_t)(end - line));
    for (const char *p = open; p && p + len <= end; p++)
      if (!strncmp(p, name, len) && !ident_char(p[-1]) && (p + len == end || !ident_char(p[len]))) {
        snprintf(buf, n, "%.*s", (int)(end - line), line);
        break;
      }
    line = *end ? end + 1 : end;
  }
  return buf;
}

/* A loop or statement named arg inside a marked call: refused, naming
 * the call (true then). */
static bool in_marked_call(Sched *s, const SchedArg *arg, bool loops, bool leaves) {
  Find f = {.name = arg->name, .loops = loops, .leaves = leaves, .near = ir_suggest_start(arg->name)};
  sb_init(&f.all);
  ir_walk_stmts(s->k->body, find_visit, &f);
  sb_free(&f.all);
  Stmt *call = f.n ? sched_call_holding(s, f.found[0]) : NULL;
  if (!call) return false;
  sched_refuse_in_call(s, arg, call, arena_printf(s->a, "%s %s", f.found[0]->kind == ST_FOR ? "loop" : "statement",
                                                  arg->name));
  return true;
}

static Stmt *find(Sched *s, const SchedArg *arg, bool loops, bool leaves, const char *what) {
  if (arg->kind != SA_NAME) {
    sched_error(s, arg, "expected the name of a %s, got '%s'", what, arg->text);
    return NULL;
  }
  Find f = {.name = arg->name, .loops = loops, .leaves = leaves, .near = ir_suggest_start(arg->name)};
  sb_init(&f.all);
  ir_walk_outside_calls(s->k->body, find_visit, &f); /* a marked call's statements are not the step's to name */
  if (f.n == 0 && loops) {
    f.by_var = true;
    ir_walk_outside_calls(s->k->body, find_visit, &f);
  }
  if (f.n == 0 && in_marked_call(s, arg, loops, leaves)) {
    sb_free(&f.all);
    return NULL;
  }
  Stmt *r = NULL;
  if (f.n == 1) {
    r = f.found[0];
  } else if (f.n == 0) {
    char dym[160], step[256], gone[320] = "";
    if (*last_naming_step(s, arg->name, step, sizeof step))
      snprintf(gone, sizeof gone, "; the last step that named '%s' was %s", arg->name, step);
    sched_error(s, arg, "no %s named '%s' in %s (%s: %s)%s%s", what, arg->name, s->k->name,
                loops && leaves ? "loops and statements" : loops ? "loops" : "statements",
                f.all.len ? f.all.data : "none", gone, ir_suggest_text(&f.near, dym, sizeof dym));
  } else {
    StrBuf c;
    sb_init(&c);
    for (int i = 0; i < f.n && i < 16; i++)
      sb_printf(&c, "%s%s (line %d)", i ? ", " : "", f.found[i]->name, f.found[i]->loc.line);
    if (f.by_var)
      sched_error(s, arg, "'%s' is ambiguous: it names %d loops: %s", arg->name, f.n, c.data);
    else
      sched_error(s, arg, "'%s' is ambiguous: it occurs %d times (copies made by an earlier step): %s", arg->name, f.n, c.data);
    sb_free(&c);
  }
  sb_free(&f.all);
  /* an unrolled loop disappears after the last step: only reorder moves it */
  if (r && r->kind == ST_FOR && r->loop_kind == LOOP_UNROLL && s->step && strcmp(s->step->prim, "reorder")) {
    if (!strcmp(s->step->prim, "unroll"))
      sched_error(s, arg, "loop %s is already unrolled (%s, line %d)", r->name, r->mark_step ? r->mark_step : "unroll",
                  r->mark_loc.line);
    else
      sched_error(s, arg, "loop %s is unrolled (%s, line %d); %s it before the unroll, or unroll less", r->name,
                  r->mark_step ? r->mark_step : "unroll", r->mark_loc.line, s->step->prim);
    return NULL;
  }
  return r;
}

Stmt *sched_loop(Sched *s, const SchedArg *arg) { return find(s, arg, true, false, "loop"); }
Stmt *sched_leaf(Sched *s, const SchedArg *arg) { return find(s, arg, false, true, "statement"); }
Stmt *sched_target(Sched *s, const SchedArg *arg) { return find(s, arg, true, true, "loop or statement"); }

bool sched_int(Sched *s, const SchedArg *arg, int64_t *v) {
  if (arg->kind == SA_INT || (arg->kind == SA_NAME && arg->has_value)) {
    *v = arg->ival;
    return true;
  }
  return sched_error(s, arg, "expected an integer constant, got '%s'", arg->text);
}

bool sched_positive(Sched *s, const SchedArg *arg, const char *what, int64_t *v) {
  if (!sched_int(s, arg, v)) return false;
  if (*v <= 0) return sched_error(s, arg, "%s must be positive, got %lld", what, (long long)*v);
  if (*v > INT32_MAX) return sched_error(s, arg, "%s %lld is too large", what, (long long)*v);
  return true;
}

typedef struct {
  const char *name;
  bool taken;
} Taken;

static bool not_a_call_of(const Expr *e, void *name) { return !(e->kind == EX_CALL && !strcmp(e->text, name)); }

static bool calls(const Expr *e, const char *name) { return !ir_walk_expr(e, not_a_call_of, (void *)name); }

static bool taken_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Taken *t = ctx;
  /* a counter named like a function the body calls would shadow it */
  const Expr *es[] = {st->lo, st->hi, st->cond, st->lhs, st->rhs, st->init};
  for (size_t i = 0; i < sizeof es / sizeof es[0]; i++)
    if (calls(es[i], t->name)) t->taken = true;
  if (st->name && !strcmp(st->name, t->name)) t->taken = true;
  if (st->var && !strcmp(st->var->name, t->name)) t->taken = true;
  if (st->buf && !strcmp(st->buf->name, t->name)) t->taken = true;
  /* the function a marked call runs (schedule/use.c) is called by name too */
  if (st->kind == ST_BLOCK && st->call && !strcmp(st->call->fn, t->name)) t->taken = true;
  /* names the emitter declares for an on-chip buffer (double_buffer, bind) */
  if (st->buf && ((st->buf->db_name && !strcmp(st->buf->db_name, t->name)) ||
                  (st->buf->db_token && !strcmp(st->buf->db_token, t->name))))
    t->taken = true;
  return !t->taken;
}

bool sched_name_taken(Sched *s, const char *name) {
  /* type names (int32_t), the C library's names and our own prefixes */
  if (type_by_name(name) || ir_reserved_why(name)) return true;
  for (const Param *p = s->k->params; p; p = p->next)
    if (!strcmp(p->buf ? p->buf->name : p->var->name, name)) return true;
  for (const Define *d = s->m->defines; d; d = d->next)
    if (!strcmp(d->name, name)) return true;
  for (const Kernel *k = s->m->kernels; k; k = k->next)
    if (!strcmp(k->name, name)) return true;
  if (!strcmp(s->variant, name)) return true;
  Taken t = {name, false};
  ir_walk_stmts(s->k->body, taken_visit, &t);
  return t.taken;
}

/* A C identifier that is not a keyword (API callers pass any string). */
bool sched_is_c_name(const char *n) {
  static const char *const kw[] = {"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
                                   "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
                                   "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
                                   "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool"};
  if (!n[0] || !((n[0] >= 'a' && n[0] <= 'z') || (n[0] >= 'A' && n[0] <= 'Z') || n[0] == '_')) return false;
  for (const char *p = n; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) return false;
  for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
    if (!strcmp(n, kw[i])) return false;
  return strlen(n) < 64;
}

const char *sched_new_name(Sched *s, const SchedArg *arg) {
  if (arg->kind != SA_NAME || !sched_is_c_name(arg->name)) {
    sched_error(s, arg, "expected a name for the new loop (a C identifier), got '%s'", arg->text);
    return NULL;
  }
  const char *why = ir_reserved_why(arg->name);
  if (why) {
    sched_error(s, arg, "the new name '%s' is reserved: %s", arg->name, why);
    return NULL;
  }
  if (sched_name_taken(s, arg->name)) {
    sched_error(s, arg, "the name '%s' is already used in %s; new loops and buffers need fresh names", arg->name, s->k->name);
    return NULL;
  }
  return arg->name;
}

const char *sched_fresh_name(Sched *s, const char *base) {
  for (int i = 1;; i++) {
    const char *n = arena_printf(s->a, "%s_%d", base, i);
    if (!sched_name_taken(s, n)) return n;
  }
}

const char *sched_derived_name(Sched *s, const char *base, const char *suffix) {
  const char *n = arena_printf(s->a, "%s%s", base, suffix);
  return sched_name_taken(s, n) ? sched_fresh_name(s, n) : n;
}

/* ---------------- structure ---------------- */

static Stmt **link_in(Stmt **list, const Stmt *target, Stmt *owner, Stmt **out_owner) {
  for (Stmt **l = list; *l; l = &(*l)->next) {
    Stmt *c = *l;
    if (c == target) {
      *out_owner = owner;
      return l;
    }
    Stmt **r = NULL;
    switch (c->kind) {
    case ST_BLOCK: r = link_in(&c->body, target, c, out_owner); break;
    case ST_FOR: r = link_in(&c->body->body, target, c->body, out_owner); break;
    case ST_IF:
      r = link_in(&c->then_s->body, target, c->then_s, out_owner);
      if (!r && c->else_s) r = link_in(&c->else_s->body, target, c->else_s, out_owner);
      break;
    default: break;
    }
    if (r) return r;
  }
  return NULL;
}

Stmt **sched_link(Sched *s, const Stmt *stmt, Stmt **owner) {
  Stmt *o = NULL;
  Stmt **l = link_in(&s->k->body->body, stmt, s->k->body, &o);
  if (owner) *owner = o;
  return l;
}

typedef struct {
  const Stmt *target;
  Stmt *parent;
  Stmt *stack[512];
  int depth;
} ParentFind;

static bool parent_rec(ParentFind *p, Stmt *list) {
  for (Stmt *c = list; c; c = c->next) {
    if (c == p->target) {
      p->parent = p->depth ? p->stack[p->depth - 1] : NULL;
      return true;
    }
    if (c->kind == ST_FOR && p->depth < 512) {
      p->stack[p->depth++] = c;
      bool r = parent_rec(p, c->body->body);
      p->depth--;
      if (r) return true;
    } else if (c->kind == ST_BLOCK) {
      if (parent_rec(p, c->body)) return true;
    } else if (c->kind == ST_IF) {
      if (parent_rec(p, c->then_s->body) || (c->else_s && parent_rec(p, c->else_s->body))) return true;
    }
  }
  return false;
}

const char *sched_onchip_scope(Sched *s, const SchedArg *arg) {
  static const char *const scopes[] = {"dm", "nu_ib", "nu_wb", "nu_ob", "vu_vm"};
  IrSuggest near = ir_suggest_start(arg->text);
  for (size_t i = 0; i < sizeof scopes / sizeof scopes[0]; i++) {
    if (arg->kind == SA_NAME && !strcmp(arg->name, scopes[i])) return scopes[i];
    ir_suggest_add(&near, scopes[i]);
  }
  char dym[160];
  sched_error(s, arg, "unknown scope '%s'; the on-chip scopes are dm, nu_ib, nu_wb, nu_ob and vu_vm%s", arg->text,
              ir_suggest_text(&near, dym, sizeof dym));
  return NULL;
}

bool sched_finish(Sched *s) {
  if (!sched_unrolled_inside(s->k->body)) return true;
  /* the copies are the unroll's: its messages are at the (last) unroll */
  if (s->unroll_step) s->step = s->unroll_step;
  unsigned gen_before = s->ir_gen;
  if (s->prove_kept_order) {
    if (!sched_begin_rewrite(s)) return false;
  } else {
    sched_ir_rewritten(s);
  }
  if (!sched_expand_unrolled(s)) return false;
  if (s->prove_kept_order) { /* the random tester proves the copies too */
    s->step_keeps_order = true;
    bool ok = sched_legal(s);
    s->step_keeps_order = false;
    if (!ok) return false;
  }
  sched_marks_after_copies(s, gen_before);
  sched_forget_copies(s);
  if (!recheck(s)) return false; /* each copy has its own bound loops and on-chip buffers */
  if (s->keep_steps_ir) {
    sb_puts(&s->steps_ir, "# after expanding the unrolled loops\n");
    ir_print_kernel(&s->steps_ir, s->k);
  }
  return true;
}

bool sched_loop_unmarked(Sched *s, const SchedStep *st, const SchedArg *at, const Stmt *loop) {
  const char *mark = loop->loop_kind == LOOP_VU         ? "bound to the VU cores (bind)"
                     : loop->loop_kind == LOOP_PARALLEL  ? "parallel"
                     : loop->loop_kind == LOOP_VECTORIZE ? "vectorized"
                                                         : NULL;
  if (mark)
    return sched_error(s, at, "loop %s is %s; %s replaces it by new loops, which would not be: %s before marking",
                       loop->name, mark, st->prim, st->prim);
  /* tensorize, or vectorize on vector memory: the intrinsic is the loop's;
   * new loops would silently run the nest on the host */
  if (loop->intrin)
    return sched_error(s, at, "loop %s is computed by one intrinsic call (%s); %s replaces it by new loops, which "
                       "would not be: %s before tensorize or vectorize, or apply it to a loop around the nest",
                       loop->name, loop->intrin, st->prim, st->prim);
  return true;
}

static bool loops_rec(const Stmt *list, const Stmt *target, Stmt **loops, int max, int *n) {
  for (const Stmt *c = list; c; c = c->next) {
    if (c == target) return true;
    bool loop = c->kind == ST_FOR && *n < max;
    if (loop) loops[(*n)++] = (Stmt *)c;
    if ((c->kind == ST_FOR || c->kind == ST_BLOCK) && loops_rec(c->body, target, loops, max, n)) return true;
    if (c->kind == ST_IF && (loops_rec(c->then_s, target, loops, max, n) || loops_rec(c->else_s, target, loops, max, n)))
      return true;
    if (loop) (*n)--;
  }
  return false;
}

int sched_loops_around(Sched *s, const Stmt *st, Stmt **loops, int max) {
  int n = 0;
  return loops_rec(s->k->body->body, st, loops, max, &n) && n < max ? n : -1;
}

Stmt *sched_parent_loop(Sched *s, const Stmt *stmt) {
  Stmt *owner = NULL;
  if (!sched_link(s, stmt, &owner)) return NULL;
  ParentFind p = {.target = stmt};
  parent_rec(&p, s->k->body->body);
  /* Only when stmt sits directly in that loop's body block. */
  if (p.parent && owner == p.parent->body) return p.parent;
  return NULL;
}

static bool contains(const Stmt *list, const Stmt *inner) {
  for (const Stmt *c = list; c; c = c->next) {
    if (c == inner) return true;
    switch (c->kind) {
    case ST_BLOCK:
    case ST_FOR:
      if (contains(c->body, inner)) return true;
      break;
    case ST_IF:
      if (contains(c->then_s, inner) || contains(c->else_s, inner)) return true;
      break;
    default:
      break;
    }
  }
  return false;
}

bool sched_encloses(const Stmt *outer, const Stmt *inner) {
  return outer != inner && outer->kind == ST_FOR && contains(outer->body, inner);
}

Stmt *sched_block(Sched *s, Stmt *list, SrcLoc loc) {
  Stmt *b = ir_stmt(s->a, ST_BLOCK, loc);
  b->body = list;
  return b;
}

Stmt *sched_make_loop(Sched *s, const char *name, const Type *t, Expr *lo, Expr *hi, SrcLoc loc, Var **var) {
  Stmt *l = ir_stmt(s->a, ST_FOR, loc);
  l->var = ir_new_var(s->a, s->k, name, t, VAR_LOOP, loc);
  l->name = name;
  l->lo = lo;
  l->hi = hi;
  l->cmp = OP_LT;
  l->step = 1;
  l->body = sched_block(s, NULL, loc);
  if (var) *var = l->var;
  return l;
}

typedef struct {
  Stmt **loops;
  int n, cap;
} LoopSet;

static bool collect_loops(Stmt *st, int depth, void *ctx) {
  (void)depth;
  LoopSet *l = ctx;
  if (st->kind != ST_FOR) return true;
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    l->loops = realloc(l->loops, sizeof *l->loops * (size_t)l->cap);
  }
  l->loops[l->n++] = st;
  return true;
}

void sched_rename_copies(Sched *s, Stmt *copy) {
  /* collect first: the name search must see the whole kernel, siblings too */
  LoopSet l = {0};
  Stmt *next = copy->next;
  copy->next = NULL;
  ir_walk_stmts(copy, collect_loops, &l);
  copy->next = next;
  for (int i = 0; i < l.n; i++) l.loops[i]->name = NULL;
  for (int i = 0; i < l.n; i++) {
    /* fresh in the kernel and among this copy's loops (it may not be linked yet) */
    for (int n = 1;; n++) {
      const char *c = arena_printf(s->a, "%s_%d", l.loops[i]->var->name, n);
      bool used = sched_name_taken(s, c);
      for (int j = 0; j < i && !used; j++) used = !strcmp(l.loops[j]->name, c);
      if (!used) {
        l.loops[i]->name = c;
        break;
      }
    }
    l.loops[i]->labeled = false;
  }
  free(l.loops);
}

static bool is_empty_list(Stmt **list);

/* Drops empty loops, ifs and blocks from a list; true when nothing is left. */
static bool is_empty_list(Stmt **list) {
  for (Stmt **l = list; *l;) {
    Stmt *c = *l;
    bool empty = false;
    if (c->kind == ST_FOR) empty = is_empty_list(&c->body->body);
    else if (c->kind == ST_BLOCK) empty = is_empty_list(&c->body);
    else if (c->kind == ST_IF) empty = is_empty_list(&c->then_s->body) & (!c->else_s || is_empty_list(&c->else_s->body));
    if (!empty && c->kind == ST_IF && c->else_s && !c->else_s->body) c->else_s = NULL; /* no `else {}` */
    if (empty) *l = c->next;
    else l = &c->next;
  }
  return !*list;
}

void sched_drop_empty(Sched *s) { is_empty_list(&s->k->body->body); }

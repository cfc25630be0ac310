/* What the schedule of a program (a kernel with calls, docs/programs.md)
 * shares between its steps: finding a call by name, and the rule that a
 * marked call is emitted as a call, so no step may change the statements
 * it holds (their fingerprint, ir_call_fingerprint, is kept from the
 * moment the call is marked and compared after every step). */
#include <string.h>

#include "ir/arith.h"
#include "ir/suggest.h"
#include "schedule/sched.h"

typedef struct {
  const char *name;
  Stmt *found[16];
  int n;
  StrBuf all;
  IrSuggest near;
} CallFind;

static bool find_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  CallFind *f = ctx;
  if (st->kind != ST_BLOCK || !st->call) return true;
  if (!strcmp(st->call->name, f->name)) {
    if (f->n < 16) f->found[f->n] = st;
    f->n++;
  }
  sb_printf(&f->all, "%s%s", f->all.len ? ", " : "", st->call->name);
  ir_suggest_add(&f->near, st->call->name);
  return true;
}

/* A call marked inside another marked call, named `name`: its outermost
 * marked call, or NULL. */
static Stmt *nested_call(Sched *s, const char *name) {
  CallFind f = {.name = name, .near = ir_suggest_start(name)};
  sb_init(&f.all);
  ir_walk_stmts(s->k->body, find_visit, &f);
  sb_free(&f.all);
  return f.n ? ir_call_around(s->k->body, f.found[0]) : NULL;
}

Stmt *sched_call(Sched *s, const SchedArg *arg) {
  if (arg->kind != SA_NAME) {
    sched_error(s, arg, "expected the name of a call, got '%s'", arg->text);
    return NULL;
  }
  CallFind f = {.name = arg->name, .near = ir_suggest_start(arg->name)};
  sb_init(&f.all);
  ir_walk_outside_calls(s->k->body, find_visit, &f);
  Stmt *r = f.n == 1 ? f.found[0] : NULL;
  Stmt *outer = f.n ? NULL : nested_call(s, arg->name);
  char dym[160];
  if (outer)
    sched_error(s, arg, "call %s is inside call %s (line %d), which is emitted as a call of %s; inline(%s) first",
                arg->name, outer->call->name, outer->loc.line, outer->call->fn, outer->call->name);
  else if (!f.n)
    sched_error(s, arg, "no call named '%s' in %s (calls: %s); a call is named by its label, or by the kernel it "
                "calls when that kernel is called once%s", arg->name, s->k->name, f.all.len ? f.all.data : "none",
                ir_suggest_text(&f.near, dym, sizeof dym));
  else if (f.n > 1)
    sched_error(s, arg, "'%s' is ambiguous: it names %d calls (copies made by an earlier step, lines %d and %d)",
                arg->name, f.n, f.found[0]->loc.line, f.found[1]->loc.line);
  sb_free(&f.all);
  return r;
}

Stmt *sched_call_holding(Sched *s, const Stmt *st) { return ir_call_around(s->k->body, st); }

bool sched_refuse_in_call(Sched *s, const SchedArg *arg, const Stmt *call, const char *what) {
  return sched_error(s, arg, "%s is inside call %s (line %d), which is emitted as a call of %s: a step may not "
                     "change what a call runs; inline(%s) first", what, call->call->name, call->loc.line,
                     call->call->fn, call->call->name);
}

typedef struct {
  Sched *s;
  bool ok;
} Marks;

/* Each outermost marked call: its fingerprint is taken (when new) or
 * compared (a step changed what it holds: refused). */
static bool mark_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Marks *m = ctx;
  if (st->kind != ST_BLOCK || !st->call) return true;
  const char *now = ir_call_fingerprint(m->s->a, st);
  if (!st->call->fingerprint) {
    st->call->fingerprint = now;
  } else if (strcmp(now, st->call->fingerprint)) {
    sched_error(m->s, NULL, "this step changes what call %s (line %d) runs, which is emitted as a call of %s: the "
                "emitted C would not run the scheduled IR; inline(%s) first", st->call->name, st->loc.line,
                st->call->fn, st->call->name);
    m->ok = false;
  }
  return m->ok;
}

/* ---- on-chip buffers around a call ---- */

typedef struct {
  const char *scope;
  const Buffer *found;
} ScopeUse;

static bool scope_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  ScopeUse *u = ctx;
  if (st->kind == ST_DECL && st->buf && buffer_onchip(st->buf) && !strcmp(st->buf->scope, u->scope)) u->found = st->buf;
  return !u->found;
}

/* A buffer of call block c's function in `scope`, or NULL. */
static const Buffer *call_uses_scope(Stmt *c, const char *scope) {
  ScopeUse u = {scope, NULL};
  ir_walk_stmts(c->body, scope_visit, &u);
  return u.found;
}

enum { LIVE_MAX = 64 };

typedef struct {
  Sched *s;
  const Stmt *live[LIVE_MAX]; /* on-chip declarations in scope, outermost first */
  int n;
  const Stmt *outer;          /* the outermost call placed with the caller we are inside, or NULL */
} Live;

/* A marked call's function places its on-chip buffers on its own, from
 * each scope's start: none of the caller's may be live around the call in
 * a scope the call uses. */
static bool live_list(Live *l, Stmt *list) {
  int mark = l->n;
  bool ok = true;
  for (Stmt *st = list; st && ok; st = st->next) {
    if (st->kind == ST_DECL && st->buf && buffer_onchip(st->buf)) {
      if (l->n == LIVE_MAX) /* not dropped: a clash with it could not be seen */
        return sched_error(l->s, NULL, "more than %d on-chip buffers are live at once around the calls (line %d)",
                           LIVE_MAX, st->loc.line);
      l->live[l->n++] = st;
    }
    if (st->kind == ST_BLOCK && st->call && ir_call_onchip(st->call)) {
      const Stmt *outer = l->outer;
      if (!outer) l->outer = st;
      ok = live_list(l, st->body); /* its function is placed with the caller (ir_call_function) */
      l->outer = outer;
    } else if (st->kind == ST_BLOCK && st->call) {
      /* inline a call inside another is refused: name the outermost */
      const Stmt *in_line = l->outer ? l->outer : st;
      for (int i = 0; i < l->n && ok; i++) {
        const Buffer *b = l->live[i]->buf, *in = call_uses_scope(st, b->scope);
        if (in)
          ok = sched_error(l->s, NULL, "call %s (line %d) runs %s, whose %s is in %s, while %s (%s, line %d) is live "
                           "around the call: the called function places its on-chip buffers on its own; inline(%s) "
                           "to place them together, or set_scope the arrays the call takes on chip first, which "
                           "places its function with the caller's buffers", st->call->name, st->loc.line,
                           st->call->fn, in->name, b->scope, b->name, b->scope, l->live[i]->loc.line,
                           in_line->call->name);
      }
    } else if (st->kind == ST_BLOCK || st->kind == ST_FOR) {
      ok = live_list(l, st->body);
    } else if (st->kind == ST_IF) {
      ok = live_list(l, st->then_s) && live_list(l, st->else_s);
    }
  }
  l->n = mark;
  return ok;
}

/* ---- the function of a call that passes an on-chip array ---- */

typedef struct {
  const char *name, *call; /* the function's name; the call's (its copies share both) */
  bool found;
} Taken;

static bool taken_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Taken *t = ctx;
  t->found |= (st->var && !strcmp(st->var->name, t->name)) || (st->buf && !strcmp(st->buf->name, t->name)) ||
              (st->kind == ST_BLOCK && st->call && strcmp(st->call->name, t->call) && !strcmp(st->call->fn, t->name));
  return !t->found;
}

/* Its name, FUNCTION_CALL, names nothing else the emitted C sees. */
static bool own_name_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Marks *m = ctx;
  if (st->kind != ST_BLOCK || !st->call || !ir_call_onchip(st->call)) return true;
  Taken t = {st->call->fn, st->call->name, false};
  for (const Param *p = m->s->k->params; p; p = p->next)
    t.found |= !strcmp(p->buf ? p->buf->name : p->var->name, t.name);
  t.found |= module_kernel(m->s->m, t.name) != NULL || !strcmp(m->s->k->name, t.name);
  for (const SchedProgram *p = m->s->m->schedules; p; p = p->next) t.found |= !strcmp(p->variant, t.name);
  ir_walk_outside_calls(m->s->k->body, taken_visit, &t);
  if (t.found)
    m->ok = sched_error(m->s, NULL, "call %s (line %d) passes an on-chip array, so it runs a function of its own, %s; "
                        "that name is taken (a kernel, variant, parameter or local); rename it", st->call->name,
                        st->loc.line, t.name);
  return m->ok;
}

/* ---- one function per name over the whole program ---- */

/* The emitted program defines one function per name (emit/emit_file.c):
 * two calls whose functions share a name must run the same function. A
 * call that passes an on-chip array runs FUNCTION_CALL built for it (its
 * text and its buffers' places tell it); another runs its variant's, which
 * its name alone tells. Calls inside a callee's variant count too. */
enum { MAX_FUNCTIONS = 64 };
typedef struct {
  Sched *s;
  const char *name[MAX_FUNCTIONS], *text[MAX_FUNCTIONS]; /* text: built when a name meets another */
  const Stmt *call[MAX_FUNCTIONS];
  const Stmt *owner[MAX_FUNCTIONS]; /* the statements the call is one of (copies of a call share them and its label) */
  const Stmt *in;                   /* the statements being walked */
  int n;
  bool ok;
} Functions;

static char *function_text(Sched *s, const Stmt *call) {
  if (!ir_call_onchip(call->call)) return arena_printf(s->a, "variant %p", (const void *)call->call->fn_ir);
  Kernel *f = ir_call_function(s->a, call);
  StrBuf sb;
  sb_init(&sb);
  ir_print_kernel(&sb, f);
  for (const Param *p = f->params; p; p = p->next) /* the parameters' places, which the text leaves out */
    if (p->buf && p->buf->scope) sb_printf(&sb, "%s %s @%lld\n", p->buf->name, p->buf->scope, (long long)p->buf->offset);
  char *t = arena_printf(s->a, "%s", sb.data ? sb.data : "");
  sb_free(&sb);
  return t;
}

static void functions_in(Functions *f, Stmt *body);

static bool functions_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Functions *f = ctx;
  if (!f->ok || st->kind != ST_BLOCK || !st->call) return f->ok;
  const CallSite *c = st->call;
  if (ir_call_onchip(c)) functions_in(f, st->body); /* its calls are in its statements */
  else if (c->fn_ir) functions_in(f, c->fn_ir->body);
  /* the functions' texts only where two names meet (after every step: they are rebuilt) */
  const char *text = NULL;
  for (int i = 0; i < f->n && f->ok; i++) {
    if (strcmp(f->name[i], c->fn) || (f->owner[i] == f->in && !strcmp(f->call[i]->call->name, c->name)))
      continue; /* another name, or a copy of the same call: placement.c compares those */
    if (!text) text = function_text(f->s, st);
    if (!f->text[i]) f->text[i] = function_text(f->s, f->call[i]);
    if (strcmp(f->text[i], text))
      f->ok = sched_error(f->s, NULL, "calls %s (line %d) and %s (line %d) would both run a function named %s, but "
                          "not the same one (their arrays are placed differently); relabel one of them",
                          f->call[i]->call->name, f->call[i]->loc.line, c->name, st->loc.line, c->fn);
  }
  if (f->ok && f->n < MAX_FUNCTIONS) {
    f->name[f->n] = c->fn;
    f->text[f->n] = text;
    f->owner[f->n] = f->in;
    f->call[f->n++] = st;
  }
  return f->ok;
}

static void functions_in(Functions *f, Stmt *body) {
  const Stmt *outer = f->in;
  f->in = body;
  ir_walk_outside_calls(body, functions_visit, f);
  f->in = outer;
}

/* A call that passes an on-chip array, inside a loop bound to the VU
 * cores: its function's buffers would be each core's, which it has no
 * counter for (docs/programs.md: not built yet). */
typedef struct {
  Sched *s;
  const Stmt *bound;
  bool ok;
} InBound;

static bool in_bound_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  InBound *b = ctx;
  if (!b->ok) return false;
  if (st->kind == ST_FOR && st->loop_kind == LOOP_VU && !b->bound) {
    b->bound = st;
    ir_walk_outside_calls(st->body, in_bound_visit, b);
    b->bound = NULL;
    return b->ok && true;
  }
  if (b->bound && st->kind == ST_BLOCK && st->call && ir_call_onchip(st->call))
    b->ok = sched_error(b->s, NULL, "call %s (line %d) passes an on-chip array inside loop %s, which is bound to the VU "
                        "cores: a function of its own for each core's vector memory is not supported yet; keep the "
                        "array in DDR or inline(%s)",
                        st->call->name, st->loc.line, b->bound->name, st->call->name);
  return b->ok;
}

bool sched_check_calls(Sched *s) {
  Marks m = {s, true};
  ir_walk_outside_calls(s->k->body, mark_visit, &m);
  if (m.ok) ir_walk_outside_calls(s->k->body, own_name_visit, &m);
  if (m.ok) {
    InBound b = {s, NULL, true};
    ir_walk_outside_calls(s->k->body, in_bound_visit, &b);
    m.ok = b.ok;
  }
  if (m.ok) {
    Functions f = {.s = s, .ok = true};
    functions_in(&f, s->k->body);
    m.ok = f.ok;
  }
  Live l = {.s = s};
  return m.ok && live_list(&l, s->k->body);
}

void sched_start_calls(Sched *s) {
  if (!ir_has_calls(s->k)) return;
  arith_simplify_kernel(s->a, s->k); /* as every step's check does: the fingerprints are of simplified IR */
  sched_check_calls(s);
}

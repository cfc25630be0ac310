/* tensorize's pattern table: the semantics kernels of npu_intrinsics/,
 * each parsed once per owner (SemCache) and read by the matcher. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule/intrinsics.h"
#include "schedule/tensorize_match.h"

/* A semantics kernel's local scalars (requantize's `double r = ...`) are
 * substituted into the statements after them, as compute_inline does in
 * the user's nest, so both compare in the same shape. */
static void inline_locals(Arena *a, Stmt **list) {
  for (Stmt **p = list; *p;) {
    Stmt *x = *p;
    if (x->kind == ST_DECL && !x->buf && x->var && x->init) {
      for (Stmt *y = x->next; y; y = y->next) ir_subst_stmt(a, y, x->var, x->init);
      *p = x->next;
      continue;
    }
    if (x->kind == ST_BLOCK || x->kind == ST_FOR) inline_locals(a, &x->body);
    if (x->kind == ST_IF) {
      inline_locals(a, &x->then_s);
      inline_locals(a, &x->else_s);
    }
    p = &x->next;
  }
}

static bool sem_load(Sem *sem, const char *name, char *err, size_t n) {
  diag_init(&sem->d);
  sem->m = NULL;
  for (const char *c = name; *c; c++)
    if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9'))) {
      snprintf(err, n, "'%s' is not an intrinsic name", name);
      return false;
    }
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.c", NPG_INTRINSICS_INCLUDE_DIR, name);
  size_t len;
  char *text = read_file(path, &len);
  if (!text) {
    char dym[160];
    snprintf(err, n, "unknown intrinsic '%s' (npu_intrinsics/ has no semantics kernel %s.c; `npugen intrinsics` "
             "lists them)%s", name, name, sched_intrinsic_suggest(name, dym, sizeof dym));
    return false;
  }
  sem->m = frontend_parse_intrinsic(path, text, len, &sem->d);
  free(text);
  if (!sem->m || !sem->m->kernels) {
    snprintf(err, n, "the semantics kernel of %s does not parse", name);
    return false;
  }
  inline_locals(&sem->m->arena, &sem->m->kernels->body);
  return true;
}

void tensorize_sem_free(Sem *sem) {
  if (sem->m) module_free(sem->m);
  diag_free(&sem->d);
}

/* Parsed semantics kernels by name, loaded at most once per owner: a
 * vectorize tries every npu_vu_* file, and a schedule may vectorize often.
 * Matching only reads them. */
struct SemCache {
  struct Cached {
    char *name;
    Sem sem;
    bool known;
    char err[512];
  } *v;
  int n, cap;
};

SemCache *sem_cache_new(void) { return calloc(1, sizeof(SemCache)); }

void sem_cache_free(SemCache *c) {
  if (!c) return;
  for (int i = 0; i < c->n; i++) {
    free(c->v[i].name);
    tensorize_sem_free(&c->v[i].sem);
  }
  free(c->v);
  free(c);
}

/* name's semantics from the cache (loaded into it the first time), or into
 * *own when there is no cache (the caller frees it). NULL with err when it
 * does not load. */
const Sem *tensorize_sem_get(SemCache *c, const char *name, Sem *own, char *err, size_t n) {
  if (!c) return sem_load(own, name, err, n) ? own : NULL;
  for (int i = 0; i < c->n; i++)
    if (!strcmp(c->v[i].name, name)) {
      if (!c->v[i].known) snprintf(err, n, "%s", c->v[i].err);
      return c->v[i].known ? &c->v[i].sem : NULL;
    }
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 16;
    c->v = realloc(c->v, sizeof *c->v * (size_t)c->cap);
  }
  struct Cached *e = &c->v[c->n++];
  e->name = strdup(name);
  e->known = sem_load(&e->sem, name, e->err, sizeof e->err);
  if (!e->known) snprintf(err, n, "%s", e->err);
  return e->known ? &e->sem : NULL;
}
static int sem_depth(const Stmt *list) {
  int n = 0;
  for (const Stmt *c = list; c; c = c->next) {
    int d = c->kind == ST_FOR ? 1 + sem_depth(c->body->body) : c->kind == ST_BLOCK ? sem_depth(c->body)
            : c->kind == ST_IF ? sem_depth(c->then_s) : 0;
    if (d > n) n = d;
  }
  return n;
}

int tensorize_depth(SemCache *cache, const char *name) {
  char why[512];
  Sem own = {0};
  const Sem *sem = tensorize_sem_get(cache, name, &own, why, sizeof why);
  int n = sem ? sem_depth(sem->m->kernels->body->body) : 0;
  tensorize_sem_free(&own);
  return n;
}

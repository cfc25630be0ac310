/* Trial results by the hash of their schedule: a candidate met again (a
 * mutation that lands on a point already tried) is not run again. */
#include <stdlib.h>
#include <string.h>

#include "tune/tune.h"

void tune_cache_init(TuneCache *c) { memset(c, 0, sizeof *c); }

void tune_cache_free(TuneCache *c) {
  free(c->v);
  free(c->slot);
  memset(c, 0, sizeof *c);
}

static int find_slot(const TuneCache *c, uint64_t hash) {
  int mask = c->nslot - 1;
  int i = (int)(hash & (uint64_t)mask);
  while (c->slot[i] >= 0 && c->v[c->slot[i]].hash != hash) i = (i + 1) & mask;
  return i;
}

const TrialResult *tune_cache_get(const TuneCache *c, uint64_t hash) {
  if (!c->nslot) return NULL;
  int i = find_slot(c, hash);
  return c->slot[i] >= 0 ? &c->v[c->slot[i]] : NULL;
}

static void rehash(TuneCache *c) {
  int n = c->nslot ? c->nslot * 2 : 64;
  free(c->slot);
  c->slot = malloc((size_t)n * sizeof *c->slot);
  if (!c->slot) abort();
  c->nslot = n;
  for (int i = 0; i < n; i++) c->slot[i] = -1;
  for (int i = 0; i < c->n; i++) c->slot[find_slot(c, c->v[i].hash)] = i;
}

void tune_cache_put(TuneCache *c, const TrialResult *r) {
  if (tune_cache_get(c, r->hash)) return;
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 64;
    c->v = realloc(c->v, (size_t)c->cap * sizeof *c->v);
    if (!c->v) abort();
  }
  c->v[c->n++] = *r;
  if (2 * c->n > c->nslot) rehash(c);
  else c->slot[find_slot(c, r->hash)] = c->n - 1;
}

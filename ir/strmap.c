/* See strmap.h. Lookups are what make names scale: scopes with thousands
 * of locals, thousands of labels or variants, each checked by name. */
#include "ir/strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a */
static size_t hash(const char *s) {
  uint64_t h = 1469598103934665603u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return (size_t)h;
}

void ir_map_init(IrMap *m, Arena *arena) {
  memset(m, 0, sizeof *m);
  m->arena = arena;
}

void ir_map_free(IrMap *m) {
  if (!m->arena) free(m->e);
  m->e = NULL;
  m->cap = m->n = 0;
}

static IrMapEntry *slot(IrMapEntry *e, size_t cap, const char *key) {
  size_t i = hash(key) & (cap - 1);
  while (e[i].key && strcmp(e[i].key, key)) i = (i + 1) & (cap - 1);
  return &e[i];
}

void *ir_map_get(const IrMap *m, const char *key) {
  if (!m->n) return NULL;
  return slot(m->e, m->cap, key)->val;
}

static void grow(IrMap *m) {
  size_t cap = m->cap ? 2 * m->cap : 16;
  IrMapEntry *e = m->arena ? ARENA_ARRAY(m->arena, IrMapEntry, cap) : calloc(cap, sizeof *e);
  if (!e) {
    fputs("npugen: out of memory\n", stderr);
    abort();
  }
  for (size_t i = 0; i < m->cap; i++)
    if (m->e[i].key) *slot(e, cap, m->e[i].key) = m->e[i];
  if (!m->arena) free(m->e);
  m->e = e;
  m->cap = cap;
}

void ir_map_put(IrMap *m, const char *key, void *val) {
  if (2 * (m->n + 1) > m->cap) grow(m);
  IrMapEntry *s = slot(m->e, m->cap, key);
  if (!s->key) m->n++;
  s->key = key;
  s->val = val;
}

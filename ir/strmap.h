/* A map from strings to pointers: open addressing, linear probing. Keys are
 * not copied and must outlive the map. It lives in an arena (then it needs
 * no freeing, so that a longjmp past it leaks nothing) or on the heap. */
#ifndef NPG_STRMAP_H
#define NPG_STRMAP_H

#include "ir/util.h"

typedef struct {
  const char *key;
  void *val;
} IrMapEntry;

typedef struct {
  IrMapEntry *e;
  size_t cap, n;
  Arena *arena; /* NULL: the heap (ir_map_free) */
} IrMap;

void ir_map_init(IrMap *m, Arena *arena);
void ir_map_free(IrMap *m);
/* The value of key, or NULL. */
void *ir_map_get(const IrMap *m, const char *key);
/* Sets key's value (a NULL value reads as absent). */
void ir_map_put(IrMap *m, const char *key, void *val);

#endif

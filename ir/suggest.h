/* Did-you-mean for unknown names (loops, buffers, scopes, intrinsics,
 * primitives, kernels, variants, commands): the closest candidate by edit
 * distance, when one is close enough to be a likely typo. */
#ifndef NPG_SUGGEST_H
#define NPG_SUGGEST_H

#include <stddef.h>

typedef struct {
  const char *want;  /* the unknown name */
  const char *best;  /* the closest candidate so far, or NULL */
  int dist;          /* its distance */
} IrSuggest;

/* Starts a search for names close to want. */
IrSuggest ir_suggest_start(const char *want);
/* Offers one candidate (not copied: it must outlive the search). */
void ir_suggest_add(IrSuggest *sg, const char *cand);
/* The closest candidate if it is close enough, else NULL. Close enough:
 * at most a third of want's length in edits (at least one), fewer edits
 * than the longer of the two has letters, and not want itself. */
const char *ir_suggest_best(const IrSuggest *sg);
/* "; did you mean 'x'?" for the best candidate, "" when there is none:
 * appended to a message as it is. buf holds it. */
const char *ir_suggest_text(const IrSuggest *sg, char *buf, size_t n);
/* The optimal-string-alignment distance (insert, delete, substitute, swap
 * two neighbours), counted up to cap + 1 and no further. */
int ir_edit_distance(const char *a, const char *b, int cap);

#endif

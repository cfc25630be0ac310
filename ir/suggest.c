/* Did-you-mean by edit distance (ir/suggest.h). A swap of two neighbours
 * counts as one edit, as typing errors make them ("matmlu"). */
#include "ir/suggest.h"

#include <stdio.h>
#include <string.h>

enum { MAX_NAME = 127 }; /* longer names are not compared: no real name is */

static int min3(int a, int b, int c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }

int ir_edit_distance(const char *a, const char *b, int cap) {
  int la = (int)strlen(a), lb = (int)strlen(b);
  if (la > MAX_NAME || lb > MAX_NAME || la - lb > cap || lb - la > cap) return cap + 1;
  /* three rows: two back (for the swap), the last and the current */
  int rows[3][MAX_NAME + 2];
  for (int j = 0; j <= lb; j++) rows[1][j] = j;
  for (int i = 1; i <= la; i++) {
    int *cur = rows[(i + 1) % 3], *last = rows[i % 3], *back = rows[(i + 2) % 3];
    cur[0] = i;
    int row_min = cur[0];
    for (int j = 1; j <= lb; j++) {
      int cost = a[i - 1] != b[j - 1];
      cur[j] = min3(last[j] + 1, cur[j - 1] + 1, last[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && back[j - 2] + 1 < cur[j])
        cur[j] = back[j - 2] + 1;
      if (cur[j] < row_min) row_min = cur[j];
    }
    if (row_min > cap) return cap + 1; /* every path is already too long */
  }
  int d = rows[(la + 1) % 3][lb];
  return d > cap ? cap + 1 : d;
}

static int limit(const char *want) {
  int n = (int)strlen(want) / 3;
  return n < 1 ? 1 : n;
}

IrSuggest ir_suggest_start(const char *want) { return (IrSuggest){want, NULL, 0}; }

void ir_suggest_add(IrSuggest *sg, const char *cand) {
  if (!cand || !sg->want || !strcmp(cand, sg->want)) return;
  int cap = limit(sg->want);
  int d = ir_edit_distance(sg->want, cand, cap);
  int longer = (int)(strlen(cand) > strlen(sg->want) ? strlen(cand) : strlen(sg->want));
  if (d > cap || d >= longer) return; /* 'i' is no typo of 'j' */
  /* the first of equally close candidates stays: lists come in a meaningful order */
  if (!sg->best || d < sg->dist) {
    sg->best = cand;
    sg->dist = d;
  }
}

const char *ir_suggest_best(const IrSuggest *sg) { return sg->best; }

const char *ir_suggest_text(const IrSuggest *sg, char *buf, size_t n) {
  if (!n) return "";
  buf[0] = 0;
  if (sg->best) snprintf(buf, n, "; did you mean '%s'?", sg->best);
  return buf;
}

/* What a kernel with symbolic sizes tests at entry (NPUGEN_ASSUME,
 * docs/kernel-language.md): each assumption, then each distinct extent
 * that names sizes, at least 1. The bounds proofs assumed all of them. */
#include <stdlib.h>

#include "lower/lower.h"

bool lower_assumptions(const Kernel *k) {
  if (k->nassume) return true;
  for (const Param *p = k->params; p; p = p->next)
    if (p->buf && buffer_symbolic(p->buf)) return true;
  return false;
}

int lower_entry_tests(const Kernel *k, EntryTest **out) {
  int n = 0, cap = k->nassume;
  for (const Param *p = k->params; p; p = p->next)
    if (p->buf) cap += p->buf->ndim;
  EntryTest *t = malloc(sizeof *t * (size_t)(cap ? cap : 1));
  for (int i = 0; t && i < k->nassume; i++) t[n++] = (EntryTest){k->assume[i], NULL};
  for (const Param *p = k->params; t && p; p = p->next)
    for (int d = 0; p->buf && d < p->buf->ndim; d++) {
      const Expr *e = p->buf->extent[d];
      bool again = !e;
      for (int j = k->nassume; !again && j < n; j++) again = ir_expr_same(t[j].cond, e);
      if (!again) t[n++] = (EntryTest){e, p->buf};
    }
  *out = t;
  return t ? n : 0;
}

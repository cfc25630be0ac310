/* What a kernel with symbolic sizes tests at entry (NPUGEN_ASSUME,
 * docs/kernel-language.md): each assumption, then each distinct extent
 * that names sizes, at least 1, unless an assumption says so as it is.
 * The bounds proofs assumed all of them. */
#include <stdlib.h>

#include "lower/lower.h"

bool lower_assumptions(const Kernel *k) {
  if (k->nassume || k->nentry_need) return true;
  for (const Param *p = k->params; p; p = p->next)
    if (p->buf && buffer_symbolic(p->buf)) return true;
  return false;
}

const char *lower_assume_macro(const Kernel *k, bool tcc) {
  if (!lower_assumptions(k)) return NULL;
  if (tcc) /* the JIT's: a failed test comes back as an error (jit/guard.c) */
    return "void npg_assume_failed(const char *);\n"
           "#define NPUGEN_ASSUME(c) ((c) ? (void)0 : npg_assume_failed(#c))\n\n";
  return "#ifndef NPUGEN_ASSUME /* what the kernel assumes of its sizes, tested at entry; "
         "-D'NPUGEN_ASSUME(c)=' turns the tests off */\n"
         "void abort(void); /* declared, not included: <stdlib.h> may declare names a kernel takes (ulong, uint) */\n"
         "#define NPUGEN_ASSUME(c) ((c) ? (void)0 : abort())\n#endif\n\n";
}

/* Does an assumption say e >= 1 (or e > 0) as it is? Then its test is that of the extent. */
static bool assumed_positive(const Kernel *k, const Expr *e) {
  for (int i = 0; i < k->nassume; i++) {
    const Expr *a = k->assume[i];
    int64_t c;
    if (a->kind == EX_BINARY && ir_expr_same(a->a, e) && ir_const_int(a->b, &c) &&
        ((a->op == OP_GE && c == 1) || (a->op == OP_GT && c == 0)))
      return true;
  }
  return false;
}

int lower_entry_tests(const Kernel *k, EntryTest **out) {
  int n = 0, cap = k->nassume + k->nentry_need;
  for (const Param *p = k->params; p; p = p->next)
    if (p->buf) cap += p->buf->ndim;
  EntryTest *t = malloc(sizeof *t * (size_t)(cap ? cap : 1));
  for (int i = 0; t && i < k->nassume; i++) t[n++] = (EntryTest){k->assume[i], NULL};
  for (int i = 0; t && i < k->nentry_need; i++) t[n++] = (EntryTest){k->entry_need[i].cond, NULL};
  for (const Param *p = k->params; t && p; p = p->next)
    for (int d = 0; p->buf && d < p->buf->ndim; d++) {
      const Expr *e = p->buf->extent[d];
      bool again = !e || assumed_positive(k, e);
      for (int j = k->nassume; !again && j < n; j++) again = ir_expr_same(t[j].cond, e);
      if (!again) t[n++] = (EntryTest){e, p->buf};
    }
  *out = t;
  return t ? n : 0;
}

/* Why npugen derived cond, one of k's entry tests; NULL: the user assumed it. */
static const char *derived_why(const Kernel *k, const Expr *cond) {
  for (int j = 0; j < k->nassume; j++)
    if (k->assume[j] == cond) return k->assume_why[j];
  for (int j = 0; j < k->nentry_need; j++)
    if (k->entry_need[j].cond == cond) return k->entry_need[j].why;
  return NULL;
}

/* The header's account of the entry tests: what a caller must keep to,
 * and what a failure does (docs/limits.md, "Preconditions"). */
char *lower_preconditions_text(const Kernel *k) {
  StrBuf sb;
  sb_init(&sb);
  EntryTest *t;
  int n = lower_entry_tests(k, &t);
  if (n)
    sb_puts(&sb, "Preconditions, each tested at entry by NPUGEN_ASSUME(c): a failed one calls abort(), unless the .c\n"
                 "is compiled with a definition of NPUGEN_ASSUME of the caller's (-include; docs/limits.md):\n");
  for (int i = 0; i < n; i++) {
    sb_puts(&sb, "  ");
    ir_print_expr(&sb, t[i].cond);
    const char *why = derived_why(k, t[i].cond);
    if (t[i].extent_of) sb_printf(&sb, " >= 1 (an extent of %s)\n", t[i].extent_of->name);
    else if (why) sb_printf(&sb, " (derived: %s)\n", why);
    else sb_puts(&sb, " (assumed)\n");
  }
  free(t);
  return sb_take(&sb);
}

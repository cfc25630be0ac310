/* What a variant's prototype names (lower/lower.h): each extent of an
 * array parameter spelt with the kernel's #define where it used one
 * (DESIGN.md: macros are used by name), unless a layout step changed the
 * shape; and so the #defines (and typedefs) its header declares: those
 * the prototype names and those their bodies name, in the kernel's
 * order. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"

const char *lower_extent_macro(const Buffer *b, int d) { return b->layout ? NULL : b->dim_macro[d]; }

/* Whether a #define's body names macro `name` as a whole identifier. */
static bool names_macro(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
    bool start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    bool end = !(isalnum((unsigned char)p[n]) || p[n] == '_');
    if (start && end) return true;
  }
  return false;
}

/* Does the prototype name macro `name`: an extent of an array parameter
 * spelt with it, or a parameter's type (a typedef or a type macro)? */
static bool signature_names(const Kernel *k, const char *name) {
  for (const Param *p = k->params; p; p = p->next) {
    const Type *t = p->buf ? p->buf->elem : p->var->type;
    if (t->alias_of && !strcmp(t->name, name)) return true;
    for (int i = 0; p->buf && i < p->buf->ndim; i++)
      if (lower_extent_macro(p->buf, i) && !strcmp(lower_extent_macro(p->buf, i), name)) return true;
  }
  return false;
}

bool *lower_header_defines(const Module *m, const Kernel *k) {
  int n = 0;
  for (const Define *d = m->defines; d; d = d->next) n++;
  bool *need = calloc(n ? (size_t)n : 1, sizeof *need);
  for (bool grew = true; grew;) { /* a body may name an earlier macro */
    grew = false;
    int i = 0;
    for (const Define *d = m->defines; d; d = d->next, i++) {
      if (need[i]) continue;
      bool used = signature_names(k, d->name);
      int j = 0;
      for (const Define *e = m->defines; e && !used; e = e->next, j++) used = need[j] && names_macro(e->body, d->name);
      if (used) need[i] = grew = true;
    }
  }
  return need;
}

bool *lower_source_defines(const Module *m, const Kernel *k, bool typedefs, bool own_header) {
  bool *in_header = own_header ? lower_header_defines(m, k) : NULL;
  int n = 0;
  for (const Define *d = m->defines; d; d = d->next) n++;
  bool *want = calloc(n ? (size_t)n : 1, sizeof *want);
  int i = 0;
  for (const Define *d = m->defines; d; d = d->next, i++) want[i] = d->is_typedef == typedefs && !(typedefs && in_header && in_header[i]);
  free(in_header);
  return want;
}

char *lower_header_guard(const char *variant) {
  StrBuf guard;
  sb_init(&guard);
  sb_puts(&guard, "NPUGEN_");
  for (const char *p = variant; *p; p++) sb_putc(&guard, (*p >= 'a' && *p <= 'z') ? (char)(*p - 32) : *p);
  sb_puts(&guard, "_H");
  return sb_take(&guard);
}

/* Whether a header's size macro "<VARIANT>_<MACRO>" (lower/prototype.c)
 * reads as another variant's (lower/lower.h: lower_header_name_taken).
 * Headers that are included together are the variants of one kernel file
 * and of the kernel files beside it (one directory of emitted files, as
 * tune/variant_name.c takes it): each kernel as written and each
 * `#pragma npu schedule` of it, with the #defines its parameters' extents
 * name. A sibling file is parsed only when its text holds the two parts
 * of such a pair, so a directory of kernels costs a read of each. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frontend/frontend.h"
#include "lower/lower.h"

/* Kernel k's parameters name #define macro in an extent. */
static bool extent_names(const Kernel *k, const char *macro) {
  for (const Param *p = k->params; p; p = p->next)
    for (int d = 0; p->buf && d < p->buf->ndim; d++) {
      if (p->buf->dim_macro[d] && !strcmp(p->buf->dim_macro[d], macro)) return true;
      const ExtentSpelling *s = p->buf->dim_spelling[d];
      for (int t = 0; s && t < s->n; t++)
        if (s->tok[t].is_macro && !strcmp(s->tok[t].text, macro)) return true;
    }
  return false;
}

/* Variant `other` of kernel k, with one of k's macros, reads as name and
 * is not the pair (variant, macro) itself. */
static bool pair_reads_as(const Kernel *k, const char *other, const char *name, const char *variant,
                          const char *macro) {
  size_t n = strlen(other);
  for (size_t i = 0; i < n; i++) {
    char c = other[i];
    if ((c >= 'a' && c <= 'z' ? (char)(c - 32) : c) != name[i]) return false;
  }
  if (name[n] != '_') return false;
  const char *rest = name + n + 1;
  return extent_names(k, rest) && (strcmp(other, variant) || strcmp(rest, macro));
}

static bool module_reads_as(const Module *m, const char *name, const char *variant, const char *macro) {
  for (const Kernel *k = m->kernels; k; k = k->next)
    if (pair_reads_as(k, k->name, name, variant, macro)) return true;
  for (const SchedProgram *s = m->schedules; s; s = s->next) {
    const Kernel *k = module_kernel(m, s->kernel);
    if (k && s->variant && pair_reads_as(k, s->variant, name, variant, macro)) return true;
  }
  return false;
}

/* text holds the n characters at part, in any case (a variant's name
 * that reads as the upper-case part). */
static bool holds_any_case(const char *text, const char *part, size_t n) {
  for (const char *t = text; *t; t++) {
    size_t i = 0;
    while (i < n && t[i] && (t[i] == part[i] || (t[i] >= 'a' && t[i] <= 'z' && t[i] - 32 == part[i]))) i++;
    if (i == n) return true;
  }
  return false;
}

/* The text could have a pair that reads as name: at one of its '_', the
 * part after it (a macro) as it is and the part before it (a variant) in
 * any case. */
static bool may_complete(const char *text, const char *name) {
  for (const char *u = strchr(name, '_'); u; u = strchr(u + 1, '_'))
    if (u[1] && strstr(text, u + 1) && holds_any_case(text, name, (size_t)(u - name))) return true;
  return false;
}

/* A kernel file of dir other than base whose variants read as name. */
static bool sibling_reads_as(const char *dir, const char *base, const char *name, const char *variant,
                             const char *macro) {
  DIR *d = opendir(dir);
  if (!d) return false;
  bool taken = false;
  for (struct dirent *e; !taken && (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 3 || strcmp(e->d_name + len - 2, ".c") || !strcmp(e->d_name, base)) continue;
    char path[4352];
    struct stat st; /* a regular file only: a FIFO named x.c would never end */
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path || stat(path, &st) ||
        !S_ISREG(st.st_mode))
      continue;
    size_t n;
    char *text = ir_read_input(path, FE_MAX_SOURCE_BYTES, &n);
    if (text && memchr(text, 0, n) == NULL && may_complete(text, name)) {
      DiagList dl;
      diag_init(&dl);
      Module *m = frontend_parse(path, text, n, &dl);
      taken = m && module_reads_as(m, name, variant, macro);
      if (m) module_free(m);
      diag_free(&dl);
    }
    free(text);
  }
  closedir(d);
  return taken;
}

bool lower_header_name_taken(const Module *m, const char *name, const char *variant, const char *macro) {
  if (!m) return false;
  if (module_reads_as(m, name, variant, macro)) return true;
  const char *file = m->file ? m->file : "";
  const char *slash = strrchr(file, '/');
  char dir[4096];
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - file) + (slash == file) : 1, slash ? file : ".");
  return sibling_reads_as(dir, slash ? slash + 1 : file, name, variant, macro);
}

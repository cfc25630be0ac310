/* An emitted file's opening comment names the kernel file as the run that
 * wrote it was given it ("from src/k.c", "Kernel: k (src/k.c:1)"): the
 * path relative to that run's working directory. A run from another
 * directory (a CMake build, `emit --check` by hand) spells the same file
 * otherwise ("../src/k.c", or an absolute path). The manifest proves the
 * file is the same (its path relative to DIR), so such a file is fresh
 * and keeps its spelling: --check gives one verdict from any directory,
 * and emit does not rewrite a file only to respell the path (trial 44e). */
#include "cli/kept_spelling.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/file_mark.h"

#define END_OF_FIRST_LINE ". Do not edit.\n"

/* The spelling in text's first line: [*at, *at + *len). */
static int spelling(const char *text, const char **at, size_t *len) {
  const char *mark = strstr(text, NPG_FILE_GENERATED), *eol = strchr(text, '\n');
  if (!mark || !eol || mark > eol) return 0;
  const char *from = strstr(mark, " from ");
  size_t end = strlen(END_OF_FIRST_LINE);
  if (!from || from > eol || (size_t)(eol + 1 - from) < end + 6 || strncmp(eol + 1 - end, END_OF_FIRST_LINE, end))
    return 0;
  *at = from + 6;
  *len = (size_t)(eol + 1 - end - *at);
  return 1;
}

/* fresh with its spelling (old) replaced by new in the first line and in
 * the second's "(old:" (a .c's "Kernel: k (old:1)"). */
static char *respelt(const char *fresh, const char *old, size_t nold, const char *new, size_t nnew) {
  size_t n = strlen(fresh);
  char *out = malloc(n + 2 * nnew + 1), *o = out;
  const char *eol = strchr(fresh, '\n') + 1, *eol2 = strchr(eol, '\n');
  memcpy(o, fresh, (size_t)(old - fresh));
  o += old - fresh;
  memcpy(o, new, nnew);
  o += nnew;
  const char *p = old + nold;
  memcpy(o, p, (size_t)(eol - p));
  o += eol - p;
  p = eol;
  const char *paren = eol2 ? strchr(eol, '(') : NULL;
  if (paren && paren < eol2 && !strncmp(paren + 1, old, nold) && paren[1 + nold] == ':') {
    memcpy(o, p, (size_t)(paren + 1 - p));
    o += paren + 1 - p;
    memcpy(o, new, nnew);
    o += nnew;
    p = paren + 1 + nold;
  }
  strcpy(o, p);
  return out;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t n = 0, cap = 4096;
  char *buf = malloc(cap + 1);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n, f)) > 0)
    if ((n += got) == cap) buf = realloc(buf, (cap *= 2) + 1);
  fclose(f);
  buf[n] = 0;
  if (strlen(buf) != n) { /* a NUL inside: not a text emit wrote */
    free(buf);
    return NULL;
  }
  return buf;
}

char *emit_dir_kept_spelling(const char *path, const char *fresh) {
  const char *old, *kept;
  size_t nold, nkept;
  char *written = read_file(path);
  if (!written || !spelling(fresh, &old, &nold) || !spelling(written, &kept, &nkept) ||
      (nold == nkept && !memcmp(old, kept, nold))) {
    free(written);
    return NULL;
  }
  char *candidate = respelt(fresh, old, nold, kept, nkept);
  bool same = !strcmp(candidate, written);
  free(candidate);
  if (same) return written;
  free(written);
  return NULL;
}

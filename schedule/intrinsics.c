/* The intrinsics npugen knows are the semantics kernels in one directory
 * (<name>.c each): tensorize reads them, vectorize searches them, and
 * `npugen intrinsics` describes them. Listing the directory, not a table,
 * keeps one source of truth: a new intrinsic is a new file. */
#include "schedule/intrinsics.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/suggest.h"

const char *sched_intrinsics_dir(void) { return NPG_INTRINSICS_INCLUDE_DIR; }

static int semantics_file(const struct dirent *e) {
  size_t n = strlen(e->d_name);
  return n > 2 && !strcmp(e->d_name + n - 2, ".c");
}

int sched_intrinsic_names(char ***names, char *why, size_t n) {
  struct dirent **files;
  int count = scandir(NPG_INTRINSICS_INCLUDE_DIR, &files, semantics_file, alphasort);
  *names = NULL;
  if (count < 0) {
    snprintf(why, n, "cannot read the intrinsics' semantics in %s: %s", NPG_INTRINSICS_INCLUDE_DIR, strerror(errno));
    return -1;
  }
  *names = malloc(sizeof **names * (size_t)(count ? count : 1));
  for (int i = 0; i < count; i++) {
    (*names)[i] = strndup(files[i]->d_name, strlen(files[i]->d_name) - 2);
    free(files[i]);
  }
  free(files);
  return count;
}

void sched_intrinsic_names_free(char **names, int count) {
  for (int i = 0; i < count; i++) free(names[i]);
  free(names);
}

const char *sched_intrinsic_suggest(const char *name, char *buf, size_t n) {
  char **names, why[256];
  int count = sched_intrinsic_names(&names, why, sizeof why);
  IrSuggest near = ir_suggest_start(name);
  for (int i = 0; i < count; i++) ir_suggest_add(&near, names[i]);
  ir_suggest_text(&near, buf, n);
  sched_intrinsic_names_free(names, count);
  return buf;
}

char *sched_intrinsic_meta(const char *src, const char *key) {
  const char *p = strstr(src, key);
  if (!p) return NULL;
  p += strlen(key);
  const char *e = strchr(p, '\n');
  return e ? strndup(p, (size_t)(e - p)) : strdup(p);
}

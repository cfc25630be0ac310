/* The intrinsics npugen knows are the semantics kernels in one directory
 * (<name>.c each): tensorize reads them, vectorize searches them, and
 * `npugen intrinsics` describes them. Listing the directory keeps one
 * source of truth: a new intrinsic is a new file, written by hand or, for
 * a VU family member, by `make vu-ops` from its row of
 * npu_vu_families.def (schedule/vu_families.c). */
#include "schedule/intrinsics.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
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

void sched_intrinsic_scopes(const char *src, SchedScopes *out) {
  out->n = 0;
  char *line = sched_intrinsic_meta(src, "scopes: ");
  for (const char *p = line; p && *p && out->n < SCHED_MAX_SCOPED;) {
    int used = 0;
    if (sscanf(p, " %63[^ ,] %63[^ ,]%n", out->v[out->n].operand, out->v[out->n].scope, &used) != 2) break;
    out->n++;
    p += used;
    while (*p == ',' || *p == ' ') p++;
  }
  free(line);
}

const char *sched_scope_of(const SchedScopes *s, const char *operand) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->v[i].operand, operand)) return s->v[i].scope;
  return NULL;
}

/* C leaves open which zero fmaxf(+0.0f, -0.0f) and fminf give; the VU's
 * fmax and fmin give the second operand when the two compare equal (and
 * the other operand for a NaN, as C says). The check's reference calls this
 * process's C library, so an op whose semantics call fn matches where that
 * library makes the same choice. Called through a volatile pointer: the
 * library's function, not the compiler's. */
bool sched_libm_agrees(const char *src, char *why, size_t n) {
  char *fn = sched_intrinsic_meta(src, "libm: ");
  if (!fn) return true;
  float (*volatile f)(float, float) = !strcmp(fn, "fmaxf") ? fmaxf : !strcmp(fn, "fminf") ? fminf : NULL;
  bool ok = f != NULL;
  if (!ok) snprintf(why, n, "its semantics name an unknown C library function '%s'", fn);
  float pz = 0.0f, nz = -0.0f;
  bool second_nz = ok && signbit(f(pz, nz)), second_pz = ok && !signbit(f(nz, pz));
  if (ok && !(second_nz && second_pz)) {
    snprintf(why, n, "this C library's %s(%s0.0f, %s0.0f) is %s0.0f, where the instruction gives the second operand "
             "(C leaves the sign of that zero open): the source form stays on the host",
             fn, second_nz ? "-" : "+", second_nz ? "+" : "-", second_nz ? "+" : "-");
    ok = false;
  }
  free(fn);
  return ok;
}

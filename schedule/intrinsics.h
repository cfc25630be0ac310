/* The intrinsics npugen knows: one semantics kernel per file in the
 * intrinsics directory (schedule/intrinsics.c). */
#ifndef NPG_SCHED_INTRINSICS_H
#define NPG_SCHED_INTRINSICS_H

#include <stddef.h>

/* The directory of the semantics kernels and npu_intrinsics.h: the source
 * tree's npu_intrinsics/, or PREFIX/share/npugen/npu_intrinsics for an
 * installed npugen (the Makefile's INTRINSICS_DIR). */
const char *sched_intrinsics_dir(void);

/* The intrinsics' names in name order (malloc'ed, as is the array; free
 * them with sched_intrinsic_names_free), and their count; -1 with why when
 * the directory cannot be read. */
int sched_intrinsic_names(char ***names, char *why, size_t n);
void sched_intrinsic_names_free(char **names, int count);

/* The text after "key: " on its comment line of a semantics kernel's
 * source (malloc'ed), NULL if absent: "domain: ", "scopes: ", "abi: ". */
char *sched_intrinsic_meta(const char *src, const char *key);

/* An intrinsic's `scopes:` line as data: each operand of its semantics
 * kernel with the on-chip scope it must be in ("C nu_ob, A nu_ib, B
 * nu_wb"), in the line's order. */
enum { SCHED_MAX_SCOPED = 16 };
typedef struct {
  struct {
    char operand[64], scope[64];
  } v[SCHED_MAX_SCOPED];
  int n;
} SchedScopes;

/* src's `scopes:` line into *out (n = 0 when it has none; a malformed
 * entry ends the list). */
void sched_intrinsic_scopes(const char *src, SchedScopes *out);
/* The scope operand must be in, NULL when s does not name it. */
const char *sched_scope_of(const SchedScopes *s, const char *operand);

/* "; did you mean 'npu_nu_matmul_i8'?" for an unknown intrinsic's name,
 * "" when none is close. buf holds it. */
const char *sched_intrinsic_suggest(const char *name, char *buf, size_t n);

/* Whether the C library this process links makes the choices C leaves
 * open as the intrinsic does, for the function its semantics' "libm: "
 * line names (fmaxf, fminf: which zero of +0 and -0); true without one,
 * else false with why. */
#include <stdbool.h>
bool sched_libm_agrees(const char *src, char *why, size_t n);

#endif

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

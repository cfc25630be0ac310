/* The frontend: kernel source text -> checked IR Module. */
#ifndef NPG_FRONTEND_H
#define NPG_FRONTEND_H

#include <stddef.h>

#include "ir/ir.h"
#include "ir/sched_prog.h"

typedef struct TSLanguage TSLanguage;

/* Documented resource limits (docs/limits.md). Past each, a clear error. */
enum {
  FE_MAX_SOURCE_BYTES = 8 * 1024 * 1024,
  FE_MAX_NESTING = 200,          /* syntax-tree depth of one function */
  FE_MAX_LOOP_DEPTH = 16,        /* nested loops: isl's analyses grow steeply with them */
  FE_MAX_ARENA_BYTES = 512 << 20 /* IR memory of one module */
};

/* Parses and checks `src` (len bytes, need not be NUL-terminated). Returns the
 * module, or NULL with errors in d. The module owns a copy of src. */
Module *frontend_parse(const char *file, const char *src, size_t len, DiagList *d);
void module_free(Module *m);
/* Adds the variants of a schedule file (only `#pragma npu` lines) to m.
 * False with errors in d. */
bool frontend_parse_schedules(Module *m, const char *file, const char *src, size_t len, DiagList *d);
const TSLanguage *frontend_language(void);
/* One schedule step from its text, "split(i, 16, io, ii)", parsed as the
 * pragma's call would be (errors at NAME:1:col). NULL after an error. */
SchedStep *frontend_parse_step(Module *m, const char *name, const char *call, DiagList *d);

#endif

/* The frontend: kernel source text -> checked IR Module. */
#ifndef NPG_FRONTEND_H
#define NPG_FRONTEND_H

#include <stddef.h>

#include "ir/ir.h"
#include "ir/sched_prog.h"

typedef struct TSLanguage TSLanguage;

/* Documented resource limits (docs/limits.md). Past each, a clear error. */
enum {
  FE_MAX_SOURCE_BYTES = 16 << 20, /* a kernel or schedule file (docs/limits.md) */
  FE_MAX_NESTING = 200,          /* syntax-tree depth of one function */
  FE_MAX_LOOP_DEPTH = 16,        /* nested loops: isl's analyses grow steeply with them */
  FE_MAX_ARENA_BYTES = 512 << 20 /* IR memory of one module */
};

/* The input-size and NUL-byte checks of a kernel or schedule file: false,
 * with the error in d, when src cannot be one. */
bool frontend_input_ok(const char *file, const char *src, size_t len, DiagList *d);
/* The error for a file that ir_read_input could not read (errno err). */
void frontend_read_error(const char *file, int err, DiagList *d);

/* Parses and checks `src` (len bytes, need not be NUL-terminated). Returns the
 * module, or NULL with errors in d. The module owns a copy of src. */
Module *frontend_parse(const char *file, const char *src, size_t len, DiagList *d);
/* The same for a semantics kernel of npu_intrinsics/: its kernel is named
 * after its intrinsic, with the prefix npu_ that other kernels cannot use. */
Module *frontend_parse_intrinsic(const char *file, const char *src, size_t len, DiagList *d);
void module_free(Module *m);
/* Adds the variants of a schedule file (only `#pragma npu` lines) to m.
 * False with errors in d. */
bool frontend_parse_schedules(Module *m, const char *file, const char *src, size_t len, DiagList *d);
const TSLanguage *frontend_language(void);
/* One schedule step from its text, "split(i, 16, io, ii)", parsed as the
 * pragma's call would be (errors at NAME:1:col). NULL after an error. */
SchedStep *frontend_parse_step(Module *m, const char *name, const char *call, DiagList *d);
/* The C expression `text` in the scope of statement `where` of k as it is
 * now (frontend/expr_at.c): the IR the kernel's own expression would be.
 * Errors (at loc in file/src, the step's argument) into d; NULL then. */
Expr *frontend_expr_at(Module *m, const Kernel *k, const Stmt *where, const char *text, const char *file,
                       const char *src, SrcLoc loc, DiagList *d);

#endif

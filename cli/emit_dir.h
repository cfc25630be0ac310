/* `npugen emit FILE -o DIR`: the emitted files in DIR (see emit_dir.c). */
#ifndef NPG_EMIT_DIR_H
#define NPG_EMIT_DIR_H

#include <stdbool.h>

typedef struct {
  const char *dir;
  const char *source; /* the kernel file, as its emitted files name it */
  const char *target; /* the target's name, as scheduled variants' files name it */
  bool check;         /* --check: compare, write nothing */
  const char *rerun;  /* the command that refreshes DIR, for --check's messages */
  char **names;       /* the files of this run ("v.c", "v.h"), for emit_dir_leftovers */
  int n, cap;
} EmitDir;

/* Creates DIR (and its parents) unless d->check. 0, or 1 after an error. */
int emit_dir_open(EmitDir *d);
/* Writes (or, with --check, compares) DIR/name. 0 when it is up to date
 * now, 1 when stale (--check) or after an error. */
int emit_dir_file(EmitDir *d, const char *name, const char *text);
/* Files in DIR that npugen generated from the same source for the same
 * target in an earlier run, and that this run did not write: removed (or,
 * with --check, reported). 0, or 1 when one is stale (--check) or could not
 * be removed. */
int emit_dir_leftovers(EmitDir *d);
void emit_dir_close(EmitDir *d);

#endif

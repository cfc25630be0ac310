/* `npugen emit FILE -o DIR`: the emitted files in DIR (see emit_dir.c). */
#ifndef NPG_EMIT_DIR_H
#define NPG_EMIT_DIR_H

#include <stdbool.h>

#include "cli/manifest.h"

typedef struct {
  const char *dir;
  const char *source;   /* the kernel file */
  const char *schedule; /* --schedule's file, or NULL */
  const char *target;   /* the target's name */
  bool check;           /* --check: compare, write nothing */
  bool prune;           /* --prune: remove this kernel file's files of other inputs too */
  const char *rerun;    /* the command that refreshes DIR, for --check's messages */
  /* set by emit_dir_open */
  char **names;         /* the files of this run ("v.c", "v.h"), for emit_dir_leftovers */
  int n, cap;
  Manifest manifest;
  char *source_key, *schedule_key; /* the kernel and schedule files as the manifest names them */
  int lock_fd;
  bool changed;
} EmitDir;

/* Creates DIR (and its parents) unless d->check, locks it and reads its
 * manifest. 0, or 1 after an error. */
int emit_dir_open(EmitDir *d);
/* Writes (or, with --check, compares) DIR/name. 0 when it is up to date
 * now, 1 when stale (--check) or after an error. */
int emit_dir_file(EmitDir *d, const char *name, const char *text);
/* Files in DIR that the manifest says an earlier run wrote from the same
 * kernel file, and that this run did not write: removed (or, with
 * --check, reported) when that run had the same inputs or d->prune; kept
 * with a warning otherwise. 0, or 1 when one is stale (--check) or could
 * not be removed. */
int emit_dir_leftovers(EmitDir *d);
/* Writes the manifest (unless --check) and unlocks DIR. 0, or 1 after an error. */
int emit_dir_close(EmitDir *d);

#endif

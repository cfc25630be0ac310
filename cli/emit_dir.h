/* `npugen emit FILE -o DIR`: the emitted files in DIR (see emit_dir.c). */
#ifndef NPG_EMIT_DIR_H
#define NPG_EMIT_DIR_H

#include <stdbool.h>
#include <stddef.h>

#include "jit/emit_manifest.h"

typedef struct {
  const char *dir;
  const char *source;   /* the kernel file */
  const char *schedule; /* --schedule's file, or NULL */
  const char *target;   /* the target's name */
  const char *target_file; /* --target's file, or NULL */
  bool assume_no_alias; /* --assume-no-alias (changes the text: restrict) */
  bool scheduled_only;  /* --scheduled-only (changes which files, not their text) */
  bool check;           /* --check: compare, write nothing */
  bool recorded_inputs; /* --check with inputs the manifest records: a file it records
                           from other inputs is their run's to check */
  bool prune;           /* --prune: remove this kernel file's files of other inputs too */
  bool force;           /* --force: overwrite or remove a file edited since npugen wrote it */
  const char *rerun;    /* the command that refreshes DIR, for --check's messages */
  bool refused;         /* a schedule was refused (errors): emit would write nothing, so --check gives no command */
  /* set by emit_dir_open */
  char **names;         /* the files of this run ("v.c", "v.h"), for emit_dir_leftovers */
  int n, cap;
  Manifest manifest;
  char *source_key, *schedule_key; /* the kernel and schedule files as the manifest names them */
  ManifestOptions options_key; /* the run's options as the manifest records them */
  int lock_fd;
  bool changed, had_manifest;
  bool failed;          /* an error: emit_dir_close changes nothing in DIR */
  /* what the run will do once every file passed: write text to name,
   * or (text NULL) remove name */
  struct EmitDirChange {
    char *name, *text;
    bool was_link;
  } *changes;
  int nchanges, changes_cap;
  /* --check: each stale file's message, up to its "run: "; printed by
   * emit_dir_close with the one command that regenerates them all (with
   * --force when any of them needs it) */
  char **stale;
  int nstale, stale_cap;
  bool stale_needs_force;
} EmitDir;

/* Creates DIR (and its parents) unless d->check, locks it and reads its
 * manifest. 0, or 1 after an error. */
int emit_dir_open(EmitDir *d);
/* Plans to write (or, with --check, compares) DIR/name. 0 when it will be
 * up to date, 1 when stale (--check) or after an error. Nothing in DIR
 * changes before emit_dir_close, and nothing then if any call failed.
 * kernel_alone: a variant of the kernel file alone (no schedule file's),
 * which the manifest records with no schedule file, so that runs with
 * two schedule files into DIR do not take it from each other. */
int emit_dir_file(EmitDir *d, const char *name, const char *text, bool kernel_alone);
/* Files in DIR that the manifest says an earlier run wrote from the same
 * kernel file, and that this run did not write: to be removed (or, with
 * --check, reported) when that run had the same inputs or d->prune; kept
 * with a warning otherwise. An edited one is an error, unless d->force.
 * 0, or 1 when one is stale (--check) or after an error. */
int emit_dir_leftovers(EmitDir *d);
/* Unless --check or an earlier error: writes and removes the files
 * planned, then the manifest (with --check: prints the stale files'
 * messages). Unlocks DIR. 0, or 1 after an error (then
 * it says DIR was left as it was). */
int emit_dir_close(EmitDir *d);
/* The inputs of one earlier run into DIR, as its manifest records them,
 * with paths as seen from the working directory: `emit --check` without
 * inputs of its own checks DIR with these (cli/main.c). */
typedef struct {
  char *schedule, *target_file; /* NULL: none */
  bool assume_no_alias, scheduled_only;
} EmitDirInputs;
/* The distinct inputs with which earlier runs emitted kernel file
 * `source` into dir (malloc'ed, in the manifest's order); their count. */
int emit_dir_recorded_inputs(const char *dir, const char *source, EmitDirInputs **out);
void emit_dir_inputs_free(EmitDirInputs *in, int n);
/* Appends " " and arg for a POSIX shell to out: as it is when that is
 * safe, else in single quotes (every path and option in a command that
 * --check's messages give). */
void emit_dir_shell_arg(char *out, size_t n, const char *arg);
/* "npugen: DIR left as it was ...": the run wrote and removed nothing
 * (errors in the kernel file or in DIR). */
void emit_dir_report_unchanged(const char *dir);

#endif

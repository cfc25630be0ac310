/* The manifest of an `npugen emit -o DIR` directory (DIR/.npugen-manifest):
 * for each file emit wrote there, the kernel file it came from, the
 * inputs of that run (target, schedule file, options that change the
 * text) and a hash of the text.
 * It is what lets emit prove a file is its own (cli/emit_dir.c). Paths
 * are relative to DIR (the real paths of both), so the manifest of a
 * committed directory is the same in every clone, and two kernel files
 * given by the same path text from two directories are two sources. */
#ifndef NPG_MANIFEST_H
#define NPG_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  char *name;     /* "v.c" */
  char *source;   /* the kernel file, relative to DIR */
  char *target;   /* the target's name */
  char *schedule; /* the schedule file relative to DIR, or "" */
  char *options;  /* the run's options ("--assume-no-alias --target=../t.ini"; emit_dir.c), or "" */
  uint64_t hash;  /* manifest_hash of the text written */
} ManifestEntry;

typedef struct {
  ManifestEntry *e; /* a removed entry has name NULL */
  int n, cap;
  int *index;       /* by a hash of the name: entry + 1, 0 free (open addressing) */
  int nindex;       /* a power of two, over twice n */
} Manifest;

#define MANIFEST_NAME ".npugen-manifest"

/* Reads DIR's manifest (none: empty). A malformed line is skipped: its
 * file is then not provably emit's, and is left alone. */
void manifest_read(Manifest *m, const char *dir);
/* Writes it (sorted by name) atomically; 0, or -1 with errno. */
int manifest_write(Manifest *m, const char *dir);
ManifestEntry *manifest_find(Manifest *m, const char *name);
/* Sets name's entry (adding it), copying the strings. */
void manifest_set(Manifest *m, const char *name, const char *source, const char *target, const char *schedule,
                  const char *options, uint64_t hash);
void manifest_remove(Manifest *m, ManifestEntry *e);
void manifest_free(Manifest *m);
/* FNV-1a, 64 bits: the text emit wrote. */
uint64_t manifest_hash(const char *text, size_t n);
/* path (a file) relative to dir, both by their real paths (malloc'ed);
 * NULL when path does not exist. */
char *manifest_relative(const char *path, const char *dir);

#endif

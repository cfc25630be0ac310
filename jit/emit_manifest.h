/* The manifest of an `npugen emit -o DIR` directory (DIR/.npugen-manifest):
 * for each file emit wrote there, the kernel file it came from, the
 * inputs of that run (target, schedule file, options that change the
 * text) and a hash of the text.
 * It is what lets emit prove a file is its own (jit/emit_policy.h decides
 * from it, cli/emit_dir.c reads and writes the files). Paths
 * are relative to DIR (the real paths of both), so the manifest of a
 * committed directory is the same in every clone, and two kernel files
 * given by the same path text from two directories are two sources. */
#ifndef NPG_EMIT_MANIFEST_H
#define NPG_EMIT_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The options of the run that wrote a file, which the manifest's options
 * field holds: the flags, then "--target=" and the target file relative
 * to DIR (last: a path may hold spaces), "--assume-no-alias
 * --target=../t.ini"; the field is left out for a run with none, so a
 * manifest of such runs reads as an older npugen's. */
typedef struct {
  bool assume_no_alias; /* changes the text: restrict */
  bool scheduled_only;  /* changes which files a run writes, not what they hold */
  char *target_file;    /* --target's file relative to DIR, or NULL (none, or an older npugen's manifest) */
} ManifestOptions;

typedef struct {
  char *name;     /* "v.c" */
  char *source;   /* the kernel file, relative to DIR */
  char *target;   /* the target's name */
  char *schedule; /* the schedule file relative to DIR, or "" */
  ManifestOptions options;
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
                  const ManifestOptions *options, uint64_t hash);
void manifest_remove(Manifest *m, ManifestEntry *e);
void manifest_free(Manifest *m);
/* FNV-1a, 64 bits: the text emit wrote. */
uint64_t manifest_hash(const char *text, size_t n);
/* path (a file) relative to dir, both by their real paths (malloc'ed);
 * NULL when path does not exist. */
char *manifest_relative(const char *path, const char *dir);
/* The options field as the manifest spells it (malloc'ed; "" for none),
 * and parsed back word by word (a word it does not know is left out). */
char *manifest_options_text(const ManifestOptions *o);
void manifest_options_parse(const char *field, ManifestOptions *out);
bool manifest_options_equal(const ManifestOptions *a, const ManifestOptions *b);
void manifest_options_free(ManifestOptions *o);

#endif

/* `npugen emit FILE -o DIR` writes <variant>.c and <variant>.h into DIR.
 *  - Every file is checked first, and only when all pass does DIR change:
 *    an error (a refused kernel file or schedule, a file that is not
 *    emit's to replace) leaves DIR exactly as it was, so a refusal never
 *    counts as a variant removed.
 *  - Each file is written to a temporary file in DIR, then renamed over its
 *    name: a build never reads half a file, and a failed write leaves the
 *    old one. A file whose text is unchanged is left alone (its time too,
 *    so make does not rebuild what did not change).
 *  - A symbolic link in DIR is never followed: rename replaces the link
 *    itself by the file, and says so; the link's target is left alone.
 *    --check reports such a link as stale.
 *  - DIR's manifest (jit/emit_manifest.h) says which kernel file, target and
 *    schedule file each file was emitted from, and the hash of its text. A
 *    file another kernel file wrote is never overwritten (two variants of
 *    one name: an error). A file this kernel file wrote in an earlier run
 *    that this run does not write is removed and named on stderr when the
 *    run had the same inputs (the variant was renamed or removed), so a
 *    build that globs DIR never picks up a stale variant; from other
 *    inputs (another target or schedule file) it is kept, with a warning,
 *    unless --prune.
 *  - A file whose text is not the one the manifest records (edited since
 *    npugen wrote it) is neither overwritten nor removed: an error, unless
 *    --force. A file the manifest does not name is not overwritten either:
 *    an error, unless it opens with npugen's own comment and DIR has no
 *    manifest (a directory emitted before manifests, or after its manifest
 *    was lost), or --force with that comment. A file of the user's with a
 *    variant's name is always an error, and is left as it is.
 *    Runs into one DIR take turns (a lock on DIR).
 * jit/emit_policy.c makes each of these decisions; this file reads the
 * facts they need, changes DIR and prints. */
#define _DEFAULT_SOURCE /* flock */
#include "cli/emit_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit/emit_manifest.h"
#include "jit/emit_policy.h"
#include "cli/kept_spelling.h"
#include "lower/file_mark.h"

static int fail(const char *what, const char *path) {
  fprintf(stderr, "npugen: error: cannot %s %s: %s\n", what, path, strerror(errno));
  return 1;
}

static int make_dir(const char *dir) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
    errno = ENAMETOOLONG;
    return fail("create", dir);
  }
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      mkdir(buf, 0777);
      *p = '/';
    }
  if (mkdir(buf, 0777) && errno != EEXIST) return fail("create", dir);
  return 0;
}

/* The run's options as the manifest records them, the target file
 * relative to DIR. */
static ManifestOptions options_key(const EmitDir *d) {
  char *target = d->target_file ? manifest_relative(d->target_file, d->dir) : NULL;
  if (!target && d->target_file) target = strdup(d->target_file); /* --check of a missing DIR */
  return (ManifestOptions){d->assume_no_alias, d->scheduled_only, target};
}

/* This run's inputs as the manifest keys them. */
static EmitRunKey run_key(const EmitDir *d) {
  return (EmitRunKey){d->source_key, d->target, d->schedule_key, d->options_key};
}

int emit_dir_open(EmitDir *d) {
  d->lock_fd = -1;
  if (!d->check && make_dir(d->dir)) return 1;
  /* runs into one DIR take turns: each reads the manifest the last wrote */
  d->lock_fd = open(d->dir, O_RDONLY | O_DIRECTORY);
  if (d->lock_fd >= 0) flock(d->lock_fd, d->check ? LOCK_SH : LOCK_EX);
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", d->dir, MANIFEST_NAME);
  d->had_manifest = access(path, F_OK) == 0;
  manifest_read(&d->manifest, d->dir);
  d->source_key = manifest_relative(d->source, d->dir);
  d->schedule_key = d->schedule ? manifest_relative(d->schedule, d->dir) : NULL;
  if (!d->source_key) d->source_key = strdup(d->source); /* --check of a missing DIR */
  if (!d->schedule_key) d->schedule_key = strdup(d->schedule ? d->schedule : "");
  d->options_key = options_key(d);
  return 0;
}

/* Up to n bytes of a regular file, never through a link: -1 when it is no
 * such file (a link: errno ELOOP). */
static long read_head(const char *path, char *buf, size_t n) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    close(fd);
    errno = EISDIR;
    return -1;
  }
  size_t got = 0;
  ssize_t r;
  while (got < n && (r = read(fd, buf + got, n - got)) > 0) got += (size_t)r;
  close(fd);
  return (long)got;
}

/* The file holds exactly text (a link never does). */
static bool same_text(const char *path, const char *text) {
  size_t n = strlen(text);
  char *buf = malloc(n + 1);
  long got = read_head(path, buf, n + 1);
  bool same = got == (long)n && memcmp(buf, text, n) == 0;
  free(buf);
  return same;
}

/* The manifest's hash of the regular file at path; false when there is none. */
static bool file_hash(const char *path, uint64_t *hash) {
  struct stat st;
  if (lstat(path, &st) || !S_ISREG(st.st_mode)) return false;
  char *buf = malloc((size_t)st.st_size + 1);
  long got = read_head(path, buf, (size_t)st.st_size + 1);
  if (got >= 0) *hash = manifest_hash(buf, (size_t)got);
  free(buf);
  return got >= 0;
}

static int write_atomically(const char *path, const char *text) {
  char tmp[4200];
  const char *slash = strrchr(path, '/');
  snprintf(tmp, sizeof tmp, "%.*s.%s.XXXXXX", (int)(slash + 1 - path), path, slash + 1);
  int fd = mkstemp(tmp);
  if (fd < 0) return fail("write", path);
  mode_t mask = umask(0);
  umask(mask);
  size_t n = strlen(text), done = 0;
  ssize_t w = 0;
  while (done < n && (w = write(fd, text + done, n - done)) > 0) done += (size_t)w;
  bool ok = done == n && fchmod(fd, 0666 & ~mask) == 0;
  ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp, path)) {
    int e = errno;
    unlink(tmp);
    errno = e;
    return fail("write", path);
  }
  return 0;
}

static void remember(EmitDir *d, const char *name) {
  if (d->n == d->cap) {
    d->cap = d->cap ? 2 * d->cap : 64;
    d->names = realloc(d->names, sizeof *d->names * (size_t)d->cap);
  }
  d->names[d->n++] = strdup(name);
}

/* Another kernel file wrote DIR/name, and still exists (a kernel file
 * that is gone, moved or renamed, leaves its files to whoever emits them
 * next). */
static bool owned_by_other(const EmitDir *d, const ManifestEntry *e) {
  EmitRunKey run = run_key(d);
  if (!emit_policy_from_other_source(e, &run)) return false;
  char path[8400];
  snprintf(path, sizeof path, "%s/%s", d->dir, e->source);
  return e->source[0] == '/' ? access(e->source, F_OK) == 0 : access(path, F_OK) == 0;
}

/* The regular file at path opens with the comment npugen writes over
 * every file (lower/file_mark.h). */
static bool opens_as_emitted(const char *path) {
  static const char *const opening[] = {NPG_FILE_COMMENT_OPEN NPG_FILE_KIND_SOURCE NPG_FILE_GENERATED,
                                        NPG_FILE_COMMENT_OPEN NPG_FILE_KIND_HEADER NPG_FILE_GENERATED};
  char head[64];
  long got = read_head(path, head, sizeof head - 1);
  if (got < 0) return false;
  head[got] = 0;
  for (int i = 0; i < 2; i++)
    if (!strncmp(head, opening[i], strlen(opening[i]))) return true;
  return false;
}

/* Whether emit may replace the regular file at path by another text
 * (EmitReplace says why not). */
static EmitReplace may_replace(const EmitDir *d, const ManifestEntry *e, const char *path) {
  uint64_t hash;
  if (e) return emit_policy_replace_listed(e, file_hash(path, &hash) ? &hash : NULL, d->force);
  return emit_policy_replace_unlisted(opens_as_emitted(path), d->had_manifest, d->force);
}

/* emit's error when it may not replace path; true then. */
static bool not_emits_to_replace(EmitDir *d, const ManifestEntry *e, const char *path) {
  switch (may_replace(d, e, path)) {
  case REPLACE_OK: return false;
  case REPLACE_EDITED:
    fprintf(stderr,
            "npugen: error: %s changed since npugen wrote it (its text is not the one %s records): left as it is; "
            "keep your edit elsewhere, or give --force to overwrite it\n",
            path, MANIFEST_NAME);
    return true;
  case REPLACE_NOT_NPUGENS:
    fprintf(stderr,
            "npugen: error: %s exists, and npugen did not write it (%s does not name it, and it does not open with "
            "npugen's comment): left as it is; move it away, or emit into another directory\n",
            path, MANIFEST_NAME);
    return true;
  case REPLACE_UNLISTED:
    fprintf(stderr,
            "npugen: error: %s opens with npugen's comment, but %s does not name it (it may hold edits an earlier "
            "run left alone): left as it is; give --force to overwrite it\n",
            path, MANIFEST_NAME);
    return true;
  }
  return true;
}

/* Appends ", " (unless out is empty) and the formatted text to out. */
static void add_input(char *out, size_t n, const char *fmt, const char *a, const char *b) {
  size_t len = strlen(out);
  if (len && len + 2 < n) len += (size_t)snprintf(out + len, n - len, ", ");
  if (len < n) snprintf(out + len, n - len, fmt, a, b);
}

/* What the earlier run that wrote e had that this one has not: "target T",
 * "schedule file S (relative to DIR)" or "no schedule file", "with
 * --assume-no-alias" or "without --assume-no-alias"; "" when the same. */
static void other_inputs(const EmitDir *d, const ManifestEntry *e, char *out, size_t n) {
  EmitRunKey run = run_key(d);
  EmitOtherInputs other = emit_policy_other_inputs(e, &run);
  out[0] = 0;
  if (other.target) add_input(out, n, "target %s%s", e->target, "");
  if (other.schedule) {
    if (*e->schedule) add_input(out, n, "schedule file %s (relative to %s)", e->schedule, d->dir);
    else add_input(out, n, "no schedule file%s%s", "", "");
  }
  bool was = e->options.assume_no_alias;
  if (other.assume_no_alias) add_input(out, n, "%s--assume-no-alias%s", was ? "with " : "without ", "");
}

/* Keeps --check's message of a stale file (it ends in "run: ", the
 * command follows at emit_dir_close): every message gives the same
 * command, so following any one of them regenerates every file, an
 * edited .c and its unedited .h alike. force: this file needs --force. */
static void stale(EmitDir *d, bool force, const char *fmt, ...) {
  if (d->nstale == d->stale_cap) {
    d->stale_cap = d->stale_cap ? 2 * d->stale_cap : 8;
    d->stale = realloc(d->stale, sizeof *d->stale * (size_t)d->stale_cap);
  }
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *text = malloc((size_t)len + 1);
  va_start(ap, fmt);
  vsnprintf(text, (size_t)len + 1, fmt, ap);
  va_end(ap);
  d->stale[d->nstale++] = text;
  d->stale_needs_force |= force;
}

/* The stale files' messages, each with the command that regenerates. */
static void print_stale(const EmitDir *d) {
  for (int i = 0; i < d->nstale; i++)
    fprintf(stderr, "%s%s%s\n", d->stale[i], d->rerun, d->stale_needs_force && !d->force ? " --force" : "");
}

/* DIR/rel (a path the manifest holds) as seen from the working directory:
 * relative to it where the file exists, else as DIR/rel. */
static char *from_cwd(const char *dir, const char *rel) {
  size_t n = strlen(dir) + strlen(rel) + 2;
  char *path = malloc(n);
  snprintf(path, n, "%s/%s", dir, rel);
  if (rel[0] == '/') snprintf(path, n, "%s", rel);
  char *seen = manifest_relative(path, ".");
  if (!seen) return path;
  free(path);
  return seen;
}

void emit_dir_shell_arg(char *out, size_t n, const char *arg) {
  size_t len = strlen(out);
  bool plain = *arg && strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=+,:@%") == strlen(arg);
  if (plain) {
    snprintf(out + len, n - len, " %s", arg);
    return;
  }
  snprintf(out + len, n - len, " '");
  for (const char *p = arg; *p; p++) {
    len = strlen(out);
    snprintf(out + len, n - len, *p == '\'' ? "'\\''" : "%c", *p);
  }
  len = strlen(out);
  snprintf(out + len, n - len, "'");
}

/* The command of the earlier run that wrote e (its inputs as the
 * manifest records them, paths as seen from here). */
static void recorded_command(const EmitDir *d, const ManifestEntry *e, char *out, size_t n) {
  const ManifestOptions *w = &e->options;
  char *schedule = *e->schedule ? from_cwd(d->dir, e->schedule) : NULL;
  char *target = w->target_file ? from_cwd(d->dir, w->target_file) : NULL;
  snprintf(out, n, "npugen emit");
  emit_dir_shell_arg(out, n, d->source);
  const char *opts[] = {"--schedule", schedule, "--target", target, "-o", d->dir};
  for (int i = 0; i < 6; i += 2)
    if (opts[i + 1]) {
      emit_dir_shell_arg(out, n, opts[i]);
      emit_dir_shell_arg(out, n, opts[i + 1]);
    }
  if (w->assume_no_alias) emit_dir_shell_arg(out, n, "--assume-no-alias");
  if (w->scheduled_only) emit_dir_shell_arg(out, n, "--scheduled-only");
  free(schedule);
  free(target);
}

/* --check's message for DIR/name, stale: a command that, followed,
 * regenerates it (emit's refusals of an edited file included), or none
 * after a refused schedule, which emit would refuse again. */
static void report_stale(EmitDir *d, const ManifestEntry *e, const char *path, const char *text, bool link) {
  if (d->refused) {
    fprintf(stderr, "npugen: %s is stale, but a schedule was refused (the errors above), and emit writes nothing into "
            "%s until it is mended\n", path, d->dir);
    return;
  }
  struct stat st;
  EmitReplace r = !link && lstat(path, &st) == 0 && S_ISREG(st.st_mode) && !same_text(path, text)
                      ? may_replace(d, e, path)
                      : REPLACE_OK;
  char inputs[9000] = "";
  if (e && !strcmp(e->source, d->source_key)) other_inputs(d, e, inputs, sizeof inputs);
  EmitStale why = emit_policy_stale(r, *inputs, !link && same_text(path, text));
  bool force = emit_policy_stale_needs_force(why);
  char was[9000];
  switch (why) {
  case STALE_EDITED:
    stale(d, force, "npugen: %s is stale, and was edited by hand since npugen wrote it (its text is not the one %s "
          "records); regenerating it loses the edit: run: ", path, MANIFEST_NAME);
    return;
  case STALE_UNLISTED:
    stale(d, force, "npugen: %s is stale, and %s does not name it (it may hold edits by hand); regenerating it "
          "loses any edit: run: ", path, MANIFEST_NAME);
    return;
  case STALE_NOT_NPUGENS:
    stale(d, force, "npugen: %s is not npugen's (%s does not name it, and it does not open with npugen's comment): "
          "move it away first: run: ", path, MANIFEST_NAME);
    return;
  case STALE_OTHER_INPUTS:
    recorded_command(d, e, was, sizeof was);
    stale(d, force, "npugen: %s is stale: an earlier run emitted it from other inputs (%s: `%s` regenerates it "
          "from those); from this run's inputs: run: ", path, inputs, was);
    return;
  case STALE_UNRECORDED:
    stale(d, force, "npugen: %s is stale (the manifest, " MANIFEST_NAME ", does not say this run wrote it): run: ",
          path);
    return;
  case STALE_CHANGED:
    stale(d, force, "npugen: %s is stale%s: run: ", path, link ? " (a symbolic link, which emit replaces)" : "");
    return;
  }
}

/* Plans a change: text written to DIR/name, or (text NULL) name removed. */
static void plan(EmitDir *d, const char *name, const char *text, bool was_link) {
  if (d->nchanges == d->changes_cap) {
    d->changes_cap = d->changes_cap ? 2 * d->changes_cap : 16;
    d->changes = realloc(d->changes, sizeof *d->changes * (size_t)d->changes_cap);
  }
  d->changes[d->nchanges++] = (struct EmitDirChange){strdup(name), text ? strdup(text) : NULL, was_link};
}

/* --check with recorded inputs, of a file recorded from other inputs:
 * 0 when another of the recorded runs checks it. */
static int recorded_elsewhere(const EmitDir *d, const ManifestEntry *e, const char *path) {
  EmitRunKey run = run_key(d);
  if (emit_policy_checked_by_another_run(e, &run)) return 0;
  fprintf(stderr, "npugen: %s was emitted for target %s, whose file %s does not record (an older npugen wrote it): "
          "check it with --target and its other inputs\n", path, e->target, MANIFEST_NAME);
  return 1;
}

static int file_text(EmitDir *d, const char *name, const char *text, bool kernel_alone) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s", d->dir, name) >= (int)sizeof path) {
    errno = ENAMETOOLONG;
    d->failed = true;
    return fail("write", d->dir);
  }
  remember(d, name);
  ManifestEntry *e = manifest_find(&d->manifest, name);
  if (owned_by_other(d, e)) {
    fprintf(stderr,
            "npugen: error: %s was emitted from another kernel file (%s, relative to %s), which has a variant of the "
            "same name: left as it is; rename one of the two variants, or emit into another directory\n",
            path, e->source, d->dir);
    d->failed = true;
    return 1;
  }
  struct stat st;
  bool exists = lstat(path, &st) == 0, link = exists && S_ISLNK(st.st_mode);
  if (!d->check && exists && S_ISREG(st.st_mode) && !same_text(path, text) && not_emits_to_replace(d, e, path)) {
    d->failed = true;
    return 1;
  }
  if (d->check) {
    EmitRunKey run = run_key(d);
    if (same_text(path, text) && emit_policy_entry_fresh(e, &run, manifest_hash(text, strlen(text)), kernel_alone)) return 0;
    if (d->recorded_inputs && e && !strcmp(e->source, d->source_key) && !emit_policy_inputs_match(e, &run))
      return recorded_elsewhere(d, e, path);
    report_stale(d, e, path, text, link);
    return 1;
  }
  if (link || !same_text(path, text)) plan(d, name, text, link);
  manifest_set(&d->manifest, name, d->source_key, d->target, kernel_alone ? "" : d->schedule_key, &d->options_key,
               manifest_hash(text, strlen(text)));
  d->changed = true;
  return 0;
}

/* A file of this kernel file whose opening comment spells the kernel
 * file's path otherwise is fresh, as written (cli/kept_spelling.c). */
int emit_dir_file(EmitDir *d, const char *name, const char *text, bool kernel_alone) {
  char path[4096];
  ManifestEntry *e = manifest_find(&d->manifest, name);
  bool ours = e && !strcmp(e->source, d->source_key) && snprintf(path, sizeof path, "%s/%s", d->dir, name) < (int)sizeof path;
  char *kept = ours ? emit_dir_kept_spelling(path, text) : NULL;
  int rc = file_text(d, name, kept ? kept : text, kernel_alone);
  free(kept);
  return rc;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool written(const EmitDir *d, const char *name) {
  return d->n && bsearch(&name, d->names, (size_t)d->n, sizeof *d->names, cmp_names) != NULL;
}

/* A file of the manifest that this kernel file's earlier run wrote and
 * this run did not: 0 when it is to be left or removed. */
static int leftover(EmitDir *d, const char *name) {
  ManifestEntry *e = manifest_find(&d->manifest, name);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", d->dir, name);
  uint64_t hash;
  EmitRunKey run = run_key(d);
  EmitLeftoverFlags flags = {.prune = d->prune, .force = d->force, .check_refused = d->check && d->refused};
  char inputs[9000];
  switch (emit_policy_leftover(e, &run, file_hash(path, &hash) ? &hash : NULL, flags)) {
  case LEFTOVER_FORGET: /* gone, or a link now: nothing of emit's to lose */
    if (!d->check) {
      if (access(path, F_OK) == 0)
        fprintf(stderr, "npugen: warning: %s changed since npugen wrote it: left alone, and no longer emit's\n", path);
      manifest_remove(&d->manifest, e);
      d->changed = true;
    }
    return 0;
  case LEFTOVER_KEEP:
    other_inputs(d, e, inputs, sizeof inputs);
    if (!d->check)
      fprintf(stderr, "npugen: warning: kept %s: an earlier run emitted it from other inputs (%s); --prune removes it\n",
              path, inputs);
    return 0;
  case LEFTOVER_REFUSED:
    fprintf(stderr, "npugen: %s: this run emits no variant of that name, but a schedule was refused (the errors "
            "above): mend it, then check again\n", path);
    return 1;
  case LEFTOVER_EDITED:
    if (d->check) {
      stale(d, true, "npugen: %s is stale: this run emits no variant of that name, and it was edited by hand since "
            "npugen wrote it; removing it loses the edit: run: ", path);
      return 1;
    }
    fprintf(stderr,
            "npugen: error: %s changed since npugen wrote it, and this run emits no variant of that name: left as "
            "it is; remove it yourself, or give --force to remove it\n",
            path);
    d->failed = true;
    return 1;
  case LEFTOVER_REMOVE:
    if (d->check) {
      stale(d, false, "npugen: %s is stale: this run emits no variant of that name; run: ", path);
      return 1;
    }
    plan(d, name, NULL, false);
    manifest_remove(&d->manifest, e);
    d->changed = true;
    return 0;
  }
  return 0;
}

int emit_dir_leftovers(EmitDir *d) {
  if (d->n) qsort(d->names, (size_t)d->n, sizeof *d->names, cmp_names);
  char **found = malloc(sizeof *found * (size_t)(d->manifest.n + 1));
  int n = 0;
  for (int i = 0; i < d->manifest.n; i++) {
    const ManifestEntry *e = &d->manifest.e[i];
    if (e->name && !strcmp(e->source, d->source_key) && !written(d, e->name)) found[n++] = strdup(e->name);
  }
  if (n) qsort(found, (size_t)n, sizeof *found, cmp_names); /* messages in a stable order */
  int rc = 0;
  for (int i = 0; i < n; i++) {
    rc |= leftover(d, found[i]);
    free(found[i]);
  }
  free(found);
  return rc;
}

void emit_dir_report_unchanged(const char *dir) {
  fprintf(stderr, "npugen: %s left as it was: no file written or removed (the errors above)\n", dir);
}

/* Makes the planned changes: 0, or 1 after a failed write or removal. */
static int apply_changes(const EmitDir *d) {
  int rc = 0;
  for (int i = 0; i < d->nchanges; i++) {
    const struct EmitDirChange *c = &d->changes[i];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", d->dir, c->name);
    if (!c->text && unlink(path)) {
      rc |= fail("remove", path);
    } else if (!c->text) {
      fprintf(stderr, "npugen: removed %s: generated by an earlier run, this run emits no variant of that name\n",
              path);
    } else if (write_atomically(path, c->text)) {
      rc = 1;
    } else if (c->was_link) {
      fprintf(stderr, "npugen: %s was a symbolic link: replaced by the file (the link's target is left alone)\n", path);
    }
  }
  return rc;
}

int emit_dir_close(EmitDir *d) {
  int rc = 0;
  if (d->failed && !d->check) {
    emit_dir_report_unchanged(d->dir);
    rc = 1;
  } else if (!d->check) {
    rc = apply_changes(d);
    if (d->changed && manifest_write(&d->manifest, d->dir)) rc = fail("write", d->dir);
  }
  print_stale(d);
  if (d->lock_fd >= 0) close(d->lock_fd); /* releases the lock */
  manifest_free(&d->manifest);
  free(d->source_key);
  free(d->schedule_key);
  manifest_options_free(&d->options_key);
  for (int i = 0; i < d->n; i++) free(d->names[i]);
  free(d->names);
  for (int i = 0; i < d->nchanges; i++) {
    free(d->changes[i].name);
    free(d->changes[i].text);
  }
  free(d->changes);
  for (int i = 0; i < d->nstale; i++) free(d->stale[i]);
  free(d->stale);
  d->stale = NULL;
  d->nstale = d->stale_cap = 0;
  d->names = NULL;
  d->changes = NULL;
  d->n = d->cap = d->nchanges = d->changes_cap = 0;
  return rc;
}

int emit_dir_recorded_inputs(const char *dir, const char *source, EmitDirInputs **out) {
  Manifest m;
  manifest_read(&m, dir);
  char *key = manifest_relative(source, dir);
  /* an index of the distinct (schedule, options) pairs: the first entry of each */
  int *first = malloc(sizeof *first * (size_t)(m.n + 1)), n = 0;
  for (int i = 0; key && i < m.n; i++) {
    const ManifestEntry *e = &m.e[i];
    if (!e->name || strcmp(e->source, key)) continue;
    bool seen = false;
    for (int k = 0; k < n && !seen; k++)
      seen = !strcmp(m.e[first[k]].schedule, e->schedule) && manifest_options_equal(&m.e[first[k]].options, &e->options);
    if (!seen) first[n++] = i;
  }
  /* the files of the kernel file alone (no schedule file) are every
   * run's: checked by a run with a schedule file and the same options */
  int kept = 0;
  for (int k = 0; k < n; k++) {
    bool covered = false;
    for (int j = 0; j < n && !*m.e[first[k]].schedule && !covered; j++)
      covered = *m.e[first[j]].schedule && manifest_options_equal(&m.e[first[j]].options, &m.e[first[k]].options);
    if (!covered) first[kept++] = first[k];
  }
  n = kept;
  *out = calloc((size_t)n + 1, sizeof **out);
  for (int k = 0; k < n; k++) {
    const ManifestEntry *e = &m.e[first[k]];
    const ManifestOptions *w = &e->options;
    (*out)[k] = (EmitDirInputs){*e->schedule ? from_cwd(dir, e->schedule) : NULL,
                                w->target_file ? from_cwd(dir, w->target_file) : NULL, w->assume_no_alias,
                                w->scheduled_only};
  }
  free(first);
  free(key);
  manifest_free(&m);
  return n;
}

void emit_dir_inputs_free(EmitDirInputs *in, int n) {
  for (int k = 0; k < n; k++) {
    free(in[k].schedule);
    free(in[k].target_file);
  }
  free(in);
}

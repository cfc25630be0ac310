/* DIR/.npugen-manifest (jit/emit_manifest.h). A line per file, fields split by
 * tabs: name, kernel file, target, schedule file, [options,] hash (16 hex
 * digits). The options field is there only when the run gave an option
 * (--assume-no-alias, --scheduled-only, --target's file: ManifestOptions),
 * so manifests of runs without one read as before, in this npugen and in
 * older ones.
 * A tab, a newline or a backslash in a field is written \t, \n or \\. */
#define _DEFAULT_SOURCE /* realpath */
#include "jit/emit_manifest.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/util.h"

static const char header[] =
    "# npugen emit: the files it wrote here (name, kernel file, target, schedule file, hash of the text;\n"
    "# paths relative to this directory). emit removes or overwrites only what this says it wrote.\n";

uint64_t manifest_hash(const char *text, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
  return h;
}

static void put_field(StrBuf *sb, const char *s) {
  for (; *s; s++) {
    if (*s == '\t') sb_puts(sb, "\\t");
    else if (*s == '\n') sb_puts(sb, "\\n");
    else if (*s == '\\') sb_puts(sb, "\\\\");
    else sb_putc(sb, *s);
  }
}

/* The next field of a line, unescaped in place; NULL at the line's end. */
static char *take_field(char **p) {
  if (!*p) return NULL;
  char *start = *p, *out = start, *s = start;
  for (; *s && *s != '\t'; s++) {
    if (*s == '\\' && (s[1] == 't' || s[1] == 'n' || s[1] == '\\')) {
      s++;
      *out++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : '\\';
    } else {
      *out++ = *s;
    }
  }
  *p = *s ? s + 1 : NULL;
  *out = 0;
  return start;
}

static void read_line(Manifest *m, char *line) {
  char *p = line, *f[6];
  int n = 0;
  while (n < 6 && (f[n] = take_field(&p))) n++;
  if (n < 5 || p) return;
  char *end;
  errno = 0;
  uint64_t hash = strtoull(f[n - 1], &end, 16);
  if (*end || errno || !*f[0] || !*f[1] || (n == 6 && !*f[4])) return;
  ManifestOptions o;
  manifest_options_parse(n == 6 ? f[4] : "", &o);
  manifest_set(m, f[0], f[1], f[2], f[3], &o, hash);
  manifest_options_free(&o);
}

#define TARGET_WORD "--target="

char *manifest_options_text(const ManifestOptions *o) {
  const char *words[] = {o->assume_no_alias ? "--assume-no-alias" : NULL, o->scheduled_only ? "--scheduled-only" : NULL};
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < 2; i++)
    if (words[i]) sb_printf(&sb, "%s%s", sb.len ? " " : "", words[i]);
  if (o->target_file) sb_printf(&sb, "%s" TARGET_WORD "%s", sb.len ? " " : "", o->target_file);
  return sb.data ? sb_take(&sb) : strdup("");
}

/* The field's words, split at spaces, up to the target file's, which
 * takes the rest of the field (a path may hold spaces). */
void manifest_options_parse(const char *field, ManifestOptions *out) {
  memset(out, 0, sizeof *out);
  for (const char *w = field; *w;) {
    size_t len = strcspn(w, " ");
    if (!strncmp(w, TARGET_WORD, strlen(TARGET_WORD))) {
      out->target_file = strdup(w + strlen(TARGET_WORD));
      return;
    }
    if (len == strlen("--assume-no-alias") && !strncmp(w, "--assume-no-alias", len)) out->assume_no_alias = true;
    if (len == strlen("--scheduled-only") && !strncmp(w, "--scheduled-only", len)) out->scheduled_only = true;
    w += len + (w[len] == ' ');
  }
}

bool manifest_options_equal(const ManifestOptions *a, const ManifestOptions *b) {
  return a->assume_no_alias == b->assume_no_alias && a->scheduled_only == b->scheduled_only &&
         !a->target_file == !b->target_file && (!a->target_file || !strcmp(a->target_file, b->target_file));
}

void manifest_options_free(ManifestOptions *o) {
  free(o->target_file);
  o->target_file = NULL;
}

static void copy_options(ManifestOptions *to, const ManifestOptions *from) {
  char *target = from->target_file ? strdup(from->target_file) : NULL;
  manifest_options_free(to);
  *to = *from;
  to->target_file = target;
}

void manifest_read(Manifest *m, const char *dir) {
  memset(m, 0, sizeof *m);
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, MANIFEST_NAME);
  FILE *f = fopen(path, "r");
  if (!f) return;
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, f)) > 0) {
    if (line[len - 1] == '\n') line[--len] = 0;
    if (line[0] != '#') read_line(m, line);
  }
  free(line);
  fclose(f);
}

/* The slot of name in the index: its entry's, or the free one it would take. */
static int *slot(const Manifest *m, const char *name) {
  size_t mask = (size_t)m->nindex - 1, i = (size_t)manifest_hash(name, strlen(name)) & mask;
  for (const char *at; m->index[i] && (!(at = m->e[m->index[i] - 1].name) || strcmp(at, name));) /* a removed one: on */
    i = (i + 1) & mask;
  return &m->index[i];
}

/* The index rebuilt over twice the room the entries need. */
static void reindex(Manifest *m) {
  free(m->index);
  for (m->nindex = 64; m->nindex < 2 * (m->cap + 1);) m->nindex *= 2;
  m->index = calloc((size_t)m->nindex, sizeof *m->index);
  for (int i = 0; i < m->n; i++)
    if (m->e[i].name) *slot(m, m->e[i].name) = i + 1;
}

static bool same_text(const char *path, const char *text) {
  FILE *f = fopen(path, "r");
  if (!f) return false;
  size_t n = strlen(text);
  char *buf = malloc(n + 1);
  bool same = fread(buf, 1, n + 1, f) == n && memcmp(buf, text, n) == 0;
  free(buf);
  fclose(f);
  return same;
}

static int cmp_entries(const void *a, const void *b) {
  const char *x = ((const ManifestEntry *)a)->name, *y = ((const ManifestEntry *)b)->name;
  return !x || !y ? (x == NULL) - (y == NULL) : strcmp(x, y);
}

int manifest_write(Manifest *m, const char *dir) {
  qsort(m->e, (size_t)m->n, sizeof *m->e, cmp_entries);
  reindex(m);
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, header);
  for (int i = 0; i < m->n && m->e[i].name; i++) {
    const ManifestEntry *e = &m->e[i];
    char *options = manifest_options_text(&e->options);
    const char *fields[5] = {e->name, e->source, e->target, e->schedule, options};
    for (int k = 0; k < 5; k++) {
      if (k == 4 && !*options) break; /* no options: the field is left out */
      put_field(&sb, fields[k]);
      sb_putc(&sb, '\t');
    }
    free(options);
    sb_printf(&sb, "%016llx\n", (unsigned long long)e->hash);
  }
  char path[4200], tmp[4300];
  snprintf(path, sizeof path, "%s/%s", dir, MANIFEST_NAME);
  char *text = sb_take(&sb);
  if (same_text(path, text)) { /* its time too stays */
    free(text);
    return 0;
  }
  snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
  int fd = mkstemp(tmp);
  size_t n = strlen(text), done = 0;
  ssize_t w = 0;
  while (fd >= 0 && done < n && (w = write(fd, text + done, n - done)) > 0) done += (size_t)w;
  free(text);
  bool ok = fd >= 0 && done == n && fchmod(fd, 0644) == 0;
  ok = fd >= 0 && close(fd) == 0 && ok;
  if (ok && rename(tmp, path) == 0) return 0;
  int e = errno;
  if (fd >= 0) unlink(tmp);
  errno = e;
  return -1;
}

ManifestEntry *manifest_find(Manifest *m, const char *name) {
  if (!m->nindex) return NULL;
  int *s = slot(m, name);
  return *s ? &m->e[*s - 1] : NULL;
}

static void set_str(char **field, const char *value) {
  char *copy = strdup(value);
  free(*field);
  *field = copy;
}

void manifest_set(Manifest *m, const char *name, const char *source, const char *target, const char *schedule,
                  const ManifestOptions *options, uint64_t hash) {
  ManifestEntry *e = manifest_find(m, name);
  if (!e) {
    if (m->n == m->cap) {
      m->e = realloc(m->e, sizeof *m->e * (size_t)(m->cap = m->cap ? 2 * m->cap : 32));
      reindex(m);
    }
    e = &m->e[m->n++];
    memset(e, 0, sizeof *e);
    e->name = strdup(name);
    *slot(m, name) = m->n;
  }
  set_str(&e->source, source);
  set_str(&e->target, target);
  set_str(&e->schedule, schedule);
  copy_options(&e->options, options);
  e->hash = hash;
}

static void free_entry(ManifestEntry *e) {
  free(e->name);
  free(e->source);
  free(e->target);
  free(e->schedule);
  manifest_options_free(&e->options);
}

void manifest_remove(Manifest *m, ManifestEntry *e) {
  (void)m; /* e stays in m's array and index: a removed one */
  free_entry(e);
  memset(e, 0, sizeof *e); /* its slot stays, pointing at no name: probes pass it */
}

void manifest_free(Manifest *m) {
  for (int i = 0; i < m->n; i++) free_entry(&m->e[i]);
  free(m->e);
  free(m->index);
  memset(m, 0, sizeof *m);
}

char *manifest_relative(const char *path, const char *dir) {
  char *p = realpath(path, NULL), *d = realpath(dir, NULL);
  if (!p || !d) {
    free(p);
    free(d);
    return NULL;
  }
  /* the longest common prefix of whole components */
  size_t common = 0;
  for (size_t i = 0; p[i] && p[i] == d[i]; i++)
    if (p[i] == '/') common = i;
  size_t dl = strlen(d);
  if (!strncmp(p, d, dl) && (p[dl] == '/' || (dl == 1 && d[0] == '/'))) common = dl == 1 ? 0 : dl;
  StrBuf sb;
  sb_init(&sb);
  for (const char *s = strcmp(d, "/") ? d + common : ""; *s; s++) /* a "../" per component of dir past the prefix */
    if (*s == '/') sb_puts(&sb, "../");
  sb_puts(&sb, p + common + 1);
  free(p);
  free(d);
  return sb_take(&sb);
}

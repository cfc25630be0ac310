#include "ir/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- arena ---------------- */

struct ArenaChunk {
  ArenaChunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

enum { CHUNK_SIZE = 64 * 1024 };

void arena_init(Arena *a, size_t limit_bytes) {
  memset(a, 0, sizeof *a);
  a->limit_bytes = limit_bytes;
}

void arena_free(Arena *a) {
  ArenaChunk *c = a->head;
  while (c) {
    ArenaChunk *next = c->next;
    free(c);
    c = next;
  }
  a->head = NULL;
  a->used_bytes = 0;
}

void *arena_alloc(Arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  a->used_bytes += size;
  if (a->limit_bytes && a->used_bytes > a->limit_bytes)
    a->exhausted = true;
  if (!a->head || a->head->cap - a->head->used < size) {
    size_t cap = size > CHUNK_SIZE ? size : CHUNK_SIZE;
    ArenaChunk *c = malloc(sizeof(ArenaChunk) + cap);
    if (!c) {
      fputs("npugen: out of memory\n", stderr);
      abort();
    }
    c->used = 0;
    c->cap = cap;
    c->next = a->head;
    a->head = c;
  }
  void *p = a->head->data + a->head->used;
  a->head->used += size;
  memset(p, 0, size);
  return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = arena_alloc(a, (size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}

/* ---------------- string buffer ---------------- */

void sb_init(StrBuf *sb) { memset(sb, 0, sizeof *sb); }
void sb_free(StrBuf *sb) {
  free(sb->data);
  sb_init(sb);
}

static void sb_reserve(StrBuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap) return;
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < sb->len + extra + 1) cap *= 2;
  char *p = realloc(sb->data, cap);
  if (!p) {
    fputs("npugen: out of memory\n", stderr);
    abort();
  }
  sb->data = p;
  sb->cap = cap;
}

void sb_putn(StrBuf *sb, const char *s, size_t n) {
  sb_reserve(sb, n);
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = 0;
}
void sb_putc(StrBuf *sb, char c) { sb_putn(sb, &c, 1); }
void sb_lines(StrBuf *sb, const char *text, const char *prefix) {
  for (const char *p = text; *p;) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    sb_puts(sb, prefix);
    sb_c_text(sb, C_TEXT_COMMENT, p, n);
    sb_putc(sb, '\n');
    p += n + (e ? 1 : 0);
  }
}
void sb_puts(StrBuf *sb, const char *s) { sb_putn(sb, s, strlen(s)); }

/* C99 5.2.1.1: ??= ??( ??/ ??) ??' ??< ??! ??> ??- are one character each,
 * before comments or strings are seen (??/ then a newline splices lines). */
static bool trigraph_at(const char *p, const char *end) {
  return end - p >= 3 && p[0] == '?' && p[1] == '?' && strchr("=(/)'<!>-", p[2]) && p[2];
}

static void string_char(StrBuf *sb, unsigned char c) {
  if (c == '"' || c == '\\') sb_printf(sb, "\\%c", c);
  else if (c == '\n') sb_puts(sb, "\\n");
  else if (c == '\t') sb_puts(sb, "\\t");
  else if (c < 0x20 || c == 0x7f) sb_printf(sb, "\\%03o", c); /* three digits: the next char cannot extend it */
  else sb_putc(sb, (char)c);
}

static void comment_char(StrBuf *sb, const char *p, const char *end) {
  unsigned char c = (unsigned char)*p;
  bool next_star = p + 1 < end && p[1] == '*', next_slash = p + 1 < end && p[1] == '/';
  if ((c == '*' && next_slash) || (c == '/' && next_star)) sb_printf(sb, "%c ", c);
  else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) sb_putc(sb, ' ');
  else sb_putc(sb, (char)c);
}

void sb_c_text(StrBuf *sb, CTextPlace place, const char *text, size_t n) {
  const char *end = text + n;
  for (const char *p = text; p < end; p++) {
    if (trigraph_at(p, end)) {
      sb_puts(sb, place == C_TEXT_STRING ? "?\\" : "? "); /* the second '?' follows */
      continue;
    }
    if (place == C_TEXT_STRING) string_char(sb, (unsigned char)*p);
    else comment_char(sb, p, end);
  }
}

void sb_comment(StrBuf *sb, const char *text) {
  sb_puts(sb, "/* ");
  sb_c_text(sb, C_TEXT_COMMENT, text, strlen(text));
  sb_puts(sb, " */");
}

void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  sb_reserve(sb, (size_t)n);
  vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  sb->len += (size_t)n;
}

void sb_printf(StrBuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

void sb_indent(StrBuf *sb, int level) {
  for (int i = 0; i < level; i++) sb_puts(sb, "  ");
}

char *sb_take(StrBuf *sb) {
  char *p = sb->data ? sb->data : calloc(1, 1);
  sb_init(sb);
  return p;
}

/* ---------------- diagnostics ---------------- */

void diag_init(DiagList *d) { memset(d, 0, sizeof *d); }

void diag_free(DiagList *d) {
  Diag *g = d->first;
  while (g) {
    Diag *next = g->next;
    free(g->file);
    free(g->message);
    free(g->source_line);
    free(g);
    g = next;
  }
  diag_init(d);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* The text of 1-based line `line` of src, without its newline. */
static char *copy_line(const char *src, int line) {
  if (!src || line <= 0) return NULL;
  const char *p = src;
  for (int l = 1; l < line && *p; p++)
    if (*p == '\n') l++;
  const char *e = p;
  while (*e && *e != '\n') e++;
  size_t n = (size_t)(e - p);
  if (n > 512) n = 512; /* binary garbage can have huge "lines" */
  char *s = malloc(n + 1);
  memcpy(s, p, n);
  s[n] = 0;
  /* Keep the caret display printable. */
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] < 32 && s[i] != '\t') s[i] = '?';
  return s;
}

void diag_verror(DiagList *d, bool is_note, const char *file, const char *src, int line,
                 int col, const char *fmt, va_list ap) {
  Diag *g = calloc(1, sizeof *g);
  StrBuf sb;
  sb_init(&sb);
  sb_vprintf(&sb, fmt, ap);
  g->message = sb_take(&sb);
  g->file = dup_or_null(file);
  g->line = line;
  g->col = col;
  g->source_line = copy_line(src, line);
  g->is_note = is_note;
  if (d->last)
    d->last->next = g;
  else
    d->first = g;
  d->last = g;
  if (!is_note) d->errors++;
}

void diag_error(DiagList *d, const char *file, const char *src, int line, int col,
                const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(d, false, file, src, line, col, fmt, ap);
  va_end(ap);
}

void diag_note(DiagList *d, const char *file, const char *src, int line, int col,
               const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(d, true, file, src, line, col, fmt, ap);
  va_end(ap);
}

void diag_warning(DiagList *d, const char *file, const char *src, int line, int col,
                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(d, true, file, src, line, col, fmt, ap);
  va_end(ap);
  d->last->is_note = false;
  d->last->is_warning = true;
}

void diag_strict(DiagList *d) {
  for (Diag *g = d->first; g; g = g->next)
    if (g->weakens && g->is_warning) {
      g->is_warning = false;
      d->errors++;
    }
}

char *diag_render(const DiagList *d) {
  StrBuf sb;
  sb_init(&sb);
  for (const Diag *g = d->first; g; g = g->next) {
    const char *kind = g->is_note ? "note" : g->is_warning ? "warning" : "error";
    if (g->file && g->line > 0)
      sb_printf(&sb, "%s:%d:%d: %s: %s\n", g->file, g->line, g->col, kind, g->message);
    else if (g->file)
      sb_printf(&sb, "%s: %s: %s\n", g->file, kind, g->message);
    else
      sb_printf(&sb, "npugen: %s: %s\n", kind, g->message);
    if (g->source_line) {
      sb_printf(&sb, "%5d | %s\n      | ", g->line, g->source_line);
      size_t len = strlen(g->source_line);
      for (int i = 1; i < g->col && (size_t)(i - 1) < len; i++)
        sb_putc(&sb, g->source_line[i - 1] == '\t' ? '\t' : ' ');
      sb_puts(&sb, "^\n");
    }
  }
  return sb_take(&sb);
}

char *read_file(const char *path, size_t *len) { return ir_read_input(path, SIZE_MAX, len); }

char *ir_read_input(const char *path, size_t max, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  StrBuf sb;
  sb_init(&sb);
  char buf[65536];
  size_t n;
  int err = 0;
  while (!err && (n = fread(buf, 1, sizeof buf, f)) > 0) {
    if (sb.len + n > max) err = EFBIG;
    else sb_putn(&sb, buf, n);
  }
  if (!err && ferror(f)) err = errno ? errno : EIO; /* EISDIR for a directory */
  fclose(f);
  if (err) {
    sb_free(&sb);
    errno = err;
    return NULL;
  }
  if (len) *len = sb.len;
  return sb_take(&sb);
}

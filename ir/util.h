/* Small shared utilities: an arena for IR memory, a growable string buffer,
 * and diagnostics. They depend on nothing else of the project. */
#ifndef NPG_UTIL_H
#define NPG_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* ---- arena: every IR node of a module lives here and dies with it ---- */
typedef struct ArenaChunk ArenaChunk;
typedef struct {
  ArenaChunk *head;
  size_t used_bytes;     /* total handed out, checked against limit_bytes */
  size_t limit_bytes;    /* 0 = no limit */
  bool exhausted;        /* set once an allocation went past limit_bytes */
} Arena;

void arena_init(Arena *a, size_t limit_bytes);
void arena_free(Arena *a);
/* Zeroed memory. Past the limit it still returns memory (from a reserve) so
 * callers need no checks; the frontend reports a.exhausted as an error. */
void *arena_alloc(Arena *a, size_t size);
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* ---- string buffer ---- */
typedef struct {
  char *data;
  size_t len, cap;
} StrBuf;

void sb_init(StrBuf *sb);
void sb_free(StrBuf *sb);
void sb_putc(StrBuf *sb, char c);
void sb_puts(StrBuf *sb, const char *s);
void sb_putn(StrBuf *sb, const char *s, size_t n);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
void sb_indent(StrBuf *sb, int level);
/* Each line of text (the last one need not end in '\n') after prefix,
 * ended by '\n': the lines of a comment, each escaped as sb_c_text does. */
void sb_lines(StrBuf *sb, const char *text, const char *prefix);

/* ---- text copied into emitted C ---- */
typedef enum {
  C_TEXT_COMMENT, /* inside a block comment */
  C_TEXT_STRING,  /* inside a string literal, between its quotes */
} CTextPlace;
/* The one way text that npugen did not write itself (a path, a schedule's
 * expression, a target's name, a note quoting either) enters emitted C:
 * the n bytes of text, changed only so that at place they stay text. In a
 * comment "* /" and "/ *" stand for the two markers and "? ?" breaks a
 * trigraph; in a string \\, \", \n, \t, \ooo and ?\? do. Idempotent
 * for comments: escaped text passes unchanged. */
void sb_c_text(StrBuf *sb, CTextPlace place, const char *text, size_t n);
/* "/" "* text *" "/" on one line, text escaped for a comment. */
void sb_comment(StrBuf *sb, const char *text);
/* Hands the buffer's malloc'ed text to the caller. */
char *sb_take(StrBuf *sb);

/* ---- diagnostics: collected, never printed by the library ---- */
typedef struct Diag Diag;
struct Diag {
  Diag *next;
  char *file;        /* may be NULL for errors without a location */
  int line, col;     /* 1-based; 0 when unknown */
  char *message;
  char *source_line; /* the line's text for the caret display, or NULL */
  bool is_note;      /* "note:" follow-up of the previous error */
  bool is_warning;   /* "warning:": reported, but not an error */
  /* a warning that weakens the verdict (a vectorize that stays a hint):
   * an error under --strict or `#pragma npu strict` (diag_strict) */
  bool weakens;
};

typedef struct {
  Diag *first, *last;
  int errors;
} DiagList;

void diag_init(DiagList *d);
void diag_free(DiagList *d);
/* src may be NULL; when given, the line's text is copied for the caret. */
void diag_error(DiagList *d, const char *file, const char *src, int line, int col,
                const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void diag_note(DiagList *d, const char *file, const char *src, int line, int col,
               const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* A warning: rendered with the errors, not counted in d->errors. */
void diag_warning(DiagList *d, const char *file, const char *src, int line, int col,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Every warning that weakens the verdict becomes an error (--strict). */
void diag_strict(DiagList *d);
void diag_verror(DiagList *d, bool is_note, const char *file, const char *src, int line,
                 int col, const char *fmt, va_list ap);
/* gcc-style text: "file:line:col: error: msg\n<line>\n   ^\n" for each. */
char *diag_render(const DiagList *d);

/* Reads a whole file; NULL and errno on failure. *len gets the size. */
char *read_file(const char *path, size_t *len);
/* Reads a user's input file, at most max bytes of it: NULL and errno on
 * failure, EFBIG past max (a device such as /dev/zero never ends). */
char *ir_read_input(const char *path, size_t max, size_t *len);

#endif

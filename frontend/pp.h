/* The preprocessor pass of the frontend (frontend/macros.c, pp_if.c): the
 * file as cpp hands it to the compiler. Tokens are leaves of tree-sitter-c's
 * trees, never lexed by hand. */
#ifndef NPG_PP_H
#define NPG_PP_H

#include "frontend/fe.h"

/* The macros a token may no longer expand into (C11 6.10.3.4: a macro's
 * name in its own expansion is not replaced again). */
typedef struct Hide Hide;
struct Hide {
  int macro;
  const Hide *next;
};

typedef struct {
  const char *s;
  uint32_t len;
  uint32_t loc;   /* the source offset its position reports */
  uint32_t gap;   /* a token as written: the text before it starts here */
  bool exact;     /* its text is the source's at loc (else a macro body's, reported at the use) */
  bool written;   /* a token of the file's own lines */
  bool ident;
  bool raw;       /* a directive line, copied whole */
  int visible;    /* the macros defined before it */
  const Hide *hide;
  uint32_t head;  /* a token as written: its first bytes that are the source's (all but a rewritten body) */
} Tok;

typedef struct {
  Tok *t;
  int n, cap;
} Toks;

typedef struct {
  const char *name;
  bool function;
  int nparams;
  const char **params;
  Toks body;              /* function-like: its replacement list */
  const char *text;       /* object-like: its body as written ("" when none) */
  uint32_t at;            /* the name's source offset */
} Macro;

typedef struct {
  Fe *fe;
  const char *src;
  uint32_t len;
  Macro *m;
  int nm, cap;
  Toks file;      /* the tokens of the file's active lines */
  uint32_t pos;   /* the source before it is in `file` (tokens, gaps) or left out */
  long budget;    /* tokens expansions may still produce */
  int depth;      /* nested #if groups and macro arguments */
  bool changed;   /* a macro expanded or a group was left out */
  Arena tmp;      /* the pass's tokens and hide sets */
  TSTree *trees[FE_MAX_NESTING + 8]; /* #if snippets being read (an error unwinds past them) */
  int ntrees;
  TSTreeCursor *cursors[FE_MAX_NESTING + 8]; /* walks under way, likewise (pp_cursor) */
  int ncursors;
} Pp;

/* macros.c */
_Noreturn void pp_error(Pp *pp, uint32_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The macro named by t's text that t may expand into, visible where t is;
 * -1 when none. */
int pp_macro(const Pp *pp, const char *s, uint32_t len, int visible);
/* Expands in[0..n) fully (arguments first, then rescanning) into out. */
void pp_expand(Pp *pp, const Tok *in, int n, Toks *out);
/* The leaves of n in text (a snippet when text is not the source), as
 * tokens reported at `loc` when not the source's own. */
void pp_leaves(Pp *pp, TSNode n, const char *text, uint32_t loc, const Hide *hide, Toks *out);
void pp_toks_free(Toks *t);

/* pp_if.c: whether a #if, #ifdef, #ifndef, #elif group is taken. */
bool pp_if_taken(Pp *pp, TSNode n);

#endif

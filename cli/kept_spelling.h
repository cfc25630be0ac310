/* The kernel file's path in an emitted file's opening comment, as the run
 * that wrote the file spelt it (cli/kept_spelling.c). */
#ifndef NPG_KEPT_SPELLING_H
#define NPG_KEPT_SPELLING_H

/* The text of the file at path (malloc'ed) when it is fresh but for the
 * kernel file's path in its opening comment; NULL otherwise. */
char *emit_dir_kept_spelling(const char *path, const char *fresh);

#endif

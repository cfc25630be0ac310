/* An intrinsic's C signature and comment, read from npu_intrinsics.h (the
 * ABI's one source of truth) for `npugen intrinsics`. The header declares
 * each `<name>_at(const char *file, int line, ...)`, directly or through a
 * one-line macro (NPU_VU_BINARY(npu_vu_add_i32, int32_t)); the user calls
 * the macro `<name>(...)` without the site arguments, so that is what is
 * shown. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/intrin_doc.h"

static bool ident(char c) { return c == '_' || isalnum((unsigned char)c); }

/* The first occurrence of word (not inside a longer identifier) in text. */
static const char *find_word(const char *text, const char *word) {
  size_t n = strlen(word);
  for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
    if ((p == text || !ident(p[-1])) && !ident(p[n])) return p;
  return NULL;
}

/* s with each backslash-newline removed and each run of white space one
 * blank, malloc'ed. */
static char *squeeze(const char *s, size_t n) {
  char *out = malloc(n + 1), *o = out;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') continue;
    if (isspace((unsigned char)s[i])) {
      if (o > out && o[-1] != ' ') *o++ = ' ';
    } else {
      *o++ = s[i];
    }
  }
  while (o > out && o[-1] == ' ') o--;
  *o = 0;
  return out;
}

/* Drops "_at" from the name and the site parameters: the call users write. */
static void user_form(StrBuf *sb, const char *decl, const char *name) {
  char at[160];
  snprintf(at, sizeof at, "%s_at(", name);
  const char *p = strstr(decl, at);
  const char *site = "const char *file, int line";
  if (!p) {
    sb_puts(sb, decl);
    return;
  }
  sb_putn(sb, decl, (size_t)(p - decl));
  sb_printf(sb, "%s(", name);
  p += strlen(at);
  if (!strncmp(p, site, strlen(site))) {
    p += strlen(site);
    if (*p == ',') p++;
    if (*p == ' ') p++;
  }
  sb_puts(sb, p);
}

/* The macro call `M(name, a1, ...)` that declares name: the body of
 * `#define M(p0, p1, ...)` with each parameter replaced by its argument
 * (`p0##_at` becomes `name_at`). False when there is none. */
static bool expand_macro(const char *hdr, const char *name, StrBuf *out) {
  for (const char *use = find_word(hdr, name); use; use = find_word(use + 1, name)) {
    const char *open = use - 1;
    while (open > hdr && open[0] == ' ') open--;
    if (open <= hdr || *open != '(') continue;
    const char *m = open;
    while (m > hdr && ident(m[-1])) m--;
    if (m == open) continue;
    char macro[64], def[96];
    snprintf(macro, sizeof macro, "%.*s", (int)(open - m), m);
    snprintf(def, sizeof def, "#define %s(", macro);
    const char *d = strstr(hdr, def), *close = strchr(open, ')');
    if (!d || !close) continue;
    /* parameters and arguments, up to 4 each */
    const char *params[4], *args[4];
    size_t plen[4], alen[4];
    int np = 0, na = 0;
    const char *p = d + strlen(def);
    while (*p && *p != ')' && np < 4) {
      while (*p == ' ') p++;
      params[np] = p;
      while (ident(*p)) p++;
      plen[np] = (size_t)(p - params[np]);
      np++;
      while (*p == ' ' || *p == ',') p++;
    }
    const char *body = *p ? p + 1 : p, *end = body;
    while (*end && !(end[0] == '\n' && end[-1] != '\\')) end++;
    for (const char *a = open + 1; a < close && na < 4;) {
      while (*a == ' ') a++;
      args[na] = a;
      while (a < close && *a != ',') a++;
      const char *e = a;
      while (e > args[na] && e[-1] == ' ') e--;
      alen[na] = (size_t)(e - args[na]);
      na++;
      if (*a == ',') a++;
    }
    if (np != na) continue;
    char *flat = squeeze(body, (size_t)(end - body));
    for (const char *q = flat; *q;) {
      if (!ident(*q)) {
        if (q[0] == '#' && q[1] == '#') q += 2; /* the paste joins what is already adjacent */
        else sb_putc(out, *q++);
        continue;
      }
      const char *w = q;
      while (ident(*q)) q++;
      int hit = -1;
      for (int i = 0; i < np; i++)
        if ((size_t)(q - w) == plen[i] && !strncmp(w, params[i], plen[i])) hit = i;
      if (hit >= 0) sb_putn(out, args[hit], alen[hit]);
      else sb_putn(out, w, (size_t)(q - w));
    }
    free(flat);
    return true;
  }
  return false;
}

/* Where name_at is declared in so many words (not in a #define line),
 * else NULL. */
static const char *direct_decl(const char *hdr, const char *name) {
  char at[160];
  snprintf(at, sizeof at, "%s_at", name);
  for (const char *p = find_word(hdr, at); p; p = find_word(p + 1, at)) {
    const char *start = p;
    while (start > hdr && start[-1] != '\n') start--;
    while (*start == ' ') start++;
    if (strncmp(start, "#define", 7)) return p;
  }
  return NULL;
}

bool intrin_signature(const char *hdr, const char *name, StrBuf *sig) {
  const char *p = direct_decl(hdr, name);
  StrBuf decl;
  sb_init(&decl);
  bool ok = false;
  if (p) { /* from the start of its line to the ';' */
    const char *start = p, *semi = strchr(p, ';');
    while (start > hdr && start[-1] != '\n') start--;
    if (semi) {
      char *flat = squeeze(start, (size_t)(semi + 1 - start));
      sb_puts(&decl, flat);
      free(flat);
      ok = true;
    }
  }
  if (!ok) ok = expand_macro(hdr, name, &decl);
  if (ok) user_form(sig, decl.data, name);
  sb_free(&decl);
  return ok;
}

void intrin_header_comment(const char *hdr, const char *name, StrBuf *out) {
  const char *p = direct_decl(hdr, name);
  if (!p) p = find_word(hdr, name); /* declared by a macro call: the call */
  if (!p) return;
  const char *close = NULL;
  for (const char *q = p; q > hdr + 1 && !close; q--)
    if (q[-2] == '*' && q[-1] == '/') close = q;
  if (!close) return;
  const char *open = close - 2;
  while (open > hdr && strncmp(open, "/*", 2)) open--;
  sb_putn(out, open, (size_t)(close - open));
}

/* What a variant's prototypes name (lower/lower.h). In its .c, each
 * extent of an array parameter is spelt with the kernel's #define where
 * it used one (DESIGN.md: macros are used by name), unless a layout step
 * changed the shape. Its header is included beside other headers and the
 * user's own code (docs/embedding.md), so it defines no macro of the
 * kernel's: an extent is a literal or a macro prefixed with the variant's
 * name (MM_TILED_M), a type is the C type a typedef or type macro names,
 * and the guard holds the file's and the variant's names. C++ and tcc
 * 0.9.27 accept no variable-length array parameter: such a header gives
 * them prototypes of their own (ProtoStyle); lower/module.c spells them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"

const char *lower_extent_macro(const Buffer *b, int d) { return b->layout ? NULL : b->dim_macro[d]; }

bool *lower_source_defines(const Module *m, const Kernel *k, bool typedefs, bool own_header) {
  (void)k;
  (void)own_header; /* the header declares no typedef: the source prints them all */
  int n = 0;
  for (const Define *d = m->defines; d; d = d->next) n++;
  bool *want = calloc(n ? (size_t)n : 1, sizeof *want);
  int i = 0;
  for (const Define *d = m->defines; d; d = d->next, i++) want[i] = d->is_typedef == typedefs;
  return want;
}

/* Upper-case letters, digits and '_' of text up to `end` (a name for a
 * macro; anything else becomes '_'). */
static void put_upper(StrBuf *sb, const char *text, const char *end) {
  for (const char *p = text; p < end; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    sb_putc(sb, !ok ? '_' : (c >= 'a' && c <= 'z') ? (char)(c - 32) : c);
  }
}

/* Lower-case words of letters and digits joined by single '_': a name
 * that put_upper spells injectively and whose '_' are all inner. */
static bool plain_words(const char *text, const char *end) {
  if (text == end || *text == '_' || end[-1] == '_') return false;
  for (const char *p = text; p < end; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || (*p == '_' && p[1] != '_'))) return false;
  return true;
}

static bool not_alnum(char c) { return !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')); }

/* "_0" and 8 hex digits of a hash (FNV-1a) of the parts, each with its
 * terminating NUL: the suffix of a joined name whose readable spelling
 * cannot be read back into its parts. A readable guard ends in "_H", and
 * a readable size macro in a macro without '_' (an identifier: it never
 * reads "0" and hex digits), so the two forms never meet. */
static void put_hash_suffix(StrBuf *sb, const char *const *parts, int n) {
  uint32_t h = 2166136261u;
  for (int i = 0; i < n; i++) {
    const char *p = parts[i];
    do h = (h ^ (unsigned char)*p) * 16777619u;
    while (*p++);
  }
  sb_printf(sb, "_0%08X", (unsigned)h);
}

/* Two headers of one project must not share a guard or a macro, so their
 * names are injective in the variant (docs/embedding.md): spelt plainly,
 * "a_b" + "c" and "a" + "b_c" would both read A_B_C. In a guard the file's
 * stem is only a reader's hint, so it keeps its letters and digits alone
 * and the guard's first '_' after NPUGEN_ is the seam; where the variant's
 * spelling is not fixed so, the hash suffix tells the names apart. */
char *lower_header_guard(const char *file, const char *variant) {
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  const char *dot = strrchr(base, '.');
  const char *stem_end = dot && dot != base ? dot : base + strlen(base);
  const char *vend = variant + strlen(variant);
  StrBuf guard;
  sb_init(&guard);
  sb_puts(&guard, "NPUGEN_");
  size_t before = guard.len;
  for (const char *p = base; p < stem_end; p++)
    if (!not_alnum(*p)) sb_putc(&guard, (*p >= 'a' && *p <= 'z') ? (char)(*p - 32) : *p);
  if (guard.len == before) sb_puts(&guard, "KERNEL");
  sb_putc(&guard, '_');
  put_upper(&guard, variant, vend);
  sb_puts(&guard, "_H");
  if (!plain_words(variant, vend)) put_hash_suffix(&guard, &variant, 1);
  return sb_take(&guard);
}

/* A size macro reads "<VARIANT>_<MACRO>" where that pair is plain (a
 * variant in lower-case words, a macro without '_': its last '_' is the
 * seam, so no other plain pair reads the same); any other pair gets the
 * hash suffix. Decided from the pair alone: headers of kernel files that
 * npugen never saw together (variant conv with OUT_C, conv_out with C)
 * still coexist, and no file beside the kernel file changes a name. */
char *lower_header_macro(const Module *m, const char *variant, const char *macro) {
  (void)m;
  const char *vend = variant + strlen(variant);
  StrBuf name;
  sb_init(&name);
  put_upper(&name, variant, vend);
  sb_printf(&name, "_%s", macro);
  bool plain = plain_words(variant, vend) && !strchr(macro, '_');
  if (!plain) {
    const char *parts[] = {variant, macro};
    put_hash_suffix(&name, parts, 2);
  }
  return sb_take(&name);
}

char *lower_size_macro(const Module *m, const char *variant, const Buffer *b, int d) {
  const char *macro = lower_extent_macro(b, d);
  if (!macro || b->extent[d]) return NULL;
  return lower_header_macro(m, variant, macro);
}

const ExtentSpelling *lower_extent_spelt(const Buffer *b, int d) { return b->layout ? NULL : b->dim_spelling[d]; }

/* A sign or '~' where no operand precedes it. */
static bool unary(const ExtentToken *prev, const ExtentToken *t) {
  bool op = !strcmp(t->text, "-") || !strcmp(t->text, "+") || !strcmp(t->text, "~");
  bool operand_before = prev && (prev->is_macro || !strcmp(prev->text, ")") || (prev->text[0] >= '0' && prev->text[0] <= '9'));
  return op && !operand_before;
}

/* Tokens joined as a C programmer spaces them: `H * (W + 2)`, `-2`. */
char *lower_extent_spelling(const Module *m, const char *variant, const Buffer *b, int d) {
  const ExtentSpelling *s = lower_extent_spelt(b, d);
  if (!s) return NULL;
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < s->n; i++) {
    const ExtentToken *t = &s->tok[i], *prev = i ? &s->tok[i - 1] : NULL;
    bool tight = !prev || !strcmp(prev->text, "(") || !strcmp(t->text, ")") || unary(i > 1 ? &s->tok[i - 2] : NULL, prev);
    if (!tight) sb_putc(&sb, ' ');
    if (t->is_macro && variant) {
      char *name = lower_header_macro(m, variant, t->text);
      sb_puts(&sb, name);
      free(name);
    } else {
      sb_puts(&sb, t->text);
    }
  }
  return sb_take(&sb);
}

const char *lower_proto_type(const Type *t, ProtoStyle style) {
  while (t->alias_of) t = t->alias_of;
  return style == PROTO_HEADER_CXX && !strcmp(t->name, "_Bool") ? "bool" : t->name;
}

static bool header_vla(const Kernel *k) {
  for (const Param *p = k->params; p; p = p->next)
    for (int d = 0; p->buf && d < p->buf->ndim; d++)
      if (p->buf->extent[d]) return true;
  return false;
}

/* The keywords (and alternative tokens) of C++ up to C++20 that C99
 * leaves free for a parameter's name: `float new[4]` is a C kernel, and
 * its header is included by C++ too. */
static const char *const cxx_keywords[] = {
    "alignas",      "alignof",     "and",       "and_eq",     "asm",       "bitand",       "bitor",
    "bool",         "catch",       "char8_t",   "char16_t",   "char32_t",  "class",        "compl",
    "concept",      "const_cast",  "consteval", "constexpr",  "constinit", "co_await",     "co_return",
    "co_yield",     "decltype",    "delete",    "dynamic_cast", "explicit", "export",      "false",
    "friend",       "mutable",     "namespace", "new",        "noexcept",  "not",          "not_eq",
    "nullptr",      "operator",    "or",        "or_eq",      "private",   "protected",    "public",
    "reinterpret_cast", "requires", "static_assert", "static_cast", "template", "this",    "thread_local",
    "throw",        "true",        "try",       "typeid",     "typename",  "using",        "virtual",
    "wchar_t",      "xor",         "xor_eq",
};

static bool cxx_keyword(const char *name) {
  for (size_t i = 0; i < sizeof cxx_keywords / sizeof *cxx_keywords; i++)
    if (!strcmp(name, cxx_keywords[i])) return true;
  return false;
}

static const char *param_name(const Param *p) { return p->buf ? p->buf->name : p->var->name; }

static bool names_cxx_keyword(const Kernel *k) {
  for (const Param *p = k->params; p; p = p->next)
    if (cxx_keyword(param_name(p))) return true;
  return false;
}

/* name + "_", or "_2", "_3"... while another parameter of k has that
 * name (no "__": C++ reserves names that hold it). */
static const char *free_name(Arena *a, const Kernel *k, const char *name) {
  for (int n = 1;; n++) {
    const char *try = n == 1 ? arena_printf(a, "%s_", name) : arena_printf(a, "%s_%d", name, n);
    bool taken = false;
    for (const Param *p = k->params; p && !taken; p = p->next) taken = !strcmp(param_name(p), try);
    if (!taken) return try;
  }
}

const Kernel *lower_cxx_param_names(Arena *a, const Kernel *k) {
  if (!names_cxx_keyword(k)) return k;
  Kernel *copy = ARENA_NEW(a, Kernel);
  *copy = *k;
  Param **tail = &copy->params;
  for (const Param *p = k->params; p; p = p->next, tail = &(*tail)->next) {
    Param *q = ARENA_NEW(a, Param);
    *q = *p;
    q->next = NULL;
    if (cxx_keyword(param_name(p)) && p->buf) {
      q->buf = ARENA_NEW(a, Buffer);
      *q->buf = *p->buf;
      q->buf->name = free_name(a, k, p->buf->name);
    } else if (cxx_keyword(param_name(p))) {
      q->var = ARENA_NEW(a, Var);
      *q->var = *p->var;
      q->var->name = free_name(a, k, p->var->name);
    }
    *tail = q;
  }
  return copy;
}

/* C++ spells the prototype otherwise than tcc: restrict, _Bool, a
 * parameter named a C++ keyword. */
static bool cxx_words(const Kernel *k, bool assume_no_alias) {
  if (names_cxx_keyword(k)) return true;
  for (const Param *p = k->params; p; p = p->next) {
    const Type *t = p->buf ? p->buf->elem : p->var->type;
    if (!strcmp(lower_proto_type(t, PROTO_HEADER), "_Bool")) return true;
    if (p->buf && (p->buf->is_restrict || assume_no_alias)) return true;
  }
  return false;
}

int lower_header_branches(const Kernel *k, bool assume_no_alias, HeaderBranch out[3]) {
  bool vla = header_vla(k), words = cxx_words(k, assume_no_alias);
  int n = 0;
  if (vla && !words)
    out[n++] = (HeaderBranch){PROTO_HEADER_CXX, "defined(__cplusplus) || defined(__TINYC__)",
                              "C++ and tcc 0.9.27 take no variable-length array parameter"};
  if (words)
    out[n++] = (HeaderBranch){PROTO_HEADER_CXX, "defined(__cplusplus)",
                              names_cxx_keyword(k) ? "C++: no restrict, no _Bool, no variable-length array parameter, "
                                                     "no parameter named a C++ keyword"
                                                   : "C++: no restrict, no _Bool, no variable-length array parameter"};
  if (vla && words)
    out[n++] = (HeaderBranch){PROTO_HEADER_TCC, "defined(__TINYC__)", "tcc 0.9.27 takes no variable-length array parameter"};
  out[n++] = (HeaderBranch){PROTO_HEADER, NULL, NULL};
  return n;
}

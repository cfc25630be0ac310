/* Type specifiers, qualifiers and type descriptors (casts). */
#include <string.h>

#include "frontend/fe.h"

/* Joins the words of a specifier ("unsigned   long") with single spaces. */
static const char *spec_words(Fe *fe, TSNode n) {
  StrBuf sb;
  sb_init(&sb);
  uint32_t cnt = ts_node_child_count(n);
  if (cnt == 0) {
    sb_puts(&sb, fe_text(fe, n));
  } else {
    for (uint32_t i = 0; i < cnt; i++) {
      TSNode c = ts_node_child(n, i);
      if (fe_is(c, "comment")) continue;
      if (sb.len) sb_putc(&sb, ' ');
      sb_puts(&sb, fe_text(fe, c));
    }
  }
  const char *s = arena_strdup(fe->arena, sb.data ? sb.data : "");
  sb_free(&sb);
  return s;
}

const Type *fe_type_of(Fe *fe, TSNode type_node) {
  if (fe_is(type_node, "struct_specifier") || fe_is(type_node, "union_specifier") ||
      fe_is(type_node, "enum_specifier"))
    fe_error(fe, type_node, "structs, unions and enums are not supported in kernels");
  const char *words = spec_words(fe, type_node);
  const Type *t = type_by_name(words);
  if (!t && fe_is(type_node, "type_identifier")) {
    const Sym *y = fe_lookup(fe, words);
    if (y && y->kind == SYM_TYPE) t = y->type;
  }
  if (!t) {
    if (strstr(words, "long double"))
      fe_error(fe, type_node, "type 'long double' is not supported in kernels");
    fe_error(fe, type_node, "unknown type '%s'", words);
  }
  return t;
}

const Type *fe_alias_type(Fe *fe, const char *name, const Type *base) {
  Type *t = ARENA_NEW(fe->arena, Type);
  *t = *base;
  t->name = name;
  t->alias_of = base;
  return t;
}

/* `typedef float real;` at file scope: a scalar type under a new name
 * (several names in one typedef are fine; pointers, arrays, functions and
 * qualifiers are not kernel types). */
void fe_typedef(Fe *fe, TSNode n) {
  TSNode type_n = fe_field(n, "type");
  if (ts_node_is_null(type_n)) fe_error(fe, n, "typedef without a type");
  uint32_t cnt = ts_node_child_count(n);
  const Type *base = fe_type_of(fe, type_n);
  if (base->kind == TY_VOID) fe_error(fe, type_n, "a typedef of 'void' is not supported in kernel files");
  bool any = false;
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = ts_node_child(n, i);
    if (!ts_node_is_named(c) || ts_node_eq(c, type_n) || fe_is(c, "comment") || fe_is(c, "type_qualifier") ||
        fe_is(c, "storage_class_specifier"))
      continue;
    if (!fe_is(c, "type_identifier"))
      fe_error(fe, c, "only scalar typedefs are supported in kernel files (typedef float real;), not a pointer, array or function type");
    const char *name = fe_text(fe, c);
    fe_check_name(fe, c, name, "typedef");
    Sym *y = fe_declare(fe, c, name, SYM_TYPE);
    y->type = fe_alias_type(fe, name, base);
    Define *d = ARENA_NEW(fe->arena, Define);
    d->name = name;
    d->body = base->name;
    d->loc = fe_loc(fe, n);
    d->type = y->type;
    d->is_typedef = true;
    *fe->define_tail = d;
    fe->define_tail = &d->next;
    any = true;
  }
  if (!any) fe_error(fe, n, "typedef without a name");
  /* after the names are declared: their uses add no second error */
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = ts_node_child(n, i);
    if (fe_is(c, "type_qualifier") || fe_is(c, "storage_class_specifier"))
      fe_error(fe, c, "'%s' in a typedef is not supported; typedef the plain scalar type", fe_text(fe, c));
  }
}

bool fe_has_const(TSNode decl) {
  uint32_t cnt = ts_node_child_count(decl);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = ts_node_child(decl, i);
    if (strcmp(ts_node_type(c), "type_qualifier") == 0) {
      /* type_qualifier's only child is the keyword token. */
      TSNode kw = ts_node_child(c, 0);
      if (!ts_node_is_null(kw) && strcmp(ts_node_type(kw), "const") == 0) return true;
    }
  }
  return false;
}

/* The qualifiers inside one array declarator's brackets (`A[restrict N]`).
 * C99 allows them only in a parameter's first dimension, where they
 * qualify the pointer the array decays to; npugen keeps `restrict` (a
 * promise that no other parameter reaches the same memory, which its
 * dependence analysis assumes anyway: docs/schedules.md) and refuses the
 * rest rather than drop them silently. */
bool fe_array_restrict(Fe *fe, TSNode array_decl, bool first_dim) {
  bool restrict_ = false;
  uint32_t cnt = ts_node_child_count(array_decl);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = ts_node_child(array_decl, i);
    if (!fe_is(c, "type_qualifier")) continue;
    const char *q = fe_text(fe, c);
    if (strcmp(q, "restrict") != 0)
      fe_error(fe, c, "qualifier '%s' inside an array parameter's brackets is not supported (only 'restrict')", q);
    if (!first_dim)
      fe_error(fe, c, "'restrict' belongs in the first brackets of an array parameter, e.g. 'float A[restrict N][K]'");
    restrict_ = true;
  }
  return restrict_;
}

const Type *fe_type_descriptor(Fe *fe, TSNode td) {
  TSNode decl = fe_field(td, "declarator");
  if (!ts_node_is_null(decl))
    fe_error(fe, td, "cast to a pointer or array type is not supported in kernels");
  const Type *t = fe_type_of(fe, fe_field(td, "type"));
  if (t->kind == TY_VOID) fe_error(fe, td, "cast to 'void' is not supported in kernels");
  return t;
}

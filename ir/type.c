/* C scalar types and the conversion rules of C11 6.3.1 (LP64 targets). */
#include <string.h>

#include "ir/ir.h"

const Type ty_void = {TY_VOID, "void", 0, false, 0, NULL};
const Type ty_char = {TY_CHAR, "char", 1, true, 1, NULL};
const Type ty_schar = {TY_SCHAR, "signed char", 1, true, 1, NULL};
const Type ty_uchar = {TY_UCHAR, "unsigned char", 1, false, 1, NULL};
const Type ty_short = {TY_SHORT, "short", 2, true, 2, NULL};
const Type ty_ushort = {TY_USHORT, "unsigned short", 2, false, 2, NULL};
const Type ty_int = {TY_INT, "int", 4, true, 3, NULL};
const Type ty_uint = {TY_UINT, "unsigned int", 4, false, 3, NULL};
const Type ty_long = {TY_LONG, "long", 8, true, 4, NULL};
const Type ty_ulong = {TY_ULONG, "unsigned long", 8, false, 4, NULL};
const Type ty_llong = {TY_LLONG, "long long", 8, true, 5, NULL};
const Type ty_ullong = {TY_ULLONG, "unsigned long long", 8, false, 5, NULL};
const Type ty_float = {TY_FLOAT, "float", 4, true, 0, NULL};
const Type ty_double = {TY_DOUBLE, "double", 8, true, 0, NULL};

/* Spellings other than the canonical ones keep their own name. */
static const Type ty_int8 = {TY_SCHAR, "int8_t", 1, true, 1, NULL};
static const Type ty_uint8 = {TY_UCHAR, "uint8_t", 1, false, 1, NULL};
static const Type ty_int16 = {TY_SHORT, "int16_t", 2, true, 2, NULL};
static const Type ty_uint16 = {TY_USHORT, "uint16_t", 2, false, 2, NULL};
static const Type ty_int32 = {TY_INT, "int32_t", 4, true, 3, NULL};
static const Type ty_uint32 = {TY_UINT, "uint32_t", 4, false, 3, NULL};
static const Type ty_int64 = {TY_LONG, "int64_t", 8, true, 4, NULL};
static const Type ty_uint64 = {TY_ULONG, "uint64_t", 8, false, 4, NULL};
static const Type ty_unsigned = {TY_UINT, "unsigned", 4, false, 3, NULL};
/* _Bool (and <stdbool.h>'s bool): one byte, unsigned, of rank 0, below
 * every other integer type (C11 6.3.1.1); its values are 0 and 1
 * (type_int_range), so a conversion to it keeps a value only when that is
 * 0 or 1, and the check draws only those. */
static const Type ty_bool = {TY_UCHAR, "_Bool", 1, false, 0, NULL};

static const struct {
  const char *spelling;
  const Type *type;
} spellings[] = {
    {"char", &ty_char},
    {"signed char", &ty_schar},
    {"unsigned char", &ty_uchar},
    {"short", &ty_short},
    {"short int", &ty_short},
    {"signed short", &ty_short},
    {"signed short int", &ty_short},
    {"unsigned short", &ty_ushort},
    {"unsigned short int", &ty_ushort},
    {"int", &ty_int},
    {"signed", &ty_int},
    {"signed int", &ty_int},
    {"unsigned", &ty_unsigned},
    {"unsigned int", &ty_uint},
    {"long", &ty_long},
    {"long int", &ty_long},
    {"signed long", &ty_long},
    {"unsigned long", &ty_ulong},
    {"unsigned long int", &ty_ulong},
    {"long long", &ty_llong},
    {"long long int", &ty_llong},
    {"unsigned long long", &ty_ullong},
    {"float", &ty_float},
    {"double", &ty_double},
    {"void", &ty_void},
    {"int8_t", &ty_int8},
    {"uint8_t", &ty_uint8},
    {"int16_t", &ty_int16},
    {"uint16_t", &ty_uint16},
    {"int32_t", &ty_int32},
    {"uint32_t", &ty_uint32},
    {"int64_t", &ty_int64},
    {"uint64_t", &ty_uint64},
    {"_Bool", &ty_bool},
    {"bool", &ty_bool},
};

const Type *type_by_name(const char *spelling) {
  for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
    if (strcmp(spellings[i].spelling, spelling) == 0) return spellings[i].type;
  return NULL;
}

bool type_is_integer(const Type *t) { return t->kind >= TY_CHAR && t->kind <= TY_ULLONG; }
bool type_is_float(const Type *t) { return t->kind == TY_FLOAT || t->kind == TY_DOUBLE; }
/* ranks start at 1 for char; float and double have rank 0 too */
static bool is_bool(const Type *t) { return type_is_integer(t) && t->rank == 0; }
bool type_same(const Type *a, const Type *b) { return a->kind == b->kind; }

const Type *type_canonical(const Type *t) {
  switch (t->kind) {
  case TY_VOID: return &ty_void;
  case TY_CHAR: return &ty_char;
  case TY_SCHAR: return &ty_schar;
  case TY_UCHAR: return is_bool(t) ? &ty_bool : &ty_uchar;
  case TY_SHORT: return &ty_short;
  case TY_USHORT: return &ty_ushort;
  case TY_INT: return &ty_int;
  case TY_UINT: return &ty_uint;
  case TY_LONG: return &ty_long;
  case TY_ULONG: return &ty_ulong;
  case TY_LLONG: return &ty_llong;
  case TY_ULLONG: return &ty_ullong;
  case TY_FLOAT: return &ty_float;
  case TY_DOUBLE: return &ty_double;
  }
  return t;
}

const Type *type_promote(const Type *t) {
  /* Every char and short value fits in int on LP64. */
  if (type_is_integer(t) && t->rank < ty_int.rank) return &ty_int;
  return type_canonical(t);
}

const Type *type_common(const Type *a, const Type *b) {
  if (a->kind == TY_DOUBLE || b->kind == TY_DOUBLE) return &ty_double;
  if (a->kind == TY_FLOAT || b->kind == TY_FLOAT) return &ty_float;
  a = type_promote(a);
  b = type_promote(b);
  if (a->kind == b->kind) return a;
  if (a->is_signed == b->is_signed) return a->rank >= b->rank ? a : b;
  const Type *u = a->is_signed ? b : a, *s = a->is_signed ? a : b;
  if (u->rank >= s->rank) return u;
  if (s->size > u->size) return s; /* the signed type holds every value */
  /* Same size, signed has higher rank: its unsigned counterpart. */
  return s->kind == TY_LONG ? &ty_ulong : &ty_ullong;
}

void type_int_range(const Type *t, int64_t *lo, uint64_t *hi) {
  if (is_bool(t)) {
    *lo = 0, *hi = 1;
    return;
  }
  int bits = t->size * 8;
  if (t->is_signed) {
    *lo = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
    *hi = bits == 64 ? (uint64_t)INT64_MAX : ((uint64_t)1 << (bits - 1)) - 1;
  } else {
    *lo = 0;
    *hi = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  }
}

const char *op_spelling(Op op) {
  switch (op) {
  case OP_NONE: return "";
  case OP_ADD: case OP_PLUS: return "+";
  case OP_SUB: case OP_NEG: return "-";
  case OP_MUL: return "*";
  case OP_DIV: return "/";
  case OP_MOD: return "%";
  case OP_SHL: return "<<";
  case OP_SHR: return ">>";
  case OP_BAND: return "&";
  case OP_BOR: return "|";
  case OP_BXOR: return "^";
  case OP_LT: return "<";
  case OP_LE: return "<=";
  case OP_GT: return ">";
  case OP_GE: return ">=";
  case OP_EQ: return "==";
  case OP_NE: return "!=";
  case OP_LAND: return "&&";
  case OP_LOR: return "||";
  case OP_LNOT: return "!";
  case OP_BNOT: return "~";
  case OP_ASSIGN: return "=";
  case OP_COMMA: return ",";
  case OP_DEREF: return "*";
  case OP_ADDR: return "&";
  }
  return "?";
}

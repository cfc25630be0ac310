/* The constants the standard headers define, as kernels write them
 * (`acc == INT32_MIN`, `float m = -INFINITY;`, `x > FLT_MAX`): each is its
 * value in the type C gives it (7.20.2: the promoted type of the limit's
 * integer type; <limits.h>'s likewise; INFINITY, NAN and HUGE_VALF float,
 * HUGE_VAL double; <float.h>'s FLT_ float and DBL_ double). A constant is
 * known only where the file includes its header, as a C compiler (the
 * reference build) needs. Integers and finite floats print as their
 * values; an infinity or a NaN, which no C literal spells, as the macro
 * (emitted code includes <math.h> for it: lower/includes.c). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "frontend/fe.h"

typedef struct {
  const char *name, *header;
  const Type *type;
  int64_t ival; /* integer constants */
  double fval;  /* float constants */
} StdConst;

#define INT_C(n, h, t, v) {n, h, &t, (int64_t)(v), 0}
#define FLT_C(n, h, t, v) {n, h, &t, 0, v}

static const StdConst constants[] = {
    INT_C("INT8_MIN", "stdint.h", ty_int, INT8_MIN),       INT_C("INT8_MAX", "stdint.h", ty_int, INT8_MAX),
    INT_C("INT16_MIN", "stdint.h", ty_int, INT16_MIN),     INT_C("INT16_MAX", "stdint.h", ty_int, INT16_MAX),
    INT_C("INT32_MIN", "stdint.h", ty_int, INT32_MIN),     INT_C("INT32_MAX", "stdint.h", ty_int, INT32_MAX),
    INT_C("INT64_MIN", "stdint.h", ty_long, INT64_MIN),    INT_C("INT64_MAX", "stdint.h", ty_long, INT64_MAX),
    INT_C("UINT8_MAX", "stdint.h", ty_int, UINT8_MAX),     INT_C("UINT16_MAX", "stdint.h", ty_int, UINT16_MAX),
    INT_C("UINT32_MAX", "stdint.h", ty_uint, UINT32_MAX),  INT_C("UINT64_MAX", "stdint.h", ty_ulong, UINT64_MAX),
    INT_C("CHAR_BIT", "limits.h", ty_int, CHAR_BIT),       INT_C("SCHAR_MIN", "limits.h", ty_int, SCHAR_MIN),
    INT_C("SCHAR_MAX", "limits.h", ty_int, SCHAR_MAX),     INT_C("UCHAR_MAX", "limits.h", ty_int, UCHAR_MAX),
    INT_C("CHAR_MIN", "limits.h", ty_int, CHAR_MIN),       INT_C("CHAR_MAX", "limits.h", ty_int, CHAR_MAX),
    INT_C("SHRT_MIN", "limits.h", ty_int, SHRT_MIN),       INT_C("SHRT_MAX", "limits.h", ty_int, SHRT_MAX),
    INT_C("USHRT_MAX", "limits.h", ty_int, USHRT_MAX),     INT_C("INT_MIN", "limits.h", ty_int, INT_MIN),
    INT_C("INT_MAX", "limits.h", ty_int, INT_MAX),         INT_C("UINT_MAX", "limits.h", ty_uint, UINT_MAX),
    INT_C("LONG_MIN", "limits.h", ty_long, LONG_MIN),      INT_C("LONG_MAX", "limits.h", ty_long, LONG_MAX),
    INT_C("ULONG_MAX", "limits.h", ty_ulong, ULONG_MAX),   INT_C("LLONG_MIN", "limits.h", ty_llong, LLONG_MIN),
    INT_C("LLONG_MAX", "limits.h", ty_llong, LLONG_MAX),   INT_C("ULLONG_MAX", "limits.h", ty_ullong, ULLONG_MAX),
    FLT_C("INFINITY", "math.h", ty_float, INFINITY),       FLT_C("NAN", "math.h", ty_float, NAN),
    FLT_C("HUGE_VALF", "math.h", ty_float, HUGE_VALF),     FLT_C("HUGE_VAL", "math.h", ty_double, HUGE_VAL),
    FLT_C("FLT_MAX", "float.h", ty_float, FLT_MAX),        FLT_C("FLT_MIN", "float.h", ty_float, FLT_MIN),
    FLT_C("FLT_EPSILON", "float.h", ty_float, FLT_EPSILON), FLT_C("DBL_MAX", "float.h", ty_double, DBL_MAX),
    FLT_C("DBL_MIN", "float.h", ty_double, DBL_MIN),       FLT_C("DBL_EPSILON", "float.h", ty_double, DBL_EPSILON),
};

static const StdConst *find(const char *name) {
  for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++)
    if (!strcmp(constants[i].name, name)) return &constants[i];
  return NULL;
}

Expr *fe_std_constant(Fe *fe, TSNode n, const char *name) {
  const StdConst *c = find(name);
  if (!c) return NULL;
  if (!fe_included(fe, c->header))
    fe_error(fe, n, "'%s' is defined by <%s>, which the file does not include", name, c->header);
  SrcLoc loc = fe_loc(fe, n);
  if (type_is_integer(c->type)) return ir_int(fe->arena, c->ival, c->type, loc);
  Expr *e = ARENA_NEW(fe->arena, Expr);
  e->kind = EX_FLOAT;
  e->fval = c->fval;
  e->type = c->type;
  e->loc = loc;
  if (!isfinite(c->fval)) e->text = c->name; /* no literal spells it */
  return e;
}

/* Reserved names. Every name a user chooses (kernel, variant, parameter,
 * local, loop counter, label, new loop or buffer, macro) ends up in C that
 * the reference build and the emitted code share with the C library and
 * npu_intrinsics.h. One that clashes either does not compile (a parameter
 * named after an intrinsic's macro), links against the wrong symbol (a
 * variant named memcpy), or silently changes the emitted code (#define
 * NPU_DM 7 after the intrinsics header). Refused, whatever the scope:
 *   - C's keywords, and the names C reserves (__x, _X);
 *   - the identifiers of the headers a kernel may include or emitted code
 *     includes: <stddef.h>, <stdint.h>, <inttypes.h>, <stdbool.h>,
 *     <limits.h>, <float.h>, <math.h>, <stdlib.h>, <string.h> (memcpy),
 *     errno, and main;
 *   - the prefixes npu_ and NPU_ (the intrinsics), npg_ (npugen's API and
 *     the check's wrappers) and NPUGEN_ (the emitted headers' guards). */
#include <stdbool.h>
#include <string.h>

#include "ir/reserved.h"

static const char *const keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Alignas",
    "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert",
    "_Thread_local", NULL};

/* <math.h> functions: each also has an f (float) and an l (long double) form. */
static const char *const math_fns[] = {
    "acos", "asin", "atan", "atan2", "cos", "sin", "tan", "acosh", "asinh", "atanh", "cosh", "sinh", "tanh",
    "exp", "exp2", "expm1", "frexp", "ilogb", "ldexp", "log", "log10", "log1p", "log2", "logb", "modf", "scalbn",
    "scalbln", "cbrt", "fabs", "hypot", "pow", "sqrt", "erf", "erfc", "lgamma", "tgamma", "ceil", "floor",
    "nearbyint", "rint", "lrint", "llrint", "round", "lround", "llround", "trunc", "fmod", "remainder", "remquo",
    "copysign", "nan", "nextafter", "nexttoward", "fdim", "fmax", "fmin", "fma", NULL};

typedef struct {
  const char *why;
  const char *const *names;
} Header;

static const char *const math_names[] = {
    "HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "INFINITY", "NAN", "FP_INFINITE", "FP_NAN", "FP_NORMAL", "FP_SUBNORMAL",
    "FP_ZERO", "FP_FAST_FMA", "FP_FAST_FMAF", "FP_FAST_FMAL", "FP_ILOGB0", "FP_ILOGBNAN", "MATH_ERRNO",
    "MATH_ERREXCEPT", "math_errhandling", "fpclassify", "isfinite", "isinf", "isnan", "isnormal", "signbit",
    "isgreater", "isgreaterequal", "isless", "islessequal", "islessgreater", "isunordered", "float_t", "double_t",
    NULL};
static const char *const stdlib_names[] = {
    "EXIT_FAILURE", "EXIT_SUCCESS", "MB_CUR_MAX", "RAND_MAX", "div_t", "ldiv_t", "lldiv_t", "atof", "atoi", "atol",
    "atoll", "strtod", "strtof", "strtold", "strtol", "strtoll", "strtoul", "strtoull", "rand", "srand",
    "aligned_alloc", "calloc", "free", "malloc", "realloc", "abort", "atexit", "at_quick_exit", "exit", "_Exit",
    "getenv", "quick_exit", "system", "bsearch", "qsort", "abs", "labs", "llabs", "div", "ldiv", "lldiv", "mblen",
    "mbtowc", "wctomb", "mbstowcs", "wcstombs", NULL};
static const char *const string_names[] = {
    "memcpy", "memmove", "memset", "memcmp", "memchr", "strcpy", "strncpy", "strcat", "strncat", "strcmp",
    "strncmp", "strcoll", "strxfrm", "strchr", "strrchr", "strspn", "strcspn", "strpbrk", "strstr", "strtok",
    "strerror", "strlen", NULL};
static const char *const stddef_names[] = {"NULL", "offsetof", "size_t", "ptrdiff_t", "wchar_t", "max_align_t", NULL};
static const char *const stdint_names[] = {
    "SIZE_MAX", "PTRDIFF_MIN", "PTRDIFF_MAX", "SIG_ATOMIC_MIN", "SIG_ATOMIC_MAX", "WCHAR_MIN", "WCHAR_MAX",
    "WINT_MIN", "WINT_MAX", NULL};
static const char *const inttypes_names[] = {"imaxdiv_t", "imaxabs", "imaxdiv", "strtoimax", "strtoumax",
                                             "wcstoimax", "wcstoumax", NULL};
static const char *const stdbool_names[] = {"bool", "true", "false", "__bool_true_false_are_defined", NULL};
static const char *const limits_names[] = {
    "CHAR_BIT", "SCHAR_MIN", "SCHAR_MAX", "UCHAR_MAX", "CHAR_MIN", "CHAR_MAX", "MB_LEN_MAX", "SHRT_MIN",
    "SHRT_MAX", "USHRT_MAX", "INT_MIN", "INT_MAX", "UINT_MAX", "LONG_MIN", "LONG_MAX", "ULONG_MAX", "LLONG_MIN",
    "LLONG_MAX", "ULLONG_MAX", NULL};
static const char *const float_names[] = {"DECIMAL_DIG", NULL};
static const char *const errno_names[] = {"errno", "EDOM", "ERANGE", "EILSEQ", NULL};

static const Header headers[] = {
    {"<math.h> declares it", math_names},         {"<stdlib.h> declares it", stdlib_names},
    {"<string.h> declares it", string_names},     {"<stddef.h> declares it", stddef_names},
    {"<stdint.h> declares it", stdint_names},     {"<inttypes.h> declares it", inttypes_names},
    {"<stdbool.h> declares it", stdbool_names},   {"<limits.h> declares it", limits_names},
    {"<float.h> declares it", float_names},       {"<errno.h> declares it", errno_names},
};

static bool listed(const char *const *list, const char *name) {
  for (; *list; list++)
    if ((*list)[0] == name[0] && !strcmp(*list, name)) return true;
  return false;
}

static bool starts(const char *name, const char *prefix) { return !strncmp(name, prefix, strlen(prefix)); }

static bool ends(const char *name, const char *suffix) {
  size_t n = strlen(name), k = strlen(suffix);
  return n >= k && !strcmp(name + n - k, suffix);
}

/* sqrt, sqrtf, sqrtl. */
static bool math_function(const char *name) {
  if (listed(math_fns, name)) return true;
  size_t n = strlen(name);
  if (n < 2 || n > 32 || (name[n - 1] != 'f' && name[n - 1] != 'l')) return false;
  char base[33];
  memcpy(base, name, n - 1);
  base[n - 1] = 0;
  return listed(math_fns, base);
}

/* The name patterns C reserves for <stdint.h>, <inttypes.h> and <float.h>. */
static const char *pattern_why(const char *name) {
  if ((starts(name, "int") || starts(name, "uint")) && ends(name, "_t"))
    return "C reserves names that begin with int or uint and end with _t for <stdint.h>";
  if ((starts(name, "INT") || starts(name, "UINT")) && (ends(name, "_MAX") || ends(name, "_MIN") || ends(name, "_C")))
    return "C reserves names that begin with INT or UINT and end with _MAX, _MIN or _C for <stdint.h>";
  if ((starts(name, "PRI") || starts(name, "SCN")) && ((name[3] >= 'a' && name[3] <= 'z') || name[3] == 'X'))
    return "C reserves names that begin with PRI or SCN and a lowercase letter or X for <inttypes.h>";
  if (starts(name, "FLT_") || starts(name, "DBL_") || starts(name, "LDBL_"))
    return "<float.h> defines names that begin with FLT_, DBL_ and LDBL_";
  return NULL;
}

bool ir_is_math_function(const char *name) { return name && math_function(name); }

const char *ir_reserved_why(const char *name) {
  if (!name || !name[0]) return NULL;
  if (listed(keywords, name)) return "it is a C keyword";
  if (starts(name, "__") || (name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z'))
    return "C reserves names that begin with __ or with _ and a capital letter";
  if (starts(name, "npu_") || starts(name, "NPU_"))
    return "the prefixes npu_ and NPU_ belong to the NPU intrinsics (npu_intrinsics.h)";
  if (starts(name, "npg_")) return "the prefix npg_ belongs to npugen's API and the code its check compiles";
  if (starts(name, "NPUGEN_")) return "the prefix NPUGEN_ belongs to the guards of the headers npugen emits";
  if (!strcmp(name, "main")) return "it is the C program's entry point";
  if (math_function(name)) return "<math.h> declares it";
  for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
    if (listed(headers[i].names, name)) return headers[i].why;
  return pattern_why(name);
}

/* A seeded generator of random valid kernels (Csmith/YARPGen style): 1-3
 * array parameters of mixed element types and a few scalars, loop nests of
 * depth 1-4 (constant, triangular and affine bounds, steps, decreasing
 * loops), assignments and compound assignments, locals and local arrays,
 * if/else, ?:, casts, C's promotions and usual conversions, <math.h> calls,
 * shifts, bitwise operators, / and %, labels and #defines.
 *
 * Every kernel is valid by construction: each index stays in bounds in a
 * form npugen proves (affine in the counters, or data-dependent through a
 * mask, a uint8_t or a clamped modulo), and no execution has undefined
 * behaviour for any input in `npugen check`'s ranges (docs/check.md): the
 * generator tracks a conservative interval of every value and repairs or
 * clamps an operation that could overflow, divide by zero, shift past the
 * width or convert an out-of-range float to an integer. Every integer
 * variable keeps its values in a declared range: plain stores are clamped
 * into it, and accumulations (+=, -=) draw on a budget bounded by how often
 * the statement can run. Float values may become NaN or infinite; they reach
 * an integer only through fmin/fmax clamps or known ranges.
 *
 * Deliberately left out: what the language refuses (pointers, while,
 * goto, ...); reads of uninitialized locals (every local scalar and array
 * has an initializer); `a = b = e` whose outer target reads b (C does not
 * sequence that read with b's store); non-dyadic double literals (tcc reads
 * a double literal through long double, which may round differently from
 * gcc; float ones are safe); `x /= e` or `x %= e` with e possibly 0 even for
 * a float x (npugen refuses a constant 0 divisor there); loop comparisons
 * that C makes unsigned with a non-constant signed side (a documented
 * refusal); redundant parentheses around text that starts with a name
 * (`(t) + u * 2`: fuzz/regressions/kgen_paren_name_cast.c, open); labels
 * before declarations (C99 has none). Schedules are sched_gen.h's job.
 *
 * Used in-process by tests/test_kernel_random.c and, with a process per
 * case and gcc/tcc builds on top, by fuzz/fuzz_kernels.c. No global state. */
#ifndef NPG_FUZZ_KERNEL_GEN_H
#define NPG_FUZZ_KERNEL_GEN_H

#include <stdbool.h>
#include <stdint.h>

enum { KG_MAX_KERNELS = 2, KG_MAX_PARAMS = 6, KG_MAX_DIMS = 3 };

/* Element and scalar types by representation (each has several spellings). */
typedef enum { KG_I8, KG_U8, KG_I16, KG_U16, KG_I32, KG_U32, KG_I64, KG_U64, KG_F32, KG_F64, KG_NKINDS } KgKind;

typedef struct {
  char name[16];
  KgKind kind;
  const char *spelling; /* the type as written in the kernel ("unsigned short") */
  bool is_array, is_const;
  int ndim;
  int64_t dims[KG_MAX_DIMS];
} KgParam;

typedef struct {
  char name[16];
  int nparams;
  KgParam params[KG_MAX_PARAMS];
} KgKernel;

/* What a kernel uses, counted as it is written (tests check coverage). */
typedef enum {
  KG_F_CAST,         /* an explicit cast */
  KG_F_FLOAT_TO_INT, /* a float value converted to an integer */
  KG_F_TRIANGULAR,   /* a loop bound affine in an outer counter */
  KG_F_STEP,         /* a loop step other than +-1 */
  KG_F_DECREASING,   /* a loop counting down */
  KG_F_IF,
  KG_F_ELSE,
  KG_F_DATA_IF,      /* an if whose condition reads data */
  KG_F_TERNARY,
  KG_F_MATH,         /* a <math.h> call */
  KG_F_ABS,
  KG_F_SHIFT,
  KG_F_BITWISE,
  KG_F_DIV,
  KG_F_MOD,
  KG_F_COMPOUND,     /* op= */
  KG_F_INCDEC,       /* x++ as a statement */
  KG_F_CHAIN,        /* a = b = e */
  KG_F_LOCAL,
  KG_F_CONST_LOCAL,
  KG_F_LOCAL_ARRAY,
  KG_F_LABEL,
  KG_F_DATA_INDEX,   /* an index that depends on data */
  KG_F_SCALAR_PARAM,
  KG_F_DEFINE,
  KG_F_UNSIGNED_WRAP,/* unsigned arithmetic that may wrap */
  KG_F_MIXED_SIGN,   /* an operation mixing signed and unsigned operands */
  KG_F_PREDECLARED,  /* loop counters declared before their loops */
  KG_F_TWO_KERNELS,
  KG_F_SCALAR_WRITE, /* a store to a scalar parameter (the kernel's copy) */
  KG_F_FOLDED_BOUND, /* a loop bound written as constant arithmetic or a cast */
  KG_F_REDUCTION,    /* P = INIT; then a loop of P += e alone (the check unrolls it) */
  KG_NFEATURES
} KgFeature;

typedef struct {
  uint64_t seed;
  char *src; /* the kernel file (malloc'ed) */
  int nkernels;
  KgKernel kernels[KG_MAX_KERNELS];
  int features[KG_NFEATURES]; /* how often each feature occurs */
  int kinds[KG_NKINDS];       /* values of each type kind declared (params, locals) */
  long work;                  /* upper bound of statement executions */
} KgCase;

/* The kernel file for a seed; the same seed gives the same bytes. */
void kg_generate(uint64_t seed, KgCase *out);
void kg_case_free(KgCase *c);

const char *kg_feature_name(KgFeature f);
const char *kg_kind_name(KgKind k);

/* A C99 main() that fills every array and scalar of every kernel with
 * check's input ranges (seeded by input_seed), calls the kernels in order
 * and prints every element of every non-const array, one per line (floats
 * as their bits). With -DKG_HEADER='"f.h"' it also includes that header
 * (the emitted prototype must agree with the driver's). malloc'ed. */
char *kg_driver_source(const KgCase *c, uint64_t input_seed);

#endif

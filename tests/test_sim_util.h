/* Helpers shared by the simulator's Criterion tests (tests/test_sim_*.c). */
#ifndef TEST_SIM_UTIL_H
#define TEST_SIM_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "jit/tcc_unit.h"
#include "sim/npusim.h"

/* The DSL semantics kernel npu_intrinsics/<name>.c with each "#define K v"
 * line replaced by the values in defs ("M=7", ...; NULL-terminated).
 * Returns malloc'ed text; fails the test if the file or a name is missing. */
char *simt_kernel_source(const char *name, const char *const *defs);
/* Compiles with libtcc; fails the test with tcc's messages on error. */
TccUnit *simt_compile(const char *source, const char *name);
/* A fresh simulator on the default target, bound to this thread. */
NpuSim *simt_new(void);
/* Unbinds and frees. */
void simt_free(NpuSim *s);

/* Deterministic random numbers (xorshift64*), seeded per test. */
typedef struct {
  uint64_t s;
} SimtRng;
void simt_seed(SimtRng *r, uint64_t seed);
uint64_t simt_next(SimtRng *r);
int32_t simt_range(SimtRng *r, int32_t lo, int32_t hi); /* inclusive */
float simt_float(SimtRng *r);                           /* in [-4, 4) */
void simt_fill_i8(SimtRng *r, int8_t *p, size_t n);

/* Tiny strict JSON validator: true if text is one well-formed JSON value. */
int simt_json_valid(const char *text);

#endif

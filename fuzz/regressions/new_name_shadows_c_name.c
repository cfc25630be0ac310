/* sched_random finding: a new loop name that is unused in the kernel but
 * names a C type or a <math.h> function the body uses is accepted, and the
 * emitted loop counter shadows it, so the emitted C does not compile:
 *   ./build/npugen check fuzz/regressions/new_name_shadows_c_name.c
 *     -> v1 FAIL internal error: emitted C does not compile:
 *          v1.c: error: ';' expected (got "x")        (int32_t shadowed)
 *        v2 FAIL internal error: emitted C does not compile:
 *          v2.c: error: function pointer expected     (expf shadowed)
 * (uint8_t, sqrtf, size_t, NULL, main... are accepted as well and break
 * any body that uses them; keywords like float are refused.) Expected: a
 * refusal naming the clash, as for names already used in the kernel.
 *
 * Status: fixed in 4fe3d14 (then refused: "the name 'int32_t' is already
 * used in v1"); since issue 22 every user-chosen name is checked against
 * the reserved names (ir/reserved.c), and the message says why.
 * Expect: refused split: the new name 'int32_t' is reserved: C reserves names that begin with int or uint and end with _t
 * Expect: refused split: the new name 'expf' is reserved: <math.h> declares it
 */
#include <stdint.h>
#include <math.h>
#define N 16
void f(const int8_t x[N], int32_t y[N], float z[N]) {
  for (int i = 0; i < N; i++) {
    y[i] = (int32_t)x[i] * 3;
    z[i] = expf((float)x[i]);
  }
}
#pragma npu schedule(f, v1)
#pragma npu split(i, 4, int32_t, ii)
#pragma npu schedule(f, v2)
#pragma npu split(i, 4, expf, ii)

/* double_buffer of a loop that runs once (issue 44: split(i, 4096) of a
 * 4096-iteration loop, so the tile loop runs once) changes nothing and
 * says so: before, it left an unused second buffer, branches that never
 * run and waits on tokens that are always 0, and said nothing. (That tune's
 * VU sketch does not offer it is tests/test_tune_reach.c's
 * double_buffer_only_where_the_pass_loop_runs_twice_or_more.) */
#include <criterion/criterion.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

static const char scale2[] = "void sc(const float x[4096], float y[4096]) {\n"
                             "  for (int i = 0; i < 4096; i++)\n"
                             "    y[i] = x[i] * 2.0f;\n"
                             "}\n";

Test(double_buffer_once, a_loop_that_runs_once_keeps_one_copy_and_says_so) {
  NpgSession *s = open_ok(scale2, "#pragma npu schedule(sc, v)\n#pragma npu split(i, 4096, io, ii)\n"
                                  "#pragma npu cache_read(x, vu_vm, io, x_vm)\n#pragma npu double_buffer(x_vm)\n");
  has(npg_errors(s), "k.c:8:27: warning: double_buffer: loop io runs once, so the copies of x_vm would have no other "
                     "iteration to alternate with: the step changes nothing, and x_vm keeps one copy; split the loop "
                     "into more than one pass (a smaller tile) to overlap its copies");
  const char *c = npg_emit_source(s, checked_once(s, "v"));
  lacks(c, "x_vm_db");
  lacks(c, "io + 1 < 1");
  lacks(c, "x_vm_tok");
  npg_close(s);
  /* bound to the VU cores, the copies alternate over the pass loop around */
  s = open_ok(scale2, "#pragma npu schedule(sc, v)\n#pragma npu split(i, 4096, io, ir)\n"
                      "#pragma npu split(ir, 1024, core, ii)\n#pragma npu bind(core, vu)\n"
                      "#pragma npu cache_write(y, vu_vm, core, y_vm)\n#pragma npu double_buffer(y_vm)\n");
  has(npg_errors(s), "k.c:10:27: warning: double_buffer: loop io runs once, so the copies of y_vm would have no other "
                     "iteration to alternate with");
  c = npg_emit_source(s, checked_once(s, "v"));
  lacks(c, "y_vm_tok[2][4]");
  lacks(c, "double_buffer(y_vm) does nothing here");
  npg_close(s);
}

/* double_buffer of a loop that runs once (issue 44: split(i, 4096) of a
 * 4096-iteration loop, so the tile loop runs once) changes nothing and
 * says so: before, it left an unused second buffer, branches that never
 * run and waits on tokens that are always 0, and said nothing. tune's VU
 * sketch does not offer it: its double-buffer knobs are ruled out
 * (estimate UINT64_MAX, never tried) where the pass loop runs once. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "jit/session_ir.h"
#include "npugen.h"
#include "tests/test_sched_util.h"
#include "tune/tune.h"

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
  const char *c = npg_emit_source(s, checked(s, "v"));
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
  c = npg_emit_source(s, checked(s, "v"));
  lacks(c, "y_vm_tok[2][4]");
  lacks(c, "double_buffer(y_vm) does nothing here");
  npg_close(s);
}

/* vu:rows at each q: a double-buffered array is ruled out where one pass
 * covers the rows (q = 16 of 64 rows on 4 cores), and kept where there
 * are two passes or more. */
Test(double_buffer_once, tune_offers_it_only_where_the_loop_runs_twice_or_more) {
  static const char src[] = "void sc(const float x[64][64], float y[64][64]) {\n"
                            "  for (int i = 0; i < 64; i++)\n"
                            "    for (int j = 0; j < 64; j++)\n"
                            "      y[i][j] = x[i][j] * 2.0f;\n"
                            "}\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  TuneSpace sp;
  char why[4096];
  cr_assert(tune_space_build(&sp, s, "sc", false, why, sizeof why), "%s", why);
  const TuneSketch *sk = NULL;
  for (int i = 0; i < sp.nsketch; i++)
    if (!strcmp(sp.sketch[i].name, "vu:rows")) sk = &sp.sketch[i];
  cr_assert(sk, "%s", sp.notes);
  cr_assert_str_eq(sk->knobs[0].name, "q");
  int ch[TUNE_MAX_KNOBS] = {0};
  int checked_once = 0, checked_twice = 0;
  for (int q = 0; q < sk->knobs[0].n; q++) {
    ch[0] = q;
    for (int k = 1; k < sk->nknobs; k++) ch[k] = sk->knobs[k].n - 1; /* every array double-buffered */
    uint64_t est = sk->estimate(sk, ch, session_target(s));
    if (64 / (sk->knobs[0].val[q] * 4) < 2) {
      cr_expect_eq(est, UINT64_MAX, "q=%lld: one pass, and double_buffer is offered", sk->knobs[0].val[q]);
      checked_once++;
    } else {
      cr_expect_neq(est, UINT64_MAX, "q=%lld: %lld passes, and double_buffer is not offered", sk->knobs[0].val[q],
                    64 / (sk->knobs[0].val[q] * 4));
      checked_twice++;
    }
  }
  cr_expect(checked_once && checked_twice, "q values: %d of one pass, %d of more", checked_once, checked_twice);
  tune_space_free(&sp);
  npg_close(s);
}

/* bind(loop, vu) (schedule/bind.c): iterations on the VU cores, each with
 * its own copy of the body's vu_vm buffers, and the emitter's phases and
 * deferred copies out (emit/emit_c.c, bound loops). Every accepted variant
 * runs in the simulator, with its hazard checks, against the kernel. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* A small depthwise conv: 8 channels of 12x12 from a padded 14x14 plane. */
static const char dw[] =
    "#include <stdint.h>\n"
    "void dw(const int8_t in[8][14][14], const int8_t wt[8][3][3], int32_t out[8][12][12]) {\n"
    "  for (int c = 0; c < 8; c++)\n"
    "    for (int y = 0; y < 12; y++)\n"
    "      for (int x = 0; x < 12; x++) {\n"
    "        init: out[c][y][x] = 0;\n"
    "        for (int r = 0; r < 3; r++)\n"
    "          for (int s = 0; s < 3; s++)\n"
    "            update: out[c][y][x] += (int32_t)in[c][y + r][x + s] * (int32_t)wt[c][r][s];\n"
    "      }\n"
    "}\n";

static const char dw_steps[] = "#pragma npu schedule(dw, v)\n"
                               "#pragma npu split(c, 4, co, ci)\n"
                               "#pragma npu decompose_reduction(init, y)\n"
                               "#pragma npu reorder(r, s, y, x)\n"
                               "#pragma npu bind(ci, vu)\n"
                               "#pragma npu cache_read(in, vu_vm, ci, in_vm)\n"
                               "#pragma npu cache_read(wt, vu_vm, ci, wt_vm)\n"
                               "#pragma npu cache_write(out, vu_vm, ci, out_vm)\n";

Test(bind, depthwise_conv_runs_on_four_cores) {
  NpgSession *s = open_ok(dw, steps_then(dw_steps, "#pragma npu tensorize(y_1, npu_vu_fill_i32)\n"
                                            "#pragma npu tensorize(y, npu_vu_macs_i8_i32)\n"));
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  /* each core's buffers in its own VM */
  has(c, "int8_t (*in_vm)[14][14] = (int8_t (*)[14][14])(void *)((char *)npu_scope_base(NPU_VU_VM, ci) + ");
  /* every core's loads, then every core's compute, then the copies out */
  has(c, "for (int ci = 0; ci < 4; ci++) { /* loads */");
  /* two buffers loaded: one load channel each, in core order */
  has(c, "wt_vm_tok[ci] = npu_dma_1d(0, &wt_vm[0][0][0], &wt[co * 4 + ci][0][0], 9);");
  has(c, "in_vm_tok[ci] = npu_dma_1d(1, &in_vm[0][0][0], &in[co * 4 + ci][0][0], 196);");
  /* each wait just before the first statement that needs it: the fill
   * needs no load, so it is issued before the loads are waited for */
  has(c, "if (out_vm_tok[ci]) npu_dma_wait(out_vm_tok[ci]); /* this core's copy out of out_vm in the last pass */\n"
         "          npu_vu_fill_i32(&out_vm[0][0][0], /*rows=*/12, /*cols=*/12, /*ldd=*/12, /*value=*/0);\n"
         "          npu_dma_wait(wt_vm_tok[ci]);\n"
         "          npu_dma_wait(in_vm_tok[ci]);\n");
  has(c, "npu_vu_macs_i8_i32(&out_vm[0][0][0], &in_vm[0][r][s], &wt_vm[0][r][s], /*rows=*/12, /*cols=*/12, /*ldd=*/12, /*lda=*/14);");
  /* a core's copy out is waited for when it writes the plane again, and at the end */
  /* one buffer copied out: channels 2 and 3 by core, so two cores' copies overlap */
  has(c, "out_vm_tok[ci] = npu_dma_1d(2 + ci % 2, &out[co * 4 + ci][0][0], &out_vm[0][0][0], 576);");
  /* the last waits: one loop over the cores (lower/tidy.c) */
  has(c, "for (int core = 0; core < 4; core++) {\n      if (out_vm_tok[core]) npu_dma_wait(out_vm_tok[core]);\n    }\n");
  has(npg_dump_ir(s, v), "for ci in 0 .. < 4 step 1 bind(vu):");
  npg_close(s);
}

/* Without tensorize the body's loops run on the host over each core's VM
 * copy. A cache_write that loads its buffer (Y is read before it is
 * written) keeps its copy out synchronous: the load reads the destination
 * a deferred copy out would still be writing. */
Test(bind, plain_loops_and_a_loaded_write_cache) {
  NpgSession *s = open_ok(dw, dw_steps);
  checked(s, "v");
  npg_close(s);
  s = open_ok("void acc(const float X[4][64], float Y[4][64]) {\n"
              "  for (int c = 0; c < 4; c++)\n"
              "    for (int t = 0; t < 3; t++)\n"
              "      for (int i = 0; i < 64; i++) Y[c][i] += X[c][i] * (float)t;\n}\n",
              "#pragma npu schedule(acc, v)\n"
              "#pragma npu bind(c, vu)\n"
              "#pragma npu cache_read(X, vu_vm, c, X_vm)\n"
              "#pragma npu cache_write(Y, vu_vm, c, Y_vm)\n");
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  has(c, "Y_vm_tok[c] = npu_dma_1d(0, &Y_vm[0][0], &Y[c][0], 256);");
  has(c, "npu_dma_wait(npu_dma_1d(0, &Y[c][0], &Y_vm[0][0], 256));");
  lacks(c, "npu_dma_1d(2, &Y[c][0]");
  npg_close(s);
}

Test(bind, refusals_say_why) {
  refused(dw, "#pragma npu schedule(dw, v)\n#pragma npu bind(c, vu)\n",
          "k.c:13:18: error: bind: loop c must count 0, 1, ... up to at most 4, one iteration per VU core of target "
          "'default'; split it first (split(c, 4, outer, inner)) and bind the inner loop");
  refused(dw, "#pragma npu schedule(dw, v)\n#pragma npu split(c, 4, co, ci)\n#pragma npu bind(ci, nu)\n",
          "k.c:14:22: error: bind: expected the unit to bind to, vu (the vector unit cores); got 'nu'");
  refused(dw, "#pragma npu schedule(dw, v)\n#pragma npu split(c, 4, co, ci)\n#pragma npu split(y, 4, yo, yi)\n"
              "#pragma npu bind(yi, vu)\n#pragma npu bind(ci, vu)\n",
          "k.c:16:18: error: bind: loop ci is around loop yi, which is bound to the VU cores: one loop of a nest binds");
  /* a running sum carries a dependence from one iteration to the next */
  refused("void k(float Y[4]) {\n  for (int i = 0; i < 3; i++) Y[i + 1] += Y[i];\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu bind(i, vu)\n",
          "k.c:5:13: error: bind: illegal: loop i would run its iterations in any order, but it carries the flow "
          "dependence on Y from s1 (line 2) to s1 (line 2), distance (1)");
  /* a DM buffer in the body would be one buffer for four cores at once */
  refused(dw, "#pragma npu schedule(dw, v)\n#pragma npu split(c, 4, co, ci)\n#pragma npu bind(ci, vu)\n"
              "#pragma npu cache_read(in, dm, ci, in_dm)\n",
          "k.c:15:28: error: cache_read: in_dm would be in dm, one buffer for the VU cores that loop ci (bound to them) "
          "runs at once; only a vu_vm buffer has a copy per core");
  refused(dw, "#pragma npu schedule(dw, v)\n#pragma npu split(c, 4, co, ci)\n#pragma npu cache_read(in, dm, ci, in_dm)\n"
              "#pragma npu bind(ci, vu)\n",
          "k.c:15:13: error: bind: the iterations of loop ci would share on-chip buffer in_dm (dm, declared in its body)");
  /* a VM buffer staged outside the bound loop lives in one core's VM */
  refused(dw, "#pragma npu schedule(dw, v)\n#pragma npu split(c, 4, co, ci)\n#pragma npu bind(ci, vu)\n"
              "#pragma npu cache_read(wt, vu_vm, co, wt_vm)\n",
          "k.c:15:13: error: cache_read: update (line 9) uses wt_vm inside loop ci, which is bound to the VU cores, but "
          "wt_vm lives in one core's VM (declared outside the loop); stage it at the bound loop or inside it");
  /* steps that replace a bound loop by new loops would drop the binding */
  refused(dw, "#pragma npu schedule(dw, v)\n#pragma npu split(c, 4, co, ci)\n#pragma npu bind(ci, vu)\n"
              "#pragma npu split(ci, 2, cio, cii)\n",
          "k.c:15:19: error: split: loop ci is bound to the VU cores (bind); split replaces it by new loops, which would "
          "not be: split before marking");
  refused(dw, "#pragma npu schedule(dw, v)\n#pragma npu split(c, 4, co, ci)\n#pragma npu bind(ci, vu)\n"
              "#pragma npu unroll(ci)\n",
          "k.c:15:20: error: unroll: loop ci is bound to the VU cores (bind); unroll replaces it by new loops, which "
          "would not be: unroll before marking");
  refused(dw, "#pragma npu schedule(dw, v)\n#pragma npu split(c, 4, co, ci)\n#pragma npu bind(ci, vu)\n"
              "#pragma npu fuse(co, ci, f)\n",
          "k.c:15:22: error: fuse: loop ci is bound to the VU cores (bind); fuse replaces it by new loops, which would "
          "not be: fuse before marking");
  refused(dw, "#pragma npu schedule(dw, v)\n#pragma npu parallel(c)\n#pragma npu tile(c, y, 2, 2, a, b, d, e)\n", "k.c:14:18: error: tile: loop c is parallel; tile replaces it by new loops, which would not be: tile before "
          "marking");
  /* copies out in flight together are every core's of two passes: pass p's
   * core 0 and pass p + 1's core 1 write the same rows here */
  refused("void k(const float X[6][2][8], float Y[32][8]) {\n  for (int p = 0; p < 6; p++)\n"
          "    for (int q = 0; q < 2; q++)\n      for (int i = 0; i < 4; i++)\n        for (int j = 0; j < 8; j++)\n"
          "          Y[4 * p - 4 * q + 4 + i][j] = X[p][q][j] + (float)i;\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu bind(q, vu)\n#pragma npu cache_write(Y, vu_vm, q, Y_vm)\n"
          "#pragma npu double_buffer(Y_vm)\n",
          "k.c:11:27: error: double_buffer: the regions of Y that consecutive iterations of p copy out may overlap, so "
          "the copies could not run at once");
  /* a bound loop's buffers alternate over the loop around it: there is none */
  refused("#include <stdint.h>\nvoid k(const int32_t X[4][8], int32_t Y[4][8]) {\n  for (int c = 0; c < 4; c++)\n"
          "    for (int j = 0; j < 8; j++)\n      Y[c][j] = X[c][j] + 1;\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu bind(c, vu)\n#pragma npu cache_read(X, vu_vm, c, X_vm)\n"
          "#pragma npu double_buffer(X_vm)\n",
          "k.c:10:27: error: double_buffer: X_vm is declared in loop c, which is bound to the VU cores: its copies "
          "alternate over the iterations of the loop around it, and loop c is not directly in a loop's body (at the "
          "top, or under an if)");
}

/* double_buffer of a bound loop's buffers: each core has two copies that
 * alternate by pass of the loop around the bound one (co). The loads phase
 * fills the other copies with the next pass's regions; a core waits for a
 * copy out from two passes ago before it writes that copy again. */
Test(bind, double_buffered_buffers_alternate_by_pass) {
  NpgSession *s = open_ok(dw, steps_then(dw_steps, "#pragma npu double_buffer(in_vm)\n"
                                                   "#pragma npu double_buffer(wt_vm)\n"
                                                   "#pragma npu double_buffer(out_vm)\n"
                                                   "#pragma npu tensorize(y_1, npu_vu_fill_i32)\n"
                                                   "#pragma npu tensorize(y, npu_vu_macs_i8_i32)\n"));
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  /* the first pass's regions before the pass loop, into copy 0 */
  has(c, "npu_token_t in_vm_tok[2][4]; /* per copy, per core: the load of in_vm */\n");
  has(c, "in_vm_tok[0][ci] = npu_dma_1d(1, &in_vm[0][0][0], &in[ci][0][0], 196);");
  /* each pass loads the next one's, into the other copies */
  has(c, "int8_t (*in_vm)[14][14] = (int8_t (*)[14][14])(void *)((char *)npu_scope_base(NPU_VU_VM, ci) + 1152 + "
         "((co + 1) % 2) * 196); /* vu_vm of each core, bytes [1152, 1544): two copies of 196 bytes */\n");
  has(c, "if (co + 1 < 2) { /* the next pass's regions, into the other copies */\n");
  has(c, "in_vm_tok[(co + 1) % 2][ci] = npu_dma_1d(1, &in_vm[0][0][0], &in[(co + 1) * 4 + ci][0][0], 196);");
  has(c, "npu_dma_wait(in_vm_tok[co % 2][ci]);");
  /* copies out: per copy and core, waited for two passes later and at the end */
  has(c, "npu_token_t out_vm_tok[2][4] = {{0}};");
  has(c, "if (out_vm_tok[co % 2][ci]) npu_dma_wait(out_vm_tok[co % 2][ci]); /* this core's copy out of out_vm two "
         "passes ago, from this copy */");
  has(c, "out_vm_tok[co % 2][ci] = npu_dma_1d(2 + ci % 2, &out[co * 4 + ci][0][0], &out_vm[0][0][0], 576);");
  has(c, "for (int copy = 0; copy < 2; copy++) {\n      for (int core = 0; core < 4; core++) {\n"
         "        if (out_vm_tok[copy][core]) npu_dma_wait(out_vm_tok[copy][core]);\n      }\n    }\n");
  npg_close(s);

  /* a body that does not run phase by phase (a local array in it): each
   * core uses copy 0, and the code says so */
  NpgSession *f = open_ok("void k(const float X[16][8], float Y[16][8]) {\n"
                          "  for (int c = 0; c < 16; c++) {\n"
                          "    float t[8];\n"
                          "    for (int i = 0; i < 8; i++) t[i] = X[c][i] * 2.0f;\n"
                          "    for (int i = 0; i < 8; i++) Y[c][i] = t[i] + 1.0f;\n"
                          "  }\n}\n",
                          "#pragma npu schedule(k, v)\n#pragma npu split(c, 4, co, ci)\n#pragma npu bind(ci, vu)\n"
                          "#pragma npu cache_read(X, vu_vm, ci, X_vm)\n#pragma npu cache_write(Y, vu_vm, ci, Y_vm)\n"
                          "#pragma npu double_buffer(X_vm)\n#pragma npu double_buffer(Y_vm)\n");
  const char *fc = npg_emit_source(f, checked(f, "v"));
  has(fc, "/* double_buffer(X_vm) does nothing here: the body does not run phase by phase (loads, compute, copies "
          "out), so each core uses copy 0 */");
  has(fc, "Y_vm_tok[0][ci] = npu_dma_1d(");
  npg_close(f);

  /* bind after double_buffer: the same rules, over co */
  NpgSession *t = open_ok(dw, "#pragma npu schedule(dw, v)\n#pragma npu split(c, 4, co, ci)\n"
                              "#pragma npu cache_read(in, vu_vm, ci, in_vm)\n#pragma npu double_buffer(in_vm)\n"
                              "#pragma npu bind(ci, vu)\n");
  has(npg_emit_source(t, checked(t, "v")), "in_vm_tok[(co + 1) % 2][ci] = ");
  npg_close(t);
}

/* A read cache whose region is the same in every pass (a per-column scale)
 * is loaded once per core, before the pass loop, and waited for in the
 * first pass; one whose region moves is loaded in every pass. */
Test(bind, a_region_every_pass_needs_is_loaded_once) {
  static const char scale[] = "void k(const float X[16][32], const float G[32], float Y[16][32]) {\n"
                              "  for (int r = 0; r < 16; r++)\n"
                              "    for (int c = 0; c < 32; c++)\n"
                              "      Y[r][c] = X[r][c] * G[c];\n}\n";
  NpgSession *s = open_ok(scale, "#pragma npu schedule(k, v)\n#pragma npu split(r, 4, ro, core)\n"
                                 "#pragma npu bind(core, vu)\n#pragma npu cache_read(X, vu_vm, core, X_vm)\n"
                                 "#pragma npu cache_read(G, vu_vm, core, G_vm)\n"
                                 "#pragma npu cache_write(Y, vu_vm, core, Y_vm)\n");
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  has(c, "npu_token_t G_vm_tok[4]; /* per core: the load of G_vm, the same in every pass of ro */\n");
  has(c, "G_vm_tok[core] = npu_dma_1d(");
  has(c, "if (ro == 0) npu_dma_wait(G_vm_tok[core]); /* loaded once, before the passes */");
  /* X moves with ro: loaded in each pass's loads phase */
  has(c, "X_vm_tok[core] = npu_dma_1d(core % 2, &X_vm[0][0], &X[ro * 4 + core][0], 128);");
  has(c, "npu_dma_wait(X_vm_tok[core]);");
  npg_close(s);
  /* an earlier stage whose buffers share G_vm's bytes (placement: not live
   * at once) has finished before the passes: G is still loaded once */
  static const char staged[] = "void k(const float A[4][32], float B[4][32], const float X[16][32], const float G[32],\n"
                               "       float Y[16][32]) {\n"
                               "  for (int q = 0; q < 4; q++)\n    for (int c = 0; c < 32; c++)\n"
                               "      B[q][c] = A[q][c] + 1.0f;\n"
                               "  for (int r = 0; r < 16; r++)\n    for (int c = 0; c < 32; c++)\n"
                               "      Y[r][c] = X[r][c] * G[c];\n}\n";
  s = open_ok(staged, "#pragma npu schedule(k, v)\n#pragma npu cache_read(A, vu_vm, q, A_vm)\n"
                      "#pragma npu cache_write(B, vu_vm, q, B_vm)\n#pragma npu split(r, 4, ro, core)\n"
                      "#pragma npu bind(core, vu)\n#pragma npu cache_read(X, vu_vm, core, X_vm)\n"
                      "#pragma npu cache_read(G, vu_vm, core, G_vm)\n#pragma npu cache_write(Y, vu_vm, core, Y_vm)\n");
  c = npg_emit_source(s, checked(s, "v"));
  has(c, "if (ro == 0) npu_dma_wait(G_vm_tok[core]); /* loaded once, before the passes */");
  npg_close(s);
}

/* Found in review: a bound loop that is its own home under an unrolled
 * loop waits for every core's copy out (the plan kept a stale copy of the
 * loop); a cache whose boxes overlap between cores, made after bind, is
 * refused (independence is proven again after every step); a step that
 * moves a double-buffered buffer of a bound loop away from the loop around
 * it is refused. */
Test(bind, review_regressions) {
  static const char add1[] = "#include <stdint.h>\n"
                             "void k(const int32_t X[8][16], int32_t Y[8][16]) {\n"
                             "  for (int c = 0; c < 8; c++)\n"
                             "    for (int i = 0; i < 16; i++)\n"
                             "      Y[c][i] = X[c][i] + 1;\n}\n";
  NpgSession *s = open_ok(add1, "#pragma npu schedule(k, v)\n#pragma npu split(c, 4, co, ci)\n#pragma npu bind(ci, vu)\n"
                                "#pragma npu cache_read(X, vu_vm, ci, X_vm)\n#pragma npu cache_write(Y, vu_vm, ci, Y_vm)\n"
                                "#pragma npu unroll(co)\n");
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "for (int core = 0; core < 4; core++) {\n");
  has(npg_emit_source(s, v), "  if (Y_vm_tok[core]) npu_dma_wait(Y_vm_tok[core]);\n");
  lacks(npg_emit_source(s, v), "core < 5");
  npg_close(s);
  refused("#include <stdint.h>\nvoid k(const int32_t X[4][8], int32_t Y[32]) {\n  for (int c = 0; c < 4; c++)\n"
          "    for (int j = 0; j < 8; j++)\n      Y[j * 4 + c] = X[c][j] + 1;\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu bind(c, vu)\n#pragma npu cache_read(X, vu_vm, c, X_vm)\n"
          "#pragma npu cache_write(Y, vu_vm, c, Y_vm)\n",
          "k.c:10:13: error: cache_write: illegal: loop c is bound to the VU cores (bind(c, vu), line 8), and after "
          "this step it would carry the output dependence on Y from Y_vm_store (line 10) to Y_vm_store (line 10), "
          "distance (1, -1)");
  /* double_buffer, then a split that puts the buffer in an inner loop of the bound one */
  refused(add1, "#pragma npu schedule(k, v)\n#pragma npu split(c, 4, co, ci)\n#pragma npu bind(ci, vu)\n"
                "#pragma npu cache_read(X, vu_vm, ci, X_vm)\n#pragma npu double_buffer(X_vm)\n"
                "#pragma npu split(co, 1, co_o, co_i)\n#pragma npu reorder(ci, co_i)\n",
          "k.c:13:13: error: reorder: X_vm is double-buffered in loop ci, which is bound to the VU cores: it must be "
          "declared directly in that loop's body");
}


/* Random schedules of one row kernel over the bound-loop machinery: rows
 * per pass and per core, which arrays are staged, which buffers are
 * double-buffered, a fission into stages. Every accepted variant must
 * match its source in the simulator (with its hazard checks), also when
 * planned for a target with 1 to 16 DMAs in flight; most must be
 * accepted, so the test covers the emitter and not only the refusals.
 * The draws are fixed (one seed): the ASan+UBSan build runs the first 8
 * of the normal build's 24, which include accepted and pipelined ones. */
#if defined(__SANITIZE_ADDRESS__)
enum { PASS_CASES = 8 }; /* the first 8 of the same draws: make test's CPU budget */
#else
enum { PASS_CASES = 24 };
#endif
Test(bind, random_pass_schedules_match_their_source) {
  static const char rows[] = "void k(const float X[%d][16], const float G[16], float Y[%d][16], float S[%d]) {\n"
                             "  for (int r = 0; r < %d; r++) {\n"
                             "    S[r] = 0.0f;\n"
                             "    for (int c = 0; c < 16; c++)\n"
                             "      acc: S[r] += X[r][c];\n"
                             "    for (int c = 0; c < 16; c++)\n"
                             "      out: Y[r][c] = X[r][c] * G[c] + S[r];\n"
                             "  }\n}\n";
  uint64_t rng = 12345;
  int accepted = 0, pipelined = 0, cases = PASS_CASES;
  for (int t = 0; t < cases; t++) {
#define PICK(n) ((int)((rng = rng * 6364136223846793005ull + 1442695040888963407ull) >> 33) % (n))
    int R = 8 + 4 * PICK(5), cores = 1 + PICK(4), per_core = 1 + PICK(3), pass = cores * per_core;
    char kernel[1024], steps[2048];
    snprintf(kernel, sizeof kernel, rows, R, R, R, R);
    int n = snprintf(steps, sizeof steps,
                     "#pragma npu schedule(k, v)\n#pragma npu split(r, %d, ro, rr)\n"
                     "#pragma npu split(rr, %d, core, ri)\n#pragma npu bind(core, vu)\n",
                     pass, per_core);
    if (PICK(2)) n += snprintf(steps + n, sizeof steps - (size_t)n, "#pragma npu fission(ri, acc)\n");
    n += snprintf(steps + n, sizeof steps - (size_t)n, "#pragma npu cache_read(X, vu_vm, core, X_vm)\n");
    bool g = PICK(2), y = PICK(3), s = PICK(2);
    if (g) n += snprintf(steps + n, sizeof steps - (size_t)n, "#pragma npu cache_read(G, vu_vm, core, G_vm)\n");
    if (y) n += snprintf(steps + n, sizeof steps - (size_t)n, "#pragma npu cache_write(Y, vu_vm, core, Y_vm)\n");
    if (s) n += snprintf(steps + n, sizeof steps - (size_t)n, "#pragma npu cache_write(S, vu_vm, core, S_vm)\n");
    const char *names[4] = {"X_vm", g ? "G_vm" : NULL, y ? "Y_vm" : NULL, s ? "S_vm" : NULL};
    for (int i = 0; i < 4; i++)
      if (names[i] && PICK(3))
        n += snprintf(steps + n, sizeof steps - (size_t)n, "#pragma npu double_buffer(%s)\n", names[i]);
    int tokens = 1 + PICK(16);
#undef PICK
    char src[4096];
    snprintf(src, sizeof src, "%s%s", kernel, steps);
    NpgSession *ses = npg_open_string("k.c", src, strlen(src));
    if (!npg_error_count(ses)) {
      int v = checked(ses, "v");
      accepted++;
      const char *c = npg_emit_source(ses, v);
      pipelined += strstr(c, "into the other copies") || strstr(c, "loaded once, before the passes");
      /* planned for a target with fewer DMAs in flight, it still runs */
      char *few = target_file("default", 64, 4, tokens);
      npg_close(ses);
      ses = npg_open_string_for_target("k.c", src, strlen(src), few);
      cr_assert_eq(npg_error_count(ses), 0, "%s", npg_errors(ses));
      checked(ses, "v");
      unlink(few);
      free(few);
    }
    npg_close(ses);
  }
  cr_assert_geq(accepted, cases / 2, "only %d of %d random schedules were accepted", accepted, cases);
  /* the pass pipeline itself ran, not only the serial fallback */
  cr_assert_geq(pipelined, 2, "only %d accepted schedules load a pass ahead or once", pipelined);
}

/* Found in review of the pass loops: the decision to load ahead must see
 * the bound loop as its emission will (a copy out the loop defers itself,
 * followed by a copy out that is not one DMA, keeps the body serial: the
 * early loads then broke it); a home of copies out inside another home
 * closes its tokens itself (they were out of scope at the outer close);
 * nothing but the bound loop may use on-chip memory in a pass loop whose
 * buffers alternate (a second bound loop was placed on the copy being
 * loaded ahead). */
Test(bind, pass_loop_review_regressions) {
  static const char five_d[] =
      "#include <stdint.h>\n"
      "void k(const int32_t X[16][8], const int32_t G[8], int32_t Y[16][8], int32_t Z[16][4][4][4][4], "
      "int32_t W[4]) {\n"
      "  for (int co = 0; co < 4; co++) {\n"
      "    for (int ci = 0; ci < 4; ci++) {\n"
      "      for (int j = 0; j < 8; j++)\n"
      "        s1: Y[co * 4 + ci][j] = X[co * 4 + ci][j] * G[j];\n"
      "      for (int a = 0; a < 2; a++)\n"
      "        for (int b = 0; b < 2; b++)\n"
      "          for (int d = 0; d < 2; d++)\n"
      "            for (int e = 0; e < 2; e++)\n"
      "              s2: Z[co * 4 + ci][a][b][d][e] = X[co * 4 + ci][a + b + d + e] * 2;\n"
      "    }\n"
      "    s3: W[co] = Y[co * 4][0];\n"
      "  }\n}\n";
  static const char staged[] = "#pragma npu schedule(k, v)\n#pragma npu bind(ci, vu)\n"
                               "#pragma npu cache_read(X, vu_vm, ci, X_vm)\n#pragma npu cache_read(G, vu_vm, ci, G_vm)\n"
                               "#pragma npu cache_write(Y, vu_vm, ci, Y_vm)\n#pragma npu cache_write(Z, vu_vm, ci, Z_vm)\n";
  NpgSession *s = open_ok(five_d, staged);
  lacks(npg_emit_source(s, checked(s, "v")), "loaded ahead");
  npg_close(s);
  s = open_ok(five_d, steps_then(staged, "#pragma npu double_buffer(X_vm)\n"));
  has(npg_emit_source(s, checked(s, "v")), "/* double_buffer(X_vm) does nothing here");
  npg_close(s);
  /* without G: the Y copy out's home is the bound loop, inside the nest's */
  s = open_ok(five_d, "#pragma npu schedule(k, v)\n#pragma npu bind(ci, vu)\n#pragma npu cache_read(X, vu_vm, ci, X_vm)\n"
                      "#pragma npu cache_write(Y, vu_vm, ci, Y_vm)\n#pragma npu cache_write(Z, vu_vm, ci, Z_vm)\n");
  checked(s, "v");
  npg_close(s);

  static const char two[] = "#include <stdint.h>\n"
                            "void k(const int32_t X[16][16], int32_t Y[16][16], int32_t Z[16][16]) {\n"
                            "  for (int c = 0; c < 16; c++) {\n"
                            "    for (int j = 0; j < 16; j++)\n      s1: Y[c][j] = X[c][j] + 1;\n"
                            "    for (int j = 0; j < 16; j++)\n      s2: Z[c][j] = X[c][j] * 2;\n"
                            "  }\n}\n";
  static const char two_steps[] = "#pragma npu schedule(k, v)\n#pragma npu split(c, 4, co, ci)\n"
                                  "#pragma npu fission(ci, s1)\n#pragma npu bind(ci, vu)\n#pragma npu bind(ci_1, vu)\n"
                                  "#pragma npu cache_read(X, vu_vm, ci, X_vm)\n#pragma npu cache_write(Y, vu_vm, ci, Y_vm)\n"
                                  "#pragma npu cache_read(X, vu_vm, ci_1, X_vm2)\n"
                                  "#pragma npu cache_write(Z, vu_vm, ci_1, Z_vm)\n";
  s = open_ok(two, two_steps);
  checked(s, "v");
  npg_close(s);
  refused(two, steps_then(two_steps, "#pragma npu double_buffer(X_vm)\n"),
          "k.c:19:27: error: double_buffer: the copies of X_vm stay live across the passes of loop co, so nothing in "
          "it but loop ci may use on-chip memory; ci_1 (line 3) does");
  refused(two, "#pragma npu schedule(k, v)\n#pragma npu split(c, 4, co, ci)\n#pragma npu bind(ci, vu)\n"
               "#pragma npu cache_read(X, vu_vm, ci, X_vm)\n#pragma npu double_buffer(X_vm)\n"
               "#pragma npu split(co, 2, coo, coi)\n#pragma npu unroll(coi)\n",
          "k.c:16:13: error: unroll: X_vm is double-buffered in loop ci, which is bound to the VU cores: the copies of "
          "X_vm stay live across the passes of loop coo, so nothing in it but loop ci may use on-chip memory; ci_1 "
          "(line 3) does");
}

/* Rows that the tiles do not divide: softmax_npu.c's schedule on 250 rows.
 * Fission repeats the split's guard in every stage, each core's copies
 * stop at the last row, and every VU instruction takes its rows at run time
 * (the last pass: 58 rows, 10 on core 3); on 200 rows, three cores have
 * none in the last pass. */
Test(bind, softmax_rows_the_tiles_do_not_divide) {
  FILE *f = fopen("examples/softmax_npu.c", "rb");
  cr_assert(f);
  static char src[16384];
  size_t n = fread(src, 1, sizeof src - 1, f);
  fclose(f);
  src[n] = 0;
  char *r = strstr(src, "#define R 256");
  cr_assert(r);
  memcpy(r, "#define R 250", 13);
  NpgSession *s = npg_open_string("softmax250.c", src, n);
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  int v = checked(s, "softmax_vu");
  const char *c = npg_emit_source(s, v);
  has(c, "npu_vu_exp_f32(&e_vm[0][0], &d_vm[0][0], npu_clamp(250 - (ro * 64 + core * 16), 16), /*cols=*/256, /*ldd=*/256, /*lda=*/256);");
  has(c, "X_vm_tok[(ro + 1) % 2][core] = npu_dma_1d(core % 2, &X_vm[0][0], &X[(ro + 1) * 64 + core * 16][0], "
         "1024 * npu_clamp(250 - ((ro + 1) * 64 + core * 16), 16));");
  npg_close(s);
  /* 200 rows: the last pass has 8, all on core 0; the other cores' boxes
   * start past the end, so they load and store nothing (token 0) */
  memcpy(strstr(src, "#define R 250"), "#define R 200", 13);
  s = npg_open_string("softmax200.c", src, n);
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  v = checked(s, "softmax_vu");
  c = npg_emit_source(s, v);
  has(c, "X_vm_tok[(ro + 1) % 2][core] = 200 - ((ro + 1) * 64 + core * 16) > 0 ? npu_dma_1d(core % 2, &X_vm[0][0], "
         "&X[(ro + 1) * 64 + core * 16][0], 1024 * npu_clamp(200 - ((ro + 1) * 64 + core * 16), 16)) : 0;");
  has(c, "Y_vm_tok[ro % 2][core] = 200 - (ro * 64 + core * 16) > 0 ? npu_dma_1d(2 + core % 2, ");
  NpgCheckResult res;
  cr_assert(npg_check(s, v, 3, &res), "%s", res.message);
  cr_expect_eq(res.dma_bytes, 2 * 200 * 256 * 4); /* X in once, Y out once */
  npg_close(s);
}

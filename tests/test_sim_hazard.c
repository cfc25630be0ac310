/* Every hazard kind, caught in a small C program against the ABI that libtcc
 * compiles in memory; each program has a correct twin (FIX(...) enabled) that
 * runs clean and computes the right result. The line marked MARK is where the
 * error must point. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "npu_intrinsics.h"
#include "test_sim_util.h"

typedef void (*SimhzRun)(void *, void *, void *);

static int simhz_line(const char *body) {
  const char *at = strstr(body, "/* MARK */");
  cr_assert_not_null(at);
  int line = 4; /* the three prelude lines come first */
  for (const char *p = body; p < at; p++) line += *p == '\n';
  return line;
}

/* Compiles and runs `body` (defining run(a, b, c)) with FIX(x) on or off, then
 * ends the run. Returns the simulator for inspection. */
static NpuSim *simhz_run(const char *name, const char *body, int fix, void *a, void *b, void *c) {
  size_t n = strlen(body) + 256;
  char *src = malloc(n);
  snprintf(src, n, "#include <stdint.h>\n#include \"npu_intrinsics.h\"\n%s\n%s",
           fix ? "#define FIX(x) x" : "#define FIX(x)", body);
  TccUnit *u = simt_compile(src, name);
  free(src);
  SimhzRun run = (SimhzRun)tcc_unit_symbol(u, "run");
  cr_assert_not_null(run);
  NpuSim *s = simt_new();
  run(a, b, c);
  npusim_finish(s);
  npusim_unbind();
  tcc_unit_free(u); /* the error text must outlive the unit */
  return s;
}

static void simhz_expect(NpuSim *s, const char *name, const char *body, const char *const *parts) {
  cr_assert(npusim_failed(s), "%s: the hazard was not caught", name);
  const char *err = npusim_error(s);
  char site[64];
  snprintf(site, sizeof site, "%s:%d: ", name, simhz_line(body));
  cr_assert(!strncmp(err, site, strlen(site)), "error '%s' does not start with '%s'", err, site);
  for (const char *const *p = parts; *p; p++)
    cr_assert(strstr(err, *p), "error '%s' lacks '%s'", err, *p);
  npusim_free(s);
}

static void simhz_clean(NpuSim *s, const char *name) {
  cr_assert(!npusim_failed(s), "%s twin failed: %s", name, npusim_error(s));
  npusim_free(s);
}

/* The broken program (FIX off) must fail with `parts`; its twin must run clean. */
static void simhz_case(const char *name, const char *body, const char *const *parts, void *a,
                       void *b, void *c) {
  simhz_expect(simhz_run(name, body, 0, a, b, c), name, body, parts);
  simhz_clean(simhz_run(name, body, 1, a, b, c), name);
}

static void simhz_ref(const int8_t *a, const int8_t *b, int32_t *c, int m, int n, int k) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      int32_t acc = 0;
      for (int p = 0; p < k; p++) acc += a[i * k + p] * b[p * n + j];
      c[i * n + j] = acc;
    }
}

/* ---- RAW: the NU reads A before its DMA was waited for ---- */
static const char simhz_raw[] =
    "void run(const int8_t *a, const int8_t *b, int32_t *c) {\n"
    "  int8_t *A = npu_scope_base(NPU_NU_IB, 0);\n"
    "  int8_t *B = npu_scope_base(NPU_NU_WB, 0);\n"
    "  int32_t *C = npu_scope_base(NPU_NU_OB, 0);\n"
    "  npu_token_t ta = npu_dma_1d(0, A, a, 32 * 32);\n"
    "  npu_token_t tb = npu_dma_1d(1, B, b, 32 * 32);\n"
    "  npu_dma_wait(tb);\n"
    "  FIX(npu_dma_wait(ta);)\n"
    "  npu_nu_matmul_i8(C, A, B, 32, 32, 32, 32, 32, 32, 0); /* MARK */\n"
    "  npu_token_t tc = npu_dma_1d(2, c, C, 32 * 32 * 4);\n"
    "  npu_dma_wait(tc);\n"
    "  npu_dma_wait(ta);\n"
    "}\n";

Test(sim_hazard, raw_missing_wait) {
  SimtRng rng;
  simt_seed(&rng, 21);
  int8_t a[1024], b[1024];
  int32_t c[1024], want[1024];
  simt_fill_i8(&rng, a, sizeof a);
  simt_fill_i8(&rng, b, sizeof b);
  simhz_ref(a, b, want, 32, 32, 32);

  memset(c, 0x55, sizeof c);
  NpuSim *s = simhz_run("raw.c", simhz_raw, 0, a, b, c);
  const char *parts[] = {"npu_nu_matmul_i8: RAW hazard", "operand A nu_ib[0x0, 0x400)",
                         "DMA token 1 (npu_dma_1d at raw.c:8, channel 0)", "npu_dma_wait(1)", NULL};
  simhz_expect(s, "raw.c", simhz_raw, parts);
  cr_assert_eq(c[0], 0x55555555, "calls after the error must do nothing");

  s = simhz_run("raw.c", simhz_raw, 1, a, b, c);
  simhz_clean(s, "raw.c");
  cr_assert_eq(memcmp(c, want, sizeof c), 0, "the twin computes the product");
}

/* ---- WAR: a DMA overwrites DM bytes an outbound DMA still reads ---- */
static const char simhz_war[] =
    "void run(int8_t *x, int8_t *y, void *unused) {\n"
    "  int8_t *D = npu_scope_base(NPU_DM, 0);\n"
    "  npu_token_t t1 = npu_dma_1d(0, D, x, 256);\n"
    "  npu_dma_wait(t1);\n"
    "  npu_token_t t2 = npu_dma_1d(1, y, D, 256);\n"
    "  FIX(npu_dma_wait(t2);)\n"
    "  npu_token_t t3 = npu_dma_1d(2, D + 128, x + 256, 256); /* MARK */\n"
    "  npu_dma_wait(t3);\n"
    "  npu_dma_wait(t2);\n"
    "}\n";

Test(sim_hazard, war_dma_over_pending_read) {
  int8_t x[512], y[256];
  for (int i = 0; i < 512; i++) x[i] = (int8_t)(i * 7);
  NpuSim *s = simhz_run("war.c", simhz_war, 0, x, y, NULL);
  const char *parts[] = {"npu_dma_1d: WAR hazard", "operand dst dm[0x80, 0x180)",
                         "overlaps dm[0x0, 0x100)", "DMA token 2 (npu_dma_1d at war.c:8, channel 1) still reads",
                         NULL};
  simhz_expect(s, "war.c", simhz_war, parts);
  s = simhz_run("war.c", simhz_war, 1, x, y, NULL);
  simhz_clean(s, "war.c");
  cr_assert_eq(memcmp(x, y, 256), 0);
}

/* ---- WAR by a compute op: the VU overwrites what an outbound DMA reads ---- */
static const char simhz_war_vu[] =
    "void run(int32_t *x, int32_t *y, void *unused) {\n"
    "  int32_t *V = npu_scope_base(NPU_VU_VM, 1);\n"
    "  npu_token_t t1 = npu_dma_1d(0, V, x, 64 * 4);\n"
    "  npu_dma_wait(t1);\n"
    "  npu_token_t t2 = npu_dma_1d(1, y, V, 64 * 4);\n"
    "  FIX(npu_dma_wait(t2);)\n"
    "  npu_vu_relu_i32(V, V, 64); /* MARK */\n"
    "  npu_dma_wait(t2);\n"
    "}\n";

Test(sim_hazard, war_vu_over_pending_read) {
  int32_t x[64], y[64];
  for (int i = 0; i < 64; i++) x[i] = i - 32;
  NpuSim *s = simhz_run("warvu.c", simhz_war_vu, 0, x, y, NULL);
  const char *parts[] = {"npu_vu_relu_i32: WAR hazard", "operand dst vu_vm(core 1)[0x0, 0x100)",
                         "DMA token 2", NULL};
  simhz_expect(s, "warvu.c", simhz_war_vu, parts);
  s = simhz_run("warvu.c", simhz_war_vu, 1, x, y, NULL);
  simhz_clean(s, "warvu.c");
  cr_assert_eq(memcmp(x, y, sizeof x), 0);
}

/* ---- beyond capacity: C of a 256x257 int32 tile does not fit NU_OB ---- */
static const char simhz_cap[] =
    "void run(void *u0, void *u1, void *u2) {\n"
    "  int8_t *A = npu_scope_base(NPU_NU_IB, 0);\n"
    "  int8_t *B = npu_scope_base(NPU_NU_WB, 0);\n"
    "  int32_t *C = npu_scope_base(NPU_NU_OB, 0);\n"
    "  int n = 257;\n"
    "  FIX(n = 256;)\n"
    "  npu_nu_matmul_i8(C, A, B, 256, n, 8, 8, n, n, 0); /* MARK */\n"
    "}\n";

Test(sim_hazard, operand_beyond_capacity) {
  const char *parts[] = {"npu_nu_matmul_i8: operand C nu_ob[0x0, 0x40400) runs past the end of nu_ob",
                         "capacity 262144 bytes", NULL};
  simhz_case("cap.c", simhz_cap, parts, NULL, NULL, NULL);
}

/* ---- outside its scope: an address past the end of NU_IB ---- */
static const char simhz_scope[] =
    "void run(int8_t *x, void *u1, void *u2) {\n"
    "  int off = 300 * 1024;\n"
    "  FIX(off = 200 * 1024;)\n"
    "  int8_t *A = (int8_t *)npu_scope_base(NPU_NU_IB, 0) + off;\n"
    "  npu_token_t t = npu_dma_1d(3, A, x, 64); /* MARK */\n"
    "  npu_dma_wait(t);\n"
    "}\n";

Test(sim_hazard, address_outside_scope) {
  int8_t x[64] = {0};
  const char *parts[] = {"npu_dma_1d: operand dst at nu_ib+0x4b000 is beyond its capacity of 262144 bytes", NULL};
  simhz_case("scope.c", simhz_scope, parts, x, NULL, NULL);
}

/* ---- wrong scope: the NU reading DDR directly ---- */
static const char simhz_wrong[] =
    "void run(int8_t *a, int8_t *b, int32_t *c) {\n"
    "  int8_t *A = a;\n"
    "  int8_t *B = npu_scope_base(NPU_NU_WB, 0);\n"
    "  int32_t *C = npu_scope_base(NPU_NU_OB, 0);\n"
    "  FIX(A = npu_scope_base(NPU_NU_IB, 0); npu_dma_wait(npu_dma_1d(0, A, a, 64));)\n"
    "  npu_dma_wait(npu_dma_1d(1, B, b, 64));\n"
    "  npu_nu_matmul_i8(C, A, B, 8, 8, 8, 8, 8, 8, 0); /* MARK */\n"
    "  npu_dma_wait(npu_dma_1d(2, c, C, 256));\n"
    "}\n";

Test(sim_hazard, operand_in_wrong_scope) {
  int8_t a[64], b[64];
  int32_t c[64], want[64];
  SimtRng rng;
  simt_seed(&rng, 22);
  simt_fill_i8(&rng, a, 64);
  simt_fill_i8(&rng, b, 64);
  simhz_ref(a, b, want, 8, 8, 8);
  NpuSim *s = simhz_run("wrong.c", simhz_wrong, 0, a, b, c);
  const char *parts[] = {"npu_nu_matmul_i8: operand A is in ddr", "but npu_nu_matmul_i8 needs it in nu_ib", NULL};
  simhz_expect(s, "wrong.c", simhz_wrong, parts);
  s = simhz_run("wrong.c", simhz_wrong, 1, a, b, c);
  simhz_clean(s, "wrong.c");
  cr_assert_eq(memcmp(c, want, sizeof c), 0);
}

/* ---- wrong scope: VU operands in two cores' memories ---- */
static const char simhz_cores[] =
    "void run(void *u0, void *u1, void *u2) {\n"
    "  float *X = npu_scope_base(NPU_VU_VM, 0);\n"
    "  float *Y = npu_scope_base(NPU_VU_VM, 1);\n"
    "  FIX(Y = X + 64;)\n"
    "  npu_vu_add_f32(X, X, Y, 64); /* MARK */\n"
    "}\n";

Test(sim_hazard, vu_operands_in_two_cores) {
  const char *parts[] = {"npu_vu_add_f32: operand b is in the VM of VU core 1", "are in core 0", NULL};
  simhz_case("cores.c", simhz_cores, parts, NULL, NULL, NULL);
}

/* ---- misaligned shape: lda smaller than k ---- */
static const char simhz_lda[] =
    "void run(void *u0, void *u1, void *u2) {\n"
    "  int lda = 16;\n"
    "  FIX(lda = 32;)\n"
    "  npu_nu_matmul_i8(npu_scope_base(NPU_NU_OB, 0), npu_scope_base(NPU_NU_IB, 0),\n"
    "                   npu_scope_base(NPU_NU_WB, 0), 4, 4, 32, lda, 4, 4, 1); /* MARK */\n"
    "}\n";

Test(sim_hazard, misaligned_leading_dimension) {
  const char *parts[] = {"npu_nu_matmul_i8: misaligned shape: lda < k", "lda=16", NULL};
  simhz_case("lda.c", simhz_lda, parts, NULL, NULL, NULL);
}

/* ---- misaligned address: int32 accumulators at an odd offset ---- */
static const char simhz_align[] =
    "void run(void *u0, void *u1, void *u2) {\n"
    "  int off = 2;\n"
    "  FIX(off = 4;)\n"
    "  int32_t *C = (int32_t *)((char *)npu_scope_base(NPU_NU_OB, 0) + off);\n"
    "  npu_nu_matmul_i8(C, npu_scope_base(NPU_NU_IB, 0), npu_scope_base(NPU_NU_WB, 0),\n"
    "                   2, 2, 2, 2, 2, 2, 0); /* MARK */\n"
    "}\n";

Test(sim_hazard, misaligned_address) {
  const char *parts[] = {"operand C nu_ob[0x2, 0x12) is not aligned to its 4-byte elements", NULL};
  simhz_case("align.c", simhz_align, parts, NULL, NULL, NULL);
}

/* ---- negative shape ---- */
static const char simhz_neg[] =
    "void run(int8_t *x, void *u1, void *u2) {\n"
    "  int rows = -2;\n"
    "  FIX(rows = 2;)\n"
    "  npu_token_t t = npu_dma_2d(0, npu_scope_base(NPU_DM, 0), 64, x, 32, 32, rows); /* MARK */\n"
    "  npu_dma_wait(t);\n"
    "}\n";

Test(sim_hazard, negative_shape) {
  int8_t x[64] = {0};
  const char *parts[] = {"npu_dma_2d: negative shape: row_bytes=32 rows=-2", NULL};
  simhz_case("neg.c", simhz_neg, parts, x, NULL, NULL);
}

/* ---- the result DMA is never waited for before the kernel returns ---- */
static const char simhz_end[] =
    "void run(int8_t *x, int8_t *y, void *u2) {\n"
    "  int8_t *D = npu_scope_base(NPU_DM, 0);\n"
    "  npu_dma_wait(npu_dma_1d(0, D, x, 64));\n"
    "  npu_token_t t = npu_dma_1d(1, y, D, 64); /* MARK */\n"
    "  FIX(npu_dma_wait(t);)\n"
    "}\n";

Test(sim_hazard, dma_never_waited) {
  int8_t x[64] = {1}, y[64];
  const char *parts[] = {"npu_dma_1d: DMA token 2", "was never waited for", NULL};
  simhz_case("end.c", simhz_end, parts, x, y, NULL);
}

/* ---- a declared DDR array bounds DMAs on the host side too ---- */
Test(sim_hazard, ddr_outside_declared_array) {
  int8_t x[128];
  NpuSim *s = simt_new();
  npusim_add_ddr(s, x, 64, "x");
  npu_dma_wait(npu_dma_1d(0, npu_scope_base(NPU_DM, 0), x, 64));
  cr_assert(!npusim_failed(s), "%s", npusim_error(s));
  npu_dma_1d(0, npu_scope_base(NPU_DM, 0), x + 32, 64);
  cr_assert(npusim_failed(s));
  cr_assert(strstr(npusim_error(s), "operand src ddr x[0x20, 0x60) is outside every declared DDR array"),
            "%s", npusim_error(s));
  simt_free(s);
}

/* ---- no simulator bound: the call stops the program, naming itself ---- */
/* Each returns the line of its intrinsic call; with run set it makes the
 * call first (the call and the return share one line). */
typedef int (*UnboundCall)(bool run);

static int unbound_matmul(bool run) {
  static int32_t c[16];
  static int8_t a[16], b[16];
  if (run) { npu_nu_matmul_i8(c, a, b, 4, 4, 1, 1, 4, 4, 0); } return __LINE__; /* a matmul of zeros */
}

static int unbound_scope_base(bool run) {
  if (run) { ((char *)npu_scope_base(NPU_VU_VM, 0))[0] = 1; } return __LINE__; /* host code over VM: NULL */
}

/* Runs call in a child with no simulator bound; asserts it died of SIGABRT
 * with "file:line: op: called with no simulator bound" on stderr. */
static void expect_unbound_abort(UnboundCall call, const char *op) {
  int fds[2];
  cr_assert_eq(pipe(fds), 0);
  fflush(NULL);
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    dup2(fds[1], 2);
    npusim_unbind();
    call(true);
    _exit(0); /* the intrinsic returned: the parent reports it */
  }
  close(fds[1]);
  char err[512] = "";
  size_t n = 0;
  ssize_t got;
  while (n + 1 < sizeof err && (got = read(fds[0], err + n, sizeof err - 1 - n)) > 0) n += (size_t)got;
  err[n] = 0;
  close(fds[0]);
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "%s did not abort (status %d): %s", op, status, err);
  char want[160];
  snprintf(want, sizeof want, "test_sim_hazard.c:%d: %s: called with no simulator bound", call(false), op);
  cr_assert(strstr(err, want), "want \"%s\" in: %s", want, err);
}

Test(sim_hazard, unbound_call_aborts_naming_the_intrinsic) {
  expect_unbound_abort(unbound_matmul, "npu_nu_matmul_i8");
  expect_unbound_abort(unbound_scope_base, "npu_scope_base");
}

/* ---- WAW, bad channel, unknown token, DDR to DDR: direct calls ---- */
Test(sim_hazard, waw_and_bad_dma_arguments) {
  static int8_t x[256], y[256];
  NpuSim *s = simt_new();
  char *dm = npu_scope_base(NPU_DM, 0);
  npu_dma_1d(0, dm, x, 256);
  npu_dma_1d(1, dm + 255, x, 1);
  cr_assert(strstr(npusim_error(s), "WAW hazard: operand dst dm[0xff, 0x100)"), "%s", npusim_error(s));
  simt_free(s);

  s = simt_new();
  npu_dma_1d(4, npu_scope_base(NPU_DM, 0), x, 16);
  cr_assert(strstr(npusim_error(s), "DMA channel 4 does not exist"), "%s", npusim_error(s));
  simt_free(s);

  s = simt_new();
  npu_dma_wait(7);
  cr_assert(strstr(npusim_error(s), "npu_dma_wait: unknown DMA token 7"), "%s", npusim_error(s));
  simt_free(s);

  /* token 0 is no DMA's: waiting for it returns (emitted code keeps 0 for
   * a copy it did not issue); a negative one is unknown */
  s = simt_new();
  npu_dma_wait(0);
  cr_assert_not(npusim_failed(s), "%s", npusim_error(s));
  npu_dma_wait(-3);
  cr_assert(strstr(npusim_error(s), "npu_dma_wait: unknown DMA token -3"), "%s", npusim_error(s));
  simt_free(s);

  s = simt_new();
  npu_dma_1d(0, y, x, 16);
  cr_assert(strstr(npusim_error(s), "both src and dst are in ddr"), "%s", npusim_error(s));
  simt_free(s);

  /* waiting twice is harmless; 2-D rows of the same bytes do not collide */
  s = simt_new();
  dm = npu_scope_base(NPU_DM, 0);
  npu_token_t a = npu_dma_2d(0, dm, 64, x, 32, 32, 4);      /* dm rows [0,32) [64,96) ... */
  npu_token_t b = npu_dma_2d(1, dm + 32, 64, x, 32, 32, 4); /* the gaps between them */
  npu_dma_wait(a);
  npu_dma_wait(b);
  npu_dma_wait(a);
  cr_assert(!npusim_failed(s), "%s", npusim_error(s));
  cr_assert_eq(npusim_finish(s), 0);
  simt_free(s);
}

/* ---- argument errors without a test yet: the whole message, site included ---- */
static void simhz_exact(NpuSim *s, const char *want) {
  cr_assert(npusim_failed(s), "no error; expected '%s'", want);
  cr_assert_str_eq(npusim_error(s), want);
  simt_free(s);
}

Test(sim_hazard, too_many_outstanding_dmas) {
  static int8_t x[64];
  NpuSim *s = simt_new();
  char *dm = npu_scope_base(NPU_DM, 0);
  for (int i = 0; i < 64; i++) /* the default target's dma_max_tokens */
    cr_assert_eq(npu_dma_1d_at("t.c", 3, i % 4, dm + 64 * i, x, 64), i + 1, "%s",
                 npusim_error(s));
  cr_assert(!npusim_failed(s), "%s", npusim_error(s));
  cr_assert_eq(npu_dma_1d_at("t.c", 5, 0, dm + 64 * 64, x, 64), 0);
  simhz_exact(s, "t.c:5: npu_dma_1d: more than 64 DMAs outstanding (is npu_dma_wait missing?)");

  /* one wait frees a token */
  s = simt_new();
  dm = npu_scope_base(NPU_DM, 0);
  for (int i = 0; i < 64; i++) npu_dma_1d_at("t.c", 3, 0, dm + 64 * i, x, 64);
  npu_dma_wait_at("t.c", 4, 1);
  cr_assert_eq(npu_dma_1d_at("t.c", 5, 0, dm + 64 * 64, x, 64), 65, "%s", npusim_error(s));
  for (npu_token_t t = 2; t <= 65; t++) npu_dma_wait_at("t.c", 6, t);
  cr_assert_eq(npusim_finish(s), 0, "%s", npusim_error(s));
  simt_free(s);
}

Test(sim_hazard, dma_destination_rows_overlap) {
  static int8_t x[256];
  NpuSim *s = simt_new();
  char *dm = npu_scope_base(NPU_DM, 0);
  npu_dma_2d_at("t.c", 7, 1, dm, 16, x, 32, 32, 2);
  simhz_exact(s, "t.c:7: npu_dma_2d: destination rows overlap: dst_stride 16 < row_bytes 32");

  /* one row may use any stride; overlapping source rows are fine */
  s = simt_new();
  dm = npu_scope_base(NPU_DM, 0);
  npu_dma_wait(npu_dma_2d(1, dm, 0, x, 32, 32, 1));
  npu_dma_wait(npu_dma_2d(1, dm, 32, x, 8, 32, 4));
  cr_assert(!npusim_failed(s), "%s", npusim_error(s));
  simt_free(s);
}

Test(sim_hazard, dma_negative_stride) {
  static int8_t x[256];
  NpuSim *s = simt_new();
  char *dm = npu_scope_base(NPU_DM, 0);
  npu_dma_2d_at("t.c", 8, 0, dm + 128, -64, x, 32, 32, 2);
  simhz_exact(s, "t.c:8: npu_dma_2d: negative stride: dst -64/0, src 32/0");

  s = simt_new();
  dm = npu_scope_base(NPU_DM, 0);
  npu_dma_3d_at("t.c", 9, 0, dm, 32, 64, x, 32, -1, 32, 1, 2);
  simhz_exact(s, "t.c:9: npu_dma_3d: negative stride: dst 32/64, src 32/-1");
}

Test(sim_hazard, scope_not_on_chip) {
  NpuSim *s = simt_new();
  cr_assert_null(npu_scope_base_at("t.c", 10, NPU_DDR, 0));
  simhz_exact(s, "t.c:10: npu_scope_base: scope 0 is not an on-chip scope (dm=1, nu_ib=2, "
                 "nu_wb=3, nu_ob=4, vu_vm=5)");

  s = simt_new();
  cr_assert_eq(npu_scope_size_at("t.c", 11, NPU_SCOPE_COUNT, 0), 0);
  simhz_exact(s, "t.c:11: npu_scope_size: scope 6 is not an on-chip scope (dm=1, nu_ib=2, "
                 "nu_wb=3, nu_ob=4, vu_vm=5)");
}

/* A DMA whose source and destination overlap: its result would depend on
 * the order its bytes move in, which no hardware promises. */
Test(sim_hazard, dma_source_and_destination_overlap) {
  NpuSim *s = simt_new();
  char *dm = npu_scope_base(NPU_DM, 0);
  npu_dma_1d_at("t.c", 9, 0, dm + 64, dm, 128);
  simhz_exact(s, "t.c:9: npu_dma_1d: source dm[0x0, 0x80) and destination dm[0x40, 0xc0) overlap");

  /* strided rows that interleave without meeting are fine; rows that meet are not */
  s = simt_new();
  dm = npu_scope_base(NPU_DM, 0);
  npu_dma_wait(npu_dma_2d(0, dm + 16, 32, dm, 32, 16, 4));
  cr_assert(!npusim_failed(s), "%s", npusim_error(s));
  npu_dma_2d_at("t.c", 11, 0, dm + 8, 32, dm, 32, 16, 4);
  cr_assert(npusim_failed(s));
  cr_assert(strstr(npusim_error(s), "t.c:11: npu_dma_2d: source dm[") && strstr(npusim_error(s), "overlap"),
            "%s", npusim_error(s));
  simt_free(s);
}

/* ---- host code (the check's npu_cu_access hooks): a wait moved after a
 * host loop over the DMA's destination ---- */
static const char simhz_host_raw[] =
    "void run(int8_t *x, int32_t *sum, void *unused) {\n"
    "  int8_t *D = npu_scope_base(NPU_DM, 0);\n"
    "  npu_token_t t = npu_dma_1d(0, D, x, 256);\n"
    "  FIX(npu_dma_wait(t);)\n"
    "  for (int i = 0; i < 256; i++)\n"
    "    *sum += *(const int8_t *)npu_cu_access(&D[i], 1, NPU_CU_READ); /* MARK */\n"
    "  npu_dma_wait(t);\n"
    "}\n";

Test(sim_hazard, host_loop_reads_before_the_wait) {
  int8_t x[256];
  int32_t sum = 0, want = 0;
  for (int i = 0; i < 256; i++) want += x[i] = (int8_t)(i * 5);
  NpuSim *s = simhz_run("host.c", simhz_host_raw, 0, x, &sum, NULL);
  const char *parts[] = {"host code: RAW hazard", "operand read dm[0x0, 0x1)",
                         "DMA token 1 (npu_dma_1d at host.c:6, channel 0) still writes", "npu_dma_wait(1)", NULL};
  simhz_expect(s, "host.c", simhz_host_raw, parts);
  sum = 0;
  s = simhz_run("host.c", simhz_host_raw, 1, x, &sum, NULL);
  cr_assert_eq(sum, want);
  /* timed: 256 reads at [cu] access_cycles = 1 after the DMA's 1 + 4 + 200 */
  NpuSimReport r;
  npusim_report(s, &r);
  cr_assert_eq(r.host_onchip, 256);
  cr_assert_eq(r.total_cycles, 1 + 4 + 200 + 1 + 256, "%llu", (unsigned long long)r.total_cycles);
  cr_assert_str_eq(r.bound, "cu");
  simhz_clean(s, "host.c");
}

/* host code writing bytes an outbound DMA still reads (WAR), and host code
 * waiting for the NU still writing what it reads (the interlock) */
static const char simhz_host_war[] =
    "void run(int8_t *x, int8_t *y, void *unused) {\n"
    "  int8_t *D = npu_scope_base(NPU_DM, 0);\n"
    "  npu_dma_wait(npu_dma_1d(0, D, x, 64));\n"
    "  npu_token_t t = npu_dma_1d(1, y, D, 64);\n"
    "  FIX(npu_dma_wait(t);)\n"
    "  *(int8_t *)npu_cu_access(&D[3], 1, NPU_CU_UPDATE) += 1; /* MARK */\n"
    "  npu_dma_wait(t);\n"
    "}\n";

Test(sim_hazard, host_write_over_a_pending_read) {
  int8_t x[64] = {1, 2, 3, 4}, y[64];
  const char *parts[] = {"host code: WAR hazard", "operand updated dm[0x3, 0x4)", NULL};
  simhz_case("hostw.c", simhz_host_war, parts, x, y, NULL);
}

Test(sim_hazard, host_access_waits_for_the_nu) {
  NpuSim *s = simt_new();
  int8_t *A = npu_scope_base(NPU_NU_IB, 0), *B = npu_scope_base(NPU_NU_WB, 0);
  int32_t *C = npu_scope_base(NPU_NU_OB, 0);
  npu_nu_matmul_i8(C, A, B, 64, 64, 64, 64, 64, 64, 0); /* issued at 0, runs 1 .. 1 + 32 + 256 */
  (void)*(int32_t *)npu_cu_access(&C[0], 4, NPU_CU_READ);
  NpuSimReport r;
  npusim_finish(s);
  npusim_report(s, &r);
  cr_assert_eq(r.total_cycles, 1 + 32 + 256 + 1, "%llu", (unsigned long long)r.total_cycles);
  simt_free(s);
}

/* The trace is valid JSON in Chrome trace-event format with one track per
 * unit and DMA channel, and holds the events of the run at their cycles. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npu_intrinsics.h"
#include "ir/util.h"
#include "test_sim_util.h"

static int8_t simtr_host[4096];

static char *simtr_run(int *matmul_line) {
  NpuSim *s = simt_new();
  npusim_set_trace(s, true);
  npu_token_t t = npu_dma_1d(0, npu_scope_base(NPU_DM, 0), simtr_host, 4096); /* 1 .. 265 */
  *matmul_line = __LINE__ + 1;
  npu_nu_matmul_i8(npu_scope_base(NPU_NU_OB, 0), npu_scope_base(NPU_NU_IB, 0),
                   npu_scope_base(NPU_NU_WB, 0), 64, 64, 64, 64, 64, 64, 0); /* 2 .. 290 */
  npu_dma_wait(t); /* issued at 3, stalls until 265 */
  cr_assert_eq(npusim_finish(s), 0);
  FILE *f = tmpfile();
  cr_assert_not_null(f);
  cr_assert_eq(npusim_write_trace_file(s, f), 0);
  long len = ftell(f);
  rewind(f);
  char *buf = malloc((size_t)len + 1);
  cr_assert_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
  buf[len] = 0;
  fclose(f);
  simt_free(s);
  return buf;
}

static int simtr_count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
  return n;
}

Test(sim_trace, valid_json_with_expected_events) {
  int line;
  char *json = simtr_run(&line);
  cr_assert(simt_json_valid(json), "not valid JSON:\n%s", json);
  /* tracks: cu, nu, vu0..vu3, dma0..dma3 */
  const char *tracks[] = {"\"tid\":0,\"args\":{\"name\":\"cu\"}", "\"tid\":1,\"args\":{\"name\":\"nu\"}",
                          "\"tid\":2,\"args\":{\"name\":\"vu0\"}", "\"tid\":5,\"args\":{\"name\":\"vu3\"}",
                          "\"tid\":6,\"args\":{\"name\":\"dma0\"}", "\"tid\":9,\"args\":{\"name\":\"dma3\"}"};
  for (size_t i = 0; i < sizeof tracks / sizeof tracks[0]; i++)
    cr_assert(strstr(json, tracks[i]), "missing track %s", tracks[i]);
  cr_assert_eq(simtr_count(json, "\"name\":\"thread_name\""), 10);
  cr_assert_eq(simtr_count(json, "\"ph\":\"X\""), 3);
  cr_assert(strstr(json, "{\"name\":\"npu_dma_1d\",\"cat\":\"dma\",\"ph\":\"X\",\"pid\":1,\"tid\":6,"
                         "\"ts\":1,\"dur\":264,\"args\":{\"site\":\"tests/test_sim_trace.c:"),
            "%s", json);
  char nu[256];
  snprintf(nu, sizeof nu, "{\"name\":\"npu_nu_matmul_i8\",\"cat\":\"nu\",\"ph\":\"X\",\"pid\":1,"
           "\"tid\":1,\"ts\":2,\"dur\":288,\"args\":{\"site\":\"tests/test_sim_trace.c:%d\","
           "\"detail\":\"m=64 n=64 k=64 acc=0, 262144 MACs\"}}", line);
  cr_assert(strstr(json, nu), "missing %s in\n%s", nu, json);
  cr_assert(strstr(json, "{\"name\":\"npu_dma_wait\",\"cat\":\"cu\",\"ph\":\"X\",\"pid\":1,\"tid\":0,"
                         "\"ts\":3,\"dur\":262,"),
            "%s", json);
  cr_assert(strstr(json, "token 1: 4096 B ddr [0x"), "%s", json);
  free(json);
}

Test(sim_trace, json_checker_rejects_garbage) {
  cr_assert(simt_json_valid("{\"a\":[1,2.5,-3e2,true,null,\"x\\n\"]}"));
  cr_assert(!simt_json_valid("{\"a\":[1,2,]}"));
  cr_assert(!simt_json_valid("{\"a\":1"));
  cr_assert(!simt_json_valid("{\"a\":\"\x01\"}"));
  cr_assert(!simt_json_valid("[01]"));
}

Test(sim_trace, write_to_path) {
  NpuSim *s = simt_new();
  npusim_set_trace(s, true);
  npu_barrier();
  char err[256];
  char path[96];
  snprintf(path, sizeof path, "/tmp/npugen_sim_trace_%d.json", (int)getpid());
  cr_assert_eq(npusim_write_trace(s, path, err, sizeof err), 0, "%s", err);
  char *text = read_file(path, NULL);
  cr_assert_not_null(text);
  cr_assert(simt_json_valid(text));
  free(text);
  remove(path);
  cr_assert_eq(npusim_write_trace(s, "/nonexistent-dir/t.json", err, sizeof err), -1);
  cr_assert(strstr(err, "/nonexistent-dir/t.json: cannot write trace"), "%s", err);
  simt_free(s);
}

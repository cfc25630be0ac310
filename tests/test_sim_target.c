/* Target files: the default, and the errors a user sees for a bad file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/util.h"
#include "test_sim_util.h"
#include "sim/npusim.h"

static char *simtg_default_text(void) {
  char *text = read_file("targets/default.ini", NULL);
  cr_assert_not_null(text, "targets/default.ini must be readable from the repo root");
  return text;
}

/* default.ini with `from` (a whole line's start) replaced by `to`. */
static char *simtg_edit(const char *from, const char *to) {
  char *text = simtg_default_text();
  char *at = strstr(text, from);
  cr_assert_not_null(at, "default.ini has no '%s'", from);
  char *eol = strchr(at, '\n');
  size_t n = strlen(text) + strlen(to) + 2;
  char *out = malloc(n);
  snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, eol);
  free(text);
  return out;
}

static void simtg_expect_error(const char *text, const char *want) {
  NpuTarget t;
  char err[512];
  cr_assert_eq(npusim_target_parse(&t, text, "my.ini", err, sizeof err), -1,
               "expected an error containing '%s'", want);
  cr_assert(strstr(err, want), "error '%s' lacks '%s'", err, want);
}

static int simtg_line_of(const char *text, const char *what) {
  const char *at = strstr(text, what);
  int line = 1;
  for (const char *p = text; p < at; p++) line += *p == '\n';
  return line;
}

Test(sim_target, default_file_equals_builtin) {
  NpuTarget f, d;
  char err[512];
  cr_assert_eq(npusim_target_load(&f, "targets/default.ini", err, sizeof err), 0, "%s", err);
  npusim_target_default(&d);
  cr_assert_str_eq(f.name, d.name);
  cr_assert_eq(memcmp(&f, &d, sizeof f), 0, "targets/default.ini differs from the built-in default");
  cr_assert_eq(f.dm_size, 2 << 20);
  cr_assert_eq(f.nu_macs_int8, 1024);
  cr_assert_eq(f.ddr_latency, 200);
}

Test(sim_target, override_a_value) {
  char *text = simtg_edit("macs_int8 =", "macs_int8 = 4096");
  NpuTarget t;
  char err[512];
  cr_assert_eq(npusim_target_parse(&t, text, "big.ini", err, sizeof err), 0, "%s", err);
  cr_assert_eq(t.nu_macs_int8, 4096);
  free(text);
}

Test(sim_target, unknown_key_names_file_and_line) {
  char *text = simtg_edit("overhead = 32", "overheat = 32");
  char want[160];
  snprintf(want, sizeof want, "my.ini:%d: unknown key 'overheat' in section [nu]",
           simtg_line_of(text, "overheat"));
  simtg_expect_error(text, want);
  free(text);
}

Test(sim_target, absurd_values) {
  char *a = simtg_edit("bandwidth = 64", "bandwidth = 0");
  char want[96];
  snprintf(want, sizeof want, "my.ini:%d: [ddr] bandwidth = 0 is out of range",
           simtg_line_of(a, "bandwidth = 0"));
  simtg_expect_error(a, want);
  char *b = simtg_edit("count = 4", "count = 1000");
  simtg_expect_error(b, "[vu] count = 1000 is out of range [1, 16]");
  char *c = simtg_edit("size = 2MiB", "size = lots");
  simtg_expect_error(c, "'lots' is not a valid value");
  char *d = simtg_edit("vector_bytes = 64", "vector_bytes = 48");
  simtg_expect_error(d, "vector_bytes = 48 must be a power of two");
  char *e = simtg_edit("latency = 200", "latency = -5");
  simtg_expect_error(e, "[ddr] latency = -5 is out of range");
  free(a), free(b), free(c), free(d), free(e);
}

Test(sim_target, missing_key_and_value) {
  char *a = simtg_edit("channels = 4", "; channels removed");
  simtg_expect_error(a, "my.ini: missing key 'channels' in section [dma]");
  char *b = simtg_edit("channels = 4", "channels =");
  simtg_expect_error(b, "missing value for [dma] channels");
  free(a), free(b);
}

Test(sim_target, duplicate_and_syntax) {
  char *a = simtg_edit("channels = 4", "channels = 4\nchannels = 2");
  simtg_expect_error(a, "duplicate key 'channels' in section [dma]");
  char *b = simtg_edit("channels = 4", "channels 4");
  simtg_expect_error(b, "syntax error");
  free(a), free(b);
}

/* A malformed section line is the error, at its line: the keys after it
 * stayed in the section before, and the message blamed that one ("unknown
 * key 'size' in section [ddr]", issue 39). */
Test(sim_target, a_malformed_section_is_blamed_on_itself) {
  char *a = simtg_edit("[dm]", "[dm");
  char want[160];
  snprintf(want, sizeof want, "my.ini:%d: syntax error (expected [section] or key = value)", simtg_line_of(a, "[dm\n"));
  NpuTarget t;
  char err[512];
  cr_assert_eq(npusim_target_parse(&t, a, "my.ini", err, sizeof err), -1);
  cr_expect_str_eq(err, want);
  /* an error of a key keeps its own line */
  char *b = simtg_edit("channels = 4", "channels = x");
  snprintf(want, sizeof want, "my.ini:%d: 'x' is not a valid value for an integer", simtg_line_of(b, "channels = x"));
  cr_assert_eq(npusim_target_parse(&t, b, "my.ini", err, sizeof err), -1);
  cr_expect_str_eq(err, want);
  free(a), free(b);
}

Test(sim_target, sizes_accept_suffixes) {
  char *a = simtg_edit("vm_size = 128KiB", "vm_size = 65536");
  NpuTarget t;
  char err[512];
  cr_assert_eq(npusim_target_parse(&t, a, "x.ini", err, sizeof err), 0, "%s", err);
  cr_assert_eq(t.vu_vm_size, 65536);
  free(a);
}

Test(sim_target, missing_file) {
  NpuTarget t;
  char err[512];
  cr_assert_eq(npusim_target_load(&t, "targets/no-such.ini", err, sizeof err), -1);
  cr_assert(strstr(err, "targets/no-such.ini: cannot open target file"), "%s", err);
}

Test(sim_target, simulator_refuses_an_absurd_target) {
  NpuTarget t;
  npusim_target_default(&t);
  t.cu_queue_depth = 0;
  char err[256];
  cr_assert_eq(npusim_target_check(&t, err, sizeof err), -1);
  cr_assert(strstr(err, "[cu] queue_depth = 0 is out of range"), "%s", err);
  cr_assert_null(npusim_new(&t));
  npusim_target_default(&t);
  cr_assert_eq(npusim_target_check(&t, err, sizeof err), 0);
}

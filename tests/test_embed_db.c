/* double_buffer of a bound loop's buffers where the loop around it (the
 * pass loop) runs a number of passes in the kernel's sizes: the copies
 * alternate by the pass's parity as they do for a constant count (trial
 * 44e: copy 0 was used in every pass, silently, and --strict passed). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"

#define RELU_SCHEDULE                                                  \
  "#pragma npu schedule(relu, relu_db)\n"                              \
  "#pragma npu split(i, 256, io, ir)\n"                                \
  "#pragma npu split(ir, 64, core, ii)\n"                              \
  "#pragma npu bind(core, vu)\n"                                       \
  "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"                     \
  "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"                    \
  "#pragma npu double_buffer(x_vm)\n"                                  \
  "#pragma npu double_buffer(y_vm)\n"                                  \
  "#pragma npu vectorize(ii)\n"

/* n in the sizes, its last pass a tail (77 and 600 are no multiple of 256) */
static const char *sized = "void relu(int n, const float x[n], float y[n]) {\n"
                           "  for (int i = 0; i < n; i++)\n"
                           "    s: y[i] = x[i] > 0 ? x[i] : 0.0f;\n"
                           "}\n"
                           "#pragma npu assume(relu, n >= 1, n <= 65536)\n"
                           "#pragma npu sizes(relu, n = 77)\n"
                           "#pragma npu sizes(relu, n = 600)\n" RELU_SCHEDULE;

static const char *constant = "#define n 768\n"
                              "void relu(const float x[n], float y[n]) {\n"
                              "  for (int i = 0; i < n; i++)\n"
                              "    s: y[i] = x[i] > 0 ? x[i] : 0.0f;\n"
                              "}\n" RELU_SCHEDULE;

/* The variant's C loads the next pass's region into the other copy and
 * computes on this pass's, and (run) its check passes: the constant
 * count's is run by the examples (leaky_relu, softmax_rows), so here its
 * text alone, beside the sized one's (the CPU budget). */
static void alternates_by_pass(const char *src, const char *next_pass_guard, bool run) {
  NpgSession *s = npg_open_string("relu.c", src, strlen(src));
  int v = npg_variant_index(s, "relu_db");
  cr_assert(v >= 0, "%s", npg_errors(s));
  const char *c = npg_emit_source(s, v);
  cr_assert(c, "%s", npg_errors(s));
  cr_expect(strstr(c, next_pass_guard), "%s", c);
  cr_expect(strstr(c, "x_vm_tok[(io + 1) % 2][core] = "), "%s", c);
  cr_expect(strstr(c, "npu_dma_wait(x_vm_tok[io % 2][core]);"), "%s", c);
  cr_expect(strstr(c, "y_vm_tok[io % 2][core] = "), "%s", c);
  /* copy 0 is loaded once, before the passes */
  const char *first = strstr(c, "x_vm_tok[0][core] = ");
  cr_expect(first && !strstr(first + 1, "x_vm_tok[0][core] = ") && !strstr(c, "does nothing here"), "%s", c);
  NpgCheckResult r;
  if (run) cr_expect(npg_check_orders(s, v, 1, NPG_ORDER_SOURCE, &r) && r.pass, "%s", r.message);
  npg_close(s);
}

Test(embed_db, bound_loop_copies_alternate_over_a_pass_count_in_the_sizes) {
  alternates_by_pass(sized, "if (io + 1 < n / 256 + (n % 256 > 0)) { /* the next pass's regions, into the other copies */", true);
}

Test(embed_db, bound_loop_copies_alternate_over_a_constant_pass_count) {
  alternates_by_pass(constant, "if (io + 1 < 3) { /* the next pass's regions, into the other copies */", false);
}

/* examples/mobilenet_block.c, the MobileNetV2 block of issue 43, with the
 * schedule `npugen tune --kernel block` wrote for it
 * (examples/mobilenet_block.sched): the program's variant is checked
 * against the block as written, bit-exact, in the simulator. Only that
 * variant: it runs each callee's tuned variant, so their code is checked
 * with it (the committed schedule, not a tune run: a test stays cheap). */
#include <criterion/criterion.h>

#include "npugen.h"

Test(mobilenet_block, the_tuned_schedule_is_bit_exact_with_its_intermediates_on_chip) {
  NpgSession *s = npg_open_file("examples/mobilenet_block.c");
  cr_assert(npg_error_count(s) == 0, "%s", npg_errors(s));
  cr_assert(npg_add_schedule_file(s, "examples/mobilenet_block.sched") && npg_error_count(s) == 0, "%s",
            npg_errors(s));
  int v = npg_variant_index(s, "mobilenet_block_block_tuned");
  cr_assert_geq(v, 0);
  NpgCheckResult r;
  cr_assert(npg_check(s, v, 1, &r) && r.pass, "%s", r.message);
  cr_expect_eq(r.max_error, 0.0);
  cr_expect_gt(r.sim_cycles, 0, "%s", r.summary);
  /* e, d and j stay on chip: the DDR traffic is the block's inputs, x a
   * second time for the residual add, and y, 18,176 bytes as tuned (with
   * every intermediate in DDR: 59,136) */
  cr_expect_leq(r.ddr_bytes, 18176, "%s", r.summary);
  cr_expect_lt(r.ddr_bytes, r.dma_bytes, "%s", r.summary);
  npg_close(s);
}

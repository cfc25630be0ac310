/* The C API and NULL (issue 39): every entry point of include/npugen.h
 * refuses a NULL argument (its failure value, and an error in the session
 * when there is one) instead of crashing, and a second npg_sched_end on one
 * handle is an error, not a double free. Eleven of these calls crashed. */
#include <criterion/criterion.h>
#include <string.h>

#include "npugen.h"

static const char kernel[] = "void k(const int A[8], int B[8]) {\n  for (int i = 0; i < 8; i++) s: B[i] = A[i];\n}\n";

static NpgSession *open_ok(void) {
  NpgSession *s = npg_open_string("k.c", kernel, strlen(kernel));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  return s;
}

/* The session's errors hold want. */
static void said(NpgSession *s, const char *want) {
  const char *e = npg_errors(s);
  cr_expect(strstr(e, want), "want '%s' in:\n%s", want, e);
}

Test(api_null, a_null_session_gives_failure_values) {
  NpgCheckResult r;
  NpgSimResult sr;
  cr_expect_eq(npg_error_count(NULL), 1);
  cr_expect_str_eq(npg_errors(NULL), "error: the session is NULL\n");
  cr_expect_eq(npg_variant_count(NULL), 0);
  cr_expect_null(npg_variant_name(NULL, 0));
  cr_expect_eq(npg_variant_index(NULL, "k"), -1);
  char msg[128] = "x";
  npg_variant_unknown(NULL, "k", msg, sizeof msg);
  cr_expect_str_eq(msg, "npg_variant_unknown: the session is NULL");
  npg_variant_unknown(NULL, "k", NULL, 0);
  cr_expect_null(npg_emit_source(NULL, 0));
  cr_expect_null(npg_emit_header(NULL, 0));
  cr_expect_null(npg_dump_ir(NULL, 0));
  cr_expect_null(npg_dump_ir_lowered(NULL, 0));
  cr_expect_null(npg_variant_schedule(NULL, 0));
  cr_expect_null(npg_dump_ir_steps(NULL, 0));
  cr_expect_not(npg_add_schedule_file(NULL, "s.c"));
  cr_expect_not(npg_add_schedule_string(NULL, "s.c", "", 0));
  cr_expect_null(npg_sched_begin(NULL, "k", "v"));
  cr_expect_not(npg_check(NULL, 0, 1, &r));
  cr_expect_str_eq(r.message, "the session is NULL");
  cr_expect_not(npg_check_orders(NULL, 0, 1, 1, &r));
  npg_set_check_orders(NULL, 1);
  cr_expect_not(npg_set_target(NULL, "targets/small.ini"));
  cr_expect_null(npg_target_name(NULL));
  npg_set_assume_no_alias(NULL, true);
  npg_set_trace(NULL, "t.json");
  npg_set_check_limits(NULL, 1, 1);
  npg_set_check_cpu_limit(NULL, 1);
  cr_expect_not(npg_simulate(NULL, 0, 1, &sr));
  cr_expect_null(npg_jit_variant(NULL, 0));
  cr_expect_null(npg_jit_reference(NULL, 0));
  cr_expect_str_eq(npg_jit_error(NULL), "the JIT handle is NULL");
  cr_expect_not(npg_jit_run(NULL, NULL));
  cr_expect_eq(npg_jit_sim_cycles(NULL), 0);
  npg_jit_free(NULL);
  npg_close(NULL);
}

Test(api_null, null_arguments_of_a_session_are_errors) {
  NpgSession *s = npg_open_string(NULL, kernel, strlen(kernel));
  said(s, "npg_open_string: name is NULL");
  npg_close(s);
  s = npg_open_string("k.c", NULL, 4);
  said(s, "npg_open_string: src is NULL");
  npg_close(s);
  s = npg_open_file(NULL);
  said(s, "npg_open_file: path is NULL");
  npg_close(s);
  s = npg_open_string_for_target(NULL, kernel, strlen(kernel), NULL);
  cr_expect_gt(npg_error_count(s), 0);
  npg_close(s);
  s = npg_open_file_for_target(NULL, NULL);
  cr_expect_gt(npg_error_count(s), 0);
  npg_close(s);

  s = open_ok();
  cr_expect_eq(npg_variant_index(s, NULL), -1);
  char msg[128];
  npg_variant_unknown(s, NULL, msg, sizeof msg);
  cr_expect_str_eq(msg, "npg_variant_unknown: name is NULL");
  cr_expect_not(npg_add_schedule_file(s, NULL));
  said(s, "npg_add_schedule_file: path is NULL");
  cr_expect_not(npg_add_schedule_string(s, NULL, "", 0));
  said(s, "npg_add_schedule_string: name is NULL");
  cr_expect_not(npg_add_schedule_string(s, "s.c", NULL, 3));
  said(s, "npg_add_schedule_string: src is NULL");
  cr_expect_null(npg_sched_begin(s, NULL, "v"));
  said(s, "npg_sched_begin: kernel is NULL");
  cr_expect_null(npg_sched_begin(s, "k", NULL));
  said(s, "npg_sched_begin: variant is NULL");
  cr_expect_not(npg_check(s, 0, 1, NULL));
  said(s, "npg_check: the result is NULL");
  cr_expect_not(npg_check_orders(s, 0, 1, 1, NULL));
  cr_expect_not(npg_simulate(s, 0, 1, NULL));
  said(s, "npg_simulate: the result is NULL");
  cr_expect_not(npg_set_target(s, NULL));
  said(s, "npg_set_target: path is NULL");
  npg_set_trace(s, NULL); /* documented: no trace */
  NpgJit *j = npg_jit_variant(s, 0);
  cr_assert_not_null(j);
  cr_expect_not(npg_jit_run(j, NULL));
  cr_expect_str_eq(npg_jit_error(j), "npg_jit_run: args is NULL");
  npg_jit_free(j);
  char err[64];
  char *all = npg_intrinsics_describe(NULL, NULL, NULL, 0); /* every intrinsic: no reason needed */
  cr_expect_not_null(all);
  free(all);
  cr_expect_null(npg_intrinsics_describe("npu_no_such", NULL, NULL, 0));
  cr_expect_null(npg_intrinsics_describe("npu_no_such", NULL, err, sizeof err));
  npg_close(s);
}

/* Each schedule call with each name NULL: refused, naming the call and
 * the argument; the handle then does nothing, as after any refusal. */
Test(api_null, null_names_of_a_schedule_step_are_errors) {
  static const struct {
    const char *want;
  } wants[] = {{"npg_sched_split: outer is NULL"},
               {"npg_sched_fuse: inner is NULL"},
               {"npg_sched_merge: second is NULL"},
               {"npg_sched_fission: after is NULL"},
               {"npg_sched_reorder: loops is NULL"},
               {"npg_sched_reorder: an element of loops is NULL"},
               {"npg_sched_tile: yi is NULL"},
               {"npg_sched_unroll: loop is NULL"},
               {"npg_sched_vectorize: loop is NULL"},
               {"npg_sched_parallel: loop is NULL"},
               {"npg_sched_loop_partition: points is NULL"},
               {"npg_sched_compute_at: statement is NULL"},
               {"npg_sched_reverse_compute_at: loop is NULL"},
               {"npg_sched_compute_inline: stmt is NULL"},
               {"npg_sched_reverse_compute_inline: stmt is NULL"},
               {"npg_sched_decompose_reduction: statement is NULL"},
               {"npg_sched_annotate_int: key is NULL"},
               {"npg_sched_annotate_str: value is NULL"},
               {"npg_sched_step: call is NULL"},
               {"npg_sched_transform_layout: map is NULL"}};
  const char *two[] = {"i", NULL};
  for (size_t c = 0; c < sizeof wants / sizeof wants[0]; c++) {
    NpgSession *s = open_ok();
    NpgSched *h = npg_sched_begin(s, "k", "v");
    cr_assert_not_null(h, "%s", npg_errors(s));
    bool ok = true;
    switch (c) {
    case 0: ok = npg_sched_split(h, "i", 2, NULL, "ii"); break;
    case 1: ok = npg_sched_fuse(h, "i", NULL, "f"); break;
    case 2: ok = npg_sched_merge(h, "i", NULL); break;
    case 3: ok = npg_sched_fission(h, "i", NULL); break;
    case 4: ok = npg_sched_reorder(h, NULL, 2); break;
    case 5: ok = npg_sched_reorder(h, two, 2); break;
    case 6: ok = npg_sched_tile(h, "i", "j", 2, 2, "io", "jo", "ii", NULL); break;
    case 7: ok = npg_sched_unroll(h, NULL, 0); break;
    case 8: ok = npg_sched_vectorize(h, NULL); break;
    case 9: ok = npg_sched_parallel(h, NULL); break;
    case 10: ok = npg_sched_loop_partition(h, "i", NULL, 1); break;
    case 11: ok = npg_sched_compute_at(h, NULL, "i"); break;
    case 12: ok = npg_sched_reverse_compute_at(h, "s", NULL); break;
    case 13: ok = npg_sched_compute_inline(h, NULL); break;
    case 14: ok = npg_sched_reverse_compute_inline(h, NULL); break;
    case 15: ok = npg_sched_decompose_reduction(h, NULL, "i"); break;
    case 16: ok = npg_sched_annotate_int(h, "i", NULL, 1); break;
    case 17: ok = npg_sched_annotate_str(h, "i", "key", NULL); break;
    case 18: ok = npg_sched_step(h, NULL); break;
    case 19: ok = npg_sched_transform_layout(h, "A", "(i)", NULL, NULL); break;
    }
    cr_expect_not(ok, "%s", wants[c].want);
    said(s, wants[c].want);
    cr_expect_not(npg_sched_parallel(h, "i"), "a refused handle does nothing more");
    cr_expect_eq(npg_sched_end(h), -1);
    npg_close(s);
  }
}

Test(api_null, a_second_sched_end_is_an_error) {
  NpgSession *s = open_ok();
  NpgSched *h = npg_sched_begin(s, "k", "v");
  cr_assert(npg_sched_split(h, "i", 2, "io", "ii"), "%s", npg_errors(s));
  int v = npg_sched_end(h);
  cr_expect_eq(v, 1, "%s", npg_errors(s));
  cr_expect_eq(npg_sched_end(h), -1);
  said(s, "npg_sched_end: the schedule handle was ended already");
  cr_expect_not(npg_sched_parallel(h, "io"));
  said(s, "npg_sched_parallel: the schedule handle was ended (npg_sched_end)");
  cr_expect_eq(npg_variant_count(s), 2, "the variant stays");
  NpgCheckResult r;
  cr_expect(npg_check(s, 1, 1, &r), "%s", r.message);
  npg_close(s); /* frees the handle, once */
}

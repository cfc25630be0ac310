/* The lowering phase (lower/, docs/lowering.md) and its static check of
 * the DMA synchronisation: every NPU example's lowered IR passes the check,
 * and the check finds each wait deleted from it, a start moved before the
 * last read of its destination, a copy out started before the write of its
 * source, and more DMAs in flight than a target allows. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "jit/session.h"
#include "frontend/frontend.h"
#include "ir/lowered_module.h"
#include "lower/lower.h"
#include "lower/module.h"
#include "lower/ref_lower.h"
#include "npugen.h"
#include "tests/test_sched_util.h"

static const char *const npu_examples[] = {
    "examples/matmul_npu.c",  "examples/matmul_tail_npu.c", "examples/conv2d_npu.c",   "examples/conv2d_fused_npu.c",
    "examples/dwconv_npu.c",  "examples/softmax_npu.c",     "examples/layernorm_npu.c", "examples/matmul_sized_npu.c",
};
enum { NEXAMPLES = sizeof npu_examples / sizeof npu_examples[0] };

/* The tests over every example's lowered IR run one example each (each
 * opens, schedules and lowers its example: well under a second). */
static int example_ids[NEXAMPLES] = {0, 1, 2, 3, 4, 5, 6, 7};
ParameterizedTestParameters(lower, each_example_passes_the_check) { return cr_make_param_array(int, example_ids, NEXAMPLES); }
ParameterizedTestParameters(lower, a_deleted_wait_is_found_in_each_example) { return cr_make_param_array(int, example_ids, NEXAMPLES); }
ParameterizedTestParameters(lower, a_moved_start_is_found_in_each_example) { return cr_make_param_array(int, example_ids, NEXAMPLES); }

static NpgSession *open_example(const char *path) {
  NpgSession *s = npg_open_file(path);
  cr_assert_not_null(s, "%s", path);
  cr_assert_eq(npg_errors(s)[0], '\0', "%s: %s", path, npg_errors(s));
  return s;
}

static Kernel *lowered(Arena *a, NpgSession *s, int v) { return lower_kernel(a, s->v[v].ir, &s->target); }

/* ---- finding and moving lowered nodes ---- */

/* The link (in its list) to the nth node that `is` accepts, counting from 0
 * in program order; NULL past the last. */
typedef bool (*Pick)(const Stmt *s);

static Stmt **nth_link(Stmt **link, Pick is, int *n) {
  for (; *link; link = &(*link)->next) {
    Stmt *s = *link;
    if (is(s) && (*n)-- == 0) return link;
    Stmt **in = NULL;
    if (s->low) continue;
    if (s->kind == ST_BLOCK) in = nth_link(&s->body, is, n);
    else if (s->kind == ST_FOR) in = nth_link(&s->body->body, is, n);
    else if (s->kind == ST_IF) {
      in = nth_link(&s->then_s->body, is, n);
      if (!in && s->else_s) in = nth_link(&s->else_s->body, is, n);
    }
    if (in) return in;
  }
  return NULL;
}

static Stmt **find(Kernel *k, Pick is, int n) { return nth_link(&k->body->body, is, &n); }

static bool is_wait(const Stmt *s) { return s->low && s->low->kind == LOW_DMA_WAIT; }
static bool is_start(const Stmt *s) { return s->low && s->low->kind == LOW_DMA_START; }

static bool check(const Kernel *k, int64_t max_tokens, char *why, size_t n) {
  why[0] = '\0';
  return lower_check_sync(k, max_tokens, why, n);
}

/* The lowered IR k verifies, and its clone prints as it does. */
static void verifies_and_clones(Arena *a, const Kernel *k, const char *file, const char *variant) {
  DiagList d;
  diag_init(&d);
  cr_expect(ir_verify_kernel(k, &d, file), "%s %s", file, variant);
  diag_free(&d);
  StrBuf one, two;
  sb_init(&one);
  sb_init(&two);
  ir_print_kernel(&one, k);
  ir_print_kernel(&two, ir_clone_kernel(a, k));
  cr_expect_str_eq(two.data, one.data, "%s %s: the clone prints otherwise", file, variant);
  sb_free(&one);
  sb_free(&two);
}

/* Every variant of every NPU example: the lowered IR verifies, clones to
 * the same text and passes the check. */
ParameterizedTest(int *example, lower, each_example_passes_the_check) {
  const char *file = npu_examples[*example];
  NpgSession *s = open_example(file);
  for (int v = 0; v < npg_variant_count(s); v++) {
    Arena a;
    arena_init(&a, 0);
    Kernel *k = lowered(&a, s, v);
    char why[600];
    cr_expect(check(k, s->target.dma_max_tokens, why, sizeof why), "%s %s: %s", file, npg_variant_name(s, v), why);
    verifies_and_clones(&a, k, file, npg_variant_name(s, v));
    arena_free(&a);
  }
  npg_close(s);
}

/* A change that breaks a lowered IR at its nth node of some kind: false
 * when it does not apply there. */
typedef bool (*Break)(Kernel *k, int nth);

/* Each variant of example e, broken by brk at each node `is` accepts in
 * turn (on a clone of its lowered IR), fails the check with a message
 * that says one of words; how many were broken. */
static int each_broken(int e, Pick is, Break brk, const char *const *words) {
  NpgSession *s = open_example(npu_examples[e]);
  int broken = 0;
  for (int v = 0; v < npg_variant_count(s); v++)
    for (int n = 0;; n++) {
      Arena a;
      arena_init(&a, 0);
      Kernel *k = ir_clone_kernel(&a, s->v[v].low);
      bool there = find(k, is, n);
      if (there && brk(k, n)) {
        broken++;
        char why[600];
        if (check(k, s->target.dma_max_tokens, why, sizeof why)) {
          StrBuf text;
          sb_init(&text);
          ir_print_kernel(&text, k);
          cr_expect(false, "%s %s: node %d changed, not found:\n%s", npu_examples[e], npg_variant_name(s, v), n, text.data);
          sb_free(&text);
        }
        bool said = false;
        for (int w = 0; words[w]; w++) said |= strstr(why, words[w]) != NULL;
        cr_expect(said, "%s", why);
      }
      arena_free(&a);
      if (!there) break;
    }
  npg_close(s);
  return broken;
}

static bool delete_wait(Kernel *k, int nth) {
  Stmt **link = find(k, is_wait, nth);
  *link = (*link)->next;
  return true;
}

/* Each wait of each lowered variant of each example, deleted alone, is
 * found; every example has one. */
ParameterizedTest(int *example, lower, a_deleted_wait_is_found_in_each_example) {
  static const char *const words[] = {"before the wait", "never waited for", "started again", "while the DMA", NULL};
  cr_expect_gt(each_broken(*example, is_wait, delete_wait, words), 0, "%s: no wait", npu_examples[*example]);
}

static NpgSession *matmul_nu(int *v) {
  NpgSession *s = open_example("examples/matmul_npu.c");
  *v = npg_variant_index(s, "matmul_nu");
  cr_assert_geq(*v, 0);
  return s;
}

/* The start of the next B tile, moved out of its `if` to just before the
 * matmul (so into the copy the matmul reads), is found. */
static bool is_prefetch_b(const Stmt *s) {
  return is_start(s) && s->low->at_value && !strcmp(ir_nest_leaf(s->low->copy)->lhs->buf->name, "B_wb");
}
static bool is_matmul(const Stmt *s) { return s->kind == ST_FOR && s->intrin; }

/* Unlinks the statement at link and puts it before the first matmul. */
static void move_before_matmul(Kernel *k, Stmt **link) {
  Stmt *moved = *link;
  *link = moved->next;
  Stmt **matmul = find(k, is_matmul, 0);
  cr_assert_not_null(matmul);
  moved->next = *matmul;
  *matmul = moved;
}

Test(lower, a_start_moved_before_the_last_read_of_its_destination_is_found) {
  int v;
  NpgSession *s = matmul_nu(&v);
  Arena a;
  arena_init(&a, 0);
  Kernel *k = lowered(&a, s, v);
  char why[600];
  cr_assert(check(k, s->target.dma_max_tokens, why, sizeof why), "%s", why);
  Stmt **start = find(k, is_prefetch_b, 1); /* 0 is the first tile's, before the loop */
  cr_assert_not_null(start);
  move_before_matmul(k, start);
  cr_assert(!check(k, s->target.dma_max_tokens, why, sizeof why));
  cr_expect_str_eq(why, "read of B_wb at line 13 (update) before the wait for the DMA that fills it (B_wb_load, line "
                        "24, token B_wb_tok)");
  arena_free(&a);
  npg_close(s);
}

/* Every link of the lowered program, in program order (a statement before
 * the ones under it). */
typedef struct {
  Stmt **link[4096];
  int n;
} Links;

static void all_links(Stmt **link, Links *l) {
  for (; *link; link = &(*link)->next) {
    Stmt *s = *link;
    cr_assert_lt(l->n, 4096);
    l->link[l->n++] = link;
    if (s->low) continue;
    if (s->kind == ST_BLOCK) all_links(&s->body, l);
    else if (s->kind == ST_FOR) all_links(&s->body->body, l);
    else if (s->kind == ST_IF) {
      all_links(&s->then_s->body, l);
      if (s->else_s) all_links(&s->else_s->body, l);
    }
  }
}

/* An assignment that reads b (ctx: the buffer, then whether found). */
typedef struct {
  const Buffer *b;
  bool found;
} Reads;

static bool find_read(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Reads *r = ctx;
  if (s->kind == ST_ASSIGN && !s->low)
    r->found |= ir_expr_uses(s->rhs, NULL, r->b) || (s->op != OP_NONE && s->lhs->buf == r->b);
  return !r->found;
}

/* s reads b: an assignment, or a tensorized nest (one instruction). */
static bool reads(const Stmt *s, const Buffer *b) {
  if (s->low || !(s->kind == ST_ASSIGN || (s->kind == ST_FOR && s->intrin))) return false;
  Reads r = {b, false};
  ir_walk_one(s, find_read, &r);
  return r.found;
}

/* Start number `nth` of k, moved (alone: its view, guard and wait stay) to
 * just before the next statement that reads its destination; false when
 * nothing after it reads it (a copy out to DDR). */
static bool move_start_before_next_read(Kernel *k, int nth) {
  Links l = {.n = 0};
  all_links(&k->body->body, &l);
  int at = -1, seen = 0;
  for (int i = 0; i < l.n && at < 0; i++)
    if (is_start(*l.link[i]) && seen++ == nth) at = i;
  cr_assert_geq(at, 0);
  Stmt *start = *l.link[at];
  const Buffer *dst = ir_nest_leaf(start->low->copy)->lhs->buf;
  for (int j = at + 1; j < l.n; j++) {
    if (!reads(*l.link[j], dst)) continue;
    Stmt **before = l.link[j];
    *l.link[at] = start->next;       /* unlinked: the links after it in its list are the same pointers */
    if (before == &start->next) before = l.link[at]; /* the reader came right after it */
    start->next = *before;
    *before = start;
    return true;
  }
  return false;
}

/* Each start of each lowered variant of each example, moved alone before
 * the next read of its destination (past the last read of that copy's old
 * contents, and before the wait the read needs), is found; every example
 * has one. A first load, before its loop, moved into the loop meets the
 * load ahead on its token: found as started again. */
ParameterizedTest(int *example, lower, a_moved_start_is_found_in_each_example) {
  static const char *const words[] = {"before the wait", "started again", NULL};
  cr_expect_gt(each_broken(*example, is_start, move_start_before_next_read, words), 0, "%s: no start was moved",
               npu_examples[*example]);
}

/* The copy out of C_ob, moved before the matmul that writes it, is found. */
static bool is_store_c(const Stmt *s) {
  return is_start(s) && !strcmp(ir_nest_leaf(s->low->copy)->rhs->buf->name, "C_ob");
}

Test(lower, a_copy_out_moved_before_the_write_of_its_source_is_found) {
  int v;
  NpgSession *s = matmul_nu(&v);
  Arena a;
  arena_init(&a, 0);
  Kernel *k = lowered(&a, s, v);
  Stmt **store = find(k, is_store_c, 0);
  cr_assert_not_null(store);
  move_before_matmul(k, store);
  char why[600];
  cr_assert(!check(k, s->target.dma_max_tokens, why, sizeof why));
  cr_expect(strstr(why, "of C_ob at line 11 (init)") && strstr(why, "(C_ob_store, line 25, token C_ob_tok[0])"), "%s", why);
  arena_free(&a);
  npg_close(s);
}

/* matmul_nu keeps four DMAs in flight: A's load ahead, B's, and two
 * copies out of C. */
Test(lower, more_dmas_in_flight_than_the_target_allows_are_found) {
  int v;
  NpgSession *s = matmul_nu(&v);
  Arena a;
  arena_init(&a, 0);
  Kernel *k = lowered(&a, s, v);
  char why[600];
  cr_expect(check(k, 4, why, sizeof why), "%s", why);
  cr_expect(!check(k, 3, why, sizeof why));
  cr_expect(strstr(why, "4 DMAs in flight at line") && strstr(why, "the target allows 3"), "%s", why);
  arena_free(&a);
  npg_close(s);
}

/* A kernel whose first nest writes T through a double-buffered cache (its
 * copies out waited for after the nest) and whose second reads rows
 * [0, rows) of T from DDR. */
static NpgSession *two_stages(int rows, int *v) {
  char src[1024];
  snprintf(src, sizeof src,
           "#include <stdint.h>\n"
           "void two(const int32_t A[64][64], int32_t T[64][64], int32_t B[64][64]) {\n"
           "  for (int i = 0; i < 64; i++)\n"
           "    for (int j = 0; j < 64; j++)\n"
           "      s1: T[i][j] = A[i][j] + 1;\n"
           "  for (int r = 0; r < %d; r++)\n"
           "    for (int c = 0; c < 64; c++)\n"
           "      s2: B[r][c] = T[r][c] * 2;\n"
           "}\n"
           "#pragma npu schedule(two, two_dm)\n"
           "#pragma npu split(i, 16, io, ii)\n"
           "#pragma npu cache_write(T, dm, io, T_dm)\n"
           "#pragma npu double_buffer(T_dm)\n",
           rows);
  NpgSession *s = npg_open_string("two.c", src, strlen(src));
  cr_assert_eq(npg_errors(s)[0], '\0', "%s", npg_errors(s));
  *v = npg_variant_index(s, "two_dm");
  cr_assert_geq(*v, 0);
  return s;
}

/* The first nest's last copy out (rows 48..63 of T, token T_dm_tok[1])
 * not waited for: the DDR read of the second nest is found where it reads
 * those rows, and not where it reads only rows before them. */
static void last_store_unwaited(int rows, char *why, size_t n) {
  int v;
  NpgSession *s = two_stages(rows, &v);
  Arena a;
  arena_init(&a, 0);
  Kernel *k = lowered(&a, s, v);
  cr_assert(check(k, s->target.dma_max_tokens, why, n), "%s", why);
  Stmt **last = find(k, is_wait, 2); /* in the nest, then after it: tokens 0 and 1 */
  cr_assert_not_null(last);
  const DmaToken *t = &(*last)->low->token;
  cr_assert(!strcmp(t->base, "T_dm_tok") && t->nidx == 1 && t->idx[0]->kind == EX_INT && t->idx[0]->ival == 1);
  *last = (*last)->next;
  cr_assert(!check(k, s->target.dma_max_tokens, why, n));
  arena_free(&a);
  npg_close(s);
}

Test(lower, a_ddr_read_before_the_wait_for_the_copy_out_that_writes_it_is_found) {
  char why[600];
  last_store_unwaited(64, why, sizeof why);
  cr_expect_str_eq(why, "read of T[0..63][0..63] at line 8 (s2) before the wait for the DMA that writes it (T_dm_store, "
                        "line 12, token T_dm_tok[1])");
  last_store_unwaited(48, why, sizeof why); /* rows 0..47: not those in flight */
  cr_expect_str_eq(why, "the DMA of T_dm_store (line 12, token T_dm_tok[1]) is never waited for");
}

/* Lowered nodes print, verify and clone like every other node. */
Test(lower, the_lowered_ir_prints_verifies_and_clones) {
  int v;
  NpgSession *s = matmul_nu(&v);
  const char *dump = npg_dump_ir_lowered(s, v);
  cr_assert_not_null(dump);
  cr_expect(strstr(dump, "dma_start(A_ib_tok, A_ib_load: A_ib[A_ib_0][A_ib_1] <- A[(io + 1) * 128 + A_ib_0][A_ib_1]"),
            "%s", dump);
  cr_expect(strstr(dump, "dma_wait(C_ob_tok[jo % 2]) if jo >= 2"), "%s", dump);
  cr_expect(strstr(dump, "view B_wb_next = B_wb_db[(jo + 1) % 2]"), "%s", dump);
  cr_expect(strstr(dump, "for jo in 0 .. < 8 step 1 in source order:"), "%s", dump);
  Arena a;
  arena_init(&a, 0);
  Kernel *k = lowered(&a, s, v);
  verifies_and_clones(&a, k, "k.c", npg_variant_name(s, v));
  arena_free(&a);
  npg_close(s);
}

/* A copy left synchronous is a start and its wait, sharing a token. */
Test(lower, a_synchronous_copy_is_a_start_and_its_wait) {
  const char *src = "void k(const int8_t A[64][64], int32_t C[64][64]) {\n"
                    "  for (int i = 0; i < 64; i++)\n"
                    "    for (int j = 0; j < 64; j++)\n"
                    "      s: C[i][j] = A[i][j] + 1;\n"
                    "}\n"
                    "#pragma npu schedule(k, v)\n"
                    "#pragma npu split(i, 16, io, ii)\n"
                    "#pragma npu cache_read(A, dm, io, A_dm)\n";
  char full[1024];
  snprintf(full, sizeof full, "#include <stdint.h>\n%s", src);
  NpgSession *s = npg_open_string("k.c", full, strlen(full));
  cr_assert_eq(npg_errors(s)[0], '\0', "%s", npg_errors(s));
  const char *dump = npg_dump_ir_lowered(s, npg_variant_index(s, "v"));
  cr_expect(strstr(dump, "dma_start(%dma1, A_dm_load: ") && strstr(dump, "dma_wait(%dma1)"), "%s", dump);
  npg_close(s);
}

static bool is_onchip_decl_past_base(const Stmt *s) {
  return !s->low && s->kind == ST_DECL && s->buf && buffer_onchip(s->buf) && s->buf->offset;
}

/* An on-chip buffer declared past its scope's base gets its place
 * (Stmt.scope_at) where the DMA pass lowers its declaration, with the
 * tidying pass or without it; the check refuses a declaration without it
 * (the C would put it at the base, over A_dm). */
Test(lower, an_onchip_declaration_says_where_in_its_scope_it_lives) {
  const char *src = "#include <stdint.h>\n"
                    "void k(const int8_t A[64][64], const int8_t B[64][64], int32_t C[64][64]) {\n"
                    "  for (int i = 0; i < 64; i++)\n"
                    "    for (int j = 0; j < 64; j++)\n"
                    "      s: C[i][j] = A[i][j] + B[i][j];\n"
                    "}\n"
                    "#pragma npu schedule(k, v)\n"
                    "#pragma npu split(i, 16, io, ii)\n"
                    "#pragma npu cache_read(A, dm, io, A_dm)\n"
                    "#pragma npu cache_read(B, dm, io, B_dm)\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_errors(s)[0], '\0', "%s", npg_errors(s));
  int v = npg_variant_index(s, "v");
  Arena a;
  arena_init(&a, 0);
  Kernel *untidied = lower_kernel_as_written(&a, s->v[v].ir, &s->target);
  Stmt **decl = find(untidied, is_onchip_decl_past_base, 0);
  cr_assert_not_null(decl);
  cr_expect_not_null((*decl)->scope_at, "%s without the tidying pass", (*decl)->buf->name);
  Kernel *k = lowered(&a, s, v);
  char why[600];
  cr_assert(check(k, s->target.dma_max_tokens, why, sizeof why), "%s", why);
  decl = find(k, is_onchip_decl_past_base, 0);
  cr_assert_not_null(decl);
  cr_assert_not_null((*decl)->scope_at);
  (*decl)->scope_at = NULL;
  cr_assert(!check(k, s->target.dma_max_tokens, why, sizeof why));
  cr_expect_str_eq(why, "the declaration of B_dm (line 10) has no place in dm (byte 1024): it would print at the "
                        "scope's base");
  arena_free(&a);
  npg_close(s);
}

static bool is_lowered_guard(const Stmt *s) { return !s->low && s->kind == ST_IF && s->note; }
static bool is_both_copies(const Stmt *s) { return s->low && s->low->kind == LOW_VIEW && !s->low->decl && !s->low->view_copy; }
static bool is_call(const Stmt *s) { return !s->low && s->kind == ST_BLOCK && s->call; }
static bool is_guarded_call(const Stmt *s) { return s->kind == ST_FOR && s->intrin_call && s->intrin_call->guard; }

/* What the printer once worked out while printing is in the lowered IR,
 * decided where the node is made: a guard of counters printed as it is
 * (no hooks), the comment saying where an on-chip buffer lives, the cast
 * a call's argument needs, the line the check's C runs where an
 * intrinsic falls back. */
Test(lower, the_lowered_ir_holds_what_the_printer_once_decided) {
  Arena a;
  arena_init(&a, 0);
  int v;
  NpgSession *s = matmul_nu(&v);
  Kernel *k = lowered(&a, s, v);
  Stmt **guard = find(k, is_lowered_guard, 0), **view = find(k, is_both_copies, 0);
  cr_assert(guard && view);
  cr_expect((*guard)->plain_cond, "%s", (*guard)->note);
  cr_expect_str_eq((*view)->low->scope_note, "nu_ib, bytes [0, 262144): two copies of 131072 bytes");
  npg_close(s);
  s = open_example("examples/program_npu.c");
  k = lowered(&a, s, npg_variant_index(s, "layer"));
  Stmt **call = find(k, is_call, 1); /* add_bias(acc, ...): acc is not const */
  cr_assert(call && (*call)->arg_casts, "%s", call ? (*call)->call->name : "no call");
  cr_expect_str_eq((*call)->arg_casts[0], "(const int32_t (*)[128])");
  cr_expect_null((*call)->arg_casts[1]);
  char why[600];
  cr_assert(check(k, s->target.dma_max_tokens, why, sizeof why), "%s", why);
  const char **casts = (*call)->arg_casts;
  (*call)->arg_casts = NULL; /* a call block some pass made without lower_call */
  cr_assert(!check(k, s->target.dma_max_tokens, why, sizeof why));
  cr_expect_str_eq(why, "the call of add_bias (line 47) was not lowered: its arguments' casts are not decided");
  (*call)->arg_casts = casts;
  npg_close(s);
  s = open_example("examples/conv2d_fused_npu.c");
  k = lowered(&a, s, npg_variant_index(s, "fused"));
  Stmt **guarded = find(k, is_guarded_call, 0);
  cr_assert_not_null(guarded);
  cr_expect(strstr((*guarded)->intrin_call->fallback_mark, "npu_cu_fallback(\"npu_vu_"), "%s",
            (*guarded)->intrin_call->fallback_mark);
  arena_free(&a);
  npg_close(s);
}

/* A parameter never used and a local never read are `unused` nodes of
 * the lowered IR (lower/unused.c), emitted as `(void)NAME;`. */
Test(lower, names_never_read_are_unused_nodes) {
  const char *src = "#include <stdint.h>\n"
                    "void k(const int8_t A[16][16], int32_t C[16][16], int s) {\n"
                    "  int w = 3;\n"
                    "  for (int i = 0; i < 16; i++) {\n"
                    "    int32_t loc[2];\n"
                    "    for (int j = 0; j < 16; j++)\n"
                    "      C[i][j] = A[i][j] + 1;\n"
                    "  }\n"
                    "}\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_errors(s)[0], '\0', "%s", npg_errors(s));
  const char *dump = npg_dump_ir_lowered(s, 0);
  cr_expect(strstr(dump, "\n  unused s  # line 2\n") && strstr(dump, "\n  unused w  # line 3\n") &&
                strstr(dump, "\n    unused loc  # line 5\n") && !strstr(dump, "unused A") && !strstr(dump, "unused C"),
            "%s", dump);
  const char *c = npg_emit_source(s, 0);
  cr_assert_not_null(c);
  cr_expect(strstr(c, "{\n  (void)s;\n  int w = 3;\n  (void)w;\n") && strstr(c, "int32_t loc[2];\n    (void)loc;\n"), "%s",
            c);
  npg_close(s);
}

/* npugen emit --dump-ir=lowered prints every start and wait with its
 * token, for every variant. */
Test(lower, the_command_prints_the_lowered_ir) {
  const char *bin = getenv("NPUGEN") ? getenv("NPUGEN") : "build/npugen";
  char cmd[512], out[65536];
  snprintf(cmd, sizeof cmd, "%s emit examples/matmul_npu.c --dump-ir=lowered 2>&1", bin);
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  size_t got = fread(out, 1, sizeof out - 1, p);
  out[got] = '\0';
  cr_expect_eq(pclose(p), 0, "%s", out);
  cr_expect(strstr(out, "kernel matmul(") && strstr(out, "kernel matmul_nu("), "%s", out);
  cr_expect(strstr(out, "\n          dma_wait(C_ob_tok[jo % 2]) if jo >= 2 /* its copy out two iterations ago */  # line 25\n"), "%s", out);
  cr_expect(strstr(out, "\n        dma_wait(C_ob_tok[0]) /* the copy out of jo = 6, the iteration before the last */  # line 10\n"), "%s", out);
}

/* Whether a tensorized nest still matches its intrinsic is decided by the
 * lowering (lower/intrinsic.c), which copies the nest with its call or
 * the reason it no longer matches; the scheduled IR keeps neither. */
static const char tensorized[] =
    "#include <stdint.h>\n"
    "void mm(const int8_t A[64][64], const int8_t B[64][64], int32_t C[64][64]) {\n"
    "  for (int i = 0; i < 64; i++)\n"
    "    for (int j = 0; j < 64; j++) {\n"
    "      C[i][j] = 0;\n"
    "      for (int k = 0; k < 64; k++)\n"
    "        C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
    "    }\n"
    "}\n"
    "#pragma npu schedule(mm, v)\n"
    "#pragma npu tile(i, j, 32, 32, io, jo, ii, ji)\n"
    "#pragma npu cache_read(A, nu_ib, io, A_ib)\n"
    "#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
    "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n"
    "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n";

/* The call of the matmul nest, lowered into a; it names the session's
 * IR (its arrays), so *s stays open until the caller closes it. */
static const IntrinCall *lowered_call(const char *steps, Arena *a, NpgSession **s) {
  char src[2048];
  snprintf(src, sizeof src, "%s%s", tensorized, steps);
  *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_errors(*s)[0], '\0', "%s", npg_errors(*s));
  int v = npg_variant_index(*s, "v");
  Stmt **nest = find(lowered(a, *s, v), is_matmul, 0);
  cr_assert_not_null(nest);
  cr_expect_null((*find((Kernel *)(*s)->v[v].ir, is_matmul, 0))->intrin_call, "the scheduled IR is left as it was");
  return (*nest)->intrin_call;
}

Test(lower, a_tensorized_nest_gets_its_call_or_why_not) {
  Arena a;
  arena_init(&a, 0);
  NpgSession *s;
  const IntrinCall *c = lowered_call("", &a, &s);
  cr_assert_not_null(c);
  StrBuf call;
  sb_init(&call);
  ir_print_intrin_call(&call, c);
  cr_expect_str_eq(call.data, "npu_nu_matmul_i8(&C_ob[0][0], &A_ib[0][0], &B_wb[0][0], /*m=*/32, /*n=*/32, /*k=*/64, /*lda=*/64, /*ldb=*/32, /*ldc=*/32, /*accumulate=*/0);");
  sb_free(&call);
  cr_assert_eq(c->nargs, 10);
  cr_expect(c->args[0].address && c->args[0].value->kind == EX_LOAD && !c->args[0].param, "an operand is its first element, by address");
  cr_expect(c->args[3].value->kind == EX_INT && c->args[3].value->ival == 32 && !strcmp(c->args[3].param, "m"),
            "a size is a number, named as npu_intrinsics.h names it");
  cr_expect(!c->guard && !c->note);
  npg_close(s);
  c = lowered_call("#pragma npu unroll(ji, 2)\n", &a, &s);
  cr_assert_not_null(c);
  cr_expect(!c->fn && c->note && strstr(c->note, "no longer matches: "), "a later step changed the nest: it no longer matches");
  npg_close(s);
  arena_free(&a);
}

/* The headers are decided by the lowering too (lower/includes.c). */
Test(lower, the_headers_follow_what_the_variant_uses) {
  NpgSession *s = npg_open_string("k.c", tensorized, strlen(tensorized));
  cr_assert_eq(npg_errors(s)[0], '\0', "%s", npg_errors(s));
  Includes kernel = lower_includes(s->v[npg_variant_index(s, "mm")].ir, false),
           npu = lower_includes(s->v[npg_variant_index(s, "v")].ir, false);
  cr_expect(kernel.stdint && !kernel.math && !kernel.stdlib && !kernel.npu);
  cr_expect(npu.stdint && npu.npu);
  npg_close(s);
  const char *src = "#include <math.h>\n#include <stdlib.h>\n"
                    "void k(const float A[8], float B[8], int n) {\n"
                    "  for (int i = 0; i < 8; i++) B[i] = sqrtf(A[i]) + abs(n);\n"
                    "}\n";
  s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_errors(s)[0], '\0', "%s", npg_errors(s));
  Includes f = lower_includes(s->v[0].ir, false), proto = lower_includes(s->v[0].ir, true);
  cr_expect(f.math && f.stdlib && !f.stdint && !f.npu);
  cr_expect(!proto.math && !proto.stdlib);
  npg_close(s);
}

/* A padded parameter's pack and unpack helpers are kernels made by the
 * lowering (lower/layout_helpers.c), named after the variant, each taking
 * its source const: a note and the padding filled, then the copy into the
 * physical layout; the copy back. */
static const Stmt *innermost(const Stmt *s) {
  while (s->kind == ST_FOR) s = s->body->body;
  return s;
}

Test(lower, the_layout_helpers_are_loop_nests_in_the_ir) {
  NpgSession *s = open_example("examples/layouts.c");
  int v = npg_variant_index(s, "matmul128_padded");
  cr_assert_geq(v, 0);
  const Buffer *A = s->v[v].ir->params->buf;
  cr_assert(A && A->layout && A->layout->padded);
  Arena a;
  arena_init(&a, 0);
  LayoutHelpers h;
  lower_layout_helpers(&a, "v", A, &h);
  cr_expect_str_eq(h.pack->name, "v_pack_A");
  cr_expect_str_eq(h.unpack->name, "v_unpack_A");
  cr_expect_str_eq(h.pack->params->buf->name, "logical");
  cr_expect(h.pack->params->buf->is_const && !h.pack->params->next->buf->is_const);
  cr_expect_str_eq(h.unpack->params->buf->name, "physical");
  cr_expect(h.unpack->params->buf->is_const && !h.unpack->params->next->buf->is_const);
  cr_expect(!strncmp(h.comment, "A: logical [", 12) && strstr(h.comment, " (padded), by\n  "));
  const Stmt *pack = h.pack->body->body, *unpack = h.unpack->body->body;
  cr_assert(pack->low && pack->low->kind == LOW_NOTE);
  cr_expect_str_eq(pack->note, "the padding holds 0");
  const Stmt *fill = pack->next, *to = fill->next;
  cr_assert(fill && fill->kind == ST_FOR && to && to->kind == ST_FOR && !to->next);
  cr_expect_str_eq(fill->var->name, "p0");
  const Stmt *copies[] = {innermost(fill), innermost(to), innermost(unpack)};
  const char *want[] = {"physical[p0][p1] = 0", "physical[i0][i1] = logical[i0][i1]", "logical[i0][i1] = physical[i0][i1]"};
  for (int i = 0; i < 3; i++) {
    cr_assert_eq(copies[i]->kind, ST_ASSIGN);
    StrBuf sb;
    sb_init(&sb);
    ir_print_expr(&sb, copies[i]->lhs);
    sb_puts(&sb, " = ");
    ir_print_expr(&sb, copies[i]->rhs);
    cr_expect_str_eq(sb.data, want[i]);
    sb_free(&sb);
  }
  arena_free(&a);
  npg_close(s);
}

/* A core's compute that reads a loaded buffer only in a local's
 * initializer (`float v = x_vm[ii];`) waits for that load: the phases of a
 * bound loop counted a declaration as no use, so the compute ran before its
 * load (the synchronisation check refused the variant as an npugen bug). */
Test(lower, a_read_in_a_locals_initializer_waits_for_its_load) {
  NpgSession *s = open_ok("void leaky(const float x[8192], float y[8192], float alpha) {\n"
                          "  for (int i = 0; i < 8192; i++) {\n"
                          "    float v = x[i];\n"
                          "    y[i] = v >= 0.0f ? v : v * alpha;\n"
                          "  }\n"
                          "}\n",
                          "#pragma npu schedule(leaky, leaky_vu)\n#pragma npu split(i, 4096, io, ir)\n"
                          "#pragma npu split(ir, 1024, core, ii)\n#pragma npu bind(core, vu)\n"
                          "#pragma npu cache_read(x, vu_vm, core, x_vm)\n#pragma npu cache_write(y, vu_vm, core, y_vm)\n");
  checked(s, "leaky_vu");
  npg_close(s);
}

/* The one trip count (ir_trip_count_between, which ir_trip_count and the
 * synchronisation check both use): steps up and down, closed and open
 * ends, empty loops (0, never negative) and overflow. */
Test(lower, one_trip_count_for_every_loop_form) {
  int64_t n;
  cr_assert(ir_trip_count_between(OP_LT, 1, 0, 10, &n) && n == 10);
  cr_assert(ir_trip_count_between(OP_LT, 3, 0, 10, &n) && n == 4); /* 0 3 6 9 */
  cr_assert(ir_trip_count_between(OP_LE, 3, 0, 9, &n) && n == 4);  /* 0 3 6 9 */
  cr_assert(ir_trip_count_between(OP_LE, 3, 0, 8, &n) && n == 3);  /* 0 3 6 */
  cr_assert(ir_trip_count_between(OP_GT, -2, 10, 0, &n) && n == 5); /* 10 8 6 4 2 */
  cr_assert(ir_trip_count_between(OP_GE, -2, 10, 0, &n) && n == 6);
  cr_assert(ir_trip_count_between(OP_LT, 1, 5, 5, &n) && n == 0);
  cr_assert(ir_trip_count_between(OP_LT, 4, 9, 2, &n) && n == 0);
  cr_assert(ir_trip_count_between(OP_LE, 1, 6, 5, &n) && n == 0);
  cr_assert(!ir_trip_count_between(OP_LT, 0, 0, 10, &n));
  cr_assert(!ir_trip_count_between(OP_LT, 1, INT64_MIN, INT64_MAX, &n));
}

/* --dump-ir=lowered prints the whole LoweredModule (ir/print_lowered.c):
 * after the lowered IR, every other decision of the .c and the .h. */
Test(lower, the_lowered_dump_shows_the_whole_module) {
  const char *src = "#include <stdint.h>\n"
                    "#define N 16\n"
                    "void k(const int8_t A[N], int32_t C[N]) {\n"
                    "  for (int i = 0; i < N; i++)\n"
                    "    C[i] = A[i] + 1;\n"
                    "}\n"
                    "#pragma npu schedule(k, v)\n"
                    "#pragma npu split(i, 4, io, ii)\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_errors(s)[0], '\0', "%s", npg_errors(s));
  const char *dump = npg_dump_ir_lowered(s, npg_variant_index(s, "v"));
  const char *ir = strstr(dump, "kernel v("), *c = strstr(dump, "\nthe .c file:\n"), *h = strstr(dump, "\nthe .h file:\n");
  cr_assert(ir && c && h && ir < c && c < h, "%s", dump);
  cr_expect(strstr(c, "  comment: Schedule v:\n  comment:   split(i, 4, io, ii)\n"), "%s", dump);
  cr_expect(strstr(c, "  includes: <stdint.h>\n  define: #define N 16\n  includes its header: v.h\n"), "%s", dump);
  cr_expect(strstr(c, "function v: host expressions spelled as written\n  extent 0 of A: N\n"), "%s", dump);
  cr_expect(strstr(h, "  guard: NPUGEN_K_V_H\n  includes: <stdint.h>\n  define: #define V_N 16\n"), "%s", dump);
  npg_close(s);
}

const TSLanguage *tree_sitter_c(void);

/* What of the emitted C the lowered dump must show, one line each for
 * each missing: every intrinsic the C calls (npu_nu_*, npu_vu_*), every
 * prototype's #if condition and function name in the header, the first
 * line of each comment over a function of the C, each call argument's
 * cast to rows, each comment saying where an on-chip buffer lives, and
 * each local array whose extents the C spells as the source did. */
static bool text_holds(const char *text, size_t n, const char *needle) {
  char *t = strndup(text, n);
  bool holds = strstr(t, needle) != NULL;
  free(t);
  return holds;
}

/* A local array's declaration with an extent spelt, not a number ("float
 * mx[R];"), as the dump prints it: "mx: float[R]"; NULL: not one. */
static char *spelt_local_array(TSNode node, const char *src) {
  if (strcmp(ts_node_type(ts_node_parent(node)), "compound_statement")) return NULL;
  TSNode type = ts_node_child_by_field_name(node, "type", 4), decl = ts_node_child_by_field_name(node, "declarator", 10);
  if (!strcmp(ts_node_type(decl), "init_declarator")) decl = ts_node_child_by_field_name(decl, "declarator", 10);
  if (strcmp(ts_node_type(decl), "array_declarator")) return NULL;
  bool spelt = false;
  TSNode name = decl;
  for (; !strcmp(ts_node_type(name), "array_declarator"); name = ts_node_child_by_field_name(name, "declarator", 10))
    spelt |= strcmp(ts_node_type(ts_node_child_by_field_name(name, "size", 4)), "number_literal") != 0;
  if (!spelt) return NULL;
  uint32_t ta = ts_node_start_byte(type), na = ts_node_start_byte(name), ne = ts_node_end_byte(name);
  StrBuf want;
  sb_init(&want);
  sb_printf(&want, "%.*s: %.*s%.*s", (int)(ne - na), src + na, (int)(ts_node_end_byte(type) - ta), src + ta,
            (int)(ts_node_end_byte(decl) - ne), src + ne);
  return sb_take(&want);
}

static void missing_from_dump(TSNode node, const char *src, const char *dump, StrBuf *missing) {
  const char *type = ts_node_type(node);
  uint32_t a = ts_node_start_byte(node), b = ts_node_end_byte(node);
  char *want = NULL;
  if (!strcmp(type, "call_expression")) {
    TSNode fn = ts_node_child_by_field_name(node, "function", 8);
    uint32_t fa = ts_node_start_byte(fn), fb = ts_node_end_byte(fn);
    if (!strncmp(src + fa, "npu_nu_", 7) || !strncmp(src + fa, "npu_vu_", 7))
      want = strndup(src + fa, fb - fa + 1); /* with its "(" */
  } else if (!strcmp(type, "preproc_if") || !strcmp(type, "preproc_elif")) {
    TSNode cond = ts_node_child_by_field_name(node, "condition", 9);
    uint32_t ca = ts_node_start_byte(cond);
    want = strndup(src + ca, ts_node_end_byte(cond) - ca);
  } else if (!strcmp(type, "function_declarator")) {
    TSNode name = ts_node_child_by_field_name(node, "declarator", 10);
    uint32_t na = ts_node_start_byte(name);
    want = strndup(src + na, ts_node_end_byte(name) - na);
  } else if (!strcmp(type, "cast_expression") && !strcmp(ts_node_type(ts_node_parent(node)), "argument_list")) {
    TSNode value = ts_node_child_by_field_name(node, "value", 5); /* a call argument's cast: "(T (*)[N])" */
    want = strndup(src + a, ts_node_start_byte(value) - a);
    if (!strstr(want, "(*)")) free(want), want = NULL;
  } else if (!strcmp(type, "declaration")) {
    want = spelt_local_array(node, src);
  } else if (!strcmp(type, "comment") && b - a > 6 && text_holds(src + a, b - a, "bytes [")) {
    want = strndup(src + a + 3, b - a - 6); /* where an on-chip buffer lives */
  } else if (!strcmp(type, "comment") && b - a > 3) {
    TSNode next = ts_node_next_named_sibling(node);
    size_t n = strcspn(src + a + 3, "\n");
    if (n > b - a - 6) n = b - a - 6; /* a comment of one line: without its " *" "/" */
    if (!ts_node_is_null(next) && !strcmp(ts_node_type(next), "function_definition")) want = strndup(src + a + 3, n);
  }
  if (want && !strstr(dump, want)) sb_printf(missing, "  %s (line %u)\n", want, ts_node_start_point(node).row + 1);
  free(want);
  for (uint32_t i = 0; i < ts_node_child_count(node); i++) missing_from_dump(ts_node_child(node, i), src, dump, missing);
}

/* --dump-ir=lowered shows every decision the emitted C depends on: a
 * tensorized nest's call, the header's per-compiler prototypes, a
 * program function's comment, a call argument's cast, an on-chip
 * buffer's place, a local array's extents as the source spelt them. */
Test(lower, the_lowered_dump_shows_what_the_emitted_c_depends_on) {
  const char *examples[] = {"examples/matmul_npu.c", "examples/matmul_sized_npu.c", "examples/program_npu.c",
                            "examples/softmax_npu.c"};
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_c());
  for (int e = 0; e < 4; e++) {
    NpgSession *s = npg_open_file(examples[e]);
    cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
    for (int v = 0; v < npg_variant_count(s); v++) {
      const char *dump = npg_dump_ir_lowered(s, v);
      const char *texts[] = {npg_emit_source(s, v), npg_emit_header(s, v)};
      StrBuf missing;
      sb_init(&missing);
      for (int t = 0; t < 2; t++) {
        TSTree *tree = ts_parser_parse_string(p, NULL, texts[t], (uint32_t)strlen(texts[t]));
        missing_from_dump(ts_tree_root_node(tree), texts[t], dump, &missing);
        ts_tree_delete(tree);
      }
      char *m = sb_take(&missing);
      cr_expect_str_empty(m, "%s, variant %s: the emitted C has, the lowered dump not:\n%s", examples[e],
                          npg_variant_name(s, v), m);
      free(m);
    }
    npg_close(s);
  }
  ts_parser_delete(p);
}

/* The check's reference's module shows what only it has: <setjmp.h>,
 * the support its checks call, its function's first parameter. */
Test(lower, the_lowered_dump_of_the_reference_shows_its_own_fields) {
  const char *src = "#include <stdint.h>\n#define N 4\n"
                    "void k(const int32_t A[N], int32_t B[N], const int s) {\n"
                    "  for (int i = 0; i < N; i++) B[i] = A[i] * s;\n}\n";
  DiagList dl;
  diag_init(&dl);
  Module *m = frontend_parse("k.c", src, strlen(src), &dl);
  cr_assert(m && !dl.errors, "the kernel parses");
  LoweredModule lm;
  lower_reference_module(m, m->kernels, &lm);
  StrBuf sb;
  sb_init(&sb);
  ir_print_lowered_module(&sb, &lm);
  char *dump = sb_take(&sb);
  cr_expect(strstr(dump, "  includes: <math.h> <setjmp.h> <stdint.h> <stdlib.h>\n"), "%s", dump);
  cr_expect(strstr(dump, "  support after the includes:\n    typedef struct {\n"), "%s", dump);
  cr_expect(strstr(dump, "function static npg_checked_k: host expressions spelled as written\n"
                         "  first parameter: NpgCk *npg_ck\n"),
            "%s", dump);
  free(dump);
  lower_module_free(&lm);
  module_free(m);
  diag_free(&dl);
}

/* The check's C of a variant on the NPU marks where a tensorized nest
 * falls back (LoweredFunction.mark_fallbacks, `npu_cu_fallback("NAME");`
 * in its else branch): the dump says so, and only of that C. */
Test(lower, the_lowered_dump_shows_where_fallbacks_are_marked) {
  NpgSession *s = open_example("examples/conv2d_fused_npu.c");
  int v = npg_variant_index(s, "fused");
  const char *line = "  where a tensorized nest falls back to the nest as written, its mark tells the simulator\n";
  for (int hooks = 0; hooks < 2; hooks++) {
    LowerUnit u = {.m = s->m, .k = s->v[v].ir, .name = s->v[v].name, .target = &s->target,
                   .order = EMIT_ORDER_SOURCE, .lowered = s->v[v].low, .cu_hooks = hooks};
    LoweredModule lm;
    lower_module(&u, &lm);
    StrBuf sb;
    sb_init(&sb);
    ir_print_lowered_module(&sb, &lm);
    char *dump = sb_take(&sb);
    cr_expect_eq(lm.main.mark_fallbacks, hooks);
    cr_expect_eq(strstr(dump, line) != NULL, hooks, "cu_hooks %d:\n%s", hooks, dump);
    free(dump);
    lower_module_free(&lm);
  }
  npg_close(s);
}

/* The lowering phase (lower/, docs/lowering.md) and its static check of
 * the DMA synchronisation: every NPU example's lowered IR passes the check,
 * and the check finds each wait deleted from it, a start moved before the
 * last read of its destination, a copy out started before the write of its
 * source, and more DMAs in flight than a target allows. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/session.h"
#include "lower/lower.h"
#include "npugen.h"

static const char *const npu_examples[] = {
    "examples/matmul_npu.c",  "examples/matmul_tail_npu.c", "examples/conv2d_npu.c",   "examples/conv2d_fused_npu.c",
    "examples/dwconv_npu.c",  "examples/softmax_npu.c",     "examples/layernorm_npu.c",
};
enum { NEXAMPLES = sizeof npu_examples / sizeof npu_examples[0] };

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
Test(lower, every_npu_example_passes_the_check) {
  for (int e = 0; e < NEXAMPLES; e++) {
    NpgSession *s = open_example(npu_examples[e]);
    for (int v = 0; v < npg_variant_count(s); v++) {
      Arena a;
      arena_init(&a, 0);
      Kernel *k = lowered(&a, s, v);
      char why[600];
      cr_expect(check(k, s->target.dma_max_tokens, why, sizeof why), "%s %s: %s", npu_examples[e],
                npg_variant_name(s, v), why);
      verifies_and_clones(&a, k, npu_examples[e], npg_variant_name(s, v));
      arena_free(&a);
    }
    npg_close(s);
  }
}

/* Each wait of each lowered variant, deleted alone, is found. */
Test(lower, a_deleted_wait_is_found_in_every_lowered_example) {
  int examples_with_waits = 0;
  for (int e = 0; e < NEXAMPLES; e++) {
    NpgSession *s = open_example(npu_examples[e]);
    int waits_here = 0;
    for (int v = 0; v < npg_variant_count(s); v++) {
      for (int w = 0;; w++) {
        Arena a;
        arena_init(&a, 0);
        Kernel *k = lowered(&a, s, v);
        Stmt **link = find(k, is_wait, w);
        if (!link) {
          arena_free(&a);
          break;
        }
        waits_here++;
        StrBuf before;
        sb_init(&before);
        ir_print_kernel(&before, k);
        *link = (*link)->next; /* the wait deleted */
        char why[600];
        cr_expect(!check(k, s->target.dma_max_tokens, why, sizeof why), "%s %s: wait %d deleted, not found:\n%s",
                  npu_examples[e], npg_variant_name(s, v), w, before.data);
        cr_expect(strstr(why, "before the wait") || strstr(why, "never waited for") || strstr(why, "started again") ||
                      strstr(why, "while the DMA"),
                  "%s", why);
        sb_free(&before);
        arena_free(&a);
      }
    }
    examples_with_waits += waits_here > 0;
    npg_close(s);
  }
  cr_expect_eq(examples_with_waits, NEXAMPLES);
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

/* Lowered nodes print, verify and clone like every other node. */
Test(lower, the_lowered_ir_prints_verifies_and_clones) {
  int v;
  NpgSession *s = matmul_nu(&v);
  const char *dump = npg_dump_ir_lowered(s, v);
  cr_assert_not_null(dump);
  cr_expect(strstr(dump, "dma_start(A_ib_tok, A_ib_load: A_ib[A_ib_0][A_ib_1] <- A[(io + 1) * 128 + A_ib_0][A_ib_1]"),
            "%s", dump);
  cr_expect(strstr(dump, "dma_wait(C_ob_tok[jo % 2]) if jo >= 2"), "%s", dump);
  cr_expect(strstr(dump, "view B_wb = B_wb_db[(jo + 1) % 2]"), "%s", dump);
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
  cr_expect(strstr(out, "\n          dma_wait(C_ob_tok[jo % 2]) if jo >= 2  # line 25\n"), "%s", out);
  cr_expect(strstr(out, "\n        dma_wait(C_ob_tok[0])  # line 10\n"), "%s", out);
}

/* The instrumented reference's decisions are made by its lowering
 * (lower/ref_lower.c, lower/ref_hoist.c), before lower/ref_body.c
 * writes them as lowered IR: which operations are checked, the "set" flags of locals
 * declared without an initializer, the addresses hoisted out of the inner
 * loop and the pointer an unrolled loop steps. Each test reads the
 * lowered reference, not its text. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "jit/session.h"
#include "lower/ref_lower.h"
#include "npugen.h"

#define MATMUL(T)                                                              \
  "#include <stdint.h>\n"                                                      \
  "void k(const " T " A[16][32], const " T " B[32][8], int32_t C[16][8]) {\n"  \
  "  for (int i = 0; i < 16; i++)\n"                                           \
  "    for (int j = 0; j < 8; j++) {\n"                                        \
  "      C[i][j] = 0;\n"                                                       \
  "      for (int k = 0; k < 32; k++)\n"                                       \
  "        C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"                  \
  "    }\n"                                                                    \
  "}\n"

typedef struct {
  NpgSession *s;
  CheckRef ref;
} RefOf;

static RefOf lower_src(const char *src) {
  RefOf l;
  memset(&l, 0, sizeof l);
  l.s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_errors(l.s)[0], '\0', "%s", npg_errors(l.s));
  lower_check_ref(l.s->m->kernels, &l.ref);
  return l;
}

static void done(RefOf *l) {
  for (int i = 0; i < l->ref.nsites; i++) free(l->ref.sites[i].what);
  free(l->ref.sites);
  lower_check_ref_free(&l->ref);
  npg_close(l->s);
}

/* ---- finding nodes ---- */

typedef bool (*PickExpr)(const CkExpr *x);

static const CkExpr *find_expr(const CkExpr *x, PickExpr is) {
  if (!x) return NULL;
  if (is(x)) return x;
  const CkExpr *kids[] = {x->a, x->b, x->c};
  for (int i = 0; i < 3; i++)
    if (kids[i] && (kids[i] = find_expr(kids[i], is))) return kids[i];
  for (int i = 0; x->args && i < x->e->nargs; i++)
    if ((kids[0] = find_expr(x->args[i], is))) return kids[0];
  return NULL;
}

static const CkExpr *find_in_stmts(const CkStmt *n, PickExpr is) {
  for (; n; n = n->next) {
    const CkExpr *x = find_expr(n->value, is);
    if (!x) x = find_in_stmts(n->body.list, is);
    if (!x) x = find_in_stmts(n->else_list, is);
    if (x) return x;
  }
  return NULL;
}

static bool is_mul(const CkExpr *x) { return x->e->kind == EX_BINARY && x->e->op == OP_MUL; }
static bool is_add(const CkExpr *x) { return x->e->kind == EX_BINARY && x->e->op == OP_ADD; }

/* The loop over counter name (the first, in program order). */
static const CkStmt *loop_of(const CkStmt *n, const char *name) {
  for (; n; n = n->next) {
    if (n->kind == CK_FOR && !strcmp(n->s->var->name, name)) return n;
    const CkStmt *in = loop_of(n->body.list, name);
    if (in) return in;
  }
  return NULL;
}

/* ---- the tests ---- */

/* An int8 product cannot overflow: no check. An int32 one can: checked,
 * with its site saying where and what. */
Test(check_ref, a_product_is_checked_only_when_its_ranges_allow_overflow) {
  RefOf l = lower_src(MATMUL("int8_t"));
  const CkExpr *mul = find_in_stmts(l.ref.body.list, is_mul);
  cr_assert_not_null(mul);
  cr_expect(!mul->checked && !mul->site[CK_OVERFLOW]);
  /* 32 int8 products from 0 stay within int32: the proven sum's adds
   * are not checked either */
  cr_expect(!find_in_stmts(l.ref.body.list, is_add)->checked);
  cr_expect_eq(l.ref.nsites, 0);
  done(&l);
  l = lower_src(MATMUL("int32_t"));
  mul = find_in_stmts(l.ref.body.list, is_mul);
  cr_assert_not_null(mul);
  cr_assert(mul->checked && mul->site[CK_OVERFLOW] > 0);
  const CheckedSite *site = &l.ref.sites[mul->site[CK_OVERFLOW] - 1];
  cr_expect_str_eq(site->what, "signed overflow in '(int32_t)A[i][k] * (int32_t)B[k][j]' (int)");
  cr_expect_eq(site->loc.line, 7);
  cr_expect_str_eq(l.ref.temps[mul->temp[0] - 1]->type->name, "long long");
  done(&l);
}

/* Out of loop k, the row of C (for `C[i][j] = 0`) and its element (for
 * the sum) are hoisted; in the unrolled k loop, A and B are read through
 * pointers stepped by one element and by one row of B. */
Test(check_ref, addresses_are_hoisted_and_the_unrolled_loop_steps_pointers) {
  RefOf l = lower_src(MATMUL("int8_t"));
  const CkStmt *i = loop_of(l.ref.body.list, "i"), *j = loop_of(l.ref.body.list, "j"),
               *k = loop_of(l.ref.body.list, "k");
  cr_assert(i && j && k);
  const CkPointer *row = i->body.ptrs, *elem = j->body.ptrs, *a = k->body.ptrs;
  cr_assert(row && elem && a && a->next);
  const CkPointer *b = a->next;
  cr_expect(!strcmp(row->buf->name, "C") && row->n == 1 && !row->stepped && !row->next);
  cr_expect(!strcmp(elem->buf->name, "C") && elem->n == 2 && !elem->stepped && !elem->next);
  cr_expect(!strcmp(a->buf->name, "A") && a->stepped);
  cr_expect(!strcmp(b->buf->name, "B") && b->stepped && !b->next);
  cr_expect_eq(k->step, 8, "unrolled by 8");
  cr_expect(!k->hi && k->mid == 32, "to its last full round");
  /* the last of the 8 adds reads A and B at copy 7: 7 elements, 7 rows of 8 on */
  const CkExpr *add = k->body.list->value;
  cr_assert(add && is_add(add));
  const CkExpr *mul = add->b, *x = mul->a, *y = mul->b;
  cr_assert(is_mul(mul));
  while (x && !x->place) x = x->a;
  while (y && !y->place) y = y->a;
  cr_assert(x && y);
  cr_expect(x->place->stepped && x->place->ptr == a && x->place->offset == 7);
  cr_expect(y->place->stepped && y->place->ptr == b && y->place->offset == 7 * 8);
  cr_expect(k->body.list->lhs->ptr == elem && !k->body.list->lhs->stepped, "the sum is stored through C's element");
  done(&l);
}

/* A local declared without an initializer carries a flag: its writes
 * set it, its reads test it, with a site naming the read. */
Test(check_ref, a_local_without_initializer_is_flagged) {
  RefOf l = lower_src("void k(const float A[16], float B[16]) {\n"
                        "  float t[16];\n"
                        "  for (int i = 0; i < 16; i++) {\n"
                        "    if (A[i] > 0) t[i] = A[i];\n"
                        "    B[i] = t[i];\n"
                        "  }\n"
                        "}\n");
  const CkStmt *decl = l.ref.body.list, *i = loop_of(l.ref.body.list, "i");
  cr_assert(decl && decl->kind == CK_DECL && i);
  cr_expect(decl->unset);
  const CkStmt *set = i->body.list->body.list, *copy = i->body.list->next;
  cr_assert(set && set->kind == CK_ASSIGN && copy && copy->kind == CK_ASSIGN);
  cr_expect(set->unset, "the write sets the flag");
  cr_expect(!copy->unset, "B is a parameter: no flag");
  int s = copy->value->site[CK_UNSET];
  cr_assert_gt(s, 0);
  cr_expect_str_eq(l.ref.sites[s - 1].what, "read of uninitialized 't[i]'");
  done(&l);
}

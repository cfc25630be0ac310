/* --dump-ir=lowered is the whole LoweredModule (ir/print_lowered.c,
 * ir/print.c): every field emit/ reads is in the dump. Each case changes
 * one field of a kernel's module as lowered, checks that the emitted C
 * changes (the printer reads the field) and that the dump changes too (a
 * field left out of the dump would leave it as it was). The kernels are
 * ones that have the field: a sized one (the definition's extents, the
 * entry tests, NPUGEN_ASSUME), a DMA'd one (each DMA call's shape) and a
 * layout'd one (the header's helpers and their comments). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "frontend/frontend.h"
#include "ir/lowered_module.h"
#include "jit/session.h"
#include "lower/module.h"
#include "lower/ref_lower.h"
#include "npugen.h"

/* A sized kernel: `in[h + 2]` is spelt wider in the definition
 * (LoweredFunction.extent_at_entry), h is tested at entry. */
static const char sized_src[] = "#include <stdint.h>\n"
                                "void k(int h, const int32_t in[h + 2], int32_t out[h]) {\n"
                                "  for (int i = 0; i < h; i++) {\n"
                                "    int32_t t = in[i] + in[i + 2];\n"
                                "    out[i] = t;\n"
                                "  }\n"
                                "}\n"
                                "#pragma npu schedule(k, v)\n"
                                "#pragma npu split(i, 4, io, ii)\n";

/* A layout'd kernel: X's helpers, in the .c and as the header spells them. */
static const char layout_src[] = "#include <stdint.h>\n"
                                 "void k(const int8_t X[2][8], int32_t Y[2][8]) {\n"
                                 "  for (int h = 0; h < 2; h++)\n"
                                 "    for (int c = 0; c < 8; c++)\n"
                                 "      Y[h][c] = X[h][c] + 1;\n"
                                 "}\n"
                                 "#pragma npu schedule(k, v)\n"
                                 "#pragma npu transform_layout(X, (h, c), (c / 4, h, c % 4))\n";

/* A guarded vectorized nest on the VU: its call's window starts at a
 * bound held in a local (`const int ii_bound = npu_clamp(7 - ii_start,
 * 32);`, lower/intrin_repeats.c). */
static const char held_src[] = "void k(const float x[256], float y[256]) {\n"
                               "  for (int i = 0; i < 256; i++)\n"
                               "    if (i >= 7)\n"
                               "      y[i] = x[i] * 2.0f;\n"
                               "}\n"
                               "#pragma npu schedule(k, v)\n"
                               "#pragma npu split(i, 128, io, ir)\n"
                               "#pragma npu split(ir, 32, core, ii)\n"
                               "#pragma npu bind(core, vu)\n"
                               "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                               "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                               "#pragma npu vectorize(ii)\n";

/* The first lowered node of kind `kind` in s and what it nests. */
static Stmt *find_low(const Stmt *s, LowKind kind) {
  for (; s; s = s->next) {
    if (s->low && s->low->kind == kind) return (Stmt *)s;
    const Stmt *kids[] = {s->kind == ST_IF ? s->then_s : s->body, s->else_s};
    for (int i = 0; i < 2; i++) {
      Stmt *found = kids[i] ? find_low(kids[i], kind) : NULL;
      if (found) return found;
    }
  }
  return NULL;
}

/* The first statement of kind `kind` (not a lowered node). */
static Stmt *find_stmt(const Stmt *s, StmtKind kind) {
  for (; s; s = s->next) {
    if (!s->low && s->kind == kind) return (Stmt *)s;
    const Stmt *kids[] = {s->kind == ST_IF ? s->then_s : s->body, s->else_s};
    for (int i = 0; i < 2; i++) {
      Stmt *found = kids[i] ? find_stmt(kids[i], kind) : NULL;
      if (found) return found;
    }
  }
  return NULL;
}

/* One change of one field; false when the kernel's module lacks it. What
 * it hangs on the session's IR is allocated in keep, which outlives the
 * module (freed with the session). */
typedef bool Mutate(LoweredModule *m, Arena *keep);

/* ---- the sized kernel's ---- */

static bool first_extent_at_entry(LoweredModule *m, Arena *keep) {
  (void)keep;
  int n = 0;
  for (const Param *p = m->main.k->params; p; p = p->next) n++;
  for (int i = 0; m->main.extent_at_entry && i < n * IR_MAX_DIMS; i++)
    if (m->main.extent_at_entry[i]) {
      m->main.extent_at_entry[i] = ir_int(&m->arena, 4321, &ty_int, (SrcLoc){0});
      return true;
    }
  return false;
}

static bool entry_test(LoweredModule *m, Arena *keep) {
  (void)keep;
  if (!m->main.ntests) return false;
  m->main.tests[0].cond = ir_int(&m->arena, 4321, &ty_int, (SrcLoc){0});
  return true;
}

static bool assume_macro(LoweredModule *m, Arena *keep) {
  (void)keep;
  if (!m->assume_macro) return false;
  m->assume_macro = "#define NPUGEN_ASSUME(c) ((void)(c)) /* mutated */\n";
  return true;
}

/* ---- the DMA'd kernel's: each string of a DMA call's shape ---- */

/* The first DMA start in s whose call has at least `dims` strided
 * dimensions. */
static DmaShape *shape_in(const Stmt *s, int dims) {
  for (; s; s = s->next) {
    if (s->low && s->low->kind == LOW_DMA_START && s->low->shape && s->low->shape->ndims >= dims)
      return (DmaShape *)s->low->shape;
    const Stmt *kids[] = {s->kind == ST_IF ? s->then_s : s->body, s->else_s};
    for (int i = 0; i < 2; i++) {
      DmaShape *found = kids[i] ? shape_in(kids[i], dims) : NULL;
      if (found) return found;
    }
  }
  return NULL;
}

static DmaShape *first_shape(LoweredModule *m) { return shape_in(m->main.body, 0); }

static bool dma_row(LoweredModule *m, Arena *keep) {
  (void)keep;
  DmaShape *d = first_shape(m);
  return d && (d->row = "4321");
}

static bool dma_dst(LoweredModule *m, Arena *keep) {
  (void)keep;
  DmaShape *d = first_shape(m);
  return d && (d->dst = "&mutated[0]");
}

static bool dma_src(LoweredModule *m, Arena *keep) {
  (void)keep;
  DmaShape *d = first_shape(m);
  return d && (d->src = "&mutated[0]");
}

static bool dma_stride(LoweredModule *m, Arena *keep) {
  (void)keep;
  DmaShape *d = shape_in(m->main.body, 1);
  return d && (d->src_stride[0] = "4321") && (d->dst_stride[0] = "1234");
}

static bool dma_count(LoweredModule *m, Arena *keep) {
  (void)keep;
  DmaShape *d = shape_in(m->main.body, 1);
  return d && (d->count[0] = "4321");
}

static bool dma_runs(LoweredModule *m, Arena *keep) {
  (void)keep;
  DmaShape *d = first_shape(m);
  return d && (d->runs = "mutated > 0");
}

static bool dma_named(LoweredModule *m, Arena *keep) {
  (void)keep;
  Stmt *s = find_low(m->main.body, LOW_DMA_START);
  return s && (s->low->named = !s->low->named, true);
}

static bool wait_note(LoweredModule *m, Arena *keep) {
  (void)keep;
  Stmt *s = find_low(m->main.body, LOW_DMA_WAIT);
  return s && s->low->token.base && (s->note = "mutated note");
}

static bool tokens_note(LoweredModule *m, Arena *keep) {
  (void)keep;
  Stmt *s = find_low(m->main.body, LOW_TOKENS);
  return s && (s->note = "mutated note");
}

/* ---- statements' fields only the C shows (any kernel) ---- */

static bool annotation(LoweredModule *m, Arena *keep) {
  Stmt *s = find_stmt(m->main.body, ST_FOR);
  if (!s) return false;
  Annot *a = arena_alloc(keep, sizeof *a);
  *a = (Annot){.next = s->annots, .key = "mutated", .value = "1"};
  s->annots = a;
  return true;
}

static bool label(LoweredModule *m, Arena *keep) {
  (void)keep;
  Stmt *s = find_stmt(m->main.body, ST_ASSIGN);
  return s && (s->labeled = !s->labeled, true);
}

static bool block_note(LoweredModule *m, Arena *keep) {
  (void)keep;
  Stmt *s = find_stmt(m->main.body, ST_BLOCK);
  return s && !s->call && (s->note = "mutated note");
}

static bool guard_note(LoweredModule *m, Arena *keep) {
  (void)keep;
  Stmt *s = find_stmt(m->main.body, ST_IF);
  return s && (s->note = "mutated note");
}

static bool const_local(LoweredModule *m, Arena *keep) {
  (void)keep;
  Stmt *s = find_stmt(m->main.body, ST_DECL);
  return s && s->var && (s->var->is_const = !s->var->is_const, true);
}

static bool counter_type(LoweredModule *m, Arena *keep) {
  (void)keep;
  Stmt *s = find_stmt(m->main.body, ST_FOR);
  return s && (s->var->type = &ty_long);
}

static bool const_scalar_param(LoweredModule *m, Arena *keep) {
  (void)keep;
  for (const Param *p = m->main.k->params; p; p = p->next)
    if (p->var) return p->var->is_const = !p->var->is_const, true;
  return false;
}

/* Each core's copy of an on-chip buffer is addressed by the bound loop's
 * counter (`npu_scope_base(NPU_VU_VM, core)`). */
static bool buffer_core(LoweredModule *m, Arena *keep) {
  Stmt *s = find_low(m->main.body, LOW_VIEW);
  if (!s || !s->low->decl || !s->low->view_buf->core) return false;
  Var *other = arena_alloc(keep, sizeof *other);
  *other = *s->low->view_buf->core;
  other->name = "npg_other_core";
  s->low->view_buf->core = other;
  return true;
}

/* The first tensorized nest whose call holds a bound in a local. */
static IntrinCall *held_call(const Stmt *s) {
  for (; s; s = s->next) {
    if (s->intrin_call && s->intrin_call->hold) return (IntrinCall *)s->intrin_call;
    const Stmt *kids[] = {s->kind == ST_IF ? s->then_s : s->body, s->else_s};
    for (int i = 0; i < 2; i++) {
      IntrinCall *found = kids[i] ? held_call(kids[i]) : NULL;
      if (found) return found;
    }
  }
  return NULL;
}

static bool held_bound(LoweredModule *m, Arena *keep) {
  IntrinCall *c = held_call(m->main.body);
  return c && (c->hold_value = ir_int(keep, 4321, &ty_int, (SrcLoc){0}));
}

/* ---- the layout'd kernel's ---- */

static bool header_layout_comment(LoweredModule *m, Arena *keep) {
  (void)keep;
  return m->nlayouts && m->header_layouts && (m->header_layouts[0].comment = "mutated comment");
}

static bool layout_comment(LoweredModule *m, Arena *keep) {
  (void)keep;
  return m->nlayouts && (m->layouts[0].comment = "mutated comment");
}

static bool header_layout_param(LoweredModule *m, Arena *keep) {
  (void)keep;
  if (!m->nlayouts || !m->header_layouts) return false;
  LoweredFunction *f = &m->header_layouts[0].pack;
  f->param_restrict[0] = !f->param_restrict[0];
  return true;
}

typedef struct {
  const char *what;
  Mutate *mutate;
} Case;

/* The .c and .h emit/ prints from m, and m's dump. */
static char *emitted(const LoweredModule *m) {
  char *c = emit_c_source(m), *h = emit_c_header(m);
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s\n/* .h */\n%s", c, h);
  free(c);
  free(h);
  return sb_take(&sb);
}

static char *dumped(const LoweredModule *m) {
  StrBuf sb;
  sb_init(&sb);
  ir_print_lowered_module(&sb, m);
  return sb_take(&sb);
}

/* Each case on variant `variant` of the kernel in src (a file's text, or
 * with src NULL the file at path): the change shows in the C and in the
 * dump. One session for all: a case may change the lowered IR the session
 * owns, which later cases keep, but each compares the module as lowered
 * just before its change with the module after it. */
static void each_field_shows(const char *path, const char *src, const char *variant, const Case *cases, int n) {
  NpgSession *s = src ? npg_open_string(path, src, strlen(src)) : npg_open_file(path);
  cr_assert(s && !npg_error_count(s), "%s: %s", path, npg_errors(s));
  int v = npg_variant_index(s, variant);
  cr_assert_geq(v, 0, "%s: no variant %s", path, variant);
  Arena keep;
  arena_init(&keep, 0);
  for (int i = 0; i < n; i++) {
    LowerUnit u = session_unit(s, v);
    u.own_header = true;
    LoweredModule m;
    lower_module(&u, &m);
    char *c0 = emitted(&m), *d0 = dumped(&m);
    cr_assert(cases[i].mutate(&m, &keep), "%s, variant %s has no %s", path, variant, cases[i].what);
    char *c1 = emitted(&m), *d1 = dumped(&m);
    cr_expect_str_neq(c0, c1, "%s: changing %s does not change the C", path, cases[i].what);
    cr_expect_str_neq(d0, d1, "%s: the lowered dump leaves out %s:\n%s", path, cases[i].what, d0);
    free(c0), free(d0), free(c1), free(d1);
    lower_module_free(&m);
  }
  npg_close(s);
  arena_free(&keep);
}

/* The sized kernel's extents, entry tests and NPUGEN_ASSUME, and the
 * statements' fields only the C shows. */
static void sized_kernel_fields(void) {
  const Case cases[] = {{"the definition's extent (extent_at_entry)", first_extent_at_entry},
                        {"an entry test", entry_test},
                        {"NPUGEN_ASSUME's text", assume_macro},
                        {"an annotation", annotation},
                        {"a label", label},
                        {"a guard's comment", guard_note},
                        {"a local's const", const_local},
                        {"a loop counter's type", counter_type},
                        {"a scalar parameter's const", const_scalar_param}};
  each_field_shows("k.c", sized_src, "v", cases, sizeof cases / sizeof cases[0]);
}

/* Each part of a DMA call, the comments on waits, tokens and blocks. */
static void dma_fields(void) {
  const Case cases[] = {{"a DMA's row bytes", dma_row},         {"a DMA's destination", dma_dst},
                        {"a DMA's source", dma_src},            {"a DMA's strides", dma_stride},
                        {"a DMA's count", dma_count},           {"a DMA's test of an empty box", dma_runs},
                        {"the comment naming a DMA", dma_named}, {"a wait's comment", wait_note},
                        {"a token array's comment", tokens_note}, {"a block's comment", block_note}};
  each_field_shows("examples/matmul_npu.c", NULL, "matmul_nu", cases, sizeof cases / sizeof cases[0]);
}

/* A layout's helpers, in the .c and as the header spells them. */
static void layout_fields(void) {
  const Case cases[] = {{"the header's comment over a layout's helpers", header_layout_comment},
                        {"the comment over a layout's helpers", layout_comment},
                        {"a header helper's restrict", header_layout_param}};
  each_field_shows("k.c", layout_src, "v", cases, sizeof cases / sizeof cases[0]);
}

/* A held bound of an intrinsic call, a core's copy of a buffer. */
static void vu_fields(void) {
  const Case cases[] = {{"the bound an intrinsic call holds in a local", held_bound},
                        {"the counter whose core's copy of an on-chip buffer a view points at", buffer_core}};
  each_field_shows("k.c", held_src, "v", cases, 2);
}

/* The check's reference: a hoisted address is a pointer to rows or to
 * one element (LOW_POINTER, lower/ref_body.c), which its declaration
 * spells. */
static void reference_pointer_fields(void) {
  const char *src = "#include <stdint.h>\n#define N 8\n"
                    "void k(const int16_t A[N][N], int32_t S[N]) {\n"
                    "  for (int i = 0; i < N; i++)\n"
                    "    for (int j = 0; j < N; j++) S[i] += A[i][j];\n}\n";
  DiagList dl;
  diag_init(&dl);
  Module *mod = frontend_parse("k.c", src, strlen(src), &dl);
  cr_assert(mod && !dl.errors, "the kernel parses");
  for (int field = 0; field < 2; field++) {
    LoweredModule m;
    lower_reference_module(mod, mod->kernels, &m);
    Stmt *s = find_low(m.main.body, LOW_POINTER);
    cr_assert_not_null(s, "the reference hoists no address");
    if (field == 1) s->low->ptr_stepped = false; /* the rows a pointer to rows covers */
    char *c0 = emitted(&m), *d0 = dumped(&m);
    if (field == 0) s->low->ptr_stepped = !s->low->ptr_stepped;
    else s->low->ptr_from = s->low->ptr_from ? 0 : 1;
    char *c1 = emitted(&m), *d1 = dumped(&m);
    cr_expect_str_neq(c0, c1, "changing the pointer's %s does not change the C", field ? "rows" : "kind");
    cr_expect_str_neq(d0, d1, "the lowered dump leaves out the pointer's %s:\n%s", field ? "rows" : "kind", d0);
    free(c0), free(d0), free(c1), free(d1);
    lower_module_free(&m);
  }
  module_free(mod);
  diag_free(&dl);
}

/* One test for all (each test costs a fork, three times over under
 * ASan): a failure names the kernel and the field. */
Test(lowered_dump, each_field_the_printer_reads_shows_in_the_dump) {
  sized_kernel_fields();
  dma_fields();
  layout_fields();
  vu_fields();
  reference_pointer_fields();
}

/* npg_intrinsics_describe: every intrinsic with its call, unit, operand
 * scopes, constraints, cycle formula and semantics file, derived from what
 * npugen already reads, so the listing cannot drift from the tool:
 *  - the names: the semantics kernels in the intrinsics directory (what
 *    tensorize and vectorize accept), then libnpusim's symbol table for the
 *    calls no schedule names (DMA, barrier, scope addresses);
 *  - the call and its comment: npu_intrinsics.h and npu_vu_families.h
 *    (jit/intrin_header.c);
 *  - the families, first: the table npu_vu_families.def;
 *  - scopes, argument order and operand domains: the semantics file's
 *    "scopes:", "abi:" and "domain:" lines, as tensorize reads them;
 *  - the cycle formula: the simulator's model (docs/npu-model.md section 4)
 *    applied to the semantics kernel's loop nest with the target's numbers:
 *    NU overhead + ceil(MACs / MACs per cycle), VU overhead + ceil(bytes of
 *    the widest operand / vector bytes), where the MACs or elements are the
 *    iterations around the innermost statement. tests/test_first_hour.c
 *    compares the figure with a simulated call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "jit/intrin_doc.h"
#include "npugen.h"
#include "schedule/intrinsics.h"
#include "schedule/vu_families.h"
#include "ir/suggest.h"
#include "sim/npusim.h"


/* The loops around the deepest assignment, outermost first. */
typedef struct {
  const Stmt *stack[16], *best[16];
  int depth, nbest;
} Deepest;

static void deepest(Deepest *d, const Stmt *list) {
  for (const Stmt *c = list; c; c = c->next) {
    if (c->kind == ST_ASSIGN && d->depth > d->nbest) {
      memcpy(d->best, d->stack, sizeof d->stack);
      d->nbest = d->depth;
    }
    if (c->kind == ST_FOR && d->depth < 16) {
      d->stack[d->depth++] = c;
      deepest(d, c->body->body);
      d->depth--;
    } else if (c->kind == ST_BLOCK) {
      deepest(d, c->body);
    } else if (c->kind == ST_IF) {
      deepest(d, c->then_s->body);
      if (c->else_s) deepest(d, c->else_s->body);
    }
  }
}

/* The loop's upper bound as written ("K" in `k < K`), into buf. */
static const char *bound_text(const char *src, const Stmt *loop, char *buf, size_t n) {
  const char *line = src;
  for (int l = 1; l < loop->loc.line && line; l++) {
    line = strchr(line, '\n');
    if (line) line++;
  }
  const char *semi = line ? strchr(line, ';') : NULL, *end = semi ? strchr(semi + 1, ';') : NULL;
  const char *lt = semi && end ? memchr(semi, '<', (size_t)(end - semi)) : NULL;
  if (!lt) return snprintf(buf, n, "?"), buf;
  bool le = lt[1] == '=';
  lt += le ? 2 : 1;
  while (*lt == ' ') lt++;
  snprintf(buf, n, le ? "(%.*s + 1)" : "%.*s", (int)(end - lt), lt);
  return buf;
}

/* The work of one call: the product of the loop bounds around the
 * innermost statement, as text ("M*N*K") and at the kernel's sizes. */
static void work(const Module *m, StrBuf *text, StrBuf *sizes, uint64_t *value) {
  Deepest d = {.depth = 0};
  deepest(&d, m->kernels->body->body);
  *value = 1;
  for (int i = 0; i < d.nbest; i++) {
    char b[64];
    int64_t hi = 0;
    bound_text(m->src, d.best[i], b, sizeof b);
    if (!ir_const_int(d.best[i]->hi, &hi)) hi = 0;
    if (d.best[i]->cmp == OP_LE) hi++;
    sb_printf(text, "%s%s", i ? "*" : "", b);
    sb_printf(sizes, "%s%s=%lld", i ? ", " : "", b, (long long)hi);
    *value *= (uint64_t)(hi > 0 ? hi : 0);
  }
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* The cycles line: formula with the target's numbers, its meaning, and
 * its value at the semantics kernel's own sizes. */
static void cycles(StrBuf *sb, const Module *m, const char *name, const NpuTarget *t) {
  StrBuf w, sizes;
  sb_init(&w);
  sb_init(&sizes);
  uint64_t n;
  work(m, &w, &sizes, &n);
  bool nu = !strncmp(name, "npu_nu_", 7), fp = false;
  int widest = 1;
  for (const Param *p = m->kernels->params; p; p = p->next)
    if (p->buf) {
      fp |= p->buf->elem->kind == ty_float.kind;
      if (p->buf->elem->size > widest) widest = p->buf->elem->size;
    }
  if (nu) {
    long long rate = (long long)(fp ? t->nu_macs_fp32 : t->nu_macs_int8);
    sb_printf(sb, "  cycles:      %lld + ceil(%s / %lld)   (overhead + ceil(MACs / %s), target %s)\n",
              (long long)t->nu_overhead, w.data, rate, fp ? "macs_fp32" : "macs_int8", t->name);
    sb_printf(sb, "               = %llu at the semantics kernel's sizes (%s)\n",
              (unsigned long long)(t->nu_overhead + ceil_div(n, (uint64_t)rate)), sizes.data);
  } else {
    sb_printf(sb, "  cycles:      %lld + ceil(%s*%d / %lld)   (overhead + ceil(bytes of the widest operand / vector_bytes), "
              "target %s)\n", (long long)t->vu_overhead, w.data, widest, (long long)t->vu_vector_bytes, t->name);
    sb_printf(sb, "               = %llu at the semantics kernel's sizes (%s)\n",
              (unsigned long long)(t->vu_overhead + ceil_div(n * (uint64_t)widest, (uint64_t)t->vu_vector_bytes)),
              sizes.data);
  }
  sb_free(&w);
  sb_free(&sizes);
}

/* "multiplier in [-2097152, 2097152], shift in [0, 47]" from a domain line. */
static void domains(StrBuf *sb, const char *dom) {
  char *copy = strdup(dom), *save = NULL;
  for (char *part = strtok_r(copy, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
    char v[64];
    long long lo, hi;
    if (sscanf(part, " %63s %lld %lld", v, &lo, &hi) == 3) sb_printf(sb, "; %s in [%lld, %lld]", v, lo, hi);
  }
  free(copy);
}

static void constraints(StrBuf *sb, const char *name, const char *abi, const char *dom) {
  sb_puts(sb, "  constraints: sizes >= 0 (0: no work, one issue slot); element operands naturally aligned");
  if (!strncmp(name, "npu_vu_", 7)) sb_puts(sb, "; every operand in the VM of one VU core, which runs the op");
  else sb_puts(sb, "; each operand in its scope");
  if (abi && strstr(abi, ", LD")) sb_puts(sb, "; each LD* >= the row length it strides (rows must not overlap)");
  if (dom) domains(sb, dom);
  sb_puts(sb, "\n");
}

/* The paragraph for an intrinsic with a semantics kernel; false with err
 * when its file does not load. */
static bool describe_semantic(StrBuf *sb, const char *hdr, const char *name, const NpuTarget *t, bool detail,
                              char *err, size_t n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.c", sched_intrinsics_dir(), name);
  size_t len;
  char *text = read_file(path, &len);
  DiagList d;
  diag_init(&d);
  Module *m = text ? frontend_parse_intrinsic(path, text, len, &d) : NULL;
  bool ok = m && m->kernels;
  if (!ok) snprintf(err, n, "%s: the semantics kernel does not load", path);
  if (ok) {
    char *scopes = sched_intrinsic_meta(m->src, "scopes: "), *abi = sched_intrinsic_meta(m->src, "abi: "), *dom = sched_intrinsic_meta(m->src, "domain: ");
    sb_printf(sb, "%s  (%s)\n  call:        ", name, !strncmp(name, "npu_nu_", 7) ? "NU" : "VU");
    if (!intrin_signature(hdr, name, sb)) sb_puts(sb, "(not declared in npu_intrinsics.h)");
    sb_printf(sb, "\n  operands:    %s\n", scopes ? scopes : "?");
    constraints(sb, name, abi, dom);
    cycles(sb, m, name, t);
    sb_printf(sb, "  semantics:   %s\n               as %s\n", path, abi ? abi : "?");
    if (detail) {
      StrBuf c;
      sb_init(&c);
      intrin_header_comment(hdr, name, &c);
      if (c.len) sb_printf(sb, "\nnpu_intrinsics.h says:\n%s\n", c.data);
      const char *fn = strstr(text, "\nvoid ");
      sb_printf(sb, "\nits semantics, the kernel tensorize matches (%s):\n%s", path, fn ? fn + 1 : text);
      sb_free(&c);
    }
    free(scopes);
    free(abi);
    free(dom);
  }
  if (m) module_free(m);
  diag_free(&d);
  free(text);
  return ok;
}

/* The unit and cycles of a call without a semantics kernel. */
static void describe_other(StrBuf *sb, const char *hdr, const char *name, const NpuTarget *t, bool detail) {
  bool dma = !strncmp(name, "npu_dma_", 8) && strcmp(name, "npu_dma_wait");
  sb_printf(sb, "%s  (%s)\n  call:        ", name, dma ? "DMA" : "CU");
  if (!intrin_signature(hdr, name, sb)) sb_puts(sb, "(not declared in npu_intrinsics.h)");
  if (dma)
    sb_printf(sb, "\n  cycles:      %lld + ceil(bytes / %lld) to or from DDR, %lld + ceil(bytes / %lld) on chip   (latency + "
              "bytes / bandwidth, target %s); async: npu_dma_wait(token) waits\n",
              (long long)t->ddr_latency, (long long)t->ddr_bandwidth, (long long)t->dm_latency,
              (long long)t->dm_bandwidth, t->name);
  else
    sb_printf(sb, "\n  cycles:      %lld to issue (the control unit)%s\n", (long long)t->cu_issue_cycles,
              !strcmp(name, "npu_dma_wait") ? ", then until the DMA ends"
              : !strcmp(name, "npu_barrier") ? ", then until every unit and channel is idle" : "");
  if (detail) {
    StrBuf c;
    sb_init(&c);
    intrin_header_comment(hdr, name, &c);
    if (c.len) sb_printf(sb, "\nnpu_intrinsics.h says:\n%s\n", c.data);
    sb_free(&c);
  }
}

/* The ABI calls libnpusim implements that no semantics kernel describes. */
static int other_calls(char **names, int nsem, const char **out, int max) {
  size_t count;
  const NpuSimSymbol *sym = npusim_symbols(&count);
  int n = 0;
  for (size_t i = 0; i < count && n < max; i++) {
    size_t len = strlen(sym[i].name);
    if (len < 4 || strcmp(sym[i].name + len - 3, "_at")) continue;
    bool semantic = false;
    for (int j = 0; j < nsem; j++)
      semantic |= strlen(names[j]) == len - 3 && !strncmp(names[j], sym[i].name, len - 3);
    if (!semantic) out[n++] = sym[i].name;
  }
  return n;
}

static bool load_target(NpuTarget *t, const char *ini, char *err, size_t n) {
  npusim_target_default(t);
  return !ini || npusim_target_load(t, ini, err, n) == 0;
}

/* npu_intrinsics.h followed by npu_vu_families.h (the families'
 * prototypes, which it includes), malloc'ed; NULL with path naming the
 * file that does not read. */
static char *read_headers(char *path, size_t n) {
  StrBuf sb;
  sb_init(&sb);
  const char *files[] = {"npu_intrinsics.h", "npu_vu_families.h"};
  for (int i = 0; i < 2; i++) {
    snprintf(path, n, "%s/%s", sched_intrinsics_dir(), files[i]);
    char *text = read_file(path, NULL);
    if (!text) {
      sb_free(&sb);
      return NULL;
    }
    sb_puts(&sb, text);
    free(text);
  }
  return sb_take(&sb);
}

/* What each operand form of npu_vu_families.def means (the table's
 * header comment says it at length): one line each for `npugen
 * intrinsics`' legend, which lists the forms the table uses, in its
 * order. A form added to the table needs its line here: a test checks
 * that every form listed has one. */
static const struct {
  const char *form, *means;
} form_legend[] = {
    {"vv", "vector-vector: dst[i] = a[i] OP b[i]"},
    {"vs", "vector-scalar: dst[i] = a[i] OP s"},
    {"un", "unary: dst[i] = OP a[i]"},
    {"box_un", "unary over a box of rows x cols: dst[r][c] = OP a[r][c]"},
    {"from_i8", "a cast from int8_t: dst[i] = (T)a[i]"},
    {"from_i32", "a cast from int32_t: dst[i] = (T)a[i]"},
    {"from_f32", "a cast from float: dst[i] = (T)a[i]"},
    {"cmp", "a compare into a byte mask: dst[i] = a[i] OP b[i] ? 1 : 0"},
    {"sel", "a select under a byte mask: dst[i] = m[i] ? a[i] : b[i]"},
    {"sel_e", "a select with a scalar: dst[i] = m[i] ? a[i] : e"},
    {"sel_t", "a compare with the scalar t and a select: dst[i] = m[i] OP t ? a[i] : b[i]"},
    {"sel_te", "a compare with the scalar t and a select of a scalar: dst[i] = m[i] OP t ? a[i] : e"},
    {"sel_pq", "a compare of p[i] with q[i] and a select: dst[i] = p[i] OP q[i] ? a[i] : b[i]"},
    {"sel_tc", "a compare with the scalar t and a select of a[i] or b[i] * c: dst[i] = m[i] OP t ? a[i] : "
               "b[i] * c (a leaky ReLU, x >= 0 ? x : x * alpha)"},
    {"mask", "an op under a byte mask: dst[i] = m[i] ? a[i] OP b[i] : c[i]"},
    {"rows", "a row broadcast over a box: dst[r][c] = a[r][c] OP b[r]"},
    {"cols2", "two column broadcasts over a box: dst[r][c] over a[r][c], g[c] and b[c] (layernorm's gamma, beta)"},
    {"box_acc_i8", "an update over a box from int8_t operands: dst[r][c] += a[r][c] * b[0] (a depthwise tap)"},
    {"fill", "a fill of a box: dst[r][c] = the scalar value"},
    {"red_zero", "a row reduction from 0: dst[r] = OP over a[r][c]"},
    {"red_first", "a row reduction from the row's first element: dst[r] = OP over a[r][c]"},
    {"red2_zero", "a row reduction from 0 over two operands: dst[r] = OP over a[r][c] and b[r][c] (a dot product)"},
    {"win_first", "a strided pooling window from its first element: dst[y][x] = OP over a KH x KW window of a"},
    {"win_zero", "a strided pooling window from 0: dst[y][x] = OP over a KH x KW window of a"},
    {"win_avg", "a strided pooling window from 0, then divided by s"},
    {"str", "strided operands: dst[i] = a[i * sa] OP b[i * sb] (a pooling window's corners)"},
    {"str_plane", "strided operands over a plane: dst[r][c] = a[r * ra][c * sa] OP b[r * rb][c * sb]"},
};

static const char *form_means(const char *form) {
  for (size_t i = 0; i < sizeof form_legend / sizeof form_legend[0]; i++)
    if (!strcmp(form_legend[i].form, form)) return form_legend[i].means;
  return NULL;
}

/* One legend line for each operand form the table uses, in its order. */
static void form_lines(StrBuf *sb) {
  int n;
  const SchedVuOp *v = sched_vu_ops(&n);
  for (int i = 0; i < n; i++) {
    bool first = true;
    for (int j = 0; j < i && first; j++) first = strcmp(v[j].form, v[i].form) != 0;
    const char *means = first ? form_means(v[i].form) : NULL;
    if (means) sb_printf(sb, "  %-11s  %s\n", v[i].form, means);
  }
}

/* The families' table, before the ops one by one. */
static void families(StrBuf *sb) {
  sb_puts(sb, "The VU's op families: one table, npu_intrinsics/npu_vu_families.def, of operation x type x\n"
              "operand form; each member's semantics kernel, prototype and simulator entry come from its row.\n"
              "The operand forms (OP is the family's operation; i8, i32 and f32 the element types):\n");
  form_lines(sb);
  sb_puts(sb, "The families, each with its forms and their types, then its members:\n");
  sched_vu_ops_families(sb);
  sb_puts(sb, "\n");
}

char *npg_intrinsics_describe(const char *name, const char *target_ini, char *err, size_t n) {
  char none[8];
  if (!err || !n) { /* nowhere to say why: a buffer that is not read */
    err = none;
    n = sizeof none;
  }
  NpuTarget t;
  if (!load_target(&t, target_ini, err, n)) return NULL;
  char hpath[1024];
  char *hdr = read_headers(hpath, sizeof hpath), **names = NULL;
  int count = hdr ? sched_intrinsic_names(&names, err, n) : -1;
  if (!hdr) snprintf(err, n, "cannot read %s", hpath);
  StrBuf sb;
  sb_init(&sb);
  bool ok = count >= 0;
  const char *others[64];
  int nothers = ok ? other_calls(names, count, others, 64) : 0;
  IrSuggest near = ir_suggest_start(name ? name : "");
  bool found = false;
  if (ok && !name) families(&sb);
  for (int i = 0; ok && i < count; i++) {
    if (name && strcmp(name, names[i])) {
      ir_suggest_add(&near, names[i]);
      continue;
    }
    if (!name && i) sb_puts(&sb, "\n");
    ok = describe_semantic(&sb, hdr, names[i], &t, name != NULL, err, n);
    found = true;
  }
  for (int i = 0; ok && i < nothers; i++) {
    char base[128];
    snprintf(base, sizeof base, "%.*s", (int)strlen(others[i]) - 3, others[i]);
    if (!name) {
      sb_printf(&sb, "%s%s", i ? ", " : "\nAlso in npu_intrinsics.h, for the copies and waits npugen emits (no "
                "schedule names them; `npugen intrinsics NAME` for one):\n  ", base);
    } else if (!strcmp(name, base)) {
      describe_other(&sb, hdr, base, &t, true);
      found = true;
    } else {
      ir_suggest_add(&near, others[i]);
    }
  }
  if (ok && !name && nothers) sb_puts(&sb, "\n");
  if (ok && name && !found) {
    char dym[160];
    snprintf(err, n, "unknown intrinsic '%s' (%s has no semantics kernel %s.c and npu_intrinsics.h no such call)%s",
             name, sched_intrinsics_dir(), name, ir_suggest_text(&near, dym, sizeof dym));
    ok = false;
  }
  if (names) sched_intrinsic_names_free(names, count);
  free(hdr);
  if (!ok) {
    sb_free(&sb);
    return NULL;
  }
  return sb_take(&sb);
}

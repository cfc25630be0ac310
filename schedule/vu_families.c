/* The text of each VU family member (npu_intrinsics/npu_vu_families.def):
 * its semantics kernel, written as the hand-written ones are (a loop per
 * dimension, the sizes as macros, "scopes:" and "abi:" comment lines), and
 * its prototype and call macro. scripts/vu_families_gen.c writes them into
 * npu_intrinsics/ (make vu-ops); a test checks the files are what the table
 * gives. The SEM column is a template over X, Y and M, each replaced by an
 * operand's element. */
#include "schedule/vu_families.h"

#include <stdio.h>
#include <string.h>

static const SchedVuOp ops[] = {
#define NPU_VU_OP(NAME, OP, FORM, T, SIM, SEM) {#NAME, #OP, #FORM, #T, SEM},
#include "npu_vu_families.def"
#undef NPU_VU_OP
};

const SchedVuOp *sched_vu_ops(int *count) {
  *count = (int)(sizeof ops / sizeof ops[0]);
  return ops;
}

const SchedVuOp *sched_vu_op(const char *name) {
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(ops[i].name, name)) return &ops[i];
  return NULL;
}

static bool is_window(const SchedVuOp *op) { return !strncmp(op->form, "win_", 4); }
static bool is_strided(const SchedVuOp *op) { return !strcmp(op->form, "str"); }
static bool is_plane(const SchedVuOp *op) { return !strcmp(op->form, "str_plane"); }
static bool is_cast(const SchedVuOp *op) { return !strncmp(op->form, "from_", 5); }
static bool is_rows(const SchedVuOp *op) { return !strcmp(op->form, "rows"); }
static bool is_reduce(const SchedVuOp *op) { return !strncmp(op->form, "red_", 4); }
static bool is_box(const SchedVuOp *op) { return !strcmp(op->form, "box_un"); }
static bool is_fill(const SchedVuOp *op) { return !strcmp(op->form, "fill"); }
static bool is_acc(const SchedVuOp *op) { return !strncmp(op->form, "box_acc_", 8); }
static bool is_cols(const SchedVuOp *op) { return !strcmp(op->form, "cols2"); }
static bool is_dot(const SchedVuOp *op) { return !strcmp(op->form, "red2_zero"); }

/* The C type of a type column's name (i8, i32, f32). */
static const char *c_type_of(const char *t) {
  return !strcmp(t, "i8") ? "int8_t" : !strcmp(t, "i32") ? "int32_t" : "float";
}
static const char *c_type(const SchedVuOp *op) { return c_type_of(op->type); }

/* The element type of operand a, b or c: a cast's a (a box_acc's a and b) is of the type its
 * form names (from_i8: int8_t), every other operand of the row's type. */
static const char *operand_type(const SchedVuOp *op, const char *name) {
  const char *f = op->form;
  if (!strcmp(name, "m") && (!strcmp(f, "sel") || !strcmp(f, "mask") || !strcmp(f, "sel_e"))) return "uint8_t";
  if (is_cast(op) && !strcmp(name, "a")) return c_type_of(op->form + 5);
  if (is_acc(op) && strcmp(name, "dst")) return c_type_of(op->form + 8);
  return c_type(op);
}

/* The semantics calls a C library function (fabsf(, expf(): it includes
 * <math.h>. A cast's parenthesis is no call. */
static bool calls_library(const char *sem) {
  for (const char *p = strchr(sem, '('); p; p = strchr(p + 1, '('))
    if (p > sem && ((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= '0' && p[-1] <= '9'))) return true;
  return false;
}

/* sem with X, Y, M and Z replaced by x, y, m and z; a 1-D select's P and
 * Q by p[i] and q[i], its scalars T, E and C by t, e and c, a fill's V by
 * its value, cols2's G by g[c]. */
static void expand_z(StrBuf *sb, const char *sem, const char *x, const char *y, const char *m, const char *z) {
  for (const char *p = sem; *p; p++) {
    const char *with = *p == 'X' ? x : *p == 'Y' ? y : *p == 'M' ? m : *p == 'Z' ? z : *p == 'P' ? "p[i]"
                     : *p == 'Q' ? "q[i]" : *p == 'T' ? "t" : *p == 'E' ? "e" : *p == 'C' ? "c" : *p == 'V' ? "value"
                     : *p == 'G' ? "g[c]" : NULL;
    if (with) sb_puts(sb, with);
    else sb_putc(sb, *p);
  }
}

static void expand(StrBuf *sb, const char *sem, const char *x, const char *y, const char *m) {
  expand_z(sb, sem, x, y, m, "");
}

/* The element-wise statement of a 1-D form: dst[i] = ...; */
static void element_value(StrBuf *sb, const SchedVuOp *op) {
  const char *f = op->form;
  const char *y = !strcmp(f, "vs") ? "s" : "b[i]";
  if (is_strided(op)) {
    expand(sb, op->sem, "a[i * SA]", "b[i * SB]", "");
  } else if (!strcmp(f, "mask")) {
    sb_puts(sb, "m[i] ? (");
    expand(sb, op->sem, "a[i]", y, "m[i]");
    sb_puts(sb, ") : c[i]");
  } else {
    expand(sb, op->sem, "a[i]", y, "m[i]");
  }
}

/* The operands after dst, as the semantics kernel declares them, and as
 * the abi line and the prototype name them. */
static const char *operands(const SchedVuOp *op) {
  const char *f = op->form;
  return !strcmp(f, "vv") || !strcmp(f, "cmp") || !strcmp(f, "str") || !strcmp(f, "str_plane") || is_rows(op) ||
                 is_acc(op) || is_dot(op)
             ? "a b"
         : is_cols(op)                                                                                      ? "a g b"
         : !strcmp(f, "sel") || !strcmp(f, "sel_t") || !strcmp(f, "sel_tc")                                 ? "m a b"
         : !strcmp(f, "mask")                                                                               ? "m a b c"
         : !strcmp(f, "sel_te") || !strcmp(f, "sel_e")                                                      ? "m a"
         : !strcmp(f, "sel_pq")                                                                             ? "p q a b"
         : !strcmp(f, "fill")                                                                               ? ""
                                                                                                            : "a";
}

/* The scalar operands after the sizes, in the call's order. */
static const char *scalars(const SchedVuOp *op) {
  const char *f = op->form;
  return !strcmp(f, "vs") || !strcmp(f, "win_avg") ? "s"
         : !strcmp(f, "sel_t")                     ? "t"
         : !strcmp(f, "sel_te")                    ? "t e"
         : !strcmp(f, "sel_e")                     ? "e"
         : !strcmp(f, "sel_tc")                    ? "t c"
         : !strcmp(f, "fill")                      ? "value"
                                                   : "";
}

static const char *form_note(const SchedVuOp *op) {
  const char *f = op->form;
  if (!strcmp(f, "cmp")) return "A byte mask: 1 where the compare holds, else 0 (C's compare: false for a NaN).";
  if (!strcmp(f, "sel")) return "Where the byte mask m is not 0, a; elsewhere b (b may be dst: a masked store).";
  if (!strcmp(f, "mask")) return "The op where the byte mask m is not 0; elsewhere c (c may be dst: an update under a mask).";
  if (is_window(op)) return "A pooling window reduction over one plane: each dst element reduces a KH x KW window of a,\n"
                            " * windows SH rows and SW columns apart. AH follows from the other sizes (not an argument).";
  if (strstr(op->sem, "fmaxf") || strstr(op->sem, "fminf"))
    return "C's fmaxf/fminf: a NaN operand gives the other; operands that compare equal (+0 and -0)\n"
           " * give the second. tensorize matches it only where the C library the check links does the same.";
  if (is_strided(op)) return "Strided operands: a's elements SA apart, b's SB apart (the corners of a pooling window).\n"
                             " * AN and BN follow from the other sizes (not arguments).";
  if (is_rows(op)) return "b holds one value per row (a row broadcast).";
  if (!strcmp(f, "sel_e")) return "Where the byte mask m is not 0, a; elsewhere the scalar e.";
  if (!strcmp(f, "sel_t") || !strcmp(f, "sel_te") || !strcmp(f, "sel_pq") || !strcmp(f, "sel_tc"))
    return "A compare and a predicated move in one instruction (C's compare: false for a NaN); b may be dst:\n"
           " * a masked store.";
  if (is_acc(op)) return "b is one element: a user's array of any rank binds to it when the indices\n"
                         " * are fixed inside the nest (w[c][r][s] under the loops over c, r and s).";
  if (is_cols(op)) return "g and b hold one value per column (layernorm's gamma and beta).";
  if (is_dot(op)) return "a and b may be the same array (a sum of squares: d[r][c] * d[r][c]).";
  if (is_plane(op)) return "Strided operands over a plane: a's rows RA apart and elements SA apart, b's RB and SB;\n"
                           " * LDD, LDA and LDB are the row lengths. AH and BH follow from the other sizes.";
  return NULL;
}

static void file_head(StrBuf *sb, const SchedVuOp *op) {
  sb_printf(sb, "/* Semantics of %s (npu_intrinsics.h), written in the kernel DSL.\n", op->name);
  sb_puts(sb, " * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.\n");
  sb_puts(sb, " * scopes: dst vu_vm");
  StrBuf abi;
  sb_init(&abi);
  sb_printf(&abi, "%s(dst", op->name);
  char names[16];
  snprintf(names, sizeof names, "%s", operands(op));
  char *save = NULL;
  for (char *t = strtok_r(names, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    sb_printf(sb, ", %s vu_vm", t);
    sb_printf(&abi, ", %s", t);
  }
  if (is_window(op)) sb_puts(&abi, ", ROWS, COLS, KH, KW, SH, SW, LDD, LDA");
  else if (is_strided(op)) sb_puts(&abi, ", N, SA, SB");
  else if (is_plane(op)) sb_puts(&abi, ", ROWS, COLS, RA, SA, RB, SB, LDD, LDA, LDB");
  else if (is_rows(op) || is_box(op) || is_acc(op) || is_cols(op)) sb_puts(&abi, ", ROWS, COLS, LDD, LDA");
  else if (is_dot(op)) sb_puts(&abi, ", ROWS, COLS, LDA, LDB");
  else if (is_reduce(op)) sb_puts(&abi, ", ROWS, COLS, LD");
  else if (is_fill(op)) sb_puts(&abi, ", ROWS, COLS, LDD");
  else sb_puts(&abi, ", N");
  char sc[16];
  snprintf(sc, sizeof sc, "%s", scalars(op));
  for (char *t = strtok_r(sc, " ", &save); t; t = strtok_r(NULL, " ", &save)) sb_printf(&abi, ", %s", t);
  sb_printf(sb, "\n * abi: %s)\n", abi.data);
  sb_free(&abi);
  if (strstr(op->sem, "fmaxf") || strstr(op->sem, "fminf"))
    sb_printf(sb, " * libm: %s\n", strstr(op->sem, "fmaxf") ? "fmaxf" : "fminf");
  const char *note = form_note(op);
  if (note) sb_printf(sb, " * %s\n", note);
  sb_puts(sb, " * The sizes are one instance of the intrinsic; it is defined for any sizes\n"
              " * that satisfy the limits in npu_intrinsics.h. */\n#include <stdint.h>\n");
  if (calls_library(op->sem)) sb_puts(sb, "#include <math.h>\n");
}

static void window_kernel(StrBuf *sb, const SchedVuOp *op, const char *t) {
  sb_puts(sb, "#define ROWS 4\n#define COLS 5\n#define KH 2\n#define KW 2\n#define SH 2\n#define SW 2\n"
              "#define LDD 5\n#define LDA 10\n#define AH ((ROWS - 1) * SH + KH)\n\n");
  bool avg = !strcmp(op->form, "win_avg");
  sb_printf(sb, "void %s(%s dst[ROWS][LDD], const %s a[AH][LDA]%s) {\n", op->name, t, t, avg ? ", float s" : "");
  sb_puts(sb, "  for (int r = 0; r < ROWS; r++)\n    for (int c = 0; c < COLS; c++) {\n      init: dst[r][c] = ");
  sb_puts(sb, !strcmp(op->form, "win_first") ? "a[r * SH][c * SW]" : !strcmp(op->type, "f32") ? "0.0f" : "0");
  sb_puts(sb, ";\n      for (int p = 0; p < KH; p++)\n        for (int q = 0; q < KW; q++)\n          update: dst[r][c] = ");
  expand(sb, op->sem, "a[r * SH + p][c * SW + q]", "dst[r][c]", "");
  sb_puts(sb, ";\n");
  if (avg) sb_puts(sb, "      scale: dst[r][c] = dst[r][c] / s;\n");
  sb_puts(sb, "    }\n}\n");
}

static void plane_kernel(StrBuf *sb, const SchedVuOp *op, const char *t) {
  sb_puts(sb, "#define ROWS 4\n#define COLS 5\n#define RA 2\n#define SA 2\n#define RB 2\n#define SB 2\n#define LDD 5\n"
              "#define LDA 10\n#define LDB 10\n#define AH ((ROWS - 1) * RA + 1)\n#define BH ((ROWS - 1) * RB + 1)\n\n");
  sb_printf(sb, "void %s(%s dst[ROWS][LDD], const %s a[AH][LDA], const %s b[BH][LDB]) {\n", op->name, t, t, t);
  sb_puts(sb, "  for (int r = 0; r < ROWS; r++)\n    for (int c = 0; c < COLS; c++)\n      dst[r][c] = ");
  expand(sb, op->sem, "a[r * RA][c * SA]", "b[r * RB][c * SB]", "");
  sb_puts(sb, ";\n}\n");
}

/* SEM "Y OP rest" with OP one of + - * as its compound assignment
 * "Y OP= rest", as C writes a reduction's step or an update; NULL when SEM
 * is not of that shape, or when rest holds an operator that does not bind
 * tighter than OP (Y + X + Z is not Y += X + Z in floating point). */
static const char *compound_step(const char *sem) {
  if (strncmp(sem, "Y ", 2) || !sem[2] || !strchr("+-*", sem[2]) || strncmp(sem + 3, " ", 1)) return NULL;
  const char *looser = sem[2] == '*' ? "+-*/%?<>=&|^!" : "+-?<>=&|^!";
  if (strpbrk(sem + 4, looser)) return NULL;
  return sem[2] == '+' ? "+=" : sem[2] == '-' ? "-=" : "*=";
}

/* The step that updates lhs (Y in SEM) from x and z: "lhs += x" when SEM
 * is a compound step, else "lhs = SEM". */
static void update_step(StrBuf *sb, const SchedVuOp *op, const char *lhs, const char *x, const char *z) {
  const char *step = compound_step(op->sem);
  sb_printf(sb, "%s %s ", lhs, step ? step : "=");
  expand_z(sb, step ? op->sem + 4 : op->sem, x, lhs, "", z);
}

/* A box of ROWS x COLS elements: rows (b one value per row), box_un, cols2
 * (g and b one value per column) and box_acc (an update of dst with a
 * one-element b). */
static void box_kernel(StrBuf *sb, const SchedVuOp *op, const char *t) {
  sb_puts(sb, "#define ROWS 8\n#define COLS 16\n#define LDD 16\n#define LDA 16\n\n");
  sb_printf(sb, "void %s(%s dst[ROWS][LDD], const %s a[ROWS][LDA]", op->name, t, operand_type(op, "a"));
  if (is_rows(op)) sb_printf(sb, ", const %s b[ROWS]", t);
  if (is_cols(op)) sb_printf(sb, ", const %s g[COLS], const %s b[COLS]", t, t);
  if (is_acc(op)) sb_printf(sb, ", const %s b[1]", operand_type(op, "b"));
  sb_puts(sb, ") {\n  for (int r = 0; r < ROWS; r++)\n    for (int c = 0; c < COLS; c++)\n      ");
  if (is_acc(op)) {
    update_step(sb, op, "dst[r][c]", "a[r][c]", "b[0]");
  } else {
    sb_puts(sb, "dst[r][c] = ");
    expand(sb, op->sem, "a[r][c]", is_cols(op) ? "b[c]" : "b[r]", "");
  }
  sb_puts(sb, ";\n}\n");
}

/* A row reduction: dst[r] from 0 (red_zero, red2_zero) or a[r][0]
 * (red_first), then the step over the row's elements in order (red2: over
 * a's and b's). */
static void reduce_kernel(StrBuf *sb, const SchedVuOp *op, const char *t) {
  bool first = !strcmp(op->form, "red_first");
  if (is_dot(op)) {
    sb_puts(sb, "#define ROWS 8\n#define COLS 16\n#define LDA 16\n#define LDB 16\n\n");
    sb_printf(sb, "void %s(%s dst[ROWS], const %s a[ROWS][LDA], const %s b[ROWS][LDB]) {\n", op->name, t, t, t);
  } else {
    sb_puts(sb, "#define ROWS 16\n#define COLS 16\n#define LD 16\n\n");
    sb_printf(sb, "void %s(%s dst[ROWS], const %s a[ROWS][LD]) {\n", op->name, t, t);
  }
  sb_printf(sb, "  for (int r = 0; r < ROWS; r++) {\n    dst[r] = %s;\n",
            first ? "a[r][0]" : !strcmp(op->type, "f32") ? "0.0f" : "0");
  sb_printf(sb, "    for (int c = %d; c < COLS; c++)\n      ", first ? 1 : 0);
  update_step(sb, op, "dst[r]", "a[r][c]", "b[r][c]");
  sb_puts(sb, ";\n  }\n}\n");
}

/* A library function's domain: the check's inputs must keep its operand
 * where it is defined (a scalar parameter is drawn in [0.5, 1.5)), or its
 * NaNs say nothing. */
static void domain_inputs(StrBuf *sb, const SchedVuOp *op) {
  if (strstr(op->sem, "sqrtf"))
    sb_printf(sb, "\n/* sqrtf is defined where its operand is >= 0: a is drawn in [0, 4) */\n"
                  "#pragma npu inputs(%s, a, 0, 4)\n", op->name);
  else if (strstr(op->sem, "logf"))
    sb_printf(sb, "\n/* logf is finite where its operand is > 0: a is drawn in [0.5, 4) */\n"
                  "#pragma npu inputs(%s, a, 0.5, 4)\n", op->name);
}

void sched_vu_op_semantics(const SchedVuOp *op, StrBuf *sb) {
  const char *t = c_type(op);
  file_head(sb, op);
  if (is_window(op)) {
    window_kernel(sb, op, t);
    return;
  }
  if (is_plane(op)) {
    plane_kernel(sb, op, t);
    return;
  }
  if (is_rows(op) || is_box(op) || is_cols(op) || is_acc(op)) {
    box_kernel(sb, op, t);
    domain_inputs(sb, op);
    return;
  }
  if (is_reduce(op) || is_dot(op)) {
    reduce_kernel(sb, op, t);
    return;
  }
  if (is_fill(op)) {
    sb_printf(sb, "#define ROWS 8\n#define COLS 16\n#define LDD 16\n\nvoid %s(%s dst[ROWS][LDD], %s value) {\n", op->name, t, t);
    sb_puts(sb, "  for (int r = 0; r < ROWS; r++)\n    for (int c = 0; c < COLS; c++)\n      dst[r][c] = ");
    expand(sb, op->sem, "", "", "");
    sb_puts(sb, ";\n}\n");
    return;
  }
  sb_puts(sb, "#define N 64\n");
  if (is_strided(op)) sb_puts(sb, "#define SA 2\n#define SB 2\n#define AN ((N - 1) * SA + 1)\n#define BN ((N - 1) * SB + 1)\n");
  sb_puts(sb, "\n");
  sb_printf(sb, "void %s(%s dst[N]", op->name, !strcmp(op->form, "cmp") ? "uint8_t" : t);
  char names[16];
  snprintf(names, sizeof names, "%s", operands(op));
  char *save = NULL;
  for (char *a = strtok_r(names, " ", &save); a; a = strtok_r(NULL, " ", &save))
    sb_printf(sb, ", const %s %s[%s]", operand_type(op, a), a, !is_strided(op) ? "N" : !strcmp(a, "a") ? "AN" : "BN");
  char sc[16];
  snprintf(sc, sizeof sc, "%s", scalars(op));
  for (char *a = strtok_r(sc, " ", &save); a; a = strtok_r(NULL, " ", &save)) sb_printf(sb, ", %s %s", t, a);
  sb_puts(sb, ") {\n  for (int i = 0; i < N; i++)\n    dst[i] = ");
  element_value(sb, op);
  sb_puts(sb, ";\n}\n");
  domain_inputs(sb, op);
}

/* The prototype's parameters after (file, line). */
static void parameters(StrBuf *sb, const SchedVuOp *op) {
  const char *t = c_type(op), *f = op->form;
  sb_printf(sb, "%s *dst", !strcmp(f, "cmp") ? "uint8_t" : t);
  char names[16];
  snprintf(names, sizeof names, "%s", operands(op));
  char *save = NULL;
  for (char *a = strtok_r(names, " ", &save); a; a = strtok_r(NULL, " ", &save))
    sb_printf(sb, ", const %s *%s", operand_type(op, a), a);
  if (is_window(op)) sb_puts(sb, ", int rows, int cols, int kh, int kw, int sh, int sw, int ldd, int lda");
  else if (is_rows(op) || is_box(op) || is_cols(op) || is_acc(op)) sb_puts(sb, ", int rows, int cols, int ldd, int lda");
  else if (is_reduce(op)) sb_puts(sb, ", int rows, int cols, int ld");
  else if (is_dot(op)) sb_puts(sb, ", int rows, int cols, int lda, int ldb");
  else if (is_fill(op)) sb_puts(sb, ", int rows, int cols, int ldd");
  else if (is_strided(op)) sb_puts(sb, ", int n, int sa, int sb");
  else if (is_plane(op)) sb_puts(sb, ", int rows, int cols, int ra, int sa, int rb, int sb, int ldd, int lda, int ldb");
  else sb_puts(sb, ", int n");
  char sc[16];
  snprintf(sc, sizeof sc, "%s", scalars(op));
  for (char *a = strtok_r(sc, " ", &save); a; a = strtok_r(NULL, " ", &save)) sb_printf(sb, ", %s %s", t, a);
}

/* What the op computes, in one line of C over the call's operands. */
static void summary(StrBuf *sb, const SchedVuOp *op) {
  if (is_window(op)) {
    sb_puts(sb, "dst[r*ldd + c] = the window's y, from ");
    sb_puts(sb, !strcmp(op->form, "win_first") ? "its first element" : "0");
    sb_puts(sb, ", y = ");
    expand(sb, op->sem, "x", "y", "");
    sb_puts(sb, " over each x of the window in row order");
    if (!strcmp(op->form, "win_avg")) sb_puts(sb, ", then y / s");
    return;
  }
  if (is_rows(op) || is_box(op) || is_cols(op) || is_acc(op)) {
    sb_puts(sb, "dst[r*ldd + c] = ");
    expand_z(sb, op->sem, "a[r*lda + c]", is_cols(op) ? "b[c]" : is_acc(op) ? "dst[r*ldd + c]" : "b[r]", "", "b[0]");
    if (is_cols(op)) sb_puts(sb, " (rounded after each operation)");
    return;
  }
  if (is_dot(op)) {
    sb_puts(sb, "dst[r] = the row's y, from 0, y = ");
    expand_z(sb, op->sem, "x", "y", "", "z");
    sb_puts(sb, " over each x = a[r*lda + c] and z = b[r*ldb + c] in order (cols >= 1; a and b may be the same rows)");
    return;
  }
  if (is_fill(op)) {
    sb_puts(sb, "dst[r*ldd + c] = ");
    expand(sb, op->sem, "", "", "");
    sb_puts(sb, " (ldd >= cols when rows > 1)");
    return;
  }
  if (is_reduce(op)) {
    sb_printf(sb, "dst[r] = the row's y, from %s, y = ", !strcmp(op->form, "red_first") ? "its first element" : "0");
    expand(sb, op->sem, "x", "y", "");
    sb_puts(sb, " over each x = a[r*ld + c] in order (cols >= 1; ld >= cols when rows > 1)");
    return;
  }
  sb_puts(sb, "dst[i] = ");
  if (is_strided(op)) expand(sb, op->sem, "a[i*sa]", "b[i*sb]", "");
  else element_value(sb, op);
}

static void summary_plane(StrBuf *sb, const SchedVuOp *op) {
  sb_puts(sb, "dst[r*ldd + c] = ");
  expand(sb, op->sem, "a[r*ra*lda + c*sa]", "b[r*rb*ldb + c*sb]", "");
}

void sched_vu_ops_header(StrBuf *sb) {
  sb_puts(sb, "/* npu_vu_families.h -- the VU's op families, part of the ABI of npu_intrinsics.h\n"
              " * (which includes it). Generated from npu_vu_families.def (make vu-ops):\n"
              " * change the table, not this file.\n"
              " *\n"
              " * Every operand is in the VU_VM of one core; the op runs on that core.\n"
              " * 1-D forms run over n elements; boxes over rows x cols elements, rows\n"
              " * ldd (lda) apart; row reductions over cols >= 1 elements of each row;\n"
              " * windows over rows x cols outputs, the\n"
              " * kh x kw window of output (r, c) starting at a[(r*sh)*lda + c*sw]\n"
              " * (ldd >= cols when rows > 1; lda >= (cols-1)*sw + kw when the windows\n"
              " * cover more than one row). int8 and int32 arithmetic wraps (the kernel\n"
              " * language leaves int32 overflow undefined, as C does). A byte mask m is\n"
              " * one uint8_t per element, not 0 = the op's value. Cycles: one vector of\n"
              " * work per vector of the widest operand (a window: of a's box). Each op's\n"
              " * exact semantics is npu_intrinsics/<name>.c. */\n"
              "#ifndef NPU_VU_FAMILIES_H\n#define NPU_VU_FAMILIES_H\n\n#include <stdint.h>\n\n"
              "#ifdef __cplusplus\nextern \"C\" {\n#endif\n");
  int n;
  const SchedVuOp *v = sched_vu_ops(&n);
  for (int i = 0; i < n; i++) {
    sb_puts(sb, "\n/* ");
    if (is_plane(&v[i])) summary_plane(sb, &v[i]);
    else summary(sb, &v[i]);
    sb_printf(sb, " */\nvoid %s_at(const char *file, int line, ", v[i].name);
    parameters(sb, &v[i]);
    sb_printf(sb, ");\n#define %s(...) %s_at(__FILE__, __LINE__, __VA_ARGS__)\n", v[i].name, v[i].name);
  }
  sb_puts(sb, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
}

void sched_vu_ops_families(StrBuf *sb) {
  int n;
  const SchedVuOp *v = sched_vu_ops(&n);
  for (int i = 0; i < n; i++) {
    bool first = true; /* the first row of its family: list the family's rows */
    for (int j = 0; j < i && first; j++) first = strcmp(v[j].op, v[i].op) != 0;
    if (!first) continue;
    sb_printf(sb, "  %-11s", v[i].op);
    for (int j = i; j < n; j++) { /* each form once, with its types */
      bool form_first = !strcmp(v[j].op, v[i].op);
      for (int k = i; k < j && form_first; k++) form_first = strcmp(v[k].op, v[i].op) || strcmp(v[k].form, v[j].form);
      if (!form_first) continue;
      sb_printf(sb, "  %s:", v[j].form);
      for (int k = j; k < n; k++)
        if (!strcmp(v[k].op, v[i].op) && !strcmp(v[k].form, v[j].form)) sb_printf(sb, " %s", v[k].type);
    }
    sb_puts(sb, "\n              ");
    for (int j = i; j < n; j++)
      if (!strcmp(v[j].op, v[i].op)) sb_printf(sb, " %s", v[j].name);
    sb_puts(sb, "\n");
  }
}

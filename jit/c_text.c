/* Lower, then print: the one way a variant's C and the reference's text
 * are made (jit/c_text.h). */
#include <stdlib.h>
#include <string.h>

#include "jit/c_text.h"
#include "emit/emit.h"
#include "lower/ref_lower.h"

char *jit_c_source(const LowerUnit *u) {
  LoweredModule m;
  lower_module(u, &m);
  char *text = emit_c_source(&m);
  lower_module_free(&m);
  return text;
}

char *jit_c_header(const LowerUnit *u) {
  LoweredModule m;
  lower_module(u, &m);
  char *text = emit_c_header(&m);
  lower_module_free(&m);
  return text;
}

void jit_c_files(const LowerUnit *u, char **source, char **header) {
  LoweredModule m;
  lower_module(u, &m);
  *source = emit_c_source(&m);
  *header = emit_c_header(&m);
  lower_module_free(&m);
}

/* How the JIT calls the reference (after the kernel's #defines: only
 * npg_ names). */
static void reference_thunk(StrBuf *sb, const Kernel *k) {
  sb_printf(sb, "\nvoid npg_ref_%s(void **npg_args) {\n  NpgCk npg_ck;\n  npg_ck.npg_site = (int *)npg_args[%d];\n",
            k->name, k->nparams);
  sb_printf(sb, "  *npg_ck.npg_site = 0;\n  if (!setjmp(npg_ck.npg_jb)) npg_checked_%s(&npg_ck", k->name);
  int i = 0;
  for (const Param *p = k->params; p; p = p->next, i++) {
    if (p->buf) sb_printf(sb, ", npg_args[%d]", i);
    else sb_printf(sb, ", *(%s *)npg_args[%d]", p->var->type->name, i);
  }
  sb_puts(sb, ");\n}\n");
}

void jit_reference_text(const Module *m, const Kernel *k, CheckedUnit *out) {
  LoweredModule lm;
  lower_reference_module(m, k, &lm);
  char *text = emit_c_source(&lm);
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, text);
  free(text);
  reference_thunk(&sb, k);
  out->source = sb_take(&sb);
  out->sites = lm.reference->sites; /* taken */
  out->nsites = lm.reference->nsites;
  lm.reference->sites = NULL;
  lm.reference->nsites = 0;
  lower_module_free(&lm);
}

void jit_checked_unit_free(CheckedUnit *u) {
  for (int i = 0; i < u->nsites; i++) free(u->sites[i].what);
  free(u->sites);
  free(u->source);
  memset(u, 0, sizeof *u);
}

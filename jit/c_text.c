/* Lower, then print: the one way a variant's C and the reference's text
 * are made (jit/c_text.h). */
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

void jit_reference_text(const Module *m, const Kernel *k, CheckedUnit *out) {
  CheckRef ref;
  lower_check_ref(k, &ref);
  emit_checked(m, k, &ref, out);
  lower_check_ref_free(&ref);
}

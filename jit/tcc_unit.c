#include "jit/tcc_unit.h"
#include "jit/guard.h"

#include <libtcc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/util.h"
#include "sim/npusim.h"

struct TccUnit {
  TCCState *s;
};

typedef struct {
  char *buf;
  size_t size, len;
} ErrSink;

static void on_tcc_error(void *opaque, const char *msg) {
  ErrSink *e = opaque;
  if (!e->buf || e->size == 0) return;
  int n = snprintf(e->buf + e->len, e->size - e->len, "%s%s", e->len ? "\n" : "", msg);
  if (n > 0) e->len = e->len + (size_t)n < e->size ? e->len + (size_t)n : e->size - 1;
}

/* The check's C of a program declares each local array it passes to a
 * call to the simulator, as the check declares the parameters (emit/
 * emit_file.c): a callee's DMA may read or write it. */
static void check_ddr(const void *p, unsigned long bytes, const char *name) {
  NpuSim *sim = npusim_current();
  if (sim) npusim_add_ddr(sim, p, bytes, name);
}

TccUnit *tcc_unit_compile(const char *source, const char *source_name, char *err,
                          size_t err_size) {
  ErrSink sink = {err, err_size, 0};
  if (err && err_size) err[0] = 0;
  TCCState *s = tcc_new();
  if (!s) {
    snprintf(err, err_size, "libtcc: cannot create a compiler state");
    return NULL;
  }
  tcc_set_error_func(s, &sink, on_tcc_error);
  tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
  tcc_add_include_path(s, "npu_intrinsics");
#ifdef NPG_INTRINSICS_INCLUDE_DIR
  tcc_add_include_path(s, NPG_INTRINSICS_INCLUDE_DIR);
#endif
  tcc_add_library(s, "m");

  /* tcc reports errors against "<string>"; a #line gives it the real name. */
  StrBuf text;
  sb_init(&text);
  sb_puts(&text, "#line 1 \"");
  sb_c_text(&text, C_TEXT_STRING, source_name, strlen(source_name));
  sb_printf(&text, "\"\n%s", source);
  int rc = tcc_compile_string(s, text.data);
  sb_free(&text);
  if (rc < 0) goto fail;

  size_t count = 0;
  const NpuSimSymbol *syms = npusim_symbols(&count);
  for (size_t i = 0; i < count; i++) tcc_add_symbol(s, syms[i].name, syms[i].addr);
  tcc_add_symbol(s, "npg_check_ddr", (const void *)check_ddr);
  tcc_add_symbol(s, "npg_assume_failed", (const void *)guard_assumption_failed);

  if (tcc_relocate(s, TCC_RELOCATE_AUTO) < 0) goto fail;
  TccUnit *u = malloc(sizeof *u);
  u->s = s;
  return u;
fail:
  tcc_delete(s);
  return NULL;
}

void *tcc_unit_symbol(TccUnit *u, const char *name) { return tcc_get_symbol(u->s, name); }

void tcc_unit_free(TccUnit *u) {
  if (!u) return;
  tcc_delete(u->s);
  free(u);
}

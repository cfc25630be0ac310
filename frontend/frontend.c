/* The frontend driver: parse with tree-sitter-c, check the syntax tree, and
 * lower each top-level item; then the whole-kernel analyses. */
#include <errno.h>
#include <string.h>

#include "frontend/fe.h"
#include "ir/sizes.h"
#include "ir/preconditions.h"

const TSLanguage *tree_sitter_c(void);

const TSLanguage *frontend_language(void) { return tree_sitter_c(); }

void module_free(Module *m) {
  if (!m) return;
  Arena a = m->arena; /* the module itself lives in its arena */
  arena_free(&a);
}

static void top_level(Fe *fe, TSNode n) {
  const char *t = ts_node_type(n);
  if (!strcmp(t, "comment") || !strcmp(t, ";")) return;
  if (!strcmp(t, "preproc_include")) {
    fe_include(fe, n);
  } else if (!strcmp(t, "preproc_def")) {
    fe_define(fe, n);
  } else if (!strcmp(t, "preproc_call")) {
    fe_pragma(fe, n);
  } else if (!strcmp(t, "function_definition")) {
    Kernel *k = fe_kernel(fe, n);
    fe->k = NULL;
    /* a kernel with sizes, or calling one: once the assumptions (pragmas after it) are read */
    if (!k->nsizes && !fe_calls_sized(k) && !ir_check_bounds(k, fe->diags, fe->file, fe->src)) longjmp(fe->fail, 1);
    *fe->kernel_tail = k;
    fe->kernel_tail = &k->next;
    ir_map_put(&fe->kernel_names, k->name, k);
  } else if (!strcmp(t, "preproc_function_def")) {
    /* expanded at its uses (macros.c) */
    fe_check_name(fe, fe_field(n, "name"), fe_text(fe, fe_field(n, "name")), "macro");
  } else if (!strcmp(t, "declaration")) {
    TSNode d = fe_field(n, "declarator");
    if (fe_is(d, "function_declarator")) fe_error(fe, n, "function declarations are not supported; define the kernel instead");
    fe_error(fe, n, "global variables are not supported in kernels; pass arrays as parameters");
  } else if (!strcmp(t, "struct_specifier") || !strcmp(t, "union_specifier") || !strcmp(t, "enum_specifier")) {
    fe_error(fe, n, "structs, unions and enums are not supported in kernels");
  } else if (!strcmp(t, "type_definition")) {
    fe_typedef(fe, n);
  } else {
    fe_error(fe, n, "unsupported top-level item (%s)", t);
  }
}

bool frontend_input_ok(const char *file, const char *src, size_t len, DiagList *d) {
  if (len > FE_MAX_SOURCE_BYTES) {
    diag_error(d, file, NULL, 0, 0, "file is too large (%zu bytes); the limit is %d MiB (%d bytes)", len,
               FE_MAX_SOURCE_BYTES >> 20, FE_MAX_SOURCE_BYTES);
    return false;
  }
  const char *z = memchr(src, 0, len);
  if (z) {
    /* The line and column of the first NUL, for the message. */
    int line = 1, col = 1;
    for (const char *p = src; p < z; p++) {
      col = *p == '\n' ? 1 : col + 1;
      line += *p == '\n';
    }
    diag_error(d, file, NULL, line, col, "file contains a NUL byte: not a C source file");
    return false;
  }
  return true;
}

void frontend_read_error(const char *file, int err, DiagList *d) {
  if (err == EFBIG)
    diag_error(d, file, NULL, 0, 0, "file is too large (more than %d bytes); the limit is %d MiB (%d bytes)",
               FE_MAX_SOURCE_BYTES, FE_MAX_SOURCE_BYTES >> 20, FE_MAX_SOURCE_BYTES);
  else diag_error(d, file, NULL, 0, 0, "cannot read file: %s", strerror(err));
}

/* Each `#pragma npu sizes` set satisfies the kernel's assumptions: the
 * check runs the emitted C there, which tests them at entry. */
static void check_size_sets(const Kernel *k, DiagList *d, const char *file, const char *src) {
  for (int i = 0; i < k->nsize_sets; i++) {
    const SizeSet *set = &k->size_sets[i];
    int broken = ir_size_set_breaks(k, set);
    if (broken < 0) continue;
    char sz[200];
    ir_size_set_text(k, set, sz, sizeof sz);
    if (broken == k->nassume) {
      diag_error(d, file, src, set->loc.line, set->loc.col, "at %s an extent of an array of %s is less than 1", sz,
                 k->name);
      continue;
    }
    StrBuf t;
    sb_init(&t);
    ir_print_expr(&t, k->assume[broken]);
    /* a derived precondition is named with why npugen derived it */
    if (k->assume_why[broken])
      diag_error(d, file, src, set->loc.line, set->loc.col, "%s breaks the precondition '%s' (line %d: %s) of %s", sz,
                 t.data, k->assume_loc[broken].line, k->assume_why[broken], k->name);
    else
      diag_error(d, file, src, set->loc.line, set->loc.col, "%s breaks the assumption '%s' (line %d) of %s", sz,
                 t.data, k->assume_loc[broken].line, k->name);
    sb_free(&t);
  }
}

static Module *parse_module(const char *file, const char *src, size_t len, DiagList *d, bool intrinsic) {
  if (!frontend_input_ok(file, src, len, d)) return NULL;
  Arena arena;
  arena_init(&arena, FE_MAX_ARENA_BYTES);
  Module *m = ARENA_NEW(&arena, Module);
  m->file = arena_strdup(&arena, file);
  m->src = arena_strndup(&arena, src, len);
  Fe fe;
  memset(&fe, 0, sizeof fe);
  fe.file = m->file;
  fe.src = m->src;
  fe.text = m->src;
  fe.m = m;
  fe.arena = &arena;
  fe.diags = d;
  fe.lang = tree_sitter_c();
  fe.globals = ARENA_NEW(&arena, Scope);
  fe.intrinsic_file = intrinsic;
  fe.sched_tail = &m->schedules;
  fe.define_tail = &m->defines;
  fe.kernel_tail = &m->kernels;
  ir_map_init(&fe.kernel_names, &arena);

  TSTree *tree = fe_parse(fe.lang, m->src, (uint32_t)len);
  TSNode root = ts_tree_root_node(tree);
  int errors_before = d->errors;
  uint32_t expanded_len;
  const char *expanded = fe_preprocess(&fe, root, (uint32_t)len, &expanded_len);
  if (expanded) { /* the compiler's view of the file */
    ts_tree_delete(tree);
    tree = fe_parse(fe.lang, expanded, expanded_len);
    root = ts_tree_root_node(tree);
    fe.text = fe.file_text = expanded;
  } else {
    fe.file_text = m->src;
  }
  fe.root = root;

  if (!fe.preprocess_failed && fe_check_syntax(&fe, root)) {
    uint32_t cnt = ts_node_child_count(root);
    for (volatile uint32_t i = 0; i < cnt; i++) {
      TSNode n = ts_node_child(root, i);
      if (setjmp(fe.fail) == 0) top_level(&fe, n);
      fe.scope = NULL;
      fe.k = NULL;
      fe.depth = 0; /* an error unwinds without counting down */
      fe.map.active = false;
      fe.text = fe.file_text;
      if (arena.exhausted) {
        diag_error(d, file, NULL, 0, 0, "the kernel is too large (IR memory limit %d MiB)",
                   FE_MAX_ARENA_BYTES >> 20);
        break;
      }
    }
  }
  ts_tree_delete(tree);
  for (Kernel *k = m->kernels; k; k = k->next) {
    if (ir_derive_preconditions(k, &arena, d, file, m->src)) check_size_sets(k, d, file, m->src);
    fe_check_call_sizes(k, d, file, m->src); /* its callees' preconditions are derived by now */
  }
  if (d->errors > errors_before) {
    arena_free(&arena);
    return NULL;
  }
  if (!m->kernels) {
    /* at 1:1, where editors can jump to */
    diag_error(d, file, NULL, 1, 1, "no kernel found: expected at least one void function");
    arena_free(&arena);
    return NULL;
  }
  m->arena = arena;
  return m;
}

Module *frontend_parse(const char *file, const char *src, size_t len, DiagList *d) {
  return parse_module(file, src, len, d, false);
}

Module *frontend_parse_intrinsic(const char *file, const char *src, size_t len, DiagList *d) {
  return parse_module(file, src, len, d, true);
}

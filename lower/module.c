/* A variant's C and header lowered to one LoweredModule (lower/module.h,
 * docs/architecture.md): the decisions the printer used to ask lower/
 * for while it printed (includes, defines, guard, prototypes, entry
 * tests, padding notes, a program's functions, the layout helpers, the
 * check's spelling) are made here, once, as data. */
#include <stdlib.h>
#include <string.h>

#include "npugen.h" /* NPUGEN_VERSION_STRING */
#include "lower/file_mark.h"
#include "lower/ref_lower.h" /* lower_tcc_mask */
#include "lower/module.h"
#include "lower/padding_assumed.h"
#include "lower/tidy.h"

/* A growing list of lines in the module's arena. */
typedef struct {
  const char **items;
  int n, cap;
} Lines;

static void add_line(Arena *a, Lines *l, const char *line) {
  l->items = lower_room(a, l->items, l->n, &l->cap, sizeof *l->items);
  l->items[l->n++] = line;
}

/* Each line of text (as sb_lines splits it) after prefix. */
static void add_lines(Arena *a, Lines *l, const char *prefix, const char *text) {
  for (const char *p = text; *p;) {
    const char *e = strchr(p, '\n');
    int n = e ? (int)(e - p) : (int)strlen(p);
    add_line(a, l, arena_printf(a, "%s%.*s", prefix, n, p));
    p += n + (e ? 1 : 0);
  }
}

/* The kernel file's path as the comments spell it: the path as given,
 * with "." components, repeated slashes and "dir/.." pairs removed
 * (lexically), so `emit ./k.c` and `emit k.c` write the same bytes. */
static const char *shown_path(Arena *a, const char *path) {
  size_t n = strlen(path);
  char *out = arena_alloc(a, n + 2);
  size_t len = 0, root = path[0] == '/', kept = 0; /* kept: components that ".." may remove */
  if (root) out[len++] = '/';
  for (const char *p = path; *p;) {
    while (*p == '/') p++;
    size_t c = strcspn(p, "/");
    if (c == 1 && p[0] == '.') {
      /* "." names the directory it is in */
    } else if (c == 2 && p[0] == '.' && p[1] == '.' && kept) {
      while (len > root && out[len - 1] != '/') len--; /* drop the last component */
      if (len > root) len--;
      kept--;
    } else if (c && !(c == 2 && p[0] == '.' && p[1] == '.' && root)) { /* "/.." is "/" */
      if (len > root) out[len++] = '/';
      memcpy(out + len, p, c);
      len += c;
      kept += !(c == 2 && p[0] == '.' && p[1] == '.');
    }
    p += c;
  }
  if (!len) out[len++] = '.';
  out[len] = 0;
  return out;
}

/* The first line of the .c ("C99") or the .h ("Header"), which
 * cli/emit_dir.c knows npugen's files by. */
static void generated_line(Arena *a, const LowerUnit *u, const char *what, Lines *l) {
  add_line(a, l, arena_printf(a, "%s" NPG_FILE_GENERATED "%s from %s. Do not edit.", what, NPUGEN_VERSION_STRING,
                              shown_path(a, u->m->file)));
}

/* The comment that opens the .c. */
static void file_comment(Arena *a, const LowerUnit *u, Lines *l) {
  const char *file = shown_path(a, u->m->file);
  generated_line(a, u, NPG_FILE_KIND_SOURCE, l);
  add_line(a, l, arena_printf(a, "Kernel: %s (%s:%d)", u->k->name, file, u->k->loc.line));
  if (u->schedule && *u->schedule) {
    if (u->target) add_line(a, l, arena_printf(a, "Target: %s", u->target->name));
    add_line(a, l, arena_printf(a, "Schedule %s:", u->name));
    add_lines(a, l, "  ", u->schedule);
  } else {
    add_line(a, l, "Schedule: none (the kernel as written)");
  }
  char *padding = lower_padding_assumed(u->k, true);
  add_lines(a, l, "", padding);
  free(padding);
}

/* The defines of m that want marks (malloc'ed, freed here), as printed. */
static LoweredDefines defines(Arena *a, const Module *m, bool *want) {
  int i = 0, n = 0;
  for (const Define *d = m->defines; d; d = d->next) n++;
  LoweredDefines out = {ARENA_ARRAY(a, LoweredDefine, n ? n : 1), 0};
  for (const Define *d = m->defines; d; d = d->next, i++) {
    if (!want[i]) continue;
    StrBuf sb;
    sb_init(&sb);
    ir_define_text(&sb, d);
    out.items[out.n++] = (LoweredDefine){arena_strdup(a, sb.data ? sb.data : "")};
    sb_free(&sb);
  }
  free(want);
  return out;
}

/* What a function's lowering walk collects: its vectorized loops' notes
 * and (hooks) the buffers its host code reaches through npu_cu_access. */
typedef struct {
  Arena *a;
  LoweredFunction *f;
  int notes_cap, hooked_cap;
} Collect;

static void hook(Collect *c, const Buffer *b) {
  if (c->f->spelling != SPELL_CU_HOOKS || !lower_cu_hooked(b)) return;
  for (int i = 0; i < c->f->nhooked; i++)
    if (c->f->hooked[i] == b) return;
  c->f->hooked = lower_room(c->a, c->f->hooked, c->f->nhooked, &c->hooked_cap, sizeof *c->f->hooked);
  c->f->hooked[c->f->nhooked++] = b;
}

/* A local array's extents as the source spelt them (`float x[WP]`), where
 * the schedule left the extent as it was; NULL entries: the number. */
static const char *const *local_extents(Arena *a, const Buffer *b) {
  const char **out = NULL;
  for (int d = 0; d < b->ndim; d++) {
    const ExtentSpelling *sp = lower_extent_spelt(b, d);
    if (!sp || sp->value != b->shape[d]) continue;
    if (!out) out = ARENA_ARRAY(a, const char *, b->ndim);
    char *text = lower_extent_spelling(NULL, NULL, b, d);
    out[d] = arena_strdup(a, text);
    free(text);
  }
  return out;
}

static bool collect(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Collect *c = ctx;
  StrBuf note;
  sb_init(&note);
  if (s->kind == ST_FOR && lower_vec_note(s, &note)) {
    c->f->notes = lower_room(c->a, c->f->notes, c->f->nnotes, &c->notes_cap, sizeof *c->f->notes);
    c->f->notes[c->f->nnotes++] = (LoopNote){s, arena_strdup(c->a, note.data)};
  }
  sb_free(&note);
  if (s->kind == ST_DECL && s->buf) hook(c, s->buf);
  if (s->kind == ST_DECL && s->buf && !buffer_onchip(s->buf)) s->extents = local_extents(c->a, s->buf);
  if (s->low && s->low->kind == LOW_VIEW) hook(c, s->low->view_buf);
  if (s->intrin_call && s->intrin_call->fallback) ir_walk_stmts((Stmt *)s->intrin_call->fallback, collect, c);
  return true;
}

static void entry_tests(Arena *a, LoweredFunction *f) {
  EntryTest *t;
  f->ntests = lower_entry_tests(f->k, &t);
  f->tests = ARENA_ARRAY(a, EntryTest, f->ntests ? f->ntests : 1);
  if (f->ntests) memcpy(f->tests, t, sizeof *t * (size_t)f->ntests);
  free(t);
}

static void extent_macros(Arena *a, LoweredFunction *f) {
  f->extent_macro = ARENA_ARRAY(a, const char *, (f->k->nparams ? f->k->nparams : 1) * IR_MAX_DIMS);
  int i = 0;
  for (const Param *p = f->k->params; p; p = p->next, i++)
    for (int d = 0; p->buf && d < p->buf->ndim; d++) {
      char *spelt = lower_extent_spelling(NULL, NULL, p->buf, d);
      f->extent_macro[i * IR_MAX_DIMS + d] = spelt ? arena_strdup(a, spelt) : lower_extent_macro(p->buf, d);
      free(spelt);
    }
}

/* The extents that C would evaluate with an overflow before the entry
 * tests (lower/entry_extents.c), in the definition and, spelt the same
 * (gcc's -Wvla-parameter compares them), the header's C prototype; tcc's
 * and C++'s take such arrays flat or leave the extent out. */
static void extents_at_entry(Arena *a, LoweredFunction *f) {
  f->extent_at_entry = NULL;
  if (f->flat_params) return;
  f->extent_at_entry = ARENA_ARRAY(a, const Expr *, (f->k->nparams ? f->k->nparams : 1) * IR_MAX_DIMS);
  int i = 0;
  for (const Param *p = f->k->params; p; p = p->next, i++)
    for (int d = 0; p->buf && d < p->buf->ndim; d++)
      f->extent_at_entry[i * IR_MAX_DIMS + d] = lower_entry_extent(a, p->buf->extent[d]);
}

/* Each array parameter's spelling in f's prototype: `restrict` where the
 * kernel declared it or the unit assumes no aliasing (docs/schedules.md
 * says why that is sound only for arrays that do not overlap), unless f
 * has none (C++); flat where f's arrays are flat for tcc and the rows are
 * sized by the kernel's sizes. */
static void param_spellings(Arena *a, LoweredFunction *f) {
  int n = f->k->nparams ? f->k->nparams : 1, i = 0;
  f->param_restrict = ARENA_ARRAY(a, bool, n);
  f->param_flat = ARENA_ARRAY(a, bool, n);
  for (const Param *p = f->k->params; p; p = p->next, i++) {
    f->param_restrict[i] = p->buf && (p->buf->is_restrict || f->all_restrict) && !f->no_restrict;
    f->param_flat[i] = p->buf && f->flat_params && buffer_rows_symbolic(p->buf);
  }
}

/* tcc 0.9.27 refuses an array parameter sized by an earlier one
 * (`A[m][K]` after `int m`: "'m' undeclared"). C ignores the first
 * extent of an array parameter, so the .c spells a first extent in the
 * sizes NPUGEN_FIRST_EXTENT(e), which is e but for tcc (the header's tcc
 * prototype leaves it out too; the check's C is tcc's, flat, already).
 * Not where an array's rows are in the sizes: tcc takes no such array
 * parameter in any spelling but a flat one, which the body does not index
 * (docs/embedding.md). */
static bool first_extent_sized(const Kernel *k) {
  bool first = false;
  for (const Param *p = k->params; p; p = p->next) {
    if (p->buf && buffer_rows_symbolic(p->buf)) return false;
    first |= p->buf && p->buf->extent[0];
  }
  return first;
}

static const char *first_extent_macro(const LoweredModule *m) {
  bool any = m->main.first_extent_macro;
  for (int i = 0; i < m->nfunctions; i++) any |= m->functions[i].first_extent_macro;
  return any ? "#ifdef __TINYC__ /* tcc 0.9.27 takes no variable-length array parameter: "
               "an array parameter's first extent, which C ignores, left out */\n"
               "#define NPUGEN_FIRST_EXTENT(e)\n#else\n#define NPUGEN_FIRST_EXTENT(e) e\n#endif\n\n"
             : NULL;
}

/* How u's host expressions are spelled (npu: its C uses the NPU, or is
 * timed on the CU all the same: cu_hooks_host). */
static Spelling spelling(const LowerUnit *u, bool npu) {
  if (u->cu_hooks) return npu || u->cu_hooks_host ? SPELL_CU_HOOKS : SPELL_CHECK;
  return u->tcc ? SPELL_TCC : SPELL_PLAIN;
}

/* Function `name` of kernel k, lowered as `lowered` (its synchronisation
 * check's failure in sync_error, "" or NULL when it held). */
static LoweredFunction function(Arena *a, const LowerUnit *u, const Kernel *k, const char *name, const Kernel *lowered,
                                const char *sync_error, bool npu) {
  LoweredFunction f = {.name = name, .k = k, .body = lowered->body->body, .all_restrict = u->assume_no_alias,
                       .flat_params = u->tcc, .spelling = spelling(u, npu)};
  if (sync_error && *sync_error) f.sync_error = sync_error;
  f.mark_fallbacks = f.spelling == SPELL_CU_HOOKS;
  f.local_ddr = f.spelling == SPELL_CU_HOOKS && lower_declares_locals(k);
  entry_tests(a, &f);
  extent_macros(a, &f);
  extents_at_entry(a, &f);
  param_spellings(a, &f);
  f.first_extent_macro = !u->tcc && first_extent_sized(k);
  Collect c = {a, &f, 0, 0};
  for (const Param *p = k->params; p; p = p->next)
    if (p->buf) hook(&c, p->buf);
  ir_walk_stmts((Stmt *)f.body, collect, &c);
  return f;
}

/* A program's functions (lower/program.c), callees first; their
 * lowering's arena moves into m->callees. */
static void program(LoweredModule *m, const LowerUnit *u) {
  ProgramFunctions f;
  lower_program_functions(u->k, u->name, u->target, u->order, &f);
  m->callees = f.arena;
  if (f.overflow) m->too_many_functions = LOWER_MAX_FUNCTIONS;
  m->functions = ARENA_ARRAY(&m->arena, LoweredFunction, f.n ? f.n : 1);
  for (int i = 0; i < f.n; i++) {
    LoweredFunction *fn = &m->functions[m->nfunctions++];
    *fn = function(&m->arena, u, f.fns[i].k, f.fns[i].call->call->fn, f.fns[i].lowered, f.fns[i].lower_error,
                   m->includes.npu);
    fn->comment = f.fns[i].comment;
    fn->call = f.fns[i].call;
    fn->is_static = true;
  }
}

/* A layout helper: a kernel of loops over DDR arrays, nothing to lower. */
static LoweredFunction helper(Arena *a, const Kernel *h) {
  LowerUnit hu = {.k = h, .name = h->name};
  return function(a, &hu, h, h->name, lower_tidy_loops(a, h), NULL, false); /* its loops of one pass unwrapped */
}

static void layouts(LoweredModule *m, const LowerUnit *u) {
  int n = 0;
  for (const Param *p = u->k->params; p; p = p->next) n += p->buf && p->buf->layout;
  m->layouts = ARENA_ARRAY(&m->arena, LoweredLayout, n ? n : 1);
  for (const Param *p = u->k->params; p; p = p->next) {
    if (!p->buf || !p->buf->layout) continue;
    LayoutHelpers h;
    lower_layout_helpers(&m->arena, u->name, p->buf, &h);
    m->layouts[m->nlayouts++] = (LoweredLayout){h.comment, helper(&m->arena, h.pack), helper(&m->arena, h.unpack)};
  }
}

/* tcc's masks of conversions between C's own integer types. */
static void tcc_masks(LoweredModule *m) {
  static const Type *const types[] = {&ty_char, &ty_schar, &ty_uchar, &ty_short, &ty_ushort, &ty_int,
                                      &ty_uint, &ty_long,  &ty_ulong, &ty_llong, &ty_ullong};
  int n = (int)(sizeof types / sizeof *types);
  for (int from = 0; from < n; from++)
    for (int to = 0; to < n; to++) {
      Expr src = {.type = types[from]}, cast = {.kind = EX_CAST, .type = types[to], .a = &src};
      m->tcc_mask[types[from]->kind][types[to]->kind] = lower_tcc_mask(&cast);
    }
}

static void source(LoweredModule *m, const LowerUnit *u) {
  Arena *a = &m->arena;
  Lines l = {0};
  file_comment(a, u, &l);
  m->comment = l.items;
  m->ncomment = l.n;
  m->includes = lower_includes(u->k, false);
  lower_includes_typedefs(u->m, &m->includes);
  if (u->cu_hooks && u->cu_hooks_host) m->includes.npu = true; /* its accesses call npu_cu_access */
  m->defines = defines(a, u->m, lower_source_defines(u->m, u->k, false, false));
  if (u->own_header) m->own_header = arena_printf(a, "%s.h", u->name);
  m->late_defines = defines(a, u->m, lower_source_defines(u->m, u->k, true, u->own_header));
  m->assume_macro = lower_assume_macro(u->k, u->tcc);
  program(m, u);
  for (int i = 0; !m->assume_macro && i < m->nfunctions; i++) /* a callee with sizes tests them (the macro declares abort) */
    m->assume_macro = lower_assume_macro(m->functions[i].k, u->tcc);
  m->main = function(a, u, u->k, u->name, u->lowered, u->lower_error, m->includes.npu);
  m->first_extent_macro = first_extent_macro(m);
  layouts(m, u);
  tcc_masks(m);
}

/* Function f as a header of that style declares it (lower/prototype.c):
 * sizes by the variant's macros, types by their C names. */
static LoweredFunction header_proto(Arena *a, const Module *m, const char *variant, const LoweredFunction *f,
                                    ProtoStyle style) {
  LoweredFunction h = *f;
  if (style == PROTO_HEADER_CXX) h.k = lower_cxx_param_names(a, f->k);
  int n = f->k->nparams ? f->k->nparams : 1, i = 0;
  h.extent_macro = ARENA_ARRAY(a, const char *, n * IR_MAX_DIMS);
  h.param_type = ARENA_ARRAY(a, const char *, n);
  for (const Param *p = f->k->params; p; p = p->next, i++) {
    h.param_type[i] = lower_proto_type(p->buf ? p->buf->elem : p->var->type, style);
    for (int d = 0; p->buf && d < p->buf->ndim; d++) {
      char *spelt = lower_extent_spelling(m, variant, p->buf, d);
      char *macro = spelt ? spelt : lower_size_macro(m, variant, p->buf, d);
      h.extent_macro[i * IR_MAX_DIMS + d] = macro ? arena_strdup(a, macro) : NULL;
      free(macro);
    }
  }
  h.flat_params = style != PROTO_HEADER;
  h.shape_comments = style != PROTO_HEADER;
  h.no_restrict = style == PROTO_HEADER_CXX;
  h.first_extent_macro = false;
  extents_at_entry(a, &h);
  param_spellings(a, &h);
  return h;
}

/* Adds "#define name value" to out unless a define of name is there. */
static void size_define(Arena *a, LoweredDefines *out, const char *name, int64_t value) {
  size_t len = strlen(name);
  for (int j = 0; j < out->n; j++) {
    const char *have = out->items[j].text + strlen("#define ");
    if (!strncmp(have, name, len) && have[len] == ' ') return;
  }
  out->items[out->n++] = (LoweredDefine){arena_printf(a, "#define %s %lld", name, (long long)value)};
}

/* "#define MM_TILED_M 8": each macro the header's prototypes name, once,
 * in their order; an extent spelt as an expression (`H + 2`) names each
 * of its #defines. */
static LoweredDefines size_defines(Arena *a, const Module *m, const char *variant, const LoweredFunction *h) {
  int n = 0, i = 0;
  for (const Param *p = h->k->params; p; p = p->next)
    for (int d = 0; p->buf && d < p->buf->ndim; d++)
      n += lower_extent_spelt(p->buf, d) ? lower_extent_spelt(p->buf, d)->n : 1;
  LoweredDefines out = {ARENA_ARRAY(a, LoweredDefine, n ? n : 1), 0};
  for (const Param *p = h->k->params; p; p = p->next, i++)
    for (int d = 0; p->buf && d < p->buf->ndim; d++) {
      const ExtentSpelling *spelt = lower_extent_spelt(p->buf, d);
      for (int t = 0; spelt && t < spelt->n; t++) {
        if (!spelt->tok[t].is_macro) continue;
        char *name = lower_header_macro(m, variant, spelt->tok[t].text);
        size_define(a, &out, name, spelt->tok[t].value);
        free(name);
      }
      const char *macro = h->extent_macro[i * IR_MAX_DIMS + d];
      if (!spelt && macro) size_define(a, &out, macro, p->buf->shape[d]);
    }
  return out;
}

/* The comment that opens the .h: what the caller needs, and where the
 * rest is. The schedule, its target and the notes stay in the .c, so a
 * change to the schedule rewrites the .c alone and recompiles no file
 * that includes the header. */
static void header_comment(Arena *a, const LowerUnit *u, Lines *l) {
  generated_line(a, u, NPG_FILE_KIND_HEADER, l);
  if (u->schedule && *u->schedule) add_line(a, l, arena_printf(a, "Schedule, target and notes: %s.c", u->name));
  else add_line(a, l, arena_printf(a, "Schedule: none (the kernel as written); its C: %s.c", u->name));
  char *padding = lower_padding_assumed(u->k, true);
  add_lines(a, l, "", padding);
  free(padding);
}

static void header(LoweredModule *m, const LowerUnit *u) {
  Arena *a = &m->arena;
  Lines l = {0};
  header_comment(a, u, &l);
  char *preconditions = lower_preconditions_text(u->k);
  add_lines(a, &l, "", preconditions);
  free(preconditions);
  m->header_comment = l.items;
  m->nheader_comment = l.n;
  char *guard = lower_header_guard(u->m->file, u->name);
  m->guard = arena_strdup(a, guard);
  free(guard);
  m->header_stdint = lower_includes(u->k, true).stdint;
  /* the module of a header written beside its .c; the JIT's C and the
   * check's include none */
  const Module *set = u->own_header ? u->m : NULL;
  HeaderBranch branch[3];
  m->nheader_protos = lower_header_branches(u->k, u->assume_no_alias, branch);
  for (int i = 0; i < m->nheader_protos; i++)
    m->header_protos[i] = (HeaderPrototype){header_proto(a, set, u->name, &m->main, branch[i].style), branch[i].cond, branch[i].why};
  m->header_defines = size_defines(a, set, u->name, &m->header_protos[m->nheader_protos - 1].proto);
  m->header_layouts = ARENA_ARRAY(a, LoweredLayout, m->nlayouts ? m->nlayouts : 1);
  for (int i = 0; i < m->nlayouts; i++) {
    const LoweredLayout *h = &m->layouts[i];
    m->header_layouts[i] = (LoweredLayout){h->comment, header_proto(a, set, h->pack.name, &h->pack, PROTO_HEADER),
                                           header_proto(a, set, h->unpack.name, &h->unpack, PROTO_HEADER)};
  }
  Lines notes = {0};
  char *padding = lower_padding_assumed(u->k, false);
  add_lines(a, &notes, "", padding);
  free(padding);
  m->header_notes = notes.items;
  m->nheader_notes = notes.n;
}

void lower_module(const LowerUnit *u, LoweredModule *out) {
  memset(out, 0, sizeof *out);
  arena_init(&out->arena, 0);
  arena_init(&out->callees, 0);
  source(out, u);
  header(out, u);
}

void lower_module_free(LoweredModule *m) {
  if (m->reference) { /* the sites no unit took (jit/c_text.c takes them) */
    for (int i = 0; i < m->reference->nsites; i++) free(m->reference->sites[i].what);
    free(m->reference->sites);
    lower_check_ref_free(m->reference);
  }
  free(m->reference);
  arena_free(&m->arena);
  arena_free(&m->callees);
  memset(m, 0, sizeof *m);
}

/* Schedule pragmas -> schedule programs. `#pragma npu schedule(K, V[, TARGET])` starts
 * a variant; each `#pragma npu PRIMITIVE(args...)` after it is one step. The
 * argument text is parsed by tree-sitter-c as a C call expression (inside a
 * small snippet), never by hand; errors point into the pragma line. */
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"

static SchedArg convert_arg(Fe *fe, TSNode n);

static void flatten_tuple(Fe *fe, TSNode n, SchedArg **items, int *count, int *cap) {
  if (fe_is(n, "comma_expression")) {
    flatten_tuple(fe, fe_field(n, "left"), items, count, cap);
    flatten_tuple(fe, fe_field(n, "right"), items, count, cap);
    return;
  }
  if (*count == *cap) {
    int nc = *cap ? 2 * *cap : 8;
    SchedArg *ni = ARENA_ARRAY(fe->arena, SchedArg, nc);
    if (*count) memcpy(ni, *items, sizeof *ni * (size_t)*count);
    *items = ni;
    *cap = nc;
  }
  (*items)[(*count)++] = convert_arg(fe, n);
}

/* Moves the errors of `from` to the end of `to`. */
static void diag_move(DiagList *to, DiagList *from) {
  if (!from->first) return;
  if (to->last) to->last->next = from->first;
  else to->first = from->first;
  to->last = from->last;
  to->errors += from->errors;
  from->first = from->last = NULL;
  from->errors = 0;
}

/* A constant of the largest unsigned types can exceed the int64_t a
 * schedule argument holds. */
static void check_int64(Fe *fe, TSNode n, const Type *t, int64_t v) {
  if (!t->is_signed && t->size == 8 && v < 0)
    fe_arith_error(fe, n, "'%s' is %llu, too large for a schedule argument", fe_text(fe, n), (unsigned long long)v);
}

/* A constant integer expression (literals, #define names, arithmetic)? Its
 * value must be exact (consteval.c): an arithmetic error is reported, any
 * other error only means that the argument is something else (a name). */
static bool const_value(Fe *fe, TSNode n, int64_t *v) {
  jmp_buf saved;
  memcpy(saved, fe->fail, sizeof saved);
  DiagList quiet, *real = fe->diags;
  diag_init(&quiet);
  fe->diags = &quiet;
  fe->exact_consts = true;
  fe->arith_error = false;
  bool ok = false;
  int depth = fe->depth; /* an error unwinds fe_expr without counting down */
  if (setjmp(fe->fail) == 0) {
    Expr *e = fe_expr(fe, n);
    ok = type_is_integer(e->type) && fe_eval_int(e, v);
    if (ok) check_int64(fe, n, e->type, *v);
  }
  fe->depth = depth;
  fe->diags = real;
  fe->exact_consts = false;
  bool arith = fe->arith_error;
  fe->arith_error = false;
  if (arith) diag_move(real, &quiet);
  diag_free(&quiet);
  memcpy(fe->fail, saved, sizeof saved);
  if (arith) longjmp(fe->fail, 1);
  return ok;
}

/* An index-map expression keeps its tree (operator and operands), so that
 * transform_layout can rebuild it over its own variables. */
static void expr_tree(Fe *fe, TSNode n, SchedArg *a) {
  static const struct {
    const char *text;
    Op op;
  } ops[] = {{"+", OP_ADD}, {"-", OP_SUB}, {"*", OP_MUL}, {"/", OP_DIV}, {"%", OP_MOD}};
  if (fe_is(n, "number_literal")) {
    char *end;
    a->fval = strtod(a->text, &end);
    const char *suf = end;
    if (end != a->text && (!*suf || ((*suf == 'f' || *suf == 'F') && !suf[1]))) a->kind = SA_FLOAT;
    return;
  }
  bool unary = fe_is(n, "unary_expression");
  if (!unary && !fe_is(n, "binary_expression")) return;
  const char *optext = fe_text(fe, fe_field(n, "operator"));
  if (unary) {
    if (strcmp(optext, "-")) return;
    a->op = OP_NEG;
    a->items = ARENA_ARRAY(fe->arena, SchedArg, 1);
    a->items[0] = convert_arg(fe, fe_field(n, "argument"));
    a->nitems = 1;
    return;
  }
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(optext, ops[i].text)) a->op = ops[i].op;
  if (a->op == OP_NONE) return;
  a->items = ARENA_ARRAY(fe->arena, SchedArg, 2);
  a->items[0] = convert_arg(fe, fe_field(n, "left"));
  a->items[1] = convert_arg(fe, fe_field(n, "right"));
  a->nitems = 2;
}

static SchedArg convert_arg(Fe *fe, TSNode n) {
  SchedArg a;
  memset(&a, 0, sizeof a);
  a.loc = fe_loc(fe, n);
  a.text = fe_text(fe, n);
  if (fe_is(n, "identifier")) {
    a.kind = SA_NAME;
    a.name = a.text;
    Sym *y = fe_lookup(fe, a.name);
    if (y && y->kind == SYM_DEFINE && y->value && type_is_integer(y->value->type)) {
      a.has_value = fe_eval_int(y->value, &a.ival);
      if (a.has_value) check_int64(fe, n, y->value->type, a.ival);
    }
    return a;
  }
  if (fe_is(n, "string_literal")) {
    a.kind = SA_STR;
    size_t l = strlen(a.text);
    a.name = l >= 2 ? arena_strndup(fe->arena, a.text + 1, l - 2) : "";
    if (strchr(a.name, '\\') || strchr(a.name, '"'))
      fe_error(fe, n, "schedule strings cannot contain escapes");
    return a;
  }
  if (fe_is(n, "parenthesized_expression")) {
    int64_t v;
    if (const_value(fe, n, &v)) {
      a.kind = SA_INT;
      a.ival = v;
      return a;
    }
    a.kind = SA_TUPLE;
    int cap = 0;
    TSNode inner = fe_child(n, 0);
    if (!ts_node_is_null(inner)) flatten_tuple(fe, inner, &a.items, &a.nitems, &cap);
    return a;
  }
  int64_t v;
  if (const_value(fe, n, &v)) {
    a.kind = SA_INT;
    a.ival = v;
    return a;
  }
  a.kind = SA_EXPR;
  expr_tree(fe, n, &a);
  return a;
}

/* Parses a pragma's call (the text after "npu") as C in a snippet, and has
 * `parse` read its tree with positions mapped back into the pragma line;
 * an error longjmps out as usual once fe's state is restored. */
void fe_parse_pragma_call(Fe *fe, const char *call, SrcLoc at, FePragmaParse parse, void *ctx) {
  static const char prefix[] = "void __npg_pragma(void) { ";
  /* The call on one line (continuations joined), then a newline, so that a
   * trailing // comment on the pragma line ends before the closing "; }". */
  char *one = arena_strdup(fe->arena, call);
  for (char *p = one; *p; p++)
    if (*p == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) *p = ' '; /* continuation */
  for (char *p = one; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  char *snippet = arena_printf(fe->arena, "%s%s\n; }", prefix, one);
  TSParser *parser = ts_parser_new();
  ts_parser_set_language(parser, fe->lang);
  TSTree *tree = ts_parser_parse_string(parser, NULL, snippet, (uint32_t)strlen(snippet));
  ts_parser_delete(parser);

  LocMap saved_map = fe->map;
  const char *saved_text = fe->text;
  fe->map = (LocMap){true, at.line, at.col, (int)sizeof prefix - 1, false};
  fe->text = snippet;
  jmp_buf saved;
  memcpy(saved, fe->fail, sizeof saved);
  bool failed = setjmp(fe->fail);
  if (!failed) {
    TSNode root = ts_tree_root_node(tree);
    if (!fe_check_syntax(fe, root)) longjmp(fe->fail, 1);
    parse(fe, root, at, ctx);
  }
  fe->map = saved_map;
  fe->text = saved_text;
  ts_tree_delete(tree);
  memcpy(fe->fail, saved, sizeof saved);
  if (failed) longjmp(fe->fail, 1);
}

/* The step of a schedule pragma's call "PRIM(args...)". */
static void step_of(Fe *fe, TSNode root, SrcLoc at, void *ctx) {
  SchedStep **out = ctx;
  TSNode fn = fe_child(root, 0);
  TSNode body = fe_field(fn, "body");
  TSNode es = fe_child(body, 0);
  TSNode callee = ts_node_is_null(es) ? es : fe_child(es, 0);
  if (ts_node_named_child_count(root) != 1 || ts_node_named_child_count(body) != 1 ||
      ts_node_is_null(callee) || !fe_is(es, "expression_statement") || !fe_is(callee, "call_expression"))
    fe_error_at(fe, at, "expected one schedule primitive call, such as 'split(i, 16, io, ii)'");
  TSNode fname = fe_field(callee, "function");
  if (!fe_is(fname, "identifier")) fe_error(fe, fname, "the schedule primitive must be a plain name");
  SchedStep *st = ARENA_NEW(fe->arena, SchedStep);
  st->prim = fe_text(fe, fname);
  st->loc = fe_loc(fe, fname);
  st->text = fe_text(fe, callee);
  TSNode args = fe_field(callee, "arguments");
  uint32_t na = ts_node_named_child_count(args);
  st->args = ARENA_ARRAY(fe->arena, SchedArg, na ? na : 1);
  for (uint32_t i = 0; i < na; i++) {
    TSNode a = ts_node_named_child(args, i);
    if (fe_is(a, "comment")) continue;
    st->args[st->nargs++] = convert_arg(fe, a);
  }
  *out = st;
}

/* Parses "PRIM(args...)" (the pragma text after "npu") into a step. */
static SchedStep *parse_call(Fe *fe, const char *call, SrcLoc at) {
  /* `inline` is a C keyword: the primitive inline(CALL) (schedule/inline.c)
   * is parsed under a name of the same length, so columns stay right */
  static const char kw[] = "inline", stand_in[] = "inlin_";
  bool is_inline = !strncmp(call, kw, strlen(kw)); /* before reading past it */
  const char *p = is_inline ? call + strlen(kw) : call;
  while (*p == ' ' || *p == '\t') p++;
  is_inline = is_inline && *p == '(';
  if (is_inline) {
    char *c = arena_strdup(fe->arena, call);
    memcpy(c, stand_in, strlen(stand_in));
    call = c;
  }
  SchedStep *st = NULL;
  fe_parse_pragma_call(fe, call, at, step_of, &st);
  if (is_inline) {
    st->prim = kw;
    st->text = arena_printf(fe->arena, "%s%s", kw, st->text + strlen(kw));
  }
  return st;
}

void fe_schedule_pragma(Fe *fe, const char *text, SrcLoc loc) {
  /* text is "npu ..."; the call starts after the blanks. */
  const char *call = text + 3;
  while (*call == ' ' || *call == '\t') call++;
  SrcLoc at = {loc.line, loc.col + (int)(call - text)};
  SchedStep *st = parse_call(fe, call, at);
  if (!strcmp(st->prim, "schedule")) {
    if (st->nargs < 2 || st->nargs > 3 || st->args[0].kind != SA_NAME || st->args[1].kind != SA_NAME ||
        (st->nargs == 3 && st->args[2].kind != SA_NAME && st->args[2].kind != SA_STR))
      fe_error_at(fe, st->loc, "schedule takes 2 or 3 arguments: schedule(KERNEL, VARIANT[, TARGET]): names, and "
                  "TARGET a name or string (the only target the schedule is for, by its name in [target])");
    SchedProgram *p = ARENA_NEW(fe->arena, SchedProgram);
    p->kernel = st->args[0].name;
    p->variant = st->args[1].name;
    p->target = st->nargs == 3 ? st->args[2].name : NULL;
    p->loc = st->loc;
    p->kernel_loc = st->args[0].loc;
    p->variant_loc = st->args[1].loc;
    p->file = fe->file;
    p->src = fe->src;
    *fe->sched_tail = p;
    fe->sched_tail = &p->next;
    fe->sched = p;
    fe->step_tail = &p->steps;
    return;
  }
  if (!fe->sched)
    fe_error_at(fe, st->loc, "'%s' must follow '#pragma npu schedule(KERNEL, VARIANT)', which names the variant it belongs to", st->prim);
  *fe->step_tail = st;
  fe->step_tail = &st->next;
}

/* A frontend over schedule text only (a schedule file or one API step): the
 * kernel file's #defines are visible, its kernels are not needed. */
static void schedule_fe(Fe *fe, Module *m, const char *file, const char *src, size_t len, DiagList *d) {
  memset(fe, 0, sizeof *fe);
  fe->file = arena_strdup(&m->arena, file);
  fe->src = arena_strndup(&m->arena, src, len);
  fe->text = fe->src;
  fe->m = m;
  fe->arena = &m->arena;
  fe->diags = d;
  fe->lang = frontend_language();
  fe->globals = ARENA_NEW(&m->arena, Scope);
  fe_import_defines(fe);
  fe->sched_tail = &m->schedules; /* a schedule file's variants go after the module's */
  while (*fe->sched_tail) fe->sched_tail = &(*fe->sched_tail)->next;
}

SchedStep *frontend_parse_step(Module *m, const char *name, const char *call, DiagList *d) {
  Fe fe;
  schedule_fe(&fe, m, name, call, strlen(call), d);
  if (strlen(call) > 4096 || strchr(call, '\n')) {
    diag_error(d, fe.file, NULL, 1, 1, "a schedule step is one line, at most 4096 bytes");
    return NULL;
  }
  SchedStep *volatile st = NULL;
  if (setjmp(fe.fail) == 0) st = parse_call(&fe, fe.src, (SrcLoc){1, 1});
  return st;
}

/* In a kernel file another pragma is C's (omp, GCC); a schedule file has
 * nothing else, so `#pragma npux` is a typo that would drop a step. */
static void only_npu_pragma(Fe *fe, TSNode n) {
  TSNode arg = fe_field(n, "argument");
  const char *text = ts_node_is_null(arg) ? "" : fe_text(fe, arg);
  if (!strcmp(fe_text(fe, fe_field(n, "directive")), "#pragma") &&
      (strncmp(text, "npu", 3) || (text[3] != ' ' && text[3] != '\t')))
    fe_error(fe, ts_node_is_null(arg) ? n : arg, "a schedule file holds only '#pragma npu ...' lines; '#pragma %.*s' is not one",
             (int)strcspn(text, " \t("), text);
}

bool frontend_parse_schedules(Module *m, const char *file, const char *src, size_t len, DiagList *d) {
  if (!frontend_input_ok(file, src, len, d)) return false;
  Fe fe;
  schedule_fe(&fe, m, file, src, len, d);
  TSTree *tree = fe_parse(fe.lang, fe.src, (uint32_t)len);
  TSNode root = ts_tree_root_node(tree);
  int before = d->errors;
  if (fe_check_syntax(&fe, root)) {
    uint32_t cnt = ts_node_named_child_count(root);
    for (volatile uint32_t i = 0; i < cnt; i++) {
      TSNode n = ts_node_named_child(root, i);
      if (setjmp(fe.fail) == 0) {
        if (fe_is(n, "comment")) continue;
        if (!fe_is(n, "preproc_call")) fe_error(&fe, n, "a schedule file holds only '#pragma npu ...' lines");
        only_npu_pragma(&fe, n);
        fe_pragma(&fe, n);
      } else if (fe.sched) {
        fe.sched->broken = true; /* never build a variant that lacks a step */
      }
      fe.map.active = false;
      fe.text = fe.src;
      fe.depth = 0;
    }
  }
  ts_tree_delete(tree);
  return d->errors == before;
}

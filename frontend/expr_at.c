/* An expression a schedule step names (stage's "exp(x[i] - m)"), parsed by
 * tree-sitter-c and lowered as the kernel's own expressions are, in the
 * scope of one statement of the kernel as it is now: its parameters, the
 * locals declared before it, the counters of the loops around it, and the
 * module's #defines. So it is the same IR as the statement's own
 * subexpression when they are the same C. */
#include <string.h>

#include "frontend/fe.h"

static void declare(Fe *fe, TSNode at, Var *v, Buffer *b) {
  Sym *y = fe_declare(fe, at, b ? b->name : v->name, b ? SYM_BUF : SYM_VAR);
  y->buf = b;
  y->var = v;
}

/* Declares, innermost last, what is visible at `where` inside list:
 * declarations before it in each enclosing block and the loops' counters.
 * True when where was found. */
static bool declare_path(Fe *fe, TSNode at, Stmt *list, const Stmt *where) {
  for (Stmt *s = list; s; s = s->next) {
    if (s == where) return true;
    if (s->kind == ST_DECL) {
      declare(fe, at, s->var, s->buf);
      continue;
    }
    Stmt *inner[2] = {NULL, NULL};
    if (s->kind == ST_BLOCK || s->kind == ST_FOR) inner[0] = s->body;
    if (s->kind == ST_IF) {
      inner[0] = s->then_s;
      inner[1] = s->else_s;
    }
    for (int i = 0; i < 2; i++) {
      if (!inner[i]) continue;
      Scope *saved = fe->scope; /* a nested scope: dropped if where is not inside */
      Scope *sc = ARENA_NEW(fe->arena, Scope);
      sc->up = saved;
      fe->scope = sc;
      if (s->kind == ST_FOR) declare(fe, at, s->var, NULL);
      if (declare_path(fe, at, inner[i], where)) return true;
      fe->scope = saved;
    }
  }
  return false;
}

Expr *frontend_expr_at(Module *m, const Kernel *k, const Stmt *where, const char *text, const char *file,
                       const char *src, SrcLoc loc, DiagList *d) {
  Fe fe;
  memset(&fe, 0, sizeof fe);
  fe.file = file;
  fe.src = src;
  fe.m = m;
  fe.arena = &m->arena;
  fe.diags = d;
  fe.lang = frontend_language();
  fe.globals = ARENA_NEW(&m->arena, Scope);
  fe.exact_consts = false;
  static const char prefix[] = "int __npg_expr = ";
  char *snippet = arena_printf(&m->arena, "%s%s\n;", prefix, text);
  fe.text = snippet;
  /* errors inside point into the step's argument (when it has a place) */
  fe.map = (LocMap){loc.line > 0, loc.line, loc.col, (int)sizeof prefix - 1, false};
  if (!fe.src) fe.src = snippet;
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, fe.lang);
  TSTree *tree = ts_parser_parse_string(p, NULL, snippet, (uint32_t)strlen(snippet));
  ts_parser_delete(p);
  Expr *volatile e = NULL;
  if (setjmp(fe.fail) == 0) {
    TSNode root = ts_tree_root_node(tree);
    fe_import_defines(&fe);
    fe.scope = ARENA_NEW(&m->arena, Scope);
    for (const Param *pa = k->params; pa; pa = pa->next) declare(&fe, root, pa->var, pa->buf);
    if (!declare_path(&fe, root, k->body->body, where)) fe_error(&fe, root, "internal error: the statement is not in the kernel");
    if (!fe_check_syntax(&fe, root)) longjmp(fe.fail, 1);
    TSNode decl = fe_child(root, 0);
    TSNode val = fe_field(fe_field(decl, "declarator"), "value");
    if (ts_node_is_null(val) || ts_node_named_child_count(root) != 1 || !ts_node_is_null(fe_child(decl, 2)))
      fe_error(&fe, root, "expected one C expression, got '%s'", text);
    e = fe_expr(&fe, val);
  }
  ts_tree_delete(tree);
  return e;
}

/* Block scopes and symbols. */
#include <string.h>

#include "frontend/fe.h"
#include "ir/reserved.h"

void fe_check_name(Fe *fe, TSNode at, const char *name, const char *what) {
  const char *why = ir_reserved_why(name);
  if (why) fe_error(fe, at, "the %s name '%s' is reserved: %s", what, name, why);
}

/* A local of a block (a variable, an array, a loop counter) hides a
 * <math.h> function of its name there, as in C (`int remainder = x % 3;`):
 * only the file-scope names and the macros stay reserved. A call of the
 * function where the local hides it is refused at the call. */
void fe_check_local_name(Fe *fe, TSNode at, const char *name, const char *what) {
  if (!ir_is_math_function(name)) fe_check_name(fe, at, name, what);
}

void fe_push_scope(Fe *fe) {
  Scope *s = ARENA_NEW(fe->arena, Scope);
  s->up = fe->scope;
  fe->scope = s;
}

void fe_pop_scope(Fe *fe) { fe->scope = fe->scope->up; }

enum { SCOPE_INDEX_FROM = 8 }; /* symbols; a short list is walked */

static Sym *in_scope(const Scope *s, const char *name) {
  if (s->index) return ir_map_get(s->index, name);
  for (Sym *y = s->syms; y; y = y->next)
    if (strcmp(y->name, name) == 0) return y;
  return NULL;
}

Sym *fe_lookup(Fe *fe, const char *name) {
  for (Scope *s = fe->scope; s; s = s->up) {
    Sym *y = in_scope(s, name);
    if (y) return y;
  }
  return in_scope(fe->globals, name);
}

/* A scope of thousands of locals is looked up by hash: a list made the
 * frontend quadratic in them. */
static void index_sym(Fe *fe, Scope *s, Sym *y) {
  if (!s->index && ++s->nsyms < SCOPE_INDEX_FROM) return;
  if (!s->index) {
    s->index = ARENA_NEW(fe->arena, IrMap);
    ir_map_init(s->index, fe->arena);
    for (Sym *x = s->syms; x; x = x->next) ir_map_put(s->index, x->name, x);
    return;
  }
  ir_map_put(s->index, y->name, y);
}

static Sym *add_sym(Fe *fe, Scope *s, const char *name, SymKind kind) {
  Sym *y = ARENA_NEW(fe->arena, Sym);
  y->name = name;
  y->kind = kind;
  y->next = s->syms;
  s->syms = y;
  index_sym(fe, s, y);
  return y;
}

Sym *fe_declare(Fe *fe, TSNode at, const char *name, SymKind kind) {
  Scope *s = fe->scope ? fe->scope : fe->globals;
  if (in_scope(s, name)) fe_error(fe, at, "redefinition of '%s'", name);
  return add_sym(fe, s, name, kind);
}

Sym *fe_declare_global(Fe *fe, const char *name, SymKind kind) { return add_sym(fe, fe->globals, name, kind); }

Var *fe_new_var(Fe *fe, const char *name, const Type *t, VarKind kind, SrcLoc loc) {
  Var *v = ARENA_NEW(fe->arena, Var);
  v->name = name;
  v->type = t;
  v->kind = kind;
  v->loc = loc;
  v->id = fe->k->nvars++;
  return v;
}

VarInfo *fe_vinfo(Fe *fe, const Var *v) {
  if (v->id >= fe->vinfo_cap) {
    int cap = fe->vinfo_cap ? fe->vinfo_cap * 2 : 64;
    while (cap <= v->id) cap *= 2;
    VarInfo *n = ARENA_ARRAY(fe->arena, VarInfo, cap);
    if (fe->vinfo) memcpy(n, fe->vinfo, sizeof(VarInfo) * (size_t)fe->vinfo_cap);
    fe->vinfo = n;
    fe->vinfo_cap = cap;
  }
  return &fe->vinfo[v->id];
}

/* Block scopes and symbols. */
#include <string.h>

#include "frontend/fe.h"
#include "ir/reserved.h"

void fe_check_name(Fe *fe, TSNode at, const char *name, const char *what) {
  const char *why = ir_reserved_why(name);
  if (why) fe_error(fe, at, "the %s name '%s' is reserved: %s", what, name, why);
}

void fe_push_scope(Fe *fe) {
  Scope *s = ARENA_NEW(fe->arena, Scope);
  s->up = fe->scope;
  fe->scope = s;
}

void fe_pop_scope(Fe *fe) { fe->scope = fe->scope->up; }

Sym *fe_lookup(Fe *fe, const char *name) {
  for (Scope *s = fe->scope; s; s = s->up)
    for (Sym *y = s->syms; y; y = y->next)
      if (strcmp(y->name, name) == 0) return y;
  for (Sym *y = fe->globals->syms; y; y = y->next)
    if (strcmp(y->name, name) == 0) return y;
  return NULL;
}

Sym *fe_declare(Fe *fe, TSNode at, const char *name, SymKind kind) {
  Scope *s = fe->scope ? fe->scope : fe->globals;
  for (Sym *y = s->syms; y; y = y->next)
    if (strcmp(y->name, name) == 0) fe_error(fe, at, "redefinition of '%s'", name);
  Sym *y = ARENA_NEW(fe->arena, Sym);
  y->name = name;
  y->kind = kind;
  y->next = s->syms;
  s->syms = y;
  return y;
}

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

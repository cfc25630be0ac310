/* Statements: blocks, declarations, assignments, if/else, for loops, labels. */
#include <string.h>

#include "frontend/fe.h"

/* Appends list b (linked by next) to list a; returns the head. */
static Stmt *append(Stmt *a, Stmt *b) {
  if (!a) return b;
  Stmt *t = a;
  while (t->next) t = t->next;
  t->next = b;
  return a;
}

static Stmt *as_block(Fe *fe, Stmt *list, SrcLoc loc) {
  if (list && list->kind == ST_BLOCK && !list->next && !list->call) return list; /* a call is a statement of its own */
  Stmt *b = ir_stmt(fe->arena, ST_BLOCK, loc);
  b->body = list;
  return b;
}

static bool skip_node(TSNode c) {
  return fe_is(c, "comment") || fe_is(c, "{") || fe_is(c, "}") || !ts_node_is_named(c);
}

/* ---------------- declarations ---------------- */

static Stmt *local_array(Fe *fe, TSNode decl, const Type *t, TSNode value, bool is_const) {
  int64_t dims[IR_MAX_DIMS];
  const ExtentSpelling *spelt[IR_MAX_DIMS]; /* `WP`, `W + 2`: kept in the emitted declaration */
  int nd = 0;
  TSNode d = decl;
  while (fe_is(d, "array_declarator")) {
    if (nd == IR_MAX_DIMS) fe_error(fe, d, "too many array dimensions (at most %d)", IR_MAX_DIMS);
    TSNode size = fe_field(d, "size");
    if (ts_node_is_null(size)) fe_error(fe, d, "local array needs a constant size");
    int64_t v = fe_const_int(fe, size, "array size");
    if (v <= 0) fe_error(fe, size, "array size must be positive, not %lld", (long long)v);
    spelt[nd] = fe_local_extent_spelling(fe, size, v);
    dims[nd++] = v;
    d = fe_field(d, "declarator");
  }
  if (!fe_is(d, "identifier")) fe_error(fe, d, "unsupported declarator");
  /* Declarators nest outside-in: A[2][3] has the [3] on the outside. */
  Buffer *b = ARENA_NEW(fe->arena, Buffer);
  b->name = fe_text(fe, d);
  fe_check_local_name(fe, d, b->name, "local array");
  b->elem = t;
  b->ndim = nd;
  int64_t total = 1;
  for (int i = 0; i < nd; i++) {
    b->shape[i] = dims[nd - 1 - i];
    b->dim_spelling[i] = spelt[nd - 1 - i];
    if (b->shape[i] > (int64_t)1 << 32 || (total *= b->shape[i]) > (int64_t)1 << 32)
      fe_error(fe, decl, "local array '%s' is too large", b->name);
  }
  b->scope = "local";
  b->role = ROLE_LOCAL;
  b->is_const = is_const;
  b->loc = fe_loc(fe, d);
  b->id = fe->k->nbufs++;
  Sym *y = fe_declare(fe, d, b->name, SYM_BUF);
  y->buf = b;
  Stmt *s = ir_stmt(fe->arena, ST_DECL, fe_loc(fe, decl));
  s->buf = b;
  if (!ts_node_is_null(value)) {
    if (!fe_is(value, "initializer_list"))
      fe_error(fe, value, "array '%s' must be initialized with a braced list", b->name);
    uint32_t n = ts_node_named_child_count(value);
    s->init_list = ARENA_ARRAY(fe->arena, Expr *, n ? n : 1);
    for (uint32_t i = 0; i < n; i++) {
      TSNode c = ts_node_named_child(value, i);
      if (fe_is(c, "comment")) continue;
      if (fe_is(c, "initializer_list") || fe_is(c, "initializer_pair"))
        fe_error(fe, c, "nested or designated initializers are not supported; use a flat list");
      if (s->ninit == total) fe_error(fe, c, "too many initializers for '%s'", b->name);
      s->init_list[s->ninit++] = fe_convert(fe, fe_expr(fe, c), t);
    }
  } else if (is_const) {
    fe_error(fe, decl, "const array '%s' needs an initializer", b->name);
  }
  return s;
}

static Stmt *declaration(Fe *fe, TSNode n) {
  uint32_t cnt = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = ts_node_named_child(n, i);
    if (fe_is(c, "storage_class_specifier"))
      fe_error(fe, c, "storage class '%s' is not supported in kernels", fe_text(fe, c));
  }
  const Type *t = fe_type_of(fe, fe_field(n, "type"));
  if (t->kind == TY_VOID) fe_error(fe, n, "variables cannot have type 'void'");
  bool is_const = fe_has_const(n);
  Stmt *list = NULL;
  TSNode type_n = fe_field(n, "type");
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    TSNode d = ts_node_named_child(n, i), value = {0};
    /* Every named child but the type, qualifiers and comments is a declarator. */
    if (ts_node_eq(d, type_n) || fe_is(d, "type_qualifier") || fe_is(d, "comment")) continue;
    bool has_value = false;
    if (fe_is(d, "init_declarator")) {
      value = fe_field(d, "value");
      has_value = true;
      d = fe_field(d, "declarator");
    }
    if (fe_is(d, "pointer_declarator")) fe_error(fe, d, "pointers are not supported in kernels");
    if (fe_is(d, "function_declarator")) fe_error(fe, d, "function declarations are not supported inside kernels");
    if (fe_is(d, "array_declarator")) {
      list = append(list, local_array(fe, d, t, has_value ? value : (TSNode){0}, is_const));
      continue;
    }
    if (!fe_is(d, "identifier")) fe_error(fe, d, "unsupported declarator");
    const char *name = fe_text(fe, d);
    fe_check_local_name(fe, d, name, "local variable");
    Expr *init = NULL;
    if (has_value) {
      if (fe_is(value, "initializer_list")) fe_error(fe, value, "a scalar cannot have a braced initializer");
      init = fe_convert(fe, fe_expr(fe, value), t);
    } else if (is_const) {
      fe_error(fe, d, "const variable '%s' needs an initializer", name);
    }
    Var *v = fe_new_var(fe, name, t, VAR_LOCAL, fe_loc(fe, d));
    Sym *y = fe_declare(fe, d, name, SYM_VAR);
    y->var = v;
    VarInfo *vi = fe_vinfo(fe, v);
    vi->is_const = is_const;
    v->is_const = is_const;
    Stmt *s = ir_stmt(fe->arena, ST_DECL, fe_loc(fe, d));
    s->var = v;
    s->init = init;
    list = append(list, s);
  }
  return list;
}

/* ---------------- assignments ---------------- */

static Op compound_op(const char *s) {
  static const struct {
    const char *s;
    Op op;
  } ops[] = {{"+=", OP_ADD}, {"-=", OP_SUB}, {"*=", OP_MUL}, {"/=", OP_DIV}, {"%=", OP_MOD},
             {"<<=", OP_SHL}, {">>=", OP_SHR}, {"&=", OP_BAND}, {"|=", OP_BOR}, {"^=", OP_BXOR}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(ops[i].s, s)) return ops[i].op;
  return OP_NONE;
}

static Stmt *make_assign(Fe *fe, TSNode n, Expr *lhs, Op op, Expr *rhs, TSNode rhs_node) {
  Stmt *s = ir_stmt(fe->arena, ST_ASSIGN, fe_loc(fe, n));
  s->lhs = lhs;
  s->op = op;
  if (op == OP_NONE) {
    s->rhs = fe_convert(fe, rhs, lhs->type);
  } else {
    const char *sp = op_spelling(op);
    bool int_only = op == OP_MOD || op == OP_SHL || op == OP_SHR || op == OP_BAND ||
                    op == OP_BOR || op == OP_BXOR;
    if (int_only && (!type_is_integer(lhs->type) || !type_is_integer(rhs->type)))
      fe_error(fe, n, "operands of '%s=' must be integers", sp);
    int64_t c;
    if ((op == OP_DIV || op == OP_MOD) && type_is_integer(rhs->type) && fe_eval_int(rhs, &c) && c == 0)
      fe_error(fe, rhs_node, "division by zero");
    if ((op == OP_SHL || op == OP_SHR) && fe_eval_int(rhs, &c) &&
        (c < 0 || c >= type_promote(lhs->type)->size * 8))
      fe_error(fe, rhs_node, "shift by %lld is undefined for type '%s'", (long long)c,
               type_promote(lhs->type)->name);
    if (lhs->kind == EX_VAR) fe_vinfo(fe, lhs->var)->reads++;
    s->rhs = rhs;
  }
  return s;
}

static Stmt *assignment(Fe *fe, TSNode n) {
  TSNode left = fe_field(n, "left"), right = fe_field(n, "right");
  const char *ops = fe_text(fe, fe_field(n, "operator"));
  Op op = strcmp(ops, "=") ? compound_op(ops) : OP_NONE;
  TSNode r = right;
  while (fe_is(r, "parenthesized_expression")) r = fe_child(r, 0);
  if (fe_is(r, "assignment_expression")) {
    /* a = b = e: assign b first, then a from b (exactly C's meaning). */
    Stmt *inner = assignment(fe, r);
    Stmt *last = inner;
    while (last->next) last = last->next;
    Expr *val = ir_expr_copy(fe->arena, last->lhs);
    if (val->kind == EX_VAR) fe_vinfo(fe, val->var)->reads++;
    Expr *lhs = fe_lvalue(fe, left);
    return append(inner, make_assign(fe, n, lhs, op, val, right));
  }
  Expr *rhs = fe_expr(fe, right);
  Expr *lhs = fe_lvalue(fe, left);
  return make_assign(fe, n, lhs, op, rhs, right);
}

static Stmt *expression_statement(Fe *fe, TSNode n) {
  if (ts_node_named_child_count(n) == 0) return NULL; /* ';' */
  TSNode e = fe_child(n, 0);
  while (fe_is(e, "parenthesized_expression")) e = fe_child(e, 0);
  if (fe_is(e, "assignment_expression")) return assignment(fe, e);
  if (fe_is(e, "update_expression")) {
    TSNode arg = fe_field(e, "argument");
    const char *op = fe_text(fe, fe_field(e, "operator"));
    Expr *lhs = fe_lvalue(fe, arg);
    Expr *one = ir_int(fe->arena, 1, &ty_int, fe_loc(fe, e));
    return make_assign(fe, e, lhs, op[0] == '+' ? OP_ADD : OP_SUB, one, e);
  }
  if (fe_is(e, "comma_expression")) fe_error(fe, e, "the comma operator is not supported in kernels");
  if (fe_is(e, "call_expression")) {
    if (fe_names_kernel(fe, e)) return fe_kernel_call(fe, e);
    fe_expr(fe, e); /* reports unknown functions */
    fe_error(fe, e, "the result of this call is unused");
  }
  fe_expr(fe, e);
  fe_error(fe, e, "statement has no effect");
}

/* ---------------- for loops ---------------- */

static bool is_ident(Fe *fe, TSNode n, const char *name) {
  while (fe_is(n, "parenthesized_expression")) n = fe_child(n, 0);
  return fe_is(n, "identifier") && !strcmp(fe_text(fe, n), name);
}

/* Loop bounds must be affine in enclosing loop counters and constants. */
static void check_bound(Fe *fe, TSNode n, const Expr *e, const Var *self) {
  switch (e->kind) {
  case EX_INT:
    return;
  case EX_VAR:
    if (e->var == self)
      fe_error(fe, n, "loop bound depends on the loop's own counter '%s'", self->name);
    /* an integer parameter is one of the kernel's sizes (Kernel.sizes) */
    if (e->var->kind != VAR_LOOP && !(e->var->kind == VAR_PARAM && type_is_integer(e->var->type)))
      fe_error(fe, n,
               "loop bound uses '%s': bounds must be affine in enclosing loop counters, integer parameters and "
               "constants",
               e->var->name);
    return;
  case EX_CAST:
    if (!type_is_integer(e->type)) break;
    check_bound(fe, n, e->a, self);
    return;
  case EX_UNARY:
    if (e->op != OP_NEG && e->op != OP_PLUS) break;
    check_bound(fe, n, e->a, self);
    return;
  case EX_BINARY: {
    int64_t c;
    switch (e->op) {
    case OP_ADD:
    case OP_SUB:
      check_bound(fe, n, e->a, self);
      check_bound(fe, n, e->b, self);
      return;
    case OP_MUL:
      if (!fe_eval_int(e->a, &c) && !fe_eval_int(e->b, &c)) break;
      check_bound(fe, n, e->a, self);
      check_bound(fe, n, e->b, self);
      return;
    case OP_DIV:
    case OP_MOD:
      if (!fe_eval_int(e->b, &c) || c <= 0) break;
      check_bound(fe, n, e->a, self);
      return;
    default:
      break;
    }
    break;
  }
  default:
    break;
  }
  fe_error(fe, n, "loop bound is not affine: bounds must be affine in enclosing loop counters, integer parameters and constants");
}

/* The step of `-= c` or `= counter - c`; INT64_MIN has no negation. */
static int64_t minus_step(Fe *fe, TSNode n) {
  int64_t c = fe_const_int(fe, n, "the loop step");
  if (c == INT64_MIN) fe_error(fe, n, "the loop step %lld is too large", (long long)c);
  return -c;
}

/* C compares `counter OP bound` in their common type, the IR compares their
 * values: the two agree unless that type is unsigned and a signed side can
 * be negative (C converts it to a huge value), or a 64-bit unsigned constant
 * is 2^63 or more (the IR holds values as int64_t). */
static void check_compare(Fe *fe, TSNode cond, TSNode bound_node, const Var *v, const Expr *lo, const Expr *hi,
                          int64_t step) {
  const Type *t = type_promote(v->type), *ht = type_promote(hi->type), *ct = type_common(t, ht);
  int64_t c, start;
  bool lo_const = fe_eval_int(lo, &start);
  if (!t->is_signed && t->size == 8 && lo_const && start < 0)
    fe_error(fe, cond, "the loop counter '%s' starts at %llu: values of 2^63 and more are not supported", v->name,
             (unsigned long long)start);
  if (!ht->is_signed && ht->size == 8 && fe_eval_int(hi, &c) && c < 0)
    fe_error(fe, bound_node, "the loop bound %llu is too large: values of 2^63 and more are not supported",
             (unsigned long long)c);
  if (ct->is_signed) return;
  if (ht->is_signed && (!fe_eval_int(hi, &c) || c < 0))
    fe_error(fe, bound_node, "the unsigned counter '%s' is compared with a signed bound, which C converts to '%s' "
             "(a negative one to a huge value): give both the same signedness", v->name, ct->name);
  if (t->is_signed && (step < 0 || !lo_const || start < 0))
    fe_error(fe, cond, "the signed counter '%s' is compared with an unsigned bound, so C converts it to '%s' "
             "(a negative one to a huge value): give both the same signedness", v->name, ct->name);
}

static Stmt *for_loop(Fe *fe, TSNode n) {
  TSNode init = fe_field(n, "initializer"), cond = fe_field(n, "condition"),
         update = fe_field(n, "update"), body = fe_field(n, "body");
  if (ts_node_is_null(init) || ts_node_is_null(cond) || ts_node_is_null(update))
    fe_error(fe, n, "a kernel loop needs an initializer, a condition and an update");
  if (fe->loop_depth == FE_MAX_LOOP_DEPTH)
    fe_error(fe, n, "loops nested too deeply (the limit is %d levels)", FE_MAX_LOOP_DEPTH);
  SrcLoc loc = fe_loc(fe, n);
  const char *name;
  const Type *t;
  Expr *lo;
  Sym *adopted = NULL;
  if (fe_is(init, "declaration")) {
    t = fe_type_of(fe, fe_field(init, "type"));
    TSNode d = fe_field(init, "declarator");
    if (ts_node_named_child_count(init) > 2)
      fe_error(fe, init, "a kernel loop declares exactly one counter");
    if (!fe_is(d, "init_declarator")) fe_error(fe, d, "the loop counter needs an initial value");
    TSNode id = fe_field(d, "declarator");
    if (!fe_is(id, "identifier")) fe_error(fe, id, "the loop counter must be a plain integer variable");
    name = fe_text(fe, id);
    fe_check_local_name(fe, id, name, "loop counter");
    lo = fe_expr(fe, fe_field(d, "value"));
  } else if (fe_is(init, "assignment_expression")) {
    TSNode id = fe_field(init, "left");
    if (!fe_is(id, "identifier") || strcmp(fe_text(fe, fe_field(init, "operator")), "="))
      fe_error(fe, init, "the loop initializer must be 'counter = value'");
    name = fe_text(fe, id);
    adopted = fe_lookup(fe, name);
    if (!adopted) fe_error(fe, id, "'%s' is not declared", name);
    if (adopted->kind != SYM_VAR || adopted->var->kind == VAR_PARAM)
      fe_error(fe, id, "'%s' cannot be a loop counter: declare it as a local integer", name);
    if (adopted->var->kind == VAR_LOOP)
      fe_error(fe, id, "cannot write to loop counter '%s' inside its loop", name);
    t = adopted->var->type;
    lo = fe_expr(fe, fe_field(init, "right"));
  } else {
    fe_error(fe, init, "the loop initializer must declare or assign one counter");
  }
  if (!type_is_integer(t)) fe_error(fe, init, "the loop counter '%s' must have an integer type", name);

  Var *v = fe_new_var(fe, name, t, VAR_LOOP, fe_loc(fe, init));
  fe_push_scope(fe);
  Sym *vs = fe_declare(fe, init, name, SYM_VAR);
  vs->var = v;
  check_bound(fe, init, lo, v);

  /* Condition: counter OP bound, or bound OP counter. */
  TSNode c = cond;
  while (fe_is(c, "parenthesized_expression")) c = fe_child(c, 0);
  if (!fe_is(c, "binary_expression")) fe_error(fe, cond, "the loop condition must compare the counter with a bound");
  const char *cs = fe_text(fe, fe_field(c, "operator"));
  TSNode cl = fe_field(c, "left"), cr = fe_field(c, "right");
  Op cmp;
  TSNode bound_node;
  static const struct {
    const char *s;
    Op op, flipped;
  } cmps[] = {{"<", OP_LT, OP_GT}, {"<=", OP_LE, OP_GE}, {">", OP_GT, OP_LT}, {">=", OP_GE, OP_LE}};
  int ci = -1;
  for (int i = 0; i < 4; i++)
    if (!strcmp(cmps[i].s, cs)) ci = i;
  if (ci < 0)
    fe_error(fe, c, "the loop condition must use <, <=, > or >= ('%s' is not supported)", cs);
  if (is_ident(fe, cl, name)) {
    cmp = cmps[ci].op;
    bound_node = cr;
  } else if (is_ident(fe, cr, name)) {
    cmp = cmps[ci].flipped;
    bound_node = cl;
  } else {
    fe_error(fe, c, "the loop condition must compare the counter '%s' with a bound", name);
  }
  Expr *hi = fe_expr(fe, bound_node);
  if (!type_is_integer(hi->type)) fe_error(fe, bound_node, "the loop bound must be an integer");
  check_bound(fe, bound_node, hi, v);

  /* Update: ++/--, += c, -= c, counter = counter +/- c. */
  int64_t step = 0;
  TSNode u = update;
  while (fe_is(u, "parenthesized_expression")) u = fe_child(u, 0);
  if (fe_is(u, "update_expression")) {
    if (!is_ident(fe, fe_field(u, "argument"), name))
      fe_error(fe, u, "the loop update must change the counter '%s'", name);
    step = fe_text(fe, fe_field(u, "operator"))[0] == '+' ? 1 : -1;
  } else if (fe_is(u, "assignment_expression") && is_ident(fe, fe_field(u, "left"), name)) {
    const char *op = fe_text(fe, fe_field(u, "operator"));
    TSNode r = fe_field(u, "right");
    if (!strcmp(op, "+=") || !strcmp(op, "-=")) {
      step = op[0] == '-' ? minus_step(fe, r) : fe_const_int(fe, r, "the loop step");
    } else if (!strcmp(op, "=")) {
      while (fe_is(r, "parenthesized_expression")) r = fe_child(r, 0);
      const char *bop = fe_is(r, "binary_expression") ? fe_text(fe, fe_field(r, "operator")) : "";
      if (!strcmp(bop, "+") && is_ident(fe, fe_field(r, "left"), name))
        step = fe_const_int(fe, fe_field(r, "right"), "the loop step");
      else if (!strcmp(bop, "+") && is_ident(fe, fe_field(r, "right"), name))
        step = fe_const_int(fe, fe_field(r, "left"), "the loop step");
      else if (!strcmp(bop, "-") && is_ident(fe, fe_field(r, "left"), name))
        step = minus_step(fe, fe_field(r, "right"));
      else
        fe_error(fe, u, "the loop update must add a constant to the counter '%s'", name);
    } else {
      fe_error(fe, u, "the loop update must add a constant to the counter '%s'", name);
    }
  } else {
    fe_error(fe, u, "the loop update must change the counter '%s' by a constant", name);
  }
  if (step == 0) fe_error(fe, update, "the loop step must not be zero");
  if ((step > 0) != (cmp == OP_LT || cmp == OP_LE))
    fe_error(fe, cond, "the loop condition never becomes false: the counter moves %s but the condition bounds it from %s",
             step > 0 ? "up" : "down", step > 0 ? "below" : "above");

  Expr *lo_t = fe_convert(fe, lo, t);
  check_compare(fe, cond, bound_node, v, lo_t, hi, step);
  int64_t hv;
  if (!t->is_signed && step < 0 && cmp == OP_GE && fe_eval_int(hi, &hv) && hv <= 0)
    fe_error(fe, cond, "the loop condition never becomes false: unsigned counter '%s' is always >= 0", name);

  Stmt *s = ir_stmt(fe->arena, ST_FOR, loc);
  s->var = v;
  s->lo = lo_t;
  s->hi = hi;
  s->cmp = cmp;
  s->step = step;
  s->name = name;
  fe->loop_depth++;
  s->body = as_block(fe, fe_stmt(fe, body), fe_loc(fe, body));
  fe->loop_depth--;
  fe_pop_scope(fe);
  if (adopted) {
    adopted->is_counter = true;
    adopted->after_loop = loc.line;
  }
  return s;
}

/* ---------------- statements ---------------- */

Stmt *fe_block(Fe *fe, TSNode compound) {
  fe_push_scope(fe);
  Stmt *list = NULL;
  uint32_t cnt = ts_node_child_count(compound);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = ts_node_child(compound, i);
    if (skip_node(c)) continue;
    list = append(list, fe_stmt(fe, c));
  }
  fe_pop_scope(fe);
  Stmt *b = ir_stmt(fe->arena, ST_BLOCK, fe_loc(fe, compound));
  b->body = list;
  return b;
}

Stmt *fe_stmt(Fe *fe, TSNode n) {
  if (++fe->depth > FE_MAX_NESTING)
    fe_error(fe, n, "statements nested too deeply (the limit is %d levels)", FE_MAX_NESTING);
  const char *t = ts_node_type(n);
  Stmt *s = NULL;
  if (!strcmp(t, "compound_statement")) {
    s = fe_block(fe, n);
  } else if (!strcmp(t, "declaration")) {
    s = declaration(fe, n);
  } else if (!strcmp(t, "expression_statement")) {
    s = expression_statement(fe, n);
  } else if (!strcmp(t, "for_statement")) {
    s = for_loop(fe, n);
  } else if (!strcmp(t, "if_statement")) {
    s = ir_stmt(fe->arena, ST_IF, fe_loc(fe, n));
    TSNode cond = fe_field(n, "condition");
    TSNode ce = fe_child(cond, 0);
    if (fe_is(ce, "comma_expression")) fe_error(fe, ce, "the comma operator is not supported in kernels");
    s->cond = fe_expr(fe, ce);
    TSNode then_n = fe_field(n, "consequence");
    s->then_s = as_block(fe, fe_stmt(fe, then_n), fe_loc(fe, then_n));
    TSNode alt = fe_field(n, "alternative");
    if (!ts_node_is_null(alt)) {
      TSNode else_n = fe_child(alt, 0);
      s->else_s = as_block(fe, fe_stmt(fe, else_n), fe_loc(fe, else_n));
    }
  } else if (!strcmp(t, "labeled_statement")) {
    const char *label = fe_text(fe, fe_field(n, "label"));
    fe_check_name(fe, fe_field(n, "label"), label, "label");
    TSNode inner = fe_child(n, 1);
    s = fe_stmt(fe, inner);
    bool call = s && s->kind == ST_BLOCK && s->call;
    if (!s || (s->kind != ST_ASSIGN && s->kind != ST_FOR && !(s->kind == ST_DECL && s->init) && !call))
      fe_error(fe, n, "label '%s' must name an assignment, a loop or a call of a kernel", label);
    if (call) s->call->name = label;
    /* For a chained assignment the label names the statement written last. */
    Stmt *last = s;
    while (last->next) last = last->next;
    last->name = label;
    last->labeled = true;
  } else if (!strcmp(t, "preproc_call")) {
    /* Other pragmas inside a body are hints a C compiler may ignore; ours
     * name loops and statements, so they belong at file level. */
    TSNode arg = fe_field(n, "argument");
    const char *a = ts_node_is_null(arg) ? "" : fe_text(fe, arg);
    if (!strncmp(a, "npu", 3) && (a[3] == ' ' || a[3] == '\t'))
      fe_error(fe, n, "'#pragma npu' lines go at file level, after the kernel, not inside it");
    s = NULL;
  } else if (!strcmp(t, "return_statement")) {
    fe_error(fe, n, "'return' is only allowed as the last statement of a kernel");
  } else if (!strcmp(t, "while_statement") || !strcmp(t, "do_statement")) {
    fe_error(fe, n, "'%s' loops are not supported in kernels; use a for loop with affine bounds",
             t[0] == 'w' ? "while" : "do");
  } else if (!strcmp(t, "goto_statement")) {
    fe_error(fe, n, "'goto' is not supported in kernels");
  } else if (!strcmp(t, "switch_statement")) {
    fe_error(fe, n, "'switch' is not supported in kernels; use if/else");
  } else if (!strcmp(t, "break_statement") || !strcmp(t, "continue_statement")) {
    fe_error(fe, n, "'%s' is not supported in kernels", t[0] == 'b' ? "break" : "continue");
  } else {
    fe_error(fe, n, "unsupported statement (%s)", t);
  }
  fe->depth--;
  return s;
}

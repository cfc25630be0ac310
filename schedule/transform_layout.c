/* transform_layout(BUF, (i, j), (i / 4, j, i % 4)[, pad_value]): gives BUF
 * a new physical layout through an index map. The map is written as two
 * parenthesised C comma expressions, parsed by tree-sitter with the pragma;
 * `axis_separator` (or AXIS_SEPARATOR) in the outputs starts a new physical
 * dimension (TVM RFC #39). schedule/layout.c checks and applies it. */
#include <string.h>

#include "ir/reserved.h"
#include "schedule/layout.h"
#include "schedule/primitives.h"

/* A tuple argument's items; a lone item stands for a 1-tuple. */
static const SchedArg *tuple_items(const SchedArg *a, int *n) {
  if (a->kind == SA_TUPLE) {
    *n = a->nitems;
    return a->items;
  }
  *n = 1;
  return a;
}

static bool is_separator(const SchedArg *a) {
  return a->kind == SA_NAME && (!strcmp(a->name, "axis_separator") || !strcmp(a->name, "AXIS_SEPARATOR"));
}

/* The map's output expression over its input variables. */
static Expr *map_expr(Sched *s, const IndexMap *m, const SchedArg *a, int depth) {
  SrcLoc at = a->loc;
  if (depth > 64) {
    sched_error(s, a, "the index expression is nested too deeply");
    return NULL;
  }
  switch (a->kind) {
  case SA_INT:
    if (a->ival >= ((int64_t)1 << 31) || a->ival <= -((int64_t)1 << 31)) {
      sched_error(s, a, "constant %lld is too large for an index map (at most 2^31 - 1)", (long long)a->ival);
      return NULL;
    }
    return ir_int(s->a, a->ival, &ty_int, at);
  case SA_NAME:
    for (int d = 0; d < m->nin; d++)
      if (!strcmp(m->in[d]->name, a->name)) return ir_var(s->a, m->in[d], at);
    if (a->has_value && a->ival < ((int64_t)1 << 31) && a->ival > -((int64_t)1 << 31))
      return ir_int(s->a, a->ival, &ty_int, at);
    if (is_separator(a)) sched_error(s, a, "axis_separator must stand alone between two indices");
    else sched_error(s, a, "'%s' is not one of the map's indices", a->name);
    return NULL;
  case SA_TUPLE:
    if (a->nitems == 1) return map_expr(s, m, &a->items[0], depth + 1);
    break;
  case SA_EXPR:
    if (a->op == OP_NEG && a->nitems == 1) {
      Expr *x = map_expr(s, m, &a->items[0], depth + 1);
      if (!x) return NULL;
      Expr *e = ir_binary(s->a, OP_SUB, ir_int(s->a, 0, &ty_int, at), x, &ty_int, at);
      return e;
    }
    if (a->op != OP_NONE && a->nitems == 2) {
      Expr *x = map_expr(s, m, &a->items[0], depth + 1), *y = x ? map_expr(s, m, &a->items[1], depth + 1) : NULL;
      if (!y) return NULL;
      return ir_binary(s->a, a->op, x, y, &ty_int, at);
    }
    break;
  default:
    break;
  }
  sched_error(s, a, "'%s' is not an index expression (use indices, integers, + - * / %% and parentheses)", a->text);
  return NULL;
}

bool prim_transform_layout(Sched *s, const SchedStep *st) {
  Buffer *b = sched_buffer(s, &st->args[0]);
  if (!b) return false;
  int nin, nout;
  const SchedArg *ins = tuple_items(&st->args[1], &nin), *outs = tuple_items(&st->args[2], &nout);
  if (nin != b->ndim)
    return sched_error(s, &st->args[1], "%s has %d dimension%s, but the map takes %d ind%s", b->name, b->ndim,
                       b->ndim == 1 ? "" : "s", nin, nin == 1 ? "ex" : "ices");
  const char *names[IR_MAX_DIMS];
  for (int d = 0; d < nin; d++) {
    if (ins[d].kind != SA_NAME || ins[d].has_value)
      return sched_error(s, &ins[d], "the map's inputs must be new index names, got '%s'", ins[d].text);
    const char *why = ir_reserved_why(ins[d].name); /* the pack and unpack loops declare them */
    if (why) return sched_error(s, &ins[d], "the index name '%s' is reserved: %s", ins[d].name, why);
    for (int e = 0; e < d; e++)
      if (!strcmp(names[e], ins[d].name)) return sched_error(s, &ins[d], "index '%s' appears twice", ins[d].name);
    names[d] = ins[d].name;
  }
  IndexMap m;
  layout_map_init(&m, s, b, names);
  for (int k = 0; k < nout; k++) {
    if (is_separator(&outs[k])) {
      if (m.ngroups == IR_MAX_DIMS) return sched_error(s, &outs[k], "more than %d physical dimensions", IR_MAX_DIMS);
      m.group_end[m.ngroups++] = m.nout;
      continue;
    }
    if (m.nout == LAYOUT_MAX_OUT)
      return sched_error(s, &outs[k], "the new layout has more than %d indices", LAYOUT_MAX_OUT);
    Expr *e = map_expr(s, &m, &outs[k], 0);
    if (!e) return false;
    m.out_arg[m.nout] = &outs[k];
    m.out[m.nout++] = e;
  }
  if (m.ngroups) m.group_end[m.ngroups++] = m.nout; /* the last group */
  if (st->nargs == 4) m.pad = &st->args[3];
  return layout_apply(s, b, &m, &st->args[2]);
}

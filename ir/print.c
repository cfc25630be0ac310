/* The IR's readable text form (`npugen emit --dump-ir`). */
#include <string.h>

#include "ir/ir.h"

static const char *role_name(BufferRole r) {
  switch (r) {
  case ROLE_INPUT: return "input";
  case ROLE_OUTPUT: return "output";
  case ROLE_INOUT: return "inout";
  case ROLE_LOCAL: return "local";
  }
  return "?";
}

static void print_buffer_type(StrBuf *sb, const Buffer *b) {
  sb_puts(sb, b->elem->name);
  for (int i = 0; i < b->ndim; i++) sb_printf(sb, "[%lld]", (long long)b->shape[i]);
}

static const char *loop_kind_name(LoopKind k) {
  switch (k) {
  case LOOP_SERIAL: return "";
  case LOOP_UNROLL: return " unroll";
  case LOOP_VECTORIZE: return " vectorize";
  case LOOP_PARALLEL: return " parallel";
  case LOOP_DMA: return " dma";
  case LOOP_VU: return " bind(vu)";
  }
  return "";
}

static void print_stmts(StrBuf *sb, const Stmt *s, int ind) {
  for (; s; s = s->next) {
    switch (s->kind) {
    case ST_BLOCK:
      sb_indent(sb, ind);
      sb_puts(sb, "{\n");
      print_stmts(sb, s->body, ind + 1);
      sb_indent(sb, ind);
      sb_puts(sb, "}\n");
      break;
    case ST_FOR:
      sb_indent(sb, ind);
      if (strcmp(s->name, s->var->name))
        sb_printf(sb, "for %s (counter %s) in ", s->name, s->var->name);
      else
        sb_printf(sb, "for %s in ", s->name);
      ir_print_expr(sb, s->lo);
      sb_printf(sb, " .. %s ", op_spelling(s->cmp));
      ir_print_expr(sb, s->hi);
      sb_printf(sb, " step %lld%s:  # line %d\n", (long long)s->step, loop_kind_name(s->loop_kind),
                s->loc.line);
      print_stmts(sb, s->body->body, ind + 1);
      break;
    case ST_IF:
      sb_indent(sb, ind);
      sb_puts(sb, "if ");
      ir_print_expr(sb, s->cond);
      sb_puts(sb, ":\n");
      print_stmts(sb, s->then_s->body, ind + 1);
      if (s->else_s) {
        sb_indent(sb, ind);
        sb_puts(sb, "else:\n");
        print_stmts(sb, s->else_s->body, ind + 1);
      }
      break;
    case ST_ASSIGN:
      sb_indent(sb, ind);
      sb_printf(sb, "%s: ", s->name);
      ir_print_expr(sb, s->lhs);
      sb_printf(sb, " %s= ", op_spelling(s->op));
      ir_print_expr(sb, s->rhs);
      sb_printf(sb, "  # line %d\n", s->loc.line);
      break;
    case ST_DECL:
      sb_indent(sb, ind);
      if (s->name) sb_printf(sb, "%s: ", s->name);
      if (s->buf) {
        if (buffer_onchip(s->buf))
          sb_printf(sb, "%s %s @%lld: ", s->buf->scope, s->buf->name, (long long)s->buf->offset);
        else
          sb_printf(sb, "local %s: ", s->buf->name);
        print_buffer_type(sb, s->buf);
        if (s->ninit) {
          sb_puts(sb, " = {");
          for (int i = 0; i < s->ninit; i++) {
            if (i) sb_puts(sb, ", ");
            ir_print_expr(sb, s->init_list[i]);
          }
          sb_puts(sb, "}");
        }
      } else {
        sb_printf(sb, "local %s: %s", s->var->name, s->var->type->name);
        if (s->init) {
          sb_puts(sb, " = ");
          ir_print_expr(sb, s->init);
        }
      }
      sb_printf(sb, "  # line %d\n", s->loc.line);
      break;
    }
  }
}

void ir_print_kernel(StrBuf *sb, const Kernel *k) {
  sb_printf(sb, "kernel %s(", k->name);
  for (const Param *p = k->params; p; p = p->next) {
    if (p != k->params) sb_puts(sb, ", ");
    if (p->buf) {
      sb_printf(sb, "%s: ", p->buf->name);
      print_buffer_type(sb, p->buf);
      sb_printf(sb, " %s", role_name(p->buf->role));
    } else {
      sb_printf(sb, "%s: %s", p->var->name, p->var->type->name);
    }
  }
  sb_puts(sb, ")\n");
  print_stmts(sb, k->body->body, 1);
}

/* A marked call's arguments as the C passes them. C99 converts a pointer
 * to rows of T into a pointer to rows of const T only by a cast (gcc
 * -pedantic refuses it without one), so a caller's array of more than
 * one dimension passed for a const parameter gets one:
 * `mm((const int8_t (*)[64])A_dm, ...)`. */
#include "lower/lower.h"

static const char *cast(Lower *lw, const Buffer *param, const Buffer *arg) {
  if (!param->is_const || arg->is_const || arg->ndim < 2) return NULL;
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "(const %s (*)", arg->elem->name);
  for (int d = 1; d < arg->ndim; d++) sb_printf(&sb, "[%lld]", (long long)arg->shape[d]);
  sb_putc(&sb, ')');
  const char *text = arena_strdup(lw->arena, sb.data);
  sb_free(&sb);
  return text;
}

Stmt *lower_call(Lower *lw, const Stmt *call) {
  const CallSite *cs = call->call;
  Stmt *c = lower_shallow(lw, call);
  c->arg_casts = ARENA_ARRAY(lw->arena, const char *, cs->nparams ? cs->nparams : 1);
  const Param *p = cs->fn_ir->params;
  for (int i = 0; i < cs->nparams; i++, p = p->next)
    c->arg_casts[i] = cs->arg_buf[i] ? cast(lw, p->buf, cs->arg_buf[i]) : NULL;
  return c;
}

/* annotate(target, key, value): attaches key = value to a loop or a
 * statement. Integer, string and list values are kept as written and reach
 * the emitted C as a comment (`/ * @key = value * /`) before the target. */
#include "schedule/primitives.h"

static bool value_ok(const SchedArg *a) {
  if (a->kind == SA_INT || a->kind == SA_STR || a->kind == SA_NAME) return true;
  if (a->kind != SA_TUPLE) return false;
  for (int i = 0; i < a->nitems; i++)
    if (!value_ok(&a->items[i])) return false;
  return true;
}

bool prim_annotate(Sched *s, const SchedStep *st) {
  Stmt *t = sched_target(s, &st->args[0]);
  if (!t) return false;
  const SchedArg *key = &st->args[1], *val = &st->args[2];
  if (key->kind != SA_NAME && key->kind != SA_STR)
    return sched_error(s, key, "the key must be a name or a string, got '%s'", key->text);
  if (!value_ok(val))
    return sched_error(s, val, "the value must be an integer, a string, a name or a parenthesized list of those, got '%s'", val->text);
  /* both reach C comments in the emitted code */
  for (const char *p = val->text; *p; p++)
    if ((p[0] == '*' && p[1] == '/') || (p[0] == '/' && p[1] == '*'))
      return sched_error(s, val, "the value cannot contain '/*' or '*/' (it is emitted inside a comment)");
  for (const char *p = key->name; *p; p++)
    if ((p[0] == '*' && p[1] == '/') || (p[0] == '/' && p[1] == '*'))
      return sched_error(s, key, "the key cannot contain '/*' or '*/' (it is emitted inside a comment)");
  Annot *a = ARENA_NEW(s->a, Annot);
  a->key = key->name;
  a->value = val->kind == SA_INT ? arena_printf(s->a, "%lld", (long long)val->ival) : val->text;
  Annot **tail = &t->annots;
  while (*tail) tail = &(*tail)->next;
  *tail = a;
  return true;
}

#include "ir/check_spec.h"

#include <string.h>

const CheckSpec *ir_spec_find(const CheckSpec *list, const Kernel *k, CheckSpecKind kind, const char *param) {
  for (const CheckSpec *c = list; c; c = c->next)
    if (c->kind == kind && !strcmp(c->kernel, k->name) &&
        (c->param ? param && !strcmp(c->param, param) : kind == SPEC_ALLOW_NONFINITE))
      return c;
  return NULL;
}

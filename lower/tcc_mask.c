/* A conversion tcc gets wrong, and the mask that makes it right
 * (lower/ref_lower.h): the C the JIT compiles (the check's reference, and
 * the variants' host code under the check's hooks) masks it. */
#include "lower/ref_lower.h"

const char *lower_tcc_mask(const Expr *cast) {
  const Type *to = cast->type, *from = cast->a->type;
  if (!type_is_integer(to) || to->is_signed || to->size >= 4 || !type_is_integer(from) || !from->is_signed ||
      from->size >= to->size)
    return NULL;
  return to->size == 1 ? "0xff" : "0xffff";
}

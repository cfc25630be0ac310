/* The padding a variant assumes its inputs hold. A parameter the variant
 * reads in a padded layout holds pad_value in its padding when packed by
 * the variant's own pack helper, and the variant may rely on it: its
 * guards may have been dropped where the padding adds 0 (pad_compute),
 * so its reads reach the padding. A caller outside npugen that builds the
 * physical array itself (another kernel's output, whose padding may hold
 * anything: docs/layouts.md) must fill it; the emitted header comment
 * and the prototype's comment say so. npugen's own programs write it
 * before the call (schedule/call_layouts.c). Only a parameter the
 * variant never writes counts: pad_compute relies on the padding of such
 * arrays alone (a written array's padding may receive anything). Decided
 * from its layout, not its reads: storage_align's gaps (pad_value 0)
 * count too. */
#include "lower/padding_assumed.h"

char *lower_padding_assumed(const Kernel *k, bool named) {
  StrBuf sb;
  sb_init(&sb);
  for (const Param *p = k->params; p; p = p->next) {
    const Buffer *b = p->buf;
    if (!b || !b->layout || !b->layout->padded || !b->layout->pad_text || b->role != ROLE_INPUT) continue;
    sb_printf(&sb, "%s%sassumes %s's padding holds %s: pack it with %s_pack_%s, or fill it\n", named ? k->name : "",
              named ? " " : "", b->name, b->layout->pad_text, k->name, b->name);
  }
  return sb_take(&sb);
}

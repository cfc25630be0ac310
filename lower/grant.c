/* DMAs in flight: the target's budget, shared by the structures that
 * overlap copies with compute.
 *
 * A double-buffered loop, a bound loop run phase by phase, a pass loop
 * loading ahead and a deferred copy out keep DMAs issued and not yet
 * waited for, and the target has at most max_tokens of them (npu_dma_*
 * fails beyond). Each structure is granted its overlap when the DMAs held
 * by the structures around it, its own and, when it holds a synchronous
 * copy, one more fit; else it keeps synchronous copies, after a note that
 * says why. Structures are asked in the order the pass meets them: the
 * copies out deferred over a whole loop nest first, then each loop's from
 * the outside in. A structure planned ahead (a pass loop plans its bound
 * loop) is keyed by a statement, so it is lowered as it was planned. */
#include <stdio.h>

#include "lower/lower.h"

int64_t lower_in_flight(const Lower *lw) {
  int64_t n = lw->held;
  for (int i = 0; i < lw->ndefer; i++) n += lw->defer[i].tokens;
  return n;
}

static int64_t peak(const Lower *lw, Need need) { return lower_in_flight(lw) + need.tokens + need.copy_inside; }

bool lower_grant(Lower *lw, const void *key, Need need, bool *decided) {
  Decided *d = lw->once;
  if (decided) *decided = true;
  for (int i = 0; i < d->ngrant; i++)
    if (d->grant[i].key == key) return d->grant[i].ok;
  if (decided) *decided = false;
  d->grant = lower_room(lw->arena, d->grant, d->ngrant, &d->grant_cap, sizeof *d->grant);
  bool ok = peak(lw, need) <= lw->max_tokens;
  d->grant[d->ngrant++] = (Grant){key, ok};
  return ok;
}

const char *lower_no_room(const Lower *lw, Need need, char *buf, size_t n) {
  snprintf(buf, n, "would keep up to %lld DMAs in flight (with those around it%s), and target '%s' allows %lld",
           (long long)peak(lw, need), need.copy_inside ? " and a copy inside" : "", lw->target_name,
           (long long)lw->max_tokens);
  return buf;
}

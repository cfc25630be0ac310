/* emit -o DIR's decisions (jit/emit_policy.h): each from the manifest's
 * typed entry and the facts cli/emit_dir.c read of the file. */
#include "jit/emit_policy.h"

#include <string.h>

EmitReplace emit_policy_replace_listed(const ManifestEntry *e, const uint64_t *hash, bool force) {
  return !hash || *hash == e->hash || force ? REPLACE_OK : REPLACE_EDITED;
}

EmitReplace emit_policy_replace_unlisted(bool opens_as_emitted, bool had_manifest, bool force) {
  if (!opens_as_emitted) return REPLACE_NOT_NPUGENS;
  return !had_manifest || force ? REPLACE_OK : REPLACE_UNLISTED;
}

bool emit_policy_from_other_source(const ManifestEntry *e, const EmitRunKey *run) {
  return e && strcmp(e->source, run->source) != 0;
}

/* Two runs' options give the same text: only --assume-no-alias changes it. */
static bool same_text_options(const ManifestOptions *a, const ManifestOptions *b) {
  return a->assume_no_alias == b->assume_no_alias;
}

/* A file recorded with schedule file `recorded` is of this run's
 * schedule: the same file, or none ("": a variant of the kernel file
 * alone, the same whichever schedule file a run adds; trial 44e, D4). */
static bool same_schedule(const char *recorded, const EmitRunKey *run) {
  return !*recorded || !strcmp(recorded, run->schedule);
}

bool emit_policy_inputs_match(const ManifestEntry *e, const EmitRunKey *run) {
  return !strcmp(e->target, run->target) && same_schedule(e->schedule, run) &&
         same_text_options(&e->options, &run->options);
}

bool emit_policy_entry_fresh(const ManifestEntry *e, const EmitRunKey *run, uint64_t hash, bool kernel_alone) {
  return e && !strcmp(e->source, run->source) && !strcmp(e->target, run->target) &&
         (kernel_alone || same_schedule(e->schedule, run)) && same_text_options(&e->options, &run->options) &&
         e->hash == hash;
}

bool emit_policy_checked_by_another_run(const ManifestEntry *e, const EmitRunKey *run) {
  return !same_schedule(e->schedule, run) || !manifest_options_equal(&e->options, &run->options) ||
         e->options.target_file;
}

EmitOtherInputs emit_policy_other_inputs(const ManifestEntry *e, const EmitRunKey *run) {
  return (EmitOtherInputs){.target = strcmp(e->target, run->target) != 0,
                           .schedule = !same_schedule(e->schedule, run),
                           .assume_no_alias = e->options.assume_no_alias != run->options.assume_no_alias};
}

bool emit_policy_any_other(EmitOtherInputs o) { return o.target || o.schedule || o.assume_no_alias; }

EmitLeftover emit_policy_leftover(const ManifestEntry *e, const EmitRunKey *run, const uint64_t *hash,
                                  EmitLeftoverFlags flags) {
  if (!hash) return LEFTOVER_FORGET;
  /* the target and the schedule file: a run from other ones keeps its files */
  bool same_inputs = !strcmp(e->target, run->target) && same_schedule(e->schedule, run);
  if (!same_inputs && !flags.prune) return LEFTOVER_KEEP;
  if (flags.check_refused) return LEFTOVER_REFUSED;
  if (*hash != e->hash && !flags.force) return LEFTOVER_EDITED;
  return LEFTOVER_REMOVE;
}

EmitStale emit_policy_stale(EmitReplace replace, bool other_inputs, bool same_text) {
  switch (replace) {
  case REPLACE_EDITED: return STALE_EDITED;
  case REPLACE_UNLISTED: return STALE_UNLISTED;
  case REPLACE_NOT_NPUGENS: return STALE_NOT_NPUGENS;
  case REPLACE_OK: break;
  }
  if (other_inputs) return STALE_OTHER_INPUTS;
  return same_text ? STALE_UNRECORDED : STALE_CHANGED;
}

bool emit_policy_stale_needs_force(EmitStale why) { return why == STALE_EDITED || why == STALE_UNLISTED; }

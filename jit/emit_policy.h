/* What `npugen emit FILE -o DIR` may do to each file in DIR, decided
 * from the manifest (jit/emit_manifest.h) and facts about the files that
 * cli/emit_dir.c reads; cli/emit_dir.c then writes, removes and prints
 * (the policy itself is described there, over the whole command). */
#ifndef NPG_EMIT_POLICY_H
#define NPG_EMIT_POLICY_H

#include "jit/emit_manifest.h"

/* This run's inputs as the manifest keys them. */
typedef struct {
  const char *source;   /* the kernel file relative to DIR */
  const char *target;   /* the target's name */
  const char *schedule; /* the schedule file relative to DIR, or "" */
  ManifestOptions options;
} EmitRunKey;

/* Whether emit may replace a regular file by another text: yes, or no
 * because it was edited since npugen wrote it (its text is not the one
 * the manifest's entry records), because it may not be npugen's (no
 * entry, no npugen comment), or because it opens with npugen's comment
 * but a manifest that exists does not name it. --force overrides the
 * first and the last. */
typedef enum { REPLACE_OK, REPLACE_EDITED, REPLACE_NOT_NPUGENS, REPLACE_UNLISTED } EmitReplace;

/* A file the manifest's entry e names; hash: its text's (NULL: no
 * regular file there now). */
EmitReplace emit_policy_replace_listed(const ManifestEntry *e, const uint64_t *hash, bool force);
/* A file the manifest does not name. */
EmitReplace emit_policy_replace_unlisted(bool opens_as_emitted, bool had_manifest, bool force);

/* e was written from another kernel file than this run's (whether that
 * file still exists, which makes it another's, is cli/emit_dir.c's to
 * look up). */
bool emit_policy_from_other_source(const ManifestEntry *e, const EmitRunKey *run);
/* e was written by a run with this run's inputs (--scheduled-only
 * changes which files, not their text; the target is known by its name,
 * an older npugen's manifest records no target file). A file recorded
 * with no schedule file (a variant of the kernel file alone) is of every
 * run's schedule. */
bool emit_policy_inputs_match(const ManifestEntry *e, const EmitRunKey *run);
/* The manifest names the file as this run writes it, text hash `hash`
 * (kernel_alone: a variant of the kernel file alone, the same from any
 * schedule file). */
bool emit_policy_entry_fresh(const ManifestEntry *e, const EmitRunKey *run, uint64_t hash, bool kernel_alone);
/* --check with the manifest's recorded inputs, of a file this kernel file
 * wrote from other inputs: another of the recorded runs checks it (true),
 * unless this run is its own but for a target an older npugen recorded by
 * name alone. */
bool emit_policy_checked_by_another_run(const ManifestEntry *e, const EmitRunKey *run);

/* What the earlier run that wrote e had that this one has not. */
typedef struct {
  bool target, schedule, assume_no_alias;
} EmitOtherInputs;
EmitOtherInputs emit_policy_other_inputs(const ManifestEntry *e, const EmitRunKey *run);
bool emit_policy_any_other(EmitOtherInputs o);

/* A file this kernel file's earlier run wrote and this run does not:
 * forgotten (no regular file there now: nothing of emit's to lose),
 * kept (written from another target or schedule file, without --prune),
 * not judged (--check after a refused schedule), edited since (an error
 * unless --force), or removed. */
typedef enum { LEFTOVER_FORGET, LEFTOVER_KEEP, LEFTOVER_REFUSED, LEFTOVER_EDITED, LEFTOVER_REMOVE } EmitLeftover;

typedef struct {
  bool prune, force;
  bool check_refused; /* --check, and a schedule was refused */
} EmitLeftoverFlags;

/* hash: the file's text's (NULL: no regular file there now). */
EmitLeftover emit_policy_leftover(const ManifestEntry *e, const EmitRunKey *run, const uint64_t *hash,
                                  EmitLeftoverFlags flags);

/* Why --check finds a file stale, most telling first: edited by hand, not
 * named by a manifest that exists, not npugen's, written from other
 * inputs, written with this text but not recorded, or another text (or a
 * link). */
typedef enum {
  STALE_EDITED,
  STALE_UNLISTED,
  STALE_NOT_NPUGENS,
  STALE_OTHER_INPUTS,
  STALE_UNRECORDED,
  STALE_CHANGED
} EmitStale;

/* replace: emit_policy_replace's verdict on a regular file whose text
 * differs (REPLACE_OK otherwise); same_text: the file holds this run's
 * text (a link never does). */
EmitStale emit_policy_stale(EmitReplace replace, bool other_inputs, bool same_text);
/* Regenerating such a file needs --force. */
bool emit_policy_stale_needs_force(EmitStale why);

#endif

/* emit -o DIR's decisions (jit/emit_policy.c) and the manifest's typed
 * options (jit/emit_manifest.c), without a file: the policy is a
 * function of the manifest's entry and the facts cli/emit_dir.c reads.
 * tests/test_embed.c and tests/test_hostile.c run the command itself. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "jit/emit_policy.h"

/* The options field reads back as the options it spells: flags word by
 * word, the target file as the rest of the field (spaces and all). */
static void options_read_back(void) {
  const char *fields[] = {"", "--assume-no-alias", "--scheduled-only", "--assume-no-alias --scheduled-only",
                          "--target=../t.ini", "--assume-no-alias --target=my targets/t 2.ini"};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    ManifestOptions o;
    manifest_options_parse(fields[i], &o);
    char *text = manifest_options_text(&o);
    cr_expect_str_eq(text, fields[i]);
    free(text);
    manifest_options_free(&o);
  }
  ManifestOptions o;
  manifest_options_parse("--scheduled-only --target=a b", &o);
  cr_expect(o.scheduled_only && !o.assume_no_alias);
  cr_expect_str_eq(o.target_file, "a b");
  manifest_options_free(&o);
}

/* A word is a flag only as a whole word, and the target file only at a
 * word's start: no substring of another word counts. */
static void options_read_by_words(void) {
  ManifestOptions o;
  manifest_options_parse("--assume-no-alias-x x--target=t --scheduled-only", &o);
  cr_expect(!o.assume_no_alias && o.scheduled_only && !o.target_file);
  manifest_options_free(&o);
  ManifestOptions a = {true, false, "t"}, b = {true, false, "t"}, c = {true, false, NULL};
  cr_expect(manifest_options_equal(&a, &b));
  cr_expect(!manifest_options_equal(&a, &c));
}

static ManifestEntry entry(const char *source, const char *target, const char *schedule, bool no_alias,
                           uint64_t hash) {
  return (ManifestEntry){.name = "v.c", .source = (char *)source, .target = (char *)target,
                         .schedule = (char *)schedule, .options = {.assume_no_alias = no_alias}, .hash = hash};
}

/* An entry's file is replaced when its text is the one recorded (or
 * --force); a file no entry names only when it opens with npugen's
 * comment and no manifest exists (or --force). */
static void who_may_replace(void) {
  ManifestEntry e = entry("k.c", "default", "", false, 7);
  uint64_t same = 7, edited = 8;
  cr_expect_eq(emit_policy_replace_listed(&e, &same, false), REPLACE_OK);
  cr_expect_eq(emit_policy_replace_listed(&e, NULL, false), REPLACE_OK);
  cr_expect_eq(emit_policy_replace_listed(&e, &edited, false), REPLACE_EDITED);
  cr_expect_eq(emit_policy_replace_listed(&e, &edited, true), REPLACE_OK);
  cr_expect_eq(emit_policy_replace_unlisted(false, false, true), REPLACE_NOT_NPUGENS);
  cr_expect_eq(emit_policy_replace_unlisted(true, false, false), REPLACE_OK);
  cr_expect_eq(emit_policy_replace_unlisted(true, true, false), REPLACE_UNLISTED);
  cr_expect_eq(emit_policy_replace_unlisted(true, true, true), REPLACE_OK);
}

/* A file of an earlier run that this run does not write: forgotten when
 * gone, kept when from another target or schedule file (unless --prune),
 * an error when edited (unless --force), else removed. */
static void leftovers(void) {
  EmitRunKey run = {"k.c", "default", "", {0}};
  ManifestEntry same = entry("k.c", "default", "", false, 7), other = entry("k.c", "default", "s.sched", false, 7);
  uint64_t h = 7, edited = 9;
  EmitLeftoverFlags none = {0}, prune = {.prune = true}, force = {.force = true}, refused = {.check_refused = true};
  cr_expect_eq(emit_policy_leftover(&same, &run, NULL, none), LEFTOVER_FORGET);
  cr_expect_eq(emit_policy_leftover(&other, &run, &h, none), LEFTOVER_KEEP);
  cr_expect_eq(emit_policy_leftover(&other, &run, &h, prune), LEFTOVER_REMOVE);
  cr_expect_eq(emit_policy_leftover(&same, &run, &h, refused), LEFTOVER_REFUSED);
  cr_expect_eq(emit_policy_leftover(&same, &run, &edited, none), LEFTOVER_EDITED);
  cr_expect_eq(emit_policy_leftover(&same, &run, &edited, force), LEFTOVER_REMOVE);
  cr_expect_eq(emit_policy_leftover(&same, &run, &h, none), LEFTOVER_REMOVE);
}

/* --check's reason, most telling first, and which need --force; only
 * --assume-no-alias of the options changes the text. */
static void stale_reasons(void) {
  cr_expect_eq(emit_policy_stale(REPLACE_EDITED, true, false), STALE_EDITED);
  cr_expect_eq(emit_policy_stale(REPLACE_UNLISTED, true, false), STALE_UNLISTED);
  cr_expect_eq(emit_policy_stale(REPLACE_NOT_NPUGENS, true, false), STALE_NOT_NPUGENS);
  cr_expect_eq(emit_policy_stale(REPLACE_OK, true, true), STALE_OTHER_INPUTS);
  cr_expect_eq(emit_policy_stale(REPLACE_OK, false, true), STALE_UNRECORDED);
  cr_expect_eq(emit_policy_stale(REPLACE_OK, false, false), STALE_CHANGED);
  cr_expect(emit_policy_stale_needs_force(STALE_EDITED) && emit_policy_stale_needs_force(STALE_UNLISTED));
  cr_expect(!emit_policy_stale_needs_force(STALE_NOT_NPUGENS) && !emit_policy_stale_needs_force(STALE_CHANGED));
  EmitRunKey run = {"k.c", "default", "", {.scheduled_only = true}};
  ManifestEntry plain = entry("k.c", "default", "", false, 7), no_alias = entry("k.c", "default", "", true, 7);
  cr_expect(emit_policy_inputs_match(&plain, &run));
  cr_expect(!emit_policy_inputs_match(&no_alias, &run));
  cr_expect(emit_policy_entry_fresh(&plain, &run, 7, false) && !emit_policy_entry_fresh(&plain, &run, 8, false));
  cr_expect(emit_policy_other_inputs(&no_alias, &run).assume_no_alias);
  cr_expect(!emit_policy_any_other(emit_policy_other_inputs(&plain, &run)));
}

/* One test for all (each test costs a fork, three times over under ASan). */
Test(emit_policy, the_options_field_and_each_decision) {
  options_read_back();
  options_read_by_words();
  who_may_replace();
  leftovers();
  stale_reasons();
}

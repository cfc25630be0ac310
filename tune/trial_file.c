/* A planned trial as a file (npugen tune --plan writes them, --trial and
 * --merge read them): its first line is the trial's record, in a comment,
 * with typed fields; the steps follow, for a reader and for npugen check.
 *
 *   / * tune-trial: kernel=mm space=npu sketch=nu:npu_nu_matmul_i8 ti=128 tj=64 ... * /
 *
 * The record, not the steps, says which space the trial belongs to: its
 * kernel, its space (npu or host), its sketch and each knob's value by
 * name. Reading checks each field against this space and names the first
 * that differs; the steps are rendered again from the knobs found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/tune.h"

static const char *const TAG = "/* tune-trial:";

static const char *space_name(const TuneSpace *sp) { return sp->host ? "host" : "npu"; }

void tune_trial_file_write(FILE *f, const TuneSpace *sp, const TuneEntry *e) {
  const TuneSketch *sk = &sp->sketch[e->g.sketch];
  fprintf(f, "%s kernel=%s space=%s sketch=%s", TAG, sp->kernel, space_name(sp), sk->name);
  for (int k = 0; k < sk->nknobs; k++) fprintf(f, " %s=%lld", sk->knobs[k].name, sk->knobs[k].val[e->g.choice[k]]);
  fprintf(f, " */\n%s", e->steps);
}

/* The next space-separated field of *p (before the comment's end) into
 * out; false at the end of the record. */
static bool next_field(const char **p, char *out, size_t n) {
  const char *s = *p + strspn(*p, " ");
  size_t len = strcspn(s, " \n");
  if (!len || !strncmp(s, "*/", 2) || len >= n) return false;
  memcpy(out, s, len);
  out[len] = 0;
  *p = s + len;
  return true;
}

/* Field "name=value" of the record, its value checked against want. */
static bool expect_field(const char **p, const char *name, const char *want, char *why, size_t n) {
  char field[200];
  size_t len = strlen(name);
  if (!next_field(p, field, sizeof field) || strncmp(field, name, len) || field[len] != '=') {
    snprintf(why, n, "its record has no %s", name);
    return false;
  }
  if (strcmp(field + len + 1, want)) {
    snprintf(why, n, "its %s is %s, this one's %s", name, field + len + 1, want);
    return false;
  }
  return true;
}

/* The sketch named `name` in sp, or -1. */
static int sketch_named(const TuneSpace *sp, const char *name) {
  for (int i = 0; i < sp->nsketch; i++)
    if (!strcmp(sp->sketch[i].name, name)) return i;
  return -1;
}

/* Each knob of sketch g->sketch, in order, as "name=value": the choice
 * whose value it is, into g. */
static bool read_knobs(const TuneSpace *sp, const char **p, TuneGenome *g, char *why, size_t n) {
  const TuneSketch *sk = &sp->sketch[g->sketch];
  for (int k = 0; k < sk->nknobs; k++) {
    const TuneKnob *kn = &sk->knobs[k];
    char field[200];
    size_t len = strlen(kn->name);
    char *end = NULL;
    bool named = next_field(p, field, sizeof field) && !strncmp(field, kn->name, len) && field[len] == '=';
    long long v = named ? strtoll(field + len + 1, &end, 10) : 0;
    g->choice[k] = -1;
    for (int c = 0; named && end && !*end && c < kn->n; c++)
      if (kn->val[c] == v) g->choice[k] = c;
    if (g->choice[k] < 0) {
      snprintf(why, n, "knob %s of sketch %s: %s", kn->name, sk->name,
               named ? "its value is not one this space offers" : "missing");
      return false;
    }
  }
  char extra[200];
  if (next_field(p, extra, sizeof extra)) {
    snprintf(why, n, "sketch %s has no knob %s here", sk->name, extra);
    return false;
  }
  return true;
}

bool tune_trial_file_read(const TuneSpace *sp, const char *path, TuneEntry *e, char *why, size_t n) {
  memset(e, 0, sizeof *e);
  char *text = ir_read_input(path, NPG_MAX_INPUT_BYTES, NULL);
  if (!text) {
    snprintf(why, n, "cannot read it");
    return false;
  }
  const char *p = text + strlen(TAG);
  char sketch[200];
  bool ok = !strncmp(text, TAG, strlen(TAG));
  if (!ok) snprintf(why, n, "it does not start with a trial's record (%s ...)", TAG);
  ok = ok && expect_field(&p, "kernel", sp->kernel, why, n) && expect_field(&p, "space", space_name(sp), why, n);
  if (ok && (!next_field(&p, sketch, sizeof sketch) || strncmp(sketch, "sketch=", 7))) {
    snprintf(why, n, "its record has no sketch");
    ok = false;
  }
  if (ok && (e->g.sketch = sketch_named(sp, sketch + 7)) < 0) {
    snprintf(why, n, "this space has no sketch %s", sketch + 7);
    ok = false;
  }
  ok = ok && read_knobs(sp, &p, &e->g, why, n);
  free(text);
  if (!ok) return false;
  e->steps = tune_render(sp, &e->g, sp->variant);
  e->r.hash = tune_hash(e->steps);
  return true;
}

bool tune_trial_file_run(const TuneSpace *sp, const char *path, int timeout, TrialResult *r, char *why, size_t n) {
  TuneEntry e;
  if (!tune_trial_file_read(sp, path, &e, why, n)) return false;
  const char *steps = e.steps;
  tune_pool_run(sp->s, &steps, 1, sp->variant, 1, sp->host, 1, timeout, NULL, r); /* in a process of its own, as in a search */
  tune_apply_bound(sp, r);
  free(e.steps);
  return true;
}

/* The schedule tune writes: the best candidates in rank order, each
 * checked against the kernel as written (npugen check, in a session of
 * its own); the first that passes goes to the output file, after a
 * comment that says how it was made. (Results read from files are
 * checked again before this: tune_plan_recheck.) */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit/check.h"
#include "tune/tune.h"

bool tune_output_check(const char *path, char *why, size_t n) {
  char dir[4096];
  const char *slash = strrchr(path, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
  struct stat st;
  if (!*path) snprintf(why, n, "cannot write '': no file name");
  else if (stat(dir, &st) || !S_ISDIR(st.st_mode)) snprintf(why, n, "cannot write %s: no directory %s", path, dir);
  else if (access(dir, W_OK | X_OK)) snprintf(why, n, "cannot write %s: directory %s: %s", path, dir, strerror(errno));
  else if (!stat(path, &st) && S_ISDIR(st.st_mode)) snprintf(why, n, "cannot write %s: it is a directory", path);
  else if (!stat(path, &st) && access(path, W_OK)) snprintf(why, n, "cannot write %s: %s", path, strerror(errno));
  else return true;
  return false;
}

/* The candidate's steps checked against the kernel as written in a session
 * of its own. */
static bool check_candidate(const TuneInvocation *inv, const TuneEntry *e, TuneWinner *w) {
  NpgSession *s = npg_open_file_for_target(inv->file, inv->target);
  npg_add_schedule_string(s, "<tune>", e->steps, strlen(e->steps));
  int v = npg_variant_count(s) - 1;
  bool ok = npg_error_count(s) == 0;
  /* the check runs the kernel as written too: a --max-steps above its default raises its budget as well */
  if (inv->max_steps > CHECK_DEFAULT_MAX_STEPS) npg_set_check_limits(s, inv->max_steps, 0);
  ok = ok && npg_check(s, v, inv->seed, &w->check);
  w->openmp = ok && tune_host_openmp(s, v);
  if (npg_error_count(s)) snprintf(w->check.message, sizeof w->check.message, "%.1000s", npg_errors(s));
  npg_close(s);
  return ok;
}

/* The schedule file's text: a comment that says how it was made (the
 * paths and the size are the user's text: escaped, sb_lines), then the
 * steps. */
static char *schedule_text(const TuneSpace *sp, const TuneInvocation *inv, const TuneRun *run, const TuneEntry *e,
                           bool openmp) {
  char d[512], cost[200];
  tune_describe(sp, &e->g, d, sizeof d);
  if (e->g.sketch == TUNE_AS_WRITTEN) /* timed as a candidate, and none beat it */
    snprintf(d, sizeof d, "the kernel as written: no candidate beat it, so the schedule has no step");
  if (sp->host)
    snprintf(cost, sizeof cost, "%.1f us per call on the machine that tuned it (median, spread %.1f%%, cc %s)",
             1e-3 * (double)e->r.median_ns, 100.0 * e->r.spread, tune_host_cflags(openmp));
  else snprintf(cost, sizeof cost, "%" PRIu64 " cycles, roofline %.1f%%", e->r.cycles, 100.0 * e->r.roofline);
  StrBuf head, text;
  sb_init(&head);
  sb_init(&text);
  sb_printf(&head, "npugen tune %s --kernel %s%s%s%s%s%s --seed %" PRIu64 ": best of %d candidates (%d legal, %d %s)\n%s\n%s; passes npugen check (seed %" PRIu64 ")",
            inv->file, sp->kernel, inv->target ? " --target " : "", inv->target ? inv->target : "",
            inv->host ? " --host" : "", inv->size ? " --size " : "", inv->size ? inv->size : "", inv->seed,
            run->generated, run->legal, run->simulated, sp->host ? "timed" : "simulated", d, cost, inv->seed);
  const char *nl = strchr(head.data, '\n');
  sb_puts(&text, "/* ");
  sb_c_text(&text, C_TEXT_COMMENT, head.data, (size_t)(nl - head.data) + 1);
  sb_lines(&text, nl + 1, " * ");
  text.len--; /* the last line's newline: the comment closes on it */
  sb_puts(&text, " */\n");
  sb_puts(&text, e->steps);
  sb_free(&head);
  return sb_take(&text);
}

static bool write_file(const char *path, const char *text, char *why, size_t n) {
  FILE *f = fopen(path, "w");
  bool ok = f && fputs(text, f) >= 0;
  if (f && fclose(f)) ok = false;
  if (!ok) snprintf(why, n, "cannot write %s: %s", path, strerror(errno));
  return ok;
}

bool tune_pick_best(const TuneSpace *sp, const TuneInvocation *inv, const TuneRun *run, TuneWinner *w, FILE *msgs) {
  memset(w, 0, sizeof *w);
  w->rank = -1;
  for (int i = 0; i < run->n && i < 5; i++) {
    const TuneEntry *e = &run->v[i];
    if (e->r.status != TRIAL_SIMULATED) break;
    if (!check_candidate(inv, e, w)) {
      fprintf(msgs, "npugen tune: candidate %d fails the check (%s); trying the next\n", i + 1, w->check.message);
      continue;
    }
    w->rank = i;
    return true;
  }
  const TuneEntry *first = run->n ? &run->v[0] : NULL;
  if (first && first->r.status == TRIAL_SIMULATED)
    snprintf(w->check.message, sizeof w->check.message,
             "none of the (at most five) best %s candidates passes the check", sp->host ? "timed" : "simulated");
  else
    snprintf(w->check.message, sizeof w->check.message, "no candidate was %s%s%.400s",
             sp->host ? "timed" : "simulated", first ? "; the first tried: " : "", first ? first->r.message : "");
  return false;
}

bool tune_write_best(const TuneSpace *sp, const TuneInvocation *inv, const TuneRun *run, const char *out,
                     TuneWinner *w, FILE *msgs) {
  if (!tune_pick_best(sp, inv, run, w, msgs)) return false;
  char *text = schedule_text(sp, inv, run, &run->v[w->rank], w->openmp);
  bool ok = write_file(out, text, w->check.message, sizeof w->check.message);
  free(text);
  if (!ok) w->rank = -1;
  return ok;
}

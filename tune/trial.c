/* One trial: a candidate's steps applied to the kernel (each step proven
 * by the engine: a refusal makes the candidate illegal) and the variant
 * run in the simulator for its cycles, without the reference. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/tune.h"

/* FNV-1a, 64 bits: the same text, the same hash, on every machine. */
uint64_t tune_hash(const char *text) {
  uint64_t h = 1469598103934665603ull;
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) h = (h ^ *p) * 1099511628211ull;
  return h;
}

void tune_first_error(NpgSession *s, size_t from, char *out, size_t n) {
  const char *all = npg_errors(s);
  const char *e = strlen(all) > from ? all + from : all;
  const char *msg = strstr(e, "error: ");
  msg = msg ? msg + 7 : e;
  size_t len = strcspn(msg, "\n");
  snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), msg);
}

void tune_trial_run(NpgSession *s, const char *steps, const char *variant, uint64_t seed, bool host, TrialResult *r) {
  memset(r, 0, sizeof *r);
  r->hash = tune_hash(steps);
  int errors = npg_error_count(s);
  size_t before = strlen(npg_errors(s));
  npg_add_schedule_string(s, "<tune>", steps, strlen(steps));
  int v = npg_variant_index(s, variant);
  if (npg_error_count(s) != errors || v < 0) {
    r->status = TRIAL_ILLEGAL;
    tune_first_error(s, before, r->message, sizeof r->message);
    return;
  }
  if (host) {
    TuneHostTime t;
    if (!tune_host_time(s, v, &t, r->message, sizeof r->message)) {
      r->status = TRIAL_FAILED;
      return;
    }
    r->status = TRIAL_SIMULATED;
    r->timed = true;
    r->median_ns = t.median_ns;
    r->min_ns = t.min_ns;
    r->openmp = t.openmp;
    r->spread = t.spread;
    memcpy(r->bound, "cpu", 4);
    return;
  }
  NpgSimResult sim;
  if (!npg_simulate(s, v, seed, &sim) || !sim.sim_cycles) {
    r->status = TRIAL_FAILED;
    snprintf(r->message, sizeof r->message, "%.200s", sim.sim_cycles || sim.message[0] ? sim.message
                                                   : "no cycle figure: no intrinsic ran");
    return;
  }
  r->status = TRIAL_SIMULATED;
  r->cycles = sim.sim_cycles;
  r->ideal = sim.ideal_cycles;
  r->roofline = sim.roofline;
  r->bound_util = sim.bound_utilization;
  r->nu_util = sim.nu_utilization;
  memcpy(r->bound, sim.bound, sizeof r->bound);
}

uint64_t tune_cost(const TrialResult *r) { return r->timed ? r->median_ns : r->cycles; }

void tune_apply_bound(const TuneSpace *sp, TrialResult *r) {
  if (sp->host || r->status != TRIAL_SIMULATED || !r->cycles) return;
  r->ideal = sp->ideal;
  r->roofline = (double)sp->ideal / (double)r->cycles;
}

static const char *status_name[] = {"illegal", "failed", "simulated", "pruned"};

void tune_result_write(FILE *f, const TrialResult *r) {
  char msg[sizeof r->message];
  snprintf(msg, sizeof msg, "%s", r->message);
  for (char *p = msg; *p; p++)
    if (*p == '\n' || *p == '\t') *p = ' ';
  fprintf(f, "%016" PRIx64 "\t%s\t%" PRIu64 "\t%" PRIu64 "\t%.6f\t%.6f\t%.6f\t%s\t%.3f\t%.4f\t%s\t%" PRIu64 "\t%" PRIu64
             "\t%d\t%s\n",
          r->hash, status_name[r->status], r->cycles, r->ideal, r->roofline, r->bound_util, r->nu_util,
          r->bound[0] ? r->bound : "-", r->seconds, r->spread, r->timed ? "timed" : "simulated", r->median_ns, r->min_ns,
          r->openmp, msg);
}

bool tune_result_read(const char *line, TrialResult *r) {
  memset(r, 0, sizeof *r);
  char status[16], bound[8], cost[16];
  int used = 0, openmp = 0;
  if (sscanf(line, "%" SCNx64 "\t%15s\t%" SCNu64 "\t%" SCNu64 "\t%lf\t%lf\t%lf\t%7s\t%lf\t%lf\t%15s\t%" SCNu64 "\t%" SCNu64
                   "\t%d\t%n",
             &r->hash, status, &r->cycles, &r->ideal, &r->roofline, &r->bound_util, &r->nu_util, bound, &r->seconds,
             &r->spread, cost, &r->median_ns, &r->min_ns, &openmp, &used) < 14 ||
      (strcmp(cost, "timed") && strcmp(cost, "simulated")))
    return false;
  r->timed = !strcmp(cost, "timed");
  r->openmp = openmp != 0;
  r->status = TRIAL_FAILED;
  for (int i = 0; i < 4; i++)
    if (!strcmp(status, status_name[i])) r->status = (TrialStatus)i;
  snprintf(r->bound, sizeof r->bound, "%.3s", strcmp(bound, "-") ? bound : "");
  snprintf(r->message, sizeof r->message, "%.*s", (int)strcspn(line + used, "\n"), line + used);
  return true;
}

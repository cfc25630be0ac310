/* The npugen command. Exit status: 0 success, 1 bad input or a failed check,
 * 2 usage error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/emit_dir.h"
#include "cli/help.h"
#include "cli/tune.h"
#include "npugen.h"

/* A usage error: the message, then the command's help (or the overview). */
static int usage_error(const char *cmd, const char *fmt, const char *arg) {
  fprintf(stderr, "npugen: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  if (!cmd || !help_command(stderr, cmd)) help_overview(stderr);
  return 2;
}

enum { MAX_VARIANTS = 64 }; /* --variant given at most this often */

typedef struct {
  const char *cmd, *file, *out_dir, *target, *trace, *schedule;
  const char *variants[MAX_VARIANTS]; /* --variant: only these */
  int nvariants;
  bool check_stale, dump_ir, dump_steps, dump_lowered, assume_no_alias, prune, force, list_outputs, strict;
  bool scheduled_only; /* emit: the scheduled variants, not each kernel as written */
  bool rerun_as_written;
  bool recorded_inputs; /* emit --check: these are inputs DIR's manifest records (check_recorded_inputs) */
  int kernel_variants;  /* the variants of the kernel file alone: the first ones, before --schedule's */
  uint64_t seed, max_steps, max_mib, max_cpu;
} Options;

/* An option of one value given again: a usage error, since the last one
 * would silently win (trial 44e: a second --schedule replaced the first,
 * and emit -o then removed the first one's variants). given[] holds those
 * seen, each once. */
static bool given_twice(const char *a, const char **given, int *ngiven) {
  static const char *const one_value[] = {"-o",        "--seed",       "--target",     "--trace",
                                          "--schedule", "--max-steps", "--max-memory", "--max-cpu"};
  enum { N = sizeof one_value / sizeof one_value[0] };
  bool single = false;
  for (int k = 0; k < N; k++) single |= !strcmp(a, one_value[k]);
  for (int k = 0; single && k < *ngiven; k++)
    if (!strcmp(given[k], a)) return true;
  if (single && *ngiven < N) given[(*ngiven)++] = a;
  return false;
}

static int parse_args(int argc, char **argv, Options *o) {
  memset(o, 0, sizeof *o);
  o->seed = 1;
  o->cmd = argv[1];
  const char *given[16];
  int ngiven = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-o") || !strcmp(a, "--seed") || !strcmp(a, "--target") || !strcmp(a, "--trace") ||
        !strcmp(a, "--schedule") || !strcmp(a, "--max-steps") || !strcmp(a, "--max-memory") || !strcmp(a, "--max-cpu") ||
        !strcmp(a, "--variant")) {
      if (i + 1 >= argc) return usage_error(o->cmd, "option '%s' needs a value", a);
      if (given_twice(a, given, &ngiven)) {
        char why[300];
        snprintf(why, sizeof why, "option '%s' is given twice: it takes one value%s", a,
                 strcmp(a, "--schedule") ? ""
                                         : " (one schedule file: put both files' pragmas in one, or emit each into "
                                           "its own directory)");
        return usage_error(o->cmd, "%s", why);
      }
      if (!strcmp(a, "--variant")) {
        if (o->nvariants == MAX_VARIANTS) return usage_error(o->cmd, "more than %s --variant options", "64");
        o->variants[o->nvariants++] = argv[++i];
      } else if (!strcmp(a, "--schedule")) {
        o->schedule = argv[++i];
      } else if (!strcmp(a, "--target")) {
        o->target = argv[++i];
      } else if (!strcmp(a, "--trace")) {
        o->trace = argv[++i];
      } else if (a[1] == 'o') {
        o->out_dir = argv[++i];
      } else {
        char *end;
        errno = 0;
        uint64_t v = strtoull(argv[++i], &end, 10);
        if (*end || errno || !argv[i][0] || argv[i][0] == '-') return usage_error(o->cmd, "invalid number '%s'", argv[i]);
        if (!strcmp(a, "--seed")) o->seed = v;
        else if (v == 0 || (!strcmp(a, "--max-memory") && v > (UINT64_MAX >> 20)))
          return usage_error(o->cmd, "invalid limit '%s'", argv[i]);
        else if (!strcmp(a, "--max-steps")) o->max_steps = v;
        else if (!strcmp(a, "--max-cpu")) o->max_cpu = v;
        else o->max_mib = v;
      }
    } else if (!strcmp(a, "--check")) {
      o->check_stale = true;
    } else if (!strcmp(a, "--assume-no-alias")) {
      o->assume_no_alias = true;
    } else if (!strcmp(a, "--prune")) {
      o->prune = true;
    } else if (!strcmp(a, "--force")) {
      o->force = true;
    } else if (!strcmp(a, "--list-outputs")) {
      o->list_outputs = true;
    } else if (!strcmp(a, "--scheduled-only")) {
      o->scheduled_only = true;
    } else if (!strcmp(a, "--strict")) {
      o->strict = true;
    } else if (!strcmp(a, "--rerun-as-written")) {
      o->rerun_as_written = true;
    } else if (!strcmp(a, "--dump-ir")) {
      o->dump_ir = true;
    } else if (!strcmp(a, "--dump-ir=lowered")) {
      o->dump_ir = o->dump_lowered = true;
    } else if (!strcmp(a, "--dump-ir=steps")) {
      o->dump_ir = o->dump_steps = true;
    } else if (a[0] == '-' && a[1]) {
      return usage_error(o->cmd, "unknown option '%s'", a);
    } else if (!o->file) {
      o->file = a;
    } else {
      return usage_error(o->cmd, "unexpected argument '%s'", a);
    }
  }
  if (!o->file) return usage_error(o->cmd, "missing input FILE%s", "");
  if (strcmp(o->cmd, "emit") &&
      (o->out_dir || o->check_stale || o->dump_ir || o->assume_no_alias || o->prune || o->force || o->list_outputs ||
       o->scheduled_only))
    return usage_error(o->cmd, "-o, --check, --prune, --force, --list-outputs, --scheduled-only, --dump-ir and "
                               "--assume-no-alias belong to 'emit'%s", "");
  if (o->prune && !o->out_dir) return usage_error(o->cmd, "--prune needs -o DIR%s", "");
  if (o->force && !o->out_dir) return usage_error(o->cmd, "--force needs -o DIR%s", "");
  if (strcmp(o->cmd, "check") && (o->trace || o->max_steps || o->max_mib || o->max_cpu || o->rerun_as_written))
    return usage_error(o->cmd, "--trace, --max-steps, --max-memory, --max-cpu and --rerun-as-written belong to 'check'%s", "");
  if (o->check_stale && !o->out_dir) return usage_error(o->cmd, "--check needs -o DIR%s", "");
  /* emit -o removes the files of variants it does not write */
  if (o->nvariants && o->out_dir) return usage_error(o->cmd, "--variant and -o do not go together: -o writes every variant%s", "");
  return 0;
}

/* The variants to run: --variant's, else all (--scheduled-only: those
 * with a schedule); -1 after an error. */
static int pick_variants(NpgSession *s, const Options *o, int *idx) {
  int n = npg_variant_count(s), m = 0;
  if (!o->nvariants) {
    for (int i = 0; i < n; i++)
      if (!o->scheduled_only || npg_variant_schedule(s, i)) idx[m++] = i;
    return m;
  }
  for (int k = 0; k < o->nvariants; k++) {
    idx[k] = npg_variant_index(s, o->variants[k]);
    if (idx[k] >= 0) continue;
    char err[8192];
    npg_variant_unknown(s, o->variants[k], err, sizeof err);
    fprintf(stderr, "%s: error: %s\n", o->file, err);
    return -1;
  }
  return o->nvariants;
}

/* The command that writes DIR as this run does, every input and option
 * included (--check's stale messages give it). */
static void rerun_command(char *out, size_t n, const Options *o) {
  snprintf(out, n, "npugen emit");
  emit_dir_shell_arg(out, n, o->file);
  const char *opts[] = {"--schedule", o->schedule, "--target", o->target, "-o", o->out_dir};
  for (int i = 0; i < 6; i += 2) {
    if (!opts[i + 1]) continue;
    emit_dir_shell_arg(out, n, opts[i]);
    emit_dir_shell_arg(out, n, opts[i + 1]);
  }
  if (o->assume_no_alias) emit_dir_shell_arg(out, n, "--assume-no-alias");
  if (o->scheduled_only) emit_dir_shell_arg(out, n, "--scheduled-only");
  if (o->prune) emit_dir_shell_arg(out, n, "--prune");
  if (o->force) emit_dir_shell_arg(out, n, "--force");
}

static int cmd_emit(NpgSession *s, const Options *o, const int *idx, int n) {
  int rc = 0;
  if (o->list_outputs) { /* the files -o writes (npugen_add_kernels reads them at configure time) */
    for (int k = 0; k < n; k++) printf("%s.c\n%s.h\n", npg_variant_name(s, idx[k]), npg_variant_name(s, idx[k]));
    return 0;
  }
  if (o->dump_ir)
    for (int k = 0; k < n; k++) {
      int i = idx[k];
      const char *steps = o->dump_steps ? npg_dump_ir_steps(s, i) : NULL;
      if (steps) printf("# variant %s\n%s", npg_variant_name(s, i), steps);
      else printf("%s", o->dump_lowered ? npg_dump_ir_lowered(s, i) : npg_dump_ir(s, i));
    }
  if (!o->out_dir) {
    if (!o->dump_ir)
      for (int k = 0; k < n; k++) printf("%s%s", k ? "\n" : "", npg_emit_source(s, idx[k]));
    return 0;
  }
  char rerun[8192];
  rerun_command(rerun, sizeof rerun, o);
  EmitDir d = {.dir = o->out_dir, .source = o->file, .schedule = o->schedule, .target = npg_target_name(s),
               .target_file = o->target, .assume_no_alias = o->assume_no_alias, .scheduled_only = o->scheduled_only,
               .check = o->check_stale, .recorded_inputs = o->recorded_inputs, .prune = o->prune, .force = o->force, .rerun = rerun,
               .refused = npg_error_count(s) > 0};
  if (emit_dir_open(&d)) return 1;
  for (int k = 0; k < n; k++) {
    int i = idx[k];
    const char *texts[2] = {npg_emit_source(s, i), npg_emit_header(s, i)};
    const char *exts[2] = {".c", ".h"};
    for (int f = 0; f < 2; f++) {
      char name[4096];
      snprintf(name, sizeof name, "%s%s", npg_variant_name(s, i), exts[f]);
      rc |= emit_dir_file(&d, name, texts[f], i < o->kernel_variants);
    }
  }
  rc |= emit_dir_leftovers(&d);
  rc |= emit_dir_close(&d);
  return rc;
}

static int cmd_check(NpgSession *s, const Options *o, const int *idx, int n) {
  int failed = 0, not_run = 0;
  npg_set_check_limits(s, o->max_steps, o->max_mib << 20);
  npg_set_check_cpu_limit(s, (double)o->max_cpu);
  npg_set_as_written_by_reference(s, !o->rerun_as_written);
  for (int k = 0; k < n; k++) {
    int i = idx[k];
    NpgCheckResult r;
    bool ok = npg_check(s, i, o->seed, &r);
    if (ok && r.by_reference) {
      printf("%-24s PASS  the kernel as written: compiled, not compared; the reference's run is its run (seed %llu)\n", npg_variant_name(s, i),
             (unsigned long long)o->seed);
      printf("%-24s       %s\n", "", r.summary);
    } else if (ok) {
      printf("%-24s PASS  max error %g%s, %ld output elements compared (seed %llu)", npg_variant_name(s, i),
             r.max_error, r.exact ? " (bit-exact)" : "", r.compared, (unsigned long long)o->seed);
      if (r.size_sets_not_run)
        printf("; %d size set%s over the step budget, not run", r.size_sets_not_run, r.size_sets_not_run == 1 ? "" : "s");
      printf("\n");
      not_run += r.size_sets_not_run;
      printf("%-24s       %s\n", "", r.summary);
      if (r.nonfinite) printf("%-24s       %ld compared outputs are NaN or infinite (allowed)\n", "", r.nonfinite);
    }
    else
      printf("%-24s FAIL  %s\n", npg_variant_name(s, i), r.message);
    failed += !ok;
  }
  printf("%d passed, %d failed", n - failed, failed);
  if (not_run) printf(" (%d size set%s over the step budget, not run)", not_run, not_run == 1 ? "" : "s");
  printf("\n");
  return failed ? 1 : 0;
}

/* The schedule file's text, read here so that one that cannot be read
 * stops the run before any check (a device such as /dev/zero never ends:
 * at most NPG_MAX_INPUT_BYTES + 1 bytes are read). NULL after an error. */
static char *read_schedule(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: error: cannot read file: %s\n", path, strerror(errno));
    return NULL;
  }
  char *text = malloc(NPG_MAX_INPUT_BYTES + 2);
  size_t n = fread(text, 1, NPG_MAX_INPUT_BYTES + 1, f);
  int err = ferror(f) ? errno : 0;
  fclose(f);
  if (err || n > NPG_MAX_INPUT_BYTES) {
    if (err) fprintf(stderr, "%s: error: cannot read file: %s\n", path, strerror(err));
    else fprintf(stderr, "%s: error: file is too large (more than %d bytes); the limit is %d MiB (%d bytes)\n", path,
                 NPG_MAX_INPUT_BYTES, NPG_MAX_INPUT_BYTES >> 20, NPG_MAX_INPUT_BYTES);
    free(text);
    return NULL;
  }
  text[n] = 0;
  *len = n;
  return text;
}

/* `npugen intrinsics [NAME] [--target INI]`. */
static int cmd_intrinsics(int argc, char **argv) {
  const char *name = NULL, *target = NULL;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--target")) {
      if (i + 1 >= argc) return usage_error("intrinsics", "option '%s' needs a value", argv[i]);
      target = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return usage_error("intrinsics", "unknown option '%s'", argv[i]);
    } else if (name) {
      return usage_error("intrinsics", "unexpected argument '%s'", argv[i]);
    } else {
      name = argv[i];
    }
  }
  char err[2048];
  char *text = npg_intrinsics_describe(name, target, err, sizeof err);
  if (!text) {
    fprintf(stderr, "npugen intrinsics: error: %s\n", err);
    return 1;
  }
  fputs(text, stdout);
  free(text);
  return 0;
}

static int run_variants(const Options *op);

/* `emit -o DIR --check` given no input of its own (--schedule, --target,
 * --assume-no-alias, --scheduled-only) nor --prune: DIR checked with the inputs its
 * manifest records for the kernel file, each earlier run's in turn, so
 * its stale messages give back each run's whole command. -1 when the
 * manifest records none (the run's own inputs are checked). */
static int check_recorded_inputs(const Options *o) {
  if (!o->check_stale || !o->out_dir || o->schedule || o->target || o->assume_no_alias || o->scheduled_only || o->prune)
    return -1;
  EmitDirInputs *in;
  int n = emit_dir_recorded_inputs(o->out_dir, o->file, &in), rc = n ? 0 : -1;
  for (int k = 0; k < n; k++) {
    Options r = *o;
    r.schedule = in[k].schedule;
    r.target = in[k].target_file;
    r.assume_no_alias = in[k].assume_no_alias;
    r.scheduled_only = in[k].scheduled_only;
    r.recorded_inputs = true;
    rc |= run_variants(&r);
  }
  emit_dir_inputs_free(in, n);
  return rc;
}

/* emit and check: open the file, add --schedule's variants, run. */
static int cmd_variants(int argc, char **argv) {
  Options o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc;
  rc = check_recorded_inputs(&o);
  return rc >= 0 ? rc : run_variants(&o);
}

static int run_variants(const Options *op) {
  Options o = *op;
  int rc = 0;
  NpgSession *s = npg_open_file_for_target(o.file, o.target);
  o.kernel_variants = npg_variant_count(s);
  if (o.schedule && npg_variant_count(s)) {
    size_t len;
    char *text = read_schedule(o.schedule, &len);
    bool binary = text && memchr(text, 0, len); /* refused as a whole (npg_add_schedule_string says where) */
    if (text) npg_add_schedule_string(s, o.schedule, text, len);
    free(text);
    if (!text || binary) {
      fputs(npg_errors(s), stderr);
      npg_close(s);
      return 1;
    }
  }
  if (o.trace) npg_set_trace(s, o.trace);
  if (o.assume_no_alias) npg_set_assume_no_alias(s, true);
  if (o.strict) npg_set_strict(s, true);
  int errors = npg_error_count(s);
  fputs(npg_errors(s), stderr); /* errors, and warnings (a reorder that changes nothing) */
  /* A refused variant is not emitted; the others still are, except into
   * -o DIR: there an error changes nothing (a refusal is no removal). */
  int *idx = malloc(sizeof *idx * (size_t)(npg_variant_count(s) + MAX_VARIANTS + 1));
  int n = npg_variant_count(s) ? pick_variants(s, &o, idx) : 0;
  if (n < 0) rc = 1;
  else if (errors && o.out_dir && !o.check_stale && !o.list_outputs) emit_dir_report_unchanged(o.out_dir);
  else if (n) rc = !strcmp(o.cmd, "emit") ? cmd_emit(s, &o, idx, n) : cmd_check(s, &o, idx, n);
  else if (o.scheduled_only && npg_variant_count(s)) { /* DIR still loses the kernels as written of an earlier run */
    fprintf(stderr, "npugen: warning: %s has no scheduled variant, and --scheduled-only leaves out each kernel as "
            "written: nothing to emit\n", o.file);
    rc = cmd_emit(s, &o, idx, 0);
  }
  free(idx);
  npg_close(s);
  return errors ? 1 : rc;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage_error(NULL, "missing command%s", "");
  const char *cmd = argv[1];
  if (argc == 2 && !strcmp(cmd, "--version")) {
    printf("npugen %s\n", NPUGEN_VERSION_STRING);
    return 0;
  }
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
    help_overview(stdout);
    return 0;
  }
  if (!strcmp(cmd, "help")) return cmd_help(argc, argv);
  bool known = !strcmp(cmd, "emit") || !strcmp(cmd, "check") || !strcmp(cmd, "tune") || !strcmp(cmd, "intrinsics");
  if (!known) {
    char dym[96];
    fprintf(stderr, "npugen: unknown command '%s'%s\n", cmd, help_suggest(cmd, dym, sizeof dym));
    help_overview(stderr);
    return 2;
  }
  if (help_asked(argc, argv)) {
    help_command(stdout, cmd);
    return 0;
  }
  if (!strcmp(cmd, "tune")) return cmd_tune(argc, argv);
  if (!strcmp(cmd, "intrinsics")) return cmd_intrinsics(argc, argv);
  return cmd_variants(argc, argv);
}

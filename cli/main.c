/* The npugen command. Exit status: 0 success, 1 bad input or a failed check,
 * 2 usage error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/emit_dir.h"
#include "cli/tune.h"
#include "npugen.h"

static const char usage[] =
    "usage: npugen emit FILE [--schedule SFILE] [--target INI] [-o DIR] [--check] [--dump-ir[=steps|lowered]]\n"
    "       npugen check FILE [--schedule SFILE] [--target INI] [--seed N] [--trace JSON]\n"
    "                         [--max-steps N] [--max-memory MIB]\n"
    TUNE_USAGE
    "       npugen --version | --help\n"
    "\n"
    "  emit    write <variant>.c and <variant>.h for every variant into DIR\n"
    "          (without -o, print the C to standard output)\n"
    "          --check    exit 1 if the files in DIR are missing or stale\n"
    "          --dump-ir  print the loop-nest IR of every variant\n"
    "          --dump-ir=steps  also the IR after each schedule step\n"
    "          --dump-ir=lowered  the lowered IR: DMA starts and waits with their tokens\n"
    "  check   JIT-run every variant and the kernel as written on the same\n"
    "          seeded random inputs and compare every output element\n"
    "          --max-steps N     do not start a run of more than N loop iterations\n"
    "                            plus statement instances (default 2^32)\n"
    "          --max-memory MIB  nor one whose arrays need more (default 1024)\n"
    "  tune    search for a schedule of one kernel (docs/tune.md): write the best\n"
    "          as variant <kernel>_tuned to OUT.sched, after checking it\n"
    "  --schedule SFILE  more variants: a file of '#pragma npu' lines only\n"
    "  --target INI      the NPU (targets/default.ini's format) to schedule for\n"
    "                    and simulate on (default: targets/default.ini's)\n"
    "\n"
    "A refused schedule is reported as an error; the other variants are still\n"
    "emitted or checked, and the exit status is 1.\n";

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "npugen: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s", usage);
  return 2;
}

typedef struct {
  const char *cmd, *file, *out_dir, *target, *trace, *schedule;
  bool check_stale, dump_ir, dump_steps, dump_lowered;
  uint64_t seed, max_steps, max_mib;
} Options;

static int parse_args(int argc, char **argv, Options *o) {
  memset(o, 0, sizeof *o);
  o->seed = 1;
  if (argc < 2) return usage_error("missing command", "");
  o->cmd = argv[1];
  if (strcmp(o->cmd, "emit") && strcmp(o->cmd, "check")) return usage_error("unknown command '%s'", o->cmd);
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-o") || !strcmp(a, "--seed") || !strcmp(a, "--target") || !strcmp(a, "--trace") ||
        !strcmp(a, "--schedule") || !strcmp(a, "--max-steps") || !strcmp(a, "--max-memory")) {
      if (i + 1 >= argc) return usage_error("option '%s' needs a value", a);
      if (!strcmp(a, "--schedule")) {
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
        if (*end || errno || !argv[i][0] || argv[i][0] == '-') return usage_error("invalid number '%s'", argv[i]);
        if (!strcmp(a, "--seed")) o->seed = v;
        else if (v == 0 || (!strcmp(a, "--max-memory") && v > (UINT64_MAX >> 20)))
          return usage_error("invalid limit '%s'", argv[i]);
        else if (!strcmp(a, "--max-steps")) o->max_steps = v;
        else o->max_mib = v;
      }
    } else if (!strcmp(a, "--check")) {
      o->check_stale = true;
    } else if (!strcmp(a, "--dump-ir")) {
      o->dump_ir = true;
    } else if (!strcmp(a, "--dump-ir=lowered")) {
      o->dump_ir = o->dump_lowered = true;
    } else if (!strcmp(a, "--dump-ir=steps")) {
      o->dump_ir = o->dump_steps = true;
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option '%s'", a);
    } else if (!o->file) {
      o->file = a;
    } else {
      return usage_error("unexpected argument '%s'", a);
    }
  }
  if (!o->file) return usage_error("missing input FILE", "");
  if (strcmp(o->cmd, "emit") && (o->out_dir || o->check_stale || o->dump_ir))
    return usage_error("-o, --check and --dump-ir belong to 'emit'", "");
  if (strcmp(o->cmd, "check") && (o->trace || o->max_steps || o->max_mib))
    return usage_error("--trace, --max-steps and --max-memory belong to 'check'", "");
  if (o->check_stale && !o->out_dir) return usage_error("--check needs -o DIR", "");
  return 0;
}

static int cmd_emit(NpgSession *s, const Options *o) {
  int n = npg_variant_count(s), rc = 0;
  if (o->dump_ir)
    for (int i = 0; i < n; i++) {
      const char *steps = o->dump_steps ? npg_dump_ir_steps(s, i) : NULL;
      if (steps) printf("# variant %s\n%s", npg_variant_name(s, i), steps);
      else printf("%s", o->dump_lowered ? npg_dump_ir_lowered(s, i) : npg_dump_ir(s, i));
    }
  if (!o->out_dir) {
    if (!o->dump_ir)
      for (int i = 0; i < n; i++) printf("%s%s", i ? "\n" : "", npg_emit_source(s, i));
    return 0;
  }
  char rerun[8192];
  snprintf(rerun, sizeof rerun, "npugen emit %s -o %s", o->file, o->out_dir);
  EmitDir d = {.dir = o->out_dir, .source = o->file, .target = npg_target_name(s), .check = o->check_stale,
               .rerun = rerun};
  if (emit_dir_open(&d)) return 1;
  for (int i = 0; i < n; i++) {
    const char *texts[2] = {npg_emit_source(s, i), npg_emit_header(s, i)};
    const char *exts[2] = {".c", ".h"};
    for (int f = 0; f < 2; f++) {
      char name[4096];
      snprintf(name, sizeof name, "%s%s", npg_variant_name(s, i), exts[f]);
      rc |= emit_dir_file(&d, name, texts[f]);
    }
  }
  rc |= emit_dir_leftovers(&d);
  emit_dir_close(&d);
  return rc;
}

static int cmd_check(NpgSession *s, const Options *o) {
  int n = npg_variant_count(s), failed = 0;
  npg_set_check_limits(s, o->max_steps, o->max_mib << 20);
  for (int i = 0; i < n; i++) {
    NpgCheckResult r;
    bool ok = npg_check(s, i, o->seed, &r);
    if (ok) {
      printf("%-24s PASS  max error %g%s, %ld output elements compared (seed %llu)\n",
             npg_variant_name(s, i), r.max_error, r.exact ? " (bit-exact)" : "", r.compared,
             (unsigned long long)o->seed);
      printf("%-24s       %s\n", "", r.summary);
      if (r.nonfinite) printf("%-24s       %ld compared outputs are NaN or infinite (allowed)\n", "", r.nonfinite);
    }
    else
      printf("%-24s FAIL  %s\n", npg_variant_name(s, i), r.message);
    failed += !ok;
  }
  printf("%d passed, %d failed\n", n - failed, failed);
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

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    printf("npugen %s\n", NPUGEN_VERSION_STRING);
    return 0;
  }
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    fputs(usage, stdout);
    return 0;
  }
  if (argc >= 2 && !strcmp(argv[1], "tune")) return cmd_tune(argc, argv);
  Options o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc;
  NpgSession *s = npg_open_file_for_target(o.file, o.target);
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
  int errors = npg_error_count(s);
  if (errors) fputs(npg_errors(s), stderr);
  /* A refused variant is not emitted; the others still are. */
  if (npg_variant_count(s)) rc = !strcmp(o.cmd, "emit") ? cmd_emit(s, &o) : cmd_check(s, &o);
  npg_close(s);
  return errors ? 1 : rc;
}

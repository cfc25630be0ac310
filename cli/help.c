/* The command's help: one text per command, printed by `npugen help
 * COMMAND` and `npugen COMMAND --help`, and the overview. docs/npugen.1 is
 * the manual page with the same content; tests/test_cli.c checks that every
 * command has both forms. */
#include "cli/help.h"

#include <string.h>

#include "cli/tune.h"
#include "ir/suggest.h"

static const char emit_help[] =
    "usage: npugen emit FILE [--schedule SFILE] [--target INI] [-o DIR [--check] [--prune] [--force]]\n"
    "                        [--variant NAME] [--scheduled-only] [--assume-no-alias] [--list-outputs]\n"
    "                        [--dump-ir[=steps|lowered]] [--strict]\n"
    "\n"
    "Writes the C99 of every variant of FILE (each kernel as written, then each\n"
    "'#pragma npu schedule') as DIR/<variant>.c and DIR/<variant>.h; without -o,\n"
    "prints the C to standard output. --scheduled-only leaves out the kernels as\n"
    "written.\n"
    "\n"
    "  -o DIR            write the files into DIR (atomically; DIR/.npugen-manifest\n"
    "                    records what it wrote: it never overwrites another kernel\n"
    "                    file's, and removes the files of variants this run no\n"
    "                    longer emits; those of other inputs stay, with a warning;\n"
    "                    on any error it changes nothing in DIR)\n"
    "  --check           with -o: exit 1 if the files in DIR are missing or stale (CI);\n"
    "                    given no --schedule, --target or option of its own, with\n"
    "                    the inputs and options DIR's manifest records\n"
    "  --prune           with -o: also remove this file's variants that a run with\n"
    "                    another --schedule or --target wrote\n"
    "  --force           with -o: also overwrite or remove files edited since npugen\n"
    "                    wrote them (without it, such a file is an error)\n"
    "  --list-outputs    print the names of the files -o writes, one a line\n"
    "  --scheduled-only  only the variants of a schedule, not each kernel as written\n"
    "                    (with -o, the files of the kernels as written that an\n"
    "                    earlier run wrote are removed as variants no longer emitted)\n"
    "  --variant NAME    without -o: only that variant (repeatable)\n"
    "  --assume-no-alias every array parameter 'restrict' in the signatures, as if\n"
    "                    declared 'T A[restrict N]': callers must pass arrays that\n"
    "                    do not overlap (docs/schedules.md, register blocking)\n"
    "  --dump-ir         print the loop-nest IR of every variant instead of C\n"
    "  --dump-ir=steps   also the IR after each schedule step\n"
    "  --dump-ir=lowered the lowered IR: DMA starts and waits with their tokens\n"
    "  --strict          a hint not met (a vectorize on vector memory that no VU\n"
    "                    instruction computes) is an error, not a warning\n"
    "  --schedule SFILE  more variants: a file of '#pragma npu' lines only\n"
    "  --target INI      the NPU to plan schedules for (targets/default.ini's format)\n"
    "\n"
    "Exit status: 0, 1 on bad input or a refused schedule (the other variants are\n"
    "still emitted), 2 on a usage error. docs/schedules.md lists the primitives.\n";

static const char check_help[] =
    "usage: npugen check FILE [--schedule SFILE] [--target INI] [--variant NAME] [--seed N]\n"
    "                         [--trace JSON] [--max-steps N] [--max-memory MIB] [--max-cpu S]\n"
    "                         [--strict] [--rerun-as-written]\n"
    "\n"
    "JIT-compiles every variant and the kernel as written (with checked\n"
    "arithmetic), runs both on the same seeded random inputs (variants with\n"
    "intrinsics in the simulator) and compares every output element. Prints per\n"
    "variant PASS or FAIL, the max error, and for NPU variants the simulated\n"
    "cycles, the bounding unit and the roofline share (docs/check.md).\n"
    "\n"
    "  --variant NAME    only that variant (repeatable)\n"
    "  --seed N          the inputs' seed (default 1)\n"
    "  --trace JSON      write each variant's simulated timeline as Chrome trace JSON\n"
    "                    (open it in ui.perfetto.dev)\n"
    "  --max-steps N     do not start a run of more than N loop iterations plus\n"
    "                    statement instances (default 2^32)\n"
    "  --max-memory MIB  nor one whose arrays need more (default 1024)\n"
    "  --max-cpu S       stop a run after S seconds of its CPU time (default 120)\n"
    "  --strict          every weakening of the verdict is an error: a variant with\n"
    "                    a hint not met fails ('#pragma npu strict' does the same)\n"
    "  --rerun-as-written also run each kernel as written a second time and compare:\n"
    "                    by default its emitted C is compiled and the reference's\n"
    "                    run (the same code, its arithmetic checked) is its run\n"
    "  --schedule SFILE  more variants: a file of '#pragma npu' lines only\n"
    "  --target INI      the NPU to plan for and simulate on\n"
    "\n"
    "Exit status: 0 when every variant passes, 1 otherwise or on bad input, 2 on a\n"
    "usage error.\n";

static const char tune_help[] = /* after TUNE_USAGE */
    "\n"
    "Searches for a schedule of one kernel, with the simulator's cycles as the\n"
    "cost, and writes the best as variant <file>_<kernel>_tuned to OUT.sched after\n"
    "checking it; then `npugen check FILE --schedule OUT.sched` (docs/tune.md).\n"
    "On the host the kernel as written is a candidate too: when it wins, OUT.sched\n"
    "is the empty schedule, and tune says so.\n"
    "\n"
    "  --kernel NAME       the kernel to tune (default: the file's only one)\n"
    "  --time-limit S      start no trial that would end past S seconds (default\n"
    "                      120 unless --trials; 0: the first trial alone)\n"
    "  --trials N          stop after N candidates: a reproducible result\n"
    "  --jobs N            trials in parallel (1 to 64)\n"
    "  --seed S            the search's random seed (default 1)\n"
    "  --trial-timeout S   a trial using more CPU time fails (default 120; CPU, so\n"
    "                      load cannot fail a trial)\n"
    "  --max-steps N       a trial whose variant runs more than N loop iterations\n"
    "                      plus statement instances is not run (default 2^32)\n"
    "  --log FILE          every candidate and its cost\n"
    "  --plan DIR, --trial T.sched, --merge DIR   a search spread over machines\n"
    "  --target INI        the NPU to tune for\n";

static const char intrinsics_help[] =
    "usage: npugen intrinsics [NAME] [--target INI]\n"
    "\n"
    "Lists every NPU intrinsic: its C call (npu_intrinsics.h), unit (NU, VU, DMA\n"
    "or CU), operand scopes, constraints, cycle formula on the target and\n"
    "semantics file (the kernel tensorize matches). With NAME, that intrinsic\n"
    "alone, with the header's comment and its semantics kernel. Use a name in\n"
    "'#pragma npu tensorize(loop, NAME)'.\n"
    "\n"
    "  --target INI   the NPU whose numbers the cycle formulas use\n";

static const char help_help[] =
    "usage: npugen help [COMMAND]\n"
    "       npugen COMMAND --help\n"
    "\n"
    "Prints the overview, or the help of COMMAND (emit, check, tune, intrinsics,\n"
    "help). The manual page is npugen(1).\n";

static const struct {
  const char *name, *help, *line;
} commands[] = {
    {"emit", emit_help, "write the C99 of every variant (or check it is fresh)"},
    {"check", check_help, "JIT-run every variant against the kernel as written"},
    {"tune", tune_help, "search for a schedule, the simulator's cycles as the cost"},
    {"intrinsics", intrinsics_help, "list the NPU intrinsics: call, unit, scopes, cycles"},
    {"help", help_help, "this overview, or one command's help"},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

void help_overview(FILE *f) {
  fputs("usage: npugen COMMAND [ARGS]     (npugen COMMAND --help for one command)\n"
        "       npugen --version\n\ncommands:\n", f);
  for (int i = 0; i < NCOMMANDS; i++) fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].line);
  fputs("\nA kernel file is C: kernels as loop nests, and '#pragma npu' schedules after\n"
        "them. Start with docs/tutorial.md; the manual page is npugen(1).\n", f);
}

bool help_command(FILE *f, const char *cmd) {
  for (int i = 0; i < NCOMMANDS; i++)
    if (!strcmp(cmd, commands[i].name)) {
      if (commands[i].help == tune_help) fprintf(f, "usage:%s", TUNE_USAGE + 6); /* "       npugen tune" */
      fputs(commands[i].help, f);
      return true;
    }
  return false;
}

const char *help_suggest(const char *cmd, char *buf, size_t n) {
  IrSuggest near = ir_suggest_start(cmd);
  for (int i = 0; i < NCOMMANDS; i++) ir_suggest_add(&near, commands[i].name);
  return ir_suggest_text(&near, buf, n);
}

int cmd_help(int argc, char **argv) {
  if (argc < 3) {
    help_overview(stdout);
    return 0;
  }
  const char *cmd = !strcmp(argv[2], "--help") || !strcmp(argv[2], "-h") ? "help" : argv[2];
  if (help_command(stdout, cmd)) return 0;
  char dym[96];
  fprintf(stderr, "npugen help: unknown command '%s'%s\n", argv[2], help_suggest(argv[2], dym, sizeof dym));
  help_overview(stderr);
  return 2;
}

bool help_asked(int argc, char **argv) {
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return true;
  return false;
}

/* npugen tune's output (cli/tune_print.c): what it prints, decided by
 * tune/ (cli/tune.c parses and dispatches). */
#ifndef NPG_CLI_TUNE_PRINT_H
#define NPG_CLI_TUNE_PRINT_H

#include "tune/tune.h"

/* The space's sketches and why the others do not apply (stderr). */
void tune_print_space(const TuneSpace *sp, bool host_asked, int jobs);
/* The best five of run (stdout). */
void tune_print_table(const TuneSpace *sp, const TuneRun *run);
/* The kernel as written, timed or simulated as the trials were, against the winner. */
void tune_print_as_written(const TuneSpace *sp, const TuneRun *run, const TuneWinner *w);
/* A program's calls, what each runs and why, and the whole program's
 * cycles against its roofline and the program as written (stdout). */
void tune_print_program(const TuneProgram *p);
/* How tune was asked, for what a program's search shows of each callee. */
typedef struct {
  bool host_asked;
  int jobs;
} TuneShown;
/* tune_program_run's hooks: each callee's space, then its best five;
 * shown outlives the run. */
TuneProgramHooks tune_print_program_hooks(TuneShown *shown);

#endif

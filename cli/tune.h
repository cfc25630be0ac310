/* npugen tune (cli/tune.c). */
#ifndef NPG_CLI_TUNE_H
#define NPG_CLI_TUNE_H

#define TUNE_USAGE                                                                                          \
  "       npugen tune FILE [--kernel NAME] [--target INI] [--time-limit S] [--trials N] [--jobs N]\n"       \
  "                        [--seed S] [--trial-timeout S] [--max-steps N] [--log FILE] [--host]\n"          \
  "                        [--size N=V,...] -o OUT.sched\n"                                                   \
  "       npugen tune FILE [...] --plan DIR | --trial TRIAL.sched | --merge DIR -o OUT.sched\n"

int cmd_tune(int argc, char **argv);

#endif

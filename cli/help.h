/* `npugen help [COMMAND]`, `npugen COMMAND --help` (cli/help.c). */
#ifndef NPG_CLI_HELP_H
#define NPG_CLI_HELP_H

#include <stdbool.h>
#include <stdio.h>

/* The overview: every command in one line or two, and where to read on. */
void help_overview(FILE *f);
/* The help of one command; false when there is no such command. */
bool help_command(FILE *f, const char *cmd);
/* "; did you mean 'check'?" for an unknown command, or "". buf holds it. */
const char *help_suggest(const char *cmd, char *buf, size_t n);
/* `npugen help [COMMAND]`: exit status 0, or 2 for an unknown command. */
int cmd_help(int argc, char **argv);
/* True when an argument after the command asks for its help. */
bool help_asked(int argc, char **argv);

#endif

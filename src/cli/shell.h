/*
 * shell.h — the SQL front of the `floe` program: one-shot statements
 * (-c SQL, -f FILE), statements on a pipe, and the interactive shell.
 */
#ifndef FLOE_CLI_SHELL_H
#define FLOE_CLI_SHELL_H

#include <stdio.h>

/* Run `floe [--format F] [--warehouse DIR] [-c SQL | -f FILE]...`; argv[0]
 * is the program name.  Returns the process exit status: 0 when every
 * statement succeeded, 1 after the first failed one (scripts stop there),
 * 2 for bad arguments. */
int floe_cli_sql_main(int argc, char **argv);

/* The option lines for `floe --help`. */
void floe_cli_sql_usage(FILE *out);

#endif

/*
 * shell_describe.h — the shell's psql-style catalog commands \d, \dt, \dv
 * and \dn (see shell_describe.c).
 */
#ifndef FLOE_CLI_SHELL_DESCRIBE_H
#define FLOE_CLI_SHELL_DESCRIBE_H

#include "cli/sql_output.h"
#include "floe/session.h"

/* Run `cmd` ("\d", "\dt", "\dv" or "\dn") with its pattern `arg` (NULL or
 * "" for none) on `s`, printing through `o`. */
floe_status floe_cli_describe(floe_session *s, floe_cli_output *o, const char *cmd, const char *arg) FLOE_WARN_UNUSED;

/* The first column of `sql`'s rows as strings (NULLs left out); *out and
 * each string are malloc'd (free them).  For tab completion. */
floe_status floe_cli_first_column(floe_session *s, const char *sql, char ***out, int64_t *n) FLOE_WARN_UNUSED;

#endif

/*
 * shell_complete.h — tab completion in the interactive shell (see
 * shell_complete.c); does nothing when floe is built without libedit.
 */
#ifndef FLOE_CLI_SHELL_COMPLETE_H
#define FLOE_CLI_SHELL_COMPLETE_H

#include "floe/session.h"

/* Complete keywords, names and commands from `s`'s catalog. */
void floe_cli_complete_install(floe_session *s);
/* Forget cached names (after a statement: it may have changed them). */
void floe_cli_complete_invalidate(void);
void floe_cli_complete_free(void);

#endif

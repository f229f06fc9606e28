/*
 * sql_output.h — the result sink the `floe` SQL front hands to
 * floe_session_execute: prints each statement's rows with the columnar
 * printer (table, csv or jsonl) as its batches arrive, prints the command
 * tag of statements that return no rows (when asked: the interactive shell
 * does, scripts print only rows), and draws a
 * progress bar on stderr when that is a terminal.
 */
#ifndef FLOE_CLI_SQL_OUTPUT_H
#define FLOE_CLI_SQL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/buffer.h"
#include "columnar/printer.h"
#include "floe/session.h"

typedef struct floe_cli_output {
    floe_print_format format;
    FILE *out;
    bool progress;          /* draw a progress bar on stderr */
    bool tags;              /* print "CREATE TABLE" etc. for statements without rows */
    /* psql's \pset settings (\x, \t, \pset null, \pset footer, \pset pager) */
    bool expanded;          /* one "name | value" line per column (table format) */
    bool tuples_only;       /* rows only: no header, title or footer */
    bool no_footer;         /* no "(N rows)" */
    const char *null_text;  /* NULL: the format's default; owned by the caller */
    bool pager;             /* results longer than the terminal go through $PAGER
                               (set only when out is a terminal) */
    floe_buf held;          /* pager: the statement's text, held until its end */
    /* per statement */
    floe_printer *printer;  /* set between begin and end */
    bool plain;             /* EXPLAIN text: rows printed as bare lines */
    double started;         /* monotonic seconds when the statement began */
    bool bar_shown;         /* a bar is on stderr's current line */
    double bar_last;        /* when it was last redrawn */
} floe_cli_output;

/* Set up an output writing to `out`; `progress` draws a bar on stderr (the
 * caller decides: stderr is a terminal). */
void floe_cli_output_init(floe_cli_output *o, floe_print_format format, FILE *out, bool progress);
/* A sink whose callbacks print through `o` (valid while `o` lives). */
void floe_cli_output_sink(floe_cli_output *o, floe_result_sink *sink);
/* Call before each execute: resets the per-statement state. */
void floe_cli_output_start(floe_cli_output *o);
/* Call after each execute, whether it failed or not: erases the progress
 * bar and drops a printer left over by a failed statement. */
void floe_cli_output_finish(floe_cli_output *o);

/* Print options for one result as the settings say (`title` may be NULL). */
void floe_cli_output_options(const floe_cli_output *o, const char *title, floe_print_options *po);
/* Write text of a finished result: through the pager when it is on and the
 * text is taller or wider than the terminal, else to o->out. */
floe_status floe_cli_output_emit(floe_cli_output *o, const char *text, size_t len) FLOE_WARN_UNUSED;
/* Frees what the output holds (the pager's buffer). */
void floe_cli_output_free(floe_cli_output *o);

/* Seconds on the monotonic clock. */
double floe_cli_now(void);

#endif

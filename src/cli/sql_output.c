/*
 * sql_output.c — printing statement results for the `floe` SQL front (see
 * sql_output.h).
 *
 * Rows stream: csv and jsonl lines are written and flushed batch by batch;
 * the table format buffers up to the printer's table_buffer_rows rows to
 * size its columns, then prints later rows straight away.  The progress bar
 * is drawn only once a statement has run for a moment (so quick statements
 * never flicker) and is erased before any result text is written, so bar
 * and results never share a line.
 *
 * EXPLAIN's result (one text column named "plan", a line of the plan per
 * row) prints in the table format as the bare lines: framed as a table its
 * indentation would sit under a header as wide as the longest line.
 */
#include "cli/sql_output.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>

#include "floe/memory.h"

/* Statements quicker than this never show a bar. */
#define BAR_DELAY_S 0.5
/* Redraw at most this often. */
#define BAR_PERIOD_S 0.1
#define BAR_WIDTH 30

double floe_cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void bar_erase(floe_cli_output *o) {
    if (!o->bar_shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    o->bar_shown = false;
}

static void on_progress(void *arg, int64_t done, int64_t total) {
    floe_cli_output *o = arg;
    if (!o->progress || total <= 0) return;
    double now = floe_cli_now();
    if (now - o->started < BAR_DELAY_S) return;
    if (o->bar_shown && now - o->bar_last < BAR_PERIOD_S) return;
    if (done < 0) done = 0;
    if (done > total) done = total;
    int fill = (int)(done * BAR_WIDTH / total);
    char bar[BAR_WIDTH + 1];
    memset(bar, '=', (size_t)fill);
    memset(bar + fill, ' ', (size_t)(BAR_WIDTH - fill));
    if (fill < BAR_WIDTH) bar[fill] = '>';
    bar[BAR_WIDTH] = 0;
    fprintf(stderr, "\r[%s] %3d%%", bar, (int)(done * 100 / total));
    fflush(stderr);
    o->bar_shown = true;
    o->bar_last = now;
}

static bool is_plan_text(const floe_schema *schema) {
    if (floe_schema_num_fields(schema) != 1) return false;
    const floe_field *f = floe_schema_field(schema, 0);
    return f->type->id == FLOE_TYPE_STRING && !strcmp(f->name, "plan");
}

static floe_status print_plain(floe_cli_output *o, const floe_batch *batch) {
    const floe_array *a = batch->columns[0];
    for (int64_t i = 0; i < batch->num_rows; i++) {
        if (floe_array_is_null(a, i)) continue;
        floe_strview v = floe_array_get_str(a, i);
        if (o->pager) {
            FLOE_TRY(floe_buf_append(&o->held, v.data, (size_t)v.len));
            FLOE_TRY(floe_buf_append_byte(&o->held, '\n'));
        } else if (fwrite(v.data, 1, (size_t)v.len, o->out) != (size_t)v.len || fputc('\n', o->out) == EOF) {
            return floe_error(FLOE_ERR_IO, "writing results: %s", strerror(errno));
        }
    }
    return NULL;
}

void floe_cli_output_options(const floe_cli_output *o, const char *title, floe_print_options *po) {
    floe_print_options_init(po, o->format);
    po->expanded = o->expanded;
    po->title = title;
    if (o->null_text) po->null_text = o->null_text;
    if (o->no_footer) po->footer = false;
    if (o->tuples_only) po->header = po->footer = false;
}

/* The terminal's size, or 0 x 0 when `fp` is not one. */
static void terminal_size(FILE *fp, int *rows, int *cols) {
    struct winsize ws;
    *rows = *cols = 0;
    if (ioctl(fileno(fp), TIOCGWINSZ, &ws) == 0) {
        *rows = ws.ws_row;
        *cols = ws.ws_col;
    }
}

/* Run the pager on `text`; false when it could not be started (the text
 * is then still to be written). */
static bool run_pager(const char *text, size_t len) {
    const char *cmd = getenv("FLOE_PAGER");
    if (!cmd) cmd = getenv("PAGER");
    if (!cmd) cmd = "less -FRSX";
    if (!*cmd) return false; /* PAGER='' turns the pager off, as in psql */
    fflush(stdout);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN); /* a pager quit early is fine */
    FILE *p = popen(cmd, "w");
    if (!p) {
        signal(SIGPIPE, old);
        return false;
    }
    size_t w = fwrite(text, 1, len, p);
    int rc = pclose(p);
    signal(SIGPIPE, old);
    /* 127: the shell found no such program; nothing was shown */
    return !(WIFEXITED(rc) && WEXITSTATUS(rc) == 127 && w <= len);
}

floe_status floe_cli_output_emit(floe_cli_output *o, const char *text, size_t len) {
    int rows, cols;
    terminal_size(o->out, &rows, &cols);
    int64_t lines = 0, width = 0, w = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n') {
            lines++;
            if (w > width) width = w;
            w = 0;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
            w++;
        }
    }
    if (rows > 0 && (lines >= rows - 1 || width > cols) && run_pager(text, len)) return NULL;
    if (len && fwrite(text, 1, len, o->out) != len)
        return floe_error(FLOE_ERR_IO, "writing results: %s", strerror(errno));
    return NULL;
}

static floe_status release_held(floe_cli_output *o) {
    if (!o->pager || !o->held.len) return NULL;
    floe_status st = floe_cli_output_emit(o, (const char *)o->held.data, o->held.len);
    floe_buf_clear(&o->held);
    return st;
}

static floe_status on_begin(void *arg, const floe_schema *schema) {
    floe_cli_output *o = arg;
    bar_erase(o);
    floe_printer_free(o->printer); /* a previous statement's, if it never ended */
    o->printer = NULL;
    o->plain = o->format == FLOE_PRINT_TABLE && is_plan_text(schema);
    if (o->plain) return NULL;
    floe_print_options po;
    floe_cli_output_options(o, NULL, &po);
    floe_buf_clear(&o->held);
    FLOE_TRY(o->pager ? floe_printer_new(&po, NULL, &o->held, &o->printer)
                      : floe_printer_new(&po, o->out, NULL, &o->printer));
    return floe_printer_begin(o->printer, schema);
}

static floe_status on_batch(void *arg, const floe_batch *batch) {
    floe_cli_output *o = arg;
    bar_erase(o);
    if (o->plain) return print_plain(o, batch);
    if (!o->printer) return NULL; /* rows without begin(): nothing to print against */
    FLOE_TRY(floe_printer_add_batch(o->printer, batch));
    /* Make rows visible as they arrive (the table format may still hold
     * them back to size its columns). */
    if (o->format != FLOE_PRINT_TABLE) fflush(o->out);
    return NULL;
}

static floe_status on_end(void *arg, const char *tag, int64_t rows) {
    floe_cli_output *o = arg;
    bar_erase(o);
    floe_status st = NULL;
    if (o->plain) {
        o->plain = false;
        st = release_held(o);
    } else if (o->printer) {
        st = floe_printer_end(o->printer);
        floe_printer_free(o->printer);
        o->printer = NULL;
        if (!st) st = release_held(o);
    } else if (o->tags && tag && *tag) {
        /* A statement without rows: say what it did, as psql does (the
         * tag carries its count: "DELETE 3", "INSERT 0 5"). */
        (void)rows;
        fprintf(o->out, "%s\n", tag);
    }
    fflush(o->out);
    return st;
}

void floe_cli_output_init(floe_cli_output *o, floe_print_format format, FILE *out, bool progress) {
    memset(o, 0, sizeof *o);
    o->format = format;
    o->out = out;
    o->progress = progress;
}

void floe_cli_output_sink(floe_cli_output *o, floe_result_sink *sink) {
    memset(sink, 0, sizeof *sink);
    sink->arg = o;
    sink->begin = on_begin;
    sink->batch = on_batch;
    sink->end = on_end;
    /* Without a terminal to draw on, the session need not track progress. */
    sink->progress = o->progress ? on_progress : NULL;
}

void floe_cli_output_start(floe_cli_output *o) {
    o->started = floe_cli_now();
    o->bar_shown = false;
    o->bar_last = 0;
}

void floe_cli_output_finish(floe_cli_output *o) {
    bar_erase(o);
    o->plain = false;
    if (o->printer) {
        floe_printer_free(o->printer);
        o->printer = NULL;
    }
    /* rows a failed statement printed before failing are still shown */
    floe_status st = release_held(o);
    floe_status_free(st);
    fflush(o->out);
}

void floe_cli_output_free(floe_cli_output *o) { floe_buf_free(&o->held); }

/*
 * cmd_cat.c — `floe <format> cat`: print the rows of a data file.
 *
 *   floe parquet|orc cat FILE [--columns a,b] [--limit N] [--format table|csv|jsonl]
 *
 * Columns are dotted paths ("id", "s.b") as the format's reader takes them;
 * the default is every top-level column.  Rows stream through the columnar
 * printer batch by batch, so a large file is printed in bounded memory (the
 * table format buffers its first rows to size the columns).  The formats
 * differ only in their reader (cmd_parquet_cat.c, cmd_orc_cat.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_cat.h"
#include "columnar/printer.h"
#include "floe/memory.h"

#define CAT_OPTIONS "FILE [--columns a,b] [--limit N] [--format table|csv|jsonl]"

/* Split "a,b,c" in place into up to cap pointers. */
static int split_columns(char *s, char **out, int cap) {
    int n = 0;
    for (char *p = s; p && *p && n < cap;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = 0;
        if (*p) out[n++] = p;
        p = comma ? comma + 1 : NULL;
    }
    return n;
}

static floe_status print_rows(const floe_cli_cat_reader *f, void *r, floe_print_format fmt, int64_t limit) {
    floe_print_options po;
    floe_print_options_init(&po, fmt);
    floe_printer *pr;
    FLOE_TRY(floe_printer_new(&po, stdout, NULL, &pr));
    floe_status st = floe_printer_begin(pr, f->schema(r));
    int64_t done = 0;
    while (!st && (limit < 0 || done < limit)) {
        floe_batch *b;
        st = f->next(r, &b);
        if (st || !b) break;
        if (limit >= 0 && b->num_rows > limit - done) {
            floe_batch *s;
            st = floe_batch_slice(b, 0, limit - done, &s);
            floe_batch_release(b);
            if (st) break;
            b = s;
        }
        done += b->num_rows;
        st = floe_printer_add_batch(pr, b);
        floe_batch_release(b);
    }
    if (!st) st = floe_printer_end(pr);
    floe_printer_free(pr);
    return st;
}

floe_status floe_cli_cat(const floe_cli_cat_reader *f, int argc, char **argv) {
    const char *file = NULL, *cols = NULL, *format = "table";
    int64_t limit = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "--columns") || !strcmp(a, "--limit") || !strcmp(a, "--format")) && i + 1 >= argc)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s needs a value\nusage: floe %s cat " CAT_OPTIONS, a,
                              f->format);
        if (!strcmp(a, "--columns")) {
            cols = argv[++i];
        } else if (!strcmp(a, "--format")) {
            format = argv[++i];
        } else if (!strcmp(a, "--limit")) {
            char *end;
            limit = strtoll(argv[++i], &end, 10);
            if (*end || limit < 0)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "--limit: '%s' is not a row count", argv[i]);
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: floe %s cat " CAT_OPTIONS "\n", f->format);
            return NULL;
        } else if (a[0] == '-' && a[1]) {
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unknown option '%s'\nusage: floe %s cat " CAT_OPTIONS, a,
                              f->format);
        } else if (!file) {
            file = a;
        } else {
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "one FILE only\nusage: floe %s cat " CAT_OPTIONS, f->format);
        }
    }
    if (!file) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "usage: floe %s cat " CAT_OPTIONS, f->format);
    floe_print_format fmt;
    FLOE_TRY(floe_print_format_parse(format, &fmt));
    char *colbuf = NULL;
    char **names = NULL;
    int n = 0;
    if (cols) {
        colbuf = floe_strdup(cols);
        size_t cap = strlen(cols) + 1;
        names = floe_calloc(cap, sizeof *names);
        if (!colbuf || !names) {
            floe_free(colbuf);
            floe_free(names);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        }
        n = split_columns(colbuf, names, (int)cap);
    }
    void *r = NULL;
    floe_status st = f->open(file, (const char *const *)names, n, &r);
    if (!st) {
        st = print_rows(f, r, fmt, limit);
        f->close(r);
    }
    floe_free(colbuf);
    floe_free(names);
    return st;
}

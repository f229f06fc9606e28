/*
 * json_read.h — JSON files read into batches, as DuckDB's read_json does:
 * newline-delimited values or one top-level array of them; column types
 * detected on a sample (BOOLEAN, BIGINT, DOUBLE, DATE, TIMESTAMP, VARCHAR;
 * objects as STRUCT, arrays as LIST; values of mixed kinds as their JSON
 * text in a VARCHAR), or given.  Used by the SQL layer's read_json /
 * read_ndjson and COPY ... FROM (FORMAT json) as a streamed, parallel
 * JsonScan node.
 */
#ifndef FLOE_EXEC_SCAN_JSON_READ_H
#define FLOE_EXEC_SCAN_JSON_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/exec.h"
#include "floe/fileio.h"
#include "floe/status.h"

typedef enum {
    FLOE_JSON_AUTO,              /* '[' first: an array; else newline-delimited */
    FLOE_JSON_NEWLINE_DELIMITED, /* values one after another (split by lines in parallel) */
    FLOE_JSON_ARRAY,             /* one top-level array of values */
} floe_json_format;

typedef struct floe_json_options {
    floe_json_format format;
    /* Columns given (n_columns > 0): no detection; each record's fields by
     * these names, missing ones NULL, others ignored. */
    const char *const *names;
    floe_type *const *types;
    int32_t n_columns;
    int64_t sample_size;   /* records the types are detected on (0: 20480; -1: all) */
    int32_t maximum_depth; /* nesting typed by detection (-1: all); deeper values are JSON text */
    bool filename;         /* add a `filename` column */
    int64_t range_bytes;   /* newline-delimited ranges parsed in parallel (0: 8 MB) */
    const char *what;      /* error prefix ("COPY t"); NULL: "read_json" */
} floe_json_options;

void floe_json_options_init(floe_json_options *o);

/* A JsonScan plan node over every file the patterns name (globs, local or
 * through `io`, which may be NULL; .gz and .zst decompressed): the
 * columns detected at plan time on a bounded head of the files (or
 * given), the files' tasks — byte ranges of one-record-per-line files,
 * whole files otherwise — dealt to at most n_partitions partitions and
 * parsed, batch by batch, when the plan runs.  Malformed JSON is an error
 * naming the file, line and column. */
floe_status floe_json_plan_scan(const char *const *patterns, int32_t n_patterns, floe_fileio *io,
                                const floe_json_options *o, int32_t n_partitions, floe_plan **out) FLOE_WARN_UNUSED;

#endif

/*
 * printer.h — writing query results as text: an aligned table (like psql),
 * CSV, or JSON lines.  Used by the CLI.
 *
 * The printer consumes a stream of batches (begin, add_batch..., end) and
 * writes to a FILE* or appends to a floe_buf.  CSV and JSON lines are
 * written as each batch arrives.  The table format must know column widths
 * before printing, so it buffers up to `table_buffer_rows` rows, sizes the
 * columns from them, prints them, then prints any later rows straight away
 * with those widths (a longer value just pushes its line out of line).
 *
 * Formats, exactly:
 *  table  header names centred, a "---+---" separator, numbers (ints, floats,
 *         decimals) right-aligned, everything else left-aligned, cells joined
 *         by " | ", no trailing spaces, nulls as null_text (default "NULL"),
 *         "\n", "\r" and "\t" inside values shown as the two characters
 *         \n, \r, \t so rows stay one line; footer "(1 row)" / "(N rows)".
 *         An optional title is centred over the table (psql's "List of
 *         relations").  Expanded: each row as "-[ RECORD n ]" padded with '-'
 *         to the record width, then "name | value" lines, names left-aligned;
 *         no footer but "(0 rows)" for none.
 *  csv    RFC 4180 fields: a header line of column names; a field is quoted
 *         with '"' (inner quotes doubled) when it contains a comma, quote,
 *         CR or LF, or when it is an empty string, so that an empty string
 *         ("") differs from a null (null_text unquoted, default empty).
 *         Lines end with "\n".  Values are the floe_format_value text.
 *  jsonl  one JSON object per row, keys in column order, with: null; true/
 *         false; integers and floats as JSON numbers (NaN and infinities as
 *         the strings "NaN", "Infinity", "-Infinity"); decimals as JSON
 *         numbers carrying the exact decimal text (12.30); dates, times,
 *         timestamps and uuids as strings in the floe_format_value form;
 *         binary and fixed as base64 strings (RFC 4648, padded); structs as
 *         objects, lists as arrays, maps as objects keyed by the key's text.
 *         Strings are escaped per RFC 8259 (\" \\ \b \f \n \r \t, other
 *         control characters as \u00XX); invalid UTF-8 bytes become U+FFFD.
 */
#ifndef FLOE_COLUMNAR_PRINTER_H
#define FLOE_COLUMNAR_PRINTER_H

#include <stdbool.h>
#include <stdio.h>

#include "base/buffer.h"
#include "floe/columnar.h"

typedef enum floe_print_format {
    FLOE_PRINT_TABLE,
    FLOE_PRINT_CSV,
    FLOE_PRINT_JSONL
} floe_print_format;

typedef struct floe_print_options {
    floe_print_format format;
    const char *null_text;     /* table: "NULL"; csv: "" (jsonl: always null) */
    bool header;               /* table, csv: print the column names (true) */
    bool footer;               /* table: print "(N rows)" (true) */
    int64_t table_buffer_rows; /* table: rows buffered to size columns (10000) */
    const char *title;         /* table: a line centred above the header (NULL: none) */
    bool expanded;             /* table: one "name | value" line per column, records
                                  under "-[ RECORD n ]---" lines, as psql's \x (false) */
} floe_print_options;

typedef struct floe_printer floe_printer;

/* Defaults for a format (see the comments above). */
void floe_print_options_init(floe_print_options *o, floe_print_format format);
/* "table", "csv", "jsonl" (also "json") → format; FLOE_ERR_INVALID_ARGUMENT otherwise. */
floe_status floe_print_format_parse(const char *name, floe_print_format *out) FLOE_WARN_UNUSED;

/* Write to `fp`, or when fp is NULL append to `out`.  The options are
 * copied (null_text must outlive the printer). */
floe_status floe_printer_new(const floe_print_options *opts, FILE *fp, floe_buf *out,
                             floe_printer **printer) FLOE_WARN_UNUSED;
floe_status floe_printer_begin(floe_printer *p, const floe_schema *schema) FLOE_WARN_UNUSED;
floe_status floe_printer_add_batch(floe_printer *p, const floe_batch *batch) FLOE_WARN_UNUSED;
floe_status floe_printer_end(floe_printer *p) FLOE_WARN_UNUSED;
/* Rows written so far (all rows after end). */
int64_t floe_printer_rows(const floe_printer *p);
void floe_printer_free(floe_printer *p);

#endif

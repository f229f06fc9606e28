/*
 * copy.c — COPY, PostgreSQL's statement with DuckDB's formats:
 *
 *   COPY (query) | t [(cols)] TO 'file' [(FORMAT csv|parquet|json, HEADER,
 *        DELIMITER, QUOTE, ESCAPE, NULL, FORCE_QUOTE (cols) | *)]
 *   COPY t [(cols)] FROM 'file' [(FORMAT csv|json|parquet, HEADER, DELIMITER,
 *        QUOTE, ESCAPE, NULL, ENCODING 'UTF8')]
 *
 * The format is the FORMAT option's, else the file name's (.csv, .tsv,
 * .parquet, .json / .jsonl / .ndjson, each optionally .gz / .zst), else an
 * error — never a guess.  CSV is written as PostgreSQL's COPY CSV writes it:
 * a field quoted only when it holds the delimiter, the quote, CR or LF, or
 * equals the NULL text; NULL as the NULL text unquoted; values in the text
 * form floe prints them (booleans as t / f).  JSON is one object per line,
 * as DuckDB's COPY ... (FORMAT json).  COPY FROM reads with the table's
 * column types (no detection; JSON: newline-delimited or an array of
 * objects, fields by column name) and writes through INSERT's plan: one
 * commit, parallel writers.
 *
 * COPY ... FROM STDIN and TO STDOUT (FORMAT csv or json: PostgreSQL's
 * default text format is not supported) are the process's standard input
 * and output, as the shell's `floe -c "COPY t FROM STDIN (FORMAT csv)" <
 * in.csv` uses them: the data goes through a temporary file, because the
 * CSV reader reads by byte ranges and a pipe cannot be read twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/buffer.h"
#include "columnar/printer.h"
#include "exec/scan/csv_read.h"
#include "exec/scan/json_read.h"
#include "floe/iceberg_task_reader.h"
#include "floe/memory.h"
#include "formats/compress.h"
#include "formats/parquet/writer.h"
#include "sql/bind_csv.h"
#include "sql/dml.h"
#include "sql/dml_internal.h"
#include "sql/parse.h"
#include "sql/pgnode.h"
#include "sql/progress.h"
#include "sql/session_internal.h"

typedef enum { FMT_NONE, FMT_CSV, FMT_PARQUET, FMT_JSON } copy_format;

typedef struct copy_opts {
    copy_format format;
    floe_codec codec;       /* .gz / .zst */
    int header;             /* -1 unset */
    int delim, quote, escape;
    const char *null_text;
    bool force_all;
    const json_t *force_cols; /* List of String */
    bool csv_option_given;
    const char *csv_option; /* the first CSV-only option given */
} copy_opts;

static bool ends_with(const char *s, size_t n, const char *suffix) {
    size_t b = strlen(suffix);
    return n >= b && strncasecmp(s + n - b, suffix, b) == 0;
}

/* Format and compression from the file name. */
static void format_from_name(const char *file, copy_format *fmt, floe_codec *codec, bool *tsv) {
    size_t n = strlen(file);
    *codec = FLOE_CODEC_NONE;
    *tsv = false;
    if (ends_with(file, n, ".gz")) *codec = FLOE_CODEC_GZIP, n -= 3;
    else if (ends_with(file, n, ".zst")) *codec = FLOE_CODEC_ZSTD, n -= 4;
    else if (ends_with(file, n, ".zstd")) *codec = FLOE_CODEC_ZSTD, n -= 5;
    *fmt = FMT_NONE;
    if (ends_with(file, n, ".csv")) *fmt = FMT_CSV;
    else if (ends_with(file, n, ".tsv")) *fmt = FMT_CSV, *tsv = true;
    else if (ends_with(file, n, ".parquet") || ends_with(file, n, ".pq")) *fmt = FMT_PARQUET;
    else if (ends_with(file, n, ".json") || ends_with(file, n, ".jsonl") || ends_with(file, n, ".ndjson"))
        *fmt = FMT_JSON;
}

/* An option's argument as text: String, Integer, Boolean or A_Const. */
static const char *arg_text(const json_t *arg, char *buf, size_t cap) {
    if (!arg) return NULL;
    const char *v = floe_pg_string(arg);
    if (v) return v;
    floe_pg_const c = floe_pg_const_of(arg);
    if (c.text) return c.text;
    const json_t *b = floe_pg_as(arg, "Boolean");
    if (b) return floe_pg_get_bool(b, "boolval") ? "true" : "false";
    const json_t *i = floe_pg_as(arg, "Integer");
    if (i) {
        snprintf(buf, cap, "%lld", (long long)floe_pg_get_int(i, "ival", 0));
        return buf;
    }
    if (c.kind == FLOE_PG_CONST_INT) {
        snprintf(buf, cap, "%lld", (long long)c.ival);
        return buf;
    }
    if (c.kind == FLOE_PG_CONST_BOOL) return c.ival ? "true" : "false";
    return NULL;
}

static floe_status one_char(const char *name, const char *v, int *out) {
    if (!v || strlen(v) != 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "COPY %s must be a single one-byte character", name);
    *out = (unsigned char)v[0];
    return NULL;
}

static floe_status parse_options(const json_t *body, const char *file, bool from, copy_opts *o) {
    memset(o, 0, sizeof *o);
    o->header = -1;
    o->delim = -1;
    o->quote = '"';
    o->escape = -1;
    o->null_text = "";
    copy_format by_name;
    bool tsv = false;
    format_from_name(file, &by_name, &o->codec, &tsv);
    json_t *opts = floe_pg_get(body, "options");
    for (int32_t i = 0; i < floe_pg_list_len(opts); i++) {
        json_t *d = floe_pg_as(floe_pg_list_at(opts, i), "DefElem");
        const char *name = floe_pg_get_str(d, "defname");
        json_t *arg = floe_pg_get(d, "arg");
        char buf[32];
        const char *v = arg_text(arg, buf, sizeof buf);
        if (!name) return floe_error(FLOE_ERR_SYNTAX, "COPY: an option without a name");
        bool csv_only = true;
        if (!strcmp(name, "format")) {
            csv_only = false;
            if (v && !strcasecmp(v, "csv")) o->format = FMT_CSV;
            else if (v && !strcasecmp(v, "parquet")) o->format = FMT_PARQUET;
            else if (v && (!strcasecmp(v, "json") || !strcasecmp(v, "ndjson") || !strcasecmp(v, "jsonl")))
                o->format = FMT_JSON;
            else if (v && !strcasecmp(v, "text"))
                return floe_error(FLOE_ERR_UNSUPPORTED, "COPY FORMAT text is not supported (use FORMAT csv)");
            else return floe_error(FLOE_ERR_INVALID_ARGUMENT, "COPY format \"%s\" not recognized (csv, parquet, json)", v ? v : "");
        } else if (!strcmp(name, "header")) {
            if (!arg || !v || !strcasecmp(v, "true") || !strcasecmp(v, "on") || !strcmp(v, "1")) o->header = 1;
            else if (!strcasecmp(v, "false") || !strcasecmp(v, "off") || !strcmp(v, "0")) o->header = 0;
            else if (!strcasecmp(v, "match"))
                return floe_error(FLOE_ERR_UNSUPPORTED, "COPY HEADER MATCH is not supported");
            else return floe_error(FLOE_ERR_INVALID_ARGUMENT, "COPY header requires a Boolean value");
        } else if (!strcmp(name, "delimiter")) {
            FLOE_TRY(one_char("delimiter", v, &o->delim));
        } else if (!strcmp(name, "quote")) {
            FLOE_TRY(one_char("quote", v, &o->quote));
        } else if (!strcmp(name, "escape")) {
            FLOE_TRY(one_char("escape", v, &o->escape));
        } else if (!strcmp(name, "null")) {
            if (!v) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "COPY null requires a string");
            o->null_text = v;
        } else if (!strcmp(name, "force_quote")) {
            if (from) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "COPY force quote only available using COPY TO");
            if (floe_pg_as(arg, "A_Star")) o->force_all = true;
            else if (floe_pg_as(arg, "List")) o->force_cols = floe_pg_get(floe_pg_as(arg, "List"), "items");
            else return floe_error(FLOE_ERR_INVALID_ARGUMENT, "COPY FORCE_QUOTE takes (columns) or *");
        } else if (!strcmp(name, "encoding")) {
            csv_only = false;
            if (!v || !(strcasecmp(v, "utf8") == 0 || strcasecmp(v, "utf-8") == 0))
                return floe_error(FLOE_ERR_UNSUPPORTED, "COPY ENCODING '%s' is not supported (only UTF8)", v ? v : "");
        } else {
            return floe_error(FLOE_ERR_UNSUPPORTED,
                              "COPY option \"%s\" is not supported (format, header, delimiter, quote, escape, null, "
                              "force_quote, encoding)", name);
        }
        if (csv_only && !o->csv_option) o->csv_option = name;
    }
    if (o->format == FMT_NONE) o->format = by_name;
    if (o->format == FMT_NONE)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "COPY '%s': cannot tell the format from the file name; give (FORMAT csv), (FORMAT parquet) "
                          "or (FORMAT json), or name it .csv, .tsv, .parquet or .json", file);
    if (o->delim < 0) o->delim = (tsv && o->format == FMT_CSV) ? '\t' : ',';
    if (o->escape < 0) o->escape = o->quote;
    if (o->format != FMT_CSV && o->csv_option)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "COPY %s is only for FORMAT csv", o->csv_option);
    if (o->format == FMT_PARQUET && o->codec != FLOE_CODEC_NONE)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "COPY '%s': Parquet files are compressed inside; drop the .gz / .zst",
                          file);
    if (o->delim == o->quote)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "COPY delimiter and quote must be different");
    if (o->delim == '\n' || o->delim == '\r' || o->quote == '\n' || o->quote == '\r')
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "COPY delimiter and quote cannot be newline or carriage return");
    return NULL;
}

/* ------------------------------------------------------------- writing */

/* Bytes to the output, compressed per flush (gzip members and zstd frames
 * concatenate, and every reader accepts the concatenation). */
typedef struct text_out {
    floe_output *out;
    floe_codec codec;
    floe_buf buf, z;
} text_out;

static floe_status text_flush(text_out *t, bool force) {
    if (t->buf.len == 0 || (!force && t->buf.len < ((size_t)4 << 20))) return NULL;
    floe_status st = NULL;
    if (t->codec == FLOE_CODEC_NONE) st = floe_output_write(t->out, t->buf.data, t->buf.len);
    else {
        floe_buf_clear(&t->z);
        st = floe_compress(t->codec, 0, t->buf.data, t->buf.len, &t->z);
        if (!st) st = floe_output_write(t->out, t->z.data, t->z.len);
    }
    floe_buf_clear(&t->buf);
    return st;
}

static floe_status csv_field(floe_buf *b, const copy_opts *o, const char *s, size_t n, bool force, bool single) {
    size_t nl = strlen(o->null_text);
    bool quote = force || (n == nl && memcmp(s, o->null_text, n) == 0);
    for (size_t i = 0; i < n && !quote; i++)
        quote = s[i] == o->delim || s[i] == o->quote || s[i] == '\r' || s[i] == '\n';
    /* PostgreSQL also quotes a lone \. in a one-column file, so it cannot
     * read as the end-of-data marker. */
    if (single && n == 2 && s[0] == '\\' && s[1] == '.') quote = true;
    if (!quote) return floe_buf_append(b, s, n);
    FLOE_TRY(floe_buf_append_byte(b, (uint8_t)o->quote));
    for (size_t i = 0; i < n; i++) {
        if (s[i] == o->quote || s[i] == o->escape) FLOE_TRY(floe_buf_append_byte(b, (uint8_t)o->escape));
        FLOE_TRY(floe_buf_append_byte(b, (uint8_t)s[i]));
    }
    return floe_buf_append_byte(b, (uint8_t)o->quote);
}

/* PostgreSQL prints a time's fraction without trailing zeros
 * (03:04:05.5, not 03:04:05.500000). */
static void trim_fraction(floe_buf *cell) {
    char *p = memchr(cell->data, '.', cell->len);
    if (!p) return;
    size_t start = (size_t)(p - (char *)cell->data), end = start + 1;
    while (end < cell->len && cell->data[end] >= '0' && cell->data[end] <= '9') end++;
    size_t keep = end;
    while (keep > start + 1 && cell->data[keep - 1] == '0') keep--;
    if (keep == start + 1) keep = start;
    memmove(cell->data + keep, cell->data + end, cell->len - end);
    cell->len -= end - keep;
    cell->data[cell->len] = 0;
}

static floe_status csv_rows(text_out *t, const copy_opts *o, const bool *force, const floe_batch *b, floe_buf *cell) {
    for (int64_t r = 0; r < b->num_rows; r++) {
        for (int32_t c = 0; c < b->num_columns; c++) {
            if (c) FLOE_TRY(floe_buf_append_byte(&t->buf, (uint8_t)o->delim));
            const floe_array *a = b->columns[c];
            if (floe_array_is_null(a, r)) {
                FLOE_TRY(floe_buf_append_str(&t->buf, o->null_text));
                continue;
            }
            floe_buf_clear(cell);
            if (a->type->id == FLOE_TYPE_BOOL) FLOE_TRY(floe_buf_append_str(cell, floe_array_get_bool(a, r) ? "t" : "f"));
            else FLOE_TRY(floe_format_value(a, r, cell));
            if (a->type->id == FLOE_TYPE_TIMESTAMP_US || a->type->id == FLOE_TYPE_TIMESTAMP_US_TZ ||
                a->type->id == FLOE_TYPE_TIME64_US)
                trim_fraction(cell);
            /* PostgreSQL prints float 0 and -3 as 0 and -3, not 0.0. */
            if ((a->type->id == FLOE_TYPE_FLOAT64 || a->type->id == FLOE_TYPE_FLOAT32) && cell->len > 2 &&
                !memcmp(cell->data + cell->len - 2, ".0", 2) && !memchr(cell->data, 'e', cell->len)) {
                cell->len -= 2;
                cell->data[cell->len] = 0;
            }
            FLOE_TRY(csv_field(&t->buf, o, (const char *)cell->data, cell->len, force[c], b->num_columns == 1));
        }
        FLOE_TRY(floe_buf_append_byte(&t->buf, '\n'));
    }
    return text_flush(t, false);
}

/* Run `plan` and write its rows to `file`; *rows counts them. */
static floe_status copy_to_file(floe_session *s, floe_plan *plan, const char *file, const copy_opts *o,
                                const floe_result_sink **sink, int64_t *rows) {
    const floe_schema *schema = floe_plan_schema(plan);
    int32_t nc = floe_schema_num_fields(schema);
    bool *force = floe_calloc((size_t)nc + 1, sizeof *force);
    if (!force) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "COPY: out of memory");
    floe_status st = NULL;
    for (int32_t c = 0; c < nc; c++) force[c] = o->force_all;
    for (int32_t i = 0; !st && i < floe_pg_list_len(o->force_cols); i++) {
        const char *name = floe_pg_string(floe_pg_list_at(o->force_cols, i));
        int32_t k = name ? floe_schema_find(schema, name) : -1;
        if (k < 0) st = floe_error(FLOE_ERR_NOT_FOUND, "FORCE_QUOTE column \"%s\" is not in the COPY output", name ? name : "?");
        else force[k] = true;
    }
    floe_output *out = NULL;
    floe_pq_writer *w = NULL;
    floe_printer *jp = NULL;
    text_out t;
    memset(&t, 0, sizeof t);
    floe_buf cell;
    floe_buf_init(&cell);
    floe_buf_init(&t.buf);
    floe_buf_init(&t.z);
    t.codec = o->codec;
    if (!st) st = floe_fileio_create_output(s->io, file, 1, &out);
    t.out = out;
    if (!st && o->format == FMT_PARQUET) {
        floe_pq_write_options wo;
        floe_pq_write_options_init(&wo);
        st = floe_pq_writer_open(out, schema, &wo, &w);
        /* The writer owns the output from here on, also when opening it
         * failed (it aborted the output then): never abort it twice. */
        out = NULL;
        t.out = NULL;
    } else if (!st && o->format == FMT_JSON) {
        floe_print_options po;
        floe_print_options_init(&po, FLOE_PRINT_JSONL);
        st = floe_printer_new(&po, NULL, &t.buf, &jp);
        if (!st) st = floe_printer_begin(jp, schema);
    } else if (!st && o->header == 1) {
        for (int32_t c = 0; !st && c < nc; c++) {
            if (c) st = floe_buf_append_byte(&t.buf, (uint8_t)o->delim);
            const char *name = floe_schema_field(schema, c)->name;
            if (!st) st = csv_field(&t.buf, o, name, strlen(name), false, nc == 1);
        }
        if (!st) st = floe_buf_append_byte(&t.buf, '\n');
    }
    floe_exec_ctx ctx;
    floe_session_exec_ctx(s, &ctx);
    floe_execution *x = NULL;
    if (!st) st = floe_execution_begin(&ctx, &x);
    floe_sql_progress prog; /* the sink's progress bar, when it has one */
    floe_sql_progress_start(&prog, plan, &ctx, sink);
    floe_mem_tracker *prev = floe_session_query_begin(s);
    floe_stream *stream = NULL;
    for (int32_t p = 0; p < floe_plan_partitions(plan) && !st; p++) {
        st = floe_plan_execute(plan, p, &ctx, &stream);
        while (!st) {
            floe_batch *b = NULL;
            st = floe_stream_next(stream, &b);
            if (st || !b) break;
            *rows += b->num_rows;
            if (b->num_rows > 0) {
                if (w) st = floe_pq_writer_write(w, b);
                else if (jp) {
                    st = floe_printer_add_batch(jp, b);
                    if (!st) st = text_flush(&t, false);
                } else st = csv_rows(&t, o, force, b, &cell);
            }
            floe_batch_release(b);
        }
        floe_stream_close(stream);
        stream = NULL;
    }
    if (!st && jp) st = floe_printer_end(jp);
    if (!st && !w && out) st = text_flush(&t, true);
    if (w) {
        if (st) floe_pq_writer_abort(w);
        else st = floe_pq_writer_close(w, NULL);
    } else if (out) {
        if (st) floe_output_abort(out);
        else st = floe_output_close(out);
    }
    floe_sql_progress_stop(&prog, st == NULL);
    floe_execution_end(x);
    st = floe_session_query_end(s, prev, st);
    floe_printer_free(jp);
    floe_buf_free(&cell);
    floe_buf_free(&t.buf);
    floe_buf_free(&t.z);
    floe_free(force);
    return st;
}

/* Append a double-quoted identifier. */
static floe_status quote_ident(floe_buf *b, const char *name) {
    FLOE_TRY(floe_buf_append_byte(b, '"'));
    for (const char *p = name; *p; p++) {
        if (*p == '"') FLOE_TRY(floe_buf_append_byte(b, '"'));
        FLOE_TRY(floe_buf_append_byte(b, (uint8_t)*p));
    }
    return floe_buf_append_byte(b, '"');
}

/* COPY t [(cols)] TO: the query SELECT cols FROM t, parsed. */
static floe_status table_query(const json_t *body, floe_sql_script **out) {
    const json_t *rv = floe_pg_get(body, "relation");
    const char *ns = floe_pg_get_str(rv, "schemaname"), *name = floe_pg_get_str(rv, "relname");
    json_t *cols = floe_pg_get(body, "attlist");
    floe_buf q;
    floe_buf_init(&q);
    floe_status st = floe_buf_append_str(&q, "SELECT ");
    for (int32_t i = 0; !st && i < floe_pg_list_len(cols); i++) {
        if (i) st = floe_buf_append_str(&q, ", ");
        const char *c = floe_pg_string(floe_pg_list_at(cols, i));
        if (!st) st = quote_ident(&q, c ? c : "");
    }
    if (!st && floe_pg_list_len(cols) == 0) st = floe_buf_append_str(&q, "*");
    if (!st) st = floe_buf_append_str(&q, " FROM ");
    if (!st && ns) {
        st = quote_ident(&q, ns);
        if (!st) st = floe_buf_append_byte(&q, '.');
    }
    if (!st) st = quote_ident(&q, name ? name : "");
    if (!st) st = floe_sql_parse(floe_buf_cstr(&q), out);
    floe_buf_free(&q);
    return st;
}

static floe_status exec_copy_to(floe_session *s, const json_t *body, const char *file, const floe_result_sink *sink) {
    copy_opts o;
    FLOE_TRY(parse_options(body, file, false, &o));
    json_t *query = floe_pg_get(body, "query");
    floe_sql_script *script = NULL;
    if (!query) {
        FLOE_TRY(table_query(body, &script));
        query = script->n_stmts == 1 ? script->stmts[0].node : NULL;
    }
    floe_plan *plan = NULL;
    floe_status st = query ? floe_session_plan_query(s, query, &plan)
                           : floe_error(FLOE_ERR_INTERNAL, "COPY TO: no query");
    int64_t rows = 0;
    const floe_result_sink *user_sink = sink;
    if (!st) st = copy_to_file(s, plan, file, &o, &sink, &rows);
    floe_plan_release(plan);
    floe_sql_script_free(script);
    if (st) return floe_status_wrap(st, "COPY TO '%s'", file);
    char tag[48];
    snprintf(tag, sizeof tag, "COPY %lld", (long long)rows);
    if (user_sink && user_sink->end) FLOE_TRY(user_sink->end(user_sink->arg, tag, rows));
    return NULL;
}

/* ------------------------------------------------------------- reading */

static floe_status keep_rows(void *arg, const char *tag, int64_t rows);

/* COPY t [(cols)] FROM 'file.parquet': INSERT INTO t [(cols)] SELECT *
 * FROM read_parquet('file'), the file's columns by position as DuckDB's
 * COPY takes them, run as that statement (one commit, parallel writers). */
static floe_status copy_from_parquet(floe_session *s, const json_t *body, const char *file,
                                     const floe_result_sink *sink) {
    const json_t *rv = floe_pg_get(body, "relation");
    const char *ns = floe_pg_get_str(rv, "schemaname"), *name = floe_pg_get_str(rv, "relname");
    json_t *cols = floe_pg_get(body, "attlist");
    floe_buf q;
    floe_buf_init(&q);
    floe_status st = floe_buf_append_str(&q, "INSERT INTO ");
    if (!st && ns) {
        st = quote_ident(&q, ns);
        if (!st) st = floe_buf_append_byte(&q, '.');
    }
    if (!st) st = quote_ident(&q, name ? name : "");
    for (int32_t i = 0; !st && i < floe_pg_list_len(cols); i++) {
        st = floe_buf_append_str(&q, i ? ", " : " (");
        const char *c = floe_pg_string(floe_pg_list_at(cols, i));
        if (!st) st = quote_ident(&q, c ? c : "");
    }
    if (!st && floe_pg_list_len(cols)) st = floe_buf_append_byte(&q, ')');
    if (!st) st = floe_buf_append_str(&q, " SELECT * FROM read_parquet('");
    for (const char *p = file; !st && *p; p++)
        st = *p == '\'' ? floe_buf_append_str(&q, "''") : floe_buf_append_byte(&q, (uint8_t)*p);
    if (!st) st = floe_buf_append_str(&q, "')");
    floe_sql_script *script = NULL;
    if (!st) st = floe_sql_parse(floe_buf_cstr(&q), &script);
    floe_buf_free(&q);
    if (st) return st;
    /* Run it as the statement being executed (its errors have no position
     * in the user's text), then put the COPY back. */
    const floe_sql_script *outer_script = s->script;
    const floe_sql_stmt *outer_stmt = s->stmt;
    s->script = NULL;
    s->stmt = &script->stmts[0];
    int64_t rows = 0;
    floe_result_sink counted = {&rows, NULL, NULL, keep_rows, NULL};
    bool handled = false;
    st = floe_sql_exec_dml(s, &script->stmts[0], &counted, &handled);
    s->script = outer_script;
    s->stmt = outer_stmt;
    floe_sql_script_free(script);
    if (!st && !handled) st = floe_error(FLOE_ERR_INTERNAL, "COPY FROM parquet: the INSERT was not run");
    if (st) return floe_status_wrap(st, "COPY FROM '%s'", file);
    char tag[48];
    snprintf(tag, sizeof tag, "COPY %lld", (long long)rows);
    return floe_dml_end_tag(sink, tag, rows);
}

static floe_status exec_copy_from(floe_session *s, const json_t *body, const char *file, const floe_result_sink *sink) {
    copy_opts o;
    FLOE_TRY(parse_options(body, file, true, &o));
    if (o.format == FMT_PARQUET) return copy_from_parquet(s, body, file, sink);
    if (o.format != FMT_CSV && o.format != FMT_JSON)
        return floe_error(FLOE_ERR_UNSUPPORTED, "COPY FROM reads FORMAT csv, json or parquet only");
    floe_dml_target t;
    memset(&t, 0, sizeof t);
    floe_status st = floe_dml_target_of(s, floe_pg_get(body, "relation"), &t);
    if (st) return st;
    const floe_ice_schema *isch = floe_ice_tm_current_schema(t.table->md);
    json_t *attl = floe_pg_get(body, "attlist");
    int32_t ncols = floe_pg_list_len(attl);
    if (!isch) st = floe_error(FLOE_ERR_CORRUPT, "table %s has no current schema", t.label);
    if (!st && ncols == 0) ncols = isch->root->n_fields;
    const char **names = floe_calloc((size_t)ncols + 1, sizeof *names);
    int32_t *locs = floe_calloc((size_t)ncols + 1, sizeof *locs);
    floe_type **types = floe_calloc((size_t)ncols + 1, sizeof *types);
    if (!st && (!names || !locs || !types)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "COPY: out of memory");
    for (int32_t i = 0; !st && i < ncols; i++) {
        const floe_ice_field *f = NULL;
        locs[i] = -1;
        if (floe_pg_list_len(attl) > 0) {
            const char *c = floe_pg_string(floe_pg_list_at(attl, i));
            for (int32_t k = 0; c && k < isch->root->n_fields && !f; k++)
                if (!strcmp(isch->root->fields[k].name, c)) f = &isch->root->fields[k];
            for (int32_t k = 0; k < i && !st; k++)
                if (c && !strcmp(names[k], c))
                    st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "column \"%s\" specified more than once", c);
            if (!st && !f)
                st = floe_error(FLOE_ERR_NOT_FOUND, "column \"%s\" of relation \"%s\" does not exist", c ? c : "?", t.name);
        } else {
            f = &isch->root->fields[i];
        }
        if (st) break;
        names[i] = f->name;
        st = floe_ice_type_to_columnar(f->type, &types[i]);
        if (!st && o.format == FMT_CSV && floe_type_is_nested(types[i]))
            st = floe_error(FLOE_ERR_UNSUPPORTED, "COPY FROM: column \"%s\" has a nested type", f->name);
    }
    floe_csv_options co;
    floe_csv_options_init(&co);
    co.delim = o.delim;
    co.quote = o.quote;
    co.escape = o.escape;
    co.header = o.header == 1;
    co.nullstr = o.null_text;
    co.quoted_nulls = false; /* PostgreSQL: a quoted field is never NULL */
    co.auto_detect = false;
    co.names = names;
    co.n_names = ncols;
    co.types = types;
    co.n_types = ncols;
    char what[FLOE_DML_NAME_MAX + 8];
    snprintf(what, sizeof what, "COPY %s", t.name);
    co.what = what;
    /* JSON: each object's fields by the columns' names, typed as the
     * table's (nested ones too), other keys ignored, streamed through a
     * JsonScan node as CSV streams through a CsvScan node. */
    floe_json_options jo;
    floe_json_options_init(&jo);
    jo.names = names;
    jo.types = types;
    jo.n_columns = ncols;
    jo.what = what;
    int32_t parts = s->opts.target_partitions > 0 ? s->opts.target_partitions : 1;
    floe_plan *values = NULL, *plan = NULL, *phys = NULL;
    if (!st && o.format == FMT_JSON) {
        st = floe_json_plan_scan(&file, 1, s->io, &jo, parts, &values);
    } else if (!st) {
        st = floe_csv_plan_scan(&file, 1, s->io, &co, parts, &values);
    }
    floe_lplan *lp = NULL, *rows_lp = NULL;
    if (!st) st = floe_lplan_new(FLOE_L_PHYSICAL, values->schema, NULL, 0, &lp);
    if (!st) {
        lp->physical = values;
        values = NULL;
        st = floe_sql_bind_write_input(s, t.table, t.label, floe_pg_list_len(attl) > 0 ? names : NULL, locs,
                                       floe_pg_list_len(attl) > 0 ? ncols : 0, lp, &rows_lp);
        lp = NULL;
    }
    if (!st) st = floe_sql_optimize(&rows_lp, &s->opts);
    if (!st) st = floe_sql_physical(rows_lp, &s->opts, false, &phys);
    if (!st) st = floe_sql_plan_write(s, phys, t.table, t.ns, t.name, FLOE_COMMIT_APPEND, -1, &plan);
    int64_t rows = 0;
    if (!st) st = floe_dml_run_write(s, plan, &rows);
    floe_plan_release(plan);
    floe_plan_release(phys);
    floe_plan_release(values);
    floe_lplan_free(lp);
    floe_lplan_free(rows_lp);
    for (int32_t i = 0; types && i < ncols; i++) floe_type_release(types[i]);
    floe_free(types);
    floe_free(names);
    floe_free(locs);
    floe_dml_target_clear(&t);
    FLOE_TRY(st);
    char tag[48];
    snprintf(tag, sizeof tag, "COPY %lld", (long long)rows);
    return floe_dml_end_tag(sink, tag, rows);
}

/* ------------------------------------------------------- STDIN / STDOUT */

static bool has_format_option(const json_t *body) {
    json_t *opts = floe_pg_get(body, "options");
    for (int32_t i = 0; i < floe_pg_list_len(opts); i++) {
        const char *name = floe_pg_get_str(floe_pg_as(floe_pg_list_at(opts, i), "DefElem"), "defname");
        if (name && !strcmp(name, "format")) return true;
    }
    return false;
}

/* Copy every byte from descriptor `from` to `to`. */
static floe_status pump(int from, int to, const char *what) {
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(from, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return floe_error(FLOE_ERR_IO, "%s: %s", what, strerror(errno));
        if (n == 0) return NULL;
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(to, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) return floe_error(FLOE_ERR_IO, "%s: %s", what, strerror(errno));
            done += w;
        }
    }
}

/* COPY TO's end, kept for after the data has been written out. */
static floe_status keep_rows(void *arg, const char *tag, int64_t rows) {
    (void)tag;
    *(int64_t *)arg = rows;
    return NULL;
}

static floe_status exec_copy_std(floe_session *s, const json_t *body, const floe_result_sink *sink) {
    bool from = floe_pg_get_bool(body, "is_from");
    if (!has_format_option(body))
        return floe_error(FLOE_ERR_UNSUPPORTED, "COPY %s needs (FORMAT csv) or (FORMAT json): PostgreSQL's default "
                          "text format is not supported", from ? "FROM STDIN" : "TO STDOUT");
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/floe-copy-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) return floe_error(FLOE_ERR_IO, "COPY %s: cannot make a temporary file in %s: %s",
                                  from ? "FROM STDIN" : "TO STDOUT", dir && *dir ? dir : "/tmp", strerror(errno));
    floe_status st = NULL;
    if (from) {
        st = pump(STDIN_FILENO, fd, "COPY FROM STDIN: reading standard input");
        close(fd);
        if (!st) st = exec_copy_from(s, body, path, sink);
    } else {
        close(fd);
        unlink(path); /* COPY TO creates its file afresh */
        /* The end tag is the caller's to print after the data. */
        int64_t rows = 0;
        floe_result_sink counted = {&rows, NULL, NULL, keep_rows, NULL};
        st = exec_copy_to(s, body, path, &counted);
        int in = st ? -1 : open(path, O_RDONLY);
        if (!st && in < 0) st = floe_error(FLOE_ERR_IO, "COPY TO STDOUT: reopening %s: %s", path, strerror(errno));
        if (!st) {
            fflush(stdout);
            st = pump(in, STDOUT_FILENO, "COPY TO STDOUT: writing standard output");
            close(in);
        }
        char tag[48];
        snprintf(tag, sizeof tag, "COPY %lld", (long long)rows);
        if (!st && sink && sink->end) st = sink->end(sink->arg, tag, rows);
    }
    unlink(path);
    return st;
}

floe_status floe_sql_exec_copy(floe_session *s, const json_t *body, const floe_result_sink *sink) {
    const char *file = floe_pg_get_str(body, "filename");
    if (floe_pg_get_bool(body, "is_program")) return floe_error(FLOE_ERR_UNSUPPORTED, "COPY ... PROGRAM is not supported");
    if (!file && floe_pg_get(body, "whereClause"))
        return floe_error(FLOE_ERR_UNSUPPORTED, "COPY FROM ... WHERE is not supported");
    if (!file) return exec_copy_std(s, body, sink);
    if (floe_pg_get(body, "whereClause")) return floe_error(FLOE_ERR_UNSUPPORTED, "COPY FROM ... WHERE is not supported");
    if (floe_pg_get_bool(body, "is_from")) return exec_copy_from(s, body, file, sink);
    return exec_copy_to(s, body, file, sink);
}

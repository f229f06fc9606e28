/*
 * pg_query.c — running statements for a client: the result sink that turns
 * floe's batches into RowDescription / DataRow / CommandComplete, and the
 * simple query protocol ('Q': one or more statements, each answered in
 * turn, the first error ending the rest, then ReadyForQuery).
 *
 * The query text is parsed once here to split it into statements: each
 * runs on its own (floe_session_execute on its text), so the server can
 * answer the statements it handles itself (pg_settings.c) in between and
 * report errors with their position in the whole text.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "floe/memory.h"
#include "server/pg_types.h"
#include "server/server_internal.h"
#include "sql/session_internal.h"

/* Rows are sent in pieces of about this much. */
#define FLUSH_BYTES (256 * 1024)

void pg_send_ready(pg_session *s) {
    pg_begin(&s->conn, 'Z');
    pg_put_byte(&s->conn, (uint8_t)(s->tx_status ? s->tx_status : 'I'));
    pg_end(&s->conn);
}

static bool tag_has_count(const char *tag) {
    size_t n = strlen(tag);
    return n > 0 && isdigit((unsigned char)tag[n - 1]);
}

void pg_send_command_complete(pg_session *s, const char *tag, int64_t rows) {
    char text[96];
    if (tag_has_count(tag)) snprintf(text, sizeof text, "%s", tag);
    else if (!strcmp(tag, "INSERT")) snprintf(text, sizeof text, "INSERT 0 %lld", (long long)rows);
    else if (!strcmp(tag, "SELECT") || !strcmp(tag, "DELETE") || !strcmp(tag, "UPDATE") || !strcmp(tag, "MERGE") ||
             !strcmp(tag, "COPY") || !strcmp(tag, "CREATE TABLE AS"))
        snprintf(text, sizeof text, "%s %lld", !strcmp(tag, "CREATE TABLE AS") ? "SELECT" : tag, (long long)rows);
    else snprintf(text, sizeof text, "%s", tag);
    pg_begin(&s->conn, 'C');
    pg_put_cstr(&s->conn, text);
    pg_end(&s->conn);
}

static int16_t format_of(const int16_t *formats, int16_t n, int32_t col) {
    if (n == 0) return 0;
    if (n == 1) return formats[0];
    return col < n ? formats[col] : 0;
}

floe_status pg_send_row_description(pg_session *s, const floe_schema *schema, const int16_t *formats,
                                    int16_t n_formats) {
    int32_t n = floe_schema_num_fields(schema);
    if (n > 1664) return floe_error(FLOE_ERR_UNSUPPORTED, "a result of %d columns is too wide (at most 1664)", (int)n);
    for (int32_t c = 0; c < n; c++) {
        int16_t f = format_of(formats, n_formats, c);
        if (f == 1 && !pg_binary_supported(floe_schema_field(schema, c)->type))
            return floe_error(FLOE_ERR_UNSUPPORTED, "column '%s': binary output of type %s is not supported",
                              floe_schema_field(schema, c)->name,
                              floe_type_id_name(floe_schema_field(schema, c)->type->id));
        if (f != 0 && f != 1) return floe_error(FLOE_ERR_CORRUPT, "result format code %d is not 0 or 1", (int)f);
    }
    pg_begin(&s->conn, 'T');
    pg_put_int16(&s->conn, (int16_t)n);
    for (int32_t c = 0; c < n; c++) {
        const floe_field *fd = floe_schema_field(schema, c);
        pg_type_info ti = pg_type_of(fd->type);
        pg_put_cstr(&s->conn, fd->name ? fd->name : "?column?");
        pg_put_int32(&s->conn, 0); /* table OID */
        pg_put_int16(&s->conn, 0); /* column number */
        pg_put_int32(&s->conn, ti.oid);
        pg_put_int16(&s->conn, ti.len);
        pg_put_int32(&s->conn, ti.typmod);
        pg_put_int16(&s->conn, format_of(formats, n_formats, c));
    }
    pg_end(&s->conn);
    return NULL;
}

void pg_result_writer_init(pg_result_writer *w, pg_session *s, bool send_row_description, const int16_t *formats,
                           int16_t n_formats) {
    memset(w, 0, sizeof *w);
    w->s = s;
    w->send_row_description = send_row_description;
    w->formats = formats;
    w->n_formats = n_formats;
    floe_buf_init(&w->cell);
}

void pg_result_writer_free(pg_result_writer *w) {
    floe_type_release(w->schema);
    floe_free(w->binary);
    floe_buf_free(&w->cell);
    w->schema = NULL;
    w->binary = NULL;
}

static floe_status w_begin(void *arg, const floe_schema *schema) {
    pg_result_writer *w = arg;
    floe_type_release(w->schema);
    floe_free(w->binary);
    w->schema = floe_type_retain((floe_schema *)schema);
    int32_t n = floe_schema_num_fields(schema);
    w->binary = floe_calloc((size_t)(n ? n : 1), sizeof(bool));
    if (!w->binary) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "result: out of memory");
    for (int32_t c = 0; c < n; c++) w->binary[c] = format_of(w->formats, w->n_formats, c) == 1;
    w->rows_sent = 0;
    w->ended = false;
    if (w->send_row_description) return pg_send_row_description(w->s, schema, w->formats, w->n_formats);
    return NULL;
}

floe_status pg_send_rows(pg_result_writer *w, const floe_batch *b, int64_t from, int64_t to) {
    pg_conn *c = &w->s->conn;
    for (int64_t r = from; r < to; r++) {
        pg_begin(c, 'D');
        pg_put_int16(c, (int16_t)b->num_columns);
        for (int32_t col = 0; col < b->num_columns; col++) {
            const floe_array *a = floe_batch_column(b, col);
            if (floe_array_is_null(a, r)) {
                pg_put_int32(c, -1);
                continue;
            }
            floe_buf_clear(&w->cell);
            FLOE_TRY(w->binary && w->binary[col] ? pg_encode_binary(a, r, &w->cell) : pg_encode_text(a, r, w->s->floe ? w->s->floe->tz : NULL, &w->cell));
            pg_put_int32(c, (int32_t)w->cell.len);
            pg_put_bytes(c, w->cell.data, w->cell.len);
        }
        pg_end(c);
        w->rows_sent++;
        if (c->out.len >= FLUSH_BYTES) FLOE_TRY(pg_flush(c));
    }
    return NULL;
}

static floe_status w_batch(void *arg, const floe_batch *b) {
    pg_result_writer *w = arg;
    return pg_send_rows(w, b, 0, b->num_rows);
}

static floe_status w_end(void *arg, const char *tag, int64_t rows) {
    pg_result_writer *w = arg;
    pg_send_command_complete(w->s, tag, rows);
    w->ended = true;
    return NULL;
}

void pg_result_writer_sink(pg_result_writer *w, floe_result_sink *sink) {
    memset(sink, 0, sizeof *sink);
    sink->arg = w;
    sink->begin = w_begin;
    sink->batch = w_batch;
    sink->end = w_end;
}

floe_status pg_run_statement(pg_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink) {
    bool handled = false;
    FLOE_TRY(pg_intercept(s, stmt, sink, &handled));
    if (handled) return NULL;
    return floe_session_execute(s->floe, stmt->text, sink);
}

floe_status pg_simple_query(pg_session *s, const char *sql) {
    FLOE_LOG_INFO("serve", "session %d: query: %.2000s%s", (int)s->id, sql, strlen(sql) > 2000 ? " ..." : "");
    floe_sql_script *script = NULL;
    floe_status st = floe_sql_parse(sql, &script);
    if (st) {
        pg_send_error(s, st, sql, 0);
        floe_status_free(st);
    } else if (script->n_stmts == 0) {
        pg_begin(&s->conn, 'I');
        pg_end(&s->conn);
    } else {
        pg_result_writer w;
        pg_result_writer_init(&w, s, true, NULL, 0);
        floe_result_sink sink;
        pg_result_writer_sink(&w, &sink);
        for (int32_t i = 0; i < script->n_stmts; i++) {
            const floe_sql_stmt *stmt = &script->stmts[i];
            st = pg_run_statement(s, stmt, &sink);
            if (st) {
                if (floe_status_code(st) == FLOE_ERR_IO && s->conn.out.len == 0 && strstr(floe_status_message(st), "writing to the client")) {
                    /* the client is gone: nothing to answer */
                    pg_result_writer_free(&w);
                    floe_sql_script_free(script);
                    return st;
                }
                pg_send_error(s, st, sql, stmt->location);
                floe_status_free(st);
                break;
            }
        }
        pg_result_writer_free(&w);
    }
    floe_sql_script_free(script);
    pg_send_ready(s);
    return pg_flush(&s->conn);
}

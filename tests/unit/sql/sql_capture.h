/* sql_capture.h — running SQL in a test and getting its rows back as
 * text: each row's values formatted as floe prints them, joined by '|',
 * one row per line. */
#ifndef FLOE_TEST_SQL_CAPTURE_H
#define FLOE_TEST_SQL_CAPTURE_H

#include "floe_test.h"

#include "base/buffer.h"
#include "floe/memory.h"
#include "floe/session.h"

typedef struct sql_capture {
    floe_buf text;
} sql_capture;

static inline floe_status sql_capture_batch(void *arg, const floe_batch *b) {
    sql_capture *c = arg;
    for (int64_t r = 0; r < b->num_rows; r++) {
        for (int32_t i = 0; i < b->num_columns; i++) {
            if (i) FLOE_TRY(floe_buf_append_byte(&c->text, '|'));
            FLOE_TRY(floe_format_value(b->columns[i], r, &c->text));
        }
        FLOE_TRY(floe_buf_append_byte(&c->text, '\n'));
    }
    return NULL;
}

/* Run `sql` (it must succeed); its rows as text (floe_free it). */
static inline char *sql_query_text(floe_session *s, const char *sql) {
    sql_capture c;
    floe_buf_init(&c.text);
    floe_result_sink sink = {0};
    sink.arg = &c;
    sink.batch = sql_capture_batch;
    assert_ok(floe_session_execute(s, sql, &sink));
    assert_ok(floe_buf_append_byte(&c.text, 0));
    return (char *)floe_buf_detach(&c.text, NULL);
}

#endif

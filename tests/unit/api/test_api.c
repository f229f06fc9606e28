/*
 * test_api.c — the embedding API of include/floe/floe.h on a scratch
 * warehouse: results through the Arrow C stream (read as a foreign
 * consumer would, buffer by buffer, and through floe's own importer),
 * errors with code and message, prepared statements with bound
 * parameters, and floe_interrupt from a second thread stopping a long
 * generate_series query.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "base/buffer.h"
#include "floe/arrow_c.h"
#include "floe/floe.h"
#include "floe/memory.h"
#include "floe_test.h"

typedef struct env {
    char dir[4096];
    floe_database *db;
    floe_connection *conn;
} env;

static int setup(void **state) {
    env *e = calloc(1, sizeof *e);
    char tmp[1024];
    floe_test_tmpdir(tmp, sizeof tmp, "api");
    snprintf(e->dir, sizeof e->dir, "%s/wh", tmp);
    assert_ok(floe_database_open(e->dir, NULL, 0, &e->db));
    assert_ok(floe_connect(e->db, &e->conn));
    *state = e;
    return 0;
}

static int teardown(void **state) {
    env *e = *state;
    floe_disconnect(e->conn);
    floe_database_close(e->db);
    free(e);
    return 0;
}

/* Every row of a stream as "v|v\n" text, via floe's importer. */
static char *stream_text(struct ArrowArrayStream *s) {
    floe_arrow_stream_reader *r = NULL;
    assert_ok(floe_arrow_stream_open(s, &r));
    assert_null(s->release);
    floe_buf text = FLOE_BUF_INIT;
    for (;;) {
        floe_batch *b = NULL;
        assert_ok(floe_arrow_stream_next(r, &b));
        if (!b) break;
        for (int64_t row = 0; row < b->num_rows; row++) {
            for (int32_t i = 0; i < b->num_columns; i++) {
                if (i) assert_ok(floe_buf_append_byte(&text, '|'));
                assert_ok(floe_format_value(b->columns[i], row, &text));
            }
            assert_ok(floe_buf_append_byte(&text, '\n'));
        }
        floe_batch_release(b);
    }
    floe_arrow_stream_close(r);
    assert_ok(floe_buf_append_byte(&text, 0));
    return (char *)floe_buf_detach(&text, NULL);
}

static char *query_text(floe_connection *c, const char *sql) {
    struct ArrowArrayStream s;
    assert_ok(floe_query(c, sql, &s));
    return stream_text(&s);
}

static void results_come_through_the_arrow_stream(void **state) {
    env *e = *state;
    assert_string_equal(floe_library_version(), "0.1.0");
    assert_ok(floe_query(e->conn, "CREATE TABLE t (id bigint, name string)", NULL));
    assert_string_equal(floe_last_tag(e->conn), "CREATE TABLE");
    assert_ok(floe_query(e->conn, "INSERT INTO t VALUES (1, 'one'), (2, NULL), (3, 'three')", NULL));
    assert_string_equal(floe_last_tag(e->conn), "INSERT 0 3");
    assert_int_equal(floe_rows_changed(e->conn), 3);

    /* As a foreign consumer: schema, then struct arrays of int64 + utf8. */
    struct ArrowArrayStream s;
    assert_ok(floe_query(e->conn, "SELECT id, name FROM t ORDER BY id", &s));
    struct ArrowSchema schema;
    assert_int_equal(s.get_schema(&s, &schema), 0);
    assert_string_equal(schema.format, "+s");
    assert_int_equal(schema.n_children, 2);
    assert_string_equal(schema.children[0]->format, "l");
    assert_string_equal(schema.children[0]->name, "id");
    assert_string_equal(schema.children[1]->format, "u");
    schema.release(&schema);
    int64_t rows = 0, sum = 0, nulls = 0;
    for (;;) {
        struct ArrowArray a;
        assert_int_equal(s.get_next(&s, &a), 0);
        if (!a.release) break;
        assert_int_equal(a.n_children, 2);
        const struct ArrowArray *ids = a.children[0], *names = a.children[1];
        const int64_t *v = ids->buffers[1];
        for (int64_t i = 0; i < ids->length; i++) sum += v[ids->offset + i];
        nulls += names->null_count;
        rows += a.length;
        a.release(&a);
    }
    s.release(&s);
    assert_int_equal(rows, 3);
    assert_int_equal(sum, 6);
    assert_int_equal(nulls, 1);

    char *text = query_text(e->conn, "SELECT id, coalesce(name, '-') FROM t ORDER BY id");
    assert_string_equal(text, "1|one\n2|-\n3|three\n");
    floe_free(text);

    /* Several statements: the last one's result; a statement without
     * rows gives a stream without columns. */
    text = query_text(e->conn, "SELECT 1; SELECT 2 AS two");
    assert_string_equal(text, "2\n");
    floe_free(text);
    assert_ok(floe_query(e->conn, "SELECT 1; SET TimeZone = 'UTC'", &s));
    assert_int_equal(s.get_schema(&s, &schema), 0);
    assert_int_equal(schema.n_children, 0);
    schema.release(&schema);
    s.release(&s);

    /* The stream outlives its connection. */
    floe_connection *c2 = NULL;
    assert_ok(floe_connect(e->db, &c2));
    assert_ok(floe_query(c2, "SELECT count(*) FROM t", &s));
    floe_disconnect(c2);
    text = stream_text(&s);
    assert_string_equal(text, "3\n");
    floe_free(text);
}

static void errors_have_code_and_message(void **state) {
    env *e = *state;
    struct ArrowArrayStream s;
    s.release = (void (*)(struct ArrowArrayStream *))1; /* must be reset */
    assert_error(floe_query(e->conn, "SELECT * FROM no_such_table", &s), FLOE_ERR_NOT_FOUND, "no_such_table");
    assert_null(s.release);
    assert_error(floe_query(e->conn, "SELEC 1", &s), FLOE_ERR_SYNTAX, "syntax error");
    assert_error(floe_query(NULL, "SELECT 1", &s), FLOE_ERR_INVALID_ARGUMENT, "connection");
    floe_database *db = NULL;
    assert_error(floe_database_open("rest:", NULL, 0, &db), FLOE_ERR_INVALID_ARGUMENT, "");
    assert_null(db);
    /* The connection still works after errors. */
    char *text = query_text(e->conn, "SELECT 40 + 2");
    assert_string_equal(text, "42\n");
    floe_free(text);
}

static void prepared_statements_bind_parameters(void **state) {
    env *e = *state;
    assert_ok(floe_query(e->conn, "CREATE TABLE p (id bigint, name string, score double, ok boolean)", NULL));
    floe_prepared *ins = NULL;
    assert_error(floe_prepare(e->conn, "SELEC $1", &ins), FLOE_ERR_SYNTAX, "syntax error");
    assert_error(floe_prepare(e->conn, "SELECT $1; SELECT 2", &ins), FLOE_ERR_INVALID_ARGUMENT, "not 2");
    assert_null(ins);
    assert_ok(floe_prepare(e->conn, "INSERT INTO p VALUES ($1, $2, $3, $4)", &ins));
    assert_int_equal(floe_prepared_param_count(ins), 4);
    assert_error(floe_execute(ins, NULL), FLOE_ERR_INVALID_ARGUMENT, "parameter $1 is not bound");
    assert_error(floe_bind_int64(ins, 5, 1), FLOE_ERR_INVALID_ARGUMENT, "there is no parameter $5");
    assert_ok(floe_bind_int64(ins, 1, 1));
    assert_ok(floe_bind_text(ins, 2, "it's; DROP TABLE p; --"));
    assert_ok(floe_bind_double(ins, 3, 2.5));
    assert_ok(floe_bind_bool(ins, 4, true));
    assert_ok(floe_execute(ins, NULL));
    assert_int_equal(floe_rows_changed(e->conn), 1);
    assert_ok(floe_bind_int64(ins, 1, -9000000000LL));
    assert_ok(floe_bind_null(ins, 2));
    assert_ok(floe_bind_double(ins, 3, -0.125));
    assert_ok(floe_bind_bool(ins, 4, false));
    assert_ok(floe_execute(ins, NULL));
    floe_clear_bindings(ins);
    assert_error(floe_execute(ins, NULL), FLOE_ERR_INVALID_ARGUMENT, "not bound");
    floe_prepared_free(ins);

    floe_prepared *sel = NULL;
    assert_ok(floe_prepare(e->conn, "SELECT id, coalesce(name, 'null'), score, ok FROM p WHERE id >= $1 ORDER BY id",
                           &sel));
    assert_ok(floe_bind_int64(sel, 1, -10000000000LL));
    struct ArrowArrayStream s;
    assert_ok(floe_execute(sel, &s));
    char *text = stream_text(&s);
    assert_string_equal(text, "-9000000000|null|-0.125|false\n1|it's; DROP TABLE p; --|2.5|true\n");
    floe_free(text);
    /* A text parameter takes its type from where it stands. */
    assert_ok(floe_bind_text(sel, 1, "0"));
    assert_ok(floe_execute(sel, &s));
    text = stream_text(&s);
    assert_string_equal(text, "1|it's; DROP TABLE p; --|2.5|true\n");
    floe_free(text);
    floe_prepared_free(sel);
}

typedef struct interrupter {
    floe_connection *conn;
    atomic_bool done;
} interrupter;

/* Interrupt every 20 ms until the query has returned: the first ones may
 * land before the statement starts (a statement clears the flag). */
static void *interrupt_loop(void *arg) {
    interrupter *it = arg;
    struct timespec d = {0, 20 * 1000 * 1000};
    nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
    while (!atomic_load(&it->done)) {
        floe_interrupt(it->conn);
        nanosleep(&d, NULL);
    }
    return NULL;
}

static void interrupt_from_another_thread_cancels(void **state) {
    env *e = *state;
    interrupter it = {.conn = e->conn};
    atomic_init(&it.done, false);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, interrupt_loop, &it), 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct ArrowArrayStream s;
    floe_status st = floe_query(e->conn, "SELECT sum(g % 7) FROM generate_series(1, 100000000000) g", &s);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    atomic_store(&it.done, true);
    pthread_join(th, NULL);
    assert_error(st, FLOE_ERR_CANCELLED, "");
    assert_null(s.release);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (secs > 30) fail_msg("the interrupted query ran %.1f s", secs);
    /* The next statement runs normally. */
    char *text = query_text(e->conn, "SELECT count(*) FROM generate_series(1, 1000)");
    assert_string_equal(text, "1000\n");
    floe_free(text);
}

FLOE_TEST_MAIN(cmocka_unit_test_setup_teardown(results_come_through_the_arrow_stream, setup, teardown),
               cmocka_unit_test_setup_teardown(errors_have_code_and_message, setup, teardown),
               cmocka_unit_test_setup_teardown(prepared_statements_bind_parameters, setup, teardown),
               cmocka_unit_test_setup_teardown(interrupt_from_another_thread_cancels, setup, teardown))

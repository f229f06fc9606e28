/*
 * test_progress.c — a query's progress reaches the sink's progress
 * callback: over a multi-file Parquet scan (units: row groups) and an
 * Iceberg table (units: task bytes) done only grows, never passes total,
 * and ends at total; callbacks never overlap; nothing is reported without
 * a callback or without scan work.  The ticker's delay and period are cut
 * to a few milliseconds through FLOE_PROGRESS_DELAY_MS / _PERIOD_MS.
 */
#include "floe_test.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "floe/fileio.h"
#include "floe/memory.h"
#include "floe/session.h"
#include "formats/parquet/writer.h"

#define FILES 6
#define RGS 4
#define RG_ROWS 500

static char dir[1024];

typedef struct prog_sink {
    int64_t n, cap;
    int64_t *done, *total;
    int64_t batches, rows;
    atomic_int inside; /* a callback is running */
    bool overlapped;
} prog_sink;

static void enter(prog_sink *p) {
    if (atomic_fetch_add(&p->inside, 1) != 0) p->overlapped = true;
}
static void leave(prog_sink *p) { atomic_fetch_sub(&p->inside, 1); }

static floe_status ps_batch(void *arg, const floe_batch *b) {
    prog_sink *p = arg;
    enter(p);
    p->batches++;
    p->rows += b->num_rows;
    struct timespec ts = {0, 2000000}; /* a slow consumer: the scan waits for it */
    nanosleep(&ts, NULL);
    leave(p);
    return NULL;
}

static void ps_progress(void *arg, int64_t done, int64_t total) {
    prog_sink *p = arg;
    enter(p);
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 64;
        p->done = realloc(p->done, (size_t)p->cap * sizeof *p->done);
        p->total = realloc(p->total, (size_t)p->cap * sizeof *p->total);
    }
    p->done[p->n] = done;
    p->total[p->n++] = total;
    leave(p);
}

static void prog_free(prog_sink *p) {
    free(p->done);
    free(p->total);
}

/* FILES files of RGS row groups of RG_ROWS rows (one int64 column). */
static void write_files(void) {
    floe_field f = {(char *)"id", floe_type_primitive(FLOE_TYPE_INT64), false, -1};
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(&f, 1, &s));
    for (int k = 0; k < FILES; k++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/part_%d.parquet", dir, k);
        floe_pq_write_options o;
        floe_pq_write_options_init(&o);
        o.row_group_rows = RG_ROWS;
        floe_output *out = NULL;
        floe_pq_writer *w = NULL;
        assert_ok(floe_output_create_local(path, 1, &out));
        assert_ok(floe_pq_writer_open(out, s, &o, &w));
        floe_builder *b = NULL;
        assert_ok(floe_builder_new(f.type, RGS * RG_ROWS, &b));
        for (int64_t i = 0; i < RGS * RG_ROWS; i++) assert_ok(floe_builder_append_int64(b, k * 100000 + i));
        floe_array *a = NULL;
        assert_ok(floe_builder_finish(b, &a));
        floe_builder_free(b);
        floe_batch *batch = NULL;
        assert_ok(floe_batch_new(s, &a, 1, RGS * RG_ROWS, &batch));
        floe_array_release(a);
        assert_ok(floe_pq_writer_write(w, batch));
        floe_batch_release(batch);
        assert_ok(floe_pq_writer_close(w, NULL));
    }
    floe_type_release(s);
}

static int setup(void **state) {
    floe_test_tmpdir(dir, sizeof dir, "sql_progress");
    setenv("FLOE_PROGRESS_DELAY_MS", "0", 1);
    setenv("FLOE_PROGRESS_PERIOD_MS", "3", 1);
    write_files();
    floe_session *s = NULL;
    assert_ok(floe_session_open(dir, &s));
    *state = s;
    return 0;
}

static int teardown(void **state) {
    floe_session_close(*state);
    return 0;
}

/* Reports are monotonic, within total, and end at total; returns how
 * many lay strictly between 0 and total. */
static int64_t check_reports(const prog_sink *p, int64_t want_total) {
    assert_true(p->n >= 1);
    assert_false(p->overlapped);
    int64_t between = 0;
    for (int64_t i = 0; i < p->n; i++) {
        if (want_total >= 0) assert_int_equal(p->total[i], want_total);
        assert_true(p->total[i] > 0);
        assert_true(p->done[i] >= 0 && p->done[i] <= p->total[i]);
        if (i) assert_true(p->done[i] >= p->done[i - 1]);
        if (p->done[i] > 0 && p->done[i] < p->total[i]) between++;
    }
    assert_int_equal(p->done[p->n - 1], p->total[p->n - 1]);
    return between;
}

static void multi_file_scan_reports_growing_progress_ending_at_total(void **state) {
    floe_session *s = *state;
    prog_sink p = {0};
    floe_result_sink k = {&p, NULL, ps_batch, NULL, ps_progress};
    char sql[1400];
    snprintf(sql, sizeof sql, "SET batch_size = 100; SELECT id FROM read_parquet('%s/part_*.parquet')", dir);
    assert_ok(floe_session_execute(s, sql, &k));
    assert_int_equal(p.rows, FILES * RGS * RG_ROWS);
    /* total: every row group of every file; several reports on the way */
    int64_t between = check_reports(&p, FILES * RGS);
    assert_true(between >= 2);
    prog_free(&p);
}

static void pruned_row_groups_count_as_done(void **state) {
    floe_session *s = *state;
    prog_sink p = {0};
    floe_result_sink k = {&p, NULL, ps_batch, NULL, ps_progress};
    char sql[1400];
    /* only the first row group of one file can match: the others are
     * pruned, and still count as done */
    snprintf(sql, sizeof sql, "SELECT id FROM read_parquet('%s/part_*.parquet') WHERE id >= 300000 AND id < 300010",
             dir);
    assert_ok(floe_session_execute(s, sql, &k));
    assert_int_equal(p.rows, 10);
    check_reports(&p, FILES * RGS);
    prog_free(&p);
}

static void no_callback_or_no_scan_reports_nothing(void **state) {
    floe_session *s = *state;
    prog_sink p = {0};
    floe_result_sink k = {&p, NULL, ps_batch, NULL, ps_progress};
    assert_ok(floe_session_execute(s, "SELECT x FROM (VALUES (1), (2), (3)) AS v(x)", &k));
    assert_int_equal(p.rows, 3);
    assert_int_equal(p.n, 0); /* no scan: no total */
    prog_free(&p);
    memset(&p, 0, sizeof p);
    /* generate_series counts its values (in units of 4096) */
    assert_ok(floe_session_execute(s, "SELECT g FROM generate_series(1, 50000) g", &k));
    assert_int_equal(p.rows, 50000);
    check_reports(&p, -1);
    prog_free(&p);
    memset(&p, 0, sizeof p);
    floe_result_sink quiet = {&p, NULL, ps_batch, NULL, NULL};
    char sql[1400];
    snprintf(sql, sizeof sql, "SELECT id FROM read_parquet('%s/part_0.parquet')", dir);
    assert_ok(floe_session_execute(s, sql, &quiet));
    assert_int_equal(p.n, 0);
    prog_free(&p);
}

static void iceberg_scan_reports_task_bytes(void **state) {
    FLOE_NEED_TESTDATA(td);
    floe_session *s = *state;
    prog_sink p = {0};
    floe_result_sink k = {&p, NULL, ps_batch, NULL, ps_progress};
    char sql[2400];
    snprintf(sql, sizeof sql,
             "SET batch_size = 1000; SELECT l_orderkey FROM iceberg_scan('%s/duckdb__duckdb-iceberg/data/persistent/"
             "iceberg/lineitem_iceberg', allow_moved_paths => true)",
             td);
    assert_ok(floe_session_execute(s, sql, &k));
    assert_int_equal(p.rows, 51793);
    check_reports(&p, -1);
    prog_free(&p);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
FLOE_TEST_MAIN(T(multi_file_scan_reports_growing_progress_ending_at_total), T(pruned_row_groups_count_as_done),
               T(no_callback_or_no_scan_reports_nothing), T(iceberg_scan_reports_task_bytes))

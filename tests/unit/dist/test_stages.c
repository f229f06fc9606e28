/*
 * test_stages.c — the dist layer without MPI: plans split into stages at
 * their exchanges, every task encoded, decoded and run on its own copy with
 * its output routed through the exchange wire format (the in-process
 * runner), give exactly the rows of the local runtime.  SQL runs through
 * two sessions on one warehouse: one local, one whose executor is the
 * in-process runner.  Also: the stage split's shape, the task codec on
 * corrupt bytes, an unbound exchange source.
 */
#include "floe_test.h"

#include <stdlib.h>

#include "base/buffer.h"
#include "dist/dist_internal.h"
#include "floe/exec_ops.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "floe/session.h"
#include "io/credentials.h"

/* ---- a sink rendering rows as text lines --------------------------------- */

typedef struct text_sink {
    floe_buf rows;
} text_sink;

static floe_status ts_batch(void *arg, const floe_batch *b) {
    text_sink *t = arg;
    for (int64_t r = 0; r < b->num_rows; r++) {
        for (int32_t c = 0; c < b->num_columns; c++) {
            if (c) FLOE_TRY(floe_buf_append_byte(&t->rows, '|'));
            FLOE_TRY(floe_format_value(b->columns[c], r, &t->rows));
        }
        FLOE_TRY(floe_buf_append_byte(&t->rows, '\n'));
    }
    return NULL;
}

static int cmp_lines(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows of `sql` as text, lines sorted when `sort`. */
static char *run(floe_session *s, const char *sql, bool sort) {
    text_sink t;
    floe_buf_init(&t.rows);
    floe_result_sink k = {&t, NULL, ts_batch, NULL, NULL};
    floe_status st = floe_session_execute(s, sql, &k);
    if (st) fail_msg("%s: %s", sql, floe_status_message(st));
    char *text = (char *)floe_buf_detach(&t.rows, NULL);
    if (!text) text = floe_strdup("");
    if (!sort) return text;
    int n = 0;
    for (char *p = text; *p; p++) n += *p == '\n';
    char **lines = calloc((size_t)n + 1, sizeof *lines);
    int i = 0;
    for (char *p = strtok(text, "\n"); p; p = strtok(NULL, "\n")) lines[i++] = p;
    qsort(lines, (size_t)i, sizeof *lines, cmp_lines);
    floe_buf out = FLOE_BUF_INIT;
    for (int j = 0; j < i; j++) {
        assert_ok(floe_buf_append_str(&out, lines[j]));
        assert_ok(floe_buf_append_byte(&out, '\n'));
    }
    free(lines);
    floe_free(text);
    char *sorted = (char *)floe_buf_detach(&out, NULL);
    return sorted ? sorted : floe_strdup("");
}

/* ---- fixture: a local session and an in-process distributed one -------- */

typedef struct fixture {
    floe_session *local, *dist;
    char dir[1024];
} fixture;

static floe_status inproc_open(void *arg, const floe_plan *plan, const floe_exec_ctx *ctx, floe_stream **out) {
    (void)arg;
    return floe_dist_open_inprocess(plan, ctx, out);
}

static const floe_plan_executor k_inproc = {NULL, inproc_open, 3, NULL, NULL};

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    floe_test_tmpdir(f->dir, sizeof f->dir, "dist_stages");
    assert_ok(floe_session_open(f->dir, &f->local));
    floe_session_set_default_executor(&k_inproc);
    assert_ok(floe_session_open(f->dir, &f->dist));
    floe_session_set_default_executor(NULL);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    floe_session_close(f->local);
    floe_session_close(f->dist);
    free(f);
    return 0;
}

/* The same query in both sessions returns the same rows. */
static void same_rows(fixture *f, const char *sql, bool ordered) {
    char *want = run(f->local, sql, !ordered);
    char *got = run(f->dist, sql, !ordered);
    if (strcmp(want, got) != 0) fail_msg("%s\nlocal:\n%s\ndistributed:\n%s", sql, want, got);
    assert_true(strlen(want) > 0);
    floe_free(want);
    floe_free(got);
}

static const char *k_gen = "generate_series(1, 20000) t(x)";

static void filter_and_projection_match_local(void **state) {
    fixture *f = *state;
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT x, x * 2 AS y, 'v' || CAST(x %% 13 AS varchar) FROM %s WHERE x %% 7 = 3", k_gen);
    same_rows(f, sql, false);
}

static void group_by_matches_local(void **state) {
    fixture *f = *state;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT x %% 101 AS k, count(*), sum(x), min(x), max(x), avg(x) FROM %s GROUP BY 1", k_gen);
    same_rows(f, sql, false);
    snprintf(sql, sizeof sql, "SELECT count(*), sum(x) FROM %s WHERE x > 500", k_gen);
    same_rows(f, sql, false);
}

static void order_by_matches_local_in_order(void **state) {
    fixture *f = *state;
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT x %% 97 AS k, x FROM %s ORDER BY k DESC, x", k_gen);
    same_rows(f, sql, true);
    snprintf(sql, sizeof sql, "SELECT x FROM %s ORDER BY x DESC LIMIT 17", k_gen);
    same_rows(f, sql, true);
}

static void joins_match_local(void **state) {
    fixture *f = *state;
    /* a small side (broadcast build) and two large sides (both hashed) */
    same_rows(f,
              "SELECT a.x, b.y FROM generate_series(1, 5000) a(x) JOIN generate_series(1, 50) b(y) "
              "ON a.x % 50 = b.y",
              false);
    same_rows(f,
              "SELECT count(*), sum(a.x + b.y) FROM generate_series(1, 30000) a(x) "
              "JOIN generate_series(1, 30000) b(y) ON a.x = b.y + 1",
              false);
}

static void parquet_scan_matches_local(void **state) {
    fixture *f = *state;
    char sql[2048];
    snprintf(sql, sizeof sql,
             "COPY (SELECT x, x %% 10 AS g, CAST(x AS varchar) AS s FROM generate_series(1, 30000) t(x)) "
             "TO '%s/t.parquet'",
             f->dir);
    char *ignored = run(f->local, sql, false);
    floe_free(ignored);
    snprintf(sql, sizeof sql, "SELECT g, count(*), sum(x), max(s) FROM read_parquet('%s/t.parquet') GROUP BY g",
             f->dir);
    same_rows(f, sql, false);
    snprintf(sql, sizeof sql, "SELECT x, s FROM read_parquet('%s/t.parquet') WHERE g = 4 ORDER BY x DESC", f->dir);
    same_rows(f, sql, true);
}

static void iceberg_scan_matches_local(void **state) {
    FLOE_NEED_TESTDATA(td);
    fixture *f = *state;
    char sql[2400];
    const char *t = "duckdb__duckdb-iceberg/data/persistent/iceberg/lineitem_iceberg";
    snprintf(sql, sizeof sql,
             "SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity), avg(l_extendedprice) "
             "FROM iceberg_scan('%s/%s', allow_moved_paths => true) WHERE l_shipdate <= date '1998-09-02' "
             "GROUP BY 1, 2",
             td, t);
    same_rows(f, sql, false);
}

/* ---- the split itself ------------------------------------------------------ */

static floe_plan *series_agg_plan(void) {
    /* Coalesce(Final(Repartition(Partial(Values)))) over 4 partitions */
    floe_plan *vals = NULL, *partial = NULL, *rep = NULL, *final = NULL, *root = NULL;
    floe_field fld;
    assert_ok(floe_field_init(&fld, "x", floe_type_primitive(FLOE_TYPE_INT64), true, -1));
    floe_schema *schema = NULL;
    assert_ok(floe_type_struct(&fld, 1, &schema));
    floe_field_clear(&fld);
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), 100, &b));
    for (int i = 0; i < 100; i++) assert_ok(floe_builder_append_int64(b, i % 10));
    floe_array *col = NULL;
    assert_ok(floe_builder_finish(b, &col));
    floe_builder_free(b);
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(schema, &col, 1, 100, &batch));
    floe_batch *batches[4] = {batch, batch, batch, batch};
    assert_ok(floe_plan_values(schema, batches, 4, 4, &vals));
    floe_expr *key = NULL;
    assert_ok(floe_expr_column(0, &key));
    const char *gname = "x";
    floe_agg_call call = {FLOE_AGG_COUNT_STAR, false, NULL, (char *)"n", NULL, NULL, NULL, 0, NULL};
    assert_ok(floe_plan_hash_aggregate(vals, FLOE_AGG_MODE_PARTIAL, &key, &gname, 1, &call, 1, schema, &partial));
    floe_expr *k0 = NULL;
    assert_ok(floe_expr_column(0, &k0));
    assert_ok(floe_plan_repartition(partial, FLOE_REPARTITION_HASH, &k0, 1, 3, &rep));
    assert_ok(floe_plan_hash_aggregate(rep, FLOE_AGG_MODE_FINAL, &k0, &gname, 1, &call, 1, schema, &final));
    assert_ok(floe_plan_coalesce(final, &root));
    floe_plan_release(vals);
    floe_plan_release(partial);
    floe_plan_release(rep);
    floe_plan_release(final);
    floe_expr_release(key);
    floe_expr_release(k0);
    floe_array_release(col);
    floe_batch_release(batch);
    floe_type_release(schema);
    return root;
}

static void aggregate_plan_splits_into_three_stages(void **state) {
    (void)state;
    floe_plan *root = series_agg_plan();
    dist_stages *s = NULL;
    assert_ok(dist_split_stages(root, &s));
    assert_int_equal(s->n, 3);
    /* stage 0: partial aggregate, 4 tasks hashed into 3 */
    assert_int_equal(s->stages[0].plan->n_partitions, 4);
    assert_int_equal(s->stages[0].route.kind, DIST_ROUTE_HASH);
    assert_int_equal(s->stages[0].route.n_out, 3);
    assert_int_equal(s->stages[0].n_deps, 0);
    /* stage 1: final aggregate over the exchange, gathered */
    assert_string_equal(floe_plan_type_name(s->stages[1].plan), "HashAggregate");
    assert_true(dist_is_exchange_source(s->stages[1].plan->children[0]));
    assert_int_equal(s->stages[1].plan->n_partitions, 3);
    assert_int_equal(s->stages[1].route.kind, DIST_ROUTE_GATHER);
    assert_int_equal(s->stages[1].n_deps, 1);
    assert_int_equal(s->stages[1].deps[0], 0);
    /* root: just the gathered source */
    assert_true(dist_is_exchange_source(s->stages[2].plan));
    dist_stages_free(s);

    floe_buf text = FLOE_BUF_INIT;
    assert_ok(floe_dist_explain_stages(root, &text));
    assert_non_null(strstr(floe_buf_cstr(&text), "Stage 0: 4 tasks on workers, hash into 3 partitions"));
    assert_non_null(strstr(floe_buf_cstr(&text), "Stage 2: 1 task on rank 0"));
    floe_buf_free(&text);

    /* and the in-process run counts 10 groups of 40 */
    floe_exec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.batch_size = 7;
    floe_stream *st = NULL;
    assert_ok(floe_dist_open_inprocess(root, &ctx, &st));
    int64_t groups = 0, total = 0;
    for (;;) {
        floe_batch *b = NULL;
        assert_ok(floe_stream_next(st, &b));
        if (!b) break;
        groups += b->num_rows;
        for (int64_t r = 0; r < b->num_rows; r++) total += floe_array_get_int64(b->columns[1], r);
        floe_batch_release(b);
    }
    floe_stream_close(st);
    assert_int_equal(groups, 10);
    assert_int_equal(total, 400);
    floe_plan_release(root);
}

static void truncated_task_message_is_an_error(void **state) {
    (void)state;
    floe_plan *root = series_agg_plan();
    dist_stages *s = NULL;
    assert_ok(dist_split_stages(root, &s));
    dist_part_data ***store = NULL;
    assert_ok(dist_store_new(s, &store));
    dist_task_msg t;
    memset(&t, 0, sizeof t);
    t.query_id = 5;
    t.task_id = 9;
    t.stage_id = 1;
    t.partition = 2;
    t.batch_size = 100;
    t.route = s->stages[1].route;
    uint8_t blob_bad[3] = {1, 2, 3};
    uint8_t *blob = floe_malloc(3);
    memcpy(blob, blob_bad, 3);
    assert_ok(dist_part_data_add(store[0][2], blob, 3));
    floe_buf msg = FLOE_BUF_INIT;
    assert_ok(dist_task_encode(&t, s->stages[1].plan, store, NULL, &msg));
    dist_task_msg got;
    assert_ok(dist_task_decode(msg.data, msg.len, &got));
    assert_int_equal(got.query_id, 5);
    assert_int_equal(got.task_id, 9);
    assert_int_equal(got.partition, 2);
    assert_int_equal(got.route.kind, DIST_ROUTE_GATHER);
    /* the bound garbage blob fails cleanly when the task runs */
    floe_exec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.batch_size = 100;
    dist_task_stats stats;
    floe_execution *x = NULL;
    assert_ok(floe_execution_begin(&ctx, &x));
    assert_ok(dist_task_bind_inline(&got, &ctx));
    floe_status st = dist_task_run(got.plan, got.partition, &got.route, &ctx, 0, false, NULL, NULL, &stats);
    floe_execution_end(x);
    assert_non_null(st);
    assert_non_null(strstr(floe_status_message(st), "exchange data blob 0"));
    floe_status_free(st);
    dist_task_msg_clear(&got);
    for (size_t cut = 0; cut < msg.len; cut += 7) {
        st = dist_task_decode(msg.data, cut, &got);
        if (!st) fail_msg("a task message cut to %zu of %zu bytes decoded", cut, msg.len);
        floe_status_free(st);
    }
    floe_buf_free(&msg);
    dist_store_free(s, store);
    dist_stages_free(s);
    floe_plan_release(root);
}

static void remote_inputs_name_their_holders(void **state) {
    (void)state;
    floe_plan *root = series_agg_plan();
    dist_stages *s = NULL;
    assert_ok(dist_split_stages(root, &s));
    dist_part_data ***store = NULL;
    assert_ok(dist_store_new(s, &store));
    /* exchange 0 (the partial aggregate's output) is held by ranks 2 and 5 */
    int32_t n_holders[3] = {2, 0, 0};
    int32_t ranks[2] = {2, 5};
    int32_t *holders[3] = {ranks, NULL, NULL};
    dist_holders h = {n_holders, holders, NULL};
    dist_task_msg t;
    memset(&t, 0, sizeof t);
    t.query_id = 1;
    t.stage_id = 1;
    t.partition = 1;
    t.batch_size = 10;
    t.keep_output = true;
    t.route = s->stages[1].route;
    floe_buf msg = FLOE_BUF_INIT;
    assert_ok(dist_task_encode(&t, s->stages[1].plan, store, &h, &msg));
    dist_task_msg got;
    assert_ok(dist_task_decode(msg.data, msg.len, &got));
    assert_true(got.keep_output);
    assert_int_equal(got.n_remote, 1);
    assert_int_equal(got.remote[0].exchange, 0);
    assert_int_equal(got.remote[0].part, 1);
    assert_int_equal(got.remote[0].n_holders, 2);
    assert_int_equal(got.remote[0].holders[0], 2);
    assert_int_equal(got.remote[0].holders[1], 5);
    assert_true(dist_is_exchange_source(got.remote[0].source));
    dist_task_msg_clear(&got);
    floe_buf_free(&msg);
    dist_store_free(s, store);
    dist_stages_free(s);
    floe_plan_release(root);
}

static void streamed_inputs_destinations_and_credentials_roundtrip(void **state) {
    (void)state;
    floe_plan *root = series_agg_plan();
    dist_stages *s = NULL;
    assert_ok(dist_split_stages(root, &s));
    dist_part_data ***store = NULL;
    assert_ok(dist_store_new(s, &store));
    /* exchange 0 streams: its producer tasks run on ranks 3, 1 and 4 */
    int32_t n_holders[3] = {3, 0, 0};
    int32_t ranks[3] = {3, 1, 4};
    int32_t *holders[3] = {ranks, NULL, NULL};
    bool streamed[3] = {true, false, false};
    dist_holders h = {n_holders, holders, streamed};
    int32_t dests[1] = {0};
    dist_task_msg t;
    memset(&t, 0, sizeof t);
    t.query_id = 2;
    t.stage_id = 1;
    t.partition = 0;
    t.batch_size = 10;
    t.route = s->stages[1].route;
    t.n_dests = t.route.n_out;
    assert_int_equal(t.n_dests, 1);
    t.dests = dests;
    t.blob_target = 65536;
    t.window = 2;
    const uint8_t creds[5] = {1, 2, 0, 3, 4}; /* opaque to the codec */
    t.creds = creds;
    t.creds_len = sizeof creds;
    floe_buf msg = FLOE_BUF_INIT;
    assert_ok(dist_task_encode(&t, s->stages[1].plan, store, &h, &msg));
    dist_task_msg got;
    assert_ok(dist_task_decode(msg.data, msg.len, &got));
    assert_int_equal(got.n_dests, 1);
    assert_int_equal(got.dests[0], 0);
    assert_int_equal(got.blob_target, 65536);
    assert_int_equal(got.window, 2);
    assert_int_equal(got.creds_len, sizeof creds);
    assert_memory_equal(got.creds, creds, sizeof creds);
    assert_int_equal(got.n_remote, 1);
    assert_true(got.remote[0].streamed);
    assert_int_equal(got.remote[0].n_holders, 3);
    assert_int_equal(got.remote[0].holders[2], 4);
    dist_task_msg_clear(&got);
    floe_buf_free(&msg);
    dist_store_free(s, store);
    dist_stages_free(s);
    floe_plan_release(root);
}

/* What a worker does with a task: the coordinator's credential store,
 * exported into the task message, is imported on the other side. */
static void task_messages_carry_the_credential_store(void **state) {
    (void)state;
    const floe_property props[2] = {{"s3.access-key-id", "AKIDTEST"}, {"s3.secret-access-key", "s3cr3t"}};
    assert_ok(floe_credentials_put("dist-test#db.t", props, 2, 4102444800000LL));
    floe_buf creds = FLOE_BUF_INIT;
    assert_ok(floe_credentials_export(&creds));
    floe_plan *root = series_agg_plan();
    dist_stages *s = NULL;
    assert_ok(dist_split_stages(root, &s));
    dist_part_data ***store = NULL;
    assert_ok(dist_store_new(s, &store));
    dist_task_msg t;
    memset(&t, 0, sizeof t);
    t.stage_id = 0;
    t.batch_size = 10;
    t.route = s->stages[0].route;
    t.creds = creds.data;
    t.creds_len = creds.len;
    floe_buf msg = FLOE_BUF_INIT;
    assert_ok(dist_task_encode(&t, s->stages[0].plan, store, NULL, &msg));
    floe_credentials_forget("dist-test#db.t");
    dist_task_msg got;
    assert_ok(dist_task_decode(msg.data, msg.len, &got));
    assert_ok(floe_credentials_import(got.creds, got.creds_len));
    floe_property *back = NULL;
    size_t n = 0;
    int64_t expires = 0;
    int found = 0;
    assert_ok(floe_credentials_lookup("dist-test#db.t", &back, &n, &expires, &found));
    assert_true(found);
    assert_int_equal(expires, 4102444800000LL);
    bool key = false;
    for (size_t i = 0; i < n; i++) key = key || (strcmp(back[i].key, "s3.access-key-id") == 0 &&
                                                 strcmp(back[i].value, "AKIDTEST") == 0);
    assert_true(key);
    floe_properties_free(back, n);
    floe_credentials_forget("dist-test#db.t");
    dist_task_msg_clear(&got);
    floe_buf_free(&msg);
    floe_buf_free(&creds);
    dist_store_free(s, store);
    dist_stages_free(s);
    floe_plan_release(root);
}

static void unbound_exchange_source_is_an_error(void **state) {
    (void)state;
    floe_field fld;
    assert_ok(floe_field_init(&fld, "x", floe_type_primitive(FLOE_TYPE_INT64), true, -1));
    floe_schema *schema = NULL;
    assert_ok(floe_type_struct(&fld, 1, &schema));
    floe_field_clear(&fld);
    floe_plan *src = NULL;
    assert_ok(dist_exchange_source(schema, 4, 2, &src));
    floe_plan *copy = NULL;
    assert_ok(floe_plan_roundtrip(src, &copy));
    assert_int_equal(floe_plan_partitions(copy), 2);
    floe_exec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    floe_stream *st = NULL;
    assert_error(floe_plan_execute(copy, 1, &ctx, &st), FLOE_ERR_INVALID_ARGUMENT, "outside an execution");
    floe_execution *x = NULL;
    assert_ok(floe_execution_begin(&ctx, &x));
    assert_error(floe_plan_execute(copy, 1, &ctx, &st), FLOE_ERR_INTERNAL, "no data bound");
    floe_execution_end(x);
    floe_plan_release(copy);
    floe_plan_release(src);
    floe_type_release(schema);
}

FLOE_TEST_MAIN(cmocka_unit_test(aggregate_plan_splits_into_three_stages),
               cmocka_unit_test(truncated_task_message_is_an_error),
               cmocka_unit_test(remote_inputs_name_their_holders),
               cmocka_unit_test(streamed_inputs_destinations_and_credentials_roundtrip),
               cmocka_unit_test(task_messages_carry_the_credential_store),
               cmocka_unit_test(unbound_exchange_source_is_an_error),
               cmocka_unit_test_setup_teardown(filter_and_projection_match_local, setup, teardown),
               cmocka_unit_test_setup_teardown(group_by_matches_local, setup, teardown),
               cmocka_unit_test_setup_teardown(order_by_matches_local_in_order, setup, teardown),
               cmocka_unit_test_setup_teardown(joins_match_local, setup, teardown),
               cmocka_unit_test_setup_teardown(parquet_scan_matches_local, setup, teardown),
               cmocka_unit_test_setup_teardown(iceberg_scan_matches_local, setup, teardown))

/*
 * test_messages.c — the messages of the MPI runtime (src/dist/messages.c)
 * without MPI: every kind encoded and decoded back to the same fields,
 * blobs and texts intact and moved in place, a worker's error with its
 * floe_code, and short or out-of-range messages refused as corrupt rather
 * than read past their end.
 */
#include "floe_test.h"

#include "dist/dist_internal.h"
#include "dist/messages.h"
#include "floe/exec_ops.h"
#include "floe/memory.h"

static void every_tag_has_a_name(void **state) {
    (void)state;
    for (int tag = DIST_MSG_TASK; tag <= DIST_MSG_CHECKED; tag++) assert_string_not_equal(dist_msg_name(tag), "?");
    assert_string_equal(dist_msg_name(0), "?");
    assert_string_equal(dist_msg_name(DIST_MSG_ERROR), "ERROR");
}

static void out_and_data_carry_their_blob(void **state) {
    (void)state;
    const uint8_t blob[] = {1, 2, 3, 4, 5, 250};
    dist_msg_out o = {41, 7, 3, blob, sizeof blob};
    uint8_t *buf = NULL;
    size_t len = 0;
    assert_ok(dist_msg_out_encode(&o, &buf, &len));
    assert_int_equal(len, 24 + sizeof blob);
    dist_msg_out d;
    assert_ok(dist_msg_out_decode(buf, len, &d));
    assert_int_equal(d.query, 41);
    assert_int_equal(d.task, 7);
    assert_int_equal(d.bucket, 3);
    assert_int_equal(d.blob_len, sizeof blob);
    assert_memory_equal(d.blob, blob, sizeof blob);
    /* the blob moves to the buffer's start: the buffer becomes the blob */
    uint8_t *b = dist_msg_blob_in_place(buf, d.blob, d.blob_len);
    assert_ptr_equal(b, buf);
    assert_memory_equal(b, blob, sizeof blob);
    floe_free(buf);

    dist_msg_data m = {42, -9, blob, sizeof blob};
    assert_ok(dist_msg_data_encode(&m, &buf, &len));
    dist_msg_data md;
    assert_ok(dist_msg_data_decode(buf, len, &md));
    assert_int_equal(md.query, 42);
    assert_int_equal(md.id, -9);
    assert_int_equal(md.blob_len, sizeof blob);
    assert_memory_equal(md.blob, blob, sizeof blob);
    assert_error(dist_msg_data_decode(buf, 15, &md), FLOE_ERR_CORRUPT, "DATA message of 15 bytes");
    floe_free(buf);
}

static void done_keeps_its_statistics_and_node_metrics(void **state) {
    (void)state;
    dist_msg_done m = {5, 11, 1000, 65536, 3, 1234, 1 << 20, 17, NULL, 0};
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(dist_msg_done_put(&m, &b));
    dist_msg_done d;
    assert_ok(dist_msg_done_decode(b.data, b.len, &d));
    assert_int_equal(d.query, 5);
    assert_int_equal(d.task, 11);
    assert_int_equal(d.rows, 1000);
    assert_int_equal(d.bytes, 65536);
    assert_int_equal(d.batches, 3);
    assert_int_equal(d.elapsed_us, 1234);
    assert_int_equal(d.peak_xbytes, 1 << 20);
    assert_int_equal(d.waited_us, 17);
    assert_null(d.node_stats);
    /* EXPLAIN ANALYZE: two nodes of DIST_NODE_FIELDS numbers follow */
    assert_ok(floe_codec_put_i64(&b, 2));
    for (int i = 0; i < 2 * DIST_NODE_FIELDS; i++) assert_ok(floe_codec_put_i64(&b, 100 + i));
    assert_ok(dist_msg_done_decode(b.data, b.len, &d));
    assert_non_null(d.node_stats);
    dist_msg_node_stats ns;
    assert_ok(dist_msg_node_stats_decode(d.node_stats, d.node_stats_len, &ns));
    assert_int_equal(ns.count, 2);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < DIST_NODE_FIELDS; k++)
            assert_int_equal(dist_msg_node_stat(&ns, i, k), 100 + i * DIST_NODE_FIELDS + k);
    /* a count the bytes do not hold */
    assert_error(dist_msg_node_stats_decode(d.node_stats, d.node_stats_len - 8, &ns), FLOE_ERR_CORRUPT, "2 nodes");
    assert_error(dist_msg_done_decode(b.data, 63, &d), FLOE_ERR_CORRUPT, "DONE message of 63 bytes");
    floe_buf_free(&b);
}

static void error_keeps_its_code_and_text(void **state) {
    (void)state;
    const char *text = "reading 'x.parquet': column 'a': bad RLE run";
    dist_msg_error m = {9, 4, FLOE_ERR_CORRUPT, text, strlen(text)};
    uint8_t *buf = NULL;
    size_t len = 0;
    assert_ok(dist_msg_error_encode(&m, &buf, &len));
    dist_msg_error d;
    assert_ok(dist_msg_error_decode(buf, len, &d));
    assert_int_equal(d.query, 9);
    assert_int_equal(d.task, 4);
    assert_int_equal(d.code, FLOE_ERR_CORRUPT);
    assert_int_equal(d.text_len, strlen(text));
    assert_memory_equal(d.text, text, strlen(text));
    assert_error(dist_msg_error_decode(buf, 16, &d), FLOE_ERR_CORRUPT, "ERROR message of 16 bytes");
    floe_free(buf);
}

/* Every code a worker can fail with reaches the coordinator as itself; a
 * code the coordinator does not know (or none) is an internal error. */
static void error_carries_every_code(void **state) {
    (void)state;
    /* the last code: if floe_code grows, messages.c's LAST_CODE must too */
    assert_string_equal(floe_code_name((floe_code)(FLOE_ERR_COMMIT_UNKNOWN + 1)), "unknown error");
    for (int c = FLOE_ERR_INVALID_ARGUMENT; c <= FLOE_ERR_COMMIT_UNKNOWN; c++) {
        dist_msg_error m = {1, 2, (floe_code)c, "x", 1}, d;
        uint8_t *buf = NULL;
        size_t len = 0;
        assert_ok(dist_msg_error_encode(&m, &buf, &len));
        assert_ok(dist_msg_error_decode(buf, len, &d));
        assert_int_equal(d.code, c);
        floe_free(buf);
    }
    const floe_code odd[] = {FLOE_OK, (floe_code)(FLOE_ERR_COMMIT_UNKNOWN + 1), (floe_code)-3};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        dist_msg_error m = {1, 2, odd[i], NULL, 0}, d;
        uint8_t *buf = NULL;
        size_t len = 0;
        assert_ok(dist_msg_error_encode(&m, &buf, &len));
        assert_ok(dist_msg_error_decode(buf, len, &d));
        assert_int_equal(d.code, FLOE_ERR_INTERNAL);
        assert_int_equal(d.text_len, 0);
        floe_free(buf);
    }
}

static void small_messages_round_trip(void **state) {
    (void)state;
    uint8_t *buf = NULL;
    size_t len = 0;
    int64_t q = 0;
    assert_ok(dist_msg_cancel_encode(123, &buf, &len));
    assert_ok(dist_msg_cancel_decode(buf, len, &q));
    assert_int_equal(q, 123);
    floe_free(buf);

    assert_ok(dist_msg_empty_encode(DIST_MSG_STOP, &buf, &len));
    assert_int_equal(len, 0);
    floe_free(buf);

    dist_msg_fetch f = {3, 77, 2, 5}, fd;
    assert_ok(dist_msg_fetch_encode(&f, &buf, &len));
    assert_ok(dist_msg_fetch_decode(buf, len, &fd));
    assert_int_equal(fd.query, 3);
    assert_int_equal(fd.id, 77);
    assert_int_equal(fd.exchange, 2);
    assert_int_equal(fd.part, 5);
    floe_free(buf);
    f.part = -1;
    assert_ok(dist_msg_fetch_encode(&f, &buf, &len));
    assert_error(dist_msg_fetch_decode(buf, len, &fd), FLOE_ERR_CORRUPT, "partition -1 out of range");
    floe_free(buf);

    dist_msg_fetch_end e = {3, 77, true}, ed;
    assert_ok(dist_msg_fetch_end_encode(&e, &buf, &len));
    assert_ok(dist_msg_fetch_end_decode(buf, len, &ed));
    assert_int_equal(ed.query, 3);
    assert_int_equal(ed.id, 77);
    assert_true(ed.failed);
    floe_free(buf);

    dist_msg_credit c = {8, 1, 6, 2, 2}, cd;
    assert_ok(dist_msg_credit_encode(&c, &buf, &len));
    assert_ok(dist_msg_credit_decode(buf, len, &cd));
    assert_int_equal(cd.query, 8);
    assert_int_equal(cd.exchange, 1);
    assert_int_equal(cd.producer, 6);
    assert_int_equal(cd.part, 2);
    assert_int_equal(cd.n, 2);
    assert_error(dist_msg_credit_decode(buf, len - 1, &cd), FLOE_ERR_CORRUPT, "CREDIT message");
    floe_free(buf);
}

static void stream_carries_a_blob_or_the_end(void **state) {
    (void)state;
    const uint8_t blob[100] = {9, 8, 7};
    dist_msg_stream m = {12, 1, 3, 4, false, blob, sizeof blob}, d;
    uint8_t *buf = NULL;
    size_t len = 0;
    assert_ok(dist_msg_stream_encode(&m, &buf, &len));
    assert_int_equal(len, DIST_MSG_STREAM_HEAD + sizeof blob);
    assert_ok(dist_msg_stream_decode(buf, len, &d));
    assert_int_equal(d.query, 12);
    assert_int_equal(d.exchange, 1);
    assert_int_equal(d.part, 3);
    assert_int_equal(d.producer, 4);
    assert_false(d.end);
    assert_int_equal(d.blob_len, sizeof blob);
    assert_memory_equal(dist_msg_blob_in_place(buf, d.blob, d.blob_len), blob, sizeof blob);
    floe_free(buf);
    dist_msg_stream end = {12, 1, 3, 4, true, NULL, 0};
    assert_ok(dist_msg_stream_encode(&end, &buf, &len));
    assert_int_equal(len, DIST_MSG_STREAM_HEAD);
    assert_ok(dist_msg_stream_decode(buf, len, &d));
    assert_true(d.end);
    assert_int_equal(d.blob_len, 0);
    floe_free(buf);
}

static void check_and_checked_round_trip(void **state) {
    (void)state;
    dist_msg_check_file files[2] = {{4096, 1700000000, "/data/a.parquet"}, {0, 5, "b"}};
    dist_msg_check m = {6, 2, files}, d;
    uint8_t *buf = NULL;
    size_t len = 0;
    assert_ok(dist_msg_check_encode(&m, &buf, &len));
    assert_ok(dist_msg_check_decode(buf, len, &d));
    assert_int_equal(d.query, 6);
    assert_int_equal(d.n, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(d.files[i].size, files[i].size);
        assert_int_equal(d.files[i].mtime, files[i].mtime);
        assert_string_equal(d.files[i].path, files[i].path);
    }
    dist_msg_check_clear(&d);
    /* cut short: refused, but the query id is known, so it can be answered */
    assert_error(dist_msg_check_decode(buf, len - 3, &d), FLOE_ERR_CORRUPT, "");
    assert_int_equal(d.query, 6);
    dist_msg_check_clear(&d);
    assert_error(dist_msg_check_decode(buf, 4, &d), FLOE_ERR_CORRUPT, "");
    assert_int_equal(d.query, -1);
    dist_msg_check_clear(&d);
    floe_free(buf);

    const char *why = "'b' is another file here";
    dist_msg_checked c = {6, false, why, strlen(why)}, cd;
    assert_ok(dist_msg_checked_encode(&c, &buf, &len));
    assert_ok(dist_msg_checked_decode(buf, len, &cd));
    assert_int_equal(cd.query, 6);
    assert_false(cd.ok);
    assert_int_equal(cd.why_len, strlen(why));
    assert_memory_equal(cd.why, why, strlen(why));
    floe_free(buf);
}

static floe_plan *values_plan(void) {
    floe_field fld;
    assert_ok(floe_field_init(&fld, "x", floe_type_primitive(FLOE_TYPE_INT64), true, -1));
    floe_schema *schema = NULL;
    assert_ok(floe_type_struct(&fld, 1, &schema));
    floe_field_clear(&fld);
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), 4, &b));
    for (int i = 0; i < 4; i++) assert_ok(floe_builder_append_int64(b, i));
    floe_array *col = NULL;
    assert_ok(floe_builder_finish(b, &col));
    floe_builder_free(b);
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(schema, &col, 1, 4, &batch));
    floe_plan *vals = NULL;
    assert_ok(floe_plan_values(schema, &batch, 1, 1, &vals));
    floe_array_release(col);
    floe_batch_release(batch);
    floe_type_release(schema);
    return vals;
}

/* A task message that does not decode is still answered: its ids are read
 * from the head of the task codec (task.c). */
static void task_ids_are_read_from_a_task_message(void **state) {
    (void)state;
    floe_plan *plan = values_plan();
    dist_task_msg t;
    memset(&t, 0, sizeof t);
    t.query_id = 21;
    t.task_id = 8;
    t.batch_size = 100;
    t.route.n_out = 1;
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(dist_task_encode(&t, plan, NULL, NULL, &b));
    int64_t q, task;
    dist_msg_task_ids(b.data, b.len, &q, &task);
    assert_int_equal(q, 21);
    assert_int_equal(task, 8);
    dist_msg_task_ids(b.data, 20, &q, &task);
    assert_int_equal(q, -1);
    assert_int_equal(task, -1);
    floe_buf_free(&b);
    floe_plan_release(plan);
}

FLOE_TEST_MAIN(cmocka_unit_test(every_tag_has_a_name), cmocka_unit_test(out_and_data_carry_their_blob),
               cmocka_unit_test(done_keeps_its_statistics_and_node_metrics), cmocka_unit_test(error_keeps_its_code_and_text),
               cmocka_unit_test(error_carries_every_code),
               cmocka_unit_test(small_messages_round_trip), cmocka_unit_test(stream_carries_a_blob_or_the_end),
               cmocka_unit_test(check_and_checked_round_trip),
               cmocka_unit_test(task_ids_are_read_from_a_task_message))

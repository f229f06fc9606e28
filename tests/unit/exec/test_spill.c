/*
 * test_spill.c — spill files: batches written and read back equal, in
 * order; nothing left in the temp directory on any exit path; errors
 * name the operator and the directory.
 */
#include <dirent.h>
#include <unistd.h>

#include "exec/spill/spill.h"
#include "exec_util.h"

/* Entries in dir other than . and .. */
static int dir_entries(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void make_dir(char *buf, size_t cap) {
    snprintf(buf, cap, "/tmp/floe-spill-test-XXXXXX");
    assert_non_null(mkdtemp(buf));
}

/* A batch of int32 "a" = start.. and a string column with some nulls. */
static floe_batch *mixed_batch(int32_t start, int64_t n) {
    floe_field f[2];
    floe_schema *s;
    assert_ok(floe_field_init(&f[0], "a", floe_type_primitive(FLOE_TYPE_INT32), true, -1));
    assert_ok(floe_field_init(&f[1], "s", floe_type_primitive(FLOE_TYPE_STRING), true, -1));
    assert_ok(floe_type_struct(f, 2, &s));
    floe_field_clear(&f[0]);
    floe_field_clear(&f[1]);
    floe_builder *ba, *bs;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT32), n, &ba));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &bs));
    for (int64_t i = 0; i < n; i++) {
        assert_ok(floe_builder_append_int32(ba, start + (int32_t)i));
        char text[32];
        snprintf(text, sizeof text, "row %lld", (long long)(start + i));
        if (i % 7 == 3) assert_ok(floe_builder_append_null(bs));
        else assert_ok(floe_builder_append_string(bs, text));
    }
    floe_array *cols[2];
    assert_ok(floe_builder_finish(ba, &cols[0]));
    assert_ok(floe_builder_finish(bs, &cols[1]));
    floe_builder_free(ba);
    floe_builder_free(bs);
    floe_batch *out;
    assert_ok(floe_batch_new(s, cols, 2, n, &out));
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
    floe_type_release(s);
    return out;
}

static void batches_round_trip_in_order_and_leave_no_file(void **state) {
    (void)state;
    char dir[64];
    make_dir(dir, sizeof dir);
    floe_spill_file *f;
    assert_ok(floe_spill_open(dir, "Sort", &f));
    assert_int_equal(dir_entries(dir), 0); /* anonymous from the start */
    floe_batch *in[3] = {mixed_batch(0, 1000), mixed_batch(1000, 1), mixed_batch(5000, 20000)};
    for (int i = 0; i < 3; i++) assert_ok(floe_spill_write(f, in[i]));
    /* a slice is written as its rows only */
    floe_batch *slice;
    assert_ok(floe_batch_slice(in[2], 100, 50, &slice));
    assert_ok(floe_spill_write(f, slice));
    assert_int_equal(floe_spill_batches(f), 4);
    assert_int_equal(floe_spill_rows(f), 21051);
    assert_true(floe_spill_bytes(f) < floe_batch_bytes(in[2]) + floe_batch_bytes(in[0])); /* compressed */
    for (int i = 0; i < 4; i++) {
        floe_batch *b;
        assert_ok(floe_spill_read(f, &b));
        assert_non_null(b);
        assert_true(floe_batch_equals(b, i < 3 ? in[i] : slice));
        floe_batch_release(b);
    }
    floe_batch *end;
    assert_ok(floe_spill_read(f, &end));
    assert_null(end);
    assert_error(floe_spill_write(f, in[0]), FLOE_ERR_INVALID_ARGUMENT, "being read");
    floe_spill_close(f);
    /* as a stream, closed before the end (the cancelled path) */
    assert_ok(floe_spill_open(dir, "HashAggregate", &f));
    for (int i = 0; i < 3; i++) assert_ok(floe_spill_write(f, in[i]));
    floe_stream *s;
    assert_ok(floe_spill_stream(f, &s));
    floe_batch *b;
    assert_ok(floe_stream_next(s, &b));
    assert_true(floe_batch_equals(b, in[0]));
    floe_batch_release(b);
    floe_stream_close(s);
    assert_int_equal(dir_entries(dir), 0);
    floe_batch_release(slice);
    for (int i = 0; i < 3; i++) floe_batch_release(in[i]);
    assert_int_equal(rmdir(dir), 0);
}

static void missing_directory_is_created_and_bad_parent_is_an_error(void **state) {
    (void)state;
    char dir[64], sub[96], bad[128];
    make_dir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/floe", dir);
    floe_spill_file *f;
    assert_ok(floe_spill_open(sub, "Sort", &f));
    floe_spill_close(f);
    assert_int_equal(dir_entries(sub), 0);
    snprintf(bad, sizeof bad, "%s/no/such/dir", dir);
    assert_error(floe_spill_open(bad, "Sort", &f), FLOE_ERR_IO, "Sort: creating the directory for a spill file in");
    assert_int_equal(rmdir(sub), 0);
    assert_int_equal(rmdir(dir), 0);
    char buf[256];
    floe_spill_dir("/x/y", buf, sizeof buf);
    assert_string_equal(buf, "/x/y");
}

static void corrupt_frame_is_an_error_naming_the_offset(void **state) {
    (void)state;
    char dir[64];
    make_dir(dir, sizeof dir);
    floe_spill_file *f;
    assert_ok(floe_spill_open(dir, "Sort", &f));
    floe_batch *b = mixed_batch(0, 100);
    assert_ok(floe_spill_write(f, b));
    assert_ok(floe_spill_write(f, b));
    /* Overwrite the second frame's magic through the file descriptor. */
    int fd = *(int *)f; /* first member */
    int64_t first = floe_spill_bytes(f) / 2;
    assert_int_equal(pwrite(fd, "XXXX", 4, (off_t)first), 4);
    floe_batch *got;
    assert_ok(floe_spill_read(f, &got));
    floe_batch_release(got);
    assert_error(floe_spill_read(f, &got), FLOE_ERR_CORRUPT, "no frame at offset");
    floe_spill_close(f);
    floe_batch_release(b);
    assert_int_equal(rmdir(dir), 0);
}

FLOE_TEST_MAIN(cmocka_unit_test(batches_round_trip_in_order_and_leave_no_file),
               cmocka_unit_test(missing_directory_is_created_and_bad_parent_is_an_error),
               cmocka_unit_test(corrupt_frame_is_an_error_naming_the_offset))

/* Column metrics of written data files, per Iceberg Java's MetricsConfig
 * modes and Parquet metrics: truncation of string bounds by code points
 * (multi-byte sequences kept whole, upper bounds incremented, dropped
 * when nothing can be incremented), binary by bytes, decimals in the
 * fewest big-endian bytes from each Parquet physical type, NaN counts,
 * nothing but sizes inside lists and maps, and the none / counts /
 * truncate(N) / full modes per column. */
#include "floe_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "floe/iceberg_data_writer.h"
#include "floe/iceberg_manifest.h"
#include "floe/memory.h"
#include "iceberg/write/data_writer_internal.h"

/* ---- truncation vectors ----------------------------------------------------------- */

static void check_trunc(const char *in, int32_t w, const char *want_lo, const char *want_hi) {
    size_t len = strlen(in);
    size_t lo = floe_ice_truncate_lower((const uint8_t *)in, len, w, true);
    assert_int_equal(lo, strlen(want_lo));
    assert_memory_equal(in, want_lo, lo);
    uint8_t out[256];
    size_t ol = 0;
    bool ok = floe_ice_truncate_upper((const uint8_t *)in, len, w, true, out, &ol);
    if (!want_hi) {
        assert_false(ok);
        return;
    }
    assert_true(ok);
    assert_int_equal(ol, strlen(want_hi));
    assert_memory_equal(out, want_hi, ol);
}

static void string_bounds_truncate_by_code_points_and_increment(void **state) {
    (void)state;
    check_trunc("abcdef", 3, "abc", "abd");
    check_trunc("abc", 3, "abc", "abc");     /* short enough: unchanged */
    check_trunc("ab", 16, "ab", "ab");
    check_trunc("ab\xE2\x82\xAC" "d", 3, "ab\xE2\x82\xAC", "ab\xE2\x82\xAD"); /* U+20AC -> U+20AD */
    check_trunc("a\xF0\x9F\x98\x80" "b", 2, "a\xF0\x9F\x98\x80", "a\xF0\x9F\x98\x81"); /* 4-byte emoji */
    check_trunc("\xC3\xA9\xC3\xA9\xC3\xA9", 2, "\xC3\xA9\xC3\xA9", "\xC3\xA9\xC3\xAA");
    check_trunc("a\x7F" "b", 2, "a\x7F", "a\xC2\x80"); /* U+007F -> U+0080 grows to two bytes */
    /* U+D7FF increments to U+E000, skipping the surrogates */
    check_trunc("\xED\x9F\xBFx", 1, "\xED\x9F\xBF", "\xEE\x80\x80");
    /* U+10FFFF cannot be incremented: the previous code point is */
    check_trunc("a\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBFz", 3, "a\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF", "b");
    check_trunc("\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBFx", 2, "\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF", NULL);
}

static void binary_bounds_truncate_by_bytes_and_increment(void **state) {
    (void)state;
    const uint8_t v[] = {1, 2, 0xFF, 7};
    assert_int_equal(floe_ice_truncate_lower(v, 4, 3, false), 3);
    uint8_t out[16];
    size_t ol;
    assert_true(floe_ice_truncate_upper(v, 4, 3, false, out, &ol));
    assert_int_equal(ol, 2);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 3);
    const uint8_t ff[] = {0xFF, 0xFF, 1};
    assert_false(floe_ice_truncate_upper(ff, 3, 2, false, out, &ol));
    assert_true(floe_ice_truncate_upper(ff, 3, 3, false, out, &ol));
    assert_int_equal(ol, 3);
}

/* ---- metrics of written files --------------------------------------------------------- */

static const char *SCHEMA =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"f\",\"required\":false,\"type\":\"float\"},"
    "{\"id\":2,\"name\":\"dd\",\"required\":false,\"type\":\"double\"},"
    "{\"id\":3,\"name\":\"d9\",\"required\":false,\"type\":\"decimal(9,2)\"},"
    "{\"id\":4,\"name\":\"d18\",\"required\":false,\"type\":\"decimal(18,4)\"},"
    "{\"id\":5,\"name\":\"d30\",\"required\":false,\"type\":\"decimal(30,2)\"},"
    "{\"id\":6,\"name\":\"s\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":7,\"name\":\"b\",\"required\":false,\"type\":\"binary\"},"
    "{\"id\":8,\"name\":\"flag\",\"required\":false,\"type\":\"boolean\"},"
    "{\"id\":9,\"name\":\"l\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":12,"
    "\"element-required\":false,\"element\":\"int\"}},"
    "{\"id\":10,\"name\":\"st\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":11,\"name\":\"x\",\"required\":false,\"type\":\"int\"}]}},"
    "{\"id\":13,\"name\":\"m\",\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":14,\"key\":\"string\","
    "\"value-id\":15,\"value-required\":false,\"value\":\"int\"}},"
    "{\"id\":17,\"name\":\"fx\",\"required\":false,\"type\":\"fixed[4]\"}]}";

static floe_decimal128 dec(int64_t hi, uint64_t lo) {
    floe_decimal128 d = {lo, hi};
    return d;
}

static floe_batch *metrics_batch(const floe_schema *ws) {
    floe_builder *b[12];
    for (int i = 0; i < 12; i++) assert_ok(floe_builder_new(ws->children[i].type, 3, &b[i]));
    /* f */
    assert_ok(floe_builder_append_float(b[0], 1.5f));
    assert_ok(floe_builder_append_float(b[0], NAN));
    assert_ok(floe_builder_append_float(b[0], -2.0f));
    /* dd */
    assert_ok(floe_builder_append_double(b[1], NAN));
    assert_ok(floe_builder_append_double(b[1], 2.5));
    assert_ok(floe_builder_append_double(b[1], NAN));
    /* d9: -1.28, 3.00, NULL */
    assert_ok(floe_builder_append_decimal(b[2], floe_decimal128_from_int64(-128)));
    assert_ok(floe_builder_append_decimal(b[2], floe_decimal128_from_int64(300)));
    assert_ok(floe_builder_append_null(b[2]));
    /* d18: 3.0000, NULL, NULL */
    assert_ok(floe_builder_append_decimal(b[3], floe_decimal128_from_int64(30000)));
    assert_ok(floe_builder_append_null(b[3]));
    assert_ok(floe_builder_append_null(b[3]));
    /* d30: unscaled -2^70 - 5, 5.00, -0.01 */
    assert_ok(floe_builder_append_decimal(b[4], dec(-65, UINT64_MAX - 4)));
    assert_ok(floe_builder_append_decimal(b[4], floe_decimal128_from_int64(500)));
    assert_ok(floe_builder_append_decimal(b[4], floe_decimal128_from_int64(-1)));
    /* s: 20 'a' + euro, 15 'b' + two euros, NULL */
    assert_ok(floe_builder_append_string(b[5], "aaaaaaaaaaaaaaaaaaaa\xE2\x82\xAC"));
    assert_ok(floe_builder_append_string(b[5], "bbbbbbbbbbbbbbb\xE2\x82\xAC\xE2\x82\xAC"));
    assert_ok(floe_builder_append_null(b[5]));
    /* b: {1,2,3}, 20 x 0xFF, {} */
    uint8_t ff[20];
    memset(ff, 0xFF, sizeof ff);
    assert_ok(floe_builder_append_binary(b[6], "\x01\x02\x03", 3));
    assert_ok(floe_builder_append_binary(b[6], ff, 20));
    assert_ok(floe_builder_append_binary(b[6], "\x05", 1));
    /* flag */
    assert_ok(floe_builder_append_bool(b[7], true));
    assert_ok(floe_builder_append_bool(b[7], false));
    assert_ok(floe_builder_append_null(b[7]));
    /* l: [1, 2], [3], NULL */
    floe_builder *le = floe_builder_child(b[8], 0);
    assert_ok(floe_builder_append_int32(le, 1));
    assert_ok(floe_builder_append_int32(le, 2));
    assert_ok(floe_builder_append_list(b[8]));
    assert_ok(floe_builder_append_int32(le, 3));
    assert_ok(floe_builder_append_list(b[8]));
    assert_ok(floe_builder_append_null(b[8]));
    /* st: {x: 5}, NULL, {x: 7} */
    floe_builder *sx = floe_builder_child(b[9], 0);
    assert_ok(floe_builder_append_int32(sx, 5));
    assert_ok(floe_builder_append_valid(b[9]));
    assert_ok(floe_builder_append_null(b[9]));
    assert_ok(floe_builder_append_int32(sx, 7));
    assert_ok(floe_builder_append_valid(b[9]));
    /* m: {k: 1}, {}, NULL */
    assert_ok(floe_builder_append_string(floe_builder_map_keys(b[10]), "k"));
    assert_ok(floe_builder_append_int32(floe_builder_map_values(b[10]), 1));
    assert_ok(floe_builder_append_map(b[10]));
    assert_ok(floe_builder_append_map(b[10]));
    assert_ok(floe_builder_append_null(b[10]));
    /* fx */
    assert_ok(floe_builder_append_fixed(b[11], "\x00\x01\x02\x03"));
    assert_ok(floe_builder_append_fixed(b[11], "\x09\x09\x09\x09"));
    assert_ok(floe_builder_append_null(b[11]));
    floe_array *cols[12];
    for (int i = 0; i < 12; i++) {
        assert_ok(floe_builder_finish(b[i], &cols[i]));
        floe_builder_free(b[i]);
    }
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new((floe_schema *)ws, cols, 12, 3, &batch));
    for (int i = 0; i < 12; i++) floe_array_release(cols[i]);
    return batch;
}

typedef struct written {
    floe_ice_schema *schema;
    floe_arena arena;
    floe_ice_data_file df;
} written;

/* Write the metrics batch to a table with `props` and decode its record. */
static written *write_with(const char *test, const char *const *props, int32_t n_props) {
    written *r = calloc(1, sizeof *r);
    char dir[1024];
    floe_test_tmpdir(dir, sizeof dir, test);
    assert_ok(floe_ice_schema_from_json_text(SCHEMA, &r->schema));
    floe_fileio *io = NULL;
    assert_ok(floe_fileio_new(NULL, 0, &io));
    floe_ice_write_target t = {0};
    t.location = dir;
    t.format_version = 2;
    t.schema = r->schema;
    t.properties = props;
    t.n_properties = n_props;
    floe_ice_write_settings *s = NULL;
    assert_ok(floe_ice_write_settings_new(&t, &s));
    floe_ice_rolling_writer *w = NULL;
    assert_ok(floe_ice_rolling_writer_open(io, &t, s, NULL, 0, "00000-m", NULL, &w));
    floe_batch *b = metrics_batch(s->write_schema);
    assert_ok(floe_ice_rolling_writer_write(w, b));
    floe_batch_release(b);
    floe_ice_written_files out = {0};
    assert_ok(floe_ice_rolling_writer_finish(w, &out));
    floe_ice_rolling_writer_free(w, false);
    assert_int_equal(out.n, 1);
    floe_arena_init(&r->arena, 0);
    floe_ice_data_file_codec *c = NULL;
    assert_ok(floe_ice_data_file_codec_new(s->partition_type, 2, &c));
    assert_ok(floe_ice_data_file_decode(c, out.records[0], out.lens[0], &r->arena, &r->df));
    floe_ice_data_file_codec_free(c);
    floe_ice_written_files_free(&out);
    floe_ice_write_settings_free(s);
    floe_fileio_free(io);
    return r;
}

static void written_free(written *r) {
    floe_arena_destroy(&r->arena);
    floe_ice_schema_free(r->schema);
    free(r);
}

static int64_t count_of(const floe_ice_count_map *m, int32_t id) {
    for (int32_t i = 0; i < m->n; i++)
        if (m->keys[i] == id) return m->values[i];
    return -1;
}

static const uint8_t *bound(const floe_ice_bound_map *m, int32_t id, uint32_t *len) {
    for (int32_t i = 0; i < m->n; i++)
        if (m->keys[i] == id) {
            *len = m->lens[i];
            return m->values[i];
        }
    *len = 0;
    return NULL;
}

static void assert_bound(const floe_ice_bound_map *m, int32_t id, const void *want, uint32_t want_len) {
    uint32_t len;
    const uint8_t *b = bound(m, id, &len);
    assert_non_null(b);
    assert_int_equal(len, want_len);
    assert_memory_equal(b, want, want_len);
}

static void default_truncate16_metrics_follow_java(void **state) {
    (void)state;
    written *r = write_with("wm_default", NULL, 0);
    const floe_ice_data_file *f = &r->df;
    assert_int_equal(f->record_count, 3);
    /* floats: NaN counted, bounds over the rest */
    assert_int_equal(count_of(&f->value_counts, 1), 3);
    assert_int_equal(count_of(&f->nan_value_counts, 1), 1);
    float lo = -2.0f, hi = 1.5f;
    assert_bound(&f->lower_bounds, 1, &lo, 4);
    assert_bound(&f->upper_bounds, 1, &hi, 4);
    assert_int_equal(count_of(&f->nan_value_counts, 2), 2);
    double d = 2.5;
    assert_bound(&f->lower_bounds, 2, &d, 8);
    assert_bound(&f->upper_bounds, 2, &d, 8);
    /* decimals: fewest big-endian two's complement bytes */
    assert_bound(&f->lower_bounds, 3, "\x80", 1);
    assert_bound(&f->upper_bounds, 3, "\x01\x2C", 2);
    assert_int_equal(count_of(&f->null_value_counts, 3), 1);
    assert_bound(&f->lower_bounds, 4, "\x75\x30", 2);
    assert_bound(&f->upper_bounds, 4, "\x75\x30", 2);
    assert_int_equal(count_of(&f->null_value_counts, 4), 2);
    /* -2^70 - 5 = 0xFF..BF FFFFFFFF FFFFFFFB in 9 bytes */
    assert_bound(&f->lower_bounds, 5, "\xBF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFB", 9);
    assert_bound(&f->upper_bounds, 5, "\x01\xF4", 2);
    floe_ice_value v;
    assert_ok(floe_ice_data_file_bound(f, r->schema, 5, false, &v));
    assert_true(v.v.dec == -((floe_int128)1 << 70) - 5);
    /* strings: 16 code points, upper incremented inside a multi-byte one */
    assert_bound(&f->lower_bounds, 6, "aaaaaaaaaaaaaaaa", 16);
    assert_bound(&f->upper_bounds, 6, "bbbbbbbbbbbbbbb\xE2\x82\xAD", 18);
    /* binary: 16 x 0xFF cannot be incremented: no upper bound */
    assert_bound(&f->lower_bounds, 7, "\x01\x02\x03", 3);
    uint32_t len;
    assert_null(bound(&f->upper_bounds, 7, &len));
    assert_int_equal(count_of(&f->value_counts, 7), 3);
    /* booleans */
    assert_bound(&f->lower_bounds, 8, "\x00", 1);
    assert_bound(&f->upper_bounds, 8, "\x01", 1);
    assert_int_equal(count_of(&f->null_value_counts, 8), 1);
    /* list element: only its size */
    assert_true(count_of(&f->column_sizes, 12) > 0);
    assert_int_equal(count_of(&f->value_counts, 12), -1);
    assert_int_equal(count_of(&f->null_value_counts, 12), -1);
    assert_null(bound(&f->lower_bounds, 12, &len));
    /* struct field: everything; a NULL struct makes a NULL field */
    assert_int_equal(count_of(&f->value_counts, 11), 3);
    assert_int_equal(count_of(&f->null_value_counts, 11), 1);
    int32_t x5 = 5, x7 = 7;
    assert_bound(&f->lower_bounds, 11, &x5, 4);
    assert_bound(&f->upper_bounds, 11, &x7, 4);
    /* map key and value: only sizes */
    assert_true(count_of(&f->column_sizes, 14) > 0);
    assert_true(count_of(&f->column_sizes, 15) > 0);
    assert_int_equal(count_of(&f->value_counts, 14), -1);
    assert_null(bound(&f->upper_bounds, 15, &len));
    /* fixed is never truncated */
    assert_bound(&f->lower_bounds, 17, "\x00\x01\x02\x03", 4);
    /* no entries for nested fields themselves */
    assert_int_equal(count_of(&f->column_sizes, 10), -1);
    assert_int_equal(count_of(&f->column_sizes, 9), -1);
    written_free(r);
}

static void counts_mode_keeps_counts_and_drops_bounds(void **state) {
    (void)state;
    const char *props[] = {"write.metadata.metrics.default", "counts"};
    written *r = write_with("wm_counts", props, 1);
    const floe_ice_data_file *f = &r->df;
    assert_int_equal(f->lower_bounds.n, 0);
    assert_int_equal(f->upper_bounds.n, 0);
    assert_int_equal(count_of(&f->value_counts, 6), 3);
    assert_int_equal(count_of(&f->null_value_counts, 6), 1);
    assert_int_equal(count_of(&f->nan_value_counts, 1), 1);
    assert_true(count_of(&f->column_sizes, 6) > 0);
    written_free(r);
}

static void column_modes_none_full_and_truncate_apply_per_column(void **state) {
    (void)state;
    const char *props[] = {"write.metadata.metrics.column.f", "none",
                           "write.metadata.metrics.column.s", "full",
                           "write.metadata.metrics.column.b", "truncate(2)",
                           "write.metadata.metrics.column.fx", "truncate(2)",
                           "write.metadata.metrics.column.st.x", "counts",
                           "write.metadata.metrics.column.no_such_column", "full"};
    written *r = write_with("wm_columns", props, 6);
    const floe_ice_data_file *f = &r->df;
    uint32_t len;
    /* none: nothing at all, not even the size */
    assert_int_equal(count_of(&f->column_sizes, 1), -1);
    assert_int_equal(count_of(&f->value_counts, 1), -1);
    assert_int_equal(count_of(&f->nan_value_counts, 1), -1);
    assert_null(bound(&f->lower_bounds, 1, &len));
    /* full: strings untouched */
    assert_bound(&f->lower_bounds, 6, "aaaaaaaaaaaaaaaaaaaa\xE2\x82\xAC", 23);
    assert_bound(&f->upper_bounds, 6, "bbbbbbbbbbbbbbb\xE2\x82\xAC\xE2\x82\xAC", 21);
    /* truncate(2) of binary: max 0xFFFF.. has no bound; min is cut */
    assert_bound(&f->lower_bounds, 7, "\x01\x02", 2);
    assert_null(bound(&f->upper_bounds, 7, &len));
    /* fixed is not cut */
    assert_bound(&f->upper_bounds, 17, "\x09\x09\x09\x09", 4);
    /* nested names resolve: st.x counts only */
    assert_int_equal(count_of(&f->value_counts, 11), 3);
    assert_null(bound(&f->lower_bounds, 11, &len));
    /* the rest keeps the default */
    assert_bound(&f->lower_bounds, 3, "\x80", 1);
    written_free(r);
}

FLOE_TEST_MAIN(cmocka_unit_test(string_bounds_truncate_by_code_points_and_increment),
               cmocka_unit_test(binary_bounds_truncate_by_bytes_and_increment),
               cmocka_unit_test(default_truncate16_metrics_follow_java),
               cmocka_unit_test(counts_mode_keeps_counts_and_drops_bounds),
               cmocka_unit_test(column_modes_none_full_and_truncate_apply_per_column))

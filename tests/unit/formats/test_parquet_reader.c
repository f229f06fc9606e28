/* Parquet reader over files written by other systems: every file of
 * apache/parquet-testing decodes, spot values match, the delta files match
 * their expected CSVs, Iceberg's encoding fixtures equal their PLAIN twins,
 * CRCs are verified and only selected columns are read. */
#include <dirent.h>
#include <ftw.h>

#include "floe_test.h"

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/parquet/reader.h"

#define PT "apache__parquet-testing/data/"
#define ICE "apache__iceberg/parquet/src/testFixtures/resources/encodings/"

/* Files that cannot be read, and why (the test checks they fail cleanly). */
static const struct {
    const char *name;
    const char *why;
} skip_list[] = {
    {"datapage_v1-corrupt-checksum.parquet", "CRC mismatch on purpose"},
    {"rle-dict-uncompressed-corrupt-checksum.parquet", "CRC mismatch on purpose"},
    {NULL, NULL},
};

static const char *skip_reason(const char *name) {
    for (int i = 0; skip_list[i].name; i++)
        if (!strcmp(skip_list[i].name, name)) return skip_list[i].why;
    return NULL;
}

/* Read a whole file; returns the status; counts rows and validates arrays. */
static floe_status read_all(const char *path, const floe_pq_read_options *o, int64_t *rows) {
    floe_pq_reader *r;
    *rows = 0;
    FLOE_TRY(floe_pq_reader_open_path(path, o, &r));
    floe_status st = NULL;
    for (;;) {
        floe_batch *b;
        st = floe_pq_reader_next(r, &b);
        if (st || !b) break;
        *rows += b->num_rows;
        st = floe_batch_validate(b);
        floe_batch_release(b);
        if (st) break;
    }
    floe_pq_reader_close(r);
    return st;
}

static bool ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static void every_parquet_testing_file_decodes(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char dir[4096], path[8192];
    floe_test_path(dir, sizeof dir, td, PT);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int ok = 0, failed = 0;
    while ((e = readdir(d))) {
        if (!ends_with(e->d_name, ".parquet")) continue;
        snprintf(path, sizeof path, "%s%s", dir, e->d_name);
        int64_t rows;
        floe_status st = read_all(path, NULL, &rows);
        const char *why = skip_reason(e->d_name);
        if (why) {
            if (!st) {
                printf("  expected failure but read: %s (%s)\n", e->d_name, why);
                failed++;
            }
        } else if (st) {
            printf("  FAILED %s: %s\n", e->d_name, floe_status_message(st));
            failed++;
        } else {
            ok++;
        }
        floe_status_free(st);
    }
    closedir(d);
    printf("  %d files decoded\n", ok);
    assert_int_equal(failed, 0);
}

/* First column of a one-row-group file as a growable array of text cells. */
static floe_status column_text(const char *path, const char *col, floe_buf *cells, int64_t *n) {
    floe_pq_read_options o = {0};
    const char *cols[1] = {col};
    o.columns = cols;
    o.num_columns = 1;
    o.batch_size = 3; /* small batches exercise page/batch boundaries */
    floe_pq_reader *r;
    *n = 0;
    FLOE_TRY(floe_pq_reader_open_path(path, &o, &r));
    floe_status st = NULL;
    for (;;) {
        floe_batch *b;
        st = floe_pq_reader_next(r, &b);
        if (st || !b) break;
        const floe_array *a = b->columns[0];
        for (int64_t i = 0; i < a->length && !st; i++) {
            if (floe_array_is_null(a, i)) st = floe_buf_append_str(cells, "");
            else st = floe_format_value(a, i, cells);
            if (!st) st = floe_buf_append_byte(cells, '\n');
            (*n)++;
        }
        floe_batch_release(b);
        if (st) break;
    }
    floe_pq_reader_close(r);
    return st;
}

static void alltypes_plain_spot_values(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char path[4096];
    const char *files[] = {PT "alltypes_plain.parquet", PT "alltypes_plain.snappy.parquet",
                           PT "alltypes_dictionary.parquet"};
    const char *want[] = {"4\n5\n6\n7\n2\n3\n0\n1\n", "6\n7\n", "0\n1\n"};
    for (int f = 0; f < 3; f++) {
        floe_buf cells = FLOE_BUF_INIT;
        int64_t n;
        assert_ok(column_text(floe_test_path(path, sizeof path, td, files[f]), "id", &cells, &n));
        assert_string_equal(floe_buf_cstr(&cells), want[f]);
        floe_buf_free(&cells);
    }
    floe_buf cells = FLOE_BUF_INIT;
    int64_t n;
    assert_ok(column_text(floe_test_path(path, sizeof path, td, PT "alltypes_plain.parquet"),
                          "bool_col", &cells, &n));
    assert_string_equal(floe_buf_cstr(&cells), "true\nfalse\ntrue\nfalse\ntrue\nfalse\ntrue\nfalse\n");
    floe_buf_clear(&cells);
    assert_ok(column_text(path, "timestamp_col", &cells, &n));
    assert_true(!strncmp(floe_buf_cstr(&cells), "2009-03-01 00:00:00", 19));
    floe_buf_clear(&cells);
    assert_ok(column_text(path, "string_col", &cells, &n));
    assert_string_equal(floe_buf_cstr(&cells), "\\x30\n\\x31\n\\x30\n\\x31\n\\x30\n\\x31\n\\x30\n\\x31\n");
    floe_buf_free(&cells);
}

/* Cell (row, col) of CSV text (row 0 is the first line after the header),
 * quotes removed, as a new string; NULL if absent. */
static char *csv_cell(const char *csv, int64_t row, int col) {
    const char *p = csv;
    for (int64_t r = 0; r < row + 1; r++) { /* header and earlier rows: no newlines in cells */
        p = strchr(p, '\n');
        if (!p) return NULL;
        p++;
    }
    for (int c = 0;; c++) {
        const char *s = p, *e;
        bool quoted = *p == '"';
        if (quoted) {
            s = ++p;
            while (*p && *p != '"') p++;
            e = p;
            if (*p == '"') p++;
        } else {
            while (*p && *p != ',' && *p != '\n' && *p != '\r') p++;
            e = p;
        }
        if (c == col) return strndup(s, (size_t)(e - s));
        if (*p != ',') return NULL;
        p++;
    }
}

static void delta_files_match_expected_csv(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    const char *names[] = {"delta_binary_packed", "delta_byte_array",
                           "delta_encoding_optional_column", "delta_encoding_required_column"};
    for (int f = 0; f < 4; f++) {
        char path[4096], rel[512];
        snprintf(rel, sizeof rel, PT "%s_expect.csv", names[f]);
        floe_test_path(path, sizeof path, td, rel);
        floe_input *in;
        uint8_t *csv;
        size_t csv_len;
        assert_ok(floe_input_open_local(path, &in));
        assert_ok(floe_input_read_all(in, &csv, &csv_len));
        floe_input_close(in);
        snprintf(rel, sizeof rel, PT "%s.parquet", names[f]);
        floe_test_path(path, sizeof path, td, rel);
        floe_pq_reader *r;
        assert_ok(floe_pq_reader_open_path(path, NULL, &r));
        int64_t row0 = 0, checked = 0;
        for (;;) {
            floe_batch *b;
            assert_ok(floe_pq_reader_next(r, &b));
            if (!b) break;
            for (int c = 0; c < b->num_columns; c++) {
                const floe_array *a = b->columns[c];
                for (int64_t i = 0; i < a->length; i++) {
                    char *want = csv_cell((const char *)csv, row0 + i, c);
                    assert_non_null(want);
                    floe_buf got = FLOE_BUF_INIT;
                    if (!floe_array_is_null(a, i)) assert_ok(floe_format_value(a, i, &got));
                    if (strcmp(want, floe_buf_cstr(&got)))
                        fail_msg("%s row %lld column %d: want '%s' got '%s'", names[f],
                                 (long long)(row0 + i), c, want, floe_buf_cstr(&got));
                    free(want);
                    floe_buf_free(&got);
                    checked++;
                }
            }
            row0 += b->num_rows;
            floe_batch_release(b);
        }
        floe_pq_reader_close(r);
        /* The CSV has exactly the rows we read. */
        int64_t lines = 0;
        for (size_t i = 0; i < csv_len; i++) lines += csv[i] == '\n';
        assert_true(lines == row0 + 1 || (lines == row0 && csv[csv_len - 1] != '\n'));
        assert_true(checked > 0);
        floe_free(csv);
    }
}

/* All values of column 0 of a file, as text lines. */
static void file_text(const char *path, floe_buf *out) {
    floe_pq_reader *r;
    assert_ok(floe_pq_reader_open_path(path, NULL, &r));
    for (;;) {
        floe_batch *b;
        assert_ok(floe_pq_reader_next(r, &b));
        if (!b) break;
        for (int c = 0; c < b->num_columns; c++)
            for (int64_t i = 0; i < b->num_rows; i++) {
                const floe_array *a = b->columns[c];
                if (floe_array_is_null(a, i)) assert_ok(floe_buf_append_str(out, "NULL"));
                else assert_ok(floe_format_value(a, i, out));
                assert_ok(floe_buf_append_byte(out, '\n'));
            }
        floe_batch_release(b);
    }
    floe_pq_reader_close(r);
}

static void iceberg_encodings_equal_plain_twins(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    const char *encs[] = {"BYTE_STREAM_SPLIT", "DELTA_BINARY_PACKED", "DELTA_BYTE_ARRAY",
                          "DELTA_LENGTH_BYTE_ARRAY", "PLAIN_DICTIONARY", "RLE_DICTIONARY"};
    int compared = 0;
    for (int e = 0; e < 6; e++) {
        char dir[4096], rel[512];
        snprintf(rel, sizeof rel, ICE "%s", encs[e]);
        floe_test_path(dir, sizeof dir, td, rel);
        DIR *d = opendir(dir);
        assert_non_null(d);
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!ends_with(de->d_name, ".parquet")) continue;
            char a[8192], b[8192];
            snprintf(a, sizeof a, "%s/%s", dir, de->d_name);
            snprintf(rel, sizeof rel, ICE "PLAIN/%s", de->d_name);
            floe_test_path(b, sizeof b, td, rel);
            floe_buf x = FLOE_BUF_INIT, y = FLOE_BUF_INIT;
            file_text(a, &x);
            file_text(b, &y);
            if (x.len != y.len || memcmp(x.data, y.data, x.len))
                fail_msg("%s/%s differs from its PLAIN twin", encs[e], de->d_name);
            assert_true(x.len > 0);
            floe_buf_free(&x);
            floe_buf_free(&y);
            compared++;
        }
        closedir(d);
    }
    assert_true(compared >= 25);
}

static void corrupt_crc_is_reported(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char path[4096];
    int64_t rows;
    assert_error(read_all(floe_test_path(path, sizeof path, td,
                                         PT "datapage_v1-corrupt-checksum.parquet"),
                          NULL, &rows),
                 FLOE_ERR_CORRUPT, "page CRC mismatch in column");
    assert_error(read_all(floe_test_path(path, sizeof path, td,
                                         PT "rle-dict-uncompressed-corrupt-checksum.parquet"),
                          NULL, &rows),
                 FLOE_ERR_CORRUPT, "page CRC mismatch");
    /* Good checksums pass; skipping verification reads the corrupt one. */
    assert_ok(read_all(floe_test_path(path, sizeof path, td,
                                      PT "datapage_v1-snappy-compressed-checksum.parquet"),
                       NULL, &rows));
    floe_pq_read_options o = {0};
    o.skip_crc = true;
    assert_ok(read_all(floe_test_path(path, sizeof path, td,
                                      PT "datapage_v1-corrupt-checksum.parquet"),
                       &o, &rows));
    assert_true(rows > 0);
}

static void only_selected_columns_are_read(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char path[4096];
    floe_test_path(path, sizeof path, td, PT "alltypes_plain.parquet");
    uint64_t bytes[2];
    for (int pass = 0; pass < 2; pass++) {
        floe_input *in;
        assert_ok(floe_input_open_local(path, &in));
        floe_pq_file *f;
        assert_ok(floe_pq_file_open(in, &f));
        uint64_t footer = in->bytes_read;
        floe_pq_read_options o = {0};
        const char *cols[1] = {"id"};
        o.columns = pass ? cols : NULL;
        o.num_columns = pass ? 1 : 0;
        o.max_gap = -1;
        floe_pq_reader *r;
        assert_ok(floe_pq_reader_open(f, &o, &r));
        floe_batch *b;
        assert_ok(floe_pq_reader_next(r, &b));
        assert_non_null(b);
        floe_batch_release(b);
        bytes[pass] = in->bytes_read - footer;
        if (pass) {
            uint64_t off, len;
            assert_ok(floe_pq_file_chunk_range(f, 0, 0, &off, &len));
            assert_int_equal(bytes[pass], len);
        }
        floe_pq_reader_close(r);
        floe_pq_file_close(f);
        floe_input_close(in);
    }
    assert_true(bytes[1] < bytes[0]);
}

static void small_batches_never_span_row_groups(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char path[4096];
    floe_test_path(path, sizeof path, td, PT "alltypes_tiny_pages_plain.parquet");
    floe_pq_read_options o = {0};
    o.batch_size = 1000;
    int64_t rows;
    assert_ok(read_all(path, &o, &rows));
    assert_int_equal(rows, 7300);
    o.batch_size = 0;
    int64_t rows2;
    assert_ok(read_all(path, &o, &rows2));
    assert_int_equal(rows2, 7300);
}

/* INT96 reads as timestamptz in microseconds (Spark's range, Iceberg's
 * unit), so instants beyond 2262 read; int96_as_ns asks for nanoseconds,
 * where they do not fit. */
static void int96_spark_timestamps_read_as_micros(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char path[4096];
    floe_test_path(path, sizeof path, td, PT "int96_from_spark.parquet");
    int64_t rows;
    floe_pq_read_options ns = {0};
    ns.int96_as_ns = true;
    assert_error(read_all(path, &ns, &rows), FLOE_ERR_UNSUPPORTED, "nanosecond range");
    floe_pq_reader *r;
    assert_ok(floe_pq_reader_open_path(path, NULL, &r));
    assert_int_equal(floe_schema_field(floe_pq_reader_schema(r), 0)->type->id, FLOE_TYPE_TIMESTAMP_US_TZ);
    floe_batch *b;
    assert_ok(floe_pq_reader_next(r, &b));
    assert_non_null(b);
    const floe_array *a = b->columns[0];
    const int64_t want[6] = {1704141296123456, 1704070800000000, 253402225200000000,
                             1735599600000000, 0, 9089380393200000000};
    assert_int_equal(a->length, 6);
    for (int i = 0; i < 6; i++) {
        if (i == 4) {
            assert_true(floe_array_is_null(a, i));
            continue;
        }
        assert_true(floe_array_get_int64(a, i) == want[i]);
    }
    floe_batch_release(b);
    floe_pq_reader_close(r);
}

/* Impala's INT96 (alltypes_plain): the same instants in either unit. */
static void int96_in_range_reads_the_same_instants(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char path[4096];
    floe_test_path(path, sizeof path, td, PT "alltypes_plain.parquet");
    const char *col[] = {"timestamp_col"};
    floe_pq_read_options us = {0}, ns = {0};
    us.columns = ns.columns = col;
    us.num_columns = ns.num_columns = 1;
    ns.int96_as_ns = true;
    floe_pq_reader *ru, *rn;
    assert_ok(floe_pq_reader_open_path(path, &us, &ru));
    assert_ok(floe_pq_reader_open_path(path, &ns, &rn));
    assert_int_equal(floe_schema_field(floe_pq_reader_schema(ru), 0)->type->id, FLOE_TYPE_TIMESTAMP_US_TZ);
    assert_int_equal(floe_schema_field(floe_pq_reader_schema(rn), 0)->type->id, FLOE_TYPE_TIMESTAMP_NS_TZ);
    floe_batch *bu, *bn;
    assert_ok(floe_pq_reader_next(ru, &bu));
    assert_ok(floe_pq_reader_next(rn, &bn));
    assert_int_equal(bu->num_rows, bn->num_rows);
    assert_true(bu->num_rows > 0);
    for (int64_t i = 0; i < bu->num_rows; i++)
        assert_true(floe_array_get_int64(bu->columns[0], i) * 1000 == floe_array_get_int64(bn->columns[0], i));
    floe_batch_release(bu);
    floe_batch_release(bn);
    floe_pq_reader_close(ru);
    floe_pq_reader_close(rn);
}

static void expect_column(const char *td, const char *file, const char *col, const char *want) {
    char path[4096];
    floe_buf cells = FLOE_BUF_INIT;
    int64_t n;
    assert_ok(column_text(floe_test_path(path, sizeof path, td, file), col, &cells, &n));
    if (strcmp(floe_buf_cstr(&cells), want))
        fail_msg("%s column %s:\n got:\n%s want:\n%s", file, col, floe_buf_cstr(&cells), want);
    floe_buf_free(&cells);
}

static void nested_files_assemble_expected_values(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    expect_column(td, PT "nested_lists.snappy.parquet", "a",
                  "[[['a', 'b'], ['c']], [NULL, ['d']]]\n"
                  "[[['a', 'b'], ['c', 'd']], [NULL, ['e']]]\n"
                  "[[['a', 'b'], ['c', 'd'], ['e']], [NULL, ['f']]]\n");
    expect_column(td, PT "nested_maps.snappy.parquet", "a",
                  "{'a': {1: true, 2: false}}\n{'b': {1: true}}\n{'c': NULL}\n{'d': {}}\n"
                  "{'e': {1: true}}\n{'f': {3: true, 4: false, 5: true}}\n");
    expect_column(td, PT "list_columns.parquet", "int64_list", "[1, 2, 3]\n[NULL, 1]\n[4]\n");
    expect_column(td, PT "list_columns.parquet", "utf8_list",
                  "['abc', 'efg', 'hij']\n\n['efg', NULL, 'hij', 'xyz']\n");
    expect_column(td, PT "null_list.parquet", "emptylist", "[]\n");
    expect_column(td, PT "old_list_structure.parquet", "a", "[[1, 2], [3, 4]]\n");
    expect_column(td, PT "repeated_no_annotation.parquet", "phoneNumbers",
                  "\n\n{phone: []}\n{phone: [{number: 5555555555, kind: NULL}]}\n"
                  "{phone: [{number: 1111111111, kind: 'home'}]}\n"
                  "{phone: [{number: 1111111111, kind: 'home'}, {number: 2222222222, kind: NULL}, "
                  "{number: 3333333333, kind: 'mobile'}]}\n");
    expect_column(td, PT "repeated_primitive_no_list.parquet", "Int32_list",
                  "[0, 1, 2, 3]\n[]\n[4]\n[5, 6, 7, 8]\n");
    expect_column(td, PT "nullable.impala.parquet", "int_array_Array",
                  "[[1, 2], [3, 4]]\n[[NULL, 1, 2, NULL], [3, NULL, 4], [], NULL]\n[NULL]\n"
                  "[]\n\n\n[NULL, [5, 6]]\n");
    expect_column(td, PT "nullable.impala.parquet", "int_map",
                  "{'k1': 1, 'k2': 100}\n{'k1': 2, 'k2': NULL}\n{}\n{}\n{}\n\n"
                  "{'k1': NULL, 'k3': NULL}\n");
    expect_column(td, PT "map_no_value.parquet", "my_map_no_v", "[1, 2, 3]\n[4, 5, 6]\n[7, 8, 9]\n");
    /* A struct member projected on its own: null where the struct is. */
    expect_column(td, PT "nullable.impala.parquet", "nested_struct.A",
                  "1\n\n\n\n\n\n7\n");
}

static void data_page_v2_and_codecs_decode_known_values(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    expect_column(td, PT "datapage_v2.snappy.parquet", "a", "abc\nabc\nabc\n\nabc\n");
    expect_column(td, PT "datapage_v2.snappy.parquet", "e",
                  "[1, 2, 3]\n\n\n[1, 2, 3]\n[1, 2]\n");
    /* Multi-member gzip pages and the LZ4 framings: counts and end values. */
    struct {
        const char *file, *col, *first, *last;
        int64_t rows;
    } cases[] = {
        {PT "concatenated_gzip_members.parquet", "long_col", "1", "513", 513},
        {PT "hadoop_lz4_compressed_larger.parquet", "a", "c7ce6bef-d5b0-4863-b199-8ea8c7fb117b",
         NULL, 10000},
        {PT "lz4_raw_compressed_larger.parquet", "a", "c7ce6bef-d5b0-4863-b199-8ea8c7fb117b",
         NULL, 10000},
        {PT "non_hadoop_lz4_compressed.parquet", "v11", "42.0", "7.7", 4},
        {PT "hadoop_lz4_compressed.parquet", "v11", "42.0", "7.7", 4},
        {PT "lz4_raw_compressed.parquet", "v11", "42.0", "7.7", 4},
        {PT "dict-page-offset-zero.parquet", "l_partkey", "1552", NULL, 39},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[4096];
        floe_buf cells = FLOE_BUF_INIT;
        int64_t n;
        assert_ok(column_text(floe_test_path(path, sizeof path, td, cases[i].file), cases[i].col,
                              &cells, &n));
        const char *t = floe_buf_cstr(&cells);
        if (n != cases[i].rows) fail_msg("%s: %lld rows", cases[i].file, (long long)n);
        assert_true(!strncmp(t, cases[i].first, strlen(cases[i].first)));
        if (cases[i].last) {
            size_t l = strlen(cases[i].last);
            assert_true(cells.len > l + 1);
            assert_true(!strncmp(t + cells.len - l - 1, cases[i].last, l));
        }
        floe_buf_free(&cells);
    }
}

/* nftw callback state (single-threaded test). */
static int walk_ok, walk_failed;

static int visit(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
    (void)sb;
    (void)ftw;
    if (type != FTW_F || !ends_with(path, ".parquet") || strstr(path, "apache__parquet-testing"))
        return 0;
    int64_t rows;
    floe_status st = read_all(path, NULL, &rows);
    if (st) {
        printf("  FAILED %s: %s\n", path, floe_status_message(st));
        walk_failed++;
    } else {
        walk_ok++;
    }
    floe_status_free(st);
    return 0;
}

static void every_other_shared_parquet_file_decodes(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    /* Iceberg tables written by Spark, PyIceberg, DuckDB, and Iceberg's own
     * encoding fixtures. */
    walk_ok = walk_failed = 0;
    assert_int_equal(nftw(td, visit, 16, FTW_PHYS), 0);
    printf("  %d files decoded\n", walk_ok);
    assert_int_equal(walk_failed, 0);
    assert_true(walk_ok >= 100);
}

static void projection_by_field_id_keeps_the_asked_order(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char path[4096];
    floe_test_path(path, sizeof path, td,
                   "duckdb__duckdb-iceberg/data/persistent/case_sensitive_names/default.db/"
                   "case_sensitive_names/data/"
                   "00000-0-81af3af1-c807-48d2-b022-696b1f81a188.parquet");
    floe_pq_read_options o = {0};
    const int32_t ids[2] = {2, 1};
    o.field_ids = ids;
    o.num_field_ids = 2;
    floe_pq_reader *r;
    assert_ok(floe_pq_reader_open_path(path, &o, &r));
    const floe_schema *s = floe_pq_reader_schema(r);
    assert_int_equal(s->n_children, 2);
    assert_string_equal(s->children[0].name, "uSeR_Id");
    assert_int_equal(s->children[0].field_id, 2);
    assert_int_equal(s->children[1].field_id, 1);
    assert_false(s->children[1].nullable); /* required int64 */
    floe_batch *b;
    assert_ok(floe_pq_reader_next(r, &b));
    assert_non_null(b);
    assert_int_equal(b->num_rows, 3);
    floe_strview v = floe_array_get_str(b->columns[0], 2);
    assert_int_equal(v.len, 6);
    assert_memory_equal(v.data, "user_3", 6);
    assert_int_equal(floe_array_get_int64(b->columns[1], 2), 3);
    floe_batch_release(b);
    assert_ok(floe_pq_reader_next(r, &b));
    assert_null(b); /* end of stream */
    floe_pq_reader_close(r);
    const int32_t missing[1] = {99};
    o.field_ids = missing;
    o.num_field_ids = 1;
    assert_error(floe_pq_reader_open_path(path, &o, &r), FLOE_ERR_NOT_FOUND, "field id 99");
}

FLOE_TEST_MAIN(cmocka_unit_test(projection_by_field_id_keeps_the_asked_order),
               cmocka_unit_test(every_other_shared_parquet_file_decodes),
               cmocka_unit_test(nested_files_assemble_expected_values),
               cmocka_unit_test(data_page_v2_and_codecs_decode_known_values),
               cmocka_unit_test(int96_spark_timestamps_read_as_micros),
               cmocka_unit_test(int96_in_range_reads_the_same_instants),
               cmocka_unit_test(every_parquet_testing_file_decodes),
               cmocka_unit_test(alltypes_plain_spot_values),
               cmocka_unit_test(delta_files_match_expected_csv),
               cmocka_unit_test(iceberg_encodings_equal_plain_twins),
               cmocka_unit_test(corrupt_crc_is_reported),
               cmocka_unit_test(only_selected_columns_are_read),
               cmocka_unit_test(small_batches_never_span_row_groups))

/* Avro container files written by other systems: every file in the shared
 * test data decodes (or fails clearly where it is meant to), weather*.avro
 * match weather.json, every Iceberg manifest decodes, and corrupted copies
 * of a real file produce errors, never crashes. */
#include "floe_test.h"

#include <ftw.h>

#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/avro/avro.h"

/* Read every record of a file; returns the status, count in *n. */
static floe_status read_all(floe_input *in, uint64_t *n, floe_buf *json) {
    floe_avro_reader *r;
    *n = 0;
    FLOE_TRY(floe_avro_reader_open(in, NULL, &r));
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_status st = NULL;
    for (;;) {
        floe_avro_value v;
        int has;
        st = floe_avro_reader_next(r, &a, &v, &has);
        if (st || !has) break;
        if (json) {
            st = floe_avro_value_to_json(floe_avro_reader_schema(r), &v, json);
            if (!st) st = floe_buf_append_byte(json, '\n');
            if (st) break;
        }
        (*n)++;
        floe_arena_reset(&a);
    }
    if (!st && *n != floe_avro_reader_records(r)) st = floe_error(FLOE_ERR_INTERNAL, "count mismatch");
    floe_arena_destroy(&a);
    floe_avro_reader_close(r);
    return st;
}

static floe_status read_path(const char *path, uint64_t *n, floe_buf *json) {
    floe_input *in;
    FLOE_TRY(floe_input_open_local(path, &in));
    floe_status st = read_all(in, n, json);
    floe_input_close(in);
    return st;
}

static void weather_files_in_every_codec_match_weather_json(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char path[4096];
    snprintf(path, sizeof path, "%s/apache__avro/share/test/data/weather.json", td);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char want[4096];
    size_t wn = fread(want, 1, sizeof want - 1, f);
    want[wn] = 0;
    fclose(f);
    const char *names[] = {"weather.avro", "weather-deflate.avro", "weather-snappy.avro",
                           "weather-zstd.avro"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/apache__avro/share/test/data/%s", td, names[i]);
        floe_buf got = FLOE_BUF_INIT;
        uint64_t n;
        assert_ok(read_path(path, &n, &got));
        assert_int_equal(n, 5);
        assert_string_equal(floe_buf_cstr(&got), want);
        floe_buf_free(&got);
    }
}

static void expected_failures_fail_clearly(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char path[4096];
    uint64_t n;
    snprintf(path, sizeof path, "%s/apache__avro/lang/c/tests/avro-1237-bad-union-discriminant.avro", td);
    assert_error(read_path(path, &n, NULL), FLOE_ERR_CORRUPT, "union branch 2 out of range");
    snprintf(path, sizeof path, "%s/apache__avro/lang/c/tests/avro-1238-truncated.avro", td);
    assert_error(read_path(path, &n, NULL), FLOE_ERR_CORRUPT, "past the end of the file");
    snprintf(path, sizeof path, "%s/apache__avro/lang/js/test/dat/person-10.avro.raw", td);
    assert_error(read_path(path, &n, NULL), FLOE_ERR_CORRUPT, "not an Avro container file");
    snprintf(path, sizeof path,
             "%s/apache__iceberg-rust/crates/iceberg/testdata/manifests_lists/manifest-list-v3-encrypted.avro", td);
    assert_error(read_path(path, &n, NULL), FLOE_ERR_UNSUPPORTED, "encrypted");
}

static void odd_but_valid_files_decode(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char path[4096];
    uint64_t n;
    /* a stray newline after the last sync marker */
    snprintf(path, sizeof path, "%s/apache__avro/lang/js/test/dat/person-10.no-codec.avro", td);
    assert_ok(read_path(path, &n, NULL));
    assert_int_equal(n, 10);
    /* the pre-1.3 layout: metadata in a footer */
    snprintf(path, sizeof path, "%s/apache__avro/share/test/data/test.avro12", td);
    floe_buf j = FLOE_BUF_INIT;
    assert_ok(read_path(path, &n, &j));
    assert_int_equal(n, 100);
    assert_true(strncmp(floe_buf_cstr(&j), "{\"stringField\":\"corftfdfvxvhyrxrktjjrfja\",", 41) == 0);
    floe_buf_free(&j);
    /* sync-marker bytes inside the metadata */
    snprintf(path, sizeof path, "%s/apache__avro/share/test/data/syncInMeta.avro", td);
    assert_ok(read_path(path, &n, NULL));
    assert_int_equal(n, 6001);
}

/* ---- walking directories -------------------------------------------------- */

static struct {
    int files, failed, with_records;
    uint64_t records;
    int iceberg; /* Iceberg run: also check custom metadata */
} walk;

static const char *const expected_bad[] = {
    "avro-1237-bad-union-discriminant.avro", "avro-1238-truncated.avro", "person-10.avro.raw",
    "manifest-list-v3-encrypted.avro",
};

static int visit(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
    (void)sb;
    if (type != FTW_F) return 0;
    const char *base = path + ftw->base;
    size_t bl = strlen(base);
    if (!(bl > 5 && !strcmp(base + bl - 5, ".avro")) && !strstr(base, ".avro")) return 0;
    int bad = 0;
    for (size_t i = 0; i < sizeof expected_bad / sizeof expected_bad[0]; i++)
        if (!strcmp(base, expected_bad[i])) bad = 1;
    uint64_t n = 0;
    floe_status st = read_path(path, &n, NULL);
    walk.files++;
    if (st && !bad) {
        print_error("%s: %s\n", path, floe_status_message(st));
        walk.failed++;
    }
    if (!st && bad) {
        print_error("%s decoded but should not\n", path);
        walk.failed++;
    }
    floe_status_free(st);
    walk.records += n;
    if (n) walk.with_records++;
    return 0;
}

static void every_apache_avro_and_fastavro_file_decodes(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char dir[4096];
    memset(&walk, 0, sizeof walk);
    snprintf(dir, sizeof dir, "%s/apache__avro", td);
    assert_int_equal(nftw(dir, visit, 16, FTW_PHYS), 0);
    snprintf(dir, sizeof dir, "%s/fastavro__fastavro/tests/avro-files", td);
    assert_int_equal(nftw(dir, visit, 16, FTW_PHYS), 0);
    assert_int_equal(walk.failed, 0);
    assert_true(walk.files >= 50);
    assert_true(walk.with_records >= 40);
}

static void every_iceberg_manifest_and_manifest_list_decodes(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char dir[4096];
    memset(&walk, 0, sizeof walk);
    snprintf(dir, sizeof dir, "%s/duckdb__duckdb-iceberg", td);
    assert_int_equal(nftw(dir, visit, 16, FTW_PHYS), 0);
    assert_int_equal(walk.failed, 0);
    assert_true(walk.files >= 150);
    assert_true(walk.with_records >= 150);
    /* The rest of the Iceberg test data (iceberg-rust, pyiceberg, Java ...). */
    memset(&walk, 0, sizeof walk);
    snprintf(dir, sizeof dir, "%s", td);
    assert_int_equal(nftw(dir, visit, 16, FTW_PHYS), 0);
    assert_int_equal(walk.failed, 0);
    assert_true(walk.files >= 200);
}

/* ---- corruption ---------------------------------------------------------- */

static void flipped_and_truncated_bytes_error_without_crashing(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    const char *rel[] = {"apache__avro/share/test/data/weather-deflate.avro",
                         "apache__avro/share/test/data/weather-snappy.avro",
                         "apache__avro/share/test/data/weather-zstd.avro",
                         "fastavro__fastavro/tests/avro-files/java-generated-uuid.avro"};
    for (int f = 0; f < 4; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", td, rel[f]);
        floe_input *in;
        uint8_t *data;
        size_t len;
        assert_ok(floe_input_open_local(path, &in));
        assert_ok(floe_input_read_all(in, &data, &len));
        floe_input_close(in);
        uint8_t *copy = floe_malloc(len);
        int successes = 0;
        uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(f + 1), total, blocks;
        {
            floe_input *m;
            floe_avro_reader *r;
            assert_ok(floe_input_from_memory(data, len, "whole", &m));
            assert_ok(read_all(m, &total, NULL));
            assert_ok(floe_avro_reader_open(m, NULL, &r));
            floe_arena a;
            floe_arena_init(&a, 0);
            for (int has = 1; has;) {
                floe_avro_value v;
                assert_ok(floe_avro_reader_next(r, &a, &v, &has));
            }
            blocks = floe_avro_reader_blocks(r);
            floe_arena_destroy(&a);
            floe_avro_reader_close(r);
            floe_input_close(m);
        }
        /* Every truncation point (stepping through big files) is an error,
         * except cuts at a block boundary, which leave a shorter valid file,
         * and a cut leaving one '\n'-valued byte of the next block header,
         * which is indistinguishable from the stray newline real files end
         * with.  Either way a truncated file never reads as complete. */
        for (size_t cut = 0; cut < len; cut += len > 2000 ? 7 : 1) {
            floe_input *m;
            assert_ok(floe_input_from_memory(data, cut, "cut", &m));
            uint64_t n;
            floe_status st = read_all(m, &n, NULL);
            if (!st) {
                successes++;
                assert_true(n < total);
            }
            floe_status_free(st);
            floe_input_close(m);
        }
        assert_true((uint64_t)successes <= 2 * (blocks + 1));
        /* random bit flips, 1-3 per copy */
        for (int it = 0; it < 600; it++) {
            memcpy(copy, data, len);
            int flips = 1 + it % 3;
            for (int k = 0; k < flips; k++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                copy[x % len] ^= (uint8_t)(1u << ((x >> 32) % 8));
            }
            floe_input *m;
            assert_ok(floe_input_from_memory(copy, len, "flipped", &m));
            uint64_t n;
            floe_buf j = FLOE_BUF_INIT;
            floe_status st = read_all(m, &n, &j);
            floe_status_free(st);
            floe_buf_free(&j);
            floe_input_close(m);
        }
        floe_free(copy);
        floe_free(data);
    }
}

FLOE_TEST_MAIN(cmocka_unit_test(weather_files_in_every_codec_match_weather_json),
               cmocka_unit_test(expected_failures_fail_clearly),
               cmocka_unit_test(odd_but_valid_files_decode),
               cmocka_unit_test(every_apache_avro_and_fastavro_file_decodes),
               cmocka_unit_test(every_iceberg_manifest_and_manifest_list_decodes),
               cmocka_unit_test(flipped_and_truncated_bytes_error_without_crashing))

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

/* ---- one reader model for every Iceberg writer -------------------------- */

/* Reader schemas in the shape floe's Iceberg layer expects (a subset of the
 * spec's manifest_file and manifest_entry, with names that differ from some
 * writers' on purpose: ids must decide). */
static const char *manifest_list_reader =
    "{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":["
    "{\"name\":\"path\",\"type\":\"string\",\"field-id\":500},"
    "{\"name\":\"length\",\"type\":\"long\",\"field-id\":501},"
    "{\"name\":\"spec_id\",\"type\":\"int\",\"field-id\":502},"
    "{\"name\":\"content\",\"type\":\"int\",\"default\":0,\"field-id\":517},"
    "{\"name\":\"sequence_number\",\"type\":\"long\",\"default\":0,\"field-id\":515},"
    "{\"name\":\"added_snapshot_id\",\"type\":[\"null\",\"long\"],\"field-id\":503},"
    "{\"name\":\"added_files\",\"type\":[\"null\",\"int\"],\"field-id\":504},"
    "{\"name\":\"added_rows\",\"type\":[\"null\",\"long\"],\"field-id\":512},"
    "{\"name\":\"key_metadata\",\"type\":[\"null\",\"bytes\"],\"field-id\":519}]}";

static const char *manifest_entry_reader =
    "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
    "{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
    "{\"name\":\"snapshot_id\",\"type\":[\"null\",\"long\"],\"field-id\":1},"
    "{\"name\":\"sequence_number\",\"type\":[\"null\",\"long\"],\"field-id\":3},"
    "{\"name\":\"data_file\",\"type\":{\"type\":\"record\",\"name\":\"r2\",\"fields\":["
    "  {\"name\":\"content\",\"type\":\"int\",\"default\":0,\"field-id\":134},"
    "  {\"name\":\"file_path\",\"type\":\"string\",\"field-id\":100},"
    "  {\"name\":\"file_format\",\"type\":\"string\",\"field-id\":101},"
    "  {\"name\":\"record_count\",\"type\":\"long\",\"field-id\":103},"
    "  {\"name\":\"file_size_in_bytes\",\"type\":\"long\",\"field-id\":104},"
    "  {\"name\":\"column_sizes\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\","
    "     \"name\":\"k117_v118\",\"fields\":[{\"name\":\"key\",\"type\":\"int\",\"field-id\":117},"
    "     {\"name\":\"value\",\"type\":\"long\",\"field-id\":118}]},\"element-id\":108}],\"field-id\":108},"
    /* long, not the spec's int: some writers (DuckDB test files) write
     * longs here, and int → long is a legal promotion while the reverse
     * is not. */
    "  {\"name\":\"equality_ids\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"long\",\"element-id\":136}],"
    "   \"field-id\":135}]},\"field-id\":2}]}";

static struct {
    floe_avro_schema *list, *entry;
    int lists, manifests, failed;
    uint64_t entries, files;
} model;

static int visit_iceberg(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
    (void)sb;
    (void)ftw;
    size_t pl = strlen(path);
    if (type != FTW_F || pl < 5 || strcmp(path + pl - 5, ".avro")) return 0;
    floe_input *in;
    if (floe_input_open_local(path, &in)) return 1;
    /* Which kind of file: a manifest's entries have a data_file field. */
    floe_avro_reader *probe;
    floe_status st = floe_avro_reader_open(in, NULL, &probe);
    if (st) { /* the encrypted manifest list; covered elsewhere */
        floe_status_free(st);
        floe_input_close(in);
        return 0;
    }
    const floe_avro_schema *ws = floe_avro_reader_writer_schema(probe);
    int is_manifest = ws->type == FLOE_AVRO_RECORD && floe_avro_field_index(ws, "data_file") >= 0;
    int is_list = ws->type == FLOE_AVRO_RECORD && floe_avro_field_index_by_id(ws, 500) >= 0;
    floe_avro_reader_close(probe);
    if (!is_manifest && !is_list) { /* not an Iceberg file */
        floe_input_close(in);
        return 0;
    }
    floe_avro_reader *r;
    st = floe_avro_reader_open(in, is_manifest ? model.entry : model.list, &r);
    floe_arena a;
    floe_arena_init(&a, 0);
    for (int has = 1; !st && has;) {
        floe_avro_value v;
        st = floe_avro_reader_next(r, &a, &v, &has);
        if (st || !has) break;
        if (is_manifest) {
            const floe_avro_value *df = &v.u.items[3];
            if (df->len != 7 || df->u.items[1].len == 0 || df->u.items[3].u.l < 0 ||
                df->u.items[0].u.l < 0 || df->u.items[0].u.l > 2)
                st = floe_error(FLOE_ERR_INTERNAL, "bad data_file in %s", path);
            model.entries++;
        } else {
            if (v.u.items[0].len == 0 || v.u.items[1].u.l < 0) /* generated files say length 0 */
                st = floe_error(FLOE_ERR_INTERNAL, "bad manifest_file in %s", path);
            model.files++;
        }
        floe_arena_reset(&a);
    }
    if (st) {
        print_error("%s: %s\n", path, floe_status_message(st));
        floe_status_free(st);
        model.failed++;
    }
    if (is_manifest) model.manifests++;
    else model.lists++;
    floe_arena_destroy(&a);
    if (r) floe_avro_reader_close(r);
    floe_input_close(in);
    return 0;
}

static void manifests_from_every_writer_decode_into_one_model_by_field_id(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    memset(&model, 0, sizeof model);
    assert_ok(floe_avro_schema_parse(manifest_list_reader, strlen(manifest_list_reader), &model.list));
    assert_ok(floe_avro_schema_parse(manifest_entry_reader, strlen(manifest_entry_reader), &model.entry));
    assert_int_equal(nftw(td, visit_iceberg, 16, FTW_PHYS), 0);
    assert_int_equal(model.failed, 0);
    assert_true(model.lists >= 50);
    assert_true(model.manifests >= 50);
    assert_true(model.entries >= (uint64_t)model.manifests);
    assert_true(model.files >= (uint64_t)model.lists);
    /* The legacy "added_data_files_count" (v2-1) and "added_files_count"
     * (v2-2) are both field 504 and land in the reader's "added_files". */
    for (int i = 1; i <= 2; i++) {
        char path[4096];
        snprintf(path, sizeof path,
                 "%s/apache__iceberg-rust/crates/iceberg/testdata/manifests_lists/manifest-list-v2-%d.avro",
                 td, i);
        floe_input *in;
        floe_avro_reader *r;
        assert_ok(floe_input_open_local(path, &in));
        assert_ok(floe_avro_reader_open(in, model.list, &r));
        floe_arena a;
        floe_arena_init(&a, 0);
        floe_avro_value v;
        int has;
        assert_ok(floe_avro_reader_next(r, &a, &v, &has));
        assert_true(has);
        assert_int_equal(v.u.items[6].type, FLOE_AVRO_INT);
        assert_int_equal(v.u.items[6].u.l, 1);
        assert_int_equal(v.u.items[8].type, FLOE_AVRO_NULL); /* key_metadata: not written */
        floe_arena_destroy(&a);
        floe_avro_reader_close(r);
        floe_input_close(in);
    }
    floe_avro_schema_free(model.list);
    floe_avro_schema_free(model.entry);
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
               cmocka_unit_test(manifests_from_every_writer_decode_into_one_model_by_field_id),
               cmocka_unit_test(flipped_and_truncated_bytes_error_without_crashing))

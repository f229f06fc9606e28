/* Parquet reader on damaged files: flipped bytes and truncations anywhere
 * must give an error or (when the damage is harmless) valid batches — never
 * a crash, an out-of-bounds read (ASan) or a hang. */
#include <dirent.h>

#include "floe_test.h"

#include "floe/columnar.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/parquet/reader.h"

#define PT "apache__parquet-testing/data/"

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Read every batch of an in-memory file; the status is returned (and any
 * batch produced must validate). */
static floe_status read_memory(const uint8_t *data, size_t len) {
    floe_input *in;
    FLOE_TRY(floe_input_from_memory(data, len, "mutant.parquet", &in));
    floe_pq_file *f;
    floe_status st = floe_pq_file_open(in, &f);
    if (st) {
        floe_input_close(in);
        return st;
    }
    floe_pq_reader *r;
    floe_pq_read_options o = {0};
    o.batch_size = 5;
    st = floe_pq_reader_open(f, &o, &r);
    for (int guard = 0; !st && guard < 100000; guard++) {
        floe_batch *b;
        st = floe_pq_reader_next(r, &b);
        if (st || !b) break;
        st = floe_batch_validate(b);
        if (st) fail_msg("reader produced an invalid batch: %s", floe_status_message(st));
        floe_batch_release(b);
    }
    if (r) floe_pq_reader_close(r);
    floe_pq_file_close(f);
    floe_input_close(in);
    return st;
}

static void load(const char *td, const char *rel, uint8_t **data, size_t *len) {
    char path[4096];
    floe_input *in;
    assert_ok(floe_input_open_local(floe_test_path(path, sizeof path, td, rel), &in));
    assert_ok(floe_input_read_all(in, data, len));
    floe_input_close(in);
}

static const char *const files[] = {
    PT "alltypes_plain.parquet",         PT "datapage_v2.snappy.parquet",
    PT "nested_lists.snappy.parquet",    PT "delta_byte_array.parquet",
    PT "nullable.impala.parquet",        PT "byte_stream_split.zstd.parquet",
    PT "rle_boolean_encoding.parquet",   PT "delta_binary_packed.parquet",
    PT "nested_maps.snappy.parquet",     PT "fixed_length_decimal.parquet",
    PT "delta_length_byte_array.parquet", PT "repeated_no_annotation.parquet",
};

static void flipped_bytes_never_crash(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    int errors = 0, runs = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        uint8_t *orig;
        size_t len;
        load(td, files[f], &orig, &len);
        assert_ok(read_memory(orig, len));
        uint8_t *m = floe_malloc(len);
        for (int it = 0; it < 150; it++) {
            memcpy(m, orig, len);
            int flips = 1 + (int)(rng() % 4);
            for (int k = 0; k < flips; k++) {
                /* Mostly hit the data (pages), sometimes anywhere. */
                size_t at = (size_t)(rng() % len);
                m[at] ^= (uint8_t)(1u << (rng() % 8));
            }
            floe_status st = read_memory(m, len);
            errors += st != NULL;
            runs++;
            floe_status_free(st);
        }
        floe_free(m);
        floe_free(orig);
    }
    printf("  %d of %d mutants rejected\n", errors, runs);
    assert_true(errors > 0);
}

static void truncated_files_are_errors(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        uint8_t *orig;
        size_t len;
        load(td, files[f], &orig, &len);
        for (int it = 0; it < 20; it++) {
            size_t cut = (size_t)(rng() % len);
            uint8_t *m = floe_malloc(cut ? cut : 1);
            memcpy(m, orig, cut);
            floe_status st = read_memory(m, cut);
            assert_non_null(st); /* the footer is gone */
            floe_status_free(st);
            floe_free(m);
        }
        floe_free(orig);
    }
}

/* apache/parquet-testing's bad_data: files that crashed other readers. */
static void bad_data_files_fail_cleanly(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char dir[4096];
    floe_test_path(dir, sizeof dir, td, "apache__parquet-testing/bad_data");
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 8 || strcmp(e->d_name + l - 8, ".parquet")) continue;
        char rel[512];
        snprintf(rel, sizeof rel, "apache__parquet-testing/bad_data/%s", e->d_name);
        uint8_t *data;
        size_t len;
        load(td, rel, &data, &len);
        floe_status st = read_memory(data, len); /* error or valid batches */
        if (st) printf("  %s: %s\n", e->d_name, floe_status_message(st));
        floe_status_free(st);
        floe_free(data);
        n++;
    }
    closedir(d);
    assert_true(n >= 5);
}

FLOE_TEST_MAIN(cmocka_unit_test(bad_data_files_fail_cleanly),
               cmocka_unit_test(flipped_bytes_never_crash),
               cmocka_unit_test(truncated_files_are_errors))

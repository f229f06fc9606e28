/* Definition-level fast paths of the Parquet reader: pages whose levels are
 * all "defined" skip level decoding, and a batch that starts on such pages
 * and then meets a page with nulls must still place every null exactly.
 * Files are written by floe's writer with small pages so one batch spans
 * many of both kinds. */
#include "floe_test.h"
#include "floe/columnar.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/parquet/reader.h"
#include "formats/parquet/writer.h"

#define ROWS 20000

/* Row i is null only in the second half, every 7th row. */
static bool row_is_null(int64_t i) {
    return i >= ROWS / 2 && i % 7 == 0;
}

static void write_file(const char *path) {
    floe_field f[2] = {{(char *)"i", floe_type_primitive(FLOE_TYPE_INT64), true, 1},
                       {(char *)"s", floe_type_primitive(FLOE_TYPE_STRING), true, 2}};
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(f, 2, &s));
    floe_builder *bi = NULL, *bs = NULL;
    assert_ok(floe_builder_new(s->children[0].type, ROWS, &bi));
    assert_ok(floe_builder_new(s->children[1].type, ROWS, &bs));
    for (int64_t i = 0; i < ROWS; i++) {
        if (row_is_null(i)) {
            assert_ok(floe_builder_append_null(bi));
            assert_ok(floe_builder_append_null(bs));
            continue;
        }
        char txt[32];
        snprintf(txt, sizeof txt, "value-%lld", (long long)(i % 50));
        assert_ok(floe_builder_append_int64(bi, i));
        assert_ok(floe_builder_append_string(bs, txt));
    }
    floe_array *cols[2] = {NULL, NULL};
    assert_ok(floe_builder_finish(bi, &cols[0]));
    assert_ok(floe_builder_finish(bs, &cols[1]));
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(s, cols, 2, ROWS, &batch));
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.page_bytes = 4096; /* many pages per column */
    floe_pq_writer *w = NULL;
    assert_ok(floe_pq_writer_open(out, s, &o, &w));
    assert_ok(floe_pq_writer_write(w, batch));
    floe_pq_write_result *res = NULL;
    assert_ok(floe_pq_writer_close(w, &res));
    floe_pq_write_result_free(res);
    floe_batch_release(batch);
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
    floe_builder_free(bi);
    floe_builder_free(bs);
    floe_type_release(s);
}

static void read_and_check(const char *path, int64_t batch_size) {
    floe_pq_reader *r = NULL;
    floe_pq_read_options ro = {0};
    ro.batch_size = batch_size;
    assert_ok(floe_pq_reader_open_path(path, &ro, &r));
    int64_t row = 0, nulls = 0;
    for (;;) {
        floe_batch *got = NULL;
        assert_ok(floe_pq_reader_next(r, &got));
        if (!got) break;
        for (int64_t k = 0; k < got->num_rows; k++) {
            int64_t i = row + k;
            const floe_array *ci = got->columns[0], *cs = got->columns[1];
            if (row_is_null(i)) {
                if (!floe_array_is_null(ci, k) || !floe_array_is_null(cs, k))
                    fail_msg("row %lld should be null (batch size %lld)", (long long)i,
                             (long long)batch_size);
                nulls++;
                continue;
            }
            if (floe_array_is_null(ci, k) || floe_array_is_null(cs, k))
                fail_msg("row %lld should not be null (batch size %lld)", (long long)i,
                         (long long)batch_size);
            assert_int_equal(floe_array_get_int64(ci, k), i);
            char txt[32];
            int len = snprintf(txt, sizeof txt, "value-%lld", (long long)(i % 50));
            floe_strview v = floe_array_get_str(cs, k);
            assert_int_equal(v.len, len);
            assert_memory_equal(v.data, txt, (size_t)len);
        }
        row += got->num_rows;
        floe_batch_release(got);
    }
    assert_int_equal(row, ROWS);
    int64_t want = 0;
    for (int64_t i = 0; i < ROWS; i++) want += row_is_null(i);
    assert_int_equal(nulls, want);
    floe_pq_reader_close(r);
}

static void nulls_after_null_free_pages_land_in_their_rows(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pq_levels");
    snprintf(path, sizeof path, "%s/levels.parquet", dir);
    write_file(path);
    read_and_check(path, ROWS);  /* one batch: null-free pages, then nulls */
    read_and_check(path, 3001);  /* batches straddling pages of both kinds */
    read_and_check(path, 7);
}

FLOE_TEST_MAIN(cmocka_unit_test(nulls_after_null_free_pages_land_in_their_rows))

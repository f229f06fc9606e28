/* The Parquet writer end to end: files with every type, nulls and nesting,
 * several row groups and pages, every codec and encoding choice, read back
 * with floe's own reader value by value; the footer (field ids, column
 * orders, statistics), the page index, and the metrics handed back. */
#include <math.h>

#include "floe_test.h"
#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/memory.h"
#include "floe/version.h"
#include "formats/parquet/file.h"
#include "formats/parquet/reader.h"
#include "formats/parquet/writer.h"
#include "formats/parquet/writer_internal.h"
#include "../../tools/pq_sample_data.h"

/* Write `rows` sample rows in batches of `batch` to path. */
static floe_status write_sample(const char *path, const floe_pq_write_options *o, int64_t rows,
                                int64_t batch, floe_pq_write_result **res) {
    floe_schema *schema = NULL;
    FLOE_TRY(pq_sample_schema(&schema));
    floe_output *out = NULL;
    floe_status st = floe_output_create_local(path, 1, &out);
    floe_pq_writer *w = NULL;
    if (!st) st = floe_pq_writer_open(out, schema, o, &w);
    for (int64_t r = 0; !st && r < rows; r += batch) {
        floe_batch *b = NULL;
        st = pq_sample_batch(schema, r, rows - r < batch ? rows - r : batch, &b);
        if (!st) st = floe_pq_writer_write(w, b);
        floe_batch_release(b);
    }
    if (!st) {
        st = floe_pq_writer_close(w, res);
        w = NULL;
    }
    floe_pq_writer_abort(w);
    floe_type_release(schema);
    return st;
}

/* Read the file with floe's reader and compare every value, as text, with
 * the sample rows. */
static void check_rows(const char *path, int64_t first, int64_t rows) {
    floe_schema *schema = NULL;
    assert_ok(pq_sample_schema(&schema));
    floe_batch *want = NULL;
    assert_ok(pq_sample_batch(schema, first, rows, &want));
    floe_pq_reader *r = NULL;
    floe_pq_read_options ro = {0};
    ro.batch_size = 999;
    assert_ok(floe_pq_reader_open_path(path, &ro, &r));
    int64_t row = 0;
    floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
    for (;;) {
        floe_batch *got = NULL;
        assert_ok(floe_pq_reader_next(r, &got));
        if (!got) break;
        assert_int_equal(got->num_columns, want->num_columns);
        assert_true(row + got->num_rows <= rows);
        for (int32_t c = 0; c < got->num_columns; c++) {
            for (int64_t i = 0; i < got->num_rows; i++) {
                floe_buf_clear(&a);
                floe_buf_clear(&b);
                assert_ok(floe_format_value(got->columns[c], i, &a));
                assert_ok(floe_format_value(want->columns[c], row + i, &b));
                if (strcmp(floe_buf_cstr(&a), floe_buf_cstr(&b)) != 0)
                    fail_msg("%s: row %lld column %s: got %s, want %s", path,
                             (long long)(row + i), schema->children[c].name, floe_buf_cstr(&a),
                             floe_buf_cstr(&b));
            }
        }
        row += got->num_rows;
        floe_batch_release(got);
    }
    assert_int_equal(row, rows);
    floe_buf_free(&a);
    floe_buf_free(&b);
    floe_pq_reader_close(r);
    floe_batch_release(want);
    floe_type_release(schema);
}

static void check_roundtrip(const char *path, int64_t rows) { check_rows(path, 0, rows); }

static void every_codec_round_trips_every_type(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_codecs");
    const floe_codec codecs[] = {FLOE_CODEC_NONE, FLOE_CODEC_SNAPPY, FLOE_CODEC_GZIP,
                                 FLOE_CODEC_ZSTD, FLOE_CODEC_LZ4_RAW, FLOE_CODEC_BROTLI};
    for (size_t k = 0; k < sizeof codecs / sizeof codecs[0]; k++) {
        floe_pq_write_options o;
        floe_pq_write_options_init(&o);
        o.codec = codecs[k];
        o.row_group_rows = 1200;
        o.page_rows = 250;
        snprintf(path, sizeof path, "%s/%s.parquet", dir, floe_codec_name(codecs[k]));
        floe_pq_write_result *res = NULL;
        assert_ok(write_sample(path, &o, 2000, 700, &res));
        assert_int_equal(res->record_count, 2000);
        assert_int_equal(res->n_row_groups, 2);
        floe_pq_write_result_free(res);
        check_roundtrip(path, 2000);
    }
}

static void plain_delta_rle_and_dictionary_fallback_round_trip(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_encodings");
    floe_pq_column_option cols[] = {{3, NULL, FLOE_PQ_WENC_DELTA_BINARY_PACKED, false},
                                    {4, NULL, FLOE_PQ_WENC_DELTA_BINARY_PACKED, false},
                                    {-1, "l.list.element", FLOE_PQ_WENC_DELTA_BINARY_PACKED, false},
                                    {2, NULL, FLOE_PQ_WENC_RLE, false}};
    for (int k = 0; k < 5; k++) {
        floe_pq_write_options o;
        floe_pq_write_options_init(&o);
        o.row_group_rows = 2000;
        o.page_rows = 333;
        if (k == 0) o.dictionary = false;
        if (k == 1 || k == 4) {
            o.columns = cols;
            o.n_columns = 4;
        }
        if (k == 2) o.dict_bytes = 1500; /* falls back to PLAIN mid-chunk */
        if (k >= 3) o.data_page_v2 = true;
        if (k == 3) o.codec = FLOE_CODEC_NONE;
        if (k == 4) o.legacy_dictionary = true;
        snprintf(path, sizeof path, "%s/enc%d.parquet", dir, k);
        assert_ok(write_sample(path, &o, 4500, 1000, NULL));
        check_roundtrip(path, 4500);
        floe_pq_file *f = NULL;
        assert_ok(floe_pq_file_open_path(path, &f));
        const floe_pq_column_meta *m = &floe_pq_file_chunk(f, 0, 14)->meta_data; /* s */
        bool plain = false, dict = false;
        for (uint32_t e = 0; e < m->num_encodings; e++) {
            plain |= m->encodings[e] == FLOE_PQ_ENC_PLAIN;
            dict |= m->encodings[e] == FLOE_PQ_ENC_RLE_DICTIONARY;
        }
        if (k == 0) assert_false(dict);
        if (k == 2) assert_true(plain && dict && m->has_dictionary_page_offset);
        if (k == 4) assert_true(m->num_encoding_stats > 0 &&
                                m->encoding_stats[0].encoding == FLOE_PQ_ENC_PLAIN_DICTIONARY);
        if (k >= 3) {
            floe_pq_offset_index *oi = NULL;
            assert_ok(floe_pq_file_read_offset_index(f, 0, 14, &oi));
            assert_int_equal(oi->page_locations[1].first_row_index, 333);
            floe_pq_offset_index_free(oi);
        }
        if (k == 1 || k == 4) {
            const floe_pq_column_meta *d = &floe_pq_file_chunk(f, 0, 2)->meta_data; /* i32 */
            bool delta = false;
            for (uint32_t e = 0; e < d->num_encodings; e++)
                delta |= d->encodings[e] == FLOE_PQ_ENC_DELTA_BINARY_PACKED;
            assert_true(delta);
        }
        floe_pq_file_close(f);
    }
}

static void bad_encoding_override_is_rejected(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_badenc");
    snprintf(path, sizeof path, "%s/x.parquet", dir);
    floe_pq_column_option co = {15, NULL, FLOE_PQ_WENC_DELTA_BINARY_PACKED, false}; /* a string */
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.columns = &co;
    o.n_columns = 1;
    assert_error(write_sample(path, &o, 10, 10, NULL), FLOE_ERR_INVALID_ARGUMENT,
                 "DELTA_BINARY_PACKED");
    struct stat sb;
    assert_int_not_equal(stat(path, &sb), 0); /* aborted: nothing left behind */
}

static void footer_has_field_ids_orders_stats_and_page_index(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_footer");
    snprintf(path, sizeof path, "%s/f.parquet", dir);
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.row_group_rows = 1000;
    o.page_rows = 100;
    floe_pq_kv kv = {"iceberg.schema", "{\"type\":\"struct\"}"};
    o.kv = &kv;
    o.n_kv = 1;
    floe_pq_column_option bloom = {15, NULL, FLOE_PQ_WENC_DEFAULT, true};
    o.columns = &bloom;
    o.n_columns = 1;
    floe_pq_write_result *res = NULL;
    assert_ok(write_sample(path, &o, 2500, 1000, &res));
    floe_pq_file *f = NULL;
    assert_ok(floe_pq_file_open_path(path, &f));
    const floe_pq_file_metadata *md = f->meta;
    assert_int_equal(md->num_rows, 2500);
    assert_int_equal(md->num_row_groups, 3);
    assert_string_equal(md->created_by, "floe version " FLOE_VERSION_STRING);
    assert_int_equal(md->num_key_value_metadata, 1);
    assert_string_equal(md->key_value_metadata[0].key, "iceberg.schema");
    /* Every element made from a field has its id; list/key_value groups none. */
    int with_id = 0;
    for (uint32_t i = 0; i < md->num_schema; i++) {
        const floe_pq_schema_element *e = &md->schema[i];
        bool synthetic = i == 0 || !strcmp(e->name, "list") || !strcmp(e->name, "key_value");
        assert_true(e->has_field_id != synthetic);
        with_id += e->has_field_id;
    }
    assert_int_equal(with_id, 36);
    int ncols = (int)md->row_groups[0].num_columns;
    assert_int_equal(md->num_column_orders, (uint32_t)ncols);
    for (int c = 0; c < ncols; c++) assert_int_equal(md->column_orders[c].kind, 1);
    /* Column i32 (index 2): stats, and a page index with 10 pages of 100 rows. */
    for (int rg = 0; rg < 3; rg++) {
        const floe_pq_column_chunk *cc = floe_pq_file_chunk(f, rg, 2);
        assert_true(cc->meta_data.has_statistics);
        assert_true(cc->meta_data.statistics.has_null_count);
        /* legacy min/max mirror min_value/max_value for a signed column */
        assert_true(cc->meta_data.statistics.min.set && cc->meta_data.statistics.min.len == 4);
        assert_memory_equal(cc->meta_data.statistics.min.data,
                            cc->meta_data.statistics.min_value.data, 4);
        assert_true(cc->has_offset_index && cc->has_column_index);
        floe_pq_offset_index *oi = NULL;
        floe_pq_column_index *ci = NULL;
        assert_ok(floe_pq_file_read_offset_index(f, rg, 2, &oi));
        assert_ok(floe_pq_file_read_column_index(f, rg, 2, &ci));
        uint32_t pages = rg < 2 ? 10 : 5;
        assert_int_equal(oi->num_pages, pages);
        assert_int_equal(ci->num_pages, pages);
        int64_t nulls = 0;
        for (uint32_t p = 0; p < pages; p++) {
            assert_int_equal(oi->page_locations[p].first_row_index, (int64_t)p * 100);
            assert_false(ci->null_pages[p]);
            nulls += ci->null_counts[p];
            /* rows r0..r0+99 of i*7-5000, row r0 (a multiple of 5) null */
            int64_t r0 = rg * 1000 + (int64_t)p * 100;
            int32_t lo, hi;
            assert_int_equal(ci->min_values[p].len, 4);
            memcpy(&lo, ci->min_values[p].data, 4);
            memcpy(&hi, ci->max_values[p].data, 4);
            assert_int_equal(lo, (r0 + 1) * 7 - 5000);
            assert_int_equal(hi, (r0 + 99) * 7 - 5000);
            assert_int_equal(ci->null_counts[p], 20);
        }
        assert_int_equal(nulls, cc->meta_data.statistics.null_count);
        assert_int_equal(ci->boundary_order, FLOE_PQ_ASCENDING); /* i*7-5000 grows */
        /* The first data page starts at the chunk's data page offset, and its
         * header carries the same statistics as the column index. */
        assert_int_equal(oi->page_locations[0].offset, cc->meta_data.data_page_offset);
        uint8_t hb[512];
        int32_t hl = oi->page_locations[0].compressed_page_size;
        size_t want = hl < (int32_t)sizeof hb ? (size_t)hl : sizeof hb;
        assert_ok(floe_input_read(f->in, (uint64_t)oi->page_locations[0].offset, want, hb));
        floe_pq_page_header ph;
        size_t used = 0;
        assert_ok(floe_pq_decode_page_header(hb, want, 0, &ph, &used));
        assert_true(ph.has_crc);
        assert_true(ph.has_data_page_header && ph.data_page_header.has_statistics);
        const floe_pq_statistics *ps = &ph.data_page_header.statistics;
        assert_int_equal(ps->null_count, ci->null_counts[0]);
        assert_int_equal(ps->min_value.len, 4);
        assert_memory_equal(ps->min_value.data, ci->min_values[0].data, 4);
        assert_memory_equal(ps->max_value.data, ci->max_values[0].data, 4);
        assert_int_equal(ph.data_page_header.num_values, 100);
        floe_pq_offset_index_free(oi);
        floe_pq_column_index_free(ci);
    }
    /* s (index 14) has a Bloom filter per row group; i32 none. */
    for (int rg = 0; rg < 3; rg++) {
        const floe_pq_column_meta *sm = &floe_pq_file_chunk(f, rg, 14)->meta_data;
        assert_true(sm->has_bloom_filter_offset && sm->has_bloom_filter_length);
        assert_true(sm->bloom_filter_offset > sm->data_page_offset);
        assert_false(floe_pq_file_chunk(f, rg, 2)->meta_data.has_bloom_filter_offset);
    }
    /* f32 (index 4) has NaN at rows 0, 97, ... but no all-NaN page: nan counts set. */
    floe_pq_column_index *ci = NULL;
    assert_ok(floe_pq_file_read_column_index(f, 0, 4, &ci));
    assert_non_null(ci);
    assert_int_equal(ci->num_nan_counts, ci->num_pages);
    assert_int_equal(ci->nan_counts[0], 2); /* rows 0 and 97 */
    floe_pq_column_index_free(ci);
    /* Metrics: split offsets are the row groups' offsets; file size is real. */
    assert_int_equal(res->n_row_groups, 3);
    for (int rg = 0; rg < 3; rg++)
        assert_int_equal(res->split_offsets[rg], md->row_groups[rg].file_offset);
    assert_int_equal((uint64_t)res->file_size, f->size);
    floe_pq_file_close(f);
    floe_pq_write_result_free(res);
}

static int find_col(const floe_pq_write_result *r, const char *path) {
    for (int32_t i = 0; i < r->n_columns; i++)
        if (!strcmp(r->columns[i].path, path)) return i;
    fail_msg("no column %s", path);
    return -1;
}

static void metrics_report_counts_and_untruncated_bounds(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_metrics");
    snprintf(path, sizeof path, "%s/m.parquet", dir);
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.row_group_rows = 400;
    floe_pq_write_result *res = NULL;
    assert_ok(write_sample(path, &o, 1000, 300, &res));
    assert_int_equal(res->record_count, 1000);
    /* i32: nulls at i%5==0, values i*7-5000 */
    const floe_pq_column_result *c = &res->columns[find_col(res, "i32")];
    assert_int_equal(c->field_id, 3);
    assert_int_equal(c->value_count, 1000);
    assert_int_equal(c->null_count, 200);
    assert_true(c->has_bounds);
    int32_t lo, hi;
    memcpy(&lo, c->min, 4);
    memcpy(&hi, c->max, 4);
    assert_int_equal(lo, 7 - 5000);
    assert_int_equal(hi, 999 * 7 - 5000);
    assert_true(c->compressed_size > 0);
    /* f64: NaN at i%101==1 (rows 1, 102, ...) but only non-null ones count */
    c = &res->columns[find_col(res, "f64")];
    int64_t nans = 0, nulls = 0;
    for (int i = 0; i < 1000; i++) {
        if (i % 9 == 0) nulls++;
        else if (i % 101 == 1) nans++;
    }
    assert_int_equal(c->null_count, nulls);
    assert_int_equal(c->nan_count, nans);
    double dlo;
    memcpy(&dlo, c->min, 8);
    assert_true(dlo == 1 * 1.25 - 3.5 || dlo == 2 * 1.25 - 3.5);
    /* strings: min "str-10" sorts after "str-1..."; bytes are not truncated */
    c = &res->columns[find_col(res, "s")];
    assert_int_equal(c->physical_type, FLOE_PQ_BYTE_ARRAY);
    assert_int_equal((int)c->min_len, 6);
    assert_memory_equal(c->min, "str-10", 6); /* row 1 is null; "str-10" < "str-2" */
    assert_int_equal((int)c->max_len, 6);
    assert_memory_equal(c->max, "\xc3\xa9-950", 6); /* 'é-...' sorts last */
    /* a map value inside a repeated group, found by field id */
    c = floe_pq_write_result_find(res, 23);
    assert_ptr_equal(c, &res->columns[find_col(res, "m.key_value.value")]);
    assert_null(floe_pq_write_result_find(res, 999));
    assert_int_equal(c->field_id, 23);
    assert_true(c->repeated);
    /* the decimal(38) leaf reports FIXED big-endian bounds of 16 bytes */
    c = &res->columns[find_col(res, "d38")];
    assert_int_equal(c->type_length, 16);
    assert_int_equal((int)c->min_len, 16);
    assert_true(c->min[0] & 0x80); /* negative */
    floe_pq_write_result_free(res);
}

static void null_in_required_column_fails_the_write(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_required");
    snprintf(path, sizeof path, "%s/r.parquet", dir);
    floe_field f = {(char *)"x", floe_type_primitive(FLOE_TYPE_INT64), false, 1};
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(&f, 1, &s));
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(s->children[0].type, 2, &b));
    assert_ok(floe_builder_append_int64(b, 1));
    assert_ok(floe_builder_append_null(b));
    floe_array *a = NULL;
    assert_ok(floe_builder_finish(b, &a));
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(s, &a, 1, 2, &batch));
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_writer *w = NULL;
    assert_ok(floe_pq_writer_open(out, s, NULL, &w));
    assert_error(floe_pq_writer_write(w, batch), FLOE_ERR_CONSTRAINT, "non-nullable");
    assert_error(floe_pq_writer_close(w, NULL), FLOE_ERR_INVALID_ARGUMENT, "after a failure");
    struct stat sb;
    assert_int_not_equal(stat(path, &sb), 0);
    floe_batch_release(batch);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(s);
}

static void all_nan_page_drops_the_column_index(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_nan");
    snprintf(path, sizeof path, "%s/n.parquet", dir);
    floe_field f = {(char *)"x", floe_type_primitive(FLOE_TYPE_FLOAT64), true, 1};
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(&f, 1, &s));
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(s->children[0].type, 20, &b));
    for (int i = 0; i < 20; i++) assert_ok(floe_builder_append_double(b, i < 10 ? NAN : i));
    floe_array *a = NULL;
    assert_ok(floe_builder_finish(b, &a));
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(s, &a, 1, 20, &batch));
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.page_rows = 10;
    floe_pq_writer *w = NULL;
    assert_ok(floe_pq_writer_open(out, s, &o, &w));
    assert_ok(floe_pq_writer_write(w, batch));
    floe_pq_write_result *res = NULL;
    assert_ok(floe_pq_writer_close(w, &res));
    assert_int_equal(res->columns[0].nan_count, 10);
    double lo, hi;
    memcpy(&lo, res->columns[0].min, 8);
    memcpy(&hi, res->columns[0].max, 8);
    assert_true(lo == 10 && hi == 19);
    floe_pq_file *pf = NULL;
    assert_ok(floe_pq_file_open_path(path, &pf));
    const floe_pq_column_chunk *cc = floe_pq_file_chunk(pf, 0, 0);
    assert_false(cc->has_column_index);
    assert_true(cc->has_offset_index);
    assert_int_equal(cc->meta_data.statistics.nan_count, 10);
    floe_pq_file_close(pf);
    floe_pq_write_result_free(res);
    floe_batch_release(batch);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(s);
}

static void empty_file_is_valid(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_empty");
    snprintf(path, sizeof path, "%s/e.parquet", dir);
    floe_pq_write_result *res = NULL;
    assert_ok(write_sample(path, NULL, 0, 1, &res));
    assert_int_equal(res->record_count, 0);
    assert_int_equal(res->n_row_groups, 0);
    assert_false(res->columns[0].has_bounds);
    floe_pq_write_result_free(res);
    floe_pq_file *f = NULL;
    assert_ok(floe_pq_file_open_path(path, &f));
    assert_int_equal(f->meta->num_rows, 0);
    floe_pq_file_close(f);
}

static void long_strings_get_truncated_page_bounds(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_trunc");
    snprintf(path, sizeof path, "%s/t.parquet", dir);
    floe_field f = {(char *)"s", floe_type_primitive(FLOE_TYPE_STRING), false, 7};
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(&f, 1, &s));
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(s->children[0].type, 2, &b));
    char big[200];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    assert_ok(floe_builder_append_string(b, big));
    big[0] = 'b';
    assert_ok(floe_builder_append_string(b, big));
    floe_array *a = NULL;
    assert_ok(floe_builder_finish(b, &a));
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(s, &a, 1, 2, &batch));
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.stats_truncate = 16;
    floe_pq_writer *w = NULL;
    assert_ok(floe_pq_writer_open(out, s, &o, &w));
    assert_ok(floe_pq_writer_write(w, batch));
    floe_pq_write_result *res = NULL;
    assert_ok(floe_pq_writer_close(w, &res));
    assert_int_equal((int)res->columns[0].max_len, 199); /* metrics keep the whole value */
    floe_pq_file *pf = NULL;
    assert_ok(floe_pq_file_open_path(path, &pf));
    const floe_pq_statistics *st = &floe_pq_file_chunk(pf, 0, 0)->meta_data.statistics;
    assert_int_equal(st->min_value.len, 16);
    assert_int_equal(st->max_value.len, 16);
    assert_int_equal(st->max_value.data[15], 'b'); /* "baaa...a" + 1 -> "baaa...b" */
    assert_true(st->has_is_max_value_exact && !st->is_max_value_exact);
    assert_true(st->has_is_min_value_exact && !st->is_min_value_exact);
    assert_false(st->min.set || st->max.set); /* no legacy signed-order bounds for bytes */
    floe_pq_column_index *ci = NULL;
    assert_ok(floe_pq_file_read_column_index(pf, 0, 0, &ci));
    assert_int_equal(ci->min_values[0].len, 16);
    floe_pq_column_index_free(ci);
    floe_pq_file_close(pf);
    floe_pq_write_result_free(res);
    floe_batch_release(batch);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(s);
}

static void row_groups_and_pages_split_by_bytes(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_bytes");
    snprintf(path, sizeof path, "%s/b.parquet", dir);
    floe_field f = {(char *)"s", floe_type_primitive(FLOE_TYPE_STRING), true, 1};
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(&f, 1, &s));
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(s->children[0].type, 64, &b));
    static char big[100001];
    for (int i = 0; i < 64; i++) {
        memset(big, 'a' + i % 26, sizeof big - 1);
        snprintf(big, 16, "%06d", i); /* distinct, incompressible enough */
        big[6] = 'x';
        assert_ok(floe_builder_append_binary(b, big, sizeof big - 1));
    }
    floe_array *a = NULL;
    assert_ok(floe_builder_finish(b, &a));
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(s, &a, 1, 64, &batch));
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.codec = FLOE_CODEC_NONE;
    o.dictionary = false;
    o.page_bytes = 250000;      /* ~3 values per page */
    o.row_group_bytes = 1500000; /* several row groups */
    floe_pq_writer *w = NULL;
    assert_ok(floe_pq_writer_open(out, s, &o, &w));
    assert_ok(floe_pq_writer_write(w, batch));
    assert_true(floe_pq_writer_estimated_size(w) > 64 * 100000 / 2);
    assert_int_equal(floe_pq_writer_rows(w), 64);
    floe_pq_write_result *res = NULL;
    assert_ok(floe_pq_writer_close(w, &res));
    assert_true(res->n_row_groups >= 4);
    floe_pq_file *pf = NULL;
    assert_ok(floe_pq_file_open_path(path, &pf));
    for (int rg = 0; rg < res->n_row_groups; rg++) {
        floe_pq_offset_index *oi = NULL;
        assert_ok(floe_pq_file_read_offset_index(pf, rg, 0, &oi));
        for (uint32_t p = 0; p < oi->num_pages; p++)
            assert_true(oi->page_locations[p].compressed_page_size < 400000);
        assert_true(oi->num_pages >= 2);
        floe_pq_offset_index_free(oi);
    }
    floe_pq_file_close(pf);
    floe_pq_write_result_free(res);
    /* and it reads back */
    floe_pq_reader *r = NULL;
    assert_ok(floe_pq_reader_open_path(path, NULL, &r));
    int64_t rows = 0;
    for (;;) {
        floe_batch *got = NULL;
        assert_ok(floe_pq_reader_next(r, &got));
        if (!got) break;
        for (int64_t i = 0; i < got->num_rows; i++) {
            floe_strview v = floe_array_get_str(got->columns[0], i);
            assert_int_equal(v.len, 100000);
            assert_int_equal(atoi(v.data), rows + i);
        }
        rows += got->num_rows;
        floe_batch_release(got);
    }
    assert_int_equal(rows, 64);
    floe_pq_reader_close(r);
    floe_batch_release(batch);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(s);
}

static void sliced_batches_write_only_their_rows(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_slices");
    snprintf(path, sizeof path, "%s/s.parquet", dir);
    floe_schema *schema = NULL;
    assert_ok(pq_sample_schema(&schema));
    floe_batch *all = NULL, *a = NULL, *b = NULL;
    assert_ok(pq_sample_batch(schema, 0, 1500, &all));
    assert_ok(floe_batch_slice(all, 300, 400, &a));  /* rows 300..699 */
    assert_ok(floe_batch_slice(all, 700, 555, &b));  /* rows 700..1254 */
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.row_group_rows = 500;
    o.page_rows = 128;
    floe_pq_writer *w = NULL;
    assert_ok(floe_pq_writer_open(out, schema, &o, &w));
    assert_ok(floe_pq_writer_write(w, a));
    assert_ok(floe_pq_writer_write(w, b));
    assert_ok(floe_pq_writer_close(w, NULL));
    check_rows(path, 300, 955);
    floe_batch_release(a);
    floe_batch_release(b);
    floe_batch_release(all);
    floe_type_release(schema);
}

static void batch_of_another_schema_is_a_type_error(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_schema");
    snprintf(path, sizeof path, "%s/x.parquet", dir);
    floe_schema *schema = NULL;
    assert_ok(pq_sample_schema(&schema));
    floe_field f = {(char *)"x", floe_type_primitive(FLOE_TYPE_INT64), true, 1};
    floe_schema *other = NULL;
    assert_ok(floe_type_struct(&f, 1, &other));
    floe_array *col = NULL;
    assert_ok(floe_array_new_nulls(other->children[0].type, 3, &col));
    floe_batch *b = NULL;
    assert_ok(floe_batch_new(other, &col, 1, 3, &b));
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_writer *w = NULL;
    assert_ok(floe_pq_writer_open(out, schema, NULL, &w));
    assert_error(floe_pq_writer_write(w, b), FLOE_ERR_TYPE, "does not match");
    floe_pq_writer_abort(w);
    struct stat sb;
    assert_int_not_equal(stat(path, &sb), 0);
    floe_batch_release(b);
    floe_array_release(col);
    floe_type_release(other);
    floe_type_release(schema);
}

static void all_null_columns_get_null_counts_and_null_pages(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_nulls");
    snprintf(path, sizeof path, "%s/n.parquet", dir);
    floe_field f[2] = {{(char *)"n", floe_type_primitive(FLOE_TYPE_NULL), true, 1},
                       {(char *)"k", floe_type_primitive(FLOE_TYPE_STRING), true, 2}};
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(f, 2, &s));
    floe_array *a[2] = {NULL, NULL};
    assert_ok(floe_array_new_nulls(f[0].type, 50, &a[0]));
    assert_ok(floe_array_new_nulls(f[1].type, 50, &a[1]));
    floe_batch *b = NULL;
    assert_ok(floe_batch_new(s, a, 2, 50, &b));
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.page_rows = 20;
    floe_pq_writer *w = NULL;
    assert_ok(floe_pq_writer_open(out, s, &o, &w));
    assert_ok(floe_pq_writer_write(w, b));
    floe_pq_write_result *res = NULL;
    assert_ok(floe_pq_writer_close(w, &res));
    for (int c = 0; c < 2; c++) {
        assert_int_equal(res->columns[c].null_count, 50);
        assert_int_equal(res->columns[c].value_count, 50);
        assert_false(res->columns[c].has_bounds);
    }
    floe_pq_file *pf = NULL;
    assert_ok(floe_pq_file_open_path(path, &pf));
    assert_int_equal(pf->meta->schema[1].logical.kind, FLOE_PQ_LT_UNKNOWN);
    for (int c = 0; c < 2; c++) {
        const floe_pq_column_chunk *cc = floe_pq_file_chunk(pf, 0, c);
        assert_true(cc->meta_data.has_statistics);
        assert_int_equal(cc->meta_data.statistics.null_count, 50);
        assert_false(cc->meta_data.statistics.min_value.set);
        floe_pq_column_index *ci = NULL;
        assert_ok(floe_pq_file_read_column_index(pf, 0, c, &ci));
        assert_non_null(ci);
        assert_int_equal(ci->num_pages, 3);
        for (uint32_t p = 0; p < 3; p++) assert_true(ci->null_pages[p]);
        floe_pq_column_index_free(ci);
    }
    floe_pq_file_close(pf);
    floe_pq_write_result_free(res);
    floe_batch_release(b);
    floe_array_release(a[0]);
    floe_array_release(a[1]);
    floe_type_release(s);
}

static void bloom_filter_is_sized_by_distinct_values(void **state) {
    (void)state;
    char dir[512], path[700];
    floe_test_tmpdir(dir, sizeof dir, "pqw_bloom");
    snprintf(path, sizeof path, "%s/b.parquet", dir);
    floe_field f = {(char *)"x", floe_type_primitive(FLOE_TYPE_INT64), false, 5};
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(&f, 1, &s));
    int64_t n = 200000;
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(s->children[0].type, n, &b));
    for (int64_t i = 0; i < n; i++) assert_ok(floe_builder_append_int64(b, i % 1000));
    floe_array *a = NULL;
    assert_ok(floe_builder_finish(b, &a));
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(s, &a, 1, n, &batch));
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    floe_pq_column_option co = {5, NULL, FLOE_PQ_WENC_DEFAULT, true};
    o.columns = &co;
    o.n_columns = 1;
    floe_pq_writer *w = NULL;
    assert_ok(floe_pq_writer_open(out, s, &o, &w));
    assert_ok(floe_pq_writer_write(w, batch));
    assert_ok(floe_pq_writer_close(w, NULL));
    floe_pq_file *pf = NULL;
    assert_ok(floe_pq_file_open_path(path, &pf));
    const floe_pq_column_meta *m = &floe_pq_file_chunk(pf, 0, 0)->meta_data;
    assert_true(m->has_bloom_filter_offset && m->has_bloom_filter_length);
    uint8_t *buf = floe_malloc((size_t)m->bloom_filter_length);
    assert_non_null(buf);
    assert_ok(floe_input_read(pf->in, (uint64_t)m->bloom_filter_offset,
                              (size_t)m->bloom_filter_length, buf));
    floe_pq_bloom_filter_header hdr;
    size_t used = 0;
    assert_ok(floe_pq_decode_bloom_filter_header(buf, (size_t)m->bloom_filter_length, 0, &hdr,
                                                 &used));
    /* 1000 distinct values at 1% need ~1.2 KB: sized by distinct values */
    assert_true(hdr.num_bytes >= 1024 && hdr.num_bytes <= 4096);
    assert_int_equal((size_t)hdr.num_bytes + used, (size_t)m->bloom_filter_length);
    uint32_t *words = floe_malloc((size_t)hdr.num_bytes);
    assert_non_null(words);
    memcpy(words, buf + used, (size_t)hdr.num_bytes);
    for (int64_t v = 0; v < 1000; v++)
        assert_true(pqw_bloom_check(words, (uint32_t)hdr.num_bytes / 32, pqw_xxh64(&v, 8)));
    floe_free(words);
    floe_free(buf);
    floe_pq_file_close(pf);
    floe_batch_release(batch);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(s);
}

FLOE_TEST_MAIN(cmocka_unit_test(every_codec_round_trips_every_type),
               cmocka_unit_test(plain_delta_rle_and_dictionary_fallback_round_trip),
               cmocka_unit_test(bad_encoding_override_is_rejected),
               cmocka_unit_test(footer_has_field_ids_orders_stats_and_page_index),
               cmocka_unit_test(metrics_report_counts_and_untruncated_bounds),
               cmocka_unit_test(null_in_required_column_fails_the_write),
               cmocka_unit_test(all_nan_page_drops_the_column_index),
               cmocka_unit_test(empty_file_is_valid),
               cmocka_unit_test(long_strings_get_truncated_page_bounds),
               cmocka_unit_test(row_groups_and_pages_split_by_bytes),
               cmocka_unit_test(sliced_batches_write_only_their_rows),
               cmocka_unit_test(batch_of_another_schema_is_a_type_error),
               cmocka_unit_test(all_null_columns_get_null_counts_and_null_pages),
               cmocka_unit_test(bloom_filter_is_sized_by_distinct_values))

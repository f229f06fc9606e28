/* Parquet footers and metadata: every file of apache/parquet-testing decodes
 * (or is refused as encrypted), known facts hold, metadata re-encodes to the
 * same bytes, page headers / page indexes / bloom filter headers decode, and
 * truncated, bit-flipped and known-bad files fail cleanly. */
#include "floe_test.h"

#include <dirent.h>

#include "base/buffer.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/parquet/file.h"

#define PQT "apache__parquet-testing"

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static floe_pq_file *open_testfile(const char *rel) {
    FLOE_NEED_TESTDATA(dir);
    char path[4096];
    floe_test_path(path, sizeof path, dir, rel);
    floe_pq_file *f = NULL;
    assert_ok(floe_pq_file_open_path(path, &f));
    return f;
}

/* Read a whole test file into memory (floe_malloc'd). */
static uint8_t *slurp(const char *rel, size_t *len) {
    const char *dir = floe_testdata_dir();
    char path[4096];
    floe_test_path(path, sizeof path, dir, rel);
    floe_input *in;
    assert_ok(floe_input_open_local(path, &in));
    uint8_t *data;
    assert_ok(floe_input_read_all(in, &data, len));
    floe_input_close(in);
    return data;
}

/* Encode the decoded footer, decode that, encode again: the two encodings
 * must be identical and the facts preserved. */
static void assert_reencodes(const floe_pq_file_metadata *md) {
    floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
    assert_ok(floe_pq_encode_file_metadata(md, &a));
    floe_pq_file_metadata *md2;
    assert_ok(floe_pq_decode_file_metadata(a.data, a.len, 0, &md2));
    assert_ok(floe_pq_encode_file_metadata(md2, &b));
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    assert_true(md2->num_rows == md->num_rows);
    assert_int_equal(md2->num_schema, md->num_schema);
    assert_int_equal(md2->num_row_groups, md->num_row_groups);
    for (uint32_t i = 0; i < md->num_schema; i++)
        assert_string_equal(md2->schema[i].name, md->schema[i].name);
    floe_pq_file_metadata_free(md2);
    floe_buf_free(&a);
    floe_buf_free(&b);
}

/* Open every file in one directory; returns how many were checked. */
static int check_directory(const char *dir, int *encrypted) {
    DIR *d = opendir(dir);
    if (!d) fail_msg("cannot list %s", dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        floe_pq_file *f = NULL;
        if (ends_with(de->d_name, ".parquet")) {
            floe_status st = floe_pq_file_open_path(path, &f);
            if (st) fail_msg("%s: %s", path, floe_status_message(st));
            assert_true(f->meta->num_schema > 0);
            assert_true(floe_pq_schema_num_columns(f->schema) > 0);
            assert_reencodes(f->meta);
            floe_pq_file_close(f);
            n++;
        } else if (ends_with(de->d_name, ".parquet.encrypted")) {
            assert_error(floe_pq_file_open_path(path, &f), FLOE_ERR_UNSUPPORTED,
                         "encrypted Parquet is not supported");
            assert_null(f);
            (*encrypted)++;
            n++;
        }
    }
    closedir(d);
    return n;
}

static void every_parquet_testing_footer_decodes(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    char path[4096];
    int encrypted = 0, n = 0;
    n += check_directory(floe_test_path(path, sizeof path, dir, PQT "/data"), &encrypted);
    n += check_directory(floe_test_path(path, sizeof path, dir, PQT "/data/aes256"), &encrypted);
    n += check_directory(floe_test_path(path, sizeof path, dir, PQT "/data/geospatial"),
                         &encrypted);
    assert_true(n >= 80);
    assert_true(encrypted >= 13);
}

static void alltypes_plain_has_known_facts(void **state) {
    (void)state;
    floe_pq_file *f = open_testfile(PQT "/data/alltypes_plain.parquet");
    const floe_pq_file_metadata *md = f->meta;
    assert_int_equal(md->num_rows, 8);
    assert_int_equal(md->num_row_groups, 1);
    assert_int_equal(md->row_groups[0].num_rows, 8);
    assert_non_null(md->created_by);
    assert_true(strncmp(md->created_by, "impala", 6) == 0);
    assert_int_equal(floe_pq_schema_num_columns(f->schema), 11);
    static const char *const names[] = {"id", "bool_col", "tinyint_col", "smallint_col",
                                        "int_col", "bigint_col", "float_col", "double_col",
                                        "date_string_col", "string_col", "timestamp_col"};
    static const floe_pq_type types[] = {FLOE_PQ_INT32, FLOE_PQ_BOOLEAN, FLOE_PQ_INT32,
                                         FLOE_PQ_INT32, FLOE_PQ_INT32, FLOE_PQ_INT64,
                                         FLOE_PQ_FLOAT, FLOE_PQ_DOUBLE, FLOE_PQ_BYTE_ARRAY,
                                         FLOE_PQ_BYTE_ARRAY, FLOE_PQ_INT96};
    for (int i = 0; i < 11; i++) {
        const floe_pq_column *c = floe_pq_schema_column(f->schema, i);
        assert_string_equal(c->path, names[i]);
        assert_int_equal(c->physical, types[i]);
        assert_int_equal(c->max_def_level, 1);
        assert_int_equal(c->max_rep_level, 0);
        assert_int_equal(f->meta->row_groups[0].columns[i].meta_data.num_values, 8);
    }
    assert_int_equal(floe_pq_schema_column(f->schema, 10)->kind, FLOE_PQ_KIND_TIMESTAMP_NS);
    assert_ptr_equal(floe_pq_schema_find_column(f->schema, "double_col"),
                     floe_pq_schema_column(f->schema, 7));
    assert_null(floe_pq_schema_find_column(f->schema, "nope"));
    /* The footer: 730 bytes ending 8 bytes before the end. */
    assert_int_equal(f->footer_len, 730);
    assert_int_equal(f->footer_offset + f->footer_len + 8, f->size);
    uint64_t off, len;
    assert_ok(floe_pq_file_chunk_range(f, 0, 0, &off, &len));
    assert_int_equal(off, 4); /* dictionary page first */
    assert_int_equal(len, 73);
    assert_error(floe_pq_file_chunk_range(f, 0, 11, &off, &len), FLOE_ERR_INVALID_ARGUMENT,
                 "no column chunk 11");
    floe_pq_file_close(f);
}

static void other_files_have_known_facts(void **state) {
    (void)state;
    floe_pq_file *f = open_testfile(PQT "/data/sort_columns.parquet");
    assert_int_equal(f->meta->num_row_groups, 2);
    const floe_pq_row_group *rg = &f->meta->row_groups[0];
    assert_int_equal(rg->num_sorting_columns, 2);
    assert_int_equal(rg->sorting_columns[0].column_idx, 0);
    assert_true(rg->sorting_columns[0].descending);
    assert_true(rg->sorting_columns[0].nulls_first);
    assert_false(rg->sorting_columns[1].descending);
    assert_false(rg->sorting_columns[1].nulls_first);
    floe_pq_file_close(f);

    f = open_testfile(PQT "/data/column_chunk_key_value_metadata.parquet");
    const floe_pq_column_meta *m = &f->meta->row_groups[0].columns[0].meta_data;
    assert_int_equal(m->num_key_value_metadata, 2);
    assert_string_equal(m->key_value_metadata[0].key, "foo");
    assert_string_equal(m->key_value_metadata[0].value, "bar");
    assert_string_equal(m->key_value_metadata[1].key, "thisiskeywithoutvalue");
    assert_null(m->key_value_metadata[1].value);
    floe_pq_file_close(f);

    f = open_testfile(PQT "/data/binary_truncated_min_max.parquet");
    const floe_pq_statistics *s = &f->meta->row_groups[0].columns[0].meta_data.statistics;
    assert_true(s->min_value.set && s->max_value.set);
    assert_true(s->has_is_min_value_exact && !s->is_min_value_exact);
    assert_true(s->has_is_max_value_exact && !s->is_max_value_exact);
    floe_pq_file_close(f);

    f = open_testfile(PQT "/data/unknown-logical-type.parquet");
    const floe_pq_column *c = floe_pq_schema_column(f->schema, 1);
    assert_int_equal(c->element->logical.kind, FLOE_PQ_LT_UNRECOGNIZED);
    assert_int_equal(c->kind, FLOE_PQ_KIND_BINARY);
    assert_int_equal(floe_pq_schema_column(f->schema, 0)->kind, FLOE_PQ_KIND_STRING);
    floe_pq_file_close(f);
}

static void page_headers_decode_at_chunk_offsets(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    size_t len;
    uint8_t *data = slurp(PQT "/data/alltypes_plain.parquet", &len);
    floe_pq_page_header ph;
    size_t used;
    /* Column `id`: a dictionary page at 4, the data page at 49. */
    assert_ok(floe_pq_decode_page_header(data + 4, len - 4, 4, &ph, &used));
    assert_int_equal(ph.type, FLOE_PQ_PAGE_DICTIONARY);
    assert_true(ph.has_dictionary_page_header);
    assert_int_equal(ph.dictionary_page_header.num_values, 8);
    assert_int_equal(4 + used + (size_t)ph.compressed_page_size, 49);
    assert_ok(floe_pq_decode_page_header(data + 49, len - 49, 49, &ph, &used));
    assert_int_equal(ph.type, FLOE_PQ_PAGE_DATA);
    assert_true(ph.has_data_page_header);
    assert_int_equal(ph.data_page_header.num_values, 8);
    /* Re-encoding gives the same bytes. */
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_pq_encode_page_header(&ph, &b));
    assert_int_equal(b.len, used);
    assert_memory_equal(b.data, data + 49, used);
    floe_buf_free(&b);
    /* A header cut short fails and names its offset. */
    for (size_t n = 0; n < used; n++)
        assert_error(floe_pq_decode_page_header(data + 49, n, 49, &ph, &used),
                     FLOE_ERR_CORRUPT, "offset");
    floe_free(data);
}

static void page_header_v2_round_trips_and_rejects_negative_sizes(void **state) {
    (void)state;
    floe_pq_page_header ph;
    memset(&ph, 0, sizeof ph);
    ph.type = FLOE_PQ_PAGE_DATA_V2;
    ph.uncompressed_page_size = 100;
    ph.compressed_page_size = 60;
    ph.has_crc = true;
    ph.crc = -123456;
    ph.has_data_page_header_v2 = true;
    floe_pq_data_page_header_v2 *v2 = &ph.data_page_header_v2;
    v2->num_values = 10;
    v2->num_nulls = 2;
    v2->num_rows = 7;
    v2->encoding = FLOE_PQ_ENC_RLE_DICTIONARY;
    v2->definition_levels_byte_length = 4;
    v2->repetition_levels_byte_length = 3;
    v2->is_compressed = false;
    v2->has_statistics = true;
    v2->statistics.min_value = (floe_pq_bytes){(const uint8_t *)"ab", 2, true};
    v2->statistics.max_value = (floe_pq_bytes){(const uint8_t *)"yz", 2, true};
    v2->statistics.has_null_count = true;
    v2->statistics.null_count = 2;
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_pq_encode_page_header(&ph, &b));
    floe_pq_page_header back;
    size_t used;
    assert_ok(floe_pq_decode_page_header(b.data, b.len, 0, &back, &used));
    assert_int_equal(used, b.len);
    assert_int_equal(back.crc, -123456);
    assert_true(back.has_data_page_header_v2);
    assert_int_equal(back.data_page_header_v2.num_rows, 7);
    assert_false(back.data_page_header_v2.is_compressed);
    assert_int_equal(back.data_page_header_v2.statistics.null_count, 2);
    assert_memory_equal(back.data_page_header_v2.statistics.max_value.data, "yz", 2);

    floe_buf_clear(&b);
    ph.compressed_page_size = -1;
    assert_ok(floe_pq_encode_page_header(&ph, &b));
    assert_error(floe_pq_decode_page_header(b.data, b.len, 77, &back, &used), FLOE_ERR_CORRUPT,
                 "negative page size");
    floe_buf_clear(&b);
    ph.compressed_page_size = 60;
    v2->num_nulls = 11; /* more nulls than values */
    assert_ok(floe_pq_encode_page_header(&ph, &b));
    assert_error(floe_pq_decode_page_header(b.data, b.len, 77, &back, &used), FLOE_ERR_CORRUPT,
                 "DataPageHeaderV2");
    floe_buf_free(&b);
}

static void page_indexes_read_on_demand(void **state) {
    (void)state;
    floe_pq_file *f = open_testfile(PQT "/data/alltypes_tiny_pages.parquet");
    floe_pq_offset_index *oi;
    floe_pq_column_index *ci;
    assert_ok(floe_pq_file_read_offset_index(f, 0, 0, &oi));
    assert_ok(floe_pq_file_read_column_index(f, 0, 0, &ci));
    assert_non_null(oi);
    assert_non_null(ci);
    assert_true(oi->num_pages > 10);
    assert_int_equal(ci->num_pages, oi->num_pages);
    assert_int_equal(oi->page_locations[0].first_row_index, 0);
    for (uint32_t i = 1; i < oi->num_pages; i++) {
        assert_true(oi->page_locations[i].first_row_index >
                    oi->page_locations[i - 1].first_row_index);
        assert_true(oi->page_locations[i].offset > oi->page_locations[i - 1].offset);
    }
    /* No page of `id` is all nulls and each page's min <= max; together
     * the pages cover the chunk's statistics range. */
    const floe_pq_statistics *st = &floe_pq_file_chunk(f, 0, 0)->meta_data.statistics;
    int32_t lo = INT32_MAX, hi = INT32_MIN, smin, smax;
    memcpy(&smin, st->min_value.data, 4);
    memcpy(&smax, st->max_value.data, 4);
    for (uint32_t i = 0; i < ci->num_pages; i++) {
        assert_false(ci->null_pages[i]);
        assert_int_equal(ci->min_values[i].len, 4);
        assert_int_equal(ci->max_values[i].len, 4);
        int32_t mn, mx;
        memcpy(&mn, ci->min_values[i].data, 4);
        memcpy(&mx, ci->max_values[i].data, 4);
        assert_true(mn <= mx);
        if (mn < lo) lo = mn;
        if (mx > hi) hi = mx;
    }
    assert_int_equal(lo, smin);
    assert_int_equal(hi, smax);
    /* Both re-encode to what the file holds. */
    const floe_pq_column_chunk *cc = floe_pq_file_chunk(f, 0, 0);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_pq_encode_offset_index(oi, &b));
    assert_int_equal(b.len, cc->offset_index_length);
    floe_buf_clear(&b);
    assert_ok(floe_pq_encode_column_index(ci, &b));
    assert_int_equal(b.len, cc->column_index_length);
    floe_buf_free(&b);
    floe_pq_offset_index_free(oi);
    floe_pq_column_index_free(ci);
    floe_pq_file_close(f);

    /* A file without page indexes gives NULL, not an error. */
    f = open_testfile(PQT "/data/alltypes_plain.parquet");
    assert_ok(floe_pq_file_read_offset_index(f, 0, 0, &oi));
    assert_null(oi);
    assert_ok(floe_pq_file_read_column_index(f, 0, 0, &ci));
    assert_null(ci);
    floe_pq_file_close(f);
}

static void bloom_filter_header_decodes(void **state) {
    (void)state;
    floe_pq_file *f = open_testfile(PQT "/data/data_index_bloom_encoding_stats.parquet");
    const floe_pq_column_meta *m = &floe_pq_file_chunk(f, 0, 0)->meta_data;
    assert_true(m->has_bloom_filter_offset);
    uint8_t buf[64];
    size_t n = f->size - (uint64_t)m->bloom_filter_offset < sizeof buf
                   ? (size_t)(f->size - (uint64_t)m->bloom_filter_offset) : sizeof buf;
    assert_ok(floe_input_read(f->in, (uint64_t)m->bloom_filter_offset, n, buf));
    floe_pq_bloom_filter_header h;
    size_t used;
    assert_ok(floe_pq_decode_bloom_filter_header(buf, n, (uint64_t)m->bloom_filter_offset, &h,
                                                 &used));
    assert_int_equal(h.algorithm, 1);
    assert_int_equal(h.hash, 1);
    assert_int_equal(h.compression, 1);
    assert_true(h.num_bytes >= 32 && (h.num_bytes & (h.num_bytes - 1)) == 0);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_pq_encode_bloom_filter_header(&h, &b));
    assert_int_equal(b.len, used);
    assert_memory_equal(b.data, buf, used);
    floe_buf_free(&b);
    floe_pq_file_close(f);
}

static void bad_data_files_decode_or_fail_cleanly(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    char bad[4096];
    floe_test_path(bad, sizeof bad, dir, PQT "/bad_data");
    DIR *d = opendir(bad);
    assert_non_null(d);
    struct dirent *de;
    int n = 0, failed = 0;
    while ((de = readdir(d))) {
        if (!ends_with(de->d_name, ".parquet")) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", bad, de->d_name);
        floe_pq_file *f = NULL;
        floe_status st = floe_pq_file_open_path(path, &f);
        n++;
        if (!st) {
            /* Decoded: every chunk range is either valid or a clean error. */
            for (uint32_t g = 0; g < f->meta->num_row_groups; g++)
                for (int c = 0; c < floe_pq_schema_num_columns(f->schema); c++) {
                    uint64_t off, len;
                    floe_status_free(floe_pq_file_chunk_range(f, (int)g, c, &off, &len));
                }
            floe_pq_file_close(f);
            continue;
        }
        failed++;
        floe_code code = floe_status_code(st);
        assert_true(code == FLOE_ERR_CORRUPT || code == FLOE_ERR_UNSUPPORTED);
        assert_non_null(strstr(floe_status_message(st), de->d_name));
        assert_non_null(strstr(floe_status_message(st), "offset"));
        floe_status_free(st);
    }
    closedir(d);
    assert_true(n >= 8);
    /* PARQUET-1481 (corrupt schema type) and ARROW-GH-41317 at least. */
    assert_true(failed >= 2);
}

static void truncated_files_fail_cleanly(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    size_t len;
    uint8_t *data = slurp(PQT "/data/alltypes_plain.parquet", &len);
    for (size_t n = 0; n < len; n++) {
        /* An exact-size copy lets ASan catch any read past the end. */
        uint8_t *copy = floe_malloc(n ? n : 1);
        memcpy(copy, data, n);
        floe_input *in;
        assert_ok(floe_input_from_memory(copy, n, "cut.parquet", &in));
        floe_pq_file *f = NULL;
        floe_status st = floe_pq_file_open(in, &f);
        if (!st) fail_msg("file truncated to %zu of %zu bytes opened", n, len);
        assert_int_equal(floe_status_code(st), FLOE_ERR_CORRUPT);
        assert_non_null(strstr(floe_status_message(st), "cut.parquet"));
        floe_status_free(st);
        floe_input_close(in);
        floe_free(copy);
    }
    /* The footer alone, cut at every length. */
    uint32_t flen = (uint32_t)data[len - 8] | (uint32_t)data[len - 7] << 8;
    const uint8_t *footer = data + len - 8 - flen;
    for (uint32_t n = 0; n < flen; n++) {
        uint8_t *copy = floe_malloc(n ? n : 1);
        memcpy(copy, footer, n);
        floe_pq_file_metadata *md;
        floe_status st = floe_pq_decode_file_metadata(copy, n, 1000, &md);
        if (!st) fail_msg("footer cut to %u of %u bytes decoded", n, flen);
        assert_int_equal(floe_status_code(st), FLOE_ERR_CORRUPT);
        assert_non_null(strstr(floe_status_message(st), "at offset 1"));
        floe_status_free(st);
        floe_free(copy);
    }
    floe_free(data);
}

static void bit_flipped_footers_fail_cleanly(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    size_t len;
    uint8_t *data = slurp(PQT "/data/nested_maps.snappy.parquet", &len);
    uint32_t flen = (uint32_t)data[len - 8] | (uint32_t)data[len - 7] << 8;
    size_t start = len - 8 - flen;
    static const uint8_t masks[] = {0x01, 0x04, 0x10, 0x80, 0xff};
    int opened = 0, failed = 0;
    uint8_t *copy = floe_malloc(len);
    for (size_t i = start; i < len; i++) {
        for (size_t m = 0; m < sizeof masks; m++) {
            memcpy(copy, data, len);
            copy[i] ^= masks[m];
            floe_input *in;
            assert_ok(floe_input_from_memory(copy, len, "flip.parquet", &in));
            floe_pq_file *f = NULL;
            floe_status st = floe_pq_file_open(in, &f);
            if (st) {
                failed++;
                assert_non_null(strstr(floe_status_message(st), "flip.parquet"));
                floe_status_free(st);
            } else {
                opened++;
                floe_pq_file_close(f);
            }
            floe_input_close(in);
        }
    }
    floe_free(copy);
    floe_free(data);
    assert_true(failed > 0);
    assert_true(opened > 0); /* flips inside names or statistics are harmless */
}

/* A Parquet file with the given footer and no data. */
static void frame_footer(const floe_buf *footer, floe_buf *file) {
    uint8_t len[4] = {(uint8_t)footer->len, (uint8_t)(footer->len >> 8),
                      (uint8_t)(footer->len >> 16), (uint8_t)(footer->len >> 24)};
    assert_ok(floe_buf_append(file, "PAR1", 4));
    assert_ok(floe_buf_append(file, footer->data, footer->len));
    assert_ok(floe_buf_append(file, len, 4));
    assert_ok(floe_buf_append(file, "PAR1", 4));
}

static void footer_larger_than_the_speculative_read(void **state) {
    (void)state;
    floe_pq_schema_element schema[2];
    memset(schema, 0, sizeof schema);
    schema[0].name = "root";
    schema[0].has_num_children = true;
    schema[0].num_children = 1;
    schema[0].converted_type = FLOE_PQ_CT_NONE;
    schema[1].name = "x";
    schema[1].has_type = true;
    schema[1].type = FLOE_PQ_INT64;
    schema[1].has_repetition = true;
    schema[1].repetition = FLOE_PQ_OPTIONAL;
    schema[1].converted_type = FLOE_PQ_CT_NONE;
    size_t big = 3 * FLOE_PQ_FOOTER_SPECULATIVE_READ;
    char *value = floe_malloc(big + 1);
    memset(value, 'v', big);
    value[big] = 0;
    floe_pq_key_value kv = {"big", value, (uint32_t)big};
    floe_pq_file_metadata md;
    memset(&md, 0, sizeof md);
    md.version = 2;
    md.schema = schema;
    md.num_schema = 2;
    md.num_rows = 0;
    md.key_value_metadata = &kv;
    md.num_key_value_metadata = 1;
    md.created_by = "floe test";
    floe_buf footer = FLOE_BUF_INIT, file = FLOE_BUF_INIT;
    assert_ok(floe_pq_encode_file_metadata(&md, &footer));
    frame_footer(&footer, &file);
    floe_input *in;
    assert_ok(floe_input_from_memory(file.data, file.len, "big.parquet", &in));
    floe_pq_file *f;
    assert_ok(floe_pq_file_open(in, &f));
    assert_true(f->footer_len > FLOE_PQ_FOOTER_SPECULATIVE_READ);
    assert_string_equal(f->meta->created_by, "floe test");
    assert_int_equal(f->meta->key_value_metadata[0].value_len, big);
    assert_int_equal(f->meta->row_groups == NULL, 1);
    assert_int_equal(floe_pq_schema_column(f->schema, 0)->kind, FLOE_PQ_KIND_INT64);
    floe_pq_file_close(f);
    floe_input_close(in);

    /* The same footer with a wrong length field. */
    floe_buf_clear(&file);
    frame_footer(&footer, &file);
    file.data[file.len - 5] = 0x7f; /* length now > file size */
    assert_ok(floe_input_from_memory(file.data, file.len, "badlen.parquet", &in));
    assert_error(floe_pq_file_open(in, &f), FLOE_ERR_CORRUPT, "exceeds the file");
    floe_input_close(in);
    /* And without the head magic. */
    floe_buf_clear(&file);
    frame_footer(&footer, &file);
    file.data[0] = 'X';
    assert_ok(floe_input_from_memory(file.data, file.len, "nohead.parquet", &in));
    assert_error(floe_pq_file_open(in, &f), FLOE_ERR_CORRUPT, "no PAR1 magic at offset 0");
    floe_input_close(in);
    floe_buf_free(&footer);
    floe_buf_free(&file);
    floe_free(value);
}

static void missing_required_field_is_named(void **state) {
    (void)state;
    /* FileMetaData with only version (1) and num_rows (3): schema missing. */
    const uint8_t footer[] = {0x15, 0x02, 0x26, 0x10, 0x00};
    floe_pq_file_metadata *md;
    assert_error(floe_pq_decode_file_metadata(footer, sizeof footer, 100, &md),
                 FLOE_ERR_CORRUPT, "FileMetaData: required field 2 (schema) missing");
}

/* A small footer claiming a huge list of (empty) column chunks must not make
 * floe allocate hundreds of bytes per encoded byte. */
static void implausible_lists_are_refused_before_allocating(void **state) {
    (void)state;
    enum { N = 100000 };
    uint8_t *footer = floe_malloc(N + 16);
    size_t k = 0;
    footer[k++] = 0x49; /* field 4 (row_groups): list */
    footer[k++] = 0x1c; /* one struct */
    footer[k++] = 0x19; /* RowGroup field 1 (columns): list */
    footer[k++] = 0xfc; /* long form, structs */
    footer[k++] = (uint8_t)(0x80 | (N & 0x7f));
    footer[k++] = (uint8_t)(0x80 | ((N >> 7) & 0x7f));
    footer[k++] = (uint8_t)(N >> 14);
    memset(footer + k, 0, N); /* N empty ColumnChunks */
    k += N;
    footer[k++] = 0;
    footer[k++] = 0;
    floe_pq_file_metadata *md;
    assert_error(floe_pq_decode_file_metadata(footer, k, 0, &md), FLOE_ERR_CORRUPT,
                 "list of 100000 elements is implausibly large");
    floe_free(footer);
}

FLOE_TEST_MAIN(cmocka_unit_test(implausible_lists_are_refused_before_allocating),
               cmocka_unit_test(every_parquet_testing_footer_decodes),
               cmocka_unit_test(alltypes_plain_has_known_facts),
               cmocka_unit_test(other_files_have_known_facts),
               cmocka_unit_test(page_headers_decode_at_chunk_offsets),
               cmocka_unit_test(page_header_v2_round_trips_and_rejects_negative_sizes),
               cmocka_unit_test(page_indexes_read_on_demand),
               cmocka_unit_test(bloom_filter_header_decodes),
               cmocka_unit_test(bad_data_files_decode_or_fail_cleanly),
               cmocka_unit_test(truncated_files_fail_cleanly),
               cmocka_unit_test(bit_flipped_footers_fail_cleanly),
               cmocka_unit_test(footer_larger_than_the_speculative_read),
               cmocka_unit_test(missing_required_field_is_named))

/*
 * test_manifest.c — Iceberg manifests and manifest lists: write -> read
 * round trips for format versions 1, 2 and 3 (every data_file field,
 * inheritance of snapshot ids and sequence numbers), the data_file record
 * as standalone Avro bytes, real manifest lists from other writers (legacy
 * field names), corrupt input, and live files of real tables.
 */
#include "floe_test.h"

#include "base/arena.h"
#include "base/threadpool.h"
#include "floe/iceberg_manifest.h"
#include "floe/memory.h"

static floe_ice_schema *test_schema(void) {
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(
        "{\"type\":\"struct\",\"schema-id\":3,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
        "{\"id\":3,\"name\":\"s\",\"required\":false,\"type\":\"string\"},"
        "{\"id\":4,\"name\":\"d\",\"required\":false,\"type\":\"decimal(9,2)\"},"
        "{\"id\":5,\"name\":\"u\",\"required\":false,\"type\":\"uuid\"}]}",
        &s));
    return s;
}

static floe_ice_partition_spec *test_spec(void) {
    floe_ice_partition_spec *p = NULL;
    assert_ok(floe_ice_partition_spec_from_json_text(
        "{\"spec-id\":2,\"fields\":["
        "{\"name\":\"id_b\",\"transform\":\"bucket[16]\",\"source-id\":1,\"field-id\":1000},"
        "{\"name\":\"ts_day\",\"transform\":\"day\",\"source-id\":2,\"field-id\":1001},"
        "{\"name\":\"s\",\"transform\":\"identity\",\"source-id\":3,\"field-id\":1002},"
        "{\"name\":\"d\",\"transform\":\"identity\",\"source-id\":4,\"field-id\":1003},"
        "{\"name\":\"u\",\"transform\":\"identity\",\"source-id\":5,\"field-id\":1004}]}",
        &p));
    return p;
}

static const uint8_t UUID[16] = {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd,
                                 0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7};

/* A data_file with every field set (those of `version`). */
typedef struct sample {
    floe_ice_data_file f;
    floe_ice_value part[5];
    int32_t keys[2];
    int64_t counts[2];
    uint8_t lo[8], hi[8];
    const uint8_t *lov[2], *hiv[2];
    uint32_t lens[2];
    int64_t splits[3];
    int32_t eq[2];
    uint8_t key_md[3];
} sample;

static void make_sample(sample *s, int i, int version) {
    memset(s, 0, sizeof *s);
    floe_ice_data_file_init(&s->f);
    floe_ice_data_file *f = &s->f;
    f->content = version >= 2 && i == 1 ? FLOE_ICE_CONTENT_EQUALITY_DELETES : FLOE_ICE_CONTENT_DATA;
    f->file_path = i == 0 ? "s3://b/t/data/a.parquet" : "s3://b/t/data/b.parquet";
    f->file_format = "PARQUET";
    s->part[0] = floe_ice_int(7 + i);
    s->part[1] = floe_ice_date(19000 + i);
    s->part[2] = i == 0 ? floe_ice_string_z("caf\xc3\xa9") : floe_ice_null(FLOE_ICE_STRING);
    s->part[3] = floe_ice_decimal(-12345 - i, 2);
    s->part[4] = floe_ice_uuid(UUID);
    f->n_partition = 5;
    f->partition = s->part;
    f->record_count = 1000 + i;
    f->file_size_in_bytes = 65536 + i;
    s->keys[0] = 1, s->keys[1] = 3;
    s->counts[0] = 10, s->counts[1] = 20;
    f->column_sizes = (floe_ice_count_map){2, s->keys, s->counts};
    f->value_counts = (floe_ice_count_map){2, s->keys, s->counts};
    f->null_value_counts = (floe_ice_count_map){2, s->keys, s->counts};
    f->nan_value_counts = (floe_ice_count_map){0, NULL, NULL};
    int64_t lo = -5, hi = 500;
    memcpy(s->lo, &lo, 8); /* little-endian host: Appendix D long */
    memcpy(s->hi, &hi, 8);
    s->lov[0] = s->lo, s->hiv[0] = s->hi;
    s->lov[1] = (const uint8_t *)"a", s->hiv[1] = (const uint8_t *)"zz";
    s->lens[0] = 8, s->lens[1] = 1;
    f->lower_bounds = (floe_ice_bound_map){2, s->keys, s->lov, s->lens};
    f->upper_bounds = (floe_ice_bound_map){1, s->keys, s->hiv, s->lens};
    memcpy(s->key_md, "\x01\x02\x03", 3);
    f->key_metadata = s->key_md;
    f->key_metadata_len = 3;
    s->splits[0] = 4, s->splits[1] = 100, s->splits[2] = 200;
    f->n_split_offsets = 3;
    f->split_offsets = s->splits;
    f->has_sort_order_id = true;
    f->sort_order_id = 1;
    if (version >= 2 && f->content == FLOE_ICE_CONTENT_EQUALITY_DELETES) {
        s->eq[0] = 1, s->eq[1] = 3;
        f->n_equality_ids = 2;
        f->equality_ids = s->eq;
        f->referenced_data_file = "s3://b/t/data/a.parquet";
    }
    if (version >= 3 && i == 0) {
        f->has_first_row_id = true;
        f->first_row_id = 77;
    }
    if (version >= 3 && i == 1) {
        f->has_content_offset = f->has_content_size_in_bytes = true;
        f->content_offset = 4;
        f->content_size_in_bytes = 40;
    }
}

static void assert_same_file(const floe_ice_data_file *a, const floe_ice_data_file *b, int version) {
    assert_int_equal(a->content, b->content);
    assert_string_equal(a->file_path, b->file_path);
    assert_string_equal(a->file_format, b->file_format);
    assert_int_equal(a->n_partition, b->n_partition);
    for (int32_t i = 0; i < a->n_partition; i++)
        if (!floe_ice_value_equals(&a->partition[i], &b->partition[i])) fail_msg("partition value %d differs", i);
    assert_true(a->record_count == b->record_count);
    assert_true(a->file_size_in_bytes == b->file_size_in_bytes);
    const floe_ice_count_map *am[] = {&a->column_sizes, &a->value_counts, &a->null_value_counts, &a->nan_value_counts};
    const floe_ice_count_map *bm[] = {&b->column_sizes, &b->value_counts, &b->null_value_counts, &b->nan_value_counts};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(am[k]->n, bm[k]->n);
        for (int32_t i = 0; i < am[k]->n; i++) {
            assert_int_equal(am[k]->keys[i], bm[k]->keys[i]);
            assert_true(am[k]->values[i] == bm[k]->values[i]);
        }
    }
    const floe_ice_bound_map *ab[] = {&a->lower_bounds, &a->upper_bounds}, *bb[] = {&b->lower_bounds, &b->upper_bounds};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(ab[k]->n, bb[k]->n);
        for (int32_t i = 0; i < ab[k]->n; i++) {
            assert_int_equal(ab[k]->lens[i], bb[k]->lens[i]);
            assert_memory_equal(ab[k]->values[i], bb[k]->values[i], ab[k]->lens[i]);
        }
    }
    assert_int_equal(a->key_metadata_len, b->key_metadata_len);
    assert_memory_equal(a->key_metadata, b->key_metadata, a->key_metadata_len);
    assert_int_equal(a->n_split_offsets, b->n_split_offsets);
    for (int32_t i = 0; i < a->n_split_offsets; i++) assert_true(a->split_offsets[i] == b->split_offsets[i]);
    assert_int_equal(a->has_sort_order_id, b->has_sort_order_id);
    assert_int_equal(a->sort_order_id, b->sort_order_id);
    if (version >= 2) {
        assert_int_equal(a->n_equality_ids, b->n_equality_ids);
        for (int32_t i = 0; i < a->n_equality_ids; i++) assert_int_equal(a->equality_ids[i], b->equality_ids[i]);
        if (a->referenced_data_file) assert_string_equal(a->referenced_data_file, b->referenced_data_file);
        else assert_null(b->referenced_data_file);
    }
    if (version >= 3) {
        assert_int_equal(a->has_content_offset, b->has_content_offset);
        assert_true(a->content_offset == b->content_offset);
        assert_true(a->content_size_in_bytes == b->content_size_in_bytes);
    }
}

static void write_and_read(int version) {
    char dir[1024], path[1200];
    char name[32];
    snprintf(name, sizeof name, "manifest_v%d", version);
    floe_test_tmpdir(dir, sizeof dir, name);
    snprintf(path, sizeof path, "%s/m.avro", dir);
    floe_ice_schema *schema = test_schema();
    floe_ice_partition_spec *spec = test_spec();
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_ice_manifest_writer *w = NULL;
    floe_ice_manifest_writer_options o = {version, FLOE_ICE_MANIFEST_DATA, schema, spec, 99};
    assert_ok(floe_ice_manifest_writer_open(out, &o, &w));
    sample s[3];
    for (int i = 0; i < 3; i++) {
        make_sample(&s[i], i % 2, version);
        if (i == 2) s[i].f.has_first_row_id = false; /* to be inherited */
        floe_ice_manifest_entry e = {i == 2 ? FLOE_ICE_STATUS_EXISTING : FLOE_ICE_STATUS_ADDED, -1, -1, -1, s[i].f};
        if (i == 2) e.snapshot_id = 50, e.sequence_number = 3, e.file_sequence_number = 4;
        assert_ok(floe_ice_manifest_writer_add(w, &e));
    }
    floe_ice_manifest_file sum;
    assert_ok(floe_ice_manifest_writer_finish(w, &sum));
    sum.manifest_length = (int64_t)out->bytes_written;
    assert_ok(floe_output_close(out));
    assert_int_equal(sum.added_files_count, 2);
    assert_int_equal(sum.existing_files_count, 1);
    assert_true(sum.added_rows_count == 1000 + 1001);
    assert_int_equal(sum.partition_spec_id, 2);

    /* The manifest list record it would get, then a manifest list round trip. */
    sum.manifest_path = path;
    sum.sequence_number = version >= 2 ? 8 : 0;
    sum.min_sequence_number = 3;
    sum.added_snapshot_id = 99;
    floe_ice_field_summary ps[5] = {{false, -1, (const uint8_t *)"\x07\0\0\0", 4, (const uint8_t *)"\x08\0\0\0", 4},
                                    {false, 0, NULL, 0, NULL, 0},
                                    {true, -1, (const uint8_t *)"caf", 3, NULL, 0},
                                    {false, 1, NULL, 0, NULL, 0},
                                    {false, -1, NULL, 0, NULL, 0}};
    sum.n_partitions = 5;
    sum.partitions = ps;
    sum.has_first_row_id = version >= 3;
    sum.first_row_id = 1000;
    char lpath[1200];
    snprintf(lpath, sizeof lpath, "%s/list.avro", dir);
    assert_ok(floe_output_create_local(lpath, 1, &out));
    floe_ice_manifest_list_options lo = {version, 99, 98, 8, version >= 3, 1000};
    assert_ok(floe_ice_manifest_list_write(out, &lo, &sum, 1));
    assert_ok(floe_output_close(out));

    floe_input *in = NULL;
    assert_ok(floe_input_open_local(lpath, &in));
    floe_ice_manifest_list *l = NULL;
    assert_ok(floe_ice_manifest_list_read(in, &l));
    floe_input_close(in);
    assert_int_equal(l->format_version, version);
    assert_int_equal(l->n_files, 1);
    const floe_ice_manifest_file *mf = &l->files[0];
    assert_string_equal(mf->manifest_path, path);
    assert_true(mf->manifest_length == sum.manifest_length);
    assert_int_equal(mf->partition_spec_id, 2);
    assert_true(mf->sequence_number == (version >= 2 ? 8 : 0));
    assert_true(mf->added_snapshot_id == 99);
    assert_int_equal(mf->added_files_count, 2);
    assert_int_equal(mf->n_partitions, 5);
    assert_memory_equal(mf->partitions[0].lower_bound, "\x07\0\0\0", 4);
    assert_int_equal(mf->partitions[1].contains_nan, 0);
    assert_true(mf->partitions[2].contains_null);
    assert_null(mf->partitions[2].upper_bound);
    assert_int_equal(mf->partitions[3].contains_nan, 1);
    assert_int_equal(mf->has_first_row_id, version >= 3);

    /* The manifest, read with its list record. */
    assert_ok(floe_input_open_local(path, &in));
    floe_ice_manifest *m = NULL;
    assert_ok(floe_ice_manifest_read(in, mf, &m));
    floe_input_close(in);
    assert_int_equal(m->format_version, version);
    assert_int_equal(m->spec_id, 2);
    assert_int_equal(m->schema_id, 3);
    assert_int_equal((int)m->n_entries, 3);
    for (int i = 0; i < 3; i++) {
        const floe_ice_manifest_entry *e = &m->entries[i];
        if (i == 2 && version >= 3) s[i].f.has_first_row_id = true, s[i].f.first_row_id = 1000;
        assert_same_file(&s[i].f, &e->file, version);
        assert_int_equal(e->file.partition_ids[4], 1004);
        if (i < 2) {
            assert_int_equal(e->status, FLOE_ICE_STATUS_ADDED);
            /* Inherited from the manifest list (v1 writes the snapshot id). */
            assert_true(e->snapshot_id == 99);
            assert_true(e->sequence_number == (version >= 2 ? 8 : 0));
            assert_true(e->file_sequence_number == (version >= 2 ? 8 : 0));
        } else {
            assert_int_equal(e->status, FLOE_ICE_STATUS_EXISTING);
            if (version >= 2) {
                assert_true(e->snapshot_id == 50 && e->sequence_number == 3 && e->file_sequence_number == 4);
            }
        }
    }
    if (version >= 3) {
        /* The explicit first_row_id is kept; the next data file inherits
         * the manifest's (1000) — entry 1 is a delete file, so entry 2. */
        assert_true(m->entries[0].file.first_row_id == 77);
        assert_true(m->entries[2].file.has_first_row_id && m->entries[2].file.first_row_id == 1000);
    }
    /* Bounds decode through Appendix D with the table schema. */
    floe_ice_value v;
    assert_ok(floe_ice_data_file_bound(&m->entries[0].file, schema, 1, false, &v));
    assert_true(v.v.i64 == -5);
    assert_ok(floe_ice_data_file_bound(&m->entries[0].file, schema, 1, true, &v));
    assert_true(v.v.i64 == 500);
    assert_error(floe_ice_data_file_bound(&m->entries[0].file, schema, 3, true, &v), FLOE_ERR_NOT_FOUND, "upper");
    floe_ice_manifest_free(m);

    /* Without the list record nothing is inherited but the header is read. */
    assert_ok(floe_input_open_local(path, &in));
    assert_ok(floe_ice_manifest_read(in, NULL, &m));
    floe_input_close(in);
    assert_int_equal(m->spec_id, 2);
    if (version >= 2) assert_true(m->entries[0].snapshot_id == -1);
    floe_ice_manifest_free(m);

    floe_ice_manifest_list_free(l);
    floe_ice_schema_free(schema);
    floe_ice_partition_spec_free(spec);
}

static void v1_manifest_round_trips(void **state) {
    (void)state;
    write_and_read(1);
}
static void v2_manifest_round_trips(void **state) {
    (void)state;
    write_and_read(2);
}
static void v3_manifest_round_trips(void **state) {
    (void)state;
    write_and_read(3);
}

static void data_file_bytes_round_trip(void **state) {
    (void)state;
    floe_ice_schema *schema = test_schema();
    floe_ice_partition_spec *spec = test_spec();
    floe_ice_type *pt = NULL;
    assert_ok(floe_ice_partition_spec_partition_type(spec, schema, false, &pt));
    for (int version = 1; version <= 3; version++) {
        floe_ice_data_file_codec *c = NULL;
        assert_ok(floe_ice_data_file_codec_new(pt, version, &c));
        char *sj = NULL;
        assert_ok(floe_ice_data_file_codec_schema_json(c, &sj));
        assert_non_null(strstr(sj, "\"field-id\":1004"));
        assert_non_null(strstr(sj, "\"field-id\":100"));
        floe_free(sj);
        for (int i = 0; i < 2; i++) {
            sample s;
            make_sample(&s, i, version);
            uint8_t *bytes = NULL;
            size_t len = 0;
            assert_ok(floe_ice_data_file_encode(c, &s.f, &bytes, &len));
            floe_arena a;
            floe_arena_init(&a, 0);
            floe_ice_data_file back;
            assert_ok(floe_ice_data_file_decode(c, bytes, len, &a, &back));
            assert_same_file(&s.f, &back, version);
            /* Truncated bytes are an error, never a crash. */
            for (size_t cut = 0; cut < len; cut += 7) {
                floe_arena_reset(&a);
                floe_status st = floe_ice_data_file_decode(c, bytes, cut, &a, &back);
                if (!st) fail_msg("decoding %zu of %zu bytes succeeded", cut, len);
                floe_status_free(st);
            }
            floe_arena_destroy(&a);
            floe_free(bytes);
        }
        floe_ice_data_file_codec_free(c);
    }
    /* A tuple of the wrong width is refused. */
    floe_ice_data_file_codec *c = NULL;
    assert_ok(floe_ice_data_file_codec_new(pt, 2, &c));
    sample s;
    make_sample(&s, 0, 2);
    s.f.n_partition = 2;
    uint8_t *bytes = NULL;
    size_t len;
    assert_error(floe_ice_data_file_encode(c, &s.f, &bytes, &len), FLOE_ERR_INVALID_ARGUMENT, "partition tuple");
    floe_ice_data_file_codec_free(c);
    floe_ice_type_free(pt);
    floe_ice_schema_free(schema);
    floe_ice_partition_spec_free(spec);
}

static void legacy_manifest_list_field_names_resolve_by_id(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    int32_t added[2];
    for (int k = 1; k <= 2; k++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/apache__iceberg-rust/crates/iceberg/testdata/manifests_lists/manifest-list-v2-%d.avro", td, k);
        floe_input *in = NULL;
        assert_ok(floe_input_open_local(p, &in));
        floe_ice_manifest_list *l = NULL;
        assert_ok(floe_ice_manifest_list_read(in, &l));
        floe_input_close(in);
        assert_true(l->n_files >= 1);
        assert_non_null(l->files[0].manifest_path);
        added[k - 1] = l->files[0].added_files_count;
        assert_true(added[k - 1] >= 0);
        floe_ice_manifest_list_free(l);
    }
    /* A v3 list written by DuckDB (no format-version header key). */
    char p[4096];
    snprintf(p, sizeof p, "%s/apache__iceberg-go/testdata/duckdb_v3_manifest_list.avro", td);
    floe_input *in = NULL;
    assert_ok(floe_input_open_local(p, &in));
    floe_ice_manifest_list *l = NULL;
    assert_ok(floe_ice_manifest_list_read(in, &l));
    floe_input_close(in);
    assert_int_equal(l->n_files, 2);
    assert_int_equal(l->files[0].content, FLOE_ICE_MANIFEST_DATA);
    assert_int_equal(l->files[1].content, FLOE_ICE_MANIFEST_DELETES);
    assert_true(l->files[0].added_snapshot_id == 5275221492656851850LL);
    assert_true(l->files[1].sequence_number == 2 && l->files[1].added_rows_count == 10);
    assert_int_equal(l->files[0].n_partitions, -1);
    assert_int_equal(l->format_version, 3); /* inferred from first_row_id: no header key */
    floe_ice_manifest_list_free(l);
}

static void corrupt_manifests_are_errors(void **state) {
    (void)state;
    char dir[1024], path[1200];
    floe_test_tmpdir(dir, sizeof dir, "manifest_corrupt");
    snprintf(path, sizeof path, "%s/m.avro", dir);
    floe_ice_schema *schema = test_schema();
    floe_ice_partition_spec *spec = test_spec();
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_ice_manifest_writer *w = NULL;
    floe_ice_manifest_writer_options o = {2, FLOE_ICE_MANIFEST_DATA, schema, spec, 1};
    assert_ok(floe_ice_manifest_writer_open(out, &o, &w));
    for (int i = 0; i < 50; i++) {
        sample s;
        make_sample(&s, i % 2, 2);
        floe_ice_manifest_entry e = {FLOE_ICE_STATUS_ADDED, -1, -1, -1, s.f};
        assert_ok(floe_ice_manifest_writer_add(w, &e));
    }
    assert_ok(floe_ice_manifest_writer_finish(w, NULL));
    assert_ok(floe_output_close(out));
    floe_input *in = NULL;
    assert_ok(floe_input_open_local(path, &in));
    uint8_t *data = NULL;
    size_t len = 0;
    assert_ok(floe_input_read_all(in, &data, &len));
    floe_input_close(in);
    for (size_t cut = 0; cut < len; cut += len / 23 + 1) {
        assert_ok(floe_input_from_memory(data, cut, "cut.avro", &in));
        floe_ice_manifest *m = NULL;
        floe_status st = floe_ice_manifest_read(in, NULL, &m);
        floe_input_close(in);
        if (!st) fail_msg("a manifest cut to %zu of %zu bytes was read", cut, len);
        assert_non_null(strstr(floe_status_message(st), "cut.avro"));
        floe_status_free(st);
    }
    floe_free(data);
    /* Writing deletes in v1 is refused. */
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_ice_manifest_writer_options bad = {1, FLOE_ICE_MANIFEST_DELETES, schema, spec, 1};
    assert_error(floe_ice_manifest_writer_open(out, &bad, &w), FLOE_ERR_INVALID_ARGUMENT, "version 1");
    floe_output_abort(out);
    floe_ice_schema_free(schema);
    floe_ice_partition_spec_free(spec);
}

static void live_files_of_real_tables(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_threadpool *pool = NULL;
    assert_ok(floe_threadpool_create(2, &pool));
    static const struct {
        const char *table;
        size_t data, pos, eq;
    } cases[] = {
        {"data/persistent/equality_deletes/warehouse/mydb/mytable", 0, 0, 0},
        {"data/iceberg/generated_spec2_0_001/pyspark_iceberg_table", 0, 0, 0},
        {"data/persistent/iceberg/lineitem_iceberg_gz", 1, 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/duckdb__duckdb-iceberg/%s", td, cases[k].table);
        floe_ice_table *t = NULL;
        assert_ok(floe_ice_table_open(NULL, dir, true, &t));
        floe_ice_live_files *lf = NULL;
        assert_ok(floe_ice_table_live_files(t, floe_ice_tm_current_snapshot(t->md), pool, &lf));
        size_t n[3] = {0, 0, 0};
        for (size_t i = 0; i < lf->n; i++) {
            n[lf->files[i].file.content]++;
            struct stat sb;
            if (stat(lf->files[i].resolved_path, &sb) != 0)
                fail_msg("%s: resolved %s does not exist", cases[k].table, lf->files[i].resolved_path);
            assert_true((int64_t)sb.st_size == lf->files[i].file.file_size_in_bytes);
            assert_true(lf->files[i].sequence_number >= 0);
        }
        if (k == 0) assert_true(n[0] > 0 && n[2] > 0);         /* data + equality deletes */
        if (k == 1) assert_true(n[0] > 0 && n[1] > 0);         /* data + position deletes */
        if (k == 2) assert_true(n[0] == 1 && lf->files[0].file.record_count > 0);
        floe_ice_live_files_free(lf);
        floe_ice_table_free(t);
    }
    floe_threadpool_destroy(pool);
}


/* Flip bytes of a real manifest (header, schema text, blocks) with a fixed
 * seed: every variant must be read or rejected, never crash or leak (the
 * sanitizer build is the judge). */
static void flipped_bytes_never_crash(void **state) {
    (void)state;
    char dir[1024], path[1200];
    floe_test_tmpdir(dir, sizeof dir, "manifest_flip");
    snprintf(path, sizeof path, "%s/m.avro", dir);
    floe_ice_schema *schema = test_schema();
    floe_ice_partition_spec *spec = test_spec();
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_ice_manifest_writer *w = NULL;
    floe_ice_manifest_writer_options o = {3, FLOE_ICE_MANIFEST_DATA, schema, spec, 1};
    assert_ok(floe_ice_manifest_writer_open(out, &o, &w));
    for (int i = 0; i < 4; i++) {
        sample s;
        make_sample(&s, i % 2, 3);
        floe_ice_manifest_entry e = {FLOE_ICE_STATUS_ADDED, -1, -1, -1, s.f};
        assert_ok(floe_ice_manifest_writer_add(w, &e));
    }
    assert_ok(floe_ice_manifest_writer_finish(w, NULL));
    assert_ok(floe_output_close(out));
    floe_input *in = NULL;
    assert_ok(floe_input_open_local(path, &in));
    uint8_t *data = NULL;
    size_t len = 0;
    assert_ok(floe_input_read_all(in, &data, &len));
    floe_input_close(in);
    uint8_t *copy = floe_malloc(len);
    assert_non_null(copy);
    uint32_t seed = 12345;
    int ok = 0, bad = 0;
    for (int iter = 0; iter < 400; iter++) {
        memcpy(copy, data, len);
        for (int k = 0; k < 1 + iter % 3; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            seed = seed * 1103515245u + 12345u;
            copy[at] ^= (uint8_t)(1u << ((seed >> 16) % 8));
        }
        assert_ok(floe_input_from_memory(copy, len, "flip.avro", &in));
        floe_ice_manifest *m = NULL;
        floe_status st = floe_ice_manifest_read(in, NULL, &m);
        floe_input_close(in);
        if (st) {
            bad++;
            floe_status_free(st);
        } else {
            ok++;
            floe_ice_manifest_free(m);
        }
    }
    assert_true(ok + bad == 400 && bad > 0);
    floe_free(copy);
    floe_free(data);
    floe_ice_schema_free(schema);
    floe_ice_partition_spec_free(spec);
}


/* A v1 table whose snapshot lists its manifests directly (no manifest
 * list), recorded under a location it has since moved away from. */
static void v1_snapshot_manifests_and_moved_table(void **state) {
    (void)state;
    char dir[1024], path[1200], mdpath[1200];
    floe_test_tmpdir(dir, sizeof dir, "v1_moved_table");
    snprintf(path, sizeof path, "%s/metadata/m1.avro", dir);
    snprintf(mdpath, sizeof mdpath, "%s/metadata/v3.metadata.json", dir);
    floe_ice_schema *schema = test_schema();
    floe_ice_partition_spec *spec = test_spec();
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_ice_manifest_writer *w = NULL;
    floe_ice_manifest_writer_options o = {1, FLOE_ICE_MANIFEST_DATA, schema, spec, 5};
    assert_ok(floe_ice_manifest_writer_open(out, &o, &w));
    const char *paths[3] = {"file:///old/loc/data/a.parquet", "/old/loc/data/b.parquet", "/old/loc/data/c.parquet"};
    for (int i = 0; i < 3; i++) {
        sample smp;
        make_sample(&smp, 0, 1);
        smp.f.file_path = paths[i];
        floe_ice_manifest_entry e = {i == 1 ? FLOE_ICE_STATUS_DELETED : FLOE_ICE_STATUS_ADDED, -1, -1, -1, smp.f};
        assert_ok(floe_ice_manifest_writer_add(w, &e));
    }
    assert_ok(floe_ice_manifest_writer_finish(w, NULL));
    assert_ok(floe_output_close(out));
    char *sj = NULL, *pj = NULL;
    assert_ok(floe_ice_schema_to_json_text(schema, &sj));
    assert_ok(floe_ice_partition_spec_to_json_text(spec, &pj));
    char md[8192];
    snprintf(md, sizeof md,
             "{\"format-version\":1,\"location\":\"/old/loc\",\"last-updated-ms\":1,\"last-column-id\":5,"
             "\"schema\":%s,\"partition-specs\":[%s],\"default-spec-id\":2,\"properties\":{},"
             "\"current-snapshot-id\":5,\"snapshots\":[{\"snapshot-id\":5,\"timestamp-ms\":1,"
             "\"manifests\":[\"/old/loc/metadata/m1.avro\"]}]}",
             sj, pj);
    floe_free(sj);
    floe_free(pj);
    assert_ok(floe_output_create_local(mdpath, 1, &out));
    assert_ok(floe_output_write(out, md, strlen(md)));
    assert_ok(floe_output_close(out));

    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(NULL, dir, true, &t));
    assert_string_equal(t->root, dir);
    const floe_ice_snapshot *snap = floe_ice_tm_current_snapshot(t->md);
    assert_non_null(snap);
    assert_null(snap->manifest_list);
    assert_int_equal(snap->n_manifests, 1);
    floe_ice_live_files *lf = NULL;
    assert_ok(floe_ice_table_live_files(t, snap, NULL, &lf));
    assert_int_equal((int)lf->n, 2); /* the DELETED entry is not live */
    char want[1300];
    snprintf(want, sizeof want, "%s/data/a.parquet", dir);
    assert_string_equal(lf->files[0].resolved_path, want);
    assert_string_equal(lf->files[0].file.file_path, paths[0]);
    snprintf(want, sizeof want, "%s/data/c.parquet", dir);
    assert_string_equal(lf->files[1].resolved_path, want);
    assert_true(lf->files[1].snapshot_id == 5 && lf->files[1].sequence_number == 0);
    /* The day partition reads back typed as the spec's date. */
    assert_int_equal(lf->files[0].file.partition[1].type, FLOE_ICE_DATE);
    floe_ice_live_files_free(lf);

    /* Without allow_moved_paths the recorded manifest path does not exist. */
    t->allow_moved_paths = false;
    assert_error(floe_ice_table_live_files(t, snap, NULL, &lf), FLOE_ERR_NOT_FOUND, "/old/loc/metadata/m1.avro");
    floe_ice_table_free(t);
    floe_ice_schema_free(schema);
    floe_ice_partition_spec_free(spec);
}

FLOE_TEST_MAIN(cmocka_unit_test(v1_snapshot_manifests_and_moved_table), cmocka_unit_test(flipped_bytes_never_crash), cmocka_unit_test(v1_manifest_round_trips), cmocka_unit_test(v2_manifest_round_trips),
               cmocka_unit_test(v3_manifest_round_trips), cmocka_unit_test(data_file_bytes_round_trip),
               cmocka_unit_test(legacy_manifest_list_field_names_resolve_by_id),
               cmocka_unit_test(corrupt_manifests_are_errors), cmocka_unit_test(live_files_of_real_tables))

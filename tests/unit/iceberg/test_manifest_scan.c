/*
 * test_manifest_scan.c — the planner's compact form of a manifest
 * (src/iceberg/scan/manifest_scan.c): it must say exactly what the full form
 * says about every field planning uses (paths, sizes, inherited sequence
 * numbers and row ids, partition tuples, split offsets, delete-file fields
 * and every column's metrics), share equal partition tuples and formats
 * between entries, and fail on damaged files exactly when the full reader
 * does.
 */
#include "floe_test.h"

#include "floe/iceberg_manifest.h"
#include "floe/memory.h"
#include "iceberg/scan/scan_internal.h"

static floe_ice_schema *schema_of_test(void) {
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(
        "{\"type\":\"struct\",\"schema-id\":1,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"s\",\"required\":false,\"type\":\"string\"},"
        "{\"id\":3,\"name\":\"x\",\"required\":false,\"type\":\"double\"}]}",
        &s));
    return s;
}

static floe_ice_partition_spec *spec_of_test(void) {
    floe_ice_partition_spec *p = NULL;
    assert_ok(floe_ice_partition_spec_from_json_text(
        "{\"spec-id\":4,\"fields\":["
        "{\"name\":\"id_b\",\"transform\":\"bucket[8]\",\"source-id\":1,\"field-id\":1000},"
        "{\"name\":\"s\",\"transform\":\"identity\",\"source-id\":2,\"field-id\":1001}]}",
        &p));
    return p;
}

/* Entry i of a test manifest: runs of three entries share a partition;
 * every fifth has no metrics at all; odd ones (v2+) are equality deletes. */
typedef struct entry_data {
    floe_ice_manifest_entry e;
    floe_ice_value part[2];
    char path[64];
    int32_t keys[3];
    int64_t vc[3], nc[3], nanc[1];
    uint8_t lo[8], hi[8];
    const uint8_t *lov[2], *hiv[2];
    uint32_t lens[2];
    int64_t splits[2];
    int32_t eq[1];
} entry_data;

static void make_entry(entry_data *d, int i, int version, bool deletes) {
    memset(d, 0, sizeof *d);
    floe_ice_data_file *f = &d->e.file;
    floe_ice_data_file_init(f);
    d->e.status = i % 7 == 6 ? FLOE_ICE_STATUS_EXISTING : FLOE_ICE_STATUS_ADDED;
    d->e.snapshot_id = d->e.sequence_number = d->e.file_sequence_number = -1;
    if (d->e.status == FLOE_ICE_STATUS_EXISTING) d->e.snapshot_id = 5, d->e.sequence_number = 2, d->e.file_sequence_number = 3;
    f->content = deletes ? FLOE_ICE_CONTENT_EQUALITY_DELETES : FLOE_ICE_CONTENT_DATA;
    snprintf(d->path, sizeof d->path, "s3://b/t/data/f-%04d.parquet", i);
    f->file_path = d->path;
    f->file_format = i % 4 == 3 ? "parquet" : "PARQUET";
    d->part[0] = floe_ice_int((i / 3) % 8);
    d->part[1] = (i / 3) % 2 ? floe_ice_string_z("north") : floe_ice_null(FLOE_ICE_STRING);
    f->n_partition = 2;
    f->partition = d->part;
    f->record_count = 100 + i;
    f->file_size_in_bytes = 4096 + 10 * i;
    if (i % 5 != 4) {
        /* Maps name columns in different orders and subsets. */
        d->keys[0] = 3, d->keys[1] = 1, d->keys[2] = 2;
        d->vc[0] = 7, d->vc[1] = 100 + i, d->vc[2] = -1;
        d->nc[0] = 0, d->nc[1] = i, d->nc[2] = 3;
        d->nanc[0] = 2;
        f->value_counts = (floe_ice_count_map){3, d->keys, d->vc};
        f->null_value_counts = (floe_ice_count_map){2, d->keys + 1, d->nc + 1};
        f->nan_value_counts = (floe_ice_count_map){1, d->keys, d->nanc};
        f->column_sizes = (floe_ice_count_map){3, d->keys, d->vc};
        int64_t lo = i, hi = 1000 + i;
        memcpy(d->lo, &lo, 8); /* little-endian host: Appendix D long */
        memcpy(d->hi, &hi, 8);
        d->lov[0] = d->lo, d->hiv[0] = d->hi;
        d->lov[1] = (const uint8_t *)"a", d->hiv[1] = (const uint8_t *)"zz";
        d->lens[0] = 8, d->lens[1] = 1;
        static const int32_t bkeys[2] = {1, 2};
        f->lower_bounds = (floe_ice_bound_map){2, (int32_t *)bkeys, d->lov, d->lens};
        f->upper_bounds = (floe_ice_bound_map){1, (int32_t *)bkeys, d->hiv, d->lens};
    }
    if (i % 2 == 0) {
        d->splits[0] = 4, d->splits[1] = 2000;
        f->n_split_offsets = 2;
        f->split_offsets = d->splits;
    }
    if (deletes) {
        d->eq[0] = 1;
        f->n_equality_ids = 1;
        f->equality_ids = d->eq;
        if (i % 3 == 0) f->referenced_data_file = "s3://b/t/data/f-0000.parquet";
        if (version >= 3) {
            f->has_content_offset = f->has_content_size_in_bytes = true;
            f->content_offset = 4 + i;
            f->content_size_in_bytes = 40 + i;
        }
    }
    if (version >= 3 && i == 1) {
        f->has_first_row_id = true;
        f->first_row_id = 500;
    }
}

/* Write a manifest of n entries; fills *mf as its manifest-list record. */
static void write_manifest(const char *path, int version, bool deletes, int n, floe_ice_manifest_file *mf) {
    floe_ice_schema *schema = schema_of_test();
    floe_ice_partition_spec *spec = spec_of_test();
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_ice_manifest_writer *w = NULL;
    floe_ice_manifest_writer_options o = {version, deletes ? FLOE_ICE_MANIFEST_DELETES : FLOE_ICE_MANIFEST_DATA,
                                          schema, spec, 9};
    assert_ok(floe_ice_manifest_writer_open(out, &o, &w));
    for (int i = 0; i < n; i++) {
        entry_data d;
        make_entry(&d, i, version, deletes && i % 2 == 1);
        assert_ok(floe_ice_manifest_writer_add(w, &d.e));
    }
    assert_ok(floe_ice_manifest_writer_finish(w, mf));
    mf->manifest_length = (int64_t)out->bytes_written;
    assert_ok(floe_output_close(out));
    mf->manifest_path = path;
    mf->sequence_number = version >= 2 ? 6 : 0;
    mf->min_sequence_number = 2;
    mf->added_snapshot_id = 9;
    mf->n_partitions = -1;
    mf->partitions = NULL;
    mf->has_first_row_id = version >= 3;
    mf->first_row_id = 1000;
    floe_ice_schema_free(schema);
    floe_ice_partition_spec_free(spec);
}

/* The full form's metrics of column `id`, gathered from its maps. */
static void full_metrics(const floe_ice_data_file *f, int32_t id, floe_ice_field_metrics *m, bool *any) {
    *m = (floe_ice_field_metrics){id, -1, -1, -1, NULL, 0, NULL, 0};
    *any = false;
    const floe_ice_count_map *cm[3] = {&f->value_counts, &f->null_value_counts, &f->nan_value_counts};
    int64_t *dst[3] = {&m->value_count, &m->null_count, &m->nan_count};
    for (int k = 0; k < 3; k++)
        for (int32_t i = 0; i < cm[k]->n; i++)
            if (cm[k]->keys[i] == id) *dst[k] = cm[k]->values[i], *any = true;
    for (int32_t i = 0; i < f->lower_bounds.n; i++)
        if (f->lower_bounds.keys[i] == id)
            m->lower = f->lower_bounds.values[i], m->lower_len = f->lower_bounds.lens[i], *any = true;
    for (int32_t i = 0; i < f->upper_bounds.n; i++)
        if (f->upper_bounds.keys[i] == id)
            m->upper = f->upper_bounds.values[i], m->upper_len = f->upper_bounds.lens[i], *any = true;
}

static void assert_same_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    if (!a || !b) {
        assert_true(a == NULL && b == NULL);
        return;
    }
    assert_int_equal(alen, blen);
    assert_memory_equal(a, b, alen);
}

static void compare_forms(const char *path, const floe_ice_manifest_file *mf) {
    floe_input *in = NULL;
    floe_ice_manifest *full = NULL;
    floe_ice_scan_manifest *sm = NULL;
    assert_ok(floe_input_open_local(path, &in));
    assert_ok(floe_ice_manifest_read(in, mf, &full));
    floe_input_close(in);
    assert_ok(floe_input_open_local(path, &in));
    assert_ok(floe_ice_scan_manifest_read(in, mf, &sm));
    floe_input_close(in);
    assert_int_equal(sm->content, full->content);
    assert_int_equal(sm->spec_id, full->spec_id);
    assert_int_equal(sm->n_entries, full->n_entries);
    for (size_t k = 0; k < full->n_entries; k++) {
        const floe_ice_manifest_entry *fe = &full->entries[k];
        const floe_ice_data_file *f = &fe->file;
        const floe_ice_scan_entry *e = &sm->entries[k];
        assert_int_equal(e->status, fe->status);
        assert_int_equal(e->content, f->content);
        assert_string_equal(e->path, f->file_path);
        assert_string_equal(e->format, f->file_format);
        assert_true(e->record_count == f->record_count);
        assert_true(e->file_size_in_bytes == f->file_size_in_bytes);
        assert_true(e->sequence_number == fe->sequence_number);
        assert_true(e->file_sequence_number == fe->file_sequence_number);
        assert_int_equal(e->has_first_row_id, f->has_first_row_id);
        if (f->has_first_row_id) assert_true(e->first_row_id == f->first_row_id);
        assert_int_equal(sm->n_partition, f->n_partition);
        for (int32_t i = 0; i < f->n_partition; i++) {
            assert_int_equal(sm->partition_ids[i], f->partition_ids[i]);
            if (!floe_ice_value_equals(&e->partition[i], &f->partition[i])) fail_msg("entry %zu: partition value %d", k, i);
        }
        assert_int_equal(e->n_split_offsets, f->n_split_offsets);
        for (int32_t i = 0; i < f->n_split_offsets; i++) assert_true(e->split_offsets[i] == f->split_offsets[i]);
        if (f->content == FLOE_ICE_CONTENT_DATA) {
            assert_null(e->del);
        } else {
            assert_non_null(e->del);
            assert_int_equal(e->del->n_equality_ids, f->n_equality_ids);
            for (int32_t i = 0; i < f->n_equality_ids; i++) assert_int_equal(e->del->equality_ids[i], f->equality_ids[i]);
            if (f->referenced_data_file) assert_string_equal(e->del->referenced_data_file, f->referenced_data_file);
            else assert_null(e->del->referenced_data_file);
            assert_int_equal(e->del->has_content_offset, f->has_content_offset);
            assert_int_equal(e->del->has_content_size_in_bytes, f->has_content_size_in_bytes);
            assert_true(e->del->content_offset == f->content_offset);
            assert_true(e->del->content_size_in_bytes == f->content_size_in_bytes);
        }
        for (int32_t id = 0; id <= 4; id++) {
            floe_ice_field_metrics want, got;
            bool any;
            full_metrics(f, id, &want, &any);
            bool found = floe_ice_scan_metrics_find(e->metrics, id, &got);
            assert_int_equal(found, any);
            assert_int_equal(got.field_id, id);
            assert_true(got.value_count == want.value_count);
            assert_true(got.null_count == want.null_count);
            assert_true(got.nan_count == want.nan_count);
            assert_same_bytes(got.lower, got.lower_len, want.lower, want.lower_len);
            assert_same_bytes(got.upper, got.upper_len, want.upper, want.upper_len);
        }
    }
    floe_ice_manifest_free(full);
    floe_ice_scan_manifest_free(sm);
}

static void compact_form_says_what_the_full_form_says(void **state) {
    (void)state;
    char dir[1024], path[1200];
    floe_test_tmpdir(dir, sizeof dir, "manifest_scan_forms");
    for (int version = 1; version <= 3; version++) {
        for (int del = 0; del < (version >= 2 ? 2 : 1); del++) {
            snprintf(path, sizeof path, "%s/m%d%d.avro", dir, version, del);
            floe_ice_manifest_file mf;
            memset(&mf, 0, sizeof mf);
            write_manifest(path, version, del, 23, &mf);
            compare_forms(path, &mf);
            /* Without a list record nothing is inherited: still the same. */
            compare_forms(path, NULL);
        }
    }
}

static void equal_partition_tuples_and_formats_are_shared(void **state) {
    (void)state;
    char dir[1024], path[1200];
    floe_test_tmpdir(dir, sizeof dir, "manifest_scan_share");
    snprintf(path, sizeof path, "%s/m.avro", dir);
    floe_ice_manifest_file mf;
    memset(&mf, 0, sizeof mf);
    write_manifest(path, 2, false, 12, &mf);
    floe_input *in = NULL;
    floe_ice_scan_manifest *sm = NULL;
    assert_ok(floe_input_open_local(path, &in));
    assert_ok(floe_ice_scan_manifest_read(in, &mf, &sm));
    floe_input_close(in);
    assert_int_equal(sm->n_entries, 12);
    for (size_t k = 1; k < sm->n_entries; k++) {
        const floe_ice_scan_entry *a = &sm->entries[k - 1], *b = &sm->entries[k];
        /* Runs of three entries share one tuple; a new run gets its own. */
        if (k % 3) assert_ptr_equal(a->partition, b->partition);
        else assert_ptr_not_equal(a->partition, b->partition);
        if (strcmp(a->format, b->format) == 0) assert_ptr_equal(a->format, b->format);
    }
    /* The shared string value is a copy, not a view of decoding buffers. */
    assert_string_equal((const char *)sm->entries[4].partition[1].v.bytes.data, "north");
    floe_ice_scan_manifest_free(sm);
}

static void damaged_manifests_fail_as_the_full_reader_fails(void **state) {
    (void)state;
    char dir[1024], path[1200];
    floe_test_tmpdir(dir, sizeof dir, "manifest_scan_damage");
    snprintf(path, sizeof path, "%s/m.avro", dir);
    floe_ice_manifest_file mf;
    memset(&mf, 0, sizeof mf);
    write_manifest(path, 3, true, 9, &mf);
    floe_input *in = NULL;
    assert_ok(floe_input_open_local(path, &in));
    uint8_t *data = NULL;
    size_t len = 0;
    assert_ok(floe_input_read_all(in, &data, &len));
    floe_input_close(in);
    /* Truncated: an error naming the file. */
    for (size_t cut = 0; cut < len; cut += len / 17 + 1) {
        assert_ok(floe_input_from_memory(data, cut, "cut.avro", &in));
        floe_ice_scan_manifest *sm = NULL;
        floe_status st = floe_ice_scan_manifest_read(in, &mf, &sm);
        floe_input_close(in);
        if (!st) fail_msg("a manifest cut to %zu of %zu bytes was read", cut, len);
        assert_non_null(strstr(floe_status_message(st), "cut.avro"));
        floe_status_free(st);
    }
    /* Flipped bits: never a crash, and an error exactly when the full form
     * has one (the compact reader checks the same things). */
    uint8_t *copy = floe_malloc(len);
    assert_non_null(copy);
    uint32_t seed = 777;
    int bad = 0;
    for (int iter = 0; iter < 300; iter++) {
        memcpy(copy, data, len);
        for (int k = 0; k < 1 + iter % 3; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            seed = seed * 1103515245u + 12345u;
            copy[at] ^= (uint8_t)(1u << ((seed >> 16) % 8));
        }
        floe_ice_manifest *full = NULL;
        floe_ice_scan_manifest *sm = NULL;
        assert_ok(floe_input_from_memory(copy, len, "flip.avro", &in));
        floe_status fst = floe_ice_manifest_read(in, &mf, &full);
        floe_input_close(in);
        assert_ok(floe_input_from_memory(copy, len, "flip.avro", &in));
        floe_status sst = floe_ice_scan_manifest_read(in, &mf, &sm);
        floe_input_close(in);
        if ((fst == NULL) != (sst == NULL))
            fail_msg("flip %d: full form %s, compact form %s", iter, fst ? floe_status_message(fst) : "ok",
                     sst ? floe_status_message(sst) : "ok");
        bad += fst != NULL;
        floe_status_free(fst);
        floe_status_free(sst);
        floe_ice_manifest_free(full);
        floe_ice_scan_manifest_free(sm);
    }
    assert_true(bad > 0);
    floe_free(copy);
    floe_free(data);
}

FLOE_TEST_MAIN(cmocka_unit_test(compact_form_says_what_the_full_form_says),
               cmocka_unit_test(equal_partition_tuples_and_formats_are_shared),
               cmocka_unit_test(damaged_manifests_fail_as_the_full_reader_fails))

/* Helpers shared by the commit tests (overwrite, delete, row delta, v3): a
 * catalog table (id long, cat string, ts timestamp) under a chosen
 * partition spec, real Parquet data files with their column metrics handed
 * over as Avro data_file records, Parquet position delete files, and
 * reading rows back through scan planning and the task reader (current
 * snapshot or time travel). */
#ifndef FLOE_TEST_TABLE_COMMIT_UTIL_H
#define FLOE_TEST_TABLE_COMMIT_UTIL_H

#include "floe_test.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "floe/catalog.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_scan.h"
#include "floe/iceberg_table_update.h"
#include "floe/iceberg_task_reader.h"
#include "floe/iceberg_transform.h"
#include "floe/memory.h"
#include "formats/parquet/writer.h"

static const char *CT_SCHEMA =
    "{\"type\":\"struct\",\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"cat\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"}]}";

#define CT_DAY_US (86400LL * 1000000LL)

typedef enum ct_part {
    CT_UNPARTITIONED,
    CT_CAT,        /* identity(cat) */
    CT_DAY,        /* day(ts) */
    CT_BUCKET4,    /* bucket[4](id) */
    CT_CAT_DAY     /* identity(cat), day(ts) */
} ct_part;

/* A catalog in a fresh warehouse with table db.t. */
static inline floe_catalog *ct_setup(const char *test, ct_part part, int format_version) {
    char wh[1024];
    floe_test_tmpdir(wh, sizeof wh, test);
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    floe_ice_schema *s = NULL;
    char *loc = NULL;
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_schema_from_json_text(CT_SCHEMA, &s));
    assert_ok(floe_catalog_default_location(c, "db", "t", &loc));
    floe_ice_partition_spec *spec = NULL;
    if (part != CT_UNPARTITIONED) {
        assert_ok(floe_ice_partition_spec_new(0, &spec));
        if (part == CT_CAT || part == CT_CAT_DAY)
            assert_ok(floe_ice_partition_spec_add(spec, 2, 1000, "cat",
                                                  floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0)));
        if (part == CT_DAY || part == CT_CAT_DAY)
            assert_ok(floe_ice_partition_spec_add(spec, 3, part == CT_DAY ? 1000 : 1001, "ts_day",
                                                  floe_ice_transform_make(FLOE_ICE_TRANSFORM_DAY, 0)));
        if (part == CT_BUCKET4)
            assert_ok(floe_ice_partition_spec_add(spec, 1, 1000, "id_bucket",
                                                  floe_ice_transform_make(FLOE_ICE_TRANSFORM_BUCKET, 4)));
    }
    assert_ok(floe_ice_tm_new(s, spec, NULL, loc, NULL, 0, format_version, &md));
    floe_ice_partition_spec_free(spec);
    assert_ok(floe_catalog_create_table(c, "db", "t", md, NULL));
    floe_ice_table_metadata_free(md);
    floe_ice_schema_free(s);
    floe_free(loc);
    return c;
}

/* Column metrics of the written file for field `fid` into the data_file's
 * maps (slot k of each; the arrays are the caller's). */
static inline void ct_metrics(const floe_pq_write_result *res, int32_t fid, int32_t k, int32_t *keys, int64_t *vc,
                              int64_t *nc, const uint8_t **lo, const uint8_t **hi, uint32_t *lo_len,
                              uint32_t *hi_len) {
    const floe_pq_column_result *col = floe_pq_write_result_find(res, fid);
    assert_non_null(col);
    keys[k] = fid;
    vc[k] = col->value_count;
    nc[k] = col->null_count;
    lo[k] = col->has_bounds ? col->min : NULL;
    hi[k] = col->has_bounds ? col->max : NULL;
    lo_len[k] = (uint32_t)col->min_len;
    hi_len[k] = (uint32_t)col->max_len;
}

/* Write rows ids[0..n) with cat `cat` (NULL: null) and ts = day `day` plus
 * id seconds to a new Parquet file <location>/data/<tag>.parquet and return
 * its data_file record (with metrics and the partition tuple computed by
 * the default spec from the first row; every row must share it). */
static inline uint8_t *ct_write_ids(floe_catalog *c, const char *tag, const int64_t *ids, int64_t n, const char *cat,
                                    int32_t day, size_t *len) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    char path[2048], dir[2048];
    snprintf(path, sizeof path, "%s/data/%s.parquet", t->md->location, tag);
    snprintf(dir, sizeof dir, "mkdir -p '%s/data'", t->md->location);
    assert_int_equal(system(dir), 0);

    floe_field f[3];
    assert_ok(floe_field_init(&f[0], "id", floe_type_primitive(FLOE_TYPE_INT64), false, 1));
    assert_ok(floe_field_init(&f[1], "cat", floe_type_primitive(FLOE_TYPE_STRING), true, 2));
    assert_ok(floe_field_init(&f[2], "ts", floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), true, 3));
    floe_schema *schema;
    assert_ok(floe_type_struct(f, 3, &schema));
    floe_builder *b[3];
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &b[0]));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &b[1]));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), n, &b[2]));
    for (int64_t i = 0; i < n; i++) {
        assert_ok(floe_builder_append_int64(b[0], ids[i]));
        if (cat) assert_ok(floe_builder_append_string(b[1], cat));
        else assert_ok(floe_builder_append_null(b[1]));
        assert_ok(floe_builder_append_int64(b[2], (int64_t)day * CT_DAY_US + (ids[i] % 86400) * 1000000LL));
    }
    floe_array *cols[3];
    for (int k = 0; k < 3; k++) {
        assert_ok(floe_builder_finish(b[k], &cols[k]));
        floe_builder_free(b[k]);
    }
    floe_batch *batch;
    assert_ok(floe_batch_new(schema, cols, 3, n, &batch));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    floe_output *out;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_writer *w;
    assert_ok(floe_pq_writer_open(out, schema, &o, &w));
    assert_ok(floe_pq_writer_write(w, batch));
    floe_pq_write_result *res = NULL;
    assert_ok(floe_pq_writer_close(w, &res));
    floe_batch_release(batch);
    for (int k = 0; k < 3; k++) {
        floe_array_release(cols[k]);
        floe_field_clear(&f[k]);
    }
    floe_type_release(schema);

    floe_ice_data_file df;
    floe_ice_data_file_init(&df);
    df.file_path = path;
    df.file_format = "PARQUET";
    df.record_count = res->record_count;
    df.file_size_in_bytes = res->file_size;
    int32_t keys[3];
    int64_t vc[3], nc[3];
    const uint8_t *lo[3], *hi[3];
    uint32_t lo_len[3], hi_len[3];
    for (int32_t k = 0; k < 3; k++) ct_metrics(res, k + 1, k, keys, vc, nc, lo, hi, lo_len, hi_len);
    df.value_counts = (floe_ice_count_map){3, keys, vc};
    df.null_value_counts = (floe_ice_count_map){3, keys, nc};
    int32_t nb = cat ? 3 : 2; /* an all-null column has no bounds: list id and ts first */
    int32_t bkeys[3] = {1, 3, 2};
    const uint8_t *blo[3] = {lo[0], lo[2], lo[1]}, *bhi[3] = {hi[0], hi[2], hi[1]};
    uint32_t blo_len[3] = {lo_len[0], lo_len[2], lo_len[1]}, bhi_len[3] = {hi_len[0], hi_len[2], hi_len[1]};
    df.lower_bounds = (floe_ice_bound_map){nb, bkeys, blo, blo_len};
    df.upper_bounds = (floe_ice_bound_map){nb, bkeys, bhi, bhi_len};

    /* The partition tuple from the first row, checked against every row. */
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(t->md);
    floe_ice_value part[4];
    assert_true(spec->n_fields <= 4);
    for (int64_t i = 0; i < n; i++) {
        floe_ice_value src[3] = {floe_ice_long(ids[i]), cat ? floe_ice_string_z(cat) : floe_ice_null(FLOE_ICE_STRING),
                                 floe_ice_timestamp((int64_t)day * CT_DAY_US + (ids[i] % 86400) * 1000000LL)};
        for (int32_t k = 0; k < spec->n_fields; k++) {
            floe_ice_value v;
            assert_ok(floe_ice_transform_apply(&spec->fields[k].transform, &src[spec->fields[k].source_id - 1], &v));
            if (i == 0) part[k] = v;
            else assert_true(floe_ice_value_equals(&part[k], &v));
        }
    }
    df.n_partition = spec->n_fields;
    df.partition = part;
    assert_int_equal(res->record_count, n);
    floe_ice_type *ptype = NULL;
    assert_ok(floe_ice_partition_spec_partition_type(spec, floe_ice_tm_current_schema(t->md), false, &ptype));
    floe_ice_data_file_codec *codec = NULL;
    assert_ok(floe_ice_data_file_codec_new(ptype, t->md->format_version, &codec));
    uint8_t *bytes = NULL;
    assert_ok(floe_ice_data_file_encode(codec, &df, &bytes, len));
    floe_ice_data_file_codec_free(codec);
    floe_ice_type_free(ptype);
    floe_pq_write_result_free(res);
    floe_ice_table_free(t);
    return bytes;
}

/* Rows first .. first+n-1. */
static inline uint8_t *ct_write(floe_catalog *c, const char *tag, int64_t first, int64_t n, const char *cat,
                                int32_t day, size_t *len) {
    int64_t ids[64];
    assert_true(n <= 64);
    for (int64_t i = 0; i < n; i++) ids[i] = first + i;
    return ct_write_ids(c, tag, ids, n, cat, day, len);
}

/* Read a snapshot (-1: the current one): row count and sum of ids. */
static inline int64_t ct_read_rows(floe_catalog *c, int64_t snapshot_id, int64_t *id_sum) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    floe_ice_scan_options so;
    floe_ice_scan_options_init(&so);
    floe_ice_snapshot_selector sel = {snapshot_id < 0 ? FLOE_ICE_SELECT_CURRENT : FLOE_ICE_SELECT_ID,
                                      snapshot_id < 0 ? 0 : snapshot_id, NULL, 0};
    floe_ice_scan_plan *p = NULL;
    assert_ok(floe_ice_scan_plan_new(t, &sel, NULL, 0, NULL, &so, &p));
    int64_t rows = 0, sum = 0;
    floe_ice_task_read_options ro = {t, floe_ice_tm_current_schema(t->md), NULL, 0, 0};
    for (int32_t g = 0; g < p->n_groups; g++) {
        for (int32_t k = 0; k < p->groups[g]->n_tasks; k++) {
            floe_ice_task_reader *r = NULL;
            assert_ok(floe_ice_task_reader_open(&ro, &p->groups[g]->tasks[k], &r));
            for (;;) {
                floe_batch *b = NULL;
                assert_ok(floe_ice_task_reader_next(r, &b));
                if (!b) break;
                rows += b->num_rows;
                const int64_t *ids = (const int64_t *)floe_array_values(b->columns[0]);
                for (int64_t i = 0; i < b->num_rows; i++) sum += ids[i];
                floe_batch_release(b);
            }
            floe_ice_task_reader_close(r);
        }
    }
    floe_ice_scan_plan_free(p);
    floe_ice_table_free(t);
    if (id_sum) *id_sum = sum;
    return rows;
}

static inline const char *ct_summary(const floe_ice_snapshot *s, const char *key) {
    for (int32_t i = 0; i < s->n_summary; i++)
        if (strcmp(s->summary[i].key, key) == 0) return s->summary[i].value;
    return NULL;
}

/* .avro files in the table's metadata directory (manifests and lists). */
static inline int ct_count_avro(floe_catalog *c) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/metadata", t->md->location);
    floe_ice_table_free(t);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".avro") == 0) n++;
    }
    closedir(d);
    return n;
}

/* Write rows first .. first+n-1 to a file and append it through catalog
 * `c`; returns the snapshot id. */
static inline int64_t ct_append(floe_catalog *c, const char *tag, int64_t first, int64_t n, const char *cat,
                                int32_t day) {
    size_t len = 0;
    uint8_t *rec = ct_write(c, tag, first, n, cat, day, &len);
    int64_t sid = -1;
    assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)&rec, &len, 1, NULL, 0, 0, &sid));
    floe_free(rec);
    return sid;
}

static inline int64_t ct_current(floe_catalog *c) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    int64_t id = t->md->current_snapshot_id;
    floe_ice_table_free(t);
    return id;
}

/* The manifests of the current snapshot, each read (with inheritance). */
typedef struct ct_manifests {
    floe_ice_table *t;
    floe_ice_manifest_list *list;
    floe_ice_manifest_file *v1;
    const floe_ice_manifest_file *mfs;
    size_t n;
    floe_ice_manifest **m;
} ct_manifests;

static inline void ct_manifests_load(floe_catalog *c, ct_manifests *cm) {
    memset(cm, 0, sizeof *cm);
    assert_ok(floe_catalog_load_table(c, "db", "t", &cm->t));
    assert_ok(floe_ice_snapshot_manifests(cm->t, floe_ice_tm_current_snapshot(cm->t->md), &cm->list, &cm->v1, &cm->mfs,
                                          &cm->n));
    cm->m = calloc(cm->n ? cm->n : 1, sizeof *cm->m);
    for (size_t i = 0; i < cm->n; i++) {
        floe_input *in = NULL;
        assert_ok(floe_ice_table_open_input(cm->t, cm->mfs[i].manifest_path, cm->mfs[i].manifest_length, &in));
        assert_ok(floe_ice_manifest_read(in, &cm->mfs[i], &cm->m[i]));
        floe_input_close(in);
    }
}

static inline void ct_manifests_free(ct_manifests *cm) {
    for (size_t i = 0; i < cm->n; i++) floe_ice_manifest_free(cm->m[i]);
    free(cm->m);
    floe_ice_manifest_list_free(cm->list);
    floe_free(cm->v1);
    floe_ice_table_free(cm->t);
}

/* ---- row deltas (floe_catalog_row_delta) ------------------------------------ */

#define CT_POS_PATH_ID 2147483546
#define CT_POS_POS_ID 2147483545

/* The path of data file <tag> of db.t (as ct_write names it). */
static inline void ct_data_path(floe_catalog *c, const char *tag, char *out, size_t cap) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    snprintf(out, cap, "%s/data/%s.parquet", t->md->location, tag);
    floe_ice_table_free(t);
}

typedef enum ct_ref_kind {
    CT_REF_FIELD,   /* referenced_data_file set, no bounds */
    CT_REF_BOUNDS,  /* equal file_path bounds only */
    CT_REF_TRUNCATED, /* referenced_data_file and truncated bounds (truncate(16)) */
    CT_REF_NONE     /* neither (a partition-scoped file) */
} ct_ref_kind;

/* A Parquet position delete file <location>/data/<tag>.parquet deleting
 * rows pos[0..n) of data file `target`, as a data_file record encoded with
 * the default spec's partition type — its partition all nulls, which the
 * commit must replace with the target's. */
static inline uint8_t *ct_write_pos_deletes(floe_catalog *c, const char *tag, const char *target, const int64_t *pos,
                                             int n, ct_ref_kind ref, size_t *len) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    char path[2048], dir[2100];
    snprintf(path, sizeof path, "%s/data/%s.parquet", t->md->location, tag);
    snprintf(dir, sizeof dir, "mkdir -p '%s/data'", t->md->location);
    assert_int_equal(system(dir), 0);
    floe_field f[2];
    assert_ok(floe_field_init(&f[0], "file_path", floe_type_primitive(FLOE_TYPE_STRING), false, CT_POS_PATH_ID));
    assert_ok(floe_field_init(&f[1], "pos", floe_type_primitive(FLOE_TYPE_INT64), false, CT_POS_POS_ID));
    floe_schema *schema;
    assert_ok(floe_type_struct(f, 2, &schema));
    floe_builder *b[2];
    floe_array *cols[2];
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &b[0]));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &b[1]));
    for (int i = 0; i < n; i++) {
        assert_ok(floe_builder_append_string(b[0], target));
        assert_ok(floe_builder_append_int64(b[1], pos[i]));
    }
    for (int k = 0; k < 2; k++) {
        assert_ok(floe_builder_finish(b[k], &cols[k]));
        floe_builder_free(b[k]);
    }
    floe_batch *batch;
    assert_ok(floe_batch_new(schema, cols, 2, n, &batch));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    floe_output *out;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_writer *w;
    assert_ok(floe_pq_writer_open(out, schema, &o, &w));
    assert_ok(floe_pq_writer_write(w, batch));
    floe_pq_write_result *res = NULL;
    assert_ok(floe_pq_writer_close(w, &res));
    floe_batch_release(batch);
    for (int k = 0; k < 2; k++) {
        floe_array_release(cols[k]);
        floe_field_clear(&f[k]);
    }
    floe_type_release(schema);

    floe_ice_data_file df;
    floe_ice_data_file_init(&df);
    df.content = FLOE_ICE_CONTENT_POSITION_DELETES;
    df.file_path = path;
    df.file_format = "PARQUET";
    df.record_count = res->record_count;
    df.file_size_in_bytes = res->file_size;
    if (ref == CT_REF_FIELD || ref == CT_REF_TRUNCATED) df.referenced_data_file = target;
    int32_t keys[1] = {CT_POS_PATH_ID};
    const uint8_t *vals[1] = {(const uint8_t *)target};
    uint32_t lens[1] = {(uint32_t)strlen(target)};
    char upper[17];
    const uint8_t *uvals[1] = {(const uint8_t *)upper};
    uint32_t ulens[1] = {16};
    if (ref == CT_REF_BOUNDS) {
        df.lower_bounds = (floe_ice_bound_map){1, keys, vals, lens};
        df.upper_bounds = (floe_ice_bound_map){1, keys, vals, lens};
    } else if (ref == CT_REF_TRUNCATED) {
        assert_true(strlen(target) > 16);
        memcpy(upper, target, 16);
        upper[15]++; /* the 16-byte prefix, incremented */
        upper[16] = 0;
        lens[0] = 16;
        df.lower_bounds = (floe_ice_bound_map){1, keys, vals, lens};
        df.upper_bounds = (floe_ice_bound_map){1, keys, uvals, ulens};
    }
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(t->md);
    floe_ice_type *ptype = NULL;
    assert_ok(floe_ice_partition_spec_partition_type(spec, floe_ice_tm_current_schema(t->md), false, &ptype));
    floe_ice_value part[4];
    for (int32_t k = 0; k < spec->n_fields && k < 4; k++) part[k] = floe_ice_null(ptype->fields[k].type->id);
    df.n_partition = spec->n_fields;
    df.partition = part;
    floe_ice_data_file_codec *codec = NULL;
    assert_ok(floe_ice_data_file_codec_new(ptype, t->md->format_version, &codec));
    uint8_t *bytes = NULL;
    assert_ok(floe_ice_data_file_encode(codec, &df, &bytes, len));
    floe_ice_data_file_codec_free(codec);
    floe_ice_type_free(ptype);
    floe_pq_write_result_free(res);
    floe_ice_table_free(t);
    return bytes;
}

/* A change of n_data added files, n_del delete files and n_rm removed paths. */
static inline floe_row_delta ct_delta(uint8_t **data, size_t *dlens, int32_t n_data, uint8_t **dels,
                                      size_t *del_lens, int32_t n_del, const char **removed, int32_t n_rm,
                                      int64_t base) {
    floe_row_delta d;
    memset(&d, 0, sizeof d);
    d.data_files = (const uint8_t *const *)data;
    d.data_lens = dlens;
    d.n_data = n_data;
    d.delete_files = (const uint8_t *const *)dels;
    d.delete_lens = del_lens;
    d.n_deletes = n_del;
    d.removed_paths = (const char *const *)removed;
    d.n_removed = n_rm;
    d.base_snapshot_id = base;
    d.conflict_filter = NULL;
    d.isolation = FLOE_ISOLATION_SERIALIZABLE;
    return d;
}

#endif

/*
 * manifest.c — Iceberg manifests: reading (any version, fields by id,
 * inheritance from the manifest list), writing v1/v2/v3 with the header
 * keys and field ids other implementations write, and the data_file record
 * as standalone Avro bytes.
 *
 * The writer's Avro schemas are generated from one table of data_file
 * fields (df_fields below), which also drives building the values, so the
 * schema and the values cannot disagree.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buffer.h"
#include "base/log.h"
#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"
#include "iceberg/manifest/manifest_avro.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory in a manifest"); }

const char *floe_ice_content_name(floe_ice_content c) {
    switch (c) {
    case FLOE_ICE_CONTENT_DATA: return "data";
    case FLOE_ICE_CONTENT_POSITION_DELETES: return "position_deletes";
    case FLOE_ICE_CONTENT_EQUALITY_DELETES: return "equality_deletes";
    }
    return "?";
}

const char *floe_ice_manifest_content_name(floe_ice_manifest_content c) {
    return c == FLOE_ICE_MANIFEST_DELETES ? "deletes" : "data";
}

void floe_ice_data_file_init(floe_ice_data_file *f) {
    memset(f, 0, sizeof *f);
    f->column_sizes.n = f->value_counts.n = f->null_value_counts.n = f->nan_value_counts.n = -1;
    f->lower_bounds.n = f->upper_bounds.n = -1;
    f->n_split_offsets = -1;
    f->n_equality_ids = -1;
}

floe_status floe_ice_data_file_bound(const floe_ice_data_file *f, const floe_ice_schema *schema, int32_t field_id,
                                     bool upper, floe_ice_value *out) {
    const floe_ice_bound_map *m = upper ? &f->upper_bounds : &f->lower_bounds;
    const floe_ice_field *col = floe_ice_schema_find_field(schema, field_id);
    if (!col) return floe_error(FLOE_ERR_NOT_FOUND, "no column with id %d", field_id);
    for (int32_t i = 0; i < m->n; i++)
        if (m->keys[i] == field_id && m->values[i])
            return floe_status_wrap(floe_ice_value_from_bytes(col->type, m->values[i], m->lens[i], out),
                                    "%s bound of column %d in '%s'", upper ? "upper" : "lower", field_id, f->file_path);
    return floe_error(FLOE_ERR_NOT_FOUND, "'%s' has no %s bound for column %d", f->file_path,
                      upper ? "upper" : "lower", field_id);
}

/* ---- the data_file schema -------------------------------------------------- */

enum kind { K_INT, K_STR, K_PART, K_LONG, K_BLOCK, K_MAP_LONG, K_MAP_BYTES, K_BYTES_OPT, K_LIST_LONG, K_LIST_INT,
            K_INT_OPT, K_LONG_OPT, K_STR_OPT };

typedef struct df_field {
    int slot;
    int id;
    const char *name;
    int minv, maxv;
    enum kind kind;
    int key_id, value_id;
} df_field;

static const df_field df_fields[] = {
    {FLOE_DF_CONTENT, 134, "content", 2, 3, K_INT, 0, 0},
    {FLOE_DF_FILE_PATH, 100, "file_path", 1, 3, K_STR, 0, 0},
    {FLOE_DF_FILE_FORMAT, 101, "file_format", 1, 3, K_STR, 0, 0},
    {FLOE_DF_PARTITION, 102, "partition", 1, 3, K_PART, 0, 0},
    {FLOE_DF_RECORD_COUNT, 103, "record_count", 1, 3, K_LONG, 0, 0},
    {FLOE_DF_FILE_SIZE, 104, "file_size_in_bytes", 1, 3, K_LONG, 0, 0},
    {-1, 105, "block_size_in_bytes", 1, 1, K_BLOCK, 0, 0},
    {FLOE_DF_COLUMN_SIZES, 108, "column_sizes", 1, 3, K_MAP_LONG, 117, 118},
    {FLOE_DF_VALUE_COUNTS, 109, "value_counts", 1, 3, K_MAP_LONG, 119, 120},
    {FLOE_DF_NULL_COUNTS, 110, "null_value_counts", 1, 3, K_MAP_LONG, 121, 122},
    {FLOE_DF_NAN_COUNTS, 137, "nan_value_counts", 1, 3, K_MAP_LONG, 138, 139},
    {FLOE_DF_LOWER, 125, "lower_bounds", 1, 3, K_MAP_BYTES, 126, 127},
    {FLOE_DF_UPPER, 128, "upper_bounds", 1, 3, K_MAP_BYTES, 129, 130},
    {FLOE_DF_KEY_METADATA, 131, "key_metadata", 1, 3, K_BYTES_OPT, 0, 0},
    {FLOE_DF_SPLIT_OFFSETS, 132, "split_offsets", 1, 3, K_LIST_LONG, 133, 0},
    {FLOE_DF_EQUALITY_IDS, 135, "equality_ids", 2, 3, K_LIST_INT, 136, 0},
    {FLOE_DF_SORT_ORDER_ID, 140, "sort_order_id", 1, 3, K_INT_OPT, 0, 0},
    {FLOE_DF_FIRST_ROW_ID, 142, "first_row_id", 3, 3, K_LONG_OPT, 0, 0},
    {FLOE_DF_REFERENCED, 143, "referenced_data_file", 2, 3, K_STR_OPT, 0, 0},
    {FLOE_DF_CONTENT_OFFSET, 144, "content_offset", 3, 3, K_LONG_OPT, 0, 0},
    {FLOE_DF_CONTENT_SIZE, 145, "content_size_in_bytes", 3, 3, K_LONG_OPT, 0, 0},
};
#define N_DF_FIELDS (sizeof df_fields / sizeof df_fields[0])

/* v1 writers must write block_size_in_bytes; Java writes 64 MiB. */
#define V1_BLOCK_SIZE (64 * 1024 * 1024)

static floe_status partition_schema_json(floe_buf *b, const floe_ice_type *pt) {
    FLOE_TRY(floe_buf_append_str(b, "{\"type\":\"record\",\"name\":\"r102\",\"fields\":["));
    for (int32_t i = 0; pt && i < pt->n_fields; i++) {
        const floe_ice_field *f = &pt->fields[i];
        if (i) FLOE_TRY(floe_buf_append_byte(b, ','));
        json_t *name = json_string(f->name);
        char *qn = name ? json_dumps(name, JSON_ENCODE_ANY) : NULL;
        json_decref(name);
        if (!qn) return oom();
        floe_status st = floe_buf_printf(b, "{\"name\":%s,\"type\":", qn);
        free(qn);
        FLOE_TRY(st);
        if (f->type->id == FLOE_ICE_UNKNOWN) {
            FLOE_TRY(floe_buf_append_str(b, "\"null\""));
        } else {
            FLOE_TRY(floe_buf_append_str(b, "[\"null\","));
            FLOE_TRY(floe_ice_avro_type_json(b, f->type, f->id));
            FLOE_TRY(floe_buf_append_byte(b, ']'));
        }
        FLOE_TRY(floe_buf_printf(b, ",\"default\":null,\"field-id\":%d}", f->id));
    }
    return floe_buf_append_str(b, "]}");
}

static floe_status df_schema_json(floe_buf *b, const floe_ice_type *pt, int v) {
    FLOE_TRY(floe_buf_append_str(b, "{\"type\":\"record\",\"name\":\"r2\",\"fields\":["));
    bool first = true;
    for (size_t i = 0; i < N_DF_FIELDS; i++) {
        const df_field *d = &df_fields[i];
        if (v < d->minv || v > d->maxv) continue;
        if (!first) FLOE_TRY(floe_buf_append_byte(b, ','));
        first = false;
        FLOE_TRY(floe_buf_printf(b, "{\"name\":\"%s\",\"type\":", d->name));
        bool opt = true;
        switch (d->kind) {
        case K_INT: FLOE_TRY(floe_buf_append_str(b, "\"int\"")); opt = false; break;
        case K_STR: FLOE_TRY(floe_buf_append_str(b, "\"string\"")); opt = false; break;
        case K_LONG:
        case K_BLOCK: FLOE_TRY(floe_buf_append_str(b, "\"long\"")); opt = false; break;
        case K_PART: FLOE_TRY(partition_schema_json(b, pt)); opt = false; break;
        case K_MAP_LONG:
        case K_MAP_BYTES:
            FLOE_TRY(floe_buf_printf(b,
                                     "[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"k%d_v%d\","
                                     "\"fields\":[{\"name\":\"key\",\"type\":\"int\",\"field-id\":%d},"
                                     "{\"name\":\"value\",\"type\":\"%s\",\"field-id\":%d}]},\"logicalType\":\"map\"}]",
                                     d->key_id, d->value_id, d->key_id, d->kind == K_MAP_LONG ? "long" : "bytes",
                                     d->value_id));
            break;
        case K_BYTES_OPT: FLOE_TRY(floe_buf_append_str(b, "[\"null\",\"bytes\"]")); break;
        case K_LIST_LONG:
        case K_LIST_INT:
            FLOE_TRY(floe_buf_printf(b, "[\"null\",{\"type\":\"array\",\"items\":\"%s\",\"element-id\":%d}]",
                                     d->kind == K_LIST_LONG ? "long" : "int", d->key_id));
            break;
        case K_INT_OPT: FLOE_TRY(floe_buf_append_str(b, "[\"null\",\"int\"]")); break;
        case K_LONG_OPT: FLOE_TRY(floe_buf_append_str(b, "[\"null\",\"long\"]")); break;
        case K_STR_OPT: FLOE_TRY(floe_buf_append_str(b, "[\"null\",\"string\"]")); break;
        }
        if (opt) FLOE_TRY(floe_buf_append_str(b, ",\"default\":null"));
        FLOE_TRY(floe_buf_printf(b, ",\"field-id\":%d}", d->id));
    }
    return floe_buf_append_str(b, "]}");
}

static floe_status entry_schema_json(floe_buf *b, const floe_ice_type *pt, int v) {
    FLOE_TRY(floe_buf_append_str(b, "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
                                    "{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"));
    if (v == 1) FLOE_TRY(floe_buf_append_str(b, "{\"name\":\"snapshot_id\",\"type\":\"long\",\"field-id\":1},"));
    else
        FLOE_TRY(floe_buf_append_str(b,
                                     "{\"name\":\"snapshot_id\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":1},"
                                     "{\"name\":\"sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":3},"
                                     "{\"name\":\"file_sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,"
                                     "\"field-id\":4},"));
    FLOE_TRY(floe_buf_append_str(b, "{\"name\":\"data_file\",\"type\":"));
    FLOE_TRY(df_schema_json(b, pt, v));
    return floe_buf_append_str(b, ",\"field-id\":2}]}");
}

/* ---- data_file -> Avro value ------------------------------------------------- */

static floe_avro_value *items(floe_arena *a, size_t n) {
    return floe_arena_alloc(a, (n ? n : 1) * sizeof(floe_avro_value));
}

static floe_status map_value(floe_arena *a, int32_t n, const int32_t *keys, const int64_t *lv, const uint8_t *const *bv,
                             const uint32_t *lens, floe_avro_value *out) {
    if (n < 0) {
        *out = floe_avro_null();
        return NULL;
    }
    floe_avro_value *recs = items(a, (size_t)n);
    floe_avro_value *kv = items(a, 2 * (size_t)n);
    if (!recs || !kv) return oom();
    for (int32_t i = 0; i < n; i++) {
        kv[2 * i] = floe_avro_long(FLOE_AVRO_INT, keys[i]);
        kv[2 * i + 1] = lv ? floe_avro_long(FLOE_AVRO_LONG, lv[i]) : floe_avro_bytes(FLOE_AVRO_BYTES, bv[i], lens[i]);
        recs[i] = floe_avro_items(FLOE_AVRO_RECORD, &kv[2 * i], 2);
    }
    *out = floe_avro_items(FLOE_AVRO_ARRAY, recs, (size_t)n);
    return NULL;
}

static floe_avro_value opt_long(bool has, int64_t v) { return has ? floe_avro_long(FLOE_AVRO_LONG, v) : floe_avro_null(); }

static floe_avro_value text(const char *s) {
    return s ? floe_avro_bytes(FLOE_AVRO_STRING, s, strlen(s)) : floe_avro_null();
}

static floe_status df_to_avro(const floe_ice_data_file *f, const floe_ice_type *pt, int v, floe_arena *a,
                              floe_avro_value *out) {
    floe_avro_value *it = items(a, N_DF_FIELDS);
    if (!it) return oom();
    int32_t np = pt ? pt->n_fields : 0;
    if (f->n_partition != np)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "data_file '%s': partition tuple has %d values, the spec %d fields",
                          f->file_path ? f->file_path : "?", f->n_partition, np);
    size_t n = 0;
    for (size_t i = 0; i < N_DF_FIELDS; i++) {
        const df_field *d = &df_fields[i];
        if (v < d->minv || v > d->maxv) continue;
        floe_avro_value *x = &it[n++];
        switch (d->slot) {
        case FLOE_DF_CONTENT: *x = floe_avro_long(FLOE_AVRO_INT, f->content); break;
        case FLOE_DF_FILE_PATH:
            if (!f->file_path) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "data_file without a file_path");
            *x = text(f->file_path);
            break;
        case FLOE_DF_FILE_FORMAT: *x = text(f->file_format ? f->file_format : "PARQUET"); break;
        case FLOE_DF_PARTITION: {
            floe_avro_value *pv = items(a, (size_t)np);
            if (!pv) return oom();
            for (int32_t k = 0; k < np; k++)
                FLOE_TRY(floe_ice_part_value_to_avro(pt->fields[k].type, &f->partition[k], a, &pv[k]));
            *x = floe_avro_items(FLOE_AVRO_RECORD, pv, (size_t)np);
            break;
        }
        case FLOE_DF_RECORD_COUNT: *x = floe_avro_long(FLOE_AVRO_LONG, f->record_count); break;
        case FLOE_DF_FILE_SIZE: *x = floe_avro_long(FLOE_AVRO_LONG, f->file_size_in_bytes); break;
        case -1: *x = floe_avro_long(FLOE_AVRO_LONG, V1_BLOCK_SIZE); break;
        case FLOE_DF_COLUMN_SIZES: FLOE_TRY(map_value(a, f->column_sizes.n, f->column_sizes.keys, f->column_sizes.values, NULL, NULL, x)); break;
        case FLOE_DF_VALUE_COUNTS: FLOE_TRY(map_value(a, f->value_counts.n, f->value_counts.keys, f->value_counts.values, NULL, NULL, x)); break;
        case FLOE_DF_NULL_COUNTS:
            FLOE_TRY(map_value(a, f->null_value_counts.n, f->null_value_counts.keys, f->null_value_counts.values, NULL, NULL, x));
            break;
        case FLOE_DF_NAN_COUNTS:
            FLOE_TRY(map_value(a, f->nan_value_counts.n, f->nan_value_counts.keys, f->nan_value_counts.values, NULL, NULL, x));
            break;
        case FLOE_DF_LOWER:
            FLOE_TRY(map_value(a, f->lower_bounds.n, f->lower_bounds.keys, NULL, f->lower_bounds.values, f->lower_bounds.lens, x));
            break;
        case FLOE_DF_UPPER:
            FLOE_TRY(map_value(a, f->upper_bounds.n, f->upper_bounds.keys, NULL, f->upper_bounds.values, f->upper_bounds.lens, x));
            break;
        case FLOE_DF_KEY_METADATA:
            *x = f->key_metadata ? floe_avro_bytes(FLOE_AVRO_BYTES, f->key_metadata, f->key_metadata_len) : floe_avro_null();
            break;
        case FLOE_DF_SPLIT_OFFSETS:
        case FLOE_DF_EQUALITY_IDS: {
            bool split = d->slot == FLOE_DF_SPLIT_OFFSETS;
            int32_t cnt = split ? f->n_split_offsets : f->n_equality_ids;
            if (cnt < 0) {
                *x = floe_avro_null();
                break;
            }
            floe_avro_value *lv = items(a, (size_t)cnt);
            if (!lv) return oom();
            for (int32_t k = 0; k < cnt; k++)
                lv[k] = split ? floe_avro_long(FLOE_AVRO_LONG, f->split_offsets[k])
                              : floe_avro_long(FLOE_AVRO_INT, f->equality_ids[k]);
            *x = floe_avro_items(FLOE_AVRO_ARRAY, lv, (size_t)cnt);
            break;
        }
        case FLOE_DF_SORT_ORDER_ID:
            *x = f->has_sort_order_id ? floe_avro_long(FLOE_AVRO_INT, f->sort_order_id) : floe_avro_null();
            break;
        case FLOE_DF_FIRST_ROW_ID: *x = opt_long(f->has_first_row_id, f->first_row_id); break;
        case FLOE_DF_REFERENCED: *x = text(f->referenced_data_file); break;
        case FLOE_DF_CONTENT_OFFSET: *x = opt_long(f->has_content_offset, f->content_offset); break;
        case FLOE_DF_CONTENT_SIZE: *x = opt_long(f->has_content_size_in_bytes, f->content_size_in_bytes); break;
        default: *x = floe_avro_null();
        }
    }
    *out = floe_avro_items(FLOE_AVRO_RECORD, it, n);
    return NULL;
}

/* ---- reading manifests ------------------------------------------------------ */

struct floe_ice_mf_private {
    floe_arena arena;
    floe_ice_df_layout layout;
};

/* Partition field ids from the header's "partition-spec" (v1 manifests may
 * omit ids in the Avro schema). */
static floe_status header_spec_ids(floe_avro_reader *r, int32_t **ids, int32_t *n) {
    *ids = NULL;
    *n = 0;
    size_t len;
    const uint8_t *txt = floe_avro_reader_meta(r, "partition-spec", &len);
    if (!txt) return NULL;
    json_t *j = json_loadb((const char *)txt, len, JSON_DECODE_ANY, NULL);
    if (!j) return NULL; /* unreadable header: fall back to positions */
    if (json_is_array(j) && json_array_size(j)) {
        *ids = floe_malloc_array(json_array_size(j), sizeof **ids);
        if (!*ids) {
            json_decref(j);
            return oom();
        }
        for (size_t i = 0; i < json_array_size(j); i++) {
            json_t *fid = json_object_get(json_array_get(j, i), "field-id");
            (*ids)[i] = json_is_integer(fid) ? (int32_t)json_integer_value(fid) : FLOE_ICE_PARTITION_DATA_ID_START + (int32_t)i;
        }
        *n = (int32_t)json_array_size(j);
    }
    json_decref(j);
    return NULL;
}

static int64_t meta_int(floe_avro_reader *r, const char *key, int64_t dflt) {
    size_t len;
    const uint8_t *v = floe_avro_reader_meta(r, key, &len);
    if (!v || !len) return dflt;
    char *end;
    long long x = strtoll((const char *)v, &end, 10);
    return end == (const char *)v ? dflt : (int64_t)x;
}

floe_status floe_ice_manifest_reader_open(floe_input *in, const floe_ice_manifest_file *mf, floe_ice_manifest_reader *mr) {
    memset(mr, 0, sizeof *mr);
    mr->mf = mf;
    mr->path = in->path;
    /* FLOE_LOG=debug shows every manifest read: tests count them per commit. */
    FLOE_LOG_DEBUG("manifest", "read %s", in->path);
    FLOE_TRY_CTX(floe_avro_reader_open(in, NULL, &mr->r), "manifest '%s'", in->path);
    const floe_avro_schema *ws = floe_avro_reader_writer_schema(mr->r);
    static const char *const n_status[] = {"status", NULL}, *const n_sid[] = {"snapshot_id", NULL},
                             *const n_seq[] = {"sequence_number", NULL},
                             *const n_fseq[] = {"file_sequence_number", NULL}, *const n_df[] = {"data_file", NULL};
    mr->i_status = floe_ice_avro_find(ws, 0, n_status);
    mr->i_snapshot_id = floe_ice_avro_find(ws, 1, n_sid);
    mr->i_seq = floe_ice_avro_find(ws, 3, n_seq);
    mr->i_file_seq = floe_ice_avro_find(ws, 4, n_fseq);
    mr->i_data_file = floe_ice_avro_find(ws, 2, n_df);
    int32_t *spec_ids = NULL, n_spec_ids = 0;
    floe_status st = NULL;
    if (mr->i_status < 0 || mr->i_data_file < 0)
        st = floe_error(FLOE_ERR_CORRUPT, "not a manifest: the records have no 'status'/'data_file' fields");
    if (!st) st = header_spec_ids(mr->r, &spec_ids, &n_spec_ids);
    if (!st) {
        const floe_avro_schema *rec = floe_ice_avro_record(ws);
        st = floe_ice_df_layout_init(&mr->layout, rec->fields[mr->i_data_file].type, spec_ids, n_spec_ids);
    }
    floe_free(spec_ids);
    if (st) {
        floe_ice_manifest_reader_close(mr);
        return floe_status_wrap(st, "manifest '%s'", in->path);
    }
    int64_t fv = meta_int(mr->r, "format-version", -1);
    if (fv < 0) fv = mr->layout.idx[FLOE_DF_CONTENT] >= 0 || mr->i_seq >= 0 ? 2 : 1;
    mr->format_version = (int)fv;
    size_t len;
    const uint8_t *c = floe_avro_reader_meta(mr->r, "content", &len);
    mr->content = c && strcmp((const char *)c, "deletes") == 0 ? FLOE_ICE_MANIFEST_DELETES : FLOE_ICE_MANIFEST_DATA;
    if (mf) mr->content = mf->content;
    mr->spec_id = mf ? mf->partition_spec_id : (int32_t)meta_int(mr->r, "partition-spec-id", 0);
    mr->schema_id = (int32_t)meta_int(mr->r, "schema-id", -1);
    mr->next_row_id = mf && mf->has_first_row_id ? mf->first_row_id : -1;
    return NULL;
}

void floe_ice_manifest_reader_close(floe_ice_manifest_reader *mr) {
    floe_ice_df_layout_clear(&mr->layout);
    floe_avro_reader_close(mr->r);
    mr->r = NULL;
}

size_t floe_ice_manifest_reader_expected(const floe_ice_manifest_reader *mr) {
    /* The list record's counts are hints: a wrong one only costs a realloc. */
    const floe_ice_manifest_file *mf = mr->mf;
    if (!mf || mf->added_files_count < 0 || mf->existing_files_count < 0 || mf->deleted_files_count < 0) return 0;
    size_t want = (size_t)mf->added_files_count + (size_t)mf->existing_files_count + (size_t)mf->deleted_files_count;
    return want < ((size_t)1 << 24) ? want : 0;
}

floe_status floe_ice_manifest_reader_next(floe_ice_manifest_reader *mr, floe_arena *scratch, floe_ice_manifest_entry *e,
                                          const floe_avro_value **data_file, int *has) {
    *data_file = NULL;
    floe_avro_value v;
    FLOE_TRY(floe_avro_reader_next(mr->r, scratch, &v, has));
    if (!*has) return NULL;
    size_t idx = mr->n_read++;
    const floe_ice_manifest_file *mf = mr->mf;
    int64_t status = floe_ice_avro_long(floe_ice_avro_get(&v, mr->i_status), -1);
    if (status < 0 || status > 2) return floe_error(FLOE_ERR_CORRUPT, "entry %zu: invalid status %" PRId64, idx, status);
    e->status = (floe_ice_entry_status)status;
    *data_file = floe_ice_avro_get(&v, mr->i_data_file);
    if (!*data_file) return floe_error(FLOE_ERR_CORRUPT, "entry %zu: data_file is null", idx);
    /* Inheritance (spec: manifest entry fields). */
    const floe_avro_value *sid = floe_ice_avro_get(&v, mr->i_snapshot_id);
    e->snapshot_id = sid ? floe_ice_avro_long(sid, -1) : (mf ? mf->added_snapshot_id : -1);
    bool inherit = e->status == FLOE_ICE_STATUS_ADDED || (mf && mf->sequence_number == 0);
    int64_t dflt = inherit && mf ? mf->sequence_number : (mr->format_version == 1 ? 0 : -1);
    const floe_avro_value *sq = floe_ice_avro_get(&v, mr->i_seq);
    e->sequence_number = sq ? floe_ice_avro_long(sq, -1) : dflt;
    const floe_avro_value *fsq = floe_ice_avro_get(&v, mr->i_file_seq);
    e->file_sequence_number = fsq ? floe_ice_avro_long(fsq, -1) : dflt;
    return NULL;
}

bool floe_ice_manifest_reader_row_id(floe_ice_manifest_reader *mr, floe_ice_content content, floe_ice_entry_status status,
                                     int64_t record_count, int64_t *first_row_id) {
    /* v3 row lineage: data files without a first_row_id get one from the
     * manifest's, in entry order. */
    if (content != FLOE_ICE_CONTENT_DATA || status == FLOE_ICE_STATUS_DELETED || mr->next_row_id < 0) return false;
    *first_row_id = mr->next_row_id;
    mr->next_row_id += record_count;
    return true;
}

static floe_status read_entries(floe_ice_manifest_reader *mr, floe_ice_manifest *m) {
    floe_arena scratch;
    floe_arena_init(&scratch, 0);
    floe_arena *a = &m->priv->arena;
    size_t cap = floe_ice_manifest_reader_expected(mr);
    floe_status st = NULL;
    if (cap) {
        m->entries = floe_malloc_array(cap, sizeof *m->entries);
        if (!m->entries) cap = 0;
    }
    for (;;) {
        floe_arena_reset(&scratch);
        floe_ice_manifest_entry head;
        const floe_avro_value *df;
        int has = 0;
        st = floe_ice_manifest_reader_next(mr, &scratch, &head, &df, &has);
        if (st || !has) break;
        /* Grown only for an entry that exists: an exact hint stays exact. */
        if (m->n_entries == cap) {
            size_t nc = cap ? cap * 2 : 64;
            floe_ice_manifest_entry *ne = floe_realloc(m->entries, nc * sizeof *ne);
            if (!ne) {
                st = oom();
                break;
            }
            m->entries = ne;
            cap = nc;
        }
        floe_ice_manifest_entry *e = &m->entries[m->n_entries];
        e->status = head.status;
        e->snapshot_id = head.snapshot_id;
        e->sequence_number = head.sequence_number;
        e->file_sequence_number = head.file_sequence_number;
        st = floe_ice_df_from_avro(&mr->layout, df, a, &e->file);
        if (st) {
            st = floe_status_wrap(st, "entry %zu", m->n_entries);
            break;
        }
        e->file.spec_id = m->spec_id;
        if (!e->file.has_first_row_id &&
            floe_ice_manifest_reader_row_id(mr, e->file.content, e->status, e->file.record_count, &e->file.first_row_id))
            e->file.has_first_row_id = true;
        m->n_entries++;
    }
    floe_arena_destroy(&scratch);
    return st;
}

floe_status floe_ice_manifest_read(floe_input *in, const floe_ice_manifest_file *mf, floe_ice_manifest **out) {
    *out = NULL;
    floe_ice_manifest_reader mr;
    FLOE_TRY(floe_ice_manifest_reader_open(in, mf, &mr));
    floe_ice_manifest *m = floe_calloc(1, sizeof *m);
    struct floe_ice_mf_private *priv = floe_calloc(1, sizeof *priv);
    floe_status st = (!m || !priv) ? oom() : NULL;
    if (!st) {
        m->priv = priv;
        floe_arena_init(&priv->arena, 64 * 1024);
        m->format_version = mr.format_version;
        m->content = mr.content;
        m->spec_id = mr.spec_id;
        m->schema_id = mr.schema_id;
        st = read_entries(&mr, m);
        /* The entries point at the layout's partition ids: keep it. */
        priv->layout = mr.layout;
        memset(&mr.layout, 0, sizeof mr.layout);
    } else {
        floe_free(priv);
    }
    floe_ice_manifest_reader_close(&mr);
    if (st) {
        floe_ice_manifest_free(m);
        return floe_status_wrap(st, "manifest '%s'", in->path);
    }
    *out = m;
    return NULL;
}

void floe_ice_manifest_free(floe_ice_manifest *m) {
    if (!m) return;
    if (m->priv) {
        floe_ice_df_layout_clear(&m->priv->layout);
        floe_arena_destroy(&m->priv->arena);
        floe_free(m->priv);
    }
    floe_free(m->entries);
    floe_free(m);
}

/* ---- writing manifests ------------------------------------------------------ */

struct floe_ice_manifest_writer {
    floe_avro_writer *w;
    floe_avro_schema *schema;
    floe_ice_type *pt;
    floe_ice_manifest_writer_options opts;
    floe_arena scratch;
    floe_ice_manifest_file sum;
};

static void writer_free(floe_ice_manifest_writer *w) {
    floe_avro_schema_free(w->schema);
    floe_ice_type_free(w->pt);
    floe_arena_destroy(&w->scratch);
    floe_free(w);
}

static floe_status make_meta(const floe_ice_manifest_writer_options *o, floe_avro_meta *meta, size_t *n,
                             char **owned) {
    char *schema_json = NULL, *spec_json = NULL;
    json_t *fields = NULL;
    FLOE_TRY(floe_ice_schema_to_json_text(o->schema, &schema_json));
    owned[0] = schema_json;
    FLOE_TRY(floe_ice_partition_fields_to_json(o->spec, &fields));
    floe_status st = floe_ice_json_dump(fields, &spec_json);
    json_decref(fields);
    FLOE_TRY(st);
    owned[1] = spec_json;
    char buf[3][32];
    snprintf(buf[0], sizeof buf[0], "%d", o->schema->schema_id);
    snprintf(buf[1], sizeof buf[1], "%d", o->spec->spec_id);
    snprintf(buf[2], sizeof buf[2], "%d", o->format_version);
    for (int i = 0; i < 3; i++) {
        owned[2 + i] = floe_strdup(buf[i]);
        if (!owned[2 + i]) return oom();
    }
    size_t k = 0;
#define M(K_, V_) (meta[k].key = (char *)(K_), meta[k].value = (uint8_t *)(V_), meta[k].len = strlen(V_), k++)
    M("schema", owned[0]);
    M("schema-id", owned[2]);
    M("partition-spec", owned[1]);
    M("partition-spec-id", owned[3]);
    M("format-version", owned[4]);
    if (o->format_version >= 2) M("content", o->content == FLOE_ICE_MANIFEST_DELETES ? "deletes" : "data");
#undef M
    *n = k;
    return NULL;
}

floe_status floe_ice_manifest_writer_open(floe_output *out, const floe_ice_manifest_writer_options *opts,
                                          floe_ice_manifest_writer **wout) {
    *wout = NULL;
    if (opts->format_version < 1 || opts->format_version > FLOE_ICE_MAX_FORMAT_VERSION)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "manifest: unsupported format version %d", opts->format_version);
    if (!opts->schema || !opts->spec) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "manifest: schema and spec are required");
    if (opts->format_version == 1 && opts->content == FLOE_ICE_MANIFEST_DELETES)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "manifest: format version 1 has no delete manifests");
    floe_ice_manifest_writer *w = floe_calloc(1, sizeof *w);
    if (!w) return oom();
    w->opts = *opts;
    floe_arena_init(&w->scratch, 0);
    w->sum.min_sequence_number = INT64_MAX;
    floe_buf b = FLOE_BUF_INIT;
    floe_avro_meta meta[6];
    size_t n_meta = 0;
    char *owned[5] = {0};
    floe_status st = floe_ice_partition_spec_partition_type(opts->spec, opts->schema, true, &w->pt);
    if (!st) st = entry_schema_json(&b, w->pt, opts->format_version);
    if (!st) st = floe_avro_schema_parse(floe_buf_cstr(&b), b.len, &w->schema);
    if (!st) st = make_meta(opts, meta, &n_meta, owned);
    floe_avro_writer_options wo = {FLOE_AVRO_CODEC_DEFLATE, 0, 0};
    if (!st) st = floe_avro_writer_open(out, w->schema, meta, n_meta, &wo, &w->w);
    for (int i = 0; i < 5; i++) floe_free(owned[i]);
    floe_buf_free(&b);
    if (st) {
        writer_free(w);
        return floe_status_wrap(st, "writing manifest '%s'", out->path ? out->path : "?");
    }
    *wout = w;
    return NULL;
}

static floe_avro_value opt_or_null(int64_t v) { return v >= 0 ? floe_avro_long(FLOE_AVRO_LONG, v) : floe_avro_null(); }

floe_status floe_ice_manifest_writer_add(floe_ice_manifest_writer *w, const floe_ice_manifest_entry *e) {
    floe_arena_reset(&w->scratch);
    floe_avro_value it[5];
    size_t n = 0;
    it[n++] = floe_avro_long(FLOE_AVRO_INT, e->status);
    if (w->opts.format_version == 1) {
        it[n++] = floe_avro_long(FLOE_AVRO_LONG, e->snapshot_id >= 0 ? e->snapshot_id : w->opts.snapshot_id);
    } else {
        it[n++] = opt_or_null(e->snapshot_id);
        it[n++] = opt_or_null(e->sequence_number);
        it[n++] = opt_or_null(e->file_sequence_number);
    }
    FLOE_TRY(df_to_avro(&e->file, w->pt, w->opts.format_version, &w->scratch, &it[n++]));
    floe_avro_value rec = floe_avro_items(FLOE_AVRO_RECORD, it, n);
    FLOE_TRY(floe_avro_writer_append(w->w, &rec));
    floe_ice_manifest_file *s = &w->sum;
    switch (e->status) {
    case FLOE_ICE_STATUS_ADDED: s->added_files_count++, s->added_rows_count += e->file.record_count; break;
    case FLOE_ICE_STATUS_EXISTING: s->existing_files_count++, s->existing_rows_count += e->file.record_count; break;
    case FLOE_ICE_STATUS_DELETED: s->deleted_files_count++, s->deleted_rows_count += e->file.record_count; break;
    }
    if (e->status != FLOE_ICE_STATUS_DELETED && e->sequence_number >= 0 && e->sequence_number < s->min_sequence_number)
        s->min_sequence_number = e->sequence_number;
    return NULL;
}

floe_status floe_ice_manifest_writer_finish(floe_ice_manifest_writer *w, floe_ice_manifest_file *summary) {
    floe_status st = floe_avro_writer_finish(w->w);
    if (!st && summary) {
        *summary = w->sum;
        summary->partition_spec_id = w->opts.spec->spec_id;
        summary->content = w->opts.content;
        summary->added_snapshot_id = w->opts.snapshot_id;
        summary->n_partitions = -1;
        summary->sequence_number = -1;
        if (summary->min_sequence_number == INT64_MAX) summary->min_sequence_number = -1;
    }
    writer_free(w);
    return st;
}

void floe_ice_manifest_writer_abort(floe_ice_manifest_writer *w) {
    if (!w) return;
    floe_avro_writer_abort(w->w);
    writer_free(w);
}

/* ---- data_file codec ---------------------------------------------------------- */

struct floe_ice_data_file_codec {
    int version;
    floe_ice_type *pt;
    floe_avro_schema *schema;
    char *schema_json;
    floe_ice_df_layout layout;
};

void floe_ice_data_file_codec_free(floe_ice_data_file_codec *c) {
    if (!c) return;
    floe_ice_df_layout_clear(&c->layout);
    floe_avro_schema_free(c->schema);
    floe_ice_type_free(c->pt);
    floe_free(c->schema_json);
    floe_free(c);
}

floe_status floe_ice_data_file_codec_new(const floe_ice_type *pt, int version, floe_ice_data_file_codec **out) {
    *out = NULL;
    if (version < 1 || version > FLOE_ICE_MAX_FORMAT_VERSION)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "data_file codec: unsupported format version %d", version);
    if (pt && pt->id != FLOE_ICE_STRUCT)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "data_file codec: the partition type must be a struct");
    floe_ice_data_file_codec *c = floe_calloc(1, sizeof *c);
    if (!c) return oom();
    c->version = version;
    floe_status st = pt ? floe_ice_type_copy(pt, &c->pt) : floe_ice_type_struct(&c->pt);
    floe_buf b = FLOE_BUF_INIT;
    if (!st) st = df_schema_json(&b, c->pt, version);
    if (!st) st = floe_avro_schema_parse(floe_buf_cstr(&b), b.len, &c->schema);
    if (!st) {
        c->schema_json = (char *)floe_buf_detach(&b, NULL);
        if (!c->schema_json) st = oom();
    }
    if (!st) st = floe_ice_df_layout_init(&c->layout, c->schema, NULL, 0);
    floe_buf_free(&b);
    if (st) {
        floe_ice_data_file_codec_free(c);
        return st;
    }
    *out = c;
    return NULL;
}

floe_status floe_ice_data_file_codec_schema_json(const floe_ice_data_file_codec *c, char **out) {
    *out = floe_strdup(c->schema_json);
    return *out ? NULL : oom();
}

floe_status floe_ice_data_file_encode(const floe_ice_data_file_codec *c, const floe_ice_data_file *f, uint8_t **out,
                                      size_t *out_len) {
    *out = NULL;
    *out_len = 0;
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_avro_value v;
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = df_to_avro(f, c->pt, c->version, &a, &v);
    if (!st) st = floe_avro_encode_datum(c->schema, &v, &b);
    floe_arena_destroy(&a);
    if (st) {
        floe_buf_free(&b);
        return floe_status_wrap(st, "encoding data_file '%s'", f->file_path ? f->file_path : "?");
    }
    if (!b.data) {
        floe_status e = floe_buf_reserve(&b, 1);
        if (e) return e;
    }
    *out = floe_buf_detach(&b, out_len);
    return NULL;
}

floe_status floe_ice_data_file_decode(const floe_ice_data_file_codec *c, const uint8_t *data, size_t len,
                                      struct floe_arena *arena, floe_ice_data_file *out) {
    floe_avro_value v;
    size_t used = 0;
    FLOE_TRY_CTX(floe_avro_decode_datum(c->schema, NULL, data, len, arena, &v, &used), "decoding a data_file record");
    if (used != len)
        return floe_error(FLOE_ERR_CORRUPT, "decoding a data_file record: %zu trailing bytes after the record", len - used);
    return floe_status_wrap(floe_ice_df_from_avro(&c->layout, &v, arena, out), "decoding a data_file record");
}

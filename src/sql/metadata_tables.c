/*
 * metadata_tables.c — the rows of Iceberg metadata tables ("t$snapshots",
 * "t$files", ...) built from a table's metadata and manifests, handed out
 * as Values plans.  Column choices are documented in metadata_tables.h.
 *
 * Every table is built the same way: declare the columns (mt_col), open
 * one builder per column (mt_start), append one value per column per row,
 * and turn the builders into a single batch (mt_finish).  Metadata tables
 * are small next to the data they describe (one row per file at most), so
 * one batch is fine; the Values node slices it to the batch size when run.
 */
#include "sql/metadata_tables.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buffer.h"
#include "base/hashmap.h"
#include "base/str.h"
#include "floe/iceberg_deletes.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_task_reader.h"
#include "floe/memory.h"

const char *const floe_sql_metadata_table_names[] = {
    "snapshots", "history", "manifests", "files", "partitions", "refs", "properties", "metadata_log_entries",
    "data_files", "delete_files", "all_files", "all_data_files", "all_delete_files", "entries", "all_entries", "all_manifests", "position_deletes", NULL,
};

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "building a metadata table"); }

/* ------------------------------------------------------ column builders */

#define MT_MAX_COLS 24

typedef struct mt {
    int32_t n;
    floe_field fields[MT_MAX_COLS];
    floe_builder *b[MT_MAX_COLS];
} mt;

static void mt_free(mt *m) {
    for (int32_t i = 0; i < m->n; i++) {
        floe_field_clear(&m->fields[i]);
        floe_builder_free(m->b[i]);
        m->b[i] = NULL;
    }
    m->n = 0;
}

/* Declare the next column; `type` is borrowed (the field retains it). */
static floe_status mt_col(mt *m, const char *name, floe_type *type, bool nullable) {
    if (m->n >= MT_MAX_COLS) return floe_error(FLOE_ERR_INTERNAL, "metadata table: too many columns");
    FLOE_TRY(floe_field_init(&m->fields[m->n], name, type, nullable, -1));
    m->n++;
    return NULL;
}

static floe_status mt_start(mt *m, int64_t rows_hint) {
    for (int32_t i = 0; i < m->n; i++) FLOE_TRY(floe_builder_new(m->fields[i].type, rows_hint, &m->b[i]));
    return NULL;
}

/* The built rows as a one-partition Values plan. */
static floe_status mt_finish(mt *m, floe_plan **out) {
    floe_schema *schema = NULL;
    floe_array *cols[MT_MAX_COLS] = {0};
    floe_batch *batch = NULL;
    floe_status st = floe_type_struct(m->fields, m->n, &schema);
    int64_t rows = m->n ? floe_builder_length(m->b[0]) : 0;
    for (int32_t i = 0; !st && i < m->n; i++) st = floe_builder_finish(m->b[i], &cols[i]);
    if (!st) st = floe_batch_new(schema, cols, m->n, rows, &batch);
    if (!st) st = floe_plan_values(schema, &batch, rows ? 1 : 0, 1, out);
    floe_batch_release(batch);
    for (int32_t i = 0; i < m->n; i++) floe_array_release(cols[i]);
    floe_type_release(schema);
    return st;
}

static floe_type *ty(floe_type_id id) { return floe_type_primitive(id); }

static floe_status put_i64(floe_builder *b, bool valid, int64_t v) {
    return valid ? floe_builder_append_int64(b, v) : floe_builder_append_null(b);
}
static floe_status put_i32(floe_builder *b, bool valid, int32_t v) {
    return valid ? floe_builder_append_int32(b, v) : floe_builder_append_null(b);
}
static floe_status put_str(floe_builder *b, const char *s) {
    return s ? floe_builder_append_string(b, s) : floe_builder_append_null(b);
}

/* A map<int32, int64> type, or map<int32, string>. */
static floe_status map_type(floe_type_id value, floe_type **out) {
    floe_field k = {0}, v = {0};
    floe_status st = floe_field_init(&k, "key", ty(FLOE_TYPE_INT32), false, -1);
    if (!st) st = floe_field_init(&v, "value", ty(value), true, -1);
    if (!st) st = floe_type_map(&k, &v, false, out);
    floe_field_clear(&k);
    floe_field_clear(&v);
    return st;
}

static floe_status list_type(floe_type *element, floe_type **out) {
    floe_field e = {0};
    floe_status st = floe_field_init(&e, "element", element, true, -1);
    if (!st) st = floe_type_list(&e, out);
    floe_field_clear(&e);
    return st;
}

/* ------------------------------------------------------- Iceberg values */

static bool int32_storage(floe_ice_type_id t) { return t == FLOE_ICE_INT || t == FLOE_ICE_DATE; }
static bool int64_storage(floe_ice_type_id t) {
    return t == FLOE_ICE_LONG || t == FLOE_ICE_TIME || t == FLOE_ICE_TIMESTAMP || t == FLOE_ICE_TIMESTAMPTZ ||
           t == FLOE_ICE_TIMESTAMP_NS || t == FLOE_ICE_TIMESTAMPTZ_NS;
}

/* `v` as a value of type `it`: re-labelled when the storage is the same (a
 * day stored as a plain int), promoted when the column was (int -> long).
 * Free *out with floe_ice_value_free. */
static floe_status normalize_value(const floe_ice_type *it, const floe_ice_value *v, floe_ice_value *out) {
    if (v->is_null || v->type == it->id) {
        *out = *v;
        out->owns_bytes = false;
        if (v->is_null) *out = floe_ice_null(it->id);
        return NULL;
    }
    if ((int32_storage(v->type) && int32_storage(it->id)) || (int64_storage(v->type) && int64_storage(it->id))) {
        *out = *v;
        out->owns_bytes = false;
        out->type = it->id;
        return NULL;
    }
    return floe_ice_value_promote(v, it, out);
}

/* Append a (normalized) Iceberg value to a builder of the columnar type of
 * `it` (floe_ice_type_to_columnar). */
static floe_status append_ice_value(floe_builder *b, const floe_ice_type *it, const floe_ice_value *v0) {
    if (v0->is_null || !floe_ice_type_is_primitive(it) || it->id == FLOE_ICE_UNKNOWN)
        return floe_builder_append_null(b);
    floe_ice_value v;
    FLOE_TRY(normalize_value(it, v0, &v));
    floe_status st = NULL;
    switch (it->id) {
    case FLOE_ICE_BOOLEAN: st = floe_builder_append_bool(b, v.v.b); break;
    case FLOE_ICE_INT: case FLOE_ICE_DATE: st = floe_builder_append_int32(b, v.v.i32); break;
    case FLOE_ICE_LONG: case FLOE_ICE_TIME: case FLOE_ICE_TIMESTAMP: case FLOE_ICE_TIMESTAMPTZ:
    case FLOE_ICE_TIMESTAMP_NS: case FLOE_ICE_TIMESTAMPTZ_NS:
        st = floe_builder_append_int64(b, v.v.i64);
        break;
    case FLOE_ICE_FLOAT: st = floe_builder_append_float(b, v.v.f32); break;
    case FLOE_ICE_DOUBLE: st = floe_builder_append_double(b, v.v.f64); break;
    case FLOE_ICE_DECIMAL: {
        floe_decimal128 d;
        memcpy(&d, &v.v.dec, sizeof d);
        st = floe_builder_append_decimal(b, d);
        break;
    }
    case FLOE_ICE_UUID: st = floe_builder_append_fixed(b, v.v.uuid); break;
    case FLOE_ICE_FIXED:
        if ((int64_t)v.v.bytes.len != it->length)
            st = floe_error(FLOE_ERR_CORRUPT, "a fixed[%d] value has %zu bytes", it->length, v.v.bytes.len);
        else
            st = floe_builder_append_fixed(b, v.v.bytes.data);
        break;
    case FLOE_ICE_STRING: case FLOE_ICE_BINARY:
        st = floe_builder_append_binary(b, v.v.bytes.data, (int64_t)v.v.bytes.len);
        break;
    default: st = floe_builder_append_null(b); break;
    }
    floe_ice_value_free(&v);
    return st;
}

/* ------------------------------------------------- the partition struct */

/* The union of every spec's partition fields (see metadata_tables.h). */
typedef struct part_union {
    int32_t n;
    int32_t *ids;          /* partition field ids, column order */
    floe_ice_type *ice;    /* struct of the result types */
    floe_type *type;       /* its columnar form; NULL when n == 0 */
} part_union;

static void part_union_free(part_union *u) {
    floe_free(u->ids);
    floe_ice_type_free(u->ice);
    floe_type_release(u->type);
    memset(u, 0, sizeof *u);
}

static bool union_has_id(const part_union *u, int32_t id) {
    for (int32_t i = 0; i < u->n; i++)
        if (u->ids[i] == id) return true;
    return false;
}

static bool union_has_name(const part_union *u, const char *name) {
    for (int32_t i = 0; i < u->n; i++)
        if (strcmp(u->ice->fields[i].name, name) == 0) return true;
    return false;
}

/* Add one spec field to the union unless its type cannot be known. */
static floe_status union_add(part_union *u, const floe_ice_schema *schema, const floe_ice_partition_field *pf) {
    if (union_has_id(u, pf->field_id) || pf->transform.kind == FLOE_ICE_TRANSFORM_UNKNOWN) return NULL;
    const floe_ice_field *src = schema ? floe_ice_schema_find_field(schema, pf->source_id) : NULL;
    if (!src || !floe_ice_type_is_primitive(src->type)) return NULL;
    floe_ice_type *rt = NULL;
    floe_status st = floe_ice_transform_result_type(&pf->transform, src->type, &rt);
    if (st) {
        floe_status_free(st); /* the transform no longer applies: leave it out */
        return NULL;
    }
    char name[256];
    snprintf(name, sizeof name, "%s", pf->name);
    if (union_has_name(u, name)) snprintf(name, sizeof name, "%s_%d", pf->name, pf->field_id);
    int32_t *ids = floe_realloc(u->ids, (size_t)(u->n + 1) * sizeof *ids);
    if (!ids) {
        floe_ice_type_free(rt);
        return oom();
    }
    u->ids = ids;
    FLOE_TRY(floe_ice_struct_add_field(u->ice, pf->field_id, name, false, rt, NULL));
    u->ids[u->n++] = pf->field_id;
    return NULL;
}

static floe_status part_union_build(const floe_ice_table_metadata *md, part_union *u) {
    memset(u, 0, sizeof *u);
    FLOE_TRY(floe_ice_type_struct(&u->ice));
    const floe_ice_schema *schema = floe_ice_tm_current_schema(md);
    for (int32_t s = 0; s < md->n_specs; s++)
        for (int32_t f = 0; f < md->specs[s]->n_fields; f++)
            FLOE_TRY(union_add(u, schema, &md->specs[s]->fields[f]));
    if (u->n) FLOE_TRY(floe_ice_type_to_columnar(u->ice, &u->type));
    return NULL;
}

/* The file's partition tuple in union order, normalized to the union's
 * types (absent fields null).  `vals` has u->n slots; free each. */
static floe_status union_tuple(const part_union *u, const floe_ice_data_file *f, floe_ice_value *vals) {
    for (int32_t k = 0; k < u->n; k++) vals[k] = floe_ice_null(u->ice->fields[k].type->id);
    for (int32_t k = 0; k < u->n; k++) {
        for (int32_t j = 0; j < f->n_partition; j++) {
            if (f->partition_ids[j] != u->ids[k]) continue;
            FLOE_TRY_CTX(normalize_value(u->ice->fields[k].type, &f->partition[j], &vals[k]),
                         "partition field '%s' of '%s'", u->ice->fields[k].name, f->file_path);
            break;
        }
    }
    return NULL;
}

static floe_status append_tuple(floe_builder *sb, const part_union *u, const floe_ice_value *vals) {
    for (int32_t k = 0; k < u->n; k++)
        FLOE_TRY(append_ice_value(floe_builder_child(sb, k), u->ice->fields[k].type, &vals[k]));
    return floe_builder_append_valid(sb);
}

static floe_status append_partition(floe_builder *sb, const part_union *u, const floe_ice_data_file *f) {
    floe_ice_value stack[16];
    floe_ice_value *vals = u->n <= 16 ? stack : floe_calloc((size_t)u->n, sizeof *vals);
    if (!vals) return oom();
    floe_status st = union_tuple(u, f, vals);
    if (!st) st = append_tuple(sb, u, vals);
    for (int32_t k = 0; k < u->n; k++) floe_ice_value_free(&vals[k]);
    if (vals != stack) floe_free(vals);
    return st;
}

/* ----------------------------------------------------------- snapshots */

static floe_status json_string(floe_buf *b, const char *s) {
    FLOE_TRY(floe_buf_append_byte(b, '"'));
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            FLOE_TRY(floe_buf_append_byte(b, '\\'));
            FLOE_TRY(floe_buf_append_byte(b, *p));
        } else if (*p < 0x20) {
            FLOE_TRY(floe_buf_printf(b, "\\u%04x", *p));
        } else {
            FLOE_TRY(floe_buf_append_byte(b, *p));
        }
    }
    return floe_buf_append_byte(b, '"');
}

static floe_status summary_json(const floe_ice_snapshot *s, floe_buf *b) {
    floe_buf_clear(b);
    FLOE_TRY(floe_buf_append_byte(b, '{'));
    for (int32_t i = 0; i < s->n_summary; i++) {
        if (i) FLOE_TRY(floe_buf_append_byte(b, ','));
        FLOE_TRY(json_string(b, s->summary[i].key));
        FLOE_TRY(floe_buf_append_byte(b, ':'));
        FLOE_TRY(json_string(b, s->summary[i].value ? s->summary[i].value : ""));
    }
    return floe_buf_append_byte(b, '}');
}

static floe_status rows_snapshots(const floe_ice_table_metadata *md, mt *m) {
    FLOE_TRY(mt_col(m, "committed_at", ty(FLOE_TYPE_TIMESTAMP_US_TZ), false));
    FLOE_TRY(mt_col(m, "snapshot_id", ty(FLOE_TYPE_INT64), false));
    FLOE_TRY(mt_col(m, "parent_id", ty(FLOE_TYPE_INT64), true));
    FLOE_TRY(mt_col(m, "operation", ty(FLOE_TYPE_STRING), true));
    FLOE_TRY(mt_col(m, "manifest_list", ty(FLOE_TYPE_STRING), true));
    FLOE_TRY(mt_col(m, "summary", ty(FLOE_TYPE_STRING), true));
    FLOE_TRY(mt_start(m, md->n_snapshots));
    floe_buf js = FLOE_BUF_INIT;
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < md->n_snapshots; i++) {
        const floe_ice_snapshot *s = &md->snapshots[i];
        st = floe_builder_append_int64(m->b[0], s->timestamp_ms * 1000);
        if (!st) st = floe_builder_append_int64(m->b[1], s->snapshot_id);
        if (!st) st = put_i64(m->b[2], s->parent_snapshot_id != FLOE_ICE_NO_SNAPSHOT, s->parent_snapshot_id);
        if (!st) st = put_str(m->b[3], s->operation);
        if (!st) st = put_str(m->b[4], s->manifest_list);
        if (!st && s->has_summary) st = summary_json(s, &js);
        if (!st) st = put_str(m->b[5], s->has_summary ? floe_buf_cstr(&js) : NULL);
    }
    floe_buf_free(&js);
    return st;
}

/* ------------------------------------------------------------- history */

static bool is_current_ancestor(const floe_ice_table_metadata *md, int64_t id) {
    int64_t cur = md->current_snapshot_id;
    /* Bounded walk: a parent cycle in corrupt metadata cannot spin. */
    for (int32_t steps = 0; cur != FLOE_ICE_NO_SNAPSHOT && steps <= md->n_snapshots; steps++) {
        if (cur == id) return true;
        const floe_ice_snapshot *s = floe_ice_tm_snapshot(md, cur);
        if (!s) break;
        cur = s->parent_snapshot_id;
    }
    return false;
}

static floe_status rows_history(const floe_ice_table_metadata *md, mt *m) {
    FLOE_TRY(mt_col(m, "made_current_at", ty(FLOE_TYPE_TIMESTAMP_US_TZ), false));
    FLOE_TRY(mt_col(m, "snapshot_id", ty(FLOE_TYPE_INT64), false));
    FLOE_TRY(mt_col(m, "parent_id", ty(FLOE_TYPE_INT64), true));
    FLOE_TRY(mt_col(m, "is_current_ancestor", ty(FLOE_TYPE_BOOL), false));
    FLOE_TRY(mt_start(m, md->n_snapshot_log));
    for (int32_t i = 0; i < md->n_snapshot_log; i++) {
        const floe_ice_log_entry *e = &md->snapshot_log[i];
        const floe_ice_snapshot *s = floe_ice_tm_snapshot(md, e->snapshot_id);
        bool has_parent = s && s->parent_snapshot_id != FLOE_ICE_NO_SNAPSHOT;
        FLOE_TRY(floe_builder_append_int64(m->b[0], e->timestamp_ms * 1000));
        FLOE_TRY(floe_builder_append_int64(m->b[1], e->snapshot_id));
        FLOE_TRY(put_i64(m->b[2], has_parent, has_parent ? s->parent_snapshot_id : 0));
        FLOE_TRY(floe_builder_append_bool(m->b[3], is_current_ancestor(md, e->snapshot_id)));
    }
    return NULL;
}

/* ---------------------------------------------------------------- refs */

static floe_status rows_refs(const floe_ice_table_metadata *md, mt *m) {
    FLOE_TRY(mt_col(m, "name", ty(FLOE_TYPE_STRING), false));
    FLOE_TRY(mt_col(m, "type", ty(FLOE_TYPE_STRING), false));
    FLOE_TRY(mt_col(m, "snapshot_id", ty(FLOE_TYPE_INT64), false));
    FLOE_TRY(mt_col(m, "max_reference_age_in_ms", ty(FLOE_TYPE_INT64), true));
    FLOE_TRY(mt_col(m, "min_snapshots_to_keep", ty(FLOE_TYPE_INT32), true));
    FLOE_TRY(mt_col(m, "max_snapshot_age_in_ms", ty(FLOE_TYPE_INT64), true));
    FLOE_TRY(mt_start(m, md->n_refs));
    for (int32_t i = 0; i < md->n_refs; i++) {
        const floe_ice_snapshot_ref *r = &md->refs[i];
        FLOE_TRY(floe_builder_append_string(m->b[0], r->name));
        FLOE_TRY(floe_builder_append_string(m->b[1], r->is_tag ? "TAG" : "BRANCH"));
        FLOE_TRY(floe_builder_append_int64(m->b[2], r->snapshot_id));
        FLOE_TRY(put_i64(m->b[3], r->max_ref_age_ms >= 0, r->max_ref_age_ms));
        FLOE_TRY(put_i32(m->b[4], r->min_snapshots_to_keep >= 0, r->min_snapshots_to_keep));
        FLOE_TRY(put_i64(m->b[5], r->max_snapshot_age_ms >= 0, r->max_snapshot_age_ms));
    }
    return NULL;
}

/* ---------------------------------------------------------- properties */

static floe_status rows_properties(const floe_ice_table_metadata *md, mt *m) {
    FLOE_TRY(mt_col(m, "key", ty(FLOE_TYPE_STRING), false));
    FLOE_TRY(mt_col(m, "value", ty(FLOE_TYPE_STRING), true));
    FLOE_TRY(mt_start(m, md->n_properties));
    for (int32_t i = 0; i < md->n_properties; i++) {
        FLOE_TRY(floe_builder_append_string(m->b[0], md->properties[i].key));
        FLOE_TRY(put_str(m->b[1], md->properties[i].value));
    }
    return NULL;
}

/* ------------------------------------------------- metadata_log_entries */

/* One row: the snapshot current at `ts_ms` (Spark's and Trino's rule). */
static floe_status metadata_log_row(mt *m, const floe_ice_table_metadata *md, int64_t ts_ms, const char *file) {
    const floe_ice_snapshot *snap = NULL;
    floe_status st = floe_ice_tm_snapshot_as_of(md, ts_ms, &snap);
    if (st) {
        floe_status_free(st); /* no snapshot yet at that time */
        snap = NULL;
    }
    const floe_ice_schema *sc = snap ? floe_ice_tm_snapshot_schema(md, snap) : NULL;
    FLOE_TRY(floe_builder_append_int64(m->b[0], ts_ms * 1000));
    FLOE_TRY(floe_builder_append_string(m->b[1], file));
    FLOE_TRY(put_i64(m->b[2], snap != NULL, snap ? snap->snapshot_id : 0));
    FLOE_TRY(put_i32(m->b[3], sc != NULL, sc ? sc->schema_id : 0));
    return put_i64(m->b[4], snap != NULL, snap ? snap->sequence_number : 0);
}

static floe_status rows_metadata_log(const floe_ice_table *t, mt *m) {
    const floe_ice_table_metadata *md = t->md;
    FLOE_TRY(mt_col(m, "timestamp", ty(FLOE_TYPE_TIMESTAMP_US_TZ), false));
    FLOE_TRY(mt_col(m, "file", ty(FLOE_TYPE_STRING), false));
    FLOE_TRY(mt_col(m, "latest_snapshot_id", ty(FLOE_TYPE_INT64), true));
    FLOE_TRY(mt_col(m, "latest_schema_id", ty(FLOE_TYPE_INT32), true));
    FLOE_TRY(mt_col(m, "latest_sequence_number", ty(FLOE_TYPE_INT64), true));
    FLOE_TRY(mt_start(m, md->n_metadata_log + 1));
    for (int32_t i = 0; i < md->n_metadata_log; i++)
        FLOE_TRY(metadata_log_row(m, md, md->metadata_log[i].timestamp_ms, md->metadata_log[i].file));
    /* The file in use now is the last entry. */
    if (t->metadata_location) FLOE_TRY(metadata_log_row(m, md, md->last_updated_ms, t->metadata_location));
    return NULL;
}

/* ----------------------------------------------------------- manifests */

/* The partition types of the table's specs (by position in md->specs),
 * lenient: NULL where a spec cannot be typed. */
static floe_status spec_types(const floe_ice_table_metadata *md, floe_ice_type ***out) {
    floe_ice_type **pts = floe_calloc(md->n_specs ? (size_t)md->n_specs : 1, sizeof *pts);
    if (!pts) return oom();
    const floe_ice_schema *schema = floe_ice_tm_current_schema(md);
    for (int32_t i = 0; schema && i < md->n_specs; i++) {
        floe_status st = floe_ice_partition_spec_partition_type(md->specs[i], schema, true, &pts[i]);
        if (st) floe_status_free(st);
    }
    *out = pts;
    return NULL;
}

static void spec_types_free(const floe_ice_table_metadata *md, floe_ice_type **pts) {
    for (int32_t i = 0; pts && i < md->n_specs; i++) floe_ice_type_free(pts[i]);
    floe_free(pts);
}

/* One bound of a partition summary in the transform's human form, or
 * NULL when the field cannot be typed. */
static floe_status summary_bound(floe_builder *b, const floe_ice_partition_field *pf, const floe_ice_type *ft,
                                 const uint8_t *bytes, uint32_t len) {
    if (!bytes || !pf || !ft || !floe_ice_type_is_primitive(ft) || ft->id == FLOE_ICE_UNKNOWN)
        return floe_builder_append_null(b);
    floe_ice_value v;
    FLOE_TRY(floe_ice_value_from_bytes(ft, bytes, len, &v));
    char *text = NULL;
    floe_status st = floe_ice_transform_human_string(&pf->transform, &v, &text);
    floe_ice_value_free(&v);
    if (!st) st = floe_builder_append_string(b, text);
    floe_free(text);
    return st;
}

static floe_status append_summaries(floe_builder *lb, const floe_ice_manifest_file *mf,
                                    const floe_ice_partition_spec *spec, const floe_ice_type *pt) {
    if (mf->n_partitions < 0) return floe_builder_append_null(lb);
    floe_builder *sb = floe_builder_child(lb, 0);
    for (int32_t k = 0; k < mf->n_partitions; k++) {
        const floe_ice_field_summary *fs = &mf->partitions[k];
        const floe_ice_partition_field *pf = spec && k < spec->n_fields ? &spec->fields[k] : NULL;
        const floe_ice_type *ft = pt && k < pt->n_fields ? pt->fields[k].type : NULL;
        FLOE_TRY(floe_builder_append_bool(floe_builder_child(sb, 0), fs->contains_null));
        FLOE_TRY(fs->contains_nan < 0 ? floe_builder_append_null(floe_builder_child(sb, 1))
                                      : floe_builder_append_bool(floe_builder_child(sb, 1), fs->contains_nan));
        FLOE_TRY_CTX(summary_bound(floe_builder_child(sb, 2), pf, ft, fs->lower_bound, fs->lower_len),
                     "manifest '%s': partition summary %d lower bound", mf->manifest_path, k);
        FLOE_TRY_CTX(summary_bound(floe_builder_child(sb, 3), pf, ft, fs->upper_bound, fs->upper_len),
                     "manifest '%s': partition summary %d upper bound", mf->manifest_path, k);
        FLOE_TRY(floe_builder_append_valid(sb));
    }
    return floe_builder_append_list(lb);
}

static floe_status summaries_type(floe_type **out) {
    floe_field f[4] = {{0}};
    floe_type *st_type = NULL;
    floe_status st = floe_field_init(&f[0], "contains_null", ty(FLOE_TYPE_BOOL), false, -1);
    if (!st) st = floe_field_init(&f[1], "contains_nan", ty(FLOE_TYPE_BOOL), true, -1);
    if (!st) st = floe_field_init(&f[2], "lower_bound", ty(FLOE_TYPE_STRING), true, -1);
    if (!st) st = floe_field_init(&f[3], "upper_bound", ty(FLOE_TYPE_STRING), true, -1);
    if (!st) st = floe_type_struct(f, 4, &st_type);
    if (!st) st = list_type(st_type, out);
    for (int i = 0; i < 4; i++) floe_field_clear(&f[i]);
    floe_type_release(st_type);
    return st;
}

/* `counted`: the record comes from a manifest list (a v1 snapshot naming
 * its manifests directly has no counts: they are NULL, not 0). */
static floe_status manifest_row(mt *m, const floe_ice_table_metadata *md, floe_ice_type **pts,
                                const floe_ice_manifest_file *mf, bool counted) {
    const floe_ice_partition_spec *spec = NULL;
    const floe_ice_type *pt = NULL;
    for (int32_t s = 0; s < md->n_specs; s++)
        if (md->specs[s]->spec_id == mf->partition_spec_id) {
            spec = md->specs[s];
            pt = pts[s];
        }
    FLOE_TRY(floe_builder_append_int32(m->b[0], (int32_t)mf->content));
    FLOE_TRY(floe_builder_append_string(m->b[1], mf->manifest_path));
    FLOE_TRY(put_i64(m->b[2], mf->manifest_length >= 0, mf->manifest_length));
    FLOE_TRY(floe_builder_append_int32(m->b[3], mf->partition_spec_id));
    FLOE_TRY(put_i64(m->b[4], mf->added_snapshot_id >= 0, mf->added_snapshot_id));
    FLOE_TRY(put_i32(m->b[5], counted && mf->added_files_count >= 0, mf->added_files_count));
    FLOE_TRY(put_i64(m->b[6], counted && mf->added_rows_count >= 0, mf->added_rows_count));
    FLOE_TRY(put_i32(m->b[7], counted && mf->existing_files_count >= 0, mf->existing_files_count));
    FLOE_TRY(put_i64(m->b[8], counted && mf->existing_rows_count >= 0, mf->existing_rows_count));
    FLOE_TRY(put_i32(m->b[9], counted && mf->deleted_files_count >= 0, mf->deleted_files_count));
    FLOE_TRY(put_i64(m->b[10], counted && mf->deleted_rows_count >= 0, mf->deleted_rows_count));
    return append_summaries(m->b[11], mf, spec, pt);
}

static floe_status manifests_columns(mt *m) {
    floe_type *sum_t = NULL;
    FLOE_TRY(summaries_type(&sum_t));
    floe_status st = mt_col(m, "content", ty(FLOE_TYPE_INT32), false);
    if (!st) st = mt_col(m, "path", ty(FLOE_TYPE_STRING), false);
    if (!st) st = mt_col(m, "length", ty(FLOE_TYPE_INT64), true);
    if (!st) st = mt_col(m, "partition_spec_id", ty(FLOE_TYPE_INT32), false);
    if (!st) st = mt_col(m, "added_snapshot_id", ty(FLOE_TYPE_INT64), true);
    if (!st) st = mt_col(m, "added_data_files_count", ty(FLOE_TYPE_INT32), true);
    if (!st) st = mt_col(m, "added_rows_count", ty(FLOE_TYPE_INT64), true);
    if (!st) st = mt_col(m, "existing_data_files_count", ty(FLOE_TYPE_INT32), true);
    if (!st) st = mt_col(m, "existing_rows_count", ty(FLOE_TYPE_INT64), true);
    if (!st) st = mt_col(m, "deleted_data_files_count", ty(FLOE_TYPE_INT32), true);
    if (!st) st = mt_col(m, "deleted_rows_count", ty(FLOE_TYPE_INT64), true);
    if (!st) st = mt_col(m, "partition_summaries", sum_t, true);
    floe_type_release(sum_t);
    return st;
}

/* $manifests: the current snapshot's; $all_manifests: every snapshot's,
 * with the snapshot whose list holds it (reference_snapshot_id, Spark's
 * column; a manifest appears once per snapshot that lists it). */
static floe_status rows_manifests_of(const floe_ice_table *t, mt *m, bool all) {
    const floe_ice_table_metadata *md = t->md;
    FLOE_TRY(manifests_columns(m));
    if (all) FLOE_TRY(mt_col(m, "reference_snapshot_id", ty(FLOE_TYPE_INT64), false));
    floe_ice_type **pts = NULL;
    FLOE_TRY(spec_types(md, &pts));
    floe_status st = mt_start(m, 0);
    const floe_ice_snapshot *cur = floe_ice_tm_current_snapshot(md);
    for (int32_t si = 0; !st && si < md->n_snapshots; si++) {
        const floe_ice_snapshot *snap = &md->snapshots[si];
        if (!all && snap != cur) continue;
        floe_ice_manifest_list *list = NULL;
        floe_ice_manifest_file *v1 = NULL;
        const floe_ice_manifest_file *files = NULL;
        size_t n = 0;
        st = floe_ice_snapshot_manifests(t, snap, &list, &v1, &files, &n);
        for (size_t i = 0; !st && i < n; i++) {
            st = manifest_row(m, md, pts, &files[i], list != NULL);
            if (!st && all) st = floe_builder_append_int64(m->b[m->n - 1], snap->snapshot_id);
        }
        floe_ice_manifest_list_free(list);
        floe_free(v1);
    }
    spec_types_free(md, pts);
    return st;
}

/* --------------------------------------------------------------- files */

static floe_status append_count_map(floe_builder *b, const floe_ice_count_map *cm) {
    if (cm->n < 0) return floe_builder_append_null(b);
    for (int32_t i = 0; i < cm->n; i++) {
        FLOE_TRY(floe_builder_append_int32(floe_builder_map_keys(b), cm->keys[i]));
        FLOE_TRY(floe_builder_append_int64(floe_builder_map_values(b), cm->values[i]));
    }
    return floe_builder_append_map(b);
}

/* Bounds in human form for the columns the current schema still has. */
static floe_status append_bound_map(floe_builder *b, const floe_ice_bound_map *bm, const floe_ice_schema *schema,
                                    const char *file, const char *which) {
    if (bm->n < 0) return floe_builder_append_null(b);
    for (int32_t i = 0; i < bm->n; i++) {
        const floe_ice_field *col = schema ? floe_ice_schema_find_field(schema, bm->keys[i]) : NULL;
        if (!col || !floe_ice_type_is_primitive(col->type)) continue;
        floe_status unsupported = floe_ice_type_check_supported(col->type, "bound");
        if (unsupported) { /* variant, geometry ...: no readable form */
            floe_status_free(unsupported);
            continue;
        }
        FLOE_TRY(floe_builder_append_int32(floe_builder_map_keys(b), bm->keys[i]));
        if (!bm->values[i]) {
            FLOE_TRY(floe_builder_append_null(floe_builder_map_values(b)));
            continue;
        }
        floe_ice_value v;
        FLOE_TRY_CTX(floe_ice_value_from_bytes(col->type, bm->values[i], bm->lens[i], &v),
                     "'%s': %s bound of column %d", file, which, bm->keys[i]);
        char *text = NULL;
        floe_status st = floe_ice_value_to_string(&v, &text);
        floe_ice_value_free(&v);
        if (!st) st = floe_builder_append_string(floe_builder_map_values(b), text);
        floe_free(text);
        FLOE_TRY(st);
    }
    return floe_builder_append_map(b);
}

static floe_status append_i64_list(floe_builder *b, const int64_t *v, int32_t n) {
    if (n < 0) return floe_builder_append_null(b);
    for (int32_t i = 0; i < n; i++) FLOE_TRY(floe_builder_append_int64(floe_builder_child(b, 0), v[i]));
    return floe_builder_append_list(b);
}

static floe_status append_i32_list(floe_builder *b, const int32_t *v, int32_t n) {
    if (n < 0) return floe_builder_append_null(b);
    for (int32_t i = 0; i < n; i++) FLOE_TRY(floe_builder_append_int32(floe_builder_child(b, 0), v[i]));
    return floe_builder_append_list(b);
}

static floe_status file_row(mt *m, const part_union *u, const floe_ice_schema *schema, const floe_ice_data_file *f) {
    int c = 0;
    FLOE_TRY(floe_builder_append_int32(m->b[c++], (int32_t)f->content));
    FLOE_TRY(floe_builder_append_string(m->b[c++], f->file_path));
    char *fmt = f->file_format ? floe_str_upper_dup(floe_str_c(f->file_format)) : NULL;
    if (f->file_format && !fmt) return oom();
    floe_status st = put_str(m->b[c++], fmt);
    floe_free(fmt);
    FLOE_TRY(st);
    FLOE_TRY(floe_builder_append_int32(m->b[c++], f->spec_id));
    if (u->n) FLOE_TRY(append_partition(m->b[c++], u, f));
    FLOE_TRY(floe_builder_append_int64(m->b[c++], f->record_count));
    FLOE_TRY(floe_builder_append_int64(m->b[c++], f->file_size_in_bytes));
    FLOE_TRY(append_count_map(m->b[c++], &f->column_sizes));
    FLOE_TRY(append_count_map(m->b[c++], &f->value_counts));
    FLOE_TRY(append_count_map(m->b[c++], &f->null_value_counts));
    FLOE_TRY(append_count_map(m->b[c++], &f->nan_value_counts));
    FLOE_TRY(append_bound_map(m->b[c++], &f->lower_bounds, schema, f->file_path, "lower"));
    FLOE_TRY(append_bound_map(m->b[c++], &f->upper_bounds, schema, f->file_path, "upper"));
    FLOE_TRY(f->key_metadata ? floe_builder_append_binary(m->b[c], f->key_metadata, f->key_metadata_len)
                             : floe_builder_append_null(m->b[c]));
    c++;
    FLOE_TRY(append_i64_list(m->b[c++], f->split_offsets, f->n_split_offsets));
    FLOE_TRY(append_i32_list(m->b[c++], f->equality_ids, f->n_equality_ids));
    FLOE_TRY(put_i32(m->b[c++], f->has_sort_order_id, f->sort_order_id));
    FLOE_TRY(put_i64(m->b[c++], f->has_first_row_id, f->first_row_id));
    FLOE_TRY(put_str(m->b[c++], f->referenced_data_file));
    FLOE_TRY(put_i64(m->b[c++], f->has_content_offset, f->content_offset));
    return put_i64(m->b[c++], f->has_content_size_in_bytes, f->content_size_in_bytes);
}

static floe_status files_columns(mt *m, const part_union *u) {
    floe_type *cmap = NULL, *bmap = NULL, *l64 = NULL, *l32 = NULL;
    floe_status st = map_type(FLOE_TYPE_INT64, &cmap);
    if (!st) st = map_type(FLOE_TYPE_STRING, &bmap);
    if (!st) st = list_type(ty(FLOE_TYPE_INT64), &l64);
    if (!st) st = list_type(ty(FLOE_TYPE_INT32), &l32);
    if (!st) st = mt_col(m, "content", ty(FLOE_TYPE_INT32), false);
    if (!st) st = mt_col(m, "file_path", ty(FLOE_TYPE_STRING), false);
    if (!st) st = mt_col(m, "file_format", ty(FLOE_TYPE_STRING), true);
    if (!st) st = mt_col(m, "spec_id", ty(FLOE_TYPE_INT32), false);
    if (!st && u->n) st = mt_col(m, "partition", u->type, true);
    if (!st) st = mt_col(m, "record_count", ty(FLOE_TYPE_INT64), false);
    if (!st) st = mt_col(m, "file_size_in_bytes", ty(FLOE_TYPE_INT64), false);
    if (!st) st = mt_col(m, "column_sizes", cmap, true);
    if (!st) st = mt_col(m, "value_counts", cmap, true);
    if (!st) st = mt_col(m, "null_value_counts", cmap, true);
    if (!st) st = mt_col(m, "nan_value_counts", cmap, true);
    if (!st) st = mt_col(m, "lower_bounds", bmap, true);
    if (!st) st = mt_col(m, "upper_bounds", bmap, true);
    if (!st) st = mt_col(m, "key_metadata", ty(FLOE_TYPE_BINARY), true);
    if (!st) st = mt_col(m, "split_offsets", l64, true);
    if (!st) st = mt_col(m, "equality_ids", l32, true);
    if (!st) st = mt_col(m, "sort_order_id", ty(FLOE_TYPE_INT32), true);
    /* v3 (Iceberg 1.8's files table): lineage and deletion vectors */
    if (!st) st = mt_col(m, "first_row_id", ty(FLOE_TYPE_INT64), true);
    if (!st) st = mt_col(m, "referenced_data_file", ty(FLOE_TYPE_STRING), true);
    if (!st) st = mt_col(m, "content_offset", ty(FLOE_TYPE_INT64), true);
    if (!st) st = mt_col(m, "content_size_in_bytes", ty(FLOE_TYPE_INT64), true);
    floe_type_release(cmap);
    floe_type_release(bmap);
    floe_type_release(l64);
    floe_type_release(l32);
    return st;
}

static floe_status rows_files(const floe_ice_table *t, mt *m) {
    part_union u;
    floe_status st = part_union_build(t->md, &u);
    if (!st) st = files_columns(m, &u);
    const floe_ice_snapshot *snap = floe_ice_tm_current_snapshot(t->md);
    floe_ice_live_files *lf = NULL;
    if (!st && snap) st = floe_ice_table_live_files(t, snap, NULL, &lf);
    if (!st) st = mt_start(m, lf ? (int64_t)lf->n : 0);
    const floe_ice_schema *schema = floe_ice_tm_current_schema(t->md);
    for (size_t i = 0; !st && lf && i < lf->n; i++) st = file_row(m, &u, schema, &lf->files[i].file);
    floe_ice_live_files_free(lf);
    part_union_free(&u);
    return st;
}

/* Which files a files table lists: all, data only, deletes only. */
typedef enum { FILES_ANY = 0, FILES_DATA, FILES_DELETES } files_kind;

static bool file_wanted(files_kind k, const floe_ice_data_file *f) {
    return k == FILES_ANY || (k == FILES_DATA) == (f->content == FLOE_ICE_CONTENT_DATA);
}

/* $data_files / $delete_files: $files of one content. */
static floe_status rows_files_kind(const floe_ice_table *t, mt *m, files_kind k) {
    part_union u;
    floe_status st = part_union_build(t->md, &u);
    if (!st) st = files_columns(m, &u);
    const floe_ice_snapshot *snap = floe_ice_tm_current_snapshot(t->md);
    floe_ice_live_files *lf = NULL;
    if (!st && snap) st = floe_ice_table_live_files(t, snap, NULL, &lf);
    if (!st) st = mt_start(m, lf ? (int64_t)lf->n : 0);
    const floe_ice_schema *schema = floe_ice_tm_current_schema(t->md);
    for (size_t i = 0; !st && lf && i < lf->n; i++)
        if (file_wanted(k, &lf->files[i].file)) st = file_row(m, &u, schema, &lf->files[i].file);
    floe_ice_live_files_free(lf);
    part_union_free(&u);
    return st;
}

/* $all_files / $all_data_files / $all_delete_files: the live files of
 * every snapshot the table keeps, each file once (by path; Java's
 * tables may list a file once per manifest that holds it). */
static floe_status rows_all_files(const floe_ice_table *t, mt *m, files_kind k) {
    const floe_ice_table_metadata *md = t->md;
    part_union u;
    floe_status st = part_union_build(md, &u);
    if (!st) st = files_columns(m, &u);
    floe_ice_live_files **lfs = floe_calloc((size_t)md->n_snapshots + 1, sizeof *lfs);
    floe_strmap seen = FLOE_STRMAP_INIT;
    if (!st && !lfs) st = oom();
    if (!st) st = mt_start(m, 0);
    const floe_ice_schema *schema = floe_ice_tm_current_schema(md);
    for (int32_t si = 0; !st && si < md->n_snapshots; si++) {
        st = floe_ice_table_live_files(t, &md->snapshots[si], NULL, &lfs[si]);
        for (size_t i = 0; !st && i < lfs[si]->n; i++) {
            const floe_ice_data_file *f = &lfs[si]->files[i].file;
            if (!file_wanted(k, f) || floe_strmap_get_c(&seen, f->file_path)) continue;
            st = floe_strmap_put_c(&seen, f->file_path, (void *)f, NULL);
            if (!st) st = file_row(m, &u, schema, f);
        }
    }
    for (int32_t si = 0; lfs && si < md->n_snapshots; si++) floe_ice_live_files_free(lfs[si]);
    floe_free(lfs);
    floe_strmap_free(&seen);
    part_union_free(&u);
    return st;
}

/* ---------------------------------------------------- position_deletes */

/* Spark's position_deletes table (Iceberg's PositionDeletesTable): one row
 * per deleted position of the current snapshot's position delete files
 * and deletion vectors — file_path, pos, row (NULL: the row a delete file
 * may carry is not read), partition (when the table has been
 * partitioned), spec_id, delete_file_path, and for a DV its
 * content_offset / content_size_in_bytes (Iceberg 1.8).  Rows of a delete
 * file whose file_path or pos is NULL delete nothing and are left out. */
typedef struct posdel_ctx {
    mt *m;
    const part_union *u;
    const floe_ice_data_file *f;
} posdel_ctx;

static floe_status posdel_row(const posdel_ctx *c, const char *path, size_t len, int64_t pos) {
    mt *m = c->m;
    int k = 0;
    FLOE_TRY(floe_builder_append_binary(m->b[k++], path, (int64_t)len));
    FLOE_TRY(floe_builder_append_int64(m->b[k++], pos));
    FLOE_TRY(floe_builder_append_null(m->b[k++]));
    if (c->u->n) FLOE_TRY(append_partition(m->b[k++], c->u, c->f));
    FLOE_TRY(floe_builder_append_int32(m->b[k++], c->f->spec_id));
    FLOE_TRY(floe_builder_append_string(m->b[k++], c->f->file_path));
    FLOE_TRY(put_i64(m->b[k++], c->f->has_content_offset, c->f->content_offset));
    return put_i64(m->b[k++], c->f->has_content_size_in_bytes, c->f->content_size_in_bytes);
}

static floe_status posdel_batch(void *vc, const floe_batch *b) {
    const posdel_ctx *c = vc;
    const floe_array *fp = b->columns[0], *ps = b->columns[1];
    for (int64_t i = 0; i < b->num_rows; i++) {
        if (floe_array_is_null(fp, i) || floe_array_is_null(ps, i)) continue;
        floe_strview s = floe_array_get_str(fp, i);
        int64_t pos = ps->type->id == FLOE_TYPE_INT64 ? floe_array_get_int64(ps, i) : floe_array_get_int32(ps, i);
        FLOE_TRY(posdel_row(c, s.data, (size_t)s.len, pos));
    }
    return NULL;
}

static floe_status posdel_file_rows(const floe_ice_table *t, const posdel_ctx *c, const floe_ice_live_file *lf) {
    const floe_ice_data_file *f = &lf->file;
    if (f->has_content_offset || f->has_content_size_in_bytes) { /* a deletion vector */
        if (!f->referenced_data_file)
            return floe_error(FLOE_ERR_CORRUPT, "deletion vector '%s' has no referenced_data_file", f->file_path);
        floe_ice_posdel *pd = NULL;
        FLOE_TRY(floe_ice_posdel_new(&pd));
        floe_status st = floe_ice_posdel_load(pd, t->io, f, lf->resolved_path, f->referenced_data_file, NULL, NULL);
        if (!st) st = floe_ice_posdel_finish(pd);
        const int64_t *pos = st ? NULL : floe_ice_posdel_positions(pd);
        size_t len = strlen(f->referenced_data_file);
        for (int64_t i = 0; !st && i < floe_ice_posdel_count(pd); i++)
            st = posdel_row(c, f->referenced_data_file, len, pos[i]);
        floe_ice_posdel_free(pd);
        return st;
    }
    if (f->file_format && strcasecmp(f->file_format, "parquet") != 0)
        return floe_error(FLOE_ERR_UNSUPPORTED, "position delete file '%s' is %s: only Parquet position delete "
                          "files and deletion vectors are listed", f->file_path, f->file_format);
    floe_input *in = NULL;
    if (f->file_size_in_bytes > 0)
        FLOE_TRY(floe_fileio_open_input_sized(t->io, lf->resolved_path, (uint64_t)f->file_size_in_bytes, &in));
    else
        FLOE_TRY(floe_fileio_open_input(t->io, lf->resolved_path, &in));
    floe_status st = floe_ice_posdel_read_rows(in, posdel_batch, (void *)c);
    floe_input_close(in);
    return st;
}

static floe_status rows_position_deletes(const floe_ice_table *t, mt *m) {
    part_union u;
    floe_status st = part_union_build(t->md, &u);
    floe_schema *row = NULL;
    if (!st) st = floe_ice_schema_to_columnar(floe_ice_tm_current_schema(t->md), NULL, 0, &row);
    if (!st) st = mt_col(m, "file_path", ty(FLOE_TYPE_STRING), false);
    if (!st) st = mt_col(m, "pos", ty(FLOE_TYPE_INT64), false);
    if (!st) st = mt_col(m, "row", row, true);
    if (!st && u.n) st = mt_col(m, "partition", u.type, true);
    if (!st) st = mt_col(m, "spec_id", ty(FLOE_TYPE_INT32), false);
    if (!st) st = mt_col(m, "delete_file_path", ty(FLOE_TYPE_STRING), false);
    if (!st) st = mt_col(m, "content_offset", ty(FLOE_TYPE_INT64), true);
    if (!st) st = mt_col(m, "content_size_in_bytes", ty(FLOE_TYPE_INT64), true);
    floe_type_release(row);
    const floe_ice_snapshot *snap = floe_ice_tm_current_snapshot(t->md);
    floe_ice_live_files *lf = NULL;
    if (!st && snap) st = floe_ice_table_live_files(t, snap, NULL, &lf);
    if (!st) st = mt_start(m, 0);
    for (size_t i = 0; !st && lf && i < lf->n; i++) {
        if (lf->files[i].file.content != FLOE_ICE_CONTENT_POSITION_DELETES) continue;
        posdel_ctx c = {m, &u, &lf->files[i].file};
        st = posdel_file_rows(t, &c, &lf->files[i]);
    }
    floe_ice_live_files_free(lf);
    part_union_free(&u);
    return st;
}

/* ------------------------------------------------- entries, all_entries */

/* Spark's entries table: status (0 EXISTING, 1 ADDED, 2 DELETED),
 * snapshot_id, sequence_number, file_sequence_number and data_file (the
 * $files columns as a struct), for every entry of the manifests of the
 * current snapshot — or, all_entries, of every snapshot's manifests (each
 * manifest once). */
static floe_status entry_rows_of_manifest(const floe_ice_table *t, mt *m, mt *sub, const part_union *u,
                                          const floe_ice_manifest_file *mf) {
    floe_input *in = NULL;
    FLOE_TRY(floe_ice_table_open_input(t, mf->manifest_path, mf->manifest_length, &in));
    floe_ice_manifest *man = NULL;
    floe_status st = floe_ice_manifest_read(in, mf, &man);
    floe_input_close(in);
    const floe_ice_schema *schema = floe_ice_tm_current_schema(t->md);
    for (size_t i = 0; !st && i < man->n_entries; i++) {
        const floe_ice_manifest_entry *e = &man->entries[i];
        st = floe_builder_append_int32(m->b[0], (int32_t)e->status);
        if (!st) st = put_i64(m->b[1], e->snapshot_id >= 0, e->snapshot_id);
        if (!st) st = put_i64(m->b[2], e->sequence_number >= 0, e->sequence_number);
        if (!st) st = put_i64(m->b[3], e->file_sequence_number >= 0, e->file_sequence_number);
        if (!st) st = file_row(sub, u, schema, &e->file);
        if (!st) st = floe_builder_append_valid(m->b[4]);
    }
    floe_ice_manifest_free(man);
    return floe_status_wrap(st, "manifest %s", mf->manifest_path);
}

static floe_status rows_entries(const floe_ice_table *t, mt *m, bool all) {
    const floe_ice_table_metadata *md = t->md;
    part_union u;
    mt sub;
    memset(&sub, 0, sizeof sub);
    floe_type *file_t = NULL;
    floe_status st = part_union_build(md, &u);
    if (!st) st = files_columns(&sub, &u);
    if (!st) st = floe_type_struct(sub.fields, sub.n, &file_t);
    if (!st) st = mt_col(m, "status", ty(FLOE_TYPE_INT32), false);
    if (!st) st = mt_col(m, "snapshot_id", ty(FLOE_TYPE_INT64), true);
    if (!st) st = mt_col(m, "sequence_number", ty(FLOE_TYPE_INT64), true);
    if (!st) st = mt_col(m, "file_sequence_number", ty(FLOE_TYPE_INT64), true);
    if (!st) st = mt_col(m, "data_file", file_t, false);
    floe_type_release(file_t);
    if (!st) st = mt_start(m, 0);
    /* The struct's children are where file_row appends. */
    for (int32_t i = 0; !st && i < sub.n; i++) sub.b[i] = floe_builder_child(m->b[4], i);
    floe_strmap seen = FLOE_STRMAP_INIT;
    const floe_ice_snapshot *cur = floe_ice_tm_current_snapshot(md);
    for (int32_t si = 0; !st && si < md->n_snapshots; si++) {
        const floe_ice_snapshot *snap = &md->snapshots[si];
        if (!all && snap != cur) continue;
        floe_ice_manifest_list *list = NULL;
        floe_ice_manifest_file *v1 = NULL;
        const floe_ice_manifest_file *files = NULL;
        size_t n = 0;
        st = floe_ice_snapshot_manifests(t, snap, &list, &v1, &files, &n);
        for (size_t i = 0; !st && i < n; i++) {
            if (floe_strmap_get_c(&seen, files[i].manifest_path)) continue;
            st = floe_strmap_put_c(&seen, files[i].manifest_path, (void *)&files[i], NULL);
            if (!st) st = entry_rows_of_manifest(t, m, &sub, &u, &files[i]);
        }
        floe_ice_manifest_list_free(list);
        floe_free(v1);
    }
    floe_strmap_free(&seen);
    for (int32_t i = 0; i < sub.n; i++) floe_field_clear(&sub.fields[i]); /* builders belong to m */
    part_union_free(&u);
    return st;
}

/* ---------------------------------------------------------- partitions */

typedef struct group_sort {
    const floe_ice_value *vals; /* n_files * width */
    int32_t width;
} group_sort;

static int cmp_tuples(const void *a, const void *b, void *arg) {
    const group_sort *g = arg;
    const floe_ice_value *x = &g->vals[(size_t)*(const uint32_t *)a * (size_t)g->width];
    const floe_ice_value *y = &g->vals[(size_t)*(const uint32_t *)b * (size_t)g->width];
    for (int32_t k = 0; k < g->width; k++) {
        int c = floe_ice_value_compare(&x[k], &y[k]);
        if (c) return c;
    }
    return 0;
}

static bool same_tuple(const group_sort *g, uint32_t a, uint32_t b) {
    return cmp_tuples(&a, &b, (void *)g) == 0;
}

typedef struct part_files {
    size_t n;                     /* data files */
    const floe_ice_data_file **f;
    floe_ice_value *vals;         /* n * u->n normalized tuples */
    uint32_t *order;              /* files sorted by tuple */
} part_files;

static void part_files_free(part_files *p, int32_t width) {
    for (size_t i = 0; p->vals && i < p->n * (size_t)width; i++) floe_ice_value_free(&p->vals[i]);
    floe_free(p->vals);
    floe_free(p->f);
    floe_free(p->order);
}

/* The live data files of `lf` with their tuples, sorted by tuple. */
static floe_status part_files_collect(const floe_ice_live_files *lf, const part_union *u, part_files *p) {
    memset(p, 0, sizeof *p);
    size_t cap = lf ? lf->n : 0;
    p->f = floe_calloc(cap ? cap : 1, sizeof *p->f);
    p->order = floe_calloc(cap ? cap : 1, sizeof *p->order);
    p->vals = floe_calloc(cap && u->n ? cap * (size_t)u->n : 1, sizeof *p->vals);
    if (!p->f || !p->order || !p->vals) return oom();
    if (cap > UINT32_MAX) return floe_error(FLOE_ERR_UNSUPPORTED, "more than 2^32 files");
    for (size_t i = 0; i < cap; i++) {
        const floe_ice_data_file *f = &lf->files[i].file;
        if (f->content != FLOE_ICE_CONTENT_DATA) continue;
        size_t at = p->n++;
        p->f[at] = f;
        p->order[at] = (uint32_t)at;
        if (u->n) FLOE_TRY(union_tuple(u, f, &p->vals[at * (size_t)u->n]));
    }
    group_sort g = {p->vals, u->n};
    if (u->n) qsort_r(p->order, p->n, sizeof *p->order, cmp_tuples, &g);
    return NULL;
}

static floe_status rows_partitions(const floe_ice_table *t, mt *m) {
    part_union u;
    part_files p;
    memset(&p, 0, sizeof p);
    floe_status st = part_union_build(t->md, &u);
    if (!st && u.n) st = mt_col(m, "partition", u.type, true);
    if (!st) st = mt_col(m, "record_count", ty(FLOE_TYPE_INT64), false);
    if (!st) st = mt_col(m, "file_count", ty(FLOE_TYPE_INT64), false);
    if (!st) st = mt_col(m, "total_size", ty(FLOE_TYPE_INT64), false);
    const floe_ice_snapshot *snap = floe_ice_tm_current_snapshot(t->md);
    floe_ice_live_files *lf = NULL;
    if (!st && snap) st = floe_ice_table_live_files(t, snap, NULL, &lf);
    if (!st) st = part_files_collect(lf, &u, &p);
    if (!st) st = mt_start(m, 16);
    group_sort g = {p.vals, u.n};
    int c0 = u.n ? 1 : 0;
    for (size_t i = 0; !st && i < p.n;) {
        size_t j = i;
        int64_t rows = 0, size = 0;
        while (j < p.n && (j == i || same_tuple(&g, p.order[i], p.order[j]))) {
            rows += p.f[p.order[j]]->record_count;
            size += p.f[p.order[j]]->file_size_in_bytes;
            j++;
        }
        if (u.n) st = append_tuple(m->b[0], &u, &p.vals[(size_t)p.order[i] * (size_t)u.n]);
        if (!st) st = floe_builder_append_int64(m->b[c0], rows);
        if (!st) st = floe_builder_append_int64(m->b[c0 + 1], (int64_t)(j - i));
        if (!st) st = floe_builder_append_int64(m->b[c0 + 2], size);
        i = j;
    }
    part_files_free(&p, u.n);
    floe_ice_live_files_free(lf);
    part_union_free(&u);
    return st;
}

/* ---------------------------------------------------------------- entry */

bool floe_sql_metadata_table_of_snapshot(const char *which) {
    static const char *const of_snapshot[] = {"files",      "data_files", "delete_files",     "manifests",
                                              "partitions", "entries",    "position_deletes", NULL};
    for (size_t i = 0; which && of_snapshot[i]; i++)
        if (strcmp(which, of_snapshot[i]) == 0) return true;
    return false;
}

floe_status floe_sql_metadata_table(const floe_ice_table *t, const char *which, floe_plan **out) {
    *out = NULL;
    if (!t || !t->md || !which) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "metadata table: no table given");
    mt m;
    memset(&m, 0, sizeof m);
    floe_status st;
    if (strcmp(which, "snapshots") == 0) st = rows_snapshots(t->md, &m);
    else if (strcmp(which, "history") == 0) st = rows_history(t->md, &m);
    else if (strcmp(which, "refs") == 0) st = rows_refs(t->md, &m);
    else if (strcmp(which, "properties") == 0) st = rows_properties(t->md, &m);
    else if (strcmp(which, "metadata_log_entries") == 0) st = rows_metadata_log(t, &m);
    else if (strcmp(which, "manifests") == 0) st = rows_manifests_of(t, &m, false);
    else if (strcmp(which, "all_manifests") == 0) st = rows_manifests_of(t, &m, true);
    else if (strcmp(which, "files") == 0) st = rows_files(t, &m);
    else if (strcmp(which, "partitions") == 0) st = rows_partitions(t, &m);
    else if (strcmp(which, "data_files") == 0) st = rows_files_kind(t, &m, FILES_DATA);
    else if (strcmp(which, "delete_files") == 0) st = rows_files_kind(t, &m, FILES_DELETES);
    else if (strcmp(which, "all_files") == 0) st = rows_all_files(t, &m, FILES_ANY);
    else if (strcmp(which, "all_data_files") == 0) st = rows_all_files(t, &m, FILES_DATA);
    else if (strcmp(which, "all_delete_files") == 0) st = rows_all_files(t, &m, FILES_DELETES);
    else if (strcmp(which, "entries") == 0) st = rows_entries(t, &m, false);
    else if (strcmp(which, "all_entries") == 0) st = rows_entries(t, &m, true);
    else if (strcmp(which, "position_deletes") == 0) st = rows_position_deletes(t, &m);
    else {
        size_t n = 0;
        while (floe_sql_metadata_table_names[n]) n++;
        /* The suggestion, then every valid name (as Spark's error lists them). */
        floe_status e = floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "metadata table", floe_str_c(which),
                                                floe_sql_metadata_table_names, n);
        char list[512];
        size_t at = 0;
        for (size_t i = 0; i < n && at < sizeof list; i++)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", floe_sql_metadata_table_names[i]);
        floe_status full = floe_error(FLOE_ERR_NOT_FOUND, "%s (valid: %s)", floe_status_message(e), list);
        floe_status_free(e);
        return full;
    }
    if (!st) st = mt_finish(&m, out);
    mt_free(&m);
    if (st) return floe_status_wrap(st, "metadata table $%s", which);
    return NULL;
}

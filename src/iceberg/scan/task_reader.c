/*
 * task_reader.c — read one Iceberg file scan task into record batches in
 * the table's schema (see floe/iceberg_task_reader.h).
 *
 * Shape: the Parquet reader fetches the needed top-level columns by field
 * id (or by name through the table's name mapping when the file has no
 * ids).  Each file column is then "conformed" to the Iceberg type of its
 * table field: struct children are matched by field id, missing children
 * become default/null arrays, promoted primitives are converted.  Deletes
 * and the residual filter build one selection vector per batch, and the
 * kept rows of the projected columns are gathered into the output.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buffer.h"
#include "floe/iceberg_deletes.h"
#include "floe/iceberg_task_reader.h"
#include "floe/memory.h"
#include "floe/variant.h"
#include "iceberg/expr/expr_batch.h"
#include "floe/iceberg_metadata_columns.h"
#include "iceberg/scan/task_source.h"

/* Rows per batch when the caller gives none (the Parquet reader's default). */
#define TASK_DEFAULT_BATCH_SIZE 8192


/* ---------------------------------------------------------- name mapping */

typedef struct nm_node {
    int32_t id;          /* -1 when the mapping gives none */
    int32_t n_names;
    char **names;
    int32_t n_children;
    struct nm_node *children;
} nm_node;

static void nm_free_children(nm_node *n) {
    for (int32_t i = 0; i < n->n_children; i++) {
        nm_node *c = &n->children[i];
        for (int32_t j = 0; j < c->n_names; j++) floe_free(c->names[j]);
        floe_free(c->names);
        nm_free_children(c);
    }
    floe_free(n->children);
    n->children = NULL;
    n->n_children = 0;
}

static floe_status nm_parse(json_t *arr, nm_node *parent) {
    if (!json_is_array(arr))
        return floe_error(FLOE_ERR_CORRUPT, "name mapping: expected an array of fields");
    size_t n = json_array_size(arr);
    parent->children = floe_calloc(n + 1, sizeof *parent->children);
    if (!parent->children) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "name mapping");
    parent->n_children = (int32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i);
        nm_node *c = &parent->children[i];
        c->id = -1;
        if (!json_is_object(o)) return floe_error(FLOE_ERR_CORRUPT, "name mapping: field %zu is not an object", i);
        json_t *id = json_object_get(o, "field-id");
        if (json_is_integer(id)) c->id = (int32_t)json_integer_value(id);
        json_t *names = json_object_get(o, "names");
        if (json_is_array(names)) {
            size_t k = json_array_size(names);
            c->names = floe_calloc(k + 1, sizeof *c->names);
            if (!c->names) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "name mapping");
            for (size_t j = 0; j < k; j++) {
                const char *s = json_string_value(json_array_get(names, j));
                if (!s) continue;
                c->names[c->n_names] = floe_strdup(s);
                if (!c->names[c->n_names]) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "name mapping");
                c->n_names++;
            }
        }
        json_t *fields = json_object_get(o, "fields");
        if (fields && !json_is_null(fields)) FLOE_TRY(nm_parse(fields, c));
    }
    return NULL;
}

static const nm_node *nm_by_name(const nm_node *parent, const char *name) {
    if (!parent) return NULL;
    for (int32_t i = 0; i < parent->n_children; i++)
        for (int32_t j = 0; j < parent->children[i].n_names; j++)
            if (strcmp(parent->children[i].names[j], name) == 0) return &parent->children[i];
    return NULL;
}

static const nm_node *nm_by_id(const nm_node *parent, int32_t id) {
    if (!parent) return NULL;
    for (int32_t i = 0; i < parent->n_children; i++)
        if (parent->children[i].id == id) return &parent->children[i];
    return NULL;
}

/* ------------------------------------------------------------ the reader */

/* A column the residual reads: a top-level read column and, for a field
 * inside structs, the child index at each level below it. */
#define FTERM_MAX_DEPTH 16
typedef struct filter_term {
    int32_t id;
    int32_t col;
    int32_t depth;
    int32_t path[FTERM_MAX_DEPTH];
    const floe_ice_type *type;
} filter_term;

typedef struct eq_set {
    int32_t n_ids;
    int32_t *ids;        /* equality field ids (top-level) */
    int32_t *cols;       /* their index among the read columns */
    size_t n_keys;
    char **keys;         /* sorted row keys */
} eq_set;

struct floe_ice_task_reader {
    const floe_ice_table *table;
    const floe_ice_schema *schema;
    const floe_ice_scan_task *task;
    const floe_ice_expr *residual;   /* NULL when always true */
    filter_term *fterms;
    int32_t n_fterms;
    bool skip_residual;              /* a residual column is inside a list/map */
    bool vector_residual;            /* every residual column is top-level */
    uint8_t *match;                  /* per-row residual result */
    size_t match_cap;
    const floe_ice_partition_spec *spec;
    nm_node mapping;
    bool use_mapping;
    bool fallback_ids;               /* mapping = top-level ids by position (no ids, no name mapping) */
    floe_ice_source *src;            /* the data file; NULL when it holds no rows */
    /* Read columns: the table fields read (projection, then filter and
     * equality columns), their index in the source's batches or -1 when
     * the file lacks them. */
    int32_t n_read;
    const floe_ice_field **read_fields;
    int32_t *src_col;
    int32_t n_out;               /* the first n_out read columns are output */
    floe_type **read_types;
    floe_schema *out_schema;
    /* Deletes. */
    floe_ice_posdel *posdel;     /* NULL when no position deletes */
    floe_fileio *own_io;         /* local FileIO when the table has none */
    const int64_t *del_pos;      /* sorted positions (owned by posdel) */
    size_t n_del_pos;
    eq_set *eq;
    int32_t n_eq;
    int64_t batch_size;
    int64_t rows_read;           /* rows the source produced */
    int64_t next_row;            /* file row after the last batch (sources without spans) */
    uint32_t *sel;
    size_t sel_cap;
};

/* ---------------------------------------------------------- Iceberg types */

floe_status floe_ice_type_to_columnar(const floe_ice_type *t, floe_type **out) {
    *out = NULL;
    switch (t->id) {
    case FLOE_ICE_UNKNOWN: *out = floe_type_primitive(FLOE_TYPE_NULL); return NULL;
    case FLOE_ICE_BOOLEAN: *out = floe_type_primitive(FLOE_TYPE_BOOL); return NULL;
    case FLOE_ICE_INT: *out = floe_type_primitive(FLOE_TYPE_INT32); return NULL;
    case FLOE_ICE_LONG: *out = floe_type_primitive(FLOE_TYPE_INT64); return NULL;
    case FLOE_ICE_FLOAT: *out = floe_type_primitive(FLOE_TYPE_FLOAT32); return NULL;
    case FLOE_ICE_DOUBLE: *out = floe_type_primitive(FLOE_TYPE_FLOAT64); return NULL;
    case FLOE_ICE_DATE: *out = floe_type_primitive(FLOE_TYPE_DATE32); return NULL;
    case FLOE_ICE_TIME: *out = floe_type_primitive(FLOE_TYPE_TIME64_US); return NULL;
    case FLOE_ICE_TIMESTAMP: *out = floe_type_primitive(FLOE_TYPE_TIMESTAMP_US); return NULL;
    case FLOE_ICE_TIMESTAMPTZ: *out = floe_type_primitive(FLOE_TYPE_TIMESTAMP_US_TZ); return NULL;
    case FLOE_ICE_TIMESTAMP_NS: *out = floe_type_primitive(FLOE_TYPE_TIMESTAMP_NS); return NULL;
    case FLOE_ICE_TIMESTAMPTZ_NS: *out = floe_type_primitive(FLOE_TYPE_TIMESTAMP_NS_TZ); return NULL;
    case FLOE_ICE_STRING: *out = floe_type_primitive(FLOE_TYPE_STRING); return NULL;
    case FLOE_ICE_UUID: *out = floe_type_primitive(FLOE_TYPE_UUID); return NULL;
    case FLOE_ICE_BINARY: *out = floe_type_primitive(FLOE_TYPE_BINARY); return NULL;
    /* v3 geometry / geography: their values are WKB (the spec's and
     * Parquet's GEOMETRY/GEOGRAPHY logical types), read as binary. */
    case FLOE_ICE_GEOMETRY:
    case FLOE_ICE_GEOGRAPHY: *out = floe_type_primitive(FLOE_TYPE_BINARY); return NULL;
    case FLOE_ICE_FIXED: return floe_type_fixed_binary(t->length, out);
    case FLOE_ICE_DECIMAL: return floe_type_decimal(t->precision, t->scale, out);
    /* v3 variant: the Variant encoding's metadata and value (floe/variant.h). */
    case FLOE_ICE_VARIANT: *out = floe_type_primitive(FLOE_TYPE_VARIANT); return NULL;
    case FLOE_ICE_STRUCT:
    case FLOE_ICE_LIST:
    case FLOE_ICE_MAP: {
        floe_field *ff = floe_calloc((size_t)t->n_fields + 1, sizeof *ff);
        if (!ff) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "columnar type");
        floe_status st = NULL;
        for (int32_t i = 0; i < t->n_fields && !st; i++) {
            floe_type *ct = NULL;
            st = floe_ice_type_to_columnar(t->fields[i].type, &ct);
            if (!st)
                st = floe_field_init(&ff[i], t->fields[i].name, ct, !t->fields[i].required, t->fields[i].id);
            floe_type_release(ct);
        }
        if (!st) {
            if (t->id == FLOE_ICE_STRUCT) st = floe_type_struct(ff, t->n_fields, out);
            else if (t->id == FLOE_ICE_LIST) st = floe_type_list(&ff[0], out);
            else st = floe_type_map(&ff[0], &ff[1], false, out);
        }
        for (int32_t i = 0; i < t->n_fields; i++) floe_field_clear(&ff[i]);
        floe_free(ff);
        return st;
    }
    default:
        return floe_error(FLOE_ERR_UNSUPPORTED, "type %s cannot be read", floe_ice_type_id_name(t->id));
    }
}

floe_status floe_ice_schema_to_columnar(const floe_ice_schema *s, const int32_t *ids, int32_t n,
                                        floe_schema **out) {
    const floe_ice_type *root = s->root;
    if (!ids) n = root->n_fields;
    floe_field *ff = floe_calloc((size_t)n + 1, sizeof *ff);
    if (!ff) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "schema");
    floe_status st = NULL;
    for (int32_t i = 0; i < n && !st; i++) {
        const floe_ice_field *f = ids ? floe_ice_schema_find_field(s, ids[i]) : &root->fields[i];
        if (!f && ids) f = floe_ice_metadata_field(ids[i]); /* _file, _pos, _row_id ... */
        if (!f) {
            st = floe_error(FLOE_ERR_NOT_FOUND, "no field with id %d in schema %d", ids[i], s->schema_id);
            break;
        }
        floe_type *t = NULL;
        st = floe_ice_type_to_columnar(f->type, &t);
        if (!st) st = floe_field_init(&ff[i], f->name, t, !f->required, f->id);
        floe_type_release(t);
    }
    if (!st) st = floe_type_struct(ff, n, out);
    for (int32_t i = 0; i < n; i++) floe_field_clear(&ff[i]);
    floe_free(ff);
    return st;
}

/* ------------------------------------------------- constants and casts */

floe_status floe_ice_value_array(const floe_ice_value *v0, const floe_ice_type *it, floe_type *t, int64_t n,
                                 floe_array **out) {
    if (!v0 || v0->is_null || floe_ice_type_is_nested(it)) return floe_array_new_nulls(t, n, out);
    floe_ice_value v;
    FLOE_TRY(floe_ice_value_promote(v0, it, &v));
    floe_builder *b = NULL;
    floe_status st = floe_builder_new(t, n, &b);
    for (int64_t i = 0; i < n && !st; i++) {
        switch (it->id) {
        case FLOE_ICE_BOOLEAN: st = floe_builder_append_bool(b, v.v.b); break;
        case FLOE_ICE_INT: case FLOE_ICE_DATE: st = floe_builder_append_int32(b, v.v.i32); break;
        case FLOE_ICE_LONG: case FLOE_ICE_TIME: case FLOE_ICE_TIMESTAMP: case FLOE_ICE_TIMESTAMPTZ:
        case FLOE_ICE_TIMESTAMP_NS: case FLOE_ICE_TIMESTAMPTZ_NS:
            st = floe_builder_append_int64(b, v.v.i64); break;
        case FLOE_ICE_FLOAT: st = floe_builder_append_float(b, v.v.f32); break;
        case FLOE_ICE_DOUBLE: st = floe_builder_append_double(b, v.v.f64); break;
        case FLOE_ICE_DECIMAL: {
            floe_decimal128 d;
            memcpy(&d, &v.v.dec, sizeof d);
            st = floe_builder_append_decimal(b, d);
            break;
        }
        case FLOE_ICE_UUID: st = floe_builder_append_fixed(b, v.v.uuid); break;
        case FLOE_ICE_FIXED: st = floe_builder_append_fixed(b, v.v.bytes.data); break;
        case FLOE_ICE_STRING: case FLOE_ICE_BINARY:
            st = floe_builder_append_binary(b, v.v.bytes.data, (int64_t)v.v.bytes.len); break;
        default: st = floe_builder_append_null(b); break;
        }
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    floe_ice_value_free(&v);
    return st;
}

/* Re-type `a` as `t` keeping its buffers (same physical layout). */
static floe_status retype(const floe_array *a, floe_type *t, floe_array *const *children, int32_t n_children,
                          floe_array **out) {
    int nb = t->id == FLOE_TYPE_NULL || floe_type_is_struct_like(t) ? 0 : floe_type_is_binary_like(t) ? 2 : 1;
    return floe_array_new(t, a->length, a->offset, FLOE_NULL_COUNT_UNKNOWN, a->validity, a->buffers, nb,
                          children, n_children, out);
}

static floe_status promote_prim(const floe_array *a, floe_type *t, floe_array **out) {
    floe_type_id from = a->type->id, to = t->id;
    if (from == to && floe_type_compatible(a->type, t)) return retype(a, t, NULL, 0, out);
    if (from == FLOE_TYPE_NULL) return floe_array_new_nulls(t, a->length, out);
    /* Same layout, different logical type (binary as string, fixed[16] as
     * uuid, decimal widening keeps 16-byte values). */
    if ((floe_type_is_binary_like(a->type) && floe_type_is_binary_like(t)) ||
        (a->type->byte_width == t->byte_width && a->type->byte_width > 0 &&
         (from == FLOE_TYPE_FIXED_BINARY || from == FLOE_TYPE_UUID || from == FLOE_TYPE_DECIMAL128) &&
         (to == FLOE_TYPE_FIXED_BINARY || to == FLOE_TYPE_UUID || to == FLOE_TYPE_DECIMAL128)) ||
        (a->type->byte_width == t->byte_width && from != FLOE_TYPE_FLOAT32 && from != FLOE_TYPE_FLOAT64 &&
         to != FLOE_TYPE_FLOAT32 && to != FLOE_TYPE_FLOAT64 && from != FLOE_TYPE_DATE32 &&
         !floe_type_is_nested(a->type) && !floe_type_is_nested(t) && a->type->byte_width > 0 &&
         (from == FLOE_TYPE_INT64 || from == FLOE_TYPE_TIMESTAMP_US || from == FLOE_TYPE_TIMESTAMP_US_TZ) &&
         (to == FLOE_TYPE_TIMESTAMP_US || to == FLOE_TYPE_TIMESTAMP_US_TZ || to == FLOE_TYPE_INT64)))
        return retype(a, t, NULL, 0, out);
    floe_builder *b = NULL;
    FLOE_TRY(floe_builder_new(t, a->length, &b));
    floe_status st = NULL;
    for (int64_t i = 0; i < a->length && !st; i++) {
        if (floe_array_is_null(a, i)) {
            st = floe_builder_append_null(b);
            continue;
        }
        if (from == FLOE_TYPE_INT32 && to == FLOE_TYPE_INT64)
            st = floe_builder_append_int64(b, floe_array_get_int32(a, i));
        else if (from == FLOE_TYPE_FLOAT32 && to == FLOE_TYPE_FLOAT64)
            st = floe_builder_append_double(b, (double)floe_array_get_float(a, i));
        else if ((from == FLOE_TYPE_INT32 || from == FLOE_TYPE_INT64) && to == FLOE_TYPE_DECIMAL128)
            st = floe_builder_append_decimal(
                b, floe_decimal128_from_int64(from == FLOE_TYPE_INT32 ? floe_array_get_int32(a, i)
                                                                      : floe_array_get_int64(a, i)));
        else if (from == FLOE_TYPE_DATE32 && (to == FLOE_TYPE_TIMESTAMP_US || to == FLOE_TYPE_TIMESTAMP_US_TZ))
            st = floe_builder_append_int64(b, (int64_t)floe_array_get_int32(a, i) * 86400000000LL);
        else if (from == FLOE_TYPE_DATE32 && (to == FLOE_TYPE_TIMESTAMP_NS || to == FLOE_TYPE_TIMESTAMP_NS_TZ))
            st = floe_builder_append_int64(b, (int64_t)floe_array_get_int32(a, i) * 86400000000000LL);
        else if ((from == FLOE_TYPE_TIMESTAMP_NS || from == FLOE_TYPE_TIMESTAMP_NS_TZ) &&
                 (to == FLOE_TYPE_TIMESTAMP_US || to == FLOE_TYPE_TIMESTAMP_US_TZ)) {
            int64_t v = floe_array_get_int64(a, i);
            st = floe_builder_append_int64(b, v / 1000 - (v % 1000 < 0));
        } else if ((from == FLOE_TYPE_TIMESTAMP_US || from == FLOE_TYPE_TIMESTAMP_US_TZ) &&
                   (to == FLOE_TYPE_TIMESTAMP_NS || to == FLOE_TYPE_TIMESTAMP_NS_TZ))
            st = floe_builder_append_int64(b, floe_array_get_int64(a, i) * 1000);
        else
            st = floe_error(FLOE_ERR_TYPE, "cannot read a %s column as %s", floe_type_id_name(from),
                            floe_type_id_name(to));
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

/* ---------------------------------------------------------- conforming */

typedef struct conform_ctx {
    const floe_ice_task_reader *r;
} conform_ctx;

/* The default/partition constant for a field missing from the file. */
static floe_status missing_array(const floe_ice_task_reader *r, const floe_ice_field *f, floe_type *t,
                                 int64_t n, bool top, floe_array **out) {
    if (top && r->spec) {
        const floe_ice_scan_task *df = r->task;
        for (int32_t i = 0; i < r->spec->n_fields && i < df->n_partition; i++) {
            const floe_ice_partition_field *pf = &r->spec->fields[i];
            if (pf->transform.kind == FLOE_ICE_TRANSFORM_IDENTITY && pf->source_id == f->id)
                return floe_ice_value_array(&df->partition[i], f->type, t, n, out);
        }
    }
    return floe_ice_value_array(f->initial_default, f->type, t, n, out);
}

/* Id of a source field: its own, else through the name mapping. */
static int32_t src_id(const floe_field *sf, const nm_node *nm, const nm_node **child_nm) {
    *child_nm = NULL;
    if (nm) {
        const nm_node *c = nm_by_name(nm, sf->name);
        *child_nm = c;
        if (sf->field_id < 0) return c ? c->id : -1;
    }
    return sf->field_id;
}

static floe_status conform(const floe_ice_task_reader *r, const floe_array *a, const nm_node *nm,
                           const floe_ice_field *f, floe_type *t, floe_array **out);

static floe_status conform_children(const floe_ice_task_reader *r, const floe_array *a, const nm_node *nm,
                                    const floe_ice_type *it, floe_type *t, floe_array **kids) {
    const floe_type *at = a->type;
    int64_t full = a->offset + a->length;
    for (int32_t i = 0; i < it->n_fields; i++) {
        const floe_ice_field *cf = &it->fields[i];
        floe_type *ct = t->children[i].type;
        int32_t found = -1;
        const nm_node *cnm = NULL;
        for (int32_t j = 0; j < at->n_children && found < 0; j++) {
            const nm_node *x;
            if (src_id(&at->children[j], nm, &x) == cf->id) {
                found = j;
                cnm = x;
            }
        }
        if (found < 0 && r->fallback_ids) {
            /* The file has no ids and the table no name mapping: a struct's
             * fields cannot be told apart, and NULLs would be a silent
             * wrong answer. */
            return floe_error(FLOE_ERR_UNSUPPORTED,
                              "data file '%s' has no field ids and the table no schema.name-mapping.default: "
                              "struct field '%s' (id %d) cannot be resolved (columns are matched by position only "
                              "at the top level; set schema.name-mapping.default)",
                              r->task->resolved_path ? r->task->resolved_path : r->task->path, cf->name, cf->id);
        }
        if (found < 0) FLOE_TRY(missing_array(r, cf, ct, full, false, &kids[i]));
        else FLOE_TRY(conform(r, a->children[found], cnm, cf, ct, &kids[i]));
    }
    return NULL;
}

static floe_status conform(const floe_ice_task_reader *r, const floe_array *a, const nm_node *nm,
                           const floe_ice_field *f, floe_type *t, floe_array **out) {
    const floe_ice_type *it = f->type;
    if (it->id == FLOE_ICE_VARIANT) {
        /* Parquet's VARIANT group arrives as a variant; a format without a
         * variant type (Avro) has the spec's record of metadata and value. */
        if (a->type->id == FLOE_TYPE_VARIANT) {
            *out = floe_array_retain((floe_array *)a);
            return NULL;
        }
        if (a->type->id == FLOE_TYPE_STRUCT)
            return floe_status_wrap(floe_variant_array_from_struct(a, out), "field %d ('%s')", f->id, f->name);
        return floe_error(FLOE_ERR_TYPE, "field %d ('%s'): file has %s, table has variant", f->id, f->name,
                          floe_type_id_name(a->type->id));
    }
    if (floe_ice_type_is_primitive(it)) return promote_prim(a, t, out);
    if (a->type->id != t->id)
        return floe_error(FLOE_ERR_TYPE, "field %d ('%s'): file has %s, table has %s", f->id, f->name,
                          floe_type_id_name(a->type->id), floe_type_id_name(t->id));
    if (it->id == FLOE_ICE_STRUCT) {
        floe_array **kids = floe_calloc((size_t)it->n_fields + 1, sizeof *kids);
        if (!kids) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "conform");
        floe_status st = conform_children(r, a, nm, it, t, kids);
        if (!st)
            st = floe_array_new(t, a->length, a->offset, FLOE_NULL_COUNT_UNKNOWN, a->validity, NULL, 0, kids,
                                it->n_fields, out);
        for (int32_t i = 0; i < it->n_fields; i++) floe_array_release(kids[i]);
        floe_free(kids);
        return st;
    }
    if (it->id == FLOE_ICE_LIST) {
        const nm_node *enm = nm ? nm_by_name(nm, "element") : NULL;
        const floe_ice_field *ef = &it->fields[0];
        floe_array *kid = NULL;
        const floe_array *src = a->children[0];
        int32_t sid = a->type->children[0].field_id;
        if (sid < 0 && enm) sid = enm->id;
        floe_status st;
        if (sid >= 0 && sid != ef->id)
            st = missing_array(r, ef, t->children[0].type, src->offset + src->length, false, &kid);
        else
            st = conform(r, src, enm, ef, t->children[0].type, &kid);
        if (!st) st = floe_array_new(t, a->length, a->offset, FLOE_NULL_COUNT_UNKNOWN, a->validity, a->buffers, 1,
                                     &kid, 1, out);
        floe_array_release(kid);
        return st;
    }
    /* MAP: entries struct<key, value>; conform as a struct of the two. */
    const floe_array *src = a->children[0];
    floe_type *et = t->children[0].type;
    floe_array *kids[2] = {NULL, NULL};
    const floe_type *st_type = src->type;
    floe_status st = NULL;
    for (int k = 0; k < 2 && !st; k++) {
        const floe_ice_field *cf = &it->fields[k];
        const nm_node *cnm = nm ? nm_by_name(nm, k == 0 ? "key" : "value") : NULL;
        int32_t sid = st_type->children[k].field_id;
        if (sid < 0 && cnm) sid = cnm->id;
        const floe_array *c = src->children[k];
        if (sid >= 0 && sid != cf->id)
            st = missing_array(r, cf, et->children[k].type, c->offset + c->length, false, &kids[k]);
        else
            st = conform(r, c, cnm, cf, et->children[k].type, &kids[k]);
    }
    floe_array *entries = NULL;
    if (!st)
        st = floe_array_new(et, src->length, src->offset, FLOE_NULL_COUNT_UNKNOWN, src->validity, NULL, 0, kids, 2,
                            &entries);
    if (!st)
        st = floe_array_new(t, a->length, a->offset, FLOE_NULL_COUNT_UNKNOWN, a->validity, a->buffers, 1, &entries, 1,
                            out);
    floe_array_release(kids[0]);
    floe_array_release(kids[1]);
    floe_array_release(entries);
    return st;
}

/* ------------------------------------------------------ values of slots */

/* A row key for equality deletes: each value's text, NUL-separated, with
 * a marker distinguishing null. */
static floe_status row_key(floe_array *const *cols, const int32_t *idx, int32_t n, int64_t row, floe_buf *out) {
    floe_buf_clear(out);
    for (int32_t k = 0; k < n; k++) {
        const floe_array *a = cols[idx[k]];
        if (!a || floe_array_is_null(a, row)) FLOE_TRY(floe_buf_append(out, "\x01N", 2));
        else {
            FLOE_TRY(floe_buf_append_byte(out, 2));
            FLOE_TRY(floe_format_value(a, row, out));
        }
        FLOE_TRY(floe_buf_append_byte(out, 0));
    }
    return NULL;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---------------------------------------------------------- delete files */

/* The FileIO every file of the task is opened through: the table's (so
 * S3 tables read their data and delete files from S3 with the settings
 * their metadata was read with), else a local-only one made on first use. */
static floe_status task_io(floe_ice_task_reader *r, floe_fileio **io) {
    *io = r->table ? r->table->io : NULL;
    if (!*io) {
        if (!r->own_io) FLOE_TRY(floe_fileio_new(NULL, 0, &r->own_io));
        *io = r->own_io;
    }
    return NULL;
}

/* The FileIO to open `location` through: the table's; without one, none
 * for a plain path (the local reader, no environment read) and a local
 * FileIO made on first use for a URI. */
static floe_status source_io(floe_ice_task_reader *r, const char *location, floe_fileio **io) {
    *io = r->table ? r->table->io : NULL;
    if (*io || (!strstr(location, "://") && strncmp(location, "file:", 5) != 0)) return NULL;
    return task_io(r, io);
}

/* Position deletes and deletion vectors of the task's data file go into
 * one floe_ice_posdel (iceberg_deletes.h); its sorted positions are then
 * walked batch by batch. */
/* A position delete file in a format other than Parquet (Avro, ORC):
 * read through a source, its (file_path, pos) rows added batch by batch. */
static floe_status load_pos_deletes_source(floe_ice_task_reader *r, const floe_ice_scan_delete *d) {
    if (d->referenced_data_file && strcmp(d->referenced_data_file, r->task->path) != 0) return NULL;
    floe_fileio *io = NULL;
    FLOE_TRY(source_io(r, d->resolved_path, &io));
    floe_ice_source *src = NULL;
    FLOE_TRY(floe_ice_source_open(d->format, io, d->resolved_path, d->file_size_in_bytes, &src));
    int32_t cols[2] = {-1, -1};
    static const int32_t ids[2] = {FLOE_ICE_POSDEL_FILE_PATH_ID, FLOE_ICE_POSDEL_POS_ID};
    static const char *const names[2] = {"file_path", "pos"};
    for (int k = 0; k < 2; k++) {
        for (int32_t c = 0; c < src->n_columns && cols[k] < 0; c++)
            if (src->field_ids[c] == ids[k]) cols[k] = c;
        for (int32_t c = 0; c < src->n_columns && cols[k] < 0; c++)
            if (src->field_ids[c] < 0 && strcmp(src->names[c], names[k]) == 0) cols[k] = c;
    }
    floe_status st = cols[0] < 0 || cols[1] < 0
                         ? floe_error(FLOE_ERR_CORRUPT, "position delete file '%s' has no %s column", d->resolved_path,
                                      cols[0] < 0 ? "file_path" : "pos")
                         : NULL;
    floe_ice_source_hints h = {0};
    h.length = -1;
    h.batch_size = r->batch_size;
    h.by_id = true;
    if (!st) st = src->vt->start(src, cols, 2, &h);
    while (!st) {
        floe_batch *b = NULL;
        const floe_ice_row_span *spans;
        int nspans;
        st = src->vt->next(src, &b, &spans, &nspans);
        if (st || !b) break;
        st = floe_ice_posdel_add_batch(r->posdel, b, r->task->path, NULL, NULL, d->resolved_path);
        floe_batch_release(b);
    }
    floe_ice_source_close(src);
    return st ? floe_status_wrap(st, "position delete file '%s'", d->resolved_path) : NULL;
}

static floe_status load_pos_deletes(floe_ice_task_reader *r, const floe_ice_scan_delete *d) {
    floe_fileio *io = NULL;
    FLOE_TRY(task_io(r, &io));
    if (!r->posdel) FLOE_TRY(floe_ice_posdel_new(&r->posdel));
    bool dv = d->content_offset >= 0 || d->content_size_in_bytes >= 0;
    if (!dv && d->format && strcasecmp(d->format, "parquet") != 0) return load_pos_deletes_source(r, d);
    floe_ice_data_file df;
    floe_ice_data_file_init(&df);
    df.content = FLOE_ICE_CONTENT_POSITION_DELETES;
    df.file_path = d->path;
    df.file_format = d->format;
    df.record_count = d->record_count;
    df.file_size_in_bytes = d->file_size_in_bytes;
    df.spec_id = d->spec_id;
    df.referenced_data_file = d->referenced_data_file;
    if (d->content_offset >= 0 || d->content_size_in_bytes >= 0) {
        df.has_content_offset = d->content_offset >= 0;
        df.content_offset = d->content_offset;
        df.has_content_size_in_bytes = d->content_size_in_bytes >= 0;
        df.content_size_in_bytes = d->content_size_in_bytes;
    }
    return floe_ice_posdel_load(r->posdel, io, &df, d->resolved_path, r->task->path, NULL, NULL);
}

/* Index among read columns of field id `id`, adding it if needed. */
static int32_t read_index(const floe_ice_task_reader *r, int32_t id) {
    for (int32_t i = 0; i < r->n_read; i++)
        if (r->read_fields[i]->id == id) return i;
    return -1;
}

/* Is column c of a delete file the column of field f?  By field id; in a
 * file without any (at the top level) as Iceberg Java reads one: Parquet
 * with fallback ids by position (column c has id c + 1), Avro and ORC
 * through a mapping of the delete schema's names. */
static bool delete_column_is(const floe_ice_source *src, int32_t c, const floe_ice_field *f) {
    if (src->any_field_id) return src->field_ids[c] == f->id;
    if (strcmp(src->vt->format, "parquet") == 0) return c + 1 == f->id;
    return strcmp(src->names[c], f->name) == 0;
}

static floe_status load_eq_deletes(floe_ice_task_reader *r, const floe_ice_scan_delete *d, eq_set *e) {
    const floe_ice_scan_delete *df = d;
    e->n_ids = df->n_equality_ids;
    if (e->n_ids <= 0) return floe_error(FLOE_ERR_CORRUPT, "equality delete file '%s' has no equality ids", d->resolved_path);
    e->ids = floe_calloc((size_t)e->n_ids, sizeof *e->ids);
    e->cols = floe_calloc((size_t)e->n_ids, sizeof *e->cols);
    if (!e->ids || !e->cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "equality deletes");
    memcpy(e->ids, df->equality_ids, (size_t)e->n_ids * sizeof *e->ids);
    for (int32_t k = 0; k < e->n_ids; k++) {
        e->cols[k] = read_index(r, e->ids[k]);
        if (e->cols[k] < 0)
            return floe_error(FLOE_ERR_UNSUPPORTED, "equality delete file '%s': field id %d is not a top-level column",
                              d->resolved_path, e->ids[k]);
    }
    floe_fileio *io = NULL;
    FLOE_TRY(source_io(r, d->resolved_path, &io));
    floe_ice_source *src = NULL;
    FLOE_TRY_CTX(floe_ice_source_open(d->format, io, d->resolved_path, d->file_size_in_bytes, &src),
                 "equality delete file '%s'", d->resolved_path);
    /* Read the columns the delete file has (by their field ids, which
     * Iceberg's writers always give them); conform them to the table. */
    int32_t *have = floe_calloc((size_t)e->n_ids, sizeof *have);
    int32_t n_have = 0;
    int32_t *pos_of = floe_calloc((size_t)e->n_ids, sizeof *pos_of);
    floe_status st = (!have || !pos_of) ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "equality deletes") : NULL;
    for (int32_t k = 0; k < e->n_ids && !st; k++) {
        pos_of[k] = -1;
        for (int32_t c = 0; c < src->n_columns && pos_of[k] < 0; c++)
            if (delete_column_is(src, c, r->read_fields[e->cols[k]])) {
                pos_of[k] = n_have;
                have[n_have++] = c;
            }
    }
    if (!st) {
        floe_ice_source_hints h = {0};
        h.length = -1;
        h.batch_size = r->batch_size;
        h.by_id = true;
        st = src->vt->start(src, have, n_have, &h);
    }
    floe_buf key;
    floe_buf_init(&key);
    size_t cap = 0;
    floe_array **cols = floe_calloc((size_t)r->n_read + 1, sizeof *cols);
    if (!st && !cols) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "equality deletes");
    while (!st) {
        floe_batch *b = NULL;
        const floe_ice_row_span *spans;
        int nspans;
        st = src->vt->next(src, &b, &spans, &nspans);
        if (st || !b) break;
        for (int32_t k = 0; k < e->n_ids && !st; k++) {
            int32_t c = e->cols[k];
            if (pos_of[k] >= 0)
                st = conform(r, b->columns[pos_of[k]], NULL, r->read_fields[c], r->read_types[c], &cols[c]);
            else
                st = floe_ice_value_array(NULL, r->read_fields[c]->type, r->read_types[c], b->num_rows, &cols[c]);
        }
        for (int64_t i = 0; i < b->num_rows && !st; i++) {
            st = row_key(cols, e->cols, e->n_ids, i, &key);
            if (st) break;
            if (e->n_keys == cap) {
                cap = cap ? cap * 2 : 64;
                char **nk = floe_realloc(e->keys, cap * sizeof *nk);
                if (!nk) { st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "equality deletes"); break; }
                e->keys = nk;
            }
            char *s = floe_malloc(key.len + 1);
            if (!s) { st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "equality deletes"); break; }
            memcpy(s, key.data, key.len);
            s[key.len] = 0;
            /* Keys hold NULs between values: store with a length-free
             * encoding by mapping NUL to 0x03 (never in formatted text). */
            for (size_t j = 0; j < key.len; j++) if (!s[j]) s[j] = 3;
            e->keys[e->n_keys++] = s;
        }
        for (int32_t k = 0; k < e->n_ids; k++) {
            floe_array_release(cols[e->cols[k]]);
            cols[e->cols[k]] = NULL;
        }
        floe_batch_release(b);
    }
    if (e->n_keys) qsort(e->keys, e->n_keys, sizeof *e->keys, cmp_str);
    floe_buf_free(&key);
    floe_free(cols);
    floe_free(have);
    floe_free(pos_of);
    floe_ice_source_close(src);
    return st ? floe_status_wrap(st, "equality delete file '%s'", d->resolved_path) : NULL;
}

/* ------------------------------------------------------------ open/close */

static floe_status add_read_field(floe_ice_task_reader *r, int32_t id) {
    if (read_index(r, id) >= 0) return NULL;
    const floe_ice_field *f = NULL;
    for (int32_t i = 0; i < r->schema->root->n_fields; i++)
        if (r->schema->root->fields[i].id == id) f = &r->schema->root->fields[i];
    /* An equality delete may key on a column since dropped from the table:
     * take the field from the newest older schema that has it, so the data
     * file's column is read by its id. */
    for (int32_t s = r->table ? r->table->md->n_schemas - 1 : -1; !f && s >= 0; s--) {
        const floe_ice_type *rt = r->table->md->schemas[s]->root;
        for (int32_t i = 0; i < rt->n_fields; i++)
            if (rt->fields[i].id == id) f = &rt->fields[i];
    }
    if (!f) f = floe_ice_metadata_field(id);
    if (!f) return floe_error(FLOE_ERR_UNSUPPORTED, "field id %d is not a top-level column of schema %d", id,
                              r->schema->schema_id);
    r->read_fields[r->n_read++] = f;
    return NULL;
}

/* ------------------------------------------------------ metadata columns */

/* Metadata column `f` (iceberg_metadata_columns.h) for rows at file
 * positions given by the spans; `file_col` is the file's own column of
 * that id (NULL when it has none: _row_id and the sequence number are then
 * inherited, when the table tracks row lineage). */
static floe_status metadata_array(const floe_ice_task_reader *r, const floe_ice_field *f, floe_type *t, int64_t n,
                                  const floe_ice_row_span *spans, int nspans, const floe_array *file_col,
                                  floe_array **out) {
    const floe_ice_scan_task *task = r->task;
    floe_builder *b = NULL;
    FLOE_TRY(floe_builder_new(t, n, &b));
    floe_status st = NULL;
    int si = 0;
    int64_t span_end = nspans > 0 ? spans[0].num_rows : n, base = nspans > 0 ? spans[0].first_row : 0;
    for (int64_t i = 0; i < n && !st; i++) {
        while (i >= span_end && si + 1 < nspans) {
            si++;
            base = spans[si].first_row - span_end;
            span_end += spans[si].num_rows;
        }
        int64_t pos = base + i;
        switch (f->id) {
        case FLOE_ICE_MD_FILE_ID: st = floe_builder_append_string(b, task->path); break;
        case FLOE_ICE_MD_POS_ID: st = floe_builder_append_int64(b, pos); break;
        case FLOE_ICE_MD_SPEC_ID_ID: st = floe_builder_append_int32(b, task->spec_id); break;
        default: /* _row_id, _last_updated_sequence_number */
            if (file_col && !floe_array_is_null(file_col, i))
                st = floe_builder_append_int64(b, floe_array_get_int64(file_col, i));
            else if (!task->has_first_row_id)
                st = floe_builder_append_null(b);
            else if (f->id == FLOE_ICE_MD_ROW_ID_ID)
                st = floe_builder_append_int64(b, task->first_row_id + pos);
            else
                st = floe_builder_append_int64(b, task->sequence_number);
            break;
        }
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

/* Resolve a residual column to its top-level read column and struct path.
 * Fields inside lists or maps have no single value per row: predicates on
 * them are left to the caller (Iceberg plans them as always-true residuals). */
static floe_status add_filter_term(floe_ice_task_reader *r, int32_t id) {
    int32_t chain[FTERM_MAX_DEPTH + 1];
    int32_t n = 0;
    for (int32_t cur = id; cur >= 0 && n <= FTERM_MAX_DEPTH; cur = floe_ice_schema_parent_id(r->schema, cur))
        chain[n++] = cur;
    if (n > FTERM_MAX_DEPTH)
        return floe_error(FLOE_ERR_UNSUPPORTED, "filter column %d is nested too deeply", id);
    filter_term *t = &r->fterms[r->n_fterms];
    t->id = id;
    FLOE_TRY(add_read_field(r, chain[n - 1]));
    t->col = read_index(r, chain[n - 1]);
    const floe_ice_type *ty = r->read_fields[t->col]->type;
    for (int32_t l = n - 2; l >= 0; l--) {
        if (ty->id != FLOE_ICE_STRUCT) { /* inside a list or map: no per-row value */
            r->skip_residual = true;
            return NULL;
        }
        int32_t k = 0;
        while (k < ty->n_fields && ty->fields[k].id != chain[l]) k++;
        if (k == ty->n_fields) return floe_error(FLOE_ERR_INTERNAL, "filter column %d not under its parent", id);
        t->path[t->depth++] = k;
        ty = ty->fields[k].type;
    }
    if (floe_ice_type_is_nested(ty)) {
        r->skip_residual = true;
        return NULL;
    }
    t->type = ty;
    r->n_fterms++;
    return NULL;
}

/* Iceberg Java's fallback for a file with neither field ids nor a name
 * mapping (ParquetSchemaUtil.addFallbackIds): top-level column k has id
 * k + 1.  Nested fields get no ids (conform_children refuses to guess). */
static floe_status fallback_mapping(floe_ice_task_reader *r) {
    nm_node *m = &r->mapping;
    const floe_ice_source *src = r->src;
    m->children = floe_calloc((size_t)src->n_columns + 1, sizeof *m->children);
    if (!m->children) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "fallback field ids");
    for (int32_t k = 0; k < src->n_columns; k++) {
        nm_node *c = &m->children[k];
        c->id = k + 1;
        c->names = floe_calloc(2, sizeof *c->names);
        if (!c->names || !(c->names[0] = floe_strdup(src->names[k])))
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "fallback field ids");
        c->n_names = 1;
        m->n_children = k + 1;
    }
    r->use_mapping = true;
    r->fallback_ids = true;
    return NULL;
}

/* A mapping node for field `id` called `name` of type t, with nodes for
 * its nested fields as Iceberg Java's MappingUtil.create names them:
 * struct fields by name, a list's element "element", a map's "key" and
 * "value". */
static floe_status nm_of_field(nm_node *n, int32_t id, const char *name, const floe_ice_type *t) {
    n->id = id;
    n->names = floe_calloc(2, sizeof *n->names);
    if (!n->names || !(n->names[0] = floe_strdup(name))) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "name mapping");
    n->n_names = 1;
    if (!floe_ice_type_is_nested(t)) return NULL;
    n->children = floe_calloc((size_t)t->n_fields + 1, sizeof *n->children);
    if (!n->children) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "name mapping");
    for (int32_t i = 0; i < t->n_fields; i++) {
        const floe_ice_field *f = &t->fields[i];
        const char *cn = t->id == FLOE_ICE_LIST ? "element" : t->id == FLOE_ICE_MAP ? (i ? "value" : "key") : f->name;
        n->n_children = i + 1;
        FLOE_TRY(nm_of_field(&n->children[i], f->id, cn, f->type));
    }
    return NULL;
}

/* Iceberg Java's fallback for an Avro or ORC file with neither field ids
 * nor a name mapping: a mapping made from the names of the schema read
 * (MappingUtil.create(expectedSchema), in Avro's ProjectionDatumReader and
 * ORC's OrcIterable), at every depth. */
static floe_status schema_names_mapping(floe_ice_task_reader *r) {
    nm_node *m = &r->mapping;
    m->children = floe_calloc((size_t)r->n_read + 1, sizeof *m->children);
    if (!m->children) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "name mapping");
    r->use_mapping = true;
    for (int32_t i = 0; i < r->n_read; i++) {
        const floe_ice_field *f = r->read_fields[i];
        m->n_children = i + 1;
        FLOE_TRY(nm_of_field(&m->children[i], f->id, f->name, f->type));
    }
    return NULL;
}

/* The name mapping, when the file has no field ids at top level; without
 * schema.name-mapping.default, Java's fallback for the file's format. */
static floe_status load_mapping(floe_ice_task_reader *r) {
    if (r->src->any_field_id) return NULL;
    const char *text = r->table ? floe_ice_tm_property(r->table->md, "schema.name-mapping.default") : NULL;
    if (!text) return strcmp(r->src->vt->format, "parquet") == 0 ? fallback_mapping(r) : schema_names_mapping(r);
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    if (!j) return floe_error(FLOE_ERR_CORRUPT, "schema.name-mapping.default: %s", err.text);
    floe_status st = nm_parse(j, &r->mapping);
    json_decref(j);
    r->use_mapping = true;
    return st;
}

/* The file's top-level column serving field `id`, or -1: by its field
 * id, or through the name mapping (any of the mapped names). */
static int32_t source_column_of(const floe_ice_task_reader *r, int32_t id) {
    const floe_ice_source *src = r->src;
    if (!r->use_mapping) {
        for (int32_t k = 0; k < src->n_columns; k++)
            if (src->field_ids[k] == id) return k;
        return -1;
    }
    const nm_node *m = nm_by_id(&r->mapping, id);
    for (int32_t k = 0; m && k < src->n_columns; k++)
        for (int32_t j = 0; j < m->n_names; j++)
            if (strcmp(m->names[j], src->names[k]) == 0) return k;
    return -1;
}

static int32_t hint_column_of(void *ctx, int32_t id) { return source_column_of(ctx, id); }

/* Decide which file column serves each read field (r->src_col: its index
 * in the source's batches, -1 when the file lacks it), and start the
 * source on those columns. */
static floe_status start_source(floe_ice_task_reader *r) {
    int32_t *cols = floe_calloc((size_t)r->n_read + 1, sizeof *cols);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "task reader");
    int32_t n = 0;
    for (int32_t i = 0; i < r->n_read; i++) {
        int32_t k = source_column_of(r, r->read_fields[i]->id);
        r->src_col[i] = -1;
        if (k < 0) continue;
        for (int32_t j = 0; j < n && r->src_col[i] < 0; j++)
            if (cols[j] == k) r->src_col[i] = j; /* two fields, one column: read it once */
        if (r->src_col[i] < 0) {
            cols[n] = k;
            r->src_col[i] = n++;
        }
    }
    floe_ice_source_hints h = {0};
    h.start = r->task->start;
    h.length = r->task->length;
    h.batch_size = r->batch_size;
    h.residual = r->residual;
    h.column_of = hint_column_of;
    h.ctx = r;
    h.by_id = !r->use_mapping;
    floe_status st = r->src->vt->start(r->src, cols, n, &h);
    floe_free(cols);
    return st;
}

floe_status floe_ice_task_reader_open(const floe_ice_task_read_options *opts, const floe_ice_scan_task *task,
                                      floe_ice_task_reader **out) {
    *out = NULL;
    floe_ice_task_reader *r = floe_calloc(1, sizeof *r);
    if (!r) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "task reader");
    r->table = opts->table;
    r->schema = opts->schema;
    r->task = task;
    r->batch_size = opts->batch_size > 0 ? opts->batch_size : TASK_DEFAULT_BATCH_SIZE;
    if (r->table) r->spec = floe_ice_tm_spec(r->table->md, task->spec_id);
    const floe_ice_type *root = r->schema->root;
    int32_t n_proj = opts->field_ids ? opts->n_field_ids : root->n_fields;
    int32_t *filter_ids = NULL, n_filter = 0;
    floe_status st = NULL;
    if (task->residual && task->residual->op != FLOE_ICE_EXPR_TRUE) r->residual = task->residual;
    if (r->residual) st = floe_ice_expr_field_ids(r->residual, &filter_ids, &n_filter);
    int32_t max_read = n_proj + n_filter;
    for (int32_t i = 0; i < task->n_deletes; i++)
        if (task->deletes[i]->content == FLOE_ICE_CONTENT_EQUALITY_DELETES && task->deletes[i]->n_equality_ids > 0)
            max_read += task->deletes[i]->n_equality_ids;
    r->read_fields = floe_calloc((size_t)max_read + 1, sizeof *r->read_fields);
    r->src_col = floe_calloc((size_t)max_read + 1, sizeof *r->src_col);
    r->read_types = floe_calloc((size_t)max_read + 1, sizeof *r->read_types);
    if (!st && (!r->read_fields || !r->src_col || !r->read_types)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "task reader");
    for (int32_t i = 0; i < n_proj && !st; i++) {
        int32_t id = opts->field_ids ? opts->field_ids[i] : root->fields[i].id;
        /* Projection may repeat nothing; a second request is an error. */
        if (read_index(r, id) >= 0) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "field id %d projected twice", id);
        else st = add_read_field(r, id);
    }
    r->n_out = r->n_read;
    if (!st && n_filter) {
        r->fterms = floe_calloc((size_t)n_filter, sizeof *r->fterms);
        if (!r->fterms) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "task reader");
    }
    for (int32_t i = 0; i < n_filter && !st; i++) st = add_filter_term(r, filter_ids[i]);
    /* A predicate on a list element or map entry has no single value per
     * row: leave the whole residual to the caller rather than guess. */
    if (r->skip_residual) r->residual = NULL;
    r->vector_residual = r->residual != NULL;
    for (int32_t i = 0; i < r->n_fterms; i++)
        if (r->fterms[i].depth > 0) r->vector_residual = false;
    for (int32_t d = 0; d < task->n_deletes && !st; d++) {
        const floe_ice_scan_delete *df = task->deletes[d];
        if (df->content != FLOE_ICE_CONTENT_EQUALITY_DELETES) continue;
        for (int32_t k = 0; k < df->n_equality_ids && !st; k++) st = add_read_field(r, df->equality_ids[k]);
    }
    floe_free(filter_ids);
    for (int32_t i = 0; i < r->n_read && !st; i++) st = floe_ice_type_to_columnar(r->read_fields[i]->type, &r->read_types[i]);
    if (!st) {
        int32_t *ids = floe_calloc((size_t)r->n_out + 1, sizeof *ids);
        if (!ids) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "task reader");
        for (int32_t i = 0; ids && i < r->n_out; i++) ids[i] = r->read_fields[i]->id;
        if (!st) st = floe_ice_schema_to_columnar(r->schema, ids, r->n_out, &r->out_schema);
        floe_free(ids);
    }
    /* A Puffin file registered as data (some writers so register index
     * blobs) holds no table rows: read it as empty, as DuckDB does. */
    bool no_rows = task->format && strcasecmp(task->format, "puffin") == 0;
    if (no_rows) {
        if (st) {
            floe_ice_task_reader_close(r);
            return st;
        }
        *out = r;
        return NULL;
    }
    floe_fileio *io = NULL;
    if (!st) st = source_io(r, task->resolved_path, &io);
    if (!st) st = floe_ice_source_open(task->format, io, task->resolved_path, task->file_size_in_bytes, &r->src);
    if (!st) st = load_mapping(r);
    if (!st) st = start_source(r);
    /* Deletes. */
    for (int32_t d = 0; d < task->n_deletes && !st; d++)
        if (task->deletes[d]->content == FLOE_ICE_CONTENT_POSITION_DELETES)
            st = load_pos_deletes(r, task->deletes[d]);
    if (!st && r->posdel) {
        st = floe_ice_posdel_finish(r->posdel);
        if (!st) {
            r->del_pos = floe_ice_posdel_positions(r->posdel);
            r->n_del_pos = (size_t)floe_ice_posdel_count(r->posdel);
        }
    }
    if (!st) {
        r->eq = floe_calloc((size_t)task->n_deletes + 1, sizeof *r->eq);
        if (!r->eq) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "task reader");
    }
    for (int32_t d = 0; d < task->n_deletes && !st; d++)
        if (task->deletes[d]->content == FLOE_ICE_CONTENT_EQUALITY_DELETES)
            st = load_eq_deletes(r, task->deletes[d], &r->eq[r->n_eq++]);
    if (!st) {
        r->sel_cap = (size_t)r->batch_size;
        r->sel = floe_malloc(r->sel_cap * sizeof *r->sel);
        if (!r->sel) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "task reader");
    }
    if (st) {
        floe_ice_task_reader_close(r);
        return floe_status_wrap(st, "data file '%s'", task->resolved_path);
    }
    *out = r;
    return NULL;
}

void floe_ice_task_reader_close(floe_ice_task_reader *r) {
    if (!r) return;
    floe_ice_source_close(r->src);
    nm_free_children(&r->mapping);
    for (int32_t i = 0; i < r->n_read; i++) floe_type_release(r->read_types[i]);
    floe_free(r->read_types);
    floe_free(r->read_fields);
    floe_free(r->src_col);
    floe_type_release(r->out_schema);
    floe_ice_posdel_free(r->posdel);
    floe_fileio_free(r->own_io);
    for (int32_t i = 0; i < r->n_eq; i++) {
        for (size_t k = 0; k < r->eq[i].n_keys; k++) floe_free(r->eq[i].keys[k]);
        floe_free(r->eq[i].keys);
        floe_free(r->eq[i].ids);
        floe_free(r->eq[i].cols);
    }
    floe_free(r->eq);
    floe_free(r->fterms);
    floe_free(r->match);
    floe_free(r->sel);
    floe_free(r);
}

floe_schema *floe_ice_task_reader_schema(const floe_ice_task_reader *r) { return r->out_schema; }

void floe_ice_task_reader_stats(const floe_ice_task_reader *r, floe_ice_task_read_stats *out) {
    memset(out, 0, sizeof *out);
    if (r->src) r->src->vt->stats(r->src, out);
    out->rows_read = r->rows_read;
}

/* ------------------------------------------------------------- batches */

/* Keep rows of one batch: not position-deleted, not equality-deleted and
 * accepted by the residual.  The batch's rows are the file rows of
 * spans[0], spans[1], ... in order.  Fills r->sel, returns the count. */
static floe_status select_rows(floe_ice_task_reader *r, floe_array *const *cols, int64_t n,
                               const floe_ice_row_span *spans, int nspans, int64_t *n_sel) {
    int64_t pos0 = nspans > 0 ? spans[0].first_row : 0;
    if ((size_t)n > r->sel_cap) {
        uint32_t *ns = floe_realloc(r->sel, (size_t)n * sizeof *ns);
        if (!ns) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "task reader");
        r->sel = ns;
        r->sel_cap = (size_t)n;
    }
    /* First deleted position >= pos0. */
    size_t lo = 0, hi = r->n_del_pos;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->del_pos[mid] < pos0) lo = mid + 1; else hi = mid;
    }
    floe_ice_value vals_stack[16];
    int32_t ids_stack[16];
    floe_ice_value *vals = vals_stack;
    int32_t *ids = ids_stack;
    if (r->n_fterms > 16) {
        vals = floe_calloc((size_t)r->n_fterms, sizeof *vals);
        ids = floe_calloc((size_t)r->n_fterms, sizeof *ids);
        if (!vals || !ids) {
            floe_free(vals);
            floe_free(ids);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "task reader");
        }
    }
    floe_buf key;
    floe_buf_init(&key);
    floe_status st = NULL;
    if (r->vector_residual) {
        /* The whole batch at once; fterm i's column is cols[fterms[i].col]. */
        if (!r->match || (size_t)n > r->match_cap) {
            floe_free(r->match);
            r->match_cap = (size_t)n;
            r->match = floe_malloc(r->match_cap + 1);
            if (!r->match) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "task reader");
        }
        const floe_array *arrs_stack[16];
        const floe_ice_type *types_stack[16];
        const floe_array **arrs = arrs_stack;
        const floe_ice_type **types = types_stack;
        if (!st && r->n_fterms > 16) {
            arrs = floe_calloc((size_t)r->n_fterms, sizeof *arrs);
            types = floe_calloc((size_t)r->n_fterms, sizeof *types);
            if (!arrs || !types) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "task reader");
        }
        for (int32_t f = 0; !st && f < r->n_fterms; f++) {
            ids[f] = r->fterms[f].id;
            arrs[f] = cols[r->fterms[f].col];
            types[f] = r->fterms[f].type;
        }
        if (!st) {
            floe_ice_batch_columns bc = {r->n_fterms, ids, arrs, types};
            st = floe_ice_expr_eval_batch(r->residual, &bc, n, r->match);
        }
        if (arrs != arrs_stack) {
            floe_free(arrs);
            floe_free(types);
        }
    }
    int64_t k = 0;
    /* Row i is file row base + i while i < span_end. */
    int si = 0;
    int64_t span_end = nspans > 0 ? spans[0].num_rows : n, base = pos0;
    for (int64_t i = 0; i < n && !st; i++) {
        while (i >= span_end && si + 1 < nspans) {
            si++;
            base = spans[si].first_row - span_end;
            span_end += spans[si].num_rows;
        }
        int64_t pos = base + i;
        while (lo < r->n_del_pos && r->del_pos[lo] < pos) lo++;
        if (lo < r->n_del_pos && r->del_pos[lo] == pos) continue;
        bool deleted = false;
        for (int32_t e = 0; e < r->n_eq && !deleted && !st; e++) {
            if (!r->eq[e].n_keys) continue;
            st = row_key(cols, r->eq[e].cols, r->eq[e].n_ids, i, &key);
            if (st) break;
            if (!floe_buf_append_byte(&key, 0)) {
                char *s = (char *)key.data;
                for (size_t j = 0; j + 1 < key.len; j++) if (!s[j]) s[j] = 3;
                deleted = bsearch(&s, r->eq[e].keys, r->eq[e].n_keys, sizeof(char *), cmp_str) != NULL;
            }
        }
        if (deleted || st) continue;
        if (r->vector_residual) {
            if (!r->match[i]) continue;
        } else if (r->residual) {
            int32_t m = 0;
            for (int32_t f = 0; f < r->n_fterms; f++) {
                const filter_term *t = &r->fterms[f];
                const floe_array *a = cols[t->col];
                int64_t idx = i;
                for (int32_t l = 0; l < t->depth && a; l++) {
                    if (floe_array_is_null(a, idx)) a = NULL;
                    else {
                        idx += a->offset; /* a struct's offset applies to its children */
                        a = a->children[t->path[l]];
                    }
                }
                ids[m] = t->id;
                vals[m++] = a ? floe_ice_array_value(a, t->type, idx) : floe_ice_null(t->type->id);
            }
            floe_ice_row row = {m, ids, vals};
            if (!floe_ice_expr_eval_row(r->residual, &row)) continue;
        }
        r->sel[k++] = (uint32_t)i;
    }
    floe_buf_free(&key);
    if (vals != vals_stack) {
        floe_free(vals);
        floe_free(ids);
    }
    *n_sel = k;
    return st;
}

floe_status floe_ice_task_reader_next(floe_ice_task_reader *r, floe_batch **out) {
    *out = NULL;
    if (!r->src) return NULL;
    floe_array **cols = floe_calloc((size_t)r->n_read + 1, sizeof *cols);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "task reader");
    floe_status st = NULL;
    for (;;) {
        floe_batch *b = NULL;
        /* The file rows of this batch (a source may have skipped some). */
        const floe_ice_row_span *spans = NULL;
        int nspans = 0;
        st = r->src->vt->next(r->src, &b, &spans, &nspans);
        if (st || !b) break;
        int64_t n = b->num_rows;
        floe_ice_row_span seq = {r->next_row, n};
        if (nspans == 0) { /* a plain sequence: these rows follow the last batch's */
            spans = &seq;
            nspans = 1;
        }
        r->next_row = spans[nspans - 1].first_row + spans[nspans - 1].num_rows;
        r->rows_read += n;
        for (int32_t c = 0; c < r->n_read && !st; c++) {
            const floe_ice_field *rf = r->read_fields[c];
            if (floe_ice_metadata_field(rf->id) == rf) {
                floe_array *own = NULL; /* the file's _row_id / sequence number column */
                if (r->src_col[c] >= 0) st = promote_prim(b->columns[r->src_col[c]], r->read_types[c], &own);
                if (!st) st = metadata_array(r, rf, r->read_types[c], n, spans, nspans, own, &cols[c]);
                floe_array_release(own);
            } else if (r->src_col[c] >= 0)
                st = conform(r, b->columns[r->src_col[c]], r->use_mapping ? nm_by_id(&r->mapping, r->read_fields[c]->id) : NULL,
                             r->read_fields[c], r->read_types[c], &cols[c]);
            else
                st = missing_array(r, r->read_fields[c], r->read_types[c], n, true, &cols[c]);
        }
        floe_batch_release(b);
        int64_t k = 0;
        if (!st) st = select_rows(r, cols, n, spans, nspans, &k);
        floe_batch *full = NULL;
        if (!st) st = floe_batch_new(r->out_schema, cols, r->n_out, n, &full);
        if (!st && k == n) *out = floe_batch_retain(full);
        else if (!st && k > 0) st = floe_batch_take(full, r->sel, k, out);
        floe_batch_release(full);
        for (int32_t c = 0; c < r->n_read; c++) {
            floe_array_release(cols[c]);
            cols[c] = NULL;
        }
        if (st || *out) break;
    }
    floe_free(cols);
    return st ? floe_status_wrap(st, "data file '%s'", r->task->resolved_path) : NULL;
}

/*
 * table_metadata.c — Iceberg table metadata JSON: parse (v1, v2, v3, with
 * gzip/zstd decompression), validate, write back, and look up snapshots,
 * refs, schemas and specs.  See include/floe/iceberg_table_metadata.h.
 *
 * Strings and arrays of a metadata object live in one arena owned by it;
 * schemas, specs and sort orders are separate objects (their own free
 * functions).  Parsing walks one jansson tree; every error names the file
 * (the `name` given) and the key that is wrong.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/arena.h"
#include "base/buffer.h"
#include "base/log.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/memory.h"
#include "formats/compress.h"
#include "iceberg/spec/ice_internal.h"

struct floe_ice_tm_private {
    floe_arena arena;
    atomic_int extra_refs; /* floe_ice_table_metadata_retain()s not yet freed */
    /* A derived copy (floe_ice_tm_derive): the metadata whose schemas,
     * specs, sort orders, properties and statistics it shares, held by one
     * reference; NULL when it owns everything. */
    floe_ice_table_metadata *owner;
};

typedef struct parse_ctx {
    const char *name;                 /* for messages */
    floe_ice_table_metadata *md;
    floe_arena *a;
} parse_ctx;

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory reading table metadata"); }

static floe_status bad(const parse_ctx *c, const char *fmt, ...) FLOE_PRINTF(2, 3);
static floe_status bad(const parse_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_status st = floe_errorv(FLOE_ERR_CORRUPT, fmt, ap);
    va_end(ap);
    return floe_status_wrap(st, "table metadata '%s'", c->name);
}

static floe_status adup(parse_ctx *c, const char *s, char **out) {
    *out = NULL;
    if (!s) return NULL;
    *out = floe_arena_strdup(c->a, s);
    return *out ? NULL : oom();
}

/* ---- typed member access ------------------------------------------------- */

/* A 64-bit integer member.  Absent (or null when `null_ok`): *present = 0. */
static floe_status get_i64(parse_ctx *c, json_t *obj, const char *key, const char *where, bool required,
                           int64_t *out, bool *present) {
    json_t *j = json_object_get(obj, key);
    if (present) *present = false;
    if (!j || json_is_null(j)) {
        if (required) return bad(c, "%s: missing '%s'", where, key);
        return NULL;
    }
    if (!json_is_integer(j)) return bad(c, "%s: '%s' must be an integer", where, key);
    *out = (int64_t)json_integer_value(j);
    if (present) *present = true;
    return NULL;
}

static floe_status get_i32(parse_ctx *c, json_t *obj, const char *key, const char *where, bool required,
                           int32_t *out, bool *present) {
    int64_t v = 0;
    bool p = false;
    FLOE_TRY(get_i64(c, obj, key, where, required, &v, &p));
    if (present) *present = p;
    if (!p) return NULL;
    if (v < INT32_MIN || v > INT32_MAX) return bad(c, "%s: '%s' must be a 32-bit integer", where, key);
    *out = (int32_t)v;
    return NULL;
}

static floe_status get_str(parse_ctx *c, json_t *obj, const char *key, const char *where, bool required,
                           char **out) {
    json_t *j = json_object_get(obj, key);
    *out = NULL;
    if (!j || json_is_null(j)) {
        if (required) return bad(c, "%s: missing '%s'", where, key);
        return NULL;
    }
    if (!json_is_string(j)) return bad(c, "%s: '%s' must be a string", where, key);
    return adup(c, json_string_value(j), out);
}

/* An optional array member: NULL when absent/null; error if not an array. */
static floe_status get_array(parse_ctx *c, json_t *obj, const char *key, const char *where, json_t **out) {
    json_t *j = json_object_get(obj, key);
    *out = NULL;
    if (!j || json_is_null(j)) return NULL;
    if (!json_is_array(j)) return bad(c, "%s: '%s' must be an array", where, key);
    *out = j;
    return NULL;
}

static floe_status string_map(parse_ctx *c, json_t *obj, const char *what, floe_ice_kv **kv, int32_t *n,
                              const char *skip) {
    *kv = NULL;
    *n = 0;
    if (!obj || json_is_null(obj)) return NULL;
    if (!json_is_object(obj)) return bad(c, "'%s' must be an object", what);
    size_t cnt = json_object_size(obj);
    if (!cnt) return NULL;
    *kv = floe_arena_calloc(c->a, cnt, sizeof **kv);
    if (!*kv) return oom();
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        if (skip && strcmp(k, skip) == 0) continue;
        char numbuf[64];
        const char *text;
        /* Writers put numbers and booleans in summaries now and then; keep
         * them as their JSON text rather than rejecting the table. */
        if (json_is_string(v)) text = json_string_value(v);
        else if (json_is_integer(v)) snprintf(numbuf, sizeof numbuf, "%" PRId64, (int64_t)json_integer_value(v)), text = numbuf;
        else if (json_is_boolean(v)) text = json_is_true(v) ? "true" : "false";
        else if (json_is_real(v)) snprintf(numbuf, sizeof numbuf, "%.17g", json_real_value(v)), text = numbuf;
        else if (json_is_null(v)) continue;
        else return bad(c, "'%s': value of '%s' must be a string", what, k);
        FLOE_TRY(adup(c, k, &(*kv)[*n].key));
        FLOE_TRY(adup(c, text, &(*kv)[*n].value));
        (*n)++;
    }
    return NULL;
}

static floe_status dump_json(parse_ctx *c, json_t *j, char **out) {
    char *txt = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
    if (!txt) return oom();
    floe_status st = adup(c, txt, out);
    free(txt);
    return st;
}

/* ---- pieces -------------------------------------------------------------- */

static floe_status parse_schemas(parse_ctx *c, json_t *root) {
    floe_ice_table_metadata *md = c->md;
    json_t *arr;
    FLOE_TRY(get_array(c, root, "schemas", "metadata", &arr));
    json_t *single = json_object_get(root, "schema");
    bool has_current = false;
    FLOE_TRY(get_i32(c, root, "current-schema-id", "metadata", false, &md->current_schema_id, &has_current));
    if (arr) {
        if (!has_current) return bad(c, "'current-schema-id' is required when 'schemas' is present");
    } else {
        if (md->format_version >= 2) return bad(c, "missing 'schemas' (required in format version %d)", md->format_version);
        if (!single || json_is_null(single)) return bad(c, "missing 'schema' and 'schemas'");
    }
    json_t *list = arr;
    json_t *tmp = NULL;
    if (!list) {
        tmp = json_array();
        if (!tmp || json_array_append(tmp, single)) {
            json_decref(tmp);
            return oom();
        }
        list = tmp;
    }
    size_t n = json_array_size(list);
    floe_status st = NULL;
    md->schemas = floe_arena_calloc(c->a, n ? n : 1, sizeof *md->schemas);
    if (!md->schemas) st = oom();
    for (size_t i = 0; !st && i < n; i++) {
        json_t *js = json_array_get(list, i);
        /* Java rejects a schema whose "type" is missing; so do we. */
        if (json_is_object(js) && !json_object_get(js, "type"))
            st = bad(c, "schema %zu: missing 'type' (must be \"struct\")", i);
        if (!st) st = floe_ice_schema_from_json(js, &md->schemas[i]);
        if (st) st = floe_status_wrap(st, "table metadata '%s'", c->name);
        else md->n_schemas++;
    }
    json_decref(tmp);
    if (st) return st;
    if (!arr) md->current_schema_id = md->schemas[0]->schema_id;
    if (!floe_ice_tm_schema(md, md->current_schema_id))
        return bad(c, "current-schema-id %d is not one of the table's schemas", md->current_schema_id);
    return NULL;
}

static floe_status parse_specs(parse_ctx *c, json_t *root) {
    floe_ice_table_metadata *md = c->md;
    json_t *arr;
    FLOE_TRY(get_array(c, root, "partition-specs", "metadata", &arr));
    bool has_default = false, has_last = false;
    FLOE_TRY(get_i32(c, root, "default-spec-id", "metadata", false, &md->default_spec_id, &has_default));
    FLOE_TRY(get_i32(c, root, "last-partition-id", "metadata", false, &md->last_partition_id, &has_last));
    if (arr) {
        if (!has_default) return bad(c, "'default-spec-id' is required when 'partition-specs' is present");
        size_t n = json_array_size(arr);
        md->specs = floe_arena_calloc(c->a, n ? n : 1, sizeof *md->specs);
        if (!md->specs) return oom();
        for (size_t i = 0; i < n; i++) {
            FLOE_TRY_CTX(floe_ice_partition_spec_from_json(json_array_get(arr, i), &md->specs[i]),
                         "table metadata '%s'", c->name);
            md->n_specs++;
        }
    } else {
        if (md->format_version >= 2)
            return bad(c, "missing 'partition-specs' (required in format version %d)", md->format_version);
        json_t *fields = json_object_get(root, "partition-spec");
        if (!fields || !json_is_array(fields)) return bad(c, "missing 'partition-spec' and 'partition-specs'");
        md->specs = floe_arena_calloc(c->a, 1, sizeof *md->specs);
        if (!md->specs) return oom();
        FLOE_TRY_CTX(floe_ice_partition_fields_from_json(fields, 0, FLOE_ICE_PARTITION_DATA_ID_START, &md->specs[0]),
                     "table metadata '%s'", c->name);
        md->n_specs = 1;
        md->default_spec_id = 0;
    }
    if (!floe_ice_tm_spec(md, md->default_spec_id))
        return bad(c, "default-spec-id %d is not one of the table's partition specs", md->default_spec_id);
    if (!has_last) {
        if (md->format_version >= 2) return bad(c, "missing 'last-partition-id' (required in format version %d)", md->format_version);
        md->last_partition_id = FLOE_ICE_PARTITION_DATA_ID_START - 1;
        for (int32_t i = 0; i < md->n_specs; i++) {
            int32_t l = floe_ice_partition_spec_last_field_id(md->specs[i]);
            if (l > md->last_partition_id) md->last_partition_id = l;
        }
    }
    return NULL;
}

static floe_status parse_sort_orders(parse_ctx *c, json_t *root) {
    floe_ice_table_metadata *md = c->md;
    json_t *arr;
    FLOE_TRY(get_array(c, root, "sort-orders", "metadata", &arr));
    bool has_default = false;
    FLOE_TRY(get_i32(c, root, "default-sort-order-id", "metadata", false, &md->default_sort_order_id, &has_default));
    if (!arr) {
        if (md->format_version >= 2) return bad(c, "missing 'sort-orders' (required in format version %d)", md->format_version);
        md->sort_orders = floe_arena_calloc(c->a, 1, sizeof *md->sort_orders);
        if (!md->sort_orders) return oom();
        FLOE_TRY(floe_ice_sort_order_new(0, &md->sort_orders[0]));
        md->n_sort_orders = 1;
        md->default_sort_order_id = 0;
        return NULL;
    }
    if (!has_default) return bad(c, "'default-sort-order-id' is required when 'sort-orders' is present");
    size_t n = json_array_size(arr);
    md->sort_orders = floe_arena_calloc(c->a, n ? n : 1, sizeof *md->sort_orders);
    if (!md->sort_orders) return oom();
    for (size_t i = 0; i < n; i++) {
        FLOE_TRY_CTX(floe_ice_sort_order_from_json(json_array_get(arr, i), &md->sort_orders[i]),
                     "table metadata '%s'", c->name);
        md->n_sort_orders++;
    }
    if (!floe_ice_tm_sort_order(md, md->default_sort_order_id))
        return bad(c, "default-sort-order-id %d is not one of the table's sort orders", md->default_sort_order_id);
    return NULL;
}

static floe_status parse_snapshot(parse_ctx *c, json_t *js, size_t idx, floe_ice_snapshot *s) {
    char where[64];
    snprintf(where, sizeof where, "snapshot %zu", idx);
    if (!json_is_object(js)) return bad(c, "%s: not an object", where);
    bool p;
    FLOE_TRY(get_i64(c, js, "snapshot-id", where, true, &s->snapshot_id, NULL));
    snprintf(where, sizeof where, "snapshot %" PRId64, s->snapshot_id);
    s->parent_snapshot_id = FLOE_ICE_NO_SNAPSHOT;
    FLOE_TRY(get_i64(c, js, "parent-snapshot-id", where, false, &s->parent_snapshot_id, NULL));
    FLOE_TRY(get_i64(c, js, "sequence-number", where, false, &s->sequence_number, NULL));
    FLOE_TRY(get_i64(c, js, "timestamp-ms", where, true, &s->timestamp_ms, NULL));
    FLOE_TRY(get_str(c, js, "manifest-list", where, false, &s->manifest_list));
    json_t *mans;
    FLOE_TRY(get_array(c, js, "manifests", where, &mans));
    if (!s->manifest_list) {
        if (!mans) return bad(c, "%s: missing 'manifest-list'", where);
        if (c->md->format_version >= 2) return bad(c, "%s: missing 'manifest-list' (required in format version %d)", where, c->md->format_version);
        size_t n = json_array_size(mans);
        s->manifests = floe_arena_calloc(c->a, n ? n : 1, sizeof *s->manifests);
        if (!s->manifests) return oom();
        for (size_t i = 0; i < n; i++) {
            json_t *m = json_array_get(mans, i);
            if (!json_is_string(m)) return bad(c, "%s: 'manifests' must hold strings", where);
            FLOE_TRY(adup(c, json_string_value(m), &s->manifests[i]));
        }
        s->n_manifests = (int32_t)n;
    }
    json_t *sum = json_object_get(js, "summary");
    if (sum && !json_is_null(sum)) {
        if (!json_is_object(sum)) return bad(c, "%s: 'summary' must be an object", where);
        s->has_summary = true;
        FLOE_TRY(get_str(c, sum, "operation", where, false, &s->operation));
        FLOE_TRY(string_map(c, sum, "summary", &s->summary, &s->n_summary, "operation"));
    }
    FLOE_TRY(get_i32(c, js, "schema-id", where, false, &s->schema_id, &p));
    s->has_schema_id = p;
    FLOE_TRY(get_i64(c, js, "first-row-id", where, false, &s->first_row_id, &p));
    s->has_first_row_id = p;
    FLOE_TRY(get_i64(c, js, "added-rows", where, false, &s->added_rows, &p));
    s->has_added_rows = p;
    FLOE_TRY(get_str(c, js, "key-id", where, false, &s->key_id));
    return NULL;
}

static floe_status parse_snapshots(parse_ctx *c, json_t *root) {
    floe_ice_table_metadata *md = c->md;
    json_t *arr;
    FLOE_TRY(get_array(c, root, "snapshots", "metadata", &arr));
    size_t n = arr ? json_array_size(arr) : 0;
    if (n) {
        md->snapshots = floe_arena_calloc(c->a, n, sizeof *md->snapshots);
        if (!md->snapshots) return oom();
    }
    for (size_t i = 0; i < n; i++) {
        FLOE_TRY(parse_snapshot(c, json_array_get(arr, i), i, &md->snapshots[i]));
        md->n_snapshots++;
    }
    md->current_snapshot_id = FLOE_ICE_NO_SNAPSHOT;
    FLOE_TRY(get_i64(c, root, "current-snapshot-id", "metadata", false, &md->current_snapshot_id, NULL));
    if (md->current_snapshot_id != FLOE_ICE_NO_SNAPSHOT && !floe_ice_tm_snapshot(md, md->current_snapshot_id))
        return bad(c, "current-snapshot-id %" PRId64 " is not one of the table's snapshots", md->current_snapshot_id);
    return NULL;
}

static floe_status parse_log(parse_ctx *c, json_t *root, const char *key, const char *file_key,
                             floe_ice_log_entry **out, int32_t *n_out) {
    json_t *arr;
    FLOE_TRY(get_array(c, root, key, "metadata", &arr));
    size_t n = arr ? json_array_size(arr) : 0;
    if (!n) return NULL;
    *out = floe_arena_calloc(c->a, n, sizeof **out);
    if (!*out) return oom();
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(arr, i);
        char where[64];
        snprintf(where, sizeof where, "%s entry %zu", key, i);
        if (!json_is_object(e)) return bad(c, "%s: not an object", where);
        floe_ice_log_entry *le = &(*out)[i];
        FLOE_TRY(get_i64(c, e, "timestamp-ms", where, true, &le->timestamp_ms, NULL));
        if (file_key) FLOE_TRY(get_str(c, e, file_key, where, true, &le->file));
        else FLOE_TRY(get_i64(c, e, "snapshot-id", where, true, &le->snapshot_id, NULL));
    }
    *n_out = (int32_t)n;
    return NULL;
}

static floe_status parse_refs(parse_ctx *c, json_t *root) {
    floe_ice_table_metadata *md = c->md;
    json_t *refs = json_object_get(root, "refs");
    if (!refs || json_is_null(refs)) {
        /* Older writers record only current-snapshot-id; "main" is implied. */
        md->refs_implied = true;
        if (md->current_snapshot_id == FLOE_ICE_NO_SNAPSHOT) return NULL;
        md->refs = floe_arena_calloc(c->a, 1, sizeof *md->refs);
        if (!md->refs) return oom();
        FLOE_TRY(adup(c, "main", &md->refs[0].name));
        md->refs[0].snapshot_id = md->current_snapshot_id;
        md->refs[0].max_ref_age_ms = md->refs[0].max_snapshot_age_ms = -1;
        md->refs[0].min_snapshots_to_keep = -1;
        md->n_refs = 1;
        return NULL;
    }
    if (!json_is_object(refs)) return bad(c, "'refs' must be an object");
    size_t n = json_object_size(refs);
    if (!n) return NULL;
    md->refs = floe_arena_calloc(c->a, n, sizeof *md->refs);
    if (!md->refs) return oom();
    const char *name;
    json_t *r;
    json_object_foreach(refs, name, r) {
        char where[160];
        snprintf(where, sizeof where, "ref '%.100s'", name);
        if (!json_is_object(r)) return bad(c, "%s: not an object", where);
        floe_ice_snapshot_ref *ref = &md->refs[md->n_refs];
        FLOE_TRY(adup(c, name, &ref->name));
        FLOE_TRY(get_i64(c, r, "snapshot-id", where, true, &ref->snapshot_id, NULL));
        char *type = NULL;
        FLOE_TRY(get_str(c, r, "type", where, true, &type));
        if (strcmp(type, "tag") == 0) ref->is_tag = true;
        else if (strcmp(type, "branch") != 0) return bad(c, "%s: unknown type '%s'", where, type);
        ref->max_ref_age_ms = ref->max_snapshot_age_ms = -1;
        ref->min_snapshots_to_keep = -1;
        FLOE_TRY(get_i64(c, r, "max-ref-age-ms", where, false, &ref->max_ref_age_ms, NULL));
        FLOE_TRY(get_i64(c, r, "max-snapshot-age-ms", where, false, &ref->max_snapshot_age_ms, NULL));
        FLOE_TRY(get_i32(c, r, "min-snapshots-to-keep", where, false, &ref->min_snapshots_to_keep, NULL));
        md->n_refs++;
    }
    return NULL;
}

static floe_status parse_stats(parse_ctx *c, json_t *root, const char *key, bool partition,
                               floe_ice_statistics_file **out, int32_t *n_out) {
    json_t *arr;
    FLOE_TRY(get_array(c, root, key, "metadata", &arr));
    size_t n = arr ? json_array_size(arr) : 0;
    if (!n) return NULL;
    *out = floe_arena_calloc(c->a, n, sizeof **out);
    if (!*out) return oom();
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(arr, i);
        char where[64];
        snprintf(where, sizeof where, "%s entry %zu", key, i);
        if (!json_is_object(e)) return bad(c, "%s: not an object", where);
        floe_ice_statistics_file *sf = &(*out)[i];
        FLOE_TRY(get_i64(c, e, "snapshot-id", where, true, &sf->snapshot_id, NULL));
        FLOE_TRY(get_str(c, e, "statistics-path", where, true, &sf->path));
        FLOE_TRY(get_i64(c, e, "file-size-in-bytes", where, true, &sf->file_size_in_bytes, NULL));
        sf->file_footer_size_in_bytes = -1;
        if (!partition) {
            FLOE_TRY(get_i64(c, e, "file-footer-size-in-bytes", where, true, &sf->file_footer_size_in_bytes, NULL));
            FLOE_TRY(get_str(c, e, "key-metadata", where, false, &sf->key_metadata));
            json_t *bm;
            FLOE_TRY(get_array(c, e, "blob-metadata", where, &bm));
            if (!bm) return bad(c, "%s: missing 'blob-metadata'", where);
            FLOE_TRY(dump_json(c, bm, &sf->blob_metadata_json));
        }
    }
    *n_out = (int32_t)n;
    return NULL;
}

static floe_status parse_root(parse_ctx *c, json_t *root) {
    floe_ice_table_metadata *md = c->md;
    if (!json_is_object(root)) return bad(c, "not a JSON object");
    int32_t fv = 0;
    FLOE_TRY(get_i32(c, root, "format-version", "metadata", true, &fv, NULL));
    if (fv < 1 || fv > FLOE_ICE_MAX_FORMAT_VERSION)
        return floe_error(FLOE_ERR_UNSUPPORTED, "table metadata '%s': unsupported format-version %d (floe reads 1 to %d)",
                          c->name, fv, FLOE_ICE_MAX_FORMAT_VERSION);
    md->format_version = fv;
    FLOE_TRY(get_str(c, root, "table-uuid", "metadata", fv >= 2, &md->table_uuid));
    FLOE_TRY(get_str(c, root, "location", "metadata", true, &md->location));
    FLOE_TRY(get_i64(c, root, "last-sequence-number", "metadata", fv >= 2, &md->last_sequence_number, NULL));
    FLOE_TRY(get_i64(c, root, "last-updated-ms", "metadata", true, &md->last_updated_ms, NULL));
    FLOE_TRY(get_i32(c, root, "last-column-id", "metadata", true, &md->last_column_id, NULL));
    FLOE_TRY(parse_schemas(c, root));
    FLOE_TRY(parse_specs(c, root));
    FLOE_TRY(parse_sort_orders(c, root));
    FLOE_TRY(string_map(c, json_object_get(root, "properties"), "properties", &md->properties, &md->n_properties, NULL));
    FLOE_TRY(parse_snapshots(c, root));
    FLOE_TRY(parse_log(c, root, "snapshot-log", NULL, &md->snapshot_log, &md->n_snapshot_log));
    FLOE_TRY(parse_log(c, root, "metadata-log", "metadata-file", &md->metadata_log, &md->n_metadata_log));
    FLOE_TRY(parse_refs(c, root));
    FLOE_TRY(parse_stats(c, root, "statistics", false, &md->statistics, &md->n_statistics));
    FLOE_TRY(parse_stats(c, root, "partition-statistics", true, &md->partition_statistics, &md->n_partition_statistics));
    bool p = false;
    FLOE_TRY(get_i64(c, root, "next-row-id", "metadata", false, &md->next_row_id, &p));
    md->has_next_row_id = p;
    json_t *keys = json_object_get(root, "encryption-keys");
    if (keys && !json_is_null(keys)) {
        if (!json_is_array(keys)) return bad(c, "'encryption-keys' must be an array");
        FLOE_TRY(dump_json(c, keys, &md->encryption_keys_json));
    }
    return NULL;
}

/* Rewrite integers beyond 64 bits as their low 64 bits, two's complement
 * (what Iceberg Java's Jackson asLong() reads them as).  Some writers put
 * snapshot ids such as 9876543210123456789 into metadata; jansson rejects
 * them outright. */
static floe_status wrap_big_ints(const char *s, size_t len, floe_buf *out) {
    bool in_str = false;
    for (size_t i = 0; i < len;) {
        char ch = s[i];
        if (in_str) {
            if (ch == '\\' && i + 1 < len) {
                FLOE_TRY(floe_buf_append(out, s + i, 2));
                i += 2;
                continue;
            }
            if (ch == '"') in_str = false;
            FLOE_TRY(floe_buf_append_byte(out, (uint8_t)ch));
            i++;
            continue;
        }
        if (ch == '"') in_str = true;
        bool neg = ch == '-' && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9';
        if (!neg && !(ch >= '0' && ch <= '9')) {
            FLOE_TRY(floe_buf_append_byte(out, (uint8_t)ch));
            i++;
            continue;
        }
        size_t b = neg ? i + 1 : i, e = b;
        uint64_t v = 0;
        while (e < len && s[e] >= '0' && s[e] <= '9') v = v * 10 + (uint64_t)(s[e++] - '0');
        bool is_int = !(e < len && (s[e] == '.' || s[e] == 'e' || s[e] == 'E'));
        if (is_int && e - b >= 19) {
            uint64_t u = neg ? (uint64_t)0 - v : v;
            FLOE_TRY(floe_buf_printf(out, "%" PRId64, (int64_t)u));
        } else {
            FLOE_TRY(floe_buf_append(out, s + i, e - i));
        }
        i = e;
    }
    return NULL;
}

floe_status floe_ice_table_metadata_parse(const char *json, size_t len, const char *name,
                                          floe_ice_table_metadata **out) {
    *out = NULL;
    if (!name) name = "(memory)";
    /* FLOE_LOG=debug shows every parse: tests count them per statement. */
    FLOE_LOG_DEBUG("metadata", "parse %s (%zu bytes)", name, len);
    json_error_t err;
    json_t *root = json_loadb(json, len, JSON_DECODE_ANY, &err);
    if (!root && strstr(err.text, "too big integer")) {
        floe_buf b = FLOE_BUF_INIT;
        floe_status st = wrap_big_ints(json, len, &b);
        if (st) {
            floe_buf_free(&b);
            return st;
        }
        root = json_loadb(floe_buf_cstr(&b), b.len, JSON_DECODE_ANY, &err);
        floe_buf_free(&b);
    }
    if (!root)
        return floe_error(FLOE_ERR_CORRUPT, "table metadata '%s': invalid JSON at line %d column %d: %s", name,
                          err.line, err.column, err.text);
    floe_ice_table_metadata *md = floe_calloc(1, sizeof *md);
    struct floe_ice_tm_private *priv = floe_calloc(1, sizeof *priv);
    if (!md || !priv) {
        floe_free(md);
        floe_free(priv);
        json_decref(root);
        return oom();
    }
    md->priv = priv;
    floe_arena_init(&priv->arena, 16 * 1024);
    parse_ctx c = {name, md, &priv->arena};
    floe_status st = parse_root(&c, root);
    json_decref(root);
    if (st) {
        floe_ice_table_metadata_free(md);
        return st;
    }
    *out = md;
    return NULL;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

floe_status floe_ice_table_metadata_parse_bytes(const uint8_t *data, size_t len, const char *name,
                                                floe_ice_table_metadata **out) {
    *out = NULL;
    if (!name) name = "(memory)";
    floe_codec codec = FLOE_CODEC_NONE;
    if (len >= 2 && data[0] == 0x1f && data[1] == 0x8b) codec = FLOE_CODEC_GZIP;
    else if (len >= 4 && data[0] == 0x28 && data[1] == 0xb5 && data[2] == 0x2f && data[3] == 0xfd) codec = FLOE_CODEC_ZSTD;
    else if (ends_with(name, ".gz.metadata.json"))
        return floe_error(FLOE_ERR_CORRUPT, "table metadata '%s': named as gzip but not gzip data", name);
    if (codec == FLOE_CODEC_NONE) return floe_ice_table_metadata_parse((const char *)data, len, name, out);
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_decompress_grow(codec, data, len, &b);
    if (st) {
        floe_buf_free(&b);
        return floe_status_wrap(st, "table metadata '%s'", name);
    }
    st = floe_ice_table_metadata_parse((const char *)floe_buf_cstr(&b), b.len, name, out);
    floe_buf_free(&b);
    return st;
}

floe_status floe_ice_table_metadata_read(floe_fileio *io, const char *location, floe_ice_table_metadata **out) {
    *out = NULL;
    floe_input *in = NULL;
    FLOE_TRY(io ? floe_fileio_open_input(io, location, &in) : floe_input_open_local(location, &in));
    uint8_t *data = NULL;
    size_t len = 0;
    floe_status st = floe_input_read_all(in, &data, &len);
    floe_input_close(in);
    if (st) return st;
    st = floe_ice_table_metadata_parse_bytes(data, len, location, out);
    floe_free(data);
    return st;
}

floe_ice_table_metadata *floe_ice_table_metadata_retain(floe_ice_table_metadata *md) {
    if (!md || !md->priv) return NULL;
    atomic_fetch_add(&md->priv->extra_refs, 1);
    return md;
}

void floe_ice_table_metadata_free(floe_ice_table_metadata *md) {
    if (!md) return;
    if (md->priv) {
        /* a shared copy: the last holder frees it */
        int refs = atomic_load(&md->priv->extra_refs);
        while (refs > 0)
            if (atomic_compare_exchange_weak(&md->priv->extra_refs, &refs, refs - 1)) return;
        if (md->priv->owner) { /* the shared parts are the owner's */
            floe_ice_table_metadata_free(md->priv->owner);
            floe_arena_destroy(&md->priv->arena);
            floe_free(md->priv);
            floe_free(md);
            return;
        }
    }
    for (int32_t i = 0; i < md->n_schemas; i++) floe_ice_schema_free(md->schemas[i]);
    for (int32_t i = 0; i < md->n_specs; i++) floe_ice_partition_spec_free(md->specs[i]);
    for (int32_t i = 0; i < md->n_sort_orders; i++) floe_ice_sort_order_free(md->sort_orders[i]);
    if (md->priv) {
        floe_arena_destroy(&md->priv->arena);
        floe_free(md->priv);
    }
    floe_free(md);
}

/* ---- derived copies --------------------------------------------------------- */

/* The lists a commit changes are copied entry by entry, strings included,
 * so a copy of a copy never points into the middle copy's arena; the rest
 * is shared with the one owner, so a chain of commits in one session
 * keeps at most two metadata objects alive. */
static floe_ice_snapshot *copy_snapshots(floe_arena *a, const floe_ice_snapshot *src, int32_t n) {
    floe_ice_snapshot *out = floe_arena_calloc(a, (size_t)n + 1, sizeof *out);
    for (int32_t i = 0; out && i < n; i++) {
        floe_ice_snapshot *d = &out[i];
        const floe_ice_snapshot *s = &src[i];
        *d = *s;
        bool bad = false;
        if (s->manifest_list) bad |= !(d->manifest_list = floe_arena_strdup(a, s->manifest_list));
        if (s->operation) bad |= !(d->operation = floe_arena_strdup(a, s->operation));
        if (s->key_id) bad |= !(d->key_id = floe_arena_strdup(a, s->key_id));
        if (s->n_manifests) {
            d->manifests = floe_arena_calloc(a, (size_t)s->n_manifests, sizeof *d->manifests);
            bad |= !d->manifests;
            for (int32_t j = 0; !bad && j < s->n_manifests; j++)
                bad |= !(d->manifests[j] = floe_arena_strdup(a, s->manifests[j]));
        }
        if (s->n_summary) {
            d->summary = floe_arena_calloc(a, (size_t)s->n_summary, sizeof *d->summary);
            bad |= !d->summary;
            for (int32_t j = 0; !bad && j < s->n_summary; j++) {
                d->summary[j].key = floe_arena_strdup(a, s->summary[j].key);
                d->summary[j].value = floe_arena_strdup(a, s->summary[j].value);
                bad |= !d->summary[j].key || !d->summary[j].value;
            }
        }
        if (bad) return NULL;
    }
    return out;
}

static floe_ice_log_entry *copy_log(floe_arena *a, const floe_ice_log_entry *src, int32_t n) {
    floe_ice_log_entry *out = floe_arena_calloc(a, (size_t)n + 1, sizeof *out);
    for (int32_t i = 0; out && i < n; i++) {
        out[i] = src[i];
        if (src[i].file && !(out[i].file = floe_arena_strdup(a, src[i].file))) return NULL;
    }
    return out;
}

floe_status floe_ice_tm_derive(const floe_ice_table_metadata *base, floe_ice_table_metadata **out) {
    *out = NULL;
    if (!base->priv) { /* made by hand: a parsed copy becomes the owner */
        char *txt = NULL;
        floe_ice_table_metadata *parsed = NULL;
        floe_status st = floe_ice_table_metadata_to_json(base, 0, &txt);
        if (!st) st = floe_ice_table_metadata_parse(txt, strlen(txt), "metadata to change", &parsed);
        floe_free(txt);
        if (!st) st = floe_ice_tm_derive(parsed, out);
        floe_ice_table_metadata_free(parsed);
        return st;
    }
    floe_ice_table_metadata *md = floe_calloc(1, sizeof *md);
    struct floe_ice_tm_private *priv = floe_calloc(1, sizeof *priv);
    if (!md || !priv) {
        floe_free(md);
        floe_free(priv);
        return oom();
    }
    *md = *base;
    md->priv = priv;
    floe_arena_init(&priv->arena, 16 * 1024);
    floe_ice_table_metadata *owner = base->priv->owner ? base->priv->owner : (floe_ice_table_metadata *)base;
    priv->owner = floe_ice_table_metadata_retain(owner);
    floe_arena *a = &priv->arena;
    md->snapshots = copy_snapshots(a, base->snapshots, base->n_snapshots);
    md->snapshot_log = copy_log(a, base->snapshot_log, base->n_snapshot_log);
    md->metadata_log = copy_log(a, base->metadata_log, base->n_metadata_log);
    md->refs = floe_arena_calloc(a, (size_t)base->n_refs + 1, sizeof *md->refs);
    bool bad = !md->snapshots || !md->snapshot_log || !md->metadata_log || !md->refs;
    for (int32_t i = 0; !bad && i < base->n_refs; i++) {
        md->refs[i] = base->refs[i];
        bad |= !(md->refs[i].name = floe_arena_strdup(a, base->refs[i].name));
    }
    if (bad) {
        floe_ice_table_metadata_free(md);
        return oom();
    }
    *out = md;
    return NULL;
}

char *floe_ice_tm_derived_strdup(floe_ice_table_metadata *md, const char *s) {
    return md->priv && md->priv->owner ? floe_arena_strdup(&md->priv->arena, s) : NULL;
}

void *floe_ice_tm_derived_alloc(floe_ice_table_metadata *md, size_t size) {
    return md->priv && md->priv->owner ? floe_arena_calloc(&md->priv->arena, 1, size) : NULL;
}

/* ---- lookups ------------------------------------------------------------- */

const floe_ice_schema *floe_ice_tm_schema(const floe_ice_table_metadata *md, int32_t id) {
    for (int32_t i = 0; i < md->n_schemas; i++)
        if (md->schemas[i]->schema_id == id) return md->schemas[i];
    return NULL;
}
const floe_ice_schema *floe_ice_tm_current_schema(const floe_ice_table_metadata *md) {
    return floe_ice_tm_schema(md, md->current_schema_id);
}
const floe_ice_partition_spec *floe_ice_tm_spec(const floe_ice_table_metadata *md, int32_t id) {
    for (int32_t i = 0; i < md->n_specs; i++)
        if (md->specs[i]->spec_id == id) return md->specs[i];
    return NULL;
}
const floe_ice_partition_spec *floe_ice_tm_default_spec(const floe_ice_table_metadata *md) {
    return floe_ice_tm_spec(md, md->default_spec_id);
}
const floe_ice_sort_order *floe_ice_tm_sort_order(const floe_ice_table_metadata *md, int32_t id) {
    for (int32_t i = 0; i < md->n_sort_orders; i++)
        if (md->sort_orders[i]->order_id == id) return md->sort_orders[i];
    return NULL;
}
const char *floe_ice_tm_property(const floe_ice_table_metadata *md, const char *key) {
    for (int32_t i = 0; i < md->n_properties; i++)
        if (strcmp(md->properties[i].key, key) == 0) return md->properties[i].value;
    return NULL;
}
const floe_ice_snapshot *floe_ice_tm_snapshot(const floe_ice_table_metadata *md, int64_t id) {
    for (int32_t i = 0; i < md->n_snapshots; i++)
        if (md->snapshots[i].snapshot_id == id) return &md->snapshots[i];
    return NULL;
}
const floe_ice_snapshot *floe_ice_tm_current_snapshot(const floe_ice_table_metadata *md) {
    if (md->current_snapshot_id == FLOE_ICE_NO_SNAPSHOT) return NULL;
    return floe_ice_tm_snapshot(md, md->current_snapshot_id);
}
const floe_ice_snapshot_ref *floe_ice_tm_ref(const floe_ice_table_metadata *md, const char *name) {
    for (int32_t i = 0; i < md->n_refs; i++)
        if (strcmp(md->refs[i].name, name) == 0) return &md->refs[i];
    return NULL;
}
floe_status floe_ice_tm_snapshot_by_ref(const floe_ice_table_metadata *md, const char *name,
                                        const floe_ice_snapshot **out) {
    *out = NULL;
    const floe_ice_snapshot_ref *r = floe_ice_tm_ref(md, name);
    if (!r) return floe_error(FLOE_ERR_NOT_FOUND, "no branch or tag named '%s'", name);
    *out = floe_ice_tm_snapshot(md, r->snapshot_id);
    if (!*out)
        return floe_error(FLOE_ERR_NOT_FOUND, "%s '%s' points to snapshot %" PRId64 ", which is not in the metadata",
                          r->is_tag ? "tag" : "branch", name, r->snapshot_id);
    return NULL;
}
floe_status floe_ice_tm_snapshot_as_of(const floe_ice_table_metadata *md, int64_t ts, const floe_ice_snapshot **out) {
    *out = NULL;
    int64_t id = FLOE_ICE_NO_SNAPSHOT;
    for (int32_t i = 0; i < md->n_snapshot_log; i++)
        if (md->snapshot_log[i].timestamp_ms <= ts) id = md->snapshot_log[i].snapshot_id;
    if (id == FLOE_ICE_NO_SNAPSHOT)
        return floe_error(FLOE_ERR_NOT_FOUND, "the table has no snapshot at or before %" PRId64 " ms", ts);
    *out = floe_ice_tm_snapshot(md, id);
    if (!*out)
        return floe_error(FLOE_ERR_NOT_FOUND, "snapshot %" PRId64 " (current at %" PRId64 " ms) has expired", id, ts);
    return NULL;
}
const floe_ice_schema *floe_ice_tm_snapshot_schema(const floe_ice_table_metadata *md, const floe_ice_snapshot *s) {
    const floe_ice_schema *sc = s && s->has_schema_id ? floe_ice_tm_schema(md, s->schema_id) : NULL;
    return sc ? sc : floe_ice_tm_current_schema(md);
}

/* ---- writing --------------------------------------------------------------- */

/* json_object_set_new that reports failure (and tolerates a NULL value as
 * an allocation failure). */
static int put(json_t *o, const char *k, json_t *v) { return v ? json_object_set_new(o, k, v) : -1; }

static json_t *kv_object(const floe_ice_kv *kv, int32_t n, const char *first_key, const char *first_val) {
    json_t *o = json_object();
    if (!o) return NULL;
    if (first_key && first_val && put(o, first_key, json_string(first_val))) goto fail;
    for (int32_t i = 0; i < n; i++)
        if (put(o, kv[i].key, json_string(kv[i].value))) goto fail;
    return o;
fail:
    json_decref(o);
    return NULL;
}

static json_t *snapshot_json(const floe_ice_table_metadata *md, const floe_ice_snapshot *s) {
    json_t *o = json_object();
    if (!o) return NULL;
    int e = put(o, "snapshot-id", json_integer(s->snapshot_id));
    if (s->parent_snapshot_id != FLOE_ICE_NO_SNAPSHOT) e |= put(o, "parent-snapshot-id", json_integer(s->parent_snapshot_id));
    if (md->format_version >= 2) e |= put(o, "sequence-number", json_integer(s->sequence_number));
    e |= put(o, "timestamp-ms", json_integer(s->timestamp_ms));
    if (s->has_summary) e |= put(o, "summary", kv_object(s->summary, s->n_summary, "operation", s->operation));
    if (s->manifest_list) e |= put(o, "manifest-list", json_string(s->manifest_list));
    else {
        json_t *a = json_array();
        e |= put(o, "manifests", a);
        for (int32_t i = 0; a && i < s->n_manifests; i++) e |= json_array_append_new(a, json_string(s->manifests[i]));
    }
    if (s->has_schema_id) e |= put(o, "schema-id", json_integer(s->schema_id));
    if (s->has_first_row_id) e |= put(o, "first-row-id", json_integer(s->first_row_id));
    if (s->has_added_rows) e |= put(o, "added-rows", json_integer(s->added_rows));
    if (s->key_id) e |= put(o, "key-id", json_string(s->key_id));
    if (e) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *parse_kept(const char *text) { return text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL; }

/* The snapshot list as compact JSON text, written directly: the list grows
 * by one entry per commit, and building it as a jansson tree first made
 * every commit of a long-lived table pay for the whole history twice.
 * Same text as json_dumps(JSON_COMPACT) of snapshot_json's objects. */
#define SNAPSHOTS_MARKER "\001floe:snapshots\001"
#define SNAPSHOTS_MARKER_JSON "\"\\u0001floe:snapshots\\u0001\""

static floe_status text_string(floe_buf *b, const char *s) {
    FLOE_TRY(floe_buf_append_byte(b, '"'));
    const unsigned char *p = (const unsigned char *)s;
    for (;;) {
        const unsigned char *run = p; /* bytes that need no escape go as one run */
        while (*p >= 0x20 && *p != '"' && *p != '\\') p++;
        if (p > run) FLOE_TRY(floe_buf_append(b, run, (size_t)(p - run)));
        if (!*p) break;
        switch (*p) {
        case '"': FLOE_TRY(floe_buf_append_str(b, "\\\"")); break;
        case '\\': FLOE_TRY(floe_buf_append_str(b, "\\\\")); break;
        case '\b': FLOE_TRY(floe_buf_append_str(b, "\\b")); break;
        case '\f': FLOE_TRY(floe_buf_append_str(b, "\\f")); break;
        case '\n': FLOE_TRY(floe_buf_append_str(b, "\\n")); break;
        case '\r': FLOE_TRY(floe_buf_append_str(b, "\\r")); break;
        case '\t': FLOE_TRY(floe_buf_append_str(b, "\\t")); break;
        default: FLOE_TRY(floe_buf_printf(b, "\\u%04X", *p));
        }
        p++;
    }
    return floe_buf_append_byte(b, '"');
}

static floe_status text_key(floe_buf *b, bool *first, const char *key) {
    if (!*first) FLOE_TRY(floe_buf_append_byte(b, ','));
    *first = false;
    FLOE_TRY(text_string(b, key));
    return floe_buf_append_byte(b, ':');
}

static floe_status text_int(floe_buf *b, bool *first, const char *key, int64_t v) {
    FLOE_TRY(text_key(b, first, key));
    return floe_buf_printf(b, "%" PRId64, v);
}

static floe_status snapshots_text(const floe_ice_table_metadata *md, floe_buf *b) {
    FLOE_TRY(floe_buf_append_byte(b, '['));
    for (int32_t i = 0; i < md->n_snapshots; i++) {
        const floe_ice_snapshot *s = &md->snapshots[i];
        bool first = true;
        FLOE_TRY(floe_buf_append_str(b, i ? ",{" : "{"));
        FLOE_TRY(text_int(b, &first, "snapshot-id", s->snapshot_id));
        if (s->parent_snapshot_id != FLOE_ICE_NO_SNAPSHOT)
            FLOE_TRY(text_int(b, &first, "parent-snapshot-id", s->parent_snapshot_id));
        if (md->format_version >= 2) FLOE_TRY(text_int(b, &first, "sequence-number", s->sequence_number));
        FLOE_TRY(text_int(b, &first, "timestamp-ms", s->timestamp_ms));
        if (s->has_summary) {
            bool in = true;
            FLOE_TRY(text_key(b, &first, "summary"));
            FLOE_TRY(floe_buf_append_byte(b, '{'));
            if (s->operation) {
                FLOE_TRY(text_key(b, &in, "operation"));
                FLOE_TRY(text_string(b, s->operation));
            }
            for (int32_t k = 0; k < s->n_summary; k++) {
                FLOE_TRY(text_key(b, &in, s->summary[k].key));
                FLOE_TRY(text_string(b, s->summary[k].value));
            }
            FLOE_TRY(floe_buf_append_byte(b, '}'));
        }
        if (s->manifest_list) {
            FLOE_TRY(text_key(b, &first, "manifest-list"));
            FLOE_TRY(text_string(b, s->manifest_list));
        } else {
            FLOE_TRY(text_key(b, &first, "manifests"));
            FLOE_TRY(floe_buf_append_byte(b, '['));
            for (int32_t k = 0; k < s->n_manifests; k++) {
                if (k) FLOE_TRY(floe_buf_append_byte(b, ','));
                FLOE_TRY(text_string(b, s->manifests[k]));
            }
            FLOE_TRY(floe_buf_append_byte(b, ']'));
        }
        if (s->has_schema_id) FLOE_TRY(text_int(b, &first, "schema-id", s->schema_id));
        if (s->has_first_row_id) FLOE_TRY(text_int(b, &first, "first-row-id", s->first_row_id));
        if (s->has_added_rows) FLOE_TRY(text_int(b, &first, "added-rows", s->added_rows));
        if (s->key_id) {
            FLOE_TRY(text_key(b, &first, "key-id"));
            FLOE_TRY(text_string(b, s->key_id));
        }
        FLOE_TRY(floe_buf_append_byte(b, '}'));
    }
    return floe_buf_append_byte(b, ']');
}

/* compact_snapshots: "snapshots" holds SNAPSHOTS_MARKER, for the caller to
 * replace with snapshots_text. */
static floe_status build_json(const floe_ice_table_metadata *md, json_t *o, bool compact_snapshots) {
    int e = 0;
    int fv = md->format_version;
    e |= put(o, "format-version", json_integer(fv));
    if (md->table_uuid) e |= put(o, "table-uuid", json_string(md->table_uuid));
    e |= put(o, "location", json_string(md->location));
    if (fv >= 2) e |= put(o, "last-sequence-number", json_integer(md->last_sequence_number));
    e |= put(o, "last-updated-ms", json_integer(md->last_updated_ms));
    e |= put(o, "last-column-id", json_integer(md->last_column_id));
    if (e) return oom();
    json_t *j = NULL;
    if (fv == 1) {
        FLOE_TRY(floe_ice_schema_to_json(floe_ice_tm_current_schema(md), &j));
        if (put(o, "schema", j)) return oom();
    }
    e |= put(o, "current-schema-id", json_integer(md->current_schema_id));
    json_t *arr = json_array();
    if (put(o, "schemas", arr) || e) return oom();
    for (int32_t i = 0; i < md->n_schemas; i++) {
        FLOE_TRY(floe_ice_schema_to_json(md->schemas[i], &j));
        if (json_array_append_new(arr, j)) return oom();
    }
    if (fv == 1) {
        FLOE_TRY(floe_ice_partition_fields_to_json(floe_ice_tm_default_spec(md), &j));
        if (put(o, "partition-spec", j)) return oom();
    }
    e |= put(o, "default-spec-id", json_integer(md->default_spec_id));
    arr = json_array();
    if (put(o, "partition-specs", arr) || e) return oom();
    for (int32_t i = 0; i < md->n_specs; i++) {
        FLOE_TRY(floe_ice_partition_spec_to_json(md->specs[i], &j));
        if (json_array_append_new(arr, j)) return oom();
    }
    e |= put(o, "last-partition-id", json_integer(md->last_partition_id));
    e |= put(o, "default-sort-order-id", json_integer(md->default_sort_order_id));
    arr = json_array();
    if (put(o, "sort-orders", arr) || e) return oom();
    for (int32_t i = 0; i < md->n_sort_orders; i++) {
        FLOE_TRY(floe_ice_sort_order_to_json(md->sort_orders[i], &j));
        if (json_array_append_new(arr, j)) return oom();
    }
    e |= put(o, "properties", kv_object(md->properties, md->n_properties, NULL, NULL));
    e |= put(o, "current-snapshot-id", json_integer(md->current_snapshot_id));
    if (md->has_next_row_id) e |= put(o, "next-row-id", json_integer(md->next_row_id));
    if (!md->refs_implied) {
        json_t *refs = json_object();
        e |= put(o, "refs", refs);
        for (int32_t i = 0; refs && i < md->n_refs; i++) {
            const floe_ice_snapshot_ref *r = &md->refs[i];
            json_t *jr = json_object();
            e |= put(refs, r->name, jr);
            if (!jr) break;
            e |= put(jr, "snapshot-id", json_integer(r->snapshot_id));
            e |= put(jr, "type", json_string(r->is_tag ? "tag" : "branch"));
            if (r->max_ref_age_ms >= 0) e |= put(jr, "max-ref-age-ms", json_integer(r->max_ref_age_ms));
            if (r->max_snapshot_age_ms >= 0) e |= put(jr, "max-snapshot-age-ms", json_integer(r->max_snapshot_age_ms));
            if (r->min_snapshots_to_keep >= 0) e |= put(jr, "min-snapshots-to-keep", json_integer(r->min_snapshots_to_keep));
        }
    }
    if (compact_snapshots) {
        e |= put(o, "snapshots", json_string(SNAPSHOTS_MARKER));
    } else {
        arr = json_array();
        e |= put(o, "snapshots", arr);
        for (int32_t i = 0; arr && i < md->n_snapshots; i++)
            e |= json_array_append_new(arr, snapshot_json(md, &md->snapshots[i]));
    }
    if (md->n_statistics) {
        arr = json_array();
        e |= put(o, "statistics", arr);
        for (int32_t i = 0; arr && i < md->n_statistics; i++) {
            const floe_ice_statistics_file *sf = &md->statistics[i];
            json_t *s = json_object();
            e |= json_array_append_new(arr, s);
            if (!s) break;
            e |= put(s, "snapshot-id", json_integer(sf->snapshot_id));
            e |= put(s, "statistics-path", json_string(sf->path));
            e |= put(s, "file-size-in-bytes", json_integer(sf->file_size_in_bytes));
            e |= put(s, "file-footer-size-in-bytes", json_integer(sf->file_footer_size_in_bytes));
            if (sf->key_metadata) e |= put(s, "key-metadata", json_string(sf->key_metadata));
            e |= put(s, "blob-metadata", parse_kept(sf->blob_metadata_json));
        }
    }
    if (md->n_partition_statistics) {
        arr = json_array();
        e |= put(o, "partition-statistics", arr);
        for (int32_t i = 0; arr && i < md->n_partition_statistics; i++) {
            const floe_ice_statistics_file *sf = &md->partition_statistics[i];
            json_t *s = json_object();
            e |= json_array_append_new(arr, s);
            if (!s) break;
            e |= put(s, "snapshot-id", json_integer(sf->snapshot_id));
            e |= put(s, "statistics-path", json_string(sf->path));
            e |= put(s, "file-size-in-bytes", json_integer(sf->file_size_in_bytes));
        }
    }
    arr = json_array();
    e |= put(o, "snapshot-log", arr);
    for (int32_t i = 0; arr && i < md->n_snapshot_log; i++) {
        json_t *s = json_pack("{s:I, s:I}", "timestamp-ms", (json_int_t)md->snapshot_log[i].timestamp_ms, "snapshot-id",
                              (json_int_t)md->snapshot_log[i].snapshot_id);
        e |= s ? json_array_append_new(arr, s) : -1;
    }
    arr = json_array();
    e |= put(o, "metadata-log", arr);
    for (int32_t i = 0; arr && i < md->n_metadata_log; i++) {
        json_t *s = json_pack("{s:I, s:s}", "timestamp-ms", (json_int_t)md->metadata_log[i].timestamp_ms, "metadata-file",
                              md->metadata_log[i].file);
        e |= s ? json_array_append_new(arr, s) : -1;
    }
    if (md->encryption_keys_json) e |= put(o, "encryption-keys", parse_kept(md->encryption_keys_json));
    return e ? oom() : NULL;
}

floe_status floe_ice_table_metadata_to_json(const floe_ice_table_metadata *md, int pretty, char **out) {
    *out = NULL;
    FLOE_LOG_DEBUG("metadata", "serialize");
    json_t *o = json_object();
    if (!o) return oom();
    floe_status st = build_json(md, o, !pretty);
    char *txt = NULL;
    if (!st) {
        txt = json_dumps(o, JSON_PRESERVE_ORDER | (pretty ? JSON_INDENT(2) : JSON_COMPACT));
        if (!txt) st = oom();
    }
    json_decref(o);
    if (st || pretty) {
        if (txt) *out = floe_strdup(txt);
        if (txt && !*out) st = oom();
        free(txt);
        return st;
    }
    /* Splice the snapshot text in where the marker is.  The marker's
     * escaped form could only repeat inside a string floe was given
     * (a property, say): then the marker is not unique and the slow,
     * plain path is taken. */
    const char *at = strstr(txt, SNAPSHOTS_MARKER_JSON);
    const size_t mlen = strlen(SNAPSHOTS_MARKER_JSON);
    if (!at || strstr(at + mlen, SNAPSHOTS_MARKER_JSON) || strstr(txt, SNAPSHOTS_MARKER_JSON) != at) {
        free(txt);
        o = json_object();
        if (!o) return oom();
        st = build_json(md, o, false);
        txt = st ? NULL : json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
        json_decref(o);
        if (!st && !txt) st = oom();
        if (txt) *out = floe_strdup(txt);
        if (txt && !*out) st = oom();
        free(txt);
        return st;
    }
    floe_buf b = FLOE_BUF_INIT;
    st = floe_buf_append(&b, txt, (size_t)(at - txt));
    if (!st) st = snapshots_text(md, &b);
    if (!st) st = floe_buf_append_str(&b, at + mlen);
    if (!st) st = floe_buf_append_byte(&b, 0);
    free(txt);
    if (st) {
        floe_buf_free(&b);
        return oom();
    }
    *out = (char *)floe_buf_detach(&b, NULL);
    return NULL;
}

/*
 * view_metadata.c — Iceberg view metadata files (format/view-spec.md,
 * format-version 1): building the text of a new view or of its next
 * version, and reading the current version back.  See
 * include/floe/iceberg_view.h.
 *
 * A replace edits the base text's JSON tree rather than a struct, so the
 * fields floe does not know (properties set by another engine, other
 * dialects' representations of old versions) survive unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "floe/iceberg_view.h"
#include "floe/memory.h"
#include "floe/version.h"
#include "iceberg/spec/ice_internal.h"
#include "iceberg/update/table_update_internal.h"

#define VIEW_DIALECT "floe"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "view metadata: out of memory"); }

void floe_ice_view_free(floe_ice_view *v) {
    if (!v) return;
    floe_free(v->metadata_location);
    floe_free(v->json);
    floe_free(v->view_uuid);
    floe_free(v->sql);
    floe_free(v->dialect);
    floe_free(v->default_namespace);
    for (int32_t i = 0; i < v->n_columns; i++) floe_free(v->column_names[i]);
    floe_free(v->column_names);
    floe_ice_schema_free(v->schema);
    floe_free(v);
}

int64_t floe_ice_view_metadata_version(const char *location) {
    const char *base = strrchr(location, '/');
    base = base ? base + 1 : location;
    int64_t v = 0;
    const char *p = base;
    while (*p >= '0' && *p <= '9' && v < INT32_MAX) v = v * 10 + (*p++ - '0');
    if (p == base || *p != '-') return -1;
    return v;
}

/* ---- reading -------------------------------------------------------------- */

static floe_status bad(const char *location, const char *what) {
    return floe_error(FLOE_ERR_CORRUPT, "view metadata %s: %s", location ? location : "(text)", what);
}

/* The element of array `arr` whose integer member `key` is `id`. */
static json_t *find_by_id(json_t *arr, const char *key, json_int_t id) {
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        json_t *k = json_object_get(e, key);
        if (json_is_integer(k) && json_integer_value(k) == id) return e;
    }
    return NULL;
}

/* The representation floe runs: dialect "floe", else the only SQL one. */
static json_t *pick_representation(json_t *reps) {
    json_t *only = NULL;
    int32_t n_sql = 0;
    size_t i;
    json_t *r;
    json_array_foreach(reps, i, r) {
        const char *type = json_string_value(json_object_get(r, "type"));
        if (!type || strcmp(type, "sql") != 0 || !json_is_string(json_object_get(r, "sql"))) continue;
        const char *d = json_string_value(json_object_get(r, "dialect"));
        if (d && strcmp(d, VIEW_DIALECT) == 0) return r;
        only = r;
        n_sql++;
    }
    return n_sql == 1 ? only : NULL;
}

static floe_status parse_tree(json_t *root, const char *location, floe_ice_view *v) {
    json_t *fv = json_object_get(root, "format-version");
    if (!json_is_integer(fv) || json_integer_value(fv) != 1)
        return bad(location, "format-version must be 1");
    const char *uuid = json_string_value(json_object_get(root, "view-uuid"));
    if (!uuid) return bad(location, "missing 'view-uuid'");
    json_t *cur = json_object_get(root, "current-version-id");
    if (!json_is_integer(cur)) return bad(location, "missing 'current-version-id'");
    v->current_version_id = (int32_t)json_integer_value(cur);
    json_t *ver = find_by_id(json_object_get(root, "versions"), "version-id", json_integer_value(cur));
    if (!ver) return bad(location, "current-version-id names no entry of 'versions'");
    json_t *rep = pick_representation(json_object_get(ver, "representations"));
    if (!rep) return bad(location, "the current version has no SQL representation in the floe dialect");
    json_t *sid = json_object_get(ver, "schema-id");
    json_t *schema = json_is_integer(sid) ? find_by_id(json_object_get(root, "schemas"), "schema-id",
                                                        json_integer_value(sid)) : NULL;
    if (!schema) return bad(location, "the current version's schema-id names no entry of 'schemas'");
    v->view_uuid = floe_strdup(uuid);
    v->sql = floe_strdup(json_string_value(json_object_get(rep, "sql")));
    const char *dialect = json_string_value(json_object_get(rep, "dialect"));
    v->dialect = floe_strdup(dialect ? dialect : "");
    if (!v->view_uuid || !v->sql || !v->dialect) return oom();
    json_t *ns = json_object_get(ver, "default-namespace");
    if (json_array_size(ns) > 1) return bad(location, "a default-namespace of more than one level is not supported");
    if (json_array_size(ns) == 1) {
        const char *n0 = json_string_value(json_array_get(ns, 0));
        if (!n0) return bad(location, "default-namespace must hold strings");
        if (!(v->default_namespace = floe_strdup(n0))) return oom();
    }
    FLOE_TRY_CTX(floe_ice_schema_from_json(schema, &v->schema), "view metadata %s", location ? location : "(text)");
    json_t *fields = json_object_get(schema, "fields");
    size_t nf = json_array_size(fields);
    v->column_names = floe_calloc(nf ? nf : 1, sizeof(char *));
    if (!v->column_names) return oom();
    for (size_t i = 0; i < nf; i++) {
        const char *name = json_string_value(json_object_get(json_array_get(fields, i), "name"));
        if (!name) return bad(location, "a schema field has no name");
        if (!(v->column_names[i] = floe_strdup(name))) return oom();
        v->n_columns++;
    }
    return NULL;
}

floe_status floe_ice_view_parse(const char *text, const char *location, floe_ice_view **out) {
    *out = NULL;
    json_t *root = NULL;
    FLOE_TRY(floe_ice_json_parse_text(text, "view metadata", &root));
    floe_ice_view *v = floe_calloc(1, sizeof *v);
    floe_status st = v ? parse_tree(root, location, v) : oom();
    json_decref(root);
    if (!st) {
        v->json = floe_strdup(text);
        v->metadata_location = floe_strdup(location ? location : "");
        if (!v->json || !v->metadata_location) st = oom();
    }
    if (st) {
        floe_ice_view_free(v);
        return st;
    }
    *out = v;
    return NULL;
}

/* ---- building --------------------------------------------------------------- */

/* The largest integer member `key` of the elements of `arr` (-1: none). */
static json_int_t max_id(json_t *arr, const char *key) {
    json_int_t m = -1;
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        json_t *k = json_object_get(e, key);
        if (json_is_integer(k) && json_integer_value(k) > m) m = json_integer_value(k);
    }
    return m;
}

/* Append a new value to an array member, creating the member. */
static int append_new(json_t *obj, const char *key, json_t *value) {
    json_t *arr = json_object_get(obj, key);
    if (!json_is_array(arr)) {
        arr = json_array();
        if (!arr || json_object_set_new(obj, key, arr) != 0) {
            json_decref(value);
            return -1;
        }
    }
    return json_array_append_new(arr, value);
}

static floe_status add_version(json_t *root, const char *sql, const char *default_ns, const floe_ice_schema *schema,
                               int64_t now_ms, bool replace) {
    json_t *sj = NULL;
    FLOE_TRY(floe_ice_schema_to_json(schema, &sj));
    json_int_t schema_id = max_id(json_object_get(root, "schemas"), "schema-id") + 1;
    json_int_t version_id = max_id(json_object_get(root, "versions"), "version-id") + 1;
    if (version_id < 1) version_id = 1;
    json_object_set_new(sj, "schema-id", json_integer(schema_id));
    if (append_new(root, "schemas", sj) != 0) return oom();

    json_t *ns = json_array();
    if (ns && default_ns) json_array_append_new(ns, json_string(default_ns));
    json_t *ver = json_pack("{s:I, s:I, s:I, s:{s:s, s:s, s:s}, s:[{s:s, s:s, s:s}], s:o}", "version-id", version_id,
                            "timestamp-ms", (json_int_t)now_ms, "schema-id", schema_id, "summary", "operation",
                            replace ? "replace" : "create", "engine-name", "floe", "engine-version",
                            FLOE_VERSION_STRING, "representations", "type", "sql", "sql", sql, "dialect", VIEW_DIALECT,
                            "default-namespace", ns);
    if (!ver || append_new(root, "versions", ver) != 0) return oom();
    json_t *log = json_pack("{s:I, s:I}", "timestamp-ms", (json_int_t)now_ms, "version-id", version_id);
    if (!log || append_new(root, "version-log", log) != 0) return oom();
    if (json_object_set_new(root, "current-version-id", json_integer(version_id)) != 0) return oom();
    return NULL;
}

floe_status floe_ice_view_metadata_build(const char *base_json, const char *location, const char *sql,
                                         const char *default_ns, const floe_ice_schema *schema, int64_t now_ms,
                                         char **out) {
    *out = NULL;
    json_t *root = NULL;
    if (base_json) {
        FLOE_TRY(floe_ice_json_parse_text(base_json, "view metadata", &root));
    } else {
        char uuid[37];
        FLOE_TRY(floe_ice_uuid4(uuid));
        root = json_pack("{s:s, s:i, s:s, s:i, s:{}, s:[], s:[], s:[]}", "view-uuid", uuid, "format-version", 1,
                         "location", location, "current-version-id", 1, "properties", "versions", "version-log",
                         "schemas");
        if (!root) return oom();
    }
    floe_status st = add_version(root, sql, default_ns, schema, now_ms, base_json != NULL);
    if (!st) {
        char *txt = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (!txt) st = oom();
        else {
            *out = floe_strdup(txt);
            free(txt);
            if (!*out) st = oom();
        }
    }
    json_decref(root);
    return st;
}

/*
 * table_update.c — new table metadata, schema evolution and property
 * changes.  See include/floe/iceberg_table_update.h for the rules and
 * table_update_internal.h for the copy machinery.
 *
 * Why through JSON: a floe_ice_table_metadata keeps its strings and arrays
 * in a private arena, so there is no safe way to copy-and-patch the struct.
 * The JSON form, on the other hand, is complete (the writer keeps every
 * field, even ones floe does not interpret, such as encryption keys and
 * statistics blobs) and the parser validates it.  So a change is: write the
 * metadata as a jansson tree, edit the tree, parse it back.  A metadata
 * file is a few kilobytes and changes are rare (DDL and commits), so the
 * round trip costs nothing that matters.
 *
 * Schema changes work on a copy of the current schema's type tree (the
 * type API owns plain floe_malloc'd field arrays, so the copy may be
 * edited in place), then make a floe_ice_schema of it (which indexes and
 * validates it) and install it in the tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <jansson.h>

#include "base/str.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"
#include "iceberg/update/table_update_internal.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory updating table metadata"); }

/* json_object_set_new that reports failure (a NULL value is an allocation
 * failure). */
static int put(json_t *o, const char *k, json_t *v) { return v ? json_object_set_new(o, k, v) : -1; }

/* ---- small shared pieces -------------------------------------------------- */

int64_t floe_ice_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

floe_status floe_ice_uuid4(char out[37]) {
    uint8_t b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t r = getrandom(b + got, sizeof b - got, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            return floe_error(FLOE_ERR_IO, "cannot get random bytes for a UUID: %s", strerror(errno));
        }
        got += (size_t)r;
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    static const char hex[] = "0123456789abcdef";
    char *p = out;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) *p++ = '-';
        *p++ = hex[b[i] >> 4];
        *p++ = hex[b[i] & 15];
    }
    *p = 0;
    return NULL;
}

bool floe_ice_tm_is_empty(const floe_ice_table_metadata *md) {
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(md);
    if (!s) return true;
    for (int32_t i = 0; i < s->n_summary; i++)
        if (strcmp(s->summary[i].key, "total-records") == 0) return strcmp(s->summary[i].value, "0") == 0;
    return false;
}

/* ---- the JSON round trip ---------------------------------------------------- */

floe_status floe_ice_tm_edit_begin(const floe_ice_table_metadata *md, json_t **root) {
    *root = NULL;
    char *txt = NULL;
    FLOE_TRY(floe_ice_table_metadata_to_json(md, 0, &txt));
    json_error_t err;
    *root = json_loads(txt, 0, &err);
    floe_free(txt);
    if (!*root) return floe_error(FLOE_ERR_INTERNAL, "re-reading metadata JSON floe wrote: %s", err.text);
    return NULL;
}

floe_status floe_ice_tm_edit_finish(const floe_ice_table_metadata *base, json_t *root,
                                    floe_ice_table_metadata **out) {
    *out = NULL;
    int64_t now = floe_ice_now_ms();
    if (base && now < base->last_updated_ms) now = base->last_updated_ms;
    if (put(root, "last-updated-ms", json_integer(now))) {
        json_decref(root);
        return oom();
    }
    char *txt = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!txt) return oom();
    floe_status st = floe_ice_table_metadata_parse(txt, strlen(txt), "updated metadata", out);
    free(txt);
    return st;
}

floe_status floe_ice_tm_edit_set_schema(const floe_ice_table_metadata *base, json_t *root,
                                        const floe_ice_schema *schema, int32_t last_column_id) {
    int32_t id = -1, highest = -1;
    for (int32_t i = 0; i < base->n_schemas; i++) {
        if (base->schemas[i]->schema_id > highest) highest = base->schemas[i]->schema_id;
        if (id < 0 && floe_ice_schema_same_structure(base->schemas[i], schema)) id = base->schemas[i]->schema_id;
    }
    if (id < 0) {
        id = highest + 1;
        json_t *js = NULL;
        FLOE_TRY(floe_ice_schema_to_json(schema, &js));
        json_t *arr = json_object_get(root, "schemas");
        if (!json_is_array(arr)) {
            json_decref(js);
            return floe_error(FLOE_ERR_INTERNAL, "metadata JSON has no 'schemas' array");
        }
        if (put(js, "schema-id", json_integer(id))) {
            json_decref(js);
            return oom();
        }
        if (json_array_append_new(arr, js)) return oom(); /* js was released */
    }
    /* v1 metadata also carries the current schema as "schema"; the writer
     * derives it from current-schema-id, so the stale copy goes. */
    json_object_del(root, "schema");
    json_t *jl = json_object_get(root, "last-column-id");
    int32_t last = json_is_integer(jl) ? (int32_t)json_integer_value(jl) : 0;
    if (last_column_id > last) last = last_column_id;
    if (put(root, "current-schema-id", json_integer(id)) || put(root, "last-column-id", json_integer(last)))
        return oom();
    return NULL;
}

floe_status floe_ice_tm_edit_add_metadata_log(json_t *root, const char *file, int64_t timestamp_ms,
                                              int32_t max_entries) {
    json_t *arr = json_object_get(root, "metadata-log");
    if (!json_is_array(arr)) {
        arr = json_array();
        if (put(root, "metadata-log", arr)) return oom();
    }
    json_t *e = json_pack("{s:I, s:s}", "timestamp-ms", (json_int_t)timestamp_ms, "metadata-file", file);
    if (!e || json_array_append_new(arr, e)) return oom();
    if (max_entries < 0) max_entries = 0;
    while (json_array_size(arr) > (size_t)max_entries) json_array_remove(arr, 0);
    return NULL;
}

/* ---- columns by path ------------------------------------------------------- */

/* Every field id of a type tree, in tree order. */
static void collect_ids(const floe_ice_type *t, int32_t *ids, int32_t *n, int32_t cap) {
    for (int32_t i = 0; i < t->n_fields; i++) {
        if (*n < cap) ids[(*n)++] = t->fields[i].id;
        if (t->fields[i].type && floe_ice_type_is_nested(t->fields[i].type))
            collect_ids(t->fields[i].type, ids, n, cap);
    }
}

/* The field at `path` of schema `s`, or FLOE_ERR_NOT_FOUND suggesting the
 * closest full name. */
static floe_status resolve(const floe_ice_schema *s, const char *path, const floe_ice_field **out) {
    *out = path ? floe_ice_schema_find_by_name(s, path, true) : NULL;
    if (*out) return NULL;
    int32_t cap = floe_ice_schema_field_count(s);
    int32_t *ids = floe_malloc_array(cap > 0 ? (size_t)cap : 1, sizeof *ids);
    const char **names = floe_malloc_array(cap > 0 ? (size_t)cap : 1, sizeof *names);
    if (!ids || !names) {
        floe_free(ids);
        floe_free(names);
        return oom();
    }
    int32_t n = 0;
    collect_ids(s->root, ids, &n, cap);
    for (int32_t i = 0; i < n; i++) {
        names[i] = floe_ice_schema_field_name(s, ids[i]);
        if (!names[i]) names[i] = "";
    }
    floe_status st = floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "column", floe_str_c(path ? path : ""),
                                             (const char *const *)names, (size_t)n);
    floe_free(ids);
    floe_free(names);
    return st;
}

/* The field with `id` in a (mutable) type tree and the type holding it. */
static floe_ice_field *find_mut(floe_ice_type *t, int32_t id, floe_ice_type **parent) {
    for (int32_t i = 0; i < t->n_fields; i++) {
        floe_ice_field *f = &t->fields[i];
        if (f->id == id) {
            *parent = t;
            return f;
        }
        if (f->type && floe_ice_type_is_nested(f->type)) {
            floe_ice_field *r = find_mut(f->type, id, parent);
            if (r) return r;
        }
    }
    return NULL;
}

/* The type holding field `id` in schema `s` (the root for top-level). */
static const floe_ice_type *parent_type(const floe_ice_schema *s, int32_t id) {
    int32_t pid = floe_ice_schema_parent_id(s, id);
    if (pid < 0) return s->root;
    const floe_ice_field *pf = floe_ice_schema_find_field(s, pid);
    return pf ? pf->type : s->root;
}

/* List elements and map keys/values have fixed names and cannot exist on
 * their own. */
static floe_status check_struct_member(const floe_ice_schema *s, const floe_ice_field *f, const char *path,
                                       const char *verb) {
    const floe_ice_type *pt = parent_type(s, f->id);
    if (pt->id == FLOE_ICE_LIST || pt->id == FLOE_ICE_MAP)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot %s '%s': list elements and map keys and values "
                          "cannot be %s on their own", verb, path, strcmp(verb, "drop") == 0 ? "dropped" : "renamed");
    return NULL;
}

static bool has_id(const int32_t *ids, int32_t n, int32_t id) {
    for (int32_t i = 0; i < n; i++)
        if (ids[i] == id) return true;
    return false;
}

/* A copy of the current schema being changed. */
typedef struct schema_edit {
    const floe_ice_table_metadata *md;
    const floe_ice_schema *cur;
    floe_ice_type *root;        /* the copy; owned until commit */
    int32_t last_column_id;     /* highest id ever assigned */
} schema_edit;

static floe_status edit_start(const floe_ice_table_metadata *md, schema_edit *e) {
    memset(e, 0, sizeof *e);
    e->md = md;
    e->cur = floe_ice_tm_current_schema(md);
    if (!e->cur) return floe_error(FLOE_ERR_CORRUPT, "table metadata has no current schema");
    /* Trust the highest id of any schema over a last-column-id that some
     * writer left too low: ids must never be reused. */
    e->last_column_id = md->last_column_id;
    for (int32_t i = 0; i < md->n_schemas; i++) {
        int32_t h = floe_ice_schema_highest_field_id(md->schemas[i]);
        if (h > e->last_column_id) e->last_column_id = h;
    }
    return floe_ice_type_copy(e->cur->root, &e->root);
}

static void edit_abort(schema_edit *e) {
    floe_ice_type_free(e->root);
    e->root = NULL;
}

/* Index and check the edited schema, then install it as current in new
 * metadata.  Consumes e->root. */
static floe_status edit_commit(schema_edit *e, floe_ice_table_metadata **out) {
    floe_ice_schema *s = NULL;
    floe_ice_type *root = e->root;
    e->root = NULL;
    FLOE_TRY(floe_ice_schema_new(0, root, e->cur->identifier_field_ids, e->cur->n_identifier_field_ids, &s));
    floe_status st = NULL;
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(e->md);
    if (spec) {
        st = floe_ice_partition_spec_validate(spec, s);
        if (st) st = floe_status_wrap(st, "the changed schema does not fit the table's partition spec");
    }
    const floe_ice_sort_order *order = floe_ice_tm_sort_order(e->md, e->md->default_sort_order_id);
    if (!st && order) {
        st = floe_ice_sort_order_validate(order, s);
        if (st) st = floe_status_wrap(st, "the changed schema does not fit the table's sort order");
    }
    json_t *tree = NULL;
    if (!st) st = floe_ice_tm_edit_begin(e->md, &tree);
    if (!st) st = floe_ice_tm_edit_set_schema(e->md, tree, s, e->last_column_id);
    floe_ice_schema_free(s);
    if (st) {
        json_decref(tree);
        return st;
    }
    return floe_ice_tm_edit_finish(e->md, tree, out);
}

/* Java's TypeUtil.assignFreshIds: a struct's own fields get ids first, in
 * order, then each field's nested type is visited; a list's element and a
 * map's key and value likewise.  When `map` is not NULL the pairs (old id,
 * new id) are recorded in it (2 ints per field). */
typedef struct id_map {
    int32_t *pairs;
    int32_t n, cap;
} id_map;

static floe_status assign_fresh(floe_ice_type *t, int32_t *next, id_map *map) {
    for (int32_t i = 0; i < t->n_fields; i++) {
        if (*next > FLOE_ICE_MAX_USER_FIELD_ID)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "the table has run out of column ids");
        if (map) {
            if (map->n == map->cap) return floe_error(FLOE_ERR_INTERNAL, "field id map overflow");
            map->pairs[2 * map->n] = t->fields[i].id;
            map->pairs[2 * map->n + 1] = *next;
            map->n++;
        }
        t->fields[i].id = (*next)++;
    }
    for (int32_t i = 0; i < t->n_fields; i++)
        if (t->fields[i].type && floe_ice_type_is_nested(t->fields[i].type))
            FLOE_TRY(assign_fresh(t->fields[i].type, next, map));
    return NULL;
}

static int32_t count_fields(const floe_ice_type *t) {
    int32_t n = t->n_fields;
    for (int32_t i = 0; i < t->n_fields; i++)
        if (t->fields[i].type && floe_ice_type_is_nested(t->fields[i].type)) n += count_fields(t->fields[i].type);
    return n;
}

static floe_status type_text(const floe_ice_type *t, char **out) {
    floe_status st = floe_ice_type_to_string(t, out);
    if (st) *out = NULL;
    return st;
}

/* ---- a new table ------------------------------------------------------------ */

static bool map_id(const id_map *m, int32_t old_id, int32_t *new_id) {
    for (int32_t i = 0; i < m->n; i++)
        if (m->pairs[2 * i] == old_id) {
            *new_id = m->pairs[2 * i + 1];
            return true;
        }
    return false;
}

static floe_status remap_ids(const id_map *m, int32_t *ids, int32_t n, const char *what, const char *name) {
    for (int32_t i = 0; i < n; i++)
        if (!map_id(m, ids[i], &ids[i]))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s '%s': source column id %d is not in the schema", what,
                              name, ids[i]);
    return NULL;
}

/* The fresh schema, spec and order of a new table. */
typedef struct fresh {
    floe_ice_schema *schema;
    floe_ice_partition_spec *spec;
    floe_ice_sort_order *order;     /* NULL: unsorted */
    int32_t last_column_id;
} fresh;

static void fresh_free(fresh *f) {
    floe_ice_schema_free(f->schema);
    floe_ice_partition_spec_free(f->spec);
    floe_ice_sort_order_free(f->order);
}

static floe_status make_fresh(const floe_ice_schema *schema, const floe_ice_partition_spec *spec,
                              const floe_ice_sort_order *order, int format_version, fresh *f) {
    id_map map = {NULL, 0, count_fields(schema->root)};
    map.pairs = floe_malloc_array(map.cap > 0 ? (size_t)map.cap * 2 : 2, sizeof *map.pairs);
    floe_ice_type *root = NULL;
    int32_t *idents = NULL;
    floe_status st = map.pairs ? floe_ice_type_copy(schema->root, &root) : oom();
    int32_t next = 1;
    if (!st) st = assign_fresh(root, &next, &map);
    f->last_column_id = next - 1;
    int32_t n_idents = schema->n_identifier_field_ids;
    if (!st && n_idents > 0) {
        idents = floe_malloc_array((size_t)n_idents, sizeof *idents);
        if (!idents) st = oom();
        else {
            memcpy(idents, schema->identifier_field_ids, (size_t)n_idents * sizeof *idents);
            st = remap_ids(&map, idents, n_idents, "identifier field", "(schema)");
        }
    }
    if (!st) {
        st = floe_ice_schema_new(0, root, idents, n_idents, &f->schema);
        root = NULL;
    }
    floe_ice_type_free(root);
    floe_free(idents);
    if (!st) st = floe_ice_schema_validate_for_table(f->schema, format_version);

    /* Spec: same fields on the new ids, partition field ids from 1000. */
    if (!st) st = spec ? floe_ice_partition_spec_copy(spec, &f->spec) : floe_ice_partition_spec_new(0, &f->spec);
    for (int32_t i = 0; !st && i < f->spec->n_fields; i++) {
        floe_ice_partition_field *pf = &f->spec->fields[i];
        st = remap_ids(&map, pf->source_ids, pf->n_source_ids, "partition field", pf->name);
        pf->source_id = pf->source_ids[0];
        pf->field_id = FLOE_ICE_PARTITION_DATA_ID_START + i;
    }
    if (!st) {
        f->spec->spec_id = 0;
        st = floe_ice_partition_spec_validate(f->spec, f->schema);
    }

    /* Order: order 1 when it has fields (0 means unsorted). */
    if (!st && order && order->n_fields > 0) {
        st = floe_ice_sort_order_copy(order, &f->order);
        for (int32_t i = 0; !st && i < f->order->n_fields; i++) {
            floe_ice_sort_field *sf = &f->order->fields[i];
            char what[32];
            snprintf(what, sizeof what, "%d", i + 1);
            st = remap_ids(&map, sf->source_ids, sf->n_source_ids, "sort field", what);
            sf->source_id = sf->source_ids[0];
        }
        if (!st) {
            f->order->order_id = 1;
            st = floe_ice_sort_order_validate(f->order, f->schema);
        }
    }
    floe_free(map.pairs);
    return st;
}

static floe_status new_tree(const fresh *f, const char *location, const char *const *props, int32_t n_props,
                            int format_version, json_t *o) {
    char uuid[37];
    FLOE_TRY(floe_ice_uuid4(uuid));
    size_t ll = strlen(location);
    while (ll > 1 && location[ll - 1] == '/') ll--;
    int e = put(o, "format-version", json_integer(format_version));
    e |= put(o, "table-uuid", json_string(uuid));
    e |= put(o, "location", json_stringn(location, ll));
    if (format_version >= 2) e |= put(o, "last-sequence-number", json_integer(0));
    e |= put(o, "last-updated-ms", json_integer(floe_ice_now_ms()));
    e |= put(o, "last-column-id", json_integer(f->last_column_id));
    e |= put(o, "current-schema-id", json_integer(0));
    if (e) return oom();

    json_t *j = NULL, *arr = json_array();
    if (put(o, "schemas", arr)) return oom();
    FLOE_TRY(floe_ice_schema_to_json(f->schema, &j));
    if (json_array_append_new(arr, j)) return oom();

    e |= put(o, "default-spec-id", json_integer(0));
    arr = json_array();
    if (put(o, "partition-specs", arr) || e) return oom();
    FLOE_TRY(floe_ice_partition_spec_to_json(f->spec, &j));
    if (json_array_append_new(arr, j)) return oom();
    e |= put(o, "last-partition-id", json_integer(floe_ice_partition_spec_last_field_id(f->spec)));

    e |= put(o, "default-sort-order-id", json_integer(f->order ? f->order->order_id : 0));
    arr = json_array();
    if (put(o, "sort-orders", arr) || e) return oom();
    floe_ice_sort_order *unsorted = NULL;
    FLOE_TRY(floe_ice_sort_order_new(0, &unsorted));
    floe_status st = floe_ice_sort_order_to_json(unsorted, &j);
    floe_ice_sort_order_free(unsorted);
    if (st) return st;
    if (json_array_append_new(arr, j)) return oom();
    if (f->order) {
        FLOE_TRY(floe_ice_sort_order_to_json(f->order, &j));
        if (json_array_append_new(arr, j)) return oom();
    }

    json_t *jp = json_object();
    if (put(o, "properties", jp)) return oom();
    for (int32_t i = 0; i < n_props; i++) {
        const char *k = props[2 * i], *v = props[2 * i + 1];
        if (!k || !*k || !v) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "table property %d has no key or no value", i);
        if (put(jp, k, json_string(v))) return oom();
    }
    e |= put(o, "current-snapshot-id", json_integer(FLOE_ICE_NO_SNAPSHOT));
    if (format_version >= 3) e |= put(o, "next-row-id", json_integer(0));
    e |= put(o, "refs", json_object());
    e |= put(o, "snapshots", json_array());
    e |= put(o, "snapshot-log", json_array());
    e |= put(o, "metadata-log", json_array());
    return e ? oom() : NULL;
}

floe_status floe_ice_tm_new(const floe_ice_schema *schema, const floe_ice_partition_spec *spec,
                            const floe_ice_sort_order *order, const char *location,
                            const char *const *props, int32_t n_props, int format_version,
                            floe_ice_table_metadata **out) {
    *out = NULL;
    if (!schema) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a new table needs a schema");
    if (!location || !*location) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a new table needs a location");
    if (format_version < 1 || format_version > FLOE_ICE_MAX_FORMAT_VERSION)
        return floe_error(FLOE_ERR_UNSUPPORTED, "format version %d is not supported (floe writes 1 to %d)",
                          format_version, FLOE_ICE_MAX_FORMAT_VERSION);
    if (n_props < 0 || (n_props > 0 && !props))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "bad table property list");
    fresh f = {0};
    floe_status st = make_fresh(schema, spec, order, format_version, &f);
    json_t *tree = st ? NULL : json_object();
    if (!st && !tree) st = oom();
    if (!st) st = new_tree(&f, location, props, n_props, format_version, tree);
    fresh_free(&f);
    if (st) {
        json_decref(tree);
        return st;
    }
    return floe_ice_tm_edit_finish(NULL, tree, out);
}

/* ---- columns ------------------------------------------------------------------ */

floe_status floe_ice_tm_add_column(const floe_ice_table_metadata *md, const char *parent, const char *name,
                                   const floe_ice_type *type, bool required, const char *doc,
                                   floe_ice_table_metadata **out) {
    *out = NULL;
    if (!name || !*name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a new column needs a name");
    if (!type) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "column '%s' needs a type", name);
    if (required && !floe_ice_tm_is_empty(md))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "cannot add required column '%s': the table holds rows and there is no default for them", name);
    int need = floe_ice_type_min_format_version(type);
    if (need > md->format_version) {
        char *ts = NULL;
        floe_status st = type_text(type, &ts);
        floe_status e = floe_error(FLOE_ERR_INVALID_ARGUMENT,
                                   "column '%s' has type '%s', which needs format version %d (the table has version %d)",
                                   name, ts ? ts : "?", need, md->format_version);
        floe_status_free(st);
        floe_free(ts);
        return e;
    }
    schema_edit e;
    FLOE_TRY(edit_start(md, &e));
    floe_ice_type *st_type = e.root;
    floe_status st = NULL;
    if (parent) {
        const floe_ice_field *pf = NULL;
        st = resolve(e.cur, parent, &pf);
        floe_ice_type *holder = NULL;
        floe_ice_field *mf = st ? NULL : find_mut(e.root, pf->id, &holder);
        if (!st && !mf) st = floe_error(FLOE_ERR_INTERNAL, "column '%s' vanished from the schema copy", parent);
        if (!st) {
            st_type = mf->type;
            if (st_type->id == FLOE_ICE_LIST && st_type->fields[0].type->id == FLOE_ICE_STRUCT)
                st_type = st_type->fields[0].type;
            else if (st_type->id == FLOE_ICE_MAP && st_type->fields[1].type->id == FLOE_ICE_STRUCT)
                st_type = st_type->fields[1].type;
            if (st_type->id != FLOE_ICE_STRUCT)
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot add column '%s' to '%s': it is a %s, not a struct",
                                name, parent, floe_ice_type_id_name(st_type->id));
        }
    }
    for (int32_t i = 0; !st && i < st_type->n_fields; i++)
        if (strcmp(st_type->fields[i].name, name) == 0)
            st = floe_error(FLOE_ERR_ALREADY_EXISTS, "column '%s%s%s' already exists", parent ? parent : "",
                            parent ? "." : "", name);
    floe_ice_type *t = NULL;
    if (!st) st = floe_ice_type_copy(type, &t);
    int32_t next = e.last_column_id + 1;
    int32_t id = next++;
    if (!st && id > FLOE_ICE_MAX_USER_FIELD_ID)
        st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "the table has run out of column ids");
    if (!st && floe_ice_type_is_nested(t)) st = assign_fresh(t, &next, NULL);
    if (!st) {
        st = floe_ice_struct_add_field(st_type, id, name, required, t, doc);
        t = NULL; /* owned by the struct now, or freed */
    }
    floe_ice_type_free(t);
    if (st) {
        edit_abort(&e);
        return st;
    }
    e.last_column_id = next - 1;
    return edit_commit(&e, out);
}

/* Why column `id` (with every id below it in `ids`) may not go: the first
 * use by identifier fields, the default spec or the default order. */
static floe_status check_unused(const floe_ice_table_metadata *md, const floe_ice_schema *s, const char *path,
                                const int32_t *ids, int32_t n) {
    for (int32_t i = 0; i < s->n_identifier_field_ids; i++)
        if (has_id(ids, n, s->identifier_field_ids[i])) {
            const char *nm = floe_ice_schema_field_name(s, s->identifier_field_ids[i]);
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot drop column '%s': '%s' is an identifier field", path,
                              nm ? nm : path);
        }
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(md);
    for (int32_t i = 0; spec && i < spec->n_fields; i++)
        for (int32_t k = 0; k < spec->fields[i].n_source_ids; k++)
            if (has_id(ids, n, spec->fields[i].source_ids[k]))
                return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                                  "cannot drop column '%s': partition field '%s' of the table's partition spec uses it",
                                  path, spec->fields[i].name);
    const floe_ice_sort_order *order = floe_ice_tm_sort_order(md, md->default_sort_order_id);
    for (int32_t i = 0; order && i < order->n_fields; i++)
        for (int32_t k = 0; k < order->fields[i].n_source_ids; k++)
            if (has_id(ids, n, order->fields[i].source_ids[k]))
                return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                                  "cannot drop column '%s': the table's sort order (field %d) uses it", path, i + 1);
    return NULL;
}

floe_status floe_ice_tm_drop_column(const floe_ice_table_metadata *md, const char *path,
                                    floe_ice_table_metadata **out) {
    *out = NULL;
    const floe_ice_schema *cur = floe_ice_tm_current_schema(md);
    if (!cur) return floe_error(FLOE_ERR_CORRUPT, "table metadata has no current schema");
    const floe_ice_field *f = NULL;
    FLOE_TRY(resolve(cur, path, &f));
    FLOE_TRY(check_struct_member(cur, f, path, "drop"));
    int32_t cap = 1 + (floe_ice_type_is_nested(f->type) ? count_fields(f->type) : 0);
    int32_t *ids = floe_malloc_array((size_t)cap, sizeof *ids);
    if (!ids) return oom();
    int32_t n = 0;
    ids[n++] = f->id;
    if (floe_ice_type_is_nested(f->type)) collect_ids(f->type, ids, &n, cap);
    floe_status st = check_unused(md, cur, path, ids, n);
    floe_free(ids);
    if (st) return st;
    if (floe_ice_schema_parent_id(cur, f->id) < 0 && cur->root->n_fields == 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot drop column '%s': it is the table's only column", path);

    schema_edit e;
    FLOE_TRY(edit_start(md, &e));
    floe_ice_type *holder = NULL;
    floe_ice_field *mf = find_mut(e.root, f->id, &holder);
    if (!mf) {
        edit_abort(&e);
        return floe_error(FLOE_ERR_INTERNAL, "column '%s' vanished from the schema copy", path);
    }
    int32_t idx = (int32_t)(mf - holder->fields);
    floe_ice_field_clear(mf);
    memmove(&holder->fields[idx], &holder->fields[idx + 1], (size_t)(holder->n_fields - idx - 1) * sizeof *mf);
    holder->n_fields--;
    return edit_commit(&e, out);
}

floe_status floe_ice_tm_rename_column(const floe_ice_table_metadata *md, const char *path, const char *new_name,
                                      floe_ice_table_metadata **out) {
    *out = NULL;
    const floe_ice_schema *cur = floe_ice_tm_current_schema(md);
    if (!cur) return floe_error(FLOE_ERR_CORRUPT, "table metadata has no current schema");
    if (!new_name || !*new_name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot rename '%s' to an empty name", path ? path : "");
    const floe_ice_field *f = NULL;
    FLOE_TRY(resolve(cur, path, &f));
    FLOE_TRY(check_struct_member(cur, f, path, "rename"));
    const floe_ice_type *pt = parent_type(cur, f->id);
    for (int32_t i = 0; i < pt->n_fields; i++)
        if (pt->fields[i].id != f->id && strcmp(pt->fields[i].name, new_name) == 0)
            return floe_error(FLOE_ERR_ALREADY_EXISTS, "cannot rename '%s' to '%s': a column of that name exists", path,
                              new_name);
    schema_edit e;
    FLOE_TRY(edit_start(md, &e));
    floe_ice_type *holder = NULL;
    floe_ice_field *mf = find_mut(e.root, f->id, &holder);
    char *nm = floe_strdup(new_name);
    if (!mf || !nm) {
        floe_free(nm);
        edit_abort(&e);
        return mf ? oom() : floe_error(FLOE_ERR_INTERNAL, "column '%s' vanished from the schema copy", path);
    }
    floe_free(mf->name);
    mf->name = nm;
    return edit_commit(&e, out);
}

/* v3 date -> timestamp changes the values a partition transform sees,
 * unless the transform is year/month/day (the spec's rule). */
static floe_status check_promotion_partitions(const floe_ice_table_metadata *md, const floe_ice_field *f,
                                              const floe_ice_type *to, const char *path) {
    if (f->type->id == to->id) return NULL;
    for (int32_t s = 0; s < md->n_specs; s++)
        for (int32_t i = 0; i < md->specs[s]->n_fields; i++) {
            const floe_ice_partition_field *pf = &md->specs[s]->fields[i];
            if (!has_id(pf->source_ids, pf->n_source_ids, f->id)) continue;
            floe_ice_transform_kind k = pf->transform.kind;
            bool same_result = k == FLOE_ICE_TRANSFORM_YEAR || k == FLOE_ICE_TRANSFORM_MONTH ||
                               k == FLOE_ICE_TRANSFORM_DAY || k == FLOE_ICE_TRANSFORM_VOID;
            if (f->type->id == FLOE_ICE_DATE && !same_result)
                return floe_error(FLOE_ERR_TYPE,
                                  "cannot change column '%s' from date to %s: partition field '%s' would change values",
                                  path, floe_ice_type_id_name(to->id), pf->name);
        }
    return NULL;
}

floe_status floe_ice_tm_update_column_type(const floe_ice_table_metadata *md, const char *path,
                                           const floe_ice_type *type, floe_ice_table_metadata **out) {
    *out = NULL;
    const floe_ice_schema *cur = floe_ice_tm_current_schema(md);
    if (!cur) return floe_error(FLOE_ERR_CORRUPT, "table metadata has no current schema");
    if (!type) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "no type for column '%s'", path ? path : "");
    const floe_ice_field *f = NULL;
    FLOE_TRY(resolve(cur, path, &f));
    bool ok = floe_ice_type_is_primitive(f->type) && floe_ice_type_is_primitive(type) &&
              floe_ice_type_can_promote(f->type, type, md->format_version);
    if (!ok) {
        char *from = NULL, *to = NULL;
        floe_status s1 = type_text(f->type, &from), s2 = type_text(type, &to);
        floe_status st = floe_error(FLOE_ERR_TYPE, "cannot change column '%s' from %s to %s", path,
                                    from ? from : "?", to ? to : "?");
        floe_status_free(s1);
        floe_status_free(s2);
        floe_free(from);
        floe_free(to);
        return st;
    }
    FLOE_TRY(check_promotion_partitions(md, f, type, path));
    schema_edit e;
    FLOE_TRY(edit_start(md, &e));
    floe_ice_type *holder = NULL;
    floe_ice_field *mf = find_mut(e.root, f->id, &holder);
    floe_ice_type *t = NULL;
    floe_status st = mf ? floe_ice_type_copy(type, &t)
                        : floe_error(FLOE_ERR_INTERNAL, "column '%s' vanished from the schema copy", path);
    if (st) {
        edit_abort(&e);
        return st;
    }
    floe_ice_type_free(mf->type);
    mf->type = t;
    return edit_commit(&e, out);
}

floe_status floe_ice_tm_set_column_required(const floe_ice_table_metadata *md, const char *path, bool required,
                                            floe_ice_table_metadata **out) {
    *out = NULL;
    const floe_ice_schema *cur = floe_ice_tm_current_schema(md);
    if (!cur) return floe_error(FLOE_ERR_CORRUPT, "table metadata has no current schema");
    const floe_ice_field *f = NULL;
    FLOE_TRY(resolve(cur, path, &f));
    if (f->required != required) {
        const floe_ice_type *pt = parent_type(cur, f->id);
        if (!required && pt->id == FLOE_ICE_MAP && pt->fields[0].id == f->id)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot make '%s' optional: map keys are always required", path);
        if (!required && has_id(cur->identifier_field_ids, cur->n_identifier_field_ids, f->id))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "cannot make column '%s' optional: it is an identifier field, which must be required", path);
        if (required && !floe_ice_tm_is_empty(md))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "cannot make column '%s' required: the table holds rows, which may be null there", path);
    }
    schema_edit e;
    FLOE_TRY(edit_start(md, &e));
    floe_ice_type *holder = NULL;
    floe_ice_field *mf = find_mut(e.root, f->id, &holder);
    if (!mf) {
        edit_abort(&e);
        return floe_error(FLOE_ERR_INTERNAL, "column '%s' vanished from the schema copy", path);
    }
    mf->required = required;
    return edit_commit(&e, out);
}

/* ---- properties ------------------------------------------------------------------ */

/* The tree's "properties" object, created when absent. */
static floe_status props_object(json_t *tree, json_t **out) {
    *out = json_object_get(tree, "properties");
    if (json_is_object(*out)) return NULL;
    *out = json_object();
    return put(tree, "properties", *out) ? oom() : NULL;
}

floe_status floe_ice_tm_set_properties(const floe_ice_table_metadata *md, const char *const *kv, int32_t n_pairs,
                                       floe_ice_table_metadata **out) {
    *out = NULL;
    if (n_pairs < 0 || (n_pairs > 0 && !kv)) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "bad table property list");
    for (int32_t i = 0; i < n_pairs; i++)
        if (!kv[2 * i] || !*kv[2 * i] || !kv[2 * i + 1])
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "table property %d has no key or no value", i);
    json_t *tree = NULL, *props = NULL;
    FLOE_TRY(floe_ice_tm_edit_begin(md, &tree));
    floe_status st = props_object(tree, &props);
    for (int32_t i = 0; !st && i < n_pairs; i++)
        if (put(props, kv[2 * i], json_string(kv[2 * i + 1]))) st = oom();
    if (st) {
        json_decref(tree);
        return st;
    }
    return floe_ice_tm_edit_finish(md, tree, out);
}

floe_status floe_ice_tm_upgrade_format_version(const floe_ice_table_metadata *md, int version,
                                               floe_ice_table_metadata **out) {
    *out = NULL;
    if (version < md->format_version)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Cannot downgrade v%d table to v%d", md->format_version, version);
    if (version > FLOE_ICE_MAX_FORMAT_VERSION)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Cannot upgrade table to unsupported format version: v%d "
                          "(supported: v%d)", version, FLOE_ICE_MAX_FORMAT_VERSION);
    json_t *tree = NULL;
    FLOE_TRY(floe_ice_tm_edit_begin(md, &tree));
    int e = put(tree, "format-version", json_integer(version));
    if (version >= 2 && !json_object_get(tree, "last-sequence-number"))
        e |= put(tree, "last-sequence-number", json_integer(0));
    if (version >= 3 && !json_object_get(tree, "next-row-id")) e |= put(tree, "next-row-id", json_integer(0));
    if (e) {
        json_decref(tree);
        return oom();
    }
    return floe_ice_tm_edit_finish(md, tree, out);
}

floe_status floe_ice_tm_remove_properties(const floe_ice_table_metadata *md, const char *const *keys, int32_t n,
                                          floe_ice_table_metadata **out) {
    *out = NULL;
    if (n < 0 || (n > 0 && !keys)) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "bad table property key list");
    json_t *tree = NULL, *props = NULL;
    FLOE_TRY(floe_ice_tm_edit_begin(md, &tree));
    floe_status st = props_object(tree, &props);
    for (int32_t i = 0; !st && i < n; i++)
        if (keys[i]) json_object_del(props, keys[i]);
    if (st) {
        json_decref(tree);
        return st;
    }
    return floe_ice_tm_edit_finish(md, tree, out);
}

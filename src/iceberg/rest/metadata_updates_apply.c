/*
 * metadata_updates_apply.c — the server side of the REST commit: check a
 * CommitTableRequest's requirements against the table's current metadata,
 * then apply its updates.  See metadata_updates.h.
 *
 * Updates are applied to the JSON form of the metadata (as every other
 * metadata change in floe, table_update_internal.h) and the result is
 * parsed back, so the parser's validation has the last word.  The parser
 * does not know which update broke a rule, though, so each update is
 * checked here first for what the REST protocol and Iceberg Java's
 * TableMetadata.Builder reject (a snapshot id already present, a ref to a
 * missing snapshot, "-1" with nothing added, ...), and those errors name
 * the update by position and action.
 *
 * What the builder does besides storing the update, done here too:
 * add-schema raises last-column-id; add-spec raises last-partition-id;
 * add-snapshot raises last-sequence-number (and next-row-id in v3);
 * set-snapshot-ref of "main" moves current-snapshot-id and appends to the
 * snapshot-log (with the snapshot's own timestamp when it was added by
 * this request, as Java does); remove-snapshots also drops the refs and
 * statistics of the removed snapshots and trims the snapshot-log the way
 * Java's updateSnapshotLog does.
 *
 * Ids the OpenAPI marks read-only (schema-id, spec-id, order-id, partition
 * field-id) may be absent: the server assigns them, reusing an equivalent
 * schema/spec/order the table already has.  An id that is given and in
 * use by something different is refused rather than renumbered, so that
 * a later update naming that id cannot silently mean another object.
 *
 * md NULL is a create transaction (CreateTableRequest with stage-create,
 * then a commit whose requirement is assert-create): the updates build
 * the table from nothing; a spec, sort order and UUID the client did not
 * send are the usual defaults.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"
#include "iceberg/rest/metadata_updates.h"
#include "iceberg/update/table_update_internal.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory applying table updates"); }

/* json_object_set_new that reports failure (a NULL value is an allocation
 * failure). */
static int put(json_t *o, const char *k, json_t *v) { return v ? json_object_set_new(o, k, v) : -1; }

/* ---- requirements -------------------------------------------------------- */

static floe_status req_bad(size_t i, const char *type, const char *what) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "requirement %zu (%s): %s", i, type, what);
}

/* An int member of a requirement, or an INVALID_ARGUMENT naming it. */
static floe_status req_int(json_t *r, size_t i, const char *type, const char *key, int64_t *out) {
    json_t *j = json_object_get(r, key);
    if (!json_is_integer(j))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "requirement %zu (%s): '%s' %s", i, type, key,
                          j ? "must be an integer" : "is missing");
    *out = (int64_t)json_integer_value(j);
    return NULL;
}

static floe_status failed(const char *fmt, ...) FLOE_PRINTF(1, 2);
static floe_status failed(const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return floe_error(FLOE_ERR_CONFLICT, "requirement failed: %s", msg);
}

static floe_status check_one(const floe_ice_table_metadata *md, json_t *r, size_t i) {
    if (!json_is_object(r)) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "requirement %zu: not an object", i);
    const char *type = json_string_value(json_object_get(r, "type"));
    if (!type) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "requirement %zu: missing 'type'", i);
    int64_t v = 0;
    if (strcmp(type, "assert-create") == 0) {
        if (md) return failed("table already exists");
        return NULL;
    }
    if (strcmp(type, "assert-table-uuid") == 0) {
        const char *uuid = json_string_value(json_object_get(r, "uuid"));
        if (!uuid) return req_bad(i, type, "'uuid' is missing or not a string");
        if (!md) return failed("table does not exist (expected UUID %s)", uuid);
        if (!md->table_uuid || strcasecmp(uuid, md->table_uuid) != 0)
            return failed("UUID does not match: expected %s != %s", md->table_uuid ? md->table_uuid : "(none)", uuid);
        return NULL;
    }
    if (strcmp(type, "assert-ref-snapshot-id") == 0) {
        const char *ref = json_string_value(json_object_get(r, "ref"));
        if (!ref) return req_bad(i, type, "'ref' is missing or not a string");
        json_t *jid = json_object_get(r, "snapshot-id");
        if (!jid) return req_bad(i, type, "'snapshot-id' is missing (null means the ref must not exist)");
        if (!json_is_null(jid) && !json_is_integer(jid)) return req_bad(i, type, "'snapshot-id' must be an integer or null");
        if (!md) return failed("table does not exist (asserting ref %s)", ref);
        const floe_ice_snapshot_ref *cur = floe_ice_tm_ref(md, ref);
        if (cur) {
            const char *kind = cur->is_tag ? "tag" : "branch";
            if (json_is_null(jid)) return failed("%s %s was created concurrently", kind, ref);
            if ((int64_t)json_integer_value(jid) != cur->snapshot_id)
                return failed("%s %s has changed: expected id %" PRId64 " != %" PRId64, kind, ref,
                              (int64_t)json_integer_value(jid), cur->snapshot_id);
        } else if (!json_is_null(jid)) {
            return failed("branch or tag %s is missing, expected %" PRId64, ref, (int64_t)json_integer_value(jid));
        }
        return NULL;
    }
    /* The id assertions.  The two "last assigned" ones hold for a table
     * that does not exist (as in Java); the others need a table. */
    static const struct {
        const char *type, *key, *what;
    } ids[] = {
        {"assert-last-assigned-field-id", "last-assigned-field-id", "last assigned field id"},
        {"assert-current-schema-id", "current-schema-id", "current schema"},
        {"assert-last-assigned-partition-id", "last-assigned-partition-id", "last assigned partition id"},
        {"assert-default-spec-id", "default-spec-id", "default partition spec"},
        {"assert-default-sort-order-id", "default-sort-order-id", "default sort order"},
    };
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        if (strcmp(type, ids[k].type) != 0) continue;
        FLOE_TRY(req_int(r, i, type, ids[k].key, &v));
        if (!md) {
            if (k == 0 || k == 2) return NULL;
            return failed("table does not exist (asserting %s %" PRId64 ")", ids[k].what, v);
        }
        int64_t have = k == 0 ? md->last_column_id
                     : k == 1 ? md->current_schema_id
                     : k == 2 ? md->last_partition_id
                     : k == 3 ? md->default_spec_id
                              : md->default_sort_order_id;
        if (have != v) return failed("%s changed: expected id %" PRId64 " != %" PRId64, ids[k].what, v, have);
        return NULL;
    }
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "requirement %zu: unknown type '%s'", i, type);
}

floe_status floe_ice_md_check_requirements(const floe_ice_table_metadata *current, const json_t *requirements) {
    if (!requirements || json_is_null(requirements)) return NULL;
    if (!json_is_array(requirements))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'requirements' must be an array");
    /* Malformed requirements are reported before failed ones, so a client
     * bug is not mistaken for a conflict worth retrying. */
    floe_status first_failed = NULL;
    for (size_t i = 0; i < json_array_size(requirements); i++) {
        floe_status st = check_one(current, json_array_get(requirements, i), i);
        if (!st) continue;
        if (floe_status_code(st) != FLOE_ERR_CONFLICT) {
            floe_status_free(first_failed);
            return st;
        }
        if (first_failed) floe_status_free(st);
        else first_failed = st;
    }
    return first_failed;
}

/* ---- applying updates: state and small helpers --------------------------- */

typedef struct apply_ctx {
    const floe_ice_table_metadata *md;  /* the base */
    json_t *root;                       /* the metadata being edited */
    size_t idx;                         /* update being applied (messages) */
    const char *action;
    int64_t last_schema, last_spec, last_order; /* added by this request; -1: none */
    bool have_schema, have_spec, have_order;
    int64_t *added;                     /* snapshot ids added by this request */
    size_t n_added, cap_added;
    bool removed_snapshots;
} apply_ctx;

static floe_status ubad(const apply_ctx *c, const char *fmt, ...) FLOE_PRINTF(2, 3);
static floe_status ubad(const apply_ctx *c, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "update %zu (%s): %s", c->idx, c->action, msg);
}

/* Re-label an error from a parser or validator as a bad update. */
static floe_status urewrap(const apply_ctx *c, floe_status st) {
    if (!st || floe_status_code(st) == FLOE_ERR_OUT_OF_MEMORY) return st;
    floe_status e = floe_error(FLOE_ERR_INVALID_ARGUMENT, "update %zu (%s): %s", c->idx, c->action,
                               floe_status_message(st));
    floe_status_free(st);
    return e;
}

static floe_status get_int(const apply_ctx *c, json_t *u, const char *key, int64_t *out) {
    json_t *j = json_object_get(u, key);
    if (!j) return ubad(c, "missing '%s'", key);
    if (!json_is_integer(j)) return ubad(c, "'%s' must be an integer", key);
    *out = (int64_t)json_integer_value(j);
    return NULL;
}

static floe_status get_string(const apply_ctx *c, json_t *u, const char *key, const char **out) {
    json_t *j = json_object_get(u, key);
    if (!j) return ubad(c, "missing '%s'", key);
    if (!json_is_string(j)) return ubad(c, "'%s' must be a string", key);
    *out = json_string_value(j);
    return NULL;
}

static floe_status get_object(const apply_ctx *c, json_t *u, const char *key, json_t **out) {
    json_t *j = json_object_get(u, key);
    if (!j) return ubad(c, "missing '%s'", key);
    if (!json_is_object(j)) return ubad(c, "'%s' must be an object", key);
    *out = j;
    return NULL;
}

static floe_status get_array(const apply_ctx *c, json_t *u, const char *key, json_t **out) {
    json_t *j = json_object_get(u, key);
    if (!j) return ubad(c, "missing '%s'", key);
    if (!json_is_array(j)) return ubad(c, "'%s' must be an array", key);
    *out = j;
    return NULL;
}

/* The array member `key` of the tree, created empty when absent. */
static floe_status tree_array(apply_ctx *c, const char *key, json_t **out) {
    json_t *a = json_object_get(c->root, key);
    if (!json_is_array(a)) {
        a = json_array();
        if (put(c->root, key, a)) return oom();
    }
    *out = a;
    return NULL;
}

/* Index of the element of `arr` whose integer member `key` is `id`, or -1. */
static long find_by_id(json_t *arr, const char *key, int64_t id) {
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *v = json_object_get(json_array_get(arr, i), key);
        if (json_is_integer(v) && (int64_t)json_integer_value(v) == id) return (long)i;
    }
    return -1;
}

static int64_t highest_id(json_t *arr, const char *key) {
    int64_t h = -1;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *v = json_object_get(json_array_get(arr, i), key);
        if (json_is_integer(v) && (int64_t)json_integer_value(v) > h) h = (int64_t)json_integer_value(v);
    }
    return h;
}

static int64_t tree_int(json_t *root, const char *key, int64_t dflt) {
    json_t *j = json_object_get(root, key);
    return json_is_integer(j) ? (int64_t)json_integer_value(j) : dflt;
}

static bool was_added(const apply_ctx *c, int64_t id) {
    for (size_t i = 0; i < c->n_added; i++)
        if (c->added[i] == id) return true;
    return false;
}

/* The current schema of the tree, parsed (the caller frees). */
static floe_status tree_schema(apply_ctx *c, int64_t id, floe_ice_schema **out) {
    *out = NULL;
    json_t *arr = json_object_get(c->root, "schemas");
    long k = find_by_id(arr, "schema-id", id);
    if (k < 0) return ubad(c, "schema %" PRId64 " does not exist", id);
    return floe_ice_schema_from_json(json_array_get(arr, (size_t)k), out);
}

/* ---- schemas, specs, sort orders ------------------------------------------ */

static floe_status add_schema(apply_ctx *c, json_t *u) {
    json_t *js;
    FLOE_TRY(get_object(c, u, "schema", &js));
    json_t *jlast = json_object_get(u, "last-column-id");
    if (jlast && !json_is_integer(jlast) && !json_is_null(jlast)) return ubad(c, "'last-column-id' must be an integer");
    json_t *jid = json_object_get(js, "schema-id");
    if (jid && !json_is_integer(jid)) return ubad(c, "'schema.schema-id' must be an integer");
    floe_ice_schema *s = NULL;
    FLOE_TRY(urewrap(c, floe_ice_schema_from_json(js, &s)));
    /* Not floe_ice_schema_validate_for_table: tables written by others
     * carry what it refuses (PyIceberg puts column defaults in v2), and
     * the schema floe reads back is all that must hold. */
    floe_status st = NULL;

    /* An id in use is the same schema again (Java reuses it) or a mistake.
     * Without an id, a schema of the same structure is reused, else the
     * next id is taken. */
    json_t *arr = NULL;
    if (!st) st = tree_array(c, "schemas", &arr);
    int64_t id = jid ? (int64_t)json_integer_value(jid) : -1;
    bool reuse = false;
    for (size_t i = 0; !st && i < json_array_size(arr); i++) {
        json_t *e = json_array_get(arr, i);
        int64_t eid = tree_int(e, "schema-id", 0);
        if (jid && eid != id) continue;
        floe_ice_schema *other = NULL;
        st = floe_ice_schema_from_json(e, &other);
        if (st) break;
        bool same = floe_ice_schema_same_structure(other, s);
        floe_ice_schema_free(other);
        if (same) {
            id = eid;
            reuse = true;
            break;
        }
        if (jid) st = ubad(c, "schema id %" PRId64 " is already in use by a different schema", id);
    }
    if (!st && id < 0) id = highest_id(arr, "schema-id") + 1;
    if (!st && (id < 0 || id > INT32_MAX)) st = ubad(c, "schema id %" PRId64 " is out of range", id);
    if (!st && !reuse) {
        json_t *copy = NULL;
        st = floe_ice_schema_to_json(s, &copy);
        if (!st && (put(copy, "schema-id", json_integer(id)) || json_array_append_new(arr, copy))) st = oom();
        else if (st) json_decref(copy);
    }
    if (!st) {
        int64_t last = tree_int(c->root, "last-column-id", 0);
        int64_t h = floe_ice_schema_highest_field_id(s);
        if (h > last) last = h;
        if (json_is_integer(jlast) && (int64_t)json_integer_value(jlast) > last) last = (int64_t)json_integer_value(jlast);
        if (put(c->root, "last-column-id", json_integer(last))) st = oom();
    }
    floe_ice_schema_free(s);
    if (st) return st;
    c->last_schema = id;
    c->have_schema = true;
    return NULL;
}

/* The id an update names, with -1 meaning the one this request added. */
static floe_status resolve_last(apply_ctx *c, json_t *u, const char *key, bool have, int64_t last, const char *what,
                                int64_t *out) {
    FLOE_TRY(get_int(c, u, key, out));
    if (*out == -1) {
        if (!have) return ubad(c, "%s -1 (the last added) but no %s was added in this request", key, what);
        *out = last;
    }
    return NULL;
}

static floe_status set_current_schema(apply_ctx *c, json_t *u) {
    int64_t id;
    FLOE_TRY(resolve_last(c, u, "schema-id", c->have_schema, c->last_schema, "schema", &id));
    if (find_by_id(json_object_get(c->root, "schemas"), "schema-id", id) < 0)
        return ubad(c, "schema %" PRId64 " does not exist", id);
    json_object_del(c->root, "schema"); /* v1's copy of the current schema; the writer redoes it */
    return put(c->root, "current-schema-id", json_integer(id)) ? oom() : NULL;
}

static floe_status add_spec(apply_ctx *c, json_t *u) {
    json_t *in;
    FLOE_TRY(get_object(c, u, "spec", &in));
    json_t *jid = json_object_get(in, "spec-id");
    if (jid && !json_is_integer(jid)) return ubad(c, "'spec.spec-id' must be an integer");
    json_t *fields = json_object_get(in, "fields");
    if (!json_is_array(fields)) return ubad(c, "'spec.fields' is missing or not an array");
    json_t *arr = NULL;
    FLOE_TRY(tree_array(c, "partition-specs", &arr));
    int64_t last_pid = tree_int(c->root, "last-partition-id", FLOE_ICE_PARTITION_DATA_ID_START - 1);

    /* A copy with the ids the protocol leaves to the server filled in:
     * the spec id, and partition field ids above last-partition-id. */
    json_t *js = json_deep_copy(in);
    if (!js) return oom();
    int64_t id = jid ? (int64_t)json_integer_value(jid) : highest_id(arr, "spec-id") + 1;
    floe_status st = NULL;
    if (id < 0 || id > INT32_MAX) st = ubad(c, "spec id %" PRId64 " is out of range", id);
    if (!st && put(js, "spec-id", json_integer(id))) st = oom();
    json_t *jf = json_object_get(js, "fields");
    int64_t next_pid = last_pid + 1;
    for (size_t i = 0; !st && i < json_array_size(jf); i++) {
        json_t *f = json_array_get(jf, i);
        if (json_is_object(f) && !json_object_get(f, "field-id") && put(f, "field-id", json_integer(next_pid++))) st = oom();
    }
    floe_ice_partition_spec *spec = NULL;
    if (!st) st = urewrap(c, floe_ice_partition_spec_from_json(js, &spec));
    floe_ice_schema *schema = NULL;
    if (!st) st = tree_schema(c, tree_int(c->root, "current-schema-id", 0), &schema);
    if (!st) st = urewrap(c, floe_ice_partition_spec_validate(spec, schema));
    floe_ice_schema_free(schema);

    bool reuse = false;
    /* No id given: an equivalent spec the table has is reused (as Java's
     * builder does), rather than added twice. */
    for (size_t i = 0; !st && !jid && !reuse && i < json_array_size(arr); i++) {
        floe_ice_partition_spec *other = NULL;
        st = floe_ice_partition_spec_from_json(json_array_get(arr, i), &other);
        if (!st && floe_ice_partition_spec_equivalent(other, spec)) {
            reuse = true;
            id = other->spec_id;
        }
        floe_ice_partition_spec_free(other);
    }
    long k = st || reuse ? -1 : find_by_id(arr, "spec-id", id);
    if (k >= 0) {
        floe_ice_partition_spec *other = NULL;
        st = floe_ice_partition_spec_from_json(json_array_get(arr, (size_t)k), &other);
        if (!st) {
            json_t *a = NULL, *b = NULL;
            st = floe_ice_partition_fields_to_json(other, &a);
            if (!st) st = floe_ice_partition_fields_to_json(spec, &b);
            if (!st) {
                reuse = json_equal(a, b);
                if (!reuse) st = ubad(c, "spec id %" PRId64 " is already in use by a different spec", id);
            }
            json_decref(a);
            json_decref(b);
        }
        floe_ice_partition_spec_free(other);
    }
    if (!st && !reuse) {
        json_t *out = NULL;
        st = floe_ice_partition_spec_to_json(spec, &out);
        if (!st && json_array_append_new(arr, out)) st = oom();
        int64_t l = floe_ice_partition_spec_last_field_id(spec);
        if (!st && l > last_pid && put(c->root, "last-partition-id", json_integer(l))) st = oom();
    }
    floe_ice_partition_spec_free(spec);
    json_decref(js);
    if (st) return st;
    c->last_spec = id;
    c->have_spec = true;
    return NULL;
}

static floe_status set_default_spec(apply_ctx *c, json_t *u) {
    int64_t id;
    FLOE_TRY(resolve_last(c, u, "spec-id", c->have_spec, c->last_spec, "spec", &id));
    if (find_by_id(json_object_get(c->root, "partition-specs"), "spec-id", id) < 0)
        return ubad(c, "partition spec %" PRId64 " does not exist", id);
    json_object_del(c->root, "partition-spec"); /* v1's copy of the default spec */
    return put(c->root, "default-spec-id", json_integer(id)) ? oom() : NULL;
}

static floe_status add_sort_order(apply_ctx *c, json_t *u) {
    json_t *in;
    FLOE_TRY(get_object(c, u, "sort-order", &in));
    json_t *arr = NULL;
    FLOE_TRY(tree_array(c, "sort-orders", &arr));
    json_t *jid = json_object_get(in, "order-id");
    if (jid && !json_is_integer(jid)) return ubad(c, "'sort-order.order-id' must be an integer");
    json_t *fields = json_object_get(in, "fields");
    if (!json_is_array(fields)) return ubad(c, "'sort-order.fields' is missing or not an array");
    /* order-id is read-only in the OpenAPI: without one, the unsorted
     * order is 0, another takes the id of an order with the same fields
     * or the next free one. */
    json_t *copy = json_deep_copy(in);
    if (!copy) return oom();
    int64_t given = jid ? (int64_t)json_integer_value(jid) : 0;
    if (!jid && json_array_size(fields) > 0) {
        int64_t h = highest_id(arr, "order-id");
        given = h < 1 ? 1 : h + 1;
    }
    if (given < 0 || given > INT32_MAX || put(copy, "order-id", json_integer(given))) {
        json_decref(copy);
        return given < 0 || given > INT32_MAX ? ubad(c, "sort order id %" PRId64 " is out of range", given) : oom();
    }
    floe_ice_sort_order *o = NULL;
    floe_status st = urewrap(c, floe_ice_sort_order_from_json(copy, &o));
    json_decref(copy);
    if (st) return st;
    for (size_t i = 0; !jid && i < json_array_size(arr); i++) {
        floe_ice_sort_order *other = NULL;
        st = floe_ice_sort_order_from_json(json_array_get(arr, i), &other);
        if (!st && floe_ice_sort_order_same_fields(other, o)) o->order_id = other->order_id;
        floe_ice_sort_order_free(other);
        if (st) break;
    }
    floe_ice_schema *schema = NULL;
    if (!st) st = tree_schema(c, tree_int(c->root, "current-schema-id", 0), &schema);
    if (!st) st = urewrap(c, floe_ice_sort_order_validate(o, schema));
    floe_ice_schema_free(schema);
    int64_t id = o->order_id;
    if (!st && id == 0 && o->n_fields > 0) st = ubad(c, "sort order id 0 is reserved for the unsorted order");
    if (!st && id != 0 && o->n_fields == 0) st = ubad(c, "the unsorted order must have id 0");
    bool reuse = false;
    long k = st ? -1 : find_by_id(arr, "order-id", id);
    if (k >= 0) {
        floe_ice_sort_order *other = NULL;
        st = floe_ice_sort_order_from_json(json_array_get(arr, (size_t)k), &other);
        if (!st) {
            reuse = floe_ice_sort_order_same_fields(other, o);
            if (!reuse) st = ubad(c, "sort order id %" PRId64 " is already in use by a different order", id);
        }
        floe_ice_sort_order_free(other);
    }
    if (!st && !reuse) {
        json_t *out = NULL;
        st = floe_ice_sort_order_to_json(o, &out);
        if (!st && json_array_append_new(arr, out)) st = oom();
    }
    floe_ice_sort_order_free(o);
    if (st) return st;
    c->last_order = id;
    c->have_order = true;
    return NULL;
}

static floe_status set_default_sort_order(apply_ctx *c, json_t *u) {
    int64_t id;
    FLOE_TRY(resolve_last(c, u, "sort-order-id", c->have_order, c->last_order, "sort order", &id));
    if (find_by_id(json_object_get(c->root, "sort-orders"), "order-id", id) < 0)
        return ubad(c, "sort order %" PRId64 " does not exist", id);
    return put(c->root, "default-sort-order-id", json_integer(id)) ? oom() : NULL;
}

/* remove-schemas / remove-partition-specs: never the current one. */
static floe_status remove_ids(apply_ctx *c, json_t *u, const char *ids_key, const char *arr_key, const char *id_key,
                              const char *cur_key, const char *what) {
    json_t *ids;
    FLOE_TRY(get_array(c, u, ids_key, &ids));
    json_t *arr = json_object_get(c->root, arr_key);
    int64_t cur = tree_int(c->root, cur_key, -1);
    for (size_t i = 0; i < json_array_size(ids); i++) {
        json_t *j = json_array_get(ids, i);
        if (!json_is_integer(j)) return ubad(c, "'%s' must hold integers", ids_key);
        int64_t id = (int64_t)json_integer_value(j);
        if (id == cur) return ubad(c, "cannot remove the current %s %" PRId64, what, id);
        long k = find_by_id(arr, id_key, id);
        if (k >= 0) json_array_remove(arr, (size_t)k);
    }
    return NULL;
}

/* ---- snapshots and refs -------------------------------------------------- */

static floe_status add_snapshot(apply_ctx *c, json_t *u) {
    json_t *in;
    FLOE_TRY(get_object(c, u, "snapshot", &in));
    int64_t id, ts, seq = 0;
    FLOE_TRY(get_int(c, in, "snapshot-id", &id));
    FLOE_TRY(get_int(c, in, "timestamp-ms", &ts));
    int fv = (int)tree_int(c->root, "format-version", 2);
    json_t *jseq = json_object_get(in, "sequence-number");
    if (jseq && !json_is_integer(jseq)) return ubad(c, "'snapshot.sequence-number' must be an integer");
    if (jseq) seq = (int64_t)json_integer_value(jseq);
    json_t *jparent = json_object_get(in, "parent-snapshot-id");
    if (jparent && !json_is_integer(jparent) && !json_is_null(jparent))
        return ubad(c, "'snapshot.parent-snapshot-id' must be an integer");
    json_t *list = json_object_get(in, "manifest-list");
    if (list && !json_is_string(list)) return ubad(c, "'snapshot.manifest-list' must be a string");
    if (!list && (fv >= 2 || !json_is_array(json_object_get(in, "manifests"))))
        return ubad(c, "snapshot %" PRId64 ": missing 'manifest-list'", id);
    json_t *sum = json_object_get(in, "summary");
    if (sum && !json_is_null(sum) && !json_is_object(sum)) return ubad(c, "'snapshot.summary' must be an object");
    if (json_is_object(sum) && json_object_get(sum, "operation") && !json_is_string(json_object_get(sum, "operation")))
        return ubad(c, "'snapshot.summary.operation' must be a string");

    json_t *arr = NULL;
    FLOE_TRY(tree_array(c, "snapshots", &arr));
    if (find_by_id(arr, "snapshot-id", id) >= 0) return ubad(c, "snapshot %" PRId64 " already exists", id);
    int64_t last_seq = tree_int(c->root, "last-sequence-number", 0);
    if (fv >= 2 && jparent && json_is_integer(jparent) && seq <= last_seq)
        return ubad(c, "snapshot %" PRId64 " has sequence number %" PRId64 ", not above the table's last %" PRId64, id,
                    seq, last_seq);
    json_t *jfirst = json_object_get(in, "first-row-id"), *jrows = json_object_get(in, "added-rows");
    if ((jfirst && !json_is_integer(jfirst) && !json_is_null(jfirst)) ||
        (jrows && !json_is_integer(jrows) && !json_is_null(jrows)))
        return ubad(c, "'first-row-id' and 'added-rows' must be integers");
    if (fv >= 3 && json_is_integer(jfirst)) {
        int64_t next_row = tree_int(c->root, "next-row-id", 0);
        if ((int64_t)json_integer_value(jfirst) < next_row)
            return ubad(c, "snapshot %" PRId64 ": first-row-id %" PRId64 " is behind the table's next-row-id %" PRId64, id,
                        (int64_t)json_integer_value(jfirst), next_row);
        if (json_is_integer(jrows) &&
            put(c->root, "next-row-id", json_integer(next_row + (int64_t)json_integer_value(jrows))))
            return oom();
    }

    json_t *copy = json_deep_copy(in);
    if (!copy) return oom();
    if (fv < 2) json_object_del(copy, "sequence-number"); /* v1 has none */
    if (json_array_append_new(arr, copy)) return oom();
    if (fv >= 2 && seq > last_seq && put(c->root, "last-sequence-number", json_integer(seq))) return oom();
    if (c->n_added == c->cap_added) {
        size_t cap = c->cap_added ? c->cap_added * 2 : 8;
        int64_t *a = floe_realloc(c->added, cap * sizeof *a);
        if (!a) return oom();
        c->added = a;
        c->cap_added = cap;
    }
    c->added[c->n_added++] = id;
    return NULL;
}

/* The tree's "refs"; metadata without one has "main" implied by
 * current-snapshot-id, which becomes explicit before a ref changes. */
static floe_status tree_refs(apply_ctx *c, json_t **out) {
    json_t *refs = json_object_get(c->root, "refs");
    if (json_is_object(refs)) {
        *out = refs;
        return NULL;
    }
    refs = json_object();
    if (put(c->root, "refs", refs)) return oom();
    int64_t cur = tree_int(c->root, "current-snapshot-id", FLOE_ICE_NO_SNAPSHOT);
    if (cur != FLOE_ICE_NO_SNAPSHOT &&
        put(refs, "main", json_pack("{s:I, s:s}", "snapshot-id", (json_int_t)cur, "type", "branch")))
        return oom();
    *out = refs;
    return NULL;
}

static floe_status set_snapshot_ref(apply_ctx *c, json_t *u) {
    const char *name, *type;
    int64_t id;
    FLOE_TRY(get_string(c, u, "ref-name", &name));
    FLOE_TRY(get_string(c, u, "type", &type));
    FLOE_TRY(get_int(c, u, "snapshot-id", &id));
    bool tag = strcmp(type, "tag") == 0;
    if (!tag && strcmp(type, "branch") != 0) return ubad(c, "ref type must be \"branch\" or \"tag\", not '%s'", type);
    if (!*name) return ubad(c, "empty 'ref-name'");
    if (tag && strcmp(name, "main") == 0) return ubad(c, "\"main\" must be a branch");
    json_t *snaps = json_object_get(c->root, "snapshots");
    long k = find_by_id(snaps, "snapshot-id", id);
    if (k < 0) return ubad(c, "ref '%s' cannot point to snapshot %" PRId64 ", which does not exist", name, id);

    json_t *ref = json_pack("{s:I, s:s}", "snapshot-id", (json_int_t)id, "type", type);
    if (!ref) return oom();
    static const char *const opt[] = {"max-ref-age-ms", "max-snapshot-age-ms", "min-snapshots-to-keep"};
    for (size_t i = 0; i < 3; i++) {
        json_t *v = json_object_get(u, opt[i]);
        if (!v || json_is_null(v)) continue;
        if (!json_is_integer(v) || json_integer_value(v) < 0 || (i == 2 && json_integer_value(v) > INT32_MAX)) {
            json_decref(ref);
            return ubad(c, "'%s' must be a non-negative integer", opt[i]);
        }
        if (tag && i > 0) {
            json_decref(ref);
            return ubad(c, "'%s' applies to branches only", opt[i]);
        }
        if (json_object_set(ref, opt[i], v)) {
            json_decref(ref);
            return oom();
        }
    }
    json_t *refs = NULL;
    floe_status st = tree_refs(c, &refs);
    if (st) {
        json_decref(ref);
        return st;
    }
    json_t *old = json_object_get(refs, name);
    int64_t old_id = json_is_object(old) ? tree_int(old, "snapshot-id", FLOE_ICE_NO_SNAPSHOT) : FLOE_ICE_NO_SNAPSHOT;
    bool moved = !json_is_object(old) || old_id != id;
    if (put(refs, name, ref)) return oom();
    if (strcmp(name, "main") != 0 || !moved) return NULL;

    /* "main" is the table's current state: its history is the snapshot-log. */
    int64_t ts = was_added(c, id) ? tree_int(json_array_get(snaps, (size_t)k), "timestamp-ms", 0) : floe_ice_now_ms();
    json_t *log = NULL;
    FLOE_TRY(tree_array(c, "snapshot-log", &log));
    json_t *e = json_pack("{s:I, s:I}", "timestamp-ms", (json_int_t)ts, "snapshot-id", (json_int_t)id);
    if (!e || json_array_append_new(log, e)) return oom();
    return put(c->root, "current-snapshot-id", json_integer(id)) ? oom() : NULL;
}

static floe_status remove_ref_named(apply_ctx *c, const char *name) {
    json_t *refs = NULL;
    FLOE_TRY(tree_refs(c, &refs));
    bool is_main = strcmp(name, "main") == 0; /* `name` may be the key about to be freed */
    json_object_del(refs, name);
    if (is_main && put(c->root, "current-snapshot-id", json_integer(FLOE_ICE_NO_SNAPSHOT)))
        return oom();
    return NULL;
}

static floe_status remove_snapshot_ref(apply_ctx *c, json_t *u) {
    const char *name;
    FLOE_TRY(get_string(c, u, "ref-name", &name));
    return remove_ref_named(c, name);
}

/* Drop every element of tree array `key` whose "snapshot-id" is `id`. */
static void drop_by_snapshot(json_t *root, const char *key, int64_t id) {
    json_t *arr = json_object_get(root, key);
    for (long k; (k = find_by_id(arr, "snapshot-id", id)) >= 0;) json_array_remove(arr, (size_t)k);
}

static floe_status remove_snapshots(apply_ctx *c, json_t *u) {
    json_t *ids;
    FLOE_TRY(get_array(c, u, "snapshot-ids", &ids));
    for (size_t i = 0; i < json_array_size(ids); i++)
        if (!json_is_integer(json_array_get(ids, i))) return ubad(c, "'snapshot-ids' must hold integers");
    json_t *snaps = json_object_get(c->root, "snapshots");
    for (size_t i = 0; i < json_array_size(ids); i++) {
        int64_t id = (int64_t)json_integer_value(json_array_get(ids, i));
        long k = find_by_id(snaps, "snapshot-id", id);
        if (k < 0) continue; /* already gone: nothing to do (as in Java) */
        json_array_remove(snaps, (size_t)k);
        c->removed_snapshots = true;
        drop_by_snapshot(c->root, "statistics", id);
        drop_by_snapshot(c->root, "partition-statistics", id);
        /* Refs to the snapshot go with it. */
        json_t *refs = NULL;
        FLOE_TRY(tree_refs(c, &refs));
        const char *name;
        json_t *r;
        void *tmp;
        json_object_foreach_safe(refs, tmp, name, r) {
            if (tree_int(r, "snapshot-id", FLOE_ICE_NO_SNAPSHOT) == id) FLOE_TRY(remove_ref_named(c, name));
        }
        if (tree_int(c->root, "current-snapshot-id", FLOE_ICE_NO_SNAPSHOT) == id &&
            put(c->root, "current-snapshot-id", json_integer(FLOE_ICE_NO_SNAPSHOT)))
            return oom();
    }
    return NULL;
}

/* After snapshots were removed: an entry of the snapshot-log whose snapshot
 * is gone makes the history before it unreliable, so that history is
 * dropped with it (Java's TableMetadata.updateSnapshotLog). */
static void trim_snapshot_log(apply_ctx *c) {
    json_t *log = json_object_get(c->root, "snapshot-log");
    json_t *snaps = json_object_get(c->root, "snapshots");
    size_t keep_from = 0;
    for (size_t i = 0; i < json_array_size(log); i++) {
        int64_t id = tree_int(json_array_get(log, i), "snapshot-id", FLOE_ICE_NO_SNAPSHOT);
        if (find_by_id(snaps, "snapshot-id", id) < 0) keep_from = i + 1;
    }
    for (size_t i = 0; i < keep_from; i++) json_array_remove(log, 0);
}

/* ---- the rest ----------------------------------------------------------- */

static floe_status assign_uuid(apply_ctx *c, json_t *u) {
    const char *uuid;
    FLOE_TRY(get_string(c, u, "uuid", &uuid));
    if (strlen(uuid) != 36) return ubad(c, "'%s' is not a UUID", uuid);
    const char *cur = json_string_value(json_object_get(c->root, "table-uuid"));
    if (cur && strcasecmp(cur, uuid) != 0)
        return ubad(c, "the table already has UUID %s; it cannot be changed to %s", cur, uuid);
    return put(c->root, "table-uuid", json_string(uuid)) ? oom() : NULL;
}

static floe_status upgrade_format_version(apply_ctx *c, json_t *u) {
    int64_t v;
    FLOE_TRY(get_int(c, u, "format-version", &v));
    int64_t cur = tree_int(c->root, "format-version", 1);
    if (v > FLOE_ICE_MAX_FORMAT_VERSION)
        return ubad(c, "format version %" PRId64 " is not supported (floe knows 1 to %d)", v, FLOE_ICE_MAX_FORMAT_VERSION);
    if (v < cur) return ubad(c, "cannot downgrade format version %" PRId64 " to %" PRId64, cur, v);
    if (v == cur) return NULL;
    if (put(c->root, "format-version", json_integer(v))) return oom();
    if (!json_object_get(c->root, "last-sequence-number") && put(c->root, "last-sequence-number", json_integer(0)))
        return oom();
    if (v >= 3 && !json_object_get(c->root, "next-row-id") && put(c->root, "next-row-id", json_integer(0))) return oom();
    return NULL;
}

static floe_status set_location(apply_ctx *c, json_t *u) {
    const char *loc;
    FLOE_TRY(get_string(c, u, "location", &loc));
    if (!*loc) return ubad(c, "empty location");
    return put(c->root, "location", json_string(loc)) ? oom() : NULL;
}

static floe_status set_properties(apply_ctx *c, json_t *u) {
    json_t *upd;
    FLOE_TRY(get_object(c, u, "updates", &upd));
    json_t *props = json_object_get(c->root, "properties");
    if (!json_is_object(props)) {
        props = json_object();
        if (put(c->root, "properties", props)) return oom();
    }
    const char *k;
    json_t *v;
    json_object_foreach(upd, k, v) {
        if (!json_is_string(v)) return ubad(c, "the value of property '%s' must be a string", k);
    }
    json_object_foreach(upd, k, v) {
        if (json_object_set(props, k, v)) return oom();
    }
    return NULL;
}

static floe_status remove_properties(apply_ctx *c, json_t *u) {
    json_t *keys;
    FLOE_TRY(get_array(c, u, "removals", &keys));
    for (size_t i = 0; i < json_array_size(keys); i++)
        if (!json_is_string(json_array_get(keys, i))) return ubad(c, "'removals' must hold strings");
    json_t *props = json_object_get(c->root, "properties");
    for (size_t i = 0; json_is_object(props) && i < json_array_size(keys); i++)
        json_object_del(props, json_string_value(json_array_get(keys, i)));
    return NULL;
}

/* set-statistics and set-partition-statistics: replace the entry of the
 * same snapshot, else append. */
static floe_status set_stats(apply_ctx *c, json_t *u, const char *key, bool partition) {
    json_t *in;
    FLOE_TRY(get_object(c, u, key, &in));
    int64_t id, v;
    FLOE_TRY(get_int(c, in, "snapshot-id", &id));
    const char *path;
    FLOE_TRY(get_string(c, in, "statistics-path", &path));
    FLOE_TRY(get_int(c, in, "file-size-in-bytes", &v));
    if (!partition) {
        FLOE_TRY(get_int(c, in, "file-footer-size-in-bytes", &v));
        json_t *bm;
        FLOE_TRY(get_array(c, in, "blob-metadata", &bm));
        json_t *outer = json_object_get(u, "snapshot-id");
        if (outer && !json_is_null(outer) && (!json_is_integer(outer) || (int64_t)json_integer_value(outer) != id))
            return ubad(c, "'snapshot-id' differs from 'statistics.snapshot-id' %" PRId64, id);
    }
    json_t *arr = NULL;
    FLOE_TRY(tree_array(c, key, &arr));
    json_t *copy = json_deep_copy(in);
    if (!copy) return oom();
    long k = find_by_id(arr, "snapshot-id", id);
    if (k >= 0) return json_array_set_new(arr, (size_t)k, copy) ? oom() : NULL;
    return json_array_append_new(arr, copy) ? oom() : NULL;
}

static floe_status remove_stats(apply_ctx *c, json_t *u, const char *key) {
    int64_t id;
    FLOE_TRY(get_int(c, u, "snapshot-id", &id));
    drop_by_snapshot(c->root, key, id);
    return NULL;
}

static floe_status add_encryption_key(apply_ctx *c, json_t *u) {
    json_t *in;
    FLOE_TRY(get_object(c, u, "encryption-key", &in));
    const char *kid;
    FLOE_TRY(get_string(c, in, "key-id", &kid));
    json_t *arr = NULL;
    FLOE_TRY(tree_array(c, "encryption-keys", &arr));
    json_t *copy = json_deep_copy(in);
    if (!copy) return oom();
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const char *other = json_string_value(json_object_get(json_array_get(arr, i), "key-id"));
        if (other && strcmp(other, kid) == 0) return json_array_set_new(arr, i, copy) ? oom() : NULL;
    }
    return json_array_append_new(arr, copy) ? oom() : NULL;
}

static floe_status remove_encryption_key(apply_ctx *c, json_t *u) {
    const char *kid;
    FLOE_TRY(get_string(c, u, "key-id", &kid));
    json_t *arr = json_object_get(c->root, "encryption-keys");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const char *other = json_string_value(json_object_get(json_array_get(arr, i), "key-id"));
        if (other && strcmp(other, kid) == 0) {
            json_array_remove(arr, i);
            break;
        }
    }
    return NULL;
}

static floe_status apply_one(apply_ctx *c, json_t *u) {
    const char *a = c->action;
    if (strcmp(a, "assign-uuid") == 0) return assign_uuid(c, u);
    if (strcmp(a, "upgrade-format-version") == 0) return upgrade_format_version(c, u);
    if (strcmp(a, "add-schema") == 0) return add_schema(c, u);
    if (strcmp(a, "set-current-schema") == 0) return set_current_schema(c, u);
    if (strcmp(a, "add-spec") == 0) return add_spec(c, u);
    if (strcmp(a, "set-default-spec") == 0) return set_default_spec(c, u);
    if (strcmp(a, "add-sort-order") == 0) return add_sort_order(c, u);
    if (strcmp(a, "set-default-sort-order") == 0) return set_default_sort_order(c, u);
    if (strcmp(a, "add-snapshot") == 0) return add_snapshot(c, u);
    if (strcmp(a, "set-snapshot-ref") == 0) return set_snapshot_ref(c, u);
    if (strcmp(a, "remove-snapshots") == 0) return remove_snapshots(c, u);
    if (strcmp(a, "remove-snapshot-ref") == 0) return remove_snapshot_ref(c, u);
    if (strcmp(a, "set-location") == 0) return set_location(c, u);
    if (strcmp(a, "set-properties") == 0) return set_properties(c, u);
    if (strcmp(a, "remove-properties") == 0) return remove_properties(c, u);
    if (strcmp(a, "set-statistics") == 0) return set_stats(c, u, "statistics", false);
    if (strcmp(a, "remove-statistics") == 0) return remove_stats(c, u, "statistics");
    if (strcmp(a, "set-partition-statistics") == 0) return set_stats(c, u, "partition-statistics", true);
    if (strcmp(a, "remove-partition-statistics") == 0) return remove_stats(c, u, "partition-statistics");
    if (strcmp(a, "remove-schemas") == 0)
        return remove_ids(c, u, "schema-ids", "schemas", "schema-id", "current-schema-id", "schema");
    if (strcmp(a, "remove-partition-specs") == 0)
        return remove_ids(c, u, "spec-ids", "partition-specs", "spec-id", "default-spec-id", "partition spec");
    if (strcmp(a, "add-encryption-key") == 0) return add_encryption_key(c, u);
    if (strcmp(a, "remove-encryption-key") == 0) return remove_encryption_key(c, u);
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "update %zu: unknown action '%s'", c->idx, a);
}

/* The tree a create transaction starts from (md NULL): no schema, spec or
 * order yet, at the format version the updates ask for (Java's clients
 * send upgrade-format-version first; 2 when they do not). */
static floe_status empty_tree(json_t *updates, json_t **out) {
    json_int_t fv = 2;
    for (size_t i = 0; i < json_array_size(updates); i++) {
        json_t *u = json_array_get(updates, i);
        json_t *v = json_object_get(u, "format-version");
        const char *a = json_string_value(json_object_get(u, "action"));
        if (a && strcmp(a, "upgrade-format-version") == 0 && json_is_integer(v) && json_integer_value(v) >= 1 &&
            json_integer_value(v) <= FLOE_ICE_MAX_FORMAT_VERSION) {
            fv = json_integer_value(v);
            break;
        }
    }
    *out = json_pack("{s:I, s:s, s:I, s:I, s:i, s:i, s:[], s:i, s:[], s:i, s:i, s:[], s:{}, s:i, s:{}, s:[], s:[], s:[]}",
                     "format-version", fv, "location", "", "last-sequence-number", (json_int_t)0, "last-updated-ms",
                     (json_int_t)0, "last-column-id", 0, "current-schema-id", -1, "schemas", "default-spec-id", -1,
                     "partition-specs", "last-partition-id", FLOE_ICE_PARTITION_DATA_ID_START - 1,
                     "default-sort-order-id", -1, "sort-orders", "properties", "current-snapshot-id",
                     FLOE_ICE_NO_SNAPSHOT, "refs", "snapshots", "snapshot-log", "metadata-log");
    if (!*out) return oom();
    if (fv >= 3 && put(*out, "next-row-id", json_integer(0))) return oom();
    return NULL;
}

/* A created table that was given no spec, order or UUID gets the usual
 * ones: unpartitioned spec 0, unsorted order 0, a random UUID. */
static floe_status finish_new_table(apply_ctx *c) {
    json_t *specs = json_object_get(c->root, "partition-specs");
    if (!json_array_size(specs) &&
        (json_array_append_new(specs, json_pack("{s:i, s:[]}", "spec-id", 0, "fields")) ||
         put(c->root, "default-spec-id", json_integer(0))))
        return oom();
    json_t *orders = json_object_get(c->root, "sort-orders");
    if (!json_array_size(orders) &&
        (json_array_append_new(orders, json_pack("{s:i, s:[]}", "order-id", 0, "fields")) ||
         put(c->root, "default-sort-order-id", json_integer(0))))
        return oom();
    if (!json_object_get(c->root, "table-uuid")) {
        char uuid[37];
        FLOE_TRY(floe_ice_uuid4(uuid));
        if (put(c->root, "table-uuid", json_string(uuid))) return oom();
    }
    if (!json_array_size(json_object_get(c->root, "schemas")))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "creating a table: the updates add no schema");
    if (!*json_string_value(json_object_get(c->root, "location")))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "creating a table: the updates set no location");
    return NULL;
}

floe_status floe_ice_md_apply_updates(const floe_ice_table_metadata *md, const json_t *updates,
                                      floe_ice_table_metadata **out) {
    *out = NULL;
    if (updates && !json_is_null(updates) && !json_is_array(updates))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'updates' must be an array");
    apply_ctx c;
    memset(&c, 0, sizeof c);
    c.md = md;
    c.last_schema = c.last_spec = c.last_order = -1;
    /* md NULL: the table is being created (a create transaction, after
     * assert-create held). */
    FLOE_TRY(md ? floe_ice_tm_edit_begin(md, &c.root) : empty_tree((json_t *)updates, &c.root));
    floe_status st = NULL;
    for (size_t i = 0; !st && i < json_array_size(updates); i++) {
        json_t *u = json_array_get(updates, i);
        c.idx = i;
        if (!json_is_object(u)) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "update %zu: not an object", i);
            break;
        }
        c.action = json_string_value(json_object_get(u, "action"));
        if (!c.action) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "update %zu: missing 'action'", i);
            break;
        }
        st = apply_one(&c, u);
    }
    if (!st && c.removed_snapshots) trim_snapshot_log(&c);
    if (!st && !md) st = finish_new_table(&c);
    floe_free(c.added);
    if (st) {
        json_decref(c.root);
        return st;
    }
    st = floe_ice_tm_edit_finish(md, c.root, out);
    if (st && floe_status_code(st) != FLOE_ERR_OUT_OF_MEMORY) {
        floe_status e = floe_error(FLOE_ERR_INVALID_ARGUMENT, "the updates give invalid table metadata: %s",
                                   floe_status_message(st));
        floe_status_free(st);
        st = e;
    }
    return st;
}

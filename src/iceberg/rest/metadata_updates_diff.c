/*
 * metadata_updates_diff.c — the client side of the REST commit: the
 * requirements and updates that turn a table's base metadata into the
 * metadata floe made from it.  See metadata_updates.h.
 *
 * floe's producers make new metadata whole; a REST catalog wants the
 * change as a list of TableUpdate objects.  Rather than have every
 * producer record what it did, the two versions are compared: both are
 * written to their JSON form (which holds everything, including fields
 * floe does not interpret), and what differs becomes updates, in the order
 * Iceberg Java's builder would record them (schemas, specs and orders
 * before the snapshots that may use them; a snapshot before the ref that
 * points to it).  Schemas, specs, orders and snapshots are compared as
 * their JSON objects: the objects of one id must be identical in both
 * versions (they are immutable in Iceberg), else the two are not versions
 * of one table and the diff is refused.
 *
 * The requirements follow Iceberg Java's UpdateRequirements.forUpdateTable:
 * the table's UUID, then per update the state that update assumed.  With
 * no base (a table being created) the requirement is assert-create and
 * the updates build all of next (forCreateTable).
 *
 * What the protocol cannot carry: last-updated-ms and the metadata-log
 * (the committing catalog writes them), and the time of a snapshot-log
 * entry for a snapshot that was not added by this commit (a rollback:
 * the server stamps it when it applies the update).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "floe/memory.h"
#include "iceberg/rest/metadata_updates.h"
#include "iceberg/update/table_update_internal.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory computing table updates"); }

/* Append a new reference to `arr`; a NULL value is an allocation failure. */
static floe_status push(json_t *arr, json_t *v) { return v && !json_array_append_new(arr, v) ? NULL : oom(); }

static json_t *find_by_id(json_t *arr, const char *key, int64_t id) {
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *e = json_array_get(arr, i);
        json_t *v = json_object_get(e, key);
        if (json_is_integer(v) && (int64_t)json_integer_value(v) == id) return e;
    }
    return NULL;
}

/* ---- requirements --------------------------------------------------------- */

typedef struct req_state {
    const floe_ice_table_metadata *base;
    json_t *reqs;
    json_t *refs_seen;   /* object used as a set of ref names */
    bool added_schema, set_schema, added_spec, set_spec, set_order;
} req_state;

static floe_status require_ref(req_state *s, const char *name, bool always) {
    if (!always && json_object_get(s->refs_seen, name)) return NULL;
    if (json_object_set_new(s->refs_seen, name, json_true())) return oom();
    const floe_ice_snapshot_ref *r = floe_ice_tm_ref(s->base, name);
    json_t *id = r ? json_integer(r->snapshot_id) : json_null();
    return push(s->reqs, json_pack("{s:s, s:s, s:o}", "type", "assert-ref-snapshot-id", "ref", name, "snapshot-id", id));
}

static floe_status require_int(req_state *s, bool *done, const char *type, const char *key, int64_t v) {
    if (*done) return NULL;
    *done = true;
    return push(s->reqs, json_pack("{s:s, s:I}", "type", type, key, (json_int_t)v));
}

/* Every non-main branch must be where it was: removing schemas or specs
 * is only safe when no writer is using an old one on another branch. */
static floe_status require_branches(req_state *s) {
    for (int32_t i = 0; i < s->base->n_refs; i++) {
        const floe_ice_snapshot_ref *r = &s->base->refs[i];
        if (!r->is_tag && strcmp(r->name, "main") != 0) FLOE_TRY(require_ref(s, r->name, true));
    }
    return NULL;
}

static floe_status requirement_for(req_state *s, json_t *u) {
    const char *a = json_string_value(json_object_get(u, "action"));
    if (!a) return floe_error(FLOE_ERR_INTERNAL, "table update without an action");
    const floe_ice_table_metadata *b = s->base;
    if (strcmp(a, "set-snapshot-ref") == 0)
        return require_ref(s, json_string_value(json_object_get(u, "ref-name")), false);
    if (strcmp(a, "add-schema") == 0)
        return require_int(s, &s->added_schema, "assert-last-assigned-field-id", "last-assigned-field-id",
                           b->last_column_id);
    if (strcmp(a, "set-current-schema") == 0)
        return require_int(s, &s->set_schema, "assert-current-schema-id", "current-schema-id", b->current_schema_id);
    if (strcmp(a, "add-spec") == 0)
        return require_int(s, &s->added_spec, "assert-last-assigned-partition-id", "last-assigned-partition-id",
                           b->last_partition_id);
    if (strcmp(a, "set-default-spec") == 0)
        return require_int(s, &s->set_spec, "assert-default-spec-id", "default-spec-id", b->default_spec_id);
    if (strcmp(a, "set-default-sort-order") == 0)
        return require_int(s, &s->set_order, "assert-default-sort-order-id", "default-sort-order-id",
                           b->default_sort_order_id);
    if (strcmp(a, "remove-partition-specs") == 0) {
        FLOE_TRY(require_int(s, &s->set_spec, "assert-default-spec-id", "default-spec-id", b->default_spec_id));
        return require_branches(s);
    }
    if (strcmp(a, "remove-schemas") == 0) {
        FLOE_TRY(require_int(s, &s->set_schema, "assert-current-schema-id", "current-schema-id", b->current_schema_id));
        return require_branches(s);
    }
    return NULL;
}

static floe_status requirements_for(const floe_ice_table_metadata *base, json_t *updates, json_t *reqs) {
    /* A new table: only that it does not exist yet (Java's forCreateTable). */
    if (!base) return push(reqs, json_pack("{s:s}", "type", "assert-create"));
    req_state s = {base, reqs, json_object(), false, false, false, false, false};
    if (!s.refs_seen) return oom();
    floe_status st = NULL;
    if (base->table_uuid) st = push(reqs, json_pack("{s:s, s:s}", "type", "assert-table-uuid", "uuid", base->table_uuid));
    for (size_t i = 0; !st && i < json_array_size(updates); i++) st = requirement_for(&s, json_array_get(updates, i));
    json_decref(s.refs_seen);
    return st;
}

/* ---- updates -------------------------------------------------------------- */

typedef struct diff_ctx {
    const floe_ice_table_metadata *base, *next;
    json_t *jb, *jn;    /* their JSON forms */
    json_t *updates;
} diff_ctx;

static floe_status differs(const char *what, int64_t id) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                      "%s %" PRId64 " differs between the two metadata versions (it is immutable once added): "
                      "they are not versions of one table",
                      what, id);
}

/* add-<thing> for every element of next's `arr_key` whose id base lacks;
 * *last_added receives the last id added (-1: none). */
static floe_status add_new(diff_ctx *d, const char *arr_key, const char *id_key, const char *action,
                           const char *member, const char *what, int64_t *last_added) {
    json_t *bn = json_object_get(d->jb, arr_key), *nn = json_object_get(d->jn, arr_key);
    *last_added = -1;
    for (size_t i = 0; i < json_array_size(nn); i++) {
        json_t *e = json_array_get(nn, i);
        int64_t id = (int64_t)json_integer_value(json_object_get(e, id_key));
        json_t *old = find_by_id(bn, id_key, id);
        if (old) {
            if (!json_equal(old, e)) return differs(what, id);
            continue;
        }
        json_t *u = json_pack("{s:s, s:O}", "action", action, member, e);
        if (u && strcmp(action, "add-schema") == 0 &&
            json_object_set_new(u, "last-column-id", json_integer(d->next->last_column_id))) {
            json_decref(u);
            u = NULL;
        }
        FLOE_TRY(push(d->updates, u));
        *last_added = id;
    }
    return NULL;
}

/* set-<current> when it moved: -1 when it is the one just added, which is
 * how Java's clients send it (and what a server that renumbers added
 * schemas/specs/orders needs). */
static floe_status set_current(diff_ctx *d, const char *action, const char *key, int64_t from, int64_t to,
                               int64_t last_added) {
    if (from == to) return NULL;
    return push(d->updates, json_pack("{s:s, s:I}", "action", action, key, (json_int_t)(to == last_added ? -1 : to)));
}

/* One remove-<things> update naming every id base has and next lacks. */
static floe_status remove_missing(diff_ctx *d, const char *arr_key, const char *id_key, const char *action,
                                  const char *ids_key) {
    json_t *bn = json_object_get(d->jb, arr_key), *nn = json_object_get(d->jn, arr_key);
    json_t *ids = json_array();
    if (!ids) return oom();
    for (size_t i = 0; i < json_array_size(bn); i++) {
        json_t *id = json_object_get(json_array_get(bn, i), id_key);
        if (json_is_integer(id) && !find_by_id(nn, id_key, (int64_t)json_integer_value(id)) &&
            json_array_append(ids, id)) {
            json_decref(ids);
            return oom();
        }
    }
    if (!json_array_size(ids)) {
        json_decref(ids);
        return NULL;
    }
    return push(d->updates, json_pack("{s:s, s:o}", "action", action, ids_key, ids));
}

static floe_status diff_properties(diff_ctx *d) {
    json_t *bp = json_object_get(d->jb, "properties"), *np = json_object_get(d->jn, "properties");
    json_t *set = json_object(), *removed = json_array();
    floe_status st = set && removed ? NULL : oom();
    const char *k;
    json_t *v;
    json_object_foreach(np, k, v) {
        json_t *old = json_object_get(bp, k);
        if (!st && (!old || !json_equal(old, v)) && json_object_set(set, k, v)) st = oom();
    }
    json_object_foreach(bp, k, v) {
        if (!st && !json_object_get(np, k) && json_array_append_new(removed, json_string(k))) st = oom();
    }
    if (!st && json_object_size(set)) st = push(d->updates, json_pack("{s:s, s:O}", "action", "set-properties", "updates", set));
    if (!st && json_array_size(removed))
        st = push(d->updates, json_pack("{s:s, s:O}", "action", "remove-properties", "removals", removed));
    json_decref(set);
    json_decref(removed);
    return st;
}

static bool same_ref(const floe_ice_snapshot_ref *a, const floe_ice_snapshot_ref *b) {
    return a->snapshot_id == b->snapshot_id && a->is_tag == b->is_tag && a->max_ref_age_ms == b->max_ref_age_ms &&
           a->max_snapshot_age_ms == b->max_snapshot_age_ms && a->min_snapshots_to_keep == b->min_snapshots_to_keep;
}

static floe_status ref_update(const char *name, const floe_ice_snapshot_ref *r, int64_t snapshot_id, json_t **out) {
    json_t *u = json_pack("{s:s, s:s, s:I, s:s}", "action", "set-snapshot-ref", "ref-name", name, "snapshot-id",
                          (json_int_t)snapshot_id, "type", r->is_tag ? "tag" : "branch");
    int e = !u;
    if (u && r->max_ref_age_ms >= 0) e |= json_object_set_new(u, "max-ref-age-ms", json_integer(r->max_ref_age_ms));
    if (u && r->max_snapshot_age_ms >= 0)
        e |= json_object_set_new(u, "max-snapshot-age-ms", json_integer(r->max_snapshot_age_ms));
    if (u && r->min_snapshots_to_keep >= 0)
        e |= json_object_set_new(u, "min-snapshots-to-keep", json_integer(r->min_snapshots_to_keep));
    if (e) {
        json_decref(u);
        return oom();
    }
    *out = u;
    return NULL;
}

/* When next's snapshot-log gained several entries (commits collapsed into
 * one diff, or rollbacks between them), "main" is moved through each in
 * turn so that the history is kept: set-snapshot-ref of main is what
 * appends to the log.  The entries new in next are those after base's
 * last entry; the last of them is left to the ordinary ref update.
 * *moved tells whether any update was emitted. */
static floe_status replay_main_history(diff_ctx *d, const floe_ice_snapshot_ref *main_ref, bool *moved) {
    const floe_ice_table_metadata *b = d->base, *n = d->next;
    *moved = false;
    int32_t from = 0;
    if (b->n_snapshot_log > 0) {
        const floe_ice_log_entry *last = &b->snapshot_log[b->n_snapshot_log - 1];
        from = n->n_snapshot_log; /* base's last entry not found: no history to replay */
        for (int32_t i = n->n_snapshot_log - 1; i >= 0; i--)
            if (n->snapshot_log[i].snapshot_id == last->snapshot_id && n->snapshot_log[i].timestamp_ms == last->timestamp_ms) {
                from = i + 1;
                break;
            }
    }
    int64_t at = b->current_snapshot_id;
    for (int32_t i = from; i + 1 < n->n_snapshot_log; i++) {
        int64_t id = n->snapshot_log[i].snapshot_id;
        if (id == at || !floe_ice_tm_snapshot(n, id)) continue;
        json_t *u = NULL;
        FLOE_TRY(ref_update("main", main_ref, id, &u));
        FLOE_TRY(push(d->updates, u));
        at = id;
        *moved = true;
    }
    return NULL;
}

static floe_status diff_snapshots(diff_ctx *d) {
    int64_t last = -1;
    FLOE_TRY(add_new(d, "snapshots", "snapshot-id", "add-snapshot", "snapshot", "snapshot", &last));
    for (int32_t i = 0; i < d->base->n_refs; i++) {
        const char *name = d->base->refs[i].name;
        if (!floe_ice_tm_ref(d->next, name))
            FLOE_TRY(push(d->updates, json_pack("{s:s, s:s}", "action", "remove-snapshot-ref", "ref-name", name)));
    }
    FLOE_TRY(remove_missing(d, "snapshots", "snapshot-id", "remove-snapshots", "snapshot-ids"));
    for (int32_t i = 0; i < d->next->n_refs; i++) {
        const floe_ice_snapshot_ref *r = &d->next->refs[i];
        const floe_ice_snapshot_ref *old = floe_ice_tm_ref(d->base, r->name);
        bool moved = false;
        if (strcmp(r->name, "main") == 0) FLOE_TRY(replay_main_history(d, r, &moved));
        if (!moved && old && same_ref(old, r)) continue;
        json_t *u = NULL;
        FLOE_TRY(ref_update(r->name, r, r->snapshot_id, &u));
        FLOE_TRY(push(d->updates, u));
    }
    return NULL;
}

/* Statistics files are kept one per snapshot: set the new or changed ones,
 * remove those of snapshots next has none for. */
static floe_status diff_stats(diff_ctx *d, const char *key, const char *set_action, const char *remove_action) {
    json_t *bs = json_object_get(d->jb, key), *ns = json_object_get(d->jn, key);
    for (size_t i = 0; i < json_array_size(ns); i++) {
        json_t *e = json_array_get(ns, i);
        int64_t id = (int64_t)json_integer_value(json_object_get(e, "snapshot-id"));
        json_t *old = find_by_id(bs, "snapshot-id", id);
        if (old && json_equal(old, e)) continue;
        FLOE_TRY(push(d->updates, json_pack("{s:s, s:O}", "action", set_action, key, e)));
    }
    for (size_t i = 0; i < json_array_size(bs); i++) {
        json_t *id = json_object_get(json_array_get(bs, i), "snapshot-id");
        if (json_is_integer(id) && !find_by_id(ns, "snapshot-id", (int64_t)json_integer_value(id)))
            FLOE_TRY(push(d->updates, json_pack("{s:s, s:O}", "action", remove_action, "snapshot-id", id)));
    }
    return NULL;
}

static json_t *find_key(json_t *arr, const char *kid) {
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const char *k = json_string_value(json_object_get(json_array_get(arr, i), "key-id"));
        if (k && strcmp(k, kid) == 0) return json_array_get(arr, i);
    }
    return NULL;
}

static floe_status diff_keys(diff_ctx *d) {
    json_t *bk = json_object_get(d->jb, "encryption-keys"), *nk = json_object_get(d->jn, "encryption-keys");
    for (size_t i = 0; i < json_array_size(nk); i++) {
        json_t *e = json_array_get(nk, i);
        const char *kid = json_string_value(json_object_get(e, "key-id"));
        if (!kid) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "encryption key %zu has no 'key-id'", i);
        json_t *old = find_key(bk, kid);
        if (old && json_equal(old, e)) continue;
        FLOE_TRY(push(d->updates, json_pack("{s:s, s:O}", "action", "add-encryption-key", "encryption-key", e)));
    }
    for (size_t i = 0; i < json_array_size(bk); i++) {
        const char *kid = json_string_value(json_object_get(json_array_get(bk, i), "key-id"));
        if (kid && !find_key(nk, kid))
            FLOE_TRY(push(d->updates, json_pack("{s:s, s:s}", "action", "remove-encryption-key", "key-id", kid)));
    }
    return NULL;
}

static floe_status diff_all(diff_ctx *d) {
    const floe_ice_table_metadata *b = d->base, *n = d->next;
    if (b->table_uuid && n->table_uuid && strcasecmp(b->table_uuid, n->table_uuid) != 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "table UUIDs differ (%s, %s): not versions of one table",
                          b->table_uuid, n->table_uuid);
    if (n->format_version < b->format_version)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "format version goes down from %d to %d", b->format_version,
                          n->format_version);
    if (!b->table_uuid && n->table_uuid)
        FLOE_TRY(push(d->updates, json_pack("{s:s, s:s}", "action", "assign-uuid", "uuid", n->table_uuid)));
    if (n->format_version > b->format_version)
        FLOE_TRY(push(d->updates, json_pack("{s:s, s:i}", "action", "upgrade-format-version", "format-version",
                                            n->format_version)));
    int64_t last = -1;
    FLOE_TRY(add_new(d, "schemas", "schema-id", "add-schema", "schema", "schema", &last));
    FLOE_TRY(set_current(d, "set-current-schema", "schema-id", b->current_schema_id, n->current_schema_id, last));
    FLOE_TRY(add_new(d, "partition-specs", "spec-id", "add-spec", "spec", "partition spec", &last));
    FLOE_TRY(set_current(d, "set-default-spec", "spec-id", b->default_spec_id, n->default_spec_id, last));
    FLOE_TRY(add_new(d, "sort-orders", "order-id", "add-sort-order", "sort-order", "sort order", &last));
    FLOE_TRY(set_current(d, "set-default-sort-order", "sort-order-id", b->default_sort_order_id,
                         n->default_sort_order_id, last));
    FLOE_TRY(remove_missing(d, "schemas", "schema-id", "remove-schemas", "schema-ids"));
    FLOE_TRY(remove_missing(d, "partition-specs", "spec-id", "remove-partition-specs", "spec-ids"));
    if (strcmp(b->location, n->location) != 0)
        FLOE_TRY(push(d->updates, json_pack("{s:s, s:s}", "action", "set-location", "location", n->location)));
    FLOE_TRY(diff_properties(d));
    FLOE_TRY(diff_snapshots(d));
    FLOE_TRY(diff_stats(d, "statistics", "set-statistics", "remove-statistics"));
    FLOE_TRY(diff_stats(d, "partition-statistics", "set-partition-statistics", "remove-partition-statistics"));
    return diff_keys(d);
}

floe_status floe_ice_md_diff(const floe_ice_table_metadata *base, const floe_ice_table_metadata *next,
                             json_t **requirements, json_t **updates) {
    *requirements = *updates = NULL;
    if (!next) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "table metadata diff: no next metadata");
    /* base NULL: a table being created (a create transaction).  It is
     * diffed against nothing: an empty tree and ids no table has, so that
     * everything of next is added and made current. */
    floe_ice_table_metadata none;
    memset(&none, 0, sizeof none);
    none.location = (char *)"";
    none.current_schema_id = none.default_spec_id = none.default_sort_order_id = -2;
    none.current_snapshot_id = FLOE_ICE_NO_SNAPSHOT;
    diff_ctx d = {base ? base : &none, next, NULL, NULL, json_array()};
    json_t *reqs = json_array();
    floe_status st = d.updates && reqs ? NULL : oom();
    if (!st && base) st = floe_ice_tm_edit_begin(base, &d.jb);
    else if (!st && !(d.jb = json_object())) st = oom();
    if (!st) st = floe_ice_tm_edit_begin(next, &d.jn);
    if (!st) st = diff_all(&d);
    if (!st) st = requirements_for(base, d.updates, reqs);
    json_decref(d.jb);
    json_decref(d.jn);
    if (st) {
        json_decref(d.updates);
        json_decref(reqs);
        return st;
    }
    *requirements = reqs;
    *updates = d.updates;
    return NULL;
}

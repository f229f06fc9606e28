/*
 * tables.c — the REST server's table routes:
 *
 *   GET    /v1/namespaces/{ns}/tables          list
 *   POST   /v1/namespaces/{ns}/tables          create (CreateTableRequest)
 *   GET    /v1/namespaces/{ns}/tables/{t}      load (LoadTableResult)
 *   HEAD   /v1/namespaces/{ns}/tables/{t}      exists
 *   POST   /v1/namespaces/{ns}/tables/{t}      commit {requirements, updates}
 *   DELETE /v1/namespaces/{ns}/tables/{t}      drop [?purgeRequested=true]
 *   POST   /v1/tables/rename                   {source, destination}
 *   POST   /v1/namespaces/{ns}/register        {name, metadata-location}
 *
 * A commit loads the table, checks the client's requirements against it
 * (a failed one is 409 CommitFailedException), applies the updates and
 * commits the result against the loaded metadata location.  When another
 * commit wins that compare-and-swap in between, the table is reloaded and
 * the requirements checked again: if they still hold the updates are
 * re-applied (as Iceberg Java's catalog handlers do), else 409.
 *
 * A LoadTableResult is assembled as text around the metadata JSON that
 * floe writes, so the metadata is serialised once.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/rest_server/rest_server.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"
#include "iceberg/rest/metadata_updates.h"

/* A commit that loses the swap is retried this many times in all, after
 * a jittered wait from 5 ms doubling to at most 200 ms: enough for a
 * handful of clients committing to one table at once. */
#define COMMIT_ATTEMPTS 12

/* ---- LoadTableResult ------------------------------------------------------- */

static floe_status append_json(floe_buf *b, json_t *j) {
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    floe_status st = floe_buf_append_str(b, s);
    free(s);
    return st;
}

static floe_status load_result(const rs_server *srv, const char *metadata_location,
                               const floe_ice_table_metadata *md, floe_buf *b) {
    char *mdtext = NULL;
    FLOE_TRY(floe_ice_table_metadata_to_json(md, 0, &mdtext));
    json_t *config = rs_vend_config(srv);
    json_t *creds = config ? rs_vend_storage_credentials(srv, md->location, config) : NULL;
    json_t *loc = metadata_location ? json_string(metadata_location) : NULL;
    floe_status st = config && creds && (loc || !metadata_location)
                         ? NULL
                         : floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    if (!st) st = floe_buf_append_str(b, "{");
    if (!st && loc) st = floe_buf_append_str(b, "\"metadata-location\":");
    if (!st && loc) st = append_json(b, loc);
    if (!st && loc) st = floe_buf_append_str(b, ",");
    if (!st) st = floe_buf_append_str(b, "\"metadata\":");
    if (!st) st = floe_buf_append_str(b, mdtext);
    if (!st) st = floe_buf_append_str(b, ",\"config\":");
    if (!st) st = append_json(b, config);
    if (!st) st = floe_buf_append_str(b, ",\"storage-credentials\":");
    if (!st) st = append_json(b, creds);
    if (!st) st = floe_buf_append_str(b, "}");
    json_decref(loc);
    json_decref(config);
    json_decref(creds);
    floe_free(mdtext);
    return st;
}

/* Answer 200 with a LoadTableResult (metadata_location NULL: staged). */
static void answer_table(rs_request *rq, rs_response *rs, const char *metadata_location,
                         const floe_ice_table_metadata *md) {
    floe_buf_clear(&rs->body);
    floe_status st = load_result(rq->srv, metadata_location, md, &rs->body);
    if (st) {
        rs_error_status(rs, st, "NoSuchTableException", "CommitFailedException");
        return;
    }
    rs->status = 200;
}

/* ---- list, load, exists, drop ------------------------------------------------- */

void rs_handle_list_tables(rs_request *rq, rs_response *rs, const char *ns) {
    if (!rs_require_namespace(rq, rs, ns)) return;
    char **names = NULL;
    int32_t n = 0;
    floe_status st = floe_catalog_list_tables(rq->srv->catalog, ns, &names, &n);
    if (st) {
        rs_error_status(rs, st, "NoSuchNamespaceException", "CommitFailedException");
        return;
    }
    long size = 0;
    char *ps = rs_query_arg(rq, "pageSize");
    if (ps) {
        char *end = NULL;
        size = strtol(ps, &end, 10);
        if (!*ps || !end || *end || size <= 0) {
            rs_error(rs, 400, "BadRequestException", "pageSize must be a positive integer, not '%s'", ps);
            floe_free(ps);
            floe_catalog_names_free(names, n);
            return;
        }
        floe_free(ps);
    }
    char *after = rs_query_arg(rq, "pageToken");
    json_t *arr = json_array();
    const char *last = NULL;
    bool more = false;
    for (int32_t i = 0; arr && i < n; i++) {
        if (after && *after && strcmp(names[i], after) <= 0) continue;
        if (size && (long)json_array_size(arr) == size) {
            more = true;
            break;
        }
        if (json_array_append_new(arr, json_pack("{s:[s],s:s}", "namespace", ns, "name", names[i]))) {
            json_decref(arr);
            arr = NULL;
        }
        last = names[i];
    }
    json_t *j = arr ? json_pack("{s:o,s:s*}", "identifiers", arr, "next-page-token", more ? last : NULL) : NULL;
    floe_free(after);
    floe_catalog_names_free(names, n);
    rs_json(rs, 200, j);
}

void rs_handle_load_table(rs_request *rq, rs_response *rs, const char *ns, const char *name) {
    floe_ice_table *t = NULL;
    floe_status st = floe_catalog_load_table(rq->srv->catalog, ns, name, &t);
    if (st) {
        rs_error_status(rs, st, "NoSuchTableException", "CommitFailedException");
        return;
    }
    answer_table(rq, rs, t->metadata_location, t->md);
    floe_ice_table_free(t);
}

void rs_handle_table_exists(rs_request *rq, rs_response *rs, const char *ns, const char *name) {
    bool exists = false;
    floe_status st = floe_catalog_table_exists(rq->srv->catalog, ns, name, &exists);
    if (st) {
        rs_error_status(rs, st, "NoSuchTableException", "CommitFailedException");
        return;
    }
    if (exists)
        rs_no_content(rs);
    else
        rs_error(rs, 404, "NoSuchTableException", "table %s.%s does not exist", ns, name);
}

void rs_handle_drop_table(rs_request *rq, rs_response *rs, const char *ns, const char *name) {
    char *purge = rs_query_arg(rq, "purgeRequested");
    bool p = purge && strcmp(purge, "true") == 0;
    if (purge && !p && strcmp(purge, "false") != 0) {
        rs_error(rs, 400, "BadRequestException", "purgeRequested must be true or false, not '%s'", purge);
        floe_free(purge);
        return;
    }
    floe_free(purge);
    floe_status st = floe_catalog_drop_table(rq->srv->catalog, ns, name, p);
    if (st) {
        rs_error_status(rs, st, "NoSuchTableException", "CommitFailedException");
        return;
    }
    rs_no_content(rs);
}

/* ---- create ---------------------------------------------------------------- */

/* The pieces of a CreateTableRequest floe_ice_tm_new needs. */
typedef struct create_args {
    floe_ice_schema *schema;
    floe_ice_partition_spec *spec;
    floe_ice_sort_order *order;
    const char **props; /* pairs, without format-version */
    int32_t n_props;
    int format_version;
} create_args;

static void create_args_free(create_args *a) {
    floe_ice_schema_free(a->schema);
    floe_ice_partition_spec_free(a->spec);
    floe_ice_sort_order_free(a->order);
    floe_free(a->props);
}

/* Parse schema, partition-spec, write-order and properties; false with
 * the answer (400) set when one is malformed. */
static bool parse_create(rs_response *rs, json_t *req, create_args *a) {
    floe_status st = NULL;
    json_t *schema = json_object_get(req, "schema");
    if (!json_is_object(schema)) {
        rs_error(rs, 400, "BadRequestException", "CreateTableRequest: 'schema' (an object) is required");
        return false;
    }
    st = floe_ice_schema_from_json(schema, &a->schema);
    if (st) goto bad;

    json_t *spec = json_object_get(req, "partition-spec");
    if (spec && !json_is_null(spec)) {
        json_t *fields = json_is_object(spec) ? json_object_get(spec, "fields") : NULL;
        if (!json_is_array(fields)) {
            rs_error(rs, 400, "BadRequestException", "CreateTableRequest: 'partition-spec' needs a 'fields' array");
            return false;
        }
        /* The spec id is the server's to assign (readOnly in the spec). */
        if (json_array_size(fields)) {
            st = floe_ice_partition_fields_from_json(fields, 0, 1000, &a->spec);
            if (st) goto bad;
        }
    }

    json_t *order = json_object_get(req, "write-order");
    if (order && !json_is_null(order)) {
        json_t *fields = json_is_object(order) ? json_object_get(order, "fields") : NULL;
        if (!json_is_array(fields)) {
            rs_error(rs, 400, "BadRequestException", "CreateTableRequest: 'write-order' needs a 'fields' array");
            return false;
        }
        if (json_array_size(fields)) {
            json_t *copy = json_pack("{s:i,s:O}", "order-id", 1, "fields", fields);
            if (!copy) {
                rs_error(rs, 500, "ServiceFailureException", "out of memory");
                return false;
            }
            st = floe_ice_sort_order_from_json(copy, &a->order);
            json_decref(copy);
            if (st) goto bad;
        }
    }

    a->format_version = 2;
    json_t *props = json_object_get(req, "properties");
    if (props && !json_is_null(props)) {
        if (!json_is_object(props)) {
            rs_error(rs, 400, "BadRequestException", "CreateTableRequest: 'properties' must be an object of strings");
            return false;
        }
        size_t n = json_object_size(props);
        a->props = floe_malloc_array(n ? 2 * n : 1, sizeof *a->props);
        if (!a->props) {
            rs_error(rs, 500, "ServiceFailureException", "out of memory");
            return false;
        }
        const char *k;
        json_t *v;
        json_object_foreach(props, k, v) {
            const char *s = json_string_value(v);
            if (!s) {
                rs_error(rs, 400, "BadRequestException", "CreateTableRequest: property '%s' must be a string", k);
                return false;
            }
            /* A reserved property, as in Iceberg Java: it picks the format
             * version and is not stored. */
            if (strcmp(k, "format-version") == 0) {
                if (strcmp(s, "1") && strcmp(s, "2") && strcmp(s, "3")) {
                    rs_error(rs, 400, "BadRequestException", "format-version must be 1, 2 or 3, not '%s'", s);
                    return false;
                }
                a->format_version = s[0] - '0';
                continue;
            }
            a->props[2 * a->n_props] = k;
            a->props[2 * a->n_props + 1] = s;
            a->n_props++;
        }
    }
    return true;
bad:
    rs_error_status(rs, floe_status_wrap(st, "CreateTableRequest"), "NoSuchTableException", "CommitFailedException");
    return false;
}

void rs_handle_create_table(rs_request *rq, rs_response *rs, const char *ns) {
    json_t *req = rs_body_object(rq, rs, "CreateTableRequest");
    if (!req) return;
    create_args a = {0};
    char *default_loc = NULL;
    floe_ice_table_metadata *md = NULL;
    floe_ice_table *t = NULL;
    const char *name = json_string_value(json_object_get(req, "name"));
    json_t *jloc = json_object_get(req, "location");
    json_t *stage = json_object_get(req, "stage-create");
    if (!name) {
        rs_error(rs, 400, "BadRequestException", "CreateTableRequest: 'name' (a string) is required");
        goto done;
    }
    if (!rs_table_name(rs, name)) goto done;
    if (jloc && !json_is_null(jloc) && (!json_is_string(jloc) || !*json_string_value(jloc))) {
        rs_error(rs, 400, "BadRequestException", "CreateTableRequest: 'location' must be a non-empty string");
        goto done;
    }
    if (stage && !json_is_boolean(stage) && !json_is_null(stage)) {
        rs_error(rs, 400, "BadRequestException", "CreateTableRequest: 'stage-create' must be a boolean");
        goto done;
    }
    if (!parse_create(rs, req, &a)) goto done;
    if (!rs_require_namespace(rq, rs, ns)) goto done;

    floe_status st = NULL;
    const char *location = json_string_value(jloc);
    if (!location) {
        st = floe_catalog_default_location(rq->srv->catalog, ns, name, &default_loc);
        location = default_loc;
    }
    if (!st) st = floe_ice_tm_new(a.schema, a.spec, a.order, location, a.props, a.n_props, a.format_version, &md);
    if (st) {
        rs_error_status(rs, floe_status_wrap(st, "creating %s.%s", ns, name), "NoSuchNamespaceException",
                        "AlreadyExistsException");
        goto done;
    }
    if (json_is_true(stage)) {
        /* Staged: nothing is written until the client commits. */
        bool exists = false;
        st = floe_catalog_table_exists(rq->srv->catalog, ns, name, &exists);
        if (st)
            rs_error_status(rs, st, "NoSuchTableException", "CommitFailedException");
        else if (exists)
            rs_error(rs, 409, "AlreadyExistsException", "table %s.%s already exists", ns, name);
        else
            answer_table(rq, rs, NULL, md);
        goto done;
    }
    st = floe_catalog_create_table(rq->srv->catalog, ns, name, md, &t);
    if (st) {
        rs_error_status(rs, st, "NoSuchNamespaceException", "AlreadyExistsException");
        goto done;
    }
    answer_table(rq, rs, t->metadata_location, t->md);
done:
    floe_ice_table_free(t);
    floe_ice_table_metadata_free(md);
    floe_free(default_loc);
    create_args_free(&a);
    json_decref(req);
}

/* ---- commit ---------------------------------------------------------------- */

/* One attempt: load, check, apply, swap.  On success *location_out is the
 * new metadata location and *md_out the metadata committed.  *lost_swap
 * tells a lost compare-and-swap (worth another attempt) from a failed
 * requirement (final); both are FLOE_ERR_CONFLICT. */
static floe_status commit_once(rs_request *rq, const char *ns, const char *name, json_t *requirements,
                               json_t *updates, char **location_out, floe_ice_table_metadata **md_out,
                               bool *lost_swap) {
    *lost_swap = false;
    floe_ice_table *t = NULL;
    floe_ice_table_metadata *next = NULL;
    FLOE_TRY(floe_catalog_load_table(rq->srv->catalog, ns, name, &t));
    floe_status st = floe_ice_md_check_requirements(t->md, requirements);
    if (!st) st = floe_ice_md_apply_updates(t->md, updates, &next);
    if (!st) {
        st = floe_catalog_commit(rq->srv->catalog, ns, name, t->metadata_location, next, location_out);
        *lost_swap = floe_status_code(st) == FLOE_ERR_CONFLICT;
    }
    /* Answer with the metadata as written (the catalog adds the
     * metadata-log entry), read back from the new file. */
    if (!st) {
        floe_ice_table_metadata *written = NULL;
        floe_status rst = floe_ice_table_metadata_read(t->io, *location_out, &written);
        if (rst) {
            floe_status_free(rst);
        } else {
            floe_ice_table_metadata_free(next);
            next = written;
        }
        *md_out = next;
        next = NULL;
    }
    floe_ice_table_metadata_free(next);
    floe_ice_table_free(t);
    return st;
}

/* Wait before commit attempt `attempt` + 1: up to 5 ms * 2^(attempt-1),
 * at most 200 ms, the lower half fixed and the upper half random so that
 * clients that collided do not collide again. */
static void backoff(int attempt) {
    long max_ms = 5L << (attempt < 6 ? attempt - 1 : 5);
    if (max_ms > 200) max_ms = 200;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    unsigned seed = (unsigned)now.tv_nsec ^ (unsigned)(uintptr_t)&now;
    long ms = max_ms / 2 + (long)(rand_r(&seed) % (unsigned)(max_ms / 2 + 1));
    struct timespec d = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0 && errno == EINTR) {
    }
}

/* Does the request assert that the table does not exist yet? */
static bool asserts_create(json_t *requirements) {
    size_t i;
    json_t *r;
    json_array_foreach(requirements, i, r) {
        const char *type = json_string_value(json_object_get(r, "type"));
        if (type && strcmp(type, "assert-create") == 0) return true;
    }
    return false;
}

/* The updates of a create transaction, given the table's default location
 * when they set none (a new reference). */
static floe_status with_location(rs_request *rq, const char *ns, const char *name, json_t *updates, json_t **out) {
    size_t i;
    json_t *u;
    json_array_foreach(updates, i, u) {
        const char *a = json_string_value(json_object_get(u, "action"));
        if (a && strcmp(a, "set-location") == 0) {
            *out = json_incref(updates);
            return NULL;
        }
    }
    char *loc = NULL;
    FLOE_TRY(floe_catalog_default_location(rq->srv->catalog, ns, name, &loc));
    json_t *copy = json_copy(updates);
    json_t *set = json_pack("{s:s,s:s}", "action", "set-location", "location", loc);
    floe_free(loc);
    if (!copy || !set || json_array_insert_new(copy, 0, set)) {
        json_decref(copy);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    *out = copy;
    return NULL;
}

/* A create transaction's commit (CreateTableRequest with stage-create,
 * then requirements [assert-create] and the updates that build the
 * table): the table is made from the updates and created. */
static floe_status commit_create(rs_request *rq, const char *ns, const char *name, json_t *requirements,
                                 json_t *updates, char **location_out, floe_ice_table_metadata **md_out) {
    FLOE_TRY(floe_ice_md_check_requirements(NULL, requirements));
    json_t *ups = NULL;
    FLOE_TRY(with_location(rq, ns, name, updates, &ups));
    floe_ice_table_metadata *md = NULL;
    floe_ice_table *t = NULL;
    floe_status st = floe_ice_md_apply_updates(NULL, ups, &md);
    json_decref(ups);
    if (!st) st = floe_catalog_create_table(rq->srv->catalog, ns, name, md, &t);
    floe_ice_table_metadata_free(md);
    if (st) return st;
    *location_out = floe_strdup(t->metadata_location);
    *md_out = t->md;
    t->md = NULL;
    floe_ice_table_free(t);
    return *location_out ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
}

void rs_handle_commit_table(rs_request *rq, rs_response *rs, const char *ns, const char *name) {
    json_t *req = rs_body_object(rq, rs, "CommitTableRequest");
    if (!req) return;
    json_t *requirements = json_object_get(req, "requirements");
    json_t *updates = json_object_get(req, "updates");
    if (!json_is_array(requirements) || !json_is_array(updates)) {
        rs_error(rs, 400, "BadRequestException", "CommitTableRequest: 'requirements' and 'updates' must be arrays");
        json_decref(req);
        return;
    }
    char *location = NULL;
    floe_ice_table_metadata *md = NULL;
    floe_status st = NULL;
    bool lost_swap = false;
    bool exists = true;
    if (asserts_create(requirements)) {
        st = floe_catalog_table_exists(rq->srv->catalog, ns, name, &exists);
        if (!st && !exists && !rs_require_namespace(rq, rs, ns)) goto done;
        if (!st && !exists) st = commit_create(rq, ns, name, requirements, updates, &location, &md);
    }
    /* Only a lost swap is retried; the requirements are checked again
     * against the metadata that won. */
    for (int attempt = 1; !st && exists; attempt++) {
        st = commit_once(rq, ns, name, requirements, updates, &location, &md, &lost_swap);
        if (!lost_swap || attempt == COMMIT_ATTEMPTS) break;
        floe_status_free(st);
        st = NULL;
        backoff(attempt);
    }
    if (st) {
        rs_error_status(rs, floe_status_wrap(st, "commit to %s.%s", ns, name), "NoSuchTableException",
                        "CommitFailedException");
    } else {
        floe_buf_clear(&rs->body);
        json_t *loc = json_string(location);
        floe_status bst = floe_buf_append_str(&rs->body, "{\"metadata-location\":");
        if (!bst) bst = append_json(&rs->body, loc);
        char *mdtext = NULL;
        if (!bst) bst = floe_ice_table_metadata_to_json(md, 0, &mdtext);
        if (!bst) bst = floe_buf_printf(&rs->body, ",\"metadata\":%s}", mdtext);
        floe_free(mdtext);
        json_decref(loc);
        if (bst)
            rs_error_status(rs, bst, "NoSuchTableException", "CommitFailedException");
        else
            rs->status = 200;
    }
done:
    floe_free(location);
    floe_ice_table_metadata_free(md);
    json_decref(req);
}

/* ---- rename, register -------------------------------------------------------- */

bool rs_identifier(rs_response *rs, json_t *j, const char *what, const char **ns, const char **name) {
    if (!json_is_object(j)) {
        rs_error(rs, 400, "BadRequestException", "RenameTableRequest: '%s' must be a table identifier object", what);
        return false;
    }
    if (!rs_namespace_array(rs, json_object_get(j, "namespace"), "RenameTableRequest", ns)) return false;
    *name = json_string_value(json_object_get(j, "name"));
    if (!*name) {
        rs_error(rs, 400, "BadRequestException", "RenameTableRequest: '%s.name' (a string) is required", what);
        return false;
    }
    return rs_table_name(rs, *name);
}

void rs_handle_rename_table(rs_request *rq, rs_response *rs) {
    json_t *req = rs_body_object(rq, rs, "RenameTableRequest");
    if (!req) return;
    const char *sns, *sname, *dns, *dname;
    if (rs_identifier(rs, json_object_get(req, "source"), "source", &sns, &sname) &&
        rs_identifier(rs, json_object_get(req, "destination"), "destination", &dns, &dname)) {
        bool src = false, dst = false;
        floe_status st = floe_catalog_table_exists(rq->srv->catalog, sns, sname, &src);
        if (!st) st = floe_catalog_table_exists(rq->srv->catalog, dns, dname, &dst);
        if (st) {
            rs_error_status(rs, st, "NoSuchTableException", "CommitFailedException");
        } else if (!src) {
            rs_error(rs, 404, "NoSuchTableException", "table %s.%s does not exist", sns, sname);
        } else if (dst) {
            rs_error(rs, 409, "AlreadyExistsException", "table %s.%s already exists", dns, dname);
        } else if (rs_require_namespace(rq, rs, dns)) {
            st = floe_catalog_rename_table(rq->srv->catalog, sns, sname, dns, dname);
            if (st)
                rs_error_status(rs, st, "NoSuchTableException", "CommitFailedException");
            else
                rs_no_content(rs);
        }
    }
    json_decref(req);
}

void rs_handle_register_table(rs_request *rq, rs_response *rs, const char *ns) {
    json_t *req = rs_body_object(rq, rs, "RegisterTableRequest");
    if (!req) return;
    const char *name = json_string_value(json_object_get(req, "name"));
    const char *loc = json_string_value(json_object_get(req, "metadata-location"));
    json_t *overwrite = json_object_get(req, "overwrite");
    floe_ice_table *t = NULL;
    if (!name || !loc || !*loc) {
        rs_error(rs, 400, "BadRequestException",
                 "RegisterTableRequest: 'name' and 'metadata-location' (strings) are required");
    } else if (overwrite && !json_is_boolean(overwrite) && !json_is_null(overwrite)) {
        rs_error(rs, 400, "BadRequestException", "RegisterTableRequest: 'overwrite' must be a boolean");
    } else if (rs_table_name(rs, name) && rs_require_namespace(rq, rs, ns)) {
        bool exists = false;
        floe_status st = floe_catalog_table_exists(rq->srv->catalog, ns, name, &exists);
        if (!st && exists && json_is_true(overwrite)) {
            rs_error(rs, 406, "UnsupportedOperationException",
                     "registering over an existing table (overwrite) is not supported; drop %s.%s first", ns, name);
        } else {
            if (!st) st = floe_catalog_register_table(rq->srv->catalog, ns, name, loc, &t);
            floe_code code = floe_status_code(st);
            if (code == FLOE_ERR_NOT_FOUND || code == FLOE_ERR_IO || code == FLOE_ERR_CORRUPT) {
                /* The namespace exists: the metadata file the client named
                 * is missing, unreadable or not table metadata. */
                rs_error(rs, 400, "BadRequestException", "%s", floe_status_message(st));
                floe_status_free(st);
            } else if (st) {
                rs_error_status(rs, st, "NoSuchNamespaceException", "AlreadyExistsException");
            } else {
                answer_table(rq, rs, t->metadata_location, t->md);
            }
        }
    }
    floe_ice_table_free(t);
    json_decref(req);
}

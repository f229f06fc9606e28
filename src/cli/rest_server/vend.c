/*
 * vend.c — vended storage credentials: what `floe rest-server --vend
 * key=value ...` hands to clients with every table it loads, creates or
 * registers, and from GET .../tables/{t}/credentials.
 *
 * The server does not mint credentials (there is no STS here): it vends
 * what it was configured with (s3.access-key-id, s3.secret-access-key,
 * s3.session-token, s3.endpoint, s3.path-style-access, client.region,
 * ...), stamped with s3.session-token-expires-at-ms = now +
 * --credential-lifetime, fresh on every call, so clients exercise their
 * refresh path.  Values are secrets: they are never logged except through
 * the redacting JSON logger.
 */
#include <stdio.h>
#include <time.h>

#include "cli/rest_server/rest_server.h"
#include "floe/memory.h"

static int64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

json_t *rs_vend_config(const rs_server *srv) {
    json_t *o = rs_pairs_object(srv->vend_kv, srv->n_vend);
    if (!o || srv->n_vend == 0) return o;
    char expiry[32];
    snprintf(expiry, sizeof expiry, "%lld", (long long)(wall_ms() + srv->credential_lifetime_s * 1000));
    if (json_object_set_new(o, "s3.session-token-expires-at-ms", json_string(expiry))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *rs_vend_storage_credentials(const rs_server *srv, const char *location, json_t *config) {
    json_t *arr = json_array();
    if (!arr || srv->n_vend == 0) return arr;
    json_t *copy = json_deep_copy(config);
    json_t *entry = copy ? json_pack("{s:s,s:o}", "prefix", location ? location : "", "config", copy) : NULL;
    if (!entry || json_array_append_new(arr, entry)) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

void rs_handle_table_credentials(rs_request *rq, rs_response *rs, const char *ns, const char *name) {
    floe_ice_table *t = NULL;
    floe_status st = floe_catalog_load_table(rq->srv->catalog, ns, name, &t);
    if (st) {
        rs_error_status(rs, st, "NoSuchTableException", "CommitFailedException");
        return;
    }
    json_t *config = rs_vend_config(rq->srv);
    json_t *creds = config ? rs_vend_storage_credentials(rq->srv, t->md->location, config) : NULL;
    json_decref(config);
    floe_ice_table_free(t);
    rs_json(rs, 200, creds ? json_pack("{s:o}", "storage-credentials", creds) : NULL);
}

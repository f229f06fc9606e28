/*
 * proc_manifests.c — rewrite_manifests(table, use_caching, spec_id):
 * Spark's procedure.  The current snapshot's data manifests are laid out
 * again clustered by partition, sized by commit.manifest.target-size-bytes
 * (default 8 MB), in one "replace" snapshot
 * (floe_ice_tm_rewrite_manifests_snapshot); the result row is
 * rewritten_manifests_count, added_manifests_count.  use_caching is
 * accepted and has no effect (Spark's caching of the manifest data
 * frame); spec_id other than the default spec is not supported yet.  A
 * commit that loses a race is redone on the new metadata, and the
 * manifests of the lost attempt are deleted.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "sql/procedures/procedure.h"
#include "sql/session_internal.h"

#define NAME_CAP 256
#define DEFAULT_MANIFEST_TARGET (8LL * 1024 * 1024)

typedef struct manifests_ctx {
    floe_ice_append_files written;     /* that attempt's files */
    int32_t replaced, created;
} manifests_ctx;

static void discard_last(manifests_ctx *c, const floe_ice_table *t) {
    floe_ice_append_files_discard(t, &c->written);
    memset(&c->written, 0, sizeof c->written);
}

static floe_status manifests_edit(floe_proc_call *call, const floe_ice_table *t, void *vctx,
                                  floe_ice_table_metadata **out) {
    manifests_ctx *c = vctx;
    /* A previous attempt lost its commit: its manifests are unreferenced. */
    if (c->written.manifest_list) discard_last(c, t);
    const floe_proc_arg *spec = floe_proc_get(call, "spec_id");
    if (spec->given && spec->i64 != t->md->default_spec_id)
        return floe_proc_error(call, spec, FLOE_ERR_UNSUPPORTED,
                               "rewriting the manifests of spec %lld (not the default spec %d) is not supported yet",
                               (long long)spec->i64, (int)t->md->default_spec_id);
    int64_t target = DEFAULT_MANIFEST_TARGET;
    const char *v = floe_ice_tm_property(t->md, "commit.manifest.target-size-bytes");
    if (v && *v) {
        char *end = NULL;
        long long x = strtoll(v, &end, 10);
        if (!end || *end || x <= 0)
            return floe_proc_error(call, NULL, FLOE_ERR_INVALID_ARGUMENT,
                                   "table property commit.manifest.target-size-bytes is '%s', not a positive integer",
                                   v);
        target = (int64_t)x;
    }
    c->replaced = c->created = 0;
    return floe_ice_tm_rewrite_manifests_snapshot(t, target, out, &c->written, &c->replaced, &c->created);
}

static floe_status manifests_after(floe_proc_call *call, const floe_ice_table *base,
                                   const floe_ice_table_metadata *md, void *vctx) {
    (void)call;
    (void)base;
    (void)md;
    manifests_ctx *c = vctx;
    floe_ice_append_files_clear(&c->written); /* committed: the table's now */
    return NULL;
}

static floe_status rewrite_manifests(floe_proc_call *call) {
    char ns[NAME_CAP], name[NAME_CAP];
    FLOE_TRY(floe_proc_table_name(call, floe_proc_get(call, "table"), ns, NAME_CAP, name, NAME_CAP));
    manifests_ctx c;
    memset(&c, 0, sizeof c);
    floe_status st = floe_proc_commit_then(call, ns, name, manifests_edit, manifests_after, &c);
    if (c.written.manifest_list) {
        /* The last attempt was not committed: delete what it wrote. */
        floe_ice_table *t = NULL;
        floe_status lst = floe_catalog_load_table(call->s->catalog, ns, name, &t);
        if (!lst) discard_last(&c, t);
        else floe_status_free(lst), floe_ice_append_files_clear(&c.written);
        floe_ice_table_free(t);
    }
    FLOE_TRY(st);
    FLOE_TRY(floe_proc_add_row(call));
    FLOE_TRY(floe_proc_add_long(call, c.replaced));
    return floe_proc_add_long(call, c.created);
}

static const floe_proc_param k_params[] = {
    {"table", FLOE_PROC_STRING, true},
    {"use_caching", FLOE_PROC_BOOL, false},
    {"spec_id", FLOE_PROC_LONG, false},
};
static const floe_proc_column k_columns[] = {
    {"rewritten_manifests_count", FLOE_PROC_LONG},
    {"added_manifests_count", FLOE_PROC_LONG},
};
const floe_proc_def floe_proc_rewrite_manifests = {"rewrite_manifests", k_params, 3, k_columns, 2, rewrite_manifests,
                                                   true};

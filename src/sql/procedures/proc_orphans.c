/*
 * proc_orphans.c — remove_orphan_files(table, older_than, location,
 * dry_run, max_concurrent_deletes, ...): delete the files under the
 * table's location (or `location`) that no metadata reaches — what a
 * killed writer or an interrupted cleanup left behind (partial *.tmp
 * files, data files never committed, manifests of a lost commit).
 *
 * Reachable: every snapshot's manifest list, manifests and every file
 * their entries name (also DELETED entries), statistics files, the
 * current metadata file, the metadata-log and version-hint.text.
 * Locations compare by proc_file_key, so a listing under s3:// matches
 * metadata written with s3a://.  A file modified at or after older_than
 * (default: 3 days ago) is never touched, nor one whose time is unknown:
 * it may belong to a commit still in flight.  One row per orphan
 * (orphan_file_location), also on a dry run, which deletes nothing.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/fileio.h"
#include "floe/memory.h"
#include "iceberg/update/table_update_internal.h"
#include "sql/procedures/proc_files.h"
#include "sql/procedures/procedure.h"
#include "sql/session_internal.h"

#define NAME_CAP 256
#define DEFAULT_ORPHAN_AGE_MS (3LL * 24 * 3600 * 1000)

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "CALL: out of memory"); }

typedef struct orphan_scan {
    const proc_file_set *reachable;
    int64_t older_than;
    char **found;
    size_t n, cap;
} orphan_scan;

static floe_status on_file(void *ctx, const floe_file_info *info) {
    orphan_scan *o = ctx;
    if (info->last_modified_ms < 0 || info->last_modified_ms >= o->older_than) return NULL;
    if (proc_file_has(o->reachable, info->location)) return NULL;
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 16;
        char **f = floe_realloc(o->found, cap * sizeof(char *));
        if (!f) return oom();
        o->found = f;
        o->cap = cap;
    }
    o->found[o->n] = floe_strdup(info->location);
    if (!o->found[o->n]) return oom();
    o->n++;
    return NULL;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static floe_status remove_orphan_files(floe_proc_call *call) {
    const floe_proc_arg *older = floe_proc_get(call, "older_than");
    const floe_proc_arg *loc = floe_proc_get(call, "location");
    const floe_proc_arg *dry = floe_proc_get(call, "dry_run");
    const floe_proc_arg *mcd = floe_proc_get(call, "max_concurrent_deletes");
    if (mcd->given && mcd->i64 <= 0)
        return floe_proc_error(call, mcd, FLOE_ERR_INVALID_ARGUMENT, "max_concurrent_deletes should have value > 0, value: %lld",
                               (long long)mcd->i64);
    char ns[NAME_CAP], name[NAME_CAP];
    FLOE_TRY(floe_proc_table_name(call, floe_proc_get(call, "table"), ns, NAME_CAP, name, NAME_CAP));
    floe_ice_table *t = NULL;
    floe_status st = floe_catalog_load_table(call->s->catalog, ns, name, &t);
    if (st) {
        floe_status e = floe_proc_error(call, floe_proc_get(call, "table"), floe_status_code(st), "%s",
                                        floe_status_message(st));
        floe_status_free(st);
        return e;
    }
    const char *gc = floe_ice_tm_property(t->md, "gc.enabled");
    if (gc && strcasecmp(gc, "false") == 0) { /* a snapshot table's files are another's too */
        floe_ice_table_free(t);
        return floe_proc_error(call, floe_proc_get(call, "table"), FLOE_ERR_INVALID_ARGUMENT,
                               "Cannot delete orphan files: GC is disabled (deleting files may corrupt other tables)");
    }
    proc_file_set reach;
    proc_file_set_init(&reach);
    orphan_scan o;
    memset(&o, 0, sizeof(o));
    o.reachable = &reach;
    o.older_than = older->given ? older->i64 : floe_ice_now_ms() - DEFAULT_ORPHAN_AGE_MS;
    const char *where = loc->given ? loc->str : t->md->location;
    char *prefix = NULL;
    st = proc_file_add_table(&reach, t);
    if (!st && (!where || !*where))
        st = floe_proc_error(call, loc, FLOE_ERR_INVALID_ARGUMENT, "the table has no location to look in");
    if (!st) {
        /* List below the directory: "<where>/". */
        size_t n = strlen(where);
        prefix = floe_malloc(n + 2);
        if (!prefix) st = oom();
        else {
            memcpy(prefix, where, n + 1);
            if (n == 0 || where[n - 1] != '/') strcat(prefix, "/");
        }
    }
    if (!st) {
        st = floe_fileio_list(t->io ? t->io : call->s->io, prefix, on_file, &o);
        if (st) st = floe_status_wrap(st, "remove_orphan_files: listing '%s'", prefix);
    }
    if (!st && o.n > 1) qsort(o.found, o.n, sizeof(char *), cmp_str);
    bool dry_run = dry->given && dry->b;
    for (size_t i = 0; i < o.n && !st; i++) {
        if (!dry_run) st = floe_fileio_delete(t->io ? t->io : call->s->io, o.found[i]);
        if (!st) st = floe_proc_add_row(call);
        if (!st) st = floe_proc_add_string(call, o.found[i]);
    }
    for (size_t i = 0; i < o.n; i++) floe_free(o.found[i]);
    floe_free(o.found);
    floe_free(prefix);
    proc_file_set_free(&reach);
    floe_ice_table_free(t);
    return st;
}

static const floe_proc_param k_params[] = {
    {"table", FLOE_PROC_STRING, true},
    {"older_than", FLOE_PROC_TIMESTAMP, false},
    {"location", FLOE_PROC_STRING, false},
    {"dry_run", FLOE_PROC_BOOL, false},
    {"max_concurrent_deletes", FLOE_PROC_LONG, false},
    {"stream_results", FLOE_PROC_BOOL, false},
    {"retention_threshold", FLOE_PROC_STRING, false}, /* Trino's form only (n_params 7) */
};
static const floe_proc_column k_columns[] = {
    {"orphan_file_location", FLOE_PROC_STRING},
};
const floe_proc_def floe_proc_remove_orphan_files = {"remove_orphan_files", k_params, 6, k_columns, 1,
                                                     remove_orphan_files, true};

/* Trino's ALTER TABLE t EXECUTE remove_orphan_files(retention_threshold =>
 * '7d'): Spark's procedure with older_than = now - the threshold. */
static floe_status trino_remove_orphan_files(floe_proc_call *call) {
    FLOE_TRY(floe_proc_trino_retention(call, call->s->opts.remove_orphan_files_min_retention_s,
                                       "remove_orphan_files_min_retention_s"));
    return remove_orphan_files(call);
}
const floe_proc_def floe_proc_trino_remove_orphan_files = {"remove_orphan_files", k_params, 7, k_columns, 1,
                                                           trino_remove_orphan_files, true};

/*
 * catalog.c — the public catalog API: opening a catalog by URI, sharing an
 * open catalog within the process, and dispatching every call to the
 * implementation behind it (catalog_impl.h).
 *
 * Sharing.  A query's commit node reopens "its" catalog by URI (the plan
 * carries only the URI, never credentials).  In the coordinator, where the
 * session already holds that catalog open with its options (OAuth2
 * credential, token), the commit must use the same authenticated client.
 * So every catalog opened here is entered in a small process-wide list;
 * opening a URI that is in the list returns that catalog with one more
 * reference, and floe_catalog_close drops a reference.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "floe/catalog.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/memory.h"
#include "iceberg/catalog/catalog_impl.h"

/* ---- the open-catalog list ---------------------------------------------- */

typedef struct open_entry {
    floe_catalog *c;
    int refs;
    struct open_entry *next;
} open_entry;

static pthread_mutex_t g_open_mu = PTHREAD_MUTEX_INITIALIZER;
static open_entry *g_open;

static floe_catalog *shared_acquire(const char *uri) {
    floe_catalog *found = NULL;
    pthread_mutex_lock(&g_open_mu);
    for (open_entry *e = g_open; e; e = e->next)
        if (strcmp(e->c->uri, uri) == 0) {
            e->refs++;
            found = e->c;
            break;
        }
    pthread_mutex_unlock(&g_open_mu);
    return found;
}

/* Enter a newly opened catalog; when another thread entered the same URI
 * meanwhile, ours is still returned (it simply is not shared). */
static void shared_enter(floe_catalog *c) {
    open_entry *e = floe_calloc(1, sizeof *e);
    if (!e) return; /* not shared: still a working catalog */
    e->c = c;
    e->refs = 1;
    pthread_mutex_lock(&g_open_mu);
    e->next = g_open;
    g_open = e;
    pthread_mutex_unlock(&g_open_mu);
}

/* Drop a reference; true when the caller must really close `c`. */
static bool shared_release(floe_catalog *c) {
    bool last = true;
    pthread_mutex_lock(&g_open_mu);
    for (open_entry **p = &g_open; *p; p = &(*p)->next)
        if ((*p)->c == c) {
            if (--(*p)->refs > 0) last = false;
            else {
                open_entry *dead = *p;
                *p = dead->next;
                floe_free(dead);
            }
            break;
        }
    pthread_mutex_unlock(&g_open_mu);
    return last;
}

/* ---- opening ---------------------------------------------------------------- */

floe_status floe_catalog_open(const char *uri, const floe_property *props, size_t n_props, floe_catalog **out) {
    *out = NULL;
    if (!uri || !*uri) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "empty catalog URI");
    floe_catalog *c = shared_acquire(uri);
    if (c) {
        *out = c;
        return NULL;
    }
    floe_status st;
    if (strncmp(uri, "rest:", 5) == 0) st = floe_catalog_open_rest(uri, props, n_props, &c);
    else st = floe_catalog_open_sqlite_uri(uri, &c);
    if (st) return st;
    shared_enter(c);
    *out = c;
    return NULL;
}

floe_status floe_catalog_open_uri(const char *uri, floe_catalog **out) { return floe_catalog_open(uri, NULL, 0, out); }

void floe_catalog_base_free(floe_catalog *c) {
    floe_fileio_free(c->io);
    floe_free(c->warehouse);
    floe_free(c->uri);
    c->io = NULL;
    c->warehouse = c->uri = NULL;
}

void floe_catalog_close(floe_catalog *c) {
    if (!c) return;
    if (!shared_release(c)) return;
    c->ops->close(c);
}

const char *floe_catalog_uri(const floe_catalog *c) { return c->uri; }
const char *floe_catalog_kind(const floe_catalog *c) { return c->ops->kind; }
const char *floe_catalog_warehouse(const floe_catalog *c) { return c->warehouse; }

void floe_catalog_names_free(char **names, int32_t n) {
    if (!names) return;
    for (int32_t i = 0; i < n; i++) floe_free(names[i]);
    floe_free(names);
}

/* ---- dispatch ------------------------------------------------------------------ */

static floe_status unsupported(const floe_catalog *c, const char *what) {
    return floe_error(FLOE_ERR_UNSUPPORTED, "the %s catalog cannot %s", c->ops->kind, what);
}

floe_status floe_catalog_create_namespace(floe_catalog *c, const char *ns, bool if_not_exists) {
    return c->ops->create_namespace(c, ns, NULL, 0, if_not_exists);
}

floe_status floe_catalog_create_namespace_with_properties(floe_catalog *c, const char *ns, const char *const *props,
                                                          int32_t n_props, bool if_not_exists) {
    if (n_props < 0 || (n_props > 0 && !props))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "namespace properties must come in key/value pairs");
    return c->ops->create_namespace(c, ns, props, n_props, if_not_exists);
}

floe_status floe_catalog_drop_namespace(floe_catalog *c, const char *ns, bool if_exists) {
    return c->ops->drop_namespace(c, ns, if_exists);
}

floe_status floe_catalog_namespace_exists(floe_catalog *c, const char *ns, bool *out) {
    *out = false;
    if (!ns || !*ns) return NULL;
    return c->ops->namespace_exists(c, ns, out);
}

floe_status floe_catalog_list_namespaces(floe_catalog *c, char ***names, int32_t *n) {
    *names = NULL;
    *n = 0;
    return c->ops->list_namespaces(c, names, n);
}

floe_status floe_catalog_namespace_properties(floe_catalog *c, const char *ns, char ***kv, int32_t *n_pairs) {
    *kv = NULL;
    *n_pairs = 0;
    if (!ns || !*ns) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a namespace name cannot be empty");
    if (!c->ops->namespace_properties) return unsupported(c, "read namespace properties");
    return c->ops->namespace_properties(c, ns, kv, n_pairs);
}

floe_status floe_catalog_update_namespace_properties(floe_catalog *c, const char *ns, const char *const *set_kv,
                                                     int32_t n_set, const char *const *remove, int32_t n_remove,
                                                     char ***missing, int32_t *n_missing) {
    if (missing) *missing = NULL;
    if (n_missing) *n_missing = 0;
    if (!ns || !*ns) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a namespace name cannot be empty");
    for (int32_t i = 0; i < n_set; i++)
        for (int32_t j = 0; j < n_remove; j++)
            if (strcmp(set_kv[2 * i], remove[j]) == 0)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                                  "namespace property '%s' cannot be both set and removed in one update",
                                  remove[j]);
    if (!c->ops->update_namespace_properties) return unsupported(c, "update namespace properties");
    return c->ops->update_namespace_properties(c, ns, set_kv, n_set, remove, n_remove, missing, n_missing);
}

floe_status floe_catalog_list_tables(floe_catalog *c, const char *ns, char ***names, int32_t *n) {
    *names = NULL;
    *n = 0;
    if (!ns || !*ns) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a namespace name cannot be empty");
    return c->ops->list_tables(c, ns, names, n);
}

floe_status floe_catalog_load_table(floe_catalog *c, const char *ns, const char *name, floe_ice_table **out) {
    *out = NULL;
    if (!ns || !name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "load_table needs a namespace and a name");
    return c->ops->load_table(c, ns, name, out);
}

floe_status floe_catalog_table_exists(floe_catalog *c, const char *ns, const char *name, bool *out) {
    *out = false;
    if (!ns || !name) return NULL;
    return c->ops->table_exists(c, ns, name, out);
}

floe_status floe_catalog_default_location(floe_catalog *c, const char *ns, const char *name, char **out) {
    *out = NULL;
    return c->ops->default_location(c, ns, name, out);
}

floe_status floe_catalog_create_table(floe_catalog *c, const char *ns, const char *name,
                                      const floe_ice_table_metadata *md, floe_ice_table **out) {
    if (out) *out = NULL;
    if (!md) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "create_table needs metadata");
    return c->ops->create_table(c, ns, name, md, out);
}

floe_status floe_catalog_commit(floe_catalog *c, const char *ns, const char *name, const char *base_location,
                                const floe_ice_table_metadata *md, char **new_location) {
    if (new_location) *new_location = NULL;
    if (!ns || !name || !base_location || !md)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "commit needs a table, its base location and new metadata");
    return c->ops->commit(c, ns, name, base_location, md, new_location);
}

floe_status floe_catalog_drop_table(floe_catalog *c, const char *ns, const char *name, bool purge) {
    if (!ns || !name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "drop_table needs a namespace and a name");
    if (purge) {
        /* gc.enabled = false (a snapshot table: its data files belong to
         * another table or folder) refuses the purge, as Spark's catalog
         * does; a table that cannot be loaded is left to the catalog. */
        floe_ice_table *t = NULL;
        floe_status st = floe_catalog_load_table(c, ns, name, &t);
        const char *gc = !st ? floe_ice_tm_property(t->md, "gc.enabled") : NULL;
        bool refuse = gc && strcasecmp(gc, "false") == 0;
        floe_ice_table_free(t);
        floe_status_free(st);
        if (refuse)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "cannot purge table %s.%s: GC is disabled (gc.enabled = false; deleting its files may "
                              "corrupt other tables); DROP TABLE without PURGE drops it and keeps the files",
                              ns, name);
    }
    return c->ops->drop_table(c, ns, name, purge);
}

floe_status floe_catalog_rename_table(floe_catalog *c, const char *ns, const char *name, const char *new_ns,
                                      const char *new_name) {
    if (!ns || !name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "rename_table needs a namespace and a name");
    return c->ops->rename_table(c, ns, name, new_ns, new_name);
}

floe_status floe_catalog_register_table(floe_catalog *c, const char *ns, const char *name,
                                        const char *metadata_location, floe_ice_table **out) {
    if (out) *out = NULL;
    if (!ns || !name || !metadata_location || !*metadata_location)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "register_table needs a namespace, a name and a metadata file");
    if (!c->ops->register_table) return unsupported(c, "register tables");
    return c->ops->register_table(c, ns, name, metadata_location, out);
}

/* ---- views ---------------------------------------------------------------------- */

floe_status floe_catalog_create_view(floe_catalog *c, const char *ns, const char *name, const char *sql,
                                     const char *default_ns, const floe_ice_schema *schema, bool replace) {
    if (!ns || !name || !sql || !schema)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "create_view needs a namespace, a name, SQL and a schema");
    if (!c->ops->create_view) return unsupported(c, "store views");
    return c->ops->create_view(c, ns, name, sql, default_ns, schema, replace);
}

floe_status floe_catalog_load_view(floe_catalog *c, const char *ns, const char *name, struct floe_ice_view **out) {
    *out = NULL;
    if (!ns || !name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "load_view needs a namespace and a name");
    /* A catalog without views has none to find: not an error of its own. */
    if (!c->ops->load_view) return floe_error(FLOE_ERR_NOT_FOUND, "view %s.%s does not exist", ns, name);
    return c->ops->load_view(c, ns, name, out);
}

floe_status floe_catalog_drop_view(floe_catalog *c, const char *ns, const char *name) {
    if (!ns || !name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "drop_view needs a namespace and a name");
    if (!c->ops->drop_view) return unsupported(c, "drop views");
    return c->ops->drop_view(c, ns, name);
}

floe_status floe_catalog_rename_view(floe_catalog *c, const char *ns, const char *name, const char *new_ns,
                                     const char *new_name) {
    if (!ns || !name || !new_ns || !new_name)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "rename_view needs two namespaces and names");
    if (!c->ops->rename_view) return unsupported(c, "rename views");
    return c->ops->rename_view(c, ns, name, new_ns, new_name);
}

floe_status floe_catalog_list_views(floe_catalog *c, const char *ns, char ***names, int32_t *n) {
    *names = NULL;
    *n = 0;
    if (!ns || !*ns) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a namespace name cannot be empty");
    if (!c->ops->list_views) return NULL;
    return c->ops->list_views(c, ns, names, n);
}

floe_status floe_catalog_make_table(floe_ice_table_metadata *md, const char *location, floe_fileio *io,
                                    floe_ice_table **out) {
    *out = NULL;
    floe_ice_table *t = floe_calloc(1, sizeof *t);
    if (!t) {
        floe_ice_table_metadata_free(md);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory in the catalog");
    }
    t->md = md;
    t->io = io;
    t->metadata_location = floe_strdup(location);
    /* root: the directory holding metadata/ (as floe_ice_table_open). */
    const char *slash = strrchr(location, '/');
    t->root = slash ? floe_strndup(location, (size_t)(slash - location)) : floe_strdup(".");
    if (!t->metadata_location || !t->root) {
        floe_ice_table_free(t);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory in the catalog");
    }
    char *s2 = strrchr(t->root, '/');
    const char *last = s2 ? s2 + 1 : t->root;
    if (strcmp(last, "metadata") == 0) {
        if (s2) *s2 = '\0';
        else strcpy(t->root, ".");
    }
    *out = t;
    return NULL;
}

/*
 * catalog_impl.h — what a catalog implementation provides behind the
 * public floe_catalog API (include/floe/catalog.h).
 *
 * floe_catalog is a small base struct; an implementation (the embedded
 * SQLite catalog in catalog_sqlite.c, the REST client in catalog_rest.c)
 * embeds it as its FIRST member and fills in `ops`.  The public functions
 * in catalog.c check their arguments' presence and dispatch, so the
 * commit loop (catalog_append.c), DDL and the SQL layer work with every
 * catalog alike.
 *
 * Every op has the contract of the public function of the same name.
 */
#ifndef FLOE_ICEBERG_CATALOG_IMPL_H
#define FLOE_ICEBERG_CATALOG_IMPL_H

#include "floe/catalog.h"
#include "floe/fileio.h"

typedef struct floe_catalog_ops {
    const char *kind; /* "sqlite", "rest": for messages */
    /* Free everything the implementation owns, then the base's fields with
     * floe_catalog_base_free, then the object. */
    void (*close)(floe_catalog *c);

    floe_status (*create_namespace)(floe_catalog *c, const char *ns, const char *const *props, int32_t n_props,
                                    bool if_not_exists);
    floe_status (*drop_namespace)(floe_catalog *c, const char *ns, bool if_exists);
    floe_status (*namespace_exists)(floe_catalog *c, const char *ns, bool *out);
    floe_status (*list_namespaces)(floe_catalog *c, char ***names, int32_t *n);
    floe_status (*namespace_properties)(floe_catalog *c, const char *ns, char ***kv, int32_t *n_pairs);
    floe_status (*update_namespace_properties)(floe_catalog *c, const char *ns, const char *const *set_kv,
                                               int32_t n_set, const char *const *remove, int32_t n_remove,
                                               char ***missing, int32_t *n_missing);

    floe_status (*list_tables)(floe_catalog *c, const char *ns, char ***names, int32_t *n);
    floe_status (*load_table)(floe_catalog *c, const char *ns, const char *name, floe_ice_table **out);
    floe_status (*table_exists)(floe_catalog *c, const char *ns, const char *name, bool *out);
    floe_status (*default_location)(floe_catalog *c, const char *ns, const char *name, char **out);
    floe_status (*create_table)(floe_catalog *c, const char *ns, const char *name, const floe_ice_table_metadata *md,
                                floe_ice_table **out);
    floe_status (*commit)(floe_catalog *c, const char *ns, const char *name, const char *base_location,
                          const floe_ice_table_metadata *md, char **new_location);
    floe_status (*drop_table)(floe_catalog *c, const char *ns, const char *name, bool purge);
    floe_status (*rename_table)(floe_catalog *c, const char *ns, const char *name, const char *new_ns,
                                const char *new_name);
    floe_status (*register_table)(floe_catalog *c, const char *ns, const char *name, const char *metadata_location,
                                  floe_ice_table **out);

    /* Views; NULL: the catalog has none (FLOE_ERR_UNSUPPORTED). */
    floe_status (*create_view)(floe_catalog *c, const char *ns, const char *name, const char *sql,
                               const char *default_ns, const floe_ice_schema *schema, bool replace);
    floe_status (*load_view)(floe_catalog *c, const char *ns, const char *name, struct floe_ice_view **out);
    floe_status (*drop_view)(floe_catalog *c, const char *ns, const char *name);
    floe_status (*rename_view)(floe_catalog *c, const char *ns, const char *name, const char *new_ns,
                               const char *new_name);
    floe_status (*list_views)(floe_catalog *c, const char *ns, char ***names, int32_t *n);
} floe_catalog_ops;

struct floe_catalog {
    const floe_catalog_ops *ops;
    char *uri;       /* reopens this catalog elsewhere (floe_catalog_open_uri) */
    char *warehouse; /* where new tables go by default; no trailing '/' */
    floe_fileio *io; /* the catalog's FileIO (tables not on local disk use it) */
};

/* Free the base's fields (not the object). */
void floe_catalog_base_free(floe_catalog *c);

/* A floe_ice_table over metadata `md` (taken, freed on failure) read from
 * `location`, reading through `io` (NULL: plain local files; not owned). */
floe_status floe_catalog_make_table(floe_ice_table_metadata *md, const char *location, floe_fileio *io,
                                    floe_ice_table **out) FLOE_WARN_UNUSED;

/* Implementations opened by floe_catalog_open_uri. */
floe_status floe_catalog_open_sqlite_uri(const char *uri, floe_catalog **out) FLOE_WARN_UNUSED;
/* "rest:http(s)://host[:port]/path" with optional query parameters, see
 * catalog.h (catalog_rest.c). */
floe_status floe_catalog_open_rest(const char *uri, const floe_property *props, size_t n_props,
                                   floe_catalog **out) FLOE_WARN_UNUSED;

#endif

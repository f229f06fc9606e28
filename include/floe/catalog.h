/*
 * catalog.h — Iceberg catalogs: where tables are found by name and where
 * commits are made atomic.
 *
 * The embedded default is a SQLite database in the warehouse directory
 * using the JDBC / PyIceberg catalog schema (tables `iceberg_tables` and
 * `iceberg_namespace_properties`), so PyIceberg's SqlCatalog and Iceberg
 * Java's JdbcCatalog can open the same warehouse.  A commit writes the new
 * metadata file, then swaps `metadata_location` from the base location
 * with a compare-and-swap UPDATE; losing the race is FLOE_ERR_CONFLICT
 * (the caller reloads, re-applies and retries) and leaves nothing behind.
 *
 * A catalog is safe to use from any thread, including from inside a task
 * running on the thread pool: calls block only on SQLite's lock (with a
 * busy timeout), never on the pool.  load_table always reads the current
 * metadata (no cache).
 */
#ifndef FLOE_CATALOG_H
#define FLOE_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/fileio.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct floe_catalog floe_catalog;

/* Open (creating when missing) the SQLite catalog of `warehouse` (a
 * directory, created when missing): <warehouse>/floe_catalog.db, catalog
 * name "floe"; tables live in <warehouse>/<namespace>/<table>. */
floe_status floe_catalog_open_sqlite(const char *warehouse, floe_catalog **out) FLOE_WARN_UNUSED;
/* The SQLite catalog in the local database file `db_path` (created when
 * missing) with tables under `warehouse`: a local directory or a URI
 * (s3://bucket/prefix, file:/...), for tables on object storage. */
floe_status floe_catalog_open_sqlite_db(const char *db_path, const char *warehouse,
                                        floe_catalog **out) FLOE_WARN_UNUSED;
/* A catalog from its URI and options:
 *   <directory>                          the SQLite catalog of a local
 *                                        warehouse (floe_catalog_open_sqlite)
 *   sqlite:<db file>?warehouse=<location> floe_catalog_open_sqlite_db
 *   rest:http(s)://host[:port][/path]    an Iceberg REST catalog
 * `props` (n_props pairs, may be NULL) configure it with Iceberg's catalog
 * property names; the REST client reads
 *   credential        "client_id:client_secret" for OAuth2 client credentials
 *   token             a static bearer token
 *   oauth2-server-uri the token endpoint (default <uri>/v1/oauth/tokens)
 *   scope, audience, resource   OAuth2 request parameters (scope defaults
 *                     to "catalog")
 *   warehouse         sent to GET /v1/config
 *   prefix            used when the server's config names none
 *   header.<Name>     an extra HTTP header on every request
 *   rest.tls-verify   "false" turns TLS verification off (default on)
 *   rest.ca-file      a CA bundle for TLS
 * Secrets given here never appear in messages or logs.
 *
 * While a catalog is open, opening its URI again in the same process
 * (floe_catalog_open_uri, as the commit node does) returns the same
 * catalog, reference counted, so options given once — credentials — need
 * not travel with the URI. */
floe_status floe_catalog_open(const char *uri, const floe_property *props, size_t n_props,
                              floe_catalog **out) FLOE_WARN_UNUSED;
/* floe_catalog_open without options. */
floe_status floe_catalog_open_uri(const char *uri, floe_catalog **out) FLOE_WARN_UNUSED;
/* The URI that opens this same catalog in another process or thread
 * (what a plan node that commits carries).  Owned by the catalog.  It
 * never holds a secret. */
const char *floe_catalog_uri(const floe_catalog *c);
/* "sqlite" or "rest". */
const char *floe_catalog_kind(const floe_catalog *c);
void floe_catalog_close(floe_catalog *c); /* NULL-safe; drops one reference */
const char *floe_catalog_warehouse(const floe_catalog *c);

/* ---- namespaces (one level: "db") ------------------------------------- */
floe_status floe_catalog_create_namespace(floe_catalog *c, const char *ns, bool if_not_exists) FLOE_WARN_UNUSED;
/* The same, setting n_props properties (props[2i] key, props[2i+1] value). */
floe_status floe_catalog_create_namespace_with_properties(floe_catalog *c, const char *ns, const char *const *props,
                                                          int32_t n_props, bool if_not_exists) FLOE_WARN_UNUSED;
/* The namespace's properties as pairs (kv[2i] key, kv[2i+1] value), sorted
 * by key; free with floe_catalog_names_free(kv, 2 * n_pairs).  An unknown
 * namespace is FLOE_ERR_NOT_FOUND. */
floe_status floe_catalog_namespace_properties(floe_catalog *c, const char *ns, char ***kv,
                                              int32_t *n_pairs) FLOE_WARN_UNUSED;
/* Set n_set pairs and remove n_remove keys in one step; a key both set
 * and removed is FLOE_ERR_INVALID_ARGUMENT.  *missing (may be NULL)
 * receives the removed keys that were not set (free with
 * floe_catalog_names_free). */
floe_status floe_catalog_update_namespace_properties(floe_catalog *c, const char *ns, const char *const *set_kv,
                                                     int32_t n_set, const char *const *remove, int32_t n_remove,
                                                     char ***missing, int32_t *n_missing) FLOE_WARN_UNUSED;
/* A namespace holding tables is FLOE_ERR_CONFLICT naming it. */
floe_status floe_catalog_drop_namespace(floe_catalog *c, const char *ns, bool if_exists) FLOE_WARN_UNUSED;
floe_status floe_catalog_namespace_exists(floe_catalog *c, const char *ns, bool *out) FLOE_WARN_UNUSED;
/* Sorted names; free with floe_catalog_names_free. */
floe_status floe_catalog_list_namespaces(floe_catalog *c, char ***names, int32_t *n) FLOE_WARN_UNUSED;
floe_status floe_catalog_list_tables(floe_catalog *c, const char *ns, char ***names, int32_t *n) FLOE_WARN_UNUSED;
void floe_catalog_names_free(char **names, int32_t n);

/* ---- tables ------------------------------------------------------------ */

/* The table's current metadata, read now.  Unknown table: FLOE_ERR_NOT_FOUND
 * "table db.t does not exist" with a "did you mean" among the namespace's
 * tables.  *out is freed with floe_ice_table_free.  A table at a local
 * path reads through plain files (t->io NULL) and may outlive the catalog;
 * one elsewhere (s3://...) uses the catalog's FileIO, so the catalog must
 * outlive it. */
floe_status floe_catalog_load_table(floe_catalog *c, const char *ns, const char *name,
                                    floe_ice_table **out) FLOE_WARN_UNUSED;
floe_status floe_catalog_table_exists(floe_catalog *c, const char *ns, const char *name,
                                      bool *out) FLOE_WARN_UNUSED;
/* The default location of a new table: <warehouse>/<ns>/<name> (floe_malloc'd). */
floe_status floe_catalog_default_location(floe_catalog *c, const char *ns, const char *name,
                                          char **out) FLOE_WARN_UNUSED;
/* Register a new table whose first metadata is `md` (its location set, see
 * floe_ice_tm_new in iceberg_table_update.h): writes
 * <location>/metadata/00000-<uuid>.metadata.json and inserts the row.  An
 * existing name is FLOE_ERR_ALREADY_EXISTS; the namespace must exist. */
floe_status floe_catalog_create_table(floe_catalog *c, const char *ns, const char *name,
                                      const floe_ice_table_metadata *md, floe_ice_table **out) FLOE_WARN_UNUSED;
/* Commit `md` as the table's next metadata if its current metadata is
 * still `base_location`: writes <location>/metadata/NNNNN-<uuid>.metadata.json
 * (NNNNN one above the base's), adds the base to metadata-log, swaps.
 * FLOE_ERR_CONFLICT when another commit won (the written file is deleted).
 * *new_location (may be NULL) is floe_malloc'd. */
floe_status floe_catalog_commit(floe_catalog *c, const char *ns, const char *name, const char *base_location,
                                const floe_ice_table_metadata *md, char **new_location) FLOE_WARN_UNUSED;
/* Drop the catalog entry; purge also deletes every file the table's
 * metadata references (data, deletes, manifests, lists, metadata files). */
floe_status floe_catalog_drop_table(floe_catalog *c, const char *ns, const char *name, bool purge) FLOE_WARN_UNUSED;
/* Register an existing table by its current metadata file (written by
 * any Iceberg implementation).  An existing name is
 * FLOE_ERR_ALREADY_EXISTS; a file that does not parse is reported as such
 * and nothing is registered.  *out (may be NULL) is the loaded table. */
floe_status floe_catalog_register_table(floe_catalog *c, const char *ns, const char *name,
                                        const char *metadata_location, floe_ice_table **out) FLOE_WARN_UNUSED;
floe_status floe_catalog_rename_table(floe_catalog *c, const char *ns, const char *name, const char *new_ns,
                                      const char *new_name) FLOE_WARN_UNUSED;

/* ---- views (Iceberg views, iceberg_view.h) -------------------------------- */

/* Create ns.name as a view whose first version is `sql` (resolving
 * unqualified names in `default_ns`, may be NULL) with result `schema`:
 * writes <warehouse>/<ns>/<name>/metadata/00000-<uuid>.metadata.json and
 * registers it.  replace: an existing view gets the SQL as its next
 * version (history kept in versions/version-log) instead of
 * FLOE_ERR_ALREADY_EXISTS.  A table of that name is FLOE_ERR_ALREADY_EXISTS
 * ("relation ns.name already exists"), also with replace.  The namespace
 * must exist. */
struct floe_ice_view;
floe_status floe_catalog_create_view(floe_catalog *c, const char *ns, const char *name, const char *sql,
                                     const char *default_ns, const floe_ice_schema *schema,
                                     bool replace) FLOE_WARN_UNUSED;
/* The view's current version; FLOE_ERR_NOT_FOUND "view ns.name does not
 * exist" when there is no view of that name (a table is not one).  Free
 * with floe_ice_view_free. */
floe_status floe_catalog_load_view(floe_catalog *c, const char *ns, const char *name,
                                   struct floe_ice_view **out) FLOE_WARN_UNUSED;
/* Unregister the view (its metadata files stay, as Iceberg's catalogs do). */
floe_status floe_catalog_drop_view(floe_catalog *c, const char *ns, const char *name) FLOE_WARN_UNUSED;
/* Move the view to new_ns.new_name (its metadata files stay where they
 * are); FLOE_ERR_NOT_FOUND when there is no such view, FLOE_ERR_ALREADY_EXISTS
 * when a table or view has the new name.  The new namespace must exist. */
floe_status floe_catalog_rename_view(floe_catalog *c, const char *ns, const char *name, const char *new_ns,
                                     const char *new_name) FLOE_WARN_UNUSED;
/* Sorted view names of a namespace; free with floe_catalog_names_free. */
floe_status floe_catalog_list_views(floe_catalog *c, const char *ns, char ***names, int32_t *n) FLOE_WARN_UNUSED;

/* ---- retrying a commit that lost the swap ------------------------------- */

/* A table's commit.retry.* settings (Java's defaults for those unset or
 * not a number; num_retries at most 100). */
typedef struct floe_commit_retry {
    int32_t num_retries;
    int64_t min_wait_ms, max_wait_ms, total_timeout_ms;
} floe_commit_retry;
floe_commit_retry floe_catalog_retry_settings(const floe_ice_table_metadata *md); /* md may be NULL */
/* Sleep before retry `attempt` (1, 2, ...): jittered exponential backoff. */
void floe_catalog_retry_backoff(const floe_commit_retry *r, int attempt);
/* A monotonic clock in ms, for total-timeout-ms. */
int64_t floe_catalog_now_ms(void);

/* ---- appending data files (INSERT's commit) ----------------------------- */

/* Append `n` data files, given as Avro data_file records (see
 * floe_ice_tm_append_snapshot in iceberg_table_update.h), to ns.name as one
 * new snapshot: load the table, write a manifest and manifest list, commit.
 * When another commit wins (FLOE_ERR_CONFLICT) the manifest and list of the
 * losing attempt are deleted, the table reloaded and the append rebuilt on
 * the new current snapshot, after a jittered exponential backoff from the
 * table's commit.retry.min-wait-ms (100) doubling to max-wait-ms (60000),
 * up to `max_retries` times (0: one attempt only; SQL reads it from
 * commit.retry.num-retries) and within commit.retry.total-timeout-ms.  On final failure everything
 * the call wrote is deleted; the caller's data files are never deleted.
 * *snapshot_id (may be NULL) receives the committed snapshot's id. */
floe_status floe_catalog_append(floe_catalog *c, const char *ns, const char *name, const uint8_t *const *data_files,
                                const size_t *lens, int32_t n, const char *const *summary_kv, int32_t n_kv,
                                int max_retries, int64_t *snapshot_id) FLOE_WARN_UNUSED;

/* floe_catalog_append onto branch `branch` (NULL or "main": main): the
 * snapshot's parent is the branch head, and only that ref moves (Java's
 * SnapshotProducer.toBranch).  A branch that does not exist is created
 * from main's current snapshot; a tag is FLOE_ERR_INVALID_ARGUMENT. */
floe_status floe_catalog_append_branch(floe_catalog *c, const char *ns, const char *name, const char *branch,
                                       const uint8_t *const *data_files, const size_t *lens, int32_t n,
                                       const char *const *summary_kv, int32_t n_kv, int max_retries,
                                       int64_t *snapshot_id) FLOE_WARN_UNUSED;

/* INSERT OVERWRITE's commit: floe_ice_tm_replace_partitions_snapshot on
 * the current table, committed with the same retry loop as
 * floe_catalog_append; each retry re-runs the conflict check against
 * base_snapshot_id (a conflict found there is final, not retried).  n == 0
 * commits nothing and sets *snapshot_id to -1. */
floe_status floe_catalog_replace_partitions(floe_catalog *c, const char *ns, const char *name,
                                            const uint8_t *const *data_files, const size_t *lens, int32_t n,
                                            int64_t base_snapshot_id, const char *const *summary_kv,
                                            int32_t n_kv, int max_retries, int64_t *snapshot_id) FLOE_WARN_UNUSED;

/* floe_catalog_replace_partitions onto branch `branch` (NULL or "main":
 * main), as floe_catalog_append_branch: the partitions are replaced in
 * the branch head's files, the conflict check walks the branch's history
 * back to base_snapshot_id, and only that ref moves. */
floe_status floe_catalog_replace_partitions_branch(floe_catalog *c, const char *ns, const char *name,
                                                   const char *branch, const uint8_t *const *data_files,
                                                   const size_t *lens, int32_t n, int64_t base_snapshot_id,
                                                   const char *const *summary_kv, int32_t n_kv, int max_retries,
                                                   int64_t *snapshot_id) FLOE_WARN_UNUSED;

struct floe_ice_expr;
/* floe_catalog_delete_where on branch `branch` (NULL or "main": main):
 * TRUNCATE of a branch, whose head's files are deleted; only that ref
 * moves. */
floe_status floe_catalog_delete_where_branch(floe_catalog *c, const char *ns, const char *name, const char *branch,
                                             const struct floe_ice_expr *filter, int max_retries,
                                             int64_t *snapshot_id, int64_t *deleted_rows) FLOE_WARN_UNUSED;
/* DELETE FROM ns.name WHERE filter, when it removes whole files only
 * (floe_ice_tm_delete_snapshot), with the append retry loop (re-planned
 * on the reloaded table each time).  Nothing matches: no snapshot,
 * *snapshot_id = -1.  *deleted_rows may be NULL. */
floe_status floe_catalog_delete_where(floe_catalog *c, const char *ns, const char *name,
                                      const struct floe_ice_expr *filter, int max_retries,
                                      int64_t *snapshot_id, int64_t *deleted_rows) FLOE_WARN_UNUSED;

/* ---- row-level changes (DELETE / UPDATE / MERGE, copy-on-write) ----------- */

/* Iceberg's isolation levels for row-level writes (write.delete.isolation-level,
 * write.update.isolation-level, write.merge.isolation-level). */
typedef enum floe_isolation_level {
    FLOE_ISOLATION_SERIALIZABLE = 0, /* Iceberg's default */
    FLOE_ISOLATION_SNAPSHOT = 1
} floe_isolation_level;

/* One row-level change of a table, committed as one snapshot (Iceberg
 * Java's RowDelta, or OverwriteFiles when data files are removed):
 *   - data_files: added data files, Avro data_file records of the default
 *     spec, as floe_catalog_append takes them (new and updated rows);
 *   - delete_files: added delete files, Avro data_file records encoded
 *     with the default spec's partition type, each naming the one data file
 *     it applies to in referenced_data_file; the commit gives each the spec
 *     id and partition of that live data file (its own partition and spec
 *     id are ignored).  Position delete files in v2; deletion vectors
 *     (PUFFIN, content_offset / content_size_in_bytes) in v3, where a new
 *     DV replaces the data file's live DV — and, as Java 1.8+, the older
 *     position delete files scoped to that data file alone — in the same
 *     commit (the caller merged their positions into it; two DVs for one
 *     data file in one change are FLOE_ERR_INVALID_ARGUMENT, a Parquet,
 *     Avro or ORC position delete file in v3 too);
 *   - removed_paths: data files removed whole (copy-on-write rewrites
 *     them), as their paths are recorded in the manifests;
 *   - base_snapshot_id: the snapshot the statement read (-1: none);
 *     conflict_filter: the rows it read (NULL: the whole table);
 *     isolation: how concurrent commits after the base are judged, as
 *     Java's validations do (see floe_catalog_row_delta).
 * Everything is borrowed for the call. */
struct floe_ice_expr;
typedef struct floe_row_delta {
    const uint8_t *const *data_files;
    const size_t *data_lens;
    int32_t n_data;
    const uint8_t *const *delete_files;
    const size_t *delete_lens;
    int32_t n_deletes;
    const char *const *removed_paths;
    int32_t n_removed;
    int64_t base_snapshot_id;
    const struct floe_ice_expr *conflict_filter;
    floe_isolation_level isolation;
    /* NULL: "delete" / "overwrite" as below.  "replace": a rewrite that
     * changes no rows (compaction: rewrite_data_files), Java's
     * RewriteFiles — data files added and removed, no delete files added
     * unless delete files are removed too (rewrite_position_delete_files:
     * the added position delete files replace the removed ones). */
    const char *operation;
    /* Delete files removed, as their paths are recorded in the manifests
     * (each must still be live, else FLOE_ERR_CONFLICT). */
    const char *const *removed_delete_paths;
    int32_t n_removed_deletes;
    /* The branch the change commits to (NULL or "main": main).  Its head
     * plays the current snapshot's part in every validation below, and
     * only that ref moves. */
    const char *branch;
} floe_row_delta;

/* Commit `d` to ns.name with the append retry loop.  Each attempt, on the
 * reloaded table, validates against the snapshots committed after
 * d->base_snapshot_id, failing with FLOE_ERR_CONFLICT (final, not retried,
 * nothing committed) when
 *   - a data file a delete file references, or a removed data file, is no
 *     longer live (validateDataFilesExist / a concurrent delete);
 *   - serializable only: a data file added after the base might hold rows
 *     matching conflict_filter (validateNoConflictingDataFiles);
 *   - a delete file (or DV) added after the base applies to a data file
 *     this change removes or writes a delete file or DV for
 *     (validateNoConflictingDeleteFiles; per data file: two changes
 *     deleting rows of one file conflict, as an UPDATE of the same row
 *     would otherwise add it twice).  A position delete file or DV applies
 *     to the data file it names (referenced_data_file or equal file_path
 *     bounds), else — as Java's DeleteFileIndex — to the data files of its
 *     spec and partition within its file_path bounds; an equality delete
 *     file to the older data of its partition (of the table, unpartitioned);
 * the base must be an ancestor of the current snapshot (else a conflict;
 * -1 checks the whole history).  Snapshot isolation skips only the check
 * of added data files.  A named data file must also be live in the
 * current snapshot (else a conflict naming it), and a delete file must not
 * apply to a file the same change removes (FLOE_ERR_INVALID_ARGUMENT).
 * The operation is "delete" when only deletes are added or files removed,
 * "overwrite" when data files are added too, "append" never.  Nothing to
 * do (all counts 0): no snapshot, *snapshot_id = -1.  The caller's files
 * are never deleted here. */
floe_status floe_catalog_row_delta(floe_catalog *c, const char *ns, const char *name, const floe_row_delta *d,
                                   const char *const *summary_kv, int32_t n_kv, int max_retries,
                                   int64_t *snapshot_id) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif

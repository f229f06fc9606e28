/*
 * catalog_sqlite.c — the embedded Iceberg catalog: a SQLite database in the
 * warehouse using the JDBC / PyIceberg SqlCatalog schema.  See
 * include/floe/catalog.h.
 *
 * The database holds two tables, exactly as Iceberg Java's JdbcCatalog and
 * PyIceberg's SqlCatalog create them:
 *   iceberg_tables(catalog_name, table_namespace, table_name,
 *                  metadata_location, previous_metadata_location)
 *   iceberg_namespace_properties(catalog_name, namespace, property_key,
 *                  property_value)
 * A namespace exists when it has a property row or holds a table; creating
 * one writes the property exists=true, as PyIceberg does.
 *
 * Concurrency.  One connection per catalog handle, in WAL mode (readers do
 * not block the writer) with a busy timeout (writers from other handles or
 * processes wait for each other instead of failing).  A mutex around the
 * connection makes a handle usable from any thread; it is held only while
 * talking to SQLite, never while writing metadata files.  A commit is a
 * compare-and-swap: the new metadata file is written first (with a fresh
 * UUID in its name, so racing writers never collide), then
 *   UPDATE iceberg_tables SET metadata_location = new ...
 *   WHERE ... AND metadata_location = base
 * succeeds for exactly one of the writers that started from `base`; a
 * loser deletes its file and reports FLOE_ERR_CONFLICT.
 */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "base/buffer.h"
#include "base/hashmap.h"
#include "base/log.h"
#include "base/str.h"
#include "floe/catalog.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_view.h"
#include "floe/memory.h"
#include "iceberg/catalog/catalog_impl.h"
#include "iceberg/spec/ice_internal.h"
#include "iceberg/update/table_update_internal.h"

#define CATALOG_NAME "floe"
#define DB_FILE "floe_catalog.db"
#define BUSY_TIMEOUT_MS 30000
/* Iceberg's write.metadata.previous-versions-max default. */
#define DEFAULT_PREVIOUS_VERSIONS 100

/* The SQLite catalog: the base (catalog_impl.h) first, then the database. */
typedef struct sqlite_catalog {
    floe_catalog base;
    char *db_path;
    sqlite3 *db;
    pthread_mutex_t mu; /* guards db and cache */
    /* Parsed metadata by its location, so that one statement's loads of a
     * table (bind, commit, the commit's base) parse its metadata.json once:
     * a location names one immutable file.  Emptied by every change to the
     * catalog's tables, so a session never holds more than a few. */
    struct {
        char *location;
        floe_ice_table_metadata *md; /* one reference held here */
    } cache[8];
    int32_t cache_next; /* the slot the next miss replaces */
} sqlite_catalog;

#define SQ(c) ((sqlite_catalog *)(c))

/* Rows of iceberg_tables that are tables: Iceberg Java's JdbcCatalog keeps
 * views in the same table with iceberg_type 'VIEW' (tables 'TABLE', or
 * NULL in rows written before the column existed). */
#define TABLE_ROWS " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)"
#define VIEW_ROWS " AND iceberg_type = 'VIEW'"

static const floe_catalog_ops SQLITE_OPS;
static void sqlite_close(floe_catalog *c);
static floe_status view_location_locked(floe_catalog *c, const char *ns, const char *name, char **out);

/* ---- the parsed-metadata cache ----------------------------------------------- */

static void cache_clear(floe_catalog *c) {
    pthread_mutex_lock(&SQ(c)->mu);
    for (size_t i = 0; i < sizeof SQ(c)->cache / sizeof SQ(c)->cache[0]; i++) {
        floe_free(SQ(c)->cache[i].location);
        floe_ice_table_metadata_free(SQ(c)->cache[i].md);
        SQ(c)->cache[i].location = NULL;
        SQ(c)->cache[i].md = NULL;
    }
    pthread_mutex_unlock(&SQ(c)->mu);
}

/* Hands `md` (one reference) to the cache as the metadata at `location`. */
static void cache_put(floe_catalog *c, const char *location, floe_ice_table_metadata *md) {
    sqlite_catalog *q = SQ(c);
    const int32_t n = (int32_t)(sizeof q->cache / sizeof q->cache[0]);
    char *key = md ? floe_strdup(location) : NULL;
    if (!key) { /* not cached: only slower */
        floe_ice_table_metadata_free(md);
        return;
    }
    pthread_mutex_lock(&q->mu);
    int32_t slot = q->cache_next;
    q->cache_next = (slot + 1) % n;
    floe_free(q->cache[slot].location);
    floe_ice_table_metadata_free(q->cache[slot].md);
    q->cache[slot].location = key;
    q->cache[slot].md = md;
    pthread_mutex_unlock(&q->mu);
}

/* The metadata at `location`: the cached copy (shared, read-only) or
 * freshly read and then cached.  The caller frees *out as usual. */
static floe_status read_metadata(floe_catalog *c, const char *location, floe_ice_table_metadata **out) {
    *out = NULL;
    sqlite_catalog *q = SQ(c);
    const int32_t n = (int32_t)(sizeof q->cache / sizeof q->cache[0]);
    pthread_mutex_lock(&q->mu);
    for (int32_t i = 0; i < n && !*out; i++)
        if (q->cache[i].location && strcmp(q->cache[i].location, location) == 0)
            *out = floe_ice_table_metadata_retain(q->cache[i].md);
    pthread_mutex_unlock(&q->mu);
    if (*out) return NULL;
    FLOE_TRY(floe_ice_table_metadata_read(c->io, location, out));
    cache_put(c, location, floe_ice_table_metadata_retain(*out));
    return NULL;
}

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory in the catalog"); }

/* ---- SQLite plumbing ------------------------------------------------------ */

static floe_status db_error(floe_catalog *c, int rc, const char *what) {
    int code = rc & 0xff;
    floe_code fc = (code == SQLITE_BUSY || code == SQLITE_LOCKED) ? FLOE_ERR_TIMEOUT : FLOE_ERR_IO;
    return floe_error(fc, "catalog database '%s': %s: %s", SQ(c)->db_path, what,
                      SQ(c)->db ? sqlite3_errmsg(SQ(c)->db) : sqlite3_errstr(rc));
}

/* Prepare `sql` and bind the NULL-terminated list of text parameters. */
static floe_status prepare(floe_catalog *c, const char *sql, sqlite3_stmt **out, const char *const *params) {
    *out = NULL;
    int rc = sqlite3_prepare_v2(SQ(c)->db, sql, -1, out, NULL);
    if (rc != SQLITE_OK) return db_error(c, rc, "preparing a statement");
    for (int i = 0; params && params[i]; i++) {
        rc = sqlite3_bind_text(*out, i + 1, params[i], -1, SQLITE_TRANSIENT);
        if (rc != SQLITE_OK) {
            sqlite3_finalize(*out);
            *out = NULL;
            return db_error(c, rc, "binding a parameter");
        }
    }
    return NULL;
}

/* Run a statement that returns no rows; *changes (may be NULL) receives the
 * number of rows it changed.  *constraint (may be NULL) is set instead of
 * failing when a key was violated. */
static floe_status exec(floe_catalog *c, const char *sql, const char *const *params, int *changes,
                        bool *constraint) {
    sqlite3_stmt *stmt = NULL;
    if (constraint) *constraint = false;
    FLOE_TRY(prepare(c, sql, &stmt, params));
    int rc = sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
        if (changes) *changes = sqlite3_changes(SQ(c)->db);
        return NULL;
    }
    if ((rc & 0xff) == SQLITE_CONSTRAINT && constraint) {
        *constraint = true;
        return NULL;
    }
    return db_error(c, rc, "running a statement");
}

/* Run a query and collect the first column of every row as strings
 * (floe_malloc'd; NULL values become ""). */
static floe_status query_strings(floe_catalog *c, const char *sql, const char *const *params, char ***out,
                                 int32_t *n) {
    *out = NULL;
    *n = 0;
    sqlite3_stmt *stmt = NULL;
    FLOE_TRY(prepare(c, sql, &stmt, params));
    char **v = NULL;
    int32_t cnt = 0, cap = 0;
    floe_status st = NULL;
    for (;;) {
        int rc = sqlite3_step(stmt);
        if (rc == SQLITE_DONE) break;
        if (rc != SQLITE_ROW) {
            st = db_error(c, rc, "reading rows");
            break;
        }
        if (cnt == cap) {
            int32_t nc = cap ? cap * 2 : 8;
            char **nv = floe_realloc(v, (size_t)nc * sizeof *nv);
            if (!nv) {
                st = oom();
                break;
            }
            v = nv;
            cap = nc;
        }
        const unsigned char *txt = sqlite3_column_text(stmt, 0);
        v[cnt] = floe_strdup(txt ? (const char *)txt : "");
        if (!v[cnt]) {
            st = oom();
            break;
        }
        cnt++;
    }
    sqlite3_finalize(stmt);
    if (st) {
        floe_catalog_names_free(v, cnt);
        return st;
    }
    *out = v;
    *n = cnt;
    return NULL;
}

/* The first column of the first row, or *out = NULL when there is none. */
static floe_status query_one(floe_catalog *c, const char *sql, const char *const *params, char **out) {
    *out = NULL;
    char **v = NULL;
    int32_t n = 0;
    FLOE_TRY(query_strings(c, sql, params, &v, &n));
    if (n > 0) {
        *out = v[0];
        v[0] = NULL;
    }
    floe_catalog_names_free(v, n);
    return NULL;
}

/* ---- open / close ----------------------------------------------------------- */

static floe_status mkdir_p(const char *dir) {
    char *tmp = floe_strdup(dir);
    if (!tmp) return oom();
    floe_status st = NULL;
    for (char *p = tmp + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
            st = floe_error(FLOE_ERR_IO, "cannot create warehouse directory '%s': %s", tmp, strerror(errno));
            break;
        }
        *p = saved;
        if (!saved) break;
    }
    floe_free(tmp);
    return st;
}

static const char *const SCHEMA_SQL =
    "CREATE TABLE IF NOT EXISTS iceberg_tables ("
    " catalog_name VARCHAR(255) NOT NULL,"
    " table_namespace VARCHAR(255) NOT NULL,"
    " table_name VARCHAR(255) NOT NULL,"
    " metadata_location VARCHAR(1000),"
    " previous_metadata_location VARCHAR(1000),"
    " iceberg_type VARCHAR(5),"
    " PRIMARY KEY (catalog_name, table_namespace, table_name));"
    "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
    " catalog_name VARCHAR(255) NOT NULL,"
    " namespace VARCHAR(255) NOT NULL,"
    " property_key VARCHAR(255) NOT NULL,"
    " property_value VARCHAR(1000),"
    " PRIMARY KEY (catalog_name, namespace, property_key));";

static floe_status open_db(floe_catalog *c) {
    int rc = sqlite3_open_v2(SQ(c)->db_path, &SQ(c)->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                             NULL);
    if (rc != SQLITE_OK) return db_error(c, rc, "opening");
    sqlite3_busy_timeout(SQ(c)->db, BUSY_TIMEOUT_MS);
    /* WAL: readers never wait for the writer, and commits are cheap. */
    rc = sqlite3_exec(SQ(c)->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
    if (rc != SQLITE_OK) return db_error(c, rc, "switching to WAL mode");
    rc = sqlite3_exec(SQ(c)->db, SCHEMA_SQL, NULL, NULL, NULL);
    if (rc != SQLITE_OK) return db_error(c, rc, "creating the catalog tables");
    /* A database made before views (or by PyIceberg) lacks iceberg_type:
     * add it as Iceberg Java's JdbcCatalog does when it upgrades to its V1
     * schema; old rows stay NULL, which means TABLE. */
    sqlite3_stmt *probe = NULL;
    rc = sqlite3_prepare_v2(SQ(c)->db, "SELECT iceberg_type FROM iceberg_tables LIMIT 0", -1, &probe, NULL);
    sqlite3_finalize(probe);
    if (rc != SQLITE_OK) {
        rc = sqlite3_exec(SQ(c)->db, "ALTER TABLE iceberg_tables ADD COLUMN iceberg_type VARCHAR(5)", NULL, NULL, NULL);
        if (rc != SQLITE_OK) return db_error(c, rc, "adding iceberg_type to iceberg_tables");
    }
    return NULL;
}

static bool is_uri(const char *location) { return strstr(location, "://") != NULL; }

/* db_path: the SQLite file; warehouse: where tables live (a directory, or a
 * file:/s3: URI); uri: what reopens this catalog elsewhere. */
static floe_status open_catalog(const char *db_path, const char *warehouse, const char *uri, floe_catalog **out) {
    sqlite_catalog *sc = floe_calloc(1, sizeof *sc);
    if (!sc) return oom();
    floe_catalog *c = &sc->base;
    c->ops = &SQLITE_OPS;
    pthread_mutex_init(&sc->mu, NULL);
    size_t wl = strlen(warehouse);
    while (wl > 1 && warehouse[wl - 1] == '/') wl--;
    c->warehouse = floe_strndup(warehouse, wl);
    SQ(c)->db_path = floe_strdup(db_path);
    c->uri = floe_strdup(uri);
    floe_status st = c->warehouse && SQ(c)->db_path && c->uri ? NULL : oom();
    if (!st && !is_uri(c->warehouse)) st = mkdir_p(c->warehouse);
    if (!st) st = open_db(c);
    if (!st) st = floe_fileio_new(NULL, 0, &c->io);
    if (st) {
        sqlite_close(c);
        return st;
    }
    *out = c;
    return NULL;
}

/* A local path made absolute against the working directory (a relative
 * warehouse would be recorded relative in every table's metadata location,
 * and then readable only from that directory — not from another process's,
 * nor another host's under mpirun).  URIs and absolute paths come back as
 * they are.  floe_malloc'd. */
static floe_status absolute_path(const char *path, char **out) {
    *out = NULL;
    if (path[0] == '/' || is_uri(path) || strncmp(path, "file:", 5) == 0) {
        *out = floe_strdup(path);
        return *out ? NULL : oom();
    }
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return floe_error(FLOE_ERR_IO, "cannot make '%s' absolute: the working directory is unknown: %s", path,
                          strerror(errno));
    const char *rel = path;
    while (rel[0] == '.' && rel[1] == '/') rel += 2; /* "./wh" */
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = strcmp(rel, ".") == 0 || !*rel ? floe_buf_printf(&b, "%s", cwd)
                                                    : floe_buf_printf(&b, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", rel);
    if (!st && !(*out = floe_strdup(floe_buf_cstr(&b)))) st = oom();
    floe_buf_free(&b);
    return st;
}

floe_status floe_catalog_open_sqlite(const char *warehouse, floe_catalog **out) {
    *out = NULL;
    if (!warehouse || !*warehouse) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "the catalog needs a warehouse directory");
    if (is_uri(warehouse))
        return floe_error(FLOE_ERR_UNSUPPORTED,
                          "warehouse '%s' is not a local directory: give the SQLite catalog database a local file "
                          "(sqlite:<file>?warehouse=<uri>, or --catalog FILE)",
                          warehouse);
    char *abs = NULL;
    FLOE_TRY(absolute_path(warehouse, &abs));
    floe_buf b = FLOE_BUF_INIT;
    size_t wl = strlen(abs);
    while (wl > 1 && abs[wl - 1] == '/') wl--;
    floe_status st = floe_buf_printf(&b, "%.*s/%s", (int)wl, abs, DB_FILE);
    if (!st) st = open_catalog(floe_buf_cstr(&b), abs, abs, out);
    floe_buf_free(&b);
    floe_free(abs);
    return st;
}

floe_status floe_catalog_open_sqlite_db(const char *db_path, const char *warehouse, floe_catalog **out) {
    *out = NULL;
    if (!db_path || !*db_path || is_uri(db_path))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "the SQLite catalog database must be a local file (got '%s')",
                          db_path ? db_path : "");
    if (!warehouse || !*warehouse) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "the catalog needs a warehouse location");
    if (strchr(db_path, '?'))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "catalog database path '%s' must not contain '?'", db_path);
    char *abs_db = NULL, *abs_wh = NULL;
    floe_status st = absolute_path(db_path, &abs_db);
    if (!st) st = absolute_path(warehouse, &abs_wh);
    floe_buf b = FLOE_BUF_INIT;
    if (!st) st = floe_buf_printf(&b, "sqlite:%s?warehouse=%s", abs_db, abs_wh);
    if (!st) st = open_catalog(abs_db, abs_wh, floe_buf_cstr(&b), out);
    floe_buf_free(&b);
    floe_free(abs_db);
    floe_free(abs_wh);
    return st;
}

floe_status floe_catalog_open_sqlite_uri(const char *uri, floe_catalog **out) {
    *out = NULL;
    if (!uri || !*uri) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "empty catalog URI");
    if (strncmp(uri, "sqlite:", 7) != 0) return floe_catalog_open_sqlite(uri, out);
    const char *q = strstr(uri + 7, "?warehouse=");
    if (!q || q == uri + 7)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "catalog URI '%s' is not sqlite:<database file>?warehouse=<location>", uri);
    char *db = floe_strndup(uri + 7, (size_t)(q - (uri + 7)));
    if (!db) return oom();
    floe_status st = floe_catalog_open_sqlite_db(db, q + strlen("?warehouse="), out);
    floe_free(db);
    return st;
}

static void sqlite_close(floe_catalog *c) {
    cache_clear(c);
    if (SQ(c)->db) sqlite3_close_v2(SQ(c)->db);
    pthread_mutex_destroy(&SQ(c)->mu);
    floe_free(SQ(c)->db_path);
    floe_catalog_base_free(c);
    floe_free(c);
}

/* ---- names ------------------------------------------------------------------ */

static floe_status check_name(const char *what, const char *name, bool allow_dot) {
    if (!name || !*name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a %s name cannot be empty", what);
    if (strchr(name, '/') || (!allow_dot && strchr(name, '.')))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s name '%s' may not contain '%s'", what, name,
                          strchr(name, '/') ? "/" : ".");
    return NULL;
}

/* ---- namespaces ---------------------------------------------------------------- */

static const char *const SQL_NS_EXISTS =
    "SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND namespace = ?2 "
    "UNION SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 LIMIT 1";
static const char *const SQL_NS_LIST =
    "SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?1 "
    "UNION SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ?1 ORDER BY 1";

/* Caller holds SQ(c)->mu. */
static floe_status ns_exists_locked(floe_catalog *c, const char *ns, bool *out) {
    const char *p[] = {CATALOG_NAME, ns, NULL};
    char *v = NULL;
    FLOE_TRY(query_one(c, SQL_NS_EXISTS, p, &v));
    *out = v != NULL;
    floe_free(v);
    return NULL;
}

/* "namespace 'x' does not exist" with a suggestion.  Caller holds SQ(c)->mu. */
static floe_status ns_missing_locked(floe_catalog *c, const char *ns) {
    const char *p[] = {CATALOG_NAME, NULL};
    char **names = NULL;
    int32_t n = 0;
    floe_status st = query_strings(c, SQL_NS_LIST, p, &names, &n);
    if (st) floe_status_free(st), n = 0;
    ptrdiff_t k = floe_str_closest(floe_str_c(ns), (const char *const *)names, (size_t)n);
    st = k >= 0 ? floe_error(FLOE_ERR_NOT_FOUND, "namespace '%s' does not exist (did you mean '%s'?)", ns, names[k])
                : floe_error(FLOE_ERR_NOT_FOUND, "namespace '%s' does not exist", ns);
    floe_catalog_names_free(names, n);
    return st;
}

/* BEGIN IMMEDIATE (caller holds mu): one write transaction. */
static floe_status begin_locked(floe_catalog *c) {
    int rc = sqlite3_exec(SQ(c)->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    return rc == SQLITE_OK ? NULL : db_error(c, rc, "starting a transaction");
}

/* COMMIT when st is NULL, else ROLLBACK; returns st or the commit's error. */
static floe_status end_locked(floe_catalog *c, floe_status st) {
    int rc = sqlite3_exec(SQ(c)->db, st ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK && !st) st = db_error(c, rc, "committing");
    return st;
}

static const char *const SQL_PROP_SET =
    "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value) "
    "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (catalog_name, namespace, property_key) "
    "DO UPDATE SET property_value = excluded.property_value";

/* A namespace exists while it has a property row (or a table): with no
 * properties it gets exists=true, as PyIceberg's SqlCatalog writes. */
static floe_status sqlite_create_namespace(floe_catalog *c, const char *ns, const char *const *props,
                                           int32_t n_props, bool if_not_exists) {
    FLOE_TRY(check_name("namespace", ns, false));
    pthread_mutex_lock(&SQ(c)->mu);
    bool exists = false;
    floe_status st = begin_locked(c);
    if (!st) {
        st = ns_exists_locked(c, ns, &exists);
        for (int32_t i = 0; !st && !exists && i < (n_props > 0 ? n_props : 1); i++) {
            const char *p[] = {CATALOG_NAME, ns, n_props > 0 ? props[2 * i] : "exists",
                               n_props > 0 ? props[2 * i + 1] : "true", NULL};
            st = exec(c, SQL_PROP_SET, p, NULL, NULL);
        }
        st = end_locked(c, st);
    }
    pthread_mutex_unlock(&SQ(c)->mu);
    if (!st && exists && !if_not_exists)
        st = floe_error(FLOE_ERR_ALREADY_EXISTS, "namespace '%s' already exists", ns);
    return st;
}

static floe_status sqlite_namespace_properties(floe_catalog *c, const char *ns, char ***kv, int32_t *n_pairs) {
    const char *p[] = {CATALOG_NAME, ns, NULL};
    char **keys = NULL, **vals = NULL;
    int32_t nk = 0, nv = 0;
    pthread_mutex_lock(&SQ(c)->mu);
    bool exists = false;
    floe_status st = ns_exists_locked(c, ns, &exists);
    if (!st && !exists) st = ns_missing_locked(c, ns);
    /* Two ordered single-column reads under one lock: same rows, same order. */
    if (!st)
        st = query_strings(c,
                           "SELECT property_key FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND "
                           "namespace = ?2 ORDER BY property_key",
                           p, &keys, &nk);
    if (!st)
        st = query_strings(c,
                           "SELECT property_value FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND "
                           "namespace = ?2 ORDER BY property_key",
                           p, &vals, &nv);
    pthread_mutex_unlock(&SQ(c)->mu);
    char **out = NULL;
    if (!st && nk != nv) st = floe_error(FLOE_ERR_IO, "namespace '%s' properties changed while read", ns);
    if (!st && nk > 0 && !(out = floe_calloc((size_t)nk * 2, sizeof *out))) st = oom();
    if (!st) {
        for (int32_t i = 0; i < nk; i++) {
            out[2 * i] = keys[i];
            out[2 * i + 1] = vals[i];
        }
        floe_free(keys);
        floe_free(vals);
        *kv = out;
        *n_pairs = nk;
        return NULL;
    }
    floe_catalog_names_free(keys, nk);
    floe_catalog_names_free(vals, nv);
    return st;
}

static floe_status sqlite_update_namespace_properties(floe_catalog *c, const char *ns, const char *const *set_kv,
                                                      int32_t n_set, const char *const *remove, int32_t n_remove,
                                                      char ***missing, int32_t *n_missing) {
    char **miss = NULL;
    int32_t n_miss = 0;
    pthread_mutex_lock(&SQ(c)->mu);
    bool exists = false;
    floe_status st = begin_locked(c);
    if (!st) {
        st = ns_exists_locked(c, ns, &exists);
        if (!st && !exists) st = ns_missing_locked(c, ns);
        for (int32_t i = 0; !st && i < n_remove; i++) {
            const char *p[] = {CATALOG_NAME, ns, remove[i], NULL};
            int changes = 0;
            st = exec(c,
                      "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND namespace = ?2 AND "
                      "property_key = ?3",
                      p, &changes, NULL);
            if (!st && changes == 0 && missing) {
                char **nm = floe_realloc(miss, (size_t)(n_miss + 1) * sizeof *nm);
                if (!nm) st = oom();
                else {
                    miss = nm;
                    if (!(miss[n_miss] = floe_strdup(remove[i]))) st = oom();
                    else n_miss++;
                }
            }
        }
        for (int32_t i = 0; !st && i < n_set; i++) {
            const char *p[] = {CATALOG_NAME, ns, set_kv[2 * i], set_kv[2 * i + 1], NULL};
            st = exec(c, SQL_PROP_SET, p, NULL, NULL);
        }
        /* Removing the last property must not make the namespace vanish. */
        bool still = false;
        if (!st) st = ns_exists_locked(c, ns, &still);
        if (!st && !still) {
            const char *p[] = {CATALOG_NAME, ns, "exists", "true", NULL};
            st = exec(c, SQL_PROP_SET, p, NULL, NULL);
        }
        st = end_locked(c, st);
    }
    pthread_mutex_unlock(&SQ(c)->mu);
    if (st || !missing) {
        floe_catalog_names_free(miss, n_miss);
        return st;
    }
    *missing = miss;
    *n_missing = n_miss;
    return NULL;
}

static floe_status sqlite_drop_namespace(floe_catalog *c, const char *ns, bool if_exists) {
    if (!ns || !*ns) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a namespace name cannot be empty");
    pthread_mutex_lock(&SQ(c)->mu);
    /* One write transaction, so a table cannot appear between the check
     * and the delete. */
    int rc = sqlite3_exec(SQ(c)->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    floe_status st = rc == SQLITE_OK ? NULL : db_error(c, rc, "starting a transaction");
    char *count = NULL;
    bool exists = false;
    if (!st) {
        const char *p[] = {CATALOG_NAME, ns, NULL};
        st = query_one(c, "SELECT count(*) FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2", p,
                       &count);
        if (!st && count && strcmp(count, "0") != 0)
            st = floe_error(FLOE_ERR_CONFLICT, "namespace '%s' is not empty: it holds %s table%s", ns, count,
                            strcmp(count, "1") == 0 ? "" : "s");
        int changes = 0;
        if (!st)
            st = exec(c, "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND namespace = ?2", p,
                      &changes, NULL);
        exists = changes > 0;
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_exec(SQ(c)->db, st ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
        if (rc != SQLITE_OK && !st) st = db_error(c, rc, "committing");
    }
    if (!st && !exists && !if_exists) st = ns_missing_locked(c, ns);
    pthread_mutex_unlock(&SQ(c)->mu);
    floe_free(count);
    return st;
}

static floe_status sqlite_namespace_exists(floe_catalog *c, const char *ns, bool *out) {
    *out = false;
    if (!ns || !*ns) return NULL;
    pthread_mutex_lock(&SQ(c)->mu);
    floe_status st = ns_exists_locked(c, ns, out);
    pthread_mutex_unlock(&SQ(c)->mu);
    return st;
}

static floe_status sqlite_list_namespaces(floe_catalog *c, char ***names, int32_t *n) {
    const char *p[] = {CATALOG_NAME, NULL};
    pthread_mutex_lock(&SQ(c)->mu);
    floe_status st = query_strings(c, SQL_NS_LIST, p, names, n);
    pthread_mutex_unlock(&SQ(c)->mu);
    return st;
}

static floe_status sqlite_list_tables(floe_catalog *c, const char *ns, char ***names, int32_t *n) {
    *names = NULL;
    *n = 0;
    if (!ns || !*ns) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a namespace name cannot be empty");
    const char *p[] = {CATALOG_NAME, ns, NULL};
    pthread_mutex_lock(&SQ(c)->mu);
    bool exists = false;
    floe_status st = ns_exists_locked(c, ns, &exists);
    if (!st && !exists) st = ns_missing_locked(c, ns);
    if (!st)
        st = query_strings(c,
                           "SELECT table_name FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 "
                           TABLE_ROWS " ORDER BY table_name",
                           p, names, n);
    pthread_mutex_unlock(&SQ(c)->mu);
    return st;
}

/* ---- tables: lookups ----------------------------------------------------------- */

static const char *const SQL_TABLE_LOCATION =
    "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 "
    "AND table_name = ?3" TABLE_ROWS;

/* The table's metadata location, or NULL when there is no such table.
 * Caller holds SQ(c)->mu. */
static floe_status location_locked(floe_catalog *c, const char *ns, const char *name, char **out) {
    const char *p[] = {CATALOG_NAME, ns, name, NULL};
    return query_one(c, SQL_TABLE_LOCATION, p, out);
}

/* "table db.t does not exist" with a suggestion among the namespace's
 * tables, or about the namespace when that is what is missing. */
static floe_status table_missing_locked(floe_catalog *c, const char *ns, const char *name) {
    bool ns_ok = false;
    floe_status st = ns_exists_locked(c, ns, &ns_ok);
    if (st) return st;
    if (!ns_ok) return floe_status_wrap(ns_missing_locked(c, ns), "table %s.%s does not exist", ns, name);
    const char *p[] = {CATALOG_NAME, ns, NULL};
    char **names = NULL;
    int32_t n = 0;
    st = query_strings(c, "SELECT table_name FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2"
                       TABLE_ROWS, p,
                       &names, &n);
    if (st) floe_status_free(st), n = 0;
    ptrdiff_t k = floe_str_closest(floe_str_c(name), (const char *const *)names, (size_t)n);
    st = k >= 0 ? floe_error(FLOE_ERR_NOT_FOUND, "table %s.%s does not exist (did you mean '%s.%s'?)", ns, name, ns,
                             names[k])
                : floe_error(FLOE_ERR_NOT_FOUND, "table %s.%s does not exist", ns, name);
    floe_catalog_names_free(names, n);
    return st;
}

static bool is_local(const char *loc) { return !strstr(loc, "://") && strncmp(loc, "file:", 5) != 0; }

/* Local tables read through plain files, so they do not depend on the
 * catalog staying open; others need the catalog's FileIO. */
static floe_status make_table(floe_catalog *c, floe_ice_table_metadata *md, const char *location,
                              floe_ice_table **out) {
    return floe_catalog_make_table(md, location, is_local(location) ? NULL : c->io, out);
}


static floe_status sqlite_load_table(floe_catalog *c, const char *ns, const char *name, floe_ice_table **out) {
    *out = NULL;
    if (!ns || !name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "load_table needs a namespace and a name");
    char *loc = NULL;
    pthread_mutex_lock(&SQ(c)->mu);
    floe_status st = location_locked(c, ns, name, &loc);
    if (!st && !loc) st = table_missing_locked(c, ns, name);
    pthread_mutex_unlock(&SQ(c)->mu);
    if (st) return st;
    floe_ice_table_metadata *md = NULL;
    st = read_metadata(c, loc, &md);
    if (st) st = floe_status_wrap(st, "loading table %s.%s", ns, name);
    if (!st) st = make_table(c, md, loc, out);
    floe_free(loc);
    return st;
}

static floe_status sqlite_table_exists(floe_catalog *c, const char *ns, const char *name, bool *out) {
    *out = false;
    if (!ns || !name) return NULL;
    char *loc = NULL;
    pthread_mutex_lock(&SQ(c)->mu);
    floe_status st = location_locked(c, ns, name, &loc);
    pthread_mutex_unlock(&SQ(c)->mu);
    *out = loc != NULL;
    floe_free(loc);
    return st;
}

static floe_status sqlite_default_location(floe_catalog *c, const char *ns, const char *name, char **out) {
    *out = NULL;
    FLOE_TRY(check_name("namespace", ns, false));
    FLOE_TRY(check_name("table", name, true));
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_buf_printf(&b, "%s/%s/%s", c->warehouse, ns, name);
    if (!st) {
        *out = floe_strdup(floe_buf_cstr(&b));
        if (!*out) st = oom();
    }
    floe_buf_free(&b);
    return st;
}

/* ---- writing metadata files ------------------------------------------------------ */

/* The version number of a metadata file name: NNNNN-<uuid>.metadata.json
 * or vN.metadata.json; -1 when it has neither form. */
static int64_t metadata_version(const char *location) {
    const char *base = strrchr(location, '/');
    base = base ? base + 1 : location;
    if (base[0] == 'v') base++;
    int64_t v = 0;
    const char *p = base;
    while (*p >= '0' && *p <= '9' && v < INT32_MAX) v = v * 10 + (*p++ - '0');
    if (p == base || (*p != '-' && *p != '.')) return -1;
    return v;
}

/* The metadata directory of a table: write.metadata.path, else
 * <location>/metadata. */
static floe_status metadata_path(const floe_ice_table_metadata *md, int64_t version, char **out) {
    *out = NULL;
    if (!md->location || !*md->location)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "table metadata has no location");
    char uuid[37];
    FLOE_TRY(floe_ice_uuid4(uuid));
    const char *dir = floe_ice_tm_property(md, "write.metadata.path");
    floe_buf b = FLOE_BUF_INIT;
    size_t dl = dir ? strlen(dir) : strlen(md->location);
    const char *d = dir ? dir : md->location;
    while (dl > 1 && d[dl - 1] == '/') dl--;
    floe_status st = floe_buf_printf(&b, "%.*s%s/%05" PRId64 "-%s.metadata.json", (int)dl, d,
                                     dir ? "" : "/metadata", version, uuid);
    if (!st) {
        *out = floe_strdup(floe_buf_cstr(&b));
        if (!*out) st = oom();
    }
    floe_buf_free(&b);
    return st;
}

/* Write `text` as a new file (never replacing one). */
static floe_status write_file(floe_catalog *c, const char *location, const char *text) {
    floe_output *o = NULL;
    FLOE_LOG_DEBUG("metadata", "write %s", location);
    FLOE_TRY(floe_fileio_create_output(c->io, location, 0, &o));
    floe_status st = floe_output_write(o, text, strlen(text));
    if (st) {
        floe_output_abort(o);
        return st;
    }
    return floe_output_close(o);
}

/* Delete a file we wrote but could not register; a failure here only
 * leaves an unreferenced file behind, so it is not reported over the
 * error that caused it. */
static void discard_file(floe_catalog *c, const char *location) {
    floe_status st = floe_fileio_delete(c->io, location);
    floe_status_free(st);
}

static floe_status sqlite_create_table(floe_catalog *c, const char *ns, const char *name,
                                      const floe_ice_table_metadata *md, floe_ice_table **out) {
    if (out) *out = NULL;
    FLOE_TRY(check_name("namespace", ns, false));
    FLOE_TRY(check_name("table", name, true));
    if (!md) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "create_table needs metadata");

    /* Check first so that the common failures write nothing. */
    pthread_mutex_lock(&SQ(c)->mu);
    bool ns_ok = false;
    char *loc = NULL;
    floe_status st = ns_exists_locked(c, ns, &ns_ok);
    if (!st && !ns_ok) st = ns_missing_locked(c, ns);
    if (!st) st = location_locked(c, ns, name, &loc);
    pthread_mutex_unlock(&SQ(c)->mu);
    if (!st && loc) st = floe_error(FLOE_ERR_ALREADY_EXISTS, "table %s.%s already exists", ns, name);
    floe_free(loc);
    if (st) return st;

    char *path = NULL, *text = NULL;
    FLOE_TRY(metadata_path(md, 0, &path));
    st = floe_ice_table_metadata_to_json(md, 0, &text);
    if (!st) st = write_file(c, path, text);
    if (st) {
        floe_free(path);
        floe_free(text);
        return st;
    }
    bool dup = false;
    const char *p[] = {CATALOG_NAME, ns, name, path, NULL};
    pthread_mutex_lock(&SQ(c)->mu);
    st = exec(c,
              "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
              "previous_metadata_location, iceberg_type) VALUES (?1, ?2, ?3, ?4, NULL, 'TABLE')",
              p, NULL, &dup);
    pthread_mutex_unlock(&SQ(c)->mu);
    if (!st && dup) {
        /* Lost a race to another create, or the name is a view's. */
        char *view = NULL;
        pthread_mutex_lock(&SQ(c)->mu);
        floe_status vst = view_location_locked(c, ns, name, &view);
        pthread_mutex_unlock(&SQ(c)->mu);
        floe_status_free(vst);
        st = view ? floe_error(FLOE_ERR_ALREADY_EXISTS, "relation %s.%s already exists (it is a view)", ns, name)
                  : floe_error(FLOE_ERR_ALREADY_EXISTS, "table %s.%s already exists", ns, name);
        floe_free(view);
    }
    if (!st && out) {
        floe_ice_table_metadata *copy = NULL;
        st = floe_ice_table_metadata_parse(text, strlen(text), path, &copy);
        if (!st) st = make_table(c, copy, path, out);
    } else if (st) {
        discard_file(c, path);
    }
    floe_free(path);
    floe_free(text);
    return st;
}

/* ---- commits ---------------------------------------------------------------------- */

/* The metadata to write: `md` with `base_location` appended to its
 * metadata-log (unless already last there), trimmed to
 * write.metadata.previous-versions-max, as *final (a derived copy, so no
 * JSON round trip) and as its text.  *n_dropped: how many leading entries
 * of (md's log, then the base) the trim removed. */
static floe_status commit_text(floe_catalog *c, const floe_ice_table_metadata *md, const char *base_location,
                               floe_ice_table_metadata **final, char **out, int32_t *n_dropped) {
    *out = NULL;
    *final = NULL;
    *n_dropped = 0;
    bool logged = md->n_metadata_log > 0 && strcmp(md->metadata_log[md->n_metadata_log - 1].file, base_location) == 0;
    int64_t base_ts = md->last_updated_ms;
    if (!logged) {
        /* The log records when the base was written: its last-updated-ms. */
        floe_ice_table_metadata *base = NULL;
        FLOE_TRY_CTX(read_metadata(c, base_location, &base), "reading the commit's base metadata");
        base_ts = base->last_updated_ms;
        bool same = !base->table_uuid || !md->table_uuid || strcmp(base->table_uuid, md->table_uuid) == 0;
        floe_ice_table_metadata_free(base);
        if (!same)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot commit: the new metadata's table-uuid %s is not the "
                              "table's", md->table_uuid);
    }
    int32_t keep = DEFAULT_PREVIOUS_VERSIONS;
    const char *pv = floe_ice_tm_property(md, "write.metadata.previous-versions-max");
    if (pv) {
        int64_t v = 0;
        floe_status st = floe_parse_int64(floe_str_c(pv), "write.metadata.previous-versions-max", &v);
        if (st) floe_status_free(st);
        else if (v >= 1 && v <= INT32_MAX) keep = (int32_t)v;
    }
    floe_ice_table_metadata *next = NULL;
    FLOE_TRY(floe_ice_tm_derive(md, &next));
    if (!logged) {
        char *file = floe_ice_tm_derived_strdup(next, base_location);
        if (!file) {
            floe_ice_table_metadata_free(next);
            return oom();
        }
        next->metadata_log[next->n_metadata_log++] = (floe_ice_log_entry){base_ts, 0, file};
        if (next->n_metadata_log > keep) {
            *n_dropped = next->n_metadata_log - keep;
            next->metadata_log += *n_dropped; /* still inside next's storage */
            next->n_metadata_log = keep;
        }
    }
    floe_status st = floe_ice_table_metadata_to_json(next, 0, out);
    if (st) floe_ice_table_metadata_free(next);
    else *final = next;
    return st;
}

static floe_status sqlite_commit(floe_catalog *c, const char *ns, const char *name, const char *base_location,
                                const floe_ice_table_metadata *md, char **new_location) {
    if (new_location) *new_location = NULL;
    if (!ns || !name || !base_location || !md)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "commit needs a table, its base location and new metadata");

    /* A commit that has already lost writes nothing. */
    char *cur = NULL;
    pthread_mutex_lock(&SQ(c)->mu);
    floe_status st = location_locked(c, ns, name, &cur);
    if (!st && !cur) st = table_missing_locked(c, ns, name);
    pthread_mutex_unlock(&SQ(c)->mu);
    if (!st && strcmp(cur, base_location) != 0)
        st = floe_error(FLOE_ERR_CONFLICT, "commit to table %s.%s lost a race: its metadata is now '%s', not '%s'", ns,
                        name, cur, base_location);
    floe_free(cur);
    if (st) return st;

    char *text = NULL, *path = NULL;
    int64_t version = metadata_version(base_location) + 1;
    int32_t n_dropped = 0;
    floe_ice_table_metadata *written = NULL;
    st = commit_text(c, md, base_location, &written, &text, &n_dropped);
    if (!st) st = metadata_path(md, version, &path);
    if (!st) st = write_file(c, path, text);
    floe_free(text);
    if (st) {
        floe_ice_table_metadata_free(written);
        floe_free(path);
        return st;
    }

    int changes = 0;
    const char *p[] = {CATALOG_NAME, ns, name, base_location, path, NULL};
    pthread_mutex_lock(&SQ(c)->mu);
    st = exec(c,
              "UPDATE iceberg_tables SET metadata_location = ?5, previous_metadata_location = ?4 "
              "WHERE catalog_name = ?1 AND table_namespace = ?2 AND table_name = ?3 AND metadata_location = ?4"
              TABLE_ROWS,
              p, &changes, NULL);
    if (!st && changes != 1) {
        char *now = NULL;
        st = location_locked(c, ns, name, &now);
        if (!st && !now) st = table_missing_locked(c, ns, name);
        if (!st)
            st = floe_error(FLOE_ERR_CONFLICT, "commit to table %s.%s lost a race: its metadata is now '%s', not '%s'",
                            ns, name, now, base_location);
        floe_free(now);
    }
    pthread_mutex_unlock(&SQ(c)->mu);
    if (st) {
        floe_ice_table_metadata_free(written);
        discard_file(c, path);
        floe_free(path);
        return st;
    }
    /* As Iceberg Java: metadata files that fell off the log go when the
     * table asks for it.  The commit has happened; failures only leave
     * unreferenced files behind. */
    const char *del = floe_ice_tm_property(md, "write.metadata.delete-after-commit.enabled");
    if (del && strcasecmp(del, "true") == 0)
        for (int32_t i = 0; i < n_dropped; i++)
            discard_file(c, i < md->n_metadata_log ? md->metadata_log[i].file : base_location);
    /* The next statement's load of the table finds what was just written
     * without reading it back. */
    cache_clear(c);
    cache_put(c, path, written);
    if (new_location) *new_location = path;
    else floe_free(path);
    return NULL;
}

/* ---- drop and rename ----------------------------------------------------------------- */

/* Files of a table to purge, deduplicated, in deletion order classes. */
typedef struct purge_set {
    floe_strmap seen;
    char **paths[4];     /* 0 data/deletes, 1 manifests, 2 manifest lists, 3 metadata */
    size_t n[4], cap[4];
    floe_status first_error;
    size_t n_errors;
} purge_set;

static void purge_note_error(purge_set *ps, floe_status st) {
    if (!st) return;
    ps->n_errors++;
    if (!ps->first_error) ps->first_error = st;
    else floe_status_free(st);
}

static void purge_add(purge_set *ps, int cls, const char *path) {
    if (!path || !*path) return;
    bool inserted = false;
    void **slot = NULL;
    floe_status st = floe_strmap_upsert(&ps->seen, floe_str_c(path), &slot, &inserted);
    if (st || !inserted) {
        purge_note_error(ps, st);
        return;
    }
    if (ps->n[cls] == ps->cap[cls]) {
        size_t nc = ps->cap[cls] ? ps->cap[cls] * 2 : 16;
        char **np = floe_realloc(ps->paths[cls], nc * sizeof *np);
        if (!np) {
            purge_note_error(ps, oom());
            return;
        }
        ps->paths[cls] = np;
        ps->cap[cls] = nc;
    }
    char *dup = floe_strdup(path);
    if (!dup) {
        purge_note_error(ps, oom());
        return;
    }
    ps->paths[cls][ps->n[cls]++] = dup;
}

static void purge_free(purge_set *ps) {
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < ps->n[k]; i++) floe_free(ps->paths[k][i]);
        floe_free(ps->paths[k]);
    }
    floe_strmap_free(&ps->seen);
    floe_status_free(ps->first_error);
}

/* Every file of one manifest (live or not: deleted entries were the
 * table's files too, kept for older snapshots). */
static void purge_manifest(purge_set *ps, const floe_ice_table *t, const floe_ice_manifest_file *mf) {
    purge_add(ps, 1, mf->manifest_path);
    floe_ice_manifest *m = NULL;
    floe_status st = floe_ice_table_read_manifest(t, mf, mf, &m);
    if (st) {
        purge_note_error(ps, floe_status_wrap(st, "listing files of manifest '%s'", mf->manifest_path));
        return;
    }
    for (size_t i = 0; i < m->n_entries; i++) purge_add(ps, 0, m->entries[i].file.file_path);
    floe_ice_manifest_free(m);
}

static void purge_collect(purge_set *ps, const floe_ice_table *t) {
    const floe_ice_table_metadata *md = t->md;
    for (int32_t s = 0; s < md->n_snapshots; s++) {
        const floe_ice_snapshot *snap = &md->snapshots[s];
        floe_ice_manifest_list *list = NULL;
        floe_ice_manifest_file *v1 = NULL;
        const floe_ice_manifest_file *files = NULL;
        size_t n = 0;
        floe_status st = floe_ice_snapshot_manifests(t, snap, &list, &v1, &files, &n);
        if (snap->manifest_list) purge_add(ps, 2, snap->manifest_list);
        if (st) {
            purge_note_error(ps, floe_status_wrap(st, "listing manifests of snapshot %" PRId64, snap->snapshot_id));
            continue;
        }
        for (size_t i = 0; i < n; i++)
            if (!floe_strmap_contains(&ps->seen, floe_str_c(files[i].manifest_path))) purge_manifest(ps, t, &files[i]);
        floe_ice_manifest_list_free(list);
        floe_free(v1);
    }
    for (int32_t i = 0; i < md->n_statistics; i++) purge_add(ps, 0, md->statistics[i].path);
    for (int32_t i = 0; i < md->n_partition_statistics; i++) purge_add(ps, 0, md->partition_statistics[i].path);
    for (int32_t i = 0; i < md->n_metadata_log; i++) purge_add(ps, 3, md->metadata_log[i].file);
    purge_add(ps, 3, t->metadata_location);
}

static int rmdir_if_empty(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)ftw;
    if (flag == FTW_DP) rmdir(path); /* fails, harmlessly, when not empty */
    return 0;
}

static floe_status sqlite_drop_table(floe_catalog *c, const char *ns, const char *name, bool purge) {
    cache_clear(c);
    if (!ns || !name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "drop_table needs a namespace and a name");
    purge_set ps;
    memset(&ps, 0, sizeof ps);
    floe_strmap_init(&ps.seen);
    char *location = NULL;
    if (purge) {
        /* List the files while the table is still registered: a table that
         * cannot be read is still dropped, and the failure reported. */
        floe_ice_table *t = NULL;
        floe_status st = floe_catalog_load_table(c, ns, name, &t);
        if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
            purge_free(&ps);
            return st;
        }
        if (st) purge_note_error(&ps, st);
        else {
            purge_collect(&ps, t);
            location = t->md->location ? floe_strdup(t->md->location) : NULL;
            floe_ice_table_free(t);
        }
    }

    int changes = 0;
    const char *p[] = {CATALOG_NAME, ns, name, NULL};
    pthread_mutex_lock(&SQ(c)->mu);
    floe_status st = exec(c,
                          "DELETE FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 AND "
                          "table_name = ?3" TABLE_ROWS,
                          p, &changes, NULL);
    if (!st && changes == 0) st = table_missing_locked(c, ns, name);
    pthread_mutex_unlock(&SQ(c)->mu);
    if (st || !purge) {
        purge_free(&ps);
        floe_free(location);
        return st;
    }

    size_t total = 0;
    for (int k = 0; k < 4; k++)
        for (size_t i = 0; i < ps.n[k]; i++, total++)
            purge_note_error(&ps, floe_fileio_delete(c->io, ps.paths[k][i]));
    /* Local tables: remove the directories the purge emptied. */
    if (location && is_local(location)) nftw(location, rmdir_if_empty, 16, FTW_DEPTH | FTW_PHYS);
    floe_free(location);
    if (ps.first_error) {
        st = floe_status_wrap(ps.first_error, "dropped table %s.%s, but %zu of its %zu files could not be listed "
                              "or deleted; the first problem", ns, name, ps.n_errors, total);
        ps.first_error = NULL;
    }
    purge_free(&ps);
    return st;
}

/* Renames (and moves between namespaces) a table or a view: both are rows of
 * iceberg_tables, told apart by iceberg_type. The destination namespace must
 * exist; a clash with any relation of that name is an error. */
static floe_status rename_relation(floe_catalog *c, bool view, const char *ns, const char *name, const char *new_ns,
                                   const char *new_name) {
    const char *kind = view ? "view" : "table";
    if (!ns || !name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "renaming a %s needs a namespace and a name", kind);
    FLOE_TRY(check_name("namespace", new_ns, false));
    FLOE_TRY(check_name(kind, new_name, true));
    pthread_mutex_lock(&SQ(c)->mu);
    bool ns_ok = false, dup = false;
    int changes = 0;
    floe_status st = ns_exists_locked(c, new_ns, &ns_ok);
    if (!st && !ns_ok) st = ns_missing_locked(c, new_ns);
    if (!st) {
        const char *p[] = {CATALOG_NAME, ns, name, new_ns, new_name, NULL};
        st = exec(c,
                  view ? "UPDATE iceberg_tables SET table_namespace = ?4, table_name = ?5 "
                         "WHERE catalog_name = ?1 AND table_namespace = ?2 AND table_name = ?3" VIEW_ROWS
                       : "UPDATE iceberg_tables SET table_namespace = ?4, table_name = ?5 "
                         "WHERE catalog_name = ?1 AND table_namespace = ?2 AND table_name = ?3" TABLE_ROWS,
                  p, &changes, &dup);
    }
    if (!st && dup)
        st = floe_error(FLOE_ERR_ALREADY_EXISTS, "cannot rename %s %s.%s: %s %s.%s already exists", kind, ns, name,
                        view ? "relation" : "table", new_ns, new_name);
    else if (!st && changes == 0)
        st = view ? floe_error(FLOE_ERR_NOT_FOUND, "view %s.%s does not exist", ns, name)
                  : table_missing_locked(c, ns, name);
    pthread_mutex_unlock(&SQ(c)->mu);
    return st;
}

static floe_status sqlite_rename_table(floe_catalog *c, const char *ns, const char *name, const char *new_ns,
                                      const char *new_name) {
    cache_clear(c);
    return rename_relation(c, false, ns, name, new_ns, new_name);
}

static floe_status sqlite_register_table(floe_catalog *c, const char *ns, const char *name,
                                         const char *metadata_location, floe_ice_table **out) {
    FLOE_TRY(check_name("namespace", ns, false));
    FLOE_TRY(check_name("table", name, true));
    /* Read it first: a file that is not table metadata registers nothing. */
    floe_ice_table_metadata *md = NULL;
    FLOE_TRY_CTX(floe_ice_table_metadata_read(c->io, metadata_location, &md), "registering table %s.%s", ns, name);
    pthread_mutex_lock(&SQ(c)->mu);
    bool ns_ok = false, dup = false;
    floe_status st = ns_exists_locked(c, ns, &ns_ok);
    if (!st && !ns_ok) st = ns_missing_locked(c, ns);
    if (!st) {
        const char *p[] = {CATALOG_NAME, ns, name, metadata_location, NULL};
        st = exec(c,
                  "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
                  "previous_metadata_location, iceberg_type) VALUES (?1, ?2, ?3, ?4, NULL, 'TABLE')",
                  p, NULL, &dup);
    }
    pthread_mutex_unlock(&SQ(c)->mu);
    if (!st && dup) st = floe_error(FLOE_ERR_ALREADY_EXISTS, "table %s.%s already exists", ns, name);
    if (!st && out) return make_table(c, md, metadata_location, out);
    floe_ice_table_metadata_free(md);
    return st;
}

/* ---- views -------------------------------------------------------------------------- */

/* A whole file as a NUL-terminated string (floe_malloc'd). */
static floe_status read_text(floe_catalog *c, const char *location, char **out) {
    *out = NULL;
    floe_input *in = NULL;
    FLOE_TRY(floe_fileio_open_input(c->io, location, &in));
    uint8_t *data = NULL;
    size_t len = 0;
    floe_status st = floe_input_read_all(in, &data, &len);
    floe_input_close(in);
    if (st) return st;
    *out = floe_strndup((const char *)data, len);
    floe_free(data);
    return *out ? NULL : oom();
}

static const char *const SQL_VIEW_LOCATION =
    "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 "
    "AND table_name = ?3" VIEW_ROWS;

/* The view's metadata location, or NULL when there is no such view.
 * Caller holds SQ(c)->mu. */
static floe_status view_location_locked(floe_catalog *c, const char *ns, const char *name, char **out) {
    const char *p[] = {CATALOG_NAME, ns, name, NULL};
    return query_one(c, SQL_VIEW_LOCATION, p, out);
}

/* <dir of base>/NNNNN-<uuid>.metadata.json, NNNNN one above the base's
 * (base NULL: <location>/metadata/00000-...). */
static floe_status view_metadata_path(const char *location, const char *base, char **out) {
    *out = NULL;
    char uuid[37];
    FLOE_TRY(floe_ice_uuid4(uuid));
    floe_buf b = FLOE_BUF_INIT;
    floe_status st;
    if (base) {
        const char *slash = strrchr(base, '/');
        int64_t v = floe_ice_view_metadata_version(base);
        st = floe_buf_printf(&b, "%.*s%05" PRId64 "-%s.metadata.json", slash ? (int)(slash - base + 1) : 0, base,
                             v < 0 ? (int64_t)1 : v + 1, uuid);
    } else {
        st = floe_buf_printf(&b, "%s/metadata/00000-%s.metadata.json", location, uuid);
    }
    if (!st && !(*out = floe_strdup(floe_buf_cstr(&b)))) st = oom();
    floe_buf_free(&b);
    return st;
}

static floe_status sqlite_create_view(floe_catalog *c, const char *ns, const char *name, const char *sql,
                                      const char *default_ns, const floe_ice_schema *schema, bool replace) {
    FLOE_TRY(check_name("namespace", ns, false));
    FLOE_TRY(check_name("view", name, true));
    pthread_mutex_lock(&SQ(c)->mu);
    bool ns_ok = false;
    char *table = NULL, *base = NULL;
    floe_status st = ns_exists_locked(c, ns, &ns_ok);
    if (!st && !ns_ok) st = ns_missing_locked(c, ns);
    if (!st) st = location_locked(c, ns, name, &table);
    if (!st && !table) st = view_location_locked(c, ns, name, &base);
    pthread_mutex_unlock(&SQ(c)->mu);
    if (!st && table) st = floe_error(FLOE_ERR_ALREADY_EXISTS, "relation %s.%s already exists (it is a table)", ns, name);
    if (!st && base && !replace) st = floe_error(FLOE_ERR_ALREADY_EXISTS, "view %s.%s already exists", ns, name);
    floe_free(table);

    char *base_text = NULL, *location = NULL, *text = NULL, *path = NULL;
    floe_ice_view *old = NULL;
    if (!st && base) st = read_text(c, base, &base_text);
    if (!st && base) st = floe_ice_view_parse(base_text, base, &old);
    if (!st && !base) st = sqlite_default_location(c, ns, name, &location);
    if (!st)
        st = floe_ice_view_metadata_build(base_text, location, sql, default_ns, schema, floe_ice_now_ms(),
                                          &text);
    if (!st) st = view_metadata_path(location, base, &path);
    if (!st) st = write_file(c, path, text);
    if (!st) {
        int changes = 0;
        bool dup = false;
        pthread_mutex_lock(&SQ(c)->mu);
        if (base) {
            const char *p[] = {CATALOG_NAME, ns, name, base, path, NULL};
            st = exec(c,
                      "UPDATE iceberg_tables SET metadata_location = ?5, previous_metadata_location = ?4 "
                      "WHERE catalog_name = ?1 AND table_namespace = ?2 AND table_name = ?3 AND metadata_location = ?4"
                      VIEW_ROWS,
                      p, &changes, NULL);
            if (!st && changes != 1)
                st = floe_error(FLOE_ERR_CONFLICT, "replacing view %s.%s lost a race with another change to it", ns,
                                name);
        } else {
            const char *p[] = {CATALOG_NAME, ns, name, path, NULL};
            st = exec(c,
                      "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
                      "previous_metadata_location, iceberg_type) VALUES (?1, ?2, ?3, ?4, NULL, 'VIEW')",
                      p, NULL, &dup);
            if (!st && dup) st = floe_error(FLOE_ERR_ALREADY_EXISTS, "relation %s.%s already exists", ns, name);
        }
        pthread_mutex_unlock(&SQ(c)->mu);
        if (st) discard_file(c, path);
    }
    floe_ice_view_free(old);
    floe_free(base);
    floe_free(base_text);
    floe_free(location);
    floe_free(text);
    floe_free(path);
    return st;
}

static floe_status sqlite_load_view(floe_catalog *c, const char *ns, const char *name, floe_ice_view **out) {
    *out = NULL;
    char *loc = NULL;
    pthread_mutex_lock(&SQ(c)->mu);
    floe_status st = view_location_locked(c, ns, name, &loc);
    pthread_mutex_unlock(&SQ(c)->mu);
    if (!st && !loc) st = floe_error(FLOE_ERR_NOT_FOUND, "view %s.%s does not exist", ns, name);
    char *text = NULL;
    if (!st) st = read_text(c, loc, &text);
    if (!st) st = floe_ice_view_parse(text, loc, out);
    if (st && loc) st = floe_status_wrap(st, "loading view %s.%s", ns, name);
    floe_free(text);
    floe_free(loc);
    return st;
}

static floe_status sqlite_drop_view(floe_catalog *c, const char *ns, const char *name) {
    int changes = 0;
    const char *p[] = {CATALOG_NAME, ns, name, NULL};
    pthread_mutex_lock(&SQ(c)->mu);
    floe_status st = exec(c,
                          "DELETE FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 AND "
                          "table_name = ?3" VIEW_ROWS,
                          p, &changes, NULL);
    pthread_mutex_unlock(&SQ(c)->mu);
    if (!st && changes == 0) st = floe_error(FLOE_ERR_NOT_FOUND, "view %s.%s does not exist", ns, name);
    return st;
}

static floe_status sqlite_rename_view(floe_catalog *c, const char *ns, const char *name, const char *new_ns,
                                      const char *new_name) {
    return rename_relation(c, true, ns, name, new_ns, new_name);
}

static floe_status sqlite_list_views(floe_catalog *c, const char *ns, char ***names, int32_t *n) {
    const char *p[] = {CATALOG_NAME, ns, NULL};
    pthread_mutex_lock(&SQ(c)->mu);
    bool exists = false;
    floe_status st = ns_exists_locked(c, ns, &exists);
    if (!st && !exists) st = ns_missing_locked(c, ns);
    if (!st)
        st = query_strings(c,
                           "SELECT table_name FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2"
                           VIEW_ROWS " ORDER BY table_name",
                           p, names, n);
    pthread_mutex_unlock(&SQ(c)->mu);
    return st;
}

static const floe_catalog_ops SQLITE_OPS = {
    .kind = "sqlite",
    .close = sqlite_close,
    .create_namespace = sqlite_create_namespace,
    .drop_namespace = sqlite_drop_namespace,
    .namespace_exists = sqlite_namespace_exists,
    .list_namespaces = sqlite_list_namespaces,
    .namespace_properties = sqlite_namespace_properties,
    .update_namespace_properties = sqlite_update_namespace_properties,
    .list_tables = sqlite_list_tables,
    .load_table = sqlite_load_table,
    .table_exists = sqlite_table_exists,
    .default_location = sqlite_default_location,
    .create_table = sqlite_create_table,
    .commit = sqlite_commit,
    .drop_table = sqlite_drop_table,
    .rename_table = sqlite_rename_table,
    .register_table = sqlite_register_table,
    .create_view = sqlite_create_view,
    .load_view = sqlite_load_view,
    .drop_view = sqlite_drop_view,
    .rename_view = sqlite_rename_view,
    .list_views = sqlite_list_views,
};

/*
 * session.h — running SQL: a session holds a catalog connection and the
 * session options (SET/SHOW) and executes statements one after another.
 *
 * Every statement binds against the catalog afresh: nothing about a table
 * is cached across statements (except immutable manifests), so a session
 * sees another process's ALTER or INSERT on its next statement.
 *
 * Results stream to a sink: begin() with the result schema for statements
 * that return rows, batch() for each batch (borrowed for the call), and
 * end() for EVERY statement that succeeded, with its command tag
 * ("SELECT", "CREATE TABLE", "SET", ...) and the rows returned or
 * affected.  A callback returning an error stops the statement and that
 * error is returned.
 */
#ifndef FLOE_SESSION_H
#define FLOE_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/fileio.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct floe_session floe_session;
struct floe_catalog;

typedef struct floe_result_sink {
    void *arg;
    floe_status (*begin)(void *arg, const floe_schema *schema);   /* may be NULL */
    floe_status (*batch)(void *arg, const floe_batch *batch);     /* may be NULL */
    floe_status (*end)(void *arg, const char *tag, int64_t rows); /* may be NULL */
    /* Progress of a long query: units done of total (what its scans count:
     * bytes of Iceberg tasks, Parquet row groups); done never decreases.
     * Called from a ticker thread once the query has run 0.5 s, a few
     * times a second, never at the same time as the other callbacks.
     * NULL: no progress is tracked. */
    void (*progress)(void *arg, int64_t done, int64_t total);
} floe_result_sink;

/* Open a session on the embedded SQLite catalog in `warehouse` (a
 * directory, created when missing; NULL: $FLOE_WAREHOUSE, else
 * "./warehouse"). */
floe_status floe_session_open(const char *warehouse, floe_session **out) FLOE_WARN_UNUSED;
/* Open a session on the catalog `uri` with options (see floe_catalog_open
 * in catalog.h: a warehouse directory, sqlite:<db>?warehouse=<location>,
 * or rest:http(s)://host[/path] with props such as credential, token,
 * warehouse; NULL/0 for none).  Secrets in props are never printed. */
floe_status floe_session_open_catalog(const char *uri, const floe_property *props, size_t n_props,
                                      floe_session **out) FLOE_WARN_UNUSED;
void floe_session_close(floe_session *s); /* NULL-safe */

/* Execute every statement of `sql` in order, stopping at the first error.
 * A syntax error names the line and column ("line 1, column 8: syntax
 * error at or near \"FORM\""); unknown names suggest close ones. */
floe_status floe_session_execute(floe_session *s, const char *sql, const floe_result_sink *sink) FLOE_WARN_UNUSED;

/* The result schema of `sql` without running it (*out retained; release
 * with floe_type_release): a single query is bound and planned; any other
 * statement gives *out = NULL (it returns no rows, or its rows are known
 * only by running it).  For a server's Describe of a prepared statement. */
floe_status floe_session_describe(floe_session *s, const char *sql, floe_schema **out) FLOE_WARN_UNUSED;

/* SET name = value / SHOW name, for programs (same checks as the SQL). */
floe_status floe_session_set(floe_session *s, const char *name, const char *value) FLOE_WARN_UNUSED;
/* *value is floe_malloc'd. */
floe_status floe_session_show(floe_session *s, const char *name, char **value) FLOE_WARN_UNUSED;

/* Who is connected (a PostgreSQL client of `floe serve`): current_user,
 * current_database() and the owner pg_catalog shows.  NULL: "floe". */
floe_status floe_session_set_client(floe_session *s, const char *user, const char *database) FLOE_WARN_UNUSED;

/* Cancel the running statement (async-signal-safe: sets a flag); it
 * returns FLOE_ERR_CANCELLED.  The next statement runs normally. */
void floe_session_cancel(floe_session *s);

/* An executor runs a session's query plans somewhere else than the local
 * thread pool (the MPI runtime of include/floe/dist.h installs one): open()
 * starts `plan` (one output partition) and returns the stream of that
 * partition.  The SQL layer knows nothing of how; a session without an
 * executor runs plans locally.  target_partitions, when > 0, is the default
 * of that option for sessions opened afterwards (the threads of the run). */
struct floe_plan;
struct floe_exec_ctx;
struct floe_stream;
struct floe_buf;
typedef struct floe_plan_executor {
    void *arg;
    floe_status (*open)(void *arg, const struct floe_plan *plan, const struct floe_exec_ctx *ctx,
                        struct floe_stream **out);
    int32_t target_partitions;
    /* EXPLAIN: append how the plan would run there (may be NULL). */
    floe_status (*explain)(void *arg, const struct floe_plan *plan, struct floe_buf *out);
    /* EXPLAIN ANALYZE: run the plan there (result dropped) and append what
     * happened (may be NULL: then it runs locally with metrics). */
    floe_status (*analyze)(void *arg, const struct floe_plan *plan, const struct floe_exec_ctx *ctx,
                           struct floe_buf *out);
} floe_plan_executor;

/* The executor of sessions opened from now on (NULL: local); `ex` must
 * outlive them.  Call at start-up, before sessions are opened. */
void floe_session_set_default_executor(const floe_plan_executor *ex);
/* The memory_limit sessions opened from now on start with ('4GB', '80%';
 * floe --memory-limit).  Without it: 80% of the machine's memory. */
floe_status floe_session_set_default_memory_limit(const char *text) FLOE_WARN_UNUSED;

/* The session's catalog (borrowed). */
struct floe_catalog *floe_session_catalog(floe_session *s);

/* True when `sql` (possibly several statements) ends with a complete
 * statement: a shell reads more lines until it does.  Ignores semicolons
 * inside strings, quoted names and comments. */
bool floe_sql_is_complete(const char *sql);

#ifdef __cplusplus
}
#endif
#endif

/*
 * session_internal.h — the session object shared by the files of the SQL
 * layer: session.c (the statement loop, SET/SHOW/RESET, queries, EXPLAIN,
 * COPY), the binder (bind*.c) and the DDL module (ddl.c).
 *
 * A session is used by one thread at a time (floe_session_cancel excepted:
 * it only sets the cancel flag).
 */
#ifndef FLOE_SQL_SESSION_INTERNAL_H
#define FLOE_SQL_SESSION_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/threadpool.h"
#include "floe/catalog.h"
#include "floe/fileio.h"
#include "floe/session.h"
#include "sql/logical.h"
#include "sql/parse.h"

struct floe_session {
    floe_catalog *catalog;     /* owned */
    floe_fileio *io;           /* owned: table functions, COPY TO */
    floe_sql_options opts;     /* SET / SHOW / RESET */
    floe_sql_options defaults; /* what RESET returns to */
    floe_cancel cancel;        /* set by floe_session_cancel; cleared per statement */
    const floe_plan_executor *executor; /* NULL: plans run locally */
    char *wap_id;              /* SET spark.wap.id / wap.id (NULL: unset): INSERTs
                                * into a write.wap.enabled table stage a snapshot */
    char *write_branch;        /* SET write.branch / spark.wap.branch / wap.branch
                                * (NULL: main): the branch INSERTs commit to */
    char *target_branch;       /* the branch the running statement writes
                                * (floe_dml_target_of; NULL: main) */
    char *temp_dir;            /* SET temp_directory (NULL: $TMPDIR/floe) */
    floe_mem_tracker *qmem;    /* what the running query holds; its limit is
                                * opts.memory_limit (floe_session_query_begin).
                                * Counted: blocks may outlive the session */
    struct floe_tz *tz;        /* SET TimeZone (NULL: UTC, the default); made the
                                * thread's floe_tz_session() for each statement */
    char *user;                /* floe_session_set_client: current_user, the owner
                                * in pg_catalog (NULL: "floe") */
    char *database;            /* current_database() (NULL: "floe") */

    /* The statement being executed (valid during floe_session_execute). */
    const floe_sql_script *script;
    const floe_sql_stmt *stmt;
    int64_t stmt_time_us;      /* now() / current_timestamp, fixed per statement */
    struct bind_cte *ctes;     /* binder: WITH names in scope (bind_query.c) */
    /* Binder: the views being expanded, innermost first (bind_view.c), and
     * the namespace unqualified table names resolve in (NULL: "default"). */
    struct bind_view_frame *views;
    const char *default_ns;
};

/* An error at byte offset `location` of the current script ("line L,
 * column C: ..."); location < 0: no position. */
floe_status floe_session_error_at(const floe_session *s, int32_t location, floe_code code, const char *fmt, ...)
    FLOE_PRINTF(4, 5) FLOE_WARN_UNUSED;

/* The exec context for running plans of this session (cancel, batch size,
 * scan options). */
void floe_session_exec_ctx(floe_session *s, floe_exec_ctx *ctx);

/* Around running a plan: make the session's query tracker (limited to
 * memory_limit, peak reset) the thread's current tracker; _end restores
 * `prev` and turns an allocation the limit refused into
 * "out of memory (limit 256.0 MiB) in <what failed>". */
floe_mem_tracker *floe_session_query_begin(floe_session *s);
/* Where this session's operators spill (SET temp_directory, else
 * $TMPDIR/floe, else /tmp/floe). */
void floe_session_temp_dir(const floe_session *s, char *buf, size_t cap);
floe_status floe_session_query_end(floe_session *s, floe_mem_tracker *prev, floe_status st) FLOE_WARN_UNUSED;

/* Run a bound query (any statement the binder accepts: SelectStmt, ...)
 * to a physical plan with one output partition: bind, optimize, plan. */
floe_status floe_session_plan_query(floe_session *s, const json_t *query, floe_plan **out) FLOE_WARN_UNUSED;

/* Execute `plan` and stream every batch to `sink` (begin, batches; not
 * end): *rows receives the number of rows. */
floe_status floe_session_run_plan(floe_session *s, const floe_plan *plan, const floe_result_sink *sink,
                                  int64_t *rows) FLOE_WARN_UNUSED;

/* ---- binder (bind*.c) --------------------------------------------------- */

/* Bind a query node ({"SelectStmt": ...}) into a logical plan whose output
 * columns are the query's result columns. */
floe_status floe_sql_bind_query(floe_session *s, const json_t *query, floe_lplan **out) FLOE_WARN_UNUSED;

/* Sink helpers for statements producing a small text result. */
floe_status floe_session_emit_strings(const floe_result_sink *sink, const char *const *col_names, int32_t n_cols,
                                      const char *const *cells, int64_t n_rows, const char *tag) FLOE_WARN_UNUSED;

#endif

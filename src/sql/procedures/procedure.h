/*
 * procedure.h — stored procedures run by CALL (Spark's Iceberg procedures:
 * CALL [catalog.]system.name(arg => value, ...) or positional arguments).
 *
 * A procedure is a floe_proc_def: its name, its parameters (name, type,
 * required or not), its result columns and a callback.  Adding one is a
 * definition in the file of its family (proc_snapshots.c, ...) and one
 * entry in the registry (k_procedures in registry.c).  procedure.c does
 * everything else: it finds the procedure (an unknown name lists the known
 * ones), binds the arguments by name or position to the parameters (an
 * unknown or repeated name, a missing required one or a value of the wrong
 * type is an error naming the argument, as Spark reports them), evaluates
 * them as constants, calls the callback and prints the rows it produced
 * like a query result.
 *
 * Argument values are constant expressions evaluated at CALL time:
 *   STRING     a string
 *   LONG       an integer (INT and LONG parameters alike)
 *   BOOL       true / false
 *   TIMESTAMP  TIMESTAMP '2024-01-01 00:00:00', a string of that form
 *              (UTC unless it carries a zone), an expression such as
 *              now() - INTERVAL '1 day', or an integer of epoch ms
 *   LONG_ARRAY array(1, 2) or ARRAY[1, 2] (also a single integer)
 *   STRING_ARRAY  array('a', 'b') or ARRAY['a', 'b']
 *   MAP        map('k1', 'v1', 'k2', 'v2') (Spark's map(): keys and values
 *              alternate), strings
 * A NULL value counts as not given.
 */
#ifndef FLOE_SQL_PROCEDURES_PROCEDURE_H
#define FLOE_SQL_PROCEDURES_PROCEDURE_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/catalog.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/session.h"
#include "floe/status.h"
#include "sql/parse.h"

typedef enum floe_proc_type {
    FLOE_PROC_STRING = 0,
    FLOE_PROC_LONG,
    FLOE_PROC_BOOL,
    FLOE_PROC_TIMESTAMP, /* epoch milliseconds */
    FLOE_PROC_LONG_ARRAY,
    FLOE_PROC_STRING_ARRAY,
    FLOE_PROC_MAP
} floe_proc_type;

/* One parameter of a procedure. */
typedef struct floe_proc_param {
    const char *name;
    floe_proc_type type;
    bool required;
} floe_proc_param;

/* One result column (only STRING, LONG and BOOL). */
typedef struct floe_proc_column {
    const char *name;
    floe_proc_type type;
} floe_proc_column;

/* A bound argument.  given false: not passed (or NULL); the callback
 * applies its default. */
typedef struct floe_proc_arg {
    bool given;
    char *str;          /* STRING                                   */
    int64_t i64;        /* LONG, TIMESTAMP (ms)                     */
    bool b;             /* BOOL                                     */
    int64_t *longs;     /* LONG_ARRAY: n entries                    */
    char **strs;        /* STRING_ARRAY: n; MAP: 2n (key, value...) */
    int32_t n;
    int32_t location;   /* of the value in the script, for errors   */
} floe_proc_arg;

/* One result cell. */
typedef struct floe_proc_cell {
    bool is_null;
    int64_t i64;        /* LONG; BOOL as 0/1 */
    char *str;          /* STRING (owned)    */
} floe_proc_cell;

typedef struct floe_proc_def floe_proc_def;

/* What a callback gets: the session, the procedure, its arguments (one
 * per parameter, in the definition's order) and the result it fills. */
typedef struct floe_proc_call {
    floe_session *s;
    const floe_proc_def *def;
    floe_proc_arg *args;     /* def->n_params */
    int32_t location;        /* of the CALL, for errors */
    /* Result rows, n_rows * def->n_columns cells. */
    floe_proc_cell *cells;
    int64_t n_rows, cap_rows;
    int32_t next_col;        /* column the next add_* fills */
} floe_proc_call;

typedef floe_status (*floe_proc_fn)(floe_proc_call *call);

struct floe_proc_def {
    const char *name;                 /* "rollback_to_snapshot" */
    const floe_proc_param *params;
    int32_t n_params;
    const floe_proc_column *columns;
    int32_t n_columns;
    floe_proc_fn run;
    bool metadata_only;               /* runs on the coordinator alone */
};

/* The registry (registry.c): every procedure, NULL-terminated. */
extern const floe_proc_def *const floe_proc_registry[];

/* Run a CallStmt (session.c calls this). */
floe_status floe_sql_exec_call(floe_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink)
    FLOE_WARN_UNUSED;

/* ---- for callbacks ------------------------------------------------------ */

/* The argument of parameter `name`; one the definition lacks is never
 * given (so definitions sharing a callback may take fewer parameters). */
const floe_proc_arg *floe_proc_get(const floe_proc_call *call, const char *name);

/* Result rows: start a row, then add its cells left to right. */
floe_status floe_proc_add_row(floe_proc_call *call) FLOE_WARN_UNUSED;
floe_status floe_proc_add_long(floe_proc_call *call, int64_t v) FLOE_WARN_UNUSED;
floe_status floe_proc_add_bool(floe_proc_call *call, bool v) FLOE_WARN_UNUSED;
floe_status floe_proc_add_string(floe_proc_call *call, const char *v) FLOE_WARN_UNUSED; /* NULL: null */
floe_status floe_proc_add_null(floe_proc_call *call) FLOE_WARN_UNUSED;

/* An error at the CALL ("line L, column C: <procedure>: ..."), or at an
 * argument's value when `arg` is not NULL. */
floe_status floe_proc_error(const floe_proc_call *call, const floe_proc_arg *arg, floe_code code, const char *fmt,
                            ...) FLOE_PRINTF(4, 5) FLOE_WARN_UNUSED;

/* Trino's ALTER TABLE ... EXECUTE expire_snapshots / remove_orphan_files:
 * the call's retention_threshold (a Trino duration: '7d', '36h', '90m',
 * '1.5d'; default 7d), refused below `min_s` seconds (the session's
 * `option`, named in the message) as Trino refuses it, becomes the
 * older_than argument Spark's procedure reads: now minus the threshold. */
floe_status floe_proc_trino_retention(floe_proc_call *call, int64_t min_s, const char *option) FLOE_WARN_UNUSED;

/* The table a STRING argument names ("db.t", "t" in the default schema, or
 * "catalog.db.t"): namespace and name copied into ns / name. */
floe_status floe_proc_table_name(const floe_proc_call *call, const floe_proc_arg *arg, char *ns, size_t ns_cap,
                                 char *name, size_t name_cap) FLOE_WARN_UNUSED;

/* A metadata change: from the loaded table `t` make *out (NULL: nothing
 * to commit).  Called again, on freshly loaded metadata, when the commit
 * loses a race (so it must not keep state across calls except in ctx). */
typedef floe_status (*floe_proc_edit_fn)(floe_proc_call *call, const floe_ice_table *t, void *ctx,
                                         floe_ice_table_metadata **out);

/* Load the table, edit, commit through the catalog (optimistic: the
 * commit requires the metadata it was made from to still be current);
 * on FLOE_ERR_CONFLICT reload and edit again, with the table's
 * commit.retry.* settings. */
floe_status floe_proc_commit(floe_proc_call *call, const char *ns, const char *name, floe_proc_edit_fn edit,
                             void *ctx) FLOE_WARN_UNUSED;

/* After a successful commit: `base` is the table the winning edit was
 * made from, `md` the metadata committed (never NULL here). */
typedef floe_status (*floe_proc_after_fn)(floe_proc_call *call, const floe_ice_table *base,
                                          const floe_ice_table_metadata *md, void *ctx);

/* floe_proc_commit, then `after` (not called when the edit made nothing
 * to commit, or the commit failed) — e.g. deleting files the new metadata
 * no longer reaches. */
floe_status floe_proc_commit_then(floe_proc_call *call, const char *ns, const char *name, floe_proc_edit_fn edit,
                                  floe_proc_after_fn after, void *ctx) FLOE_WARN_UNUSED;

#endif

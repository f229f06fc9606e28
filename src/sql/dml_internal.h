/*
 * dml_internal.h — what the statements of dml.c (INSERT, CREATE TABLE AS,
 * the metadata-only DELETE) and dml_rowlevel.c (row-level DELETE, UPDATE,
 * TRUNCATE) share: the target table, running a write plan, result tags.
 */
#ifndef FLOE_SQL_DML_INTERNAL_H
#define FLOE_SQL_DML_INTERNAL_H

#include <jansson.h>
#include <stdint.h>

#include "floe/iceberg_table_metadata.h"
#include "floe/iceberg_table_update.h"
#include "floe/session.h"
#include "sql/logical.h"

#define FLOE_DML_NAME_MAX 255

/* The message part by which the metadata-only DELETE says it cannot do a
 * condition alone (table_delete.c's too): the row-level path takes over. */
#define ROW_LEVEL_MARK FLOE_ICE_DELETE_NEEDS_ROWS

typedef struct floe_dml_target {
    char ns[FLOE_DML_NAME_MAX + 1];
    char name[FLOE_DML_NAME_MAX + 1];
    char label[2 * FLOE_DML_NAME_MAX + 2]; /* "ns.name" */
    int32_t location;
    floe_ice_table *table;                 /* owned */
    bool branch_named;                     /* the branch came with the name
                                            * (s.t.branch_b), not from
                                            * SET write.branch */
} floe_dml_target;

/* Resolve and load the table a statement's RangeVar `rv` names. */
floe_status floe_dml_target_of(floe_session *s, const json_t *rv, floe_dml_target *t) FLOE_WARN_UNUSED;
void floe_dml_target_clear(floe_dml_target *t);

/* Run a write plan; *rows: the commit's row count. */
floe_status floe_dml_run_write(floe_session *s, const floe_plan *plan, int64_t *rows) FLOE_WARN_UNUSED;

/* Hand the statement's tag ("DELETE 3") to the sink. */
floe_status floe_dml_end_tag(const floe_result_sink *sink, const char *tag, int64_t rows) FLOE_WARN_UNUSED;

/* The snapshot of table `t` a plan reads (a scan of the same table), or -1. */
int64_t floe_dml_snapshot_read(const floe_lplan *p, const floe_ice_table *t);

/* dml_rowlevel.c */
floe_status floe_sql_exec_delete_rows(floe_session *s, const json_t *body, const floe_result_sink *sink) FLOE_WARN_UNUSED;
floe_status floe_sql_exec_update(floe_session *s, const json_t *body, const floe_result_sink *sink) FLOE_WARN_UNUSED;
struct floe_sql_stmt;
/* The rows the metadata-only DELETE of `body` removed in snapshot
 * `snapshot_id`: *rows is left alone when no delete file applied before
 * (the removed files' record counts are exact), else the rows the WHERE
 * matches in the snapshot the delete replaced. */
floe_status floe_sql_deleted_rows(floe_session *s, const json_t *body, floe_dml_target *t, int64_t snapshot_id,
                                  int64_t *rows) FLOE_WARN_UNUSED;
floe_status floe_sql_exec_merge(floe_session *s, const struct floe_sql_stmt *stmt, const json_t *body,
                                const floe_result_sink *sink) FLOE_WARN_UNUSED;
/* EXPLAIN of a row-level DELETE, UPDATE or MERGE ({"DeleteStmt": ...}):
 * the write plan the row-level path would run (copy-on-write runs its
 * read-only first query to find the files); *out NULL when no row would
 * change. */
floe_status floe_sql_plan_rowlevel(floe_session *s, const struct floe_sql_stmt *stmt, const json_t *node,
                                   floe_plan **out) FLOE_WARN_UNUSED;
floe_status floe_sql_exec_truncate(floe_session *s, const json_t *body, const floe_result_sink *sink) FLOE_WARN_UNUSED;

#endif

/*
 * dml.h — the SQL side of writes: INSERT INTO / INSERT OVERWRITE, CREATE
 * TABLE ... AS SELECT and DELETE FROM, shared by bind_insert.c (the rows a
 * write receives), plan_write.c (the write plan of exec_write.h) and dml.c
 * (the statements).
 *
 * A write runs as one plan:
 *
 *   IcebergCommit ← Coalesce ← IcebergWrite ← [Sort] ← [Repartition]
 *     ← Projection (table columns in schema order, then one
 *                   iceberg_transform column per default-spec field)
 *       ← Projection (assignment casts, NULL for unlisted columns)
 *         ← the query
 *
 * The Repartition and Sort are whatever IcebergWrite declares it requires
 * (floe_sql_enforce_requirements), so the write plan and any other plan
 * obey one rule.
 */
#ifndef FLOE_SQL_DML_H
#define FLOE_SQL_DML_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/exec_write.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/session.h"
#include "sql/logical.h"
#include "sql/parse.h"

/* ---- bind_insert.c ------------------------------------------------------ */

/* Shape the rows of `query` (consumed, also on failure) for a write into
 * table `t` (`label` names it in messages, "db.t"): the table's top-level
 * columns in schema order, each the query column the INSERT column list
 * maps to it (cols[i] names the table column filled by query column i;
 * n_cols 0: by position, the first query columns fill the first table
 * columns) converted by PostgreSQL's assignment rules, or a NULL for a
 * column not given; then one column per field of the default partition
 * spec: iceberg_transform('<transform>', <the column with the field's
 * source id>).  Errors: an unknown or repeated column, more expressions
 * than columns (or the reverse with a column list), a required column
 * left out (FLOE_ERR_CONSTRAINT), a type without an assignment cast
 * (FLOE_ERR_TYPE "column 'x' is of type int but the expression is of type
 * string"); `locations` (may be NULL) are the byte offsets of cols[i] for
 * "line L, column C" prefixes. */
floe_status floe_sql_bind_write_input(floe_session *s, const floe_ice_table *t, const char *label,
                                      const char *const *cols, const int32_t *locations, int32_t n_cols,
                                      floe_lplan *query, floe_lplan **out) FLOE_WARN_UNUSED;

/* The input of a row-level change (IcebergWrite's delta mode): query
 * columns 0..4 are _file, _pos, _op (made an int), _row_id and
 * _last_updated_sequence_number; then, when `map` is
 * given, table column t from query column map[t] by the assignment rules
 * (-1: its write-default or NULL, as SET c = DEFAULT), and the partition
 * values.  map NULL: the prefix alone (DELETE).  `query` is consumed. */
floe_status floe_sql_bind_delta_input(floe_session *s, const floe_ice_table *t, const char *label,
                                      const int32_t *map, floe_lplan *query, floe_lplan **out) FLOE_WARN_UNUSED;

/* ---- plan_write.c ------------------------------------------------------- */

/* The write plan over `input` (the physical plan of floe_sql_bind_write_
 * input's rows; borrowed): IcebergWrite with the table's current schema,
 * default spec, sort order and properties and a fresh job id, given the
 * distribution and ordering it requires, then Coalesce and IcebergCommit
 * into ns.name of the session's catalog (kind, base_snapshot_id as
 * exec_write.h has them). */
floe_status floe_sql_plan_write(floe_session *s, floe_plan *input, const floe_ice_table *t, const char *ns,
                                const char *name, floe_commit_kind kind, int64_t base_snapshot_id,
                                floe_plan **out) FLOE_WARN_UNUSED;

/* The write plan of a row-level change over `input` (the physical plan of
 * floe_sql_bind_delta_input's rows; borrowed): IcebergWrite in delta mode
 * with `delta_flags` (exec_write.h), given the distribution it requires,
 * then Coalesce and IcebergCommit of kind row delta (base snapshot,
 * isolation, conflict filter JSON, removed data files); format version 3:
 * the deletes that applied before, merged into the new DVs. */
floe_status floe_sql_plan_delta_write(floe_session *s, floe_plan *input, const floe_ice_table *t, const char *ns,
                                      const char *name, int32_t delta_flags, int64_t base_snapshot_id,
                                      floe_isolation_level isolation, const char *conflict_filter_json,
                                      const char *const *removed, int32_t n_removed,
                                      const floe_delta_old_delete *old_deletes, int32_t n_old_deletes,
                                      floe_plan **out) FLOE_WARN_UNUSED;

/* The write plan of a rewrite (rewrite_data_files) over `input`: the delta
 * rows of floe_sql_plan_delta_write with every row written (copy-on-write,
 * no delete files), the table's properties followed by `extra_props`
 * (n_extra key/value pairs: target size, distribution), files sorted by
 * `order_json` (Iceberg sort order JSON; the files record `order_id`;
 * NULL: not sorted, order 0), and a "replace" commit removing `removed` under
 * snapshot isolation (concurrent appends are fine; deletes added since
 * base_snapshot_id for a removed file are a conflict). */
floe_status floe_sql_plan_rewrite_write(floe_session *s, floe_plan *input, const floe_ice_table *t, const char *ns,
                                        const char *name, int64_t base_snapshot_id, const char *const *extra_props,
                                        int32_t n_extra, const char *order_json, int32_t order_id,
                                        const char *const *removed, int32_t n_removed,
                                        floe_plan **out) FLOE_WARN_UNUSED;

/* ---- dml.c ---------------------------------------------------------------- */

/* Run `stmt` if it is INSERT, INSERT OVERWRITE, CREATE TABLE AS or DELETE
 * (*handled true); otherwise *handled is false and nothing happens.  Tags:
 * "INSERT 0 <rows>", "SELECT <rows>" (CREATE TABLE AS), "DELETE <rows>". */
floe_status floe_sql_exec_dml(floe_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink,
                              bool *handled) FLOE_WARN_UNUSED;

/* The write plan of an INSERT statement node ({"InsertStmt": ...}) of the
 * current statement, for EXPLAIN; nothing is written. */
floe_status floe_sql_plan_insert(floe_session *s, const json_t *insert, floe_plan **out) FLOE_WARN_UNUSED;

#endif

/*
 * ddl.h — utility statements: everything floe_session_execute does not run
 * as a query.  CREATE/DROP SCHEMA, CREATE/DROP TABLE, ALTER TABLE (columns,
 * properties, rename), SHOW SCHEMAS / SHOW TABLES [FROM db], DESCRIBE t —
 * each mapped onto the catalog (catalog.h) and Iceberg metadata updates
 * (iceberg_table_update.h).
 *
 * SQL types map to Iceberg types as the interfaces file lists: boolean;
 * int/integer/int4/smallint/int2 -> int; bigint/int8/long -> long;
 * real/float4/float -> float; double/float8/double precision -> double;
 * decimal(p,s)/numeric(p,s) -> decimal (numeric alone: decimal(38,9), as
 * floe_pg_type_to_floe has it); date; time; timestamp -> timestamp;
 * timestamptz -> timestamptz; text/varchar/string -> string;
 * bytea/binary -> binary; uuid; T[] -> list<T>.  NOT NULL makes a column
 * required; PRIMARY KEY makes it required and an identifier field.
 * WITH (k = v, 'a.b' = 'v') sets table properties, except format_version /
 * 'format-version' (1..3, default 2) and location.  Unquoted names are
 * folded to lower case by the parser (as PostgreSQL); quoted names keep
 * their case.  Iceberg's Spark extensions change the partition spec and
 * the write order: ALTER TABLE t ADD PARTITION FIELD term [AS name], DROP
 * PARTITION FIELD term|name, REPLACE PARTITION FIELD term|name WITH term
 * [AS name], RENAME PARTITION FIELD a TO b, WRITE [LOCALLY] ORDERED BY
 * term [ASC|DESC] [NULLS FIRST|LAST], ..., WRITE UNORDERED, WRITE
 * DISTRIBUTED BY PARTITION [LOCALLY ORDERED BY ...] (terms as in
 * PARTITIONED BY; see ddl.c).  Results: SHOW SCHEMAS (schema_name), SHOW TABLES [FROM db]
 * (table_name), DESCRIBE t / DESCRIBE t$files (column_name, data_type,
 * nullable 'YES'/'NO', comment), all varchar; tags "CREATE SCHEMA",
 * "DROP SCHEMA", "CREATE TABLE", "DROP TABLE", "ALTER TABLE", "SHOW",
 * "DESCRIBE".
 */
#ifndef FLOE_SQL_DDL_H
#define FLOE_SQL_DDL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/iceberg_partition_spec.h"
#include "floe/iceberg_schema.h"
#include "floe/session.h"
#include "floe/status.h"
#include "sql/parse.h"

/* Run `stmt` if it is a utility statement this module handles (*handled
 * set true; rows, if any, go to the sink: begin/batch/end; other
 * statements call only end(tag)); otherwise *handled is false and nothing
 * happens.  Commits that lose a race (FLOE_ERR_CONFLICT) are retried on
 * freshly loaded metadata a few times. */
floe_status floe_sql_exec_utility(floe_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink,
                                  bool *handled) FLOE_WARN_UNUSED;

/* The table of CREATE TABLE ... AS (dml.c): ns.name from the IntoClause
 * `into` (its "rel"), with the columns of `columns` (names and types, all
 * optional), the statement's PARTITIONED BY clause and the IntoClause's
 * WITH options, made as CREATE TABLE makes a table.  An existing table
 * with if_not_exists: nothing is done and *created stays false.  *ns and
 * *name are floe_malloc'd (set when created). */
floe_status floe_sql_create_table_for(floe_session *s, const floe_sql_stmt *stmt, const json_t *into,
                                      const floe_schema *columns, bool if_not_exists, char **ns, char **name,
                                      bool *created) FLOE_WARN_UNUSED;

/* The Iceberg type of a result column's type (NULL: string). */
floe_status floe_sql_ice_type_of(const floe_type *t, floe_ice_type **out) FLOE_WARN_UNUSED;
/* ddl_types.c: the Iceberg type of a flat columnar type (nested, NULL and
 * interval are errors), and of any type with nested ids numbered from
 * *next_id (floe_ice_tm_new renumbers them once the schema is whole). */
floe_status floe_sql_ice_type_plain(const floe_type *t, floe_ice_type **out) FLOE_WARN_UNUSED;
floe_status floe_sql_ice_type_nested(const floe_type *t, int32_t *next_id, floe_ice_type **out) FLOE_WARN_UNUSED;

/* Views (ddl_view.c): CREATE [OR REPLACE] VIEW ns.v [(cols)] AS query,
 * DROP VIEW [IF EXISTS] ns.v, ..., SHOW VIEWS [FROM|IN ns] (view_name);
 * tags "CREATE VIEW", "DROP VIEW", "SHOW".  The query must bind (it is
 * bound as a reference to the view would bind it) and its columns become
 * the view's schema.  A table of the same name is an error as in
 * PostgreSQL. */
floe_status floe_sql_create_view(floe_session *s, const floe_sql_stmt *stmt, const json_t *body,
                                 const floe_result_sink *sink) FLOE_WARN_UNUSED;
floe_status floe_sql_drop_view(floe_session *s, const floe_sql_stmt *stmt, const json_t *body,
                               const floe_result_sink *sink) FLOE_WARN_UNUSED;
/* ALTER VIEW [IF EXISTS] v AS q: the next version of an existing view. */
floe_status floe_sql_alter_view_as(floe_session *s, const floe_sql_stmt *stmt, const json_t *body,
                                   const floe_result_sink *sink) FLOE_WARN_UNUSED;
/* ALTER VIEW v RENAME TO w, ALTER VIEW v SET SCHEMA s (RenameStmt or
 * AlterObjectSchemaStmt of OBJECT_VIEW). */
floe_status floe_sql_rename_view(floe_session *s, const floe_sql_stmt *stmt, const json_t *body,
                                 const floe_result_sink *sink) FLOE_WARN_UNUSED;
floe_status floe_sql_show_views(floe_session *s, const floe_sql_stmt *stmt,
                                const floe_result_sink *sink) FLOE_WARN_UNUSED;

/* ALTER TABLE ns.name CREATE/REPLACE/DROP BRANCH|TAG ... (ddl_refs.c; the
 * statement's FLOE_SQL_REF_DDL clause): one metadata commit.  A missing
 * table with if_table_exists does nothing; errors are prefixed with the
 * position of the table name at table_location. */
floe_status floe_sql_exec_ref_ddl(floe_session *s, const floe_sql_stmt *stmt, const char *ns, const char *name,
                                  bool if_table_exists, int32_t table_location) FLOE_WARN_UNUSED;

/* The partition spec of a PARTITIONED BY clause's text (between the
 * parentheses) over `schema` (spec id 0, partition field ids from 1000,
 * Iceberg Java's default field names).  Items, comma-separated:
 *   col                       identity
 *   identity(col)
 *   bucket(N, col)            also bucket(col, N) (Trino's order)
 *   truncate(W, col)          also truncate(col, W) (Trino's order)
 *   year(col)  years(col)     month/months, day/days/date,
 *   hour/hours/date_hour, void(col)
 * Column names are unquoted (folded to lower case) or "quoted"; nested
 * fields as a.b.  Errors name the item and its position: with `sql` (the
 * statement text, may be NULL) "line L, column C: ..." where the clause
 * text starts at byte `text_location` of `sql`; without, "PARTITIONED BY,
 * character N: ...".  Unknown transform or column: FLOE_ERR_NOT_FOUND with
 * a suggestion; bad syntax: FLOE_ERR_SYNTAX; a transform that does not
 * apply to the column's type: FLOE_ERR_TYPE; a bad parameter or a
 * repeated field: FLOE_ERR_INVALID_ARGUMENT. */
floe_status floe_sql_parse_partitioning(const char *text, const floe_ice_schema *schema, const char *sql,
                                        int32_t text_location, floe_ice_partition_spec **out) FLOE_WARN_UNUSED;

#endif

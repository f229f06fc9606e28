/*
 * pg_catalog_tables.h — PostgreSQL's system relations (pg_catalog.pg_class,
 * information_schema.tables, ...) over floe's catalog, for clients that
 * read them (pg_catalog_tables.c lists which and their columns).
 */
#ifndef FLOE_SQL_PG_CATALOG_TABLES_H
#define FLOE_SQL_PG_CATALOG_TABLES_H

#include "floe/exec.h"
#include "floe/session.h"

/* Whether ns.rel (ns NULL: unqualified, pg_catalog comes first as in
 * PostgreSQL's search path) names one of the relations built here. */
bool floe_sql_is_pg_catalog_relation(const char *ns, const char *rel);

/* Whether pg_catalog.rel is one of the relations floe never has rows in
 * (pg_sequence, pg_description, pg_trigger, ...). */
bool floe_sql_pg_catalog_always_empty(const char *rel);

/* Its rows now, as a Values plan. */
floe_status floe_sql_pg_catalog_table(floe_session *s, const char *ns, const char *rel,
                                      floe_plan **out) FLOE_WARN_UNUSED;

/* The OIDs of the relations pg_table_is_visible is true of: those of the
 * namespace unqualified names resolve in (floe_malloc'd). */
floe_status floe_sql_pg_visible_oids(floe_session *s, int64_t **oids, int32_t *n) FLOE_WARN_UNUSED;

/* 'text'::regclass / ::regnamespace: the OID pg_class / pg_namespace give
 * the relation or schema `text` names (quoted or not, qualified or by the
 * search path: pg_catalog, then the default namespace), or a clear error
 * when there is none.  A number is taken as the OID. */
floe_status floe_sql_pg_reg_oid(floe_session *s, const char *type, const char *text, int64_t *oid) FLOE_WARN_UNUSED;

/* PostgreSQL's type OID and typmod for a floe type (strings and nested
 * values: text). */
void floe_pg_type_oid_of(const floe_type *t, int64_t *oid, int32_t *typmod);

#endif

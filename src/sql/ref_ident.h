/*
 * ref_ident.h — Spark's identifier form for a table's branches and tags:
 * `s.t.branch_b` reads (or writes) branch b of table s.t and `s.t.tag_x`
 * reads tag x (Iceberg's SparkCatalog: a third name part starting with
 * branch_ or tag_).  PostgreSQL's parser gives such a name as catalog s,
 * schema t, relation branch_b; as in Spark, a real table wins: with
 * catalog "floe", floe.t.branch_b is table t.branch_b when that exists.
 */
#ifndef FLOE_SQL_REF_IDENT_H
#define FLOE_SQL_REF_IDENT_H

#include <stdbool.h>

#include "floe/catalog.h"
#include "floe/status.h"

typedef struct floe_sql_ref_ident {
    const char *ns, *name; /* the table (point into the inputs) */
    const char *ref;       /* the branch or tag name, NULL: none */
    bool is_tag;
} floe_sql_ref_ident;

/* Resolve catalog/schema/relation names; *out->ref NULL when the name is
 * not the branch/tag form (ns, name as given). */
floe_status floe_sql_ref_ident_resolve(floe_catalog *c, const char *cat, const char *ns, const char *name,
                                       floe_sql_ref_ident *out) FLOE_WARN_UNUSED;

#endif

/*
 * pg_catalog_tables.c — the PostgreSQL system relations clients query
 * (psql's \dt, \d t, \dn, \l, \du; JDBC / ODBC metadata calls), built from
 * floe's catalog when a statement names them and handed out as Values
 * plans, so their joins, regular expressions and sorts run through the
 * ordinary SQL path.
 *
 *   pg_catalog: pg_namespace, pg_class, pg_attribute, pg_type, pg_database,
 *     pg_roles, pg_user, pg_am; empty: pg_proc, pg_description, pg_attrdef,
 *     pg_collation, pg_index, pg_constraint, pg_inherits, pg_trigger
 *   information_schema: schemata, tables, columns
 *
 * Only the columns these clients read are present.  OIDs of floe's
 * namespaces and relations are a hash of their names (16384 and up, as
 * PostgreSQL's user objects), so a client that reads an OID in one
 * statement finds the same object with it in the next.  Columns are typed
 * with PostgreSQL's type OIDs and typmods (pg_type_oid_of), and
 * format_type (func_pgcatalog.c) turns them back into PostgreSQL's names.
 */
#include "sql/pg_catalog_tables.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "base/str.h"
#include "exec/func/functions.h"
#include "floe/catalog.h"
#include "floe/iceberg_task_reader.h"
#include "floe/iceberg_view.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_query_internal.h"
#include "sql/bind_view.h"
#include "sql/session_internal.h"

#define PGC_MAX_COLS 32
#define PG_CATALOG_OID 11
#define PG_INFO_SCHEMA_OID 13000
#define PG_ROLE_OID 10
#define PG_DATABASE_OID 5

typedef struct pgc {
    int32_t n;
    floe_field fields[PGC_MAX_COLS];
    floe_builder *b[PGC_MAX_COLS];
} pgc;

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "building a pg_catalog relation"); }

static void pgc_free(pgc *m) {
    for (int32_t i = 0; i < m->n; i++) {
        floe_field_clear(&m->fields[i]);
        floe_builder_free(m->b[i]);
    }
    m->n = 0;
}

/* Declare columns from a spec "name:K,name:K,..." (K: i int64, n int32,
 * s string, b bool, L list of strings), then open their builders. */
static floe_status pgc_start(pgc *m, const char *spec) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        if (!colon || m->n >= PGC_MAX_COLS) return floe_error(FLOE_ERR_INTERNAL, "pg_catalog: bad column spec");
        *colon = 0;
        floe_type_id id = colon[1] == 'i'   ? FLOE_TYPE_INT64
                          : colon[1] == 'n' ? FLOE_TYPE_INT32
                          : colon[1] == 'b' ? FLOE_TYPE_BOOL
                                            : FLOE_TYPE_STRING;
        if (colon[1] == 'L') { /* a list of strings (aclitem[]: always NULL here) */
            floe_field e = {0};
            floe_type *lt = NULL;
            floe_status st = floe_field_init(&e, "element", floe_type_primitive(FLOE_TYPE_STRING), true, -1);
            if (!st) st = floe_type_list(&e, &lt);
            floe_field_clear(&e);
            if (!st) st = floe_field_init(&m->fields[m->n], tok, lt, true, -1);
            floe_type_release(lt);
            FLOE_TRY(st);
        } else
            FLOE_TRY(floe_field_init(&m->fields[m->n], tok, floe_type_primitive(id), true, -1));
        m->n++;
    }
    for (int32_t i = 0; i < m->n; i++) FLOE_TRY(floe_builder_new(m->fields[i].type, 16, &m->b[i]));
    return NULL;
}

/* Append one row from a format of one letter per column (as in the spec;
 * '-' a NULL), values in order: i int64_t, n int32_t, s const char * (NULL
 * for SQL NULL), b int; 'N' takes an int32_t and appends NULL. */
static floe_status pgc_row(pgc *m, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_status st = NULL;
    for (int32_t i = 0; i < m->n && fmt[i] && !st; i++) {
        switch (fmt[i]) {
        case 'i': st = floe_builder_append_int64(m->b[i], va_arg(ap, int64_t)); break;
        case 'n': st = floe_builder_append_int32(m->b[i], va_arg(ap, int32_t)); break;
        case 'b': st = floe_builder_append_bool(m->b[i], va_arg(ap, int) != 0); break;
        case 's': {
            const char *v = va_arg(ap, const char *);
            st = v ? floe_builder_append_string(m->b[i], v) : floe_builder_append_null(m->b[i]);
            break;
        }
        case 'N':
            (void)va_arg(ap, int32_t);
            st = floe_builder_append_null(m->b[i]);
            break;
        default: st = floe_builder_append_null(m->b[i]); break;
        }
    }
    va_end(ap);
    return st;
}

static floe_status pgc_finish(pgc *m, floe_plan **out) {
    floe_schema *schema = NULL;
    floe_array *cols[PGC_MAX_COLS] = {0};
    floe_batch *batch = NULL;
    floe_status st = floe_type_struct(m->fields, m->n, &schema);
    int64_t rows = m->n ? floe_builder_length(m->b[0]) : 0;
    for (int32_t i = 0; !st && i < m->n; i++) st = floe_builder_finish(m->b[i], &cols[i]);
    if (!st) st = floe_batch_new(schema, cols, m->n, rows, &batch);
    if (!st) st = floe_plan_values(schema, &batch, rows ? 1 : 0, 1, out);
    floe_batch_release(batch);
    for (int32_t i = 0; i < m->n; i++) floe_array_release(cols[i]);
    floe_type_release(schema);
    return st;
}

/* ------------------------------------------------------------ types */

void floe_pg_type_oid_of(const floe_type *t, int64_t *oid, int32_t *typmod) {
    *typmod = -1;
    switch (t->id) {
    case FLOE_TYPE_BOOL: *oid = 16; break;
    case FLOE_TYPE_INT32: *oid = 23; break;
    case FLOE_TYPE_INT64: *oid = 20; break;
    case FLOE_TYPE_FLOAT32: *oid = 700; break;
    case FLOE_TYPE_FLOAT64: *oid = 701; break;
    case FLOE_TYPE_DECIMAL128:
        *oid = 1700;
        *typmod = ((t->precision << 16) | t->scale) + 4;
        break;
    case FLOE_TYPE_DATE32: *oid = 1082; break;
    case FLOE_TYPE_TIME64_US: *oid = 1083; break;
    case FLOE_TYPE_TIMESTAMP_US:
    case FLOE_TYPE_TIMESTAMP_NS: *oid = 1114; break;
    case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS_TZ: *oid = 1184; break;
    case FLOE_TYPE_INTERVAL: *oid = 1186; break;
    case FLOE_TYPE_BINARY:
    case FLOE_TYPE_FIXED_BINARY: *oid = 17; break;
    case FLOE_TYPE_UUID: *oid = 2950; break;
    case FLOE_TYPE_VARIANT: *oid = 114; break;
    default: *oid = 25; break; /* strings and nested values travel as text */
    }
}

/* ------------------------------------------------------ floe's objects */

static int64_t name_oid(const char *kind, const char *ns, const char *name) {
    uint32_t h = 2166136261u;
    for (const char *p = kind; *p; p++) h = (h ^ (uint8_t)*p) * 16777619u;
    for (const char *p = ns; *p; p++) h = (h ^ (uint8_t)*p) * 16777619u;
    h = (h ^ '.') * 16777619u;
    for (const char *p = name ? name : ""; *p; p++) h = (h ^ (uint8_t)*p) * 16777619u;
    return 16384 + (int64_t)(h % 2000000000u);
}

/* One relation of floe's catalog. */
typedef struct pgc_rel {
    const char *ns;
    char *name;
    bool view;
} pgc_rel;

typedef struct pgc_objects {
    char **ns;
    int32_t n_ns;
    pgc_rel *rels;
    int32_t n_rels;
} pgc_objects;

static void objects_free(pgc_objects *o) {
    for (int32_t i = 0; i < o->n_rels; i++) floe_free(o->rels[i].name);
    floe_free(o->rels);
    floe_catalog_names_free(o->ns, o->n_ns);
    memset(o, 0, sizeof *o);
}

static floe_status add_names(pgc_objects *o, const char *ns, char **names, int32_t n, bool view, int32_t *cap) {
    for (int32_t i = 0; i < n; i++) {
        if (o->n_rels == *cap) {
            int32_t nc = *cap ? *cap * 2 : 16;
            pgc_rel *r = floe_realloc(o->rels, (size_t)nc * sizeof *r);
            if (!r) return oom();
            o->rels = r;
            *cap = nc;
        }
        o->rels[o->n_rels].ns = ns;
        o->rels[o->n_rels].view = view;
        o->rels[o->n_rels].name = names[i];
        names[i] = NULL;
        o->n_rels++;
    }
    return NULL;
}

static floe_status objects_load(floe_session *s, bool with_rels, pgc_objects *o) {
    memset(o, 0, sizeof *o);
    FLOE_TRY(floe_catalog_list_namespaces(s->catalog, &o->ns, &o->n_ns));
    int32_t cap = 0;
    for (int32_t i = 0; with_rels && i < o->n_ns; i++) {
        char **names = NULL;
        int32_t n = 0;
        floe_status st = floe_catalog_list_tables(s->catalog, o->ns[i], &names, &n);
        if (!st) st = add_names(o, o->ns[i], names, n, false, &cap);
        floe_catalog_names_free(names, n);
        names = NULL;
        n = 0;
        if (!st) {
            st = floe_catalog_list_views(s->catalog, o->ns[i], &names, &n);
            if (st && floe_status_code(st) == FLOE_ERR_UNSUPPORTED) {
                floe_status_free(st); /* a catalog without views */
                st = NULL;
            }
        }
        if (!st) st = add_names(o, o->ns[i], names, n, true, &cap);
        floe_catalog_names_free(names, n);
        if (st) {
            objects_free(o);
            return st;
        }
    }
    return NULL;
}

/* The columns of a relation: its current schema (a table) or what its
 * query returns (a view), with the visible names.  A relation that
 * cannot be read (a stale view) has no columns here. */
typedef struct pgc_cols {
    floe_schema *schema;
    bind_result view;
    bool is_view;
} pgc_cols;

static floe_status rel_columns(floe_session *s, const pgc_rel *r, pgc_cols *c) {
    memset(c, 0, sizeof *c);
    if (r->view) {
        bool is_view = false;
        floe_status st = bind_view_ref(s, r->ns, r->name, -1, &is_view, &c->view);
        if (st) {
            floe_status_free(st);
            return NULL;
        }
        c->is_view = is_view;
        return NULL;
    }
    floe_ice_table *t = NULL;
    floe_status st = floe_catalog_load_table(s->catalog, r->ns, r->name, &t);
    if (st) {
        floe_status_free(st);
        return NULL;
    }
    const floe_ice_schema *sc = floe_ice_tm_current_schema(t->md);
    int32_t n = sc ? sc->root->n_fields : 0;
    int32_t *ids = floe_calloc((size_t)n + 1, sizeof *ids);
    if (!ids) st = oom();
    for (int32_t i = 0; !st && i < n; i++) ids[i] = sc->root->fields[i].id;
    if (!st && sc) st = floe_ice_schema_to_columnar(sc, ids, n, &c->schema);
    floe_free(ids);
    floe_ice_table_free(t);
    return st;
}

static void cols_free(pgc_cols *c) {
    floe_type_release(c->schema);
    if (c->is_view) {
        floe_lplan_free(c->view.plan);
        bind_scope_free(&c->view.scope);
    }
    memset(c, 0, sizeof *c);
}

/* Column i of the relation (visible ones only): false past the end. */
static bool col_at(const pgc_cols *c, int32_t i, const char **name, const floe_type **type, bool *nullable) {
    if (c->schema) {
        if (i >= floe_schema_num_fields(c->schema)) return false;
        const floe_field *f = floe_schema_field(c->schema, i);
        *name = f->name;
        *type = f->type;
        *nullable = f->nullable;
        return true;
    }
    if (!c->is_view) return false;
    for (int32_t k = 0, v = 0; k < c->view.scope.n; k++) {
        if (c->view.scope.cols[k].hidden) continue;
        if (v++ != i) continue;
        const floe_field *f = floe_schema_field(c->view.plan->schema, k);
        *name = c->view.scope.cols[k].name;
        *type = f->type;
        *nullable = true;
        return true;
    }
    return false;
}

/* ------------------------------------------------------- the relations */

static floe_status build_namespace(floe_session *s, pgc *m) {
    FLOE_TRY(pgc_start(m, "oid:i,nspname:s,nspowner:i,nspacl:s"));
    FLOE_TRY(pgc_row(m, "isi-", (int64_t)PG_CATALOG_OID, "pg_catalog", (int64_t)PG_ROLE_OID));
    FLOE_TRY(pgc_row(m, "isi-", (int64_t)PG_INFO_SCHEMA_OID, "information_schema", (int64_t)PG_ROLE_OID));
    pgc_objects o;
    FLOE_TRY(objects_load(s, false, &o));
    floe_status st = NULL;
    for (int32_t i = 0; i < o.n_ns && !st; i++)
        st = pgc_row(m, "isi-", name_oid("n", o.ns[i], NULL), o.ns[i], (int64_t)PG_ROLE_OID);
    objects_free(&o);
    return st;
}

static floe_status build_class(floe_session *s, pgc *m) {
    FLOE_TRY(pgc_start(m, "oid:i,relname:s,relnamespace:i,reltype:i,reloftype:i,relowner:i,relam:i,"
                          "reltablespace:i,reltoastrelid:i,relhasindex:b,relpersistence:s,relkind:s,"
                          "relchecks:n,relhasrules:b,relhastriggers:b,relrowsecurity:b,relforcerowsecurity:b,"
                          "relispartition:b,relreplident:s,relpartbound:s,reloptions:s,relacl:s"));
    pgc_objects o;
    FLOE_TRY(objects_load(s, true, &o));
    floe_status st = NULL;
    /* (no relnatts: it would load every table's metadata for a \dt) */
    for (int32_t i = 0; i < o.n_rels && !st; i++) {
        const pgc_rel *r = &o.rels[i];
        st = pgc_row(m, "isiiiiiiibssnbbbbbs---", name_oid("r", r->ns, r->name), r->name, name_oid("n", r->ns, NULL),
                     (int64_t)0, (int64_t)0, (int64_t)PG_ROLE_OID, (int64_t)(r->view ? 0 : 2), (int64_t)0, (int64_t)0,
                     0, "p", r->view ? "v" : "r", (int32_t)0, 0, 0, 0, 0, 0, "d");
    }
    objects_free(&o);
    return st;
}

/* pg_attribute and information_schema.columns: one row per column. */
static floe_status build_columns(floe_session *s, pgc *m, bool info) {
    if (info)
        FLOE_TRY(pgc_start(m, "table_catalog:s,table_schema:s,table_name:s,column_name:s,ordinal_position:n,"
                              "column_default:s,is_nullable:s,data_type:s,character_maximum_length:n,"
                              "numeric_precision:n,numeric_scale:n,udt_name:s"));
    else
        FLOE_TRY(pgc_start(m, "attrelid:i,attname:s,atttypid:i,attlen:n,attnum:n,atttypmod:n,attnotnull:b,"
                              "atthasdef:b,attidentity:s,attgenerated:s,attisdropped:b,attcollation:i"));
    pgc_objects o;
    FLOE_TRY(objects_load(s, true, &o));
    floe_status st = NULL;
    for (int32_t i = 0; i < o.n_rels && !st; i++) {
        const pgc_rel *r = &o.rels[i];
        pgc_cols c;
        st = rel_columns(s, r, &c);
        const char *nm;
        const floe_type *ty;
        bool nullable;
        for (int32_t k = 0; !st && col_at(&c, k, &nm, &ty, &nullable); k++) {
            int64_t oid;
            int32_t typmod;
            floe_pg_type_oid_of(ty, &oid, &typmod);
            const floe_pg_type_row *tr = floe_pg_type_by_oid(oid);
            if (info) {
                bool dec = ty->id == FLOE_TYPE_DECIMAL128;
                bool num = dec || ty->id == FLOE_TYPE_INT32 || ty->id == FLOE_TYPE_INT64 ||
                           ty->id == FLOE_TYPE_FLOAT32 || ty->id == FLOE_TYPE_FLOAT64;
                int32_t prec = dec ? ty->precision
                               : ty->id == FLOE_TYPE_INT32   ? 32
                               : ty->id == FLOE_TYPE_INT64   ? 64
                               : ty->id == FLOE_TYPE_FLOAT32 ? 24
                                                             : 53;
                int32_t scale = dec ? ty->scale : 0;
                char fmt[16] = "ssssn-ss-nns";
                if (!num) fmt[9] = fmt[10] = 'N';
                if (num && (ty->id == FLOE_TYPE_FLOAT32 || ty->id == FLOE_TYPE_FLOAT64)) fmt[10] = 'N';
                st = pgc_row(m, fmt, s->database ? s->database : "floe", r->ns, r->name, nm, k + 1,
                             nullable ? "YES" : "NO", tr->sql, prec, scale, tr->name);
            } else {
                st = pgc_row(m, "isinnnbbssbi", name_oid("r", r->ns, r->name), nm, oid, tr->len, k + 1, typmod,
                             !nullable, 0, "", "", 0, tr->collation);
            }
        }
        cols_free(&c);
    }
    objects_free(&o);
    return st;
}

static floe_status build_type(pgc *m) {
    FLOE_TRY(pgc_start(m, "oid:i,typname:s,typnamespace:i,typowner:i,typlen:n,typtype:s,typcollation:i,"
                          "typbasetype:i,typtypmod:n,typnotnull:b,typelem:i,typarray:i,typdefault:s,typrelid:i,"
                          "typisdefined:b"));
    for (const floe_pg_type_row *t = floe_pg_types(); t->name; t++)
        FLOE_TRY(pgc_row(m, "isiinsiinbii-ib", t->oid, t->name, (int64_t)PG_CATALOG_OID,
                         (int64_t)PG_ROLE_OID, t->len, "b", t->collation, (int64_t)0,
                         (int32_t)-1, 0, (int64_t)0, (int64_t)0, (int64_t)0, 1));
    return NULL;
}

static floe_status build_database(floe_session *s, pgc *m) {
    FLOE_TRY(pgc_start(m, "oid:i,datname:s,datdba:i,encoding:n,datlocprovider:s,datistemplate:b,datallowconn:b,"
                          "datconnlimit:n,datcollate:s,datctype:s,daticulocale:s,datacl:L"));
    return pgc_row(m, "isinsbbnss--", (int64_t)PG_DATABASE_OID, s->database ? s->database : "floe",
                   (int64_t)PG_ROLE_OID, (int32_t)6, "c", 0, 1, (int32_t)-1, "C.UTF-8", "C.UTF-8");
}

static floe_status build_roles(floe_session *s, pgc *m, bool user_view) {
    const char *user = s->user ? s->user : "floe";
    if (user_view) {
        FLOE_TRY(pgc_start(m, "usename:s,usesysid:i,usecreatedb:b,usesuper:b,userepl:b,usebypassrls:b,passwd:s,"
                              "valuntil:s"));
        return pgc_row(m, "sibbbbss", user, (int64_t)PG_ROLE_OID, 1, 1, 1, 1, "********", NULL);
    }
    FLOE_TRY(pgc_start(m, "oid:i,rolname:s,rolsuper:b,rolinherit:b,rolcreaterole:b,rolcreatedb:b,rolcanlogin:b,"
                          "rolreplication:b,rolconnlimit:n,rolpassword:s,rolvaliduntil:s,rolbypassrls:b"));
    return pgc_row(m, "isbbbbbbnssb", (int64_t)PG_ROLE_OID, user, 1, 1, 1, 1, 1, 1, (int32_t)-1, "********", NULL, 1);
}

static floe_status build_schemata(floe_session *s, pgc *m) {
    FLOE_TRY(pgc_start(m, "catalog_name:s,schema_name:s,schema_owner:s,default_character_set_catalog:s,"
                          "default_character_set_schema:s,default_character_set_name:s,sql_path:s"));
    const char *db = s->database ? s->database : "floe";
    const char *user = s->user ? s->user : "floe";
    FLOE_TRY(pgc_row(m, "sss----", db, "information_schema", user));
    FLOE_TRY(pgc_row(m, "sss----", db, "pg_catalog", user));
    pgc_objects o;
    FLOE_TRY(objects_load(s, false, &o));
    floe_status st = NULL;
    for (int32_t i = 0; i < o.n_ns && !st; i++) st = pgc_row(m, "sss----", db, o.ns[i], user);
    objects_free(&o);
    return st;
}

static floe_status build_tables(floe_session *s, pgc *m) {
    FLOE_TRY(pgc_start(m, "table_catalog:s,table_schema:s,table_name:s,table_type:s,self_referencing_column_name:s,"
                          "reference_generation:s,user_defined_type_catalog:s,user_defined_type_schema:s,"
                          "user_defined_type_name:s,is_insertable_into:s,is_typed:s,commit_action:s"));
    pgc_objects o;
    FLOE_TRY(objects_load(s, true, &o));
    floe_status st = NULL;
    for (int32_t i = 0; i < o.n_rels && !st; i++)
        st = pgc_row(m, "ssss-----ss-", s->database ? s->database : "floe", o.rels[i].ns, o.rels[i].name,
                     o.rels[i].view ? "VIEW" : "BASE TABLE", o.rels[i].view ? "NO" : "YES", "NO");
    objects_free(&o);
    return st;
}

/* Relations with no rows in floe: their columns only. */
static const struct {
    const char *name;
    const char *spec;
} k_empty[] = {
    {"pg_proc", "oid:i,proname:s,pronamespace:i,proowner:i,prokind:s,prorettype:i,proargtypes:s,prosrc:s"},
    {"pg_description", "objoid:i,classoid:i,objsubid:n,description:s"},
    {"pg_shdescription", "objoid:i,classoid:i,description:s"},
    {"pg_attrdef", "oid:i,adrelid:i,adnum:n,adbin:s"},
    {"pg_collation", "oid:i,collname:s,collnamespace:i"},
    {"pg_index", "indexrelid:i,indrelid:i,indnatts:n,indisunique:b,indisprimary:b,indisclustered:b,indisvalid:b,"
                 "indkey:s"},
    {"pg_constraint", "oid:i,conname:s,connamespace:i,contype:s,conrelid:i,confrelid:i,conkey:s,confkey:s"},
    {"pg_inherits", "inhrelid:i,inhparent:i,inhseqno:n,inhdetachpending:b"},
    {"pg_trigger", "oid:i,tgrelid:i,tgname:s,tgenabled:s,tgisinternal:b"},
    {"pg_rewrite", "oid:i,rulename:s,ev_class:i"},
    {"pg_sequence", "seqrelid:i"},
    {"pg_tablespace", "oid:i,spcname:s,spcowner:i"},
    {"pg_extension", "oid:i,extname:s,extowner:i,extnamespace:i,extversion:s"},
    {"pg_enum", "oid:i,enumtypid:i,enumsortorder:n,enumlabel:s"},
    {"pg_auth_members", "roleid:i,member:i,grantor:i,admin_option:b"},
    {"pg_policy", "oid:i,polname:s,polrelid:i,polcmd:s,polpermissive:b,polroles:L,polqual:s,polwithcheck:s"},
    {"pg_statistic_ext", "oid:i,stxrelid:i,stxname:s,stxnamespace:i,stxkind:L,stxstattarget:n"},
    {"pg_publication", "oid:i,pubname:s,puballtables:b"},
    {"pg_publication_rel", "oid:i,prpubid:i,prrelid:i,prqual:s,prattrs:L"},
    {"pg_publication_namespace", "oid:i,pnpubid:i,pnnspid:i"},
    {"pg_statistic_ext_data", "stxoid:i,stxdinherit:b"},
};

floe_status floe_sql_pg_visible_oids(floe_session *s, int64_t **oids, int32_t *n) {
    *oids = NULL;
    *n = 0;
    const char *ns = s->default_ns ? s->default_ns : "default";
    pgc_objects o;
    FLOE_TRY(objects_load(s, true, &o));
    int64_t *v = floe_calloc((size_t)o.n_rels + 1, sizeof *v);
    if (!v) {
        objects_free(&o);
        return oom();
    }
    for (int32_t i = 0; i < o.n_rels; i++)
        if (!strcmp(o.rels[i].ns, ns)) v[(*n)++] = name_oid("r", o.rels[i].ns, o.rels[i].name);
    objects_free(&o);
    *oids = v;
    return NULL;
}

/* One name of a regclass / regnamespace input: "Quoted" kept as written
 * ("" a quote), unquoted folded to lower case; *p moves past it. */
static floe_status reg_name_part(const char **p, const char *text, floe_buf *out) {
    const char *q = *p;
    floe_buf_clear(out);
    if (*q == '"') {
        for (q++;; q++) {
            if (!*q) return floe_error(FLOE_ERR_SYNTAX, "invalid name syntax: %s", text);
            if (*q == '"' && q[1] != '"') break;
            if (*q == '"') q++;
            FLOE_TRY(floe_buf_append_byte(out, (uint8_t)*q));
        }
        q++;
    } else {
        for (; *q && *q != '.'; q++)
            FLOE_TRY(floe_buf_append_byte(out, (uint8_t)(*q >= 'A' && *q <= 'Z' ? *q - 'A' + 'a' : *q)));
    }
    if (!out->len) return floe_error(FLOE_ERR_SYNTAX, "invalid name syntax: %s", text);
    *p = q;
    return NULL;
}

/* Whether ns.name is a table or a view of floe's catalog. */
static floe_status relation_exists(floe_session *s, const char *ns, const char *name, bool *out) {
    FLOE_TRY(floe_catalog_table_exists(s->catalog, ns, name, out));
    if (*out) return NULL;
    floe_ice_view *v = NULL;
    floe_status st = floe_catalog_load_view(s->catalog, ns, name, &v);
    floe_ice_view_free(v);
    if (!st) *out = true;
    else if (floe_status_code(st) == FLOE_ERR_NOT_FOUND || floe_status_code(st) == FLOE_ERR_UNSUPPORTED) {
        floe_status_free(st);
        st = NULL;
    }
    return st;
}

floe_status floe_sql_pg_reg_oid(floe_session *s, const char *type, const char *text, int64_t *oid) {
    bool rel = !strcmp(type, "regclass");
    /* A number is an OID already, as PostgreSQL's input functions take it. */
    const char *d = text;
    while (*d >= '0' && *d <= '9') d++;
    if (d != text && !*d) {
        *oid = strtoll(text, NULL, 10);
        return NULL;
    }
    floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
    const char *p = text;
    floe_status st = reg_name_part(&p, text, &a);
    bool qualified = !st && *p == '.';
    if (qualified) {
        p++;
        st = reg_name_part(&p, text, &b);
    }
    if (!st && (*p || (qualified && !rel)))
        st = floe_error(FLOE_ERR_SYNTAX, "invalid name syntax: %s", text);
    if (!st && !rel) {
        bool ok = false;
        st = floe_catalog_namespace_exists(s->catalog, floe_buf_cstr(&a), &ok);
        if (!st && !ok && strcmp(floe_buf_cstr(&a), "pg_catalog") && strcmp(floe_buf_cstr(&a), "information_schema"))
            st = floe_error(FLOE_ERR_NOT_FOUND, "schema \"%s\" does not exist", floe_buf_cstr(&a));
        if (!st) *oid = name_oid("n", floe_buf_cstr(&a), NULL);
    } else if (!st) {
        /* Unqualified: the search path, pg_catalog first. */
        const char *ns = qualified ? floe_buf_cstr(&a) : NULL, *name = floe_buf_cstr(qualified ? &b : &a);
        bool ok = false;
        if (!ns && floe_sql_is_pg_catalog_relation("pg_catalog", name)) {
            ns = "pg_catalog";
            ok = true;
        } else if (ns && !strcmp(ns, "pg_catalog")) {
            ok = floe_sql_is_pg_catalog_relation(ns, name);
        } else {
            if (!ns) ns = s->default_ns ? s->default_ns : "default";
            st = relation_exists(s, ns, name, &ok);
        }
        if (!st && !ok) st = floe_error(FLOE_ERR_NOT_FOUND, "relation \"%s\" does not exist", text);
        if (!st) *oid = name_oid("r", ns, name);
    }
    floe_buf_free(&a);
    floe_buf_free(&b);
    return st;
}

bool floe_sql_pg_catalog_always_empty(const char *rel) {
    for (size_t i = 0; i < sizeof k_empty / sizeof k_empty[0]; i++)
        if (!strcmp(rel, k_empty[i].name)) return true;
    return false;
}

bool floe_sql_is_pg_catalog_relation(const char *ns, const char *rel) {
    if (!rel) return false;
    if (ns && !strcmp(ns, "information_schema"))
        return !strcmp(rel, "schemata") || !strcmp(rel, "tables") || !strcmp(rel, "columns");
    if (ns && strcmp(ns, "pg_catalog") != 0) return false;
    static const char *const full[] = {"pg_namespace", "pg_class", "pg_attribute", "pg_type", "pg_database",
                                       "pg_roles", "pg_user", "pg_am"};
    for (size_t i = 0; i < sizeof full / sizeof full[0]; i++)
        if (!strcmp(rel, full[i])) return true;
    for (size_t i = 0; i < sizeof k_empty / sizeof k_empty[0]; i++)
        if (!strcmp(rel, k_empty[i].name)) return true;
    return false;
}

floe_status floe_sql_pg_catalog_table(floe_session *s, const char *ns, const char *rel, floe_plan **out) {
    *out = NULL;
    pgc m;
    memset(&m, 0, sizeof m);
    floe_status st = NULL;
    bool info = ns && !strcmp(ns, "information_schema");
    if (info && !strcmp(rel, "schemata")) st = build_schemata(s, &m);
    else if (info && !strcmp(rel, "tables")) st = build_tables(s, &m);
    else if (info && !strcmp(rel, "columns")) st = build_columns(s, &m, true);
    else if (!strcmp(rel, "pg_namespace")) st = build_namespace(s, &m);
    else if (!strcmp(rel, "pg_class")) st = build_class(s, &m);
    else if (!strcmp(rel, "pg_attribute")) st = build_columns(s, &m, false);
    else if (!strcmp(rel, "pg_type")) st = build_type(&m);
    else if (!strcmp(rel, "pg_database")) st = build_database(s, &m);
    else if (!strcmp(rel, "pg_roles")) st = build_roles(s, &m, false);
    else if (!strcmp(rel, "pg_user")) st = build_roles(s, &m, true);
    else if (!strcmp(rel, "pg_am")) {
        st = pgc_start(&m, "oid:i,amname:s,amtype:s");
        if (!st) st = pgc_row(&m, "iss", (int64_t)2, "heap", "t");
    } else {
        size_t i = 0;
        while (i < sizeof k_empty / sizeof k_empty[0] && strcmp(rel, k_empty[i].name)) i++;
        st = i < sizeof k_empty / sizeof k_empty[0] ? pgc_start(&m, k_empty[i].spec)
                                                     : floe_error(FLOE_ERR_NOT_FOUND, "no relation pg_catalog.%s", rel);
    }
    if (!st) st = pgc_finish(&m, out);
    pgc_free(&m);
    return st;
}

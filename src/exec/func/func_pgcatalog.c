/*
 * func_pgcatalog.c — the catalog functions PostgreSQL clients call in the
 * queries they send about pg_catalog (psql's \d commands, JDBC metadata):
 *
 *   format_type(type_oid, typmod)   PostgreSQL's name of the type:
 *                                   'integer', 'numeric(10,2)', ...
 *   pg_get_userbyid(oid)            'floe' (the binder gives the client's
 *                                   user instead: bind_session_info.c)
 *   pg_table_is_visible(oid), pg_function_is_visible(oid),
 *   pg_type_is_visible(oid)         true
 *   pg_encoding_to_char(int)        'UTF8'
 *   pg_get_expr(...), obj_description(...), col_description(...),
 *   shobj_description(...), pg_get_function_result(oid),
 *   pg_get_function_arguments(oid), pg_get_indexdef(...),
 *   pg_get_constraintdef(...)       NULL: floe stores no defaults,
 *                                   comments, functions or constraints
 *
 * The type table (PostgreSQL's OIDs, names, lengths, collations) is here
 * too and is what pg_catalog.pg_type shows (src/sql/pg_catalog_tables.c).
 */
#include <stdio.h>
#include <string.h>

#include "exec/func/functions.h"

enum { PGF_FORMAT_TYPE, PGF_USER, PGF_TRUE, PGF_ENCODING, PGF_NULL };

static const floe_pg_type_row k_types[] = {
    {16, "bool", "boolean", 1, 0},
    {17, "bytea", "bytea", -1, 0},
    {20, "int8", "bigint", 8, 0},
    {21, "int2", "smallint", 2, 0},
    {23, "int4", "integer", 4, 0},
    {25, "text", "text", -1, 100},
    {26, "oid", "oid", 4, 0},
    {114, "json", "json", -1, 0},
    {700, "float4", "real", 4, 0},
    {701, "float8", "double precision", 8, 0},
    {1043, "varchar", "character varying", -1, 100},
    {1082, "date", "date", 4, 0},
    {1083, "time", "time without time zone", 8, 0},
    {1114, "timestamp", "timestamp without time zone", 8, 0},
    {1184, "timestamptz", "timestamp with time zone", 8, 0},
    {1186, "interval", "interval", 16, 0},
    {1700, "numeric", "numeric", -1, 0},
    {2950, "uuid", "uuid", 16, 0},
    {0, NULL, NULL, 0, 0},
};

const floe_pg_type_row *floe_pg_types(void) { return k_types; }

const floe_pg_type_row *floe_pg_type_by_oid(int64_t oid) {
    for (const floe_pg_type_row *t = k_types; t->name; t++)
        if (t->oid == oid) return t;
    return NULL;
}

static floe_status pg_type(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types, int32_t n,
                           floe_type **out) {
    (void)args;
    if (def->tag == PGF_FORMAT_TYPE || def->tag == PGF_ENCODING)
        for (int32_t i = 0; i < n; i++)
            if (!fn_is_int(types[i])) return fn_type_error(def, types, n);
    *out = floe_type_primitive(def->tag == PGF_TRUE ? FLOE_TYPE_BOOL : FLOE_TYPE_STRING);
    return NULL;
}

static floe_status pg_eval(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows, floe_type *rtype,
                           floe_array **out) {
    if (def->tag == PGF_TRUE) {
        floe_buffer *validity = NULL, *values = NULL;
        FLOE_TRY(fn_validity(args, n, rows, &validity));
        floe_status st = floe_buffer_new((rows + 7) / 8 + 1, &values);
        if (st) {
            floe_buffer_release(validity);
            return st;
        }
        memset(values->data, 0xff, (size_t)((rows + 7) / 8 + 1));
        return fn_make_fixed(rtype, rows, validity, values, out);
    }
    fn_strwriter w;
    FLOE_TRY(fn_sw_init(&w, rows, NULL));
    floe_status st = NULL;
    char text[64];
    for (int64_t i = 0; i < rows && !st; i++) {
        const char *v = NULL;
        if (def->tag == PGF_USER) v = "floe";
        else if (def->tag == PGF_ENCODING) v = fn_null(args[0], i) ? NULL : fn_get_i64(args[0], i) == 6 ? "UTF8" : "";
        else if (def->tag == PGF_FORMAT_TYPE && !fn_null(args[0], i)) {
            int64_t oid = fn_get_i64(args[0], i);
            int64_t mod = n > 1 && !fn_null(args[1], i) ? fn_get_i64(args[1], i) : -1;
            const floe_pg_type_row *t = floe_pg_type_by_oid(oid);
            if (!t) v = "???";
            else if (oid == 1700 && mod >= 4) {
                snprintf(text, sizeof text, "numeric(%d,%d)", (int)(((mod - 4) >> 16) & 0xffff), (int)((mod - 4) & 0xffff));
                v = text;
            } else if (oid == 1043 && mod >= 4) {
                snprintf(text, sizeof text, "character varying(%d)", (int)(mod - 4));
                v = text;
            } else v = t->sql;
        }
        st = v ? fn_sw_append(&w, v, strlen(v)) : fn_sw_set_null(&w, i);
        if (!st && !v) st = fn_sw_append(&w, "", 0);
    }
    if (!st) st = fn_sw_finish(&w, rtype, out);
    fn_sw_free(&w);
    return st;
}

const floe_func_def floe_pgcatalog_funcs[] = {
    {"format_type", 2, 2, "format_type(oid, int)", pg_type, pg_eval, PGF_FORMAT_TYPE, NULL, FLOE_TYPE_NULL},
    {"pg_get_userbyid", 1, 1, "pg_get_userbyid(oid)", pg_type, pg_eval, PGF_USER, NULL, FLOE_TYPE_NULL},
    {"pg_table_is_visible", 1, 1, "pg_table_is_visible(oid)", pg_type, pg_eval, PGF_TRUE, NULL, FLOE_TYPE_NULL},
    {"pg_function_is_visible", 1, 1, "pg_function_is_visible(oid)", pg_type, pg_eval, PGF_TRUE, NULL, FLOE_TYPE_NULL},
    {"pg_type_is_visible", 1, 1, "pg_type_is_visible(oid)", pg_type, pg_eval, PGF_TRUE, NULL, FLOE_TYPE_NULL},
    {"pg_encoding_to_char", 1, 1, "pg_encoding_to_char(int)", pg_type, pg_eval, PGF_ENCODING, NULL, FLOE_TYPE_NULL},
    {"pg_get_expr", 2, 3, "pg_get_expr(text, oid[, bool])", pg_type, pg_eval, PGF_NULL, NULL, FLOE_TYPE_NULL},
    {"obj_description", 1, 2, "obj_description(oid[, name])", pg_type, pg_eval, PGF_NULL, NULL, FLOE_TYPE_NULL},
    {"col_description", 2, 2, "col_description(oid, int)", pg_type, pg_eval, PGF_NULL, NULL, FLOE_TYPE_NULL},
    {"shobj_description", 2, 2, "shobj_description(oid, name)", pg_type, pg_eval, PGF_NULL, NULL, FLOE_TYPE_NULL},
    {"pg_get_function_result", 1, 1, "pg_get_function_result(oid)", pg_type, pg_eval, PGF_NULL, NULL, FLOE_TYPE_NULL},
    {"pg_get_function_arguments", 1, 1, "pg_get_function_arguments(oid)", pg_type, pg_eval, PGF_NULL, NULL,
     FLOE_TYPE_NULL},
    {"pg_get_indexdef", 1, 3, "pg_get_indexdef(oid[, int, bool])", pg_type, pg_eval, PGF_NULL, NULL, FLOE_TYPE_NULL},
    {"pg_get_statisticsobjdef_columns", 1, 1, "pg_get_statisticsobjdef_columns(oid)", pg_type, pg_eval, PGF_NULL,
     NULL, FLOE_TYPE_NULL},
    {"pg_relation_is_publishable", 1, 1, "pg_relation_is_publishable(oid)", pg_type, pg_eval, PGF_TRUE, NULL,
     FLOE_TYPE_NULL},
    {"pg_get_constraintdef", 1, 2, "pg_get_constraintdef(oid[, bool])", pg_type, pg_eval, PGF_NULL, NULL,
     FLOE_TYPE_NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, NULL, FLOE_TYPE_NULL},
};

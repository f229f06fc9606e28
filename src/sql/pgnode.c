/*
 * pgnode.c — accessors for libpg_query's JSON parse trees (see pgnode.h)
 * and the mapping of SQL type names to floe types.
 */
#include "sql/pgnode.h"

#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "floe/memory.h"

const char *floe_pg_node_kind(const json_t *node) {
    if (!json_is_object(node) || json_object_size(node) != 1) return NULL;
    return json_object_iter_key(json_object_iter((json_t *)node));
}

json_t *floe_pg_node_body(const json_t *node) {
    if (!json_is_object(node) || json_object_size(node) != 1) return NULL;
    return json_object_iter_value(json_object_iter((json_t *)node));
}

json_t *floe_pg_as(const json_t *node, const char *kind) {
    const char *k = floe_pg_node_kind(node);
    return k && strcmp(k, kind) == 0 ? floe_pg_node_body(node) : NULL;
}

json_t *floe_pg_get(const json_t *obj, const char *field) {
    return json_is_object(obj) ? json_object_get(obj, field) : NULL;
}

const char *floe_pg_get_str(const json_t *obj, const char *field) {
    json_t *v = floe_pg_get(obj, field);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

int64_t floe_pg_get_int(const json_t *obj, const char *field, int64_t dflt) {
    json_t *v = floe_pg_get(obj, field);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

bool floe_pg_get_bool(const json_t *obj, const char *field) {
    return json_is_true(floe_pg_get(obj, field));
}

int32_t floe_pg_location(const json_t *node) {
    json_t *b = floe_pg_node_body(node);
    return (int32_t)floe_pg_get_int(b ? b : node, "location", -1);
}

int32_t floe_pg_list_len(const json_t *list) {
    return json_is_array(list) ? (int32_t)json_array_size(list) : 0;
}

json_t *floe_pg_list_at(const json_t *list, int32_t i) {
    return json_is_array(list) ? json_array_get(list, (size_t)i) : NULL;
}

const char *floe_pg_string(const json_t *node) {
    json_t *b = floe_pg_as(node, "String");
    if (!b) return NULL;
    const char *s = floe_pg_get_str(b, "sval");
    return s ? s : "";
}

floe_status floe_pg_name_list(const json_t *list, floe_buf *out) {
    for (int32_t i = 0; i < floe_pg_list_len(list); i++) {
        const char *s = floe_pg_string(floe_pg_list_at(list, i));
        if (i) FLOE_TRY(floe_buf_append_byte(out, '.'));
        FLOE_TRY(floe_buf_append_str(out, s ? s : "*"));
    }
    return NULL;
}

floe_pg_const floe_pg_const_of(const json_t *node) {
    floe_pg_const c = {FLOE_PG_CONST_NONE, 0, NULL};
    json_t *b = floe_pg_as(node, "A_Const");
    if (!b) return c;
    json_t *v;
    if (floe_pg_get_bool(b, "isnull")) {
        c.kind = FLOE_PG_CONST_NULL;
    } else if ((v = floe_pg_get(b, "ival"))) {
        c.kind = FLOE_PG_CONST_INT;
        c.ival = floe_pg_get_int(v, "ival", 0);
    } else if ((v = floe_pg_get(b, "fval"))) {
        c.kind = FLOE_PG_CONST_FLOAT;
        c.text = floe_pg_get_str(v, "fval");
        if (!c.text) c.text = "0";
    } else if ((v = floe_pg_get(b, "sval"))) {
        c.kind = FLOE_PG_CONST_STRING;
        c.text = floe_pg_get_str(v, "sval");
        if (!c.text) c.text = "";
    } else if ((v = floe_pg_get(b, "boolval"))) {
        c.kind = FLOE_PG_CONST_BOOL;
        c.ival = floe_pg_get_bool(v, "boolval");
    } else if ((v = floe_pg_get(b, "bsval"))) {
        c.kind = FLOE_PG_CONST_BITSTRING;
        c.text = floe_pg_get_str(v, "bsval");
        if (!c.text) c.text = "";
    } else {
        c.kind = FLOE_PG_CONST_NULL;
    }
    return c;
}

floe_pg_const floe_pg_const_of_sql(const json_t *node, const char *sql) {
    floe_pg_const c = floe_pg_const_of(node);
    if (c.kind != FLOE_PG_CONST_INT || floe_pg_get(floe_pg_get(floe_pg_node_body(node), "ival"), "ival")) return c;
    int32_t loc = floe_pg_location(node);
    if (loc < 0 || !sql) return c;
    /* The grammar folds a leading minus (and parentheses around it) into
     * the constant, whose location is the first of those characters. */
    const char *p = sql + loc;
    bool neg = false;
    while (*p == '-' || floe_ascii_isspace(*p) || *p == '(') {
        if (*p == '-') neg = !neg;
        p++;
    }
    int64_t v = 0;
    while (floe_ascii_isdigit(*p)) v = v * 10 + (*p++ - '0');
    c.ival = neg ? -v : v;
    return c;
}

floe_status floe_pg_type_name_of(const json_t *type_name, floe_pg_type_name *out) {
    memset(out, 0, sizeof(*out));
    const json_t *tn = floe_pg_as(type_name, "TypeName");
    if (!tn) tn = type_name; /* the TypeName body itself (typeName fields) */
    json_t *names = floe_pg_get(tn, "names");
    int32_t n = floe_pg_list_len(names);
    if (n == 0) return floe_error(FLOE_ERR_SYNTAX, "type name missing");
    const char *last = floe_pg_string(floe_pg_list_at(names, n - 1));
    if (!last || strlen(last) >= sizeof(out->name))
        return floe_error(FLOE_ERR_SYNTAX, "type name too long or malformed");
    for (size_t i = 0; last[i]; i++) out->name[i] = floe_ascii_lower(last[i]);
    json_t *mods = floe_pg_get(tn, "typmods");
    for (int32_t i = 0; i < floe_pg_list_len(mods); i++) {
        floe_pg_const c = floe_pg_const_of(floe_pg_list_at(mods, i));
        if (c.kind != FLOE_PG_CONST_INT || out->n_mods == 4)
            return floe_error(FLOE_ERR_SYNTAX, "type %s: modifiers must be integers", out->name);
        out->mods[out->n_mods++] = c.ival;
    }
    out->array_dims = floe_pg_list_len(floe_pg_get(tn, "arrayBounds"));
    out->is_array = out->array_dims > 0;
    out->location = (int32_t)floe_pg_get_int(tn, "location", -1);
    return NULL;
}

/* Known spellings (after PostgreSQL's own renaming) and their types. */
static const struct {
    const char *name;
    floe_type_id id;
} k_types[] = {
    {"bool", FLOE_TYPE_BOOL},          {"boolean", FLOE_TYPE_BOOL},
    {"int", FLOE_TYPE_INT32},          {"int4", FLOE_TYPE_INT32},
    {"integer", FLOE_TYPE_INT32},      {"int2", FLOE_TYPE_INT32},
    {"smallint", FLOE_TYPE_INT32},     {"int8", FLOE_TYPE_INT64},
    {"bigint", FLOE_TYPE_INT64},       {"long", FLOE_TYPE_INT64},
    {"float4", FLOE_TYPE_FLOAT32},     {"real", FLOE_TYPE_FLOAT32},
    {"float8", FLOE_TYPE_FLOAT64},     {"double", FLOE_TYPE_FLOAT64},
    {"date", FLOE_TYPE_DATE32},        {"time", FLOE_TYPE_TIME64_US},
    {"timestamp", FLOE_TYPE_TIMESTAMP_US},
    {"timestamptz", FLOE_TYPE_TIMESTAMP_US_TZ},
    {"text", FLOE_TYPE_STRING},        {"varchar", FLOE_TYPE_STRING},
    {"string", FLOE_TYPE_STRING},      {"bpchar", FLOE_TYPE_STRING},
    {"char", FLOE_TYPE_STRING},
    /* json / jsonb: strings of JSON text (func_json.c; a cast validates) */
    {"json", FLOE_TYPE_STRING},        {"jsonb", FLOE_TYPE_STRING},
    {"bytea", FLOE_TYPE_BINARY},       {"binary", FLOE_TYPE_BINARY},
    {"varbinary", FLOE_TYPE_BINARY},   {"uuid", FLOE_TYPE_UUID},
    {"numeric", FLOE_TYPE_DECIMAL128}, {"decimal", FLOE_TYPE_DECIMAL128},
    {"interval", FLOE_TYPE_INTERVAL},
    /* PostgreSQL's object identifiers, as pg_catalog holds them */
    {"oid", FLOE_TYPE_INT64},          {"regclass", FLOE_TYPE_INT64},
    {"regtype", FLOE_TYPE_INT64},      {"regnamespace", FLOE_TYPE_INT64},
    {"regproc", FLOE_TYPE_INT64},      {"name", FLOE_TYPE_STRING},
};

floe_status floe_pg_type_to_floe(const floe_pg_type_name *tn, const char *sql, floe_type **out) {
    *out = NULL;
    if (!strcmp(tn->name, FLOE_PG_NESTED_TYPE_NAME)) {
        floe_status st = floe_pg_nested_type_at(sql, tn->location, out);
        if (st || !tn->is_array) return st;
    } else if (tn->is_array) {
        /* T[] is list<T> (elements nullable); T[][] a list of lists — floe's
         * lists nest where PostgreSQL's arrays count dimensions instead, so
         * '{{1,2},{3,4}}'::int[][] and ARRAY[ARRAY[1, 2]] agree. */
        floe_pg_type_name el = *tn;
        el.is_array = false;
        el.array_dims = 0;
        FLOE_TRY(floe_pg_type_to_floe(&el, sql, out));
    }
    for (int32_t d = 0; *out && d < (tn->array_dims > 0 ? tn->array_dims : 1); d++) {
        floe_field f;
        floe_type *lt = NULL;
        floe_status st = floe_field_init(&f, "element", *out, true, -1);
        if (!st) st = floe_type_list(&f, &lt);
        floe_field_clear(&f);
        floe_type_release(*out);
        *out = lt;
        if (st) return st;
    }
    if (*out) return NULL;
    size_t n = sizeof(k_types) / sizeof(k_types[0]);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(k_types[i].name, tn->name) != 0) continue;
        floe_type_id id = k_types[i].id;
        if (id == FLOE_TYPE_DECIMAL128) {
            int64_t p = tn->n_mods > 0 ? tn->mods[0] : 38, s = tn->n_mods > 1 ? tn->mods[1] : 0;
            if (tn->n_mods == 0) s = 9; /* bare numeric: some fraction digits */
            if (p < 1 || p > 38 || s < 0 || s > p)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "decimal(%lld, %lld): precision must be 1..38 "
                                  "and scale 0..precision", (long long)p, (long long)s);
            return floe_type_decimal((int32_t)p, (int32_t)s, out);
        }
        /* `float` is float32 in floe (PostgreSQL turns it into float8). */
        if (id == FLOE_TYPE_FLOAT64 && sql && tn->location >= 0 && tn->n_mods == 0) {
            const char *p = sql + tn->location;
            if (strncasecmp(p, "float", 5) == 0 && !(p[5] == '8' || p[5] == '_' ||
                                                    (p[5] >= 'a' && p[5] <= 'z') || (p[5] >= 'A' && p[5] <= 'Z'))) {
                /* FLOAT(p) arrives as float8 or float4 by p, as in
                 * PostgreSQL (p 25..53 is double: pandas' to_sql writes
                 * FLOAT(53)); only a bare `float` is floe's float32. */
                const char *q = p + 5;
                while (*q == ' ' || *q == '\t' || *q == '\n') q++;
                if (*q != '(') id = FLOE_TYPE_FLOAT32;
            }
        }
        if (id == FLOE_TYPE_FLOAT64 && tn->n_mods == 1 && tn->mods[0] <= 24) id = FLOE_TYPE_FLOAT32;
        *out = floe_type_primitive(id);
        return NULL;
    }
    const char *cands[sizeof(k_types) / sizeof(k_types[0])];
    for (size_t i = 0; i < n; i++) cands[i] = k_types[i].name;
    return floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "type", floe_str_c(tn->name), cands, n);
}

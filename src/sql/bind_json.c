/*
 * bind_json.c — the read_json / read_json_auto / read_ndjson table
 * functions: their named options (DuckDB's names) into floe_json_options,
 * planned as a JsonScan node (exec/scan/json_read.c: detection on the
 * files' heads at bind time, then files and newline-delimited byte ranges
 * parsed in parallel, batch by batch, when the plan runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "exec/scan/json_read.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_csv.h"
#include "sql/bind_json.h"
#include "sql/pgnode.h"
#include "sql/session_internal.h"

/* A constant string (NULL-terminated copy), or an error naming `what`. */
static floe_status const_string(floe_session *s, const json_t *node, const char *what, char **out) {
    floe_array *a = NULL;
    FLOE_TRY(bind_table_func_const_arg(s, node, &a));
    floe_status st = NULL;
    if (a->type->id != FLOE_TYPE_STRING || floe_array_is_null(a, 0))
        st = bind_error(s, floe_pg_location(node), FLOE_ERR_TYPE, "%s must be a string", what);
    else {
        floe_strview v = floe_array_get_str(a, 0);
        if (!(*out = floe_strndup(v.data, (size_t)v.len))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    floe_array_release(a);
    return st;
}

static floe_status const_bool(floe_session *s, const json_t *node, const char *what, bool *out) {
    floe_array *a = NULL;
    FLOE_TRY(bind_table_func_const_arg(s, node, &a));
    floe_status st = NULL;
    if (a->type->id != FLOE_TYPE_BOOL || floe_array_is_null(a, 0))
        st = bind_error(s, floe_pg_location(node), FLOE_ERR_TYPE, "%s must be true or false", what);
    else *out = floe_array_get_bool(a, 0);
    floe_array_release(a);
    return st;
}

static floe_status const_int(floe_session *s, const json_t *node, const char *what, int64_t *out) {
    floe_array *a = NULL;
    FLOE_TRY(bind_table_func_const_arg(s, node, &a));
    floe_status st = NULL;
    if (floe_array_is_null(a, 0)) st = bind_error(s, floe_pg_location(node), FLOE_ERR_TYPE, "%s must not be NULL", what);
    else if (a->type->id == FLOE_TYPE_INT32) *out = floe_array_get_int32(a, 0);
    else if (a->type->id == FLOE_TYPE_INT64) *out = floe_array_get_int64(a, 0);
    else st = bind_error(s, floe_pg_location(node), FLOE_ERR_TYPE, "%s must be an integer", what);
    floe_array_release(a);
    return st;
}

/* A string or ARRAY['a', 'b'] argument as a list of strings. */
static floe_status const_strings(floe_session *s, const json_t *node, const char *what, char ***out, int32_t *n) {
    json_t *arr = floe_pg_as(node, "A_ArrayExpr");
    json_t *items = arr ? floe_pg_get(arr, "elements") : NULL;
    int32_t cnt = arr ? floe_pg_list_len(items) : 1;
    char **v = floe_calloc((size_t)cnt + 1, sizeof *v);
    if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    *out = v;
    *n = cnt;
    for (int32_t i = 0; i < cnt; i++)
        FLOE_TRY(const_string(s, arr ? floe_pg_list_at(items, i) : node, what, &v[i]));
    return NULL;
}

static void free_strings(char **v, int32_t n) {
    for (int32_t i = 0; v && i < n; i++) floe_free(v[i]);
    floe_free(v);
}

floe_status floe_sql_bind_read_json(floe_session *s, const char *fname, const json_t *args, int32_t loc,
                                    floe_plan **out) {
    *out = NULL;
    int32_t n = floe_pg_list_len(args);
    if (n < 1 || floe_pg_as(floe_pg_list_at(args, 0), "NamedArgExpr"))
        return bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "%s takes a path, glob or ARRAY of them, then named options",
                          fname);
    floe_json_options o;
    floe_json_options_init(&o);
    if (!strcmp(fname, "read_ndjson") || !strcmp(fname, "read_ndjson_auto")) o.format = FLOE_JSON_NEWLINE_DELIMITED;
    char **paths = NULL, **cols = NULL, **names = NULL;
    int32_t np = 0, nc = 0;
    floe_type **types = NULL;
    floe_status st = const_strings(s, floe_pg_list_at(args, 0), "the path", &paths, &np);
    for (int32_t i = 1; !st && i < n; i++) {
        json_t *a = floe_pg_list_at(args, i);
        json_t *named = floe_pg_as(a, "NamedArgExpr");
        const char *an = named ? floe_pg_get_str(named, "name") : NULL;
        json_t *v = named ? floe_pg_get(named, "arg") : NULL;
        if (!named || !an) {
            st = bind_error(s, floe_pg_location(a), FLOE_ERR_INVALID_ARGUMENT, "%s takes one path and named options", fname);
        } else if (!strcmp(an, "format")) {
            char *f = NULL;
            st = const_string(s, v, an, &f);
            if (!st && !strcasecmp(f, "auto")) o.format = FLOE_JSON_AUTO;
            else if (!st && (!strcasecmp(f, "newline_delimited") || !strcasecmp(f, "nd")))
                o.format = FLOE_JSON_NEWLINE_DELIMITED;
            else if (!st && !strcasecmp(f, "array")) o.format = FLOE_JSON_ARRAY;
            else if (!st)
                st = bind_error(s, floe_pg_location(v), FLOE_ERR_INVALID_ARGUMENT,
                                "format must be 'auto', 'newline_delimited' or 'array', not '%s'", f);
            floe_free(f);
        } else if (!strcmp(an, "sample_size")) {
            st = const_int(s, v, an, &o.sample_size);
            if (!st && o.sample_size == 0)
                st = bind_error(s, floe_pg_location(v), FLOE_ERR_INVALID_ARGUMENT, "sample_size must be positive or -1");
            if (!st && o.sample_size < -1) o.sample_size = -1;
        } else if (!strcmp(an, "maximum_depth")) {
            int64_t d = 0;
            st = const_int(s, v, an, &d);
            if (!st && (d < -1 || d > 1000))
                st = bind_error(s, floe_pg_location(v), FLOE_ERR_INVALID_ARGUMENT, "maximum_depth must be -1 or 0 to 1000");
            o.maximum_depth = (int32_t)d;
        } else if (!strcmp(an, "filename")) {
            st = const_bool(s, v, an, &o.filename);
        } else if (!strcmp(an, "range_bytes")) {
            /* floe's own knob: the size of the newline-delimited byte
             * ranges parsed in parallel (tests use small ones). */
            st = const_int(s, v, an, &o.range_bytes);
            if (!st && o.range_bytes < 1)
                st = bind_error(s, floe_pg_location(v), FLOE_ERR_INVALID_ARGUMENT, "range_bytes must be positive");
        } else if (!strcmp(an, "columns")) {
            /* columns => ['a INTEGER', 'b VARCHAR']: a name and a type each. */
            free_strings(cols, nc);
            cols = NULL;
            st = const_strings(s, v, an, &cols, &nc);
        } else {
            const char *cands[] = {"format", "columns", "sample_size", "maximum_depth", "filename", "range_bytes"};
            st = bind_at(s, floe_pg_location(a),
                         floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "read_json option", floe_str_c(an), cands,
                                                 sizeof cands / sizeof cands[0]));
        }
    }
    if (!st && nc > 0 && (!(names = floe_calloc((size_t)nc, sizeof *names)) || !(types = floe_calloc((size_t)nc, sizeof *types))))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t k = 0; !st && k < nc; k++) {
        char *sp = strchr(cols[k], ' ');
        if (!sp) {
            st = bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "columns => ['name TYPE', ...]: '%s' has no type", cols[k]);
            break;
        }
        if (!(names[k] = floe_strndup(cols[k], (size_t)(sp - cols[k])))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        if (!st) st = bind_at(s, loc, floe_sql_csv_type(sp + 1, &types[k]));
    }
    o.names = (const char *const *)names;
    o.types = types;
    o.n_columns = nc;
    if (!st) st = floe_json_plan_scan((const char *const *)paths, np, s->io, &o,
                                      s->opts.target_partitions > 0 ? s->opts.target_partitions : 1, out);
    if (st) st = bind_at(s, loc, st); /* the reader names read_json, the file and the place */
    for (int32_t i = 0; types && i < nc; i++) floe_type_release(types[i]);
    floe_free(types);
    free_strings(names, nc);
    free_strings(paths, np);
    free_strings(cols, nc);
    return st;
}

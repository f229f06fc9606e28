/*
 * bind_csv.c — the read_csv / read_csv_auto table functions: their named
 * options (DuckDB's names) into floe_csv_options, and a CsvScan node
 * (exec/scan/csv_read.c: detection on a sample now, the byte ranges
 * parsed in parallel when the plan runs).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "exec/scan/csv_read.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_csv.h"
#include "sql/pgnode.h"
#include "sql/session_internal.h"

floe_status floe_sql_csv_type(const char *text, floe_type **out) {
    *out = NULL;
    floe_pg_type_name tn;
    memset(&tn, 0, sizeof tn);
    tn.location = -1;
    size_t k = 0;
    const char *p = text;
    while (*p == ' ') p++;
    for (; *p && *p != '(' && k + 1 < sizeof tn.name; p++) tn.name[k++] = (char)tolower((unsigned char)*p);
    while (k > 0 && tn.name[k - 1] == ' ') k--;
    tn.name[k] = 0;
    if (!strcmp(tn.name, "double precision")) strcpy(tn.name, "double");
    else if (!strcmp(tn.name, "timestamp with time zone")) strcpy(tn.name, "timestamptz");
    else if (!strcmp(tn.name, "character varying")) strcpy(tn.name, "varchar");
    if (*p == '(') {
        p++;
        while (*p && *p != ')' && tn.n_mods < 4) {
            char *end = NULL;
            long long v = strtoll(p, &end, 10);
            if (end == p) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "bad type name '%s'", text);
            tn.mods[tn.n_mods++] = v;
            p = end;
            while (*p == ' ' || *p == ',') p++;
        }
    }
    return floe_pg_type_to_floe(&tn, NULL, out);
}

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

/* One character option ('' means none, for quote and escape). */
static floe_status char_option(floe_session *s, const json_t *node, const char *what, bool allow_empty, int *out) {
    char *v = NULL;
    FLOE_TRY(const_string(s, node, what, &v));
    floe_status st = NULL;
    if (!strcmp(what, "delim") && !strcmp(v, "\\t")) *out = '\t';
    else if (strlen(v) == 1) *out = (unsigned char)v[0];
    else if (!v[0] && allow_empty) *out = 0;
    else st = bind_error(s, floe_pg_location(node), FLOE_ERR_INVALID_ARGUMENT, "%s must be one character, not '%s'", what, v);
    floe_free(v);
    return st;
}

static void free_strings(char **v, int32_t n) {
    for (int32_t i = 0; v && i < n; i++) floe_free(v[i]);
    floe_free(v);
}

floe_status floe_sql_bind_read_csv(floe_session *s, const char *fname, const json_t *args, int32_t loc,
                                   floe_plan **out) {
    *out = NULL;
    int32_t n = floe_pg_list_len(args);
    if (n < 1 || floe_pg_as(floe_pg_list_at(args, 0), "NamedArgExpr"))
        return bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "%s takes a path, glob or ARRAY of them, then named options",
                          fname);
    floe_csv_options o;
    floe_csv_options_init(&o);
    char **paths = NULL, **names = NULL, **tnames = NULL, *nullstr = NULL;
    int32_t np = 0, nn = 0, nt = 0;
    floe_type **types = NULL;
    floe_status st = const_strings(s, floe_pg_list_at(args, 0), "the path", &paths, &np);
    for (int32_t i = 1; !st && i < n; i++) {
        json_t *a = floe_pg_list_at(args, i);
        json_t *named = floe_pg_as(a, "NamedArgExpr");
        const char *an = named ? floe_pg_get_str(named, "name") : NULL;
        json_t *v = named ? floe_pg_get(named, "arg") : NULL;
        if (!named || !an) {
            st = bind_error(s, floe_pg_location(a), FLOE_ERR_INVALID_ARGUMENT, "%s takes one path and named options", fname);
        } else if (!strcmp(an, "header")) {
            bool b = false;
            st = const_bool(s, v, an, &b);
            o.header = b;
        } else if (!strcmp(an, "delim") || !strcmp(an, "sep") || !strcmp(an, "delimiter")) {
            st = char_option(s, v, "delim", false, &o.delim);
        } else if (!strcmp(an, "quote")) {
            st = char_option(s, v, an, true, &o.quote);
        } else if (!strcmp(an, "escape")) {
            st = char_option(s, v, an, true, &o.escape);
        } else if (!strcmp(an, "nullstr") || !strcmp(an, "null")) {
            floe_free(nullstr);
            nullstr = NULL;
            st = const_string(s, v, an, &nullstr);
            o.nullstr = nullstr;
        } else if (!strcmp(an, "auto_detect")) {
            st = const_bool(s, v, an, &o.auto_detect);
        } else if (!strcmp(an, "all_varchar")) {
            st = const_bool(s, v, an, &o.all_varchar);
        } else if (!strcmp(an, "filename")) {
            st = const_bool(s, v, an, &o.filename);
        } else if (!strcmp(an, "allow_quoted_nulls")) {
            st = const_bool(s, v, an, &o.quoted_nulls);
        } else if (!strcmp(an, "skip")) {
            st = const_int(s, v, an, &o.skip);
            if (!st && o.skip < 0) st = bind_error(s, floe_pg_location(v), FLOE_ERR_INVALID_ARGUMENT, "skip must be >= 0");
        } else if (!strcmp(an, "range_bytes")) {
            /* floe's own knob: the size of the byte ranges parsed in
             * parallel (tests use small ones to put many range edges
             * inside quoted fields). */
            st = const_int(s, v, an, &o.range_bytes);
            if (!st && o.range_bytes < 1)
                st = bind_error(s, floe_pg_location(v), FLOE_ERR_INVALID_ARGUMENT, "range_bytes must be positive");
        } else if (!strcmp(an, "names") || !strcmp(an, "column_names")) {
            free_strings(names, nn);
            st = const_strings(s, v, an, &names, &nn);
        } else if (!strcmp(an, "types") || !strcmp(an, "column_types") || !strcmp(an, "columns")) {
            free_strings(tnames, nt);
            st = const_strings(s, v, an, &tnames, &nt);
            /* columns => ['a INTEGER', ...]: a name and a type each. */
            if (!st && !strcmp(an, "columns")) {
                free_strings(names, nn);
                nn = nt;
                names = floe_calloc((size_t)nt + 1, sizeof *names);
                if (!names) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
                for (int32_t k = 0; !st && k < nt; k++) {
                    char *sp = strchr(tnames[k], ' ');
                    if (!sp) {
                        st = bind_error(s, floe_pg_location(v), FLOE_ERR_INVALID_ARGUMENT,
                                        "columns => ['name TYPE', ...]: '%s' has no type", tnames[k]);
                        break;
                    }
                    names[k] = floe_strndup(tnames[k], (size_t)(sp - tnames[k]));
                    memmove(tnames[k], sp + 1, strlen(sp + 1) + 1);
                }
            }
        } else {
            const char *cands[] = {"header", "delim", "sep", "quote", "escape", "nullstr", "auto_detect", "all_varchar",
                                   "filename", "skip", "names", "types", "columns", "allow_quoted_nulls", "range_bytes"};
            st = bind_at(s, floe_pg_location(a),
                         floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "read_csv option", floe_str_c(an), cands,
                                                 sizeof cands / sizeof cands[0]));
        }
    }
    if (!st && nt > 0 && !(types = floe_calloc((size_t)nt, sizeof *types)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; !st && i < nt; i++) {
        st = floe_sql_csv_type(tnames[i], &types[i]);
        if (!st && floe_type_is_nested(types[i]))
            st = floe_error(FLOE_ERR_UNSUPPORTED, "read_csv: nested column types are not supported");
        if (st) st = bind_at(s, loc, st);
    }
    if (!st && nn > 0 && nt > 0 && nn != nt)
        st = bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "%s: %d names but %d types", fname, nn, nt);
    o.names = (const char *const *)names;
    o.n_names = nn;
    o.types = types;
    o.n_types = nt;
    if (!st)
        st = floe_csv_plan_scan((const char *const *)paths, np, s->io, &o,
                                s->opts.target_partitions > 0 ? s->opts.target_partitions : 1, out);
    if (st) st = bind_at(s, loc, floe_status_wrap(st, "%s", fname));
    for (int32_t i = 0; types && i < nt; i++) floe_type_release(types[i]);
    floe_free(types);
    free_strings(paths, np);
    free_strings(names, nn);
    free_strings(tnames, nt);
    floe_free(nullstr);
    return st;
}

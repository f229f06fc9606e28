/*
 * procedure.c — CALL: finding the procedure in the registry, binding its
 * arguments (by name or position, as Spark's ProcedureArgs do), evaluating
 * them, running the callback and printing the rows it produced; plus the
 * helpers callbacks share (table names, load-edit-commit with retries).
 *
 * Parse tree: {"CallStmt": {"funccall": {"funcname": [system, name] or
 * [catalog, system, name], "args": [expr | NamedArgExpr ...]}}}.  Spark's
 * `table => ...` and `to => ...` cannot be parsed (reserved words):
 * parse.c's pre-pass turns the word into a placeholder name and records a
 * FLOE_SQL_CALL_ARG_NAME clause at its location, which is the
 * NamedArgExpr's location here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "floe/exec.h"
#include "floe/iceberg_value.h"
#include "floe/memory.h"
#include "iceberg/update/table_update_internal.h"
#include "sql/bind.h"
#include "sql/pgnode.h"
#include "sql/procedures/procedure.h"
#include "sql/session_internal.h"

#define CATALOG_NAME "floe"
#define DEFAULT_NAMESPACE "default"
#define MAX_PARAMS 32

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "CALL: out of memory"); }

static const char *type_name(floe_proc_type t) {
    switch (t) {
    case FLOE_PROC_STRING: return "string";
    case FLOE_PROC_LONG: return "long";
    case FLOE_PROC_BOOL: return "boolean";
    case FLOE_PROC_TIMESTAMP: return "timestamp";
    case FLOE_PROC_LONG_ARRAY: return "array<long>";
    case FLOE_PROC_STRING_ARRAY: return "array<string>";
    default: return "map<string,string>";
    }
}

floe_status floe_proc_error(const floe_proc_call *call, const floe_proc_arg *arg, floe_code code, const char *fmt,
                            ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int32_t loc = arg && arg->location >= 0 ? arg->location : call->location;
    return floe_session_error_at(call->s, loc, code, "%s: %s", call->def->name, msg);
}

const floe_proc_arg *floe_proc_get(const floe_proc_call *call, const char *name) {
    for (int32_t i = 0; i < call->def->n_params; i++)
        if (!strcmp(call->def->params[i].name, name)) return &call->args[i];
    static const floe_proc_arg absent = {false, NULL, 0, false, NULL, NULL, 0, -1};
    return &absent;
}

/* ------------------------------------------------------------ results */

static floe_status next_cell(floe_proc_call *call, floe_proc_cell **out) {
    if (call->n_rows == 0 || call->next_col >= call->def->n_columns)
        return floe_error(FLOE_ERR_INTERNAL, "%s: result cell outside a row", call->def->name);
    *out = &call->cells[(call->n_rows - 1) * call->def->n_columns + call->next_col++];
    return NULL;
}

floe_status floe_proc_add_row(floe_proc_call *call) {
    int32_t nc = call->def->n_columns;
    if (call->n_rows == call->cap_rows) {
        int64_t cap = call->cap_rows ? call->cap_rows * 2 : 8;
        floe_proc_cell *c = floe_realloc(call->cells, (size_t)(cap * nc) * sizeof(*c));
        if (!c) return oom();
        call->cells = c;
        call->cap_rows = cap;
    }
    memset(&call->cells[call->n_rows * nc], 0, (size_t)nc * sizeof(floe_proc_cell));
    for (int32_t i = 0; i < nc; i++) call->cells[call->n_rows * nc + i].is_null = true;
    call->n_rows++;
    call->next_col = 0;
    return NULL;
}

floe_status floe_proc_add_long(floe_proc_call *call, int64_t v) {
    floe_proc_cell *c;
    FLOE_TRY(next_cell(call, &c));
    c->is_null = false;
    c->i64 = v;
    return NULL;
}

floe_status floe_proc_add_bool(floe_proc_call *call, bool v) { return floe_proc_add_long(call, v ? 1 : 0); }

floe_status floe_proc_add_null(floe_proc_call *call) {
    floe_proc_cell *c;
    return next_cell(call, &c);
}

floe_status floe_proc_add_string(floe_proc_call *call, const char *v) {
    floe_proc_cell *c;
    FLOE_TRY(next_cell(call, &c));
    if (!v) return NULL;
    c->str = floe_strdup(v);
    if (!c->str) return oom();
    c->is_null = false;
    return NULL;
}

/* The rows as one batch, typed as the definition's columns. */
static floe_status emit(const floe_proc_call *call, const floe_result_sink *sink) {
    const floe_proc_def *d = call->def;
    int32_t nc = d->n_columns;
    floe_field *fields = floe_calloc((size_t)nc + 1, sizeof(floe_field));
    floe_array **cols = floe_calloc((size_t)nc + 1, sizeof(floe_array *));
    floe_schema *schema = NULL;
    floe_batch *batch = NULL;
    floe_status st = NULL;
    if (!fields || !cols) {
        st = oom();
        goto done;
    }
    for (int32_t c = 0; c < nc && !st; c++) {
        floe_type_id id = d->columns[c].type == FLOE_PROC_LONG   ? FLOE_TYPE_INT64
                          : d->columns[c].type == FLOE_PROC_BOOL ? FLOE_TYPE_BOOL
                                                                 : FLOE_TYPE_STRING;
        st = floe_field_init(&fields[c], d->columns[c].name, floe_type_primitive(id), true, -1);
    }
    if (!st) st = floe_type_struct(fields, nc, &schema);
    for (int32_t c = 0; c < nc && !st; c++) {
        floe_builder *b = NULL;
        st = floe_builder_new(fields[c].type, call->n_rows, &b);
        for (int64_t r = 0; r < call->n_rows && !st; r++) {
            const floe_proc_cell *cell = &call->cells[r * nc + c];
            if (cell->is_null) st = floe_builder_append_null(b);
            else if (d->columns[c].type == FLOE_PROC_LONG) st = floe_builder_append_int64(b, cell->i64);
            else if (d->columns[c].type == FLOE_PROC_BOOL) st = floe_builder_append_bool(b, cell->i64 != 0);
            else st = floe_builder_append_string(b, cell->str);
        }
        if (!st) st = floe_builder_finish(b, &cols[c]);
        floe_builder_free(b);
    }
    if (!st) st = floe_batch_new(schema, cols, nc, call->n_rows, &batch);
    if (!st && sink && sink->begin) st = sink->begin(sink->arg, schema);
    if (!st && sink && sink->batch && call->n_rows > 0) st = sink->batch(sink->arg, batch);
    if (!st && sink && sink->end) st = sink->end(sink->arg, "CALL", call->n_rows);
done:
    floe_batch_release(batch);
    for (int32_t c = 0; c < nc; c++) {
        if (cols) floe_array_release(cols[c]);
        if (fields) floe_field_clear(&fields[c]);
    }
    floe_type_release(schema);
    floe_free(cols);
    floe_free(fields);
    return st;
}

/* ---------------------------------------------------------- arguments */

/* ---------------------------------------------------------- arguments */

static void arg_clear(floe_proc_arg *a, floe_proc_type type) {
    floe_free(a->str);
    floe_free(a->longs);
    int32_t n_strs = type == FLOE_PROC_MAP ? 2 * a->n : a->n;
    for (int32_t i = 0; a->strs && i < n_strs; i++) floe_free(a->strs[i]);
    floe_free(a->strs);
    memset(a, 0, sizeof(*a));
}

static floe_status wrong_type(const floe_proc_call *call, const floe_proc_param *p, const floe_proc_arg *a,
                              const floe_array *v) {
    return floe_proc_error(call, a, FLOE_ERR_TYPE, "wrong argument type for %s: expected %s, got %s", p->name,
                           type_name(p->type), floe_type_id_name(v->type->id));
}

/* A string value as a timestamp (the same parsing as TIMESTAMPTZ '...'). */
static floe_status string_to_ms(floe_session *s, floe_strview sv, int64_t *ms) {
    bind_ectx ec;
    bind_ectx_init(&ec, s, NULL, NULL, "CALL");
    char *text = floe_strndup(sv.data, (size_t)sv.len);
    floe_expr *str = NULL, *lit = NULL;
    floe_status st = text ? floe_expr_lit_string(text, &str) : oom();
    if (!st) st = bind_coerce(&ec, str, floe_type_primitive(FLOE_TYPE_TIMESTAMP_US_TZ), -1, &lit);
    if (!st) *ms = floe_ice_floordiv(floe_array_get_int64(lit->literal, 0), 1000);
    floe_expr_release(str);
    floe_expr_release(lit);
    floe_free(text);
    bind_ectx_clear(&ec);
    return st;
}

/* One scalar value (already evaluated into `v`, not null) into `a`. */
static floe_status scalar_value(const floe_proc_call *call, const floe_proc_param *p, floe_proc_type type,
                                floe_proc_arg *a, const floe_array *v, int64_t *i64_out, char **str_out) {
    floe_type_id id = v->type->id;
    bool is_int = id == FLOE_TYPE_INT32 || id == FLOE_TYPE_INT64;
    switch (type) {
    case FLOE_PROC_STRING:
    case FLOE_PROC_STRING_ARRAY:
    case FLOE_PROC_MAP: {
        if (id != FLOE_TYPE_STRING) return wrong_type(call, p, a, v);
        floe_strview sv = floe_array_get_str(v, 0);
        *str_out = floe_strndup(sv.data, (size_t)sv.len);
        return *str_out ? NULL : oom();
    }
    case FLOE_PROC_LONG:
    case FLOE_PROC_LONG_ARRAY:
        if (!is_int) return wrong_type(call, p, a, v);
        *i64_out = id == FLOE_TYPE_INT64 ? floe_array_get_int64(v, 0) : floe_array_get_int32(v, 0);
        return NULL;
    case FLOE_PROC_BOOL:
        if (id != FLOE_TYPE_BOOL) return wrong_type(call, p, a, v);
        *i64_out = floe_array_get_bool(v, 0);
        return NULL;
    case FLOE_PROC_TIMESTAMP:
        if (is_int) return scalar_value(call, p, FLOE_PROC_LONG, a, v, i64_out, str_out);
        if (id == FLOE_TYPE_TIMESTAMP_US || id == FLOE_TYPE_TIMESTAMP_US_TZ) {
            *i64_out = floe_ice_floordiv(floe_array_get_int64(v, 0), 1000);
            return NULL;
        }
        if (id == FLOE_TYPE_TIMESTAMP_NS || id == FLOE_TYPE_TIMESTAMP_NS_TZ) {
            *i64_out = floe_ice_floordiv(floe_array_get_int64(v, 0), 1000000);
            return NULL;
        }
        if (id == FLOE_TYPE_DATE32) {
            *i64_out = (int64_t)floe_array_get_int32(v, 0) * 86400000;
            return NULL;
        }
        if (id == FLOE_TYPE_STRING) {
            floe_status st = string_to_ms(call->s, floe_array_get_str(v, 0), i64_out);
            if (st) {
                floe_status e = floe_proc_error(call, a, FLOE_ERR_TYPE, "wrong argument value for %s: %s", p->name,
                                                floe_status_message(st));
                floe_status_free(st);
                return e;
            }
            return NULL;
        }
        return wrong_type(call, p, a, v);
    }
    return floe_error(FLOE_ERR_INTERNAL, "CALL: parameter type %d", (int)type);
}

/* The elements of array(...) / ARRAY[...] / map(...), else the node
 * itself as a one-element list (*single). */
static const json_t *list_items(const json_t *node, const char *fname, int32_t *n, bool *single) {
    *single = false;
    json_t *arr = floe_pg_as(node, "A_ArrayExpr");
    if (arr && !strcmp(fname, "array")) {
        *n = floe_pg_list_len(floe_pg_get(arr, "elements"));
        return floe_pg_get(arr, "elements");
    }
    json_t *fc = floe_pg_as(node, "FuncCall");
    if (fc) {
        json_t *names = floe_pg_get(fc, "funcname");
        const char *f = floe_pg_string(floe_pg_list_at(names, floe_pg_list_len(names) - 1));
        if (f && !strcmp(f, fname)) {
            *n = floe_pg_list_len(floe_pg_get(fc, "args"));
            return floe_pg_get(fc, "args");
        }
    }
    *single = true;
    *n = 1;
    return node;
}

/* Evaluate the value `node` for parameter p into a (NULL: not given). */
static floe_status bind_value(const floe_proc_call *call, const floe_proc_param *p, const json_t *node,
                              floe_proc_arg *a) {
    a->location = floe_pg_location(node);
    bool is_list = p->type == FLOE_PROC_LONG_ARRAY || p->type == FLOE_PROC_STRING_ARRAY;
    int32_t n = 1;
    bool single = true;
    const json_t *items = node;
    if (is_list || p->type == FLOE_PROC_MAP)
        items = list_items(node, p->type == FLOE_PROC_MAP ? "map" : "array", &n, &single);
    if (p->type == FLOE_PROC_MAP && (single || n % 2 != 0))
        return floe_proc_error(call, a, FLOE_ERR_TYPE, "wrong argument type for %s: expected map('key', 'value', ...)",
                               p->name);
    if (is_list) {
        a->n = n;
        if (p->type == FLOE_PROC_LONG_ARRAY) a->longs = floe_calloc((size_t)n + 1, sizeof(int64_t));
        else a->strs = floe_calloc((size_t)n + 1, sizeof(char *));
        if (!a->longs && !a->strs) return oom();
    } else if (p->type == FLOE_PROC_MAP) {
        a->n = n / 2;
        a->strs = floe_calloc((size_t)n + 1, sizeof(char *));
        if (!a->strs) return oom();
    }
    for (int32_t i = 0; i < n; i++) {
        const json_t *x = single ? node : floe_pg_list_at(items, i);
        floe_array *v = NULL;
        FLOE_TRY(bind_table_func_const_arg(call->s, x, &v));
        floe_status st = NULL;
        if (floe_array_is_null(v, 0)) {
            if (is_list || p->type == FLOE_PROC_MAP)
                st = floe_proc_error(call, a, FLOE_ERR_INVALID_ARGUMENT, "%s must not hold NULL", p->name);
            floe_array_release(v);
            if (st) return st;
            return NULL; /* a NULL scalar: not given */
        }
        int64_t i64 = 0;
        char *str = NULL;
        st = scalar_value(call, p, p->type, a, v, &i64, &str);
        floe_array_release(v);
        if (st) return st;
        if (p->type == FLOE_PROC_LONG_ARRAY) a->longs[i] = i64;
        else if (is_list || p->type == FLOE_PROC_MAP) a->strs[i] = str;
        else if (p->type == FLOE_PROC_STRING) a->str = str;
        else if (p->type == FLOE_PROC_BOOL) a->b = i64 != 0;
        else a->i64 = i64;
    }
    a->given = true;
    return NULL;
}

/* Append ", word" (or "word" to an empty list), truncating. */
static void append_word(char *list, size_t cap, const char *word) {
    size_t n = strlen(list);
    snprintf(list + n, cap - n, "%s%s", n ? ", " : "", word);
}

/* The procedure named by funcname ([catalog,] system, name). */
static floe_status find_procedure(floe_session *s, const json_t *funcname, int32_t location,
                                  const floe_proc_def **out) {
    int32_t n = floe_pg_list_len(funcname);
    const char *parts[3] = {NULL, NULL, NULL};
    for (int32_t i = 0; i < n && i < 3; i++) parts[3 - n + i] = floe_pg_string(floe_pg_list_at(funcname, i));
    if (n < 2 || n > 3 || !parts[1] || !parts[2] || strcmp(parts[1], "system") != 0)
        return floe_session_error_at(s, location, FLOE_ERR_NOT_FOUND,
                                     "CALL: procedures are called as system.<name>(...) or %s.system.<name>(...)",
                                     CATALOG_NAME);
    if (parts[0] && strcmp(parts[0], CATALOG_NAME) != 0)
        return floe_session_error_at(s, location, FLOE_ERR_NOT_FOUND, "unknown catalog '%s' (the only catalog is '%s')",
                                     parts[0], CATALOG_NAME);
    const char *cands[64];
    size_t nc = 0;
    for (int32_t i = 0; floe_proc_registry[i]; i++) {
        if (!strcmp(floe_proc_registry[i]->name, parts[2])) {
            *out = floe_proc_registry[i];
            return NULL;
        }
        if (nc < 64) cands[nc++] = floe_proc_registry[i]->name;
    }
    char known[2048] = "";
    for (size_t i = 0; i < nc; i++) append_word(known, sizeof known, cands[i]);
    floe_status st = floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "procedure", floe_str_c(parts[2]), cands, nc);
    floe_status e = floe_session_error_at(s, location, FLOE_ERR_NOT_FOUND, "%s (procedures: %s)",
                                          floe_status_message(st), known);
    floe_status_free(st);
    return e;
}

/* A Trino duration ("7d", "1.5h", "90 m", "250ms") in milliseconds. */
static bool parse_duration_ms(const char *text, double *out) {
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || !(v >= 0)) return false;
    while (*end == ' ') end++;
    static const struct {
        const char *unit;
        double ms;
    } units[] = {{"ns", 1e-6}, {"us", 1e-3}, {"ms", 1}, {"s", 1e3}, {"m", 60e3}, {"h", 3600e3}, {"d", 86400e3}};
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
        if (!strcmp(end, units[k].unit)) {
            *out = v * units[k].ms;
            return *out < 9.0e15;
        }
    return false;
}

floe_status floe_proc_trino_retention(floe_proc_call *call, int64_t min_s, const char *option) {
    floe_proc_arg *older = (floe_proc_arg *)floe_proc_get(call, "older_than");
    if (older->given)
        return floe_proc_error(call, older, FLOE_ERR_INVALID_ARGUMENT,
                               "older_than is CALL system.%s's; ALTER TABLE ... EXECUTE takes retention_threshold",
                               call->def->name);
    const floe_proc_arg *t = floe_proc_get(call, "retention_threshold");
    double ms = 7 * 86400e3;
    if (t->given && !parse_duration_ms(t->str, &ms))
        return floe_proc_error(call, t, FLOE_ERR_INVALID_ARGUMENT,
                               "retention_threshold: invalid duration '%s' (a number and ns, us, ms, s, m, h or d)",
                               t->str);
    if (ms < (double)min_s * 1000)
        return floe_proc_error(call, t->given ? t : NULL, FLOE_ERR_INVALID_ARGUMENT,
                               "Retention specified (%.2fd) is shorter than the minimum retention configured in the "
                               "system (%.2fd). Minimum retention can be changed with SET %s = <seconds>",
                               ms / 86400e3, (double)min_s / 86400, option);
    older->given = true;
    older->i64 = floe_ice_now_ms() - (int64_t)ms;
    older->location = t->given ? t->location : call->location;
    return NULL;
}

/* Trino's table procedures (ALTER TABLE t EXECUTE name(...)). */
extern const floe_proc_def floe_proc_trino_optimize;            /* proc_rewrite.c */
extern const floe_proc_def floe_proc_trino_expire_snapshots;    /* proc_expire.c */
extern const floe_proc_def floe_proc_trino_remove_orphan_files; /* proc_orphans.c */

static floe_status find_table_procedure(floe_session *s, const json_t *funcname, int32_t location,
                                        const floe_proc_def **out) {
    const char *name = floe_pg_list_len(funcname) == 1 ? floe_pg_string(floe_pg_list_at(funcname, 0)) : NULL;
    const floe_proc_def *const table_procs[] = {&floe_proc_trino_optimize, &floe_proc_trino_expire_snapshots,
                                                &floe_proc_trino_remove_orphan_files};
    for (size_t i = 0; name && i < sizeof table_procs / sizeof table_procs[0]; i++)
        if (!strcmp(name, table_procs[i]->name)) {
            *out = table_procs[i];
            return NULL;
        }
    return floe_session_error_at(s, location, FLOE_ERR_NOT_FOUND,
                                 "ALTER TABLE ... EXECUTE: unknown table procedure '%s' (procedures: optimize, "
                                 "expire_snapshots, remove_orphan_files)",
                                 name ? name : "?");
}

/* Match the call's arguments to the parameters and evaluate them. */
/* table_given: the table comes from ALTER TABLE t EXECUTE, not an argument. */
static floe_status bind_args(floe_proc_call *call, const floe_sql_stmt *stmt, const json_t *args, bool table_given) {
    const floe_proc_def *d = call->def;
    int32_t n = floe_pg_list_len(args);
    const json_t *nodes[MAX_PARAMS] = {0};
    bool named = false, positional = false;
    for (int32_t i = 0; i < n; i++) {
        const json_t *arg = floe_pg_list_at(args, i);
        json_t *na = floe_pg_as(arg, "NamedArgExpr");
        int32_t loc = floe_pg_location(arg);
        if (!na) {
            positional = true;
            if (i >= d->n_params)
                return floe_session_error_at(call->s, loc, FLOE_ERR_INVALID_ARGUMENT,
                                             "%s: too many arguments (it takes %d)", d->name, (int)d->n_params);
            nodes[i] = arg;
            continue;
        }
        named = true;
        int32_t nloc = (int32_t)floe_pg_get_int(na, "location", -1);
        const char *name = floe_pg_get_str(na, "name");
        const floe_sql_clause *kw = floe_sql_stmt_clause(stmt, FLOE_SQL_CALL_ARG_NAME, nloc);
        if (kw) name = kw->text;
        int32_t k = 0;
        while (k < d->n_params && strcmp(d->params[k].name, name ? name : "") != 0) k++;
        if (k == d->n_params) {
            const char *cands[MAX_PARAMS];
            for (int32_t j = 0; j < d->n_params; j++) cands[j] = d->params[j].name;
            floe_status st = floe_unknown_name_error(FLOE_ERR_INVALID_ARGUMENT, "argument", floe_str_c(name ? name : ""),
                                                     cands, (size_t)d->n_params);
            floe_status e = floe_session_error_at(call->s, nloc, FLOE_ERR_INVALID_ARGUMENT, "%s: %s", d->name,
                                                  floe_status_message(st));
            floe_status_free(st);
            return e;
        }
        if (nodes[k])
            return floe_session_error_at(call->s, nloc, FLOE_ERR_INVALID_ARGUMENT, "%s: duplicate argument %s",
                                         d->name, name);
        nodes[k] = floe_pg_get(na, "arg");
    }
    if (named && positional)
        return floe_session_error_at(call->s, call->location, FLOE_ERR_INVALID_ARGUMENT,
                                     "%s: named and positional arguments cannot be mixed", d->name);
    for (int32_t k = 0; k < d->n_params; k++) {
        call->args[k].location = -1;
        if (nodes[k]) FLOE_TRY(bind_value(call, &d->params[k], nodes[k], &call->args[k]));
    }
    /* Every missing required parameter, named (Spark: "Missing required
     * parameters: [table]"). */
    char missing[1024] = "";
    for (int32_t k = 0; k < d->n_params; k++)
        if (d->params[k].required && !call->args[k].given && !(table_given && !strcmp(d->params[k].name, "table")))
            append_word(missing, sizeof missing, d->params[k].name);
    floe_status st = NULL;
    if (missing[0])
        st = floe_session_error_at(call->s, call->location, FLOE_ERR_INVALID_ARGUMENT,
                                   "%s: missing required parameters: [%s]", d->name, missing);
    return st;
}

floe_status floe_sql_exec_call(floe_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink) {
    json_t *body = floe_pg_node_body(stmt->node);
    json_t *fc = floe_pg_as(floe_pg_get(body, "funccall"), "FuncCall");
    if (!fc) fc = floe_pg_get(body, "funccall");
    int32_t loc = (int32_t)floe_pg_get_int(fc, "location", stmt->location);
    const floe_proc_def *def = NULL;
    /* ALTER TABLE t EXECUTE p(...): Trino's table procedures, the table
     * from the statement (parse.h, FLOE_SQL_TABLE_EXECUTE). */
    const floe_sql_clause *exec = floe_sql_stmt_clause(stmt, FLOE_SQL_TABLE_EXECUTE, -1);
    if (exec) FLOE_TRY(find_table_procedure(s, floe_pg_get(fc, "funcname"), loc, &def));
    else FLOE_TRY(find_procedure(s, floe_pg_get(fc, "funcname"), loc, &def));
    if (def->n_params > MAX_PARAMS) return floe_error(FLOE_ERR_INTERNAL, "%s: too many parameters", def->name);
    floe_proc_call call;
    memset(&call, 0, sizeof(call));
    call.s = s;
    call.def = def;
    call.location = loc;
    call.args = floe_calloc((size_t)def->n_params + 1, sizeof(floe_proc_arg));
    if (!call.args) return oom();
    floe_status st = bind_args(&call, stmt, floe_pg_get(fc, "args"), exec != NULL);
    if (!st && exec) {
        floe_proc_arg *t = (floe_proc_arg *)floe_proc_get(&call, "table");
        if (t->given)
            st = floe_session_error_at(s, loc, FLOE_ERR_INVALID_ARGUMENT, "%s: the table is the ALTER TABLE's",
                                       def->name);
        else if (!(t->str = floe_strdup(exec->text))) st = oom();
        else t->given = true, t->location = exec->location;
    }
    if (!st) st = def->run(&call);
    if (!st) st = emit(&call, sink);
    for (int32_t k = 0; k < def->n_params; k++) arg_clear(&call.args[k], def->params[k].type);
    floe_free(call.args);
    for (int64_t i = 0; i < call.n_rows * def->n_columns; i++) floe_free(call.cells[i].str);
    floe_free(call.cells);
    return st;
}

/* ------------------------------------------------------------ helpers */

floe_status floe_proc_table_name(const floe_proc_call *call, const floe_proc_arg *arg, char *ns, size_t ns_cap,
                                 char *name, size_t name_cap) {
    const char *t = arg && arg->given ? arg->str : NULL;
    if (!t || !*t) return floe_proc_error(call, arg, FLOE_ERR_INVALID_ARGUMENT, "table name is empty");
    /* Up to three dot-separated parts; a part may be "quoted". */
    char parts[3][256];
    int32_t np = 0;
    const char *p = t;
    for (;;) {
        if (np == 3) return floe_proc_error(call, arg, FLOE_ERR_INVALID_ARGUMENT, "table name '%s' has more than 3 parts", t);
        size_t k = 0;
        if (*p == '"' || *p == '`') {
            char q = *p++;
            while (*p && *p != q && k < 255) parts[np][k++] = *p++;
            if (*p != q) return floe_proc_error(call, arg, FLOE_ERR_INVALID_ARGUMENT, "table name '%s': unclosed quote", t);
            p++;
        } else {
            while (*p && *p != '.' && k < 255) parts[np][k++] = *p++;
        }
        parts[np][k] = 0;
        if (k == 0) return floe_proc_error(call, arg, FLOE_ERR_INVALID_ARGUMENT, "table name '%s' has an empty part", t);
        np++;
        if (*p == 0) break;
        if (*p != '.') return floe_proc_error(call, arg, FLOE_ERR_INVALID_ARGUMENT, "table name '%s' does not parse", t);
        p++;
    }
    const char *cat = np == 3 ? parts[0] : NULL;
    const char *n_s = np >= 2 ? parts[np - 2] : DEFAULT_NAMESPACE;
    if (cat && strcmp(cat, CATALOG_NAME) != 0)
        return floe_proc_error(call, arg, FLOE_ERR_NOT_FOUND, "unknown catalog '%s' (the only catalog is '%s')", cat,
                               CATALOG_NAME);
    snprintf(ns, ns_cap, "%s", n_s);
    snprintf(name, name_cap, "%s", parts[np - 1]);
    return NULL;
}

floe_status floe_proc_commit(floe_proc_call *call, const char *ns, const char *name, floe_proc_edit_fn edit,
                             void *ctx) {
    return floe_proc_commit_then(call, ns, name, edit, NULL, ctx);
}

floe_status floe_proc_commit_then(floe_proc_call *call, const char *ns, const char *name, floe_proc_edit_fn edit,
                                  floe_proc_after_fn after, void *ctx) {
    floe_status st = NULL;
    floe_commit_retry retry = floe_catalog_retry_settings(NULL);
    int attempt = 0;
    for (;; attempt++) {
        if (attempt > 0) floe_catalog_retry_backoff(&retry, attempt);
        floe_ice_table *t = NULL;
        st = floe_catalog_load_table(call->s->catalog, ns, name, &t);
        if (st) {
            floe_status e = floe_proc_error(call, floe_proc_get(call, "table"), floe_status_code(st), "%s",
                                            floe_status_message(st));
            floe_status_free(st);
            return e;
        }
        retry = floe_catalog_retry_settings(t->md);
        floe_ice_table_metadata *md = NULL;
        st = edit(call, t, ctx, &md);
        if (!st && md) st = floe_catalog_commit(call->s->catalog, ns, name, t->metadata_location, md, NULL);
        if (!st && md && after) st = after(call, t, md, ctx);
        floe_ice_table_metadata_free(md);
        floe_ice_table_free(t);
        if (floe_status_code(st) != FLOE_ERR_CONFLICT || attempt >= retry.num_retries) break;
        floe_status_free(st);
        st = NULL;
    }
    if (floe_status_code(st) == FLOE_ERR_CONFLICT)
        st = floe_status_wrap(st, "%s on %s.%s: gave up after %d conflicting commits", call->def->name, ns, name,
                              attempt + 1);
    return st;
}

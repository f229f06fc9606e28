/*
 * scan_pushdown.c — filters into scans, without ever losing a row.
 *
 * An Iceberg scan prunes manifests and files with an Iceberg expression and
 * applies it again, row by row, as each task's residual.  A SQL conjunct
 * goes into that expression only in a form that every matching row
 * satisfies:
 *
 *   - comparisons of a column (or a value-preserving cast of one: int to
 *     bigint, date to timestamp) with a non-null literal, IS [NOT] NULL,
 *     IN lists of literals, LIKE 'prefix%' (after unescaping, only a pure
 *     prefix) and starts_with;
 *   - AND of translatable parts (an untranslatable part is dropped, which
 *     only weakens the filter), OR only when both sides translate;
 *   - NOT only over an EXACT translation: negating a weakened predicate
 *     would make it stronger (NOT (a AND f(b)) must not become NOT a).
 *
 * Iceberg predicates are two-valued (a null satisfies not_eq), SQL's are
 * three-valued, so `x <> 5` becomes not_null(x) and not_eq(x, 5), and a
 * negation is never called exact.  A conjunct whose translation is exact
 * leaves the FILTER (the scan applies it); everything else stays above the
 * scan.  Float comparisons are never called exact (NaN).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "floe/exec_scan.h"
#include "floe/iceberg_metadata_columns.h"
#include "sql/expr_util.h"
#include "sql/optimize_internal.h"

#define DAY_US INT64_C(86400000000)
#define DAY_NS (DAY_US * 1000)

/* Floor and ceiling division for the date/timestamp conversion. */
static int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
static int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

/* The literal's value as an Iceberg value (a view of the array's bytes). */
static bool literal_value(const floe_array *a, floe_ice_value *out) {
    if (floe_array_is_null(a, 0)) return false;
    switch (a->type->id) {
    case FLOE_TYPE_BOOL: *out = floe_ice_bool(floe_array_get_bool(a, 0)); return true;
    case FLOE_TYPE_INT32: *out = floe_ice_int(floe_array_get_int32(a, 0)); return true;
    case FLOE_TYPE_INT64: *out = floe_ice_long(floe_array_get_int64(a, 0)); return true;
    case FLOE_TYPE_FLOAT32: *out = floe_ice_float(floe_array_get_float(a, 0)); return true;
    case FLOE_TYPE_FLOAT64: *out = floe_ice_double(floe_array_get_double(a, 0)); return true;
    case FLOE_TYPE_DECIMAL128: {
        floe_decimal128 d = floe_array_get_decimal(a, 0);
        floe_int128 v = (floe_int128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
        *out = floe_ice_decimal(v, a->type->scale);
        return true;
    }
    case FLOE_TYPE_DATE32: *out = floe_ice_date(floe_array_get_int32(a, 0)); return true;
    case FLOE_TYPE_TIME64_US: *out = floe_ice_time(floe_array_get_int64(a, 0)); return true;
    case FLOE_TYPE_TIMESTAMP_US: *out = floe_ice_timestamp(floe_array_get_int64(a, 0)); return true;
    case FLOE_TYPE_TIMESTAMP_US_TZ: *out = floe_ice_timestamptz(floe_array_get_int64(a, 0)); return true;
    case FLOE_TYPE_TIMESTAMP_NS: *out = floe_ice_timestamp_ns(floe_array_get_int64(a, 0)); return true;
    case FLOE_TYPE_TIMESTAMP_NS_TZ: *out = floe_ice_timestamptz_ns(floe_array_get_int64(a, 0)); return true;
    case FLOE_TYPE_STRING: {
        floe_strview s = floe_array_get_str(a, 0);
        *out = floe_ice_string(s.data, (size_t)s.len);
        return true;
    }
    case FLOE_TYPE_BINARY: {
        floe_strview s = floe_array_get_str(a, 0);
        *out = floe_ice_binary((const uint8_t *)s.data, (size_t)s.len);
        return true;
    }
    case FLOE_TYPE_UUID: *out = floe_ice_uuid(floe_array_get_fixed(a, 0)); return true;
    default: return false;
    }
}

/* A struct field of a column as Iceberg names it ("st.a.b"):
 * struct_extract(struct_extract(#col, 'a'), 'b'), or the column itself.
 * *t is the field's type; *nested whether it is inside a struct. */
static bool field_path(const floe_expr *e, const floe_schema *s, int32_t *col, const floe_type **t, char *path,
                       size_t cap, bool *nested) {
    if (e->kind == FLOE_EXPR_COLUMN) {
        const floe_field *f = floe_schema_field(s, e->column);
        *col = e->column;
        *t = f->type;
        return (size_t)snprintf(path, cap, "%s", f->name) < cap;
    }
    if (e->kind != FLOE_EXPR_CALL || !e->func || strcmp(e->func, "struct_extract") || e->n_args != 2) return false;
    const floe_expr *k = e->args[1];
    if (k->kind != FLOE_EXPR_LITERAL || k->literal->type->id != FLOE_TYPE_STRING || floe_array_is_null(k->literal, 0))
        return false;
    if (!field_path(e->args[0], s, col, t, path, cap, nested) || (*t)->id != FLOE_TYPE_STRUCT) return false;
    floe_strview key = floe_array_get_str(k->literal, 0);
    const floe_type *st = *t;
    /* the field struct_extract picks: exact name, else ignoring case */
    for (int ci = 0; ci < 2; ci++)
        for (int32_t i = 0; i < st->n_children; i++) {
            const char *fn = st->children[i].name;
            if ((int32_t)strlen(fn) != key.len || strchr(fn, '.')) continue;
            if (ci ? strncasecmp(fn, key.data, (size_t)key.len) : memcmp(fn, key.data, (size_t)key.len)) continue;
            size_t used = strlen(path);
            if (used + 1 + strlen(fn) >= cap) return false;
            path[used] = '.';
            memcpy(path + used + 1, fn, strlen(fn) + 1);
            *t = st->children[i].type;
            *nested = true;
            return true;
        }
    return false;
}

/* A column reference (or a struct field of one, named by its path), or a
 * value-preserving cast of one.  *from is its type, *cast_to the cast's
 * (NULL: none); *nested is set for a struct field, whose NULLs also come
 * from NULL parents, so nothing on it is called exact. */
static bool column_of(const floe_expr *e, const floe_schema *s, int32_t *col, const floe_type **from,
                      const floe_type **cast_to, char *path, size_t cap, bool *nested) {
    *cast_to = NULL;
    *nested = false;
    if (e->kind == FLOE_EXPR_CAST) {
        const floe_expr *a = e->args[0];
        if (!field_path(a, s, col, from, path, cap, nested)) return false;
        floe_type_id f = (*from)->id, t = e->cast_type->id;
        bool ok = (f == FLOE_TYPE_INT32 && t == FLOE_TYPE_INT64) ||
                  (f == FLOE_TYPE_DATE32 && (t == FLOE_TYPE_TIMESTAMP_US || t == FLOE_TYPE_TIMESTAMP_NS));
        if (!ok) return false;
        *cast_to = e->cast_type;
        return true;
    }
    if (!field_path(e, s, col, from, path, cap, nested)) return false;
    return !floe_type_is_nested(*from);
}

static floe_ice_expr_op cmp_to_ice(int op) {
    switch (op) {
    case FLOE_CMP_EQ: return FLOE_ICE_EXPR_EQ;
    case FLOE_CMP_NE: return FLOE_ICE_EXPR_NOT_EQ;
    case FLOE_CMP_LT: return FLOE_ICE_EXPR_LT;
    case FLOE_CMP_LE: return FLOE_ICE_EXPR_LT_EQ;
    case FLOE_CMP_GT: return FLOE_ICE_EXPR_GT;
    default: return FLOE_ICE_EXPR_GT_EQ;
    }
}

static int flip_cmp(int op) {
    switch (op) {
    case FLOE_CMP_LT: return FLOE_CMP_GT;
    case FLOE_CMP_LE: return FLOE_CMP_GE;
    case FLOE_CMP_GT: return FLOE_CMP_LT;
    case FLOE_CMP_GE: return FLOE_CMP_LE;
    default: return op;
    }
}

static bool is_float(const floe_type *t) { return t->id == FLOE_TYPE_FLOAT32 || t->id == FLOE_TYPE_FLOAT64; }

/* date_col (cast to a timestamp) <op> ts  as  date_col <op'> day:
 * with d whole days and D the day length, d*D < ts  <=>  d < ceil(ts/D),
 * d*D <= ts <=> d <= floor(ts/D), d*D > ts <=> d > floor(ts/D),
 * d*D >= ts <=> d >= ceil(ts/D), d*D = ts <=> ts % D == 0 and d = ts/D. */
static floe_ice_expr *date_vs_timestamp(const char *name, int op, int64_t ts, int64_t unit) {
    int64_t fl = floor_div(ts, unit), ce = ceil_div(ts, unit);
    int64_t day;
    floe_ice_expr_op iop;
    switch (op) {
    case FLOE_CMP_LT: day = ce; iop = FLOE_ICE_EXPR_LT; break;
    case FLOE_CMP_LE: day = fl; iop = FLOE_ICE_EXPR_LT_EQ; break;
    case FLOE_CMP_GT: day = fl; iop = FLOE_ICE_EXPR_GT; break;
    case FLOE_CMP_GE: day = ce; iop = FLOE_ICE_EXPR_GT_EQ; break;
    case FLOE_CMP_EQ:
        if (fl != ce) return floe_ice_expr_false();
        day = fl;
        iop = FLOE_ICE_EXPR_EQ;
        break;
    default: return NULL; /* <> : let the general path weaken it */
    }
    if (day < INT32_MIN || day > INT32_MAX) {
        /* Beyond every date: the comparison is constant. */
        bool below = day < INT32_MIN;
        bool all = (iop == FLOE_ICE_EXPR_GT || iop == FLOE_ICE_EXPR_GT_EQ) ? below : !below;
        if (iop == FLOE_ICE_EXPR_EQ) all = false;
        return floe_ice_expr_and(floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NULL, name),
                                 all ? floe_ice_expr_true() : floe_ice_expr_false());
    }
    floe_ice_value v = floe_ice_date((int32_t)day);
    return floe_ice_expr_literal(iop, name, &v);
}

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "translating a filter for a scan"); }

static floe_status convert_cmp(const floe_expr *e, const floe_schema *s, floe_ice_expr **out, bool *exact) {
    const floe_expr *a = e->args[0], *b = e->args[1];
    int op = e->op;
    if (a->kind == FLOE_EXPR_LITERAL) {
        const floe_expr *t = a;
        a = b;
        b = t;
        op = flip_cmp(op);
    }
    int32_t col;
    const floe_type *from, *cast_to;
    char name[512];
    bool nested;
    if (b->kind != FLOE_EXPR_LITERAL || !column_of(a, s, &col, &from, &cast_to, name, sizeof name, &nested)) return NULL;
    floe_ice_value v;
    if (!literal_value(b->literal, &v)) return NULL; /* NULL literal: the SQL result is never TRUE */
    floe_ice_expr *r = NULL;
    if (cast_to && from->id == FLOE_TYPE_DATE32) {
        if (b->literal->type->id != cast_to->id) return NULL;
        int64_t unit = cast_to->id == FLOE_TYPE_TIMESTAMP_NS ? DAY_NS : DAY_US;
        r = date_vs_timestamp(name, op, v.v.i64, unit);
        if (!r) return NULL;
    } else if (op == FLOE_CMP_NE) {
        r = floe_ice_expr_and(floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NULL, name),
                              floe_ice_expr_literal(FLOE_ICE_EXPR_NOT_EQ, name, &v));
    } else {
        r = floe_ice_expr_literal(cmp_to_ice(op), name, &v);
    }
    if (!r) return oom();
    *out = r;
    *exact = !is_float(from) && !is_float(b->literal->type) && !nested;
    return NULL;
}

static floe_status convert_in(const floe_expr *e, const floe_schema *s, floe_ice_expr **out, bool *exact) {
    int32_t col;
    const floe_type *from, *cast_to;
    char name[512];
    bool nested;
    if (!column_of(e->args[0], s, &col, &from, &cast_to, name, sizeof name, &nested) || cast_to) return NULL;
    int32_t n = e->n_args - 1;
    floe_ice_value *vals = floe_calloc((size_t)(n ? n : 1), sizeof *vals);
    if (!vals) return oom();
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        const floe_expr *it = e->args[1 + i];
        if (it->kind != FLOE_EXPR_LITERAL) {
            floe_free(vals);
            return NULL;
        }
        /* A NULL item never makes IN true: x IN (1, NULL) is TRUE only
         * when x = 1. */
        if (literal_value(it->literal, &vals[k])) k++;
    }
    floe_ice_expr *r = k ? floe_ice_expr_set(FLOE_ICE_EXPR_IN, name, vals, k) : floe_ice_expr_false();
    floe_free(vals);
    if (!r) return oom();
    *out = r;
    *exact = !is_float(from) && !nested;
    return NULL;
}

static floe_status convert_call(const floe_expr *e, const floe_schema *s, floe_ice_expr **out, bool *exact) {
    if (!e->func || e->n_args < 2) return NULL;
    bool like = strcmp(e->func, "like") == 0, sw = strcmp(e->func, "starts_with") == 0;
    if (!like && !sw) return NULL;
    int32_t col;
    const floe_type *from, *cast_to;
    char name[512];
    bool nested;
    if (!column_of(e->args[0], s, &col, &from, &cast_to, name, sizeof name, &nested) || cast_to ||
        from->id != FLOE_TYPE_STRING)
        return NULL;
    const floe_expr *p = e->args[1];
    if (p->kind != FLOE_EXPR_LITERAL || p->literal->type->id != FLOE_TYPE_STRING || floe_array_is_null(p->literal, 0))
        return NULL;
    floe_strview pv = floe_array_get_str(p->literal, 0);
    char *pattern = floe_malloc((size_t)pv.len + 1);
    if (!pattern) return oom();
    memcpy(pattern, pv.data, (size_t)pv.len);
    pattern[pv.len] = 0;
    if (memchr(pv.data, 0, (size_t)pv.len)) { /* an embedded NUL: leave it alone */
        floe_free(pattern);
        return NULL;
    }
    char *prefix = NULL;
    if (like) {
        char esc = '\\';
        if (e->n_args >= 3) {
            const floe_expr *x = e->args[2];
            if (x->kind != FLOE_EXPR_LITERAL || x->literal->type->id != FLOE_TYPE_STRING ||
                floe_array_is_null(x->literal, 0)) {
                floe_free(pattern);
                return NULL;
            }
            floe_strview xs = floe_array_get_str(x->literal, 0);
            if (xs.len > 1) {
                floe_free(pattern);
                return NULL;
            }
            esc = xs.len ? xs.data[0] : 0;
        }
        if (!floe_like_pure_prefix(pattern, esc, &prefix)) {
            floe_free(pattern);
            return NULL;
        }
        floe_free(pattern);
    } else {
        prefix = pattern;
    }
    floe_ice_value v = floe_ice_string_z(prefix);
    floe_ice_expr *r = prefix[0] ? floe_ice_expr_literal(FLOE_ICE_EXPR_STARTS_WITH, name, &v)
                                 : floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NULL, name); /* LIKE '%' */
    floe_free(prefix);
    if (!r) return oom();
    *out = r;
    *exact = !nested;
    return NULL;
}

floe_status floe_sqlo_to_iceberg(const floe_expr *e, const floe_schema *s, floe_ice_expr **out, bool *exact) {
    *out = NULL;
    *exact = false;
    switch (e->kind) {
    case FLOE_EXPR_AND: {
        floe_ice_expr *l, *r;
        bool le, re;
        FLOE_TRY(floe_sqlo_to_iceberg(e->args[0], s, &l, &le));
        floe_status st = floe_sqlo_to_iceberg(e->args[1], s, &r, &re);
        if (st) {
            floe_ice_expr_free(l);
            return st;
        }
        if (l && r) {
            if (!(*out = floe_ice_expr_and(l, r))) return oom();
            *exact = le && re;
        } else {
            *out = l ? l : r; /* weaker: drops a conjunct */
            *exact = false;
        }
        return NULL;
    }
    case FLOE_EXPR_OR: {
        floe_ice_expr *l, *r;
        bool le, re;
        FLOE_TRY(floe_sqlo_to_iceberg(e->args[0], s, &l, &le));
        floe_status st = floe_sqlo_to_iceberg(e->args[1], s, &r, &re);
        if (st) {
            floe_ice_expr_free(l);
            return st;
        }
        if (!l || !r) { /* a row could match through the untranslated side */
            floe_ice_expr_free(l);
            floe_ice_expr_free(r);
            return NULL;
        }
        if (!(*out = floe_ice_expr_or(l, r))) return oom();
        *exact = le && re;
        return NULL;
    }
    case FLOE_EXPR_NOT: {
        floe_ice_expr *c;
        bool ce;
        FLOE_TRY(floe_sqlo_to_iceberg(e->args[0], s, &c, &ce));
        if (!c) return NULL;
        if (!ce) { /* never negate a weakened predicate */
            floe_ice_expr_free(c);
            return NULL;
        }
        /* not(P) holds where P is not TRUE: FALSE or UNKNOWN — a superset
         * of where NOT P is TRUE. */
        if (!(*out = floe_ice_expr_not(c))) return oom();
        *exact = false;
        return NULL;
    }
    case FLOE_EXPR_IS_NULL:
    case FLOE_EXPR_IS_NOT_NULL: {
        int32_t col;
        const floe_type *from, *cast_to;
        char name[512];
        bool nested;
        if (!column_of(e->args[0], s, &col, &from, &cast_to, name, sizeof name, &nested)) return NULL;
        floe_ice_expr *r = floe_ice_expr_unary(e->kind == FLOE_EXPR_IS_NULL ? FLOE_ICE_EXPR_IS_NULL
                                                                            : FLOE_ICE_EXPR_NOT_NULL,
                                               name);
        if (!r) return oom();
        *out = r;
        *exact = !nested;
        return NULL;
    }
    case FLOE_EXPR_CMP: return convert_cmp(e, s, out, exact);
    case FLOE_EXPR_IN: return convert_in(e, s, out, exact);
    case FLOE_EXPR_CALL: return convert_call(e, s, out, exact);
    default: return NULL;
    }
}

/* Does the name of scan column i resolve, in the schema the scan's filter
 * is bound to (the table's current one), to the same field?  Time travel
 * reads an older schema whose names may mean other fields today. */
static bool names_agree(const floe_lplan *scan, const floe_ice_schema *current) {
    for (int32_t i = 0; i < scan->n_field_ids; i++) {
        if (floe_ice_metadata_field(scan->field_ids[i])) continue; /* _file, _pos ...: never pushed (no field binds) */
        const char *name = floe_schema_field(scan->schema, i)->name;
        const floe_ice_field *f = floe_ice_schema_find_by_name(current, name, true);
        if (!f || f->id != scan->field_ids[i]) return false;
    }
    return true;
}

/* `_file = 'p'` or `_file IN ('p', ...)` on the scan's _file column: the
 * data files it may read (*paths floe_malloc'd copies; false when the
 * conjunct is not of that form).  The conjunct still stays in the FILTER:
 * the restriction only saves reading the other files. */
static bool file_restriction(const floe_expr *e, const floe_lplan *scan, char ***paths, int32_t *n, floe_status *st) {
    *st = NULL;
    const floe_expr *col = NULL;
    int32_t first = 0, n_items = 0;
    if (e->kind == FLOE_EXPR_IN && e->n_args >= 2) {
        col = e->args[0];
        first = 1;
        n_items = e->n_args - 1;
    } else if (e->kind == FLOE_EXPR_CMP && e->op == FLOE_CMP_EQ && e->n_args == 2) {
        col = e->args[0]->kind == FLOE_EXPR_COLUMN ? e->args[0] : e->args[1];
        first = col == e->args[0] ? 1 : 0;
        n_items = 1;
    } else {
        return false;
    }
    if (col->kind != FLOE_EXPR_COLUMN || col->column < 0 || col->column >= scan->n_field_ids ||
        scan->field_ids[col->column] != FLOE_ICE_MD_FILE_ID)
        return false;
    for (int32_t i = 0; i < n_items; i++) {
        const floe_expr *it = e->args[first + i];
        if (it->kind != FLOE_EXPR_LITERAL || it->literal->type->id != FLOE_TYPE_STRING) return false;
    }
    *paths = floe_calloc((size_t)n_items + 1, sizeof **paths);
    if (!*paths) {
        *st = oom();
        return false;
    }
    *n = 0;
    for (int32_t i = 0; i < n_items; i++) {
        const floe_array *lit = e->args[first + i]->literal;
        if (floe_array_is_null(lit, 0)) continue;
        floe_strview v = floe_array_get_str(lit, 0);
        if (!((*paths)[*n] = floe_strndup(v.data, (size_t)v.len))) {
            *st = oom();
            return false;
        }
        (*n)++;
    }
    return true;
}

/* Intersect the scan's file restriction with `paths` (consumed). */
static void restrict_files(floe_lplan *scan, char **paths, int32_t n) {
    if (!scan->only_files_set) {
        scan->only_files_set = true;
        scan->only_files = paths;
        scan->n_only_files = n;
        return;
    }
    int32_t k = 0;
    for (int32_t i = 0; i < scan->n_only_files; i++) {
        bool in = false;
        for (int32_t j = 0; j < n && !in; j++) in = strcmp(scan->only_files[i], paths[j]) == 0;
        if (in) scan->only_files[k++] = scan->only_files[i];
        else floe_free(scan->only_files[i]);
    }
    scan->n_only_files = k;
    for (int32_t j = 0; j < n; j++) floe_free(paths[j]);
    floe_free(paths);
}

static floe_status push_iceberg(floe_lplan *filter, floe_lplan *scan) {
    const floe_ice_schema *current = floe_ice_tm_current_schema(scan->table->md);
    if (!current || !names_agree(scan, current)) return NULL;
    floe_expr **parts = NULL, **keep = NULL;
    int32_t n = 0, cap = 0, nk = 0;
    FLOE_TRY(floe_sqlx_conjuncts(filter->predicate, &parts, &n, &cap));
    floe_status st = NULL;
    keep = floe_calloc((size_t)(n ? n : 1), sizeof *keep);
    if (!keep) st = oom();
    floe_ice_expr *pushed = scan->pushed; /* an earlier push (nested filters) */
    scan->pushed = NULL;
    bool all_exact = true;
    for (int32_t i = 0; !st && i < n; i++) {
        floe_ice_expr *ie = NULL, *bound = NULL;
        bool exact = false;
        char **paths = NULL;
        int32_t n_paths = 0;
        if (file_restriction(parts[i], scan, &paths, &n_paths, &st)) {
            /* Exact: the scan then yields only rows whose _file is listed. */
            restrict_files(scan, paths, n_paths);
            continue;
        }
        if (paths) {
            for (int32_t j = 0; j < n_paths; j++) floe_free(paths[j]);
            floe_free(paths);
        }
        if (st) break;
        if ((st = floe_sqlo_to_iceberg(parts[i], scan->schema, &ie, &exact))) break;
        if (ie) {
            /* Only what binds to the table goes in (a literal that does
             * not convert to the column's type stays in the FILTER). */
            floe_status b = floe_ice_expr_bind(ie, current, true, &bound);
            if (b) {
                floe_status_free(b);
                floe_ice_expr_free(ie);
                ie = NULL;
            }
            floe_ice_expr_free(bound);
        }
        if (ie) {
            pushed = pushed ? floe_ice_expr_and(pushed, ie) : ie;
            if (!pushed) st = oom();
        }
        if (!ie || !exact) {
            keep[nk++] = floe_expr_retain(parts[i]);
            all_exact = false;
        }
    }
    (void)all_exact;
    scan->pushed = pushed;
    if (!st) {
        floe_expr *np = NULL;
        st = floe_sqlx_and_all(keep, nk, &np);
        if (!st) {
            floe_expr_release(filter->predicate);
            filter->predicate = np; /* NULL: the whole filter went into the scan */
        }
    }
    floe_sqlx_free_list(parts, n);
    floe_sqlx_free_list(keep, nk);
    return st;
}

static floe_status push_parquet(floe_lplan *filter, floe_lplan *scan) {
    /* The scan skips row groups (and pages) its statistics rule out for
     * the parts of the predicate it understands; rows are still filtered
     * above. */
    floe_plan *np;
    const floe_schema *s = scan->schema;
    int32_t n = floe_schema_num_fields(s);
    int32_t *all = floe_calloc((size_t)(n ? n : 1), sizeof *all);
    if (!all) return oom();
    for (int32_t i = 0; i < n; i++) all[i] = i;
    floe_status st = floe_parquet_scan_project(scan->physical, all, n, filter->predicate, &np);
    floe_free(all);
    if (st) return st;
    floe_plan_release(scan->physical);
    scan->physical = np;
    return NULL;
}

floe_status floe_sqlo_push_into_scans(floe_lplan **slot) {
    floe_lplan *p = *slot;
    for (int32_t i = 0; i < p->n_inputs; i++) FLOE_TRY(floe_sqlo_push_into_scans(&p->inputs[i]));
    if (p->kind != FLOE_L_FILTER || !p->predicate) return NULL;
    floe_lplan *child = p->inputs[0];
    if (child->kind == FLOE_L_ICEBERG_SCAN) FLOE_TRY(push_iceberg(p, child));
    else if (child->kind == FLOE_L_PARQUET_SCAN) FLOE_TRY(push_parquet(p, child));
    if (!p->predicate) { /* nothing left to check above the scan */
        p->inputs[0] = NULL;
        p->n_inputs = 0;
        floe_lplan_free(p);
        *slot = child;
    }
    return NULL;
}

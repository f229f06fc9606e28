/*
 * bind_window.c — window functions in a SELECT: calls with OVER, named
 * windows (WINDOW w AS (...), OVER w, OVER (w ORDER BY ...)), frames,
 * and the logical WINDOW nodes they become (PostgreSQL 15 semantics).
 *
 * A window call in the select list or ORDER BY binds to an "extra"
 * column of the binding context (like an aggregate call, bind.h), whose
 * value the WINDOW node above the query's FROM / WHERE / GROUP BY /
 * HAVING computes.  Its arguments, PARTITION BY and ORDER BY are bound
 * over the same input as the rest of the select list, so in an
 * aggregating query they may contain aggregates (sum(sum(x)) OVER (),
 * rank() OVER (ORDER BY count(*))) and are rewritten over the aggregate's
 * output with everything else.  Calls with the same PARTITION BY and
 * ORDER BY share one WINDOW node (one sort); each further spec stacks
 * another node on top, whose input has the columns of the nodes below.
 *
 *   FROM → ... → [AGGREGATE → HAVING] → WINDOW(spec 1) → WINDOW(spec 2) →
 *   PROJECT(select list) → DISTINCT → ORDER BY → LIMIT
 *
 * QUALIFY <cond> (DuckDB): the parse pre-pass cuts it out of the text
 * (parse.h); bind_qualify binds the condition like a select-list item,
 * and the query filters on it above the WINDOW nodes.
 *
 * Frames: libpg_query gives WindowDef.frameOptions as PostgreSQL's
 * FRAMEOPTION_* bitmask (parsenodes.h) and the offsets as expressions.
 */
#include <pg_query.h>
#include <stdio.h>
#include <string.h>

#include "base/str.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_expr_internal.h"
#include "sql/bind_query_internal.h"
#include "sql/expr_util.h"
#include "sql/parse.h"
#include "sql/pgnode.h"

/* PostgreSQL 15 parsenodes.h */
enum {
    FO_NONDEFAULT = 0x00001,
    FO_RANGE = 0x00002,
    FO_ROWS = 0x00004,
    FO_GROUPS = 0x00008,
    FO_START_UNBOUNDED_PRECEDING = 0x00020,
    FO_END_UNBOUNDED_FOLLOWING = 0x00100,
    FO_START_CURRENT_ROW = 0x00200,
    FO_END_CURRENT_ROW = 0x00400,
    FO_START_OFFSET_PRECEDING = 0x00800,
    FO_END_OFFSET_PRECEDING = 0x01000,
    FO_START_OFFSET_FOLLOWING = 0x02000,
    FO_END_OFFSET_FOLLOWING = 0x04000,
    FO_EXCLUDE_CURRENT_ROW = 0x08000,
    FO_EXCLUDE_GROUP = 0x10000,
    FO_EXCLUDE_TIES = 0x20000,
};

/* One bound window call. */
typedef struct bwin_call {
    floe_window_call call; /* over the context's columns (FROM ++ extras) */
    int32_t n_part;
    floe_expr **part;
    int32_t n_order;
    floe_sort_key *order;
    int32_t extra;  /* its extra in the context */
    int32_t n_from; /* the context's n_from when bound */
    int32_t pos;    /* its column among all window results */
    int32_t node;   /* which WINDOW node (spec) computes it */
} bwin_call;

struct bind_windows {
    const json_t *clause; /* SelectStmt.windowClause */
    int32_t n, cap;
    bwin_call *calls;
};

static const struct {
    const char *name;
    floe_win_fn fn;
} k_win_fns[] = {
    {"row_number", FLOE_WIN_ROW_NUMBER},     {"rank", FLOE_WIN_RANK},           {"dense_rank", FLOE_WIN_DENSE_RANK},
    {"percent_rank", FLOE_WIN_PERCENT_RANK}, {"cume_dist", FLOE_WIN_CUME_DIST}, {"ntile", FLOE_WIN_NTILE},
    {"lag", FLOE_WIN_LAG},                   {"lead", FLOE_WIN_LEAD},           {"first_value", FLOE_WIN_FIRST_VALUE},
    {"last_value", FLOE_WIN_LAST_VALUE},     {"nth_value", FLOE_WIN_NTH_VALUE},
};

/* The aggregates window_agg.c computes with its own states, by SQL name;
 * every other aggregate of the registry (stddev, string_agg, array_agg,
 * ...) is FLOE_AGG_NAMED and computed by window_generic.c. */
static const struct {
    const char *name;
    floe_agg_fn fn;
} k_win_aggs[] = {
    {"count", FLOE_AGG_COUNT},     {"sum", FLOE_AGG_SUM},           {"min", FLOE_AGG_MIN},
    {"max", FLOE_AGG_MAX},         {"avg", FLOE_AGG_AVG},           {"bool_and", FLOE_AGG_BOOL_AND},
    {"bool_or", FLOE_AGG_BOOL_OR}, {"every", FLOE_AGG_BOOL_AND},
};

bool bind_is_window_fn(const char *name) {
    for (size_t i = 0; i < sizeof k_win_fns / sizeof k_win_fns[0]; i++)
        if (!strcmp(k_win_fns[i].name, name)) return true;
    return false;
}

static void wcall_clear(bwin_call *w) {
    floe_window_call_clear(&w->call);
    for (int32_t i = 0; w->part && i < w->n_part; i++) floe_expr_release(w->part[i]);
    floe_free(w->part);
    for (int32_t i = 0; w->order && i < w->n_order; i++) floe_expr_release(w->order[i].expr);
    floe_free(w->order);
    memset(w, 0, sizeof *w);
}

floe_status bind_windows_new(floe_session *s, const json_t *body, bind_windows **out) {
    *out = NULL;
    const json_t *clause = floe_pg_get(body, "windowClause");
    for (int32_t i = 0; i < floe_pg_list_len(clause); i++) {
        json_t *d = floe_pg_as(floe_pg_list_at(clause, i), "WindowDef");
        const char *n = floe_pg_get_str(d, "name");
        for (int32_t k = 0; n && k < i; k++) {
            const char *m = floe_pg_get_str(floe_pg_as(floe_pg_list_at(clause, k), "WindowDef"), "name");
            if (m && !strcmp(m, n))
                return bind_error(s, floe_pg_location(d), FLOE_ERR_INVALID_ARGUMENT, "window \"%s\" is already defined", n);
        }
    }
    *out = floe_calloc(1, sizeof **out);
    if (!*out) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    (*out)->clause = clause;
    return NULL;
}

void bind_windows_free(bind_windows *w) {
    if (!w) return;
    for (int32_t i = 0; i < w->n; i++) wcall_clear(&w->calls[i]);
    floe_free(w->calls);
    floe_free(w);
}

int32_t bind_windows_count(const bind_windows *w) { return w ? w->n : 0; }

/* ------------------------------------------------ resolving OVER (...) */

/* The parts of a window after named windows are resolved. */
typedef struct win_def {
    const json_t *part, *order; /* lists (may be NULL) */
    int64_t options;
    const json_t *start, *end;  /* offsets */
} win_def;

static const json_t *named_window(const bind_windows *w, const char *name) {
    for (int32_t i = 0; i < floe_pg_list_len(w->clause); i++) {
        json_t *d = floe_pg_as(floe_pg_list_at(w->clause, i), "WindowDef");
        const char *n = floe_pg_get_str(d, "name");
        if (n && !strcmp(n, name)) return d;
    }
    return NULL;
}

static floe_status resolve(bind_ectx *c, const bind_windows *w, const json_t *def, int depth, win_def *out) {
    int32_t loc = floe_pg_location(def);
    const char *ref = floe_pg_get_str(def, "refname");
    if (depth > 64) return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "window definitions refer to each other");
    memset(out, 0, sizeof *out);
    out->part = floe_pg_get(def, "partitionClause");
    out->order = floe_pg_get(def, "orderClause");
    out->options = floe_pg_get_int(def, "frameOptions", FO_RANGE | FO_START_UNBOUNDED_PRECEDING | FO_END_CURRENT_ROW);
    out->start = floe_pg_get(def, "startOffset");
    out->end = floe_pg_get(def, "endOffset");
    if (!ref) return NULL;
    const json_t *bd = named_window(w, ref);
    if (!bd) return bind_error(c->s, loc, FLOE_ERR_NOT_FOUND, "window \"%s\" does not exist", ref);
    win_def base;
    FLOE_TRY(resolve(c, w, bd, depth + 1, &base));
    if (floe_pg_list_len(out->part) > 0)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "cannot override PARTITION BY clause of window \"%s\"", ref);
    if (floe_pg_list_len(out->order) > 0 && floe_pg_list_len(base.order) > 0)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "cannot override ORDER BY clause of window \"%s\"", ref);
    if (base.options & FO_NONDEFAULT)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "cannot copy window \"%s\" because it has a frame clause", ref);
    out->part = base.part;
    if (floe_pg_list_len(out->order) == 0) out->order = base.order;
    return NULL;
}

/* OVER w (a name only) or OVER (...). */
static floe_status resolve_over(bind_ectx *c, const bind_windows *w, const json_t *over, win_def *out) {
    const char *name = floe_pg_get_str(over, "name");
    if (name && !floe_pg_get_str(over, "refname") && !floe_pg_get(over, "partitionClause") &&
        !floe_pg_get(over, "orderClause")) {
        const json_t *d = named_window(w, name);
        if (!d) return bind_error(c->s, floe_pg_location(over), FLOE_ERR_NOT_FOUND, "window \"%s\" does not exist", name);
        return resolve(c, w, d, 0, out);
    }
    return resolve(c, w, over, 0, out);
}

/* ------------------------------------------------------------ binding */

static floe_status bind_offset(bind_ectx *c, const json_t *node, const floe_window_frame *fr, const floe_type *key_type,
                               floe_expr **out) {
    int32_t loc = floe_pg_location(node);
    const char *mode = fr->mode == FLOE_FRAME_ROWS ? "ROWS" : fr->mode == FLOE_FRAME_RANGE ? "RANGE" : "GROUPS";
    floe_expr *e = NULL;
    FLOE_TRY(bind_expr(c, node, &e));
    if (bind_expr_has_columns(e)) {
        floe_expr_release(e);
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "argument of %s must not contain variables", mode);
    }
    floe_type *want = NULL;
    floe_status st = NULL;
    if (fr->mode != FLOE_FRAME_RANGE || !key_type) want = floe_type_primitive(FLOE_TYPE_INT64);
    else if (key_type->id == FLOE_TYPE_INT32 || key_type->id == FLOE_TYPE_INT64) want = floe_type_primitive(FLOE_TYPE_INT64);
    else if (key_type->id == FLOE_TYPE_FLOAT32 || key_type->id == FLOE_TYPE_FLOAT64) want = floe_type_primitive(FLOE_TYPE_FLOAT64);
    else if (key_type->id == FLOE_TYPE_DECIMAL128) st = floe_type_decimal(38, key_type->scale, &want);
    else if (key_type->id == FLOE_TYPE_DATE32 || key_type->id == FLOE_TYPE_TIMESTAMP_US ||
             key_type->id == FLOE_TYPE_TIMESTAMP_US_TZ || key_type->id == FLOE_TYPE_TIMESTAMP_NS ||
             key_type->id == FLOE_TYPE_TIMESTAMP_NS_TZ) {
        /* dates and timestamps move by an interval, as PostgreSQL */
        floe_type *et = NULL;
        st = bind_type_of(c, e, &et);
        if (!st && et->id != FLOE_TYPE_INTERVAL && !bind_is_string_literal(e) && et->id != FLOE_TYPE_NULL)
            st = bind_error(c->s, loc, FLOE_ERR_TYPE,
                            "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset "
                            "type %s",
                            floe_type_id_name(key_type->id), floe_type_id_name(et->id));
        floe_type_release(et);
        want = floe_type_primitive(FLOE_TYPE_INTERVAL);
    } else
        st = bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED,
                        "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s",
                        floe_type_id_name(key_type->id));
    if (!st) st = bind_coerce(c, e, want, loc, out);
    if (want && want->id == FLOE_TYPE_DECIMAL128) floe_type_release(want);
    floe_expr_release(e);
    return st;
}

static floe_status bind_frame(bind_ectx *c, const win_def *d, const floe_sort_key *order, int32_t n_order,
                              int32_t loc, floe_window_frame *fr) {
    int64_t o = d->options;
    memset(fr, 0, sizeof *fr);
    fr->mode = (o & FO_ROWS) ? FLOE_FRAME_ROWS : (o & FO_GROUPS) ? FLOE_FRAME_GROUPS : FLOE_FRAME_RANGE;
    fr->start = (o & FO_START_UNBOUNDED_PRECEDING) ? FLOE_BOUND_UNBOUNDED_PRECEDING
                : (o & FO_START_CURRENT_ROW)       ? FLOE_BOUND_CURRENT_ROW
                : (o & FO_START_OFFSET_PRECEDING)  ? FLOE_BOUND_PRECEDING
                : (o & FO_START_OFFSET_FOLLOWING)  ? FLOE_BOUND_FOLLOWING
                                                   : FLOE_BOUND_UNBOUNDED_PRECEDING;
    fr->end = (o & FO_END_UNBOUNDED_FOLLOWING) ? FLOE_BOUND_UNBOUNDED_FOLLOWING
              : (o & FO_END_OFFSET_PRECEDING)  ? FLOE_BOUND_PRECEDING
              : (o & FO_END_OFFSET_FOLLOWING)  ? FLOE_BOUND_FOLLOWING
                                               : FLOE_BOUND_CURRENT_ROW;
    fr->exclude = (o & FO_EXCLUDE_CURRENT_ROW) ? FLOE_EXCLUDE_CURRENT_ROW
                  : (o & FO_EXCLUDE_GROUP)     ? FLOE_EXCLUDE_GROUP
                  : (o & FO_EXCLUDE_TIES)      ? FLOE_EXCLUDE_TIES
                                               : FLOE_EXCLUDE_NO_OTHERS;
    bool offsets = fr->start == FLOE_BOUND_PRECEDING || fr->start == FLOE_BOUND_FOLLOWING ||
                   fr->end == FLOE_BOUND_PRECEDING || fr->end == FLOE_BOUND_FOLLOWING;
    if (fr->mode == FLOE_FRAME_GROUPS && n_order == 0)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "GROUPS mode requires an ORDER BY clause");
    floe_type *kt = NULL;
    if (fr->mode == FLOE_FRAME_RANGE && offsets) {
        if (n_order != 1)
            return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT,
                              "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column");
        FLOE_TRY(bind_type_of(c, order[0].expr, &kt));
    }
    floe_status st = NULL;
    if (fr->start == FLOE_BOUND_PRECEDING || fr->start == FLOE_BOUND_FOLLOWING)
        st = bind_offset(c, d->start, fr, kt, &fr->start_offset);
    if (!st && (fr->end == FLOE_BOUND_PRECEDING || fr->end == FLOE_BOUND_FOLLOWING))
        st = bind_offset(c, d->end, fr, kt, &fr->end_offset);
    floe_type_release(kt);
    if (st) {
        floe_expr_release(fr->start_offset);
        floe_expr_release(fr->end_offset);
        fr->start_offset = fr->end_offset = NULL;
    }
    return st;
}

/* Coerce args[i] to `t` (NULL: the type of args[0]). */
static floe_status coerce_arg(bind_ectx *c, floe_expr **arg, const floe_type *t, int32_t loc) {
    floe_expr *n = NULL;
    floe_type *at = NULL;
    FLOE_TRY(bind_type_of(c, *arg, &at));
    bool null = at->id == FLOE_TYPE_NULL && t->id != FLOE_TYPE_NULL;
    floe_type_release(at);
    if (null) FLOE_TRY(floe_expr_lit_null((floe_type *)t, &n)); /* an untyped NULL takes the type */
    else FLOE_TRY(bind_coerce(c, *arg, t, loc, &n));
    floe_expr_release(*arg);
    *arg = n;
    return NULL;
}

/* IGNORE NULLS / RESPECT NULLS on the call at `loc` (the parse pre-pass
 * cut the words out, parse.h): *ignore says which.  Only the value
 * functions take them, as in DuckDB. */
floe_status bind_null_treatment(bind_ectx *c, int32_t loc, const char *name, bool *ignore) {
    *ignore = false;
    const floe_sql_stmt *stmt = c->s ? c->s->stmt : NULL;
    const floe_sql_clause *q = stmt && loc >= 0 ? floe_sql_stmt_clause(stmt, FLOE_SQL_NULL_TREATMENT, loc) : NULL;
    if (!q) return NULL;
    static const char *const ok[] = {"lag", "lead", "first_value", "last_value", "nth_value"};
    bool fits = false;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) fits = fits || !strcmp(ok[i], name);
    if (!fits)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT,
                          "%s NULLS is only allowed for lag, lead, first_value, last_value and nth_value, not %s",
                          !strcmp(q->text, "ignore") ? "IGNORE" : "RESPECT", name);
    *ignore = !strcmp(q->text, "ignore");
    return NULL;
}

floe_status bind_window_call(bind_ectx *c, const json_t *fc, const char *name, floe_expr **out) {
    *out = NULL;
    int32_t loc = (int32_t)floe_pg_get_int(fc, "location", -1);
    const json_t *over = floe_pg_get(fc, "over");
    int win = -1, agg = -1;
    for (size_t i = 0; i < sizeof k_win_fns / sizeof k_win_fns[0]; i++)
        if (!strcmp(k_win_fns[i].name, name)) win = (int)i;
    for (size_t i = 0; i < sizeof k_win_aggs / sizeof k_win_aggs[0]; i++)
        if (!strcmp(k_win_aggs[i].name, name)) agg = (int)i;
    /* any other aggregate of the registry */
    floe_agg_desc reg;
    bool named = win < 0 && agg < 0 && floe_agg_describe(name, &reg) && reg.fn == FLOE_AGG_NAMED;
    if (!over)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "window function %s requires an OVER clause", name);
    if (win < 0 && agg < 0 && !named)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT,
                          "OVER specified, but %s is not a window function nor an aggregate function", name);
    if (named && (reg.within_group || floe_pg_get_bool(fc, "agg_within_group")))
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "OVER is not supported for ordered-set aggregate %s", name);
    bool ignore_nulls = false;
    FLOE_TRY(bind_null_treatment(c, loc, name, &ignore_nulls));
    if (c->in_agg_arg)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "aggregate function calls cannot contain window function calls");
    if (c->in_window_arg)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "window function calls cannot be nested");
    if (!c->windows)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "window functions are not allowed in %s",
                          c->clause ? c->clause : "this clause");
    if (floe_pg_get_bool(fc, "agg_distinct"))
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "DISTINCT is not implemented for window functions");
    const json_t *filter = floe_pg_get(fc, "agg_filter");
    if (filter && agg < 0 && !named)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "FILTER is not implemented for non-aggregate window functions");
    if (floe_pg_get(fc, "agg_order"))
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "aggregate ORDER BY is not implemented for window functions");
    bool star = floe_pg_get_bool(fc, "agg_star");
    if (star && (win >= 0 || named || k_win_aggs[agg].fn != FLOE_AGG_COUNT))
        return bind_error(c->s, loc, FLOE_ERR_SYNTAX, "%s(*) is not allowed", name);
    bind_windows *ws = c->windows;
    win_def d;
    FLOE_TRY(resolve_over(c, ws, over, &d));

    bwin_call w;
    memset(&w, 0, sizeof w);
    w.call.fn = win >= 0 ? k_win_fns[win].fn : FLOE_WIN_AGG;
    w.call.agg = agg >= 0 ? k_win_aggs[agg].fn : named ? FLOE_AGG_NAMED : FLOE_AGG_COUNT_STAR;
    if (star) w.call.agg = FLOE_AGG_COUNT_STAR;
    w.call.ignore_nulls = ignore_nulls;
    if (named && !(w.call.func = floe_strdup(reg.name))) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    json_t *args = floe_pg_get(fc, "args");
    int32_t na = floe_pg_list_len(args);
    floe_status st = NULL;
    int32_t lo = 0, hi = 0;
    switch (w.call.fn) {
    case FLOE_WIN_NTILE: lo = hi = 1; break;
    case FLOE_WIN_LAG:
    case FLOE_WIN_LEAD: lo = 1, hi = 3; break;
    case FLOE_WIN_FIRST_VALUE:
    case FLOE_WIN_LAST_VALUE: lo = hi = 1; break;
    case FLOE_WIN_NTH_VALUE: lo = hi = 2; break;
    case FLOE_WIN_AGG:
        lo = hi = star ? 0 : 1;
        if (named) lo = reg.min_args, hi = reg.max_args;
        break;
    default: break;
    }
    if (na < lo || na > hi) {
        wcall_clear(&w);
        return bind_error(c->s, loc, FLOE_ERR_NOT_FOUND, "function %s with %d argument%s does not exist", name, (int)na,
                          na == 1 ? "" : "s");
    }
    c->in_window_arg = true;
    for (int32_t i = 0; i < na && !st; i++) {
        json_t *a = floe_pg_list_at(args, i);
        if (floe_pg_as(a, "NamedArgExpr"))
            st = bind_error(c->s, floe_pg_location(a), FLOE_ERR_UNSUPPORTED, "named arguments are not supported for %s", name);
        else st = bind_expr(c, a, &w.call.args[i]);
        if (!st) w.call.n_args = i + 1;
    }
    /* sum / avg of an interval: the registry's interval entries, as in a GROUP BY */
    if (!st && w.call.fn == FLOE_WIN_AGG && na == 1 && (w.call.agg == FLOE_AGG_SUM || w.call.agg == FLOE_AGG_AVG)) {
        floe_type *at = NULL;
        st = bind_type_of(c, w.call.args[0], &at);
        if (!st && at->id == FLOE_TYPE_INTERVAL) {
            w.call.func = floe_strdup(w.call.agg == FLOE_AGG_SUM ? "interval_sum" : "interval_avg");
            w.call.agg = FLOE_AGG_NAMED;
            if (!w.call.func) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        }
        floe_type_release(at);
    }
    /* Argument types: counts and offsets are bigint, a default the value's type. */
    if (!st && w.call.fn == FLOE_WIN_NTILE) st = coerce_arg(c, &w.call.args[0], floe_type_primitive(FLOE_TYPE_INT64), loc);
    if (!st && (w.call.fn == FLOE_WIN_LAG || w.call.fn == FLOE_WIN_LEAD || w.call.fn == FLOE_WIN_NTH_VALUE) && na >= 2)
        st = coerce_arg(c, &w.call.args[1], floe_type_primitive(FLOE_TYPE_INT64), loc);
    if (!st && na == 3) {
        /* lag(x, n, default): x and the default in their common type (as
         * PostgreSQL's anycompatible: lag(int, 1, 2.5) is numeric) */
        floe_expr *v[2] = {w.call.args[0], w.call.args[2]};
        st = bind_unify_list(c, v, 2, loc);
        w.call.args[0] = v[0];
        w.call.args[2] = v[1];
        floe_type *t0 = NULL, *t2 = NULL;
        if (!st) st = bind_type_of(c, w.call.args[0], &t0);
        if (!st) st = bind_type_of(c, w.call.args[2], &t2);
        if (!st && t0->id == FLOE_TYPE_NULL && t2->id != FLOE_TYPE_NULL) st = coerce_arg(c, &w.call.args[0], t2, loc);
        else if (!st && t2->id == FLOE_TYPE_NULL && t0->id != FLOE_TYPE_NULL) st = coerce_arg(c, &w.call.args[2], t0, loc);
        floe_type_release(t0);
        floe_type_release(t2);
    }
    /* agg(x) FILTER (WHERE p): agg(CASE WHEN p THEN x END) — every window
     * aggregate skips NULLs; count(*) counts CASE WHEN p THEN 1 END. */
    if (!st && filter && named) {
        /* a registry aggregate leaves the rows out (array_agg keeps NULLs) */
        floe_type *ft = NULL;
        st = bind_predicate(c, filter, &w.call.filter);
        if (!st) st = bind_type_of(c, w.call.filter, &ft);
        if (!st && ft->id != FLOE_TYPE_BOOL && ft->id != FLOE_TYPE_NULL)
            st = bind_error(c->s, loc, FLOE_ERR_TYPE, "argument of FILTER must be type boolean, not type %s",
                            floe_type_id_name(ft->id));
        floe_type_release(ft);
    } else if (!st && filter) {
        floe_expr *p = NULL, *val = NULL, *cs = NULL, *nul = NULL;
        floe_type *vt = NULL;
        st = bind_predicate(c, filter, &p);
        if (!st && w.call.agg == FLOE_AGG_COUNT_STAR) st = floe_expr_lit_int32(1, &val);
        else if (!st) val = floe_expr_retain(w.call.args[0]);
        if (!st) st = bind_type_of(c, val, &vt);
        if (!st) st = floe_expr_lit_null(vt, &nul);
        if (!st) st = floe_expr_case(&p, &val, 1, nul, &cs);
        if (!st) {
            floe_expr_release(w.call.args[0]);
            w.call.args[0] = cs;
            w.call.n_args = 1;
            if (w.call.agg == FLOE_AGG_COUNT_STAR) w.call.agg = FLOE_AGG_COUNT;
        }
        floe_type_release(vt);
        floe_expr_release(p);
        floe_expr_release(val);
        floe_expr_release(nul);
    }
    /* PARTITION BY and ORDER BY */
    int32_t np = floe_pg_list_len(d.part), no = floe_pg_list_len(d.order);
    if (!st) {
        w.part = floe_calloc((size_t)np + 1, sizeof *w.part);
        w.order = floe_calloc((size_t)no + 1, sizeof *w.order);
        if (!w.part || !w.order) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    for (int32_t i = 0; i < np && !st; i++) {
        st = bind_expr(c, floe_pg_list_at(d.part, i), &w.part[i]);
        if (!st) w.n_part = i + 1;
    }
    for (int32_t i = 0; i < no && !st; i++) {
        json_t *sb = floe_pg_as(floe_pg_list_at(d.order, i), "SortBy");
        floe_expr *e = NULL;
        st = bind_expr(c, floe_pg_get(sb, "node"), &e);
        if (!st) st = bind_at(c->s, floe_pg_location(sb), bind_sort_key_of(sb, e, &w.order[i]));
        if (!st) w.n_order = i + 1;
        else floe_expr_release(e);
    }
    if (!st) st = bind_frame(c, &d, w.order, w.n_order, floe_pg_location(over), &w.call.frame);
    c->in_window_arg = false;
    char nm[96];
    snprintf(nm, sizeof nm, "%s_w%d", name, (int)ws->n);
    if (!st && !(w.call.name = floe_strdup(nm))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    bind_extra x;
    memset(&x, 0, sizeof x);
    if (!st) st = bind_at(c->s, loc, floe_window_result_type(&w.call, c->schema, &x.type));
    if (!st && ws->n == ws->cap) {
        int32_t cap = ws->cap ? ws->cap * 2 : 4;
        bwin_call *nc = floe_realloc(ws->calls, (size_t)cap * sizeof *nc);
        if (!nc) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        else {
            ws->calls = nc;
            ws->cap = cap;
        }
    }
    int32_t idx = -1;
    x.is_window = true;
    x.window = ws->n;
    if (!st) st = bind_add_extra(c, &x, &idx);
    if (st) {
        floe_type_release(x.type);
        wcall_clear(&w);
        return st;
    }
    w.extra = idx - c->n_from;
    w.n_from = c->n_from;
    w.pos = -1;
    ws->calls[ws->n++] = w;
    return floe_expr_column(idx, out);
}

/* ----------------------------------------------------------- planning */

static bool same_spec(const bwin_call *a, const bwin_call *b) {
    if (a->n_part != b->n_part || a->n_order != b->n_order) return false;
    for (int32_t i = 0; i < a->n_part; i++)
        if (!bind_expr_equal(a->part[i], b->part[i])) return false;
    for (int32_t i = 0; i < a->n_order; i++)
        if (a->order[i].descending != b->order[i].descending || a->order[i].nulls_first != b->order[i].nulls_first ||
            !bind_expr_equal(a->order[i].expr, b->order[i].expr))
            return false;
    return true;
}

/* Group the calls by spec (first appearance first) and number their
 * result columns in node order. */
static int32_t assign_positions(bind_windows *w) {
    int32_t nodes = 0, pos = 0;
    for (int32_t i = 0; i < w->n; i++) w->calls[i].node = -1;
    for (int32_t i = 0; i < w->n; i++) {
        if (w->calls[i].node >= 0) continue;
        for (int32_t j = i; j < w->n; j++)
            if (w->calls[j].node < 0 && same_spec(&w->calls[i], &w->calls[j])) {
                w->calls[j].node = nodes;
                w->calls[j].pos = pos++;
            }
        nodes++;
    }
    return nodes;
}

void bind_windows_place(bind_ectx *c, bind_windows *w, int32_t base, int32_t *extra_col) {
    assign_positions(w);
    for (int32_t i = 0; i < w->n; i++) extra_col[w->calls[i].extra] = base + w->calls[i].pos;
    (void)c;
}

static floe_status rewrite(bind_ectx *c, floe_expr **e, floe_expr *const *groups, int32_t ng, const int32_t *extra_col) {
    if (!*e) return NULL;
    floe_expr *r = NULL;
    FLOE_TRY(bind_rewrite_over_agg(c, *e, groups, ng, extra_col, NULL, &r));
    floe_expr_release(*e);
    *e = r;
    return NULL;
}

floe_status bind_windows_build(bind_ectx *c, bind_windows *w, floe_lplan **plan, floe_expr *const *groups, int32_t ng,
                               const int32_t *extra_col) {
    if (!w || w->n == 0) return NULL;
    int32_t nodes = assign_positions(w);
    floe_status st = NULL;
    if (!extra_col)
        for (int32_t i = 0; i < w->n; i++)
            if (w->calls[i].n_from != c->n_from)
                return bind_error(c->s, -1, FLOE_ERR_UNSUPPORTED,
                                  "a scalar subquery after a window function in the select list is not supported");
    /* Over an aggregate: everything is rewritten over its output. */
    for (int32_t i = 0; extra_col && i < w->n && !st; i++) {
        bwin_call *x = &w->calls[i];
        for (int k = 0; k < x->call.n_args && !st; k++) st = rewrite(c, &x->call.args[k], groups, ng, extra_col);
        if (!st) st = rewrite(c, &x->call.filter, groups, ng, extra_col);
        for (int32_t k = 0; k < x->n_part && !st; k++) st = rewrite(c, &x->part[k], groups, ng, extra_col);
        for (int32_t k = 0; k < x->n_order && !st; k++) st = rewrite(c, &x->order[k].expr, groups, ng, extra_col);
    }
    for (int32_t nd = 0; nd < nodes && !st; nd++) {
        int32_t first = -1, nc = 0;
        for (int32_t i = 0; i < w->n; i++)
            if (w->calls[i].node == nd) {
                if (first < 0) first = i;
                nc++;
            }
        const bwin_call *f0 = &w->calls[first];
        const floe_schema *in = (*plan)->schema;
        int32_t nin = floe_schema_num_fields(in);
        floe_field *f = floe_calloc((size_t)(nin + nc), sizeof *f);
        floe_window_call *calls = floe_calloc((size_t)nc, sizeof *calls);
        floe_schema *schema = NULL;
        int32_t nf = 0, k = 0;
        if (!f || !calls) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < nin && !st; i++) st = floe_field_copy(&f[nf++], floe_schema_field(in, i));
        for (int32_t i = 0; i < w->n && !st; i++) {
            bwin_call *x = &w->calls[i];
            if (x->node != nd) continue;
            floe_type *t = NULL;
            st = floe_window_result_type(&x->call, in, &t);
            floe_win_fn fn = x->call.fn;
            bool never_null = fn == FLOE_WIN_ROW_NUMBER || fn == FLOE_WIN_RANK || fn == FLOE_WIN_DENSE_RANK ||
                              fn == FLOE_WIN_PERCENT_RANK || fn == FLOE_WIN_CUME_DIST ||
                              (fn == FLOE_WIN_AGG && (x->call.agg == FLOE_AGG_COUNT || x->call.agg == FLOE_AGG_COUNT_STAR));
            if (!st) st = floe_field_init(&f[nf++], x->call.name, t, !never_null, -1);
            floe_type_release(t);
            calls[k] = x->call; /* moved into the node */
            memset(&x->call, 0, sizeof x->call);
            k++;
        }
        if (!st) st = floe_type_struct(f, nf, &schema);
        for (int32_t i = 0; f && i < nf; i++) floe_field_clear(&f[i]);
        floe_free(f);
        floe_lplan *wp = NULL;
        if (!st) {
            floe_lplan *inputs[1] = {*plan};
            st = floe_lplan_new(FLOE_L_WINDOW, schema, inputs, 1, &wp);
            *plan = wp; /* on failure the input is freed with it */
        }
        floe_type_release(schema);
        if (!st) {
            wp->wcalls = calls;
            wp->n_wcalls = k;
            calls = NULL;
            wp->wpart = floe_calloc((size_t)f0->n_part + 1, sizeof *wp->wpart);
            wp->worder = floe_calloc((size_t)f0->n_order + 1, sizeof *wp->worder);
            if (!wp->wpart || !wp->worder) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
            for (int32_t i = 0; !st && i < f0->n_part; i++) wp->wpart[wp->n_wpart++] = floe_expr_retain(f0->part[i]);
            for (int32_t i = 0; !st && i < f0->n_order; i++) {
                wp->worder[i] = f0->order[i];
                wp->worder[i].expr = floe_expr_retain(f0->order[i].expr);
                wp->n_worder = i + 1;
            }
        }
        if (calls) {
            for (int32_t i = 0; i < k; i++) floe_window_call_clear(&calls[i]);
            floe_free(calls);
        }
    }
    return st;
}

floe_status bind_windows_remap(bind_ectx *c, const bind_windows *w, int32_t base, floe_expr **es, int32_t n) {
    if (!w || w->n == 0) return NULL;
    int32_t total = c->n_from + c->n_extras;
    int32_t *map = floe_calloc((size_t)total + 1, sizeof *map);
    if (!map) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < total; i++) map[i] = i < c->n_from ? i : -1;
    for (int32_t i = 0; i < w->n; i++) map[c->n_from + w->calls[i].extra] = base + w->calls[i].pos;
    floe_status st = NULL;
    for (int32_t i = 0; i < n && !st; i++) {
        floe_expr *r = NULL;
        st = floe_sqlx_remap(es[i], map, &r);
        if (!st) {
            floe_expr_release(es[i]);
            es[i] = r;
        }
    }
    floe_free(map);
    return st;
}

/* ------------------------------------------------------------ QUALIFY */

floe_status bind_qualify(bind_ectx *c, const json_t *body, floe_expr **out) {
    *out = NULL;
    const floe_sql_stmt *stmt = c->s ? c->s->stmt : NULL;
    json_t *tl = floe_pg_get(body, "targetList");
    if (!stmt || floe_pg_list_len(tl) == 0) return NULL;
    json_t *rt = floe_pg_as(floe_pg_list_at(tl, 0), "ResTarget");
    int32_t loc = (int32_t)floe_pg_get_int(rt, "location", -1);
    const floe_sql_clause *q = loc >= 0 ? floe_sql_stmt_clause(stmt, FLOE_SQL_QUALIFY, loc) : NULL;
    if (!q) return NULL;
    /* The clause text is "SELECT <cond>" with the condition at its offset
     * in the script, so locations in errors stay true. */
    PgQueryParseResult r = pg_query_parse(q->text);
    if (r.error) {
        int32_t at = r.error->cursorpos > 0 ? r.error->cursorpos - 1 : loc;
        floe_status st = bind_error(c->s, at, FLOE_ERR_SYNTAX, "QUALIFY: %s", r.error->message ? r.error->message : "syntax error");
        pg_query_free_parse_result(r);
        return st;
    }
    json_error_t jerr;
    json_t *root = json_loads(r.parse_tree, 0, &jerr);
    pg_query_free_parse_result(r);
    if (!root) return floe_error(FLOE_ERR_INTERNAL, "QUALIFY: unreadable parse tree: %s", jerr.text);
    json_t *sel = floe_pg_as(json_object_get(json_array_get(json_object_get(root, "stmts"), 0), "stmt"), "SelectStmt");
    json_t *qt = floe_pg_get(sel, "targetList");
    floe_status st = NULL;
    if (floe_pg_list_len(qt) != 1)
        st = bind_error(c->s, loc, FLOE_ERR_SYNTAX, "QUALIFY: one condition expected");
    else {
        const char *saved = c->clause;
        c->clause = "QUALIFY";
        st = bind_predicate(c, floe_pg_get(floe_pg_as(floe_pg_list_at(qt, 0), "ResTarget"), "val"), out);
        c->clause = saved;
    }
    json_decref(root);
    return st;
}

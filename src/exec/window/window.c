/*
 * window.c — the Window node (exec_ops.h): window functions over the rows
 * of each window partition, PostgreSQL 15 semantics.  Here the node
 * itself: constructor and checks, result types, codec and EXPLAIN.  The
 * node holds only its parts; execution (window_stream.c) keeps all its
 * state in the stream.  window_internal.h lists the other files.
 */
#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "exec/plan_internal.h"
#include "exec/sort/sort_keys.h"
#include "exec/window/window_internal.h"

const char *floe_win_fn_name(floe_win_fn fn) {
    switch (fn) {
    case FLOE_WIN_ROW_NUMBER: return "row_number";
    case FLOE_WIN_RANK: return "rank";
    case FLOE_WIN_DENSE_RANK: return "dense_rank";
    case FLOE_WIN_PERCENT_RANK: return "percent_rank";
    case FLOE_WIN_CUME_DIST: return "cume_dist";
    case FLOE_WIN_NTILE: return "ntile";
    case FLOE_WIN_LAG: return "lag";
    case FLOE_WIN_LEAD: return "lead";
    case FLOE_WIN_FIRST_VALUE: return "first_value";
    case FLOE_WIN_LAST_VALUE: return "last_value";
    case FLOE_WIN_NTH_VALUE: return "nth_value";
    case FLOE_WIN_AGG: return "aggregate";
    default: return "?";
    }
}

/* Dates and timestamps: RANGE offsets are intervals (window_stream.c). */
static bool is_datetime_key(floe_type_id id) {
    return id == FLOE_TYPE_DATE32 || id == FLOE_TYPE_TIMESTAMP_US || id == FLOE_TYPE_TIMESTAMP_US_TZ ||
           id == FLOE_TYPE_TIMESTAMP_NS || id == FLOE_TYPE_TIMESTAMP_NS_TZ;
}

static const char *call_name(const floe_window_call *c) {
    if (c->fn == FLOE_WIN_AGG && c->agg == FLOE_AGG_NAMED) return c->func ? c->func : "?";
    return c->fn == FLOE_WIN_AGG ? floe_agg_fn_name(c->agg) : floe_win_fn_name(c->fn);
}

/* The argument count each function takes: [lo, hi]. */
static void arity(const floe_window_call *c, int32_t *lo, int32_t *hi) {
    switch (c->fn) {
    case FLOE_WIN_NTILE: *lo = *hi = 1; break;
    case FLOE_WIN_LAG:
    case FLOE_WIN_LEAD: *lo = 1, *hi = 3; break;
    case FLOE_WIN_FIRST_VALUE:
    case FLOE_WIN_LAST_VALUE: *lo = *hi = 1; break;
    case FLOE_WIN_NTH_VALUE: *lo = *hi = 2; break;
    case FLOE_WIN_AGG: {
        floe_agg_desc d;
        if (c->agg == FLOE_AGG_NAMED && c->func && floe_agg_describe(c->func, &d)) *lo = d.min_args, *hi = d.max_args;
        else *lo = *hi = c->agg == FLOE_AGG_COUNT_STAR ? 0 : 1;
        break;
    }
    default: *lo = *hi = 0; break;
    }
}

/* Does `e` read a column? */
static bool reads_column(const floe_expr *e) {
    if (!e) return false;
    if (e->kind == FLOE_EXPR_COLUMN) return true;
    for (int32_t i = 0; i < e->n_args; i++)
        if (reads_column(e->args[i])) return true;
    return false;
}

static bool is_int_type(const floe_type *t) { return t->id == FLOE_TYPE_INT32 || t->id == FLOE_TYPE_INT64; }

floe_status floe_window_result_type(const floe_window_call *c, const floe_schema *input, floe_type **out) {
    *out = NULL;
    const char *nm = call_name(c);
    if ((unsigned)c->fn >= FLOE_WIN_FN_COUNT_) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unknown window function %d", (int)c->fn);
    int32_t lo, hi;
    arity(c, &lo, &hi);
    if (c->n_args < lo || c->n_args > hi)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "window function %s takes %d to %d arguments, not %d", nm, lo, hi,
                          c->n_args);
    floe_type *t[3] = {NULL, NULL, NULL};
    floe_status st = NULL;
    for (int32_t i = 0; i < c->n_args && !st; i++) {
        if (!c->args[i]) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "window function %s: argument %d missing", nm, i + 1);
        else st = floe_status_wrap(floe_expr_type(c->args[i], input, &t[i]), "window function %s argument %d", nm, i + 1);
    }
    if (st) goto done;
    if (c->ignore_nulls && c->fn != FLOE_WIN_LAG && c->fn != FLOE_WIN_LEAD && c->fn != FLOE_WIN_FIRST_VALUE &&
        c->fn != FLOE_WIN_LAST_VALUE && c->fn != FLOE_WIN_NTH_VALUE) {
        st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "IGNORE NULLS is only for lag, lead, first_value, last_value and "
                        "nth_value, not %s", nm);
        goto done;
    }
    switch (c->fn) {
    case FLOE_WIN_ROW_NUMBER:
    case FLOE_WIN_RANK:
    case FLOE_WIN_DENSE_RANK:
        *out = floe_type_primitive(FLOE_TYPE_INT64);
        break;
    case FLOE_WIN_PERCENT_RANK:
    case FLOE_WIN_CUME_DIST:
        *out = floe_type_primitive(FLOE_TYPE_FLOAT64);
        break;
    case FLOE_WIN_NTILE:
        if (t[0]->id != FLOE_TYPE_INT64 && t[0]->id != FLOE_TYPE_NULL)
            st = floe_error(FLOE_ERR_TYPE, "ntile: the bucket count must be int64, not %s", floe_type_id_name(t[0]->id));
        else *out = floe_type_primitive(FLOE_TYPE_INT64);
        break;
    case FLOE_WIN_LAG:
    case FLOE_WIN_LEAD:
    case FLOE_WIN_NTH_VALUE:
        if (c->n_args >= 2 && t[1]->id != FLOE_TYPE_INT64 && t[1]->id != FLOE_TYPE_NULL) {
            st = floe_error(FLOE_ERR_TYPE, "%s: the offset must be int64, not %s", nm, floe_type_id_name(t[1]->id));
            break;
        }
        if (c->n_args == 3 && !floe_type_equals(t[0], t[2]) && t[2]->id != FLOE_TYPE_NULL) {
            st = floe_error(FLOE_ERR_TYPE, "%s: the default (%s) must have the value's type (%s)", nm,
                            floe_type_id_name(t[2]->id), floe_type_id_name(t[0]->id));
            break;
        }
        /* fall through */
    case FLOE_WIN_FIRST_VALUE:
    case FLOE_WIN_LAST_VALUE:
        *out = floe_type_retain(t[0]);
        break;
    case FLOE_WIN_AGG: {
        floe_agg_call a = {.fn = c->agg, .arg = c->args[0], .name = c->name};
        if (c->agg == FLOE_AGG_NAMED) {
            /* a registry entry (window_generic.c): its own resolver decides */
            floe_agg_desc d;
            if (!c->func || !floe_agg_describe(c->func, &d) || d.within_group || d.fn != FLOE_AGG_NAMED) {
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "window aggregate '%s' is not a registry aggregate usable with OVER",
                                c->func ? c->func : "?");
                break;
            }
            a.func = c->func;
            a.arg2 = c->n_args > 1 ? c->args[1] : NULL;
            if (c->filter) {
                floe_type *ft = NULL;
                st = floe_status_wrap(floe_expr_type(c->filter, input, &ft), "%s FILTER", nm);
                if (!st && ft->id != FLOE_TYPE_BOOL && ft->id != FLOE_TYPE_NULL)
                    st = floe_error(FLOE_ERR_TYPE, "%s: FILTER must be boolean, not %s", nm, floe_type_id_name(ft->id));
                floe_type_release(ft);
                if (st) break;
            }
            st = floe_agg_result_type(&a, input, out);
            break;
        }
        if (c->filter || c->func) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "window aggregate %s: FILTER / a registry name on a fixed aggregate", nm);
            break;
        }
        if (t[0] && floe_type_is_nested(t[0]) && c->agg != FLOE_AGG_COUNT) {
            st = floe_error(FLOE_ERR_TYPE, "window aggregate %s over %s is not supported", nm, floe_type_id_name(t[0]->id));
            break;
        }
        st = floe_agg_result_type(&a, input, out);
        break;
    }
    default:
        break;
    }
done:
    for (int i = 0; i < 3; i++) floe_type_release(t[i]);
    return st;
}

/* ------------------------------------------------------------- codec */

static floe_status put_opt_expr(floe_buf *out, const floe_expr *e) {
    FLOE_TRY(floe_codec_put_i64(out, e != NULL));
    return e ? floe_codec_put_expr(out, e) : NULL;
}

static floe_status get_opt_expr(floe_reader *r, floe_expr **e) {
    int64_t has = 0;
    *e = NULL;
    FLOE_TRY(floe_codec_get_i64(r, &has));
    return has ? floe_codec_get_expr(r, e) : NULL;
}

static floe_status win_encode(const floe_plan *p_, floe_buf *out) {
    const win_plan *p = (const win_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->n_part));
    for (int32_t i = 0; i < p->n_part; i++) FLOE_TRY(floe_codec_put_expr(out, p->part[i]));
    FLOE_TRY(floe_sk_encode(out, p->order, p->n_order));
    FLOE_TRY(floe_codec_put_i64(out, p->n_calls));
    for (int32_t i = 0; i < p->n_calls; i++) {
        const floe_window_call *c = &p->calls[i];
        FLOE_TRY(floe_codec_put_i64(out, c->fn));
        FLOE_TRY(floe_codec_put_i64(out, c->agg));
        FLOE_TRY(floe_codec_put_i64(out, c->n_args));
        for (int32_t k = 0; k < c->n_args; k++) FLOE_TRY(floe_codec_put_expr(out, c->args[k]));
        FLOE_TRY(floe_codec_put_i64(out, c->frame.mode));
        FLOE_TRY(floe_codec_put_i64(out, c->frame.start));
        FLOE_TRY(floe_codec_put_i64(out, c->frame.end));
        FLOE_TRY(floe_codec_put_i64(out, c->frame.exclude));
        FLOE_TRY(put_opt_expr(out, c->frame.start_offset));
        FLOE_TRY(put_opt_expr(out, c->frame.end_offset));
        FLOE_TRY(floe_codec_put_str(out, c->name));
        /* the registry entry, FILTER and IGNORE NULLS (flags 1, 2, 4) */
        int64_t flags = (c->func != NULL) | (c->filter != NULL) << 1 | (int64_t)c->ignore_nulls << 2;
        FLOE_TRY(floe_codec_put_i64(out, flags));
        if (c->func) FLOE_TRY(floe_codec_put_str(out, c->func));
        if (c->filter) FLOE_TRY(floe_codec_put_expr(out, c->filter));
    }
    return NULL;
}

void floe_window_call_clear(floe_window_call *c) {
    for (int k = 0; k < 3; k++) floe_expr_release(c->args[k]);
    floe_expr_release(c->frame.start_offset);
    floe_expr_release(c->frame.end_offset);
    floe_expr_release(c->filter);
    floe_free(c->name);
    floe_free(c->func);
}

static void calls_free(floe_window_call *calls, int32_t n) {
    for (int32_t i = 0; calls && i < n; i++) floe_window_call_clear(&calls[i]);
    floe_free(calls);
}

static floe_status win_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "Window with %d children", n_children);
    int64_t np = 0, nc = 0;
    floe_expr **part = NULL;
    floe_sort_key *order = NULL;
    int32_t n_order = 0, got_p = 0, got_c = 0;
    floe_window_call *calls = NULL;
    floe_status st = floe_codec_get_i64(r, &np);
    if (!st && (np < 0 || np > (int64_t)(r->len - r->pos))) st = floe_error(FLOE_ERR_CORRUPT, "Window: %lld partition keys", (long long)np);
    if (!st && !(part = floe_calloc((size_t)np + 1, sizeof *part))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding Window");
    for (; !st && got_p < np; got_p++) st = floe_codec_get_expr(r, &part[got_p]);
    if (!st) st = floe_sk_decode(r, &order, &n_order);
    if (!st) st = floe_codec_get_i64(r, &nc);
    if (!st && (nc < 0 || nc > (int64_t)(r->len - r->pos))) st = floe_error(FLOE_ERR_CORRUPT, "Window: %lld calls", (long long)nc);
    if (!st && !(calls = floe_calloc((size_t)nc + 1, sizeof *calls))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding Window");
    for (; !st && got_c < nc; got_c++) {
        floe_window_call *c = &calls[got_c];
        int64_t v[7] = {0};
        for (int k = 0; k < 3 && !st; k++) st = floe_codec_get_i64(r, &v[k]);
        if (!st && (v[0] < 0 || v[0] >= FLOE_WIN_FN_COUNT_ || v[1] < 0 || v[1] >= FLOE_AGG_FN_COUNT_ || v[2] < 0 || v[2] > 3))
            st = floe_error(FLOE_ERR_CORRUPT, "Window: call %d", (int)got_c);
        c->fn = (floe_win_fn)v[0];
        c->agg = (floe_agg_fn)v[1];
        for (int32_t k = 0; k < v[2] && !st; k++) {
            st = floe_codec_get_expr(r, &c->args[k]);
            if (!st) c->n_args = k + 1;
        }
        for (int k = 3; k < 7 && !st; k++) st = floe_codec_get_i64(r, &v[k]);
        if (!st && (v[3] < 0 || v[3] > 2 || v[4] < 0 || v[4] > 4 || v[5] < 0 || v[5] > 4 || v[6] < 0 || v[6] > 3))
            st = floe_error(FLOE_ERR_CORRUPT, "Window: frame of call %d", (int)got_c);
        c->frame.mode = (floe_frame_mode)v[3];
        c->frame.start = (floe_frame_bound)v[4];
        c->frame.end = (floe_frame_bound)v[5];
        c->frame.exclude = (floe_frame_exclude)v[6];
        if (!st) st = get_opt_expr(r, &c->frame.start_offset);
        if (!st) st = get_opt_expr(r, &c->frame.end_offset);
        if (!st) st = floe_codec_get_str(r, &c->name);
        int64_t flags = 0;
        if (!st) st = floe_codec_get_i64(r, &flags);
        if (!st && (flags < 0 || flags > 7)) st = floe_error(FLOE_ERR_CORRUPT, "Window: flags of call %d", (int)got_c);
        if (!st && (flags & 1)) st = floe_codec_get_str(r, &c->func);
        if (!st && (flags & 2)) st = floe_codec_get_expr(r, &c->filter);
        c->ignore_nulls = (flags & 4) != 0;
    }
    if (!st) st = floe_plan_window(children[0], part, (int32_t)np, order, n_order, calls, (int32_t)nc, out);
    for (int32_t i = 0; i < got_p; i++) floe_expr_release(part[i]);
    floe_free(part);
    if (order) floe_sk_free_keys(order, n_order);
    calls_free(calls, got_c);
    return st;
}

/* ----------------------------------------------------------- EXPLAIN */

static const char *bound_text(floe_frame_bound b) {
    switch (b) {
    case FLOE_BOUND_UNBOUNDED_PRECEDING: return "UNBOUNDED PRECEDING";
    case FLOE_BOUND_PRECEDING: return " PRECEDING";
    case FLOE_BOUND_CURRENT_ROW: return "CURRENT ROW";
    case FLOE_BOUND_FOLLOWING: return " FOLLOWING";
    default: return "UNBOUNDED FOLLOWING";
    }
}

static floe_status explain_bound(floe_buf *out, floe_frame_bound b, const floe_expr *off) {
    if (off && (b == FLOE_BOUND_PRECEDING || b == FLOE_BOUND_FOLLOWING)) FLOE_TRY(floe_expr_to_string(off, out));
    return floe_buf_append_str(out, bound_text(b));
}

static bool uses_frame(const floe_window_call *c) {
    return c->fn == FLOE_WIN_AGG || c->fn == FLOE_WIN_FIRST_VALUE || c->fn == FLOE_WIN_LAST_VALUE ||
           c->fn == FLOE_WIN_NTH_VALUE;
}

static floe_status win_explain(const floe_plan *p_, floe_buf *out) {
    const win_plan *p = (const win_plan *)p_;
    FLOE_TRY(floe_buf_append_str(out, "partition=["));
    for (int32_t i = 0; i < p->n_part; i++) {
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_expr_to_string(p->part[i], out));
    }
    FLOE_TRY(floe_buf_append_str(out, "], order="));
    FLOE_TRY(floe_sk_explain(out, p->order, p->n_order, -1));
    FLOE_TRY(floe_buf_append_str(out, ", calls=["));
    static const char *const modes[] = {"ROWS", "RANGE", "GROUPS"};
    static const char *const excl[] = {"", " EXCLUDE CURRENT ROW", " EXCLUDE GROUP", " EXCLUDE TIES"};
    for (int32_t i = 0; i < p->n_calls; i++) {
        const floe_window_call *c = &p->calls[i];
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_buf_printf(out, "%s(", call_name(c)));
        if (c->fn == FLOE_WIN_AGG && c->agg == FLOE_AGG_COUNT_STAR) FLOE_TRY(floe_buf_append_str(out, "*"));
        for (int32_t k = 0; k < c->n_args; k++) {
            if (k) FLOE_TRY(floe_buf_append_str(out, ", "));
            FLOE_TRY(floe_expr_to_string(c->args[k], out));
        }
        FLOE_TRY(floe_buf_append_str(out, c->ignore_nulls ? " IGNORE NULLS)" : ")"));
        if (c->filter) {
            FLOE_TRY(floe_buf_append_str(out, " FILTER (WHERE "));
            FLOE_TRY(floe_expr_to_string(c->filter, out));
            FLOE_TRY(floe_buf_append_str(out, ")"));
        }
        if (uses_frame(c)) {
            FLOE_TRY(floe_buf_printf(out, " %s BETWEEN ", modes[c->frame.mode]));
            FLOE_TRY(explain_bound(out, c->frame.start, c->frame.start_offset));
            FLOE_TRY(floe_buf_append_str(out, " AND "));
            FLOE_TRY(explain_bound(out, c->frame.end, c->frame.end_offset));
            FLOE_TRY(floe_buf_append_str(out, excl[c->frame.exclude]));
        }
        FLOE_TRY(floe_buf_printf(out, " AS %s", c->name));
    }
    return floe_buf_append_str(out, "]");
}

/* -------------------------------------------------------------- node */

static floe_distribution win_required(const floe_plan *p_, int32_t child) {
    const win_plan *p = (const win_plan *)p_;
    floe_distribution d = {FLOE_DIST_SINGLE, 0, NULL};
    (void)child;
    if (p->n_part > 0) {
        d.kind = FLOE_DIST_HASH;
        d.n_exprs = p->n_part;
        d.exprs = p->part;
    }
    return d;
}

static void win_free(floe_plan *p_) {
    win_plan *p = (win_plan *)p_;
    for (int32_t i = 0; p->part && i < p->n_part; i++) floe_expr_release(p->part[i]);
    floe_free(p->part);
    if (p->order) floe_sk_free_keys(p->order, p->n_order);
    if (p->all_keys) floe_sk_free_keys(p->all_keys, p->n_part + p->n_order);
    for (int32_t i = 0; p->arg_types && i < p->n_calls; i++) floe_type_release(p->arg_types[i]);
    floe_free(p->arg_types);
    calls_free(p->calls, p->n_calls);
}

const floe_plan_vtable floe_window_vt = {
    .name = "Window",
    .execute = floe_win_execute,
    .encode_parts = win_encode,
    .decode_parts = win_decode,
    .explain_parts = win_explain,
    .required_input = win_required,
    .free_parts = win_free,
    .child_read = floe_exec_child_read_local,
};

/* Check one call's frame against the node's ORDER BY. */
static floe_status check_frame(const floe_window_call *c, const floe_sort_key *order, int32_t n_order,
                               const floe_schema *in) {
    const floe_window_frame *f = &c->frame;
    if ((unsigned)f->mode > FLOE_FRAME_GROUPS || (unsigned)f->start > FLOE_BOUND_UNBOUNDED_FOLLOWING ||
        (unsigned)f->end > FLOE_BOUND_UNBOUNDED_FOLLOWING || (unsigned)f->exclude > FLOE_EXCLUDE_TIES)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Window '%s': bad frame", c->name);
    if (f->start == FLOE_BOUND_UNBOUNDED_FOLLOWING || f->end == FLOE_BOUND_UNBOUNDED_PRECEDING || f->start > f->end)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Window '%s': frame starts after it ends", c->name);
    bool so = f->start == FLOE_BOUND_PRECEDING || f->start == FLOE_BOUND_FOLLOWING;
    bool eo = f->end == FLOE_BOUND_PRECEDING || f->end == FLOE_BOUND_FOLLOWING;
    if (so != (f->start_offset != NULL) || eo != (f->end_offset != NULL))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Window '%s': frame offsets do not match its bounds", c->name);
    if (f->mode == FLOE_FRAME_GROUPS && n_order == 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "GROUPS mode requires an ORDER BY clause");
    const floe_expr *offs[2] = {f->start_offset, f->end_offset};
    floe_type *kt = NULL;
    if (f->mode == FLOE_FRAME_RANGE && (so || eo)) {
        if (n_order != 1)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column");
        FLOE_TRY(floe_expr_type(order[0].expr, in, &kt));
        floe_type_id id = kt->id;
        if (!(is_int_type(kt) || id == FLOE_TYPE_FLOAT32 || id == FLOE_TYPE_FLOAT64 || id == FLOE_TYPE_DECIMAL128 ||
              is_datetime_key(id))) {
            floe_type_release(kt);
            return floe_error(FLOE_ERR_UNSUPPORTED,
                              "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s (only "
                              "numeric, date and timestamp ORDER BY keys)", floe_type_id_name(id));
        }
    }
    floe_status st = NULL;
    for (int k = 0; k < 2 && !st; k++) {
        if (!offs[k]) continue;
        floe_type *t = NULL;
        if (reads_column(offs[k])) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "argument of %s must not contain variables",
                            f->mode == FLOE_FRAME_ROWS ? "ROWS" : f->mode == FLOE_FRAME_RANGE ? "RANGE" : "GROUPS");
            break;
        }
        st = floe_expr_type(offs[k], in, &t);
        if (st) break;
        bool ok = f->mode != FLOE_FRAME_RANGE ? t->id == FLOE_TYPE_INT64
                  : kt && is_int_type(kt)       ? t->id == FLOE_TYPE_INT64
                  : kt && kt->id == FLOE_TYPE_DECIMAL128 ? t->id == FLOE_TYPE_DECIMAL128 && t->scale == kt->scale
                  : kt && is_datetime_key(kt->id)        ? t->id == FLOE_TYPE_INTERVAL
                                                         : t->id == FLOE_TYPE_FLOAT64;
        if (!ok && t->id != FLOE_TYPE_NULL)
            st = floe_error(FLOE_ERR_TYPE, "Window '%s': frame offset of type %s does not fit the frame", c->name,
                            floe_type_id_name(t->id));
        floe_type_release(t);
    }
    floe_type_release(kt);
    return st;
}

floe_status floe_plan_window(floe_plan *child, floe_expr *const *partition, int32_t n_partition,
                             const floe_sort_key *order, int32_t n_order, const floe_window_call *calls,
                             int32_t n_calls, floe_plan **out) {
    *out = NULL;
    if (n_partition < 0 || n_order < 0 || n_calls < 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Window: %d partition keys, %d order keys, %d calls", n_partition,
                          n_order, n_calls);
    const floe_schema *in = child->schema;
    win_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Window node");
    int32_t nin = floe_schema_num_fields(in), nk = n_partition + n_order;
    floe_field *f = floe_calloc((size_t)(nin + n_calls), sizeof *f);
    floe_schema *schema = NULL;
    int32_t nf = 0;
    floe_status st = NULL;
    p->part = floe_calloc((size_t)n_partition + 1, sizeof *p->part);
    p->calls = floe_calloc((size_t)n_calls, sizeof *p->calls);
    p->arg_types = floe_calloc((size_t)n_calls, sizeof *p->arg_types);
    floe_sort_key *all = floe_calloc((size_t)nk + 1, sizeof *all);
    if (!f || !p->part || !p->calls || !p->arg_types || !all) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Window node");
    for (int32_t i = 0; !st && i < n_partition; i++) {
        all[i].expr = partition[i];
        all[i].descending = false;
        all[i].nulls_first = false;
    }
    for (int32_t i = 0; !st && i < n_order; i++) all[n_partition + i] = order[i];
    if (!st && nk > 0) st = floe_sk_check("Window", all, nk, in);
    for (int32_t i = 0; !st && i < nin; i++) st = floe_field_copy(&f[nf++], floe_schema_field(in, i));
    for (int32_t i = 0; !st && i < n_calls; i++) {
        const floe_window_call *c = &calls[i];
        floe_type *t = NULL;
        if (!c->name) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "Window: call %d has no name", (int)i);
        if (!st) st = floe_window_result_type(c, in, &t);
        if (!st && c->n_args > 0) st = floe_expr_type(c->args[0], in, &p->arg_types[i]);
        if (!st && c->fn == FLOE_WIN_AGG && (unsigned)c->agg >= FLOE_AGG_FN_COUNT_)
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "Window: aggregate %d", (int)c->agg);
        if (!st) st = check_frame(c, order, n_order, in);
        bool never_null = c->fn == FLOE_WIN_ROW_NUMBER || c->fn == FLOE_WIN_RANK || c->fn == FLOE_WIN_DENSE_RANK ||
                          c->fn == FLOE_WIN_PERCENT_RANK || c->fn == FLOE_WIN_CUME_DIST ||
                          (c->fn == FLOE_WIN_AGG && (c->agg == FLOE_AGG_COUNT || c->agg == FLOE_AGG_COUNT_STAR));
        if (!st) st = floe_field_init(&f[nf++], c->name, t, !never_null, -1);
        floe_type_release(t);
        if (st) break;
        /* Copy the call. */
        floe_window_call *d = &p->calls[i];
        *d = *c;
        for (int k = 0; k < 3; k++) d->args[k] = k < c->n_args ? floe_expr_retain(c->args[k]) : NULL;
        d->frame.start_offset = floe_expr_retain(c->frame.start_offset);
        d->frame.end_offset = floe_expr_retain(c->frame.end_offset);
        d->name = floe_strdup(c->name);
        d->func = c->func ? floe_strdup(c->func) : NULL;
        d->filter = floe_expr_retain(c->filter);
        p->n_calls = i + 1;
        if (!d->name || (c->func && !d->func)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Window node");
    }
    if (!st) st = floe_type_struct(f, nf, &schema);
    for (int32_t i = 0; f && i < nf; i++) floe_field_clear(&f[i]);
    floe_free(f);
    if (!st) st = floe_exec_plan_init(&p->head, &floe_window_vt, schema, child->n_partitions, &child, 1);
    floe_type_release(schema);
    for (int32_t i = 0; !st && i < n_partition; i++) p->part[i] = floe_expr_retain(partition[i]);
    if (!st) p->n_part = n_partition;
    if (!st) st = floe_sk_copy_keys(order, n_order, &p->order);
    if (!st) p->n_order = n_order;
    if (!st) st = floe_sk_copy_keys(all, nk, &p->all_keys);
    floe_free(all);
    if (st) {
        if (!p->head.vt) {
            /* The head was never set up: free the parts by hand. */
            win_free(&p->head);
            floe_free(p);
        } else {
            floe_plan_release(&p->head);
        }
        return st;
    }
    *out = &p->head;
    return NULL;
}

int32_t floe_window_num_partition(const floe_plan *p) { return ((const win_plan *)p)->n_part; }
const floe_expr *floe_window_partition(const floe_plan *p, int32_t i) { return ((const win_plan *)p)->part[i]; }
int32_t floe_window_num_order(const floe_plan *p) { return ((const win_plan *)p)->n_order; }
const floe_sort_key *floe_window_order(const floe_plan *p, int32_t i) { return &((const win_plan *)p)->order[i]; }
int32_t floe_window_num_calls(const floe_plan *p) { return ((const win_plan *)p)->n_calls; }
const floe_window_call *floe_window_call_at(const floe_plan *p, int32_t i) { return &((const win_plan *)p)->calls[i]; }

/*
 * zone_rewrite.c — the session time zone (SET TimeZone) made explicit in a
 * plan before it is optimized, so that it reaches every thread and every
 * MPI rank as plain timezone(zone, x) calls with the zone as a constant.
 *
 * PostgreSQL 15 reads these in the session zone; with a zone other than
 * UTC set they become:
 *
 *   CAST(tstz AS timestamp)      -> timezone(Z, tstz)
 *   CAST(tstz AS date)           -> CAST(timezone(Z, tstz) AS date)
 *   CAST(timestamp|date AS tstz) -> timezone(Z, CAST(x AS timestamp))
 *   date_trunc(u, tstz)          -> timezone(Z, date_trunc(u, timezone(Z, tstz)))
 *   date_part(f, tstz)           -> date_part(f, timezone(Z, tstz)), but
 *                                   not for 'epoch' (an instant's count)
 *   CAST(tstz AS text)           -> timezone_text(Z, tstz)
 *   CAST(text AS tstz)           -> timezone_parse(Z, text)  (no offset: in Z)
 *   add_interval(tstz, m, d, us) -> add_interval_zone(Z, tstz, m, d, us):
 *                                   months and days on the wall clock in Z
 *                                   (a day across a DST change is 23 or 25
 *                                   hours), the time part on the instant
 *
 * Implicit casts (timestamp compared with timestamptz) are CAST nodes too.
 * Literals without an offset and constant text casts are read in the zone
 * while binding and folding (bind_literal.c, exec/expr/cast.c), on the
 * session's thread.
 */
#include <string.h>

#include "base/tz.h"
#include "sql/expr_util.h"
#include "sql/optimize_internal.h"

static bool is_tz(const floe_type *t) {
    return t->id == FLOE_TYPE_TIMESTAMP_US_TZ || t->id == FLOE_TYPE_TIMESTAMP_NS_TZ;
}
static bool is_plain_ts(const floe_type *t) {
    return t->id == FLOE_TYPE_TIMESTAMP_US || t->id == FLOE_TYPE_TIMESTAMP_NS;
}

static floe_status zone_call(const char *zone, floe_expr *x, floe_expr **out) {
    floe_expr *z = NULL;
    FLOE_TRY(floe_expr_lit_string(zone, &z));
    floe_expr *args[2] = {z, x};
    floe_status st = floe_expr_call("timezone", args, 2, out);
    floe_expr_release(z);
    return st;
}

/* The type of `e`, or NULL when it cannot be told here (the node is then
 * left as it is: a real type error is reported by the planner). */
static floe_type *type_of(const floe_expr *e, const floe_schema *in) {
    floe_type *t = NULL;
    floe_status st = floe_expr_type(e, in, &t);
    if (st) floe_status_free(st);
    return st ? NULL : t;
}

/* `e` (its arguments already rewritten) in the zone; *out one reference. */
static floe_status rewrite_node(floe_expr *e, const floe_schema *in, const char *zone, floe_expr **out) {
    *out = NULL;
    if (e->kind == FLOE_EXPR_CAST) {
        floe_type *from = type_of(e->args[0], in);
        const floe_type *to = e->cast_type;
        floe_status st = NULL;
        if (!from) {
            /* left alone */
        } else if (is_tz(from) && to->id == FLOE_TYPE_STRING) {
            floe_expr *z = NULL;
            st = floe_expr_lit_string(zone, &z);
            floe_expr *args[2] = {z, e->args[0]};
            if (!st) st = floe_expr_call("timezone_text", args, 2, out);
            floe_expr_release(z);
        } else if (is_tz(from) && (is_plain_ts(to) || to->id == FLOE_TYPE_DATE32)) {
            floe_expr *local = NULL;
            st = zone_call(zone, e->args[0], &local);
            if (!st) st = floe_expr_cast(local, e->cast_type, out);
            floe_expr_release(local);
        } else if (is_tz(to) && from->id == FLOE_TYPE_STRING) {
            floe_expr *z = NULL;
            st = floe_expr_lit_string(zone, &z);
            floe_expr *args[2] = {z, e->args[0]};
            const char *fn = to->id == FLOE_TYPE_TIMESTAMP_NS_TZ ? "timezone_parse_ns" : "timezone_parse";
            if (!st) st = floe_expr_call(fn, args, 2, out);
            floe_expr_release(z);
        } else if (is_tz(to) && (is_plain_ts(from) || from->id == FLOE_TYPE_DATE32)) {
            floe_expr *ts = NULL, *inst = NULL;
            bool ns = to->id == FLOE_TYPE_TIMESTAMP_NS_TZ;
            st = floe_expr_cast(e->args[0], floe_type_primitive(ns ? FLOE_TYPE_TIMESTAMP_NS : FLOE_TYPE_TIMESTAMP_US), &ts);
            if (!st) st = zone_call(zone, ts, &inst);
            if (!st) st = floe_expr_cast(inst, e->cast_type, out);
            floe_expr_release(ts);
            floe_expr_release(inst);
        }
        floe_type_release(from);
        if (st || *out) return st;
    } else if (e->kind == FLOE_EXPR_CALL && e->n_args == 4 && strcmp(e->func, "add_interval") == 0) {
        floe_type *t = type_of(e->args[0], in);
        bool tz = t && is_tz(t);
        floe_type_release(t);
        if (tz) {
            floe_expr *z = NULL;
            floe_status st = floe_expr_lit_string(zone, &z);
            floe_expr *args[5] = {z, e->args[0], e->args[1], e->args[2], e->args[3]};
            if (!st) st = floe_expr_call("add_interval_zone", args, 5, out);
            floe_expr_release(z);
            return st;
        }
    } else if (e->kind == FLOE_EXPR_CALL && e->n_args == 2 &&
               (strcmp(e->func, "date_trunc") == 0 || strcmp(e->func, "date_part") == 0)) {
        floe_type *t = type_of(e->args[1], in);
        bool tz = t && is_tz(t);
        floe_type_release(t);
        const floe_expr *f = e->args[0];
        bool epoch = f->kind == FLOE_EXPR_LITERAL && floe_array_is_valid(f->literal, 0) &&
                     f->literal->type->id == FLOE_TYPE_STRING;
        if (epoch) {
            floe_strview v = floe_array_get_str(f->literal, 0);
            epoch = v.len == 5 && memcmp(v.data, "epoch", 5) == 0;
        }
        if (tz && !(epoch && strcmp(e->func, "date_part") == 0)) {
            floe_expr *local = NULL, *call = NULL;
            floe_status st = zone_call(zone, e->args[1], &local);
            floe_expr *args[2] = {e->args[0], local};
            if (!st) st = floe_expr_call(e->func, args, 2, &call);
            if (!st && strcmp(e->func, "date_trunc") == 0) st = zone_call(zone, call, out);
            else if (!st) *out = floe_expr_retain(call);
            floe_expr_release(local);
            floe_expr_release(call);
            return st;
        }
    }
    *out = floe_expr_retain(e);
    return NULL;
}

static floe_status rewrite_expr(floe_expr *e, const floe_schema *in, const char *zone, floe_expr **out) {
    *out = NULL;
    floe_expr *stack_args[8];
    floe_expr **args = e->n_args <= 8 ? stack_args : floe_calloc((size_t)e->n_args, sizeof *args);
    if (!args) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "applying the session time zone: out of memory");
    floe_status st = NULL;
    bool changed = false;
    int32_t done = 0;
    for (; done < e->n_args && !st; done++) {
        st = rewrite_expr(e->args[done], in, zone, &args[done]);
        if (st) break;
        changed |= args[done] != e->args[done];
    }
    floe_expr *node = NULL;
    if (!st) st = changed ? floe_sqlx_with_args(e, args, e->n_args, &node) : NULL;
    if (!st && !changed) node = floe_expr_retain(e);
    for (int32_t i = 0; i < done; i++) floe_expr_release(args[i]);
    if (args != stack_args) floe_free(args);
    if (!st) st = rewrite_node(node, in, zone, out);
    floe_expr_release(node);
    return st;
}

static floe_status rewrite_list(floe_expr **es, int32_t n, const floe_schema *in, const char *zone) {
    for (int32_t i = 0; i < n; i++) {
        if (!es[i]) continue;
        floe_expr *r = NULL;
        FLOE_TRY(rewrite_expr(es[i], in, zone, &r));
        floe_expr_release(es[i]);
        es[i] = r;
    }
    return NULL;
}

/* Every expression slot of the plan, as the constant folder visits them. */
static floe_status rewrite_plan(floe_lplan *p, const char *zone) {
    for (int32_t i = 0; i < p->n_inputs; i++) FLOE_TRY(rewrite_plan(p->inputs[i], zone));
    const floe_schema *in = p->n_inputs ? p->inputs[0]->schema : p->schema;
    FLOE_TRY(rewrite_list(&p->predicate, 1, in, zone));
    FLOE_TRY(rewrite_list(p->exprs, p->n_exprs, in, zone));
    for (int32_t i = 0; i < p->n_aggs; i++) {
        floe_agg_call *a = &p->aggs[i];
        FLOE_TRY(rewrite_list(&a->arg, 1, in, zone));
        FLOE_TRY(rewrite_list(&a->arg2, 1, in, zone));
        FLOE_TRY(rewrite_list(&a->filter, 1, in, zone));
        for (int32_t k = 0; k < a->n_order; k++) FLOE_TRY(rewrite_list(&a->order[k].expr, 1, in, zone));
    }
    for (int32_t i = 0; i < p->n_sort_keys; i++) FLOE_TRY(rewrite_list(&p->sort_keys[i].expr, 1, in, zone));
    FLOE_TRY(rewrite_list(p->wpart, p->n_wpart, in, zone));
    for (int32_t i = 0; i < p->n_worder; i++) FLOE_TRY(rewrite_list(&p->worder[i].expr, 1, in, zone));
    for (int32_t i = 0; i < p->n_wcalls; i++) {
        FLOE_TRY(rewrite_list(p->wcalls[i].args, p->wcalls[i].n_args, in, zone));
        FLOE_TRY(rewrite_list(&p->wcalls[i].filter, 1, in, zone));
    }
    if (p->kind == FLOE_L_JOIN) {
        FLOE_TRY(rewrite_list(p->left_keys, p->n_keys, p->inputs[0]->schema, zone));
        FLOE_TRY(rewrite_list(p->right_keys, p->n_keys, p->inputs[1]->schema, zone));
        /* the rest of ON is over both inputs side by side */
    }
    return NULL;
}

floe_status floe_sqlo_apply_session_zone(floe_lplan *plan) {
    const floe_tz *zone = floe_tz_session();
    if (!zone) return NULL;
    return rewrite_plan(plan, floe_tz_name(zone));
}

/*
 * agg_fn_interval.c — sum and avg of intervals (the binder sends sum(x)
 * and avg(x) of an interval x here, as "interval_sum" / "interval_avg").
 *
 * As PostgreSQL: months, days and microseconds are summed apart (no
 * carrying: sum('20 days', '20 days') is '40 days'); avg is that sum
 * divided by the count with interval division's cascading of fractions
 * (floe/interval.h).  The state keeps 128-bit sums, so the order rows
 * arrive in (threads, PARTIAL → FINAL) does not matter; a sum that does
 * not fit an interval is "interval out of range".
 */
#include <string.h>

#include "exec/agg/agg_func.h"
#include "floe/interval.h"

typedef struct iv_state {
    int64_t n;
    int64_t pad;
    __int128 months, days, micros;
} iv_state;

static floe_status iv_resolve(agg_info *ai) {
    floe_type_id id = ai->arg_types[0]->id;
    if (id != FLOE_TYPE_INTERVAL && id != FLOE_TYPE_NULL)
        return floe_error(FLOE_ERR_TYPE, "%s(%s) is not defined", ai->fn->name, floe_type_id_name(id));
    ai->out_type = floe_type_primitive(FLOE_TYPE_INTERVAL);
    ai->state_size = sizeof(iv_state);
    return NULL;
}

static floe_status iv_update(const agg_info *ai, uint8_t *states, size_t stride, const uint32_t *ids,
                             floe_array *const *args, const uint32_t *rows, int64_t base, int64_t n) {
    (void)ai;
    const floe_array *x = args[0];
    if (x->type->id == FLOE_TYPE_NULL) return NULL;
    for (int64_t k = 0; k < n; k++) {
        int64_t r = AGG_ROW(rows, base, k);
        if (floe_array_is_null(x, r)) continue;
        iv_state *s = (iv_state *)(states + (size_t)ids[k] * stride);
        floe_interval v;
        memcpy(&v, floe_array_get_fixed(x, r), sizeof v);
        s->n++;
        s->months += v.months;
        s->days += v.days;
        s->micros += v.micros;
    }
    return NULL;
}

static floe_status iv_combine(const agg_info *ai, uint8_t *dst, const uint8_t *src) {
    (void)ai;
    iv_state *a = (iv_state *)dst;
    const iv_state *b = (const iv_state *)src;
    a->n += b->n;
    a->months += b->months;
    a->days += b->days;
    a->micros += b->micros;
    return NULL;
}

static floe_status iv_sum_of(const iv_state *s, floe_interval *out) {
    if (s->months > INT32_MAX || s->months < INT32_MIN || s->days > INT32_MAX || s->days < INT32_MIN ||
        s->micros > INT64_MAX || s->micros < INT64_MIN)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "interval out of range");
    out->months = (int32_t)s->months;
    out->days = (int32_t)s->days;
    out->micros = (int64_t)s->micros;
    return NULL;
}

static floe_status iv_final(const agg_info *ai, const uint8_t *st, floe_builder *out) {
    const iv_state *s = (const iv_state *)st;
    if (s->n == 0) return floe_builder_append_null(out);
    floe_interval v;
    FLOE_TRY(iv_sum_of(s, &v));
    if (!strcmp(ai->fn->name, "interval_avg") && !floe_interval_div(v, (double)s->n, &v))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "interval out of range");
    return floe_builder_append_fixed(out, &v);
}

#define IV_ENTRY(NAME)                                                                                        \
    {.name = NAME, .fast = FLOE_AGG_NAMED, .min_args = 1, .max_args = 1, .resolve = iv_resolve,              \
     .update = iv_update, .combine = iv_combine, .finalize = iv_final, .serialize = floe_agg_pod_serialize,  \
     .deserialize = floe_agg_pod_deserialize}

const agg_func floe_agg_interval_funcs[] = {
    IV_ENTRY("interval_sum"),
    IV_ENTRY("interval_avg"),
    {.name = NULL},
};

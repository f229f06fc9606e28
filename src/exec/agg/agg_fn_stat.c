/*
 * agg_fn_stat.c — the statistical aggregates of the registry: variance
 * and standard deviation (var_samp / var_pop / variance, stddev_samp /
 * stddev_pop / stddev) and the two-argument family (corr, covar_pop,
 * covar_samp, regr_*), as PostgreSQL 15 defines them.
 *
 * The state is Welford's running mean and sum of squared deviations
 * (numerically stable: no catastrophic cancellation of Σx² - (Σx)²/n);
 * two states combine by Chan et al.'s pairwise formula, so PARTIAL →
 * FINAL (and a window segment tree) gives the same answer as one pass up
 * to rounding.  Every argument is read as a double: PostgreSQL returns
 * numeric for integer and numeric arguments of the one-argument family;
 * floe has no arbitrary-precision numeric and returns double precision,
 * as it does for avg.  Rows with a NULL argument (either one for the
 * two-argument family) are skipped.
 */
#include <math.h>
#include <string.h>

#include "exec/agg/agg_func.h"

/* ------------------------------------------------------ one argument */

typedef struct var_state {
    int64_t n;
    double mean, m2;
} var_state;

static floe_status var_resolve(agg_info *ai) {
    if (!floe_agg_is_numeric(ai->arg_types[0]) && ai->arg_types[0]->id != FLOE_TYPE_NULL)
        return floe_error(FLOE_ERR_TYPE, "%s(%s) is not defined", ai->fn->name, floe_type_id_name(ai->arg_types[0]->id));
    ai->out_type = floe_type_primitive(FLOE_TYPE_FLOAT64);
    ai->state_size = sizeof(var_state);
    return NULL;
}

static floe_status var_update(const agg_info *ai, uint8_t *states, size_t stride, const uint32_t *ids,
                              floe_array *const *args, const uint32_t *rows, int64_t base, int64_t n) {
    (void)ai;
    const floe_array *x = args[0];
    if (x->type->id == FLOE_TYPE_NULL) return NULL;
    for (int64_t k = 0; k < n; k++) {
        int64_t r = AGG_ROW(rows, base, k);
        if (floe_array_is_null(x, r)) continue;
        var_state *s = (var_state *)(states + (size_t)ids[k] * stride);
        double v = floe_agg_num(x, r);
        s->n++;
        double d = v - s->mean;
        s->mean += d / (double)s->n;
        s->m2 += d * (v - s->mean);
    }
    return NULL;
}

static floe_status var_combine(const agg_info *ai, uint8_t *dst_, const uint8_t *src_) {
    (void)ai;
    var_state *a = (var_state *)dst_;
    const var_state *b = (const var_state *)src_;
    if (b->n == 0) return NULL;
    if (a->n == 0) {
        *a = *b;
        return NULL;
    }
    double n = (double)(a->n + b->n), d = b->mean - a->mean;
    a->m2 += b->m2 + d * d * (double)a->n * (double)b->n / n;
    a->mean += d * (double)b->n / n;
    a->n += b->n;
    return NULL;
}

/* kind: 0 var_samp, 1 var_pop, 2 stddev_samp, 3 stddev_pop */
static floe_status var_final(const uint8_t *st, int kind, floe_builder *out) {
    const var_state *s = (const var_state *)st;
    bool samp = kind == 0 || kind == 2;
    if (s->n == 0 || (samp && s->n == 1)) return floe_builder_append_null(out);
    double v = s->m2 / (double)(samp ? s->n - 1 : s->n);
    if (v < 0) v = 0;
    return floe_builder_append_double(out, kind >= 2 ? sqrt(v) : v);
}
static floe_status var_samp_final(const agg_info *ai, const uint8_t *s, floe_builder *o) { (void)ai; return var_final(s, 0, o); }
static floe_status var_pop_final(const agg_info *ai, const uint8_t *s, floe_builder *o) { (void)ai; return var_final(s, 1, o); }
static floe_status sd_samp_final(const agg_info *ai, const uint8_t *s, floe_builder *o) { (void)ai; return var_final(s, 2, o); }
static floe_status sd_pop_final(const agg_info *ai, const uint8_t *s, floe_builder *o) { (void)ai; return var_final(s, 3, o); }

#define VAR_ENTRY(NAME, FIN)                                                                                       \
    {.name = NAME, .fast = FLOE_AGG_NAMED, .min_args = 1, .max_args = 1, .resolve = var_resolve,                  \
     .update = var_update, .combine = var_combine, .finalize = FIN, .serialize = floe_agg_pod_serialize,           \
     .deserialize = floe_agg_pod_deserialize}

/* ------------------------------------------------------ two arguments */

/* f(y, x): running means, sums of squared deviations and co-deviation. */
typedef struct cov_state {
    int64_t n;
    double mx, my, sxx, syy, sxy;
} cov_state;

static floe_status cov_resolve(agg_info *ai) {
    for (int i = 0; i < 2; i++)
        if (!floe_agg_is_numeric(ai->arg_types[i]) && ai->arg_types[i]->id != FLOE_TYPE_NULL)
            return floe_error(FLOE_ERR_TYPE, "%s(%s, %s) is not defined", ai->fn->name,
                              floe_type_id_name(ai->arg_types[0]->id), floe_type_id_name(ai->arg_types[1]->id));
    ai->out_type = floe_type_primitive(strcmp(ai->fn->name, "regr_count") ? FLOE_TYPE_FLOAT64 : FLOE_TYPE_INT64);
    ai->state_size = sizeof(cov_state);
    return NULL;
}

static floe_status cov_update(const agg_info *ai, uint8_t *states, size_t stride, const uint32_t *ids,
                              floe_array *const *args, const uint32_t *rows, int64_t base, int64_t n) {
    (void)ai;
    const floe_array *y = args[0], *x = args[1];
    if (y->type->id == FLOE_TYPE_NULL || x->type->id == FLOE_TYPE_NULL) return NULL;
    for (int64_t k = 0; k < n; k++) {
        int64_t r = AGG_ROW(rows, base, k);
        if (floe_array_is_null(x, r) || floe_array_is_null(y, r)) continue;
        cov_state *s = (cov_state *)(states + (size_t)ids[k] * stride);
        double vx = floe_agg_num(x, r), vy = floe_agg_num(y, r);
        s->n++;
        double dx = vx - s->mx, dy = vy - s->my;
        s->mx += dx / (double)s->n;
        s->my += dy / (double)s->n;
        s->sxx += dx * (vx - s->mx);
        s->syy += dy * (vy - s->my);
        s->sxy += dx * (vy - s->my);
    }
    return NULL;
}

static floe_status cov_combine(const agg_info *ai, uint8_t *dst_, const uint8_t *src_) {
    (void)ai;
    cov_state *a = (cov_state *)dst_;
    const cov_state *b = (const cov_state *)src_;
    if (b->n == 0) return NULL;
    if (a->n == 0) {
        *a = *b;
        return NULL;
    }
    double na = (double)a->n, nb = (double)b->n, n = na + nb;
    double dx = b->mx - a->mx, dy = b->my - a->my, f = na * nb / n;
    a->sxx += b->sxx + dx * dx * f;
    a->syy += b->syy + dy * dy * f;
    a->sxy += b->sxy + dx * dy * f;
    a->mx += dx * nb / n;
    a->my += dy * nb / n;
    a->n += b->n;
    return NULL;
}

enum { C_CORR, C_COVAR_POP, C_COVAR_SAMP, C_SLOPE, C_INTERCEPT, C_COUNT, C_R2, C_AVGX, C_AVGY, C_SXX, C_SYY, C_SXY };

static floe_status cov_final(const uint8_t *st, int kind, floe_builder *out) {
    const cov_state *s = (const cov_state *)st;
    if (kind == C_COUNT) return floe_builder_append_int64(out, s->n);
    if (s->n == 0) return floe_builder_append_null(out);
    double n = (double)s->n, v = 0;
    switch (kind) {
    case C_CORR:
        if (s->sxx == 0 || s->syy == 0) return floe_builder_append_null(out);
        v = s->sxy / sqrt(s->sxx * s->syy);
        break;
    case C_COVAR_POP: v = s->sxy / n; break;
    case C_COVAR_SAMP:
        if (s->n < 2) return floe_builder_append_null(out);
        v = s->sxy / (n - 1);
        break;
    case C_SLOPE:
        if (s->sxx == 0) return floe_builder_append_null(out);
        v = s->sxy / s->sxx;
        break;
    case C_INTERCEPT:
        if (s->sxx == 0) return floe_builder_append_null(out);
        v = s->my - s->mx * (s->sxy / s->sxx);
        break;
    case C_R2:
        if (s->sxx == 0) return floe_builder_append_null(out);
        if (s->syy == 0) { v = 1; break; }
        v = s->sxy * s->sxy / (s->sxx * s->syy);
        break;
    case C_AVGX: v = s->mx; break;
    case C_AVGY: v = s->my; break;
    case C_SXX: v = s->sxx; break;
    case C_SYY: v = s->syy; break;
    case C_SXY: v = s->sxy; break;
    }
    return floe_builder_append_double(out, v);
}

#define COV_FIN(FN, KIND) \
    static floe_status FN(const agg_info *ai, const uint8_t *s, floe_builder *o) { (void)ai; return cov_final(s, KIND, o); }
COV_FIN(corr_final, C_CORR)
COV_FIN(covar_pop_final, C_COVAR_POP)
COV_FIN(covar_samp_final, C_COVAR_SAMP)
COV_FIN(slope_final, C_SLOPE)
COV_FIN(intercept_final, C_INTERCEPT)
COV_FIN(count_final, C_COUNT)
COV_FIN(r2_final, C_R2)
COV_FIN(avgx_final, C_AVGX)
COV_FIN(avgy_final, C_AVGY)
COV_FIN(sxx_final, C_SXX)
COV_FIN(syy_final, C_SYY)
COV_FIN(sxy_final, C_SXY)

#define COV_ENTRY(NAME, FIN)                                                                                       \
    {.name = NAME, .fast = FLOE_AGG_NAMED, .min_args = 2, .max_args = 2, .resolve = cov_resolve,                  \
     .update = cov_update, .combine = cov_combine, .finalize = FIN, .serialize = floe_agg_pod_serialize,           \
     .deserialize = floe_agg_pod_deserialize}

const agg_func floe_agg_stat_funcs[] = {
    VAR_ENTRY("var_samp", var_samp_final),
    VAR_ENTRY("variance", var_samp_final),
    VAR_ENTRY("var_pop", var_pop_final),
    VAR_ENTRY("stddev_samp", sd_samp_final),
    VAR_ENTRY("stddev", sd_samp_final),
    VAR_ENTRY("stddev_pop", sd_pop_final),
    COV_ENTRY("corr", corr_final),
    COV_ENTRY("covar_pop", covar_pop_final),
    COV_ENTRY("covar_samp", covar_samp_final),
    COV_ENTRY("regr_slope", slope_final),
    COV_ENTRY("regr_intercept", intercept_final),
    COV_ENTRY("regr_count", count_final),
    COV_ENTRY("regr_r2", r2_final),
    COV_ENTRY("regr_avgx", avgx_final),
    COV_ENTRY("regr_avgy", avgy_final),
    COV_ENTRY("regr_sxx", sxx_final),
    COV_ENTRY("regr_syy", syy_final),
    COV_ENTRY("regr_sxy", sxy_final),
    {.name = NULL},
};

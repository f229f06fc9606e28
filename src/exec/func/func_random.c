/*
 * func_random.c — random() and setseed(x), as in PostgreSQL: random() is a
 * double in [0, 1), a fresh value for every row of every call; setseed(x),
 * x in [-1, 1], makes the values that follow repeatable.
 *
 * One generator (xoshiro256**) serves the whole process under a mutex,
 * taken once per batch, not per row: threads drawing at once never share
 * values, and a single-threaded statement after setseed sees the same
 * sequence every time.  The first draw seeds it from the clock and the
 * process id when setseed has not.  The planner never folds either call
 * into a constant (expr_util.c's volatile test).
 */
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exec/func/functions.h"

static pthread_mutex_t gen_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t gen_state[4];
static bool gen_seeded;

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* splitmix64: spreads one 64-bit seed over the four state words. */
static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void gen_seed(uint64_t seed) { /* caller holds gen_lock */
    for (int i = 0; i < 4; i++) gen_state[i] = splitmix(&seed);
    gen_seeded = true;
}

static uint64_t gen_next(void) { /* caller holds gen_lock */
    uint64_t *s = gen_state, r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

static floe_status eval_random(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                               floe_type *rt, floe_array **out) {
    (void)def, (void)a, (void)n;
    floe_buffer *vals = NULL;
    FLOE_TRY(floe_buffer_new(rows * 8, &vals));
    double *v = (double *)vals->data;
    pthread_mutex_lock(&gen_lock);
    if (!gen_seeded) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        gen_seed((uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32));
    }
    /* The top 53 bits over 2^53: every double in [0, 1) this fine, never 1. */
    for (int64_t i = 0; i < rows; i++) v[i] = (double)(gen_next() >> 11) * 0x1.0p-53;
    pthread_mutex_unlock(&gen_lock);
    return fn_make_fixed(rt, rows, NULL, vals, out);
}

/* setseed(x) returns NULL (PostgreSQL's void); a NULL x leaves the
 * generator alone, as a strict function. */
static floe_status eval_setseed(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                floe_type *rt, floe_array **out) {
    (void)n;
    for (int64_t i = 0; i < rows; i++) {
        int64_t at = fn_at(a[0], i);
        if (a[0]->type->id == FLOE_TYPE_NULL || floe_array_is_null(a[0], at)) continue;
        double x = fn_get_f64(a[0], i);
        if (!(x >= -1.0 && x <= 1.0))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "setseed parameter %g is out of allowed range [-1,1]", x);
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        pthread_mutex_lock(&gen_lock);
        gen_seed(bits);
        pthread_mutex_unlock(&gen_lock);
    }
    return floe_array_new_nulls(rt, rows, out);
}

bool floe_expr_is_volatile_call(const floe_expr *e) {
    return e && e->kind == FLOE_EXPR_CALL && e->func &&
           (strcmp(e->func, "random") == 0 || strcmp(e->func, "setseed") == 0);
}

const floe_func_def floe_random_funcs[] = {
    {"random", 0, 0, "random()", fn_type_simple, eval_random, 0, "N", FLOE_TYPE_FLOAT64},
    {"setseed", 1, 1, "setseed(double)", fn_type_simple, eval_setseed, 0, "N", FLOE_TYPE_NULL},
    {0},
};

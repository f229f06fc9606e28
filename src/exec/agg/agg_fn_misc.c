/*
 * agg_fn_misc.c — small streaming aggregates of the registry: bit_and /
 * bit_or / bit_xor (PostgreSQL), any_value and arg_min / arg_max (alias
 * min_by / max_by; DuckDB semantics: the first argument's value at the
 * row with the smallest / largest second argument, rows where either is
 * NULL skipped, the first such row kept on ties).
 *
 * A held value (hval) is one value of any non-nested type: fixed-width
 * values up to 16 bytes inline, strings and binary in memory the state
 * owns (freed by destroy).
 */
#include <string.h>

#include "floe/interval.h"
#include "exec/agg/agg_func.h"
#include "floe/memory.h"

/* ------------------------------------------------------------ bit_* */

typedef struct bit_state {
    int64_t v;
    uint8_t seen;
} bit_state;

static floe_status bit_resolve(agg_info *ai) {
    floe_type_id id = ai->arg_types[0]->id;
    if (id != FLOE_TYPE_INT32 && id != FLOE_TYPE_INT64)
        return floe_error(FLOE_ERR_TYPE, "%s(%s) is not defined", ai->fn->name, floe_type_id_name(id));
    ai->out_type = floe_type_primitive(id);
    ai->state_size = sizeof(bit_state);
    return NULL;
}

/* op: '&', '|', '^' from the entry's name */
static char bit_op(const agg_info *ai) { return ai->fn->name[4] == 'a' ? '&' : ai->fn->name[4] == 'o' ? '|' : '^'; }

static inline void bit_fold(bit_state *s, int64_t x, char op) {
    if (!s->seen) s->v = x;
    else if (op == '&') s->v &= x;
    else if (op == '|') s->v |= x;
    else s->v ^= x;
    s->seen = 1;
}

static floe_status bit_update(const agg_info *ai, uint8_t *states, size_t stride, const uint32_t *ids,
                              floe_array *const *args, const uint32_t *rows, int64_t base, int64_t n) {
    const floe_array *x = args[0];
    char op = bit_op(ai);
    bool i32 = x->type->id == FLOE_TYPE_INT32;
    for (int64_t k = 0; k < n; k++) {
        int64_t r = AGG_ROW(rows, base, k);
        if (floe_array_is_null(x, r)) continue;
        bit_fold((bit_state *)(states + (size_t)ids[k] * stride),
                 i32 ? (int64_t)floe_array_get_int32(x, r) : floe_array_get_int64(x, r), op);
    }
    return NULL;
}

static floe_status bit_combine(const agg_info *ai, uint8_t *dst, const uint8_t *src) {
    const bit_state *b = (const bit_state *)src;
    if (b->seen) bit_fold((bit_state *)dst, b->v, bit_op(ai));
    return NULL;
}

static floe_status bit_finalize(const agg_info *ai, const uint8_t *st, floe_builder *out) {
    const bit_state *s = (const bit_state *)st;
    if (!s->seen) return floe_builder_append_null(out);
    if (ai->out_type->id == FLOE_TYPE_INT32) return floe_builder_append_int32(out, (int32_t)s->v);
    return floe_builder_append_int64(out, s->v);
}

#define BIT_ENTRY(NAME)                                                                                            \
    {.name = NAME, .fast = FLOE_AGG_NAMED, .min_args = 1, .max_args = 1, .resolve = bit_resolve,                  \
     .update = bit_update, .combine = bit_combine, .finalize = bit_finalize, .serialize = floe_agg_pod_serialize,  \
     .deserialize = floe_agg_pod_deserialize}

/* ------------------------------------------------------- held values */

typedef struct hval {
    uint8_t set;
    int32_t len;       /* bytes: length */
    uint8_t *p;        /* bytes: owned */
    uint8_t fix[16];   /* fixed width / bool */
} hval;

static bool hval_type_ok(const floe_type *t) {
    if (floe_type_is_nested(t)) return false;
    return floe_type_is_binary_like(t) || t->id == FLOE_TYPE_BOOL || (t->byte_width > 0 && t->byte_width <= 16);
}

static floe_status hval_set(hval *h, const floe_array *a, int64_t r) {
    const floe_type *t = a->type;
    if (floe_type_is_binary_like(t)) {
        floe_strview v = floe_array_get_str(a, r);
        uint8_t *p = floe_realloc(h->p, (size_t)(v.len ? v.len : 1));
        if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "aggregate: holding a value of %lld bytes", (long long)v.len);
        if (v.len) memcpy(p, v.data, (size_t)v.len);
        h->p = p;
        h->len = (int32_t)v.len;
    } else if (t->id == FLOE_TYPE_BOOL) {
        h->fix[0] = floe_array_get_bool(a, r);
    } else {
        memcpy(h->fix, (const uint8_t *)floe_array_values(a) + (size_t)(a->offset + r) * (size_t)t->byte_width,
               (size_t)t->byte_width);
    }
    h->set = 1;
    return NULL;
}

static floe_status hval_copy(hval *h, const hval *src) {
    if (!src->set) return NULL;
    uint8_t *keep = h->p;
    h->set = 1;
    h->len = src->len;
    memcpy(h->fix, src->fix, sizeof h->fix);
    if (src->p) {
        uint8_t *p = floe_realloc(keep, (size_t)(src->len ? src->len : 1));
        if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "aggregate: copying a held value");
        if (src->len) memcpy(p, src->p, (size_t)src->len);
        h->p = p;
    } else {
        h->p = keep;
    }
    return NULL;
}

static floe_status hval_append(const hval *h, const floe_type *t, floe_builder *out) {
    if (!h->set) return floe_builder_append_null(out);
    if (floe_type_is_binary_like(t)) return floe_builder_append_binary(out, h->p ? (const void *)h->p : "", h->len);
    if (t->id == FLOE_TYPE_BOOL) return floe_builder_append_bool(out, h->fix[0] != 0);
    return floe_builder_append_values(out, h->fix, 1, NULL);
}

/* Serialized: set byte, then bytes (u32 length + data) or the 16 fixed bytes. */
static floe_status hval_put(const hval *h, const floe_type *t, floe_buf *out) {
    uint8_t set = h->set;
    FLOE_TRY(floe_buf_append(out, &set, 1));
    if (!set) return NULL;
    if (floe_type_is_binary_like(t)) {
        uint32_t len = (uint32_t)h->len;
        FLOE_TRY(floe_buf_append(out, &len, 4));
        return len ? floe_buf_append(out, h->p, len) : NULL;
    }
    return floe_buf_append(out, h->fix, 16);
}

static floe_status hval_get(hval *h, const floe_type *t, const uint8_t **p, const uint8_t *end) {
    if (*p >= end) return floe_error(FLOE_ERR_CORRUPT, "aggregate: truncated partial state");
    h->set = *(*p)++;
    if (!h->set) return NULL;
    if (floe_type_is_binary_like(t)) {
        uint32_t len;
        if (end - *p < 4) return floe_error(FLOE_ERR_CORRUPT, "aggregate: truncated partial state");
        memcpy(&len, *p, 4);
        *p += 4;
        if ((uint64_t)(end - *p) < len) return floe_error(FLOE_ERR_CORRUPT, "aggregate: truncated partial state");
        h->p = floe_malloc(len ? len : 1);
        if (!h->p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "aggregate: partial state");
        if (len) memcpy(h->p, *p, len);
        h->len = (int32_t)len;
        *p += len;
        return NULL;
    }
    if (end - *p < 16) return floe_error(FLOE_ERR_CORRUPT, "aggregate: truncated partial state");
    memcpy(h->fix, *p, 16);
    *p += 16;
    return NULL;
}

/* Compare a held value with row r of a (same type; neither NULL). */
static int hval_cmp(const hval *h, const floe_array *a, int64_t r) {
    const floe_type *t = a->type;
    switch (t->id) {
    case FLOE_TYPE_BOOL: {
        int x = h->fix[0] != 0, y = floe_array_get_bool(a, r);
        return x - y;
    }
    case FLOE_TYPE_FLOAT32:
    case FLOE_TYPE_FLOAT64: {
        double x, y = floe_agg_num(a, r);
        if (t->id == FLOE_TYPE_FLOAT32) {
            float f;
            memcpy(&f, h->fix, 4);
            x = f;
        } else {
            memcpy(&x, h->fix, 8);
        }
        if (x != x) return y != y ? 0 : 1; /* NaN is the largest */
        if (y != y) return -1;
        return x < y ? -1 : x > y;
    }
    case FLOE_TYPE_DECIMAL128: {
        __int128 x, y;
        memcpy(&x, h->fix, 16);
        memcpy(&y, (const uint8_t *)floe_array_values(a) + (size_t)(a->offset + r) * 16, 16);
        return x < y ? -1 : x > y;
    }
    case FLOE_TYPE_INTERVAL: {
        floe_interval x, y;
        memcpy(&x, h->fix, 16);
        memcpy(&y, (const uint8_t *)floe_array_values(a) + (size_t)(a->offset + r) * 16, 16);
        return floe_interval_cmp(x, y);
    }
    default:
        break;
    }
    if (floe_type_is_binary_like(t)) {
        floe_strview v = floe_array_get_str(a, r);
        int64_t m = h->len < v.len ? h->len : v.len;
        int c = m ? memcmp(h->p, v.data, (size_t)m) : 0;
        return c ? c : (h->len < v.len ? -1 : h->len > v.len);
    }
    if (t->byte_width == 4) {
        int32_t x;
        memcpy(&x, h->fix, 4);
        int32_t y = floe_array_get_int32(a, r);
        return x < y ? -1 : x > y;
    }
    if (t->byte_width == 8) {
        int64_t x;
        memcpy(&x, h->fix, 8);
        int64_t y = floe_array_get_int64(a, r);
        return x < y ? -1 : x > y;
    }
    return memcmp(h->fix, (const uint8_t *)floe_array_values(a) + (size_t)(a->offset + r) * (size_t)t->byte_width,
                  (size_t)t->byte_width);
}

/* Compare two held values of type t through a one-row array of b. */
static floe_status hval_cmp_held(const hval *a, const hval *b, const floe_type *t, int *out) {
    floe_builder *bl = NULL;
    floe_array *arr = NULL;
    floe_status st = floe_builder_new((floe_type *)t, 1, &bl);
    if (!st) st = hval_append(b, t, bl);
    if (!st) st = floe_builder_finish(bl, &arr);
    floe_builder_free(bl);
    if (!st) *out = hval_cmp(a, arr, 0);
    floe_array_release(arr);
    return st;
}

/* ---------------------------------------------------------- any_value */

static floe_status any_resolve(agg_info *ai) {
    if (!hval_type_ok(ai->arg_types[0]))
        return floe_error(FLOE_ERR_TYPE, "%s(%s) is not supported", ai->fn->name, floe_type_id_name(ai->arg_types[0]->id));
    ai->out_type = floe_type_retain(ai->arg_types[0]);
    ai->state_size = sizeof(hval);
    return NULL;
}

static floe_status any_update(const agg_info *ai, uint8_t *states, size_t stride, const uint32_t *ids,
                              floe_array *const *args, const uint32_t *rows, int64_t base, int64_t n) {
    (void)ai;
    const floe_array *x = args[0];
    if (x->type->id == FLOE_TYPE_NULL) return NULL;
    for (int64_t k = 0; k < n; k++) {
        int64_t r = AGG_ROW(rows, base, k);
        hval *h = (hval *)(states + (size_t)ids[k] * stride);
        if (h->set || floe_array_is_null(x, r)) continue;
        FLOE_TRY(hval_set(h, x, r));
    }
    return NULL;
}

static floe_status any_combine(const agg_info *ai, uint8_t *dst, const uint8_t *src) {
    (void)ai;
    hval *h = (hval *)dst;
    return h->set ? NULL : hval_copy(h, (const hval *)src);
}

static floe_status any_finalize(const agg_info *ai, const uint8_t *st, floe_builder *out) {
    return hval_append((const hval *)st, ai->out_type, out);
}

static void any_destroy(const agg_info *ai, uint8_t *st) {
    (void)ai;
    floe_free(((hval *)st)->p);
}

static floe_status any_serialize(const agg_info *ai, const uint8_t *st, floe_buf *out) {
    return hval_put((const hval *)st, ai->arg_types[0], out);
}

static floe_status any_deserialize(const agg_info *ai, const uint8_t *bytes, size_t len, uint8_t *st) {
    const uint8_t *p = bytes;
    return hval_get((hval *)st, ai->arg_types[0], &p, bytes + len);
}

/* ---------------------------------------------------- arg_min / arg_max */

typedef struct arg_state {
    hval x, by;
} arg_state;

static floe_status arg_resolve(agg_info *ai) {
    if (!hval_type_ok(ai->arg_types[0]) || !hval_type_ok(ai->arg_types[1]))
        return floe_error(FLOE_ERR_TYPE, "%s(%s, %s) is not supported", ai->fn->name,
                          floe_type_id_name(ai->arg_types[0]->id), floe_type_id_name(ai->arg_types[1]->id));
    ai->out_type = floe_type_retain(ai->arg_types[0]);
    ai->state_size = sizeof(arg_state);
    return NULL;
}

static bool arg_is_max(const agg_info *ai) { return strstr(ai->fn->name, "max") != NULL; }

static floe_status arg_update(const agg_info *ai, uint8_t *states, size_t stride, const uint32_t *ids,
                              floe_array *const *args, const uint32_t *rows, int64_t base, int64_t n) {
    const floe_array *x = args[0], *by = args[1];
    if (x->type->id == FLOE_TYPE_NULL || by->type->id == FLOE_TYPE_NULL) return NULL;
    bool max = arg_is_max(ai);
    for (int64_t k = 0; k < n; k++) {
        int64_t r = AGG_ROW(rows, base, k);
        if (floe_array_is_null(x, r) || floe_array_is_null(by, r)) continue;
        arg_state *s = (arg_state *)(states + (size_t)ids[k] * stride);
        if (s->by.set) {
            int c = hval_cmp(&s->by, by, r);
            if (max ? c >= 0 : c <= 0) continue;
        }
        FLOE_TRY(hval_set(&s->by, by, r));
        FLOE_TRY(hval_set(&s->x, x, r));
    }
    return NULL;
}

static floe_status arg_combine(const agg_info *ai, uint8_t *dst, const uint8_t *src) {
    arg_state *a = (arg_state *)dst;
    const arg_state *b = (const arg_state *)src;
    if (!b->by.set) return NULL;
    if (a->by.set) {
        int c;
        FLOE_TRY(hval_cmp_held(&a->by, &b->by, ai->arg_types[1], &c));
        if (arg_is_max(ai) ? c >= 0 : c <= 0) return NULL;
    }
    FLOE_TRY(hval_copy(&a->by, &b->by));
    return hval_copy(&a->x, &b->x);
}

static floe_status arg_finalize(const agg_info *ai, const uint8_t *st, floe_builder *out) {
    return hval_append(&((const arg_state *)st)->x, ai->out_type, out);
}

static void arg_destroy(const agg_info *ai, uint8_t *st) {
    (void)ai;
    floe_free(((arg_state *)st)->x.p);
    floe_free(((arg_state *)st)->by.p);
}

static floe_status arg_serialize(const agg_info *ai, const uint8_t *st, floe_buf *out) {
    const arg_state *s = (const arg_state *)st;
    FLOE_TRY(hval_put(&s->x, ai->arg_types[0], out));
    return hval_put(&s->by, ai->arg_types[1], out);
}

static floe_status arg_deserialize(const agg_info *ai, const uint8_t *bytes, size_t len, uint8_t *st) {
    arg_state *s = (arg_state *)st;
    const uint8_t *p = bytes, *end = bytes + len;
    FLOE_TRY(hval_get(&s->x, ai->arg_types[0], &p, end));
    return hval_get(&s->by, ai->arg_types[1], &p, end);
}

#define ARG_ENTRY(NAME)                                                                                            \
    {.name = NAME, .fast = FLOE_AGG_NAMED, .min_args = 2, .max_args = 2, .resolve = arg_resolve,                  \
     .update = arg_update, .combine = arg_combine, .finalize = arg_finalize, .destroy = arg_destroy,               \
     .serialize = arg_serialize, .deserialize = arg_deserialize}

const agg_func floe_agg_misc_funcs[] = {
    BIT_ENTRY("bit_and"),
    BIT_ENTRY("bit_or"),
    BIT_ENTRY("bit_xor"),
    {"any_value", .fast = FLOE_AGG_NAMED, .min_args = 1, .max_args = 1, .resolve = any_resolve,
     .update = any_update, .combine = any_combine, .finalize = any_finalize, .destroy = any_destroy,
     .serialize = any_serialize, .deserialize = any_deserialize},
    ARG_ENTRY("arg_min"),
    ARG_ENTRY("arg_max"),
    ARG_ENTRY("min_by"),
    ARG_ENTRY("max_by"),
    {.name = NULL},
};

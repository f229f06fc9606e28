/*
 * expr_fast.c — tight loops for the expression shapes that dominate
 * filters: a column compared with a constant, and AND / OR / NOT of
 * boolean arrays.
 *
 * The general evaluator (expr.c) broadcasts a literal into a full array,
 * widens both sides to a common representation and compares row by row
 * with a switch on the operator.  Here the constant is converted once to
 * the column's own representation, each (type, operator) pair gets its own
 * loop over the raw values, and eight results are packed into one byte at
 * a time.  Boolean connectives work on whole bytes of the bitmaps.
 * Anything else (or anything unusual, like a constant that does not
 * convert exactly) returns *done = false and takes the general path, which
 * defines the semantics; these loops must agree with it.
 */
#include <string.h>

#include "exec/expr/expr_fast.h"

typedef __int128 i128;

/* Pack the comparisons of n rows into bits: `TEST(i)` is the result of
 * row i.  Writes whole bytes (the buffer needs no zeroing). */
#define PACK_BITS(bits, n, TEST)                                                                      \
    do {                                                                                              \
        int64_t full_ = (n) / 8;                                                                      \
        for (int64_t b_ = 0; b_ < full_; b_++) {                                                      \
            int64_t i = b_ * 8;                                                                       \
            uint8_t byte_ = 0;                                                                        \
            for (int k_ = 0; k_ < 8; k_++, i++) byte_ |= (uint8_t)((TEST) ? 1u : 0u) << k_;           \
            (bits)[b_] = byte_;                                                                       \
        }                                                                                             \
        if ((n) % 8) {                                                                                \
            uint8_t byte_ = 0;                                                                        \
            for (int64_t i = full_ * 8; i < (n); i++) byte_ |= (uint8_t)((TEST) ? 1u : 0u) << (i - full_ * 8); \
            (bits)[full_] = byte_;                                                                    \
        }                                                                                             \
    } while (0)

/* One loop per operator over values v[] against constant c. */
#define CMP_LOOP(bits, n, v, c, op)                                   \
    do {                                                              \
        switch (op) {                                                 \
        case FLOE_CMP_EQ: PACK_BITS(bits, n, (v)[i] == (c)); break;   \
        case FLOE_CMP_NE: PACK_BITS(bits, n, (v)[i] != (c)); break;   \
        case FLOE_CMP_LT: PACK_BITS(bits, n, (v)[i] < (c)); break;    \
        case FLOE_CMP_LE: PACK_BITS(bits, n, (v)[i] <= (c)); break;   \
        case FLOE_CMP_GT: PACK_BITS(bits, n, (v)[i] > (c)); break;    \
        default: PACK_BITS(bits, n, (v)[i] >= (c)); break;            \
        }                                                             \
    } while (0)

static int flip(int op) {
    switch (op) {
    case FLOE_CMP_LT: return FLOE_CMP_GT;
    case FLOE_CMP_LE: return FLOE_CMP_GE;
    case FLOE_CMP_GT: return FLOE_CMP_LT;
    case FLOE_CMP_GE: return FLOE_CMP_LE;
    default: return op;
    }
}

static bool is_int32ish(floe_type_id id) { return id == FLOE_TYPE_INT32 || id == FLOE_TYPE_DATE32; }
static bool is_int64ish(floe_type_id id) {
    return id == FLOE_TYPE_INT64 || id == FLOE_TYPE_TIME64_US || id == FLOE_TYPE_TIMESTAMP_US ||
           id == FLOE_TYPE_TIMESTAMP_US_TZ || id == FLOE_TYPE_TIMESTAMP_NS || id == FLOE_TYPE_TIMESTAMP_NS_TZ;
}

/* The result's validity: a copy of the column's, realigned to offset 0
 * (NULL when the column has no nulls). */
static floe_status copy_validity(const floe_array *a, int64_t n, floe_buffer **out) {
    *out = NULL;
    if (!a->validity || floe_array_null_count(a) == 0) return NULL;
    FLOE_TRY(floe_buffer_new((n + 7) / 8, out));
    uint8_t *dst = (*out)->data;
    const uint8_t *src = a->validity->data;
    if (a->offset % 8 == 0) {
        memcpy(dst, src + a->offset / 8, (size_t)((n + 7) / 8));
    } else {
        for (int64_t i = 0; i < n; i++)
            if (floe_bit_get(src, a->offset + i)) floe_bit_set(dst, i);
    }
    return NULL;
}

static floe_status finish_bool(int64_t n, floe_buffer *validity, floe_buffer *values, floe_array **out) {
    floe_status st = floe_array_new(floe_type_primitive(FLOE_TYPE_BOOL), n, 0, FLOE_NULL_COUNT_UNKNOWN, validity,
                                    &values, 1, NULL, 0, out);
    floe_buffer_release(validity);
    floe_buffer_release(values);
    return st;
}

static i128 lit_i128(const floe_array *lit) {
    switch (lit->type->id) {
    case FLOE_TYPE_INT32: return floe_array_get_int32(lit, 0);
    case FLOE_TYPE_INT64: return floe_array_get_int64(lit, 0);
    default: {
        floe_decimal128 d = floe_array_get_decimal(lit, 0);
        return (i128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
    }
    }
}

typedef enum cmp_kind { CK_NONE, CK_I32, CK_I64, CK_F64, CK_F32, CK_DEC, CK_STR } cmp_kind;

typedef struct cmp_const_val {
    cmp_kind kind;
    int64_t c64;
    double cd;
    i128 c128;
} cmp_const_val;

/* Which loop compares a column of type `at` with the constant `lit`, and
 * the constant in the column's representation (kind CK_NONE: none). */
static cmp_const_val classify(const floe_type *at_type, const floe_array *lit) {
    cmp_const_val r = {CK_NONE, 0, 0, 0};
    floe_type_id at = at_type->id, lt = lit->type->id;
    if (is_int32ish(at) && (lt == at || (at == FLOE_TYPE_INT32 && lt == FLOE_TYPE_INT64))) {
        r.kind = CK_I32;
        r.c64 = lt == FLOE_TYPE_INT64 ? floe_array_get_int64(lit, 0) : floe_array_get_int32(lit, 0);
    } else if (is_int64ish(at) && (lt == at || (at == FLOE_TYPE_INT64 && lt == FLOE_TYPE_INT32))) {
        r.kind = CK_I64;
        r.c64 = lt == FLOE_TYPE_INT32 ? floe_array_get_int32(lit, 0) : floe_array_get_int64(lit, 0);
    } else if ((at == FLOE_TYPE_FLOAT64 || at == FLOE_TYPE_FLOAT32) &&
               (lt == FLOE_TYPE_FLOAT64 || lt == FLOE_TYPE_FLOAT32 || lt == FLOE_TYPE_INT32 || lt == FLOE_TYPE_INT64)) {
        r.kind = at == FLOE_TYPE_FLOAT64 ? CK_F64 : CK_F32;
        switch (lt) {
        case FLOE_TYPE_FLOAT64: r.cd = floe_array_get_double(lit, 0); break;
        case FLOE_TYPE_FLOAT32: r.cd = floe_array_get_float(lit, 0); break;
        case FLOE_TYPE_INT32: r.cd = floe_array_get_int32(lit, 0); break;
        default: r.cd = (double)floe_array_get_int64(lit, 0); break;
        }
    } else if (at == FLOE_TYPE_DECIMAL128 &&
               (lt == FLOE_TYPE_DECIMAL128 || lt == FLOE_TYPE_INT32 || lt == FLOE_TYPE_INT64)) {
        /* Bring the constant to the column's scale; only when exact. */
        int32_t as = at_type->scale, ls = lt == FLOE_TYPE_DECIMAL128 ? lit->type->scale : 0;
        if (ls > as) return r;
        i128 v = lit_i128(lit);
        for (int32_t k = ls; k < as; k++)
            if (__builtin_mul_overflow(v, (i128)10, &v)) return r;
        r.kind = CK_DEC;
        r.c128 = v;
    } else if (at == FLOE_TYPE_STRING && lt == FLOE_TYPE_STRING) {
        r.kind = CK_STR;
    }
    return r;
}

/* Column `a` <op> constant `lit` with the loop `cv` chose. */
static floe_status cmp_const(const floe_array *a, int op, const floe_array *lit, cmp_const_val cv, floe_array **out,
                             bool *done) {
    int64_t n = a->length;
    int64_t c64 = cv.c64;
    double cd = cv.cd;
    i128 c128 = cv.c128;
    floe_buffer *validity = NULL, *values = NULL;
    FLOE_TRY(copy_validity(a, n, &validity));
    floe_status st = floe_buffer_new((n + 7) / 8, &values);
    if (st) {
        floe_buffer_release(validity);
        return st;
    }
    uint8_t *bits = values->data;
    switch (cv.kind) {
    case CK_I32: {
        const int32_t *v = floe_array_values(a);
        if (c64 < INT32_MIN || c64 > INT32_MAX) {
            /* Beyond every int32: the answer is the same for all rows. */
            bool below = c64 < INT32_MIN;
            bool r = op == FLOE_CMP_NE || ((op == FLOE_CMP_GT || op == FLOE_CMP_GE) ? below
                                           : (op == FLOE_CMP_LT || op == FLOE_CMP_LE) ? !below : false);
            memset(bits, r ? 0xff : 0, (size_t)((n + 7) / 8));
        } else {
            int32_t c = (int32_t)c64;
            CMP_LOOP(bits, n, v, c, op);
        }
        break;
    }
    case CK_I64: {
        const int64_t *v = floe_array_values(a);
        CMP_LOOP(bits, n, v, c64, op);
        break;
    }
    case CK_F64: {
        const double *v = floe_array_values(a);
        CMP_LOOP(bits, n, v, cd, op);
        break;
    }
    case CK_F32: {
        const float *v = floe_array_values(a);
        double c = cd;
        switch (op) { /* compare as double, like the general path */
        case FLOE_CMP_EQ: PACK_BITS(bits, n, (double)v[i] == c); break;
        case FLOE_CMP_NE: PACK_BITS(bits, n, (double)v[i] != c); break;
        case FLOE_CMP_LT: PACK_BITS(bits, n, (double)v[i] < c); break;
        case FLOE_CMP_LE: PACK_BITS(bits, n, (double)v[i] <= c); break;
        case FLOE_CMP_GT: PACK_BITS(bits, n, (double)v[i] > c); break;
        default: PACK_BITS(bits, n, (double)v[i] >= c); break;
        }
        break;
    }
    case CK_DEC: {
        const floe_decimal128 *d = floe_array_values(a);
#define DV(i) ((i128)(((unsigned __int128)(uint64_t)d[i].hi << 64) | d[i].lo))
        switch (op) {
        case FLOE_CMP_EQ: PACK_BITS(bits, n, DV(i) == c128); break;
        case FLOE_CMP_NE: PACK_BITS(bits, n, DV(i) != c128); break;
        case FLOE_CMP_LT: PACK_BITS(bits, n, DV(i) < c128); break;
        case FLOE_CMP_LE: PACK_BITS(bits, n, DV(i) <= c128); break;
        case FLOE_CMP_GT: PACK_BITS(bits, n, DV(i) > c128); break;
        default: PACK_BITS(bits, n, DV(i) >= c128); break;
        }
#undef DV
        break;
    }
    case CK_STR: {
        floe_strview c = floe_array_get_str(lit, 0);
        const int32_t *off = floe_array_offsets(a);
        const char *data = (const char *)a->buffers[1]->data;
#define SC(i)                                                                                         \
    ({                                                                                                \
        int32_t l_ = off[(i) + 1] - off[i];                                                           \
        int r_ = memcmp(data + off[i], c.data, (size_t)(l_ < c.len ? l_ : c.len));                    \
        r_ ? r_ : (l_ > c.len) - (l_ < c.len);                                                        \
    })
        switch (op) {
        case FLOE_CMP_EQ: PACK_BITS(bits, n, off[i + 1] - off[i] == c.len && SC(i) == 0); break;
        case FLOE_CMP_NE: PACK_BITS(bits, n, off[i + 1] - off[i] != c.len || SC(i) != 0); break;
        case FLOE_CMP_LT: PACK_BITS(bits, n, SC(i) < 0); break;
        case FLOE_CMP_LE: PACK_BITS(bits, n, SC(i) <= 0); break;
        case FLOE_CMP_GT: PACK_BITS(bits, n, SC(i) > 0); break;
        default: PACK_BITS(bits, n, SC(i) >= 0); break;
        }
#undef SC
        break;
    }
    default: break;
    }
    *done = true;
    return finish_bool(n, validity, values, out);
}

/* AND / OR / NOT over whole bytes of byte-aligned bool arrays. */
static floe_status logic_bytes(const floe_expr *e, floe_array *const *args, int64_t n, floe_array **out,
                               bool *done) {
    int na = e->kind == FLOE_EXPR_NOT ? 1 : 2;
    for (int k = 0; k < na; k++)
        if (args[k]->type->id != FLOE_TYPE_BOOL || args[k]->offset % 8 != 0) return NULL;
    int64_t nb = (n + 7) / 8;
    const uint8_t *a = args[0]->buffers[0]->data + args[0]->offset / 8;
    const uint8_t *av = args[0]->validity && floe_array_null_count(args[0]) ? args[0]->validity->data + args[0]->offset / 8
                                                                           : NULL;
    const uint8_t *b = na > 1 ? args[1]->buffers[0]->data + args[1]->offset / 8 : NULL;
    const uint8_t *bv = na > 1 && args[1]->validity && floe_array_null_count(args[1])
                            ? args[1]->validity->data + args[1]->offset / 8 : NULL;
    floe_buffer *values = NULL, *validity = NULL;
    FLOE_TRY(floe_buffer_new(nb, &values));
    floe_status st = NULL;
    if (av || bv) st = floe_buffer_new(nb, &validity);
    if (st) {
        floe_buffer_release(values);
        return st;
    }
    uint8_t *x = values->data, *xv = validity ? validity->data : NULL;
    for (int64_t i = 0; i < nb; i++) {
        uint8_t va = av ? av[i] : 0xff, vb = bv ? bv[i] : 0xff;
        uint8_t ta = a[i] & va, fa = (uint8_t)~a[i] & va; /* known TRUE / known FALSE */
        switch (e->kind) {
        case FLOE_EXPR_NOT:
            x[i] = fa;
            if (xv) xv[i] = va;
            break;
        case FLOE_EXPR_AND: {
            uint8_t tb = b[i] & vb, fb = (uint8_t)~b[i] & vb;
            x[i] = ta & tb;
            if (xv) xv[i] = (uint8_t)((ta & tb) | fa | fb); /* FALSE wins over NULL */
            break;
        }
        default: { /* OR */
            uint8_t tb = b[i] & vb, fb = (uint8_t)~b[i] & vb;
            x[i] = ta | tb;
            if (xv) xv[i] = (uint8_t)(ta | tb | (fa & fb)); /* TRUE wins over NULL */
            break;
        }
        }
    }
    *done = true;
    return finish_bool(n, validity, values, out);
}

/* ------------------------------------------------- decimal arithmetic */

/* One side of a decimal + - *: an array of decimals or ints, or a
 * constant. */
typedef struct dec_side {
    const floe_array *a;      /* NULL: constant */
    i128 c;
    int32_t scale, precision;
} dec_side;

static bool dec_side_of(const floe_expr *x, const floe_batch *batch, floe_array **hold, dec_side *s,
                        floe_status *st) {
    memset(s, 0, sizeof *s);
    *st = NULL;
    if (x->kind == FLOE_EXPR_LITERAL) {
        const floe_array *l = x->literal;
        if (floe_array_is_null(l, 0)) return false;
        floe_type_id t = l->type->id;
        if (t != FLOE_TYPE_DECIMAL128 && t != FLOE_TYPE_INT32 && t != FLOE_TYPE_INT64) return false;
        s->c = lit_i128(l);
        s->scale = t == FLOE_TYPE_DECIMAL128 ? l->type->scale : 0;
        s->precision = t == FLOE_TYPE_DECIMAL128 ? l->type->precision : t == FLOE_TYPE_INT32 ? 10 : 19;
        return true;
    }
    if ((*st = floe_expr_eval(x, batch, hold))) return false;
    const floe_type *t = (*hold)->type;
    if (t->id != FLOE_TYPE_DECIMAL128) return false; /* ints with a decimal: the general path */
    s->a = *hold;
    s->scale = t->scale;
    s->precision = t->precision;
    return true;
}

typedef unsigned __int128 u128;

/* v (two's complement) fits in 64 bits: its high word only extends the sign. */
static inline bool fits64(u128 v) { return (i128)v == (i128)(int64_t)(uint64_t)v; }

/* a * b mod 2^128; one 64x64 multiply when both fit in 64 bits (the
 * usual case: decimal(18) and below), else the full 128-bit product. */
static inline u128 mul_wrap(u128 a, u128 b) {
    if (fits64(a) && fits64(b)) return (u128)((i128)(int64_t)(uint64_t)a * (int64_t)(uint64_t)b);
    return a * b;
}

static floe_status dec_arith(const floe_expr *e, const floe_batch *batch, floe_array **out, bool *done) {
    int op = e->op;
    if (op != FLOE_ARITH_ADD && op != FLOE_ARITH_SUB && op != FLOE_ARITH_MUL) return NULL;
    floe_array *hold[2] = {NULL, NULL};
    dec_side s[2];
    floe_status st = NULL;
    floe_type *rt = NULL;
    floe_buffer *validity = NULL, *values = NULL;
    int64_t n = batch->num_rows;
    /* Decide from the types alone, before evaluating anything, so a
     * refusal never evaluates the arguments twice. */
    if ((st = floe_expr_type(e, batch->schema, &rt))) goto out;
    if (rt->id != FLOE_TYPE_DECIMAL128) goto out;
    for (int k = 0; k < 2; k++) {
        const floe_expr *x = e->args[k];
        if (x->kind == FLOE_EXPR_LITERAL) continue; /* checked by dec_side_of */
        floe_type *xt = NULL;
        if ((st = floe_expr_type(x, batch->schema, &xt))) goto out;
        bool dec = xt->id == FLOE_TYPE_DECIMAL128;
        floe_type_release(xt);
        if (!dec) goto out;
    }
    if (e->args[0]->kind == FLOE_EXPR_LITERAL && e->args[1]->kind == FLOE_EXPR_LITERAL) goto out;
    for (int k = 0; k < 2; k++)
        if (e->args[k]->kind == FLOE_EXPR_LITERAL && !dec_side_of(e->args[k], batch, &hold[k], &s[k], &st)) goto out;
    for (int k = 0; k < 2; k++)
        if (e->args[k]->kind != FLOE_EXPR_LITERAL && !dec_side_of(e->args[k], batch, &hold[k], &s[k], &st)) goto out;
    /* Can the exact result overflow?  |a| < 10^p1, |b| < 10^p2 (at their
     * own scales).  For * the product is below 10^(p1+p2); for + and -
     * the rescaled operands are below 10^(p - s + sc) each, so the sum is
     * below 10^(max + 1).  When that bound fits the result precision no
     * row can fail and no check is needed. */
    int32_t sc = rt->scale;
    int32_t bound = op == FLOE_ARITH_MUL ? s[0].precision + s[1].precision
                                          : (s[0].precision - s[0].scale > s[1].precision - s[1].scale
                                                 ? s[0].precision - s[0].scale
                                                 : s[1].precision - s[1].scale) + sc + 1;
    bool checked = bound > rt->precision || bound > 38;
    u128 m[2] = {1, 1};
    if (op != FLOE_ARITH_MUL)
        for (int k = 0; k < 2; k++)
            for (int32_t j = s[k].scale; j < sc; j++) m[k] *= 10;
    const floe_array *both[2] = {s[0].a, s[1].a};
    /* validity: AND of the array sides' */
    for (int k = 0; k < 2 && !st; k++) {
        if (!both[k] || !both[k]->validity || floe_array_null_count(both[k]) == 0) continue;
        floe_buffer *v = NULL;
        if ((st = copy_validity(both[k], n, &v))) break;
        if (!validity) validity = v;
        else {
            for (int64_t i = 0; i < (n + 7) / 8; i++) validity->data[i] &= v->data[i];
            floe_buffer_release(v);
        }
    }
    if (!st) st = floe_buffer_new(n * 16, &values);
    if (st) goto out;
    floe_decimal128 *o = (floe_decimal128 *)values->data;
    const floe_decimal128 *da = s[0].a ? floe_array_values(s[0].a) : NULL;
    const floe_decimal128 *db = s[1].a ? floe_array_values(s[1].a) : NULL;
    u128 ca = (u128)s[0].c * m[0], cb = (u128)s[1].c * m[1];
    /* Unsigned arithmetic: wraps instead of overflowing on the garbage a
     * NULL slot may hold; exact for every valid row (bound above). */
#define UV(d, i) ((((u128)(uint64_t)(d)[i].hi) << 64) | (d)[i].lo)
    if (checked) {
        /* Rows may overflow the result precision: check each valid row;
         * on the first failure leave it all to the general path, which
         * reports the offending values. */
        i128 limit = 1;
        for (int32_t j = 0; j < rt->precision; j++) limit *= 10;
        const uint8_t *vb = validity ? validity->data : NULL;
        for (int64_t i = 0; i < n; i++) {
            if (vb && !floe_bit_get(vb, i)) {
                o[i].lo = 0;
                o[i].hi = 0;
                continue;
            }
            i128 a = da ? (i128)UV(da, i) : s[0].c, b = db ? (i128)UV(db, i) : s[1].c, x;
            bool ok;
            if (op == FLOE_ARITH_MUL && fits64((u128)a) && fits64((u128)b)) {
                x = (i128)(int64_t)a * (int64_t)b; /* one 64x64 multiply, cannot overflow */
                ok = true;
            } else {
                ok = !__builtin_mul_overflow(a, (i128)m[0], &a) && !__builtin_mul_overflow(b, (i128)m[1], &b);
                if (ok) {
                    if (op == FLOE_ARITH_ADD) ok = !__builtin_add_overflow(a, b, &x);
                    else if (op == FLOE_ARITH_SUB) ok = !__builtin_sub_overflow(a, b, &x);
                    else ok = !__builtin_mul_overflow(a, b, &x);
                }
            }
            if (!ok || x >= limit || x <= -limit) goto out; /* *done stays false */
            o[i].lo = (uint64_t)x;
            o[i].hi = (int64_t)(x >> 64);
        }
        goto made;
    }
    /* No row can overflow: one loop per (operator, which sides are
     * arrays), rescaling only the side that needs it. */
#define PUT(i, x)                                  \
    do {                                           \
        u128 x_ = (x);                             \
        o[i].lo = (uint64_t)x_;                    \
        o[i].hi = (int64_t)(uint64_t)(x_ >> 64);   \
    } while (0)
    if (op == FLOE_ARITH_MUL) {
        if (da && db) {
            for (int64_t i = 0; i < n; i++) PUT(i, mul_wrap(UV(da, i), UV(db, i)));
        } else {
            const floe_decimal128 *d = da ? da : db;
            u128 c = da ? cb : ca;
            if (fits64(c)) {
                int64_t c64 = (int64_t)(uint64_t)c;
                for (int64_t i = 0; i < n; i++) {
                    u128 v = UV(d, i);
                    PUT(i, fits64(v) ? (u128)((i128)(int64_t)(uint64_t)v * c64) : v * c);
                }
            } else {
                for (int64_t i = 0; i < n; i++) PUT(i, UV(d, i) * c);
            }
        }
    } else {
        bool sub = op == FLOE_ARITH_SUB;
        u128 m0 = m[0], m1 = m[1];
        if (da && db) {
            if (m0 == 1 && m1 == 1) {
                if (sub) for (int64_t i = 0; i < n; i++) PUT(i, UV(da, i) - UV(db, i));
                else for (int64_t i = 0; i < n; i++) PUT(i, UV(da, i) + UV(db, i));
            } else {
                if (sub) for (int64_t i = 0; i < n; i++) PUT(i, UV(da, i) * m0 - UV(db, i) * m1);
                else for (int64_t i = 0; i < n; i++) PUT(i, UV(da, i) * m0 + UV(db, i) * m1);
            }
        } else if (da) {
            if (m0 == 1) {
                if (sub) for (int64_t i = 0; i < n; i++) PUT(i, UV(da, i) - cb);
                else for (int64_t i = 0; i < n; i++) PUT(i, UV(da, i) + cb);
            } else {
                if (sub) for (int64_t i = 0; i < n; i++) PUT(i, UV(da, i) * m0 - cb);
                else for (int64_t i = 0; i < n; i++) PUT(i, UV(da, i) * m0 + cb);
            }
        } else {
            if (m1 == 1) {
                if (sub) for (int64_t i = 0; i < n; i++) PUT(i, ca - UV(db, i));
                else for (int64_t i = 0; i < n; i++) PUT(i, ca + UV(db, i));
            } else {
                if (sub) for (int64_t i = 0; i < n; i++) PUT(i, ca - UV(db, i) * m1);
                else for (int64_t i = 0; i < n; i++) PUT(i, ca + UV(db, i) * m1);
            }
        }
    }
#undef PUT
made:
#undef UV
    st = floe_array_new(rt, n, 0, FLOE_NULL_COUNT_UNKNOWN, validity, &values, 1, NULL, 0, out);
    if (!st) *done = true;
out:
    floe_buffer_release(validity);
    floe_buffer_release(values);
    floe_type_release(rt);
    floe_array_release(hold[0]);
    floe_array_release(hold[1]);
    return st;
}

floe_status floe_expr_fast_eval(const floe_expr *e, const floe_batch *batch, floe_array **out, bool *done) {
    *done = false;
    *out = NULL;
    if (e->kind == FLOE_EXPR_CMP) {
        const floe_expr *x = e->args[0], *c = e->args[1];
        int op = e->op;
        if (x->kind == FLOE_EXPR_LITERAL) {
            const floe_expr *t = x;
            x = c;
            c = t;
            op = flip(op);
        }
        if (c->kind != FLOE_EXPR_LITERAL || x->kind == FLOE_EXPR_LITERAL || floe_array_is_null(c->literal, 0))
            return NULL;
        /* Decide from the type before evaluating, so a refusal never
         * evaluates the column side twice. */
        floe_type *xt;
        FLOE_TRY(floe_expr_type(x, batch->schema, &xt));
        cmp_const_val cv = classify(xt, c->literal);
        floe_type_release(xt);
        if (cv.kind == CK_NONE) return NULL;
        floe_array *a;
        FLOE_TRY(floe_expr_eval(x, batch, &a));
        floe_status st = cmp_const(a, op, c->literal, cv, out, done);
        floe_array_release(a);
        return st;
    }
    if (e->kind == FLOE_EXPR_ARITH) return dec_arith(e, batch, out, done);
    if (e->kind == FLOE_EXPR_AND || e->kind == FLOE_EXPR_OR || e->kind == FLOE_EXPR_NOT) {
        floe_array *args[2] = {NULL, NULL};
        floe_status st = NULL;
        for (int32_t i = 0; i < e->n_args && !st; i++) st = floe_expr_eval(e->args[i], batch, &args[i]);
        if (!st) st = logic_bytes(e, args, batch->num_rows, out, done);
        if (!st && !*done) {
            /* Not byte-aligned: hand the evaluated arguments on rather than
             * evaluating them again. */
            st = floe_expr_logic_general(e, args, batch->num_rows, out);
            *done = !st;
        }
        floe_array_release(args[0]);
        floe_array_release(args[1]);
        return st;
    }
    return NULL;
}

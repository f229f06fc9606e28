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

#include "exec/expr_fast.h"

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

/* Column `a` <op> constant `lit`; *done false when no loop fits. */
static floe_status cmp_const(const floe_array *a, int op, const floe_array *lit, floe_array **out, bool *done) {
    floe_type_id at = a->type->id, lt = lit->type->id;
    int64_t n = a->length;
    enum { NONE, I32, I64, F64, F32, DEC, STR } kind = NONE;
    int64_t c64 = 0;
    double cd = 0;
    i128 c128 = 0;
    if (is_int32ish(at) && (lt == at || (at == FLOE_TYPE_INT32 && lt == FLOE_TYPE_INT64))) {
        kind = I32;
        c64 = lt == FLOE_TYPE_INT64 ? floe_array_get_int64(lit, 0) : floe_array_get_int32(lit, 0);
    } else if (is_int64ish(at) && (lt == at || (at == FLOE_TYPE_INT64 && lt == FLOE_TYPE_INT32))) {
        kind = I64;
        c64 = lt == FLOE_TYPE_INT32 ? floe_array_get_int32(lit, 0) : floe_array_get_int64(lit, 0);
    } else if ((at == FLOE_TYPE_FLOAT64 || at == FLOE_TYPE_FLOAT32) &&
               (lt == FLOE_TYPE_FLOAT64 || lt == FLOE_TYPE_FLOAT32 || lt == FLOE_TYPE_INT32 || lt == FLOE_TYPE_INT64)) {
        kind = at == FLOE_TYPE_FLOAT64 ? F64 : F32;
        switch (lt) {
        case FLOE_TYPE_FLOAT64: cd = floe_array_get_double(lit, 0); break;
        case FLOE_TYPE_FLOAT32: cd = floe_array_get_float(lit, 0); break;
        case FLOE_TYPE_INT32: cd = floe_array_get_int32(lit, 0); break;
        default: cd = (double)floe_array_get_int64(lit, 0); break;
        }
    } else if (at == FLOE_TYPE_DECIMAL128 &&
               (lt == FLOE_TYPE_DECIMAL128 || lt == FLOE_TYPE_INT32 || lt == FLOE_TYPE_INT64)) {
        /* Bring the constant to the column's scale; only when exact. */
        int32_t as = a->type->scale, ls = lt == FLOE_TYPE_DECIMAL128 ? lit->type->scale : 0;
        if (ls > as) return NULL;
        i128 v = lit_i128(lit);
        for (int32_t k = ls; k < as; k++)
            if (__builtin_mul_overflow(v, (i128)10, &v)) return NULL;
        kind = DEC;
        c128 = v;
    } else if (at == FLOE_TYPE_STRING && lt == FLOE_TYPE_STRING) {
        kind = STR;
    }
    if (kind == NONE) return NULL;
    floe_buffer *validity = NULL, *values = NULL;
    FLOE_TRY(copy_validity(a, n, &validity));
    floe_status st = floe_buffer_new((n + 7) / 8, &values);
    if (st) {
        floe_buffer_release(validity);
        return st;
    }
    uint8_t *bits = values->data;
    switch (kind) {
    case I32: {
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
    case I64: {
        const int64_t *v = floe_array_values(a);
        CMP_LOOP(bits, n, v, c64, op);
        break;
    }
    case F64: {
        const double *v = floe_array_values(a);
        CMP_LOOP(bits, n, v, cd, op);
        break;
    }
    case F32: {
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
    case DEC: {
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
    case STR: {
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
        floe_array *a;
        FLOE_TRY(floe_expr_eval(x, batch, &a));
        floe_status st = cmp_const(a, op, c->literal, out, done);
        floe_array_release(a);
        return st;
    }
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

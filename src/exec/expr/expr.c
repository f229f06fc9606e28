/*
 * expr.c — the exec layer's scalar expressions: construction, type
 * inference and vectorised evaluation over record batches.
 *
 * Evaluation works a whole batch at a time.  Operands are evaluated to
 * arrays (literals broadcast to the batch length), then one tight loop per
 * operator and operand class computes the result values; the result
 * validity is computed separately.  Nothing is allocated per row.
 *
 * SQL semantics: comparisons and arithmetic are NULL when an operand is
 * NULL; AND/OR follow three-valued logic (FALSE AND NULL = FALSE, TRUE OR
 * NULL = TRUE); integer overflow, division by zero and unparseable casts
 * are errors naming the value — checked only on valid rows.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "exec/func/functions.h"
#include "exec/expr/cast.h"
#include "exec/expr/cast_list.h"
#include "exec/expr/cast_record.h"
#include "floe/interval.h"
#include "exec/expr/expr_fast.h"
#include "floe/exec.h"

/* --------------------------------------------------------- construction */

static const char *const cmp_names[] = {"=", "<>", "<", "<=", ">", ">="};
static const char *const arith_names[] = {"+", "-", "*", "/", "%"};

static int expr_arity(floe_expr_kind k) {
    switch (k) {
    case FLOE_EXPR_COLUMN:
    case FLOE_EXPR_LITERAL: return 0;
    case FLOE_EXPR_NOT:
    case FLOE_EXPR_IS_NULL:
    case FLOE_EXPR_IS_NOT_NULL:
    case FLOE_EXPR_CAST: return 1;
    default: return 2;
    }
}

floe_status floe_expr_make(floe_expr_kind kind, int32_t op, int32_t column, floe_array *literal,
                           floe_type *cast_type, const char *func, floe_expr *const *args,
                           int32_t n_args, floe_expr **out) {
    *out = NULL;
    if ((int)kind < 0 || kind >= FLOE_EXPR_KIND_COUNT_)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "expression kind %d is unknown", (int)kind);
    if ((kind == FLOE_EXPR_CALL) != (func != NULL))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, kind == FLOE_EXPR_CALL ? "a function call needs a name"
                                                                           : "only a function call has a name");
    if (kind == FLOE_EXPR_CALL) {
        /* The argument count is checked with the types (floe_expr_type). */
        if (n_args < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative argument count %d", n_args);
        if (!floe_func_lookup(func)) return floe_func_unknown(func);
    } else if (kind == FLOE_EXPR_CASE) {
        if (op < 0 || op > 1 || n_args < 2 + op || (n_args - op) % 2 != 0)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "CASE needs WHEN/THEN pairs (%d arguments, else flag %d)",
                              n_args, op);
    } else if (kind == FLOE_EXPR_IN || kind == FLOE_EXPR_COALESCE) {
        if (n_args < (kind == FLOE_EXPR_IN ? 2 : 1))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s needs more arguments (got %d)",
                              kind == FLOE_EXPR_IN ? "IN" : "COALESCE", n_args);
    } else if (n_args != expr_arity(kind)) {
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "expression kind %d takes %d arguments, got %d",
                          (int)kind, expr_arity(kind), n_args);
    }
    if (kind == FLOE_EXPR_CMP && (op < 0 || op > FLOE_CMP_GE))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "comparison operator %d is unknown", op);
    if (kind == FLOE_EXPR_ARITH && (op < 0 || op > FLOE_ARITH_MOD))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "arithmetic operator %d is unknown", op);
    if (kind != FLOE_EXPR_CMP && kind != FLOE_EXPR_ARITH && kind != FLOE_EXPR_CASE && op != 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "operator %d given to a non-operator expression", op);
    if (kind == FLOE_EXPR_COLUMN && column < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "column index %d is negative", column);
    if (kind == FLOE_EXPR_LITERAL && (!literal || literal->length != 1))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a literal must be a one-slot array");
    if (kind == FLOE_EXPR_CAST && !cast_type)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "CAST needs a target type");
    for (int32_t i = 0; i < n_args; i++)
        if (!args[i]) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "expression argument %d is NULL", i);
    floe_expr *e = floe_calloc(1, sizeof *e);
    if (!e) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an expression");
    if (n_args) {
        e->args = floe_calloc((size_t)n_args, sizeof *e->args);
        if (!e->args) {
            floe_free(e);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an expression");
        }
    }
    atomic_init(&e->refcount_, 1);
    e->kind = kind;
    e->op = op;
    e->column = kind == FLOE_EXPR_COLUMN ? column : 0;
    e->literal = kind == FLOE_EXPR_LITERAL ? floe_array_retain(literal) : NULL;
    e->cast_type = kind == FLOE_EXPR_CAST ? floe_type_retain(cast_type) : NULL;
    if (func) {
        size_t len = strlen(func);
        e->func = floe_malloc(len + 1);
        if (!e->func) {
            floe_array_release(e->literal);
            floe_type_release(e->cast_type);
            floe_free(e->args);
            floe_free(e);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an expression");
        }
        memcpy(e->func, func, len + 1);
    }
    e->n_args = n_args;
    for (int32_t i = 0; i < n_args; i++) e->args[i] = floe_expr_retain(args[i]);
    *out = e;
    return NULL;
}

floe_expr *floe_expr_retain(floe_expr *e) {
    if (e) atomic_fetch_add(&e->refcount_, 1);
    return e;
}

void floe_expr_release(floe_expr *e) {
    if (!e || atomic_fetch_sub(&e->refcount_, 1) != 1) return;
    for (int32_t i = 0; i < e->n_args; i++) floe_expr_release(e->args[i]);
    floe_free(e->args);
    floe_array_release(e->literal);
    floe_type_release(e->cast_type);
    floe_free(e->func);
    floe_free(e);
}

floe_status floe_expr_column(int32_t index, floe_expr **out) {
    return floe_expr_make(FLOE_EXPR_COLUMN, 0, index, NULL, NULL, NULL, NULL, 0, out);
}

floe_status floe_expr_literal(floe_array *value, floe_expr **out) {
    return floe_expr_make(FLOE_EXPR_LITERAL, 0, 0, value, NULL, NULL, NULL, 0, out);
}

/* Build a one-slot array with a builder filled by `fill`, wrap it. */
static floe_status lit_finish(floe_builder *b, floe_status st, floe_expr **out) {
    floe_array *a = NULL;
    if (!st) st = floe_builder_finish(b, &a);
    floe_builder_free(b);
    if (!st) st = floe_expr_literal(a, out);
    floe_array_release(a);
    return st;
}

#define LIT_FN(fname, ctype, tid, appender)                                  \
    floe_status fname(ctype v, floe_expr **out) {                            \
        floe_builder *b;                                                     \
        *out = NULL;                                                         \
        FLOE_TRY(floe_builder_new(floe_type_primitive(tid), 1, &b));         \
        return lit_finish(b, appender(b, v), out);                           \
    }
LIT_FN(floe_expr_lit_int32, int32_t, FLOE_TYPE_INT32, floe_builder_append_int32)
LIT_FN(floe_expr_lit_int64, int64_t, FLOE_TYPE_INT64, floe_builder_append_int64)
LIT_FN(floe_expr_lit_double, double, FLOE_TYPE_FLOAT64, floe_builder_append_double)
LIT_FN(floe_expr_lit_bool, bool, FLOE_TYPE_BOOL, floe_builder_append_bool)
LIT_FN(floe_expr_lit_string, const char *, FLOE_TYPE_STRING, floe_builder_append_string)

floe_status floe_expr_lit_null(floe_type *type, floe_expr **out) {
    floe_array *a;
    *out = NULL;
    FLOE_TRY(floe_array_new_nulls(type, 1, &a));
    floe_status st = floe_expr_literal(a, out);
    floe_array_release(a);
    return st;
}

floe_status floe_expr_cmp(floe_cmp_op op, floe_expr *l, floe_expr *r, floe_expr **out) {
    floe_expr *a[2] = {l, r};
    return floe_expr_make(FLOE_EXPR_CMP, (int32_t)op, 0, NULL, NULL, NULL, a, 2, out);
}
floe_status floe_expr_arith(floe_arith_op op, floe_expr *l, floe_expr *r, floe_expr **out) {
    floe_expr *a[2] = {l, r};
    return floe_expr_make(FLOE_EXPR_ARITH, (int32_t)op, 0, NULL, NULL, NULL, a, 2, out);
}
floe_status floe_expr_and(floe_expr *l, floe_expr *r, floe_expr **out) {
    floe_expr *a[2] = {l, r};
    return floe_expr_make(FLOE_EXPR_AND, 0, 0, NULL, NULL, NULL, a, 2, out);
}
floe_status floe_expr_or(floe_expr *l, floe_expr *r, floe_expr **out) {
    floe_expr *a[2] = {l, r};
    return floe_expr_make(FLOE_EXPR_OR, 0, 0, NULL, NULL, NULL, a, 2, out);
}
floe_status floe_expr_not(floe_expr *x, floe_expr **out) {
    return floe_expr_make(FLOE_EXPR_NOT, 0, 0, NULL, NULL, NULL, &x, 1, out);
}
floe_status floe_expr_is_null(floe_expr *x, bool negated, floe_expr **out) {
    return floe_expr_make(negated ? FLOE_EXPR_IS_NOT_NULL : FLOE_EXPR_IS_NULL, 0, 0, NULL, NULL, NULL, &x,
                          1, out);
}
floe_status floe_expr_cast(floe_expr *x, floe_type *to, floe_expr **out) {
    return floe_expr_make(FLOE_EXPR_CAST, 0, 0, NULL, to, NULL, &x, 1, out);
}

floe_status floe_expr_case(floe_expr *const *whens, floe_expr *const *thens, int32_t n, floe_expr *else_,
                           floe_expr **out) {
    *out = NULL;
    if (n < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "CASE needs at least one WHEN");
    floe_expr **a = floe_calloc((size_t)(2 * n + 1), sizeof *a);
    if (!a) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a CASE");
    for (int32_t i = 0; i < n; i++) {
        a[2 * i] = whens[i];
        a[2 * i + 1] = thens[i];
    }
    if (else_) a[2 * n] = else_;
    floe_status st = floe_expr_make(FLOE_EXPR_CASE, else_ ? 1 : 0, 0, NULL, NULL, NULL, a, 2 * n + (else_ ? 1 : 0), out);
    floe_free(a);
    return st;
}

floe_status floe_expr_in(floe_expr *value, floe_expr *const *items, int32_t n, floe_expr **out) {
    *out = NULL;
    floe_expr **a = floe_calloc((size_t)(n + 1), sizeof *a);
    if (!a) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IN list");
    a[0] = value;
    for (int32_t i = 0; i < n; i++) a[i + 1] = items[i];
    floe_status st = floe_expr_make(FLOE_EXPR_IN, 0, 0, NULL, NULL, NULL, a, n + 1, out);
    floe_free(a);
    return st;
}

floe_status floe_expr_call(const char *name, floe_expr *const *args, int32_t n, floe_expr **out) {
    *out = NULL;
    if (!name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a function call needs a name");
    return floe_expr_make(FLOE_EXPR_CALL, 0, 0, NULL, NULL, name, args, n, out);
}

floe_status floe_expr_coalesce(floe_expr *const *args, int32_t n, floe_expr **out) {
    return floe_expr_make(FLOE_EXPR_COALESCE, 0, 0, NULL, NULL, NULL, args, n, out);
}

/* ------------------------------------------------------------ type classes */

static bool is_int(floe_type_id id) { return id == FLOE_TYPE_INT32 || id == FLOE_TYPE_INT64; }
static bool is_float(floe_type_id id) { return id == FLOE_TYPE_FLOAT32 || id == FLOE_TYPE_FLOAT64; }
static bool is_numeric(floe_type_id id) { return is_int(id) || is_float(id); }
/* Types whose values read as int64 exactly (ints and temporal types). */
static bool is_intlike(floe_type_id id) {
    switch (id) {
    case FLOE_TYPE_INT32: case FLOE_TYPE_INT64: case FLOE_TYPE_DATE32: case FLOE_TYPE_TIME64_US:
    case FLOE_TYPE_TIMESTAMP_US: case FLOE_TYPE_TIMESTAMP_US_TZ: case FLOE_TYPE_TIMESTAMP_NS:
    case FLOE_TYPE_TIMESTAMP_NS_TZ: case FLOE_TYPE_BOOL: return true;
    default: return false;
    }
}

static floe_status type_name(const floe_type *t, floe_buf *b) {
    floe_buf_clear(b);
    return floe_type_to_string(t, b);
}

static floe_status type_error2(const char *what, const floe_type *l, const floe_type *r) {
    floe_buf a, b;
    floe_buf_init(&a);
    floe_buf_init(&b);
    floe_status st = type_name(l, &a);
    if (!st && r) st = type_name(r, &b);
    if (!st)
        st = r ? floe_error(FLOE_ERR_TYPE, "%s is not defined for %s and %s", what, floe_buf_cstr(&a),
                            floe_buf_cstr(&b))
               : floe_error(FLOE_ERR_TYPE, "%s is not defined for %s", what, floe_buf_cstr(&a));
    floe_buf_free(&a);
    floe_buf_free(&b);
    return st;
}

static floe_type_id arith_result(floe_type_id a, floe_type_id b) {
    if (is_float(a) || is_float(b)) return FLOE_TYPE_FLOAT64;
    if (a == FLOE_TYPE_INT64 || b == FLOE_TYPE_INT64) return FLOE_TYPE_INT64;
    return FLOE_TYPE_INT32;
}

static bool comparable(const floe_type *l, const floe_type *r) {
    if (l->id == FLOE_TYPE_NULL || r->id == FLOE_TYPE_NULL) return true;
    if (is_numeric(l->id) && is_numeric(r->id)) return true;
    if ((l->id == FLOE_TYPE_DECIMAL128 || r->id == FLOE_TYPE_DECIMAL128) &&
        (is_numeric(l->id) || l->id == FLOE_TYPE_DECIMAL128) && (is_numeric(r->id) || r->id == FLOE_TYPE_DECIMAL128))
        return true; /* decimal vs decimal/int exactly, vs float as double */
    if (l->id != r->id) return false;
    return !floe_type_is_nested(l) && l->id != FLOE_TYPE_DECIMAL128;
}

static bool castable(const floe_type *from, const floe_type *to) {
    if (floe_type_equals(from, to) || from->id == FLOE_TYPE_NULL) return true;
    /* Nested to nested of the same shape: children cast one by one (struct
     * fields by position, as PostgreSQL's records); text only when NULL. */
    if (floe_type_is_nested(to) && to->id != FLOE_TYPE_VARIANT) {
        if (from->id == FLOE_TYPE_STRING) return true; /* NULL text only; cast_nested checks */
        if (from->id != to->id || from->n_children != to->n_children) return false;
        for (int32_t i = 0; i < to->n_children; i++)
            if (!castable(from->children[i].type, to->children[i].type)) return false;
        return true;
    }
    if (floe_exec_cast_extra(from, to)) return true; /* cast.c */
    /* Text of anything scalar; a variant's is its JSON (floe_format_value). */
    if (to->id == FLOE_TYPE_STRING)
        return !floe_type_is_nested(from) || from->id == FLOE_TYPE_VARIANT || from->id == FLOE_TYPE_LIST ||
               from->id == FLOE_TYPE_STRUCT; /* PostgreSQL's record text (cast_record.c) */
    if (!is_numeric(to->id)) return false;
    return is_numeric(from->id) || from->id == FLOE_TYPE_STRING || from->id == FLOE_TYPE_BOOL;
}

/* The common type of several branch types (NULL type joins anything;
 * numerics widen), or NULL when there is none. */
static floe_type *common_type(floe_type *const *t, int32_t n) {
    floe_type *res = floe_type_primitive(FLOE_TYPE_NULL);
    for (int32_t i = 0; i < n; i++) {
        if (t[i]->id == FLOE_TYPE_NULL) continue;
        if (res->id == FLOE_TYPE_NULL || floe_type_equals(res, t[i])) res = t[i];
        else if (is_numeric(res->id) && is_numeric(t[i]->id)) res = floe_type_primitive(arith_result(res->id, t[i]->id));
        else return NULL;
    }
    return res;
}

static floe_status type_multi(const floe_expr *e, floe_type **t, floe_type **out) {
    int32_t n = e->n_args;
    if (e->kind == FLOE_EXPR_IN) {
        for (int32_t i = 1; i < n; i++)
            if (!comparable(t[0], t[i])) return type_error2("IN", t[0], t[i]);
        *out = floe_type_primitive(FLOE_TYPE_BOOL);
        return NULL;
    }
    floe_type **branches = floe_calloc((size_t)n, sizeof *branches);
    int32_t nb = 0;
    floe_status st = NULL;
    if (!branches) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "typing an expression");
    if (e->kind == FLOE_EXPR_COALESCE) {
        for (int32_t i = 0; i < n; i++) branches[nb++] = t[i];
    } else {
        for (int32_t i = 0; i + 1 < n; i += 2) {
            if (t[i]->id != FLOE_TYPE_BOOL && t[i]->id != FLOE_TYPE_NULL) {
                st = type_error2("CASE WHEN", t[i], NULL);
                goto done;
            }
            branches[nb++] = t[i + 1];
        }
        if (e->op) branches[nb++] = t[n - 1];
    }
    floe_type *c = common_type(branches, nb);
    for (int32_t i = 1; !c && !st && i < nb; i++)
        if (!common_type(branches, i + 1))
            st = type_error2(e->kind == FLOE_EXPR_CASE ? "CASE branches" : "COALESCE", branches[0], branches[i]);
    if (!st) *out = floe_type_retain(c);
done:
    floe_free(branches);
    return st;
}


/* ------------------------------------------------------------- decimals */

static inline bool valid_at(const floe_buffer *validity, int64_t i) {
    return !validity || floe_bit_get(validity->data, i);
}

typedef __int128 i128;

static i128 pow10_i128(int n) {
    i128 p = 1;
    while (n-- > 0) p *= 10;
    return p;
}

/* Unscaled value of slot i of a decimal (or int32/int64: scale 0). */
static inline i128 dec_get(const floe_array *a, int64_t i) {
    switch (a->type->id) {
    case FLOE_TYPE_DECIMAL128: {
        floe_decimal128 d = floe_array_get_decimal(a, i);
        return (i128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
    }
    case FLOE_TYPE_INT32: return floe_array_get_int32(a, i);
    case FLOE_TYPE_INT64: return floe_array_get_int64(a, i);
    default: return 0;
    }
}

static int32_t dec_scale(const floe_type *t) { return t->id == FLOE_TYPE_DECIMAL128 ? t->scale : 0; }
static int32_t dec_precision(const floe_type *t) {
    return t->id == FLOE_TYPE_DECIMAL128 ? t->precision : t->id == FLOE_TYPE_INT32 ? 10 : 19;
}

/* Decimal arithmetic result type (Spark/SQL Server rules, capped at 38);
 * NULL with *why set when unsupported. */
static floe_status decimal_arith_type(int op, const floe_type *l, const floe_type *r, floe_type **out) {
    int32_t s1 = dec_scale(l), s2 = dec_scale(r), p1 = dec_precision(l), p2 = dec_precision(r), p, sc;
    if (op == FLOE_ARITH_ADD || op == FLOE_ARITH_SUB) {
        sc = s1 > s2 ? s1 : s2;
        p = (p1 - s1 > p2 - s2 ? p1 - s1 : p2 - s2) + sc + 1;
    } else if (op == FLOE_ARITH_MUL) {
        sc = s1 + s2;
        p = p1 + p2 + 1;
    } else if (op == FLOE_ARITH_DIV) {
        /* Spark's rule: at least 6 fractional digits; when the precision
         * passes 38, integer digits are kept and the scale gives way, down
         * to 6 (or the natural scale when that is smaller). */
        sc = s1 + p2 + 1 > 6 ? s1 + p2 + 1 : 6;
        p = p1 - s1 + s2 + sc;
        if (p > 38) {
            int32_t int_digits = p - sc, min_scale = sc < 6 ? sc : 6;
            sc = 38 - int_digits > min_scale ? 38 - int_digits : min_scale;
            p = 38;
        }
    } else { /* modulo: the larger scale, the smaller integer part */
        sc = s1 > s2 ? s1 : s2;
        p = (p1 - s1 < p2 - s2 ? p1 - s1 : p2 - s2) + sc;
    }
    if (sc > 38) return floe_error(FLOE_ERR_TYPE, "decimal %s: result scale %d exceeds 38", arith_names[op], sc);
    if (p > 38) p = 38;
    if (p < sc) p = sc;
    if (p < 1) p = 1;
    return floe_type_decimal(p, sc, out);
}

static bool is_decimal_arith(floe_type_id a, floe_type_id b) {
    return (a == FLOE_TYPE_DECIMAL128 || b == FLOE_TYPE_DECIMAL128) && !is_float(a) && !is_float(b);
}

/* Compare decimals of any scales: rescale to the larger scale; if that
 * overflows 128 bits, compare as doubles. */
static int dec_cmp(i128 a, int32_t sa, i128 b, int32_t sb) {
    i128 x = a, y = b;
    bool ok = true;
    if (sa < sb) ok = !__builtin_mul_overflow(a, pow10_i128(sb - sa), &x);
    else if (sb < sa) ok = !__builtin_mul_overflow(b, pow10_i128(sa - sb), &y);
    if (!ok) {
        double da = (double)a / (double)pow10_i128(sa), db = (double)b / (double)pow10_i128(sb);
        return (da > db) - (da < db);
    }
    return (x > y) - (x < y);
}

static floe_status eval_decimal_arith(int op, floe_array *l, floe_array *r, int64_t n, floe_type *rt,
                                      floe_buffer *validity, floe_buffer *values) {
    int32_t sl = dec_scale(l->type), sr = dec_scale(r->type), sc = rt->scale;
    i128 ml = pow10_i128(op == FLOE_ARITH_MUL ? 0 : sc - sl), mr = pow10_i128(op == FLOE_ARITH_MUL ? 0 : sc - sr);
    i128 limit = pow10_i128(rt->precision);
    floe_decimal128 *o = (floe_decimal128 *)values->data;
    bool lnull = l->type->id == FLOE_TYPE_NULL, rnull = r->type->id == FLOE_TYPE_NULL;
    if (op == FLOE_ARITH_DIV) {
        /* x = a / b at scale sc: a * 10^(sc - sl + sr) / b, rounded half
         * away from zero (a negative exponent scales the divisor instead). */
        int32_t k = sc - sl + sr;
        ml = k >= 0 ? pow10_i128(k) : 1;
        mr = k >= 0 ? 1 : pow10_i128(-k);
    }
    for (int64_t i = 0; i < n; i++) {
        if (!valid_at(validity, i)) continue;
        i128 a = lnull ? 0 : dec_get(l, i), b = rnull ? 0 : dec_get(r, i), x = 0;
        if ((op == FLOE_ARITH_DIV || op == FLOE_ARITH_MOD) && b == 0) {
            floe_buf t;
            floe_buf_init(&t);
            floe_status st = floe_format_value(l, i, &t);
            if (!st) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "division by zero: %s %s 0", floe_buf_cstr(&t),
                                     arith_names[op]);
            floe_buf_free(&t);
            return st;
        }
        bool ok = !__builtin_mul_overflow(a, ml, &a) && !__builtin_mul_overflow(b, mr, &b);
        if (ok) {
            if (op == FLOE_ARITH_ADD) ok = !__builtin_add_overflow(a, b, &x);
            else if (op == FLOE_ARITH_SUB) ok = !__builtin_sub_overflow(a, b, &x);
            else if (op == FLOE_ARITH_MUL) ok = !__builtin_mul_overflow(a, b, &x);
            else if (op == FLOE_ARITH_MOD) x = a % b; /* both at scale sc; sign of the dividend */
            else {
                i128 q = a / b, rem = a % b, ra = rem < 0 ? -rem : rem, rb = b < 0 ? -b : b;
                if (ra >= rb - ra) q += (a < 0) == (b < 0) ? 1 : -1;
                x = q;
            }
        }
        if (!ok || x >= limit || x <= -limit) {
            floe_buf t;
            floe_buf_init(&t);
            floe_status st = floe_format_value(l, i, &t);
            if (!st) st = floe_buf_printf(&t, " %s ", arith_names[op]);
            if (!st) st = floe_format_value(r, i, &t);
            if (!st) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "decimal(%d, %d) overflow: %s", rt->precision, sc,
                                     floe_buf_cstr(&t));
            floe_buf_free(&t);
            return st;
        }
        o[i].lo = (uint64_t)x;
        o[i].hi = (int64_t)(x >> 64);
    }
    return NULL;
}

floe_status floe_expr_type(const floe_expr *e, const floe_schema *schema, floe_type **out) {
    floe_type *t2[2] = {NULL, NULL};
    floe_type **t = t2;
    floe_status st = NULL;
    *out = NULL;
    if (e->n_args > 2 || e->kind >= FLOE_EXPR_CASE) {
        t = floe_calloc((size_t)e->n_args, sizeof *t);
        if (!t) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "typing an expression");
    }
    for (int32_t i = 0; i < e->n_args && !st; i++) st = floe_expr_type(e->args[i], schema, &t[i]);
    if (st) goto done;
    switch (e->kind) {
    case FLOE_EXPR_COLUMN:
        if (e->column >= floe_schema_num_fields(schema))
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "column #%d is out of range (input has %d columns)",
                            e->column, floe_schema_num_fields(schema));
        else
            *out = floe_type_retain(floe_schema_field(schema, e->column)->type);
        break;
    case FLOE_EXPR_LITERAL: *out = floe_type_retain(e->literal->type); break;
    case FLOE_EXPR_CMP:
        if (!comparable(t[0], t[1])) st = type_error2(cmp_names[e->op], t[0], t[1]);
        else *out = floe_type_primitive(FLOE_TYPE_BOOL);
        break;
    case FLOE_EXPR_AND: case FLOE_EXPR_OR: case FLOE_EXPR_NOT:
        for (int32_t i = 0; i < e->n_args && !st; i++)
            if (t[i]->id != FLOE_TYPE_BOOL && t[i]->id != FLOE_TYPE_NULL)
                st = type_error2(e->kind == FLOE_EXPR_AND ? "AND" : e->kind == FLOE_EXPR_OR ? "OR" : "NOT",
                                 t[i], NULL);
        if (!st) *out = floe_type_primitive(FLOE_TYPE_BOOL);
        break;
    case FLOE_EXPR_IS_NULL: case FLOE_EXPR_IS_NOT_NULL: *out = floe_type_primitive(FLOE_TYPE_BOOL); break;
    case FLOE_EXPR_ARITH: {
        floe_type_id a = t[0]->id == FLOE_TYPE_NULL ? t[1]->id : t[0]->id;
        floe_type_id b = t[1]->id == FLOE_TYPE_NULL ? t[0]->id : t[1]->id;
        bool da = a == FLOE_TYPE_DECIMAL128, db = b == FLOE_TYPE_DECIMAL128;
        if ((da || db) && (is_numeric(a) || da) && (is_numeric(b) || db) && is_decimal_arith(a, b))
            st = decimal_arith_type(e->op, t[0]->id == FLOE_TYPE_NULL ? t[1] : t[0], t[1]->id == FLOE_TYPE_NULL ? t[0] : t[1], out);
        else if ((da || db) && (is_numeric(a) || da) && (is_numeric(b) || db))
            *out = floe_type_primitive(FLOE_TYPE_FLOAT64);
        else if (!is_numeric(a) || !is_numeric(b)) st = type_error2(arith_names[e->op], t[0], t[1]);
        else *out = floe_type_primitive(arith_result(a, b));
        break;
    }
    case FLOE_EXPR_CAST:
        if (!castable(t[0], e->cast_type)) st = type_error2("CAST", t[0], e->cast_type);
        else *out = floe_type_retain(e->cast_type);
        break;
    case FLOE_EXPR_CASE: case FLOE_EXPR_IN: case FLOE_EXPR_COALESCE: st = type_multi(e, t, out); break;
    case FLOE_EXPR_CALL: st = floe_func_call_type(e, t, out); break;
    default: st = floe_error(FLOE_ERR_INTERNAL, "expression kind %d", (int)e->kind);
    }
done:
    for (int32_t i = 0; i < e->n_args; i++) floe_type_release(t[i]);
    if (t != t2) floe_free(t);
    return st;
}

/* ------------------------------------------------------------ evaluation */

/* A validity bitmap for n slots: valid where every given array is valid.
 * *out is NULL when all are valid. */
static floe_status and_validity(const floe_array *const *arrs, int n_arrs, int64_t n, floe_buffer **out) {
    *out = NULL;
    bool any = false;
    for (int k = 0; k < n_arrs; k++)
        if (arrs[k]->type->id == FLOE_TYPE_NULL || floe_array_null_count(arrs[k]) > 0) any = true;
    if (!any) return NULL;
    FLOE_TRY(floe_buffer_new((n + 7) / 8, out));
    uint8_t *bits = (*out)->data;
    memset(bits, 0xff, (size_t)((n + 7) / 8));
    for (int k = 0; k < n_arrs; k++) {
        const floe_array *a = arrs[k];
        if (a->type->id == FLOE_TYPE_NULL) {
            memset(bits, 0, (size_t)((n + 7) / 8));
        } else if (a->validity) {
            const uint8_t *v = a->validity->data;
            for (int64_t i = 0; i < n; i++)
                if (!floe_bit_get(v, a->offset + i)) floe_bit_clear(bits, i);
        }
    }
    return NULL;
}

/* Wrap a values buffer (and validity) as a new array; consumes both. */
static floe_status make_array(floe_type *type, int64_t n, floe_buffer *validity, floe_buffer *values,
                              floe_array **out) {
    floe_status st = floe_array_new(type, n, 0, FLOE_NULL_COUNT_UNKNOWN, validity, &values, 1, NULL, 0, out);
    floe_buffer_release(validity);
    floe_buffer_release(values);
    return st;
}

/* Values of an int-like array widened to int64 (n entries). */
static floe_status to_i64(const floe_array *a, int64_t n, int64_t **out) {
    int64_t *v = floe_malloc_array((size_t)(n ? n : 1), sizeof *v);
    if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating %lld values", (long long)n);
    switch (a->type->id) {
    case FLOE_TYPE_NULL: memset(v, 0, (size_t)n * sizeof *v); break;
    case FLOE_TYPE_BOOL: for (int64_t i = 0; i < n; i++) v[i] = floe_array_get_bool(a, i); break;
    case FLOE_TYPE_INT32: case FLOE_TYPE_DATE32: {
        const int32_t *s = floe_array_values(a);
        for (int64_t i = 0; i < n; i++) v[i] = s[i];
        break;
    }
    default: memcpy(v, floe_array_values(a), (size_t)n * sizeof *v); break;
    }
    *out = v;
    return NULL;
}

static floe_status to_f64(const floe_array *a, int64_t n, double **out) {
    double *v = floe_malloc_array((size_t)(n ? n : 1), sizeof *v);
    if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating %lld values", (long long)n);
    switch (a->type->id) {
    case FLOE_TYPE_FLOAT64: memcpy(v, floe_array_values(a), (size_t)n * sizeof *v); break;
    case FLOE_TYPE_FLOAT32: {
        const float *s = floe_array_values(a);
        for (int64_t i = 0; i < n; i++) v[i] = s[i];
        break;
    }
    case FLOE_TYPE_INT32: {
        const int32_t *s = floe_array_values(a);
        for (int64_t i = 0; i < n; i++) v[i] = s[i];
        break;
    }
    case FLOE_TYPE_INT64: {
        const int64_t *s = floe_array_values(a);
        for (int64_t i = 0; i < n; i++) v[i] = (double)s[i];
        break;
    }
    case FLOE_TYPE_DECIMAL128: {
        double scale = (double)pow10_i128(a->type->scale);
        for (int64_t i = 0; i < n; i++) v[i] = (double)dec_get(a, i) / scale;
        break;
    }
    default: memset(v, 0, (size_t)n * sizeof *v); break;
    }
    *out = v;
    return NULL;
}

/* Byte width of an integer-like type compared by raw value (4: int32,
 * date32; 8: int64, times, timestamps), 0 otherwise. */
static int int_width(floe_type_id id) {
    if (id == FLOE_TYPE_INT32 || id == FLOE_TYPE_DATE32) return 4;
    if (id == FLOE_TYPE_BOOL || id == FLOE_TYPE_NULL || !is_intlike(id)) return 0;
    return 8;
}

/* Two columns of one integer width compared in place, eight results
 * packed per byte (l_receiptdate > l_commitdate): no widened copies, the
 * comparison chosen once per batch rather than per row. */
#define CMP_PACKED(T, OP)                                                        \
    do {                                                                         \
        const T *a_ = floe_array_values(l), *b_ = floe_array_values(r);          \
        for (int64_t i = 0; i < n; i += 8) {                                     \
            int64_t m_ = n - i < 8 ? n - i : 8;                                  \
            uint8_t byte_ = 0;                                                   \
            for (int64_t k = 0; k < m_; k++) byte_ |= (uint8_t)((a_[i + k] OP b_[i + k]) << k); \
            bits[i / 8] = byte_;                                                 \
        }                                                                        \
    } while (0)

static void cmp_same_width(int op, int width, const floe_array *l, const floe_array *r, int64_t n, uint8_t *bits) {
    if (width == 4) {
        switch (op) {
        case FLOE_CMP_EQ: CMP_PACKED(int32_t, ==); break;
        case FLOE_CMP_NE: CMP_PACKED(int32_t, !=); break;
        case FLOE_CMP_LT: CMP_PACKED(int32_t, <); break;
        case FLOE_CMP_LE: CMP_PACKED(int32_t, <=); break;
        case FLOE_CMP_GT: CMP_PACKED(int32_t, >); break;
        default: CMP_PACKED(int32_t, >=); break;
        }
    } else {
        switch (op) {
        case FLOE_CMP_EQ: CMP_PACKED(int64_t, ==); break;
        case FLOE_CMP_NE: CMP_PACKED(int64_t, !=); break;
        case FLOE_CMP_LT: CMP_PACKED(int64_t, <); break;
        case FLOE_CMP_LE: CMP_PACKED(int64_t, <=); break;
        case FLOE_CMP_GT: CMP_PACKED(int64_t, >); break;
        default: CMP_PACKED(int64_t, >=); break;
        }
    }
}
#undef CMP_PACKED

static floe_status eval_cmp(const floe_expr *e, floe_array *l, floe_array *r, int64_t n, floe_array **out) {
    floe_buffer *validity = NULL, *values = NULL;
    const floe_array *both[2] = {l, r};
    floe_status st = and_validity(both, 2, n, &validity);
    if (!st) st = floe_buffer_new((n + 7) / 8, &values);
    if (st) goto fail;
    uint8_t *bits = values->data;
    int op = e->op;
    if (l->type->id == FLOE_TYPE_NULL || r->type->id == FLOE_TYPE_NULL) {
        /* all null; values stay zero */
    } else if ((l->type->id == FLOE_TYPE_DECIMAL128 || r->type->id == FLOE_TYPE_DECIMAL128) &&
               is_decimal_arith(l->type->id, r->type->id)) {
        int32_t sa = dec_scale(l->type), sb = dec_scale(r->type);
        for (int64_t i = 0; i < n; i++) {
            int c = dec_cmp(dec_get(l, i), sa, dec_get(r, i), sb);
            bool res = op == FLOE_CMP_EQ ? c == 0 : op == FLOE_CMP_NE ? c != 0 : op == FLOE_CMP_LT ? c < 0
                     : op == FLOE_CMP_LE ? c <= 0 : op == FLOE_CMP_GT ? c > 0 : c >= 0;
            if (res) floe_bit_set(bits, i);
        }
    } else if (is_float(l->type->id) || is_float(r->type->id)) {
        double *a = NULL, *b = NULL;
        st = to_f64(l, n, &a);
        if (!st) st = to_f64(r, n, &b);
        if (!st)
            for (int64_t i = 0; i < n; i++) {
                bool c;
                switch (op) {
                case FLOE_CMP_EQ: c = a[i] == b[i]; break;
                case FLOE_CMP_NE: c = a[i] != b[i]; break;
                case FLOE_CMP_LT: c = a[i] < b[i]; break;
                case FLOE_CMP_LE: c = a[i] <= b[i]; break;
                case FLOE_CMP_GT: c = a[i] > b[i]; break;
                default: c = a[i] >= b[i]; break;
                }
                if (c) floe_bit_set(bits, i);
            }
        floe_free(a);
        floe_free(b);
    } else if (int_width(l->type->id) && int_width(l->type->id) == int_width(r->type->id)) {
        cmp_same_width(op, int_width(l->type->id), l, r, n, bits);
    } else if (is_intlike(l->type->id)) {
        int64_t *a = NULL, *b = NULL;
        st = to_i64(l, n, &a);
        if (!st) st = to_i64(r, n, &b);
        if (!st)
            for (int64_t i = 0; i < n; i++) {
                bool c;
                switch (op) {
                case FLOE_CMP_EQ: c = a[i] == b[i]; break;
                case FLOE_CMP_NE: c = a[i] != b[i]; break;
                case FLOE_CMP_LT: c = a[i] < b[i]; break;
                case FLOE_CMP_LE: c = a[i] <= b[i]; break;
                case FLOE_CMP_GT: c = a[i] > b[i]; break;
                default: c = a[i] >= b[i]; break;
                }
                if (c) floe_bit_set(bits, i);
            }
        floe_free(a);
        floe_free(b);
    } else {
        /* Byte-wise: strings/binary (UTF-8 byte order is code point order)
         * and fixed-width binary. */
        bool var = floe_type_is_binary_like(l->type);
        int32_t w = l->type->byte_width;
        for (int64_t i = 0; i < n; i++) {
            if (!valid_at(validity, i)) continue;
            const void *pa, *pb;
            int32_t la, lb;
            if (var) {
                floe_strview x = floe_array_get_str(l, i), y = floe_array_get_str(r, i);
                pa = x.data; la = x.len; pb = y.data; lb = y.len;
            } else {
                pa = floe_array_get_fixed(l, i); pb = floe_array_get_fixed(r, i); la = lb = w;
            }
            int c;
            if (l->type->id == FLOE_TYPE_INTERVAL) { /* by the total: '1 mon' = '30 days' */
                floe_interval x, y;
                memcpy(&x, pa, sizeof x);
                memcpy(&y, pb, sizeof y);
                c = floe_interval_cmp(x, y);
            } else {
                c = memcmp(pa, pb, (size_t)(la < lb ? la : lb));
                if (c == 0) c = (la > lb) - (la < lb);
            }
            bool res = op == FLOE_CMP_EQ ? c == 0 : op == FLOE_CMP_NE ? c != 0 : op == FLOE_CMP_LT ? c < 0
                     : op == FLOE_CMP_LE ? c <= 0 : op == FLOE_CMP_GT ? c > 0 : c >= 0;
            if (res) floe_bit_set(bits, i);
        }
    }
    if (st) goto fail;
    return make_array(floe_type_primitive(FLOE_TYPE_BOOL), n, validity, values, out);
fail:
    floe_buffer_release(validity);
    floe_buffer_release(values);
    return st;
}

/* Value bit and validity of slot i of a BOOL (or NULL-typed) array. */
static inline void bool_at(const floe_array *a, int64_t i, bool *val, bool *valid) {
    *valid = floe_array_is_valid(a, i);
    *val = *valid && floe_array_get_bool(a, i);
}

floe_status floe_expr_logic_general(const floe_expr *e, floe_array *const *args, int64_t n, floe_array **out) {
    floe_buffer *validity = NULL, *values = NULL;
    floe_status st = floe_buffer_new((n + 7) / 8, &validity);
    if (!st) st = floe_buffer_new((n + 7) / 8, &values);
    if (st) goto fail;
    uint8_t *vb = validity->data, *xb = values->data;
    for (int64_t i = 0; i < n; i++) {
        bool a = false, av, b = false, bv = true, r, rv;
        if (e->kind == FLOE_EXPR_IS_NULL || e->kind == FLOE_EXPR_IS_NOT_NULL)
            av = floe_array_is_valid(args[0], i); /* any type: a struct has no value buffer */
        else
            bool_at(args[0], i, &a, &av);
        if (e->n_args > 1) bool_at(args[1], i, &b, &bv);
        switch (e->kind) {
        case FLOE_EXPR_AND:
            /* FALSE wins over NULL. */
            if ((av && !a) || (bv && !b)) { r = false; rv = true; }
            else if (av && bv) { r = true; rv = true; }
            else { r = false; rv = false; }
            break;
        case FLOE_EXPR_OR:
            if ((av && a) || (bv && b)) { r = true; rv = true; }
            else if (av && bv) { r = false; rv = true; }
            else { r = false; rv = false; }
            break;
        case FLOE_EXPR_NOT: r = !a; rv = av; break;
        case FLOE_EXPR_IS_NULL: r = !av; rv = true; break;
        default: r = av; rv = true; break; /* IS NOT NULL */
        }
        if (rv) floe_bit_set(vb, i);
        if (rv && r) floe_bit_set(xb, i);
    }
    return make_array(floe_type_primitive(FLOE_TYPE_BOOL), n, validity, values, out);
fail:
    floe_buffer_release(validity);
    floe_buffer_release(values);
    return st;
}

static floe_status arith_int_error(int op, int64_t a, int64_t b, const char *tname) {
    if ((op == FLOE_ARITH_DIV || op == FLOE_ARITH_MOD) && b == 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "division by zero: %lld %s 0", (long long)a,
                          arith_names[op]);
    /* PostgreSQL's words ("integer out of range"), then the operation. */
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s out of range: %lld %s %lld",
                      !strcmp(tname, "int32") ? "integer" : !strcmp(tname, "int64") ? "bigint" : tname, (long long)a,
                      arith_names[op], (long long)b);
}

/* One int64 op with overflow / zero checks; false on error. */
static inline bool int_op(int op, int64_t a, int64_t b, int64_t *r) {
    switch (op) {
    case FLOE_ARITH_ADD: return !__builtin_add_overflow(a, b, r);
    case FLOE_ARITH_SUB: return !__builtin_sub_overflow(a, b, r);
    case FLOE_ARITH_MUL: return !__builtin_mul_overflow(a, b, r);
    case FLOE_ARITH_DIV:
        if (b == 0 || (a == INT64_MIN && b == -1)) return false;
        *r = a / b;
        return true;
    default:
        if (b == 0) return false;
        *r = b == -1 ? 0 : a % b;
        return true;
    }
}

static floe_status eval_arith(const floe_expr *e, floe_array *l, floe_array *r, int64_t n, floe_array **out) {
    floe_type_id lt = l->type->id == FLOE_TYPE_NULL ? r->type->id : l->type->id;
    floe_type_id rt = r->type->id == FLOE_TYPE_NULL ? l->type->id : r->type->id;
    floe_type_id res = arith_result(lt, rt);
    floe_type *rtype = floe_type_primitive(res), *dtype = NULL;
    floe_buffer *validity = NULL, *values = NULL;
    const floe_array *both[2] = {l, r};
    floe_status st = NULL;
    bool dec = (lt == FLOE_TYPE_DECIMAL128 || rt == FLOE_TYPE_DECIMAL128) && is_decimal_arith(lt, rt);
    if (dec) {
        st = decimal_arith_type(e->op, l->type->id == FLOE_TYPE_NULL ? r->type : l->type,
                                r->type->id == FLOE_TYPE_NULL ? l->type : r->type, &dtype);
        if (st) return st;
        rtype = dtype;
    }
    if (!st) st = and_validity(both, 2, n, &validity);
    if (!st) st = floe_buffer_new(n * rtype->byte_width, &values);
    if (st) goto fail;
    int op = e->op;
    if (dec) {
        st = eval_decimal_arith(op, l, r, n, rtype, validity, values);
    } else if (res == FLOE_TYPE_FLOAT64) {
        double *a = NULL, *b = NULL, *o = (double *)values->data;
        st = to_f64(l, n, &a);
        if (!st) st = to_f64(r, n, &b);
        for (int64_t i = 0; !st && i < n; i++) {
            switch (op) {
            case FLOE_ARITH_ADD: o[i] = a[i] + b[i]; break;
            case FLOE_ARITH_SUB: o[i] = a[i] - b[i]; break;
            case FLOE_ARITH_MUL: o[i] = a[i] * b[i]; break;
            default:
                if (b[i] == 0 && valid_at(validity, i)) {
                    st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "division by zero: %g %s 0", a[i],
                                    arith_names[op]);
                    break;
                }
                o[i] = op == FLOE_ARITH_DIV ? a[i] / b[i] : (b[i] == 0 ? 0 : fmod(a[i], b[i]));
            }
        }
        floe_free(a);
        floe_free(b);
    } else {
        int64_t *a = NULL, *b = NULL;
        st = to_i64(l, n, &a);
        if (!st) st = to_i64(r, n, &b);
        bool i32 = res == FLOE_TYPE_INT32;
        int64_t *o64 = (int64_t *)values->data;
        int32_t *o32 = (int32_t *)values->data;
        for (int64_t i = 0; !st && i < n; i++) {
            int64_t x = 0;
            bool ok = int_op(op, a[i], b[i], &x);
            if (ok && i32 && (x < INT32_MIN || x > INT32_MAX)) ok = false;
            if (!ok) {
                if (!valid_at(validity, i)) continue;
                st = arith_int_error(op, a[i], b[i], i32 ? "int32" : "int64");
                break;
            }
            if (i32) o32[i] = (int32_t)x; else o64[i] = x;
        }
        floe_free(a);
        floe_free(b);
    }
    if (st) goto fail;
    st = make_array(rtype, n, validity, values, out);
    floe_type_release(dtype);
    return st;
fail:
    floe_buffer_release(validity);
    floe_buffer_release(values);
    floe_type_release(dtype);
    return st;
}

/* Parse a string as a number for CAST, as PostgreSQL's int4in / int8in /
 * float8in: blanks around, integers as digits only ('12.5' is an error);
 * errors quote the value as PostgreSQL does. */
static floe_status parse_number(floe_strview s, floe_type_id to, int64_t *iv, double *dv) {
    char tmp[64];
    if (s.len >= (int32_t)sizeof tmp)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type %s: \"%.*s...\"",
                          floe_type_pg_name(to), 60, s.data);
    memcpy(tmp, s.data, (size_t)s.len);
    tmp[s.len] = 0;
    char *end, *p = tmp;
    while (isspace((unsigned char)*p)) p++;
    errno = 0;
    if (is_int(to)) *iv = strtoll(p, &end, 10);
    else *dv = strtod(p, &end);
    bool any = end != p;
    while (isspace((unsigned char)*end)) end++;
    if (!any || *end)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type %s: \"%s\"", floe_type_pg_name(to),
                          tmp);
    if (errno == ERANGE || (to == FLOE_TYPE_INT32 && (*iv < INT32_MIN || *iv > INT32_MAX)))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "value \"%s\" is out of range for type %s", tmp,
                          floe_type_pg_name(to));
    return NULL;
}

/* A float as PostgreSQL's float8out / float4out print it (the ::text
 * cast): the shortest digits that read back as the same value, plainly
 * for decimal exponents -4 .. 14 (-4 .. 5 for real) without a trailing
 * ".0", else as 1.5e-07 / 1e+20; -0, NaN, Infinity, -Infinity. */
static floe_status pg_float_text(double v, bool single, floe_buf *out) {
    if (isnan(v)) return floe_buf_append_str(out, "NaN");
    if (isinf(v)) return floe_buf_append_str(out, v < 0 ? "-Infinity" : "Infinity");
    char t[64];
    int prec = 1;
    for (; prec < 17; prec++) {
        snprintf(t, sizeof t, "%.*e", prec - 1, v);
        if (single ? strtof(t, NULL) == (float)v : strtod(t, NULL) == v) break;
    }
    snprintf(t, sizeof t, "%.*e", prec - 1, v);
    int exp = atoi(strchr(t, 'e') + 1);
    if (exp < -4 || exp >= (single ? 6 : 15)) return floe_buf_append_str(out, t);
    int decimals = prec - 1 - exp;
    snprintf(t, sizeof t, "%.*f", decimals > 0 ? decimals : 0, v);
    return floe_buf_append_str(out, t);
}

static floe_status cast_array(floe_array *a, floe_type *to, int64_t n, floe_array **out);

/* A list, map or struct array re-typed as `to` (same shape): the children
 * are cast whole (they may be longer than the slots used) and the
 * offsets and validity kept. */
static floe_status cast_nested(floe_array *a, floe_type *to, int64_t n, floe_array **out) {
    if (a->type->id == FLOE_TYPE_STRING) {
        if (floe_array_null_count(a) == a->length) return floe_array_new_nulls(to, n, out);
        if (to->id == FLOE_TYPE_LIST) {
            /* '{1,2}'::int[]: text pieces first, then element-wise (cast_list.c) */
            floe_array *pieces = NULL;
            FLOE_TRY(floe_cast_text_to_list_shape(a, to, n, &pieces));
            floe_status st = cast_array(pieces, to, n, out);
            floe_array_release(pieces);
            return st;
        }
        floe_buf tn = FLOE_BUF_INIT;
        floe_status st = floe_type_to_string(to, &tn);
        if (!st) st = floe_error(FLOE_ERR_UNSUPPORTED, "cannot cast text to %s (build the value with ARRAY[...], "
                                 "ROW(...), struct_pack or map(...))", floe_buf_cstr(&tn));
        floe_buf_free(&tn);
        return st;
    }
    floe_array *kids[1024];
    if (a->n_children > 1024 || a->n_children != to->n_children)
        return floe_error(FLOE_ERR_TYPE, "cast: nested shapes differ");
    floe_status st = NULL;
    int32_t k = 0;
    for (; k < a->n_children && !st; k++) {
        floe_array *ch = a->children[k];
        st = cast_array(ch, to->children[k].type, ch->length, &kids[k]);
        if (st) break;
    }
    int nb = 0;
    while (nb < 2 && a->buffers[nb]) nb++;
    if (!st)
        st = floe_array_new(to, a->length, a->offset, FLOE_NULL_COUNT_UNKNOWN, a->validity, a->buffers, nb, kids, k, out);
    for (int32_t i = 0; i < k; i++) floe_array_release(kids[i]);
    return st;
}

static floe_status cast_array(floe_array *a, floe_type *to, int64_t n, floe_array **out) {
    if (floe_type_equals(a->type, to)) {
        *out = floe_array_retain(a);
        return NULL;
    }
    if (a->type->id == FLOE_TYPE_NULL) return floe_array_new_nulls(to, n, out);
    if (floe_type_is_nested(to) && to->id != FLOE_TYPE_VARIANT) return cast_nested(a, to, n, out);
    if (floe_exec_cast_extra(a->type, to)) return floe_exec_cast_extra_array(a, to, n, out);
    if (to->id == FLOE_TYPE_STRING && a->type->id == FLOE_TYPE_LIST) return floe_cast_list_to_text(a, n, out);
    if (to->id == FLOE_TYPE_STRING && a->type->id == FLOE_TYPE_STRUCT) return floe_cast_struct_to_text(a, n, out);
    floe_status st = NULL;
    if (to->id == FLOE_TYPE_STRING) {
        floe_builder *b;
        floe_buf tmp;
        FLOE_TRY(floe_builder_new(to, n, &b));
        floe_buf_init(&tmp);
        for (int64_t i = 0; i < n && !st; i++) {
            if (floe_array_is_null(a, i)) { st = floe_builder_append_null(b); continue; }
            floe_buf_clear(&tmp);
            if (a->type->id == FLOE_TYPE_FLOAT64) st = pg_float_text(floe_array_get_double(a, i), false, &tmp);
            else if (a->type->id == FLOE_TYPE_FLOAT32) st = pg_float_text(floe_array_get_float(a, i), true, &tmp);
            else st = floe_format_value(a, i, &tmp);
            if (!st) st = floe_builder_append_binary(b, tmp.data, (int64_t)tmp.len);
        }
        floe_buf_free(&tmp);
        if (!st) st = floe_builder_finish(b, out);
        floe_builder_free(b);
        return st;
    }
    /* to numeric */
    floe_buffer *validity = NULL, *values = NULL;
    const floe_array *one[1] = {a};
    st = and_validity(one, 1, n, &validity);
    if (!st) st = floe_buffer_new(n * to->byte_width, &values);
    if (st) goto fail;
    bool src_float = is_float(a->type->id), src_str = a->type->id == FLOE_TYPE_STRING;
    int64_t *iv = NULL;
    double *dv = NULL;
    if (!src_str) st = src_float ? to_f64(a, n, &dv) : to_i64(a, n, &iv);
    for (int64_t i = 0; !st && i < n; i++) {
        if (!valid_at(validity, i)) continue;
        int64_t x = 0;
        double d = 0;
        bool fl = src_float;
        if (src_str) {
            st = parse_number(floe_array_get_str(a, i), to->id, &x, &d);
            if (st) break;
            fl = is_float(to->id);
        } else if (src_float) d = dv[i];
        else x = iv[i];
        switch (to->id) {
        case FLOE_TYPE_FLOAT64: ((double *)values->data)[i] = fl ? d : (double)x; break;
        case FLOE_TYPE_FLOAT32: ((float *)values->data)[i] = (float)(fl ? d : (double)x); break;
        default: {
            bool i32 = to->id == FLOE_TYPE_INT32;
            if (fl) {
                /* Round half to even as PostgreSQL's rint (2.5 -> 2,
                 * -245.75 -> -246); refuse NaN and values outside the
                 * target range. */
                double lim = i32 ? 2147483648.0 : 9223372036854775808.0;
                d = nearbyint(d);
                if (!(d >= -lim && d < lim)) {
                    st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s out of range: %g", floe_type_pg_name(to->id), d);
                    break;
                }
                x = (int64_t)d;
            }
            if (i32 && (x < INT32_MIN || x > INT32_MAX)) {
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "integer out of range: %lld", (long long)x);
                break;
            }
            if (i32) ((int32_t *)values->data)[i] = (int32_t)x;
            else ((int64_t *)values->data)[i] = x;
        }
        }
    }
    floe_free(iv);
    floe_free(dv);
    if (st) goto fail;
    return make_array(to, n, validity, values, out);
fail:
    floe_buffer_release(validity);
    floe_buffer_release(values);
    return st;
}

/* CASE and COALESCE, lazily: branch k is evaluated only over the rows no
 * earlier branch took, so an error in a branch (1/0) fires only for rows
 * that really take it.  branch[r]/pos[r] say where row r's value is. */
static floe_status eval_lazy(const floe_expr *e, const floe_batch *batch, floe_array **out) {
    int64_t n = batch->num_rows;
    int32_t nb = e->kind == FLOE_EXPR_COALESCE ? e->n_args : e->n_args / 2 + e->op;
    floe_type *rt = NULL;
    floe_array **vals = floe_calloc((size_t)nb, sizeof *vals);
    int32_t *branch = floe_malloc_array((size_t)(n ? n : 1), sizeof *branch);
    int64_t *pos = floe_malloc_array((size_t)(n ? n : 1), sizeof *pos);
    uint32_t *rem = floe_malloc_array((size_t)(n ? n : 1), sizeof *rem);
    uint32_t *chosen = floe_malloc_array((size_t)(n ? n : 1), sizeof *chosen);
    floe_builder *bld = NULL;
    floe_status st = NULL;
    if (!vals || !branch || !pos || !rem || !chosen) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "evaluating CASE/COALESCE");
        goto done;
    }
    st = floe_expr_type(e, batch->schema, &rt);
    int64_t nrem = n;
    for (int64_t r = 0; r < n; r++) { branch[r] = -1; rem[r] = (uint32_t)r; }
    for (int32_t k = 0; !st && k < nb && nrem > 0; k++) {
        floe_batch *sub = NULL;
        floe_array *test = NULL;
        if (nrem == n) sub = floe_batch_retain((floe_batch *)batch);
        else st = floe_batch_take(batch, rem, nrem, &sub);
        bool is_else = e->kind == FLOE_EXPR_CASE && e->op && k == nb - 1;
        const floe_expr *val_e = e->kind == FLOE_EXPR_COALESCE ? e->args[k] : is_else ? e->args[e->n_args - 1]
                                                                                      : e->args[2 * k + 1];
        if (!st && e->kind == FLOE_EXPR_CASE && !is_else) st = floe_expr_eval(e->args[2 * k], sub, &test);
        if (!st && e->kind == FLOE_EXPR_COALESCE) st = floe_expr_eval(val_e, sub, &test);
        int64_t nch = 0, nkeep = 0;
        for (int64_t j = 0; !st && j < nrem; j++) {
            bool take;
            if (is_else) take = true;
            else if (e->kind == FLOE_EXPR_COALESCE) take = floe_array_is_valid(test, j);
            else take = test->type->id == FLOE_TYPE_BOOL && floe_array_is_valid(test, j) && floe_array_get_bool(test, j);
            if (take) {
                branch[rem[j]] = k;
                pos[rem[j]] = nch;
                chosen[nch++] = (uint32_t)j;
            } else {
                rem[nkeep++] = rem[j];
            }
        }
        if (!st && e->kind == FLOE_EXPR_COALESCE) {
            /* the value is already computed: gather the rows taken */
            if (nch == nrem) vals[k] = floe_array_retain(test);
            else st = floe_array_take(test, chosen, nch, &vals[k]);
        } else if (!st && nch > 0) {
            floe_batch *taken = NULL;
            if (nch == nrem) taken = floe_batch_retain(sub);
            else st = floe_batch_take(sub, chosen, nch, &taken);
            if (!st) st = floe_expr_eval(val_e, taken, &vals[k]);
            floe_batch_release(taken);
        }
        if (!st && vals[k] && !floe_type_equals(vals[k]->type, rt)) {
            floe_array *c = NULL;
            st = cast_array(vals[k], rt, vals[k]->length, &c);
            floe_array_release(vals[k]);
            vals[k] = c;
        }
        floe_array_release(test);
        floe_batch_release(sub);
        if (!st) nrem = nkeep;
    }
    if (!st) st = floe_builder_new(rt, n, &bld);
    for (int64_t r = 0; !st && r < n; r++) {
        if (branch[r] < 0) st = floe_builder_append_null(bld);
        else st = floe_builder_append_array(bld, vals[branch[r]], pos[r], 1);
    }
    if (!st) st = floe_builder_finish(bld, out);
done:
    floe_builder_free(bld);
    for (int32_t k = 0; vals && k < nb; k++) floe_array_release(vals[k]);
    floe_free(vals);
    floe_free(branch);
    floe_free(pos);
    floe_free(rem);
    floe_free(chosen);
    floe_type_release(rt);
    return st;
}

/* value IN (items): TRUE if any item equals it, else NULL if the value or
 * any item is NULL, else FALSE. */
static floe_status eval_in(const floe_expr *e, const floe_batch *batch, floe_array **out) {
    int64_t n = batch->num_rows, words = (n + 7) / 8;
    floe_array *v = NULL;
    floe_buffer *is_true = NULL, *saw_null = NULL;
    floe_status st = floe_expr_eval(e->args[0], batch, &v);
    if (!st) st = floe_buffer_new(words, &is_true);
    if (!st) st = floe_buffer_new(words, &saw_null);
    floe_expr eq;
    memset(&eq, 0, sizeof eq);
    eq.kind = FLOE_EXPR_CMP;
    eq.op = FLOE_CMP_EQ;
    for (int32_t k = 1; !st && k < e->n_args; k++) {
        floe_array *item = NULL, *c = NULL;
        st = floe_expr_eval(e->args[k], batch, &item);
        if (!st) st = eval_cmp(&eq, v, item, n, &c);
        for (int64_t i = 0; !st && i < n; i++) {
            if (floe_array_is_null(c, i)) floe_bit_set(saw_null->data, i);
            else if (floe_array_get_bool(c, i)) floe_bit_set(is_true->data, i);
        }
        floe_array_release(item);
        floe_array_release(c);
    }
    if (!st) {
        /* validity = true OR NOT null, kept in saw_null's buffer */
        for (int64_t i = 0; i < words; i++) saw_null->data[i] = (uint8_t)(is_true->data[i] | ~saw_null->data[i]);
        st = make_array(floe_type_primitive(FLOE_TYPE_BOOL), n, saw_null, is_true, out);
        saw_null = is_true = NULL;
    }
    floe_buffer_release(is_true);
    floe_buffer_release(saw_null);
    floe_array_release(v);
    return st;
}

floe_status floe_expr_eval(const floe_expr *e, const floe_batch *batch, floe_array **out) {
    int64_t n = batch->num_rows;
    *out = NULL;
    if (e->kind == FLOE_EXPR_COLUMN) {
        if (e->column >= batch->num_columns)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "column #%d is out of range (batch has %d columns)",
                              e->column, batch->num_columns);
        *out = floe_array_retain(batch->columns[e->column]);
        return NULL;
    }
    if (e->kind == FLOE_EXPR_LITERAL) {
        /* Broadcast: gather slot 0 n times. */
        uint32_t *zeros = floe_calloc((size_t)(n ? n : 1), sizeof *zeros);
        if (!zeros) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "broadcasting a literal");
        floe_status st = floe_array_take(e->literal, zeros, n, out);
        floe_free(zeros);
        return st;
    }
    if (e->kind == FLOE_EXPR_CASE || e->kind == FLOE_EXPR_COALESCE) return eval_lazy(e, batch, out);
    if (e->kind == FLOE_EXPR_IN) return eval_in(e, batch, out);
    if (e->kind == FLOE_EXPR_CALL) return floe_func_call_eval(e, batch, out);
    if (e->kind == FLOE_EXPR_CMP || e->kind == FLOE_EXPR_AND || e->kind == FLOE_EXPR_OR || e->kind == FLOE_EXPR_NOT ||
        e->kind == FLOE_EXPR_ARITH) {
        bool done;
        FLOE_TRY(floe_expr_fast_eval(e, batch, out, &done)); /* expr_fast.c */
        if (done) return NULL;
    }
    floe_array *args[2] = {NULL, NULL};
    floe_status st = NULL;
    for (int32_t i = 0; i < e->n_args && !st; i++) st = floe_expr_eval(e->args[i], batch, &args[i]);
    if (!st) {
        switch (e->kind) {
        case FLOE_EXPR_CMP: st = eval_cmp(e, args[0], args[1], n, out); break;
        case FLOE_EXPR_ARITH: st = eval_arith(e, args[0], args[1], n, out); break;
        case FLOE_EXPR_CAST: st = cast_array(args[0], e->cast_type, n, out); break;
        default: st = floe_expr_logic_general(e, args, n, out); break;
        }
    }
    floe_array_release(args[0]);
    floe_array_release(args[1]);
    return st;
}

floe_status floe_expr_select(const floe_expr *e, const floe_batch *batch, uint32_t **sel, int64_t *n) {
    floe_array *a;
    *sel = NULL;
    *n = 0;
    FLOE_TRY(floe_expr_eval(e, batch, &a));
    floe_status st = NULL;
    if (a->type->id != FLOE_TYPE_BOOL && a->type->id != FLOE_TYPE_NULL) {
        st = floe_error(FLOE_ERR_TYPE, "a filter predicate must be bool, not %s", floe_type_id_name(a->type->id));
        goto done;
    }
    uint32_t *s = floe_malloc_array((size_t)(a->length ? a->length : 1), sizeof *s);
    if (!s) { st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a selection vector"); goto done; }
    int64_t k = 0;
    if (a->type->id == FLOE_TYPE_BOOL) {
        const uint8_t *vals = a->buffers[0]->data, *valid = a->validity ? a->validity->data : NULL;
        int64_t i = 0;
        if (a->offset % 8 == 0) {
            /* Whole bytes: the set bits of value AND validity, found with
             * count-trailing-zeros, so the cost follows the rows kept. */
            const uint8_t *v8 = vals + a->offset / 8, *m8 = valid ? valid + a->offset / 8 : NULL;
            for (; i + 64 <= a->length; i += 64) {
                uint64_t w, m = ~UINT64_C(0);
                memcpy(&w, v8 + i / 8, 8);
                if (m8) memcpy(&m, m8 + i / 8, 8);
                w &= m;
                while (w) {
                    s[k++] = (uint32_t)(i + __builtin_ctzll(w));
                    w &= w - 1;
                }
            }
        }
        for (; i < a->length; i++) {
            int64_t j = a->offset + i;
            bool t = floe_bit_get(vals, j) && (!valid || floe_bit_get(valid, j));
            s[k] = (uint32_t)i;
            k += t;
        }
    }
    *sel = s;
    *n = k;
done:
    floe_array_release(a);
    return st;
}

floe_status floe_expr_to_string(const floe_expr *e, floe_buf *out) {
    switch (e->kind) {
    case FLOE_EXPR_COLUMN: return floe_buf_printf(out, "#%d", e->column);
    case FLOE_EXPR_LITERAL:
        if (floe_array_is_null(e->literal, 0)) {
            FLOE_TRY(floe_buf_append_str(out, "NULL::"));
            return floe_type_to_string(e->literal->type, out);
        }
        if (e->literal->type->id == FLOE_TYPE_STRING) FLOE_TRY(floe_buf_append_str(out, "'"));
        FLOE_TRY(floe_format_value(e->literal, 0, out));
        if (e->literal->type->id == FLOE_TYPE_STRING) FLOE_TRY(floe_buf_append_str(out, "'"));
        return NULL;
    case FLOE_EXPR_CMP: case FLOE_EXPR_ARITH: case FLOE_EXPR_AND: case FLOE_EXPR_OR: {
        const char *op = e->kind == FLOE_EXPR_CMP ? cmp_names[e->op] : e->kind == FLOE_EXPR_ARITH
                       ? arith_names[e->op] : e->kind == FLOE_EXPR_AND ? "AND" : "OR";
        FLOE_TRY(floe_buf_append_str(out, "("));
        FLOE_TRY(floe_expr_to_string(e->args[0], out));
        FLOE_TRY(floe_buf_printf(out, " %s ", op));
        FLOE_TRY(floe_expr_to_string(e->args[1], out));
        return floe_buf_append_str(out, ")");
    }
    case FLOE_EXPR_NOT:
        FLOE_TRY(floe_buf_append_str(out, "NOT "));
        return floe_expr_to_string(e->args[0], out);
    case FLOE_EXPR_IS_NULL: case FLOE_EXPR_IS_NOT_NULL:
        FLOE_TRY(floe_buf_append_str(out, "("));
        FLOE_TRY(floe_expr_to_string(e->args[0], out));
        return floe_buf_append_str(out, e->kind == FLOE_EXPR_IS_NULL ? " IS NULL)" : " IS NOT NULL)");
    case FLOE_EXPR_CAST:
        FLOE_TRY(floe_buf_append_str(out, "CAST("));
        FLOE_TRY(floe_expr_to_string(e->args[0], out));
        FLOE_TRY(floe_buf_append_str(out, " AS "));
        FLOE_TRY(floe_type_to_string(e->cast_type, out));
        return floe_buf_append_str(out, ")");
    case FLOE_EXPR_CASE:
        FLOE_TRY(floe_buf_append_str(out, "CASE"));
        for (int32_t i = 0; i + 1 < e->n_args; i += 2) {
            FLOE_TRY(floe_buf_append_str(out, " WHEN "));
            FLOE_TRY(floe_expr_to_string(e->args[i], out));
            FLOE_TRY(floe_buf_append_str(out, " THEN "));
            FLOE_TRY(floe_expr_to_string(e->args[i + 1], out));
        }
        if (e->op) {
            FLOE_TRY(floe_buf_append_str(out, " ELSE "));
            FLOE_TRY(floe_expr_to_string(e->args[e->n_args - 1], out));
        }
        return floe_buf_append_str(out, " END");
    case FLOE_EXPR_IN: case FLOE_EXPR_COALESCE:
        if (e->kind == FLOE_EXPR_IN) {
            FLOE_TRY(floe_buf_append_str(out, "("));
            FLOE_TRY(floe_expr_to_string(e->args[0], out));
            FLOE_TRY(floe_buf_append_str(out, " IN ("));
        } else {
            FLOE_TRY(floe_buf_append_str(out, "COALESCE("));
        }
        for (int32_t i = e->kind == FLOE_EXPR_IN; i < e->n_args; i++) {
            if (i > (e->kind == FLOE_EXPR_IN)) FLOE_TRY(floe_buf_append_str(out, ", "));
            FLOE_TRY(floe_expr_to_string(e->args[i], out));
        }
        return floe_buf_append_str(out, e->kind == FLOE_EXPR_IN ? "))" : ")");
    case FLOE_EXPR_CALL:
        FLOE_TRY(floe_buf_printf(out, "%s(", e->func));
        for (int32_t i = 0; i < e->n_args; i++) {
            if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
            FLOE_TRY(floe_expr_to_string(e->args[i], out));
        }
        return floe_buf_append_str(out, ")");
    default: return floe_error(FLOE_ERR_INTERNAL, "expression kind %d", (int)e->kind);
    }
}

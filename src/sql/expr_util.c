/*
 * expr_util.c — column bookkeeping, rewriting and constant folding over
 * floe_expr trees, for the optimizer and the physical planner.
 *
 * Expressions are immutable, so every rewrite builds a new tree; parts
 * that do not change are shared by reference.
 */
#include <limits.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/memory.h"
#include "sql/expr_util.h"

void floe_sqlx_columns(const floe_expr *e, bool *used) {
    if (e->kind == FLOE_EXPR_COLUMN) used[e->column] = true;
    for (int32_t i = 0; i < e->n_args; i++) floe_sqlx_columns(e->args[i], used);
}

int32_t floe_sqlx_max_column(const floe_expr *e) {
    int32_t m = e->kind == FLOE_EXPR_COLUMN ? e->column : -1;
    for (int32_t i = 0; i < e->n_args; i++) {
        int32_t c = floe_sqlx_max_column(e->args[i]);
        if (c > m) m = c;
    }
    return m;
}

int32_t floe_sqlx_min_column(const floe_expr *e) {
    int32_t m = e->kind == FLOE_EXPR_COLUMN ? e->column : INT32_MAX;
    for (int32_t i = 0; i < e->n_args; i++) {
        int32_t c = floe_sqlx_min_column(e->args[i]);
        if (c < m) m = c;
    }
    return m;
}

floe_status floe_sqlx_with_args(const floe_expr *e, floe_expr *const *args, int32_t n_args, floe_expr **out) {
    return floe_expr_make(e->kind, e->op, e->column, e->literal, e->cast_type, e->func, args, n_args, out);
}

/* The shared walk of remap / shift / substitute: `leaf` makes the
 * replacement of a column reference. */
typedef floe_status (*leaf_fn)(const floe_expr *col, const void *ctx, floe_expr **out);

static floe_status rewrite(const floe_expr *e, leaf_fn leaf, const void *ctx, floe_expr **out) {
    *out = NULL;
    if (e->kind == FLOE_EXPR_COLUMN) return leaf(e, ctx, out);
    if (e->n_args == 0) {
        *out = floe_expr_retain((floe_expr *)e);
        return NULL;
    }
    floe_expr *stack_args[8];
    floe_expr **args = e->n_args <= 8 ? stack_args : floe_calloc((size_t)e->n_args, sizeof *args);
    if (!args) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "rewriting an expression");
    floe_status st = NULL;
    int32_t made = 0;
    bool changed = false;
    for (; made < e->n_args; made++) {
        if ((st = rewrite(e->args[made], leaf, ctx, &args[made]))) break;
        if (args[made] != e->args[made]) changed = true;
    }
    if (!st) {
        if (changed) st = floe_sqlx_with_args(e, args, e->n_args, out);
        else *out = floe_expr_retain((floe_expr *)e);
    }
    for (int32_t i = 0; i < made; i++) floe_expr_release(args[i]);
    if (args != stack_args) floe_free(args);
    return st;
}

static floe_status remap_leaf(const floe_expr *col, const void *ctx, floe_expr **out) {
    const int32_t *map = ctx;
    int32_t to = map[col->column];
    if (to < 0) return floe_error(FLOE_ERR_INTERNAL, "column #%d was pruned but is still read", col->column);
    if (to == col->column) {
        *out = floe_expr_retain((floe_expr *)col);
        return NULL;
    }
    return floe_expr_column(to, out);
}

floe_status floe_sqlx_remap(const floe_expr *e, const int32_t *map, floe_expr **out) {
    return rewrite(e, remap_leaf, map, out);
}

static floe_status shift_leaf(const floe_expr *col, const void *ctx, floe_expr **out) {
    int32_t delta = *(const int32_t *)ctx;
    if (col->column + delta < 0) return floe_error(FLOE_ERR_INTERNAL, "shifting column #%d by %d", col->column, delta);
    return floe_expr_column(col->column + delta, out);
}

floe_status floe_sqlx_shift(const floe_expr *e, int32_t delta, floe_expr **out) {
    if (delta == 0) {
        *out = floe_expr_retain((floe_expr *)e);
        return NULL;
    }
    return rewrite(e, shift_leaf, &delta, out);
}

typedef struct subst_ctx {
    floe_expr *const *subst;
    int32_t n;
} subst_ctx;

static floe_status subst_leaf(const floe_expr *col, const void *ctx_, floe_expr **out) {
    const subst_ctx *ctx = ctx_;
    if (col->column >= ctx->n) return floe_error(FLOE_ERR_INTERNAL, "substituting column #%d of %d", col->column, ctx->n);
    *out = floe_expr_retain(ctx->subst[col->column]);
    return NULL;
}

floe_status floe_sqlx_substitute(const floe_expr *e, floe_expr *const *subst, int32_t n_subst, floe_expr **out) {
    subst_ctx ctx = {subst, n_subst};
    return rewrite(e, subst_leaf, &ctx, out);
}

static floe_status push_part(floe_expr *e, floe_expr ***parts, int32_t *n, int32_t *cap) {
    if (*n == *cap) {
        int32_t c = *cap ? *cap * 2 : 8;
        floe_expr **np = floe_realloc(*parts, (size_t)c * sizeof *np);
        if (!np) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "splitting a predicate");
        *parts = np;
        *cap = c;
    }
    (*parts)[(*n)++] = floe_expr_retain(e);
    return NULL;
}

floe_status floe_sqlx_conjuncts(floe_expr *e, floe_expr ***parts, int32_t *n, int32_t *cap) {
    if (e->kind == FLOE_EXPR_AND) {
        FLOE_TRY(floe_sqlx_conjuncts(e->args[0], parts, n, cap));
        return floe_sqlx_conjuncts(e->args[1], parts, n, cap);
    }
    if (floe_sqlx_is_true(e)) return NULL;
    return push_part(e, parts, n, cap);
}

static floe_status disjuncts(floe_expr *e, floe_expr ***parts, int32_t *n, int32_t *cap) {
    if (e->kind == FLOE_EXPR_OR) {
        FLOE_TRY(disjuncts(e->args[0], parts, n, cap));
        return disjuncts(e->args[1], parts, n, cap);
    }
    return push_part(e, parts, n, cap);
}

/* Is the conjunct with encoding `key` among the n encodings? */
static bool has_encoding(const floe_buf *encs, int32_t n, const floe_buf *key) {
    for (int32_t i = 0; i < n; i++)
        if (encs[i].len == key->len && memcmp(encs[i].data, key->data, key->len) == 0) return true;
    return false;
}

typedef struct or_branch {
    floe_expr **conj;
    int32_t n, cap;
    floe_buf *enc; /* the codec bytes of each conjunct: exact structural equality */
} or_branch;

floe_status floe_sqlx_factor_or(floe_expr *e, floe_expr **out) {
    *out = NULL;
    if (e->kind != FLOE_EXPR_OR) {
        *out = floe_expr_retain(e);
        return NULL;
    }
    floe_expr **ds = NULL, **common = NULL, **rest = NULL;
    int32_t nd = 0, capd = 0, n_common = 0, n_rest = 0;
    or_branch *b = NULL;
    floe_status st = disjuncts(e, &ds, &nd, &capd);
    if (!st && !(b = floe_calloc((size_t)nd, sizeof *b))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "factoring an OR");
    for (int32_t i = 0; !st && i < nd; i++) {
        st = floe_sqlx_conjuncts(ds[i], &b[i].conj, &b[i].n, &b[i].cap);
        if (!st && b[i].n && !(b[i].enc = floe_calloc((size_t)b[i].n, sizeof *b[i].enc)))
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "factoring an OR");
        for (int32_t k = 0; !st && k < b[i].n; k++) st = floe_codec_put_expr(&b[i].enc[k], b[i].conj[k]);
    }
    /* The conjuncts of the first branch that every branch has. */
    bool *is_common = NULL;
    if (!st && nd > 0 && b[0].n > 0 && !(is_common = floe_calloc((size_t)b[0].n, sizeof *is_common)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "factoring an OR");
    for (int32_t k = 0; !st && nd > 0 && k < b[0].n; k++) {
        bool all = !has_encoding(b[0].enc, k, &b[0].enc[k]); /* a repeat counts once */
        for (int32_t i = 1; all && i < nd; i++) all = has_encoding(b[i].enc, b[i].n, &b[0].enc[k]);
        is_common[k] = all;
        if (all) n_common++;
    }
    if (!st && n_common == 0) {
        *out = floe_expr_retain(e);
        goto done;
    }
    if (!st && (!(common = floe_calloc((size_t)n_common + 1, sizeof *common)) ||
                !(rest = floe_calloc((size_t)nd, sizeof *rest))))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "factoring an OR");
    int32_t nc = 0;
    for (int32_t k = 0; !st && k < b[0].n; k++)
        if (is_common[k]) common[nc++] = b[0].conj[k];
    /* What each branch keeps; a branch left with nothing is TRUE, and then
     * so is the whole OR: A OR (A AND C) is A (absorption holds in SQL's
     * three-valued logic, as does distribution). */
    bool any_empty = false;
    for (int32_t i = 0; !st && i < nd; i++) {
        floe_expr **keep = NULL;
        int32_t nk = 0;
        if (b[i].n && !(keep = floe_calloc((size_t)b[i].n, sizeof *keep))) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "factoring an OR");
            break;
        }
        for (int32_t k = 0; k < b[i].n; k++) {
            floe_buf *c_enc = NULL;
            for (int32_t j = 0; j < b[0].n && !c_enc; j++)
                if (is_common[j] && b[0].enc[j].len == b[i].enc[k].len &&
                    memcmp(b[0].enc[j].data, b[i].enc[k].data, b[i].enc[k].len) == 0)
                    c_enc = &b[0].enc[j];
            if (!c_enc) keep[nk++] = b[i].conj[k];
        }
        if (nk == 0) any_empty = true;
        else st = floe_sqlx_and_all(keep, nk, &rest[n_rest++]);
        floe_free(keep);
    }
    if (!st && !any_empty) {
        floe_expr *acc = floe_expr_retain(rest[0]);
        for (int32_t i = 1; !st && i < n_rest; i++) {
            floe_expr *next = NULL;
            st = floe_expr_or(acc, rest[i], &next);
            floe_expr_release(acc);
            acc = next;
        }
        if (!st) common[nc++] = acc;
        else floe_expr_release(acc);
    }
    if (!st) st = floe_sqlx_and_all(common, nc, out);
    if (!st && !any_empty) floe_expr_release(common[nc - 1]);
done:
    for (int32_t i = 0; i < n_rest; i++) floe_expr_release(rest[i]);
    floe_free(rest);
    floe_free(common);
    floe_free(is_common);
    for (int32_t i = 0; b && i < nd; i++) {
        for (int32_t k = 0; k < b[i].n; k++) floe_buf_free(&b[i].enc[k]);
        floe_free(b[i].enc);
        floe_sqlx_free_list(b[i].conj, b[i].n);
    }
    floe_free(b);
    floe_sqlx_free_list(ds, nd);
    return st;
}

bool floe_sqlx_same(const floe_expr *a, const floe_expr *b) {
    if (a == b) return true;
    floe_buf x = FLOE_BUF_INIT, y = FLOE_BUF_INIT;
    floe_status sa = floe_codec_put_expr(&x, a), sb = sa ? NULL : floe_codec_put_expr(&y, b);
    bool eq = !sa && !sb && x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
    floe_status_free(sa);
    floe_status_free(sb);
    floe_buf_free(&x);
    floe_buf_free(&y);
    return eq;
}

double floe_sqlx_selectivity(const floe_expr *e) {
    switch (e->kind) {
    case FLOE_EXPR_AND:
        return floe_sqlx_selectivity(e->args[0]) * floe_sqlx_selectivity(e->args[1]);
    case FLOE_EXPR_OR: {
        double a = floe_sqlx_selectivity(e->args[0]), b = floe_sqlx_selectivity(e->args[1]);
        double s = a + b - a * b;
        return s < 1 ? s : 1;
    }
    case FLOE_EXPR_NOT: {
        double s = 1 - floe_sqlx_selectivity(e->args[0]);
        return s > 0.05 ? s : 0.05;
    }
    case FLOE_EXPR_CMP:
        /* column = column of one table: as rare as a constant match */
        if (e->op == FLOE_CMP_EQ) return 0.1;
        if (e->op == FLOE_CMP_NE) return 0.9;
        return 0.4;
    case FLOE_EXPR_IN: {
        double s = 0.1 * (e->n_args - 1);
        return s < 0.5 ? s : 0.5;
    }
    case FLOE_EXPR_IS_NULL:
        return 0.05;
    case FLOE_EXPR_IS_NOT_NULL:
        return 0.95;
    case FLOE_EXPR_CALL:
        if (e->func && (strcmp(e->func, "like") == 0 || strcmp(e->func, "ilike") == 0)) return 0.25;
        return 0.5;
    case FLOE_EXPR_LITERAL:
        return floe_sqlx_is_true(e) ? 1 : 0.01;
    default:
        return 0.5;
    }
}

static bool is_volatile(const floe_expr *e);
bool floe_sqlx_reads_volatile(const floe_expr *e) {
    if (is_volatile(e)) return true;
    for (int32_t i = 0; i < e->n_args; i++)
        if (e->args[i] && floe_sqlx_reads_volatile(e->args[i])) return true;
    return false;
}

floe_status floe_sqlx_derive_or(floe_expr *e, int32_t lo, int32_t hi, floe_expr **out) {
    *out = NULL;
    if (e->kind != FLOE_EXPR_OR || floe_sqlx_reads_volatile(e)) return NULL;
    floe_expr **ds = NULL, *acc = NULL;
    int32_t nd = 0, capd = 0;
    floe_status st = disjuncts(e, &ds, &nd, &capd);
    for (int32_t i = 0; !st && i < nd; i++) {
        floe_expr **conj = NULL, **keep = NULL, *branch = NULL;
        int32_t nc = 0, capc = 0, nk = 0;
        st = floe_sqlx_conjuncts(ds[i], &conj, &nc, &capc);
        if (!st && nc && !(keep = floe_calloc((size_t)nc, sizeof *keep)))
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "deriving a filter");
        for (int32_t k = 0; !st && k < nc; k++)
            if (floe_sqlx_max_column(conj[k]) >= 0 && floe_sqlx_min_column(conj[k]) >= lo &&
                floe_sqlx_max_column(conj[k]) < hi)
                keep[nk++] = conj[k];
        if (!st && nk > 0) st = floe_sqlx_and_all(keep, nk, &branch);
        floe_free(keep);
        floe_sqlx_free_list(conj, nc);
        if (st || !branch) { /* a branch that says nothing about the range: nothing implied */
            floe_expr_release(acc);
            acc = NULL;
            break;
        }
        if (!acc) {
            acc = branch;
        } else {
            floe_expr *next = NULL;
            st = floe_expr_or(acc, branch, &next);
            floe_expr_release(acc);
            floe_expr_release(branch);
            acc = st ? NULL : next;
        }
    }
    floe_sqlx_free_list(ds, nd);
    if (st) {
        floe_expr_release(acc);
        return st;
    }
    *out = acc;
    return NULL;
}

floe_status floe_sqlx_and_all(floe_expr *const *parts, int32_t n, floe_expr **out) {
    *out = NULL;
    if (n == 0) return NULL;
    floe_expr *acc = floe_expr_retain(parts[0]);
    for (int32_t i = 1; i < n; i++) {
        floe_expr *next;
        floe_status st = floe_expr_and(acc, parts[i], &next);
        floe_expr_release(acc);
        if (st) return st;
        acc = next;
    }
    *out = acc;
    return NULL;
}

void floe_sqlx_free_list(floe_expr **parts, int32_t n) {
    for (int32_t i = 0; i < n; i++) floe_expr_release(parts[i]);
    floe_free(parts);
}

bool floe_sqlx_is_true(const floe_expr *e) {
    return e->kind == FLOE_EXPR_LITERAL && e->literal->type->id == FLOE_TYPE_BOOL &&
           floe_array_is_valid(e->literal, 0) && floe_array_get_bool(e->literal, 0);
}

bool floe_sqlx_is_false_or_null(const floe_expr *e) {
    if (e->kind != FLOE_EXPR_LITERAL) return false;
    if (floe_array_is_null(e->literal, 0)) return true;
    return e->literal->type->id == FLOE_TYPE_BOOL && !floe_array_get_bool(e->literal, 0);
}

/* Evaluate a column-free expression once, on a one-row batch with no
 * columns. */
static floe_status eval_constant(const floe_expr *e, floe_expr **out) {
    floe_schema *empty = NULL;
    floe_batch *b = NULL;
    floe_array *v = NULL;
    floe_status st = floe_type_struct(NULL, 0, &empty);
    if (!st) st = floe_batch_new(empty, NULL, 0, 1, &b);
    if (!st) st = floe_expr_eval(e, b, &v);
    if (!st) st = floe_expr_literal(v, out);
    floe_array_release(v);
    floe_batch_release(b);
    floe_type_release(empty);
    return st;
}

static bool is_volatile(const floe_expr *e) {
    /* Functions whose value changes per call, or that change what later
     * calls return, are never folded. */
    return floe_expr_is_volatile_call(e);
}

floe_status floe_sqlx_fold(floe_expr *e, const floe_schema *schema, floe_expr **out) {
    *out = NULL;
    if (e->kind == FLOE_EXPR_COLUMN || e->kind == FLOE_EXPR_LITERAL) {
        *out = floe_expr_retain(e);
        return NULL;
    }
    /* Fold the arguments first. */
    floe_expr *stack_args[8];
    floe_expr **args = e->n_args <= 8 ? stack_args : floe_calloc((size_t)e->n_args, sizeof *args);
    if (!args) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "folding an expression");
    floe_status st = NULL;
    int32_t made = 0;
    bool changed = false, all_literal = true;
    for (; made < e->n_args; made++) {
        if ((st = floe_sqlx_fold(e->args[made], schema, &args[made]))) break;
        if (args[made] != e->args[made]) changed = true;
        if (args[made]->kind != FLOE_EXPR_LITERAL) all_literal = false;
    }
    floe_expr *cur = NULL;
    if (!st) {
        if (changed) st = floe_sqlx_with_args(e, args, e->n_args, &cur);
        else cur = floe_expr_retain(e);
    }
    for (int32_t i = 0; i < made; i++) floe_expr_release(args[i]);
    if (args != stack_args) floe_free(args);
    if (st) return st;

    /* Boolean simplifications that hold in three-valued logic. */
    if (cur->kind == FLOE_EXPR_AND) {
        for (int k = 0; k < 2; k++) {
            if (floe_sqlx_is_true(cur->args[k])) { /* TRUE AND x = x */
                floe_expr *keep = floe_expr_retain(cur->args[1 - k]);
                floe_expr_release(cur);
                *out = keep;
                return NULL;
            }
        }
    } else if (cur->kind == FLOE_EXPR_OR) {
        for (int k = 0; k < 2; k++) {
            const floe_expr *a = cur->args[k];
            if (a->kind == FLOE_EXPR_LITERAL && a->literal->type->id == FLOE_TYPE_BOOL &&
                floe_array_is_valid(a->literal, 0) && !floe_array_get_bool(a->literal, 0)) {
                floe_expr *keep = floe_expr_retain(cur->args[1 - k]); /* FALSE OR x = x */
                floe_expr_release(cur);
                *out = keep;
                return NULL;
            }
        }
    }
    if (all_literal && cur->n_args > 0 && !is_volatile(cur)) {
        floe_expr *lit = NULL;
        floe_status ev = eval_constant(cur, &lit);
        if (!ev) {
            floe_expr_release(cur);
            *out = lit;
            return NULL;
        }
        floe_status_free(ev); /* leave it for run time */
    }
    (void)schema;
    *out = cur;
    return NULL;
}

/* ------------------------------------------------- casts in comparisons */

static int64_t fdiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/* CAST(d AS timestamp) <op> T  as  d <op'> D, D a date: d*U < T <=> d <
 * ceil(T/U), d*U <= T <=> d <= floor(T/U), > floor, >= ceil, and = / <>
 * only when T is a midnight.  Returns NULL in *out when it does not apply. */
static floe_status date_cmp(int op, const floe_expr *col, int64_t t, int64_t unit, floe_expr **out) {
    *out = NULL;
    int64_t fl = fdiv(t, unit), ce = -fdiv(-t, unit), day;
    switch (op) {
    case FLOE_CMP_LT: day = ce; break;
    case FLOE_CMP_LE: day = fl; break;
    case FLOE_CMP_GT: day = fl; break;
    case FLOE_CMP_GE: day = ce; break;
    default:
        if (fl != ce) return NULL;
        day = fl;
        break;
    }
    if (day < INT32_MIN || day > INT32_MAX) return NULL;
    floe_builder *b;
    floe_array *a = NULL;
    floe_expr *lit = NULL;
    FLOE_TRY(floe_builder_new(floe_type_primitive(FLOE_TYPE_DATE32), 1, &b));
    floe_status st = floe_builder_append_int32(b, (int32_t)day);
    if (!st) st = floe_builder_finish(b, &a);
    floe_builder_free(b);
    if (!st) st = floe_expr_literal(a, &lit);
    if (!st) st = floe_expr_cmp((floe_cmp_op)op, (floe_expr *)col, lit, out);
    floe_expr_release(lit);
    floe_array_release(a);
    return st;
}

static int mirror_cmp(int op) {
    switch (op) {
    case FLOE_CMP_LT: return FLOE_CMP_GT;
    case FLOE_CMP_LE: return FLOE_CMP_GE;
    case FLOE_CMP_GT: return FLOE_CMP_LT;
    case FLOE_CMP_GE: return FLOE_CMP_LE;
    default: return op;
    }
}

floe_status floe_sqlx_unwrap_casts(floe_expr *e, const floe_schema *schema, floe_expr **out) {
    *out = NULL;
    /* Rewrite the arguments first. */
    floe_expr *stack_args[8];
    floe_expr **args = e->n_args <= 8 ? stack_args : floe_calloc((size_t)e->n_args, sizeof *args);
    if (!args) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "simplifying an expression");
    floe_status st = NULL;
    int32_t made = 0;
    bool changed = false;
    for (; made < e->n_args; made++) {
        if ((st = floe_sqlx_unwrap_casts(e->args[made], schema, &args[made]))) break;
        if (args[made] != e->args[made]) changed = true;
    }
    floe_expr *cur = NULL;
    if (!st) {
        if (changed) st = floe_sqlx_with_args(e, args, e->n_args, &cur);
        else cur = floe_expr_retain(e);
    }
    for (int32_t i = 0; i < made; i++) floe_expr_release(args[i]);
    if (args != stack_args) floe_free(args);
    if (st) return st;
    if (cur->kind == FLOE_EXPR_CMP) {
        const floe_expr *c = cur->args[0], *l = cur->args[1];
        int op = cur->op;
        if (c->kind == FLOE_EXPR_LITERAL) {
            const floe_expr *t = c;
            c = l;
            l = t;
            op = mirror_cmp(op);
        }
        if (c->kind == FLOE_EXPR_CAST && l->kind == FLOE_EXPR_LITERAL && floe_array_is_valid(l->literal, 0)) {
            floe_type *from = NULL;
            st = floe_expr_type(c->args[0], schema, &from);
            floe_type_id f = from ? from->id : FLOE_TYPE_NULL, to = c->cast_type->id, lt = l->literal->type->id;
            floe_type_release(from);
            floe_expr *r = NULL;
            if (!st && f == FLOE_TYPE_DATE32 && lt == to &&
                (to == FLOE_TYPE_TIMESTAMP_US || to == FLOE_TYPE_TIMESTAMP_NS)) {
                int64_t unit = to == FLOE_TYPE_TIMESTAMP_NS ? INT64_C(86400000000000) : INT64_C(86400000000);
                st = date_cmp(op, c->args[0], floe_array_get_int64(l->literal, 0), unit, &r);
            } else if (!st && f == FLOE_TYPE_INT32 && to == FLOE_TYPE_INT64 &&
                       (lt == FLOE_TYPE_INT64 || lt == FLOE_TYPE_INT32)) {
                /* int32 vs a 64-bit constant compares exactly as is */
                st = floe_expr_cmp((floe_cmp_op)op, c->args[0], (floe_expr *)l, &r);
            }
            if (r) {
                floe_expr_release(cur);
                *out = r;
                return st;
            }
        }
    }
    *out = cur;
    return st;
}

/*
 * agg_cse.c — common subexpression elimination over a set of expressions
 * (see agg_cse.h).
 *
 * Repeatedly: list every subexpression in an eager position of the
 * current expressions, take the smallest one that occurs at least twice,
 * make it the next shared column and replace its occurrences by a
 * reference to that column.  Smallest first means a shared expression's
 * own repeated parts are already columns when it is chosen, so it reads
 * only shared columns made before it and the columns evaluate in order.
 * The sets are small (a query's aggregate arguments), so the quadratic
 * search costs nothing next to evaluating one batch.
 */
#include "exec/expr/agg_cse.h"

#include <stdio.h>
#include <string.h>

#define CSE_MAX_SHARED 64
#define CSE_MAX_CANDIDATES 2048

bool floe_expr_same(const floe_expr *a, const floe_expr *b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind || a->op != b->op || a->n_args != b->n_args) return false;
    switch (a->kind) {
    case FLOE_EXPR_COLUMN:
        return a->column == b->column;
    case FLOE_EXPR_LITERAL: {
        const floe_array *x = a->literal, *y = b->literal;
        if (!floe_type_equals(x->type, y->type)) return false;
        bool xn = floe_array_is_null(x, 0), yn = floe_array_is_null(y, 0);
        if (xn || yn) return xn && yn;
        if (x->type->id == FLOE_TYPE_BOOL) return floe_array_get_bool(x, 0) == floe_array_get_bool(y, 0);
        if (floe_type_is_binary_like(x->type)) {
            floe_strview u = floe_array_get_str(x, 0), v = floe_array_get_str(y, 0);
            return u.len == v.len && (u.len == 0 || memcmp(u.data, v.data, (size_t)u.len) == 0);
        }
        if (x->type->byte_width > 0)
            return memcmp(floe_array_get_fixed(x, 0), floe_array_get_fixed(y, 0), (size_t)x->type->byte_width) == 0;
        return false; /* nested literals: never shared */
    }
    case FLOE_EXPR_CAST:
        if (!floe_type_equals(a->cast_type, b->cast_type)) return false;
        break;
    case FLOE_EXPR_CALL:
        if (!a->func || !b->func || strcmp(a->func, b->func) != 0) return false;
        if (floe_expr_is_volatile_call(a)) return false; /* random() - random() draws twice */
        break;
    default:
        break;
    }
    for (int32_t i = 0; i < a->n_args; i++)
        if (!floe_expr_same(a->args[i], b->args[i])) return false;
    return true;
}

/* Are e's arguments evaluated over every row whenever e is?  Not for the
 * lazy CASE / COALESCE, nor for function calls (a function decides). */
static bool eager_args(const floe_expr *e) {
    switch (e->kind) {
    case FLOE_EXPR_CMP:
    case FLOE_EXPR_AND:
    case FLOE_EXPR_OR:
    case FLOE_EXPR_NOT:
    case FLOE_EXPR_IS_NULL:
    case FLOE_EXPR_IS_NOT_NULL:
    case FLOE_EXPR_ARITH:
    case FLOE_EXPR_CAST:
        return true;
    default:
        return false;
    }
}

static int32_t expr_size(const floe_expr *e) {
    int32_t n = 1;
    if (eager_args(e))
        for (int32_t i = 0; i < e->n_args; i++) n += expr_size(e->args[i]);
    return n;
}

typedef struct cand {
    const floe_expr *e;
    int32_t owner; /* index of the top-level expression */
} cand;

typedef struct cand_list {
    cand *v;
    int32_t n, cap;
} cand_list;

static floe_status collect(const floe_expr *e, int32_t owner, cand_list *l) {
    if (e->kind == FLOE_EXPR_COLUMN || e->kind == FLOE_EXPR_LITERAL) return NULL;
    if (l->n == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 32;
        cand *v = floe_realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "common subexpressions");
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n].e = e;
    l->v[l->n].owner = owner;
    l->n++;
    if (eager_args(e))
        for (int32_t i = 0; i < e->n_args; i++) FLOE_TRY(collect(e->args[i], owner, l));
    return NULL;
}

/* e with every eager occurrence of `target` replaced by `with` (one
 * reference; e itself retained when nothing changes). */
static floe_status replace(floe_expr *e, const floe_expr *target, floe_expr *with, floe_expr **out) {
    *out = NULL;
    if (floe_expr_same(e, target)) {
        *out = floe_expr_retain(with);
        return NULL;
    }
    if (!eager_args(e) || e->n_args == 0) {
        *out = floe_expr_retain(e);
        return NULL;
    }
    floe_expr *args[4] = {NULL, NULL, NULL, NULL};
    if (e->n_args > 4) { /* eager kinds have at most 2 */
        *out = floe_expr_retain(e);
        return NULL;
    }
    floe_status st = NULL;
    bool changed = false;
    for (int32_t i = 0; i < e->n_args && !st; i++) {
        st = replace(e->args[i], target, with, &args[i]);
        if (!st && args[i] != e->args[i]) changed = true;
    }
    if (!st && !changed) *out = floe_expr_retain(e);
    else if (!st) st = floe_expr_make(e->kind, e->op, e->column, e->literal, e->cast_type, e->func, args, e->n_args, out);
    for (int32_t i = 0; i < e->n_args; i++) floe_expr_release(args[i]);
    return st;
}

void floe_cse_free(floe_cse *c) {
    if (!c) return;
    for (int32_t j = 0; j < c->n_shared; j++) floe_expr_release(c->shared[j]);
    for (int32_t j = 0; c->schemas && j <= c->n_shared; j++) floe_type_release(c->schemas[j]);
    for (int32_t i = 0; c->rewritten && i < c->n; i++) floe_expr_release(c->rewritten[i]);
    floe_free(c->shared);
    floe_free(c->first_user);
    floe_free(c->schemas);
    floe_free(c->rewritten);
    floe_free(c);
}

/* schemas[j + 1]: schemas[j] plus the field of shared[j]. */
static floe_status add_field(floe_cse *c, int32_t j) {
    const floe_schema *prev = c->schemas[j];
    int32_t nf = floe_schema_num_fields(prev);
    floe_field *f = floe_calloc((size_t)nf + 1, sizeof *f);
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "common subexpressions");
    floe_type *t = NULL;
    floe_status st = floe_expr_type(c->shared[j], prev, &t);
    int32_t k = 0;
    for (; !st && k < nf; k++)
        st = floe_field_init(&f[k], prev->children[k].name, prev->children[k].type, prev->children[k].nullable,
                             prev->children[k].field_id);
    char name[32];
    snprintf(name, sizeof name, "#cse%d", (int)j);
    if (!st) st = floe_field_init(&f[k++], name, t, true, -1);
    if (!st) st = floe_type_struct(f, k, &c->schemas[j + 1]);
    for (int32_t i = 0; i < k; i++) floe_field_clear(&f[i]);
    floe_free(f);
    floe_type_release(t);
    return st;
}

floe_status floe_cse_build(floe_expr *const *exprs, int32_t n, const floe_schema *in, floe_cse **out) {
    *out = NULL;
    floe_cse *c = floe_calloc(1, sizeof *c);
    cand_list l = {NULL, 0, 0};
    if (!c) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "common subexpressions");
    c->n_in = floe_schema_num_fields(in);
    c->n = n;
    c->rewritten = floe_calloc((size_t)(n ? n : 1), sizeof *c->rewritten);
    c->shared = floe_calloc(CSE_MAX_SHARED, sizeof *c->shared);
    c->first_user = floe_calloc(CSE_MAX_SHARED, sizeof *c->first_user);
    c->schemas = floe_calloc(CSE_MAX_SHARED + 1, sizeof *c->schemas);
    floe_status st = c->rewritten && c->shared && c->first_user && c->schemas
                         ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "common subexpressions");
    if (!st) c->schemas[0] = floe_type_retain((floe_type *)in);
    for (int32_t i = 0; i < n && !st; i++) c->rewritten[i] = floe_expr_retain(exprs[i]);
    while (!st && c->n_shared < CSE_MAX_SHARED) {
        l.n = 0;
        for (int32_t i = 0; i < n && !st; i++)
            if (c->rewritten[i]) st = collect(c->rewritten[i], i, &l);
        if (st || l.n > CSE_MAX_CANDIDATES) break; /* the search is quadratic: leave huge sets alone */
        /* the smallest subexpression occurring twice or more */
        int32_t best = -1, best_size = 0, best_owner = 0;
        for (int32_t a = 0; a < l.n; a++) {
            int32_t size = expr_size(l.v[a].e);
            if (best >= 0 && size >= best_size) continue;
            int32_t owner = l.v[a].owner;
            bool twice = false;
            for (int32_t b = 0; b < l.n; b++) {
                if (b == a || !floe_expr_same(l.v[a].e, l.v[b].e)) continue;
                twice = true;
                if (l.v[b].owner < owner) owner = l.v[b].owner;
            }
            if (!twice) continue;
            best = a;
            best_size = size;
            best_owner = owner;
        }
        if (best < 0) break;
        int32_t j = c->n_shared;
        floe_expr *target = floe_expr_retain((floe_expr *)l.v[best].e), *ref = NULL;
        c->shared[j] = target;
        c->first_user[j] = best_owner;
        c->n_shared = j + 1;
        st = add_field(c, j);
        if (!st) st = floe_expr_column(c->n_in + j, &ref);
        for (int32_t i = 0; i < n && !st; i++) {
            if (!c->rewritten[i]) continue;
            floe_expr *r = NULL;
            st = replace(c->rewritten[i], target, ref, &r);
            if (!st) {
                floe_expr_release(c->rewritten[i]);
                c->rewritten[i] = r;
            }
        }
        floe_expr_release(ref);
    }
    floe_free(l.v);
    if (st || c->n_shared == 0) {
        floe_cse_free(c);
        return st;
    }
    *out = c;
    return NULL;
}

floe_status floe_cse_extend(const floe_cse *c, floe_batch *b, floe_batch **out, int32_t *failed_expr) {
    *out = NULL;
    *failed_expr = -1;
    int32_t total = c->n_in + c->n_shared;
    floe_array **cols = floe_calloc((size_t)total, sizeof *cols);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "evaluating common subexpressions");
    if (b->num_columns != c->n_in) {
        floe_free(cols);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "common subexpressions over %d columns, the batch has %d",
                          c->n_in, b->num_columns);
    }
    for (int32_t i = 0; i < c->n_in; i++) cols[i] = floe_array_retain(b->columns[i]);
    floe_status st = NULL;
    floe_batch *cur = floe_batch_retain(b);
    for (int32_t j = 0; j < c->n_shared && !st; j++) {
        st = floe_expr_eval(c->shared[j], cur, &cols[c->n_in + j]);
        if (st) {
            *failed_expr = c->first_user[j];
            break;
        }
        floe_batch *next = NULL;
        st = floe_batch_new(c->schemas[j + 1], cols, c->n_in + j + 1, b->num_rows, &next);
        floe_batch_release(cur);
        cur = next;
    }
    for (int32_t i = 0; i < total; i++) floe_array_release(cols[i]);
    floe_free(cols);
    if (st) {
        floe_batch_release(cur);
        return st;
    }
    *out = cur;
    return NULL;
}

/*
 * expr.c — Iceberg expressions: construction with simplification, copying,
 * equality, NOT push-down and text printing.  Binding lives in
 * expr_bind.c, JSON in expr_json.c, projection in expr_project.c and the
 * evaluators in expr_eval.c.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/iceberg_expr.h"
#include "floe/memory.h"
#include "iceberg/expr/expr_internal.h"

floe_ice_expr *floe_ice__expr_node_new(floe_ice_expr_op op) {
    floe_ice_expr *e = floe_malloc(sizeof *e);
    if (!e) return NULL;
    memset(e, 0, sizeof *e);
    e->op = op;
    e->field_id = -1;
    return e;
}

floe_ice_expr *floe_ice_expr_true(void) { return floe_ice__expr_node_new(FLOE_ICE_EXPR_TRUE); }
floe_ice_expr *floe_ice_expr_false(void) { return floe_ice__expr_node_new(FLOE_ICE_EXPR_FALSE); }

floe_ice_expr *floe_ice_expr_and(floe_ice_expr *a, floe_ice_expr *b) {
    if (!a || !b) goto oom;
    if (a->op == FLOE_ICE_EXPR_FALSE || b->op == FLOE_ICE_EXPR_TRUE) {
        floe_ice_expr_free(b);
        return a;
    }
    if (b->op == FLOE_ICE_EXPR_FALSE || a->op == FLOE_ICE_EXPR_TRUE) {
        floe_ice_expr_free(a);
        return b;
    }
    floe_ice_expr *e = floe_ice__expr_node_new(FLOE_ICE_EXPR_AND);
    if (!e) goto oom;
    e->left = a;
    e->right = b;
    return e;
oom:
    floe_ice_expr_free(a);
    floe_ice_expr_free(b);
    return NULL;
}

floe_ice_expr *floe_ice_expr_or(floe_ice_expr *a, floe_ice_expr *b) {
    if (!a || !b) goto oom;
    if (a->op == FLOE_ICE_EXPR_TRUE || b->op == FLOE_ICE_EXPR_FALSE) {
        floe_ice_expr_free(b);
        return a;
    }
    if (b->op == FLOE_ICE_EXPR_TRUE || a->op == FLOE_ICE_EXPR_FALSE) {
        floe_ice_expr_free(a);
        return b;
    }
    floe_ice_expr *e = floe_ice__expr_node_new(FLOE_ICE_EXPR_OR);
    if (!e) goto oom;
    e->left = a;
    e->right = b;
    return e;
oom:
    floe_ice_expr_free(a);
    floe_ice_expr_free(b);
    return NULL;
}

floe_ice_expr *floe_ice_expr_not(floe_ice_expr *a) {
    if (!a) return NULL;
    if (a->op == FLOE_ICE_EXPR_TRUE || a->op == FLOE_ICE_EXPR_FALSE) {
        a->op = a->op == FLOE_ICE_EXPR_TRUE ? FLOE_ICE_EXPR_FALSE : FLOE_ICE_EXPR_TRUE;
        return a;
    }
    if (a->op == FLOE_ICE_EXPR_NOT) {
        floe_ice_expr *c = a->left;
        a->left = NULL;
        floe_ice_expr_free(a);
        return c;
    }
    floe_ice_expr *e = floe_ice__expr_node_new(FLOE_ICE_EXPR_NOT);
    if (!e) {
        floe_ice_expr_free(a);
        return NULL;
    }
    e->left = a;
    return e;
}

static bool op_is_unary(floe_ice_expr_op op) { return op >= FLOE_ICE_EXPR_IS_NULL && op <= FLOE_ICE_EXPR_NOT_NAN; }
static bool op_is_literal(floe_ice_expr_op op) {
    return op >= FLOE_ICE_EXPR_LT && op <= FLOE_ICE_EXPR_NOT_STARTS_WITH;
}
static bool op_is_set(floe_ice_expr_op op) { return op == FLOE_ICE_EXPR_IN || op == FLOE_ICE_EXPR_NOT_IN; }

bool floe_ice_expr_op_is_predicate(floe_ice_expr_op op) { return op >= FLOE_ICE_EXPR_IS_NULL && op <= FLOE_ICE_EXPR_NOT_IN; }

floe_ice_expr *floe_ice__expr_pred_new(floe_ice_expr_op op, const char *column, const floe_ice_value *values,
                                       int32_t n) {
    floe_ice_expr *e = floe_ice__expr_node_new(op);
    if (!e) return NULL;
    e->name = floe_str_dup(floe_str_c(column));
    if (!e->name) goto oom;
    if (n > 0) {
        e->values = floe_malloc((size_t)n * sizeof *e->values);
        if (!e->values) goto oom;
        for (int32_t i = 0; i < n; i++) {
            floe_status st = floe_ice_value_copy(&values[i], &e->values[i]);
            if (st) {
                floe_status_free(st);
                e->n_values = i;
                goto oom;
            }
        }
        e->n_values = n;
    }
    return e;
oom:
    floe_ice_expr_free(e);
    return NULL;
}

floe_ice_expr *floe_ice_expr_unary(floe_ice_expr_op op, const char *column) {
    if (!op_is_unary(op) || !column) return NULL;
    return floe_ice__expr_pred_new(op, column, NULL, 0);
}

floe_ice_expr *floe_ice_expr_literal(floe_ice_expr_op op, const char *column, const floe_ice_value *value) {
    if (!op_is_literal(op) || !column || !value) return NULL;
    return floe_ice__expr_pred_new(op, column, value, 1);
}

floe_ice_expr *floe_ice_expr_set(floe_ice_expr_op op, const char *column, const floe_ice_value *values, int32_t n) {
    if (!op_is_set(op) || !column || n < 0 || (n > 0 && !values)) return NULL;
    return floe_ice__expr_pred_new(op, column, values, n);
}

void floe_ice_expr_free(floe_ice_expr *e) {
    while (e) {
        floe_ice_expr_free(e->left);
        floe_ice_expr *next = e->right; /* iterate down the right spine */
        floe_free(e->name);
        floe_ice_type_free(e->field_type);
        for (int32_t i = 0; i < e->n_values; i++) floe_ice_value_free(&e->values[i]);
        floe_free(e->values);
        floe_free(e);
        e = next;
    }
}

floe_ice_expr *floe_ice_expr_copy(const floe_ice_expr *e) {
    if (!e) return NULL;
    floe_ice_expr *c;
    if (floe_ice_expr_op_is_predicate(e->op)) {
        c = floe_ice__expr_pred_new(e->op, e->name, e->values, e->n_values);
        if (!c) return NULL;
        c->bound = e->bound;
        c->field_id = e->field_id;
        c->in_collection = e->in_collection;
        if (e->field_type) {
            floe_status st = floe_ice_type_copy(e->field_type, &c->field_type);
            if (st) {
                floe_status_free(st);
                floe_ice_expr_free(c);
                return NULL;
            }
        }
        return c;
    }
    c = floe_ice__expr_node_new(e->op);
    if (!c) return NULL;
    if (e->left && !(c->left = floe_ice_expr_copy(e->left))) goto oom;
    if (e->right && !(c->right = floe_ice_expr_copy(e->right))) goto oom;
    return c;
oom:
    floe_ice_expr_free(c);
    return NULL;
}

static const char *const op_names[] = {
    "true", "false", "and", "or", "not", "is_null", "not_null", "is_nan", "not_nan", "lt", "lt_eq",
    "gt", "gt_eq", "eq", "not_eq", "starts_with", "not_starts_with", "in", "not_in",
};

const char *floe_ice_expr_op_name(floe_ice_expr_op op) {
    if ((unsigned)op >= sizeof op_names / sizeof op_names[0]) return "?";
    return op_names[op];
}

floe_ice_expr_op floe_ice_expr_op_negate(floe_ice_expr_op op) {
    switch (op) {
    case FLOE_ICE_EXPR_TRUE: return FLOE_ICE_EXPR_FALSE;
    case FLOE_ICE_EXPR_FALSE: return FLOE_ICE_EXPR_TRUE;
    case FLOE_ICE_EXPR_AND: return FLOE_ICE_EXPR_OR;
    case FLOE_ICE_EXPR_OR: return FLOE_ICE_EXPR_AND;
    case FLOE_ICE_EXPR_NOT: return FLOE_ICE_EXPR_NOT;
    case FLOE_ICE_EXPR_IS_NULL: return FLOE_ICE_EXPR_NOT_NULL;
    case FLOE_ICE_EXPR_NOT_NULL: return FLOE_ICE_EXPR_IS_NULL;
    case FLOE_ICE_EXPR_IS_NAN: return FLOE_ICE_EXPR_NOT_NAN;
    case FLOE_ICE_EXPR_NOT_NAN: return FLOE_ICE_EXPR_IS_NAN;
    case FLOE_ICE_EXPR_LT: return FLOE_ICE_EXPR_GT_EQ;
    case FLOE_ICE_EXPR_LT_EQ: return FLOE_ICE_EXPR_GT;
    case FLOE_ICE_EXPR_GT: return FLOE_ICE_EXPR_LT_EQ;
    case FLOE_ICE_EXPR_GT_EQ: return FLOE_ICE_EXPR_LT;
    case FLOE_ICE_EXPR_EQ: return FLOE_ICE_EXPR_NOT_EQ;
    case FLOE_ICE_EXPR_NOT_EQ: return FLOE_ICE_EXPR_EQ;
    case FLOE_ICE_EXPR_STARTS_WITH: return FLOE_ICE_EXPR_NOT_STARTS_WITH;
    case FLOE_ICE_EXPR_NOT_STARTS_WITH: return FLOE_ICE_EXPR_STARTS_WITH;
    case FLOE_ICE_EXPR_IN: return FLOE_ICE_EXPR_NOT_IN;
    case FLOE_ICE_EXPR_NOT_IN: return FLOE_ICE_EXPR_IN;
    }
    return op;
}

bool floe_ice_expr_equals(const floe_ice_expr *a, const floe_ice_expr *b) {
    if (!a || !b) return a == b;
    if (a->op != b->op) return false;
    if (floe_ice_expr_op_is_predicate(a->op)) {
        if (strcmp(a->name, b->name) != 0 || a->bound != b->bound || a->field_id != b->field_id ||
            a->in_collection != b->in_collection || a->n_values != b->n_values)
            return false;
        if ((a->field_type == NULL) != (b->field_type == NULL)) return false;
        if (a->field_type && !floe_ice_type_equals(a->field_type, b->field_type)) return false;
        for (int32_t i = 0; i < a->n_values; i++) {
            if (a->values[i].type != b->values[i].type) return false;
            if (a->values[i].type == FLOE_ICE_DECIMAL && a->values[i].scale != b->values[i].scale) return false;
            if (!floe_ice_value_equals(&a->values[i], &b->values[i])) return false;
        }
        return true;
    }
    return floe_ice_expr_equals(a->left, b->left) && floe_ice_expr_equals(a->right, b->right);
}

bool floe_ice_expr_is_bound(const floe_ice_expr *e) {
    if (!e) return true;
    if (floe_ice_expr_op_is_predicate(e->op)) return e->bound;
    return floe_ice_expr_is_bound(e->left) && floe_ice_expr_is_bound(e->right);
}

static int32_t count_preds(const floe_ice_expr *e) {
    if (!e) return 0;
    if (floe_ice_expr_op_is_predicate(e->op)) return 1;
    return count_preds(e->left) + count_preds(e->right);
}

static void gather_ids(const floe_ice_expr *e, int32_t *ids, int32_t *n) {
    if (!e) return;
    if (floe_ice_expr_op_is_predicate(e->op)) {
        ids[(*n)++] = e->field_id;
        return;
    }
    gather_ids(e->left, ids, n);
    gather_ids(e->right, ids, n);
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

floe_status floe_ice_expr_field_ids(const floe_ice_expr *bound, int32_t **ids, int32_t *n) {
    *ids = NULL;
    *n = 0;
    if (!bound) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "no expression");
    if (!floe_ice_expr_is_bound(bound)) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "expression is not bound");
    int32_t total = count_preds(bound);
    if (total == 0) return NULL;
    int32_t *v = floe_malloc((size_t)total * sizeof *v);
    if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory listing expression fields");
    int32_t k = 0;
    gather_ids(bound, v, &k);
    qsort(v, (size_t)k, sizeof *v, cmp_i32);
    int32_t m = 0;
    for (int32_t i = 0; i < k; i++)
        if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
    *ids = v;
    *n = m;
    return NULL;
}

/* ---- NOT push-down ------------------------------------------------------- */

static floe_ice_expr *rewrite(const floe_ice_expr *e, bool negate) {
    switch (e->op) {
    case FLOE_ICE_EXPR_TRUE:
    case FLOE_ICE_EXPR_FALSE:
        return (e->op == FLOE_ICE_EXPR_TRUE) != negate ? floe_ice_expr_true() : floe_ice_expr_false();
    case FLOE_ICE_EXPR_NOT:
        return rewrite(e->left, !negate);
    case FLOE_ICE_EXPR_AND:
    case FLOE_ICE_EXPR_OR: {
        floe_ice_expr *l = rewrite(e->left, negate);
        floe_ice_expr *r = l ? rewrite(e->right, negate) : NULL;
        bool is_and = (e->op == FLOE_ICE_EXPR_AND) != negate;
        if (!l || !r) {
            floe_ice_expr_free(l);
            return NULL;
        }
        return is_and ? floe_ice_expr_and(l, r) : floe_ice_expr_or(l, r);
    }
    default: {
        floe_ice_expr *c = floe_ice_expr_copy(e);
        if (c && negate) c->op = floe_ice_expr_op_negate(c->op);
        return c;
    }
    }
}

floe_status floe_ice_expr_rewrite_not(const floe_ice_expr *e, floe_ice_expr **out) {
    *out = NULL;
    if (!e) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "no expression to rewrite");
    *out = rewrite(e, false);
    return *out ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory rewriting an expression");
}

/* ---- text ---------------------------------------------------------------- */

static floe_status append_literal(floe_buf *b, const floe_ice_value *v) {
    bool quote = v->type == FLOE_ICE_STRING || v->type == FLOE_ICE_DATE || v->type == FLOE_ICE_TIME ||
                 v->type == FLOE_ICE_TIMESTAMP || v->type == FLOE_ICE_TIMESTAMPTZ ||
                 v->type == FLOE_ICE_TIMESTAMP_NS || v->type == FLOE_ICE_TIMESTAMPTZ_NS || v->type == FLOE_ICE_UUID;
    char *s = NULL;
    FLOE_TRY(floe_ice_value_to_string(v, &s));
    floe_status st = floe_buf_printf(b, quote ? "\"%s\"" : "%s", s);
    floe_free(s);
    return st;
}

static const char *op_symbol(floe_ice_expr_op op) {
    switch (op) {
    case FLOE_ICE_EXPR_LT: return "<";
    case FLOE_ICE_EXPR_LT_EQ: return "<=";
    case FLOE_ICE_EXPR_GT: return ">";
    case FLOE_ICE_EXPR_GT_EQ: return ">=";
    case FLOE_ICE_EXPR_EQ: return "==";
    case FLOE_ICE_EXPR_NOT_EQ: return "!=";
    default: return floe_ice_expr_op_name(op);
    }
}

static floe_status append_expr(floe_buf *b, const floe_ice_expr *e) {
    switch (e->op) {
    case FLOE_ICE_EXPR_TRUE:
    case FLOE_ICE_EXPR_FALSE:
        return floe_buf_append_str(b, floe_ice_expr_op_name(e->op));
    case FLOE_ICE_EXPR_AND:
    case FLOE_ICE_EXPR_OR:
        FLOE_TRY(floe_buf_append_str(b, "("));
        FLOE_TRY(append_expr(b, e->left));
        FLOE_TRY(floe_buf_append_str(b, e->op == FLOE_ICE_EXPR_AND ? " and " : " or "));
        FLOE_TRY(append_expr(b, e->right));
        return floe_buf_append_str(b, ")");
    case FLOE_ICE_EXPR_NOT:
        FLOE_TRY(floe_buf_append_str(b, "not("));
        FLOE_TRY(append_expr(b, e->left));
        return floe_buf_append_str(b, ")");
    default:
        break;
    }
    FLOE_TRY(floe_buf_append_str(b, e->name));
    FLOE_TRY(floe_buf_printf(b, " %s", op_symbol(e->op)));
    if (op_is_unary(e->op)) return NULL;
    FLOE_TRY(floe_buf_append_str(b, op_is_set(e->op) ? " (" : " "));
    for (int32_t i = 0; i < e->n_values; i++) {
        if (i) FLOE_TRY(floe_buf_append_str(b, ", "));
        FLOE_TRY(append_literal(b, &e->values[i]));
    }
    return op_is_set(e->op) ? floe_buf_append_str(b, ")") : NULL;
}

floe_status floe_ice_expr_to_string(const floe_ice_expr *e, char **out) {
    *out = NULL;
    if (!e) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "no expression to print");
    floe_buf b;
    floe_buf_init(&b);
    floe_status st = append_expr(&b, e);
    if (!st) st = floe_buf_append_byte(&b, 0);
    if (st) {
        floe_buf_free(&b);
        return st;
    }
    *out = (char *)floe_buf_detach(&b, NULL);
    return NULL;
}

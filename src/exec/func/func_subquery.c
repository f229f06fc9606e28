/*
 * func_subquery.c — __subquery_too_many_rows(NULL::T): the check behind a
 * scalar subquery that is not an aggregate.  The binder (bind_subquery.c,
 * bind_decorrelate.c) counts the subquery's rows and binds the value as
 * CASE WHEN n > 1 THEN __subquery_too_many_rows(NULL::T) ELSE v END; CASE
 * evaluates a branch only over the rows that take it, so the call sees a
 * row only where a subquery returned more than one, and fails with
 * PostgreSQL's message.  Its type is its argument's (so the CASE types
 * as T).
 */
#include "exec/func/functions.h"

static floe_status too_many_rows_type(const floe_func_def *def, const floe_expr *const *args,
                                      floe_type *const *types, int32_t n, floe_type **out) {
    (void)def;
    (void)args;
    (void)n;
    *out = floe_type_retain(types[0]);
    return NULL;
}

static floe_status too_many_rows_eval(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows,
                                      floe_type *rtype, floe_array **out) {
    (void)def;
    (void)args;
    (void)n;
    if (rows > 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "more than one row returned by a subquery used as an expression");
    return floe_array_new_nulls(rtype, 0, out);
}

const floe_func_def floe_subquery_funcs[] = {
    {"__subquery_too_many_rows", 1, 1, "__subquery_too_many_rows(any)", too_many_rows_type, too_many_rows_eval, 0,
     NULL, FLOE_TYPE_NULL},
    {0},
};

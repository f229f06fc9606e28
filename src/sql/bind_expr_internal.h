/*
 * bind_expr_internal.h — what the files that bind expressions share
 * (bind.h is the binder's interface; this is only for its expression
 * pieces):
 *
 *   bind_expr.c      bind_expr: the dispatch by node kind; column
 *                    references, constants, AND/OR/NOT, IS tests,
 *                    COALESCE, GREATEST/LEAST; output names
 *   bind_common.c    scopes, positioned errors, helpers over bound
 *                    expressions, expression contexts
 *   bind_literal.c   literals typed like PostgreSQL's and the implicit
 *                    conversions of operands
 *   bind_operator.c  operators (comparison, arithmetic with dates and
 *                    intervals, LIKE, IN lists, IS DISTINCT, NULLIF,
 *                    BETWEEN), CASE, CAST
 *   bind_func.c      function calls and aggregate calls
 *   bind_grouping.c  GROUPING(...) (and the GROUP BY grouping sets)
 */
#ifndef FLOE_SQL_BIND_EXPR_INTERNAL_H
#define FLOE_SQL_BIND_EXPR_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/interval.h"
#include "base/buffer.h"
#include "sql/bind.h"

/* ---- literals and conversions (bind_literal.c) ------------------------------ */

/* Numeric text of the scanner (fval): "3000000000", "1.50", "1e3". */
floe_status bind_lit_numeric_text(const char *text, floe_expr **out) FLOE_WARN_UNUSED;
/* A literal of a temporal type from its int value. */
floe_status bind_lit_typed_int(floe_type_id id, int64_t v, floe_expr **out) FLOE_WARN_UNUSED;
/* Is `e` a string literal written as a quoted constant? (Those take the
 * type of what they are compared with, as PostgreSQL's unknown literals.) */
bool bind_is_string_literal(const floe_expr *e);
/* A literal of `type` from SQL text (typed string constants, string
 * literals compared with typed columns). */
floe_status bind_literal_from_text(const char *text, const floe_type *type, floe_expr **out) FLOE_WARN_UNUSED;
/* A one-slot interval literal. */
floe_status bind_interval_literal(floe_interval v, floe_expr **out) FLOE_WARN_UNUSED;
/* The text of a string literal expression (copied into buf). */
floe_status bind_literal_text(const floe_expr *e, floe_buf *buf) FLOE_WARN_UNUSED;
/* Integer, float or decimal. */
bool bind_is_num(floe_type_id id);
/* Make the two operands of a comparison or arithmetic agree where
 * PostgreSQL would convert implicitly. */
floe_status bind_unify_pair(bind_ectx *c, floe_expr **l, floe_expr **r, int32_t location) FLOE_WARN_UNUSED;
/* Type-check a freshly built node, positioning any error. */
floe_status bind_check(bind_ectx *c, floe_expr *e, int32_t location) FLOE_WARN_UNUSED;

/* ---- operators, CASE, CAST (bind_operator.c) ---------------------------------- */

/* Bind two nodes (both, or neither on failure). */
floe_status bind_two(bind_ectx *c, const json_t *a, const json_t *b, floe_expr **ea, floe_expr **eb) FLOE_WARN_UNUSED;
/* l op r with implicit conversions, type-checked. */
floe_status bind_make_cmp(bind_ectx *c, floe_cmp_op op, floe_expr *l, floe_expr *r, int32_t loc,
                          floe_expr **out) FLOE_WARN_UNUSED;
/* A call of a registered scalar function, type-checked. */
floe_status bind_make_call(bind_ectx *c, const char *name, floe_expr *const *args, int32_t n, int32_t loc,
                           floe_expr **out) FLOE_WARN_UNUSED;
/* An A_Expr node: operators, LIKE, IN, IS DISTINCT, NULLIF, BETWEEN. */
floe_status bind_a_expr(bind_ectx *c, const json_t *body, floe_expr **out) FLOE_WARN_UNUSED;
/* Convert a list of branch values to one type (string literals and NULLs
 * take the others' type, mixed numbers widen). */
floe_status bind_unify_list(bind_ectx *c, floe_expr **v, int32_t n, int32_t loc) FLOE_WARN_UNUSED;
floe_status bind_case(bind_ectx *c, const json_t *body, floe_expr **out) FLOE_WARN_UNUSED;
floe_status bind_type_cast(bind_ectx *c, const json_t *body, floe_expr **out) FLOE_WARN_UNUSED;

/* ---- functions and aggregates (bind_func.c) ------------------------------------ */

/* The function's name without a pg_catalog qualifier. */
const char *bind_func_name(const json_t *fc);
/* now(), current_date ...: fixed per statement. */
floe_status bind_statement_time(bind_ectx *c, bool date, floe_expr **out) FLOE_WARN_UNUSED;
/* bind_session_info.c: current_user & co. (a SQLValueFunction's op), and
 * version(), current_database(), current_schema(), current_setting() (*done
 * false: not one of them). */
floe_status bind_session_value(bind_ectx *c, const char *op, int32_t loc, floe_expr **out) FLOE_WARN_UNUSED;
floe_status bind_session_func(bind_ectx *c, const char *name, const json_t *args, int32_t loc, bool *done,
                              floe_expr **out) FLOE_WARN_UNUSED;
/* ARRAY(SELECT x ...) as (SELECT array_agg(x ...) ...). */
floe_status bind_array_sublink(bind_ectx *c, const json_t *sublink, floe_expr **out) FLOE_WARN_UNUSED;
/* PostgreSQL's version() text. */
extern const char floe_pg_version_text[];
/* A FuncCall node: an aggregate call (collected as an extra) or a scalar
 * function. */
floe_status bind_func(bind_ectx *c, const json_t *fc, floe_expr **out) FLOE_WARN_UNUSED;

/* ---- GROUPING(...) (bind_grouping.c) -------------------------------------------- */

/* A GroupingFunc node: the bitmask of its arguments not grouped in the
 * row's grouping set, from c->gsets. */
floe_status bind_grouping_func(bind_ectx *c, const json_t *body, floe_expr **out) FLOE_WARN_UNUSED;

/* bind_nested.c: ARRAY[...], ROW(...), struct_pack(x := v, ...) and the
 * subscript of a bound list or map value (consumes nothing; `indices` is
 * an A_Indices body). */
floe_status bind_array_expr(bind_ectx *c, const json_t *body, int32_t loc, floe_expr **out) FLOE_WARN_UNUSED;
floe_status bind_row_expr(bind_ectx *c, const json_t *body, int32_t loc, floe_expr **out) FLOE_WARN_UNUSED;
floe_status bind_struct_pack(bind_ectx *c, const json_t *args, int32_t loc, floe_expr **out) FLOE_WARN_UNUSED;
/* bind_nested.c: a relation's name used as a value (row_to_json(t)): the
 * struct of the columns t.* gives; *out NULL when no relation has the name. */
floe_status bind_whole_row(bind_ectx *c, const char *qual, int32_t loc, floe_expr **out) FLOE_WARN_UNUSED;
floe_status bind_subscript(bind_ectx *c, floe_expr *base, const json_t *indices, int32_t loc,
                           floe_expr **out) FLOE_WARN_UNUSED;
/* array_append / array_prepend / array_cat / array_position / array_remove
 * over bound args[0..n) (replaced by their coerced forms), and x op ANY /
 * ALL (list): element and value brought to one type as PostgreSQL's
 * anyarray / anyelement are. */
floe_status bind_array_call(bind_ectx *c, const char *name, floe_expr **args, int32_t n, int32_t loc,
                            floe_expr **out) FLOE_WARN_UNUSED;
floe_status bind_array_compare(bind_ectx *c, floe_cmp_op op, bool all, floe_expr *x, floe_expr *list, int32_t loc,
                               floe_expr **out) FLOE_WARN_UNUSED;

#endif

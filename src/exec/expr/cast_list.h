/*
 * cast_list.h — text ↔ list casts in PostgreSQL's array text form
 * (cast_list.c), used by expr.c's CAST.
 */
#ifndef FLOE_EXEC_EXPR_CAST_LIST_H
#define FLOE_EXEC_EXPR_CAST_LIST_H

#include "floe/columnar.h"
#include "floe/exec.h"

/* Text slots of `a` ('{1,2}') parsed into a list of text of the shape of
 * list type `to` (list<string>, list<list<string>> ...), for the nested
 * cast to convert element-wise; FLOE_ERR_UNSUPPORTED when `to` has a
 * struct or map inside. */
floe_status floe_cast_text_to_list_shape(const floe_array *a, const floe_type *to, int64_t n,
                                         floe_array **out) FLOE_WARN_UNUSED;
/* List slots of `a` as PostgreSQL prints arrays: {1,2,"a b",NULL}. */
floe_status floe_cast_list_to_text(const floe_array *a, int64_t n, floe_array **out) FLOE_WARN_UNUSED;

/* The scalar column `el` cast to text by the expression evaluator, once
 * for the whole column (so element text equals `::text`; booleans print
 * true / false there, callers wanting t / f handle them). */
floe_status floe_cast_column_to_text(const floe_array *el, floe_array **out) FLOE_WARN_UNUSED;

#endif

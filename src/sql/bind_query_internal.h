/*
 * bind_query_internal.h — what the files that bind queries share (bind.h
 * is the binder's interface; this is only for its query pieces):
 *
 *   bind_query.c     SELECT: FROM, WHERE, GROUP BY / aggregates / HAVING,
 *                    the select list, DISTINCT; bind_select and WITH
 *   bind_order.c     ORDER BY, LIMIT / OFFSET, select-list references
 *   bind_subquery.c  scalar subqueries, [NOT] IN / EXISTS as semi and anti
 *                    joins
 *   bind_setop.c     VALUES and set operations
 *   bind_grouping.c  GROUPING SETS / ROLLUP / CUBE and GROUPING(...)
 *   bind_distinct_on.c  SELECT DISTINCT ON
 */
#ifndef FLOE_SQL_BIND_QUERY_INTERNAL_H
#define FLOE_SQL_BIND_QUERY_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "sql/bind.h"

/* ---- SELECT (bind_query.c) ------------------------------------------------------ */

/* One select-list item (a star expands to one item per column). */
typedef struct sel_item {
    const json_t *node;  /* expression node, or NULL for a star column   */
    int32_t column;      /* star expansion: the FROM column              */
    char *name;
    int32_t location;
} sel_item;

void bind_items_free(sel_item *items, int32_t n);
/* Free a bind_result's plan and scope. */
void bind_result_free(bind_result *r);
/* The SelectStmt body of a query node (or a set operation's arm), or NULL. */
const json_t *bind_select_body(const json_t *node);
/* A FILTER of `input` by `pred` (pred retained; input consumed). */
floe_status bind_filter_node(floe_lplan *input, floe_expr *pred, floe_lplan **out) FLOE_WARN_UNUSED;
/* Rewrite an expression bound over FROM ++ extras into one over the
 * aggregate's output: group keys → their column, aggregate extras →
 * theirs, subquery extras → theirs (after the aggregates). */
floe_status bind_rewrite_over_agg(bind_ectx *c, const floe_expr *e, floe_expr *const *groups, int32_t ng,
                                  const int32_t *extra_col, const sel_item *item, floe_expr **out) FLOE_WARN_UNUSED;

/* Bind one GROUP BY expression (an output ordinal or alias, or an
 * expression over FROM) and add it to groups[] unless an equal key is
 * there; *index is its key index.  groups[] has room for one more. */
floe_status bind_group_key(bind_ectx *c, const json_t *g, const sel_item *items, int32_t n_items, floe_expr **groups,
                           int32_t *n_groups, int32_t *index) FLOE_WARN_UNUSED;

/* A SELECT body (no set operation, VALUES or WITH): over its FROM, or
 * over `pre` (taken) when given. */
floe_status bind_simple_select(floe_session *s, const json_t *body, bind_result *out) FLOE_WARN_UNUSED;
floe_status bind_simple_select_over(floe_session *s, const json_t *body, bind_result *pre,
                                    bind_result *out) FLOE_WARN_UNUSED;

/* ---- an aggregate with subqueries above it (bind_split_agg.c) ------------------- */

/* Does the parse tree hold a SubLink? */
bool bind_has_sublink(const json_t *j);
/* Is `body` an aggregating level (no GROUPING SETS) with subqueries in its
 * select list, HAVING or ORDER BY? */
bool bind_agg_needs_split(const json_t *body);
/* Bind it as SELECT ... FROM (the grouping) WHERE <HAVING> ... */
floe_status bind_split_aggregate(floe_session *s, const json_t *body, bind_result *out) FLOE_WARN_UNUSED;

/* ---- subqueries inside an aggregate's argument (bind_agg_sublink.c) ------------- */

/* Does an aggregate call of the level hold a SubLink in its argument,
 * FILTER or ORDER BY? */
bool bind_agg_has_arg_sublink(const json_t *body);
/* Bind it with those subqueries computed per row below the aggregate. */
floe_status bind_agg_arg_sublinks(floe_session *s, const json_t *body, bind_result *out) FLOE_WARN_UNUSED;

/* An outer join's ON with subqueries (join expression je, its sides
 * bound in *l and *r): each subquery reading one side's columns computed
 * on that side as a system column; *quals_out the ON reading those
 * (bind_join_sublink.c). */
floe_status bind_outer_join_on_sublinks(floe_session *s, const json_t *je, bind_result *l, bind_result *r,
                                        json_t **quals_out) FLOE_WARN_UNUSED;

/* ---- GROUPING SETS, ROLLUP, CUBE (bind_grouping.c) ------------------------------- */

/* The grouping sets of a query level.  Set k groups by the keys whose bit
 * is clear in masks[k] (bit i: key i rolled up, NULL); ids[k] is its
 * grouping id: (ordinal among equal sets) << n_keys | masks[k], so
 * GROUPING() reads its low bits and duplicate sets stay apart. */
typedef struct bind_grouping {
    bind_gsets g;         /* what GROUPING(...) reads                      */
    int32_t n_sets;       /* 0: plain GROUP BY (no Expand)                 */
    uint64_t *masks;
    int64_t *ids;
    bool has_empty;       /* a set without keys (one row even over no rows) */
} bind_grouping;

/* Does the GROUP BY of SelectStmt `body` use GROUPING SETS / ROLLUP /
 * CUBE / () (or GROUP BY DISTINCT)? */
bool bind_group_has_sets(const json_t *body);
/* Bind such a GROUP BY: the distinct keys into *groups (allocated) and the
 * sets into *out (a single set of every key becomes plain: n_sets 0). */
floe_status bind_grouping_sets(bind_ectx *c, const json_t *body, const sel_item *items, int32_t n_items,
                               floe_expr ***groups, int32_t *n_groups, bind_grouping *out) FLOE_WARN_UNUSED;
/* Build Expand → Aggregate over *plan for the aggregates collected in c:
 * output = the keys, the grouping id, the aggregates; *extra_col maps
 * each extra to its output column (subquery extras after the aggregates). */
floe_status bind_grouping_aggregate(bind_ectx *c, floe_lplan **plan, floe_expr *const *groups, int32_t n_groups,
                                    const bind_grouping *gr, int32_t **extra_col) FLOE_WARN_UNUSED;
void bind_grouping_clear(bind_grouping *gr);
/* ---- subqueries as values (bind_decorrelate.c) ---------------------------------- */

typedef enum bind_sublink_kind { BIND_SUBLINK_SCALAR = 0, BIND_SUBLINK_EXISTS, BIND_SUBLINK_IN } bind_sublink_kind;
/* A UNION without its own ORDER BY / LIMIT / WITH (SelectStmt body)? */
bool bind_is_plain_union(const json_t *sub);
/* EXISTS / x cmp ANY over it as an OR over its branches (bind_union_sublink.c). */
floe_status bind_union_sublink(bind_ectx *c, const json_t *sub, bool exists, const json_t *testexpr, floe_cmp_op cmp,
                               int32_t loc, floe_expr **out) FLOE_WARN_UNUSED;
/* A correlated subquery (body `sub`; testexpr: IN's tested value) joined
 * onto *c->plan, unnested over the distinct outer values it reads; *out
 * is its value over the grown plan. */
floe_status bind_decorrelated(bind_ectx *c, const json_t *sub, bind_sublink_kind kind, const json_t *testexpr,
                              int32_t loc, floe_expr **out) FLOE_WARN_UNUSED;
/* `plan` (a one-column subquery bound from `subselect`) made one row: its
 * value, NULL when empty, an error past one row (consumes plan). */
floe_status bind_single_row_plan(floe_session *s, const json_t *subselect, floe_lplan *plan,
                                 floe_lplan **out) FLOE_WARN_UNUSED;
/* Make two join keys comparable (bind_subquery.c). */
floe_status bind_align_keys(floe_expr **l, const floe_schema *ls, floe_expr **r, const floe_schema *rs) FLOE_WARN_UNUSED;

/* ---- ORDER BY, LIMIT (bind_order.c) ---------------------------------------------- */

/* Resolve an ORDER BY / GROUP BY item to a select-list index: an ordinal
 * or (by_name) a bare name equal to one output name.  -1: neither. */
floe_status bind_output_ref(floe_session *s, const json_t *node, const sel_item *items, int32_t n, bool by_name,
                            int32_t *idx) FLOE_WARN_UNUSED;
/* A bare name that is not a FROM column but is an output alias (-1: not). */
int32_t bind_alias_ref(const json_t *node, const bind_scope *sc, const sel_item *items, int32_t n);
/* The sort key of a SortBy node over expression `e` (direction, NULLs). */
floe_status bind_sort_key_of(const json_t *sortby, floe_expr *e, floe_sort_key *k) FLOE_WARN_UNUSED;
/* A LIMIT / OFFSET value: a non-negative integer constant; -1 when absent
 * or ALL. */
floe_status bind_limit_value(floe_session *s, const json_t *node, const char *what, int64_t *v) FLOE_WARN_UNUSED;
/* ORDER BY, LIMIT and OFFSET over a plan whose output is `n_out` visible
 * columns followed by hidden sort columns; drops the hidden columns. */
floe_status bind_finish_query(floe_session *s, const json_t *body, floe_lplan **plan, const floe_sort_key *keys,
                              int32_t n_keys, int32_t n_out, const bind_scope *outsc) FLOE_WARN_UNUSED;
/* ORDER BY / LIMIT of a set operation or VALUES: over the output columns. */
floe_status bind_order_over_output(floe_session *s, const json_t *body, bind_result *r) FLOE_WARN_UNUSED;

/* ---- VALUES and set operations (bind_setop.c) ------------------------------------ */

floe_status bind_values(floe_session *s, const json_t *body, bind_result *out) FLOE_WARN_UNUSED;
/* UNION [ALL], INTERSECT, EXCEPT of the body's two arms. */
floe_status bind_set_op(floe_session *s, const json_t *body, bind_result *out) FLOE_WARN_UNUSED;
/* The common type of two set-operation columns (one reference), or NULL. */
floe_type *bind_set_common_type(floe_type *a, floe_type *b);

/* ---- WITH (bind_cte.c) ---------------------------------------------------------- */

struct bind_cte;
/* Number the statement's held-rows keys from 1 again (floe_sql_bind_query). */
void bind_cte_keys_reset(void);
/* Declare the WITH list `with` of query `body` (pushed onto s->ctes; the
 * caller restores s->ctes).  *frames is set even on error. */
floe_status bind_with_begin(floe_session *s, const json_t *with, const json_t *body,
                            struct bind_cte **frames) FLOE_WARN_UNUSED;
/* After the body (its status st): wrap *plan in the materialized WITH
 * queries it read and free the frames; returns st or the wrap's error. */
floe_status bind_with_end(floe_session *s, struct bind_cte *frames, const json_t *with, floe_status st,
                          floe_lplan **plan) FLOE_WARN_UNUSED;

/* ---- DISTINCT ON (bind_distinct_on.c) -------------------------------------------- */

/* The DISTINCT ON list `dc` as columns of the select list ++ hidden
 * columns (don[i]; a new hidden column where it is neither, hidden has
 * room), checked against the ORDER BY keys (columns too) as PostgreSQL
 * does: the leading ORDER BY items must be DISTINCT ON expressions until
 * every DISTINCT ON expression is among them. */
floe_status bind_distinct_on_exprs(bind_ectx *c, const json_t *dc, const sel_item *items, int32_t n_items,
                                   floe_expr *const *sel, floe_expr **hidden, int32_t *n_hidden,
                                   const floe_sort_key *keys, int32_t n_keys, int32_t *don) FLOE_WARN_UNUSED;
/* SORT by keys (then the DISTINCT ON columns they lack) and DISTINCT_ON
 * over *plan. */
floe_status bind_distinct_on_plan(floe_lplan **plan, const floe_sort_key *keys, int32_t n_keys, const int32_t *don,
                                  int32_t n_don) FLOE_WARN_UNUSED;

/* ---- WITH RECURSIVE's SEARCH / CYCLE (bind_cte_search.c) --------------------------- */

/* Has CommonTableExpr body cte a SEARCH or CYCLE clause? */
bool bind_sc_present(const json_t *cte);
/* Both sides of the UNION `body` must be plain SELECTs. */
floe_status bind_sc_check_form(floe_session *s, const json_t *cte, const json_t *body, int32_t loc) FLOE_WARN_UNUSED;
/* Check the clauses against the non-recursive term's columns (a's scope,
 * already named) and add the sequence / mark / path columns to a. */
floe_status bind_sc_anchor(floe_session *s, const json_t *cte, bind_result *a, int32_t loc) FLOE_WARN_UNUSED;
/* A copy of recursive term rarg selecting the working table's added
 * columns after its own (*out: a new reference). */
floe_status bind_sc_recursive_term(floe_session *s, const json_t *cte, const char *name, const json_t *rarg,
                                   int32_t loc, json_t **out) FLOE_WARN_UNUSED;
/* Over the bound recursive term (its n columns cast to the non-recursive
 * term's, named by sc, then the working table's added ones): the filter
 * of marked rows and the new added values. */
floe_status bind_sc_recursive(floe_session *s, const json_t *cte, const bind_scope *sc, int32_t n,
                              floe_lplan **rec) FLOE_WARN_UNUSED;

#endif

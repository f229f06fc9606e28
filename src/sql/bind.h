/*
 * bind.h — the binder's internal interfaces, shared by the expression
 * files (bind_expr.c and the pieces bind_expr_internal.h lists; scopes,
 * errors and contexts in bind_common.c), the query files (bind_query.c:
 * SELECT, grouping, WITH; bind_order.c, bind_subquery.c, bind_setop.c:
 * see bind_query_internal.h) and bind_from.c (tables, table functions,
 * joins).
 *
 * Names.  A scope lists the columns a query level can see, in the order of
 * the plan's output columns (a join: left then right).  Each column has its
 * relation's name (alias) and its own name; lookups fold nothing (the
 * parser already lower-cased unquoted names) but fall back to a unique
 * case-insensitive match so Iceberg tables with upper-case columns read
 * naturally.
 *
 * Expressions are bound against an expression context (bind_ectx): the
 * scope, the schema used for typing, and what the clause allows
 * (aggregates, scalar subqueries).  In an aggregating query the SELECT
 * list, HAVING and ORDER BY are bound over the FROM scope with aggregate
 * calls collected into the context ("extras": column n_from + k stands for
 * extra k) and then rewritten over the aggregate's output.
 */
#ifndef FLOE_SQL_BIND_H
#define FLOE_SQL_BIND_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/exec.h"
#include "floe/exec_ops.h"
#include "sql/logical.h"
#include "sql/session_internal.h"

typedef struct bind_col {
    char *qual;   /* relation name or alias; NULL for none */
    char *name;
    bool hidden;  /* not found unqualified, not part of `*` (USING duplicate,
                     scalar-subquery and sort helper columns) */
    bool system;  /* found by name but not part of `*`: a table's metadata
                     columns (_file, _pos, _row_id ...), like PostgreSQL's
                     system columns */
    bool using_side; /* a side's copy of a JOIN USING / NATURAL column: hidden,
                        but reached as t.k and part of `t.*` */
} bind_col;

typedef struct bind_scope {
    int32_t n, cap;
    bind_col *cols;
} bind_scope;

void bind_scope_free(bind_scope *sc);
floe_status bind_scope_add(bind_scope *sc, const char *qual, const char *name, bool hidden) FLOE_WARN_UNUSED;
floe_status bind_scope_append(bind_scope *dst, const bind_scope *src) FLOE_WARN_UNUSED;
/* Mark columns [from, n) of the scope as system columns. */
void bind_scope_mark_system(bind_scope *sc, int32_t from);
/* A scope naming every column of `schema` with relation name `qual`. */
floe_status bind_scope_from_schema(const floe_schema *schema, const char *qual, bind_scope *out) FLOE_WARN_UNUSED;

/* One extra column of an aggregating query level: an aggregate call or a
 * scalar subquery (joined after the aggregate). */
typedef struct bind_extra {
    bool is_agg;
    floe_agg_call agg;     /* is_agg: arg over the FROM columns             */
    floe_lplan *subquery;  /* !is_agg: one-column plan (owned until used)   */
    bool one_row;          /* subquery returns exactly one row              */
    floe_type *type;       /* result type                                   */
    bool is_window;        /* a window call (bind_window.c): its value comes
                              from a WINDOW node above the query's input   */
    int32_t window;        /* is_window: the call's index in c->windows     */
    bool is_grouping_id;   /* GROUPING SETS: stands for the grouping id (no
                              subquery; bind_grouping.c)                    */
    bool is_srf;           /* unnest(srf_arg) in a select list: its element
                              column of an Unnest (bind_unnest.c)          */
    floe_expr *srf_arg;    /* is_srf: the list, owned                       */
    int32_t srf_n_from;    /* is_srf: c->n_from when it was made            */
} bind_extra;

/* The GROUP BY keys GROUPING(...) may name (bind_grouping.c): the
 * distinct key expressions, and whether there are grouping sets (then
 * GROUPING reads the grouping id, an extra made on first use). */
typedef struct bind_gsets {
    floe_expr *const *keys;   /* borrowed                                   */
    int32_t n_keys;
    bool sets;                /* false: plain GROUP BY, GROUPING() is 0     */
    int32_t id_column;        /* the id's extra column, -1 until made       */
} bind_gsets;

/* FROM lists bound afresh one after the other and cross-joined: `prev`'s
 * (NULL: the context's from_clause only) then `items`. */
typedef struct bind_from_chain {
    const json_t *items;
    const struct bind_from_chain *prev;
} bind_from_chain;

typedef struct bind_ectx {
    floe_session *s;
    const char *sql;           /* the script text (locations)               */
    bind_scope *sc;            /* names of input columns [0, n_in)           */
    floe_schema *schema;       /* typing schema: input columns (++ extras)   */
    /* Correlated subquery conditions: columns of `outer` come first
     * (0 .. outer_n-1), then the scope's (shifted by outer_n). */
    const bind_scope *outer;
    floe_schema *outer_schema;
    bool outer_used;
    /* Aggregation: aggregate calls allowed and collected as extras. */
    bool agg_mode;
    int32_t n_from;            /* input columns before extras               */
    int32_t n_extras, cap_extras;
    bind_extra *extras;
    /* Scalar subqueries outside agg_mode are joined onto *plan at once. */
    floe_lplan **plan;
    const char *clause;        /* "WHERE", "SELECT", ... for messages        */
    bool in_agg_arg;           /* binding an aggregate's argument           */
    /* Window calls are allowed (SELECT list, ORDER BY) when set. */
    struct bind_windows *windows;
    bool in_window_arg;        /* binding a window call's parts             */
    bind_gsets *gsets;         /* GROUP BY keys for GROUPING(); NULL: none   */
    /* The FROM list of the query level (parse tree), bound afresh for a
     * correlated subquery's distinct outer values (bind_decorrelate.c). */
    const json_t *from_clause;
    /* More FROM lists cross-joined after from_clause, for a level made of
     * an outer level's FROM and a subquery's (bind_nested_corr.c). */
    const struct bind_from_chain *from_chain;
    /* Set-returning calls (unnest) are allowed (a select list's top level,
     * not inside CASE / COALESCE) when set; n_srf counts the extras made. */
    bool allow_srf;
    int32_t n_srf;
    const char *no_srf_in;     /* "CASE", "COALESCE": refused there too      */
} bind_ectx;

/* Set up a context over `plan`'s output (scope borrowed, schema retained). */
void bind_ectx_init(bind_ectx *c, floe_session *s, bind_scope *sc, floe_schema *schema, const char *clause);
void bind_ectx_clear(bind_ectx *c); /* releases schema and extras */

/* Add an extra column (aggregate or deferred subquery; ownership of its
 * parts passes in on success); *index is its column in the context. */
floe_status bind_add_extra(bind_ectx *c, bind_extra *x, int32_t *index) FLOE_WARN_UNUSED;

/* Bind an expression node. */
floe_status bind_expr(bind_ectx *c, const json_t *node, floe_expr **out) FLOE_WARN_UNUSED;
/* Same, requiring a BOOL (or NULL) result. */
floe_status bind_predicate(bind_ectx *c, const json_t *node, floe_expr **out) FLOE_WARN_UNUSED;
/* Type of a bound expression in the context (one reference). */
floe_status bind_type_of(bind_ectx *c, const floe_expr *e, floe_type **out) FLOE_WARN_UNUSED;

/* Output name of a select-list expression (PostgreSQL's rules: column
 * name, function name, else "?column?"). */
const char *bind_default_name(const json_t *node);

/* Does the node contain an aggregate call (not inside a subquery)? */
bool bind_has_aggregate(const json_t *node);

/* Structural equality of bound expressions. */
bool bind_expr_equal(const floe_expr *a, const floe_expr *b);
/* Rebuild `e` with arguments `args` (same kind and parts). */
floe_status bind_expr_with_args(const floe_expr *e, floe_expr *const *args, int32_t n, floe_expr **out) FLOE_WARN_UNUSED;
/* Does `e` read any column? */
bool bind_expr_has_columns(const floe_expr *e);
/* Columns read: lowest and highest index (lo > hi when none). */
void bind_expr_column_range(const floe_expr *e, int32_t *lo, int32_t *hi);
/* A copy of `e` with every column index shifted by delta. */
floe_status bind_expr_shift(const floe_expr *e, int32_t delta, floe_expr **out) FLOE_WARN_UNUSED;
/* Split AND-ed parts (each retained) into a growing array. */
floe_status bind_conjuncts(floe_expr *e, floe_expr ***parts, int32_t *n) FLOE_WARN_UNUSED;
floe_status bind_and_all(floe_expr *const *parts, int32_t n, floe_expr **out) FLOE_WARN_UNUSED;
void bind_expr_list_free(floe_expr **parts, int32_t n);

/* Convert `e` to `type` for comparisons/unions: untyped string literals
 * are parsed as a literal of the type, other values cast (or returned
 * retained when the type already matches). */
floe_status bind_coerce(bind_ectx *c, floe_expr *e, const floe_type *type, int32_t location,
                        floe_expr **out) FLOE_WARN_UNUSED;
/* Evaluate an expression without columns (one slot). */
floe_status bind_eval_const(const floe_expr *e, floe_array **out) FLOE_WARN_UNUSED;

/* ---- queries (bind_query.c; subqueries: bind_subquery.c) --------------- */

typedef struct bind_result {
    floe_lplan *plan;
    bind_scope scope;  /* output names (qual NULL) */
} bind_result;

/* Bind a query node; `outer` (may be NULL) is the enclosing scope for
 * correlated references, which bind_query reports as FLOE_ERR_NOT_FOUND
 * like any unknown column. */
floe_status bind_select(floe_session *s, const json_t *query, bind_result *out) FLOE_WARN_UNUSED;

/* A WITH query named `name` in scope, bound afresh (*found false: none). */
floe_status bind_cte_lookup(floe_session *s, const char *name, bind_result *out, bool *found) FLOE_WARN_UNUSED;

/* Joins a scalar subquery (EXPR_SUBLINK) onto the plan of `c`; *out is the
 * column reference for its value. */
floe_status bind_scalar_subquery(bind_ectx *c, const json_t *sublink, floe_expr **out) FLOE_WARN_UNUSED;
/* [NOT] EXISTS / IN (subquery) as a three-valued value joined onto *c->plan
 * (bind_decorrelate.c). */
floe_status bind_sublink_value(bind_ectx *c, const json_t *sublink, floe_expr **out) FLOE_WARN_UNUSED;
/* (a, b, ...) IN (subquery) as a three-valued value (bind_row_in.c);
 * sublink_body is the SubLink's body, row its RowExpr testexpr. */
floe_status bind_row_in_value(bind_ectx *c, const json_t *sublink_body, const json_t *row, int32_t loc,
                              floe_expr **out) FLOE_WARN_UNUSED;
/* (a, b, ...) [NOT] IN ((x, y, ...), ...), a list of rows (bind_row_in.c). */
floe_status bind_row_in_list(bind_ectx *c, const json_t *row, const json_t *items, bool negate, int32_t loc,
                             floe_expr **out) FLOE_WARN_UNUSED;
/* `left` (bound from the FROM items `left_from`, a list) joined (INNER or
 * LEFT, ON `quals` when not NULL) with the LATERAL subquery of the
 * RangeSubselect `rs`, unnested over left's distinct correlated values
 * (consumes left). */
/* A generate_series in FROM whose arguments read columns (implicitly
 * LATERAL): SeriesApply over `left` (consumed), one row per value. */
bool bind_is_lateral_series(const json_t *range_function);
/* bind_unnest.c: a FROM item of unnest() calls only (also ROWS FROM); bound
 * over `left` (consumed; NULL: over one empty row), `outer` keeping a row
 * whose lists are all empty as NULLs (LEFT JOIN LATERAL ... ON true). */
bool bind_is_unnest(const json_t *range_function);
/* The set-returning functions that are unnest() of a list function —
 * regexp_matches, regexp_split_to_table, generate_series over timestamps
 * (a cast or string third argument) —: that function's name, else NULL. */
const char *bind_srf_list_fn(const json_t *func_call);
floe_status bind_unnest_from(floe_session *s, bind_result *left, const json_t *range_function, bool outer,
                             bind_result *out) FLOE_WARN_UNUSED;
floe_status bind_lateral_series(floe_session *s, bind_result *left, const json_t *range_function,
                                bind_result *out) FLOE_WARN_UNUSED;
floe_status bind_lateral(floe_session *s, bind_result *left, const json_t *left_from, const json_t *rs,
                         floe_join_type type, const json_t *quals, bind_result *out) FLOE_WARN_UNUSED;

/* A WHERE conjunct that is [NOT] EXISTS / [NOT] IN (subquery) becomes a
 * semi or anti join of *plan; *done false when the node is not one. */
floe_status bind_subquery_predicate(floe_session *s, floe_lplan **plan, bind_scope *sc, const json_t *node,
                                    bool *done) FLOE_WARN_UNUSED;

/* ---- FROM (bind_from.c) -------------------------------------------------- */

/* Bind the FROM list (comma-separated items are cross joins); `where`
 * (may be NULL) supplies join conditions for comma joins — conjuncts
 * spanning two items become their join keys; *where_rest receives the
 * remaining WHERE conjuncts over the FROM output (NULL when none). */
floe_status bind_from(floe_session *s, const json_t *from_list, bind_result *out) FLOE_WARN_UNUSED;

/* A constant argument of a table function (read_parquet, read_csv, ...),
 * evaluated now into a one-slot array. */
floe_status bind_table_func_const_arg(floe_session *s, const json_t *node, floe_array **out) FLOE_WARN_UNUSED;

/* Helpers shared by FROM and queries. */
floe_status bind_make_project(floe_lplan *input, floe_expr *const *exprs, char *const *names, int32_t n,
                              floe_lplan **out) FLOE_WARN_UNUSED;
floe_status bind_make_join(floe_lplan *left, floe_lplan *right, floe_join_type type, floe_expr *on,
                           floe_lplan **out) FLOE_WARN_UNUSED;
/* An error at a location of the statement being bound. */
floe_status bind_error(floe_session *s, int32_t location, floe_code code, const char *fmt, ...) FLOE_PRINTF(4, 5)
    FLOE_WARN_UNUSED;

/* `st` with "line L, column C: " prefixed (unless already positioned);
 * NULL passes through. */
floe_status bind_at(floe_session *s, int32_t location, floe_status st) FLOE_WARN_UNUSED;

/* Integer value of an A_Const (works around libpg_query's JSON output,
 * which drops the value of negative integer constants, by reading the
 * statement text).  false when the node is not an integer constant. */
bool bind_const_int(floe_session *s, const json_t *node, int64_t *out);

/* ---- window functions (bind_window.c) ------------------------------------ */

/* The window calls of one SELECT and its WINDOW clause. */
typedef struct bind_windows bind_windows;
floe_status bind_windows_new(floe_session *s, const json_t *select_body, bind_windows **out) FLOE_WARN_UNUSED;
void bind_windows_free(bind_windows *w); /* NULL-safe */
int32_t bind_windows_count(const bind_windows *w);
/* Is `name` (lower case) a window-only function (row_number, lag ...)? */
bool bind_is_window_fn(const char *name);
/* A call with OVER (or a window-only function): an extra column of `c`
 * that a WINDOW node computes. */
floe_status bind_window_call(bind_ectx *c, const json_t *fc, const char *name, floe_expr **out) FLOE_WARN_UNUSED;
/* IGNORE NULLS / RESPECT NULLS recorded for the call at loc (parse.h):
 * *ignore; an error when `name` does not take them. */
floe_status bind_null_treatment(bind_ectx *c, int32_t loc, const char *name, bool *ignore) FLOE_WARN_UNUSED;
/* Aggregating query: extra_col[extra] of each window call becomes its
 * column over a plan of `base` columns once the WINDOW nodes are on it. */
void bind_windows_place(bind_ectx *c, bind_windows *w, int32_t base, int32_t *extra_col);
/* Put the WINDOW nodes on *plan (their parts rewritten over the aggregate's
 * output when extra_col is given: groups / extra_col as in
 * bind_rewrite_over_agg). */
floe_status bind_windows_build(bind_ectx *c, bind_windows *w, floe_lplan **plan, floe_expr *const *groups,
                               int32_t ng, const int32_t *extra_col) FLOE_WARN_UNUSED;
/* Non-aggregating query: rewrite es[0..n) so window extras read the
 * WINDOW nodes' columns over a plan of `base` columns. */
floe_status bind_windows_remap(bind_ectx *c, const bind_windows *w, int32_t base, floe_expr **es,
                               int32_t n) FLOE_WARN_UNUSED;
/* bind_unnest.c: unnest(xs) in a select list, an is_srf extra (errors
 * where c->allow_srf is off); then, once the query's aggregate / windows
 * are on *plan, one Unnest for all of them over it.  Aggregating
 * (agg_extra_col given): their args are rewritten over the aggregate and
 * agg_extra_col[srf] set to their columns, for the caller's rewrite; not
 * aggregating: sel / hidden are remapped here (window extras as
 * bind_windows_place puts them over `base` columns). */
floe_status bind_srf_call(bind_ectx *c, const json_t *fc, floe_expr **out) FLOE_WARN_UNUSED;
floe_status bind_srf_apply(bind_ectx *c, floe_lplan **plan, bind_windows *wins, int32_t base, floe_expr *const *groups,
                           int32_t ng, int32_t *agg_extra_col, floe_expr **sel, int32_t n_sel, floe_expr **hidden,
                           int32_t n_hidden) FLOE_WARN_UNUSED;
/* The QUALIFY condition of SELECT `body` (parse.h's FLOE_SQL_QUALIFY),
 * bound like a select-list item; *out NULL when there is none. */
floe_status bind_qualify(bind_ectx *c, const json_t *body, floe_expr **out) FLOE_WARN_UNUSED;

/* The FROM of correlated subquery `sub` (outer names osc): bind_from,
 * an unknown name that a derived table of it takes from the outer query
 * reported as that unsupported construct (bind_nested_corr.c). */
floe_status bind_corr_sub_from(floe_session *s, const json_t *sub, const bind_scope *osc,
                               bind_result *out) FLOE_WARN_UNUSED;

#endif

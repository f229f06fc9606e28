/*
 * bind_decorrelate.h — the pieces of bind_decorrelate.c (correlated
 * subqueries unnested into joins) that its neighbours reuse:
 * bind_sublink_value.c (IN / EXISTS / ANY / ALL as values) and
 * bind_nested_corr.c (subqueries nested inside a correlated subquery).
 */
#ifndef FLOE_SQL_BIND_DECORRELATE_H
#define FLOE_SQL_BIND_DECORRELATE_H

#include "sql/bind.h"
#include "sql/bind_query_internal.h"

/* Join `right` onto *c->plan (LEFT with keys lk[i] = rk[i], rk NULL: its
 * columns 0..nk-1, NULL keys matching when null_safe; INNER without keys
 * for a one-row right side).  Its columns become hidden columns of the
 * context's scope; *first is the first of them. */
floe_status bind_dc_attach(bind_ectx *c, floe_lplan *right, floe_join_type type, floe_expr *const *lk,
                           floe_expr *const *rk, int32_t nk, bool null_safe, int32_t *first) FLOE_WARN_UNUSED;
/* An AGGREGATE of `input` grouped by its first ng columns with the calls
 * (their parts move in). */
floe_status bind_dc_aggregate(floe_lplan *input, int32_t ng, floe_agg_call *calls, int32_t n_calls,
                              floe_lplan **out) FLOE_WARN_UNUSED;
/* A count(*) call named `name`. */
floe_status bind_dc_count_star(floe_agg_call *call, const char *name) FLOE_WARN_UNUSED;
/* bind_decorrelated with IN's comparison `cmp` (x cmp ANY (subquery):
 * TRUE when some x cmp v is, NULL when none is but one is NULL). */
floe_status bind_decorrelated_cmp(bind_ectx *c, const json_t *sub, bind_sublink_kind kind, const json_t *testexpr,
                                  floe_cmp_op cmp, int32_t loc, floe_expr **out) FLOE_WARN_UNUSED;

/* ---- bind_nested_corr.c ---- */

/* Does the parse-tree node hold a SubLink anywhere? */
bool bind_json_has_sublink(const json_t *node);
/* from_clause then each list of the chain, bound afresh and cross-joined. */
floe_status bind_fresh_from(floe_session *s, const json_t *from_clause, const bind_from_chain *chain,
                            bind_result *out) FLOE_WARN_UNUSED;
/* *jn = D (the nf outer FROM columns, ++ x when has_x) JOIN F (named by
 * iscope) filtered by the WHERE conjuncts late[0..n_late) — those holding
 * subqueries that read outer columns — bound as one level over the outer
 * FROM (osc's first nf names; FROM lists from_clause ++ chain) ++ F
 * (sub_from).  *jn keeps its columns, and gets one more when `val` (a
 * select-list value, may be NULL) is given: it bound in that level. */
floe_status bind_nested_corr_filter(floe_session *s, floe_lplan **jn, int32_t nf, bool has_x, const bind_scope *osc,
                                    const bind_scope *iscope, const json_t *from_clause,
                                    const bind_from_chain *chain, const json_t *sub_from, const json_t *const *late,
                                    int32_t n_late, const json_t *val) FLOE_WARN_UNUSED;

#endif

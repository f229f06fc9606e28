/*
 * optimize.c — logical rewrites between binding and physical planning:
 *
 *   1. constant folding in every expression;
 *   2. filter pushdown: a FILTER's conjuncts move below projections, sorts,
 *      DISTINCT, aggregates (conjuncts on group keys only), unions and into
 *      the sides of joins where the join type allows; WHERE equalities
 *      between the two sides of a join become its hash keys;
 *   3. limit pushdown: LIMIT over SORT becomes a top-N sort, and a LIMIT
 *      moves below projections and into the inputs of UNION ALL;
 *   4. scan pushdown (scan_pushdown.c): the conjuncts right above a scan
 *      are translated into the scan's pruning filter, never dropping a row
 *      that matches;
 *   5. projection pushdown: every node keeps only the columns something
 *      above it reads, down to the scans' column lists.
 *
 * Each rule keeps the plan's results unchanged; the order matters only for
 * how much work the plan does.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/exec_scan.h"
#include "sql/expr_util.h"
#include "sql/logical.h"
#include "sql/optimize_internal.h"

/* ------------------------------------------------------------ helpers */

static int32_t ncols(const floe_lplan *p) { return floe_schema_num_fields(p->schema); }

/* A FILTER node over `child` with the AND of parts (or `child` itself when
 * there are none). */
static floe_status make_filter(floe_lplan *child, floe_expr *const *parts, int32_t n, floe_lplan **out) {
    *out = child;
    if (n == 0) return NULL;
    floe_expr *pred;
    FLOE_TRY(floe_sqlx_and_all(parts, n, &pred));
    floe_lplan *f;
    floe_status st = floe_lplan_new(FLOE_L_FILTER, child->schema, &child, 1, &f);
    if (st) {
        floe_expr_release(pred);
        return st; /* child still ours: caller frees it */
    }
    f->predicate = pred;
    *out = f;
    return NULL;
}

/* Make a fresh schema holding fields `keep` of `s`. */
floe_status floe_sqlo_schema_select(const floe_schema *s, const int32_t *keep, int32_t n, floe_schema **out) {
    floe_field *fs = n ? floe_calloc((size_t)n, sizeof *fs) : NULL;
    if (n && !fs) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
    for (int32_t i = 0; i < n; i++) fs[i] = *floe_schema_field(s, keep[i]);
    floe_status st = floe_type_struct(fs, n, out);
    floe_free(fs);
    return st;
}

/* ------------------------------------------------------ constant folding */

static floe_status fold_list(floe_expr **es, int32_t n, const floe_schema *schema) {
    for (int32_t i = 0; i < n; i++) {
        if (!es[i]) continue;
        floe_expr *f, *u;
        FLOE_TRY(floe_sqlx_fold(es[i], schema, &f));
        floe_status st = floe_sqlx_unwrap_casts(f, schema, &u);
        floe_expr_release(f);
        if (st) return st;
        floe_expr_release(es[i]);
        es[i] = u;
    }
    return NULL;
}

static floe_status fold_plan(floe_lplan *p) {
    for (int32_t i = 0; i < p->n_inputs; i++) FLOE_TRY(fold_plan(p->inputs[i]));
    const floe_schema *in = p->n_inputs ? p->inputs[0]->schema : p->schema;
    FLOE_TRY(fold_list(&p->predicate, 1, in));
    FLOE_TRY(fold_list(p->exprs, p->n_exprs, in));
    for (int32_t i = 0; i < p->n_aggs; i++) {
        floe_agg_call *a = &p->aggs[i];
        if (a->arg) FLOE_TRY(fold_list(&a->arg, 1, in));
        if (a->arg2) FLOE_TRY(fold_list(&a->arg2, 1, in));
        if (a->filter) FLOE_TRY(fold_list(&a->filter, 1, in));
        for (int32_t k = 0; k < a->n_order; k++) FLOE_TRY(fold_list(&a->order[k].expr, 1, in));
    }
    for (int32_t i = 0; i < p->n_sort_keys; i++) FLOE_TRY(fold_list(&p->sort_keys[i].expr, 1, in));
    for (int32_t i = 0; i < p->n_wcalls; i++) { /* frame offsets: constants */
        FLOE_TRY(fold_list(&p->wcalls[i].frame.start_offset, 1, in));
        FLOE_TRY(fold_list(&p->wcalls[i].frame.end_offset, 1, in));
    }
    if (p->kind == FLOE_L_JOIN) {
        FLOE_TRY(fold_list(p->left_keys, p->n_keys, p->inputs[0]->schema));
        FLOE_TRY(fold_list(p->right_keys, p->n_keys, p->inputs[1]->schema));
    }
    if (p->kind == FLOE_L_FILTER && p->predicate && floe_sqlx_is_true(p->predicate)) {
        /* FILTER TRUE: keep the node (the parent holds it); the pushdown
         * pass drops filters without conjuncts. */
    }
    return NULL;
}

/* ------------------------------------------------------ filter pushdown */

typedef struct conj_list {
    floe_expr **v;
    int32_t n, cap;
} conj_list;

static void conj_free(conj_list *c) {
    floe_sqlx_free_list(c->v, c->n);
    memset(c, 0, sizeof *c);
}

/* Split `e` into conjuncts, taking the conjuncts every branch of an OR
 * shares out of it first (they can then be pushed or become join keys). */
static floe_status conj_add(conj_list *c, floe_expr *e) {
    conj_list parts = {0};
    floe_status st = floe_sqlx_conjuncts(e, &parts.v, &parts.n, &parts.cap);
    for (int32_t i = 0; !st && i < parts.n; i++) {
        floe_expr *f = NULL;
        st = floe_sqlx_factor_or(parts.v[i], &f);
        /* A conjunct already there (a filter derived twice) is not repeated. */
        bool dup = false;
        for (int32_t k = 0; !st && !dup && k < c->n; k++) dup = floe_sqlx_same(c->v[k], f);
        if (!st && !dup) st = floe_sqlx_conjuncts(f, &c->v, &c->n, &c->cap);
        floe_expr_release(f);
    }
    conj_free(&parts);
    return st;
}

static floe_status push_filters(floe_lplan **slot);

/* Push the conjuncts `c` (consumed) into the subtree at *slot, leaving a
 * FILTER for the ones that cannot go lower. */
static floe_status push_into(floe_lplan **slot, conj_list *c);

/* Wrap *slot in a FILTER with the conjuncts (consumed). */
static floe_status stop_here(floe_lplan **slot, conj_list *c) {
    floe_lplan *f;
    floe_status st = make_filter(*slot, c->v, c->n, &f);
    conj_free(c);
    if (st) return st;
    *slot = f;
    return NULL;
}

/* A conjunct over a JOIN's output: which sides does it read? */
static void sides_of(const floe_expr *e, int32_t n_left, bool *left, bool *right) {
    int32_t lo = floe_sqlx_min_column(e), hi = floe_sqlx_max_column(e);
    *left = lo < n_left;
    *right = hi >= n_left;
    if (hi < 0) *left = *right = false; /* constant */
}

/* An equality between one side's and the other side's columns becomes a
 * hash key: returns true and the two key expressions (over each side's
 * own columns). */
static floe_status as_join_key(const floe_expr *e, int32_t n_left, floe_expr **lk, floe_expr **rk, bool *ok) {
    *ok = false;
    *lk = *rk = NULL;
    if (e->kind != FLOE_EXPR_CMP || e->op != FLOE_CMP_EQ) return NULL;
    bool l0, r0, l1, r1;
    sides_of(e->args[0], n_left, &l0, &r0);
    sides_of(e->args[1], n_left, &l1, &r1);
    const floe_expr *le = NULL, *re = NULL;
    if (l0 && !r0 && r1 && !l1) { le = e->args[0]; re = e->args[1]; }
    else if (l1 && !r1 && r0 && !l0) { le = e->args[1]; re = e->args[0]; }
    if (!le) return NULL;
    *lk = floe_expr_retain((floe_expr *)le);
    FLOE_TRY(floe_sqlx_shift(re, -n_left, rk));
    *ok = true;
    return NULL;
}

/* Append the key pair (lk, rk) to join j (takes both references). */
static floe_status add_join_key(floe_lplan *j, floe_expr *lk, floe_expr *rk) {
    floe_expr **nlk = floe_realloc(j->left_keys, (size_t)(j->n_keys + 1) * sizeof *nlk);
    if (nlk) j->left_keys = nlk;
    floe_expr **nrk = nlk ? floe_realloc(j->right_keys, (size_t)(j->n_keys + 1) * sizeof *nrk) : NULL;
    if (nrk) j->right_keys = nrk;
    if (!nlk || !nrk) {
        floe_expr_release(lk);
        floe_expr_release(rk);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "adding a join key");
    }
    j->left_keys[j->n_keys] = lk;
    j->right_keys[j->n_keys] = rk;
    j->n_keys++;
    return NULL;
}

/* An OR over both sides of an inner join implies a filter on each side
 * (floe_sqlx_derive_or); add those to the sides' lists.  The OR itself
 * stays with the join. */
static floe_status derive_sides(floe_expr *e, int32_t nl, conj_list *to_left, conj_list *to_right) {
    floe_expr *dl = NULL, *dr = NULL, *drs = NULL;
    floe_status st = floe_sqlx_derive_or(e, 0, nl, &dl);
    if (!st) st = floe_sqlx_derive_or(e, nl, INT32_MAX, &dr);
    if (!st && dr) st = floe_sqlx_shift(dr, -nl, &drs);
    if (!st && dl) st = conj_add(to_left, dl);
    if (!st && drs) st = conj_add(to_right, drs);
    floe_expr_release(dl);
    floe_expr_release(dr);
    floe_expr_release(drs);
    return st;
}

static floe_status push_join(floe_lplan **slot, conj_list *c) {
    floe_lplan *j = *slot;
    int32_t nl = ncols(j->inputs[0]);
    conj_list to_left = {0}, to_right = {0}, keep = {0};
    floe_status st = NULL;
    floe_join_type t = j->join_type;
    bool out_left_only = t == FLOE_JOIN_LEFT_SEMI || t == FLOE_JOIN_LEFT_ANTI;
    bool out_right_only = t == FLOE_JOIN_RIGHT_SEMI || t == FLOE_JOIN_RIGHT_ANTI;
    /* Where may a WHERE conjunct on one side go? Below the side whose rows
     * the join never pads with NULLs. */
    bool left_ok = t == FLOE_JOIN_INNER || t == FLOE_JOIN_LEFT || out_left_only;
    bool right_ok = t == FLOE_JOIN_INNER || t == FLOE_JOIN_RIGHT || out_right_only;
    for (int32_t i = 0; !st && i < c->n; i++) {
        floe_expr *e = c->v[i];
        if (out_right_only) { /* output columns are the right side's */
            st = right_ok ? conj_add(&to_right, e) : conj_add(&keep, e);
            continue;
        }
        if (out_left_only) {
            st = conj_add(&to_left, e);
            continue;
        }
        bool l, r;
        sides_of(e, nl, &l, &r);
        if (l && !r && left_ok) st = conj_add(&to_left, e);
        else if (r && !l && right_ok) {
            floe_expr *s;
            if (!(st = floe_sqlx_shift(e, -nl, &s))) {
                st = conj_add(&to_right, s);
                floe_expr_release(s);
            }
        } else if (l && r && t == FLOE_JOIN_INNER) {
            floe_expr *lk, *rk;
            bool ok;
            if ((st = as_join_key(e, nl, &lk, &rk, &ok))) break;
            if (ok) {
                if ((st = add_join_key(j, lk, rk))) break;
            } else {
                /* Another condition on both sides of an inner join: part of
                 * the join's own predicate.  An OR of per-side conditions
                 * also implies a filter on each side, which goes below. */
                if ((st = derive_sides(e, nl, &to_left, &to_right))) break;
                floe_expr *np = NULL;
                if (j->predicate) {
                    st = floe_expr_and(j->predicate, e, &np);
                    if (!st) {
                        floe_expr_release(j->predicate);
                        j->predicate = np;
                    }
                } else {
                    j->predicate = floe_expr_retain(e);
                }
            }
        } else {
            st = conj_add(&keep, e);
        }
    }
    conj_free(c);
    /* Conjuncts of an inner join's ON that read one side only go below too. */
    if (!st && j->predicate && (t == FLOE_JOIN_INNER || t == FLOE_JOIN_LEFT_SEMI || t == FLOE_JOIN_RIGHT_SEMI)) {
        conj_list on = {0}, rest = {0};
        st = conj_add(&on, j->predicate);
        for (int32_t i = 0; !st && i < on.n; i++) {
            bool l, r;
            sides_of(on.v[i], nl, &l, &r);
            bool can_left = t == FLOE_JOIN_INNER || t == FLOE_JOIN_LEFT_SEMI;
            bool can_right = t == FLOE_JOIN_INNER || t == FLOE_JOIN_RIGHT_SEMI;
            if (l && !r && can_left) st = conj_add(&to_left, on.v[i]);
            else if (r && !l && can_right) {
                floe_expr *s;
                if (!(st = floe_sqlx_shift(on.v[i], -nl, &s))) {
                    st = conj_add(&to_right, s);
                    floe_expr_release(s);
                }
            } else {
                bool ok = false;
                floe_expr *lk = NULL, *rk = NULL;
                if (l && r) st = as_join_key(on.v[i], nl, &lk, &rk, &ok);
                if (!st && ok) {
                    st = add_join_key(j, lk, rk);
                } else if (!st) {
                    if (l && r && t == FLOE_JOIN_INNER) st = derive_sides(on.v[i], nl, &to_left, &to_right);
                    if (!st) st = conj_add(&rest, on.v[i]);
                }
            }
        }
        if (!st) {
            floe_expr *np = NULL;
            st = floe_sqlx_and_all(rest.v, rest.n, &np);
            if (!st) {
                floe_expr_release(j->predicate);
                j->predicate = np;
            }
        }
        conj_free(&on);
        conj_free(&rest);
    } else if (!st && j->predicate && t == FLOE_JOIN_LEFT) {
        /* LEFT JOIN ... ON: conditions on the right side alone filter the
         * right input (a right row failing them would never match). */
        conj_list on = {0}, rest = {0};
        st = conj_add(&on, j->predicate);
        for (int32_t i = 0; !st && i < on.n; i++) {
            bool l, r;
            sides_of(on.v[i], nl, &l, &r);
            if (r && !l) {
                floe_expr *s;
                if (!(st = floe_sqlx_shift(on.v[i], -nl, &s))) {
                    st = conj_add(&to_right, s);
                    floe_expr_release(s);
                }
            } else {
                st = conj_add(&rest, on.v[i]);
            }
        }
        if (!st) {
            floe_expr *np = NULL;
            st = floe_sqlx_and_all(rest.v, rest.n, &np);
            if (!st) {
                floe_expr_release(j->predicate);
                j->predicate = np;
            }
        }
        conj_free(&on);
        conj_free(&rest);
    }
    if (!st) st = push_into(&j->inputs[0], &to_left);
    if (!st) st = push_into(&j->inputs[1], &to_right);
    if (!st) return stop_here(slot, &keep);
    conj_free(&to_left);
    conj_free(&to_right);
    conj_free(&keep);
    return st;
}

static bool is_plain_inner(const floe_lplan *p);
static floe_status reorder_joins(floe_lplan **slot, conj_list *c, bool *changed);

static floe_status push_into(floe_lplan **slot, conj_list *c) {
    floe_lplan *p = *slot;
    if (c->n == 0) {
        conj_free(c);
        return push_filters(slot);
    }
    floe_status st = NULL;
    switch (p->kind) {
    case FLOE_L_FILTER: {
        /* Merge, then push everything further. */
        st = conj_add(c, p->predicate);
        if (st) break;
        floe_lplan *child = p->inputs[0];
        p->inputs[0] = NULL;
        p->n_inputs = 0;
        floe_lplan_free(p);
        *slot = child;
        return push_into(slot, c);
    }
    case FLOE_L_PROJECT: {
        /* A conjunct reading a column computed by random() stays above:
         * below, it would draw its own value, not the row's. */
        conj_list below = {0}, keep = {0};
        bool *reads = floe_calloc((size_t)(p->n_exprs ? p->n_exprs : 1), sizeof *reads);
        if (!reads) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "pushing filters");
        for (int32_t i = 0; !st && i < c->n; i++) {
            bool stays = false;
            memset(reads, 0, (size_t)(p->n_exprs ? p->n_exprs : 1) * sizeof *reads);
            floe_sqlx_columns(c->v[i], reads);
            for (int32_t k = 0; k < p->n_exprs && !stays; k++) stays = reads[k] && floe_sqlx_reads_volatile(p->exprs[k]);
            floe_expr *s;
            if (stays) st = conj_add(&keep, c->v[i]);
            else if (!(st = floe_sqlx_substitute(c->v[i], p->exprs, p->n_exprs, &s))) {
                st = conj_add(&below, s);
                floe_expr_release(s);
            }
        }
        floe_free(reads);
        conj_free(c);
        if (!st) st = push_into(&p->inputs[0], &below);
        else conj_free(&below);
        if (!st) return stop_here(slot, &keep);
        conj_free(&keep);
        return st;
    }
    case FLOE_L_SORT:
        if (p->fetch >= 0) break; /* a top-N keeps the first rows BEFORE filtering */
        return push_into(&p->inputs[0], c);
    case FLOE_L_DISTINCT:
        return push_into(&p->inputs[0], c);
    case FLOE_L_AGGREGATE: {
        conj_list below = {0}, keep = {0};
        for (int32_t i = 0; !st && i < c->n; i++) {
            int32_t hi = floe_sqlx_max_column(c->v[i]);
            if (p->n_exprs > 0 && hi < p->n_exprs) { /* reads group keys only */
                floe_expr *s;
                if (!(st = floe_sqlx_substitute(c->v[i], p->exprs, p->n_exprs, &s))) {
                    st = conj_add(&below, s);
                    floe_expr_release(s);
                }
            } else {
                st = conj_add(&keep, c->v[i]);
            }
        }
        conj_free(c);
        if (!st) st = push_into(&p->inputs[0], &below);
        else conj_free(&below);
        if (!st) return stop_here(slot, &keep);
        conj_free(&keep);
        return st;
    }
    case FLOE_L_UNION: {
        for (int32_t k = 0; !st && k < p->n_inputs; k++) {
            conj_list copy = {0};
            for (int32_t i = 0; !st && i < c->n; i++) st = conj_add(&copy, c->v[i]);
            if (!st) st = push_into(&p->inputs[k], &copy);
            else conj_free(&copy);
        }
        conj_free(c);
        return st;
    }
    case FLOE_L_JOIN:
        if (is_plain_inner(p)) {
            /* Conjuncts reaching a tree of inner joins (also from above a
             * join that is not inner) may connect its tables better than the
             * written order; the greedy order is stable, so a second visit
             * changes nothing. */
            bool changed = false; /* (not *slot != p: the new node may reuse p's address) */
            st = reorder_joins(slot, c, &changed);
            if (st) break;
            if (changed) return push_into(slot, c);
        }
        return push_join(slot, c);
    default:
        break;
    }
    if (st) {
        conj_free(c);
        return st;
    }
    /* Cannot go lower: optimize below, then put the filter here. */
    FLOE_TRY(push_filters(slot));
    return stop_here(slot, c);
}

/* ------------------------------------------------------------ join order
 *
 * A FROM list joins its tables in the order written, as cross joins that
 * the WHERE conjuncts then turn into keyed joins.  Written orders often
 * put two tables side by side that no condition connects (TPC-H Q2 and Q9:
 * part, supplier, ...), which makes a cross product.  Before the filter is
 * pushed, a tree of plain inner joins is re-formed left-deep: from each
 * table in turn, greedily add the table an equality connects that keeps
 * the estimated result smallest, and keep the order whose estimated
 * intermediate results add up to least (estimates below).  Only when
 * nothing connected is left does a cross product remain.  A Projection on
 * top keeps the original column order, so nothing above notices; the joins'
 * own conditions travel with the WHERE conjuncts and become keys again. */

typedef struct join_leaf {
    floe_lplan *plan;
    int32_t offset, n; /* its columns in the join tree's output */
} join_leaf;

static bool is_plain_inner(const floe_lplan *p) {
    return p->kind == FLOE_L_JOIN && p->join_type == FLOE_JOIN_INNER && !p->null_aware;
}

static int32_t count_leaves(const floe_lplan *p) {
    return is_plain_inner(p) ? count_leaves(p->inputs[0]) + count_leaves(p->inputs[1]) : 1;
}

/* The leaves of the inner-join tree at p (left to right) and its joins'
 * own conditions in the tree's output columns (added to `conds`). */
static floe_status gather_leaves(floe_lplan *p, int32_t offset, join_leaf *leaves, int32_t *n, conj_list *conds) {
    if (!is_plain_inner(p)) {
        leaves[*n].plan = p;
        leaves[*n].offset = offset;
        leaves[*n].n = ncols(p);
        (*n)++;
        return NULL;
    }
    int32_t nl = ncols(p->inputs[0]);
    floe_status st = NULL;
    for (int32_t k = 0; !st && k < p->n_keys; k++) {
        floe_expr *l = NULL, *r = NULL, *eq = NULL;
        st = floe_sqlx_shift(p->left_keys[k], offset, &l);
        if (!st) st = floe_sqlx_shift(p->right_keys[k], offset + nl, &r);
        if (!st) st = floe_expr_cmp(FLOE_CMP_EQ, l, r, &eq);
        if (!st) st = conj_add(conds, eq);
        floe_expr_release(l);
        floe_expr_release(r);
        floe_expr_release(eq);
    }
    if (!st && p->predicate) {
        floe_expr *e = NULL;
        st = floe_sqlx_shift(p->predicate, offset, &e);
        if (!st) st = conj_add(conds, e);
        floe_expr_release(e);
    }
    if (!st) st = gather_leaves(p->inputs[0], offset, leaves, n, conds);
    if (!st) st = gather_leaves(p->inputs[1], offset + nl, leaves, n, conds);
    return st;
}

/* The leaf holding column `col`. */
static int32_t leaf_of(const join_leaf *leaves, int32_t n, int32_t col) {
    for (int32_t i = 0; i < n; i++)
        if (col >= leaves[i].offset && col < leaves[i].offset + leaves[i].n) return i;
    return -1;
}

/* Do the columns `e` reads all lie in leaves marked in `in`, and at least
 * one?  (used: scratch of n_cols.) */
static bool reads_only(const floe_expr *e, const join_leaf *leaves, int32_t n, int32_t n_cols, const bool *in,
                       bool *used) {
    memset(used, 0, (size_t)n_cols * sizeof *used);
    floe_sqlx_columns(e, used);
    bool any = false;
    for (int32_t c = 0; c < n_cols; c++) {
        if (!used[c]) continue;
        int32_t l = leaf_of(leaves, n, c);
        if (l < 0 || !in[l]) return false;
        any = true;
    }
    return any;
}

/* Free the join nodes of the tree at p, keeping its leaves. */
static void free_join_nodes(floe_lplan *p) {
    if (!is_plain_inner(p)) return;
    free_join_nodes(p->inputs[0]);
    free_join_nodes(p->inputs[1]);
    p->inputs[0] = p->inputs[1] = NULL;
    p->n_inputs = 0;
    floe_lplan_free(p);
}

/* ---- estimates for the join order --------------------------------------
 *
 * Rough, like every planner's without column statistics: a table's rows
 * come from its files (Parquet footers, the Iceberg snapshot summary);
 * filters keep the fraction floe_sqlx_selectivity guesses; an equi-join
 * of A and B keeps |A| |B| / d rows, where d, the number of distinct key
 * values, is taken as the rows of the smaller of the key columns' base
 * tables (a foreign key into a primary key: lineitem ⋈ supplier keeps
 * lineitem's rows times the fraction of suppliers kept). */

/* Rows of a leaf before the conjuncts being pushed: its own filters,
 * projections and aggregates included. */
static double base_rows(const floe_lplan *p) {
    switch (p->kind) {
    case FLOE_L_PARQUET_SCAN: {
        double r = p->physical ? floe_plan_estimate_rows(p->physical) : -1;
        return r >= 0 ? r : 1e6;
    }
    case FLOE_L_PHYSICAL: {
        /* VALUES and the like know their rows; metadata tables do not */
        double r = p->physical ? floe_plan_estimate_rows(p->physical) : -1;
        return r >= 0 ? r : 1000;
    }
    case FLOE_L_ICEBERG_SCAN: {
        const floe_ice_snapshot *snap = p->table && p->table->md ? floe_ice_tm_current_snapshot(p->table->md) : NULL;
        for (int32_t i = 0; snap && i < snap->n_summary; i++)
            if (strcmp(snap->summary[i].key, "total-records") == 0) return atof(snap->summary[i].value);
        return snap ? 1e6 : 0;
    }
    case FLOE_L_GENERATE_SERIES:
        return p->step ? (double)(p->stop - p->start) / (double)p->step + 1 : 1;
    case FLOE_L_FILTER:
        return base_rows(p->inputs[0]) * floe_sqlx_selectivity(p->predicate);
    case FLOE_L_AGGREGATE:
        return p->n_exprs == 0 ? 1 : base_rows(p->inputs[0]) / 10;
    case FLOE_L_LIMIT: {
        double r = base_rows(p->inputs[0]);
        return p->fetch >= 0 && (double)p->fetch < r ? (double)p->fetch : r;
    }
    case FLOE_L_JOIN: {
        double l = base_rows(p->inputs[0]), r = base_rows(p->inputs[1]);
        if (p->join_type == FLOE_JOIN_LEFT_SEMI || p->join_type == FLOE_JOIN_LEFT_ANTI) return l;
        if (p->join_type == FLOE_JOIN_RIGHT_SEMI || p->join_type == FLOE_JOIN_RIGHT_ANTI) return r;
        return l > r ? l : r;
    }
    case FLOE_L_UNION: {
        double t = 0;
        for (int32_t i = 0; i < p->n_inputs; i++) t += base_rows(p->inputs[i]);
        return t;
    }
    default:
        return p->n_inputs > 0 ? base_rows(p->inputs[0]) : 1000;
    }
}

/* Every leaf's rows after the conjuncts that read it alone, and after the
 * filters an OR over several leaves implies on it. */
static floe_status leaf_estimates(const conj_list *all, const join_leaf *leaves, int32_t n, double *est) {
    for (int32_t x = 0; x < n; x++) {
        double r = base_rows(leaves[x].plan);
        int32_t lo = leaves[x].offset, hi = leaves[x].offset + leaves[x].n;
        for (int32_t i = 0; i < all->n; i++) {
            floe_expr *e = all->v[i];
            int32_t mn = floe_sqlx_min_column(e), mx = floe_sqlx_max_column(e);
            if (mx < 0) continue;
            if (mn >= lo && mx < hi) {
                r *= floe_sqlx_selectivity(e);
            } else if (e->kind == FLOE_EXPR_OR) {
                floe_expr *d = NULL;
                FLOE_TRY(floe_sqlx_derive_or(e, lo, hi, &d));
                if (d) r *= floe_sqlx_selectivity(d);
                floe_expr_release(d);
            }
        }
        est[x] = r > 1 ? r : 1;
    }
    return NULL;
}

/* How many distinct values a join key may take: for a plain column of a
 * Parquet scan (under filters), the bound its statistics give; otherwise
 * the rows of the leaf it comes from. */
static double key_domain(const floe_expr *k, const join_leaf *leaves, int32_t n) {
    int32_t c = floe_sqlx_min_column(k);
    int32_t l = c == INT32_MAX ? -1 : leaf_of(leaves, n, c);
    if (l < 0) return 1e6;
    /* The table's key domain: filters on the leaf do not shrink it. */
    const floe_lplan *scan = leaves[l].plan;
    while (scan->kind == FLOE_L_FILTER) scan = scan->inputs[0];
    double rows = base_rows(scan);
    if (k->kind == FLOE_EXPR_COLUMN) {
        if (scan->kind == FLOE_L_PARQUET_SCAN && scan->physical) {
            int64_t ndv = floe_parquet_scan_column_ndv(scan->physical, c - leaves[l].offset);
            if (ndv > 0 && (double)ndv < rows) return (double)ndv;
        }
    }
    return rows;
}

/* Estimated rows of (the leaves in `set`, `cur` rows) joined with leaf x
 * (x_rows); -1 when no equality connects them. */
static double join_estimate(const conj_list *conds, const join_leaf *leaves, int32_t n, int32_t n_cols,
                            const bool *set, double cur, int32_t x, double x_rows, bool *only_x, bool *used) {
    memset(only_x, 0, (size_t)n * sizeof *only_x);
    only_x[x] = true;
    double d = -1;
    for (int32_t i = 0; i < conds->n; i++) {
        const floe_expr *e = conds->v[i];
        if (e->kind != FLOE_EXPR_CMP || e->op != FLOE_CMP_EQ || e->n_args != 2) continue;
        for (int32_t side = 0; side < 2; side++)
            if (reads_only(e->args[side], leaves, n, n_cols, only_x, used) &&
                reads_only(e->args[1 - side], leaves, n, n_cols, set, used)) {
                double a = key_domain(e->args[0], leaves, n), b = key_domain(e->args[1], leaves, n);
                double dom = a < b ? a : b;
                if (dom > d) d = dom;
                break;
            }
    }
    if (d < 0) return -1;
    return cur * x_rows / (d > 1 ? d : 1);
}

/* A left-deep order starting at leaf s0: each time the connected leaf
 * that keeps the estimated result smallest (ties: written order); a leaf
 * nothing connects only when no connected one is left.  Fills order and
 * step_est (the estimated rows after each step); returns the sum of the
 * estimated join results, the plan's cost. */
static double greedy_order(const conj_list *all, const join_leaf *leaves, int32_t n, int32_t n_cols, const double *est,
                           int32_t s0, int32_t *order, double *step_est, bool *set, bool *only_x, bool *used) {
    memset(set, 0, (size_t)n * sizeof *set);
    order[0] = s0;
    set[s0] = true;
    double cur = est[s0], cost = 0;
    step_est[0] = cur;
    for (int32_t k = 1; k < n; k++) {
        int32_t pick = -1;
        double pick_rows = -1;
        for (int32_t x = 0; x < n; x++) {
            if (set[x]) continue;
            double r = join_estimate(all, leaves, n, n_cols, set, cur, x, est[x], only_x, used);
            if (r >= 0 && (pick_rows < 0 || r < pick_rows)) {
                pick_rows = r;
                pick = x;
            }
        }
        for (int32_t x = 0; x < n && pick < 0; x++)
            if (!set[x]) {
                pick = x;
                pick_rows = cur * est[x];
            }
        order[k] = pick;
        set[pick] = true;
        cur = pick_rows > 1 ? pick_rows : 1;
        step_est[k] = cur;
        cost += cur;
    }
    return cost;
}

/* Re-form the inner-join tree at *slot (whose filter conjuncts are `c`) in
 * the greedy connected order, when that differs from the written one
 * (*changed); the joins' conditions then join `c`. */
static floe_status reorder_joins(floe_lplan **slot, conj_list *c, bool *changed_out) {
    *changed_out = false;
    floe_lplan *root = *slot;
    int32_t n = count_leaves(root), n_cols = ncols(root);
    if (n < 3) return NULL; /* two tables: the join is keyed or a cross product either way */
    if (root->est_rows > 0) return NULL; /* ordered already (a second visit) */
    join_leaf *leaves = floe_calloc((size_t)n, sizeof *leaves);
    int32_t *order = floe_calloc((size_t)n, sizeof *order), got = 0;
    bool *set = floe_calloc((size_t)n, sizeof *set), *only_x = floe_calloc((size_t)n, sizeof *only_x);
    bool *used = floe_calloc((size_t)n_cols + 1, sizeof *used);
    conj_list all = {0}, own = {0};
    floe_status st = leaves && order && set && only_x && used ? NULL
                                                              : floe_error(FLOE_ERR_OUT_OF_MEMORY, "ordering joins");
    if (!st) st = gather_leaves(root, 0, leaves, &got, &own);
    for (int32_t i = 0; !st && i < c->n; i++) st = conj_add(&all, c->v[i]);
    for (int32_t i = 0; !st && i < own.n; i++) st = conj_add(&all, own.v[i]);
    bool changed = false;
    double *est = floe_calloc((size_t)n, sizeof *est), *step_est = floe_calloc((size_t)n, sizeof *step_est);
    if (!st && (!est || !step_est)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "ordering joins");
    if (!st) st = leaf_estimates(&all, leaves, n, est);
    int32_t *try_order = floe_calloc((size_t)n, sizeof *try_order);
    double *try_est = floe_calloc((size_t)n, sizeof *try_est);
    if (!st && (!try_order || !try_est)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "ordering joins");
    if (!st) {
        /* Left-deep greedy from every table in turn; keep the order whose
         * estimated intermediate results add up to least (ties: the
         * earlier start). */
        double best = -1;
        for (int32_t s0 = 0; s0 < n; s0++) {
            double cost = greedy_order(&all, leaves, n, n_cols, est, s0, try_order, try_est, set, only_x, used);
            if (best < 0 || cost < best) {
                best = cost;
                memcpy(order, try_order, (size_t)n * sizeof *order);
                memcpy(step_est, try_est, (size_t)n * sizeof *step_est);
            }
        }
        for (int32_t k = 0; k < n; k++)
            if (order[k] != k) changed = true;
    }
    floe_lplan *tree = NULL, *proj = NULL;
    floe_schema *out_schema = NULL;
    if (!st && changed) {
        /* The new left-deep tree; the written tree's join nodes go. */
        out_schema = floe_type_retain(root->schema);
        free_join_nodes(root);
        *slot = NULL;
        tree = leaves[order[0]].plan;
        leaves[order[0]].plan = NULL;
        for (int32_t k = 1; k < n; k++) {
            floe_lplan *right = leaves[order[k]].plan, *j = NULL;
            leaves[order[k]].plan = NULL;
            floe_schema *both = NULL;
            if (st || !tree) { /* an earlier step failed: just free the rest */
                floe_lplan_free(right);
                continue;
            }
            st = floe_join_output_schema(tree->schema, right->schema, FLOE_JOIN_INNER, &both);
            if (st) {
                floe_lplan_free(right);
                continue;
            }
            floe_lplan *in[2] = {tree, right};
            st = floe_lplan_new(FLOE_L_JOIN, both, in, 2, &j); /* frees both inputs on failure */
            floe_type_release(both);
            tree = j; /* NULL after a failure */
            if (!st) {
                j->join_type = FLOE_JOIN_INNER;
                j->est_rows = step_est[k];
            }
        }
        /* Column i of the written order is column map[i] of the new one. */
        int32_t *map = floe_calloc((size_t)n_cols + 1, sizeof *map);
        if (!st && !map) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "ordering joins");
        for (int32_t k = 0, at = 0; !st && k < n; k++) {
            const join_leaf *lf = &leaves[order[k]];
            for (int32_t i = 0; i < lf->n; i++) map[lf->offset + i] = at + i;
            at += lf->n;
        }
        if (!st) {
            floe_lplan *in[1] = {tree};
            st = floe_lplan_new(FLOE_L_PROJECT, out_schema, in, 1, &proj); /* owns tree, even on failure */
            tree = NULL;
        }
        if (!st && (!(proj->exprs = floe_calloc((size_t)n_cols, sizeof *proj->exprs)) ||
                    !(proj->names = floe_calloc((size_t)n_cols, sizeof *proj->names))))
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "ordering joins");
        for (int32_t i = 0; !st && i < n_cols; i++) {
            st = floe_expr_column(map[i], &proj->exprs[i]);
            proj->n_exprs = i + 1;
            if (!st && !(proj->names[i] = floe_strdup(floe_schema_field(proj->schema, i)->name)))
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "ordering joins");
        }
        floe_free(map);
        for (int32_t i = 0; !st && i < own.n; i++) st = conj_add(c, own.v[i]);
        if (st) {
            floe_lplan_free(proj);
            floe_lplan_free(tree);
            proj = NULL;
        }
        *slot = proj; /* NULL after a failure: the caller frees nothing more */
        *changed_out = true;
    }
    if (st && changed && !*slot) {
        for (int32_t i = 0; i < n; i++) floe_lplan_free(leaves[i].plan);
    }
    floe_type_release(out_schema);
    conj_free(&all);
    conj_free(&own);
    floe_free(est);
    floe_free(step_est);
    floe_free(try_order);
    floe_free(try_est);
    floe_free(leaves);
    floe_free(order);
    floe_free(set);
    floe_free(only_x);
    floe_free(used);
    return st;
}

/* Optimize the subtree at *slot: every FILTER pushes its conjuncts. */
static floe_status push_filters(floe_lplan **slot) {
    floe_lplan *p = *slot;
    if (p->kind == FLOE_L_FILTER) {
        conj_list c = {0};
        FLOE_TRY(conj_add(&c, p->predicate));
        floe_lplan *child = p->inputs[0];
        p->inputs[0] = NULL;
        p->n_inputs = 0;
        floe_lplan_free(p);
        *slot = child;
        if (is_plain_inner(child)) {
            bool changed = false; /* either way the conjuncts go down from here */
            floe_status st = reorder_joins(slot, &c, &changed);
            if (st) {
                conj_free(&c);
                return st;
            }
        }
        return push_into(slot, &c);
    }
    if (is_plain_inner(p)) { /* conditions bound into the joins (keys, ON) count as well */
        conj_list own = {0};
        bool changed = false;
        floe_status st = reorder_joins(slot, &own, &changed);
        if (st) {
            conj_free(&own);
            return st;
        }
        if (changed) return push_into(slot, &own);
    }
    if (p->kind == FLOE_L_JOIN && p->predicate) {
        conj_list none = {0};
        return push_join(slot, &none);
    }
    for (int32_t i = 0; i < p->n_inputs; i++) FLOE_TRY(push_filters(&p->inputs[i]));
    return NULL;
}

/* ------------------------------------------------------- limit pushdown */

static floe_status push_limits(floe_lplan *p) {
    for (int32_t i = 0; i < p->n_inputs; i++) FLOE_TRY(push_limits(p->inputs[i]));
    if (p->kind != FLOE_L_LIMIT || p->fetch < 0) return NULL;
    floe_lplan *child = p->inputs[0];
    int64_t need = p->offset + p->fetch;
    if (child->kind == FLOE_L_SORT) {
        if (child->fetch < 0 || child->fetch > need) child->fetch = need;
    } else if (child->kind == FLOE_L_UNION) {
        /* Each input needs at most offset + fetch rows. */
        for (int32_t i = 0; i < child->n_inputs; i++) {
            floe_lplan *in = child->inputs[i];
            if (in->kind == FLOE_L_LIMIT && in->offset == 0 && in->fetch >= 0 && in->fetch <= need) continue;
            floe_lplan *lim;
            FLOE_TRY(floe_lplan_new(FLOE_L_LIMIT, in->schema, &in, 1, &lim));
            lim->offset = 0;
            lim->fetch = need;
            child->inputs[i] = lim;
        }
    }
    return NULL;
}

/* ------------------------------------------------- projection pushdown */

/* Keep only the output columns marked in `required` (ncols(p) entries) —
 * a node may keep more — and fill map[old] = new index or -1. */
static floe_status prune(floe_lplan *p, const bool *required, int32_t *map);

static floe_status prune_all(floe_lplan *p) {
    int32_t n = ncols(p);
    bool *req = floe_calloc((size_t)(n ? n : 1), sizeof *req);
    int32_t *map = floe_calloc((size_t)(n ? n : 1), sizeof *map);
    floe_status st = (req && map) ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
    for (int32_t i = 0; i < n && !st; i++) req[i] = true;
    if (!st) st = prune(p, req, map);
    floe_free(req);
    floe_free(map);
    return st;
}

static floe_status remap_list(floe_expr **es, int32_t n, const int32_t *map) {
    for (int32_t i = 0; i < n; i++) {
        if (!es[i]) continue;
        floe_expr *r;
        FLOE_TRY(floe_sqlx_remap(es[i], map, &r));
        floe_expr_release(es[i]);
        es[i] = r;
    }
    return NULL;
}

/* Prune the single input of `p` to the columns `p`'s expressions and the
 * required outputs read; remap p's expressions; `pass_through` nodes
 * (FILTER, SORT, LIMIT) output their input's columns. */
static floe_status prune_unary(floe_lplan *p, const bool *required, int32_t *map, bool pass_through) {
    floe_lplan *in = p->inputs[0];
    int32_t n_in = ncols(in);
    bool *need = floe_calloc((size_t)(n_in ? n_in : 1), sizeof *need);
    int32_t *cmap = floe_calloc((size_t)(n_in ? n_in : 1), sizeof *cmap);
    floe_status st = (need && cmap) ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
    if (!st) {
        if (pass_through)
            for (int32_t i = 0; i < n_in; i++) need[i] = required[i];
        if (p->predicate) floe_sqlx_columns(p->predicate, need);
        for (int32_t i = 0; i < p->n_sort_keys; i++) floe_sqlx_columns(p->sort_keys[i].expr, need);
        st = prune(in, need, cmap);
    }
    if (!st) st = remap_list(&p->predicate, 1, cmap);
    for (int32_t i = 0; !st && i < p->n_sort_keys; i++) st = remap_list(&p->sort_keys[i].expr, 1, cmap);
    if (!st && pass_through) {
        for (int32_t i = 0; i < n_in; i++) map[i] = cmap[i];
        floe_type_release(p->schema);
        p->schema = floe_type_retain(in->schema);
    }
    floe_free(need);
    floe_free(cmap);
    return st;
}

/* WINDOW: its input keeps the columns the outputs and the window calls
 * read; every call stays (its column follows the input's).  UNNEST and
 * SERIES_APPLY have the same shape: the input's columns ++ their own,
 * computed from exprs. */
static floe_status prune_window(floe_lplan *p, const bool *required, int32_t *map) {
    floe_lplan *in = p->inputs[0];
    int32_t n_in = ncols(in), n = ncols(p);
    bool *need = floe_calloc((size_t)(n_in ? n_in : 1), sizeof *need);
    int32_t *cmap = floe_calloc((size_t)(n_in ? n_in : 1), sizeof *cmap);
    floe_field *f = floe_calloc((size_t)(n ? n : 1), sizeof *f);
    floe_status st = (need && cmap && f) ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
    for (int32_t i = 0; !st && i < n_in; i++) need[i] = required[i];
    for (int32_t i = 0; !st && i < p->n_wpart; i++) floe_sqlx_columns(p->wpart[i], need);
    for (int32_t i = 0; !st && i < p->n_worder; i++) floe_sqlx_columns(p->worder[i].expr, need);
    for (int32_t i = 0; !st && i < p->n_wcalls; i++)
    {
        for (int32_t k = 0; k < p->wcalls[i].n_args; k++) floe_sqlx_columns(p->wcalls[i].args[k], need);
        if (p->wcalls[i].filter) floe_sqlx_columns(p->wcalls[i].filter, need);
    }
    for (int32_t i = 0; !st && i < p->n_exprs; i++) floe_sqlx_columns(p->exprs[i], need);
    if (!st) st = prune(in, need, cmap);
    if (!st) st = remap_list(p->exprs, p->n_exprs, cmap);
    if (!st) st = remap_list(p->wpart, p->n_wpart, cmap);
    for (int32_t i = 0; !st && i < p->n_worder; i++) st = remap_list(&p->worder[i].expr, 1, cmap);
    for (int32_t i = 0; !st && i < p->n_wcalls; i++) {
        st = remap_list(p->wcalls[i].args, p->wcalls[i].n_args, cmap);
        if (!st && p->wcalls[i].filter) st = remap_list(&p->wcalls[i].filter, 1, cmap);
    }
    int32_t nn = 0;
    floe_schema *ns = NULL;
    if (!st) {
        int32_t new_in = ncols(in);
        for (int32_t i = 0; !st && i < new_in; i++) {
            st = floe_field_copy(&f[nn++], floe_schema_field(in->schema, i));
            if (!st && p->unnest_outer) f[nn - 1].nullable = true; /* NULLs for empty lists */
        }
        for (int32_t i = n_in; !st && i < n; i++) st = floe_field_copy(&f[nn++], floe_schema_field(p->schema, i));
        if (!st) st = floe_type_struct(f, nn, &ns);
        for (int32_t i = 0; !st && i < n; i++) map[i] = i < n_in ? cmap[i] : new_in + (i - n_in);
    }
    if (!st) {
        floe_type_release(p->schema);
        p->schema = ns;
    }
    for (int32_t i = 0; f && i < nn; i++) floe_field_clear(&f[i]);
    floe_free(f);
    floe_free(need);
    floe_free(cmap);
    return st;
}

static floe_status prune(floe_lplan *p, const bool *required, int32_t *map) {
    int32_t n = ncols(p);
    for (int32_t i = 0; i < n; i++) map[i] = i;
    switch (p->kind) {
    case FLOE_L_FILTER:
    case FLOE_L_SORT:
    case FLOE_L_LIMIT:
        return prune_unary(p, required, map, true);
    case FLOE_L_WINDOW:
    case FLOE_L_UNNEST:
    case FLOE_L_SERIES_APPLY:
        return prune_window(p, required, map);
    case FLOE_L_DISTINCT:
    case FLOE_L_UNION:
        /* Every column decides which rows are distinct; a union keeps its
         * inputs aligned. */
        for (int32_t i = 0; i < p->n_inputs; i++) FLOE_TRY(prune_all(p->inputs[i]));
        return NULL;
    case FLOE_L_PROJECT: {
        int32_t *keep = floe_calloc((size_t)(n ? n : 1), sizeof *keep);
        if (!keep) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
        int32_t k = 0;
        for (int32_t i = 0; i < n; i++)
            if (required[i]) keep[k++] = i;
        if (k == 0 && n > 0) keep[k++] = 0; /* a row needs a column */
        floe_lplan *in = p->inputs[0];
        int32_t n_in = ncols(in);
        bool *need = floe_calloc((size_t)(n_in ? n_in : 1), sizeof *need);
        int32_t *cmap = floe_calloc((size_t)(n_in ? n_in : 1), sizeof *cmap);
        floe_status st = (need && cmap) ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
        for (int32_t i = 0; !st && i < k; i++) floe_sqlx_columns(p->exprs[keep[i]], need);
        if (!st) st = prune(in, need, cmap);
        floe_schema *ns = NULL;
        if (!st) st = floe_sqlo_schema_select(p->schema, keep, k, &ns);
        if (!st) {
            for (int32_t i = 0; i < n; i++) map[i] = -1;
            floe_expr **ne = floe_calloc((size_t)(k ? k : 1), sizeof *ne);
            char **nn = floe_calloc((size_t)(k ? k : 1), sizeof *nn);
            if (!ne || !nn) {
                floe_free(ne);
                floe_free(nn);
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
            } else {
                for (int32_t i = 0; i < k && !st; i++) {
                    st = floe_sqlx_remap(p->exprs[keep[i]], cmap, &ne[i]);
                    nn[i] = p->names[keep[i]];
                    p->names[keep[i]] = NULL;
                    map[keep[i]] = i;
                }
                for (int32_t i = 0; i < p->n_exprs; i++) {
                    floe_expr_release(p->exprs[i]);
                    floe_free(p->names[i]);
                }
                floe_free(p->exprs);
                floe_free(p->names);
                p->exprs = ne;
                p->names = nn;
                p->n_exprs = k;
                floe_type_release(p->schema);
                p->schema = ns;
                ns = NULL;
            }
        }
        floe_type_release(ns);
        floe_free(keep);
        floe_free(need);
        floe_free(cmap);
        return st;
    }
    case FLOE_L_AGGREGATE: {
        /* Group keys always stay (they define the groups); unread
         * aggregates go. */
        int32_t g = p->n_exprs;
        int32_t *keep = floe_calloc((size_t)(n ? n : 1), sizeof *keep);
        if (!keep) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
        int32_t k = 0;
        for (int32_t i = 0; i < n; i++)
            if (i < g || required[i]) keep[k++] = i;
        if (k == 0 && n > 0) keep[k++] = g; /* a global aggregate: keep one */
        floe_lplan *in = p->inputs[0];
        int32_t n_in = ncols(in);
        bool *need = floe_calloc((size_t)(n_in ? n_in : 1), sizeof *need);
        int32_t *cmap = floe_calloc((size_t)(n_in ? n_in : 1), sizeof *cmap);
        floe_status st = (need && cmap) ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
        for (int32_t i = 0; !st && i < g; i++) floe_sqlx_columns(p->exprs[i], need);
        for (int32_t i = 0; !st && i < k; i++)
            if (keep[i] >= g) {
                floe_agg_call *a = &p->aggs[keep[i] - g];
                if (a->arg) floe_sqlx_columns(a->arg, need);
                if (a->arg2) floe_sqlx_columns(a->arg2, need);
                if (a->filter) floe_sqlx_columns(a->filter, need);
                for (int32_t o = 0; o < a->n_order; o++) floe_sqlx_columns(a->order[o].expr, need);
            }
        if (!st) st = prune(in, need, cmap);
        if (!st) st = remap_list(p->exprs, g, cmap);
        floe_schema *ns = NULL;
        if (!st) st = floe_sqlo_schema_select(p->schema, keep, k, &ns);
        if (!st) {
            int32_t na = 0;
            for (int32_t i = 0; i < n; i++) map[i] = -1;
            for (int32_t i = 0; i < k; i++) map[keep[i]] = i;
            /* keep[] ascends, so moving kept calls down never overwrites
             * one not yet visited. */
            for (int32_t i = 0; i < p->n_aggs; i++) {
                if (map[g + i] >= 0) {
                    p->aggs[na++] = p->aggs[i];
                } else {
                    floe_agg_call_clear(&p->aggs[i]);
                }
            }
            p->n_aggs = na;
            for (int32_t i = 0; !st && i < na; i++) {
                floe_agg_call *a = &p->aggs[i];
                if (a->arg) st = remap_list(&a->arg, 1, cmap);
                if (!st && a->arg2) st = remap_list(&a->arg2, 1, cmap);
                if (!st && a->filter) st = remap_list(&a->filter, 1, cmap);
                for (int32_t o = 0; !st && o < a->n_order; o++) st = remap_list(&a->order[o].expr, 1, cmap);
            }
            floe_type_release(p->schema);
            p->schema = ns;
            ns = NULL;
        }
        floe_type_release(ns);
        floe_free(keep);
        floe_free(need);
        floe_free(cmap);
        return st;
    }
    case FLOE_L_EXPAND: {
        /* Every output stays (the binder made only what the aggregate
         * above reads); the input keeps what the expressions read. */
        floe_lplan *in = p->inputs[0];
        int32_t n_in = ncols(in);
        bool *need = floe_calloc((size_t)(n_in ? n_in : 1), sizeof *need);
        int32_t *cmap = floe_calloc((size_t)(n_in ? n_in : 1), sizeof *cmap);
        floe_status st = (need && cmap) ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
        for (int32_t i = 0; !st && i < p->n_exprs; i++) floe_sqlx_columns(p->exprs[i], need);
        if (!st) st = prune(in, need, cmap);
        if (!st) st = remap_list(p->exprs, p->n_exprs, cmap);
        floe_free(need);
        floe_free(cmap);
        return st;
    }
    case FLOE_L_JOIN: {
        floe_lplan *l = p->inputs[0], *r = p->inputs[1];
        int32_t nl = ncols(l), nr = ncols(r);
        bool *need = floe_calloc((size_t)(nl + nr + 1), sizeof *need);
        int32_t *cmap = floe_calloc((size_t)(nl + nr + 1), sizeof *cmap);
        floe_status st = (need && cmap) ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
        bool left_only = p->join_type == FLOE_JOIN_LEFT_SEMI || p->join_type == FLOE_JOIN_LEFT_ANTI;
        bool right_only = p->join_type == FLOE_JOIN_RIGHT_SEMI || p->join_type == FLOE_JOIN_RIGHT_ANTI;
        if (!st) {
            if (left_only) for (int32_t i = 0; i < nl; i++) need[i] = required[i];
            else if (right_only) for (int32_t i = 0; i < nr; i++) need[nl + i] = required[i];
            else for (int32_t i = 0; i < nl + nr; i++) need[i] = required[i];
            if (p->predicate) floe_sqlx_columns(p->predicate, need);
            for (int32_t i = 0; i < p->n_keys; i++) {
                floe_sqlx_columns(p->left_keys[i], need);
                floe_sqlx_columns(p->right_keys[i], need + nl);
            }
            st = prune(l, need, cmap);
        }
        if (!st) st = prune(r, need + nl, cmap + nl);
        int32_t new_nl = l ? ncols(l) : 0;
        if (!st) {
            for (int32_t i = 0; i < nr; i++)
                if (cmap[nl + i] >= 0) cmap[nl + i] += new_nl;
            st = remap_list(&p->predicate, 1, cmap);
        }
        if (!st) st = remap_list(p->left_keys, p->n_keys, cmap);
        if (!st) {
            /* Right keys are over the right side's own columns. */
            for (int32_t i = 0; i < nr; i++)
                if (cmap[nl + i] >= 0) cmap[nl + i] -= new_nl;
            st = remap_list(p->right_keys, p->n_keys, cmap + nl);
            for (int32_t i = 0; i < nr; i++)
                if (cmap[nl + i] >= 0) cmap[nl + i] += new_nl;
        }
        floe_schema *ns = NULL;
        if (!st) st = floe_join_output_schema(l->schema, r->schema, p->join_type, &ns);
        if (!st) {
            if (left_only) for (int32_t i = 0; i < nl; i++) map[i] = cmap[i];
            else if (right_only) for (int32_t i = 0; i < nr; i++) map[i] = cmap[nl + i] >= 0 ? cmap[nl + i] - new_nl : -1;
            else for (int32_t i = 0; i < nl + nr; i++) map[i] = cmap[i];
            floe_type_release(p->schema);
            p->schema = ns;
        }
        floe_free(need);
        floe_free(cmap);
        return st;
    }
    case FLOE_L_ICEBERG_SCAN: {
        /* The pushed filter is by name; the scan reads its columns itself. */
        int32_t *keep = floe_calloc((size_t)(n ? n : 1), sizeof *keep);
        if (!keep) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
        int32_t k = 0;
        for (int32_t i = 0; i < n; i++)
            if (required[i]) keep[k++] = i;
        if (k == 0 && n > 0) keep[k++] = floe_sqlo_cheapest_column(p->schema);
        floe_schema *ns = NULL;
        floe_status st = floe_sqlo_schema_select(p->schema, keep, k, &ns);
        if (!st) {
            for (int32_t i = 0; i < n; i++) map[i] = -1;
            for (int32_t i = 0; i < k; i++) {
                map[keep[i]] = i;
                p->field_ids[i] = p->field_ids[keep[i]];
            }
            p->n_field_ids = k;
            floe_type_release(p->schema);
            p->schema = ns;
        }
        floe_free(keep);
        return st;
    }
    case FLOE_L_PARQUET_SCAN: {
        int32_t *keep = floe_calloc((size_t)(n ? n : 1), sizeof *keep);
        if (!keep) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
        int32_t k = 0;
        for (int32_t i = 0; i < n; i++)
            if (required[i]) keep[k++] = i;
        if (k == 0 && n > 0) keep[k++] = floe_sqlo_cheapest_column(p->schema);
        floe_status st = NULL;
        if (k < n) {
            /* The pruning predicate (if any) is over the old columns. */
            floe_expr *prune_pred = NULL;
            const floe_expr *old = floe_parquet_scan_prune(p->physical);
            int32_t *pmap = floe_calloc((size_t)n, sizeof *pmap);
            if (!pmap) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
            for (int32_t i = 0; !st && i < n; i++) pmap[i] = -1;
            for (int32_t i = 0; !st && i < k; i++) pmap[keep[i]] = i;
            if (!st && old) {
                bool *used = floe_calloc((size_t)n, sizeof *used);
                if (!used) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning columns");
                else {
                    floe_sqlx_columns(old, used);
                    bool all_kept = true;
                    for (int32_t i = 0; i < n; i++)
                        if (used[i] && pmap[i] < 0) all_kept = false;
                    if (all_kept) st = floe_sqlx_remap(old, pmap, &prune_pred);
                    floe_free(used);
                }
            }
            floe_plan *np = NULL;
            if (!st) st = floe_parquet_scan_project(p->physical, keep, k, prune_pred, &np);
            floe_expr_release(prune_pred);
            if (!st) {
                for (int32_t i = 0; i < n; i++) map[i] = pmap[i];
                floe_plan_release(p->physical);
                p->physical = np;
                floe_type_release(p->schema);
                p->schema = floe_type_retain((floe_schema *)floe_plan_schema(np));
            }
            floe_free(pmap);
        }
        floe_free(keep);
        return st;
    }
    default:
        /* Leaves that produce what they produce (series, VALUES, metadata). */
        for (int32_t i = 0; i < p->n_inputs; i++) FLOE_TRY(prune_all(p->inputs[i]));
        return NULL;
    }
}

/* The narrowest column to read when a query needs rows but no values. */
int32_t floe_sqlo_cheapest_column(const floe_schema *s) {
    int32_t best = 0, best_w = 1 << 30;
    for (int32_t i = 0; i < floe_schema_num_fields(s); i++) {
        const floe_type *t = floe_schema_field(s, i)->type;
        int32_t w = t->byte_width > 0 ? t->byte_width : (t->id == FLOE_TYPE_BOOL ? 1 : 64);
        if (floe_type_is_nested(t)) w = 256;
        if (w < best_w) {
            best_w = w;
            best = i;
        }
    }
    return best;
}

/* ---------------------------------------------------------------- entry */

double floe_sqlo_estimate_rows(const floe_lplan *p) { return base_rows(p); }

floe_status floe_sql_optimize(floe_lplan **plan, const floe_sql_options *opts) {
    (void)opts;
    FLOE_TRY_CTX(floe_sqlo_apply_session_zone(*plan), "applying the session time zone");
    FLOE_TRY_CTX(fold_plan(*plan), "constant folding");
    FLOE_TRY_CTX(push_filters(plan), "filter pushdown");
    FLOE_TRY_CTX(floe_sqlo_push_semi_joins(plan), "semi join pushdown");
    FLOE_TRY_CTX(push_limits(*plan), "limit pushdown");
    FLOE_TRY_CTX(floe_sqlo_push_into_scans(plan), "scan pushdown");
    FLOE_TRY_CTX(prune_all(*plan), "projection pushdown");
    return NULL;
}

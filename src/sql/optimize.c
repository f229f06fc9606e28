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
    for (int32_t i = 0; i < p->n_aggs; i++)
        if (p->aggs[i].arg) FLOE_TRY(fold_list(&p->aggs[i].arg, 1, in));
    for (int32_t i = 0; i < p->n_sort_keys; i++) FLOE_TRY(fold_list(&p->sort_keys[i].expr, 1, in));
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
        if (!st) st = floe_sqlx_conjuncts(f, &c->v, &c->n, &c->cap);
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
                 * the join's own predicate. */
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
                    st = conj_add(&rest, on.v[i]);
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
        conj_list below = {0};
        for (int32_t i = 0; !st && i < c->n; i++) {
            floe_expr *s;
            if (!(st = floe_sqlx_substitute(c->v[i], p->exprs, p->n_exprs, &s))) {
                st = conj_add(&below, s);
                floe_expr_release(s);
            }
        }
        conj_free(c);
        if (!st) return push_into(&p->inputs[0], &below);
        conj_free(&below);
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
        return push_into(slot, &c);
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

static floe_status prune(floe_lplan *p, const bool *required, int32_t *map) {
    int32_t n = ncols(p);
    for (int32_t i = 0; i < n; i++) map[i] = i;
    switch (p->kind) {
    case FLOE_L_FILTER:
    case FLOE_L_SORT:
    case FLOE_L_LIMIT:
        return prune_unary(p, required, map, true);
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
            if (keep[i] >= g && p->aggs[keep[i] - g].arg) floe_sqlx_columns(p->aggs[keep[i] - g].arg, need);
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
                    floe_expr_release(p->aggs[i].arg);
                    floe_free(p->aggs[i].name);
                }
            }
            p->n_aggs = na;
            for (int32_t i = 0; !st && i < na; i++)
                if (p->aggs[i].arg) st = remap_list(&p->aggs[i].arg, 1, cmap);
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

floe_status floe_sql_optimize(floe_lplan **plan, const floe_sql_options *opts) {
    (void)opts;
    FLOE_TRY_CTX(fold_plan(*plan), "constant folding");
    FLOE_TRY_CTX(push_filters(plan), "filter pushdown");
    FLOE_TRY_CTX(push_limits(*plan), "limit pushdown");
    FLOE_TRY_CTX(floe_sqlo_push_into_scans(plan), "scan pushdown");
    FLOE_TRY_CTX(prune_all(*plan), "projection pushdown");
    return NULL;
}

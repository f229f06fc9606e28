/*
 * semi_pushdown.c — move a semi or anti join (IN / EXISTS / NOT EXISTS)
 * below the inner joins under it, onto the one input whose columns it
 * reads, when its subquery side is estimated smaller than that input.
 *
 * (A JOIN B) SEMI S on keys of A alone equals (A SEMI S) JOIN B: whether
 * a joined row survives depends on its A row only, and a semi or anti
 * join outputs its left rows unchanged, so the columns above stay where
 * they were.  TPC-H q18 keeps 57 of 1.5 million orders with
 * `o_orderkey IN (SELECT l_orderkey ... HAVING sum > 300)`: filtering the
 * orders before they meet customer and lineitem spares joining all 6
 * million lineitem rows first.  When the subquery is as large as the
 * input (q21's EXISTS over lineitem), the semi join removes little and
 * the joins above would shrink its input more, so it stays.
 *
 * Runs after filter pushdown and join ordering: the tree of inner joins
 * is final and keyed.  Projections of plain columns (the orderer puts one
 * over a reordered tree) are looked through.  NOT IN (null_aware) joins
 * stay where the binder put them.
 */
#include <string.h>

#include "sql/expr_util.h"
#include "sql/optimize_internal.h"

static int32_t ncols(const floe_lplan *p) { return floe_schema_num_fields(p->schema); }

static bool is_movable(const floe_lplan *p) {
    return p->kind == FLOE_L_JOIN && p->n_inputs == 2 && !p->null_aware && p->n_keys > 0 &&
           (p->join_type == FLOE_JOIN_LEFT_SEMI || p->join_type == FLOE_JOIN_LEFT_ANTI);
}

static bool plain_columns(const floe_lplan *p) {
    for (int32_t i = 0; i < p->n_exprs; i++)
        if (p->exprs[i]->kind != FLOE_EXPR_COLUMN) return false;
    return true;
}

/* Mark in `used` (size n) the columns below n that `e` reads. */
static void mark_columns(const floe_expr *e, int32_t n, bool *used) {
    if (!e) return;
    if (e->kind == FLOE_EXPR_COLUMN && e->column >= 0 && e->column < n) used[e->column] = true;
    for (int32_t i = 0; i < e->n_args; i++) mark_columns(e->args[i], n, used);
}

/* Follow the semi join's left columns (`map`: column i of j's left input
 * is column map[i] of *slot; `used` the ones it reads) down through inner
 * joins and column projections while they all come from one input.
 * Returns the slot of the deepest such input (the one to filter). */
static floe_lplan **descend(floe_lplan **slot, int32_t nl, int32_t *map, const bool *used) {
    for (;;) {
        floe_lplan *p = *slot;
        if (p->kind == FLOE_L_JOIN && p->join_type == FLOE_JOIN_INNER && !p->null_aware && p->n_inputs == 2) {
            int32_t split = ncols(p->inputs[0]);
            bool any_left = false, any_right = false;
            for (int32_t i = 0; i < nl; i++)
                if (used[i]) {
                    if (map[i] < split) any_left = true;
                    else any_right = true;
                }
            if (any_left && any_right) return slot;
            if (any_right)
                for (int32_t i = 0; i < nl; i++) map[i] -= split;
            slot = &p->inputs[any_right ? 1 : 0];
        } else if (p->kind == FLOE_L_PROJECT && p->n_inputs == 1 && plain_columns(p)) {
            for (int32_t i = 0; i < nl; i++)
                if (used[i]) map[i] = p->exprs[map[i]]->column;
            slot = &p->inputs[0];
        } else {
            return slot;
        }
    }
}

/* The keys and predicate of `j` with its left columns moved by `map`
 * onto a left input of nt columns. */
static floe_status move_join(floe_lplan *j, const int32_t *map, int32_t nt) {
    int32_t nl = ncols(j->inputs[0]), nr = ncols(j->inputs[1]);
    int32_t *full = floe_calloc((size_t)(nl + nr + 1), sizeof *full);
    if (!full) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "moving a semi join");
    for (int32_t i = 0; i < nl; i++) full[i] = map[i] >= 0 ? map[i] : 0;
    for (int32_t i = 0; i < nr; i++) full[nl + i] = nt + i;
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < j->n_keys; i++) {
        floe_expr *k = NULL;
        st = floe_sqlx_remap(j->left_keys[i], full, &k);
        if (!st) {
            floe_expr_release(j->left_keys[i]);
            j->left_keys[i] = k;
        }
    }
    if (!st && j->predicate) {
        floe_expr *e = NULL;
        st = floe_sqlx_remap(j->predicate, full, &e);
        if (!st) {
            floe_expr_release(j->predicate);
            j->predicate = e;
        }
    }
    floe_free(full);
    return st;
}

/* Try to move the semi/anti join at *slot down; on success *slot is its
 * former left input and the join sits on the chosen input below. */
static floe_status try_move(floe_lplan **slot) {
    floe_lplan *j = *slot;
    int32_t nl = ncols(j->inputs[0]);
    int32_t *map = floe_calloc((size_t)nl + 1, sizeof *map);
    bool *used = floe_calloc((size_t)nl + 1, sizeof *used);
    floe_status st = map && used ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "moving a semi join");
    if (!st) {
        for (int32_t i = 0; i < nl; i++) map[i] = i;
        for (int32_t i = 0; i < j->n_keys; i++) mark_columns(j->left_keys[i], nl, used);
        mark_columns(j->predicate, nl, used);
        for (int32_t i = 0; i < nl; i++)
            if (!used[i]) map[i] = -1;
        floe_lplan **target = descend(&j->inputs[0], nl, map, used);
        floe_lplan *t = *target;
        /* Worth it when the subquery side is smaller than the input it
         * would filter (its keys then cannot match most of that input). */
        if (target != &j->inputs[0] && floe_sqlo_estimate_rows(j->inputs[1]) < floe_sqlo_estimate_rows(t)) {
            st = move_join(j, map, ncols(t));
            floe_lplan *moved = NULL;
            if (!st) {
                st = floe_lplan_new(FLOE_L_JOIN, t->schema, (floe_lplan *[]){t, j->inputs[1]}, 2, &moved);
                if (st) { /* both inputs were freed with the failed node */
                    *target = NULL;
                    j->inputs[1] = NULL;
                }
            }
            if (!st) {
                /* the new node owns t and the subquery side now */
                moved->join_type = j->join_type;
                moved->predicate = j->predicate;
                moved->n_keys = j->n_keys;
                moved->left_keys = j->left_keys;
                moved->right_keys = j->right_keys;
                j->predicate = NULL;
                j->n_keys = 0;
                j->left_keys = j->right_keys = NULL;
                *target = moved;
                *slot = j->inputs[0];
                j->inputs[0] = j->inputs[1] = NULL;
                j->n_inputs = 0;
                floe_lplan_free(j);
            }
        }
    }
    floe_free(map);
    floe_free(used);
    return st;
}

floe_status floe_sqlo_push_semi_joins(floe_lplan **slot) {
    /* Inputs first (a subquery has joins of its own), then this node.  A
     * moved join lands on an input already visited and is not visited
     * again. */
    floe_lplan *p = *slot;
    for (int32_t i = 0; i < p->n_inputs; i++)
        if (p->inputs[i]) FLOE_TRY(floe_sqlo_push_semi_joins(&p->inputs[i]));
    if (!is_movable(p)) return NULL;
    return try_move(slot);
}

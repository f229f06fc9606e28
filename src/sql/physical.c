/*
 * physical.c — the physical planner: a logical plan becomes a tree of
 * floe_plan nodes that runs on target_partitions partitions.
 *
 *   scans          split into at most target_partitions partitions (the
 *                  Iceberg scan plans its task groups here, once);
 *   aggregates     PARTIAL per input partition → Repartition(hash on the
 *                  group keys) → FINAL; without group keys the partials
 *                  are coalesced into one FINAL; DISTINCT calls aggregate
 *                  in one step after the repartition;
 *   DISTINCT       an aggregate with every column as a key;
 *   sorts          Sort (top-N with a fetch) per partition, then a
 *                  SortPreservingMerge into one;
 *   limits         a per-partition limit of offset + fetch, coalesce, then
 *                  the real limit;
 *   joins          hash joins build the smaller side (by plan-time row
 *                  estimates) once and probe it from every partition of
 *                  the other; no equi keys: nested loops;
 *   requirements   last, every node gets the input distribution and
 *                  ordering it declares (floe_plan_required_input /
 *                  _required_ordering): a Repartition, Coalesce or Sort
 *                  is put below it where the input does not already
 *                  provide it (floe_sql_enforce_requirements).  No step
 *                  runs after this one, so nothing removes them.
 */
#include <string.h>

#include "base/buffer.h"
#include "floe/exec_ops.h"
#include "floe/exec_scan.h"
#include "sql/expr_util.h"
#include "sql/logical.h"
#include "sql/optimize_internal.h"

typedef struct phys_ctx {
    const floe_sql_options *opts;
} phys_ctx;

static floe_status plan_node(const phys_ctx *c, const floe_lplan *p, floe_plan **out);

static floe_status coalesce_if_needed(floe_plan *p, floe_plan **out) {
    if (floe_plan_partitions(p) == 1) {
        *out = floe_plan_retain(p);
        return NULL;
    }
    return floe_plan_coalesce(p, out);
}

static floe_status plan_aggregate(const phys_ctx *c, const floe_lplan *p, floe_plan *child, floe_plan **out) {
    int32_t g = p->n_exprs;
    bool any_distinct = false;
    for (int32_t i = 0; i < p->n_aggs; i++)
        if (floe_agg_call_needs_single(&p->aggs[i])) any_distinct = true; /* DISTINCT, ORDER BY, holistic */
    const char *const *names = (const char *const *)p->names;
    floe_status st = NULL;
    if (floe_plan_partitions(child) == 1) {
        return floe_plan_hash_aggregate(child, FLOE_AGG_MODE_SINGLE, p->exprs, names, g, p->aggs, p->n_aggs, NULL,
                                        out);
    }
    if (any_distinct) {
        /* Every row of a group must meet in one place before DISTINCT
         * can be decided. */
        floe_plan *moved = NULL;
        if (g > 0)
            st = floe_plan_repartition(child, FLOE_REPARTITION_HASH, p->exprs, g, c->opts->target_partitions,
                                       &moved);
        else
            st = floe_plan_coalesce(child, &moved);
        if (!st)
            st = floe_plan_hash_aggregate(moved, FLOE_AGG_MODE_SINGLE, p->exprs, names, g, p->aggs, p->n_aggs,
                                          NULL, out);
        floe_plan_release(moved);
        return st;
    }
    floe_plan *partial = NULL, *moved = NULL;
    st = floe_plan_hash_aggregate(child, FLOE_AGG_MODE_PARTIAL, p->exprs, names, g, p->aggs, p->n_aggs, NULL,
                                  &partial);
    if (!st) {
        if (g > 0) {
            floe_expr **keys = floe_calloc((size_t)g, sizeof *keys);
            if (!keys) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning an aggregate");
            for (int32_t i = 0; !st && i < g; i++) st = floe_expr_column(i, &keys[i]);
            if (!st)
                st = floe_plan_repartition(partial, FLOE_REPARTITION_HASH, keys, g, c->opts->target_partitions,
                                           &moved);
            for (int32_t i = 0; keys && i < g; i++) floe_expr_release(keys[i]);
            floe_free(keys);
        } else {
            st = floe_plan_coalesce(partial, &moved);
        }
    }
    if (!st)
        st = floe_plan_hash_aggregate(moved, FLOE_AGG_MODE_FINAL, p->exprs, names, g, p->aggs, p->n_aggs,
                                      child->schema, out);
    floe_plan_release(partial);
    floe_plan_release(moved);
    return st;
}

static floe_status plan_distinct(const phys_ctx *c, const floe_lplan *p, floe_plan *child, floe_plan **out) {
    floe_lplan fake = *p;
    int32_t n = floe_schema_num_fields(child->schema);
    floe_expr **keys = floe_calloc((size_t)(n ? n : 1), sizeof *keys);
    char **names = floe_calloc((size_t)(n ? n : 1), sizeof *names);
    floe_status st = (keys && names) ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning DISTINCT");
    for (int32_t i = 0; !st && i < n; i++) {
        st = floe_expr_column(i, &keys[i]);
        names[i] = floe_schema_field(child->schema, i)->name;
    }
    if (!st) {
        fake.n_exprs = n;
        fake.exprs = keys;
        fake.names = names;
        fake.n_aggs = 0;
        fake.aggs = NULL;
        st = plan_aggregate(c, &fake, child, out);
    }
    for (int32_t i = 0; keys && i < n; i++) floe_expr_release(keys[i]);
    floe_free(keys);
    floe_free(names);
    return st;
}

static floe_status plan_sort(const floe_lplan *p, floe_plan *child, floe_plan **out) {
    floe_plan *sorted = NULL;
    FLOE_TRY(floe_plan_sort(child, p->sort_keys, p->n_sort_keys, p->fetch, &sorted));
    if (floe_plan_partitions(sorted) == 1) {
        *out = sorted;
        return NULL;
    }
    floe_status st = floe_plan_sort_merge(sorted, p->sort_keys, p->n_sort_keys, p->fetch, out);
    floe_plan_release(sorted);
    return st;
}

static floe_status plan_limit(const floe_lplan *p, floe_plan *child, floe_plan **out) {
    if (floe_plan_partitions(child) == 1) return floe_plan_limit(child, p->offset, p->fetch, out);
    floe_plan *local = NULL, *merged = NULL;
    floe_status st = NULL;
    if (p->fetch >= 0) st = floe_plan_limit(child, 0, p->offset + p->fetch, &local);
    else local = floe_plan_retain(child);
    if (!st) st = floe_plan_coalesce(local, &merged);
    if (!st) st = floe_plan_limit(merged, p->offset, p->fetch, out);
    floe_plan_release(local);
    floe_plan_release(merged);
    return st;
}

/* The join with sides swapped: the type seen from the other side. */
static floe_join_type mirror(floe_join_type t) {
    switch (t) {
    case FLOE_JOIN_LEFT: return FLOE_JOIN_RIGHT;
    case FLOE_JOIN_RIGHT: return FLOE_JOIN_LEFT;
    case FLOE_JOIN_LEFT_SEMI: return FLOE_JOIN_RIGHT_SEMI;
    case FLOE_JOIN_LEFT_ANTI: return FLOE_JOIN_RIGHT_ANTI;
    case FLOE_JOIN_RIGHT_SEMI: return FLOE_JOIN_LEFT_SEMI;
    case FLOE_JOIN_RIGHT_ANTI: return FLOE_JOIN_LEFT_ANTI;
    default: return t;
    }
}

/* A filter over left ++ right rewritten for right ++ left. */
static floe_status swap_sides(const floe_expr *e, int32_t nl, int32_t nr, floe_expr **out) {
    *out = NULL;
    if (!e) return NULL;
    int32_t *map = floe_calloc((size_t)(nl + nr + 1), sizeof *map);
    if (!map) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a join");
    for (int32_t i = 0; i < nl; i++) map[i] = nr + i;
    for (int32_t i = 0; i < nr; i++) map[nl + i] = i;
    floe_status st = floe_sqlx_remap(e, map, out);
    floe_free(map);
    return st;
}

/* Make key pairs comparable where the join cannot: HashJoin itself
 * matches ints, floats and decimals of different widths and scales
 * exactly; a date against a timestamp is compared as timestamps. */
static floe_status align_keys(floe_expr **lk, floe_expr **rk, int32_t n, const floe_schema *ls,
                              const floe_schema *rs) {
    for (int32_t i = 0; i < n; i++) {
        floe_type *lt = NULL, *rt = NULL;
        floe_status st = floe_expr_type(lk[i], ls, &lt);
        if (!st) st = floe_expr_type(rk[i], rs, &rt);
        if (!st) {
            floe_type_id a = lt->id, b = rt->id;
            floe_expr **side = NULL;
            floe_type_id to = FLOE_TYPE_NULL;
            if (a == FLOE_TYPE_DATE32 && (b == FLOE_TYPE_TIMESTAMP_US || b == FLOE_TYPE_TIMESTAMP_NS)) {
                side = &lk[i];
                to = b;
            } else if (b == FLOE_TYPE_DATE32 && (a == FLOE_TYPE_TIMESTAMP_US || a == FLOE_TYPE_TIMESTAMP_NS)) {
                side = &rk[i];
                to = a;
            }
            if (side) {
                floe_expr *c = NULL;
                st = floe_expr_cast(*side, floe_type_primitive(to), &c);
                if (!st) {
                    floe_expr_release(*side);
                    *side = c;
                }
            }
        }
        floe_type_release(lt);
        floe_type_release(rt);
        if (st) return st;
    }
    return NULL;
}

/* The join orderer's row estimate for a logical input, carried through
 * what keeps the row count (projections) or bounds it by one side (semi
 * and anti joins: EXISTS / NOT EXISTS over an ordered join); 0: none. */
static double logical_estimate(const floe_lplan *l) {
    if (l->est_rows > 0) return l->est_rows;
    if (l->kind == FLOE_L_PROJECT && l->n_inputs == 1) return logical_estimate(l->inputs[0]);
    if (l->kind == FLOE_L_JOIN && l->n_inputs == 2) {
        switch (l->join_type) {
        case FLOE_JOIN_LEFT_SEMI:
        case FLOE_JOIN_LEFT_ANTI: return logical_estimate(l->inputs[0]);
        case FLOE_JOIN_RIGHT_SEMI:
        case FLOE_JOIN_RIGHT_ANTI: return logical_estimate(l->inputs[1]);
        default: break;
        }
    }
    return 0;
}

static floe_status plan_join(const floe_lplan *p, floe_plan *left, floe_plan *right, floe_plan **out) {
    if (p->n_keys == 0) {
        /* The collected (left) side of a nested loop should be the small
         * one, but swapping is only worth it for inner joins. */
        return floe_plan_nested_loop_join(left, right, p->join_type, p->predicate, out);
    }
    int32_t n = p->n_keys;
    floe_expr **lk = floe_calloc((size_t)n, sizeof *lk), **rk = floe_calloc((size_t)n, sizeof *rk);
    floe_status st = (lk && rk) ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a join");
    for (int32_t i = 0; !st && i < n; i++) {
        lk[i] = floe_expr_retain(p->left_keys[i]);
        rk[i] = floe_expr_retain(p->right_keys[i]);
    }
    if (!st) st = align_keys(lk, rk, n, left->schema, right->schema);
    /* Build the smaller side: the left child is the build side.  A join
     * the join orderer made carries its estimate; others get the same
     * estimator's figure for their input. */
    double el = logical_estimate(p->inputs[0]), er = logical_estimate(p->inputs[1]);
    if (el <= 0) el = floe_sqlo_estimate_rows(p->inputs[0]);
    if (er <= 0) er = floe_sqlo_estimate_rows(p->inputs[1]);
    bool swap = !st && el > 2 * er && !p->null_aware;
    floe_plan *j = NULL;
    if (!st && !swap) {
        st = floe_plan_hash_join(left, right, p->join_type, FLOE_JOIN_COLLECT_LEFT, lk, rk, n, p->predicate,
                                 p->null_equals_null, p->null_aware, &j);
    } else if (!st) {
        int32_t nl = floe_schema_num_fields(left->schema), nr = floe_schema_num_fields(right->schema);
        floe_expr *filter = NULL;
        st = swap_sides(p->predicate, nl, nr, &filter);
        if (!st)
            st = floe_plan_hash_join(right, left, mirror(p->join_type), FLOE_JOIN_COLLECT_LEFT, rk, lk, n, filter,
                                     p->null_equals_null, false, &j);
        floe_expr_release(filter);
        bool one_side = p->join_type == FLOE_JOIN_LEFT_SEMI || p->join_type == FLOE_JOIN_LEFT_ANTI ||
                        p->join_type == FLOE_JOIN_RIGHT_SEMI || p->join_type == FLOE_JOIN_RIGHT_ANTI;
        if (!st && !one_side) {
            /* Put the columns back in left ++ right order. */
            floe_expr **cols = floe_calloc((size_t)(nl + nr), sizeof *cols);
            const char **names = floe_calloc((size_t)(nl + nr), sizeof *names);
            if (!cols || !names) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a join");
            for (int32_t i = 0; !st && i < nl + nr; i++) {
                int32_t from = i < nl ? nr + i : i - nl;
                st = floe_expr_column(from, &cols[i]);
                names[i] = floe_schema_field(j->schema, from)->name;
            }
            floe_plan *proj = NULL;
            if (!st) st = floe_plan_projection(j, cols, names, nl + nr, &proj);
            for (int32_t i = 0; cols && i < nl + nr; i++) floe_expr_release(cols[i]);
            floe_free(cols);
            floe_free(names);
            if (!st) {
                floe_plan_release(j);
                j = proj;
            }
        }
    }
    for (int32_t i = 0; i < n; i++) {
        if (lk) floe_expr_release(lk[i]);
        if (rk) floe_expr_release(rk[i]);
    }
    floe_free(lk);
    floe_free(rk);
    if (st) {
        floe_plan_release(j);
        return st;
    }
    *out = j;
    return NULL;
}

/* Window: every row of a window partition in one place — hash on the
 * PARTITION BY keys (no keys: one partition) — then the Window node,
 * which sorts each partition itself. */
static floe_status plan_window(const phys_ctx *c, const floe_lplan *p, floe_plan *child, floe_plan **out) {
    floe_plan *moved = NULL;
    floe_status st = NULL;
    if (floe_plan_partitions(child) == 1) moved = floe_plan_retain(child);
    else if (p->n_wpart > 0)
        st = floe_plan_repartition(child, FLOE_REPARTITION_HASH, p->wpart, p->n_wpart, c->opts->target_partitions,
                                   &moved);
    else
        st = floe_plan_coalesce(child, &moved);
    if (!st)
        st = floe_plan_window(moved, p->wpart, p->n_wpart, p->worder, p->n_worder, p->wcalls, p->n_wcalls, out);
    floe_plan_release(moved);
    return st;
}

/* WITH RECURSIVE: the non-recursive term as any plan, gathered; the
 * recursive term, re-run once per iteration, planned on one partition
 * (no exchanges to set up per run; the recursion is single-threaded, see
 * src/exec/basic/recursive.c) with its requirements given here, since
 * those of the whole plan are given for target_partitions. */
static floe_status plan_recursive_union(const phys_ctx *c, const floe_lplan *p, floe_plan **out) {
    floe_sql_options one = *c->opts;
    one.target_partitions = 1;
    phys_ctx c1 = {&one};
    floe_plan *anchor = NULL, *anchor1 = NULL, *rec_raw = NULL, *rec = NULL;
    floe_status st = plan_node(c, p->inputs[0], &anchor);
    if (!st) st = coalesce_if_needed(anchor, &anchor1);
    if (!st) st = plan_node(&c1, p->inputs[1], &rec_raw);
    if (!st) st = floe_sql_enforce_requirements(rec_raw, 1, &rec);
    if (!st)
        st = floe_plan_recursive_union(anchor1, rec, p->table_name, p->cte_distinct, p->cte_max_iterations, p->cte_key,
                                       out);
    floe_plan_release(anchor);
    floe_plan_release(anchor1);
    floe_plan_release(rec_raw);
    floe_plan_release(rec);
    return st;
}

static floe_status plan_node(const phys_ctx *c, const floe_lplan *p, floe_plan **out) {
    *out = NULL;
    floe_plan *kids[2] = {NULL, NULL};
    floe_plan **many = NULL;
    floe_status st = NULL;
    int32_t tp = c->opts->target_partitions > 0 ? c->opts->target_partitions : 1;
    if (p->kind == FLOE_L_UNION) {
        many = floe_calloc((size_t)(p->n_inputs ? p->n_inputs : 1), sizeof *many);
        if (!many) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a union");
        for (int32_t i = 0; !st && i < p->n_inputs; i++) st = plan_node(c, p->inputs[i], &many[i]);
        if (!st) st = floe_plan_union(many, p->n_inputs, out);
        for (int32_t i = 0; i < p->n_inputs; i++) floe_plan_release(many[i]);
        floe_free(many);
        return st;
    }
    if (p->kind == FLOE_L_RECURSIVE_UNION) return plan_recursive_union(c, p, out);
    for (int32_t i = 0; !st && i < p->n_inputs && i < 2; i++) st = plan_node(c, p->inputs[i], &kids[i]);
    if (st) goto done;
    switch (p->kind) {
    case FLOE_L_ICEBERG_SCAN:
        st = floe_iceberg_scan_new_files(p->table, &p->snapshot, p->field_ids, p->n_field_ids, p->pushed,
                                         p->only_files_set, (const char *const *)p->only_files, p->n_only_files, tp,
                                         out);
        if (st) st = floe_status_wrap(st, "scanning %s", p->table_name ? p->table_name : "an Iceberg table");
        break;
    case FLOE_L_PARQUET_SCAN:
    case FLOE_L_PHYSICAL:
        *out = floe_plan_retain(p->physical);
        break;
    case FLOE_L_GENERATE_SERIES: {
        const char *name = floe_schema_field(p->schema, 0)->name;
        st = floe_plan_generate_series(p->start, p->stop, p->step, tp, name, out);
        break;
    }
    case FLOE_L_FILTER:
        if (p->predicate) st = floe_plan_filter(kids[0], p->predicate, out);
        else *out = floe_plan_retain(kids[0]);
        break;
    case FLOE_L_PROJECT:
        st = floe_plan_projection(kids[0], p->exprs, (const char *const *)p->names, p->n_exprs, out);
        break;
    case FLOE_L_AGGREGATE:
        st = plan_aggregate(c, p, kids[0], out);
        break;
    case FLOE_L_DISTINCT:
        st = plan_distinct(c, p, kids[0], out);
        break;
    case FLOE_L_EXPAND: {
        int32_t np = p->n_exprs - p->n_gset_keys;
        st = floe_plan_expand(kids[0], p->exprs, (const char *const *)p->names, np, p->exprs + np,
                              (const char *const *)p->names + np, p->n_gset_keys,
                              floe_schema_field(p->schema, p->n_exprs)->name, p->gset_masks, p->gset_ids, p->n_gsets,
                              p->gset_empty_rows, out);
        break;
    }
    case FLOE_L_SORT:
        st = plan_sort(p, kids[0], out);
        break;
    case FLOE_L_LIMIT:
        st = plan_limit(p, kids[0], out);
        break;
    case FLOE_L_JOIN:
        st = plan_join(p, kids[0], kids[1], out);
        break;
    case FLOE_L_WINDOW:
        st = plan_window(c, p, kids[0], out);
        break;
    case FLOE_L_REPLICATE:
        st = floe_plan_replicate(kids[0], out);
        break;
    case FLOE_L_DISTINCT_ON: {
        int32_t *keys = floe_calloc((size_t)p->n_exprs + 1, sizeof *keys);
        if (!keys) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning DISTINCT ON");
            break;
        }
        for (int32_t i = 0; i < p->n_exprs; i++) keys[i] = p->exprs[i]->column;
        st = floe_plan_distinct_on(kids[0], keys, p->n_exprs, out);
        floe_free(keys);
        break;
    }
    case FLOE_L_SERIES_APPLY:
        st = floe_plan_series_apply(kids[0], p->exprs[0], p->exprs[1], p->exprs[2], p->names[0], out);
        break;
    case FLOE_L_UNNEST: {
        /* the node's own columns are named by the logical schema's last ones */
        int32_t nin = floe_schema_num_fields(p->inputs[0]->schema), nn = floe_schema_num_fields(p->schema) - nin;
        const char **names = floe_calloc((size_t)nn + 1, sizeof *names);
        if (!names) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning unnest");
            break;
        }
        for (int32_t i = 0; i < nn; i++) names[i] = floe_schema_field(p->schema, nin + i)->name;
        st = floe_plan_unnest(kids[0], p->exprs, p->n_exprs, names, nn, p->unnest_ordinality, p->unnest_outer, out);
        floe_free(names);
        break;
    }
    case FLOE_L_CTE_SCAN:
        st = floe_plan_cte_scan(p->schema, p->table_name, p->cte_key, p->cte_worktable, out);
        break;
    case FLOE_L_MATERIALIZE_CTE: {
        floe_plan *def = NULL;
        st = coalesce_if_needed(kids[0], &def);
        if (!st) st = floe_plan_materialize_cte(def, kids[1], p->table_name, p->cte_key, out);
        floe_plan_release(def);
        break;
    }
    default:
        st = floe_error(FLOE_ERR_INTERNAL, "no physical plan for a %s node", floe_lkind_name(p->kind));
    }
done:
    floe_plan_release(kids[0]);
    floe_plan_release(kids[1]);
    return st;
}

/* ------------------------------------ required distribution and ordering */

static bool same_expr(const floe_expr *a, const floe_expr *b) {
    floe_buf x = FLOE_BUF_INIT, y = FLOE_BUF_INIT;
    bool eq = !floe_expr_to_string(a, &x) && !floe_expr_to_string(b, &y) &&
              strcmp(floe_buf_cstr(&x), floe_buf_cstr(&y)) == 0;
    floe_buf_free(&x);
    floe_buf_free(&y);
    return eq;
}

/* Do all of `node`'s inputs have one partition? */
static bool inputs_single(const floe_plan *node) {
    for (int32_t i = 0; i < floe_plan_num_children(node); i++)
        if (floe_plan_partitions(floe_plan_child(node, i)) != 1) return false;
    return true;
}

/* Is `k` already distributed as `d` asks?  A Repartition right below says
 * so, and so do inputs of one partition each: every row of a key is in
 * it.  That must hold: the nodes above were planned for the partition
 * count `node` has now (a Sort with no merge above it, a Limit with no
 * global one), and a Repartition under `node` would change it under them.
 * A write is the exception: it spreads even a single input over
 * target_partitions writers (only its Coalesce and commit sit above it).
 * HASH with no expressions asks for rows spread round robin. */
static bool distribution_satisfied(const floe_plan *node, const floe_plan *k, const floe_distribution *d,
                                   int32_t target_partitions) {
    switch (d->kind) {
    case FLOE_DIST_UNSPECIFIED: return true;
    case FLOE_DIST_SINGLE: return floe_plan_partitions(k) == 1;
    case FLOE_DIST_HASH: break;
    }
    /* Is k an exchange that deals rows out over several partitions (a
     * Repartition), and how? */
    floe_distribution r;
    bool spreads = floe_plan_num_children(k) == 1 && floe_plan_child_read(k, 0, &r) == FLOE_READ_EXCHANGE &&
                   r.kind != FLOE_DIST_SINGLE;
    if (!spreads) {
        if (!(node->vt->flags & FLOE_NODE_WRITES_FILES)) return inputs_single(node);
        return d->n_exprs > 0 && target_partitions == 1 && floe_plan_partitions(k) == 1 &&
               floe_plan_num_children(node) == 1;
    }
    if (d->n_exprs == 0) return r.kind == FLOE_DIST_UNSPECIFIED; /* round robin */
    if (r.kind != FLOE_DIST_HASH || r.n_exprs != d->n_exprs) return false;
    for (int32_t i = 0; i < d->n_exprs; i++)
        if (!same_expr(r.exprs[i], d->exprs[i])) return false;
    return true;
}

static bool ordering_satisfied(const floe_plan *k, const floe_sort_key *keys, int32_t n) {
    if (k->n_ordering < n) return false;
    for (int32_t i = 0; i < n; i++) {
        const floe_sort_key *a = &k->ordering[i], *b = &keys[i];
        if (a->descending != b->descending || a->nulls_first != b->nulls_first || !same_expr(a->expr, b->expr))
            return false;
    }
    return true;
}

/* `p` rebuilt over new children: its parts through the codec's
 * encode_parts / decode_parts, the only constructor every node type has. */
static floe_status with_children(const floe_plan *p, floe_plan *const *kids, floe_plan **out) {
    floe_buf parts = FLOE_BUF_INIT;
    floe_status st = p->vt->encode_parts ? p->vt->encode_parts(p, &parts) : NULL;
    if (!st) {
        floe_reader r = {(const uint8_t *)parts.data, parts.len, 0};
        st = p->vt->decode_parts(&r, kids, floe_plan_num_children(p), out);
    }
    floe_buf_free(&parts);
    if (st) return floe_status_wrap(st, "planning: rebuilding %s over new inputs", floe_plan_type_name(p));
    return NULL;
}

/* Give child i of `node` (already `*kid`, replaced in place) the
 * distribution and ordering the node requires. */
static floe_status provide(const floe_plan *node, int32_t i, int32_t target_partitions, floe_plan **kid) {
    floe_distribution d = floe_plan_required_input(node, i);
    floe_plan *next = NULL;
    floe_status st = NULL;
    if (!distribution_satisfied(node, *kid, &d, target_partitions)) {
        if (d.kind == FLOE_DIST_SINGLE)
            st = floe_plan_coalesce(*kid, &next);
        else
            st = floe_plan_repartition(*kid, d.n_exprs > 0 ? FLOE_REPARTITION_HASH : FLOE_REPARTITION_ROUND_ROBIN,
                                       d.exprs, d.n_exprs, target_partitions, &next);
        if (st) return st;
        floe_plan_release(*kid);
        *kid = next;
    }
    const floe_sort_key *keys = NULL;
    int32_t nk = floe_plan_required_ordering(node, i, &keys);
    if (nk > 0 && !ordering_satisfied(*kid, keys, nk)) {
        FLOE_TRY(floe_plan_sort(*kid, keys, nk, -1, &next));
        floe_plan_release(*kid);
        *kid = next;
    }
    return NULL;
}

floe_status floe_sql_enforce_requirements(floe_plan *p, int32_t target_partitions, floe_plan **out) {
    *out = NULL;
    if (target_partitions < 1) target_partitions = 1;
    int32_t n = floe_plan_num_children(p);
    if (n == 0) {
        *out = floe_plan_retain(p);
        return NULL;
    }
    floe_plan **kids = floe_calloc((size_t)n, sizeof *kids);
    if (!kids) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning: out of memory");
    floe_status st = NULL;
    bool changed = false;
    for (int32_t i = 0; !st && i < n; i++) {
        st = floe_sql_enforce_requirements(floe_plan_child(p, i), target_partitions, &kids[i]);
        if (!st) st = provide(p, i, target_partitions, &kids[i]);
        if (!st && kids[i] != floe_plan_child(p, i)) changed = true;
    }
    if (!st && changed) st = with_children(p, kids, out);
    else if (!st) *out = floe_plan_retain(p);
    for (int32_t i = 0; i < n; i++) floe_plan_release(kids[i]);
    floe_free(kids);
    return st;
}

floe_status floe_sql_physical(const floe_lplan *plan, const floe_sql_options *opts, bool single, floe_plan **out) {
    *out = NULL;
    phys_ctx c = {opts};
    floe_plan *p, *raw;
    FLOE_TRY(plan_node(&c, plan, &raw));
    /* The last step: nothing after it may drop what it adds. */
    floe_status est = floe_sql_enforce_requirements(raw, opts->target_partitions, &p);
    floe_plan_release(raw);
    FLOE_TRY(est);
    if (!single) {
        *out = p;
        return NULL;
    }
    floe_status st = coalesce_if_needed(p, out);
    floe_plan_release(p);
    return st;
}

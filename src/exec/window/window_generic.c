/*
 * window_generic.c — every other aggregate of the registry (agg_func.h:
 * stddev / variance / corr / regr_*, bit_*, any_value, arg_min / arg_max,
 * approx_*, string_agg, array_agg, median) as a window aggregate over
 * each row's frame.  window_agg.c keeps its own tight states for the
 * seven fixed functions; this file drives the registry's callbacks.
 *
 * Streaming entries (init / update / combine / finalize) are served by a
 * segment tree of their states, built with the entry's combine: a frame
 * range is O(log n) combines, so any frame — running, sliding, whole
 * partition, after EXCLUDE — costs O(n log n) per partition.  Pieces are
 * always folded in row order (the entries' first-wins ties, any_value and
 * arg_min, depend on it).  States that own memory (destroy given: held
 * strings, HyperLogLog registers of 16 KiB, KLL levels) would make a tree
 * of 2n states too big, so their leaves are blocks of BLOCK_OWNING rows:
 * a frame then costs O(BLOCK_OWNING + log n), the tree n / BLOCK_OWNING
 * states.  Sketches pay their size per distinct frame besides (init,
 * combines, finalize over 2^14 HyperLogLog registers): approx_count_distinct
 * over a sliding frame is O(n * 16 KiB) — right, but slow past ~10^4 rows.
 *
 * Holistic entries (finalize_rows: string_agg, array_agg, median) cannot
 * combine; each distinct frame hands its rows, in order, to finalize_rows
 * — O(frame) per row, O(n * frame) per partition, which for string_agg
 * and array_agg is also the size of the output.  median orders a frame's
 * rows through their rank in the partition's one sort by the argument, so
 * a frame is O(frame log frame).  Consecutive rows with the same frame
 * (whole-partition frames, peers in RANGE mode) share one result: a
 * whole-partition median is one sort, not n.
 *
 * FILTER (WHERE p): rows where p is not true are left out of every frame
 * (as if their state were empty), which also keeps array_agg's NULLs of
 * rows that pass.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/agg/agg_func.h"
#include "exec/sort/sort_keys.h"
#include "exec/window/window_internal.h"
#include "floe/memory.h"

#define BLOCK_OWNING 128 /* rows per tree leaf when states own memory */

typedef struct gen_ctx {
    agg_info ai;
    const agg_func *f;
    floe_array *const *args;
    const bool *keep; /* per row: counts (FILTER); NULL: all */
    size_t stride;    /* bytes per state, 16-aligned */
    int64_t n, block, nb;
    uint8_t *tree;    /* 2 * nb states; leaf j at nb + j */
    uint32_t *rows, *zeros; /* scratch for one block's rows */
} gen_ctx;

static uint8_t *node(gen_ctx *g, int64_t k) { return g->tree + (size_t)k * g->stride; }

static void st_init(gen_ctx *g, uint8_t *s) {
    memset(s, 0, g->stride);
    if (g->f->init) g->f->init(&g->ai, s);
}

static void st_destroy(gen_ctx *g, uint8_t *s) {
    if (g->f->destroy) g->f->destroy(&g->ai, s);
}

/* Fold the counting rows of [lo, hi) (fewer than a block) into acc. */
static floe_status fold_rows(gen_ctx *g, uint8_t *acc, int64_t lo, int64_t hi) {
    int64_t m = 0;
    for (int64_t r = lo; r < hi; r++)
        if (!g->keep || g->keep[r]) g->rows[m++] = (uint32_t)r;
    if (m == 0) return NULL;
    return g->f->update(&g->ai, acc, 0, g->zeros, g->args, g->rows, 0, m);
}

/* Fold tree leaves [lo, hi) into acc, in order. */
static floe_status fold_tree(gen_ctx *g, uint8_t *acc, int64_t lo, int64_t hi) {
    int64_t right[128];
    int nright = 0;
    floe_status st = NULL;
    lo += g->nb;
    hi += g->nb;
    while (lo < hi && !st) {
        if (lo & 1) st = g->f->combine(&g->ai, acc, node(g, lo++));
        if (hi & 1) right[nright++] = --hi;
        lo >>= 1;
        hi >>= 1;
    }
    while (nright > 0 && !st) st = g->f->combine(&g->ai, acc, node(g, right[--nright]));
    return st;
}

/* Fold rows [lo, hi) into acc: the partial blocks row by row, the whole
 * blocks from the tree. */
static floe_status fold_range(gen_ctx *g, uint8_t *acc, int64_t lo, int64_t hi) {
    int64_t B = g->block;
    if (B == 1) return fold_tree(g, acc, lo, hi);
    int64_t b0 = (lo + B - 1) / B, b1 = hi / B; /* whole blocks [b0, b1) */
    if (b0 >= b1) {
        /* within at most two blocks: row by row, a block at a time */
        for (int64_t x = lo; x < hi;) {
            int64_t e = (x / B + 1) * B;
            if (e > hi) e = hi;
            FLOE_TRY(fold_rows(g, acc, x, e));
            x = e;
        }
        return NULL;
    }
    FLOE_TRY(fold_rows(g, acc, lo, b0 * B));
    FLOE_TRY(fold_tree(g, acc, b0, b1));
    return fold_rows(g, acc, b1 * B, hi);
}

static floe_status streaming(gen_ctx *g, int64_t n, const win_range *ranges, const uint8_t *nr, const int64_t *uniq,
                             int64_t nu, floe_builder *b) {
    int64_t B = g->block;
    g->nb = (n + B - 1) / B;
    if (g->nb == 0) return NULL;
    g->tree = floe_calloc((size_t)(2 * g->nb), g->stride);
    uint32_t *ids = floe_malloc_array((size_t)n, sizeof *ids);
    uint32_t *rows = floe_malloc_array((size_t)n, sizeof *rows);
    uint8_t *acc = floe_calloc(1, g->stride);
    floe_status st = NULL;
    int64_t built = 0;
    if (!g->tree || !ids || !rows || !acc) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "window aggregate %s: a tree of %lld states", g->f->name, (long long)g->nb);
        goto done;
    }
    for (int64_t k = 1; k < 2 * g->nb; k++) st_init(g, node(g, k));
    built = 2 * g->nb;
    /* the leaves: every counting row folded into its block's state */
    int64_t m = 0;
    for (int64_t r = 0; r < n; r++)
        if (!g->keep || g->keep[r]) {
            rows[m] = (uint32_t)r;
            ids[m++] = (uint32_t)(r / B);
        }
    if (m) st = g->f->update(&g->ai, node(g, g->nb), g->stride, ids, g->args, rows, 0, m);
    for (int64_t k = g->nb - 1; k >= 1 && !st; k--) {
        st = g->f->combine(&g->ai, node(g, k), node(g, 2 * k));
        if (!st) st = g->f->combine(&g->ai, node(g, k), node(g, 2 * k + 1));
    }
    for (int64_t u = 0; u < nu && !st; u++) {
        int64_t i = uniq[u];
        st_init(g, acc);
        for (int j = 0; j < nr[i] && !st; j++) st = fold_range(g, acc, ranges[i * 3 + j].lo, ranges[i * 3 + j].hi);
        if (!st) st = g->f->finalize(&g->ai, acc, b);
        st_destroy(g, acc);
    }
done:
    for (int64_t k = 1; k < built; k++) st_destroy(g, node(g, k));
    floe_free(g->tree);
    g->tree = NULL;
    floe_free(ids);
    floe_free(rows);
    floe_free(acc);
    return st;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static bool args0_null(const gen_ctx *g) { return g->args[0]->type->id == FLOE_TYPE_NULL; }

static floe_status holistic(gen_ctx *g, int64_t n, const win_range *ranges, const uint8_t *nr, const int64_t *uniq,
                            int64_t nu, floe_builder *b) {
    bool sorts = (g->f->flags & AGGF_SORTS_ARG) != 0;
    uint32_t *idx = floe_malloc_array((size_t)(n ? n : 1), sizeof *idx);
    uint32_t *by_arg = NULL, *rank = NULL;
    floe_status st = idx ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "window aggregate %s: %lld rows", g->f->name, (long long)n);
    if (sorts && args0_null(g)) sorts = false; /* all NULL: nothing to order */
    if (!st && sorts && n > 0) {
        /* rank[r]: row r's place in the partition ordered by argument 0
         * (ties in row order); by_arg inverts it */
        floe_sort_key k = {NULL, false, false};
        floe_array *cols[1] = {g->args[0]};
        st = floe_sk_sort_rows(&k, 1, cols, n, &by_arg);
        if (!st && !(rank = floe_malloc_array((size_t)n, sizeof *rank)))
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "window aggregate %s: %lld rows", g->f->name, (long long)n);
        for (int64_t j = 0; !st && j < n; j++) rank[by_arg[j]] = (uint32_t)j;
    }
    for (int64_t u = 0; u < nu && !st; u++) {
        int64_t i = uniq[u], m = 0;
        for (int j = 0; j < nr[i]; j++)
            for (int64_t r = ranges[i * 3 + j].lo; r < ranges[i * 3 + j].hi; r++)
                if (!g->keep || g->keep[r]) idx[m++] = sorts ? rank[r] : (uint32_t)r;
        if (sorts) {
            qsort(idx, (size_t)m, sizeof *idx, cmp_u32);
            for (int64_t k = 0; k < m; k++) idx[k] = by_arg[idx[k]];
        }
        st = g->f->finalize_rows(&g->ai, g->args, idx, m, b);
    }
    floe_free(idx);
    floe_free(by_arg);
    floe_free(rank);
    return st;
}

static bool same_frame(const win_range *ranges, const uint8_t *nr, int64_t a, int64_t b) {
    if (nr[a] != nr[b]) return false;
    for (int j = 0; j < nr[a]; j++)
        if (ranges[a * 3 + j].lo != ranges[b * 3 + j].lo || ranges[a * 3 + j].hi != ranges[b * 3 + j].hi) return false;
    return true;
}

floe_status floe_win_registry_aggregate(const floe_window_call *c, floe_array *const *args, const floe_array *filter,
                                        const floe_type *type, int64_t n, const win_range *ranges, const uint8_t *nr,
                                        floe_array **out) {
    *out = NULL;
    gen_ctx g;
    memset(&g, 0, sizeof g);
    g.f = floe_agg_lookup(c->func);
    if (!g.f || g.f->fast != FLOE_AGG_NAMED || (g.f->flags & AGGF_WITHIN_GROUP))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "window aggregate '%s' is not in the registry", c->func ? c->func : "?");
    if (n > (int64_t)UINT32_MAX) return floe_error(FLOE_ERR_UNSUPPORTED, "Window: more than %u rows in one partition", UINT32_MAX);
    floe_type *at[2] = {NULL, NULL};
    for (int32_t k = 0; k < c->n_args && k < 2; k++) at[k] = args[k]->type;
    FLOE_TRY(floe_agg_resolve(g.f, at, c->n_args, NULL, 0, &g.ai));
    g.args = args;
    g.n = n;
    bool holist = (g.f->flags & AGGF_HOLISTIC) != 0;
    if (!holist && (!g.f->update || !g.f->combine || !g.f->finalize)) {
        floe_type_release(g.ai.out_type);
        return floe_error(FLOE_ERR_UNSUPPORTED, "%s cannot be a window aggregate (no combine)", g.f->name);
    }
    g.stride = ((g.ai.state_size ? g.ai.state_size : 1) + 15) / 16 * 16;
    g.block = g.f->destroy ? BLOCK_OWNING : 1;
    bool *keep = NULL;
    int64_t *uniq = floe_malloc_array((size_t)(n ? n : 1), sizeof *uniq);
    int64_t *map = floe_malloc_array((size_t)(n ? n : 1), sizeof *map);
    g.rows = floe_malloc_array((size_t)g.block, sizeof *g.rows);
    g.zeros = floe_calloc((size_t)g.block, sizeof *g.zeros);
    floe_builder *b = NULL;
    floe_array *compact = NULL;
    floe_status st = NULL;
    if (!uniq || !map || !g.rows || !g.zeros) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "window aggregate %s", g.f->name);
    if (!st && filter) {
        if (!(keep = floe_malloc((size_t)(n ? n : 1)))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "window aggregate %s", g.f->name);
        for (int64_t r = 0; !st && r < n; r++)
            keep[r] = filter->type->id == FLOE_TYPE_BOOL && !floe_array_is_null(filter, r) && floe_array_get_bool(filter, r);
        g.keep = keep;
    }
    /* one result per run of rows with the same frame */
    int64_t nu = 0;
    for (int64_t i = 0; !st && i < n; i++) {
        if (i == 0 || !same_frame(ranges, nr, i - 1, i)) uniq[nu++] = i;
        map[i] = nu - 1;
    }
    if (!st) st = floe_builder_new((floe_type *)type, nu, &b);
    if (!st) st = holist ? holistic(&g, n, ranges, nr, uniq, nu, b) : streaming(&g, n, ranges, nr, uniq, nu, b);
    if (!st) st = floe_builder_finish(b, &compact);
    if (!st) st = floe_win_gather(compact, NULL, map, n, out);
    floe_builder_free(b);
    floe_array_release(compact);
    floe_type_release(g.ai.out_type);
    floe_free(keep);
    floe_free(uniq);
    floe_free(map);
    floe_free(g.rows);
    floe_free(g.zeros);
    return st;
}

/*
 * agg_generic.c — the aggregate registry's entries (agg_func.h) inside
 * HashAggregate: folding rows into a streaming entry's states, combining
 * PARTIAL states in FINAL, their output, and the collector.
 *
 * The collector serves every call that must see all of a group's rows
 * before it can fold them (holistic entries such as median, string_agg
 * ORDER BY, and DISTINCT other than the fast kinds' DISTINCT table): per
 * batch it keeps the rows that count (after FILTER) — the call's
 * argument and ORDER BY columns, taken, and the rows' groups.  When the
 * input ends, hagg_collect_finish concatenates them, sorts the rows by
 * (group, ORDER BY keys[, argument 0 for AGGF_SORTS_ARG][, the arguments
 * for DISTINCT]) with a stable sort (ties keep input order), drops
 * repeated (group, arguments) rows for DISTINCT, and then either folds
 * the rows, in order, into the call's states (streaming entries, fast
 * kinds) or calls finalize_rows once per group (holistic entries).  Such
 * calls run in SINGLE mode only (floe_agg_call_needs_single): the planner
 * brings each group's rows together with a hash repartition first.
 */
#include <string.h>

#include "exec/agg/hash_agg_internal.h"
#include "exec/sort/sort_keys.h"
#include "floe/memory.h"

/* ------------------------------------------------------ streaming states */

floe_status hagg_generic_update(agg_stream *s, acc *a, floe_array *const *args, const uint32_t *ids,
                                const uint32_t *rows, int64_t base, int64_t n) {
    (void)s;
    if (n == 0) return NULL;
    return a->info.fn->update(&a->info, a->pv, a->stride, ids, args, rows, base, n);
}

floe_status hagg_generic_merge(agg_stream *s, acc *a, const floe_array *col, const uint32_t *ids, int64_t base,
                               int64_t n) {
    (void)s;
    const agg_func *f = a->info.fn;
    size_t sz = a->info.state_size ? a->info.state_size : 1;
    uint8_t *tmp = floe_calloc(1, sz);
    if (!tmp) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: a state", f->name);
    floe_status st = NULL;
    for (int64_t k = 0; k < n && !st; k++) {
        int64_t r = base + k;
        if (floe_array_is_null(col, r)) continue;
        floe_strview v = floe_array_get_str(col, r);
        memset(tmp, 0, sz);
        if (f->init) f->init(&a->info, tmp);
        st = f->deserialize(&a->info, (const uint8_t *)v.data, (size_t)v.len, tmp);
        if (!st) st = f->combine(&a->info, a->pv + (size_t)ids[k] * a->stride, tmp);
        if (f->destroy) f->destroy(&a->info, tmp);
    }
    floe_free(tmp);
    return st;
}

floe_status hagg_generic_emit(agg_stream *s, acc *a, int64_t g0, int64_t m, bool state, floe_array **out) {
    (void)s;
    if (a->kind == ACC_HOLISTIC) {
        if (!a->res) return floe_error(FLOE_ERR_INTERNAL, "%s: no results", a->info.fn->name);
        return floe_array_slice(a->res, g0, m, out);
    }
    const agg_func *f = a->info.fn;
    floe_builder *b = NULL;
    floe_buf buf = FLOE_BUF_INIT;
    floe_status st = floe_builder_new(state ? a->state_type : a->out_type, m, &b);
    for (int64_t i = 0; i < m && !st; i++) {
        const uint8_t *x = a->pv + (size_t)(g0 + i) * a->stride;
        if (!state) {
            st = f->finalize(&a->info, x, b);
            continue;
        }
        buf.len = 0;
        st = f->serialize(&a->info, x, &buf);
        if (!st) st = floe_builder_append_binary(b, buf.len ? (const void *)buf.data : "", (int64_t)buf.len);
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    floe_buf_free(&buf);
    return st;
}

/* ------------------------------------------------------------ collector */

void hagg_collect_free(collector *c) {
    if (!c) return;
    for (int64_t i = 0; i < c->n_parts * c->ncols; i++) floe_array_release(c->parts[i]);
    floe_free(c->parts);
    floe_free(c->gids);
    floe_free(c);
}

floe_status hagg_collect_add(collector *c, floe_array *const *cols, const uint32_t *rows, const uint32_t *ids,
                             int64_t n) {
    if (n == 0) return NULL;
    if (c->n + n > (int64_t)UINT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "aggregate: more than 2^32 rows to order or deduplicate");
    if (c->n_parts == c->parts_cap) {
        int64_t cap = c->parts_cap ? 2 * c->parts_cap : 8;
        floe_array **p = floe_realloc(c->parts, (size_t)(cap * (c->ncols ? c->ncols : 1)) * sizeof *p);
        if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "aggregate: collected rows");
        c->parts = p;
        c->parts_cap = cap;
    }
    if (c->n + n > c->cap) {
        int64_t cap = c->cap ? c->cap : 1024;
        while (cap < c->n + n) cap *= 2;
        uint32_t *g = floe_realloc(c->gids, (size_t)cap * sizeof *g);
        if (!g) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "aggregate: collected rows");
        c->gids = g;
        c->cap = cap;
    }
    floe_array **dst = c->parts + c->n_parts * c->ncols;
    floe_status st = NULL;
    int32_t j = 0;
    for (; j < c->ncols && !st; j++)
        st = rows ? floe_array_take(cols[j], rows, n, &dst[j]) : floe_array_slice(cols[j], 0, n, &dst[j]);
    if (st) {
        for (int32_t k = 0; k < j - 1; k++) floe_array_release(dst[k]);
        return st;
    }
    memcpy(c->gids + c->n, ids, (size_t)n * sizeof *ids);
    c->n += n;
    c->n_parts++;
    return NULL;
}

/* idx[0..n) = the rows ordered by (group, keys[0..nk) over the columns
 * kcol[]), ties in input order: the keys by floe_sk_sort_rows (a radix sort
 * on the first key's prefix, merge sorts of ties), then a stable counting
 * sort by group — groups are ids below ng, so that pass is O(n + ng) and
 * keeps the keys' order within each group. */
static floe_status order_rows(const uint32_t *gids, int64_t n, int64_t ng, floe_array *const *cols,
                              const floe_sort_key *keys, const int32_t *kcol, int32_t nk, uint32_t *idx) {
    uint32_t *by_key = NULL;
    floe_array **karr = NULL;
    int64_t *pos = floe_calloc((size_t)(ng + 1), sizeof *pos);
    floe_status st = pos ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "aggregate: ordering %lld rows", (long long)n);
    if (!st && nk > 0 && n > 1) {
        karr = floe_calloc((size_t)nk, sizeof *karr);
        if (!karr) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "aggregate: ordering %lld rows", (long long)n);
        for (int32_t k = 0; !st && k < nk; k++) karr[k] = cols[kcol[k]];
        if (!st) st = floe_sk_sort_rows(keys, nk, karr, n, &by_key);
    }
    if (!st) {
        for (int64_t r = 0; r < n; r++) pos[gids[r] + 1]++;
        for (int64_t g = 0; g < ng; g++) pos[g + 1] += pos[g];
        for (int64_t i = 0; i < n; i++) {
            uint32_t r = by_key ? by_key[i] : (uint32_t)i;
            idx[pos[gids[r]]++] = r;
        }
    }
    floe_free(by_key);
    floe_free(karr);
    floe_free(pos);
    return st;
}

floe_status hagg_collect_finish(agg_stream *s, int32_t i) {
    acc *a = &s->accs[i];
    const floe_agg_call *call = a->call;
    collector *c = a->col;
    int32_t nargs = (call->arg != NULL) + (call->arg2 != NULL);
    int32_t nc = c->ncols;
    int64_t n = c->n, ng = hagg_n_groups_of(s);
    floe_array **cols = floe_calloc((size_t)(nc ? nc : 1), sizeof *cols);
    floe_array **parts = floe_calloc((size_t)(c->n_parts ? c->n_parts : 1), sizeof *parts);
    uint32_t *idx = floe_malloc_array((size_t)(n ? n : 1), sizeof *idx);
    uint32_t *ids = floe_malloc_array((size_t)(n ? n : 1), sizeof *ids);
    int32_t cap = call->n_order + nargs + 1;
    floe_sort_key *keys = floe_calloc((size_t)cap, sizeof *keys);
    int32_t *kcol = floe_calloc((size_t)cap, sizeof *kcol);
    floe_array *taken[2] = {NULL, NULL};
    floe_builder *b = NULL;
    floe_status st = cols && parts && idx && ids && keys && kcol
                         ? NULL
                         : floe_error(FLOE_ERR_OUT_OF_MEMORY, "aggregate '%s': ordering collected rows", call->name);
    for (int32_t j = 0; !st && n > 0 && j < nc; j++) {
        for (int64_t p = 0; p < c->n_parts; p++) parts[p] = c->parts[p * nc + j];
        st = floe_array_concat(parts, (int32_t)c->n_parts, &cols[j]);
    }
    /* the sort keys */
    int32_t nk = 0;
    for (int32_t k = 0; k < call->n_order; k++) {
        keys[nk] = call->order[k];
        keys[nk].expr = NULL;
        kcol[nk++] = nargs + k;
    }
    if (a->kind == ACC_HOLISTIC && (a->info.fn->flags & AGGF_SORTS_ARG)) kcol[nk++] = 0;
    if (call->distinct)
        for (int32_t j = 0; j < nargs; j++) kcol[nk++] = j;
    if (!st) st = order_rows(c->gids, n, ng, cols, keys, kcol, nk, idx);
    /* DISTINCT: one row per (group, arguments) */
    if (!st && call->distinct && n > 0) {
        floe_sort_key eq = {NULL, false, false};
        int64_t m = 1;
        for (int64_t r = 1; r < n; r++) {
            uint32_t x = idx[m - 1], y = idx[r];
            bool same = c->gids[x] == c->gids[y];
            for (int32_t j = 0; same && j < nargs; j++) same = floe_sk_compare_one(&eq, cols[j], x, cols[j], y) == 0;
            if (!same) idx[m++] = y;
        }
        n = m;
    }
    for (int64_t r = 0; r < n; r++) ids[r] = c->gids[idx[r]];
    if (!st && a->kind == ACC_HOLISTIC) {
        st = floe_builder_new(a->out_type, ng, &b);
        int64_t pos = 0;
        for (int64_t g = 0; g < ng && !st; g++) {
            int64_t e = pos;
            while (e < n && ids[e] == (uint32_t)g) e++;
            st = a->info.fn->finalize_rows(&a->info, cols, idx + pos, e - pos, b);
            pos = e;
        }
        if (!st) st = floe_builder_finish(b, &a->res);
    } else if (!st && n > 0) {
        for (int32_t j = 0; j < nargs && !st; j++) st = floe_array_take(cols[j], idx, n, &taken[j]);
        if (!st && a->kind == ACC_GENERIC) st = hagg_generic_update(s, a, taken, ids, NULL, 0, n);
        else if (!st) st = hagg_acc_update(s, a, taken[0], ids, NULL, 0, n);
    }
    floe_builder_free(b);
    for (int32_t j = 0; cols && j < nc; j++) floe_array_release(cols[j]);
    floe_array_release(taken[0]);
    floe_array_release(taken[1]);
    floe_free(cols);
    floe_free(parts);
    floe_free(idx);
    floe_free(ids);
    floe_free(keys);
    floe_free(kcol);
    hagg_collect_free(c);
    a->col = NULL;
    return st;
}

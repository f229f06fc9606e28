/*
 * agg_stream.c — executing HashAggregate: the stream of one partition,
 * its accumulators' state rows, and consuming input batches (evaluate the
 * keys and arguments, give rows their group ids, filter DISTINCT pairs,
 * fold the arguments in, chunk by chunk, through agg_kernels.c).
 */
#include <string.h>

#include "base/buffer.h"
#include "exec/agg/hash_agg_internal.h"
#include "exec/basic/filter_sel.h"
#include "exec/exchange/row_hash.h"
#include "floe/memory.h"

/* ------------------------------------------------------------- streams */

/* agg_stream is in hash_agg_internal.h: the kernels and the output read it. */

int64_t hagg_n_groups_of(const agg_stream *s) { return s->p->n_groups ? (s->packed ? s->pt.n : s->gt.n) : 1; }

/* " in group (k1, k2)" for error messages: the key values of row r. */
static void describe_group(const agg_stream *s, int64_t r, floe_buf *b) {
    if (!s->keys || s->p->n_groups == 0) return;
    floe_status st = floe_buf_append_str(b, " in group (");
    for (int32_t c = 0; c < s->p->n_groups && !st; c++) {
        if (c) st = floe_buf_append_str(b, ", ");
        if (!st) st = floe_format_value(s->keys[c], r, b);
    }
    if (!st) st = floe_buf_append_str(b, ")");
    floe_status_free(st);
}

floe_status hagg_overflow_error(const agg_stream *s, const acc *a, int64_t r, const char *what) {
    floe_buf b = FLOE_BUF_INIT;
    describe_group(s, r, &b);
    floe_status st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s(...) AS %s: %s overflow%s", floe_agg_call_func_name(a->call),
                                a->call->name, what, floe_buf_cstr(&b));
    floe_buf_free(&b);
    return st;
}

/* Place every call's fields in the state row (once, at open). */
static void layout_accs(agg_stream *s) {
    size_t off = 0;
    for (int32_t i = 0; i < s->p->n_calls; i++) {
        acc *a = &s->accs[i];
        if (a->esz) {
            size_t al = a->esz >= 16 ? 16 : a->esz >= 8 ? 8 : a->esz >= 4 ? 4 : 1;
            off = (off + al - 1) / al * al;
            a->off_v = off;
            off += a->esz;
        }
        if (needs_cnt(a->kind)) {
            off = (off + 7) / 8 * 8;
            a->off_c = off;
            off += 8;
        }
        if (needs_seen(a->kind)) a->off_s = off++;
    }
    s->stride = (off + 15) / 16 * 16;
    if (!s->stride) s->stride = 16;
}

/* State rows for every group created so far: grow the rows (capacity
 * doubling, not zeroed) and zero the rows of the groups new since the
 * last call (ids are dense, so they are one range). */
static floe_status init_rows(agg_stream *s) {
    int64_t need = hagg_n_groups_of(s);
    if (need > s->acc_cap) {
        int64_t cap = s->acc_cap ? s->acc_cap : 64;
        while (cap < need) cap *= 2;
        uint8_t *st = floe_realloc(s->states, (size_t)cap * s->stride);
        if (!st) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: accumulators for %lld groups", (long long)cap);
        s->states = st;
        s->acc_cap = cap;
        for (int32_t i = 0; i < s->p->n_calls; i++) {
            acc *a = &s->accs[i];
            a->stride = s->stride;
            a->pv = st + a->off_v;
            a->pc = st + a->off_c;
            a->ps = st + a->off_s;
        }
    }
    if (need > s->init_rows) {
        memset(s->states + (size_t)s->init_rows * s->stride, 0, (size_t)(need - s->init_rows) * s->stride);
        for (int32_t i = 0; i < s->p->n_calls; i++) {
            acc *a = &s->accs[i];
            if (a->kind == ACC_GENERIC && a->info.fn->init)
                for (int64_t g = s->init_rows; g < need; g++) a->info.fn->init(&a->info, a->pv + (size_t)g * a->stride);
        }
        s->init_rows = need;
    }
    return NULL;
}

/* ------------------------------------------------------------ consuming */

/* Keep only rows whose (group, argument value) pair is new for a
 * DISTINCT call: fills s->sc.rows / sub_ids, returns the count. */
static floe_status distinct_filter(agg_stream *s, acc *a, floe_array *arg, int64_t n, int64_t *kept) {
    scratch *sc = &s->sc;
    int64_t m = 0;
    for (int64_t r = 0; r < n; r++)
        if (!floe_array_is_null(arg, r)) {
            sc->rows[m] = (uint32_t)r;
            sc->sub_ids[m] = sc->ids[r];
            m++;
        }
    /* hashes of the (group, value) pairs */
    uint64_t *h = sc->hashes;
    FLOE_TRY(floe_hash_rows(&arg, 1, n, h));
    for (int64_t k = 0; k < m; k++) h[k] = floe_hash_combine(floe_hash_u64(sc->sub_ids[k]), h[sc->rows[k]]);
    FLOE_TRY(hagg_encode_keys(sc, &arg, 1, sc->rows, m, sc->sub_ids, a->dset->kw));
    FLOE_TRY(hagg_gt_reserve(a->dset, m));
    uint32_t *ids = sc->pos; /* pos is free again after encoding */
    FLOE_TRY(hagg_gt_probe(a->dset, m, h, sc->bytes, sc->offs, ids, sc->is_new));
    int64_t out = 0;
    for (int64_t k = 0; k < m; k++)
        if (sc->is_new[k]) {
            sc->rows[out] = sc->rows[k];
            sc->sub_ids[out] = sc->sub_ids[k];
            out++;
        }
    *kept = out;
    return NULL;
}

/* Evaluate the batch's group keys and aggregate arguments into s->keys
 * and s->args (FINAL: the key columns only; the state columns are read
 * in place). */
static floe_status eval_inputs(agg_stream *s, floe_batch *b) {
    const agg_plan *p = s->p;
    bool final = s->merging;
    floe_batch *x = NULL; /* b with the shared subexpressions' columns */
    floe_status st = NULL;
    if (p->cse && !final) {
        int32_t failed;
        st = floe_cse_extend(p->cse, b, &x, &failed);
        if (st && failed >= 0 && failed < p->n_groups)
            return floe_status_wrap_op(st, "group key '%s'", p->group_names[failed]);
        if (st && failed >= p->n_groups)
            return floe_status_wrap_op(st, "aggregate '%s'", p->calls[failed - p->n_groups].name);
        if (st) return st;
    }
    for (int32_t c = 0; c < p->n_groups && !st; c++) {
        if (final) s->keys[c] = floe_array_retain(b->columns[c]);
        else if (x) st = floe_expr_eval(p->cse->rewritten[c], x, &s->keys[c]);
        else st = floe_expr_eval(p->groups[c], b, &s->keys[c]);
        if (st) st = floe_status_wrap_op(st, "group key '%s'", p->group_names[c]);
    }
    for (int32_t i = 0; i < p->n_calls && !final && !st; i++) {
        const floe_agg_call *c = &p->calls[i];
        if (c->arg) {
            if (x) st = floe_expr_eval(p->cse->rewritten[p->n_groups + i], x, &s->args[i]);
            else st = floe_expr_eval(c->arg, b, &s->args[i]);
        }
        if (!st && c->arg2) st = floe_expr_eval(c->arg2, b, &s->args2[i]);
        if (!st && c->filter) st = floe_expr_eval(c->filter, b, &s->filt[i]);
        for (int32_t k = 0; !st && k < c->n_order; k++) st = floe_expr_eval(c->order[k].expr, b, &s->ords[s->ord_at[i] + k]);
        if (st) st = floe_status_wrap_op(st, "aggregate '%s'", c->name);
    }
    floe_batch_release(x);
    return st;
}

static void release_inputs(agg_stream *s) {
    for (int32_t i = 0; i < s->p->n_calls; i++) {
        floe_array_release(s->args[i]);
        floe_array_release(s->args2[i]);
        floe_array_release(s->filt[i]);
        s->args[i] = s->args2[i] = s->filt[i] = NULL;
        for (int32_t k = 0; k < s->p->calls[i].n_order; k++) {
            floe_array_release(s->ords[s->ord_at[i] + k]);
            s->ords[s->ord_at[i] + k] = NULL;
        }
    }
    for (int32_t c = 0; c < s->p->n_groups; c++) {
        floe_array_release(s->keys[c]);
        s->keys[c] = NULL;
    }
}

/* The packed keys stopped fitting (a longer string): move the groups to
 * the general table, in id order, so every group keeps its id and state. */
static floe_status unpack_groups(agg_stream *s) {
    const agg_plan *p = s->p;
    int64_t n = s->pt.n;
    scratch *sc = &s->sc;
    floe_array **cols = floe_calloc((size_t)p->n_groups, sizeof *cols);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: moving %lld groups", (long long)n);
    floe_status st = floe_pk_decode(&s->pl, &s->pt, s->key_types, 0, n, cols);
    if (!st) st = hagg_scratch_reserve(sc, n);
    if (!st) st = floe_hash_rows(cols, p->n_groups, n, sc->hashes);
    if (!st) st = hagg_encode_keys(sc, cols, p->n_groups, NULL, n, NULL, s->gt.kw);
    if (!st) st = hagg_gt_reserve(&s->gt, n);
    if (!st) st = hagg_gt_probe(&s->gt, n, sc->hashes, sc->bytes, sc->offs, sc->ids, NULL);
    for (int64_t g = 0; !st && g < n; g++)
        if (sc->ids[g] != (uint32_t)g)
            st = floe_error(FLOE_ERR_INTERNAL, "HashAggregate: group %lld changed id moving to the general table", (long long)g);
    for (int32_t c = 0; c < p->n_groups; c++) floe_array_release(cols[c]);
    floe_free(cols);
    if (st) return st;
    floe_pk_table_free(&s->pt);
    s->packed = false;
    return NULL;
}

/* New groups [before, gt.n) keep the interval key values they first met
 * (their keys hold only totals).  Ids are handed out in order of first
 * appearance, so the k-th new id is met first at the row where it is
 * the next one expected. */
static floe_status keep_first_intervals(agg_stream *s, const uint32_t *sel, int64_t m, int64_t before) {
    const agg_plan *p = s->p;
    gtable *t = &s->gt;
    if (t->n == before) return NULL;
    int32_t n_iv = 0;
    for (int32_t c = 0; c < p->n_groups; c++) n_iv += s->key_types[c]->id == FLOE_TYPE_INTERVAL;
    if (!n_iv) return NULL;
    t->n_iv = n_iv;
    if (t->n > t->iv_cap) {
        int64_t cap = t->iv_cap ? t->iv_cap : 64;
        while (cap < t->n) cap *= 2;
        uint8_t *q = floe_realloc(t->iv_first, (size_t)cap * (size_t)n_iv * 16);
        if (!q) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: interval keys of %lld groups", (long long)cap);
        t->iv_first = q;
        t->iv_cap = cap;
    }
    uint32_t next = (uint32_t)before;
    for (int64_t k = 0; k < m && next < (uint32_t)t->n; k++) {
        if (s->sc.ids[k] != next) continue;
        int64_t r = sel ? sel[k] : k;
        int32_t j = 0;
        for (int32_t c = 0; c < p->n_groups; c++) {
            const floe_array *a = s->keys[c];
            if (a->type->id != FLOE_TYPE_INTERVAL) continue;
            uint8_t *dst = t->iv_first + ((size_t)next * (size_t)n_iv + (size_t)j++) * 16;
            if (floe_array_is_null(a, r)) memset(dst, 0, 16);
            else memcpy(dst, floe_array_get_fixed(a, r), 16);
        }
        next++;
    }
    return NULL;
}

/* The group id of each selected row (sel NULL: rows 0..m-1 of n) into
 * s->sc.ids[0..m), inserting new groups. */
static floe_status group_ids(agg_stream *s, int64_t n, const uint32_t *sel, int64_t m) {
    const agg_plan *p = s->p;
    scratch *sc = &s->sc;
    if (!p->n_groups) {
        memset(sc->ids, 0, (size_t)m * sizeof *sc->ids);
        return NULL;
    }
    if (s->packed) {
        bool fits;
        floe_pk_encode(&s->pl, s->keys, sel, m, sc->pkeys, &fits);
        if (fits) return floe_pk_probe(&s->pt, sc->pkeys, m, sc->ids);
        FLOE_TRY(unpack_groups(s));
    }
    FLOE_TRY(floe_hash_rows(s->keys, p->n_groups, n, sc->hashes));
    if (sel)
        for (int64_t k = 0; k < m; k++) sc->hashes[k] = sc->hashes[sel[k]]; /* sel[k] >= k */
    FLOE_TRY(hagg_encode_keys(sc, s->keys, p->n_groups, sel, m, NULL, s->gt.kw));
    FLOE_TRY(hagg_gt_reserve(&s->gt, m));
    int64_t before = s->gt.n;
    FLOE_TRY(hagg_gt_probe(&s->gt, m, sc->hashes, sc->bytes, sc->offs, sc->ids, NULL));
    return keep_first_intervals(s, sel, m, before);
}

/* A call with FILTER or a collector: the rows that count (selected, and
 * passing the FILTER) go to the call's fold or its collector. */
static floe_status consume_special(agg_stream *s, int32_t i, const uint32_t *sel, int64_t m) {
    const floe_agg_call *c = &s->p->calls[i];
    acc *a = &s->accs[i];
    const uint32_t *rows = sel, *ids = s->sc.ids;
    int64_t n = m;
    if (c->filter) {
        if (m > s->fcap) {
            uint32_t *fr = floe_realloc(s->frows, (size_t)m * sizeof *fr);
            if (fr) s->frows = fr;
            uint32_t *fi = fr ? floe_realloc(s->fids, (size_t)m * sizeof *fi) : NULL;
            if (fi) s->fids = fi;
            if (!fr || !fi) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "aggregate '%s': FILTER rows", c->name);
            s->fcap = m;
        }
        const floe_array *f = s->filt[i];
        n = 0;
        for (int64_t k = 0; k < m; k++) {
            int64_t r = sel ? sel[k] : k;
            if (f->type->id != FLOE_TYPE_BOOL || floe_array_is_null(f, r) || !floe_array_get_bool(f, r)) continue;
            s->frows[n] = (uint32_t)r;
            s->fids[n++] = s->sc.ids[k];
        }
        rows = s->frows;
        ids = s->fids;
    }
    floe_array *two[2] = {s->args[i], s->args2[i]};
    if (a->col) {
        floe_array *cols[2 + 64];
        int32_t nc = 0;
        if (c->arg) cols[nc++] = s->args[i];
        if (c->arg2) cols[nc++] = s->args2[i];
        for (int32_t k = 0; k < c->n_order && k < 64; k++) cols[nc++] = s->ords[s->ord_at[i] + k];
        return hagg_collect_add(a->col, cols, rows, ids, n);
    }
    if (a->kind == ACC_GENERIC) return hagg_generic_update(s, a, two, ids, rows, 0, n);
    return hagg_acc_update(s, a, s->args[i], ids, rows, 0, n);
}

/* Fold the rows sel[0..m) of batch b (sel NULL: all m rows) in. */
floe_status hagg_consume_batch(agg_stream *s, floe_batch *b, const uint32_t *sel, int64_t m) {
    const agg_plan *p = s->p;
    int64_t n = b->num_rows;
    if (m == 0) return NULL;
    FLOE_TRY(hagg_scratch_reserve(&s->sc, n));
    scratch *sc = &s->sc;
    bool final = s->merging;
    floe_status st = eval_inputs(s, b);
    if (st && sel) {
        /* Maybe a row the filter dropped failed (overflow, division by
         * zero): redo the batch on the selected rows alone, which fails
         * only if a selected row does. */
        release_inputs(s);
        floe_status_free(st);
        floe_batch *t = NULL;
        st = floe_batch_take(b, sel, m, &t);
        if (!st) st = hagg_consume_batch(s, t, NULL, m);
        floe_batch_release(t);
        return st;
    }
    /* 1-3: group ids */
    if (!st) st = group_ids(s, n, sel, m);
    if (!st) st = init_rows(s);
    /* DISTINCT calls (never with a selection: see hagg_execute) */
    floe_array **args = s->args;
    for (int32_t i = 0; i < p->n_calls && !st && !final; i++)
        if (p->calls[i].filter || s->accs[i].col) st = consume_special(s, i, sel, m);
    for (int32_t i = 0; i < p->n_calls && !st; i++) {
        if (s->accs[i].dset) {
            int64_t kept;
            st = distinct_filter(s, &s->accs[i], args[i], n, &kept);
            if (!st) st = hagg_acc_update(s, &s->accs[i], args[i], sc->sub_ids, sc->rows, 0, kept);
            if (st) st = floe_status_wrap_op(st, "aggregate '%s'", p->calls[i].name);
        }
    }
    /* 4: accumulators, in chunks of rows whose state rows stay in cache
     * while every aggregate folds them in */
    int64_t ng = hagg_n_groups_of(s);
    bool grouped = !final && ng <= FEW_GROUPS && m >= 64;
    if (grouped && !s->co && !(s->co = floe_malloc(sizeof *s->co)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: chunk order");
    for (int64_t c0 = 0; c0 < m && !st; c0 += AGG_CHUNK) {
        int64_t len = m - c0 < AGG_CHUNK ? m - c0 : AGG_CHUNK;
        int32_t col = p->n_groups;
        const uint32_t *rows = sel ? sel + c0 : NULL;
        if (grouped) hagg_order_chunk(s->co, ng, sc->ids + c0, rows, c0, len);
        for (int32_t i = 0; i < p->n_calls; i++) s->twin_done[i] = false;
        for (int32_t i = 0; i < p->n_calls && !st; i++) {
            acc *a = &s->accs[i];
            bool done = false, twin_done = false;
            if (final) {
                if (a->kind == ACC_GENERIC) st = hagg_generic_merge(s, a, b->columns[col], sc->ids + c0, c0, len);
                else st = hagg_acc_merge(s, a, b->columns + col, sc->ids + c0, c0, len);
                col += hagg_acc_state_cols(a);
            } else if (a->kind == ACC_GENERIC && !p->calls[i].filter && !a->col) {
                floe_array *two[2] = {args[i], s->args2[i]};
                st = hagg_generic_update(s, a, two, sc->ids + c0, rows, c0, len);
            } else if (!a->dset && !s->twin_done[i] && !p->calls[i].filter && !a->col && a->kind != ACC_HOLISTIC) {
                if (grouped) st = hagg_acc_update_grouped(s, a, args[i], s->co, &done, &twin_done);
                if (!st && !done) st = hagg_acc_update(s, a, args[i], sc->ids + c0, rows, c0, len);
                if (!st && twin_done) s->twin_done[a->twin] = true;
            }
            if (st) st = floe_status_wrap_op(st, "aggregate '%s'", p->calls[i].name);
        }
    }
    release_inputs(s);
    return st;
}

/* The next input batch (the one put aside for a flush first). */
static floe_status read_input(agg_stream *s, floe_batch **b, uint32_t **sel, int64_t *m) {
    if (s->pending) {
        *b = s->pending;
        *sel = s->pending_sel;
        *m = s->pending_m;
        s->pending = NULL;
        s->pending_sel = NULL;
        return NULL;
    }
    FLOE_TRY(floe_cancel_check(s->cancel, "HashAggregate"));
    if (s->sel_input) {
        FLOE_TRY(floe_filter_next_sel(s->child, b, sel, m));
        if (*b && !*sel) *m = (*b)->num_rows;
        return NULL;
    }
    FLOE_TRY(floe_stream_next(s->child, b));
    *m = *b ? (*b)->num_rows : 0;
    return NULL;
}

static floe_status agg_next_inner(agg_stream *s, floe_batch **out) {
    if (!s->mem_known) {
        s->mem_known = true;
        s->mem = floe_mem_current();
        s->limit = hagg_can_spill(s) ? floe_mem_limit(s->mem) : 0;
    }
    while (!s->consumed) {
        if (s->flushing) {
            /* PARTIAL under pressure: the groups so far go out now, the
             * FINAL above combines them with later ones */
            FLOE_TRY(hagg_emit_batch(s, out));
            if (*out) return NULL;
            hagg_reset_groups(s);
            s->flushing = false;
        }
        floe_batch *b = NULL;
        uint32_t *sel = NULL;
        int64_t m = 0;
        FLOE_TRY(read_input(s, &b, &sel, &m));
        if (!b) {
            s->consumed = true;
            break;
        }
        floe_status st = NULL;
        if (s->limit && m > 0 && hagg_n_groups_of(s) > 0 && hagg_under_pressure(s, m)) {
            if (s->p->mode == FLOE_AGG_MODE_PARTIAL) {
                s->pending = b;
                s->pending_sel = sel;
                s->pending_m = m;
                s->flushing = true;
                continue;
            }
            st = hagg_spill_groups(s);
        }
        if (!st) st = hagg_consume_batch(s, b, sel, m);
        floe_free(sel);
        floe_batch_release(b);
        FLOE_TRY(st);
    }
    FLOE_TRY(floe_cancel_check(s->cancel, "HashAggregate"));
    if (s->spill) return hagg_spill_next(s, out);
    for (int32_t i = 0; !s->collected && i < s->p->n_calls; i++)
        if (s->accs[i].col) FLOE_TRY(floe_status_wrap_op(hagg_collect_finish(s, i), "aggregate '%s'", s->p->calls[i].name));
    s->collected = true;
    return hagg_emit_batch(s, out);
}

static floe_status agg_next(floe_stream *s_, floe_batch **out) {
    agg_stream *s = (agg_stream *)s_;
    *out = NULL;
    if (s->err) return floe_error(floe_status_code(s->err), "%s", floe_status_message(s->err));
    floe_status st = agg_next_inner(s, out);
    if (st) {
        s->err = floe_error(floe_status_code(st), "%s", floe_status_message(st));
        if (!s->err) s->err = floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate failed");
    }
    return st;
}

static void agg_close(floe_stream *s_) {
    agg_stream *s = (agg_stream *)s_;
    floe_stream_close(s->child);
    hagg_spill_free(s);
    floe_batch_release(s->pending);
    floe_free(s->pending_sel);
    floe_type_release(s->state_schema);
    if (s->accs) hagg_reset_groups(s); /* the groups' own memory */
    for (int32_t i = 0; s->accs && i < s->p->n_calls; i++) {
        acc *a = &s->accs[i];
        floe_type_release(a->info.out_type);
        floe_array_release(a->res);
        hagg_collect_free(a->col);
        floe_type_release(a->out_type);
        floe_type_release(a->state_type);
        hagg_gt_free(a->dset);
        floe_free(a->dset);
    }
    floe_free(s->accs);
    floe_free(s->states);
    if (s->args && s->args2 && s->filt && s->ords && s->ord_at && s->keys) release_inputs(s);
    floe_free(s->args);
    floe_free(s->args2);
    floe_free(s->filt);
    floe_free(s->ords);
    floe_free(s->ord_at);
    floe_free(s->frows);
    floe_free(s->fids);
    if (s->keys)
        for (int32_t c = 0; c < s->p->n_groups; c++) floe_array_release(s->keys[c]);
    floe_free(s->keys);
    hagg_gt_free(&s->gt);
    floe_pk_table_free(&s->pt);
    floe_free(s->key_types);
    floe_free(s->co);
    floe_free(s->twin_done);
    hagg_scratch_free(&s->sc);
    floe_status_free(s->err);
    floe_free(s);
}

floe_status hagg_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    const agg_plan *p = (const agg_plan *)p_;
    agg_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashAggregate stream");
    s->base.next = agg_next;
    s->base.close = agg_close;
    s->p = p;
    s->cancel = ctx->cancel;
    s->batch_size = ctx->batch_size > 0 ? ctx->batch_size : 8192;
    s->temp_dir = ctx->temp_dir;
    s->metrics = ctx->metrics;
    s->partition = partition;
    s->merging = p->mode == FLOE_AGG_MODE_FINAL;
    floe_status st = NULL;
    s->accs = floe_calloc((size_t)(p->n_calls ? p->n_calls : 1), sizeof *s->accs);
    s->keys = floe_calloc((size_t)(p->n_groups ? p->n_groups : 1), sizeof *s->keys);
    if (!s->accs || !s->keys) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashAggregate stream");
    int32_t n_ords = 0;
    for (int32_t i = 0; i < p->n_calls; i++) n_ords += p->calls[i].n_order;
    size_t ncs = (size_t)(p->n_calls ? p->n_calls : 1);
    if (!st) {
        s->args = floe_calloc(ncs, sizeof *s->args);
        s->args2 = floe_calloc(ncs, sizeof *s->args2);
        s->filt = floe_calloc(ncs, sizeof *s->filt);
        s->ords = floe_calloc((size_t)(n_ords ? n_ords : 1), sizeof *s->ords);
        s->ord_at = floe_calloc(ncs, sizeof *s->ord_at);
        if (!s->args || !s->args2 || !s->filt || !s->ords || !s->ord_at)
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashAggregate stream");
        for (int32_t i = 0, k = 0; !st && i < p->n_calls; k += p->calls[i].n_order, i++) s->ord_at[i] = k;
    }
    for (int32_t i = 0; i < p->n_calls && !st; i++) {
        st = hagg_acc_setup(&s->accs[i], p, i);
        if (!st && p->mode == FLOE_AGG_MODE_SINGLE && hagg_call_collects(&p->calls[i])) {
            collector *c = floe_calloc(1, sizeof *c);
            if (!c) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashAggregate stream");
            else c->ncols = (p->calls[i].arg != NULL) + (p->calls[i].arg2 != NULL) + p->calls[i].n_order;
            s->accs[i].col = c;
            if (!st && c->ncols > 66)
                st = floe_error(FLOE_ERR_UNSUPPORTED, "aggregate '%s': more than 64 ORDER BY keys", p->calls[i].name);
        }
        if (!st && p->calls[i].distinct && !s->accs[i].col && !(s->accs[i].dset = floe_calloc(1, sizeof(gtable))))
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashAggregate stream");
        if (!st && s->accs[i].dset) s->accs[i].dset->kw = hagg_fixed_key_width(&p->arg_types[i], 1, true);
    }
    if (!st && p->n_groups) {
        floe_type **kt = floe_calloc((size_t)p->n_groups, sizeof *kt);
        if (!kt) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashAggregate stream");
        for (int32_t c = 0; kt && c < p->n_groups; c++) kt[c] = p->head.schema->children[c].type;
        if (kt) s->gt.kw = hagg_fixed_key_width(kt, p->n_groups, false);
        if (kt) s->packed = floe_pk_layout_init(&s->pl, kt, p->n_groups);
        s->key_types = kt;
    }
    if (!st && !(s->twin_done = floe_calloc((size_t)(p->n_calls ? p->n_calls : 1), sizeof *s->twin_done)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashAggregate stream");
    for (int32_t i = 0; s->accs && i < p->n_calls; i++) s->accs[i].twin = -1;
    for (int32_t i = 0; !st && p->mode != FLOE_AGG_MODE_FINAL && i < p->n_calls; i++) {
        /* sum(x) next to avg(x): one loop folds both (twin_sums) */
        acc *a = &s->accs[i];
        bool dec = a->kind == ACC_SUM_I128 || a->kind == ACC_AVG_I128;
        bool flt = a->kind == ACC_SUM_F64 || a->kind == ACC_AVG_F64;
        if ((!dec && !flt) || a->dset || a->is_twin || p->calls[i].filter || a->col) continue;
        for (int32_t j = i + 1; j < p->n_calls && a->twin < 0; j++) {
            acc *b = &s->accs[j];
            bool bdec = b->kind == ACC_SUM_I128 || b->kind == ACC_AVG_I128;
            bool bflt = b->kind == ACC_SUM_F64 || b->kind == ACC_AVG_F64;
            if (b->dset || b->is_twin || (dec ? !bdec : !bflt) || p->calls[j].filter || b->col ||
                !floe_expr_same(p->calls[i].arg, p->calls[j].arg))
                continue;
            a->twin = j;
            b->is_twin = true;
        }
    }
    if (!st) {
        layout_accs(s);
        st = init_rows(s); /* the one group of an aggregate without keys */
    }
    if (!st) st = floe_plan_execute(p->head.children[0], partition, ctx, &s->child);
    if (!st && p->mode != FLOE_AGG_MODE_FINAL && floe_filter_stream_selects(s->child)) {
        s->sel_input = true;
        for (int32_t i = 0; i < p->n_calls; i++)
            if (s->accs[i].dset) s->sel_input = false; /* distinct_filter works on whole batches */
    }
    if (st) {
        agg_close(&s->base);
        return st;
    }
    *out = &s->base;
    return NULL;
}

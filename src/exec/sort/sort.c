/*
 * sort.c — the Sort node: each partition of the child sorted by a list of
 * keys (stable), or only its first `fetch` rows (top-N).
 *
 * Full sort: the partition's batches are gathered into one, the keys are
 * evaluated once over it and the rows ordered by floe_sk_sort_rows (radix
 * on a prefix of the first key, merge sort for ties); output batches of
 * ctx->batch_size rows are then gathered with floe_batch_take.
 *
 * Under a memory limit the full sort is external: every input batch it
 * keeps first reserves as much again from the query's tracker (the room
 * gathering and ordering it will take).  When a reservation is refused the
 * batches held so far are sorted as one run and written to a spill file
 * (exec/spill), and reading goes on; at the end the rest is spilled too
 * and the runs are merged (floe_sk_merge_streams, one batch per run in
 * memory).  Without a limit nothing is reserved and nothing spills.
 *
 * Top-N keeps a bounded max-heap of the best `fetch` rows seen so far,
 * each entry naming a retained input batch ("slot"), a row in it and the
 * row's arrival number (ties go to the earlier row, so the result equals
 * a stable sort followed by a limit).  A slot is released as soon as none
 * of its rows is in the heap; when the retained batches hold much more
 * than the heap needs they are compacted into one, so memory stays
 * O(fetch + batch size).
 */
#include <string.h>

#include "exec/plan_internal.h"
#include "exec/sort/sort_keys.h"
#include "exec/spill/spill.h"
#include "floe/exec_ops.h"
#include "base/threadpool.h"

typedef struct tn_slot {
    floe_batch *b;     /* NULL: free slot */
    floe_array **keys; /* evaluated keys of b */
    int64_t live;      /* heap entries pointing here */
} tn_slot;

typedef struct tn_entry {
    uint32_t slot, row;
    uint64_t seq; /* arrival order: the tie-breaker */
} tn_entry;

typedef struct sort_stream {
    floe_stream base;
    const floe_sort_plan *p;
    floe_stream *child;
    const floe_cancel *cancel;
    int64_t batch_size;
    bool ready;        /* input consumed, output prepared */
    floe_batch *src;   /* the rows to output from */
    uint32_t *order;   /* rows of src in output order */
    int64_t n_order, pos;
    /* top-N */
    tn_slot *slots;
    int32_t n_slots;
    tn_entry *heap;
    int64_t heap_n, heap_cap;
    int64_t retained;  /* rows of live slots */
    uint64_t seq;
    /* external sort */
    const char *temp_dir;
    floe_exec_ctx ctx;          /* for the merge */
    floe_batch **held;          /* input batches not yet in a run */
    int64_t n_held, cap_held, held_rows;
    floe_mem_tracker *res_mem;  /* the tracker `reserved` is charged to */
    int64_t reserved;
    floe_spill_file **runs;
    int32_t n_runs, cap_runs;
    floe_stream *merged;        /* the merge of the runs, once read */
} sort_stream;

/* ------------------------------------------------------------- full sort */

static void release_reservation(sort_stream *s) {
    if (s->reserved) floe_mem_release(s->res_mem, s->reserved);
    s->reserved = 0;
}

static void drop_held(sort_stream *s) {
    floe_exec_batches_free(s->held, s->n_held);
    s->held = NULL;
    s->n_held = s->cap_held = s->held_rows = 0;
}

/* Sort the held batches as one run and write it to a new spill file. */
static floe_status spill_run_inner(sort_stream *s);

/* The room reserved is what writing the run takes: released, and the
 * thread exempt from the limit meanwhile, so another partition's
 * reservation cannot take it in between. */
static floe_status spill_run(sort_stream *s) {
    release_reservation(s);
    bool prev = floe_mem_set_exempt(true);
    floe_status st = spill_run_inner(s);
    floe_mem_set_exempt(prev);
    return st;
}

static floe_status spill_run_inner(sort_stream *s) {
    const floe_sort_plan *p = s->p;
    if (s->n_runs == s->cap_runs) {
        int32_t nc = s->cap_runs ? s->cap_runs * 2 : 8;
        floe_spill_file **r2 = floe_realloc(s->runs, (size_t)nc * sizeof *r2);
        if (!r2) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Sort: list of spilled runs");
        s->runs = r2;
        s->cap_runs = nc;
    }
    floe_batch *all = NULL;
    floe_status st = floe_batch_concat(s->held, (int32_t)s->n_held, &all);
    drop_held(s);
    if (st) return floe_status_wrap(st, "Sort: gathering a run to spill");
    floe_array **keys = floe_calloc((size_t)p->n_keys, sizeof *keys);
    uint32_t *order = NULL;
    floe_spill_file *f = NULL;
    st = keys ? floe_sk_eval(p->keys, p->n_keys, all, keys) : floe_error(FLOE_ERR_OUT_OF_MEMORY, "Sort: keys of a run");
    if (!st) st = floe_sk_sort_rows(p->keys, p->n_keys, keys, all->num_rows, &order);
    if (keys) floe_sk_release(keys, p->n_keys);
    floe_free(keys);
    if (!st) st = floe_spill_open(s->temp_dir, "Sort", &f);
    for (int64_t pos = 0; !st && pos < all->num_rows; pos += s->batch_size) {
        int64_t len = all->num_rows - pos < s->batch_size ? all->num_rows - pos : s->batch_size;
        floe_batch *b = NULL;
        st = floe_batch_take(all, order + pos, len, &b);
        if (!st) st = floe_spill_write(f, b);
        floe_batch_release(b);
        if (!st) st = floe_cancel_check(s->cancel, "Sort");
    }
    floe_free(order);
    floe_batch_release(all);
    if (st) {
        floe_spill_close(f);
        return st;
    }
    s->runs[s->n_runs++] = f;
    return NULL;
}

/* What holding b costs on top of its own memory until its run is sorted:
 * its copy in the gathered run, the evaluated keys, the row order and the
 * sort's scratch (about three times its bytes and 16 bytes a row). */
static int64_t reserve_for(const floe_batch *b) { return 3 * floe_batch_bytes(b) + 16 * b->num_rows; }

/* Reserve, keeping a quarter of the limit free for the batches other
 * operators (and this one's input and output) have in flight. */
static bool try_reserve(sort_stream *s, int64_t need) {
    int64_t lim = floe_mem_limit(s->res_mem);
    if (floe_mem_available(s->res_mem) - need < lim / 4) return false;
    return floe_mem_try_reserve(s->res_mem, need);
}

/* Read the whole input, spilling sorted runs whenever the limit says no,
 * then merge the runs.  Returns with s->merged set, or with s->held the
 * whole input (nothing spilled) for the in-memory sort. */
static floe_status external_gather(sort_stream *s) {
    s->res_mem = floe_mem_current();
    for (;;) {
        floe_batch *b = NULL;
        FLOE_TRY(floe_cancel_check(s->cancel, "Sort"));
        FLOE_TRY(floe_stream_next(s->child, &b));
        if (!b) break;
        if (b->num_rows == 0) {
            floe_batch_release(b);
            continue;
        }
        int64_t need = reserve_for(b);
        bool ok = try_reserve(s, need);
        if (!ok && s->n_held > 0) {
            /* The batch stays held while the run is written: its own
             * memory is already paid for. */
            floe_status st = spill_run(s);
            if (st) {
                floe_batch_release(b);
                return st;
            }
            ok = try_reserve(s, need);
        }
        if (ok) s->reserved += need;
        if (s->n_held == s->cap_held) {
            int64_t nc = s->cap_held ? s->cap_held * 2 : 64;
            floe_batch **h2 = floe_realloc(s->held, (size_t)nc * sizeof *h2);
            if (!h2) {
                floe_batch_release(b);
                return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Sort: holding %lld batches", (long long)nc);
            }
            s->held = h2;
            s->cap_held = nc;
        }
        s->held[s->n_held++] = b;
        s->held_rows += b->num_rows;
        if (s->held_rows > (int64_t)UINT32_MAX / 2) FLOE_TRY(spill_run(s));
    }
    if (s->n_runs == 0) {
        release_reservation(s);
        return NULL;
    }
    if (s->n_held > 0) FLOE_TRY(spill_run(s));
    floe_stream **in = floe_calloc((size_t)s->n_runs, sizeof *in);
    if (!in) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Sort: merging %d spilled runs", s->n_runs);
    floe_status st = NULL;
    int32_t n = s->n_runs;
    for (int32_t i = 0; i < n; i++) {
        floe_status e = floe_spill_stream(s->runs[i], &in[i]); /* takes the file */
        s->runs[i] = NULL;
        if (e && !st) st = e;
        else floe_status_free(e);
    }
    s->n_runs = 0;
    if (st) {
        for (int32_t i = 0; i < n; i++)
            if (in[i]) floe_stream_close(in[i]);
        floe_free(in);
        return st;
    }
    st = floe_sk_merge_streams(s->p, in, n, &s->ctx, &s->merged);
    floe_free(in);
    return st;
}

static floe_status sort_src(sort_stream *s);

static floe_status full_sort(sort_stream *s) {
    if (floe_mem_limit(floe_mem_current()) > 0) {
        FLOE_TRY(external_gather(s));
        if (s->merged || s->n_held == 0) return NULL;
        /* Everything fit: sort it in memory below. */
        floe_batch **held = s->held;
        int64_t n = s->n_held;
        s->held = NULL;
        s->n_held = s->cap_held = s->held_rows = 0;
        bool prev = floe_mem_set_exempt(true); /* as in spill_run */
        floe_status st = floe_batch_concat(held, (int32_t)n, &s->src);
        floe_exec_batches_free(held, n);
        if (!st) st = sort_src(s);
        floe_mem_set_exempt(prev);
        return st;
    }
    floe_status st = floe_exec_drain_concat(s->child, s->cancel, "Sort", &s->src);
    if (st || !s->src) return st;
    return sort_src(s);
}

/* Order the rows of s->src. */
static floe_status sort_src(sort_stream *s) {
    const floe_sort_plan *p = s->p;
    floe_status st = NULL;
    floe_array **keys = floe_calloc((size_t)p->n_keys, sizeof *keys);
    if (!keys) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Sort: evaluating keys");
    st = floe_sk_eval(p->keys, p->n_keys, s->src, keys);
    if (!st) st = floe_sk_sort_rows(p->keys, p->n_keys, keys, s->src->num_rows, &s->order);
    if (!st) s->n_order = s->src->num_rows;
    floe_sk_release(keys, p->n_keys);
    floe_free(keys);
    return st;
}

/* ----------------------------------------------------------------- top-N */

static void slot_free(sort_stream *s, uint32_t i) {
    tn_slot *sl = &s->slots[i];
    if (!sl->b) return;
    s->retained -= sl->b->num_rows;
    floe_sk_release(sl->keys, s->p->n_keys);
    floe_free(sl->keys);
    floe_batch_release(sl->b);
    memset(sl, 0, sizeof *sl);
}

/* Entry order: keys, then arrival. */
static int entry_cmp(const sort_stream *s, const tn_entry *a, const tn_entry *b) {
    int c = floe_sk_compare(s->p->keys, s->p->n_keys, s->slots[a->slot].keys, a->row, s->slots[b->slot].keys,
                            b->row);
    if (c) return c;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int entry_index_cmp(void *ctx, uint32_t x, uint32_t y) {
    const sort_stream *s = ctx;
    return entry_cmp(s, &s->heap[x], &s->heap[y]);
}

static void sift_up(sort_stream *s, int64_t i) {
    tn_entry e = s->heap[i];
    while (i > 0) {
        int64_t parent = (i - 1) / 2;
        if (entry_cmp(s, &s->heap[parent], &e) >= 0) break;
        s->heap[i] = s->heap[parent];
        i = parent;
    }
    s->heap[i] = e;
}

static void sift_down(sort_stream *s, int64_t i) {
    tn_entry e = s->heap[i];
    int64_t n = s->heap_n;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && entry_cmp(s, &s->heap[c + 1], &s->heap[c]) > 0) c++;
        if (entry_cmp(s, &s->heap[c], &e) <= 0) break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    s->heap[i] = e;
}

/* A free slot index for a new batch (growing the table). */
static floe_status slot_alloc(sort_stream *s, uint32_t *out) {
    for (int32_t i = 0; i < s->n_slots; i++)
        if (!s->slots[i].b) {
            *out = (uint32_t)i;
            return NULL;
        }
    tn_slot *n2 = floe_realloc(s->slots, (size_t)(s->n_slots + 1) * sizeof *n2);
    if (!n2) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Sort: top-N slots");
    s->slots = n2;
    memset(&s->slots[s->n_slots], 0, sizeof *s->slots);
    *out = (uint32_t)s->n_slots++;
    return NULL;
}

/* Gather every heap row into one batch (slot 0) and free the rest. */
static floe_status topn_compact(sort_stream *s) {
    int32_t ns = s->n_slots, nk = s->p->n_keys;
    int64_t m = s->heap_n;
    int32_t used = 0, last = -1;
    for (int32_t i = 0; i < ns; i++)
        if (s->slots[i].b) {
            used++;
            last = i;
        }
    if (used == 0 || (used == 1 && s->slots[last].b->num_rows == m)) return NULL;
    int64_t *base = floe_calloc((size_t)ns + 1, sizeof *base);
    int64_t *fill = floe_calloc((size_t)ns + 1, sizeof *fill);
    uint32_t *rows = floe_malloc_array((size_t)(m ? m : 1), sizeof *rows);
    floe_batch **parts = floe_calloc((size_t)ns + 1, sizeof *parts);
    floe_array **kparts = floe_calloc((size_t)(ns + 1) * (size_t)nk, sizeof *kparts);
    floe_array **nkeys = floe_calloc((size_t)nk, sizeof *nkeys);
    floe_batch *nb = NULL;
    int32_t np = 0;
    floe_status st = NULL;
    if (!base || !fill || !rows || !parts || !kparts || !nkeys) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "Sort: compacting top-N rows");
        goto done;
    }
    for (int64_t i = 0; i < m; i++) base[s->heap[i].slot + 1]++;
    for (int32_t i = 0; i < ns; i++) base[i + 1] += base[i];
    for (int64_t i = 0; i < m; i++) {
        tn_entry *e = &s->heap[i];
        int64_t at = base[e->slot] + fill[e->slot]++;
        rows[at] = e->row;
    }
    for (int32_t i = 0; i < ns && !st; i++) {
        int64_t cnt = base[i + 1] - base[i];
        if (!cnt) continue;
        st = floe_batch_take(s->slots[i].b, rows + base[i], cnt, &parts[np]);
        for (int32_t k = 0; k < nk && !st; k++)
            st = floe_array_take(s->slots[i].keys[k], rows + base[i], cnt, &kparts[(size_t)k * (size_t)(ns + 1) + (size_t)np]);
        np++;
    }
    if (!st && np > 0) st = floe_batch_concat(parts, np, &nb);
    for (int32_t k = 0; k < nk && !st && np > 0; k++)
        st = floe_array_concat(&kparts[(size_t)k * (size_t)(ns + 1)], np, &nkeys[k]);
    if (st) goto done;
    /* New positions: slot order, then heap order within a slot. */
    memset(fill, 0, ((size_t)ns + 1) * sizeof *fill);
    for (int64_t i = 0; i < m; i++) {
        tn_entry *e = &s->heap[i];
        e->row = (uint32_t)(base[e->slot] + fill[e->slot]++);
        e->slot = 0;
    }
    for (int32_t i = 0; i < ns; i++) slot_free(s, (uint32_t)i);
    s->n_slots = ns > 0 ? 1 : 0;
    if (nb) {
        s->slots[0].b = nb;
        s->slots[0].keys = nkeys;
        s->slots[0].live = m;
        s->retained = nb->num_rows;
        nb = NULL;
        nkeys = NULL;
    }
done:
    if (parts)
        for (int32_t i = 0; i < np; i++) floe_batch_release(parts[i]);
    if (kparts)
        for (size_t i = 0; i < (size_t)(ns + 1) * (size_t)nk; i++) floe_array_release(kparts[i]);
    if (nkeys) floe_sk_release(nkeys, nk);
    floe_batch_release(nb);
    floe_free(nkeys);
    floe_free(kparts);
    floe_free(parts);
    floe_free(rows);
    floe_free(fill);
    floe_free(base);
    return st;
}

/* Offer every row of batch b (its keys evaluated into slot `si`). */
static void topn_offer(sort_stream *s, uint32_t si) {
    const floe_sort_plan *p = s->p;
    tn_slot *sl = &s->slots[si];
    int64_t n = sl->b->num_rows;
    for (int64_t r = 0; r < n; r++) {
        tn_entry e = {si, (uint32_t)r, s->seq++};
        if (s->heap_n < p->fetch) {
            s->heap[s->heap_n++] = e;
            sl->live++;
            sift_up(s, s->heap_n - 1);
            continue;
        }
        tn_entry *top = &s->heap[0];
        /* A later row replaces the top only when strictly smaller. */
        if (floe_sk_compare(p->keys, p->n_keys, sl->keys, r, s->slots[top->slot].keys, top->row) >= 0) continue;
        uint32_t old = top->slot;
        *top = e;
        sl->live++;
        sift_down(s, 0);
        if (--s->slots[old].live == 0 && old != si) slot_free(s, old);
    }
}

static floe_status topn(sort_stream *s) {
    const floe_sort_plan *p = s->p;
    if (p->fetch == 0) return NULL;
    floe_status st = NULL;
    for (;;) {
        floe_batch *b = NULL;
        if ((st = floe_cancel_check(s->cancel, "Sort"))) return st;
        FLOE_TRY(floe_stream_next(s->child, &b));
        if (!b) break;
        if (b->num_rows == 0 || b->num_rows > (int64_t)UINT32_MAX) {
            bool big = b->num_rows != 0;
            floe_batch_release(b);
            if (big) return floe_error(FLOE_ERR_UNSUPPORTED, "Sort: a batch of more than %u rows", UINT32_MAX);
            continue;
        }
        /* The heap grows with the input: fetch may be far larger. */
        int64_t need = s->heap_n + b->num_rows < p->fetch ? s->heap_n + b->num_rows : p->fetch;
        if (need > s->heap_cap) {
            int64_t nc = s->heap_cap * 2 > need ? s->heap_cap * 2 : need;
            if (nc > p->fetch) nc = p->fetch;
            tn_entry *h2 = floe_realloc(s->heap, (size_t)nc * sizeof *h2);
            if (!h2) {
                floe_batch_release(b);
                return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Sort: top-N heap of %lld rows", (long long)nc);
            }
            s->heap = h2;
            s->heap_cap = nc;
        }
        uint32_t si;
        floe_array **keys = floe_calloc((size_t)p->n_keys, sizeof *keys);
        st = keys ? floe_sk_eval(p->keys, p->n_keys, b, keys) : floe_error(FLOE_ERR_OUT_OF_MEMORY, "Sort: keys");
        if (!st) st = slot_alloc(s, &si);
        if (st) {
            floe_free(keys);
            floe_batch_release(b);
            return st;
        }
        s->slots[si].b = b;
        s->slots[si].keys = keys;
        s->slots[si].live = 0;
        s->retained += b->num_rows;
        topn_offer(s, si);
        if (s->slots[si].live == 0) slot_free(s, si);
        if (s->retained > 2 * s->heap_n + s->batch_size) FLOE_TRY(topn_compact(s));
    }
    if (s->heap_n == 0) return NULL;
    FLOE_TRY(topn_compact(s));
    /* Every survivor now sits in one slot; order them by (keys, arrival). */
    uint32_t *idx = floe_malloc_array((size_t)s->heap_n, sizeof *idx);
    if (!idx) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Sort: ordering top-N rows");
    for (int64_t i = 0; i < s->heap_n; i++) idx[i] = (uint32_t)i;
    st = floe_sk_stable_sort(idx, s->heap_n, entry_index_cmp, s);
    if (st) {
        floe_free(idx);
        return st;
    }
    for (int64_t i = 0; i < s->heap_n; i++) idx[i] = s->heap[idx[i]].row;
    s->order = idx;
    s->n_order = s->heap_n;
    s->src = floe_batch_retain(s->slots[s->heap[0].slot].b);
    return NULL;
}

static floe_status prepare(sort_stream *s) { return s->p->fetch < 0 ? full_sort(s) : topn(s); }

/* ---------------------------------------------------------------- stream */

static floe_status sort_next(floe_stream *s_, floe_batch **out) {
    sort_stream *s = (sort_stream *)s_;
    *out = NULL;
    FLOE_TRY(floe_cancel_check(s->cancel, "Sort"));
    if (!s->ready) {
        FLOE_TRY(prepare(s));
        s->ready = true;
    }
    if (s->merged) return floe_stream_next(s->merged, out);
    if (s->pos >= s->n_order) return NULL;
    int64_t len = s->n_order - s->pos;
    if (len > s->batch_size) len = s->batch_size;
    FLOE_TRY(floe_batch_take(s->src, s->order + s->pos, len, out));
    s->pos += len;
    return NULL;
}

static void sort_close(floe_stream *s_) {
    sort_stream *s = (sort_stream *)s_;
    floe_stream_close(s->child);
    if (s->merged) floe_stream_close(s->merged);
    for (int32_t i = 0; i < s->n_runs; i++) floe_spill_close(s->runs[i]);
    floe_free(s->runs);
    drop_held(s);
    release_reservation(s);
    for (int32_t i = 0; i < s->n_slots; i++) slot_free(s, (uint32_t)i);
    floe_free(s->slots);
    floe_free(s->heap);
    floe_free(s->order);
    floe_batch_release(s->src);
    floe_free(s);
}

static floe_status sort_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                floe_stream **out) {
    sort_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a Sort stream");
    s->p = (const floe_sort_plan *)p;
    s->cancel = ctx->cancel;
    s->batch_size = ctx->batch_size > 0 ? ctx->batch_size : 8192;
    s->temp_dir = ctx->temp_dir;
    s->ctx = *ctx;
    s->base.next = sort_next;
    s->base.close = sort_close;
    floe_status st = floe_plan_execute(p->children[0], partition, ctx, &s->child);
    if (st) {
        floe_free(s);
        return st;
    }
    *out = &s->base;
    return NULL;
}

/* ------------------------------------------------------------------ node */

static floe_status sort_encode(const floe_plan *p_, floe_buf *out) {
    const floe_sort_plan *p = (const floe_sort_plan *)p_;
    FLOE_TRY(floe_sk_encode(out, p->keys, p->n_keys));
    return floe_codec_put_i64(out, p->fetch);
}

static floe_status sort_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    floe_sort_key *keys;
    int32_t n;
    int64_t fetch = 0;
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "Sort with %d children", n_children);
    FLOE_TRY(floe_sk_decode(r, &keys, &n));
    floe_status st = floe_codec_get_i64(r, &fetch);
    if (!st) st = floe_plan_sort(children[0], keys, n, fetch, out);
    floe_sk_free_keys(keys, n);
    return st;
}

static floe_status sort_explain(const floe_plan *p_, floe_buf *out) {
    const floe_sort_plan *p = (const floe_sort_plan *)p_;
    return floe_sk_explain(out, p->keys, p->n_keys, p->fetch);
}

static void sort_free(floe_plan *p_) {
    floe_sort_plan *p = (floe_sort_plan *)p_;
    floe_sk_free_keys(p->keys, p->n_keys);
}

const floe_plan_vtable floe_sort_vt = {
    .name = "Sort",
    .execute = sort_execute,
    .encode_parts = sort_encode,
    .decode_parts = sort_decode,
    .explain_parts = sort_explain,
    .free_parts = sort_free,
    .child_read = floe_exec_child_read_local,
};

floe_status floe_plan_sort(floe_plan *child, const floe_sort_key *keys, int32_t n_keys, int64_t fetch,
                           floe_plan **out) {
    *out = NULL;
    if (fetch < -1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Sort: fetch %lld", (long long)fetch);
    FLOE_TRY(floe_sk_check("Sort", keys, n_keys, child->schema));
    floe_sort_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Sort node");
    p->fetch = fetch;
    floe_status st = floe_exec_plan_init(&p->head, &floe_sort_vt, child->schema, child->n_partitions, &child, 1);
    if (!st) st = floe_sk_copy_keys(keys, n_keys, &p->keys);
    if (!st) p->n_keys = n_keys;
    if (!st) st = floe_exec_plan_set_ordering(&p->head, keys, n_keys);
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

int32_t floe_sort_num_keys(const floe_plan *p) { return ((const floe_sort_plan *)p)->n_keys; }
const floe_sort_key *floe_sort_key_at(const floe_plan *p, int32_t i) { return &((const floe_sort_plan *)p)->keys[i]; }
int64_t floe_sort_fetch(const floe_plan *p) { return ((const floe_sort_plan *)p)->fetch; }

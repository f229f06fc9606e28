/*
 * agg_spill.c — HashAggregate under a memory limit (SET memory_limit).
 *
 * Before folding a batch in, the stream asks whether the groups it may
 * add fit: the bytes the next growth of its arrays would allocate (state
 * rows, the packed or general table's keys and slots, the key store —
 * each doubles, so a growth is a new block as large as the old one twice)
 * against what the query's tracker still has, keeping a quarter of the
 * limit for the batches in flight elsewhere (as the Sort does); and each
 * of the node's partitions keeps its table and its next growth within its
 * share of a third of the limit (a PARTIAL one within a sixteenth), so
 * partitions running side by side all find room.  When they do not fit:
 *
 *   PARTIAL   emits the groups it holds now (a flush) and starts afresh:
 *             the FINAL above combines a group's partial states whenever
 *             they arrive, so nothing needs to touch disk;
 *   SINGLE,   spill: the groups are written as state batches (the PARTIAL
 *   FINAL     layout: keys, then each call's state columns — the registry's
 *             serialized states for its entries) into 2^HAGG_SPILL_BITS
 *             spill files by the top bits of the hash of their keys
 *             (floe_hash_rows, which hashes equal keys alike: -0.0 and
 *             0.0, '1 mon' and '30 days'), the table is freed, and reading
 *             goes on.  When the input ends what is left is spilled too,
 *             then every file is re-aggregated on its own as FINAL input
 *             (every group lives in exactly one file, so its groups are
 *             final when the file ends) and output before the next one is
 *             read.  A file whose groups still do not fit is split the same
 *             way by the next bits of the hash into files of its own,
 *             recursively (up to HAGG_SPILL_MAX_DEPTH levels).
 *
 * A spill file keeps batches in the order written, so a group's states
 * are combined in input order, and a group keeps the interval key value
 * it met first.  Calls that keep rows to the end (DISTINCT, ORDER BY,
 * holistic entries: collectors and DISTINCT tables) have no state batch;
 * an aggregate with such a call does not spill and runs out of memory as
 * before, with the limit's error.  Memory a state owns outside its row
 * (min / max strings, entries with destroy) is guessed at 64 bytes a
 * group; approx_count_distinct's sketches are far larger, so many groups
 * of it can still run out.  Results equal the in-memory path's except
 * where floating-point sums are added in another order (and ties of
 * arg_min / arg_max, which any order may break).
 *
 * Spill files are anonymous (exec/spill): nothing is left behind on any
 * exit path.  EXPLAIN ANALYZE shows the files and bytes each partition
 * spilled ("spilled=16 files 4.6MiB"); FLOE_LOG=debug logs each round.
 */
#include <string.h>

#include "base/log.h"
#include "exec/agg/hash_agg_internal.h"
#include "exec/spill/spill.h"
#include "floe/exec_metrics.h"
#include "floe/memory.h"

/* 4 bits a level: 12 levels use 48 of the hash's 64 bits. */
#define HAGG_SPILL_MAX_DEPTH 12

typedef struct spill_part {
    floe_spill_file *f;
    int32_t depth; /* levels of hash bits its groups share */
} spill_part;

typedef struct hagg_spill {
    spill_part *stack; /* files not re-aggregated yet */
    int32_t n, cap;
    /* the level being written: files by the hash bits at out_depth */
    floe_spill_file *out[HAGG_SPILL_FANOUT];
    int32_t out_depth;
    bool input_done;     /* the input's groups are all in files */
    bool emitting;       /* the groups of a re-aggregated file go out */
    uint64_t *hashes;    /* scratch */
    uint32_t *idx;
    int64_t scratch_cap;
    /* what was spilled (for the debug log) */
    int64_t files, bytes, rows, rounds;
    int32_t max_depth;
} hagg_spill;

bool hagg_can_spill(const agg_stream *s) {
    if (!s->p->n_groups) return false;
    for (int32_t i = 0; i < s->p->n_calls; i++)
        if (s->accs[i].col || s->accs[i].dset || s->accs[i].kind == ACC_HOLISTIC) return false;
    return true;
}

/* The capacity a doubling array of `cap` (first size `first`) grows to
 * for `need` elements, or 0 when it does not grow. */
static int64_t grown(int64_t cap, int64_t need, int64_t first) {
    if (need <= cap) return 0;
    int64_t c = cap ? cap : first;
    while (c < need) c *= 2;
    return c;
}

/* Slots a table of `slots` slots at load <= 1/2 grows to, or 0. */
static int64_t grown_slots(uint64_t slots, int64_t need) {
    if ((uint64_t)need * 2 <= slots) return 0;
    uint64_t ns = slots ? slots : 128;
    while ((uint64_t)need * 2 > ns) ns *= 2;
    return (int64_t)ns;
}

/* Bytes the arrays of the groups allocate if m more groups arrive. */
static int64_t growth_bytes(const agg_stream *s, int64_t m) {
    int64_t ng = hagg_n_groups_of(s), need = ng + m, bytes = 0;
    /* memory each new group's states own: min / max strings, entries
     * with a destroy callback (a small block each, never refused) */
    for (int32_t i = 0; i < s->p->n_calls; i++) {
        const acc *a = &s->accs[i];
        if (((a->kind == ACC_MIN || a->kind == ACC_MAX) && a->ph == PHYS_BYTES) ||
            (a->kind == ACC_GENERIC && a->info.fn->destroy))
            bytes += m * 64;
    }
    bytes += grown(s->acc_cap, need, 64) * (int64_t)s->stride;
    if (s->packed) {
        bytes += grown(s->pt.cap, need, 64) * 16;
        bytes += grown_slots(s->pt.slots ? s->pt.mask + 1 : 0, need) * 4;
        return bytes;
    }
    const gtable *t = &s->gt;
    int64_t c = grown(t->cap, need, 64);
    bytes += c * 8 + (t->kw ? 0 : (c + 1) * 8);
    bytes += grown_slots(t->slots ? t->mask + 1 : 0, need) * 8;
    int64_t per_key = t->kw ? t->kw : (t->n ? (int64_t)(t->keys_len / (uint64_t)t->n) + 8 : 32);
    bytes += grown((int64_t)t->keys_cap, (int64_t)t->keys_len + m * per_key, 4096);
    return bytes;
}

/* Bytes the groups' arrays hold now (and what their states own). */
static int64_t table_bytes(const agg_stream *s) {
    int64_t bytes = s->acc_cap * (int64_t)s->stride;
    for (int32_t i = 0; i < s->p->n_calls; i++) {
        const acc *a = &s->accs[i];
        if (((a->kind == ACC_MIN || a->kind == ACC_MAX) && a->ph == PHYS_BYTES) ||
            (a->kind == ACC_GENERIC && a->info.fn->destroy))
            bytes += s->init_rows * 64;
    }
    if (s->packed) return bytes + s->pt.cap * 16 + (s->pt.slots ? (int64_t)(s->pt.mask + 1) * 4 : 0);
    const gtable *t = &s->gt;
    return bytes + t->cap * (t->kw ? 8 : 16) + (t->slots ? (int64_t)(t->mask + 1) * 8 : 0) + (int64_t)t->keys_cap;
}

bool hagg_under_pressure(const agg_stream *s, int64_t m) {
    if (!s->limit) return false;
    int64_t grow = growth_bytes(s, m);
    int32_t np = s->p->head.n_partitions > 0 ? s->p->head.n_partitions : 1;
    /* a PARTIAL table that large is no longer worth its memory: the FINAL
     * above does the combining */
    if (s->p->mode == FLOE_AGG_MODE_PARTIAL && grow > s->limit / (16 * np)) return true;
    /* each partition's table its share of a third of the limit, so
     * partitions running side by side all get room (and the exchanges
     * between them theirs) */
    if (table_bytes(s) + grow > s->limit / (3 * np)) return true;
    return floe_mem_available(s->mem) - grow < s->limit / 4;
}

void hagg_reset_groups(agg_stream *s) {
    const agg_plan *p = s->p;
    for (int32_t i = 0; i < p->n_calls && s->states; i++) {
        acc *a = &s->accs[i];
        if ((a->kind == ACC_MIN || a->kind == ACC_MAX) && a->ph == PHYS_BYTES)
            for (int64_t g = 0; g < s->init_rows; g++) floe_free(AV(bval, a, g).p);
        if (a->kind == ACC_GENERIC && a->info.fn->destroy)
            for (int64_t g = 0; g < s->init_rows; g++) a->info.fn->destroy(&a->info, a->pv + (size_t)g * a->stride);
    }
    floe_free(s->states);
    s->states = NULL;
    s->acc_cap = s->init_rows = 0;
    uint32_t kw = s->gt.kw;
    hagg_gt_free(&s->gt);
    s->gt.kw = kw;
    floe_pk_table_free(&s->pt);
    memset(&s->pt, 0, sizeof s->pt);
    s->emitted = 0;
}

static floe_status scratch_for(hagg_spill *sp, int64_t n) {
    if (n <= sp->scratch_cap) return NULL;
    uint64_t *h = floe_realloc(sp->hashes, (size_t)n * sizeof *h);
    if (h) sp->hashes = h;
    uint32_t *x = h ? floe_realloc(sp->idx, (size_t)n * sizeof *x) : NULL;
    if (x) sp->idx = x;
    if (!h || !x) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: spilling %lld groups", (long long)n);
    sp->scratch_cap = n;
    return NULL;
}

/* Rows of state batch b into the current level's files by hash bits. */
static floe_status spill_batch(agg_stream *s, hagg_spill *sp, floe_batch *b) {
    int64_t n = b->num_rows;
    FLOE_TRY(scratch_for(sp, n));
    FLOE_TRY(floe_hash_rows(b->columns, s->p->n_groups, n, sp->hashes));
    int shift = 64 - HAGG_SPILL_BITS * (sp->out_depth + 1);
    int64_t cnt[HAGG_SPILL_FANOUT + 1] = {0};
    for (int64_t r = 0; r < n; r++) cnt[((sp->hashes[r] >> shift) & (HAGG_SPILL_FANOUT - 1)) + 1]++;
    for (int i = 0; i < HAGG_SPILL_FANOUT; i++) cnt[i + 1] += cnt[i];
    int64_t at[HAGG_SPILL_FANOUT];
    memcpy(at, cnt, sizeof at);
    for (int64_t r = 0; r < n; r++) sp->idx[at[(sp->hashes[r] >> shift) & (HAGG_SPILL_FANOUT - 1)]++] = (uint32_t)r;
    for (int i = 0; i < HAGG_SPILL_FANOUT; i++) {
        int64_t len = cnt[i + 1] - cnt[i];
        if (!len) continue;
        if (!sp->out[i]) {
            FLOE_TRY(floe_spill_open(s->temp_dir, "HashAggregate", &sp->out[i]));
            sp->files++;
        }
        floe_batch *part = NULL;
        FLOE_TRY(floe_batch_take(b, sp->idx + cnt[i], len, &part));
        int64_t before = floe_spill_bytes(sp->out[i]);
        floe_status st = floe_spill_write(sp->out[i], part);
        floe_spill_drop_buffers(sp->out[i]); /* 16 files' scratch would be a table's worth */
        floe_batch_release(part);
        FLOE_TRY(st);
        sp->bytes += floe_spill_bytes(sp->out[i]) - before;
        sp->rows += len;
    }
    return NULL;
}

static floe_status spill_groups_inner(agg_stream *s) {
    if (!s->spill) {
        hagg_spill *sp = floe_calloc(1, sizeof *sp);
        if (!sp) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: spill state");
        s->spill = sp;
    }
    if (!s->state_schema) FLOE_TRY(hagg_state_schema(s->p, &s->state_schema));
    hagg_spill *sp = s->spill;
    int64_t total = hagg_n_groups_of(s);
    FLOE_LOG_DEBUG("exec", "HashAggregate: spilling %lld groups (level %d): table %lld bytes, query %lld bytes",
                   (long long)total, sp->out_depth, (long long)table_bytes(s),
                   (long long)floe_mem_current_bytes(s->mem));
    /* a batch at a time: the state batch and its parts are memory the
     * limit no longer covers */
    int64_t chunk = s->batch_size;
    for (int64_t g0 = 0; g0 < total; g0 += chunk) {
        FLOE_TRY(floe_cancel_check(s->cancel, "HashAggregate"));
        int64_t m = total - g0 < chunk ? total - g0 : chunk;
        floe_batch *b = NULL;
        FLOE_TRY(hagg_emit_range(s, g0, m, true, s->state_schema, &b));
        floe_status st = spill_batch(s, sp, b);
        floe_batch_release(b);
        FLOE_TRY(st);
    }
    sp->rounds++;
    if (sp->out_depth + 1 > sp->max_depth) sp->max_depth = sp->out_depth + 1;
    hagg_reset_groups(s);
    return NULL;
}

/* Writing spends memory the check above left for it: the thread is exempt
 * from the limit meanwhile (as the Sort's runs are), so the spill that
 * frees the table is not itself refused. */
floe_status hagg_spill_groups(agg_stream *s) {
    bool prev = floe_mem_set_exempt(true);
    floe_status st = spill_groups_inner(s);
    floe_mem_set_exempt(prev);
    return st;
}

/* The current level's files go on the stack, to be re-aggregated. */
static floe_status push_level(hagg_spill *sp) {
    for (int i = 0; i < HAGG_SPILL_FANOUT; i++) {
        if (!sp->out[i]) continue;
        if (sp->n == sp->cap) {
            int32_t nc = sp->cap ? sp->cap * 2 : 2 * HAGG_SPILL_FANOUT;
            spill_part *q = floe_realloc(sp->stack, (size_t)nc * sizeof *q);
            if (!q) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: spilled partitions");
            sp->stack = q;
            sp->cap = nc;
        }
        sp->stack[sp->n].f = sp->out[i];
        sp->stack[sp->n].depth = sp->out_depth + 1;
        sp->n++;
        sp->out[i] = NULL;
    }
    return NULL;
}

/* Re-aggregate file `f` (groups sharing `depth` levels of hash bits);
 * groups that do not fit go on to files split by the next level. */
static floe_status merge_file(agg_stream *s, floe_spill_file *f, int32_t depth) {
    hagg_spill *sp = s->spill;
    sp->out_depth = depth;
    bool split = false;
    for (;;) {
        FLOE_TRY(floe_cancel_check(s->cancel, "HashAggregate"));
        floe_batch *b = NULL;
        FLOE_TRY(floe_spill_read(f, &b));
        if (!b) break;
        floe_status st = NULL;
        if (depth < HAGG_SPILL_MAX_DEPTH && b->num_rows > 0 && hagg_n_groups_of(s) > 0 &&
            hagg_under_pressure(s, b->num_rows)) {
            st = hagg_spill_groups(s);
            split = true;
        }
        if (!st) st = hagg_consume_batch(s, b, NULL, b->num_rows);
        floe_batch_release(b);
        FLOE_TRY(st);
    }
    if (split) {
        FLOE_TRY(hagg_spill_groups(s));
        FLOE_TRY(push_level(sp));
    } else {
        sp->emitting = true;
    }
    return NULL;
}

floe_status hagg_spill_next(agg_stream *s, floe_batch **out) {
    hagg_spill *sp = s->spill;
    *out = NULL;
    if (!sp->input_done) {
        /* the input just ended: the rest joins the files, which are then
         * re-aggregated as state batches */
        FLOE_TRY(hagg_spill_groups(s));
        FLOE_TRY(push_level(sp));
        sp->input_done = true;
        s->merging = true;
        FLOE_LOG_DEBUG("exec", "HashAggregate: spilled %lld groups in %lld rounds", (long long)sp->rows,
                       (long long)sp->rounds);
    }
    for (;;) {
        if (sp->emitting) {
            FLOE_TRY(hagg_emit_batch(s, out));
            if (*out) return NULL;
            hagg_reset_groups(s);
            sp->emitting = false;
        }
        if (sp->n == 0) {
            FLOE_LOG_DEBUG("exec", "HashAggregate: %lld spill files, %lld bytes, %lld groups written, %d levels",
                           (long long)sp->files, (long long)sp->bytes, (long long)sp->rows, sp->max_depth);
            return NULL;
        }
        spill_part part = sp->stack[--sp->n];
        floe_status st = merge_file(s, part.f, part.depth);
        floe_spill_close(part.f);
        FLOE_TRY(st);
    }
}

void hagg_spill_free(agg_stream *s) {
    hagg_spill *sp = s->spill;
    if (!sp) return;
    floe_exec_metrics_add_spill(s->metrics, &s->p->head, s->partition, sp->files, sp->bytes);
    for (int32_t i = 0; i < sp->n; i++) floe_spill_close(sp->stack[i].f);
    for (int i = 0; i < HAGG_SPILL_FANOUT; i++) floe_spill_close(sp->out[i]);
    floe_free(sp->stack);
    floe_free(sp->hashes);
    floe_free(sp->idx);
    floe_free(sp);
    s->spill = NULL;
}

/*
 * window_stream.c — executing a Window node (window.c) over one input
 * partition.
 *
 * The stream reads all of its input partition (the planner hash-
 * partitions on the PARTITION BY keys, so every window partition is whole
 * in one input partition), gathers it into one batch, sorts it by
 * (partition keys ASC NULLS LAST, order keys) with the Sort node's key
 * code (sort_keys.h), and then walks the sorted rows once to find the
 * window partitions and peer groups (rows whose order keys tie).  Every
 * call then produces one result column over the sorted rows:
 *
 *   ranking   row_number, rank, dense_rank, percent_rank, cume_dist and
 *             ntile from the row's position, its peer group and the
 *             partition's size (the frame does not matter);
 *   offsets   lag / lead pick a row of the partition (or the default);
 *   frames    first_value / last_value / nth_value and the aggregates
 *             read the frame: per row up to three ranges of rows (the
 *             frame ROWS / RANGE / GROUPS defines, minus what EXCLUDE
 *             removes).  Value functions pick a row from the ranges;
 *             aggregates combine them in window_agg.c's segment tree.
 *
 * Value results are gathered from the argument columns by row index
 * (floe_win_gather), so any type works.  The output is the sorted input
 * columns followed by the result columns, sliced into batches.  All
 * state is the stream's.
 */
#include <math.h>
#include <string.h>

#include "floe/interval.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "exec/sort/sort_keys.h"
#include "exec/window/window_internal.h"
#include "floe/memory.h"

typedef struct win_stream {
    floe_stream base;
    const win_plan *p;
    floe_stream *child;
    const floe_cancel *cancel;
    int64_t batch_size;
    bool ready;
    floe_batch *result; /* sorted input ++ one column per call */
    int64_t pos;
} win_stream;

/* Partitions and peer groups of the sorted rows. */
typedef struct win_layout {
    int64_t n;
    int64_t *pstart, *pend; /* per row: its window partition [pstart, pend) */
    int64_t *gid;           /* per row: its peer group (numbered over all rows) */
    int64_t *gfirst, *gend; /* per group: its rows [gfirst, gend) */
    int64_t ngroups;
} win_layout;

static void layout_free(win_layout *l) {
    floe_free(l->pstart);
    floe_free(l->pend);
    floe_free(l->gid);
    floe_free(l->gfirst);
    floe_free(l->gend);
}

static floe_status layout_build(const win_plan *p, floe_array *const *keys, int64_t n, win_layout *l) {
    memset(l, 0, sizeof *l);
    l->n = n;
    size_t sz = (size_t)(n ? n : 1) * sizeof(int64_t);
    l->pstart = floe_malloc(sz);
    l->pend = floe_malloc(sz);
    l->gid = floe_malloc(sz);
    l->gfirst = floe_malloc(sz);
    l->gend = floe_malloc(sz);
    if (!l->pstart || !l->pend || !l->gid || !l->gfirst || !l->gend)
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Window: partition layout of %lld rows", (long long)n);
    const floe_sort_key *pk = p->all_keys, *ok = p->all_keys + p->n_part;
    floe_array *const *pa = keys, *const *oa = keys + p->n_part;
    int64_t ps = 0, g = -1;
    for (int64_t i = 0; i < n; i++) {
        bool newp = i == 0 || (p->n_part > 0 && floe_sk_compare(pk, p->n_part, pa, i - 1, pa, i) != 0);
        bool newg = newp || (p->n_order > 0 && floe_sk_compare(ok, p->n_order, oa, i - 1, oa, i) != 0);
        if (newp) {
            for (int64_t k = ps; k < i; k++) l->pend[k] = i;
            ps = i;
        }
        if (newg) {
            if (g >= 0) l->gend[g] = i;
            l->gfirst[++g] = i;
        }
        l->pstart[i] = ps;
        l->gid[i] = g;
    }
    for (int64_t k = ps; k < n; k++) l->pend[k] = n;
    if (g >= 0) l->gend[g] = n;
    l->ngroups = g + 1;
    return NULL;
}

/* ---------------------------------------------------------- helpers */

/* The value of a frame offset (constant): evaluated over one row. */
typedef struct offset_val {
    bool is_float;
    __int128 i; /* ints, decimals (unscaled); date/timestamp keys in µs (ns for ns types) */
    double d;
    bool is_iv, ns;  /* an interval offset (of a date/timestamp key); a key in ns */
    floe_interval iv;
} offset_val;

static floe_status eval_offset(const floe_window_call *c, const floe_expr *e, bool start, const floe_batch *sorted,
                               offset_val *out) {
    memset(out, 0, sizeof *out);
    floe_batch *one = NULL;
    floe_array *a = NULL;
    FLOE_TRY(floe_batch_slice(sorted, 0, 1, &one));
    floe_status st = floe_expr_eval(e, one, &a);
    floe_batch_release(one);
    if (st) return floe_status_wrap_op(st, "window '%s': frame offset", c->name);
    const char *which = start ? "starting" : "ending";
    if (floe_array_is_null(a, 0)) {
        floe_array_release(a);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "frame %s offset must not be null", which);
    }
    bool neg = false;
    switch (a->type->id) {
    case FLOE_TYPE_INT64: out->i = floe_array_get_int64(a, 0); neg = out->i < 0; break;
    case FLOE_TYPE_INT32: out->i = floe_array_get_int32(a, 0); neg = out->i < 0; break;
    case FLOE_TYPE_DECIMAL128: {
        floe_decimal128 d = floe_array_get_decimal(a, 0);
        out->i = (__int128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
        neg = out->i < 0;
        break;
    }
    case FLOE_TYPE_INTERVAL:
        out->is_iv = true;
        memcpy(&out->iv, floe_array_get_fixed(a, 0), sizeof out->iv);
        neg = floe_interval_total(out->iv) < 0;
        break;
    case FLOE_TYPE_FLOAT64:
        out->is_float = true;
        out->d = floe_array_get_double(a, 0);
        neg = out->d < 0 || isnan(out->d);
        break;
    case FLOE_TYPE_FLOAT32:
        out->is_float = true;
        out->d = floe_array_get_float(a, 0);
        neg = out->d < 0 || isnan(out->d);
        break;
    default:
        floe_array_release(a);
        return floe_error(FLOE_ERR_TYPE, "window '%s': frame offset of type %s", c->name, floe_type_id_name(a->type->id));
    }
    floe_array_release(a);
    if (neg) {
        if (c->frame.mode == FLOE_FRAME_RANGE)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid preceding or following size in window function");
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "frame %s offset must not be negative", which);
    }
    return NULL;
}

/* A RANGE key value. */
static bool key_null(const floe_array *k, int64_t i) {
    if (floe_array_is_null(k, i)) return true;
    if (k->type->id == FLOE_TYPE_FLOAT64) return isnan(floe_array_get_double(k, i));
    if (k->type->id == FLOE_TYPE_FLOAT32) return isnan(floe_array_get_float(k, i));
    return false;
}

static offset_val key_at(const floe_array *k, int64_t i) {
    offset_val v = {0};
    switch (k->type->id) {
    case FLOE_TYPE_INT32: v.i = floe_array_get_int32(k, i); break;
    case FLOE_TYPE_INT64: v.i = floe_array_get_int64(k, i); break;
    case FLOE_TYPE_DECIMAL128: {
        floe_decimal128 d = floe_array_get_decimal(k, i);
        v.i = (__int128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
        break;
    }
    case FLOE_TYPE_FLOAT32: v.is_float = true; v.d = floe_array_get_float(k, i); break;
    case FLOE_TYPE_DATE32: v.i = (__int128)floe_array_get_int32(k, i) * FLOE_US_PER_DAY; break;
    case FLOE_TYPE_TIMESTAMP_US:
    case FLOE_TYPE_TIMESTAMP_US_TZ: v.i = floe_array_get_int64(k, i); break;
    case FLOE_TYPE_TIMESTAMP_NS:
    case FLOE_TYPE_TIMESTAMP_NS_TZ: v.i = floe_array_get_int64(k, i); v.ns = true; break;
    default: v.is_float = true; v.d = floe_array_get_double(k, i); break;
    }
    return v;
}

static int kv_cmp(offset_val a, offset_val b) {
    if (a.is_float) return a.d < b.d ? -1 : a.d > b.d;
    return a.i < b.i ? -1 : a.i > b.i;
}

static offset_val kv_add(offset_val a, offset_val off, bool minus) {
    if (off.is_iv) {
        /* date/timestamp ± interval as the SQL operator computes it; a
         * bound past the timestamp range is beyond every key. */
        floe_interval v = off.iv;
        if (minus && !floe_interval_neg(v, &v)) v.months = INT32_MIN; /* out of range either way */
        int64_t key = (int64_t)a.i, rem = 0, r;
        if (a.ns) {
            rem = key % 1000;
            if (rem < 0) rem += 1000;
            key = (key - rem) / 1000;
        }
        if (!floe_timestamp_add_interval(key, v, &r)) {
            a.i = floe_interval_total(v) < 0 ? -((__int128)1 << 100) : ((__int128)1 << 100);
            return a;
        }
        a.i = a.ns ? (__int128)r * 1000 + rem : (__int128)r;
        return a;
    }
    if (a.is_float) {
        double o = off.is_float ? off.d : (double)off.i;
        a.d = minus ? a.d - o : a.d + o;
    } else {
        a.i = minus ? a.i - off.i : a.i + off.i;
    }
    return a;
}

/* First row r in [lo, hi) of the non-null keys where key(r) passes:
 * `strict` key > t (ASC) / key < t (DESC), else key >= t / key <= t. */
static int64_t key_search(const floe_array *k, int64_t lo, int64_t hi, offset_val t, bool desc, bool strict) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = kv_cmp(key_at(k, mid), t);
        if (desc) c = -c;
        bool pass = strict ? c > 0 : c >= 0;
        if (pass) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* The frame state of one call while rows are walked in order. */
typedef struct frame_ctx {
    const floe_window_call *c;
    const win_layout *l;
    const floe_array *key; /* RANGE with offsets: the ORDER BY key */
    bool desc;
    offset_val so, eo;     /* offsets */
    int64_t nnlo, nnhi;    /* RANGE: non-null keys of the current partition */
    int64_t cur_part;
} frame_ctx;

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static int64_t off_i64(offset_val v) { return v.i > INT64_MAX ? INT64_MAX : (int64_t)v.i; }

/* Row i + d (d may be huge), clamped to [lo, hi]. */
static int64_t row_plus(int64_t i, int64_t d, bool minus, int64_t lo, int64_t hi) {
    if (minus) return d > i - lo ? lo : clamp(i - d, lo, hi);
    return d > hi - i ? hi : clamp(i + d, lo, hi);
}

/* One bound of row i's frame: the first row of the frame (start) or one
 * past the last (end). */
static int64_t bound(frame_ctx *f, int64_t i, bool start) {
    const win_layout *l = f->l;
    const floe_window_frame *fr = &f->c->frame;
    floe_frame_bound b = start ? fr->start : fr->end;
    offset_val off = start ? f->so : f->eo;
    int64_t ps = l->pstart[i], pe = l->pend[i], g = l->gid[i];
    switch (b) {
    case FLOE_BOUND_UNBOUNDED_PRECEDING: return ps;
    case FLOE_BOUND_UNBOUNDED_FOLLOWING: return pe;
    case FLOE_BOUND_CURRENT_ROW:
        if (fr->mode == FLOE_FRAME_ROWS) return start ? i : i + 1;
        return start ? l->gfirst[g] : l->gend[g];
    default: break;
    }
    bool prec = b == FLOE_BOUND_PRECEDING;
    if (fr->mode == FLOE_FRAME_ROWS) {
        /* the row i -/+ off (clamped only after the end's + 1) */
        int64_t r = row_plus(i, off_i64(off), prec, ps - 1, pe);
        return start ? clamp(r, ps, pe) : clamp(r + 1, ps, pe);
    }
    if (fr->mode == FLOE_FRAME_GROUPS) {
        int64_t g0 = l->gid[ps], g1 = l->gid[pe - 1];
        int64_t d = off_i64(off);
        if (prec) {
            int64_t tg = d > g - g0 ? g0 - 1 : g - d;
            if (start) return tg < g0 ? ps : l->gfirst[tg];
            return tg < g0 ? ps : l->gend[tg];
        }
        int64_t tg = d > g1 - g ? g1 + 1 : g + d;
        if (start) return tg > g1 ? pe : l->gfirst[tg];
        return tg > g1 ? pe : l->gend[tg];
    }
    /* RANGE with an offset. */
    if (f->cur_part != ps) {
        f->cur_part = ps;
        f->nnlo = ps;
        f->nnhi = pe;
        while (f->nnlo < pe && key_null(f->key, f->nnlo)) f->nnlo++;
        while (f->nnhi > f->nnlo && key_null(f->key, f->nnhi - 1)) f->nnhi--;
    }
    if (key_null(f->key, i)) return start ? l->gfirst[g] : l->gend[g];
    offset_val t = kv_add(key_at(f->key, i), off, prec != f->desc);
    return key_search(f->key, f->nnlo, f->nnhi, t, f->desc, !start);
}

/* Row i's frame as up to three ranges (EXCLUDE removes rows). */
static uint8_t frame_ranges(frame_ctx *f, int64_t i, win_range *r) {
    int64_t fs = bound(f, i, true), fe = bound(f, i, false);
    const win_layout *l = f->l;
    int64_t a = l->gfirst[l->gid[i]], b = l->gend[l->gid[i]];
    win_range parts[3];
    int np = 0;
    switch (f->c->frame.exclude) {
    case FLOE_EXCLUDE_NO_OTHERS: parts[np++] = (win_range){fs, fe}; break;
    case FLOE_EXCLUDE_CURRENT_ROW:
        parts[np++] = (win_range){fs, fe < i ? fe : i};
        parts[np++] = (win_range){fs > i + 1 ? fs : i + 1, fe};
        break;
    case FLOE_EXCLUDE_GROUP:
        parts[np++] = (win_range){fs, fe < a ? fe : a};
        parts[np++] = (win_range){fs > b ? fs : b, fe};
        break;
    case FLOE_EXCLUDE_TIES:
        parts[np++] = (win_range){fs, fe < a ? fe : a};
        parts[np++] = (win_range){fs > i ? fs : i, fe < i + 1 ? fe : i + 1};
        parts[np++] = (win_range){fs > b ? fs : b, fe};
        break;
    }
    uint8_t k = 0;
    for (int j = 0; j < np; j++)
        if (parts[j].lo < parts[j].hi) r[k++] = parts[j];
    return k;
}

/* --------------------------------------------------------- functions */

/* IGNORE NULLS: the rows of x whose value is not NULL, in order (pos), and
 * before[i] = how many of them come before row i (n + 1 entries), so the
 * k-th non-NULL value of a range is O(1) to find. */
typedef struct nn_index {
    int64_t *pos, *before;
} nn_index;

static floe_status nn_build(const floe_array *x, int64_t n, nn_index *ix) {
    ix->pos = floe_malloc_array((size_t)(n ? n : 1), sizeof *ix->pos);
    ix->before = floe_malloc_array((size_t)n + 1, sizeof *ix->before);
    if (!ix->pos || !ix->before) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Window: IGNORE NULLS over %lld rows", (long long)n);
    int64_t m = 0;
    bool all_null = x->type->id == FLOE_TYPE_NULL;
    for (int64_t i = 0; i < n; i++) {
        ix->before[i] = m;
        if (!all_null && !floe_array_is_null(x, i)) ix->pos[m++] = i;
    }
    ix->before[n] = m;
    return NULL;
}

static void nn_free(nn_index *ix) {
    floe_free(ix->pos);
    floe_free(ix->before);
}

static floe_status ranking(const floe_window_call *c, const win_layout *l, const floe_array *arg0, floe_array **out) {
    int64_t n = l->n;
    floe_builder *b = NULL;
    bool dbl = c->fn == FLOE_WIN_PERCENT_RANK || c->fn == FLOE_WIN_CUME_DIST;
    FLOE_TRY(floe_builder_new(floe_type_primitive(dbl ? FLOE_TYPE_FLOAT64 : FLOE_TYPE_INT64), n, &b));
    floe_status st = NULL;
    int64_t nb = 0;
    bool nb_null = false;
    for (int64_t i = 0; i < n && !st; i++) {
        int64_t ps = l->pstart[i], cnt = l->pend[i] - ps, g = l->gid[i];
        int64_t rank = l->gfirst[g] - ps + 1;
        switch (c->fn) {
        case FLOE_WIN_ROW_NUMBER: st = floe_builder_append_int64(b, i - ps + 1); break;
        case FLOE_WIN_RANK: st = floe_builder_append_int64(b, rank); break;
        case FLOE_WIN_DENSE_RANK: st = floe_builder_append_int64(b, g - l->gid[ps] + 1); break;
        case FLOE_WIN_PERCENT_RANK:
            st = floe_builder_append_double(b, cnt > 1 ? (double)(rank - 1) / (double)(cnt - 1) : 0.0);
            break;
        case FLOE_WIN_CUME_DIST: st = floe_builder_append_double(b, (double)(l->gend[g] - ps) / (double)cnt); break;
        case FLOE_WIN_NTILE: {
            if (i == ps) { /* the bucket count is read once per partition */
                nb_null = floe_array_is_null(arg0, ps);
                nb = nb_null ? 0 : floe_array_get_int64(arg0, ps);
                if (!nb_null && nb <= 0) {
                    st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "argument of ntile must be greater than zero");
                    break;
                }
            }
            if (nb_null) {
                st = floe_builder_append_null(b);
                break;
            }
            int64_t k = i - ps, per = cnt / nb, rem = cnt % nb, big = rem * (per + 1);
            int64_t bucket = k < big ? k / (per + 1) + 1 : rem + (k - big) / per + 1;
            st = floe_builder_append_int64(b, bucket);
            break;
        }
        default: st = floe_error(FLOE_ERR_INTERNAL, "Window: %s is not a ranking function", floe_win_fn_name(c->fn));
        }
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

static floe_status lag_lead(const floe_window_call *c, const win_layout *l, floe_array *const *args, floe_array **out) {
    int64_t n = l->n;
    int64_t *idx = floe_malloc_array((size_t)(n ? n : 1), sizeof *idx);
    if (!idx) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Window: %s", floe_win_fn_name(c->fn));
    bool lag = c->fn == FLOE_WIN_LAG;
    nn_index nn = {NULL, NULL};
    if (c->ignore_nulls) {
        floe_status st = nn_build(args[0], n, &nn);
        if (st) {
            nn_free(&nn);
            floe_free(idx);
            return st;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t off = 1;
        if (c->n_args >= 2) {
            if (floe_array_is_null(args[1], i)) {
                idx[i] = -1;
                continue;
            }
            off = floe_array_get_int64(args[1], i);
        }
        if (c->ignore_nulls && off != 0) {
            /* the off-th non-NULL row before (lag) / after (lead) row i in
             * its partition, counting only non-NULL rows (DuckDB) */
            __int128 d = lag ? -(__int128)off : (__int128)off;
            __int128 t = d < 0 ? (__int128)nn.before[i] + d : (__int128)nn.before[i + 1] + d - 1;
            if (t >= nn.before[l->pstart[i]] && t < nn.before[l->pend[i]]) idx[i] = nn.pos[(int64_t)t];
            else idx[i] = c->n_args == 3 ? n + i : -1;
            continue;
        }
        __int128 t = lag ? (__int128)i - off : (__int128)i + off;
        if (t >= l->pstart[i] && t < l->pend[i]) idx[i] = (int64_t)t;
        else idx[i] = c->n_args == 3 ? n + i : -1;
    }
    floe_status st = floe_win_gather(args[0], c->n_args == 3 ? args[2] : NULL, idx, n, out);
    nn_free(&nn);
    floe_free(idx);
    return st;
}

/* first_value / last_value / nth_value, and aggregates, over frames. */
static floe_status framed(const floe_window_call *c, const win_layout *l, const floe_batch *sorted,
                          floe_array *const *args, const floe_array *filter, const floe_array *okey, bool desc,
                          const floe_type *rtype, floe_array **out) {
    int64_t n = l->n;
    frame_ctx f = {c, l, okey, desc, {0}, {0}, 0, 0, -1};
    if (n > 0 && c->frame.start_offset) FLOE_TRY(eval_offset(c, c->frame.start_offset, true, sorted, &f.so));
    if (n > 0 && c->frame.end_offset) FLOE_TRY(eval_offset(c, c->frame.end_offset, false, sorted, &f.eo));
    win_range *r = floe_malloc_array((size_t)(n ? n : 1) * 3, sizeof *r);
    uint8_t *nr = floe_malloc((size_t)(n ? n : 1));
    int64_t *idx = c->fn != FLOE_WIN_AGG ? floe_malloc_array((size_t)(n ? n : 1), sizeof *idx) : NULL;
    floe_status st = NULL;
    if (!r || !nr || (c->fn != FLOE_WIN_AGG && !idx)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "Window: frames of %lld rows", (long long)n);
    for (int64_t i = 0; i < n && !st; i++) nr[i] = frame_ranges(&f, i, &r[i * 3]);
    nn_index nn = {NULL, NULL};
    if (!st && c->fn != FLOE_WIN_AGG && c->ignore_nulls) st = nn_build(args[0], n, &nn);
    if (!st && c->fn == FLOE_WIN_AGG && c->agg == FLOE_AGG_NAMED) {
        st = floe_win_registry_aggregate(c, args, filter, rtype, n, r, nr, out);
    } else if (!st && c->fn == FLOE_WIN_AGG) {
        st = floe_win_aggregate(c->agg, c->n_args ? args[0] : NULL, rtype, n, r, nr, out);
    } else if (!st) {
        for (int64_t i = 0; i < n && !st; i++) {
            const win_range *x = &r[i * 3];
            int k = nr[i];
            idx[i] = -1;
            if (k == 0) continue;
            if (c->ignore_nulls) {
                /* the first / last / want-th non-NULL row of the ranges */
                int64_t want = 1;
                if (c->fn == FLOE_WIN_NTH_VALUE) {
                    if (floe_array_is_null(args[1], i)) continue;
                    want = floe_array_get_int64(args[1], i);
                    if (want <= 0) {
                        st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "argument of nth_value must be greater than zero");
                        break;
                    }
                }
                if (c->fn == FLOE_WIN_LAST_VALUE) {
                    for (int j = k - 1; j >= 0 && idx[i] < 0; j--)
                        if (nn.before[x[j].hi] > nn.before[x[j].lo]) idx[i] = nn.pos[nn.before[x[j].hi] - 1];
                    continue;
                }
                for (int j = 0; j < k; j++) {
                    int64_t cnt = nn.before[x[j].hi] - nn.before[x[j].lo];
                    if (want <= cnt) {
                        idx[i] = nn.pos[nn.before[x[j].lo] + want - 1];
                        break;
                    }
                    want -= cnt;
                }
                continue;
            }
            if (c->fn == FLOE_WIN_FIRST_VALUE) idx[i] = x[0].lo;
            else if (c->fn == FLOE_WIN_LAST_VALUE) idx[i] = x[k - 1].hi - 1;
            else {
                if (floe_array_is_null(args[1], i)) continue;
                int64_t want = floe_array_get_int64(args[1], i);
                if (want <= 0) {
                    st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "argument of nth_value must be greater than zero");
                    break;
                }
                for (int j = 0; j < k; j++) {
                    int64_t len = x[j].hi - x[j].lo;
                    if (want <= len) {
                        idx[i] = x[j].lo + want - 1;
                        break;
                    }
                    want -= len;
                }
            }
        }
        if (!st) st = floe_win_gather(args[0], NULL, idx, n, out);
    }
    nn_free(&nn);
    floe_free(r);
    floe_free(nr);
    floe_free(idx);
    return st;
}

/* --------------------------------------------------------------- run */

static floe_status compute(win_stream *s, floe_batch *sorted) {
    const win_plan *p = s->p;
    int32_t nk = p->n_part + p->n_order, nin = sorted->num_columns;
    int64_t n = sorted->num_rows;
    floe_array **keys = floe_calloc((size_t)nk + 1, sizeof *keys);
    floe_array **cols = floe_calloc((size_t)(nin + p->n_calls), sizeof *cols);
    if (!keys || !cols) {
        floe_free(keys);
        floe_free(cols);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Window: results");
    }
    win_layout l;
    memset(&l, 0, sizeof l);
    floe_status st = floe_sk_eval(p->all_keys, nk, sorted, keys);
    if (!st) st = layout_build(p, keys, n, &l);
    for (int32_t i = 0; i < nin; i++) cols[i] = floe_array_retain(floe_batch_column(sorted, i));
    for (int32_t ci = 0; ci < p->n_calls && !st; ci++) {
        const floe_window_call *c = &p->calls[ci];
        floe_array *args[3] = {NULL, NULL, NULL}, *filter = NULL;
        for (int32_t k = 0; k < c->n_args && !st; k++) st = floe_expr_eval(c->args[k], sorted, &args[k]);
        if (!st && c->filter) st = floe_expr_eval(c->filter, sorted, &filter);
        floe_array **res = &cols[nin + ci];
        if (!st) st = floe_cancel_check(s->cancel, "Window");
        if (!st) {
            switch (c->fn) {
            case FLOE_WIN_LAG:
            case FLOE_WIN_LEAD: st = lag_lead(c, &l, args, res); break;
            case FLOE_WIN_FIRST_VALUE:
            case FLOE_WIN_LAST_VALUE:
            case FLOE_WIN_NTH_VALUE:
            case FLOE_WIN_AGG: {
                const floe_field *fd = floe_schema_field(p->head.schema, nin + ci);
                const floe_array *okey = p->n_order > 0 ? keys[p->n_part] : NULL;
                bool desc = p->n_order > 0 && p->order[0].descending;
                st = framed(c, &l, sorted, args, filter, okey, desc, fd->type, res);
                break;
            }
            default: st = ranking(c, &l, args[0], res); break;
            }
        }
        if (st) st = floe_status_wrap_op(st, "window function '%s'", c->name);
        for (int k = 0; k < 3; k++) floe_array_release(args[k]);
        floe_array_release(filter);
    }
    if (!st) st = floe_batch_new(p->head.schema, cols, nin + p->n_calls, n, &s->result);
    for (int32_t i = 0; i < nin + p->n_calls; i++) floe_array_release(cols[i]);
    floe_free(cols);
    floe_sk_release(keys, nk);
    floe_free(keys);
    layout_free(&l);
    return st;
}

static floe_status prepare(win_stream *s) {
    const win_plan *p = s->p;
    floe_batch *src = NULL;
    floe_status st = floe_exec_drain_concat(s->child, s->cancel, "Window", &src);
    if (st || !src) return st;
    int32_t nk = p->n_part + p->n_order;
    floe_array **keys = floe_calloc((size_t)nk + 1, sizeof *keys);
    uint32_t *order = NULL;
    floe_batch *sorted = NULL;
    if (!keys) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "Window: sort keys");
    if (!st) st = floe_sk_eval(p->all_keys, nk, src, keys);
    if (!st && nk > 0) {
        st = floe_sk_sort_rows(p->all_keys, nk, keys, src->num_rows, &order);
        if (!st) st = floe_batch_take(src, order, src->num_rows, &sorted);
    } else if (!st) {
        sorted = floe_batch_retain(src);
    }
    if (keys) floe_sk_release(keys, nk);
    floe_free(keys);
    floe_free(order);
    floe_batch_release(src);
    if (!st) st = compute(s, sorted);
    floe_batch_release(sorted);
    return st;
}

static floe_status win_next(floe_stream *s_, floe_batch **out) {
    win_stream *s = (win_stream *)s_;
    *out = NULL;
    FLOE_TRY(floe_cancel_check(s->cancel, "Window"));
    if (!s->ready) {
        FLOE_TRY(prepare(s));
        s->ready = true;
    }
    if (!s->result || s->pos >= s->result->num_rows) return NULL;
    int64_t len = s->result->num_rows - s->pos;
    if (len > s->batch_size) len = s->batch_size;
    FLOE_TRY(floe_batch_slice(s->result, s->pos, len, out));
    s->pos += len;
    return NULL;
}

static void win_close(floe_stream *s_) {
    win_stream *s = (win_stream *)s_;
    floe_stream_close(s->child);
    floe_batch_release(s->result);
    floe_free(s);
}

floe_status floe_win_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    win_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a Window stream");
    s->p = (const win_plan *)p;
    s->cancel = ctx->cancel;
    s->batch_size = ctx->batch_size > 0 ? ctx->batch_size : 8192;
    s->base.next = win_next;
    s->base.close = win_close;
    floe_status st = floe_plan_execute(p->children[0], partition, ctx, &s->child);
    if (st) {
        floe_free(s);
        return st;
    }
    *out = &s->base;
    return NULL;
}

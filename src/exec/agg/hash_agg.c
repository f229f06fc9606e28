/*
 * hash_agg.c — HashAggregate: GROUP BY with count, sum, min, max, avg,
 * bool_and and bool_or, in SINGLE, PARTIAL and FINAL mode.
 *
 * Each output partition aggregates its input partition on its own.  Per
 * input batch the work is column-at-a-time:
 *
 *   1. evaluate the group key expressions and every aggregate's argument
 *      (FINAL: key i is child column i); subexpressions they share are
 *      evaluated once (agg_cse.h: Q1's price * (1 - discount));
 *   2. give each row its group id.  Keys that fit 16 bytes (small fixed
 *      types, short strings) are packed into two words and looked up in
 *      agg_packed.c's table; otherwise hash every key row at once
 *      (floe_hash_rows), encode the key rows into one scratch buffer (see
 *      "key encoding" below) and probe an open-addressing table (linear
 *      probing, load <= 1/2, each slot tagged with hash bits), copying new
 *      keys into the table's key store.  A batch whose keys stop fitting
 *      moves the packed groups to the general table, ids unchanged;
 *   3. fold the argument columns in, a chunk of rows at a time, into the
 *      groups' state rows: one loop per (aggregate, type) for arguments
 *      without NULLs; with few groups the chunk is first ordered by group
 *      so each group's running value stays in a register, and sum(x) and
 *      avg(x) of the same x share one loop.
 *
 * Under a Filter that passes most rows, the node reads the filter's input
 * batch with the selected rows (filter_sel.h) instead of a copy: keys and
 * arguments are evaluated over the whole batch, only selected rows are
 * grouped and folded in.  If an evaluation fails (it may be a dropped
 * row's division by zero) the batch is redone on a copy of the selected
 * rows, so errors are exactly those of filtering first.
 *
 * Accumulator state is one fixed-size row per group (all aggregates'
 * sums, counts and flags side by side, so a row costs one or two cache
 * misses however many aggregates there are), grown geometrically: no
 * allocation per row; everything is charged through floe_malloc.  With no
 * group keys every row is group 0 and the output is exactly one row, also
 * for empty input.
 *
 * count(DISTINCT x) (and sum/avg/min/max DISTINCT), SINGLE mode only: a
 * second table per distinct call holds (group id, x) pairs; only rows
 * whose pair is new reach the accumulator.
 *
 * Key encoding: per key column one tag byte (0 NULL, 1 value) then the
 * value: BOOL 1 byte, fixed-width types their byte_width bytes (floats
 * normalised: -0.0 as 0.0, one NaN), STRING/BINARY a u32 length and the
 * bytes.  When every key column is fixed-width a NULL is zero-filled to
 * the same width, so all keys have one length and need no offsets.
 * Equal keys have equal encodings, so the table compares bytes; the
 * output decodes them back into columns.
 *
 * PARTIAL state layout (the columns after the group keys, per call, in
 * call order; FINAL derives the same layout from `input_schema`):
 *   count(*), count(x)     one int64 "<name>" (non-null)
 *   sum(x)                 one column of sum's result type "<name>"
 *                          (int64 / decimal(38,s) / float64; NULL if no value)
 *   min(x), max(x)         one column of x's type "<name>"
 *   avg(x)                 "<name>.sum" then "<name>.count" (int64):
 *                          the sum is float64 for float x, decimal(38,s) for
 *                          decimal(p,s) x and decimal(38,0) for integer x
 *   bool_and(x), bool_or   one bool "<name>"
 *   any call over a NULL-typed x: one all-NULL column of the result type
 *
 * Overflow: integer sums accumulate in int64 and overflow is an error
 * naming the aggregate and the group; decimal sums accumulate in 128 bits
 * and must fit decimal(38).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/expr/agg_cse.h"
#include "exec/agg/agg_packed.h"
#include "exec/basic/filter_sel.h"
#include "exec/plan_internal.h"
#include "exec/exchange/row_hash.h"
#include "floe/exec_ops.h"

typedef __int128 i128;

/* ------------------------------------------------------------ the node */

typedef struct agg_plan {
    floe_plan head;
    floe_agg_mode mode;
    int32_t n_groups;
    floe_expr **groups;      /* as given (FINAL: over input_schema) */
    char **group_names;
    floe_expr **key_cols;    /* FINAL: #0..#n-1 over the child (required input) */
    int32_t n_calls;
    floe_agg_call *calls;    /* deep copies: args retained, names owned */
    floe_schema *input_schema; /* FINAL only */
    floe_type **arg_types;   /* per call: the argument's type (NULL for count(*)) */
    floe_cse *cse;           /* not FINAL: subexpressions shared by the keys and
                                arguments (derived, never encoded); NULL: none */
} agg_plan;

const char *floe_agg_fn_name(floe_agg_fn fn) {
    switch (fn) {
    case FLOE_AGG_COUNT_STAR:
    case FLOE_AGG_COUNT: return "count";
    case FLOE_AGG_SUM: return "sum";
    case FLOE_AGG_MIN: return "min";
    case FLOE_AGG_MAX: return "max";
    case FLOE_AGG_AVG: return "avg";
    case FLOE_AGG_BOOL_AND: return "bool_and";
    case FLOE_AGG_BOOL_OR: return "bool_or";
    default: return "?";
    }
}

static const char *mode_name(floe_agg_mode m) {
    return m == FLOE_AGG_MODE_PARTIAL ? "Partial" : m == FLOE_AGG_MODE_FINAL ? "Final" : "Single";
}

static bool is_int(floe_type_id id) { return id == FLOE_TYPE_INT32 || id == FLOE_TYPE_INT64; }
static bool is_float(floe_type_id id) { return id == FLOE_TYPE_FLOAT32 || id == FLOE_TYPE_FLOAT64; }

/* Result type of `fn` over an argument of type `t` (NULL: count(*)). */
static floe_status result_type_of(floe_agg_fn fn, const floe_type *t, floe_type **out) {
    *out = NULL;
    if (fn == FLOE_AGG_COUNT_STAR || fn == FLOE_AGG_COUNT) {
        *out = floe_type_primitive(FLOE_TYPE_INT64);
        return NULL;
    }
    floe_type_id id = t->id;
    switch (fn) {
    case FLOE_AGG_SUM:
        if (id == FLOE_TYPE_NULL || is_int(id)) *out = floe_type_primitive(FLOE_TYPE_INT64);
        else if (is_float(id)) *out = floe_type_primitive(FLOE_TYPE_FLOAT64);
        else if (id == FLOE_TYPE_DECIMAL128) return floe_type_decimal(38, t->scale, out);
        break;
    case FLOE_AGG_AVG:
        if (id == FLOE_TYPE_NULL || is_int(id) || is_float(id) || id == FLOE_TYPE_DECIMAL128)
            *out = floe_type_primitive(FLOE_TYPE_FLOAT64);
        break;
    case FLOE_AGG_MIN:
    case FLOE_AGG_MAX:
        if (!floe_type_is_nested(t)) *out = floe_type_retain((floe_type *)t);
        break;
    case FLOE_AGG_BOOL_AND:
    case FLOE_AGG_BOOL_OR:
        if (id == FLOE_TYPE_BOOL || id == FLOE_TYPE_NULL) *out = floe_type_primitive(FLOE_TYPE_BOOL);
        break;
    default:
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unknown aggregate function %d", (int)fn);
    }
    if (!*out)
        return floe_error(FLOE_ERR_TYPE, "%s(%s) is not defined", floe_agg_fn_name(fn), floe_type_id_name(id));
    return NULL;
}

floe_status floe_agg_result_type(const floe_agg_call *c, const floe_schema *input, floe_type **out) {
    *out = NULL;
    if (c->fn == FLOE_AGG_COUNT_STAR) return result_type_of(c->fn, NULL, out);
    if (!c->arg) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s needs an argument", floe_agg_fn_name(c->fn));
    floe_type *t;
    FLOE_TRY_CTX(floe_expr_type(c->arg, input, &t), "%s argument", floe_agg_fn_name(c->fn));
    floe_status st = result_type_of(c->fn, t, out);
    floe_type_release(t);
    return st;
}

/* ------------------------------------------------------- accumulators */

typedef enum acc_kind {
    ACC_COUNT_STAR, ACC_COUNT, ACC_SUM_I64, ACC_SUM_I128, ACC_SUM_F64, ACC_AVG_F64, ACC_AVG_I128,
    ACC_MIN, ACC_MAX, ACC_BOOL_AND, ACC_BOOL_OR, ACC_NULL
} acc_kind;

/* Physical class of a min/max value. */
typedef enum phys { PHYS_I32, PHYS_I64, PHYS_F32, PHYS_F64, PHYS_I128, PHYS_BOOL, PHYS_FIXED, PHYS_BYTES } phys;

typedef struct bval { /* a min/max string value owned by its group */
    uint8_t *p;
    int32_t len, cap;
} bval;

typedef struct acc {
    acc_kind kind;
    phys ph;               /* MIN/MAX */
    size_t esz;            /* bytes per group in v */
    int32_t scale;         /* AVG_I128: the sum's decimal scale */
    const floe_agg_call *call;
    floe_type *arg_type;   /* borrowed from the plan */
    floe_type *out_type;   /* one reference: the final result type */
    floe_type *state_type; /* one reference: the first state column's type */
    /* Fields in the per-group state row (see layout_accs): the value (sum,
     * min/max, bool; esz bytes), the count (COUNT*, sums, AVG) and the
     * "a value was folded in" flag (sum of ints, min/max, bool; the others
     * use count > 0). */
    size_t off_v, off_c, off_s, stride;
    uint8_t *pv, *pc, *ps; /* the fields of group 0 */
    struct gtable *dset;   /* DISTINCT: seen (group, value) pairs */
    int32_t twin;          /* a later call summing the same argument the same
                              way (sum(x) and avg(x)), folded in the same loop;
                              -1: none */
    bool is_twin;          /* folded by an earlier call's loop when it can */
} acc;

static phys phys_of(const floe_type *t) {
    switch (t->id) {
    case FLOE_TYPE_INT32:
    case FLOE_TYPE_DATE32: return PHYS_I32;
    case FLOE_TYPE_FLOAT32: return PHYS_F32;
    case FLOE_TYPE_FLOAT64: return PHYS_F64;
    case FLOE_TYPE_DECIMAL128: return PHYS_I128;
    case FLOE_TYPE_BOOL: return PHYS_BOOL;
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY: return PHYS_BYTES;
    case FLOE_TYPE_FIXED_BINARY:
    case FLOE_TYPE_UUID: return PHYS_FIXED;
    default: return PHYS_I64;
    }
}

/* Decide the accumulator for a call over `arg` (NULL: count(*)) and its
 * state column types.  Fills kind, ph, esz, scale, out_type, state_type. */
static floe_status acc_setup(acc *a, const floe_agg_call *c, floe_type *arg) {
    a->call = c;
    a->arg_type = arg;
    FLOE_TRY(result_type_of(c->fn, arg, &a->out_type));
    bool null_arg = arg && arg->id == FLOE_TYPE_NULL;
    switch (c->fn) {
    case FLOE_AGG_COUNT_STAR: a->kind = ACC_COUNT_STAR; break;
    case FLOE_AGG_COUNT: a->kind = ACC_COUNT; break;
    case FLOE_AGG_SUM:
        a->kind = null_arg ? ACC_NULL : is_int(arg->id) ? ACC_SUM_I64 : is_float(arg->id) ? ACC_SUM_F64 : ACC_SUM_I128;
        a->esz = a->kind == ACC_SUM_I128 ? 16 : 8;
        break;
    case FLOE_AGG_AVG:
        a->kind = null_arg ? ACC_NULL : is_float(arg->id) ? ACC_AVG_F64 : ACC_AVG_I128;
        a->esz = a->kind == ACC_AVG_I128 ? 16 : 8;
        if (a->kind == ACC_AVG_I128) {
            a->scale = arg->id == FLOE_TYPE_DECIMAL128 ? arg->scale : 0;
            FLOE_TRY(floe_type_decimal(38, a->scale, &a->state_type));
        }
        break;
    case FLOE_AGG_MIN:
    case FLOE_AGG_MAX:
        a->kind = null_arg ? ACC_NULL : c->fn == FLOE_AGG_MIN ? ACC_MIN : ACC_MAX;
        a->ph = phys_of(arg);
        a->esz = a->ph == PHYS_BYTES ? sizeof(bval) : a->ph == PHYS_BOOL ? 1 : (size_t)arg->byte_width;
        break;
    case FLOE_AGG_BOOL_AND: a->kind = null_arg ? ACC_NULL : ACC_BOOL_AND; a->esz = 1; break;
    case FLOE_AGG_BOOL_OR: a->kind = null_arg ? ACC_NULL : ACC_BOOL_OR; a->esz = 1; break;
    default: break;
    }
    if (!a->state_type) a->state_type = floe_type_retain(a->kind == ACC_AVG_F64 ? floe_type_primitive(FLOE_TYPE_FLOAT64)
                                                                                 : a->out_type);
    return NULL;
}

static int acc_state_cols(const acc *a) { return a->kind == ACC_AVG_F64 || a->kind == ACC_AVG_I128 ? 2 : 1; }

/* ------------------------------------------------- the group key table */

/* A slot: the high 32 bits of the key's hash and the group id (low 32
 * bits), so a probe rejects most non-matching slots without touching the
 * group's key.  All ones = empty (ids stay below UINT32_MAX). */
#define EMPTY UINT64_MAX
#define SLOT(h, id) (((h) & UINT64_C(0xffffffff00000000)) | (uint64_t)(id))

typedef struct gtable {
    uint64_t *slots;   /* SLOT(hash, id) or EMPTY */
    uint64_t mask;     /* slots - 1 */
    uint64_t *hashes;  /* per group (for rehashing) */
    uint32_t kw;       /* fixed key width, or 0: variable (koff) */
    uint64_t *koff;    /* variable: per group + 1, key bytes [koff[g], koff[g+1]) */
    uint8_t *keys;
    uint64_t keys_len, keys_cap;
    int64_t n, cap;    /* groups, capacity of the per-group arrays */
} gtable;

static void gt_free(gtable *t) {
    if (!t) return;
    floe_free(t->slots);
    floe_free(t->hashes);
    floe_free(t->koff);
    floe_free(t->keys);
    memset(t, 0, sizeof *t);
}

static void *grow(void *p, size_t n, size_t esz) { return floe_realloc(p, n * esz != 0 ? n * esz : 1); }

/* Room for `extra` more groups: per-group arrays and slots (load <= 1/2). */
static floe_status gt_reserve(gtable *t, int64_t extra) {
    int64_t need = t->n + extra;
    if (need > (int64_t)UINT32_MAX - 1) return floe_error(FLOE_ERR_UNSUPPORTED, "HashAggregate: more than 4 billion groups");
    if (need > t->cap) {
        int64_t cap = t->cap ? t->cap : 64;
        while (cap < need) cap *= 2;
        uint64_t *h = grow(t->hashes, (size_t)cap, sizeof *h);
        if (h) t->hashes = h;
        uint64_t *k = t->kw ? t->koff : grow(t->koff, (size_t)cap + 1, sizeof *k);
        if (k) t->koff = k;
        if (!h || (!t->kw && !k))
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: growing the group table to %lld groups", (long long)cap);
        if (t->cap == 0 && !t->kw) t->koff[0] = 0;
        t->cap = cap;
    }
    uint64_t slots = t->slots ? t->mask + 1 : 0;
    if ((uint64_t)need * 2 > slots) {
        uint64_t ns = slots ? slots : 128;
        while ((uint64_t)need * 2 > ns) ns *= 2;
        uint64_t *s = floe_malloc_array((size_t)ns, sizeof *s);
        if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: growing the hash table to %llu slots", (unsigned long long)ns);
        memset(s, 0xff, (size_t)ns * sizeof *s);
        uint64_t mask = ns - 1;
        for (int64_t g = 0; g < t->n; g++) {
            uint64_t pos = t->hashes[g] & mask;
            while (s[pos] != EMPTY) pos = (pos + 1) & mask;
            s[pos] = SLOT(t->hashes[g], g);
        }
        floe_free(t->slots);
        t->slots = s;
        t->mask = mask;
    }
    return NULL;
}

/* memcmp for the short keys group tables mostly hold, without a call. */
static inline bool keys_equal(const uint8_t *a, const uint8_t *b, uint32_t len) {
    while (len >= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y) return false;
        a += 8;
        b += 8;
        len -= 8;
    }
    while (len--)
        if (*a++ != *b++) return false;
    return true;
}

static inline const uint8_t *gt_key(const gtable *t, uint32_t id, uint32_t *len) {
    if (t->kw) {
        *len = t->kw;
        return t->keys + (uint64_t)id * t->kw;
    }
    *len = (uint32_t)(t->koff[id + 1] - t->koff[id]);
    return t->keys + t->koff[id];
}

static floe_status gt_insert_key(gtable *t, uint32_t id, const uint8_t *key, uint32_t len) {
    uint64_t at = t->keys_len;
    if (at + len > t->keys_cap) {
        uint64_t cap = t->keys_cap ? t->keys_cap : 4096;
        while (cap < at + len) cap *= 2;
        uint8_t *k = floe_realloc(t->keys, (size_t)cap);
        if (!k) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: growing the key store to %llu bytes", (unsigned long long)cap);
        t->keys = k;
        t->keys_cap = cap;
    }
    if (len) memcpy(t->keys + at, key, len);
    t->keys_len = at + len;
    if (!t->kw) t->koff[id + 1] = at + len;
    return NULL;
}

/* Find or insert n encoded keys (key r: bytes [offs[r], offs[r+1]) of
 * `keys`, hash hashes[r]); ids[r] = its group; is_new[r] (optional) = the
 * key was inserted by this call.  gt_reserve(t, n) must have been called. */
static floe_status gt_probe(gtable *t, int64_t n, const uint64_t *hashes, const uint8_t *keys, const uint32_t *offs,
                            uint32_t *ids, uint8_t *is_new) {
    for (int64_t r = 0; r < n; r++) {
        if (r + 16 < n) __builtin_prefetch(&t->slots[hashes[r + 16] & t->mask]); /* hide the cache miss */
        uint64_t h = hashes[r];
        const uint8_t *key = keys + offs[r];
        uint32_t len = offs[r + 1] - offs[r];
        uint64_t pos = h & t->mask, tag = h & UINT64_C(0xffffffff00000000);
        uint32_t id;
        bool inserted = false;
        for (;;) {
            uint64_t e = t->slots[pos];
            if (e == EMPTY) {
                id = (uint32_t)t->n;
                FLOE_TRY(gt_insert_key(t, id, key, len));
                t->hashes[id] = h;
                t->slots[pos] = SLOT(h, id);
                t->n++;
                inserted = true;
                break;
            }
            if ((e & UINT64_C(0xffffffff00000000)) == tag) {
                id = (uint32_t)e;
                uint32_t glen;
                const uint8_t *gk = gt_key(t, id, &glen);
                if (glen == len && keys_equal(gk, key, len)) break;
            }
            pos = (pos + 1) & t->mask;
        }
        ids[r] = id;
        if (is_new) is_new[r] = inserted;
    }
    return NULL;
}

/* Bytes of the fixed-width encoding of key columns of these types (tag +
 * value, zeros for NULL), or 0 when some column is variable width. */
static uint32_t fixed_key_width(floe_type *const *types, int32_t n, bool prefix) {
    uint32_t w = prefix ? 4 : 0;
    for (int32_t c = 0; c < n; c++) {
        const floe_type *t = types[c];
        if (floe_type_is_binary_like(t) || floe_type_is_nested(t)) return 0;
        w += 1 + (t->id == FLOE_TYPE_BOOL ? 1 : (uint32_t)(t->byte_width > 0 ? t->byte_width : 0));
    }
    return w ? w : 1;
}

/* --------------------------------------------------------- key encoding */

static inline void put_double(uint8_t *p, double d) {
    if (d == 0) d = 0.0;
    if (isnan(d)) d = NAN;
    memcpy(p, &d, 8);
}
static inline void put_float(uint8_t *p, float f) {
    if (f == 0) f = 0.0f;
    if (isnan(f)) f = NAN;
    memcpy(p, &f, 4);
}

/* Scratch space reused from batch to batch. */
typedef struct scratch {
    uint8_t *bytes;
    size_t bytes_cap;
    uint32_t *offs, *pos;   /* n + 1, n */
    uint64_t *hashes;
    uint32_t *ids, *rows, *sub_ids;
    uint8_t *is_new;
    uint64_t *pkeys;        /* packed keys: 2 words a row */
    int64_t cap;            /* rows */
} scratch;

static void scratch_free(scratch *s) {
    floe_free(s->bytes);
    floe_free(s->offs);
    floe_free(s->pos);
    floe_free(s->hashes);
    floe_free(s->ids);
    floe_free(s->rows);
    floe_free(s->sub_ids);
    floe_free(s->is_new);
    floe_free(s->pkeys);
}

static floe_status scratch_reserve(scratch *s, int64_t n) {
    if (n <= s->cap) return NULL;
    int64_t cap = s->cap ? s->cap : 1024;
    while (cap < n) cap *= 2;
    void *p[8] = {floe_realloc(s->offs, (size_t)(cap + 1) * 4), floe_realloc(s->pos, (size_t)cap * 4),
                  floe_realloc(s->hashes, (size_t)cap * 8), floe_realloc(s->ids, (size_t)cap * 4),
                  floe_realloc(s->rows, (size_t)cap * 4), floe_realloc(s->sub_ids, (size_t)cap * 4),
                  floe_realloc(s->is_new, (size_t)cap), floe_realloc(s->pkeys, (size_t)cap * 16)};
    if (p[0]) s->offs = p[0];
    if (p[1]) s->pos = p[1];
    if (p[2]) s->hashes = p[2];
    if (p[3]) s->ids = p[3];
    if (p[4]) s->rows = p[4];
    if (p[5]) s->sub_ids = p[5];
    if (p[6]) s->is_new = p[6];
    if (p[7]) s->pkeys = p[7];
    for (int i = 0; i < 8; i++)
        if (!p[i]) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: scratch space for %lld rows", (long long)cap);
    s->cap = cap;
    return NULL;
}

static bool key_type_ok(const floe_type *t) { return !floe_type_is_nested(t); }

/* Encode rows rows[0..n) (rows NULL: 0..n-1) of the key columns into
 * s->bytes / s->offs, each prefixed by the u32 prefix[k] when given.  kw
 * > 0: every key is kw bytes (fixed_key_width), NULLs zero-filled. */
static floe_status encode_keys(scratch *s, floe_array *const *cols, int32_t nc, const uint32_t *rows, int64_t n,
                               const uint32_t *prefix, uint32_t kw) {
    uint32_t *offs = s->offs, *pos = s->pos;
    /* pass 1: lengths */
    if (kw) {
        if ((uint64_t)n * kw > UINT32_MAX) return floe_error(FLOE_ERR_UNSUPPORTED, "HashAggregate: group keys of one batch exceed 4 GiB");
        for (int64_t k = 0; k < n; k++) offs[k + 1] = kw;
    } else {
        for (int64_t k = 0; k < n; k++) offs[k + 1] = (prefix ? 4 : 0) + (uint32_t)nc;
    }
    for (int32_t c = 0; c < nc && !kw; c++) {
        const floe_array *a = cols[c];
        const floe_type *t = a->type;
        if (t->id == FLOE_TYPE_NULL) continue;
        const uint8_t *vb = a->validity ? a->validity->data : NULL;
        if (floe_type_is_binary_like(t)) {
            const int32_t *o = floe_array_offsets(a);
            for (int64_t k = 0; k < n; k++) {
                int64_t r = rows ? rows[k] : k;
                if (!vb || floe_bit_get(vb, a->offset + r)) offs[k + 1] += 4 + (uint32_t)(o[r + 1] - o[r]);
            }
        } else {
            uint32_t w = t->id == FLOE_TYPE_BOOL ? 1 : (uint32_t)t->byte_width;
            for (int64_t k = 0; k < n; k++) {
                int64_t r = rows ? rows[k] : k;
                if (!vb || floe_bit_get(vb, a->offset + r)) offs[k + 1] += w;
            }
        }
    }
    offs[0] = 0;
    uint64_t total = 0;
    for (int64_t k = 0; k < n; k++) {
        total += offs[k + 1];
        if (total > UINT32_MAX) return floe_error(FLOE_ERR_UNSUPPORTED, "HashAggregate: group keys of one batch exceed 4 GiB");
        offs[k + 1] = (uint32_t)total;
    }
    if (total > s->bytes_cap) {
        size_t cap = s->bytes_cap ? s->bytes_cap : 4096;
        while (cap < total) cap *= 2;
        uint8_t *b = floe_realloc(s->bytes, cap);
        if (!b) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: %zu bytes of keys", cap);
        s->bytes = b;
        s->bytes_cap = cap;
    }
    uint8_t *out = s->bytes;
    for (int64_t k = 0; k < n; k++) {
        pos[k] = offs[k];
        if (prefix) {
            memcpy(out + pos[k], &prefix[k], 4);
            pos[k] += 4;
        }
    }
    /* pass 2: values, column by column */
    for (int32_t c = 0; c < nc; c++) {
        const floe_array *a = cols[c];
        const floe_type *t = a->type;
        const uint8_t *vb = a->validity ? a->validity->data : NULL;
        bool null_type = t->id == FLOE_TYPE_NULL;
        uint32_t w = t->id == FLOE_TYPE_BOOL ? 1 : t->byte_width > 0 ? (uint32_t)t->byte_width : 0;
        for (int64_t k = 0; k < n; k++) {
            int64_t r = rows ? rows[k] : k;
            uint8_t *p = out + pos[k];
            if (null_type || (vb && !floe_bit_get(vb, a->offset + r))) {
                if (kw) memset(p, 0, 1 + w);
                else *p = 0;
                pos[k] += kw ? 1 + w : 1;
                continue;
            }
            *p++ = 1;
            switch (t->id) {
            case FLOE_TYPE_BOOL: *p = floe_array_get_bool(a, r); pos[k] += 2; break;
            case FLOE_TYPE_FLOAT32: put_float(p, floe_array_get_float(a, r)); pos[k] += 5; break;
            case FLOE_TYPE_FLOAT64: put_double(p, floe_array_get_double(a, r)); pos[k] += 9; break;
            case FLOE_TYPE_STRING:
            case FLOE_TYPE_BINARY: {
                floe_strview v = floe_array_get_str(a, r);
                uint32_t len = (uint32_t)v.len;
                memcpy(p, &len, 4);
                if (len) memcpy(p + 4, v.data, len);
                pos[k] += 5 + len;
                break;
            }
            default:
                memcpy(p, floe_array_get_fixed(a, r), (size_t)t->byte_width);
                pos[k] += 1 + (uint32_t)t->byte_width;
                break;
            }
        }
    }
    return NULL;
}

/* ------------------------------------------------------------- streams */

typedef struct agg_stream {
    floe_stream base;
    const agg_plan *p;
    floe_stream *child;
    const floe_cancel *cancel;
    int64_t batch_size;
    gtable gt;
    bool packed;          /* groups live in pt (keys fit 16 bytes), not gt */
    floe_pk_layout pl;
    floe_pk_table pt;
    floe_type **key_types; /* borrowed from the schema */
    bool sel_input;       /* the child is a Filter read with selections */
    struct chunk_order *co; /* few groups: a chunk's rows by group */
    bool *twin_done;      /* per call: folded in already for this chunk */
    acc *accs;
    uint8_t *states;      /* acc_cap rows of `stride` bytes */
    size_t stride;
    int64_t acc_cap;      /* groups the state rows hold */
    int64_t init_rows;    /* rows zeroed so far (= groups created) */
    floe_array **args;    /* per call: the current batch's argument */
    scratch sc;
    floe_array **keys;    /* the current batch's key columns (for errors) */
    bool consumed;        /* input fully aggregated */
    int64_t emitted;      /* groups already output */
    floe_status err;      /* sticky failure */
} agg_stream;

static int64_t n_groups_of(const agg_stream *s) { return s->p->n_groups ? (s->packed ? s->pt.n : s->gt.n) : 1; }

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

static floe_status overflow_error(const agg_stream *s, const acc *a, int64_t r, const char *what) {
    floe_buf b = FLOE_BUF_INIT;
    describe_group(s, r, &b);
    floe_status st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s(...) AS %s: %s overflow%s", floe_agg_fn_name(a->call->fn),
                                a->call->name, what, floe_buf_cstr(&b));
    floe_buf_free(&b);
    return st;
}

/* Accumulator state is row-wise: every group has one `stride`-byte row
 * holding each call's value, count and "seen" flag at fixed offsets, so
 * folding a batch touches one or two cache lines per row however many
 * aggregates there are.  acc.pv / pc / ps point at group 0's fields. */
#define AV(T, a, g) (*(T *)((a)->pv + (size_t)(g) * (a)->stride))
#define ACNT(a, g) (*(int64_t *)((a)->pc + (size_t)(g) * (a)->stride))
#define ASEEN(a, g) (*((a)->ps + (size_t)(g) * (a)->stride))

static bool needs_cnt(acc_kind k) {
    return k == ACC_COUNT_STAR || k == ACC_COUNT || k == ACC_SUM_I128 || k == ACC_SUM_F64 || k == ACC_AVG_F64 ||
           k == ACC_AVG_I128;
}
static bool needs_seen(acc_kind k) {
    return k == ACC_SUM_I64 || k == ACC_MIN || k == ACC_MAX || k == ACC_BOOL_AND || k == ACC_BOOL_OR;
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
    int64_t need = n_groups_of(s);
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
        s->init_rows = need;
    }
    return NULL;
}

/* Rows folded per pass over the aggregates (their state rows stay in
 * cache between one aggregate and the next). */
#define AGG_CHUNK 1024

#define ROW(k) (rows ? (int64_t)rows[k] : base + (int64_t)(k))
#define VALID(r) (!vb || floe_bit_get(vb, off + (r)))

static inline int cmp_f64(double x, double y) { /* NaN is the largest value */
    if (isnan(x) || isnan(y)) return isnan(x) ? (isnan(y) ? 0 : 1) : -1;
    return x < y ? -1 : x > y;
}

static floe_status set_bytes(bval *b, const char *p, int32_t len) {
    if (len > b->cap) {
        int32_t cap = len < 16 ? 16 : len;
        uint8_t *n = floe_realloc(b->p, (size_t)cap);
        if (!n) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: min/max value of %d bytes", len);
        b->p = n;
        b->cap = cap;
    }
    if (len) memcpy(b->p, p, (size_t)len);
    b->len = len;
    return NULL;
}

static int cmp_bytes(const uint8_t *a, int32_t al, const char *b, int32_t bl) {
    int32_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, (size_t)n) : 0;
    return c ? c : (al > bl) - (al < bl);
}

static inline i128 load_i128(const uint8_t *p) {
    i128 x;
    memcpy(&x, p, 16);
    return x;
}

/* min/max over values of physical class ph. */
static floe_status minmax_update(acc *a, const floe_array *arr, const uint32_t *ids, const uint32_t *rows, int64_t base,
                                 int64_t n) {
    const uint8_t *vb = arr->validity ? arr->validity->data : NULL;
    int64_t off = arr->offset;
    bool mx = a->kind == ACC_MAX;
#define MINMAX_LOOP(T, GET, LESS)                                                     \
    do {                                                                              \
        for (int64_t k = 0; k < n; k++) {                                             \
            int64_t r = ROW(k);                                                       \
            if (!VALID(r)) continue;                                                  \
            uint32_t g = ids[k];                                                      \
            T x = GET;                                                                \
            T *v = &AV(T, a, g);                                                      \
            if (!ASEEN(a, g) || (mx ? LESS(*v, x) : LESS(x, *v))) {                   \
                *v = x;                                                               \
                ASEEN(a, g) = 1;                                                      \
            }                                                                         \
        }                                                                             \
    } while (0)
#define LT(x, y) ((x) < (y))
#define FLT(x, y) (cmp_f64((x), (y)) < 0)
    switch (a->ph) {
    case PHYS_I32: MINMAX_LOOP(int32_t, ((const int32_t *)arr->buffers[0]->data)[off + r], LT); break;
    case PHYS_I64: MINMAX_LOOP(int64_t, ((const int64_t *)arr->buffers[0]->data)[off + r], LT); break;
    case PHYS_F32: MINMAX_LOOP(float, ((const float *)arr->buffers[0]->data)[off + r], FLT); break;
    case PHYS_F64: MINMAX_LOOP(double, ((const double *)arr->buffers[0]->data)[off + r], FLT); break;
    case PHYS_I128: {
        const uint8_t *src = arr->buffers[0]->data;
        MINMAX_LOOP(i128, load_i128(src + (off + r) * 16), LT);
        break;
    }
    case PHYS_BOOL: MINMAX_LOOP(uint8_t, (uint8_t)floe_bit_get(arr->buffers[0]->data, off + r), LT); break;
    case PHYS_FIXED: {
        size_t w = a->esz;
        for (int64_t k = 0; k < n; k++) {
            int64_t r = ROW(k);
            if (!VALID(r)) continue;
            uint32_t g = ids[k];
            const uint8_t *x = floe_array_get_fixed(arr, r);
            uint8_t *cur = &AV(uint8_t, a, g);
            int c = ASEEN(a, g) ? memcmp(x, cur, w) : 0;
            if (!ASEEN(a, g) || (mx ? c > 0 : c < 0)) {
                memcpy(cur, x, w);
                ASEEN(a, g) = 1;
            }
        }
        break;
    }
    case PHYS_BYTES: {
        for (int64_t k = 0; k < n; k++) {
            int64_t r = ROW(k);
            if (!VALID(r)) continue;
            uint32_t g = ids[k];
            bval *v = &AV(bval, a, g);
            floe_strview x = floe_array_get_str(arr, r);
            int c = ASEEN(a, g) ? cmp_bytes(v->p, v->len, x.data, x.len) : 0;
            if (!ASEEN(a, g) || (mx ? c < 0 : c > 0)) {
                FLOE_TRY(set_bytes(v, x.data, x.len));
                ASEEN(a, g) = 1;
            }
        }
        break;
    }
    }
#undef MINMAX_LOOP
#undef LT
#undef FLT
    return NULL;
}

/* Value r of an integer or decimal array as a 128-bit integer. */
static inline i128 get_i128(const floe_array *arr, floe_type_id id, int64_t r) {
    if (id == FLOE_TYPE_INT32) return floe_array_get_int32(arr, r);
    if (id == FLOE_TYPE_INT64) return floe_array_get_int64(arr, r);
    return load_i128(arr->buffers[0]->data + (arr->offset + r) * 16);
}
static inline double get_f64(const floe_array *arr, floe_type_id id, int64_t r) {
    return id == FLOE_TYPE_FLOAT32 ? (double)floe_array_get_float(arr, r) : floe_array_get_double(arr, r);
}

/* The loop of acc_update_dense: BODY sees row r of the array and group
 * g, once per row, without a test on `rows` inside the loop. */
#define FOLD(BODY)                                                 \
    do {                                                           \
        if (rows) {                                                \
            for (int64_t k = 0; k < n; k++) {                      \
                int64_t r = rows[k];                               \
                uint32_t g = ids[k];                               \
                BODY;                                              \
            }                                                      \
        } else {                                                   \
            for (int64_t k = 0; k < n; k++) {                      \
                int64_t r = base + k;                              \
                uint32_t g = ids[k];                               \
                BODY;                                              \
            }                                                      \
        }                                                          \
    } while (0)

/* acc_update for an argument without NULLs: one loop per (aggregate,
 * physical type), no per-row type dispatch or validity test.  Integer
 * arguments summed in 128 bits need no overflow test: |x| < 2^63 and a
 * group's count is below 2^63.  *done false: not handled here. */
static floe_status acc_update_dense(agg_stream *s, acc *a, const floe_array *arr, const uint32_t *ids,
                                    const uint32_t *rows, int64_t base, int64_t n, bool *done) {
    floe_type_id id = arr->type->id;
    const uint8_t *data = arr->buffers[0]->data;
    int64_t off = arr->offset;
    *done = true;
    switch (a->kind) {
    case ACC_COUNT:
        FOLD((void)r; ACNT(a, g)++);
        return NULL;
    case ACC_SUM_I64:
        if (id == FLOE_TYPE_INT32) {
            const int32_t *v = (const int32_t *)data + off;
            FOLD(int64_t *x = &AV(int64_t, a, g);
                 if (__builtin_add_overflow(*x, (int64_t)v[r], x)) return overflow_error(s, a, r, "int64");
                 ASEEN(a, g) = 1);
            return NULL;
        }
        if (id == FLOE_TYPE_INT64) {
            const int64_t *v = (const int64_t *)data + off;
            FOLD(int64_t *x = &AV(int64_t, a, g);
                 if (__builtin_add_overflow(*x, v[r], x)) return overflow_error(s, a, r, "int64");
                 ASEEN(a, g) = 1);
            return NULL;
        }
        break;
    case ACC_SUM_I128:
    case ACC_AVG_I128:
        if (id == FLOE_TYPE_INT32) {
            const int32_t *v = (const int32_t *)data + off;
            FOLD(AV(i128, a, g) += v[r]; ACNT(a, g)++);
            return NULL;
        }
        if (id == FLOE_TYPE_INT64) {
            const int64_t *v = (const int64_t *)data + off;
            FOLD(AV(i128, a, g) += v[r]; ACNT(a, g)++);
            return NULL;
        }
        if (id == FLOE_TYPE_DECIMAL128) {
            const uint8_t *v = data + off * 16;
            FOLD(i128 *x = &AV(i128, a, g);
                 if (__builtin_add_overflow(*x, load_i128(v + r * 16), x)) return overflow_error(s, a, r, "decimal(38)");
                 ACNT(a, g)++);
            return NULL;
        }
        break;
    case ACC_SUM_F64:
    case ACC_AVG_F64:
        if (id == FLOE_TYPE_FLOAT64) {
            const double *v = (const double *)data + off;
            FOLD(AV(double, a, g) += v[r]; ACNT(a, g)++);
            return NULL;
        }
        if (id == FLOE_TYPE_FLOAT32) {
            const float *v = (const float *)data + off;
            FOLD(AV(double, a, g) += (double)v[r]; ACNT(a, g)++);
            return NULL;
        }
        break;
    default:
        break;
    }
    *done = false;
    return NULL;
}
#undef FOLD

/* ------------------------------------------------- few groups: by group */

/* With few groups, consecutive rows keep updating the same handful of
 * state rows, and each update waits for the previous one's store.  So a
 * chunk's rows are first ordered by group (a stable counting sort), and
 * each aggregate then runs over one group's rows at a time with the
 * running value in a register, storing it once per group and chunk.  The
 * rows of a group are still added in their original order, starting from
 * the group's state: results and overflow errors are exactly those of the
 * row-at-a-time loops. */
#define FEW_GROUPS 256

typedef struct chunk_order {
    int32_t n_used;                   /* groups present in the chunk */
    uint32_t group[AGG_CHUNK];        /* those groups, by id */
    uint32_t start[AGG_CHUNK + 1];    /* rows of group[i]: order[start[i] .. start[i+1]) */
    uint32_t order[AGG_CHUNK];        /* the chunk's batch rows, grouped */
    uint32_t cnt[FEW_GROUPS];         /* scratch: rows per group id */
} chunk_order;

/* Order rows rows[0..n) (NULL: base..base+n-1) of groups ids[0..n) (all
 * below n_groups <= FEW_GROUPS) by group. */
static void order_chunk(chunk_order *co, int64_t n_groups, const uint32_t *ids, const uint32_t *rows, int64_t base,
                        int64_t n) {
    memset(co->cnt, 0, (size_t)n_groups * sizeof co->cnt[0]);
    for (int64_t k = 0; k < n; k++) co->cnt[ids[k]]++;
    uint32_t pos = 0;
    int32_t used = 0;
    for (int64_t g = 0; g < n_groups; g++) {
        uint32_t c = co->cnt[g];
        if (!c) continue;
        co->group[used] = (uint32_t)g;
        co->start[used++] = pos;
        co->cnt[g] = pos; /* now: the next slot of group g */
        pos += c;
    }
    co->start[used] = pos;
    co->n_used = used;
    for (int64_t k = 0; k < n; k++) co->order[co->cnt[ids[k]]++] = rows ? rows[k] : (uint32_t)(base + k);
}

/* Sum of 128-bit decimals or of doubles into a and its twin t in one
 * loop: one load per row, each running value checked as in its own loop.
 * *done false: not this case. */
static floe_status twin_sums(agg_stream *s, acc *a, acc *t, const floe_array *arr, const chunk_order *co, bool *done) {
    floe_type_id id = arr->type->id;
    const uint32_t *order = co->order;
    bool i128_kind = a->kind == ACC_SUM_I128 || a->kind == ACC_AVG_I128;
    if (i128_kind && id == FLOE_TYPE_DECIMAL128) {
        const uint8_t *x = arr->buffers[0]->data + arr->offset * 16;
        for (int32_t u = 0; u < co->n_used; u++) {
            uint32_t g = co->group[u], j0 = co->start[u], j1 = co->start[u + 1];
            i128 v = AV(i128, a, g), w = AV(i128, t, g);
            for (uint32_t j = j0; j < j1; j++) {
                int64_t r = order[j];
                i128 y = load_i128(x + r * 16);
                if (__builtin_add_overflow(v, y, &v)) return overflow_error(s, a, r, "decimal(38)");
                if (__builtin_add_overflow(w, y, &w)) return overflow_error(s, t, r, "decimal(38)");
            }
            AV(i128, a, g) = v;
            AV(i128, t, g) = w;
            ACNT(a, g) += j1 - j0;
            ACNT(t, g) += j1 - j0;
        }
        *done = true;
    } else if (!i128_kind && id == FLOE_TYPE_FLOAT64) {
        const double *x = (const double *)arr->buffers[0]->data + arr->offset;
        for (int32_t u = 0; u < co->n_used; u++) {
            uint32_t g = co->group[u], j0 = co->start[u], j1 = co->start[u + 1];
            double v = AV(double, a, g), w = AV(double, t, g);
            for (uint32_t j = j0; j < j1; j++) {
                double y = x[order[j]];
                v += y;
                w += y;
            }
            AV(double, a, g) = v;
            AV(double, t, g) = w;
            ACNT(a, g) += j1 - j0;
            ACNT(t, g) += j1 - j0;
        }
        *done = true;
    }
    return NULL;
}

/* One aggregate over an ordered chunk; *done false: not handled (the
 * caller runs acc_update).  Handles arguments without NULLs only.
 * *twin_done: a->twin was folded in too. */
static floe_status acc_update_grouped(agg_stream *s, acc *a, const floe_array *arr, const chunk_order *co,
                                      bool *done, bool *twin_done) {
    *done = true;
    *twin_done = false;
    if (a->twin >= 0 && arr && arr->type->id != FLOE_TYPE_NULL && floe_array_null_count(arr) == 0) {
        FLOE_TRY(twin_sums(s, a, &s->accs[a->twin], arr, co, twin_done));
        if (*twin_done) return NULL;
    }
    if (a->kind == ACC_COUNT_STAR || (a->kind == ACC_COUNT && arr && arr->type->id != FLOE_TYPE_NULL &&
                                      floe_array_null_count(arr) == 0)) {
        for (int32_t u = 0; u < co->n_used; u++) ACNT(a, co->group[u]) += co->start[u + 1] - co->start[u];
        return NULL;
    }
    if (!arr || arr->type->id == FLOE_TYPE_NULL || floe_array_null_count(arr) != 0) {
        *done = false;
        return NULL;
    }
    floe_type_id id = arr->type->id;
    const uint8_t *data = arr->buffers[0]->data;
    int64_t off = arr->offset;
    const uint32_t *order = co->order;
    /* BODY folds row r into the local `v`; INIT / STORE move the group's
     * state in and out. */
#define BY_GROUP(T, INIT, BODY, STORE)                                      \
    for (int32_t u = 0; u < co->n_used; u++) {                              \
        uint32_t g = co->group[u], j0 = co->start[u], j1 = co->start[u + 1]; \
        T v = INIT;                                                         \
        for (uint32_t j = j0; j < j1; j++) {                                \
            int64_t r = order[j];                                           \
            BODY;                                                           \
        }                                                                   \
        STORE;                                                              \
        ACNT_OR_SEEN;                                                       \
    }
    switch (a->kind) {
    case ACC_SUM_I64:
#define ACNT_OR_SEEN ASEEN(a, g) = 1
        if (id == FLOE_TYPE_INT32) {
            const int32_t *x = (const int32_t *)data + off;
            BY_GROUP(int64_t, AV(int64_t, a, g),
                     if (__builtin_add_overflow(v, (int64_t)x[r], &v)) return overflow_error(s, a, r, "int64"),
                     AV(int64_t, a, g) = v)
            return NULL;
        }
        if (id == FLOE_TYPE_INT64) {
            const int64_t *x = (const int64_t *)data + off;
            BY_GROUP(int64_t, AV(int64_t, a, g),
                     if (__builtin_add_overflow(v, x[r], &v)) return overflow_error(s, a, r, "int64"),
                     AV(int64_t, a, g) = v)
            return NULL;
        }
        break;
#undef ACNT_OR_SEEN
#define ACNT_OR_SEEN ACNT(a, g) += j1 - j0
    case ACC_SUM_I128:
    case ACC_AVG_I128:
        if (id == FLOE_TYPE_INT32) {
            const int32_t *x = (const int32_t *)data + off;
            BY_GROUP(i128, AV(i128, a, g), v += x[r], AV(i128, a, g) = v)
            return NULL;
        }
        if (id == FLOE_TYPE_INT64) {
            const int64_t *x = (const int64_t *)data + off;
            BY_GROUP(i128, AV(i128, a, g), v += x[r], AV(i128, a, g) = v)
            return NULL;
        }
        if (id == FLOE_TYPE_DECIMAL128) {
            const uint8_t *x = data + off * 16;
            BY_GROUP(i128, AV(i128, a, g),
                     if (__builtin_add_overflow(v, load_i128(x + r * 16), &v)) return overflow_error(s, a, r, "decimal(38)"),
                     AV(i128, a, g) = v)
            return NULL;
        }
        break;
    case ACC_SUM_F64:
    case ACC_AVG_F64:
        if (id == FLOE_TYPE_FLOAT64) {
            const double *x = (const double *)data + off;
            BY_GROUP(double, AV(double, a, g), v += x[r], AV(double, a, g) = v)
            return NULL;
        }
        if (id == FLOE_TYPE_FLOAT32) {
            const float *x = (const float *)data + off;
            BY_GROUP(double, AV(double, a, g), v += (double)x[r], AV(double, a, g) = v)
            return NULL;
        }
        break;
#undef ACNT_OR_SEEN
    default:
        break;
    }
#undef BY_GROUP
    *done = false;
    return NULL;
}

/* Fold rows rows[0..n) (NULL: base..base+n-1) of `arr` into groups
 * ids[0..n). */
static floe_status acc_update(agg_stream *s, acc *a, const floe_array *arr, const uint32_t *ids, const uint32_t *rows,
                              int64_t base, int64_t n) {
    const uint8_t *vb = arr && arr->validity && floe_array_null_count(arr) ? arr->validity->data : NULL;
    int64_t off = arr ? arr->offset : 0;
    floe_type_id id = arr ? arr->type->id : FLOE_TYPE_NULL;
    if (!vb && arr && id != FLOE_TYPE_NULL) {
        bool done = false;
        floe_status st = acc_update_dense(s, a, arr, ids, rows, base, n, &done);
        if (st || done) return st;
    }
    switch (a->kind) {
    case ACC_COUNT_STAR:
        for (int64_t k = 0; k < n; k++) ACNT(a, ids[k])++;
        return NULL;
    case ACC_COUNT:
        if (id == FLOE_TYPE_NULL) return NULL;
        for (int64_t k = 0; k < n; k++)
            if (VALID(ROW(k))) ACNT(a, ids[k])++;
        return NULL;
    case ACC_SUM_I64:
        for (int64_t k = 0; k < n; k++) {
            int64_t r = ROW(k);
            if (!VALID(r)) continue;
            uint32_t g = ids[k];
            int64_t x = id == FLOE_TYPE_INT32 ? floe_array_get_int32(arr, r) : floe_array_get_int64(arr, r);
            int64_t *v = &AV(int64_t, a, g);
            if (__builtin_add_overflow(*v, x, v)) return overflow_error(s, a, r, "int64");
            ASEEN(a, g) = 1;
        }
        return NULL;
    case ACC_SUM_I128:
    case ACC_AVG_I128:
        for (int64_t k = 0; k < n; k++) {
            int64_t r = ROW(k);
            if (!VALID(r)) continue;
            uint32_t g = ids[k];
            i128 *v = &AV(i128, a, g);
            if (__builtin_add_overflow(*v, get_i128(arr, id, r), v)) return overflow_error(s, a, r, "decimal(38)");
            ACNT(a, g)++; /* cnt > 0 doubles as "seen" */
        }
        return NULL;
    case ACC_SUM_F64:
    case ACC_AVG_F64:
        for (int64_t k = 0; k < n; k++) {
            int64_t r = ROW(k);
            if (!VALID(r)) continue;
            uint32_t g = ids[k];
            AV(double, a, g) += get_f64(arr, id, r);
            ACNT(a, g)++;
        }
        return NULL;
    case ACC_MIN:
    case ACC_MAX:
        return minmax_update(a, arr, ids, rows, base, n);
    case ACC_BOOL_AND:
    case ACC_BOOL_OR: {
        bool and_ = a->kind == ACC_BOOL_AND;
        for (int64_t k = 0; k < n; k++) {
            int64_t r = ROW(k);
            if (!VALID(r)) continue;
            uint32_t g = ids[k];
            bool x = floe_array_get_bool(arr, r);
            uint8_t *v = &AV(uint8_t, a, g);
            *v = ASEEN(a, g) ? (and_ ? (*v && x) : (*v || x)) : x;
            ASEEN(a, g) = 1;
        }
        return NULL;
    }
    case ACC_NULL:
        return NULL;
    }
    return NULL;
}

/* FINAL: fold rows base..base+n-1 of the state columns (cols[0], and
 * cols[1] for avg) into groups ids[0..n). */
static floe_status acc_merge(agg_stream *s, acc *a, floe_array *const *cols, const uint32_t *ids, int64_t base,
                             int64_t n) {
    if (a->kind == ACC_COUNT_STAR || a->kind == ACC_COUNT) {
        const floe_array *c = cols[0];
        const uint8_t *vb = c->validity ? c->validity->data : NULL;
        int64_t off = c->offset;
        for (int64_t k = 0; k < n; k++)
            if (VALID(base + k) &&
                __builtin_add_overflow(ACNT(a, ids[k]), floe_array_get_int64(c, base + k), &ACNT(a, ids[k])))
                return overflow_error(s, a, base + k, "count");
        return NULL;
    }
    if (a->kind == ACC_AVG_F64 || a->kind == ACC_AVG_I128) {
        const floe_array *sum = cols[0], *cnt = cols[1];
        for (int64_t k = 0; k < n; k++) {
            uint32_t g = ids[k];
            int64_t r = base + k;
            if (floe_array_is_null(cnt, r)) continue;
            int64_t c = floe_array_get_int64(cnt, r);
            if (c == 0 || floe_array_is_null(sum, r)) continue;
            ACNT(a, g) += c;
            if (a->kind == ACC_AVG_F64) {
                AV(double, a, g) += floe_array_get_double(sum, r);
            } else {
                i128 *v = &AV(i128, a, g);
                if (__builtin_add_overflow(*v, get_i128(sum, FLOE_TYPE_DECIMAL128, r), v))
                    return overflow_error(s, a, r, "decimal(38)");
            }
        }
        return NULL;
    }
    return acc_update(s, a, cols[0], ids, NULL, base, n);
}

/* ------------------------------------------------------------- output */

static floe_status bits_from_seen(const uint8_t *seen, int64_t n, uint8_t **out) {
    uint8_t *b = floe_calloc((size_t)(n / 8 + 1), 1);
    if (!b) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: output validity");
    for (int64_t i = 0; i < n; i++)
        if (seen[i]) floe_bit_set(b, i);
    *out = b;
    return NULL;
}

static const i128 DEC38_MAX = (((i128)0x4b3b4ca85a86c47aLL) << 64) + (i128)0x098a223fffffffffULL; /* 10^38 - 1 */

/* One output column for groups [g0, g0+m): the final value (state=false)
 * or state column `which` (state=true). */
static floe_status acc_emit(agg_stream *s, acc *a, int64_t g0, int64_t m, bool state, int which, floe_array **out) {
    (void)s;
    floe_type *t = state ? (which == 1 ? floe_type_primitive(FLOE_TYPE_INT64) : a->state_type) : a->out_type;
    floe_builder *b = NULL;
    uint8_t *bits = NULL, *seen = NULL, *vals = NULL;
    int64_t *cnt = NULL;
    double *tmp = NULL;
    floe_status st = floe_builder_new(t, m, &b);
    if (st) return st;
    /* gather the strided fields of these groups into plain arrays */
    size_t mm = (size_t)(m ? m : 1);
    seen = floe_malloc(mm);
    cnt = floe_malloc_array(mm, sizeof *cnt);
    vals = a->esz ? floe_malloc_array(mm, a->esz) : NULL;
    if (!seen || !cnt || (a->esz && !vals)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: output");
    for (int64_t i = 0; i < m && !st; i++) {
        int64_t g = g0 + i;
        cnt[i] = needs_cnt(a->kind) ? ACNT(a, g) : 0;
        seen[i] = needs_seen(a->kind) ? ASEEN(a, g) : cnt[i] > 0;
        if (vals) memcpy(vals + (size_t)i * a->esz, &AV(uint8_t, a, g), a->esz);
    }
    if (st) goto done;
    switch (a->kind) {
    case ACC_COUNT_STAR:
    case ACC_COUNT:
        st = floe_builder_append_int64_values(b, cnt, m, NULL);
        break;
    case ACC_NULL:
        st = floe_builder_append_nulls(b, m);
        break;
    case ACC_AVG_F64:
    case ACC_AVG_I128:
        if (state && which == 1) {
            st = floe_builder_append_int64_values(b, cnt, m, NULL);
            break;
        }
        if (state) {
            st = bits_from_seen(seen, m, &bits);
            if (!st) st = floe_builder_append_values(b, vals, m, bits);
            break;
        }
        if (!(tmp = floe_malloc_array(mm, sizeof *tmp))) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: output");
            break;
        }
        for (int64_t i = 0; i < m; i++) {
            if (!cnt[i]) { tmp[i] = 0; continue; }
            if (a->kind == ACC_AVG_F64) tmp[i] = ((double *)vals)[i] / (double)cnt[i];
            else tmp[i] = (double)load_i128(vals + (size_t)i * 16) / pow(10.0, a->scale) / (double)cnt[i];
        }
        st = bits_from_seen(seen, m, &bits);
        if (!st) st = floe_builder_append_double_values(b, tmp, m, bits);
        break;
    case ACC_SUM_I128:
        for (int64_t i = 0; i < m && !st; i++) {
            i128 v = load_i128(vals + (size_t)i * 16);
            if (seen[i] && (v > DEC38_MAX || v < -DEC38_MAX))
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "sum(...) AS %s: decimal(38, %d) overflow", a->call->name,
                                a->out_type->scale);
        }
        /* fall through */
    case ACC_SUM_I64:
    case ACC_SUM_F64:
    case ACC_BOOL_AND:
    case ACC_BOOL_OR:
    case ACC_MIN:
    case ACC_MAX:
        if (st) break;
        if (a->ph == PHYS_BYTES && (a->kind == ACC_MIN || a->kind == ACC_MAX)) {
            const bval *v = (const bval *)vals;
            for (int64_t i = 0; i < m && !st; i++)
                st = seen[i] ? floe_builder_append_binary(b, v[i].p ? (const void *)v[i].p : "", v[i].len)
                             : floe_builder_append_null(b);
            break;
        }
        if (a->kind == ACC_BOOL_AND || a->kind == ACC_BOOL_OR ||
            ((a->kind == ACC_MIN || a->kind == ACC_MAX) && a->ph == PHYS_BOOL)) {
            for (int64_t i = 0; i < m && !st; i++)
                st = seen[i] ? floe_builder_append_bool(b, vals[i] != 0) : floe_builder_append_null(b);
            break;
        }
        st = bits_from_seen(seen, m, &bits);
        if (!st) st = floe_builder_append_values(b, vals, m, bits);
        break;
    }
done:
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    floe_free(bits);
    floe_free(tmp);
    floe_free(seen);
    floe_free(cnt);
    floe_free(vals);
    return st;
}

/* Decode group key column c of groups [g0, g0+m); cur[i] walks group
 * g0+i's key bytes and is advanced past the column. */
static floe_status emit_key(const gtable *t, floe_type *type, int64_t m, uint64_t *cur, floe_array **out) {
    floe_builder *b;
    FLOE_TRY(floe_builder_new(type, m, &b));
    floe_status st = NULL;
    for (int64_t i = 0; i < m && !st; i++) {
        const uint8_t *p = t->keys + cur[i];
        if (*p == 0) {
            cur[i] += t->kw ? 1 + (type->id == FLOE_TYPE_BOOL ? 1 : (uint64_t)(type->byte_width > 0 ? type->byte_width : 0)) : 1;
            st = floe_builder_append_null(b);
            continue;
        }
        p++;
        switch (type->id) {
        case FLOE_TYPE_BOOL: st = floe_builder_append_bool(b, *p != 0); cur[i] += 2; break;
        case FLOE_TYPE_STRING:
        case FLOE_TYPE_BINARY: {
            uint32_t len;
            memcpy(&len, p, 4);
            st = floe_builder_append_binary(b, p + 4, len);
            cur[i] += 5 + len;
            break;
        }
        default:
            st = floe_builder_append_values(b, p, 1, NULL);
            cur[i] += 1 + (uint64_t)type->byte_width;
            break;
        }
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

/* The next output batch of up to batch_size groups, or NULL when done. */
static floe_status emit_batch(agg_stream *s, floe_batch **out) {
    const agg_plan *p = s->p;
    int64_t total = n_groups_of(s);
    if (s->emitted >= total) return NULL;
    int64_t g0 = s->emitted, m = total - g0;
    if (m > s->batch_size) m = s->batch_size;
    int32_t ncol = floe_schema_num_fields(p->head.schema);
    floe_array **cols = floe_calloc((size_t)ncol, sizeof *cols);
    uint64_t *cur = floe_malloc_array((size_t)m, sizeof *cur);
    floe_status st = cols && cur ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: output batch");
    if (!st && p->n_groups && !s->packed)
        for (int64_t i = 0; i < m; i++) cur[i] = s->gt.kw ? (uint64_t)(g0 + i) * s->gt.kw : s->gt.koff[g0 + i];
    int32_t c = 0;
    if (!st && p->n_groups && s->packed) {
        st = floe_pk_decode(&s->pl, &s->pt, s->key_types, g0, m, cols);
        c = p->n_groups;
    }
    for (; !st && c < p->n_groups; c++)
        st = emit_key(&s->gt, p->head.schema->children[c].type, m, cur, &cols[c]);
    bool partial = p->mode == FLOE_AGG_MODE_PARTIAL;
    for (int32_t i = 0; !st && i < p->n_calls; i++) {
        acc *a = &s->accs[i];
        if (!partial) {
            st = acc_emit(s, a, g0, m, false, 0, &cols[c++]);
        } else {
            for (int w = 0; w < acc_state_cols(a) && !st; w++) st = acc_emit(s, a, g0, m, true, w, &cols[c++]);
        }
    }
    if (!st) st = floe_batch_new(p->head.schema, cols, ncol, m, out);
    for (int32_t i = 0; cols && i < ncol; i++) floe_array_release(cols[i]);
    floe_free(cols);
    floe_free(cur);
    if (!st) s->emitted += m;
    return st;
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
    FLOE_TRY(encode_keys(sc, &arg, 1, sc->rows, m, sc->sub_ids, a->dset->kw));
    FLOE_TRY(gt_reserve(a->dset, m));
    uint32_t *ids = sc->pos; /* pos is free again after encoding */
    FLOE_TRY(gt_probe(a->dset, m, h, sc->bytes, sc->offs, ids, sc->is_new));
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
    bool final = p->mode == FLOE_AGG_MODE_FINAL;
    floe_batch *x = NULL; /* b with the shared subexpressions' columns */
    floe_status st = NULL;
    if (p->cse) {
        int32_t failed;
        st = floe_cse_extend(p->cse, b, &x, &failed);
        if (st && failed >= 0 && failed < p->n_groups)
            return floe_status_wrap(st, "group key '%s'", p->group_names[failed]);
        if (st && failed >= p->n_groups)
            return floe_status_wrap(st, "aggregate '%s'", p->calls[failed - p->n_groups].name);
        if (st) return st;
    }
    for (int32_t c = 0; c < p->n_groups && !st; c++) {
        if (final) s->keys[c] = floe_array_retain(b->columns[c]);
        else if (x) st = floe_expr_eval(p->cse->rewritten[c], x, &s->keys[c]);
        else st = floe_expr_eval(p->groups[c], b, &s->keys[c]);
        if (st) st = floe_status_wrap(st, "group key '%s'", p->group_names[c]);
    }
    for (int32_t i = 0; i < p->n_calls && !final && !st; i++) {
        const floe_agg_call *c = &p->calls[i];
        if (!c->arg) continue;
        if (x) st = floe_expr_eval(p->cse->rewritten[p->n_groups + i], x, &s->args[i]);
        else st = floe_expr_eval(c->arg, b, &s->args[i]);
        if (st) st = floe_status_wrap(st, "aggregate '%s'", c->name);
    }
    floe_batch_release(x);
    return st;
}

static void release_inputs(agg_stream *s) {
    for (int32_t i = 0; i < s->p->n_calls; i++) {
        floe_array_release(s->args[i]);
        s->args[i] = NULL;
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
    if (!st) st = scratch_reserve(sc, n);
    if (!st) st = floe_hash_rows(cols, p->n_groups, n, sc->hashes);
    if (!st) st = encode_keys(sc, cols, p->n_groups, NULL, n, NULL, s->gt.kw);
    if (!st) st = gt_reserve(&s->gt, n);
    if (!st) st = gt_probe(&s->gt, n, sc->hashes, sc->bytes, sc->offs, sc->ids, NULL);
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
    FLOE_TRY(encode_keys(sc, s->keys, p->n_groups, sel, m, NULL, s->gt.kw));
    FLOE_TRY(gt_reserve(&s->gt, m));
    return gt_probe(&s->gt, m, sc->hashes, sc->bytes, sc->offs, sc->ids, NULL);
}

/* Fold the rows sel[0..m) of batch b (sel NULL: all m rows) in. */
static floe_status consume_batch(agg_stream *s, floe_batch *b, const uint32_t *sel, int64_t m) {
    const agg_plan *p = s->p;
    int64_t n = b->num_rows;
    if (m == 0) return NULL;
    FLOE_TRY(scratch_reserve(&s->sc, n));
    scratch *sc = &s->sc;
    bool final = p->mode == FLOE_AGG_MODE_FINAL;
    floe_status st = eval_inputs(s, b);
    if (st && sel) {
        /* Maybe a row the filter dropped failed (overflow, division by
         * zero): redo the batch on the selected rows alone, which fails
         * only if a selected row does. */
        release_inputs(s);
        floe_status_free(st);
        floe_batch *t = NULL;
        st = floe_batch_take(b, sel, m, &t);
        if (!st) st = consume_batch(s, t, NULL, m);
        floe_batch_release(t);
        return st;
    }
    /* 1-3: group ids */
    if (!st) st = group_ids(s, n, sel, m);
    if (!st) st = init_rows(s);
    /* DISTINCT calls (never with a selection: see agg_execute) */
    floe_array **args = s->args;
    for (int32_t i = 0; i < p->n_calls && !st; i++) {
        if (s->accs[i].dset) {
            int64_t kept;
            st = distinct_filter(s, &s->accs[i], args[i], n, &kept);
            if (!st) st = acc_update(s, &s->accs[i], args[i], sc->sub_ids, sc->rows, 0, kept);
            if (st) st = floe_status_wrap(st, "aggregate '%s'", p->calls[i].name);
        }
    }
    /* 4: accumulators, in chunks of rows whose state rows stay in cache
     * while every aggregate folds them in */
    int64_t ng = n_groups_of(s);
    bool grouped = !final && ng <= FEW_GROUPS && m >= 64;
    if (grouped && !s->co && !(s->co = floe_malloc(sizeof *s->co)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: chunk order");
    for (int64_t c0 = 0; c0 < m && !st; c0 += AGG_CHUNK) {
        int64_t len = m - c0 < AGG_CHUNK ? m - c0 : AGG_CHUNK;
        int32_t col = p->n_groups;
        const uint32_t *rows = sel ? sel + c0 : NULL;
        if (grouped) order_chunk(s->co, ng, sc->ids + c0, rows, c0, len);
        for (int32_t i = 0; i < p->n_calls; i++) s->twin_done[i] = false;
        for (int32_t i = 0; i < p->n_calls && !st; i++) {
            acc *a = &s->accs[i];
            bool done = false, twin_done = false;
            if (final) {
                st = acc_merge(s, a, b->columns + col, sc->ids + c0, c0, len);
                col += acc_state_cols(a);
            } else if (!a->dset && !s->twin_done[i]) {
                if (grouped) st = acc_update_grouped(s, a, args[i], s->co, &done, &twin_done);
                if (!st && !done) st = acc_update(s, a, args[i], sc->ids + c0, rows, c0, len);
                if (!st && twin_done) s->twin_done[a->twin] = true;
            }
            if (st) st = floe_status_wrap(st, "aggregate '%s'", p->calls[i].name);
        }
    }
    release_inputs(s);
    return st;
}

static floe_status agg_next(floe_stream *s_, floe_batch **out) {
    agg_stream *s = (agg_stream *)s_;
    *out = NULL;
    if (s->err) return floe_error(floe_status_code(s->err), "%s", floe_status_message(s->err));
    floe_status st = NULL;
    while (!s->consumed && !st) {
        floe_batch *b = NULL;
        st = floe_cancel_check(s->cancel, "HashAggregate");
        uint32_t *sel = NULL;
        int64_t m = 0;
        if (!st && s->sel_input) st = floe_filter_next_sel(s->child, &b, &sel, &m);
        else if (!st) st = floe_stream_next(s->child, &b);
        if (!st && !b) s->consumed = true;
        if (!st && b) st = consume_batch(s, b, sel, sel ? m : b->num_rows);
        floe_free(sel);
        floe_batch_release(b);
    }
    if (!st) st = floe_cancel_check(s->cancel, "HashAggregate");
    if (!st) st = emit_batch(s, out);
    if (st) {
        s->err = floe_error(floe_status_code(st), "%s", floe_status_message(st));
        if (!s->err) s->err = floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate failed");
    }
    return st;
}

static void agg_close(floe_stream *s_) {
    agg_stream *s = (agg_stream *)s_;
    floe_stream_close(s->child);
    for (int32_t i = 0; s->accs && i < s->p->n_calls; i++) {
        acc *a = &s->accs[i];
        if ((a->kind == ACC_MIN || a->kind == ACC_MAX) && a->ph == PHYS_BYTES && s->states)
            for (int64_t g = 0; g < s->init_rows; g++) floe_free(AV(bval, a, g).p);
        floe_type_release(a->out_type);
        floe_type_release(a->state_type);
        gt_free(a->dset);
        floe_free(a->dset);
    }
    floe_free(s->accs);
    floe_free(s->states);
    for (int32_t i = 0; s->args && i < s->p->n_calls; i++) floe_array_release(s->args[i]);
    floe_free(s->args);
    if (s->keys)
        for (int32_t c = 0; c < s->p->n_groups; c++) floe_array_release(s->keys[c]);
    floe_free(s->keys);
    gt_free(&s->gt);
    floe_pk_table_free(&s->pt);
    floe_free(s->key_types);
    floe_free(s->co);
    floe_free(s->twin_done);
    scratch_free(&s->sc);
    floe_status_free(s->err);
    floe_free(s);
}

static floe_status agg_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    const agg_plan *p = (const agg_plan *)p_;
    agg_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashAggregate stream");
    s->base.next = agg_next;
    s->base.close = agg_close;
    s->p = p;
    s->cancel = ctx->cancel;
    s->batch_size = ctx->batch_size > 0 ? ctx->batch_size : 8192;
    floe_status st = NULL;
    s->accs = floe_calloc((size_t)(p->n_calls ? p->n_calls : 1), sizeof *s->accs);
    s->keys = floe_calloc((size_t)(p->n_groups ? p->n_groups : 1), sizeof *s->keys);
    if (!s->accs || !s->keys) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashAggregate stream");
    for (int32_t i = 0; i < p->n_calls && !st; i++) {
        st = acc_setup(&s->accs[i], &p->calls[i], p->arg_types[i]);
        if (!st && p->calls[i].distinct && !(s->accs[i].dset = floe_calloc(1, sizeof(gtable))))
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashAggregate stream");
        if (!st && s->accs[i].dset) s->accs[i].dset->kw = fixed_key_width(&p->arg_types[i], 1, true);
    }
    if (!st && p->n_groups) {
        floe_type **kt = floe_calloc((size_t)p->n_groups, sizeof *kt);
        if (!kt) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashAggregate stream");
        for (int32_t c = 0; kt && c < p->n_groups; c++) kt[c] = p->head.schema->children[c].type;
        if (kt) s->gt.kw = fixed_key_width(kt, p->n_groups, false);
        if (kt) s->packed = floe_pk_layout_init(&s->pl, kt, p->n_groups);
        s->key_types = kt;
    }
    if (!st && !(s->args = floe_calloc((size_t)(p->n_calls ? p->n_calls : 1), sizeof *s->args)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashAggregate stream");
    if (!st && !(s->twin_done = floe_calloc((size_t)(p->n_calls ? p->n_calls : 1), sizeof *s->twin_done)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashAggregate stream");
    for (int32_t i = 0; s->accs && i < p->n_calls; i++) s->accs[i].twin = -1;
    for (int32_t i = 0; !st && p->mode != FLOE_AGG_MODE_FINAL && i < p->n_calls; i++) {
        /* sum(x) next to avg(x): one loop folds both (twin_sums) */
        acc *a = &s->accs[i];
        bool dec = a->kind == ACC_SUM_I128 || a->kind == ACC_AVG_I128;
        bool flt = a->kind == ACC_SUM_F64 || a->kind == ACC_AVG_F64;
        if ((!dec && !flt) || a->dset || a->is_twin) continue;
        for (int32_t j = i + 1; j < p->n_calls && a->twin < 0; j++) {
            acc *b = &s->accs[j];
            bool bdec = b->kind == ACC_SUM_I128 || b->kind == ACC_AVG_I128;
            bool bflt = b->kind == ACC_SUM_F64 || b->kind == ACC_AVG_F64;
            if (b->dset || b->is_twin || (dec ? !bdec : !bflt) || !floe_expr_same(p->calls[i].arg, p->calls[j].arg))
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

/* ---------------------------------------------------------- node parts */

static floe_status agg_encode(const floe_plan *p_, floe_buf *out) {
    const agg_plan *p = (const agg_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->mode));
    FLOE_TRY(floe_codec_put_i64(out, p->n_groups));
    for (int32_t i = 0; i < p->n_groups; i++) {
        FLOE_TRY(floe_codec_put_expr(out, p->groups[i]));
        FLOE_TRY(floe_codec_put_str(out, p->group_names[i]));
    }
    FLOE_TRY(floe_codec_put_i64(out, p->n_calls));
    for (int32_t i = 0; i < p->n_calls; i++) {
        const floe_agg_call *c = &p->calls[i];
        FLOE_TRY(floe_codec_put_i64(out, c->fn));
        FLOE_TRY(floe_codec_put_i64(out, c->distinct));
        FLOE_TRY(floe_codec_put_i64(out, c->arg != NULL));
        if (c->arg) FLOE_TRY(floe_codec_put_expr(out, c->arg));
        FLOE_TRY(floe_codec_put_str(out, c->name));
    }
    FLOE_TRY(floe_codec_put_i64(out, p->input_schema != NULL));
    if (p->input_schema) FLOE_TRY(floe_codec_put_type(out, p->input_schema));
    return NULL;
}

static floe_status agg_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "HashAggregate with %d children", n_children);
    int64_t mode = 0, ng = 0, nc = 0, has = 0;
    floe_expr **groups = NULL;
    char **names = NULL;
    floe_agg_call *calls = NULL;
    floe_type *in = NULL;
    int64_t got_g = 0, got_c = 0;
    floe_status st = floe_codec_get_i64(r, &mode);
    if (!st) st = floe_codec_get_i64(r, &ng);
    if (!st && (mode < 0 || mode > FLOE_AGG_MODE_FINAL || ng < 0 || ng > (int64_t)(r->len - r->pos)))
        st = floe_error(FLOE_ERR_CORRUPT, "HashAggregate: mode %lld, %lld group keys", (long long)mode, (long long)ng);
    if (!st && (!(groups = floe_calloc((size_t)ng + 1, sizeof *groups)) || !(names = floe_calloc((size_t)ng + 1, sizeof *names))))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding HashAggregate");
    for (; !st && got_g < ng; got_g++) {
        st = floe_codec_get_expr(r, &groups[got_g]);
        if (!st) st = floe_codec_get_str(r, &names[got_g]);
        if (st) { got_g++; break; }
    }
    if (!st) st = floe_codec_get_i64(r, &nc);
    if (!st && (nc < 0 || nc > (int64_t)(r->len - r->pos)))
        st = floe_error(FLOE_ERR_CORRUPT, "HashAggregate: %lld aggregates", (long long)nc);
    if (!st && !(calls = floe_calloc((size_t)nc + 1, sizeof *calls))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding HashAggregate");
    for (; !st && got_c < nc; got_c++) {
        int64_t fn = 0, distinct = 0, has_arg = 0;
        floe_agg_call *c = &calls[got_c];
        st = floe_codec_get_i64(r, &fn);
        if (!st) st = floe_codec_get_i64(r, &distinct);
        if (!st) st = floe_codec_get_i64(r, &has_arg);
        if (!st && (fn < 0 || fn >= FLOE_AGG_FN_COUNT_))
            st = floe_error(FLOE_ERR_CORRUPT, "HashAggregate: aggregate function %lld", (long long)fn);
        c->fn = (floe_agg_fn)fn;
        c->distinct = distinct != 0;
        if (!st && has_arg) st = floe_codec_get_expr(r, &c->arg);
        if (!st) st = floe_codec_get_str(r, &c->name);
        if (st) { got_c++; break; }
    }
    if (!st) st = floe_codec_get_i64(r, &has);
    if (!st && has) st = floe_codec_get_type(r, &in);
    if (!st)
        st = floe_plan_hash_aggregate(children[0], (floe_agg_mode)mode, groups, (const char *const *)names, (int32_t)ng,
                                      calls, (int32_t)nc, in, out);
    for (int64_t i = 0; i < got_g; i++) {
        floe_expr_release(groups[i]);
        floe_free(names[i]);
    }
    for (int64_t i = 0; i < got_c; i++) {
        floe_expr_release(calls[i].arg);
        floe_free(calls[i].name);
    }
    floe_free(groups);
    floe_free(names);
    floe_free(calls);
    floe_type_release(in);
    return st;
}

static floe_status agg_explain(const floe_plan *p_, floe_buf *out) {
    const agg_plan *p = (const agg_plan *)p_;
    FLOE_TRY(floe_buf_printf(out, "mode=%s, gby=[", mode_name(p->mode)));
    for (int32_t i = 0; i < p->n_groups; i++) {
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_expr_to_string(p->groups[i], out));
        FLOE_TRY(floe_buf_printf(out, " AS %s", p->group_names[i]));
    }
    FLOE_TRY(floe_buf_append_str(out, "], aggr=["));
    for (int32_t i = 0; i < p->n_calls; i++) {
        const floe_agg_call *c = &p->calls[i];
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_buf_printf(out, "%s(%s", floe_agg_fn_name(c->fn), c->distinct ? "DISTINCT " : ""));
        if (c->arg) FLOE_TRY(floe_expr_to_string(c->arg, out));
        else FLOE_TRY(floe_buf_append_str(out, "*"));
        FLOE_TRY(floe_buf_printf(out, ") AS %s", c->name));
    }
    return floe_buf_append_str(out, "]");
}

static floe_distribution agg_required(const floe_plan *p_, int32_t child) {
    const agg_plan *p = (const agg_plan *)p_;
    floe_distribution d = {FLOE_DIST_UNSPECIFIED, 0, NULL};
    (void)child;
    if (p->mode == FLOE_AGG_MODE_PARTIAL) return d;
    if (p->n_groups == 0) {
        d.kind = FLOE_DIST_SINGLE;
        return d;
    }
    d.kind = FLOE_DIST_HASH;
    d.n_exprs = p->n_groups;
    d.exprs = p->mode == FLOE_AGG_MODE_FINAL ? p->key_cols : p->groups;
    return d;
}

static void agg_free(floe_plan *p_) {
    agg_plan *p = (agg_plan *)p_;
    for (int32_t i = 0; i < p->n_groups; i++) {
        if (p->groups) floe_expr_release(p->groups[i]);
        if (p->group_names) floe_free(p->group_names[i]);
        if (p->key_cols) floe_expr_release(p->key_cols[i]);
    }
    floe_free(p->groups);
    floe_free(p->group_names);
    floe_free(p->key_cols);
    for (int32_t i = 0; i < p->n_calls; i++) {
        if (p->calls) {
            floe_expr_release(p->calls[i].arg);
            floe_free(p->calls[i].name);
        }
        if (p->arg_types) floe_type_release(p->arg_types[i]);
    }
    floe_free(p->calls);
    floe_free(p->arg_types);
    floe_type_release(p->input_schema);
    floe_cse_free(p->cse);
}

const floe_plan_vtable floe_hash_aggregate_vt = {
    .name = "HashAggregate",
    .execute = agg_execute,
    .encode_parts = agg_encode,
    .decode_parts = agg_decode,
    .explain_parts = agg_explain,
    .required_input = agg_required,
    .free_parts = agg_free,
    .child_read = floe_exec_child_read_local,
};

/* ---------------------------------------------------------- constructor */

/* Output fields (and, for PARTIAL, the state fields) of the node. */
static floe_status build_schema(agg_plan *p, const floe_schema *in, floe_schema **out) {
    int32_t n = p->n_groups, cap = p->n_groups + 2 * p->n_calls + 1;
    floe_field *f = floe_calloc((size_t)cap, sizeof *f);
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate schema");
    floe_status st = NULL;
    int32_t k = 0;
    for (int32_t i = 0; i < n && !st; i++) {
        floe_type *t = NULL;
        st = floe_status_wrap(floe_expr_type(p->groups[i], in, &t), "HashAggregate group key '%s'", p->group_names[i]);
        if (!st && !key_type_ok(t))
            st = floe_error(FLOE_ERR_UNSUPPORTED, "HashAggregate: cannot group by '%s' of type %s", p->group_names[i],
                            floe_type_id_name(t->id));
        if (!st) st = floe_field_init(&f[k++], p->group_names[i], t, true, -1);
        floe_type_release(t);
    }
    for (int32_t i = 0; i < p->n_calls && !st; i++) {
        const floe_agg_call *c = &p->calls[i];
        if (c->arg) {
            st = floe_status_wrap(floe_expr_type(c->arg, in, &p->arg_types[i]), "aggregate '%s'", c->name);
            if (!st && floe_type_is_nested(p->arg_types[i]) && c->fn != FLOE_AGG_COUNT)
                st = floe_error(FLOE_ERR_TYPE, "aggregate '%s': %s over %s is not supported", c->name,
                                floe_agg_fn_name(c->fn), floe_type_id_name(p->arg_types[i]->id));
            if (!st && c->distinct && floe_type_is_nested(p->arg_types[i]))
                st = floe_error(FLOE_ERR_UNSUPPORTED, "aggregate '%s': DISTINCT over %s", c->name,
                                floe_type_id_name(p->arg_types[i]->id));
        }
        acc a = {0};
        if (!st) st = floe_status_wrap(acc_setup(&a, c, p->arg_types[i]), "aggregate '%s'", c->name);
        if (!st && p->mode == FLOE_AGG_MODE_PARTIAL) {
            if (acc_state_cols(&a) == 2) {
                char *n1 = floe_malloc(strlen(c->name) + 8), *n2 = floe_malloc(strlen(c->name) + 8);
                if (!n1 || !n2) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate schema");
                if (!st) {
                    sprintf(n1, "%s.sum", c->name);
                    sprintf(n2, "%s.count", c->name);
                    st = floe_field_init(&f[k++], n1, a.state_type, true, -1);
                }
                if (!st) st = floe_field_init(&f[k++], n2, floe_type_primitive(FLOE_TYPE_INT64), false, -1);
                floe_free(n1);
                floe_free(n2);
            } else {
                bool nullable = !(a.kind == ACC_COUNT || a.kind == ACC_COUNT_STAR);
                st = floe_field_init(&f[k++], c->name, a.state_type, nullable, -1);
            }
        } else if (!st) {
            bool nullable = !(a.kind == ACC_COUNT || a.kind == ACC_COUNT_STAR);
            st = floe_field_init(&f[k++], c->name, a.out_type, nullable, -1);
        }
        floe_type_release(a.out_type);
        floe_type_release(a.state_type);
    }
    if (!st) st = floe_type_struct(f, k, out);
    for (int32_t i = 0; i < k; i++) floe_field_clear(&f[i]);
    floe_free(f);
    return st;
}

/* FINAL: the child must carry the PARTIAL layout built from input_schema. */
static floe_status check_final_input(agg_plan *p, const floe_schema *child) {
    agg_plan tmp = *p;
    tmp.mode = FLOE_AGG_MODE_PARTIAL;
    floe_type **types = floe_calloc((size_t)(p->n_calls ? p->n_calls : 1), sizeof *types);
    if (!types) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate");
    tmp.arg_types = types;
    floe_schema *want = NULL;
    floe_status st = build_schema(&tmp, p->input_schema, &want);
    for (int32_t i = 0; i < p->n_calls; i++) floe_type_release(types[i]);
    floe_free(types);
    if (st) return st;
    bool ok = floe_schema_num_fields(want) == floe_schema_num_fields(child);
    for (int32_t i = 0; ok && i < floe_schema_num_fields(want); i++)
        ok = floe_type_compatible(want->children[i].type, child->children[i].type);
    if (!ok) {
        floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
        floe_status_free(floe_type_to_string(want, &a));
        floe_status_free(floe_type_to_string(child, &b));
        st = floe_error(FLOE_ERR_TYPE, "HashAggregate FINAL: the child gives %s, the partial state is %s",
                        floe_buf_cstr(&b), floe_buf_cstr(&a));
        floe_buf_free(&a);
        floe_buf_free(&b);
    }
    floe_type_release(want);
    return st;
}

floe_status floe_plan_hash_aggregate(floe_plan *child, floe_agg_mode mode, floe_expr *const *group_exprs,
                                     const char *const *group_names, int32_t n_groups, const floe_agg_call *calls,
                                     int32_t n_calls, const floe_schema *input_schema, floe_plan **out) {
    *out = NULL;
    if (mode < FLOE_AGG_MODE_SINGLE || mode > FLOE_AGG_MODE_FINAL || n_groups < 0 || n_calls < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashAggregate: mode %d, %d groups, %d aggregates", (int)mode,
                          n_groups, n_calls);
    if (mode == FLOE_AGG_MODE_FINAL && !input_schema)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashAggregate FINAL needs the partial node's input schema");
    if (mode != FLOE_AGG_MODE_PARTIAL && n_groups == 0 && child->n_partitions != 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "HashAggregate %s without group keys needs one input partition, not %d", mode_name(mode),
                          child->n_partitions);
    for (int32_t i = 0; i < n_groups; i++)
        if (!group_exprs[i] || !group_names[i])
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashAggregate: group key %d has no expression or name", i);
    for (int32_t i = 0; i < n_calls; i++) {
        const floe_agg_call *c = &calls[i];
        if (!c->name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashAggregate: aggregate %d has no name", i);
        if ((int)c->fn < 0 || c->fn >= FLOE_AGG_FN_COUNT_)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "aggregate '%s': unknown function %d", c->name, (int)c->fn);
        if ((c->fn == FLOE_AGG_COUNT_STAR) != (c->arg == NULL))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "aggregate '%s': %s", c->name,
                              c->arg ? "count(*) takes no argument" : "missing argument");
        if (c->distinct && (mode != FLOE_AGG_MODE_SINGLE || c->fn == FLOE_AGG_COUNT_STAR))
            return floe_error(FLOE_ERR_UNSUPPORTED, "aggregate '%s': DISTINCT only in SINGLE mode and with an argument",
                              c->name);
    }
    agg_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a HashAggregate node");
    p->head.vt = &floe_hash_aggregate_vt; /* releasable before init */
    atomic_init(&p->head.refcount_, 1);
    p->mode = mode;
    floe_status st = NULL;
    size_t ng = (size_t)(n_groups ? n_groups : 1), nc = (size_t)(n_calls ? n_calls : 1);
    p->groups = floe_calloc(ng, sizeof *p->groups);
    p->group_names = floe_calloc(ng, sizeof *p->group_names);
    p->key_cols = floe_calloc(ng, sizeof *p->key_cols);
    p->calls = floe_calloc(nc, sizeof *p->calls);
    p->arg_types = floe_calloc(nc, sizeof *p->arg_types);
    if (!p->groups || !p->group_names || !p->key_cols || !p->calls || !p->arg_types)
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a HashAggregate node");
    for (int32_t i = 0; i < n_groups && !st; i++) {
        p->groups[i] = floe_expr_retain(group_exprs[i]);
        p->group_names[i] = floe_strdup(group_names[i]);
        p->n_groups = i + 1;
        st = floe_expr_column(i, &p->key_cols[i]);
        if (!st && !p->group_names[i]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a HashAggregate node");
    }
    for (int32_t i = 0; i < n_calls && !st; i++) {
        p->calls[i] = calls[i];
        p->calls[i].arg = floe_expr_retain(calls[i].arg);
        p->calls[i].name = floe_strdup(calls[i].name);
        p->n_calls = i + 1;
        if (!p->calls[i].name) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a HashAggregate node");
    }
    if (!st && mode == FLOE_AGG_MODE_FINAL) p->input_schema = floe_type_retain((floe_type *)input_schema);
    floe_schema *schema = NULL;
    const floe_schema *in = mode == FLOE_AGG_MODE_FINAL ? input_schema : child->schema;
    if (!st) st = build_schema(p, in, &schema);
    if (!st && mode == FLOE_AGG_MODE_FINAL) st = check_final_input(p, child->schema);
    if (!st && mode != FLOE_AGG_MODE_FINAL) {
        /* keys then arguments, as eval_inputs reads them */
        floe_expr **all = floe_calloc((size_t)(n_groups + n_calls + 1), sizeof *all);
        if (!all) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a HashAggregate node");
        for (int32_t i = 0; all && i < n_groups; i++) all[i] = p->groups[i];
        for (int32_t i = 0; all && i < n_calls; i++) all[n_groups + i] = p->calls[i].arg;
        if (!st) st = floe_cse_build(all, n_groups + n_calls, in, &p->cse);
        floe_free(all);
    }
    if (!st) st = floe_exec_plan_init(&p->head, &floe_hash_aggregate_vt, schema, child->n_partitions, &child, 1);
    floe_type_release(schema);
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

floe_agg_mode floe_hash_aggregate_mode(const floe_plan *p) { return ((const agg_plan *)p)->mode; }
int32_t floe_hash_aggregate_num_groups(const floe_plan *p) { return ((const agg_plan *)p)->n_groups; }
const floe_expr *floe_hash_aggregate_group(const floe_plan *p, int32_t i) { return ((const agg_plan *)p)->groups[i]; }
const char *floe_hash_aggregate_group_name(const floe_plan *p, int32_t i) {
    return ((const agg_plan *)p)->group_names[i];
}
int32_t floe_hash_aggregate_num_calls(const floe_plan *p) { return ((const agg_plan *)p)->n_calls; }
const floe_agg_call *floe_hash_aggregate_call(const floe_plan *p, int32_t i) { return &((const agg_plan *)p)->calls[i]; }
const floe_schema *floe_hash_aggregate_input_schema(const floe_plan *p) { return ((const agg_plan *)p)->input_schema; }

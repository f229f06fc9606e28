/*
 * sort_keys.c — comparing and sorting key rows for Sort, top-N and
 * SortPreservingMerge (see sort_keys.h for the order).
 *
 * A full sort works in two steps.  Rows are first ordered by a 64-bit
 * order-preserving prefix of the first key (the whole value for integers,
 * temporals, bools, floats and decimals whose values all fit in 64 bits;
 * the leading bytes of strings, binary and wider decimals) with an LSD radix sort, which is stable and skips byte
 * positions where all prefixes agree.  Runs of equal prefixes are then
 * finished with a stable merge sort comparing the remaining keys (or the
 * whole first key when its prefix is only a prefix).  NULLs of the first
 * key are split off beforehand and placed at the front or the back.
 */
#include "floe/interval.h"
#include "exec/sort/sort_keys.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------ checking */

/* Scalars, and lists and structs of orderable values (PostgreSQL's array
 * and record order: see compare_nested); maps and variants have none. */
static bool orderable(const floe_type *t) {
    if (t->id == FLOE_TYPE_LIST) return orderable(t->children[0].type);
    if (t->id == FLOE_TYPE_STRUCT) {
        for (int32_t c = 0; c < t->n_children; c++)
            if (!orderable(t->children[c].type)) return false;
        return true;
    }
    return !floe_type_is_nested(t);
}

bool floe_sk_type_orderable(const floe_type *t) { return orderable(t); }

floe_status floe_sk_check(const char *node, const floe_sort_key *keys, int32_t n, const floe_schema *schema) {
    if (n < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s needs at least one sort key", node);
    for (int32_t i = 0; i < n; i++) {
        floe_type *t;
        if (!keys[i].expr) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: sort key %d has no expression", node, i);
        FLOE_TRY_CTX(floe_expr_type(keys[i].expr, schema, &t), "%s sort key %d", node, i);
        bool ok = orderable(t);
        floe_type_id id = t->id;
        floe_type_release(t);
        if (!ok)
            return floe_error(FLOE_ERR_TYPE, "%s: sort key %d has type %s, which has no order", node, i,
                              floe_type_id_name(id));
    }
    return NULL;
}

/* ---------------------------------------------------------- evaluation */

void floe_sk_release(floe_array **arrays, int32_t n) {
    for (int32_t i = 0; i < n; i++) {
        floe_array_release(arrays[i]);
        arrays[i] = NULL;
    }
}

floe_status floe_sk_eval(const floe_sort_key *keys, int32_t n, const floe_batch *b, floe_array **out) {
    for (int32_t i = 0; i < n; i++) out[i] = NULL;
    for (int32_t i = 0; i < n; i++) {
        floe_status st = floe_expr_eval(keys[i].expr, b, &out[i]);
        if (st) {
            floe_sk_release(out, i);
            return floe_status_wrap_op(st, "sort key %d", i);
        }
    }
    return NULL;
}

/* ---------------------------------------------------------- comparison */

static inline int cmp_f64(double x, double y) {
    if (x < y) return -1;
    if (x > y) return 1;
    if (x == y) return 0;
    /* At least one NaN: NaN sorts after every number, NaNs tie. */
    return isnan(x) ? (isnan(y) ? 0 : 1) : -1;
}

static inline int cmp_bytes(const void *x, int32_t lx, const void *y, int32_t ly) {
    int32_t m = lx < ly ? lx : ly;
    int c = m ? memcmp(x, y, (size_t)m) : 0;
    if (c) return c < 0 ? -1 : 1;
    return lx < ly ? -1 : lx > ly;
}

#define CMP3(x, y) ((x) < (y) ? -1 : (x) > (y))

static int compare_values(const floe_array *a, int64_t i, const floe_array *b, int64_t j);

/* Slot x of child array a against slot y of b, NULL equal to NULL and
 * above every value (PostgreSQL's array elements and record fields). */
static int compare_slots(const floe_array *a, int64_t x, const floe_array *b, int64_t y) {
    bool na = floe_array_is_null(a, x), nb = floe_array_is_null(b, y);
    if (na || nb) return na && nb ? 0 : na ? 1 : -1;
    return compare_values(a, x, b, y);
}

/* Lists element by element, then the shorter first (array_cmp); structs
 * field by field (record_cmp). */
static int compare_nested(const floe_array *a, int64_t i, const floe_array *b, int64_t j) {
    if (a->type->id == FLOE_TYPE_STRUCT) {
        for (int32_t c = 0; c < a->n_children && c < b->n_children; c++) {
            int r = compare_slots(a->children[c], a->offset + i, b->children[c], b->offset + j);
            if (r) return r;
        }
        return 0;
    }
    int64_t ab, ae, bb, be;
    floe_array_get_range(a, i, &ab, &ae);
    floe_array_get_range(b, j, &bb, &be);
    for (int64_t k = 0; ab + k < ae && bb + k < be; k++) {
        int r = compare_slots(a->children[0], ab + k, b->children[0], bb + k);
        if (r) return r;
    }
    int64_t la = ae - ab, lb = be - bb;
    return la < lb ? -1 : la > lb;
}

/* Both values non-null; same type. */
static int compare_values(const floe_array *a, int64_t i, const floe_array *b, int64_t j) {
    switch (a->type->id) {
    case FLOE_TYPE_STRUCT:
    case FLOE_TYPE_LIST: return compare_nested(a, i, b, j);
    case FLOE_TYPE_NULL: return 0;
    case FLOE_TYPE_BOOL: return CMP3((int)floe_array_get_bool(a, i), (int)floe_array_get_bool(b, j));
    case FLOE_TYPE_INT32:
    case FLOE_TYPE_DATE32: return CMP3(floe_array_get_int32(a, i), floe_array_get_int32(b, j));
    case FLOE_TYPE_INT64:
    case FLOE_TYPE_TIME64_US:
    case FLOE_TYPE_TIMESTAMP_US:
    case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS:
    case FLOE_TYPE_TIMESTAMP_NS_TZ: return CMP3(floe_array_get_int64(a, i), floe_array_get_int64(b, j));
    case FLOE_TYPE_FLOAT32: return cmp_f64(floe_array_get_float(a, i), floe_array_get_float(b, j));
    case FLOE_TYPE_FLOAT64: return cmp_f64(floe_array_get_double(a, i), floe_array_get_double(b, j));
    case FLOE_TYPE_DECIMAL128: {
        floe_decimal128 x = floe_array_get_decimal(a, i), y = floe_array_get_decimal(b, j);
        if (x.hi != y.hi) return x.hi < y.hi ? -1 : 1;
        return CMP3(x.lo, y.lo);
    }
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY: {
        floe_strview x = floe_array_get_str(a, i), y = floe_array_get_str(b, j);
        return cmp_bytes(x.data, x.len, y.data, y.len);
    }
    case FLOE_TYPE_INTERVAL: {
        floe_interval x, y;
        memcpy(&x, floe_array_get_fixed(a, i), sizeof x);
        memcpy(&y, floe_array_get_fixed(b, j), sizeof y);
        return floe_interval_cmp(x, y);
    }
    default: {
        int32_t w = a->type->byte_width;
        if (w <= 0) return 0;
        return cmp_bytes(floe_array_get_fixed(a, i), w, floe_array_get_fixed(b, j), w);
    }
    }
}

int floe_sk_compare_one(const floe_sort_key *key, const floe_array *a, int64_t i, const floe_array *b,
                        int64_t j) {
    bool an = floe_array_is_null(a, i), bn = floe_array_is_null(b, j);
    if (an || bn) {
        if (an && bn) return 0;
        return an ? (key->nulls_first ? -1 : 1) : (key->nulls_first ? 1 : -1);
    }
    int c = compare_values(a, i, b, j);
    return key->descending ? -c : c;
}

int floe_sk_compare(const floe_sort_key *keys, int32_t n, floe_array *const *a, int64_t i, floe_array *const *b,
                    int64_t j) {
    for (int32_t k = 0; k < n; k++) {
        int c = floe_sk_compare_one(&keys[k], a[k], i, b[k], j);
        if (c) return c;
    }
    return 0;
}

/* ----------------------------------------------------- stable merge sort */

static void insertion_sort(uint32_t *v, int64_t n, floe_sk_cmp_fn cmp, void *ctx) {
    for (int64_t i = 1; i < n; i++) {
        uint32_t x = v[i];
        int64_t j = i;
        while (j > 0 && cmp(ctx, v[j - 1], x) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* Sort v[0..n) using tmp[0..n) as scratch. */
static void merge_sort(uint32_t *v, uint32_t *tmp, int64_t n, floe_sk_cmp_fn cmp, void *ctx) {
    if (n <= 16) {
        insertion_sort(v, n, cmp, ctx);
        return;
    }
    int64_t h = n / 2;
    merge_sort(v, tmp, h, cmp, ctx);
    merge_sort(v + h, tmp + h, n - h, cmp, ctx);
    if (cmp(ctx, v[h - 1], v[h]) <= 0) return; /* already in order */
    memcpy(tmp, v, (size_t)n * sizeof *v);
    int64_t a = 0, b = h, o = 0;
    while (a < h && b < n) v[o++] = cmp(ctx, tmp[b], tmp[a]) < 0 ? tmp[b++] : tmp[a++];
    while (a < h) v[o++] = tmp[a++];
    while (b < n) v[o++] = tmp[b++];
}

floe_status floe_sk_stable_sort(uint32_t *idx, int64_t n, floe_sk_cmp_fn cmp, void *ctx) {
    if (n <= 16) {
        insertion_sort(idx, n, cmp, ctx);
        return NULL;
    }
    uint32_t *tmp = floe_malloc_array((size_t)n, sizeof *tmp);
    if (!tmp) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "sorting %lld rows", (long long)n);
    merge_sort(idx, tmp, n, cmp, ctx);
    floe_free(tmp);
    return NULL;
}

/* ------------------------------------------------------------ row sort */

typedef struct row_cmp_ctx {
    const floe_sort_key *keys;
    int32_t n_keys;
    int32_t first; /* first key to compare */
    floe_array *const *arrays;
} row_cmp_ctx;

static int row_cmp(void *ctx_, uint32_t x, uint32_t y) {
    const row_cmp_ctx *c = ctx_;
    for (int32_t k = c->first; k < c->n_keys; k++) {
        int r = floe_sk_compare_one(&c->keys[k], c->arrays[k], x, c->arrays[k], y);
        if (r) return r;
    }
    return 0;
}

typedef struct prefix_entry {
    uint64_t key;
    uint32_t idx;
} prefix_entry;

static inline uint64_t be_prefix(const uint8_t *p, int32_t len) {
    if (len >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return __builtin_bswap64(v);
    }
    uint64_t v = 0;
    for (int32_t k = 0; k < 8; k++) v = (v << 8) | (k < len ? p[k] : 0);
    return v;
}

static inline uint64_t double_prefix(double d) {
    uint64_t bits;
    if (d == 0) d = 0.0;
    if (isnan(d)) bits = UINT64_C(0x7ff8000000000000);
    else memcpy(&bits, &d, 8);
    return (bits >> 63) ? ~bits : bits | (UINT64_C(1) << 63);
}

/* The order-preserving (ascending) prefix of non-null value i: a < b
 * implies prefix(a) <= prefix(b); prefix_is_exact says when equal
 * prefixes also mean equal values.  Strings and binary start at byte
 * `skip`, a prefix every value shares; for decimals `skip` 1 says every
 * value fits in 64 bits (decimal64_fits), so the low word is the value. */
static inline uint64_t value_prefix(const floe_array *a, int64_t i, int32_t skip) {
    const uint64_t sign = UINT64_C(1) << 63;
    switch (a->type->id) {
    case FLOE_TYPE_BOOL: return floe_array_get_bool(a, i);
    case FLOE_TYPE_INT32:
    case FLOE_TYPE_DATE32: return (uint64_t)(int64_t)floe_array_get_int32(a, i) ^ sign;
    case FLOE_TYPE_INT64:
    case FLOE_TYPE_TIME64_US:
    case FLOE_TYPE_TIMESTAMP_US:
    case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS:
    case FLOE_TYPE_TIMESTAMP_NS_TZ: return (uint64_t)floe_array_get_int64(a, i) ^ sign;
    case FLOE_TYPE_FLOAT32: return double_prefix(floe_array_get_float(a, i));
    case FLOE_TYPE_FLOAT64: return double_prefix(floe_array_get_double(a, i));
    case FLOE_TYPE_DECIMAL128: { /* skip 1: every value of the column fits in 64 bits */
        floe_decimal128 d = floe_array_get_decimal(a, i);
        return (skip ? d.lo : (uint64_t)d.hi) ^ sign;
    }
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY: {
        floe_strview v = floe_array_get_str(a, i);
        return be_prefix((const uint8_t *)v.data + skip, v.len - skip);
    }
    case FLOE_TYPE_INTERVAL: { /* the total, scaled down to fit 64 bits */
        floe_interval v;
        memcpy(&v, floe_array_get_fixed(a, i), sizeof v);
        __int128 t = floe_interval_total(v) >> 16;
        int64_t c = t > INT64_MAX ? INT64_MAX : t < INT64_MIN ? INT64_MIN : (int64_t)t;
        return (uint64_t)c ^ sign;
    }
    default:
        if (a->type->byte_width > 0) return be_prefix(floe_array_get_fixed(a, i), a->type->byte_width);
        return 0;
    }
}

static bool prefix_is_exact(const floe_type *t) {
    switch (t->id) {
    case FLOE_TYPE_BOOL: case FLOE_TYPE_INT32: case FLOE_TYPE_DATE32: case FLOE_TYPE_INT64:
    case FLOE_TYPE_TIME64_US: case FLOE_TYPE_TIMESTAMP_US: case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS: case FLOE_TYPE_TIMESTAMP_NS_TZ: case FLOE_TYPE_FLOAT32:
    case FLOE_TYPE_FLOAT64: return true;
    default: return false;
    }
}

/* Does every non-null value of decimal array `a` fit in a signed 64-bit
 * integer (its high word the sign of its low word)?  Then the low word is
 * an exact prefix: the usual case of decimal(p <= 18) columns, checked on
 * the values rather than trusted from the precision. */
static bool decimal64_fits(const floe_array *a) {
    if (a->type->id != FLOE_TYPE_DECIMAL128) return false;
    for (int64_t i = 0; i < a->length; i++) {
        if (floe_array_is_null(a, i)) continue;
        floe_decimal128 d = floe_array_get_decimal(a, i);
        if (d.hi != ((int64_t)d.lo < 0 ? -1 : 0)) return false;
    }
    return true;
}

/* Bytes every non-null string/binary value of `a` starts with (so the
 * prefix can look past them: keys like 'key000123' would otherwise all
 * share one prefix). */
static int32_t common_prefix(const floe_array *a) {
    if (!floe_type_is_binary_like(a->type)) return 0;
    int64_t n = a->length, first = -1;
    int32_t lcp = 0;
    for (int64_t i = 0; i < n; i++) {
        if (floe_array_is_null(a, i)) continue;
        floe_strview v = floe_array_get_str(a, i);
        if (first < 0) {
            first = i;
            lcp = v.len;
            continue;
        }
        floe_strview f = floe_array_get_str(a, first);
        int32_t k = 0;
        while (k < lcp && k < v.len && f.data[k] == v.data[k]) k++;
        lcp = k;
        if (lcp == 0) break;
    }
    return lcp;
}

/* Stable LSD radix sort of e[0..n) by key, 8 bits at a time.  One pass
 * counts all eight digits; digits where every key agrees are skipped. */
static floe_status radix_sort(prefix_entry *e, prefix_entry *tmp, int64_t n) {
    int64_t(*count)[256] = floe_calloc(8, sizeof *count);
    if (!count) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "sorting %lld rows", (long long)n);
    for (int64_t i = 0; i < n; i++) {
        uint64_t k = e[i].key;
        for (int d = 0; d < 8; d++) count[d][(k >> (8 * d)) & 0xff]++;
    }
    prefix_entry *src = e, *dst = tmp;
    for (int d = 0; d < 8; d++) {
        int64_t *c = count[d];
        if (n == 0 || c[(src[0].key >> (8 * d)) & 0xff] == n) continue; /* one value only */
        int64_t sum = 0;
        for (int b = 0; b < 256; b++) {
            int64_t x = c[b];
            c[b] = sum;
            sum += x;
        }
        int shift = 8 * d;
        for (int64_t i = 0; i < n; i++) dst[c[(src[i].key >> shift) & 0xff]++] = src[i];
        prefix_entry *t = src;
        src = dst;
        dst = t;
    }
    if (src != e) memcpy(e, src, (size_t)n * sizeof *e);
    floe_free(count);
    return NULL;
}

/* Fill e[] with the prefixes of the non-null rows (in input order) and
 * null_rows[] with the rows whose first key is NULL. */
static void collect_prefixes(const floe_array *k0, bool desc, int64_t n, prefix_entry *e, int64_t *nn_out,
                             uint32_t *null_rows, int64_t *nulls_out, bool *exact) {
    *exact = prefix_is_exact(k0->type);
    int64_t nn = 0, nulls = 0;
    uint64_t flip = desc ? ~UINT64_C(0) : 0;
    const uint64_t sign = UINT64_C(1) << 63;
    bool has_nulls = k0->type->id == FLOE_TYPE_NULL || floe_array_null_count(k0) > 0;
    if (!has_nulls && (k0->type->id == FLOE_TYPE_INT64 || k0->type->id == FLOE_TYPE_TIMESTAMP_US ||
                       k0->type->id == FLOE_TYPE_TIMESTAMP_US_TZ || k0->type->id == FLOE_TYPE_TIMESTAMP_NS ||
                       k0->type->id == FLOE_TYPE_TIMESTAMP_NS_TZ || k0->type->id == FLOE_TYPE_TIME64_US)) {
        const int64_t *v = floe_array_values(k0);
        for (int64_t i = 0; i < n; i++) {
            e[i].key = ((uint64_t)v[i] ^ sign) ^ flip;
            e[i].idx = (uint32_t)i;
        }
        nn = n;
    } else if (!has_nulls && (k0->type->id == FLOE_TYPE_INT32 || k0->type->id == FLOE_TYPE_DATE32)) {
        const int32_t *v = floe_array_values(k0);
        for (int64_t i = 0; i < n; i++) {
            e[i].key = ((uint64_t)(int64_t)v[i] ^ sign) ^ flip;
            e[i].idx = (uint32_t)i;
        }
        nn = n;
    } else {
        int32_t skip = common_prefix(k0);
        if (decimal64_fits(k0)) {
            skip = 1;
            *exact = true;
        }
        for (int64_t i = 0; i < n; i++) {
            if (has_nulls && floe_array_is_null(k0, i)) {
                null_rows[nulls++] = (uint32_t)i;
                continue;
            }
            e[nn].key = value_prefix(k0, i, skip) ^ flip;
            e[nn].idx = (uint32_t)i;
            nn++;
        }
    }
    *nn_out = nn;
    *nulls_out = nulls;
}

floe_status floe_sk_sort_rows(const floe_sort_key *keys, int32_t n_keys, floe_array *const *key_arrays, int64_t n,
                              uint32_t **order) {
    *order = NULL;
    if (n > (int64_t)UINT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "sorting %lld rows in one partition (at most %u)", (long long)n,
                          UINT32_MAX);
    uint32_t *out = floe_malloc_array((size_t)(n ? n : 1), sizeof *out);
    prefix_entry *e = floe_malloc_array((size_t)(n ? n : 1), sizeof *e);
    prefix_entry *tmp = floe_malloc_array((size_t)(n ? n : 1), sizeof *tmp);
    floe_status st = NULL;
    if (!out || !e || !tmp) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "sorting %lld rows", (long long)n);
        goto done;
    }
    const floe_array *k0 = key_arrays[0];
    const floe_sort_key *key0 = &keys[0];
    /* The first key's NULLs are split off (kept in input order in tmp,
     * which is at least as large). */
    int64_t nn = 0, nulls = 0;
    uint32_t *null_rows = (uint32_t *)tmp;
    bool exact = false;
    collect_prefixes(k0, key0->descending, n, e, &nn, null_rows, &nulls, &exact);
    /* Lay out: NULL rows at the front or back, non-NULL rows in between. */
    int64_t null_at = key0->nulls_first ? 0 : nn, val_at = key0->nulls_first ? nulls : 0;
    memmove(out + null_at, null_rows, (size_t)nulls * sizeof *out);
    if ((st = radix_sort(e, tmp, nn))) goto done;
    for (int64_t i = 0; i < nn; i++) out[val_at + i] = e[i].idx;

    row_cmp_ctx c = {keys, n_keys, exact ? 1 : 0, key_arrays};
    if (c.first < n_keys) {
        for (int64_t i = 0; i < nn && !st;) {
            int64_t j = i + 1;
            while (j < nn && e[j].key == e[i].key) j++;
            if (j - i > 1) st = floe_sk_stable_sort(out + val_at + i, j - i, row_cmp, &c);
            i = j;
        }
    }
    if (!st && n_keys > 1 && nulls > 1) {
        row_cmp_ctx cn = {keys, n_keys, 1, key_arrays};
        st = floe_sk_stable_sort(out + null_at, nulls, row_cmp, &cn);
    }
done:
    floe_free(e);
    floe_free(tmp);
    if (st) {
        floe_free(out);
        return st;
    }
    *order = out;
    return NULL;
}

/* ---------------------------------------------------------- codec, text */

floe_status floe_sk_encode(floe_buf *out, const floe_sort_key *keys, int32_t n) {
    FLOE_TRY(floe_codec_put_i64(out, n));
    for (int32_t i = 0; i < n; i++) {
        FLOE_TRY(floe_codec_put_expr(out, keys[i].expr));
        FLOE_TRY(floe_codec_put_i64(out, (keys[i].descending ? 1 : 0) | (keys[i].nulls_first ? 2 : 0)));
    }
    return NULL;
}

void floe_sk_free_keys(floe_sort_key *keys, int32_t n) {
    if (!keys) return;
    for (int32_t i = 0; i < n; i++) floe_expr_release(keys[i].expr);
    floe_free(keys);
}

floe_status floe_sk_decode(floe_reader *r, floe_sort_key **keys, int32_t *n) {
    int64_t cnt;
    size_t at = r->pos;
    *keys = NULL;
    *n = 0;
    FLOE_TRY(floe_codec_get_i64(r, &cnt));
    if (cnt < 0 || cnt > (int64_t)(r->len - r->pos) || cnt > INT32_MAX)
        return floe_error(FLOE_ERR_CORRUPT, "plan offset %zu: sort key count %lld is impossible", at, (long long)cnt);
    floe_sort_key *k = floe_calloc((size_t)(cnt ? cnt : 1), sizeof *k);
    if (!k) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding sort keys");
    floe_status st = NULL;
    int64_t got = 0;
    for (; got < cnt && !st; got++) {
        int64_t flags = 0;
        st = floe_codec_get_expr(r, &k[got].expr);
        if (!st) st = floe_codec_get_i64(r, &flags);
        if (!st && (flags & ~INT64_C(3)))
            st = floe_error(FLOE_ERR_CORRUPT, "plan offset %zu: sort key flags %lld", r->pos - 8, (long long)flags);
        k[got].descending = flags & 1;
        k[got].nulls_first = (flags & 2) != 0;
    }
    if (st) {
        floe_sk_free_keys(k, (int32_t)got);
        return st;
    }
    *keys = k;
    *n = (int32_t)cnt;
    return NULL;
}

floe_status floe_sk_copy_keys(const floe_sort_key *keys, int32_t n, floe_sort_key **out) {
    floe_sort_key *k = floe_calloc((size_t)(n > 0 ? n : 1), sizeof *k);
    if (!k) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "copying sort keys");
    for (int32_t i = 0; i < n; i++) {
        k[i] = keys[i];
        k[i].expr = floe_expr_retain(keys[i].expr);
    }
    *out = k;
    return NULL;
}

floe_status floe_sk_explain(floe_buf *out, const floe_sort_key *keys, int32_t n, int64_t fetch) {
    FLOE_TRY(floe_buf_append_str(out, "keys=["));
    for (int32_t i = 0; i < n; i++) {
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_expr_to_string(keys[i].expr, out));
        FLOE_TRY(floe_buf_printf(out, " %s NULLS %s", keys[i].descending ? "DESC" : "ASC",
                                 keys[i].nulls_first ? "FIRST" : "LAST"));
    }
    FLOE_TRY(floe_buf_append_str(out, "]"));
    if (fetch >= 0) FLOE_TRY(floe_buf_printf(out, ", fetch=%lld", (long long)fetch));
    return NULL;
}

/*
 * page_filter.c — row ranges of a row group that may match simple
 * predicates, from the page index (see page_filter.h).
 *
 * Each page of a predicate column is judged on its own (the boundary order
 * is only a hint for binary search, which we do not need: a ColumnIndex has
 * one entry per page, and pages are few), so an index whose boundary_order
 * lies cannot make us drop rows.
 */
#include <math.h>
#include <string.h>

#include "floe/memory.h"
#include "formats/parquet/page_filter.h"

static floe_status oom(void) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory filtering Parquet pages");
}

/* ------------------------------------------------------------------ ranges */

void pq_ranges_init(pq_ranges *r) {
    memset(r, 0, sizeof *r);
}

void pq_ranges_free(pq_ranges *r) {
    floe_free(r->lo);
    floe_free(r->hi);
    pq_ranges_init(r);
}

floe_status pq_ranges_add(pq_ranges *r, int64_t lo, int64_t hi) {
    if (hi <= lo) return NULL;
    if (r->n && lo <= r->hi[r->n - 1]) {
        if (hi > r->hi[r->n - 1]) r->hi[r->n - 1] = hi;
        return NULL;
    }
    if (r->n == r->cap) {
        int cap = r->cap ? r->cap * 2 : 8;
        int64_t *nl = floe_realloc(r->lo, (size_t)cap * sizeof *nl);
        if (!nl) return oom();
        r->lo = nl;
        int64_t *nh = floe_realloc(r->hi, (size_t)cap * sizeof *nh);
        if (!nh) return oom();
        r->hi = nh;
        r->cap = cap;
    }
    r->lo[r->n] = lo;
    r->hi[r->n] = hi;
    r->n++;
    return NULL;
}

floe_status pq_ranges_intersect(pq_ranges *a, const pq_ranges *b) {
    pq_ranges out;
    pq_ranges_init(&out);
    int i = 0, j = 0;
    while (i < a->n && j < b->n) {
        int64_t lo = a->lo[i] > b->lo[j] ? a->lo[i] : b->lo[j];
        int64_t hi = a->hi[i] < b->hi[j] ? a->hi[i] : b->hi[j];
        if (lo < hi) {
            floe_status st = pq_ranges_add(&out, lo, hi);
            if (st) {
                pq_ranges_free(&out);
                return st;
            }
        }
        if (a->hi[i] < b->hi[j]) i++;
        else j++;
    }
    pq_ranges_free(a);
    *a = out;
    return NULL;
}

int64_t pq_ranges_rows(const pq_ranges *r) {
    int64_t n = 0;
    for (int i = 0; i < r->n; i++) n += r->hi[i] - r->lo[i];
    return n;
}

/* ------------------------------------------------------------------ values */

static int32_t le32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return (int32_t)v;
}

static int64_t le64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return (int64_t)v;
}

/* Big-endian two's complement of 1..16 bytes (decimal FIXED/BYTE_ARRAY). */
static bool be_int128(const uint8_t *p, size_t n, __int128 *out) {
    if (n == 0 || n > 16) return false;
    unsigned __int128 v = (p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < n; i++) v = (v << 8) | p[i];
    *out = (__int128)v;
    return true;
}

bool pq_stat_value(const floe_pq_column *col, const floe_pq_bytes *b, pq_sval *v) {
    memset(v, 0, sizeof *v);
    if (!b->set) return false;
    const uint8_t *p = b->data;
    size_t n = b->len;
    bool i32 = col->physical == FLOE_PQ_INT32 && n == 4;
    bool i64 = col->physical == FLOE_PQ_INT64 && n == 8;
    switch (col->kind) {
    case FLOE_PQ_KIND_BOOL:
        if (col->physical != FLOE_PQ_BOOLEAN || n < 1) return false;
        v->k = PQ_DOM_INT;
        v->i = p[0] & 1;
        return true;
    case FLOE_PQ_KIND_INT8: case FLOE_PQ_KIND_INT16: case FLOE_PQ_KIND_INT32:
    case FLOE_PQ_KIND_DATE:
        if (!i32) return false;
        v->k = PQ_DOM_INT;
        v->i = le32(p);
        return true;
    case FLOE_PQ_KIND_UINT8: case FLOE_PQ_KIND_UINT16: case FLOE_PQ_KIND_UINT32:
        if (!i32) return false;
        v->k = PQ_DOM_INT;
        v->i = (int64_t)(uint32_t)le32(p);
        return true;
    case FLOE_PQ_KIND_INT64: case FLOE_PQ_KIND_TIME_US: case FLOE_PQ_KIND_TIMESTAMP_US:
    case FLOE_PQ_KIND_TIMESTAMP_NS:
        if (!i64) return false; /* INT96 timestamps have no usable order */
        v->k = PQ_DOM_INT;
        v->i = le64(p);
        return true;
    case FLOE_PQ_KIND_UINT64:
        if (!i64) return false;
        v->k = PQ_DOM_DEC;
        v->q = (__int128)(uint64_t)le64(p);
        return true;
    case FLOE_PQ_KIND_TIME_MS:
        if (!i32) return false;
        v->k = PQ_DOM_INT;
        v->i = (int64_t)le32(p) * 1000;
        return true;
    case FLOE_PQ_KIND_TIME_NS:
        /* The reader truncates ns to µs; truncation keeps bounds bounds. */
        if (!i64) return false;
        v->k = PQ_DOM_INT;
        v->i = le64(p) / 1000;
        return true;
    case FLOE_PQ_KIND_TIMESTAMP_MS: {
        if (!i64) return false;
        int64_t x = le64(p);
        if (x > INT64_MAX / 1000 || x < INT64_MIN / 1000) return false;
        v->k = PQ_DOM_INT;
        v->i = x * 1000;
        return true;
    }
    case FLOE_PQ_KIND_FLOAT: {
        if (col->physical != FLOE_PQ_FLOAT || n != 4) return false;
        float f;
        memcpy(&f, p, 4);
        if (isnan(f)) return false;
        v->k = PQ_DOM_DOUBLE;
        v->d = f;
        return true;
    }
    case FLOE_PQ_KIND_DOUBLE: {
        if (col->physical != FLOE_PQ_DOUBLE || n != 8) return false;
        double d;
        memcpy(&d, p, 8);
        if (isnan(d)) return false;
        v->k = PQ_DOM_DOUBLE;
        v->d = d;
        return true;
    }
    case FLOE_PQ_KIND_DECIMAL:
        v->k = PQ_DOM_DEC;
        if (i32) v->q = le32(p);
        else if (i64) v->q = le64(p);
        else if (col->physical == FLOE_PQ_FIXED_LEN_BYTE_ARRAY ||
                 col->physical == FLOE_PQ_BYTE_ARRAY) {
            if (!be_int128(p, n, &v->q)) return false;
        } else return false;
        return true;
    case FLOE_PQ_KIND_STRING: case FLOE_PQ_KIND_BINARY: case FLOE_PQ_KIND_FIXED:
    case FLOE_PQ_KIND_UUID:
        if (col->physical != FLOE_PQ_BYTE_ARRAY && col->physical != FLOE_PQ_FIXED_LEN_BYTE_ARRAY)
            return false;
        v->k = PQ_DOM_BYTES;
        v->p = p;
        v->n = n;
        return true;
    default:
        return false; /* FLOAT16, NULL, groups */
    }
}

/* The domain a column's values compare in; NONE when pages are never
 * judged (the predicate then keeps every page). */
static pq_dom column_domain(const floe_pq_column *col) {
    switch (col->kind) {
    case FLOE_PQ_KIND_FLOAT: case FLOE_PQ_KIND_DOUBLE: case FLOE_PQ_KIND_FLOAT16:
        return PQ_DOM_DOUBLE;
    case FLOE_PQ_KIND_DECIMAL:
        return col->precision <= 38 ? PQ_DOM_DEC : PQ_DOM_NONE; /* wider: read as doubles */
    case FLOE_PQ_KIND_UINT64:
        return PQ_DOM_DEC;
    case FLOE_PQ_KIND_STRING: case FLOE_PQ_KIND_BINARY: case FLOE_PQ_KIND_FIXED:
    case FLOE_PQ_KIND_UUID:
        return PQ_DOM_BYTES;
    case FLOE_PQ_KIND_NULL:
        return PQ_DOM_NONE;
    default:
        return PQ_DOM_INT;
    }
}

static int sval_cmp(const pq_sval *a, const pq_sval *b) {
    switch (a->k) {
    case PQ_DOM_INT: return a->i < b->i ? -1 : a->i > b->i;
    case PQ_DOM_DOUBLE: return a->d < b->d ? -1 : a->d > b->d;
    case PQ_DOM_DEC: return a->q < b->q ? -1 : a->q > b->q;
    case PQ_DOM_BYTES: {
        size_t n = a->n < b->n ? a->n : b->n;
        int c = n ? memcmp(a->p, b->p, n) : 0;
        if (c) return c < 0 ? -1 : 1;
        return a->n < b->n ? -1 : a->n > b->n;
    }
    default: return 0;
    }
}

/* Bring a bound and a literal into one domain (ints compared with doubles
 * become doubles: monotonic, so bounds stay bounds). */
static bool same_domain(pq_sval *a, pq_sval *b) {
    if (a->k == PQ_DOM_INT && b->k == PQ_DOM_DOUBLE) {
        a->k = PQ_DOM_DOUBLE;
        a->d = (double)a->i;
    } else if (b->k == PQ_DOM_INT && a->k == PQ_DOM_DOUBLE) {
        b->k = PQ_DOM_DOUBLE;
        b->d = (double)b->i;
    }
    return a->k != PQ_DOM_NONE && a->k == b->k;
}

floe_status pq_pred_bind(const floe_pq_column *col, const floe_pq_predicate *p, pq_pred *out) {
    memset(out, 0, sizeof *out);
    out->col = col;
    out->op = p->op;
    int want = p->op == FLOE_PQ_OP_IS_NULL || p->op == FLOE_PQ_OP_NOT_NULL ? 0
             : p->op == FLOE_PQ_OP_IN ? -1 : 1;
    if ((int)p->op < FLOE_PQ_OP_EQ || p->op > FLOE_PQ_OP_IN)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "predicate on column '%s': unknown operator %d",
                          col->path, (int)p->op);
    if ((want >= 0 && p->num_values != want) || (want < 0 && p->num_values < 1) ||
        (p->num_values > 0 && !p->values))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "predicate on column '%s': %d values for an operator taking %s",
                          col->path, p->num_values, want < 0 ? "at least 1" : want ? "1" : "none");
    if (p->num_values == 0) return NULL;
    pq_dom dom = column_domain(col);
    size_t nbytes = 0;
    for (int i = 0; i < p->num_values; i++) {
        const floe_pq_value *v = &p->values[i];
        bool ok;
        switch (v->kind) {
        case FLOE_PQ_VAL_INT: ok = dom == PQ_DOM_INT || dom == PQ_DOM_DOUBLE || dom == PQ_DOM_DEC; break;
        case FLOE_PQ_VAL_DOUBLE: ok = dom == PQ_DOM_INT || dom == PQ_DOM_DOUBLE; break;
        case FLOE_PQ_VAL_BYTES: ok = dom == PQ_DOM_BYTES && (v->bytes || !v->len); break;
        case FLOE_PQ_VAL_DECIMAL: ok = dom == PQ_DOM_DEC; break;
        default: ok = false;
        }
        if (dom == PQ_DOM_NONE) ok = true; /* a null-type column: never judged */
        if (!ok)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "predicate on column '%s' (%s): value %d is of a kind that does "
                              "not compare with it",
                              col->path, floe_pq_kind_name(col->kind), i);
        if (v->kind == FLOE_PQ_VAL_BYTES) nbytes += v->len;
    }
    out->vals = floe_calloc((size_t)p->num_values, sizeof *out->vals);
    out->bytes = floe_malloc(nbytes ? nbytes : 1);
    if (!out->vals || !out->bytes) {
        pq_pred_free(out);
        return oom();
    }
    size_t at = 0;
    for (int i = 0; i < p->num_values; i++) {
        const floe_pq_value *v = &p->values[i];
        pq_sval *s = &out->vals[i];
        switch (v->kind) {
        case FLOE_PQ_VAL_INT:
            if (dom == PQ_DOM_DEC) {
                s->k = PQ_DOM_DEC;
                s->q = v->i;
            } else {
                s->k = PQ_DOM_INT;
                s->i = v->i;
            }
            break;
        case FLOE_PQ_VAL_DOUBLE: s->k = PQ_DOM_DOUBLE; s->d = v->d; break;
        case FLOE_PQ_VAL_DECIMAL:
            s->k = PQ_DOM_DEC;
            s->q = (__int128)(((unsigned __int128)(uint64_t)v->hi << 64) | v->lo);
            break;
        case FLOE_PQ_VAL_BYTES:
            s->k = PQ_DOM_BYTES;
            if (v->len) memcpy(out->bytes + at, v->bytes, v->len);
            s->p = out->bytes + at;
            s->n = v->len;
            at += v->len;
            break;
        }
    }
    out->nvals = p->num_values;
    return NULL;
}

void pq_pred_free(pq_pred *p) {
    floe_free(p->vals);
    floe_free(p->bytes);
    p->vals = NULL;
    p->bytes = NULL;
    p->nvals = 0;
}

/* ------------------------------------------------------------------ pages */

static bool is_float_col(const floe_pq_column *col) {
    return col->kind == FLOE_PQ_KIND_FLOAT || col->kind == FLOE_PQ_KIND_DOUBLE ||
           col->kind == FLOE_PQ_KIND_FLOAT16;
}

/* Can `value op lit` be TRUE for a non-null value of the page? */
static bool cmp_may_match(const pq_pred *p, floe_pq_pred_op op, const pq_sval *lit,
                          const floe_pq_column_index *ci, uint32_t i) {
    if (lit->k == PQ_DOM_DOUBLE && isnan(lit->d)) return true;
    pq_sval lo, hi, l = *lit, l2 = *lit;
    if (!pq_stat_value(p->col, &ci->min_values[i], &lo) ||
        !pq_stat_value(p->col, &ci->max_values[i], &hi))
        return true;
    if (!same_domain(&lo, &l) || !same_domain(&hi, &l2)) return true;
    if (sval_cmp(&lo, &hi) > 0) return true; /* nonsense bounds: trust nothing */
    if (is_float_col(p->col) && (op == FLOE_PQ_OP_GT || op == FLOE_PQ_OP_GE)) {
        /* NaN is not in the bounds, and the engine orders it above every
         * number: only prune when the page is known to have no NaN. */
        if (!ci->nan_counts || i >= ci->num_nan_counts || ci->nan_counts[i] != 0) return true;
    }
    switch (op) {
    case FLOE_PQ_OP_EQ: return sval_cmp(&l, &lo) >= 0 && sval_cmp(&l2, &hi) <= 0;
    case FLOE_PQ_OP_LT: return sval_cmp(&lo, &l) < 0;
    case FLOE_PQ_OP_LE: return sval_cmp(&lo, &l) <= 0;
    case FLOE_PQ_OP_GT: return sval_cmp(&hi, &l2) > 0;
    case FLOE_PQ_OP_GE: return sval_cmp(&hi, &l2) >= 0;
    default: return true;
    }
}

bool pq_page_may_match(const pq_pred *p, const floe_pq_column_index *ci, uint32_t i,
                       bool trusted) {
    bool only_nulls = ci->null_pages[i];
    switch (p->op) {
    case FLOE_PQ_OP_IS_NULL:
        if (only_nulls) return true;
        if (p->col->max_def_level == 0) return false; /* required all the way up */
        if (ci->null_counts && i < ci->num_null_counts && ci->null_counts[i] == 0) return false;
        return true;
    case FLOE_PQ_OP_NOT_NULL:
        return !only_nulls;
    default:
        break;
    }
    if (only_nulls) return false; /* a comparison is never TRUE for a null */
    if (!trusted) return true;
    if (p->op == FLOE_PQ_OP_IN) {
        for (int k = 0; k < p->nvals; k++)
            if (cmp_may_match(p, FLOE_PQ_OP_EQ, &p->vals[k], ci, i)) return true;
        return false;
    }
    return cmp_may_match(p, p->op, &p->vals[0], ci, i);
}

/* Whether the ColumnIndex min/max of `col` are in the order we compare in:
 * TYPE_ORDER (or IEEE 754 total order for floats, whose NaN bounds we never
 * use) when the footer says; without column orders, only where the legacy
 * signed order is the true one. */
static bool index_order_trusted(const floe_pq_file *f, const floe_pq_column *col) {
    const floe_pq_file_metadata *md = f->meta;
    if (md->column_orders && (uint32_t)col->index < md->num_column_orders) {
        int16_t k = md->column_orders[col->index].kind;
        return k == 1 || (k == 2 && is_float_col(col));
    }
    return floe_pq_column_legacy_order_ok(col);
}

bool pq_offset_index_fits(const floe_pq_offset_index *oi, int64_t num_rows, uint64_t chunk_off,
                          uint64_t chunk_len) {
    if (!oi || oi->num_pages == 0) return false;
    const floe_pq_page_location *pl = oi->page_locations;
    if (pl[0].first_row_index != 0) return false;
    for (uint32_t k = 0; k < oi->num_pages; k++) {
        if (pl[k].offset < 0 || pl[k].compressed_page_size <= 0) return false;
        uint64_t off = (uint64_t)pl[k].offset, len = (uint64_t)pl[k].compressed_page_size;
        if (off < chunk_off || off > chunk_off + chunk_len || len > chunk_off + chunk_len - off)
            return false;
        if (pl[k].first_row_index >= num_rows && !(num_rows == 0 && k == 0)) return false;
        if (k > 0) {
            if (pl[k].first_row_index <= pl[k - 1].first_row_index) return false;
            if (off < (uint64_t)pl[k - 1].offset + (uint64_t)pl[k - 1].compressed_page_size)
                return false;
        }
    }
    return true;
}

/* Rows of one predicate's column that may match, or *narrows = false when
 * its index cannot tell (all rows). */
static floe_status pred_rows(const floe_pq_file *f, int rg, const pq_pred *p, pq_ranges *out,
                             bool *narrows) {
    *narrows = false;
    int64_t num_rows = f->meta->row_groups[rg].num_rows;
    const floe_pq_column_chunk *cc = floe_pq_file_chunk(f, rg, p->col->index);
    if (!cc || !cc->has_column_index || !cc->has_offset_index || cc->encrypted) return NULL;
    floe_pq_column_index *ci = NULL;
    floe_pq_offset_index *oi = NULL;
    floe_status st = floe_pq_file_read_column_index(f, rg, p->col->index, &ci);
    if (!st) st = floe_pq_file_read_offset_index(f, rg, p->col->index, &oi);
    uint64_t coff = 0, clen = 0;
    if (!st) st = floe_pq_file_chunk_range(f, rg, p->col->index, &coff, &clen);
    if (st || !ci || !oi) goto done;
    /* An index that does not describe this chunk is ignored, not trusted. */
    if (ci->num_pages != oi->num_pages || !pq_offset_index_fits(oi, num_rows, coff, clen))
        goto done;
    bool trusted = index_order_trusted(f, p->col);
    for (uint32_t i = 0; i < ci->num_pages && !st; i++) {
        if (!pq_page_may_match(p, ci, i, trusted)) continue;
        int64_t lo = oi->page_locations[i].first_row_index;
        int64_t hi = i + 1 < oi->num_pages ? oi->page_locations[i + 1].first_row_index : num_rows;
        st = pq_ranges_add(out, lo, hi);
    }
    if (!st) *narrows = true;
done:
    floe_pq_column_index_free(ci);
    floe_pq_offset_index_free(oi);
    return st;
}

floe_status pq_page_filter_rows(const floe_pq_file *f, int rg, const pq_pred *preds, int npreds,
                                pq_ranges *out, bool *pruned) {
    *pruned = false;
    out->n = 0;
    int64_t num_rows = f->meta->row_groups[rg].num_rows;
    floe_status st = pq_ranges_add(out, 0, num_rows);
    pq_ranges one;
    pq_ranges_init(&one);
    for (int k = 0; k < npreds && !st && out->n > 0; k++) {
        bool narrows;
        one.n = 0;
        st = pred_rows(f, rg, &preds[k], &one, &narrows);
        if (st || !narrows) continue;
        st = pq_ranges_intersect(out, &one);
    }
    pq_ranges_free(&one);
    if (!st) *pruned = pq_ranges_rows(out) < num_rows;
    return st;
}

/*
 * encoding_delta.c — DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and
 * DELTA_BYTE_ARRAY.
 *
 * DELTA_BINARY_PACKED: a header <block size> <miniblocks per block> <total
 * count> <first value (zigzag)> then blocks of <min delta (zigzag)> <one bit
 * width byte per miniblock> <miniblocks>.  Each value is the previous plus
 * min delta plus the miniblock's packed number, in wrapping two's-complement
 * arithmetic (so int32 streams wrap mod 2^32, which we get by computing in
 * 64 bits and truncating).  The final block may omit trailing miniblocks
 * (their width bytes still exist); a final miniblock is padded to full size
 * by the spec, but we accept one trimmed to the values it actually holds.
 *
 * DELTA_LENGTH_BYTE_ARRAY: the lengths as one DELTA_BINARY_PACKED stream,
 * then all the bytes back to back.  DELTA_BYTE_ARRAY: prefix lengths (a
 * delta stream) then the suffixes as DELTA_LENGTH_BYTE_ARRAY; each value is
 * the previous value's prefix plus its suffix.
 */
#include <string.h>

#include "floe/memory.h"
#include "formats/parquet/encoding.h"

#define PQ_DELTA_MAX_BLOCK (1u << 20)

static uint64_t delta_off(const pq_delta *d, const uint8_t *p) {
    return d->base + (uint64_t)(p - d->start);
}

floe_status pq_delta_init(pq_delta *d, const uint8_t *data, size_t len, int is32, uint64_t base) {
    memset(d, 0, sizeof *d);
    d->start = d->p = data;
    d->end = data + len;
    d->base = base;
    d->is32 = is32;
    uint64_t first;
    if (pq_read_uleb(&d->p, d->end, &d->block_size) ||
        pq_read_uleb(&d->p, d->end, &d->miniblocks) || pq_read_uleb(&d->p, d->end, &d->total) ||
        pq_read_uleb(&d->p, d->end, &first))
        return floe_error(FLOE_ERR_CORRUPT, "truncated DELTA_BINARY_PACKED header at offset %llu",
                          (unsigned long long)base);
    if (d->block_size == 0 || d->block_size % 128 || d->block_size > PQ_DELTA_MAX_BLOCK ||
        d->miniblocks == 0 || d->block_size % d->miniblocks ||
        (d->block_size / d->miniblocks) % 32)
        return floe_error(FLOE_ERR_CORRUPT,
                          "bad DELTA_BINARY_PACKED header (block size %llu, %llu miniblocks) at "
                          "offset %llu",
                          (unsigned long long)d->block_size, (unsigned long long)d->miniblocks,
                          (unsigned long long)base);
    d->per_mb = d->block_size / d->miniblocks;
    /* Every block costs at least its min delta and width bytes, so a count
     * the bytes cannot possibly hold is corrupt (and must not size buffers). */
    if (d->total > 1) {
        uint64_t blocks = (d->total - 1 + d->block_size - 1) / d->block_size;
        uint64_t left = (uint64_t)(d->end - d->p);
        if (blocks > left / (1 + d->miniblocks))
            return floe_error(FLOE_ERR_CORRUPT,
                              "DELTA_BINARY_PACKED header claims %llu values, more than its %llu "
                              "bytes can hold, at offset %llu",
                              (unsigned long long)d->total, (unsigned long long)left,
                              (unsigned long long)base);
    }
    d->last = (uint64_t)pq_zigzag_decode(first);
    /* An INT32 stream's first value is a 32-bit pattern, signed or, from
     * writers of UINT_32 columns such as DuckDB, unsigned (up to 2^32-1). */
    if (is32 && ((int64_t)d->last < INT32_MIN || (int64_t)d->last > (int64_t)UINT32_MAX))
        return floe_error(FLOE_ERR_CORRUPT,
                          "DELTA_BINARY_PACKED first value overflows int32 at offset %llu",
                          (unsigned long long)base);
    d->buf = floe_malloc_array((size_t)d->per_mb, sizeof *d->buf);
    if (!d->buf) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory for a delta miniblock");
    return NULL;
}

void pq_delta_free(pq_delta *d) {
    floe_free(d->buf);
    d->buf = NULL;
}

/* Decode the next miniblock into d->buf. */
static floe_status load_miniblock(pq_delta *d) {
    if (!d->widths || d->mb == d->miniblocks) {
        const uint8_t *h = d->p;
        uint64_t z;
        if (pq_read_uleb(&d->p, d->end, &z))
            return floe_error(FLOE_ERR_CORRUPT,
                              "truncated DELTA_BINARY_PACKED block header at offset %llu",
                              (unsigned long long)delta_off(d, h));
        d->min_delta = (uint64_t)pq_zigzag_decode(z);
        if ((uint64_t)(d->end - d->p) < d->miniblocks)
            return floe_error(FLOE_ERR_CORRUPT,
                              "truncated DELTA_BINARY_PACKED bit widths at offset %llu",
                              (unsigned long long)delta_off(d, d->p));
        d->widths = d->p;
        d->p += d->miniblocks;
        d->mb = 0;
    }
    /* INT32 streams may use 33 bits: writers that take the deltas in 64-bit
     * arithmetic (DuckDB does) need them, and the spec says readers should
     * accept them (PARQUET-2435); our 64-bit sums truncated to 32 bits give
     * the right values. */
    int bw = d->widths[d->mb];
    if (bw > (d->is32 ? 33 : 64))
        return floe_error(FLOE_ERR_CORRUPT,
                          "DELTA_BINARY_PACKED miniblock bit width %d exceeds %d at offset %llu",
                          bw, d->is32 ? 33 : 64,
                          (unsigned long long)delta_off(d, d->widths + d->mb));
    uint64_t want = d->total - d->emitted;
    if (want > d->per_mb) want = d->per_mb;
    size_t full = (size_t)(d->per_mb * (uint64_t)bw / 8);
    size_t avail = (size_t)(d->end - d->p);
    size_t bytes = full;
    if (full > avail) {
        if ((want * (uint64_t)bw + 7) / 8 > avail)
            return floe_error(FLOE_ERR_CORRUPT,
                              "truncated DELTA_BINARY_PACKED miniblock (%zu bytes, %zu left) at "
                              "offset %llu",
                              full, avail, (unsigned long long)delta_off(d, d->p));
        bytes = avail;
    }
    pq_unpack64(d->p, bytes, 0, bw, d->buf, (size_t)want);
    uint64_t last = d->last, md = d->min_delta;
    for (uint64_t i = 0; i < want; i++) {
        last += md + d->buf[i];
        d->buf[i] = last;
    }
    d->last = last;
    d->p += bytes;
    d->mb++;
    d->buf_pos = 0;
    d->buf_len = want;
    return NULL;
}

/* Hand out up to `max` values: *vals points at them, *k says how many. */
static floe_status delta_next(pq_delta *d, const uint64_t **vals, size_t *k, size_t max) {
    if (d->emitted >= d->total)
        return floe_error(FLOE_ERR_CORRUPT,
                          "DELTA_BINARY_PACKED stream at offset %llu holds only %llu values",
                          (unsigned long long)d->base, (unsigned long long)d->total);
    if (d->emitted == 0) {
        /* The first value lives in the header. */
        d->buf[0] = d->last;
        d->buf_pos = 0;
        d->buf_len = 1;
    } else if (d->buf_pos == d->buf_len) {
        FLOE_TRY(load_miniblock(d));
    }
    size_t avail = (size_t)(d->buf_len - d->buf_pos);
    size_t n = avail < max ? avail : max;
    *vals = d->buf + d->buf_pos;
    *k = n;
    d->buf_pos += n;
    d->emitted += n;
    return NULL;
}

floe_status pq_delta_get_i64(pq_delta *d, int64_t *out, size_t n) {
    while (n) {
        const uint64_t *v;
        size_t k;
        FLOE_TRY(delta_next(d, &v, &k, n));
        memcpy(out, v, k * 8);
        out += k;
        n -= k;
    }
    return NULL;
}

floe_status pq_delta_get_i32(pq_delta *d, int32_t *out, size_t n) {
    while (n) {
        const uint64_t *v;
        size_t k;
        FLOE_TRY(delta_next(d, &v, &k, n));
        for (size_t i = 0; i < k; i++) out[i] = (int32_t)(uint32_t)v[i];
        out += k;
        n -= k;
    }
    return NULL;
}

floe_status pq_delta_finish(pq_delta *d, const uint8_t **end_out) {
    while (d->emitted < d->total) {
        const uint64_t *v;
        size_t k;
        FLOE_TRY(delta_next(d, &v, &k, SIZE_MAX));
    }
    *end_out = d->p;
    return NULL;
}

/* ---- encoder ---- */

static floe_status delta_encode(floe_buf *out, const int64_t *v, size_t n, int is32) {
    enum { BLOCK = 128, MBS = 4, PER = 32 };
    FLOE_TRY(pq_write_uleb(out, BLOCK));
    FLOE_TRY(pq_write_uleb(out, MBS));
    FLOE_TRY(pq_write_uleb(out, n));
    FLOE_TRY(pq_write_uleb(out, pq_zigzag_encode(n ? v[0] : 0)));
    int64_t delta[BLOCK];
    uint64_t packed[BLOCK];
    for (size_t i = 1; i < n; i += BLOCK) {
        size_t k = n - i < BLOCK ? n - i : BLOCK;
        int64_t min = INT64_MAX;
        for (size_t j = 0; j < k; j++) {
            uint64_t a = (uint64_t)v[i + j], b = (uint64_t)v[i + j - 1];
            delta[j] = is32 ? (int64_t)(int32_t)(uint32_t)(a - b) : (int64_t)(a - b);
            if (delta[j] < min) min = delta[j];
        }
        FLOE_TRY(pq_write_uleb(out, pq_zigzag_encode(min)));
        uint8_t widths[MBS] = {0};
        for (size_t j = 0; j < k; j++) {
            packed[j] = (uint64_t)delta[j] - (uint64_t)min;
            int w = pq_bit_width(packed[j]);
            if (w > widths[j / PER]) widths[j / PER] = (uint8_t)w;
        }
        for (size_t j = k; j < BLOCK; j++) packed[j] = 0;
        FLOE_TRY(floe_buf_append(out, widths, MBS));
        for (size_t m = 0; m * PER < k; m++)
            FLOE_TRY(pq_pack64(out, packed + m * PER, PER, widths[m]));
    }
    return NULL;
}

floe_status pq_delta_encode(floe_buf *out, const int64_t *v, size_t n) {
    return delta_encode(out, v, n, 0);
}

floe_status pq_delta_encode_i32(floe_buf *out, const int32_t *v, size_t n) {
    int64_t tmp[1024];
    /* The encoder looks back one value, so widen in chunks into one array. */
    if (n <= 1024) {
        for (size_t i = 0; i < n; i++) tmp[i] = v[i];
        return delta_encode(out, tmp, n, 1);
    }
    int64_t *w = floe_malloc_array(n, sizeof *w);
    if (!w) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory delta-encoding");
    for (size_t i = 0; i < n; i++) w[i] = v[i];
    floe_status st = delta_encode(out, w, n, 1);
    floe_free(w);
    return st;
}

/* ---- DELTA_LENGTH_BYTE_ARRAY ---- */

floe_status pq_dlba_init(pq_dlba *d, const uint8_t *data, size_t len, uint64_t base) {
    memset(d, 0, sizeof *d);
    pq_delta lens;
    FLOE_TRY(pq_delta_init(&lens, data, len, 1, base));
    floe_status st = NULL;
    d->count = lens.total;
    d->lens = floe_malloc_array(d->count ? (size_t)d->count : 1, sizeof *d->lens);
    if (!d->lens) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory for %llu lengths",
                        (unsigned long long)d->count);
        goto done;
    }
    const uint8_t *end;
    if ((st = pq_delta_get_i32(&lens, d->lens, (size_t)d->count))) goto done;
    if ((st = pq_delta_finish(&lens, &end))) goto done;
    uint64_t total = 0;
    for (uint64_t i = 0; i < d->count; i++) {
        if (d->lens[i] < 0) {
            st = floe_error(FLOE_ERR_CORRUPT, "negative byte array length %d at offset %llu",
                            d->lens[i], (unsigned long long)base);
            goto done;
        }
        total += (uint64_t)d->lens[i];
    }
    if (total > (uint64_t)(data + len - end)) {
        st = floe_error(FLOE_ERR_CORRUPT,
                        "DELTA_LENGTH_BYTE_ARRAY lengths total %llu bytes but %zu remain at "
                        "offset %llu",
                        (unsigned long long)total, (size_t)(data + len - end),
                        (unsigned long long)(base + (uint64_t)(end - data)));
        goto done;
    }
    d->start = data;
    d->data = end;
    d->end = data + len;
    d->base = base;
done:
    pq_delta_free(&lens);
    if (st) pq_dlba_free(d);
    return st;
}

void pq_dlba_free(pq_dlba *d) {
    floe_free(d->lens);
    d->lens = NULL;
}

floe_status pq_dlba_get(pq_dlba *d, int32_t *offsets, floe_buf *out, size_t n) {
    if (n > d->count - d->next)
        return floe_error(FLOE_ERR_CORRUPT,
                          "DELTA_LENGTH_BYTE_ARRAY at offset %llu holds only %llu values",
                          (unsigned long long)d->base, (unsigned long long)d->count);
    uint64_t total = 0;
    const int32_t *lens = d->lens + d->next;
    for (size_t i = 0; i < n; i++) total += (uint64_t)lens[i];
    if ((uint64_t)offsets[0] + total > INT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "more than 2 GiB of BYTE_ARRAY data in one batch");
    FLOE_TRY(floe_buf_append(out, d->data, (size_t)total));
    int32_t off = offsets[0];
    for (size_t i = 0; i < n; i++) {
        off += lens[i];
        offsets[i + 1] = off;
    }
    d->data += total;
    d->next += n;
    return NULL;
}

/* ---- DELTA_BYTE_ARRAY ---- */

floe_status pq_dba_init(pq_dba *d, const uint8_t *data, size_t len, uint64_t base) {
    memset(d, 0, sizeof *d);
    d->base = base;
    pq_delta pre;
    FLOE_TRY(pq_delta_init(&pre, data, len, 1, base));
    floe_status st = NULL;
    const uint8_t *end;
    d->count = pre.total;
    d->prefix = floe_malloc_array(d->count ? (size_t)d->count : 1, sizeof *d->prefix);
    if (!d->prefix) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory for prefix lengths");
        goto done;
    }
    if ((st = pq_delta_get_i32(&pre, d->prefix, (size_t)d->count))) goto done;
    if ((st = pq_delta_finish(&pre, &end))) goto done;
    size_t used = (size_t)(end - data);
    if ((st = pq_dlba_init(&d->suffix, end, len - used, base + used))) goto done;
    if (d->suffix.count != d->count)
        st = floe_error(FLOE_ERR_CORRUPT,
                        "DELTA_BYTE_ARRAY has %llu prefixes but %llu suffixes at offset %llu",
                        (unsigned long long)d->count, (unsigned long long)d->suffix.count,
                        (unsigned long long)base);
done:
    pq_delta_free(&pre);
    if (st) pq_dba_free(d);
    return st;
}

void pq_dba_free(pq_dba *d) {
    floe_free(d->prefix);
    d->prefix = NULL;
    pq_dlba_free(&d->suffix);
    floe_buf_free(&d->prev);
}

/* Build the next value into d->prev. */
static floe_status dba_next(pq_dba *d) {
    int32_t pre = d->prefix[d->next];
    if (pre < 0 || (size_t)pre > d->prev.len)
        return floe_error(FLOE_ERR_CORRUPT,
                          "DELTA_BYTE_ARRAY prefix length %d exceeds the previous value's %zu "
                          "bytes (value %llu, page data at offset %llu)",
                          pre, d->prev.len, (unsigned long long)d->next,
                          (unsigned long long)d->base);
    int32_t slen = d->suffix.lens[d->suffix.next];
    d->prev.len = (size_t)pre;
    FLOE_TRY(floe_buf_append(&d->prev, d->suffix.data, (size_t)slen));
    d->suffix.data += slen;
    d->suffix.next++;
    d->next++;
    return NULL;
}

floe_status pq_dba_get(pq_dba *d, int32_t *offsets, floe_buf *out, size_t n) {
    if (n > d->count - d->next)
        return floe_error(FLOE_ERR_CORRUPT, "DELTA_BYTE_ARRAY at offset %llu holds only %llu values",
                          (unsigned long long)d->base, (unsigned long long)d->count);
    int32_t off = offsets[0];
    for (size_t i = 0; i < n; i++) {
        FLOE_TRY(dba_next(d));
        if ((uint64_t)off + d->prev.len > INT32_MAX)
            return floe_error(FLOE_ERR_UNSUPPORTED,
                              "more than 2 GiB of BYTE_ARRAY data in one batch");
        if (d->prev.len) FLOE_TRY(floe_buf_append(out, d->prev.data, d->prev.len));
        off += (int32_t)d->prev.len;
        offsets[i + 1] = off;
    }
    return NULL;
}

floe_status pq_dba_get_fixed(pq_dba *d, size_t width, uint8_t *out, size_t n) {
    if (n > d->count - d->next)
        return floe_error(FLOE_ERR_CORRUPT, "DELTA_BYTE_ARRAY at offset %llu holds only %llu values",
                          (unsigned long long)d->base, (unsigned long long)d->count);
    for (size_t i = 0; i < n; i++) {
        FLOE_TRY(dba_next(d));
        if (d->prev.len != width)
            return floe_error(FLOE_ERR_CORRUPT,
                              "DELTA_BYTE_ARRAY value of %zu bytes in a FIXED_LEN_BYTE_ARRAY(%zu) "
                              "column at offset %llu",
                              d->prev.len, width, (unsigned long long)d->base);
        memcpy(out + i * width, d->prev.data, width);
    }
    return NULL;
}

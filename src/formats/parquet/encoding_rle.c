/*
 * encoding_rle.c — bit unpacking, varints, the RLE/bit-packed hybrid
 * (decoder and encoder) and legacy BIT_PACKED levels.
 *
 * The hybrid is a sequence of runs, each introduced by a ULEB128 header
 * whose low bit says which kind: an RLE run repeats one value (stored in
 * ceil(bw/8) bytes) header>>1 times; a bit-packed run holds header>>1 groups
 * of 8 values packed LSB-first.  Decoding is the hot path for every level
 * and dictionary index, so bit-packed runs are unpacked 32 values at a time
 * by a routine specialised per width (the loop below is unrolled with a
 * constant width, turning into straight-line shifts and masks).
 *
 * A final bit-packed run may legally be shorter than its header claims when
 * the writer trimmed padding; we accept as many whole values as the bytes
 * hold and only fail when a caller asks for more.
 */
#include <stdbool.h>
#include <string.h>

#include "formats/parquet/encoding.h"

static inline uint64_t ld64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Up to 8 bytes at p, zero-filled past `end`. */
static inline uint64_t ld64_tail(const uint8_t *p, const uint8_t *end) {
    uint64_t v = 0;
    size_t avail = (size_t)(end - p);
    memcpy(&v, p, avail < 8 ? avail : 8);
    return v;
}

int pq_bit_width(uint64_t v) {
    return v ? 64 - __builtin_clzll(v) : 0;
}

/* ---- unpacking ---- */

static inline __attribute__((always_inline)) void unpack32_w(const uint8_t *in, uint32_t *out,
                                                             const int bw) {
    const uint64_t mask = bw == 32 ? 0xffffffffull : ((1ull << bw) - 1);
#pragma GCC unroll 32
    for (int i = 0; i < 32; i++) {
        const unsigned bit = (unsigned)i * (unsigned)bw;
        out[i] = (uint32_t)((ld64(in + (bit >> 3)) >> (bit & 7)) & mask);
    }
}

typedef void (*unpack_fn)(const uint8_t *in, uint32_t *out);
#define PQ_UNPACK(w) \
    static void unpack32_##w(const uint8_t *in, uint32_t *out) { unpack32_w(in, out, w); }
PQ_UNPACK(1) PQ_UNPACK(2) PQ_UNPACK(3) PQ_UNPACK(4) PQ_UNPACK(5) PQ_UNPACK(6) PQ_UNPACK(7)
PQ_UNPACK(8) PQ_UNPACK(9) PQ_UNPACK(10) PQ_UNPACK(11) PQ_UNPACK(12) PQ_UNPACK(13)
PQ_UNPACK(14) PQ_UNPACK(15) PQ_UNPACK(16) PQ_UNPACK(17) PQ_UNPACK(18) PQ_UNPACK(19)
PQ_UNPACK(20) PQ_UNPACK(21) PQ_UNPACK(22) PQ_UNPACK(23) PQ_UNPACK(24) PQ_UNPACK(25)
PQ_UNPACK(26) PQ_UNPACK(27) PQ_UNPACK(28) PQ_UNPACK(29) PQ_UNPACK(30) PQ_UNPACK(31)
PQ_UNPACK(32)

static const unpack_fn unpack_table[33] = {
    NULL,         unpack32_1,  unpack32_2,  unpack32_3,  unpack32_4,  unpack32_5,
    unpack32_6,   unpack32_7,  unpack32_8,  unpack32_9,  unpack32_10, unpack32_11,
    unpack32_12,  unpack32_13, unpack32_14, unpack32_15, unpack32_16, unpack32_17,
    unpack32_18,  unpack32_19, unpack32_20, unpack32_21, unpack32_22, unpack32_23,
    unpack32_24,  unpack32_25, unpack32_26, unpack32_27, unpack32_28, unpack32_29,
    unpack32_30,  unpack32_31, unpack32_32};

static inline uint32_t unpack_one32(const uint8_t *in, size_t in_len, uint64_t idx, int bw) {
    uint64_t bit = idx * (uint64_t)bw;
    size_t byte = (size_t)(bit >> 3);
    uint64_t w = byte + 8 <= in_len ? ld64(in + byte) : ld64_tail(in + byte, in + in_len);
    uint64_t mask = bw == 32 ? 0xffffffffull : ((1ull << bw) - 1);
    return (uint32_t)((w >> (bit & 7)) & mask);
}

void pq_unpack32(const uint8_t *in, size_t in_len, uint64_t first, int bw, uint32_t *out,
                 size_t n) {
    if (bw == 0) {
        memset(out, 0, n * sizeof *out);
        return;
    }
    size_t i = 0;
    /* Values before a group boundary, so the fast path starts on a byte. */
    while (i < n && ((first + i) & 7)) {
        out[i] = unpack_one32(in, in_len, first + i, bw);
        i++;
    }
    unpack_fn f = unpack_table[bw];
    while (n - i >= 32) {
        size_t byte = (size_t)(((first + i) * (uint64_t)bw) >> 3);
        size_t need = 4 * (size_t)bw;
        if (byte + need + 8 <= in_len) {
            f(in + byte, out + i);
        } else {
            /* Near the end: unpack from a padded copy so loads stay in bounds. */
            uint8_t tmp[4 * 32 + 8] = {0};
            size_t avail = in_len - byte;
            memcpy(tmp, in + byte, avail < need ? avail : need);
            f(tmp, out + i);
        }
        i += 32;
    }
    for (; i < n; i++) out[i] = unpack_one32(in, in_len, first + i, bw);
}

void pq_unpack64(const uint8_t *in, size_t in_len, uint64_t first, int bw, uint64_t *out,
                 size_t n) {
    if (bw <= 32) {
        uint32_t tmp[256];
        size_t done = 0;
        while (done < n) {
            size_t k = n - done < 256 ? n - done : 256;
            pq_unpack32(in, in_len, first + done, bw, tmp, k);
            for (size_t j = 0; j < k; j++) out[done + j] = tmp[j];
            done += k;
        }
        return;
    }
    const uint64_t mask = bw == 64 ? ~0ull : ((1ull << bw) - 1);
    const uint8_t *end = in + in_len;
    for (size_t i = 0; i < n; i++) {
        uint64_t bit = (first + i) * (uint64_t)bw;
        size_t byte = (size_t)(bit >> 3);
        unsigned sh = (unsigned)(bit & 7);
        uint64_t w = byte + 8 <= in_len ? ld64(in + byte) : ld64_tail(in + byte, end);
        uint64_t v = w >> sh;
        if (sh + (unsigned)bw > 64 && byte + 8 < in_len) v |= (uint64_t)in[byte + 8] << (64 - sh);
        out[i] = v & mask;
    }
}

floe_status pq_pack64(floe_buf *out, const uint64_t *v, size_t n, int bw) {
    size_t bytes = (size_t)(((uint64_t)n * (uint64_t)bw + 7) / 8);
    uint8_t *dst = floe_buf_extend(out, bytes);
    if (!dst) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory bit-packing %zu values", n);
    if (bw == 0) return NULL;
    memset(dst, 0, bytes);
    const uint64_t mask = bw == 64 ? ~0ull : ((1ull << bw) - 1);
    unsigned __int128 acc = 0;
    unsigned nbits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= (unsigned __int128)(v[i] & mask) << nbits;
        nbits += (unsigned)bw;
        while (nbits >= 8) {
            dst[o++] = (uint8_t)acc;
            acc >>= 8;
            nbits -= 8;
        }
    }
    if (nbits) dst[o++] = (uint8_t)acc;
    return NULL;
}

/* ---- varints ---- */

int pq_read_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *v) {
    const uint8_t *p = *pp;
    uint64_t r = 0;
    for (unsigned s = 0; s <= 63; s += 7) {
        if (p >= end) return -1;
        uint8_t b = *p++;
        if (s == 63 && b > 1) return -1; /* more than 64 bits */
        r |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80)) {
            *pp = p;
            *v = r;
            return 0;
        }
    }
    return -1;
}

floe_status pq_write_uleb(floe_buf *out, uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        tmp[n++] = (uint8_t)(b | (v ? 0x80 : 0));
    } while (v);
    return floe_buf_append(out, tmp, n);
}

/* ---- hybrid decoder ---- */

static uint64_t rle_off(const pq_rle *d, const uint8_t *p) {
    return d->base + (uint64_t)(p - d->start);
}

floe_status pq_rle_init(pq_rle *d, const uint8_t *data, size_t len, int bw, uint64_t base) {
    memset(d, 0, sizeof *d);
    if (bw < 0 || bw > 32)
        return floe_error(FLOE_ERR_CORRUPT, "RLE/bit-packed bit width %d (max 32) at offset %llu",
                          bw, (unsigned long long)base);
    d->start = d->p = data;
    d->end = data + len;
    d->base = base;
    d->bw = bw;
    return NULL;
}

floe_status pq_rle_init_prefixed(pq_rle *d, const uint8_t *data, size_t len, int bw,
                                 uint64_t base, size_t *used) {
    if (len < 4)
        return floe_error(FLOE_ERR_CORRUPT,
                          "RLE length prefix truncated (%zu bytes left) at offset %llu", len,
                          (unsigned long long)base);
    uint32_t n;
    memcpy(&n, data, 4);
    if (n > len - 4)
        return floe_error(FLOE_ERR_CORRUPT,
                          "RLE data of %u bytes exceeds the %zu bytes left at offset %llu", n,
                          len - 4, (unsigned long long)base);
    *used = 4 + (size_t)n;
    return pq_rle_init(d, data + 4, n, bw, base + 4);
}

/* Read the next run header. */
static floe_status next_run(pq_rle *d) {
    const uint8_t *h = d->p;
    uint64_t hdr;
    if (h >= d->end)
        return floe_error(FLOE_ERR_CORRUPT, "RLE/bit-packed data ran out of values at offset %llu",
                          (unsigned long long)rle_off(d, h));
    if (pq_read_uleb(&d->p, d->end, &hdr))
        return floe_error(FLOE_ERR_CORRUPT, "truncated RLE run header at offset %llu",
                          (unsigned long long)rle_off(d, h));
    if (hdr & 1) {
        uint64_t groups = hdr >> 1;
        size_t avail = (size_t)(d->end - d->p);
        size_t bytes;
        uint64_t values;
        if (groups > avail / (size_t)d->bw) {
            /* Trimmed final run: keep the whole values that are present. */
            bytes = avail;
            values = (uint64_t)avail * 8 / (uint64_t)d->bw;
        } else {
            bytes = (size_t)groups * (size_t)d->bw;
            values = groups * 8;
        }
        d->bp_data = d->p;
        d->bp_len = bytes;
        d->bp_left = values;
        d->bp_next = 0;
        d->p += bytes;
    } else {
        size_t nb = ((size_t)d->bw + 7) / 8;
        if ((size_t)(d->end - d->p) < nb)
            return floe_error(FLOE_ERR_CORRUPT, "truncated RLE run value at offset %llu",
                              (unsigned long long)rle_off(d, d->p));
        uint32_t v = 0;
        memcpy(&v, d->p, nb);
        d->p += nb;
        d->rle_value = v;
        d->rle_left = hdr >> 1;
    }
    return NULL;
}

floe_status pq_rle_get_u32(pq_rle *d, uint32_t *out, size_t n) {
    if (d->bw == 0) {
        memset(out, 0, n * sizeof *out);
        return NULL;
    }
    while (n) {
        if (d->rle_left) {
            size_t k = d->rle_left < n ? (size_t)d->rle_left : n;
            uint32_t v = d->rle_value;
            for (size_t i = 0; i < k; i++) out[i] = v;
            d->rle_left -= k;
            out += k;
            n -= k;
        } else if (d->bp_left) {
            size_t k = d->bp_left < n ? (size_t)d->bp_left : n;
            pq_unpack32(d->bp_data, d->bp_len, d->bp_next, d->bw, out, k);
            d->bp_next += k;
            d->bp_left -= k;
            out += k;
            n -= k;
        } else {
            FLOE_TRY(next_run(d));
        }
    }
    return NULL;
}

/* Narrow variants: RLE runs are filled directly, bit-packed runs go
 * through a small stack buffer. */
#define PQ_RLE_GET_NARROW(name, T)                                               \
    floe_status name(pq_rle *d, T *out, size_t n) {                              \
        if (d->bw == 0) {                                                        \
            memset(out, 0, n * sizeof *out);                                     \
            return NULL;                                                         \
        }                                                                        \
        uint32_t tmp[512];                                                       \
        while (n) {                                                              \
            if (d->rle_left) {                                                   \
                size_t k = d->rle_left < n ? (size_t)d->rle_left : n;           \
                T v = (T)d->rle_value;                                           \
                for (size_t i = 0; i < k; i++) out[i] = v;                       \
                d->rle_left -= k;                                                \
                out += k;                                                        \
                n -= k;                                                          \
            } else if (d->bp_left) {                                             \
                size_t k = d->bp_left < n ? (size_t)d->bp_left : n;             \
                if (k > 512) k = 512;                                            \
                pq_unpack32(d->bp_data, d->bp_len, d->bp_next, d->bw, tmp, k);   \
                for (size_t i = 0; i < k; i++) out[i] = (T)tmp[i];               \
                d->bp_next += k;                                                 \
                d->bp_left -= k;                                                 \
                out += k;                                                        \
                n -= k;                                                          \
            } else {                                                             \
                FLOE_TRY(next_run(d));                                           \
            }                                                                    \
        }                                                                        \
        return NULL;                                                             \
    }

PQ_RLE_GET_NARROW(pq_rle_get_u16, uint16_t)
PQ_RLE_GET_NARROW(pq_rle_get_i16, int16_t)
PQ_RLE_GET_NARROW(pq_rle_get_u8, uint8_t)

/* Nonzero when some v[i] >= limit.  Four lanes at a time with gcc's vector
 * extension: -O2 leaves the plain loop scalar, and this check runs on
 * every dictionary index. */
static uint32_t any_at_least(const uint32_t *v, size_t n, uint32_t limit) {
    typedef uint32_t v4u __attribute__((vector_size(16)));
    v4u acc = {0, 0, 0, 0}, lim = {limit, limit, limit, limit};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        v4u x, y;
        memcpy(&x, v + i, sizeof x);
        memcpy(&y, v + i + 4, sizeof y);
        acc |= (v4u)(x >= lim) | (v4u)(y >= lim);
    }
    uint32_t bad = acc[0] | acc[1] | acc[2] | acc[3];
    for (; i < n; i++) bad |= v[i] >= limit;
    return bad;
}

floe_status pq_rle_get_u32_max(pq_rle *d, uint32_t *out, size_t n, uint32_t limit) {
    /* Fused decode and check: an RLE run's value is checked once, packed
     * values right after unpacking, while they are still in cache. */
    const uint8_t *at = d->p;
    uint32_t badv = 0;
    if (d->bw == 0) {
        memset(out, 0, n * sizeof *out);
        if (n && limit == 0) goto bad;
        return NULL;
    }
    while (n) {
        if (d->rle_left) {
            size_t k = d->rle_left < n ? (size_t)d->rle_left : n;
            uint32_t v = d->rle_value;
            if (v >= limit) {
                badv = v;
                goto bad;
            }
            for (size_t i = 0; i < k; i++) out[i] = v;
            d->rle_left -= k;
            out += k;
            n -= k;
        } else if (d->bp_left) {
            size_t k = d->bp_left < n ? (size_t)d->bp_left : n;
            pq_unpack32(d->bp_data, d->bp_len, d->bp_next, d->bw, out, k);
            /* Indices of this width cannot reach the limit: nothing to check. */
            bool fits = d->bw < 32 && ((uint64_t)1 << d->bw) <= limit;
            if (!fits && any_at_least(out, k, limit)) {
                for (size_t i = 0; i < k; i++)
                    if (out[i] >= limit) {
                        badv = out[i];
                        break;
                    }
                goto bad;
            }
            d->bp_next += k;
            d->bp_left -= k;
            out += k;
            n -= k;
        } else {
            FLOE_TRY(next_run(d));
        }
    }
    return NULL;
bad:
    return floe_error(FLOE_ERR_CORRUPT,
                      "dictionary index %u out of range (dictionary has %u entries) near offset %llu",
                      badv, limit, (unsigned long long)rle_off(d, at));
}

floe_status pq_rle_get_i16_max(pq_rle *d, int16_t *out, size_t n, int16_t max_level) {
    /* Fused decode and check: an RLE run's value is checked once, packed
     * values as they are narrowed. */
    const uint32_t max = (uint32_t)(max_level < 0 ? 0 : max_level);
    if (d->bw == 0) {
        memset(out, 0, n * sizeof *out);
        return NULL;
    }
    uint32_t tmp[512];
    while (n) {
        if (d->rle_left) {
            if (d->rle_value > max) goto bad;
            size_t k = d->rle_left < n ? (size_t)d->rle_left : n;
            int16_t v = (int16_t)d->rle_value;
            for (size_t i = 0; i < k; i++) out[i] = v;
            d->rle_left -= k;
            out += k;
            n -= k;
        } else if (d->bp_left) {
            size_t k = d->bp_left < n ? (size_t)d->bp_left : n;
            if (k > 512) k = 512;
            pq_unpack32(d->bp_data, d->bp_len, d->bp_next, d->bw, tmp, k);
            uint32_t over = 0;
            for (size_t i = 0; i < k; i++) {
                over |= tmp[i] > max;
                out[i] = (int16_t)tmp[i];
            }
            if (over) goto bad;
            d->bp_next += k;
            d->bp_left -= k;
            out += k;
            n -= k;
        } else {
            FLOE_TRY(next_run(d));
        }
    }
    return NULL;
bad:
    return floe_error(FLOE_ERR_CORRUPT, "level above its maximum %d near offset %llu", max_level,
                      (unsigned long long)rle_off(d, d->p));
}

/* ---- legacy BIT_PACKED ---- */

floe_status pq_bitpacked_legacy_decode(const uint8_t *data, size_t len, int bw, uint64_t base,
                                       int16_t *out, size_t n, size_t *used) {
    if (bw < 0 || bw > 16)
        return floe_error(FLOE_ERR_CORRUPT, "BIT_PACKED level width %d at offset %llu", bw,
                          (unsigned long long)base);
    uint64_t bits = (uint64_t)n * (uint64_t)bw;
    uint64_t bytes = (bits + 7) / 8;
    if (bytes > len)
        return floe_error(FLOE_ERR_CORRUPT,
                          "BIT_PACKED levels need %llu bytes but %zu remain at offset %llu",
                          (unsigned long long)bytes, len, (unsigned long long)base);
    uint64_t bit = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = 0;
        for (int j = 0; j < bw; j++, bit++)
            v = (v << 1) | ((data[bit >> 3] >> (7 - (bit & 7))) & 1u);
        out[i] = (int16_t)v;
    }
    *used = (size_t)bytes;
    return NULL;
}

/* ---- hybrid encoder ---- */

static floe_status flush_literals(floe_buf *out, const uint32_t *v, size_t n, int bw) {
    if (!n) return NULL;
    size_t groups = (n + 7) / 8;
    FLOE_TRY(pq_write_uleb(out, ((uint64_t)groups << 1) | 1));
    uint64_t tmp[64];
    size_t padded = groups * 8, done = 0;
    while (done < padded) {
        size_t k = padded - done < 64 ? padded - done : 64;
        for (size_t i = 0; i < k; i++) tmp[i] = done + i < n ? v[done + i] : 0;
        FLOE_TRY(pq_pack64(out, tmp, k, bw));
        done += k;
    }
    return NULL;
}

floe_status pq_rle_encode(floe_buf *out, const uint32_t *v, size_t n, int bw) {
    if (bw < 0 || bw > 32)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "RLE bit width %d (max 32)", bw);
    size_t nb = ((size_t)bw + 7) / 8;
    size_t lit_start = 0, lit_n = 0, i = 0;
    while (i < n) {
        size_t r = 1;
        while (i + r < n && v[i + r] == v[i]) r++;
        if (r >= 8) {
            /* Literal runs must hold whole groups of 8: borrow from the repeat. */
            size_t pad = lit_n % 8 ? 8 - lit_n % 8 : 0;
            if (r - pad >= 8) {
                lit_n += pad;
                i += pad;
                r -= pad;
                FLOE_TRY(flush_literals(out, v + lit_start, lit_n, bw));
                FLOE_TRY(pq_write_uleb(out, (uint64_t)r << 1));
                uint32_t val = v[i];
                FLOE_TRY(floe_buf_append(out, &val, nb));
                i += r;
                lit_start = i;
                lit_n = 0;
                continue;
            }
        }
        lit_n += r;
        i += r;
    }
    return flush_literals(out, v + lit_start, lit_n, bw);
}

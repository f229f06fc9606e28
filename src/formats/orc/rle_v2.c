/*
 * rle_v2.c — integer RLE version 2 and big-endian bit unpacking (rle.h).
 *
 * A run's header says its sub-encoding in the top two bits:
 *   0 SHORT_REPEAT  3..10 copies of one value of 1..8 bytes
 *   1 DIRECT        up to 512 values of a fixed bit width
 *   2 PATCHED_BASE  a base, fixed-width offsets and a patch list for the
 *                   few offsets that need more bits
 *   3 DELTA         a base, a first delta and fixed-width delta magnitudes
 * Bit widths use the 5-bit table of the specification.  Each run's byte
 * size is computed and checked against the stream before decoding, and
 * patch positions are checked against the run, so a corrupt run is an
 * error naming the run's offset, never a read outside the stream.
 */
#include "formats/orc/rle.h"

#include <string.h>

static const uint8_t width_table[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                        12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                        23, 24, 26, 28, 30, 32, 40, 48, 56, 64};

static int closest_fixed_bits(int n) {
    if (n <= 24) return n < 1 ? 1 : n;
    if (n <= 26) return 26;
    if (n <= 28) return 28;
    if (n <= 30) return 30;
    if (n <= 32) return 32;
    if (n <= 40) return 40;
    if (n <= 48) return 48;
    if (n <= 56) return 56;
    return 64;
}

static inline int64_t unzz(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

static floe_status bad_run(const floe_orc_int_rle *r, const char *what) {
    return floe_error(FLOE_ERR_CORRUPT, "integer RLE v2: %s (after %llu values)", what,
                      (unsigned long long)r->consumed);
}

static inline uint64_t load_be(const uint8_t *p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = v << 8 | p[i];
    return v;
}

void floe_orc_unpack_be(const uint8_t *p, int width, int n, int64_t *out) {
    switch (width) {
    case 8:
        for (int i = 0; i < n; i++) out[i] = p[i];
        return;
    case 16:
        for (int i = 0; i < n; i++) out[i] = (int64_t)((uint32_t)p[2 * i] << 8 | p[2 * i + 1]);
        return;
    case 32:
        for (int i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, p + 4 * i, 4);
            out[i] = (int64_t)__builtin_bswap32(v);
        }
        return;
    case 64:
        for (int i = 0; i < n; i++) {
            uint64_t v;
            memcpy(&v, p + 8 * i, 8);
            out[i] = (int64_t)__builtin_bswap64(v);
        }
        return;
    case 24: case 40: case 48: case 56: {
        int b = width / 8;
        for (int i = 0; i < n; i++) out[i] = (int64_t)load_be(p + (size_t)b * i, b);
        return;
    }
    case 1: {
        int i = 0;
        for (; i + 8 <= n; i += 8, p++) {
            uint8_t b = *p;
            for (int k = 0; k < 8; k++) out[i + k] = (b >> (7 - k)) & 1;
        }
        for (int k = 0; i < n; i++, k++) out[i] = (*p >> (7 - k)) & 1;
        return;
    }
    case 2: {
        int i = 0;
        for (; i + 4 <= n; i += 4, p++) {
            uint8_t b = *p;
            out[i] = b >> 6;
            out[i + 1] = (b >> 4) & 3;
            out[i + 2] = (b >> 2) & 3;
            out[i + 3] = b & 3;
        }
        for (int k = 0; i < n; i++, k++) out[i] = (*p >> (6 - 2 * k)) & 3;
        return;
    }
    case 4: {
        int i = 0;
        for (; i + 2 <= n; i += 2, p++) {
            out[i] = *p >> 4;
            out[i + 1] = *p & 15;
        }
        if (i < n) out[i] = *p >> 4;
        return;
    }
    default: {
        /* widths up to 56 (the table has no 57..63): a 64-bit accumulator
         * never holds more than width + 7 bits */
        uint64_t acc = 0, mask = width == 64 ? ~0ull : (1ull << width) - 1;
        int bits = 0;
        for (int i = 0; i < n; i++) {
            while (bits < width) {
                acc = acc << 8 | *p++;
                bits += 8;
            }
            out[i] = (int64_t)((acc >> (bits - width)) & mask);
            bits -= width;
        }
        return;
    }
    }
}

static inline size_t packed_bytes(int width, int n) { return ((size_t)width * (size_t)n + 7) / 8; }

floe_status floe_orc_rle_v2_next_run(floe_orc_int_rle *r) {
    const uint8_t *p = r->p, *end = r->end;
    if (p >= end) return bad_run(r, "stream ended");
    uint8_t h = p[0];
    int enc = h >> 6;
    int64_t *out = r->target;
    if (enc == 0) { /* SHORT_REPEAT */
        int bytes = ((h >> 3) & 7) + 1, n = (h & 7) + 3;
        if (end - p < 1 + bytes) return bad_run(r, "truncated SHORT_REPEAT run");
        uint64_t v = load_be(p + 1, bytes);
        int64_t x = r->is_signed ? unzz(v) : (int64_t)v;
        for (int i = 0; i < n; i++) out[i] = x;
        r->buf_len = n;
        r->p = p + 1 + bytes;
    } else if (enc == 1) { /* DIRECT */
        if (end - p < 2) return bad_run(r, "truncated DIRECT header");
        int w = width_table[(h >> 1) & 0x1f];
        int n = ((h & 1) << 8 | p[1]) + 1;
        size_t nb = packed_bytes(w, n);
        if ((size_t)(end - p - 2) < nb) return bad_run(r, "truncated DIRECT run");
        floe_orc_unpack_be(p + 2, w, n, out);
        if (r->is_signed)
            for (int i = 0; i < n; i++) out[i] = unzz((uint64_t)out[i]);
        r->buf_len = n;
        r->p = p + 2 + nb;
    } else if (enc == 2) { /* PATCHED_BASE */
        if (end - p < 4) return bad_run(r, "truncated PATCHED_BASE header");
        int w = width_table[(h >> 1) & 0x1f];
        int n = ((h & 1) << 8 | p[1]) + 1;
        int bw = ((p[2] >> 5) & 7) + 1;
        int pw = width_table[p[2] & 0x1f];
        int pgw = ((p[3] >> 5) & 7) + 1;
        int pll = p[3] & 0x1f;
        if (w + pw > 64) return bad_run(r, "PATCHED_BASE value and patch widths exceed 64 bits");
        int cfb = closest_fixed_bits(pgw + pw);
        size_t nb = packed_bytes(w, n), pb = packed_bytes(cfb, pll);
        const uint8_t *q = p + 4;
        if ((size_t)(end - q) < (size_t)bw + nb + pb) return bad_run(r, "truncated PATCHED_BASE run");
        uint64_t ub = load_be(q, bw);
        uint64_t sign = 1ull << (bw * 8 - 1);
        int64_t base = (ub & sign) ? -(int64_t)(ub & ~sign) : (int64_t)ub;
        q += bw;
        floe_orc_unpack_be(q, w, n, out);
        q += nb;
        int64_t patches[32];
        floe_orc_unpack_be(q, cfb, pll, patches);
        q += pb;
        uint64_t pmask = pw == 64 ? ~0ull : (1ull << pw) - 1;
        int64_t idx = 0;
        for (int i = 0; i < pll; i++) {
            uint64_t e = (uint64_t)patches[i];
            uint64_t gap = pw == 64 ? 0 : e >> pw;
            uint64_t val = e & pmask;
            idx += (int64_t)gap;
            if (idx >= n) return bad_run(r, "PATCHED_BASE patch past the end of its run");
            if (val) out[idx] = (int64_t)((uint64_t)out[idx] | val << w);
        }
        for (int i = 0; i < n; i++) out[i] = (int64_t)((uint64_t)base + (uint64_t)out[i]);
        r->buf_len = n;
        r->p = q;
    } else { /* DELTA */
        if (end - p < 2) return bad_run(r, "truncated DELTA header");
        int code = (h >> 1) & 0x1f;
        int w = code ? width_table[code] : 0;
        int n = ((h & 1) << 8 | p[1]) + 1;
        const uint8_t *q = p + 2;
        uint64_t ub, ud;
        if (!floe_orc_read_uvarint(&q, end, &ub)) return bad_run(r, "bad DELTA base");
        if (!floe_orc_read_uvarint(&q, end, &ud)) return bad_run(r, "bad DELTA first delta");
        int64_t base = r->is_signed ? unzz(ub) : (int64_t)ub;
        int64_t d0 = unzz(ud);
        out[0] = base;
        if (n > 1) {
            out[1] = (int64_t)((uint64_t)base + (uint64_t)d0);
            if (w == 0) {
                for (int i = 2; i < n; i++) out[i] = (int64_t)((uint64_t)out[i - 1] + (uint64_t)d0);
            } else {
                size_t nb = packed_bytes(w, n - 2);
                if ((size_t)(end - q) < nb) return bad_run(r, "truncated DELTA run");
                floe_orc_unpack_be(q, w, n - 2, out + 2);
                q += nb;
                if (d0 >= 0) {
                    for (int i = 2; i < n; i++)
                        out[i] = (int64_t)((uint64_t)out[i - 1] + (uint64_t)out[i]);
                } else {
                    for (int i = 2; i < n; i++)
                        out[i] = (int64_t)((uint64_t)out[i - 1] - (uint64_t)out[i]);
                }
            }
        }
        r->buf_len = n;
        r->p = q;
    }
    r->buf_pos = 0;
    return NULL;
}

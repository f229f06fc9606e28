/*
 * rle.c — byte RLE, boolean RLE, integer RLE v1 and varints (see rle.h).
 */
#include "formats/orc/rle.h"

#include <string.h>

static floe_status ended(uint64_t consumed, const char *what) {
    return floe_error(FLOE_ERR_CORRUPT, "%s stream ends after %llu values", what,
                      (unsigned long long)consumed);
}

/* -------------------------------------------------------------- varints */

bool floe_orc_read_uvarint(const uint8_t **pp, const uint8_t *end, uint64_t *v) {
    const uint8_t *p = *pp;
    uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (p >= end) return false;
        uint8_t b = *p++;
        if (shift == 63 && b > 1) return false;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pp = p;
            *v = x;
            return true;
        }
    }
    return false;
}

bool floe_orc_read_varint128(const uint8_t **pp, const uint8_t *end, __int128 *v) {
    const uint8_t *p = *pp;
    unsigned __int128 x = 0;
    for (int shift = 0; shift < 133; shift += 7) {
        if (p >= end) return false;
        uint8_t b = *p++;
        if (shift >= 126 && (b & 0x7f) >> (128 - shift > 0 ? 128 - shift : 0)) return false;
        if (shift < 128) x |= (unsigned __int128)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pp = p;
            /* zigzag */
            unsigned __int128 mag = x >> 1;
            *v = (x & 1) ? -(__int128)mag - 1 : (__int128)mag;
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------ byte RLE */

void floe_orc_byte_rle_init(floe_orc_byte_rle *r, const uint8_t *data, size_t len) {
    r->p = data;
    r->end = data + len;
    r->run_left = 0;
    r->literal = false;
    r->run_value = 0;
    r->consumed = 0;
}

static floe_status byte_header(floe_orc_byte_rle *r) {
    if (r->p >= r->end) return ended(r->consumed, "byte RLE");
    int8_t h = (int8_t)*r->p++;
    if (h >= 0) {
        if (r->p >= r->end) return ended(r->consumed, "byte RLE");
        r->literal = false;
        r->run_left = h + 3;
        r->run_value = *r->p++;
    } else {
        r->literal = true;
        r->run_left = -h;
        if (r->end - r->p < r->run_left) return ended(r->consumed, "byte RLE");
    }
    return NULL;
}

floe_status floe_orc_byte_rle_read(floe_orc_byte_rle *r, uint8_t *out, size_t n) {
    while (n) {
        if (r->run_left == 0) FLOE_TRY(byte_header(r));
        size_t k = (size_t)r->run_left < n ? (size_t)r->run_left : n;
        if (r->literal) {
            if (out) memcpy(out, r->p, k);
            r->p += k;
        } else if (out) {
            memset(out, r->run_value, k);
        }
        if (out) out += k;
        r->run_left -= (int)k;
        r->consumed += k;
        n -= k;
    }
    return NULL;
}

floe_status floe_orc_byte_rle_skip(floe_orc_byte_rle *r, size_t n) {
    return floe_orc_byte_rle_read(r, NULL, n);
}

/* --------------------------------------------------------- boolean RLE */

static uint8_t rev8(uint8_t b) {
    b = (uint8_t)((b & 0xf0) >> 4 | (b & 0x0f) << 4);
    b = (uint8_t)((b & 0xcc) >> 2 | (b & 0x33) << 2);
    b = (uint8_t)((b & 0xaa) >> 1 | (b & 0x55) << 1);
    return b;
}

void floe_orc_bool_rle_init(floe_orc_bool_rle *r, const uint8_t *data, size_t len) {
    floe_orc_byte_rle_init(&r->bytes, data, len);
    r->cur = 0;
    r->bits_left = 0;
}

floe_status floe_orc_bool_rle_read(floe_orc_bool_rle *r, uint8_t *out, int64_t bit_off, size_t n) {
    /* finish the current byte bit by bit */
    while (n && r->bits_left) {
        bool v = (r->cur >> (r->bits_left - 1)) & 1;
        r->bits_left--;
        if (out) {
            if (v) out[bit_off >> 3] |= (uint8_t)(1u << (bit_off & 7));
            else out[bit_off >> 3] &= (uint8_t)~(1u << (bit_off & 7));
        }
        bit_off++;
        n--;
    }
    /* whole bytes: eight values each */
    uint8_t tmp[256];
    while (n >= 8) {
        size_t nb = n / 8 < sizeof tmp ? n / 8 : sizeof tmp;
        FLOE_TRY(floe_orc_byte_rle_read(&r->bytes, tmp, nb));
        if (out) {
            if ((bit_off & 7) == 0) {
                uint8_t *o = out + (bit_off >> 3);
                for (size_t i = 0; i < nb; i++) o[i] = rev8(tmp[i]);
            } else {
                int sh = (int)(bit_off & 7);
                uint8_t *o = out + (bit_off >> 3);
                for (size_t i = 0; i < nb; i++) {
                    uint8_t b = rev8(tmp[i]);
                    o[i] = (uint8_t)((o[i] & ((1u << sh) - 1)) | (uint8_t)(b << sh));
                    o[i + 1] = (uint8_t)((o[i + 1] & ~((1u << sh) - 1)) | (b >> (8 - sh)));
                }
            }
        }
        bit_off += (int64_t)nb * 8;
        n -= nb * 8;
    }
    if (n) {
        FLOE_TRY(floe_orc_byte_rle_read(&r->bytes, &r->cur, 1));
        r->bits_left = 8;
        return floe_orc_bool_rle_read(r, out, bit_off, n);
    }
    return NULL;
}

floe_status floe_orc_bool_rle_skip(floe_orc_bool_rle *r, size_t n) {
    size_t k = n < (size_t)r->bits_left ? n : (size_t)r->bits_left;
    r->bits_left -= (int)k;
    n -= k;
    if (n >= 8) {
        FLOE_TRY(floe_orc_byte_rle_skip(&r->bytes, n / 8));
        n %= 8;
    }
    if (n) {
        FLOE_TRY(floe_orc_byte_rle_read(&r->bytes, &r->cur, 1));
        r->bits_left = 8 - (int)n;
    }
    return NULL;
}

/* ------------------------------------------------------- integer RLE */

void floe_orc_int_rle_init(floe_orc_int_rle *r, const uint8_t *data, size_t len, bool v2,
                           bool is_signed) {
    r->p = data;
    r->end = data + len;
    r->v2 = v2;
    r->is_signed = is_signed;
    r->buf_len = r->buf_pos = 0;
    r->consumed = 0;
    r->target = r->buf;
}

floe_status floe_orc_rle_v1_next_run(floe_orc_int_rle *r) {
    if (r->p >= r->end) return ended(r->consumed, "integer RLE v1");
    int8_t h = (int8_t)*r->p++;
    if (h >= 0) {
        if (r->p >= r->end) return ended(r->consumed, "integer RLE v1");
        int8_t delta = (int8_t)*r->p++;
        uint64_t u;
        if (!floe_orc_read_uvarint(&r->p, r->end, &u))
            return floe_error(FLOE_ERR_CORRUPT, "integer RLE v1: bad varint after %llu values",
                              (unsigned long long)r->consumed);
        int64_t base = r->is_signed ? (int64_t)(u >> 1) ^ -(int64_t)(u & 1) : (int64_t)u;
        int n = h + 3;
        uint64_t v = (uint64_t)base;
        int64_t *t = r->target; /* in a local, so the loops do not reload it */
        if (delta == 0)
            for (int i = 0; i < n; i++) t[i] = base;
        else
            for (int i = 0; i < n; i++, v += (uint64_t)(int64_t)delta) t[i] = (int64_t)v;
        r->buf_len = n;
    } else {
        int n = -h;
        int64_t *t = r->target;
        const uint8_t *p = r->p, *end = r->end;
        for (int i = 0; i < n; i++) {
            uint64_t u;
            if (p < end && *p < 0x80) { /* one-byte varints: the common case */
                u = *p++;
            } else if (!floe_orc_read_uvarint(&p, end, &u)) {
                r->p = p;
                return floe_error(FLOE_ERR_CORRUPT,
                                  "integer RLE v1: bad or truncated varint after %llu values",
                                  (unsigned long long)r->consumed + (unsigned)i);
            }
            t[i] = r->is_signed ? (int64_t)(u >> 1) ^ -(int64_t)(u & 1) : (int64_t)u;
        }
        r->p = p;
        r->buf_len = n;
    }
    r->buf_pos = 0;
    return NULL;
}

floe_status floe_orc_int_rle_read(floe_orc_int_rle *r, int64_t *out, size_t n) {
    while (n) {
        if (r->buf_pos == r->buf_len) {
            if (r->p >= r->end)
                return ended(r->consumed, r->v2 ? "integer RLE v2" : "integer RLE v1");
            if (out && n >= FLOE_ORC_RLE_BUF) {
                /* a whole run fits the output: decode it there */
                r->target = out;
                floe_status st = r->v2 ? floe_orc_rle_v2_next_run(r) : floe_orc_rle_v1_next_run(r);
                r->target = r->buf;
                size_t k = st ? 0 : (size_t)r->buf_len;
                r->buf_len = r->buf_pos = 0;
                if (st) return st;
                out += k;
                r->consumed += k;
                n -= k;
                continue;
            }
            FLOE_TRY(r->v2 ? floe_orc_rle_v2_next_run(r) : floe_orc_rle_v1_next_run(r));
        }
        size_t k = (size_t)(r->buf_len - r->buf_pos);
        if (k > n) k = n;
        if (out) {
            memcpy(out, r->buf + r->buf_pos, k * sizeof *out);
            out += k;
        }
        r->buf_pos += (int)k;
        r->consumed += k;
        n -= k;
    }
    return NULL;
}

floe_status floe_orc_int_rle_skip(floe_orc_int_rle *r, size_t n) {
    return floe_orc_int_rle_read(r, NULL, n);
}

/*
 * encoding_plain.c — PLAIN values (decoding and encoding) and dictionary
 * gathers.
 *
 * PLAIN is the values back to back in little-endian: fixed-width types are
 * a memcpy, BOOLEAN is one bit per value (LSB first), BYTE_ARRAY is a 4-byte
 * length before each value.  Dictionary pages are PLAIN too; data pages then
 * carry indices into them, which pq_dict_gather_* resolve after checking
 * every index is in range.
 */
#include <stdbool.h>
#include <string.h>

#include "floe/memory.h"
#include "formats/parquet/encoding.h"

static uint64_t plain_off(const pq_plain *d) {
    return d->base + (uint64_t)(d->p - d->start);
}

void pq_plain_init(pq_plain *d, const uint8_t *data, size_t len, uint64_t base) {
    d->start = d->p = data;
    d->end = data + len;
    d->base = base;
    d->bit = 0;
}

static floe_status plain_short(const pq_plain *d, size_t n, size_t width) {
    return floe_error(FLOE_ERR_CORRUPT,
                      "PLAIN data too short: %zu values of %zu bytes need more than the %zu "
                      "bytes left at offset %llu",
                      n, width, (size_t)(d->end - d->p), (unsigned long long)plain_off(d));
}

floe_status pq_plain_fixed_view(pq_plain *d, size_t width, size_t n, const uint8_t **vals) {
    size_t avail = (size_t)(d->end - d->p);
    if (width && n > avail / width) return plain_short(d, n, width);
    *vals = d->p;
    d->p += n * width;
    return NULL;
}

floe_status pq_plain_fixed(pq_plain *d, size_t width, void *out, size_t n) {
    const uint8_t *src;
    FLOE_TRY(pq_plain_fixed_view(d, width, n, &src));
    if (n) memcpy(out, src, n * width);
    return NULL;
}

floe_status pq_plain_bool(pq_plain *d, uint8_t *out, size_t n) {
    uint64_t avail_bits = (uint64_t)(d->end - d->p) * 8;
    if (d->bit + n > avail_bits) return plain_short(d, n, 0);
    uint64_t b = d->bit;
    const uint8_t *p = d->p;
    size_t i = 0;
    /* Whole bytes at a time once aligned. */
    for (; i < n && (b & 7); i++, b++) out[i] = (p[b >> 3] >> (b & 7)) & 1;
    for (; i + 8 <= n; i += 8, b += 8) {
        uint8_t byte = p[b >> 3];
        for (int k = 0; k < 8; k++) out[i + k] = (byte >> k) & 1;
    }
    for (; i < n; i++, b++) out[i] = (p[b >> 3] >> (b & 7)) & 1;
    d->p += b >> 3;
    d->bit = b & 7;
    return NULL;
}

floe_status pq_plain_binary(pq_plain *d, int32_t *offsets, floe_buf *data, size_t n) {
    /* First pass: validate lengths and find the total so the data buffer
     * grows once. */
    const uint8_t *p = d->p;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t len;
        if ((size_t)(d->end - p) < 4)
            return floe_error(FLOE_ERR_CORRUPT, "PLAIN BYTE_ARRAY length truncated at offset %llu",
                              (unsigned long long)(d->base + (uint64_t)(p - d->start)));
        memcpy(&len, p, 4);
        p += 4;
        if (len > (size_t)(d->end - p))
            return floe_error(FLOE_ERR_CORRUPT,
                              "PLAIN BYTE_ARRAY value of %u bytes overruns the page at offset %llu",
                              len, (unsigned long long)(d->base + (uint64_t)(p - 4 - d->start)));
        p += len;
        total += len;
    }
    if ((uint64_t)offsets[0] + total > INT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "more than 2 GiB of BYTE_ARRAY data in one batch");
    FLOE_TRY(floe_buf_reserve(data, (size_t)total));
    uint8_t *dst = data->data + data->len;
    p = d->p;
    int32_t off = offsets[0];
    for (size_t i = 0; i < n; i++) {
        uint32_t len;
        memcpy(&len, p, 4);
        p += 4;
        memcpy(dst, p, len);
        dst += len;
        p += len;
        off += (int32_t)len;
        offsets[i + 1] = off;
    }
    data->len += (size_t)total;
    data->data[data->len] = 0;
    d->p = p;
    return NULL;
}

floe_status pq_plain_skip(pq_plain *d, size_t width, size_t n) {
    if (width) {
        const uint8_t *v;
        return pq_plain_fixed_view(d, width, n, &v);
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t len;
        if ((size_t)(d->end - d->p) < 4) return plain_short(d, n - i, 4);
        memcpy(&len, d->p, 4);
        if (len > (size_t)(d->end - d->p) - 4) return plain_short(d, n - i, 4);
        d->p += 4 + (size_t)len;
    }
    return NULL;
}

floe_status pq_plain_encode_binary(floe_buf *out, const int32_t *offsets, const uint8_t *data,
                                   size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t len = (uint32_t)(offsets[i + 1] - offsets[i]);
        FLOE_TRY(floe_buf_append(out, &len, 4));
        FLOE_TRY(floe_buf_append(out, data + offsets[i], len));
    }
    return NULL;
}

floe_status pq_plain_encode_bool(floe_buf *out, const uint8_t *v, size_t n) {
    uint8_t *dst = floe_buf_extend(out, (n + 7) / 8);
    if (!dst) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory encoding booleans");
    memset(dst, 0, (n + 7) / 8);
    for (size_t i = 0; i < n; i++)
        if (v[i]) dst[i >> 3] |= (uint8_t)(1u << (i & 7));
    return NULL;
}

/* ---- dictionary ---- */

static floe_status bad_index(const uint32_t *idx, size_t n, uint32_t dict_len, uint64_t base) {
    for (size_t i = 0; i < n; i++)
        if (idx[i] >= dict_len)
            return floe_error(FLOE_ERR_CORRUPT,
                              "dictionary index %u out of range (dictionary has %u entries) in "
                              "page at offset %llu",
                              idx[i], dict_len, (unsigned long long)base);
    return NULL;
}

floe_status pq_dict_gather_fixed(const uint8_t *dict, uint32_t dict_len, size_t width,
                                 const uint32_t *idx, size_t n, void *out, uint64_t base) {
    uint32_t bad = 0;
    for (size_t i = 0; i < n; i++) bad |= idx[i] >= dict_len;
    if (bad) return bad_index(idx, n, dict_len, base);
    pq_dict_gather_fixed_checked(dict, width, idx, n, out);
    return NULL;
}

void pq_dict_gather_fixed_checked(const uint8_t *dict, size_t width, const uint32_t *idx,
                                  size_t n, void *out) {
    /* Specialised widths keep the common cases a single load and store,
     * four to a loop trip (-O2 does not unroll). */
    size_t i = 0;
    switch (width) {
    case 4: {
        const uint32_t *d = (const uint32_t *)(const void *)dict;
        uint32_t *o = out;
        for (; i + 4 <= n; i += 4) {
            memcpy(&o[i], &d[idx[i]], 4);
            memcpy(&o[i + 1], &d[idx[i + 1]], 4);
            memcpy(&o[i + 2], &d[idx[i + 2]], 4);
            memcpy(&o[i + 3], &d[idx[i + 3]], 4);
        }
        for (; i < n; i++) memcpy(&o[i], &d[idx[i]], 4);
        break;
    }
    case 8: {
        const uint64_t *d = (const uint64_t *)(const void *)dict;
        uint64_t *o = out;
        for (; i + 4 <= n; i += 4) {
            memcpy(&o[i], &d[idx[i]], 8);
            memcpy(&o[i + 1], &d[idx[i + 1]], 8);
            memcpy(&o[i + 2], &d[idx[i + 2]], 8);
            memcpy(&o[i + 3], &d[idx[i + 3]], 8);
        }
        for (; i < n; i++) memcpy(&o[i], &d[idx[i]], 8);
        break;
    }
    case 16: {
        uint8_t *o = out;
        for (; i + 4 <= n; i += 4) {
            memcpy(o + i * 16, dict + (size_t)idx[i] * 16, 16);
            memcpy(o + i * 16 + 16, dict + (size_t)idx[i + 1] * 16, 16);
            memcpy(o + i * 16 + 32, dict + (size_t)idx[i + 2] * 16, 16);
            memcpy(o + i * 16 + 48, dict + (size_t)idx[i + 3] * 16, 16);
        }
        for (; i < n; i++) memcpy(o + i * 16, dict + (size_t)idx[i] * 16, 16);
        break;
    }
    default: {
        uint8_t *o = out;
        for (; i < n; i++)
            memcpy(o + i * width, dict + (size_t)idx[i] * width, width);
    }
    }
}

static void gather_binary(const int32_t *dict_offsets, const uint8_t *dict_data,
                          const uint32_t *idx, size_t n, int32_t *offsets, floe_buf *data);

floe_status pq_dict_gather_binary(const int32_t *dict_offsets, const uint8_t *dict_data,
                                  uint32_t dict_len, const uint32_t *idx, size_t n,
                                  int32_t *offsets, floe_buf *data, uint64_t base) {
    uint32_t bad = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) bad |= idx[i] >= dict_len;
    if (bad) return bad_index(idx, n, dict_len, base);
    for (size_t i = 0; i < n; i++)
        total += (uint64_t)(dict_offsets[idx[i] + 1] - dict_offsets[idx[i]]);
    if ((uint64_t)offsets[0] + total > INT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "more than 2 GiB of BYTE_ARRAY data in one batch");
    FLOE_TRY(floe_buf_reserve(data, (size_t)total + PQ_GATHER_SLACK));
    gather_binary(dict_offsets, dict_data, idx, n, offsets, data);
    return NULL;
}

/* The copy loop; data has room for every value plus PQ_GATHER_SLACK. */
static void gather_binary(const int32_t *dict_offsets, const uint8_t *dict_data,
                          const uint32_t *idx, size_t n, int32_t *offsets, floe_buf *data) {
    uint8_t *dst = data->data + data->len;
    int32_t off = offsets[0];
    for (size_t i = 0; i < n; i++) {
        int32_t s = dict_offsets[idx[i]], len = dict_offsets[idx[i] + 1] - s;
        if (len <= PQ_GATHER_SLACK) /* short: one fixed move, inlined */
            memcpy(dst, dict_data + s, PQ_GATHER_SLACK);
        else
            memcpy(dst, dict_data + s, (size_t)len);
        dst += len;
        off += len;
        offsets[i + 1] = off;
    }
    data->len += (size_t)(off - offsets[0]);
    data->data[data->len] = 0;
}

floe_status pq_dict_gather_binary_checked(const int32_t *dict_offsets, const uint8_t *dict_data,
                                          uint32_t dict_len, uint32_t max_len,
                                          const uint32_t *idx, size_t n, int32_t *offsets,
                                          floe_buf *data, uint64_t base) {
    /* When room for n of the longest entry is cheap (or already there),
     * skip the pass that sums the exact length. */
    uint64_t bound = (uint64_t)n * max_len;
    if ((uint64_t)offsets[0] + bound <= INT32_MAX &&
        (bound <= (1u << 20) || bound + PQ_GATHER_SLACK < data->cap - data->len)) {
        FLOE_TRY(floe_buf_reserve(data, (size_t)bound + PQ_GATHER_SLACK));
        gather_binary(dict_offsets, dict_data, idx, n, offsets, data);
        return NULL;
    }
    return pq_dict_gather_binary(dict_offsets, dict_data, dict_len, idx, n, offsets, data, base);
}

/* ---- UTF-8 ---- */

/* Length of the valid UTF-8 sequence at s[0..n), 0 if invalid (overlong
 * forms, surrogates and code points above U+10FFFF are invalid). */
static size_t utf8_seq(const uint8_t *s, size_t n) {
    uint8_t c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0xC2) return 0; /* continuation byte or overlong 2-byte lead */
    if (c < 0xE0) len = 2, cp = c & 0x1F;
    else if (c < 0xF0) len = 3, cp = c & 0x0F;
    else if (c <= 0xF4) len = 4, cp = c & 0x07;
    else return 0;
    if (len > n) return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[k] & 0x3F);
    }
    if (len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return 0;
    if (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) return 0;
    return len;
}

static bool utf8_valid(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!(w & 0x8080808080808080ull)) { /* eight ASCII bytes */
                i += 8;
                continue;
            }
        }
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t l = utf8_seq(s + i, n - i);
        if (!l) return false;
        i += l;
    }
    return true;
}

size_t pq_utf8_check(const int32_t *offsets, const uint8_t *data, size_t n) {
    /* Fast path: the whole run is ASCII. */
    size_t total = (size_t)(offsets[n] - offsets[0]);
    if (total == 0) return n; /* all empty (data may even be NULL) */
    const uint8_t *p = data + offsets[0];
    uint64_t acc = 0, acc2 = 0;
    size_t i = 0;
    for (; i + 32 <= total; i += 32) { /* two chains, 32 bytes a trip */
        uint64_t w[4];
        memcpy(w, p + i, 32);
        acc |= w[0] | w[1];
        acc2 |= w[2] | w[3];
    }
    acc |= acc2;
    for (; i + 8 <= total; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        acc |= w;
    }
    for (; i < total; i++) acc |= p[i];
    if (!(acc & 0x8080808080808080ull)) return n;
    for (size_t v = 0; v < n; v++)
        if (!utf8_valid(data + offsets[v], (size_t)(offsets[v + 1] - offsets[v]))) return v;
    return n;
}

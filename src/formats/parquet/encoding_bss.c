/*
 * encoding_bss.c — BYTE_STREAM_SPLIT.
 *
 * A page of `count` values of `width` bytes is stored as `width` streams of
 * `count` bytes: stream k holds byte k of every value.  Defined for FLOAT and
 * DOUBLE originally, and since parquet-format 2.11 for INT32, INT64 and
 * FIXED_LEN_BYTE_ARRAY too; decoding is the same transpose for all.
 */
#include <string.h>

#include "formats/parquet/encoding.h"

floe_status pq_bss_decode(const uint8_t *data, size_t len, size_t width, uint64_t count,
                          uint64_t first, size_t n, void *out, uint64_t base) {
    if (width == 0 || count > len / width)
        return floe_error(FLOE_ERR_CORRUPT,
                          "BYTE_STREAM_SPLIT data of %zu bytes cannot hold %llu values of %zu "
                          "bytes at offset %llu",
                          len, (unsigned long long)count, width, (unsigned long long)base);
    if (first > count || n > count - first)
        return floe_error(FLOE_ERR_CORRUPT,
                          "BYTE_STREAM_SPLIT page at offset %llu holds only %llu values",
                          (unsigned long long)base, (unsigned long long)count);
    uint8_t *o = out;
    const uint8_t *s = data + first;
    size_t stride = (size_t)count;
    if (width == 4) {
        for (size_t i = 0; i < n; i++) {
            o[4 * i + 0] = s[i];
            o[4 * i + 1] = s[stride + i];
            o[4 * i + 2] = s[2 * stride + i];
            o[4 * i + 3] = s[3 * stride + i];
        }
    } else if (width == 8) {
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < 8; k++) o[8 * i + k] = s[k * stride + i];
    } else {
        for (size_t k = 0; k < width; k++) {
            const uint8_t *sk = s + k * stride;
            for (size_t i = 0; i < n; i++) o[i * width + k] = sk[i];
        }
    }
    return NULL;
}

floe_status pq_bss_encode(floe_buf *out, const void *v, size_t width, size_t n) {
    uint8_t *dst = floe_buf_extend(out, n * width);
    if (!dst) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory encoding BYTE_STREAM_SPLIT");
    const uint8_t *src = v;
    for (size_t k = 0; k < width; k++)
        for (size_t i = 0; i < n; i++) dst[k * n + i] = src[i * width + k];
    return NULL;
}

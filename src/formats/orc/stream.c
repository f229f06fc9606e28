/*
 * stream.c — ORC's chunked compression framing (see stream.h).
 */
#include "formats/orc/stream.h"

#include <string.h>

#include "base/buffer.h"
#include "floe/memory.h"
#include "formats/compress.h"
#include "formats/orc/orc_meta.h"

#define PAD 16

floe_status floe_orc_decompress(int compression, uint64_t block_size, const uint8_t *src,
                                size_t len, uint8_t **out, size_t *out_len) {
    return floe_orc_decompress_mapped(compression, block_size, src, len, out, out_len, NULL, NULL);
}

floe_status floe_orc_decompress_mapped(int compression, uint64_t block_size, const uint8_t *src,
                                       size_t len, uint8_t **out, size_t *out_len,
                                       floe_orc_chunk **chunks, size_t *num_chunks) {
    *out = NULL;
    *out_len = 0;
    if (chunks) {
        *chunks = NULL;
        *num_chunks = 0;
    }
    floe_codec codec;
    switch (compression) {
    case FLOE_ORC_COMP_NONE: {
        uint8_t *b = floe_malloc(len + PAD);
        if (!b) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory (%zu bytes)", len);
        if (len) memcpy(b, src, len);
        memset(b + len, 0, PAD);
        *out = b;
        *out_len = len;
        return NULL;
    }
    case FLOE_ORC_COMP_ZLIB: codec = FLOE_CODEC_DEFLATE; break;
    case FLOE_ORC_COMP_SNAPPY: codec = FLOE_CODEC_SNAPPY; break;
    case FLOE_ORC_COMP_LZ4: codec = FLOE_CODEC_LZ4_RAW; break;
    case FLOE_ORC_COMP_ZSTD: codec = FLOE_CODEC_ZSTD; break;
    case FLOE_ORC_COMP_LZO:
        return floe_error(FLOE_ERR_UNSUPPORTED,
                          "LZO compression is not supported (no LZO decoder is available)");
    default:
        return floe_error(FLOE_ERR_CORRUPT, "unknown compression kind %d", compression);
    }
    floe_buf b = FLOE_BUF_INIT;
    size_t pos = 0, cap = 0;
    floe_status st = NULL;
    while (pos < len) {
        if (chunks) {
            if (*num_chunks == cap) {
                cap = cap ? cap * 2 : 16;
                floe_orc_chunk *v = floe_realloc(*chunks, cap * sizeof *v);
                if (!v) {
                    st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
                    break;
                }
                *chunks = v;
            }
            (*chunks)[*num_chunks].compressed = pos;
            (*chunks)[(*num_chunks)++].decompressed = b.len;
        }
        if (len - pos < 3) {
            st = floe_error(FLOE_ERR_CORRUPT, "truncated compression chunk header at offset %zu", pos);
            break;
        }
        uint32_t h = (uint32_t)src[pos] | (uint32_t)src[pos + 1] << 8 | (uint32_t)src[pos + 2] << 16;
        size_t clen = h >> 1;
        bool original = h & 1;
        if (clen > len - pos - 3) {
            st = floe_error(FLOE_ERR_CORRUPT,
                            "compression chunk at offset %zu is %zu bytes, past the end (%zu)", pos,
                            clen, len);
            break;
        }
        const uint8_t *c = src + pos + 3;
        size_t before = b.len;
        if (original) {
            st = floe_buf_append(&b, c, clen);
        } else {
            st = floe_decompress_grow(codec, c, clen, &b);
            if (st)
                st = floe_status_wrap(st, "%s chunk at offset %zu",
                                      floe_orc_compression_name(compression), pos);
        }
        if (st) break;
        if (block_size && b.len - before > block_size) {
            st = floe_error(FLOE_ERR_CORRUPT,
                            "compression chunk at offset %zu expands to %zu bytes, more than the "
                            "block size %llu",
                            pos, b.len - before, (unsigned long long)block_size);
            break;
        }
        pos += 3 + clen;
    }
    if (!st && chunks) { /* a sentinel: the stream's end */
        floe_orc_chunk *v = floe_realloc(*chunks, (*num_chunks + 1) * sizeof *v);
        if (!v) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        else {
            *chunks = v;
            v[*num_chunks].compressed = len;
            v[(*num_chunks)++].decompressed = b.len;
        }
    }
    if (!st) st = floe_buf_reserve(&b, PAD);
    if (st) {
        floe_buf_free(&b);
        if (chunks) {
            floe_free(*chunks);
            *chunks = NULL;
            *num_chunks = 0;
        }
        return st;
    }
    memset(b.data + b.len, 0, PAD);
    *out_len = b.len;
    *out = floe_buf_detach(&b, NULL);
    if (!*out) {
        /* empty stream: hand back a padded zero buffer */
        *out = floe_calloc(1, PAD);
        if (!*out) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    return NULL;
}

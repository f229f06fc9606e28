/*
 * compress.h — the block codecs Parquet and Avro use, behind one interface.
 *
 * Decompression is given the exact uncompressed size when the format records
 * it (Parquet pages do), and otherwise grows its output (Avro deflate blocks).
 * Every failure is a FLOE_ERR_CORRUPT status naming the codec; callers add
 * the file and offset with floe_status_wrap().
 */
#ifndef FLOE_FORMATS_COMPRESS_H
#define FLOE_FORMATS_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "floe/status.h"
#include "base/buffer.h"

typedef enum floe_codec {
    FLOE_CODEC_NONE = 0,
    FLOE_CODEC_SNAPPY,      /* raw snappy block (Parquet); Avro adds a CRC   */
    FLOE_CODEC_GZIP,        /* gzip, concatenated members accepted           */
    FLOE_CODEC_DEFLATE,     /* raw deflate, RFC 1951 (Avro "deflate")        */
    FLOE_CODEC_ZSTD,        /* zstd frames, concatenated frames accepted      */
    FLOE_CODEC_LZ4_HADOOP,  /* Parquet "LZ4": Hadoop framing, or raw fallback */
    FLOE_CODEC_LZ4_RAW,     /* Parquet LZ4_RAW: one raw LZ4 block            */
    FLOE_CODEC_BROTLI
} floe_codec;

const char *floe_codec_name(floe_codec c);

/* Decompress `src` into `dst` (dst_cap bytes, which must equal the expected
 * uncompressed size exactly when it is known: a different size is corrupt). */
floe_status floe_decompress_exact(floe_codec c, const uint8_t *src, size_t src_len,
                                  uint8_t *dst, size_t dst_len) FLOE_WARN_UNUSED;

/* Decompress when the uncompressed size is not known; appends to `out`. */
floe_status floe_decompress_grow(floe_codec c, const uint8_t *src, size_t src_len,
                                 floe_buf *out) FLOE_WARN_UNUSED;

/* Upper bound of the compressed size of n input bytes. */
size_t floe_compress_bound(floe_codec c, size_t n);

/* Compress `src` and append it to `out`.  level: codec-specific, 0 = default. */
floe_status floe_compress(floe_codec c, int level, const uint8_t *src, size_t src_len,
                          floe_buf *out) FLOE_WARN_UNUSED;

#endif

/*
 * stream.h — an ORC stream's bytes, decompressed.
 *
 * With a codec every ORC stream (and the footer and metadata) is a
 * sequence of chunks, each behind a 3-byte little-endian header holding
 * (length << 1 | original): original chunks are stored as they are, the
 * others are one independent block of the codec (ZLIB = raw deflate,
 * SNAPPY, LZ4 = one raw LZ4 block, ZSTD = a zstd frame) that expands to at
 * most the compression block size.  Without a codec the stream is its own
 * bytes.  LZO has no decoder on this platform: FLOE_ERR_UNSUPPORTED naming
 * LZO.
 *
 * floe decompresses a whole stream at once: decoders then run over one
 * contiguous buffer with no chunk-boundary checks in their loops.  The
 * chunk map can be kept so row-index positions (a chunk's compressed
 * start plus an offset in its decompressed bytes) become offsets in that
 * buffer.
 */
#ifndef FLOE_FORMATS_ORC_STREAM_H
#define FLOE_FORMATS_ORC_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/status.h"

/* Expand `src` (a stream, footer or metadata section) into *out (malloc'd
 * via floe_malloc, NUL-padded by 8 bytes so decoders may over-read), its
 * length in *out_len.  compression is a floe_orc_compression; block_size
 * bounds each chunk's expansion (0 = no bound).  Errors are CORRUPT or
 * UNSUPPORTED and name the chunk's offset within the stream. */
floe_status floe_orc_decompress(int compression, uint64_t block_size, const uint8_t *src,
                                size_t len, uint8_t **out, size_t *out_len) FLOE_WARN_UNUSED;

/* Where each compression chunk starts: in the stream's compressed bytes
 * (the first number of a row-index position) and in its decompressed
 * bytes.  Row-index positions name a chunk by its compressed start. */
typedef struct floe_orc_chunk {
    uint64_t compressed;
    uint64_t decompressed;
} floe_orc_chunk;

/* floe_orc_decompress, also handing back the chunk map (floe_malloc'd; NULL
 * with *num_chunks 0 without compression, when offsets are the same),
 * ending with a sentinel entry for the stream's end. */
floe_status floe_orc_decompress_mapped(int compression, uint64_t block_size, const uint8_t *src,
                                       size_t len, uint8_t **out, size_t *out_len,
                                       floe_orc_chunk **chunks, size_t *num_chunks) FLOE_WARN_UNUSED;

#endif

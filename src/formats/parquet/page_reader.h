/*
 * page_reader.h — walks the pages of one Parquet column chunk.
 *
 * The caller has the chunk's bytes in memory (the reader fetches whole
 * chunks with coalesced reads).  Each call to pq_page_next() decodes one
 * PageHeader, checks its CRC when present, decompresses the body and splits
 * it into its sections, so the column reader sees the same shape for data
 * page v1 and v2:
 *
 *   rep levels | def levels | values
 *
 * For v1 the levels live inside the compressed body (RLE with a 4-byte length
 * prefix, or legacy BIT_PACKED) and are located here using the column's max
 * levels; for v2 they are stored uncompressed before the (maybe compressed)
 * values.  Index pages are skipped.  The sections point into the chunk or
 * into the reader's scratch buffer and stay valid until the next call.
 */
#ifndef FLOE_FORMATS_PARQUET_PAGE_READER_H
#define FLOE_FORMATS_PARQUET_PAGE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/status.h"
#include "formats/compress.h"
#include "formats/parquet/parquet_meta.h"

/* Largest uncompressed page accepted: the format's own int32 limit (the
 * Arrow-written large_string_map test file has 1 GiB pages). */
#define PQ_MAX_PAGE_BYTES 0x7fffffffu

typedef struct pq_page {
    int32_t type;             /* FLOE_PQ_PAGE_DATA, _DATA_V2 or _DICTIONARY */
    uint64_t offset;          /* file offset of the page header */
    int32_t num_values;       /* level entries (data) or dictionary entries */
    int32_t num_nulls;        /* v2 only; -1 when unknown */
    int32_t encoding;         /* values encoding */
    int32_t def_encoding;     /* v1: FLOE_PQ_ENC_RLE or _BIT_PACKED; v2: RLE */
    int32_t rep_encoding;
    bool v2_levels;           /* levels without the 4-byte length prefix */
    const uint8_t *rep, *def, *values;
    size_t rep_len, def_len, values_len;
    uint64_t values_offset;   /* for messages: file offset of the page body */
} pq_page;

typedef struct pq_page_reader {
    const uint8_t *chunk;     /* the column chunk's bytes */
    size_t len, pos;
    uint64_t origin;          /* file offset of chunk[0] */
    floe_codec codec;
    int16_t max_def, max_rep;
    bool verify_crc;
    const char *column;       /* dotted path, for messages */
    int64_t values_left;      /* from the column metadata: stop when 0 */
    floe_buf scratch;         /* decompressed page body */
} pq_page_reader;

/* Map a Parquet codec number to floe's (LZO and unknown ones fail). */
floe_status pq_codec_from_parquet(int32_t pq_codec, floe_codec *out) FLOE_WARN_UNUSED;

void pq_page_reader_init(pq_page_reader *r, const uint8_t *chunk, size_t len, uint64_t origin,
                         floe_codec codec, int16_t max_def, int16_t max_rep, int64_t num_values,
                         const char *column);
void pq_page_reader_free(pq_page_reader *r);

/* The next dictionary or data page; *eof set (and page untouched) when the
 * chunk has no more pages. */
floe_status pq_page_next(pq_page_reader *r, pq_page *page, bool *eof) FLOE_WARN_UNUSED;

#endif

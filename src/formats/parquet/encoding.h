/*
 * encoding.h — Parquet's value and level encodings, decoders and encoders.
 *
 * These are the innermost loops of every scan, so they work on whole runs
 * of values at a time into caller-provided arrays and never allocate per
 * value.  They know nothing about files, pages or schemas: the caller hands
 * them a byte range and, for messages, the file offset that range starts at,
 * so an error can say "at offset N" in file terms.  Every decoder checks its
 * input bounds; malformed bytes give FLOE_ERR_CORRUPT, never a read out of
 * bounds.
 *
 * Encodings (parquet-format Encodings.md):
 *   PLAIN                    pq_plain_*
 *   RLE / bit-packed hybrid  pq_rle_*        (levels, dictionary indices, booleans)
 *   BIT_PACKED (legacy)      pq_bitpacked_legacy_decode  (MSB-first levels)
 *   PLAIN/RLE_DICTIONARY     pq_rle_* for the indices + pq_dict_gather_*
 *   DELTA_BINARY_PACKED      pq_delta_*
 *   DELTA_LENGTH_BYTE_ARRAY  pq_dlba_*
 *   DELTA_BYTE_ARRAY         pq_dba_*
 *   BYTE_STREAM_SPLIT        pq_bss_decode
 *
 * Byte arrays are produced Arrow-style: `offsets` (int32, one more than the
 * values; offsets[0] is where the first value starts and must already be
 * set) plus a data buffer the bytes are appended to.
 *
 * floe assumes a little-endian host (as Parquet's byte order), checked below.
 */
#ifndef FLOE_FORMATS_PARQUET_ENCODING_H
#define FLOE_FORMATS_PARQUET_ENCODING_H

#include <stddef.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/status.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "floe's Parquet codecs assume a little-endian host"
#endif

/* ---- bit unpacking (LSB-first, as the hybrid and delta encodings use) ---- */

/* Unpack `n` values of `bw` bits (0..32) starting at bit `first` of `in`
 * (`in_len` bytes) into out[0..n).  The caller guarantees the bits exist:
 * (first + n) * bw <= in_len * 8. */
void pq_unpack32(const uint8_t *in, size_t in_len, uint64_t first, int bw, uint32_t *out,
                 size_t n);
/* The same for widths 0..64 (DELTA_BINARY_PACKED miniblocks). */
void pq_unpack64(const uint8_t *in, size_t in_len, uint64_t first, int bw, uint64_t *out,
                 size_t n);
/* Pack n values of bw bits (0..64) LSB-first, appending ceil(n*bw/8) bytes. */
floe_status pq_pack64(floe_buf *out, const uint64_t *v, size_t n, int bw) FLOE_WARN_UNUSED;

/* Bits needed for v (0 for 0). */
int pq_bit_width(uint64_t v);

/* ---- unsigned LEB128 varints and zigzag ---- */

/* Read a ULEB128 varint of at most 10 bytes from [*p, end); advances *p.
 * Returns 0 on success, -1 when truncated or too long. */
int pq_read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v);
floe_status pq_write_uleb(floe_buf *out, uint64_t v) FLOE_WARN_UNUSED;
static inline int64_t pq_zigzag_decode(uint64_t v) {
    return (int64_t)((v >> 1) ^ (~(v & 1) + 1));
}
static inline uint64_t pq_zigzag_encode(int64_t v) {
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* ---- RLE / bit-packed hybrid ---- */

typedef struct pq_rle {
    const uint8_t *start;    /* first byte of the encoded runs */
    const uint8_t *p;        /* next run header */
    const uint8_t *end;
    uint64_t base;           /* file offset of `start`, for messages */
    int bw;                  /* bit width 0..32 */
    uint64_t rle_left;       /* values left in the current RLE run */
    uint32_t rle_value;
    uint64_t bp_left;        /* values left in the current bit-packed run */
    uint64_t bp_next;        /* index of the next value in that run */
    const uint8_t *bp_data;  /* the run's packed bytes */
    size_t bp_len;
} pq_rle;

/* Start decoding runs of `bw`-bit values (no length prefix) in data[0..len). */
floe_status pq_rle_init(pq_rle *d, const uint8_t *data, size_t len, int bw,
                        uint64_t base) FLOE_WARN_UNUSED;
/* Decode exactly n values; running out of runs is corrupt. */
floe_status pq_rle_get_u32(pq_rle *d, uint32_t *out, size_t n) FLOE_WARN_UNUSED;
floe_status pq_rle_get_u16(pq_rle *d, uint16_t *out, size_t n) FLOE_WARN_UNUSED;
floe_status pq_rle_get_i16(pq_rle *d, int16_t *out, size_t n) FLOE_WARN_UNUSED;
/* Booleans (bw must be 1) as one byte 0/1 per value. */
floe_status pq_rle_get_u8(pq_rle *d, uint8_t *out, size_t n) FLOE_WARN_UNUSED;
/* Decode n values that must each be < limit (dictionary indices, levels
 * whose maximum is known); a larger one is corrupt. */
floe_status pq_rle_get_u32_max(pq_rle *d, uint32_t *out, size_t n,
                               uint32_t limit) FLOE_WARN_UNUSED;
floe_status pq_rle_get_i16_max(pq_rle *d, int16_t *out, size_t n,
                               int16_t max_level) FLOE_WARN_UNUSED;

/* Hybrid runs prefixed by a 4-byte little-endian length (v1 page levels,
 * RLE booleans): checks the length, starts the decoder on the runs and
 * returns in *used how many bytes (4 + length) the levels took. */
floe_status pq_rle_init_prefixed(pq_rle *d, const uint8_t *data, size_t len, int bw,
                                 uint64_t base, size_t *used) FLOE_WARN_UNUSED;

/* Legacy BIT_PACKED levels: n values of bw bits packed MSB-first with no
 * runs; *used receives ceil(n*bw/8). */
floe_status pq_bitpacked_legacy_decode(const uint8_t *data, size_t len, int bw, uint64_t base,
                                       int16_t *out, size_t n, size_t *used) FLOE_WARN_UNUSED;

/* Encoder: appends the hybrid encoding of v[0..n) with width bw (no length
 * prefix).  Repeats of >= 8 become RLE runs, the rest bit-packed runs. */
floe_status pq_rle_encode(floe_buf *out, const uint32_t *v, size_t n, int bw) FLOE_WARN_UNUSED;

/* ---- PLAIN ---- */

/* A forward cursor over PLAIN values. */
typedef struct pq_plain {
    const uint8_t *start, *p, *end;
    uint64_t base;
    uint64_t bit;            /* BOOLEAN: next bit index from p */
} pq_plain;

void pq_plain_init(pq_plain *d, const uint8_t *data, size_t len, uint64_t base);
/* n fixed-width values of `width` bytes (INT32 4, INT64 8, INT96 12,
 * FLOAT 4, DOUBLE 8, FIXED_LEN_BYTE_ARRAY type_length) copied to out. */
floe_status pq_plain_fixed(pq_plain *d, size_t width, void *out, size_t n) FLOE_WARN_UNUSED;
/* Pointer to n fixed-width values in place (no copy), advancing the cursor. */
floe_status pq_plain_fixed_view(pq_plain *d, size_t width, size_t n,
                                const uint8_t **vals) FLOE_WARN_UNUSED;
/* BOOLEAN: one bit per value, LSB first; out gets 0/1 bytes. */
floe_status pq_plain_bool(pq_plain *d, uint8_t *out, size_t n) FLOE_WARN_UNUSED;
/* BYTE_ARRAY: 4-byte length then bytes, per value. */
floe_status pq_plain_binary(pq_plain *d, int32_t *offsets, floe_buf *data,
                            size_t n) FLOE_WARN_UNUSED;
/* Skip n values (BYTE_ARRAY when width == 0). */
floe_status pq_plain_skip(pq_plain *d, size_t width, size_t n) FLOE_WARN_UNUSED;

/* PLAIN encoders. */
floe_status pq_plain_encode_binary(floe_buf *out, const int32_t *offsets, const uint8_t *data,
                                   size_t n) FLOE_WARN_UNUSED;
floe_status pq_plain_encode_bool(floe_buf *out, const uint8_t *v, size_t n) FLOE_WARN_UNUSED;

/* Check n byte-array values (Arrow offsets/data) are valid UTF-8; returns
 * the index of the first bad value, or n when all are valid. */
size_t pq_utf8_check(const int32_t *offsets, const uint8_t *data, size_t n);

/* ---- dictionary ---- */

/* out[i] = dict[idx[i]] for fixed-width values of `width` bytes; every
 * index must be < dict_len (checked; corrupt otherwise, naming `base`). */
floe_status pq_dict_gather_fixed(const uint8_t *dict, uint32_t dict_len, size_t width,
                                 const uint32_t *idx, size_t n, void *out,
                                 uint64_t base) FLOE_WARN_UNUSED;
/* The binary gather copies values of up to PQ_GATHER_SLACK bytes with one
 * fixed-size move, so dict_data must have that many readable bytes after its
 * last value (floe_buf_reserve them). */
#define PQ_GATHER_SLACK 16
floe_status pq_dict_gather_binary(const int32_t *dict_offsets, const uint8_t *dict_data,
                                  uint32_t dict_len, const uint32_t *idx, size_t n,
                                  int32_t *offsets, floe_buf *data,
                                  uint64_t base) FLOE_WARN_UNUSED;
/* The same two for indices the caller has already checked against the
 * dictionary size (pq_rle_get_u32_max): the gather is all that is left.
 * max_len is the longest dictionary entry; it lets the binary gather size
 * its output without first summing the lengths. */
void pq_dict_gather_fixed_checked(const uint8_t *dict, size_t width, const uint32_t *idx,
                                  size_t n, void *out);
floe_status pq_dict_gather_binary_checked(const int32_t *dict_offsets, const uint8_t *dict_data,
                                          uint32_t dict_len, uint32_t max_len,
                                          const uint32_t *idx, size_t n, int32_t *offsets,
                                          floe_buf *data, uint64_t base) FLOE_WARN_UNUSED;

/* ---- DELTA_BINARY_PACKED ---- */

typedef struct pq_delta {
    const uint8_t *start, *p, *end;
    uint64_t base;
    uint64_t block_size, miniblocks, per_mb;  /* per_mb = values per miniblock */
    uint64_t total;          /* values in the stream (header) */
    uint64_t emitted;        /* values handed out so far */
    uint64_t last;           /* previous value (wrapping arithmetic) */
    uint64_t min_delta;
    const uint8_t *widths;   /* current block's miniblock bit widths */
    uint64_t mb;             /* current miniblock in the block */
    uint64_t buf_pos, buf_len; /* unread values in buf */
    uint64_t *buf;           /* one miniblock of values, floe_malloc'd */
    int is32;                /* INT32 stream: widths must be <= 32 */
} pq_delta;

floe_status pq_delta_init(pq_delta *d, const uint8_t *data, size_t len, int is32,
                          uint64_t base) FLOE_WARN_UNUSED;
void pq_delta_free(pq_delta *d);
static inline uint64_t pq_delta_remaining(const pq_delta *d) {
    return d->total - d->emitted;
}
floe_status pq_delta_get_i64(pq_delta *d, int64_t *out, size_t n) FLOE_WARN_UNUSED;
floe_status pq_delta_get_i32(pq_delta *d, int32_t *out, size_t n) FLOE_WARN_UNUSED;
/* Consume the rest of the stream and return where its bytes end (the
 * start of whatever follows it in the page). */
floe_status pq_delta_finish(pq_delta *d, const uint8_t **end_out) FLOE_WARN_UNUSED;

/* Encoder (block 128, 4 miniblocks of 32, as parquet-mr writes). */
floe_status pq_delta_encode(floe_buf *out, const int64_t *v, size_t n) FLOE_WARN_UNUSED;
floe_status pq_delta_encode_i32(floe_buf *out, const int32_t *v, size_t n) FLOE_WARN_UNUSED;

/* ---- DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY ---- */

typedef struct pq_dlba {
    int32_t *lens;           /* all lengths of the page, floe_malloc'd */
    uint64_t count, next;
    const uint8_t *data, *end;
    uint64_t base;           /* file offset of data */
    const uint8_t *start;
} pq_dlba;

floe_status pq_dlba_init(pq_dlba *d, const uint8_t *data, size_t len,
                         uint64_t base) FLOE_WARN_UNUSED;
floe_status pq_dlba_get(pq_dlba *d, int32_t *offsets, floe_buf *out, size_t n) FLOE_WARN_UNUSED;
void pq_dlba_free(pq_dlba *d);

typedef struct pq_dba {
    int32_t *prefix;         /* prefix lengths, floe_malloc'd */
    pq_dlba suffix;
    uint64_t count, next;
    floe_buf prev;           /* the previous value */
    uint64_t base;
} pq_dba;

floe_status pq_dba_init(pq_dba *d, const uint8_t *data, size_t len,
                        uint64_t base) FLOE_WARN_UNUSED;
floe_status pq_dba_get(pq_dba *d, int32_t *offsets, floe_buf *out, size_t n) FLOE_WARN_UNUSED;
/* Fixed-length variant: values must all be `width` bytes; written packed. */
floe_status pq_dba_get_fixed(pq_dba *d, size_t width, uint8_t *out, size_t n) FLOE_WARN_UNUSED;
void pq_dba_free(pq_dba *d);

/* ---- BYTE_STREAM_SPLIT ---- */

/* The page's values section holds `count` values of `width` bytes split
 * into `width` streams.  Decode values [first, first+n) into out. */
floe_status pq_bss_decode(const uint8_t *data, size_t len, size_t width, uint64_t count,
                          uint64_t first, size_t n, void *out, uint64_t base) FLOE_WARN_UNUSED;
floe_status pq_bss_encode(floe_buf *out, const void *v, size_t width,
                          size_t n) FLOE_WARN_UNUSED;

#endif

/*
 * rle.h — ORC's run-length encodings: byte RLE, boolean RLE, integer RLE
 * version 1 and version 2 (SHORT_REPEAT, DIRECT, PATCHED_BASE, DELTA), and
 * the base-128 varints they and decimals are built from.
 *
 * Each decoder reads from one decompressed stream (stream.h; the buffer has
 * zero padding after its end, but no decoder relies on it: every run's
 * size is checked against the stream before it is decoded).  They decode
 * a run at a time into a small internal buffer (RLE v2 runs are at most
 * 512 values) and copy out; hot loops are per run, never per value through
 * a function pointer.  Asking for more values than the stream holds is a
 * FLOE_ERR_CORRUPT "stream ends after N values" error; the caller adds the
 * file, stripe, column and stream.
 */
#ifndef FLOE_FORMATS_ORC_RLE_H
#define FLOE_FORMATS_ORC_RLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/status.h"

/* -------------------------------------------------------------- bytes */

typedef struct floe_orc_byte_rle {
    const uint8_t *p, *end;
    int run_left;        /* values left in the current run or literal group */
    bool literal;
    uint8_t run_value;
    uint64_t consumed;   /* values produced so far, for messages */
} floe_orc_byte_rle;

void floe_orc_byte_rle_init(floe_orc_byte_rle *r, const uint8_t *data, size_t len);
floe_status floe_orc_byte_rle_read(floe_orc_byte_rle *r, uint8_t *out, size_t n) FLOE_WARN_UNUSED;
floe_status floe_orc_byte_rle_skip(floe_orc_byte_rle *r, size_t n) FLOE_WARN_UNUSED;

/* ----------------------------------------------------------- booleans */

typedef struct floe_orc_bool_rle {
    floe_orc_byte_rle bytes;
    uint8_t cur;         /* current byte, bits MSB first */
    int bits_left;       /* unread bits of cur */
} floe_orc_bool_rle;

void floe_orc_bool_rle_init(floe_orc_bool_rle *r, const uint8_t *data, size_t len);
/* n booleans into an LSB-first bitmap `out` starting at bit `bit_off`
 * (bits there are overwritten). */
floe_status floe_orc_bool_rle_read(floe_orc_bool_rle *r, uint8_t *out, int64_t bit_off,
                                   size_t n) FLOE_WARN_UNUSED;
floe_status floe_orc_bool_rle_skip(floe_orc_bool_rle *r, size_t n) FLOE_WARN_UNUSED;

/* ----------------------------------------------------------- integers */

#define FLOE_ORC_RLE_BUF 512

typedef struct floe_orc_int_rle {
    const uint8_t *p, *end;
    bool v2;
    bool is_signed;
    /* decoded values of the current run not yet handed out */
    int64_t buf[FLOE_ORC_RLE_BUF];
    int buf_len, buf_pos;
    int64_t *target;     /* where the next run is decoded: buf, or the caller's
                            output when a whole run fits there */
    /* RLE v1 run state (runs longer than what fits buf are streamed) */
    uint64_t consumed;
} floe_orc_int_rle;

void floe_orc_int_rle_init(floe_orc_int_rle *r, const uint8_t *data, size_t len, bool v2,
                           bool is_signed);
floe_status floe_orc_int_rle_read(floe_orc_int_rle *r, int64_t *out, size_t n) FLOE_WARN_UNUSED;
floe_status floe_orc_int_rle_skip(floe_orc_int_rle *r, size_t n) FLOE_WARN_UNUSED;

/* Decode the next run into r->buf (internal; rle_v2.c / rle.c). */
floe_status floe_orc_rle_v1_next_run(floe_orc_int_rle *r) FLOE_WARN_UNUSED;
floe_status floe_orc_rle_v2_next_run(floe_orc_int_rle *r) FLOE_WARN_UNUSED;

/* ------------------------------------------------------------ varints */

/* An unsigned LEB128 varint of at most 64 bits; false if malformed or
 * truncated. */
bool floe_orc_read_uvarint(const uint8_t **p, const uint8_t *end, uint64_t *v);
/* An unbounded zigzag varint as a 128-bit signed value (ORC decimals);
 * false if malformed, truncated or beyond 127 bits. */
bool floe_orc_read_varint128(const uint8_t **p, const uint8_t *end, __int128 *v);

/* Unpack n big-endian `width`-bit values from p into out; width is one of
 * the RLE v2 table's (1..24, 26, 28, 30, 32, 40, 48, 56, 64).  The caller
 * has checked that (n * width + 7) / 8 bytes are readable. */
void floe_orc_unpack_be(const uint8_t *p, int width, int n, int64_t *out);

#endif

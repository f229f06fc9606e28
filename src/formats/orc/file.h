/*
 * file.h — opening an ORC file: tail, postscript, footer, metadata, schema.
 *
 * An ORC file is "ORC", the stripes, the (compressed) Metadata with the
 * stripe statistics, the (compressed) Footer, the PostScript (never
 * compressed) and one last byte holding the PostScript's length.  Opening
 * reads the last 16 KiB in one request (enough for most tails, so one
 * round trip on S3), reads the rest of the tail if it is longer, checks
 * the magic, lengths and stripe layout, decompresses and decodes the
 * footer and metadata and builds the schema.  A metadata section (stripe
 * statistics) that does not decode is set aside with its error kept in
 * metadata_error: statistics only narrow reads.  Files with column
 * encryption are refused with FLOE_ERR_UNSUPPORTED naming it.
 *
 * Every error starts with the file's path.  After open a floe_orc_file is
 * read-only and may be shared by threads (its reads go through floe_input).
 */
#ifndef FLOE_FORMATS_ORC_FILE_H
#define FLOE_FORMATS_ORC_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "floe/fileio.h"
#include "floe/status.h"
#include "formats/orc/orc_meta.h"
#include "formats/orc/schema.h"

#define FLOE_ORC_TAIL_SPECULATIVE_READ 16384

typedef struct floe_orc_file {
    floe_input *in;
    bool owns_input;
    const char *path;
    uint64_t size;
    floe_arena arena;           /* footer, metadata */
    floe_orc_postscript ps;
    uint64_t ps_offset;
    uint64_t footer_offset;     /* compressed footer's first byte */
    uint64_t metadata_offset;
    floe_orc_footer footer;
    bool has_metadata;
    floe_orc_metadata metadata; /* stripe statistics (num_stripes 0 if absent) */
    const char *metadata_error; /* why the metadata section was set aside, or NULL */
    uint64_t num_rows;          /* rows in the stripes */
    floe_orc_schema *schema;
    uint64_t block_size;        /* compression block size (default 256 KiB) */
    bool decimal64;             /* file version 1.9999: short decimals are RLE v2 */
} floe_orc_file;

floe_status floe_orc_file_open(floe_input *in, floe_orc_file **out) FLOE_WARN_UNUSED;
floe_status floe_orc_file_open_path(const char *path, floe_orc_file **out) FLOE_WARN_UNUSED;
void floe_orc_file_close(floe_orc_file *f);

static inline size_t floe_orc_file_num_stripes(const floe_orc_file *f) {
    return f->footer.num_stripes;
}
static inline const floe_orc_stripe_info *floe_orc_file_stripe(const floe_orc_file *f, size_t i) {
    return &f->footer.stripes[i];
}
/* File statistics of column `id` (NULL when the footer has none). */
const floe_orc_stats *floe_orc_file_stats(const floe_orc_file *f, uint32_t id);
/* Stripe statistics of column `id` in stripe `s` (NULL when absent). */
const floe_orc_stats *floe_orc_file_stripe_stats(const floe_orc_file *f, size_t s, uint32_t id);
/* File row of a stripe's first row. */
int64_t floe_orc_file_stripe_first_row(const floe_orc_file *f, size_t s);

/* Stripes whose offset lies in [start, start + length), as an Iceberg split
 * selects them: their indexes in *out (floe_malloc'd), their count in *n. */
floe_status floe_orc_file_stripes_in_range(const floe_orc_file *f, uint64_t start,
                                           uint64_t length, int **out, int *n) FLOE_WARN_UNUSED;

/* Read, decompress and decode stripe `s`'s footer into `a`, filling each
 * stream's file offset and checking the streams and encodings against the
 * stripe and the schema. */
floe_status floe_orc_file_read_stripe_footer(const floe_orc_file *f, size_t s, floe_arena *a,
                                             floe_orc_stripe_footer *out) FLOE_WARN_UNUSED;

/* Decompress `len` bytes read from the file (a stream, footer or metadata):
 * see stream.h.  `what` names it in errors. */
floe_status floe_orc_file_expand(const floe_orc_file *f, const uint8_t *src, size_t len,
                                 uint8_t **out, size_t *out_len) FLOE_WARN_UNUSED;

/* The row index / bloom filter index of column `col` in stripe `s` (read on
 * demand; out->num_entries is 0 when the stripe has none for it). */
floe_status floe_orc_file_read_row_index(const floe_orc_file *f, size_t s,
                                         const floe_orc_stripe_footer *sf, uint32_t col,
                                         floe_arena *a, floe_orc_row_index *out) FLOE_WARN_UNUSED;
floe_status floe_orc_file_read_bloom_index(const floe_orc_file *f, size_t s,
                                           const floe_orc_stripe_footer *sf, uint32_t col,
                                           floe_arena *a, floe_orc_bloom_index *out) FLOE_WARN_UNUSED;

#endif

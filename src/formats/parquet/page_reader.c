/*
 * page_reader.c — PageHeader, CRC, decompression and section splitting for
 * one column chunk (see page_reader.h).
 *
 * The page CRC (when a writer stored one) is the zlib CRC-32 of the page
 * bytes as stored — after compression — and is checked before anything else
 * looks at them, so a flipped bit is reported as such rather than as some
 * confusing decode failure later.
 */
#include <string.h>
#include <zlib.h>

#include "formats/parquet/encoding.h"
#include "formats/parquet/page_reader.h"

floe_status pq_codec_from_parquet(int32_t c, floe_codec *out) {
    switch (c) {
    case FLOE_PQ_CODEC_UNCOMPRESSED: *out = FLOE_CODEC_NONE; return NULL;
    case FLOE_PQ_CODEC_SNAPPY: *out = FLOE_CODEC_SNAPPY; return NULL;
    case FLOE_PQ_CODEC_GZIP: *out = FLOE_CODEC_GZIP; return NULL;
    case FLOE_PQ_CODEC_BROTLI: *out = FLOE_CODEC_BROTLI; return NULL;
    case FLOE_PQ_CODEC_LZ4: *out = FLOE_CODEC_LZ4_HADOOP; return NULL;
    case FLOE_PQ_CODEC_ZSTD: *out = FLOE_CODEC_ZSTD; return NULL;
    case FLOE_PQ_CODEC_LZ4_RAW: *out = FLOE_CODEC_LZ4_RAW; return NULL;
    default:
        return floe_error(FLOE_ERR_UNSUPPORTED, "compression codec %s (%d) is not supported",
                          floe_pq_codec_name(c), c);
    }
}

void pq_page_reader_init(pq_page_reader *r, const uint8_t *chunk, size_t len, uint64_t origin,
                         floe_codec codec, int16_t max_def, int16_t max_rep, int64_t num_values,
                         const char *column) {
    memset(r, 0, sizeof *r);
    r->chunk = chunk;
    r->len = len;
    r->origin = origin;
    r->codec = codec;
    r->max_def = max_def;
    r->max_rep = max_rep;
    r->values_left = num_values;
    r->verify_crc = true;
    r->column = column;
    floe_buf_init(&r->scratch);
}

void pq_page_reader_free(pq_page_reader *r) {
    floe_buf_free(&r->scratch);
}

/* Decompress src into the scratch buffer (exactly `ulen` bytes). */
static floe_status inflate_body(pq_page_reader *r, const uint8_t *src, size_t clen, size_t ulen,
                                const uint8_t **out, uint64_t at) {
    if (r->codec == FLOE_CODEC_NONE) {
        if (clen != ulen)
            return floe_error(FLOE_ERR_CORRUPT,
                              "column '%s': uncompressed page at offset %llu has %zu bytes, "
                              "header says %zu",
                              r->column, (unsigned long long)at, clen, ulen);
        *out = src;
        return NULL;
    }
    floe_buf_clear(&r->scratch);
    FLOE_TRY(floe_buf_reserve(&r->scratch, ulen));
    floe_status st = floe_decompress_exact(r->codec, src, clen, r->scratch.data, ulen);
    if (st)
        return floe_status_wrap(st, "column '%s': page at offset %llu", r->column,
                                (unsigned long long)at);
    r->scratch.len = ulen;
    *out = r->scratch.data;
    return NULL;
}

/* Find the end of a v1 level section that starts at p. */
static floe_status v1_level_len(pq_page_reader *r, int32_t enc, int16_t max_level,
                                int32_t num_values, const uint8_t *p, size_t left, size_t *len,
                                uint64_t at) {
    if (enc == FLOE_PQ_ENC_RLE) {
        uint32_t n;
        if (left < 4)
            return floe_error(FLOE_ERR_CORRUPT,
                              "column '%s': page at offset %llu too short for its levels",
                              r->column, (unsigned long long)at);
        memcpy(&n, p, 4);
        if (n > left - 4)
            return floe_error(FLOE_ERR_CORRUPT,
                              "column '%s': page at offset %llu: levels of %u bytes overrun the "
                              "page",
                              r->column, (unsigned long long)at, n);
        *len = 4 + (size_t)n;
        return NULL;
    }
    if (enc == FLOE_PQ_ENC_BIT_PACKED) {
        uint64_t bytes = ((uint64_t)num_values * (uint64_t)pq_bit_width((uint64_t)max_level) + 7) / 8;
        if (bytes > left)
            return floe_error(FLOE_ERR_CORRUPT,
                              "column '%s': page at offset %llu too short for its levels",
                              r->column, (unsigned long long)at);
        *len = (size_t)bytes;
        return NULL;
    }
    return floe_error(FLOE_ERR_UNSUPPORTED,
                      "column '%s': page at offset %llu: level encoding %s is not supported",
                      r->column, (unsigned long long)at, floe_pq_encoding_name(enc));
}

/* A data page may not hold more level entries than its chunk has left:
 * the count sizes the level buffers, so it must be sane first. */
static floe_status check_count(pq_page_reader *r, int32_t n, uint64_t at) {
    if (n < 0 || n > r->values_left)
        return floe_error(FLOE_ERR_CORRUPT,
                          "column '%s': page at offset %llu has %d values but the column chunk "
                          "has only %lld left",
                          r->column, (unsigned long long)at, n, (long long)r->values_left);
    return NULL;
}

floe_status pq_page_next(pq_page_reader *r, pq_page *page, bool *eof) {
    for (;;) {
        *eof = false;
        if (r->pos >= r->len || r->values_left <= 0) {
            *eof = true;
            return NULL;
        }
        uint64_t at = r->origin + r->pos;
        floe_pq_page_header h;
        size_t hlen;
        FLOE_TRY_CTX(floe_pq_decode_page_header(r->chunk + r->pos, r->len - r->pos, at, &h, &hlen),
                     "column '%s': page header at offset %llu", r->column,
                     (unsigned long long)at);
        size_t clen = (size_t)h.compressed_page_size;
        if (clen > r->len - r->pos - hlen)
            return floe_error(FLOE_ERR_CORRUPT,
                              "column '%s': page at offset %llu (%zu bytes) runs past the end "
                              "of the column chunk",
                              r->column, (unsigned long long)at, clen);
        const uint8_t *body = r->chunk + r->pos + hlen;
        r->pos += hlen + clen;
        if (h.has_crc && r->verify_crc) {
            uint32_t crc = (uint32_t)crc32(0L, body, (uInt)clen);
            if (crc != (uint32_t)h.crc)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "page CRC mismatch in column '%s' at offset %llu (stored "
                                  "%08x, computed %08x)",
                                  r->column, (unsigned long long)at, (uint32_t)h.crc, crc);
        }
        size_t ulen = (size_t)h.uncompressed_page_size;
        if (ulen > PQ_MAX_PAGE_BYTES)
            return floe_error(FLOE_ERR_UNSUPPORTED,
                              "column '%s': page at offset %llu claims %zu uncompressed bytes "
                              "(floe's limit is %u)",
                              r->column, (unsigned long long)at, ulen, PQ_MAX_PAGE_BYTES);
        memset(page, 0, sizeof *page);
        page->type = h.type;
        page->offset = at;
        page->num_nulls = -1;
        page->values_offset = at + hlen;

        if (h.type == FLOE_PQ_PAGE_DICTIONARY) {
            if (!h.has_dictionary_page_header)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "column '%s': dictionary page at offset %llu lacks its header",
                                  r->column, (unsigned long long)at);
            page->num_values = h.dictionary_page_header.num_values;
            page->encoding = h.dictionary_page_header.encoding;
            FLOE_TRY(inflate_body(r, body, clen, ulen, &page->values, at));
            page->values_len = ulen;
            return NULL;
        }
        if (h.type == FLOE_PQ_PAGE_DATA) {
            if (!h.has_data_page_header)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "column '%s': data page at offset %llu lacks its header",
                                  r->column, (unsigned long long)at);
            const floe_pq_data_page_header *d = &h.data_page_header;
            page->num_values = d->num_values;
            page->encoding = d->encoding;
            page->def_encoding = d->definition_level_encoding;
            page->rep_encoding = d->repetition_level_encoding;
            const uint8_t *p;
            FLOE_TRY(inflate_body(r, body, clen, ulen, &p, at));
            size_t left = ulen, n = 0;
            if (r->max_rep > 0) {
                FLOE_TRY(v1_level_len(r, d->repetition_level_encoding, r->max_rep,
                                      d->num_values, p, left, &n, at));
                page->rep = p;
                page->rep_len = n;
                p += n;
                left -= n;
            }
            if (r->max_def > 0) {
                FLOE_TRY(v1_level_len(r, d->definition_level_encoding, r->max_def,
                                      d->num_values, p, left, &n, at));
                page->def = p;
                page->def_len = n;
                p += n;
                left -= n;
            }
            page->values = p;
            page->values_len = left;
            FLOE_TRY(check_count(r, d->num_values, at));
            r->values_left -= d->num_values;
            return NULL;
        }
        if (h.type == FLOE_PQ_PAGE_DATA_V2) {
            if (!h.has_data_page_header_v2)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "column '%s': data page v2 at offset %llu lacks its header",
                                  r->column, (unsigned long long)at);
            const floe_pq_data_page_header_v2 *d = &h.data_page_header_v2;
            size_t rl = (size_t)d->repetition_levels_byte_length;
            size_t dl = (size_t)d->definition_levels_byte_length;
            if (d->repetition_levels_byte_length < 0 || d->definition_levels_byte_length < 0 ||
                rl + dl > clen || rl + dl > ulen)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "column '%s': data page v2 at offset %llu: level lengths "
                                  "exceed the page",
                                  r->column, (unsigned long long)at);
            page->num_values = d->num_values;
            page->num_nulls = d->num_nulls;
            page->encoding = d->encoding;
            page->def_encoding = page->rep_encoding = FLOE_PQ_ENC_RLE;
            page->v2_levels = true;
            page->rep = body;
            page->rep_len = rl;
            page->def = body + rl;
            page->def_len = dl;
            const uint8_t *vals = body + rl + dl;
            size_t vclen = clen - rl - dl, vulen = ulen - rl - dl;
            if (vulen == 0) {
                page->values = vals;
                page->values_len = 0;
            } else if (d->is_compressed && r->codec != FLOE_CODEC_NONE) {
                floe_codec saved = r->codec;
                FLOE_TRY(inflate_body(r, vals, vclen, vulen, &page->values, at));
                r->codec = saved;
                page->values_len = vulen;
            } else {
                if (vclen != vulen)
                    return floe_error(FLOE_ERR_CORRUPT,
                                      "column '%s': uncompressed data page v2 at offset %llu has "
                                      "%zu value bytes, header says %zu",
                                      r->column, (unsigned long long)at, vclen, vulen);
                page->values = vals;
                page->values_len = vulen;
            }
            FLOE_TRY(check_count(r, d->num_values, at));
            r->values_left -= d->num_values;
            return NULL;
        }
        /* Index pages and unknown page types carry nothing we read. */
    }
}

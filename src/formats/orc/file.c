/*
 * file.c — ORC file tail, footer, metadata and stripe footers (see file.h).
 */
#include "formats/orc/file.h"

#include <inttypes.h>
#include <string.h>

#include "floe/memory.h"
#include "formats/orc/stream.h"

#define DEFAULT_BLOCK_SIZE (256u * 1024)

floe_status floe_orc_file_expand(const floe_orc_file *f, const uint8_t *src, size_t len,
                                 uint8_t **out, size_t *out_len) {
    return floe_orc_decompress(f->ps.compression, f->block_size, src, len, out, out_len);
}

static floe_status check_stripes(floe_orc_file *f) {
    const floe_orc_footer *ft = &f->footer;
    uint64_t prev_end = 3, rows = 0;
    for (size_t i = 0; i < ft->num_stripes; i++) {
        const floe_orc_stripe_info *s = &ft->stripes[i];
        uint64_t len = s->index_length + s->data_length;
        if (len < s->index_length || len + s->footer_length < len || s->offset < prev_end ||
            s->offset + len + s->footer_length < s->offset ||
            s->offset + len + s->footer_length > f->metadata_offset)
            return floe_error(FLOE_ERR_CORRUPT,
                              "'%s': stripe %zu at offset %" PRIu64 " (index %" PRIu64
                              ", data %" PRIu64 ", footer %" PRIu64
                              " bytes) overlaps its neighbours or the file tail at %" PRIu64,
                              f->path, i, s->offset, s->index_length, s->data_length,
                              s->footer_length, f->metadata_offset);
        if (s->footer_length == 0)
            return floe_error(FLOE_ERR_CORRUPT, "'%s': stripe %zu has an empty stripe footer",
                              f->path, i);
        prev_end = s->offset + len + s->footer_length;
        if (rows + s->num_rows < rows)
            return floe_error(FLOE_ERR_CORRUPT, "'%s': stripe row counts overflow", f->path);
        rows += s->num_rows;
    }
    /* Some writers leave numberOfRows unset: the stripes are what is read. */
    f->num_rows = rows;
    return NULL;
}

static floe_status read_tail(floe_orc_file *f) {
    if (f->size == 0) return floe_error(FLOE_ERR_CORRUPT, "'%s': empty file, not ORC", f->path);
    if (f->size < 4)
        return floe_error(FLOE_ERR_CORRUPT, "'%s': %" PRIu64 " bytes is too short for ORC", f->path,
                          f->size);
    size_t tail = f->size < FLOE_ORC_TAIL_SPECULATIVE_READ ? (size_t)f->size : FLOE_ORC_TAIL_SPECULATIVE_READ;
    uint8_t *buf = floe_malloc(tail);
    if (!buf) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    uint64_t tail_off = f->size - tail;
    floe_status st = floe_input_read(f->in, tail_off, tail, buf);
    uint8_t *big = NULL, *footer = NULL, *meta = NULL;
    size_t footer_len = 0, meta_len = 0;
    if (st) goto done;
    size_t ps_len = buf[tail - 1];
    if (ps_len == 0 || ps_len + 1 > tail) {
        st = floe_error(FLOE_ERR_CORRUPT, "'%s': postscript length %zu does not fit the file",
                        f->path, ps_len);
        goto done;
    }
    f->ps_offset = f->size - 1 - ps_len;
    st = floe_orc_decode_postscript(buf + tail - 1 - ps_len, ps_len, &f->ps);
    if (st) {
        uint8_t head[3];
        floe_status hs = floe_input_read(f->in, 0, 3, head);
        if (!hs && memcmp(head, "ORC", 3) != 0) {
            floe_status_free(st);
            st = floe_error(FLOE_ERR_CORRUPT, "'%s': not an ORC file (no 'ORC' magic, no postscript)",
                            f->path);
            goto done;
        }
        floe_status_free(hs);
        st = floe_status_wrap(st, "'%s': postscript at offset %" PRIu64, f->path, f->ps_offset);
        goto done;
    }
    if (!f->ps.has_magic) {
        uint8_t head[3];
        st = floe_input_read(f->in, 0, 3, head);
        if (st) goto done;
        if (memcmp(head, "ORC", 3) != 0) {
            st = floe_error(FLOE_ERR_CORRUPT, "'%s': not an ORC file (no 'ORC' magic)", f->path);
            goto done;
        }
    }
    if (f->ps.num_version >= 1 && f->ps.version[0] > 1) {
        st = floe_error(FLOE_ERR_UNSUPPORTED,
                        "'%s': written by a future ORC version %u.%u (floe reads 0.11, 0.12 and "
                        "1.9999)",
                        f->path, f->ps.version[0], f->ps.num_version > 1 ? f->ps.version[1] : 0);
        goto done;
    }
    f->decimal64 = f->ps.num_version >= 2 && f->ps.version[0] == 1 && f->ps.version[1] == 9999;
    f->block_size = f->ps.has_block_size && f->ps.block_size ? f->ps.block_size : DEFAULT_BLOCK_SIZE;
    if (f->ps.compression == FLOE_ORC_COMP_LZO) {
        st = floe_error(FLOE_ERR_UNSUPPORTED,
                        "'%s': LZO compression is not supported (no LZO decoder is available)",
                        f->path);
        goto done;
    }
    uint64_t flen = f->ps.footer_length, mlen = f->ps.metadata_length;
    if (flen > f->ps_offset || mlen > f->ps_offset - flen || f->ps_offset - flen - mlen < 3) {
        st = floe_error(FLOE_ERR_CORRUPT,
                        "'%s': footer (%" PRIu64 " bytes) and metadata (%" PRIu64
                        " bytes) do not fit before the postscript at offset %" PRIu64,
                        f->path, flen, mlen, f->ps_offset);
        goto done;
    }
    f->footer_offset = f->ps_offset - flen;
    f->metadata_offset = f->footer_offset - mlen;
    const uint8_t *tailp;
    if (f->metadata_offset >= tail_off) {
        tailp = buf + (f->metadata_offset - tail_off);
    } else {
        size_t need = (size_t)(f->ps_offset - f->metadata_offset);
        big = floe_malloc(need ? need : 1);
        if (!big) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory (%zu bytes)", need);
            goto done;
        }
        st = floe_input_read(f->in, f->metadata_offset, need, big);
        if (st) goto done;
        tailp = big;
    }
    st = floe_orc_file_expand(f, tailp + mlen, (size_t)flen, &footer, &footer_len);
    if (!st) st = floe_orc_decode_footer(footer, footer_len, &f->arena, &f->footer);
    if (st) {
        st = floe_status_wrap(st, "'%s': footer at offset %" PRIu64, f->path, f->footer_offset);
        goto done;
    }
    if (f->footer.has_encryption) {
        st = floe_error(FLOE_ERR_UNSUPPORTED, "'%s': ORC column encryption is not supported",
                        f->path);
        goto done;
    }
    st = check_stripes(f);
    if (st) goto done;
    if (mlen) {
        /* Stripe statistics only ever narrow what is read: a section that
         * does not decode is set aside (metadata_error says why), the
         * data stays readable. */
        floe_status ms = floe_orc_file_expand(f, tailp, (size_t)mlen, &meta, &meta_len);
        if (!ms) ms = floe_orc_decode_metadata(meta, meta_len, &f->arena, &f->metadata);
        if (ms) {
            ms = floe_status_wrap(ms, "'%s': metadata (stripe statistics) at offset %" PRIu64,
                                  f->path, f->metadata_offset);
            f->metadata_error = floe_arena_strdup(&f->arena, floe_status_message(ms));
            floe_status_free(ms);
            memset(&f->metadata, 0, sizeof f->metadata);
        } else {
            f->has_metadata = f->metadata.num_stripes == f->footer.num_stripes;
        }
    }
    st = floe_orc_schema_build(&f->footer, &f->schema);
    if (st) st = floe_status_wrap(st, "'%s'", f->path);
    if (!st && f->footer.num_stats && f->footer.num_stats != f->schema->num_columns)
        f->footer.num_stats = 0; /* statistics that do not match the types are ignored */
done:
    floe_free(buf);
    floe_free(big);
    floe_free(footer);
    floe_free(meta);
    return st;
}

floe_status floe_orc_file_open(floe_input *in, floe_orc_file **out) {
    *out = NULL;
    floe_orc_file *f = floe_calloc(1, sizeof *f);
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    f->in = in;
    f->path = in->path ? in->path : "(input)";
    f->size = in->size;
    floe_arena_init(&f->arena, 0);
    floe_status st = read_tail(f);
    if (st) {
        floe_orc_file_close(f);
        return st;
    }
    *out = f;
    return NULL;
}

floe_status floe_orc_file_open_path(const char *path, floe_orc_file **out) {
    floe_input *in;
    FLOE_TRY(floe_input_open_local(path, &in));
    floe_status st = floe_orc_file_open(in, out);
    if (st) {
        floe_input_close(in);
        return st;
    }
    (*out)->owns_input = true;
    return NULL;
}

void floe_orc_file_close(floe_orc_file *f) {
    if (!f) return;
    floe_orc_schema_free(f->schema);
    floe_arena_destroy(&f->arena);
    if (f->owns_input) floe_input_close(f->in);
    floe_free(f);
}

const floe_orc_stats *floe_orc_file_stats(const floe_orc_file *f, uint32_t id) {
    return id < f->footer.num_stats ? &f->footer.stats[id] : NULL;
}

const floe_orc_stats *floe_orc_file_stripe_stats(const floe_orc_file *f, size_t s, uint32_t id) {
    if (!f->has_metadata || s >= f->metadata.num_stripes) return NULL;
    const floe_orc_stripe_stats *ss = &f->metadata.stripes[s];
    if (ss->num_cols != f->schema->num_columns) return NULL;
    return &ss->cols[id];
}

int64_t floe_orc_file_stripe_first_row(const floe_orc_file *f, size_t s) {
    int64_t r = 0;
    for (size_t i = 0; i < s && i < f->footer.num_stripes; i++) r += (int64_t)f->footer.stripes[i].num_rows;
    return r;
}

floe_status floe_orc_file_stripes_in_range(const floe_orc_file *f, uint64_t start, uint64_t length,
                                           int **out, int *n) {
    *out = NULL;
    *n = 0;
    size_t ns = f->footer.num_stripes;
    int *v = floe_calloc(ns ? ns : 1, sizeof *v);
    if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    uint64_t end = start + length < start ? UINT64_MAX : start + length;
    for (size_t i = 0; i < ns; i++) {
        uint64_t o = f->footer.stripes[i].offset;
        if (o >= start && o < end) v[(*n)++] = (int)i;
    }
    *out = v;
    return NULL;
}

floe_status floe_orc_file_read_stripe_footer(const floe_orc_file *f, size_t s, floe_arena *a,
                                             floe_orc_stripe_footer *out) {
    if (s >= f->footer.num_stripes)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s': no stripe %zu", f->path, s);
    const floe_orc_stripe_info *si = &f->footer.stripes[s];
    uint64_t off = si->offset + si->index_length + si->data_length;
    size_t len = (size_t)si->footer_length;
    uint8_t *raw = floe_malloc(len);
    if (!raw) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    uint8_t *dec = NULL;
    size_t dlen = 0;
    floe_status st = floe_input_read(f->in, off, len, raw);
    if (!st) st = floe_orc_file_expand(f, raw, len, &dec, &dlen);
    if (!st) st = floe_orc_decode_stripe_footer(dec, dlen, a, out);
    floe_free(raw);
    floe_free(dec);
    if (st)
        return floe_status_wrap(st, "'%s': stripe %zu: stripe footer at offset %" PRIu64, f->path,
                                s, off);
    if (out->num_encryption)
        return floe_error(FLOE_ERR_UNSUPPORTED, "'%s': stripe %zu: ORC column encryption is not supported",
                          f->path, s);
    uint64_t pos = si->offset, limit = si->offset + si->index_length + si->data_length;
    for (size_t i = 0; i < out->num_streams; i++) {
        floe_orc_stream_info *st_ = &out->streams[i];
        st_->offset = pos;
        if (st_->length > limit - pos)
            return floe_error(FLOE_ERR_CORRUPT,
                              "'%s': stripe %zu: stream %zu (%s of column %u, %" PRIu64
                              " bytes at offset %" PRIu64 ") runs past the stripe's data at %" PRIu64,
                              f->path, s, i, floe_orc_stream_kind_name(st_->kind), st_->column,
                              st_->length, pos, limit);
        pos += st_->length;
        if (st_->column >= f->schema->num_columns)
            return floe_error(FLOE_ERR_CORRUPT,
                              "'%s': stripe %zu: stream %zu names column %u, but the schema has %u",
                              f->path, s, i, st_->column, f->schema->num_columns);
    }
    if (out->num_encodings < f->schema->num_columns)
        return floe_error(FLOE_ERR_CORRUPT,
                          "'%s': stripe %zu: the stripe footer has %zu column encodings for %u "
                          "columns",
                          f->path, s, out->num_encodings, f->schema->num_columns);
    return NULL;
}

static const floe_orc_stream_info *find_stream(const floe_orc_stripe_footer *sf, uint32_t col,
                                               int kind) {
    for (size_t i = 0; i < sf->num_streams; i++)
        if (sf->streams[i].column == col && sf->streams[i].kind == kind) return &sf->streams[i];
    return NULL;
}

static floe_status read_index_stream(const floe_orc_file *f, size_t s, const floe_orc_stream_info *si,
                                     uint8_t **dec, size_t *dlen) {
    uint8_t *raw = floe_malloc(si->length ? (size_t)si->length : 1);
    if (!raw) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    floe_status st = floe_input_read(f->in, si->offset, (size_t)si->length, raw);
    if (!st) st = floe_orc_file_expand(f, raw, (size_t)si->length, dec, dlen);
    floe_free(raw);
    if (st)
        st = floe_status_wrap(st, "'%s': stripe %zu: column %u: %s stream at offset %" PRIu64,
                              f->path, s, si->column, floe_orc_stream_kind_name(si->kind),
                              si->offset);
    return st;
}

floe_status floe_orc_file_read_row_index(const floe_orc_file *f, size_t s,
                                         const floe_orc_stripe_footer *sf, uint32_t col,
                                         floe_arena *a, floe_orc_row_index *out) {
    memset(out, 0, sizeof *out);
    const floe_orc_stream_info *si = find_stream(sf, col, FLOE_ORC_S_ROW_INDEX);
    if (!si) return NULL;
    uint8_t *dec;
    size_t dlen;
    FLOE_TRY(read_index_stream(f, s, si, &dec, &dlen));
    floe_status st = floe_orc_decode_row_index(dec, dlen, a, out);
    floe_free(dec);
    if (st)
        st = floe_status_wrap(st, "'%s': stripe %zu: column %u: ROW_INDEX stream at offset %" PRIu64,
                              f->path, s, col, si->offset);
    return st;
}

floe_status floe_orc_file_read_bloom_index(const floe_orc_file *f, size_t s,
                                           const floe_orc_stripe_footer *sf, uint32_t col,
                                           floe_arena *a, floe_orc_bloom_index *out) {
    memset(out, 0, sizeof *out);
    const floe_orc_stream_info *si = find_stream(sf, col, FLOE_ORC_S_BLOOM_FILTER_UTF8);
    if (!si) si = find_stream(sf, col, FLOE_ORC_S_BLOOM_FILTER);
    if (!si) return NULL;
    uint8_t *dec;
    size_t dlen;
    FLOE_TRY(read_index_stream(f, s, si, &dec, &dlen));
    floe_status st = floe_orc_decode_bloom_index(dec, dlen, a, out);
    floe_free(dec);
    if (st)
        st = floe_status_wrap(st, "'%s': stripe %zu: column %u: %s stream at offset %" PRIu64,
                              f->path, s, col, floe_orc_stream_kind_name(si->kind), si->offset);
    return st;
}

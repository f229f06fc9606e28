/*
 * container.c — Avro object container files: reading block by block and
 * writing with arbitrary header metadata.
 *
 * Layout (Avro 1.3+): "Obj\x01", a map<string, bytes> of metadata
 * (avro.schema, avro.codec, anything else), a 16-byte sync marker; then
 * blocks of [record count][byte size][records, compressed][sync marker].
 *
 * The reader holds one block at a time (in a read-ahead window of at least
 * READ_AHEAD bytes), so memory is bounded by the largest block, whatever
 * the file size.  It also accepts the pre-1.3
 * layout ("Obj\x00", metadata in a footer, blocks without byte sizes) that
 * old test files use, and tolerates a few stray whitespace bytes after the
 * last block (seen in the wild: a trailing newline).
 */
#include "formats/avro/avro.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <zlib.h>

#include "floe/memory.h"
#include "formats/compress.h"

#define SYNC_LEN 16
/* Bytes fetched per read request at least: a typical manifest is one
 * request, which matters once the input is S3. */
#define READ_AHEAD (1u << 20)
/* Largest legacy (pre-1.3) data region read at once: those files are tiny. */
#define LEGACY_MAX (256u << 20)

const char *floe_avro_codec_name(floe_avro_codec c) {
    switch (c) {
    case FLOE_AVRO_CODEC_NULL: return "null";
    case FLOE_AVRO_CODEC_DEFLATE: return "deflate";
    case FLOE_AVRO_CODEC_SNAPPY: return "snappy";
    case FLOE_AVRO_CODEC_ZSTD: return "zstandard";
    }
    return "?";
}

floe_status floe_avro_codec_parse(const char *name, floe_avro_codec *out) {
    if (!strcmp(name, "null") || !*name) *out = FLOE_AVRO_CODEC_NULL;
    else if (!strcmp(name, "deflate")) *out = FLOE_AVRO_CODEC_DEFLATE;
    else if (!strcmp(name, "snappy")) *out = FLOE_AVRO_CODEC_SNAPPY;
    else if (!strcmp(name, "zstandard") || !strcmp(name, "zstd")) *out = FLOE_AVRO_CODEC_ZSTD;
    else return floe_error(FLOE_ERR_UNSUPPORTED, "Avro codec '%s' is not supported", name);
    return NULL;
}

/* ---- reader ------------------------------------------------------------- */

struct floe_avro_reader {
    floe_input *in;
    floe_avro_schema *wschema;
    const floe_avro_schema *rschema;
    floe_avro_resolver *res;
    floe_avro_codec codec;
    floe_avro_meta *meta;
    size_t n_meta;
    uint8_t sync[SYNC_LEN];
    int legacy;

    uint64_t next_pos;       /* file offset of the next block */
    uint64_t data_end;       /* end of block data (file size, or the legacy footer) */
    uint64_t block_pos;      /* file offset of the current block, for messages */
    floe_buf win;            /* read-ahead window: file bytes [win_off, win_off + win.len) */
    uint64_t win_off;
    floe_buf data;           /* current block, decompressed */
    const uint8_t *bp, *bstart, *bend; /* records of the current block */
    uint64_t left;           /* records left in the current block */
    uint64_t blocks, records;
    int eof;
};

/* A bounded cursor over a header buffer; `short_read` says the buffer ended
 * before the parse did (the caller retries with more of the file). */
typedef struct hcur {
    const uint8_t *p, *end, *start;
    int short_read;
} hcur;

static int h_long(hcur *h, int64_t *out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (h->p >= h->end) {
            h->short_read = 1;
            return -1;
        }
        uint8_t b = *h->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = (int64_t)((v >> 1) ^ (~(v & 1) + 1));
            return 0;
        }
    }
    return -2; /* overlong varint */
}

static void free_meta(floe_avro_meta *m, size_t n) {
    for (size_t i = 0; i < n; i++) {
        floe_free(m[i].key);
        floe_free(m[i].value);
    }
    floe_free(m);
}

/* File bytes [off, off + len) through the read-ahead window.  The pointer
 * stays valid until the next fetch. */
static floe_status fetch(floe_avro_reader *r, uint64_t off, size_t len, const uint8_t **out) {
    floe_input *in = r->in;
    if (off >= r->win_off && off - r->win_off <= r->win.len && len <= r->win.len - (off - r->win_off)) {
        *out = r->win.data + (off - r->win_off);
        return NULL;
    }
    if (off > in->size || len > in->size - off)
        return floe_error(FLOE_ERR_CORRUPT, "'%s': bytes %" PRIu64 "..%" PRIu64 " are past the end "
                          "of the file (%" PRIu64 " bytes)", in->path, off, off + len, in->size);
    size_t n = len > READ_AHEAD ? len : READ_AHEAD;
    if (n > in->size - off) n = (size_t)(in->size - off);
    floe_buf_clear(&r->win);
    r->win_off = off;
    uint8_t *dst = floe_buf_extend(&r->win, n);
    if (!dst)
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "'%s': out of memory reading %zu bytes", in->path, n);
    floe_status st = floe_input_read(in, off, n, dst);
    if (st) {
        floe_buf_clear(&r->win);
        return st;
    }
    *out = dst;
    return NULL;
}

/* Parse the metadata map at h.  Returns NULL, or an error; sets
 * h->short_read when more bytes are needed. */
static floe_status parse_meta(hcur *h, const char *path, floe_avro_meta **out, size_t *n_out) {
    floe_avro_meta *m = NULL;
    size_t n = 0, cap = 0;
    floe_status st = NULL;
    for (;;) {
        int64_t count;
        int rc = h_long(h, &count);
        if (rc) goto bad;
        if (count == 0) break;
        if (count < 0) {
            int64_t bytes;
            if (count == INT64_MIN || h_long(h, &bytes)) goto bad;
            count = -count;
        }
        if ((uint64_t)count > (uint64_t)(h->end - h->p) + 1 && !h->short_read) {
            if ((uint64_t)count > 1000000) goto bad;
        }
        for (int64_t i = 0; i < count; i++) {
            int64_t kl, vl;
            if (h_long(h, &kl) || kl < 0) goto bad;
            if ((uint64_t)kl > (uint64_t)(h->end - h->p)) {
                h->short_read = 1;
                goto bad;
            }
            const uint8_t *k = h->p;
            h->p += kl;
            if (h_long(h, &vl) || vl < 0) goto bad;
            if ((uint64_t)vl > (uint64_t)(h->end - h->p)) {
                h->short_read = 1;
                goto bad;
            }
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 8;
                floe_avro_meta *nm = floe_realloc(m, nc * sizeof *nm);
                if (!nm) {
                    st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory reading '%s'", path);
                    goto fail;
                }
                m = nm;
                cap = nc;
            }
            m[n].key = floe_strndup((const char *)k, (size_t)kl);
            m[n].value = floe_malloc((size_t)vl + 1);
            m[n].len = (size_t)vl;
            n++;
            if (!m[n - 1].key || !m[n - 1].value) {
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory reading '%s'", path);
                goto fail;
            }
            memcpy(m[n - 1].value, h->p, (size_t)vl);
            m[n - 1].value[vl] = 0;
            h->p += vl;
        }
    }
    *out = m;
    *n_out = n;
    return NULL;
bad:
    if (!h->short_read)
        st = floe_error(FLOE_ERR_CORRUPT, "'%s': malformed header metadata at byte %zu", path,
                        (size_t)(h->p - h->start));
fail:
    free_meta(m, n);
    return st;
}

const uint8_t *floe_avro_reader_meta(const floe_avro_reader *r, const char *key, size_t *len) {
    for (size_t i = 0; i < r->n_meta; i++) {
        if (strcmp(r->meta[i].key, key) == 0) {
            if (len) *len = r->meta[i].len;
            return r->meta[i].value;
        }
    }
    return NULL;
}

/* Read the header (current layout); header bytes are fetched in growing
 * windows so an unusually large schema still works. */
static floe_status read_header(floe_avro_reader *r) {
    floe_input *in = r->in;
    size_t win = in->size < READ_AHEAD ? (size_t)in->size : READ_AHEAD;
    for (;;) {
        const uint8_t *buf;
        FLOE_TRY(fetch(r, 0, win, &buf));
        hcur h = {buf + 4, buf + win, buf, 0};
        floe_status st = parse_meta(&h, in->path, &r->meta, &r->n_meta);
        if (!st && !h.short_read && (size_t)(h.end - h.p) < SYNC_LEN) h.short_read = 1;
        if (!st && !h.short_read) {
            memcpy(r->sync, h.p, SYNC_LEN);
            r->next_pos = (uint64_t)(h.p - buf) + SYNC_LEN;
            return NULL;
        }
        if (st) return st;
        free_meta(r->meta, r->n_meta);
        r->meta = NULL;
        r->n_meta = 0;
        if (win >= in->size)
            return floe_error(FLOE_ERR_CORRUPT, "'%s': truncated header (file is %" PRIu64 " bytes)",
                              in->path, in->size);
        win = win * 4 > in->size ? (size_t)in->size : win * 4;
    }
}

/* Pre-1.3 files: metadata in a footer whose length is the last 4 bytes. */
static floe_status read_legacy_header(floe_avro_reader *r) {
    floe_input *in = r->in;
    const uint8_t *tail;
    if (in->size < 4 + SYNC_LEN + 4)
        return floe_error(FLOE_ERR_CORRUPT, "'%s': truncated legacy Avro file", in->path);
    FLOE_TRY(fetch(r, in->size - 4, 4, &tail));
    uint64_t flen = (uint64_t)tail[0] << 24 | (uint64_t)tail[1] << 16 | (uint64_t)tail[2] << 8 | tail[3];
    if (flen < 4 || flen > in->size - 4 - SYNC_LEN)
        return floe_error(FLOE_ERR_CORRUPT, "'%s': legacy footer length %" PRIu64 " is impossible",
                          in->path, flen);
    uint64_t fpos = in->size - flen;
    const uint8_t *buf, *sync;
    FLOE_TRY(fetch(r, fpos, (size_t)flen, &buf));
    hcur h = {buf, buf + flen - 4, buf, 0};
    FLOE_TRY(parse_meta(&h, in->path, &r->meta, &r->n_meta));
    if (h.short_read) return floe_error(FLOE_ERR_CORRUPT, "'%s': truncated legacy footer", in->path);
    FLOE_TRY(fetch(r, 4, SYNC_LEN, &sync));
    memcpy(r->sync, sync, SYNC_LEN);
    r->legacy = 1;
    r->next_pos = 4 + SYNC_LEN;
    r->data_end = fpos;
    /* The old layout names its keys without the "avro." prefix. */
    return NULL;
}

static const uint8_t *meta2(const floe_avro_reader *r, const char *key, size_t *len) {
    const uint8_t *v = floe_avro_reader_meta(r, key, len);
    if (!v && r->legacy && !strncmp(key, "avro.", 5)) v = floe_avro_reader_meta(r, key + 5, len);
    return v;
}

floe_status floe_avro_reader_open(floe_input *in, const floe_avro_schema *reader_schema,
                                  floe_avro_reader **out) {
    *out = NULL;
    uint8_t magic[4];
    if (in->size < 4)
        return floe_error(FLOE_ERR_CORRUPT, "'%s' is not an Avro container file (%" PRIu64 " bytes)",
                          in->path, in->size);
    FLOE_TRY(floe_input_read(in, 0, 4, magic));
    /* (One small read before the window: a non-Avro file costs no more.) */
    if (memcmp(magic, "Obj", 3) != 0 || magic[3] > 1) {
        if (!memcmp(magic, "AGS1", 4))
            return floe_error(FLOE_ERR_UNSUPPORTED,
                              "'%s' is an encrypted file (AGS1 AES-GCM stream), not plain Avro; "
                              "it needs the table's encryption keys", in->path);
        return floe_error(FLOE_ERR_CORRUPT,
                          "'%s' is not an Avro container file (no 'Obj\\x01' magic at offset 0)",
                          in->path);
    }
    floe_avro_reader *r = floe_calloc(1, sizeof *r);
    if (!r) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory opening '%s'", in->path);
    r->in = in;
    r->data_end = in->size;
    floe_status st = magic[3] == 1 ? read_header(r) : read_legacy_header(r);
    size_t len = 0;
    const uint8_t *v;
    if (!st) {
        v = meta2(r, "avro.codec", &len);
        if (v) {
            st = floe_avro_codec_parse((const char *)v, &r->codec);
            if (st) st = floe_status_wrap(st, "'%s'", in->path);
        }
    }
    if (!st) {
        v = meta2(r, "avro.schema", &len);
        if (!v) st = floe_error(FLOE_ERR_CORRUPT, "'%s': header has no avro.schema", in->path);
        else st = floe_status_wrap(floe_avro_schema_parse((const char *)v, len, &r->wschema),
                                   "'%s': avro.schema", in->path);
    }
    if (!st) {
        r->rschema = reader_schema ? reader_schema : r->wschema;
        st = floe_status_wrap(floe_avro_resolver_new(r->wschema, r->rschema, &r->res), "'%s'", in->path);
    }
    if (st) {
        floe_avro_reader_close(r);
        return st;
    }
    *out = r;
    return NULL;
}

void floe_avro_reader_close(floe_avro_reader *r) {
    if (!r) return;
    floe_avro_resolver_free(r->res);
    floe_avro_schema_free(r->wschema);
    free_meta(r->meta, r->n_meta);
    floe_buf_free(&r->win);
    floe_buf_free(&r->data);
    floe_free(r);
}

const floe_avro_schema *floe_avro_reader_writer_schema(const floe_avro_reader *r) { return r->wschema; }
const floe_avro_schema *floe_avro_reader_schema(const floe_avro_reader *r) { return r->rschema; }
floe_avro_codec floe_avro_reader_codec(const floe_avro_reader *r) { return r->codec; }
size_t floe_avro_reader_meta_count(const floe_avro_reader *r) { return r->n_meta; }
const floe_avro_meta *floe_avro_reader_meta_at(const floe_avro_reader *r, size_t i) {
    return i < r->n_meta ? &r->meta[i] : NULL;
}
uint64_t floe_avro_reader_blocks(const floe_avro_reader *r) { return r->blocks; }
uint64_t floe_avro_reader_records(const floe_avro_reader *r) { return r->records; }

static floe_status block_err(const floe_avro_reader *r, const char *fmt, ...) FLOE_PRINTF(2, 3);
static floe_status block_err(const floe_avro_reader *r, const char *fmt, ...) {
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return floe_error(FLOE_ERR_CORRUPT, "'%s': block %" PRIu64 " at offset %" PRIu64 ": %s",
                      r->in->path, r->blocks, r->block_pos, msg);
}

static int parse_varint(const uint8_t *p, size_t n, int64_t *out, size_t *used) {
    uint64_t v = 0;
    for (size_t i = 0; i < n && i < 10; i++) {
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *out = (int64_t)((v >> 1) ^ (~(v & 1) + 1));
            *used = i + 1;
            return 0;
        }
    }
    return -1;
}

/* Decompress raw[0..n) into r->data per the file's codec; sets bstart/bend. */
static floe_status inflate_block(floe_avro_reader *r, const uint8_t *src, size_t n) {
    floe_status st = NULL;
    floe_buf_clear(&r->data);
    switch (r->codec) {
    case FLOE_AVRO_CODEC_NULL:
        r->bstart = src;
        r->bend = src + n;
        return NULL;
    case FLOE_AVRO_CODEC_DEFLATE: st = floe_decompress_grow(FLOE_CODEC_DEFLATE, src, n, &r->data); break;
    case FLOE_AVRO_CODEC_ZSTD: st = floe_decompress_grow(FLOE_CODEC_ZSTD, src, n, &r->data); break;
    case FLOE_AVRO_CODEC_SNAPPY: {
        if (n < 4) return block_err(r, "snappy block of %zu bytes has no CRC", n);
        st = floe_decompress_grow(FLOE_CODEC_SNAPPY, src, n - 4, &r->data);
        if (st) break;
        const uint8_t *c = src + n - 4;
        uint32_t want = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
        uint32_t got = (uint32_t)crc32(0L, r->data.data ? r->data.data : (const Bytef *)"", (uInt)r->data.len);
        if (got != want)
            return block_err(r, "snappy CRC32 mismatch (stored %08x, computed %08x)", want, got);
        break;
    }
    }
    if (st) {
        floe_status e = block_err(r, "%s", floe_status_message(st));
        floe_status_free(st);
        return e;
    }
    r->bstart = r->data.data ? r->data.data : (const uint8_t *)"";
    r->bend = r->bstart + r->data.len;
    return NULL;
}

/* Stray bytes after the last block that are only whitespace/NULs. */
static int ignorable_tail(const uint8_t *p, size_t n) {
    if (n >= SYNC_LEN) return 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] != '\n' && p[i] != '\r' && p[i] != ' ' && p[i] != '\t' && p[i] != 0) return 0;
    return 1;
}

/* Load the next block; sets r->eof at the end of the file. */
static floe_status next_block(floe_avro_reader *r) {
    floe_input *in = r->in;
    uint64_t pos = r->next_pos;
    r->block_pos = pos;
    if (pos >= r->data_end) {
        r->eof = 1;
        return NULL;
    }
    const uint8_t *hdr;
    size_t hn = r->data_end - pos < 20 ? (size_t)(r->data_end - pos) : 20;
    FLOE_TRY(fetch(r, pos, hn, &hdr));
    int64_t count, size;
    size_t u1, u2;
    if (parse_varint(hdr, hn, &count, &u1) || parse_varint(hdr + u1, hn - u1, &size, &u2)) {
        if (ignorable_tail(hdr, hn)) {
            r->eof = 1;
            return NULL;
        }
        return block_err(r, "truncated block header (%zu bytes left in the file)", hn);
    }
    if (count < 0 || size < 0) return block_err(r, "negative record count or size (%" PRId64 ", %" PRId64 ")", count, size);
    uint64_t need = (uint64_t)size + SYNC_LEN;
    if (need > r->data_end - pos - u1 - u2)
        return block_err(r, "%" PRId64 " bytes of data and sync marker run past the end of the file "
                            "(%" PRIu64 " bytes)", size, in->size);
    const uint8_t *dst;
    FLOE_TRY(fetch(r, pos + u1 + u2, (size_t)need, &dst));
    if (memcmp(dst + size, r->sync, SYNC_LEN) != 0)
        return block_err(r, "sync marker mismatch after %" PRId64 " bytes of data", size);
    FLOE_TRY(inflate_block(r, dst, (size_t)size));
    size_t dlen = (size_t)(r->bend - r->bstart);
    if ((uint64_t)count > dlen && count > 1000000)
        return block_err(r, "%" PRId64 " records cannot fit in %zu bytes", count, dlen);
    r->bp = r->bstart;
    r->left = (uint64_t)count;
    r->next_pos = pos + u1 + u2 + need;
    r->blocks++;
    return NULL;
}

/* Legacy layout: the data region is one buffer of [count][records][sync]
 * groups ending with a count of -1. */
static floe_status next_legacy_block(floe_avro_reader *r) {
    if (!r->bstart) {
        uint64_t n = r->data_end - r->next_pos;
        if (n > LEGACY_MAX) return floe_error(FLOE_ERR_UNSUPPORTED, "'%s': legacy Avro file too large", r->in->path);
        const uint8_t *dst;
        FLOE_TRY(fetch(r, r->next_pos, (size_t)n, &dst));
        r->bstart = r->bp = dst;
        r->bend = dst + n;
    } else {
        if ((size_t)(r->bend - r->bp) < SYNC_LEN || memcmp(r->bp, r->sync, SYNC_LEN) != 0)
            return block_err(r, "sync marker mismatch");
        r->bp += SYNC_LEN;
    }
    r->block_pos = r->next_pos + (uint64_t)(r->bp - r->bstart);
    int64_t count;
    size_t used;
    if (parse_varint(r->bp, (size_t)(r->bend - r->bp), &count, &used))
        return block_err(r, "truncated block count");
    r->bp += used;
    if (count < 0) {
        r->eof = 1;
        return NULL;
    }
    if ((uint64_t)count > (uint64_t)(r->bend - r->bp) && count > 1000000)
        return block_err(r, "%" PRId64 " records cannot fit", count);
    r->left = (uint64_t)count;
    r->blocks++;
    return NULL;
}

floe_status floe_avro_reader_next(floe_avro_reader *r, floe_arena *arena,
                                  floe_avro_value *out, int *has_row) {
    *has_row = 0;
    while (!r->eof && r->left == 0) {
        if (!r->legacy && r->bp != r->bend && r->blocks > 0)
            return block_err(r, "%zu bytes left over after the block's records",
                             (size_t)(r->bend - r->bp));
        FLOE_TRY(r->legacy ? next_legacy_block(r) : next_block(r));
    }
    if (r->eof) return NULL;
    size_t used = 0;
    floe_status st = floe_avro_decode_resolved(r->res, r->bp, (size_t)(r->bend - r->bp), arena, out, &used);
    if (st) {
        floe_status e = floe_error(floe_status_code(st), "'%s': block %" PRIu64 " at offset %" PRIu64
                                   ", record %" PRIu64 " (at byte %zu of the block's data): %s",
                                   r->in->path, r->blocks - 1, r->block_pos, r->records,
                                   (size_t)(r->bp - r->bstart), floe_status_message(st));
        floe_status_free(st);
        return e;
    }
    r->bp += used;
    r->left--;
    r->records++;
    /* Check the end of the block now, so the last record's trailing bytes
     * are reported even if the caller stops at the record count. */
    if (r->left == 0 && !r->legacy && r->bp != r->bend) {
        return block_err(r, "%zu bytes left over after the block's records", (size_t)(r->bend - r->bp));
    }
    *has_row = 1;
    return NULL;
}

/* ---- writer --------------------------------------------------------------- */

struct floe_avro_writer {
    floe_output *out;
    const floe_avro_schema *schema;
    floe_avro_writer_options opt;
    uint8_t sync[SYNC_LEN];
    floe_buf block, packed, head;
    uint64_t in_block, records;
};

static floe_status put_long(floe_buf *b, int64_t x) {
    uint8_t tmp[10];
    uint64_t v = ((uint64_t)x << 1) ^ (uint64_t)(x >> 63);
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    return floe_buf_append(b, tmp, n);
}

static floe_status put_bytes(floe_buf *b, const void *p, size_t n) {
    FLOE_TRY(put_long(b, (int64_t)n));
    return floe_buf_append(b, p, n);
}

static void random_sync(uint8_t *sync) {
    if (getrandom(sync, SYNC_LEN, 0) == SYNC_LEN) return;
    /* Fallback: not secret, only needs to be unlikely to occur in data. */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)(uintptr_t)sync;
    for (int i = 0; i < SYNC_LEN; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        sync[i] = (uint8_t)x;
    }
}

floe_status floe_avro_writer_open(floe_output *out, const floe_avro_schema *schema,
                                  const floe_avro_meta *meta, size_t n_meta,
                                  const floe_avro_writer_options *opts, floe_avro_writer **wout) {
    *wout = NULL;
    for (size_t i = 0; i < n_meta; i++)
        if (!strcmp(meta[i].key, "avro.schema") || !strcmp(meta[i].key, "avro.codec"))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Avro writer: metadata key '%s' is reserved",
                              meta[i].key);
    FLOE_TRY_CTX(floe_avro_schema_check_defaults(schema), "Avro writer");
    floe_avro_writer *w = floe_calloc(1, sizeof *w);
    if (!w) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory starting an Avro file");
    w->out = out;
    w->schema = schema;
    if (opts) w->opt = *opts;
    if (!w->opt.block_size) w->opt.block_size = 64 * 1024;
    random_sync(w->sync);

    floe_buf schema_json = FLOE_BUF_INIT;
    floe_buf *h = &w->head;
    const char *codec = floe_avro_codec_name(w->opt.codec);
    floe_status st = floe_avro_schema_to_json(schema, 0, &schema_json);
    if (!st) st = floe_buf_append(h, "Obj\x01", 4);
    if (!st) st = put_long(h, (int64_t)n_meta + 2);
    if (!st) st = put_bytes(h, "avro.schema", 11);
    if (!st) st = put_bytes(h, schema_json.data, schema_json.len);
    if (!st) st = put_bytes(h, "avro.codec", 10);
    if (!st) st = put_bytes(h, codec, strlen(codec));
    for (size_t i = 0; !st && i < n_meta; i++) {
        st = put_bytes(h, meta[i].key, strlen(meta[i].key));
        if (!st) st = put_bytes(h, meta[i].value, meta[i].len);
    }
    if (!st) st = put_long(h, 0);
    if (!st) st = floe_buf_append(h, w->sync, SYNC_LEN);
    if (!st) st = floe_output_write(out, h->data, h->len);
    floe_buf_free(&schema_json);
    if (st) {
        floe_avro_writer_abort(w);
        return floe_status_wrap(st, "writing Avro header to '%s'", out->path ? out->path : "?");
    }
    *wout = w;
    return NULL;
}

static floe_status flush_block(floe_avro_writer *w) {
    if (w->in_block == 0) return NULL;
    const floe_buf *src = &w->block;
    floe_buf_clear(&w->packed);
    floe_status st = NULL;
    switch (w->opt.codec) {
    case FLOE_AVRO_CODEC_NULL: break;
    case FLOE_AVRO_CODEC_DEFLATE:
        st = floe_compress(FLOE_CODEC_DEFLATE, w->opt.level, w->block.data, w->block.len, &w->packed);
        src = &w->packed;
        break;
    case FLOE_AVRO_CODEC_ZSTD:
        st = floe_compress(FLOE_CODEC_ZSTD, w->opt.level, w->block.data, w->block.len, &w->packed);
        src = &w->packed;
        break;
    case FLOE_AVRO_CODEC_SNAPPY: {
        st = floe_compress(FLOE_CODEC_SNAPPY, 0, w->block.data, w->block.len, &w->packed);
        uint32_t c = (uint32_t)crc32(0L, w->block.data, (uInt)w->block.len);
        uint8_t be[4] = {(uint8_t)(c >> 24), (uint8_t)(c >> 16), (uint8_t)(c >> 8), (uint8_t)c};
        if (!st) st = floe_buf_append(&w->packed, be, 4);
        src = &w->packed;
        break;
    }
    }
    floe_buf_clear(&w->head);
    if (!st) st = put_long(&w->head, (int64_t)w->in_block);
    if (!st) st = put_long(&w->head, (int64_t)src->len);
    if (!st) st = floe_output_write(w->out, w->head.data, w->head.len);
    if (!st) st = floe_output_write(w->out, src->data, src->len);
    if (!st) st = floe_output_write(w->out, w->sync, SYNC_LEN);
    if (st) return st;
    floe_buf_clear(&w->block);
    w->in_block = 0;
    return NULL;
}

floe_status floe_avro_writer_append(floe_avro_writer *w, const floe_avro_value *v) {
    FLOE_TRY_CTX(floe_avro_encode_datum(w->schema, v, &w->block), "Avro record %" PRIu64, w->records);
    w->in_block++;
    w->records++;
    if (w->block.len >= w->opt.block_size) return flush_block(w);
    return NULL;
}

floe_status floe_avro_writer_append_encoded(floe_avro_writer *w, const uint8_t *data, size_t len) {
    FLOE_TRY(floe_buf_append(&w->block, data, len));
    w->in_block++;
    w->records++;
    if (w->block.len >= w->opt.block_size) return flush_block(w);
    return NULL;
}

uint64_t floe_avro_writer_records(const floe_avro_writer *w) { return w->records; }

void floe_avro_writer_abort(floe_avro_writer *w) {
    if (!w) return;
    floe_buf_free(&w->block);
    floe_buf_free(&w->packed);
    floe_buf_free(&w->head);
    floe_free(w);
}

floe_status floe_avro_writer_finish(floe_avro_writer *w) {
    floe_status st = flush_block(w);
    floe_avro_writer_abort(w);
    return st;
}

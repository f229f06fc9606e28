/*
 * column_writer.c — builds one Parquet column chunk at a time from shredded
 * levels and values: converts values to their physical form, keeps page and
 * chunk statistics, dictionary-encodes until the dictionary grows past its
 * limit (or turns out not to pay after the first page), cuts pages at row
 * boundaries by size and row count, encodes, compresses and checksums each
 * page and keeps the compressed pages until the row group is written.
 *
 * Page layout, v1: [rep levels][def levels][values], compressed as one,
 * the levels each a 4-byte little-endian length and RLE/bit-packed runs,
 * present only when the column's max level is above zero.  v2: the same
 * levels without lengths, uncompressed, then the compressed values.
 * Dictionary-encoded values are one byte of bit width then RLE/bit-packed
 * indices; the dictionary page (PLAIN entries) is built when the chunk is
 * finished and written before the data pages, whose offsets count from it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "floe/memory.h"
#include "formats/parquet/encoding.h"
#include "formats/parquet/writer_internal.h"

/* Levels per step between page-limit checks. */
#define STEP_LEVELS 4096

struct pqw_column {
    const pqw_leaf *leaf;
    pqw_column_config cfg;
    int32_t width;             /* physical fixed width; 0 BYTE_ARRAY, 1 BOOLEAN (bytes) */

    /* scratch */
    floe_buf conv;             /* converted fixed values of one step */
    floe_strview *views;       /* BYTE_ARRAY values of one step */
    int64_t views_cap;
    uint32_t *u32;             /* levels widened for the RLE encoder */
    int64_t u32_cap;
    floe_buf body, comp, tmp, levels;

    /* the open page */
    int16_t *def, *rep;
    int64_t n_levels, lev_cap;
    int64_t page_rows, page_values, page_first_row;
    int64_t page_plain_bytes;  /* what the page's values take PLAIN (dictionary check) */
    floe_buf values;           /* PLAIN values (BOOLEAN: one byte per value) */
    uint32_t *idx;             /* dictionary indices */
    int64_t n_idx, idx_cap;
    pqw_stats page_stats;

    /* the dictionary of the open chunk */
    bool dict_on;
    bool dict_used;            /* some page of this chunk holds indices */
    floe_buf dict;             /* PLAIN encoded entries */
    uint32_t *dict_pos;        /* entry -> offset in dict (BYTE_ARRAY: of its length) */
    uint64_t *dict_hash;
    uint32_t n_dict, dict_cap;
    uint64_t *ht;              /* (hash high 32 bits << 32) | (entry + 1); 0 = empty */
    uint32_t ht_mask;

    /* the open chunk */
    pqw_chunk chunk;
    uint64_t *bh;              /* Bloom filter: hashes of the chunk's values */
    int64_t n_bh, bh_cap;
    int32_t page_enc_count[11]; /* data pages per value encoding */
};

static floe_status oom(const pqw_column *c) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Parquet writer: column '%s': out of memory",
                      c->leaf->dotted);
}

int32_t pqw_codec_id(floe_codec c) {
    switch (c) {
    case FLOE_CODEC_NONE: return FLOE_PQ_CODEC_UNCOMPRESSED;
    case FLOE_CODEC_SNAPPY: return FLOE_PQ_CODEC_SNAPPY;
    case FLOE_CODEC_GZIP: return FLOE_PQ_CODEC_GZIP;
    case FLOE_CODEC_ZSTD: return FLOE_PQ_CODEC_ZSTD;
    case FLOE_CODEC_LZ4_RAW: return FLOE_PQ_CODEC_LZ4_RAW;
    case FLOE_CODEC_BROTLI: return FLOE_PQ_CODEC_BROTLI;
    default: return -1;
    }
}

void pqw_chunk_free(pqw_chunk *c) {
    floe_buf_free(&c->bytes);
    floe_buf_free(&c->dict_page);
    floe_buf_free(&c->bloom);
    pqw_stats_free(&c->stats);
    for (int32_t i = 0; i < c->n_pages; i++) {
        floe_free(c->pages[i].min);
        floe_free(c->pages[i].max);
    }
    floe_free(c->pages);
    memset(c, 0, sizeof *c);
}

static void start_chunk(pqw_column *c) {
    pqw_stats_init(&c->chunk.stats, c->leaf->order, c->leaf->type_length);
    c->chunk.index_ok = true;
    c->dict_on = c->cfg.encoding == FLOE_PQ_WENC_DICTIONARY;
    c->dict_used = false;
    floe_buf_clear(&c->dict);
    c->n_dict = 0;
    if (c->ht) memset(c->ht, 0, ((size_t)c->ht_mask + 1) * sizeof *c->ht);
    memset(c->page_enc_count, 0, sizeof c->page_enc_count);
}

floe_status pqw_column_new(const pqw_leaf *leaf, const pqw_column_config *cfg, pqw_column **out) {
    pqw_column *c = floe_calloc(1, sizeof *c);
    if (!c) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    c->leaf = leaf;
    c->cfg = *cfg;
    switch (leaf->phys) {
    case FLOE_PQ_BOOLEAN: c->width = 1; break;
    case FLOE_PQ_INT32: case FLOE_PQ_FLOAT: c->width = 4; break;
    case FLOE_PQ_INT64: case FLOE_PQ_DOUBLE: c->width = 8; break;
    case FLOE_PQ_FIXED_LEN_BYTE_ARRAY: c->width = leaf->type_length; break;
    default: c->width = 0; break;
    }
    /* Dictionaries and Bloom filters make no sense for booleans or all-null
     * columns. */
    if (leaf->phys == FLOE_PQ_BOOLEAN || leaf->type->id == FLOE_TYPE_NULL) {
        if (c->cfg.encoding == FLOE_PQ_WENC_DICTIONARY) c->cfg.encoding = FLOE_PQ_WENC_PLAIN;
        c->cfg.bloom = false;
    }
    pqw_stats_init(&c->page_stats, leaf->order, leaf->type_length);
    start_chunk(c);
    *out = c;
    return NULL;
}

void pqw_column_free(pqw_column *c) {
    if (!c) return;
    floe_buf_free(&c->conv);
    floe_free(c->views);
    floe_free(c->u32);
    floe_buf_free(&c->body);
    floe_buf_free(&c->comp);
    floe_buf_free(&c->tmp);
    floe_buf_free(&c->levels);
    floe_free(c->def);
    floe_free(c->rep);
    floe_buf_free(&c->values);
    floe_free(c->idx);
    pqw_stats_free(&c->page_stats);
    floe_buf_free(&c->dict);
    floe_free(c->dict_pos);
    floe_free(c->dict_hash);
    floe_free(c->ht);
    floe_free(c->bh);
    pqw_chunk_free(&c->chunk);
    floe_free(c);
}

/* ------------------------------------------------------------ conversion */

static floe_status decimal_range(const pqw_column *c, int64_t slot) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                      "Parquet writer: column '%s': decimal at slot %lld does not fit "
                      "precision %d", c->leaf->dotted, (long long)slot, c->leaf->type->precision);
}

/* Convert values at `slots` of the leaf array to the physical type, into
 * dst (n * width bytes). */
static floe_status convert_fixed(pqw_column *c, const floe_array *a, const int64_t *slots,
                                 int64_t n, uint8_t *dst) {
    const floe_type *t = a->type;
    switch (t->id) {
    case FLOE_TYPE_BOOL:
        for (int64_t i = 0; i < n; i++) dst[i] = floe_array_get_bool(a, slots[i]);
        return NULL;
    case FLOE_TYPE_DECIMAL128: {
        const floe_decimal128 *v = (const floe_decimal128 *)a->buffers[0]->data + a->offset;
        if (c->leaf->phys == FLOE_PQ_INT32) {
            int32_t *o = (int32_t *)dst;
            for (int64_t i = 0; i < n; i++) {
                floe_decimal128 d = v[slots[i]];
                int64_t lo = (int64_t)d.lo;
                if (d.hi != (lo >> 63) || lo < INT32_MIN || lo > INT32_MAX)
                    return decimal_range(c, slots[i]);
                o[i] = (int32_t)lo;
            }
        } else if (c->leaf->phys == FLOE_PQ_INT64) {
            int64_t *o = (int64_t *)dst;
            for (int64_t i = 0; i < n; i++) {
                floe_decimal128 d = v[slots[i]];
                if (d.hi != ((int64_t)d.lo >> 63)) return decimal_range(c, slots[i]);
                o[i] = (int64_t)d.lo;
            }
        } else {
            /* Big-endian, the low `w` bytes; the dropped ones must be the
             * sign extension of what is kept. */
            int32_t w = c->width;
            for (int64_t i = 0; i < n; i++) {
                floe_decimal128 d = v[slots[i]];
                uint8_t be[16];
                for (int b = 0; b < 8; b++) {
                    be[15 - b] = (uint8_t)(d.lo >> (8 * b));
                    be[7 - b] = (uint8_t)((uint64_t)d.hi >> (8 * b));
                }
                uint8_t ext = (be[16 - w] & 0x80) ? 0xFF : 0x00;
                for (int b = 0; b < 16 - w; b++)
                    if (be[b] != ext) return decimal_range(c, slots[i]);
                memcpy(dst + (size_t)i * (size_t)w, be + 16 - w, (size_t)w);
            }
        }
        return NULL;
    }
    default: {
        /* Same bytes in Arrow and Parquet (little-endian numbers, raw fixed). */
        size_t w = (size_t)c->width;
        const uint8_t *src = a->buffers[0]->data + (size_t)a->offset * w;
        if (w == 4) {
            const uint32_t *s32 = (const uint32_t *)src;
            uint32_t *d32 = (uint32_t *)dst;
            for (int64_t i = 0; i < n; i++) d32[i] = s32[slots[i]];
        } else if (w == 8) {
            const uint64_t *s64 = (const uint64_t *)src;
            uint64_t *d64 = (uint64_t *)dst;
            for (int64_t i = 0; i < n; i++) d64[i] = s64[slots[i]];
        } else {
            for (int64_t i = 0; i < n; i++)
                memcpy(dst + (size_t)i * w, src + (size_t)slots[i] * w, w);
        }
        return NULL;
    }
    }
}

static void stats_fixed(pqw_column *c, const uint8_t *v, int64_t n, floe_status *st) {
    pqw_stats *s = &c->page_stats;
    switch (c->leaf->order) {
    case PQW_ORD_BOOL: pqw_stats_bools(s, v, n); break;
    case PQW_ORD_I32: pqw_stats_i32(s, (const int32_t *)v, n); break;
    case PQW_ORD_I64: pqw_stats_i64(s, (const int64_t *)v, n); break;
    case PQW_ORD_FLOAT: pqw_stats_float(s, (const float *)v, n); break;
    case PQW_ORD_DOUBLE: pqw_stats_double(s, (const double *)v, n); break;
    case PQW_ORD_NONE: break;
    default: *st = pqw_stats_fixed(s, v, n); break;
    }
}

/* ------------------------------------------------------------ dictionary */

static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return x;
}

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
    uint64_t h = 0x243F6A8885A308D3ull ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = mix64(h ^ w);
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    return mix64(h ^ w ^ ((uint64_t)n << 56));
}

/* Bytes of entry e (the value, without a length prefix). */
static inline const uint8_t *dict_entry(const pqw_column *c, uint32_t e, size_t *len) {
    if (c->width) {
        *len = (size_t)c->width;
        return c->dict.data + (size_t)e * (size_t)c->width;
    }
    uint32_t l;
    memcpy(&l, c->dict.data + c->dict_pos[e], 4);
    *len = l;
    return c->dict.data + c->dict_pos[e] + 4;
}

static floe_status dict_grow_table(pqw_column *c) {
    uint32_t cap = c->ht ? (c->ht_mask + 1) * 2 : 1024;
    uint64_t *ht = floe_calloc(cap, sizeof *ht);
    if (!ht) return oom(c);
    for (uint32_t e = 0; e < c->n_dict; e++) {
        uint64_t hash = c->dict_hash[e];
        uint32_t h = (uint32_t)hash & (cap - 1);
        while (ht[h]) h = (h + 1) & (cap - 1);
        ht[h] = (hash & 0xFFFFFFFF00000000ull) | (e + 1);
    }
    floe_free(c->ht);
    c->ht = ht;
    c->ht_mask = cap - 1;
    return NULL;
}

/* Add a new entry (the caller probed and found no match ending at slot h). */
static floe_status dict_insert(pqw_column *c, const uint8_t *v, size_t len, uint64_t hash,
                               uint32_t *out) {
    if (c->n_dict == c->dict_cap) {
        uint32_t cap = c->dict_cap ? c->dict_cap * 2 : 256;
        uint64_t *hh = floe_realloc(c->dict_hash, (size_t)cap * sizeof *hh);
        if (!hh) return oom(c);
        c->dict_hash = hh;
        uint32_t *pp = floe_realloc(c->dict_pos, (size_t)cap * sizeof *pp);
        if (!pp) return oom(c);
        c->dict_pos = pp;
        c->dict_cap = cap;
    }
    uint32_t e = c->n_dict++;
    c->dict_hash[e] = hash;
    c->dict_pos[e] = (uint32_t)c->dict.len;
    if (!c->width) {
        uint32_t l = (uint32_t)len;
        FLOE_TRY(floe_buf_append(&c->dict, &l, 4));
    }
    FLOE_TRY(floe_buf_append(&c->dict, v, len));
    uint32_t h = (uint32_t)hash & c->ht_mask;
    while (c->ht[h]) h = (h + 1) & c->ht_mask;
    c->ht[h] = (hash & 0xFFFFFFFF00000000ull) | (e + 1);
    *out = e;
    return NULL;
}

static inline floe_status dict_reserve(pqw_column *c) {
    if (!c->ht || (uint64_t)(c->n_dict + 1) * 2 > (uint64_t)c->ht_mask + 1)
        return dict_grow_table(c);
    return NULL;
}

/* Index of the value, inserting it if new.  A table slot keeps the hash's
 * high half beside the entry number, so most mismatches are rejected
 * without touching the entry. */
static floe_status dict_index(pqw_column *c, const uint8_t *v, size_t len, uint32_t *out) {
    FLOE_TRY(dict_reserve(c));
    uint64_t hash = hash_bytes(v, len);
    uint64_t tag = hash & 0xFFFFFFFF00000000ull;
    uint32_t h = (uint32_t)hash & c->ht_mask;
    for (;;) {
        uint64_t slot = c->ht[h];
        if (!slot) break;
        if ((slot & 0xFFFFFFFF00000000ull) == tag) {
            uint32_t e = (uint32_t)slot - 1;
            size_t elen;
            const uint8_t *ev = dict_entry(c, e, &elen);
            if (elen == len && memcmp(ev, v, len) == 0) {
                *out = e;
                return NULL;
            }
        }
        h = (h + 1) & c->ht_mask;
    }
    return dict_insert(c, v, len, hash, out);
}

/* dict_index for 4- and 8-byte values (INT32/INT64/FLOAT/DOUBLE): hash
 * and compare the value as one integer.  A column always takes the same
 * path, so its table never mixes the two hashes. */
static inline floe_status dict_index_word(pqw_column *c, const uint8_t *v, uint32_t *out) {
    size_t w = (size_t)c->width;
    uint64_t key = 0;
    memcpy(&key, v, w);
    FLOE_TRY(dict_reserve(c));
    uint64_t hash = mix64(0x243F6A8885A308D3ull ^ key);
    uint64_t tag = hash & 0xFFFFFFFF00000000ull;
    uint32_t h = (uint32_t)hash & c->ht_mask;
    for (;;) {
        uint64_t slot = c->ht[h];
        if (!slot) break;
        if ((slot & 0xFFFFFFFF00000000ull) == tag) {
            uint32_t e = (uint32_t)slot - 1;
            uint64_t ev = 0;
            memcpy(&ev, c->dict.data + (size_t)e * w, w);
            if (ev == key) {
                *out = e;
                return NULL;
            }
        }
        h = (h + 1) & c->ht_mask;
    }
    return dict_insert(c, v, w, hash, out);
}

static floe_status reserve_idx(pqw_column *c, int64_t more) {
    if (c->n_idx + more <= c->idx_cap) return NULL;
    int64_t cap = c->idx_cap ? c->idx_cap : 1024;
    while (cap < c->n_idx + more) cap *= 2;
    uint32_t *p = floe_realloc(c->idx, (size_t)cap * sizeof *p);
    if (!p) return oom(c);
    c->idx = p;
    c->idx_cap = cap;
    return NULL;
}

/* ------------------------------------------------------------ values */

static int cmp_hash(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Room for `more` Bloom hashes.  Before growing a large array, repeated
 * values are dropped, so memory follows the distinct values of the chunk. */
static floe_status reserve_bh(pqw_column *c, int64_t more) {
    if (c->n_bh + more <= c->bh_cap) return NULL;
    if (c->n_bh >= 65536) {
        qsort(c->bh, (size_t)c->n_bh, sizeof *c->bh, cmp_hash);
        int64_t u = 0;
        for (int64_t i = 0; i < c->n_bh; i++)
            if (i == 0 || c->bh[i] != c->bh[u - 1]) c->bh[u++] = c->bh[i];
        c->n_bh = u;
        if (c->n_bh + more <= c->bh_cap && c->n_bh < c->bh_cap / 2) return NULL;
    }
    int64_t cap = c->bh_cap ? c->bh_cap : 1024;
    while (cap < c->n_bh + more) cap *= 2;
    uint64_t *p = floe_realloc(c->bh, (size_t)cap * sizeof *p);
    if (!p) return oom(c);
    c->bh = p;
    c->bh_cap = cap;
    return NULL;
}

static floe_status add_values(pqw_column *c, const floe_array *a, const int64_t *slots,
                              int64_t n) {
    if (n == 0) return NULL;
    floe_status st = NULL;
    if (c->width) {
        size_t bytes = (size_t)n * (size_t)c->width;
        uint8_t *dst;
        if (c->dict_on) {
            floe_buf_clear(&c->conv);
            dst = floe_buf_extend(&c->conv, bytes);
        } else {
            dst = floe_buf_extend(&c->values, bytes);
        }
        if (!dst) return oom(c);
        FLOE_TRY(convert_fixed(c, a, slots, n, dst));
        c->page_plain_bytes += (int64_t)bytes;
        stats_fixed(c, dst, n, &st);
        if (st) return st;
        if (c->cfg.bloom) {
            FLOE_TRY(reserve_bh(c, n));
            for (int64_t i = 0; i < n; i++)
                c->bh[c->n_bh++] = pqw_xxh64(dst + (size_t)i * (size_t)c->width, (size_t)c->width);
        }
        if (c->dict_on) {
            FLOE_TRY(reserve_idx(c, n));
            if (c->width == 4 || c->width == 8) {
                for (int64_t i = 0; i < n; i++)
                    FLOE_TRY(dict_index_word(c, dst + (size_t)i * (size_t)c->width,
                                             &c->idx[c->n_idx++]));
            } else {
                for (int64_t i = 0; i < n; i++)
                    FLOE_TRY(dict_index(c, dst + (size_t)i * (size_t)c->width,
                                        (size_t)c->width, &c->idx[c->n_idx++]));
            }
        }
    } else {
        if (n > c->views_cap) {
            floe_strview *v = floe_realloc(c->views, (size_t)n * sizeof *v);
            if (!v) return oom(c);
            c->views = v;
            c->views_cap = n;
        }
        for (int64_t i = 0; i < n; i++) {
            c->views[i] = floe_array_get_str(a, slots[i]);
            c->page_plain_bytes += 4 + (int64_t)c->views[i].len;
        }
        FLOE_TRY(pqw_stats_binary(&c->page_stats, c->views, n));
        if (c->cfg.bloom) {
            FLOE_TRY(reserve_bh(c, n));
            for (int64_t i = 0; i < n; i++)
                c->bh[c->n_bh++] = pqw_xxh64(c->views[i].data, (size_t)c->views[i].len);
        }
        if (c->dict_on) {
            FLOE_TRY(reserve_idx(c, n));
            for (int64_t i = 0; i < n; i++)
                FLOE_TRY(dict_index(c, (const uint8_t *)c->views[i].data,
                                    (size_t)c->views[i].len, &c->idx[c->n_idx++]));
        } else {
            size_t total = 0;
            for (int64_t i = 0; i < n; i++) total += 4 + (size_t)c->views[i].len;
            uint8_t *dst = floe_buf_extend(&c->values, total);
            if (!dst) return oom(c);
            for (int64_t i = 0; i < n; i++) {
                uint32_t l = (uint32_t)c->views[i].len;
                memcpy(dst, &l, 4);
                if (l) memcpy(dst + 4, c->views[i].data, l);
                dst += 4 + l;
            }
        }
    }
    c->page_values += n;
    return NULL;
}

/* After the first dictionary page of a chunk: is the dictionary paying for
 * itself?  If the dictionary plus the indices are no smaller than the values
 * written PLAIN (mostly distinct values), the rest of the chunk is PLAIN,
 * which also spares hashing every value. */
static bool dictionary_worthwhile(const pqw_column *c) {
    int bw = pq_bit_width(c->n_dict ? c->n_dict - 1 : 0);
    int64_t idx_bytes = c->n_idx * (bw ? bw : 1) / 8 + 1;
    return (int64_t)c->dict.len + idx_bytes < c->page_plain_bytes;
}

/* ------------------------------------------------------------ pages */

static floe_status widen(pqw_column *c, const int16_t *lv, int64_t n) {
    if (n > c->u32_cap) {
        uint32_t *p = floe_realloc(c->u32, (size_t)n * sizeof *p);
        if (!p) return oom(c);
        c->u32 = p;
        c->u32_cap = n;
    }
    for (int64_t i = 0; i < n; i++) c->u32[i] = (uint32_t)lv[i];
    return NULL;
}

/* [4-byte length][runs] of levels or booleans. */
static floe_status put_prefixed_rle(pqw_column *c, floe_buf *out, int64_t n, int bw) {
    size_t at = out->len;
    uint32_t zero = 0;
    FLOE_TRY(floe_buf_append(out, &zero, 4));
    FLOE_TRY(pq_rle_encode(out, c->u32, (size_t)n, bw));
    uint32_t len = (uint32_t)(out->len - at - 4);
    memcpy(out->data + at, &len, 4);
    return NULL;
}

static floe_status copy_bytes(const floe_buf *b, uint8_t **out, uint32_t *len) {
    *out = floe_malloc(b->len ? b->len : 1);
    if (!*out) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    if (b->len) memcpy(*out, b->data, b->len);
    *len = (uint32_t)b->len;
    return NULL;
}

/* Fill `ps` from stats, truncating binary bounds; the bytes live in min/max. */
static floe_status fill_stats(const pqw_column *c, const pqw_stats *s, int64_t nulls,
                              floe_buf *min, floe_buf *max, floe_pq_statistics *ps) {
    memset(ps, 0, sizeof *ps);
    ps->has_null_count = true;
    ps->null_count = nulls;
    if (c->leaf->order == PQW_ORD_FLOAT || c->leaf->order == PQW_ORD_DOUBLE) {
        ps->has_nan_count = true;
        ps->nan_count = s->nan_count;
    }
    FLOE_TRY(pqw_stats_bounds(s, min, max));
    if (!s->has_bounds) return NULL;
    bool min_exact = true, max_exact = true;
    if (c->leaf->phys == FLOE_PQ_BYTE_ARRAY) {
        pqw_truncate_min(min, c->cfg.stats_truncate, c->leaf->is_string, &min_exact);
        pqw_truncate_max(max, c->cfg.stats_truncate, c->leaf->is_string, &max_exact);
    }
    ps->min_value = (floe_pq_bytes){min->data ? min->data : (const uint8_t *)"", (uint32_t)min->len, true};
    ps->max_value = (floe_pq_bytes){max->data ? max->data : (const uint8_t *)"", (uint32_t)max->len, true};
    if (pqw_order_is_signed(c->leaf->order)) { /* for readers that predate min_value */
        ps->min = ps->min_value;
        ps->max = ps->max_value;
    }
    ps->has_is_min_value_exact = ps->has_is_max_value_exact = true;
    ps->is_min_value_exact = min_exact;
    ps->is_max_value_exact = max_exact;
    return NULL;
}

static floe_status grow_pages(pqw_chunk *ch) {
    if (ch->n_pages < ch->cap_pages) return NULL;
    int32_t cap = ch->cap_pages ? ch->cap_pages * 2 : 8;
    pqw_page_info *p = floe_realloc(ch->pages, (size_t)cap * sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    ch->pages = p;
    ch->cap_pages = cap;
    return NULL;
}

/* Compress c->body into c->comp (or point at body when uncompressed). */
static floe_status compress_body(pqw_column *c, const floe_buf **out) {
    if (c->cfg.codec == FLOE_CODEC_NONE) {
        *out = &c->body;
        return NULL;
    }
    floe_buf_clear(&c->comp);
    FLOE_TRY_CTX(floe_compress(c->cfg.codec, c->cfg.level, c->body.data, c->body.len, &c->comp),
                 "Parquet writer: column '%s'", c->leaf->dotted);
    *out = &c->comp;
    return NULL;
}

static int32_t value_encoding(const pqw_column *c) {
    if (c->dict_on) return FLOE_PQ_ENC_RLE_DICTIONARY;
    switch (c->cfg.encoding) {
    case FLOE_PQ_WENC_DELTA_BINARY_PACKED: return FLOE_PQ_ENC_DELTA_BINARY_PACKED;
    case FLOE_PQ_WENC_RLE: return FLOE_PQ_ENC_RLE;
    default: return FLOE_PQ_ENC_PLAIN;
    }
}

static floe_status encode_values(pqw_column *c, int32_t enc) {
    floe_buf *b = &c->body;
    switch (enc) {
    case FLOE_PQ_ENC_RLE_DICTIONARY: {
        int bw = pq_bit_width(c->n_dict ? c->n_dict - 1 : 0);
        if (bw < 1) bw = 1;
        FLOE_TRY(floe_buf_append_byte(b, (uint8_t)bw));
        return pq_rle_encode(b, c->idx, (size_t)c->n_idx, bw);
    }
    case FLOE_PQ_ENC_DELTA_BINARY_PACKED:
        if (c->width == 4)
            return pq_delta_encode_i32(b, (const int32_t *)c->values.data, (size_t)c->page_values);
        return pq_delta_encode(b, (const int64_t *)c->values.data, (size_t)c->page_values);
    case FLOE_PQ_ENC_RLE: /* booleans */
        if (c->page_values > c->u32_cap) {
            uint32_t *p = floe_realloc(c->u32, (size_t)c->page_values * sizeof *p);
            if (!p) return oom(c);
            c->u32 = p;
            c->u32_cap = c->page_values;
        }
        for (int64_t i = 0; i < c->page_values; i++) c->u32[i] = c->values.data[i];
        return put_prefixed_rle(c, b, c->page_values, 1);
    default:
        if (c->leaf->phys == FLOE_PQ_BOOLEAN)
            return pq_plain_encode_bool(b, c->values.data, (size_t)c->page_values);
        return floe_buf_append(b, c->values.data, c->values.len);
    }
}

/* Levels, values, compression and header of the open page.  v1: the body
 * [rep][def][values] is compressed whole, levels with length prefixes.
 * v2: levels without prefixes stay uncompressed ahead of the compressed
 * values, their lengths in the header. */
static floe_status flush_page(pqw_column *c) {
    if (c->n_levels == 0) return NULL;
    const pqw_leaf *L = c->leaf;
    bool v2 = c->cfg.page_v2;
    floe_buf *lv = v2 ? &c->levels : &c->body;
    floe_buf_clear(&c->body);
    floe_buf_clear(&c->levels);
    size_t rep_len = 0;
    if (L->max_rep > 0) {
        FLOE_TRY(widen(c, c->rep, c->n_levels));
        int bw = pq_bit_width((uint64_t)L->max_rep);
        if (v2) FLOE_TRY(pq_rle_encode(lv, c->u32, (size_t)c->n_levels, bw));
        else FLOE_TRY(put_prefixed_rle(c, lv, c->n_levels, bw));
        rep_len = lv->len;
    }
    if (L->max_def > 0) {
        FLOE_TRY(widen(c, c->def, c->n_levels));
        int bw = pq_bit_width((uint64_t)L->max_def);
        if (v2) FLOE_TRY(pq_rle_encode(lv, c->u32, (size_t)c->n_levels, bw));
        else FLOE_TRY(put_prefixed_rle(c, lv, c->n_levels, bw));
    }
    size_t levels_len = c->levels.len;
    int32_t enc = value_encoding(c);
    FLOE_TRY(encode_values(c, enc));
    if (c->body.len + levels_len > INT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "Parquet writer: column '%s': page over 2 GiB",
                          L->dotted);
    const floe_buf *body;
    FLOE_TRY(compress_body(c, &body));
    if (v2 && levels_len) {
        /* The page on disk is levels then (compressed) values. */
        floe_buf_clear(&c->tmp);
        FLOE_TRY(floe_buf_append(&c->tmp, c->levels.data, levels_len));
        FLOE_TRY(floe_buf_append(&c->tmp, body->data, body->len));
        body = &c->tmp;
    }

    int64_t nulls = c->n_levels - c->page_values;
    c->page_stats.null_count = nulls;
    floe_pq_page_header ph;
    memset(&ph, 0, sizeof ph);
    ph.uncompressed_page_size = (int32_t)(c->body.len + levels_len);
    ph.compressed_page_size = (int32_t)body->len;
    if (c->cfg.page_crc) {
        ph.has_crc = true;
        ph.crc = (int32_t)(uint32_t)crc32(0L, body->data, (uInt)body->len);
    }
    int32_t wire_enc = enc == FLOE_PQ_ENC_RLE_DICTIONARY && c->cfg.legacy_dictionary
                           ? FLOE_PQ_ENC_PLAIN_DICTIONARY : enc;
    floe_pq_statistics *stats;
    bool *has_stats;
    if (v2) {
        ph.type = FLOE_PQ_PAGE_DATA_V2;
        ph.has_data_page_header_v2 = true;
        floe_pq_data_page_header_v2 *h = &ph.data_page_header_v2;
        h->num_values = (int32_t)c->n_levels;
        h->num_nulls = (int32_t)nulls;
        h->num_rows = (int32_t)c->page_rows;
        h->encoding = wire_enc;
        h->definition_levels_byte_length = (int32_t)(levels_len - rep_len);
        h->repetition_levels_byte_length = (int32_t)rep_len;
        h->is_compressed = c->cfg.codec != FLOE_CODEC_NONE;
        stats = &h->statistics;
        has_stats = &h->has_statistics;
    } else {
        ph.type = FLOE_PQ_PAGE_DATA;
        ph.has_data_page_header = true;
        floe_pq_data_page_header *h = &ph.data_page_header;
        h->num_values = (int32_t)c->n_levels;
        h->encoding = wire_enc;
        h->definition_level_encoding = FLOE_PQ_ENC_RLE;
        h->repetition_level_encoding = FLOE_PQ_ENC_RLE;
        stats = &h->statistics;
        has_stats = &h->has_statistics;
    }
    floe_buf min = FLOE_BUF_INIT, max = FLOE_BUF_INIT;
    floe_status st = NULL;
    /* Columns of the NULL type get statistics too: just their null count. */
    st = fill_stats(c, &c->page_stats, nulls, &min, &max, stats);
    *has_stats = c->cfg.page_stats;
    enc = wire_enc;

    pqw_chunk *ch = &c->chunk;
    if (!st) st = grow_pages(ch);
    int64_t at = (int64_t)ch->bytes.len;
    if (!st) st = floe_pq_encode_page_header(&ph, &ch->bytes);
    if (!st) st = floe_buf_append(&ch->bytes, body->data, body->len);
    if (!st) {
        pqw_page_info *pi = &ch->pages[ch->n_pages];
        memset(pi, 0, sizeof *pi);
        pi->offset = at;
        pi->size = (int32_t)((int64_t)ch->bytes.len - at);
        pi->first_row = c->page_first_row;
        pi->null_count = nulls;
        pi->nan_count = c->page_stats.nan_count;
        pi->null_page = c->page_values == 0;
        pi->has_bounds = c->page_stats.has_bounds;
        if (pi->has_bounds) {
            st = copy_bytes(&min, &pi->min, &pi->min_len);
            if (!st) st = copy_bytes(&max, &pi->max, &pi->max_len);
        }
        ch->n_pages++;
        if (!pi->null_page && !pi->has_bounds) ch->index_ok = false; /* all NaN */
        ch->uncompressed += (int64_t)ch->bytes.len - at - (int64_t)body->len +
                            (int64_t)ph.uncompressed_page_size;
        ch->num_values += c->n_levels;
        c->page_enc_count[enc]++;
        if (enc == FLOE_PQ_ENC_RLE_DICTIONARY || enc == FLOE_PQ_ENC_PLAIN_DICTIONARY)
            c->dict_used = true;
    }
    floe_buf_free(&min);
    floe_buf_free(&max);
    if (!st) st = pqw_stats_merge(&ch->stats, &c->page_stats);
    if (st) return floe_status_wrap(st, "Parquet writer: column '%s'", L->dotted);

    if (c->dict_on && ch->n_pages == 1 && !dictionary_worthwhile(c))
        c->dict_on = false;
    pqw_stats_reset(&c->page_stats);
    c->page_plain_bytes = 0;
    c->n_levels = 0;
    c->page_values = 0;
    c->page_first_row += c->page_rows;
    c->page_rows = 0;
    floe_buf_clear(&c->values);
    c->n_idx = 0;
    return NULL;
}

static int64_t page_estimate(const pqw_column *c) {
    int64_t est = c->n_levels / 4 + 8; /* levels: RLE is rarely above 2 bits each */
    if (c->dict_on) {
        int bw = pq_bit_width(c->n_dict ? c->n_dict - 1 : 0);
        est += c->n_idx * (bw ? bw : 1) / 8;
    } else if (c->leaf->phys == FLOE_PQ_BOOLEAN) {
        est += c->page_values / 8;
    } else {
        est += (int64_t)c->values.len;
    }
    return est;
}

int64_t pqw_column_buffered(const pqw_column *c) {
    return (int64_t)c->chunk.bytes.len + page_estimate(c) +
           (c->dict_on || c->dict_used ? (int64_t)c->dict.len : 0);
}

static floe_status add_levels(pqw_column *c, const pqw_levels *lv, int64_t from, int64_t n) {
    if (c->n_levels + n > c->lev_cap) {
        int64_t cap = c->lev_cap ? c->lev_cap : 1024;
        while (cap < c->n_levels + n) cap *= 2;
        int16_t *d = floe_realloc(c->def, (size_t)cap * sizeof *d);
        if (d) c->def = d;
        int16_t *r = d ? floe_realloc(c->rep, (size_t)cap * sizeof *r) : NULL;
        if (r) c->rep = r;
        if (!d || !r) return oom(c);
        c->lev_cap = cap;
    }
    if (c->leaf->max_def > 0)
        memcpy(c->def + c->n_levels, lv->def + from, (size_t)n * sizeof *c->def);
    if (c->leaf->max_rep > 0)
        memcpy(c->rep + c->n_levels, lv->rep + from, (size_t)n * sizeof *c->rep);
    c->n_levels += n;
    return NULL;
}

/* PLAIN pages of wide values: shrink the step [i, *j) (starting at value v)
 * so the page stays near page_bytes, cutting at a row boundary and keeping
 * at least one row.  Returns the rows left in the step. */
static int64_t cut_by_bytes(const pqw_column *c, const pqw_levels *lv, int64_t i, int64_t *j,
                            int64_t v, int64_t rows) {
    const pqw_leaf *L = c->leaf;
    int64_t room = c->cfg.page_bytes - page_estimate(c);
    if (c->width && (int64_t)c->width * (*j - i) <= room) return rows;
    const floe_array *a = lv->leaf;
    int64_t bytes = 0, r = 1;
    for (int64_t k = i; k < *j; k++) {
        if (k > i && (L->max_rep == 0 || lv->rep[k] == 0)) {
            if (bytes > room) {
                *j = k;
                return r;
            }
            r++;
        }
        if (L->max_def == 0 || lv->def[k] == L->max_def) {
            bytes += c->width ? c->width : 4 + floe_array_get_str(a, lv->slots[v]).len;
            v++;
        }
    }
    return rows;
}

floe_status pqw_column_append(pqw_column *c, const pqw_levels *lv) {
    const pqw_leaf *L = c->leaf;
    int64_t i = 0, v = 0;
    while (i < lv->n) {
        int64_t rows_left = c->cfg.page_rows - c->page_rows;
        if (rows_left < 1) rows_left = 1;
        int64_t j, rows;
        if (L->max_rep == 0) {
            rows = lv->n - i;
            if (rows > rows_left) rows = rows_left;
            if (rows > STEP_LEVELS) rows = STEP_LEVELS;
            j = i + rows;
        } else {
            j = i + 1;
            rows = 1;
            while (j < lv->n) {
                if (lv->rep[j] == 0) {
                    if (rows >= rows_left || j - i >= STEP_LEVELS) break;
                    rows++;
                }
                j++;
            }
        }
        if (!c->dict_on && c->leaf->phys != FLOE_PQ_BOOLEAN && c->width != 4 && c->width != 8)
            rows = cut_by_bytes(c, lv, i, &j, v, rows);
        int64_t nv = j - i;
        if (L->max_def > 0) {
            nv = 0;
            for (int64_t k = i; k < j; k++) nv += lv->def[k] == L->max_def;
        }
        FLOE_TRY(add_levels(c, lv, i, j - i));
        FLOE_TRY(add_values(c, lv->leaf, lv->slots + v, nv));
        c->page_rows += rows;
        i = j;
        v += nv;

        bool dict_full = c->dict_on && (int64_t)c->dict.len > c->cfg.dict_bytes;
        if (dict_full || c->page_rows >= c->cfg.page_rows || page_estimate(c) >= c->cfg.page_bytes)
            FLOE_TRY(flush_page(c));
        if (dict_full) c->dict_on = false; /* the rest of the chunk is PLAIN */
    }
    return NULL;
}

static void add_encoding(pqw_chunk *ch, int32_t e) {
    for (int32_t i = 0; i < ch->n_encodings; i++)
        if (ch->encodings[i] == e) return;
    ch->encodings[ch->n_encodings++] = e;
}

floe_status pqw_column_finish(pqw_column *c, pqw_chunk *out) {
    FLOE_TRY(flush_page(c));
    pqw_chunk *ch = &c->chunk;
    if (c->dict_used) {
        /* Dictionary page: PLAIN entries, then shift the data pages after it. */
        floe_buf_clear(&c->body);
        FLOE_TRY(floe_buf_append(&c->body, c->dict.data, c->dict.len));
        const floe_buf *body;
        FLOE_TRY(compress_body(c, &body));
        floe_pq_page_header ph;
        memset(&ph, 0, sizeof ph);
        ph.type = FLOE_PQ_PAGE_DICTIONARY;
        ph.uncompressed_page_size = (int32_t)c->body.len;
        ph.compressed_page_size = (int32_t)body->len;
        ph.has_dictionary_page_header = true;
        ph.dictionary_page_header.num_values = (int32_t)c->n_dict;
        ph.dictionary_page_header.encoding =
            c->cfg.legacy_dictionary ? FLOE_PQ_ENC_PLAIN_DICTIONARY : FLOE_PQ_ENC_PLAIN;
        if (c->cfg.page_crc) {
            ph.has_crc = true;
            ph.crc = (int32_t)(uint32_t)crc32(0L, body->data, (uInt)body->len);
        }
        floe_buf_clear(&ch->dict_page);
        FLOE_TRY(floe_pq_encode_page_header(&ph, &ch->dict_page));
        size_t hdr = ch->dict_page.len;
        FLOE_TRY(floe_buf_append(&ch->dict_page, body->data, body->len));
        ch->dict_size = (int64_t)(hdr + body->len);
        ch->uncompressed += (int64_t)(hdr + c->body.len);
        for (int32_t p = 0; p < ch->n_pages; p++) ch->pages[p].offset += ch->dict_size;
        int32_t de = ph.dictionary_page_header.encoding;
        ch->enc_stats[ch->n_enc_stats++] =
            (floe_pq_page_encoding_stats){FLOE_PQ_PAGE_DICTIONARY, de, 1};
        add_encoding(ch, de);
    }
    if (c->leaf->max_def > 0 || c->leaf->max_rep > 0) add_encoding(ch, FLOE_PQ_ENC_RLE);
    static const int32_t order[] = {FLOE_PQ_ENC_RLE_DICTIONARY, FLOE_PQ_ENC_PLAIN_DICTIONARY,
                                    FLOE_PQ_ENC_PLAIN, FLOE_PQ_ENC_DELTA_BINARY_PACKED,
                                    FLOE_PQ_ENC_RLE};
    for (int k = 0; k < 5; k++) {
        int32_t e = order[k];
        if (!c->page_enc_count[e]) continue;
        add_encoding(ch, e);
        if (ch->n_enc_stats < 6)
            ch->enc_stats[ch->n_enc_stats++] =
                (floe_pq_page_encoding_stats){c->cfg.page_v2 ? FLOE_PQ_PAGE_DATA_V2
                                                                : FLOE_PQ_PAGE_DATA,
                                               e, c->page_enc_count[e]};
    }
    if (c->cfg.bloom) {
        FLOE_TRY(pqw_bloom_build(c->bh, (size_t)c->n_bh, c->cfg.bloom_fpp, c->cfg.bloom_max_bytes,
                                 &ch->bloom));
        c->n_bh = 0;
    }
    *out = *ch;
    memset(ch, 0, sizeof *ch);
    c->page_first_row = 0;
    start_chunk(c);
    return NULL;
}

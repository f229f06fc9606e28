/*
 * deletes.c — row-level deletes of a data file: deletion vectors and
 * position delete files merged into one sorted position array, and
 * equality delete key sets.  See floe/iceberg_deletes.h.
 *
 * Positions are kept as a plain sorted int64 array: a DV decodes straight
 * into ascending order, position delete files are nearly always sorted, and
 * a batch query is a binary search plus a walk over the deleted positions
 * that fall in the batch.
 *
 * Equality keys are serialised into a canonical byte string per row (a tag
 * per column, then the value normalised so that promoted types compare
 * equal) and kept in an open-addressing hash table over one byte arena.
 * Probing a data row re-uses one scratch buffer: no allocation per row.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "floe/iceberg_deletes.h"
#include "floe/memory.h"
#include "base/buffer.h"
#include "formats/parquet/reader.h"
#include "iceberg/deletes/roaring.h"

/* ======================================================================
 * position deletes
 * ====================================================================== */

struct floe_ice_posdel {
    floe_i64vec pos;
    bool finished;
};

floe_status floe_ice_posdel_new(floe_ice_posdel **out) {
    *out = floe_calloc(1, sizeof(**out));
    return *out ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "position delete index");
}

void floe_ice_posdel_free(floe_ice_posdel *pd) {
    if (!pd) return;
    floe_i64vec_free(&pd->pos);
    floe_free(pd);
}

floe_status floe_ice_posdel_add(floe_ice_posdel *pd, const int64_t *pos, size_t n) {
    FLOE_TRY(floe_i64vec_reserve(&pd->pos, n));
    for (size_t i = 0; i < n; i++) {
        if (pos[i] < 0) return floe_error(FLOE_ERR_CORRUPT, "negative delete position %lld", (long long)pos[i]);
        pd->pos.v[pd->pos.n++] = pos[i];
    }
    pd->finished = false;
    return NULL;
}

static uint32_t be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

floe_status floe_ice_posdel_add_dv_blob(floe_ice_posdel *pd, const uint8_t *blob, size_t len) {
    static const uint8_t magic[4] = {0xD1, 0xD3, 0x39, 0x64};
    if (len < 12)
        return floe_error(FLOE_ERR_CORRUPT, "deletion vector: %zu bytes is shorter than its 12-byte framing", len);
    uint32_t n = be32(blob);
    if ((uint64_t)n + 8 != len)
        return floe_error(FLOE_ERR_CORRUPT,
                          "deletion vector: length prefix %u at byte 0 disagrees with the blob size %zu (expected %zu)", n,
                          len, len - 8);
    if (n < 4 || memcmp(blob + 4, magic, 4) != 0)
        return floe_error(FLOE_ERR_CORRUPT, "deletion vector: bad magic %02x %02x %02x %02x at byte 4 (want D1 D3 39 64)",
                          blob[4], blob[5], blob[6], blob[7]);
    uint32_t want = be32(blob + 4 + n);
    uint32_t got = (uint32_t)crc32(crc32(0L, Z_NULL, 0), blob + 4, n);
    if (want != got)
        return floe_error(FLOE_ERR_CORRUPT, "deletion vector: CRC-32 mismatch at byte %u (stored %08x, computed %08x)",
                          4 + n, want, got);
    size_t before = pd->pos.n;
    floe_status st = floe_roaring64_decode(blob + 8, n - 4, &pd->pos);
    if (st) {
        pd->pos.n = before;
        return floe_status_wrap(st, "deletion vector bitmap (blob byte 8 onward)");
    }
    pd->finished = false;
    return NULL;
}

floe_status floe_ice_dv_serialize(const int64_t *pos, size_t n, uint8_t **out, size_t *len) {
    *out = NULL;
    *len = 0;
    floe_buf b;
    floe_buf_init(&b);
    static const uint8_t head[8] = {0, 0, 0, 0, 0xD1, 0xD3, 0x39, 0x64};
    floe_status st = floe_buf_append(&b, head, 8);
    if (!st) st = floe_roaring64_encode(pos, n, &b);
    if (!st && b.len - 4 > UINT32_MAX) st = floe_error(FLOE_ERR_UNSUPPORTED, "deletion vector of %zu bytes", b.len);
    if (!st) {
        uint32_t l = (uint32_t)(b.len - 4);
        uint32_t c = (uint32_t)crc32(crc32(0L, Z_NULL, 0), b.data + 4, l);
        uint8_t crc[4] = {(uint8_t)(c >> 24), (uint8_t)(c >> 16), (uint8_t)(c >> 8), (uint8_t)c};
        b.data[0] = (uint8_t)(l >> 24);
        b.data[1] = (uint8_t)(l >> 16);
        b.data[2] = (uint8_t)(l >> 8);
        b.data[3] = (uint8_t)l;
        st = floe_buf_append(&b, crc, 4);
    }
    if (st) {
        floe_buf_free(&b);
        return st;
    }
    *out = floe_buf_detach(&b, len);
    return NULL;
}

floe_status floe_ice_posdel_add_dv(floe_ice_posdel *pd, floe_input *puffin, int64_t offset, int64_t length) {
    const char *path = puffin->path ? puffin->path : "?";
    if (offset < 0 || length < 0 || (uint64_t)offset > puffin->size || (uint64_t)length > puffin->size - (uint64_t)offset)
        return floe_error(FLOE_ERR_CORRUPT, "deletion vector in '%s': range [%lld, +%lld) is outside the file (%llu bytes)",
                          path, (long long)offset, (long long)length, (unsigned long long)puffin->size);
    uint8_t *b = floe_malloc(length ? (size_t)length : 1);
    if (!b) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "deletion vector of %lld bytes", (long long)length);
    floe_status st = floe_input_read(puffin, (uint64_t)offset, (size_t)length, b);
    if (!st) st = floe_ice_posdel_add_dv_blob(pd, b, (size_t)length);
    floe_free(b);
    return floe_status_wrap(st, "deletion vector in '%s' at byte %lld", path, (long long)offset);
}

/* Open a Parquet reader over `pf` projecting field ids, falling back to
 * column names for writers that left the ids out; only the row groups in
 * rgs[0..n_rgs) when rgs is not NULL. */
static floe_status open_reader(floe_pq_file *pf, const int32_t *ids, int n, const char *const *names, const int *rgs,
                               int n_rgs, floe_pq_reader **r) {
    *r = NULL;
    floe_pq_read_options o = {0};
    o.field_ids = ids;
    o.num_field_ids = n;
    o.row_groups = rgs;
    o.num_row_groups = n_rgs;
    floe_status st = floe_pq_reader_open(pf, &o, r);
    if (st && names && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
        floe_status_free(st);
        o.field_ids = NULL;
        o.num_field_ids = 0;
        o.columns = names;
        o.num_columns = n;
        st = floe_pq_reader_open(pf, &o, r);
    }
    return st;
}

static floe_status open_projected(floe_input *in, const int32_t *ids, int n, const char *const *names,
                                  floe_pq_file **pf, floe_pq_reader **r) {
    *r = NULL;
    FLOE_TRY(floe_pq_file_open(in, pf));
    floe_status st = open_reader(*pf, ids, n, names, NULL, 0, r);
    if (st) {
        floe_pq_file_close(*pf);
        *pf = NULL;
    }
    return st;
}

/* Unsigned lexicographic comparison of a path with a statistics bound. */
static int cmp_bound(const char *s, size_t n, const floe_pq_bytes *b) {
    size_t m = n < b->len ? n : b->len;
    int c = m ? memcmp(s, b->data, m) : 0;
    if (c) return c;
    return (n > b->len) - (n < b->len);
}

/* Row groups whose file_path min/max statistics may contain `path` (delete
 * files are sorted by path, so usually one or two).  Row groups without
 * usable statistics are kept.  *rgs is floe_malloc'd. */
static floe_status prune_row_groups(const floe_pq_file *pf, const char *path, int **rgs, int *n_rgs) {
    const floe_pq_column *col = floe_pq_schema_find_column_by_field_id(pf->schema, FLOE_ICE_POSDEL_FILE_PATH_ID);
    if (!col) col = floe_pq_schema_find_column(pf->schema, "file_path");
    uint32_t ng = pf->meta->num_row_groups;
    int *out = floe_malloc(sizeof(int) * (ng + 1));
    if (!out) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "row group list");
    size_t plen = strlen(path);
    int k = 0;
    for (uint32_t g = 0; g < ng; g++) {
        const floe_pq_column_chunk *ch = col ? floe_pq_file_chunk(pf, (int)g, col->index) : NULL;
        if (ch && ch->has_meta_data && ch->meta_data.has_statistics) {
            const floe_pq_statistics *st = &ch->meta_data.statistics;
            if (st->min_value.set && cmp_bound(path, plen, &st->min_value) < 0) continue;
            if (st->max_value.set && cmp_bound(path, plen, &st->max_value) > 0) continue;
        }
        out[k++] = (int)g;
    }
    *rgs = out;
    *n_rgs = k;
    return NULL;
}

static bool type_is_int64ish(floe_type_id t) { return t == FLOE_TYPE_INT64 || t == FLOE_TYPE_INT32; }

static floe_status scan_posdel_batch(floe_ice_posdel *pd, const floe_batch *b, const char *data_path, size_t dlen,
                                     floe_ice_path_match_fn match, void *ctx, const char *fpath) {
    const floe_array *fp = b->columns[0], *ps = b->columns[1];
    if (fp->type->id != FLOE_TYPE_STRING && fp->type->id != FLOE_TYPE_BINARY)
        return floe_error(FLOE_ERR_TYPE, "position delete file '%s': file_path is %s, not a string", fpath,
                          floe_type_id_name(fp->type->id));
    if (!type_is_int64ish(ps->type->id))
        return floe_error(FLOE_ERR_TYPE, "position delete file '%s': pos is %s, not a long", fpath,
                          floe_type_id_name(ps->type->id));
    bool has_nulls = floe_array_null_count(fp) > 0 || floe_array_null_count(ps) > 0;
    /* Matching rows come in runs (the file is sorted by path): the last
     * string compared is remembered so a run costs one memcmp per row only
     * when the path differs in length or bytes. */
    for (int64_t i = 0; i < b->num_rows; i++) {
        /* A row with a NULL file_path or pos deletes nothing (Java's
         * reader filters on file_path = the data file, Impala skips them):
         * never an error that would make the table unreadable. */
        if (has_nulls && (floe_array_is_null(fp, i) || floe_array_is_null(ps, i))) continue;
        floe_strview s = floe_array_get_str(fp, i);
        bool hit = match ? match(ctx, s.data, (size_t)s.len)
                         : ((size_t)s.len == dlen && memcmp(s.data, data_path, dlen) == 0);
        if (!hit) continue;
        int64_t p = ps->type->id == FLOE_TYPE_INT64 ? floe_array_get_int64(ps, i) : floe_array_get_int32(ps, i);
        if (p < 0)
            return floe_error(FLOE_ERR_CORRUPT, "position delete file '%s': negative pos %lld", fpath, (long long)p);
        FLOE_TRY(floe_i64vec_push(&pd->pos, p));
    }
    return NULL;
}

floe_status floe_ice_posdel_add_batch(floe_ice_posdel *pd, const floe_batch *rows, const char *data_file_path,
                                      floe_ice_path_match_fn match, void *match_ctx, const char *what) {
    if (!match && !data_file_path)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "position deletes: no data file path and no matcher");
    if (rows->num_columns != 2)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "position delete rows of %d columns, not file_path and pos",
                          rows->num_columns);
    size_t before = pd->pos.n;
    floe_status st = scan_posdel_batch(pd, rows, data_file_path, data_file_path ? strlen(data_file_path) : 0, match,
                                       match_ctx, what ? what : "?");
    if (st) pd->pos.n = before;
    pd->finished = false;
    return st;
}

floe_status floe_ice_posdel_add_file(floe_ice_posdel *pd, floe_input *in, const char *data_file_path,
                                     floe_ice_path_match_fn match, void *match_ctx) {
    static const int32_t ids[2] = {FLOE_ICE_POSDEL_FILE_PATH_ID, FLOE_ICE_POSDEL_POS_ID};
    static const char *const names[2] = {"file_path", "pos"};
    const char *fpath = in->path ? in->path : "?";
    if (!match && !data_file_path)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "position deletes: no data file path and no matcher");
    size_t dlen = data_file_path ? strlen(data_file_path) : 0;
    floe_pq_file *pf;
    FLOE_TRY_CTX(floe_pq_file_open(in, &pf), "position delete file '%s'", fpath);
    int *rgs = NULL, n_rgs = 0;
    floe_status st = match ? NULL : prune_row_groups(pf, data_file_path, &rgs, &n_rgs);
    floe_pq_reader *r = NULL;
    if (!st && (!rgs || n_rgs > 0)) st = open_reader(pf, ids, 2, names, rgs, n_rgs, &r);
    floe_free(rgs);
    if (st || !r) {
        floe_pq_file_close(pf);
        return floe_status_wrap(st, "position delete file '%s'", fpath);
    }
    size_t before = pd->pos.n;
    for (;;) {
        floe_batch *b;
        st = floe_pq_reader_next(r, &b);
        if (st || !b) break;
        st = scan_posdel_batch(pd, b, data_file_path, dlen, match, match_ctx, fpath);
        floe_batch_release(b);
        if (st) break;
    }
    floe_pq_reader_close(r);
    floe_pq_file_close(pf);
    if (st) pd->pos.n = before;
    pd->finished = false;
    return floe_status_wrap(st, "position delete file '%s'", fpath);
}

floe_status floe_ice_posdel_read_rows(floe_input *in, floe_ice_posdel_rows_fn fn, void *ctx) {
    static const int32_t ids[2] = {FLOE_ICE_POSDEL_FILE_PATH_ID, FLOE_ICE_POSDEL_POS_ID};
    static const char *const names[2] = {"file_path", "pos"};
    const char *fpath = in->path ? in->path : "?";
    floe_pq_file *pf = NULL;
    floe_pq_reader *r = NULL;
    FLOE_TRY_CTX(open_projected(in, ids, 2, names, &pf, &r), "position delete file '%s'", fpath);
    floe_status st = NULL;
    for (;;) {
        floe_batch *b;
        st = floe_pq_reader_next(r, &b);
        if (st || !b) break;
        const floe_array *fp = b->columns[0], *ps = b->columns[1];
        if (fp->type->id != FLOE_TYPE_STRING && fp->type->id != FLOE_TYPE_BINARY)
            st = floe_error(FLOE_ERR_TYPE, "file_path is %s, not a string", floe_type_id_name(fp->type->id));
        else if (!type_is_int64ish(ps->type->id))
            st = floe_error(FLOE_ERR_TYPE, "pos is %s, not a long", floe_type_id_name(ps->type->id));
        else
            st = fn(ctx, b);
        floe_batch_release(b);
        if (st) break;
    }
    floe_pq_reader_close(r);
    floe_pq_file_close(pf);
    return floe_status_wrap(st, "position delete file '%s'", fpath);
}

floe_status floe_ice_posdel_load(floe_ice_posdel *pd, floe_fileio *io, const floe_ice_data_file *df,
                                 const char *location, const char *data_file_path, floe_ice_path_match_fn match,
                                 void *match_ctx) {
    if (df->content != FLOE_ICE_CONTENT_POSITION_DELETES)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s' is not a position delete file (content %s)", df->file_path,
                          floe_ice_content_name(df->content));
    if (!match && df->referenced_data_file && data_file_path && strcmp(df->referenced_data_file, data_file_path) != 0)
        return NULL;
    floe_input *in;
    if (df->file_size_in_bytes > 0)
        FLOE_TRY(floe_fileio_open_input_sized(io, location, (uint64_t)df->file_size_in_bytes, &in));
    else
        FLOE_TRY(floe_fileio_open_input(io, location, &in));
    floe_status st;
    if (df->has_content_offset || df->has_content_size_in_bytes) {
        if (!df->has_content_offset || !df->has_content_size_in_bytes)
            st = floe_error(FLOE_ERR_CORRUPT, "deletion vector '%s': content_offset and content_size_in_bytes must both be set",
                            df->file_path);
        else {
            size_t before = pd->pos.n;
            st = floe_ice_posdel_add_dv(pd, in, df->content_offset, df->content_size_in_bytes);
            if (!st && df->record_count >= 0 && (int64_t)(pd->pos.n - before) != df->record_count) {
                st = floe_error(FLOE_ERR_CORRUPT, "deletion vector '%s' at byte %lld: cardinality mismatch: %zu positions, record_count %lld",
                                df->file_path, (long long)df->content_offset, pd->pos.n - before, (long long)df->record_count);
                pd->pos.n = before;
            }
        }
    } else if (df->file_format && strcasecmp(df->file_format, "parquet") != 0) {
        st = floe_error(FLOE_ERR_UNSUPPORTED, "position delete file '%s' in format %s", df->file_path, df->file_format);
    } else {
        st = floe_ice_posdel_add_file(pd, in, data_file_path, match, match_ctx);
    }
    floe_input_close(in);
    return st;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

floe_status floe_ice_posdel_finish(floe_ice_posdel *pd) {
    int64_t *v = pd->pos.v;
    size_t n = pd->pos.n;
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; i++) sorted = v[i - 1] <= v[i];
    if (!sorted) qsort(v, n, sizeof(int64_t), cmp_i64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[i] != v[k - 1]) v[k++] = v[i];
    pd->pos.n = k;
    pd->finished = true;
    return NULL;
}

int64_t floe_ice_posdel_count(const floe_ice_posdel *pd) { return (int64_t)pd->pos.n; }
const int64_t *floe_ice_posdel_positions(const floe_ice_posdel *pd) { return pd->pos.v; }

/* Index of the first position >= x. */
static size_t lower_bound(const floe_ice_posdel *pd, int64_t x) {
    size_t lo = 0, hi = pd->pos.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pd->pos.v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool floe_ice_posdel_contains(const floe_ice_posdel *pd, int64_t pos) {
    size_t i = lower_bound(pd, pos);
    return i < pd->pos.n && pd->pos.v[i] == pos;
}

void floe_ice_posdel_select(const floe_ice_posdel *pd, int64_t row_offset, uint32_t n, uint32_t *sel, uint32_t *n_sel) {
    size_t i = lower_bound(pd, row_offset);
    int64_t end = row_offset + (int64_t)n;
    uint32_t out = 0, r = 0;
    for (; i < pd->pos.n && pd->pos.v[i] < end; i++) {
        uint32_t d = (uint32_t)(pd->pos.v[i] - row_offset);
        while (r < d) sel[out++] = r++;
        r = d + 1;
    }
    while (r < n) sel[out++] = r++;
    *n_sel = out;
}

uint32_t floe_ice_posdel_clear_bits(const floe_ice_posdel *pd, int64_t row_offset, uint32_t n, uint8_t *bits) {
    size_t i = lower_bound(pd, row_offset);
    int64_t end = row_offset + (int64_t)n;
    uint32_t k = 0;
    for (; i < pd->pos.n && pd->pos.v[i] < end; i++, k++) {
        uint32_t d = (uint32_t)(pd->pos.v[i] - row_offset);
        bits[d >> 3] &= (uint8_t)~(1u << (d & 7));
    }
    return k;
}

/* ======================================================================
 * equality deletes
 * ====================================================================== */

enum { TAG_NULL = 0, TAG_INT = 1, TAG_DOUBLE = 2, TAG_DECIMAL = 3, TAG_BYTES = 4, TAG_BOOL = 5 };

typedef struct eq_slot {
    uint64_t hash; /* 0 = empty slot (hashes are forced non-zero) */
    uint64_t off;
    uint32_t len;
} eq_slot;

struct floe_ice_eqdel {
    int32_t n_ids;
    int32_t *ids;
    floe_buf keys;     /* all key strings, back to back */
    eq_slot *slots;
    size_t cap;        /* power of two */
    size_t count;
};

floe_status floe_ice_eqdel_new(const int32_t *field_ids, int32_t n, floe_ice_eqdel **out) {
    *out = NULL;
    if (n <= 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "equality deletes need at least one field id");
    floe_ice_eqdel *e = floe_calloc(1, sizeof(*e));
    if (!e) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "equality delete set");
    e->ids = floe_malloc(sizeof(int32_t) * (size_t)n);
    e->cap = 64;
    e->slots = floe_calloc(e->cap, sizeof(eq_slot));
    floe_buf_init(&e->keys);
    if (!e->ids || !e->slots) {
        floe_ice_eqdel_free(e);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "equality delete set");
    }
    memcpy(e->ids, field_ids, sizeof(int32_t) * (size_t)n);
    e->n_ids = n;
    *out = e;
    return NULL;
}

void floe_ice_eqdel_free(floe_ice_eqdel *e) {
    if (!e) return;
    floe_free(e->ids);
    floe_free(e->slots);
    floe_buf_free(&e->keys);
    floe_free(e);
}

int64_t floe_ice_eqdel_count(const floe_ice_eqdel *e) { return (int64_t)e->count; }
const int32_t *floe_ice_eqdel_field_ids(const floe_ice_eqdel *e, int32_t *n) {
    *n = e->n_ids;
    return e->ids;
}

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    return h ? h : 1;
}

static floe_status check_type(const floe_type *t, int32_t id) {
    switch (t->id) {
    case FLOE_TYPE_STRUCT:
    case FLOE_TYPE_LIST:
    case FLOE_TYPE_MAP:
    case FLOE_TYPE_VARIANT:
        return floe_error(FLOE_ERR_TYPE, "equality field %d has nested type %s", id, floe_type_id_name(t->id));
    default: return NULL;
    }
}

/* Append the canonical encoding of cols[k][i] for every k to `b`.  The
 * caller reserved room for the fixed part; byte values may grow it. */
static floe_status encode_key(const floe_array *const *cols, int32_t nc, int64_t i, floe_buf *b) {
    for (int32_t k = 0; k < nc; k++) {
        const floe_array *a = cols[k];
        uint8_t tmp[17];
        size_t n = 0;
        if (!a || floe_array_is_null(a, i)) {
            tmp[n++] = TAG_NULL;
        } else {
            switch (a->type->id) {
            case FLOE_TYPE_BOOL:
                tmp[n++] = TAG_BOOL;
                tmp[n++] = floe_array_get_bool(a, i);
                break;
            case FLOE_TYPE_INT32:
            case FLOE_TYPE_DATE32: {
                int64_t v = floe_array_get_int32(a, i);
                tmp[n++] = TAG_INT;
                memcpy(tmp + n, &v, 8);
                n += 8;
                break;
            }
            case FLOE_TYPE_INT64:
            case FLOE_TYPE_TIME64_US:
            case FLOE_TYPE_TIMESTAMP_US:
            case FLOE_TYPE_TIMESTAMP_US_TZ:
            case FLOE_TYPE_TIMESTAMP_NS:
            case FLOE_TYPE_TIMESTAMP_NS_TZ: {
                int64_t v = floe_array_get_int64(a, i);
                tmp[n++] = TAG_INT;
                memcpy(tmp + n, &v, 8);
                n += 8;
                break;
            }
            case FLOE_TYPE_FLOAT32:
            case FLOE_TYPE_FLOAT64: {
                double v = a->type->id == FLOE_TYPE_FLOAT32 ? (double)floe_array_get_float(a, i)
                                                              : floe_array_get_double(a, i);
                if (v != v) v = __builtin_nan(""); /* every NaN is one key */
                tmp[n++] = TAG_DOUBLE;
                memcpy(tmp + n, &v, 8);
                n += 8;
                break;
            }
            case FLOE_TYPE_DECIMAL128: {
                floe_decimal128 v = floe_array_get_decimal(a, i);
                tmp[n++] = TAG_DECIMAL;
                memcpy(tmp + n, &v, 16);
                n += 16;
                break;
            }
            case FLOE_TYPE_STRING:
            case FLOE_TYPE_BINARY: {
                floe_strview s = floe_array_get_str(a, i);
                uint8_t h[5] = {TAG_BYTES, (uint8_t)s.len, (uint8_t)(s.len >> 8), (uint8_t)(s.len >> 16),
                                (uint8_t)(s.len >> 24)};
                FLOE_TRY(floe_buf_append(b, h, 5));
                FLOE_TRY(floe_buf_append(b, s.data, (size_t)s.len));
                continue;
            }
            case FLOE_TYPE_FIXED_BINARY:
            case FLOE_TYPE_UUID: {
                uint32_t w = (uint32_t)a->type->byte_width;
                uint8_t h[5] = {TAG_BYTES, (uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16), (uint8_t)(w >> 24)};
                FLOE_TRY(floe_buf_append(b, h, 5));
                FLOE_TRY(floe_buf_append(b, floe_array_get_fixed(a, i), w));
                continue;
            }
            case FLOE_TYPE_NULL: tmp[n++] = TAG_NULL; break;
            default:
                return floe_error(FLOE_ERR_TYPE, "equality deletes: unsupported column type %s",
                                  floe_type_id_name(a->type->id));
            }
        }
        FLOE_TRY(floe_buf_append(b, tmp, n));
    }
    return NULL;
}

static const eq_slot *lookup(const floe_ice_eqdel *e, const uint8_t *k, size_t len, uint64_t h) {
    size_t mask = e->cap - 1;
    for (size_t s = h & mask;; s = (s + 1) & mask) {
        const eq_slot *x = &e->slots[s];
        if (x->hash == 0) return NULL;
        if (x->hash == h && x->len == len && memcmp(e->keys.data + x->off, k, len) == 0) return x;
    }
}

static floe_status grow(floe_ice_eqdel *e) {
    size_t cap = e->cap * 2;
    eq_slot *ns = floe_calloc(cap, sizeof(eq_slot));
    if (!ns) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "equality delete set of %zu keys", e->count);
    for (size_t i = 0; i < e->cap; i++) {
        if (!e->slots[i].hash) continue;
        size_t s = e->slots[i].hash & (cap - 1);
        while (ns[s].hash) s = (s + 1) & (cap - 1);
        ns[s] = e->slots[i];
    }
    floe_free(e->slots);
    e->slots = ns;
    e->cap = cap;
    return NULL;
}

floe_status floe_ice_eqdel_add_rows(floe_ice_eqdel *e, floe_array *const *cols, int64_t n_rows) {
    for (int32_t k = 0; k < e->n_ids; k++) {
        if (!cols[k]) continue;
        FLOE_TRY(check_type(cols[k]->type, e->ids[k]));
        if (cols[k]->length < n_rows)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "equality deletes: column %d has %lld slots, %lld rows asked",
                              e->ids[k], (long long)cols[k]->length, (long long)n_rows);
    }
    for (int64_t i = 0; i < n_rows; i++) {
        size_t off = e->keys.len;
        FLOE_TRY(encode_key((const floe_array *const *)cols, e->n_ids, i, &e->keys));
        size_t len = e->keys.len - off;
        if (len > UINT32_MAX) return floe_error(FLOE_ERR_UNSUPPORTED, "equality delete key of %zu bytes", len);
        uint64_t h = hash_bytes(e->keys.data + off, len);
        /* Look the key up against the table without the bytes just added. */
        size_t mask = e->cap - 1, s = h & mask;
        bool dup = false;
        for (;; s = (s + 1) & mask) {
            eq_slot *x = &e->slots[s];
            if (x->hash == 0) break;
            if (x->hash == h && x->len == len && memcmp(e->keys.data + x->off, e->keys.data + off, len) == 0) {
                dup = true;
                break;
            }
        }
        if (dup) {
            e->keys.len = off;
            continue;
        }
        e->slots[s] = (eq_slot){h, off, (uint32_t)len};
        e->count++;
        if (e->count * 2 > e->cap) FLOE_TRY(grow(e));
    }
    return NULL;
}

floe_status floe_ice_eqdel_add_file(floe_ice_eqdel *e, floe_input *in) {
    const char *fpath = in->path ? in->path : "?";
    floe_pq_file *pf;
    floe_pq_reader *r;
    FLOE_TRY_CTX(open_projected(in, e->ids, e->n_ids, NULL, &pf, &r), "equality delete file '%s'", fpath);
    floe_status st = NULL;
    for (;;) {
        floe_batch *b;
        st = floe_pq_reader_next(r, &b);
        if (st || !b) break;
        if (b->num_columns != e->n_ids)
            st = floe_error(FLOE_ERR_INTERNAL, "projected %d columns, asked %d", b->num_columns, e->n_ids);
        else
            st = floe_ice_eqdel_add_rows(e, b->columns, b->num_rows);
        floe_batch_release(b);
        if (st) break;
    }
    floe_pq_reader_close(r);
    floe_pq_file_close(pf);
    return floe_status_wrap(st, "equality delete file '%s'", fpath);
}

floe_status floe_ice_eqdel_load(floe_ice_eqdel *e, floe_fileio *io, const char *location) {
    floe_input *in;
    FLOE_TRY(floe_fileio_open_input(io, location, &in));
    floe_status st = floe_ice_eqdel_add_file(e, in);
    floe_input_close(in);
    return st;
}

floe_status floe_ice_eqdel_mark(const floe_ice_eqdel *e, const floe_array *const *cols, int64_t n_rows,
                                uint8_t *deleted, int64_t *n_deleted) {
    *n_deleted = 0;
    for (int32_t k = 0; k < e->n_ids; k++) {
        if (!cols[k]) continue;
        FLOE_TRY(check_type(cols[k]->type, e->ids[k]));
        if (cols[k]->length < n_rows)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "equality deletes: column %d has %lld slots, %lld rows asked",
                              e->ids[k], (long long)cols[k]->length, (long long)n_rows);
    }
    if (e->count == 0) return NULL;
    floe_buf scratch;
    floe_buf_init(&scratch);
    floe_status st = NULL;
    int64_t nd = 0;
    for (int64_t i = 0; i < n_rows; i++) {
        floe_buf_clear(&scratch);
        st = encode_key(cols, e->n_ids, i, &scratch);
        if (st) break;
        uint64_t h = hash_bytes(scratch.data, scratch.len);
        if (lookup(e, scratch.data, scratch.len, h) && !deleted[i]) {
            deleted[i] = 1;
            nd++;
        }
    }
    floe_buf_free(&scratch);
    *n_deleted = nd;
    return st;
}

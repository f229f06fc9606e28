/*
 * writer.c — the Parquet file writer: splits incoming batches into row
 * groups, feeds each leaf column's shredded levels to its column writer,
 * writes finished column chunks, and at close the page index (all
 * ColumnIndexes, then all OffsetIndexes) and the footer.
 *
 * File layout:
 *   "PAR1" | row group 0 chunks | ... | ColumnIndex* | OffsetIndex* |
 *   FileMetaData | footer length (4 bytes LE) | "PAR1"
 *
 * See writer.h for the contract and column_writer.c for pages.
 */
#include <string.h>

#include "floe/memory.h"
#include "floe/version.h"
#include "formats/parquet/writer_internal.h"

/* Rows shredded per step; row group size is checked between steps. */
#define STEP_ROWS 8192

typedef struct rg_info {
    int64_t num_rows;
    int64_t file_offset;
    int64_t total_uncompressed, total_compressed;
    pqw_chunk *chunks;         /* one per leaf; bytes already written and freed */
    int64_t *chunk_offset;     /* file offset of each chunk's first page */
} rg_info;

typedef struct leaf_total {
    pqw_stats stats;           /* untruncated, over the whole file */
    int64_t value_count, compressed, uncompressed;
} leaf_total;

struct floe_pq_writer {
    floe_output *out;
    floe_pq_write_options opts;
    floe_pq_kv *kv;            /* owned copies */
    pqw_schema schema;
    pqw_column **cols;
    leaf_total *totals;
    pqw_levels lv;
    int64_t offset;            /* bytes written */
    int64_t rg_rows, total_rows;
    rg_info *rgs;
    int32_t n_rgs, cap_rgs;
    bool failed;
};

void floe_pq_write_options_init(floe_pq_write_options *o) {
    memset(o, 0, sizeof *o);
    o->codec = FLOE_CODEC_ZSTD;
    o->row_group_bytes = 128 << 20;
    o->row_group_rows = 1000000;
    o->page_bytes = 1 << 20;
    o->page_rows = 20000;
    o->dict_bytes = 2 << 20;
    o->dictionary = true;
    o->write_page_index = true;
    o->write_page_stats = true;
    o->page_crc = true;
    o->stats_truncate = 64;
    o->bloom_fpp = 0.01;
    o->bloom_max_bytes = 1 << 20;
}

static floe_status writer_oom(void) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Parquet writer: out of memory");
}

static floe_status write_bytes(floe_pq_writer *w, const void *p, size_t n) {
    if (!n) return NULL;
    FLOE_TRY_CTX(floe_output_write(w->out, p, n), "Parquet writer: writing '%s'",
                 w->out->path ? w->out->path : "?");
    w->offset += (int64_t)n;
    return NULL;
}

static void free_rg(rg_info *rg, int32_t n_leaves) {
    if (rg->chunks)
        for (int32_t i = 0; i < n_leaves; i++) pqw_chunk_free(&rg->chunks[i]);
    floe_free(rg->chunks);
    floe_free(rg->chunk_offset);
}

static void writer_free(floe_pq_writer *w) {
    if (!w) return;
    for (int32_t i = 0; i < w->n_rgs; i++) free_rg(&w->rgs[i], w->schema.n_leaves);
    floe_free(w->rgs);
    if (w->cols)
        for (int32_t i = 0; i < w->schema.n_leaves; i++) pqw_column_free(w->cols[i]);
    floe_free(w->cols);
    if (w->totals)
        for (int32_t i = 0; i < w->schema.n_leaves; i++) pqw_stats_free(&w->totals[i].stats);
    floe_free(w->totals);
    for (int32_t i = 0; w->kv && i < w->opts.n_kv; i++) {
        floe_free((char *)w->kv[i].key);
        floe_free((char *)w->kv[i].value);
    }
    floe_free(w->kv);
    pqw_levels_free(&w->lv);
    pqw_schema_free(&w->schema);
    floe_free(w);
}

void floe_pq_writer_abort(floe_pq_writer *w) {
    if (!w) return;
    if (w->out) floe_output_abort(w->out);
    writer_free(w);
}

/* The encoding a leaf gets: an override by field id or path, else the
 * default; overrides that do not fit the physical type are an error. */
static floe_status resolve_encoding(const floe_pq_write_options *o, const pqw_leaf *L,
                                    floe_pq_value_encoding *out, bool *bloom) {
    floe_pq_value_encoding e = FLOE_PQ_WENC_DEFAULT;
    *bloom = false;
    for (int32_t i = 0; i < o->n_columns; i++) {
        const floe_pq_column_option *co = &o->columns[i];
        bool match = co->field_id >= 0 ? co->field_id == L->field_id
                                       : co->path && strcmp(co->path, L->dotted) == 0;
        if (match && co->encoding != FLOE_PQ_WENC_DEFAULT) e = co->encoding;
        if (match && co->bloom_filter) *bloom = true;
    }
    switch (e) {
    case FLOE_PQ_WENC_DEFAULT:
        e = o->dictionary && L->phys != FLOE_PQ_BOOLEAN ? FLOE_PQ_WENC_DICTIONARY
                                                         : FLOE_PQ_WENC_PLAIN;
        break;
    case FLOE_PQ_WENC_DELTA_BINARY_PACKED:
        if (L->phys != FLOE_PQ_INT32 && L->phys != FLOE_PQ_INT64)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "Parquet writer: column '%s': DELTA_BINARY_PACKED needs an "
                              "INT32/INT64 column, not %s", L->dotted, floe_pq_type_name(L->phys));
        break;
    case FLOE_PQ_WENC_RLE:
        if (L->phys != FLOE_PQ_BOOLEAN)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "Parquet writer: column '%s': RLE values need a BOOLEAN column",
                              L->dotted);
        break;
    case FLOE_PQ_WENC_PLAIN:
    case FLOE_PQ_WENC_DICTIONARY:
        break;
    default:
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Parquet writer: column '%s': encoding %d",
                          L->dotted, (int)e);
    }
    *out = e;
    return NULL;
}

static floe_status setup(floe_pq_writer *w, const floe_schema *schema,
                         const floe_pq_write_options *opts) {
    floe_pq_write_options d;
    floe_pq_write_options_init(&d);
    w->opts = opts ? *opts : d;
    floe_pq_write_options *o = &w->opts;
    if (o->row_group_bytes <= 0) o->row_group_bytes = d.row_group_bytes;
    if (o->row_group_rows <= 0) o->row_group_rows = d.row_group_rows;
    if (o->page_bytes <= 0) o->page_bytes = d.page_bytes;
    if (o->page_rows <= 0) o->page_rows = d.page_rows;
    if (o->dict_bytes <= 0) o->dict_bytes = d.dict_bytes;
    if (o->stats_truncate <= 0) o->stats_truncate = d.stats_truncate;
    if (!(o->bloom_fpp > 0 && o->bloom_fpp < 1)) o->bloom_fpp = d.bloom_fpp;
    if (o->bloom_max_bytes <= 0) o->bloom_max_bytes = d.bloom_max_bytes;
    if (pqw_codec_id(o->codec) < 0)
        return floe_error(FLOE_ERR_UNSUPPORTED, "Parquet writer: codec %s cannot be written",
                          floe_codec_name(o->codec));
    /* Copy what the options point at; per-column options are only read here. */
    if (o->n_kv > 0) {
        w->kv = floe_calloc((size_t)o->n_kv, sizeof *w->kv);
        if (!w->kv) return writer_oom();
        for (int32_t i = 0; i < o->n_kv; i++) {
            if (!o->kv[i].key)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Parquet writer: metadata key %d "
                                  "is NULL", (int)i);
            w->kv[i].key = floe_strdup(o->kv[i].key);
            w->kv[i].value = o->kv[i].value ? floe_strdup(o->kv[i].value) : NULL;
            if (!w->kv[i].key || (o->kv[i].value && !w->kv[i].value)) {
                o->n_kv = i + 1;
                return writer_oom();
            }
        }
    }
    o->kv = w->kv;
    FLOE_TRY(pqw_schema_build(schema, &w->schema));
    int32_t n = w->schema.n_leaves;
    w->cols = floe_calloc((size_t)n, sizeof *w->cols);
    w->totals = floe_calloc((size_t)n, sizeof *w->totals);
    if (!w->cols || !w->totals) return writer_oom();
    for (int32_t i = 0; i < n; i++) {
        const pqw_leaf *L = &w->schema.leaves[i];
        pqw_column_config cfg = {.codec = o->codec, .level = o->level,
                                 .page_bytes = o->page_bytes, .page_rows = o->page_rows,
                                 .dict_bytes = o->dict_bytes, .page_stats = o->write_page_stats,
                                 .page_crc = o->page_crc, .page_v2 = o->data_page_v2,
                                 .legacy_dictionary = o->legacy_dictionary,
                                 .stats_truncate = o->stats_truncate};
        cfg.bloom_fpp = o->bloom_fpp;
        cfg.bloom_max_bytes = o->bloom_max_bytes;
        FLOE_TRY(resolve_encoding(o, L, &cfg.encoding, &cfg.bloom));
        FLOE_TRY(pqw_column_new(L, &cfg, &w->cols[i]));
        pqw_stats_init(&w->totals[i].stats, L->order, L->type_length);
    }
    o->columns = NULL;
    o->n_columns = 0;
    return write_bytes(w, "PAR1", 4);
}

floe_status floe_pq_writer_open(floe_output *out, const floe_schema *schema,
                                const floe_pq_write_options *opts, floe_pq_writer **wp) {
    *wp = NULL;
    if (!out || !schema) {
        if (out) floe_output_abort(out);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Parquet writer: no %s",
                          out ? "schema" : "output");
    }
    floe_pq_writer *w = floe_calloc(1, sizeof *w);
    if (!w) {
        floe_output_abort(out);
        return writer_oom();
    }
    w->out = out;
    pqw_levels_init(&w->lv);
    floe_status st = setup(w, schema, opts);
    if (st) {
        floe_pq_writer_abort(w);
        return st;
    }
    *wp = w;
    return NULL;
}

/* Write the open row group's chunks and remember their metadata. */
static floe_status flush_row_group(floe_pq_writer *w) {
    if (w->rg_rows == 0) return NULL;
    int32_t n = w->schema.n_leaves;
    if (w->n_rgs == w->cap_rgs) {
        int32_t cap = w->cap_rgs ? w->cap_rgs * 2 : 4;
        rg_info *p = floe_realloc(w->rgs, (size_t)cap * sizeof *p);
        if (!p) return writer_oom();
        w->rgs = p;
        w->cap_rgs = cap;
    }
    if (w->n_rgs >= 32767)
        return floe_error(FLOE_ERR_UNSUPPORTED, "Parquet writer: more than 32767 row groups");
    rg_info *rg = &w->rgs[w->n_rgs];
    memset(rg, 0, sizeof *rg);
    w->n_rgs++;
    rg->chunks = floe_calloc((size_t)n, sizeof *rg->chunks);
    rg->chunk_offset = floe_calloc((size_t)n, sizeof *rg->chunk_offset);
    if (!rg->chunks || !rg->chunk_offset) return writer_oom();
    rg->num_rows = w->rg_rows;
    rg->file_offset = w->offset;
    for (int32_t i = 0; i < n; i++) {
        pqw_chunk *ch = &rg->chunks[i];
        FLOE_TRY(pqw_column_finish(w->cols[i], ch));
        rg->chunk_offset[i] = w->offset;
        for (int32_t p = 0; p < ch->n_pages; p++) ch->pages[p].offset += w->offset;
        int64_t size = (int64_t)(ch->dict_page.len + ch->bytes.len);
        ch->size = size;
        FLOE_TRY(write_bytes(w, ch->dict_page.data, ch->dict_page.len));
        FLOE_TRY(write_bytes(w, ch->bytes.data, ch->bytes.len));
        floe_buf_free(&ch->dict_page);
        floe_buf_free(&ch->bytes);
        rg->total_compressed += size;
        rg->total_uncompressed += ch->uncompressed;
        leaf_total *t = &w->totals[i];
        t->value_count += ch->num_values;
        t->compressed += size;
        t->uncompressed += ch->uncompressed;
        FLOE_TRY(pqw_stats_merge(&t->stats, &ch->stats));
    }
    /* Bloom filters follow the row group's chunks, in column order. */
    for (int32_t i = 0; i < n; i++) {
        pqw_chunk *ch = &rg->chunks[i];
        if (!ch->bloom.len) continue;
        ch->bloom_offset = w->offset;
        ch->bloom_length = (int32_t)ch->bloom.len;
        FLOE_TRY(write_bytes(w, ch->bloom.data, ch->bloom.len));
        floe_buf_free(&ch->bloom);
    }
    w->rg_rows = 0;
    return NULL;
}

static int64_t buffered(const floe_pq_writer *w) {
    int64_t b = 0;
    for (int32_t i = 0; i < w->schema.n_leaves; i++) b += pqw_column_buffered(w->cols[i]);
    return b;
}

int64_t floe_pq_writer_estimated_size(const floe_pq_writer *w) {
    return w->offset + buffered(w);
}

int64_t floe_pq_writer_rows(const floe_pq_writer *w) { return w->total_rows; }

/* Rows per step: as many as should fit in what is left of the row group
 * at the bytes per row seen so far (at least 1, at most STEP_ROWS), so
 * wide rows cannot overshoot row_group_bytes by a whole step. */
static int64_t step_rows(const floe_pq_writer *w, int64_t buffered_now) {
    if (w->rg_rows == 0) return 16; /* a probe: its bytes per row size the next step */
    if (buffered_now <= 0) return STEP_ROWS;
    int64_t per_row = buffered_now / w->rg_rows + 1;
    int64_t left = w->opts.row_group_bytes - buffered_now;
    int64_t n = left / per_row;
    return n < 1 ? 1 : n > STEP_ROWS ? STEP_ROWS : n;
}

static floe_status write_batch(floe_pq_writer *w, const floe_batch *b) {
    if (!floe_type_compatible(b->schema, w->schema.schema))
        return floe_error(FLOE_ERR_TYPE,
                          "Parquet writer: batch schema does not match the file's schema");
    int64_t pos = 0, now = buffered(w);
    while (pos < b->num_rows) {
        int64_t take = b->num_rows - pos, step = step_rows(w, now);
        if (take > step) take = step;
        if (take > w->opts.row_group_rows - w->rg_rows) take = w->opts.row_group_rows - w->rg_rows;
        for (int32_t i = 0; i < w->schema.n_leaves; i++) {
            const pqw_leaf *L = &w->schema.leaves[i];
            FLOE_TRY(pqw_shred(L, b->columns[L->column], pos, take, &w->lv));
            FLOE_TRY(pqw_column_append(w->cols[i], &w->lv));
        }
        pos += take;
        w->rg_rows += take;
        w->total_rows += take;
        now = buffered(w);
        if (w->rg_rows >= w->opts.row_group_rows || now >= w->opts.row_group_bytes) {
            FLOE_TRY(flush_row_group(w));
            now = 0;
        }
    }
    return NULL;
}

floe_status floe_pq_writer_write(floe_pq_writer *w, const floe_batch *b) {
    if (w->failed)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Parquet writer: write after a failure");
    floe_status st = write_batch(w, b);
    if (st) w->failed = true;
    return st;
}

/* ------------------------------------------------------------ page index */

static int32_t boundary_order(const pqw_chunk *ch, const pqw_stats *cmp) {
    bool asc = true, desc = true;
    const pqw_page_info *prev = NULL;
    for (int32_t p = 0; p < ch->n_pages; p++) {
        const pqw_page_info *pi = &ch->pages[p];
        if (!pi->has_bounds) continue;
        if (prev) {
            int a = pqw_stats_compare(cmp, pi->min, pi->min_len, prev->min, prev->min_len);
            int b = pqw_stats_compare(cmp, pi->max, pi->max_len, prev->max, prev->max_len);
            if (a < 0 || b < 0) asc = false;
            if (a > 0 || b > 0) desc = false;
        }
        prev = pi;
    }
    return asc ? FLOE_PQ_ASCENDING : desc ? FLOE_PQ_DESCENDING : FLOE_PQ_UNORDERED;
}

static floe_status write_column_index(floe_pq_writer *w, const pqw_leaf *L, pqw_chunk *ch,
                                      floe_buf *buf) {
    floe_pq_column_index ci;
    memset(&ci, 0, sizeof ci);
    int32_t n = ch->n_pages;
    ci.num_pages = (uint32_t)n;
    ci.null_pages = floe_calloc((size_t)n, sizeof *ci.null_pages);
    ci.min_values = floe_calloc((size_t)n, sizeof *ci.min_values);
    ci.max_values = floe_calloc((size_t)n, sizeof *ci.max_values);
    ci.null_counts = floe_calloc((size_t)n, sizeof *ci.null_counts);
    bool fl = L->order == PQW_ORD_FLOAT || L->order == PQW_ORD_DOUBLE;
    ci.nan_counts = fl ? floe_calloc((size_t)n, sizeof *ci.nan_counts) : NULL;
    floe_status st = NULL;
    if (!ci.null_pages || !ci.min_values || !ci.max_values || !ci.null_counts ||
        (fl && !ci.nan_counts))
        st = writer_oom();
    for (int32_t p = 0; !st && p < n; p++) {
        const pqw_page_info *pi = &ch->pages[p];
        ci.null_pages[p] = !pi->has_bounds;
        ci.min_values[p] = (floe_pq_bytes){pi->has_bounds ? pi->min : (const uint8_t *)"",
                                           pi->has_bounds ? pi->min_len : 0, true};
        ci.max_values[p] = (floe_pq_bytes){pi->has_bounds ? pi->max : (const uint8_t *)"",
                                           pi->has_bounds ? pi->max_len : 0, true};
        ci.null_counts[p] = pi->null_count;
        if (fl) ci.nan_counts[p] = pi->nan_count;
    }
    if (!st) {
        ci.num_null_counts = (uint32_t)n;
        ci.num_nan_counts = fl ? (uint32_t)n : 0;
        pqw_stats cmp;
        pqw_stats_init(&cmp, L->order, L->type_length);
        ci.boundary_order = boundary_order(ch, &cmp);
        floe_buf_clear(buf);
        st = floe_pq_encode_column_index(&ci, buf);
    }
    floe_free(ci.null_pages);
    floe_free(ci.min_values);
    floe_free(ci.max_values);
    floe_free(ci.null_counts);
    floe_free(ci.nan_counts);
    if (!st) st = write_bytes(w, buf->data, buf->len);
    return st;
}

static floe_status write_offset_index(floe_pq_writer *w, pqw_chunk *ch, floe_buf *buf) {
    floe_pq_offset_index oi;
    memset(&oi, 0, sizeof oi);
    oi.num_pages = (uint32_t)ch->n_pages;
    oi.page_locations = floe_calloc((size_t)ch->n_pages + 1, sizeof *oi.page_locations);
    if (!oi.page_locations) return writer_oom();
    for (int32_t p = 0; p < ch->n_pages; p++)
        oi.page_locations[p] = (floe_pq_page_location){ch->pages[p].offset, ch->pages[p].size,
                                                       ch->pages[p].first_row};
    floe_buf_clear(buf);
    floe_status st = floe_pq_encode_offset_index(&oi, buf);
    floe_free(oi.page_locations);
    if (!st) st = write_bytes(w, buf->data, buf->len);
    return st;
}

/* Per chunk: where its indexes went (0 length = none). */
typedef struct index_loc {
    int64_t ci_off, oi_off;
    int32_t ci_len, oi_len;
} index_loc;

static floe_status write_page_index(floe_pq_writer *w, index_loc *loc) {
    int32_t n = w->schema.n_leaves;
    floe_buf buf = FLOE_BUF_INIT;
    floe_status st = NULL;
    for (int32_t r = 0; !st && r < w->n_rgs; r++)
        for (int32_t i = 0; !st && i < n; i++) {
            pqw_chunk *ch = &w->rgs[r].chunks[i];
            const pqw_leaf *L = &w->schema.leaves[i];
            if (!ch->index_ok) continue;
            index_loc *l = &loc[(size_t)r * (size_t)n + (size_t)i];
            l->ci_off = w->offset;
            st = write_column_index(w, L, ch, &buf);
            l->ci_len = (int32_t)(w->offset - l->ci_off);
        }
    for (int32_t r = 0; !st && r < w->n_rgs; r++)
        for (int32_t i = 0; !st && i < n; i++) {
            index_loc *l = &loc[(size_t)r * (size_t)n + (size_t)i];
            l->oi_off = w->offset;
            st = write_offset_index(w, &w->rgs[r].chunks[i], &buf);
            l->oi_len = (int32_t)(w->offset - l->oi_off);
        }
    floe_buf_free(&buf);
    return st;
}

/* ------------------------------------------------------------ footer */

/* Chunk statistics for the footer (binary bounds truncated); the bytes
 * are copied into the arena. */
static floe_status chunk_stats(floe_pq_arena *a, const floe_pq_writer *w, const pqw_leaf *L,
                               const pqw_chunk *ch, floe_pq_statistics *ps) {
    memset(ps, 0, sizeof *ps);
    ps->has_null_count = true;
    ps->null_count = ch->stats.null_count;
    if (L->order == PQW_ORD_FLOAT || L->order == PQW_ORD_DOUBLE) {
        ps->has_nan_count = true;
        ps->nan_count = ch->stats.nan_count;
    }
    if (!ch->stats.has_bounds) return NULL;
    floe_buf min = FLOE_BUF_INIT, max = FLOE_BUF_INIT;
    floe_status st = pqw_stats_bounds(&ch->stats, &min, &max);
    bool min_exact = true, max_exact = true;
    if (!st && L->phys == FLOE_PQ_BYTE_ARRAY) {
        pqw_truncate_min(&min, w->opts.stats_truncate, L->is_string, &min_exact);
        pqw_truncate_max(&max, w->opts.stats_truncate, L->is_string, &max_exact);
    }
    uint8_t *pmin = st ? NULL : floe_pq_arena_alloc(a, min.len + 1);
    uint8_t *pmax = st ? NULL : floe_pq_arena_alloc(a, max.len + 1);
    if (!st && (!pmin || !pmax)) st = writer_oom();
    if (!st) {
        if (min.len) memcpy(pmin, min.data, min.len);
        if (max.len) memcpy(pmax, max.data, max.len);
        ps->min_value = (floe_pq_bytes){pmin, (uint32_t)min.len, true};
        ps->max_value = (floe_pq_bytes){pmax, (uint32_t)max.len, true};
        if (pqw_order_is_signed(L->order)) { /* for readers that predate min_value */
            ps->min = ps->min_value;
            ps->max = ps->max_value;
        }
        ps->has_is_min_value_exact = ps->has_is_max_value_exact = true;
        ps->is_min_value_exact = min_exact;
        ps->is_max_value_exact = max_exact;
    }
    floe_buf_free(&min);
    floe_buf_free(&max);
    return st;
}

static floe_status build_footer(floe_pq_writer *w, floe_pq_arena *a, const index_loc *loc,
                                floe_pq_file_metadata *md) {
    int32_t n = w->schema.n_leaves;
    memset(md, 0, sizeof *md);
    md->version = 2;
    md->schema = w->schema.elements;
    md->num_schema = (uint32_t)w->schema.n_elements;
    md->num_rows = w->total_rows;
    md->created_by = FLOE_CREATED_BY;
    md->num_row_groups = (uint32_t)w->n_rgs;
    md->row_groups = floe_pq_arena_alloc(a, sizeof *md->row_groups * ((size_t)w->n_rgs + 1));
    md->column_orders = floe_pq_arena_alloc(a, sizeof *md->column_orders * (size_t)n);
    if (!md->row_groups || !md->column_orders) return writer_oom();
    md->num_column_orders = (uint32_t)n;
    for (int32_t i = 0; i < n; i++) md->column_orders[i].kind = 1; /* TYPE_ORDER */
    if (w->opts.n_kv > 0) {
        md->key_value_metadata = floe_pq_arena_alloc(a, sizeof *md->key_value_metadata *
                                                            (size_t)w->opts.n_kv);
        if (!md->key_value_metadata) return writer_oom();
        md->num_key_value_metadata = (uint32_t)w->opts.n_kv;
        for (int32_t i = 0; i < w->opts.n_kv; i++) {
            md->key_value_metadata[i].key = w->kv[i].key;
            md->key_value_metadata[i].value = w->kv[i].value;
            md->key_value_metadata[i].value_len =
                w->kv[i].value ? (uint32_t)strlen(w->kv[i].value) : 0;
        }
    }
    for (int32_t r = 0; r < w->n_rgs; r++) {
        const rg_info *rg = &w->rgs[r];
        floe_pq_row_group *g = &md->row_groups[r];
        g->columns = floe_pq_arena_alloc(a, sizeof *g->columns * (size_t)n);
        if (!g->columns) return writer_oom();
        g->num_columns = (uint32_t)n;
        g->total_byte_size = rg->total_uncompressed;
        g->num_rows = rg->num_rows;
        g->has_file_offset = true;
        g->file_offset = rg->file_offset;
        g->has_total_compressed_size = true;
        g->total_compressed_size = rg->total_compressed;
        g->has_ordinal = true;
        g->ordinal = (int16_t)r;
        for (int32_t i = 0; i < n; i++) {
            const pqw_leaf *L = &w->schema.leaves[i];
            const pqw_chunk *ch = &rg->chunks[i];
            floe_pq_column_chunk *cc = &g->columns[i];
            floe_pq_column_meta *m = &cc->meta_data;
            cc->file_offset = rg->chunk_offset[i];
            cc->has_meta_data = true;
            m->type = L->phys;
            m->encodings = (int32_t *)ch->encodings;
            m->num_encodings = (uint32_t)ch->n_encodings;
            m->path_in_schema = L->path;
            m->path_len = (uint32_t)L->path_len;
            m->codec = pqw_codec_id(w->opts.codec);
            m->num_values = ch->num_values;
            m->total_uncompressed_size = ch->uncompressed;
            m->total_compressed_size = ch->size;
            m->data_page_offset = rg->chunk_offset[i] + ch->dict_size;
            if (ch->dict_size) {
                m->has_dictionary_page_offset = true;
                m->dictionary_page_offset = rg->chunk_offset[i];
            }
            m->encoding_stats = (floe_pq_page_encoding_stats *)ch->enc_stats;
            m->num_encoding_stats = (uint32_t)ch->n_enc_stats;
            m->has_statistics = true;
            FLOE_TRY(chunk_stats(a, w, L, ch, &m->statistics));
            if (ch->bloom_length > 0) {
                m->has_bloom_filter_offset = m->has_bloom_filter_length = true;
                m->bloom_filter_offset = ch->bloom_offset;
                m->bloom_filter_length = ch->bloom_length;
            }
            const index_loc *l = &loc[(size_t)r * (size_t)n + (size_t)i];
            if (l->ci_len > 0) {
                cc->has_column_index = true;
                cc->column_index_offset = l->ci_off;
                cc->column_index_length = l->ci_len;
            }
            if (l->oi_len > 0) {
                cc->has_offset_index = true;
                cc->offset_index_offset = l->oi_off;
                cc->offset_index_length = l->oi_len;
            }
        }
    }
    return NULL;
}

static floe_status write_tail(floe_pq_writer *w) {
    FLOE_TRY(flush_row_group(w));
    int32_t n = w->schema.n_leaves;
    index_loc *loc = floe_calloc((size_t)w->n_rgs * (size_t)n + 1, sizeof *loc);
    if (!loc) return writer_oom();
    floe_status st = w->opts.write_page_index ? write_page_index(w, loc) : NULL;
    floe_pq_arena arena;
    floe_pq_arena_init(&arena);
    floe_pq_file_metadata md;
    floe_buf buf = FLOE_BUF_INIT;
    if (!st) st = build_footer(w, &arena, loc, &md);
    if (!st) st = floe_pq_encode_file_metadata(&md, &buf);
    if (!st) {
        uint32_t len = (uint32_t)buf.len;
        st = floe_buf_append(&buf, &len, 4);
        if (!st) st = floe_buf_append(&buf, "PAR1", 4);
    }
    if (!st) st = write_bytes(w, buf.data, buf.len);
    floe_buf_free(&buf);
    floe_pq_arena_free(&arena);
    floe_free(loc);
    return st;
}

/* ------------------------------------------------------------ results */

const floe_pq_column_result *floe_pq_write_result_find(const floe_pq_write_result *r,
                                                       int32_t field_id) {
    for (int32_t i = 0; i < r->n_columns; i++)
        if (r->columns[i].field_id == field_id) return &r->columns[i];
    return NULL;
}

void floe_pq_write_result_free(floe_pq_write_result *r) {
    if (!r) return;
    for (int32_t i = 0; i < r->n_columns; i++) {
        floe_free(r->columns[i].path);
        floe_type_release(r->columns[i].type);
        floe_free(r->columns[i].min);
        floe_free(r->columns[i].max);
    }
    floe_free(r->columns);
    floe_free(r->split_offsets);
    floe_free(r);
}

static floe_status make_result(const floe_pq_writer *w, floe_pq_write_result **out) {
    floe_pq_write_result *r = floe_calloc(1, sizeof *r);
    if (!r) return writer_oom();
    int32_t n = w->schema.n_leaves;
    r->file_size = w->offset;
    r->record_count = w->total_rows;
    r->n_row_groups = w->n_rgs;
    r->split_offsets = floe_calloc((size_t)w->n_rgs + 1, sizeof *r->split_offsets);
    r->columns = floe_calloc((size_t)n, sizeof *r->columns);
    floe_status st = !r->split_offsets || !r->columns ? writer_oom() : NULL;
    if (!st) r->n_columns = n;
    for (int32_t i = 0; !st && i < w->n_rgs; i++) r->split_offsets[i] = w->rgs[i].file_offset;
    floe_buf min = FLOE_BUF_INIT, max = FLOE_BUF_INIT;
    for (int32_t i = 0; !st && i < n; i++) {
        const pqw_leaf *L = &w->schema.leaves[i];
        const leaf_total *t = &w->totals[i];
        floe_pq_column_result *c = &r->columns[i];
        c->field_id = L->field_id;
        c->path = floe_strdup(L->dotted);
        c->type = floe_type_retain((floe_type *)L->type);
        c->physical_type = L->phys;
        c->type_length = L->type_length;
        c->repeated = L->max_rep > 0;
        c->value_count = t->value_count;
        c->null_count = t->stats.null_count;
        c->nan_count = t->stats.nan_count;
        c->compressed_size = t->compressed;
        c->uncompressed_size = t->uncompressed;
        if (!c->path) {
            st = writer_oom();
            break;
        }
        if (t->stats.has_bounds) {
            st = pqw_stats_bounds(&t->stats, &min, &max);
            if (st) break;
            c->min = floe_malloc(min.len + 1);
            c->max = floe_malloc(max.len + 1);
            if (!c->min || !c->max) {
                st = writer_oom();
                break;
            }
            if (min.len) memcpy(c->min, min.data, min.len);
            if (max.len) memcpy(c->max, max.data, max.len);
            c->min_len = min.len;
            c->max_len = max.len;
            c->has_bounds = true;
        }
    }
    floe_buf_free(&min);
    floe_buf_free(&max);
    if (st) {
        floe_pq_write_result_free(r);
        return st;
    }
    *out = r;
    return NULL;
}

floe_status floe_pq_writer_close(floe_pq_writer *w, floe_pq_write_result **result) {
    if (result) *result = NULL;
    floe_status st = w->failed ? floe_error(FLOE_ERR_INVALID_ARGUMENT,
                                            "Parquet writer: close after a failure")
                               : write_tail(w);
    floe_pq_write_result *r = NULL;
    if (!st && result) st = make_result(w, &r);
    if (st) {
        floe_pq_writer_abort(w);
        return st;
    }
    floe_output *out = w->out;
    w->out = NULL;
    writer_free(w);
    st = floe_output_close(out);
    if (st) {
        floe_pq_write_result_free(r);
        return st;
    }
    if (result) *result = r;
    return NULL;
}

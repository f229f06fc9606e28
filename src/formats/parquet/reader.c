/*
 * reader.c — Parquet file -> record batches (see reader.h).
 *
 * Per row group: fetch the selected column chunks with coalesced reads,
 * start one pq_column_reader per selected leaf, then per batch let each
 * reader append the levels and values of the next batch_size rows and
 * assemble the output arrays from them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/memory.h"
#include "formats/parquet/assemble.h"
#include "formats/parquet/column_reader.h"
#include "formats/parquet/reader.h"

/* Target bytes of one byte-array column in one batch (int32 offsets). */
#define PQ_BATCH_BYTE_BUDGET ((int64_t)1 << 30)

typedef struct range {
    uint64_t off, len;
    int leaf;           /* column index */
} range;

struct floe_pq_reader {
    floe_pq_file *file;
    bool owns_file;
    floe_schema *schema;
    int ncols;                     /* output columns */
    const floe_pq_field **fields;  /* output column nodes */
    int nleaves;                   /* leaf columns in the file */
    bool *selected;                /* per leaf */
    int *row_groups;
    int nrg, rg_next;
    int64_t batch_size, max_gap;
    int64_t rg_batch;              /* batch rows for the current row group */
    bool verify_crc;
    int flags;                     /* PQ_INT96_AS_US */

    /* The current row group. */
    int rg;                        /* -1 before the first */
    int64_t rg_rows_left;
    uint8_t **blocks;              /* coalesced reads */
    int nblocks;
    pq_column_reader *readers;     /* per leaf (only selected ones initialised) */
    bool *reader_live;
    pq_leaf_out *outs;             /* per leaf */
    pq_leaf_out **out_ptrs;        /* per leaf, NULL if not selected */
    floe_array **arrays;           /* per output column, scratch */
};

static floe_status oom(void) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory in the Parquet reader");
}

/* A node may be projected when only structs lie between it and the root. */
static bool reachable_by_structs(const floe_pq_field *f) {
    for (const floe_pq_field *p = f->parent; p && p->parent; p = p->parent)
        if (p->kind != FLOE_PQ_KIND_STRUCT) return false;
    return true;
}

static void mark_leaves(floe_pq_reader *r, const floe_pq_field *f) {
    if (f->column) r->selected[f->column->index] = true;
    for (int i = 0; i < f->num_children; i++) mark_leaves(r, f->children[i]);
}

/* Resolve a dotted logical path through struct fields. */
static const floe_pq_field *find_path(const floe_pq_schema *s, const char *path) {
    const floe_pq_field *f = floe_pq_schema_root(s);
    const char *p = path;
    while (f && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        const floe_pq_field *next = NULL;
        if (f->kind == FLOE_PQ_KIND_STRUCT)
            for (int i = 0; i < f->num_children; i++)
                if (strlen(f->children[i]->name) == n && !memcmp(f->children[i]->name, p, n)) {
                    next = f->children[i];
                    break;
                }
        f = next;
        p = dot ? dot + 1 : p + n;
    }
    return f;
}

static char *field_path(const floe_pq_field *f) {
    char buf[1024];
    size_t len = 0;
    buf[0] = 0;
    const floe_pq_field *chain[64];
    int n = 0;
    for (const floe_pq_field *p = f; p && p->parent && n < 64; p = p->parent) chain[n++] = p;
    for (int i = n - 1; i >= 0; i--) {
        int w = snprintf(buf + len, sizeof buf - len, "%s%s", i == n - 1 ? "" : ".",
                         chain[i]->name);
        if (w < 0 || (size_t)w >= sizeof buf - len) break;
        len += (size_t)w;
    }
    return floe_strdup(buf);
}

static floe_status build_projection(floe_pq_reader *r, const floe_pq_read_options *o) {
    const floe_pq_schema *s = r->file->schema;
    const floe_pq_field *root = floe_pq_schema_root(s);
    int n;
    if (o && o->columns) n = o->num_columns;
    else if (o && o->field_ids) n = o->num_field_ids;
    else n = root->num_children;
    r->fields = floe_calloc((size_t)n + 1, sizeof *r->fields);
    if (!r->fields) return oom();
    r->ncols = n;
    for (int i = 0; i < n; i++) {
        const floe_pq_field *f;
        if (o && o->columns) {
            f = find_path(s, o->columns[i]);
            if (!f)
                return floe_error(FLOE_ERR_NOT_FOUND, "'%s': no column '%s'", r->file->path,
                                  o->columns[i]);
        } else if (o && o->field_ids) {
            f = floe_pq_schema_find_field_id(s, o->field_ids[i]);
            if (!f)
                return floe_error(FLOE_ERR_NOT_FOUND, "'%s': no column with field id %d",
                                  r->file->path, o->field_ids[i]);
        } else {
            f = root->children[i];
        }
        if (!reachable_by_structs(f))
            return floe_error(FLOE_ERR_UNSUPPORTED,
                              "'%s': column '%s' is inside a list or map and cannot be "
                              "projected on its own",
                              r->file->path, f->name);
        r->fields[i] = f;
        mark_leaves(r, f);
    }
    /* The output schema. */
    floe_field *ff = floe_calloc((size_t)n + 1, sizeof *ff);
    if (!ff) return oom();
    floe_status st = NULL;
    for (int i = 0; i < n && !st; i++) {
        floe_type *t = NULL;
        st = pq_field_type(r->fields[i], r->flags, &t);
        char *name = st ? NULL : field_path(r->fields[i]);
        if (!st && !name) st = oom();
        const floe_pq_field *f = r->fields[i];
        if (!st) {
            bool nullable = false;
            for (const floe_pq_field *p = f; p && p->parent; p = p->parent) nullable |= p->nullable;
            st = floe_field_init(&ff[i], name, t, nullable, f->has_field_id ? f->field_id : -1);
        }
        floe_free(name);
        floe_type_release(t);
        if (st) st = floe_status_wrap(st, "'%s'", r->file->path);
    }
    if (!st) st = floe_type_struct(ff, n, &r->schema);
    for (int i = 0; i < n; i++) floe_field_clear(&ff[i]);
    floe_free(ff);
    return st;
}

static void drop_row_group(floe_pq_reader *r) {
    for (int i = 0; i < r->nleaves; i++)
        if (r->reader_live[i]) {
            pq_column_reader_recycle(&r->readers[i]);
            r->reader_live[i] = false;
        }
    for (int i = 0; i < r->nblocks; i++) floe_free(r->blocks[i]);
    floe_free(r->blocks);
    r->blocks = NULL;
    r->nblocks = 0;
}

/* True for files written by parquet-mr before 1.2.9, whose column chunk
 * sizes leave out the dictionary page header (PARQUET-816, IMPALA-694).
 * created_by is "parquet-mr version X.Y.Z (build ...)" or, in the oldest
 * files, just "parquet-mr". */
static bool dict_header_uncounted(const floe_pq_file *f) {
    const char *cb = f->meta->created_by;
    if (!cb || strncmp(cb, "parquet-mr", 10) != 0) return false;
    int v[3] = {0, 0, 0};
    if (sscanf(cb + 10, " version %d.%d.%d", &v[0], &v[1], &v[2]) < 1) return true;
    return v[0] < 1 || (v[0] == 1 && (v[1] < 2 || (v[1] == 2 && v[2] < 9)));
}

/* Byte range of a column chunk.  Writers disagree on the offsets: some set
 * dictionary_page_offset = 0 when there is no dictionary, parquet-cpp 17
 * wrote data_page_offset = 0 with the dictionary offset right; so the chunk
 * starts at the smallest offset that points into the data area. */
static floe_status chunk_range(const floe_pq_file *f, int rg, int col, uint64_t *off,
                               uint64_t *len) {
    const floe_pq_column_chunk *cc = floe_pq_file_chunk(f, rg, col);
    if (!cc) return floe_error(FLOE_ERR_CORRUPT, "'%s': row group %d has no column %d", f->path, rg, col);
    if (cc->file_path)
        return floe_error(FLOE_ERR_UNSUPPORTED,
                          "'%s': row group %d column %d is stored in another file ('%s')",
                          f->path, rg, col, cc->file_path);
    const floe_pq_column_meta *m = &cc->meta_data;
    int64_t cand[2] = {m->data_page_offset, m->has_dictionary_page_offset ? m->dictionary_page_offset : -1};
    int64_t start = -1;
    for (int i = 0; i < 2; i++)
        if (cand[i] >= 4 && (uint64_t)cand[i] < f->footer_offset && (start < 0 || cand[i] < start))
            start = cand[i];
    int64_t n = m->total_compressed_size;
    if (start < 0 || n < 0 || (uint64_t)n > f->footer_offset - (uint64_t)start)
        return floe_error(FLOE_ERR_CORRUPT,
                          "'%s': row group %d column %d: chunk at offset %lld length %lld is "
                          "outside the data (footer at offset %llu)",
                          f->path, rg, col, (long long)start, (long long)n,
                          (unsigned long long)f->footer_offset);
    /* Old parquet-mr: allow for the uncounted dictionary page header (at
     * most 100 bytes), without reaching into the footer. */
    if (dict_header_uncounted(f)) {
        uint64_t room = f->footer_offset - (uint64_t)start - (uint64_t)n;
        n += (int64_t)(room < 100 ? room : 100);
    }
    *off = (uint64_t)start;
    *len = (uint64_t)n;
    return NULL;
}

static int range_cmp(const void *a, const void *b) {
    const range *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Fetch the selected chunks of row group rg and start their readers. */
static floe_status start_row_group(floe_pq_reader *r, int rg) {
    floe_pq_file *f = r->file;
    const floe_pq_row_group *g = &f->meta->row_groups[rg];
    range *rs = floe_calloc((size_t)r->nleaves + 1, sizeof *rs);
    if (!rs) return oom();
    int n = 0;
    floe_status st = NULL;
    for (int i = 0; i < r->nleaves && !st; i++) {
        if (!r->selected[i]) continue;
        st = chunk_range(f, rg, i, &rs[n].off, &rs[n].len);
        rs[n].leaf = i;
        n++;
    }
    if (st) {
        floe_free(rs);
        return st;
    }
    qsort(rs, (size_t)n, sizeof *rs, range_cmp);
    r->blocks = floe_calloc((size_t)n + 1, sizeof *r->blocks);
    if (!r->blocks) {
        floe_free(rs);
        return oom();
    }
    for (int i = 0; i < n && !st;) {
        /* Merge following ranges while the gap is small. */
        uint64_t start = rs[i].off, end = rs[i].off + rs[i].len;
        int j = i + 1;
        while (j < n && r->max_gap >= 0 && rs[j].off <= end + (uint64_t)r->max_gap) {
            if (rs[j].off + rs[j].len > end) end = rs[j].off + rs[j].len;
            j++;
        }
        uint8_t *blk = floe_malloc(end - start ? (size_t)(end - start) : 1);
        if (!blk) {
            st = oom();
            break;
        }
        r->blocks[r->nblocks++] = blk;
        st = floe_input_read(f->in, start, (size_t)(end - start), blk);
        for (int k = i; k < j && !st; k++) {
            int leaf = rs[k].leaf;
            const floe_pq_column_chunk *cc = floe_pq_file_chunk(f, rg, leaf);
            const floe_pq_column *col = floe_pq_schema_column(f->schema, leaf);
            st = pq_column_reader_init(&r->readers[leaf], col, blk + (rs[k].off - start),
                                       (size_t)rs[k].len, rs[k].off, cc->meta_data.codec,
                                       cc->meta_data.num_values, r->verify_crc, r->flags);
            if (!st) r->reader_live[leaf] = true;
        }
        i = j;
    }
    floe_free(rs);
    if (st) {
        drop_row_group(r);
        return floe_status_wrap(st, "'%s': row group %d", f->path, rg);
    }
    r->rg = rg;
    r->rg_rows_left = g->num_rows;
    /* Byte arrays use int32 offsets, so a batch must hold < 2 GiB of them
     * per column: shrink this row group's batches when the chunk sizes say
     * its rows are huge (a heuristic: skewed data can still overflow, which
     * is then reported as UNSUPPORTED). */
    r->rg_batch = r->batch_size;
    for (int i = 0; i < r->nleaves; i++) {
        const floe_pq_column *col = floe_pq_schema_column(f->schema, i);
        if (!r->selected[i] || col->physical != FLOE_PQ_BYTE_ARRAY || g->num_rows <= 0) continue;
        const floe_pq_column_chunk *cc = floe_pq_file_chunk(f, rg, i);
        int64_t per_row = cc->meta_data.total_uncompressed_size / g->num_rows + 1;
        int64_t cap = PQ_BATCH_BYTE_BUDGET / per_row;
        if (cap < 1) cap = 1;
        if (cap < r->rg_batch) r->rg_batch = cap;
    }
    return NULL;
}

floe_status floe_pq_reader_open(floe_pq_file *file, const floe_pq_read_options *o,
                                floe_pq_reader **out) {
    *out = NULL;
    floe_pq_reader *r = floe_calloc(1, sizeof *r);
    if (!r) return oom();
    r->file = file;
    r->rg = -1;
    r->batch_size = o && o->batch_size > 0 ? o->batch_size : FLOE_PQ_DEFAULT_BATCH_SIZE;
    r->max_gap = o && o->max_gap ? o->max_gap : FLOE_PQ_DEFAULT_MAX_GAP;
    r->verify_crc = !(o && o->skip_crc);
    r->flags = o && o->int96_as_us ? PQ_INT96_AS_US : 0;
    r->nleaves = floe_pq_schema_num_columns(file->schema);
    size_t nl = (size_t)r->nleaves + 1;
    r->selected = floe_calloc(nl, sizeof *r->selected);
    r->readers = floe_calloc(nl, sizeof *r->readers);
    r->reader_live = floe_calloc(nl, sizeof *r->reader_live);
    r->outs = floe_calloc(nl, sizeof *r->outs);
    r->out_ptrs = floe_calloc(nl, sizeof *r->out_ptrs);
    floe_status st = NULL;
    if (!r->selected || !r->readers || !r->reader_live || !r->outs || !r->out_ptrs) st = oom();
    if (!st) st = build_projection(r, o);
    if (!st) {
        r->arrays = floe_calloc((size_t)r->ncols + 1, sizeof *r->arrays);
        if (!r->arrays) st = oom();
    }
    int total_rg = (int)file->meta->num_row_groups;
    if (!st) {
        int n = o && o->row_groups ? o->num_row_groups : total_rg;
        r->row_groups = floe_calloc((size_t)n + 1, sizeof *r->row_groups);
        if (!r->row_groups) st = oom();
        for (int i = 0; i < n && !st; i++) {
            int g = o && o->row_groups ? o->row_groups[i] : i;
            if (g < 0 || g >= total_rg)
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT,
                                "'%s': row group %d does not exist (the file has %d)", file->path,
                                g, total_rg);
            r->row_groups[i] = g;
        }
        r->nrg = n;
    }
    for (int i = 0; i < r->nleaves && !st; i++) {
        pq_leaf_out_init(&r->outs[i]);
        r->out_ptrs[i] = r->selected[i] ? &r->outs[i] : NULL;
    }
    if (st) {
        floe_pq_reader_close(r);
        return st;
    }
    *out = r;
    return NULL;
}

floe_status floe_pq_reader_open_path(const char *path, const floe_pq_read_options *opts,
                                     floe_pq_reader **out) {
    floe_pq_file *f;
    FLOE_TRY(floe_pq_file_open_path(path, &f));
    floe_status st = floe_pq_reader_open(f, opts, out);
    if (st) {
        floe_pq_file_close(f);
        return st;
    }
    (*out)->owns_file = true;
    return NULL;
}

void floe_pq_reader_close(floe_pq_reader *r) {
    if (!r) return;
    if (r->reader_live) drop_row_group(r);
    for (int i = 0; r->readers && i < r->nleaves; i++) pq_column_reader_free(&r->readers[i]);
    for (int i = 0; r->outs && i < r->nleaves; i++) pq_leaf_out_free(&r->outs[i]);
    floe_free(r->outs);
    floe_free(r->out_ptrs);
    floe_free(r->readers);
    floe_free(r->reader_live);
    floe_free(r->selected);
    floe_free(r->fields);
    floe_free(r->arrays);
    floe_free(r->row_groups);
    floe_type_release(r->schema);
    if (r->owns_file) floe_pq_file_close(r->file);
    floe_free(r);
}

floe_schema *floe_pq_reader_schema(const floe_pq_reader *r) {
    return r->schema;
}

floe_status floe_pq_reader_next(floe_pq_reader *r, floe_batch **out) {
    *out = NULL;
    while (r->rg < 0 || r->rg_rows_left == 0) {
        if (r->rg >= 0) drop_row_group(r);
        r->rg = -1;
        if (r->rg_next >= r->nrg) return NULL;
        int g = r->row_groups[r->rg_next++];
        if (r->file->meta->row_groups[g].num_rows < 0)
            return floe_error(FLOE_ERR_CORRUPT, "'%s': row group %d has %lld rows",
                              r->file->path, g,
                              (long long)r->file->meta->row_groups[g].num_rows);
        FLOE_TRY(start_row_group(r, g));
    }
    int64_t n = r->rg_rows_left < r->rg_batch ? r->rg_rows_left : r->rg_batch;
    for (int i = 0; i < r->nleaves; i++) {
        if (!r->reader_live[i]) continue;
        pq_leaf_out *o = &r->outs[i];
        pq_leaf_out_reset(o);
        FLOE_TRY_CTX(pq_column_read(&r->readers[i], n, o), "'%s': row group %d", r->file->path,
                     r->rg);
        if (o->rows != n)
            return floe_error(FLOE_ERR_CORRUPT,
                              "'%s': row group %d: column '%s' ends after %lld of its rows",
                              r->file->path, r->rg, r->readers[i].name,
                              (long long)(r->file->meta->row_groups[r->rg].num_rows -
                                          r->rg_rows_left + o->rows));
    }
    floe_status st = NULL;
    int built = 0;
    for (; built < r->ncols && !st; built++) {
        st = pq_assemble_field(r->fields[built], r->schema->children[built].type, r->out_ptrs,
                               &r->arrays[built]);
        if (st) break;
    }
    if (!st) st = floe_batch_new(r->schema, r->arrays, r->ncols, n, out);
    for (int i = 0; i < built; i++) {
        floe_array_release(r->arrays[i]);
        r->arrays[i] = NULL;
    }
    if (st) return floe_status_wrap(st, "'%s': row group %d", r->file->path, r->rg);
    r->rg_rows_left -= n;
    return NULL;
}

/*
 * reader.c — Parquet file -> record batches (see reader.h).
 *
 * Per row group: fetch the selected column chunks with coalesced reads,
 * start one pq_column_reader per selected leaf, then per batch let each
 * reader append the levels and values of the next batch_size rows and
 * assemble the output arrays from them.
 *
 * With predicates, a row group's rows that may match are a list of ranges
 * (page_filter.c).  Each leaf then gets only the pages overlapping them,
 * copied back to back into one buffer (the dictionary page first): the
 * pages are self-describing, so the page reader walks that buffer like a
 * whole chunk.  A leaf's `segments` map rows of that stream to rows of the
 * row group; to produce row s, the leaf decodes and drops the stream rows
 * before s's position in its stream (at most the head of one page per
 * range).  Without predicates every leaf has one segment, the whole chunk,
 * and the same batch loop serves both.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/memory.h"
#include "formats/parquet/assemble.h"
#include "formats/parquet/column_reader.h"
#include "formats/parquet/page_filter.h"
#include "formats/parquet/reader.h"

/* Target bytes of one byte-array column in one batch (int32 offsets). */
#define PQ_BATCH_BYTE_BUDGET ((int64_t)1 << 30)

typedef struct range {
    uint64_t off, len;
    int leaf;           /* column index */
} range;

/* The whole-chunk reads of one row group, maybe running on a thread of its
 * own (read-ahead). */
typedef struct chunk_fetch {
    const floe_pq_file *file;
    int rg;
    int list_index;            /* its place in the reader's row group list */
    range *rs;                 /* selected chunks, by offset */
    int n;
    int *block_of;             /* per rs entry: the block holding it */
    uint8_t **blocks;
    uint64_t *block_start, *block_len;
    int nblocks;
    floe_status st;            /* of the reads */
    pthread_t th;
    bool threaded;             /* th must be joined */
} chunk_fetch;

/* Rows of a leaf's fetched stream: stream rows [stream_lo, stream_lo +
 * (hi - lo)) are row-group rows [lo, hi). */
typedef struct leaf_segs {
    int64_t *lo, *hi, *stream_lo;
    int n, cap, cur;
    int64_t stream_pos;            /* stream rows consumed so far */
} leaf_segs;

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
    int flags;                     /* PQ_INT96_AS_NS */

    /* The current row group. */
    int rg;                        /* -1 before the first */
    int64_t rg_rows_left;
    uint8_t **blocks;              /* coalesced reads */
    int nblocks;
    pq_column_reader *readers;     /* per leaf (only selected ones initialised) */
    bool *reader_live;
    pq_leaf_out *outs;             /* per leaf */
    pq_leaf_out **out_ptrs;        /* per leaf, NULL if not selected */
    struct pruned_node *pruned;    /* every pruned copy, for freeing */
    floe_array **arrays;           /* per output column, scratch */

    int read_ahead;                /* row groups fetched ahead */
    chunk_fetch *ahead;            /* read_ahead slots, by list index modulo */

    /* Page skipping. */
    pq_pred *preds;
    int npreds;
    int64_t *rg_first_row;         /* per row group of the file */
    pq_ranges ranges;              /* rows of the current row group to emit */
    int rcur;                      /* current range */
    int64_t rpos;                  /* next row to emit within it */
    leaf_segs *segs;               /* per leaf */
    pq_leaf_out discard;           /* rows decoded only to be dropped */
    floe_pq_row_span *spans;       /* of the last batch */
    const floe_pq_field **anchors; /* per output column: the node it is named after */
    int nspans, spans_cap;
    floe_pq_skip_stats stats;
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

static bool name_is(const char *name, const char *p, size_t n) {
    return strlen(name) == n && !memcmp(name, p, n);
}

/* Resolve a dotted logical path: struct fields by name, a list's element
 * as "element" (or its own name), a map's "key" and "value". */
static const floe_pq_field *find_path(const floe_pq_schema *s, const char *path) {
    const floe_pq_field *f = floe_pq_schema_root(s);
    const char *p = path;
    while (f && *p) {
        /* A variant is one column: its metadata / value / typed_value
         * sub-columns are not columns of their own. */
        if (f->kind == FLOE_PQ_KIND_VARIANT) return NULL;
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        const floe_pq_field *next = NULL;
        for (int i = 0; i < f->num_children && !next; i++) {
            const floe_pq_field *c = f->children[i];
            if (name_is(c->name, p, n) ||
                (f->kind == FLOE_PQ_KIND_LIST && name_is("element", p, n)) ||
                (f->kind == FLOE_PQ_KIND_MAP && name_is(i == 0 ? "key" : "value", p, n)))
                next = c;
        }
        f = next;
        p = dot ? dot + 1 : p + n;
    }
    return f;
}

/* A copy of a field node whose children are a subset of the original's:
 * the output shape of a projection that reaches into a list or map. */
typedef struct pruned_node {
    floe_pq_field f;               /* first: a pruned_node * is a floe_pq_field * */
    const floe_pq_field *orig;
    struct pruned_node *next_alloc;
} pruned_node;

static pruned_node *pruned_copy(floe_pq_reader *r, const floe_pq_field *o) {
    pruned_node *p = floe_calloc(1, sizeof *p);
    floe_pq_field **kids = floe_calloc((size_t)o->num_children + 1, sizeof *kids);
    if (!p || !kids) {
        floe_free(p);
        floe_free(kids);
        return NULL;
    }
    p->f = *o;
    p->f.children = kids;
    p->f.num_children = 0;
    p->orig = o;
    p->next_alloc = r->pruned;
    r->pruned = p;
    return p;
}

static int child_index(const floe_pq_field *parent, const floe_pq_field *c) {
    for (int i = 0; i < parent->num_children; i++)
        if (parent->children[i] == c) return i;
    return -1;
}

/* Put `c` (an original child of p->orig, or a pruned copy of one) into
 * p's children in the original order, replacing what stands for the same
 * child. */
static void pruned_set_child(pruned_node *p, const floe_pq_field *orig_child, floe_pq_field *c) {
    int want = child_index(p->orig, orig_child);
    int i = 0;
    for (; i < p->f.num_children; i++) {
        floe_pq_field *k = p->f.children[i];
        const floe_pq_field *ko = child_index(p->orig, k) >= 0 ? k : ((pruned_node *)k)->orig;
        int at = child_index(p->orig, ko);
        if (at == want) {
            p->f.children[i] = c;
            return;
        }
        if (at > want) break;
    }
    memmove(&p->f.children[i + 1], &p->f.children[i],
            (size_t)(p->f.num_children - i) * sizeof *p->f.children);
    p->f.children[i] = c;
    p->f.num_children++;
}

/* Add the path from pruned node `top` down to original node x (whole). */
static floe_status pruned_add(floe_pq_reader *r, pruned_node *top, const floe_pq_field *x) {
    const floe_pq_field *chain[64];
    int n = 0;
    for (const floe_pq_field *q = x; q && q != top->orig && n < 64; q = q->parent) chain[n++] = q;
    pruned_node *p = top;
    for (int i = n - 1; i >= 0; i--) {
        const floe_pq_field *oc = chain[i];
        /* A map keeps both its children: the key stays whole. */
        if (p->orig->kind == FLOE_PQ_KIND_MAP)
            for (int k = 0; k < p->orig->num_children; k++)
                if (p->orig->children[k] != oc) {
                    bool have = false;
                    for (int j = 0; j < p->f.num_children; j++) {
                        floe_pq_field *c = p->f.children[j];
                        have |= c == p->orig->children[k] ||
                                (child_index(p->orig, c) < 0 &&
                                 ((pruned_node *)c)->orig == p->orig->children[k]);
                    }
                    if (!have) {
                        pruned_set_child(p, p->orig->children[k], p->orig->children[k]);
                        mark_leaves(r, p->orig->children[k]);
                    }
                }
        /* What stands for oc now: the original (already whole), a copy, or nothing. */
        floe_pq_field *cur = NULL;
        for (int j = 0; j < p->f.num_children; j++) {
            floe_pq_field *c = p->f.children[j];
            if (c == oc || (child_index(p->orig, c) < 0 && ((pruned_node *)c)->orig == oc)) cur = c;
        }
        if (cur == oc) return NULL; /* already read whole */
        if (i == 0) {
            pruned_set_child(p, oc, (floe_pq_field *)oc);
            return NULL;
        }
        pruned_node *next = (pruned_node *)cur;
        if (!next) {
            next = pruned_copy(r, oc);
            if (!next) return oom();
            pruned_set_child(p, oc, &next->f);
        }
        p = next;
    }
    return NULL;
}

/* The outermost list or map above f, or NULL when only structs are. */
static const floe_pq_field *outer_repeated(const floe_pq_field *f) {
    const floe_pq_field *a = NULL;
    for (const floe_pq_field *p = f->parent; p && p->parent; p = p->parent)
        if (p->kind == FLOE_PQ_KIND_LIST || p->kind == FLOE_PQ_KIND_MAP) a = p;
    return a;
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
    r->anchors = floe_calloc((size_t)n + 1, sizeof *r->anchors);
    if (!r->fields || !r->anchors) return oom();
    int nout = 0;
    for (int i = 0; i < n; i++) {
        const floe_pq_field *f;
        if (o && o->columns) {
            f = find_path(s, o->columns[i]);
            if (!f)
                return floe_error(FLOE_ERR_NOT_FOUND, "'%s': no column '%s'", r->file->path,
                                  o->columns[i]);
        } else if (o && o->field_ids) {
            f = floe_pq_schema_find_field_id(s, o->field_ids[i]);
            for (const floe_pq_field *q = f ? f->parent : NULL; q && f; q = q->parent)
                if (q->kind == FLOE_PQ_KIND_VARIANT) f = NULL; /* ids inside a variant are not columns */
            if (!f)
                return floe_error(FLOE_ERR_NOT_FOUND, "'%s': no column with field id %d",
                                  r->file->path, o->field_ids[i]);
        } else {
            f = root->children[i];
        }
        if (f == root)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s': cannot project the schema root",
                              r->file->path);
        mark_leaves(r, f);
        const floe_pq_field *a = outer_repeated(f);
        if (!a) {
            r->fields[nout] = r->anchors[nout] = f;
            nout++;
            continue;
        }
        /* Inside a list or map: the output column is the outermost list or
         * map, pruned down to the fields asked for (merged with an earlier
         * request under the same one). */
        int j = 0;
        while (j < nout && !(r->anchors[j] == a && r->fields[j] != a)) j++;
        pruned_node *pn;
        if (j < nout) {
            pn = (pruned_node *)r->fields[j];
        } else {
            pn = pruned_copy(r, a);
            if (!pn) return oom();
            r->fields[nout] = &pn->f;
            r->anchors[nout] = a;
            nout++;
        }
        FLOE_TRY(pruned_add(r, pn, f));
    }
    n = nout;
    r->ncols = n;
    /* The output schema. */
    floe_field *ff = floe_calloc((size_t)n + 1, sizeof *ff);
    if (!ff) return oom();
    floe_status st = NULL;
    for (int i = 0; i < n && !st; i++) {
        floe_type *t = NULL;
        st = pq_field_type(r->fields[i], r->flags, &t);
        char *name = st ? NULL : field_path(r->anchors[i]);
        if (!st && !name) st = oom();
        const floe_pq_field *f = r->anchors[i];
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
    for (int i = 0; r->segs && i < r->nleaves; i++) {
        r->segs[i].n = r->segs[i].cur = 0;
        r->segs[i].stream_pos = 0;
    }
}

static floe_status seg_add(leaf_segs *g, int64_t lo, int64_t hi, int64_t stream_lo) {
    if (g->n && g->hi[g->n - 1] == lo && g->stream_lo[g->n - 1] + (g->hi[g->n - 1] - g->lo[g->n - 1]) == stream_lo) {
        g->hi[g->n - 1] = hi;
        return NULL;
    }
    if (g->n == g->cap) {
        int cap = g->cap ? g->cap * 2 : 4;
        int64_t *a = floe_realloc(g->lo, (size_t)cap * sizeof *a);
        if (!a) return oom();
        g->lo = a;
        a = floe_realloc(g->hi, (size_t)cap * sizeof *a);
        if (!a) return oom();
        g->hi = a;
        a = floe_realloc(g->stream_lo, (size_t)cap * sizeof *a);
        if (!a) return oom();
        g->stream_lo = a;
        g->cap = cap;
    }
    g->lo[g->n] = lo;
    g->hi[g->n] = hi;
    g->stream_lo[g->n] = stream_lo;
    g->n++;
    return NULL;
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

/* Plan the whole-chunk reads of row group rg: the selected chunks' byte
 * ranges, sorted and merged into blocks while the gap is at most max_gap. */
static floe_status fetch_plan(floe_pq_reader *r, int rg, chunk_fetch *cf) {
    memset(cf, 0, sizeof *cf);
    cf->file = r->file;
    cf->rg = rg;
    cf->rs = floe_calloc((size_t)r->nleaves + 1, sizeof *cf->rs);
    cf->block_of = floe_calloc((size_t)r->nleaves + 1, sizeof *cf->block_of);
    cf->blocks = floe_calloc((size_t)r->nleaves + 1, sizeof *cf->blocks);
    cf->block_start = floe_calloc((size_t)r->nleaves + 1, sizeof *cf->block_start);
    cf->block_len = floe_calloc((size_t)r->nleaves + 1, sizeof *cf->block_len);
    if (!cf->rs || !cf->block_of || !cf->blocks || !cf->block_start || !cf->block_len) return oom();
    for (int i = 0; i < r->nleaves; i++) {
        if (!r->selected[i]) continue;
        FLOE_TRY(chunk_range(r->file, rg, i, &cf->rs[cf->n].off, &cf->rs[cf->n].len));
        cf->rs[cf->n++].leaf = i;
    }
    qsort(cf->rs, (size_t)cf->n, sizeof *cf->rs, range_cmp);
    for (int i = 0; i < cf->n;) {
        uint64_t start = cf->rs[i].off, end = cf->rs[i].off + cf->rs[i].len;
        int j = i + 1;
        while (j < cf->n && r->max_gap >= 0 && cf->rs[j].off <= end + (uint64_t)r->max_gap) {
            if (cf->rs[j].off + cf->rs[j].len > end) end = cf->rs[j].off + cf->rs[j].len;
            j++;
        }
        for (int k = i; k < j; k++) cf->block_of[k] = cf->nblocks;
        cf->block_start[cf->nblocks] = start;
        cf->block_len[cf->nblocks] = end - start;
        cf->nblocks++;
        i = j;
    }
    return NULL;
}

/* Do the planned reads (on any thread: floe_input is thread-safe). */
static void fetch_run(chunk_fetch *cf) {
    for (int b = 0; b < cf->nblocks && !cf->st; b++) {
        uint64_t len = cf->block_len[b];
        cf->blocks[b] = floe_malloc(len ? (size_t)len : 1);
        if (!cf->blocks[b]) cf->st = oom();
        else cf->st = floe_input_read(cf->file->in, cf->block_start[b], (size_t)len, cf->blocks[b]);
    }
}

static void *fetch_thread(void *arg) {
    fetch_run(arg);
    return NULL;
}

/* Wait for a background fetch (if any) and free what it still owns. */
static void fetch_free(chunk_fetch *cf) {
    if (cf->threaded) pthread_join(cf->th, NULL);
    cf->threaded = false;
    for (int b = 0; cf->blocks && b < cf->nblocks; b++) floe_free(cf->blocks[b]);
    floe_free(cf->blocks);
    floe_free(cf->rs);
    floe_free(cf->block_of);
    floe_free(cf->block_start);
    floe_free(cf->block_len);
    floe_status_free(cf->st);
    memset(cf, 0, sizeof *cf);
}

/* Start background fetches for the next row groups in the reading order,
 * up to read_ahead of them (only without predicates: with them, the page
 * index decides what to fetch, row group by row group). */
static void schedule_read_ahead(floe_pq_reader *r) {
    if (r->read_ahead <= 0 || r->npreds) return;
    for (int k = 0; k < r->read_ahead; k++) {
        int idx = r->rg_next + k;
        if (idx >= r->nrg) break;
        chunk_fetch *cf = &r->ahead[idx % r->read_ahead];
        if (cf->rs && cf->list_index == idx) continue; /* already under way */
        fetch_free(cf);
        int g = r->row_groups[idx];
        if (r->file->meta->row_groups[g].num_rows <= 0) continue;
        floe_status st = fetch_plan(r, g, cf);
        if (st) {
            /* Leave it to the synchronous path to report. */
            floe_status_free(st);
            fetch_free(cf);
            continue;
        }
        cf->list_index = idx;
        if (pthread_create(&cf->th, NULL, fetch_thread, cf) == 0) cf->threaded = true;
        else fetch_run(cf);
    }
}

/* Fetch the selected chunks of row group rg whole (or take them from a
 * read-ahead) and start their readers. */
static floe_status fetch_chunks(floe_pq_reader *r, int rg) {
    floe_pq_file *f = r->file;
    const floe_pq_row_group *g = &f->meta->row_groups[rg];
    chunk_fetch own, *cf = NULL;
    int idx = r->rg_next - 1; /* this row group's place in the reading order */
    if (r->read_ahead > 0) {
        chunk_fetch *a = &r->ahead[idx % r->read_ahead];
        if (a->rs && a->list_index == idx && a->rg == rg) {
            if (a->threaded) pthread_join(a->th, NULL);
            a->threaded = false;
            cf = a;
        }
    }
    floe_status st = NULL;
    if (!cf) {
        cf = &own;
        st = fetch_plan(r, rg, cf);
        if (!st) fetch_run(cf);
    }
    if (!st) {
        st = cf->st;
        cf->st = NULL;
    }
    if (!st) {
        r->blocks = floe_calloc((size_t)cf->nblocks + 1, sizeof *r->blocks);
        if (!r->blocks) st = oom();
    }
    if (!st) { /* the blocks are the row group's now */
        for (int b = 0; b < cf->nblocks; b++) r->blocks[r->nblocks++] = cf->blocks[b];
        for (int k = 0; k < cf->n && !st; k++) {
            int leaf = cf->rs[k].leaf, b = cf->block_of[k];
            const floe_pq_column_chunk *cc = floe_pq_file_chunk(f, rg, leaf);
            const floe_pq_column *col = floe_pq_schema_column(f->schema, leaf);
            uint8_t *at = cf->blocks[b] + (cf->rs[k].off - cf->block_start[b]);
            st = pq_column_reader_init(&r->readers[leaf], col, at, (size_t)cf->rs[k].len,
                                       cf->rs[k].off, cc->meta_data.codec,
                                       cc->meta_data.num_values, r->verify_crc, r->flags);
            if (!st) r->reader_live[leaf] = true;
            if (!st) st = seg_add(&r->segs[leaf], 0, g->num_rows, 0);
        }
        cf->nblocks = 0;
    }
    fetch_free(cf);
    if (!st) schedule_read_ahead(r);
    return st;
}

/* Whether page [lo, hi) overlaps the ranges; *k is a cursor into them that
 * only moves forward (pages come in row order). */
static bool page_wanted(const pq_ranges *rg, int *k, int64_t lo, int64_t hi) {
    while (*k < rg->n && rg->hi[*k] <= lo) (*k)++;
    return *k < rg->n && rg->lo[*k] < hi;
}

/* Fetch the pages of leaf `leaf` that overlap r->ranges (and whatever
 * precedes the first data page: the dictionary page) into one buffer and
 * start its reader on it.  A chunk without a usable OffsetIndex is fetched
 * whole. */
static floe_status fetch_leaf_pages(floe_pq_reader *r, int rg, int leaf) {
    floe_pq_file *f = r->file;
    const floe_pq_row_group *g = &f->meta->row_groups[rg];
    const floe_pq_column_chunk *cc = floe_pq_file_chunk(f, rg, leaf);
    const floe_pq_column *col = floe_pq_schema_column(f->schema, leaf);
    uint64_t coff, clen;
    FLOE_TRY(chunk_range(f, rg, leaf, &coff, &clen));
    floe_pq_offset_index *oi = NULL;
    if (cc->has_offset_index && !cc->encrypted)
        FLOE_TRY(floe_pq_file_read_offset_index(f, rg, leaf, &oi));
    floe_status st = NULL;
    leaf_segs *sg = &r->segs[leaf];
    uint8_t *blk = NULL;
    size_t used = 0;
    if (!pq_offset_index_fits(oi, g->num_rows, coff, clen)) {
        /* No page index to go by: the whole chunk. */
        blk = floe_malloc(clen ? (size_t)clen : 1);
        if (!blk) st = oom();
        if (!st) st = floe_input_read(f->in, coff, (size_t)clen, blk);
        used = (size_t)clen;
        if (!st) st = seg_add(sg, 0, g->num_rows, 0);
    } else {
        const floe_pq_page_location *pl = oi->page_locations;
        uint32_t np = oi->num_pages;
        /* Size the buffer: the prefix plus the wanted pages. */
        uint64_t prefix = (uint64_t)pl[0].offset - coff, need = prefix;
        int k = 0;
        for (uint32_t p = 0; p < np; p++) {
            int64_t hi = p + 1 < np ? pl[p + 1].first_row_index : g->num_rows;
            if (page_wanted(&r->ranges, &k, pl[p].first_row_index, hi))
                need += (uint64_t)pl[p].compressed_page_size;
        }
        blk = floe_malloc(need ? (size_t)need : 1);
        if (!blk) st = oom();
        if (!st && prefix) st = floe_input_read(f->in, coff, (size_t)prefix, blk);
        used = (size_t)prefix;
        int64_t stream_row = 0;
        k = 0;
        /* Read runs of adjacent wanted pages with one request each. */
        uint64_t run_off = 0, run_len = 0;
        for (uint32_t p = 0; p < np && !st; p++) {
            int64_t lo = pl[p].first_row_index;
            int64_t hi = p + 1 < np ? pl[p + 1].first_row_index : g->num_rows;
            r->stats.pages_total++;
            if (!page_wanted(&r->ranges, &k, lo, hi)) {
                r->stats.pages_skipped++;
                continue;
            }
            uint64_t off = (uint64_t)pl[p].offset, len = (uint64_t)pl[p].compressed_page_size;
            if (run_len && run_off + run_len != off) {
                st = floe_input_read(f->in, run_off, (size_t)run_len, blk + used);
                used += (size_t)run_len;
                run_len = 0;
            }
            if (!run_len) run_off = off;
            run_len += len;
            if (!st) st = seg_add(sg, lo, hi, stream_row);
            stream_row += hi - lo;
        }
        if (!st && run_len) {
            st = floe_input_read(f->in, run_off, (size_t)run_len, blk + used);
            used += (size_t)run_len;
        }
    }
    floe_pq_offset_index_free(oi);
    if (blk) {
        if (st) {
            floe_free(blk);
            return st;
        }
        r->blocks[r->nblocks++] = blk;
    }
    if (st) return st;
    /* Messages name offsets as if the stream were the chunk (the first
     * fetched page onwards they are approximate). */
    st = pq_column_reader_init(&r->readers[leaf], col, blk, used, coff, cc->meta_data.codec,
                               cc->meta_data.num_values, r->verify_crc, r->flags);
    if (!st) r->reader_live[leaf] = true;
    return st;
}

static floe_status fetch_pages(floe_pq_reader *r, int rg) {
    r->blocks = floe_calloc((size_t)r->nleaves + 1, sizeof *r->blocks);
    if (!r->blocks) return oom();
    floe_status st = NULL;
    for (int i = 0; i < r->nleaves && !st; i++)
        if (r->selected[i]) st = fetch_leaf_pages(r, rg, i);
    return st;
}

/* Work out which rows of row group rg to read, fetch what they need and
 * start the column readers. */
static floe_status start_row_group(floe_pq_reader *r, int rg) {
    floe_pq_file *f = r->file;
    const floe_pq_row_group *g = &f->meta->row_groups[rg];
    bool pruned = false;
    floe_status st = NULL;
    r->ranges.n = 0;
    if (r->npreds) st = pq_page_filter_rows(f, rg, r->preds, r->npreds, &r->ranges, &pruned);
    else st = pq_ranges_add(&r->ranges, 0, g->num_rows);
    if (st) return floe_status_wrap(st, "'%s': row group %d", f->path, rg);
    r->stats.rows_total += g->num_rows;
    r->rg = rg;
    r->rcur = 0;
    r->rpos = r->ranges.n ? r->ranges.lo[0] : 0;
    r->rg_rows_left = pq_ranges_rows(&r->ranges);
    if (r->ranges.n == 0) {
        if (r->npreds && g->num_rows > 0) r->stats.row_groups_skipped++;
        return NULL;
    }
    st = pruned ? fetch_pages(r, rg) : fetch_chunks(r, rg);
    if (st) {
        drop_row_group(r);
        r->rg = -1;
        return floe_status_wrap(st, "'%s': row group %d", f->path, rg);
    }
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

/* Resolve each predicate's leaf column and check its values. */
static floe_status bind_predicates(floe_pq_reader *r, const floe_pq_read_options *o) {
    if (!o || !o->predicates || o->num_predicates <= 0) return NULL;
    const floe_pq_schema *s = r->file->schema;
    r->preds = floe_calloc((size_t)o->num_predicates, sizeof *r->preds);
    if (!r->preds) return oom();
    for (int i = 0; i < o->num_predicates; i++) {
        const floe_pq_predicate *p = &o->predicates[i];
        const floe_pq_field *f = p->path ? find_path(s, p->path)
                                         : floe_pq_schema_find_field_id(s, p->field_id);
        char idbuf[32];
        snprintf(idbuf, sizeof idbuf, "field id %d", (int)p->field_id);
        const char *what = p->path ? p->path : idbuf;
        if (!f)
            return floe_error(FLOE_ERR_NOT_FOUND, "'%s': predicate on a column that does not exist (%s)",
                              r->file->path, what);
        if (!f->column)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "'%s': predicate on '%s', which is not a primitive column",
                              r->file->path, what);
        if (!reachable_by_structs(f) || f->column->max_rep_level > 0)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "'%s': predicate on '%s', which is inside a list or map",
                              r->file->path, what);
        FLOE_TRY_CTX(pq_pred_bind(f->column, p, &r->preds[i]), "'%s'", r->file->path);
        r->npreds = i + 1;
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
    r->read_ahead = o && o->read_ahead > 0 ? o->read_ahead : 0;
    if (r->read_ahead > 64) r->read_ahead = 64;
    r->verify_crc = !(o && o->skip_crc);
    r->flags = o && o->int96_as_ns ? PQ_INT96_AS_NS : 0;
    r->nleaves = floe_pq_schema_num_columns(file->schema);
    size_t nl = (size_t)r->nleaves + 1;
    r->selected = floe_calloc(nl, sizeof *r->selected);
    r->readers = floe_calloc(nl, sizeof *r->readers);
    r->reader_live = floe_calloc(nl, sizeof *r->reader_live);
    r->outs = floe_calloc(nl, sizeof *r->outs);
    r->out_ptrs = floe_calloc(nl, sizeof *r->out_ptrs);
    r->segs = floe_calloc(nl, sizeof *r->segs);
    pq_leaf_out_init(&r->discard);
    if (r->read_ahead) {
        r->ahead = floe_calloc((size_t)r->read_ahead, sizeof *r->ahead);
        if (!r->ahead) r->read_ahead = 0;
    }
    floe_status st = NULL;
    if (!r->selected || !r->readers || !r->reader_live || !r->outs || !r->out_ptrs || !r->segs)
        st = oom();
    if (!st) st = build_projection(r, o);
    if (!st) st = bind_predicates(r, o);
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
        r->rg_first_row = floe_calloc((size_t)total_rg + 1, sizeof *r->rg_first_row);
        if (!r->rg_first_row) st = oom();
        for (int i = 0; i < total_rg && !st; i++)
            r->rg_first_row[i + 1] = r->rg_first_row[i] + file->meta->row_groups[i].num_rows;
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
    for (int i = 0; r->ahead && i < r->read_ahead; i++) fetch_free(&r->ahead[i]);
    floe_free(r->ahead);
    if (r->reader_live) drop_row_group(r);
    for (int i = 0; r->readers && i < r->nleaves; i++) pq_column_reader_free(&r->readers[i]);
    for (int i = 0; r->outs && i < r->nleaves; i++) pq_leaf_out_free(&r->outs[i]);
    floe_free(r->outs);
    floe_free(r->out_ptrs);
    for (int i = 0; r->segs && i < r->nleaves; i++) {
        floe_free(r->segs[i].lo);
        floe_free(r->segs[i].hi);
        floe_free(r->segs[i].stream_lo);
    }
    floe_free(r->segs);
    pq_leaf_out_free(&r->discard);
    for (int i = 0; i < r->npreds; i++) pq_pred_free(&r->preds[i]);
    floe_free(r->preds);
    floe_free(r->rg_first_row);
    floe_free(r->spans);
    pq_ranges_free(&r->ranges);
    floe_free(r->readers);
    floe_free(r->reader_live);
    floe_free(r->selected);
    floe_free(r->fields);
    floe_free(r->anchors);
    while (r->pruned) {
        pruned_node *p = r->pruned;
        r->pruned = p->next_alloc;
        floe_free(p->f.children);
        floe_free(p);
    }
    floe_free(r->arrays);
    floe_free(r->row_groups);
    floe_type_release(r->schema);
    if (r->owns_file) floe_pq_file_close(r->file);
    floe_free(r);
}

floe_schema *floe_pq_reader_schema(const floe_pq_reader *r) {
    return r->schema;
}

/* The next n rows to emit, as file-row spans in r->spans, advancing the
 * range cursor. */
static floe_status take_spans(floe_pq_reader *r, int64_t n) {
    r->nspans = 0;
    int64_t first = r->rg_first_row[r->rg];
    while (n > 0 && r->rcur < r->ranges.n) {
        int64_t take = r->ranges.hi[r->rcur] - r->rpos;
        if (take > n) take = n;
        if (r->nspans == r->spans_cap) {
            int cap = r->spans_cap ? r->spans_cap * 2 : 8;
            floe_pq_row_span *ns = floe_realloc(r->spans, (size_t)cap * sizeof *ns);
            if (!ns) return oom();
            r->spans = ns;
            r->spans_cap = cap;
        }
        r->spans[r->nspans++] = (floe_pq_row_span){first + r->rpos, take};
        r->rpos += take;
        n -= take;
        if (r->rpos == r->ranges.hi[r->rcur] && ++r->rcur < r->ranges.n)
            r->rpos = r->ranges.lo[r->rcur];
    }
    return NULL;
}

/* Bring leaf i's reader to row-group row `at`: drop the stream rows before
 * it.  `at` must lie in a fetched page (the ranges guarantee it). */
static floe_status leaf_seek(floe_pq_reader *r, int i, int64_t at) {
    leaf_segs *g = &r->segs[i];
    while (g->cur < g->n && g->hi[g->cur] <= at) g->cur++;
    if (g->cur == g->n || g->lo[g->cur] > at)
        return floe_error(FLOE_ERR_INTERNAL, "column '%s': row %lld is in no fetched page",
                          r->readers[i].name, (long long)at);
    int64_t target = g->stream_lo[g->cur] + (at - g->lo[g->cur]);
    if (target < g->stream_pos)
        return floe_error(FLOE_ERR_INTERNAL, "column '%s': row %lld was already read",
                          r->readers[i].name, (long long)at);
    while (target > g->stream_pos) {
        int64_t step = target - g->stream_pos;
        if (step > r->rg_batch) step = r->rg_batch;
        pq_leaf_out_reset(&r->discard);
        FLOE_TRY(pq_column_read(&r->readers[i], step, &r->discard));
        if (r->discard.rows != step)
            return floe_error(FLOE_ERR_CORRUPT, "column '%s' ends before row %lld",
                              r->readers[i].name, (long long)at);
        g->stream_pos += step;
        r->stats.values_dropped += step;
    }
    return NULL;
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
    FLOE_TRY(take_spans(r, n));
    int64_t first = r->rg_first_row[r->rg];
    for (int i = 0; i < r->nleaves; i++) {
        if (!r->reader_live[i]) continue;
        pq_leaf_out *o = &r->outs[i];
        pq_leaf_out_reset(o);
        for (int k = 0; k < r->nspans; k++) {
            int64_t at = r->spans[k].first_row - first, want = r->spans[k].num_rows;
            FLOE_TRY_CTX(leaf_seek(r, i, at), "'%s': row group %d", r->file->path, r->rg);
            int64_t before = o->rows;
            FLOE_TRY_CTX(pq_column_read(&r->readers[i], want, o), "'%s': row group %d",
                         r->file->path, r->rg);
            r->segs[i].stream_pos += o->rows - before;
            if (o->rows - before != want)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "'%s': row group %d: column '%s' ends after %lld of its rows",
                                  r->file->path, r->rg, r->readers[i].name,
                                  (long long)(at + o->rows - before));
        }
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
    r->stats.rows_emitted += n;
    return NULL;
}

void floe_pq_reader_last_rows(const floe_pq_reader *r, const floe_pq_row_span **spans, int *n) {
    *spans = r->spans;
    *n = r->nspans;
}

void floe_pq_reader_skip_stats(const floe_pq_reader *r, floe_pq_skip_stats *out) {
    *out = r->stats;
}

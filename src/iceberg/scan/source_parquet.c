/*
 * source_parquet.c — a Parquet data file as a task source (task_source.h):
 * its top-level columns, the row groups that start inside the task's byte
 * range, and page skipping: the residual's AND-ed simple terms become the
 * Parquet reader's page predicates, so pages (and row groups) whose page
 * index proves no row can match are never fetched; the reader's row spans
 * then say which file rows each batch holds.
 */
#include <string.h>
#include <strings.h>

#include "floe/memory.h"
#include "formats/parquet/reader.h"
#include "iceberg/scan/task_source.h"

typedef struct pq_source {
    floe_ice_source head;
    floe_pq_file *file;
    floe_pq_reader *pq;
    const char **names;      /* head.names: the file's top-level names (borrowed from its schema) */
    int32_t *ids;            /* head.field_ids */
    int *row_groups;
    int n_row_groups;
    floe_ice_row_span *spans;
    int spans_cap;
} pq_source;


/* The residual's AND-ed simple terms as Parquet page predicates, so the
 * reader skips pages (and row groups) whose page index proves no row can
 * match.  A term goes in only when it is exactly representable on the
 * file's leaf in the reader's value domain; the residual itself is still
 * evaluated on every row read, so skipping only has to be conservative. */
typedef struct page_preds {
    floe_pq_predicate *preds;
    floe_pq_value *vals;
    int n, nvals, cap, vcap;
} page_preds;

static void page_preds_free(page_preds *pp) {
    floe_free(pp->preds);
    floe_free(pp->vals);
    memset(pp, 0, sizeof *pp);
}

static void count_terms(const floe_ice_expr *e, int *n, int *nvals) {
    if (e->op == FLOE_ICE_EXPR_AND) {
        count_terms(e->left, n, nvals);
        count_terms(e->right, n, nvals);
        return;
    }
    (*n)++;
    *nvals += e->n_values;
}

/* Does table type `it` read from a leaf of this kind keep the leaf's
 * values as they are (so bounds in the leaf's domain bound the table's)? */
static bool leaf_domain_matches(const floe_ice_type *it, const floe_pq_column *col) {
    switch (it->id) {
    case FLOE_ICE_BOOLEAN: return col->kind == FLOE_PQ_KIND_BOOL;
    case FLOE_ICE_INT: case FLOE_ICE_LONG:
        return col->kind == FLOE_PQ_KIND_INT8 || col->kind == FLOE_PQ_KIND_INT16 || col->kind == FLOE_PQ_KIND_INT32 ||
               col->kind == FLOE_PQ_KIND_INT64 || col->kind == FLOE_PQ_KIND_UINT8 ||
               col->kind == FLOE_PQ_KIND_UINT16 || col->kind == FLOE_PQ_KIND_UINT32;
    case FLOE_ICE_FLOAT: case FLOE_ICE_DOUBLE:
        return col->kind == FLOE_PQ_KIND_FLOAT || col->kind == FLOE_PQ_KIND_DOUBLE;
    case FLOE_ICE_DATE: return col->kind == FLOE_PQ_KIND_DATE;
    case FLOE_ICE_TIME: return col->kind == FLOE_PQ_KIND_TIME_MS || col->kind == FLOE_PQ_KIND_TIME_US;
    case FLOE_ICE_TIMESTAMP: case FLOE_ICE_TIMESTAMPTZ:
        return (col->kind == FLOE_PQ_KIND_TIMESTAMP_MS || col->kind == FLOE_PQ_KIND_TIMESTAMP_US) &&
               col->physical == FLOE_PQ_INT64;
    case FLOE_ICE_TIMESTAMP_NS: case FLOE_ICE_TIMESTAMPTZ_NS:
        return col->kind == FLOE_PQ_KIND_TIMESTAMP_NS && col->physical == FLOE_PQ_INT64;
    case FLOE_ICE_STRING: case FLOE_ICE_BINARY:
        return col->kind == FLOE_PQ_KIND_STRING || col->kind == FLOE_PQ_KIND_BINARY;
    case FLOE_ICE_DECIMAL: return col->kind == FLOE_PQ_KIND_DECIMAL && col->scale == it->scale;
    default: return false;
    }
}

/* A bound literal as a reader value; false when it has no usable form. */
static bool ice_page_value(const floe_ice_value *v, floe_pq_value *out) {
    memset(out, 0, sizeof *out);
    if (v->is_null) return false;
    switch (v->type) {
    case FLOE_ICE_BOOLEAN: out->kind = FLOE_PQ_VAL_INT; out->i = v->v.b; return true;
    case FLOE_ICE_INT: case FLOE_ICE_DATE: out->kind = FLOE_PQ_VAL_INT; out->i = v->v.i32; return true;
    case FLOE_ICE_LONG: case FLOE_ICE_TIME: case FLOE_ICE_TIMESTAMP: case FLOE_ICE_TIMESTAMPTZ:
    case FLOE_ICE_TIMESTAMP_NS: case FLOE_ICE_TIMESTAMPTZ_NS:
        out->kind = FLOE_PQ_VAL_INT;
        out->i = v->v.i64;
        return true;
    case FLOE_ICE_FLOAT:
        if (v->v.f32 != v->v.f32) return false; /* NaN */
        out->kind = FLOE_PQ_VAL_DOUBLE;
        out->d = v->v.f32;
        return true;
    case FLOE_ICE_DOUBLE:
        if (v->v.f64 != v->v.f64) return false;
        out->kind = FLOE_PQ_VAL_DOUBLE;
        out->d = v->v.f64;
        return true;
    case FLOE_ICE_STRING: case FLOE_ICE_BINARY:
        out->kind = FLOE_PQ_VAL_BYTES;
        out->bytes = v->v.bytes.data;
        out->len = v->v.bytes.len;
        return out->bytes || !out->len;
    case FLOE_ICE_DECIMAL:
        out->kind = FLOE_PQ_VAL_DECIMAL;
        out->hi = (int64_t)(v->v.dec >> 64);
        out->lo = (uint64_t)v->v.dec;
        return true;
    default: return false;
    }
}

/* The file leaf a residual term's field id reads: by id, or at top level
 * through the name mapping; NULL when there is no plain (struct-only) leaf.
 * `*path` is set for a mapped name. */
static const floe_pq_field *term_leaf(const pq_source *s, const floe_ice_source_hints *h, int32_t id,
                                      const char **path) {
    *path = NULL;
    const floe_pq_field *f = NULL;
    if (!h->by_id) {
        int32_t k = h->column_of ? h->column_of(h->ctx, id) : -1;
        const floe_pq_field *root = floe_pq_schema_root(s->file->schema);
        if (k >= 0 && k < root->num_children && !strchr(root->children[k]->name, '.')) {
            f = root->children[k];
            *path = f->name;
        }
    } else {
        f = floe_pq_schema_find_field_id(s->file->schema, id);
    }
    if (!f || !f->column || f->column->max_rep_level > 0) return NULL;
    return f;
}

static void add_term(const pq_source *r, const floe_ice_source_hints *h, const floe_ice_expr *e, page_preds *pp) {
    if (e->op == FLOE_ICE_EXPR_AND) {
        add_term(r, h, e->left, pp);
        add_term(r, h, e->right, pp);
        return;
    }
    if (!e->bound || e->in_collection || !e->field_type || e->field_id < 0) return;
    floe_pq_predicate *pr = &pp->preds[pp->n];
    floe_pq_value *vals = &pp->vals[pp->nvals];
    memset(pr, 0, sizeof *pr);
    int want = 1;
    switch (e->op) {
    case FLOE_ICE_EXPR_IS_NULL: pr->op = FLOE_PQ_OP_IS_NULL; want = 0; break;
    case FLOE_ICE_EXPR_NOT_NULL: pr->op = FLOE_PQ_OP_NOT_NULL; want = 0; break;
    case FLOE_ICE_EXPR_LT: pr->op = FLOE_PQ_OP_LT; break;
    case FLOE_ICE_EXPR_LT_EQ: pr->op = FLOE_PQ_OP_LE; break;
    case FLOE_ICE_EXPR_GT: pr->op = FLOE_PQ_OP_GT; break;
    case FLOE_ICE_EXPR_GT_EQ: pr->op = FLOE_PQ_OP_GE; break;
    case FLOE_ICE_EXPR_EQ: pr->op = FLOE_PQ_OP_EQ; break;
    case FLOE_ICE_EXPR_IN: pr->op = FLOE_PQ_OP_IN; want = -1; break;
    default: return; /* NaN tests, negations, prefixes: no page bound */
    }
    if ((want >= 0 && e->n_values != want) || (want < 0 && e->n_values < 1)) return;
    const char *path = NULL;
    const floe_pq_field *leaf = term_leaf(r, h, e->field_id, &path);
    if (!leaf || !leaf_domain_matches(e->field_type, leaf->column)) return;
    for (int32_t i = 0; i < e->n_values; i++)
        if (!ice_page_value(&e->values[i], &vals[i])) return;
    pr->path = path;
    pr->field_id = e->field_id;
    pr->values = e->n_values ? vals : NULL;
    pr->num_values = e->n_values;
    pp->n++;
    pp->nvals += e->n_values;
}

static floe_status page_preds_make(const pq_source *r, const floe_ice_source_hints *h, page_preds *pp) {
    memset(pp, 0, sizeof *pp);
    const floe_ice_expr *res = h->residual;
    if (!res || res->op == FLOE_ICE_EXPR_TRUE) return NULL;
    int n = 0, nvals = 0;
    count_terms(res, &n, &nvals);
    pp->preds = floe_calloc((size_t)n + 1, sizeof *pp->preds);
    pp->vals = floe_calloc((size_t)nvals + 1, sizeof *pp->vals);
    if (!pp->preds || !pp->vals) {
        page_preds_free(pp);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Parquet source");
    }
    add_term(r, h, res, pp);
    return NULL;
}


static const floe_ice_source_vt pq_vt;

/* Start offset of a row group, as Iceberg Java computes split membership. */
static int64_t rg_start(const floe_pq_row_group *rg) {
    if (rg->num_columns > 0 && rg->columns[0].has_meta_data) {
        const floe_pq_column_meta *m = &rg->columns[0].meta_data;
        int64_t s = m->data_page_offset;
        if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 && m->dictionary_page_offset < s)
            s = m->dictionary_page_offset;
        return s;
    }
    return rg->has_file_offset ? rg->file_offset : 4;
}

static floe_status pq_start(floe_ice_source *s_, const int32_t *cols, int32_t n, const floe_ice_source_hints *h) {
    pq_source *s = (pq_source *)s_;
    const floe_pq_file_metadata *md = s->file->meta;
    s->row_groups = floe_calloc((size_t)md->num_row_groups + 1, sizeof *s->row_groups);
    if (!s->row_groups) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Parquet source");
    for (uint32_t i = 0; i < md->num_row_groups; i++) {
        int64_t st = rg_start(&md->row_groups[i]);
        if (h->length < 0 || (st >= h->start && st < h->start + h->length)) s->row_groups[s->n_row_groups++] = (int)i;
    }
    if (s->n_row_groups == 0) return NULL; /* nothing of the file is in the range */
    /* By field id when every column has one, else by (top-level) name. */
    bool all_ids = true;
    for (int32_t i = 0; i < n; i++) all_ids = all_ids && s->ids[cols[i]] >= 0;
    int32_t *ids = floe_calloc((size_t)n + 1, sizeof *ids);
    const char **names = floe_calloc((size_t)n + 1, sizeof *names);
    floe_status st = ids && names ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "Parquet source");
    for (int32_t i = 0; !st && i < n; i++) {
        ids[i] = s->ids[cols[i]];
        names[i] = s->names[cols[i]];
    }
    floe_pq_read_options o = {0};
    if (all_ids) {
        o.field_ids = ids;
        o.num_field_ids = n;
    } else {
        o.columns = names;
        o.num_columns = n;
    }
    page_preds pp = {0};
    if (!st) st = page_preds_make(s, h, &pp);
    if (!st) {
        o.row_groups = s->row_groups;
        o.num_row_groups = s->n_row_groups;
        o.batch_size = h->batch_size;
        o.predicates = pp.n ? pp.preds : NULL;
        o.num_predicates = pp.n;
        st = floe_pq_reader_open(s->file, &o, &s->pq);
    }
    page_preds_free(&pp); /* the reader copied the values */
    floe_free(ids);
    floe_free(names);
    return st;
}

static floe_status pq_next(floe_ice_source *s_, floe_batch **out, const floe_ice_row_span **spans, int *nspans) {
    pq_source *s = (pq_source *)s_;
    *out = NULL;
    *spans = NULL;
    *nspans = 0;
    if (!s->pq) return NULL;
    FLOE_TRY(floe_pq_reader_next(s->pq, out));
    if (!*out) return NULL;
    /* The file rows of this batch (pages may have been skipped). */
    const floe_pq_row_span *ps = NULL;
    int n = 0;
    floe_pq_reader_last_rows(s->pq, &ps, &n);
    if (n > s->spans_cap) {
        floe_ice_row_span *ns = floe_realloc(s->spans, (size_t)n * sizeof *ns);
        if (!ns) {
            floe_batch_release(*out);
            *out = NULL;
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Parquet source");
        }
        s->spans = ns;
        s->spans_cap = n;
    }
    for (int i = 0; i < n; i++) s->spans[i] = (floe_ice_row_span){ps[i].first_row, ps[i].num_rows};
    *spans = s->spans;
    *nspans = n;
    return NULL;
}

static void pq_stats(const floe_ice_source *s_, floe_ice_task_read_stats *out) {
    const pq_source *s = (const pq_source *)s_;
    if (!s->pq) return;
    floe_pq_skip_stats ps;
    floe_pq_reader_skip_stats(s->pq, &ps);
    out->pages_total = ps.pages_total;
    out->pages_skipped = ps.pages_skipped;
    out->row_groups_skipped = ps.row_groups_skipped;
}

static void pq_close(floe_ice_source *s_) {
    pq_source *s = (pq_source *)s_;
    floe_pq_reader_close(s->pq);
    floe_pq_file_close(s->file);
    floe_free(s->names);
    floe_free(s->ids);
    floe_free(s->row_groups);
    floe_free(s->spans);
    floe_free(s);
}

static const floe_ice_source_vt pq_vt = {
    .format = "parquet",
    .start = pq_start,
    .next = pq_next,
    .stats = pq_stats,
    .close = pq_close,
};

floe_status floe_ice_parquet_source_open(floe_fileio *io, const char *location, int64_t size,
                                         floe_ice_source **out) {
    *out = NULL;
    floe_input *in = NULL;
    FLOE_TRY(floe_ice_source_open_input(io, location, size, &in));
    pq_source *s = floe_calloc(1, sizeof *s);
    floe_status st = s ? floe_pq_file_open(in, &s->file) : floe_error(FLOE_ERR_OUT_OF_MEMORY, "Parquet source");
    if (st) {
        floe_input_close(in);
        floe_free(s);
        return st;
    }
    s->file->owns_input = true;
    s->head.vt = &pq_vt;
    const floe_pq_field *root = floe_pq_schema_root(s->file->schema);
    int32_t n = root->num_children;
    s->names = floe_calloc((size_t)n + 1, sizeof *s->names);
    s->ids = floe_calloc((size_t)n + 1, sizeof *s->ids);
    if (!s->names || !s->ids) {
        pq_close(&s->head);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Parquet source");
    }
    for (int32_t k = 0; k < n; k++) {
        s->names[k] = root->children[k]->name;
        s->ids[k] = root->children[k]->has_field_id ? root->children[k]->field_id : -1;
        s->head.any_field_id = s->head.any_field_id || root->children[k]->has_field_id;
    }
    s->head.n_columns = n;
    s->head.names = s->names;
    s->head.field_ids = s->ids;
    *out = &s->head;
    return NULL;
}

/*
 * source_orc.c — an ORC data (or delete) file as a task source
 * (task_source.h), through floe's ORC reader (formats/orc/reader.h):
 * top-level columns with their Iceberg field ids (the `iceberg.id` type
 * attribute Iceberg's ORC writer puts on every type; name mapping
 * otherwise), the stripes that start inside the task's byte range, and
 * row-group skipping: the residual's AND-ed simple terms become ORC
 * predicates, so stripes and row groups whose statistics prove no row can
 * match are never decoded; the reader's row spans say which file rows a
 * batch holds.
 */
#include <string.h>

#include "floe/iceberg_value.h"
#include "floe/memory.h"
#include "formats/orc/file.h"
#include "formats/orc/reader.h"
#include "iceberg/scan/task_source.h"

typedef struct orc_source {
    floe_ice_source head;
    floe_orc_file *file;
    floe_orc_reader *reader;
    const char **names;      /* head.names (borrowed from the schema) */
    int32_t *ids;            /* head.field_ids */
    uint32_t *column_ids;    /* ORC column id of each top-level column */
    floe_ice_row_span *spans;
    int spans_cap;
} orc_source;

/* ---- predicates from the residual ------------------------------------- */

typedef struct orc_preds {
    floe_orc_predicate *preds;
    floe_orc_value *vals;
    int n, nvals;
} orc_preds;

static void count_terms(const floe_ice_expr *e, int *n, int *nvals) {
    if (e->op == FLOE_ICE_EXPR_AND) {
        count_terms(e->left, n, nvals);
        count_terms(e->right, n, nvals);
        return;
    }
    (*n)++;
    *nvals += e->n_values;
}

/* A literal in the reader's value domain for a column of Iceberg type t;
 * false when it has no safe form (timestamps: the batch unit depends on
 * the file's attributes; NaN; types the reader does not compare). */
static bool orc_value(const floe_ice_type *t, const floe_ice_value *v, floe_orc_value *out) {
    memset(out, 0, sizeof *out);
    if (v->is_null) return false;
    switch (t->id) {
    case FLOE_ICE_INT:
    case FLOE_ICE_DATE:
        if (v->type != FLOE_ICE_INT && v->type != FLOE_ICE_DATE) return false;
        out->kind = FLOE_ORC_VAL_INT;
        out->i = v->v.i32;
        return true;
    case FLOE_ICE_LONG:
        if (v->type == FLOE_ICE_INT) out->i = v->v.i32;
        else if (v->type == FLOE_ICE_LONG) out->i = v->v.i64;
        else return false;
        out->kind = FLOE_ORC_VAL_INT;
        return true;
    case FLOE_ICE_FLOAT:
    case FLOE_ICE_DOUBLE: {
        double d = v->type == FLOE_ICE_FLOAT ? v->v.f32 : v->type == FLOE_ICE_DOUBLE ? v->v.f64 : 0;
        if ((v->type != FLOE_ICE_FLOAT && v->type != FLOE_ICE_DOUBLE) || d != d) return false;
        out->kind = FLOE_ORC_VAL_DOUBLE;
        out->d = d;
        return true;
    }
    case FLOE_ICE_STRING:
        if (v->type != FLOE_ICE_STRING) return false;
        out->kind = FLOE_ORC_VAL_BYTES;
        out->bytes = v->v.bytes.data;
        out->len = v->v.bytes.len;
        return true;
    default: return false;
    }
}

static void add_term(const orc_source *s, const floe_ice_source_hints *h, const floe_ice_expr *e, orc_preds *pp) {
    if (e->op == FLOE_ICE_EXPR_AND) {
        add_term(s, h, e->left, pp);
        add_term(s, h, e->right, pp);
        return;
    }
    if (!e->bound || e->in_collection || !e->field_type || e->field_id < 0) return;
    floe_orc_predicate *pr = &pp->preds[pp->n];
    floe_orc_value *vals = &pp->vals[pp->nvals];
    memset(pr, 0, sizeof *pr);
    int want = 1;
    switch (e->op) {
    case FLOE_ICE_EXPR_IS_NULL: pr->op = FLOE_ORC_OP_IS_NULL; want = 0; break;
    case FLOE_ICE_EXPR_NOT_NULL: pr->op = FLOE_ORC_OP_NOT_NULL; want = 0; break;
    case FLOE_ICE_EXPR_LT: pr->op = FLOE_ORC_OP_LT; break;
    case FLOE_ICE_EXPR_LT_EQ: pr->op = FLOE_ORC_OP_LE; break;
    case FLOE_ICE_EXPR_GT: pr->op = FLOE_ORC_OP_GT; break;
    case FLOE_ICE_EXPR_GT_EQ: pr->op = FLOE_ORC_OP_GE; break;
    case FLOE_ICE_EXPR_EQ: pr->op = FLOE_ORC_OP_EQ; break;
    case FLOE_ICE_EXPR_IN: pr->op = FLOE_ORC_OP_IN; want = -1; break;
    default: return;
    }
    if ((want >= 0 && e->n_values != want) || (want < 0 && e->n_values < 1)) return;
    /* the column: by Iceberg id, or a top-level column the mapping names */
    const floe_orc_column *col = NULL;
    if (h->by_id) {
        col = floe_orc_schema_find_iceberg_id(s->file->schema, e->field_id);
    } else {
        int32_t k = h->column_of ? h->column_of(h->ctx, e->field_id) : -1;
        if (k >= 0 && k < s->head.n_columns) col = &s->file->schema->columns[s->column_ids[k]];
    }
    if (!col || col->parent != s->file->schema->root) return; /* top-level columns only */
    for (int32_t i = 0; i < e->n_values; i++)
        if (!orc_value(e->field_type, &e->values[i], &vals[i])) return;
    pr->path = NULL;
    pr->field_id = -1;
    pr->column_id = col->id;
    pr->values = e->n_values ? vals : NULL;
    pr->num_values = e->n_values;
    floe_status bad = floe_orc_predicate_check(col, pr);
    if (bad) { /* a combination the reader does not take: the residual still filters */
        floe_status_free(bad);
        return;
    }
    pp->n++;
    pp->nvals += e->n_values;
}

static floe_status preds_make(const orc_source *s, const floe_ice_source_hints *h, orc_preds *pp) {
    memset(pp, 0, sizeof *pp);
    const floe_ice_expr *res = h->residual;
    if (!res || res->op == FLOE_ICE_EXPR_TRUE) return NULL;
    int n = 0, nvals = 0;
    count_terms(res, &n, &nvals);
    pp->preds = floe_calloc((size_t)n + 1, sizeof *pp->preds);
    pp->vals = floe_calloc((size_t)nvals + 1, sizeof *pp->vals);
    if (!pp->preds || !pp->vals) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "ORC source");
    add_term(s, h, res, pp);
    return NULL;
}

/* ---- the source --------------------------------------------------------- */

static floe_status orc_start(floe_ice_source *s_, const int32_t *cols, int32_t n, const floe_ice_source_hints *h) {
    orc_source *s = (orc_source *)s_;
    uint32_t *ids = floe_calloc((size_t)n + 1, sizeof *ids);
    if (!ids) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "ORC source");
    for (int32_t i = 0; i < n; i++) ids[i] = s->column_ids[cols[i]];
    orc_preds pp = {0};
    floe_status st = preds_make(s, h, &pp);
    floe_orc_read_options o;
    memset(&o, 0, sizeof o);
    o.column_ids = ids;
    o.num_column_ids = n;
    o.batch_size = h->batch_size;
    o.timestamp_unit = FLOE_ORC_TS_US;
    if (h->length >= 0) {
        o.use_range = true;
        o.range_start = (uint64_t)h->start;
        o.range_length = (uint64_t)h->length;
    }
    o.predicates = pp.n ? pp.preds : NULL;
    o.num_predicates = pp.n;
    if (!st) st = floe_orc_reader_open(s->file, &o, &s->reader);
    floe_free(pp.preds);
    floe_free(pp.vals);
    floe_free(ids);
    return st;
}

static floe_status orc_next(floe_ice_source *s_, floe_batch **out, const floe_ice_row_span **spans, int *nspans) {
    orc_source *s = (orc_source *)s_;
    *out = NULL;
    *spans = NULL;
    *nspans = 0;
    if (!s->reader) return NULL;
    FLOE_TRY(floe_orc_reader_next(s->reader, out));
    if (!*out) return NULL;
    const floe_orc_row_span *os = NULL;
    int n = 0;
    floe_orc_reader_last_rows(s->reader, &os, &n);
    if (n > s->spans_cap) {
        floe_ice_row_span *ns = floe_realloc(s->spans, (size_t)n * sizeof *ns);
        if (!ns) {
            floe_batch_release(*out);
            *out = NULL;
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "ORC source");
        }
        s->spans = ns;
        s->spans_cap = n;
    }
    for (int i = 0; i < n; i++) s->spans[i] = (floe_ice_row_span){os[i].first_row, os[i].num_rows};
    *spans = s->spans;
    *nspans = n;
    return NULL;
}

static void orc_stats(const floe_ice_source *s_, floe_ice_task_read_stats *out) {
    const orc_source *s = (const orc_source *)s_;
    if (!s->reader) return;
    floe_orc_skip_stats os;
    floe_orc_reader_skip_stats(s->reader, &os);
    out->row_groups_skipped = os.stripes_skipped + os.row_groups_skipped;
}

static void orc_close(floe_ice_source *s_) {
    orc_source *s = (orc_source *)s_;
    floe_orc_reader_close(s->reader);
    floe_orc_file_close(s->file);
    floe_free(s->names);
    floe_free(s->ids);
    floe_free(s->column_ids);
    floe_free(s->spans);
    floe_free(s);
}

static const floe_ice_source_vt orc_vt = {
    .format = "orc",
    .start = orc_start,
    .next = orc_next,
    .stats = orc_stats,
    .close = orc_close,
};

floe_status floe_ice_orc_source_open(floe_fileio *io, const char *location, int64_t size, floe_ice_source **out) {
    *out = NULL;
    floe_input *in = NULL;
    FLOE_TRY(floe_ice_source_open_input(io, location, size, &in));
    orc_source *s = floe_calloc(1, sizeof *s);
    floe_status st = s ? floe_orc_file_open(in, &s->file) : floe_error(FLOE_ERR_OUT_OF_MEMORY, "ORC source");
    if (st) {
        floe_input_close(in);
        floe_free(s);
        return st;
    }
    s->file->owns_input = true;
    s->head.vt = &orc_vt;
    const floe_orc_column *root = s->file->schema->root;
    int32_t n = root->num_children;
    s->names = floe_calloc((size_t)n + 1, sizeof *s->names);
    s->ids = floe_calloc((size_t)n + 1, sizeof *s->ids);
    s->column_ids = floe_calloc((size_t)n + 1, sizeof *s->column_ids);
    if (!s->names || !s->ids || !s->column_ids) {
        orc_close(&s->head);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "ORC source");
    }
    for (int32_t k = 0; k < n; k++) {
        const floe_orc_column *c = root->children[k];
        s->names[k] = c->name;
        s->ids[k] = c->iceberg_id;
        s->column_ids[k] = c->id;
        s->head.any_field_id = s->head.any_field_id || c->iceberg_id >= 0;
    }
    s->head.n_columns = n;
    s->head.names = s->names;
    s->head.field_ids = s->ids;
    *out = &s->head;
    return NULL;
}

/*
 * reader.c — the ORC batch reader: projection, stripe selection, stream
 * fetching, row-group skipping and batches (see reader.h).
 */
#include "formats/orc/reader.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "floe/memory.h"
#include "formats/orc/column_reader.h"

typedef struct out_col {
    const floe_orc_column *col;
    int top;           /* index into r->tops */
    int depth;         /* struct steps below the top-level column */
    int steps[64];     /* child index at each step (in the pruned struct) */
} out_col;

typedef struct row_range {
    int64_t start, end; /* rows within the stripe */
} row_range;

struct floe_orc_reader {
    floe_orc_file *file;
    bool owns_file;
    floe_orc_read_options o;
    floe_orc_predicate *preds;       /* deep copies, with resolved columns */
    void *pred_values;               /* one block: the copies' values and bytes */
    const floe_orc_column **pred_cols;
    int num_preds;
    bool *include;                   /* by column id */
    const floe_orc_column **tops;    /* included top-level columns, file order */
    floe_type **top_types;
    int num_tops;
    out_col *outs;
    int num_outs;
    floe_schema *schema;
    int *stripes;
    int num_stripes;
    int next_stripe;
    /* the current stripe */
    bool in_stripe;
    int stripe;
    int64_t stripe_first_row, stripe_rows, pos;
    floe_arena arena;
    floe_orc_stripe_footer sf;
    floe_orc_stripe_streams ss;
    floe_orc_col_reader **readers;
    row_range *ranges;
    int num_ranges, cur_range;
    bool need_index;                 /* ranges leave gaps: fetch ROW_INDEX streams */
    bool no_seek;                    /* a seek did not fit: read sequentially */
    const floe_orc_row_index **indexes; /* by column id, NULL when absent */
    /* time zones seen */
    floe_tz **tzs;
    int num_tzs;
    floe_orc_row_span span;
    int nspans;
    floe_orc_skip_stats stats;
};

/* ------------------------------------------------------------ projection */

static bool is_container(int kind) {
    return kind == FLOE_ORC_LIST || kind == FLOE_ORC_MAP || kind == FLOE_ORC_UNION;
}

/* The outermost list/map/union strictly above c (or c itself if it is one
 * directly under structs), or NULL when the path is structs only. */
static const floe_orc_column *outermost_container(const floe_orc_column *c) {
    const floe_orc_column *found = NULL;
    for (const floe_orc_column *p = c; p && p->parent; p = p->parent)
        if (is_container(p->parent->kind)) found = p->parent;
    return found;
}

static void include_subtree(floe_orc_reader *r, const floe_orc_column *c) {
    for (uint32_t id = c->id; id <= c->last_id; id++) r->include[id] = true;
}

static void include_column(floe_orc_reader *r, const floe_orc_column *c) {
    include_subtree(r, c);
    for (const floe_orc_column *p = c->parent; p; p = p->parent) {
        r->include[p->id] = true;
        /* a map keeps its whole key; a union all its variants */
        if (p->kind == FLOE_ORC_MAP) include_subtree(r, p->children[0]);
        if (p->kind == FLOE_ORC_UNION) include_subtree(r, p);
    }
}

/* The pruned type of column c. */
static floe_status pruned_type(const floe_orc_reader *r, const floe_orc_column *c, floe_type **out) {
    floe_orc_ts_unit unit = r->o.timestamp_unit;
    if (c->kind != FLOE_ORC_STRUCT && c->kind != FLOE_ORC_LIST && c->kind != FLOE_ORC_MAP)
        return floe_orc_column_type(c, unit, out);
    floe_field *f = floe_calloc((size_t)c->num_children + 1, sizeof *f);
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    int k = 0;
    floe_status st = NULL;
    for (int i = 0; !st && i < c->num_children; i++) {
        const floe_orc_column *ch = c->children[i];
        if (!r->include[ch->id]) continue;
        floe_type *t;
        st = pruned_type(r, ch, &t);
        if (st) break;
        st = floe_field_init(&f[k], ch->name, t, !ch->iceberg_required, ch->iceberg_id);
        floe_type_release(t);
        if (!st) k++;
    }
    if (!st) {
        if (c->kind == FLOE_ORC_STRUCT) st = floe_type_struct(f, k, out);
        else if (c->kind == FLOE_ORC_LIST) st = floe_type_list(&f[0], out);
        else st = floe_type_map(&f[0], &f[1], false, out);
    }
    for (int i = 0; i < k; i++) floe_field_clear(&f[i]);
    floe_free(f);
    return st;
}

static floe_status resolve(const floe_orc_reader *r, int i, const floe_orc_column **out) {
    const floe_orc_schema *s = r->file->schema;
    const floe_orc_read_options *o = &r->o;
    const floe_orc_column *c = NULL;
    if (o->columns) {
        c = floe_orc_schema_find_path(s, o->columns[i]);
        if (!c) return floe_error(FLOE_ERR_NOT_FOUND, "'%s': no column '%s'", r->file->path, o->columns[i]);
    } else if (o->field_ids) {
        c = floe_orc_schema_find_iceberg_id(s, o->field_ids[i]);
        if (!c)
            return floe_error(FLOE_ERR_NOT_FOUND, "'%s': no column with Iceberg field id %d",
                              r->file->path, (int)o->field_ids[i]);
    } else {
        uint32_t id = o->column_ids[i];
        if (id == 0 || id >= s->num_columns)
            return floe_error(FLOE_ERR_NOT_FOUND, "'%s': no column id %u (the file has 1..%u)",
                              r->file->path, id, s->num_columns - 1);
        c = &s->columns[id];
    }
    *out = c;
    return NULL;
}

/* A file whose root type is not a struct: one column, the root. */
static floe_status build_single_root(floe_orc_reader *r) {
    const floe_orc_column *root = r->file->schema->root;
    include_subtree(r, root);
    r->outs = floe_calloc(1, sizeof *r->outs);
    r->tops = floe_calloc(1, sizeof *r->tops);
    r->top_types = floe_calloc(1, sizeof *r->top_types);
    if (!r->outs || !r->tops || !r->top_types) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    r->outs[0].col = root;
    r->num_outs = 1;
    r->tops[0] = root;
    FLOE_TRY(pruned_type(r, root, &r->top_types[0]));
    r->num_tops = 1;
    floe_field f;
    FLOE_TRY(floe_field_init(&f, "_col0", r->top_types[0], true, -1));
    floe_status st = floe_type_struct(&f, 1, &r->schema);
    floe_field_clear(&f);
    return st;
}

static floe_status build_projection(floe_orc_reader *r) {
    const floe_orc_schema *s = r->file->schema;
    const floe_orc_read_options *o = &r->o;
    if (s->root->kind != FLOE_ORC_STRUCT) return build_single_root(r);
    int n = o->columns ? o->num_columns : o->field_ids ? o->num_field_ids
          : o->column_ids ? o->num_column_ids : -1;
    const floe_orc_column **want;
    if (n < 0) {
        n = s->root->num_children;
        want = floe_calloc((size_t)n + 1, sizeof *want);
        if (!want) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        for (int i = 0; i < n; i++) want[i] = s->root->children[i];
    } else {
        want = floe_calloc((size_t)n + 1, sizeof *want);
        if (!want) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        for (int i = 0; i < n; i++) {
            floe_status st = resolve(r, i, &want[i]);
            if (st) {
                floe_free(want);
                return st;
            }
        }
    }
    r->outs = floe_calloc((size_t)n + 1, sizeof *r->outs);
    if (!r->outs) {
        floe_free(want);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        const floe_orc_column *c = want[i];
        const floe_orc_column *oc = outermost_container(c);
        include_column(r, c);
        const floe_orc_column *col = oc ? oc : c;
        bool dup = false;
        for (int j = 0; j < r->num_outs; j++) dup |= r->outs[j].col == col;
        if (!dup) r->outs[r->num_outs++].col = col;
    }
    floe_free(want);
    /* a map read for its keys alone still needs a value: the whole one */
    for (uint32_t id = 0; id < s->num_columns; id++) {
        const floe_orc_column *c = &s->columns[id];
        if (r->include[id] && c->kind == FLOE_ORC_MAP && !r->include[c->children[1]->id])
            include_subtree(r, c->children[1]);
    }
    /* top-level columns in file order */
    const floe_orc_column *root = s->root;
    r->tops = floe_calloc((size_t)root->num_children + 1, sizeof *r->tops);
    r->top_types = floe_calloc((size_t)root->num_children + 1, sizeof *r->top_types);
    if (!r->tops || !r->top_types) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < root->num_children; i++) {
        const floe_orc_column *c = root->children[i];
        if (!r->include[c->id]) continue;
        r->tops[r->num_tops] = c;
        FLOE_TRY(pruned_type(r, c, &r->top_types[r->num_tops]));
        r->num_tops++;
    }
    /* each output column's way down from its top-level column */
    floe_field *fields = floe_calloc((size_t)r->num_outs + 1, sizeof *fields);
    if (!fields) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    floe_status st = NULL;
    int nf = 0;
    for (int i = 0; !st && i < r->num_outs; i++) {
        out_col *oc = &r->outs[i];
        const floe_orc_column *chain[200];
        int depth = 0;
        for (const floe_orc_column *p = oc->col; p->parent; p = p->parent) {
            if (depth >= 64) {
                st = floe_error(FLOE_ERR_UNSUPPORTED, "'%s': column '%s' is nested too deeply",
                                r->file->path, oc->col->path);
                break;
            }
            chain[depth++] = p;
        }
        if (st) break;
        const floe_orc_column *top = chain[depth - 1];
        for (int t = 0; t < r->num_tops; t++)
            if (r->tops[t] == top) oc->top = t;
        oc->depth = depth - 1;
        bool nullable = !top->iceberg_required;
        for (int d = depth - 2, k = 0; d >= 0; d--, k++) {
            const floe_orc_column *parent = chain[d + 1], *me = chain[d];
            int idx = 0;
            for (int j = 0; j < parent->num_children && parent->children[j] != me; j++)
                idx += r->include[parent->children[j]->id];
            oc->steps[k] = idx;
            nullable = nullable || !me->iceberg_required;
        }
        floe_type *t;
        st = pruned_type(r, oc->col, &t);
        if (!st) {
            st = floe_field_init(&fields[nf], oc->col->path, t, nullable, oc->col->iceberg_id);
            floe_type_release(t);
            if (!st) nf++;
        }
    }
    if (!st) st = floe_type_struct(fields, nf, &r->schema);
    for (int i = 0; i < nf; i++) floe_field_clear(&fields[i]);
    floe_free(fields);
    return st;
}

/* ---------------------------------------------------------------- open */

static floe_status resolve_predicates(floe_orc_reader *r) {
    int n = r->o.num_predicates;
    if (!r->o.predicates || n <= 0) return NULL;
    r->preds = floe_calloc((size_t)n, sizeof *r->preds);
    r->pred_cols = floe_calloc((size_t)n, sizeof *r->pred_cols);
    if (!r->preds || !r->pred_cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    /* The caller's predicates (values and their bytes) need only live until
     * open returns: copy them into one block the reader owns. */
    size_t nvals = 0, nbytes = 0;
    for (int i = 0; i < n; i++) {
        const floe_orc_predicate *p = &r->o.predicates[i];
        nvals += p->num_values > 0 ? (size_t)p->num_values : 0;
        for (int k = 0; k < p->num_values; k++) nbytes += p->values[k].bytes ? p->values[k].len : 0;
    }
    r->pred_values = floe_malloc(nvals * sizeof(floe_orc_value) + nbytes + 1);
    if (!r->pred_values) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    floe_orc_value *vcopy = r->pred_values;
    uint8_t *bcopy = (uint8_t *)(vcopy + nvals);
    const floe_orc_schema *s = r->file->schema;
    for (int i = 0; i < n; i++) {
        const floe_orc_predicate *p = &r->o.predicates[i];
        const floe_orc_column *c;
        if (p->path) c = floe_orc_schema_find_path(s, p->path);
        else if (p->field_id >= 0) c = floe_orc_schema_find_iceberg_id(s, p->field_id);
        else c = p->column_id > 0 && p->column_id < s->num_columns ? &s->columns[p->column_id] : NULL;
        if (!c)
            return floe_error(FLOE_ERR_NOT_FOUND, "'%s': predicate %d: no such column", r->file->path, i);
        for (const floe_orc_column *q = c->parent; q; q = q->parent)
            if (is_container(q->kind))
                return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                                  "'%s': predicate on '%s', which is inside a %s", r->file->path,
                                  c->path, floe_orc_kind_name(q->kind));
        FLOE_TRY_CTX(floe_orc_predicate_check(c, p), "'%s': predicate on '%s'", r->file->path, c->path);
        r->preds[i] = *p;
        r->preds[i].path = NULL; /* resolved into pred_cols; the string is the caller's */
        if (p->num_values > 0) {
            r->preds[i].values = vcopy;
            for (int k = 0; k < p->num_values; k++) {
                vcopy[k] = p->values[k];
                if (p->values[k].bytes) {
                    if (p->values[k].len) memcpy(bcopy, p->values[k].bytes, p->values[k].len);
                    vcopy[k].bytes = bcopy;
                    bcopy += p->values[k].len;
                }
            }
            vcopy += p->num_values;
        } else {
            r->preds[i].values = NULL;
        }
        r->pred_cols[i] = c;
    }
    r->num_preds = n;
    r->o.predicates = NULL; /* the caller's; only the copies are used from here on */
    return NULL;
}

floe_status floe_orc_reader_open(floe_orc_file *file, const floe_orc_read_options *opts,
                                 floe_orc_reader **out) {
    *out = NULL;
    floe_orc_reader *r = floe_calloc(1, sizeof *r);
    if (!r) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    r->file = file;
    if (opts) r->o = *opts;
    if (r->o.batch_size <= 0) r->o.batch_size = FLOE_ORC_DEFAULT_BATCH_SIZE;
    if (r->o.max_gap == 0) r->o.max_gap = FLOE_ORC_DEFAULT_MAX_GAP;
    floe_arena_init(&r->arena, 0);
    floe_status st = NULL;
    r->include = floe_calloc(file->schema->num_columns, sizeof *r->include);
    if (!r->include) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    if (!st) st = build_projection(r);
    if (!st) st = resolve_predicates(r);
    size_t ns = floe_orc_file_num_stripes(file);
    if (!st && r->o.stripes) {
        r->stripes = floe_calloc((size_t)r->o.num_stripes + 1, sizeof *r->stripes);
        if (!r->stripes) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        for (int i = 0; !st && i < r->o.num_stripes; i++) {
            if (r->o.stripes[i] < 0 || (size_t)r->o.stripes[i] >= ns)
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s': no stripe %d (the file has %zu)",
                                file->path, r->o.stripes[i], ns);
            else r->stripes[r->num_stripes++] = r->o.stripes[i];
        }
    } else if (!st && r->o.use_range) {
        st = floe_orc_file_stripes_in_range(file, r->o.range_start, r->o.range_length, &r->stripes,
                                            &r->num_stripes);
    } else if (!st) {
        r->stripes = floe_calloc(ns + 1, sizeof *r->stripes);
        if (!r->stripes) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        for (size_t i = 0; !st && i < ns; i++) r->stripes[r->num_stripes++] = (int)i;
    }
    if (st) {
        floe_orc_reader_close(r);
        return st;
    }
    r->stats.stripes_total = r->num_stripes;
    *out = r;
    return NULL;
}

floe_status floe_orc_reader_open_path(const char *path, const floe_orc_read_options *opts,
                                      floe_orc_reader **out) {
    floe_orc_file *f;
    FLOE_TRY(floe_orc_file_open_path(path, &f));
    floe_status st = floe_orc_reader_open(f, opts, out);
    if (st) {
        floe_orc_file_close(f);
        return st;
    }
    (*out)->owns_file = true;
    return NULL;
}

static void end_stripe(floe_orc_reader *r) {
    if (r->readers)
        for (int i = 0; i < r->num_tops; i++) floe_orc_col_reader_free(r->readers[i]);
    floe_free(r->readers);
    r->readers = NULL;
    for (size_t i = 0; i < r->ss.num_bufs; i++) {
        floe_free(r->ss.bufs[i].data);
        floe_free(r->ss.bufs[i].chunks);
    }
    r->indexes = NULL; /* in the arena */
    floe_free(r->ss.bufs);
    memset(&r->ss, 0, sizeof r->ss);
    floe_free(r->ranges);
    r->ranges = NULL;
    r->num_ranges = 0;
    floe_arena_reset(&r->arena);
    r->in_stripe = false;
}

void floe_orc_reader_close(floe_orc_reader *r) {
    if (!r) return;
    end_stripe(r);
    floe_arena_destroy(&r->arena);
    for (int i = 0; i < r->num_tops; i++) floe_type_release(r->top_types[i]);
    floe_free(r->top_types);
    floe_free(r->tops);
    floe_free(r->outs);
    floe_type_release(r->schema);
    floe_free(r->include);
    floe_free(r->preds);
    floe_free(r->pred_values);
    floe_free(r->pred_cols);
    floe_free(r->stripes);
    for (int i = 0; i < r->num_tzs; i++) floe_tz_free(r->tzs[i]);
    floe_free(r->tzs);
    if (r->owns_file) floe_orc_file_close(r->file);
    floe_free(r);
}

floe_schema *floe_orc_reader_schema(const floe_orc_reader *r) { return r->schema; }

floe_orc_file *floe_orc_reader_file(const floe_orc_reader *r) { return r->file; }

uint32_t floe_orc_reader_column_id(const floe_orc_reader *r, int i) {
    return i >= 0 && i < r->num_outs ? r->outs[i].col->id : 0;
}

void floe_orc_reader_last_rows(const floe_orc_reader *r, const floe_orc_row_span **spans, int *n) {
    *spans = &r->span;
    *n = r->nspans;
}

void floe_orc_reader_skip_stats(const floe_orc_reader *r, floe_orc_skip_stats *out) { *out = r->stats; }

/* -------------------------------------------------------------- stripes */

static floe_status get_tz(floe_orc_reader *r, const char *name, const floe_tz **out) {
    for (int i = 0; i < r->num_tzs; i++)
        if (!strcmp(floe_tz_name(r->tzs[i]), name)) {
            *out = r->tzs[i];
            return NULL;
        }
    floe_tz **v = floe_realloc(r->tzs, ((size_t)r->num_tzs + 1) * sizeof *v);
    if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    r->tzs = v;
    FLOE_TRY(floe_tz_load(name, &r->tzs[r->num_tzs]));
    *out = r->tzs[r->num_tzs++];
    return NULL;
}

static bool wanted_stream(const floe_orc_reader *r, const floe_orc_stream_info *s) {
    if (!r->include[s->column]) return false;
    if (s->kind == FLOE_ORC_S_ROW_INDEX) return r->need_index;
    return s->kind == FLOE_ORC_S_PRESENT || s->kind == FLOE_ORC_S_DATA ||
           s->kind == FLOE_ORC_S_LENGTH || s->kind == FLOE_ORC_S_DICTIONARY_DATA ||
           s->kind == FLOE_ORC_S_SECONDARY;
}

static int cmp_stream_offset(const void *a, const void *b) {
    const floe_orc_stream_info *x = *(const floe_orc_stream_info *const *)a;
    const floe_orc_stream_info *y = *(const floe_orc_stream_info *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Fetch the wanted streams with coalesced reads and decompress each. */
static floe_status fetch_streams(floe_orc_reader *r) {
    const floe_orc_stripe_footer *sf = &r->sf;
    size_t n = 0;
    const floe_orc_stream_info **v = floe_calloc(sf->num_streams + 1, sizeof *v);
    if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < sf->num_streams; i++)
        if (wanted_stream(r, &sf->streams[i])) v[n++] = &sf->streams[i];
    qsort(v, n, sizeof *v, cmp_stream_offset);
    r->ss.bufs = floe_calloc(n + 1, sizeof *r->ss.bufs);
    floe_status st = r->ss.bufs ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    uint8_t *raw = NULL;
    for (size_t i = 0; !st && i < n;) {
        /* a run of streams read together */
        size_t j = i + 1;
        uint64_t start = v[i]->offset, end = v[i]->offset + v[i]->length;
        while (j < n && r->o.max_gap >= 0 && v[j]->offset <= end + (uint64_t)r->o.max_gap) {
            if (v[j]->offset + v[j]->length > end) end = v[j]->offset + v[j]->length;
            j++;
        }
        raw = floe_malloc(end - start ? (size_t)(end - start) : 1);
        if (!raw) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        st = floe_input_read(r->file->in, start, (size_t)(end - start), raw);
        r->stats.reads++;
        if (st) st = floe_status_wrap(st, "'%s': stripe %d", r->file->path, r->stripe);
        for (size_t k = i; !st && k < j; k++) {
            floe_orc_stream_buf *b = &r->ss.bufs[r->ss.num_bufs];
            b->column = v[k]->column;
            b->kind = v[k]->kind;
            st = floe_orc_decompress_mapped(r->file->ps.compression, r->file->block_size,
                                            raw + (v[k]->offset - start), (size_t)v[k]->length,
                                            &b->data, &b->len, &b->chunks, &b->num_chunks);
            if (st)
                st = floe_status_wrap(st, "'%s': stripe %d: column %u '%s': %s stream at offset %" PRIu64,
                                      r->file->path, r->stripe, b->column,
                                      r->file->schema->columns[b->column].path,
                                      floe_orc_stream_kind_name(b->kind), v[k]->offset);
            else r->ss.num_bufs++;
        }
        floe_free(raw);
        raw = NULL;
        i = j;
    }
    floe_free(v);
    return st;
}

/* ORC C++ writers before 1.6.12 / 1.7.1 wrote bloom filters readers
 * cannot trust (ORC-1024). */
static bool bad_bloom_writer(const floe_orc_file *f) {
    if (!f->footer.has_writer || f->footer.writer != 1) return false;
    const char *v = f->footer.software_version;
    if (!v) return true;
    static const char *const bad[] = {"1.6.0", "1.6.1", "1.6.2", "1.6.3", "1.6.4", "1.6.5", "1.6.6",
                                      "1.6.7", "1.6.8", "1.6.9", "1.6.10", "1.6.11", "1.7.0"};
    size_t n = strcspn(v, "-");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (strlen(bad[i]) == n && !strncmp(v, bad[i], n)) return true;
    return false;
}

/* Clear keep[g] for row groups whose bloom filter rules predicate p out. */
static floe_status apply_bloom(floe_orc_reader *r, int p, int64_t groups, bool *keep) {
    const floe_orc_predicate *pr = &r->preds[p];
    if ((pr->op != FLOE_ORC_OP_EQ && pr->op != FLOE_ORC_OP_IN) || bad_bloom_writer(r->file)) return NULL;
    floe_orc_bloom_index bi;
    FLOE_TRY(floe_orc_file_read_bloom_index(r->file, (size_t)r->stripe, &r->sf, r->pred_cols[p]->id,
                                            &r->arena, &bi));
    if ((int64_t)bi.num_filters != groups) return NULL;
    bool utf8 = false;
    for (size_t i = 0; i < r->sf.num_streams; i++)
        utf8 |= r->sf.streams[i].column == r->pred_cols[p]->id &&
                r->sf.streams[i].kind == FLOE_ORC_S_BLOOM_FILTER_UTF8;
    for (int64_t g = 0; g < groups; g++)
        if (keep[g] && !floe_orc_bloom_may_match(r->pred_cols[p], &bi.filters[g], utf8, pr)) {
            keep[g] = false;
            r->stats.row_groups_bloom_skipped++;
        }
    return NULL;
}

/* Row groups of the stripe that may match the predicates, as ranges. */
static floe_status row_group_ranges(floe_orc_reader *r) {
    int64_t rows = r->stripe_rows;
    r->ranges = floe_calloc(1, sizeof *r->ranges);
    if (!r->ranges) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    r->ranges[0].start = 0;
    r->ranges[0].end = rows;
    r->num_ranges = 1;
    uint32_t stride = r->file->footer.row_index_stride;
    if ((!r->num_preds && !r->o.row_group_filter) || !stride || rows == 0) return NULL;
    int64_t groups = (rows + stride - 1) / stride;
    bool *keep = floe_malloc((size_t)groups);
    if (!keep) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    memset(keep, 1, (size_t)groups);
    floe_status st = NULL;
    if (r->o.row_group_filter)
        for (int64_t g = 0; g < groups; g++)
            keep[g] = r->o.row_group_filter(r->o.row_group_filter_ctx, r->stripe, g);
    for (int p = 0; !st && p < r->num_preds; p++) {
        floe_orc_row_index ri;
        st = floe_orc_file_read_row_index(r->file, (size_t)r->stripe, &r->sf, r->pred_cols[p]->id,
                                          &r->arena, &ri);
        if (st) break;
        if ((int64_t)ri.num_entries == groups) { /* else unknown: keep */
            for (int64_t g = 0; g < groups; g++)
                if (keep[g] && ri.entries[g].has_stats &&
                    !floe_orc_stats_may_match(r->pred_cols[p], r->o.timestamp_unit,
                                              &ri.entries[g].stats, &r->preds[p]))
                    keep[g] = false;
        }
        st = apply_bloom(r, p, groups, keep);
    }
    if (st) {
        floe_free(keep);
        return st;
    }
    r->stats.row_groups_total += groups;
    int nr = 0;
    for (int64_t g = 0; g < groups; g++) {
        if (!keep[g]) {
            r->stats.row_groups_skipped++;
            continue;
        }
        int64_t s = g * stride, e = s + stride < rows ? s + stride : rows;
        if (nr && r->ranges[nr - 1].end == s) {
            r->ranges[nr - 1].end = e;
            continue;
        }
        row_range *v = floe_realloc(r->ranges, ((size_t)nr + 1) * sizeof *v);
        if (!v) {
            floe_free(keep);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        }
        r->ranges = v;
        r->ranges[nr].start = s;
        r->ranges[nr].end = e;
        nr++;
    }
    r->num_ranges = nr;
    floe_free(keep);
    return NULL;
}

static bool stripe_may_match(const floe_orc_reader *r, int s) {
    for (int p = 0; p < r->num_preds; p++) {
        const floe_orc_stats *st = floe_orc_file_stripe_stats(r->file, (size_t)s, r->pred_cols[p]->id);
        if (st && !floe_orc_stats_may_match(r->pred_cols[p], r->o.timestamp_unit, st, &r->preds[p]))
            return false;
    }
    return true;
}

/* A dictionary with entries needs its LENGTH stream: checked before any
 * fetch, so a stripe footer that lost it is named for what it is. */
static floe_status check_dictionaries(const floe_orc_reader *r) {
    const floe_orc_schema *sc = r->file->schema;
    for (uint32_t id = 0; id < sc->num_columns; id++) {
        const floe_orc_col_encoding *e = &r->sf.encodings[id];
        if (!r->include[id] || e->dictionary_size == 0 ||
            (e->kind != FLOE_ORC_ENC_DICTIONARY && e->kind != FLOE_ORC_ENC_DICTIONARY_V2))
            continue;
        bool found = false;
        for (size_t i = 0; i < r->sf.num_streams && !found; i++)
            found = r->sf.streams[i].column == id && r->sf.streams[i].kind == FLOE_ORC_S_LENGTH;
        if (!found)
            return floe_error(FLOE_ERR_CORRUPT,
                              "'%s': stripe %d: column %u '%s' (%s, %s): LENGTH stream is missing, "
                              "but the dictionary has %u entries",
                              r->file->path, r->stripe, id, sc->columns[id].path,
                              floe_orc_kind_name(sc->columns[id].kind),
                              floe_orc_encoding_name(e->kind), e->dictionary_size);
    }
    return NULL;
}

static floe_status read_rows(floe_orc_reader *r, int64_t n, floe_array **tops);

static floe_status make_readers(floe_orc_reader *r) {
    if (r->readers)
        for (int i = 0; i < r->num_tops; i++) floe_orc_col_reader_free(r->readers[i]);
    floe_free(r->readers);
    r->readers = floe_calloc((size_t)r->num_tops + 1, sizeof *r->readers);
    if (!r->readers) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < r->num_tops; i++)
        FLOE_TRY(floe_orc_col_reader_new(&r->ss, r->tops[i], r->include, r->top_types[i], &r->readers[i]));
    return NULL;
}

/* The fetched ROW_INDEX streams, decoded (for seeking to row groups). */
static floe_status decode_indexes(floe_orc_reader *r) {
    uint32_t nc = r->file->schema->num_columns;
    r->indexes = floe_arena_calloc(&r->arena, nc, sizeof *r->indexes);
    if (!r->indexes) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < r->ss.num_bufs; i++) {
        const floe_orc_stream_buf *b = &r->ss.bufs[i];
        if (b->kind != FLOE_ORC_S_ROW_INDEX || b->column >= nc || r->indexes[b->column]) continue;
        floe_orc_row_index *ri = floe_arena_calloc(&r->arena, 1, sizeof *ri);
        if (!ri) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        FLOE_TRY_CTX(floe_orc_decode_row_index(b->data, b->len, &r->arena, ri),
                     "'%s': stripe %d: column %u '%s': ROW_INDEX stream", r->file->path, r->stripe,
                     b->column, r->file->schema->columns[b->column].path);
        r->indexes[b->column] = ri;
    }
    return NULL;
}

/* Move every reader to row `row` of the stripe (a row-group start after
 * the current position): by the row index when it fits, else by decoding
 * the rows in between (from the stripe's start again if a seek failed
 * half way). */
static floe_status skip_to(floe_orc_reader *r, int64_t row, floe_array **tops) {
    uint32_t stride = r->file->footer.row_index_stride;
    if (!r->no_seek && r->indexes && stride && row % stride == 0) {
        bool ok = true;
        for (int i = 0; ok && i < r->num_tops; i++)
            FLOE_TRY(floe_orc_col_seek(r->readers[i], r->indexes, (size_t)(row / stride), &ok));
        if (ok) {
            r->stats.row_group_seeks++;
            r->pos = row;
            return NULL;
        }
        r->no_seek = true;
        FLOE_TRY(make_readers(r));
        r->pos = 0;
    }
    while (r->pos < row) {
        int64_t k = row - r->pos;
        if (k > r->o.batch_size) k = r->o.batch_size;
        FLOE_TRY(read_rows(r, k, tops));
        for (int i = 0; i < r->num_tops; i++) floe_array_release(tops[i]);
        r->pos += k;
        r->stats.rows_decoded_past += k;
    }
    return NULL;
}

static floe_status begin_stripe(floe_orc_reader *r, int s) {
    r->stripe = s;
    const floe_orc_stripe_info *si = floe_orc_file_stripe(r->file, (size_t)s);
    r->stripe_first_row = floe_orc_file_stripe_first_row(r->file, (size_t)s);
    r->stripe_rows = (int64_t)si->num_rows;
    r->pos = 0;
    r->cur_range = 0;
    r->in_stripe = true;
    FLOE_TRY(floe_orc_file_read_stripe_footer(r->file, (size_t)s, &r->arena, &r->sf));
    FLOE_TRY(row_group_ranges(r));
    if (r->num_ranges == 0) return NULL; /* nothing to fetch */
    r->ss.file = r->file;
    r->ss.stripe = (size_t)s;
    r->ss.footer = &r->sf;
    r->ss.unit = r->o.timestamp_unit;
    r->ss.writer_tz = NULL;
    if (r->sf.writer_timezone && *r->sf.writer_timezone) {
        bool needs = false;
        for (uint32_t id = 0; id < r->file->schema->num_columns; id++)
            needs |= r->include[id] && r->file->schema->columns[id].kind == FLOE_ORC_TIMESTAMP;
        if (needs)
            FLOE_TRY_CTX(get_tz(r, r->sf.writer_timezone, &r->ss.writer_tz), "'%s': stripe %d",
                         r->file->path, s);
    }
    FLOE_TRY(check_dictionaries(r));
    r->need_index = r->num_ranges > 1 || r->ranges[0].start > 0;
    r->no_seek = false;
    FLOE_TRY(fetch_streams(r));
    if (r->need_index) FLOE_TRY(decode_indexes(r));
    return make_readers(r);
}

/* Read n rows of every top-level column. */
static floe_status read_rows(floe_orc_reader *r, int64_t n, floe_array **tops) {
    for (int i = 0; i < r->num_tops; i++) {
        floe_status st = floe_orc_col_read(r->readers[i], n, NULL, &tops[i]);
        if (st) {
            for (int j = 0; j < i; j++) floe_array_release(tops[j]);
            return st;
        }
    }
    return NULL;
}

static void release_all(floe_array **a, int n) {
    for (int i = 0; i < n; i++) floe_array_release(a[i]);
}

floe_status floe_orc_reader_next(floe_orc_reader *r, floe_batch **out) {
    *out = NULL;
    r->nspans = 0;
    for (;;) {
        if (r->in_stripe && r->cur_range >= r->num_ranges) end_stripe(r);
        if (!r->in_stripe) {
            if (r->next_stripe >= r->num_stripes) return NULL;
            int s = r->stripes[r->next_stripe++];
            r->stats.rows_total += (int64_t)floe_orc_file_stripe(r->file, (size_t)s)->num_rows;
            if (r->num_preds && !stripe_may_match(r, s)) {
                r->stats.stripes_skipped++;
                continue;
            }
            floe_status st = begin_stripe(r, s);
            if (st) {
                end_stripe(r);
                return st;
            }
            continue;
        }
        row_range *rg = &r->ranges[r->cur_range];
        if (r->pos >= rg->end) {
            r->cur_range++;
            continue;
        }
        floe_array **tops = floe_calloc((size_t)r->num_tops + 1, sizeof *tops);
        if (!tops) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        floe_status st = r->pos < rg->start ? skip_to(r, rg->start, tops) : NULL;
        int64_t n = rg->end - r->pos;
        if (n > r->o.batch_size) n = r->o.batch_size;
        if (!st) st = read_rows(r, n, tops);
        if (st) {
            floe_free(tops);
            end_stripe(r);
            return st;
        }
        floe_array **cols = floe_calloc((size_t)r->num_outs + 1, sizeof *cols);
        if (!cols) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        for (int i = 0; !st && i < r->num_outs; i++) {
            const out_col *oc = &r->outs[i];
            floe_array *a = tops[oc->top];
            for (int d = 0; d < oc->depth; d++) a = a->children[oc->steps[d]];
            cols[i] = a;
        }
        if (!st) st = floe_batch_new(r->schema, cols, r->num_outs, n, out);
        floe_free(cols);
        release_all(tops, r->num_tops);
        floe_free(tops);
        if (st) return st;
        r->span.first_row = r->stripe_first_row + r->pos;
        r->span.num_rows = n;
        r->nspans = 1;
        r->pos += n;
        r->stats.rows_emitted += n;
        return NULL;
    }
}

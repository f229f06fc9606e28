/*
 * scan_parquet.c — the ParquetScan leaf node: plain Parquet files (not an
 * Iceberg table) read as the rows of their top-level columns.
 *
 * Like the Iceberg scan it is planned once: floe_parquet_scan_new expands
 * the paths and globs, reads every footer, checks the files share one
 * schema and deals their row groups out to partitions, contiguous runs
 * balanced by compressed bytes.  The node's parts are that assignment —
 * (file, row group range) pairs per partition — so a decoded node reads
 * exactly its share without listing or opening anything else first.
 *
 * An optional pruning predicate (over the output columns) skips row groups
 * whose column chunk statistics prove that no row can make it TRUE.  It
 * understands conjunctions and disjunctions of column-vs-literal
 * comparisons, IS [NOT] NULL and IN lists over columns stored as plain
 * top-level Parquet leaves; anything else keeps the row group.  Its
 * AND-ed column-vs-literal comparisons (not <>), IN lists and null tests
 * also go to the Parquet reader, which skips the pages whose page index
 * proves no row can match.  Rows are not filtered here: a Filter above
 * still applies the predicate, so both only need to be conservative.
 *
 * Paths may be local (globs through glob(3)) or s3:// (globs matched with
 * fnmatch(3) against a listing of the longest literal prefix, through the
 * FileIO configured from the environment); `**` matches any number of
 * folders (scan_files.c).
 *
 * Hive partitions (key=value folders) are columns whose values each part
 * carries as text: they are typed and made constant columns when the part
 * is read, and a part whose values make a conjunct of the pruning
 * predicate FALSE or NULL is skipped before its file is opened (dropped
 * from the plan by floe_parquet_scan_project, checked again at open).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "exec/scan/scan_files.h"
#include "exec/scan/scan_parquet_internal.h"
#include "exec/scan/scan_prefetch.h"
#include "floe/exec_scan.h"
#include "floe/fileio.h"
#include "formats/parquet/file.h"
#include "formats/parquet/reader.h"

/* ------------------------------------------------------- opening a file */

/* A Parquet file and, for remote files, the input it reads through. */
typedef struct open_file {
    floe_pq_file *file;
    floe_input *in; /* NULL for local files (the file owns its input) */
} open_file;

static void open_file_close(open_file *f) {
    floe_pq_file_close(f->file);
    if (f->in) floe_input_close(f->in);
    f->file = NULL;
    f->in = NULL;
}

/* `*io` is created on first need (remote paths) and kept by the caller. */
static floe_status open_file_at(const char *path, floe_fileio **io, open_file *out) {
    out->file = NULL;
    out->in = NULL;
    if (!scan_is_remote(path)) return floe_pq_file_open_path(scan_local_path(path), &out->file);
    if (!*io) FLOE_TRY(floe_fileio_new(NULL, 0, io));
    FLOE_TRY(floe_fileio_open_input(*io, path, &out->in));
    floe_status st = floe_pq_file_open(out->in, &out->file);
    if (st) open_file_close(out);
    return st;
}

/* --------------------------------------------------------------- the node */

static void part_clear(floe_pq_scan_part *pt, int32_t n_keys) {
    floe_free(pt->path);
    for (int32_t k = 0; pt->hive_values && k < n_keys; k++) floe_free(pt->hive_values[k]);
    floe_free(pt->hive_values);
    memset(pt, 0, sizeof *pt);
}

static void parquet_free(floe_plan *p_) {
    parquet_plan *p = (parquet_plan *)p_;
    for (int32_t i = 0; p->partitions && i < p->head.n_partitions; i++) {
        for (int32_t k = 0; k < p->partitions[i].n_parts; k++) part_clear(&p->partitions[i].parts[k], p->n_keys);
        floe_free(p->partitions[i].parts);
    }
    floe_free(p->partitions);
    floe_free(p->col_ndv);
    for (int32_t k = 0; k < p->n_keys; k++) floe_free(p->keys[k]);
    floe_free(p->keys);
    floe_free(p->col_key);
    floe_type_release(p->file_schema);
    floe_expr_release(p->prune);
}

/* ----------------------------------------------------- Hive partitions */

/* Does `e` read only partition columns (and at least one)? */
static bool only_keys(const parquet_plan *p, const floe_expr *e, bool *any) {
    if (e->kind == FLOE_EXPR_COLUMN) {
        *any = true;
        return key_of(p, e->column) >= 0;
    }
    for (int32_t i = 0; i < e->n_args; i++)
        if (!only_keys(p, e->args[i], any)) return false;
    return true;
}

/* One row of the output schema: the part's partition values, NULL for the
 * file's columns (which the conjuncts evaluated on it do not read). */
static floe_status part_row(const parquet_plan *p, const floe_pq_scan_part *pt, floe_batch **out) {
    int32_t n = floe_schema_num_fields(p->head.schema);
    floe_array **cols = floe_calloc((size_t)(n ? n : 1), sizeof *cols);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "evaluating partition values");
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < n; i++) {
        floe_type *t = floe_schema_field(p->head.schema, i)->type;
        int32_t k = key_of(p, i);
        st = k >= 0 ? scan_hive_value(pt->hive_values ? pt->hive_values[k] : NULL, t, &cols[i])
                    : floe_array_new_nulls(t, 1, &cols[i]);
    }
    if (!st) st = floe_batch_new(p->head.schema, cols, n, 1, out);
    for (int32_t i = 0; i < n; i++) floe_array_release(cols[i]);
    floe_free(cols);
    return st;
}

/* Is a conjunct over partition columns only FALSE or NULL on this row? */
static floe_status conjuncts_fail(const parquet_plan *p, const floe_expr *e, const floe_batch *row, bool *fails) {
    if (*fails) return NULL;
    if (e->kind == FLOE_EXPR_AND) {
        FLOE_TRY(conjuncts_fail(p, e->args[0], row, fails));
        return conjuncts_fail(p, e->args[1], row, fails);
    }
    bool any = false;
    if (!only_keys(p, e, &any) || !any) return NULL;
    floe_array *r = NULL;
    floe_status st = floe_expr_eval(e, row, &r);
    if (st) { /* an error on these values is the Filter's to raise, on real rows */
        floe_status_free(st);
        return NULL;
    }
    if (r->type->id == FLOE_TYPE_NULL || floe_array_is_null(r, 0) ||
        (r->type->id == FLOE_TYPE_BOOL && !floe_array_get_bool(r, 0)))
        *fails = true;
    floe_array_release(r);
    return NULL;
}

/* May the part hold a row making `prune` TRUE, going by its partition
 * values alone? */
static floe_status part_may_match(const parquet_plan *p, const floe_expr *prune, const floe_pq_scan_part *pt, bool *may) {
    *may = true;
    if (!prune || p->n_keys == 0) return NULL;
    floe_batch *row = NULL;
    FLOE_TRY(part_row(p, pt, &row));
    bool fails = false;
    floe_status st = conjuncts_fail(p, prune, row, &fails);
    floe_batch_release(row);
    *may = !fails;
    return st;
}

/* ----------------------------------------------------------- the stream */

/* A partition reads its parts (file, row group range) in order through
 * the shared read-ahead machinery (scan_prefetch.h); one part is one unit,
 * and several files of a partition are fetched and decoded at once. */
typedef struct pq_stream {
    floe_stream base;
    const parquet_plan *p;
    const pq_partition *part;
    int64_t batch_size;
    floe_fileio *io;           /* shared by the units (thread-safe); remote parts only */
    const char **names;        /* names of the output columns read from the files */
    int32_t n_names;
    uint32_t *zeros;           /* batch_size zero indices: a partition value repeated */
    floe_prefetch *pf;
    floe_progress *progress;   /* row groups finished are added here; may be NULL */
} pq_stream;

/* One part being read. */
typedef struct pq_unit {
    const floe_pq_scan_part *pt;
    open_file file;
    floe_pq_reader *reader;    /* columns > 0 */
    int *rgs;                  /* surviving row groups */
    int n_rgs, rg_pos;
    int64_t rg_done;           /* rows of rgs[rg_pos] already emitted (no columns) */
    int64_t *rg_first;         /* file row of the first row of each rgs[k] */
    int prog_rg;               /* rgs[0 .. prog_rg) are counted as done */
    bool whole;                /* a FLOE_PQ_SCAN_WHOLE_FILE part: one unit of progress */
    floe_array **keyvals;      /* per output column: its partition value (one row), or NULL */
} pq_unit;

static void pq_unit_close(void *ctx, void *state) {
    pq_unit *u = state;
    if (!u) return;
    floe_pq_reader_close(u->reader);
    open_file_close(&u->file);
    floe_free(u->rgs);
    floe_free(u->rg_first);
    const pq_stream *s = ctx;
    for (int32_t i = 0; u->keyvals && i < floe_schema_num_fields(s->p->head.schema); i++) floe_array_release(u->keyvals[i]);
    floe_free(u->keyvals);
    floe_free(u);
}

/* Name the file in an error that does not already. */
static floe_status part_error(const floe_pq_scan_part *pt, floe_status st) {
    if (!st || floe_status_code(st) == FLOE_ERR_CANCELLED || strstr(floe_status_message(st), pt->path)) return st;
    return floe_status_wrap(st, "reading '%s'", pt->path);
}

/* Open part `k`: the file, its surviving row groups and a reader. */
static floe_status open_part(pq_stream *s, pq_unit *u) {
    const floe_pq_scan_part *pt = u->pt;
    const parquet_plan *p = s->p;
    u->whole = pt->rg_end == FLOE_PQ_SCAN_WHOLE_FILE;
    if (p->n_keys) {
        bool may = true;
        FLOE_TRY(part_may_match(p, p->prune, pt, &may));
        if (!may) return NULL; /* its partition values rule it out: never opened */
        int32_t nf = floe_schema_num_fields(p->head.schema);
        if (!(u->keyvals = floe_calloc((size_t)(nf ? nf : 1), sizeof *u->keyvals)))
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading '%s'", pt->path);
        for (int32_t i = 0; i < nf; i++)
            if (key_of(p, i) >= 0)
                FLOE_TRY_CTX(scan_hive_value(pt->hive_values ? pt->hive_values[key_of(p, i)] : NULL,
                                             floe_schema_field(p->head.schema, i)->type, &u->keyvals[i]),
                             "partition '%s'", p->keys[key_of(p, i)]);
    }
    floe_fileio *io = s->io; /* made at execute when a part is remote */
    floe_status st = open_file_at(pt->path, &io, &u->file);
    if (io != s->io) floe_fileio_free(io); /* inputs keep what they need */
    FLOE_TRY(st);
    const floe_pq_file *f = u->file.file;
    int32_t rg_end = u->whole ? (int32_t)f->meta->num_row_groups : pt->rg_end;
    if ((uint32_t)rg_end > f->meta->num_row_groups)
        return floe_error(FLOE_ERR_CORRUPT, "'%s' has %u row groups; the scan expects at least %d (did the file change?)",
                          pt->path, f->meta->num_row_groups, pt->rg_end);
    int n_cand = rg_end - pt->rg_begin;
    u->rgs = floe_calloc((size_t)(n_cand > 0 ? n_cand : 1), sizeof *u->rgs);
    if (!u->rgs) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading '%s'", pt->path);
    FLOE_TRY(pqs_select_row_groups(p, f, pt->rg_begin, rg_end, u->rgs, &u->n_rgs));
    if (!u->whole) floe_progress_add(s->progress, n_cand - u->n_rgs); /* pruned: done without reading */
    if (!(u->rg_first = floe_calloc((size_t)(u->n_rgs ? u->n_rgs : 1), sizeof *u->rg_first)))
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading '%s'", pt->path);
    int64_t row = 0;
    for (int g = 0, k = 0; k < u->n_rgs; g++) {
        if (g == u->rgs[k]) u->rg_first[k++] = row;
        row += f->meta->row_groups[g].num_rows;
    }
    int32_t ncols = s->n_names;
    if (u->n_rgs == 0 || ncols == 0) return NULL; /* nothing to read, or only row counts */
    floe_pq_read_options o = {0};
    o.columns = s->names;
    o.num_columns = ncols;
    o.row_groups = u->rgs;
    o.num_row_groups = u->n_rgs;
    o.batch_size = s->batch_size;
    pqs_page_preds pp;
    FLOE_TRY(pqs_page_preds_make(p, f, &pp));
    o.predicates = pp.n ? pp.preds : NULL;
    o.num_predicates = pp.n;
    st = floe_pq_reader_open(u->file.file, &o, &u->reader);
    pqs_page_preds_free(&pp); /* the reader copied the values */
    FLOE_TRY(st);
    const floe_schema *rs = floe_pq_reader_schema(u->reader);
    if (!floe_type_compatible(rs, p->file_schema)) {
        floe_buf want, got;
        floe_buf_init(&want);
        floe_buf_init(&got);
        floe_status_free(floe_type_to_string(p->file_schema, &want));
        floe_status_free(floe_type_to_string(rs, &got));
        st = floe_error(FLOE_ERR_TYPE, "'%s' holds %s, not the scan's %s", pt->path, floe_buf_cstr(&got),
                                    floe_buf_cstr(&want));
        floe_buf_free(&want);
        floe_buf_free(&got);
        return st;
    }
    return NULL;
}

static floe_status pq_unit_open(void *ctx, int32_t k, void **state) {
    pq_stream *s = ctx;
    *state = NULL;
    pq_unit *u = floe_calloc(1, sizeof *u);
    if (!u) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "ParquetScan: opening a file");
    u->pt = &s->part->parts[k];
    floe_status st = open_part(s, u);
    if (st) {
        st = part_error(u->pt, st);
        pq_unit_close(s, u);
        return st;
    }
    *state = u;
    return NULL;
}

/* With no columns only row counts matter: batches of empty rows, sized
 * from the footer, without reading any data. */
static floe_status count_only_batch(pq_stream *s, pq_unit *u, floe_batch **out) {
    while (u->rg_pos < u->n_rgs) {
        int64_t rows = u->file.file->meta->row_groups[u->rgs[u->rg_pos]].num_rows;
        if (u->rg_done >= rows) {
            u->rg_pos++;
            u->rg_done = 0;
            floe_progress_add(s->progress, u->rg_pos - u->prog_rg);
            u->prog_rg = u->rg_pos;
            continue;
        }
        int64_t n = rows - u->rg_done;
        if (n > s->batch_size) n = s->batch_size;
        u->rg_done += n;
        return floe_batch_new(s->p->file_schema, NULL, 0, n, out);
    }
    return NULL;
}

/* The output batch: the file columns of `b` (n rows, the reader's order)
 * with the part's partition values as constant columns in their places. */
static floe_status assemble_batch(pq_stream *s, pq_unit *u, floe_batch *b, floe_batch **out) {
    const parquet_plan *p = s->p;
    int32_t nf = floe_schema_num_fields(p->head.schema);
    if (!p->n_keys) return floe_batch_new(p->head.schema, b->columns, b->num_columns, b->num_rows, out);
    floe_array **cols = floe_calloc((size_t)(nf ? nf : 1), sizeof *cols);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading '%s'", u->pt->path);
    floe_status st = NULL;
    for (int32_t i = 0, j = 0; !st && i < nf; i++) {
        if (key_of(p, i) < 0) cols[i] = floe_array_retain(b->columns[j++]);
        else st = floe_array_take(u->keyvals[i], s->zeros, b->num_rows, &cols[i]);
    }
    if (!st) st = floe_batch_new(p->head.schema, cols, nf, b->num_rows, out);
    for (int32_t i = 0; i < nf; i++) floe_array_release(cols[i]);
    floe_free(cols);
    return st;
}

/* Count the row groups the batch just read has finished (all of them at
 * the end of the part).  The reader's row spans tell where it is: a row
 * group is done once a later one's rows come, or its last row came. */
static void pq_unit_progress(pq_stream *s, pq_unit *u, bool end) {
    if (u->whole) { /* a whole file is one unit */
        if (end && u->prog_rg == 0) floe_progress_add(s->progress, 1);
        if (end) u->prog_rg = 1;
        return;
    }
    int done = u->prog_rg;
    if (end) {
        done = u->n_rgs;
    } else if (u->reader) {
        const floe_pq_row_span *sp = NULL;
        int n = 0;
        floe_pq_reader_last_rows(u->reader, &sp, &n);
        if (n <= 0) return;
        int64_t first = sp[0].first_row, last = sp[n - 1].first_row + sp[n - 1].num_rows - 1;
        const floe_pq_row_group *rgs = u->file.file->meta->row_groups;
        while (done < u->n_rgs && u->rg_first[done] + rgs[u->rgs[done]].num_rows <= first) done++;
        if (done < u->n_rgs && last >= u->rg_first[done] + rgs[u->rgs[done]].num_rows - 1) done++;
    }
    floe_progress_add(s->progress, done - u->prog_rg);
    u->prog_rg = done;
}

static floe_status pq_unit_next(void *ctx, void *state, floe_batch **out) {
    pq_stream *s = ctx;
    pq_unit *u = state;
    *out = NULL;
    floe_batch *b = NULL;
    floe_status st = NULL;
    if (!u->reader) {
        st = s->n_names == 0 ? count_only_batch(s, u, &b) : NULL;
        if (!st && !b) pq_unit_progress(s, u, true);
    } else {
        st = floe_pq_reader_next(u->reader, &b);
        if (!st) pq_unit_progress(s, u, b == NULL);
    }
    if (!st && b) st = assemble_batch(s, u, b, out); /* the node's schema (names, ids), the reader's arrays */
    floe_batch_release(b);
    return part_error(u->pt, st);
}

static const floe_prefetch_ops pq_unit_ops = {pq_unit_open, pq_unit_next, pq_unit_close};

static floe_status pq_next(floe_stream *s_, floe_batch **out) {
    pq_stream *s = (pq_stream *)s_;
    *out = NULL;
    return floe_prefetch_next(s->pf, out);
}

static void pq_close(floe_stream *s_) {
    pq_stream *s = (pq_stream *)s_;
    floe_prefetch_close(s->pf); /* waits for reads in flight */
    if (s->io) floe_fileio_free(s->io);
    floe_free(s->names);
    floe_free(s->zeros);
    floe_free(s);
}

static floe_status pq_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    const parquet_plan *p = (const parquet_plan *)p_;
    pq_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a ParquetScan stream");
    s->base.next = pq_next;
    s->base.close = pq_close;
    s->p = p;
    s->part = &p->partitions[partition];
    s->batch_size = ctx->batch_size > 0 ? ctx->batch_size : FLOE_PQ_DEFAULT_BATCH_SIZE;
    s->progress = ctx->progress;
    int32_t ncols = floe_schema_num_fields(p->file_schema);
    floe_status st = NULL;
    s->names = floe_calloc((size_t)(ncols ? ncols : 1), sizeof *s->names);
    if (!s->names) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a ParquetScan stream");
    for (int32_t i = 0; !st && i < ncols; i++) s->names[i] = floe_schema_field(p->file_schema, i)->name;
    s->n_names = ncols;
    if (!st && p->n_keys && !(s->zeros = floe_calloc((size_t)s->batch_size, sizeof *s->zeros)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a ParquetScan stream");
    /* One FileIO for the remote parts, shared by the units. */
    for (int32_t k = 0; !st && !s->io && k < s->part->n_parts; k++)
        if (scan_is_remote(s->part->parts[k].path)) st = floe_fileio_new(NULL, 0, &s->io);
    if (!st) st = floe_prefetch_open(&pq_unit_ops, s, s->part->n_parts, ctx, "ParquetScan", &s->pf);
    if (st) {
        pq_close(&s->base);
        return st;
    }
    *out = &s->base;
    return NULL;
}

/* ---------------------------------------------------------------- codec */

static floe_status parquet_encode(const floe_plan *p_, floe_buf *out) {
    const parquet_plan *p = (const parquet_plan *)p_;
    FLOE_TRY(floe_codec_put_type(out, p->head.schema));
    FLOE_TRY(floe_codec_put_i64(out, p->n_keys));
    for (int32_t k = 0; k < p->n_keys; k++) FLOE_TRY(floe_codec_put_str(out, p->keys[k]));
    FLOE_TRY(floe_codec_put_i64(out, p->head.n_partitions));
    for (int32_t i = 0; i < p->head.n_partitions; i++) {
        const pq_partition *pp = &p->partitions[i];
        FLOE_TRY(floe_codec_put_i64(out, pp->n_parts));
        for (int32_t k = 0; k < pp->n_parts; k++) {
            FLOE_TRY(floe_codec_put_str(out, pp->parts[k].path));
            FLOE_TRY(floe_codec_put_i64(out, pp->parts[k].rg_begin));
            FLOE_TRY(floe_codec_put_i64(out, pp->parts[k].rg_end));
            for (int32_t v = 0; v < p->n_keys; v++) { /* a flag, then the text when not NULL */
                const char *t = pp->parts[k].hive_values ? pp->parts[k].hive_values[v] : NULL;
                FLOE_TRY(floe_codec_put_i64(out, t != NULL));
                if (t) FLOE_TRY(floe_codec_put_str(out, t));
            }
        }
    }
    FLOE_TRY(floe_codec_put_i64(out, p->prune != NULL));
    if (p->prune) FLOE_TRY(floe_codec_put_expr(out, p->prune));
    return NULL;
}

static floe_status get_bounded(floe_reader *r, int64_t lo, int64_t hi, const char *what, int64_t *v) {
    FLOE_TRY(floe_codec_get_i64(r, v));
    if (*v < lo || *v > hi)
        return floe_error(FLOE_ERR_CORRUPT, "ParquetScan: %s %lld at plan offset %zu is impossible", what, (long long)*v, r->pos);
    return NULL;
}

static floe_status parquet_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    (void)children;
    if (n_children != 0) return floe_error(FLOE_ERR_CORRUPT, "ParquetScan with %d children", n_children);
    floe_type *schema = NULL;
    int64_t np = 0, has_prune = 0, nk = 0;
    floe_pq_scan_part **parts = NULL;
    int32_t *counts = NULL;
    char **keys = NULL;
    floe_expr *prune = NULL;
    int64_t done = 0, keys_done = 0;
    floe_status st = floe_codec_get_type(r, &schema);
    if (!st) st = get_bounded(r, 0, (int64_t)(r->len - r->pos), "key count", &nk);
    if (!st && nk && !(keys = floe_calloc((size_t)nk, sizeof *keys))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding ParquetScan");
    for (; !st && keys_done < nk; keys_done++) st = floe_codec_get_str(r, &keys[keys_done]);
    if (!st) st = get_bounded(r, 1, (int64_t)(r->len - r->pos), "partition count", &np);
    if (!st && (!(parts = floe_calloc((size_t)np, sizeof *parts)) || !(counts = floe_calloc((size_t)np, sizeof *counts))))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding ParquetScan");
    for (; !st && done < np; done++) {
        int64_t n;
        st = get_bounded(r, 0, (int64_t)(r->len - r->pos), "part count", &n);
        if (!st && !(parts[done] = floe_calloc((size_t)(n ? n : 1), sizeof *parts[done])))
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding ParquetScan");
        for (int64_t k = 0; !st && k < n; k++) {
            int64_t b = 0, e = 0;
            floe_pq_scan_part *pt = &parts[done][k];
            st = floe_codec_get_str(r, &pt->path);
            counts[done] = (int32_t)(k + 1);
            if (!st) st = get_bounded(r, 0, INT32_MAX, "row group", &b);
            if (!st) st = get_bounded(r, FLOE_PQ_SCAN_WHOLE_FILE, INT32_MAX, "row group", &e);
            pt->rg_begin = (int32_t)b;
            pt->rg_end = (int32_t)e;
            if (!st && nk && !(pt->hive_values = floe_calloc((size_t)nk, sizeof *pt->hive_values)))
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding ParquetScan");
            for (int64_t v = 0; !st && v < nk; v++) {
                int64_t set = 0;
                st = get_bounded(r, 0, 1, "partition value flag", &set);
                if (!st && set) st = floe_codec_get_str(r, &pt->hive_values[v]);
            }
        }
        if (st) {
            done++;
            break;
        }
    }
    if (!st) st = get_bounded(r, 0, 1, "prune flag", &has_prune);
    if (!st && has_prune) st = floe_codec_get_expr(r, &prune);
    if (!st)
        st = floe_plan_parquet_scan_hive(schema, (const char *const *)keys, (int32_t)nk,
                                         (const floe_pq_scan_part *const *)parts, counts, (int32_t)np, prune, out);
    for (int64_t i = 0; i < done; i++) {
        for (int32_t k = 0; k < counts[i]; k++) part_clear(&parts[i][k], (int32_t)nk);
        floe_free(parts[i]);
    }
    for (int64_t k = 0; k < keys_done; k++) floe_free(keys[k]);
    floe_free(keys);
    floe_free(parts);
    floe_free(counts);
    floe_expr_release(prune);
    floe_type_release(schema);
    return st;
}

/* -------------------------------------------------------------- EXPLAIN */

static floe_status parquet_explain(const floe_plan *p_, floe_buf *out) {
    const parquet_plan *p = (const parquet_plan *)p_;
    FLOE_TRY(floe_buf_append_str(out, "columns=["));
    for (int32_t i = 0; i < floe_schema_num_fields(p->head.schema); i++)
        FLOE_TRY(floe_buf_printf(out, "%s%s", i ? ", " : "", floe_schema_field(p->head.schema, i)->name));
    FLOE_TRY(floe_buf_append_str(out, "]"));
    if (p->prune) {
        FLOE_TRY(floe_buf_append_str(out, ", prune="));
        FLOE_TRY(floe_expr_to_string(p->prune, out));
    }
    for (int32_t k = 0; k < p->n_keys; k++) FLOE_TRY(floe_buf_printf(out, "%s%s", k ? ", " : ", hive=[", p->keys[k]));
    if (p->n_keys) FLOE_TRY(floe_buf_append_str(out, "]"));
    FLOE_TRY(floe_buf_append_str(out, ", files=["));
    for (int32_t i = 0; i < p->head.n_partitions; i++) {
        const pq_partition *pp = &p->partitions[i];
        FLOE_TRY(floe_buf_printf(out, "%s#%d:", i ? "; " : "", i));
        for (int32_t k = 0; k < pp->n_parts; k++) {
            const floe_pq_scan_part *pt = &pp->parts[k];
            if (pt->rg_end == FLOE_PQ_SCAN_WHOLE_FILE) FLOE_TRY(floe_buf_printf(out, " %s", pt->path));
            else FLOE_TRY(floe_buf_printf(out, " %s[%d..%d)", pt->path, pt->rg_begin, pt->rg_end));
        }
    }
    return floe_buf_append_str(out, "]");
}

static int64_t parquet_progress_total(const floe_plan *p);

/* Rows of the footers read when planning (unknown in a decoded copy). */
static double parquet_estimate_rows(const floe_plan *p) {
    int64_t n = ((const parquet_plan *)p)->est_rows;
    return n >= 0 ? (double)n : -1;
}

static floe_status parquet_local_paths(const floe_plan *p_, floe_path_visit visit, void *arg) {
    const parquet_plan *p = (const parquet_plan *)p_;
    for (int32_t i = 0; i < p->head.n_partitions; i++)
        for (int32_t k = 0; k < p->partitions[i].n_parts; k++) FLOE_TRY(visit(arg, p->partitions[i].parts[k].path));
    return NULL;
}

const floe_plan_vtable floe_parquet_scan_vt = {
    .name = "ParquetScan",
    .execute = pq_execute,
    .encode_parts = parquet_encode,
    .decode_parts = parquet_decode,
    .explain_parts = parquet_explain,
    .free_parts = parquet_free,
    .progress_total = parquet_progress_total,
    .estimate_rows = parquet_estimate_rows,
    .local_paths = parquet_local_paths,
};

/* ---------------------------------------------------------- constructors */

static floe_status build_oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a ParquetScan node"); }

/* The keys, each output column's key, and the schema of the columns read
 * from the files. */
static floe_status build_keys(parquet_plan *p, floe_schema *schema, const char *const *keys, int32_t n_keys) {
    int32_t nf = floe_schema_num_fields(schema);
    if (n_keys < 0 || (n_keys && !keys)) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: %d Hive keys", n_keys);
    if (n_keys) {
        if (!(p->keys = floe_calloc((size_t)n_keys, sizeof *p->keys))) return build_oom();
        for (int32_t k = 0; k < n_keys; k++) {
            if (!keys[k]) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: Hive key %d has no name", k);
            if (!(p->keys[k] = floe_strdup(keys[k]))) return build_oom();
            p->n_keys = k + 1;
        }
        if (!(p->col_key = floe_calloc((size_t)(nf ? nf : 1), sizeof *p->col_key))) return build_oom();
    }
    floe_field *ff = floe_calloc((size_t)(nf ? nf : 1), sizeof *ff);
    if (!ff) return build_oom();
    floe_status st = NULL;
    int32_t n = 0;
    for (int32_t i = 0; !st && i < nf; i++) {
        const floe_field *f = floe_schema_field(schema, i);
        int32_t key = -1;
        for (int32_t k = 0; k < p->n_keys; k++)
            if (strcmp(f->name, p->keys[k]) == 0) key = k;
        if (p->col_key) p->col_key[i] = key;
        if (key < 0 && !(st = floe_field_copy(&ff[n], f))) n++;
    }
    if (!st) st = floe_type_struct(ff, n, &p->file_schema);
    for (int32_t i = 0; i < n; i++) floe_field_clear(&ff[i]);
    floe_free(ff);
    return st;
}

static floe_status parquet_build(parquet_plan *p, floe_schema *schema, const char *const *keys, int32_t n_keys,
                                 const floe_pq_scan_part *const *partitions, const int32_t *n_parts,
                                 int32_t n_partitions, floe_expr *prune) {
    if (!schema || schema->id != FLOE_TYPE_STRUCT)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: the schema must be a struct type");
    if (n_partitions < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: %d partitions", n_partitions);
    FLOE_TRY(floe_exec_plan_init(&p->head, &floe_parquet_scan_vt, schema, n_partitions, NULL, 0));
    FLOE_TRY(build_keys(p, schema, keys, n_keys));
    if (prune) {
        floe_type *t = NULL;
        FLOE_TRY_CTX(floe_expr_type(prune, schema, &t), "ParquetScan pruning predicate");
        floe_type_id id = t->id;
        floe_type_release(t);
        if (id != FLOE_TYPE_BOOL && id != FLOE_TYPE_NULL)
            return floe_error(FLOE_ERR_TYPE, "ParquetScan pruning predicate must be bool, not %s", floe_type_id_name(id));
        p->prune = floe_expr_retain(prune);
    }
    if (!(p->partitions = floe_calloc((size_t)n_partitions, sizeof *p->partitions))) return build_oom();
    for (int32_t i = 0; i < n_partitions; i++) {
        int32_t n = n_parts[i];
        if (n < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: partition %d has %d parts", i, n);
        if (n && !partitions[i]) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: partition %d has no parts", i);
        if (!(p->partitions[i].parts = floe_calloc((size_t)(n ? n : 1), sizeof *p->partitions[i].parts))) return build_oom();
        for (int32_t k = 0; k < n; k++) {
            const floe_pq_scan_part *src = &partitions[i][k];
            bool whole = src->rg_end == FLOE_PQ_SCAN_WHOLE_FILE && src->rg_begin == 0;
            if (!src->path || src->rg_begin < 0 || (src->rg_end < src->rg_begin && !whole))
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: partition %d part %d: bad file or row groups [%d, %d)",
                                  i, k, src->rg_begin, src->rg_end);
            floe_pq_scan_part *dst = &p->partitions[i].parts[k];
            p->partitions[i].n_parts = k + 1;
            if (!(dst->path = floe_strdup(src->path))) return build_oom();
            dst->rg_begin = src->rg_begin;
            dst->rg_end = src->rg_end;
            if (!p->n_keys) continue;
            if (!(dst->hive_values = floe_calloc((size_t)p->n_keys, sizeof *dst->hive_values))) return build_oom();
            for (int32_t v = 0; src->hive_values && v < p->n_keys; v++)
                if (src->hive_values[v] && !(dst->hive_values[v] = floe_strdup(src->hive_values[v]))) return build_oom();
        }
    }
    return NULL;
}

floe_status floe_plan_parquet_scan_hive(floe_schema *schema, const char *const *hive_keys, int32_t n_keys,
                                        const floe_pq_scan_part *const *partitions, const int32_t *n_parts,
                                        int32_t n_partitions, floe_expr *prune, floe_plan **out) {
    *out = NULL;
    parquet_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return build_oom();
    p->head.vt = &floe_parquet_scan_vt; /* releasable whatever fails below */
    p->est_rows = -1;
    atomic_init(&p->head.refcount_, 1);
    floe_status st = parquet_build(p, schema, hive_keys, n_keys, partitions, n_parts, n_partitions, prune);
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

floe_status floe_plan_parquet_scan(floe_schema *schema, const floe_pq_scan_part *const *partitions,
                                   const int32_t *n_parts, int32_t n_partitions, floe_expr *prune, floe_plan **out) {
    return floe_plan_parquet_scan_hive(schema, NULL, 0, partitions, n_parts, n_partitions, prune, out);
}

/* The scan without the parts whose partition values rule out its pruning
 * predicate (replaces *plan).  Partitions keep their number; a partition
 * may become empty. */
static floe_status drop_pruned_parts(floe_plan **plan) {
    const parquet_plan *p = (const parquet_plan *)*plan;
    int32_t np = p->head.n_partitions;
    const floe_pq_scan_part **parts = floe_calloc((size_t)np, sizeof *parts);
    floe_pq_scan_part **kept = floe_calloc((size_t)np, sizeof *kept);
    int32_t *counts = floe_calloc((size_t)np, sizeof *counts);
    floe_status st = parts && kept && counts ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning Hive partitions");
    bool dropped = false;
    for (int32_t i = 0; !st && i < np; i++) {
        const pq_partition *pp = &p->partitions[i];
        if (!(kept[i] = floe_calloc((size_t)(pp->n_parts ? pp->n_parts : 1), sizeof *kept[i]))) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning Hive partitions");
            break;
        }
        for (int32_t k = 0; !st && k < pp->n_parts; k++) {
            bool may = true;
            st = part_may_match(p, p->prune, &pp->parts[k], &may);
            if (may) kept[i][counts[i]++] = pp->parts[k]; /* shallow: copied by the constructor */
            else dropped = true;
        }
        parts[i] = kept[i];
    }
    floe_plan *np_plan = NULL;
    if (!st && dropped)
        st = floe_plan_parquet_scan_hive(p->head.schema, (const char *const *)p->keys, p->n_keys, parts, counts, np,
                                         p->prune, &np_plan);
    if (np_plan) {
        floe_plan_release(*plan);
        *plan = np_plan;
    }
    for (int32_t i = 0; kept && i < np; i++) floe_free(kept[i]);
    floe_free(kept);
    floe_free((void *)parts);
    floe_free(counts);
    return st;
}

floe_status floe_parquet_scan_project(const floe_plan *p_, const int32_t *columns, int32_t n_columns, floe_expr *prune,
                                      floe_plan **out) {
    *out = NULL;
    const parquet_plan *p = (const parquet_plan *)p_;
    if (p_->vt != &floe_parquet_scan_vt) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "not a ParquetScan");
    int32_t nf = floe_schema_num_fields(p->head.schema);
    if (n_columns < 0 || (n_columns > 0 && !columns))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan projection: %d columns", n_columns);
    floe_field *f = floe_calloc((size_t)(n_columns ? n_columns : 1), sizeof *f);
    const floe_pq_scan_part **parts = floe_calloc((size_t)p->head.n_partitions, sizeof *parts);
    int32_t *counts = floe_calloc((size_t)p->head.n_partitions, sizeof *counts);
    floe_status st = f && parts && counts ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "projecting a ParquetScan");
    int32_t made = 0;
    for (; !st && made < n_columns; made++) {
        if (columns[made] < 0 || columns[made] >= nf) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan projection: column %d of %d", columns[made], nf);
            break;
        }
        for (int32_t j = 0; j < made && !st; j++)
            if (columns[j] == columns[made])
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan projection: column %d twice", columns[made]);
        if (!st) st = floe_field_copy(&f[made], floe_schema_field(p->head.schema, columns[made]));
        if (st) break;
    }
    floe_schema *schema = NULL;
    if (!st) st = floe_type_struct(f, n_columns, &schema);
    for (int32_t i = 0; !st && i < p->head.n_partitions; i++) {
        parts[i] = p->partitions[i].parts;
        counts[i] = p->partitions[i].n_parts;
    }
    if (!st)
        st = floe_plan_parquet_scan_hive(schema, (const char *const *)p->keys, p->n_keys, parts, counts,
                                         p->head.n_partitions, prune, out);
    if (!st && p->n_keys && prune) st = drop_pruned_parts(out);
    if (!st && p->est_rows >= 0) {
        int64_t before = 0, after = 0;
        for (int32_t i = 0; i < p->head.n_partitions; i++) before += p->partitions[i].n_parts;
        for (int32_t i = 0; i < (*out)->n_partitions; i++) after += ((parquet_plan *)*out)->partitions[i].n_parts;
        ((parquet_plan *)*out)->est_rows = before ? (int64_t)((double)p->est_rows * (double)after / (double)before) : 0;
    }
    if (!st && p->col_ndv && n_columns > 0 &&
        (((parquet_plan *)*out)->col_ndv = floe_calloc((size_t)n_columns, sizeof(int64_t))))
        for (int32_t i = 0; i < n_columns; i++) ((parquet_plan *)*out)->col_ndv[i] = p->col_ndv[columns[i]];
    floe_type_release(schema);
    for (int32_t i = 0; i < made; i++) floe_field_clear(&f[i]);
    floe_free(f);
    floe_free((void *)parts);
    floe_free(counts);
    return st;
}

int32_t floe_parquet_scan_num_partitions_parts(const floe_plan *p, int32_t partition) {
    const parquet_plan *pp = (const parquet_plan *)p;
    if (partition < 0 || partition >= p->n_partitions) return 0;
    return pp->partitions[partition].n_parts;
}

const floe_pq_scan_part *floe_parquet_scan_part(const floe_plan *p, int32_t partition, int32_t i) {
    const parquet_plan *pp = (const parquet_plan *)p;
    if (partition < 0 || partition >= p->n_partitions || i < 0 || i >= pp->partitions[partition].n_parts) return NULL;
    return &pp->partitions[partition].parts[i];
}

const floe_expr *floe_parquet_scan_prune(const floe_plan *p) { return ((const parquet_plan *)p)->prune; }

int64_t floe_parquet_scan_column_ndv(const floe_plan *p_, int32_t column) {
    if (p_->vt != &floe_parquet_scan_vt) return -1;
    const parquet_plan *p = (const parquet_plan *)p_;
    if (!p->col_ndv || column < 0 || column >= floe_schema_num_fields(p->head.schema)) return -1;
    return p->col_ndv[column];
}

static int64_t parquet_progress_total(const floe_plan *p_) {
    const parquet_plan *p = (const parquet_plan *)p_;
    int64_t n = 0;
    for (int32_t i = 0; i < p->head.n_partitions; i++)
        for (int32_t k = 0; k < p->partitions[i].n_parts; k++) {
            const floe_pq_scan_part *pt = &p->partitions[i].parts[k];
            n += pt->rg_end == FLOE_PQ_SCAN_WHOLE_FILE ? 1 : pt->rg_end - pt->rg_begin; /* a whole file: one unit */
        }
    return n;
}

/* ------------------------------------------------------- planning a scan */

/* One row group as a unit of work. */
typedef struct rg_unit {
    int32_t file;
    int32_t rg;
    int64_t bytes;
} rg_unit;

static int64_t row_group_bytes(const floe_pq_row_group *rg) {
    if (rg->has_total_compressed_size && rg->total_compressed_size > 0) return rg->total_compressed_size;
    int64_t sum = 0;
    for (uint32_t c = 0; c < rg->num_columns; c++)
        if (rg->columns[c].has_meta_data) sum += rg->columns[c].meta_data.total_compressed_size;
    if (sum > 0) return sum;
    return rg->total_byte_size > 0 ? rg->total_byte_size : 1;
}

/* Same columns (names in order, compatible types)?  Else the first
 * difference, for the message. */
static bool same_columns(const floe_schema *a, const floe_schema *b, floe_buf *why) {
    int32_t na = floe_schema_num_fields(a), nb = floe_schema_num_fields(b);
    for (int32_t i = 0; i < na && i < nb; i++) {
        const floe_field *x = floe_schema_field(a, i), *y = floe_schema_field(b, i);
        if (strcmp(x->name, y->name) != 0) {
            floe_status_free(floe_buf_printf(why, "column %d is '%s', not '%s'", i + 1, y->name, x->name));
            return false;
        }
        if (!floe_type_compatible(x->type, y->type)) {
            floe_status_free(floe_buf_printf(why, "column '%s' is ", y->name));
            floe_status_free(floe_type_to_string(y->type, why));
            floe_status_free(floe_buf_append_str(why, ", not "));
            floe_status_free(floe_type_to_string(x->type, why));
            return false;
        }
    }
    if (na != nb) {
        floe_status_free(floe_buf_printf(why, "it has %d columns, not %d", nb, na));
        return false;
    }
    return true;
}

/* Cut the row groups (in file order) into at most `np` contiguous runs of
 * nearly equal bytes; bounds[k] is the first unit of run k. */
static int32_t balance(const rg_unit *u, int32_t n, int32_t np, int32_t *bounds) {
    if (np > n) np = n;
    if (np < 1) np = 1;
    int64_t total = 0;
    for (int32_t i = 0; i < n; i++) total += u[i].bytes;
    int32_t run = 0, i = 0;
    int64_t cum = 0;
    bounds[0] = 0;
    for (run = 0; run < np; run++) {
        bounds[run] = i;
        if (run == np - 1) {
            i = n;
            break;
        }
        /* Take units until this run reaches its share of the total, leaving
         * at least one unit for each later run. */
        double target = (double)total * (run + 1) / np;
        do {
            cum += u[i].bytes;
            i++;
        } while (i < n - (np - run - 1) && (double)cum + (double)u[i].bytes / 2 <= target);
    }
    bounds[np] = n;
    return np;
}

/* What planning needs from one file's footer. */
typedef struct footer_info {
    floe_schema *schema; /* the columns as the reader makes them */
    int32_t n_rgs;
    int64_t *rg_bytes;
    int64_t rows;        /* rows of every row group */
    int64_t *lo, *hi;    /* per schema column: integer min / max over the row groups */
    bool *ranged;        /* ... known (every row group has both statistics) */
    floe_status st;      /* opening or reading the footer failed */
} footer_info;

typedef struct footer_job {
    const scan_file_list *files;
    floe_fileio *io;     /* shared; made beforehand when a path is remote */
    footer_info *info;
} footer_job;

/* The integer range of every top-level integer column over the file's row
 * groups, from chunk statistics: max - min + 1 bounds the column's distinct
 * values, which the planner uses to estimate joins (a nation key ranges
 * over 25 values in a table of 10,000 suppliers).  Best effort: a column
 * without usable statistics in some row group stays unknown. */
static void column_ranges(const open_file *f, footer_info *fi) {
    int32_t nf = floe_schema_num_fields(fi->schema);
    if (nf <= 0 || !(fi->lo = floe_calloc((size_t)nf, sizeof *fi->lo)) ||
        !(fi->hi = floe_calloc((size_t)nf, sizeof *fi->hi)) || !(fi->ranged = floe_calloc((size_t)nf, sizeof *fi->ranged)))
        return; /* no ranges: estimates fall back to row counts */
    const floe_pq_field *root = floe_pq_schema_root(f->file->schema);
    for (int32_t i = 0; i < nf; i++) {
        const floe_field *fld = floe_schema_field(fi->schema, i);
        const floe_pq_field *leaf = NULL;
        for (int k = 0; k < root->num_children && !leaf; k++)
            if (strcmp(root->children[k]->name, fld->name) == 0 && root->children[k]->column &&
                root->children[k]->column->max_rep_level == 0)
                leaf = root->children[k];
        if (!leaf || (fld->type->id != FLOE_TYPE_INT32 && fld->type->id != FLOE_TYPE_INT64)) continue;
        bool ok = fi->n_rgs > 0;
        for (int32_t g = 0; ok && g < fi->n_rgs; g++) {
            const floe_pq_column_chunk *ch = floe_pq_file_chunk(f->file, g, leaf->column->index);
            const floe_pq_bytes *bmin = NULL, *bmax = NULL;
            ok = ch && ch->has_meta_data && !ch->encrypted && ch->meta_data.has_statistics &&
                 floe_pq_column_stats_bounds(leaf->column, &ch->meta_data.statistics, &bmin, &bmax);
            pqs_sval lo = ok ? pqs_stat_value(leaf->column, bmin, fld->type) : (pqs_sval){0};
            pqs_sval hi = ok ? pqs_stat_value(leaf->column, bmax, fld->type) : (pqs_sval){0};
            ok = ok && lo.k == PQS_I64 && hi.k == PQS_I64 && lo.i <= hi.i;
            if (!ok) break;
            if (g == 0 || lo.i < fi->lo[i]) fi->lo[i] = lo.i;
            if (g == 0 || hi.i > fi->hi[i]) fi->hi[i] = hi.i;
        }
        fi->ranged[i] = ok;
    }
}

static floe_status read_one_footer(const char *path, floe_fileio *shared, footer_info *fi) {
    open_file f;
    floe_fileio *io = shared;
    floe_status st = open_file_at(path, &io, &f);
    if (io != shared) floe_fileio_free(io); /* made here: inputs keep what they need */
    if (st) return st;
    floe_pq_reader *r = NULL;
    st = floe_pq_reader_open(f.file, NULL, &r);
    if (!st) fi->schema = floe_type_retain(floe_pq_reader_schema(r));
    fi->n_rgs = (int32_t)f.file->meta->num_row_groups;
    if (!st && !(fi->rg_bytes = floe_calloc((size_t)(fi->n_rgs ? fi->n_rgs : 1), sizeof *fi->rg_bytes)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading the footer of '%s'", path);
    for (int32_t g = 0; !st && g < fi->n_rgs; g++) {
        fi->rg_bytes[g] = row_group_bytes(&f.file->meta->row_groups[g]);
        fi->rows += f.file->meta->row_groups[g].num_rows;
    }
    if (!st) column_ranges(&f, fi);
    floe_pq_reader_close(r);
    open_file_close(&f);
    return st;
}

/* Footers are independent reads (round trips, on S3): fetch them on the
 * pool; failures are kept per file and reported in file order. */
static floe_status read_footers(void *ctx, size_t begin, size_t end, const floe_cancel *cancel) {
    footer_job *job = ctx;
    for (size_t i = begin; i < end; i++) {
        FLOE_TRY(floe_cancel_check(cancel, "reading Parquet footers"));
        job->info[i].st = read_one_footer(job->files->v[i], job->io, &job->info[i]);
    }
    return NULL;
}

/* A Hive-partitioned scan: the first file's footer gives the file columns
 * (every column nullable: the other files are not read), the partition
 * columns follow, every file is a whole-file part dealt out by size. */
static floe_status plan_hive(const scan_file_list *files, const scan_hive *h, floe_fileio *io, int32_t target_partitions,
                             floe_plan **out) {
    footer_info fi = {0};
    floe_status st = read_one_footer(files->v[0], io, &fi);
    int32_t nf = fi.schema ? floe_schema_num_fields(fi.schema) : 0;
    floe_field *f = st ? NULL : floe_calloc((size_t)(nf + h->n_keys + 1), sizeof *f);
    if (!st && !f) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a Parquet scan");
    int32_t made = 0;
    bool *in_file = st ? NULL : floe_calloc((size_t)h->n_keys + 1, sizeof *in_file);
    if (!st && !in_file) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a Parquet scan");
    for (int32_t i = 0; !st && i < nf; i++, made++) {
        const floe_field *src = floe_schema_field(fi.schema, i);
        int32_t key = -1;
        for (int32_t k = 0; k < h->n_keys; k++)
            if (strcmp(src->name, h->keys[k]) == 0) key = k;
        if (key >= 0) { /* the path's value, as DuckDB reads it */
            in_file[key] = true;
            st = floe_field_init(&f[made], src->name, h->types[key], true, -1);
        } else if (!(st = floe_field_copy(&f[made], src))) {
            f[made].nullable = true;
        }
        if (st) break;
    }
    for (int32_t k = 0; !st && k < h->n_keys; k++) {
        if (in_file[k]) continue;
        if ((st = floe_field_init(&f[made], h->keys[k], h->types[k], true, -1))) break;
        made++;
    }
    floe_schema *schema = NULL;
    if (!st) st = floe_type_struct(f, made, &schema);
    for (int32_t i = 0; f && i < made; i++) floe_field_clear(&f[i]);
    floe_free(f);
    floe_free(in_file);
    /* Files by size (unknown: as large as the first), contiguous runs. */
    rg_unit *units = st ? NULL : floe_calloc((size_t)files->n, sizeof *units);
    int32_t want = target_partitions > 0 ? target_partitions : 1;
    int32_t *bounds = st ? NULL : floe_calloc((size_t)want + 1, sizeof *bounds);
    if (!st && (!units || !bounds)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a Parquet scan");
    uint64_t first = files->size[0] ? files->size[0] : 1;
    double total = 0;
    for (int32_t i = 0; !st && i < files->n; i++) {
        units[i] = (rg_unit){i, 0, (int64_t)(files->size[i] ? files->size[i] : first)};
        total += (double)units[i].bytes;
    }
    int32_t np = st ? 0 : balance(units, files->n, want, bounds);
    floe_pq_scan_part **parts = st ? NULL : floe_calloc((size_t)np, sizeof *parts);
    int32_t *counts = st ? NULL : floe_calloc((size_t)np, sizeof *counts);
    if (!st && (!parts || !counts)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a Parquet scan");
    for (int32_t k = 0; !st && k < np; k++) {
        if (!(parts[k] = floe_calloc((size_t)(bounds[k + 1] - bounds[k] + 1), sizeof *parts[k]))) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a Parquet scan");
            break;
        }
        for (int32_t i = bounds[k]; i < bounds[k + 1]; i++)
            parts[k][counts[k]++] = (floe_pq_scan_part){files->v[i], 0, FLOE_PQ_SCAN_WHOLE_FILE, h->values[i]};
    }
    if (!st)
        st = floe_plan_parquet_scan_hive(schema, (const char *const *)h->keys, h->n_keys,
                                         (const floe_pq_scan_part *const *)parts, counts, np, NULL, out);
    if (!st) ((parquet_plan *)*out)->est_rows = (int64_t)((double)fi.rows * total / (double)first);
    for (int32_t k = 0; parts && k < np; k++) floe_free(parts[k]);
    floe_free(parts);
    floe_free(counts);
    floe_free(bounds);
    floe_free(units);
    floe_type_release(schema);
    floe_type_release(fi.schema);
    floe_free(fi.rg_bytes);
    floe_free(fi.lo);
    floe_free(fi.hi);
    floe_free(fi.ranged);
    return st;
}

floe_status floe_parquet_scan_new(const char *const *patterns, int32_t n_patterns, int32_t target_partitions,
                                  floe_plan **out) {
    return floe_parquet_scan_new_hive(patterns, n_patterns, target_partitions, FLOE_HIVE_AUTO, out);
}

floe_status floe_parquet_scan_new_hive(const char *const *patterns, int32_t n_patterns, int32_t target_partitions,
                                       floe_hive_mode hive, floe_plan **out) {
    *out = NULL;
    if (n_patterns < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: no files given");
    floe_fileio *io = NULL;
    scan_file_list files = {0};
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < n_patterns; i++) st = scan_expand_pattern(patterns[i], &io, &files);
    scan_hive h = {0};
    if (!st) st = scan_hive_parse(&files, hive, &h);
    if (!st && h.n_keys > 0) {
        st = plan_hive(&files, &h, io, target_partitions, out);
        scan_hive_free(&h);
        scan_file_list_free(&files);
        if (io) floe_fileio_free(io);
        return st;
    }
    floe_schema *schema = NULL;
    rg_unit *units = NULL;
    int32_t n_units = 0;
    int64_t total_rows = 0;
    footer_info *info = NULL;
    if (!st && !(info = floe_calloc((size_t)files.n, sizeof *info)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a Parquet scan");
    if (!st) {
        footer_job job = {&files, io, info};
        floe_threadpool *pool = NULL;
        st = floe_threadpool_default(&pool);
        if (!st) st = floe_parallel_for(pool, (size_t)files.n, 1, read_footers, &job, NULL);
    }
    for (int32_t fi = 0; !st && fi < files.n; fi++) {
        if (info[fi].st) {
            st = info[fi].st;
            info[fi].st = NULL;
            break;
        }
        n_units += info[fi].n_rgs;
        total_rows += info[fi].rows;
        if (fi == 0) continue;
        floe_buf why;
        floe_buf_init(&why);
        if (!same_columns(info[0].schema, info[fi].schema, &why))
            st = floe_error(FLOE_ERR_TYPE, "'%s' does not match the schema of '%s': %s", files.v[fi], files.v[0],
                            floe_buf_cstr(&why));
        floe_buf_free(&why);
    }
    /* The first file's columns, nullable where any file's column is. */
    if (!st) {
        int32_t nf = floe_schema_num_fields(info[0].schema);
        floe_field *f = floe_calloc((size_t)(nf ? nf : 1), sizeof *f);
        int32_t made = 0;
        if (!f) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a Parquet scan");
        for (; !st && made < nf; made++) {
            st = floe_field_copy(&f[made], floe_schema_field(info[0].schema, made));
            for (int32_t fi = 1; !st && fi < files.n; fi++) f[made].nullable |= floe_schema_field(info[fi].schema, made)->nullable;
            if (st) break;
        }
        if (!st) st = floe_type_struct(f, nf, &schema);
        for (int32_t i = 0; i < made; i++) floe_field_clear(&f[i]);
        floe_free(f);
    }
    int64_t *col_ndv = NULL;
    if (!st && schema && (col_ndv = floe_calloc((size_t)floe_schema_num_fields(schema) + 1, sizeof *col_ndv))) {
        for (int32_t i = 0; i < floe_schema_num_fields(schema); i++) {
            int64_t lo = 0, hi = 0;
            bool ok = files.n > 0;
            for (int32_t fi = 0; ok && fi < files.n; fi++) {
                ok = info[fi].ranged && info[fi].ranged[i];
                if (ok && (fi == 0 || info[fi].lo[i] < lo)) lo = info[fi].lo[i];
                if (ok && (fi == 0 || info[fi].hi[i] > hi)) hi = info[fi].hi[i];
            }
            /* hi - lo + 1 without overflow; never above the row count */
            double span = ok ? (double)hi - (double)lo + 1 : -1;
            col_ndv[i] = !ok ? -1 : span < (double)total_rows ? (int64_t)span : total_rows;
        }
    }
    if (!st && !(units = floe_calloc((size_t)(n_units ? n_units : 1), sizeof *units)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a Parquet scan");
    if (!st) {
        int32_t k = 0;
        for (int32_t fi = 0; fi < files.n; fi++)
            for (int32_t g = 0; g < info[fi].n_rgs; g++) units[k++] = (rg_unit){fi, g, info[fi].rg_bytes[g]};
    }
    for (int32_t fi = 0; info && fi < files.n; fi++) {
        floe_type_release(info[fi].schema);
        floe_free(info[fi].rg_bytes);
        floe_free(info[fi].lo);
        floe_free(info[fi].hi);
        floe_free(info[fi].ranged);
        floe_status_free(info[fi].st);
    }
    floe_free(info);
    int32_t np = 1;
    int32_t *bounds = NULL, *counts = NULL;
    floe_pq_scan_part **parts = NULL;
    if (!st) {
        int32_t want = target_partitions > 0 ? target_partitions : 1;
        bounds = floe_calloc((size_t)want + 1, sizeof *bounds);
        if (!bounds) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a Parquet scan");
        else np = n_units ? balance(units, n_units, want, bounds) : 1;
    }
    if (!st && (!(parts = floe_calloc((size_t)np, sizeof *parts)) || !(counts = floe_calloc((size_t)np, sizeof *counts))))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a Parquet scan");
    for (int32_t k = 0; !st && k < np && n_units; k++) {
        /* Consecutive row groups of one file become one part. */
        int32_t b = bounds[k], e = bounds[k + 1];
        if (!(parts[k] = floe_calloc((size_t)(e - b > 0 ? e - b : 1), sizeof *parts[k]))) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a Parquet scan");
            break;
        }
        for (int32_t i = b; i < e; i++) {
            floe_pq_scan_part *last = counts[k] ? &parts[k][counts[k] - 1] : NULL;
            if (last && strcmp(last->path, files.v[units[i].file]) == 0 && last->rg_end == units[i].rg) {
                last->rg_end++;
                continue;
            }
            parts[k][counts[k]].path = files.v[units[i].file];
            parts[k][counts[k]].rg_begin = units[i].rg;
            parts[k][counts[k]].rg_end = units[i].rg + 1;
            counts[k]++;
        }
    }
    if (!st) st = floe_plan_parquet_scan(schema, (const floe_pq_scan_part *const *)parts, counts, np, NULL, out);
    if (!st) {
        ((parquet_plan *)*out)->est_rows = total_rows;
        ((parquet_plan *)*out)->col_ndv = col_ndv;
        col_ndv = NULL;
    }
    floe_free(col_ndv);
    for (int32_t k = 0; parts && k < np; k++) floe_free(parts[k]);
    floe_free(parts);
    floe_free(counts);
    floe_free(bounds);
    floe_free(units);
    floe_type_release(schema);
    scan_file_list_free(&files);
    if (io) floe_fileio_free(io);
    return st;
}

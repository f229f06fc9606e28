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
 * FileIO configured from the environment).
 */
#include <fnmatch.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "exec/scan/scan_prefetch.h"
#include "floe/exec_scan.h"
#include "floe/fileio.h"
#include "formats/parquet/file.h"
#include "formats/parquet/reader.h"

/* ------------------------------------------------------- opening a file */

static bool is_remote(const char *path) {
    return strncmp(path, "s3://", 5) == 0 || strncmp(path, "s3a://", 6) == 0 || strncmp(path, "s3n://", 6) == 0;
}

/* A local path without a "file:" scheme ("file:///a/b" and "file:/a/b"
 * are "/a/b"). */
static const char *local_path(const char *path) {
    if (strncmp(path, "file://", 7) == 0) return path + 7;
    if (strncmp(path, "file:", 5) == 0) return path + 5;
    return path;
}

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
    if (!is_remote(path)) return floe_pq_file_open_path(local_path(path), &out->file);
    if (!*io) FLOE_TRY(floe_fileio_new(NULL, 0, io));
    FLOE_TRY(floe_fileio_open_input(*io, path, &out->in));
    floe_status st = floe_pq_file_open(out->in, &out->file);
    if (st) open_file_close(out);
    return st;
}

/* --------------------------------------------------------------- the node */

typedef struct pq_partition {
    int32_t n_parts;
    floe_pq_scan_part *parts;
} pq_partition;

typedef struct parquet_plan {
    floe_plan head;
    pq_partition *partitions; /* head.n_partitions */
    floe_expr *prune;         /* may be NULL */
    int64_t est_rows;         /* derived, plan time only: rows of the footers read (-1 unknown) */
    int64_t *col_ndv;         /* derived, plan time only: per column, a bound on its distinct
                               * values from integer min/max statistics (-1 unknown); or NULL */
} parquet_plan;

static void parquet_free(floe_plan *p_) {
    parquet_plan *p = (parquet_plan *)p_;
    for (int32_t i = 0; p->partitions && i < p->head.n_partitions; i++) {
        for (int32_t k = 0; k < p->partitions[i].n_parts; k++) floe_free(p->partitions[i].parts[k].path);
        floe_free(p->partitions[i].parts);
    }
    floe_free(p->partitions);
    floe_free(p->col_ndv);
    floe_expr_release(p->prune);
}

/* ---------------------------------------------------------------- pruning */

/* A statistics bound or a literal, in a domain where they compare: signed
 * 64-bit integers, doubles, or unsigned byte strings. */
typedef enum { SV_NONE = 0, SV_I64, SV_F64, SV_BYTES } sv_kind;
typedef struct sval {
    sv_kind k;
    int64_t i;
    double d;
    const uint8_t *p;
    uint32_t n;
} sval;

static int32_t le32(const uint8_t *p) { return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24); }
static int64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return (int64_t)v;
}

/* A chunk statistic (plain-encoded bytes of the physical type) as a value
 * of the engine type `t` the reader makes of this column. */
static sval stat_value(const floe_pq_column *col, const floe_pq_bytes *b, const floe_type *t) {
    sval v = {0};
    if (!b || !b->set) return v;
    switch (col->kind) {
    case FLOE_PQ_KIND_BOOL:
        if (col->physical != FLOE_PQ_BOOLEAN || b->len < 1 || t->id != FLOE_TYPE_BOOL) break;
        v.k = SV_I64;
        v.i = b->data[0] & 1;
        break;
    case FLOE_PQ_KIND_INT8: case FLOE_PQ_KIND_INT16: case FLOE_PQ_KIND_INT32:
    case FLOE_PQ_KIND_UINT8: case FLOE_PQ_KIND_UINT16: case FLOE_PQ_KIND_DATE:
        if (col->physical != FLOE_PQ_INT32 || b->len != 4) break;
        if (col->kind == FLOE_PQ_KIND_DATE ? t->id != FLOE_TYPE_DATE32 : (t->id != FLOE_TYPE_INT32 && t->id != FLOE_TYPE_INT64))
            break;
        v.k = SV_I64;
        v.i = le32(b->data);
        break;
    case FLOE_PQ_KIND_UINT32:
        if (col->physical != FLOE_PQ_INT32 || b->len != 4 || t->id != FLOE_TYPE_INT64) break;
        v.k = SV_I64;
        v.i = (int64_t)(uint32_t)le32(b->data);
        break;
    case FLOE_PQ_KIND_INT64:
        if (col->physical != FLOE_PQ_INT64 || b->len != 8 || t->id != FLOE_TYPE_INT64) break;
        v.k = SV_I64;
        v.i = le64(b->data);
        break;
    case FLOE_PQ_KIND_TIMESTAMP_MS: case FLOE_PQ_KIND_TIMESTAMP_US: case FLOE_PQ_KIND_TIMESTAMP_NS: {
        if (col->physical != FLOE_PQ_INT64 || b->len != 8) break; /* INT96: no usable order */
        int64_t x = le64(b->data);
        bool us = t->id == FLOE_TYPE_TIMESTAMP_US || t->id == FLOE_TYPE_TIMESTAMP_US_TZ;
        bool ns = t->id == FLOE_TYPE_TIMESTAMP_NS || t->id == FLOE_TYPE_TIMESTAMP_NS_TZ;
        if (col->kind == FLOE_PQ_KIND_TIMESTAMP_MS && us) {
            if (x > INT64_MAX / 1000 || x < INT64_MIN / 1000) break;
            x *= 1000;
        } else if (!((col->kind == FLOE_PQ_KIND_TIMESTAMP_US && us) || (col->kind == FLOE_PQ_KIND_TIMESTAMP_NS && ns))) {
            break;
        }
        v.k = SV_I64;
        v.i = x;
        break;
    }
    case FLOE_PQ_KIND_TIME_MS:
        if (col->physical != FLOE_PQ_INT32 || b->len != 4 || t->id != FLOE_TYPE_TIME64_US) break;
        v.k = SV_I64;
        v.i = (int64_t)le32(b->data) * 1000;
        break;
    case FLOE_PQ_KIND_TIME_US:
        if (col->physical != FLOE_PQ_INT64 || b->len != 8 || t->id != FLOE_TYPE_TIME64_US) break;
        v.k = SV_I64;
        v.i = le64(b->data);
        break;
    case FLOE_PQ_KIND_FLOAT: {
        if (col->physical != FLOE_PQ_FLOAT || b->len != 4 || t->id != FLOE_TYPE_FLOAT32) break;
        float f;
        memcpy(&f, b->data, 4);
        if (isnan(f)) break;
        v.k = SV_F64;
        v.d = f;
        break;
    }
    case FLOE_PQ_KIND_DOUBLE: {
        if (col->physical != FLOE_PQ_DOUBLE || b->len != 8 || t->id != FLOE_TYPE_FLOAT64) break;
        double d;
        memcpy(&d, b->data, 8);
        if (isnan(d)) break;
        v.k = SV_F64;
        v.d = d;
        break;
    }
    case FLOE_PQ_KIND_STRING: case FLOE_PQ_KIND_BINARY:
        if (col->physical != FLOE_PQ_BYTE_ARRAY || (t->id != FLOE_TYPE_STRING && t->id != FLOE_TYPE_BINARY)) break;
        v.k = SV_BYTES;
        v.p = b->data;
        v.n = b->len;
        break;
    default: break;
    }
    return v;
}

static bool is_int_type(floe_type_id id) { return id == FLOE_TYPE_INT32 || id == FLOE_TYPE_INT64; }
static bool is_float_type(floe_type_id id) { return id == FLOE_TYPE_FLOAT32 || id == FLOE_TYPE_FLOAT64; }

/* The literal `a` (one slot, not null) in the domain of a column of type
 * `ct`; SV_NONE when they are not compared in a domain handled here. */
static sval literal_value(const floe_array *a, const floe_type *ct) {
    sval v = {0};
    floe_type_id lt = a->type->id, c = ct->id;
    bool numeric = (is_int_type(lt) || is_float_type(lt)) && (is_int_type(c) || is_float_type(c));
    if (numeric && (is_float_type(lt) || is_float_type(c))) {
        /* The engine compares mixed numerics as doubles. */
        double d = lt == FLOE_TYPE_INT32 ? floe_array_get_int32(a, 0)
                 : lt == FLOE_TYPE_INT64 ? (double)floe_array_get_int64(a, 0)
                 : lt == FLOE_TYPE_FLOAT32 ? floe_array_get_float(a, 0) : floe_array_get_double(a, 0);
        if (isnan(d)) return v;
        v.k = SV_F64;
        v.d = d;
        return v;
    }
    if (numeric) {
        v.k = SV_I64;
        v.i = lt == FLOE_TYPE_INT32 ? floe_array_get_int32(a, 0) : floe_array_get_int64(a, 0);
        return v;
    }
    if (lt != c) return v;
    switch (lt) {
    case FLOE_TYPE_BOOL: v.k = SV_I64; v.i = floe_array_get_bool(a, 0); break;
    case FLOE_TYPE_DATE32: v.k = SV_I64; v.i = floe_array_get_int32(a, 0); break;
    case FLOE_TYPE_TIME64_US: case FLOE_TYPE_TIMESTAMP_US: case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS: case FLOE_TYPE_TIMESTAMP_NS_TZ:
        v.k = SV_I64;
        v.i = floe_array_get_int64(a, 0);
        break;
    case FLOE_TYPE_STRING: case FLOE_TYPE_BINARY: {
        floe_strview s = floe_array_get_str(a, 0);
        v.k = SV_BYTES;
        v.p = (const uint8_t *)s.data;
        v.n = (uint32_t)s.len;
        break;
    }
    default: break;
    }
    return v;
}

/* Bring a statistic into the literal's domain (ints widen to doubles). */
static bool same_domain(sval *stat, const sval *lit) {
    if (stat->k == SV_I64 && lit->k == SV_F64) {
        stat->k = SV_F64;
        stat->d = (double)stat->i; /* monotonic, so bounds stay bounds */
    }
    return stat->k != SV_NONE && stat->k == lit->k;
}

static int sval_cmp(const sval *a, const sval *b) {
    switch (a->k) {
    case SV_I64: return a->i < b->i ? -1 : a->i > b->i;
    case SV_F64: return a->d < b->d ? -1 : a->d > b->d;
    case SV_BYTES: {
        uint32_t n = a->n < b->n ? a->n : b->n;
        int c = n ? memcmp(a->p, b->p, n) : 0;
        if (c) return c < 0 ? -1 : 1;
        return a->n < b->n ? -1 : a->n > b->n;
    }
    default: return 0;
    }
}

/* What the statistics of one column chunk say. */
typedef struct chunk_facts {
    bool known;           /* a plain top-level leaf with usable metadata */
    const floe_pq_column *col;
    const floe_pq_statistics *stats;
    int64_t rows;         /* rows in the row group */
} chunk_facts;

typedef struct prune_ctx {
    const floe_schema *schema; /* the node's output schema */
    chunk_facts *facts;        /* per output column */
} prune_ctx;

static bool all_null(const chunk_facts *f) {
    return f->known && f->stats && f->stats->has_null_count && f->stats->null_count == f->rows;
}

/* Can a comparison `col op lit` (column on the left) be TRUE for some row? */
static bool cmp_may_match(const prune_ctx *c, int32_t col, floe_cmp_op op, const floe_array *lit) {
    const chunk_facts *f = &c->facts[col];
    if (floe_array_is_null(lit, 0)) return false; /* NULL: never TRUE */
    if (!f->known || !f->stats) return true;
    if (all_null(f)) return false;               /* no non-null value to compare */
    const floe_type *ct = floe_schema_field(c->schema, col)->type;
    sval l = literal_value(lit, ct);
    if (l.k == SV_NONE) return true;
    const floe_pq_bytes *bmin = NULL, *bmax = NULL;
    if (!floe_pq_column_stats_bounds(f->col, f->stats, &bmin, &bmax)) return true;
    sval lo = stat_value(f->col, bmin, ct), hi = stat_value(f->col, bmax, ct);
    if (!same_domain(&lo, &l) || !same_domain(&hi, &l)) return true;
    if (sval_cmp(&lo, &hi) > 0) return true; /* nonsense statistics: trust nothing */
    if (l.k == SV_F64 && (op == FLOE_CMP_GT || op == FLOE_CMP_GE || op == FLOE_CMP_NE)) {
        /* NaN is not in the bounds; whether NaN > x depends on the
         * comparison semantics, so only prune when there is no NaN. */
        if (!f->stats->has_nan_count || f->stats->nan_count != 0) return true;
    }
    switch (op) {
    case FLOE_CMP_EQ: return sval_cmp(&l, &lo) >= 0 && sval_cmp(&l, &hi) <= 0;
    case FLOE_CMP_LT: return sval_cmp(&lo, &l) < 0;
    case FLOE_CMP_LE: return sval_cmp(&lo, &l) <= 0;
    case FLOE_CMP_GT: return sval_cmp(&hi, &l) > 0;
    case FLOE_CMP_GE: return sval_cmp(&hi, &l) >= 0;
    case FLOE_CMP_NE: {
        /* Only exact bounds (not truncated strings) prove every value equal. */
        bool exact = (!f->stats->has_is_min_value_exact || f->stats->is_min_value_exact) &&
                     (!f->stats->has_is_max_value_exact || f->stats->is_max_value_exact);
        if (l.k == SV_BYTES) exact = exact && f->stats->has_is_min_value_exact && f->stats->has_is_max_value_exact;
        return !(exact && sval_cmp(&lo, &l) == 0 && sval_cmp(&hi, &l) == 0);
    }
    }
    return true;
}

static floe_cmp_op flip(floe_cmp_op op) {
    switch (op) {
    case FLOE_CMP_LT: return FLOE_CMP_GT;
    case FLOE_CMP_LE: return FLOE_CMP_GE;
    case FLOE_CMP_GT: return FLOE_CMP_LT;
    case FLOE_CMP_GE: return FLOE_CMP_LE;
    default: return op;
    }
}

/* May some row of the row group make `e` TRUE?  `true` whenever unsure. */
static bool may_match(const prune_ctx *c, const floe_expr *e) {
    switch (e->kind) {
    case FLOE_EXPR_AND: return may_match(c, e->args[0]) && may_match(c, e->args[1]);
    case FLOE_EXPR_OR: return may_match(c, e->args[0]) || may_match(c, e->args[1]);
    case FLOE_EXPR_LITERAL:
        /* A constant FALSE or NULL predicate matches nothing. */
        if (e->literal->type->id == FLOE_TYPE_NULL || floe_array_is_null(e->literal, 0)) return false;
        if (e->literal->type->id == FLOE_TYPE_BOOL) return floe_array_get_bool(e->literal, 0);
        return true;
    case FLOE_EXPR_CMP: {
        const floe_expr *a = e->args[0], *b = e->args[1];
        if (a->kind == FLOE_EXPR_COLUMN && b->kind == FLOE_EXPR_LITERAL)
            return cmp_may_match(c, a->column, (floe_cmp_op)e->op, b->literal);
        if (b->kind == FLOE_EXPR_COLUMN && a->kind == FLOE_EXPR_LITERAL)
            return cmp_may_match(c, b->column, flip((floe_cmp_op)e->op), a->literal);
        return true;
    }
    case FLOE_EXPR_IS_NULL: {
        const floe_expr *a = e->args[0];
        if (a->kind != FLOE_EXPR_COLUMN) return true;
        const chunk_facts *f = &c->facts[a->column];
        return !(f->known && f->stats && f->stats->has_null_count && f->stats->null_count == 0);
    }
    case FLOE_EXPR_IS_NOT_NULL: {
        const floe_expr *a = e->args[0];
        if (a->kind != FLOE_EXPR_COLUMN) return true;
        return !all_null(&c->facts[a->column]);
    }
    case FLOE_EXPR_IN: {
        const floe_expr *v = e->args[0];
        if (v->kind != FLOE_EXPR_COLUMN) return true;
        for (int32_t i = 1; i < e->n_args; i++) {
            if (e->args[i]->kind != FLOE_EXPR_LITERAL) return true;
            if (cmp_may_match(c, v->column, FLOE_CMP_EQ, e->args[i]->literal)) return true;
        }
        return false;
    }
    default: return true;
    }
}

/* The row groups of [begin, end) in `f` that the predicate may match,
 * into rgs (n out).  Column facts are found by output column name among
 * the file's top-level leaf fields. */
static floe_status select_row_groups(const parquet_plan *p, const floe_pq_file *f, int32_t begin, int32_t end,
                                     int *rgs, int *n) {
    *n = 0;
    int32_t ncols = floe_schema_num_fields(p->head.schema);
    chunk_facts *facts = NULL;
    const floe_pq_field **leaves = NULL;
    if (p->prune) {
        facts = floe_calloc((size_t)(ncols ? ncols : 1), sizeof *facts);
        leaves = floe_calloc((size_t)(ncols ? ncols : 1), sizeof *leaves);
        if (!facts || !leaves) {
            floe_free(facts);
            floe_free(leaves);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "pruning row groups of '%s'", f->path);
        }
        const floe_pq_field *root = floe_pq_schema_root(f->schema);
        for (int32_t i = 0; i < ncols; i++) {
            const char *name = floe_schema_field(p->head.schema, i)->name;
            for (int k = 0; k < root->num_children; k++) {
                const floe_pq_field *fld = root->children[k];
                if (strcmp(fld->name, name) == 0 && fld->column && fld->column->max_rep_level == 0) leaves[i] = fld;
            }
        }
    }
    for (int32_t g = begin; g < end; g++) {
        bool keep = true;
        if (p->prune) {
            const floe_pq_row_group *rg = &f->meta->row_groups[g];
            for (int32_t i = 0; i < ncols; i++) {
                memset(&facts[i], 0, sizeof facts[i]);
                if (!leaves[i]) continue;
                const floe_pq_column_chunk *ch = floe_pq_file_chunk(f, g, leaves[i]->column->index);
                if (!ch || !ch->has_meta_data || ch->encrypted) continue;
                facts[i].known = true;
                facts[i].col = leaves[i]->column;
                facts[i].stats = ch->meta_data.has_statistics ? &ch->meta_data.statistics : NULL;
                facts[i].rows = rg->num_rows;
            }
            prune_ctx c = {p->head.schema, facts};
            keep = may_match(&c, p->prune);
        }
        if (keep) rgs[(*n)++] = (int)g;
    }
    floe_free(facts);
    floe_free(leaves);
    return NULL;
}

/* ---------------------------------------------------------- page skipping */

/* The conjuncts of the pruning predicate that the Parquet reader's page
 * index filter understands (reader.h), as floe_pq_predicate's on plain
 * top-level leaves.  Only AND-ed terms are taken, each one either exactly
 * representable or left out, so the rows the reader keeps are a superset of
 * the rows the predicate makes TRUE; the Filter above still decides. */
typedef struct page_preds {
    floe_pq_predicate *preds;
    floe_pq_value *vals;      /* storage for every predicate's values */
    int n, nvals;
} page_preds;

static void page_preds_free(page_preds *pp) {
    floe_free(pp->preds);
    floe_free(pp->vals);
    memset(pp, 0, sizeof *pp);
}

/* Does a leaf of this kind take values of this kind without the reader
 * calling them incomparable? */
static bool leaf_takes(const floe_pq_column *col, floe_pq_value_kind k) {
    switch (col->kind) {
    case FLOE_PQ_KIND_STRING: case FLOE_PQ_KIND_BINARY: return k == FLOE_PQ_VAL_BYTES;
    case FLOE_PQ_KIND_FIXED: case FLOE_PQ_KIND_UUID: case FLOE_PQ_KIND_NULL: case FLOE_PQ_KIND_DECIMAL:
    case FLOE_PQ_KIND_UINT64: case FLOE_PQ_KIND_FLOAT16: case FLOE_PQ_KIND_STRUCT: case FLOE_PQ_KIND_LIST:
    case FLOE_PQ_KIND_MAP:
        return false;
    default: return k == FLOE_PQ_VAL_INT || k == FLOE_PQ_VAL_DOUBLE;
    }
}

/* A non-null literal as a reader value for a column of type `ct`. */
static bool page_value(const floe_array *lit, const floe_type *ct, const floe_pq_column *col, floe_pq_value *out) {
    memset(out, 0, sizeof *out);
    if (floe_array_is_null(lit, 0)) return false;
    sval v = literal_value(lit, ct);
    switch (v.k) {
    case SV_I64: out->kind = FLOE_PQ_VAL_INT; out->i = v.i; break;
    case SV_F64: out->kind = FLOE_PQ_VAL_DOUBLE; out->d = v.d; break;
    case SV_BYTES: out->kind = FLOE_PQ_VAL_BYTES; out->bytes = v.p; out->len = v.n; break;
    default: return false;
    }
    return leaf_takes(col, out->kind);
}

/* Count the conjuncts and the literal slots they may need. */
static void count_conjuncts(const floe_expr *e, int *n, int *nvals) {
    if (e->kind == FLOE_EXPR_AND) {
        count_conjuncts(e->args[0], n, nvals);
        count_conjuncts(e->args[1], n, nvals);
        return;
    }
    (*n)++;
    *nvals += e->n_args > 0 ? e->n_args : 1;
}

static floe_pq_pred_op page_op(floe_cmp_op op, bool *ok) {
    *ok = true;
    switch (op) {
    case FLOE_CMP_EQ: return FLOE_PQ_OP_EQ;
    case FLOE_CMP_LT: return FLOE_PQ_OP_LT;
    case FLOE_CMP_LE: return FLOE_PQ_OP_LE;
    case FLOE_CMP_GT: return FLOE_PQ_OP_GT;
    case FLOE_CMP_GE: return FLOE_PQ_OP_GE;
    default: *ok = false; return FLOE_PQ_OP_EQ; /* <> says nothing about pages */
    }
}

/* Add `e` (one conjunct) when it is representable.  leaves[c] is the
 * Parquet leaf field of output column c, or NULL. */
static void add_conjunct(const parquet_plan *p, const floe_pq_field *const *leaves, const floe_expr *e,
                         page_preds *pp) {
    if (e->kind == FLOE_EXPR_AND) {
        add_conjunct(p, leaves, e->args[0], pp);
        add_conjunct(p, leaves, e->args[1], pp);
        return;
    }
    const floe_expr *c = NULL;
    floe_pq_predicate *pr = &pp->preds[pp->n];
    floe_pq_value *vals = &pp->vals[pp->nvals];
    int nv = 0;
    memset(pr, 0, sizeof *pr);
    switch (e->kind) {
    case FLOE_EXPR_IS_NULL: case FLOE_EXPR_IS_NOT_NULL:
        c = e->args[0];
        pr->op = e->kind == FLOE_EXPR_IS_NULL ? FLOE_PQ_OP_IS_NULL : FLOE_PQ_OP_NOT_NULL;
        if (c->kind != FLOE_EXPR_COLUMN || !leaves[c->column]) return;
        break;
    case FLOE_EXPR_CMP: {
        const floe_expr *a = e->args[0], *b = e->args[1];
        floe_cmp_op op = (floe_cmp_op)e->op;
        if (a->kind == FLOE_EXPR_LITERAL && b->kind == FLOE_EXPR_COLUMN) {
            const floe_expr *t = a;
            a = b;
            b = t;
            op = flip(op);
        }
        bool ok;
        pr->op = page_op(op, &ok);
        if (!ok || a->kind != FLOE_EXPR_COLUMN || b->kind != FLOE_EXPR_LITERAL || !leaves[a->column]) return;
        c = a;
        if (!page_value(b->literal, floe_schema_field(p->head.schema, c->column)->type, leaves[c->column]->column, &vals[0]))
            return;
        nv = 1;
        break;
    }
    case FLOE_EXPR_IN: {
        c = e->args[0];
        if (c->kind != FLOE_EXPR_COLUMN || !leaves[c->column]) return;
        pr->op = FLOE_PQ_OP_IN;
        const floe_type *ct = floe_schema_field(p->head.schema, c->column)->type;
        for (int32_t i = 1; i < e->n_args; i++) {
            const floe_expr *it = e->args[i];
            if (it->kind != FLOE_EXPR_LITERAL) return;
            if (floe_array_is_null(it->literal, 0)) continue; /* never equal */
            if (!page_value(it->literal, ct, leaves[c->column]->column, &vals[nv])) return;
            nv++;
        }
        if (nv == 0) return; /* only NULLs: leave it to the Filter */
        break;
    }
    default: return;
    }
    pr->path = leaves[c->column]->name;
    pr->field_id = -1;
    pr->values = nv ? vals : NULL;
    pr->num_values = nv;
    pp->n++;
    pp->nvals += nv;
}

/* The output columns that are plain top-level Parquet leaves of `f`,
 * found by name (names holding a dot would be read as paths: left out). */
static floe_status top_leaves(const parquet_plan *p, const floe_pq_file *f, const floe_pq_field ***out) {
    int32_t ncols = floe_schema_num_fields(p->head.schema);
    const floe_pq_field **leaves = floe_calloc((size_t)(ncols ? ncols : 1), sizeof *leaves);
    if (!leaves) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading '%s'", f->path);
    const floe_pq_field *root = floe_pq_schema_root(f->schema);
    for (int32_t i = 0; i < ncols; i++) {
        const char *name = floe_schema_field(p->head.schema, i)->name;
        for (int k = 0; !strchr(name, '.') && k < root->num_children; k++) {
            const floe_pq_field *fld = root->children[k];
            if (strcmp(fld->name, name) == 0 && fld->column && fld->column->max_rep_level == 0) leaves[i] = fld;
        }
    }
    *out = leaves;
    return NULL;
}

/* The page predicates for reading `f` (none without a pruning predicate). */
static floe_status page_preds_make(const parquet_plan *p, const floe_pq_file *f, page_preds *pp) {
    memset(pp, 0, sizeof *pp);
    if (!p->prune) return NULL;
    int n = 0, nvals = 0;
    count_conjuncts(p->prune, &n, &nvals);
    const floe_pq_field **leaves = NULL;
    FLOE_TRY(top_leaves(p, f, &leaves));
    pp->preds = floe_calloc((size_t)n, sizeof *pp->preds);
    pp->vals = floe_calloc((size_t)nvals, sizeof *pp->vals);
    if (!pp->preds || !pp->vals) {
        floe_free(leaves);
        page_preds_free(pp);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading '%s'", f->path);
    }
    add_conjunct(p, leaves, p->prune, pp);
    floe_free(leaves);
    return NULL;
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
    const char **names;        /* output column names */
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
} pq_unit;

static void pq_unit_close(void *ctx, void *state) {
    (void)ctx;
    pq_unit *u = state;
    if (!u) return;
    floe_pq_reader_close(u->reader);
    open_file_close(&u->file);
    floe_free(u->rgs);
    floe_free(u->rg_first);
    floe_free(u);
}

/* Name the file in an error that does not already. */
static floe_status part_error(const floe_pq_scan_part *pt, floe_status st) {
    if (!st || floe_status_code(st) == FLOE_ERR_CANCELLED || strstr(floe_status_message(st), pt->path)) return st;
    return floe_status_wrap(st, "ParquetScan: '%s'", pt->path);
}

/* Open part `k`: the file, its surviving row groups and a reader. */
static floe_status open_part(pq_stream *s, pq_unit *u) {
    const floe_pq_scan_part *pt = u->pt;
    const parquet_plan *p = s->p;
    floe_fileio *io = s->io; /* made at execute when a part is remote */
    floe_status st = open_file_at(pt->path, &io, &u->file);
    if (io != s->io) floe_fileio_free(io); /* inputs keep what they need */
    FLOE_TRY(st);
    const floe_pq_file *f = u->file.file;
    if ((uint32_t)pt->rg_end > f->meta->num_row_groups)
        return floe_error(FLOE_ERR_CORRUPT, "'%s' has %u row groups; the scan expects at least %d (did the file change?)",
                          pt->path, f->meta->num_row_groups, pt->rg_end);
    int n_cand = pt->rg_end - pt->rg_begin;
    u->rgs = floe_calloc((size_t)(n_cand > 0 ? n_cand : 1), sizeof *u->rgs);
    if (!u->rgs) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading '%s'", pt->path);
    FLOE_TRY(select_row_groups(p, f, pt->rg_begin, pt->rg_end, u->rgs, &u->n_rgs));
    floe_progress_add(s->progress, n_cand - u->n_rgs); /* pruned: done without reading */
    if (!(u->rg_first = floe_calloc((size_t)(u->n_rgs ? u->n_rgs : 1), sizeof *u->rg_first)))
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading '%s'", pt->path);
    int64_t row = 0;
    for (int g = 0, k = 0; k < u->n_rgs; g++) {
        if (g == u->rgs[k]) u->rg_first[k++] = row;
        row += f->meta->row_groups[g].num_rows;
    }
    int32_t ncols = floe_schema_num_fields(p->head.schema);
    if (u->n_rgs == 0 || ncols == 0) return NULL; /* nothing to read, or only row counts */
    floe_pq_read_options o = {0};
    o.columns = s->names;
    o.num_columns = ncols;
    o.row_groups = u->rgs;
    o.num_row_groups = u->n_rgs;
    o.batch_size = s->batch_size;
    page_preds pp;
    FLOE_TRY(page_preds_make(p, f, &pp));
    o.predicates = pp.n ? pp.preds : NULL;
    o.num_predicates = pp.n;
    st = floe_pq_reader_open(u->file.file, &o, &u->reader);
    page_preds_free(&pp); /* the reader copied the values */
    FLOE_TRY(st);
    const floe_schema *rs = floe_pq_reader_schema(u->reader);
    if (!floe_type_compatible(rs, p->head.schema)) {
        floe_buf want, got;
        floe_buf_init(&want);
        floe_buf_init(&got);
        floe_status_free(floe_type_to_string(p->head.schema, &want));
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
        return floe_batch_new(s->p->head.schema, NULL, 0, n, out);
    }
    return NULL;
}

/* Count the row groups the batch just read has finished (all of them at
 * the end of the part).  The reader's row spans tell where it is: a row
 * group is done once a later one's rows come, or its last row came. */
static void pq_unit_progress(pq_stream *s, pq_unit *u, bool end) {
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
    if (!u->reader) {
        floe_status st = floe_schema_num_fields(s->p->head.schema) == 0 ? count_only_batch(s, u, out) : NULL;
        if (!st && !*out) pq_unit_progress(s, u, true);
        return st;
    }
    floe_batch *b = NULL;
    floe_status st = floe_pq_reader_next(u->reader, &b);
    if (!st) pq_unit_progress(s, u, b == NULL);
    if (!st && b) {
        /* The node's schema (names, ids), the reader's arrays. */
        st = floe_batch_new(s->p->head.schema, b->columns, b->num_columns, b->num_rows, out);
        floe_batch_release(b);
    }
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
    int32_t ncols = floe_schema_num_fields(p->head.schema);
    floe_status st = NULL;
    s->names = floe_calloc((size_t)(ncols ? ncols : 1), sizeof *s->names);
    if (!s->names) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a ParquetScan stream");
    for (int32_t i = 0; !st && i < ncols; i++) s->names[i] = floe_schema_field(p->head.schema, i)->name;
    /* One FileIO for the remote parts, shared by the units. */
    for (int32_t k = 0; !st && !s->io && k < s->part->n_parts; k++)
        if (is_remote(s->part->parts[k].path)) st = floe_fileio_new(NULL, 0, &s->io);
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
    FLOE_TRY(floe_codec_put_i64(out, p->head.n_partitions));
    for (int32_t i = 0; i < p->head.n_partitions; i++) {
        const pq_partition *pp = &p->partitions[i];
        FLOE_TRY(floe_codec_put_i64(out, pp->n_parts));
        for (int32_t k = 0; k < pp->n_parts; k++) {
            FLOE_TRY(floe_codec_put_str(out, pp->parts[k].path));
            FLOE_TRY(floe_codec_put_i64(out, pp->parts[k].rg_begin));
            FLOE_TRY(floe_codec_put_i64(out, pp->parts[k].rg_end));
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
    int64_t np = 0, has_prune = 0;
    floe_pq_scan_part **parts = NULL;
    int32_t *counts = NULL;
    floe_expr *prune = NULL;
    int64_t done = 0;
    floe_status st = floe_codec_get_type(r, &schema);
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
            st = floe_codec_get_str(r, &parts[done][k].path);
            counts[done] = (int32_t)(k + 1);
            if (!st) st = get_bounded(r, 0, INT32_MAX, "row group", &b);
            if (!st) st = get_bounded(r, 0, INT32_MAX, "row group", &e);
            parts[done][k].rg_begin = (int32_t)b;
            parts[done][k].rg_end = (int32_t)e;
        }
        if (st) {
            done++;
            break;
        }
    }
    if (!st) st = get_bounded(r, 0, 1, "prune flag", &has_prune);
    if (!st && has_prune) st = floe_codec_get_expr(r, &prune);
    if (!st) st = floe_plan_parquet_scan(schema, (const floe_pq_scan_part *const *)parts, counts, (int32_t)np, prune, out);
    for (int64_t i = 0; i < done; i++) {
        for (int32_t k = 0; k < counts[i]; k++) floe_free(parts[i][k].path);
        floe_free(parts[i]);
    }
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
    FLOE_TRY(floe_buf_append_str(out, ", files=["));
    for (int32_t i = 0; i < p->head.n_partitions; i++) {
        const pq_partition *pp = &p->partitions[i];
        FLOE_TRY(floe_buf_printf(out, "%s#%d:", i ? "; " : "", i));
        for (int32_t k = 0; k < pp->n_parts; k++)
            FLOE_TRY(floe_buf_printf(out, " %s[%d..%d)", pp->parts[k].path, pp->parts[k].rg_begin, pp->parts[k].rg_end));
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

static floe_status parquet_build(parquet_plan *p, floe_schema *schema, const floe_pq_scan_part *const *partitions,
                                 const int32_t *n_parts, int32_t n_partitions, floe_expr *prune) {
    if (!schema || schema->id != FLOE_TYPE_STRUCT)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: the schema must be a struct type");
    if (n_partitions < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: %d partitions", n_partitions);
    FLOE_TRY(floe_exec_plan_init(&p->head, &floe_parquet_scan_vt, schema, n_partitions, NULL, 0));
    if (prune) {
        floe_type *t = NULL;
        FLOE_TRY_CTX(floe_expr_type(prune, schema, &t), "ParquetScan pruning predicate");
        floe_type_id id = t->id;
        floe_type_release(t);
        if (id != FLOE_TYPE_BOOL && id != FLOE_TYPE_NULL)
            return floe_error(FLOE_ERR_TYPE, "ParquetScan pruning predicate must be bool, not %s", floe_type_id_name(id));
        p->prune = floe_expr_retain(prune);
    }
    if (!(p->partitions = floe_calloc((size_t)n_partitions, sizeof *p->partitions)))
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a ParquetScan node");
    for (int32_t i = 0; i < n_partitions; i++) {
        int32_t n = n_parts[i];
        if (n < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: partition %d has %d parts", i, n);
        if (n && !partitions[i]) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: partition %d has no parts", i);
        if (!(p->partitions[i].parts = floe_calloc((size_t)(n ? n : 1), sizeof *p->partitions[i].parts)))
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a ParquetScan node");
        for (int32_t k = 0; k < n; k++) {
            const floe_pq_scan_part *src = &partitions[i][k];
            if (!src->path || src->rg_begin < 0 || src->rg_end < src->rg_begin)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: partition %d part %d: bad file or row groups [%d, %d)",
                                  i, k, src->rg_begin, src->rg_end);
            floe_pq_scan_part *dst = &p->partitions[i].parts[k];
            if (!(dst->path = floe_strdup(src->path)))
                return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a ParquetScan node");
            dst->rg_begin = src->rg_begin;
            dst->rg_end = src->rg_end;
            p->partitions[i].n_parts = k + 1;
        }
    }
    return NULL;
}

floe_status floe_plan_parquet_scan(floe_schema *schema, const floe_pq_scan_part *const *partitions,
                                   const int32_t *n_parts, int32_t n_partitions, floe_expr *prune, floe_plan **out) {
    *out = NULL;
    parquet_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a ParquetScan node");
    p->head.vt = &floe_parquet_scan_vt; /* releasable whatever fails below */
    p->est_rows = -1;
    atomic_init(&p->head.refcount_, 1);
    floe_status st = parquet_build(p, schema, partitions, n_parts, n_partitions, prune);
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
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
    if (!st) st = floe_plan_parquet_scan(schema, parts, counts, p->head.n_partitions, prune, out);
    if (!st) ((parquet_plan *)*out)->est_rows = p->est_rows;
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
        for (int32_t k = 0; k < p->partitions[i].n_parts; k++)
            n += p->partitions[i].parts[k].rg_end - p->partitions[i].parts[k].rg_begin;
    return n;
}

/* ------------------------------------------------------- planning a scan */

typedef struct path_list {
    char **v;
    int32_t n, cap;
} path_list;

static void path_list_free(path_list *l) {
    for (int32_t i = 0; i < l->n; i++) floe_free(l->v[i]);
    floe_free(l->v);
    memset(l, 0, sizeof *l);
}

static floe_status path_list_add(path_list *l, const char *path) {
    for (int32_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], path) == 0) return NULL; /* matched twice: read once */
    if (l->n == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 16;
        char **nv = floe_realloc(l->v, (size_t)cap * sizeof *nv);
        if (!nv) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "listing Parquet files");
        l->v = nv;
        l->cap = cap;
    }
    if (!(l->v[l->n] = floe_strdup(path))) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "listing Parquet files");
    l->n++;
    return NULL;
}

static bool has_glob_chars(const char *s) { return strpbrk(s, "*?[") != NULL; }

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct s3_match {
    const char *pattern;
    path_list *found;
} s3_match;

static floe_status s3_list_fn(void *ctx, const floe_file_info *info) {
    s3_match *m = ctx;
    return fnmatch(m->pattern, info->location, FNM_PATHNAME) == 0 ? path_list_add(m->found, info->location) : NULL;
}

/* Add the files `pattern` names to `out` (sorted within the pattern). */
static floe_status expand_pattern(const char *pattern, floe_fileio **io, path_list *out) {
    path_list found = {0};
    floe_status st = NULL;
    if (is_remote(pattern)) {
        if (!*io) FLOE_TRY(floe_fileio_new(NULL, 0, io));
        if (!has_glob_chars(pattern)) {
            int exists = 0;
            st = floe_fileio_exists(*io, pattern, &exists);
            if (!st && exists) st = path_list_add(&found, pattern);
        } else {
            size_t pre = strcspn(pattern, "*?[");
            char *prefix = floe_strndup(pattern, pre);
            if (!prefix) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "listing '%s'", pattern);
            s3_match m = {pattern, &found};
            st = floe_fileio_list(*io, prefix, s3_list_fn, &m);
            floe_free(prefix);
        }
    } else if (!has_glob_chars(pattern)) {
        struct stat sb;
        if (stat(local_path(pattern), &sb) == 0 && S_ISREG(sb.st_mode)) st = path_list_add(&found, local_path(pattern));
    } else {
        glob_t g;
        int rc = glob(local_path(pattern), 0, NULL, &g);
        if (rc == GLOB_NOSPACE) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "expanding '%s'", pattern);
        else if (rc == GLOB_ABORTED) st = floe_error(FLOE_ERR_IO, "expanding '%s': a directory could not be read", pattern);
        for (size_t i = 0; rc == 0 && !st && i < g.gl_pathc; i++) {
            struct stat sb;
            if (stat(g.gl_pathv[i], &sb) == 0 && S_ISREG(sb.st_mode)) st = path_list_add(&found, g.gl_pathv[i]);
        }
        if (rc == 0 || rc == GLOB_NOMATCH) globfree(&g);
    }
    if (!st && found.n == 0) st = floe_error(FLOE_ERR_NOT_FOUND, "no file matches '%s'", pattern);
    if (!st && found.n > 1) qsort(found.v, (size_t)found.n, sizeof *found.v, cmp_str);
    for (int32_t i = 0; !st && i < found.n; i++) st = path_list_add(out, found.v[i]);
    path_list_free(&found);
    return st;
}

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
    const path_list *files;
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
            sval lo = ok ? stat_value(leaf->column, bmin, fld->type) : (sval){0};
            sval hi = ok ? stat_value(leaf->column, bmax, fld->type) : (sval){0};
            ok = ok && lo.k == SV_I64 && hi.k == SV_I64 && lo.i <= hi.i;
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

floe_status floe_parquet_scan_new(const char *const *patterns, int32_t n_patterns, int32_t target_partitions,
                                  floe_plan **out) {
    *out = NULL;
    if (n_patterns < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "ParquetScan: no files given");
    floe_fileio *io = NULL;
    path_list files = {0};
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < n_patterns; i++) st = expand_pattern(patterns[i], &io, &files);
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
    path_list_free(&files);
    if (io) floe_fileio_free(io);
    return st;
}

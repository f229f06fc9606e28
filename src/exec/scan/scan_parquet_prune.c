/*
 * scan_parquet_prune.c — the ParquetScan's pruning: row groups whose column
 * chunk statistics prove no row can make the pruning predicate TRUE, and
 * the predicate's conjuncts handed to the Parquet reader for page skipping
 * (see scan_parquet.c).  Partition columns of a Hive scan are never judged
 * here: their values are the part's (scan_parquet.c prunes whole files).
 */
#include <math.h>
#include <string.h>

#include "exec/scan/scan_parquet_internal.h"
#include "floe/memory.h"

/* ---------------------------------------------------------------- pruning */

static int32_t le32(const uint8_t *p) { return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24); }
static int64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return (int64_t)v;
}

/* A chunk statistic (plain-encoded bytes of the physical type) as a value
 * of the engine type `t` the reader makes of this column. */
pqs_sval pqs_stat_value(const floe_pq_column *col, const floe_pq_bytes *b, const floe_type *t) {
    pqs_sval v = {0};
    if (!b || !b->set) return v;
    switch (col->kind) {
    case FLOE_PQ_KIND_BOOL:
        if (col->physical != FLOE_PQ_BOOLEAN || b->len < 1 || t->id != FLOE_TYPE_BOOL) break;
        v.k = PQS_I64;
        v.i = b->data[0] & 1;
        break;
    case FLOE_PQ_KIND_INT8: case FLOE_PQ_KIND_INT16: case FLOE_PQ_KIND_INT32:
    case FLOE_PQ_KIND_UINT8: case FLOE_PQ_KIND_UINT16: case FLOE_PQ_KIND_DATE:
        if (col->physical != FLOE_PQ_INT32 || b->len != 4) break;
        if (col->kind == FLOE_PQ_KIND_DATE ? t->id != FLOE_TYPE_DATE32 : (t->id != FLOE_TYPE_INT32 && t->id != FLOE_TYPE_INT64))
            break;
        v.k = PQS_I64;
        v.i = le32(b->data);
        break;
    case FLOE_PQ_KIND_UINT32:
        if (col->physical != FLOE_PQ_INT32 || b->len != 4 || t->id != FLOE_TYPE_INT64) break;
        v.k = PQS_I64;
        v.i = (int64_t)(uint32_t)le32(b->data);
        break;
    case FLOE_PQ_KIND_INT64:
        if (col->physical != FLOE_PQ_INT64 || b->len != 8 || t->id != FLOE_TYPE_INT64) break;
        v.k = PQS_I64;
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
        v.k = PQS_I64;
        v.i = x;
        break;
    }
    case FLOE_PQ_KIND_TIME_MS:
        if (col->physical != FLOE_PQ_INT32 || b->len != 4 || t->id != FLOE_TYPE_TIME64_US) break;
        v.k = PQS_I64;
        v.i = (int64_t)le32(b->data) * 1000;
        break;
    case FLOE_PQ_KIND_TIME_US:
        if (col->physical != FLOE_PQ_INT64 || b->len != 8 || t->id != FLOE_TYPE_TIME64_US) break;
        v.k = PQS_I64;
        v.i = le64(b->data);
        break;
    case FLOE_PQ_KIND_FLOAT: {
        if (col->physical != FLOE_PQ_FLOAT || b->len != 4 || t->id != FLOE_TYPE_FLOAT32) break;
        float f;
        memcpy(&f, b->data, 4);
        if (isnan(f)) break;
        v.k = PQS_F64;
        v.d = f;
        break;
    }
    case FLOE_PQ_KIND_DOUBLE: {
        if (col->physical != FLOE_PQ_DOUBLE || b->len != 8 || t->id != FLOE_TYPE_FLOAT64) break;
        double d;
        memcpy(&d, b->data, 8);
        if (isnan(d)) break;
        v.k = PQS_F64;
        v.d = d;
        break;
    }
    case FLOE_PQ_KIND_STRING: case FLOE_PQ_KIND_BINARY:
        if (col->physical != FLOE_PQ_BYTE_ARRAY || (t->id != FLOE_TYPE_STRING && t->id != FLOE_TYPE_BINARY)) break;
        v.k = PQS_BYTES;
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
 * `ct`; PQS_NONE when they are not compared in a domain handled here. */
static pqs_sval literal_value(const floe_array *a, const floe_type *ct) {
    pqs_sval v = {0};
    floe_type_id lt = a->type->id, c = ct->id;
    bool numeric = (is_int_type(lt) || is_float_type(lt)) && (is_int_type(c) || is_float_type(c));
    if (numeric && (is_float_type(lt) || is_float_type(c))) {
        /* The engine compares mixed numerics as doubles. */
        double d = lt == FLOE_TYPE_INT32 ? floe_array_get_int32(a, 0)
                 : lt == FLOE_TYPE_INT64 ? (double)floe_array_get_int64(a, 0)
                 : lt == FLOE_TYPE_FLOAT32 ? floe_array_get_float(a, 0) : floe_array_get_double(a, 0);
        if (isnan(d)) return v;
        v.k = PQS_F64;
        v.d = d;
        return v;
    }
    if (numeric) {
        v.k = PQS_I64;
        v.i = lt == FLOE_TYPE_INT32 ? floe_array_get_int32(a, 0) : floe_array_get_int64(a, 0);
        return v;
    }
    if (lt != c) return v;
    switch (lt) {
    case FLOE_TYPE_BOOL: v.k = PQS_I64; v.i = floe_array_get_bool(a, 0); break;
    case FLOE_TYPE_DATE32: v.k = PQS_I64; v.i = floe_array_get_int32(a, 0); break;
    case FLOE_TYPE_TIME64_US: case FLOE_TYPE_TIMESTAMP_US: case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS: case FLOE_TYPE_TIMESTAMP_NS_TZ:
        v.k = PQS_I64;
        v.i = floe_array_get_int64(a, 0);
        break;
    case FLOE_TYPE_STRING: case FLOE_TYPE_BINARY: {
        floe_strview s = floe_array_get_str(a, 0);
        v.k = PQS_BYTES;
        v.p = (const uint8_t *)s.data;
        v.n = (uint32_t)s.len;
        break;
    }
    default: break;
    }
    return v;
}

/* Bring a statistic into the literal's domain (ints widen to doubles). */
static bool same_domain(pqs_sval *stat, const pqs_sval *lit) {
    if (stat->k == PQS_I64 && lit->k == PQS_F64) {
        stat->k = PQS_F64;
        stat->d = (double)stat->i; /* monotonic, so bounds stay bounds */
    }
    return stat->k != PQS_NONE && stat->k == lit->k;
}

static int sval_cmp(const pqs_sval *a, const pqs_sval *b) {
    switch (a->k) {
    case PQS_I64: return a->i < b->i ? -1 : a->i > b->i;
    case PQS_F64: return a->d < b->d ? -1 : a->d > b->d;
    case PQS_BYTES: {
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
    pqs_sval l = literal_value(lit, ct);
    if (l.k == PQS_NONE) return true;
    const floe_pq_bytes *bmin = NULL, *bmax = NULL;
    if (!floe_pq_column_stats_bounds(f->col, f->stats, &bmin, &bmax)) return true;
    pqs_sval lo = pqs_stat_value(f->col, bmin, ct), hi = pqs_stat_value(f->col, bmax, ct);
    if (!same_domain(&lo, &l) || !same_domain(&hi, &l)) return true;
    if (sval_cmp(&lo, &hi) > 0) return true; /* nonsense statistics: trust nothing */
    if (l.k == PQS_F64 && (op == FLOE_CMP_GT || op == FLOE_CMP_GE || op == FLOE_CMP_NE)) {
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
        if (l.k == PQS_BYTES) exact = exact && f->stats->has_is_min_value_exact && f->stats->has_is_max_value_exact;
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
floe_status pqs_select_row_groups(const parquet_plan *p, const floe_pq_file *f, int32_t begin, int32_t end,
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
            for (int k = 0; key_of(p, i) < 0 && k < root->num_children; k++) {
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
void pqs_page_preds_free(pqs_page_preds *pp) {
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
    pqs_sval v = literal_value(lit, ct);
    switch (v.k) {
    case PQS_I64: out->kind = FLOE_PQ_VAL_INT; out->i = v.i; break;
    case PQS_F64: out->kind = FLOE_PQ_VAL_DOUBLE; out->d = v.d; break;
    case PQS_BYTES: out->kind = FLOE_PQ_VAL_BYTES; out->bytes = v.p; out->len = v.n; break;
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
                         pqs_page_preds *pp) {
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
        for (int k = 0; key_of(p, i) < 0 && !strchr(name, '.') && k < root->num_children; k++) {
            const floe_pq_field *fld = root->children[k];
            if (strcmp(fld->name, name) == 0 && fld->column && fld->column->max_rep_level == 0) leaves[i] = fld;
        }
    }
    *out = leaves;
    return NULL;
}

/* The page predicates for reading `f` (none without a pruning predicate). */
floe_status pqs_page_preds_make(const parquet_plan *p, const floe_pq_file *f, pqs_page_preds *pp) {
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
        pqs_page_preds_free(pp);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading '%s'", f->path);
    }
    add_conjunct(p, leaves, p->prune, pp);
    floe_free(leaves);
    return NULL;
}


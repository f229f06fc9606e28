/*
 * hash_agg.c — HashAggregate: GROUP BY with the aggregate registry's
 * functions (agg_func.h), in SINGLE, PARTIAL and FINAL mode.
 *
 * Each output partition aggregates its input partition on its own.  Per
 * input batch the work is column-at-a-time:
 *
 *   1. evaluate the group key expressions and every aggregate's argument
 *      (FINAL: key i is child column i); subexpressions they share are
 *      evaluated once (agg_cse.h: Q1's price * (1 - discount));
 *   2. give each row its group id.  Keys that fit 16 bytes (small fixed
 *      types, short strings) are packed into two words and looked up in
 *      agg_packed.c's table; otherwise hash every key row at once
 *      (floe_hash_rows), encode the key rows into one scratch buffer (see
 *      "key encoding" below) and probe an open-addressing table (linear
 *      probing, load <= 1/2, each slot tagged with hash bits), copying new
 *      keys into the table's key store.  A batch whose keys stop fitting
 *      moves the packed groups to the general table, ids unchanged;
 *   3. fold the argument columns in, a chunk of rows at a time, into the
 *      groups' state rows: one loop per (aggregate, type) for arguments
 *      without NULLs; with few groups the chunk is first ordered by group
 *      so each group's running value stays in a register, and sum(x) and
 *      avg(x) of the same x share one loop.
 *
 * Under a Filter that passes most rows, the node reads the filter's input
 * batch with the selected rows (filter_sel.h) instead of a copy: keys and
 * arguments are evaluated over the whole batch, only selected rows are
 * grouped and folded in.  If an evaluation fails (it may be a dropped
 * row's division by zero) the batch is redone on a copy of the selected
 * rows, so errors are exactly those of filtering first.
 *
 * Accumulator state is one fixed-size row per group (all aggregates'
 * sums, counts and flags side by side, so a row costs one or two cache
 * misses however many aggregates there are), grown geometrically: no
 * allocation per row; everything is charged through floe_malloc.  With no
 * group keys every row is group 0 and the output is exactly one row, also
 * for empty input.
 *
 * count(DISTINCT x) (and sum/avg/min/max DISTINCT), SINGLE mode only: a
 * second table per distinct call holds (group id, x) pairs; only rows
 * whose pair is new reach the accumulator.
 *
 * Key encoding: per key column one tag byte (0 NULL, 1 value) then the
 * value: BOOL 1 byte, fixed-width types their byte_width bytes (floats
 * normalised: -0.0 as 0.0, one NaN), STRING/BINARY a u32 length and the
 * bytes.  When every key column is fixed-width a NULL is zero-filled to
 * the same width, so all keys have one length and need no offsets.
 * Equal keys have equal encodings, so the table compares bytes; the
 * output decodes them back into columns.
 *
 * PARTIAL state layout (the columns after the group keys, per call, in
 * call order; FINAL derives the same layout from `input_schema`):
 *   count(*), count(x)     one int64 "<name>" (non-null)
 *   sum(x)                 one column of sum's result type "<name>"
 *                          (int64 / decimal(38,s) / float64; NULL if no value)
 *   min(x), max(x)         one column of x's type "<name>"
 *   avg(x)                 "<name>.sum" then "<name>.count" (int64):
 *                          the sum is float64 for float x, decimal(38,s) for
 *                          decimal(p,s) x and decimal(38,0) for integer x
 *   bool_and(x), bool_or   one bool "<name>"
 *   any call over a NULL-typed x: one all-NULL column of the result type
 *   other registry entries  one binary "<name>": the entry's serialized
 *                          state (agg_func.h; FINAL deserializes and
 *                          combines)
 *
 * Functions are entries of the aggregate registry (agg_func.h): the seven
 * above run on agg_kernels.c's fast loops, every other one through its
 * callbacks (agg_generic.c).  FILTER (WHERE p) folds in only the rows
 * where p is true.  A call with DISTINCT (other than the fast kinds'
 * DISTINCT table), ORDER BY or a holistic function collects its rows and
 * folds them, sorted, when the input ends (agg_generic.c); such calls run
 * in SINGLE mode only.
 *
 * Overflow: integer sums accumulate in int64 and overflow is an error
 * naming the aggregate and the group; decimal sums accumulate in 128 bits
 * and must fit decimal(38).
 *
 * The node is split by concern; hash_agg_internal.h lists the files (the
 * stream and consuming in agg_stream.c, the group table and key encoding
 * in agg_table.c, the update kernels in agg_kernels.c, output in
 * agg_emit.c) and holds what they share.  Here: the node itself.
 */
#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "exec/agg/hash_agg_internal.h"
#include "exec/expr/agg_cse.h"
#include "exec/plan_internal.h"
#include "exec/sort/sort_keys.h"
#include "floe/exec_ops.h"

/* ------------------------------------------------------------ the node */

/* agg_plan is in hash_agg_internal.h: the stream reads it. */

const char *floe_agg_fn_name(floe_agg_fn fn) {
    switch (fn) {
    case FLOE_AGG_COUNT_STAR:
    case FLOE_AGG_COUNT: return "count";
    case FLOE_AGG_SUM: return "sum";
    case FLOE_AGG_MIN: return "min";
    case FLOE_AGG_MAX: return "max";
    case FLOE_AGG_AVG: return "avg";
    case FLOE_AGG_BOOL_AND: return "bool_and";
    case FLOE_AGG_BOOL_OR: return "bool_or";
    case FLOE_AGG_NAMED: return "named";
    default: return "?";
    }
}

static const char *mode_name(floe_agg_mode m) {
    return m == FLOE_AGG_MODE_PARTIAL ? "Partial" : m == FLOE_AGG_MODE_FINAL ? "Final" : "Single";
}

static bool is_int(floe_type_id id) { return id == FLOE_TYPE_INT32 || id == FLOE_TYPE_INT64; }
static bool is_float(floe_type_id id) { return id == FLOE_TYPE_FLOAT32 || id == FLOE_TYPE_FLOAT64; }

/* Result type of `fn` over an argument of type `t` (NULL: count(*)). */
static floe_status result_type_of(floe_agg_fn fn, const floe_type *t, floe_type **out) {
    *out = NULL;
    if (fn == FLOE_AGG_COUNT_STAR || fn == FLOE_AGG_COUNT) {
        *out = floe_type_primitive(FLOE_TYPE_INT64);
        return NULL;
    }
    floe_type_id id = t->id;
    switch (fn) {
    case FLOE_AGG_SUM:
        if (id == FLOE_TYPE_NULL || is_int(id)) *out = floe_type_primitive(FLOE_TYPE_INT64);
        else if (is_float(id)) *out = floe_type_primitive(FLOE_TYPE_FLOAT64);
        else if (id == FLOE_TYPE_DECIMAL128) return floe_type_decimal(38, t->scale, out);
        break;
    case FLOE_AGG_AVG:
        if (id == FLOE_TYPE_NULL || is_int(id) || is_float(id) || id == FLOE_TYPE_DECIMAL128)
            *out = floe_type_primitive(FLOE_TYPE_FLOAT64);
        break;
    case FLOE_AGG_MIN:
    case FLOE_AGG_MAX:
        if (!floe_type_is_nested(t)) *out = floe_type_retain((floe_type *)t);
        break;
    case FLOE_AGG_BOOL_AND:
    case FLOE_AGG_BOOL_OR:
        if (id == FLOE_TYPE_BOOL || id == FLOE_TYPE_NULL) *out = floe_type_primitive(FLOE_TYPE_BOOL);
        break;
    default:
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unknown aggregate function %d", (int)fn);
    }
    if (!*out)
        return floe_error(FLOE_ERR_TYPE, "%s(%s) is not defined", floe_agg_fn_name(fn), floe_type_id_name(id));
    return NULL;
}

/* A registry call over these types (arg NULL: no argument). */
static floe_status named_info(const floe_agg_call *c, floe_type *arg, floe_type *arg2, floe_type *ord0,
                              agg_info *ai) {
    const agg_func *f = floe_agg_func_of(c);
    if (!f) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unknown aggregate function '%s'", floe_agg_call_func_name(c));
    floe_type *args[2] = {arg, arg2};
    int32_t n = arg ? (arg2 ? 2 : 1) : 0;
    floe_type *ord[4] = {ord0, NULL, NULL, NULL}; /* the entries read the first key's type only */
    return floe_agg_resolve(f, args, n, ord, c->n_order, ai);
}

floe_status floe_agg_result_type(const floe_agg_call *c, const floe_schema *input, floe_type **out) {
    *out = NULL;
    if (c->fn == FLOE_AGG_NAMED) {
        floe_type *t[3] = {NULL, NULL, NULL};
        floe_status st = NULL;
        if (c->arg) st = floe_status_wrap(floe_expr_type(c->arg, input, &t[0]), "%s argument", c->func);
        if (!st && c->arg2) st = floe_status_wrap(floe_expr_type(c->arg2, input, &t[1]), "%s argument", c->func);
        if (!st && c->n_order) st = floe_status_wrap(floe_expr_type(c->order[0].expr, input, &t[2]), "%s ORDER BY", c->func);
        agg_info ai;
        if (!st) st = named_info(c, t[0], t[1], t[2], &ai);
        if (!st) *out = ai.out_type;
        for (int i = 0; i < 3; i++) floe_type_release(t[i]);
        return st;
    }
    if (c->fn == FLOE_AGG_COUNT_STAR) return result_type_of(c->fn, NULL, out);
    if (!c->arg) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s needs an argument", floe_agg_fn_name(c->fn));
    floe_type *t;
    FLOE_TRY_CTX(floe_expr_type(c->arg, input, &t), "%s argument", floe_agg_fn_name(c->fn));
    floe_status st = result_type_of(c->fn, t, out);
    floe_type_release(t);
    return st;
}

/* ------------------------------------------------------- accumulators */

/* acc and its kinds are in hash_agg_internal.h. */

static phys phys_of(const floe_type *t) {
    switch (t->id) {
    case FLOE_TYPE_INT32:
    case FLOE_TYPE_DATE32: return PHYS_I32;
    case FLOE_TYPE_FLOAT32: return PHYS_F32;
    case FLOE_TYPE_FLOAT64: return PHYS_F64;
    case FLOE_TYPE_DECIMAL128: return PHYS_I128;
    case FLOE_TYPE_BOOL: return PHYS_BOOL;
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY: return PHYS_BYTES;
    case FLOE_TYPE_FIXED_BINARY:
    case FLOE_TYPE_UUID:
    case FLOE_TYPE_INTERVAL: return PHYS_FIXED;
    default: return PHYS_I64;
    }
}

/* Decide the accumulator for a call over `arg` (NULL: count(*)) and its
 * state column types.  Fills kind, ph, esz, scale, out_type, state_type. */
bool hagg_call_collects(const floe_agg_call *c) {
    if (!floe_agg_call_needs_single(c)) return false;
    /* the fast kinds' DISTINCT table serves plain DISTINCT */
    return c->fn == FLOE_AGG_NAMED || c->n_order > 0 || c->filter;
}

floe_status hagg_acc_setup(acc *a, const agg_plan *p, int32_t i) {
    const floe_agg_call *c = &p->calls[i];
    floe_type *arg = p->arg_types[i];
    a->call = c;
    a->arg_type = arg;
    if (c->fn == FLOE_AGG_NAMED) {
        FLOE_TRY(named_info(c, arg, p->arg2_types[i], p->ord0_types[i], &a->info));
        a->out_type = floe_type_retain(a->info.out_type);
        a->kind = a->info.fn->flags & AGGF_HOLISTIC ? ACC_HOLISTIC : ACC_GENERIC;
        a->esz = a->kind == ACC_GENERIC ? a->info.state_size : 0;
        a->state_type = floe_type_retain(floe_type_primitive(FLOE_TYPE_BINARY));
        return NULL;
    }
    FLOE_TRY(result_type_of(c->fn, arg, &a->out_type));
    bool null_arg = arg && arg->id == FLOE_TYPE_NULL;
    switch (c->fn) {
    case FLOE_AGG_COUNT_STAR: a->kind = ACC_COUNT_STAR; break;
    case FLOE_AGG_COUNT: a->kind = ACC_COUNT; break;
    case FLOE_AGG_SUM:
        a->kind = null_arg ? ACC_NULL : is_int(arg->id) ? ACC_SUM_I64 : is_float(arg->id) ? ACC_SUM_F64 : ACC_SUM_I128;
        a->esz = a->kind == ACC_SUM_I128 ? 16 : 8;
        break;
    case FLOE_AGG_AVG:
        a->kind = null_arg ? ACC_NULL : is_float(arg->id) ? ACC_AVG_F64 : ACC_AVG_I128;
        a->esz = a->kind == ACC_AVG_I128 ? 16 : 8;
        if (a->kind == ACC_AVG_I128) {
            a->scale = arg->id == FLOE_TYPE_DECIMAL128 ? arg->scale : 0;
            FLOE_TRY(floe_type_decimal(38, a->scale, &a->state_type));
        }
        break;
    case FLOE_AGG_MIN:
    case FLOE_AGG_MAX:
        a->kind = null_arg ? ACC_NULL : c->fn == FLOE_AGG_MIN ? ACC_MIN : ACC_MAX;
        a->ph = phys_of(arg);
        a->esz = a->ph == PHYS_BYTES ? sizeof(bval) : a->ph == PHYS_BOOL ? 1 : (size_t)arg->byte_width;
        break;
    case FLOE_AGG_BOOL_AND: a->kind = null_arg ? ACC_NULL : ACC_BOOL_AND; a->esz = 1; break;
    case FLOE_AGG_BOOL_OR: a->kind = null_arg ? ACC_NULL : ACC_BOOL_OR; a->esz = 1; break;
    default: break;
    }
    if (!a->state_type) a->state_type = floe_type_retain(a->kind == ACC_AVG_F64 ? floe_type_primitive(FLOE_TYPE_FLOAT64)
                                                                                 : a->out_type);
    return NULL;
}

int hagg_acc_state_cols(const acc *a) { return a->kind == ACC_AVG_F64 || a->kind == ACC_AVG_I128 ? 2 : 1; }

/* ---------------------------------------------------------- node parts */

static floe_status agg_encode(const floe_plan *p_, floe_buf *out) {
    const agg_plan *p = (const agg_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->mode));
    FLOE_TRY(floe_codec_put_i64(out, p->n_groups));
    for (int32_t i = 0; i < p->n_groups; i++) {
        FLOE_TRY(floe_codec_put_expr(out, p->groups[i]));
        FLOE_TRY(floe_codec_put_str(out, p->group_names[i]));
    }
    FLOE_TRY(floe_codec_put_i64(out, p->n_calls));
    for (int32_t i = 0; i < p->n_calls; i++) {
        const floe_agg_call *c = &p->calls[i];
        /* the function by its registry name (count(*): "count", no argument) */
        FLOE_TRY(floe_codec_put_str(out, floe_agg_call_func_name(c)));
        FLOE_TRY(floe_codec_put_i64(out, c->distinct));
        FLOE_TRY(floe_codec_put_i64(out, (c->arg != NULL) | (c->arg2 != NULL) << 1 | (c->filter != NULL) << 2));
        if (c->arg) FLOE_TRY(floe_codec_put_expr(out, c->arg));
        if (c->arg2) FLOE_TRY(floe_codec_put_expr(out, c->arg2));
        if (c->filter) FLOE_TRY(floe_codec_put_expr(out, c->filter));
        FLOE_TRY(floe_sk_encode(out, c->order, c->n_order));
        FLOE_TRY(floe_codec_put_str(out, c->name));
    }
    FLOE_TRY(floe_codec_put_i64(out, p->input_schema != NULL));
    if (p->input_schema) FLOE_TRY(floe_codec_put_type(out, p->input_schema));
    return NULL;
}

static floe_status agg_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "HashAggregate with %d children", n_children);
    int64_t mode = 0, ng = 0, nc = 0, has = 0;
    floe_expr **groups = NULL;
    char **names = NULL;
    floe_agg_call *calls = NULL;
    floe_type *in = NULL;
    int64_t got_g = 0, got_c = 0;
    floe_status st = floe_codec_get_i64(r, &mode);
    if (!st) st = floe_codec_get_i64(r, &ng);
    if (!st && (mode < 0 || mode > FLOE_AGG_MODE_FINAL || ng < 0 || ng > (int64_t)(r->len - r->pos)))
        st = floe_error(FLOE_ERR_CORRUPT, "HashAggregate: mode %lld, %lld group keys", (long long)mode, (long long)ng);
    if (!st && (!(groups = floe_calloc((size_t)ng + 1, sizeof *groups)) || !(names = floe_calloc((size_t)ng + 1, sizeof *names))))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding HashAggregate");
    for (; !st && got_g < ng; got_g++) {
        st = floe_codec_get_expr(r, &groups[got_g]);
        if (!st) st = floe_codec_get_str(r, &names[got_g]);
        if (st) { got_g++; break; }
    }
    if (!st) st = floe_codec_get_i64(r, &nc);
    if (!st && (nc < 0 || nc > (int64_t)(r->len - r->pos)))
        st = floe_error(FLOE_ERR_CORRUPT, "HashAggregate: %lld aggregates", (long long)nc);
    if (!st && !(calls = floe_calloc((size_t)nc + 1, sizeof *calls))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding HashAggregate");
    for (; !st && got_c < nc; got_c++) {
        int64_t distinct = 0, parts = 0;
        char *fname = NULL;
        floe_agg_call *c = &calls[got_c];
        st = floe_codec_get_str(r, &fname);
        if (!st) st = floe_codec_get_i64(r, &distinct);
        if (!st) st = floe_codec_get_i64(r, &parts);
        const agg_func *f = st ? NULL : floe_agg_lookup(fname);
        if (!st && !f) st = floe_error(FLOE_ERR_CORRUPT, "HashAggregate: unknown aggregate function '%s'", fname);
        if (!st) {
            c->fn = f->fast == FLOE_AGG_COUNT && !(parts & 1) ? FLOE_AGG_COUNT_STAR : f->fast;
            if (c->fn == FLOE_AGG_NAMED) c->func = fname, fname = NULL;
        }
        floe_free(fname);
        c->distinct = distinct != 0;
        if (!st && (parts & 1)) st = floe_codec_get_expr(r, &c->arg);
        if (!st && (parts & 2)) st = floe_codec_get_expr(r, &c->arg2);
        if (!st && (parts & 4)) st = floe_codec_get_expr(r, &c->filter);
        if (!st) st = floe_sk_decode(r, &c->order, &c->n_order);
        if (!st) st = floe_codec_get_str(r, &c->name);
        if (st) { got_c++; break; }
    }
    if (!st) st = floe_codec_get_i64(r, &has);
    if (!st && has) st = floe_codec_get_type(r, &in);
    if (!st)
        st = floe_plan_hash_aggregate(children[0], (floe_agg_mode)mode, groups, (const char *const *)names, (int32_t)ng,
                                      calls, (int32_t)nc, in, out);
    for (int64_t i = 0; i < got_g; i++) {
        floe_expr_release(groups[i]);
        floe_free(names[i]);
    }
    for (int64_t i = 0; i < got_c; i++) floe_agg_call_clear(&calls[i]);
    floe_free(groups);
    floe_free(names);
    floe_free(calls);
    floe_type_release(in);
    return st;
}

static floe_status agg_explain(const floe_plan *p_, floe_buf *out) {
    const agg_plan *p = (const agg_plan *)p_;
    FLOE_TRY(floe_buf_printf(out, "mode=%s, gby=[", mode_name(p->mode)));
    for (int32_t i = 0; i < p->n_groups; i++) {
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_expr_to_string(p->groups[i], out));
        FLOE_TRY(floe_buf_printf(out, " AS %s", p->group_names[i]));
    }
    FLOE_TRY(floe_buf_append_str(out, "], aggr=["));
    for (int32_t i = 0; i < p->n_calls; i++) {
        const floe_agg_call *c = &p->calls[i];
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_buf_printf(out, "%s(%s", floe_agg_call_func_name(c), c->distinct ? "DISTINCT " : ""));
        if (c->arg) FLOE_TRY(floe_expr_to_string(c->arg, out));
        else if (c->fn == FLOE_AGG_COUNT_STAR) FLOE_TRY(floe_buf_append_str(out, "*"));
        if (c->arg2) {
            FLOE_TRY(floe_buf_append_str(out, ", "));
            FLOE_TRY(floe_expr_to_string(c->arg2, out));
        }
        for (int32_t k = 0; k < c->n_order; k++) {
            FLOE_TRY(floe_buf_append_str(out, k ? ", " : " ORDER BY "));
            FLOE_TRY(floe_expr_to_string(c->order[k].expr, out));
            FLOE_TRY(floe_buf_printf(out, " %s NULLS %s", c->order[k].descending ? "DESC" : "ASC",
                                     c->order[k].nulls_first ? "FIRST" : "LAST"));
        }
        FLOE_TRY(floe_buf_append_str(out, ")"));
        if (c->filter) {
            FLOE_TRY(floe_buf_append_str(out, " FILTER (WHERE "));
            FLOE_TRY(floe_expr_to_string(c->filter, out));
            FLOE_TRY(floe_buf_append_str(out, ")"));
        }
        FLOE_TRY(floe_buf_printf(out, " AS %s", c->name));
    }
    return floe_buf_append_str(out, "]");
}

static floe_distribution agg_required(const floe_plan *p_, int32_t child) {
    const agg_plan *p = (const agg_plan *)p_;
    floe_distribution d = {FLOE_DIST_UNSPECIFIED, 0, NULL};
    (void)child;
    if (p->mode == FLOE_AGG_MODE_PARTIAL) return d;
    if (p->n_groups == 0) {
        d.kind = FLOE_DIST_SINGLE;
        return d;
    }
    d.kind = FLOE_DIST_HASH;
    d.n_exprs = p->n_groups;
    d.exprs = p->mode == FLOE_AGG_MODE_FINAL ? p->key_cols : p->groups;
    return d;
}

static void agg_free(floe_plan *p_) {
    agg_plan *p = (agg_plan *)p_;
    for (int32_t i = 0; i < p->n_groups; i++) {
        if (p->groups) floe_expr_release(p->groups[i]);
        if (p->group_names) floe_free(p->group_names[i]);
        if (p->key_cols) floe_expr_release(p->key_cols[i]);
    }
    floe_free(p->groups);
    floe_free(p->group_names);
    floe_free(p->key_cols);
    for (int32_t i = 0; i < p->n_calls; i++) {
        if (p->calls) floe_agg_call_clear(&p->calls[i]);
        if (p->arg_types) floe_type_release(p->arg_types[i]);
        if (p->arg2_types) floe_type_release(p->arg2_types[i]);
        if (p->ord0_types) floe_type_release(p->ord0_types[i]);
    }
    floe_free(p->calls);
    floe_free(p->arg_types);
    floe_free(p->arg2_types);
    floe_free(p->ord0_types);
    floe_type_release(p->input_schema);
    floe_cse_free(p->cse);
}

const floe_plan_vtable floe_hash_aggregate_vt = {
    .name = "HashAggregate",
    .execute = hagg_execute,
    .encode_parts = agg_encode,
    .decode_parts = agg_decode,
    .explain_parts = agg_explain,
    .required_input = agg_required,
    .free_parts = agg_free,
    .child_read = floe_exec_child_read_local,
};

/* ---------------------------------------------------------- constructor */

/* Output fields (and, for PARTIAL, the state fields) of the node. */
static floe_status build_schema(agg_plan *p, const floe_schema *in, floe_schema **out) {
    int32_t n = p->n_groups, cap = p->n_groups + 2 * p->n_calls + 1;
    floe_field *f = floe_calloc((size_t)cap, sizeof *f);
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate schema");
    floe_status st = NULL;
    int32_t k = 0;
    for (int32_t i = 0; i < n && !st; i++) {
        floe_type *t = NULL;
        st = floe_status_wrap_op(floe_expr_type(p->groups[i], in, &t), "HashAggregate group key '%s'", p->group_names[i]);
        if (!st && !hagg_key_type_ok(t))
            st = floe_error(FLOE_ERR_UNSUPPORTED, "HashAggregate: cannot group by '%s' of type %s", p->group_names[i],
                            floe_type_id_name(t->id));
        if (!st) st = floe_field_init(&f[k++], p->group_names[i], t, true, -1);
        floe_type_release(t);
    }
    for (int32_t i = 0; i < p->n_calls && !st; i++) {
        const floe_agg_call *c = &p->calls[i];
        if (c->arg) {
            st = floe_status_wrap_op(floe_expr_type(c->arg, in, &p->arg_types[i]), "aggregate '%s'", c->name);
            if (!st && floe_type_is_nested(p->arg_types[i]) && c->fn != FLOE_AGG_COUNT && c->fn != FLOE_AGG_NAMED)
                st = floe_error(FLOE_ERR_TYPE, "aggregate '%s': %s over %s is not supported", c->name,
                                floe_agg_fn_name(c->fn), floe_type_id_name(p->arg_types[i]->id));
            if (!st && c->distinct && floe_type_is_nested(p->arg_types[i]))
                st = floe_error(FLOE_ERR_UNSUPPORTED, "aggregate '%s': DISTINCT over %s", c->name,
                                floe_type_id_name(p->arg_types[i]->id));
        }
        if (!st && c->arg2)
            st = floe_status_wrap_op(floe_expr_type(c->arg2, in, &p->arg2_types[i]), "aggregate '%s'", c->name);
        if (!st && c->n_order)
            st = floe_status_wrap_op(floe_expr_type(c->order[0].expr, in, &p->ord0_types[i]), "aggregate '%s'", c->name);
        for (int32_t o = 1; !st && o < c->n_order; o++) {
            floe_type *t = NULL;
            st = floe_status_wrap_op(floe_expr_type(c->order[o].expr, in, &t), "aggregate '%s'", c->name);
            floe_type_release(t);
        }
        if (!st && c->filter) {
            floe_type *t = NULL;
            st = floe_status_wrap_op(floe_expr_type(c->filter, in, &t), "aggregate '%s' FILTER", c->name);
            if (!st && t->id != FLOE_TYPE_BOOL && t->id != FLOE_TYPE_NULL)
                st = floe_error(FLOE_ERR_TYPE, "aggregate '%s': FILTER must be boolean, not %s", c->name,
                                floe_type_id_name(t->id));
            floe_type_release(t);
        }
        acc a = {0};
        if (!st) st = floe_status_wrap_op(hagg_acc_setup(&a, p, i), "aggregate '%s'", c->name);
        if (!st && p->mode == FLOE_AGG_MODE_PARTIAL) {
            if (hagg_acc_state_cols(&a) == 2) {
                char *n1 = floe_malloc(strlen(c->name) + 8), *n2 = floe_malloc(strlen(c->name) + 8);
                if (!n1 || !n2) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate schema");
                if (!st) {
                    sprintf(n1, "%s.sum", c->name);
                    sprintf(n2, "%s.count", c->name);
                    st = floe_field_init(&f[k++], n1, a.state_type, true, -1);
                }
                if (!st) st = floe_field_init(&f[k++], n2, floe_type_primitive(FLOE_TYPE_INT64), false, -1);
                floe_free(n1);
                floe_free(n2);
            } else {
                bool nullable = !(a.kind == ACC_COUNT || a.kind == ACC_COUNT_STAR || a.kind == ACC_GENERIC);
                st = floe_field_init(&f[k++], c->name, a.state_type, nullable, -1);
            }
        } else if (!st) {
            bool nullable = !(a.kind == ACC_COUNT || a.kind == ACC_COUNT_STAR);
            st = floe_field_init(&f[k++], c->name, a.out_type, nullable, -1);
        }
        floe_type_release(a.out_type);
        floe_type_release(a.state_type);
        floe_type_release(a.info.out_type);
    }
    if (!st) st = floe_type_struct(f, k, out);
    for (int32_t i = 0; i < k; i++) floe_field_clear(&f[i]);
    floe_free(f);
    return st;
}

/* The PARTIAL layout (group keys, then every call's state columns) of a
 * node built over `in`. */
static floe_status partial_schema(const agg_plan *p, const floe_schema *in, floe_schema **out) {
    agg_plan tmp = *p;
    tmp.mode = FLOE_AGG_MODE_PARTIAL;
    size_t nt = (size_t)(p->n_calls ? p->n_calls : 1);
    floe_type **types = floe_calloc(3 * nt, sizeof *types);
    if (!types) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate");
    tmp.arg_types = types;
    tmp.arg2_types = types + nt;
    tmp.ord0_types = types + 2 * nt;
    floe_status st = build_schema(&tmp, in, out);
    for (size_t i = 0; i < 3 * nt; i++) floe_type_release(types[i]);
    floe_free(types);
    return st;
}

floe_status hagg_state_schema(const agg_plan *p, floe_schema **out) {
    if (p->mode == FLOE_AGG_MODE_PARTIAL) {
        *out = floe_type_retain(p->head.schema);
        return NULL;
    }
    return partial_schema(p, p->mode == FLOE_AGG_MODE_FINAL ? p->input_schema : p->head.children[0]->schema, out);
}

/* FINAL: the child must carry the PARTIAL layout built from input_schema. */
static floe_status check_final_input(agg_plan *p, const floe_schema *child) {
    floe_schema *want = NULL;
    FLOE_TRY(partial_schema(p, p->input_schema, &want));
    floe_status st = NULL;
    bool ok = floe_schema_num_fields(want) == floe_schema_num_fields(child);
    for (int32_t i = 0; ok && i < floe_schema_num_fields(want); i++)
        ok = floe_type_compatible(want->children[i].type, child->children[i].type);
    if (!ok) {
        floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
        floe_status_free(floe_type_to_string(want, &a));
        floe_status_free(floe_type_to_string(child, &b));
        st = floe_error(FLOE_ERR_TYPE, "HashAggregate FINAL: the child gives %s, the partial state is %s",
                        floe_buf_cstr(&b), floe_buf_cstr(&a));
        floe_buf_free(&a);
        floe_buf_free(&b);
    }
    floe_type_release(want);
    return st;
}

floe_status floe_plan_hash_aggregate(floe_plan *child, floe_agg_mode mode, floe_expr *const *group_exprs,
                                     const char *const *group_names, int32_t n_groups, const floe_agg_call *calls,
                                     int32_t n_calls, const floe_schema *input_schema, floe_plan **out) {
    *out = NULL;
    if (mode < FLOE_AGG_MODE_SINGLE || mode > FLOE_AGG_MODE_FINAL || n_groups < 0 || n_calls < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashAggregate: mode %d, %d groups, %d aggregates", (int)mode,
                          n_groups, n_calls);
    if (mode == FLOE_AGG_MODE_FINAL && !input_schema)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashAggregate FINAL needs the partial node's input schema");
    if (mode != FLOE_AGG_MODE_PARTIAL && n_groups == 0 && child->n_partitions != 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "HashAggregate %s without group keys needs one input partition, not %d", mode_name(mode),
                          child->n_partitions);
    for (int32_t i = 0; i < n_groups; i++)
        if (!group_exprs[i] || !group_names[i])
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashAggregate: group key %d has no expression or name", i);
    for (int32_t i = 0; i < n_calls; i++) {
        const floe_agg_call *c = &calls[i];
        if (!c->name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashAggregate: aggregate %d has no name", i);
        if ((int)c->fn < 0 || c->fn >= FLOE_AGG_FN_COUNT_)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "aggregate '%s': unknown function %d", c->name, (int)c->fn);
        if (c->fn == FLOE_AGG_NAMED && !floe_agg_lookup(c->func))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "aggregate '%s': unknown function '%s'", c->name,
                              c->func ? c->func : "(none)");
        if (c->n_order < 0 || (c->n_order && !c->order))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "aggregate '%s': bad ORDER BY", c->name);
        if (floe_agg_call_needs_single(c) && mode != FLOE_AGG_MODE_SINGLE)
            return floe_error(FLOE_ERR_UNSUPPORTED,
                              "aggregate '%s': %s(DISTINCT / ORDER BY / holistic) runs in SINGLE mode only", c->name,
                              floe_agg_call_func_name(c));
        if (c->fn != FLOE_AGG_NAMED && c->arg2)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "aggregate '%s': %s takes one argument", c->name,
                              floe_agg_fn_name(c->fn));
        if (c->fn != FLOE_AGG_NAMED && (c->fn == FLOE_AGG_COUNT_STAR) != (c->arg == NULL))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "aggregate '%s': %s", c->name,
                              c->arg ? "count(*) takes no argument" : "missing argument");
        if (c->distinct && (mode != FLOE_AGG_MODE_SINGLE || c->fn == FLOE_AGG_COUNT_STAR))
            return floe_error(FLOE_ERR_UNSUPPORTED, "aggregate '%s': DISTINCT only in SINGLE mode and with an argument",
                              c->name);
    }
    agg_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a HashAggregate node");
    p->head.vt = &floe_hash_aggregate_vt; /* releasable before init */
    atomic_init(&p->head.refcount_, 1);
    p->mode = mode;
    floe_status st = NULL;
    size_t ng = (size_t)(n_groups ? n_groups : 1), nc = (size_t)(n_calls ? n_calls : 1);
    p->groups = floe_calloc(ng, sizeof *p->groups);
    p->group_names = floe_calloc(ng, sizeof *p->group_names);
    p->key_cols = floe_calloc(ng, sizeof *p->key_cols);
    p->calls = floe_calloc(nc, sizeof *p->calls);
    p->arg_types = floe_calloc(nc, sizeof *p->arg_types);
    p->arg2_types = floe_calloc(nc, sizeof *p->arg2_types);
    p->ord0_types = floe_calloc(nc, sizeof *p->ord0_types);
    if (!p->groups || !p->group_names || !p->key_cols || !p->calls || !p->arg_types || !p->arg2_types || !p->ord0_types)
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a HashAggregate node");
    for (int32_t i = 0; i < n_groups && !st; i++) {
        p->groups[i] = floe_expr_retain(group_exprs[i]);
        p->group_names[i] = floe_strdup(group_names[i]);
        p->n_groups = i + 1;
        st = floe_expr_column(i, &p->key_cols[i]);
        if (!st && !p->group_names[i]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a HashAggregate node");
    }
    for (int32_t i = 0; i < n_calls && !st; i++) {
        st = floe_agg_call_copy(&calls[i], &p->calls[i]);
        p->n_calls = i + 1;
    }
    if (!st && mode == FLOE_AGG_MODE_FINAL) p->input_schema = floe_type_retain((floe_type *)input_schema);
    floe_schema *schema = NULL;
    const floe_schema *in = mode == FLOE_AGG_MODE_FINAL ? input_schema : child->schema;
    if (!st) st = build_schema(p, in, &schema);
    if (!st && mode == FLOE_AGG_MODE_FINAL) st = check_final_input(p, child->schema);
    if (!st && mode != FLOE_AGG_MODE_FINAL) {
        /* keys then arguments, as eval_inputs reads them */
        floe_expr **all = floe_calloc((size_t)(n_groups + n_calls + 1), sizeof *all);
        if (!all) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a HashAggregate node");
        for (int32_t i = 0; all && i < n_groups; i++) all[i] = p->groups[i];
        for (int32_t i = 0; all && i < n_calls; i++) all[n_groups + i] = p->calls[i].arg;
        if (!st) st = floe_cse_build(all, n_groups + n_calls, in, &p->cse);
        floe_free(all);
    }
    if (!st) st = floe_exec_plan_init(&p->head, &floe_hash_aggregate_vt, schema, child->n_partitions, &child, 1);
    floe_type_release(schema);
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

floe_agg_mode floe_hash_aggregate_mode(const floe_plan *p) { return ((const agg_plan *)p)->mode; }
int32_t floe_hash_aggregate_num_groups(const floe_plan *p) { return ((const agg_plan *)p)->n_groups; }
const floe_expr *floe_hash_aggregate_group(const floe_plan *p, int32_t i) { return ((const agg_plan *)p)->groups[i]; }
const char *floe_hash_aggregate_group_name(const floe_plan *p, int32_t i) {
    return ((const agg_plan *)p)->group_names[i];
}
int32_t floe_hash_aggregate_num_calls(const floe_plan *p) { return ((const agg_plan *)p)->n_calls; }
const floe_agg_call *floe_hash_aggregate_call(const floe_plan *p, int32_t i) { return &((const agg_plan *)p)->calls[i]; }
const floe_schema *floe_hash_aggregate_input_schema(const floe_plan *p) { return ((const agg_plan *)p)->input_schema; }

/*
 * agg_emit.c — HashAggregate's output: batches of up to batch_size groups,
 * the group keys decoded from the packed or the general table, then per
 * call its final value (SINGLE, FINAL) or its state columns (PARTIAL).
 */
#include <math.h>
#include <string.h>

#include "exec/agg/hash_agg_internal.h"
#include "floe/memory.h"

/* ------------------------------------------------------------- output */

static floe_status bits_from_seen(const uint8_t *seen, int64_t n, uint8_t **out) {
    uint8_t *b = floe_calloc((size_t)(n / 8 + 1), 1);
    if (!b) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: output validity");
    for (int64_t i = 0; i < n; i++)
        if (seen[i]) floe_bit_set(b, i);
    *out = b;
    return NULL;
}

static const i128 DEC38_MAX = (((i128)0x4b3b4ca85a86c47aLL) << 64) + (i128)0x098a223fffffffffULL; /* 10^38 - 1 */

/* One output column for groups [g0, g0+m): the final value (state=false)
 * or state column `which` (state=true). */
static floe_status acc_emit(agg_stream *s, acc *a, int64_t g0, int64_t m, bool state, int which, floe_array **out) {
    if (a->kind == ACC_GENERIC || a->kind == ACC_HOLISTIC) return hagg_generic_emit(s, a, g0, m, state, out);
    floe_type *t = state ? (which == 1 ? floe_type_primitive(FLOE_TYPE_INT64) : a->state_type) : a->out_type;
    floe_builder *b = NULL;
    uint8_t *bits = NULL, *seen = NULL, *vals = NULL;
    int64_t *cnt = NULL;
    double *tmp = NULL;
    floe_status st = floe_builder_new(t, m, &b);
    if (st) return st;
    /* gather the strided fields of these groups into plain arrays */
    size_t mm = (size_t)(m ? m : 1);
    seen = floe_malloc(mm);
    cnt = floe_malloc_array(mm, sizeof *cnt);
    vals = a->esz ? floe_malloc_array(mm, a->esz) : NULL;
    if (!seen || !cnt || (a->esz && !vals)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: output");
    for (int64_t i = 0; i < m && !st; i++) {
        int64_t g = g0 + i;
        cnt[i] = needs_cnt(a->kind) ? ACNT(a, g) : 0;
        seen[i] = needs_seen(a->kind) ? ASEEN(a, g) : cnt[i] > 0;
        if (vals) memcpy(vals + (size_t)i * a->esz, &AV(uint8_t, a, g), a->esz);
    }
    if (st) goto done;
    switch (a->kind) {
    case ACC_COUNT_STAR:
    case ACC_COUNT:
        st = floe_builder_append_int64_values(b, cnt, m, NULL);
        break;
    case ACC_NULL:
    case ACC_GENERIC:  /* not here: hagg_generic_emit */
    case ACC_HOLISTIC:
        st = floe_builder_append_nulls(b, m);
        break;
    case ACC_AVG_F64:
    case ACC_AVG_I128:
        if (state && which == 1) {
            st = floe_builder_append_int64_values(b, cnt, m, NULL);
            break;
        }
        if (state) {
            st = bits_from_seen(seen, m, &bits);
            if (!st) st = floe_builder_append_values(b, vals, m, bits);
            break;
        }
        if (!(tmp = floe_malloc_array(mm, sizeof *tmp))) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: output");
            break;
        }
        for (int64_t i = 0; i < m; i++) {
            if (!cnt[i]) { tmp[i] = 0; continue; }
            if (a->kind == ACC_AVG_F64) tmp[i] = ((double *)vals)[i] / (double)cnt[i];
            else tmp[i] = (double)load_i128(vals + (size_t)i * 16) / pow(10.0, a->scale) / (double)cnt[i];
        }
        st = bits_from_seen(seen, m, &bits);
        if (!st) st = floe_builder_append_double_values(b, tmp, m, bits);
        break;
    case ACC_SUM_I128:
        for (int64_t i = 0; i < m && !st; i++) {
            i128 v = load_i128(vals + (size_t)i * 16);
            if (seen[i] && (v > DEC38_MAX || v < -DEC38_MAX))
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "sum(...) AS %s: decimal(38, %d) overflow", a->call->name,
                                a->out_type->scale);
        }
        /* fall through */
    case ACC_SUM_I64:
    case ACC_SUM_F64:
    case ACC_BOOL_AND:
    case ACC_BOOL_OR:
    case ACC_MIN:
    case ACC_MAX:
        if (st) break;
        if (a->ph == PHYS_BYTES && (a->kind == ACC_MIN || a->kind == ACC_MAX)) {
            const bval *v = (const bval *)vals;
            for (int64_t i = 0; i < m && !st; i++)
                st = seen[i] ? floe_builder_append_binary(b, v[i].p ? (const void *)v[i].p : "", v[i].len)
                             : floe_builder_append_null(b);
            break;
        }
        if (a->kind == ACC_BOOL_AND || a->kind == ACC_BOOL_OR ||
            ((a->kind == ACC_MIN || a->kind == ACC_MAX) && a->ph == PHYS_BOOL)) {
            for (int64_t i = 0; i < m && !st; i++)
                st = seen[i] ? floe_builder_append_bool(b, vals[i] != 0) : floe_builder_append_null(b);
            break;
        }
        st = bits_from_seen(seen, m, &bits);
        if (!st) st = floe_builder_append_values(b, vals, m, bits);
        break;
    }
done:
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    floe_free(bits);
    floe_free(tmp);
    floe_free(seen);
    floe_free(cnt);
    floe_free(vals);
    return st;
}

/* Decode group key column c of groups [g0, g0+m); cur[i] walks group
 * g0+i's key bytes and is advanced past the column. */
static floe_status emit_key(const gtable *t, floe_type *type, int64_t m, uint64_t *cur, floe_array **out) {
    floe_builder *b;
    FLOE_TRY(floe_builder_new(type, m, &b));
    floe_status st = NULL;
    for (int64_t i = 0; i < m && !st; i++) {
        const uint8_t *p = t->keys + cur[i];
        if (*p == 0) {
            cur[i] += t->kw ? 1 + (type->id == FLOE_TYPE_BOOL ? 1 : (uint64_t)(type->byte_width > 0 ? type->byte_width : 0)) : 1;
            st = floe_builder_append_null(b);
            continue;
        }
        p++;
        switch (type->id) {
        case FLOE_TYPE_BOOL: st = floe_builder_append_bool(b, *p != 0); cur[i] += 2; break;
        case FLOE_TYPE_STRING:
        case FLOE_TYPE_BINARY: {
            uint32_t len;
            memcpy(&len, p, 4);
            st = floe_builder_append_binary(b, p + 4, len);
            cur[i] += 5 + len;
            break;
        }
        default:
            st = floe_builder_append_values(b, p, 1, NULL);
            cur[i] += 1 + (uint64_t)type->byte_width;
            break;
        }
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

/* An interval key column: the keys hold totals, the values are the ones
 * the groups first met (gtable.iv_first; j = which interval key). */
static floe_status emit_interval_key(const gtable *t, int32_t j, int64_t g0, int64_t m, uint64_t *cur,
                                     floe_array **out) {
    floe_builder *b;
    FLOE_TRY(floe_builder_new(floe_type_primitive(FLOE_TYPE_INTERVAL), m, &b));
    floe_status st = NULL;
    for (int64_t i = 0; i < m && !st; i++) {
        const uint8_t *p = t->keys + cur[i];
        cur[i] += (*p == 0 && !t->kw) ? 1 : 17;
        if (*p == 0) st = floe_builder_append_null(b);
        else if (!t->iv_first || j >= t->n_iv)
            st = floe_error(FLOE_ERR_INTERNAL, "HashAggregate: interval key values were not kept");
        else st = floe_builder_append_fixed(b, t->iv_first + ((size_t)(g0 + i) * (size_t)t->n_iv + (size_t)j) * 16);
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

/* Groups [g0, g0+m) as one batch of `schema`: the keys, then per call its
 * final value or (state) its state columns. */
floe_status hagg_emit_range(agg_stream *s, int64_t g0, int64_t m, bool state, floe_schema *schema,
                            floe_batch **out) {
    const agg_plan *p = s->p;
    int32_t ncol = floe_schema_num_fields(schema);
    floe_array **cols = floe_calloc((size_t)ncol, sizeof *cols);
    uint64_t *cur = floe_malloc_array((size_t)(m ? m : 1), sizeof *cur);
    floe_status st = cols && cur ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: output batch");
    if (!st && p->n_groups && !s->packed)
        for (int64_t i = 0; i < m; i++) cur[i] = s->gt.kw ? (uint64_t)(g0 + i) * s->gt.kw : s->gt.koff[g0 + i];
    int32_t c = 0;
    if (!st && p->n_groups && s->packed) {
        st = floe_pk_decode(&s->pl, &s->pt, s->key_types, g0, m, cols);
        c = p->n_groups;
    }
    for (int32_t j = 0; !st && c < p->n_groups; c++) {
        floe_type *kt = p->head.schema->children[c].type;
        if (kt->id == FLOE_TYPE_INTERVAL) st = emit_interval_key(&s->gt, j++, g0, m, cur, &cols[c]);
        else st = emit_key(&s->gt, kt, m, cur, &cols[c]);
    }
    for (int32_t i = 0; !st && i < p->n_calls; i++) {
        acc *a = &s->accs[i];
        if (!state) {
            st = acc_emit(s, a, g0, m, false, 0, &cols[c++]);
        } else {
            for (int w = 0; w < hagg_acc_state_cols(a) && !st; w++) st = acc_emit(s, a, g0, m, true, w, &cols[c++]);
        }
    }
    if (!st && c != ncol) st = floe_error(FLOE_ERR_INTERNAL, "HashAggregate: %d output columns for %d fields", c, ncol);
    if (!st) st = floe_batch_new(schema, cols, ncol, m, out);
    for (int32_t i = 0; cols && i < ncol; i++) floe_array_release(cols[i]);
    floe_free(cols);
    floe_free(cur);
    return st;
}

/* The next output batch of up to batch_size groups, or NULL when done. */
floe_status hagg_emit_batch(agg_stream *s, floe_batch **out) {
    int64_t total = hagg_n_groups_of(s);
    if (s->emitted >= total) return NULL;
    int64_t g0 = s->emitted, m = total - g0;
    if (m > s->batch_size) m = s->batch_size;
    FLOE_TRY(hagg_emit_range(s, g0, m, s->p->mode == FLOE_AGG_MODE_PARTIAL, s->p->head.schema, out));
    s->emitted += m;
    return NULL;
}

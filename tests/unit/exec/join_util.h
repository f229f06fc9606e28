/*
 * join_util.h — random join inputs and a naive reference join for the
 * HashJoin and NestedLoopJoin tests.
 *
 * A side has columns k1 int32 (small range, some NULL), k2 string (a few
 * values, some NULL) and id int64 (left ids 0.., right ids 100000..).  A
 * join result is compared as the sorted list of (left id, right id) pairs,
 * -1 standing for a padded (NULL) or absent side.
 */
#ifndef FLOE_TEST_JOIN_UTIL_H
#define FLOE_TEST_JOIN_UTIL_H

#include "exec_util.h"
#include "floe/exec_ops.h"

typedef struct jrow {
    int32_t k1;
    bool k1_null;
    char k2[3];
    bool k2_null;
    int64_t id;
} jrow;

static uint64_t jrng = 0x9e3779b97f4a7c15ull;
static inline uint64_t jrnd(void) {
    jrng ^= jrng << 13;
    jrng ^= jrng >> 7;
    jrng ^= jrng << 17;
    return jrng;
}

static inline void jrows_random(jrow *r, int64_t n, int64_t id0, int32_t key_range, int null_pct) {
    for (int64_t i = 0; i < n; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].k1 = (int32_t)(jrnd() % (uint64_t)key_range);
        r[i].k1_null = (int)(jrnd() % 100) < null_pct;
        r[i].k2[0] = (char)('x' + jrnd() % 2);
        r[i].k2_null = (int)(jrnd() % 100) < null_pct;
        r[i].id = id0 + i;
    }
}

static inline floe_schema *jschema(const char *prefix) {
    floe_field f[3];
    char n1[16], n2[16], n3[16];
    snprintf(n1, sizeof n1, "%sk1", prefix);
    snprintf(n2, sizeof n2, "%sk2", prefix);
    snprintf(n3, sizeof n3, "%sid", prefix);
    assert_ok(floe_field_init(&f[0], n1, floe_type_primitive(FLOE_TYPE_INT32), true, -1));
    assert_ok(floe_field_init(&f[1], n2, floe_type_primitive(FLOE_TYPE_STRING), true, -1));
    assert_ok(floe_field_init(&f[2], n3, floe_type_primitive(FLOE_TYPE_INT64), false, -1));
    floe_schema *s;
    assert_ok(floe_type_struct(f, 3, &s));
    for (int i = 0; i < 3; i++) floe_field_clear(&f[i]);
    return s;
}

static inline floe_batch *jbatch(const char *prefix, const jrow *r, const int64_t *which, int64_t n) {
    floe_schema *sch = jschema(prefix);
    floe_builder *b[3];
    floe_array *cols[3];
    for (int c = 0; c < 3; c++) assert_ok(floe_builder_new(sch->children[c].type, n, &b[c]));
    for (int64_t j = 0; j < n; j++) {
        const jrow *x = &r[which ? which[j] : j];
        assert_ok(x->k1_null ? floe_builder_append_null(b[0]) : floe_builder_append_int32(b[0], x->k1));
        assert_ok(x->k2_null ? floe_builder_append_null(b[1]) : floe_builder_append_string(b[1], x->k2));
        assert_ok(floe_builder_append_int64(b[2], x->id));
    }
    for (int c = 0; c < 3; c++) {
        assert_ok(floe_builder_finish(b[c], &cols[c]));
        floe_builder_free(b[c]);
    }
    floe_batch *out;
    assert_ok(floe_batch_new(sch, cols, 3, n, &out));
    for (int c = 0; c < 3; c++) floe_array_release(cols[c]);
    floe_type_release(sch);
    return out;
}

/* Values over rows in batches of `per`, dealt over `parts` partitions; or,
 * when by_key, partition i holds exactly the rows with k1 % parts == i
 * (NULL k1 in partition 0), as a hash repartition on k1 would. */
static inline floe_plan *jplan(const char *prefix, const jrow *r, int64_t n, int64_t per, int32_t parts, bool by_key) {
    floe_schema *sch = jschema(prefix);
    floe_plan *p;
    if (!by_key) {
        int64_t nb = (n + per - 1) / per;
        floe_batch **bs = calloc((size_t)(nb ? nb : 1), sizeof *bs);
        for (int64_t k = 0; k < nb; k++) bs[k] = jbatch(prefix, r + k * per, NULL, n - k * per < per ? n - k * per : per);
        assert_ok(floe_plan_values(sch, bs, (int32_t)nb, parts, &p));
        for (int64_t k = 0; k < nb; k++) floe_batch_release(bs[k]);
        free(bs);
    } else {
        floe_batch **bs = calloc((size_t)parts, sizeof *bs);
        int64_t *which = malloc((size_t)(n ? n : 1) * sizeof *which);
        for (int32_t q = 0; q < parts; q++) {
            int64_t m = 0;
            for (int64_t i = 0; i < n; i++)
                if ((r[i].k1_null ? 0 : r[i].k1 % parts) == q) which[m++] = i;
            bs[q] = jbatch(prefix, r, which, m);
        }
        assert_ok(floe_plan_values(sch, bs, parts, parts, &p));
        for (int32_t q = 0; q < parts; q++) floe_batch_release(bs[q]);
        free(bs);
        free(which);
    }
    floe_type_release(sch);
    return p;
}

typedef struct jpair {
    int64_t l, r;
} jpair;

static inline int jpair_cmp(const void *a, const void *b) {
    const jpair *x = a, *y = b;
    if (x->l != y->l) return x->l < y->l ? -1 : 1;
    return x->r < y->r ? -1 : x->r > y->r;
}

/* The reference join condition: keys equal (n_keys 1: k1; 2: k1 and k2),
 * NULLs equal only when nen; then the filter (l.id + r.id) % 3 != 0 when
 * `filter`. */
static inline bool jkeys_equal(const jrow *l, const jrow *r, int n_keys, bool nen) {
    if (l->k1_null || r->k1_null) {
        if (!(nen && l->k1_null && r->k1_null)) return false;
    } else if (l->k1 != r->k1) {
        return false;
    }
    if (n_keys < 2) return true;
    if (l->k2_null || r->k2_null) return nen && l->k2_null && r->k2_null;
    return strcmp(l->k2, r->k2) == 0;
}
static inline bool jfilter(const jrow *l, const jrow *r, bool filter) { return !filter || (l->id + r->id) % 3 != 0; }

/* A null-aware (NOT IN) "match": the filter holds, the correlation key k2
 * (when n_keys is 2) is equal, and k1 is equal or NULL on either side. */
static inline bool jna_match(const jrow *l, const jrow *r, bool filter, int n_keys) {
    if (!jfilter(l, r, filter)) return false;
    if (n_keys > 1 && (l->k2_null || r->k2_null || strcmp(l->k2, r->k2) != 0)) return false;
    return l->k1_null || r->k1_null || l->k1 == r->k1;
}

/* n_keys 0 means "no key condition" (a nested-loop join on the filter only). */
static inline jpair *jreference(floe_join_type type, const jrow *L, int64_t nl, const jrow *R, int64_t nr, int n_keys,
                                bool nen, bool filter, bool null_aware, int64_t *n_out) {
    int64_t cap = nl * nr + nl + nr + 1, n = 0;
    jpair *out = malloc((size_t)cap * sizeof *out);
    bool *lm = calloc((size_t)(nl ? nl : 1), 1), *rm = calloc((size_t)(nr ? nr : 1), 1);
    for (int64_t i = 0; i < nl; i++)
        for (int64_t j = 0; j < nr; j++) {
            bool m = null_aware ? jna_match(&L[i], &R[j], filter, n_keys)
                                : (n_keys == 0 || jkeys_equal(&L[i], &R[j], n_keys, nen)) && jfilter(&L[i], &R[j], filter);
            if (!m) continue;
            lm[i] = rm[j] = true;
            if (type == FLOE_JOIN_INNER || type == FLOE_JOIN_LEFT || type == FLOE_JOIN_RIGHT || type == FLOE_JOIN_FULL)
                out[n++] = (jpair){L[i].id, R[j].id};
        }
    for (int64_t i = 0; i < nl; i++) {
        if ((type == FLOE_JOIN_LEFT || type == FLOE_JOIN_FULL || type == FLOE_JOIN_LEFT_ANTI) && !lm[i])
            out[n++] = (jpair){L[i].id, -1};
        if (type == FLOE_JOIN_LEFT_SEMI && lm[i]) out[n++] = (jpair){L[i].id, -1};
    }
    for (int64_t j = 0; j < nr; j++) {
        if ((type == FLOE_JOIN_RIGHT || type == FLOE_JOIN_FULL) && !rm[j]) out[n++] = (jpair){-1, R[j].id};
        if (type == FLOE_JOIN_RIGHT_ANTI && !rm[j]) out[n++] = (jpair){-1, R[j].id};
        if (type == FLOE_JOIN_RIGHT_SEMI && rm[j]) out[n++] = (jpair){-1, R[j].id};
    }
    free(lm);
    free(rm);
    qsort(out, (size_t)n, sizeof *out, jpair_cmp);
    *n_out = n;
    return out;
}

/* The (left id, right id) pairs of a join result. */
static inline jpair *jresult(const floe_plan *p, const floe_exec_ctx *ctx, floe_join_type type, int64_t *n_out) {
    floe_batch **bs;
    int64_t nb, n = 0;
    assert_ok(floe_exec_collect(p, ctx, &bs, &nb));
    int64_t total = 0;
    for (int64_t k = 0; k < nb; k++) total += bs[k]->num_rows;
    jpair *out = malloc((size_t)(total ? total : 1) * sizeof *out);
    bool only_right = type == FLOE_JOIN_RIGHT_SEMI || type == FLOE_JOIN_RIGHT_ANTI;
    bool only_left = type == FLOE_JOIN_LEFT_SEMI || type == FLOE_JOIN_LEFT_ANTI;
    for (int64_t k = 0; k < nb; k++) {
        const floe_batch *b = bs[k];
        assert_true(b->num_rows > 0);
        assert_true(b->num_rows <= ctx->batch_size);
        assert_int_equal(b->num_columns, only_left || only_right ? 3 : 6);
        for (int64_t i = 0; i < b->num_rows; i++) {
            const floe_array *lid = only_right ? NULL : b->columns[2];
            const floe_array *rid = only_left ? NULL : b->columns[only_right ? 2 : 5];
            out[n].l = !lid || floe_array_is_null(lid, i) ? -1 : floe_array_get_int64(lid, i);
            out[n].r = !rid || floe_array_is_null(rid, i) ? -1 : floe_array_get_int64(rid, i);
            n++;
        }
    }
    floe_exec_batches_free(bs, nb);
    qsort(out, (size_t)n, sizeof *out, jpair_cmp);
    *n_out = n;
    return out;
}

static inline void jexpect_equal(const jpair *got, int64_t ng, const jpair *want, int64_t nw, const char *what) {
    if (ng != nw) fail_msg("%s: %lld rows, expected %lld", what, (long long)ng, (long long)nw);
    for (int64_t i = 0; i < ng; i++)
        if (got[i].l != want[i].l || got[i].r != want[i].r)
            fail_msg("%s: row %lld is (%lld, %lld), expected (%lld, %lld)", what, (long long)i, (long long)got[i].l,
                     (long long)got[i].r, (long long)want[i].l, (long long)want[i].r);
}

/* The filter (l.id + r.id) % 3 != 0 over left ++ right (ids at 2 and 5). */
static inline floe_expr *jfilter_expr(void) {
    floe_expr *a, *b, *sum, *three, *mod, *zero, *ne;
    assert_ok(floe_expr_column(2, &a));
    assert_ok(floe_expr_column(5, &b));
    assert_ok(floe_expr_arith(FLOE_ARITH_ADD, a, b, &sum));
    assert_ok(floe_expr_lit_int64(3, &three));
    assert_ok(floe_expr_arith(FLOE_ARITH_MOD, sum, three, &mod));
    assert_ok(floe_expr_lit_int64(0, &zero));
    assert_ok(floe_expr_cmp(FLOE_CMP_NE, mod, zero, &ne));
    floe_expr_release(a);
    floe_expr_release(b);
    floe_expr_release(sum);
    floe_expr_release(three);
    floe_expr_release(mod);
    floe_expr_release(zero);
    return ne;
}

#endif

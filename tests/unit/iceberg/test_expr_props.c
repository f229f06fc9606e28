/* Brute-force properties of the expression evaluators: many random small
 * data sets (edge values: NaN, -0.0, nulls, extremes, pre-epoch instants,
 * multi-byte and 0xff strings) with metrics and partition values computed
 * exactly as a writer would (string/binary bounds truncated and the upper
 * one incremented), and many random predicates.  Whenever some row
 * matches, the inclusive metrics evaluator, the inclusive partition
 * projection and the manifest evaluator must say "might match"; the strict
 * evaluator and strict projection may say "all match" only when all rows
 * do; residuals must agree with the full predicate on every row of their
 * partition; and NOT push-down must not change any row's answer. */
#include <math.h>

#include "floe_test.h"

#include "floe/iceberg_expr.h"
#include "floe/iceberg_schema.h"
#include "floe/memory.h"

#define N_COLS 12
#define MAX_ROWS 6

enum { C_I = 1, C_L, C_F, C_D, C_S, C_DT, C_TS, C_DEC, C_TSN, C_B, C_TSTZ, C_NESTED };

/* How often each evaluator decided something: the properties are only
 * worth something if the evaluators actually prune. */
static long n_files, n_metrics_pruned, n_metrics_all, n_rows, n_part_pruned, n_part_all, n_manifest_pruned;

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static const char *const strings[] = {
    "", "a", "aa", "ab", "abc", "abd", "abcd", "abce", "abcz", "abc\xc3\xa9", "ab\xc3\xa9", "b", "ba", "bz",
    "\xc3\xa9", "\xc3\xa9t\xc3\xa9", "\xf4\x8f\xbf\xbf", "a\xf4\x8f\xbf\xbf", "ab\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf",
    "zzzz", "\xe2\x82\xac", "a\xe2\x82\xac\xe2\x82\xac", "abcab", "A", "abc\xf4\x8f\xbf\xbf", "aba",
};
static const char *const binaries[] = {
    "", "a", "ab", "abc", "abc\xff", "abc\xff\xff", "abd", "\xff", "\xff\xff", "b", "ab\xff", "a\x00", "abcd",
};
static const size_t binary_lens[] = {0, 1, 2, 3, 4, 5, 3, 1, 2, 1, 3, 2, 4};

static const int32_t ints[] = {-17, -16, -15, -11, -10, -6, -5, -4, -1, 0, 1, 4, 5, 6, 9, 10, 11, 15, 16, 17};
static const int64_t longs[] = {INT64_MIN + 5, -9, -3, -2, -1, 0, 1, 2, 3, 8, 9, INT64_MAX};
static const double doubles[] = {NAN, -INFINITY, -2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 1.5, 2.5, INFINITY, -NAN};
static const int32_t dates[] = {-366, -365, -32, -31, -30, -1, 0, 1, 30, 31, 59, 364, 365, 366};
#define H INT64_C(3600000000)
#define D (24 * H)
static const int64_t stamps[] = {-366 * D,     -365 * D - 1, -D - 1, -D, -D + 1, -H - 1, -H, -1, 0, 1,
                                 H - 1,        H,            D - 1,  D,  D + 1,  31 * D, 365 * D, 365 * D - 1,
                                 -31 * D - 1,  -31 * D};
static const int64_t decs[] = {-10001, -10000, -151, -150, -101, -100, -99, -51, -50, -49, -1, 0,
                               1,      49,     50,   51,   99,   100,  101,  150, 10000};

static floe_ice_value gen(int col) {
    switch (col) {
    case C_I:
    case C_NESTED: return floe_ice_int(ints[rnd(sizeof ints / sizeof ints[0])]);
    case C_L: return floe_ice_long(longs[rnd(sizeof longs / sizeof longs[0])]);
    case C_F: return floe_ice_float((float)doubles[rnd(sizeof doubles / sizeof doubles[0])]);
    case C_D: return floe_ice_double(doubles[rnd(sizeof doubles / sizeof doubles[0])]);
    case C_S: return floe_ice_string_z(strings[rnd(sizeof strings / sizeof strings[0])]);
    case C_DT: return floe_ice_date(dates[rnd(sizeof dates / sizeof dates[0])]);
    case C_TS: return floe_ice_timestamp(stamps[rnd(sizeof stamps / sizeof stamps[0])] + (rnd(4) == 0 ? (int64_t)rnd(7200) * 1000000 - 3600000000 : 0));
    case C_TSTZ: return floe_ice_timestamptz(stamps[rnd(sizeof stamps / sizeof stamps[0])]);
    case C_DEC: return floe_ice_decimal(decs[rnd(sizeof decs / sizeof decs[0])], 2);
    case C_TSN: return floe_ice_timestamp_ns(stamps[rnd(sizeof stamps / sizeof stamps[0])] * 1000 + (int64_t)rnd(3) - 1);
    case C_B: {
        uint32_t k = rnd(sizeof binaries / sizeof binaries[0]);
        return floe_ice_binary((const uint8_t *)binaries[k], binary_lens[k]);
    }
    }
    return floe_ice_null(FLOE_ICE_INT);
}

static const char *const col_names[] = {"", "i", "l", "f", "d", "s", "dt", "ts", "dec", "tsn", "b", "tstz", "st.x"};
static const char *const col_types[] = {"",     "int",         "long", "float", "double", "string", "date",
                                        "timestamp", "decimal(9,2)", "timestamp_ns", "binary", "timestamptz", "int"};

static floe_ice_schema *make_schema(void) {
    floe_ice_type *root = NULL;
    assert_ok(floe_ice_type_struct(&root));
    for (int c = 1; c < C_NESTED; c++) {
        floe_ice_type *t = NULL;
        assert_ok(floe_ice_type_parse(col_types[c], &t));
        assert_ok(floe_ice_struct_add_field(root, c, col_names[c], false, t, NULL));
    }
    /* st: struct<12: x: optional int>, bound by the dotted name "st.x" */
    floe_ice_type *st = NULL, *x = NULL;
    assert_ok(floe_ice_type_struct(&st));
    assert_ok(floe_ice_type_parse("int", &x));
    assert_ok(floe_ice_struct_add_field(st, C_NESTED, "x", false, x, NULL));
    assert_ok(floe_ice_struct_add_field(root, 100, "st", false, st, NULL));
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_new(0, root, NULL, 0, &s));
    return s;
}

static floe_ice_partition_spec *make_spec(void) {
    static const struct {
        int src;
        floe_ice_transform_kind k;
        int p;
    } f[] = {
        {C_I, FLOE_ICE_TRANSFORM_IDENTITY, 0}, {C_I, FLOE_ICE_TRANSFORM_BUCKET, 4},
        {C_I, FLOE_ICE_TRANSFORM_TRUNCATE, 5}, {C_L, FLOE_ICE_TRANSFORM_TRUNCATE, 3},
        {C_S, FLOE_ICE_TRANSFORM_IDENTITY, 0}, {C_S, FLOE_ICE_TRANSFORM_TRUNCATE, 2},
        {C_S, FLOE_ICE_TRANSFORM_TRUNCATE, 1}, {C_TS, FLOE_ICE_TRANSFORM_DAY, 0},
        {C_TS, FLOE_ICE_TRANSFORM_HOUR, 0},    {C_DT, FLOE_ICE_TRANSFORM_MONTH, 0},
        {C_TS, FLOE_ICE_TRANSFORM_YEAR, 0},    {C_DT, FLOE_ICE_TRANSFORM_DAY, 0},
        {C_F, FLOE_ICE_TRANSFORM_IDENTITY, 0}, {C_DEC, FLOE_ICE_TRANSFORM_TRUNCATE, 50},
        {C_S, FLOE_ICE_TRANSFORM_BUCKET, 3},   {C_L, FLOE_ICE_TRANSFORM_VOID, 0},
        {C_B, FLOE_ICE_TRANSFORM_TRUNCATE, 2}, {C_D, FLOE_ICE_TRANSFORM_IDENTITY, 0},
        {C_DT, FLOE_ICE_TRANSFORM_YEAR, 0},    {C_TS, FLOE_ICE_TRANSFORM_MONTH, 0},
        {C_TS, FLOE_ICE_TRANSFORM_BUCKET, 5},  {C_DEC, FLOE_ICE_TRANSFORM_IDENTITY, 0},
        {C_TSN, FLOE_ICE_TRANSFORM_DAY, 0},    {C_TSN, FLOE_ICE_TRANSFORM_HOUR, 0},
        {C_B, FLOE_ICE_TRANSFORM_IDENTITY, 0}, {C_TSTZ, FLOE_ICE_TRANSFORM_DAY, 0},
        {C_S, FLOE_ICE_TRANSFORM_TRUNCATE, 3}, {C_L, FLOE_ICE_TRANSFORM_IDENTITY, 0},
        {C_DT, FLOE_ICE_TRANSFORM_IDENTITY, 0}, {C_TSTZ, FLOE_ICE_TRANSFORM_HOUR, 0},
        {C_NESTED, FLOE_ICE_TRANSFORM_TRUNCATE, 4}, {C_NESTED, FLOE_ICE_TRANSFORM_BUCKET, 2},
    };
    floe_ice_partition_spec *spec = NULL;
    assert_ok(floe_ice_partition_spec_new(0, &spec));
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "p%zu", i);
        assert_ok(floe_ice_partition_spec_add(spec, f[i].src, 1000 + (int32_t)i, name,
                                              floe_ice_transform_make(f[i].k, f[i].p)));
    }
    return spec;
}

/* ---- writer-side metrics ------------------------------------------------- */

/* Iceberg's truncated upper bound: first w code points (bytes for binary)
 * with the last one incremented; dropping maxed-out ones; none if all are. */
static bool truncate_upper(const floe_ice_value *v, size_t w, uint8_t *buf, size_t *len) {
    size_t n;
    if (v->type == FLOE_ICE_STRING) n = floe_ice_utf8_prefix_len(v->v.bytes.data, v->v.bytes.len, (int32_t)w);
    else n = v->v.bytes.len < w ? v->v.bytes.len : w;
    memcpy(buf, v->v.bytes.data, v->v.bytes.len);
    if (n == v->v.bytes.len) {
        *len = n;
        return true;
    }
    if (v->type != FLOE_ICE_STRING) {
        while (n > 0) {
            if (buf[n - 1] != 0xff) {
                buf[n - 1]++;
                *len = n;
                return true;
            }
            n--;
        }
        return false;
    }
    /* strings: increment the last code point below U+10FFFF (test pool has
     * only ASCII, é, € and U+10FFFF, so simple cases suffice) */
    while (n > 0) {
        size_t start = n - 1;
        while (start > 0 && (buf[start] & 0xC0) == 0x80) start--;
        if (n - start == 1 && buf[start] < 0x7f) {
            buf[start]++;
            *len = n;
            return true;
        }
        if (n - start == 2 && buf[start + 1] < 0xbf) {
            buf[start + 1]++;
            *len = n;
            return true;
        }
        if (n - start == 3 && buf[start + 2] < 0xbf) {
            buf[start + 2]++;
            *len = n;
            return true;
        }
        n = start; /* U+10FFFF or a carry: drop it */
    }
    return false;
}

typedef struct dataset {
    int n;
    floe_ice_value rows[MAX_ROWS][N_COLS + 1];
    int32_t ids[N_COLS];
    floe_ice_field_metrics fm[N_COLS];
    uint8_t lo[N_COLS][64], hi[N_COLS][64];
    floe_ice_file_metrics m;
} dataset;

static void gen_dataset(dataset *ds) {
    ds->n = (int)rnd(MAX_ROWS + 1);
    for (int r = 0; r < ds->n; r++)
        for (int c = 1; c <= N_COLS; c++) {
            ds->rows[r][c] = rnd(5) == 0 ? floe_ice_null(gen(c).type) : gen(c);
        }
    int nf = 0;
    for (int c = 1; c <= N_COLS; c++) {
        ds->ids[c - 1] = c;
        if (rnd(12) == 0) continue; /* no metrics for this column */
        floe_ice_field_metrics *f = &ds->fm[nf++];
        memset(f, 0, sizeof *f);
        f->field_id = c;
        int64_t nulls = 0, nans = 0;
        const floe_ice_value *lo = NULL, *hi = NULL;
        for (int r = 0; r < ds->n; r++) {
            const floe_ice_value *v = &ds->rows[r][c];
            if (v->is_null) {
                nulls++;
                continue;
            }
            bool nan = (v->type == FLOE_ICE_FLOAT && isnan(v->v.f32)) || (v->type == FLOE_ICE_DOUBLE && isnan(v->v.f64));
            if (nan) {
                nans++;
                continue;
            }
            if (!lo || floe_ice_value_compare(v, lo) < 0) lo = v;
            if (!hi || floe_ice_value_compare(v, hi) > 0) hi = v;
        }
        f->value_count = rnd(10) == 0 ? -1 : ds->n;
        f->null_count = rnd(10) == 0 ? -1 : nulls;
        bool is_float = c == C_F || c == C_D;
        f->nan_count = !is_float ? (rnd(2) ? -1 : 0) : rnd(8) == 0 ? -1 : nans;
        if (lo && rnd(10) != 0) {
            uint8_t *b = NULL;
            size_t n = 0;
            assert_ok(floe_ice_value_to_bytes(lo, &b, &n));
            bool bytes = lo->type == FLOE_ICE_STRING || lo->type == FLOE_ICE_BINARY;
            if (bytes && rnd(2)) {
                size_t w = 1 + rnd(3);
                n = lo->type == FLOE_ICE_STRING ? floe_ice_utf8_prefix_len(b, n, (int32_t)w) : (n < w ? n : w);
            }
            memcpy(ds->lo[c - 1], b, n);
            floe_free(b);
            f->lower = ds->lo[c - 1];
            f->lower_len = n;
        }
        if (hi && rnd(10) != 0) {
            uint8_t *b = NULL;
            size_t n = 0;
            assert_ok(floe_ice_value_to_bytes(hi, &b, &n));
            bool bytes = hi->type == FLOE_ICE_STRING || hi->type == FLOE_ICE_BINARY;
            memcpy(ds->hi[c - 1], b, n);
            f->upper = ds->hi[c - 1];
            f->upper_len = n;
            if (bytes && rnd(2)) {
                floe_ice_value view = *hi;
                if (!truncate_upper(&view, 1 + rnd(3), ds->hi[c - 1], &f->upper_len)) f->upper = NULL;
            }
            floe_free(b);
        }
    }
    ds->m.record_count = ds->n;
    ds->m.n_fields = nf;
    ds->m.fields = ds->fm;
}

/* ---- random predicates --------------------------------------------------- */

static floe_ice_expr *gen_pred(void) {
    int c = 1 + (int)rnd(N_COLS);
    bool is_float = c == C_F || c == C_D;
    bool is_string = c == C_S;
    for (;;) {
        floe_ice_expr_op op = (floe_ice_expr_op)(FLOE_ICE_EXPR_IS_NULL + rnd(FLOE_ICE_EXPR_NOT_IN - FLOE_ICE_EXPR_IS_NULL + 1));
        if ((op == FLOE_ICE_EXPR_IS_NAN || op == FLOE_ICE_EXPR_NOT_NAN) && !is_float) continue;
        if ((op == FLOE_ICE_EXPR_STARTS_WITH || op == FLOE_ICE_EXPR_NOT_STARTS_WITH) && !is_string) continue;
        if (op <= FLOE_ICE_EXPR_NOT_NAN) return floe_ice_expr_unary(op, col_names[c]);
        if (op == FLOE_ICE_EXPR_IN || op == FLOE_ICE_EXPR_NOT_IN) {
            floe_ice_value vals[12];
            int n = 0, want = 1 + (int)rnd(rnd(4) == 0 ? 12 : 4);
            while (n < want) {
                vals[n] = gen(c);
                if ((vals[n].type == FLOE_ICE_FLOAT && isnan(vals[n].v.f32)) ||
                    (vals[n].type == FLOE_ICE_DOUBLE && isnan(vals[n].v.f64)))
                    continue;
                n++;
            }
            return floe_ice_expr_set(op, col_names[c], vals, n);
        }
        floe_ice_value v = gen(c);
        if ((v.type == FLOE_ICE_FLOAT && isnan(v.v.f32)) || (v.type == FLOE_ICE_DOUBLE && isnan(v.v.f64))) continue;
        /* ints sometimes compared with out-of-range longs */
        if (c == C_I && rnd(8) == 0) v = floe_ice_long(rnd(2) ? INT64_C(3000000000) : -INT64_C(3000000000));
        return floe_ice_expr_literal(op, col_names[c], &v);
    }
}

static floe_ice_expr *gen_expr(int depth) {
    uint32_t k = depth > 0 ? rnd(6) : 0;
    if (k <= 2) return gen_pred();
    if (k == 3) return floe_ice_expr_and(gen_expr(depth - 1), gen_expr(depth - 1));
    if (k == 4) return floe_ice_expr_or(gen_expr(depth - 1), gen_expr(depth - 1));
    return floe_ice_expr_not(gen_expr(depth - 1));
}

/* ---- the properties ------------------------------------------------------ */

static void describe(const char *what, const floe_ice_expr *e, const dataset *ds) {
    char *s = NULL;
    assert_ok(floe_ice_expr_to_string(e, &s));
    fprintf(stderr, "FAILED %s: %s over %d rows\n", what, s, ds->n);
    for (int r = 0; r < ds->n; r++) {
        fprintf(stderr, "  row %d:", r);
        for (int c = 1; c <= N_COLS; c++) {
            char *v = NULL;
            assert_ok(floe_ice_value_to_string(&ds->rows[r][c], &v));
            fprintf(stderr, " %s=%s", col_names[c], v);
            floe_free(v);
        }
        fprintf(stderr, "\n");
    }
    floe_free(s);
}

static void partition_of(const floe_ice_partition_spec *spec, const floe_ice_value *row, floe_ice_value *out) {
    for (int32_t i = 0; i < spec->n_fields; i++)
        assert_ok(floe_ice_transform_apply(&spec->fields[i].transform, &row[spec->fields[i].source_id], &out[i]));
}

static void check_manifest(const floe_ice_partition_spec *spec, const floe_ice_expr *projected, const dataset *ds,
                           bool any) {
    floe_ice_value parts[MAX_ROWS][64];
    for (int r = 0; r < ds->n; r++) partition_of(spec, ds->rows[r], parts[r]);
    floe_ice_partition_summary sums[64];
    uint8_t *owned[128];
    int n_owned = 0;
    for (int32_t i = 0; i < spec->n_fields; i++) {
        floe_ice_partition_summary *s = &sums[i];
        memset(s, 0, sizeof *s);
        s->field_id = spec->fields[i].field_id;
        s->contains_nan = 0;
        const floe_ice_value *lo = NULL, *hi = NULL;
        for (int r = 0; r < ds->n; r++) {
            const floe_ice_value *v = &parts[r][i];
            if (v->is_null) s->contains_null = true;
            else if ((v->type == FLOE_ICE_FLOAT && isnan(v->v.f32)) || (v->type == FLOE_ICE_DOUBLE && isnan(v->v.f64)))
                s->contains_nan = 1;
            else {
                if (!lo || floe_ice_value_compare(v, lo) < 0) lo = v;
                if (!hi || floe_ice_value_compare(v, hi) > 0) hi = v;
            }
        }
        if (lo) {
            uint8_t *b;
            assert_ok(floe_ice_value_to_bytes(lo, &b, &s->lower_len));
            s->lower = owned[n_owned++] = b;
            assert_ok(floe_ice_value_to_bytes(hi, &b, &s->upper_len));
            s->upper = owned[n_owned++] = b;
        }
    }
    bool might;
    assert_ok(floe_ice_manifest_might_match(projected, sums, spec->n_fields, &might));
    n_manifest_pruned += !might;
    if (any && !might) {
        describe("manifest pruning", projected, ds);
        fail();
    }
    for (int i = 0; i < n_owned; i++) floe_free(owned[i]);
}

static void json_round_trip(const floe_ice_expr *e) {
    char *a = NULL, *b = NULL;
    floe_ice_expr *back = NULL;
    assert_ok(floe_ice_expr_to_json_text(e, &a));
    assert_ok(floe_ice_expr_from_json_text(a, &back));
    assert_ok(floe_ice_expr_to_json_text(back, &b));
    if (strcmp(a, b) != 0 || !floe_ice_expr_equals(e, back)) fail_msg("JSON round trip changed %s into %s", a, b);
    floe_free(a);
    floe_free(b);
    floe_ice_expr_free(back);
}

static void check_one(const floe_ice_schema *schema, const floe_ice_partition_spec *spec, const floe_ice_expr *ub,
                      const dataset *ds) {
    floe_ice_expr *bound = NULL, *rw = NULL, *incl = NULL, *strict = NULL;
    assert_ok(floe_ice_expr_bind(ub, schema, true, &bound));
    json_round_trip(ub);
    json_round_trip(bound);
    assert_ok(floe_ice_expr_rewrite_not(bound, &rw));
    assert_ok(floe_ice_expr_project_inclusive(bound, spec, &incl));
    assert_ok(floe_ice_expr_project_strict(bound, spec, &strict));

    bool any = false, all = true;
    for (int r = 0; r < ds->n; r++) {
        floe_ice_row row = {N_COLS, ds->ids, &ds->rows[r][1]};
        bool m = floe_ice_expr_eval_row(bound, &row);
        if (floe_ice_expr_eval_row(rw, &row) != m) {
            describe("NOT rewrite", bound, ds);
            fail();
        }
        any |= m;
        all &= m;
        /* partition-level checks on this row alone */
        floe_ice_value part[64];
        partition_of(spec, ds->rows[r], part);
        int32_t pids[64];
        for (int32_t i = 0; i < spec->n_fields; i++) pids[i] = spec->fields[i].field_id;
        floe_ice_row prow = {spec->n_fields, pids, part};
        if (floe_ice_partition_might_match(incl, spec, part) != floe_ice_expr_eval_row(incl, &prow)) {
            describe("partition tuple evaluation", incl, ds);
            fail();
        }
        n_rows++;
        n_part_pruned += !floe_ice_expr_eval_row(incl, &prow);
        n_part_all += floe_ice_expr_eval_row(strict, &prow);
        if (m && !floe_ice_expr_eval_row(incl, &prow)) {
            describe("inclusive projection", bound, ds);
            fail();
        }
        if (!m && floe_ice_expr_eval_row(strict, &prow)) {
            describe("strict projection", bound, ds);
            fail();
        }
        floe_ice_expr *res = NULL;
        assert_ok(floe_ice_expr_residual(bound, spec, part, spec->n_fields, &res));
        if (floe_ice_expr_eval_row(res, &row) != m) {
            describe("residual", bound, ds);
            fail();
        }
        floe_ice_expr_free(res);
    }
    bool might, must;
    assert_ok(floe_ice_metrics_might_match(rw, &ds->m, &might));
    assert_ok(floe_ice_metrics_all_match(rw, &ds->m, &must));
    n_files++;
    n_metrics_pruned += !might;
    n_metrics_all += must;
    if (any && !might) {
        describe("inclusive metrics", rw, ds);
        fail();
    }
    if (must && !all) {
        describe("strict metrics", rw, ds);
        fail();
    }
    check_manifest(spec, incl, ds, any);
    floe_ice_expr_free(bound);
    floe_ice_expr_free(rw);
    floe_ice_expr_free(incl);
    floe_ice_expr_free(strict);
}

static void evaluators_never_drop_a_matching_file(void **state) {
    (void)state;
    floe_ice_schema *schema = make_schema();
    floe_ice_partition_spec *spec = make_spec();
    assert_ok(floe_ice_partition_spec_validate(spec, schema));
    static dataset ds;
    for (int iter = 0; iter < 3000; iter++) {
        gen_dataset(&ds);
        for (int k = 0; k < 8; k++) {
            floe_ice_expr *e = gen_expr(2);
            assert_non_null(e);
            check_one(schema, spec, e, &ds);
            floe_ice_expr_free(e);
        }
    }
    floe_ice_partition_spec_free(spec);
    floe_ice_schema_free(schema);
}

/* The same, with single predicates so that each transform's projection
 * is exercised in isolation many times. */
static void single_predicates_never_drop_a_matching_file(void **state) {
    (void)state;
    floe_ice_schema *schema = make_schema();
    floe_ice_partition_spec *spec = make_spec();
    static dataset ds;
    for (int iter = 0; iter < 4000; iter++) {
        gen_dataset(&ds);
        for (int k = 0; k < 8; k++) {
            floe_ice_expr *e = gen_pred();
            assert_non_null(e);
            check_one(schema, spec, e, &ds);
            floe_ice_expr_free(e);
        }
    }
    floe_ice_partition_spec_free(spec);
    floe_ice_schema_free(schema);
    fprintf(stderr, "files %ld: metrics pruned %ld, all-match %ld, manifests pruned %ld; rows %ld: partition pruned %ld, "
                    "all-match %ld\n", n_files, n_metrics_pruned, n_metrics_all, n_manifest_pruned, n_rows,
            n_part_pruned, n_part_all);
    assert_true(n_metrics_pruned > n_files / 10);
    assert_true(n_metrics_all > n_files / 20);
    assert_true(n_manifest_pruned > n_files / 10);
    assert_true(n_part_pruned > n_rows / 10);
    assert_true(n_part_all > n_rows / 20);
}

FLOE_TEST_MAIN(cmocka_unit_test(single_predicates_never_drop_a_matching_file),
               cmocka_unit_test(evaluators_never_drop_a_matching_file))

/* Targeted boundary cases for projection and the evaluators: pre-epoch
 * time projections (with Java's fix-ups for writers that rounded toward
 * zero), truncate[W] with starts_with longer and shorter than W, bucket and
 * void, truncated string/binary bounds, NaN and null counts, bounds equal
 * to the literal, large in/not_in sets, manifest summaries, and residuals. */
#include <math.h>

#include "floe_test.h"

#include "floe/iceberg_expr.h"
#include "floe/memory.h"

enum { F_I = 1, F_S, F_TS, F_F, F_B, F_DEC, F_TAGS, F_TAG };

static floe_ice_schema *schema(void) {
    const char *json =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"i\",\"required\":false,\"type\":\"int\"},"
        "{\"id\":2,\"name\":\"s\",\"required\":false,\"type\":\"string\"},"
        "{\"id\":3,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"},"
        "{\"id\":4,\"name\":\"f\",\"required\":false,\"type\":\"double\"},"
        "{\"id\":5,\"name\":\"b\",\"required\":false,\"type\":\"binary\"},"
        "{\"id\":6,\"name\":\"dec\",\"required\":false,\"type\":\"decimal(9,2)\"},"
        "{\"id\":7,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":8,"
        "  \"element\":\"int\",\"element-required\":false}}]}";
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(json, &s));
    return s;
}

static floe_ice_expr *bind(floe_ice_expr *e) {
    floe_ice_schema *s = schema();
    floe_ice_expr *b = NULL;
    assert_non_null(e);
    assert_ok(floe_ice_expr_bind(e, s, true, &b));
    floe_ice_expr_free(e);
    floe_ice_schema_free(s);
    return b;
}

static floe_ice_expr *lit(floe_ice_expr_op op, const char *col, floe_ice_value v) {
    return floe_ice_expr_literal(op, col, &v);
}

static floe_ice_partition_spec *spec1(int32_t source, floe_ice_transform_kind k, int32_t param) {
    floe_ice_partition_spec *spec = NULL;
    assert_ok(floe_ice_partition_spec_new(0, &spec));
    assert_ok(floe_ice_partition_spec_add(spec, source, 1000, "p", floe_ice_transform_make(k, param)));
    return spec;
}

/* Project `e` (unbound, consumed) onto a one-field spec and compare text. */
static void expect_projection(floe_ice_expr *e, int32_t source, floe_ice_transform_kind k, int32_t param,
                              const char *inclusive, const char *strict) {
    floe_ice_expr *b = bind(e);
    floe_ice_partition_spec *spec = spec1(source, k, param);
    floe_ice_expr *p = NULL;
    char *s = NULL;
    assert_ok(floe_ice_expr_project_inclusive(b, spec, &p));
    assert_ok(floe_ice_expr_to_string(p, &s));
    if (strcmp(s, inclusive) != 0) fail_msg("inclusive projection '%s', expected '%s'", s, inclusive);
    floe_free(s);
    floe_ice_expr_free(p);
    assert_ok(floe_ice_expr_project_strict(b, spec, &p));
    assert_ok(floe_ice_expr_to_string(p, &s));
    if (strcmp(s, strict) != 0) fail_msg("strict projection '%s', expected '%s'", s, strict);
    floe_free(s);
    floe_ice_expr_free(p);
    floe_ice_partition_spec_free(spec);
    floe_ice_expr_free(b);
}

static void time_projections_absorb_pre_epoch_rounding(void **state) {
    (void)state;
    /* ts < 1970-01-01T00:00 holds for ts = -1 µs, whose day is -1 (and was
     * 0 for writers that rounded toward zero): both partitions kept. */
    expect_projection(lit(FLOE_ICE_EXPR_LT, "ts", floe_ice_timestamp(0)), F_TS, FLOE_ICE_TRANSFORM_DAY, 0,
                      "p <= \"1970-01-01\"", "p < \"1970-01-01\"");
    expect_projection(lit(FLOE_ICE_EXPR_EQ, "ts", floe_ice_timestamp(-1)), F_TS, FLOE_ICE_TRANSFORM_DAY, 0,
                      "p in (\"1969-12-31\", \"1970-01-01\")", "false");
    expect_projection(lit(FLOE_ICE_EXPR_NOT_EQ, "ts", floe_ice_timestamp(-1)), F_TS, FLOE_ICE_TRANSFORM_DAY, 0,
                      "true", "p not_in (\"1969-12-31\", \"1970-01-01\")");
    expect_projection(lit(FLOE_ICE_EXPR_GT, "ts", floe_ice_timestamp(-1)), F_TS, FLOE_ICE_TRANSFORM_DAY, 0,
                      "p >= \"1970-01-01\"", "p > \"1970-01-01\"");
    expect_projection(lit(FLOE_ICE_EXPR_GT, "ts", floe_ice_timestamp(-2)), F_TS, FLOE_ICE_TRANSFORM_DAY, 0,
                      "p >= \"1969-12-31\"", "p > \"1970-01-01\"");
    /* after the epoch nothing is widened */
    expect_projection(lit(FLOE_ICE_EXPR_LT, "ts", floe_ice_timestamp(INT64_C(86400000000))), F_TS,
                      FLOE_ICE_TRANSFORM_DAY, 0, "p <= \"1970-01-01\"", "p < \"1970-01-02\"");
    expect_projection(lit(FLOE_ICE_EXPR_LT_EQ, "ts", floe_ice_timestamp(-1)), F_TS, FLOE_ICE_TRANSFORM_HOUR, 0,
                      "p <= 0", "p < 0");
    expect_projection(lit(FLOE_ICE_EXPR_GT_EQ, "ts", floe_ice_timestamp(-1)), F_TS, FLOE_ICE_TRANSFORM_YEAR, 0,
                      "p >= -1", "p > 0");
    expect_projection(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "ts"), F_TS, FLOE_ICE_TRANSFORM_MONTH, 0,
                      "p is_null", "p is_null");

    /* the row with ts = -1 µs, partitioned correctly or by an old writer */
    floe_ice_expr *b = bind(lit(FLOE_ICE_EXPR_LT, "ts", floe_ice_timestamp(0)));
    floe_ice_partition_spec *spec = spec1(F_TS, FLOE_ICE_TRANSFORM_DAY, 0);
    floe_ice_expr *p = NULL;
    assert_ok(floe_ice_expr_project_inclusive(b, spec, &p));
    int32_t id = 1000;
    floe_ice_value part = floe_ice_date(-1);
    floe_ice_row prow = {1, &id, &part};
    assert_true(floe_ice_expr_eval_row(p, &prow));
    part = floe_ice_date(0);
    assert_true(floe_ice_expr_eval_row(p, &prow));
    part = floe_ice_date(1);
    assert_false(floe_ice_expr_eval_row(p, &prow));
    floe_ice_expr_free(p);
    floe_ice_partition_spec_free(spec);
    floe_ice_expr_free(b);
}

static void truncate_projections_adjust_boundaries(void **state) {
    (void)state;
    expect_projection(lit(FLOE_ICE_EXPR_LT, "i", floe_ice_int(10)), F_I, FLOE_ICE_TRANSFORM_TRUNCATE, 10, "p <= 0",
                      "p < 10");
    expect_projection(lit(FLOE_ICE_EXPR_LT_EQ, "i", floe_ice_int(9)), F_I, FLOE_ICE_TRANSFORM_TRUNCATE, 10,
                      "p <= 0", "p < 10");
    expect_projection(lit(FLOE_ICE_EXPR_GT, "i", floe_ice_int(-1)), F_I, FLOE_ICE_TRANSFORM_TRUNCATE, 10, "p >= 0",
                      "p > -10");
    expect_projection(lit(FLOE_ICE_EXPR_GT_EQ, "i", floe_ice_int(-1)), F_I, FLOE_ICE_TRANSFORM_TRUNCATE, 10,
                      "p >= -10", "p > -10");
    expect_projection(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(-1)), F_I, FLOE_ICE_TRANSFORM_TRUNCATE, 10,
                      "p == -10", "false");
    floe_ice_value set[] = {floe_ice_int(1), floe_ice_int(9), floe_ice_int(15)};
    expect_projection(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "i", set, 3), F_I, FLOE_ICE_TRANSFORM_TRUNCATE, 10,
                      "p in (0, 10)", "false");
    expect_projection(floe_ice_expr_set(FLOE_ICE_EXPR_NOT_IN, "i", set, 3), F_I, FLOE_ICE_TRANSFORM_TRUNCATE, 10,
                      "true", "p not_in (0, 10)");
    expect_projection(lit(FLOE_ICE_EXPR_LT, "dec", floe_ice_decimal(1000, 2)), F_DEC, FLOE_ICE_TRANSFORM_TRUNCATE,
                      50, "p <= 9.50", "p < 10.00");
    /* the literal's neighbour overflows: no projection */
    expect_projection(lit(FLOE_ICE_EXPR_LT, "i", floe_ice_int(INT32_MIN)), F_I, FLOE_ICE_TRANSFORM_TRUNCATE, 10,
                      "true", "false");
}

static void string_truncate_handles_prefixes_longer_and_shorter_than_width(void **state) {
    (void)state;
    expect_projection(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", floe_ice_string_z("ab")), F_S,
                      FLOE_ICE_TRANSFORM_TRUNCATE, 3, "p starts_with \"ab\"", "p starts_with \"ab\"");
    expect_projection(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", floe_ice_string_z("abc")), F_S,
                      FLOE_ICE_TRANSFORM_TRUNCATE, 3, "p == \"abc\"", "p starts_with \"abc\"");
    expect_projection(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", floe_ice_string_z("abcd")), F_S,
                      FLOE_ICE_TRANSFORM_TRUNCATE, 3, "p == \"abc\"", "false");
    /* code points, not bytes: "é" is one character */
    expect_projection(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", floe_ice_string_z("\xc3\xa9\xc3\xa9")), F_S,
                      FLOE_ICE_TRANSFORM_TRUNCATE, 3, "p starts_with \"\xc3\xa9\xc3\xa9\"",
                      "p starts_with \"\xc3\xa9\xc3\xa9\"");
    expect_projection(lit(FLOE_ICE_EXPR_NOT_STARTS_WITH, "s", floe_ice_string_z("ab")), F_S,
                      FLOE_ICE_TRANSFORM_TRUNCATE, 3, "p not_starts_with \"ab\"", "p not_starts_with \"ab\"");
    expect_projection(lit(FLOE_ICE_EXPR_NOT_STARTS_WITH, "s", floe_ice_string_z("abc")), F_S,
                      FLOE_ICE_TRANSFORM_TRUNCATE, 3, "p != \"abc\"", "p not_starts_with \"abc\"");
    expect_projection(lit(FLOE_ICE_EXPR_NOT_STARTS_WITH, "s", floe_ice_string_z("abcd")), F_S,
                      FLOE_ICE_TRANSFORM_TRUNCATE, 3, "true", "p not_starts_with \"abc\"");
    expect_projection(lit(FLOE_ICE_EXPR_LT, "s", floe_ice_string_z("abcd")), F_S, FLOE_ICE_TRANSFORM_TRUNCATE, 3,
                      "p <= \"abc\"", "p < \"abc\"");
    expect_projection(lit(FLOE_ICE_EXPR_GT, "s", floe_ice_string_z("abcd")), F_S, FLOE_ICE_TRANSFORM_TRUNCATE, 3,
                      "p >= \"abc\"", "p > \"abc\"");
    expect_projection(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", floe_ice_string_z("abcd")), F_S,
                      FLOE_ICE_TRANSFORM_IDENTITY, 0, "p starts_with \"abcd\"", "p starts_with \"abcd\"");
}

static void bucket_and_void_project_only_what_they_can(void **state) {
    (void)state;
    /* bucket[16] of int 34 is 3 (spec vector: hash 2017239379) */
    expect_projection(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(34)), F_I, FLOE_ICE_TRANSFORM_BUCKET, 16, "p == 3",
                      "false");
    expect_projection(lit(FLOE_ICE_EXPR_NOT_EQ, "i", floe_ice_int(34)), F_I, FLOE_ICE_TRANSFORM_BUCKET, 16, "true",
                      "p != 3");
    expect_projection(lit(FLOE_ICE_EXPR_LT, "i", floe_ice_int(34)), F_I, FLOE_ICE_TRANSFORM_BUCKET, 16, "true",
                      "false");
    floe_ice_value set[] = {floe_ice_int(34), floe_ice_int(34)};
    expect_projection(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "i", set, 2), F_I, FLOE_ICE_TRANSFORM_BUCKET, 16,
                      "p == 3", "false");
    expect_projection(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(34)), F_I, FLOE_ICE_TRANSFORM_VOID, 0, "true", "false");
    expect_projection(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NAN, "f"), F_F, FLOE_ICE_TRANSFORM_IDENTITY, 0,
                      "p is_nan", "p is_nan");
    /* predicates on columns the spec does not partition */
    expect_projection(lit(FLOE_ICE_EXPR_EQ, "s", floe_ice_string_z("x")), F_I, FLOE_ICE_TRANSFORM_IDENTITY, 0,
                      "true", "false");
    /* NOT is pushed down first */
    expect_projection(floe_ice_expr_not(lit(FLOE_ICE_EXPR_GT_EQ, "i", floe_ice_int(5))), F_I,
                      FLOE_ICE_TRANSFORM_IDENTITY, 0, "p < 5", "p < 5");
}

/* ---- metrics ------------------------------------------------------------- */

typedef struct one_col {
    floe_ice_field_metrics fm;
    floe_ice_file_metrics m;
    uint8_t lo[64], hi[64];
} one_col;

static void metrics(one_col *c, int32_t id, int64_t rows, int64_t values, int64_t nulls, int64_t nans,
                    const void *lo, size_t lo_len, const void *hi, size_t hi_len) {
    memset(c, 0, sizeof *c);
    c->fm.field_id = id;
    c->fm.value_count = values;
    c->fm.null_count = nulls;
    c->fm.nan_count = nans;
    if (lo) {
        memcpy(c->lo, lo, lo_len);
        c->fm.lower = c->lo;
        c->fm.lower_len = lo_len;
    }
    if (hi) {
        memcpy(c->hi, hi, hi_len);
        c->fm.upper = c->hi;
        c->fm.upper_len = hi_len;
    }
    c->m.record_count = rows;
    c->m.n_fields = 1;
    c->m.fields = &c->fm;
}

static bool might(floe_ice_expr *unbound, const one_col *c) {
    floe_ice_expr *b = bind(unbound), *r = NULL;
    assert_ok(floe_ice_expr_rewrite_not(b, &r));
    bool v;
    assert_ok(floe_ice_metrics_might_match(r, &c->m, &v));
    floe_ice_expr_free(r);
    floe_ice_expr_free(b);
    return v;
}

static bool must(floe_ice_expr *unbound, const one_col *c) {
    floe_ice_expr *b = bind(unbound), *r = NULL;
    assert_ok(floe_ice_expr_rewrite_not(b, &r));
    bool v;
    assert_ok(floe_ice_metrics_all_match(r, &c->m, &v));
    floe_ice_expr_free(r);
    floe_ice_expr_free(b);
    return v;
}

static floe_ice_value str(const char *s) { return floe_ice_string_z(s); }

static void truncated_string_bounds_never_hide_matches(void **state) {
    (void)state;
    one_col c;
    /* values "abc\xff\xff" .. "abc\xff\xff\xff" in a binary column with
     * bounds truncated to 3 bytes: lower "abc", upper "abd" */
    metrics(&c, F_B, 2, 2, 0, 0, "abc", 3, "abd", 3);
    const uint8_t v1[] = {'a', 'b', 'c', 0xff, 0xff};
    assert_true(might(lit(FLOE_ICE_EXPR_EQ, "b", floe_ice_binary(v1, 5)), &c));
    assert_true(might(lit(FLOE_ICE_EXPR_GT, "b", floe_ice_binary(v1, 4)), &c));
    assert_false(might(lit(FLOE_ICE_EXPR_GT_EQ, "b", floe_ice_binary((const uint8_t *)"abe", 3)), &c));
    assert_false(must(lit(FLOE_ICE_EXPR_LT, "b", floe_ice_binary((const uint8_t *)"abd", 3)), &c));
    assert_true(must(lit(FLOE_ICE_EXPR_LT, "b", floe_ice_binary((const uint8_t *)"abe", 3)), &c));

    /* strings: values "abcx" and "abcz", lower "ab" (truncated), upper "abd" */
    metrics(&c, F_S, 2, 2, 0, 0, "ab", 2, "abd", 3);
    assert_true(might(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", str("abc")), &c));
    assert_true(might(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", str("abcz")), &c));
    assert_true(might(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", str("abd")), &c));
    assert_true(might(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", str("")), &c));
    assert_false(might(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", str("abe")), &c));
    assert_false(might(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", str("aa")), &c));
    assert_true(might(lit(FLOE_ICE_EXPR_EQ, "s", str("abcz")), &c));
    /* both bounds start with "ab": nothing fails starts_with "ab" */
    assert_false(might(lit(FLOE_ICE_EXPR_NOT_STARTS_WITH, "s", str("ab")), &c));
    assert_true(must(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", str("ab")), &c));
    /* the incremented upper "abd" does not start with "abc": keep */
    assert_true(might(lit(FLOE_ICE_EXPR_NOT_STARTS_WITH, "s", str("abc")), &c));
    assert_false(must(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", str("abc")), &c));
    assert_true(must(lit(FLOE_ICE_EXPR_NOT_STARTS_WITH, "s", str("b")), &c));
    assert_true(must(lit(FLOE_ICE_EXPR_NOT_STARTS_WITH, "s", str("aa")), &c));
    assert_false(must(lit(FLOE_ICE_EXPR_NOT_STARTS_WITH, "s", str("abc")), &c));
    /* nulls satisfy not_starts_with: a null keeps the file */
    metrics(&c, F_S, 3, 3, 1, 0, "ab", 2, "abd", 3);
    assert_true(might(lit(FLOE_ICE_EXPR_NOT_STARTS_WITH, "s", str("ab")), &c));
}

static void nan_and_null_counts_decide_only_when_known(void **state) {
    (void)state;
    one_col c;
    metrics(&c, F_F, 3, 3, 0, 3, NULL, 0, NULL, 0); /* all NaN */
    assert_false(might(lit(FLOE_ICE_EXPR_LT, "f", floe_ice_double(1)), &c));
    assert_false(might(lit(FLOE_ICE_EXPR_EQ, "f", floe_ice_double(1)), &c));
    assert_true(might(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NAN, "f"), &c));
    assert_false(might(floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NAN, "f"), &c));
    assert_true(might(lit(FLOE_ICE_EXPR_NOT_EQ, "f", floe_ice_double(1)), &c));
    assert_true(must(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NAN, "f"), &c));
    assert_true(must(lit(FLOE_ICE_EXPR_NOT_EQ, "f", floe_ice_double(1)), &c));
    metrics(&c, F_F, 3, 3, 0, -1, NULL, 0, NULL, 0); /* NaN count unknown */
    assert_true(might(floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NAN, "f"), &c));
    assert_true(might(lit(FLOE_ICE_EXPR_LT, "f", floe_ice_double(1)), &c));
    assert_false(must(floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NAN, "f"), &c));

    /* bounds [1, 2] plus one NaN: strict needs no NaN */
    uint8_t lo[8], hi[8];
    double one = 1.0, two = 2.0;
    for (int k = 0; k < 8; k++) {
        lo[k] = ((uint8_t *)&one)[k]; /* little-endian host, as the spec */
        hi[k] = ((uint8_t *)&two)[k];
    }
    metrics(&c, F_F, 3, 3, 0, 1, lo, 8, hi, 8);
    assert_false(must(lit(FLOE_ICE_EXPR_LT, "f", floe_ice_double(3)), &c));
    assert_false(might(lit(FLOE_ICE_EXPR_GT, "f", floe_ice_double(2)), &c));
    assert_true(might(lit(FLOE_ICE_EXPR_GT_EQ, "f", floe_ice_double(2)), &c));
    metrics(&c, F_F, 3, 3, 0, 0, lo, 8, hi, 8);
    assert_true(must(lit(FLOE_ICE_EXPR_LT, "f", floe_ice_double(3)), &c));
    assert_true(must(lit(FLOE_ICE_EXPR_LT_EQ, "f", floe_ice_double(2)), &c));
    assert_false(must(lit(FLOE_ICE_EXPR_LT, "f", floe_ice_double(2)), &c));

    /* all null */
    metrics(&c, F_I, 2, 2, 2, -1, NULL, 0, NULL, 0);
    assert_false(might(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(1)), &c));
    assert_false(might(floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NULL, "i"), &c));
    assert_true(might(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "i"), &c));
    assert_true(must(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "i"), &c));
    assert_true(must(lit(FLOE_ICE_EXPR_NOT_EQ, "i", floe_ice_int(1)), &c));
    /* nothing known */
    metrics(&c, F_I, -1, -1, -1, -1, NULL, 0, NULL, 0);
    assert_true(might(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(1)), &c));
    assert_true(might(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "i"), &c));
    assert_false(must(floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NULL, "i"), &c));
    /* an empty file matches nothing */
    metrics(&c, F_I, 0, 0, 0, 0, NULL, 0, NULL, 0);
    assert_false(might(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "i"), &c));
}

static void bounds_equal_to_the_literal(void **state) {
    (void)state;
    one_col c;
    const uint8_t five[] = {5, 0, 0, 0};
    metrics(&c, F_I, 4, 4, 0, 0, five, 4, five, 4);
    assert_true(might(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(5)), &c));
    assert_true(might(lit(FLOE_ICE_EXPR_LT_EQ, "i", floe_ice_int(5)), &c));
    assert_false(might(lit(FLOE_ICE_EXPR_LT, "i", floe_ice_int(5)), &c));
    assert_false(might(lit(FLOE_ICE_EXPR_GT, "i", floe_ice_int(5)), &c));
    assert_false(might(lit(FLOE_ICE_EXPR_NOT_EQ, "i", floe_ice_int(5)), &c));
    assert_true(must(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(5)), &c));
    assert_true(must(lit(FLOE_ICE_EXPR_GT_EQ, "i", floe_ice_int(5)), &c));
    assert_false(must(lit(FLOE_ICE_EXPR_GT, "i", floe_ice_int(5)), &c));
    /* a null among them: not_eq matches the null row, eq is no longer "all" */
    metrics(&c, F_I, 4, 4, 1, 0, five, 4, five, 4);
    assert_true(might(lit(FLOE_ICE_EXPR_NOT_EQ, "i", floe_ice_int(5)), &c));
    assert_false(must(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(5)), &c));
    /* fields inside lists have no trustworthy row bounds */
    metrics(&c, F_TAG, 4, 4, 0, 0, five, 4, five, 4);
    assert_true(might(lit(FLOE_ICE_EXPR_EQ, "tags.element", floe_ice_int(6)), &c));
    assert_false(must(lit(FLOE_ICE_EXPR_EQ, "tags.element", floe_ice_int(5)), &c));
    /* corrupt bounds are reported, not guessed */
    metrics(&c, F_I, 4, 4, 0, 0, five, 3, five, 4);
    floe_ice_expr *b = bind(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(5)));
    bool v = false;
    assert_error(floe_ice_metrics_might_match(b, &c.m, &v), FLOE_ERR_CORRUPT, "lower bound of field 1 ('i')");
    assert_true(v);
    floe_ice_expr_free(b);
}

static void bounds_written_before_a_promotion_still_prune(void **state) {
    (void)state;
    /* a long column that was an int when the file was written: 4-byte bounds */
    const char *json = "{\"type\":\"struct\",\"schema-id\":1,\"fields\":["
                       "{\"id\":1,\"name\":\"i\",\"required\":false,\"type\":\"long\"}]}";
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(json, &s));
    floe_ice_value big = floe_ice_long(INT64_C(5000000000));
    floe_ice_expr *e = floe_ice_expr_literal(FLOE_ICE_EXPR_GT, "i", &big), *b = NULL;
    assert_ok(floe_ice_expr_bind(e, s, true, &b));
    one_col c;
    const uint8_t lo[] = {1, 0, 0, 0}, hi[] = {0xff, 0xff, 0xff, 0x7f};
    metrics(&c, 1, 4, 4, 0, 0, lo, 4, hi, 4);
    bool v = true;
    assert_ok(floe_ice_metrics_might_match(b, &c.m, &v));
    assert_false(v);
    floe_ice_expr_free(b);
    floe_ice_expr_free(e);
    floe_ice_value small = floe_ice_long(INT32_MAX);
    e = floe_ice_expr_literal(FLOE_ICE_EXPR_LT_EQ, "i", &small);
    assert_ok(floe_ice_expr_bind(e, s, true, &b));
    assert_ok(floe_ice_metrics_all_match(b, &c.m, &v));
    assert_true(v);
    floe_ice_expr_free(b);
    floe_ice_expr_free(e);
    floe_ice_schema_free(s);
}

static void large_sets_prune_on_bounds(void **state) {
    (void)state;
    one_col c;
    const uint8_t lo[] = {100, 0, 0, 0}, hi[] = {200, 0, 0, 0};
    metrics(&c, F_I, 4, 4, 0, 0, lo, 4, hi, 4);
    floe_ice_value out[400], in[400];
    for (int k = 0; k < 400; k++) {
        out[k] = floe_ice_int(k < 200 ? k - 200 : k + 1);  /* all outside [100, 200] */
        in[k] = floe_ice_int(k < 399 ? k - 1000 : 150);    /* one inside */
    }
    assert_false(might(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "i", out, 400), &c));
    assert_true(might(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "i", in, 400), &c));
    assert_true(might(floe_ice_expr_set(FLOE_ICE_EXPR_NOT_IN, "i", in, 400), &c));
    assert_true(must(floe_ice_expr_set(FLOE_ICE_EXPR_NOT_IN, "i", out, 400), &c));
    assert_false(must(floe_ice_expr_set(FLOE_ICE_EXPR_NOT_IN, "i", in, 400), &c));
    /* bounds min = max = 150 and 150 in the set */
    const uint8_t v[] = {150, 0, 0, 0};
    metrics(&c, F_I, 4, 4, 0, 0, v, 4, v, 4);
    assert_true(must(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "i", in, 400), &c));
    assert_false(might(floe_ice_expr_set(FLOE_ICE_EXPR_NOT_IN, "i", in, 400), &c));
}

/* ---- manifests ----------------------------------------------------------- */

static void manifest_summaries_prune_partitions(void **state) {
    (void)state;
    floe_ice_partition_spec *spec = spec1(F_TS, FLOE_ICE_TRANSFORM_DAY, 0);
    floe_ice_expr *b = bind(lit(FLOE_ICE_EXPR_LT, "ts", floe_ice_timestamp(0))), *p = NULL;
    assert_ok(floe_ice_expr_project_inclusive(b, spec, &p));
    /* partitions day 0 .. day 10 (an old writer may have put -1 µs in day 0) */
    const uint8_t lo0[] = {0, 0, 0, 0}, hi10[] = {10, 0, 0, 0}, lo1[] = {1, 0, 0, 0};
    floe_ice_partition_summary s = {1000, false, -1, lo0, 4, hi10, 4};
    bool v = false;
    assert_ok(floe_ice_manifest_might_match(p, &s, 1, &v));
    assert_true(v);
    s.lower = lo1;
    assert_ok(floe_ice_manifest_might_match(p, &s, 1, &v));
    assert_false(v);
    /* only nulls: no bounds */
    s.lower = s.upper = NULL;
    s.contains_null = true;
    assert_ok(floe_ice_manifest_might_match(p, &s, 1, &v));
    assert_false(v);
    floe_ice_expr_free(p);
    floe_ice_expr_free(b);
    b = bind(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "ts"));
    assert_ok(floe_ice_expr_project_inclusive(b, spec, &p));
    assert_ok(floe_ice_manifest_might_match(p, &s, 1, &v));
    assert_true(v);
    s.contains_null = false;
    s.lower = lo0;
    s.upper = hi10;
    assert_ok(floe_ice_manifest_might_match(p, &s, 1, &v));
    assert_false(v);
    /* no summary for the field: might match */
    assert_ok(floe_ice_manifest_might_match(p, NULL, 0, &v));
    assert_true(v);
    floe_ice_expr_free(p);
    floe_ice_expr_free(b);
    floe_ice_partition_spec_free(spec);

    /* float partitions: all NaN */
    spec = spec1(F_F, FLOE_ICE_TRANSFORM_IDENTITY, 0);
    floe_ice_partition_summary nan = {1000, false, 1, NULL, 0, NULL, 0};
    b = bind(floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NAN, "f"));
    assert_ok(floe_ice_expr_project_inclusive(b, spec, &p));
    assert_ok(floe_ice_manifest_might_match(p, &nan, 1, &v));
    assert_false(v);
    floe_ice_expr_free(p);
    floe_ice_expr_free(b);
    b = bind(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NAN, "f"));
    assert_ok(floe_ice_expr_project_inclusive(b, spec, &p));
    assert_ok(floe_ice_manifest_might_match(p, &nan, 1, &v));
    assert_true(v);
    nan.contains_nan = 0;
    nan.contains_null = true;
    assert_ok(floe_ice_manifest_might_match(p, &nan, 1, &v));
    assert_false(v);
    floe_ice_expr_free(p);
    floe_ice_expr_free(b);
    floe_ice_partition_spec_free(spec);
}

/* ---- residuals ----------------------------------------------------------- */

static char *residual_text(floe_ice_expr *unbound, const floe_ice_partition_spec *spec, floe_ice_value part) {
    floe_ice_expr *b = bind(unbound), *r = NULL;
    assert_ok(floe_ice_expr_residual(b, spec, &part, 1, &r));
    char *s = NULL;
    assert_ok(floe_ice_expr_to_string(r, &s));
    floe_ice_expr_free(r);
    floe_ice_expr_free(b);
    return s;
}

static void expect_residual(floe_ice_expr *e, const floe_ice_partition_spec *spec, floe_ice_value part,
                            const char *want) {
    char *s = residual_text(e, spec, part);
    if (strcmp(s, want) != 0) fail_msg("residual '%s', expected '%s'", s, want);
    floe_free(s);
}

static void residuals_keep_only_what_the_partition_does_not_decide(void **state) {
    (void)state;
    floe_ice_partition_spec *spec = spec1(F_I, FLOE_ICE_TRANSFORM_IDENTITY, 0);
    expect_residual(floe_ice_expr_and(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(5)),
                                      lit(FLOE_ICE_EXPR_EQ, "s", floe_ice_string_z("x"))),
                    spec, floe_ice_int(5), "s == \"x\"");
    expect_residual(floe_ice_expr_and(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(5)),
                                      lit(FLOE_ICE_EXPR_EQ, "s", floe_ice_string_z("x"))),
                    spec, floe_ice_int(6), "false");
    expect_residual(floe_ice_expr_or(lit(FLOE_ICE_EXPR_GT, "i", floe_ice_int(5)),
                                     lit(FLOE_ICE_EXPR_EQ, "s", floe_ice_string_z("x"))),
                    spec, floe_ice_int(6), "true");
    expect_residual(floe_ice_expr_not(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "i")), spec,
                    floe_ice_null(FLOE_ICE_INT), "false");
    floe_ice_partition_spec_free(spec);

    spec = spec1(F_TS, FLOE_ICE_TRANSFORM_DAY, 0);
    int64_t day = INT64_C(86400000000);
    floe_ice_expr *gt = lit(FLOE_ICE_EXPR_GT, "ts", floe_ice_timestamp(day + 5));
    expect_residual(floe_ice_expr_copy(gt), spec, floe_ice_date(2), "true");
    expect_residual(floe_ice_expr_copy(gt), spec, floe_ice_date(0), "false");
    expect_residual(gt, spec, floe_ice_date(1), "ts > \"1970-01-02T00:00:00.000005\"");
    floe_ice_partition_spec_free(spec);

    spec = spec1(F_S, FLOE_ICE_TRANSFORM_TRUNCATE, 2);
    expect_residual(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", floe_ice_string_z("a")), spec, floe_ice_string_z("ab"),
                    "true");
    expect_residual(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", floe_ice_string_z("abc")), spec, floe_ice_string_z("ab"),
                    "s starts_with \"abc\"");
    expect_residual(lit(FLOE_ICE_EXPR_STARTS_WITH, "s", floe_ice_string_z("abc")), spec, floe_ice_string_z("ac"),
                    "false");
    floe_ice_partition_spec_free(spec);

    floe_ice_partition_spec *two = spec1(F_I, FLOE_ICE_TRANSFORM_IDENTITY, 0);
    floe_ice_expr *b = bind(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(1))), *r = NULL;
    floe_ice_value pv = floe_ice_int(1);
    assert_error(floe_ice_expr_residual(b, two, &pv, 2, &r), FLOE_ERR_INVALID_ARGUMENT, "2 values");
    floe_ice_expr_free(b);
    floe_ice_partition_spec_free(two);
}

FLOE_TEST_MAIN(cmocka_unit_test(time_projections_absorb_pre_epoch_rounding),
               cmocka_unit_test(truncate_projections_adjust_boundaries),
               cmocka_unit_test(string_truncate_handles_prefixes_longer_and_shorter_than_width),
               cmocka_unit_test(bucket_and_void_project_only_what_they_can),
               cmocka_unit_test(truncated_string_bounds_never_hide_matches),
               cmocka_unit_test(nan_and_null_counts_decide_only_when_known),
               cmocka_unit_test(bounds_equal_to_the_literal),
               cmocka_unit_test(bounds_written_before_a_promotion_still_prune),
               cmocka_unit_test(large_sets_prune_on_bounds),
               cmocka_unit_test(manifest_summaries_prune_partitions),
               cmocka_unit_test(residuals_keep_only_what_the_partition_does_not_decide))

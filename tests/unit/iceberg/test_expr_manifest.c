/* The adapters from manifest structs to the evaluators: a data_file's
 * count and bound maps, its partition tuple, and a manifest list entry's
 * partition summaries give the same answers as the plain-input evaluators. */
#include "floe_test.h"

#include "floe/iceberg_expr.h"
#include "floe/iceberg_manifest.h"
#include "floe/memory.h"

static floe_ice_schema *schema(void) {
    const char *json = "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
                       "{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"},"
                       "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"}]}";
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(json, &s));
    return s;
}

static floe_ice_expr *bound(floe_ice_expr *e) {
    floe_ice_schema *s = schema();
    floe_ice_expr *b = NULL;
    assert_non_null(e);
    assert_ok(floe_ice_expr_bind(e, s, true, &b));
    floe_ice_expr_free(e);
    floe_ice_schema_free(s);
    return b;
}

static void data_file_metrics_prune_through_the_adapter(void **state) {
    (void)state;
    /* ids 10..20, names "apple".."banana" (upper truncated to "bb"), no nulls */
    int32_t keys[] = {1, 2};
    int64_t values[] = {5, 5}, nulls[] = {0, 2};
    const uint8_t lo_id[] = {10, 0, 0, 0, 0, 0, 0, 0}, hi_id[] = {20, 0, 0, 0, 0, 0, 0, 0};
    const uint8_t *lows[] = {lo_id, (const uint8_t *)"apple"}, *highs[] = {hi_id, (const uint8_t *)"bb"};
    uint32_t lo_lens[] = {8, 5}, hi_lens[] = {8, 2};
    floe_ice_data_file f;
    floe_ice_data_file_init(&f);
    f.file_path = "s3://b/t/data/a.parquet";
    f.record_count = 5;
    f.value_counts = (floe_ice_count_map){2, keys, values};
    f.null_value_counts = (floe_ice_count_map){2, keys, nulls};
    f.lower_bounds = (floe_ice_bound_map){2, keys, lows, lo_lens};
    f.upper_bounds = (floe_ice_bound_map){2, keys, highs, hi_lens};

    floe_ice_value v = floe_ice_long(21);
    floe_ice_expr *b = bound(floe_ice_expr_literal(FLOE_ICE_EXPR_GT_EQ, "id", &v));
    bool r = true;
    assert_ok(floe_ice_data_file_might_match(b, &f, &r));
    assert_false(r);
    floe_ice_expr_free(b);
    v = floe_ice_string_z("banana");
    b = bound(floe_ice_expr_and(floe_ice_expr_literal(FLOE_ICE_EXPR_STARTS_WITH, "name", &v),
                                floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NULL, "id")));
    assert_ok(floe_ice_data_file_might_match(b, &f, &r));
    assert_true(r);
    assert_ok(floe_ice_data_file_all_match(b, &f, &r));
    assert_false(r);
    floe_ice_expr_free(b);
    b = bound(floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NULL, "id"));
    assert_ok(floe_ice_data_file_all_match(b, &f, &r));
    assert_true(r);
    floe_ice_expr_free(b);
    /* a corrupt bound names the file */
    lo_lens[0] = 3;
    v = floe_ice_long(1);
    b = bound(floe_ice_expr_literal(FLOE_ICE_EXPR_EQ, "id", &v));
    assert_error(floe_ice_data_file_might_match(b, &f, &r), FLOE_ERR_CORRUPT, "data file 's3://b/t/data/a.parquet'");
    assert_true(r);
    floe_ice_expr_free(b);
    /* no metric maps at all: might match */
    floe_ice_data_file_init(&f);
    f.record_count = 5;
    b = bound(floe_ice_expr_literal(FLOE_ICE_EXPR_EQ, "id", &v));
    assert_ok(floe_ice_data_file_might_match(b, &f, &r));
    assert_true(r);
    floe_ice_expr_free(b);
}

static void partition_tuples_and_summaries_prune_through_the_adapter(void **state) {
    (void)state;
    floe_ice_schema *s = schema();
    floe_ice_partition_spec *spec = NULL;
    assert_ok(floe_ice_partition_spec_new(0, &spec));
    assert_ok(floe_ice_partition_spec_add(spec, 2, 1000, "name_trunc",
                                          floe_ice_transform_make(FLOE_ICE_TRANSFORM_TRUNCATE, 2)));
    assert_ok(floe_ice_partition_spec_add(spec, 1, 1001, "id_bucket",
                                          floe_ice_transform_make(FLOE_ICE_TRANSFORM_BUCKET, 4)));
    floe_ice_value v = floe_ice_string_z("banana");
    floe_ice_expr *b = bound(floe_ice_expr_literal(FLOE_ICE_EXPR_STARTS_WITH, "name", &v)), *p = NULL;
    assert_ok(floe_ice_expr_project_inclusive(b, spec, &p));

    floe_ice_data_file f;
    floe_ice_data_file_init(&f);
    int32_t pids[] = {1000, 1001};
    floe_ice_value tuple[] = {floe_ice_string_z("ba"), floe_ice_int(3)};
    f.n_partition = 2;
    f.partition_ids = pids;
    f.partition = tuple;
    assert_true(floe_ice_data_file_partition_might_match(p, &f));
    tuple[0] = floe_ice_string_z("bb");
    assert_false(floe_ice_data_file_partition_might_match(p, &f));

    floe_ice_field_summary sums[2] = {
        {false, -1, (const uint8_t *)"aa", 2, (const uint8_t *)"az", 2},
        {false, -1, (const uint8_t *)"\0\0\0\0", 4, (const uint8_t *)"\3\0\0\0", 4},
    };
    floe_ice_manifest_file mf;
    memset(&mf, 0, sizeof mf);
    mf.manifest_path = "m0.avro";
    mf.n_partitions = 2;
    mf.partitions = sums;
    bool r = true;
    assert_ok(floe_ice_manifest_file_might_match(p, spec, &mf, &r));
    assert_false(r);
    sums[0].upper_bound = (const uint8_t *)"bz";
    assert_ok(floe_ice_manifest_file_might_match(p, spec, &mf, &r));
    assert_true(r);
    mf.n_partitions = -1;
    assert_ok(floe_ice_manifest_file_might_match(p, spec, &mf, &r));
    assert_true(r);
    mf.n_partitions = 1;
    assert_error(floe_ice_manifest_file_might_match(p, spec, &mf, &r), FLOE_ERR_CORRUPT, "1 partition summaries");
    floe_ice_expr_free(p);
    floe_ice_expr_free(b);
    floe_ice_partition_spec_free(spec);
    floe_ice_schema_free(s);
}

FLOE_TEST_MAIN(cmocka_unit_test(data_file_metrics_prune_through_the_adapter),
               cmocka_unit_test(partition_tuples_and_summaries_prune_through_the_adapter))

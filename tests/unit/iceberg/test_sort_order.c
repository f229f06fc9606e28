/* Sort orders: the Appendix C JSON form both ways (including v3 source-ids
 * and unknown transforms), validation against a schema, equality of fields,
 * and every sort order in the shared test tables. */
#include <dirent.h>
#include <jansson.h>

#include "floe_test.h"

#include "floe/iceberg_sort_order.h"
#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"

static floe_ice_sort_order *order_of(const char *json) {
    floe_ice_sort_order *o = NULL;
    assert_ok(floe_ice_sort_order_from_json_text(json, &o));
    return o;
}

static void spec_example_round_trips(void **state) {
    (void)state;
    const char *json = "{\"order-id\":1,\"fields\":["
                       "{\"transform\":\"identity\",\"source-id\":2,\"direction\":\"asc\",\"null-order\":\"nulls-first\"},"
                       "{\"transform\":\"bucket[4]\",\"source-id\":3,\"direction\":\"desc\",\"null-order\":\"nulls-last\"}]}";
    floe_ice_sort_order *o = order_of(json);
    assert_int_equal(o->order_id, 1);
    assert_int_equal(o->n_fields, 2);
    assert_int_equal(o->fields[0].direction, FLOE_ICE_ASC);
    assert_int_equal(o->fields[0].null_order, FLOE_ICE_NULLS_FIRST);
    assert_int_equal(o->fields[1].direction, FLOE_ICE_DESC);
    assert_int_equal(o->fields[1].null_order, FLOE_ICE_NULLS_LAST);
    assert_int_equal(o->fields[1].transform.param, 4);
    assert_int_equal(o->fields[1].source_id, 3);
    char *txt = NULL;
    assert_ok(floe_ice_sort_order_to_json_text(o, &txt));
    assert_string_equal(txt, json);
    floe_ice_sort_order *copy = NULL;
    assert_ok(floe_ice_sort_order_copy(o, &copy));
    assert_true(floe_ice_sort_order_same_fields(o, copy));
    copy->fields[1].null_order = FLOE_ICE_NULLS_FIRST;
    assert_false(floe_ice_sort_order_same_fields(o, copy));
    floe_free(txt);
    floe_ice_sort_order_free(o);
    floe_ice_sort_order_free(copy);
}

static void unsorted_order_and_v3_fields_are_read(void **state) {
    (void)state;
    floe_ice_sort_order *o = order_of("{\"order-id\":0,\"fields\":[]}");
    assert_true(floe_ice_sort_order_is_unsorted(o));
    floe_ice_sort_order_free(o);
    o = order_of("{\"order-id\":2,\"fields\":[{\"transform\":\"zorder\",\"source-ids\":[1,2],\"direction\":\"ASC\","
                 "\"null-order\":\"NULLS-LAST\"}]}");
    assert_int_equal(o->fields[0].transform.kind, FLOE_ICE_TRANSFORM_UNKNOWN);
    assert_int_equal(o->fields[0].n_source_ids, 2);
    char *txt = NULL;
    assert_ok(floe_ice_sort_order_to_json_text(o, &txt));
    assert_non_null(strstr(txt, "\"transform\":\"zorder\",\"source-ids\":[1,2],\"direction\":\"asc\",\"null-order\":\"nulls-last\""));
    floe_free(txt);
    floe_ice_sort_order_free(o);
}

static void malformed_sort_orders_are_corrupt_with_context(void **state) {
    (void)state;
    floe_ice_sort_order *o = NULL;
    assert_error(floe_ice_sort_order_from_json_text("{\"fields\":[]}", &o), FLOE_ERR_CORRUPT, "missing 'order-id'");
    assert_error(floe_ice_sort_order_from_json_text("{\"order-id\":3}", &o), FLOE_ERR_CORRUPT, "sort order 3: missing 'fields'");
    assert_error(floe_ice_sort_order_from_json_text(
                     "{\"order-id\":3,\"fields\":[{\"transform\":\"identity\",\"source-id\":1,\"direction\":\"up\","
                     "\"null-order\":\"nulls-last\"}]}",
                     &o),
                 FLOE_ERR_CORRUPT, "sort order 3, field #0: invalid direction 'up'");
    assert_error(floe_ice_sort_order_from_json_text(
                     "{\"order-id\":3,\"fields\":[{\"transform\":\"identity\",\"source-id\":1,\"direction\":\"asc\","
                     "\"null-order\":\"nulls-middle\"}]}",
                     &o),
                 FLOE_ERR_CORRUPT, "invalid null-order 'nulls-middle'");
    assert_error(floe_ice_sort_order_from_json_text(
                     "{\"order-id\":3,\"fields\":[{\"transform\":\"identity\",\"direction\":\"asc\","
                     "\"null-order\":\"nulls-last\"}]}",
                     &o),
                 FLOE_ERR_CORRUPT, "missing 'source-id'");
    assert_error(floe_ice_sort_order_from_json_text(
                     "{\"order-id\":3,\"fields\":[{\"source-id\":1,\"direction\":\"asc\",\"null-order\":\"nulls-last\"}]}",
                     &o),
                 FLOE_ERR_CORRUPT, "missing 'transform'");
    assert_null(o);
}

static void validation_checks_sources_and_transforms(void **state) {
    (void)state;
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(
        "{\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"s\",\"required\":false,\"type\":\"string\"},"
        "{\"id\":3,\"name\":\"st\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
        "{\"id\":4,\"name\":\"x\",\"required\":false,\"type\":\"int\"}]}}]}",
        &s));
    floe_ice_sort_order *o = NULL;
    assert_ok(floe_ice_sort_order_new(1, &o));
    assert_ok(floe_ice_sort_order_add(o, 1, floe_ice_transform_make(FLOE_ICE_TRANSFORM_BUCKET, 4), FLOE_ICE_DESC,
                                      FLOE_ICE_NULLS_LAST));
    assert_ok(floe_ice_sort_order_add(o, 4, floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0), FLOE_ICE_ASC,
                                      FLOE_ICE_NULLS_FIRST));
    assert_ok(floe_ice_sort_order_validate(o, s));
    assert_ok(floe_ice_sort_order_add(o, 2, floe_ice_transform_make(FLOE_ICE_TRANSFORM_DAY, 0), FLOE_ICE_ASC,
                                      FLOE_ICE_NULLS_FIRST));
    assert_error(floe_ice_sort_order_validate(o, s), FLOE_ERR_INVALID_ARGUMENT,
                 "sort order 1, field #2: transform 'day' cannot apply to column 's' of type 'string'");
    floe_ice_sort_order_free(o);
    assert_ok(floe_ice_sort_order_new(1, &o));
    assert_ok(floe_ice_sort_order_add(o, 3, floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0), FLOE_ICE_ASC,
                                      FLOE_ICE_NULLS_FIRST));
    assert_error(floe_ice_sort_order_validate(o, s), FLOE_ERR_INVALID_ARGUMENT, "not primitive");
    o->fields[0].source_ids[0] = o->fields[0].source_id = 77;
    assert_error(floe_ice_sort_order_validate(o, s), FLOE_ERR_INVALID_ARGUMENT, "source column 77 does not exist");
    o->order_id = 0;
    assert_error(floe_ice_sort_order_validate(o, s), FLOE_ERR_INVALID_ARGUMENT, "reserved for the unsorted order");
    floe_ice_sort_order_free(o);
    assert_ok(floe_ice_sort_order_new(5, &o));
    assert_error(floe_ice_sort_order_validate(o, s), FLOE_ERR_INVALID_ARGUMENT, "sort order 5 has no fields");
    floe_ice_sort_order_free(o);
    floe_ice_schema_free(s);
}

static void finer_sort_orders_satisfy_coarser_ones(void **state) {
    (void)state;
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(
        "{\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"ts\",\"required\":true,\"type\":\"timestamp\"},"
        "{\"id\":2,\"name\":\"s\",\"required\":false,\"type\":\"string\"}]}",
        &s));
    floe_ice_sort_order *a = order_of(
        "{\"order-id\":1,\"fields\":[{\"transform\":\"hour\",\"source-id\":1,\"direction\":\"asc\",\"null-order\":\"nulls-first\"},"
        "{\"transform\":\"identity\",\"source-id\":2,\"direction\":\"desc\",\"null-order\":\"nulls-last\"}]}");
    floe_ice_sort_order *b = order_of(
        "{\"order-id\":2,\"fields\":[{\"transform\":\"day\",\"source-id\":1,\"direction\":\"asc\",\"null-order\":\"nulls-first\"}]}");
    floe_ice_sort_order *c = order_of(
        "{\"order-id\":3,\"fields\":[{\"transform\":\"day\",\"source-id\":1,\"direction\":\"desc\",\"null-order\":\"nulls-first\"}]}");
    floe_ice_sort_order *u = order_of("{\"order-id\":0,\"fields\":[]}");
    assert_true(floe_ice_sort_order_satisfies(a, b, s));
    assert_false(floe_ice_sort_order_satisfies(b, a, s));
    assert_false(floe_ice_sort_order_satisfies(a, c, s)); /* direction differs */
    assert_true(floe_ice_sort_order_satisfies(a, u, s));
    assert_true(floe_ice_sort_order_satisfies(u, u, s));
    assert_false(floe_ice_sort_order_satisfies(u, b, s));
    floe_ice_sort_order_free(a);
    floe_ice_sort_order_free(b);
    floe_ice_sort_order_free(c);
    floe_ice_sort_order_free(u);
    floe_ice_schema_free(s);
}

static int orders_in(const char *dir) {
    int count = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0) continue;
        if (S_ISDIR(sb.st_mode)) {
            count += orders_in(path);
            continue;
        }
        size_t n = strlen(e->d_name);
        if (n < 14 || strcmp(e->d_name + n - 14, ".metadata.json") != 0) continue;
        json_error_t err;
        json_t *md = json_load_file(path, 0, &err);
        if (!md) continue;
        json_t *orders = json_object_get(md, "sort-orders");
        for (size_t i = 0; i < json_array_size(orders); i++) {
            floe_ice_sort_order *o = NULL, *back = NULL;
            floe_status st = floe_ice_sort_order_from_json(json_array_get(orders, i), &o);
            if (st) fail_msg("%s: %s", path, floe_status_message(st));
            json_t *out = NULL;
            assert_ok(floe_ice_sort_order_to_json(o, &out));
            assert_ok(floe_ice_sort_order_from_json(out, &back));
            assert_true(floe_ice_sort_order_same_fields(o, back));
            assert_int_equal(o->order_id, back->order_id);
            json_decref(out);
            floe_ice_sort_order_free(o);
            floe_ice_sort_order_free(back);
            count++;
        }
        json_decref(md);
    }
    closedir(d);
    return count;
}

static void every_sort_order_in_the_shared_tables_round_trips(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    int n = orders_in(dir);
    printf("round-tripped %d sort orders\n", n);
    assert_true(n > 20);
}

FLOE_TEST_MAIN(cmocka_unit_test(spec_example_round_trips),
               cmocka_unit_test(unsorted_order_and_v3_fields_are_read),
               cmocka_unit_test(malformed_sort_orders_are_corrupt_with_context),
               cmocka_unit_test(validation_checks_sources_and_transforms),
               cmocka_unit_test(finer_sort_orders_satisfy_coarser_ones),
               cmocka_unit_test(every_sort_order_in_the_shared_tables_round_trips))

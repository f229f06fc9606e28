/* Bad metadata never crashes, leaks or half-succeeds: every truncation of a
 * schema, spec and sort order JSON is rejected, every node replaced by a
 * value of the wrong kind either parses or fails with a clean error, and
 * arbitrary bytes decode as single values or fail cleanly (run under ASan). */
#include <jansson.h>

#include "floe_test.h"

#include "floe/iceberg_partition_spec.h"
#include "floe/iceberg_schema.h"
#include "floe/iceberg_sort_order.h"
#include "floe/iceberg_transform.h"
#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"

static const char *SCHEMA =
    "{\"type\":\"struct\",\"schema-id\":2,\"identifier-field-ids\":[1],\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\",\"initial-default\":5,\"write-default\":6},"
    "{\"id\":2,\"name\":\"p\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":3,"
    "\"element-required\":true,\"element\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":4,\"name\":\"x\",\"required\":true,\"type\":\"decimal(9,2)\",\"doc\":\"d\"}]}}},"
    "{\"id\":5,\"name\":\"m\",\"required\":true,\"type\":{\"type\":\"map\",\"key-id\":6,\"key\":\"string\","
    "\"value-id\":7,\"value-required\":false,\"value\":\"timestamptz\"}}]}";
static const char *SPEC =
    "{\"spec-id\":1,\"fields\":[{\"source-id\":1,\"field-id\":1000,\"name\":\"b\",\"transform\":\"bucket[4]\"},"
    "{\"source-ids\":[1,5],\"field-id\":1001,\"name\":\"z\",\"transform\":\"zorder\"}]}";
static const char *ORDER =
    "{\"order-id\":1,\"fields\":[{\"transform\":\"truncate[3]\",\"source-id\":2,\"direction\":\"asc\","
    "\"null-order\":\"nulls-first\"}]}";

typedef floe_status (*parse_fn)(json_t *j, void **out);
typedef void (*free_fn)(void *p);

static floe_status parse_schema(json_t *j, void **out) { return floe_ice_schema_from_json(j, (floe_ice_schema **)out); }
static floe_status parse_spec(json_t *j, void **out) {
    return floe_ice_partition_spec_from_json(j, (floe_ice_partition_spec **)out);
}
static floe_status parse_order(json_t *j, void **out) { return floe_ice_sort_order_from_json(j, (floe_ice_sort_order **)out); }
static void free_schema(void *p) { floe_ice_schema_free(p); }
static void free_spec(void *p) { floe_ice_partition_spec_free(p); }
static void free_order(void *p) { floe_ice_sort_order_free(p); }

/* Run the parser; success is fine, failure must be a clean metadata error. */
static void try_parse(json_t *j, parse_fn parse, free_fn release) {
    void *obj = NULL;
    floe_status st = parse(j, &obj);
    if (st) {
        floe_code c = floe_status_code(st);
        if (c != FLOE_ERR_CORRUPT && c != FLOE_ERR_INVALID_ARGUMENT)
            fail_msg("unexpected error code %s: %s", floe_code_name(c), floe_status_message(st));
        assert_true(strlen(floe_status_message(st)) > 0);
        assert_null(obj);
        floe_status_free(st);
    } else {
        assert_non_null(obj);
        release(obj);
    }
}

/* Replace every node of `root` in turn by each of a set of wrong values. */
static int mutate_all(json_t *root, json_t *node, parse_fn parse, free_fn release) {
    static const char *repl[] = {"null", "true", "-1", "2147483648", "\"x\"", "[]", "{}", "1.5", "\"decimal(99,1)\""};
    int n = 0;
    if (json_is_object(node)) {
        /* Snapshot the keys: deleting and re-adding members reorders them. */
        size_t nk = json_object_size(node), k = 0;
        char **keys = floe_calloc(nk, sizeof *keys);
        const char *key;
        json_t *val;
        json_object_foreach(node, key, val) keys[k++] = floe_strdup(key);
        for (k = 0; k < nk; k++) {
            json_t *orig = json_incref(json_object_get(node, keys[k]));
            for (size_t r = 0; r < sizeof repl / sizeof repl[0]; r++) {
                json_object_set_new(node, keys[k], json_loads(repl[r], JSON_DECODE_ANY, NULL));
                try_parse(root, parse, release);
                n++;
            }
            json_object_del(node, keys[k]); /* and a missing member */
            try_parse(root, parse, release);
            json_object_set_new(node, keys[k], orig);
            n += 1 + mutate_all(root, orig, parse, release);
            floe_free(keys[k]);
        }
        floe_free(keys);
    } else if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++) {
            json_t *orig = json_incref(json_array_get(node, i));
            for (size_t r = 0; r < sizeof repl / sizeof repl[0]; r++) {
                json_array_set_new(node, i, json_loads(repl[r], JSON_DECODE_ANY, NULL));
                try_parse(root, parse, release);
                n++;
            }
            json_array_set_new(node, i, orig);
            n += mutate_all(root, orig, parse, release);
        }
    }
    return n;
}

static void fuzz_text(const char *text, parse_fn parse, free_fn release) {
    json_t *root = json_loads(text, 0, NULL);
    assert_non_null(root);
    try_parse(root, parse, release); /* the original is valid */
    void *obj = NULL;
    assert_ok(parse(root, &obj));
    release(obj);
    int n = mutate_all(root, root, parse, release);
    assert_true(n > 20);
    json_decref(root);
    /* Every truncation is invalid JSON, reported as corrupt. */
    size_t len = strlen(text);
    char *buf = floe_malloc(len + 1);
    for (size_t cut = 0; cut < len; cut++) {
        memcpy(buf, text, cut);
        buf[cut] = 0;
        json_t *j = NULL;
        floe_status st = floe_ice_json_parse_text(buf, "fuzz", &j);
        if (st) {
            assert_int_equal(floe_status_code(st), FLOE_ERR_CORRUPT);
            floe_status_free(st);
        } else {
            try_parse(j, parse, release); /* e.g. a bare number prefix */
            json_decref(j);
        }
    }
    floe_free(buf);
}

static void mutated_schema_json_fails_cleanly(void **state) {
    (void)state;
    fuzz_text(SCHEMA, parse_schema, free_schema);
}

static void mutated_partition_spec_json_fails_cleanly(void **state) {
    (void)state;
    fuzz_text(SPEC, parse_spec, free_spec);
}

static void mutated_sort_order_json_fails_cleanly(void **state) {
    (void)state;
    fuzz_text(ORDER, parse_order, free_order);
}

static void arbitrary_bytes_decode_or_fail_cleanly(void **state) {
    (void)state;
    static const char *types[] = {"boolean", "int", "long", "float", "double", "decimal(38,10)", "date", "time",
                                  "timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns", "string", "uuid",
                                  "fixed[7]", "binary", "unknown", "variant", "geometry"};
    uint8_t bytes[20];
    uint32_t seed = 12345;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        floe_ice_type *ty = NULL;
        assert_ok(floe_ice_type_parse(types[t], &ty));
        for (size_t len = 0; len <= sizeof bytes; len++) {
            for (int rep = 0; rep < 8; rep++) {
                for (size_t i = 0; i < len; i++) {
                    seed = seed * 1103515245u + 12345u;
                    bytes[i] = (uint8_t)(seed >> 16);
                }
                floe_ice_value v;
                floe_status st = floe_ice_value_from_bytes(ty, bytes, len, &v);
                if (st) {
                    floe_code c = floe_status_code(st);
                    assert_true(c == FLOE_ERR_CORRUPT || c == FLOE_ERR_UNSUPPORTED);
                    floe_status_free(st);
                    continue;
                }
                /* Whatever decoded must print, re-encode and transform. */
                char *s = NULL;
                assert_ok(floe_ice_value_to_string(&v, &s));
                floe_free(s);
                static const char *trs[] = {"identity", "bucket[7]", "truncate[3]", "year", "month", "day", "hour"};
                for (size_t k = 0; k < sizeof trs / sizeof trs[0]; k++) {
                    floe_ice_transform x;
                    floe_ice_value r;
                    assert_ok(floe_ice_transform_parse(trs[k], &x));
                    if (!floe_ice_transform_can_apply(&x, ty)) continue;
                    assert_ok(floe_ice_transform_apply(&x, &v, &r));
                    assert_ok(floe_ice_transform_human_string(&x, &r, &s));
                    floe_free(s);
                }
                uint8_t *enc = NULL;
                size_t n = 0;
                assert_ok(floe_ice_value_to_bytes(&v, &enc, &n));
                floe_free(enc);
            }
        }
        floe_ice_type_free(ty);
    }
}

FLOE_TEST_MAIN(cmocka_unit_test(mutated_schema_json_fails_cleanly),
               cmocka_unit_test(mutated_partition_spec_json_fails_cleanly),
               cmocka_unit_test(mutated_sort_order_json_fails_cleanly),
               cmocka_unit_test(arbitrary_bytes_decode_or_fail_cleanly))

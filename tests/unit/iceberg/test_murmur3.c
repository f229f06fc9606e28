/* Murmur3 x86_32 and the per-type bucket hashes reproduce every Appendix B
 * test value of the Iceberg spec (spec-vectors.md section 2) and the
 * pyiceberg raw-hash additions (section 9.1). */
#include "floe_test.h"

#include "floe/iceberg_types.h"
#include "floe/iceberg_value.h"
#include "floe/memory.h"
#include "iceberg/spec/murmur3.h"

/* Parse `text` as a value of type `type` and return its bucket hash. */
static int32_t hash_of(const char *type, const char *text) {
    floe_ice_type *t = NULL;
    assert_ok(floe_ice_type_parse(type, &t));
    floe_ice_value v;
    assert_ok(floe_ice_value_parse(t, text, &v));
    int32_t h = 0;
    assert_ok(floe_ice_hash_value(&v, &h));
    floe_ice_value_free(&v);
    floe_ice_type_free(t);
    return h;
}

static void murmur3_matches_known_answers_for_raw_bytes(void **state) {
    (void)state;
    /* Published Murmur3 x86_32 answers for seed 0 and a non-zero seed. */
    assert_int_equal(floe_murmur3_32("", 0, 0), 0);
    assert_int_equal((uint32_t)floe_murmur3_32("", 0, 1), 0x514E28B7u);
    assert_int_equal((uint32_t)floe_murmur3_32("\xff\xff\xff\xff", 4, 0), 0x76293B50u);
    assert_int_equal((uint32_t)floe_murmur3_32("\x21\x43\x65\x87", 4, 0), 0xF55B516Bu);
    assert_int_equal((uint32_t)floe_murmur3_32("\x21\x43\x65", 3, 0), 0x7E4A8634u);
    assert_int_equal((uint32_t)floe_murmur3_32("\x21\x43", 2, 0), 0xA0F7B07Au);
    assert_int_equal((uint32_t)floe_murmur3_32("\x21", 1, 0), 0x72661CF4u);
}

static void int_and_long_hash_alike_appendix_b(void **state) {
    (void)state;
    assert_int_equal(hash_of("int", "34"), 2017239379);
    assert_int_equal(hash_of("long", "34"), 2017239379);
    assert_int_equal(floe_ice_hash_int(34), floe_ice_hash_long(34));
}

static void decimal_hashes_minimal_big_endian_unscaled_appendix_b(void **state) {
    (void)state;
    assert_int_equal(hash_of("decimal(9,2)", "14.20"), -500754589);
    /* Scale is part of the type, not the value. */
    assert_int_equal(floe_ice_hash_decimal(1420), -500754589);
    /* -128 is the single byte 0x80, not 0xFF80. */
    uint8_t b80 = 0x80;
    assert_int_equal(floe_ice_hash_decimal(-128), floe_ice_hash_bytes(&b80, 1));
    uint8_t ff80[2] = {0xff, 0x80};
    assert_int_not_equal(floe_ice_hash_decimal(-128), floe_ice_hash_bytes(ff80, 2));
    /* spec-vectors.md section 10: 0x80 gives bucket[16] 13, 0xFF80 would give 12. */
    assert_int_equal(floe_ice_bucket_of_hash(floe_ice_hash_decimal(-128), 16), 13);
    assert_int_equal(floe_ice_bucket_of_hash(floe_ice_hash_bytes(ff80, 2), 16), 12);
}

/* The spec's promotion note: bucket hashes differ for 34 and "34" but not
 * for 34 and 34L. */
static void string_34_hashes_differently_from_int_34(void **state) {
    (void)state;
    assert_int_equal(hash_of("string", "34"), -427558391);
    assert_int_not_equal(hash_of("string", "34"), hash_of("int", "34"));
}

static void date_and_time_hash_appendix_b(void **state) {
    (void)state;
    assert_int_equal(hash_of("date", "2017-11-16"), -653330422);
    assert_int_equal(hash_of("time", "22:31:08"), -662762989);
}

static void timestamps_hash_as_micros_appendix_b(void **state) {
    (void)state;
    assert_int_equal(hash_of("timestamp", "2017-11-16T22:31:08"), -2047944441);
    assert_int_equal(hash_of("timestamp", "2017-11-16T22:31:08.000001"), -1207196810);
    assert_int_equal(hash_of("timestamptz", "2017-11-16T14:31:08-08:00"), -2047944441);
    assert_int_equal(hash_of("timestamptz", "2017-11-16T14:31:08.000001-08:00"), -1207196810);
}

static void nanosecond_timestamps_hash_as_floored_micros(void **state) {
    (void)state;
    assert_int_equal(hash_of("timestamp_ns", "2017-11-16T22:31:08"), -2047944441);
    assert_int_equal(hash_of("timestamp_ns", "2017-11-16T22:31:08.000001001"), -1207196810);
    assert_int_equal(hash_of("timestamptz_ns", "2017-11-16T14:31:08-08:00"), -2047944441);
    assert_int_equal(hash_of("timestamptz_ns", "2017-11-16T14:31:08.000001001-08:00"), -1207196810);
    /* pyiceberg test_bucket_hash_values additions */
    assert_int_equal(hash_of("timestamp_ns", "2017-11-16T22:31:08.000001"), -1207196810);
    assert_int_equal(hash_of("timestamptz_ns", "2017-11-16T14:31:08.000001-08:00"), -1207196810);
    /* Floor, not truncation toward zero, before the epoch. */
    floe_ice_value ns = floe_ice_timestamp_ns(-1);
    int32_t h;
    assert_ok(floe_ice_hash_value(&ns, &h));
    assert_int_equal(h, floe_ice_hash_long(-1));
}

static void string_uuid_fixed_binary_hash_appendix_b(void **state) {
    (void)state;
    assert_int_equal(hash_of("string", "iceberg"), 1210000089);
    assert_int_equal(hash_of("uuid", "f79c3e09-677c-4bbd-a479-3f349cb785e7"), 1488055340);
    static const uint8_t uuid_be[16] = {0xF7, 0x9C, 0x3E, 0x09, 0x67, 0x7C, 0x4B, 0xBD,
                                        0xA4, 0x79, 0x3F, 0x34, 0x9C, 0xB7, 0x85, 0xE7};
    assert_int_equal(floe_ice_hash_bytes(uuid_be, 16), 1488055340);
    assert_int_equal(hash_of("fixed[4]", "00010203"), -188683207);
    assert_int_equal(hash_of("binary", "00010203"), -188683207);
}

static void boolean_float_double_hash_appendix_b(void **state) {
    (void)state;
    assert_int_equal(hash_of("boolean", "true"), 1392991556);
    floe_ice_value v;
    int32_t h;
    v = floe_ice_float(1.0f);
    assert_ok(floe_ice_hash_value(&v, &h));
    assert_int_equal(h, -142385009);
    v = floe_ice_float(0.0f);
    assert_ok(floe_ice_hash_value(&v, &h));
    assert_int_equal(h, 1669671676);
    v = floe_ice_float(-0.0f);
    assert_ok(floe_ice_hash_value(&v, &h));
    assert_int_equal(h, 1669671676);
    v = floe_ice_double(1.0);
    assert_ok(floe_ice_hash_value(&v, &h));
    assert_int_equal(h, -142385009);
    v = floe_ice_double(0.0);
    assert_ok(floe_ice_hash_value(&v, &h));
    assert_int_equal(h, 1669671676);
    v = floe_ice_double(-0.0);
    assert_ok(floe_ice_hash_value(&v, &h));
    assert_int_equal(h, 1669671676);
    /* All NaNs hash as the canonical NaN. */
    assert_int_equal(floe_ice_hash_double(__builtin_nan("")), floe_ice_hash_double(-__builtin_nan("0x123")));
}

static void unhashable_types_and_nulls_are_errors(void **state) {
    (void)state;
    floe_ice_value v = floe_ice_null(FLOE_ICE_INT);
    int32_t h;
    assert_error(floe_ice_hash_value(&v, &h), FLOE_ERR_INVALID_ARGUMENT, "null");
    v = floe_ice_int(1);
    v.type = FLOE_ICE_VARIANT;
    assert_error(floe_ice_hash_value(&v, &h), FLOE_ERR_UNSUPPORTED, "variant");
}

FLOE_TEST_MAIN(cmocka_unit_test(murmur3_matches_known_answers_for_raw_bytes),
               cmocka_unit_test(int_and_long_hash_alike_appendix_b),
               cmocka_unit_test(decimal_hashes_minimal_big_endian_unscaled_appendix_b),
               cmocka_unit_test(string_34_hashes_differently_from_int_34),
               cmocka_unit_test(date_and_time_hash_appendix_b),
               cmocka_unit_test(timestamps_hash_as_micros_appendix_b),
               cmocka_unit_test(nanosecond_timestamps_hash_as_floored_micros),
               cmocka_unit_test(string_uuid_fixed_binary_hash_appendix_b),
               cmocka_unit_test(boolean_float_double_hash_appendix_b),
               cmocka_unit_test(unhashable_types_and_nulls_are_errors))

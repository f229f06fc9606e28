/* The growable buffer: appends, printf, NUL termination, detach, clear. */
#include "floe_test.h"

#include "base/buffer.h"
#include "floe/memory.h"

static void appends_accumulate_and_stay_nul_terminated(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    assert_string_equal(floe_buf_cstr(&b), "");
    assert_ok(floe_buf_append_str(&b, "s3://"));
    assert_ok(floe_buf_append(&b, "bucket/x", 6));
    assert_ok(floe_buf_append_byte(&b, '/'));
    assert_int_equal(b.len, 12);
    assert_string_equal(floe_buf_cstr(&b), "s3://bucket/");
    assert_int_equal(b.data[b.len], 0);
    floe_buf_free(&b);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
}

static void printf_formats_and_grows_past_initial_capacity(void **state) {
    (void)state;
    floe_buf b;
    floe_buf_init(&b);
    for (int i = 0; i < 1000; i++) assert_ok(floe_buf_printf(&b, "%d,", i));
    assert_true(b.cap > b.len);
    assert_int_equal(strncmp(floe_buf_cstr(&b), "0,1,2,3,", 8), 0);
    assert_non_null(strstr(floe_buf_cstr(&b), ",998,999,"));
    /* Empty output still leaves a valid C string. */
    floe_buf e = FLOE_BUF_INIT;
    assert_ok(floe_buf_printf(&e, "%s", ""));
    assert_string_equal(floe_buf_cstr(&e), "");
    floe_buf_free(&e);
    floe_buf_free(&b);
}

static void extend_returns_room_for_exactly_n_new_bytes(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_buf_append_str(&b, "ab"));
    uint8_t *p = floe_buf_extend(&b, 3);
    assert_non_null(p);
    memcpy(p, "cde", 3);
    assert_int_equal(b.len, 5);
    assert_string_equal(floe_buf_cstr(&b), "abcde");
    floe_buf_free(&b);
}

static void binary_bytes_survive_append(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    const uint8_t bin[4] = {0, 0xff, 0, 7};
    assert_ok(floe_buf_append(&b, bin, 4));
    assert_ok(floe_buf_append(&b, NULL, 0));
    assert_int_equal(b.len, 4);
    assert_memory_equal(b.data, bin, 4);
    floe_buf_free(&b);
}

static void detach_hands_over_memory_and_empties_buffer(void **state) {
    (void)state;
    floe_mem_tracker t;
    floe_mem_tracker_init(&t, "buf");
    floe_mem_tracker *prev = floe_mem_set_current(&t);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_buf_append_str(&b, "metadata.json"));
    size_t len = 0;
    uint8_t *p = floe_buf_detach(&b, &len);
    assert_int_equal(len, 13);
    assert_string_equal((char *)p, "metadata.json");
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_true(floe_mem_current_bytes(&t) > 0);
    floe_free(p);
    assert_int_equal(floe_mem_current_bytes(&t), 0);
    floe_mem_set_current(prev);
}

static void clear_keeps_capacity_and_empties_text(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_buf_append_str(&b, "hello"));
    size_t cap = b.cap;
    floe_buf_clear(&b);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, cap);
    assert_string_equal(floe_buf_cstr(&b), "");
    floe_buf_clear(&b);
    floe_buf_free(&b);
    floe_buf empty = FLOE_BUF_INIT;
    floe_buf_clear(&empty); /* no data yet: must not crash */
    floe_buf_free(&empty);
}

static void reserve_of_absurd_size_reports_out_of_memory(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_buf_append_str(&b, "x"));
    assert_error(floe_buf_reserve(&b, SIZE_MAX - 1), FLOE_ERR_OUT_OF_MEMORY, "too large");
    assert_error(floe_buf_reserve(&b, SIZE_MAX), FLOE_ERR_OUT_OF_MEMORY, "too large");
    assert_string_equal(floe_buf_cstr(&b), "x");
    floe_buf_free(&b);
}

static void appending_the_buffer_to_itself_survives_growth(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_buf_append_str(&b, "abcdefgh"));
    /* Doubling repeatedly forces reallocation while the source is inside. */
    for (int i = 0; i < 6; i++) assert_ok(floe_buf_append(&b, b.data, b.len));
    assert_int_equal(b.len, 8 * 64);
    for (size_t i = 0; i < b.len; i++) assert_int_equal(b.data[i], "abcdefgh"[i % 8]);
    assert_ok(floe_buf_append(&b, b.data + 2, 3));
    assert_memory_equal(b.data + b.len - 3, "cde", 3);
    floe_buf_free(&b);
}

FLOE_TEST_MAIN(cmocka_unit_test(appending_the_buffer_to_itself_survives_growth),
               cmocka_unit_test(appends_accumulate_and_stay_nul_terminated),
               cmocka_unit_test(printf_formats_and_grows_past_initial_capacity),
               cmocka_unit_test(extend_returns_room_for_exactly_n_new_bytes),
               cmocka_unit_test(binary_bytes_survive_append),
               cmocka_unit_test(detach_hands_over_memory_and_empties_buffer),
               cmocka_unit_test(clear_keeps_capacity_and_empties_text),
               cmocka_unit_test(reserve_of_absurd_size_reports_out_of_memory))

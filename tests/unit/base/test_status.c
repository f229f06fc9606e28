/* Errors carry a code and a message, and wrapping adds context outermost-first. */
#include "floe_test.h"

#include "base/log.h"

static void error_keeps_code_and_formatted_message(void **state) {
    (void)state;
    floe_status st = floe_error(FLOE_ERR_CORRUPT, "page at offset %d: bad run", 4242);
    assert_int_equal(floe_status_code(st), FLOE_ERR_CORRUPT);
    assert_string_equal(floe_status_message(st), "page at offset 4242: bad run");
    floe_status_free(st);
}

static void wrap_prefixes_context_and_keeps_code(void **state) {
    (void)state;
    floe_status st = floe_error(FLOE_ERR_IO, "short read");
    st = floe_status_wrap(st, "column '%s'", "a");
    st = floe_status_wrap(st, "reading '%s'", "x.parquet");
    assert_int_equal(floe_status_code(st), FLOE_ERR_IO);
    assert_string_equal(floe_status_message(st), "reading 'x.parquet': column 'a': short read");
    floe_status_free(st);
}

static void null_status_is_success(void **state) {
    (void)state;
    assert_null(floe_status_wrap(NULL, "ignored %d", 1));
    assert_int_equal(floe_status_code(NULL), FLOE_OK);
    assert_string_equal(floe_status_message(NULL), "");
    floe_status_free(NULL);
}

static floe_status fails_inside(void) { return floe_error(FLOE_ERR_NOT_FOUND, "no table 'db.t'"); }
static floe_status calls_with_try(void) {
    FLOE_TRY_CTX(fails_inside(), "planning scan");
    return floe_error(FLOE_ERR_INTERNAL, "not reached");
}

static void try_ctx_returns_wrapped_error(void **state) {
    (void)state;
    assert_error(calls_with_try(), FLOE_ERR_NOT_FOUND, "planning scan: no table 'db.t'");
}

static void ok_code_is_never_an_error(void **state) {
    (void)state;
    floe_status st = floe_error(FLOE_OK, "oops");
    assert_int_equal(floe_status_code(st), FLOE_ERR_INTERNAL);
    floe_status_free(st);
}

/* Operator context is for whoever debugs: only with FLOE_LOG=debug. */
static void operator_context_only_when_debugging(void **state) {
    (void)state;
    floe_log_level saved = floe_log_get_level();
    floe_log_set_level(FLOE_LOG_WARN);
    floe_status st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "division by zero");
    st = floe_status_wrap_op(st, "Repartition: input partition %d", 1);
    assert_string_equal(floe_status_message(st), "division by zero");
    floe_status_free(st);
    floe_log_set_level(FLOE_LOG_DEBUG);
    st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "division by zero");
    st = floe_status_wrap_op(st, "Repartition: input partition %d", 1);
    assert_error(st, FLOE_ERR_INVALID_ARGUMENT, "Repartition: input partition 1: division by zero");
    assert_null(floe_status_wrap_op(NULL, "ignored %d", 1));
    /* out of memory names the innermost operator, once */
    floe_log_set_level(FLOE_LOG_WARN);
    st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating a buffer");
    st = floe_status_wrap_op(st, "join build side, partition %d", 0);
    st = floe_status_wrap_op(st, "Repartition: input partition %d", 1);
    assert_string_equal(floe_status_message(st), "join build side, partition 0: out of memory allocating a buffer");
    floe_status_free(st);
    floe_log_set_level(saved);
}

FLOE_TEST_MAIN(cmocka_unit_test(error_keeps_code_and_formatted_message),
               cmocka_unit_test(operator_context_only_when_debugging),
               cmocka_unit_test(wrap_prefixes_context_and_keeps_code),
               cmocka_unit_test(null_status_is_success),
               cmocka_unit_test(try_ctx_returns_wrapped_error),
               cmocka_unit_test(ok_code_is_never_an_error))

/*
 * floe_test.h — shared helpers for floe's cmocka unit tests.
 *
 * Every test file includes this, defines its test functions and ends with
 *   FLOE_TEST_MAIN(cmocka_unit_test(test_a), cmocka_unit_test(test_b))
 */
#ifndef FLOE_TEST_H
#define FLOE_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "floe/status.h"

/* Assert a floe_status is success; on failure print its message. */
#define assert_ok(expr)                                                        \
    do {                                                                       \
        floe_status st_ = (expr);                                              \
        if (st_) {                                                             \
            fail_msg("%s failed: [%s] %s", #expr,                              \
                     floe_code_name(floe_status_code(st_)),                    \
                     floe_status_message(st_));                                \
        }                                                                      \
    } while (0)

/* Assert a call fails with `code` and its message contains `needle`. */
#define assert_error(expr, code, needle)                                       \
    do {                                                                       \
        floe_status st_ = (expr);                                              \
        if (!st_) fail_msg("%s succeeded, expected an error", #expr);          \
        if (floe_status_code(st_) != (code))                                   \
            fail_msg("%s: expected code '%s', got '%s': %s", #expr,            \
                     floe_code_name(code), floe_code_name(floe_status_code(st_)), \
                     floe_status_message(st_));                                \
        if ((needle) && !strstr(floe_status_message(st_), (needle)))           \
            fail_msg("%s: message '%s' lacks '%s'", #expr,                     \
                     floe_status_message(st_), (const char *)(needle));        \
        floe_status_free(st_);                                                 \
    } while (0)

/* Directory of the shared test data written by other systems, or NULL when
 * it is absent.  FLOE_TESTDATA overrides the default ../shared/testdata.
 * Absent data makes tests skip, except under CI=true where it is a failure. */
static inline const char *floe_testdata_dir(void) {
    const char *d = getenv("FLOE_TESTDATA");
    if (!d || !*d) d = FLOE_TESTDATA_DEFAULT;
    struct stat sb;
    if (stat(d, &sb) == 0 && S_ISDIR(sb.st_mode)) return d;
    const char *ci = getenv("CI");
    if (ci && strcmp(ci, "true") == 0) {
        fprintf(stderr, "FAIL: test data directory '%s' is missing under CI=true\n", d);
        exit(1);
    }
    return NULL;
}

/* Use at the top of a test needing the shared data: sets `var` or skips. */
#define FLOE_NEED_TESTDATA(var)                                                \
    const char *var = floe_testdata_dir();                                     \
    if (!var) {                                                                \
        printf("SKIP: shared test data not found (set FLOE_TESTDATA or place " \
               "it at ../shared/testdata)\n");                                 \
        skip();                                                                \
    }

/* Join a directory and a relative path into a static-lifetime-free buffer. */
static inline const char *floe_test_path(char *out, size_t cap, const char *dir,
                                         const char *rel) {
    snprintf(out, cap, "%s/%s", dir, rel);
    return out;
}

/* A fresh empty scratch directory under the build tree for this test. */
static inline const char *floe_test_tmpdir(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/test-tmp/%s", FLOE_BINARY_DIR, name);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", out, out);
    if (system(cmd) != 0) fail_msg("cannot create scratch dir %s", out);
    return out;
}

#define FLOE_TEST_MAIN(...)                                                    \
    int main(void) {                                                           \
        const struct CMUnitTest tests_[] = {__VA_ARGS__};                      \
        return cmocka_run_group_tests(tests_, NULL, NULL);                     \
    }

#endif

/* String views, case-insensitive comparison, trimming, splitting, strict
 * number parsing, UTF-8 validation and edit distance. */
#include "floe_test.h"

#include <math.h>

#include "base/str.h"
#include "floe/memory.h"

#define S(lit) FLOE_STR_LIT(lit)

static void views_compare_by_bytes_not_by_nul(void **state) {
    (void)state;
    floe_str a = floe_str_make("abcdef", 3);
    assert_true(floe_str_eq(a, S("abc")));
    assert_false(floe_str_eq(a, S("abcd")));
    assert_true(floe_str_eq_c(a, "abc"));
    assert_true(floe_str_eq(floe_str_c(NULL), S("")));
    assert_true(floe_str_eq(floe_str_make("a\0b", 3), floe_str_make("a\0b", 3)));
    assert_false(floe_str_eq(floe_str_make("a\0b", 3), floe_str_make("a\0c", 3)));
    assert_true(floe_str_cmp(S("abc"), S("abd")) < 0);
    assert_true(floe_str_cmp(S("ab"), S("abc")) < 0);
    assert_true(floe_str_cmp(S("b"), S("abc")) > 0);
    assert_int_equal(floe_str_cmp(S(""), S("")), 0);
}

static void case_insensitive_compare_folds_ascii_only(void **state) {
    (void)state;
    assert_true(floe_str_ieq(S("Lineitem"), S("LINEITEM")));
    assert_true(floe_str_ieq_c(S("S3.Secret-Access-Key"), "s3.secret-access-key"));
    assert_false(floe_str_ieq(S("abc"), S("abd")));
    assert_false(floe_str_ieq(S("abc"), S("ab")));
    /* Non-ASCII bytes are compared exactly (no locale folding). */
    assert_false(floe_str_ieq(S("\xc3\xa9"), S("\xc3\x89")));
    assert_int_equal(floe_str_icmp(S("ABC"), S("abc")), 0);
    assert_true(floe_str_icmp(S("abc"), S("ABD")) < 0);
    assert_true(floe_str_icmp(S("Z"), S("a")) > 0);
    assert_true(floe_str_icmp(S("ab"), S("AB_")) < 0);
}

static void prefix_and_suffix_tests(void **state) {
    (void)state;
    floe_str path = S("s3://bucket/db/t/metadata/v3.metadata.json");
    assert_true(floe_str_starts_with(path, S("s3://")));
    assert_false(floe_str_starts_with(path, S("gs://")));
    assert_true(floe_str_ends_with(path, S(".metadata.json")));
    assert_false(floe_str_ends_with(S("json"), S(".metadata.json")));
    assert_true(floe_str_starts_with(path, S("")));
    assert_true(floe_str_istarts_with(S("SELECT 1"), S("select")));
    assert_true(floe_str_iends_with(S("FILE.PARQUET"), S(".parquet")));
    assert_false(floe_str_iends_with(S("parquet"), S(".parquet")));
}

static void trim_removes_ascii_whitespace_at_both_ends(void **state) {
    (void)state;
    assert_true(floe_str_eq(floe_str_trim(S(" \t\r\n value \n")), S("value")));
    assert_true(floe_str_eq(floe_str_trim(S("   ")), S("")));
    assert_true(floe_str_eq(floe_str_trim(S("")), S("")));
    assert_true(floe_str_eq(floe_str_trim_left(S("  a b ")), S("a b ")));
    assert_true(floe_str_eq(floe_str_trim_right(S("  a b ")), S("  a b")));
}

static void find_and_sub_stay_in_bounds(void **state) {
    (void)state;
    floe_str s = S("a.b.c");
    assert_int_equal(floe_str_find_char(s, '.', 0), 1);
    assert_int_equal(floe_str_find_char(s, '.', 2), 3);
    assert_int_equal(floe_str_find_char(s, '.', 4), -1);
    assert_int_equal(floe_str_find_char(s, '.', 99), -1);
    assert_int_equal(floe_str_find(s, S("b.c")), 2);
    assert_int_equal(floe_str_find(s, S("x")), -1);
    assert_int_equal(floe_str_find(s, S("a.b.c.d")), -1);
    assert_true(floe_str_eq(floe_str_sub(s, 2, 100), S("b.c")));
    assert_true(floe_str_eq(floe_str_sub(s, 100, 1), S("")));
}

static void split_next_yields_every_part_including_empty_ones(void **state) {
    (void)state;
    const char *expect[] = {"a", "", "b", ""};
    floe_str rest = S("a,,b,"), part;
    size_t i = 0;
    while (floe_str_split_next(&rest, ',', &part)) {
        assert_true(i < 4);
        assert_true(floe_str_eq_c(part, expect[i]));
        i++;
    }
    assert_int_equal(i, 4);
    rest = S("");
    assert_true(floe_str_split_next(&rest, ',', &part));
    assert_int_equal(part.len, 0);
    assert_false(floe_str_split_next(&rest, ',', &part));
}

static void split_allocates_array_of_views(void **state) {
    (void)state;
    floe_str *parts = NULL;
    size_t n = 0;
    assert_ok(floe_str_split(S("db.schema.table"), '.', &parts, &n));
    assert_int_equal(n, 3);
    assert_true(floe_str_eq_c(parts[0], "db"));
    assert_true(floe_str_eq_c(parts[1], "schema"));
    assert_true(floe_str_eq_c(parts[2], "table"));
    floe_free(parts);
    assert_ok(floe_str_split(S("single"), '.', &parts, &n));
    assert_int_equal(n, 1);
    assert_true(floe_str_eq_c(parts[0], "single"));
    floe_free(parts);
}

static void parse_int64_accepts_full_range(void **state) {
    (void)state;
    int64_t v = 0;
    assert_ok(floe_parse_int64(S("0"), NULL, &v));
    assert_int_equal(v, 0);
    assert_ok(floe_parse_int64(S("-42"), NULL, &v));
    assert_int_equal(v, -42);
    assert_ok(floe_parse_int64(S("+17"), NULL, &v));
    assert_int_equal(v, 17);
    assert_ok(floe_parse_int64(S("9223372036854775807"), NULL, &v));
    assert_true(v == INT64_MAX);
    assert_ok(floe_parse_int64(S("-9223372036854775808"), NULL, &v));
    assert_true(v == INT64_MIN);
    assert_ok(floe_parse_int64(S("000123"), NULL, &v));
    assert_int_equal(v, 123);
}

static void parse_int64_rejects_overflow_and_junk_naming_the_text(void **state) {
    (void)state;
    int64_t v = 77;
    assert_error(floe_parse_int64(S("9223372036854775808"), "option 'limit'", &v),
                 FLOE_ERR_INVALID_ARGUMENT, "option 'limit': '9223372036854775808' is not a valid 64-bit integer: out of range");
    assert_error(floe_parse_int64(S("-9223372036854775809"), NULL, &v), FLOE_ERR_INVALID_ARGUMENT, "out of range");
    assert_error(floe_parse_int64(S("99999999999999999999999"), NULL, &v), FLOE_ERR_INVALID_ARGUMENT, "out of range");
    assert_error(floe_parse_int64(S("12abc"), NULL, &v), FLOE_ERR_INVALID_ARGUMENT, "'12abc'");
    assert_error(floe_parse_int64(S(" 12"), NULL, &v), FLOE_ERR_INVALID_ARGUMENT, "' 12'");
    assert_error(floe_parse_int64(S("12 "), NULL, &v), FLOE_ERR_INVALID_ARGUMENT, "unexpected character");
    assert_error(floe_parse_int64(S(""), NULL, &v), FLOE_ERR_INVALID_ARGUMENT, "no digits");
    assert_error(floe_parse_int64(S("-"), NULL, &v), FLOE_ERR_INVALID_ARGUMENT, "no digits");
    assert_error(floe_parse_int64(S("1.5"), NULL, &v), FLOE_ERR_INVALID_ARGUMENT, "'1.5'");
    assert_error(floe_parse_int64(S("0x10"), NULL, &v), FLOE_ERR_INVALID_ARGUMENT, "'0x10'");
    assert_int_equal(v, 77); /* unchanged on error */
}

static void parse_uint64_accepts_max_and_rejects_sign(void **state) {
    (void)state;
    uint64_t v = 0;
    assert_ok(floe_parse_uint64(S("18446744073709551615"), NULL, &v));
    assert_true(v == UINT64_MAX);
    assert_error(floe_parse_uint64(S("18446744073709551616"), NULL, &v), FLOE_ERR_INVALID_ARGUMENT, "out of range");
    assert_error(floe_parse_uint64(S("-1"), NULL, &v), FLOE_ERR_INVALID_ARGUMENT, "'-1'");
}

static void long_offending_text_is_truncated_in_message(void **state) {
    (void)state;
    char longtext[300];
    memset(longtext, '7', sizeof longtext);
    longtext[150] = 'x';
    int64_t v;
    floe_status st = floe_parse_int64(floe_str_make(longtext, sizeof longtext), NULL, &v);
    assert_non_null(st);
    assert_non_null(strstr(floe_status_message(st), "..."));
    assert_true(strlen(floe_status_message(st)) < 200);
    floe_status_free(st);
}

static void parse_double_is_strict(void **state) {
    (void)state;
    double d = 0;
    assert_ok(floe_parse_double(S("3.25"), NULL, &d));
    assert_true(d == 3.25);
    assert_ok(floe_parse_double(S("-1e-3"), NULL, &d));
    assert_true(d == -1e-3);
    assert_ok(floe_parse_double(S("42"), NULL, &d));
    assert_true(d == 42.0);
    assert_ok(floe_parse_double(S("inf"), NULL, &d));
    assert_true(isinf(d));
    assert_ok(floe_parse_double(S("NaN"), NULL, &d));
    assert_true(isnan(d));
    assert_ok(floe_parse_double(S("1e-320"), NULL, &d)); /* subnormal is fine */
    assert_true(d > 0);
    d = 5;
    assert_error(floe_parse_double(S("1e999"), "option 'x'", &d), FLOE_ERR_INVALID_ARGUMENT, "option 'x': '1e999'");
    assert_error(floe_parse_double(S("1.5x"), NULL, &d), FLOE_ERR_INVALID_ARGUMENT, "'1.5x'");
    assert_error(floe_parse_double(S(" 1.5"), NULL, &d), FLOE_ERR_INVALID_ARGUMENT, "leading space");
    assert_error(floe_parse_double(S("1.5 "), NULL, &d), FLOE_ERR_INVALID_ARGUMENT, "'1.5 '");
    assert_error(floe_parse_double(S(""), NULL, &d), FLOE_ERR_INVALID_ARGUMENT, "empty");
    assert_error(floe_parse_double(S("."), NULL, &d), FLOE_ERR_INVALID_ARGUMENT, "'.'");
    assert_error(floe_parse_double(floe_str_make("1\0002", 3), NULL, &d), FLOE_ERR_INVALID_ARGUMENT, "'1?2'");
    assert_true(d == 5);
    /* A long number takes the heap path. */
    char big[200];
    memset(big, '0', sizeof big);
    big[0] = '1';
    big[1] = '.';
    assert_ok(floe_parse_double(floe_str_make(big, sizeof big), NULL, &d));
    assert_true(d == 1.0);
}

static void parse_bool_accepts_common_spellings(void **state) {
    (void)state;
    bool b = false;
    const char *yes[] = {"true", "TRUE", "True", "t", "yes", "Y", "on", "1"};
    const char *no[] = {"false", "FALSE", "f", "no", "N", "off", "OFF", "0"};
    for (size_t i = 0; i < 8; i++) {
        b = false;
        assert_ok(floe_parse_bool(floe_str_c(yes[i]), NULL, &b));
        assert_true(b);
        b = true;
        assert_ok(floe_parse_bool(floe_str_c(no[i]), NULL, &b));
        assert_false(b);
    }
    assert_error(floe_parse_bool(S("maybe"), "option 'vectorized'", &b), FLOE_ERR_INVALID_ARGUMENT,
                 "option 'vectorized': 'maybe' is not a valid boolean");
    assert_error(floe_parse_bool(S("2"), NULL, &b), FLOE_ERR_INVALID_ARGUMENT, "'2'");
    assert_error(floe_parse_bool(S(""), NULL, &b), FLOE_ERR_INVALID_ARGUMENT, "boolean");
}

static void utf8_validation_accepts_wellformed_text(void **state) {
    (void)state;
    const char *ok[] = {"", "plain ascii text, longer than eight bytes", "caf\xc3\xa9",
                        "\xe2\x82\xac 100", "\xf0\x9f\x98\x80 emoji", "\xed\x9f\xbf",
                        "\xf4\x8f\xbf\xbf", "\xef\xbb\xbf" "bom"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        assert_true(floe_utf8_valid(ok[i], strlen(ok[i]), NULL));
    assert_ok(floe_utf8_check("abc", 3, "column 'name'"));
}

static void utf8_validation_rejects_malformed_sequences_with_offset(void **state) {
    (void)state;
    struct {
        const char *s;
        size_t bad;
    } cases[] = {
        {"abc\x80", 3},                     /* stray continuation */
        {"ab\xc0\xaf", 2},                  /* overlong '/' */
        {"\xc1\xbf", 0},                    /* overlong */
        {"xx\xe0\x80\xaf", 2},              /* overlong 3-byte */
        {"\xed\xa0\x80", 0},                /* UTF-16 surrogate */
        {"\xf4\x90\x80\x80", 0},            /* above U+10FFFF */
        {"\xf5\x80\x80\x80", 0},            /* invalid lead */
        {"12345678\xe2\x82", 8},            /* truncated at end, after fast path */
        {"\xc3(", 0},                       /* bad continuation */
        {"0123456789abcdef\xff", 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t off = 999;
        assert_false(floe_utf8_valid(cases[i].s, strlen(cases[i].s), &off));
        assert_int_equal(off, cases[i].bad);
    }
    assert_error(floe_utf8_check("ab\xff", 3, "column 'name'"), FLOE_ERR_CORRUPT,
                 "column 'name': invalid UTF-8 at byte offset 2 (byte 0xff)");
}

static void edit_distance_counts_insertions_deletions_substitutions(void **state) {
    (void)state;
    assert_int_equal(floe_str_edit_distance(S("kitten"), S("sitting")), 3);
    assert_int_equal(floe_str_edit_distance(S("sitting"), S("kitten")), 3);
    assert_int_equal(floe_str_edit_distance(S(""), S("abc")), 3);
    assert_int_equal(floe_str_edit_distance(S("abc"), S("")), 3);
    /* an adjacent transposition is one edit */
    assert_int_equal(floe_str_edit_distance(S("titel"), S("title")), 1);
    assert_int_equal(floe_str_edit_distance(S("ab"), S("ba")), 1);
    assert_int_equal(floe_str_edit_distance(S("ca"), S("abc")), 3);
    assert_int_equal(floe_str_edit_distance(S("same"), S("same")), 0);
    assert_int_equal(floe_str_edit_distance(S("flaw"), S("lawn")), 2);
    assert_int_equal(floe_str_edit_distance(S("ABC"), S("abc")), 3);
    assert_int_equal(floe_str_edit_distance_ci(S("ABC"), S("abc")), 0);
    /* Long strings use a heap row. */
    char a[300], b[300];
    memset(a, 'a', sizeof a);
    memcpy(b, a, sizeof b);
    b[10] = 'x';
    b[200] = 'y';
    assert_int_equal(floe_str_edit_distance(floe_str_make(a, 300), floe_str_make(b, 300)), 2);
    assert_int_equal(floe_str_edit_distance(floe_str_make(a, 300), floe_str_make(b, 250)), 52);
}

static void closest_suggests_near_names_only(void **state) {
    (void)state;
    const char *cols[] = {"l_orderkey", "l_quantity", "l_extendedprice", "l_shipdate"};
    assert_int_equal(floe_str_closest(S("l_quantty"), cols, 4), 1);
    assert_int_equal(floe_str_closest(S("L_SHIPDATE"), cols, 4), 3);
    assert_int_equal(floe_str_closest(S("totally_different"), cols, 4), -1);
    assert_int_equal(floe_str_closest(S("x"), cols, 0), -1);
}

static void unknown_name_error_suggests_the_closest_candidate(void **state) {
    (void)state;
    const char *tables[] = {"orders", "lineitem", "customer"};
    assert_error(floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "table", S("lineitme"), tables, 3), FLOE_ERR_NOT_FOUND,
                 "unknown table 'lineitme' (did you mean 'lineitem'?)");
    floe_status st = floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "table", S("zzz"), tables, 3);
    assert_string_equal(floe_status_message(st), "unknown table 'zzz'");
    floe_status_free(st);
}

static void lower_upper_convert_ascii_and_copy(void **state) {
    (void)state;
    char buf[] = "MiXeD-123_\xc3\x89";
    floe_ascii_lower_inplace(buf, strlen(buf));
    assert_string_equal(buf, "mixed-123_\xc3\x89");
    floe_ascii_upper_inplace(buf, strlen(buf));
    assert_string_equal(buf, "MIXED-123_\xc3\x89");
    char *l = floe_str_lower_dup(S("SELECT"));
    char *u = floe_str_upper_dup(floe_str_make("from x", 4));
    assert_string_equal(l, "select");
    assert_string_equal(u, "FROM");
    char *d = floe_str_dup(floe_str_make("abc", 2));
    assert_string_equal(d, "ab");
    floe_free(l);
    floe_free(u);
    floe_free(d);
    assert_int_equal(floe_ascii_lower('Q'), 'q');
    assert_int_equal(floe_ascii_upper('['), '[');
}

FLOE_TEST_MAIN(cmocka_unit_test(views_compare_by_bytes_not_by_nul),
               cmocka_unit_test(case_insensitive_compare_folds_ascii_only),
               cmocka_unit_test(prefix_and_suffix_tests),
               cmocka_unit_test(trim_removes_ascii_whitespace_at_both_ends),
               cmocka_unit_test(find_and_sub_stay_in_bounds),
               cmocka_unit_test(split_next_yields_every_part_including_empty_ones),
               cmocka_unit_test(split_allocates_array_of_views),
               cmocka_unit_test(parse_int64_accepts_full_range),
               cmocka_unit_test(parse_int64_rejects_overflow_and_junk_naming_the_text),
               cmocka_unit_test(parse_uint64_accepts_max_and_rejects_sign),
               cmocka_unit_test(long_offending_text_is_truncated_in_message),
               cmocka_unit_test(parse_double_is_strict),
               cmocka_unit_test(parse_bool_accepts_common_spellings),
               cmocka_unit_test(utf8_validation_accepts_wellformed_text),
               cmocka_unit_test(utf8_validation_rejects_malformed_sequences_with_offset),
               cmocka_unit_test(edit_distance_counts_insertions_deletions_substitutions),
               cmocka_unit_test(closest_suggests_near_names_only),
               cmocka_unit_test(unknown_name_error_suggests_the_closest_candidate),
               cmocka_unit_test(lower_upper_convert_ascii_and_copy))

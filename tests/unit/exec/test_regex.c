/*
 * test_regex.c — PostgreSQL ARE → PCRE2 translation (regex.c): word
 * boundaries, \Z, \B, \uXXXX, brackets left alone, the ***= and ***:
 * prefixes and leading embedded options; SIMILAR TO → ARE; flag letters;
 * the compiled-pattern cache hands out the same pattern for the same key;
 * an invalid pattern's error names it.
 */
#include <string.h>

#include "exec/func/regex.h"
#include "floe_test.h"

static void expect(const char *are, const char *pcre) {
    fn_regex_opts o = fn_regex_default_opts();
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(fn_regex_translate(are, (int64_t)strlen(are), &o, &b));
    assert_string_equal(floe_buf_cstr(&b), pcre);
    floe_buf_free(&b);
}

static void are_escapes_become_pcre(void **state) {
    (void)state;
    expect("\\mcat\\M", "\\b(?=\\w)cat\\b(?<=\\w)");
    expect("\\ycat\\Y", "\\bcat\\B");
    expect("end\\Z", "end\\z");
    expect("a\\Bb", "a\\\\b");
    expect("\\u00e9", "\\x{00e9}");
    expect("\\d+\\s\\w", "\\d+\\s\\w");
    /* inside brackets nothing is rewritten; a leading ']' is literal */
    expect("[[:alpha:]\\m]", "[[:alpha:]\\m]");
    expect("[]a]", "[\\]a]");
    expect("[^]a]", "[^\\]a]");
}

static void prefixes_and_embedded_options(void **state) {
    (void)state;
    fn_regex_opts o = fn_regex_default_opts();
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(fn_regex_translate("***=a.b", 7, &o, &b));
    assert_true(o.literal);
    assert_string_equal(floe_buf_cstr(&b), "a\\.b");
    floe_buf_clear(&b);
    o = fn_regex_default_opts();
    assert_ok(fn_regex_translate("(?ix)a b", 8, &o, &b));
    assert_true(o.icase);
    assert_true(o.expanded);
    assert_string_equal(floe_buf_cstr(&b), "a b");
    floe_buf_clear(&b);
    o = fn_regex_default_opts();
    assert_ok(fn_regex_translate("***:(?n)^x$", 11, &o, &b));
    assert_true(o.multiline);
    assert_false(o.dotnl);
    assert_string_equal(floe_buf_cstr(&b), "^x$");
    floe_buf_free(&b);
}

static void similar_to_patterns(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(fn_similar_to_are("a%b_c.d|(e)[%_]\\%", 17, '\\', &b));
    assert_string_equal(floe_buf_cstr(&b), "^(?:a.*b.c\\.d|(?:e)[%_]\\%)$");
    floe_buf_clear(&b);
    assert_ok(fn_similar_to_are("a#%b\\c", 6, '#', &b));
    assert_string_equal(floe_buf_cstr(&b), "^(?:a\\%b\\\\c)$");
    floe_buf_free(&b);
    assert_error(fn_similar_to_are("a\\", 2, '\\', &b), FLOE_ERR_INVALID_ARGUMENT, "escape");
    floe_buf_free(&b);
}

static void flags_and_errors(void **state) {
    (void)state;
    fn_regex_opts o = fn_regex_default_opts();
    assert_ok(fn_regex_flags("regexp_replace", "gi", 2, true, &o));
    assert_true(o.global);
    assert_true(o.icase);
    assert_error(fn_regex_flags("regexp_match", "g", 1, false, &o), FLOE_ERR_INVALID_ARGUMENT,
                 "regexp_match() does not support the \"global\" option");
    assert_error(fn_regex_flags("regexp_like", "z", 1, false, &o), FLOE_ERR_INVALID_ARGUMENT,
                 "invalid regular expression option: \"z\"");

    fn_regex *r1 = NULL, *r2 = NULL;
    o = fn_regex_default_opts();
    assert_ok(fn_regex_get("(a)(b)?", 7, &o, &r1));
    assert_ok(fn_regex_get("(a)(b)?", 7, &o, &r2));
    assert_ptr_equal(r1, r2); /* compiled once */
    assert_int_equal(fn_regex_groups(r1), 2);
    fn_match m;
    bool found = false;
    assert_ok(fn_match_init(&m, r1));
    assert_ok(fn_match_find(&m, "xxab", 4, 0, &found));
    assert_true(found);
    assert_int_equal((int)m.ov[0], 2);
    assert_int_equal((int)m.ov[5], 4);
    assert_ok(fn_match_find(&m, "xxa", 3, 0, &found));
    assert_true(found && m.ov[4] == FN_UNSET);
    fn_match_free(&m);
    fn_regex_release(r1);
    fn_regex_release(r2);

    assert_error(fn_regex_get("(ab", 3, &o, &r1), FLOE_ERR_INVALID_ARGUMENT, "invalid regular expression: ");
    assert_error(fn_regex_get("(ab", 3, &o, &r1), FLOE_ERR_INVALID_ARGUMENT, "in \"(ab\"");
}

FLOE_TEST_MAIN(cmocka_unit_test(are_escapes_become_pcre), cmocka_unit_test(prefixes_and_embedded_options),
               cmocka_unit_test(similar_to_patterns), cmocka_unit_test(flags_and_errors))

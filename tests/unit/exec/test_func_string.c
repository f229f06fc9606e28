/*
 * test_func_string.c — the string scalar functions: results against
 * PostgreSQL semantics (1-based character positions, negative counts,
 * NULL propagation, concat skipping NULLs), UTF-8 character handling,
 * LIKE/ILIKE with wildcards and escapes (the segment matcher checked
 * exhaustively against a reference over a small alphabet), and the optimizer's pure-prefix
 * test for LIKE patterns.
 */
#include "exec/func/functions.h"
#include "fn_util.h"

static void length_counts_characters_and_octets_bytes(void **state) {
    (void)state;
    EXPECT_T("5", "int64", call("length", 1, S("héllo")));
    EXPECT("6", call("octet_length", 1, S("héllo")));
    EXPECT("0", call("length", 1, S("")));
    EXPECT("NULL", call("length", 1, NULLOF(FLOE_TYPE_STRING)));
    EXPECT("3", call("length", 1, S("日本語")));
}

static void substring_follows_sql_positions(void **state) {
    (void)state;
    EXPECT("ell", call("substring", 3, S("hello"), I(2), I(3)));
    EXPECT("he", call("substring", 3, S("hello"), I(0), I(3)));
    EXPECT("h", call("substring", 3, S("hello"), I(-1), I(3)));
    EXPECT("llo", call("substring", 2, S("hello"), I(3)));
    EXPECT("", call("substring", 2, S("hello"), I(10)));
    EXPECT("éllo", call("substring", 3, S("héllo wörld"), I32(2), I32(4)));
    EXPECT("wörld", call("substring", 2, S("héllo wörld"), I(7)));
    EXPECT("hello", call("substring", 3, S("hello"), I(1), I(INT64_MAX)));
    EXPECT("NULL", call("substring", 3, S("hello"), I(1), NULLOF(FLOE_TYPE_INT64)));
    EXPECT("", call("substring", 3, S("hello"), I(INT64_MIN), I(5)));
    EXPECT("hello", call("substring", 2, S("hello"), I(INT64_MIN)));
    EXPECT("", call("substring", 2, S("hello"), I(INT64_MAX)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "negative substring length -1", call("substring", 3, S("x"), I(1), I(-1)));
    EXPECT_ERR(FLOE_ERR_TYPE, "substring(int64, int64)", call("substring", 2, I(1), I(1)));
}

static void left_and_right_take_or_drop_characters(void **state) {
    (void)state;
    EXPECT("he", call("left", 2, S("hello"), I(2)));
    EXPECT("hel", call("left", 2, S("hello"), I(-2)));
    EXPECT("", call("left", 2, S("hello"), I(-9)));
    EXPECT("lo", call("right", 2, S("hello"), I(2)));
    EXPECT("llo", call("right", 2, S("hello"), I(-2)));
    EXPECT("hello", call("right", 2, S("hello"), I(99)));
    EXPECT("hé", call("left", 2, S("héllo"), I(2)));
    EXPECT("lö", call("right", 2, S("hélö"), I(2)));
    EXPECT("", call("right", 2, S("hello"), I(INT64_MIN)));
    EXPECT("", call("left", 2, S("hello"), I(INT64_MIN)));
    EXPECT("hello", call("left", 2, S("hello"), I(INT64_MAX)));
}

static void trim_removes_characters_from_the_set(void **state) {
    (void)state;
    EXPECT("ab", call("trim", 1, S("  ab  ")));
    EXPECT("abxx", call("ltrim", 2, S("xxabxx"), S("x")));
    EXPECT("xxab", call("rtrim", 2, S("xxabxx"), S("x")));
    EXPECT("a", call("trim", 2, S("ééaéé"), S("é")));
    EXPECT("b", call("trim", 2, S("xyxbyx"), S("xy")));
    EXPECT("", call("trim", 1, S("   ")));
    EXPECT("NULL", call("trim", 2, S("x"), NULLOF(FLOE_TYPE_STRING)));
}

static void concat_skips_nulls_and_textcat_propagates_them(void **state) {
    (void)state;
    EXPECT("a1b", call("concat", 4, S("a"), NULLOF(FLOE_TYPE_STRING), I(1), S("b")));
    EXPECT("", call("concat", 1, NULLOF(FLOE_TYPE_STRING)));
    EXPECT("x2024-02-29", call("concat", 2, S("x"), TYPED(FLOE_TYPE_DATE32, 19782)));
    EXPECT("NULL", call("textcat", 2, S("a"), NULLOF(FLOE_TYPE_STRING)));
    EXPECT("ab", call("textcat", 2, S("a"), S("b")));
    EXPECT("x1.5", call("textcat", 2, S("x"), F(1.5)));
    EXPECT("a, 1, b", call("concat_ws", 5, S(", "), S("a"), NULLOF(FLOE_TYPE_STRING), I(1), S("b")));
    EXPECT("", call("concat_ws", 2, S(","), NULLOF(FLOE_TYPE_STRING)));
    EXPECT("NULL", call("concat_ws", 3, NULLOF(FLOE_TYPE_STRING), S("a"), S("b")));
}

static void replace_strpos_and_affix_tests(void **state) {
    (void)state;
    EXPECT("aXaX", call("replace", 3, S("abcabc"), S("bc"), S("X")));
    EXPECT("abc", call("replace", 3, S("abc"), S(""), S("X")));
    EXPECT("", call("replace", 3, S("aaa"), S("a"), S("")));
    EXPECT_T("3", "int64", call("strpos", 2, S("héllo"), S("llo")));
    EXPECT("1", call("strpos", 2, S("abc"), S("")));
    EXPECT("0", call("strpos", 2, S("abc"), S("z")));
    EXPECT_T("true", "bool", call("starts_with", 2, S("hello"), S("he")));
    EXPECT("false", call("starts_with", 2, S("he"), S("hello")));
    EXPECT("true", call("ends_with", 2, S("hello"), S("lo")));
    EXPECT("false", call("ends_with", 2, S("hello"), S("he")));
    EXPECT("true", call("contains", 2, S("hello"), S("ell")));
    EXPECT("true", call("contains", 2, S("hello"), S("")));
    EXPECT("false", call("contains", 2, S("hello"), S("elo")));
    EXPECT("NULL", call("contains", 2, NULLOF(FLOE_TYPE_STRING), S("")));
}

static void pad_repeat_reverse(void **state) {
    (void)state;
    EXPECT("   hi", call("lpad", 2, S("hi"), I(5)));
    EXPECT("xyxhi", call("lpad", 3, S("hi"), I(5), S("xy")));
    EXPECT("hixyx", call("rpad", 3, S("hi"), I(5), S("xy")));
    EXPECT("he", call("lpad", 2, S("hello"), I(2)));
    EXPECT("", call("lpad", 2, S("hi"), I(-1)));
    EXPECT("hi", call("lpad", 3, S("hi"), I(4), S("")));
    EXPECT("ééhé", call("lpad", 3, S("hé"), I(4), S("é")));
    EXPECT("olléh", call("reverse", 1, S("héllo")));
    EXPECT("ababab", call("repeat", 2, S("ab"), I(3)));
    EXPECT("", call("repeat", 2, S("ab"), I(0)));
    EXPECT("", call("repeat", 2, S("ab"), I(-1)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "too large", call("repeat", 2, S("ab"), I(INT64_MAX / 2)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "too large", call("lpad", 2, S("ab"), I(INT64_MAX)));
}

static void split_part_counts_fields_from_either_end(void **state) {
    (void)state;
    EXPECT("b", call("split_part", 3, S("a,b,c"), S(","), I(2)));
    EXPECT("", call("split_part", 3, S("a,b,c"), S(","), I(4)));
    EXPECT("c", call("split_part", 3, S("a,b,c"), S(","), I(-1)));
    EXPECT("a", call("split_part", 3, S("a,b,c"), S(","), I(-3)));
    EXPECT("", call("split_part", 3, S("a,b,c"), S(","), I(-4)));
    EXPECT("", call("split_part", 3, S("a,,b"), S(","), I(2)));
    EXPECT("b", call("split_part", 3, S("a<>b"), S("<>"), I(2)));
    EXPECT("abc", call("split_part", 3, S("abc"), S(""), I(1)));
    EXPECT("", call("split_part", 3, S("abc"), S(""), I(2)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "must not be zero", call("split_part", 3, S("a"), S(","), I(0)));
}

static void like_wildcards_and_escapes(void **state) {
    (void)state;
    EXPECT("true", call("like", 2, S("abc"), S("a%")));
    EXPECT("true", call("like", 2, S("abc"), S("_b_")));
    EXPECT("true", call("like", 2, S("héllo"), S("h_llo")));
    EXPECT("false", call("like", 2, S("héllo"), S("h__llo")));
    EXPECT("false", call("like", 2, S("abc"), S("a_")));
    EXPECT("true", call("like", 2, S("100%"), S("100\\%")));
    EXPECT("false", call("like", 2, S("100x"), S("100\\%")));
    EXPECT("true", call("like", 2, S("a_b"), S("a\\_b")));
    EXPECT("false", call("like", 2, S("axb"), S("a\\_b")));
    EXPECT("true", call("like", 2, S("a\\b"), S("a\\\\b")));
    EXPECT("true", call("like", 3, S("a%b"), S("a#%b"), S("#")));
    EXPECT("false", call("like", 3, S("axb"), S("a#%b"), S("#")));
    EXPECT("true", call("like", 3, S("a\\b"), S("a\\b"), S("")));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "must not end with the escape", call("like", 2, S("a"), S("a\\")));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "one character", call("like", 3, S("a"), S("a"), S("ab")));
    EXPECT("NULL", call("like", 2, NULLOF(FLOE_TYPE_STRING), S("a")));
    EXPECT("false", call("like", 2, S("ABC"), S("abc")));
    EXPECT("true", call("ilike", 2, S("ABC"), S("abc")));
    EXPECT("true", call("ilike", 2, S("ÉCOLE"), S("é%")));
    EXPECT("true", call("like", 2, S("mississippi"), S("%iss%ipp%")));
    EXPECT("false", call("like", 2, S("mississippi"), S("%iss%ipp")));
    EXPECT("true", call("like", 2, S("mississippi"), S("m%i%s%i")));
    EXPECT("true", call("like", 2, S(""), S("%")));
    EXPECT("false", call("like", 2, S(""), S("_")));
    EXPECT("true", call("like", 2, S("abc"), S("%%c")));
    EXPECT("true", call("like", 2, S("abc"), S("abc")));
    EXPECT("false", call("like", 2, S("abcd"), S("abc")));
    EXPECT("true", call("like", 2, S("xabc"), S("%abc")));
    EXPECT("true", call("like", 2, S("日本語"), S("_本_")));
}

/* A reference LIKE for patterns of literal bytes and '%' (recursive, no
 * shortcuts): what the segment matcher must agree with. */
static bool ref_like(const char *s, const char *p) {
    if (!*p) return !*s;
    if (*p == '%') {
        for (const char *t = s;; t++) {
            if (ref_like(t, p + 1)) return true;
            if (!*t) return false;
        }
    }
    return *s == *p && ref_like(s + 1, p + 1);
}

static void like_with_inner_percents_matches_runs_in_order(void **state) {
    (void)state;
    EXPECT("true", call("like", 2, S("blithely special packages requests sleep"), S("%special%requests%")));
    EXPECT("false", call("like", 2, S("requests special"), S("%special%requests%")));
    EXPECT("false", call("like", 2, S("specialrequest"), S("%special%requests%")));
    EXPECT("true", call("like", 2, S("specialrequests"), S("%special%requests%")));
    EXPECT("false", call("like", 2, S("a"), S("a%a")));      /* prefix and suffix may not overlap */
    EXPECT("true", call("like", 2, S("aa"), S("a%a")));
    EXPECT("false", call("like", 2, S("aba"), S("%aba%ba%"))); /* runs may not overlap */
    EXPECT("true", call("like", 2, S("ababa"), S("%ab%ba")));
    EXPECT("true", call("like", 2, S("xaybz"), S("%a%b%")));
    EXPECT("false", call("like", 2, S("xaybz"), S("%a%b")));
    EXPECT("true", call("like", 2, S("héllo wörld"), S("h%ö%d")));
    EXPECT("true", call("ilike", 2, S("Special REQUESTS"), S("%special%requests%")));
    EXPECT("NULL", call("like", 2, NULLOF(FLOE_TYPE_STRING), S("%a%b%")));
    /* every string over {a, b} up to 6 long against every pattern over
     * {a, b, %} up to 5 long agrees with the reference */
    char str[8], pat[8];
    const char *alpha = "ab", *palpha = "ab%";
    int checked = 0;
    floe_batch *b1 = one_row();
    for (int sl = 0; sl <= 6; sl++)
        for (int sv = 0; sv < (1 << sl); sv++) {
            for (int i = 0; i < sl; i++) str[i] = alpha[(sv >> i) & 1];
            str[sl] = 0;
            for (int pl = 0; pl <= 5; pl++) {
                int np = 1;
                for (int i = 0; i < pl; i++) np *= 3;
                for (int pv = 0; pv < np; pv++) {
                    for (int i = 0, v = pv; i < pl; i++, v /= 3) pat[i] = palpha[v % 3];
                    pat[pl] = 0;
                    floe_expr *e = call("like", 2, S(str), S(pat));
                    const char *got = render(e, b1, NULL);
                    if (strcmp(got, ref_like(str, pat) ? "true" : "false") != 0)
                        fail_msg("'%s' LIKE '%s' gave %s", str, pat, got);
                    checked++;
                }
            }
        }
    floe_batch_release(b1);
    assert_true(checked > 30000);
}

static void like_pattern_per_row(void **state) {
    (void)state;
    const char *s[] = {"apple", "banana", SNULL, "cherry", "date"};
    const char *p[] = {"a%", "%an%", "x", SNULL, "D%"};
    const char *const *cols[] = {s, p};
    floe_batch *b = str_batch(2, 5, cols);
    assert_string_equal(render(call("like", 2, COL(0), COL(1)), b, NULL), "true|true|NULL|NULL|false");
    assert_string_equal(render(call("ilike", 2, COL(0), COL(1)), b, NULL), "true|true|NULL|NULL|true");
    assert_string_equal(render(call("like", 2, COL(0), S("%a%")), b, NULL), "true|true|NULL|false|true");
    assert_string_equal(render(call("substring", 3, COL(0), I(2), I(2)), b, NULL), "pp|an|NULL|he|at");
    floe_batch_release(b);
}

static void like_pure_prefix_recognises_literal_then_percent(void **state) {
    (void)state;
    char *p = NULL;
    assert_true(floe_like_pure_prefix("abc%", '\\', &p));
    assert_string_equal(p, "abc");
    floe_free(p);
    assert_true(floe_like_pure_prefix("a\\%b%", '\\', &p));
    assert_string_equal(p, "a%b");
    floe_free(p);
    assert_true(floe_like_pure_prefix("%", '\\', &p));
    assert_string_equal(p, "");
    floe_free(p);
    assert_false(floe_like_pure_prefix("ab%c%", '\\', &p));
    assert_null(p);
    assert_false(floe_like_pure_prefix("ab_%", '\\', &p));
    assert_false(floe_like_pure_prefix("abc", '\\', &p));
    assert_false(floe_like_pure_prefix("%abc", '\\', &p));
    assert_false(floe_like_pure_prefix("ab\\", '\\', &p));
    assert_true(floe_like_pure_prefix("a\\b%", 0, &p));
    assert_string_equal(p, "a\\b");
    floe_free(p);
}

static void initcap_translate_chr_ascii(void **state) {
    (void)state;
    EXPECT("Hello World-Foo 2nd", call("initcap", 1, S("hello wORLD-foo 2ND")));
    EXPECT("Élan Über", call("initcap", 1, S("élan üBER")));
    EXPECT("a2x5", call("translate", 3, S("12345"), S("143"), S("ax")));
    EXPECT("hÉllo", call("translate", 3, S("héllo"), S("é"), S("É")));
    EXPECT("A|é|€", call("concat", 5, call("chr", 1, I(65)), S("|"), call("chr", 1, I(233)), S("|"), call("chr", 1, I(8364))));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "chr: null character not permitted", call("chr", 1, I(0)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "requested character too large for encoding", call("chr", 1, I(0x110000)));
    EXPECT_T("233", "int64", call("ascii", 1, S("éa")));
    EXPECT("0", call("ascii", 1, S("")));
    EXPECT("NULL", call("ascii", 1, NULLOF(FLOE_TYPE_STRING)));
}

/* Malformed UTF-8 (stray continuation bytes, truncated sequences, bytes
 * that never start a character) goes through every string function
 * without reading out of bounds; results are well-formed arrays.  Run
 * under AddressSanitizer this is the real check. */
static void string_functions_survive_malformed_utf8(void **state) {
    (void)state;
    const char *s[] = {"\xff\xfe", "a\xe2\x82", "\xc3", "\x80\x80x", "\xf0\x9f\x98", "ok", SNULL, ""};
    const char *const *cols[] = {s};
    floe_batch *b = str_batch(1, 8, cols);
    int ran = 0;
    for (const floe_func_def *d = floe_string_funcs; d->name; d++) {
        int max = d->max_args < 0 ? d->min_args + 1 : d->max_args;
        for (int n = d->min_args; n <= max; n++) {
            floe_expr *args[4], *e;
            size_t nk = strlen(d->kinds);
            bool has_col = false;
            for (int i = 0; i < n; i++) {
                bool is_int = d->kinds[(size_t)i < nk ? (size_t)i : nk - 1] == 'I';
                args[i] = is_int ? I(2) : COL(0);
                has_col |= !is_int;
            }
            assert_ok(floe_expr_call(d->name, args, n, &e));
            for (int i = 0; i < n; i++) floe_expr_release(args[i]);
            floe_array *a = NULL;
            floe_status st = floe_expr_eval(e, b, &a);
            if (st) {
                /* LIKE patterns ending in a lone escape are rejected */
                assert_int_equal(floe_status_code(st), FLOE_ERR_INVALID_ARGUMENT);
                floe_status_free(st);
            } else {
                assert_int_equal(a->length, 8);
                if (has_col && strncmp(d->name, "concat", 6) != 0) /* concat skips NULLs */
                    assert_true(floe_array_is_null(a, 6));
                ran++;
            }
            floe_array_release(a);
            floe_expr_release(e);
        }
    }
    assert_true(ran > 30);
    assert_string_equal(render(call("length", 1, COL(0)), b, NULL), "2|2|1|1|1|2|NULL|0");
    /* reverse keeps malformed bytes whole and in reverse order */
    floe_expr *rev = call("reverse", 1, COL(0));
    floe_array *r = NULL;
    assert_ok(floe_expr_eval(rev, b, &r));
    floe_strview v = floe_array_get_str(r, 1);
    assert_int_equal(v.len, 3);
    assert_memory_equal(v.data, "\xe2\x82" "a", 3);
    floe_array_release(r);
    floe_expr_release(rev);
    floe_batch_release(b);
}

FLOE_TEST_MAIN(cmocka_unit_test(length_counts_characters_and_octets_bytes),
               cmocka_unit_test(substring_follows_sql_positions),
               cmocka_unit_test(left_and_right_take_or_drop_characters),
               cmocka_unit_test(trim_removes_characters_from_the_set),
               cmocka_unit_test(concat_skips_nulls_and_textcat_propagates_them),
               cmocka_unit_test(replace_strpos_and_affix_tests),
               cmocka_unit_test(pad_repeat_reverse),
               cmocka_unit_test(split_part_counts_fields_from_either_end),
               cmocka_unit_test(like_wildcards_and_escapes),
               cmocka_unit_test(like_with_inner_percents_matches_runs_in_order),
               cmocka_unit_test(like_pattern_per_row),
               cmocka_unit_test(like_pure_prefix_recognises_literal_then_percent),
               cmocka_unit_test(initcap_translate_chr_ascii),
               cmocka_unit_test(string_functions_survive_malformed_utf8))

/*
 * test_tpch_gen.c — the TpchGen leaf: row counts at SF 0.01 for every
 * table, the spec's formulas and rules (sparse order keys, ps_suppkey,
 * p_retailprice and l_extendedprice, date offsets, return flag and line
 * status, order status and total price, customers without orders), the
 * fixed NATION / REGION rows, the supplier comment plants, determinism
 * across partition counts, the codec roundtrip, EXPLAIN, and refusals.
 */
#include <math.h>
#include <string.h>

#include "exec/tpch/tpch_dists.h"
#include "exec/tpch/tpch_text.h"
#include "exec_util.h"
#include "floe/exec_tpch.h"

#define CURRENTDATE 9298 /* 1995-06-17 */

static floe_threadpool *pool;

static int setup(void **state) {
    (void)state;
    return floe_threadpool_create(2, &pool) ? -1 : 0;
}
static int teardown(void **state) {
    (void)state;
    floe_threadpool_destroy(pool);
    return 0;
}

/* All rows of `table` at `sf` over `parts` partitions, as one batch. */
static floe_batch *gen(const char *table, double sf, int32_t parts, int64_t batch_size) {
    floe_plan *p;
    assert_ok(floe_plan_tpch_gen(table, sf, parts, &p));
    floe_exec_ctx ctx = test_ctx(pool, batch_size);
    floe_batch *b;
    assert_ok(run_plan(p, &ctx, &b));
    assert_non_null(b);
    assert_ok(floe_batch_validate(b));
    floe_plan_release(p);
    return b;
}

static int64_t i64(const floe_batch *b, int c, int64_t r) { return floe_array_get_int64(b->columns[c], r); }
static int32_t i32(const floe_batch *b, int c, int64_t r) { return floe_array_get_int32(b->columns[c], r); }
static int64_t cents(const floe_batch *b, int c, int64_t r) {
    floe_decimal128 d = floe_array_get_decimal(b->columns[c], r);
    assert_int_equal(d.hi, (int64_t)d.lo < 0 ? -1 : 0);
    return (int64_t)d.lo;
}
static bool str_is(const floe_batch *b, int c, int64_t r, const char *want) {
    floe_strview v = floe_array_get_str(b->columns[c], r);
    return (size_t)v.len == strlen(want) && memcmp(v.data, want, (size_t)v.len) == 0;
}
static char str_char(const floe_batch *b, int c, int64_t r) {
    floe_strview v = floe_array_get_str(b->columns[c], r);
    assert_int_equal(v.len, 1);
    return v.data[0];
}

static void row_counts_at_sf_0_01_match_the_spec(void **state) {
    (void)state;
    static const struct {
        const char *t;
        int64_t rows;
        int cols;
    } want[] = {{"nation", 25, 4},   {"region", 5, 3},     {"part", 2000, 9},    {"supplier", 100, 7},
                {"partsupp", 8000, 5}, {"customer", 1500, 8}, {"orders", 15000, 9}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        floe_batch *b = gen(want[i].t, 0.01, 2, 4096);
        assert_int_equal(b->num_rows, want[i].rows);
        assert_int_equal(b->num_columns, want[i].cols);
        assert_int_equal(floe_tpch_table_rows(want[i].t, 0.01), want[i].rows);
        for (int c = 0; c < b->num_columns; c++) assert_int_equal(floe_array_null_count(b->columns[c]), 0);
        floe_batch_release(b);
    }
    /* lineitem: 1..7 lines for every one of the 15,000 orders, numbered
     * 1, 2, ... within each. */
    floe_batch *l = gen("lineitem", 0.01, 2, 4096);
    assert_int_equal(l->num_columns, 16);
    int64_t orders = 0;
    for (int64_t r = 0; r < l->num_rows; r++) {
        bool first = r == 0 || i64(l, 0, r) != i64(l, 0, r - 1);
        if (first) {
            orders++;
            assert_int_equal(i32(l, 3, r), 1);
        } else {
            assert_true(i64(l, 0, r) > 0);
            assert_int_equal(i32(l, 3, r), i32(l, 3, r - 1) + 1);
        }
        assert_true(i32(l, 3, r) <= 7);
    }
    assert_int_equal(orders, 15000);
    /* About 4 lines per order (1..7 uniform): 60,000 +- a few hundred. */
    assert_true(l->num_rows > 58000 && l->num_rows < 62000);
    floe_batch_release(l);
    assert_int_equal(floe_tpch_table_rows("lineitem", 1), 6000000);
    assert_int_equal(floe_tpch_table_rows("LINEITEM", 1), 6000000);
    assert_int_equal(floe_tpch_table_rows("nope", 1), -1);
}

static void order_keys_are_the_first_8_of_every_32(void **state) {
    (void)state;
    floe_batch *o = gen("orders", 0.01, 3, 1000);
    for (int64_t i = 0; i < o->num_rows; i++) {
        int64_t k = i64(o, 0, i), n = i + 1;
        assert_int_equal(k, ((n >> 3) << 5) + (n & 7));
        assert_true(k % 32 < 8);
        assert_true(k > 0);
        /* Every third customer has no orders. */
        int64_t c = i64(o, 1, i);
        assert_true(c >= 1 && c <= 1500);
        assert_true(c % 3 != 0);
        assert_int_equal(i32(o, 7, i), 0); /* o_shippriority */
    }
    assert_int_equal(i64(o, 0, o->num_rows - 1), 60000); /* SF x 6,000,000 */
    floe_batch_release(o);
}

static int64_t supp_formula(int64_t partkey, int64_t i, int64_t s) {
    return (partkey + i * (s / 4 + (partkey - 1) / s)) % s + 1;
}

static void partsupp_suppkeys_follow_the_formula(void **state) {
    (void)state;
    floe_batch *ps = gen("partsupp", 0.01, 3, 777);
    for (int64_t r = 0; r < ps->num_rows; r++) {
        int64_t pk = r / 4 + 1;
        assert_int_equal(i64(ps, 0, r), pk);
        assert_int_equal(i64(ps, 1, r), supp_formula(pk, r % 4, 100));
        assert_true(i32(ps, 2, r) >= 1 && i32(ps, 2, r) <= 9999);
        assert_true(cents(ps, 3, r) >= 100 && cents(ps, 3, r) <= 100000);
        /* The four suppliers of a part are distinct. */
        for (int64_t j = r - r % 4; j < r; j++) assert_true(i64(ps, 1, j) != i64(ps, 1, r));
    }
    floe_batch_release(ps);
}

static int64_t retail(int64_t pk) { return 90000 + (pk / 10) % 20001 + 100 * (pk % 1000); }

static void parts_follow_the_spec(void **state) {
    (void)state;
    floe_batch *p = gen("part", 0.01, 2, 500);
    for (int64_t r = 0; r < p->num_rows; r++) {
        assert_int_equal(i64(p, 0, r), r + 1);
        assert_int_equal(cents(p, 7, r), retail(r + 1));
        /* p_name: five distinct colours of the 92. */
        floe_strview name = floe_array_get_str(p->columns[1], r);
        char buf[80];
        assert_true(name.len < (int64_t)sizeof buf);
        memcpy(buf, name.data, (size_t)name.len);
        buf[name.len] = 0;
        int words = 0;
        const char *seen[5];
        for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
            bool known = false;
            for (int c = 0; c < TPCH_N_COLORS; c++) known |= strcmp(w, tpch_colors[c]) == 0;
            assert_true(known);
            for (int j = 0; j < words; j++) assert_string_not_equal(seen[j], w);
            assert_true(words < 5);
            seen[words++] = w;
        }
        assert_int_equal(words, 5);
        /* Brand#MN with M the manufacturer's digit. */
        floe_strview mfgr = floe_array_get_str(p->columns[2], r), brand = floe_array_get_str(p->columns[3], r);
        assert_int_equal(mfgr.len, 14);
        assert_memory_equal(mfgr.data, "Manufacturer#", 13);
        assert_int_equal(brand.len, 8);
        assert_memory_equal(brand.data, "Brand#", 6);
        assert_int_equal(brand.data[6], mfgr.data[13]);
        assert_true(brand.data[7] >= '1' && brand.data[7] <= '5');
        assert_true(i32(p, 5, r) >= 1 && i32(p, 5, r) <= 50);
        floe_strview cmt = floe_array_get_str(p->columns[8], r);
        assert_true(cmt.len >= 5 && cmt.len <= 22);
    }
    floe_batch_release(p);
}

/* The spec's rules tying lineitem to orders and part. */
static void lineitem_and_orders_follow_the_spec_rules(void **state) {
    (void)state;
    floe_batch *o = gen("orders", 0.01, 2, 3000);
    floe_batch *l = gen("lineitem", 0.01, 3, 5000);
    int64_t r = 0;
    int64_t flags[3] = {0};
    for (int64_t i = 0; i < o->num_rows; i++) {
        int64_t key = i64(o, 0, i);
        int32_t odate = i32(o, 4, i);
        assert_true(odate >= 8035 && odate <= 10440); /* 1992-01-01 .. 1998-08-02 */
        __int128 total = 0;
        int n = 0, n_f = 0;
        for (; r < l->num_rows && i64(l, 0, r) == key; r++, n++) {
            int64_t pk = i64(l, 1, r), sk = i64(l, 2, r);
            bool supplier_of_part = false;
            for (int k = 0; k < 4; k++) supplier_of_part |= sk == supp_formula(pk, k, 100);
            assert_true(supplier_of_part);
            int64_t qty = cents(l, 4, r), ext = cents(l, 5, r), disc = cents(l, 6, r), tax = cents(l, 7, r);
            assert_true(qty >= 100 && qty <= 5000 && qty % 100 == 0);
            assert_int_equal(ext, qty / 100 * retail(pk));
            assert_true(disc >= 0 && disc <= 10);
            assert_true(tax >= 0 && tax <= 8);
            int32_t ship = i32(l, 10, r), commit = i32(l, 11, r), receipt = i32(l, 12, r);
            assert_true(ship - odate >= 1 && ship - odate <= 121);
            assert_true(commit - odate >= 30 && commit - odate <= 90);
            assert_true(receipt - ship >= 1 && receipt - ship <= 30);
            char rf = str_char(l, 8, r), ls = str_char(l, 9, r);
            if (receipt <= CURRENTDATE) assert_true(rf == 'R' || rf == 'A');
            else assert_int_equal(rf, 'N');
            flags[rf == 'R' ? 0 : rf == 'A' ? 1 : 2]++;
            assert_int_equal(ls, ship > CURRENTDATE ? 'O' : 'F');
            n_f += ls == 'F';
            total += (__int128)ext * (100 + tax) * (100 - disc);
        }
        assert_true(n >= 1 && n <= 7);
        char want = n_f == n ? 'F' : n_f == 0 ? 'O' : 'P';
        assert_int_equal(str_char(o, 2, i), want);
        assert_int_equal(cents(o, 3, i), (int64_t)((total + 5000) / 10000));
    }
    assert_int_equal(r, l->num_rows);
    /* R and A are equally likely. */
    assert_true(labs((long)(flags[0] - flags[1])) < (flags[0] + flags[1]) / 20);
    floe_batch_release(o);
    floe_batch_release(l);
}

static void nation_and_region_are_the_fixed_rows(void **state) {
    (void)state;
    floe_batch *n = gen("nation", 0.01, 4, 10);
    assert_int_equal(i64(n, 0, 0), 0);
    assert_true(str_is(n, 1, 0, "ALGERIA"));
    assert_int_equal(i64(n, 2, 0), 0);
    assert_true(str_is(n, 1, 6, "FRANCE"));
    assert_int_equal(i64(n, 2, 6), 3);
    assert_true(str_is(n, 1, 20, "SAUDI ARABIA"));
    assert_int_equal(i64(n, 2, 20), 4);
    assert_true(str_is(n, 1, 24, "UNITED STATES"));
    assert_int_equal(i64(n, 2, 24), 1);
    for (int64_t r = 0; r < 25; r++) assert_int_equal(i64(n, 0, r), r);
    floe_batch_release(n);
    floe_batch *g = gen("region", 7, 2, 10); /* the same at any scale */
    static const char *const names[] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};
    assert_int_equal(g->num_rows, 5);
    for (int64_t r = 0; r < 5; r++) {
        assert_int_equal(i64(g, 0, r), r);
        assert_true(str_is(g, 1, r, names[r]));
        floe_strview c = floe_array_get_str(g->columns[2], r);
        assert_true(c.len >= 31 && c.len <= 115);
    }
    floe_batch_release(g);
}

static bool contains_in_order(floe_strview v, const char *a, const char *b) {
    char buf[128];
    memcpy(buf, v.data, (size_t)v.len);
    buf[v.len] = 0;
    const char *x = strstr(buf, a);
    return x && strstr(x + strlen(a), b);
}

static void suppliers_and_customers_follow_the_spec(void **state) {
    (void)state;
    /* At SF 1 exactly 5 supplier comments hold Customer...Complaints and 5
     * Customer...Recommends. */
    floe_batch *s = gen("supplier", 1, 2, 4096);
    assert_int_equal(s->num_rows, 10000);
    int complaints = 0, recommends = 0;
    for (int64_t r = 0; r < s->num_rows; r++) {
        floe_strview c = floe_array_get_str(s->columns[6], r);
        assert_true(c.len >= 25 && c.len <= 100);
        complaints += contains_in_order(c, "Customer", "Complaints");
        recommends += contains_in_order(c, "Customer", "Recommends");
        char name[32];
        snprintf(name, sizeof name, "Supplier#%09lld", (long long)(r + 1));
        assert_true(str_is(s, 1, r, name));
        /* Phone: nation + 10, then three groups. */
        floe_strview ph = floe_array_get_str(s->columns[4], r);
        assert_int_equal(ph.len, 15);
        int64_t nk = i64(s, 3, r);
        assert_true(nk >= 0 && nk <= 24);
        assert_int_equal((ph.data[0] - '0') * 10 + (ph.data[1] - '0'), nk + 10);
        assert_true(ph.data[2] == '-' && ph.data[6] == '-' && ph.data[10] == '-');
        assert_true(ph.data[3] >= '1' && ph.data[7] >= '1' && ph.data[11] >= '1');
        int64_t bal = cents(s, 5, r);
        assert_true(bal >= -99999 && bal <= 999999);
        floe_strview addr = floe_array_get_str(s->columns[2], r);
        assert_true(addr.len >= 10 && addr.len <= 40);
    }
    assert_int_equal(complaints, 5);
    assert_int_equal(recommends, 5);
    floe_batch_release(s);
    floe_batch *c = gen("customer", 0.01, 2, 600);
    for (int64_t r = 0; r < c->num_rows; r++) {
        char name[32];
        snprintf(name, sizeof name, "Customer#%09lld", (long long)(r + 1));
        assert_true(str_is(c, 1, r, name));
        bool seg = false;
        for (int k = 0; k < 5; k++) seg |= str_is(c, 6, r, tpch_segments[k]);
        assert_true(seg);
        floe_strview cm = floe_array_get_str(c->columns[7], r);
        assert_true(cm.len >= 29 && cm.len <= 116);
    }
    floe_batch_release(c);
}

static void one_and_three_partitions_give_identical_rows(void **state) {
    (void)state;
    for (int i = 0; floe_tpch_tables[i]; i++) {
        floe_batch *a = gen(floe_tpch_tables[i], 0.01, 1, 8192);
        floe_batch *b = gen(floe_tpch_tables[i], 0.01, 3, 1000);
        assert_true(floe_batch_equals(a, b));
        floe_batch_release(a);
        floe_batch_release(b);
    }
}

static void codec_roundtrip_gives_the_same_rows(void **state) {
    (void)state;
    floe_plan *p, *copy;
    assert_ok(floe_plan_tpch_gen("Orders", 0.001, 3, &p));
    assert_string_equal(floe_plan_type_name(p), "TpchGen");
    assert_string_equal(floe_tpch_gen_table(p), "orders");
    assert_true(floe_tpch_gen_scale(p) == 0.001);
    assert_int_equal(floe_plan_partitions(p), 3);
    assert_int_equal(floe_plan_progress_total(p), 1500);
    assert_ok(floe_plan_roundtrip(p, &copy));
    assert_string_equal(floe_tpch_gen_table(copy), "orders");
    assert_true(floe_tpch_gen_scale(copy) == 0.001);
    assert_int_equal(floe_plan_partitions(copy), 3);
    floe_exec_ctx ctx = test_ctx(pool, 256);
    floe_batch *a, *b;
    assert_ok(run_plan(p, &ctx, &a));
    assert_ok(run_plan(copy, &ctx, &b));
    assert_int_equal(a->num_rows, 1500);
    assert_true(floe_batch_equals(a, b));
    floe_batch_release(a);
    floe_batch_release(b);
    floe_buf text;
    floe_buf_init(&text);
    assert_ok(floe_plan_explain(copy, &text));
    assert_non_null(strstr(floe_buf_cstr(&text), "TpchGen: table=orders, sf=0.001"));
    floe_buf_free(&text);
    floe_plan_release(p);
    floe_plan_release(copy);
}

/* lineitem batches hold whole orders: at most batch_size lines, or one
 * order when it alone has more; progress counts orders. */
static void lineitem_batches_hold_whole_orders(void **state) {
    (void)state;
    floe_plan *p;
    assert_ok(floe_plan_tpch_gen("lineitem", 0.001, 2, &p));
    assert_int_equal(floe_plan_progress_total(p), 1500);
    floe_progress *prog;
    assert_ok(floe_progress_new(&prog));
    floe_exec_ctx ctx = test_ctx(pool, 3);
    ctx.progress = prog;
    for (int32_t part = 0; part < 2; part++) {
        floe_stream *s;
        assert_ok(test_execute(p, part, &ctx, &s));
        int64_t prev_last = -1;
        for (;;) {
            floe_batch *b;
            assert_ok(floe_stream_next(s, &b));
            if (!b) break;
            int64_t first = floe_array_get_int64(b->columns[0], 0);
            int64_t last = floe_array_get_int64(b->columns[0], b->num_rows - 1);
            assert_true(first != prev_last);
            assert_int_equal(floe_array_get_int32(b->columns[3], 0), 1);
            if (b->num_rows > 3) assert_int_equal(first, last);
            prev_last = last;
            floe_batch_release(b);
        }
        floe_stream_close(s);
    }
    /* Progress counts the orders done. */
    assert_int_equal(floe_progress_done(prog), 1500);
    floe_progress_free(prog);
    floe_plan_release(p);
}

static void bad_parts_are_refused(void **state) {
    (void)state;
    floe_plan *p = NULL;
    assert_error(floe_plan_tpch_gen("lineitems", 1, 1, &p), FLOE_ERR_NOT_FOUND, "did you mean 'lineitem'");
    assert_null(p);
    assert_error(floe_plan_tpch_gen(NULL, 1, 1, &p), FLOE_ERR_NOT_FOUND, "TPC-H table");
    assert_error(floe_plan_tpch_gen("orders", 0, 1, &p), FLOE_ERR_INVALID_ARGUMENT, "scale factor");
    assert_error(floe_plan_tpch_gen("orders", -1, 1, &p), FLOE_ERR_INVALID_ARGUMENT, "scale factor");
    assert_error(floe_plan_tpch_gen("orders", NAN, 1, &p), FLOE_ERR_INVALID_ARGUMENT, "scale factor");
    assert_error(floe_plan_tpch_gen("orders", 1e9, 1, &p), FLOE_ERR_INVALID_ARGUMENT, "scale factor");
    assert_error(floe_plan_tpch_gen("orders", 1, 0, &p), FLOE_ERR_INVALID_ARGUMENT, "partitions");
    /* A plan whose table name was damaged in transit. */
    assert_ok(floe_plan_tpch_gen("region", 1, 1, &p));
    floe_buf enc;
    floe_buf_init(&enc);
    assert_ok(floe_plan_encode(p, &enc));
    char *at = memmem(enc.data, enc.len, "region", 6);
    assert_non_null(at);
    at[0] = 'x';
    floe_plan *bad = NULL;
    assert_error(floe_plan_decode((const uint8_t *)enc.data, enc.len, &bad), FLOE_ERR_NOT_FOUND, "TPC-H table 'xegion'");
    /* Truncated. */
    floe_status st = floe_plan_decode((const uint8_t *)enc.data, enc.len - 3, &bad);
    assert_non_null(st);
    floe_status_free(st);
    assert_null(bad);
    floe_buf_free(&enc);
    floe_plan_release(p);
}

static void distributions_and_text_follow_the_grammar(void **state) {
    (void)state;
    const tpch_dist *d[] = {&tpch_nouns,     &tpch_verbs,       &tpch_adjectives, &tpch_adverbs, &tpch_prepositions,
                            &tpch_auxiliaries, &tpch_terminators, &tpch_grammar,    &tpch_np,      &tpch_vp};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        int32_t total = 0;
        for (int32_t j = 0; j < d[i]->n; j++) total += d[i]->words[j].weight;
        assert_int_equal(total, d[i]->total);
    }
    assert_int_equal(tpch_nouns.n, 45);
    assert_int_equal(tpch_verbs.n, 40);
    assert_int_equal(tpch_adjectives.n, 29);
    assert_int_equal(tpch_adverbs.n, 28);
    assert_int_equal(tpch_prepositions.n, 47);
    assert_int_equal(tpch_auxiliaries.n, 18);
    /* Grammar text: deterministic, words separated by single spaces,
     * Q13's words present. */
    char a[4096], b[4096];
    tpch_text_fill(a, sizeof a - 1, 7);
    tpch_text_fill(b, sizeof b - 1, 7);
    a[sizeof a - 1] = b[sizeof b - 1] = 0;
    assert_memory_equal(a, b, sizeof a);
    assert_null(strstr(a, "  "));
    const char *pool_text;
    assert_ok(tpch_text_pool(&pool_text));
    assert_non_null(memmem(pool_text, 1 << 20, "special", 7));
    assert_non_null(memmem(pool_text, 1 << 20, "requests", 8));
    assert_non_null(memmem(pool_text, 1 << 20, ". ", 2));
}

FLOE_TEST_MAIN(cmocka_unit_test_setup_teardown(row_counts_at_sf_0_01_match_the_spec, setup, teardown),
               cmocka_unit_test_setup_teardown(order_keys_are_the_first_8_of_every_32, setup, teardown),
               cmocka_unit_test_setup_teardown(partsupp_suppkeys_follow_the_formula, setup, teardown),
               cmocka_unit_test_setup_teardown(parts_follow_the_spec, setup, teardown),
               cmocka_unit_test_setup_teardown(lineitem_and_orders_follow_the_spec_rules, setup, teardown),
               cmocka_unit_test_setup_teardown(nation_and_region_are_the_fixed_rows, setup, teardown),
               cmocka_unit_test_setup_teardown(suppliers_and_customers_follow_the_spec, setup, teardown),
               cmocka_unit_test_setup_teardown(one_and_three_partitions_give_identical_rows, setup, teardown),
               cmocka_unit_test_setup_teardown(codec_roundtrip_gives_the_same_rows, setup, teardown),
               cmocka_unit_test_setup_teardown(lineitem_batches_hold_whole_orders, setup, teardown),
               cmocka_unit_test_setup_teardown(bad_parts_are_refused, setup, teardown),
               cmocka_unit_test_setup_teardown(distributions_and_text_follow_the_grammar, setup, teardown))

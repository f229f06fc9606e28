/* ORC reader behaviour beyond the expected rows: every example file reads
 * or fails cleanly with an error naming the file (and stripe, column and
 * stream where there is one); unsupported features say which; projection
 * by path, column id and Iceberg field id; stripe selection by byte range;
 * row-group skipping by predicates; file row positions of every batch. */
#include "floe_test.h"

#include <dirent.h>

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/orc/reader.h"

#define EX "apache__orc/examples/"

static const char *ex(const char *dir, const char *name) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/" EX "%s", dir, name);
    return buf;
}

static floe_status read_count(const char *path, const floe_orc_read_options *o, int64_t *rows) {
    floe_orc_reader *r;
    *rows = 0;
    FLOE_TRY(floe_orc_reader_open_path(path, o, &r));
    floe_status st = NULL;
    for (;;) {
        floe_batch *b;
        st = floe_orc_reader_next(r, &b);
        if (st || !b) break;
        st = floe_batch_validate(b);
        *rows += b->num_rows;
        floe_batch_release(b);
        if (st) break;
    }
    floe_orc_reader_close(r);
    return st;
}

static void test_every_example_reads(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    static const struct {
        const char *name;
        floe_code code;
        const char *needle;
    } fails[] = {
        {"TestVectorOrcFile.testLzo.orc", FLOE_ERR_UNSUPPORTED, "LZO"},
        {"version1999.orc", FLOE_ERR_UNSUPPORTED, "future ORC version 19.99"},
        {"zero.orc", FLOE_ERR_CORRUPT, "empty file"},
        {NULL, 0, NULL}};
    DIR *d = opendir(ex(dir, ""));
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".orc")) continue;
        int64_t rows;
        floe_status st = read_count(ex(dir, e->d_name), NULL, &rows);
        int k = 0;
        while (fails[k].name && strcmp(fails[k].name, e->d_name)) k++;
        if (fails[k].name) {
            if (!st) fail_msg("%s read, expected an error", e->d_name);
            assert_int_equal(floe_status_code(st), fails[k].code);
            if (!strstr(floe_status_message(st), fails[k].needle) || !strstr(floe_status_message(st), e->d_name))
                fail_msg("%s: message '%s'", e->d_name, floe_status_message(st));
            floe_status_free(st);
        } else if (st) {
            fail_msg("%s: %s", e->d_name, floe_status_message(st));
        }
        n++;
    }
    closedir(d);
    assert_true(n >= 40);
}

static void test_corrupt_and_encrypted(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    static const struct {
        const char *name;
        floe_code code;
        const char *needles[3];
    } cases[] = {
        {"corrupt/missing_blob_stream_in_string_dict.orc", FLOE_ERR_CORRUPT,
         {"stripe 0: column 10 'string_col'", "DICTIONARY_DATA stream (the stripe has no such stream)", NULL}},
        {"corrupt/missing_length_stream_in_string_dict.orc", FLOE_ERR_CORRUPT,
         {"stripe 0: column 9 'date_string_col'", "LENGTH stream is missing", NULL}},
        {"corrupt/negative_dict_entry_lengths.orc", FLOE_ERR_CORRUPT,
         {"stripe 0: column 9 'date_string_col'", "DICTIONARY_DATA stream", "length -17"}},
        {"corrupt/stripe_footer_bad_column_encodings.orc", FLOE_ERR_CORRUPT,
         {"stripe 0: stripe footer at offset 336", "StripeFooter", NULL}},
        {"encrypted/sample1.orc", FLOE_ERR_UNSUPPORTED, {"encryption", NULL, NULL}},
        {"encrypted/sample2.orc", FLOE_ERR_UNSUPPORTED, {"encryption", NULL, NULL}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t rows;
        floe_status st = read_count(ex(dir, cases[i].name), NULL, &rows);
        if (!st) fail_msg("%s read", cases[i].name);
        if (floe_status_code(st) != cases[i].code) fail_msg("%s: %s", cases[i].name, floe_status_message(st));
        const char *m = floe_status_message(st);
        if (!strstr(m, cases[i].name)) fail_msg("%s: message lacks the file: %s", cases[i].name, m);
        for (int k = 0; k < 3 && cases[i].needles[k]; k++)
            if (!strstr(m, cases[i].needles[k])) fail_msg("%s: '%s' lacks '%s'", cases[i].name, m, cases[i].needles[k]);
        floe_status_free(st);
    }
}

/* ------------------------------------------------------------ projection */

static floe_batch *first_batch(const char *path, const floe_orc_read_options *o, floe_orc_reader **rp) {
    floe_orc_reader *r;
    assert_ok(floe_orc_reader_open_path(path, o, &r));
    floe_batch *b;
    assert_ok(floe_orc_reader_next(r, &b));
    assert_non_null(b);
    assert_ok(floe_batch_validate(b));
    *rp = r;
    return b;
}

static void type_text(const floe_type *t, char *out, size_t cap) {
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_type_to_string(t, &b));
    snprintf(out, cap, "%s", floe_buf_cstr(&b));
    floe_buf_free(&b);
}

static void test_projection_by_path(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    const char *cols[] = {"string1", "middle.list.element.int1", "int1", "map.value.string1", "middle"};
    floe_orc_read_options o = {0};
    o.columns = cols;
    o.num_columns = 5;
    floe_orc_reader *r;
    floe_batch *b = first_batch(ex(dir, "TestOrcFile.test1.orc"), &o, &r);
    const floe_schema *s = floe_orc_reader_schema(r);
    /* middle.list... merges into "middle.list" (the outermost list), then "middle" whole */
    assert_int_equal(s->n_children, 5);
    assert_string_equal(s->children[0].name, "string1");
    assert_string_equal(s->children[1].name, "middle.list");
    assert_string_equal(s->children[2].name, "int1");
    assert_string_equal(s->children[3].name, "map");
    assert_string_equal(s->children[4].name, "middle");
    char t[256];
    type_text(s->children[1].type, t, sizeof t);
    assert_string_equal(t, "list<struct<int1: int32, string1: string>>");
    type_text(s->children[3].type, t, sizeof t);
    assert_string_equal(t, "map<string, struct<string1: string>>");
    floe_strview v = floe_array_get_str(b->columns[0], 0);
    assert_int_equal(v.len, 2);
    assert_memory_equal(v.data, "hi", 2);
    assert_int_equal(floe_array_get_int32(b->columns[2], 1), 65536);
    assert_int_equal(floe_orc_reader_column_id(r, 2), 4);
    floe_batch_release(b);
    floe_orc_reader_close(r);

    /* a map's keys alone: the map comes whole */
    const char *keys[] = {"map.key"};
    o.columns = keys;
    o.num_columns = 1;
    b = first_batch(ex(dir, "TestOrcFile.test1.orc"), &o, &r);
    s = floe_orc_reader_schema(r);
    type_text(s->children[0].type, t, sizeof t);
    assert_string_equal(t, "map<string, struct<int1: int32, string1: string>>");
    floe_batch_release(b);
    floe_orc_reader_close(r);

    const char *bad[] = {"nope"};
    o.columns = bad;
    o.num_columns = 1;
    assert_error(floe_orc_reader_open_path(ex(dir, "TestOrcFile.test1.orc"), &o, &r), FLOE_ERR_NOT_FOUND, "nope");
}

static void test_projection_by_ids(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    /* Iceberg ids: 15 = nested_struct.a (structs only), 23 = nested_struct.c.d.element.element.e
     * (inside lists: the outermost list nested_struct.c.d, pruned), 1 = id */
    const int32_t ids[] = {15, 23, 1};
    floe_orc_read_options o = {0};
    o.field_ids = ids;
    o.num_field_ids = 3;
    floe_orc_reader *r;
    floe_batch *b = first_batch(ex(dir, "complextypes_iceberg.orc"), &o, &r);
    const floe_schema *s = floe_orc_reader_schema(r);
    assert_int_equal(s->n_children, 3);
    assert_string_equal(s->children[0].name, "nested_struct.a");
    assert_int_equal(s->children[0].field_id, 15);
    assert_string_equal(s->children[1].name, "nested_struct.c.d");
    assert_int_equal(s->children[1].field_id, 20);
    char t[256];
    type_text(s->children[1].type, t, sizeof t);
    assert_string_equal(t, "list<list<struct<e: int32>>>");
    assert_string_equal(s->children[2].name, "id");
    assert_int_equal(s->children[2].field_id, 1);
    assert_int_equal(b->num_rows, 1);
    floe_batch_release(b);
    floe_orc_reader_close(r);

    /* ORC column ids */
    const uint32_t cids[] = {9, 1};
    floe_orc_read_options o2 = {0};
    o2.column_ids = cids;
    o2.num_column_ids = 2;
    b = first_batch(ex(dir, "TestOrcFile.test1.orc"), &o2, &r);
    s = floe_orc_reader_schema(r);
    assert_string_equal(s->children[0].name, "string1");
    assert_string_equal(s->children[1].name, "boolean1");
    floe_batch_release(b);
    floe_orc_reader_close(r);

    const int32_t nope[] = {999};
    o.field_ids = nope;
    o.num_field_ids = 1;
    assert_error(floe_orc_reader_open_path(ex(dir, "complextypes_iceberg.orc"), &o, &r), FLOE_ERR_NOT_FOUND,
                 "Iceberg field id 999");
}

static void test_iceberg_attributes(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    floe_orc_file *f;
    assert_ok(floe_orc_file_open_path(ex(dir, "complextypes_iceberg.orc"), &f));
    const floe_orc_column *c = floe_orc_schema_find_iceberg_id(f->schema, 10);
    assert_non_null(c);
    assert_string_equal(c->path, "int_map.key");
    assert_true(c->iceberg_required);
    c = floe_orc_schema_find_path(f->schema, "id");
    assert_string_equal(floe_orc_column_attribute(c, "iceberg.long-type"), "LONG");
    floe_field fl;
    assert_ok(floe_orc_column_field(floe_orc_schema_find_path(f->schema, "int_map"), FLOE_ORC_TS_US, &fl));
    char t[256];
    type_text(fl.type, t, sizeof t);
    assert_string_equal(t, "map<string, int32>");
    assert_int_equal(fl.field_id, 4);
    assert_false(fl.type->children[0].type->children[0].nullable); /* key required */
    floe_field_clear(&fl);
    floe_orc_file_close(f);
}

/* --------------------------------------------------- stripes and positions */

static void test_stripe_ranges_and_positions(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    const char *path = ex(dir, "TestOrcFile.testStripeLevelStats.orc");
    floe_orc_file *f;
    assert_ok(floe_orc_file_open_path(path, &f));
    assert_int_equal(floe_orc_file_num_stripes(f), 3);
    const floe_orc_stripe_info *s1 = floe_orc_file_stripe(f, 1);
    /* a split covering only stripe 1's first byte */
    floe_orc_read_options o = {0};
    o.use_range = true;
    o.range_start = s1->offset;
    o.range_length = 1;
    o.batch_size = 1500;
    floe_orc_reader *r;
    assert_ok(floe_orc_reader_open(f, &o, &r));
    int64_t rows = 0, expect_pos = 5000;
    for (;;) {
        floe_batch *b;
        assert_ok(floe_orc_reader_next(r, &b));
        if (!b) break;
        assert_true(b->num_rows <= 1500);
        const floe_orc_row_span *sp;
        int n;
        floe_orc_reader_last_rows(r, &sp, &n);
        assert_int_equal(n, 1);
        assert_int_equal(sp[0].first_row, expect_pos);
        expect_pos += b->num_rows;
        /* stripe 1 of this file holds int1 = 2 */
        for (int64_t i = 0; i < b->num_rows; i++) assert_int_equal(floe_array_get_int32(b->columns[0], i), 2);
        rows += b->num_rows;
        floe_batch_release(b);
    }
    assert_int_equal(rows, 5000);
    floe_orc_reader_close(r);
    /* a split with no stripe start inside reads nothing */
    o.range_start = s1->offset + 1;
    o.range_length = 10;
    assert_ok(floe_orc_reader_open(f, &o, &r));
    floe_batch *b;
    assert_ok(floe_orc_reader_next(r, &b));
    assert_null(b);
    floe_orc_reader_close(r);
    /* explicit stripe list, out of order */
    int list[] = {2, 0};
    floe_orc_read_options o2 = {0};
    o2.stripes = list;
    o2.num_stripes = 2;
    assert_ok(floe_orc_reader_open(f, &o2, &r));
    assert_ok(floe_orc_reader_next(r, &b));
    const floe_orc_row_span *sp;
    int n;
    floe_orc_reader_last_rows(r, &sp, &n);
    assert_int_equal(sp[0].first_row, 10000);
    assert_int_equal(b->num_rows, 1000);
    floe_batch_release(b);
    assert_ok(floe_orc_reader_next(r, &b));
    floe_orc_reader_last_rows(r, &sp, &n);
    assert_int_equal(sp[0].first_row, 0);
    floe_batch_release(b);
    floe_orc_reader_close(r);
    int badl[] = {3};
    o2.stripes = badl;
    o2.num_stripes = 1;
    assert_error(floe_orc_reader_open(f, &o2, &r), FLOE_ERR_INVALID_ARGUMENT, "no stripe 3");
    /* statistics */
    const floe_orc_stats *fs = floe_orc_file_stats(f, 1);
    assert_non_null(fs);
    assert_int_equal(fs->kind, FLOE_ORC_STATS_INT);
    assert_int_equal(fs->int_min, 1);
    assert_int_equal(fs->int_max, 3);
    const floe_orc_stats *ss = floe_orc_file_stripe_stats(f, 1, 1);
    assert_non_null(ss);
    assert_int_equal(ss->int_min, 2);
    assert_int_equal(ss->int_max, 2);
    assert_int_equal(ss->num_values, 5000);
    floe_orc_file_close(f);
}

/* ------------------------------------------------------- row-group skipping */

/* testPredicatePushdown: 3500 rows, int1 = 300 * row, string1 = hex(10 * row),
 * row groups of 1000 rows. */
static void run_pred(const char *path, const floe_orc_predicate *p, int np, int64_t *rows,
                     floe_orc_skip_stats *stats, int64_t *first, int64_t *last) {
    floe_orc_read_options o = {0};
    o.predicates = p;
    o.num_predicates = np;
    o.batch_size = 700;
    floe_orc_reader *r;
    assert_ok(floe_orc_reader_open_path(path, &o, &r));
    *rows = 0;
    *first = *last = -1;
    for (;;) {
        floe_batch *b;
        assert_ok(floe_orc_reader_next(r, &b));
        if (!b) break;
        const floe_orc_row_span *sp;
        int n;
        floe_orc_reader_last_rows(r, &sp, &n);
        assert_int_equal(n, 1);
        for (int64_t i = 0; i < b->num_rows; i++) {
            int64_t pos = sp[0].first_row + i;
            assert_int_equal(floe_array_get_int32(b->columns[0], i), 300 * pos); /* positions are right */
            if (*first < 0) *first = pos;
            *last = pos;
        }
        *rows += b->num_rows;
        floe_batch_release(b);
    }
    floe_orc_reader_skip_stats(r, stats);
    floe_orc_reader_close(r);
}

static void test_row_group_skipping(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    const char *path = ex(dir, "TestOrcFile.testPredicatePushdown.orc");
    floe_orc_value v = {.kind = FLOE_ORC_VAL_INT, .i = 300 * 2500};
    floe_orc_predicate p = {.path = "int1", .op = FLOE_ORC_OP_GE, .values = &v, .num_values = 1};
    int64_t rows, first, last;
    floe_orc_skip_stats st;
    run_pred(path, &p, 1, &rows, &st, &first, &last);
    assert_int_equal(rows, 1500); /* row groups 2 and 3 */
    assert_int_equal(first, 2000);
    assert_int_equal(last, 3499);
    assert_int_equal(st.row_groups_total, 4);
    assert_int_equal(st.row_groups_skipped, 2);

    /* EQ inside group 1 only, AND-ed with a string predicate that keeps it */
    floe_orc_value v1 = {.kind = FLOE_ORC_VAL_INT, .i = 300 * 1234};
    char hex[16];
    snprintf(hex, sizeof hex, "%x", 12340);
    floe_orc_value sv = {.kind = FLOE_ORC_VAL_BYTES, .bytes = (const uint8_t *)hex, .len = strlen(hex)};
    floe_orc_predicate ps[2] = {{.path = "int1", .op = FLOE_ORC_OP_EQ, .values = &v1, .num_values = 1},
                                {.path = NULL, .field_id = -1, .column_id = 2, .op = FLOE_ORC_OP_EQ,
                                 .values = &sv, .num_values = 1}};
    run_pred(path, ps, 2, &rows, &st, &first, &last);
    assert_int_equal(rows, 1000);
    assert_int_equal(first, 1000);
    assert_int_equal(st.row_groups_skipped, 3);

    /* IN spanning groups 0 and 3: the group between is decoded past, not returned */
    floe_orc_value in[2] = {{.kind = FLOE_ORC_VAL_INT, .i = 300 * 5}, {.kind = FLOE_ORC_VAL_INT, .i = 300 * 3400}};
    floe_orc_predicate pin = {.path = "int1", .op = FLOE_ORC_OP_IN, .values = in, .num_values = 2};
    run_pred(path, &pin, 1, &rows, &st, &first, &last);
    assert_int_equal(rows, 1500); /* 1000 of group 0, the last 500 of group 3 */
    assert_int_equal(first, 0);
    assert_int_equal(last, 3499);
    assert_int_equal(st.row_groups_skipped, 2);

    /* nothing can match: the stripe is skipped by its statistics */
    floe_orc_value neg = {.kind = FLOE_ORC_VAL_INT, .i = -1};
    floe_orc_predicate pn = {.path = "int1", .op = FLOE_ORC_OP_LT, .values = &neg, .num_values = 1};
    run_pred(path, &pn, 1, &rows, &st, &first, &last);
    assert_int_equal(rows, 0);
    assert_int_equal(st.stripes_skipped, 1);

    /* IS NULL on a column without nulls */
    floe_orc_predicate pnull = {.path = "int1", .op = FLOE_ORC_OP_IS_NULL};
    run_pred(path, &pnull, 1, &rows, &st, &first, &last);
    assert_int_equal(rows, 0);

    /* a value of the wrong kind */
    floe_orc_reader *r;
    floe_orc_read_options o = {0};
    floe_orc_predicate pbad = {.path = "int1", .op = FLOE_ORC_OP_EQ, .values = &sv, .num_values = 1};
    o.predicates = &pbad;
    o.num_predicates = 1;
    assert_error(floe_orc_reader_open_path(path, &o, &r), FLOE_ERR_INVALID_ARGUMENT, "cannot be compared");
}

static void test_predicates_other_types(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    /* orc_split_elim: 5 stripes of 5000 rows, userid 2 once then 100, except
     * one stripe holding small ids; decimal1 and subtype double */
    const char *path = ex(dir, "orc_split_elim.orc");
    floe_orc_value v = {.kind = FLOE_ORC_VAL_DOUBLE, .d = 1000.0};
    floe_orc_predicate p = {.path = "subtype", .op = FLOE_ORC_OP_GT, .values = &v, .num_values = 1};
    floe_orc_read_options o = {0};
    o.predicates = &p;
    o.num_predicates = 1;
    int64_t rows;
    assert_ok(read_count(path, &o, &rows));
    assert_int_equal(rows, 0);
    /* stripe maxima of decimal1 are 1.2, 2.2, 3.3, 4.4, 5.5 */
    floe_orc_value dv = {.kind = FLOE_ORC_VAL_DECIMAL, .hi = 0, .lo = 4500000}; /* 4.5 at scale 6 */
    floe_orc_predicate pd = {.path = "decimal1", .op = FLOE_ORC_OP_GT, .values = &dv, .num_values = 1};
    o.predicates = &pd;
    assert_ok(read_count(path, &o, &rows));
    assert_int_equal(rows, 5000);
    /* stripe minima of userid are 2, 13, 29, 70, 5 */
    floe_orc_value uv = {.kind = FLOE_ORC_VAL_INT, .i = 10};
    floe_orc_predicate pu = {.path = "userid", .op = FLOE_ORC_OP_LT, .values = &uv, .num_values = 1};
    o.predicates = &pu;
    assert_ok(read_count(path, &o, &rows));
    assert_int_equal(rows, 10000);
    /* strings: "zebra" is every stripe's max */
    floe_orc_value zv = {.kind = FLOE_ORC_VAL_BYTES, .bytes = (const uint8_t *)"zzz", .len = 3};
    floe_orc_predicate pz = {.path = "string1", .op = FLOE_ORC_OP_GE, .values = &zv, .num_values = 1};
    o.predicates = &pz;
    assert_ok(read_count(path, &o, &rows));
    assert_int_equal(rows, 0);
}

static void test_timestamps_in_microseconds(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    floe_orc_reader *r;
    floe_batch *b = first_batch(ex(dir, "TestOrcFile.testTimestamp.orc"), NULL, &r);
    assert_int_equal(b->columns[0]->type->id, FLOE_TYPE_TIMESTAMP_US);
    floe_buf t = FLOE_BUF_INIT;
    assert_ok(floe_format_timestamp(floe_array_get_int64(b->columns[0], 2), 1000000, false, &t));
    assert_string_equal(floe_buf_cstr(&t), "1999-01-01 00:00:00.999999"); /* .999999999 truncated */
    floe_buf_free(&t);
    floe_batch_release(b);
    floe_orc_reader_close(r);
}

/* over1k_bloom: 2098 rows in one row group with (pre ORC-101) bloom filters
 * on the number columns; bad_bloom_filter_*: ORC C++ files whose bloom
 * filters must not be trusted. */
static int64_t count_eq(const char *path, const char *col, const floe_orc_value *v, floe_orc_skip_stats *ss) {
    floe_orc_predicate p = {.path = col, .op = FLOE_ORC_OP_EQ, .values = v, .num_values = 1};
    floe_orc_read_options o = {0};
    o.predicates = &p;
    o.num_predicates = 1;
    floe_orc_reader *r;
    assert_ok(floe_orc_reader_open_path(path, &o, &r));
    int64_t rows = 0;
    for (;;) {
        floe_batch *b;
        assert_ok(floe_orc_reader_next(r, &b));
        if (!b) break;
        rows += b->num_rows;
        floe_batch_release(b);
    }
    floe_orc_reader_skip_stats(r, ss);
    floe_orc_reader_close(r);
    return rows;
}

static void test_bloom_filters(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    /* over1k_bloom's BLOOM_FILTER streams hold another (old Hive) message:
     * unusable, so nothing is ruled out by them */
    floe_orc_skip_stats ss;
    floe_orc_value v = {.kind = FLOE_ORC_VAL_INT, .i = 65536};
    assert_true(count_eq(ex(dir, "over1k_bloom.orc"), "_col2", &v, &ss) > 0);
    assert_int_equal(ss.row_groups_bloom_skipped, 0);
    floe_orc_file *f;
    assert_ok(floe_orc_file_open_path(ex(dir, "over1k_bloom.orc"), &f));
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_orc_stripe_footer sf;
    assert_ok(floe_orc_file_read_stripe_footer(f, 0, &a, &sf));
    floe_orc_bloom_index bi;
    assert_ok(floe_orc_file_read_bloom_index(f, 0, &sf, 3, &a, &bi));
    assert_int_equal(bi.num_filters, 1);
    assert_false(bi.filters[0].usable);
    floe_arena_destroy(&a);
    floe_orc_file_close(f);
    /* untrusted C++ filters: an EQ on a present string still returns it */
    const char *bad[] = {"bad_bloom_filter_1.6.0.orc", "bad_bloom_filter_1.6.11.orc"};
    for (int i = 0; i < 2; i++) {
        floe_orc_value sv = {.kind = FLOE_ORC_VAL_BYTES, .bytes = (const uint8_t *)"Alice", .len = 5};
        assert_int_equal(count_eq(ex(dir, bad[i]), "name", &sv, &ss), 5);
        assert_int_equal(ss.row_groups_bloom_skipped, 0);
    }
}

/* Seeking by the row index: drop every third row group (and a run of
 * three) through row_group_filter and compare each batch with
 * the same file rows of a full read. */
static bool keep_some(void *ctx, int stripe, int64_t g) {
    (void)ctx;
    (void)stripe;
    return g % 3 != 1 && !(g >= 9 && g < 12);
}

static void check_seek(const char *path, const char *name, int64_t batch_size, bool expect_seeks) {
    floe_orc_read_options o = {0};
    o.batch_size = batch_size;
    o.timestamp_unit = FLOE_ORC_TS_NS;
    floe_orc_reader *r;
    assert_ok(floe_orc_reader_open_path(path, &o, &r));
    floe_batch *all[4096];
    int nb = 0;
    for (;;) {
        floe_batch *b;
        assert_ok(floe_orc_reader_next(r, &b));
        if (!b) break;
        assert_true(nb < 4096);
        all[nb++] = b;
    }
    floe_orc_reader_close(r);
    if (!nb) return;
    floe_batch *full;
    assert_ok(floe_batch_concat(all, nb, &full));
    for (int i = 0; i < nb; i++) floe_batch_release(all[i]);
    o.row_group_filter = keep_some;
    assert_ok(floe_orc_reader_open_path(path, &o, &r));
    int64_t rows = 0;
    for (;;) {
        floe_batch *b;
        assert_ok(floe_orc_reader_next(r, &b));
        if (!b) break;
        assert_ok(floe_batch_validate(b));
        const floe_orc_row_span *sp;
        int n;
        floe_orc_reader_last_rows(r, &sp, &n);
        floe_batch *want;
        assert_ok(floe_batch_slice(full, sp[0].first_row, b->num_rows, &want));
        if (!floe_batch_equals(b, want))
            fail_msg("%s: rows %lld.. differ after a seek", name, (long long)sp[0].first_row);
        floe_batch_release(want);
        rows += b->num_rows;
        floe_batch_release(b);
    }
    floe_orc_skip_stats ss;
    floe_orc_reader_skip_stats(r, &ss);
    if (expect_seeks && (ss.row_group_seeks == 0 || ss.rows_decoded_past != 0))
        fail_msg("%s: %lld seeks, %lld rows decoded past", name, (long long)ss.row_group_seeks,
                 (long long)ss.rows_decoded_past);
    assert_true(rows < full->num_rows || ss.row_groups_skipped == 0);
    floe_orc_reader_close(r);
    floe_batch_release(full);
}

static void test_row_index_seeks(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    static const struct {
        const char *name;
        bool seeks;
    } files[] = {
        {"TestOrcFile.testPredicatePushdown.orc", true},   /* zlib, int + string, stride 1000 */
        {"TestStringDictionary.testRowIndex.orc", true},   /* dictionary strings */
        {"orc_index_int_string.orc", true},                /* no compression */
        {"TestOrcFile.testSeek.orc", true},                /* nested: structs, lists, maps */
        {"demo-12-zlib.orc", true},                        /* RLE v2, 193 row groups */
        {"demo-11-zlib.orc", false},                       /* RLE v1, a group per stripe */
        {"TestOrcFile.testDate2038.orc", false},           /* timestamps, dates */
        {"nulls-at-end-snappy.orc", true},                 /* PRESENT streams, snappy */
        {"decimal.orc", false},
        {"TestOrcFile.testUnionAndTimestamp.orc", false},  /* unions */
        {"orc-file-11-format.orc", false},
        {"TestOrcFile.columnProjection.orc", true},        /* no compression */
        {"TestVectorOrcFile.testLz4.orc", false},
        {"TestVectorOrcFile.testZstd.0.12.orc", false},
        {"TestOrcFile.testWithoutIndex.orc", false},       /* no row index: decoded past */
        {"over1k_bloom.orc", false},
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        check_seek(ex(dir, files[i].name), files[i].name, 0, files[i].seeks);
        check_seek(ex(dir, files[i].name), files[i].name, 777, files[i].seeks);
    }
}

/* Iceberg's attributes refine the floe type of a column. */
static void test_iceberg_type_attributes(void **state) {
    (void)state;
    floe_orc_attribute time_attr[] = {{"iceberg.long-type", "TIME"}};
    floe_orc_attribute uuid_attr[] = {{"iceberg.binary-type", "UUID"}};
    floe_orc_attribute fixed_attr[] = {{"iceberg.binary-type", "FIXED"}, {"iceberg.length", "7"}};
    floe_orc_attribute bad_fixed[] = {{"iceberg.binary-type", "FIXED"}};
    floe_orc_attribute ns_attr[] = {{"iceberg.timestamp-unit", "NANOS"}};
    struct {
        int kind;
        floe_orc_attribute *attrs;
        int n;
        const char *want;
    } cases[] = {
        {FLOE_ORC_LONG, time_attr, 1, "time64_us"},
        {FLOE_ORC_LONG, NULL, 0, "int64"},
        {FLOE_ORC_BINARY, uuid_attr, 1, "uuid"},
        {FLOE_ORC_BINARY, fixed_attr, 2, "fixed[7]"},
        {FLOE_ORC_TIMESTAMP, ns_attr, 1, "timestamp_ns"},
        {FLOE_ORC_TIMESTAMP_INSTANT, NULL, 0, "timestamp_us_tz"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        floe_orc_column c = {.id = 1, .kind = cases[i].kind, .name = "x", .path = "x",
                             .attributes = cases[i].attrs, .num_attributes = cases[i].n, .iceberg_id = -1};
        floe_type *t;
        assert_ok(floe_orc_column_type(&c, FLOE_ORC_TS_US, &t));
        char txt[64];
        type_text(t, txt, sizeof txt);
        assert_string_equal(txt, cases[i].want);
        floe_type_release(t);
    }
    floe_orc_column c = {.id = 3, .kind = FLOE_ORC_BINARY, .name = "f", .path = "f",
                         .attributes = bad_fixed, .num_attributes = 1, .iceberg_id = -1};
    floe_type *t;
    assert_error(floe_orc_column_type(&c, FLOE_ORC_TS_US, &t), FLOE_ERR_CORRUPT, "iceberg.length");
}

/* ---- a tiny hand-made ORC file (no ORC writer exists here) ---- */

static void pb_varint(floe_buf *b, uint64_t v) {
    do {
        assert_ok(floe_buf_append_byte(b, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0))));
        v >>= 7;
    } while (v);
}
static void pb_uint(floe_buf *b, uint32_t field, uint64_t v) {
    pb_varint(b, (uint64_t)field << 3);
    pb_varint(b, v);
}
static void pb_bytes(floe_buf *b, uint32_t field, const void *d, size_t n) {
    pb_varint(b, (uint64_t)field << 3 | 2);
    pb_varint(b, n);
    assert_ok(floe_buf_append(b, d, n));
}
static void pb_msg(floe_buf *b, uint32_t field, floe_buf *m) {
    pb_bytes(b, field, m->data, m->len);
    floe_buf_free(m);
}
static void pb_attr(floe_buf *t, const char *k, const char *v) {
    floe_buf a = FLOE_BUF_INIT;
    pb_bytes(&a, 1, k, strlen(k));
    pb_bytes(&a, 2, v, strlen(v));
    pb_msg(t, 7, &a);
}

/* 3 rows of u: binary (iceberg uuid, id 5), t: bigint (iceberg time),
 * ts: timestamp with local time zone; uncompressed, RLE v2.  uuid_len is
 * what the LENGTH stream says (16 for a good file). */
static void make_file(floe_buf *f, int uuid_len) {
    assert_ok(floe_buf_append(f, "ORC", 3));
    uint8_t uuids[48];
    for (int i = 0; i < 48; i++) uuids[i] = (uint8_t)i;
    const uint8_t len_rle[] = {0x00, (uint8_t)uuid_len}; /* SHORT_REPEAT x3 */
    const uint8_t t_rle[] = {0x00, 0x0a};                /* 5, zigzagged, x3 */
    const uint8_t zero_rle[] = {0x00, 0x00};             /* 0 x3 */
    struct { uint32_t col; int kind; const uint8_t *d; size_t n; } streams[] = {
        {1, FLOE_ORC_S_DATA, uuids, 48}, {1, FLOE_ORC_S_LENGTH, len_rle, 2},
        {2, FLOE_ORC_S_DATA, t_rle, 2}, {3, FLOE_ORC_S_DATA, zero_rle, 2},
        {3, FLOE_ORC_S_SECONDARY, zero_rle, 2}};
    floe_buf sf = FLOE_BUF_INIT;
    uint64_t data_len = 0;
    for (size_t i = 0; i < 5; i++) {
        assert_ok(floe_buf_append(f, streams[i].d, streams[i].n));
        data_len += streams[i].n;
        floe_buf m = FLOE_BUF_INIT;
        pb_uint(&m, 1, (uint64_t)streams[i].kind);
        pb_uint(&m, 2, streams[i].col);
        pb_uint(&m, 3, streams[i].n);
        pb_msg(&sf, 1, &m);
    }
    for (int c = 0; c < 4; c++) {
        floe_buf m = FLOE_BUF_INIT;
        pb_uint(&m, 1, c ? FLOE_ORC_ENC_DIRECT_V2 : FLOE_ORC_ENC_DIRECT);
        pb_msg(&sf, 2, &m);
    }
    uint64_t sf_len = sf.len;
    assert_ok(floe_buf_append(f, sf.data, sf.len));
    floe_buf_free(&sf);
    floe_buf ft = FLOE_BUF_INIT;
    pb_uint(&ft, 1, 3);
    pb_uint(&ft, 2, f->len);
    floe_buf si = FLOE_BUF_INIT;
    pb_uint(&si, 1, 3);
    pb_uint(&si, 2, 0);
    pb_uint(&si, 3, data_len);
    pb_uint(&si, 4, sf_len);
    pb_uint(&si, 5, 3);
    pb_msg(&ft, 3, &si);
    floe_buf t = FLOE_BUF_INIT;
    pb_uint(&t, 1, FLOE_ORC_STRUCT);
    const uint8_t subs[] = {1, 2, 3};
    pb_bytes(&t, 2, subs, 3);
    pb_bytes(&t, 3, "u", 1);
    pb_bytes(&t, 3, "t", 1);
    pb_bytes(&t, 3, "ts", 2);
    pb_msg(&ft, 4, &t);
    pb_uint(&t, 1, FLOE_ORC_BINARY);
    pb_attr(&t, "iceberg.binary-type", "UUID");
    pb_attr(&t, "iceberg.id", "5");
    pb_msg(&ft, 4, &t);
    pb_uint(&t, 1, FLOE_ORC_LONG);
    pb_attr(&t, "iceberg.long-type", "TIME");
    pb_msg(&ft, 4, &t);
    pb_uint(&t, 1, FLOE_ORC_TIMESTAMP_INSTANT);
    pb_msg(&ft, 4, &t);
    pb_uint(&ft, 6, 3);
    uint64_t ft_len = ft.len;
    assert_ok(floe_buf_append(f, ft.data, ft.len));
    floe_buf_free(&ft);
    floe_buf ps = FLOE_BUF_INIT;
    pb_uint(&ps, 1, ft_len);
    pb_uint(&ps, 2, FLOE_ORC_COMP_NONE);
    const uint8_t ver[] = {0, 12};
    pb_bytes(&ps, 4, ver, 2);
    pb_uint(&ps, 5, 0);
    pb_bytes(&ps, 8000, "ORC", 3);
    uint8_t pl = (uint8_t)ps.len;
    assert_ok(floe_buf_append(f, ps.data, ps.len));
    floe_buf_free(&ps);
    assert_ok(floe_buf_append_byte(f, pl));
}

static void test_handmade_iceberg_types(void **state) {
    (void)state;
    floe_buf f = FLOE_BUF_INIT;
    make_file(&f, 16);
    floe_input *in;
    assert_ok(floe_input_from_memory(f.data, f.len, "hand.orc", &in));
    floe_orc_file *of;
    assert_ok(floe_orc_file_open(in, &of));
    floe_orc_reader *r;
    assert_ok(floe_orc_reader_open(of, NULL, &r));
    floe_batch *b;
    assert_ok(floe_orc_reader_next(r, &b));
    assert_non_null(b);
    assert_ok(floe_batch_validate(b));
    assert_int_equal(b->num_rows, 3);
    assert_int_equal(b->columns[0]->type->id, FLOE_TYPE_UUID);
    assert_int_equal(floe_orc_reader_schema(r)->children[0].field_id, 5);
    assert_int_equal(floe_array_get_fixed(b->columns[0], 2)[0], 32);
    assert_int_equal(b->columns[1]->type->id, FLOE_TYPE_TIME64_US);
    assert_int_equal(floe_array_get_int64(b->columns[1], 1), 5);
    assert_int_equal(b->columns[2]->type->id, FLOE_TYPE_TIMESTAMP_US_TZ);
    assert_int_equal(floe_array_get_int64(b->columns[2], 0), 1420070400LL * 1000000);
    floe_batch_release(b);
    floe_orc_reader_close(r);
    floe_orc_file_close(of);
    floe_input_close(in);
    floe_buf_free(&f);

    make_file(&f, 15); /* a uuid of 15 bytes */
    assert_ok(floe_input_from_memory(f.data, f.len, "hand.orc", &in));
    assert_ok(floe_orc_file_open(in, &of));
    assert_ok(floe_orc_reader_open(of, NULL, &r));
    assert_error(floe_orc_reader_next(r, &b), FLOE_ERR_CORRUPT, "column 1 'u' (binary, DIRECT_V2): LENGTH stream");
    floe_orc_reader_close(r);
    floe_orc_file_close(of);
    floe_input_close(in);
    floe_buf_free(&f);
}

FLOE_TEST_MAIN(cmocka_unit_test(test_handmade_iceberg_types), cmocka_unit_test(test_iceberg_type_attributes), cmocka_unit_test(test_row_index_seeks), cmocka_unit_test(test_bloom_filters), cmocka_unit_test(test_every_example_reads), cmocka_unit_test(test_corrupt_and_encrypted),
               cmocka_unit_test(test_projection_by_path), cmocka_unit_test(test_projection_by_ids),
               cmocka_unit_test(test_iceberg_attributes), cmocka_unit_test(test_stripe_ranges_and_positions),
               cmocka_unit_test(test_row_group_skipping), cmocka_unit_test(test_predicates_other_types),
               cmocka_unit_test(test_timestamps_in_microseconds))

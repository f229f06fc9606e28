/* Page skipping from the page index: files written by floe's writer with
 * small pages, read with predicates and checked row by row against a full
 * read filtered in C.  Every row the predicate matches must come back, every
 * row that comes back must be the row at that file position (all columns
 * aligned), and selective predicates must actually skip pages and bytes. */
#include <math.h>

#include "floe_test.h"
#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/memory.h"
#include "formats/parquet/file.h"
#include "formats/parquet/page_filter.h"
#include "formats/parquet/reader.h"
#include "formats/parquet/writer.h"

#define N 2500
#define NC 9

/* The generated columns of row i:
 *   id  int64   i                          ascending
 *   d   int64   N-1-i                      descending
 *   u   int64   blocks of 100 in shuffled order (page-wise unordered)
 *   c   int64   i / 250                    runs: pages with min == max
 *   n   int64   null if (i/300) odd, else i   (all-null pages)
 *   f   double  i * 0.5, NaN when i % 500 == 7
 *   s   string  "prefix-%06d" of i         (bounds truncated to 10 bytes)
 *   l   list<int64>  [i, i+1, ...] of length i % 3, null when i % 11 == 5
 *   w   string  30 bytes, PLAIN: its pages hold fewer rows than the others',
 *               so page boundaries differ between columns */
static int64_t col_u(int64_t i) { return ((i / 100) * 7 % 25) * 100 + i % 100; }
static bool n_null(int64_t i) { return (i / 300) % 2 == 1; }
static double col_f(int64_t i) { return i % 500 == 7 ? NAN : (double)i * 0.5; }

static floe_schema *make_schema(void) {
    floe_type *lt = NULL;
    floe_field e = {(char *)"element", floe_type_primitive(FLOE_TYPE_INT64), false, 20};
    assert_ok(floe_type_list(&e, &lt));
    floe_field f[] = {
        {(char *)"id", floe_type_primitive(FLOE_TYPE_INT64), false, 1},
        {(char *)"d", floe_type_primitive(FLOE_TYPE_INT64), false, 2},
        {(char *)"u", floe_type_primitive(FLOE_TYPE_INT64), false, 3},
        {(char *)"c", floe_type_primitive(FLOE_TYPE_INT64), false, 4},
        {(char *)"n", floe_type_primitive(FLOE_TYPE_INT64), true, 5},
        {(char *)"f", floe_type_primitive(FLOE_TYPE_FLOAT64), true, 6},
        {(char *)"s", floe_type_primitive(FLOE_TYPE_STRING), false, 7},
        {(char *)"l", lt, true, 8},
        {(char *)"w", floe_type_primitive(FLOE_TYPE_STRING), false, 9},
    };
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(f, NC, &s));
    floe_type_release(lt);
    return s;
}

static floe_batch *make_batch(floe_schema *s, int64_t first, int64_t n) {
    floe_builder *b[NC];
    for (int c = 0; c < NC; c++) assert_ok(floe_builder_new(s->children[c].type, n, &b[c]));
    char buf[48];
    for (int64_t i = first; i < first + n; i++) {
        assert_ok(floe_builder_append_int64(b[0], i));
        assert_ok(floe_builder_append_int64(b[1], N - 1 - i));
        assert_ok(floe_builder_append_int64(b[2], col_u(i)));
        assert_ok(floe_builder_append_int64(b[3], i / 250));
        if (n_null(i)) assert_ok(floe_builder_append_null(b[4]));
        else assert_ok(floe_builder_append_int64(b[4], i));
        assert_ok(floe_builder_append_double(b[5], col_f(i)));
        snprintf(buf, sizeof buf, "prefix-%06lld", (long long)i);
        assert_ok(floe_builder_append_string(b[6], buf));
        if (i % 11 == 5) {
            assert_ok(floe_builder_append_null(b[7]));
        } else {
            for (int64_t k = 0; k < i % 3; k++)
                assert_ok(floe_builder_append_int64(floe_builder_child(b[7], 0), i + k));
            assert_ok(floe_builder_append_list(b[7]));
        }
        snprintf(buf, sizeof buf, "w%029lld", (long long)i);
        assert_ok(floe_builder_append_string(b[8], buf));
    }
    floe_array *a[NC];
    for (int c = 0; c < NC; c++) {
        assert_ok(floe_builder_finish(b[c], &a[c]));
        floe_builder_free(b[c]);
    }
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(s, a, NC, n, &batch));
    for (int c = 0; c < NC; c++) floe_array_release(a[c]);
    return batch;
}

typedef struct variant {
    bool page_index, dictionary, v2;
} variant;

/* Write the N rows with pages of about 100 rows and row groups of 1000. */
static void write_file(const char *path, variant v) {
    floe_schema *s = make_schema();
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.page_rows = 100;
    o.row_group_rows = 1000;
    o.stats_truncate = 10;
    o.write_page_index = v.page_index;
    o.dictionary = v.dictionary;
    o.data_page_v2 = v.v2;
    o.page_bytes = 2000; /* w: about 66 rows a page; the others 100 */
    floe_pq_column_option wo = {9, NULL, FLOE_PQ_WENC_PLAIN, false};
    o.columns = &wo;
    o.n_columns = 1;
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_writer *w = NULL;
    assert_ok(floe_pq_writer_open(out, s, &o, &w));
    for (int64_t r = 0; r < N; r += 333) {
        floe_batch *b = make_batch(s, r, N - r < 333 ? N - r : 333);
        assert_ok(floe_pq_writer_write(w, b));
        floe_batch_release(b);
    }
    assert_ok(floe_pq_writer_close(w, NULL));
    floe_type_release(s);
}

/* Every row of a full read, all columns formatted and joined. */
static char **read_all_rows(const char *path) {
    char **rows = floe_calloc(N, sizeof *rows);
    floe_pq_reader *r = NULL;
    floe_pq_read_options ro = {0};
    assert_ok(floe_pq_reader_open_path(path, &ro, &r));
    int64_t at = 0;
    floe_buf line = FLOE_BUF_INIT;
    for (;;) {
        floe_batch *b = NULL;
        assert_ok(floe_pq_reader_next(r, &b));
        if (!b) break;
        for (int64_t i = 0; i < b->num_rows; i++) {
            floe_buf_clear(&line);
            for (int32_t c = 0; c < b->num_columns; c++) {
                assert_ok(floe_format_value(b->columns[c], i, &line));
                assert_ok(floe_buf_append(&line, "|", 1));
            }
            assert_true(at < N);
            rows[at++] = floe_strdup(floe_buf_cstr(&line));
        }
        floe_batch_release(b);
    }
    assert_int_equal(at, N);
    floe_buf_free(&line);
    floe_pq_reader_close(r);
    return rows;
}

static void free_rows(char **rows) {
    for (int i = 0; i < N; i++) floe_free(rows[i]);
    floe_free(rows);
}

typedef bool (*row_pred)(int64_t i);

/* Read `path` with the predicates (all columns, or only `column` when not
 * NULL); check every row against `full` at its file position, that every
 * row where `match` holds came back, and return the skip statistics. */
static floe_pq_skip_stats check_read(const char *path, char **full, const floe_pq_predicate *p,
                                     int np, row_pred match, int64_t batch_size,
                                     uint64_t *bytes_read) {
    floe_pq_file *f = NULL;
    assert_ok(floe_pq_file_open_path(path, &f));
    uint64_t before = f->in->bytes_read;
    floe_pq_read_options ro = {0};
    ro.predicates = p;
    ro.num_predicates = np;
    ro.batch_size = batch_size;
    floe_pq_reader *r = NULL;
    assert_ok(floe_pq_reader_open(f, &ro, &r));
    bool *seen = floe_calloc(N, sizeof *seen);
    floe_buf line = FLOE_BUF_INIT;
    for (;;) {
        floe_batch *b = NULL;
        assert_ok(floe_pq_reader_next(r, &b));
        if (!b) break;
        const floe_pq_row_span *sp;
        int nsp;
        floe_pq_reader_last_rows(r, &sp, &nsp);
        int64_t i = 0;
        for (int k = 0; k < nsp; k++) {
            for (int64_t j = 0; j < sp[k].num_rows; j++, i++) {
                int64_t row = sp[k].first_row + j;
                assert_true(row >= 0 && row < N);
                assert_false(seen[row]);
                seen[row] = true;
                floe_buf_clear(&line);
                for (int32_t c = 0; c < b->num_columns; c++) {
                    assert_ok(floe_format_value(b->columns[c], i, &line));
                    assert_ok(floe_buf_append(&line, "|", 1));
                }
                if (strcmp(floe_buf_cstr(&line), full[row]) != 0)
                    fail_msg("row %lld: got %s, want %s", (long long)row, floe_buf_cstr(&line),
                             full[row]);
            }
        }
        assert_int_equal(i, b->num_rows);
        floe_batch_release(b);
    }
    for (int64_t i = 0; i < N; i++)
        if (match(i) && !seen[i]) fail_msg("row %lld matches but was skipped", (long long)i);
    floe_pq_skip_stats st;
    floe_pq_reader_skip_stats(r, &st);
    int64_t emitted = 0;
    for (int64_t i = 0; i < N; i++) emitted += seen[i];
    assert_int_equal(st.rows_emitted, emitted);
    floe_free(seen);
    floe_buf_free(&line);
    floe_pq_reader_close(r);
    if (bytes_read) *bytes_read = f->in->bytes_read - before;
    floe_pq_file_close(f);
    return st;
}

static floe_pq_value ival(int64_t x) {
    floe_pq_value v = {0};
    v.kind = FLOE_PQ_VAL_INT;
    v.i = x;
    return v;
}

static floe_pq_predicate pred(const char *path, floe_pq_pred_op op, const floe_pq_value *v, int n) {
    floe_pq_predicate p = {path, -1, op, v, n};
    return p;
}

/* One file per test, shared by the cases of that test. */
static char *g_full_path;

static void setup_file(const char *name, variant v, char *path, size_t cap) {
    char dir[512];
    floe_test_tmpdir(dir, sizeof dir, name);
    snprintf(path, cap, "%s/t.parquet", dir);
    write_file(path, v);
    g_full_path = path;
}

/* ---------------------------------------------------------------- cases */

static int64_t g_lit, g_lit2;
static bool m_id_eq(int64_t i) { return i == g_lit; }
static bool m_id_lt(int64_t i) { return i < g_lit; }
static bool m_id_le(int64_t i) { return i <= g_lit; }
static bool m_id_gt(int64_t i) { return i > g_lit; }
static bool m_id_ge(int64_t i) { return i >= g_lit; }
static bool m_d_eq(int64_t i) { return N - 1 - i == g_lit; }
static bool m_d_lt(int64_t i) { return N - 1 - i < g_lit; }
static bool m_d_ge(int64_t i) { return N - 1 - i >= g_lit; }
static bool m_u_eq(int64_t i) { return col_u(i) == g_lit; }
static bool m_u_lt(int64_t i) { return col_u(i) < g_lit; }
static bool m_c_eq(int64_t i) { return i / 250 == g_lit; }
static bool m_c_lt(int64_t i) { return i / 250 < g_lit; }
static bool m_c_le(int64_t i) { return i / 250 <= g_lit; }
static bool m_c_gt(int64_t i) { return i / 250 > g_lit; }
static bool m_c_ge(int64_t i) { return i / 250 >= g_lit; }
static bool m_id_ge_and_d_ge(int64_t i) { return i >= g_lit && N - 1 - i >= g_lit2; }

typedef struct int_case {
    const char *col;
    floe_pq_pred_op op;
    int64_t lit;
    row_pred match;
} int_case;

/* Literals at and around page (100) and row group (1000) boundaries. */
static const int_case int_cases[] = {
    {"id", FLOE_PQ_OP_EQ, 0, m_id_eq},      {"id", FLOE_PQ_OP_EQ, 99, m_id_eq},
    {"id", FLOE_PQ_OP_EQ, 100, m_id_eq},    {"id", FLOE_PQ_OP_EQ, 101, m_id_eq},
    {"id", FLOE_PQ_OP_EQ, 999, m_id_eq},    {"id", FLOE_PQ_OP_EQ, 1000, m_id_eq},
    {"id", FLOE_PQ_OP_EQ, 2499, m_id_eq},   {"id", FLOE_PQ_OP_EQ, 2500, m_id_eq},
    {"id", FLOE_PQ_OP_EQ, -1, m_id_eq},     {"id", FLOE_PQ_OP_LT, 100, m_id_lt},
    {"id", FLOE_PQ_OP_LT, 101, m_id_lt},    {"id", FLOE_PQ_OP_LE, 99, m_id_le},
    {"id", FLOE_PQ_OP_LE, 100, m_id_le},    {"id", FLOE_PQ_OP_GT, 899, m_id_gt},
    {"id", FLOE_PQ_OP_GT, 900, m_id_gt},    {"id", FLOE_PQ_OP_GE, 900, m_id_ge},
    {"id", FLOE_PQ_OP_GE, 2399, m_id_ge},   {"id", FLOE_PQ_OP_LT, 0, m_id_lt},
    {"d", FLOE_PQ_OP_EQ, 1500, m_d_eq},     {"d", FLOE_PQ_OP_EQ, 1499, m_d_eq},
    {"d", FLOE_PQ_OP_LT, 100, m_d_lt},      {"d", FLOE_PQ_OP_GE, 2400, m_d_ge},
    {"d", FLOE_PQ_OP_GE, 2399, m_d_ge},     {"u", FLOE_PQ_OP_EQ, 700, m_u_eq},
    {"u", FLOE_PQ_OP_EQ, 799, m_u_eq},      {"u", FLOE_PQ_OP_LT, 200, m_u_lt},
    {"c", FLOE_PQ_OP_EQ, 3, m_c_eq},        {"c", FLOE_PQ_OP_LT, 3, m_c_lt},
    {"c", FLOE_PQ_OP_LE, 3, m_c_le},        {"c", FLOE_PQ_OP_GT, 3, m_c_gt},
    {"c", FLOE_PQ_OP_GE, 3, m_c_ge},        {"c", FLOE_PQ_OP_EQ, 9, m_c_eq},
};

static void run_int_cases(const char *path, char **full, bool expect_skips) {
    int64_t dropped = 0;
    for (size_t k = 0; k < sizeof int_cases / sizeof int_cases[0]; k++) {
        const int_case *c = &int_cases[k];
        g_lit = c->lit;
        floe_pq_value v = ival(c->lit);
        floe_pq_predicate p = pred(c->col, c->op, &v, 1);
        /* Batch sizes that do and do not line up with pages. */
        int64_t bs[] = {0, 37, 100};
        for (int b = 0; b < 3; b++) {
            floe_pq_skip_stats st = check_read(path, full, &p, 1, c->match, bs[b], NULL);
            int64_t matching = 0;
            for (int64_t i = 0; i < N; i++) matching += c->match(i);
            if (expect_skips && matching * 4 < N)
                if (st.rows_emitted >= N / 2)
                    fail_msg("%s op %d %lld: %lld rows emitted for %lld matching", c->col,
                             (int)c->op, (long long)c->lit, (long long)st.rows_emitted,
                             (long long)matching);
            if (!expect_skips) assert_int_equal(st.rows_emitted, N);
            dropped += st.values_dropped;
        }
    }
    /* Page heads of w (and l) before a range were decoded and dropped. */
    if (expect_skips) assert_true(dropped > 0);
}

static void comparisons_keep_every_matching_row_at_page_boundaries(void **state) {
    (void)state;
    char path[700];
    setup_file("pq_skip_cmp", (variant){true, true, false}, path, sizeof path);
    char **full = read_all_rows(path);
    run_int_cases(path, full, true);
    free_rows(full);
}

static void plain_and_v2_pages_skip_the_same_way(void **state) {
    (void)state;
    char path[700];
    setup_file("pq_skip_v2", (variant){true, false, true}, path, sizeof path);
    char **full = read_all_rows(path);
    run_int_cases(path, full, true);
    free_rows(full);
}

static void file_without_page_index_reads_everything(void **state) {
    (void)state;
    char path[700];
    setup_file("pq_skip_noindex", (variant){false, true, false}, path, sizeof path);
    char **full = read_all_rows(path);
    run_int_cases(path, full, false);
    free_rows(full);
}

static void selective_predicate_fetches_few_bytes_and_pages(void **state) {
    (void)state;
    char path[700];
    setup_file("pq_skip_bytes", (variant){true, true, false}, path, sizeof path);
    char **full = read_all_rows(path);
    uint64_t all_bytes = 0, few_bytes = 0;
    g_lit = 1234;
    floe_pq_value v = ival(1234);
    floe_pq_predicate p = pred("id", FLOE_PQ_OP_EQ, &v, 1);
    /* id >= -5 matches everything: the baseline. */
    floe_pq_value v0 = ival(-5);
    floe_pq_predicate p0 = pred("id", FLOE_PQ_OP_GE, &v0, 1);
    g_lit = -5;
    floe_pq_skip_stats s0 = check_read(path, full, &p0, 1, m_id_ge, 0, &all_bytes);
    assert_int_equal(s0.pages_skipped, 0);
    assert_int_equal(s0.rows_emitted, N);
    g_lit = 1234;
    floe_pq_skip_stats s1 = check_read(path, full, &p, 1, m_id_eq, 0, &few_bytes);
    assert_int_equal(s1.row_groups_skipped, 2);
    assert_true(s1.pages_skipped > 0);
    assert_true(s1.pages_skipped * 2 > s1.pages_total);
    assert_true(s1.rows_emitted <= 100);
    /* Two row groups not touched, and most pages of the third skipped. */
    assert_true(few_bytes * 5 < all_bytes);
    /* Nothing matches: no data fetched at all. */
    floe_pq_value vn = ival(5000);
    floe_pq_predicate pn = pred("id", FLOE_PQ_OP_GT, &vn, 1);
    g_lit = 5000;
    uint64_t none_bytes = 0;
    floe_pq_skip_stats s2 = check_read(path, full, &pn, 1, m_id_gt, 0, &none_bytes);
    assert_int_equal(s2.rows_emitted, 0);
    assert_int_equal(s2.row_groups_skipped, 3);
    assert_true(none_bytes * 20 < all_bytes);
    free_rows(full);
}

static void and_of_predicates_intersects_ranges(void **state) {
    (void)state;
    char path[700];
    setup_file("pq_skip_and", (variant){true, true, false}, path, sizeof path);
    char **full = read_all_rows(path);
    floe_pq_value a = ival(1000), b = ival(1000);
    floe_pq_predicate p[2] = {pred("id", FLOE_PQ_OP_GE, &a, 1), pred("d", FLOE_PQ_OP_GE, &b, 1)};
    g_lit = 1000;
    g_lit2 = 1000;
    floe_pq_skip_stats st = check_read(path, full, p, 2, m_id_ge_and_d_ge, 0, NULL);
    /* Rows 1000..1499 match; page granularity keeps at most a page more. */
    assert_true(st.rows_emitted >= 500 && st.rows_emitted <= 700);
    free_rows(full);
}

static bool m_none(int64_t i) { (void)i; return false; }
static bool m_in(int64_t i) { return i == 5 || i == 1234 || i == 2499; }
static bool m_n_null(int64_t i) { return n_null(i); }
static bool m_n_not_null(int64_t i) { return !n_null(i); }
static bool m_n_gt_50(int64_t i) { return !n_null(i) && i > 50; }
static bool m_n_lt_700(int64_t i) { return !n_null(i) && i < 700; }

static void in_and_null_tests_use_null_pages(void **state) {
    (void)state;
    char path[700];
    setup_file("pq_skip_nulls", (variant){true, true, false}, path, sizeof path);
    char **full = read_all_rows(path);
    floe_pq_value in[3] = {ival(2499), ival(5), ival(1234)};
    floe_pq_predicate p = pred("id", FLOE_PQ_OP_IN, in, 3);
    floe_pq_skip_stats st = check_read(path, full, &p, 1, m_in, 0, NULL);
    assert_true(st.rows_emitted <= 300);

    p = pred("n", FLOE_PQ_OP_IS_NULL, NULL, 0);
    st = check_read(path, full, &p, 1, m_n_null, 0, NULL);
    assert_true(st.rows_emitted < N);
    p = pred("n", FLOE_PQ_OP_NOT_NULL, NULL, 0);
    st = check_read(path, full, &p, 1, m_n_not_null, 0, NULL);
    assert_true(st.rows_emitted < N);
    floe_pq_value v = ival(50);
    p = pred("n", FLOE_PQ_OP_GT, &v, 1);
    st = check_read(path, full, &p, 1, m_n_gt_50, 0, NULL);
    assert_true(st.rows_emitted < N); /* the all-null pages go */
    v = ival(700);
    p = pred("n", FLOE_PQ_OP_LT, &v, 1);
    st = check_read(path, full, &p, 1, m_n_lt_700, 37, NULL);
    assert_true(st.rows_emitted <= 800);
    /* id is required: IS NULL matches nothing. */
    p = pred("id", FLOE_PQ_OP_IS_NULL, NULL, 0);
    st = check_read(path, full, &p, 1, m_none, 0, NULL);
    assert_int_equal(st.rows_emitted, 0);
    free_rows(full);
}

static double g_dlit;
static bool m_f_lt(int64_t i) { return !isnan(col_f(i)) && col_f(i) < g_dlit; }
/* NaN orders above every number in the engine. */
static bool m_f_gt(int64_t i) { return isnan(col_f(i)) || col_f(i) > g_dlit; }
static bool m_f_eq(int64_t i) { return col_f(i) == g_dlit; }

static void floats_keep_pages_that_may_hold_nan(void **state) {
    (void)state;
    char path[700];
    setup_file("pq_skip_float", (variant){true, true, false}, path, sizeof path);
    char **full = read_all_rows(path);
    floe_pq_value v = {0};
    v.kind = FLOE_PQ_VAL_DOUBLE;
    v.d = 10.0;
    g_dlit = 10.0;
    floe_pq_predicate p = pred("f", FLOE_PQ_OP_LT, &v, 1);
    floe_pq_skip_stats st = check_read(path, full, &p, 1, m_f_lt, 0, NULL);
    assert_true(st.rows_emitted <= 200);
    v.d = g_dlit = 1200.0;
    p = pred("f", FLOE_PQ_OP_GT, &v, 1);
    check_read(path, full, &p, 1, m_f_gt, 0, NULL);
    v.d = g_dlit = 300.5;
    p = pred("f", FLOE_PQ_OP_EQ, &v, 1);
    st = check_read(path, full, &p, 1, m_f_eq, 0, NULL);
    assert_true(st.rows_emitted <= 200);
    /* An INT literal compares with a double column as a double. */
    floe_pq_value iv = ival(300);
    g_dlit = 300.0;
    p = pred("f", FLOE_PQ_OP_EQ, &iv, 1);
    check_read(path, full, &p, 1, m_f_eq, 0, NULL);
    /* A NaN literal prunes nothing. */
    v.d = NAN;
    p = pred("f", FLOE_PQ_OP_EQ, &v, 1);
    st = check_read(path, full, &p, 1, m_none, 0, NULL);
    assert_int_equal(st.rows_emitted, N);
    /* A DOUBLE literal against an integer column. */
    v.d = 99.5;
    g_lit = 99;
    p = pred("id", FLOE_PQ_OP_LE, &v, 1);
    st = check_read(path, full, &p, 1, m_id_le, 0, NULL);
    assert_true(st.rows_emitted <= 200);
    free_rows(full);
}

static const char *g_slit;
static bool m_s_eq(int64_t i) {
    char b[32];
    snprintf(b, sizeof b, "prefix-%06lld", (long long)i);
    return strcmp(b, g_slit) == 0;
}
static bool m_s_lt(int64_t i) {
    char b[32];
    snprintf(b, sizeof b, "prefix-%06lld", (long long)i);
    return strcmp(b, g_slit) < 0;
}
static bool m_s_gt(int64_t i) {
    char b[32];
    snprintf(b, sizeof b, "prefix-%06lld", (long long)i);
    return strcmp(b, g_slit) > 0;
}

static floe_pq_value sval(const char *s) {
    floe_pq_value v = {0};
    v.kind = FLOE_PQ_VAL_BYTES;
    v.bytes = (const uint8_t *)s;
    v.len = strlen(s);
    return v;
}

static void truncated_string_bounds_still_bound(void **state) {
    (void)state;
    char path[700];
    setup_file("pq_skip_str", (variant){true, true, false}, path, sizeof path);
    char **full = read_all_rows(path);
    /* The page bounds are cut to 10 bytes ("prefix-000"), so they cannot
     * tell pages apart within a thousand rows; results must still be right. */
    const char *lits[] = {"prefix-000150", "prefix-001000", "prefix-002499", "prefix-", "zzz", ""};
    for (int k = 0; k < 6; k++) {
        g_slit = lits[k];
        floe_pq_value v = sval(lits[k]);
        floe_pq_predicate p = pred("s", FLOE_PQ_OP_EQ, &v, 1);
        check_read(path, full, &p, 1, m_s_eq, 0, NULL);
        p = pred("s", FLOE_PQ_OP_LT, &v, 1);
        check_read(path, full, &p, 1, m_s_lt, 0, NULL);
        p = pred("s", FLOE_PQ_OP_GT, &v, 1);
        check_read(path, full, &p, 1, m_s_gt, 0, NULL);
    }
    /* "prefix-001..." sorts after every bound of the first row group. */
    g_slit = "prefix-001500";
    floe_pq_value v = sval(g_slit);
    floe_pq_predicate p = pred("s", FLOE_PQ_OP_EQ, &v, 1);
    floe_pq_skip_stats st = check_read(path, full, &p, 1, m_s_eq, 0, NULL);
    assert_true(st.row_groups_skipped >= 1);
    free_rows(full);
}

static void projection_and_field_ids_with_predicates(void **state) {
    (void)state;
    char path[700], dir[512];
    floe_test_tmpdir(dir, sizeof dir, "pq_skip_proj");
    snprintf(path, sizeof path, "%s/t.parquet", dir);
    write_file(path, (variant){true, true, false});
    /* Read only s and l with a predicate on id (by field id 1). */
    floe_pq_value v = ival(1500);
    floe_pq_predicate p = {NULL, 1, FLOE_PQ_OP_GE, &v, 1};
    const char *cols[] = {"l", "s"};
    floe_pq_read_options ro = {0};
    ro.columns = cols;
    ro.num_columns = 2;
    ro.predicates = &p;
    ro.num_predicates = 1;
    ro.batch_size = 64;
    floe_pq_reader *r = NULL;
    assert_ok(floe_pq_reader_open_path(path, &ro, &r));
    int64_t rows = 0;
    floe_buf a = FLOE_BUF_INIT;
    for (;;) {
        floe_batch *b = NULL;
        assert_ok(floe_pq_reader_next(r, &b));
        if (!b) break;
        const floe_pq_row_span *sp;
        int nsp;
        floe_pq_reader_last_rows(r, &sp, &nsp);
        int64_t i = 0;
        for (int k = 0; k < nsp; k++)
            for (int64_t j = 0; j < sp[k].num_rows; j++, i++) {
                int64_t row = sp[k].first_row + j;
                char want[32];
                snprintf(want, sizeof want, "prefix-%06lld", (long long)row);
                floe_buf_clear(&a);
                assert_ok(floe_format_value(b->columns[1], i, &a));
                assert_string_equal(floe_buf_cstr(&a), want);
                /* the list's first element is the row number */
                if (row % 11 != 5 && row % 3 > 0) {
                    floe_buf_clear(&a);
                    assert_ok(floe_format_value(b->columns[0], i, &a));
                    char lw[32];
                    snprintf(lw, sizeof lw, "[%lld", (long long)row);
                    assert_true(strncmp(floe_buf_cstr(&a), lw, strlen(lw)) == 0);
                }
                rows++;
            }
        floe_batch_release(b);
    }
    assert_true(rows >= 1000 && rows <= 1100);
    floe_buf_free(&a);
    floe_pq_reader_close(r);

    /* Bad predicates are refused at open. */
    floe_pq_predicate bad = pred("nope", FLOE_PQ_OP_EQ, &v, 1);
    ro.predicates = &bad;
    assert_error(floe_pq_reader_open_path(path, &ro, &r), FLOE_ERR_NOT_FOUND, "nope");
    floe_pq_value sv = sval("x");
    bad = pred("id", FLOE_PQ_OP_EQ, &sv, 1);
    assert_error(floe_pq_reader_open_path(path, &ro, &r), FLOE_ERR_INVALID_ARGUMENT, "id");
    bad = pred("l", FLOE_PQ_OP_IS_NULL, NULL, 0);
    assert_error(floe_pq_reader_open_path(path, &ro, &r), FLOE_ERR_INVALID_ARGUMENT, "primitive");
    floe_pq_predicate bad_id = {NULL, 20, FLOE_PQ_OP_EQ, &v, 1};
    ro.predicates = &bad_id;
    assert_error(floe_pq_reader_open_path(path, &ro, &r), FLOE_ERR_INVALID_ARGUMENT, "list or map");
    bad = pred("id", FLOE_PQ_OP_EQ, &v, 0);
    ro.predicates = &bad;
    assert_error(floe_pq_reader_open_path(path, &ro, &r), FLOE_ERR_INVALID_ARGUMENT, "values");
}

/* pq_page_may_match on a hand-made ColumnIndex: the cases writers rarely
 * produce (untrusted order, NaN bounds, nan counts). */
static void page_judgement_on_synthetic_index(void **state) {
    (void)state;
    floe_pq_column col = {0};
    col.path = "x";
    col.physical = FLOE_PQ_DOUBLE;
    col.kind = FLOE_PQ_KIND_DOUBLE;
    col.max_def_level = 1;
    double mins[3] = {1.0, NAN, 5.0}, maxs[3] = {2.0, 3.0, 5.0};
    floe_pq_bytes bmin[3], bmax[3];
    for (int i = 0; i < 3; i++) {
        bmin[i] = (floe_pq_bytes){(const uint8_t *)&mins[i], 8, true};
        bmax[i] = (floe_pq_bytes){(const uint8_t *)&maxs[i], 8, true};
    }
    bool nulls[3] = {false, false, false};
    int64_t nan_counts[3] = {0, 0, 0};
    floe_pq_column_index ci = {0};
    ci.null_pages = nulls;
    ci.num_pages = 3;
    ci.min_values = bmin;
    ci.max_values = bmax;
    floe_pq_value v = {0};
    v.kind = FLOE_PQ_VAL_DOUBLE;
    v.d = 4.0;
    floe_pq_predicate p = {"x", -1, FLOE_PQ_OP_GT, &v, 1};
    pq_pred b;
    assert_ok(pq_pred_bind(&col, &p, &b));
    /* No nan counts: a page with max 2 may still hold NaN > 4. */
    assert_true(pq_page_may_match(&b, &ci, 0, true));
    ci.nan_counts = nan_counts;
    ci.num_nan_counts = 3;
    assert_false(pq_page_may_match(&b, &ci, 0, true));
    assert_true(pq_page_may_match(&b, &ci, 1, true));  /* NaN min: unknown */
    assert_true(pq_page_may_match(&b, &ci, 2, true));
    assert_true(pq_page_may_match(&b, &ci, 0, false)); /* untrusted order */
    pq_pred_free(&b);
    /* min == max == literal */
    v.d = 5.0;
    p.op = FLOE_PQ_OP_EQ;
    assert_ok(pq_pred_bind(&col, &p, &b));
    assert_true(pq_page_may_match(&b, &ci, 2, true));
    assert_false(pq_page_may_match(&b, &ci, 0, true));
    pq_pred_free(&b);
    p.op = FLOE_PQ_OP_LT;
    assert_ok(pq_pred_bind(&col, &p, &b));
    assert_false(pq_page_may_match(&b, &ci, 2, true));
    assert_true(pq_page_may_match(&b, &ci, 0, true));
    pq_pred_free(&b);
    p.op = FLOE_PQ_OP_GE;
    assert_ok(pq_pred_bind(&col, &p, &b));
    assert_true(pq_page_may_match(&b, &ci, 2, true));
    pq_pred_free(&b);
    /* A null page matches IS NULL only. */
    nulls[0] = true;
    p.op = FLOE_PQ_OP_LE;
    assert_ok(pq_pred_bind(&col, &p, &b));
    assert_false(pq_page_may_match(&b, &ci, 0, true));
    pq_pred_free(&b);
    floe_pq_predicate pn = {"x", -1, FLOE_PQ_OP_IS_NULL, NULL, 0};
    assert_ok(pq_pred_bind(&col, &pn, &b));
    assert_true(pq_page_may_match(&b, &ci, 0, true));
    pq_pred_free(&b);
    /* Decimal FIXED bounds compare as signed big-endian numbers. */
    floe_pq_column dc = {0};
    dc.path = "dec";
    dc.physical = FLOE_PQ_FIXED_LEN_BYTE_ARRAY;
    dc.type_length = 2;
    dc.kind = FLOE_PQ_KIND_DECIMAL;
    uint8_t m1[2] = {0xff, 0x38}, m2[2] = {0x00, 0xc8}; /* -200, 200 */
    floe_pq_bytes dmin = {m1, 2, true}, dmax = {m2, 2, true};
    bool dn = false;
    floe_pq_column_index dci = {0};
    dci.null_pages = &dn;
    dci.num_pages = 1;
    dci.min_values = &dmin;
    dci.max_values = &dmax;
    floe_pq_value dv = ival(-150);
    floe_pq_predicate dp = {"dec", -1, FLOE_PQ_OP_EQ, &dv, 1};
    assert_ok(pq_pred_bind(&dc, &dp, &b));
    assert_true(pq_page_may_match(&b, &dci, 0, true));
    pq_pred_free(&b);
    dv = ival(-201);
    assert_ok(pq_pred_bind(&dc, &dp, &b));
    assert_false(pq_page_may_match(&b, &dci, 0, true));
    pq_pred_free(&b);
}

static void ranges_intersect_and_merge(void **state) {
    (void)state;
    pq_ranges a, b;
    pq_ranges_init(&a);
    pq_ranges_init(&b);
    assert_ok(pq_ranges_add(&a, 0, 10));
    assert_ok(pq_ranges_add(&a, 10, 20)); /* touching: merged */
    assert_ok(pq_ranges_add(&a, 30, 40));
    assert_int_equal(a.n, 2);
    assert_ok(pq_ranges_add(&b, 5, 35));
    assert_ok(pq_ranges_add(&b, 39, 50));
    assert_ok(pq_ranges_intersect(&a, &b));
    assert_int_equal(a.n, 3);
    assert_int_equal(a.lo[0], 5);
    assert_int_equal(a.hi[0], 20);
    assert_int_equal(a.lo[1], 30);
    assert_int_equal(a.hi[1], 35);
    assert_int_equal(a.lo[2], 39);
    assert_int_equal(a.hi[2], 40);
    assert_int_equal(pq_ranges_rows(&a), 21);
    pq_ranges_free(&a);
    pq_ranges_free(&b);
}

/* All rows of a read (given options) as text, in order, and the bytes read;
 * or the error message of the first failure. */
static char *read_text(const char *path, floe_pq_read_options *ro, uint64_t *bytes) {
    floe_pq_file *f = NULL;
    assert_ok(floe_pq_file_open_path(path, &f));
    uint64_t before = f->in->bytes_read;
    floe_pq_reader *r = NULL;
    floe_buf all = FLOE_BUF_INIT;
    floe_status st = floe_pq_reader_open(f, ro, &r);
    while (!st) {
        floe_batch *b = NULL;
        st = floe_pq_reader_next(r, &b);
        if (st || !b) break;
        for (int64_t i = 0; i < b->num_rows; i++) {
            for (int32_t c = 0; c < b->num_columns; c++) {
                assert_ok(floe_format_value(b->columns[c], i, &all));
                assert_ok(floe_buf_append(&all, "|", 1));
            }
            assert_ok(floe_buf_append(&all, "\n", 1));
        }
        floe_batch_release(b);
    }
    if (st) {
        floe_buf_clear(&all);
        assert_ok(floe_buf_append(&all, "ERROR ", 6));
        const char *m = floe_status_message(st);
        assert_ok(floe_buf_append(&all, m, strlen(m)));
        floe_status_free(st);
    }
    floe_pq_reader_close(r);
    if (bytes) *bytes = f->in->bytes_read - before;
    floe_pq_file_close(f);
    char *out = floe_strdup(floe_buf_cstr(&all));
    floe_buf_free(&all);
    return out;
}

static void read_ahead_reads_the_same_rows_and_bytes(void **state) {
    (void)state;
    char path[700];
    setup_file("pq_read_ahead", (variant){true, true, false}, path, sizeof path);
    const char *cols[] = {"w", "id", "l"};
    int rgs[] = {2, 0, 1, 0};
    floe_pq_read_options ro = {0};
    ro.columns = cols;
    ro.num_columns = 3;
    ro.row_groups = rgs;
    ro.num_row_groups = 4;
    uint64_t b0 = 0;
    char *want = read_text(path, &ro, &b0);
    assert_true(strlen(want) > 1000);
    int depths[] = {1, 2, 5};
    for (int d = 0; d < 3; d++) {
        ro.read_ahead = depths[d];
        uint64_t b = 0;
        char *got = read_text(path, &ro, &b);
        assert_string_equal(got, want);
        assert_int_equal(b, b0);
        floe_free(got);
    }
    floe_free(want);
    /* A read-ahead's failure surfaces at its row group, as without one:
     * corrupt the middle of the file (row group 1's pages). */
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, size / 2, SEEK_SET);
    char junk[64];
    memset(junk, 0x5a, sizeof junk);
    fwrite(junk, 1, sizeof junk, fp);
    fclose(fp);
    ro.read_ahead = 0;
    ro.columns = NULL;
    ro.num_columns = 0;
    char *e0 = read_text(path, &ro, NULL);
    ro.read_ahead = 3;
    char *e3 = read_text(path, &ro, NULL);
    assert_true(strncmp(e0, "ERROR ", 6) == 0);
    assert_string_equal(e3, e0);
    floe_free(e0);
    floe_free(e3);
}

FLOE_TEST_MAIN(cmocka_unit_test(read_ahead_reads_the_same_rows_and_bytes),
               cmocka_unit_test(comparisons_keep_every_matching_row_at_page_boundaries),
               cmocka_unit_test(plain_and_v2_pages_skip_the_same_way),
               cmocka_unit_test(file_without_page_index_reads_everything),
               cmocka_unit_test(selective_predicate_fetches_few_bytes_and_pages),
               cmocka_unit_test(and_of_predicates_intersects_ranges),
               cmocka_unit_test(in_and_null_tests_use_null_pages),
               cmocka_unit_test(floats_keep_pages_that_may_hold_nan),
               cmocka_unit_test(truncated_string_bounds_still_bound),
               cmocka_unit_test(projection_and_field_ids_with_predicates),
               cmocka_unit_test(page_judgement_on_synthetic_index),
               cmocka_unit_test(ranges_intersect_and_merge))

/*
 * test_scan_parquet.c — the ParquetScan leaf over files written here with
 * floe's Parquet writer: globs and path lists, balancing row groups over
 * partitions, projection, row-group pruning that skips what statistics
 * exclude and never drops a matching row, schema mismatches, missing and
 * corrupt files, the codec roundtrip, EXPLAIN and cancellation; Hive
 * partitions (key=value folders) as typed columns whose predicates drop
 * whole files from the plan without opening them, through the codec.
 */
#include "exec_util.h"
#include "floe/exec_scan.h"
#include "floe/fileio.h"
#include "formats/parquet/writer.h"

static floe_threadpool *pool;
static char dir[1024];

#define RG_ROWS 100

static int setup(void **state) {
    (void)state;
    return floe_threadpool_create(2, &pool) ? -1 : 0;
}
static int teardown(void **state) {
    (void)state;
    floe_threadpool_destroy(pool);
    return 0;
}

/* id int64 (not null), name string, v double (null when id % 7 == 3 and
 * id < 300, so only the first row groups hold nulls). */
static bool id_nullable; /* write "id" as an optional column */
static bool page_index;  /* write a page index (pages of 25 rows) */

static floe_schema *test_schema(bool v_as_int) {
    floe_field f[3];
    floe_schema *s;
    assert_ok(floe_field_init(&f[0], "id", floe_type_primitive(FLOE_TYPE_INT64), id_nullable, -1));
    assert_ok(floe_field_init(&f[1], "name", floe_type_primitive(FLOE_TYPE_STRING), true, -1));
    assert_ok(floe_field_init(&f[2], "v", floe_type_primitive(v_as_int ? FLOE_TYPE_INT32 : FLOE_TYPE_FLOAT64), true, -1));
    assert_ok(floe_type_struct(f, 3, &s));
    for (int i = 0; i < 3; i++) floe_field_clear(&f[i]);
    return s;
}

/* Write ids [first, first + n) in row groups of RG_ROWS rows. */
static void write_file(const char *name, int64_t first, int64_t n, bool v_as_int) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    floe_schema *s = test_schema(v_as_int);
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.row_group_rows = RG_ROWS;
    o.page_rows = 25;
    o.write_page_index = page_index;
    floe_output *out;
    floe_pq_writer *w;
    assert_ok(floe_output_create_local(path, 1, &out));
    assert_ok(floe_pq_writer_open(out, s, &o, &w));
    for (int64_t b = 0; b < n; b += RG_ROWS) {
        int64_t m = n - b < RG_ROWS ? n - b : RG_ROWS;
        floe_builder *bi, *bn, *bv;
        assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), m, &bi));
        assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), m, &bn));
        assert_ok(floe_builder_new(floe_type_primitive(v_as_int ? FLOE_TYPE_INT32 : FLOE_TYPE_FLOAT64), m, &bv));
        for (int64_t i = 0; i < m; i++) {
            int64_t id = first + b + i;
            char nm[32];
            snprintf(nm, sizeof nm, "n%05lld", (long long)id);
            assert_ok(floe_builder_append_int64(bi, id));
            assert_ok(floe_builder_append_string(bn, nm));
            if (id % 7 == 3 && id < 300) assert_ok(floe_builder_append_null(bv));
            else if (v_as_int) assert_ok(floe_builder_append_int32(bv, (int32_t)id));
            else assert_ok(floe_builder_append_double(bv, (double)id / 2));
        }
        floe_array *cols[3];
        assert_ok(floe_builder_finish(bi, &cols[0]));
        assert_ok(floe_builder_finish(bn, &cols[1]));
        assert_ok(floe_builder_finish(bv, &cols[2]));
        floe_builder_free(bi);
        floe_builder_free(bn);
        floe_builder_free(bv);
        floe_batch *batch;
        assert_ok(floe_batch_new(s, cols, 3, m, &batch));
        for (int i = 0; i < 3; i++) floe_array_release(cols[i]);
        assert_ok(floe_pq_writer_write(w, batch));
        floe_batch_release(batch);
    }
    assert_ok(floe_pq_writer_close(w, NULL));
    floe_type_release(s);
}

static const char *in_dir(char *buf, size_t cap, const char *rel) {
    snprintf(buf, cap, "%s/%s", dir, rel);
    return buf;
}

/* Files a_0 (ids 0..399), a_1 (400..799), b (1000..1399). */
static void make_files(const char *test) {
    floe_test_tmpdir(dir, sizeof dir, test);
    write_file("a_0.parquet", 0, 400, false);
    write_file("a_1.parquet", 400, 400, false);
    write_file("b.parquet", 1000, 400, false);
}

/* Every value of column `col` (int64), read from all partitions. */
static int64_t read_ids(const floe_plan *p, int col, int64_t *ids, int64_t cap) {
    floe_exec_ctx ctx = test_ctx(pool, 64);
    floe_batch **bs;
    int64_t n, k = 0;
    assert_ok(floe_exec_collect(p, &ctx, &bs, &n));
    for (int64_t i = 0; i < n; i++) {
        assert_true(floe_type_equals(bs[i]->schema, floe_plan_schema(p)));
        for (int64_t r = 0; r < bs[i]->num_rows; r++) {
            assert_true(k < cap);
            ids[k++] = floe_array_get_int64(bs[i]->columns[col], r);
        }
    }
    floe_exec_batches_free(bs, n);
    return k;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void glob_reads_every_row_once_balanced_over_partitions(void **state) {
    (void)state;
    make_files("pq_scan_glob");
    char pat[1200];
    const char *pats[1] = {in_dir(pat, sizeof pat, "a_*.parquet")};
    floe_plan *p;
    assert_ok(floe_parquet_scan_new(pats, 1, 3, &p));
    assert_string_equal(floe_plan_type_name(p), "ParquetScan");
    assert_int_equal(floe_plan_partitions(p), 3);
    assert_int_equal(floe_schema_num_fields(floe_plan_schema(p)), 3);
    assert_string_equal(floe_schema_field(floe_plan_schema(p), 1)->name, "name");
    /* 8 row groups of equal size over 3 partitions: 2 or 3 each, in file order */
    int32_t total_rgs = 0;
    for (int32_t i = 0; i < 3; i++) {
        int32_t rgs = 0;
        for (int32_t k = 0; k < floe_parquet_scan_num_partitions_parts(p, i); k++) {
            const floe_pq_scan_part *pt = floe_parquet_scan_part(p, i, k);
            assert_non_null(strstr(pt->path, "/a_"));
            rgs += pt->rg_end - pt->rg_begin;
        }
        assert_true(rgs == 2 || rgs == 3);
        total_rgs += rgs;
    }
    assert_int_equal(total_rgs, 8);
    int64_t ids[2000];
    int64_t n = read_ids(p, 0, ids, 2000);
    assert_int_equal(n, 800);
    qsort(ids, (size_t)n, sizeof *ids, cmp_i64);
    for (int64_t i = 0; i < n; i++) assert_int_equal(ids[i], i);
    floe_plan_release(p);
    /* A file: URI names the same local files. */
    char uri[1300];
    snprintf(uri, sizeof uri, "file://%s", pat);
    const char *upats[1] = {uri};
    assert_ok(floe_parquet_scan_new(upats, 1, 1, &p));
    assert_int_equal(read_ids(p, 0, ids, 2000), 800);
    assert_non_null(strstr(floe_parquet_scan_part(p, 0, 0)->path, "/a_0.parquet"));
    assert_int_equal(strncmp(floe_parquet_scan_part(p, 0, 0)->path, "file:", 5) != 0, 1);
    floe_plan_release(p);
    /* More partitions than row groups: one row group each, no empty ones. */
    assert_ok(floe_parquet_scan_new(pats, 1, 50, &p));
    assert_int_equal(floe_plan_partitions(p), 8);
    floe_plan_release(p);
}

static void several_patterns_read_a_file_matched_twice_once(void **state) {
    (void)state;
    make_files("pq_scan_patterns");
    char a[1200], b[1200];
    const char *pats[2] = {in_dir(a, sizeof a, "b.parquet"), in_dir(b, sizeof b, "*.parquet")};
    floe_plan *p;
    assert_ok(floe_parquet_scan_new(pats, 2, 1, &p));
    int64_t ids[3000];
    assert_int_equal(read_ids(p, 0, ids, 3000), 1200);
    /* b.parquet first (its pattern came first), then the rest sorted */
    assert_int_equal(ids[0], 1000);
    assert_int_equal(ids[400], 0);
    floe_plan_release(p);
}

static void unmatched_pattern_or_missing_file_is_not_found(void **state) {
    (void)state;
    make_files("pq_scan_missing");
    char a[1200], b[1200];
    floe_plan *p;
    const char *pats[1] = {in_dir(a, sizeof a, "zz_*.parquet")};
    assert_error(floe_parquet_scan_new(pats, 1, 1, &p), FLOE_ERR_NOT_FOUND, "zz_*.parquet");
    const char *pats2[2] = {in_dir(a, sizeof a, "a_0.parquet"), in_dir(b, sizeof b, "nope.parquet")};
    assert_error(floe_parquet_scan_new(pats2, 2, 1, &p), FLOE_ERR_NOT_FOUND, "nope.parquet");
}

static void files_with_another_schema_are_a_type_error_naming_the_file(void **state) {
    (void)state;
    make_files("pq_scan_mismatch");
    write_file("c_int.parquet", 2000, 100, true); /* v is int32 here */
    char a[1200];
    const char *pats[1] = {in_dir(a, sizeof a, "*.parquet")};
    floe_plan *p;
    assert_error(floe_parquet_scan_new(pats, 1, 2, &p), FLOE_ERR_TYPE, "c_int.parquet");
}

static void a_column_optional_in_any_file_is_nullable_in_the_scan(void **state) {
    (void)state;
    make_files("pq_scan_nullable");
    char a[1200];
    const char *pats[1] = {in_dir(a, sizeof a, "*.parquet")};
    floe_plan *p;
    assert_ok(floe_parquet_scan_new(pats, 1, 1, &p));
    assert_false(floe_schema_field(floe_plan_schema(p), 0)->nullable);
    floe_plan_release(p);
    id_nullable = true;
    write_file("c.parquet", 2000, 10, false);
    id_nullable = false;
    assert_ok(floe_parquet_scan_new(pats, 1, 1, &p));
    assert_true(floe_schema_field(floe_plan_schema(p), 0)->nullable);
    int64_t ids[2000];
    assert_int_equal(read_ids(p, 0, ids, 2000), 1210);
    floe_plan_release(p);
}

static void projection_reads_only_the_asked_columns_in_order(void **state) {
    (void)state;
    make_files("pq_scan_project");
    char a[1200];
    const char *pats[1] = {in_dir(a, sizeof a, "b.parquet")};
    floe_plan *p, *q, *z;
    assert_ok(floe_parquet_scan_new(pats, 1, 2, &p));
    const int32_t cols[2] = {2, 0};
    assert_ok(floe_parquet_scan_project(p, cols, 2, NULL, &q));
    assert_int_equal(floe_plan_partitions(q), 2);
    assert_string_equal(floe_schema_field(floe_plan_schema(q), 0)->name, "v");
    assert_string_equal(floe_schema_field(floe_plan_schema(q), 1)->name, "id");
    floe_exec_ctx ctx = test_ctx(pool, 1000);
    floe_batch *out;
    assert_ok(run_plan(q, &ctx, &out));
    assert_int_equal(out->num_rows, 400);
    for (int64_t i = 0; i < out->num_rows; i++)
        assert_true(floe_array_get_double(out->columns[0], i) * 2 == (double)floe_array_get_int64(out->columns[1], i));
    floe_batch_release(out);
    /* No columns at all: row counts from the footers. */
    assert_ok(floe_parquet_scan_project(p, NULL, 0, NULL, &z));
    assert_ok(run_plan(z, &ctx, &out));
    assert_int_equal(out->num_rows, 400);
    assert_int_equal(out->num_columns, 0);
    floe_batch_release(out);
    const int32_t bad[1] = {7};
    floe_plan *x;
    assert_error(floe_parquet_scan_project(p, bad, 1, NULL, &x), FLOE_ERR_INVALID_ARGUMENT, "column 7");
    floe_plan_release(z);
    floe_plan_release(q);
    floe_plan_release(p);
}

/* ---- pruning ---- */

static floe_expr *col(int i) {
    floe_expr *e;
    assert_ok(floe_expr_column(i, &e));
    return e;
}
static floe_expr *i64(int64_t v) {
    floe_expr *e;
    assert_ok(floe_expr_lit_int64(v, &e));
    return e;
}
static floe_expr *cmp(floe_cmp_op op, floe_expr *l, floe_expr *r) {
    floe_expr *e;
    assert_ok(floe_expr_cmp(op, l, r, &e));
    floe_expr_release(l);
    floe_expr_release(r);
    return e;
}
static floe_expr *and_(floe_expr *l, floe_expr *r) {
    floe_expr *e;
    assert_ok(floe_expr_and(l, r, &e));
    floe_expr_release(l);
    floe_expr_release(r);
    return e;
}
static floe_expr *or_(floe_expr *l, floe_expr *r) {
    floe_expr *e;
    assert_ok(floe_expr_or(l, r, &e));
    floe_expr_release(l);
    floe_expr_release(r);
    return e;
}

/* Rows surviving pruning (not filtered), and rows matching after a Filter
 * with and without pruning, which must be equal. */
static void check_prune(const floe_plan *base, floe_expr *pred, int64_t want_read, int64_t want_match) {
    const int32_t all[3] = {0, 1, 2};
    floe_plan *pr, *f1, *f2;
    assert_ok(floe_parquet_scan_project(base, all, 3, pred, &pr));
    floe_exec_ctx ctx = test_ctx(pool, 50);
    floe_batch *out;
    assert_ok(run_plan(pr, &ctx, &out));
    int64_t read = out ? out->num_rows : 0;
    floe_batch_release(out);
    if (want_read >= 0) assert_int_equal(read, want_read);
    assert_ok(floe_plan_filter(pr, pred, &f1));
    assert_ok(floe_plan_filter((floe_plan *)base, pred, &f2));
    floe_batch *a, *b;
    assert_ok(run_plan(f1, &ctx, &a));
    assert_ok(run_plan(f2, &ctx, &b));
    int64_t na = a ? a->num_rows : 0, nb = b ? b->num_rows : 0;
    assert_int_equal(na, nb); /* pruning never drops a matching row */
    assert_int_equal(na, want_match);
    if (a && b) assert_true(floe_batch_equals(a, b));
    floe_batch_release(a);
    floe_batch_release(b);
    floe_plan_release(f1);
    floe_plan_release(f2);
    floe_plan_release(pr);
    floe_expr_release(pred);
}

static void pruning_skips_row_groups_and_never_drops_a_matching_row(void **state) {
    (void)state;
    make_files("pq_scan_prune");
    char a[1200];
    const char *pats[1] = {in_dir(a, sizeof a, "a_*.parquet")}; /* ids 0..799, 8 row groups */
    floe_plan *p;
    assert_ok(floe_parquet_scan_new(pats, 1, 3, &p));
    /* range: row groups 2, 3, 4 */
    check_prune(p, and_(cmp(FLOE_CMP_GE, col(0), i64(250)), cmp(FLOE_CMP_LT, col(0), i64(420))), 300, 170);
    /* literal on the left */
    check_prune(p, cmp(FLOE_CMP_GT, i64(150), col(0)), 200, 150);
    /* equality: one row group */
    check_prune(p, cmp(FLOE_CMP_EQ, col(0), i64(555)), 100, 1);
    /* boundaries are inclusive: 99 is the max of row group 0, 100 the min of 1 */
    check_prune(p, cmp(FLOE_CMP_LE, col(0), i64(99)), 100, 100);
    check_prune(p, cmp(FLOE_CMP_GE, col(0), i64(699)), 200, 101);
    check_prune(p, cmp(FLOE_CMP_GT, col(0), i64(699)), 100, 100);
    /* nothing can match */
    check_prune(p, cmp(FLOE_CMP_GT, col(0), i64(5000)), 0, 0);
    /* OR keeps both sides' row groups */
    check_prune(p, or_(cmp(FLOE_CMP_LT, col(0), i64(10)), cmp(FLOE_CMP_EQ, col(0), i64(790))), 200, 11);
    /* IN */
    floe_expr *items[3] = {i64(5), i64(305), i64(9999)};
    floe_expr *in;
    floe_expr *c0 = col(0);
    assert_ok(floe_expr_in(c0, items, 3, &in));
    floe_expr_release(c0);
    for (int i = 0; i < 3; i++) floe_expr_release(items[i]);
    check_prune(p, in, 200, 2);
    /* IS NULL: v is null only in ids < 300 (row groups 0..2) */
    floe_expr *isn, *c2 = col(2);
    assert_ok(floe_expr_is_null(c2, false, &isn));
    check_prune(p, isn, 300, 43);
    /* IS NOT NULL keeps everything (no all-null row group) */
    assert_ok(floe_expr_is_null(c2, true, &isn));
    floe_expr_release(c2);
    check_prune(p, isn, 800, 757);
    /* strings */
    floe_expr *s;
    assert_ok(floe_expr_lit_string("n00450", &s));
    check_prune(p, cmp(FLOE_CMP_EQ, col(1), s), 100, 1);
    assert_ok(floe_expr_lit_string("n00700", &s));
    check_prune(p, cmp(FLOE_CMP_GE, col(1), s), 100, 100);
    /* doubles (v = id / 2) compared with an int literal */
    check_prune(p, cmp(FLOE_CMP_LT, col(2), i64(60)), 200, 103);
    /* a NULL literal matches nothing */
    floe_expr *nl;
    assert_ok(floe_expr_lit_null(floe_type_primitive(FLOE_TYPE_INT64), &nl));
    check_prune(p, cmp(FLOE_CMP_EQ, col(0), nl), 0, 0);
    /* what the pruner does not understand keeps every row group */
    floe_expr *sum, *c0b = col(0), *one = i64(1);
    assert_ok(floe_expr_arith(FLOE_ARITH_ADD, c0b, one, &sum));
    floe_expr_release(c0b);
    floe_expr_release(one);
    check_prune(p, cmp(FLOE_CMP_EQ, sum, i64(5)), 800, 1);
    floe_expr *nt, *lt = cmp(FLOE_CMP_LT, col(0), i64(700));
    assert_ok(floe_expr_not(lt, &nt));
    floe_expr_release(lt);
    check_prune(p, nt, 800, 100);
    floe_plan_release(p);
}

/* With a page index the reader also skips the pages of a surviving row
 * group that the AND-ed simple terms exclude: fewer rows come out of the
 * scan (pages of 25 rows), and the filtered rows equal an unpruned scan's. */
static void page_index_skips_pages_and_never_drops_a_matching_row(void **state) {
    (void)state;
    page_index = true;
    make_files("pq_scan_pages");
    page_index = false;
    char a[1200];
    const char *pats[1] = {in_dir(a, sizeof a, "a_*.parquet")};
    floe_plan *p;
    assert_ok(floe_parquet_scan_new(pats, 1, 3, &p));
    /* ids 250..419: pages [250, 275) ... [400, 425) */
    check_prune(p, and_(cmp(FLOE_CMP_GE, col(0), i64(250)), cmp(FLOE_CMP_LT, col(0), i64(420))), 175, 170);
    check_prune(p, cmp(FLOE_CMP_GT, i64(30), col(0)), 50, 30);
    check_prune(p, cmp(FLOE_CMP_EQ, col(0), i64(555)), 25, 1);
    check_prune(p, cmp(FLOE_CMP_GE, col(0), i64(699)), 125, 101);
    check_prune(p, cmp(FLOE_CMP_GT, col(0), i64(5000)), 0, 0);
    /* IN: two pages */
    floe_expr *items[4] = {i64(5), i64(305), i64(9999), NULL};
    assert_ok(floe_expr_lit_null(floe_type_primitive(FLOE_TYPE_INT64), &items[3]));
    floe_expr *in, *c0 = col(0);
    assert_ok(floe_expr_in(c0, items, 4, &in));
    floe_expr_release(c0);
    for (int i = 0; i < 4; i++) floe_expr_release(items[i]);
    check_prune(p, in, 50, 2);
    /* strings and doubles (v = id / 2, an int literal) */
    floe_expr *s;
    assert_ok(floe_expr_lit_string("n00450", &s));
    check_prune(p, cmp(FLOE_CMP_EQ, col(1), s), 25, 1);
    check_prune(p, cmp(FLOE_CMP_LT, col(2), i64(60)), 125, 103);
    /* a conjunct the pages cannot judge leaves the other one working */
    floe_expr *sum, *c0b = col(0), *one = i64(1);
    assert_ok(floe_expr_arith(FLOE_ARITH_ADD, c0b, one, &sum));
    floe_expr_release(c0b);
    floe_expr_release(one);
    check_prune(p, and_(cmp(FLOE_CMP_EQ, sum, i64(431)), cmp(FLOE_CMP_GE, col(0), i64(425))), 375, 1);
    /* <>, OR and NOT narrow nothing inside a row group */
    check_prune(p, cmp(FLOE_CMP_NE, col(0), i64(3)), 800, 799);
    check_prune(p, or_(cmp(FLOE_CMP_LT, col(0), i64(10)), cmp(FLOE_CMP_EQ, col(0), i64(790))), 200, 11);
    floe_plan_release(p);
}

static void roundtrip_keeps_parts_and_prune_and_gives_the_same_rows(void **state) {
    (void)state;
    make_files("pq_scan_roundtrip");
    char a[1200];
    const char *pats[1] = {in_dir(a, sizeof a, "*.parquet")};
    floe_plan *p, *q, *copy;
    assert_ok(floe_parquet_scan_new(pats, 1, 4, &p));
    const int32_t cols[2] = {0, 1};
    floe_expr *pred = cmp(FLOE_CMP_GE, col(0), i64(700));
    assert_ok(floe_parquet_scan_project(p, cols, 2, pred, &q));
    assert_non_null(floe_parquet_scan_prune(q));
    assert_ok(floe_plan_roundtrip(q, &copy));
    assert_int_equal(floe_plan_partitions(copy), 4);
    assert_non_null(floe_parquet_scan_prune(copy));
    for (int32_t i = 0; i < 4; i++) {
        assert_int_equal(floe_parquet_scan_num_partitions_parts(copy, i), floe_parquet_scan_num_partitions_parts(q, i));
        for (int32_t k = 0; k < floe_parquet_scan_num_partitions_parts(q, i); k++) {
            assert_string_equal(floe_parquet_scan_part(copy, i, k)->path, floe_parquet_scan_part(q, i, k)->path);
            assert_int_equal(floe_parquet_scan_part(copy, i, k)->rg_end, floe_parquet_scan_part(q, i, k)->rg_end);
        }
    }
    int64_t x[2000], y[2000];
    int64_t nx = read_ids(q, 0, x, 2000), ny = read_ids(copy, 0, y, 2000);
    assert_int_equal(nx, ny);
    assert_int_equal(nx, 500); /* row groups 7 of a_1 and all of b */
    for (int64_t i = 0; i < nx; i++) assert_int_equal(x[i], y[i]);
    floe_buf e;
    floe_buf_init(&e);
    assert_ok(floe_plan_explain(copy, &e));
    assert_non_null(strstr(floe_buf_cstr(&e), "ParquetScan: columns=[id, name], prune=(#0 >= 700)"));
    assert_non_null(strstr(floe_buf_cstr(&e), "a_0.parquet[0..3)"));
    assert_non_null(strstr(floe_buf_cstr(&e), "partitions=4"));
    floe_buf_free(&e);
    floe_expr_release(pred);
    floe_plan_release(copy);
    floe_plan_release(q);
    floe_plan_release(p);
}

/* k=1/a_0, k=2/a_1 and k=3/bad (not a Parquet file at all): a predicate
 * on k that rules out k=3 reads the others and never opens it. */
static void hive_partitions_are_columns_and_prune_whole_files(void **state) {
    (void)state;
    floe_test_tmpdir(dir, sizeof dir, "pq_scan_hive");
    char d[1200];
    snprintf(d, sizeof d, "%s/k=1", dir);
    assert_int_equal(mkdir(d, 0777), 0);
    snprintf(d, sizeof d, "%s/k=2", dir);
    assert_int_equal(mkdir(d, 0777), 0);
    snprintf(d, sizeof d, "%s/k=3", dir);
    assert_int_equal(mkdir(d, 0777), 0);
    write_file("k=1/a_0.parquet", 0, 400, false);
    write_file("k=2/a_1.parquet", 400, 300, false);
    char bad[1300];
    snprintf(bad, sizeof bad, "%s/k=3/bad.parquet", dir);
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fputs("not parquet", f);
    fclose(f);
    char a[1200];
    const char *pats[1] = {in_dir(a, sizeof a, "**/*.parquet")};
    floe_plan *p, *q, *copy;
    assert_ok(floe_parquet_scan_new(pats, 1, 2, &p)); /* reads only k=1's footer */
    const floe_schema *sc = floe_plan_schema(p);
    assert_int_equal(floe_schema_num_fields(sc), 4);
    assert_string_equal(floe_schema_field(sc, 3)->name, "k");
    assert_int_equal(floe_schema_field(sc, 3)->type->id, FLOE_TYPE_INT64);
    floe_exec_ctx ctx = test_ctx(pool, 64);
    floe_batch **bs;
    int64_t n;
    floe_status st = floe_exec_collect(p, &ctx, &bs, &n);
    assert_non_null(st); /* the whole scan opens bad.parquet */
    assert_non_null(strstr(floe_status_message(st), "bad.parquet"));
    floe_status_free(st);
    /* k < 3 AND id >= 350: k=3 dropped from the plan, rows of k=1 and 2. */
    const int32_t cols[2] = {0, 3};
    floe_expr *pred = and_(cmp(FLOE_CMP_LT, col(1), i64(3)), cmp(FLOE_CMP_GE, col(0), i64(350)));
    assert_ok(floe_parquet_scan_project(p, cols, 2, pred, &q));
    int32_t files = 0;
    for (int32_t i = 0; i < floe_plan_partitions(q); i++)
        for (int32_t k = 0; k < floe_parquet_scan_num_partitions_parts(q, i); k++) {
            const floe_pq_scan_part *pt = floe_parquet_scan_part(q, i, k);
            assert_null(strstr(pt->path, "bad"));
            assert_int_equal(pt->rg_end, FLOE_PQ_SCAN_WHOLE_FILE);
            assert_non_null(pt->hive_values);
            files++;
        }
    assert_int_equal(files, 2);
    assert_ok(floe_plan_roundtrip(q, &copy));
    for (int32_t i = 0; i < floe_plan_partitions(q); i++)
        for (int32_t k = 0; k < floe_parquet_scan_num_partitions_parts(q, i); k++)
            assert_string_equal(floe_parquet_scan_part(copy, i, k)->hive_values[0],
                                floe_parquet_scan_part(q, i, k)->hive_values[0]);
    assert_ok(floe_exec_collect(copy, &ctx, &bs, &n));
    int64_t rows = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t r = 0; r < bs[i]->num_rows; r++) {
            int64_t id = floe_array_get_int64(bs[i]->columns[0], r), k = floe_array_get_int64(bs[i]->columns[1], r);
            assert_int_equal(k, id < 400 ? 1 : 2);
            rows++;
        }
    }
    floe_exec_batches_free(bs, n);
    assert_int_equal(rows, 400); /* row group 3 of k=1 and all of k=2: the rest is the Filter's */
    floe_buf e;
    floe_buf_init(&e);
    assert_ok(floe_plan_explain(copy, &e));
    assert_non_null(strstr(floe_buf_cstr(&e), "hive=[k]"));
    assert_null(strstr(floe_buf_cstr(&e), "bad.parquet"));
    floe_buf_free(&e);
    floe_expr_release(pred);
    floe_plan_release(copy);
    floe_plan_release(q);
    floe_plan_release(p);
    /* Off: the corrupt file is just another file; on with a mismatch: an error. */
    assert_error(floe_parquet_scan_new_hive(pats, 1, 2, FLOE_HIVE_OFF, &p), FLOE_ERR_CORRUPT, "bad.parquet");
}

static void corrupt_or_changed_file_is_an_error_naming_it(void **state) {
    (void)state;
    make_files("pq_scan_corrupt");
    char a[1200], cmd[4096];
    const char *pats[1] = {in_dir(a, sizeof a, "a_*.parquet")};
    floe_plan *p;
    assert_ok(floe_parquet_scan_new(pats, 1, 1, &p));
    /* a_1 replaced by a file with fewer row groups after planning */
    write_file("a_1.parquet", 400, 150, false);
    floe_exec_ctx ctx = test_ctx(pool, 100);
    floe_batch *out = NULL;
    assert_error(run_plan(p, &ctx, &out), FLOE_ERR_CORRUPT, "a_1.parquet");
    /* a_0 rewritten with another type for v: the scan's schema no longer holds */
    write_file("a_1.parquet", 400, 400, false);
    write_file("a_0.parquet", 0, 400, true);
    assert_error(run_plan(p, &ctx, &out), FLOE_ERR_TYPE, "a_0.parquet");
    write_file("a_0.parquet", 0, 400, false);
    assert_ok(run_plan(p, &ctx, &out));
    assert_int_equal(out->num_rows, 800);
    floe_batch_release(out);
    /* a_0 overwritten in the middle */
    snprintf(cmd, sizeof cmd, "dd if=/dev/urandom of='%s/a_0.parquet' bs=1 seek=100 count=2000 conv=notrunc 2>/dev/null", dir);
    assert_int_equal(system(cmd), 0);
    floe_status st = run_plan(p, &ctx, &out);
    assert_non_null(st);
    assert_non_null(strstr(floe_status_message(st), "a_0.parquet"));
    floe_status_free(st);
    floe_plan_release(p);
}

/* Read partition 0 with the given read-ahead settings: ids in order, and
 * the error (if any) that ended it. */
static floe_status read_in_order(const floe_plan *p, floe_threadpool *pl, int32_t conc, int32_t ahead, int64_t *ids,
                                 int64_t cap, int64_t *n) {
    floe_exec_ctx ctx = test_ctx(pl, 33);
    ctx.scan_concurrency = conc;
    ctx.read_ahead = ahead;
    floe_stream *s;
    *n = 0;
    FLOE_TRY(test_execute(p, 0, &ctx, &s));
    floe_status st = NULL;
    for (;;) {
        floe_batch *b = NULL;
        if ((st = floe_stream_next(s, &b)) || !b) break;
        for (int64_t r = 0; r < b->num_rows && *n < cap; r++) ids[(*n)++] = floe_array_get_int64(b->columns[0], r);
        floe_batch_release(b);
    }
    floe_stream_close(s);
    return st;
}

static void read_ahead_keeps_file_order_and_reports_errors_in_order(void **state) {
    (void)state;
    make_files("pq_scan_order");
    char a[1200], b[1200], c[1200];
    const char *pats[3] = {in_dir(a, sizeof a, "b.parquet"), in_dir(b, sizeof b, "a_1.parquet"),
                           in_dir(c, sizeof c, "a_0.parquet")};
    floe_plan *p;
    assert_ok(floe_parquet_scan_new(pats, 3, 1, &p)); /* one partition: b, a_1, a_0 */
    floe_threadpool *one;
    assert_ok(floe_threadpool_create(1, &one));
    const int32_t settings[][2] = {{1, 1}, {2, 2}, {3, 1}, {8, 5}, {0, 0}};
    static int64_t ids[2000];
    for (size_t k = 0; k < sizeof settings / sizeof *settings; k++)
        for (int pl = 0; pl < 2; pl++) {
            int64_t n;
            assert_ok(read_in_order(p, pl ? one : pool, settings[k][0], settings[k][1], ids, 2000, &n));
            assert_int_equal(n, 1200);
            for (int64_t i = 0; i < 400; i++) {
                assert_int_equal(ids[i], 1000 + i);
                assert_int_equal(ids[400 + i], 400 + i);
                assert_int_equal(ids[800 + i], i);
            }
        }
    /* The middle file disappears: every row of the first, then its error. */
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "rm -f '%s'", b);
    assert_int_equal(system(cmd), 0);
    for (size_t k = 0; k < sizeof settings / sizeof *settings; k++) {
        int64_t n;
        floe_status st = read_in_order(p, pool, settings[k][0], settings[k][1], ids, 2000, &n);
        assert_non_null(st);
        assert_non_null(strstr(floe_status_message(st), "a_1.parquet"));
        floe_status_free(st);
        assert_int_equal(n, 400);
    }
    floe_threadpool_destroy(one);
    floe_plan_release(p);
}

static void cancelled_scan_returns_cancelled(void **state) {
    (void)state;
    make_files("pq_scan_cancel");
    char a[1200];
    const char *pats[1] = {in_dir(a, sizeof a, "*.parquet")};
    floe_plan *p;
    assert_ok(floe_parquet_scan_new(pats, 1, 1, &p));
    floe_cancel cancel;
    floe_cancel_init(&cancel, NULL);
    floe_exec_ctx ctx = test_ctx(pool, 10);
    ctx.cancel = &cancel;
    floe_stream *s;
    floe_batch *b;
    assert_ok(test_execute(p, 0, &ctx, &s));
    assert_ok(floe_stream_next(s, &b));
    assert_non_null(b);
    floe_batch_release(b);
    floe_cancel_set(&cancel);
    assert_error(floe_stream_next(s, &b), FLOE_ERR_CANCELLED, "ParquetScan");
    floe_stream_close(s);
    floe_plan_release(p);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
FLOE_TEST_MAIN(T(glob_reads_every_row_once_balanced_over_partitions), T(several_patterns_read_a_file_matched_twice_once),
               T(unmatched_pattern_or_missing_file_is_not_found),
               T(files_with_another_schema_are_a_type_error_naming_the_file),
               T(projection_reads_only_the_asked_columns_in_order),
               T(a_column_optional_in_any_file_is_nullable_in_the_scan),
               T(pruning_skips_row_groups_and_never_drops_a_matching_row), T(page_index_skips_pages_and_never_drops_a_matching_row),
               T(roundtrip_keeps_parts_and_prune_and_gives_the_same_rows),
               T(hive_partitions_are_columns_and_prune_whole_files),
               T(corrupt_or_changed_file_is_an_error_naming_it),
               T(read_ahead_keeps_file_order_and_reports_errors_in_order), T(cancelled_scan_returns_cancelled))

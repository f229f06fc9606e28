/*
 * test_orc_fixture.c — the tests' ORC writer (tests/unit/orc_fixture.h)
 * read back by floe's ORC reader: the schema with its Iceberg attributes,
 * every value and null (integer RLE v1 runs and literals, longs at the
 * extremes, empty strings, a column of nulls only), file and stripe
 * statistics, an empty file, and ROW_INDEX streams whose positions the
 * reader seeks by (never falling back to decoding the skipped rows) when
 * predicates skip row groups — with a stride that starts row groups in the
 * middle of a PRESENT byte.
 */
#include "floe_test.h"

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/memory.h"
#include "formats/orc/reader.h"
#include "orc_fixture.h"

#define ROWS 300

static int64_t ids[ROWS], qty[ROWS];
static bool qty_null[ROWS], all_null[ROWS];
static const char *names[ROWS];
static char name_text[ROWS][16];

/* id 0..299 (one long run of delta 1, split at 130 values), qty a mix of
 * literals and runs with the extremes, names with nulls and empties
 * (their lengths mostly runs of delta 0). */
static void fill(void) {
    for (int i = 0; i < ROWS; i++) {
        ids[i] = i;
        qty[i] = i % 7 == 0 ? INT64_MIN + i : i % 5 == 0 ? INT64_MAX - i : (i / 10) * (i % 2 ? -1 : 1);
        if (i >= 200 && i < 260) qty[i] = 1000 - i; /* a run of delta -1 */
        qty_null[i] = i % 11 == 3;
        all_null[i] = true;
        if (i % 13 == 4) names[i] = NULL;
        else {
            snprintf(name_text[i], sizeof name_text[i], i % 17 == 0 ? "" : "n%03d", i);
            names[i] = name_text[i];
        }
    }
}

static int64_t write_fixture(const char *path, uint32_t stride) {
    fill();
    orcfx_column cols[4] = {
        {"id", ORCFX_LONG, 1, true, ids, NULL, NULL},
        {"name", ORCFX_STRING, 2, false, NULL, names, NULL},
        {"qty", ORCFX_LONG, 3, false, qty, NULL, qty_null},
        {"nothing", ORCFX_INT, -1, false, ids, NULL, all_null},
    };
    orcfx_options o = {0};
    o.row_index_stride = stride;
    int64_t size = orcfx_write(path, cols, 4, ROWS, &o);
    assert_true(size > 0);
    return size;
}

/* The expected text of row i, as floe_format_value prints it. */
static void expected_row(int i, char *out, size_t cap) {
    char q[32], n[24];
    if (qty_null[i]) snprintf(q, sizeof q, "NULL");
    else snprintf(q, sizeof q, "%lld", (long long)qty[i]);
    if (names[i]) snprintf(n, sizeof n, "%s", names[i]);
    else snprintf(n, sizeof n, "NULL");
    snprintf(out, cap, "%d|%s|%s|NULL", i, n, q);
}

/* Read the file (with `preds`), check every row returned against the
 * expected values at its file row; the rows read in *n. */
static void read_check(const char *path, const floe_orc_predicate *preds, int npreds, int64_t *n,
                       floe_orc_skip_stats *ss) {
    floe_orc_read_options o;
    memset(&o, 0, sizeof o);
    o.batch_size = 64;
    o.predicates = preds;
    o.num_predicates = npreds;
    floe_orc_reader *r = NULL;
    assert_ok(floe_orc_reader_open_path(path, &o, &r));
    *n = 0;
    floe_buf b;
    floe_buf_init(&b);
    for (;;) {
        floe_batch *batch = NULL;
        assert_ok(floe_orc_reader_next(r, &batch));
        if (!batch) break;
        assert_ok(floe_batch_validate(batch));
        assert_int_equal(batch->num_columns, 4);
        const floe_orc_row_span *spans;
        int nspans;
        floe_orc_reader_last_rows(r, &spans, &nspans);
        int64_t k = 0;
        for (int s = 0; s < nspans; s++)
            for (int64_t j = 0; j < spans[s].num_rows; j++, k++) {
                b.len = 0;
                for (int c = 0; c < 4; c++) {
                    if (c) assert_ok(floe_buf_append_byte(&b, '|'));
                    assert_ok(floe_format_value(batch->columns[c], k, &b));
                }
                assert_ok(floe_buf_append_byte(&b, 0));
                char want[128];
                expected_row((int)(spans[s].first_row + j), want, sizeof want);
                assert_string_equal((const char *)b.data, want);
            }
        assert_int_equal(k, batch->num_rows);
        *n += batch->num_rows;
        floe_batch_release(batch);
    }
    floe_buf_free(&b);
    floe_orc_reader_skip_stats(r, ss);
    floe_orc_reader_close(r);
}

static void fixture_reads_back_with_schema_values_and_statistics(void **state) {
    (void)state;
    char dir[1024], path[1100];
    floe_test_tmpdir(dir, sizeof dir, "orc_fixture_plain");
    snprintf(path, sizeof path, "%s/plain.orc", dir);
    write_fixture(path, 0);

    floe_orc_file *f = NULL;
    assert_ok(floe_orc_file_open_path(path, &f));
    assert_int_equal(f->ps.compression, FLOE_ORC_COMP_NONE);
    assert_int_equal(f->ps.num_version, 2);
    assert_int_equal(f->ps.version[1], 12);
    assert_int_equal(f->num_rows, ROWS);
    assert_int_equal(floe_orc_file_num_stripes(f), 1);
    assert_int_equal(f->schema->num_columns, 5);
    const floe_orc_column *root = f->schema->root;
    assert_int_equal(root->num_children, 4);
    static const int32_t want_ids[4] = {1, 2, 3, -1};
    for (int k = 0; k < 4; k++) assert_int_equal(root->children[k]->iceberg_id, want_ids[k]);
    assert_true(root->children[0]->iceberg_required);
    assert_false(root->children[1]->iceberg_required);
    assert_string_equal(floe_orc_column_attribute(root->children[0], "iceberg.long-type"), "LONG");
    assert_null(floe_orc_column_attribute(root->children[3], "iceberg.required"));
    assert_int_equal(root->children[3]->kind, FLOE_ORC_INT);

    /* file statistics, and the stripe's (the Metadata section) */
    const floe_orc_stats *st = floe_orc_file_stats(f, 1);
    assert_non_null(st);
    assert_int_equal(st->num_values, ROWS);
    assert_true(st->has_min && st->has_max && st->has_sum);
    assert_int_equal(st->int_min, 0);
    assert_int_equal(st->int_max, ROWS - 1);
    assert_int_equal(st->int_sum, ROWS * (ROWS - 1) / 2);
    assert_false(st->has_null);
    st = floe_orc_file_stats(f, 3);
    assert_true(st->has_null);
    assert_false(st->has_sum); /* it overflows */
    assert_int_equal(st->int_min, INT64_MIN);
    st = floe_orc_file_stats(f, 2);
    assert_int_equal(st->kind, FLOE_ORC_STATS_STRING);
    assert_string_equal((const char *)st->str_min.data, "");
    assert_string_equal((const char *)st->str_max.data, "n299");
    st = floe_orc_file_stats(f, 4);
    assert_int_equal(st->num_values, 0);
    assert_true(st->has_null);
    assert_true(f->has_metadata);
    st = floe_orc_file_stripe_stats(f, 0, 1);
    assert_non_null(st);
    assert_int_equal(st->int_max, ROWS - 1);
    floe_orc_file_close(f);

    int64_t n;
    floe_orc_skip_stats ss;
    read_check(path, NULL, 0, &n, &ss);
    assert_int_equal(n, ROWS);

    /* stripe statistics rule the stripe out */
    floe_orc_value v = {0};
    v.kind = FLOE_ORC_VAL_INT;
    v.i = ROWS;
    floe_orc_predicate p = {"id", -1, 0, FLOE_ORC_OP_GE, &v, 1};
    read_check(path, &p, 1, &n, &ss);
    assert_int_equal(n, 0);
    assert_int_equal(ss.stripes_skipped, 1);
}

static void fixture_row_index_positions_are_sought(void **state) {
    (void)state;
    char dir[1024], path[1100];
    floe_test_tmpdir(dir, sizeof dir, "orc_fixture_index");
    snprintf(path, sizeof path, "%s/indexed.orc", dir);
    /* 300 rows in row groups of 21: groups start inside PRESENT bytes */
    write_fixture(path, 21);
    int64_t n;
    floe_orc_skip_stats ss;
    read_check(path, NULL, 0, &n, &ss);
    assert_int_equal(n, ROWS);

    /* id in [100, 150] or so: row groups 4..7 (rows 84..167) only */
    floe_orc_value lo = {0}, hi = {0};
    lo.kind = hi.kind = FLOE_ORC_VAL_INT;
    lo.i = 100;
    hi.i = 150;
    floe_orc_predicate p[2] = {{"id", -1, 0, FLOE_ORC_OP_GE, &lo, 1}, {"id", -1, 0, FLOE_ORC_OP_LE, &hi, 1}};
    read_check(path, p, 2, &n, &ss);
    assert_int_equal(n, 4 * 21);
    assert_int_equal(ss.row_groups_total, 15);
    assert_int_equal(ss.row_groups_skipped, 11);
    assert_true(ss.row_group_seeks >= 1);
    assert_int_equal(ss.rows_decoded_past, 0); /* every position fitted its stream */

    /* the last row group alone (shorter than the stride) */
    lo.i = 295;
    read_check(path, p, 1, &n, &ss);
    assert_int_equal(n, ROWS - 14 * 21);
    assert_int_equal(ss.rows_decoded_past, 0);

    /* the string column's index: name >= "n29" keeps groups holding n29x */
    floe_orc_value sv = {0};
    sv.kind = FLOE_ORC_VAL_BYTES;
    sv.bytes = (const uint8_t *)"n29";
    sv.len = 3;
    floe_orc_predicate sp = {"name", -1, 0, FLOE_ORC_OP_GE, &sv, 1};
    read_check(path, &sp, 1, &n, &ss);
    assert_int_equal(n, 21 + (ROWS - 14 * 21)); /* groups 13 and 14 (rows 273..299) */
    assert_int_equal(ss.rows_decoded_past, 0);
}

static void fixture_writes_an_empty_file(void **state) {
    (void)state;
    char dir[1024], path[1100];
    floe_test_tmpdir(dir, sizeof dir, "orc_fixture_empty");
    snprintf(path, sizeof path, "%s/empty.orc", dir);
    orcfx_column cols[1] = {{"id", ORCFX_LONG, 1, true, NULL, NULL, NULL}};
    assert_true(orcfx_write(path, cols, 1, 0, NULL) > 0);
    floe_orc_file *f = NULL;
    assert_ok(floe_orc_file_open_path(path, &f));
    assert_int_equal(floe_orc_file_num_stripes(f), 0);
    assert_int_equal(f->num_rows, 0);
    floe_orc_file_close(f);
    floe_orc_reader *r = NULL;
    assert_ok(floe_orc_reader_open_path(path, NULL, &r));
    floe_batch *b = NULL;
    assert_ok(floe_orc_reader_next(r, &b));
    assert_null(b);
    floe_orc_reader_close(r);
}

FLOE_TEST_MAIN(cmocka_unit_test(fixture_reads_back_with_schema_values_and_statistics),
               cmocka_unit_test(fixture_row_index_positions_are_sought),
               cmocka_unit_test(fixture_writes_an_empty_file))

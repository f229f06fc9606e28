/* Row-level deletes: Java's deletion-vector blobs (contents, byte-exact
 * re-encoding, corrupt framing), batch selection over merged positions,
 * equality key sets, and every delete file of the duckdb-iceberg tables
 * that have deletes, checked against the manifests' record counts. */
#include "floe_test.h"

#include <stdlib.h>
#include <string.h>

#include "floe/iceberg_deletes.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/memory.h"
#include "formats/parquet/reader.h"
#include "formats/parquet/writer.h"

#define DELETES_DIR "apache__iceberg/core/src/test/resources/org/apache/iceberg/deletes/"

static uint8_t *load(const char *dir, const char *name, size_t *len) {
    char p[4096];
    snprintf(p, sizeof p, "%s/" DELETES_DIR "%s", dir, name);
    floe_input *in;
    assert_ok(floe_input_open_local(p, &in));
    uint8_t *d;
    assert_ok(floe_input_read_all(in, &d, len));
    floe_input_close(in);
    return d;
}

/* Decode a DV fixture, check it re-encodes to the same bytes, return the set. */
static floe_ice_posdel *dv_fixture(const char *dir, const char *name) {
    size_t len;
    uint8_t *d = load(dir, name, &len);
    floe_ice_posdel *pd;
    assert_ok(floe_ice_posdel_new(&pd));
    assert_ok(floe_ice_posdel_add_dv_blob(pd, d, len));
    assert_ok(floe_ice_posdel_finish(pd));
    uint8_t *again;
    size_t alen;
    assert_ok(floe_ice_dv_serialize(floe_ice_posdel_positions(pd), (size_t)floe_ice_posdel_count(pd), &again, &alen));
    assert_int_equal(alen, len);
    assert_memory_equal(again, d, len);
    floe_free(again);
    floe_free(d);
    return pd;
}

static void java_dv_blobs_decode_and_reencode_byte_exact(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    floe_ice_posdel *pd = dv_fixture(dir, "empty-position-index.bin");
    assert_int_equal(floe_ice_posdel_count(pd), 0);
    floe_ice_posdel_free(pd);

    pd = dv_fixture(dir, "small-alternating-values-position-index.bin");
    assert_int_equal(floe_ice_posdel_count(pd), 5);
    for (int64_t i = 0; i <= 10; i++) assert_int_equal(floe_ice_posdel_contains(pd, i), i % 2 == 1);
    floe_ice_posdel_free(pd);

    pd = dv_fixture(dir, "small-and-large-values-position-index.bin");
    const int64_t want[4] = {100, 101, (int64_t)INT32_MAX + 100, (int64_t)INT32_MAX + 101};
    assert_int_equal(floe_ice_posdel_count(pd), 4);
    assert_memory_equal(floe_ice_posdel_positions(pd), want, sizeof want);
    floe_ice_posdel_free(pd);

    pd = dv_fixture(dir, "all-container-types-position-index.bin");
    assert_int_equal(floe_ice_posdel_count(pd), 132561);
    assert_true(floe_ice_posdel_contains(pd, 5) && floe_ice_posdel_contains(pd, 7) && !floe_ice_posdel_contains(pd, 6));
    assert_true(floe_ice_posdel_contains(pd, 65537) && floe_ice_posdel_contains(pd, 66535));
    assert_false(floe_ice_posdel_contains(pd, 66536));
    assert_true(floe_ice_posdel_contains(pd, 131073) && floe_ice_posdel_contains(pd, 196606));
    assert_true(floe_ice_posdel_contains(pd, (1ll << 32) | 20) && floe_ice_posdel_contains(pd, (1ll << 32) | 65546));
    floe_ice_posdel_free(pd);
}

static void damaged_dv_framing_is_reported(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    size_t len;
    uint8_t *d = load(dir, "small-alternating-values-position-index.bin", &len);
    floe_ice_posdel *pd;
    assert_ok(floe_ice_posdel_new(&pd));
    d[len - 1] ^= 1;
    assert_error(floe_ice_posdel_add_dv_blob(pd, d, len), FLOE_ERR_CORRUPT, "CRC-32 mismatch");
    d[len - 1] ^= 1;
    d[4] = 0;
    assert_error(floe_ice_posdel_add_dv_blob(pd, d, len), FLOE_ERR_CORRUPT, "bad magic");
    d[4] = 0xD1;
    d[3]++;
    assert_error(floe_ice_posdel_add_dv_blob(pd, d, len), FLOE_ERR_CORRUPT, "length prefix");
    d[3]--;
    for (size_t cut = 0; cut < len; cut++) {
        floe_status st = floe_ice_posdel_add_dv_blob(pd, d, cut);
        assert_int_equal(floe_status_code(st), FLOE_ERR_CORRUPT);
        floe_status_free(st);
    }
    assert_ok(floe_ice_posdel_finish(pd));
    assert_int_equal(floe_ice_posdel_count(pd), 0); /* failed adds leave nothing behind */
    floe_input *in;
    assert_ok(floe_input_from_memory(d, len, "dv.puffin", &in));
    assert_error(floe_ice_posdel_add_dv(pd, in, 4, (int64_t)len), FLOE_ERR_CORRUPT, "outside the file");
    assert_ok(floe_ice_posdel_add_dv(pd, in, 0, (int64_t)len));
    floe_input_close(in);
    floe_free(d);
    floe_ice_posdel_free(pd);
}

static void batches_select_survivors_across_32bit_boundaries(void **state) {
    (void)state;
    floe_ice_posdel *pd;
    assert_ok(floe_ice_posdel_new(&pd));
    int64_t b = 1ll << 32;
    const int64_t pos[] = {b + 1, 0, 3, 3, b - 1, b, 9, b + 9};
    assert_ok(floe_ice_posdel_add(pd, pos, 8));
    int64_t neg = -1;
    assert_error(floe_ice_posdel_add(pd, &neg, 1), FLOE_ERR_CORRUPT, "negative");
    assert_ok(floe_ice_posdel_finish(pd));
    assert_int_equal(floe_ice_posdel_count(pd), 7);
    uint32_t sel[16], n;
    floe_ice_posdel_select(pd, 0, 10, sel, &n);
    assert_int_equal(n, 7);
    assert_int_equal(sel[0], 1);
    assert_int_equal(sel[2], 4);
    assert_int_equal(sel[6], 8);
    /* a batch straddling 2^32: rows b-2 .. b+9 (12 rows) */
    floe_ice_posdel_select(pd, b - 2, 12, sel, &n);
    assert_int_equal(n, 8); /* b-1, b, b+1, b+9 deleted */
    assert_int_equal(sel[0], 0);
    assert_int_equal(sel[1], 4);
    uint8_t bits[2] = {0xFF, 0x0F};
    assert_int_equal(floe_ice_posdel_clear_bits(pd, b - 2, 12, bits), 4);
    assert_int_equal(bits[0], 0xF1);
    assert_int_equal(bits[1], 0x07);
    floe_ice_posdel_select(pd, 100, 16, sel, &n);
    assert_int_equal(n, 16);
    floe_ice_posdel_free(pd);
}

static floe_array *i64_array(const int64_t *v, int64_t n, const uint8_t *valid) {
    floe_buffer *buf;
    assert_ok(floe_buffer_copy(v, n * 8, &buf));
    floe_buffer *vb = NULL;
    if (valid) assert_ok(floe_buffer_copy(valid, (n + 7) / 8, &vb));
    floe_array *a;
    assert_ok(floe_array_new(floe_type_primitive(FLOE_TYPE_INT64), n, 0, FLOE_NULL_COUNT_UNKNOWN, vb, &buf, 1, NULL,
                             0, &a));
    floe_buffer_release(buf);
    floe_buffer_release(vb);
    return a;
}

static floe_array *i32_array(const int32_t *v, int64_t n) {
    floe_buffer *buf;
    assert_ok(floe_buffer_copy(v, n * 4, &buf));
    floe_array *a;
    assert_ok(floe_array_new(floe_type_primitive(FLOE_TYPE_INT32), n, 0, 0, NULL, &buf, 1, NULL, 0, &a));
    floe_buffer_release(buf);
    return a;
}

static void equality_keys_match_across_int_promotion_and_nulls(void **state) {
    (void)state;
    int32_t ids[1] = {3};
    floe_ice_eqdel *ed;
    assert_ok(floe_ice_eqdel_new(ids, 1, &ed));
    /* delete keys: 5, 7, null, 5 (int32 as written before a promotion) */
    const int64_t del[4] = {5, 7, 0, 5};
    uint8_t dvalid = 0x0B;
    floe_array *dk = i64_array(del, 4, &dvalid);
    int32_t del32[1] = {9};
    floe_array *dk32 = i32_array(del32, 1);
    assert_ok(floe_ice_eqdel_add_rows(ed, &dk, 4));
    assert_ok(floe_ice_eqdel_add_rows(ed, &dk32, 1));
    assert_int_equal(floe_ice_eqdel_count(ed), 4);
    /* data (long after promotion): 9, 5, 6, null, 7 */
    const int64_t rows[5] = {9, 5, 6, 0, 7};
    uint8_t rvalid = 0x17;
    floe_array *rk = i64_array(rows, 5, &rvalid);
    uint8_t deleted[5] = {0};
    int64_t nd;
    assert_ok(floe_ice_eqdel_mark(ed, (const floe_array *const *)&rk, 5, deleted, &nd));
    assert_int_equal(nd, 4);
    assert_int_equal(deleted[2], 0);
    assert_int_equal(deleted[0] + deleted[1] + deleted[3] + deleted[4], 4);
    /* a data file without the column: every row is null, and null is deleted */
    const floe_array *none[1] = {NULL};
    memset(deleted, 0, sizeof deleted);
    assert_ok(floe_ice_eqdel_mark(ed, none, 5, deleted, &nd));
    assert_int_equal(nd, 5);
    floe_array_release(dk);
    floe_array_release(dk32);
    floe_array_release(rk);
    floe_ice_eqdel_free(ed);
}

static bool match_any(void *ctx, const char *path, size_t len) {
    (void)path;
    (void)len;
    ++*(int64_t *)ctx;
    return true;
}

/* A position delete file of three 4-row groups, partly out of order (a
 * path reappears in the last group, positions unsorted and repeated).
 * with_nulls: the columns are optional and row 2 has a NULL file_path,
 * row 5 a NULL pos (files other engines wrote do). */
static void write_posdel_file(const char *path, bool with_nulls) {
    static const char *paths[12] = {"s3://x/a", "s3://x/a", "s3://x/a", "s3://x/a", "s3://x/b", "s3://x/b",
                                    "s3://x/c", "s3://x/c", "s3://x/a", "s3://x/d", "s3://x/a", "s3://x/d"};
    static const int64_t pos[12] = {0, 1, 2, 3, 5, 1, 7, 2, 9, 1, 3, 0};
    floe_field f[2];
    assert_ok(floe_field_init(&f[0], "file_path", floe_type_primitive(FLOE_TYPE_STRING), with_nulls,
                              FLOE_ICE_POSDEL_FILE_PATH_ID));
    assert_ok(floe_field_init(&f[1], "pos", floe_type_primitive(FLOE_TYPE_INT64), with_nulls, FLOE_ICE_POSDEL_POS_ID));
    floe_schema *schema;
    assert_ok(floe_type_struct(f, 2, &schema));
    floe_builder *bp, *bo;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), 12, &bp));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), 12, &bo));
    for (int i = 0; i < 12; i++) {
        if (with_nulls && i == 2) assert_ok(floe_builder_append_null(bp));
        else assert_ok(floe_builder_append_string(bp, paths[i]));
        if (with_nulls && i == 5) assert_ok(floe_builder_append_null(bo));
        else assert_ok(floe_builder_append_int64(bo, pos[i]));
    }
    floe_array *cols[2];
    assert_ok(floe_builder_finish(bp, &cols[0]));
    assert_ok(floe_builder_finish(bo, &cols[1]));
    floe_builder_free(bp);
    floe_builder_free(bo);
    floe_batch *b;
    assert_ok(floe_batch_new(schema, cols, 2, 12, &b));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.row_group_rows = 4;
    floe_output *out;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_writer *w;
    assert_ok(floe_pq_writer_open(out, schema, &o, &w));
    assert_ok(floe_pq_writer_write(w, b));
    assert_ok(floe_pq_writer_close(w, NULL));
    floe_batch_release(b);
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
    floe_type_release(schema);
    floe_field_clear(&f[0]);
    floe_field_clear(&f[1]);
}

static int64_t posdel_count_for(const char *file, const char *data_path, int64_t first, int64_t last) {
    floe_input *in;
    assert_ok(floe_input_open_local(file, &in));
    floe_ice_posdel *pd;
    assert_ok(floe_ice_posdel_new(&pd));
    assert_ok(floe_ice_posdel_add_file(pd, in, data_path, NULL, NULL));
    floe_input_close(in);
    assert_ok(floe_ice_posdel_finish(pd));
    int64_t n = floe_ice_posdel_count(pd);
    if (n) {
        assert_int_equal(floe_ice_posdel_positions(pd)[0], first);
        assert_int_equal(floe_ice_posdel_positions(pd)[n - 1], last);
    }
    floe_ice_posdel_free(pd);
    return n;
}

static void position_delete_files_are_not_trusted_to_be_sorted(void **state) {
    (void)state;
    char tmp[1024], file[1200];
    floe_test_tmpdir(tmp, sizeof tmp, "posdel_unsorted");
    snprintf(file, sizeof file, "%s/deletes.parquet", tmp);
    write_posdel_file(file, false);
    assert_int_equal(posdel_count_for(file, "s3://x/a", 0, 9), 5); /* 0 1 2 3 9 */
    assert_int_equal(posdel_count_for(file, "s3://x/b", 1, 5), 2);
    assert_int_equal(posdel_count_for(file, "s3://x/c", 2, 7), 2);
    assert_int_equal(posdel_count_for(file, "s3://x/d", 0, 1), 2);
    assert_int_equal(posdel_count_for(file, "s3://x/e", 0, 0), 0);
    assert_int_equal(posdel_count_for(file, "s3://x/", 0, 0), 0);
    assert_int_equal(posdel_count_for(file, "/x/a", 0, 0), 0); /* exact match only */
    floe_input *in;
    assert_ok(floe_input_open_local(file, &in));
    floe_ice_posdel *pd;
    assert_ok(floe_ice_posdel_new(&pd));
    int64_t seen = 0;
    assert_ok(floe_ice_posdel_add_file(pd, in, NULL, match_any, &seen));
    assert_int_equal(seen, 12);
    floe_ice_posdel_free(pd);
    floe_input_close(in);
}

/* Rows with a NULL file_path or pos delete nothing and are no error (as
 * in Java and Impala); the other rows still apply. */
static void null_rows_of_a_position_delete_file_are_ignored(void **state) {
    (void)state;
    char tmp[1024], file[1200];
    floe_test_tmpdir(tmp, sizeof tmp, "posdel_nulls");
    snprintf(file, sizeof file, "%s/deletes.parquet", tmp);
    write_posdel_file(file, true);
    assert_int_equal(posdel_count_for(file, "s3://x/a", 0, 9), 4); /* 0 1 3 9: the NULL path of row 2 is skipped */
    assert_int_equal(posdel_count_for(file, "s3://x/b", 5, 5), 1); /* pos 1 was the NULL pos */
    assert_int_equal(posdel_count_for(file, "s3://x/c", 2, 7), 2);
}

/* ---- the duckdb-iceberg tables with deletes ---------------------------------- */

typedef struct table_counts {
    int pos_files, dv_files, eq_files;
    int64_t eq_marked; /* data rows deleted by equality deletes */
} table_counts;

/* Rows of `data` deleted by equality delete file `del`. */
static int64_t apply_eq(const floe_ice_live_file *del, const floe_ice_live_file *data) {
    floe_ice_eqdel *ed;
    assert_ok(floe_ice_eqdel_new(del->file.equality_ids, del->file.n_equality_ids, &ed));
    assert_ok(floe_ice_eqdel_load(ed, NULL, del->resolved_path));
    assert_true(floe_ice_eqdel_count(ed) > 0 && floe_ice_eqdel_count(ed) <= del->file.record_count);
    floe_pq_read_options o = {0};
    o.field_ids = del->file.equality_ids;
    o.num_field_ids = del->file.n_equality_ids;
    floe_pq_reader *r;
    assert_ok(floe_pq_reader_open_path(data->resolved_path, &o, &r));
    int64_t total = 0;
    for (;;) {
        floe_batch *b;
        assert_ok(floe_pq_reader_next(r, &b));
        if (!b) break;
        uint8_t *deleted = floe_calloc((size_t)b->num_rows + 1, 1);
        int64_t nd;
        assert_ok(floe_ice_eqdel_mark(ed, (const floe_array *const *)b->columns, b->num_rows, deleted, &nd));
        total += nd;
        floe_free(deleted);
        floe_batch_release(b);
    }
    floe_pq_reader_close(r);
    floe_ice_eqdel_free(ed);
    return total;
}

static table_counts check_table(const char *td, const char *rel) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/duckdb__duckdb-iceberg/%s", td, rel);
    floe_ice_table *t;
    assert_ok(floe_ice_table_open(NULL, dir, true, &t));
    floe_ice_live_files *lf;
    assert_ok(floe_ice_table_live_files(t, floe_ice_tm_current_snapshot(t->md), NULL, &lf));
    table_counts c = {0};
    for (size_t i = 0; i < lf->n; i++) {
        const floe_ice_live_file *d = &lf->files[i];
        if (getenv("SHOW"))
            printf("%d %s %s rc=%lld off=%d ref=%s\n", d->file.content, d->file.file_format, d->file.file_path,
                   (long long)d->file.record_count, d->file.has_content_offset,
                   d->file.referenced_data_file ? d->file.referenced_data_file : "-");
        if (d->file.content == FLOE_ICE_CONTENT_POSITION_DELETES && d->file.has_content_offset) {
            c.dv_files++;
            floe_ice_posdel *pd;
            assert_ok(floe_ice_posdel_new(&pd));
            /* load() checks the DV's cardinality against record_count */
            assert_ok(floe_ice_posdel_load(pd, NULL, &d->file, d->resolved_path, d->file.referenced_data_file, NULL, NULL));
            assert_ok(floe_ice_posdel_finish(pd));
            assert_int_equal(floe_ice_posdel_count(pd), d->file.record_count);
            floe_ice_posdel_free(pd);
        } else if (d->file.content == FLOE_ICE_CONTENT_POSITION_DELETES) {
            c.pos_files++;
            /* every row names some data file: a match-all matcher sees them all */
            int64_t seen = 0;
            floe_ice_posdel *all;
            assert_ok(floe_ice_posdel_new(&all));
            assert_ok(floe_ice_posdel_load(all, NULL, &d->file, d->resolved_path, NULL, match_any, &seen));
            assert_int_equal(seen, d->file.record_count);
            floe_ice_posdel_free(all);
            /* and the per-data-file sets add up to the file's rows */
            int64_t sum = 0;
            for (size_t j = 0; j < lf->n; j++) {
                if (lf->files[j].file.content != FLOE_ICE_CONTENT_DATA) continue;
                floe_ice_posdel *pd;
                assert_ok(floe_ice_posdel_new(&pd));
                assert_ok(floe_ice_posdel_load(pd, NULL, &d->file, d->resolved_path, lf->files[j].file.file_path, NULL, NULL));
                assert_ok(floe_ice_posdel_finish(pd));
                int64_t k = floe_ice_posdel_count(pd);
                if (k) assert_true(floe_ice_posdel_positions(pd)[k - 1] < lf->files[j].file.record_count);
                sum += k;
                floe_ice_posdel_free(pd);
            }
            assert_int_equal(sum, d->file.record_count);
        } else if (d->file.content == FLOE_ICE_CONTENT_EQUALITY_DELETES) {
            c.eq_files++;
            for (size_t j = 0; j < lf->n; j++)
                if (lf->files[j].file.content == FLOE_ICE_CONTENT_DATA && lf->files[j].sequence_number < d->sequence_number)
                    c.eq_marked += apply_eq(d, &lf->files[j]);
        }
    }
    floe_ice_live_files_free(lf);
    floe_ice_table_free(t);
    return c;
}

static void position_deletes_of_spark_table_add_up_per_data_file(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    table_counts c = check_table(td, "data/iceberg/generated_spec2_0_001/pyspark_iceberg_table");
    assert_true(c.pos_files > 0);
}

static void legacy_bare_deletion_vector_loads(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    table_counts c = check_table(
        td, "data/persistent/legacy_bare_deletion_vector/warehouse/default/legacy_bare_deletion_vector");
    assert_int_equal(c.dv_files, 1);
}

static void equality_delete_tables_delete_rows(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    const char *tables[] = {"data/persistent/equality_deletes/warehouse/mydb/mytable",
                            "data/persistent/equality_deletes/warehouse/mydb/mytable_partitioned",
                            "data/persistent/equality_delete_cross_partition/warehouse/ns/t",
                            "data/persistent/equality_delete_extra_column/warehouse/ns/t/metadata/vfinal.metadata.json",
                            "data/persistent/equality_delete_dropped_column/mytable"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        table_counts c = check_table(td, tables[i]);
        printf("%s: %d equality delete files, %lld rows deleted\n", tables[i], c.eq_files, (long long)c.eq_marked);
        assert_true(c.eq_files > 0);
        assert_true(c.eq_marked > 0);
        if (i == 3) assert_int_equal(c.eq_marked, 1); /* the .test: id=2 is deleted */
        if (i == 4) assert_int_equal(c.eq_marked, 1); /* the .test: 4 rows, 3 remain */
    }
}

/* unknown_puffin lists a non-DV "PUFFIN" file as a content=data entry (a
 * hash index, not even a Puffin file): there is no delete to apply, and
 * the delete layer must not trip over it (skipping it is the planner's). */
static void unknown_puffin_table_has_no_deletes_to_apply(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    table_counts c = check_table(td, "data/persistent/unknown_puffin/namespace/test_table");
    assert_int_equal(c.dv_files + c.pos_files + c.eq_files, 0);
}

FLOE_TEST_MAIN(cmocka_unit_test(position_delete_files_are_not_trusted_to_be_sorted),
               cmocka_unit_test(null_rows_of_a_position_delete_file_are_ignored),
               cmocka_unit_test(unknown_puffin_table_has_no_deletes_to_apply),
               cmocka_unit_test(java_dv_blobs_decode_and_reencode_byte_exact),
               cmocka_unit_test(damaged_dv_framing_is_reported),
               cmocka_unit_test(batches_select_survivors_across_32bit_boundaries),
               cmocka_unit_test(equality_keys_match_across_int_promotion_and_nulls),
               cmocka_unit_test(position_deletes_of_spark_table_add_up_per_data_file),
               cmocka_unit_test(legacy_bare_deletion_vector_loads),
               cmocka_unit_test(equality_delete_tables_delete_rows))

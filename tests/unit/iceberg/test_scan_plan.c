/*
 * test_scan_plan.c — scan planning: deletes attached by the spec's rules
 * (checked against a brute-force oracle over the live files), pruning
 * that never drops a matching file, splitting and bin-packing, empty
 * scans, determinism, and the task group codec.
 */
#include "floe_test.h"

#include <string.h>
#include <strings.h>

#include "base/threadpool.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_scan.h"
#include "floe/memory.h"

static floe_ice_table *open_table(const char *td, const char *rel) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/duckdb__duckdb-iceberg/%s", td, rel);
    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(NULL, dir, true, &t));
    return t;
}

static floe_ice_scan_plan *plan_of(const floe_ice_table *t, const floe_ice_expr *filter, int32_t target) {
    floe_ice_scan_options o;
    floe_ice_scan_options_init(&o);
    o.target_partitions = target;
    floe_ice_scan_plan *p = NULL;
    assert_ok(floe_ice_scan_plan_new(t, NULL, NULL, 0, filter, &o, &p));
    return p;
}

static int64_t count_tasks(const floe_ice_scan_plan *p) {
    int64_t n = 0;
    for (int32_t g = 0; g < p->n_groups; g++) n += p->groups[g]->n_tasks;
    return n;
}

/* ---- deletes: the planner agrees with a brute-force reading of the spec -- */

static bool same_partition(const floe_ice_data_file *a, const floe_ice_data_file *b) {
    if (a->spec_id != b->spec_id || a->n_partition != b->n_partition) return false;
    for (int32_t i = 0; i < a->n_partition; i++)
        if (!floe_ice_value_equals(&a->partition[i], &b->partition[i])) return false;
    return true;
}

static bool applies(const floe_ice_table *t, const floe_ice_live_file *d, const floe_ice_live_file *x) {
    if (x->file.content == FLOE_ICE_CONTENT_POSITION_DELETES) {
        if (x->sequence_number < d->sequence_number) return false;
        if (x->file.referenced_data_file) return strcmp(x->file.referenced_data_file, d->file.file_path) == 0;
        return same_partition(&d->file, &x->file);
    }
    if (x->sequence_number <= d->sequence_number) return false;
    const floe_ice_partition_spec *s = floe_ice_tm_spec(t->md, x->file.spec_id);
    if (s && s->n_fields == 0) return true;
    return same_partition(&d->file, &x->file);
}

static bool is_dv(const floe_ice_live_file *x) {
    return x->file.content == FLOE_ICE_CONTENT_POSITION_DELETES && x->file.has_content_offset &&
           x->file.referenced_data_file;
}

/* Returns the number of (data file, delete) pairs checked. */
static size_t check_deletes_against_oracle(const char *td, const char *rel) {
    floe_ice_table *t = open_table(td, rel);
    floe_ice_live_files *lf = NULL;
    assert_ok(floe_ice_table_live_files(t, floe_ice_tm_current_snapshot(t->md), NULL, &lf));
    floe_ice_scan_plan *p = plan_of(t, NULL, 3);
    size_t pairs = 0, n_data = 0;
    for (size_t i = 0; i < lf->n; i++)
        n_data += lf->files[i].file.content == FLOE_ICE_CONTENT_DATA && strcasecmp(lf->files[i].file.file_format, "puffin");
    assert_int_equal(p->stats.n_data_files, (int64_t)n_data);
    for (int32_t g = 0; g < p->n_groups; g++) {
        const floe_ice_scan_group *grp = p->groups[g];
        for (int32_t k = 0; k < grp->n_tasks; k++) {
            const floe_ice_scan_task *task = &grp->tasks[k];
            const floe_ice_live_file *d = NULL;
            for (size_t i = 0; i < lf->n && !d; i++)
                if (lf->files[i].file.content == FLOE_ICE_CONTENT_DATA && !strcmp(lf->files[i].file.file_path, task->path))
                    d = &lf->files[i];
            assert_non_null(d);
            assert_string_equal(task->resolved_path, d->resolved_path);
            bool dv = false;
            for (size_t i = 0; i < lf->n; i++)
                if (lf->files[i].file.content != FLOE_ICE_CONTENT_DATA && is_dv(&lf->files[i]) && applies(t, d, &lf->files[i]))
                    dv = true;
            int32_t expect = 0;
            for (size_t i = 0; i < lf->n; i++) {
                const floe_ice_live_file *x = &lf->files[i];
                if (x->file.content == FLOE_ICE_CONTENT_DATA || !applies(t, d, x)) continue;
                if (dv && x->file.content == FLOE_ICE_CONTENT_POSITION_DELETES && !is_dv(x)) continue;
                expect++;
                bool found = false;
                for (int32_t j = 0; j < task->n_deletes && !found; j++)
                    found = !strcmp(task->deletes[j]->path, x->file.file_path) &&
                            task->deletes[j]->content_offset == (x->file.has_content_offset ? x->file.content_offset : -1);
                if (!found) fail_msg("%s: delete %s not attached to %s", rel, x->file.file_path, task->path);
                pairs++;
            }
            assert_int_equal(task->n_deletes, expect);
            for (int32_t j = 0; j < task->n_deletes; j++) {
                const floe_ice_scan_delete *x = task->deletes[j];
                if (x->content == FLOE_ICE_CONTENT_EQUALITY_DELETES) assert_true(x->sequence_number > task->sequence_number);
                else assert_true(x->sequence_number >= task->sequence_number);
                if (x->is_dv) assert_true(x->content_offset >= 0 && x->content_size_in_bytes > 0);
            }
        }
    }
    assert_true(p->stats.rows_estimated == (pairs > 0));
    floe_ice_scan_plan_free(p);
    floe_ice_live_files_free(lf);
    floe_ice_table_free(t);
    return pairs;
}

static void deletes_of_every_kind_attach_as_the_spec_says(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    assert_true(check_deletes_against_oracle(td, "data/persistent/equality_deletes/warehouse/mydb/mytable") > 0);
    assert_true(check_deletes_against_oracle(td, "data/persistent/equality_deletes/warehouse/mydb/mytable_partitioned") > 0);
    assert_true(check_deletes_against_oracle(td, "data/iceberg/generated_spec2_0_001/pyspark_iceberg_table") > 0);
    assert_true(check_deletes_against_oracle(
                    td, "data/persistent/legacy_bare_deletion_vector/warehouse/default/legacy_bare_deletion_vector") > 0);
    /* A Puffin index recorded as a data file is not data: skipped. */
    assert_int_equal(check_deletes_against_oracle(td, "data/persistent/unknown_puffin/namespace/test_table"), 0);
    check_deletes_against_oracle(td, "data/persistent/equality_delete_cross_partition/warehouse/ns/t/metadata/vfinal.metadata.json");
    check_deletes_against_oracle(td, "data/persistent/equality_delete_extra_column/warehouse/ns/t/metadata/vfinal.metadata.json");
    check_deletes_against_oracle(td, "data/persistent/equality_delete_dropped_column/mytable/metadata/v2.metadata.json");
}

/* ---- pruning: generated_bounds never opens its s3:// data files ------------ */

static void selective_filter_prunes_generated_bounds_without_opening_data(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/generated_bounds");
    floe_ice_value lo = floe_ice_long(5000000), hi = floe_ice_long(5000100);
    floe_ice_expr *f = floe_ice_expr_and(floe_ice_expr_literal(FLOE_ICE_EXPR_GT_EQ, "block_number", &lo),
                                         floe_ice_expr_literal(FLOE_ICE_EXPR_LT_EQ, "block_number", &hi));
    /* DuckDB's generated_bounds.test expects COUNT(*) = 0 from files that
     * do not exist: every one must be pruned by its bounds. */
    floe_ice_scan_plan *p = plan_of(t, f, 4);
    assert_int_equal(count_tasks(p), 0);
    assert_int_equal(p->n_groups, 1);
    assert_int_equal(p->stats.n_files_pruned, 5000);
    floe_ice_scan_plan_free(p);
    floe_ice_expr_free(f);
    /* Without a filter all 5,000 files are planned (s3:// paths, never opened). */
    p = plan_of(t, NULL, 4);
    assert_int_equal(count_tasks(p), 5000);
    assert_int_equal(p->n_groups, 4);
    assert_true(strncmp(p->groups[0]->tasks[0].resolved_path, "s3://", 5) == 0);
    floe_ice_scan_plan_free(p);
    floe_ice_table_free(t);
}

/* ---- pruning never drops a file whose partition matches ---------------------- */

static void check_partition_pruning(const char *td, const char *rel, const char *column) {
    floe_ice_table *t = open_table(td, rel);
    floe_ice_scan_plan *all = plan_of(t, NULL, 1);
    const floe_ice_schema *sc = floe_ice_tm_current_schema(t->md);
    const floe_ice_field *fld = floe_ice_schema_find_by_name(sc, column, true);
    assert_non_null(fld);
    const floe_ice_scan_group *g = all->groups[0];
    int checked = 0;
    for (int32_t k = 0; k < g->n_tasks; k++) {
        const floe_ice_scan_task *task = &g->tasks[k];
        const floe_ice_partition_spec *spec = floe_ice_tm_spec(t->md, task->spec_id);
        int32_t pi = -1;
        for (int32_t i = 0; spec && i < spec->n_fields; i++)
            if (spec->fields[i].source_id == fld->id && spec->fields[i].transform.kind == FLOE_ICE_TRANSFORM_IDENTITY) pi = i;
        if (pi < 0) continue;
        const floe_ice_value *v = &task->partition[pi];
        floe_ice_expr_op ops[] = {FLOE_ICE_EXPR_EQ, FLOE_ICE_EXPR_LT_EQ, FLOE_ICE_EXPR_GT_EQ, FLOE_ICE_EXPR_NOT_EQ};
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
            floe_ice_expr *f = v->is_null ? floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, column)
                                          : floe_ice_expr_literal(ops[o], column, v);
            floe_ice_scan_plan *p = plan_of(t, f, 2);
            /* The partition value satisfies eq / lt_eq / gt_eq itself: the file must stay. */
            bool must = ops[o] != FLOE_ICE_EXPR_NOT_EQ || v->is_null;
            bool found = false;
            for (int32_t q = 0; q < p->n_groups; q++)
                for (int32_t r = 0; r < p->groups[q]->n_tasks; r++)
                    found |= !strcmp(p->groups[q]->tasks[r].path, task->path);
            if (must && !found) fail_msg("%s: %s op %d pruned matching file %s", rel, column, (int)o, task->path);
            assert_true(count_tasks(p) <= count_tasks(all));
            floe_ice_scan_plan_free(p);
            floe_ice_expr_free(f);
            checked++;
        }
    }
    assert_true(checked > 0);
    floe_ice_scan_plan_free(all);
    floe_ice_table_free(t);
}

static void pruning_never_drops_a_file_of_a_matching_partition(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    static const char *const tables[] = {"partition_bigint", "partition_integer", "partition_bool", "partition_double",
                                         "partition_float", "partition_decimal_integer", "partition_decimal_bigint",
                                         "partition_decimal_hugeint", "partition_binary"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "data/persistent/%s", tables[i]);
        check_partition_pruning(td, rel, "partition_col");
    }
    check_partition_pruning(td, "data/persistent/hive_partitioned_table", "event_date");
    check_partition_pruning(td, "data/persistent/hive_partitioned_table", "event_type");
}

/* ---- groups ---------------------------------------------------------------- */

static void empty_scan_has_exactly_one_empty_group(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/partition_bigint");
    floe_ice_expr *f = floe_ice_expr_false();
    floe_ice_scan_plan *p = plan_of(t, f, 16);
    assert_int_equal(p->n_groups, 1);
    assert_int_equal(p->groups[0]->n_tasks, 0);
    assert_int_equal(p->stats.rows, 0);
    floe_ice_scan_plan_free(p);
    floe_ice_expr_free(f);
    floe_ice_table_free(t);
}

static void group_count_is_min_of_target_and_tasks(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/partition_bigint");
    floe_ice_scan_plan *p = plan_of(t, NULL, 1000);
    assert_true(p->stats.n_tasks > 0 && p->stats.n_tasks < 1000);
    assert_int_equal(p->n_groups, p->stats.n_tasks);
    for (int32_t g = 0; g < p->n_groups; g++) assert_int_equal(p->groups[g]->n_tasks, 1);
    floe_ice_scan_plan_free(p);
    assert_error(floe_ice_scan_plan_new(t, NULL, NULL, 0, NULL,
                                        &(floe_ice_scan_options){.target_partitions = 0}, &p),
                 FLOE_ERR_INVALID_ARGUMENT, "target partitions");
    floe_ice_table_free(t);
}

static void bin_packing_is_balanced_and_deterministic(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/generated_bounds");
    floe_ice_scan_plan *a = plan_of(t, NULL, 7), *b = plan_of(t, NULL, 7);
    assert_int_equal(a->n_groups, 7);
    int64_t lo = INT64_MAX, hi = 0, maxw = 0;
    for (int32_t g = 0; g < a->n_groups; g++) {
        const floe_ice_scan_group *ga = a->groups[g];
        lo = ga->weight < lo ? ga->weight : lo;
        hi = ga->weight > hi ? ga->weight : hi;
        for (int32_t k = 0; k < ga->n_tasks; k++) {
            int64_t w = ga->tasks[k].length > FLOE_ICE_DEFAULT_OPEN_FILE_COST ? ga->tasks[k].length
                                                                              : FLOE_ICE_DEFAULT_OPEN_FILE_COST;
            maxw = w > maxw ? w : maxw;
        }
        /* Largest-first greedy: groups differ by at most one task's weight. */
        uint8_t *x, *y;
        size_t nx, ny;
        assert_ok(floe_ice_scan_group_serialize(ga, &x, &nx));
        assert_ok(floe_ice_scan_group_serialize(b->groups[g], &y, &ny));
        assert_true(nx == ny && memcmp(x, y, nx) == 0);
        floe_free(x);
        floe_free(y);
    }
    assert_true(hi - lo <= maxw);
    floe_ice_scan_plan_free(a);
    floe_ice_scan_plan_free(b);
    floe_ice_table_free(t);
}

static void splits_cover_each_file_at_row_group_boundaries(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/iceberg/lineitem_iceberg");
    floe_ice_scan_options o;
    floe_ice_scan_options_init(&o);
    o.split_size = 64 * 1024;
    o.target_partitions = 3;
    floe_ice_scan_plan *p = NULL;
    assert_ok(floe_ice_scan_plan_new(t, NULL, NULL, 0, NULL, &o, &p));
    floe_ice_live_files *lf = NULL;
    assert_ok(floe_ice_table_live_files(t, floe_ice_tm_current_snapshot(t->md), NULL, &lf));
    for (size_t i = 0; i < lf->n; i++) {
        const floe_ice_data_file *f = &lf->files[i].file;
        int64_t covered = 0;
        int32_t n = 0, expect_splits = -1;
        for (int32_t g = 0; g < p->n_groups; g++)
            for (int32_t k = 0; k < p->groups[g]->n_tasks; k++) {
                const floe_ice_scan_task *tk = &p->groups[g]->tasks[k];
                if (strcmp(tk->path, f->file_path)) continue;
                covered += tk->length;
                n++;
                expect_splits = tk->n_splits;
                if (tk->start != 0) {
                    bool at_boundary = false;
                    for (int32_t s = 0; s < f->n_split_offsets; s++) at_boundary |= f->split_offsets[s] == tk->start;
                    assert_true(at_boundary);
                }
            }
        assert_int_equal(covered, f->file_size_in_bytes);
        assert_int_equal(n, expect_splits);
        if (f->n_split_offsets <= 1) assert_int_equal(n, 1);
    }
    floe_ice_live_files_free(lf);
    floe_ice_scan_plan_free(p);
    floe_ice_table_free(t);
}

/* ---- codec ---------------------------------------------------------------- */

static void task_groups_round_trip_through_bytes(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/equality_deletes/warehouse/mydb/mytable_partitioned");
    floe_ice_value v = floe_ice_string_z("a");
    floe_ice_expr *f = floe_ice_expr_literal(FLOE_ICE_EXPR_NOT_EQ, "name", &v);
    floe_ice_scan_plan *p = plan_of(t, f, 2);
    for (int32_t g = 0; g < p->n_groups; g++) {
        uint8_t *x, *y;
        size_t nx, ny;
        assert_ok(floe_ice_scan_group_serialize(p->groups[g], &x, &nx));
        floe_ice_scan_group *back = NULL;
        assert_ok(floe_ice_scan_group_deserialize(x, nx, &back));
        assert_int_equal(back->n_tasks, p->groups[g]->n_tasks);
        assert_int_equal(back->n_deletes, p->groups[g]->n_deletes);
        for (int32_t k = 0; k < back->n_tasks; k++) {
            assert_string_equal(back->tasks[k].path, p->groups[g]->tasks[k].path);
            assert_true(floe_ice_expr_equals(back->tasks[k].residual, p->groups[g]->tasks[k].residual));
            assert_int_equal(back->tasks[k].n_deletes, p->groups[g]->tasks[k].n_deletes);
            for (int32_t i = 0; i < back->tasks[k].n_partition; i++)
                assert_true(floe_ice_value_equals(&back->tasks[k].partition[i], &p->groups[g]->tasks[k].partition[i]));
        }
        assert_ok(floe_ice_scan_group_serialize(back, &y, &ny));
        assert_true(nx == ny && memcmp(x, y, nx) == 0);
        /* Every truncation fails cleanly. */
        for (size_t cut = 0; cut < nx; cut += 1 + nx / 97) {
            floe_ice_scan_group *bad = NULL;
            floe_status st = floe_ice_scan_group_deserialize(x, cut, &bad);
            assert_non_null(st);
            assert_null(bad);
            floe_status_free(st);
        }
        floe_free(x);
        floe_free(y);
        floe_ice_scan_group_free(back);
    }
    floe_ice_scan_plan_free(p);
    floe_ice_expr_free(f);
    floe_ice_table_free(t);
}

static void manifest_cache_serves_repeated_plans(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_manifest_cache_clear();
    floe_ice_table *t = open_table(td, "data/persistent/partition_bigint");
    floe_ice_scan_plan *p = plan_of(t, NULL, 1);
    floe_ice_manifest_cache_stats s1, s2;
    floe_ice_manifest_cache_stats_get(&s1);
    floe_ice_scan_plan_free(p);
    p = plan_of(t, NULL, 1);
    floe_ice_manifest_cache_stats_get(&s2);
    assert_true(s1.entries > 0 && s1.bytes > 0);
    assert_true(s2.hits > s1.hits);
    assert_int_equal(s2.misses, s1.misses);
    floe_ice_scan_plan_free(p);
    floe_ice_manifest_cache_set_budget(1);
    floe_ice_manifest_cache_stats_get(&s2);
    assert_int_equal(s2.entries, 0);
    floe_ice_manifest_cache_set_budget(256LL << 20);
    floe_ice_manifest_cache_clear();
    floe_ice_table_free(t);
}

FLOE_TEST_MAIN(cmocka_unit_test(deletes_of_every_kind_attach_as_the_spec_says),
               cmocka_unit_test(selective_filter_prunes_generated_bounds_without_opening_data),
               cmocka_unit_test(pruning_never_drops_a_file_of_a_matching_partition),
               cmocka_unit_test(empty_scan_has_exactly_one_empty_group),
               cmocka_unit_test(group_count_is_min_of_target_and_tasks),
               cmocka_unit_test(bin_packing_is_balanced_and_deterministic),
               cmocka_unit_test(splits_cover_each_file_at_row_group_boundaries),
               cmocka_unit_test(task_groups_round_trip_through_bytes),
               cmocka_unit_test(manifest_cache_serves_repeated_plans))

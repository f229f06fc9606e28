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

/* A v3 table with encryption keys whose snapshot's manifest list is
 * encrypted: planning refuses, naming encryption, instead of failing on
 * undecodable bytes (or reading anything wrong). */
static void encrypted_snapshots_are_refused_by_name(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char p[4096];
    snprintf(p, sizeof p, "%s/apache__iceberg-rust/crates/iceberg/testdata/table_metadata/TableMetadataV3ValidEncryption.json",
             td);
    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(NULL, p, false, &t));
    floe_ice_scan_plan *plan = NULL;
    assert_error(floe_ice_scan_plan_new(t, NULL, NULL, 0, NULL, NULL, &plan), FLOE_ERR_UNSUPPORTED,
                 "snapshot 1 is encrypted (its manifest list uses encryption key '1fb95f04-7f98-4b1f-a08f-e810cfb907ff'):"
                 " reading encrypted Iceberg tables is not supported");
    floe_ice_table_free(t);
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
    /* Plan-time statistics come from the manifests alone. */
    int64_t rows = 0;
    for (int32_t g = 0; g < p->n_groups; g++) rows += p->groups[g]->rows;
    assert_int_equal(p->stats.rows, rows);
    assert_false(p->stats.rows_estimated);
    assert_int_equal(p->stats.n_data_files, 5000);
    bool bounded = false;
    for (int32_t c = 0; c < p->stats.n_columns; c++) {
        const floe_ice_scan_column_stats *cs = &p->stats.columns[c];
        if (cs->has_lower && cs->has_upper) {
            bounded = true;
            assert_true(floe_ice_value_compare(&cs->lower, &cs->upper) <= 0);
        }
    }
    assert_true(bounded);
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


/* ---- sequence-number boundaries on a synthetic table ---------------------- */

typedef struct syn_file {
    const char *name;
    floe_ice_content content;
    int spec;                       /* 0 unpartitioned, 1 identity(cat) */
    int cat;
    int64_t seq;
    const char *ref;                /* referenced data file name, or NULL */
    bool dv;
} syn_file;

static const syn_file syn_files[] = {
    {"d0", FLOE_ICE_CONTENT_DATA, 0, 0, 1, NULL, false},
    {"d1", FLOE_ICE_CONTENT_DATA, 1, 1, 1, NULL, false},
    {"d2", FLOE_ICE_CONTENT_DATA, 1, 1, 2, NULL, false},
    {"d3", FLOE_ICE_CONTENT_DATA, 1, 2, 2, NULL, false},
    {"p2", FLOE_ICE_CONTENT_POSITION_DELETES, 1, 1, 2, NULL, false},  /* >=: d1, d2 */
    {"e2", FLOE_ICE_CONTENT_EQUALITY_DELETES, 1, 1, 2, NULL, false},  /* >: d1 only */
    {"g2", FLOE_ICE_CONTENT_EQUALITY_DELETES, 0, 0, 2, NULL, false},  /* global >: d0, d1 */
    {"v2", FLOE_ICE_CONTENT_POSITION_DELETES, 1, 2, 2, "d3", true},   /* DV of d3 */
    {"q2", FLOE_ICE_CONTENT_POSITION_DELETES, 1, 2, 2, NULL, false},  /* replaced by d3's DV */
    {"r1", FLOE_ICE_CONTENT_POSITION_DELETES, 1, 1, 1, "d2", false},  /* d2 is newer: none */
};

static void syn_path(char *out, size_t cap, const char *dir, const char *name) {
    snprintf(out, cap, "%s/data/%s.parquet", dir, name);
}

static void write_syn_manifest(const char *dir, const char *mname, floe_ice_manifest_content content, int spec_no,
                               const floe_ice_schema *schema, const floe_ice_partition_spec *spec,
                               floe_ice_manifest_file *mf, uint8_t bounds[8]) {
    char path[1200], fp[1200], ref[1200];
    snprintf(path, sizeof path, "%s/metadata/%s.avro", dir, mname);
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_ice_manifest_writer_options o = {3, content, schema, spec, 7};
    floe_ice_manifest_writer *w = NULL;
    assert_ok(floe_ice_manifest_writer_open(out, &o, &w));
    int32_t eq_ids[1] = {1};
    int lo = 1 << 30, hi = -1;
    for (size_t i = 0; i < sizeof syn_files / sizeof *syn_files; i++) {
        const syn_file *s = &syn_files[i];
        bool is_data = s->content == FLOE_ICE_CONTENT_DATA;
        if (is_data != (content == FLOE_ICE_MANIFEST_DATA) || s->spec != spec_no) continue;
        floe_ice_manifest_entry e;
        memset(&e, 0, sizeof e);
        e.status = FLOE_ICE_STATUS_ADDED;
        e.snapshot_id = 7;
        e.sequence_number = s->seq;
        e.file_sequence_number = s->seq;
        floe_ice_data_file_init(&e.file);
        syn_path(fp, sizeof fp, dir, s->name);
        e.file.content = s->content;
        e.file.file_path = fp;
        e.file.file_format = s->dv ? "puffin" : "parquet";
        e.file.spec_id = spec_no;
        floe_ice_value part = floe_ice_int(s->cat);
        e.file.n_partition = spec_no;
        e.file.partition = &part;
        e.file.record_count = 10;
        e.file.file_size_in_bytes = 1000;
        if (s->content == FLOE_ICE_CONTENT_EQUALITY_DELETES) e.file.n_equality_ids = 1, e.file.equality_ids = eq_ids;
        if (s->ref) {
            syn_path(ref, sizeof ref, dir, s->ref);
            e.file.referenced_data_file = ref;
        }
        if (s->dv) {
            e.file.has_content_offset = e.file.has_content_size_in_bytes = true;
            e.file.content_offset = 4;
            e.file.content_size_in_bytes = 40;
        }
        if (s->cat < lo) lo = s->cat;
        if (s->cat > hi) hi = s->cat;
        assert_ok(floe_ice_manifest_writer_add(w, &e));
    }
    assert_ok(floe_ice_manifest_writer_finish(w, mf));
    mf->manifest_length = (int64_t)out->bytes_written;
    assert_ok(floe_output_close(out));
    mf->manifest_path = floe_strdup(path);
    mf->partition_spec_id = spec_no;
    mf->content = content;
    mf->sequence_number = 2;
    mf->min_sequence_number = 1;
    mf->added_snapshot_id = 7;
    mf->n_partitions = spec_no;
    if (spec_no) {
        mf->partitions = floe_calloc(1, sizeof *mf->partitions);
        memcpy(bounds, &lo, 4);
        memcpy(bounds + 4, &hi, 4);
        mf->partitions[0] = (floe_ice_field_summary){false, 0, bounds, 4, bounds + 4, 4};
    }
}

static void sequence_numbers_decide_which_deletes_apply(void **state) {
    (void)state;
    char dir[1024], path[1200];
    floe_test_tmpdir(dir, sizeof dir, "scan_plan_seq");
    snprintf(path, sizeof path, "mkdir -p '%s/metadata'", dir);
    assert_int_equal(system(path), 0);
    static const char schema_json[] =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":"
        "\"long\"},{\"id\":2,\"name\":\"cat\",\"required\":true,\"type\":\"int\"}]}";
    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_from_json_text(schema_json, &schema));
    floe_ice_partition_spec *s0 = NULL, *s1 = NULL;
    assert_ok(floe_ice_partition_spec_new(0, &s0));
    assert_ok(floe_ice_partition_spec_new(1, &s1));
    assert_ok(floe_ice_partition_spec_add(s1, 2, 1000, "cat", floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0)));
    floe_ice_manifest_file mfs[4];
    memset(mfs, 0, sizeof mfs);
    uint8_t bounds[4][8];
    write_syn_manifest(dir, "data0", FLOE_ICE_MANIFEST_DATA, 0, schema, s0, &mfs[0], bounds[0]);
    write_syn_manifest(dir, "data1", FLOE_ICE_MANIFEST_DATA, 1, schema, s1, &mfs[1], bounds[1]);
    write_syn_manifest(dir, "del0", FLOE_ICE_MANIFEST_DELETES, 0, schema, s0, &mfs[2], bounds[2]);
    write_syn_manifest(dir, "del1", FLOE_ICE_MANIFEST_DELETES, 1, schema, s1, &mfs[3], bounds[3]);
    snprintf(path, sizeof path, "%s/metadata/snap-7.avro", dir);
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_ice_manifest_list_options lo = {3, 7, FLOE_ICE_NO_SNAPSHOT, 2, true, 0};
    assert_ok(floe_ice_manifest_list_write(out, &lo, mfs, 4));
    assert_ok(floe_output_close(out));
    snprintf(path, sizeof path, "%s/metadata/v1.metadata.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"format-version\":3,\"next-row-id\":100,\"table-uuid\":\"00000000-0000-0000-0000-000000000002\",\"location\":\"%s\","
            "\"last-sequence-number\":2,\"last-updated-ms\":1,\"last-column-id\":2,\"current-schema-id\":0,"
            "\"schemas\":[%s],\"default-spec-id\":1,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]},"
            "{\"spec-id\":1,\"fields\":[{\"name\":\"cat\",\"transform\":\"identity\",\"source-id\":2,\"field-id\":"
            "1000}]}],\"last-partition-id\":1000,\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,"
            "\"fields\":[]}],\"properties\":{},\"current-snapshot-id\":7,\"snapshots\":[{\"snapshot-id\":7,"
            "\"sequence-number\":2,\"timestamp-ms\":1,\"first-row-id\":0,\"added-rows\":40,\"manifest-list\":\"%s/metadata/snap-7.avro\",\"summary\":"
            "{\"operation\":\"overwrite\"}}],\"snapshot-log\":[],\"metadata-log\":[]}\n",
            dir, schema_json, dir);
    fclose(f);
    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(NULL, path, false, &t));
    floe_ice_scan_plan *p = plan_of(t, NULL, 2);
    static const struct {
        const char *data;
        const char *deletes;
    } expect[] = {{"d0", "g2"}, {"d1", "e2 g2 p2"}, {"d2", "p2"}, {"d3", "v2"}};
    int seen = 0;
    for (int32_t g = 0; g < p->n_groups; g++)
        for (int32_t k = 0; k < p->groups[g]->n_tasks; k++) {
            const floe_ice_scan_task *tk = &p->groups[g]->tasks[k];
            char got[256] = "";
            for (int32_t j = 0; j < tk->n_deletes; j++) {
                const char *base = strrchr(tk->deletes[j]->path, '/') + 1;
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s%.2s", j ? " " : "", base);
            }
            const char *name = strrchr(tk->path, '/') + 1;
            for (size_t e = 0; e < sizeof expect / sizeof *expect; e++)
                if (!strncmp(name, expect[e].data, 2)) {
                    if (strcmp(got, expect[e].deletes)) fail_msg("%s: deletes '%s', want '%s'", name, got, expect[e].deletes);
                    seen++;
                }
            if (!strncmp(name, "d3", 2)) {
                assert_true(tk->deletes[0]->is_dv);
                assert_int_equal(tk->deletes[0]->content_offset, 4);
                assert_int_equal(tk->deletes[0]->content_size_in_bytes, 40);
            }
        }
    assert_int_equal(seen, 4);
    assert_true(p->stats.rows_estimated);
    assert_int_equal(p->stats.n_delete_files, 4);
    floe_ice_scan_plan_free(p);
    /* Partition pruning on cat keeps d1/d2 and the global delete still applies. */
    floe_ice_value one = floe_ice_int(1);
    floe_ice_expr *flt = floe_ice_expr_literal(FLOE_ICE_EXPR_EQ, "cat", &one);
    p = plan_of(t, flt, 1);
    assert_int_equal(p->stats.n_data_files, 3); /* d0 (unpartitioned) + d1 + d2 */
    floe_ice_scan_plan_free(p);
    floe_ice_expr_free(flt);
    floe_ice_table_free(t);
    for (int i = 0; i < 4; i++) {
        floe_free((char *)mfs[i].manifest_path);
        floe_free(mfs[i].partitions);
    }
    floe_ice_partition_spec_free(s0);
    floe_ice_partition_spec_free(s1);
    floe_ice_schema_free(schema);
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
               cmocka_unit_test(sequence_numbers_decide_which_deletes_apply),
               cmocka_unit_test(selective_filter_prunes_generated_bounds_without_opening_data),
               cmocka_unit_test(pruning_never_drops_a_file_of_a_matching_partition),
               cmocka_unit_test(empty_scan_has_exactly_one_empty_group),
               cmocka_unit_test(group_count_is_min_of_target_and_tasks),
               cmocka_unit_test(bin_packing_is_balanced_and_deterministic),
               cmocka_unit_test(splits_cover_each_file_at_row_group_boundaries),
               cmocka_unit_test(task_groups_round_trip_through_bytes),
               cmocka_unit_test(manifest_cache_serves_repeated_plans),
               cmocka_unit_test(encrypted_snapshots_are_refused_by_name))

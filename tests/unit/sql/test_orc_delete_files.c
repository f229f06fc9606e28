/*
 * test_orc_delete_files.c — Iceberg v2 delete files in ORC (as Iceberg
 * Java writes them with write.delete.format.default=orc), and ORC data
 * files without field ids.  The files are written by the tests' ORC writer
 * (tests/unit/orc_fixture.h: uncompressed, RLE v1, iceberg.id attributes),
 * registered through the catalog API — data files appended, delete files
 * committed as a row delta — and read back through SQL and through the
 * scan plan's tasks:
 *   - an ORC data file (row groups of 5 rows) beside a Parquet file from
 *     an INSERT; an ORC position delete file naming rows of both (and of a
 *     file elsewhere), one whose NULL file_path / pos rows delete nothing,
 *     and ORC equality delete files keyed on a long and on a string (NULL
 *     matching NULL): exactly the deleted rows are gone, _pos still names
 *     file rows, filters that skip row groups and the stripe still meet
 *     the deletes at the right rows;
 *   - an ORC data file written without Iceberg (no iceberg.id), columns
 *     renamed and reordered, read through schema.name-mapping.default,
 *     with filters skipping its row groups through the mapping and delete
 *     files (one without field ids either) applied to it;
 *   - the same without a name mapping: names, as Iceberg Java's ORC
 *     reader uses, not positions, for data and equality delete files
 *     (positions for a Parquet equality delete file, as Java's Parquet
 *     reader does).
 */
#include <string.h>

#include "floe/catalog.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_partition_spec.h"
#include "floe/iceberg_scan.h"
#include "floe/iceberg_table_update.h"
#include "floe/iceberg_task_reader.h"
#include "floe/memory.h"
#include "floe/session.h"
#include "floe_test.h"
#include "formats/parquet/writer.h"
#include "iceberg/snapshot/snapshot_producer.h"
#include "orc_fixture.h"
#include "sql_capture.h"

#define POS_FILE_PATH_ID 2147483546
#define POS_POS_ID 2147483545

static const char *SCHEMA =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"qty\",\"required\":false,\"type\":\"int\"}]}";

static int64_t file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    int64_t n = ftell(f);
    fclose(f);
    return n;
}

/* db.<name>, format v2, with the given table properties (key/value pairs). */
static void create_table(floe_catalog *c, const char *name, const char *const *props, int32_t n_props) {
    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_from_json_text(SCHEMA, &schema));
    char *loc = NULL;
    assert_ok(floe_catalog_default_location(c, "db", name, &loc));
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_tm_new(schema, NULL, NULL, loc, props, n_props, 2, &md));
    assert_ok(floe_catalog_create_table(c, "db", name, md, NULL));
    floe_ice_table_metadata_free(md);
    floe_ice_schema_free(schema);
    floe_free(loc);
}

/* Append the ORC data file at `path` to db.<name> as one snapshot. */
static void append_orc(floe_catalog *c, const char *name, const char *path, int64_t rows) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", name, &t));
    floe_ice_data_file df;
    floe_ice_data_file_init(&df);
    df.file_path = path;
    df.file_format = "ORC";
    df.record_count = rows;
    df.file_size_in_bytes = file_size(path);
    floe_ice_type *ptype = NULL;
    assert_ok(floe_ice_partition_spec_partition_type(floe_ice_tm_default_spec(t->md), floe_ice_tm_current_schema(t->md),
                                                     false, &ptype));
    floe_ice_data_file_codec *codec = NULL;
    assert_ok(floe_ice_data_file_codec_new(ptype, t->md->format_version, &codec));
    uint8_t *bytes = NULL;
    size_t len = 0;
    assert_ok(floe_ice_data_file_encode(codec, &df, &bytes, &len));
    const uint8_t *files[1] = {bytes};
    assert_ok(floe_catalog_append(c, "db", name, files, &len, 1, NULL, 0, 4, NULL));
    floe_free(bytes);
    floe_ice_data_file_codec_free(codec);
    floe_ice_type_free(ptype);
    floe_ice_table_free(t);
}

/* A delete file entry: position deletes (n_eq 0) or equality deletes on
 * eq_ids, format ORC. */
static floe_ice_data_file delete_entry(const char *path, int64_t rows, int32_t *eq_ids, int32_t n_eq) {
    floe_ice_data_file df;
    floe_ice_data_file_init(&df);
    df.content = n_eq ? FLOE_ICE_CONTENT_EQUALITY_DELETES : FLOE_ICE_CONTENT_POSITION_DELETES;
    df.file_path = path;
    df.file_format = "ORC";
    df.record_count = rows;
    df.file_size_in_bytes = file_size(path);
    if (n_eq) {
        df.n_equality_ids = n_eq;
        df.equality_ids = eq_ids;
    }
    return df;
}

/* Commit the delete files to db.<name> as one row delta (operation delete). */
static void commit_deletes(floe_catalog *c, const char *name, const floe_ice_data_file *dfs, int32_t n) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", name, &t));
    floe_ice_producer p;
    assert_ok(floe_ice_producer_init(&p, t, "row delta"));
    assert_ok(floe_ice_producer_add_delete_files(&p, dfs, n));
    floe_ice_table_metadata *md = NULL;
    floe_ice_append_files w;
    memset(&w, 0, sizeof w);
    assert_ok(floe_ice_producer_commit(&p, "delete", NULL, 0, NULL, 0, &md, &w));
    floe_ice_producer_destroy(&p);
    assert_ok(floe_catalog_commit(c, "db", name, t->metadata_location, md, NULL));
    floe_ice_append_files_clear(&w);
    floe_ice_table_metadata_free(md);
    floe_ice_table_free(t);
}

typedef struct {
    const char *path;
    int64_t pos;
} pos_row;

static int cmp_pos_row(const void *a, const void *b) {
    const pos_row *x = a, *y = b;
    if (!x->path || !y->path) return (x->path == NULL) - (y->path == NULL);
    int c = strcmp(x->path, y->path);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* A position delete file: (path, pos) rows, NULL entries (path NULL, or
 * pos < 0) written as nulls — then the columns are optional, as no writer
 * of Iceberg would make them, else required as Iceberg Java writes them.
 * with_ids false: no Iceberg attributes at all. */
static void write_pos_deletes(const char *out, const char *const *paths, const int64_t *pos, int n, bool with_ids) {
    /* Iceberg's order: by file_path, then pos (NULL paths last). The rows
     * are sorted here, as the order of the paths depends on where the
     * test's directory is (/check/... sorts before /elsewhere/...). */
    pos_row *rows = calloc((size_t)n + 1, sizeof *rows);
    const char **spaths = calloc((size_t)n + 1, sizeof *spaths);
    int64_t *spos = calloc((size_t)n + 1, sizeof *spos);
    bool *pos_null = calloc((size_t)n + 1, sizeof *pos_null);
    assert_true(rows && spaths && spos && pos_null);
    for (int i = 0; i < n; i++) rows[i] = (pos_row){paths[i], pos[i]};
    qsort(rows, (size_t)n, sizeof *rows, cmp_pos_row);
    bool nulls = false;
    for (int i = 0; i < n; i++) {
        spaths[i] = rows[i].path;
        spos[i] = rows[i].pos;
        pos_null[i] = spos[i] < 0;
        nulls = nulls || !spaths[i] || spos[i] < 0;
    }
    orcfx_column cols[2] = {
        {"file_path", ORCFX_STRING, with_ids ? POS_FILE_PATH_ID : -1, !nulls, NULL, spaths, NULL},
        {"pos", ORCFX_LONG, with_ids ? POS_POS_ID : -1, !nulls, spos, NULL, pos_null},
    };
    assert_true(orcfx_write(out, cols, 2, n, NULL) > 0);
    free(rows);
    free(spaths);
    free(spos);
    free(pos_null);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Read every task of a plan of db.<name> with `filter_json` (NULL: none):
 * the ids read, sorted, as "1,2,3"; the row groups and stripes the ORC
 * readers skipped in *skipped. */
static void plan_read(floe_catalog *c, const char *name, const char *filter_json, char *ids, size_t cap,
                      int64_t *skipped) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", name, &t));
    floe_ice_expr *filter = NULL;
    if (filter_json) assert_ok(floe_ice_expr_from_json_text(filter_json, &filter));
    floe_ice_scan_plan *p = NULL;
    assert_ok(floe_ice_scan_plan_new(t, NULL, NULL, 0, filter, NULL, &p));
    floe_ice_task_read_options ro = {0};
    ro.table = t;
    ro.schema = floe_ice_tm_schema(t->md, p->schema_id);
    ro.batch_size = 4;
    static const int32_t want[1] = {1};
    ro.field_ids = want;
    ro.n_field_ids = 1;
    *skipped = 0;
    int64_t got[64];
    size_t n = 0;
    for (int32_t g = 0; g < p->n_groups; g++)
        for (int32_t k = 0; k < p->groups[g]->n_tasks; k++) {
            floe_ice_task_reader *r = NULL;
            assert_ok(floe_ice_task_reader_open(&ro, &p->groups[g]->tasks[k], &r));
            for (;;) {
                floe_batch *b = NULL;
                assert_ok(floe_ice_task_reader_next(r, &b));
                if (!b) break;
                for (int64_t i = 0; i < b->num_rows; i++) {
                    assert_true(n < 64);
                    got[n++] = floe_array_get_int64(b->columns[0], i);
                }
                floe_batch_release(b);
            }
            floe_ice_task_read_stats st;
            floe_ice_task_reader_stats(r, &st);
            *skipped += st.row_groups_skipped;
            floe_ice_task_reader_close(r);
        }
    qsort(got, n, sizeof *got, cmp_i64);
    size_t len = 0;
    ids[0] = 0;
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(ids + len, cap - len, "%s%lld", i ? "," : "", (long long)got[i]);
    floe_ice_scan_plan_free(p);
    floe_ice_expr_free(filter);
    floe_ice_table_free(t);
}

/* ---- ORC delete files over ORC and Parquet data files -------------------- */

#define N 20

static void orc_position_and_equality_delete_files_apply(void **state) {
    (void)state;
    char wh[1024], data[1200], pd[1200], pdn[1200], ed_id[1200], ed_name[1200];
    floe_test_tmpdir(wh, sizeof wh, "orc_delete_files");
    snprintf(data, sizeof data, "%s/data-0.orc", wh);
    snprintf(pd, sizeof pd, "%s/pos-deletes.orc", wh);
    snprintf(pdn, sizeof pdn, "%s/pos-deletes-nulls.orc", wh);
    snprintf(ed_id, sizeof ed_id, "%s/eq-deletes-id.orc", wh);
    snprintf(ed_name, sizeof ed_name, "%s/eq-deletes-name.orc", wh);

    /* The data file: id 1..20, name r01..r20 (NULL for id 6), qty id * 10
     * (NULL for id 9), row groups of 5 rows. */
    int64_t ids[N], qty[N];
    bool qty_null[N];
    char text[N][16];
    const char *names[N];
    for (int i = 0; i < N; i++) {
        ids[i] = i + 1;
        qty[i] = (i + 1) * 10;
        qty_null[i] = i + 1 == 9;
        snprintf(text[i], sizeof text[i], "r%02d", i + 1);
        names[i] = i + 1 == 6 ? NULL : text[i];
    }
    orcfx_column cols[3] = {
        {"id", ORCFX_LONG, 1, true, ids, NULL, NULL},
        {"name", ORCFX_STRING, 2, false, NULL, names, NULL},
        {"qty", ORCFX_INT, 3, false, qty, NULL, qty_null},
    };
    orcfx_options o = {0};
    o.row_index_stride = 5;
    assert_true(orcfx_write(data, cols, 3, N, &o) > 0);

    floe_session *s = NULL;
    assert_ok(floe_session_open(wh, &s));
    floe_catalog *c = floe_session_catalog(s);
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    create_table(c, "t", NULL, 0);
    append_orc(c, "t", data, N);
    /* a Parquet file beside it */
    assert_ok(floe_session_execute(s, "INSERT INTO db.t VALUES (21, 'p21', 210), (22, 'p22', 220), (23, 'p23', 230)",
                                   NULL));
    char *got = sql_query_text(s, "SELECT id, _pos FROM db.t WHERE id > 18 ORDER BY id");
    assert_string_equal(got, "19|18\n20|19\n21|0\n22|1\n23|2\n");
    floe_free(got);
    char *pq = sql_query_text(s, "SELECT DISTINCT _file FROM db.t WHERE id > 20");
    pq[strlen(pq) - 1] = 0; /* the newline */
    assert_non_null(strstr(pq, ".parquet"));

    /* Position deletes: data rows 0 (id 1), 11 (id 12), 19 (id 20, the last
     * row group's last row), Parquet row 1 (id 22), and a row of a file
     * not in the table. */
    const char *pp[5] = {"/elsewhere/other.orc", data, data, data, pq};
    const int64_t ppos[5] = {2, 0, 11, 19, 1};
    write_pos_deletes(pd, pp, ppos, 5, true);
    /* NULL file_path or pos delete nothing; id 5 (row 4) goes */
    const char *np[3] = {data, data, NULL};
    const int64_t npos[3] = {-1, 4, 2};
    write_pos_deletes(pdn, np, npos, 3, true);
    /* Equality deletes: id 7 (ORC) and 23 (Parquet); name 'r15' and NULL
     * (id 6, whose name is NULL). */
    const int64_t eq_ids[2] = {7, 23};
    orcfx_column ec[1] = {{"id", ORCFX_LONG, 1, true, eq_ids, NULL, NULL}};
    assert_true(orcfx_write(ed_id, ec, 1, 2, NULL) > 0);
    const char *eq_names[2] = {"r15", NULL};
    orcfx_column nc[1] = {{"name", ORCFX_STRING, 2, false, NULL, eq_names, NULL}};
    assert_true(orcfx_write(ed_name, nc, 1, 2, NULL) > 0);

    int32_t id_key[1] = {1}, name_key[1] = {2};
    floe_ice_data_file dfs[4] = {delete_entry(pd, 5, NULL, 0), delete_entry(pdn, 3, NULL, 0),
                                 delete_entry(ed_id, 2, id_key, 1), delete_entry(ed_name, 2, name_key, 1)};
    commit_deletes(c, "t", dfs, 4);

    got = sql_query_text(s, "SELECT id, name, qty, _pos FROM db.t ORDER BY id");
    assert_string_equal(got,
                        "2|r02|20|1\n3|r03|30|2\n4|r04|40|3\n8|r08|80|7\n9|r09|NULL|8\n10|r10|100|9\n"
                        "11|r11|110|10\n13|r13|130|12\n14|r14|140|13\n16|r16|160|15\n17|r17|170|16\n"
                        "18|r18|180|17\n19|r19|190|18\n21|p21|210|0\n");
    floe_free(got);
    got = sql_query_text(s, "SELECT count(*), sum(qty) FROM db.t");
    assert_string_equal(got, "14|1560\n");
    floe_free(got);
    got = sql_query_text(s, "SELECT id FROM db.t WHERE qty IS NULL OR name = 'r13' ORDER BY id");
    assert_string_equal(got, "9\n13\n");
    floe_free(got);
    got = sql_query_text(s, "SELECT id FROM db.t WHERE id >= 16 ORDER BY id");
    assert_string_equal(got, "16\n17\n18\n19\n21\n");
    floe_free(got);

    /* The tasks: row groups 0..2 (ids 1..15) skipped, the delete of row 19
     * still meets id 20; the stripe skipped when nothing can match. */
    char seen[256];
    int64_t skipped = 0;
    plan_read(c, "t", "{\"type\":\"gt-eq\",\"term\":\"id\",\"value\":16}", seen, sizeof seen, &skipped);
    assert_string_equal(seen, "16,17,18,19,21");
    assert_int_equal(skipped, 3);
    plan_read(c, "t", "{\"type\":\"gt\",\"term\":\"qty\",\"value\":500}", seen, sizeof seen, &skipped);
    assert_string_equal(seen, "");
    assert_int_equal(skipped, 1);
    plan_read(c, "t", NULL, seen, sizeof seen, &skipped);
    assert_string_equal(seen, "2,3,4,8,9,10,11,13,14,16,17,18,19,21");
    assert_int_equal(skipped, 0);
    floe_free(pq);
    floe_session_close(s);
}

/* ---- an ORC data file without field ids, through the name mapping ------- */

static void orc_data_file_without_ids_reads_through_name_mapping(void **state) {
    (void)state;
    char wh[1024], data[1200], pd[1200], ed[1200];
    floe_test_tmpdir(wh, sizeof wh, "orc_name_mapping");
    snprintf(data, sizeof data, "%s/legacy.orc", wh);
    snprintf(pd, sizeof pd, "%s/pos-deletes.orc", wh);
    snprintf(ed, sizeof ed, "%s/eq-deletes.orc", wh);

    /* As Hive writes it: no Iceberg attributes, `name` called `label` and
     * first, `id` called `ident`, a column the table does not have, no qty;
     * 12 rows in row groups of 4. */
    int64_t ids[12];
    char text[12][16];
    const char *labels[12], *extra[12];
    for (int i = 0; i < 12; i++) {
        ids[i] = i + 1;
        snprintf(text[i], sizeof text[i], "l%02d", i + 1);
        labels[i] = text[i];
        extra[i] = "x";
    }
    orcfx_column cols[3] = {
        {"label", ORCFX_STRING, -1, false, NULL, labels, NULL},
        {"extra", ORCFX_STRING, -1, false, NULL, extra, NULL},
        {"ident", ORCFX_LONG, -1, false, ids, NULL, NULL},
    };
    orcfx_options o = {0};
    o.row_index_stride = 4;
    assert_true(orcfx_write(data, cols, 3, 12, &o) > 0);

    floe_session *s = NULL;
    assert_ok(floe_session_open(wh, &s));
    floe_catalog *c = floe_session_catalog(s);
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    static const char *const props[2] = {
        "schema.name-mapping.default",
        "[{\"field-id\":1,\"names\":[\"id\",\"ident\"]},{\"field-id\":2,\"names\":[\"name\",\"label\"]},"
        "{\"field-id\":3,\"names\":[\"qty\"]}]"};
    create_table(c, "m", props, 1);
    append_orc(c, "m", data, 12);

    char *got = sql_query_text(s, "SELECT id, name, qty FROM db.m WHERE id <= 3 OR id = 12 ORDER BY id");
    assert_string_equal(got, "1|l01|NULL\n2|l02|NULL\n3|l03|NULL\n12|l12|NULL\n");
    floe_free(got);
    got = sql_query_text(s, "SELECT id FROM db.m WHERE name = 'l07'");
    assert_string_equal(got, "7\n");
    floe_free(got);
    /* the filter reaches the ORC reader through the mapping: row groups
     * 0 and 1 (ids 1..8) are skipped */
    char seen[256];
    int64_t skipped = 0;
    plan_read(c, "m", "{\"type\":\"gt\",\"term\":\"id\",\"value\":8}", seen, sizeof seen, &skipped);
    assert_string_equal(seen, "9,10,11,12");
    assert_int_equal(skipped, 2);

    /* Deletes over it: a position delete file without field ids either
     * (read by its column names) deleting rows 0 and 9, and an equality
     * delete file (with ids, as Iceberg writes them) on id 5. */
    const char *pp[2] = {data, data};
    const int64_t ppos[2] = {0, 9};
    write_pos_deletes(pd, pp, ppos, 2, false);
    const int64_t eq_ids[1] = {5};
    orcfx_column ec[1] = {{"id", ORCFX_LONG, 1, true, eq_ids, NULL, NULL}};
    assert_true(orcfx_write(ed, ec, 1, 1, NULL) > 0);
    int32_t id_key[1] = {1};
    floe_ice_data_file dfs[2] = {delete_entry(pd, 2, NULL, 0), delete_entry(ed, 1, id_key, 1)};
    commit_deletes(c, "m", dfs, 2);
    got = sql_query_text(s, "SELECT id, name, _pos FROM db.m ORDER BY id");
    assert_string_equal(got, "2|l02|1\n3|l03|2\n4|l04|3\n6|l06|5\n7|l07|6\n8|l08|7\n9|l09|8\n11|l11|10\n12|l12|11\n");
    floe_free(got);
    plan_read(c, "m", "{\"type\":\"gt\",\"term\":\"id\",\"value\":8}", seen, sizeof seen, &skipped);
    assert_string_equal(seen, "9,11,12");
    assert_int_equal(skipped, 2);
    floe_session_close(s);
}

/* A Parquet equality delete file of one long column `name`, without a
 * field id. */
static void write_parquet_longs_without_ids(const char *path, const char *name, const int64_t *v, int n) {
    floe_field f[1] = {{(char *)name, floe_type_primitive(FLOE_TYPE_INT64), false, -1}};
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(f, 1, &s));
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(s->children[0].type, n, &b));
    for (int i = 0; i < n; i++) assert_ok(floe_builder_append_int64(b, v[i]));
    floe_array *col = NULL;
    assert_ok(floe_builder_finish(b, &col));
    floe_builder_free(b);
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(s, &col, 1, n, &batch));
    floe_array_release(col);
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    floe_output *out = NULL;
    floe_pq_writer *w = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    assert_ok(floe_pq_writer_open(out, s, &o, &w));
    assert_ok(floe_pq_writer_write(w, batch));
    assert_ok(floe_pq_writer_close(w, NULL));
    floe_batch_release(batch);
    floe_type_release(s);
}

/* ---- neither field ids nor a name mapping -------------------------------- */

/* An ORC file without field ids in a table without a name mapping reads
 * as Iceberg Java's OrcIterable reads it: through a mapping of the read
 * schema's names (MappingUtil.create), not by position (that fallback is
 * Parquet's); an ORC equality delete file without ids likewise finds its
 * key column by name, a Parquet one by position. */
static void orc_files_without_ids_or_mapping_match_by_name(void **state) {
    (void)state;
    char wh[1024], data[1200], ed[1200], epq[1200];
    floe_test_tmpdir(wh, sizeof wh, "orc_no_mapping");
    snprintf(data, sizeof data, "%s/hive.orc", wh);
    snprintf(ed, sizeof ed, "%s/eq-deletes.orc", wh);
    snprintf(epq, sizeof epq, "%s/eq-deletes.parquet", wh);
    /* columns in another order than the table's, one it does not have */
    const int64_t ids[3] = {1, 2, 3}, qty[3] = {10, 20, 30};
    const char *names[3] = {"a", "b", "c"}, *junk[3] = {"j1", "j2", "j3"};
    orcfx_column cols[4] = {
        {"junk", ORCFX_STRING, -1, false, NULL, junk, NULL},
        {"qty", ORCFX_INT, -1, false, qty, NULL, NULL},
        {"name", ORCFX_STRING, -1, false, NULL, names, NULL},
        {"id", ORCFX_LONG, -1, false, ids, NULL, NULL},
    };
    assert_true(orcfx_write(data, cols, 4, 3, NULL) > 0);
    floe_session *s = NULL;
    assert_ok(floe_session_open(wh, &s));
    floe_catalog *c = floe_session_catalog(s);
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    create_table(c, "f", NULL, 0);
    append_orc(c, "f", data, 3);
    char *got = sql_query_text(s, "SELECT id, name, qty FROM db.f ORDER BY id");
    assert_string_equal(got, "1|a|10\n2|b|20\n3|c|30\n");
    floe_free(got);
    char seen[64];
    int64_t skipped = 0;
    plan_read(c, "f", "{\"type\":\"gt\",\"term\":\"id\",\"value\":5}", seen, sizeof seen, &skipped);
    assert_string_equal(seen, "");
    assert_int_equal(skipped, 1); /* the stripe, by the id column's statistics */

    const int64_t eq_ids[1] = {2};
    orcfx_column ec[1] = {{"id", ORCFX_LONG, -1, false, eq_ids, NULL, NULL}};
    assert_true(orcfx_write(ed, ec, 1, 1, NULL) > 0);
    /* A Parquet one is read with Java's fallback ids by position: its
     * first column, whatever its name, is field 1. */
    const int64_t pq_ids[1] = {3};
    write_parquet_longs_without_ids(epq, "key", pq_ids, 1);
    int32_t id_key[1] = {1};
    floe_ice_data_file dfs[2] = {delete_entry(ed, 1, id_key, 1), delete_entry(epq, 1, id_key, 1)};
    dfs[1].file_format = "PARQUET";
    commit_deletes(c, "f", dfs, 2);
    got = sql_query_text(s, "SELECT id, name, qty FROM db.f ORDER BY id");
    assert_string_equal(got, "1|a|10\n");
    floe_free(got);
    floe_session_close(s);
}

FLOE_TEST_MAIN(cmocka_unit_test(orc_position_and_equality_delete_files_apply),
               cmocka_unit_test(orc_data_file_without_ids_reads_through_name_mapping),
               cmocka_unit_test(orc_files_without_ids_or_mapping_match_by_name))

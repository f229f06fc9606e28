/* The rolling data writer of iceberg_data_writer.h: files land where Java's
 * location providers put them, roll at the target size with every row
 * written exactly once (read back with floe's Parquet reader), carry the
 * field ids and the "iceberg.schema" footer key, refuse NULLs in required
 * columns at any depth, delete what they created when abandoned, and hand
 * back data_file records that decode to the right counts and bounds. */
#include "floe_test.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "floe/iceberg_data_writer.h"
#include "floe/iceberg_manifest.h"
#include "floe/memory.h"
#include "formats/parquet/file.h"
#include "formats/parquet/reader.h"

static const char *SCHEMA =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"d\",\"required\":false,\"type\":\"date\"}]}";

typedef struct fixture {
    char dir[1024];
    floe_ice_schema *schema;
    floe_ice_partition_spec *spec;
    floe_fileio *io;
    floe_ice_write_target t;
    floe_ice_write_settings *s;
    char created[64][1024];
    int n_created;
} fixture;

static void on_created(void *arg, const char *loc) {
    fixture *f = arg;
    if (f->n_created < 64) snprintf(f->created[f->n_created++], 1024, "%s", loc);
}

/* A fixture for `schema_json`, partitioned by `spec_json` (NULL: none). */
static fixture *fx_new(const char *name, const char *schema_json, const char *spec_json, const char *const *props,
                       int32_t n_props) {
    fixture *f = calloc(1, sizeof *f);
    floe_test_tmpdir(f->dir, sizeof f->dir, name);
    assert_ok(floe_ice_schema_from_json_text(schema_json, &f->schema));
    if (spec_json) assert_ok(floe_ice_partition_spec_from_json_text(spec_json, &f->spec));
    assert_ok(floe_fileio_new(NULL, 0, &f->io));
    f->t.location = f->dir;
    f->t.format_version = 2;
    f->t.schema = f->schema;
    f->t.spec = f->spec;
    f->t.sort_order_id = 0;
    f->t.properties = props;
    f->t.n_properties = n_props;
    assert_ok(floe_ice_write_settings_new(&f->t, &f->s));
    return f;
}

static void fx_free(fixture *f) {
    floe_ice_write_settings_free(f->s);
    floe_fileio_free(f->io);
    floe_ice_partition_spec_free(f->spec);
    floe_ice_schema_free(f->schema);
    free(f);
}

/* Rows id = first .. first+n-1, name "name-<id>" (NULL when id % 10 == 3,
 * or an id NULL when null_id_at == that id), d = id % 1000. */
static floe_batch *make_batch(const floe_ice_write_settings *s, int64_t first, int64_t n, int64_t null_id_at) {
    floe_schema *ws = NULL;
    (void)s;
    floe_ice_schema *sc = NULL;
    assert_ok(floe_ice_schema_from_json_text(SCHEMA, &sc));
    assert_ok(floe_ice_write_schema(sc, &ws));
    floe_ice_schema_free(sc);
    /* The input may be nullable where the table is required. */
    floe_field fl[3];
    for (int i = 0; i < 3; i++) assert_ok(floe_field_init(&fl[i], ws->children[i].name, ws->children[i].type, true, ws->children[i].field_id));
    floe_schema *bs = NULL;
    assert_ok(floe_type_struct(fl, 3, &bs));
    for (int i = 0; i < 3; i++) floe_field_clear(&fl[i]);
    floe_builder *bi, *bn, *bd;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &bi));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &bn));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_DATE32), n, &bd));
    for (int64_t i = first; i < first + n; i++) {
        if (i == null_id_at) assert_ok(floe_builder_append_null(bi));
        else assert_ok(floe_builder_append_int64(bi, i));
        char buf[64];
        snprintf(buf, sizeof buf, "name-%lld", (long long)i);
        if (i % 10 == 3) assert_ok(floe_builder_append_null(bn));
        else assert_ok(floe_builder_append_string(bn, buf));
        assert_ok(floe_builder_append_int32(bd, (int32_t)(i % 1000)));
    }
    floe_array *cols[3];
    assert_ok(floe_builder_finish(bi, &cols[0]));
    assert_ok(floe_builder_finish(bn, &cols[1]));
    assert_ok(floe_builder_finish(bd, &cols[2]));
    floe_builder_free(bi);
    floe_builder_free(bn);
    floe_builder_free(bd);
    floe_batch *b = NULL;
    assert_ok(floe_batch_new(bs, cols, 3, n, &b));
    for (int i = 0; i < 3; i++) floe_array_release(cols[i]);
    floe_type_release(bs);
    floe_type_release(ws);
    return b;
}

static bool file_exists(const char *p) { return access(p, F_OK) == 0; }

/* Read a data file back: count its rows and mark each id seen. */
static int64_t read_ids(const char *path, uint8_t *seen, int64_t n_seen) {
    floe_pq_reader *r = NULL;
    assert_ok(floe_pq_reader_open_path(path, NULL, &r));
    const floe_schema *s = floe_pq_reader_schema(r);
    assert_int_equal(s->children[0].field_id, 1);
    assert_int_equal(s->children[1].field_id, 2);
    assert_false(s->children[0].nullable);
    int64_t rows = 0;
    for (;;) {
        floe_batch *b = NULL;
        assert_ok(floe_pq_reader_next(r, &b));
        if (!b) break;
        for (int64_t i = 0; i < b->num_rows; i++) {
            int64_t id = floe_array_get_int64(b->columns[0], i);
            assert_true(id >= 0 && id < n_seen);
            seen[id]++;
        }
        rows += b->num_rows;
        floe_batch_release(b);
    }
    floe_pq_reader_close(r);
    return rows;
}

static void decode(const floe_ice_write_settings *s, const floe_ice_type *pt, const uint8_t *rec, size_t len,
                   floe_arena *a, floe_ice_data_file *df) {
    (void)s;
    floe_ice_data_file_codec *c = NULL;
    assert_ok(floe_ice_data_file_codec_new(pt, 2, &c));
    assert_ok(floe_ice_data_file_decode(c, rec, len, a, df));
    /* partition_ids point into the codec: copy what the tests look at. */
    if (df->n_partition > 0) {
        int32_t *ids = floe_arena_memdup(a, df->partition_ids, sizeof(int32_t) * (size_t)df->n_partition);
        df->partition_ids = ids;
    }
    floe_ice_data_file_codec_free(c);
}

static int64_t count_of(const floe_ice_count_map *m, int32_t id) {
    for (int32_t i = 0; i < m->n; i++)
        if (m->keys[i] == id) return m->values[i];
    return -1;
}

static const uint8_t *bound_of(const floe_ice_bound_map *m, int32_t id, uint32_t *len) {
    for (int32_t i = 0; i < m->n; i++)
        if (m->keys[i] == id) {
            *len = m->lens[i];
            return m->values[i];
        }
    return NULL;
}

/* ---- tests -------------------------------------------------------------------- */

static void unpartitioned_file_has_ids_schema_footer_and_record(void **state) {
    (void)state;
    fixture *f = fx_new("dw_unpartitioned", SCHEMA, NULL, NULL, 0);
    floe_ice_rolling_writer *w = NULL;
    floe_ice_file_observer obs = {on_created, f};
    assert_ok(floe_ice_rolling_writer_open(f->io, &f->t, f->s, NULL, 0, "00000-job", &obs, &w));
    assert_int_equal(f->n_created, 0); /* no file before the first row */
    floe_batch *b = make_batch(f->s, 0, 1000, -1);
    assert_ok(floe_ice_rolling_writer_write(w, b));
    floe_batch_release(b);
    assert_int_equal(f->n_created, 1);
    floe_ice_written_files out = {0};
    assert_ok(floe_ice_rolling_writer_finish(w, &out));
    floe_ice_rolling_writer_free(w, false);
    assert_int_equal(out.n, 1);
    char want[2048];
    snprintf(want, sizeof want, "%s/data/00000-job-00001.parquet", f->dir);
    assert_string_equal(out.locations[0], want);
    assert_string_equal(f->created[0], want);
    assert_int_equal(out.record_counts[0], 1000);
    assert_true(file_exists(want));

    uint8_t seen[1000] = {0};
    assert_int_equal(read_ids(want, seen, 1000), 1000);
    for (int i = 0; i < 1000; i++) assert_int_equal(seen[i], 1);

    floe_pq_file *pf = NULL;
    assert_ok(floe_pq_file_open_path(want, &pf));
    bool found = false;
    for (uint32_t i = 0; i < pf->meta->num_key_value_metadata; i++) {
        const floe_pq_key_value *kv = &pf->meta->key_value_metadata[i];
        if (strcmp(kv->key, "iceberg.schema") == 0) {
            found = true;
            floe_ice_schema *back = NULL;
            char *txt = strndup(kv->value, kv->value_len);
            assert_ok(floe_ice_schema_from_json_text(txt, &back));
            assert_true(floe_ice_schema_same_structure(back, f->schema));
            free(txt);
            floe_ice_schema_free(back);
        }
    }
    assert_true(found);
    assert_int_equal((int64_t)pf->size, out.file_sizes[0]);
    floe_pq_file_close(pf);

    floe_ice_type *pt = NULL;
    assert_ok(floe_ice_type_struct(&pt));
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_ice_data_file df;
    decode(f->s, pt, out.records[0], out.lens[0], &a, &df);
    assert_int_equal(df.content, FLOE_ICE_CONTENT_DATA);
    assert_string_equal(df.file_path, want);
    assert_string_equal(df.file_format, "PARQUET");
    assert_int_equal(df.record_count, 1000);
    assert_int_equal(df.file_size_in_bytes, out.file_sizes[0]);
    assert_int_equal(df.n_partition, 0);
    assert_true(df.has_sort_order_id);
    assert_int_equal(df.sort_order_id, 0);
    assert_int_equal(df.n_split_offsets, 1);
    assert_int_equal(df.split_offsets[0], 4);
    assert_int_equal(count_of(&df.value_counts, 1), 1000);
    assert_int_equal(count_of(&df.null_value_counts, 1), 0);
    assert_int_equal(count_of(&df.null_value_counts, 2), 100);
    assert_true(count_of(&df.column_sizes, 1) > 0);
    assert_int_equal(count_of(&df.nan_value_counts, 1), -1); /* only floats */
    uint32_t len = 0;
    const uint8_t *lo = bound_of(&df.lower_bounds, 1, &len);
    assert_non_null(lo);
    assert_int_equal(len, 8);
    int64_t v;
    memcpy(&v, lo, 8);
    assert_int_equal(v, 0);
    const uint8_t *hi = bound_of(&df.upper_bounds, 1, &len);
    memcpy(&v, hi, 8);
    assert_int_equal(v, 999);
    /* strings: "name-0" .. "name-999" fit in 16 code points: untouched */
    lo = bound_of(&df.lower_bounds, 2, &len);
    assert_int_equal(len, 6);
    assert_memory_equal(lo, "name-0", 6);
    hi = bound_of(&df.upper_bounds, 2, &len);
    assert_int_equal(len, 8);
    assert_memory_equal(hi, "name-999", 8);
    floe_arena_destroy(&a);
    floe_ice_type_free(pt);
    floe_ice_written_files_free(&out);
    fx_free(f);
}

static void rolling_makes_files_near_target_with_every_row_once(void **state) {
    (void)state;
    const char *props[] = {"write.target-file-size-bytes", "200000", "write.parquet.compression-codec",
                           "uncompressed", "write.parquet.page-size-bytes", "16384"};
    fixture *f = fx_new("dw_rolling", SCHEMA, NULL, props, 3);
    assert_int_equal(floe_ice_write_settings_target_file_size(f->s), 200000);
    floe_ice_rolling_writer *w = NULL;
    floe_ice_file_observer obs = {on_created, f};
    assert_ok(floe_ice_rolling_writer_open(f->io, &f->t, f->s, NULL, 0, "00007-abc", &obs, &w));
    const int64_t N = 200000;
    for (int64_t first = 0; first < N; first += 25000) {
        floe_batch *b = make_batch(f->s, first, 25000, -1);
        assert_ok(floe_ice_rolling_writer_write(w, b));
        floe_batch_release(b);
        assert_true(floe_ice_rolling_writer_buffered_bytes(w) >= 0);
    }
    floe_ice_written_files out = {0};
    assert_ok(floe_ice_rolling_writer_finish(w, &out));
    floe_ice_rolling_writer_free(w, false);
    assert_true(out.n >= 5);
    assert_int_equal(out.n, f->n_created);
    uint8_t *seen = calloc((size_t)N, 1);
    int64_t total = 0;
    for (int32_t i = 0; i < out.n; i++) {
        char want[2048];
        snprintf(want, sizeof want, "%s/data/00007-abc-%05d.parquet", f->dir, i + 1);
        assert_string_equal(out.locations[i], want);
        int64_t rows = read_ids(out.locations[i], seen, N);
        assert_int_equal(rows, out.record_counts[i]);
        total += rows;
        /* every file but the last is about the target size */
        if (i + 1 < out.n) {
            assert_true(out.file_sizes[i] >= 200000 * 7 / 10);
            assert_true(out.file_sizes[i] <= 200000 * 13 / 10);
        }
    }
    assert_int_equal(total, N);
    for (int64_t i = 0; i < N; i++) assert_int_equal(seen[i], 1);
    free(seen);
    floe_ice_written_files_free(&out);
    fx_free(f);
}

static void null_in_required_column_fails_and_abandon_deletes_every_file(void **state) {
    (void)state;
    const char *props[] = {"write.target-file-size-bytes", "20000"};
    fixture *f = fx_new("dw_required", SCHEMA, NULL, props, 1);
    floe_ice_rolling_writer *w = NULL;
    floe_ice_file_observer obs = {on_created, f};
    assert_ok(floe_ice_rolling_writer_open(f->io, &f->t, f->s, NULL, 0, "00001-x", &obs, &w));
    floe_batch *b = make_batch(f->s, 0, 20000, -1);
    assert_ok(floe_ice_rolling_writer_write(w, b));
    floe_batch_release(b);
    assert_ok(floe_ice_rolling_writer_flush(w));
    assert_true(f->n_created >= 2);
    int finished = 0;
    for (int i = 0; i < f->n_created; i++) finished += file_exists(f->created[i]);
    assert_true(finished >= 2);
    b = make_batch(f->s, 20000, 100, 20050);
    assert_error(floe_ice_rolling_writer_write(w, b), FLOE_ERR_CONSTRAINT, "NULL value in required column 'id'");
    floe_batch_release(b);
    floe_ice_rolling_writer_free(w, true);
    for (int i = 0; i < f->n_created; i++) assert_false(file_exists(f->created[i]));
    fx_free(f);
}

static void abandon_deletes_the_open_file_too(void **state) {
    (void)state;
    fixture *f = fx_new("dw_abandon_open", SCHEMA, NULL, NULL, 0);
    floe_ice_rolling_writer *w = NULL;
    floe_ice_file_observer obs = {on_created, f};
    assert_ok(floe_ice_rolling_writer_open(f->io, &f->t, f->s, NULL, 0, "00001-y", &obs, &w));
    floe_batch *b = make_batch(f->s, 0, 100, -1);
    assert_ok(floe_ice_rolling_writer_write(w, b));
    assert_ok(floe_ice_rolling_writer_flush(w));
    assert_ok(floe_ice_rolling_writer_write(w, b)); /* a second, open file */
    floe_batch_release(b);
    assert_int_equal(f->n_created, 2);
    assert_true(file_exists(f->created[0]));
    floe_ice_rolling_writer_free(w, true);
    assert_false(file_exists(f->created[0]));
    assert_false(file_exists(f->created[1]));
    fx_free(f);
}

static void partitioned_writer_puts_files_under_the_partition_path(void **state) {
    (void)state;
    const char *spec = "{\"spec-id\":3,\"fields\":["
                       "{\"source-id\":2,\"field-id\":1000,\"name\":\"name\",\"transform\":\"identity\"},"
                       "{\"source-id\":3,\"field-id\":1001,\"name\":\"d_month\",\"transform\":\"month\"}]}";
    fixture *f = fx_new("dw_partitioned", SCHEMA, spec, NULL, 0);
    floe_ice_value part[2] = {floe_ice_string_z("a b/c"), floe_ice_int(0)};
    floe_ice_rolling_writer *w = NULL;
    assert_ok(floe_ice_rolling_writer_open(f->io, &f->t, f->s, part, 2, "00002-j", NULL, &w));
    floe_batch *b = make_batch(f->s, 0, 10, -1);
    assert_ok(floe_ice_rolling_writer_write(w, b));
    floe_batch_release(b);
    floe_ice_written_files out = {0};
    assert_ok(floe_ice_rolling_writer_finish(w, &out));
    floe_ice_rolling_writer_free(w, false);
    char want[2048];
    snprintf(want, sizeof want, "%s/data/name=a+b%%2Fc/d_month=1970-01/00002-j-00001.parquet", f->dir);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.locations[0], want);
    assert_true(file_exists(want));

    floe_ice_type *pt = NULL;
    assert_ok(floe_ice_partition_spec_partition_type(f->spec, f->schema, false, &pt));
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_ice_data_file df;
    decode(f->s, pt, out.records[0], out.lens[0], &a, &df);
    /* spec_id is not part of the Avro record: the manifest carries it */
    assert_int_equal(df.n_partition, 2);
    assert_int_equal(df.partition_ids[0], 1000);
    assert_int_equal(df.partition_ids[1], 1001);
    assert_int_equal(df.partition[0].type, FLOE_ICE_STRING);
    assert_int_equal(df.partition[0].v.bytes.len, 5);
    assert_memory_equal(df.partition[0].v.bytes.data, "a b/c", 5);
    assert_int_equal(df.partition[1].v.i32, 0);
    floe_arena_destroy(&a);
    floe_ice_type_free(pt);
    floe_ice_written_files_free(&out);
    fx_free(f);
}

static void wrong_partition_value_type_is_refused(void **state) {
    (void)state;
    const char *spec = "{\"spec-id\":0,\"fields\":["
                       "{\"source-id\":3,\"field-id\":1000,\"name\":\"d_day\",\"transform\":\"day\"}]}";
    fixture *f = fx_new("dw_badpart", SCHEMA, spec, NULL, 0);
    floe_ice_value part[1] = {floe_ice_long(5)};
    floe_ice_rolling_writer *w = NULL;
    assert_error(floe_ice_rolling_writer_open(f->io, &f->t, f->s, part, 1, "p", NULL, &w), FLOE_ERR_TYPE,
                 "partition field 'd_day'");
    assert_error(floe_ice_rolling_writer_open(f->io, &f->t, f->s, part, 0, "p", NULL, &w), FLOE_ERR_INVALID_ARGUMENT,
                 "1 fields but 0 values");
    fx_free(f);
}

static void batch_with_trailing_partition_columns_writes_table_columns_only(void **state) {
    (void)state;
    fixture *f = fx_new("dw_trailing", SCHEMA, NULL, NULL, 0);
    floe_batch *b = make_batch(f->s, 0, 50, -1);
    int32_t idx[4] = {0, 1, 2, 2};
    floe_batch *wide = NULL;
    assert_ok(floe_batch_project(b, idx, 4, &wide));
    floe_ice_rolling_writer *w = NULL;
    assert_ok(floe_ice_rolling_writer_open(f->io, &f->t, f->s, NULL, 0, "00000-t", NULL, &w));
    assert_ok(floe_ice_rolling_writer_write(w, wide));
    floe_ice_written_files out = {0};
    assert_ok(floe_ice_rolling_writer_finish(w, &out));
    floe_ice_rolling_writer_free(w, false);
    floe_pq_reader *r = NULL;
    assert_ok(floe_pq_reader_open_path(out.locations[0], NULL, &r));
    assert_int_equal(floe_pq_reader_schema(r)->n_children, 3);
    floe_pq_reader_close(r);
    /* too few columns / wrong types are refused */
    int32_t two[2] = {0, 1};
    floe_batch *narrow = NULL;
    assert_ok(floe_batch_project(b, two, 2, &narrow));
    assert_ok(floe_ice_rolling_writer_open(f->io, &f->t, f->s, NULL, 0, "00000-u", NULL, &w));
    assert_error(floe_ice_rolling_writer_write(w, narrow), FLOE_ERR_TYPE, "2 columns");
    int32_t swapped[3] = {1, 0, 2};
    floe_batch *sw = NULL;
    assert_ok(floe_batch_project(b, swapped, 3, &sw));
    assert_error(floe_ice_rolling_writer_write(w, sw), FLOE_ERR_TYPE, "column 0 ('id')");
    floe_ice_rolling_writer_free(w, true);
    floe_batch_release(sw);
    floe_batch_release(narrow);
    floe_batch_release(wide);
    floe_batch_release(b);
    floe_ice_written_files_free(&out);
    fx_free(f);
}


static const char *NESTED =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"st\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":2,\"name\":\"x\",\"required\":true,\"type\":\"int\"}]}},"
    "{\"id\":3,\"name\":\"l\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":4,"
    "\"element-required\":true,\"element\":\"long\"}}]}";

/* Rows of (st, l); st_null/x_null/el_null pick which row gets which NULL. */
static floe_batch *nested_batch(const floe_schema *ws, int st_null_row, int x_null_row, int el_null_row) {
    /* The input's own schema is nullable all the way down. */
    floe_field xf, ef;
    assert_ok(floe_field_init(&xf, "x", floe_type_primitive(FLOE_TYPE_INT32), true, 2));
    assert_ok(floe_field_init(&ef, "element", floe_type_primitive(FLOE_TYPE_INT64), true, 4));
    floe_type *st = NULL, *lt = NULL;
    assert_ok(floe_type_struct(&xf, 1, &st));
    assert_ok(floe_type_list(&ef, &lt));
    floe_builder *bs, *bl;
    assert_ok(floe_builder_new(st, 4, &bs));
    assert_ok(floe_builder_new(lt, 4, &bl));
    for (int r = 0; r < 4; r++) {
        if (r == st_null_row) {
            assert_ok(floe_builder_append_null(bs));
        } else {
            if (r == x_null_row) assert_ok(floe_builder_append_null(floe_builder_child(bs, 0)));
            else assert_ok(floe_builder_append_int32(floe_builder_child(bs, 0), r));
            assert_ok(floe_builder_append_valid(bs));
        }
        assert_ok(floe_builder_append_int64(floe_builder_child(bl, 0), r));
        if (r == el_null_row) assert_ok(floe_builder_append_null(floe_builder_child(bl, 0)));
        assert_ok(floe_builder_append_list(bl));
    }
    floe_array *cols[2];
    assert_ok(floe_builder_finish(bs, &cols[0]));
    assert_ok(floe_builder_finish(bl, &cols[1]));
    floe_builder_free(bs);
    floe_builder_free(bl);
    floe_field top[2];
    assert_ok(floe_field_init(&top[0], "st", st, true, 1));
    assert_ok(floe_field_init(&top[1], "l", lt, true, 3));
    floe_schema *sc = NULL;
    assert_ok(floe_type_struct(top, 2, &sc));
    (void)ws;
    floe_batch *b = NULL;
    assert_ok(floe_batch_new(sc, cols, 2, 4, &b));
    floe_field_clear(&top[0]);
    floe_field_clear(&top[1]);
    floe_field_clear(&xf);
    floe_field_clear(&ef);
    floe_type_release(st);
    floe_type_release(lt);
    floe_type_release(sc);
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
    return b;
}

static void null_in_required_nested_field_is_refused_only_where_present(void **state) {
    (void)state;
    fixture *f = fx_new("dw_nested_required", NESTED, NULL, NULL, 0);
    floe_ice_rolling_writer *w = NULL;
    assert_ok(floe_ice_rolling_writer_open(f->io, &f->t, f->s, NULL, 0, "00000-n", NULL, &w));
    /* x is NULL only under a NULL struct: fine */
    floe_batch *b = nested_batch(NULL, 1, 1, -1);
    assert_ok(floe_ice_rolling_writer_write(w, b));
    floe_batch_release(b);
    floe_ice_written_files out = {0};
    assert_ok(floe_ice_rolling_writer_finish(w, &out));
    assert_int_equal(out.record_counts[0], 4);
    floe_ice_written_files_free(&out);
    floe_ice_rolling_writer_free(w, false);

    assert_ok(floe_ice_rolling_writer_open(f->io, &f->t, f->s, NULL, 0, "00000-o", NULL, &w));
    b = nested_batch(NULL, 1, 2, -1);
    assert_error(floe_ice_rolling_writer_write(w, b), FLOE_ERR_CONSTRAINT, "NULL value in required column 'st.x'");
    floe_batch_release(b);
    floe_ice_rolling_writer_free(w, true);

    assert_ok(floe_ice_rolling_writer_open(f->io, &f->t, f->s, NULL, 0, "00000-p", NULL, &w));
    b = nested_batch(NULL, -1, -1, 3);
    assert_error(floe_ice_rolling_writer_write(w, b), FLOE_ERR_CONSTRAINT,
                 "NULL value in required column 'l.element'");
    floe_batch_release(b);
    floe_ice_rolling_writer_free(w, true);
    fx_free(f);
}

static void object_storage_files_land_under_hash_directories(void **state) {
    (void)state;
    const char *props[] = {"write.object-storage.enabled", "true"};
    const char *spec = "{\"spec-id\":0,\"fields\":["
                       "{\"source-id\":2,\"field-id\":1000,\"name\":\"name\",\"transform\":\"identity\"}]}";
    fixture *f = fx_new("dw_object_store", SCHEMA, spec, props, 1);
    floe_ice_value part[1] = {floe_ice_null(FLOE_ICE_STRING)};
    floe_ice_rolling_writer *w = NULL;
    assert_ok(floe_ice_rolling_writer_open(f->io, &f->t, f->s, part, 1, "00004-q", NULL, &w));
    floe_batch *b = make_batch(f->s, 0, 10, -1);
    assert_ok(floe_ice_rolling_writer_write(w, b));
    floe_batch_release(b);
    floe_ice_written_files out = {0};
    assert_ok(floe_ice_rolling_writer_finish(w, &out));
    floe_ice_rolling_writer_free(w, false);
    /* <location>/data/bbbb/bbbb/bbbb/bbbbbbbb/name=null/00004-q-00001.parquet */
    char prefix[1100];
    snprintf(prefix, sizeof prefix, "%s/data/", f->dir);
    const char *l = out.locations[0];
    assert_int_equal(strncmp(l, prefix, strlen(prefix)), 0);
    const char *h = l + strlen(prefix);
    for (int i = 0; i < 23; i++) {
        if (i == 4 || i == 9 || i == 14) assert_int_equal(h[i], '/');
        else assert_true(h[i] == '0' || h[i] == '1');
    }
    assert_string_equal(h + 23, "/name=null/00004-q-00001.parquet");
    assert_true(file_exists(l));
    floe_ice_written_files_free(&out);
    fx_free(f);
}

static void records_follow_the_format_version(void **state) {
    (void)state;
    for (int v = 1; v <= 3; v++) {
        char name[64];
        snprintf(name, sizeof name, "dw_v%d", v);
        fixture *f = calloc(1, sizeof *f);
        floe_test_tmpdir(f->dir, sizeof f->dir, name);
        assert_ok(floe_ice_schema_from_json_text(SCHEMA, &f->schema));
        assert_ok(floe_fileio_new(NULL, 0, &f->io));
        f->t.location = f->dir;
        f->t.format_version = v;
        f->t.schema = f->schema;
        f->t.sort_order_id = 7;
        assert_ok(floe_ice_write_settings_new(&f->t, &f->s));
        floe_ice_rolling_writer *w = NULL;
        assert_ok(floe_ice_rolling_writer_open(f->io, &f->t, f->s, NULL, 0, "00000-v", NULL, &w));
        floe_batch *b = make_batch(f->s, 0, 10, -1);
        assert_ok(floe_ice_rolling_writer_write(w, b));
        floe_batch_release(b);
        floe_ice_written_files out = {0};
        assert_ok(floe_ice_rolling_writer_finish(w, &out));
        floe_ice_rolling_writer_free(w, false);
        floe_ice_type *pt = NULL;
        assert_ok(floe_ice_type_struct(&pt));
        floe_ice_data_file_codec *c = NULL;
        assert_ok(floe_ice_data_file_codec_new(pt, v, &c));
        floe_arena a;
        floe_arena_init(&a, 0);
        floe_ice_data_file df;
        assert_ok(floe_ice_data_file_decode(c, out.records[0], out.lens[0], &a, &df));
        assert_int_equal(df.record_count, 10);
        assert_true(df.has_sort_order_id);
        assert_int_equal(df.sort_order_id, 7);
        assert_false(df.has_first_row_id); /* the commit assigns row ids */
        floe_arena_destroy(&a);
        floe_ice_data_file_codec_free(c);
        floe_ice_type_free(pt);
        floe_ice_written_files_free(&out);
        fx_free(f);
    }
}

static void buffered_bytes_grow_until_flush(void **state) {
    (void)state;
    fixture *f = fx_new("dw_buffered", SCHEMA, NULL, NULL, 0);
    floe_ice_rolling_writer *w = NULL;
    assert_ok(floe_ice_rolling_writer_open(f->io, &f->t, f->s, NULL, 0, "00000-b", NULL, &w));
    assert_int_equal(floe_ice_rolling_writer_buffered_bytes(w), 0);
    assert_ok(floe_ice_rolling_writer_flush(w)); /* no file: no-op */
    floe_batch *b = make_batch(f->s, 0, 5000, -1);
    assert_ok(floe_ice_rolling_writer_write(w, b));
    floe_batch_release(b);
    assert_true(floe_ice_rolling_writer_buffered_bytes(w) > 1000);
    assert_ok(floe_ice_rolling_writer_flush(w));
    assert_int_equal(floe_ice_rolling_writer_buffered_bytes(w), 0);
    floe_ice_written_files out = {0};
    assert_ok(floe_ice_rolling_writer_finish(w, &out));
    assert_int_equal(out.n, 1);
    assert_int_equal(out.record_counts[0], 5000);
    floe_ice_rolling_writer_free(w, false);
    floe_ice_written_files_free(&out);
    fx_free(f);
}

typedef struct thread_arg {
    fixture *f;
    int index;
    floe_ice_written_files out;
} thread_arg;

static void *thread_writer(void *p) {
    thread_arg *a = p;
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%05d-mt", a->index);
    floe_ice_rolling_writer *w = NULL;
    floe_ice_value part[1] = {floe_ice_int(a->index)};
    assert_ok(floe_ice_rolling_writer_open(a->f->io, &a->f->t, a->f->s, part, 1, prefix, NULL, &w));
    for (int k = 0; k < 4; k++) {
        floe_batch *b = make_batch(a->f->s, (int64_t)a->index * 100000 + k * 5000, 5000, -1);
        assert_ok(floe_ice_rolling_writer_write(w, b));
        floe_batch_release(b);
    }
    assert_ok(floe_ice_rolling_writer_finish(w, &a->out));
    floe_ice_rolling_writer_free(w, false);
    return NULL;
}

static void writers_on_many_threads_share_one_settings(void **state) {
    (void)state;
    const char *spec = "{\"spec-id\":0,\"fields\":["
                       "{\"source-id\":1,\"field-id\":1000,\"name\":\"id_bucket\",\"transform\":\"bucket[8]\"}]}";
    const char *props[] = {"write.target-file-size-bytes", "60000"};
    fixture *f = fx_new("dw_threads", SCHEMA, spec, props, 1);
    thread_arg args[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (thread_arg){f, i, {0}};
        assert_int_equal(pthread_create(&th[i], NULL, thread_writer, &args[i]), 0);
    }
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    floe_ice_type *pt = NULL;
    assert_ok(floe_ice_partition_spec_partition_type(f->spec, f->schema, false, &pt));
    for (int i = 0; i < 4; i++) {
        int64_t rows = 0;
        assert_true(args[i].out.n >= 2);
        for (int32_t k = 0; k < args[i].out.n; k++) {
            char want[64];
            snprintf(want, sizeof want, "/data/id_bucket=%d/%05d-mt-%05d.parquet", i, i, k + 1);
            assert_non_null(strstr(args[i].out.locations[k], want));
            floe_arena a;
            floe_arena_init(&a, 0);
            floe_ice_data_file df;
            decode(f->s, pt, args[i].out.records[k], args[i].out.lens[k], &a, &df);
            assert_int_equal(df.partition[0].v.i32, i);
            rows += df.record_count;
            floe_arena_destroy(&a);
        }
        assert_int_equal(rows, 20000);
        floe_ice_written_files_free(&args[i].out);
    }
    floe_ice_type_free(pt);
    fx_free(f);
}

FLOE_TEST_MAIN(cmocka_unit_test(unpartitioned_file_has_ids_schema_footer_and_record),
               cmocka_unit_test(rolling_makes_files_near_target_with_every_row_once),
               cmocka_unit_test(null_in_required_column_fails_and_abandon_deletes_every_file),
               cmocka_unit_test(abandon_deletes_the_open_file_too),
               cmocka_unit_test(partitioned_writer_puts_files_under_the_partition_path),
               cmocka_unit_test(wrong_partition_value_type_is_refused),
               cmocka_unit_test(batch_with_trailing_partition_columns_writes_table_columns_only),
               cmocka_unit_test(null_in_required_nested_field_is_refused_only_where_present),
               cmocka_unit_test(object_storage_files_land_under_hash_directories),
               cmocka_unit_test(records_follow_the_format_version),
               cmocka_unit_test(buffered_bytes_grow_until_flush),
               cmocka_unit_test(writers_on_many_threads_share_one_settings))

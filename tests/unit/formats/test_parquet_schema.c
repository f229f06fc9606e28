/* Parquet schema building: physical + logical types map to engine kinds,
 * LIST and MAP layouts (standard, legacy and malformed-but-tolerated) give
 * the right logical shape and levels, malformed trees are rejected with the
 * element named, and lookups by path and field id work. */
#include "floe_test.h"

#include "floe/memory.h"
#include "formats/parquet/file.h"

#define PQT "apache__parquet-testing"

#define NOREP (-1)

static floe_pq_schema_element group(const char *name, int rep, int nchildren) {
    floe_pq_schema_element e;
    memset(&e, 0, sizeof e);
    e.name = name;
    e.has_repetition = rep != NOREP;
    e.repetition = rep == NOREP ? FLOE_PQ_REQUIRED : (floe_pq_repetition)rep;
    e.has_num_children = true;
    e.num_children = nchildren;
    e.converted_type = FLOE_PQ_CT_NONE;
    return e;
}

static floe_pq_schema_element leaf(const char *name, int rep, floe_pq_type t) {
    floe_pq_schema_element e;
    memset(&e, 0, sizeof e);
    e.name = name;
    e.has_repetition = true;
    e.repetition = (floe_pq_repetition)rep;
    e.has_type = true;
    e.type = t;
    e.converted_type = FLOE_PQ_CT_NONE;
    return e;
}

static floe_pq_schema_element fixed(const char *name, int len) {
    floe_pq_schema_element e = leaf(name, FLOE_PQ_OPTIONAL, FLOE_PQ_FIXED_LEN_BYTE_ARRAY);
    e.has_type_length = true;
    e.type_length = len;
    return e;
}

static floe_pq_schema_element with_lt(floe_pq_schema_element e, floe_pq_logical_kind k) {
    e.logical.kind = k;
    e.logical.raw_id = (int16_t)k;
    return e;
}

static floe_pq_schema_element with_ct(floe_pq_schema_element e, floe_pq_converted_type ct) {
    e.converted_type = ct;
    return e;
}

static floe_pq_schema_element with_id(floe_pq_schema_element e, int32_t id) {
    e.has_field_id = true;
    e.field_id = id;
    return e;
}

static floe_status build(floe_pq_schema_element *els, uint32_t n, floe_pq_schema **out) {
    floe_pq_file_metadata md;
    memset(&md, 0, sizeof md);
    md.schema = els;
    md.num_schema = n;
    return floe_pq_schema_build(&md, out);
}

#define N(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

static void logical_and_converted_types_map_to_engine_kinds(void **state) {
    (void)state;
    floe_pq_schema_element e[] = {
        group("root", NOREP, 23),
        leaf("i8", 1, FLOE_PQ_INT32),
        leaf("u16", 1, FLOE_PQ_INT32),
        leaf("u64", 1, FLOE_PQ_INT64),
        with_lt(leaf("date", 1, FLOE_PQ_INT32), FLOE_PQ_LT_DATE),
        with_lt(leaf("tms", 1, FLOE_PQ_INT32), FLOE_PQ_LT_TIME),
        with_lt(leaf("tns", 1, FLOE_PQ_INT64), FLOE_PQ_LT_TIME),
        with_lt(leaf("tsus", 1, FLOE_PQ_INT64), FLOE_PQ_LT_TIMESTAMP),
        with_lt(leaf("tsns", 1, FLOE_PQ_INT64), FLOE_PQ_LT_TIMESTAMP),
        with_ct(leaf("tsms_legacy", 1, FLOE_PQ_INT64), FLOE_PQ_CT_TIMESTAMP_MILLIS),
        with_ct(leaf("u8_legacy", 1, FLOE_PQ_INT32), FLOE_PQ_CT_UINT_8),
        with_ct(leaf("i16_legacy", 1, FLOE_PQ_INT32), FLOE_PQ_CT_INT_16),
        with_lt(leaf("str", 1, FLOE_PQ_BYTE_ARRAY), FLOE_PQ_LT_STRING),
        with_lt(leaf("enum", 1, FLOE_PQ_BYTE_ARRAY), FLOE_PQ_LT_ENUM),
        with_lt(leaf("json", 1, FLOE_PQ_BYTE_ARRAY), FLOE_PQ_LT_JSON),
        with_lt(leaf("bson", 1, FLOE_PQ_BYTE_ARRAY), FLOE_PQ_LT_BSON),
        with_ct(leaf("utf8_legacy", 1, FLOE_PQ_BYTE_ARRAY), FLOE_PQ_CT_UTF8),
        with_lt(fixed("uuid", 16), FLOE_PQ_LT_UUID),
        with_lt(fixed("half", 2), FLOE_PQ_LT_FLOAT16),
        with_lt(fixed("dec", 9), FLOE_PQ_LT_DECIMAL),
        with_ct(leaf("dec_legacy", 1, FLOE_PQ_INT64), FLOE_PQ_CT_DECIMAL),
        leaf("int96", 1, FLOE_PQ_INT96),
        with_lt(leaf("misfit", 1, FLOE_PQ_INT32), FLOE_PQ_LT_STRING),
        with_lt(leaf("nothing", 1, FLOE_PQ_INT32), FLOE_PQ_LT_UNKNOWN),
    };
    e[1] = with_lt(e[1], FLOE_PQ_LT_INTEGER);
    e[1].logical.bit_width = 8;
    e[1].logical.is_signed = true;
    e[2] = with_lt(e[2], FLOE_PQ_LT_INTEGER);
    e[2].logical.bit_width = 16;
    e[3] = with_lt(e[3], FLOE_PQ_LT_INTEGER);
    e[3].logical.bit_width = 64;
    e[5].logical.unit = FLOE_PQ_UNIT_MILLIS;
    e[5].logical.utc = true;
    e[6].logical.unit = FLOE_PQ_UNIT_NANOS;
    e[7].logical.unit = FLOE_PQ_UNIT_MICROS;
    e[7].logical.utc = true;
    e[8].logical.unit = FLOE_PQ_UNIT_NANOS;
    e[19].logical.precision = 20;
    e[19].logical.scale = 3;
    e[20].has_precision = e[20].has_scale = true;
    e[20].precision = 18;
    e[20].scale = 2;
    static const floe_pq_kind want[] = {
        FLOE_PQ_KIND_INT8, FLOE_PQ_KIND_UINT16, FLOE_PQ_KIND_UINT64, FLOE_PQ_KIND_DATE,
        FLOE_PQ_KIND_TIME_MS, FLOE_PQ_KIND_TIME_NS, FLOE_PQ_KIND_TIMESTAMP_US,
        FLOE_PQ_KIND_TIMESTAMP_NS, FLOE_PQ_KIND_TIMESTAMP_MS, FLOE_PQ_KIND_UINT8,
        FLOE_PQ_KIND_INT16, FLOE_PQ_KIND_STRING, FLOE_PQ_KIND_STRING, FLOE_PQ_KIND_STRING,
        FLOE_PQ_KIND_BINARY, FLOE_PQ_KIND_STRING, FLOE_PQ_KIND_UUID, FLOE_PQ_KIND_FLOAT16,
        FLOE_PQ_KIND_DECIMAL, FLOE_PQ_KIND_DECIMAL, FLOE_PQ_KIND_TIMESTAMP_NS,
        FLOE_PQ_KIND_INT32, FLOE_PQ_KIND_NULL};
    static const bool utc[] = {0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0,
                               0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0};
    floe_pq_schema *s;
    assert_ok(build(e, N(e), &s));
    assert_int_equal(floe_pq_schema_num_columns(s), 23);
    for (int i = 0; i < 23; i++) {
        const floe_pq_column *c = floe_pq_schema_column(s, i);
        if (c->kind != want[i])
            fail_msg("%s: kind %s, want %s", c->path, floe_pq_kind_name(c->kind),
                     floe_pq_kind_name(want[i]));
        if (c->utc != utc[i]) fail_msg("%s: utc %d", c->path, c->utc);
        /* STRING on INT32 does not fit: marked, never read as an int32. */
        if ((c->invalid != NULL) != (strcmp(c->path, "misfit") == 0)) fail_msg("%s: invalid '%s'", c->path, c->invalid);
        assert_ptr_equal(c->field->column, c);
    }
    const floe_pq_column *dec = floe_pq_schema_find_column(s, "dec");
    assert_int_equal(dec->precision, 20);
    assert_int_equal(dec->scale, 3);
    assert_int_equal(dec->type_length, 9);
    dec = floe_pq_schema_find_column(s, "dec_legacy");
    assert_int_equal(dec->precision, 18);
    assert_int_equal(dec->scale, 2);
    floe_pq_schema_free(s);
}

/* Impossible decimals build (the file's other columns stay readable), but
 * the column is marked invalid, naming the annotation; reading it fails. */
static void invalid_decimals_are_marked(void **state) {
    (void)state;
    floe_pq_schema_element e[] = {group("root", NOREP, 1),
                                  with_lt(leaf("d", 1, FLOE_PQ_INT32), FLOE_PQ_LT_DECIMAL)};
    static const struct {
        int p, s;
        const char *want;
    } cases[] = {{0, 0, "annotation DECIMAL(0,0): precision 0"},
                 {4, 5, "annotation DECIMAL(4,5): scale 5 exceeds precision 4"},
                 {10, 0, "annotation DECIMAL(10,0): precision 10 is too large for INT32"}};
    for (int i = 0; i < 3; i++) {
        e[1].logical.precision = cases[i].p;
        e[1].logical.scale = cases[i].s;
        floe_pq_schema *s;
        assert_ok(build(e, N(e), &s));
        const floe_pq_column *c = floe_pq_schema_column(s, 0);
        assert_non_null(c->invalid);
        if (!strstr(c->invalid, cases[i].want)) fail_msg("got '%s', want '%s'", c->invalid, cases[i].want);
        assert_int_equal(c->kind, FLOE_PQ_KIND_INT32);
        floe_pq_schema_free(s);
    }
}

static void malformed_trees_are_rejected(void **state) {
    (void)state;
    floe_pq_schema *s;
    floe_pq_schema_element too_many[] = {group("root", NOREP, 3), leaf("a", 0, FLOE_PQ_INT32),
                                         leaf("b", 0, FLOE_PQ_INT32)};
    assert_error(build(too_many, N(too_many), &s), FLOE_ERR_CORRUPT,
                 "schema element 0 ('root'): num_children exceeds");
    floe_pq_schema_element extra[] = {group("root", NOREP, 1), leaf("a", 0, FLOE_PQ_INT32),
                                      leaf("b", 0, FLOE_PQ_INT32)};
    assert_error(build(extra, N(extra), &s), FLOE_ERR_CORRUPT,
                 "schema element 2 ('b'): follows the root's last child");
    floe_pq_schema_element missing[] = {group("root", NOREP, 2), group("g", 0, 2),
                                        leaf("a", 0, FLOE_PQ_INT32), leaf("b", 0, FLOE_PQ_INT32)};
    assert_error(build(missing, N(missing), &s), FLOE_ERR_CORRUPT,
                 "'root'): fewer children follow");
    floe_pq_schema_element rep_root[] = {group("root", FLOE_PQ_REPEATED, 1),
                                         leaf("a", 0, FLOE_PQ_INT32)};
    assert_error(build(rep_root, N(rep_root), &s), FLOE_ERR_CORRUPT, "root cannot be repeated");
    floe_pq_schema_element untyped[] = {group("root", NOREP, 1), leaf("a", 0, FLOE_PQ_INT32)};
    untyped[1].has_type = false;
    assert_error(build(untyped, N(untyped), &s), FLOE_ERR_CORRUPT,
                 "'a'): has neither a type nor children");
    floe_pq_schema_element negative[] = {group("root", NOREP, 1), group("g", 0, -1)};
    assert_error(build(negative, N(negative), &s), FLOE_ERR_CORRUPT, "negative num_children");
    floe_pq_schema_element nolen[] = {group("root", NOREP, 1), fixed("f", 0)};
    assert_error(build(nolen, N(nolen), &s), FLOE_ERR_CORRUPT, "without a positive type_length");
    assert_error(build(NULL, 0, &s), FLOE_ERR_CORRUPT, "schema is empty");
    floe_pq_schema_element leaf_root[] = {leaf("root", 0, FLOE_PQ_INT32)};
    assert_error(build(leaf_root, 1, &s), FLOE_ERR_CORRUPT, "root must be a group");

    floe_pq_schema_element list2[] = {
        group("root", NOREP, 1), with_ct(group("l", 1, 2), FLOE_PQ_CT_LIST),
        leaf("a", 2, FLOE_PQ_INT32), leaf("b", 2, FLOE_PQ_INT32)};
    assert_error(build(list2, N(list2), &s), FLOE_ERR_CORRUPT,
                 "'l'): LIST group must have exactly one child");
    floe_pq_schema_element list_norep[] = {
        group("root", NOREP, 1), with_lt(group("l", 1, 1), FLOE_PQ_LT_LIST),
        leaf("a", 1, FLOE_PQ_INT32)};
    assert_error(build(list_norep, N(list_norep), &s), FLOE_ERR_CORRUPT, "is not repeated");
    floe_pq_schema_element map3[] = {
        group("root", NOREP, 1), with_lt(group("m", 1, 1), FLOE_PQ_LT_MAP),
        group("key_value", 2, 3), leaf("key", 0, FLOE_PQ_INT32), leaf("value", 1, FLOE_PQ_INT32),
        leaf("extra", 1, FLOE_PQ_INT32)};
    assert_error(build(map3, N(map3), &s), FLOE_ERR_CORRUPT, "must have a key and a value");

    /* 300 nested groups. */
    floe_pq_schema_element *deep = floe_calloc(301, sizeof *deep);
    deep[0] = group("root", NOREP, 1);
    for (int i = 1; i < 300; i++) deep[i] = group("g", 1, 1);
    deep[300] = leaf("x", 1, FLOE_PQ_INT32);
    assert_error(build(deep, 301, &s), FLOE_ERR_UNSUPPORTED, "nesting deeper than 128");
    floe_free(deep);
}

/* The single child of a LIST field. */
static const floe_pq_field *element_of(const floe_pq_field *f) {
    assert_int_equal(f->kind, FLOE_PQ_KIND_LIST);
    assert_int_equal(f->num_children, 1);
    return f->children[0];
}

static void list_layouts_follow_the_compatibility_rules(void **state) {
    (void)state;
    floe_pq_schema_element e[] = {
        group("root", NOREP, 6),
        /* 0: standard 3-level */
        with_lt(group("std", 1, 1), FLOE_PQ_LT_LIST),
        group("list", 2, 1),
        leaf("element", 1, FLOE_PQ_INT32),
        /* 1: 2-level, repeated primitive */
        with_ct(group("two", 0, 1), FLOE_PQ_CT_LIST),
        leaf("two_elem", 2, FLOE_PQ_INT32),
        /* 2: single-field group named "array" is the element */
        with_ct(group("arr", 1, 1), FLOE_PQ_CT_LIST),
        group("array", 2, 1),
        leaf("x", 0, FLOE_PQ_INT32),
        /* 3: "<name>_tuple" is the element */
        with_ct(group("tup", 1, 1), FLOE_PQ_CT_LIST),
        group("tup_tuple", 2, 1),
        leaf("y", 0, FLOE_PQ_INT32),
        /* 4: a repeated group with two fields is the element */
        with_ct(group("rec", 1, 1), FLOE_PQ_CT_LIST),
        group("item", 2, 2),
        leaf("p", 0, FLOE_PQ_INT32),
        leaf("q", 1, FLOE_PQ_INT32),
        /* 5: MAP_KEY_VALUE on the outer group still means a map */
        with_ct(group("m", 1, 1), FLOE_PQ_CT_MAP_KEY_VALUE),
        group("map", 2, 2),
        with_ct(leaf("key", 0, FLOE_PQ_BYTE_ARRAY), FLOE_PQ_CT_UTF8),
        leaf("value", 1, FLOE_PQ_INT32),
    };
    floe_pq_schema *s;
    assert_ok(build(e, N(e), &s));
    const floe_pq_field *root = floe_pq_schema_root(s);
    assert_int_equal(root->num_children, 6);

    const floe_pq_field *f = root->children[0], *el;
    assert_true(f->nullable);
    assert_int_equal(f->def_level, 1);
    assert_int_equal(f->elem_def_level, 2);
    assert_int_equal(f->elem_rep_level, 1);
    el = element_of(f);
    assert_string_equal(el->name, "element");
    assert_int_equal(el->kind, FLOE_PQ_KIND_INT32);
    assert_true(el->nullable);
    assert_int_equal(el->def_level, 3);
    assert_int_equal(el->column->max_def_level, 3);
    assert_int_equal(el->column->max_rep_level, 1);

    f = root->children[1];
    assert_false(f->nullable);
    el = element_of(f);
    assert_int_equal(el->kind, FLOE_PQ_KIND_INT32);
    assert_false(el->nullable);
    assert_int_equal(el->def_level, 1);

    for (int i = 2; i <= 3; i++) {
        el = element_of(root->children[i]);
        assert_int_equal(el->kind, FLOE_PQ_KIND_STRUCT);
        assert_false(el->nullable);
        assert_int_equal(el->num_children, 1);
    }
    el = element_of(root->children[4]);
    assert_int_equal(el->kind, FLOE_PQ_KIND_STRUCT);
    assert_int_equal(el->num_children, 2);
    assert_string_equal(el->children[1]->name, "q");

    f = root->children[5];
    assert_int_equal(f->kind, FLOE_PQ_KIND_MAP);
    assert_int_equal(f->num_children, 2);
    assert_int_equal(f->children[0]->kind, FLOE_PQ_KIND_STRING);
    assert_false(f->children[0]->nullable);
    assert_true(f->children[1]->nullable);
    assert_int_equal(f->elem_def_level, 2);
    assert_int_equal(f->children[1]->def_level, 3);
    floe_pq_schema_free(s);
}

static void lookups_by_path_and_field_id(void **state) {
    (void)state;
    floe_pq_schema_element e[] = {
        group("root", NOREP, 3),
        with_id(leaf("id", 0, FLOE_PQ_INT64), 1),
        with_id(with_lt(group("tags", 1, 1), FLOE_PQ_LT_LIST), 2),
        group("list", 2, 1),
        with_id(with_lt(leaf("element", 1, FLOE_PQ_BYTE_ARRAY), FLOE_PQ_LT_STRING), 5),
        with_id(group("point", 1, 2), 3),
        with_id(leaf("x", 0, FLOE_PQ_DOUBLE), 6),
        with_id(leaf("y", 0, FLOE_PQ_DOUBLE), 4),
    };
    floe_pq_schema *s;
    assert_ok(build(e, N(e), &s));
    const floe_pq_column *c = floe_pq_schema_find_column(s, "tags.list.element");
    assert_non_null(c);
    assert_int_equal(c->index, 1);
    assert_int_equal(c->path_len, 3);
    assert_string_equal(c->path_parts[1], "list");
    assert_ptr_equal(floe_pq_schema_find_column(s, "point.y"), floe_pq_schema_column(s, 3));
    assert_null(floe_pq_schema_find_column(s, "point"));
    assert_null(floe_pq_schema_find_column(s, "tags"));

    const floe_pq_field *f = floe_pq_schema_find_field_id(s, 2);
    assert_non_null(f);
    assert_string_equal(f->name, "tags");
    assert_int_equal(f->kind, FLOE_PQ_KIND_LIST);
    f = floe_pq_schema_find_field_id(s, 5);
    assert_int_equal(f->kind, FLOE_PQ_KIND_STRING);
    assert_string_equal(f->parent->name, "tags");
    f = floe_pq_schema_find_field_id(s, 3);
    assert_int_equal(f->kind, FLOE_PQ_KIND_STRUCT);
    assert_null(floe_pq_schema_find_field_id(s, 99));
    assert_ptr_equal(floe_pq_schema_find_column_by_field_id(s, 4), floe_pq_schema_column(s, 3));
    assert_ptr_equal(floe_pq_schema_find_column_by_field_id(s, 1), floe_pq_schema_column(s, 0));
    assert_null(floe_pq_schema_find_column_by_field_id(s, 2)); /* a group, not a leaf */
    floe_pq_schema_free(s);
}

static floe_pq_file *open_testfile(const char *rel) {
    const char *dir = floe_testdata_dir();
    char path[4096];
    floe_test_path(path, sizeof path, dir, rel);
    floe_pq_file *f = NULL;
    assert_ok(floe_pq_file_open_path(path, &f));
    return f;
}

static void real_files_with_legacy_nesting_have_the_right_shape(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    (void)dir;
    /* required group a (LIST) { repeated group array (LIST) { repeated int32 array } } */
    floe_pq_file *f = open_testfile(PQT "/data/old_list_structure.parquet");
    const floe_pq_field *a = floe_pq_schema_root(f->schema)->children[0];
    const floe_pq_field *inner = element_of(a);
    assert_int_equal(inner->kind, FLOE_PQ_KIND_LIST);
    assert_false(inner->nullable);
    const floe_pq_field *x = element_of(inner);
    assert_int_equal(x->kind, FLOE_PQ_KIND_INT32);
    assert_int_equal(x->column->max_def_level, 2);
    assert_int_equal(x->column->max_rep_level, 2);
    floe_pq_file_close(f);

    /* repeated primitives without LIST: required lists of required values */
    f = open_testfile(PQT "/data/repeated_primitive_no_list.parquet");
    const floe_pq_field *root = floe_pq_schema_root(f->schema);
    assert_int_equal(root->num_children, 3);
    assert_false(root->children[0]->nullable);
    assert_int_equal(element_of(root->children[0])->kind, FLOE_PQ_KIND_INT32);
    assert_int_equal(element_of(root->children[1])->kind, FLOE_PQ_KIND_STRING);
    assert_int_equal(root->children[2]->kind, FLOE_PQ_KIND_STRUCT);
    assert_int_equal(element_of(root->children[2]->children[0])->kind, FLOE_PQ_KIND_INT32);
    floe_pq_file_close(f);

    /* a MAP without values is a list of its keys */
    f = open_testfile(PQT "/data/map_no_value.parquet");
    root = floe_pq_schema_root(f->schema);
    assert_int_equal(root->children[0]->kind, FLOE_PQ_KIND_MAP);
    assert_int_equal(root->children[1]->kind, FLOE_PQ_KIND_LIST);
    assert_string_equal(element_of(root->children[1])->name, "key");
    assert_int_equal(root->children[2]->kind, FLOE_PQ_KIND_LIST);
    floe_pq_file_close(f);

    /* optional map keys (Presto) are tolerated */
    f = open_testfile(PQT "/data/incorrect_map_schema.parquet");
    const floe_pq_field *m = floe_pq_schema_root(f->schema)->children[0];
    assert_int_equal(m->kind, FLOE_PQ_KIND_MAP);
    assert_true(m->children[0]->nullable);
    assert_int_equal(m->children[0]->kind, FLOE_PQ_KIND_STRING);
    floe_pq_file_close(f);

    /* three nested standard lists */
    f = open_testfile(PQT "/data/nested_lists.snappy.parquet");
    const floe_pq_field *l = floe_pq_schema_root(f->schema)->children[0];
    for (int depth = 0; depth < 3; depth++) l = element_of(l);
    assert_int_equal(l->kind, FLOE_PQ_KIND_STRING);
    assert_int_equal(l->column->max_def_level, 7);
    assert_int_equal(l->column->max_rep_level, 3);
    floe_pq_file_close(f);
}

/* A file written by Arrow for an Iceberg table: ids on every field, a map. */
static void iceberg_written_file_resolves_field_ids(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    (void)dir;
    floe_pq_file *f = open_testfile(
        "duckdb__duckdb-iceberg/data/persistent/map_stats/default.db/map_stats/data/"
        "_day=2026-01-01/00000-0-8ed9efb3-5eb4-4225-a66a-2b6b46cb4d32.parquet");
    const floe_pq_schema *s = f->schema;
    const floe_pq_column *ts = floe_pq_schema_find_column_by_field_id(s, 1);
    assert_non_null(ts);
    assert_string_equal(ts->path, "timestamp");
    assert_int_equal(ts->kind, FLOE_PQ_KIND_TIMESTAMP_US);
    assert_true(ts->utc);
    const floe_pq_field *m = floe_pq_schema_find_field_id(s, 4);
    assert_int_equal(m->kind, FLOE_PQ_KIND_MAP);
    assert_ptr_equal(floe_pq_schema_find_field_id(s, 5), m->children[0]);
    assert_ptr_equal(floe_pq_schema_find_field_id(s, 6), m->children[1]);
    const floe_pq_column *v = floe_pq_schema_find_column(s, "metadata.key_value.value");
    assert_ptr_equal(v, floe_pq_schema_find_column_by_field_id(s, 6));
    assert_int_equal(v->max_def_level, 3);
    assert_int_equal(v->max_rep_level, 1);
    assert_ptr_equal(v->field, m->children[1]);
    floe_pq_file_close(f);
}

static void statistics_bounds_respect_the_column_order(void **state) {
    (void)state;
    floe_pq_schema_element e[] = {
        group("root", NOREP, 3),
        leaf("i", 1, FLOE_PQ_INT32),
        with_lt(leaf("s", 1, FLOE_PQ_BYTE_ARRAY), FLOE_PQ_LT_STRING),
        leaf("u", 1, FLOE_PQ_INT32),
    };
    e[3] = with_ct(e[3], FLOE_PQ_CT_UINT_32);
    floe_pq_schema *s;
    assert_ok(build(e, N(e), &s));
    const floe_pq_bytes *mn, *mx;
    floe_pq_statistics st;
    memset(&st, 0, sizeof st);
    assert_false(floe_pq_column_stats_bounds(floe_pq_schema_column(s, 0), &st, &mn, &mx));
    /* Legacy pair: trusted for signed ints only. */
    st.min = (floe_pq_bytes){(const uint8_t *)"\x01\0\0\0", 4, true};
    st.max = (floe_pq_bytes){(const uint8_t *)"\x09\0\0\0", 4, true};
    assert_true(floe_pq_column_stats_bounds(floe_pq_schema_column(s, 0), &st, &mn, &mx));
    assert_ptr_equal(mn, &st.min);
    assert_false(floe_pq_column_stats_bounds(floe_pq_schema_column(s, 1), &st, &mn, &mx));
    assert_false(floe_pq_column_stats_bounds(floe_pq_schema_column(s, 2), &st, &mn, &mx));
    /* ... or when min == max, whatever the order. */
    st.max = st.min;
    assert_true(floe_pq_column_stats_bounds(floe_pq_schema_column(s, 1), &st, &mn, &mx));
    /* min_value/max_value always win. */
    st.min_value = (floe_pq_bytes){(const uint8_t *)"a", 1, true};
    st.max_value = (floe_pq_bytes){(const uint8_t *)"z", 1, true};
    assert_true(floe_pq_column_stats_bounds(floe_pq_schema_column(s, 1), &st, &mn, &mx));
    assert_ptr_equal(mx, &st.max_value);
    floe_pq_schema_free(s);
}

FLOE_TEST_MAIN(cmocka_unit_test(statistics_bounds_respect_the_column_order),
               cmocka_unit_test(iceberg_written_file_resolves_field_ids),
               cmocka_unit_test(logical_and_converted_types_map_to_engine_kinds),
               cmocka_unit_test(invalid_decimals_are_marked),
               cmocka_unit_test(malformed_trees_are_rejected),
               cmocka_unit_test(list_layouts_follow_the_compatibility_rules),
               cmocka_unit_test(lookups_by_path_and_field_id),
               cmocka_unit_test(real_files_with_legacy_nesting_have_the_right_shape))

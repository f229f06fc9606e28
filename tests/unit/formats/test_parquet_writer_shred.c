/* Parquet writer internals: the schema it derives, record shredding into
 * definition/repetition levels (levels computed by hand from the Dremel
 * rules), and statistics/truncation. */
#include <math.h>

#include "floe_test.h"
#include "floe/columnar.h"
#include "formats/parquet/writer_internal.h"

/* ------------------------------------------------------------ helpers */

static floe_field fld(const char *name, floe_type *t, bool nullable, int32_t id) {
    floe_field f = {(char *)name, t, nullable, id};
    return f;
}

static floe_schema *schema1(floe_field f) {
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(&f, 1, &s));
    return s;
}

/* Shred all rows of column 0 for leaf `leaf` and compare with expectations
 * (rep may be NULL when the leaf is not repeated; slots may be NULL). */
static void check_levels(floe_schema *s, const floe_array *col, int leaf, int64_t row0,
                         int64_t nrows, const int16_t *def, const int16_t *rep, int64_t n,
                         const int64_t *slots, int64_t nv) {
    pqw_schema ps;
    assert_ok(pqw_schema_build(s, &ps));
    pqw_levels lv;
    pqw_levels_init(&lv);
    assert_ok(pqw_shred(&ps.leaves[leaf], col, row0, nrows, &lv));
    assert_int_equal(lv.n, n);
    for (int64_t i = 0; i < n; i++) {
        if (ps.leaves[leaf].max_def > 0 && lv.def[i] != def[i])
            fail_msg("def[%lld] = %d, want %d", (long long)i, lv.def[i], def[i]);
        if (rep && lv.rep[i] != rep[i])
            fail_msg("rep[%lld] = %d, want %d", (long long)i, lv.rep[i], rep[i]);
    }
    assert_int_equal(lv.n_values, nv);
    for (int64_t i = 0; slots && i < nv; i++) assert_int_equal(lv.slots[i], slots[i]);
    pqw_levels_free(&lv);
    pqw_schema_free(&ps);
}

/* ------------------------------------------------------------ schema */

static void schema_gives_three_level_lists_maps_and_field_ids(void **state) {
    (void)state;
    floe_type *l = NULL, *m = NULL;
    floe_field e = fld("item", floe_type_primitive(FLOE_TYPE_STRING), true, 11);
    assert_ok(floe_type_list(&e, &l));
    floe_field k = fld("k", floe_type_primitive(FLOE_TYPE_INT32), false, 13);
    floe_field v = fld("v", floe_type_primitive(FLOE_TYPE_FLOAT64), true, 14);
    assert_ok(floe_type_map(&k, &v, false, &m));
    floe_field f[2] = {fld("tags", l, false, 10), fld("props", m, true, 12)};
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(f, 2, &s));
    pqw_schema ps;
    assert_ok(pqw_schema_build(s, &ps));
    const char *names[] = {"schema", "tags", "list", "element", "props", "key_value", "key",
                           "value"};
    const int32_t ids[] = {-1, 10, -1, 11, 12, -1, 13, 14};
    const int reps[] = {-1, FLOE_PQ_REQUIRED, FLOE_PQ_REPEATED, FLOE_PQ_OPTIONAL,
                        FLOE_PQ_OPTIONAL, FLOE_PQ_REPEATED, FLOE_PQ_REQUIRED, FLOE_PQ_OPTIONAL};
    assert_int_equal(ps.n_elements, 8);
    for (int i = 0; i < 8; i++) {
        const floe_pq_schema_element *el = &ps.elements[i];
        assert_string_equal(el->name, names[i]);
        assert_int_equal(el->has_field_id ? el->field_id : -1, ids[i]);
        if (reps[i] >= 0) assert_int_equal(el->repetition, reps[i]);
    }
    assert_int_equal(ps.elements[1].converted_type, FLOE_PQ_CT_LIST);
    assert_int_equal(ps.elements[1].logical.kind, FLOE_PQ_LT_LIST);
    assert_int_equal(ps.elements[4].converted_type, FLOE_PQ_CT_MAP);
    assert_int_equal(ps.elements[3].logical.kind, FLOE_PQ_LT_STRING);
    assert_int_equal(ps.n_leaves, 3);
    assert_string_equal(ps.leaves[0].dotted, "tags.list.element");
    assert_int_equal(ps.leaves[0].max_def, 2);
    assert_int_equal(ps.leaves[0].max_rep, 1);
    assert_string_equal(ps.leaves[2].dotted, "props.key_value.value");
    assert_int_equal(ps.leaves[2].max_def, 3);
    assert_int_equal(ps.leaves[1].max_def, 2);
    pqw_schema_free(&ps);
    floe_type_release(s);
    floe_type_release(l);
    floe_type_release(m);
}

static void decimals_use_int32_int64_or_minimal_fixed_bytes(void **state) {
    (void)state;
    const int32_t prec[] = {1, 9, 10, 18, 19, 28, 38};
    const int32_t phys[] = {FLOE_PQ_INT32, FLOE_PQ_INT32, FLOE_PQ_INT64, FLOE_PQ_INT64,
                            FLOE_PQ_FIXED_LEN_BYTE_ARRAY, FLOE_PQ_FIXED_LEN_BYTE_ARRAY,
                            FLOE_PQ_FIXED_LEN_BYTE_ARRAY};
    const int32_t len[] = {0, 0, 0, 0, 9, 12, 16};
    for (int i = 0; i < 7; i++) {
        floe_type *d = NULL;
        assert_ok(floe_type_decimal(prec[i], 2 < prec[i] ? 2 : 0, &d));
        floe_schema *s = schema1(fld("d", d, true, 1));
        pqw_schema ps;
        assert_ok(pqw_schema_build(s, &ps));
        assert_int_equal(ps.leaves[0].phys, phys[i]);
        assert_int_equal(ps.leaves[0].type_length, len[i]);
        assert_int_equal(ps.elements[1].converted_type, FLOE_PQ_CT_DECIMAL);
        assert_int_equal(ps.elements[1].precision, prec[i]);
        pqw_schema_free(&ps);
        floe_type_release(s);
        floe_type_release(d);
    }
    assert_int_equal(pqw_decimal_bytes(21), 9);
    assert_int_equal(pqw_decimal_bytes(22), 10);
}

static void timestamps_set_utc_flag_and_converted_type(void **state) {
    (void)state;
    floe_field f[4] = {fld("a", floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), true, 1),
                       fld("b", floe_type_primitive(FLOE_TYPE_TIMESTAMP_US_TZ), true, 2),
                       fld("c", floe_type_primitive(FLOE_TYPE_TIMESTAMP_NS_TZ), true, 3),
                       fld("d", floe_type_primitive(FLOE_TYPE_UUID), true, 4)};
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(f, 4, &s));
    pqw_schema ps;
    assert_ok(pqw_schema_build(s, &ps));
    assert_false(ps.elements[1].logical.utc);
    assert_true(ps.elements[2].logical.utc);
    assert_int_equal(ps.elements[1].converted_type, FLOE_PQ_CT_TIMESTAMP_MICROS);
    assert_int_equal(ps.elements[3].logical.unit, FLOE_PQ_UNIT_NANOS);
    assert_int_equal(ps.elements[3].converted_type, FLOE_PQ_CT_NONE);
    assert_int_equal(ps.elements[4].logical.kind, FLOE_PQ_LT_UUID);
    assert_int_equal(ps.elements[4].type_length, 16);
    pqw_schema_free(&ps);
    floe_type_release(s);
}

/* ------------------------------------------------------------ shredding */

static void flat_nullable_column_levels_follow_validity(void **state) {
    (void)state;
    floe_schema *s = schema1(fld("x", floe_type_primitive(FLOE_TYPE_INT32), true, 1));
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(s->children[0].type, 4, &b));
    assert_ok(floe_builder_append_int32(b, 5));
    assert_ok(floe_builder_append_null(b));
    assert_ok(floe_builder_append_int32(b, 7));
    assert_ok(floe_builder_append_null(b));
    floe_array *a = NULL;
    assert_ok(floe_builder_finish(b, &a));
    const int16_t def[] = {1, 0, 1, 0};
    const int64_t slots[] = {0, 2};
    check_levels(s, a, 0, 0, 4, def, NULL, 4, slots, 2);
    /* A row range in the middle. */
    const int64_t slots2[] = {2};
    check_levels(s, a, 0, 1, 2, def + 1, NULL, 2, slots2, 1);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(s);
}

/* list<int32?>?: rows [1, 2], null, [], [null] */
static floe_array *make_list(floe_type *lt) {
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(lt, 4, &b));
    floe_builder *e = floe_builder_child(b, 0);
    assert_ok(floe_builder_append_int32(e, 1));
    assert_ok(floe_builder_append_int32(e, 2));
    assert_ok(floe_builder_append_list(b));
    assert_ok(floe_builder_append_null(b));
    assert_ok(floe_builder_append_list(b));
    assert_ok(floe_builder_append_null(e));
    assert_ok(floe_builder_append_list(b));
    floe_array *a = NULL;
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    return a;
}

static void list_levels_tell_null_list_from_empty_list_and_null_element(void **state) {
    (void)state;
    floe_type *lt = NULL;
    floe_field e = fld("element", floe_type_primitive(FLOE_TYPE_INT32), true, 2);
    assert_ok(floe_type_list(&e, &lt));
    floe_schema *s = schema1(fld("l", lt, true, 1));
    floe_array *a = make_list(lt);
    /* max_def 3 (list optional, repeated group, element optional), max_rep 1 */
    const int16_t def[] = {3, 3, 0, 1, 2};
    const int16_t rep[] = {0, 1, 0, 0, 0};
    const int64_t slots[] = {0, 1};
    check_levels(s, a, 0, 0, 4, def, rep, 5, slots, 2);
    floe_array_release(a);
    floe_type_release(s);
    floe_type_release(lt);
}

static void sliced_list_uses_offsets_of_the_slice(void **state) {
    (void)state;
    floe_type *lt = NULL;
    floe_field e = fld("element", floe_type_primitive(FLOE_TYPE_INT32), true, 2);
    assert_ok(floe_type_list(&e, &lt));
    floe_schema *s = schema1(fld("l", lt, true, 1));
    floe_array *a = make_list(lt), *sl = NULL;
    assert_ok(floe_array_slice(a, 2, 2, &sl)); /* [], [null] */
    const int16_t def[] = {1, 2};
    const int16_t rep[] = {0, 0};
    check_levels(s, sl, 0, 0, 2, def, rep, 2, NULL, 0);
    floe_array *sl2 = NULL;
    assert_ok(floe_array_slice(a, 0, 1, &sl2)); /* [1, 2] */
    const int16_t def2[] = {3, 3};
    const int16_t rep2[] = {0, 1};
    const int64_t slots2[] = {0, 1};
    check_levels(s, sl2, 0, 0, 1, def2, rep2, 2, slots2, 2);
    floe_array_release(sl);
    floe_array_release(sl2);
    floe_array_release(a);
    floe_type_release(s);
    floe_type_release(lt);
}

static void map_levels_cover_null_map_empty_map_and_null_value(void **state) {
    (void)state;
    floe_type *mt = NULL;
    floe_field k = fld("key", floe_type_primitive(FLOE_TYPE_STRING), false, 2);
    floe_field v = fld("value", floe_type_primitive(FLOE_TYPE_INT64), true, 3);
    assert_ok(floe_type_map(&k, &v, false, &mt));
    floe_schema *s = schema1(fld("m", mt, true, 1));
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(mt, 3, &b));
    floe_builder *kb = floe_builder_map_keys(b), *vb = floe_builder_map_values(b);
    /* {a: 1, b: null}, null, {}, {c: 3} */
    assert_ok(floe_builder_append_string(kb, "a"));
    assert_ok(floe_builder_append_int64(vb, 1));
    assert_ok(floe_builder_append_string(kb, "b"));
    assert_ok(floe_builder_append_null(vb));
    assert_ok(floe_builder_append_map(b));
    assert_ok(floe_builder_append_null(b));
    assert_ok(floe_builder_append_map(b));
    assert_ok(floe_builder_append_string(kb, "c"));
    assert_ok(floe_builder_append_int64(vb, 3));
    assert_ok(floe_builder_append_map(b));
    floe_array *a = NULL;
    assert_ok(floe_builder_finish(b, &a));
    /* keys: max_def 2 (map optional + repeated key_value; key required) */
    const int16_t kdef[] = {2, 2, 0, 1, 2};
    const int16_t rep[] = {0, 1, 0, 0, 0};
    const int64_t kslots[] = {0, 1, 2};
    check_levels(s, a, 0, 0, 4, kdef, rep, 5, kslots, 3);
    /* values: max_def 3 */
    const int16_t vdef[] = {3, 2, 0, 1, 3};
    const int64_t vslots[] = {0, 2};
    check_levels(s, a, 1, 0, 4, vdef, rep, 5, vslots, 2);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(s);
    floe_type_release(mt);
}

static void struct_levels_stop_at_the_null_ancestor(void **state) {
    (void)state;
    floe_type *inner = NULL, *outer = NULL;
    floe_field c = fld("c", floe_type_primitive(FLOE_TYPE_INT32), true, 3);
    assert_ok(floe_type_struct(&c, 1, &inner));
    floe_field f[2] = {fld("a", floe_type_primitive(FLOE_TYPE_INT32), false, 2),
                       fld("n", inner, true, 4)};
    assert_ok(floe_type_struct(f, 2, &outer));
    floe_schema *s = schema1(fld("st", outer, true, 1));
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(outer, 4, &b));
    floe_builder *ab = floe_builder_child(b, 0), *nb = floe_builder_child(b, 1);
    /* {a:1, n:{c:5}}, null, {a:2, n:null}, {a:3, n:{c:null}} */
    assert_ok(floe_builder_append_int32(ab, 1));
    assert_ok(floe_builder_append_int32(floe_builder_child(nb, 0), 5));
    assert_ok(floe_builder_append_valid(nb));
    assert_ok(floe_builder_append_valid(b));
    assert_ok(floe_builder_append_null(b));
    assert_ok(floe_builder_append_int32(ab, 2));
    assert_ok(floe_builder_append_null(nb));
    assert_ok(floe_builder_append_valid(b));
    assert_ok(floe_builder_append_int32(ab, 3));
    assert_ok(floe_builder_append_null(floe_builder_child(nb, 0)));
    assert_ok(floe_builder_append_valid(nb));
    assert_ok(floe_builder_append_valid(b));
    floe_array *a = NULL;
    assert_ok(floe_builder_finish(b, &a));
    /* st.a: max_def 1 (st optional, a required) */
    const int16_t adef[] = {1, 0, 1, 1};
    const int64_t aslots[] = {0, 2, 3};
    check_levels(s, a, 0, 0, 4, adef, NULL, 4, aslots, 3);
    /* st.n.c: max_def 3 */
    const int16_t cdef[] = {3, 0, 1, 2};
    const int64_t cslots[] = {0};
    check_levels(s, a, 1, 0, 4, cdef, NULL, 4, cslots, 1);
    /* A slice of the struct shifts the children's slots. */
    floe_array *sl = NULL;
    assert_ok(floe_array_slice(a, 2, 2, &sl));
    const int64_t aslots2[] = {2, 3};
    check_levels(s, sl, 0, 0, 2, adef + 2, NULL, 2, aslots2, 2);
    floe_array_release(sl);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(s);
    floe_type_release(outer);
    floe_type_release(inner);
}

static void list_of_lists_levels_use_two_repetition_levels(void **state) {
    (void)state;
    floe_type *in = NULL, *ll = NULL;
    floe_field e = fld("element", floe_type_primitive(FLOE_TYPE_INT64), false, 3);
    assert_ok(floe_type_list(&e, &in));
    floe_field e2 = fld("element", in, true, 2);
    assert_ok(floe_type_list(&e2, &ll));
    floe_schema *s = schema1(fld("ll", ll, false, 1));
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(ll, 2, &b));
    floe_builder *ib = floe_builder_child(b, 0), *vb = floe_builder_child(ib, 0);
    /* [[1, 2], null, []], [[3]] */
    assert_ok(floe_builder_append_int64(vb, 1));
    assert_ok(floe_builder_append_int64(vb, 2));
    assert_ok(floe_builder_append_list(ib));
    assert_ok(floe_builder_append_null(ib));
    assert_ok(floe_builder_append_list(ib));
    assert_ok(floe_builder_append_list(b));
    assert_ok(floe_builder_append_int64(vb, 3));
    assert_ok(floe_builder_append_list(ib));
    assert_ok(floe_builder_append_list(b));
    floe_array *a = NULL;
    assert_ok(floe_builder_finish(b, &a));
    /* ll required: repeated(1), inner optional(2), repeated(3), element required */
    const int16_t def[] = {3, 3, 1, 2, 3};
    const int16_t rep[] = {0, 2, 1, 1, 0};
    const int64_t slots[] = {0, 1, 2};
    check_levels(s, a, 0, 0, 2, def, rep, 5, slots, 3);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(s);
    floe_type_release(ll);
    floe_type_release(in);
}

static void null_in_required_field_is_a_constraint_error(void **state) {
    (void)state;
    floe_schema *s = schema1(fld("x", floe_type_primitive(FLOE_TYPE_INT32), false, 1));
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(s->children[0].type, 2, &b));
    assert_ok(floe_builder_append_int32(b, 1));
    assert_ok(floe_builder_append_null(b));
    floe_array *a = NULL;
    assert_ok(floe_builder_finish(b, &a));
    pqw_schema ps;
    assert_ok(pqw_schema_build(s, &ps));
    pqw_levels lv;
    pqw_levels_init(&lv);
    assert_error(pqw_shred(&ps.leaves[0], a, 0, 2, &lv), FLOE_ERR_CONSTRAINT, "'x'");
    pqw_levels_free(&lv);
    pqw_schema_free(&ps);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(s);
}

/* ------------------------------------------------------------ statistics */

static void float_stats_skip_nan_and_write_signed_zeros(void **state) {
    (void)state;
    pqw_stats s;
    pqw_stats_init(&s, PQW_ORD_DOUBLE, 0);
    const double v[] = {NAN, 0.0, -0.0, NAN};
    pqw_stats_double(&s, v, 4);
    assert_int_equal(s.nan_count, 2);
    floe_buf lo = FLOE_BUF_INIT, hi = FLOE_BUF_INIT;
    assert_ok(pqw_stats_bounds(&s, &lo, &hi));
    double l, h;
    memcpy(&l, lo.data, 8);
    memcpy(&h, hi.data, 8);
    assert_true(l == 0 && signbit(l));
    assert_true(h == 0 && !signbit(h));
    /* All NaN: no bounds. */
    pqw_stats_reset(&s);
    pqw_stats_double(&s, v, 1);
    assert_false(s.has_bounds);
    assert_ok(pqw_stats_bounds(&s, &lo, &hi));
    assert_int_equal(lo.len, 0);
    floe_buf_free(&lo);
    floe_buf_free(&hi);
    pqw_stats_free(&s);
}

static void byte_stats_are_unsigned_and_decimals_signed(void **state) {
    (void)state;
    pqw_stats s;
    pqw_stats_init(&s, PQW_ORD_UNSIGNED_BYTES, 0);
    floe_strview v[3] = {{"\xc3\xa9", 2}, {"z", 1}, {"za", 2}};
    assert_ok(pqw_stats_binary(&s, v, 3));
    assert_int_equal(s.bmin.len, 1);
    assert_memory_equal(s.bmin.data, "z", 1);
    assert_memory_equal(s.bmax.data, "\xc3\xa9", 2);
    pqw_stats_free(&s);

    pqw_stats d;
    pqw_stats_init(&d, PQW_ORD_SIGNED_BE, 2);
    const uint8_t be[6] = {0xff, 0x00 /* -256 */, 0x00, 0x05 /* 5 */, 0x80, 0x00 /* min */};
    assert_ok(pqw_stats_fixed(&d, be, 3));
    assert_memory_equal(d.bmin.data, "\x80\x00", 2);
    assert_memory_equal(d.bmax.data, "\x00\x05", 2);
    pqw_stats_free(&d);
}

static void truncated_bounds_stay_bounds(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    bool exact;
    assert_ok(floe_buf_append_str(&b, "abcdef"));
    pqw_truncate_min(&b, 3, false, &exact);
    assert_false(exact);
    assert_string_equal(floe_buf_cstr(&b), "abc");
    floe_buf_clear(&b);
    assert_ok(floe_buf_append(&b, "ab\xff\xff\x01", 5));
    pqw_truncate_max(&b, 4, false, &exact);
    assert_false(exact);
    assert_int_equal(b.len, 2);
    assert_memory_equal(b.data, "ac", 2); /* carried past the 0xff bytes */
    floe_buf_clear(&b);
    assert_ok(floe_buf_append(&b, "\xff\xff\xff", 3));
    pqw_truncate_max(&b, 2, false, &exact);
    assert_true(exact); /* no shorter upper bound exists: kept whole */
    assert_int_equal(b.len, 3);
    /* UTF-8: never cut inside a character; the max increments a character. */
    floe_buf_clear(&b);
    assert_ok(floe_buf_append_str(&b, "a\xc3\xa9z")); /* a é z */
    pqw_truncate_min(&b, 2, true, &exact);
    assert_string_equal(floe_buf_cstr(&b), "a");
    floe_buf_clear(&b);
    assert_ok(floe_buf_append_str(&b, "a\xc3\xa9z"));
    pqw_truncate_max(&b, 3, true, &exact);
    assert_false(exact);
    assert_string_equal(floe_buf_cstr(&b), "a\xc3\xaa"); /* ê */
    floe_buf_clear(&b);
    assert_ok(floe_buf_append_str(&b, "abc"));
    pqw_truncate_max(&b, 8, true, &exact);
    assert_true(exact);
    assert_string_equal(floe_buf_cstr(&b), "abc");
    floe_buf_free(&b);
}

/* ------------------------------------------------------------ Bloom filters */

static void xxhash64_matches_reference_vectors(void **state) {
    (void)state;
    assert_true(pqw_xxh64("", 0) == 0xEF46DB3751D8E999ull);
    assert_true(pqw_xxh64("abc", 3) == 0x44BC2CF5AD770999ull);
}

static void bloom_filter_holds_every_inserted_value(void **state) {
    (void)state;
    uint64_t h[3000];
    for (int i = 0; i < 3000; i++) {
        char t[32];
        int n = snprintf(t, sizeof t, "v%d", i % 1000); /* 1000 distinct */
        h[i] = pqw_xxh64(t, (size_t)n);
    }
    floe_buf out = FLOE_BUF_INIT;
    assert_ok(pqw_bloom_build(h, 3000, 0.01, 1 << 20, &out));
    floe_pq_bloom_filter_header hdr;
    size_t used = 0;
    assert_ok(floe_pq_decode_bloom_filter_header(out.data, out.len, 0, &hdr, &used));
    assert_int_equal((size_t)hdr.num_bytes, out.len - used);
    assert_true(hdr.num_bytes >= 1024 && (hdr.num_bytes & (hdr.num_bytes - 1)) == 0);
    const uint32_t *words = (const uint32_t *)(out.data + used);
    uint32_t blocks = (uint32_t)hdr.num_bytes / 32;
    int absent_hits = 0;
    for (int i = 0; i < 1000; i++) {
        char t[32];
        int n = snprintf(t, sizeof t, "v%d", i);
        assert_true(pqw_bloom_check(words, blocks, pqw_xxh64(t, (size_t)n)));
        n = snprintf(t, sizeof t, "absent%d", i);
        absent_hits += pqw_bloom_check(words, blocks, pqw_xxh64(t, (size_t)n));
    }
    assert_true(absent_hits < 50); /* ~1% expected */
    floe_buf_free(&out);
}

FLOE_TEST_MAIN(cmocka_unit_test(schema_gives_three_level_lists_maps_and_field_ids),
               cmocka_unit_test(decimals_use_int32_int64_or_minimal_fixed_bytes),
               cmocka_unit_test(timestamps_set_utc_flag_and_converted_type),
               cmocka_unit_test(flat_nullable_column_levels_follow_validity),
               cmocka_unit_test(list_levels_tell_null_list_from_empty_list_and_null_element),
               cmocka_unit_test(sliced_list_uses_offsets_of_the_slice),
               cmocka_unit_test(map_levels_cover_null_map_empty_map_and_null_value),
               cmocka_unit_test(struct_levels_stop_at_the_null_ancestor),
               cmocka_unit_test(list_of_lists_levels_use_two_repetition_levels),
               cmocka_unit_test(null_in_required_field_is_a_constraint_error),
               cmocka_unit_test(float_stats_skip_nan_and_write_signed_zeros),
               cmocka_unit_test(byte_stats_are_unsigned_and_decimals_signed),
               cmocka_unit_test(truncated_bounds_stay_bounds),
               cmocka_unit_test(xxhash64_matches_reference_vectors),
               cmocka_unit_test(bloom_filter_holds_every_inserted_value))

/* Arrow C Data Interface: export and import round-trip every type, zero-copy, honouring release rules. */
#include "columnar_util.h"
#include "floe/arrow_c.h"

/* One column per floe type, 4 rows, row 2 null everywhere. */
static floe_batch *all_types_batch(void) {
    floe_type *dec, *fixed, *list, *map, *st, *deep;
    assert_ok(floe_type_decimal(38, 5, &dec));
    assert_ok(floe_type_fixed_binary(2, &fixed));
    floe_field el = fld("element", floe_type_primitive(FLOE_TYPE_INT64), true, 30);
    assert_ok(floe_type_list(&el, &list));
    floe_field k = fld("key", floe_type_primitive(FLOE_TYPE_STRING), false, 31);
    floe_field v = fld("value", list, true, 32);
    assert_ok(floe_type_map(&k, &v, true, &map));
    floe_field sf[2] = {fld("m", map, true, 33), fld("u", floe_type_primitive(FLOE_TYPE_UUID), false, 34)};
    assert_ok(floe_type_struct(sf, 2, &st));
    floe_field del = fld("element", st, true, 35);
    assert_ok(floe_type_list(&del, &deep)); /* list<struct<m: map<string, list<int64>>, u: uuid>> */
    floe_field fs[] = {
        fld("n", floe_type_primitive(FLOE_TYPE_NULL), true, -1),
        fld("b", floe_type_primitive(FLOE_TYPE_BOOL), true, 1),
        fld("i", floe_type_primitive(FLOE_TYPE_INT32), true, 2),
        fld("l", floe_type_primitive(FLOE_TYPE_INT64), true, 3),
        fld("f", floe_type_primitive(FLOE_TYPE_FLOAT32), true, 4),
        fld("g", floe_type_primitive(FLOE_TYPE_FLOAT64), true, 5),
        fld("d", dec, true, 6),
        fld("date", floe_type_primitive(FLOE_TYPE_DATE32), true, 7),
        fld("time", floe_type_primitive(FLOE_TYPE_TIME64_US), true, 8),
        fld("ts", floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), true, 9),
        fld("tstz", floe_type_primitive(FLOE_TYPE_TIMESTAMP_US_TZ), true, 10),
        fld("tsn", floe_type_primitive(FLOE_TYPE_TIMESTAMP_NS), true, 11),
        fld("tsntz", floe_type_primitive(FLOE_TYPE_TIMESTAMP_NS_TZ), true, 12),
        fld("s", floe_type_primitive(FLOE_TYPE_STRING), true, 13),
        fld("z", floe_type_primitive(FLOE_TYPE_BINARY), true, 14),
        fld("w", fixed, true, 15),
        fld("uuid", floe_type_primitive(FLOE_TYPE_UUID), true, 16),
        fld("deep", deep, true, 17),
    };
    int32_t nc = (int32_t)(sizeof fs / sizeof fs[0]);
    floe_type *schema;
    assert_ok(floe_type_struct(fs, nc, &schema));
    floe_array *cols[32];
    for (int32_t c = 0; c < nc; c++) {
        floe_builder *b;
        assert_ok(floe_builder_new(schema->children[c].type, 0, &b));
        for (int r = 0; r < 4; r++) {
            if (r == 2 || c == 0) {
                assert_ok(floe_builder_append_null(b));
                continue;
            }
            uint8_t bytes[16];
            memset(bytes, r * 17, sizeof bytes);
            switch (schema->children[c].type->id) {
            case FLOE_TYPE_BOOL: assert_ok(floe_builder_append_bool(b, r & 1)); break;
            case FLOE_TYPE_INT32:
            case FLOE_TYPE_DATE32: assert_ok(floe_builder_append_int32(b, -r * 1000)); break;
            case FLOE_TYPE_FLOAT32: assert_ok(floe_builder_append_float(b, r / 4.0f)); break;
            case FLOE_TYPE_FLOAT64: assert_ok(floe_builder_append_double(b, r / 3.0)); break;
            case FLOE_TYPE_DECIMAL128: {
                floe_decimal128 d = {UINT64_MAX - (uint64_t)r, -1 - r};
                assert_ok(floe_builder_append_decimal(b, d));
                break;
            }
            case FLOE_TYPE_STRING:
            case FLOE_TYPE_BINARY: assert_ok(floe_builder_append_binary(b, "abcdé", r + 3)); break;
            case FLOE_TYPE_FIXED_BINARY:
            case FLOE_TYPE_UUID: assert_ok(floe_builder_append_fixed(b, bytes)); break;
            case FLOE_TYPE_LIST: {
                floe_builder *sb = floe_builder_child(b, 0);
                for (int e = 0; e < r; e++) {
                    floe_builder *mb = floe_builder_child(sb, 0);
                    assert_ok(floe_builder_append_string(floe_builder_map_keys(mb), e ? "b" : "a"));
                    floe_builder *lb = floe_builder_map_values(mb);
                    if (e == 1) assert_ok(floe_builder_append_null(lb));
                    else {
                        assert_ok(floe_builder_append_int64(floe_builder_child(lb, 0), e * 100));
                        assert_ok(floe_builder_append_null(floe_builder_child(lb, 0)));
                        assert_ok(floe_builder_append_list(lb));
                    }
                    assert_ok(floe_builder_append_map(mb));
                    assert_ok(floe_builder_append_fixed(floe_builder_child(sb, 1), bytes));
                    assert_ok(floe_builder_append_valid(sb));
                }
                assert_ok(floe_builder_append_list(b));
                break;
            }
            default: assert_ok(floe_builder_append_int64(b, (int64_t)r * -123456789)); break;
            }
        }
        assert_ok(floe_builder_finish(b, &cols[c]));
        floe_builder_free(b);
    }
    floe_batch *batch;
    assert_ok(floe_batch_new(schema, cols, nc, 4, &batch));
    for (int32_t c = 0; c < nc; c++) floe_array_release(cols[c]);
    floe_type_release(schema);
    floe_type_release(dec);
    floe_type_release(fixed);
    floe_type_release(list);
    floe_type_release(map);
    floe_type_release(st);
    floe_type_release(deep);
    return batch;
}

static void assert_same_rows(const floe_batch *a, const floe_batch *b) {
    assert_int_equal(a->num_rows, b->num_rows);
    assert_int_equal(a->num_columns, b->num_columns);
    for (int32_t c = 0; c < a->num_columns; c++)
        for (int64_t r = 0; r < a->num_rows; r++) {
            char want[4096];
            snprintf(want, sizeof want, "%s", fmt_at(a->columns[c], r));
            assert_string_equal(fmt_at(b->columns[c], r), want);
            assert_int_equal(floe_array_is_null(a->columns[c], r), floe_array_is_null(b->columns[c], r));
        }
}

static void every_type_round_trips_through_the_c_interface(void **state) {
    (void)state;
    int64_t before = floe_mem_current_bytes(floe_mem_root());
    floe_batch *b = all_types_batch(), *back;
    struct ArrowArray arr;
    struct ArrowSchema sch;
    assert_ok(floe_arrow_export_batch(b, &arr, &sch));
    assert_int_equal(arr.length, 4);
    assert_int_equal(arr.n_children, b->num_columns);
    assert_ok(floe_arrow_import_batch(&arr, &sch, &back));
    assert_null(arr.release);
    assert_null(sch.release);
    assert_true(floe_type_equals(b->schema, back->schema));
    assert_same_rows(b, back);
    assert_true(floe_batch_equals(b, back));
    /* Zero-copy: the imported column points at the exported memory. */
    assert_ptr_equal(back->columns[13]->buffers[1]->data, b->columns[13]->buffers[1]->data);
    floe_batch_release(b);
    /* The imported batch keeps the exported memory alive on its own. */
    assert_string_equal(fmt_at(back->columns[13], 1), "abcd");
    floe_batch_release(back);
    assert_int_equal(floe_mem_current_bytes(floe_mem_root()), before);
}

static void slices_with_offsets_round_trip(void **state) {
    (void)state;
    floe_batch *b = all_types_batch(), *s, *back;
    assert_ok(floe_batch_slice(b, 1, 3, &s));
    struct ArrowArray arr;
    struct ArrowSchema sch;
    assert_ok(floe_arrow_export_batch(s, &arr, &sch));
    assert_int_equal(arr.children[2]->offset, 1);
    assert_int_equal(arr.children[2]->null_count, 1);
    assert_ok(floe_arrow_import_batch(&arr, &sch, &back));
    assert_same_rows(s, back);
    assert_true(floe_batch_equals(s, back));
    floe_batch_release(back);
    /* A struct array with an offset: children are indexed through it. */
    floe_array *st, *sl, *imp;
    assert_ok(floe_batch_to_struct(b, &st));
    assert_ok(floe_array_slice(st, 2, 2, &sl));
    assert_ok(floe_arrow_export_array(sl, &arr));
    assert_int_equal(arr.offset, 2);
    assert_ok(floe_arrow_import_array(&arr, sl->type, &imp));
    char want[4096];
    snprintf(want, sizeof want, "%s", fmt_at(sl, 1));
    assert_string_equal(fmt_at(imp, 1), want);
    floe_array_release(imp);
    floe_array_release(sl);
    floe_array_release(st);
    floe_batch_release(s);
    floe_batch_release(b);
}

/* Read the first metadata value for `key` from Arrow metadata bytes. */
static const char *meta_value(const char *m, const char *key) {
    static char out[64];
    if (!m) return NULL;
    int32_t n;
    memcpy(&n, m, 4);
    const char *p = m + 4;
    for (int32_t i = 0; i < n; i++) {
        int32_t kl, vl;
        memcpy(&kl, p, 4);
        const char *k = p + 4;
        memcpy(&vl, k + kl, 4);
        const char *v = k + kl + 4;
        p = v + vl;
        if (kl == (int32_t)strlen(key) && memcmp(k, key, (size_t)kl) == 0) {
            snprintf(out, sizeof out, "%.*s", vl, v);
            return out;
        }
    }
    return NULL;
}

static void exported_schema_uses_spec_format_strings(void **state) {
    (void)state;
    floe_batch *b = all_types_batch();
    struct ArrowSchema s;
    assert_ok(floe_arrow_export_schema(b->schema, &s));
    assert_string_equal(s.format, "+s");
    assert_int_equal(s.flags & ARROW_FLAG_NULLABLE, 0);
    const char *want[] = {"n", "b", "i", "l", "f", "g", "d:38,5", "tdD", "ttu", "tsu:", "tsu:UTC",
                          "tsn:", "tsn:UTC", "u", "z", "w:2", "w:16", "+l"};
    assert_int_equal(s.n_children, 18);
    for (int i = 0; i < 18; i++) {
        assert_string_equal(s.children[i]->format, want[i]);
        assert_string_equal(s.children[i]->name, b->schema->children[i].name);
        assert_true(s.children[i]->flags & ARROW_FLAG_NULLABLE);
    }
    assert_null(s.children[0]->metadata); /* no field id */
    assert_string_equal(meta_value(s.children[2]->metadata, "PARQUET:field_id"), "2");
    assert_string_equal(meta_value(s.children[16]->metadata, "ARROW:extension:name"), "arrow.uuid");
    assert_null(meta_value(s.children[15]->metadata, "ARROW:extension:name"));
    /* deep: list<struct<m: map<string, list<int64>>, u: uuid>> */
    struct ArrowSchema *st = s.children[17]->children[0];
    assert_string_equal(st->format, "+s");
    struct ArrowSchema *m = st->children[0];
    assert_string_equal(m->format, "+m");
    assert_true(m->flags & ARROW_FLAG_MAP_KEYS_SORTED);
    assert_string_equal(m->children[0]->format, "+s");
    assert_false(m->children[0]->flags & ARROW_FLAG_NULLABLE);
    assert_false(m->children[0]->children[0]->flags & ARROW_FLAG_NULLABLE);
    assert_string_equal(meta_value(m->children[0]->children[0]->metadata, "PARQUET:field_id"), "31");
    assert_false(st->children[1]->flags & ARROW_FLAG_NULLABLE);
    s.release(&s);
    assert_null(s.release);
    floe_batch_release(b);
}

static void consumer_may_move_a_child_before_releasing_the_parent(void **state) {
    (void)state;
    floe_batch *b = all_types_batch();
    struct ArrowArray arr, moved;
    struct ArrowSchema sch, moved_s;
    assert_ok(floe_arrow_export_batch(b, &arr, &sch));
    floe_batch_release(b);
    moved = *arr.children[13];
    arr.children[13]->release = NULL; /* moved out, as the spec allows */
    moved_s = *sch.children[13];
    sch.children[13]->release = NULL;
    arr.release(&arr);
    sch.release(&sch);
    /* The moved child still works on its own. */
    floe_field f;
    floe_array *a;
    assert_ok(floe_arrow_import_field(&moved_s, &f));
    assert_string_equal(f.name, "s");
    assert_int_equal(f.field_id, 13);
    assert_ok(floe_arrow_import_array(&moved, f.type, &a));
    assert_string_equal(fmt_all(a), "abc|abcd|NULL|abcdé");
    floe_array_release(a);
    floe_field_clear(&f);
}

/* A producer's hand-made int32 list array with corrupt offsets. */
static int hand_released;
static void hand_release(struct ArrowArray *a) {
    hand_released++;
    if (a->n_children) {
        struct ArrowArray *c = a->children[0];
        if (c->release) c->release(c);
    }
    a->release = NULL;
}

static void corrupt_offsets_are_rejected_and_released(void **state) {
    (void)state;
    static int32_t values[4] = {1, 2, 3, 4};
    static int32_t offsets[4] = {0, 3, 2, 4}; /* decreasing at slot 2 */
    const void *cbufs[2] = {NULL, values};
    const void *pbufs[2] = {NULL, offsets};
    struct ArrowArray child = {.length = 4, .n_buffers = 2, .buffers = cbufs, .release = hand_release};
    struct ArrowArray *kids[1] = {&child};
    struct ArrowArray list = {.length = 3, .n_buffers = 2, .n_children = 1, .buffers = pbufs,
                              .children = kids, .release = hand_release};
    floe_type *t;
    floe_field el = fld("element", floe_type_primitive(FLOE_TYPE_INT32), true, -1);
    assert_ok(floe_type_list(&el, &t));
    floe_array *a;
    hand_released = 0;
    assert_error(floe_arrow_import_array(&list, t, &a), FLOE_ERR_CORRUPT, "offset 2 at slot 2 is less than 3");
    assert_null(a);
    assert_int_equal(hand_released, 2);
    assert_null(list.release);

    /* An offset past the child's end. */
    offsets[2] = 3;
    offsets[3] = 9;
    list.release = hand_release;
    child.release = hand_release;
    assert_error(floe_arrow_import_array(&list, t, &a), FLOE_ERR_CORRUPT, "beyond the 4 child slots");

    /* Fine offsets import without copying. */
    offsets[3] = 4;
    list.release = hand_release;
    child.release = hand_release;
    hand_released = 0;
    assert_ok(floe_arrow_import_array(&list, t, &a));
    assert_ptr_equal(a->children[0]->buffers[0]->data, (const uint8_t *)values);
    assert_string_equal(fmt_all(a), "[1, 2, 3]|[]|[4]");
    assert_int_equal(hand_released, 0);
    floe_array_release(a);
    assert_int_equal(hand_released, 2);
    floe_type_release(t);
}

static int schema_released;
static void hand_schema_release(struct ArrowSchema *s) {
    schema_released++;
    s->release = NULL;
}

static void unsupported_and_foreign_formats(void **state) {
    (void)state;
    floe_field f;
    struct ArrowSchema s = {.format = "c", .name = "tiny", .release = hand_schema_release};
    schema_released = 0;
    assert_error(floe_arrow_import_field(&s, &f), FLOE_ERR_UNSUPPORTED, "'c'");
    assert_int_equal(schema_released, 1);
    /* A zone other than UTC still means an instant. */
    struct ArrowSchema tz = {.format = "tsu:Europe/Paris", .name = "t", .flags = 0, .release = hand_schema_release};
    assert_ok(floe_arrow_import_field(&tz, &f));
    assert_int_equal(f.type->id, FLOE_TYPE_TIMESTAMP_US_TZ);
    assert_false(f.nullable);
    floe_field_clear(&f);
    struct ArrowSchema d = {.format = "d:12,3,128", .name = "d", .release = hand_schema_release};
    assert_ok(floe_arrow_import_field(&d, &f));
    assert_int_equal(f.type->precision, 12);
    assert_int_equal(f.type->scale, 3);
    floe_field_clear(&f);
    struct ArrowSchema d256 = {.format = "d:12,3,256", .name = "d", .release = hand_schema_release};
    assert_error(floe_arrow_import_field(&d256, &f), FLOE_ERR_UNSUPPORTED, "decimal256");
    /* Plain w:16 without the extension stays fixed binary. */
    struct ArrowSchema w = {.format = "w:16", .name = "w", .release = hand_schema_release};
    assert_ok(floe_arrow_import_field(&w, &f));
    assert_int_equal(f.type->id, FLOE_TYPE_FIXED_BINARY);
    floe_field_clear(&f);
}

typedef struct {
    floe_batch *batch;
    int pos, fail_at, closed;
} slice_source;

static floe_status next_slice(void *ctx, floe_batch **out) {
    slice_source *s = ctx;
    *out = NULL;
    if (s->pos == s->fail_at) return floe_error(FLOE_ERR_IO, "disk went away at batch %d", s->pos);
    if (s->pos >= 4) return NULL;
    return floe_batch_slice(s->batch, s->pos++, 1, out);
}

static void close_source(void *ctx) { ((slice_source *)ctx)->closed++; }

static void stream_round_trips_batches_and_errors(void **state) {
    (void)state;
    floe_batch *b = all_types_batch();
    slice_source src = {.batch = b, .fail_at = -1};
    floe_batch_source bs = {next_slice, close_source, &src};
    struct ArrowArrayStream stream;
    assert_ok(floe_arrow_export_stream(b->schema, bs, &stream));
    floe_arrow_stream_reader *r;
    assert_ok(floe_arrow_stream_open(&stream, &r));
    assert_null(stream.release);
    assert_true(floe_type_equals(floe_arrow_stream_schema(r), b->schema));
    floe_batch *got[5];
    int n = 0;
    for (;;) {
        floe_batch *x;
        assert_ok(floe_arrow_stream_next(r, &x));
        if (!x) break;
        assert_true(n < 4);
        got[n++] = x;
    }
    assert_int_equal(n, 4);
    floe_batch *all;
    assert_ok(floe_batch_concat(got, n, &all));
    assert_true(floe_batch_equals(all, b));
    floe_batch_release(all);
    for (int i = 0; i < n; i++) floe_batch_release(got[i]);
    floe_arrow_stream_close(r);
    assert_int_equal(src.closed, 1);

    /* A source error reaches the consumer with its message. */
    slice_source bad = {.batch = b, .fail_at = 1};
    floe_batch_source bbs = {next_slice, close_source, &bad};
    assert_ok(floe_arrow_export_stream(b->schema, bbs, &stream));
    assert_ok(floe_arrow_stream_open(&stream, &r));
    floe_batch *x;
    assert_ok(floe_arrow_stream_next(r, &x));
    floe_batch_release(x);
    assert_error(floe_arrow_stream_next(r, &x), FLOE_ERR_IO, "disk went away at batch 1");
    floe_arrow_stream_close(r);
    assert_int_equal(bad.closed, 1);
    floe_batch_release(b);
}

FLOE_TEST_MAIN(cmocka_unit_test(every_type_round_trips_through_the_c_interface),
               cmocka_unit_test(stream_round_trips_batches_and_errors),
               cmocka_unit_test(slices_with_offsets_round_trip),
               cmocka_unit_test(exported_schema_uses_spec_format_strings),
               cmocka_unit_test(consumer_may_move_a_child_before_releasing_the_parent),
               cmocka_unit_test(corrupt_offsets_are_rejected_and_released),
               cmocka_unit_test(unsupported_and_foreign_formats))

/*
 * source_avro.c — an Avro data (or delete) file as a task source
 * (task_source.h).  Iceberg allows Avro for data files
 * (write.format.default=avro; Iceberg Java and Hive write them), with the
 * type mapping of the spec's "Avro" appendix: field ids on record fields
 * (`field-id`), list element ids (`element-id`), map key/value ids
 * (`key-id`/`value-id`), maps with non-string keys written as arrays of
 * key/value records with logicalType "map", timestamps as long
 * timestamp-micros/-nanos with `adjust-to-utc`, decimals as fixed or
 * bytes, uuid as fixed(16), optional fields as ["null", T] unions.
 *
 * Records are decoded one at a time (the Avro reader resolves nothing: the
 * file's own schema is the reader schema) and appended to builders of the
 * columns asked for, so batches carry the file's types with its field ids
 * on nested fields; the task reader conforms them to the table by id.
 * Avro has no statistics or page index: no rows are skipped, and row
 * positions are the records' order in the file.
 *
 * A task's byte range: Iceberg splits Avro files at sync markers (Java's
 * AvroIO); floe plans one task per Avro file, so a range that does not
 * start at 0 holds none of the file's records and one that does holds all.
 */
#include <string.h>

#include "base/arena.h"
#include "floe/memory.h"
#include "formats/avro/avro.h"
#include "iceberg/scan/task_source.h"

typedef struct avro_source {
    floe_ice_source head;
    floe_input *in;
    floe_avro_reader *reader;
    const floe_avro_schema *rec;  /* the file's record schema */
    const char **names;
    int32_t *ids;
    /* reading */
    int32_t n_cols;
    int32_t *cols;                /* record field index of each output column */
    floe_schema *schema;          /* output schema */
    floe_builder **builders;
    int64_t batch_size;
    bool done;
    floe_arena arena;
    floe_ice_row_span span;
    int64_t next_row;
    const char *location;
} avro_source;

/* ---- types ------------------------------------------------------------- */

static bool attr_true(json_t *attrs, const char *key) {
    json_t *j = attrs ? json_object_get(attrs, key) : NULL;
    return j && (json_is_true(j) || (json_is_string(j) && strcmp(json_string_value(j), "true") == 0));
}

static bool attr_is(json_t *attrs, const char *key, const char *value) {
    json_t *j = attrs ? json_object_get(attrs, key) : NULL;
    return j && json_is_string(j) && strcmp(json_string_value(j), value) == 0;
}

/* The branch of ["null", T] (either order) that is not null, or s. */
static const floe_avro_schema *non_null(const floe_avro_schema *s, bool *optional) {
    *optional = false;
    if (s->type != FLOE_AVRO_UNION) return s;
    const floe_avro_schema *in = floe_avro_optional_inner(s);
    if (in) *optional = true;
    return in; /* NULL: a union floe does not read */
}

/* An Iceberg map with non-string keys: array of record {key, value}. */
static bool is_kv_array(const floe_avro_schema *s) {
    return s->type == FLOE_AVRO_ARRAY && attr_is(s->attrs, "logicalType", "map") && s->items &&
           s->items->type == FLOE_AVRO_RECORD && s->items->n_fields == 2;
}

static floe_status field_of(const char *name, const floe_avro_schema *s, bool nullable, int64_t id,
                            floe_field *out);

static floe_status type_of(const floe_avro_schema *s, floe_type **out) {
    *out = NULL;
    switch (s->type) {
    case FLOE_AVRO_NULL: *out = floe_type_primitive(FLOE_TYPE_NULL); return NULL;
    case FLOE_AVRO_BOOLEAN: *out = floe_type_primitive(FLOE_TYPE_BOOL); return NULL;
    case FLOE_AVRO_INT:
        *out = floe_type_primitive(s->logical == FLOE_AVRO_LT_DATE ? FLOE_TYPE_DATE32 : FLOE_TYPE_INT32);
        return NULL;
    case FLOE_AVRO_LONG: {
        floe_type_id id = FLOE_TYPE_INT64;
        bool utc = attr_true(s->attrs, "adjust-to-utc");
        switch (s->logical) {
        case FLOE_AVRO_LT_TIME_MICROS: id = FLOE_TYPE_TIME64_US; break;
        case FLOE_AVRO_LT_TIMESTAMP_MICROS: id = utc ? FLOE_TYPE_TIMESTAMP_US_TZ : FLOE_TYPE_TIMESTAMP_US; break;
        case FLOE_AVRO_LT_LOCAL_TIMESTAMP_MICROS: id = FLOE_TYPE_TIMESTAMP_US; break;
        case FLOE_AVRO_LT_TIMESTAMP_NANOS: id = utc ? FLOE_TYPE_TIMESTAMP_NS_TZ : FLOE_TYPE_TIMESTAMP_NS; break;
        case FLOE_AVRO_LT_LOCAL_TIMESTAMP_NANOS: id = FLOE_TYPE_TIMESTAMP_NS; break;
        case FLOE_AVRO_LT_TIMESTAMP_MILLIS:
        case FLOE_AVRO_LT_LOCAL_TIMESTAMP_MILLIS:
            return floe_error(FLOE_ERR_UNSUPPORTED, "Avro timestamp-millis is not an Iceberg type");
        default: break;
        }
        *out = floe_type_primitive(id);
        return NULL;
    }
    case FLOE_AVRO_FLOAT: *out = floe_type_primitive(FLOE_TYPE_FLOAT32); return NULL;
    case FLOE_AVRO_DOUBLE: *out = floe_type_primitive(FLOE_TYPE_FLOAT64); return NULL;
    case FLOE_AVRO_STRING:
    case FLOE_AVRO_ENUM: *out = floe_type_primitive(FLOE_TYPE_STRING); return NULL;
    case FLOE_AVRO_BYTES:
        if (s->logical == FLOE_AVRO_LT_DECIMAL) return floe_type_decimal(s->precision, s->scale, out);
        *out = floe_type_primitive(FLOE_TYPE_BINARY);
        return NULL;
    case FLOE_AVRO_FIXED:
        if (s->logical == FLOE_AVRO_LT_DECIMAL) return floe_type_decimal(s->precision, s->scale, out);
        if (s->logical == FLOE_AVRO_LT_UUID && s->fixed_size == 16) {
            *out = floe_type_primitive(FLOE_TYPE_UUID);
            return NULL;
        }
        return floe_type_fixed_binary((int32_t)s->fixed_size, out);
    case FLOE_AVRO_RECORD: {
        floe_field *ff = floe_calloc(s->n_fields + 1, sizeof *ff);
        if (!ff) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Avro source");
        floe_status st = NULL;
        size_t i = 0;
        for (; i < s->n_fields && !st; i++) {
            bool opt;
            const floe_avro_schema *t = non_null(s->fields[i].type, &opt);
            st = t ? field_of(s->fields[i].name, t, opt, s->fields[i].field_id, &ff[i])
                   : floe_error(FLOE_ERR_UNSUPPORTED, "field '%s': an Avro union other than [\"null\", T]",
                                s->fields[i].name);
        }
        if (!st) st = floe_type_struct(ff, (int32_t)s->n_fields, out);
        for (size_t k = 0; k < i; k++) floe_field_clear(&ff[k]);
        floe_free(ff);
        return st;
    }
    case FLOE_AVRO_ARRAY: {
        if (is_kv_array(s)) { /* map<key, value> with non-string keys */
            const floe_avro_schema *kv = s->items;
            floe_field k = {0}, v = {0};
            bool ko, vo;
            const floe_avro_schema *kt = non_null(kv->fields[0].type, &ko), *vt = non_null(kv->fields[1].type, &vo);
            if (!kt || !vt) return floe_error(FLOE_ERR_UNSUPPORTED, "an Avro map entry with a union");
            floe_status st = field_of("key", kt, false, kv->fields[0].field_id, &k);
            if (!st) st = field_of("value", vt, vo, kv->fields[1].field_id, &v);
            if (!st) st = floe_type_map(&k, &v, false, out);
            floe_field_clear(&k);
            floe_field_clear(&v);
            return st;
        }
        bool opt;
        const floe_avro_schema *it = non_null(s->items, &opt);
        if (!it) return floe_error(FLOE_ERR_UNSUPPORTED, "an Avro array of a union");
        floe_field e;
        FLOE_TRY(field_of("element", it, opt, s->element_id, &e));
        floe_status st = floe_type_list(&e, out);
        floe_field_clear(&e);
        return st;
    }
    case FLOE_AVRO_MAP: {
        bool opt;
        const floe_avro_schema *vt = non_null(s->values, &opt);
        if (!vt) return floe_error(FLOE_ERR_UNSUPPORTED, "an Avro map of a union");
        floe_field k = {0}, v = {0};
        floe_status st = floe_field_init(&k, "key", floe_type_primitive(FLOE_TYPE_STRING), false,
                                         s->key_id == FLOE_AVRO_NO_ID ? -1 : (int32_t)s->key_id);
        if (!st) st = field_of("value", vt, opt, s->value_id, &v);
        if (!st) st = floe_type_map(&k, &v, false, out);
        floe_field_clear(&k);
        floe_field_clear(&v);
        return st;
    }
    case FLOE_AVRO_UNION: return floe_error(FLOE_ERR_UNSUPPORTED, "an Avro union other than [\"null\", T]");
    }
    return floe_error(FLOE_ERR_UNSUPPORTED, "Avro type %d", (int)s->type);
}

static floe_status field_of(const char *name, const floe_avro_schema *s, bool nullable, int64_t id,
                            floe_field *out) {
    memset(out, 0, sizeof *out);
    floe_type *t = NULL;
    FLOE_TRY_CTX(type_of(s, &t), "Avro field '%s'", name);
    floe_status st = floe_field_init(out, name, t, nullable, id == FLOE_AVRO_NO_ID ? -1 : (int32_t)id);
    floe_type_release(t);
    return st;
}

/* ---- values ------------------------------------------------------------ */

/* Two's-complement big-endian bytes as a 128-bit decimal. */
static floe_status be_decimal(const uint8_t *p, uint32_t n, floe_decimal128 *out) {
    if (n > 16) return floe_error(FLOE_ERR_CORRUPT, "a decimal of %u bytes", n);
    uint8_t buf[16];
    uint8_t fill = n > 0 && (p[0] & 0x80) ? 0xff : 0;
    memset(buf, fill, sizeof buf);
    for (uint32_t i = 0; i < n; i++) buf[i] = p[n - 1 - i]; /* little-endian */
    memcpy(&out->lo, buf, 8);
    memcpy(&out->hi, buf + 8, 8);
    return NULL;
}

static floe_status append_value(floe_builder *b, const floe_avro_schema *s, const floe_avro_value *v) {
    if (v->type == FLOE_AVRO_NULL) return floe_builder_append_null(b);
    if (s->type == FLOE_AVRO_UNION) s = s->branches[v->branch];
    switch (s->type) {
    case FLOE_AVRO_NULL: return floe_builder_append_null(b);
    case FLOE_AVRO_BOOLEAN: return floe_builder_append_bool(b, v->u.l != 0);
    case FLOE_AVRO_INT: return floe_builder_append_int32(b, (int32_t)v->u.l);
    case FLOE_AVRO_LONG: return floe_builder_append_int64(b, v->u.l);
    case FLOE_AVRO_FLOAT: return floe_builder_append_float(b, (float)v->u.d);
    case FLOE_AVRO_DOUBLE: return floe_builder_append_double(b, v->u.d);
    case FLOE_AVRO_STRING: return floe_builder_append_binary(b, v->u.p, v->len);
    case FLOE_AVRO_ENUM:
        if (v->u.l < 0 || (size_t)v->u.l >= s->n_symbols)
            return floe_error(FLOE_ERR_CORRUPT, "enum index %lld out of range", (long long)v->u.l);
        return floe_builder_append_string(b, s->symbols[v->u.l]);
    case FLOE_AVRO_BYTES:
    case FLOE_AVRO_FIXED:
        if (s->logical == FLOE_AVRO_LT_DECIMAL) {
            floe_decimal128 d;
            FLOE_TRY(be_decimal(v->u.p, v->len, &d));
            return floe_builder_append_decimal(b, d);
        }
        if (s->type == FLOE_AVRO_FIXED) return floe_builder_append_fixed(b, v->u.p);
        return floe_builder_append_binary(b, v->u.p, v->len);
    case FLOE_AVRO_RECORD:
        for (uint32_t i = 0; i < v->len; i++)
            FLOE_TRY(append_value(floe_builder_child(b, (int32_t)i), s->fields[i].type, &v->u.items[i]));
        return floe_builder_append_valid(b);
    case FLOE_AVRO_ARRAY:
        if (is_kv_array(s)) {
            for (uint32_t i = 0; i < v->len; i++) {
                const floe_avro_value *e = &v->u.items[i];
                if (e->type != FLOE_AVRO_RECORD || e->len != 2)
                    return floe_error(FLOE_ERR_CORRUPT, "an Avro map entry that is not a key/value record");
                FLOE_TRY(append_value(floe_builder_map_keys(b), s->items->fields[0].type, &e->u.items[0]));
                FLOE_TRY(append_value(floe_builder_map_values(b), s->items->fields[1].type, &e->u.items[1]));
            }
            return floe_builder_append_map(b);
        }
        for (uint32_t i = 0; i < v->len; i++) FLOE_TRY(append_value(floe_builder_child(b, 0), s->items, &v->u.items[i]));
        return floe_builder_append_list(b);
    case FLOE_AVRO_MAP:
        for (uint32_t i = 0; i < v->len; i++) {
            const floe_avro_value *k = &v->u.items[2 * i];
            FLOE_TRY(floe_builder_append_binary(floe_builder_map_keys(b), k->u.p, k->len));
            FLOE_TRY(append_value(floe_builder_map_values(b), s->values, &v->u.items[2 * i + 1]));
        }
        return floe_builder_append_map(b);
    case FLOE_AVRO_UNION: break;
    }
    return floe_error(FLOE_ERR_UNSUPPORTED, "Avro value of type %d", (int)s->type);
}

/* ---- the source -------------------------------------------------------- */

static floe_status av_start(floe_ice_source *s_, const int32_t *cols, int32_t n, const floe_ice_source_hints *h) {
    avro_source *s = (avro_source *)s_;
    s->batch_size = h->batch_size > 0 ? h->batch_size : 8192;
    s->done = h->length >= 0 && h->start > 0; /* see the header: one task per file */
    s->n_cols = n;
    s->cols = floe_calloc((size_t)n + 1, sizeof *s->cols);
    floe_field *ff = floe_calloc((size_t)n + 1, sizeof *ff);
    s->builders = floe_calloc((size_t)n + 1, sizeof *s->builders);
    floe_status st = s->cols && ff && s->builders ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "Avro source");
    int32_t made = 0;
    for (int32_t i = 0; i < n && !st; i++, made++) {
        const floe_avro_field *f = &s->rec->fields[cols[i]];
        s->cols[i] = cols[i];
        bool opt;
        const floe_avro_schema *t = non_null(f->type, &opt);
        st = t ? field_of(f->name, t, opt, f->field_id, &ff[i])
               : floe_error(FLOE_ERR_UNSUPPORTED, "column '%s': an Avro union other than [\"null\", T]", f->name);
    }
    if (!st) st = floe_type_struct(ff, n, &s->schema);
    for (int32_t i = 0; i < n && !st; i++) st = floe_builder_new(s->schema->children[i].type, s->batch_size, &s->builders[i]);
    for (int32_t i = 0; i < made; i++) floe_field_clear(&ff[i]);
    floe_free(ff);
    return st ? floe_status_wrap(st, "Avro data file '%s'", s->location) : NULL;
}

static floe_status av_next(floe_ice_source *s_, floe_batch **out, const floe_ice_row_span **spans, int *nspans) {
    avro_source *s = (avro_source *)s_;
    *out = NULL;
    *spans = NULL;
    *nspans = 0;
    if (s->done) return NULL;
    int64_t rows = 0;
    floe_status st = NULL;
    while (rows < s->batch_size) {
        floe_arena_reset(&s->arena);
        floe_avro_value rec;
        int has = 0;
        st = floe_avro_reader_next(s->reader, &s->arena, &rec, &has);
        if (st || !has) {
            s->done = true;
            break;
        }
        for (int32_t i = 0; i < s->n_cols && !st; i++) {
            int32_t c = s->cols[i];
            st = append_value(s->builders[i], s->rec->fields[c].type, &rec.u.items[c]);
        }
        if (st) break;
        rows++;
    }
    floe_array **arrays = NULL;
    if (!st && rows > 0) {
        arrays = floe_calloc((size_t)s->n_cols + 1, sizeof *arrays);
        if (!arrays) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "Avro source");
        for (int32_t i = 0; i < s->n_cols && !st; i++) st = floe_builder_finish(s->builders[i], &arrays[i]);
        if (!st) st = floe_batch_new(s->schema, arrays, s->n_cols, rows, out);
        for (int32_t i = 0; arrays && i < s->n_cols; i++) floe_array_release(arrays[i]);
        floe_free(arrays);
    }
    if (st) return floe_status_wrap(st, "Avro data file '%s', record %lld", s->location,
                                    (long long)(s->next_row + rows));
    if (*out) {
        s->span = (floe_ice_row_span){s->next_row, rows};
        s->next_row += rows;
        *spans = &s->span;
        *nspans = 1;
    }
    return NULL;
}

static void av_stats(const floe_ice_source *s, floe_ice_task_read_stats *out) {
    (void)s;
    (void)out;
}

static void av_close(floe_ice_source *s_) {
    avro_source *s = (avro_source *)s_;
    for (int32_t i = 0; s->builders && i < s->n_cols; i++) floe_builder_free(s->builders[i]);
    floe_free(s->builders);
    floe_free(s->cols);
    floe_type_release(s->schema);
    floe_avro_reader_close(s->reader);
    floe_input_close(s->in);
    floe_arena_destroy(&s->arena);
    floe_free(s->names);
    floe_free(s->ids);
    floe_free((char *)s->location);
    floe_free(s);
}

static const floe_ice_source_vt av_vt = {
    .format = "avro",
    .start = av_start,
    .next = av_next,
    .stats = av_stats,
    .close = av_close,
};

floe_status floe_ice_avro_source_open(floe_fileio *io, const char *location, int64_t size, floe_ice_source **out) {
    *out = NULL;
    avro_source *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Avro source");
    s->head.vt = &av_vt;
    floe_arena_init(&s->arena, 64 * 1024);
    floe_status st = (s->location = floe_strdup(location)) ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "Avro source");
    if (!st) st = floe_ice_source_open_input(io, location, size, &s->in);
    if (!st) st = floe_avro_reader_open(s->in, NULL, &s->reader);
    if (!st) {
        s->rec = floe_avro_reader_writer_schema(s->reader);
        if (s->rec->type != FLOE_AVRO_RECORD)
            st = floe_error(FLOE_ERR_CORRUPT, "the file's schema is not a record");
    }
    if (!st) {
        size_t n = s->rec->n_fields;
        s->names = floe_calloc(n + 1, sizeof *s->names);
        s->ids = floe_calloc(n + 1, sizeof *s->ids);
        if (!s->names || !s->ids) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "Avro source");
        for (size_t k = 0; !st && k < n; k++) {
            s->names[k] = s->rec->fields[k].name;
            int64_t id = s->rec->fields[k].field_id;
            s->ids[k] = id == FLOE_AVRO_NO_ID || id < 0 || id > INT32_MAX ? -1 : (int32_t)id;
            s->head.any_field_id = s->head.any_field_id || s->ids[k] >= 0;
        }
        s->head.n_columns = (int32_t)n;
        s->head.names = s->names;
        s->head.field_ids = s->ids;
    }
    if (st) {
        av_close(&s->head);
        return floe_status_wrap(st, "Avro data file '%s'", location);
    }
    *out = &s->head;
    return NULL;
}

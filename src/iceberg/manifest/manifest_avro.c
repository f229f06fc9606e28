/*
 * manifest_avro.c — the bridge between Iceberg's manifest records and the
 * Avro datum model: finding fields by Iceberg field id, converting
 * partition values both ways, and decoding a data_file record.
 *
 * Readers work on values decoded with the file's own writer schema and
 * look fields up through a layout (indexes by field id, computed once per
 * file), so any field order, legacy name or missing optional field works.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"
#include "iceberg/manifest/manifest_avro.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding a manifest"); }

const floe_avro_schema *floe_ice_avro_record(const floe_avro_schema *s) {
    if (!s) return NULL;
    const floe_avro_schema *in = floe_avro_optional_inner(s);
    if (in) s = in;
    return s->type == FLOE_AVRO_RECORD ? s : NULL;
}

int floe_ice_avro_find(const floe_avro_schema *rec, int64_t id, const char *const *names) {
    rec = floe_ice_avro_record(rec);
    if (!rec) return -1;
    int i = floe_avro_field_index_by_id(rec, id);
    if (i >= 0) return i;
    for (; names && *names; names++) {
        i = floe_avro_field_index(rec, *names);
        /* A name match only counts when that field carries no other id. */
        if (i >= 0 && rec->fields[i].field_id == FLOE_AVRO_NO_ID) return i;
    }
    return -1;
}

char *floe_ice_arena_text(floe_arena *a, const uint8_t *p, size_t n) {
    char *s = floe_arena_alloc_aligned(a, n + 1, 1);
    if (!s) return NULL;
    if (n) memcpy(s, p, n);
    s[n] = 0;
    return s;
}

/* ---- partition types and values ----------------------------------------- */

static bool attr_true(json_t *attrs, const char *key) {
    json_t *j = attrs ? json_object_get(attrs, key) : NULL;
    return j && (json_is_true(j) || (json_is_string(j) && strcmp(json_string_value(j), "true") == 0));
}

static floe_status ice_type_of_avro(const floe_avro_schema *s, floe_ice_type **out) {
    const floe_avro_schema *in = floe_avro_optional_inner(s);
    if (in) s = in;
    floe_ice_type_id id = FLOE_ICE_UNKNOWN;
    switch (s->type) {
    case FLOE_AVRO_BOOLEAN: id = FLOE_ICE_BOOLEAN; break;
    case FLOE_AVRO_INT: id = s->logical == FLOE_AVRO_LT_DATE ? FLOE_ICE_DATE : FLOE_ICE_INT; break;
    case FLOE_AVRO_LONG:
        switch (s->logical) {
        case FLOE_AVRO_LT_TIME_MICROS: id = FLOE_ICE_TIME; break;
        case FLOE_AVRO_LT_TIMESTAMP_MICROS:
            id = attr_true(s->attrs, "adjust-to-utc") ? FLOE_ICE_TIMESTAMPTZ : FLOE_ICE_TIMESTAMP;
            break;
        case FLOE_AVRO_LT_LOCAL_TIMESTAMP_MICROS: id = FLOE_ICE_TIMESTAMP; break;
        case FLOE_AVRO_LT_TIMESTAMP_NANOS:
            id = attr_true(s->attrs, "adjust-to-utc") ? FLOE_ICE_TIMESTAMPTZ_NS : FLOE_ICE_TIMESTAMP_NS;
            break;
        case FLOE_AVRO_LT_LOCAL_TIMESTAMP_NANOS: id = FLOE_ICE_TIMESTAMP_NS; break;
        default: id = FLOE_ICE_LONG;
        }
        break;
    case FLOE_AVRO_FLOAT: id = FLOE_ICE_FLOAT; break;
    case FLOE_AVRO_DOUBLE: id = FLOE_ICE_DOUBLE; break;
    case FLOE_AVRO_STRING: id = FLOE_ICE_STRING; break;
    case FLOE_AVRO_BYTES:
        if (s->logical == FLOE_AVRO_LT_DECIMAL) return floe_ice_type_decimal(s->precision, s->scale, out);
        id = FLOE_ICE_BINARY;
        break;
    case FLOE_AVRO_FIXED:
        if (s->logical == FLOE_AVRO_LT_DECIMAL) return floe_ice_type_decimal(s->precision, s->scale, out);
        if (s->logical == FLOE_AVRO_LT_UUID && s->fixed_size == 16) {
            id = FLOE_ICE_UUID;
            break;
        }
        return floe_ice_type_fixed((int32_t)s->fixed_size, out);
    default: id = FLOE_ICE_UNKNOWN; break;
    }
    return floe_ice_type_new(id, out);
}

void floe_ice_part_convs_free(floe_ice_part_conv *c, int32_t n) {
    if (!c) return;
    for (int32_t i = 0; i < n; i++) floe_ice_type_free(c[i].type);
    floe_free(c);
}

floe_status floe_ice_part_convs_from_avro(const floe_avro_schema *rec, const int32_t *spec_ids, int32_t n_spec_ids,
                                          floe_ice_part_conv **out, int32_t *n_out) {
    *out = NULL;
    *n_out = 0;
    rec = floe_ice_avro_record(rec);
    if (!rec || rec->n_fields == 0) return NULL;
    floe_ice_part_conv *c = floe_calloc(rec->n_fields, sizeof *c);
    if (!c) return oom();
    for (size_t i = 0; i < rec->n_fields; i++) {
        const floe_avro_field *f = &rec->fields[i];
        c[i].name = f->name;
        if (f->field_id != FLOE_AVRO_NO_ID) c[i].field_id = (int32_t)f->field_id;
        else if (spec_ids && (int32_t)i < n_spec_ids) c[i].field_id = spec_ids[i];
        else c[i].field_id = FLOE_ICE_PARTITION_DATA_ID_START + (int32_t)i;
        floe_status st = ice_type_of_avro(f->type, &c[i].type);
        if (st) {
            floe_ice_part_convs_free(c, (int32_t)i);
            return floe_status_wrap(st, "partition field '%s'", f->name);
        }
    }
    *out = c;
    *n_out = (int32_t)rec->n_fields;
    return NULL;
}

floe_status floe_ice_part_value_from_avro(const floe_ice_part_conv *c, const floe_avro_value *v, floe_arena *a,
                                          floe_ice_value *out) {
    const floe_ice_type *t = c->type;
    *out = floe_ice_null(t->id);
    if (t->id == FLOE_ICE_DECIMAL) out->scale = t->scale;
    if (!v || v->type == FLOE_AVRO_NULL || t->id == FLOE_ICE_UNKNOWN) return NULL;
    out->is_null = false;
    switch (t->id) {
    case FLOE_ICE_BOOLEAN: out->v.b = v->u.l != 0; return NULL;
    case FLOE_ICE_INT:
    case FLOE_ICE_DATE: out->v.i32 = (int32_t)v->u.l; return NULL;
    case FLOE_ICE_LONG:
    case FLOE_ICE_TIME:
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ:
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS: out->v.i64 = v->u.l; return NULL;
    case FLOE_ICE_FLOAT: out->v.f32 = (float)v->u.d; return NULL;
    case FLOE_ICE_DOUBLE: out->v.f64 = v->u.d; return NULL;
    case FLOE_ICE_DECIMAL:
    case FLOE_ICE_UUID: {
        floe_status st = floe_ice_value_from_bytes(t, v->u.p, v->len, out);
        return floe_status_wrap(st, "partition field '%s'", c->name);
    }
    case FLOE_ICE_STRING:
    case FLOE_ICE_FIXED:
    case FLOE_ICE_BINARY: {
        char *p = floe_ice_arena_text(a, v->u.p, v->len);
        if (!p) return oom();
        out->v.bytes.data = (const uint8_t *)p;
        out->v.bytes.len = v->len;
        return NULL;
    }
    default:
        *out = floe_ice_null(t->id);
        return NULL;
    }
}

/* Bytes of the fixed type that holds decimal(P, S): the smallest n with
 * 10^P - 1 < 2^(8n - 1), as Iceberg Java computes it. */
static size_t decimal_bytes(int32_t precision) {
    unsigned __int128 p10 = 1;
    for (int32_t i = 0; i < precision && i < 38; i++) p10 *= 10;
    for (size_t n = 1; n < 16; n++)
        if (p10 - 1 < ((unsigned __int128)1 << (8 * n - 1))) return n;
    return 16;
}

floe_status floe_ice_part_value_to_avro(const floe_ice_type *t, const floe_ice_value *v, floe_arena *a,
                                        floe_avro_value *out) {
    *out = floe_avro_null();
    if (!v || v->is_null || t->id == FLOE_ICE_UNKNOWN) return NULL;
    switch (t->id) {
    case FLOE_ICE_BOOLEAN: *out = floe_avro_long(FLOE_AVRO_BOOLEAN, v->v.b); return NULL;
    case FLOE_ICE_INT:
    case FLOE_ICE_DATE: *out = floe_avro_long(FLOE_AVRO_INT, v->v.i32); return NULL;
    case FLOE_ICE_LONG:
    case FLOE_ICE_TIME:
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ:
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS: *out = floe_avro_long(FLOE_AVRO_LONG, v->v.i64); return NULL;
    case FLOE_ICE_FLOAT: *out = floe_avro_double(FLOE_AVRO_FLOAT, v->v.f32); return NULL;
    case FLOE_ICE_DOUBLE: *out = floe_avro_double(FLOE_AVRO_DOUBLE, v->v.f64); return NULL;
    case FLOE_ICE_STRING: *out = floe_avro_bytes(FLOE_AVRO_STRING, v->v.bytes.data, v->v.bytes.len); return NULL;
    case FLOE_ICE_BINARY: *out = floe_avro_bytes(FLOE_AVRO_BYTES, v->v.bytes.data, v->v.bytes.len); return NULL;
    case FLOE_ICE_FIXED:
        if ((int64_t)v->v.bytes.len != t->length)
            return floe_error(FLOE_ERR_TYPE, "partition value: fixed[%d] given %zu bytes", t->length, v->v.bytes.len);
        *out = floe_avro_bytes(FLOE_AVRO_FIXED, v->v.bytes.data, v->v.bytes.len);
        return NULL;
    case FLOE_ICE_UUID: {
        uint8_t *p = floe_arena_memdup(a, v->v.uuid, 16);
        if (!p) return oom();
        *out = floe_avro_bytes(FLOE_AVRO_FIXED, p, 16);
        return NULL;
    }
    case FLOE_ICE_DECIMAL: {
        size_t n = decimal_bytes(t->precision);
        uint8_t *p = floe_arena_alloc_aligned(a, n, 1);
        if (!p) return oom();
        floe_int128 x = v->v.dec;
        for (size_t i = 0; i < n; i++) p[n - 1 - i] = (uint8_t)(x >> (8 * (i < 15 ? i : 15)));
        *out = floe_avro_bytes(FLOE_AVRO_FIXED, p, n);
        return NULL;
    }
    default:
        return floe_error(FLOE_ERR_UNSUPPORTED, "partition values of type %s cannot be written",
                          floe_ice_type_id_name(t->id));
    }
}

floe_status floe_ice_avro_type_json(floe_buf *b, const floe_ice_type *t, int32_t id) {
    switch (t->id) {
    case FLOE_ICE_BOOLEAN: return floe_buf_append_str(b, "\"boolean\"");
    case FLOE_ICE_INT: return floe_buf_append_str(b, "\"int\"");
    case FLOE_ICE_LONG: return floe_buf_append_str(b, "\"long\"");
    case FLOE_ICE_FLOAT: return floe_buf_append_str(b, "\"float\"");
    case FLOE_ICE_DOUBLE: return floe_buf_append_str(b, "\"double\"");
    case FLOE_ICE_STRING: return floe_buf_append_str(b, "\"string\"");
    case FLOE_ICE_BINARY: return floe_buf_append_str(b, "\"bytes\"");
    case FLOE_ICE_DATE: return floe_buf_append_str(b, "{\"type\":\"int\",\"logicalType\":\"date\"}");
    case FLOE_ICE_TIME: return floe_buf_append_str(b, "{\"type\":\"long\",\"logicalType\":\"time-micros\"}");
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ:
        return floe_buf_printf(b, "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"adjust-to-utc\":%s}",
                               t->id == FLOE_ICE_TIMESTAMPTZ ? "true" : "false");
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS:
        return floe_buf_printf(b, "{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\",\"adjust-to-utc\":%s}",
                               t->id == FLOE_ICE_TIMESTAMPTZ_NS ? "true" : "false");
    case FLOE_ICE_UUID:
        return floe_buf_printf(b, "{\"type\":\"fixed\",\"name\":\"uuid_fixed_%d\",\"size\":16,\"logicalType\":\"uuid\"}", id);
    case FLOE_ICE_FIXED:
        return floe_buf_printf(b, "{\"type\":\"fixed\",\"name\":\"fixed_%d\",\"size\":%d}", id, t->length);
    case FLOE_ICE_DECIMAL:
        return floe_buf_printf(b,
                               "{\"type\":\"fixed\",\"name\":\"decimal_%d\",\"size\":%zu,\"logicalType\":\"decimal\","
                               "\"precision\":%d,\"scale\":%d}",
                               id, decimal_bytes(t->precision), t->precision, t->scale);
    case FLOE_ICE_UNKNOWN: return floe_buf_append_str(b, "\"null\"");
    default:
        return floe_error(FLOE_ERR_UNSUPPORTED, "no Avro form for Iceberg type %s in a partition",
                          floe_ice_type_id_name(t->id));
    }
}

/* ---- data_file layout and decoding ---------------------------------------- */

static const struct {
    int slot;
    int64_t id;
    const char *names[3];
} df_ids[FLOE_DF_N] = {
    {FLOE_DF_CONTENT, 134, {"content", NULL}},
    {FLOE_DF_FILE_PATH, 100, {"file_path", NULL}},
    {FLOE_DF_FILE_FORMAT, 101, {"file_format", NULL}},
    {FLOE_DF_PARTITION, 102, {"partition", NULL}},
    {FLOE_DF_RECORD_COUNT, 103, {"record_count", NULL}},
    {FLOE_DF_FILE_SIZE, 104, {"file_size_in_bytes", NULL}},
    {FLOE_DF_COLUMN_SIZES, 108, {"column_sizes", NULL}},
    {FLOE_DF_VALUE_COUNTS, 109, {"value_counts", NULL}},
    {FLOE_DF_NULL_COUNTS, 110, {"null_value_counts", NULL}},
    {FLOE_DF_NAN_COUNTS, 137, {"nan_value_counts", NULL}},
    {FLOE_DF_LOWER, 125, {"lower_bounds", NULL}},
    {FLOE_DF_UPPER, 128, {"upper_bounds", NULL}},
    {FLOE_DF_KEY_METADATA, 131, {"key_metadata", NULL}},
    {FLOE_DF_SPLIT_OFFSETS, 132, {"split_offsets", NULL}},
    {FLOE_DF_EQUALITY_IDS, 135, {"equality_ids", NULL}},
    {FLOE_DF_SORT_ORDER_ID, 140, {"sort_order_id", NULL}},
    {FLOE_DF_FIRST_ROW_ID, 142, {"first_row_id", NULL}},
    {FLOE_DF_REFERENCED, 143, {"referenced_data_file", NULL}},
    {FLOE_DF_CONTENT_OFFSET, 144, {"content_offset", NULL}},
    {FLOE_DF_CONTENT_SIZE, 145, {"content_size_in_bytes", NULL}},
};

floe_status floe_ice_df_layout_init(floe_ice_df_layout *l, const floe_avro_schema *df, const int32_t *spec_ids,
                                    int32_t n_spec_ids) {
    memset(l, 0, sizeof *l);
    df = floe_ice_avro_record(df);
    if (!df) return floe_error(FLOE_ERR_CORRUPT, "manifest: 'data_file' is not a record");
    for (int i = 0; i < FLOE_DF_N; i++) l->idx[df_ids[i].slot] = floe_ice_avro_find(df, df_ids[i].id, df_ids[i].names);
    static const char *const need[] = {"file_path", "file_format", "record_count", "file_size_in_bytes"};
    static const int need_slot[] = {FLOE_DF_FILE_PATH, FLOE_DF_FILE_FORMAT, FLOE_DF_RECORD_COUNT, FLOE_DF_FILE_SIZE};
    for (int i = 0; i < 4; i++)
        if (l->idx[need_slot[i]] < 0) return floe_error(FLOE_ERR_CORRUPT, "manifest: data_file has no '%s' field", need[i]);
    if (l->idx[FLOE_DF_PARTITION] >= 0) {
        FLOE_TRY(floe_ice_part_convs_from_avro(df->fields[l->idx[FLOE_DF_PARTITION]].type, spec_ids, n_spec_ids,
                                               &l->part, &l->n_part));
        if (l->n_part) {
            l->part_ids = floe_malloc_array((size_t)l->n_part, sizeof *l->part_ids);
            if (!l->part_ids) {
                floe_ice_df_layout_clear(l);
                return oom();
            }
            for (int32_t i = 0; i < l->n_part; i++) l->part_ids[i] = l->part[i].field_id;
        }
    }
    return NULL;
}

void floe_ice_df_layout_clear(floe_ice_df_layout *l) {
    floe_ice_part_convs_free(l->part, l->n_part);
    floe_free(l->part_ids);
    memset(l, 0, sizeof *l);
}

/* Arrays of a decoded data_file at their natural alignment: the arena's
 * default 16-byte alignment pads the many 1-2 element metrics arrays of a
 * manifest entry by a third of their size. */
#define ARENA_ARRAY(a, n, p) floe_arena_alloc_aligned((a), (size_t)(n) * sizeof *(p), _Alignof(__typeof__(*(p))))

static floe_status get_text(const floe_avro_value *v, floe_arena *a, const char **out) {
    *out = NULL;
    if (!v) return NULL;
    if (v->type != FLOE_AVRO_STRING && v->type != FLOE_AVRO_BYTES)
        return floe_error(FLOE_ERR_CORRUPT, "expected a string, found %s", floe_avro_type_name(v->type));
    *out = floe_ice_arena_text(a, v->u.p, v->len);
    return *out ? NULL : oom();
}

/* Map key of one entry: an int (array-of-records form) or a numeric
 * string (Avro map form). */
floe_status floe_ice_avro_map_entry(const floe_avro_value *m, uint32_t i, const floe_avro_value **k,
                                    const floe_avro_value **v, int32_t *key) {
    if (m->type == FLOE_AVRO_MAP) {
        *k = &m->u.items[2 * i];
        *v = &m->u.items[2 * i + 1];
        char buf[24];
        size_t n = (*k)->len < sizeof buf - 1 ? (*k)->len : sizeof buf - 1;
        memcpy(buf, (*k)->u.p, n);
        buf[n] = 0;
        char *end;
        long x = strtol(buf, &end, 10);
        if (!n || *end) return floe_error(FLOE_ERR_CORRUPT, "metrics map key '%s' is not a column id", buf);
        *key = (int32_t)x;
        return NULL;
    }
    const floe_avro_value *rec = &m->u.items[i];
    if (rec->type != FLOE_AVRO_RECORD || rec->len < 2)
        return floe_error(FLOE_ERR_CORRUPT, "metrics map entry is not a key/value record");
    *k = &rec->u.items[0];
    *v = &rec->u.items[1];
    *key = (int32_t)floe_ice_avro_long(*k, 0);
    return NULL;
}

static floe_status count_map(const floe_avro_value *m, floe_arena *a, floe_ice_count_map *out, const char *what) {
    out->n = -1;
    out->keys = NULL;
    out->values = NULL;
    if (!m) return NULL;
    if (m->type != FLOE_AVRO_ARRAY && m->type != FLOE_AVRO_MAP)
        return floe_error(FLOE_ERR_CORRUPT, "'%s' is not a map", what);
    out->n = (int32_t)m->len;
    if (!m->len) return NULL;
    out->keys = ARENA_ARRAY(a, m->len, out->keys);
    out->values = ARENA_ARRAY(a, m->len, out->values);
    if (!out->keys || !out->values) return oom();
    for (uint32_t i = 0; i < m->len; i++) {
        const floe_avro_value *k, *v;
        FLOE_TRY_CTX(floe_ice_avro_map_entry(m, i, &k, &v, &out->keys[i]), "'%s'", what);
        out->values[i] = floe_ice_avro_long(v->type == FLOE_AVRO_NULL ? NULL : v, 0);
    }
    return NULL;
}

static floe_status bound_map(const floe_avro_value *m, floe_arena *a, floe_ice_bound_map *out, const char *what) {
    memset(out, 0, sizeof *out);
    out->n = -1;
    if (!m) return NULL;
    if (m->type != FLOE_AVRO_ARRAY && m->type != FLOE_AVRO_MAP)
        return floe_error(FLOE_ERR_CORRUPT, "'%s' is not a map", what);
    out->n = (int32_t)m->len;
    if (!m->len) return NULL;
    out->keys = ARENA_ARRAY(a, m->len, out->keys);
    out->values = ARENA_ARRAY(a, m->len, out->values);
    out->lens = ARENA_ARRAY(a, m->len, out->lens);
    if (!out->keys || !out->values || !out->lens) return oom();
    for (uint32_t i = 0; i < m->len; i++) {
        const floe_avro_value *k, *v;
        FLOE_TRY_CTX(floe_ice_avro_map_entry(m, i, &k, &v, &out->keys[i]), "'%s'", what);
        if (v->type != FLOE_AVRO_BYTES && v->type != FLOE_AVRO_STRING && v->type != FLOE_AVRO_FIXED) {
            out->values[i] = NULL;
            out->lens[i] = 0;
            continue;
        }
        out->values[i] = (const uint8_t *)floe_ice_arena_text(a, v->u.p, v->len);
        if (!out->values[i]) return oom();
        out->lens[i] = v->len;
    }
    return NULL;
}

static floe_status long_list(const floe_avro_value *l, floe_arena *a, int64_t **out, int32_t *n) {
    *out = NULL;
    *n = -1;
    if (!l) return NULL;
    if (l->type != FLOE_AVRO_ARRAY) return floe_error(FLOE_ERR_CORRUPT, "expected a list");
    *n = (int32_t)l->len;
    if (!l->len) return NULL;
    *out = ARENA_ARRAY(a, l->len, *out);
    if (!*out) return oom();
    for (uint32_t i = 0; i < l->len; i++) (*out)[i] = floe_ice_avro_long(&l->u.items[i], 0);
    return NULL;
}

floe_status floe_ice_df_from_avro(const floe_ice_df_layout *l, const floe_avro_value *rec, floe_arena *a,
                                  floe_ice_data_file *f) {
    floe_ice_data_file_init(f);
    if (rec->type != FLOE_AVRO_RECORD) return floe_error(FLOE_ERR_CORRUPT, "data_file is not a record");
#define G(slot) floe_ice_avro_get(rec, l->idx[slot])
    int64_t content = floe_ice_avro_long(G(FLOE_DF_CONTENT), 0);
    if (content < 0 || content > 2) return floe_error(FLOE_ERR_CORRUPT, "data_file: unknown content %" PRId64, content);
    f->content = (floe_ice_content)content;
    FLOE_TRY_CTX(get_text(G(FLOE_DF_FILE_PATH), a, &f->file_path), "data_file.file_path");
    if (!f->file_path) return floe_error(FLOE_ERR_CORRUPT, "data_file: file_path is null");
    FLOE_TRY_CTX(get_text(G(FLOE_DF_FILE_FORMAT), a, &f->file_format), "data_file.file_format");
    if (!f->file_format) f->file_format = "";
    f->record_count = floe_ice_avro_long(G(FLOE_DF_RECORD_COUNT), -1);
    f->file_size_in_bytes = floe_ice_avro_long(G(FLOE_DF_FILE_SIZE), -1);
    if (l->n_part) {
        const floe_avro_value *p = G(FLOE_DF_PARTITION);
        f->n_partition = l->n_part;
        f->partition_ids = l->part_ids;
        f->partition = ARENA_ARRAY(a, l->n_part, f->partition);
        if (!f->partition) return oom();
        for (int32_t i = 0; i < l->n_part; i++) {
            const floe_avro_value *pv = p && p->type == FLOE_AVRO_RECORD && (uint32_t)i < p->len ? &p->u.items[i] : NULL;
            FLOE_TRY(floe_ice_part_value_from_avro(&l->part[i], pv, a, &f->partition[i]));
        }
    }
    FLOE_TRY(count_map(G(FLOE_DF_COLUMN_SIZES), a, &f->column_sizes, "column_sizes"));
    FLOE_TRY(count_map(G(FLOE_DF_VALUE_COUNTS), a, &f->value_counts, "value_counts"));
    FLOE_TRY(count_map(G(FLOE_DF_NULL_COUNTS), a, &f->null_value_counts, "null_value_counts"));
    FLOE_TRY(count_map(G(FLOE_DF_NAN_COUNTS), a, &f->nan_value_counts, "nan_value_counts"));
    FLOE_TRY(bound_map(G(FLOE_DF_LOWER), a, &f->lower_bounds, "lower_bounds"));
    FLOE_TRY(bound_map(G(FLOE_DF_UPPER), a, &f->upper_bounds, "upper_bounds"));
    const floe_avro_value *km = G(FLOE_DF_KEY_METADATA);
    if (km && (km->type == FLOE_AVRO_BYTES || km->type == FLOE_AVRO_FIXED)) {
        f->key_metadata = (const uint8_t *)floe_ice_arena_text(a, km->u.p, km->len);
        if (!f->key_metadata) return oom();
        f->key_metadata_len = km->len;
    }
    FLOE_TRY_CTX(long_list(G(FLOE_DF_SPLIT_OFFSETS), a, &f->split_offsets, &f->n_split_offsets), "split_offsets");
    int64_t *eq = NULL;
    FLOE_TRY_CTX(long_list(G(FLOE_DF_EQUALITY_IDS), a, &eq, &f->n_equality_ids), "equality_ids");
    if (f->n_equality_ids > 0) {
        f->equality_ids = ARENA_ARRAY(a, f->n_equality_ids, f->equality_ids);
        if (!f->equality_ids) return oom();
        for (int32_t i = 0; i < f->n_equality_ids; i++) f->equality_ids[i] = (int32_t)eq[i];
    }
    const floe_avro_value *v;
    if ((v = G(FLOE_DF_SORT_ORDER_ID))) f->has_sort_order_id = true, f->sort_order_id = (int32_t)floe_ice_avro_long(v, 0);
    if ((v = G(FLOE_DF_FIRST_ROW_ID))) f->has_first_row_id = true, f->first_row_id = floe_ice_avro_long(v, 0);
    FLOE_TRY_CTX(get_text(G(FLOE_DF_REFERENCED), a, &f->referenced_data_file), "referenced_data_file");
    if ((v = G(FLOE_DF_CONTENT_OFFSET))) f->has_content_offset = true, f->content_offset = floe_ice_avro_long(v, 0);
    if ((v = G(FLOE_DF_CONTENT_SIZE)))
        f->has_content_size_in_bytes = true, f->content_size_in_bytes = floe_ice_avro_long(v, 0);
#undef G
    return NULL;
}

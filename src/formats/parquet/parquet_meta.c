/*
 * parquet_meta.c — decode and encode Parquet's Thrift metadata structs
 * (see parquet_meta.h; the field ids follow parquet.thrift).
 *
 * Each decoder walks a struct's fields by id.  A field with an unknown id, or
 * a known id carrying an unexpected wire type, is skipped, as Thrift's own
 * generated code does; required fields are tracked in a bit mask and a
 * missing one is an error naming the struct and field.  Every field id used
 * by these structs is below 32, so one uint32_t mask is enough.
 */
#include "formats/parquet/parquet_meta.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "floe/memory.h"

/* ------------------------------------------------------------------ arena */

struct floe_pq_arena_chunk {
    floe_pq_arena_chunk *next;
    size_t size;
    /* max_align_t keeps the payload suitably aligned for any struct. */
    max_align_t payload[];
};

#define ARENA_CHUNK 16384

void floe_pq_arena_init(floe_pq_arena *a) {
    a->head = NULL;
    a->used = a->cap = 0;
    a->total = 0;
}

void *floe_pq_arena_alloc(floe_pq_arena *a, size_t n) {
    n = (n + 7) & ~(size_t)7;
    if (n == 0) n = 8;
    if (!a->head || a->cap - a->used < n) {
        /* Big requests get a chunk of their own, inserted behind the
         * current head so the head's free space is not wasted. */
        size_t size = n > ARENA_CHUNK / 4 ? n : ARENA_CHUNK;
        if (size > SIZE_MAX - sizeof(floe_pq_arena_chunk)) return NULL;
        floe_pq_arena_chunk *c = floe_malloc(sizeof *c + size);
        if (!c) return NULL;
        c->size = size;
        a->total += size;
        if (size != ARENA_CHUNK && a->head) {
            c->next = a->head->next;
            a->head->next = c;
            memset(c->payload, 0, n);
            return c->payload;
        }
        c->next = a->head;
        a->head = c;
        a->used = 0;
        a->cap = size;
    }
    void *p = (uint8_t *)a->head->payload + a->used;
    a->used += n;
    memset(p, 0, n);
    return p;
}

void floe_pq_arena_free(floe_pq_arena *a) {
    floe_pq_arena_chunk *c = a->head;
    while (c) {
        floe_pq_arena_chunk *next = c->next;
        floe_free(c);
        c = next;
    }
    floe_pq_arena_init(a);
}

/* ------------------------------------------------------------------ names */

const char *floe_pq_type_name(int32_t t) {
    static const char *const names[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT",
                                        "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return t >= 0 && t < 8 ? names[t] : "UNKNOWN";
}

const char *floe_pq_converted_type_name(int32_t ct) {
    static const char *const names[] = {
        "UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE",
        "TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS",
        "UINT_8", "UINT_16", "UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32",
        "INT_64", "JSON", "BSON", "INTERVAL"};
    if (ct == FLOE_PQ_CT_NONE) return "NONE";
    return ct >= 0 && ct < 22 ? names[ct] : "UNKNOWN";
}

const char *floe_pq_repetition_name(int32_t r) {
    static const char *const names[] = {"required", "optional", "repeated"};
    return r >= 0 && r < 3 ? names[r] : "UNKNOWN";
}

const char *floe_pq_encoding_name(int32_t e) {
    static const char *const names[] = {
        "PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED",
        "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
        "RLE_DICTIONARY", "BYTE_STREAM_SPLIT", "ALP"};
    return e >= 0 && e < 11 ? names[e] : "UNKNOWN";
}

const char *floe_pq_codec_name(int32_t c) {
    static const char *const names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                        "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
    return c >= 0 && c < 8 ? names[c] : "UNKNOWN";
}

const char *floe_pq_page_type_name(int32_t t) {
    static const char *const names[] = {"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE",
                                        "DATA_PAGE_V2"};
    return t >= 0 && t < 4 ? names[t] : "UNKNOWN";
}

static const char *unit_name(floe_pq_time_unit u) {
    switch (u) {
    case FLOE_PQ_UNIT_MILLIS: return "MILLIS";
    case FLOE_PQ_UNIT_MICROS: return "MICROS";
    case FLOE_PQ_UNIT_NANOS: return "NANOS";
    default: return "UNKNOWN_UNIT";
    }
}

void floe_pq_logical_type_format(const floe_pq_logical_type *lt, char *out, size_t cap) {
    switch (lt->kind) {
    case FLOE_PQ_LT_NONE: snprintf(out, cap, "NONE"); break;
    case FLOE_PQ_LT_STRING: snprintf(out, cap, "STRING"); break;
    case FLOE_PQ_LT_MAP: snprintf(out, cap, "MAP"); break;
    case FLOE_PQ_LT_LIST: snprintf(out, cap, "LIST"); break;
    case FLOE_PQ_LT_ENUM: snprintf(out, cap, "ENUM"); break;
    case FLOE_PQ_LT_DECIMAL:
        snprintf(out, cap, "DECIMAL(%d,%d)", (int)lt->precision, (int)lt->scale);
        break;
    case FLOE_PQ_LT_DATE: snprintf(out, cap, "DATE"); break;
    case FLOE_PQ_LT_TIME:
    case FLOE_PQ_LT_TIMESTAMP:
        snprintf(out, cap, "%s(%s,%s)", lt->kind == FLOE_PQ_LT_TIME ? "TIME" : "TIMESTAMP",
                 unit_name(lt->unit), lt->utc ? "utc" : "local");
        break;
    case FLOE_PQ_LT_INTEGER:
        snprintf(out, cap, "INT(%d,%s)", (int)lt->bit_width,
                 lt->is_signed ? "signed" : "unsigned");
        break;
    case FLOE_PQ_LT_UNKNOWN: snprintf(out, cap, "UNKNOWN"); break;
    case FLOE_PQ_LT_JSON: snprintf(out, cap, "JSON"); break;
    case FLOE_PQ_LT_BSON: snprintf(out, cap, "BSON"); break;
    case FLOE_PQ_LT_UUID: snprintf(out, cap, "UUID"); break;
    case FLOE_PQ_LT_FLOAT16: snprintf(out, cap, "FLOAT16"); break;
    case FLOE_PQ_LT_VARIANT: snprintf(out, cap, "VARIANT"); break;
    case FLOE_PQ_LT_GEOMETRY: snprintf(out, cap, "GEOMETRY"); break;
    case FLOE_PQ_LT_GEOGRAPHY: snprintf(out, cap, "GEOGRAPHY"); break;
    default: snprintf(out, cap, "UNRECOGNIZED(%d)", (int)lt->raw_id); break;
    }
}

/* ------------------------------------------------------------- decoding */

typedef struct dec {
    floe_thrift_reader r;
    floe_pq_arena *arena; /* NULL: binaries are views, no arrays */
    size_t array_budget;  /* bytes of arrays still allowed */
} dec;

/* Decoded structs are much larger than their encoding (a ColumnChunk is ~400
 * bytes in memory and can be a dozen on the wire), so a small corrupt footer
 * claiming huge lists could make floe allocate gigabytes.  Real footers
 * decode to under ~10x their size; arrays beyond this budget are refused. */
#define ARRAY_BUDGET(len) ((size_t)(len) * 64 + ((size_t)1 << 20))

static void dec_init(dec *d, const uint8_t *data, size_t len, uint64_t origin,
                     floe_pq_arena *arena) {
    floe_thrift_reader_init(&d->r, data, len, origin);
    d->arena = arena;
    d->array_budget = len > SIZE_MAX / 128 ? SIZE_MAX : ARRAY_BUDGET(len);
}

#define TRY(expr)                                    \
    do {                                             \
        floe_status try_st_ = (expr);                \
        if (try_st_) return try_st_;                 \
    } while (0)

/* Inside a field switch: skip the field unless it has the wire type. */
#define EXPECT(type_) \
    if (t != (type_)) break
#define EXPECT_BOOL \
    if (t != FLOE_THRIFT_TRUE && t != FLOE_THRIFT_FALSE) break

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding Parquet metadata"); }

static void *alloc(dec *d, size_t n) {
    return d->arena ? floe_pq_arena_alloc(d->arena, n) : NULL;
}

/* A missing required field: `names` lists field names by id ("" for gaps). */
static floe_status check_required(dec *d, uint32_t seen, uint32_t required,
                                  const char *strct, const char *const *names,
                                  size_t nnames) {
    uint32_t missing = required & ~seen;
    if (!missing) return NULL;
    int id = __builtin_ctz(missing);
    const char *name = (size_t)id < nnames ? names[id] : "?";
    return floe_thrift_error(&d->r, "%s: required field %d (%s) missing before", strct, id,
                             name);
}
#define REQUIRE(strct, mask, ...)                                                    \
    do {                                                                            \
        static const char *const names_[] = {__VA_ARGS__};                          \
        TRY(check_required(d, seen, (mask), (strct), names_,                        \
                           sizeof names_ / sizeof names_[0]));                      \
    } while (0)

static floe_status get_bytes(dec *d, floe_pq_bytes *b) {
    const uint8_t *p;
    uint32_t n;
    TRY(floe_thrift_read_binary(&d->r, &p, &n));
    if (d->arena && n) {
        uint8_t *copy = alloc(d, n);
        if (!copy) return oom();
        memcpy(copy, p, n);
        p = copy;
    }
    b->data = p;
    b->len = n;
    b->set = true;
    return NULL;
}

/* A string copied into the arena with a NUL; *len (if wanted) its length. */
static floe_status get_string(dec *d, const char **s, uint32_t *len) {
    const uint8_t *p;
    uint32_t n;
    TRY(floe_thrift_read_binary(&d->r, &p, &n));
    char *copy = alloc(d, (size_t)n + 1);
    if (!copy) return oom();
    memcpy(copy, p, n);
    copy[n] = 0;
    *s = copy;
    if (len) *len = n;
    return NULL;
}

/* A list header whose elements must be of type `want` (any type if empty). */
static floe_status get_list(dec *d, floe_thrift_type want, const char *what, uint32_t *n) {
    floe_thrift_type et;
    TRY(floe_thrift_read_list(&d->r, &et, n));
    if (*n && et != want)
        return floe_thrift_error(&d->r, "%s: list elements of type %d, expected %d", what,
                                 (int)et, (int)want);
    return NULL;
}

/* An array of `n` elements of `size` bytes in the arena (NULL when n is 0). */
static floe_status get_array(dec *d, uint32_t n, size_t size, void **out) {
    *out = NULL;
    if (!n) return NULL;
    if (!d->arena) return floe_thrift_error(&d->r, "unexpected list");
    size_t bytes = (size_t)n * size;
    if (bytes > d->array_budget)
        return floe_thrift_error(&d->r, "list of %u elements is implausibly large for "
                                 "metadata of %zu bytes", n,
                                 (size_t)(d->r.end - d->r.base));
    d->array_budget -= bytes;
    *out = alloc(d, bytes);
    return *out ? NULL : oom();
}

static floe_status get_i64_list(dec *d, const char *what, int64_t **out, uint32_t *n) {
    TRY(get_list(d, FLOE_THRIFT_I64, what, n));
    TRY(get_array(d, *n, sizeof(int64_t), (void **)out));
    for (uint32_t i = 0; i < *n; i++) TRY(floe_thrift_read_i64(&d->r, &(*out)[i]));
    return NULL;
}

static floe_status get_i32_list(dec *d, const char *what, int32_t **out, uint32_t *n) {
    TRY(get_list(d, FLOE_THRIFT_I32, what, n));
    TRY(get_array(d, *n, sizeof(int32_t), (void **)out));
    for (uint32_t i = 0; i < *n; i++) TRY(floe_thrift_read_i32(&d->r, &(*out)[i]));
    return NULL;
}

/* The field loop every struct decoder shares. */
#define FIELDS_BEGIN                                                  \
    floe_thrift_type t;                                               \
    int16_t id, last = 0;                                             \
    uint32_t seen = 0;                                                \
    TRY(floe_thrift_struct_enter(&d->r));                             \
    for (;;) {                                                        \
        TRY(floe_thrift_read_field(&d->r, &last, &t, &id));           \
        if (t == FLOE_THRIFT_STOP) break;                             \
        if (id >= 0 && id < 32) seen |= 1u << id;                     \
        switch (id) {
#define FIELDS_END                                                    \
        }                                                             \
        /* Unknown id or unexpected type: skip it. */                 \
        if (id >= 0 && id < 32) seen &= ~(1u << id);                  \
        TRY(floe_thrift_skip(&d->r, t));                              \
    }                                                                 \
    floe_thrift_struct_leave(&d->r);                                  \
    (void)seen;

/* A struct with no fields we read (empty marker structs, union members). */
static floe_status skip_struct_value(dec *d, floe_thrift_type t) {
    return floe_thrift_skip(&d->r, t);
}

static floe_status dec_statistics(dec *d, floe_pq_statistics *s) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_BINARY); TRY(get_bytes(d, &s->max)); continue;
    case 2: EXPECT(FLOE_THRIFT_BINARY); TRY(get_bytes(d, &s->min)); continue;
    case 3: EXPECT(FLOE_THRIFT_I64); TRY(floe_thrift_read_i64(&d->r, &s->null_count));
        s->has_null_count = true; continue;
    case 4: EXPECT(FLOE_THRIFT_I64); TRY(floe_thrift_read_i64(&d->r, &s->distinct_count));
        s->has_distinct_count = true; continue;
    case 5: EXPECT(FLOE_THRIFT_BINARY); TRY(get_bytes(d, &s->max_value)); continue;
    case 6: EXPECT(FLOE_THRIFT_BINARY); TRY(get_bytes(d, &s->min_value)); continue;
    case 7: EXPECT_BOOL; s->has_is_max_value_exact = true;
        s->is_max_value_exact = t == FLOE_THRIFT_TRUE; continue;
    case 8: EXPECT_BOOL; s->has_is_min_value_exact = true;
        s->is_min_value_exact = t == FLOE_THRIFT_TRUE; continue;
    case 9: EXPECT(FLOE_THRIFT_I64); TRY(floe_thrift_read_i64(&d->r, &s->nan_count));
        s->has_nan_count = true; continue;
    FIELDS_END
    return NULL;
}

static floe_status dec_time_unit(dec *d, floe_pq_time_unit *u) {
    FIELDS_BEGIN
    case 1: case 2: case 3:
        EXPECT(FLOE_THRIFT_STRUCT);
        *u = (floe_pq_time_unit)id;
        TRY(skip_struct_value(d, t));
        continue;
    FIELDS_END
    return NULL;
}

static floe_status dec_decimal_type(dec *d, floe_pq_logical_type *lt) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &lt->scale)); continue;
    case 2: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &lt->precision)); continue;
    FIELDS_END
    REQUIRE("DecimalType", 0x6, "", "scale", "precision");
    return NULL;
}

/* TimeType and TimestampType have the same shape. */
static floe_status dec_time_type(dec *d, floe_pq_logical_type *lt) {
    FIELDS_BEGIN
    case 1: EXPECT_BOOL; lt->utc = t == FLOE_THRIFT_TRUE; continue;
    case 2: EXPECT(FLOE_THRIFT_STRUCT); TRY(dec_time_unit(d, &lt->unit)); continue;
    FIELDS_END
    REQUIRE("TimeType", 0x6, "", "isAdjustedToUTC", "unit");
    return NULL;
}

static floe_status dec_int_type(dec *d, floe_pq_logical_type *lt) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_I8); TRY(floe_thrift_read_i8(&d->r, &lt->bit_width)); continue;
    case 2: EXPECT_BOOL; lt->is_signed = t == FLOE_THRIFT_TRUE; continue;
    FIELDS_END
    REQUIRE("IntType", 0x6, "", "bitWidth", "isSigned");
    return NULL;
}

static floe_status dec_variant_type(dec *d, floe_pq_logical_type *lt) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_I8); TRY(floe_thrift_read_i8(&d->r, &lt->variant_version));
        continue;
    FIELDS_END
    return NULL;
}

static floe_status dec_geo_type(dec *d, floe_pq_logical_type *lt) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_BINARY); TRY(get_string(d, &lt->crs, NULL)); continue;
    case 2: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &lt->algorithm)); continue;
    FIELDS_END
    return NULL;
}

static floe_status dec_logical_type(dec *d, floe_pq_logical_type *lt) {
    lt->algorithm = -1;
    lt->variant_version = -1;
    FIELDS_BEGIN
    default:
        /* Every union member is a struct; the first one read wins. */
        if (t != FLOE_THRIFT_STRUCT || lt->kind != FLOE_PQ_LT_NONE) break;
        lt->raw_id = id;
        switch (id) {
        case FLOE_PQ_LT_DECIMAL: TRY(dec_decimal_type(d, lt)); break;
        case FLOE_PQ_LT_TIME:
        case FLOE_PQ_LT_TIMESTAMP: TRY(dec_time_type(d, lt)); break;
        case FLOE_PQ_LT_INTEGER: TRY(dec_int_type(d, lt)); break;
        case FLOE_PQ_LT_VARIANT: TRY(dec_variant_type(d, lt)); break;
        case FLOE_PQ_LT_GEOMETRY:
        case FLOE_PQ_LT_GEOGRAPHY: TRY(dec_geo_type(d, lt)); break;
        default: TRY(skip_struct_value(d, t)); break;
        }
        switch (id) {
        case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8: case 10:
        case 11: case 12: case 13: case 14: case 15: case 16: case 17: case 18:
            lt->kind = (floe_pq_logical_kind)id;
            break;
        default: lt->kind = FLOE_PQ_LT_UNRECOGNIZED; break;
        }
        continue;
    FIELDS_END
    return NULL;
}

static floe_status dec_schema_element(dec *d, floe_pq_schema_element *e) {
    e->converted_type = FLOE_PQ_CT_NONE;
    FIELDS_BEGIN
    case 1: { EXPECT(FLOE_THRIFT_I32); int32_t v; TRY(floe_thrift_read_i32(&d->r, &v));
        e->has_type = true; e->type = (floe_pq_type)v; continue; }
    case 2: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &e->type_length));
        e->has_type_length = true; continue;
    case 3: { EXPECT(FLOE_THRIFT_I32); int32_t v; TRY(floe_thrift_read_i32(&d->r, &v));
        e->has_repetition = true; e->repetition = (floe_pq_repetition)v; continue; }
    case 4: EXPECT(FLOE_THRIFT_BINARY); TRY(get_string(d, &e->name, NULL)); continue;
    case 5: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &e->num_children));
        e->has_num_children = true; continue;
    case 6: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &e->converted_type));
        continue;
    case 7: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &e->scale));
        e->has_scale = true; continue;
    case 8: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &e->precision));
        e->has_precision = true; continue;
    case 9: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &e->field_id));
        e->has_field_id = true; continue;
    case 10: EXPECT(FLOE_THRIFT_STRUCT); TRY(dec_logical_type(d, &e->logical)); continue;
    FIELDS_END
    REQUIRE("SchemaElement", 1u << 4, "", "type", "type_length", "repetition_type", "name");
    /* Values outside the enums are corrupt: the schema builder relies on them. */
    if (e->has_type && ((int)e->type < 0 || (int)e->type > 7))
        return floe_thrift_error(&d->r, "SchemaElement '%s': invalid type %d", e->name,
                                 (int)e->type);
    if (e->has_repetition && ((int)e->repetition < 0 || (int)e->repetition > 2))
        return floe_thrift_error(&d->r, "SchemaElement '%s': invalid repetition %d",
                                 e->name, (int)e->repetition);
    return NULL;
}

static floe_status dec_key_value(dec *d, floe_pq_key_value *kv) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_BINARY); TRY(get_string(d, &kv->key, NULL)); continue;
    case 2: EXPECT(FLOE_THRIFT_BINARY); TRY(get_string(d, &kv->value, &kv->value_len));
        continue;
    FIELDS_END
    REQUIRE("KeyValue", 0x2, "", "key");
    return NULL;
}

static floe_status dec_key_values(dec *d, floe_pq_key_value **out, uint32_t *n) {
    TRY(get_list(d, FLOE_THRIFT_STRUCT, "key_value_metadata", n));
    TRY(get_array(d, *n, sizeof **out, (void **)out));
    for (uint32_t i = 0; i < *n; i++) TRY(dec_key_value(d, &(*out)[i]));
    return NULL;
}

static floe_status dec_sorting_column(dec *d, floe_pq_sorting_column *sc) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &sc->column_idx)); continue;
    case 2: EXPECT_BOOL; sc->descending = t == FLOE_THRIFT_TRUE; continue;
    case 3: EXPECT_BOOL; sc->nulls_first = t == FLOE_THRIFT_TRUE; continue;
    FIELDS_END
    REQUIRE("SortingColumn", 0xe, "", "column_idx", "descending", "nulls_first");
    return NULL;
}

static floe_status dec_page_encoding_stats(dec *d, floe_pq_page_encoding_stats *s) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &s->page_type)); continue;
    case 2: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &s->encoding)); continue;
    case 3: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &s->count)); continue;
    FIELDS_END
    REQUIRE("PageEncodingStats", 0xe, "", "page_type", "encoding", "count");
    return NULL;
}

static floe_status dec_size_statistics(dec *d, floe_pq_size_statistics *s) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_I64);
        TRY(floe_thrift_read_i64(&d->r, &s->unencoded_byte_array_data_bytes));
        s->has_unencoded_byte_array_data_bytes = true; continue;
    case 2: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_i64_list(d, "repetition_level_histogram", &s->repetition_level_histogram,
                         &s->num_repetition_level_histogram));
        continue;
    case 3: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_i64_list(d, "definition_level_histogram", &s->definition_level_histogram,
                         &s->num_definition_level_histogram));
        continue;
    FIELDS_END
    return NULL;
}

static floe_status dec_column_meta(dec *d, floe_pq_column_meta *m) {
    FIELDS_BEGIN
    case 1: { EXPECT(FLOE_THRIFT_I32); int32_t v; TRY(floe_thrift_read_i32(&d->r, &v));
        m->type = (floe_pq_type)v; continue; }
    case 2: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_i32_list(d, "encodings", &m->encodings, &m->num_encodings)); continue;
    case 3: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_list(d, FLOE_THRIFT_BINARY, "path_in_schema", &m->path_len));
        TRY(get_array(d, m->path_len, sizeof(char *), (void **)&m->path_in_schema));
        for (uint32_t i = 0; i < m->path_len; i++)
            TRY(get_string(d, &m->path_in_schema[i], NULL));
        continue;
    case 4: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &m->codec)); continue;
    case 5: EXPECT(FLOE_THRIFT_I64); TRY(floe_thrift_read_i64(&d->r, &m->num_values)); continue;
    case 6: EXPECT(FLOE_THRIFT_I64);
        TRY(floe_thrift_read_i64(&d->r, &m->total_uncompressed_size)); continue;
    case 7: EXPECT(FLOE_THRIFT_I64);
        TRY(floe_thrift_read_i64(&d->r, &m->total_compressed_size)); continue;
    case 8: EXPECT(FLOE_THRIFT_LIST);
        TRY(dec_key_values(d, &m->key_value_metadata, &m->num_key_value_metadata)); continue;
    case 9: EXPECT(FLOE_THRIFT_I64); TRY(floe_thrift_read_i64(&d->r, &m->data_page_offset));
        continue;
    case 10: EXPECT(FLOE_THRIFT_I64); TRY(floe_thrift_read_i64(&d->r, &m->index_page_offset));
        m->has_index_page_offset = true; continue;
    case 11: EXPECT(FLOE_THRIFT_I64);
        TRY(floe_thrift_read_i64(&d->r, &m->dictionary_page_offset));
        m->has_dictionary_page_offset = true; continue;
    case 12: EXPECT(FLOE_THRIFT_STRUCT); TRY(dec_statistics(d, &m->statistics));
        m->has_statistics = true; continue;
    case 13: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_list(d, FLOE_THRIFT_STRUCT, "encoding_stats", &m->num_encoding_stats));
        TRY(get_array(d, m->num_encoding_stats, sizeof *m->encoding_stats,
                      (void **)&m->encoding_stats));
        for (uint32_t i = 0; i < m->num_encoding_stats; i++)
            TRY(dec_page_encoding_stats(d, &m->encoding_stats[i]));
        continue;
    case 14: EXPECT(FLOE_THRIFT_I64);
        TRY(floe_thrift_read_i64(&d->r, &m->bloom_filter_offset));
        m->has_bloom_filter_offset = true; continue;
    case 15: EXPECT(FLOE_THRIFT_I32);
        TRY(floe_thrift_read_i32(&d->r, &m->bloom_filter_length));
        m->has_bloom_filter_length = true; continue;
    case 16: EXPECT(FLOE_THRIFT_STRUCT); TRY(dec_size_statistics(d, &m->size_statistics));
        m->has_size_statistics = true; continue;
    FIELDS_END
    REQUIRE("ColumnMetaData", 0x2fe, "", "type", "encodings", "path_in_schema", "codec",
            "num_values", "total_uncompressed_size", "total_compressed_size",
            "key_value_metadata", "data_page_offset");
    if ((int)m->type < 0 || (int)m->type > 7)
        return floe_thrift_error(&d->r, "ColumnMetaData: invalid type %d", (int)m->type);
    return NULL;
}

static floe_status dec_column_chunk(dec *d, floe_pq_column_chunk *c) {
    bool has_oi_off = false, has_oi_len = false, has_ci_off = false, has_ci_len = false;
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_BINARY); TRY(get_string(d, &c->file_path, NULL)); continue;
    case 2: EXPECT(FLOE_THRIFT_I64); TRY(floe_thrift_read_i64(&d->r, &c->file_offset)); continue;
    case 3: EXPECT(FLOE_THRIFT_STRUCT); TRY(dec_column_meta(d, &c->meta_data));
        c->has_meta_data = true; continue;
    case 4: EXPECT(FLOE_THRIFT_I64);
        TRY(floe_thrift_read_i64(&d->r, &c->offset_index_offset));
        has_oi_off = true; continue;
    case 5: EXPECT(FLOE_THRIFT_I32);
        TRY(floe_thrift_read_i32(&d->r, &c->offset_index_length));
        has_oi_len = true; continue;
    case 6: EXPECT(FLOE_THRIFT_I64);
        TRY(floe_thrift_read_i64(&d->r, &c->column_index_offset));
        has_ci_off = true; continue;
    case 7: EXPECT(FLOE_THRIFT_I32);
        TRY(floe_thrift_read_i32(&d->r, &c->column_index_length));
        has_ci_len = true; continue;
    case 8: case 9:
        /* Column crypto metadata / encrypted ColumnMetaData: floe cannot
         * decrypt; remember it so the file layer refuses the file. */
        c->encrypted = true;
        break;
    FIELDS_END
    c->has_offset_index = has_oi_off && has_oi_len;
    c->has_column_index = has_ci_off && has_ci_len;
    return NULL;
}

static floe_status dec_row_group(dec *d, floe_pq_row_group *g) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_list(d, FLOE_THRIFT_STRUCT, "columns", &g->num_columns));
        TRY(get_array(d, g->num_columns, sizeof *g->columns, (void **)&g->columns));
        for (uint32_t i = 0; i < g->num_columns; i++)
            TRY(dec_column_chunk(d, &g->columns[i]));
        continue;
    case 2: EXPECT(FLOE_THRIFT_I64); TRY(floe_thrift_read_i64(&d->r, &g->total_byte_size));
        continue;
    case 3: EXPECT(FLOE_THRIFT_I64); TRY(floe_thrift_read_i64(&d->r, &g->num_rows)); continue;
    case 4: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_list(d, FLOE_THRIFT_STRUCT, "sorting_columns", &g->num_sorting_columns));
        TRY(get_array(d, g->num_sorting_columns, sizeof *g->sorting_columns,
                      (void **)&g->sorting_columns));
        for (uint32_t i = 0; i < g->num_sorting_columns; i++)
            TRY(dec_sorting_column(d, &g->sorting_columns[i]));
        continue;
    case 5: EXPECT(FLOE_THRIFT_I64); TRY(floe_thrift_read_i64(&d->r, &g->file_offset));
        g->has_file_offset = true; continue;
    case 6: EXPECT(FLOE_THRIFT_I64);
        TRY(floe_thrift_read_i64(&d->r, &g->total_compressed_size));
        g->has_total_compressed_size = true; continue;
    case 7: EXPECT(FLOE_THRIFT_I16); TRY(floe_thrift_read_i16(&d->r, &g->ordinal));
        g->has_ordinal = true; continue;
    FIELDS_END
    REQUIRE("RowGroup", 0xe, "", "columns", "total_byte_size", "num_rows");
    if (g->num_rows < 0)
        return floe_thrift_error(&d->r, "RowGroup: negative num_rows %" PRId64, g->num_rows);
    return NULL;
}

static floe_status dec_column_order(dec *d, floe_pq_column_order *o) {
    FIELDS_BEGIN
    default:
        if (t != FLOE_THRIFT_STRUCT || o->kind) break;
        o->kind = id;
        TRY(skip_struct_value(d, t));
        continue;
    FIELDS_END
    return NULL;
}

static floe_status dec_file_metadata(dec *d, floe_pq_file_metadata *md) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &md->version)); continue;
    case 2: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_list(d, FLOE_THRIFT_STRUCT, "schema", &md->num_schema));
        TRY(get_array(d, md->num_schema, sizeof *md->schema, (void **)&md->schema));
        for (uint32_t i = 0; i < md->num_schema; i++)
            TRY(dec_schema_element(d, &md->schema[i]));
        continue;
    case 3: EXPECT(FLOE_THRIFT_I64); TRY(floe_thrift_read_i64(&d->r, &md->num_rows)); continue;
    case 4: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_list(d, FLOE_THRIFT_STRUCT, "row_groups", &md->num_row_groups));
        TRY(get_array(d, md->num_row_groups, sizeof *md->row_groups,
                      (void **)&md->row_groups));
        for (uint32_t i = 0; i < md->num_row_groups; i++)
            TRY(dec_row_group(d, &md->row_groups[i]));
        continue;
    case 5: EXPECT(FLOE_THRIFT_LIST);
        TRY(dec_key_values(d, &md->key_value_metadata, &md->num_key_value_metadata));
        continue;
    case 6: EXPECT(FLOE_THRIFT_BINARY); TRY(get_string(d, &md->created_by, NULL)); continue;
    case 7: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_list(d, FLOE_THRIFT_STRUCT, "column_orders", &md->num_column_orders));
        TRY(get_array(d, md->num_column_orders, sizeof *md->column_orders,
                      (void **)&md->column_orders));
        for (uint32_t i = 0; i < md->num_column_orders; i++)
            TRY(dec_column_order(d, &md->column_orders[i]));
        continue;
    case 8: EXPECT(FLOE_THRIFT_STRUCT); md->has_encryption_algorithm = true;
        TRY(skip_struct_value(d, t)); continue;
    case 9: EXPECT(FLOE_THRIFT_BINARY); TRY(get_bytes(d, &md->footer_signing_key_metadata));
        continue;
    FIELDS_END
    REQUIRE("FileMetaData", 0x1e, "", "version", "schema", "num_rows", "row_groups");
    if (md->num_rows < 0)
        return floe_thrift_error(&d->r, "FileMetaData: negative num_rows %" PRId64,
                                 md->num_rows);
    return NULL;
}

floe_status floe_pq_decode_file_metadata(const uint8_t *data, size_t len, uint64_t origin,
                                         floe_pq_file_metadata **out) {
    *out = NULL;
    floe_pq_file_metadata *md = floe_calloc(1, sizeof *md);
    if (!md) return oom();
    floe_pq_arena_init(&md->arena);
    dec d;
    dec_init(&d, data, len, origin, &md->arena);
    floe_status st = dec_file_metadata(&d, md);
    if (st) {
        floe_pq_file_metadata_free(md);
        return floe_status_wrap(st, "decoding FileMetaData");
    }
    *out = md;
    return NULL;
}

void floe_pq_file_metadata_free(floe_pq_file_metadata *md) {
    if (!md) return;
    floe_pq_arena_free(&md->arena);
    floe_free(md);
}

static floe_status dec_data_page_header(dec *d, floe_pq_data_page_header *h) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &h->num_values)); continue;
    case 2: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &h->encoding)); continue;
    case 3: EXPECT(FLOE_THRIFT_I32);
        TRY(floe_thrift_read_i32(&d->r, &h->definition_level_encoding)); continue;
    case 4: EXPECT(FLOE_THRIFT_I32);
        TRY(floe_thrift_read_i32(&d->r, &h->repetition_level_encoding)); continue;
    case 5: EXPECT(FLOE_THRIFT_STRUCT); TRY(dec_statistics(d, &h->statistics));
        h->has_statistics = true; continue;
    FIELDS_END
    REQUIRE("DataPageHeader", 0x1e, "", "num_values", "encoding",
            "definition_level_encoding", "repetition_level_encoding");
    if (h->num_values < 0)
        return floe_thrift_error(&d->r, "DataPageHeader: negative num_values %d",
                                 (int)h->num_values);
    return NULL;
}

static floe_status dec_dictionary_page_header(dec *d, floe_pq_dictionary_page_header *h) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &h->num_values)); continue;
    case 2: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &h->encoding)); continue;
    case 3: EXPECT_BOOL; h->has_is_sorted = true; h->is_sorted = t == FLOE_THRIFT_TRUE;
        continue;
    FIELDS_END
    REQUIRE("DictionaryPageHeader", 0x6, "", "num_values", "encoding");
    if (h->num_values < 0)
        return floe_thrift_error(&d->r, "DictionaryPageHeader: negative num_values %d",
                                 (int)h->num_values);
    return NULL;
}

static floe_status dec_data_page_header_v2(dec *d, floe_pq_data_page_header_v2 *h) {
    h->is_compressed = true;
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &h->num_values)); continue;
    case 2: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &h->num_nulls)); continue;
    case 3: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &h->num_rows)); continue;
    case 4: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &h->encoding)); continue;
    case 5: EXPECT(FLOE_THRIFT_I32);
        TRY(floe_thrift_read_i32(&d->r, &h->definition_levels_byte_length)); continue;
    case 6: EXPECT(FLOE_THRIFT_I32);
        TRY(floe_thrift_read_i32(&d->r, &h->repetition_levels_byte_length)); continue;
    case 7: EXPECT_BOOL; h->is_compressed = t == FLOE_THRIFT_TRUE; continue;
    case 8: EXPECT(FLOE_THRIFT_STRUCT); TRY(dec_statistics(d, &h->statistics));
        h->has_statistics = true; continue;
    FIELDS_END
    REQUIRE("DataPageHeaderV2", 0x7e, "", "num_values", "num_nulls", "num_rows", "encoding",
            "definition_levels_byte_length", "repetition_levels_byte_length");
    if (h->num_values < 0 || h->num_nulls < 0 || h->num_rows < 0 ||
        h->definition_levels_byte_length < 0 || h->repetition_levels_byte_length < 0 ||
        h->num_nulls > h->num_values)
        return floe_thrift_error(&d->r,
                                 "DataPageHeaderV2: inconsistent counts (values %d, nulls %d, "
                                 "rows %d, level bytes %d/%d)",
                                 (int)h->num_values, (int)h->num_nulls, (int)h->num_rows,
                                 (int)h->definition_levels_byte_length,
                                 (int)h->repetition_levels_byte_length);
    return NULL;
}

static floe_status dec_page_header(dec *d, floe_pq_page_header *h) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &h->type)); continue;
    case 2: EXPECT(FLOE_THRIFT_I32);
        TRY(floe_thrift_read_i32(&d->r, &h->uncompressed_page_size)); continue;
    case 3: EXPECT(FLOE_THRIFT_I32);
        TRY(floe_thrift_read_i32(&d->r, &h->compressed_page_size)); continue;
    case 4: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &h->crc));
        h->has_crc = true; continue;
    case 5: EXPECT(FLOE_THRIFT_STRUCT); TRY(dec_data_page_header(d, &h->data_page_header));
        h->has_data_page_header = true; continue;
    case 6: EXPECT(FLOE_THRIFT_STRUCT); TRY(skip_struct_value(d, t));
        h->has_index_page_header = true; continue;
    case 7: EXPECT(FLOE_THRIFT_STRUCT);
        TRY(dec_dictionary_page_header(d, &h->dictionary_page_header));
        h->has_dictionary_page_header = true; continue;
    case 8: EXPECT(FLOE_THRIFT_STRUCT);
        TRY(dec_data_page_header_v2(d, &h->data_page_header_v2));
        h->has_data_page_header_v2 = true; continue;
    FIELDS_END
    REQUIRE("PageHeader", 0xe, "", "type", "uncompressed_page_size", "compressed_page_size");
    if (h->uncompressed_page_size < 0 || h->compressed_page_size < 0)
        return floe_thrift_error(&d->r, "PageHeader: negative page size (%d compressed, %d "
                                 "uncompressed)", (int)h->compressed_page_size,
                                 (int)h->uncompressed_page_size);
    return NULL;
}

floe_status floe_pq_decode_page_header(const uint8_t *data, size_t len, uint64_t origin,
                                       floe_pq_page_header *out, size_t *consumed) {
    memset(out, 0, sizeof *out);
    dec d;
    dec_init(&d, data, len, origin, NULL);
    floe_status st = dec_page_header(&d, out);
    if (st) return floe_status_wrap(st, "decoding PageHeader at offset %" PRIu64, origin);
    *consumed = (size_t)(d.r.p - d.r.base);
    return NULL;
}

static floe_status dec_column_index(dec *d, floe_pq_column_index *ci) {
    uint32_t n_min = 0, n_max = 0;
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_list(d, FLOE_THRIFT_TRUE, "null_pages", &ci->num_pages));
        TRY(get_array(d, ci->num_pages, sizeof(bool), (void **)&ci->null_pages));
        for (uint32_t i = 0; i < ci->num_pages; i++)
            TRY(floe_thrift_read_bool_elem(&d->r, &ci->null_pages[i]));
        continue;
    case 2: case 3: {
        EXPECT(FLOE_THRIFT_LIST);
        uint32_t *n = id == 2 ? &n_min : &n_max;
        floe_pq_bytes **arr = id == 2 ? &ci->min_values : &ci->max_values;
        TRY(get_list(d, FLOE_THRIFT_BINARY, id == 2 ? "min_values" : "max_values", n));
        TRY(get_array(d, *n, sizeof(floe_pq_bytes), (void **)arr));
        for (uint32_t i = 0; i < *n; i++) TRY(get_bytes(d, &(*arr)[i]));
        continue;
    }
    case 4: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &ci->boundary_order));
        continue;
    case 5: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_i64_list(d, "null_counts", &ci->null_counts, &ci->num_null_counts));
        continue;
    case 6: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_i64_list(d, "repetition_level_histograms", &ci->repetition_level_histograms,
                         &ci->num_repetition_level_histograms));
        continue;
    case 7: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_i64_list(d, "definition_level_histograms", &ci->definition_level_histograms,
                         &ci->num_definition_level_histograms));
        continue;
    case 8: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_i64_list(d, "nan_counts", &ci->nan_counts, &ci->num_nan_counts));
        continue;
    FIELDS_END
    REQUIRE("ColumnIndex", 0x1e, "", "null_pages", "min_values", "max_values",
            "boundary_order");
    if (n_min != ci->num_pages || n_max != ci->num_pages ||
        (ci->null_counts && ci->num_null_counts != ci->num_pages) ||
        (ci->nan_counts && ci->num_nan_counts != ci->num_pages))
        return floe_thrift_error(&d->r,
                                 "ColumnIndex: %u null_pages but %u min, %u max, %u null "
                                 "counts",
                                 ci->num_pages, n_min, n_max, ci->num_null_counts);
    return NULL;
}

floe_status floe_pq_decode_column_index(const uint8_t *data, size_t len, uint64_t origin,
                                        floe_pq_column_index **out) {
    *out = NULL;
    floe_pq_column_index *ci = floe_calloc(1, sizeof *ci);
    if (!ci) return oom();
    floe_pq_arena_init(&ci->arena);
    dec d;
    dec_init(&d, data, len, origin, &ci->arena);
    floe_status st = dec_column_index(&d, ci);
    if (st) {
        floe_pq_column_index_free(ci);
        return floe_status_wrap(st, "decoding ColumnIndex");
    }
    *out = ci;
    return NULL;
}

void floe_pq_column_index_free(floe_pq_column_index *ci) {
    if (!ci) return;
    floe_pq_arena_free(&ci->arena);
    floe_free(ci);
}

static floe_status dec_page_location(dec *d, floe_pq_page_location *l) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_I64); TRY(floe_thrift_read_i64(&d->r, &l->offset)); continue;
    case 2: EXPECT(FLOE_THRIFT_I32);
        TRY(floe_thrift_read_i32(&d->r, &l->compressed_page_size)); continue;
    case 3: EXPECT(FLOE_THRIFT_I64); TRY(floe_thrift_read_i64(&d->r, &l->first_row_index));
        continue;
    FIELDS_END
    REQUIRE("PageLocation", 0xe, "", "offset", "compressed_page_size", "first_row_index");
    if (l->offset < 0 || l->compressed_page_size < 0 || l->first_row_index < 0)
        return floe_thrift_error(&d->r, "PageLocation: negative offset, size or row index");
    return NULL;
}

static floe_status dec_offset_index(dec *d, floe_pq_offset_index *oi) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_list(d, FLOE_THRIFT_STRUCT, "page_locations", &oi->num_pages));
        TRY(get_array(d, oi->num_pages, sizeof *oi->page_locations,
                      (void **)&oi->page_locations));
        for (uint32_t i = 0; i < oi->num_pages; i++)
            TRY(dec_page_location(d, &oi->page_locations[i]));
        continue;
    case 2: EXPECT(FLOE_THRIFT_LIST);
        TRY(get_i64_list(d, "unencoded_byte_array_data_bytes",
                         &oi->unencoded_byte_array_data_bytes, &oi->num_unencoded));
        continue;
    FIELDS_END
    REQUIRE("OffsetIndex", 0x2, "", "page_locations");
    return NULL;
}

floe_status floe_pq_decode_offset_index(const uint8_t *data, size_t len, uint64_t origin,
                                        floe_pq_offset_index **out) {
    *out = NULL;
    floe_pq_offset_index *oi = floe_calloc(1, sizeof *oi);
    if (!oi) return oom();
    floe_pq_arena_init(&oi->arena);
    dec d;
    dec_init(&d, data, len, origin, &oi->arena);
    floe_status st = dec_offset_index(&d, oi);
    if (st) {
        floe_pq_offset_index_free(oi);
        return floe_status_wrap(st, "decoding OffsetIndex");
    }
    *out = oi;
    return NULL;
}

void floe_pq_offset_index_free(floe_pq_offset_index *oi) {
    if (!oi) return;
    floe_pq_arena_free(&oi->arena);
    floe_free(oi);
}

/* A union of empty structs: the member id read (0 if none). */
static floe_status dec_empty_union(dec *d, int16_t *member) {
    FIELDS_BEGIN
    default:
        if (t != FLOE_THRIFT_STRUCT || *member) break;
        *member = id;
        TRY(skip_struct_value(d, t));
        continue;
    FIELDS_END
    return NULL;
}

static floe_status dec_bloom_filter_header(dec *d, floe_pq_bloom_filter_header *h) {
    FIELDS_BEGIN
    case 1: EXPECT(FLOE_THRIFT_I32); TRY(floe_thrift_read_i32(&d->r, &h->num_bytes)); continue;
    case 2: EXPECT(FLOE_THRIFT_STRUCT); TRY(dec_empty_union(d, &h->algorithm)); continue;
    case 3: EXPECT(FLOE_THRIFT_STRUCT); TRY(dec_empty_union(d, &h->hash)); continue;
    case 4: EXPECT(FLOE_THRIFT_STRUCT); TRY(dec_empty_union(d, &h->compression)); continue;
    FIELDS_END
    REQUIRE("BloomFilterHeader", 0x1e, "", "numBytes", "algorithm", "hash", "compression");
    if (h->num_bytes < 0)
        return floe_thrift_error(&d->r, "BloomFilterHeader: negative numBytes %d",
                                 (int)h->num_bytes);
    return NULL;
}

floe_status floe_pq_decode_bloom_filter_header(const uint8_t *data, size_t len,
                                               uint64_t origin,
                                               floe_pq_bloom_filter_header *out,
                                               size_t *consumed) {
    memset(out, 0, sizeof *out);
    dec d;
    dec_init(&d, data, len, origin, NULL);
    floe_status st = dec_bloom_filter_header(&d, out);
    if (st) return floe_status_wrap(st, "decoding BloomFilterHeader");
    *consumed = (size_t)(d.r.p - d.r.base);
    return NULL;
}

/* ------------------------------------------------------------- encoding */

typedef floe_thrift_writer W;

static void enc_bytes(W *w, int16_t id, const floe_pq_bytes *b) {
    if (b->set) floe_thrift_write_field_binary(w, id, b->data, b->len);
}

static void enc_empty_struct_field(W *w, int16_t id) {
    floe_thrift_write_field(w, FLOE_THRIFT_STRUCT, id);
    floe_thrift_write_struct_begin(w);
    floe_thrift_write_struct_end(w);
}

static void enc_i64_list(W *w, int16_t id, const int64_t *v, uint32_t n) {
    floe_thrift_write_field(w, FLOE_THRIFT_LIST, id);
    floe_thrift_write_list(w, FLOE_THRIFT_I64, n);
    for (uint32_t i = 0; i < n; i++) floe_thrift_write_i64(w, v[i]);
}

static void enc_statistics(W *w, int16_t id, const floe_pq_statistics *s) {
    floe_thrift_write_field(w, FLOE_THRIFT_STRUCT, id);
    floe_thrift_write_struct_begin(w);
    enc_bytes(w, 1, &s->max);
    enc_bytes(w, 2, &s->min);
    if (s->has_null_count) floe_thrift_write_field_i64(w, 3, s->null_count);
    if (s->has_distinct_count) floe_thrift_write_field_i64(w, 4, s->distinct_count);
    enc_bytes(w, 5, &s->max_value);
    enc_bytes(w, 6, &s->min_value);
    if (s->has_is_max_value_exact) floe_thrift_write_field_bool(w, 7, s->is_max_value_exact);
    if (s->has_is_min_value_exact) floe_thrift_write_field_bool(w, 8, s->is_min_value_exact);
    if (s->has_nan_count) floe_thrift_write_field_i64(w, 9, s->nan_count);
    floe_thrift_write_struct_end(w);
}

static void enc_time_unit(W *w, floe_pq_time_unit u) {
    floe_thrift_write_field(w, FLOE_THRIFT_STRUCT, 2);
    floe_thrift_write_struct_begin(w);
    if (u != FLOE_PQ_UNIT_NONE) enc_empty_struct_field(w, (int16_t)u);
    floe_thrift_write_struct_end(w);
}

static void enc_logical_type(W *w, const floe_pq_logical_type *lt) {
    if (lt->kind == FLOE_PQ_LT_NONE) return;
    /* A member floe does not understand cannot be re-encoded faithfully;
     * leave the annotation out rather than write something different. */
    if (lt->kind == FLOE_PQ_LT_UNRECOGNIZED) return;
    floe_thrift_write_field(w, FLOE_THRIFT_STRUCT, 10);
    floe_thrift_write_struct_begin(w);
    floe_thrift_write_field(w, FLOE_THRIFT_STRUCT, (int16_t)lt->kind);
    floe_thrift_write_struct_begin(w);
    switch (lt->kind) {
    case FLOE_PQ_LT_DECIMAL:
        floe_thrift_write_field_i32(w, 1, lt->scale);
        floe_thrift_write_field_i32(w, 2, lt->precision);
        break;
    case FLOE_PQ_LT_TIME:
    case FLOE_PQ_LT_TIMESTAMP:
        floe_thrift_write_field_bool(w, 1, lt->utc);
        enc_time_unit(w, lt->unit);
        break;
    case FLOE_PQ_LT_INTEGER:
        floe_thrift_write_field(w, FLOE_THRIFT_I8, 1);
        floe_thrift_write_i8(w, lt->bit_width);
        floe_thrift_write_field_bool(w, 2, lt->is_signed);
        break;
    case FLOE_PQ_LT_VARIANT:
        if (lt->variant_version >= 0) {
            floe_thrift_write_field(w, FLOE_THRIFT_I8, 1);
            floe_thrift_write_i8(w, lt->variant_version);
        }
        break;
    case FLOE_PQ_LT_GEOMETRY:
    case FLOE_PQ_LT_GEOGRAPHY:
        if (lt->crs) floe_thrift_write_field_string(w, 1, lt->crs);
        if (lt->kind == FLOE_PQ_LT_GEOGRAPHY && lt->algorithm >= 0)
            floe_thrift_write_field_i32(w, 2, lt->algorithm);
        break;
    default: break;
    }
    floe_thrift_write_struct_end(w);
    floe_thrift_write_struct_end(w);
}

static void enc_schema_element(W *w, const floe_pq_schema_element *e) {
    floe_thrift_write_struct_begin(w);
    if (e->has_type) floe_thrift_write_field_i32(w, 1, e->type);
    if (e->has_type_length) floe_thrift_write_field_i32(w, 2, e->type_length);
    if (e->has_repetition) floe_thrift_write_field_i32(w, 3, e->repetition);
    floe_thrift_write_field_string(w, 4, e->name ? e->name : "");
    if (e->has_num_children) floe_thrift_write_field_i32(w, 5, e->num_children);
    if (e->converted_type != FLOE_PQ_CT_NONE)
        floe_thrift_write_field_i32(w, 6, e->converted_type);
    if (e->has_scale) floe_thrift_write_field_i32(w, 7, e->scale);
    if (e->has_precision) floe_thrift_write_field_i32(w, 8, e->precision);
    if (e->has_field_id) floe_thrift_write_field_i32(w, 9, e->field_id);
    enc_logical_type(w, &e->logical);
    floe_thrift_write_struct_end(w);
}

static void enc_key_values(W *w, int16_t id, const floe_pq_key_value *kv, uint32_t n) {
    floe_thrift_write_field(w, FLOE_THRIFT_LIST, id);
    floe_thrift_write_list(w, FLOE_THRIFT_STRUCT, n);
    for (uint32_t i = 0; i < n; i++) {
        floe_thrift_write_struct_begin(w);
        floe_thrift_write_field_string(w, 1, kv[i].key ? kv[i].key : "");
        if (kv[i].value) floe_thrift_write_field_binary(w, 2, kv[i].value, kv[i].value_len);
        floe_thrift_write_struct_end(w);
    }
}

static void enc_column_meta(W *w, const floe_pq_column_meta *m) {
    floe_thrift_write_field(w, FLOE_THRIFT_STRUCT, 3);
    floe_thrift_write_struct_begin(w);
    floe_thrift_write_field_i32(w, 1, m->type);
    floe_thrift_write_field(w, FLOE_THRIFT_LIST, 2);
    floe_thrift_write_list(w, FLOE_THRIFT_I32, m->num_encodings);
    for (uint32_t i = 0; i < m->num_encodings; i++) floe_thrift_write_i32(w, m->encodings[i]);
    floe_thrift_write_field(w, FLOE_THRIFT_LIST, 3);
    floe_thrift_write_list(w, FLOE_THRIFT_BINARY, m->path_len);
    for (uint32_t i = 0; i < m->path_len; i++) floe_thrift_write_string(w, m->path_in_schema[i]);
    floe_thrift_write_field_i32(w, 4, m->codec);
    floe_thrift_write_field_i64(w, 5, m->num_values);
    floe_thrift_write_field_i64(w, 6, m->total_uncompressed_size);
    floe_thrift_write_field_i64(w, 7, m->total_compressed_size);
    if (m->num_key_value_metadata)
        enc_key_values(w, 8, m->key_value_metadata, m->num_key_value_metadata);
    floe_thrift_write_field_i64(w, 9, m->data_page_offset);
    if (m->has_index_page_offset) floe_thrift_write_field_i64(w, 10, m->index_page_offset);
    if (m->has_dictionary_page_offset)
        floe_thrift_write_field_i64(w, 11, m->dictionary_page_offset);
    if (m->has_statistics) enc_statistics(w, 12, &m->statistics);
    if (m->num_encoding_stats) {
        floe_thrift_write_field(w, FLOE_THRIFT_LIST, 13);
        floe_thrift_write_list(w, FLOE_THRIFT_STRUCT, m->num_encoding_stats);
        for (uint32_t i = 0; i < m->num_encoding_stats; i++) {
            floe_thrift_write_struct_begin(w);
            floe_thrift_write_field_i32(w, 1, m->encoding_stats[i].page_type);
            floe_thrift_write_field_i32(w, 2, m->encoding_stats[i].encoding);
            floe_thrift_write_field_i32(w, 3, m->encoding_stats[i].count);
            floe_thrift_write_struct_end(w);
        }
    }
    if (m->has_bloom_filter_offset) floe_thrift_write_field_i64(w, 14, m->bloom_filter_offset);
    if (m->has_bloom_filter_length) floe_thrift_write_field_i32(w, 15, m->bloom_filter_length);
    if (m->has_size_statistics) {
        const floe_pq_size_statistics *s = &m->size_statistics;
        floe_thrift_write_field(w, FLOE_THRIFT_STRUCT, 16);
        floe_thrift_write_struct_begin(w);
        if (s->has_unencoded_byte_array_data_bytes)
            floe_thrift_write_field_i64(w, 1, s->unencoded_byte_array_data_bytes);
        if (s->repetition_level_histogram)
            enc_i64_list(w, 2, s->repetition_level_histogram,
                         s->num_repetition_level_histogram);
        if (s->definition_level_histogram)
            enc_i64_list(w, 3, s->definition_level_histogram,
                         s->num_definition_level_histogram);
        floe_thrift_write_struct_end(w);
    }
    floe_thrift_write_struct_end(w);
}

static void enc_column_chunk(W *w, const floe_pq_column_chunk *c) {
    floe_thrift_write_struct_begin(w);
    if (c->file_path) floe_thrift_write_field_string(w, 1, c->file_path);
    floe_thrift_write_field_i64(w, 2, c->file_offset);
    if (c->has_meta_data) enc_column_meta(w, &c->meta_data);
    if (c->has_offset_index) {
        floe_thrift_write_field_i64(w, 4, c->offset_index_offset);
        floe_thrift_write_field_i32(w, 5, c->offset_index_length);
    }
    if (c->has_column_index) {
        floe_thrift_write_field_i64(w, 6, c->column_index_offset);
        floe_thrift_write_field_i32(w, 7, c->column_index_length);
    }
    floe_thrift_write_struct_end(w);
}

static void enc_row_group(W *w, const floe_pq_row_group *g) {
    floe_thrift_write_struct_begin(w);
    floe_thrift_write_field(w, FLOE_THRIFT_LIST, 1);
    floe_thrift_write_list(w, FLOE_THRIFT_STRUCT, g->num_columns);
    for (uint32_t i = 0; i < g->num_columns; i++) enc_column_chunk(w, &g->columns[i]);
    floe_thrift_write_field_i64(w, 2, g->total_byte_size);
    floe_thrift_write_field_i64(w, 3, g->num_rows);
    if (g->num_sorting_columns) {
        floe_thrift_write_field(w, FLOE_THRIFT_LIST, 4);
        floe_thrift_write_list(w, FLOE_THRIFT_STRUCT, g->num_sorting_columns);
        for (uint32_t i = 0; i < g->num_sorting_columns; i++) {
            const floe_pq_sorting_column *sc = &g->sorting_columns[i];
            floe_thrift_write_struct_begin(w);
            floe_thrift_write_field_i32(w, 1, sc->column_idx);
            floe_thrift_write_field_bool(w, 2, sc->descending);
            floe_thrift_write_field_bool(w, 3, sc->nulls_first);
            floe_thrift_write_struct_end(w);
        }
    }
    if (g->has_file_offset) floe_thrift_write_field_i64(w, 5, g->file_offset);
    if (g->has_total_compressed_size)
        floe_thrift_write_field_i64(w, 6, g->total_compressed_size);
    if (g->has_ordinal) {
        floe_thrift_write_field(w, FLOE_THRIFT_I16, 7);
        floe_thrift_write_i16(w, g->ordinal);
    }
    floe_thrift_write_struct_end(w);
}

floe_status floe_pq_encode_file_metadata(const floe_pq_file_metadata *md, floe_buf *out) {
    W w;
    floe_thrift_writer_init(&w, out);
    floe_thrift_write_struct_begin(&w);
    floe_thrift_write_field_i32(&w, 1, md->version);
    floe_thrift_write_field(&w, FLOE_THRIFT_LIST, 2);
    floe_thrift_write_list(&w, FLOE_THRIFT_STRUCT, md->num_schema);
    for (uint32_t i = 0; i < md->num_schema; i++) enc_schema_element(&w, &md->schema[i]);
    floe_thrift_write_field_i64(&w, 3, md->num_rows);
    floe_thrift_write_field(&w, FLOE_THRIFT_LIST, 4);
    floe_thrift_write_list(&w, FLOE_THRIFT_STRUCT, md->num_row_groups);
    for (uint32_t i = 0; i < md->num_row_groups; i++) enc_row_group(&w, &md->row_groups[i]);
    if (md->num_key_value_metadata)
        enc_key_values(&w, 5, md->key_value_metadata, md->num_key_value_metadata);
    if (md->created_by) floe_thrift_write_field_string(&w, 6, md->created_by);
    if (md->num_column_orders) {
        floe_thrift_write_field(&w, FLOE_THRIFT_LIST, 7);
        floe_thrift_write_list(&w, FLOE_THRIFT_STRUCT, md->num_column_orders);
        for (uint32_t i = 0; i < md->num_column_orders; i++) {
            floe_thrift_write_struct_begin(&w);
            if (md->column_orders[i].kind > 0)
                enc_empty_struct_field(&w, md->column_orders[i].kind);
            floe_thrift_write_struct_end(&w);
        }
    }
    floe_thrift_write_struct_end(&w);
    return floe_thrift_writer_status(&w);
}

floe_status floe_pq_encode_page_header(const floe_pq_page_header *ph, floe_buf *out) {
    W w;
    floe_thrift_writer_init(&w, out);
    floe_thrift_write_struct_begin(&w);
    floe_thrift_write_field_i32(&w, 1, ph->type);
    floe_thrift_write_field_i32(&w, 2, ph->uncompressed_page_size);
    floe_thrift_write_field_i32(&w, 3, ph->compressed_page_size);
    if (ph->has_crc) floe_thrift_write_field_i32(&w, 4, ph->crc);
    if (ph->has_data_page_header) {
        const floe_pq_data_page_header *h = &ph->data_page_header;
        floe_thrift_write_field(&w, FLOE_THRIFT_STRUCT, 5);
        floe_thrift_write_struct_begin(&w);
        floe_thrift_write_field_i32(&w, 1, h->num_values);
        floe_thrift_write_field_i32(&w, 2, h->encoding);
        floe_thrift_write_field_i32(&w, 3, h->definition_level_encoding);
        floe_thrift_write_field_i32(&w, 4, h->repetition_level_encoding);
        if (h->has_statistics) enc_statistics(&w, 5, &h->statistics);
        floe_thrift_write_struct_end(&w);
    }
    if (ph->has_index_page_header) enc_empty_struct_field(&w, 6);
    if (ph->has_dictionary_page_header) {
        const floe_pq_dictionary_page_header *h = &ph->dictionary_page_header;
        floe_thrift_write_field(&w, FLOE_THRIFT_STRUCT, 7);
        floe_thrift_write_struct_begin(&w);
        floe_thrift_write_field_i32(&w, 1, h->num_values);
        floe_thrift_write_field_i32(&w, 2, h->encoding);
        if (h->has_is_sorted) floe_thrift_write_field_bool(&w, 3, h->is_sorted);
        floe_thrift_write_struct_end(&w);
    }
    if (ph->has_data_page_header_v2) {
        const floe_pq_data_page_header_v2 *h = &ph->data_page_header_v2;
        floe_thrift_write_field(&w, FLOE_THRIFT_STRUCT, 8);
        floe_thrift_write_struct_begin(&w);
        floe_thrift_write_field_i32(&w, 1, h->num_values);
        floe_thrift_write_field_i32(&w, 2, h->num_nulls);
        floe_thrift_write_field_i32(&w, 3, h->num_rows);
        floe_thrift_write_field_i32(&w, 4, h->encoding);
        floe_thrift_write_field_i32(&w, 5, h->definition_levels_byte_length);
        floe_thrift_write_field_i32(&w, 6, h->repetition_levels_byte_length);
        floe_thrift_write_field_bool(&w, 7, h->is_compressed);
        if (h->has_statistics) enc_statistics(&w, 8, &h->statistics);
        floe_thrift_write_struct_end(&w);
    }
    floe_thrift_write_struct_end(&w);
    return floe_thrift_writer_status(&w);
}

floe_status floe_pq_encode_column_index(const floe_pq_column_index *ci, floe_buf *out) {
    W w;
    floe_thrift_writer_init(&w, out);
    floe_thrift_write_struct_begin(&w);
    floe_thrift_write_field(&w, FLOE_THRIFT_LIST, 1);
    floe_thrift_write_list(&w, FLOE_THRIFT_TRUE, ci->num_pages);
    for (uint32_t i = 0; i < ci->num_pages; i++) floe_thrift_write_bool_elem(&w, ci->null_pages[i]);
    for (int16_t id = 2; id <= 3; id++) {
        const floe_pq_bytes *v = id == 2 ? ci->min_values : ci->max_values;
        floe_thrift_write_field(&w, FLOE_THRIFT_LIST, id);
        floe_thrift_write_list(&w, FLOE_THRIFT_BINARY, ci->num_pages);
        for (uint32_t i = 0; i < ci->num_pages; i++)
            floe_thrift_write_binary(&w, v[i].data, v[i].len);
    }
    floe_thrift_write_field_i32(&w, 4, ci->boundary_order);
    if (ci->null_counts) enc_i64_list(&w, 5, ci->null_counts, ci->num_null_counts);
    if (ci->repetition_level_histograms)
        enc_i64_list(&w, 6, ci->repetition_level_histograms,
                     ci->num_repetition_level_histograms);
    if (ci->definition_level_histograms)
        enc_i64_list(&w, 7, ci->definition_level_histograms,
                     ci->num_definition_level_histograms);
    if (ci->nan_counts) enc_i64_list(&w, 8, ci->nan_counts, ci->num_nan_counts);
    floe_thrift_write_struct_end(&w);
    return floe_thrift_writer_status(&w);
}

floe_status floe_pq_encode_offset_index(const floe_pq_offset_index *oi, floe_buf *out) {
    W w;
    floe_thrift_writer_init(&w, out);
    floe_thrift_write_struct_begin(&w);
    floe_thrift_write_field(&w, FLOE_THRIFT_LIST, 1);
    floe_thrift_write_list(&w, FLOE_THRIFT_STRUCT, oi->num_pages);
    for (uint32_t i = 0; i < oi->num_pages; i++) {
        const floe_pq_page_location *l = &oi->page_locations[i];
        floe_thrift_write_struct_begin(&w);
        floe_thrift_write_field_i64(&w, 1, l->offset);
        floe_thrift_write_field_i32(&w, 2, l->compressed_page_size);
        floe_thrift_write_field_i64(&w, 3, l->first_row_index);
        floe_thrift_write_struct_end(&w);
    }
    if (oi->unencoded_byte_array_data_bytes)
        enc_i64_list(&w, 2, oi->unencoded_byte_array_data_bytes, oi->num_unencoded);
    floe_thrift_write_struct_end(&w);
    return floe_thrift_writer_status(&w);
}

static void enc_empty_union_field(W *w, int16_t id, int16_t member) {
    floe_thrift_write_field(w, FLOE_THRIFT_STRUCT, id);
    floe_thrift_write_struct_begin(w);
    if (member > 0) enc_empty_struct_field(w, member);
    floe_thrift_write_struct_end(w);
}

floe_status floe_pq_encode_bloom_filter_header(const floe_pq_bloom_filter_header *bf,
                                               floe_buf *out) {
    W w;
    floe_thrift_writer_init(&w, out);
    floe_thrift_write_struct_begin(&w);
    floe_thrift_write_field_i32(&w, 1, bf->num_bytes);
    enc_empty_union_field(&w, 2, bf->algorithm);
    enc_empty_union_field(&w, 3, bf->hash);
    enc_empty_union_field(&w, 4, bf->compression);
    floe_thrift_write_struct_end(&w);
    return floe_thrift_writer_status(&w);
}

/*
 * types.c — data types, fields and schemas (see include/floe/columnar.h).
 *
 * Parameterless types are static singletons with a negative reference count
 * so retain/release skip them; parameterised and nested types are heap
 * objects with an atomic count, immutable once built, so one type can be
 * shared by every array, batch and thread that uses it.
 */
#include "floe/columnar.h"

#include <stdatomic.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/memory.h"

#define PRIM(tid, width) [tid] = {.refcount = -1, .id = tid, .byte_width = width}

static floe_type primitives[FLOE_TYPE_COUNT_];

/* VARIANT's fixed children.  Static like their type: nothing ever clears
 * or frees the fields of a singleton. */
static floe_field variant_fields[2] = {
    {(char *)"metadata", &primitives[FLOE_TYPE_BINARY], false, -1},
    {(char *)"value", &primitives[FLOE_TYPE_BINARY], false, -1},
};

static floe_type primitives[FLOE_TYPE_COUNT_] = {
    PRIM(FLOE_TYPE_NULL, 0),
    PRIM(FLOE_TYPE_BOOL, 0),
    PRIM(FLOE_TYPE_INT32, 4),
    PRIM(FLOE_TYPE_INT64, 8),
    PRIM(FLOE_TYPE_FLOAT32, 4),
    PRIM(FLOE_TYPE_FLOAT64, 8),
    PRIM(FLOE_TYPE_DATE32, 4),
    PRIM(FLOE_TYPE_TIME64_US, 8),
    PRIM(FLOE_TYPE_TIMESTAMP_US, 8),
    PRIM(FLOE_TYPE_TIMESTAMP_US_TZ, 8),
    PRIM(FLOE_TYPE_TIMESTAMP_NS, 8),
    PRIM(FLOE_TYPE_TIMESTAMP_NS_TZ, 8),
    PRIM(FLOE_TYPE_STRING, 0),
    PRIM(FLOE_TYPE_BINARY, 0),
    PRIM(FLOE_TYPE_UUID, 16),
    PRIM(FLOE_TYPE_INTERVAL, 16),
    [FLOE_TYPE_VARIANT] = {.refcount = -1, .id = FLOE_TYPE_VARIANT, .n_children = 2, .children = variant_fields},
};

static const char *const type_names[FLOE_TYPE_COUNT_] = {
    [FLOE_TYPE_NULL] = "null",
    [FLOE_TYPE_BOOL] = "bool",
    [FLOE_TYPE_INT32] = "int32",
    [FLOE_TYPE_INT64] = "int64",
    [FLOE_TYPE_FLOAT32] = "float32",
    [FLOE_TYPE_FLOAT64] = "float64",
    [FLOE_TYPE_DECIMAL128] = "decimal",
    [FLOE_TYPE_DATE32] = "date32",
    [FLOE_TYPE_TIME64_US] = "time64_us",
    [FLOE_TYPE_TIMESTAMP_US] = "timestamp_us",
    [FLOE_TYPE_TIMESTAMP_US_TZ] = "timestamp_us_tz",
    [FLOE_TYPE_TIMESTAMP_NS] = "timestamp_ns",
    [FLOE_TYPE_TIMESTAMP_NS_TZ] = "timestamp_ns_tz",
    [FLOE_TYPE_STRING] = "string",
    [FLOE_TYPE_BINARY] = "binary",
    [FLOE_TYPE_FIXED_BINARY] = "fixed",
    [FLOE_TYPE_UUID] = "uuid",
    [FLOE_TYPE_STRUCT] = "struct",
    [FLOE_TYPE_LIST] = "list",
    [FLOE_TYPE_MAP] = "map",
    [FLOE_TYPE_VARIANT] = "variant",
    [FLOE_TYPE_INTERVAL] = "interval",
};

floe_type *floe_type_primitive(floe_type_id id) {
    if ((int)id < 0 || id >= FLOE_TYPE_COUNT_) return NULL;
    switch (id) {
    case FLOE_TYPE_DECIMAL128:
    case FLOE_TYPE_FIXED_BINARY:
    case FLOE_TYPE_STRUCT:
    case FLOE_TYPE_LIST:
    case FLOE_TYPE_MAP:
        return NULL;
    default:
        return &primitives[id];
    }
}

const char *floe_type_id_name(floe_type_id id) {
    if ((int)id < 0 || id >= FLOE_TYPE_COUNT_) return "unknown";
    return type_names[id];
}

const char *floe_type_pg_name(floe_type_id id) {
    switch (id) {
    case FLOE_TYPE_BOOL: return "boolean";
    case FLOE_TYPE_INT32: return "integer";
    case FLOE_TYPE_INT64: return "bigint";
    case FLOE_TYPE_FLOAT32: return "real";
    case FLOE_TYPE_FLOAT64: return "double precision";
    case FLOE_TYPE_DECIMAL128: return "numeric";
    case FLOE_TYPE_DATE32: return "date";
    case FLOE_TYPE_TIME64_US: return "time without time zone";
    case FLOE_TYPE_TIMESTAMP_US: case FLOE_TYPE_TIMESTAMP_NS: return "timestamp without time zone";
    case FLOE_TYPE_TIMESTAMP_US_TZ: case FLOE_TYPE_TIMESTAMP_NS_TZ: return "timestamp with time zone";
    case FLOE_TYPE_STRING: return "text";
    case FLOE_TYPE_BINARY: case FLOE_TYPE_FIXED_BINARY: return "bytea";
    case FLOE_TYPE_UUID: return "uuid";
    case FLOE_TYPE_INTERVAL: return "interval";
    default: return floe_type_id_name(id);
    }
}

static floe_status type_alloc(floe_type_id id, int32_t n_children, floe_type **out) {
    floe_type *t = floe_calloc(1, sizeof *t);
    if (!t) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating a type");
    atomic_init(&t->refcount, 1);
    t->id = id;
    if (n_children > 0) {
        t->children = floe_calloc((size_t)n_children, sizeof(floe_field));
        if (!t->children) {
            floe_free(t);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating a type");
        }
    }
    t->n_children = n_children;
    *out = t;
    return NULL;
}

floe_status floe_type_decimal(int32_t precision, int32_t scale, floe_type **out) {
    *out = NULL;
    if (precision < 1 || precision > 38)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "decimal precision %d is outside 1..38", precision);
    if (scale < 0 || scale > precision)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "decimal scale %d is outside 0..%d", scale, precision);
    FLOE_TRY(type_alloc(FLOE_TYPE_DECIMAL128, 0, out));
    (*out)->precision = precision;
    (*out)->scale = scale;
    (*out)->byte_width = 16;
    return NULL;
}

floe_status floe_type_fixed_binary(int32_t byte_width, floe_type **out) {
    *out = NULL;
    if (byte_width < 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "fixed binary width %d must be positive", byte_width);
    FLOE_TRY(type_alloc(FLOE_TYPE_FIXED_BINARY, 0, out));
    (*out)->byte_width = byte_width;
    return NULL;
}

floe_status floe_type_struct(const floe_field *fields, int32_t n, floe_type **out) {
    *out = NULL;
    if (n < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative struct field count");
    floe_type *t;
    FLOE_TRY(type_alloc(FLOE_TYPE_STRUCT, n, &t));
    for (int32_t i = 0; i < n; i++) {
        floe_status st = floe_field_copy(&t->children[i], &fields[i]);
        if (st) {
            floe_type_release(t);
            return st;
        }
    }
    *out = t;
    return NULL;
}

floe_status floe_type_list(const floe_field *element, floe_type **out) {
    *out = NULL;
    floe_type *t;
    FLOE_TRY(type_alloc(FLOE_TYPE_LIST, 1, &t));
    floe_status st = floe_field_copy(&t->children[0], element);
    if (st) {
        floe_type_release(t);
        return st;
    }
    *out = t;
    return NULL;
}

floe_status floe_type_map(const floe_field *key, const floe_field *value, bool keys_sorted,
                          floe_type **out) {
    *out = NULL;
    floe_field kv[2];
    memset(kv, 0, sizeof kv);
    floe_type *entries = NULL, *t = NULL;
    floe_status st = floe_field_copy(&kv[0], key);
    if (!st) st = floe_field_copy(&kv[1], value);
    if (!st) {
        kv[0].nullable = false;
        st = floe_type_struct(kv, 2, &entries);
    }
    if (!st) st = type_alloc(FLOE_TYPE_MAP, 1, &t);
    if (!st) st = floe_field_init(&t->children[0], "entries", entries, false, -1);
    floe_field_clear(&kv[0]);
    floe_field_clear(&kv[1]);
    floe_type_release(entries);
    if (st) {
        floe_type_release(t);
        return st;
    }
    t->keys_sorted = keys_sorted;
    *out = t;
    return NULL;
}

floe_type *floe_type_retain(floe_type *t) {
    if (t && atomic_load_explicit(&t->refcount, memory_order_relaxed) >= 0)
        atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed);
    return t;
}

void floe_type_release(floe_type *t) {
    if (!t || atomic_load_explicit(&t->refcount, memory_order_relaxed) < 0) return;
    if (atomic_fetch_sub_explicit(&t->refcount, 1, memory_order_acq_rel) != 1) return;
    for (int32_t i = 0; i < t->n_children; i++) floe_field_clear(&t->children[i]);
    floe_free(t->children);
    floe_free(t);
}

static bool str_eq(const char *a, const char *b) {
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

static bool types_match(const floe_type *a, const floe_type *b, bool full) {
    if (a == b) return true;
    if (!a || !b) return false;
    if (a->id != b->id || a->n_children != b->n_children || a->byte_width != b->byte_width)
        return false;
    if (a->id == FLOE_TYPE_DECIMAL128 && (a->precision != b->precision || a->scale != b->scale))
        return false;
    if (full && a->keys_sorted != b->keys_sorted) return false;
    for (int32_t i = 0; i < a->n_children; i++) {
        const floe_field *fa = &a->children[i], *fb = &b->children[i];
        if (full && (!str_eq(fa->name, fb->name) || fa->nullable != fb->nullable ||
                     fa->field_id != fb->field_id))
            return false;
        if (!types_match(fa->type, fb->type, full)) return false;
    }
    return true;
}

bool floe_type_equals(const floe_type *a, const floe_type *b) { return types_match(a, b, true); }
bool floe_type_compatible(const floe_type *a, const floe_type *b) { return types_match(a, b, false); }

floe_status floe_type_to_string(const floe_type *t, floe_buf *out) {
    switch (t->id) {
    case FLOE_TYPE_DECIMAL128:
        return floe_buf_printf(out, "decimal(%d, %d)", t->precision, t->scale);
    case FLOE_TYPE_FIXED_BINARY:
        return floe_buf_printf(out, "fixed[%d]", t->byte_width);
    case FLOE_TYPE_STRUCT:
        FLOE_TRY(floe_buf_append_str(out, "struct<"));
        for (int32_t i = 0; i < t->n_children; i++) {
            if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
            FLOE_TRY(floe_buf_printf(out, "%s: ", t->children[i].name ? t->children[i].name : ""));
            FLOE_TRY(floe_type_to_string(t->children[i].type, out));
        }
        return floe_buf_append_str(out, ">");
    case FLOE_TYPE_LIST:
        FLOE_TRY(floe_buf_append_str(out, "list<"));
        FLOE_TRY(floe_type_to_string(t->children[0].type, out));
        return floe_buf_append_str(out, ">");
    case FLOE_TYPE_MAP: {
        const floe_type *e = t->children[0].type;
        FLOE_TRY(floe_buf_append_str(out, "map<"));
        FLOE_TRY(floe_type_to_string(e->children[0].type, out));
        FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_type_to_string(e->children[1].type, out));
        return floe_buf_append_str(out, ">");
    }
    default:
        return floe_buf_append_str(out, floe_type_id_name(t->id));
    }
}

/* ------------------------------------------------------------------ fields */

floe_status floe_field_init(floe_field *f, const char *name, floe_type *type, bool nullable,
                            int32_t field_id) {
    memset(f, 0, sizeof *f);
    if (!type) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "field '%s' has no type", name ? name : "");
    f->name = floe_strdup(name ? name : "");
    if (!f->name) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory copying a field name");
    f->type = floe_type_retain(type);
    f->nullable = nullable;
    f->field_id = field_id;
    return NULL;
}

floe_status floe_field_copy(floe_field *dst, const floe_field *src) {
    return floe_field_init(dst, src->name, src->type, src->nullable, src->field_id);
}

void floe_field_clear(floe_field *f) {
    if (!f) return;
    floe_free(f->name);
    floe_type_release(f->type);
    memset(f, 0, sizeof *f);
}

/* ----------------------------------------------------------------- schemas */

int32_t floe_schema_find(const floe_schema *s, const char *name) {
    for (int32_t i = 0; i < s->n_children; i++)
        if (str_eq(s->children[i].name, name)) return i;
    return -1;
}

int32_t floe_schema_find_id(const floe_schema *s, int32_t field_id) {
    for (int32_t i = 0; i < s->n_children; i++)
        if (s->children[i].field_id == field_id) return i;
    return -1;
}

/*
 * builder.c — building arrays value by value, in bulk (for decoders), by
 * copying ranges of other arrays (concat) and by gathering rows (take).
 *
 * A builder keeps its buffers at exactly the bytes used (buffer->size) and
 * grows their capacity geometrically; floe buffers keep the bytes past size
 * zeroed, so appending a null to a fixed-width column only bumps the size.
 * The validity bitmap is created lazily on the first null, so the common
 * all-valid column never pays for one.  Offsets buffers always hold
 * length + 1 entries, starting with 0.
 */
#include <string.h>

#include "columnar/internal.h"
#include "floe/memory.h"

struct floe_builder {
    floe_type *type;
    int32_t width;          /* type->byte_width */
    int64_t length;
    int64_t null_count;
    floe_buffer *validity;  /* NULL until the first null */
    floe_buffer *values;    /* values, bits or offsets; NULL for NULL/STRUCT */
    floe_buffer *data;      /* STRING/BINARY bytes */
    int32_t n_children;
    floe_builder **children;
};

static int64_t bitmap_bytes(int64_t bits) { return (bits + 7) >> 3; }

static bool uses_offsets(const floe_type *t) {
    return t->id == FLOE_TYPE_STRING || t->id == FLOE_TYPE_BINARY || t->id == FLOE_TYPE_LIST ||
           t->id == FLOE_TYPE_MAP;
}

static int32_t *offsets_of(floe_builder *b) { return (int32_t *)b->values->data; }

/* Set the used size of a buffer, growing its capacity when needed. */
static inline floe_status grow(floe_buffer *buf, int64_t size) {
    if (size <= buf->capacity) {
        buf->size = size;
        return NULL;
    }
    return floe_buffer_resize(buf, size);
}

/* Make capacity for `cap` bytes without changing the used size. */
static floe_status reserve_buf(floe_buffer *buf, int64_t cap) {
    if (cap <= buf->capacity) return NULL;
    int64_t size = buf->size;
    FLOE_TRY(floe_buffer_resize(buf, cap));
    return floe_buffer_resize(buf, size);
}

static void bitmap_fill(uint8_t *bits, int64_t off, int64_t n, bool v) {
    int64_t i = 0;
    for (; i < n && ((off + i) & 7); i++) floe_bit_put(bits, off + i, v);
    int64_t whole = (n - i) >> 3;
    if (whole > 0) {
        memset(bits + ((off + i) >> 3), v ? 0xff : 0, (size_t)whole);
        i += whole << 3;
    }
    for (; i < n; i++) floe_bit_put(bits, off + i, v);
}

/* Fresh, empty buffers for a new array. */
static floe_status reset(floe_builder *b) {
    b->length = 0;
    b->null_count = 0;
    floe_buffer_release(b->validity);
    b->validity = NULL;
    floe_buffer_release(b->values);
    b->values = NULL;
    floe_buffer_release(b->data);
    b->data = NULL;
    switch (b->type->id) {
    case FLOE_TYPE_NULL:
    case FLOE_TYPE_STRUCT:
    case FLOE_TYPE_VARIANT:
        return NULL;
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY:
        FLOE_TRY(floe_buffer_new(0, &b->data));
        return floe_buffer_new(4, &b->values); /* offsets[0] = 0 */
    case FLOE_TYPE_LIST:
    case FLOE_TYPE_MAP:
        return floe_buffer_new(4, &b->values);
    default:
        return floe_buffer_new(0, &b->values);
    }
}

floe_status floe_builder_new(floe_type *type, int64_t capacity_hint, floe_builder **out) {
    *out = NULL;
    if (!type) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "builder without a type");
    floe_builder *b = floe_calloc(1, sizeof *b);
    if (!b) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating a builder");
    b->type = floe_type_retain(type);
    b->width = type->byte_width;
    floe_status st = NULL;
    if (floe_type_is_nested(type) && type->n_children > 0) {
        b->children = floe_calloc((size_t)type->n_children, sizeof(floe_builder *));
        if (!b->children) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating a builder");
        else b->n_children = type->n_children;
        for (int32_t i = 0; !st && i < b->n_children; i++)
            st = floe_builder_new(type->children[i].type, floe_type_is_struct_like(type) ? capacity_hint : 0,
                                  &b->children[i]);
    }
    if (!st) st = reset(b);
    if (!st && capacity_hint > 0) st = floe_builder_reserve(b, capacity_hint, 0);
    if (st) {
        floe_builder_free(b);
        return st;
    }
    *out = b;
    return NULL;
}

void floe_builder_free(floe_builder *b) {
    if (!b) return;
    for (int32_t i = 0; i < b->n_children; i++) floe_builder_free(b->children[i]);
    floe_free(b->children);
    floe_buffer_release(b->validity);
    floe_buffer_release(b->values);
    floe_buffer_release(b->data);
    floe_type_release(b->type);
    floe_free(b);
}

const floe_type *floe_builder_type(const floe_builder *b) { return b->type; }
int64_t floe_builder_length(const floe_builder *b) { return b->length; }

floe_status floe_builder_reserve(floe_builder *b, int64_t additional, int64_t data_bytes) {
    if (additional < 0 || data_bytes < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative reserve");
    if (additional > INT32_MAX * 64LL || data_bytes > INT32_MAX)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "reserve of %lld slots / %lld bytes is too large",
                          (long long)additional, (long long)data_bytes);
    int64_t slots = b->length + additional;
    if (b->width > 0 && slots > INT64_MAX / 2 / b->width)
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%lld values of %d bytes are too large", (long long)slots,
                          b->width);
    if (b->validity) FLOE_TRY(reserve_buf(b->validity, bitmap_bytes(slots)));
    if (!b->values) return NULL;
    if (uses_offsets(b->type)) FLOE_TRY(reserve_buf(b->values, (slots + 1) * 4));
    else if (b->type->id == FLOE_TYPE_BOOL) FLOE_TRY(reserve_buf(b->values, bitmap_bytes(slots)));
    else FLOE_TRY(reserve_buf(b->values, slots * b->width));
    if (b->data && data_bytes > 0) FLOE_TRY(reserve_buf(b->data, b->data->size + data_bytes));
    return NULL;
}

floe_builder *floe_builder_child(floe_builder *b, int32_t i) {
    return i >= 0 && i < b->n_children ? b->children[i] : NULL;
}

floe_builder *floe_builder_map_keys(floe_builder *b) {
    return b->type->id == FLOE_TYPE_MAP ? b->children[0]->children[0] : NULL;
}

floe_builder *floe_builder_map_values(floe_builder *b) {
    return b->type->id == FLOE_TYPE_MAP ? b->children[0]->children[1] : NULL;
}

/* ------------------------------------------------------------- validity */

/* Create the validity bitmap with the existing slots all valid. */
static floe_status ensure_validity(floe_builder *b) {
    if (b->validity) return NULL;
    FLOE_TRY(floe_buffer_new(bitmap_bytes(b->length), &b->validity));
    bitmap_fill(b->validity->data, 0, b->length, true);
    return NULL;
}

/* Record the validity of the next slot (slot b->length). */
static inline floe_status push_validity(floe_builder *b, bool valid) {
    if (valid && !b->validity) return NULL;
    if (!valid) {
        FLOE_TRY(ensure_validity(b));
        b->null_count++;
    }
    FLOE_TRY(grow(b->validity, bitmap_bytes(b->length + 1)));
    floe_bit_put(b->validity->data, b->length, valid);
    return NULL;
}

/* Record the validity of the next n slots from `bits` (NULL = all valid). */
static floe_status push_validity_bits(floe_builder *b, const uint8_t *bits, int64_t bit_off, int64_t n) {
    if (n <= 0) return NULL;
    int64_t nulls = bits ? n - floe_bitmap_count(bits, bit_off, n) : 0;
    if (nulls == 0 && !b->validity) return NULL;
    FLOE_TRY(ensure_validity(b));
    FLOE_TRY(grow(b->validity, bitmap_bytes(b->length + n)));
    if (bits) floe_bitmap_copy(b->validity->data, b->length, bits, bit_off, n);
    else bitmap_fill(b->validity->data, b->length, n, true);
    b->null_count += nulls;
    return NULL;
}

/* --------------------------------------------------------------- checks */

static floe_status wrong_type(const floe_builder *b, const char *what) {
    return floe_error(FLOE_ERR_TYPE, "cannot append %s to a %s builder", what,
                      floe_type_id_name(b->type->id));
}

static bool is_int32_like(floe_type_id id) { return id == FLOE_TYPE_INT32 || id == FLOE_TYPE_DATE32; }

static bool is_int64_like(floe_type_id id) {
    return id == FLOE_TYPE_INT64 || id == FLOE_TYPE_TIME64_US || id == FLOE_TYPE_TIMESTAMP_US ||
           id == FLOE_TYPE_TIMESTAMP_US_TZ || id == FLOE_TYPE_TIMESTAMP_NS ||
           id == FLOE_TYPE_TIMESTAMP_NS_TZ;
}

/* ------------------------------------------------------------- scalars */

static floe_status append_fixed_raw(floe_builder *b, const void *p) {
    FLOE_TRY(grow(b->values, (b->length + 1) * b->width));
    memcpy(b->values->data + b->length * b->width, p, (size_t)b->width);
    FLOE_TRY(push_validity(b, true));
    b->length++;
    return NULL;
}

floe_status floe_builder_append_bool(floe_builder *b, bool v) {
    if (b->type->id != FLOE_TYPE_BOOL) return wrong_type(b, "a boolean");
    FLOE_TRY(grow(b->values, bitmap_bytes(b->length + 1)));
    floe_bit_put(b->values->data, b->length, v);
    FLOE_TRY(push_validity(b, true));
    b->length++;
    return NULL;
}

floe_status floe_builder_append_int32(floe_builder *b, int32_t v) {
    if (!is_int32_like(b->type->id)) return wrong_type(b, "an int32");
    return append_fixed_raw(b, &v);
}

floe_status floe_builder_append_int64(floe_builder *b, int64_t v) {
    if (!is_int64_like(b->type->id)) return wrong_type(b, "an int64");
    return append_fixed_raw(b, &v);
}

floe_status floe_builder_append_float(floe_builder *b, float v) {
    if (b->type->id != FLOE_TYPE_FLOAT32) return wrong_type(b, "a float32");
    return append_fixed_raw(b, &v);
}

floe_status floe_builder_append_double(floe_builder *b, double v) {
    if (b->type->id != FLOE_TYPE_FLOAT64) return wrong_type(b, "a float64");
    return append_fixed_raw(b, &v);
}

floe_status floe_builder_append_decimal(floe_builder *b, floe_decimal128 v) {
    if (b->type->id != FLOE_TYPE_DECIMAL128) return wrong_type(b, "a decimal");
    return append_fixed_raw(b, &v);
}

floe_status floe_builder_append_fixed(floe_builder *b, const void *bytes) {
    if (b->width <= 0) return wrong_type(b, "fixed-width bytes");
    return append_fixed_raw(b, bytes);
}

floe_status floe_builder_append_binary(floe_builder *b, const void *data, int64_t len) {
    if (!floe_type_is_binary_like(b->type)) {
        if ((b->type->id == FLOE_TYPE_FIXED_BINARY || b->type->id == FLOE_TYPE_UUID) && len == b->width)
            return append_fixed_raw(b, data);
        return wrong_type(b, "a binary value");
    }
    int64_t end = b->data->size + len;
    if (len < 0 || end > INT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "%s array would exceed 2 GiB of data",
                          floe_type_id_name(b->type->id));
    FLOE_TRY(grow(b->data, end));
    if (len) memcpy(b->data->data + end - len, data, (size_t)len);
    FLOE_TRY(grow(b->values, (b->length + 2) * 4));
    offsets_of(b)[b->length + 1] = (int32_t)end;
    FLOE_TRY(push_validity(b, true));
    b->length++;
    return NULL;
}

floe_status floe_builder_append_string(floe_builder *b, const char *s) {
    return floe_builder_append_binary(b, s, (int64_t)strlen(s));
}

/* ---------------------------------------------------------------- nulls */

floe_status floe_builder_append_nulls(floe_builder *b, int64_t n) {
    if (n < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative null count");
    if (n == 0) return NULL;
    int64_t len = b->length;
    switch (b->type->id) {
    case FLOE_TYPE_NULL:
        b->length += n;
        b->null_count += n;
        return NULL;
    case FLOE_TYPE_BOOL:
        FLOE_TRY(grow(b->values, bitmap_bytes(len + n)));
        break;
    case FLOE_TYPE_STRUCT:
    case FLOE_TYPE_VARIANT:
        for (int32_t i = 0; i < b->n_children; i++)
            FLOE_TRY(floe_builder_append_nulls(b->children[i], n));
        break;
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY:
    case FLOE_TYPE_LIST:
    case FLOE_TYPE_MAP: {
        FLOE_TRY(grow(b->values, (len + n + 1) * 4));
        int32_t *o = offsets_of(b);
        for (int64_t k = 1; k <= n; k++) o[len + k] = o[len];
        break;
    }
    default:
        FLOE_TRY(grow(b->values, (len + n) * b->width));
        break;
    }
    FLOE_TRY(ensure_validity(b));
    FLOE_TRY(grow(b->validity, bitmap_bytes(len + n)));
    bitmap_fill(b->validity->data, len, n, false);
    b->null_count += n;
    b->length += n;
    return NULL;
}

floe_status floe_builder_append_null(floe_builder *b) { return floe_builder_append_nulls(b, 1); }

/* --------------------------------------------------------------- nested */

/* Append n valid struct slots whose children are already appended. */
static floe_status struct_append_valid_n(floe_builder *b, int64_t n) {
    FLOE_TRY(push_validity_bits(b, NULL, 0, n));
    b->length += n;
    return NULL;
}

floe_status floe_builder_append_valid(floe_builder *b) {
    if (!floe_type_is_struct_like(b->type)) return wrong_type(b, "a struct slot");
    for (int32_t i = 0; i < b->n_children; i++)
        if (b->children[i]->length != b->length + 1)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "struct field '%s' has %lld values, expected %lld",
                              b->type->children[i].name, (long long)b->children[i]->length,
                              (long long)(b->length + 1));
    return struct_append_valid_n(b, 1);
}

/* Close a list/map slot ending at the child's current length. */
static floe_status close_slot(floe_builder *b, int64_t child_len) {
    if (child_len > INT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "%s array would exceed 2^31 elements",
                          floe_type_id_name(b->type->id));
    FLOE_TRY(grow(b->values, (b->length + 2) * 4));
    offsets_of(b)[b->length + 1] = (int32_t)child_len;
    FLOE_TRY(push_validity(b, true));
    b->length++;
    return NULL;
}

floe_status floe_builder_append_list(floe_builder *b) {
    if (b->type->id != FLOE_TYPE_LIST) return wrong_type(b, "a list slot");
    return close_slot(b, b->children[0]->length);
}

floe_status floe_builder_append_map(floe_builder *b) {
    if (b->type->id != FLOE_TYPE_MAP) return wrong_type(b, "a map slot");
    floe_builder *e = b->children[0], *k = e->children[0], *v = e->children[1];
    if (k->length != v->length)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "map has %lld keys but %lld values",
                          (long long)k->length, (long long)v->length);
    if (k->null_count > 0) return floe_error(FLOE_ERR_CONSTRAINT, "map key is null");
    if (k->length < e->length)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "map entries shrank");
    FLOE_TRY(struct_append_valid_n(e, k->length - e->length));
    return close_slot(b, e->length);
}

/* ----------------------------------------------------------------- bulk */

floe_status floe_builder_append_values(floe_builder *b, const void *values, int64_t n,
                                       const uint8_t *validity) {
    if (b->width <= 0) return wrong_type(b, "fixed-width values");
    if (n <= 0) return n < 0 ? floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative count") : NULL;
    FLOE_TRY(grow(b->values, (b->length + n) * b->width));
    memcpy(b->values->data + b->length * b->width, values, (size_t)(n * b->width));
    FLOE_TRY(push_validity_bits(b, validity, 0, n));
    b->length += n;
    return NULL;
}

floe_status floe_builder_append_values_dense(floe_builder *b, const void *values, int64_t n,
                                             const uint8_t *validity) {
    if (!validity) return floe_builder_append_values(b, values, n, NULL);
    if (b->width <= 0) return wrong_type(b, "fixed-width values");
    if (n <= 0) return n < 0 ? floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative count") : NULL;
    FLOE_TRY(grow(b->values, (b->length + n) * b->width));
    /* Null slots keep the zero bytes the buffer already has. */
    uint8_t *dst = b->values->data + b->length * b->width;
    const uint8_t *src = values;
    size_t w = (size_t)b->width;
    for (int64_t k = 0; k < n; k++) {
        if (!floe_bit_get(validity, k)) continue;
        memcpy(dst + (size_t)k * w, src, w);
        src += w;
    }
    FLOE_TRY(push_validity_bits(b, validity, 0, n));
    b->length += n;
    return NULL;
}

floe_status floe_builder_append_int32_values(floe_builder *b, const int32_t *v, int64_t n,
                                             const uint8_t *validity) {
    if (!is_int32_like(b->type->id)) return wrong_type(b, "int32 values");
    return floe_builder_append_values(b, v, n, validity);
}

floe_status floe_builder_append_int64_values(floe_builder *b, const int64_t *v, int64_t n,
                                             const uint8_t *validity) {
    if (!is_int64_like(b->type->id)) return wrong_type(b, "int64 values");
    return floe_builder_append_values(b, v, n, validity);
}

floe_status floe_builder_append_float_values(floe_builder *b, const float *v, int64_t n,
                                             const uint8_t *validity) {
    if (b->type->id != FLOE_TYPE_FLOAT32) return wrong_type(b, "float32 values");
    return floe_builder_append_values(b, v, n, validity);
}

floe_status floe_builder_append_double_values(floe_builder *b, const double *v, int64_t n,
                                              const uint8_t *validity) {
    if (b->type->id != FLOE_TYPE_FLOAT64) return wrong_type(b, "float64 values");
    return floe_builder_append_values(b, v, n, validity);
}

floe_status floe_builder_append_bool_bits(floe_builder *b, const uint8_t *bits, int64_t bit_offset,
                                          int64_t n, const uint8_t *validity) {
    if (b->type->id != FLOE_TYPE_BOOL) return wrong_type(b, "boolean bits");
    if (n <= 0 || bit_offset < 0)
        return n < 0 || bit_offset < 0 ? floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative count") : NULL;
    FLOE_TRY(grow(b->values, bitmap_bytes(b->length + n)));
    floe_bitmap_copy(b->values->data, b->length, bits, bit_offset, n);
    FLOE_TRY(push_validity_bits(b, validity, 0, n));
    b->length += n;
    return NULL;
}

/* Copy n values given as Arrow offsets + data; no validity, no length. */
static floe_status append_binary_raw(floe_builder *b, const int32_t *offsets, const uint8_t *data,
                                     int64_t n) {
    int64_t bytes = (int64_t)offsets[n] - offsets[0];
    int64_t base = b->data->size;
    if (base + bytes > INT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "%s array would exceed 2 GiB of data",
                          floe_type_id_name(b->type->id));
    FLOE_TRY(grow(b->data, base + bytes));
    if (bytes) memcpy(b->data->data + base, data + offsets[0], (size_t)bytes);
    FLOE_TRY(grow(b->values, (b->length + n + 1) * 4));
    int32_t *o = offsets_of(b) + b->length + 1;
    int32_t shift = (int32_t)base - offsets[0];
    for (int64_t k = 0; k < n; k++) o[k] = offsets[k + 1] + shift;
    return NULL;
}

floe_status floe_builder_append_binary_values(floe_builder *b, const int32_t *offsets,
                                              const uint8_t *data, int64_t n,
                                              const uint8_t *validity) {
    if (!floe_type_is_binary_like(b->type)) return wrong_type(b, "binary values");
    if (n <= 0) return n < 0 ? floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative count") : NULL;
    if (offsets[0] < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "first offset %d is negative", offsets[0]);
    for (int64_t k = 0; k < n; k++)
        if (offsets[k + 1] < offsets[k])
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "offset %d at %lld is less than %d",
                              offsets[k + 1], (long long)(k + 1), offsets[k]);
    FLOE_TRY(append_binary_raw(b, offsets, data, n));
    FLOE_TRY(push_validity_bits(b, validity, 0, n));
    b->length += n;
    return NULL;
}

/* Shared by the two view appenders: `dense` means views exist only for
 * valid slots. */
static floe_status append_views(floe_builder *b, const floe_strview *views, int64_t n,
                                const uint8_t *validity, bool dense) {
    if (!floe_type_is_binary_like(b->type)) return wrong_type(b, "string views");
    if (n <= 0) return n < 0 ? floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative count") : NULL;
    int64_t bytes = 0, v = 0;
    for (int64_t k = 0; k < n; k++) {
        bool valid = !validity || floe_bit_get(validity, k);
        if (valid) {
            if (views[v].len < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative view length");
            bytes += views[v].len;
        }
        if (valid || !dense) v++;
    }
    int64_t base = b->data->size;
    if (base + bytes > INT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "%s array would exceed 2 GiB of data",
                          floe_type_id_name(b->type->id));
    FLOE_TRY(grow(b->data, base + bytes));
    FLOE_TRY(grow(b->values, (b->length + n + 1) * 4));
    uint8_t *d = b->data->data;
    int32_t *o = offsets_of(b) + b->length + 1;
    int64_t pos = base;
    v = 0;
    for (int64_t k = 0; k < n; k++) {
        bool valid = !validity || floe_bit_get(validity, k);
        if (valid) {
            if (views[v].len) memcpy(d + pos, views[v].data, (size_t)views[v].len);
            pos += views[v].len;
        }
        if (valid || !dense) v++;
        o[k] = (int32_t)pos;
    }
    FLOE_TRY(push_validity_bits(b, validity, 0, n));
    b->length += n;
    return NULL;
}

floe_status floe_builder_append_strviews(floe_builder *b, const floe_strview *views, int64_t n,
                                         const uint8_t *validity) {
    return append_views(b, views, n, validity, false);
}

floe_status floe_builder_append_strviews_dense(floe_builder *b, const floe_strview *views, int64_t n,
                                               const uint8_t *validity) {
    return append_views(b, views, n, validity, true);
}

floe_status floe_builder_extend_values(floe_builder *b, int64_t n, void **values_out) {
    *values_out = NULL;
    if (b->width <= 0) return wrong_type(b, "fixed-width values");
    if (n < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative count");
    FLOE_TRY(grow(b->values, (b->length + n) * b->width));
    FLOE_TRY(push_validity_bits(b, NULL, 0, n));
    *values_out = b->values->data + b->length * b->width;
    b->length += n;
    return NULL;
}

floe_status floe_builder_set_null(floe_builder *b, int64_t i) {
    if (b->width <= 0 && b->type->id != FLOE_TYPE_BOOL) return wrong_type(b, "a null by index");
    if (i < 0 || i >= b->length)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "slot %lld outside %lld", (long long)i,
                          (long long)b->length);
    FLOE_TRY(ensure_validity(b));
    if (floe_bit_get(b->validity->data, i)) {
        floe_bit_clear(b->validity->data, i);
        b->null_count++;
    }
    return NULL;
}

/* ---------------------------------------------------------- range copy */

static floe_status append_range(floe_builder *b, const floe_array *src, int64_t off, int64_t n) {
    if (n == 0) return NULL;
    int64_t pos = src->offset + off; /* physical start in src's buffers */
    if (src->type->id == FLOE_TYPE_NULL) return floe_builder_append_nulls(b, n);
    switch (b->type->id) {
    case FLOE_TYPE_BOOL:
        FLOE_TRY(grow(b->values, bitmap_bytes(b->length + n)));
        floe_bitmap_copy(b->values->data, b->length, src->buffers[0]->data, pos, n);
        break;
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY: {
        const int32_t *so = (const int32_t *)src->buffers[0]->data + pos;
        FLOE_TRY(append_binary_raw(b, so, src->buffers[1]->data, n));
        break;
    }
    case FLOE_TYPE_STRUCT:
    case FLOE_TYPE_VARIANT:
        for (int32_t i = 0; i < b->n_children; i++)
            FLOE_TRY(append_range(b->children[i], src->children[i], pos, n));
        break;
    case FLOE_TYPE_LIST:
    case FLOE_TYPE_MAP: {
        const int32_t *so = (const int32_t *)src->buffers[0]->data + pos;
        floe_builder *c = b->children[0];
        int64_t base = c->length;
        if (base + (so[n] - so[0]) > INT32_MAX)
            return floe_error(FLOE_ERR_UNSUPPORTED, "%s array would exceed 2^31 elements",
                              floe_type_id_name(b->type->id));
        FLOE_TRY(append_range(c, src->children[0], so[0], so[n] - so[0]));
        FLOE_TRY(grow(b->values, (b->length + n + 1) * 4));
        int32_t *o = offsets_of(b) + b->length + 1;
        for (int64_t k = 0; k < n; k++) o[k] = (int32_t)(base + so[k + 1] - so[0]);
        break;
    }
    default:
        FLOE_TRY(grow(b->values, (b->length + n) * b->width));
        memcpy(b->values->data + b->length * b->width, src->buffers[0]->data + pos * b->width,
               (size_t)(n * b->width));
        break;
    }
    FLOE_TRY(push_validity_bits(b, src->validity ? src->validity->data : NULL, pos, n));
    b->length += n;
    return NULL;
}

floe_status floe_builder_append_array(floe_builder *b, const floe_array *src, int64_t offset, int64_t n) {
    if (!floe_type_compatible(b->type, src->type))
        return floe_error(FLOE_ERR_TYPE, "cannot append a %s array to a %s builder",
                          floe_type_id_name(src->type->id), floe_type_id_name(b->type->id));
    if (offset < 0 || n < 0 || offset > src->length || n > src->length - offset)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "range [%lld, +%lld) outside an array of %lld",
                          (long long)offset, (long long)n, (long long)src->length);
    return append_range(b, src, offset, n);
}

/* --------------------------------------------------------------- gather */

/* Validity of gathered slots: only materialised when a null is taken. */
static floe_status take_validity(floe_builder *b, const floe_array *src, const uint32_t *idx, int64_t n) {
    if (!src->validity) return push_validity_bits(b, NULL, 0, n);
    const uint8_t *bits = src->validity->data;
    int64_t nulls = 0;
    for (int64_t k = 0; k < n; k++) nulls += !floe_bit_get(bits, src->offset + idx[k]);
    if (nulls == 0 && !b->validity) return NULL;
    FLOE_TRY(ensure_validity(b));
    FLOE_TRY(grow(b->validity, bitmap_bytes(b->length + n)));
    uint8_t *dst = b->validity->data;
    for (int64_t k = 0; k < n; k++)
        floe_bit_put(dst, b->length + k, floe_bit_get(bits, src->offset + idx[k]));
    b->null_count += nulls;
    return NULL;
}

static floe_status take_fixed(floe_builder *b, const floe_array *src, const uint32_t *idx, int64_t n) {
    FLOE_TRY(grow(b->values, (b->length + n) * b->width));
    const uint8_t *s = src->buffers[0]->data;
    uint8_t *d = b->values->data + b->length * b->width;
    int64_t off = src->offset;
    switch (b->width) {
    case 4:
        for (int64_t k = 0; k < n; k++) ((uint32_t *)d)[k] = ((const uint32_t *)s)[off + idx[k]];
        break;
    case 8:
        for (int64_t k = 0; k < n; k++) ((uint64_t *)d)[k] = ((const uint64_t *)s)[off + idx[k]];
        break;
    default:
        for (int64_t k = 0; k < n; k++)
            memcpy(d + k * b->width, s + (off + idx[k]) * b->width, (size_t)b->width);
        break;
    }
    return NULL;
}

static floe_status take_binary(floe_builder *b, const floe_array *src, const uint32_t *idx, int64_t n) {
    const int32_t *so = (const int32_t *)src->buffers[0]->data + src->offset;
    const uint8_t *sd = src->buffers[1]->data;
    int64_t base = b->data->size, bytes = 0;
    for (int64_t k = 0; k < n; k++) bytes += so[idx[k] + 1] - so[idx[k]];
    if (base + bytes > INT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "%s array would exceed 2 GiB of data",
                          floe_type_id_name(b->type->id));
    FLOE_TRY(grow(b->data, base + bytes));
    FLOE_TRY(grow(b->values, (b->length + n + 1) * 4));
    int32_t *o = offsets_of(b) + b->length + 1;
    uint8_t *d = b->data->data;
    int64_t pos = base;
    for (int64_t k = 0; k < n; k++) {
        int32_t start = so[idx[k]], len = so[idx[k] + 1] - start;
        if (len) memcpy(d + pos, sd + start, (size_t)len);
        pos += len;
        o[k] = (int32_t)pos;
    }
    return NULL;
}

static floe_status take_struct(floe_builder *b, const floe_array *src, const uint32_t *idx, int64_t n) {
    if (b->n_children == 0) return NULL;
    if (src->offset + src->length > UINT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "struct offset too large to gather");
    uint32_t *ci = floe_malloc_array((size_t)(n > 0 ? n : 1), sizeof(uint32_t));
    if (!ci) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory gathering a struct");
    for (int64_t k = 0; k < n; k++) ci[k] = (uint32_t)(src->offset + idx[k]);
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < b->n_children; i++)
        st = floe_builder_take_unchecked(b->children[i], src->children[i], ci, n);
    floe_free(ci);
    return st;
}

static floe_status take_list(floe_builder *b, const floe_array *src, const uint32_t *idx, int64_t n) {
    const int32_t *so = (const int32_t *)src->buffers[0]->data + src->offset;
    floe_builder *c = b->children[0];
    int64_t total = 0;
    for (int64_t k = 0; k < n; k++) total += so[idx[k] + 1] - so[idx[k]];
    if (c->length + total > INT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "%s array would exceed 2^31 elements",
                          floe_type_id_name(b->type->id));
    uint32_t *ci = floe_malloc_array((size_t)(total > 0 ? total : 1), sizeof(uint32_t));
    if (!ci) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory gathering a list");
    floe_status st = grow(b->values, (b->length + n + 1) * 4);
    if (!st) {
        int32_t *o = offsets_of(b) + b->length + 1;
        int64_t pos = 0;
        for (int64_t k = 0; k < n; k++) {
            for (int32_t j = so[idx[k]]; j < so[idx[k] + 1]; j++) ci[pos++] = (uint32_t)j;
            o[k] = (int32_t)(c->length + pos);
        }
        st = floe_builder_take_unchecked(c, src->children[0], ci, total);
    }
    floe_free(ci);
    return st;
}

floe_status floe_builder_take_unchecked(floe_builder *b, const floe_array *src, const uint32_t *idx, int64_t n) {
    if (n == 0) return NULL;
    if (src->type->id == FLOE_TYPE_NULL) return floe_builder_append_nulls(b, n);
    switch (b->type->id) {
    case FLOE_TYPE_BOOL: {
        FLOE_TRY(grow(b->values, bitmap_bytes(b->length + n)));
        const uint8_t *s = src->buffers[0]->data;
        for (int64_t k = 0; k < n; k++)
            floe_bit_put(b->values->data, b->length + k, floe_bit_get(s, src->offset + idx[k]));
        break;
    }
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY:
        FLOE_TRY(take_binary(b, src, idx, n));
        break;
    case FLOE_TYPE_STRUCT:
    case FLOE_TYPE_VARIANT:
        FLOE_TRY(take_struct(b, src, idx, n));
        break;
    case FLOE_TYPE_LIST:
    case FLOE_TYPE_MAP:
        FLOE_TRY(take_list(b, src, idx, n));
        break;
    default:
        FLOE_TRY(take_fixed(b, src, idx, n));
        break;
    }
    FLOE_TRY(take_validity(b, src, idx, n));
    b->length += n;
    return NULL;
}

static floe_status check_take(const floe_builder *b, const floe_array *src, const uint32_t *idx, int64_t n) {
    if (!floe_type_compatible(b->type, src->type))
        return floe_error(FLOE_ERR_TYPE, "cannot gather a %s array into a %s builder",
                          floe_type_id_name(src->type->id), floe_type_id_name(b->type->id));
    if (n < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative take count");
    for (int64_t k = 0; k < n; k++)
        if ((int64_t)idx[k] >= src->length)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "index %u at %lld is outside %lld slots", idx[k],
                              (long long)k, (long long)src->length);
    return NULL;
}

floe_status floe_builder_append_take(floe_builder *b, const floe_array *src, const uint32_t *indices,
                                     int64_t n) {
    FLOE_TRY(check_take(b, src, indices, n));
    return floe_builder_take_unchecked(b, src, indices, n);
}

floe_status floe_builder_append_take_dense(floe_builder *b, const floe_array *src, const uint32_t *indices,
                                           int64_t n, const uint8_t *validity) {
    if (!validity) return floe_builder_append_take(b, src, indices, n);
    if (n < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative take count");
    int64_t valid = floe_bitmap_count(validity, 0, n);
    FLOE_TRY(check_take(b, src, indices, valid));
    /* Alternate runs of valid slots (gathered) and null slots. */
    int64_t i = 0, used = 0;
    while (i < n) {
        int64_t j = i;
        bool v = floe_bit_get(validity, i);
        while (j < n && floe_bit_get(validity, j) == v) j++;
        if (v) {
            FLOE_TRY(floe_builder_take_unchecked(b, src, indices + used, j - i));
            used += j - i;
        } else {
            FLOE_TRY(floe_builder_append_nulls(b, j - i));
        }
        i = j;
    }
    return NULL;
}

/* --------------------------------------------------------------- finish */

static floe_status check_complete(const floe_builder *b) {
    if (floe_type_is_struct_like(b->type)) {
        for (int32_t i = 0; i < b->n_children; i++)
            if (b->children[i]->length != b->length)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                                  "struct field '%s' has %lld values for %lld slots",
                                  b->type->children[i].name, (long long)b->children[i]->length,
                                  (long long)b->length);
    } else if (b->type->id == FLOE_TYPE_LIST || b->type->id == FLOE_TYPE_MAP) {
        const floe_builder *c = b->children[0];
        if (b->type->id == FLOE_TYPE_MAP && c->children[0]->length != c->length)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "map entries appended without append_map");
        if (c->length != ((const int32_t *)b->values->data)[b->length])
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "%lld %s elements appended after the last closed slot",
                              (long long)(c->length - ((const int32_t *)b->values->data)[b->length]),
                              floe_type_id_name(b->type->id));
    }
    return NULL;
}

floe_status floe_builder_finish(floe_builder *b, floe_array **out) {
    *out = NULL;
    FLOE_TRY(check_complete(b));
    floe_array **kids = floe_calloc((size_t)(b->n_children > 0 ? b->n_children : 1), sizeof *kids);
    if (!kids) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory finishing an array");
    floe_status st = NULL;
    int32_t made = 0;
    for (; made < b->n_children && !st; made++) st = floe_builder_finish(b->children[made], &kids[made]);
    if (st) made--; /* the failed child produced nothing */
    if (!st) {
        floe_buffer *bufs[2] = {b->values, b->data};
        st = floe_array_new(b->type, b->length, 0, b->null_count, b->null_count ? b->validity : NULL,
                            bufs, floe_type_num_buffers(b->type), kids, b->n_children, out);
    }
    for (int32_t i = 0; i < made; i++) floe_array_release(kids[i]);
    floe_free(kids);
    floe_status rst = reset(b);
    if (st) {
        floe_status_free(rst);
        return st;
    }
    if (rst) {
        floe_array_release(*out);
        *out = NULL;
    }
    return rst;
}

/*
 * array.c — column vectors: assembling them from buffers, reference
 * counting, lazily counted nulls, zero-copy slices, arrays of nulls, and
 * take / concat built on the builder.
 */
#include <stdatomic.h>
#include <string.h>

#include "columnar/internal.h"
#include "floe/memory.h"

int floe_type_num_buffers(const floe_type *t) {
    switch (t->id) {
    case FLOE_TYPE_NULL:
    case FLOE_TYPE_STRUCT:
    case FLOE_TYPE_VARIANT:
        return 0;
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY:
        return 2;
    default:
        return 1;
    }
}

static int32_t expected_children(const floe_type *t) {
    return floe_type_is_nested(t) ? t->n_children : 0;
}

floe_status floe_array_new(floe_type *type, int64_t length, int64_t offset, int64_t null_count,
                           floe_buffer *validity, floe_buffer *const *buffers, int n_buffers,
                           floe_array *const *children, int32_t n_children, floe_array **out) {
    *out = NULL;
    if (!type) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "array without a type");
    if (length < 0 || offset < 0 || length > INT64_MAX - offset)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "array length %lld / offset %lld out of range",
                          (long long)length, (long long)offset);
    int need = floe_type_num_buffers(type);
    if (n_buffers != need)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s array needs %d buffers, got %d",
                          floe_type_id_name(type->id), need, n_buffers);
    for (int i = 0; i < need; i++)
        if (!buffers[i])
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s array: buffer %d is missing",
                              floe_type_id_name(type->id), i);
    if (n_children != expected_children(type))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s array needs %d children, got %d",
                          floe_type_id_name(type->id), expected_children(type), n_children);
    for (int32_t i = 0; i < n_children; i++)
        if (!children[i])
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s array: child %d is missing",
                              floe_type_id_name(type->id), i);
    if (type->id == FLOE_TYPE_NULL) null_count = length;
    else if (null_count != FLOE_NULL_COUNT_UNKNOWN && (null_count < 0 || null_count > length))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "null count %lld for %lld slots",
                          (long long)null_count, (long long)length);
    if (!validity && type->id != FLOE_TYPE_NULL) null_count = 0;

    floe_array *a = floe_calloc(1, sizeof *a);
    if (!a) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating an array");
    if (n_children > 0) {
        a->children = floe_calloc((size_t)n_children, sizeof(floe_array *));
        if (!a->children) {
            floe_free(a);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating an array");
        }
    }
    atomic_init(&a->refcount_, 1);
    atomic_init(&a->null_count_, null_count);
    a->type = floe_type_retain(type);
    a->length = length;
    a->offset = offset;
    a->validity = type->id == FLOE_TYPE_NULL ? NULL : floe_buffer_retain(validity);
    for (int i = 0; i < need; i++) a->buffers[i] = floe_buffer_retain(buffers[i]);
    a->n_children = n_children;
    for (int32_t i = 0; i < n_children; i++) a->children[i] = floe_array_retain(children[i]);
    *out = a;
    return NULL;
}

floe_array *floe_array_retain(floe_array *a) {
    if (a) atomic_fetch_add_explicit(&a->refcount_, 1, memory_order_relaxed);
    return a;
}

void floe_array_release(floe_array *a) {
    if (!a) return;
    if (atomic_fetch_sub_explicit(&a->refcount_, 1, memory_order_acq_rel) != 1) return;
    floe_buffer_release(a->validity);
    floe_buffer_release(a->buffers[0]);
    floe_buffer_release(a->buffers[1]);
    for (int32_t i = 0; i < a->n_children; i++) floe_array_release(a->children[i]);
    floe_free(a->children);
    floe_type_release(a->type);
    floe_free(a);
}

int64_t floe_array_null_count(const floe_array *a) {
    floe_array *m = (floe_array *)a; /* the cache is atomic, so this is safe */
    int64_t n = atomic_load_explicit(&m->null_count_, memory_order_relaxed);
    if (n != FLOE_NULL_COUNT_UNKNOWN) return n;
    if (a->type->id == FLOE_TYPE_NULL) n = a->length;
    else if (!a->validity) n = 0;
    else n = a->length - floe_bitmap_count(a->validity->data, a->offset, a->length);
    atomic_store_explicit(&m->null_count_, n, memory_order_relaxed);
    return n;
}

floe_status floe_array_slice(const floe_array *a, int64_t offset, int64_t length, floe_array **out) {
    *out = NULL;
    if (offset < 0 || length < 0 || offset > a->length || length > a->length - offset)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "slice [%lld, +%lld) outside an array of %lld",
                          (long long)offset, (long long)length, (long long)a->length);
    int64_t nc = FLOE_NULL_COUNT_UNKNOWN;
    int64_t parent_nc = atomic_load_explicit(&((floe_array *)a)->null_count_, memory_order_relaxed);
    if (parent_nc == 0) nc = 0;
    else if (parent_nc == a->length) nc = length;
    return floe_array_new(a->type, length, a->offset + offset, nc, a->validity, a->buffers,
                          floe_type_num_buffers(a->type), a->children, a->n_children, out);
}

floe_status floe_array_new_nulls(floe_type *type, int64_t length, floe_array **out) {
    *out = NULL;
    if (length < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative length");
    floe_builder *b;
    FLOE_TRY(floe_builder_new(type, length, &b));
    floe_status st = floe_builder_append_nulls(b, length);
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

floe_status floe_array_take(const floe_array *a, const uint32_t *indices, int64_t n, floe_array **out) {
    *out = NULL;
    if (n < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative take count");
    for (int64_t k = 0; k < n; k++)
        if ((int64_t)indices[k] >= a->length)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "take index %u at %lld is outside %lld rows",
                              indices[k], (long long)k, (long long)a->length);
    floe_builder *b;
    FLOE_TRY(floe_builder_new(a->type, n, &b));
    floe_status st = floe_builder_take_unchecked(b, a, indices, n);
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

floe_status floe_array_concat(floe_array *const *arrays, int32_t n, floe_array **out) {
    *out = NULL;
    if (n < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "concatenating no arrays");
    if (n == 1) {
        *out = floe_array_retain(arrays[0]);
        return NULL;
    }
    int64_t total = 0;
    for (int32_t i = 0; i < n; i++) {
        if (!floe_type_compatible(arrays[i]->type, arrays[0]->type))
            return floe_error(FLOE_ERR_TYPE, "concatenating array %d: type %s does not match %s", i,
                              floe_type_id_name(arrays[i]->type->id),
                              floe_type_id_name(arrays[0]->type->id));
        total += arrays[i]->length;
    }
    floe_builder *b;
    FLOE_TRY(floe_builder_new(arrays[0]->type, total, &b));
    floe_status st = NULL;
    for (int32_t i = 0; i < n && !st; i++) st = floe_builder_append_array(b, arrays[i], 0, arrays[i]->length);
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

/*
 * buffers.c — reference-counted, 64-byte aligned memory for column data,
 * and the bitmap helpers used for validity and boolean values.
 *
 * A floe-allocated buffer over-allocates by 63 bytes from floe_malloc (so
 * it is tracked) and rounds the data pointer up to a 64-byte boundary.  The
 * bytes in [size, capacity) are kept zero at all times: builders grow size
 * within capacity without clearing, and the padding handed to SIMD code or
 * to an Arrow consumer never leaks stale bytes.
 */
#include "floe/columnar.h"

#include <stdatomic.h>
#include <string.h>

#include "floe/memory.h"

#define ALIGN 64

static int64_t round_up64(int64_t n) { return (n + (ALIGN - 1)) & ~(int64_t)(ALIGN - 1); }

/* Allocate an aligned zeroed block of `capacity` bytes into b. */
static floe_status alloc_block(floe_buffer *b, int64_t capacity) {
    if (capacity < 0 || capacity > INT64_MAX - 2 * ALIGN || (uint64_t)capacity > SIZE_MAX - ALIGN)
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "buffer of %lld bytes is too large",
                          (long long)capacity);
    void *raw = floe_malloc((size_t)capacity + ALIGN - 1);
    if (!raw)
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating a %lld-byte buffer",
                          (long long)capacity);
    uintptr_t p = ((uintptr_t)raw + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1);
    memset((void *)p, 0, (size_t)capacity);
    b->alloc_ = raw;
    b->data = (uint8_t *)p;
    b->capacity = capacity;
    return NULL;
}

floe_status floe_buffer_new(int64_t size, floe_buffer **out) {
    *out = NULL;
    if (size < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative buffer size %lld", (long long)size);
    floe_buffer *b = floe_calloc(1, sizeof *b);
    if (!b) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating a buffer");
    floe_status st = alloc_block(b, round_up64(size > 0 ? size : 1));
    if (st) {
        floe_free(b);
        return st;
    }
    b->size = size;
    atomic_init(&b->refcount_, 1);
    *out = b;
    return NULL;
}

floe_status floe_buffer_copy(const void *data, int64_t size, floe_buffer **out) {
    FLOE_TRY(floe_buffer_new(size, out));
    if (size > 0) memcpy((*out)->data, data, (size_t)size);
    return NULL;
}

floe_status floe_buffer_wrap(const void *data, int64_t size, floe_buffer_release_fn release,
                             void *ctx, floe_buffer **out) {
    *out = NULL;
    if (size < 0 || (!data && size > 0))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot wrap %lld bytes at %p", (long long)size, data);
    floe_buffer *b = floe_calloc(1, sizeof *b);
    if (!b) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating a buffer");
    b->data = (uint8_t *)data;
    b->size = size;
    b->capacity = size;
    b->release_ = release;
    b->release_ctx_ = ctx;
    atomic_init(&b->refcount_, 1);
    *out = b;
    return NULL;
}

floe_status floe_buffer_resize(floe_buffer *b, int64_t size) {
    if (size < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative buffer size %lld", (long long)size);
    if (!b->alloc_) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot resize a wrapped buffer");
    if (size <= b->capacity) {
        if (size < b->size) memset(b->data + size, 0, (size_t)(b->size - size));
        b->size = size;
        return NULL;
    }
    /* Grow geometrically so repeated appends cost amortised O(1). */
    int64_t cap = b->capacity * 2;
    if (cap < size) cap = size;
    floe_buffer nb = {0};
    FLOE_TRY(alloc_block(&nb, round_up64(cap)));
    memcpy(nb.data, b->data, (size_t)b->size);
    floe_free(b->alloc_);
    b->alloc_ = nb.alloc_;
    b->data = nb.data;
    b->capacity = nb.capacity;
    b->size = size;
    return NULL;
}

floe_buffer *floe_buffer_retain(floe_buffer *b) {
    if (b) atomic_fetch_add_explicit(&b->refcount_, 1, memory_order_relaxed);
    return b;
}

void floe_buffer_release(floe_buffer *b) {
    if (!b) return;
    if (atomic_fetch_sub_explicit(&b->refcount_, 1, memory_order_acq_rel) != 1) return;
    if (b->alloc_) floe_free(b->alloc_);
    else if (b->release_) b->release_(b->release_ctx_, b->data);
    floe_free(b);
}

/* ------------------------------------------------------------------ bitmaps */

int64_t floe_bitmap_count(const uint8_t *bits, int64_t offset, int64_t length) {
    int64_t count = 0, i = offset, end = offset + length;
    for (; i < end && (i & 7); i++) count += floe_bit_get(bits, i);
    /* Whole 64-bit words, then whole bytes, then the tail. */
    for (; i + 64 <= end; i += 64) {
        uint64_t w;
        memcpy(&w, bits + (i >> 3), 8);
        count += __builtin_popcountll(w);
    }
    for (; i + 8 <= end; i += 8) count += __builtin_popcount(bits[i >> 3]);
    for (; i < end; i++) count += floe_bit_get(bits, i);
    return count;
}

void floe_bitmap_copy(uint8_t *dst, int64_t dst_off, const uint8_t *src, int64_t src_off,
                      int64_t length) {
    if (length <= 0) return;
    if (((dst_off | src_off) & 7) == 0) {
        int64_t whole = length >> 3;
        memcpy(dst + (dst_off >> 3), src + (src_off >> 3), (size_t)whole);
        for (int64_t i = whole << 3; i < length; i++)
            floe_bit_put(dst, dst_off + i, floe_bit_get(src, src_off + i));
        return;
    }
    int64_t i = 0;
    /* Bring dst to a byte boundary, then assemble whole destination bytes
     * from two source bytes at a time. */
    for (; i < length && ((dst_off + i) & 7); i++)
        floe_bit_put(dst, dst_off + i, floe_bit_get(src, src_off + i));
    int shift = (int)((src_off + i) & 7);
    for (; i + 8 <= length; i += 8) {
        const uint8_t *s = src + ((src_off + i) >> 3);
        uint8_t v = shift ? (uint8_t)((s[0] >> shift) | (s[1] << (8 - shift))) : s[0];
        dst[(dst_off + i) >> 3] = v;
    }
    for (; i < length; i++) floe_bit_put(dst, dst_off + i, floe_bit_get(src, src_off + i));
}

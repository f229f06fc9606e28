/*
 * buffer.c — growable byte buffer (see buffer.h).  Grows by doubling so n
 * appends cost O(n) copies in total.
 */
#include "base/buffer.h"

#include <stdio.h>
#include <string.h>

#include "floe/memory.h"

void floe_buf_init(floe_buf *b) {
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void floe_buf_free(floe_buf *b) {
    floe_free(b->data);
    floe_buf_init(b);
}

floe_status floe_buf_reserve(floe_buf *b, size_t extra) {
    if (extra > SIZE_MAX - b->len - 1) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "buffer too large");
    size_t need = b->len + extra + 1;
    if (need <= b->cap) return NULL;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *p = floe_realloc(b->data, cap);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory growing a buffer to %zu bytes", cap);
    b->data = p;
    b->cap = cap;
    return NULL;
}

uint8_t *floe_buf_extend(floe_buf *b, size_t n) {
    floe_status st = floe_buf_reserve(b, n);
    if (st) {
        floe_status_free(st);
        return NULL;
    }
    uint8_t *p = b->data + b->len;
    b->len += n;
    b->data[b->len] = 0;
    return p;
}

floe_status floe_buf_append(floe_buf *b, const void *p, size_t n) {
    /* Appending (part of) the buffer to itself: growth may move the bytes,
     * so remember them as an offset across the reserve. */
    const uint8_t *src = p;
    if (b->data && src >= b->data && src < b->data + b->cap) {
        size_t off = (size_t)(src - b->data);
        FLOE_TRY(floe_buf_reserve(b, n));
        src = b->data + off;
    } else {
        FLOE_TRY(floe_buf_reserve(b, n));
    }
    if (n) memmove(b->data + b->len, src, n);
    b->len += n;
    b->data[b->len] = 0;
    return NULL;
}

floe_status floe_buf_append_str(floe_buf *b, const char *s) {
    return floe_buf_append(b, s, strlen(s));
}

floe_status floe_buf_append_byte(floe_buf *b, uint8_t c) {
    return floe_buf_append(b, &c, 1);
}

floe_status floe_buf_vprintf(floe_buf *b, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return floe_error(FLOE_ERR_INTERNAL, "bad format string '%s'", fmt);
    FLOE_TRY(floe_buf_reserve(b, (size_t)n));
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return NULL;
}

floe_status floe_buf_printf(floe_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_status st = floe_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return st;
}

uint8_t *floe_buf_detach(floe_buf *b, size_t *len_out) {
    uint8_t *p = b->data;
    if (len_out) *len_out = b->len;
    floe_buf_init(b);
    return p;
}

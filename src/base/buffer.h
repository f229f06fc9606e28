/*
 * buffer.h — a growable byte buffer (also used as a string builder).
 *
 * Memory comes from floe_malloc (tracked).  `data` may move on any append;
 * keep offsets, not pointers, across appends.  The byte after `len` is kept
 * NUL so a text buffer is always a valid C string.
 */
#ifndef FLOE_BASE_BUFFER_H
#define FLOE_BASE_BUFFER_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/status.h"

typedef struct floe_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} floe_buf;

#define FLOE_BUF_INIT {NULL, 0, 0}

void floe_buf_init(floe_buf *b);
void floe_buf_free(floe_buf *b);
/* Forget the contents, keep the memory. */
static inline void floe_buf_clear(floe_buf *b) {
    b->len = 0;
    if (b->data) b->data[0] = 0;
}
/* Make room for `extra` more bytes (plus the trailing NUL). */
floe_status floe_buf_reserve(floe_buf *b, size_t extra) FLOE_WARN_UNUSED;
floe_status floe_buf_append(floe_buf *b, const void *p, size_t n) FLOE_WARN_UNUSED;
floe_status floe_buf_append_str(floe_buf *b, const char *s) FLOE_WARN_UNUSED;
floe_status floe_buf_append_byte(floe_buf *b, uint8_t c) FLOE_WARN_UNUSED;
floe_status floe_buf_printf(floe_buf *b, const char *fmt, ...) FLOE_PRINTF(2, 3) FLOE_WARN_UNUSED;
floe_status floe_buf_vprintf(floe_buf *b, const char *fmt, va_list ap) FLOE_WARN_UNUSED;
/* Grow len by n and return a pointer to the n new (uninitialised) bytes,
 * or NULL when memory is exhausted. */
uint8_t *floe_buf_extend(floe_buf *b, size_t n);
/* Hand the bytes to the caller (floe_free them); the buffer becomes empty. */
uint8_t *floe_buf_detach(floe_buf *b, size_t *len_out);
/* The contents as a C string ("" for an empty buffer). */
static inline const char *floe_buf_cstr(const floe_buf *b) {
    return b->data ? (const char *)b->data : "";
}

#endif

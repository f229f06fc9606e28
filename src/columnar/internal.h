/*
 * internal.h — helpers shared by the columnar layer's .c files only.
 */
#ifndef FLOE_COLUMNAR_INTERNAL_H
#define FLOE_COLUMNAR_INTERNAL_H

#include "floe/columnar.h"

/* How many of buffers[] a type uses (validity not counted). */
int floe_type_num_buffers(const floe_type *t);

/* Gather `n` logical slots of `src` named by `indices` onto builder `b`
 * (indices already known to be in range). */
floe_status floe_builder_take_unchecked(floe_builder *b, const floe_array *src,
                                       const uint32_t *indices, int64_t n) FLOE_WARN_UNUSED;

/* Length in bytes of the valid UTF-8 sequence starting at s (n >= 1 bytes
 * left), or 0 when the bytes there are not valid UTF-8. */
int floe_utf8_seq_len(const uint8_t *s, int64_t n);

/* Deepest nesting of types/values floe walks recursively; deeper input
 * (from an untrusted producer) is refused rather than risking the stack. */
#define FLOE_MAX_NESTING 64

#endif

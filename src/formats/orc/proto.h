/*
 * proto.h — the Protocol Buffers wire format, as ORC's file tail uses it.
 *
 * ORC's PostScript, Footer, Metadata, StripeFooter, RowIndex and
 * BloomFilterIndex are protobuf (proto2) messages.  floe decodes them by
 * hand rather than through protobuf-c: the messages are few and small, a
 * hand-written decoder needs no generated code, no new build dependency and
 * no allocator hooks, and it is trivially fuzzable (the same choice as the
 * Parquet Thrift codec).  orc_meta.c walks each message field by field;
 * this file only knows the wire format:
 *
 *   tag      = varint (field number << 3 | wire type)
 *   type 0   = varint           type 1 = 8 bytes little-endian
 *   type 2   = varint length + bytes (strings, bytes, sub-messages, packed)
 *   type 5   = 4 bytes little-endian
 *   (types 3/4, deprecated groups, are refused as corrupt)
 *
 * Every read is bounds-checked against the message; a failure returns
 * false and leaves the reader where it was, and the caller names the
 * message and field in its error.  Unknown fields are skipped, which is how
 * files from newer writers stay readable.
 */
#ifndef FLOE_FORMATS_ORC_PROTO_H
#define FLOE_FORMATS_ORC_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum floe_orc_wire {
    FLOE_ORC_WIRE_VARINT = 0,
    FLOE_ORC_WIRE_I64 = 1,
    FLOE_ORC_WIRE_LEN = 2,
    FLOE_ORC_WIRE_I32 = 5
} floe_orc_wire;

/* A read position inside one message's bytes. */
typedef struct floe_orc_pb {
    const uint8_t *p;
    const uint8_t *end;
} floe_orc_pb;

static inline floe_orc_pb floe_orc_pb_init(const uint8_t *data, size_t len) {
    static const uint8_t empty[1] = {0};
    if (!data) data = empty, len = 0; /* an empty message */
    floe_orc_pb r = {data, data + len};
    return r;
}
static inline bool floe_orc_pb_done(const floe_orc_pb *r) { return r->p >= r->end; }

/* Read a varint (at most 10 bytes, fitting 64 bits). */
bool floe_orc_pb_varint(floe_orc_pb *r, uint64_t *v);
/* Read the next field's tag. */
bool floe_orc_pb_tag(floe_orc_pb *r, uint32_t *field, int *wire);
/* Skip the value of a field of wire type `wire`. */
bool floe_orc_pb_skip(floe_orc_pb *r, int wire);
/* A length-delimited value: its bytes, as a sub-reader. */
bool floe_orc_pb_bytes(floe_orc_pb *r, const uint8_t **data, size_t *len);
bool floe_orc_pb_fixed64(floe_orc_pb *r, uint64_t *v);
bool floe_orc_pb_fixed32(floe_orc_pb *r, uint32_t *v);
/* A scalar field of varint, fixed64 or fixed32 kind read into 64 bits as
 * its wire type says (so an int field written as varint is accepted). */
bool floe_orc_pb_scalar(floe_orc_pb *r, int wire, uint64_t *v);

static inline int64_t floe_orc_unzigzag(uint64_t v) {
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* How many values field `field` holds in the message [data, data+len):
 * occurrences, plus for a packed (length-delimited) occurrence of a scalar
 * field the varints inside it when `packed_varints`.  -1 if the message is
 * malformed. */
int64_t floe_orc_pb_count(const uint8_t *data, size_t len, uint32_t field,
                          bool packed_varints);

/* Read repeated scalar field values (packed or not) into out[*n], growing
 * *n; `cap` values fit (as counted by floe_orc_pb_count).  Call for each
 * occurrence of the field with its wire type. */
bool floe_orc_pb_repeated_u64(floe_orc_pb *r, int wire, uint64_t *out, size_t cap, size_t *n);

#endif

/*
 * pgwire.h — PostgreSQL wire protocol (v3) framing on one socket.
 *
 * A frontend message is a type byte, a big-endian int32 length that counts
 * itself, and a body; the startup packet has no type byte.  pg_conn reads
 * one message at a time into `in` and builds outgoing messages in `out`,
 * sent by pg_flush.  Writing never fails midway: an allocation failure is
 * remembered (`broken`) and reported by the next pg_flush, which then drops
 * the connection — a half-built message is never sent.
 */
#ifndef FLOE_SERVER_PGWIRE_H
#define FLOE_SERVER_PGWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/status.h"

/* Messages bigger than this are refused (PostgreSQL's limit is 1 GB). */
#define PG_MAX_MESSAGE (256u * 1024 * 1024)

typedef struct ssl_st SSL;

typedef struct pg_conn {
    int fd;
    SSL *ssl;           /* after a TLS handshake (tls.c): all bytes go through it */
    floe_buf in;        /* body of the message read last */
    floe_buf out;       /* messages not yet sent */
    size_t msg_start;   /* where the message being built starts in out */
    bool broken;        /* an append failed: the connection is unusable */
    uint32_t max_message; /* 0: PG_MAX_MESSAGE; smaller before authentication */
} pg_conn;

void pg_conn_init(pg_conn *c, int fd);
void pg_conn_free(pg_conn *c); /* frees the buffers and the TLS state; the caller closes fd */

/* Read the startup packet (length, then body into c->in).  EOF before the
 * first byte is FLOE_ERR_CANCELLED ("closed"), like pg_read_message. */
floe_status pg_read_startup(pg_conn *c) FLOE_WARN_UNUSED;
/* Read one typed message; its body lands in c->in. */
floe_status pg_read_message(pg_conn *c, char *type) FLOE_WARN_UNUSED;

/* Building messages.  pg_begin starts one of `type`; pg_end fills in its
 * length. */
void pg_begin(pg_conn *c, char type);
void pg_put_byte(pg_conn *c, uint8_t v);
void pg_put_int16(pg_conn *c, int16_t v);
void pg_put_int32(pg_conn *c, int32_t v);
void pg_put_bytes(pg_conn *c, const void *p, size_t n);
void pg_put_cstr(pg_conn *c, const char *s); /* with its NUL */
void pg_end(pg_conn *c);
/* Send everything built so far. */
floe_status pg_flush(pg_conn *c) FLOE_WARN_UNUSED;

/* Reading a message body: a cursor that turns any overrun into `bad`
 * (values read past the end are zero / empty). */
typedef struct pg_reader {
    const uint8_t *p;
    size_t len, pos;
    bool bad;
} pg_reader;

void pg_reader_init(pg_reader *r, const void *p, size_t len);
uint8_t pg_get_byte(pg_reader *r);
int16_t pg_get_int16(pg_reader *r);
int32_t pg_get_int32(pg_reader *r);
/* A NUL-terminated string inside the body (borrowed), "" when bad. */
const char *pg_get_cstr(pg_reader *r);
/* n bytes (borrowed), NULL when bad. */
const uint8_t *pg_get_bytes(pg_reader *r, size_t n);

/* Big-endian helpers shared with the binary value codecs. */
static inline void pg_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline uint32_t pg_rd32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif

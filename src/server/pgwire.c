/*
 * pgwire.c — message framing on a socket (see pgwire.h).
 */
#include "server/pgwire.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void pg_conn_init(pg_conn *c, int fd) {
    memset(c, 0, sizeof *c);
    c->fd = fd;
    floe_buf_init(&c->in);
    floe_buf_init(&c->out);
}

void pg_conn_free(pg_conn *c) {
    if (c->ssl) SSL_free(c->ssl);
    c->ssl = NULL;
    floe_buf_free(&c->in);
    floe_buf_free(&c->out);
}

/* Read exactly n bytes.  EOF at the very start of a message (`at_start`)
 * is the client going away: FLOE_ERR_CANCELLED; elsewhere it is IO. */
static floe_status read_exact(pg_conn *c, void *p, size_t n, bool at_start) {
    uint8_t *q = p;
    size_t got = 0;
    while (got < n) {
        if (c->ssl) {
            size_t r = 0;
            if (SSL_read_ex(c->ssl, q + got, n - got, &r) == 1) {
                got += r;
                continue;
            }
            int e = SSL_get_error(c->ssl, 0);
            ERR_clear_error();
            if (e == SSL_ERROR_ZERO_RETURN && got == 0 && at_start)
                return floe_error(FLOE_ERR_CANCELLED, "the client closed the connection");
            return floe_error(FLOE_ERR_IO, "reading from the client over TLS: %s",
                              e == SSL_ERROR_ZERO_RETURN || e == SSL_ERROR_SYSCALL ? "connection closed" : "TLS error");
        }
        ssize_t r = recv(c->fd, q + got, n - got, 0);
        if (r > 0) {
            got += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return floe_error(FLOE_ERR_TIMEOUT, "the client sent nothing in time");
        if (r == 0 && got == 0 && at_start) return floe_error(FLOE_ERR_CANCELLED, "the client closed the connection");
        if (r == 0) return floe_error(FLOE_ERR_IO, "the client closed the connection inside a message");
        return floe_error(FLOE_ERR_IO, "reading from the client: %s", strerror(errno));
    }
    return NULL;
}

static floe_status read_body(pg_conn *c, uint32_t len, const char *what) {
    if (len < 4 || len > (c->max_message ? c->max_message : PG_MAX_MESSAGE))
        return floe_error(FLOE_ERR_CORRUPT, "%s: invalid message length %u", what, (unsigned)len);
    floe_buf_clear(&c->in);
    FLOE_TRY(floe_buf_reserve(&c->in, len - 4 + 1));
    FLOE_TRY(read_exact(c, c->in.data, len - 4, false));
    c->in.len = len - 4;
    c->in.data[c->in.len] = 0;
    return NULL;
}

floe_status pg_read_startup(pg_conn *c) {
    uint8_t hdr[4];
    FLOE_TRY(read_exact(c, hdr, 4, true));
    uint32_t len = pg_rd32(hdr);
    if (len > 10000) return floe_error(FLOE_ERR_CORRUPT, "startup packet: invalid length %u", (unsigned)len);
    return read_body(c, len, "startup packet");
}

floe_status pg_read_message(pg_conn *c, char *type) {
    uint8_t hdr[5];
    FLOE_TRY(read_exact(c, hdr, 1, true));
    FLOE_TRY(read_exact(c, hdr + 1, 4, false));
    *type = (char)hdr[0];
    char what[32];
    snprintf(what, sizeof what, "message '%c'", hdr[0] >= 32 && hdr[0] < 127 ? hdr[0] : '?');
    return read_body(c, pg_rd32(hdr + 1), what);
}

/* -------------------------------------------------------------- writing */

static void put(pg_conn *c, const void *p, size_t n) {
    if (c->broken) return;
    floe_status st = floe_buf_append(&c->out, p, n);
    if (st) {
        floe_status_free(st);
        c->broken = true;
    }
}

void pg_begin(pg_conn *c, char type) {
    c->msg_start = c->out.len;
    uint8_t hdr[5] = {(uint8_t)type, 0, 0, 0, 0};
    put(c, hdr, 5);
}

void pg_put_byte(pg_conn *c, uint8_t v) { put(c, &v, 1); }

void pg_put_int16(pg_conn *c, int16_t v) {
    uint8_t b[2] = {(uint8_t)((uint16_t)v >> 8), (uint8_t)v};
    put(c, b, 2);
}

void pg_put_int32(pg_conn *c, int32_t v) {
    uint8_t b[4];
    pg_be32(b, (uint32_t)v);
    put(c, b, 4);
}

void pg_put_bytes(pg_conn *c, const void *p, size_t n) { put(c, p, n); }

void pg_put_cstr(pg_conn *c, const char *s) { put(c, s, strlen(s) + 1); }

void pg_end(pg_conn *c) {
    if (c->broken) return;
    pg_be32(c->out.data + c->msg_start + 1, (uint32_t)(c->out.len - c->msg_start - 1));
}

floe_status pg_flush(pg_conn *c) {
    if (c->broken) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "building a reply: out of memory");
    size_t sent = 0;
    while (sent < c->out.len && c->ssl) {
        size_t w = 0;
        if (SSL_write_ex(c->ssl, c->out.data + sent, c->out.len - sent, &w) != 1) {
            ERR_clear_error();
            floe_buf_clear(&c->out);
            return floe_error(FLOE_ERR_IO, "writing to the client over TLS failed");
        }
        sent += w;
    }
    while (sent < c->out.len) {
        ssize_t w = send(c->fd, c->out.data + sent, c->out.len - sent, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
            floe_buf_clear(&c->out);
            return floe_error(FLOE_ERR_IO, "writing to the client: %s", strerror(errno));
        }
        sent += (size_t)w;
    }
    floe_buf_clear(&c->out);
    return NULL;
}

/* -------------------------------------------------------------- reading */

void pg_reader_init(pg_reader *r, const void *p, size_t len) {
    r->p = p;
    r->len = len;
    r->pos = 0;
    r->bad = false;
}

const uint8_t *pg_get_bytes(pg_reader *r, size_t n) {
    if (r->bad || n > r->len - r->pos) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *p = r->p + r->pos;
    r->pos += n;
    return p;
}

uint8_t pg_get_byte(pg_reader *r) {
    const uint8_t *p = pg_get_bytes(r, 1);
    return p ? p[0] : 0;
}

int16_t pg_get_int16(pg_reader *r) {
    const uint8_t *p = pg_get_bytes(r, 2);
    return p ? (int16_t)(uint16_t)((p[0] << 8) | p[1]) : 0;
}

int32_t pg_get_int32(pg_reader *r) {
    const uint8_t *p = pg_get_bytes(r, 4);
    return p ? (int32_t)pg_rd32(p) : 0;
}

const char *pg_get_cstr(pg_reader *r) {
    if (r->bad) return "";
    const uint8_t *start = r->p + r->pos;
    const uint8_t *nul = memchr(start, 0, r->len - r->pos);
    if (!nul) {
        r->bad = true;
        return "";
    }
    r->pos += (size_t)(nul - start) + 1;
    return (const char *)start;
}

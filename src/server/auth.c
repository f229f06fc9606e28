/*
 * auth.c — the start of a connection: the startup packet (after an
 * SSLRequest or GSSENCRequest, answered 'N': no TLS yet), a CancelRequest
 * (handed to the listener's key table, no reply), and authentication:
 *
 *   no password configured  trust (AuthenticationOk)
 *   --auth scram (default)  SCRAM-SHA-256 (scram.c)
 *   --auth md5              md5(md5(password || user) || salt)
 *   --auth password         cleartext
 *
 * A failure is answered as PostgreSQL does, FATAL 28P01 "password
 * authentication failed for user ...", whatever was wrong, so a client
 * learns nothing about which part was.  Passwords are never logged.
 */
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "base/digest.h"
#include "base/log.h"
#include "floe/memory.h"
#include "server/server_internal.h"

#define PROTOCOL_V3 196608       /* 3.0 */
#define SSL_REQUEST 80877103
#define GSSENC_REQUEST 80877104
#define CANCEL_REQUEST 80877102

static void send_auth(pg_session *s, int32_t code, const void *extra, size_t n) {
    pg_begin(&s->conn, 'R');
    pg_put_int32(&s->conn, code);
    if (n) pg_put_bytes(&s->conn, extra, n);
    pg_end(&s->conn);
}

/* Read a PasswordMessage / SASL response ('p'). */
static floe_status read_password_message(pg_session *s) {
    FLOE_TRY(pg_flush(&s->conn));
    char type;
    FLOE_TRY(pg_read_message(&s->conn, &type));
    if (type != 'p') return floe_error(FLOE_ERR_AUTH, "expected a password message, got '%c'", type);
    return NULL;
}

static floe_status random_text(char *out, size_t n) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint8_t raw[64];
    if (n > sizeof raw || RAND_bytes(raw, (int)n) != 1) return floe_error(FLOE_ERR_INTERNAL, "no random bytes");
    for (size_t i = 0; i < n; i++) out[i] = alphabet[raw[i] & 63];
    out[n] = 0;
    return NULL;
}

static floe_status auth_scram(pg_session *s) {
    static const char mechs[] = "SCRAM-SHA-256\0";
    send_auth(s, 10, mechs, sizeof mechs); /* AuthenticationSASL; the list ends with an empty name */
    FLOE_TRY(read_password_message(s));
    pg_reader r;
    pg_reader_init(&r, s->conn.in.data, s->conn.in.len);
    const char *mech = pg_get_cstr(&r);
    int32_t len = pg_get_int32(&r);
    const uint8_t *data = len >= 0 ? pg_get_bytes(&r, (size_t)len) : NULL;
    if (r.bad || !data || strcmp(mech, "SCRAM-SHA-256") != 0)
        return floe_error(FLOE_ERR_AUTH, "SASL: unsupported mechanism or malformed initial response");
    floe_scram_server sc;
    floe_scram_server_init(&sc, &s->server->verifier);
    floe_buf reply = FLOE_BUF_INIT;
    char nonce[25];
    floe_status st = random_text(nonce, 24);
    if (!st) st = floe_scram_server_first(&sc, (const char *)data, (size_t)len, nonce, &reply);
    if (!st) {
        send_auth(s, 11, reply.data, reply.len); /* AuthenticationSASLContinue */
        st = read_password_message(s);
    }
    if (!st) {
        floe_buf_clear(&reply);
        st = floe_scram_server_final(&sc, (const char *)s->conn.in.data, s->conn.in.len, &reply);
    }
    if (!st) send_auth(s, 12, reply.data, reply.len); /* AuthenticationSASLFinal */
    floe_buf_free(&reply);
    floe_scram_server_free(&sc);
    return st;
}

static void hex(const uint8_t *p, size_t n, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = 0;
}

static floe_status auth_md5(pg_session *s) {
    uint8_t salt[4];
    if (RAND_bytes(salt, 4) != 1) return floe_error(FLOE_ERR_INTERNAL, "no random bytes");
    send_auth(s, 5, salt, 4);
    FLOE_TRY(read_password_message(s));
    pg_reader r;
    pg_reader_init(&r, s->conn.in.data, s->conn.in.len);
    const char *got = pg_get_cstr(&r);
    /* md5(md5(password || user) || salt), each as 32 hex digits */
    floe_buf tmp = FLOE_BUF_INIT;
    uint8_t d[16];
    char inner[33], want[36];
    floe_status st = floe_buf_append_str(&tmp, s->server->cfg.password);
    if (!st) st = floe_buf_append_str(&tmp, s->user);
    if (!st) {
        floe_md5(tmp.data, tmp.len, d);
        hex(d, 16, inner);
        floe_buf_clear(&tmp);
        st = floe_buf_append(&tmp, inner, 32);
    }
    if (!st) st = floe_buf_append(&tmp, salt, 4);
    if (!st) {
        floe_md5(tmp.data, tmp.len, d);
        memcpy(want, "md5", 3);
        hex(d, 16, want + 3);
        if (r.bad || strlen(got) != 35 || CRYPTO_memcmp(got, want, 35) != 0)
            st = floe_error(FLOE_ERR_AUTH, "md5: wrong password");
    }
    OPENSSL_cleanse(tmp.data, tmp.len);
    floe_buf_free(&tmp);
    return st;
}

static floe_status auth_password(pg_session *s) {
    send_auth(s, 3, NULL, 0);
    FLOE_TRY(read_password_message(s));
    pg_reader r;
    pg_reader_init(&r, s->conn.in.data, s->conn.in.len);
    const char *got = pg_get_cstr(&r);
    const char *want = s->server->cfg.password;
    size_t n = strlen(want);
    bool ok = !r.bad && strlen(got) == n && CRYPTO_memcmp(got, want, n) == 0;
    OPENSSL_cleanse(s->conn.in.data, s->conn.in.len);
    return ok ? NULL : floe_error(FLOE_ERR_AUTH, "cleartext: wrong password");
}

static floe_status authenticate(pg_session *s) {
    const floe_pg_server_config *cfg = &s->server->cfg;
    if (!cfg->password) return NULL;
    floe_status st = NULL;
    switch (cfg->auth) {
    case FLOE_PG_AUTH_MD5: st = auth_md5(s); break;
    case FLOE_PG_AUTH_PASSWORD: st = auth_password(s); break;
    default: st = auth_scram(s); break;
    }
    /* A wrong user name is found only after the exchange, like a wrong
     * password, so neither is told apart. */
    if (!st && cfg->user && strcmp(cfg->user, s->user) != 0) st = floe_error(FLOE_ERR_AUTH, "unknown user");
    return st;
}

/* The startup packet's parameters: user, database, then settings. */
static floe_status read_parameters(pg_session *s) {
    pg_reader r;
    pg_reader_init(&r, s->conn.in.data + 4, s->conn.in.len - 4);
    for (;;) {
        const char *name = pg_get_cstr(&r);
        if (r.bad) return floe_error(FLOE_ERR_CORRUPT, "startup packet: malformed parameters");
        if (!*name) break;
        const char *value = pg_get_cstr(&r);
        if (r.bad) return floe_error(FLOE_ERR_CORRUPT, "startup packet: malformed parameters");
        if (!strcmp(name, "user")) {
            floe_free(s->user);
            s->user = floe_strdup(value);
        } else if (!strcmp(name, "database")) {
            floe_free(s->database);
            s->database = floe_strdup(value);
        } else if (!strcmp(name, "options") || !strcmp(name, "replication")) {
            if (*value && strcmp(value, "false") != 0 && !strcmp(name, "replication"))
                return floe_error(FLOE_ERR_UNSUPPORTED, "replication connections are not supported");
        } else if (strncmp(name, "_pq_.", 5) != 0) {
            FLOE_TRY(pg_setting_put(s, name, value, false));
        }
    }
    if (!s->user || !*s->user) return floe_error(FLOE_ERR_AUTH, "no PostgreSQL user name specified in startup packet");
    if (!s->database) s->database = floe_strdup(s->user);
    FLOE_TRY(pg_setting_put(s, "session_authorization", s->user, false));
    return s->database ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "startup: out of memory");
}

/* Until a client has logged in it may send only small messages and must
 * not stall (PostgreSQL's authentication_timeout is a minute too). */
#define AUTH_MAX_MESSAGE 16384
#define AUTH_TIMEOUT_SECONDS 60

static void set_read_timeout(int fd, int seconds) {
    struct timeval tv = {seconds, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

static floe_status startup(pg_session *s, bool *done);

floe_status pg_startup(pg_session *s, bool *done) {
    s->conn.max_message = AUTH_MAX_MESSAGE;
    set_read_timeout(s->conn.fd, AUTH_TIMEOUT_SECONDS);
    floe_status st = startup(s, done);
    s->conn.max_message = 0;
    set_read_timeout(s->conn.fd, 0);
    return st;
}

static floe_status startup(pg_session *s, bool *done) {
    *done = false;
    for (int round = 0;; round++) {
        FLOE_TRY(pg_read_startup(&s->conn));
        if (s->conn.in.len < 4) return floe_error(FLOE_ERR_CORRUPT, "startup packet too short");
        int32_t code = (int32_t)pg_rd32(s->conn.in.data);
        if (code == CANCEL_REQUEST) {
            if (s->conn.in.len == 12) pg_cancel_request((int32_t)pg_rd32(s->conn.in.data + 4), (int32_t)pg_rd32(s->conn.in.data + 8));
            *done = true;
            return NULL;
        }
        if (code == SSL_REQUEST && round < 2 && s->server->tls && !s->conn.ssl) {
            uint8_t yes = 'S';
            pg_put_bytes(&s->conn, &yes, 1);
            FLOE_TRY(pg_flush(&s->conn));
            FLOE_TRY(pg_tls_accept(s));
            continue;
        }
        if ((code == SSL_REQUEST || code == GSSENC_REQUEST) && round < 2) {
            /* No TLS (or GSS encryption): the client goes on in plain
             * text, or gives up as sslmode=require does. */
            uint8_t no = 'N';
            pg_put_bytes(&s->conn, &no, 1);
            FLOE_TRY(pg_flush(&s->conn));
            continue;
        }
        if (code >> 16 != 3) {
            pg_send_error_code(s, "0A000", true, "unsupported frontend protocol %d.%d: server supports 3.0",
                               code >> 16, code & 0xffff);
            floe_status_free(pg_flush(&s->conn));
            *done = true;
            return NULL;
        }
        break;
    }
    floe_status st = read_parameters(s);
    if (!st && s->over_limit) {
        FLOE_LOG_WARN("serve", "session %d: refused: --max-connections reached", (int)s->id);
        pg_send_error_code(s, "53300", true, "sorry, too many clients already");
        floe_status_free(pg_flush(&s->conn));
        *done = true;
        return NULL;
    }
    if (st) {
        pg_send_error_code(s, floe_status_code(st) == FLOE_ERR_AUTH ? "28000" : pg_sqlstate_of(st), true, "%s",
                           floe_status_message(st));
        floe_status_free(st);
        floe_status_free(pg_flush(&s->conn));
        *done = true;
        return NULL;
    }
    st = authenticate(s);
    if (st && floe_status_code(st) != FLOE_ERR_AUTH) return st; /* gone (psql asks for the password so) or broken */
    if (st) {
        FLOE_LOG_WARN("serve", "session %d: authentication failed for user '%s' from %s (%s)", (int)s->id, s->user,
                      s->peer, floe_status_message(st));
        floe_status_free(st);
        pg_send_error_code(s, "28P01", true, "password authentication failed for user \"%s\"", s->user);
        floe_status_free(pg_flush(&s->conn));
        *done = true;
        return NULL;
    }
    send_auth(s, 0, NULL, 0); /* AuthenticationOk */
    FLOE_LOG_INFO("serve", "session %d: user '%s' database '%s' from %s%s", (int)s->id, s->user, s->database, s->peer,
                  s->conn.ssl ? " (TLS)" : "");
    return NULL;
}

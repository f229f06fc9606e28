/*
 * tls.c — TLS for `floe serve` (--tls-cert / --tls-key): the server's
 * OpenSSL context, made once at start-up, and the handshake after a
 * client's SSLRequest was answered 'S'.  TLS 1.2 is the oldest version
 * offered; no client certificates are asked for.
 */
#include <openssl/err.h>
#include <stdio.h>
#include <openssl/ssl.h>
#include <string.h>

#include "server/server_internal.h"

/* The first queued OpenSSL error as text (and the queue cleared). */
static void ssl_reason(char *out, size_t cap) {
    unsigned long e = ERR_get_error();
    if (e) ERR_error_string_n(e, out, cap);
    else snprintf(out, cap, "unknown error");
    ERR_clear_error();
}

floe_status pg_tls_context_new(const char *cert, const char *key, SSL_CTX **out) {
    *out = NULL;
    char why[256];
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) return floe_error(FLOE_ERR_INTERNAL, "TLS: no context");
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
        ssl_reason(why, sizeof why);
        SSL_CTX_free(ctx);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "--tls-cert '%s': %s", cert, why);
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
        ssl_reason(why, sizeof why);
        SSL_CTX_free(ctx);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "--tls-key '%s': %s", key, why);
    }
    *out = ctx;
    return NULL;
}

floe_status pg_tls_accept(pg_session *s) {
    SSL *ssl = SSL_new(s->server->tls);
    if (!ssl) return floe_error(FLOE_ERR_INTERNAL, "TLS: no session");
    if (SSL_set_fd(ssl, s->conn.fd) != 1) {
        SSL_free(ssl);
        return floe_error(FLOE_ERR_INTERNAL, "TLS: cannot attach the socket");
    }
    if (SSL_accept(ssl) != 1) {
        char why[256];
        ssl_reason(why, sizeof why);
        SSL_free(ssl);
        return floe_error(FLOE_ERR_IO, "TLS handshake with %s failed: %s", s->peer, why);
    }
    s->conn.ssl = ssl;
    return NULL;
}

/*
 * server.h — `floe serve`: a PostgreSQL wire-protocol (v3) server on the
 * floe coordinator, so psql, psycopg2, node-postgres and other PostgreSQL
 * clients run SQL on floe.
 *
 * One thread per connection; each connection has its own floe session (its
 * own catalog connection, SET options and prepared statements).  Every
 * statement autocommits; BEGIN / COMMIT / ROLLBACK are accepted and do
 * nothing else.  With a certificate and key TLS is offered (an SSLRequest
 * is answered 'S'); without, an SSLRequest is answered 'N'.
 */
#ifndef FLOE_SERVER_SERVER_H
#define FLOE_SERVER_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "floe/fileio.h"
#include "floe/status.h"

typedef enum floe_pg_auth {
    FLOE_PG_AUTH_SCRAM = 0, /* SCRAM-SHA-256 (the default with a password) */
    FLOE_PG_AUTH_MD5,
    FLOE_PG_AUTH_PASSWORD   /* cleartext */
} floe_pg_auth;

typedef struct floe_pg_server_config {
    const char *host;            /* address to bind (NULL: 127.0.0.1) */
    int port;                    /* 0: any free port (printed) */
    const char *catalog_uri;     /* what floe_session_open_catalog opens */
    const floe_property *props;
    size_t n_props;
    const char *user;            /* NULL: any user name */
    const char *password;        /* NULL: trust (no authentication) */
    floe_pg_auth auth;
    int max_connections;         /* 0: 100; more are refused (53300) */
    const char *tls_cert;        /* PEM certificate chain (NULL: no TLS) */
    const char *tls_key;         /* PEM private key */
    /* Called once the socket listens, with the port bound (may be NULL). */
    void (*on_listening)(void *arg, const char *host, int port);
    void *arg;
} floe_pg_server_config;

/* Listen and serve until SIGINT / SIGTERM (or floe_pg_server_stop); then
 * close every connection and return. */
floe_status floe_pg_serve(const floe_pg_server_config *cfg) FLOE_WARN_UNUSED;
/* Ask a running floe_pg_serve to stop (async-signal-safe). */
void floe_pg_server_stop(void);

#endif

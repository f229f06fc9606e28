/*
 * server_internal.h — what the files of src/server share: the server, a
 * connection's session state, and the entry points of each protocol part.
 *
 *   pgwire.c      message framing
 *   scram.c       SCRAM-SHA-256
 *   tls.c         TLS context and handshake
 *   auth.c        startup packet, SSLRequest, CancelRequest, authentication
 *   pg_types.c    type OIDs, text and binary values
 *   pg_errors.c   floe errors → ErrorResponse (SQLSTATE, position)
 *   pg_settings.c PostgreSQL settings (GUCs), ParameterStatus, SET / SHOW /
 *                 BEGIN / COMMIT handled by the server itself
 *   pg_functions.c version(), current_setting(), current_user ... answered here
 *   pg_query.c    running statements: the result sink, the simple query
 *   pg_params.c   $n parameters put into the statement text
 *   pg_extended.c the extended query protocol
 *   pg_session.c  one connection's loop
 *   listener.c    the listening socket, threads, cancel keys
 */
#ifndef FLOE_SERVER_INTERNAL_H
#define FLOE_SERVER_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/session.h"
#include "server/pgwire.h"
#include "server/scram.h"
#include "server/server.h"
#include "sql/parse.h"

typedef struct ssl_ctx_st SSL_CTX;

typedef struct pg_server {
    floe_pg_server_config cfg;
    floe_scram_verifier verifier; /* when a password is set */
    SSL_CTX *tls;                 /* when --tls-cert / --tls-key are given */
} pg_server;

/* A PostgreSQL setting the server keeps itself (floe's own options live
 * in the floe session). */
typedef struct pg_setting {
    char *name;   /* lower case */
    char *value;
    char *reset;  /* what RESET goes back to */
    bool report;  /* sent as ParameterStatus when it changes */
} pg_setting;

typedef struct pg_stmt pg_stmt;     /* pg_extended.c */
typedef struct pg_portal pg_portal; /* pg_extended.c */

typedef struct pg_session {
    pg_conn conn;
    const pg_server *server;
    int32_t id;              /* for log lines */
    int32_t pid, secret;     /* BackendKeyData */
    char peer[64];
    floe_session *floe;
    char *user, *database;
    pg_setting *settings;
    int32_t n_settings, cap_settings;
    bool over_limit;         /* --max-connections reached: refuse (53300) */
    char tx_status;          /* 'I' idle, 'T' in a (nominal) transaction block */
    bool skip_until_sync;    /* extended query: an error until the next Sync */
    pg_stmt *stmts;          /* named prepared statements ("" = unnamed) */
    pg_portal *portals;
} pg_session;

/* auth.c: read the startup packet(s) and authenticate.  *done set when the
 * connection was a CancelRequest or must be closed (reply already sent). */
floe_status pg_startup(pg_session *s, bool *done) FLOE_WARN_UNUSED;

/* tls.c */
floe_status pg_tls_context_new(const char *cert, const char *key, SSL_CTX **out) FLOE_WARN_UNUSED;
floe_status pg_tls_accept(pg_session *s) FLOE_WARN_UNUSED;

/* pg_errors.c: send an ErrorResponse for `st` (not freed).  `sql` (may be
 * NULL) is the text the statement came from and `base` the byte offset of
 * the failing statement in it, to turn "line L, column C" into a position. */
void pg_send_error(pg_session *s, floe_status st, const char *sql, int32_t base);
/* An ErrorResponse with an explicit SQLSTATE (FATAL when `fatal`). */
void pg_send_error_code(pg_session *s, const char *sqlstate, bool fatal, const char *fmt, ...) FLOE_PRINTF(4, 5);
const char *pg_sqlstate_of(floe_status st);

/* pg_settings.c */
floe_status pg_settings_init(pg_session *s) FLOE_WARN_UNUSED;
void pg_settings_free(pg_session *s);
/* Set a setting (a startup parameter or SET); reported ones send a
 * ParameterStatus when `notify`. */
floe_status pg_setting_put(pg_session *s, const char *name, const char *value, bool notify) FLOE_WARN_UNUSED;
const char *pg_setting_get(const pg_session *s, const char *name);
void pg_send_parameter_status_all(pg_session *s);
/* Statements the server answers itself: BEGIN / COMMIT / ROLLBACK,
 * SET / SHOW / RESET of PostgreSQL settings, SET TRANSACTION.  *handled
 * false: floe runs it. */
floe_status pg_intercept(pg_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink,
                         bool *handled) FLOE_WARN_UNUSED;

/* pg_functions.c: a SELECT of only session-information functions. */
floe_status pg_session_functions(pg_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink,
                                 bool *handled) FLOE_WARN_UNUSED;
/* pg_catalog_empty.c: a SELECT that reads a pg_catalog relation floe
 * never has rows in (pg_policy, pg_inherits, ...) through inner joins
 * only: no rows. */
floe_status pg_catalog_empty(pg_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink,
                             bool *handled) FLOE_WARN_UNUSED;

/* pg_query.c: a sink that writes RowDescription (unless `describe_sent`),
 * DataRow and CommandComplete to the connection. */
typedef struct pg_result_writer {
    pg_session *s;
    bool send_row_description;
    const int16_t *formats;  /* result formats as Bind gave them */
    int16_t n_formats;
    floe_schema *schema;     /* retained at begin */
    bool *binary;            /* per column */
    int64_t rows_sent;
    bool ended;
    floe_buf cell;
} pg_result_writer;

void pg_result_writer_init(pg_result_writer *w, pg_session *s, bool send_row_description, const int16_t *formats,
                           int16_t n_formats);
void pg_result_writer_free(pg_result_writer *w);
void pg_result_writer_sink(pg_result_writer *w, floe_result_sink *sink);
/* RowDescription for `schema` with the given result formats. */
floe_status pg_send_row_description(pg_session *s, const floe_schema *schema, const int16_t *formats,
                                    int16_t n_formats) FLOE_WARN_UNUSED;
/* DataRows for `batch` rows [from, to). */
floe_status pg_send_rows(pg_result_writer *w, const floe_batch *b, int64_t from, int64_t to) FLOE_WARN_UNUSED;
/* CommandComplete with PostgreSQL's tag for floe's (tag, rows). */
void pg_send_command_complete(pg_session *s, const char *tag, int64_t rows);
/* Run one parsed statement (the server's own or floe's). */
floe_status pg_run_statement(pg_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink) FLOE_WARN_UNUSED;
/* The simple query protocol: 'Q'. */
floe_status pg_simple_query(pg_session *s, const char *sql) FLOE_WARN_UNUSED;
void pg_send_ready(pg_session *s);

/* pg_params.c: the highest $n in `sql` (0 when none). */
int32_t pg_params_count(const char *sql);
/* `sql` with each $n replaced by values[n-1] as a literal (NULL → NULL),
 * cast to pg_oid_sql_name(oids[n-1]) when known. */
floe_status pg_params_substitute(const char *sql, int32_t n, const char *const *values, const int32_t *oids,
                                 floe_buf *out) FLOE_WARN_UNUSED;

/* pg_extended.c */
floe_status pg_extended_message(pg_session *s, char type) FLOE_WARN_UNUSED;
void pg_extended_free(pg_session *s);

/* listener.c: cancel keys of live sessions. */
void pg_cancel_request(int32_t pid, int32_t secret);

#endif

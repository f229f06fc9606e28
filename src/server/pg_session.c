/*
 * pg_session.c — one client connection, on its own thread: startup and
 * authentication (auth.c), then messages until Terminate or EOF.  The
 * floe session is opened after authentication, so a refused client costs
 * no catalog connection.
 */
#include <string.h>

#include "base/log.h"
#include "floe/memory.h"
#include "server/server_internal.h"

/* Registered by listener.c so a CancelRequest can find this session. */
void pg_listener_register(pg_session *s);
void pg_listener_unregister(pg_session *s);

static floe_status serve_messages(pg_session *s) {
    for (;;) {
        char type;
        FLOE_TRY(pg_read_message(&s->conn, &type));
        switch (type) {
        case 'Q': {
            if (s->skip_until_sync) s->skip_until_sync = false;
            /* the body is a NUL-terminated string; the buffer is kept NUL-terminated too */
            FLOE_TRY(pg_simple_query(s, (const char *)s->conn.in.data));
            break;
        }
        case 'X': return NULL;
        case 'P': case 'B': case 'D': case 'E': case 'S': case 'C': case 'H':
            FLOE_TRY(pg_extended_message(s, type));
            break;
        case 'F':
            pg_send_error_code(s, "0A000", false, "the function call protocol is not supported");
            pg_send_ready(s);
            FLOE_TRY(pg_flush(&s->conn));
            break;
        case 'd': case 'c': case 'f': /* COPY data outside COPY: ignored as PostgreSQL does */
            break;
        default:
            pg_send_error_code(s, "08P01", true, "invalid frontend message type %d", (int)(unsigned char)type);
            floe_status_free(pg_flush(&s->conn));
            return NULL;
        }
    }
}

void pg_session_run(pg_session *s);
void pg_session_run(pg_session *s) {
    bool done = false;
    floe_status st = pg_settings_init(s);
    if (!st) st = pg_startup(s, &done);
    if (!st && !done) {
        const floe_pg_server_config *cfg = &s->server->cfg;
        st = floe_session_open_catalog(cfg->catalog_uri, cfg->props, cfg->n_props, &s->floe);
        if (!st) st = floe_session_set_client(s->floe, s->user, s->database);
        if (st) {
            pg_send_error_code(s, "58000", true, "%s", floe_status_message(st));
            floe_status_free(pg_flush(&s->conn));
        } else {
            pg_listener_register(s);
            pg_send_parameter_status_all(s);
            pg_begin(&s->conn, 'K');
            pg_put_int32(&s->conn, s->pid);
            pg_put_int32(&s->conn, s->secret);
            pg_end(&s->conn);
            pg_send_ready(s);
            st = pg_flush(&s->conn);
            if (!st) st = serve_messages(s);
            pg_listener_unregister(s);
        }
    }
    if (st && floe_status_code(st) != FLOE_ERR_CANCELLED)
        FLOE_LOG_INFO("serve", "session %d: connection ended: %s", (int)s->id, floe_status_message(st));
    floe_status_free(st);
    FLOE_LOG_INFO("serve", "session %d: closed", (int)s->id);
    pg_extended_free(s);
    floe_session_close(s->floe);
    s->floe = NULL;
    pg_settings_free(s);
    floe_free(s->user);
    floe_free(s->database);
    s->user = s->database = NULL;
}

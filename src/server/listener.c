/*
 * listener.c — floe_pg_serve: the listening socket, a thread per
 * connection, the table of cancel keys, and shutdown.
 *
 * Every connection is a slot in one list (guarded by g_lock): its session,
 * its thread and whether the thread has finished.  The accept loop polls
 * with a short timeout so a stop request is seen promptly, reaps finished
 * slots (join, close the socket, free), and on stop shuts every socket
 * down, cancels every running statement and joins all threads.  Sockets
 * are closed only by the listener, after the join, so a shutdown() never
 * hits a reused descriptor.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"
#include "floe/memory.h"
#include "server/server_internal.h"

void pg_session_run(pg_session *s);            /* pg_session.c */
void pg_listener_register(pg_session *s);
void pg_listener_unregister(pg_session *s);

typedef struct slot {
    pg_session sess;
    pthread_t thread;
    atomic_bool done;
    bool cancellable; /* guarded by g_lock: sess.floe is open */
    struct slot *next;
} slot;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static slot *g_slots;              /* guarded by g_lock */
static volatile sig_atomic_t g_stop;

void floe_pg_server_stop(void) { g_stop = 1; }

static void on_signal(int sig) {
    (void)sig;
    g_stop = 1;
}

void pg_listener_register(pg_session *s) {
    pthread_mutex_lock(&g_lock);
    ((slot *)s)->cancellable = true;
    pthread_mutex_unlock(&g_lock);
}

void pg_listener_unregister(pg_session *s) {
    pthread_mutex_lock(&g_lock);
    ((slot *)s)->cancellable = false;
    pthread_mutex_unlock(&g_lock);
}

void pg_cancel_request(int32_t pid, int32_t secret) {
    pthread_mutex_lock(&g_lock);
    for (slot *sl = g_slots; sl; sl = sl->next) {
        if (sl->cancellable && sl->sess.pid == pid && sl->sess.secret == secret) {
            FLOE_LOG_INFO("serve", "session %d: cancel request", (int)sl->sess.id);
            floe_session_cancel(sl->sess.floe);
        }
    }
    pthread_mutex_unlock(&g_lock);
}

static void *session_thread(void *arg) {
    slot *sl = arg;
    pg_session_run(&sl->sess);
    atomic_store(&sl->done, true);
    return NULL;
}

static void free_slot(slot *sl) {
    close(sl->sess.conn.fd);
    pg_conn_free(&sl->sess.conn);
    floe_free(sl);
}

/* Join and free the finished slots (all of them when `all`). */
static void reap(bool all) {
    for (;;) {
        slot *found = NULL;
        pthread_mutex_lock(&g_lock);
        for (slot **p = &g_slots; *p; p = &(*p)->next) {
            if (all || atomic_load(&(*p)->done)) {
                found = *p;
                *p = found->next;
                break;
            }
        }
        pthread_mutex_unlock(&g_lock);
        if (!found) return;
        pthread_join(found->thread, NULL);
        free_slot(found);
    }
}

static int n_slots(void) {
    int n = 0;
    pthread_mutex_lock(&g_lock);
    for (slot *sl = g_slots; sl; sl = sl->next) n++;
    pthread_mutex_unlock(&g_lock);
    return n;
}

static floe_status open_listener(const char *host, int port, int *fd_out, int *port_out) {
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char portbuf[16];
    snprintf(portbuf, sizeof portbuf, "%d", port);
    int rc = getaddrinfo(host, portbuf, &hints, &res);
    if (rc) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "--host '%s': %s", host, gai_strerror(rc));
    int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
    if (fd < 0) {
        freeaddrinfo(res);
        return floe_error(FLOE_ERR_IO, "socket: %s", strerror(errno));
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 64) != 0) {
        int e = errno;
        freeaddrinfo(res);
        close(fd);
        return floe_error(FLOE_ERR_IO, "listening on %s port %d: %s", host, port, strerror(e));
    }
    freeaddrinfo(res);
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &len);
    *port_out = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                         : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    *fd_out = fd;
    return NULL;
}

static void peer_name(const struct sockaddr_storage *ss, char *out, size_t cap) {
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
        port = ntohs(a->sin_port);
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
        port = ntohs(a->sin6_port);
    }
    snprintf(out, cap, "%s:%d", host, port);
}

floe_status floe_pg_serve(const floe_pg_server_config *cfg) {
    static pg_server server; /* lives until every session thread is joined */
    memset(&server, 0, sizeof server);
    server.cfg = *cfg;
    if (!server.cfg.host) server.cfg.host = "127.0.0.1";
    if (cfg->password) {
        uint8_t salt[16];
        if (RAND_bytes(salt, sizeof salt) != 1) return floe_error(FLOE_ERR_INTERNAL, "no random bytes for a salt");
        FLOE_TRY(floe_scram_make_verifier(cfg->password, salt, sizeof salt, FLOE_SCRAM_ITERATIONS, &server.verifier));
    }
    if (!cfg->tls_cert != !cfg->tls_key)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "TLS needs both --tls-cert and --tls-key");
    if (cfg->tls_cert) FLOE_TRY(pg_tls_context_new(cfg->tls_cert, cfg->tls_key, &server.tls));
    int lfd = -1, port = 0;
    floe_status lst = open_listener(server.cfg.host, cfg->port, &lfd, &port);
    if (lst) {
        SSL_CTX_free(server.tls);
        return lst;
    }

    g_stop = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    FLOE_LOG_INFO("serve", "listening on %s port %d (%s%s)", server.cfg.host, port, server.tls ? "TLS, " : "",
                  !cfg->password ? "trust" : cfg->auth == FLOE_PG_AUTH_MD5 ? "md5"
                                         : cfg->auth == FLOE_PG_AUTH_PASSWORD ? "password" : "scram-sha-256");
    if (cfg->on_listening) cfg->on_listening(cfg->arg, server.cfg.host, port);

    int max_conn = cfg->max_connections > 0 ? cfg->max_connections : 100;
    int32_t next_id = 1;
    floe_status st = NULL;
    while (!g_stop) {
        struct pollfd pfd = {lfd, POLLIN, 0};
        int n = poll(&pfd, 1, 200);
        reap(false);
        if (n <= 0) continue;
        struct sockaddr_storage ss;
        socklen_t sl_len = sizeof ss;
        int fd = accept4(lfd, (struct sockaddr *)&ss, &sl_len, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN) continue;
            FLOE_LOG_WARN("serve", "accept: %s", strerror(errno));
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

        slot *sl = floe_calloc(1, sizeof *sl);
        if (!sl) {
            close(fd);
            continue;
        }
        pg_conn_init(&sl->sess.conn, fd);
        sl->sess.server = &server;
        sl->sess.id = next_id++;
        sl->sess.pid = sl->sess.id;
        uint8_t key[4];
        if (RAND_bytes(key, 4) != 1) memset(key, 0x5a, 4);
        sl->sess.secret = (int32_t)pg_rd32(key);
        sl->sess.tx_status = 'I';
        /* Over the limit: refused after its startup packet (53300). */
        sl->sess.over_limit = n_slots() >= max_conn;
        peer_name(&ss, sl->sess.peer, sizeof sl->sess.peer);
        atomic_init(&sl->done, false);
        FLOE_LOG_INFO("serve", "session %d: connection from %s", (int)sl->sess.id, sl->sess.peer);
        pthread_mutex_lock(&g_lock);
        sl->next = g_slots;
        g_slots = sl;
        pthread_mutex_unlock(&g_lock);
        if (pthread_create(&sl->thread, NULL, session_thread, sl) != 0) {
            pthread_mutex_lock(&g_lock);
            g_slots = sl->next;
            pthread_mutex_unlock(&g_lock);
            FLOE_LOG_WARN("serve", "session %d: no thread: %s", (int)sl->sess.id, strerror(errno));
            free_slot(sl);
        }
    }
    FLOE_LOG_INFO("serve", "stopping: closing every connection");
    close(lfd);
    pthread_mutex_lock(&g_lock);
    for (slot *sl = g_slots; sl; sl = sl->next) {
        shutdown(sl->sess.conn.fd, SHUT_RDWR);
        if (sl->cancellable) floe_session_cancel(sl->sess.floe);
    }
    pthread_mutex_unlock(&g_lock);
    reap(true);
    SSL_CTX_free(server.tls);
    server.tls = NULL;
    return st;
}

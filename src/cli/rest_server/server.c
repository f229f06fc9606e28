/*
 * server.c — `floe rest-server`: an Iceberg REST catalog service over a
 * floe warehouse.
 *
 *   floe rest-server --warehouse DIR --port N [--host 127.0.0.1]
 *                    [--catalog-db FILE]
 *                    [--client-id ID --client-secret S] [--token-lifetime SECONDS]
 *                    [--vend key=value ...] [--credential-lifetime SECONDS]
 *
 * Serves the catalog at <DIR>/floe_catalog.db (or --catalog-db FILE with
 * tables under DIR, which may then be s3://...).  Port 0 picks a free one.
 * Once it accepts connections it prints `listening on http://HOST:PORT`
 * on standard output; SIGINT or SIGTERM stops it after the requests in
 * flight finish.  Events go to standard error at FLOE_LOG level info
 * unless FLOE_LOG says otherwise: one line per request, every token
 * issued, every refusal.  Secrets (the client secret, vended keys) are
 * never printed.
 *
 * Threads: libmicrohttpd's internal listener with one thread per
 * connection.  SIGINT/SIGTERM are blocked before the daemon starts, so
 * its threads inherit the mask and the main thread alone receives them
 * (sigwait).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/log.h"
#include "cli/commands.h"
#include "cli/rest_server/rest_server.h"
#include "floe/memory.h"

static const char rest_usage[] =
    "usage: floe rest-server --warehouse DIR --port N [--host 127.0.0.1] [--catalog-db FILE]\n"
    "                        [--client-id ID --client-secret S] [--token-lifetime SECONDS]\n"
    "                        [--vend key=value ...] [--credential-lifetime SECONDS]";

typedef struct options {
    const char *warehouse;
    const char *catalog_db;
    const char *host;
    long port;
    const char *client_id;
    const char *client_secret;
    long token_lifetime;
    const char **vend; /* "key=value" */
    int n_vend;
    long credential_lifetime;
} options;

static floe_status usage_err(const char *fmt, const char *arg) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "rest-server: %s%s\n%s", fmt, arg ? arg : "", rest_usage);
}

static floe_status parse_long(const char *opt, const char *v, long lo, long hi, long *out) {
    char *end = NULL;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || !*v || *end || errno || n < lo || n > hi)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "rest-server: %s needs an integer in %ld..%ld, not '%s'\n%s",
                          opt, lo, hi, v ? v : "", rest_usage);
    *out = n;
    return NULL;
}

static floe_status parse_options(int argc, char **argv, options *o) {
    *o = (options){.host = "127.0.0.1", .port = -1, .token_lifetime = 3600, .credential_lifetime = 3600};
    o->vend = floe_malloc_array((size_t)argc + 1, sizeof *o->vend);
    if (!o->vend) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            puts(rest_usage);
            return floe_error(FLOE_ERR_CANCELLED, "help");
        }
        if (a[0] != '-' || a[1] != '-') return usage_err("unexpected argument ", a);
        if (i + 1 >= argc) return usage_err("missing value after ", a);
        const char *v = argv[++i];
        if (strcmp(a, "--warehouse") == 0) o->warehouse = v;
        else if (strcmp(a, "--catalog-db") == 0) o->catalog_db = v;
        else if (strcmp(a, "--host") == 0) o->host = v;
        else if (strcmp(a, "--port") == 0) FLOE_TRY(parse_long(a, v, 0, 65535, &o->port));
        else if (strcmp(a, "--client-id") == 0) o->client_id = v;
        else if (strcmp(a, "--client-secret") == 0) o->client_secret = v;
        else if (strcmp(a, "--token-lifetime") == 0) FLOE_TRY(parse_long(a, v, 1, 315360000, &o->token_lifetime));
        else if (strcmp(a, "--credential-lifetime") == 0)
            FLOE_TRY(parse_long(a, v, 1, 315360000, &o->credential_lifetime));
        else if (strcmp(a, "--vend") == 0) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v) return usage_err("--vend needs key=value, not ", v);
            o->vend[o->n_vend++] = v;
        } else {
            return usage_err("unknown option ", a);
        }
    }
    if (!o->warehouse) return usage_err("--warehouse is required", NULL);
    if (o->port < 0) return usage_err("--port is required (0 picks a free port)", NULL);
    if (!o->client_id != !o->client_secret)
        return usage_err("--client-id and --client-secret go together", NULL);
    if (o->client_id && (!*o->client_id || !*o->client_secret))
        return usage_err("--client-id and --client-secret must not be empty", NULL);
    return NULL;
}

/* Where to listen: --host resolved (numeric or a name) with --port. */
static floe_status listen_address(const options *o, struct sockaddr_storage *ss, bool *v6) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
    struct addrinfo *res = NULL;
    char port[16];
    snprintf(port, sizeof port, "%ld", o->port);
    int rc = getaddrinfo(o->host, port, &hints, &res);
    if (rc) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "rest-server: --host %s: %s", o->host, gai_strerror(rc));
    memset(ss, 0, sizeof *ss);
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *v6 = res->ai_family == AF_INET6;
    freeaddrinfo(res);
    return NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap) {
    if (!floe_log_enabled(FLOE_LOG_WARN)) return;
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n') msg[--n] = '\0';
    floe_log_write(FLOE_LOG_WARN, "rest-server", "libmicrohttpd: %s", msg);
}

/* Log what the server runs with, secrets redacted.  The lifetimes go in
 * a line of their own: their option names contain "token" and
 * "credential", which the redaction of key=value lists hides. */
static void log_config(const options *o) {
    if (!floe_log_enabled(FLOE_LOG_INFO)) return;
    const char *keys[8], *values[8];
    char port[16];
    size_t n = 0;
    snprintf(port, sizeof port, "%ld", o->port);
    keys[n] = "warehouse", values[n++] = o->warehouse;
    if (o->catalog_db) keys[n] = "catalog-db", values[n++] = o->catalog_db;
    keys[n] = "host", values[n++] = o->host;
    keys[n] = "port", values[n++] = port;
    if (o->client_id) {
        keys[n] = "client-id", values[n++] = o->client_id;
        keys[n] = "client-secret", values[n++] = o->client_secret;
    }
    floe_log_config(FLOE_LOG_INFO, "rest-server", "configuration", keys, values, n);
    if (o->client_id) floe_log_write(FLOE_LOG_INFO, "rest-server", "tokens live %ld s", o->token_lifetime);
    for (int i = 0; i < o->n_vend; i++) {
        const char *eq = strchr(o->vend[i], '=');
        char key[256];
        snprintf(key, sizeof key, "%.*s", (int)(eq - o->vend[i]), o->vend[i]);
        const char *k[1] = {key}, *v[1] = {eq + 1};
        floe_log_config(FLOE_LOG_INFO, "rest-server", "vends", k, v, 1);
    }
    if (o->n_vend)
        floe_log_write(FLOE_LOG_INFO, "rest-server", "vended keys expire %ld s after each load",
                       o->credential_lifetime);
}

static floe_status setup_server(const options *o, rs_server *srv) {
    if (o->catalog_db)
        FLOE_TRY(floe_catalog_open_sqlite_db(o->catalog_db, o->warehouse, &srv->catalog));
    else
        FLOE_TRY(floe_catalog_open_sqlite(o->warehouse, &srv->catalog));
    FLOE_TRY(rs_tokens_new(&srv->tokens));
    if (o->client_id) {
        srv->client_id = floe_strdup(o->client_id);
        srv->client_secret = floe_strdup(o->client_secret);
        if (!srv->client_id || !srv->client_secret) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    srv->token_lifetime_s = o->token_lifetime;
    srv->credential_lifetime_s = o->credential_lifetime;
    if (o->n_vend) {
        srv->vend_kv = floe_calloc(2 * (size_t)o->n_vend, sizeof *srv->vend_kv);
        if (!srv->vend_kv) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        for (int i = 0; i < o->n_vend; i++) {
            const char *eq = strchr(o->vend[i], '=');
            srv->vend_kv[2 * i] = floe_malloc((size_t)(eq - o->vend[i]) + 1);
            srv->vend_kv[2 * i + 1] = floe_strdup(eq + 1);
            srv->n_vend = i + 1;
            if (!srv->vend_kv[2 * i] || !srv->vend_kv[2 * i + 1])
                return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
            memcpy(srv->vend_kv[2 * i], o->vend[i], (size_t)(eq - o->vend[i]));
            srv->vend_kv[2 * i][eq - o->vend[i]] = '\0';
        }
    }
    return NULL;
}

static void teardown_server(rs_server *srv) {
    floe_catalog_close(srv->catalog);
    rs_tokens_free(srv->tokens);
    floe_free(srv->client_id);
    if (srv->client_secret) memset(srv->client_secret, 0, strlen(srv->client_secret));
    floe_free(srv->client_secret);
    floe_catalog_names_free(srv->vend_kv, 2 * srv->n_vend);
}

/* Run the daemon until SIGINT/SIGTERM. */
static floe_status serve(const options *o, rs_server *srv) {
    struct sockaddr_storage addr;
    bool v6 = false;
    FLOE_TRY(listen_address(o, &addr, &v6));

    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, &stop, &old);
    signal(SIGPIPE, SIG_IGN);

    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL |
                     MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0);
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, (uint16_t)o->port, NULL, NULL, rs_http_handle, srv, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, srv,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED, rs_http_completed, srv,
        MHD_OPTION_UNESCAPE_CALLBACK, rs_http_no_unescape, srv, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)120,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)256, MHD_OPTION_END);
    if (!d) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return floe_error(FLOE_ERR_IO, "rest-server: cannot listen on %s:%ld (port in use, or address not local?)",
                          o->host, o->port);
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned port = info ? info->port : (unsigned)o->port;
    bool bracket = v6 && strchr(o->host, ':');
    printf("listening on http://%s%s%s:%u\n", bracket ? "[" : "", o->host, bracket ? "]" : "", port);
    fflush(stdout);

    int sig = 0;
    while (sigwait(&stop, &sig) != 0) {
    }
    FLOE_LOG_INFO("rest-server", "%s: shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
    MHD_stop_daemon(d); /* joins the connection threads */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return NULL;
}

floe_status floe_cli_rest_server(int argc, char **argv) {
    options o;
    floe_status st = parse_options(argc, argv, &o);
    if (floe_status_code(st) == FLOE_ERR_CANCELLED) { /* --help */
        floe_status_free(st);
        floe_free(o.vend);
        return NULL;
    }
    if (!st && !getenv("FLOE_LOG")) floe_log_set_level(FLOE_LOG_INFO);
    if (!st) log_config(&o);
    rs_server srv = {0};
    if (!st) st = setup_server(&o, &srv);
    if (!st) st = serve(&o, &srv);
    teardown_server(&srv);
    floe_free(o.vend);
    return st;
}

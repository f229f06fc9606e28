/*
 * cmd_serve.c — `floe serve`: the PostgreSQL wire-protocol server
 * (src/server/server.h).
 *
 *   floe serve [--warehouse DIR | --catalog ...] [--host 127.0.0.1] [--port 5432]
 *              [--user U] [--password P | --password-file F]
 *              [--auth scram-sha-256|md5|password] [--tls-cert PEM --tls-key PEM]
 *              [--max-connections N]
 *
 * Without a password every client is trusted, which is why the server
 * binds to 127.0.0.1 unless told otherwise.  --password-file keeps the
 * password out of `ps` (its first line; a trailing newline is dropped).
 * "listening on HOST:PORT" is printed on stdout once clients can connect
 * (--port 0 picks a free port, which tests use).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/catalog_config.h"
#include "cli/commands.h"
#include "floe/memory.h"
#include "server/server.h"

static const char serve_usage[] =
    "usage: floe serve [--warehouse DIR | --catalog FILE|rest:URL ...] [--host ADDR] [--port N]\n"
    "                  [--user NAME] [--password P | --password-file FILE]\n"
    "                  [--auth scram-sha-256|md5|password] [--tls-cert PEM --tls-key PEM]\n"
    "  --host ADDR     address to listen on (default 127.0.0.1)\n"
    "  --port N        TCP port (default 5432; 0 picks a free one)\n"
    "  --user NAME     the only user name accepted (default: any)\n"
    "  --password P    require this password (else every client is trusted)\n"
    "  --password-file FILE  the password, from the first line of FILE\n"
    "  --max-connections N  sessions at once (default 100; more are refused)\n"
    "  --auth METHOD   how the password is checked (default scram-sha-256)\n"
    "  --tls-cert PEM, --tls-key PEM  offer TLS with this certificate chain and key";

static const char *opt(int argc, char **argv, int *i, const char *name) {
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n] != 0 || *i + 1 >= argc) return NULL;
    return argv[++*i];
}

static void on_listening(void *arg, const char *host, int port) {
    (void)arg;
    printf("floe serve: listening on %s:%d\n", host, port);
    fflush(stdout);
}

static floe_status read_password_file(const char *path, char **out) {
    FILE *fp = fopen(path, "r");
    if (!fp) return floe_error(FLOE_ERR_IO, "--password-file '%s': %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, fp);
    fclose(fp);
    if (n < 0) {
        free(line);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "--password-file '%s' is empty", path);
    }
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    if (n == 0) {
        free(line);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "--password-file '%s': the first line is empty", path);
    }
    *out = line;
    return NULL;
}

floe_status floe_cli_serve(int argc, char **argv) {
    floe_cli_catalog_args cat_args;
    memset(&cat_args, 0, sizeof cat_args);
    floe_pg_server_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.port = 5432;
    const char *password_file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if ((v = opt(argc, argv, &i, "--warehouse"))) cat_args.warehouse = v;
        else if ((v = opt(argc, argv, &i, "--catalog-credential"))) cat_args.credential = v;
        else if ((v = opt(argc, argv, &i, "--catalog-token"))) cat_args.token = v;
        else if ((v = opt(argc, argv, &i, "--catalog-config"))) cat_args.config_file = v;
        else if ((v = opt(argc, argv, &i, "--catalog"))) cat_args.catalog = v;
        else if ((v = opt(argc, argv, &i, "--host"))) cfg.host = v;
        else if ((v = opt(argc, argv, &i, "--port"))) {
            char *end;
            long p = strtol(v, &end, 10);
            if (!*v || *end || p < 0 || p > 65535)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "--port '%s' is not a port number\n%s", v, serve_usage);
            cfg.port = (int)p;
        } else if ((v = opt(argc, argv, &i, "--max-connections"))) {
            char *end;
            long m = strtol(v, &end, 10);
            if (!*v || *end || m < 1 || m > 100000)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "--max-connections '%s': expected 1 to 100000", v);
            cfg.max_connections = (int)m;
        } else if ((v = opt(argc, argv, &i, "--user"))) cfg.user = v;
        else if ((v = opt(argc, argv, &i, "--tls-cert"))) cfg.tls_cert = v;
        else if ((v = opt(argc, argv, &i, "--tls-key"))) cfg.tls_key = v;
        else if ((v = opt(argc, argv, &i, "--password-file"))) password_file = v;
        else if ((v = opt(argc, argv, &i, "--password"))) cfg.password = v;
        else if ((v = opt(argc, argv, &i, "--auth"))) {
            if (!strcmp(v, "scram-sha-256") || !strcmp(v, "scram")) cfg.auth = FLOE_PG_AUTH_SCRAM;
            else if (!strcmp(v, "md5")) cfg.auth = FLOE_PG_AUTH_MD5;
            else if (!strcmp(v, "password")) cfg.auth = FLOE_PG_AUTH_PASSWORD;
            else return floe_error(FLOE_ERR_INVALID_ARGUMENT, "--auth '%s': expected scram-sha-256, md5 or password", v);
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts(serve_usage);
            return NULL;
        } else {
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unknown or incomplete option '%s'\n%s", argv[i], serve_usage);
        }
    }
    if (password_file && cfg.password)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "give --password or --password-file, not both");
    char *file_password = NULL;
    if (password_file) {
        FLOE_TRY(read_password_file(password_file, &file_password));
        cfg.password = file_password;
    }
    floe_cli_catalog cat;
    floe_status st = floe_cli_catalog_resolve(&cat_args, &cat);
    if (!st) {
        cfg.catalog_uri = cat.uri;
        cfg.props = cat.props;
        cfg.n_props = cat.n_props;
        cfg.on_listening = on_listening;
        st = floe_pg_serve(&cfg);
        floe_cli_catalog_free(&cat);
    }
    if (file_password) {
        memset(file_password, 0, strlen(file_password));
        free(file_password);
    }
    return st;
}

/*
 * catalog_config.c — from the SQL front's catalog flags to a catalog URI
 * and properties (see catalog_config.h).
 *
 *   --warehouse DIR                 the SQLite catalog in DIR (as before)
 *   --catalog FILE [--warehouse W]  the SQLite database FILE, tables under W
 *   --catalog rest:URL | URL        an Iceberg REST catalog
 *   --catalog-credential ID:SECRET  OAuth2 client credentials (REST)
 *   --catalog-token TOKEN           a static bearer token (REST)
 *   --catalog-config FILE           properties, JSON or key=value lines
 *
 * Secrets given on the command line are visible to other users of the
 * machine (ps); the config file and the environment variables are the
 * quieter ways, and the help text says so.
 */
#include "cli/catalog_config.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/memory.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "catalog options: out of memory"); }

void floe_cli_catalog_free(floe_cli_catalog *c) {
    if (!c) return;
    for (size_t i = 0; i < c->n_props; i++) {
        char *v = (char *)c->props[i].value;
        if (v) memset(v, 0, strlen(v)); /* may be a secret */
        floe_free((char *)c->props[i].key);
        floe_free(v);
    }
    floe_free(c->props);
    floe_free(c->uri);
    memset(c, 0, sizeof *c);
}

/* Set key (replacing an earlier value). */
static floe_status set_prop(floe_cli_catalog *c, const char *key, const char *value) {
    char *v = floe_strdup(value);
    if (!v) return oom();
    for (size_t i = 0; i < c->n_props; i++)
        if (strcmp(c->props[i].key, key) == 0) {
            floe_free((char *)c->props[i].value);
            c->props[i].value = v;
            return NULL;
        }
    if (c->n_props == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 8;
        floe_property *np = floe_realloc(c->props, nc * sizeof *np);
        if (!np) {
            floe_free(v);
            return oom();
        }
        c->props = np;
        c->cap = nc;
    }
    char *k = floe_strdup(key);
    if (!k) {
        floe_free(v);
        return oom();
    }
    c->props[c->n_props++] = (floe_property){k, v};
    return NULL;
}

static const char *get_prop(const floe_cli_catalog *c, const char *key) {
    for (size_t i = 0; i < c->n_props; i++)
        if (strcmp(c->props[i].key, key) == 0) return c->props[i].value;
    return NULL;
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) s[--n] = '\0';
    return s;
}

/* A config file: a JSON object, or key=value lines. */
static floe_status load_file(floe_cli_catalog *c, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return floe_error(FLOE_ERR_IO, "catalog config '%s': %s", path, strerror(errno));
    floe_buf text = FLOE_BUF_INIT;
    char chunk[4096];
    size_t n;
    floe_status st = NULL;
    while (!st && (n = fread(chunk, 1, sizeof chunk, f)) > 0) st = floe_buf_append(&text, chunk, n);
    fclose(f);
    if (st) {
        floe_buf_free(&text);
        return st;
    }
    const char *t = floe_buf_cstr(&text);
    size_t lead = strspn(t, " \t\r\n");
    if (t[lead] == '{') {
        json_error_t err;
        json_t *root = json_loads(t, 0, &err);
        if (!json_is_object(root))
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "catalog config '%s': not a JSON object (line %d: %s)", path,
                            err.line, err.text);
        const char *k;
        json_t *v;
        json_object_foreach(root, k, v) {
            if (st) break;
            if (json_is_string(v)) st = set_prop(c, k, json_string_value(v));
            else if (json_is_boolean(v)) st = set_prop(c, k, json_is_true(v) ? "true" : "false");
            else if (json_is_integer(v)) {
                char num[32];
                snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
                st = set_prop(c, k, num);
            } else
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "catalog config '%s': property '%s' must be a string",
                                path, k);
        }
        json_decref(root);
    } else {
        char *p = (char *)text.data;
        int line = 0;
        while (!st && p && *p) {
            char *nl = strchr(p, '\n');
            if (nl) *nl = '\0';
            line++;
            char *s = trim(p);
            if (*s && *s != '#') {
                char *eq = strchr(s, '=');
                if (!eq)
                    st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "catalog config '%s', line %d: expected key=value",
                                    path, line);
                else {
                    *eq = '\0';
                    st = set_prop(c, trim(s), trim(eq + 1));
                }
            }
            p = nl ? nl + 1 : NULL;
        }
    }
    if (text.data) memset(text.data, 0, text.len); /* it may hold a secret */
    floe_buf_free(&text);
    return st;
}

static bool is_http(const char *s) { return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0; }

static floe_status set_uri(floe_cli_catalog *c, const char *prefix, const char *rest) {
    floe_free(c->uri);
    size_t n = strlen(prefix) + strlen(rest) + 1;
    c->uri = floe_malloc(n);
    if (!c->uri) return oom();
    snprintf(c->uri, n, "%s%s", prefix, rest);
    return NULL;
}

floe_status floe_cli_catalog_resolve(const floe_cli_catalog_args *a, floe_cli_catalog *out) {
    memset(out, 0, sizeof *out);
    floe_status st = NULL;
    const char *uri = NULL;
    if (a->config_file) {
        st = load_file(out, a->config_file);
        uri = get_prop(out, "uri");
    }
    if (!st && a->catalog) uri = a->catalog;
    bool rest = uri && (strncmp(uri, "rest:", 5) == 0 || is_http(uri));
    if (!st && !rest && (a->credential || a->token))
        st = floe_error(FLOE_ERR_INVALID_ARGUMENT,
                        "--catalog-credential and --catalog-token are for REST catalogs (--catalog rest:URL)");
    if (!st && !rest && a->config_file && !uri)
        st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "catalog config '%s' names no catalog (set uri=...)",
                        a->config_file);
    if (!st && rest) {
        st = is_http(uri) ? set_uri(out, "rest:", uri) : set_uri(out, "", uri);
        if (!st && a->credential) st = set_prop(out, "credential", a->credential);
        if (!st && a->token) st = set_prop(out, "token", a->token);
        const char *env;
        if (!st && !get_prop(out, "credential") && !get_prop(out, "token") &&
            (env = getenv("FLOE_CATALOG_CREDENTIAL")) && *env)
            st = set_prop(out, "credential", env);
        if (!st && !get_prop(out, "credential") && !get_prop(out, "token") && (env = getenv("FLOE_CATALOG_TOKEN")) &&
            *env)
            st = set_prop(out, "token", env);
        if (!st && a->warehouse) st = set_prop(out, "warehouse", a->warehouse);
    } else if (!st) {
        /* The SQLite catalog, as before: a warehouse directory, or a
         * database file with tables under the warehouse. */
        const char *w = a->warehouse ? a->warehouse : getenv("FLOE_WAREHOUSE");
        if (!w || !*w) w = "./warehouse";
        if (uri && strncmp(uri, "sqlite:", 7) == 0) {
            st = set_uri(out, "", uri);
        } else if (uri) {
            size_t n = strlen(uri) + strlen(w) + 32;
            out->uri = floe_malloc(n);
            if (!out->uri) st = oom();
            else snprintf(out->uri, n, "sqlite:%s?warehouse=%s", uri, w);
        } else {
            st = set_uri(out, "", w);
        }
    }
    if (st) floe_cli_catalog_free(out);
    return st;
}

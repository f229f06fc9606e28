/*
 * pg_settings.c — the PostgreSQL settings a client expects (server_version,
 * DateStyle, TimeZone, ...), kept per connection, and the statements the
 * server answers itself.
 *
 * floe's own options (target_partitions, batch_size, ...) stay in the floe
 * session: a SET or SHOW of a name the floe session knows goes to floe.
 * Every other name is a PostgreSQL setting stored here: drivers set
 * DateStyle, extra_float_digits, application_name and the like on connect
 * and must not fail.  Values are remembered and shown back; output stays
 * in the one format the server writes (DateStyle ISO, timestamptz in UTC
 * with an explicit "+00", so a client in another time zone still reads
 * the right instant).
 *
 * Transactions: every statement autocommits, so BEGIN / COMMIT / ROLLBACK
 * only move the transaction status shown in ReadyForQuery (clients such
 * as psycopg2 open a block before their first statement).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/memory.h"
#include "server/server_internal.h"
#include "sql/pgnode.h"
#include "sql/session_internal.h"

static const struct {
    const char *name, *value;
    bool report;
} k_defaults[] = {
    {"server_version", "15.0 (floe)", true},
    {"server_version_num", "150000", false},
    {"server_encoding", "UTF8", true},
    {"client_encoding", "UTF8", true},
    {"DateStyle", "ISO, MDY", true},
    {"IntervalStyle", "postgres", true},
    {"TimeZone", "UTC", true},
    {"integer_datetimes", "on", true},
    {"standard_conforming_strings", "on", true},
    {"application_name", "", true},
    {"is_superuser", "on", true},
    {"session_authorization", "", true},
    {"search_path", "\"$user\", public", false},
    {"extra_float_digits", "1", false},
    {"transaction_isolation", "read committed", false},
    {"default_transaction_isolation", "read committed", false},
    {"transaction_read_only", "off", false},
    {"max_identifier_length", "63", false},
    {"statement_timeout", "0", false},
    {"client_min_messages", "notice", false},
    {"lc_messages", "C", false},
};
#define N_DEFAULTS ((int32_t)(sizeof k_defaults / sizeof k_defaults[0]))

static pg_setting *find(const pg_session *s, const char *name) {
    for (int32_t i = 0; i < s->n_settings; i++)
        if (strcasecmp(s->settings[i].name, name) == 0) return &s->settings[i];
    return NULL;
}

const char *pg_setting_get(const pg_session *s, const char *name) {
    const pg_setting *g = find(s, name);
    return g ? g->value : NULL;
}

static void send_status(pg_session *s, const pg_setting *g) {
    pg_begin(&s->conn, 'S');
    pg_put_cstr(&s->conn, g->name);
    pg_put_cstr(&s->conn, g->value);
    pg_end(&s->conn);
}

static floe_status add(pg_session *s, const char *name, const char *value, bool report) {
    if (s->n_settings == s->cap_settings) {
        int32_t cap = s->cap_settings ? s->cap_settings * 2 : 32;
        pg_setting *n = floe_realloc(s->settings, (size_t)cap * sizeof *n);
        if (!n) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "settings: out of memory");
        s->settings = n;
        s->cap_settings = cap;
    }
    pg_setting *g = &s->settings[s->n_settings];
    g->name = floe_strdup(name);
    g->value = floe_strdup(value);
    g->reset = floe_strdup(value);
    g->report = report;
    if (!g->name || !g->value || !g->reset) {
        floe_free(g->name);
        floe_free(g->value);
        floe_free(g->reset);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "settings: out of memory");
    }
    s->n_settings++;
    return NULL;
}

floe_status pg_settings_init(pg_session *s) {
    for (int32_t i = 0; i < N_DEFAULTS; i++)
        FLOE_TRY(add(s, k_defaults[i].name, k_defaults[i].value, k_defaults[i].report));
    return NULL;
}

void pg_settings_free(pg_session *s) {
    for (int32_t i = 0; i < s->n_settings; i++) {
        floe_free(s->settings[i].name);
        floe_free(s->settings[i].value);
        floe_free(s->settings[i].reset);
    }
    floe_free(s->settings);
    s->settings = NULL;
    s->n_settings = s->cap_settings = 0;
}

/* Values the server cannot honour are refused rather than silently
 * ignored: the client would misread what it gets. */
static floe_status check_value(const char *name, const char *value) {
    if (strcasecmp(name, "client_encoding") == 0 &&
        strcasecmp(value, "UTF8") != 0 && strcasecmp(value, "UTF-8") != 0 && strcasecmp(value, "unicode") != 0 &&
        strcasecmp(value, "SQL_ASCII") != 0)
        return floe_error(FLOE_ERR_UNSUPPORTED, "client_encoding %s is not supported: floe serve speaks UTF8 only",
                          value);
    if (strcasecmp(name, "DateStyle") == 0 && strncasecmp(value, "ISO", 3) != 0)
        return floe_error(FLOE_ERR_UNSUPPORTED, "DateStyle %s is not supported: floe serve writes ISO dates", value);
    if (strcasecmp(name, "IntervalStyle") == 0 && strcasecmp(value, "postgres") != 0)
        return floe_error(FLOE_ERR_UNSUPPORTED, "IntervalStyle %s is not supported (only postgres)", value);
    if (strcasecmp(name, "standard_conforming_strings") == 0 && strcasecmp(value, "on") != 0)
        return floe_error(FLOE_ERR_UNSUPPORTED, "standard_conforming_strings must stay on");
    return NULL;
}

floe_status pg_setting_put(pg_session *s, const char *name, const char *value, bool notify) {
    FLOE_TRY(check_value(name, value));
    /* The encodings that mean UTF-8 here are all reported as UTF8. */
    if (strcasecmp(name, "client_encoding") == 0) value = "UTF8";
    pg_setting *g = find(s, name);
    if (!g) {
        FLOE_TRY(add(s, name, value, false));
        return NULL;
    }
    char *v = floe_strdup(value);
    if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "settings: out of memory");
    floe_free(g->value);
    g->value = v;
    if (notify && g->report) send_status(s, g);
    return NULL;
}

void pg_send_parameter_status_all(pg_session *s) {
    for (int32_t i = 0; i < s->n_settings; i++)
        if (s->settings[i].report) send_status(s, &s->settings[i]);
}

/* A SET's value: its constants joined by ", " (SET DateStyle = ISO, MDY). */
static floe_status set_value(const json_t *args, floe_buf *out) {
    for (int32_t i = 0; i < floe_pg_list_len(args); i++) {
        floe_pg_const c = floe_pg_const_of(floe_pg_list_at(args, i));
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        if (c.kind == FLOE_PG_CONST_INT) FLOE_TRY(floe_buf_printf(out, "%lld", (long long)c.ival));
        else if (c.kind == FLOE_PG_CONST_STRING || c.kind == FLOE_PG_CONST_FLOAT) FLOE_TRY(floe_buf_append_str(out, c.text));
        else if (c.kind == FLOE_PG_CONST_BOOL) FLOE_TRY(floe_buf_append_str(out, c.ival ? "on" : "off"));
        else return floe_error(FLOE_ERR_UNSUPPORTED, "SET: only constant values are supported");
    }
    return NULL;
}

static bool floe_knows(pg_session *s, const char *name) {
    char *v = NULL;
    floe_status st = floe_session_show(s->floe, name, &v);
    floe_free(v);
    bool ok = st == NULL;
    floe_status_free(st);
    return ok;
}

static floe_status end_tag(const floe_result_sink *sink, const char *tag) {
    return sink && sink->end ? sink->end(sink->arg, tag, 0) : NULL;
}

static floe_status transaction(pg_session *s, const json_t *body, const floe_result_sink *sink) {
    const char *kind = floe_pg_get_str(body, "kind");
    if (!kind) kind = "";
    if (!strcmp(kind, "TRANS_STMT_BEGIN") || !strcmp(kind, "TRANS_STMT_START")) {
        s->tx_status = 'T';
        return end_tag(sink, kind[11] == 'B' ? "BEGIN" : "START TRANSACTION");
    }
    if (!strcmp(kind, "TRANS_STMT_COMMIT")) {
        s->tx_status = 'I';
        return end_tag(sink, "COMMIT");
    }
    if (!strcmp(kind, "TRANS_STMT_ROLLBACK")) {
        s->tx_status = 'I';
        return end_tag(sink, "ROLLBACK");
    }
    if (!strcmp(kind, "TRANS_STMT_SAVEPOINT")) return end_tag(sink, "SAVEPOINT");
    if (!strcmp(kind, "TRANS_STMT_RELEASE")) return end_tag(sink, "RELEASE");
    if (!strcmp(kind, "TRANS_STMT_ROLLBACK_TO")) return end_tag(sink, "ROLLBACK");
    return floe_error(FLOE_ERR_UNSUPPORTED, "this transaction statement is not supported (statements autocommit)");
}

floe_status pg_intercept(pg_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink, bool *handled) {
    *handled = false;
    const json_t *body = floe_pg_node_body(stmt->node);
    if (!strcmp(stmt->kind, "TransactionStmt")) {
        *handled = true;
        return transaction(s, body, sink);
    }
    if (!strcmp(stmt->kind, "VariableSetStmt")) {
        const char *kind = floe_pg_get_str(body, "kind");
        const char *name = floe_pg_get_str(body, "name");
        if (!kind) return NULL;
        if (!strcmp(kind, "VAR_SET_MULTI")) { /* SET TRANSACTION ..., SET SESSION CHARACTERISTICS */
            *handled = true;
            return end_tag(sink, "SET");
        }
        if (!strcmp(kind, "VAR_RESET_ALL")) {
            /* floe resets its own options and sends the tag. */
            for (int32_t i = 0; i < s->n_settings; i++) FLOE_TRY(pg_setting_put(s, s->settings[i].name, s->settings[i].reset, true));
            return NULL;
        }
        if (!name || floe_knows(s, name)) return NULL;
        *handled = true;
        pg_setting *g = find(s, name);
        if (!strcmp(kind, "VAR_SET_DEFAULT") || !strcmp(kind, "VAR_RESET")) {
            if (g) FLOE_TRY(pg_setting_put(s, g->name, g->reset, true));
            return end_tag(sink, !strcmp(kind, "VAR_RESET") ? "RESET" : "SET");
        }
        if (strcmp(kind, "VAR_SET_VALUE") != 0)
            return floe_error(FLOE_ERR_UNSUPPORTED, "this form of SET is not supported");
        floe_buf v = FLOE_BUF_INIT;
        floe_status st = set_value(floe_pg_get(body, "args"), &v);
        /* The parser folds unquoted words to lower case: DateStyle reads
         * back as PostgreSQL shows it ("ISO, MDY"). */
        if (!st && !strcasecmp(name, "DateStyle"))
            for (size_t i = 0; i < v.len; i++) v.data[i] = (uint8_t)toupper(v.data[i]);
        if (!st) st = pg_setting_put(s, g ? g->name : name, floe_buf_cstr(&v), true);
        floe_buf_free(&v);
        return st ? st : end_tag(sink, "SET");
    }
    if (!strcmp(stmt->kind, "SelectStmt")) {
        FLOE_TRY(pg_session_functions(s, stmt, sink, handled));
        if (!*handled) FLOE_TRY(pg_catalog_empty(s, stmt, sink, handled));
        return NULL;
    }
    if (!strcmp(stmt->kind, "VariableShowStmt") && !stmt->describe) {
        const char *name = floe_pg_get_str(body, "name");
        if (!name || !strcmp(name, "all") || floe_knows(s, name)) return NULL;
        const pg_setting *g = find(s, name);
        if (!g) return NULL; /* SHOW TABLES and friends, or floe's error */
        *handled = true;
        const char *cols[] = {g->name};
        const char *cells[] = {g->value};
        return floe_session_emit_strings(sink, cols, 1, cells, 1, "SHOW");
    }
    return NULL;
}

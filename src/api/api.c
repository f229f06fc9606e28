/*
 * api.c — the embedding API of include/floe/floe.h over SQL sessions
 * (include/floe/session.h).
 *
 * A database is the catalog URI and properties (copied) plus a reference
 * count: each connection holds one, so closing the database while
 * connections are open is safe.  A connection is one session.  A query
 * runs to completion into a result (the last statement's schema and its
 * batches, retained as the session hands them out), which is then
 * exported as an Arrow C stream that gives out those same batches.
 * A prepared statement is its text and the bound values as text with an
 * SQL type name, put into the text at floe_execute by the SQL layer's $n
 * substitution (src/sql/params.c, shared with `floe serve`).
 */
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>

#include "base/buffer.h"
#include "floe/arrow_c.h"
#include "floe/floe.h"
#include "floe/memory.h"
#include "floe/session.h"
#include "floe/version.h"
#include "sql/params.h"
#include "sql/parse.h"

struct floe_database {
    _Atomic int32_t refs; /* the handle + one per connection */
    char *uri;
    floe_property *props;
    size_t n_props;
};

struct floe_connection {
    floe_database *db;
    floe_session *session;
    char *tag; /* of the last statement that succeeded ("" before any) */
    int64_t rows;
};

struct floe_prepared {
    floe_connection *conn;
    char *sql;
    int32_t n_params;
    char **values;      /* n_params: the text of each value, NULL = SQL NULL */
    const char **types; /* n_params: a static SQL type name, or NULL */
    bool *bound;        /* n_params */
};

#define OOM(what) floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory in %s", what)

const char *floe_library_version(void) {
    return FLOE_VERSION_STRING;
}

/* ---- databases and connections ------------------------------------------ */

static void database_unref(floe_database *db) {
    if (!db || atomic_fetch_sub(&db->refs, 1) != 1) return;
    for (size_t i = 0; i < db->n_props; i++) {
        floe_free((char *)db->props[i].key);
        floe_free((char *)db->props[i].value);
    }
    floe_free(db->props);
    floe_free(db->uri);
    floe_free(db);
}

floe_status floe_database_open(const char *uri, const floe_property *props, size_t n_props,
                               floe_database **out) {
    if (!out) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_database_open: out is NULL");
    *out = NULL;
    if (!uri || !*uri) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_database_open: no catalog URI or warehouse");
    if (n_props && !props) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_database_open: props is NULL");
    floe_database *db = floe_calloc(1, sizeof *db);
    if (!db) return OOM("floe_database_open");
    atomic_init(&db->refs, 1);
    db->uri = floe_strdup(uri);
    db->props = n_props ? floe_calloc(n_props, sizeof *db->props) : NULL;
    bool oom = !db->uri || (n_props && !db->props);
    for (size_t i = 0; i < n_props && !oom; i++) {
        if (!props[i].key || !props[i].value) {
            database_unref(db);
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_database_open: property %zu has no %s", i,
                              props[i].key ? "value" : "key");
        }
        db->props[i].key = floe_strdup(props[i].key);
        db->props[i].value = floe_strdup(props[i].value);
        db->n_props = i + 1;
        oom = !db->props[i].key || !db->props[i].value;
    }
    if (oom) {
        database_unref(db);
        return OOM("floe_database_open");
    }
    /* Open the catalog once, so that a bad URI or a refused credential is
     * this call's error. */
    floe_session *probe = NULL;
    floe_status st = floe_session_open_catalog(db->uri, db->props, db->n_props, &probe);
    floe_session_close(probe);
    if (st) {
        database_unref(db);
        return st;
    }
    *out = db;
    return NULL;
}

void floe_database_close(floe_database *db) {
    database_unref(db);
}

floe_status floe_connect(floe_database *db, floe_connection **out) {
    if (!out) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_connect: out is NULL");
    *out = NULL;
    if (!db) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_connect: database is NULL");
    floe_connection *c = floe_calloc(1, sizeof *c);
    if (!c) return OOM("floe_connect");
    c->tag = floe_strdup("");
    if (!c->tag) {
        floe_free(c);
        return OOM("floe_connect");
    }
    floe_status st = floe_session_open_catalog(db->uri, db->props, db->n_props, &c->session);
    if (st) {
        floe_free(c->tag);
        floe_free(c);
        return st;
    }
    atomic_fetch_add(&db->refs, 1);
    c->db = db;
    *out = c;
    return NULL;
}

void floe_disconnect(floe_connection *conn) {
    if (!conn) return;
    floe_session_close(conn->session);
    database_unref(conn->db);
    floe_free(conn->tag);
    floe_free(conn);
}

void floe_interrupt(floe_connection *conn) {
    if (conn) floe_session_cancel(conn->session);
}

const char *floe_last_tag(const floe_connection *conn) {
    return conn ? conn->tag : "";
}

int64_t floe_rows_changed(const floe_connection *conn) {
    return conn ? conn->rows : 0;
}

/* ---- results ------------------------------------------------------------ */

/* The last statement's result while it runs, then the stream's source. */
typedef struct result {
    floe_schema *schema; /* retained; NULL until a statement returns rows */
    floe_batch **batches;
    int64_t n, cap, next;
    bool began; /* the running statement returns rows */
    char *tag;
    int64_t rows;
} result;

static void result_drop_batches(result *r) {
    for (int64_t i = r->next; i < r->n; i++) floe_batch_release(r->batches[i]);
    r->n = r->next = 0;
}

static void result_free(result *r) {
    result_drop_batches(r);
    floe_free(r->batches);
    floe_type_release(r->schema);
    floe_free(r->tag);
    floe_free(r);
}

/* A statement that returns rows starts over: only the last one is kept. */
static floe_status sink_begin(void *arg, const floe_schema *schema) {
    result *r = arg;
    result_drop_batches(r);
    floe_type_release(r->schema);
    r->schema = floe_type_retain((floe_schema *)schema);
    r->began = true;
    return NULL;
}

static floe_status sink_batch(void *arg, const floe_batch *b) {
    result *r = arg;
    if (r->n == r->cap) {
        int64_t cap = r->cap ? r->cap * 2 : 16;
        floe_batch **nb = floe_realloc(r->batches, (size_t)cap * sizeof *nb);
        if (!nb) return OOM("a query result");
        r->batches = nb;
        r->cap = cap;
    }
    r->batches[r->n++] = floe_batch_retain((floe_batch *)b);
    return NULL;
}

static floe_status sink_end(void *arg, const char *tag, int64_t rows) {
    result *r = arg;
    char *t = floe_strdup(tag ? tag : "");
    if (!t) return OOM("a query result");
    floe_free(r->tag);
    r->tag = t;
    r->rows = rows;
    /* A statement without rows after one with rows: its result (no
     * columns) is the last one. */
    if (!r->began) {
        result_drop_batches(r);
        floe_type_release(r->schema);
        r->schema = NULL;
    }
    r->began = false;
    return NULL;
}

static floe_status source_next(void *ctx, floe_batch **out) {
    result *r = ctx;
    *out = r->next < r->n ? r->batches[r->next++] : NULL; /* the reference moves */
    return NULL;
}

static void source_close(void *ctx) {
    result_free(ctx);
}

static floe_status run(floe_connection *conn, const char *sql, struct ArrowArrayStream *out) {
    if (out) out->release = NULL;
    if (!conn) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_query: connection is NULL");
    if (!sql) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_query: sql is NULL");
    result *r = floe_calloc(1, sizeof *r);
    if (!r) return OOM("floe_query");
    floe_result_sink sink = {0};
    sink.arg = r;
    sink.begin = sink_begin;
    sink.batch = out ? sink_batch : NULL;
    sink.end = sink_end;
    floe_status st = floe_session_execute(conn->session, sql, &sink);
    if (!st && r->tag) {
        floe_free(conn->tag);
        conn->tag = r->tag;
        conn->rows = r->rows;
        r->tag = NULL;
    }
    if (st || !out) {
        result_free(r);
        return st;
    }
    floe_schema *schema = r->schema;
    if (!schema) {
        st = floe_type_struct(NULL, 0, &schema); /* no rows: no columns */
        if (st) {
            result_free(r);
            return st;
        }
    } else {
        floe_type_retain(schema);
    }
    floe_batch_source src = {source_next, source_close, r};
    st = floe_arrow_export_stream(schema, src, out);
    floe_type_release(schema);
    /* On failure the export has not taken the source. */
    if (st && !out->release) result_free(r);
    return st;
}

floe_status floe_query(floe_connection *conn, const char *sql, struct ArrowArrayStream *out) {
    return run(conn, sql, out);
}

/* ---- prepared statements ------------------------------------------------- */

floe_status floe_prepare(floe_connection *conn, const char *sql, floe_prepared **out) {
    if (!out) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_prepare: out is NULL");
    *out = NULL;
    if (!conn) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_prepare: connection is NULL");
    if (!sql) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_prepare: sql is NULL");
    /* Parsed now ($n is a parameter to PostgreSQL's grammar), so a syntax
     * error is this call's; names are bound at each execution. */
    floe_sql_script *script = NULL;
    FLOE_TRY(floe_sql_parse(sql, &script));
    int32_t n_stmts = script->n_stmts;
    floe_sql_script_free(script);
    if (n_stmts != 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a prepared statement is one statement, not %d", (int)n_stmts);
    floe_prepared *p = floe_calloc(1, sizeof *p);
    if (!p) return OOM("floe_prepare");
    p->conn = conn;
    p->sql = floe_strdup(sql);
    p->n_params = floe_sql_params_count(sql);
    size_t n = (size_t)(p->n_params ? p->n_params : 1);
    p->values = floe_calloc(n, sizeof *p->values);
    p->types = floe_calloc(n, sizeof *p->types);
    p->bound = floe_calloc(n, sizeof *p->bound);
    if (!p->sql || !p->values || !p->types || !p->bound) {
        floe_prepared_free(p);
        return OOM("floe_prepare");
    }
    *out = p;
    return NULL;
}

int32_t floe_prepared_param_count(const floe_prepared *p) {
    return p ? p->n_params : 0;
}

/* Bind parameter `index` to `text` (copied; NULL = SQL NULL) as `type`. */
static floe_status bind(floe_prepared *p, int32_t index, const char *text, const char *type) {
    if (!p) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_bind: prepared statement is NULL");
    if (index < 1 || index > p->n_params)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "there is no parameter $%d (the statement has %d)", (int)index,
                          (int)p->n_params);
    char *copy = NULL;
    if (text && !(copy = floe_strdup(text))) return OOM("floe_bind");
    floe_free(p->values[index - 1]);
    p->values[index - 1] = copy;
    p->types[index - 1] = type;
    p->bound[index - 1] = true;
    return NULL;
}

floe_status floe_bind_null(floe_prepared *p, int32_t index) {
    return bind(p, index, NULL, NULL);
}

floe_status floe_bind_bool(floe_prepared *p, int32_t index, bool value) {
    return bind(p, index, value ? "true" : "false", "boolean");
}

floe_status floe_bind_int64(floe_prepared *p, int32_t index, int64_t value) {
    char text[32];
    snprintf(text, sizeof text, "%" PRId64, value);
    return bind(p, index, text, "bigint");
}

floe_status floe_bind_double(floe_prepared *p, int32_t index, double value) {
    char text[40];
    if (isnan(value)) snprintf(text, sizeof text, "NaN");
    else if (isinf(value)) snprintf(text, sizeof text, "%sInfinity", value < 0 ? "-" : "");
    else snprintf(text, sizeof text, "%.17g", value);
    return bind(p, index, text, "double precision");
}

floe_status floe_bind_text(floe_prepared *p, int32_t index, const char *value) {
    if (!value) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_bind_text: $%d: value is NULL (use floe_bind_null)",
                                  (int)index);
    return bind(p, index, value, NULL);
}

void floe_clear_bindings(floe_prepared *p) {
    if (!p) return;
    for (int32_t i = 0; i < p->n_params; i++) {
        floe_free(p->values[i]);
        p->values[i] = NULL;
        p->types[i] = NULL;
        p->bound[i] = false;
    }
}

floe_status floe_execute(floe_prepared *p, struct ArrowArrayStream *out) {
    if (out) out->release = NULL;
    if (!p) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_execute: prepared statement is NULL");
    for (int32_t i = 0; i < p->n_params; i++)
        if (!p->bound[i]) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "parameter $%d is not bound", (int)i + 1);
    floe_buf text = FLOE_BUF_INIT;
    floe_status st = floe_sql_params_substitute(p->sql, p->n_params, (const char *const *)p->values,
                                                (const char *const *)p->types, &text);
    if (!st) st = floe_buf_append_byte(&text, 0);
    if (!st) st = run(p->conn, (const char *)text.data, out);
    floe_buf_free(&text);
    return st;
}

void floe_prepared_free(floe_prepared *p) {
    if (!p) return;
    floe_clear_bindings(p);
    floe_free(p->values);
    floe_free(p->types);
    floe_free(p->bound);
    floe_free(p->sql);
    floe_free(p);
}

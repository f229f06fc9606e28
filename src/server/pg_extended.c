/*
 * pg_extended.c — the extended query protocol: Parse, Bind, Describe,
 * Execute, Close, Flush, Sync.
 *
 * A prepared statement keeps its text with $n in it and the parameter
 * types Parse gave (0: unknown).  Bind turns the values into text
 * (binary ones through pg_types.c) and the portal's statement is the text
 * with them put in (pg_params.c).  A portal runs once, the first time it
 * is described or executed.  A portal described first, or executed with a
 * row limit, runs into memory (its schema, batches and tag): Describe must
 * answer with the row shape before Execute, and Execute may ask for the
 * rows in pieces (max_rows, PortalSuspended) — holding such a result is
 * this increment's limit for very large ones.  A portal executed whole
 * without a Describe streams its rows.
 *
 * After an error every message is skipped until Sync, which answers
 * ReadyForQuery.  Portals end at Sync (every statement autocommits, so
 * Sync ends the implicit transaction that holds them).
 */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "floe/memory.h"
#include "server/pg_types.h"
#include "server/server_internal.h"

struct pg_stmt {
    char *name;
    char *sql;
    int32_t n_params;
    int32_t *oids;   /* n_params entries, 0 = unknown */
    pg_stmt *next;
};

struct pg_portal {
    char *name;
    char *sql;       /* parameters put in */
    int16_t *formats;
    int16_t n_formats;
    bool ran, empty;
    floe_schema *schema;     /* NULL: the statement returns no rows */
    floe_batch **batches;
    int32_t n_batches, cap_batches;
    char *tag;
    int64_t tag_rows;
    int32_t batch_pos;       /* where Execute goes on */
    int64_t row_pos;
    pg_portal *next;
};

static void stmt_free(pg_stmt *p) {
    if (!p) return;
    floe_free(p->name);
    floe_free(p->sql);
    floe_free(p->oids);
    floe_free(p);
}

static void portal_free(pg_portal *p) {
    if (!p) return;
    floe_free(p->name);
    floe_free(p->sql);
    floe_free(p->formats);
    floe_type_release(p->schema);
    for (int32_t i = 0; i < p->n_batches; i++) floe_batch_release(p->batches[i]);
    floe_free(p->batches);
    floe_free(p->tag);
    floe_free(p);
}

void pg_extended_free(pg_session *s) {
    while (s->stmts) {
        pg_stmt *n = s->stmts->next;
        stmt_free(s->stmts);
        s->stmts = n;
    }
    while (s->portals) {
        pg_portal *n = s->portals->next;
        portal_free(s->portals);
        s->portals = n;
    }
}

static pg_stmt **find_stmt(pg_session *s, const char *name) {
    pg_stmt **p = &s->stmts;
    while (*p && strcmp((*p)->name, name) != 0) p = &(*p)->next;
    return p;
}

static pg_portal **find_portal(pg_session *s, const char *name) {
    pg_portal **p = &s->portals;
    while (*p && strcmp((*p)->name, name) != 0) p = &(*p)->next;
    return p;
}

#define BAD_MESSAGE(what) floe_error(FLOE_ERR_CORRUPT, "malformed %s message", what)

/* ------------------------------------------------------------------ Parse */

static floe_status on_parse(pg_session *s, pg_reader *r) {
    const char *name = pg_get_cstr(r);
    const char *sql = pg_get_cstr(r);
    int16_t n = pg_get_int16(r);
    if (r->bad || n < 0) return BAD_MESSAGE("Parse");
    pg_stmt **slot = find_stmt(s, name);
    if (*slot && *name) return floe_error(FLOE_ERR_ALREADY_EXISTS, "prepared statement \"%s\" already exists", name);
    FLOE_LOG_INFO("serve", "session %d: parse%s%s: %.2000s%s", (int)s->id, *name ? " " : "", name, sql,
                  strlen(sql) > 2000 ? " ..." : "");
    floe_sql_script *script = NULL;
    FLOE_TRY(floe_sql_parse(sql, &script));
    int32_t n_stmts = script->n_stmts;
    floe_sql_script_free(script);
    if (n_stmts > 1) return floe_error(FLOE_ERR_SYNTAX, "cannot insert multiple commands into a prepared statement");
    int32_t used = pg_params_count(sql);
    pg_stmt *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Parse: out of memory");
    p->n_params = used > n ? used : n;
    p->name = floe_strdup(name);
    p->sql = floe_strdup(sql);
    p->oids = floe_calloc((size_t)(p->n_params ? p->n_params : 1), sizeof(int32_t));
    if (!p->name || !p->sql || !p->oids) {
        stmt_free(p);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Parse: out of memory");
    }
    for (int16_t i = 0; i < n; i++) p->oids[i] = pg_get_int32(r);
    if (r->bad) {
        stmt_free(p);
        return BAD_MESSAGE("Parse");
    }
    if (*slot) { /* the unnamed statement is replaced */
        pg_stmt *old = *slot;
        p->next = old->next;
        stmt_free(old);
    } else {
        p->next = NULL;
    }
    *slot = p;
    pg_begin(&s->conn, '1');
    pg_end(&s->conn);
    return NULL;
}

/* ------------------------------------------------------------------- Bind */

static int16_t fmt_at(const int16_t *f, int16_t n, int32_t i) {
    return n == 0 ? 0 : n == 1 ? f[0] : i < n ? f[i] : 0;
}

static floe_status on_bind(pg_session *s, pg_reader *r) {
    const char *portal_name = pg_get_cstr(r);
    const char *stmt_name = pg_get_cstr(r);
    int16_t n_pfmt = pg_get_int16(r);
    if (r->bad || n_pfmt < 0) return BAD_MESSAGE("Bind");
    int16_t pfmt[n_pfmt > 0 ? n_pfmt : 1];
    for (int16_t i = 0; i < n_pfmt; i++) pfmt[i] = pg_get_int16(r);
    int16_t n_params = pg_get_int16(r);
    if (r->bad || n_params < 0) return BAD_MESSAGE("Bind");
    pg_stmt *st_p = *find_stmt(s, stmt_name);
    if (!st_p) return floe_error(FLOE_ERR_NOT_FOUND, "prepared statement \"%s\" does not exist", stmt_name);
    if (n_params != st_p->n_params)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "bind message supplies %d parameters, but prepared statement \"%s\" requires %d",
                          (int)n_params, stmt_name, (int)st_p->n_params);
    if (*portal_name && *find_portal(s, portal_name))
        return floe_error(FLOE_ERR_ALREADY_EXISTS, "cursor \"%s\" already exists", portal_name);
    char **values = floe_calloc((size_t)(n_params ? n_params : 1), sizeof(char *));
    if (!values) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Bind: out of memory");
    floe_status st = NULL;
    floe_buf text = FLOE_BUF_INIT;
    for (int16_t i = 0; i < n_params && !st; i++) {
        int32_t len = pg_get_int32(r);
        if (len == -1) continue; /* NULL */
        const uint8_t *p = len >= 0 ? pg_get_bytes(r, (size_t)len) : NULL;
        if (!p) {
            st = BAD_MESSAGE("Bind");
            break;
        }
        floe_buf_clear(&text);
        int16_t f = fmt_at(pfmt, n_pfmt, i);
        if (f == 1) st = pg_param_binary_to_text(st_p->oids[i], p, len, &text);
        else if (f == 0) st = floe_buf_append(&text, p, (size_t)len);
        else st = floe_error(FLOE_ERR_CORRUPT, "parameter format code %d is not 0 or 1", (int)f);
        if (!st && memchr(text.data, 0, text.len))
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "parameter $%d contains a zero byte", (int)i + 1);
        if (!st) {
            values[i] = floe_strdup(floe_buf_cstr(&text));
            if (!values[i]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "Bind: out of memory");
        }
    }
    int16_t n_rfmt = st ? 0 : pg_get_int16(r);
    if (!st && (r->bad || n_rfmt < 0)) st = BAD_MESSAGE("Bind");
    pg_portal *portal = NULL;
    if (!st) {
        portal = floe_calloc(1, sizeof *portal);
        if (portal) {
            portal->name = floe_strdup(portal_name);
            portal->formats = floe_calloc((size_t)(n_rfmt ? n_rfmt : 1), sizeof(int16_t));
        }
        if (!portal || !portal->name || !portal->formats) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "Bind: out of memory");
    }
    for (int16_t i = 0; !st && i < n_rfmt; i++) {
        portal->formats[i] = pg_get_int16(r);
        if (portal->formats[i] != 0 && portal->formats[i] != 1)
            st = floe_error(FLOE_ERR_CORRUPT, "result format code %d is not 0 or 1", (int)portal->formats[i]);
    }
    if (!st && r->bad) st = BAD_MESSAGE("Bind");
    if (!st) {
        portal->n_formats = n_rfmt;
        floe_buf_clear(&text);
        st = pg_params_substitute(st_p->sql, n_params, (const char *const *)values, st_p->oids, &text);
        if (!st) {
            portal->sql = floe_strdup(floe_buf_cstr(&text));
            if (!portal->sql) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "Bind: out of memory");
        }
    }
    for (int16_t i = 0; i < n_params; i++) floe_free(values[i]);
    floe_free(values);
    floe_buf_free(&text);
    if (st) {
        portal_free(portal);
        return st;
    }
    pg_portal **slot = find_portal(s, portal_name);
    if (*slot) { /* the unnamed portal is replaced */
        pg_portal *old = *slot;
        portal->next = old->next;
        portal_free(old);
    }
    *slot = portal;
    pg_begin(&s->conn, '2');
    pg_end(&s->conn);
    return NULL;
}

/* ------------------------------------------------------- running a portal */

static floe_status c_begin(void *arg, const floe_schema *schema) {
    pg_portal *p = arg;
    floe_type_release(p->schema);
    p->schema = floe_type_retain((floe_schema *)schema);
    return NULL;
}

static floe_status c_batch(void *arg, const floe_batch *b) {
    pg_portal *p = arg;
    if (p->n_batches == p->cap_batches) {
        int32_t cap = p->cap_batches ? p->cap_batches * 2 : 8;
        floe_batch **n = floe_realloc(p->batches, (size_t)cap * sizeof *n);
        if (!n) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "holding a result: out of memory");
        p->batches = n;
        p->cap_batches = cap;
    }
    p->batches[p->n_batches++] = floe_batch_retain((floe_batch *)b);
    return NULL;
}

static floe_status c_end(void *arg, const char *tag, int64_t rows) {
    pg_portal *p = arg;
    floe_free(p->tag);
    p->tag = floe_strdup(tag);
    p->tag_rows = rows;
    return p->tag ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "holding a result: out of memory");
}

static floe_status run_portal(pg_session *s, pg_portal *p) {
    if (p->ran) return NULL;
    p->ran = true;
    FLOE_LOG_INFO("serve", "session %d: execute%s%s: %.2000s%s", (int)s->id, *p->name ? " " : "", p->name, p->sql,
                  strlen(p->sql) > 2000 ? " ..." : "");
    floe_sql_script *script = NULL;
    FLOE_TRY(floe_sql_parse(p->sql, &script));
    floe_status st = NULL;
    if (script->n_stmts == 0) {
        p->empty = true;
    } else {
        floe_result_sink sink = {p, c_begin, c_batch, c_end, NULL};
        st = pg_run_statement(s, &script->stmts[0], &sink);
    }
    floe_sql_script_free(script);
    return st;
}

/* A portal executed whole without being described first (JDBC, psycopg 3
 * after Describe of the statement): its rows go out as they come, not
 * held.  Executing it again finds it done (CommandComplete, no rows). */
static floe_status stream_portal(pg_session *s, pg_portal *p) {
    p->ran = true;
    FLOE_LOG_INFO("serve", "session %d: execute%s%s: %.2000s%s", (int)s->id, *p->name ? " " : "", p->name, p->sql,
                  strlen(p->sql) > 2000 ? " ..." : "");
    floe_sql_script *script = NULL;
    FLOE_TRY(floe_sql_parse(p->sql, &script));
    floe_status st = NULL;
    if (script->n_stmts == 0) {
        p->empty = true;
        pg_begin(&s->conn, 'I');
        pg_end(&s->conn);
    } else {
        pg_result_writer w;
        pg_result_writer_init(&w, s, false, p->formats, p->n_formats);
        floe_result_sink sink;
        pg_result_writer_sink(&w, &sink);
        st = pg_run_statement(s, &script->stmts[0], &sink);
        pg_result_writer_free(&w);
    }
    floe_sql_script_free(script);
    return st;
}

/* --------------------------------------------------------------- Describe */

static floe_status describe_statement(pg_session *s, pg_stmt *p) {
    pg_begin(&s->conn, 't');
    pg_put_int16(&s->conn, (int16_t)p->n_params);
    for (int32_t i = 0; i < p->n_params; i++) pg_put_int32(&s->conn, p->oids[i] ? p->oids[i] : PG_OID_TEXT);
    pg_end(&s->conn);
    /* The row shape without running anything: the query planned with every
     * parameter NULL (of its type when known). */
    const char **nulls = floe_calloc((size_t)(p->n_params ? p->n_params : 1), sizeof(char *));
    if (!nulls) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Describe: out of memory");
    floe_buf text = FLOE_BUF_INIT;
    floe_schema *schema = NULL;
    floe_status st = pg_params_substitute(p->sql, p->n_params, nulls, p->oids, &text);
    if (!st) st = floe_session_describe(s->floe, floe_buf_cstr(&text), &schema);
    if (!st && schema) st = pg_send_row_description(s, schema, NULL, 0);
    else if (!st) {
        pg_begin(&s->conn, 'n');
        pg_end(&s->conn);
    }
    floe_type_release(schema);
    floe_buf_free(&text);
    floe_free(nulls);
    return st;
}

static floe_status on_describe(pg_session *s, pg_reader *r) {
    uint8_t what = pg_get_byte(r);
    const char *name = pg_get_cstr(r);
    if (r->bad) return BAD_MESSAGE("Describe");
    if (what == 'S') {
        pg_stmt *p = *find_stmt(s, name);
        if (!p) return floe_error(FLOE_ERR_NOT_FOUND, "prepared statement \"%s\" does not exist", name);
        return describe_statement(s, p);
    }
    if (what != 'P') return floe_error(FLOE_ERR_CORRUPT, "Describe of '%c': expected 'S' or 'P'", what);
    pg_portal *p = *find_portal(s, name);
    if (!p) return floe_error(FLOE_ERR_NOT_FOUND, "portal \"%s\" does not exist", name);
    FLOE_TRY(run_portal(s, p));
    if (p->schema) return pg_send_row_description(s, p->schema, p->formats, p->n_formats);
    pg_begin(&s->conn, 'n');
    pg_end(&s->conn);
    return NULL;
}

/* ---------------------------------------------------------------- Execute */

/* What Execute sends of a portal that has run: up to max_rows rows, then
 * PortalSuspended or CommandComplete. */
static floe_status send_portal_rows(pg_session *s, pg_portal *p, int32_t max_rows) {
    pg_result_writer w;
    pg_result_writer_init(&w, s, false, p->formats, p->n_formats);
    floe_status st = NULL;
    if (p->schema) {
        /* the writer's per-column formats */
        floe_result_sink sink;
        pg_result_writer_sink(&w, &sink);
        st = sink.begin(sink.arg, p->schema);
    }
    int64_t limit = max_rows > 0 ? max_rows : INT64_MAX;
    int64_t sent = 0;
    while (!st && p->batch_pos < p->n_batches && sent < limit) {
        const floe_batch *b = p->batches[p->batch_pos];
        int64_t take = b->num_rows - p->row_pos;
        if (take > limit - sent) take = limit - sent;
        st = pg_send_rows(&w, b, p->row_pos, p->row_pos + take);
        sent += take;
        p->row_pos += take;
        if (p->row_pos >= b->num_rows) {
            p->batch_pos++;
            p->row_pos = 0;
        }
    }
    pg_result_writer_free(&w);
    if (st) return st;
    if (p->batch_pos < p->n_batches) {
        pg_begin(&s->conn, 's'); /* PortalSuspended */
        pg_end(&s->conn);
        return NULL;
    }
    pg_send_command_complete(s, p->tag ? p->tag : "SELECT", p->schema && !p->tag ? sent : p->tag_rows);
    return NULL;
}

static floe_status on_execute(pg_session *s, pg_reader *r) {
    const char *name = pg_get_cstr(r);
    int32_t max_rows = pg_get_int32(r);
    if (r->bad) return BAD_MESSAGE("Execute");
    pg_portal *p = *find_portal(s, name);
    if (!p) return floe_error(FLOE_ERR_NOT_FOUND, "portal \"%s\" does not exist", name);
    if (!p->ran && max_rows <= 0) return stream_portal(s, p);
    FLOE_TRY(run_portal(s, p));
    if (p->empty) {
        pg_begin(&s->conn, 'I');
        pg_end(&s->conn);
        return NULL;
    }
    return send_portal_rows(s, p, max_rows);
}

/* ------------------------------------------------------------------ Close */

static floe_status on_close(pg_session *s, pg_reader *r) {
    uint8_t what = pg_get_byte(r);
    const char *name = pg_get_cstr(r);
    if (r->bad || (what != 'S' && what != 'P')) return BAD_MESSAGE("Close");
    if (what == 'S') {
        pg_stmt **slot = find_stmt(s, name);
        if (*slot) {
            pg_stmt *old = *slot;
            *slot = old->next;
            stmt_free(old);
        }
    } else {
        pg_portal **slot = find_portal(s, name);
        if (*slot) {
            pg_portal *old = *slot;
            *slot = old->next;
            portal_free(old);
        }
    }
    pg_begin(&s->conn, '3');
    pg_end(&s->conn);
    return NULL;
}

floe_status pg_extended_message(pg_session *s, char type) {
    if (type == 'S') { /* Sync */
        s->skip_until_sync = false;
        while (s->portals) {
            pg_portal *n = s->portals->next;
            portal_free(s->portals);
            s->portals = n;
        }
        pg_send_ready(s);
        return pg_flush(&s->conn);
    }
    if (type == 'H') return pg_flush(&s->conn);
    if (s->skip_until_sync) return NULL;
    pg_reader r;
    pg_reader_init(&r, s->conn.in.data, s->conn.in.len);
    floe_status st = NULL;
    switch (type) {
    case 'P': st = on_parse(s, &r); break;
    case 'B': st = on_bind(s, &r); break;
    case 'D': st = on_describe(s, &r); break;
    case 'E': st = on_execute(s, &r); break;
    case 'C': st = on_close(s, &r); break;
    default: break;
    }
    if (st) {
        if (floe_status_code(st) == FLOE_ERR_IO && strstr(floe_status_message(st), "writing to the client"))
            return st;
        pg_send_error(s, st, NULL, 0);
        floe_status_free(st);
        s->skip_until_sync = true;
    }
    if (s->conn.out.len >= 256 * 1024) return pg_flush(&s->conn);
    return NULL;
}

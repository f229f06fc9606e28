/*
 * shell_describe.c — the shell's catalog commands, as psql has them:
 *
 *   \dn [PATTERN]        List of schemas
 *   \dt [PATTERN]        tables          \dv [PATTERN]   views
 *   \d                   tables and views
 *   \d PATTERN           each matching table or view: its columns
 *
 * PATTERN is psql's: "name", "schema.name", with * and ? as wildcards
 * (case-insensitive here, as floe's identifiers are).  A name without a
 * schema matches in every schema (psql looks only at its search path;
 * floe has no search path beyond its default schema, and a data engineer
 * looking for a table wants it found wherever it is).
 *
 * The facts come from floe's own statements (SHOW SCHEMAS, SHOW TABLES
 * FROM, SHOW VIEWS IN, DESCRIBE) run on the shell's session, so the
 * commands show what SQL sees in every catalog (SQLite, REST).  Results
 * print through the shell's output settings (format, \x, \pset null),
 * under psql's titles.
 */
#include "cli/shell_describe.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/memory.h"

/* ------------------------------------------------------- a text result */

/* Rows of text cells (NULL: a null cell). */
typedef struct text_rows {
    int32_t ncols;
    char **cells; /* rows * ncols */
    int64_t rows, cap;
} text_rows;

static void text_rows_free(text_rows *t) {
    for (int64_t i = 0; i < t->rows * t->ncols; i++) free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

static floe_status text_rows_add(text_rows *t, char *const *cells) {
    if (t->rows == t->cap) {
        int64_t cap = t->cap ? t->cap * 2 : 16;
        char **n = realloc(t->cells, (size_t)(cap * t->ncols) * sizeof *n);
        if (!n) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory listing the catalog");
        t->cells = n;
        t->cap = cap;
    }
    for (int32_t c = 0; c < t->ncols; c++) {
        char *v = cells[c] ? strdup(cells[c]) : NULL;
        if (cells[c] && !v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory listing the catalog");
        t->cells[t->rows * t->ncols + c] = v;
    }
    t->rows++;
    return NULL;
}

static const char *cell(const text_rows *t, int64_t r, int32_t c) { return t->cells[r * t->ncols + c]; }

/* The sink that collects a statement's rows as text. */
static floe_status cap_begin(void *arg, const floe_schema *schema) {
    text_rows *t = arg;
    t->ncols = floe_schema_num_fields(schema);
    return NULL;
}

static floe_status cap_batch(void *arg, const floe_batch *b) {
    text_rows *t = arg;
    floe_buf text = FLOE_BUF_INIT;
    char *stack[16];
    char **row = t->ncols <= 16 ? stack : calloc((size_t)t->ncols, sizeof *row);
    size_t *ends = calloc((size_t)t->ncols + 1, sizeof *ends);
    floe_status st = row && ends ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory listing the catalog");
    for (int64_t r = 0; r < b->num_rows && !st; r++) {
        floe_buf_clear(&text);
        for (int32_t c = 0; c < t->ncols && !st; c++) {
            const floe_array *a = floe_batch_column(b, c);
            if (!floe_array_is_null(a, r)) st = floe_format_value(a, r, &text);
            if (!st) st = floe_buf_append_byte(&text, 0);
            ends[c] = text.len;
        }
        for (int32_t c = 0; c < t->ncols && !st; c++) {
            const floe_array *a = floe_batch_column(b, c);
            row[c] = floe_array_is_null(a, r) ? NULL : (char *)text.data + (c ? ends[c - 1] : 0);
        }
        if (!st) st = text_rows_add(t, row);
    }
    free(ends);
    if (row != stack) free(row);
    floe_buf_free(&text);
    return st;
}

/* Run `sql`, its rows into *out. */
static floe_status query_rows(floe_session *s, const char *sql, text_rows *out) {
    memset(out, 0, sizeof *out);
    floe_result_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.arg = out;
    sink.begin = cap_begin;
    sink.batch = cap_batch;
    floe_status st = floe_session_execute(s, sql, &sink);
    if (st) text_rows_free(out);
    return st;
}

/* ---------------------------------------------------------- patterns */

/* psql's wildcards: * any run, ? one character; case-insensitive. */
static bool glob_match(const char *p, const char *s) {
    for (; *p; p++, s++) {
        if (*p == '*') {
            while (p[1] == '*') p++;
            if (!p[1]) return true;
            for (; *s; s++)
                if (glob_match(p + 1, s)) return true;
            return false;
        }
        if (!*s) return false;
        if (*p != '?' && tolower((unsigned char)*p) != tolower((unsigned char)*s)) return false;
    }
    return !*s;
}

typedef struct pattern {
    char *schema; /* NULL: any */
    char *name;   /* NULL: any */
} pattern;

/* "a.b" -> schema a, name b; "b" -> any schema, name b; quotes dropped. */
static floe_status pattern_parse(const char *text, pattern *p) {
    memset(p, 0, sizeof *p);
    if (!text || !*text) return NULL;
    char *copy = strdup(text);
    if (!copy) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    char *w = copy;
    for (const char *r = text; *r; r++)
        if (*r != '"') *w++ = *r;
    *w = 0;
    char *dot = strrchr(copy, '.');
    if (dot) {
        *dot = 0;
        p->schema = *copy ? strdup(copy) : NULL;
        p->name = dot[1] ? strdup(dot + 1) : NULL;
    } else {
        p->name = strdup(copy);
    }
    free(copy);
    return NULL;
}

static void pattern_free(pattern *p) {
    free(p->schema);
    free(p->name);
}

/* ------------------------------------------------------------ listing */

/* SQL text of an identifier, double-quoted. */
static floe_status quote_ident(floe_buf *b, const char *id) {
    FLOE_TRY(floe_buf_append_byte(b, '"'));
    for (const char *p = id; *p; p++) {
        if (*p == '"') FLOE_TRY(floe_buf_append_byte(b, '"'));
        FLOE_TRY(floe_buf_append_byte(b, (uint8_t)*p));
    }
    return floe_buf_append_byte(b, '"');
}

typedef struct relation {
    char *schema, *name;
    bool view;
} relation;

typedef struct relations {
    relation *v;
    int32_t n, cap;
} relations;

static void relations_free(relations *r) {
    for (int32_t i = 0; i < r->n; i++) {
        free(r->v[i].schema);
        free(r->v[i].name);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
}

static floe_status relations_add(relations *r, const char *schema, const char *name, bool view) {
    if (r->n == r->cap) {
        int32_t cap = r->cap ? r->cap * 2 : 16;
        relation *n = realloc(r->v, (size_t)cap * sizeof *n);
        if (!n) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory listing the catalog");
        r->v = n;
        r->cap = cap;
    }
    relation *x = &r->v[r->n];
    x->schema = strdup(schema);
    x->name = strdup(name);
    x->view = view;
    if (!x->schema || !x->name) {
        free(x->schema);
        free(x->name);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory listing the catalog");
    }
    r->n++;
    return NULL;
}

static int relation_cmp(const void *a, const void *b) {
    const relation *x = a, *y = b;
    int c = strcmp(x->schema, y->schema);
    return c ? c : strcmp(x->name, y->name);
}

/* The schemas matching `pat` (NULL: all), sorted. */
static floe_status list_schemas(floe_session *s, const char *pat, text_rows *out) {
    text_rows all;
    FLOE_TRY(query_rows(s, "SHOW SCHEMAS", &all));
    memset(out, 0, sizeof *out);
    out->ncols = 1;
    floe_status st = NULL;
    for (int64_t r = 0; r < all.rows && !st; r++) {
        char *name = (char *)cell(&all, r, 0);
        if (name && (!pat || glob_match(pat, name))) st = text_rows_add(out, &name);
    }
    text_rows_free(&all);
    if (st) text_rows_free(out);
    return st;
}

/* Tables (want_tables) and views (want_views) matching `p`, sorted. */
static floe_status list_relations(floe_session *s, const pattern *p, bool want_tables, bool want_views,
                                  relations *out) {
    memset(out, 0, sizeof *out);
    text_rows schemas;
    FLOE_TRY(list_schemas(s, p->schema, &schemas));
    floe_status st = NULL;
    floe_buf sql = FLOE_BUF_INIT;
    for (int64_t i = 0; i < schemas.rows && !st; i++) {
        const char *schema = cell(&schemas, i, 0);
        for (int kind = 0; kind < 2 && !st; kind++) {
            bool view = kind == 1;
            if (view ? !want_views : !want_tables) continue;
            floe_buf_clear(&sql);
            st = floe_buf_append_str(&sql, view ? "SHOW VIEWS IN " : "SHOW TABLES FROM ");
            if (!st) st = quote_ident(&sql, schema);
            text_rows names;
            if (!st) st = query_rows(s, floe_buf_cstr(&sql), &names);
            if (st) break;
            for (int64_t r = 0; r < names.rows && !st; r++) {
                const char *name = cell(&names, r, 0);
                if (name && (!p->name || glob_match(p->name, name))) st = relations_add(out, schema, name, view);
            }
            text_rows_free(&names);
        }
    }
    floe_buf_free(&sql);
    text_rows_free(&schemas);
    if (st) relations_free(out);
    else if (out->n > 1) qsort(out->v, (size_t)out->n, sizeof *out->v, relation_cmp);
    return st;
}

/* ------------------------------------------------------------ printing */

/* Print `t` with column names `names` under `title`. */
static floe_status print_rows(floe_cli_output *o, const char *title, const char *const *names, const text_rows *t) {
    floe_field *fields = calloc((size_t)t->ncols, sizeof *fields);
    floe_array **cols = calloc((size_t)t->ncols, sizeof *cols);
    floe_schema *schema = NULL;
    floe_batch *batch = NULL;
    floe_printer *pr = NULL;
    floe_buf text = FLOE_BUF_INIT;
    floe_status st = fields && cols ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory printing");
    int32_t made = 0;
    for (; made < t->ncols && !st; made++) {
        st = floe_field_init(&fields[made], names[made], floe_type_primitive(FLOE_TYPE_STRING), true, -1);
        if (st) break;
        floe_builder *b = NULL;
        st = floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), t->rows, &b);
        for (int64_t r = 0; r < t->rows && !st; r++) {
            const char *v = cell(t, r, made);
            st = v ? floe_builder_append_string(b, v) : floe_builder_append_null(b);
        }
        if (!st) st = floe_builder_finish(b, &cols[made]);
        floe_builder_free(b);
    }
    if (!st) st = floe_type_struct(fields, t->ncols, &schema);
    if (!st) st = floe_batch_new(schema, cols, t->ncols, t->rows, &batch);
    floe_print_options po;
    floe_cli_output_options(o, title, &po);
    if (!st) st = floe_printer_new(&po, NULL, &text, &pr);
    if (!st) st = floe_printer_begin(pr, schema);
    if (!st && t->rows) st = floe_printer_add_batch(pr, batch);
    if (!st) st = floe_printer_end(pr);
    if (!st) st = floe_cli_output_emit(o, (const char *)text.data, text.len);
    fflush(o->out);
    floe_printer_free(pr);
    floe_buf_free(&text);
    floe_batch_release(batch);
    floe_type_release(schema);
    for (int32_t i = 0; i < t->ncols && cols; i++) floe_array_release(cols[i]);
    for (int32_t i = 0; i < made && fields; i++) floe_field_clear(&fields[i]);
    free(cols);
    free(fields);
    return st;
}

static floe_status print_relations(floe_cli_output *o, const relations *rels) {
    text_rows t = {.ncols = 3};
    floe_status st = NULL;
    for (int32_t i = 0; i < rels->n && !st; i++) {
        char *row[3] = {rels->v[i].schema, rels->v[i].name, rels->v[i].view ? "view" : "table"};
        st = text_rows_add(&t, row);
    }
    static const char *const names[] = {"Schema", "Name", "Type"};
    if (!st) st = print_rows(o, "List of relations", names, &t);
    text_rows_free(&t);
    return st;
}

/* \d NAME for one relation: Column | Type | Nullable, under
 * Table "s.t" / View "s.v". */
static floe_status describe_one(floe_session *s, floe_cli_output *o, const relation *r) {
    floe_buf sql = FLOE_BUF_INIT;
    floe_status st = floe_buf_append_str(&sql, "DESCRIBE ");
    if (!st) st = quote_ident(&sql, r->schema);
    if (!st) st = floe_buf_append_byte(&sql, '.');
    if (!st) st = quote_ident(&sql, r->name);
    text_rows d = {0};
    if (!st) st = query_rows(s, floe_buf_cstr(&sql), &d);
    floe_buf_free(&sql);
    if (st) return st;
    text_rows t = {.ncols = 3};
    for (int64_t i = 0; i < d.rows && !st; i++) {
        const char *nullable = d.ncols > 2 ? cell(&d, i, 2) : NULL;
        char *row[3] = {(char *)cell(&d, i, 0), d.ncols > 1 ? (char *)cell(&d, i, 1) : NULL,
                        nullable && !strcmp(nullable, "NO") ? "not null" : ""};
        st = text_rows_add(&t, row);
    }
    text_rows_free(&d);
    char title[512];
    snprintf(title, sizeof title, "%s \"%s.%s\"", r->view ? "View" : "Table", r->schema, r->name);
    static const char *const names[] = {"Column", "Type", "Nullable"};
    if (!st) st = print_rows(o, title, names, &t);
    text_rows_free(&t);
    return st;
}

floe_status floe_cli_describe(floe_session *s, floe_cli_output *o, const char *cmd, const char *arg) {
    pattern p;
    FLOE_TRY(pattern_parse(arg, &p));
    floe_status st = NULL;
    if (!strcmp(cmd, "\\dn")) {
        /* \dn takes a schema pattern: the whole argument */
        text_rows t;
        st = list_schemas(s, arg && *arg ? arg : NULL, &t);
        static const char *const names[] = {"Name"};
        if (!st) {
            st = print_rows(o, "List of schemas", names, &t);
            text_rows_free(&t);
        }
    } else {
        bool tables = strcmp(cmd, "\\dv") != 0, views = strcmp(cmd, "\\dt") != 0;
        relations rels = {0};
        st = list_relations(s, &p, tables, views, &rels);
        if (!st && !strcmp(cmd, "\\d") && arg && *arg) {
            if (!rels.n) st = floe_error(FLOE_ERR_NOT_FOUND, "Did not find any relation named \"%s\".", arg);
            for (int32_t i = 0; i < rels.n && !st; i++) {
                if (i) fputc('\n', o->out);
                st = describe_one(s, o, &rels.v[i]);
            }
        } else if (!st && !rels.n) {
            /* psql says so rather than print an empty table */
            if (arg && *arg) fprintf(o->out, "Did not find any relation named \"%s\".\n", arg);
            else fprintf(o->out, "Did not find any relations.\n");
        } else if (!st) {
            st = print_relations(o, &rels);
        }
        relations_free(&rels);
    }
    pattern_free(&p);
    return st;
}

floe_status floe_cli_first_column(floe_session *s, const char *sql, char ***out, int64_t *n) {
    *out = NULL;
    *n = 0;
    text_rows t;
    FLOE_TRY(query_rows(s, sql, &t));
    char **v = calloc((size_t)(t.rows ? t.rows : 1), sizeof *v);
    if (!v) {
        text_rows_free(&t);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory listing the catalog");
    }
    int64_t k = 0;
    for (int64_t r = 0; r < t.rows; r++) {
        char **c = &t.cells[r * t.ncols];
        if (t.ncols && *c) {
            v[k++] = *c; /* taken over */
            *c = NULL;
        }
    }
    text_rows_free(&t);
    *out = v;
    *n = k;
    return NULL;
}

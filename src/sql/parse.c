/*
 * parse.c — floe_sql_parse: the pre-pass over scanner tokens that cuts out
 * floe's non-PostgreSQL syntax (see parse.h), then pg_query_parse and the
 * split of its JSON output into statements.
 *
 * pg_query_scan returns its tokens as a protobuf message; the few fields
 * needed (start, end, token number) are read here with a tiny wire-format
 * decoder so floe does not depend on protobuf-c's headers.
 */
#include "sql/parse.h"

#include <pg_query.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "base/str.h"
#include "floe/memory.h"
#include "sql/pgnode.h"

/* Token numbers of libpg_query's scanner (pg_query.proto, enum Token). */
enum {
    TOK_IDENT = 258,
    TOK_FCONST = 260,
    TOK_SCONST = 261,
    TOK_USCONST = 262,
    TOK_ICONST = 266,
    TOK_SQL_COMMENT = 275,
    TOK_C_COMMENT = 276
};

typedef struct token {
    int32_t start, end; /* byte range in the text */
    int32_t kind;       /* TOK_* or a keyword/ASCII token number */
} token;

/* ---------------------------------------------------------- scan tokens */

static bool pb_varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *v) {
    uint64_t r = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*pos >= n) return false;
        uint8_t b = p[(*pos)++];
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return true;
        }
    }
    return false;
}

/* Skip a field of wire type `wt`; false when malformed. */
static bool pb_skip(const uint8_t *p, size_t n, size_t *pos, int wt) {
    uint64_t v;
    switch (wt) {
    case 0: return pb_varint(p, n, pos, &v);
    case 1: if (n - *pos < 8) return false; *pos += 8; return true;
    case 2:
        if (!pb_varint(p, n, pos, &v) || v > n - *pos) return false;
        *pos += (size_t)v;
        return true;
    case 5: if (n - *pos < 4) return false; *pos += 4; return true;
    default: return false;
    }
}

static bool decode_token(const uint8_t *p, size_t n, token *t) {
    size_t pos = 0;
    t->start = t->end = 0;
    t->kind = 0;
    while (pos < n) {
        uint64_t key, v;
        if (!pb_varint(p, n, &pos, &key)) return false;
        int field = (int)(key >> 3), wt = (int)(key & 7);
        if (wt == 0 && (field == 1 || field == 2 || field == 4)) {
            if (!pb_varint(p, n, &pos, &v)) return false;
            if (field == 1) t->start = (int32_t)v;
            else if (field == 2) t->end = (int32_t)v;
            else t->kind = (int32_t)v;
        } else if (!pb_skip(p, n, &pos, wt)) {
            return false;
        }
    }
    return t->start >= 0 && t->end >= t->start;
}

/* The tokens of `sql` without comments; *n_out 0 and no error when the
 * scanner fails (the parser will then report the problem). */
static floe_status scan_tokens(const char *sql, token **out, int32_t *n_out) {
    *out = NULL;
    *n_out = 0;
    PgQueryScanResult r = pg_query_scan(sql);
    if (r.error) {
        pg_query_free_scan_result(r);
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)r.pbuf.data;
    size_t n = r.pbuf.len, pos = 0, len_sql = strlen(sql);
    int32_t cap = 64, cnt = 0;
    token *toks = floe_malloc_array((size_t)cap, sizeof(token));
    if (!toks) {
        pg_query_free_scan_result(r);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "scanning SQL: out of memory");
    }
    bool ok = true;
    while (pos < n) {
        uint64_t key, len;
        if (!pb_varint(p, n, &pos, &key)) { ok = false; break; }
        if ((key >> 3) == 2 && (key & 7) == 2) {
            if (!pb_varint(p, n, &pos, &len) || len > n - pos) { ok = false; break; }
            token t;
            if (!decode_token(p + pos, (size_t)len, &t) || (size_t)t.end > len_sql) { ok = false; break; }
            pos += (size_t)len;
            if (t.kind == TOK_SQL_COMMENT || t.kind == TOK_C_COMMENT) continue;
            if (cnt == cap) {
                token *nt = floe_realloc(toks, (size_t)cap * 2 * sizeof(token));
                if (!nt) {
                    floe_free(toks);
                    pg_query_free_scan_result(r);
                    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "scanning SQL: out of memory");
                }
                toks = nt;
                cap *= 2;
            }
            toks[cnt++] = t;
        } else if (!pb_skip(p, n, &pos, (int)(key & 7))) {
            ok = false;
            break;
        }
    }
    pg_query_free_scan_result(r);
    if (!ok) {
        floe_free(toks);
        return floe_error(FLOE_ERR_INTERNAL, "scanning SQL: malformed token list from the scanner");
    }
    *out = toks;
    *n_out = cnt;
    return NULL;
}

/* ---------------------------------------------------------- the pre-pass */

typedef struct prepass {
    const char *sql; /* original */
    char *text;      /* being rewritten (same length) */
    token *toks;
    int32_t n;
    floe_sql_clause *clauses;
    int32_t n_clauses, cap_clauses;
} prepass;

static bool tok_is(const prepass *pp, int32_t i, const char *word) {
    if (i < 0 || i >= pp->n) return false;
    const token *t = &pp->toks[i];
    size_t len = (size_t)(t->end - t->start);
    return strlen(word) == len && floe_str_ieq(floe_str_make(pp->sql + t->start, len), floe_str_c(word));
}

static bool tok_is_char(const prepass *pp, int32_t i, char c) {
    if (i < 0 || i >= pp->n) return false;
    const token *t = &pp->toks[i];
    return t->end - t->start == 1 && pp->sql[t->start] == c;
}

static void blank(prepass *pp, int32_t from, int32_t to) {
    for (int32_t k = from; k < to; k++)
        if (pp->text[k] != '\n') pp->text[k] = ' ';
}

/* The content of a string literal token ('it''s' → it's; E'' escapes are
 * not interpreted beyond doubled quotes). */
static char *string_content(const prepass *pp, const token *t) {
    const char *s = pp->sql + t->start, *e = pp->sql + t->end;
    while (s < e && *s != '\'') s++; /* skip an E / U& prefix */
    if (s < e) s++;
    if (e > s && e[-1] == '\'') e--;
    char *out = floe_malloc((size_t)(e - s) + 1);
    if (!out) return NULL;
    size_t k = 0;
    for (const char *p = s; p < e; p++) {
        out[k++] = *p;
        if (*p == '\'' && p + 1 < e && p[1] == '\'') p++;
    }
    out[k] = 0;
    return out;
}

static floe_status add_clause(prepass *pp, floe_sql_clause_kind kind, int32_t location, char *text,
                              bool is_string) {
    if (!text) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "parsing SQL: out of memory");
    if (pp->n_clauses == pp->cap_clauses) {
        int32_t cap = pp->cap_clauses ? pp->cap_clauses * 2 : 8;
        floe_sql_clause *nc = floe_realloc(pp->clauses, (size_t)cap * sizeof(*nc));
        if (!nc) {
            floe_free(text);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "parsing SQL: out of memory");
        }
        pp->clauses = nc;
        pp->cap_clauses = cap;
    }
    floe_sql_clause *c = &pp->clauses[pp->n_clauses++];
    c->kind = kind;
    c->location = location;
    c->text = text;
    c->is_string = is_string;
    return NULL;
}

/* Index of the ')' matching the '(' at token i, or -1. */
static int32_t matching_paren(const prepass *pp, int32_t i) {
    int depth = 0;
    for (int32_t k = i; k < pp->n; k++) {
        if (tok_is_char(pp, k, '(')) depth++;
        else if (tok_is_char(pp, k, ')') && --depth == 0) return k;
    }
    return -1;
}

/* PARTITIONED BY ( ... ) at token i. */
static floe_status cut_partitioned_by(prepass *pp, int32_t i, int32_t *next) {
    int32_t close = matching_paren(pp, i + 2);
    if (close < 0) return floe_sql_error_at(pp->sql, pp->toks[i].start, FLOE_ERR_SYNTAX,
                                            "PARTITIONED BY: missing ')'");
    int32_t in_from = pp->toks[i + 2].end, in_to = pp->toks[close].start;
    FLOE_TRY(add_clause(pp, FLOE_SQL_PARTITIONED_BY, pp->toks[i].start,
                        floe_strndup(pp->sql + in_from, (size_t)(in_to - in_from)), false));
    blank(pp, pp->toks[i].start, pp->toks[close].end);
    *next = close + 1;
    return NULL;
}

/* FOR SYSTEM_VERSION|VERSION|SYSTEM_TIME|TIMESTAMP AS OF <value> at token i
 * (the FOR).  The table name ends at token i-1. */
static floe_status cut_as_of(prepass *pp, int32_t i, int32_t *next) {
    bool version = tok_is(pp, i + 1, "system_version") || tok_is(pp, i + 1, "version");
    int32_t v = i + 4;
    bool is_string = false;
    char *text = NULL;
    /* A typed literal: TIMESTAMP, TIMESTAMPTZ or TIMESTAMP WITH TIME ZONE
     * '...'.  The text is read as a timestamptz either way (an offset in
     * it is honoured, else it is UTC, the session zone). */
    if (!version && tok_is(pp, v, "timestamp") && tok_is(pp, v + 1, "with") && tok_is(pp, v + 2, "time") &&
        tok_is(pp, v + 3, "zone") && v + 4 < pp->n && pp->toks[v + 4].kind == TOK_SCONST)
        v += 4;
    else if (!version && (tok_is(pp, v, "timestamp") || tok_is(pp, v, "timestamptz")) && v + 1 < pp->n &&
             pp->toks[v + 1].kind == TOK_SCONST)
        v++;
    if (v >= pp->n) return floe_sql_error_at(pp->sql, pp->toks[i].start, FLOE_ERR_SYNTAX,
                                             "AS OF: a value is missing");
    int32_t last = v;
    const token *t = &pp->toks[v];
    if (t->kind == TOK_SCONST || t->kind == TOK_USCONST) {
        is_string = true;
        text = string_content(pp, t);
    } else if (t->kind == TOK_ICONST || t->kind == TOK_FCONST) {
        text = floe_strndup(pp->sql + t->start, (size_t)(t->end - t->start));
    } else if (tok_is_char(pp, v, '-') && v + 1 < pp->n && pp->toks[v + 1].kind == TOK_ICONST) {
        last = v + 1;
        text = floe_strndup(pp->sql + t->start, (size_t)(pp->toks[v + 1].end - t->start));
    } else if (version && t->kind == TOK_IDENT) {
        /* FOR VERSION AS OF branch_name */
        is_string = true;
        text = floe_strndup(pp->sql + t->start, (size_t)(t->end - t->start));
    } else {
        return floe_sql_error_at(pp->sql, t->start, FLOE_ERR_SYNTAX,
                                 "AS OF needs a number or a string literal");
    }
    /* The table name: ident (. ident)* ending at token i-1, or a table
     * function call name(...) ending there. */
    int32_t name = i - 1;
    if (tok_is_char(pp, name, ')')) {
        int depth = 0;
        for (; name >= 0; name--) {
            if (tok_is_char(pp, name, ')')) depth++;
            else if (tok_is_char(pp, name, '(') && --depth == 0) break;
        }
        name = name > 0 ? name - 1 : 0;
    }
    while (name >= 2 && tok_is_char(pp, name - 1, '.')) name -= 2;
    FLOE_TRY(add_clause(pp, version ? FLOE_SQL_AS_OF_VERSION : FLOE_SQL_AS_OF_TIME, pp->toks[name].start, text,
                        is_string));
    blank(pp, pp->toks[i].start, pp->toks[last].end);
    *next = last + 1;
    return NULL;
}

/* Inside WITH ( ... ), SET ( ... ), RESET ( ... ) starting at the '('
 * token i: string literals used as keys become quoted identifiers. */
static floe_status quote_property_keys(prepass *pp, int32_t i, int32_t *next) {
    int32_t close = matching_paren(pp, i);
    if (close < 0) {
        *next = i + 1;
        return NULL;
    }
    int depth = 0;
    for (int32_t k = i; k < close; k++) {
        if (tok_is_char(pp, k, '(')) depth++;
        else if (tok_is_char(pp, k, ')')) depth--;
        const token *t = &pp->toks[k];
        if (depth != 1 || t->kind != TOK_SCONST) continue;
        /* A key: first in the list or after ',', and followed by '=' , ','
         * or ')' (RESET lists keys alone). */
        if (!(tok_is_char(pp, k - 1, '(') || tok_is_char(pp, k - 1, ','))) continue;
        if (!(tok_is_char(pp, k + 1, '=') || tok_is_char(pp, k + 1, ',') || tok_is_char(pp, k + 1, ')'))) continue;
        if (pp->sql[t->start] != '\'' || pp->sql[t->end - 1] != '\'') continue;
        /* A key with a double quote or '' cannot become a quoted name. */
        if (memchr(pp->sql + t->start, '"', (size_t)(t->end - t->start))) continue;
        bool doubled = false;
        for (int32_t c = t->start + 1; c < t->end - 1; c++)
            if (pp->sql[c] == '\'') doubled = true;
        if (doubled || t->end - t->start < 3) continue;
        FLOE_TRY(add_clause(pp, FLOE_SQL_PROPERTY_KEY, t->start, string_content(pp, t), true));
        pp->text[t->start] = '"';
        pp->text[t->end - 1] = '"';
    }
    *next = close + 1;
    return NULL;
}

/* INSERT OVERWRITE [TABLE] t (Spark) at token i (the INSERT): parsed as
 * INSERT INTO t, the overwrite recorded as a clause; INSERT INTO TABLE t
 * (also Spark's) loses the TABLE. */
static floe_status cut_insert_spark(prepass *pp, int32_t i, int32_t *next) {
    int32_t k = i + 1;
    if (tok_is(pp, k, "overwrite")) {
        FLOE_TRY(add_clause(pp, FLOE_SQL_INSERT_OVERWRITE, pp->toks[i].start, floe_strdup("overwrite"), false));
        const token *t = &pp->toks[k];
        blank(pp, t->start, t->end);
        memcpy(pp->text + t->start, "into", 4);
    }
    if (tok_is(pp, k + 1, "table") && k + 2 < pp->n && !tok_is_char(pp, k + 2, '(') &&
        !tok_is_char(pp, k + 2, ';')) {
        blank(pp, pp->toks[k + 1].start, pp->toks[k + 1].end);
        k++;
    }
    *next = k + 1;
    return NULL;
}

/* True when token i starts a statement (first token, or after ';'). */
static bool starts_statement(const prepass *pp, int32_t i) {
    return i == 0 || tok_is_char(pp, i - 1, ';');
}

/* DROP TABLE ... PURGE at token i (the DROP): PostgreSQL has no PURGE, so
 * a final PURGE after a table name is cut (ddl.c reads it back from the
 * statement's own text).  A table called purge stays a name: the word is
 * only cut where a name ends before it. */
static int32_t cut_drop_purge(prepass *pp, int32_t i) {
    int32_t end = i;
    while (end < pp->n && !tok_is_char(pp, end, ';')) end++;
    int32_t last = end - 1;
    if (last > i + 2 && tok_is(pp, last, "purge") && !tok_is(pp, last - 1, "table") &&
        !tok_is(pp, last - 1, "exists") && !tok_is_char(pp, last - 1, ',') && !tok_is_char(pp, last - 1, '.'))
        blank(pp, pp->toks[last].start, pp->toks[last].end);
    return end;
}

/* Is token i a word that can be (part of) a table name? */
static bool is_name_token(const prepass *pp, int32_t i) {
    if (i < 0 || i >= pp->n) return false;
    const token *t = &pp->toks[i];
    if (t->kind == TOK_SCONST || t->kind == TOK_USCONST || t->kind == TOK_ICONST || t->kind == TOK_FCONST) return false;
    char c = pp->sql[t->start];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '"' || (unsigned char)c >= 0x80;
    if (!letter) return false;
    return true;
}

/* ALTER TABLE name EXECUTE proc [(args)] at token i (the ALTER): Trino's
 * table procedures become CALL proc(args) with the table recorded (see
 * FLOE_SQL_TABLE_EXECUTE).  *next stays i + 1 when it is not that form. */
static floe_status cut_table_execute(prepass *pp, int32_t i, int32_t *next) {
    int32_t k = i + 2;
    if (!is_name_token(pp, k)) return NULL;
    while (tok_is_char(pp, k + 1, '.') && is_name_token(pp, k + 2)) k += 2;
    if (!tok_is(pp, k + 1, "execute") || !is_name_token(pp, k + 2)) return NULL;
    const token *name = &pp->toks[i + 2], *last = &pp->toks[k], *proc = &pp->toks[k + 2];
    FLOE_TRY(add_clause(pp, FLOE_SQL_TABLE_EXECUTE, pp->toks[i].start,
                        floe_strndup(pp->sql + name->start, (size_t)(last->end - name->start)), false));
    bool parens = tok_is_char(pp, k + 3, '(');
    int32_t plen = proc->end - proc->start;
    char *buf = floe_malloc((size_t)plen + 8);
    if (!buf) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "parsing ALTER TABLE ... EXECUTE");
    snprintf(buf, (size_t)plen + 8, "CALL %.*s%s", (int)plen, pp->sql + proc->start, parens ? "" : "()");
    blank(pp, pp->toks[i].start, proc->end);
    memcpy(pp->text + pp->toks[i].start, buf, strlen(buf)); /* shorter than what it replaces */
    floe_free(buf);
    *next = k + 3;
    return NULL;
}

/* ALTER TABLE name SET TBLPROPERTIES ('k' = 'v', ...) and UNSET
 * TBLPROPERTIES [IF EXISTS] ('k', ...) at token i (the ALTER): Spark's
 * forms become PostgreSQL's SET ("k" = 'v') / RESET ("k"), which ddl.c
 * already applies to the table's properties.  Every edit keeps the
 * length (quotes swapped in place, words blanked), so error positions
 * still point into the user's text; keys are quoted as WITH (...)'s are. */
static floe_status cut_tblproperties(prepass *pp, int32_t i, int32_t *next) {
    int32_t k = i + 2;
    if (tok_is(pp, k, "if") && tok_is(pp, k + 1, "exists")) k += 2;
    if (!is_name_token(pp, k)) return NULL;
    while (tok_is_char(pp, k + 1, '.') && is_name_token(pp, k + 2)) k += 2;
    int32_t kw = k + 1;
    bool set = tok_is(pp, kw, "set"), unset = tok_is(pp, kw, "unset");
    if ((!set && !unset) || !tok_is(pp, kw + 1, "tblproperties")) return NULL;
    const token *w = &pp->toks[kw + 1];
    blank(pp, w->start, w->end);
    if (unset) memcpy(pp->text + pp->toks[kw].start, "RESET", 5);
    int32_t open = kw + 2;
    if (unset && tok_is(pp, open, "if") && tok_is(pp, open + 1, "exists")) {
        blank(pp, pp->toks[open].start, pp->toks[open + 1].end);
        open += 2;
    }
    if (!tok_is_char(pp, open, '('))
        return floe_sql_error_at(pp->sql, open < pp->n ? pp->toks[open].start : w->end, FLOE_ERR_SYNTAX,
                                 "%s TBLPROPERTIES needs a parenthesized list", set ? "SET" : "UNSET");
    return quote_property_keys(pp, open, next);
}

/* ALTER TABLE [IF EXISTS] name <evolution> at token i (the ALTER), where
 * <evolution> is one of Iceberg's Spark SQL extensions for partition spec
 * and write order changes, which PostgreSQL's grammar cannot parse.  The
 * extension's text (from its first word to the statement's end) becomes a
 * clause for ddl.c, and the text parsed becomes ALTER TABLE name RESET(x)
 * so the table name still comes from the parser.  Any other ALTER TABLE
 * is left alone (*next = i + 1). */
static floe_status cut_table_evolution(prepass *pp, int32_t i, int32_t *next) {
    *next = i + 1;
    int32_t k = i + 2;
    if (tok_is(pp, k, "if") && tok_is(pp, k + 1, "exists")) k += 2;
    if (!is_name_token(pp, k)) return NULL;
    while (tok_is_char(pp, k + 1, '.') && is_name_token(pp, k + 2)) k += 2;
    int32_t kw = k + 1;
    bool spec_change = (tok_is(pp, kw, "add") || tok_is(pp, kw, "drop") || tok_is(pp, kw, "replace") ||
                        tok_is(pp, kw, "rename")) &&
                       tok_is(pp, kw + 1, "partition") && tok_is(pp, kw + 2, "field");
    bool write_order = tok_is(pp, kw, "write") &&
                       (tok_is(pp, kw + 1, "ordered") || tok_is(pp, kw + 1, "locally") ||
                        tok_is(pp, kw + 1, "unordered") || tok_is(pp, kw + 1, "distributed"));
    /* Branches and tags: [CREATE [OR REPLACE] | REPLACE] BRANCH|TAG ...,
     * DROP BRANCH|TAG [IF EXISTS] name — DROP only with a name after it,
     * so ALTER TABLE t DROP tag still drops a column called tag. */
    int32_t rk = kw + 1;
    if (tok_is(pp, kw, "create") && tok_is(pp, rk, "or") && tok_is(pp, rk + 1, "replace")) rk += 2;
    bool ref_word = tok_is(pp, rk, "branch") || tok_is(pp, rk, "tag");
    bool ref_ddl = ref_word && (tok_is(pp, kw, "create") || tok_is(pp, kw, "replace") ||
                                (tok_is(pp, kw, "drop") && rk + 1 < pp->n &&
                                 (is_name_token(pp, rk + 1) || pp->sql[pp->toks[rk + 1].start] == '`')));
    if (!spec_change && !write_order && !ref_ddl) return NULL;
    int32_t end = kw;
    while (end < pp->n && !tok_is_char(pp, end, ';')) end++;
    int32_t from = pp->toks[kw].start, to = pp->toks[end - 1].end;
    FLOE_TRY(add_clause(pp, ref_ddl ? FLOE_SQL_REF_DDL : FLOE_SQL_TABLE_EVOLUTION, from, floe_strndup(pp->sql + from, (size_t)(to - from)), false));
    blank(pp, from, to);
    /* Every recognised form is longer than the stand-in (>= 15 bytes). */
    static const char stand_in[] = "RESET(x)";
    if ((size_t)(to - from) < sizeof stand_in - 1)
        return floe_sql_error_at(pp->sql, from, FLOE_ERR_SYNTAX, "ALTER TABLE: incomplete statement");
    memcpy(pp->text + from, stand_in, sizeof stand_in - 1);
    *next = end;
    return NULL;
}

/* ALTER VIEW [IF EXISTS] name AS query at token i (the ALTER): PostgreSQL
 * has no ALTER VIEW ... AS, so "AS query" is cut (FLOE_SQL_VIEW_AS, at the
 * AS) and the statement parses as ALTER VIEW name RESET(x); ddl_view.c
 * takes the query from the statement's own text. */
static floe_status cut_view_as(prepass *pp, int32_t i, int32_t *next) {
    *next = i + 1;
    int32_t k = i + 2;
    if (tok_is(pp, k, "if") && tok_is(pp, k + 1, "exists")) k += 2;
    if (!is_name_token(pp, k)) return NULL;
    while (tok_is_char(pp, k + 1, '.') && is_name_token(pp, k + 2)) k += 2;
    int32_t kw = k + 1;
    if (!tok_is(pp, kw, "as")) return NULL;
    int32_t end = kw;
    while (end < pp->n && !tok_is_char(pp, end, ';')) end++;
    int32_t from = pp->toks[kw].start, to = pp->toks[end - 1].end;
    static const char stand_in[] = "RESET(x)";
    if ((size_t)(to - from) < sizeof stand_in - 1)
        return floe_sql_error_at(pp->sql, from, FLOE_ERR_SYNTAX, "ALTER VIEW ... AS: the query is missing");
    FLOE_TRY(add_clause(pp, FLOE_SQL_VIEW_AS, from, floe_strdup("as"), false));
    blank(pp, from, to);
    memcpy(pp->text + from, stand_in, sizeof stand_in - 1);
    *next = end;
    return NULL;
}

/* WHEN [NOT] MATCHED [BY SOURCE | BY TARGET] at token i (the WHEN) of a
 * MERGE: recorded, and BY SOURCE / BY TARGET made PostgreSQL 15 syntax. */
static floe_status cut_merge_when(prepass *pp, int32_t i, int32_t *next) {
    bool not = tok_is(pp, i + 1, "not");
    int32_t m = not ? i + 2 : i + 1;
    bool by = tok_is(pp, m + 1, "by") && (tok_is(pp, m + 2, "source") || tok_is(pp, m + 2, "target"));
    bool source = by && tok_is(pp, m + 2, "source");
    if (by && !not)
        return floe_sql_error_at(pp->sql, pp->toks[m + 1].start, FLOE_ERR_SYNTAX,
                                 "MERGE: BY SOURCE / BY TARGET only follow NOT MATCHED");
    FLOE_TRY(add_clause(pp, FLOE_SQL_MERGE_WHEN, pp->toks[i].start,
                        floe_strdup(!not ? "matched" : source ? "not matched by source" : "not matched"), false));
    if (by) blank(pp, pp->toks[m + 1].start, pp->toks[m + 2].end);
    if (source) blank(pp, pp->toks[i + 1].start, pp->toks[i + 1].end); /* NOT MATCHED BY SOURCE -> MATCHED */
    *next = by ? m + 3 : m + 1;
    return NULL;
}

static floe_status cut_null_treatment(prepass *pp, int32_t i, int32_t *next);

/* QUALIFY <condition> at token i (the QUALIFY), DuckDB's filter on window
 * results: cut out and recorded (see parse.h).  The condition ends at
 * what may follow it at its level: ORDER BY, LIMIT, OFFSET, FETCH, WINDOW,
 * a set operation, FOR, ')' or ';'. */
static floe_status cut_qualify(prepass *pp, int32_t i, int32_t *next) {
    int depth = 0;
    int32_t sel = -1;
    for (int32_t k = i - 1; k >= 0; k--) {
        if (tok_is_char(pp, k, ')')) depth++;
        else if (tok_is_char(pp, k, '(')) {
            if (depth == 0) break;
            depth--;
        } else if (depth == 0 && tok_is(pp, k, "select")) {
            sel = k;
            break;
        }
    }
    if (sel < 0) return floe_sql_error_at(pp->sql, pp->toks[i].start, FLOE_ERR_SYNTAX, "QUALIFY outside a SELECT");
    int32_t first = sel + 1;
    if (tok_is(pp, first, "all")) first++;
    else if (tok_is(pp, first, "distinct")) {
        first++;
        if (tok_is(pp, first, "on") && tok_is_char(pp, first + 1, '(')) {
            int32_t close = matching_paren(pp, first + 1);
            first = close < 0 ? first : close + 1;
        }
    }
    int32_t e = i + 1;
    static const char *const stops[] = {"order", "limit", "offset", "fetch", "window", "union", "intersect", "except", "for"};
    for (depth = 0; e < pp->n; e++) {
        if (tok_is_char(pp, e, '(')) depth++;
        else if (tok_is_char(pp, e, ')')) {
            if (depth == 0) break;
            depth--;
        } else if (depth == 0) {
            bool stop = tok_is_char(pp, e, ';');
            for (size_t k = 0; !stop && k < sizeof stops / sizeof stops[0]; k++) stop = tok_is(pp, e, stops[k]);
            if (stop) break;
        }
    }
    if (e == i + 1 || first >= pp->n)
        return floe_sql_error_at(pp->sql, pp->toks[i].start, FLOE_ERR_SYNTAX, "QUALIFY: a condition must follow");
    int32_t from = pp->toks[i + 1].start, to = pp->toks[e - 1].end;
    /* IGNORE NULLS inside the condition: cut here, as the main loop
     * skips the condition's tokens, and the text copied after the cut */
    for (int32_t k = i + 1; k < e; k++)
        if ((tok_is(pp, k, "ignore") || tok_is(pp, k, "respect")) && tok_is(pp, k + 1, "nulls")) {
            int32_t nx;
            FLOE_TRY(cut_null_treatment(pp, k, &nx));
        }
    char *text = floe_malloc((size_t)to + 1);
    if (text) {
        memset(text, ' ', (size_t)to);
        memcpy(text, "SELECT", 6);
        memcpy(text + from, pp->text + from, (size_t)(to - from));
        text[to] = 0;
    }
    FLOE_TRY(add_clause(pp, FLOE_SQL_QUALIFY, pp->toks[first].start, text, false));
    blank(pp, pp->toks[i].start, to);
    *next = e;
    return NULL;
}

/* IGNORE NULLS / RESPECT NULLS at token i (the IGNORE or RESPECT), either
 * last inside a call's parentheses (DuckDB: lag(x, 1 IGNORE NULLS)) or
 * right after them before OVER (Spark: lag(x) IGNORE NULLS OVER w):
 * blanked and recorded at the call's name (see parse.h).  Anything else
 * (a column named ignore, ORDER BY x NULLS FIRST) is left alone. */
static floe_status cut_null_treatment(prepass *pp, int32_t i, int32_t *next) {
    *next = i + 1;
    int32_t close; /* the ')' of the call */
    if (tok_is_char(pp, i + 2, ')')) close = i + 2;
    else if (tok_is(pp, i + 2, "over") && tok_is_char(pp, i - 1, ')')) close = i - 1;
    else return NULL;
    int depth = 0;
    int32_t open = -1;
    for (int32_t k = close; k >= 0; k--) {
        if (tok_is_char(pp, k, ')')) depth++;
        else if (tok_is_char(pp, k, '(') && --depth == 0) {
            open = k;
            break;
        }
    }
    if (open < 1 || !is_name_token(pp, open - 1)) return NULL;
    if (close == i + 2 && open == i - 1)
        return floe_sql_error_at(pp->sql, pp->toks[i].start, FLOE_ERR_SYNTAX, "%s NULLS needs an argument before it",
                                 tok_is(pp, i, "ignore") ? "IGNORE" : "RESPECT");
    int32_t name = open - 1;
    while (name >= 2 && tok_is_char(pp, name - 1, '.') && is_name_token(pp, name - 2)) name -= 2;
    FLOE_TRY(add_clause(pp, FLOE_SQL_NULL_TREATMENT, pp->toks[name].start,
                        floe_strdup(tok_is(pp, i, "ignore") ? "ignore" : "respect"), false));
    blank(pp, pp->toks[i].start, pp->toks[i + 1].end);
    *next = i + 2;
    return NULL;
}

/* A keyword used as a CALL argument name at token i (Spark's `table`,
 * `to`): recorded, then overwritten by its first letter and underscores
 * ("t____", "t_"), a name no keyword spells. */
static floe_status cut_call_arg_name(prepass *pp, int32_t i) {
    const token *t = &pp->toks[i];
    int32_t len = t->end - t->start;
    for (int32_t k = 0; k < len; k++) {
        char c = pp->sql[t->start + k];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) return NULL; /* not a word */
    }
    if (len < 2) return NULL;
    FLOE_TRY(add_clause(pp, FLOE_SQL_CALL_ARG_NAME, t->start,
                        floe_str_lower_dup(floe_str_make(pp->sql + t->start, (size_t)len)), false));
    for (int32_t k = 1; k < len; k++) pp->text[t->start + k] = '_';
    return NULL;
}

/* A Spark-style nested type (array<T>, map<K, V>, struct<...>) at token
 * i, in a place a type goes: after '::', after AS (CAST), after ADD COLUMN
 * c / ALTER COLUMN c TYPE, or after a column name that follows '(' or ','
 * (a column definition).  libpg_query cannot parse it, so the whole type
 * is blanked and the placeholder type name FLOE_PG_NESTED_TYPE_NAME left
 * at its start; the binder reads the type from the original text there
 * (type_text.c).  Returns the next token, or i + 1 when nothing was cut. */
static int32_t cut_nested_type(prepass *pp, int32_t i) {
    const token *t = &pp->toks[i];
    if (i + 1 >= pp->n || pp->sql[pp->toks[i + 1].start] != '<' || i == 0) return i + 1;
    bool type_place = tok_is(pp, i - 1, "::") || tok_is(pp, i - 1, "as") || tok_is(pp, i - 1, "type") ||
                      (is_name_token(pp, i - 1) && i >= 2 &&
                       (tok_is_char(pp, i - 2, '(') || tok_is_char(pp, i - 2, ',') || tok_is(pp, i - 2, "column")));
    if (!type_place) return i + 1;
    int32_t end = floe_pg_nested_type_end(pp->sql, t->start);
    if (end < 0) return i + 1;
    blank(pp, t->start, end);
    memcpy(pp->text + t->start, "\"" FLOE_PG_NESTED_TYPE_NAME "\"", strlen(FLOE_PG_NESTED_TYPE_NAME) + 2);
    int32_t k = i + 1;
    while (k < pp->n && pp->toks[k].start < end) k++;
    return k;
}

static floe_status run_prepass(prepass *pp) {
    int32_t i = 0;
    bool in_merge = false, in_call = false;
    while (i < pp->n) {
        int32_t next = i + 1;
        if (starts_statement(pp, i)) {
            in_merge = tok_is(pp, i, "merge");
            in_call = tok_is(pp, i, "call");
        }
        if ((tok_is(pp, i, "array") || tok_is(pp, i, "map") || tok_is(pp, i, "struct")) &&
            (next = cut_nested_type(pp, i)) != i + 1) {
            i = next;
            continue;
        }
        if (in_call && pp->toks[i].kind != TOK_IDENT && tok_is(pp, i + 1, "=>") &&
            (tok_is_char(pp, i - 1, '(') || tok_is_char(pp, i - 1, ','))) {
            /* CALL p(table => ..., to => ...): see FLOE_SQL_CALL_ARG_NAME. */
            FLOE_TRY(cut_call_arg_name(pp, i));
        } else if (in_call && tok_is(pp, i, "array") && tok_is_char(pp, i + 1, '(') && !tok_is(pp, i + 2, "select") &&
                   !tok_is(pp, i + 2, "values") && !tok_is(pp, i + 2, "with")) {
            /* Spark's array(1, 2) in a CALL: PostgreSQL's ARRAY[1, 2]. */
            int32_t close = matching_paren(pp, i + 1);
            if (close > 0) {
                pp->text[pp->toks[i + 1].start] = '[';
                pp->text[pp->toks[close].start] = ']';
            }
            next = i + 2;
        } else if (in_merge && tok_is(pp, i, "when") &&
            (tok_is(pp, i + 1, "matched") || (tok_is(pp, i + 1, "not") && tok_is(pp, i + 2, "matched")))) {
            FLOE_TRY(cut_merge_when(pp, i, &next));
        } else if (tok_is(pp, i, "qualify") && i > 0 && !tok_is(pp, i - 1, "as") && !tok_is(pp, i - 1, "select") &&
                   !tok_is_char(pp, i - 1, '.') && !tok_is_char(pp, i - 1, ',') &&
                   i + 1 < pp->n && !tok_is_char(pp, i + 1, ',') && !tok_is_char(pp, i + 1, ')') &&
                   !tok_is_char(pp, i + 1, ';') && !tok_is_char(pp, i + 1, '.')) {
            FLOE_TRY(cut_qualify(pp, i, &next));
        } else if ((tok_is(pp, i, "ignore") || tok_is(pp, i, "respect")) && tok_is(pp, i + 1, "nulls") && i > 0) {
            FLOE_TRY(cut_null_treatment(pp, i, &next));
        } else if (tok_is(pp, i, "partitioned") && tok_is(pp, i + 1, "by") && tok_is_char(pp, i + 2, '(')) {
            FLOE_TRY(cut_partitioned_by(pp, i, &next));
        } else if (tok_is(pp, i, "for") && i > 0 && tok_is(pp, i + 2, "as") && tok_is(pp, i + 3, "of") &&
                   (tok_is(pp, i + 1, "system_version") || tok_is(pp, i + 1, "version") ||
                    tok_is(pp, i + 1, "system_time") || tok_is(pp, i + 1, "timestamp"))) {
            FLOE_TRY(cut_as_of(pp, i, &next));
        } else if ((tok_is(pp, i, "with") || tok_is(pp, i, "set") || tok_is(pp, i, "reset")) &&
                   tok_is_char(pp, i + 1, '(')) {
            FLOE_TRY(quote_property_keys(pp, i + 1, &next));
        } else if (tok_is(pp, i, "insert") && (tok_is(pp, i + 1, "overwrite") || tok_is(pp, i + 1, "into"))) {
            FLOE_TRY(cut_insert_spark(pp, i, &next));
        } else if (starts_statement(pp, i) && tok_is(pp, i, "alter") && tok_is(pp, i + 1, "table")) {
            FLOE_TRY(cut_table_execute(pp, i, &next));
            if (next == i + 1) FLOE_TRY(cut_table_evolution(pp, i, &next));
            if (next == i + 1) FLOE_TRY(cut_tblproperties(pp, i, &next));
        } else if (starts_statement(pp, i) && tok_is(pp, i, "alter") && tok_is(pp, i + 1, "view")) {
            FLOE_TRY(cut_view_as(pp, i, &next));
        } else if (starts_statement(pp, i) && tok_is(pp, i, "drop") && tok_is(pp, i + 1, "table")) {
            next = cut_drop_purge(pp, i);
        } else if (starts_statement(pp, i) && tok_is(pp, i, "describe") && i + 1 < pp->n &&
                   !tok_is_char(pp, i + 1, ';')) {
            FLOE_TRY(add_clause(pp, FLOE_SQL_DESCRIBE, pp->toks[i].start, floe_strdup("describe"), false));
            memcpy(pp->text + pp->toks[i].start, "TABLE   ", 8);
        } else if (starts_statement(pp, i) && tok_is(pp, i, "show") &&
                   (tok_is(pp, i + 1, "tables") || tok_is(pp, i + 1, "views")) &&
                   (tok_is(pp, i + 2, "from") || tok_is(pp, i + 2, "in")) && i + 3 < pp->n) {
            const token *t = &pp->toks[i + 3];
            char *ns;
            if (t->kind == TOK_IDENT && pp->sql[t->start] == '"')
                ns = floe_strndup(pp->sql + t->start + 1, (size_t)(t->end - t->start - 2));
            else
                ns = floe_str_lower_dup(floe_str_make(pp->sql + t->start, (size_t)(t->end - t->start)));
            FLOE_TRY(add_clause(pp, FLOE_SQL_SHOW_FROM, pp->toks[i].start, ns, false));
            blank(pp, pp->toks[i + 2].start, t->end);
            next = i + 4;
        }
        i = next;
    }
    return NULL;
}

/* --------------------------------------------------------------- errors */

void floe_sql_line_col(const char *sql, int32_t location, int32_t *line, int32_t *col) {
    int32_t l = 1, c = 1;
    for (int32_t k = 0; k < location && sql[k]; k++) {
        if (sql[k] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)sql[k] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

floe_status floe_sql_error_at(const char *sql, int32_t location, floe_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_status st = floe_errorv(code, fmt, ap);
    va_end(ap);
    if (location < 0 || !sql) return st;
    int32_t line, col;
    floe_sql_line_col(sql, location, &line, &col);
    return floe_status_wrap(st, "line %d, column %d", (int)line, (int)col);
}

/* ---------------------------------------------------------------- parse */

void floe_sql_script_free(floe_sql_script *s) {
    if (!s) return;
    for (int32_t i = 0; i < s->n_stmts; i++) {
        floe_sql_stmt *st = &s->stmts[i];
        floe_free(st->text);
        for (int32_t k = 0; k < st->n_clauses; k++) floe_free(st->clauses[k].text);
        floe_free(st->clauses);
    }
    floe_free(s->stmts);
    if (s->root) json_decref(s->root);
    floe_free(s->sql);
    floe_free(s);
}

const floe_sql_clause *floe_sql_stmt_clause(const floe_sql_stmt *st, floe_sql_clause_kind kind,
                                            int32_t location) {
    for (int32_t i = 0; i < st->n_clauses; i++) {
        const floe_sql_clause *c = &st->clauses[i];
        if (c->kind == kind && (location < 0 || c->location == location)) return c;
    }
    return NULL;
}

/* Hand each pre-pass clause to the statement whose span holds it. */
static floe_status distribute_clauses(floe_sql_script *s, prepass *pp) {
    for (int32_t k = 0; k < pp->n_clauses; k++) {
        floe_sql_clause *c = &pp->clauses[k];
        floe_sql_stmt *owner = NULL;
        for (int32_t i = 0; i < s->n_stmts; i++) {
            floe_sql_stmt *st = &s->stmts[i];
            if (c->location >= st->location && c->location <= st->location + st->length) owner = st;
        }
        if (!owner) continue; /* cannot happen; freed below with the rest */
        floe_sql_clause *nc = floe_realloc(owner->clauses, (size_t)(owner->n_clauses + 1) * sizeof(*nc));
        if (!nc) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "parsing SQL: out of memory");
        owner->clauses = nc;
        nc[owner->n_clauses++] = *c;
        if (c->kind == FLOE_SQL_DESCRIBE) owner->describe = true;
        c->text = NULL; /* moved */
    }
    return NULL;
}

static void prepass_free(prepass *pp) {
    for (int32_t k = 0; k < pp->n_clauses; k++) floe_free(pp->clauses[k].text);
    floe_free(pp->clauses);
    floe_free(pp->toks);
    floe_free(pp->text);
}

static floe_status parse_text(floe_sql_script *s, prepass *pp) {
    PgQueryParseResult r = pg_query_parse(pp->text);
    if (r.error) {
        int32_t loc = r.error->cursorpos > 0 ? r.error->cursorpos - 1 : 0;
        floe_status st = floe_sql_error_at(s->sql, loc, FLOE_ERR_SYNTAX, "%s",
                                           r.error->message ? r.error->message : "syntax error");
        pg_query_free_parse_result(r);
        return st;
    }
    json_error_t jerr;
    s->root = json_loads(r.parse_tree, 0, &jerr);
    pg_query_free_parse_result(r);
    if (!s->root) return floe_error(FLOE_ERR_INTERNAL, "parsing SQL: unreadable parse tree: %s", jerr.text);
    json_t *stmts = json_object_get(s->root, "stmts");
    int32_t n = json_is_array(stmts) ? (int32_t)json_array_size(stmts) : 0;
    if (n == 0) return NULL;
    s->stmts = floe_calloc((size_t)n, sizeof(floe_sql_stmt));
    if (!s->stmts) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "parsing SQL: out of memory");
    int32_t total = (int32_t)strlen(s->sql);
    for (int32_t i = 0; i < n; i++) {
        json_t *raw = json_array_get(stmts, (size_t)i);
        floe_sql_stmt *st = &s->stmts[s->n_stmts++];
        st->node = json_object_get(raw, "stmt");
        json_t *jl = json_object_get(raw, "stmt_location"), *jn = json_object_get(raw, "stmt_len");
        int64_t loc = json_is_integer(jl) ? json_integer_value(jl) : 0;
        int64_t len = json_is_integer(jn) ? json_integer_value(jn) : 0;
        if (loc < 0 || loc > total) loc = total;
        if (len <= 0 || loc + len > total) len = total - loc;
        /* Leading whitespace and comments are part of PostgreSQL's span;
         * trim the whitespace so the text reads well in messages. */
        while (len > 0 && floe_ascii_isspace(s->sql[loc])) {
            loc++;
            len--;
        }
        st->location = (int32_t)loc;
        st->length = (int32_t)len;
        st->text = floe_strndup(s->sql + loc, (size_t)len);
        if (!st->text) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "parsing SQL: out of memory");
        const char *key = NULL;
        if (json_is_object(st->node) && json_object_size(st->node) == 1) {
            void *it = json_object_iter(st->node);
            key = json_object_iter_key(it);
        }
        if (!key) return floe_error(FLOE_ERR_INTERNAL, "parsing SQL: statement %d has no node", (int)i + 1);
        st->kind = key;
    }
    return NULL;
}

floe_status floe_sql_parse(const char *sql, floe_sql_script **out) {
    *out = NULL;
    if (!sql) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "parsing SQL: no text");
    floe_sql_script *s = floe_calloc(1, sizeof(*s));
    prepass pp;
    memset(&pp, 0, sizeof(pp));
    if (!s || !(s->sql = floe_strdup(sql)) || !(pp.text = floe_strdup(sql))) {
        floe_sql_script_free(s);
        floe_free(pp.text);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "parsing SQL: out of memory");
    }
    pp.sql = s->sql;
    floe_status st = scan_tokens(sql, &pp.toks, &pp.n);
    if (!st) st = run_prepass(&pp);
    if (!st) st = parse_text(s, &pp);
    if (!st) st = distribute_clauses(s, &pp);
    prepass_free(&pp);
    if (st) {
        floe_sql_script_free(s);
        return st;
    }
    *out = s;
    return NULL;
}

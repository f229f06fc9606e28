/*
 * type_text.c — nested SQL types written the Spark / Hive way:
 * array<T>, map<K, V>, struct<a: T, b T, ...>, nested freely, with
 * PostgreSQL's T[] suffix allowed at any level.
 *
 * libpg_query's grammar has no such syntax, so parse.c's pre-pass blanks
 * the whole type and leaves a placeholder type name ("<>", see pgnode.h)
 * at the same position; the binder then reads the type from the original
 * statement text here.  Primitive names go through floe_pg_type_to_floe,
 * so every spelling a plain column accepts works inside a nested type.
 */
#include "sql/pgnode.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "floe/memory.h"

typedef struct tparse {
    const char *sql; /* the statement text (locations index it) */
    const char *p;   /* cursor */
    int depth;
} tparse;

static void skip_space(tparse *tp) {
    while (*tp->p && isspace((unsigned char)*tp->p)) tp->p++;
}

static int32_t pos_of(const tparse *tp) { return (int32_t)(tp->p - tp->sql); }

static floe_status terr(const tparse *tp, const char *what) {
    return floe_error(FLOE_ERR_SYNTAX, "nested type: %s at offset %d (near \"%.12s\")", what, (int)pos_of(tp), tp->p);
}

static bool eat(tparse *tp, char c) {
    skip_space(tp);
    if (*tp->p != c) return false;
    tp->p++;
    return true;
}

/* A word (letters, digits, _), lowercased into buf; false when none. */
static bool word(tparse *tp, char *buf, size_t cap) {
    skip_space(tp);
    size_t n = 0;
    while ((isalnum((unsigned char)*tp->p) || *tp->p == '_') && n + 1 < cap) buf[n++] = floe_ascii_lower(*tp->p++);
    buf[n] = 0;
    return n > 0;
}

/* Does the next word equal w (case-insensitive)?  Consumes it if so. */
static bool eat_word(tparse *tp, const char *w) {
    skip_space(tp);
    size_t n = strlen(w);
    if (strncasecmp(tp->p, w, n) != 0 || isalnum((unsigned char)tp->p[n]) || tp->p[n] == '_') return false;
    tp->p += n;
    return true;
}

/* A struct field name: a word (lowercased, as SQL folds it) or a
 * "quoted" / `quoted` name kept as written. */
static floe_status field_name(tparse *tp, char *buf, size_t cap) {
    skip_space(tp);
    char q = *tp->p;
    if (q == '"' || q == '`') {
        size_t n = 0;
        tp->p++;
        for (;;) {
            if (!*tp->p) return terr(tp, "unterminated quoted field name");
            if (*tp->p == q) {
                if (tp->p[1] != q) break;
                tp->p++;
            }
            if (n + 1 >= cap) return terr(tp, "field name too long");
            buf[n++] = *tp->p++;
        }
        tp->p++;
        buf[n] = 0;
        if (n == 0) return terr(tp, "empty field name");
        return NULL;
    }
    if (!word(tp, buf, cap)) return terr(tp, "expected a field name");
    return NULL;
}

static floe_status parse_type(tparse *tp, floe_type **out);

/* T[] [] ...: each suffix wraps the type in a list (nullable elements). */
static floe_status array_suffixes(tparse *tp, floe_type **t) {
    for (;;) {
        skip_space(tp);
        if (*tp->p != '[') return NULL;
        tp->p++;
        skip_space(tp);
        while (isdigit((unsigned char)*tp->p)) tp->p++; /* int[3]: the bound is ignored, as PostgreSQL does */
        if (!eat(tp, ']')) return terr(tp, "expected ']'");
        floe_field el;
        floe_type *lt = NULL;
        floe_status st = floe_field_init(&el, "element", *t, true, -1);
        if (!st) st = floe_type_list(&el, &lt);
        floe_field_clear(&el);
        floe_type_release(*t);
        *t = lt;
        if (st) return st;
    }
}

static floe_status parse_primitive(tparse *tp, floe_type **out) {
    floe_pg_type_name tn;
    memset(&tn, 0, sizeof tn);
    skip_space(tp);
    tn.location = pos_of(tp);
    if (!word(tp, tn.name, sizeof tn.name)) return terr(tp, "expected a type name");
    /* The multi-word spellings PostgreSQL has. */
    if (!strcmp(tn.name, "double")) {
        (void)eat_word(tp, "precision");
    } else if (!strcmp(tn.name, "character") && eat_word(tp, "varying")) {
        snprintf(tn.name, sizeof tn.name, "varchar");
    } else if (!strcmp(tn.name, "timestamp") || !strcmp(tn.name, "time")) {
        const char *save = tp->p;
        bool with = eat_word(tp, "with");
        if ((with || eat_word(tp, "without")) && eat_word(tp, "time") && eat_word(tp, "zone")) {
            if (with && !strcmp(tn.name, "timestamp")) snprintf(tn.name, sizeof tn.name, "timestamptz");
        } else {
            tp->p = save;
        }
    }
    if (eat(tp, '(')) {
        do {
            skip_space(tp);
            char *end = NULL;
            long long v = strtoll(tp->p, &end, 10);
            if (end == tp->p || tn.n_mods == 4) return terr(tp, "type modifiers must be integers");
            tp->p = end;
            tn.mods[tn.n_mods++] = v;
        } while (eat(tp, ','));
        if (!eat(tp, ')')) return terr(tp, "expected ')'");
    }
    return floe_pg_type_to_floe(&tn, tp->sql, out);
}

static floe_status parse_struct(tparse *tp, floe_type **out) {
    enum { MAX_FIELDS = 1024 };
    floe_field *fields = floe_calloc(MAX_FIELDS, sizeof *fields);
    if (!fields) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "nested type: out of memory");
    int32_t n = 0;
    floe_status st = NULL;
    do {
        char name[256];
        floe_type *ft = NULL;
        if (n == MAX_FIELDS) { st = terr(tp, "too many struct fields"); break; }
        if ((st = field_name(tp, name, sizeof name))) break;
        for (int32_t i = 0; i < n; i++)
            if (!strcmp(fields[i].name, name)) {
                st = floe_error(FLOE_ERR_SYNTAX, "nested type: struct field '%s' appears twice", name);
                break;
            }
        if (st) break;
        (void)eat(tp, ':');
        if ((st = parse_type(tp, &ft))) break;
        bool nullable = true;
        if (eat_word(tp, "not")) {
            if (!eat_word(tp, "null")) { floe_type_release(ft); st = terr(tp, "expected NOT NULL"); break; }
            nullable = false;
        }
        st = floe_field_init(&fields[n], name, ft, nullable, -1);
        floe_type_release(ft);
        if (st) break;
        n++;
    } while (eat(tp, ','));
    if (!st && !eat(tp, '>')) st = terr(tp, "expected ',' or '>' in struct<...>");
    if (!st) st = floe_type_struct(fields, n, out);
    for (int32_t i = 0; i < n; i++) floe_field_clear(&fields[i]);
    floe_free(fields);
    return st;
}

static floe_status parse_type(tparse *tp, floe_type **out) {
    *out = NULL;
    if (++tp->depth > 64) return terr(tp, "types nested too deeply");
    floe_status st = NULL;
    skip_space(tp);
    const char *save = tp->p;
    bool is_array = eat_word(tp, "array") || eat_word(tp, "list");
    bool is_map = !is_array && eat_word(tp, "map");
    bool is_struct = !is_array && !is_map && (eat_word(tp, "struct") || eat_word(tp, "row"));
    if ((is_array || is_map || is_struct) && !eat(tp, '<')) {
        tp->p = save; /* a primitive named like that: parse_primitive says so */
        is_array = is_map = is_struct = false;
    }
    if (is_array) {
        floe_type *el = NULL;
        st = parse_type(tp, &el);
        if (!st && !eat(tp, '>')) st = terr(tp, "expected '>' after array<element");
        floe_field f;
        if (!st && !(st = floe_field_init(&f, "element", el, true, -1))) {
            st = floe_type_list(&f, out);
            floe_field_clear(&f);
        }
        floe_type_release(el);
    } else if (is_map) {
        floe_type *k = NULL, *v = NULL;
        st = parse_type(tp, &k);
        if (!st && !eat(tp, ',')) st = terr(tp, "expected ',' in map<key, value>");
        if (!st) st = parse_type(tp, &v);
        if (!st && !eat(tp, '>')) st = terr(tp, "expected '>' after map<key, value");
        if (!st && floe_type_is_nested(k))
            st = floe_error(FLOE_ERR_UNSUPPORTED, "nested type: map keys must be a primitive type");
        floe_field kf, vf;
        memset(&kf, 0, sizeof kf);
        memset(&vf, 0, sizeof vf);
        if (!st) st = floe_field_init(&kf, "key", k, false, -1);
        if (!st) st = floe_field_init(&vf, "value", v, true, -1);
        if (!st) st = floe_type_map(&kf, &vf, false, out);
        floe_field_clear(&kf);
        floe_field_clear(&vf);
        floe_type_release(k);
        floe_type_release(v);
    } else if (is_struct) {
        st = parse_struct(tp, out);
    } else {
        st = parse_primitive(tp, out);
    }
    if (!st) st = array_suffixes(tp, out);
    if (st) {
        floe_type_release(*out);
        *out = NULL;
    }
    tp->depth--;
    return st;
}

floe_status floe_pg_nested_type_at(const char *sql, int32_t location, floe_type **out) {
    *out = NULL;
    if (!sql || location < 0 || location >= (int32_t)strlen(sql))
        return floe_error(FLOE_ERR_INTERNAL, "nested type: no statement text at %d", (int)location);
    tparse tp = {sql, sql + location, 0};
    return parse_type(&tp, out);
}

int32_t floe_pg_nested_type_end(const char *sql, int32_t start) {
    /* From the first '<' to its matching '>', skipping quoted names. */
    const char *p = sql + start;
    while (*p && *p != '<') p++;
    int depth = 0;
    for (; *p; p++) {
        if (*p == '"' || *p == '`') {
            char q = *p++;
            while (*p && *p != q) p++;
            if (!*p) return -1;
        } else if (*p == '<') {
            depth++;
        } else if (*p == '>') {
            if (--depth == 0) break;
        } else if (*p == ';' || *p == '\'' || (*p == '(' && depth == 0)) {
            return -1;
        }
    }
    if (!*p) return -1;
    p++;
    /* trailing [] suffixes belong to the type too */
    for (;;) {
        const char *q = p;
        while (*q == ' ' || *q == '\t') q++;
        if (*q != '[') break;
        q++;
        while (*q >= '0' && *q <= '9') q++;
        if (*q != ']') break;
        p = q + 1;
    }
    return (int32_t)(p - sql);
}

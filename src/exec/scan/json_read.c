/*
 * json_read.c — JSON files into batches (see json_read.h).
 *
 * Every file is read whole (decompressed when it ends in .gz / .zst).  A
 * record is one top-level value: newline-delimited files hold them one
 * after another, array files as the elements of one top-level array.
 * jansson parses one record at a time (JSON_DISABLE_EOF_CHECK says how
 * many bytes it took), so a malformed record is found where it is and
 * named by file, line and column, and no file is held as one tree.
 *
 *  1. Detection: the records of the files in order, up to sample_size,
 *     are folded into a *shape* per value position: null adds nothing;
 *     booleans, integers (BIGINT), reals (DOUBLE) and strings (DATE when
 *     every one is YYYY-MM-DD, TIMESTAMP when every one is a date and a
 *     time, else VARCHAR) are leaves; objects are STRUCTs whose fields are
 *     the keys in the order first met; arrays are LISTs of their elements'
 *     shape.  BIGINT and DOUBLE together are DOUBLE; any other mix, an
 *     empty object and anything deeper than maximum_depth is JSON — its JSON
 *     text in a VARCHAR (DuckDB's JSON type).  When every record is an
 *     object, its fields are the columns; else one column `json` holds
 *     the records.
 *  2. Conversion: each record's values are appended to builders of the
 *     columns' types; a value of another kind is cast from its text
 *     (exec/expr/cast.h) or refused with the record's file and line.
 *     Keys not among the columns are ignored, missing ones are NULL.
 *     Files are parsed in parallel; newline-delimited ones also by byte
 *     ranges cut after a newline (a record never spans lines there).
 */
#include "exec/scan/json_read.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/expr/cast.h"
#include "exec/scan/csv_detect_types.h"
#include "exec/scan/scan_files.h"
#include "floe/memory.h"
#include "formats/compress.h"

#define DEFAULT_SAMPLE 20480
#define FLUSH_ROWS 65536

void floe_json_options_init(floe_json_options *o) {
    memset(o, 0, sizeof *o);
    o->format = FLOE_JSON_AUTO;
    o->maximum_depth = -1;
}

static const char *what_of(const floe_json_options *o) { return o->what ? o->what : "read_json"; }

/* ----------------------------------------------------------- the files */

typedef struct json_file {
    const char *path;
    uint8_t *data;
    size_t n;
    bool array; /* the records are the elements of one top-level array */
} json_file;

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

static floe_status load_file(const char *path, floe_fileio *io, json_file *f) {
    floe_input *in = NULL;
    if (io) FLOE_TRY(floe_fileio_open_input(io, path, &in));
    else FLOE_TRY(floe_input_open_local(scan_local_path(path), &in));
    uint8_t *raw = NULL;
    size_t len = 0;
    floe_status st = floe_input_read_all(in, &raw, &len);
    floe_input_close(in);
    if (st) return st;
    floe_codec codec = FLOE_CODEC_NONE;
    if (ends_with(path, ".gz") || ends_with(path, ".gzip")) codec = FLOE_CODEC_GZIP;
    else if (ends_with(path, ".zst") || ends_with(path, ".zstd")) codec = FLOE_CODEC_ZSTD;
    if (codec == FLOE_CODEC_NONE) {
        f->data = raw;
        f->n = len;
        return NULL;
    }
    floe_buf out;
    floe_buf_init(&out);
    st = len ? floe_decompress_grow(codec, raw, len, &out) : NULL;
    floe_free(raw);
    if (st) {
        floe_buf_free(&out);
        return st;
    }
    f->n = out.len;
    f->data = floe_buf_detach(&out, NULL);
    return NULL;
}

static bool is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Line (1-based) and column (1-based, bytes) of byte `pos` of a file,
 * counted from a known line start. */
static void line_col(const json_file *f, size_t from, int64_t from_line, size_t pos, int64_t *line, int64_t *col) {
    int64_t l = from_line;
    size_t ls = from;
    for (size_t i = from; i < pos && i < f->n; i++)
        if (f->data[i] == '\n') l++, ls = i + 1;
    *line = l;
    *col = (int64_t)(pos - ls) + 1;
}

/* ---------------------------------------------------------- the cursor */

/* The records of [begin, end) of a file: a record starts before end. */
typedef struct cursor {
    const json_file *f;
    size_t begin, pos, end;
    int64_t begin_line;
    int state; /* array files: 0 before '[', 1 before an element, 2 after one, 3 done */
    const char *what;
} cursor;

static void cursor_init(cursor *c, const json_file *f, size_t begin, size_t end, int64_t line, const char *what) {
    memset(c, 0, sizeof *c);
    c->f = f;
    c->begin = c->pos = begin;
    c->end = end;
    c->begin_line = line;
    c->what = what;
}

static floe_status at_error(const cursor *c, size_t pos, const char *fmt, const char *text) {
    int64_t line, col;
    line_col(c->f, c->begin, c->begin_line, pos, &line, &col);
    return floe_error(FLOE_ERR_CORRUPT, "%s '%s' line %lld, column %lld: %s%s", c->what, c->f->path, (long long)line,
                      (long long)col, fmt, text ? text : "");
}

static void skip_ws(cursor *c) {
    while (c->pos < c->f->n && is_ws(c->f->data[c->pos])) c->pos++;
}

/* The next record (*out NULL at the end); *start is where it begins. */
static floe_status cursor_next(cursor *c, json_t **out, size_t *start) {
    *out = NULL;
    const json_file *f = c->f;
    if (f->array) {
        for (;;) {
            skip_ws(c);
            if (c->state == 3) {
                if (c->pos < f->n) return at_error(c, c->pos, "unexpected text after the top-level array", NULL);
                return NULL;
            }
            if (c->pos >= f->n)
                return at_error(c, c->pos, c->state == 0 ? "empty file (expected a JSON array)" : "unterminated array",
                                NULL);
            uint8_t ch = f->data[c->pos];
            if (c->state == 0) {
                if (ch != '[') return at_error(c, c->pos, "expected '[' (format 'array')", NULL);
                c->pos++;
                skip_ws(c);
                if (c->pos < f->n && f->data[c->pos] == ']') c->pos++, c->state = 3;
                else c->state = 1;
                continue;
            }
            if (c->state == 2) {
                if (ch == ']') {
                    c->pos++;
                    c->state = 3;
                    continue;
                }
                if (ch != ',') return at_error(c, c->pos, "expected ',' or ']' in the top-level array", NULL);
                c->pos++;
                c->state = 1;
                continue;
            }
            break; /* state 1: an element starts here */
        }
    } else {
        skip_ws(c);
        if (c->pos >= c->end || c->pos >= f->n) return NULL;
    }
    *start = c->pos;
    json_error_t err;
    size_t flags = JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL;
    json_t *v = json_loadb((const char *)f->data + c->pos, f->n - c->pos, flags, &err);
    if (!v && strstr(err.text, "too big integer")) /* beyond int64: a real, as DuckDB reads it as DOUBLE */
        v = json_loadb((const char *)f->data + c->pos, f->n - c->pos, flags | JSON_DECODE_INT_AS_REAL, &err);
    if (!v) {
        /* jansson's line and column count from where it began. */
        int64_t line, col;
        line_col(f, c->begin, c->begin_line, c->pos, &line, &col);
        if (err.line > 1) line += err.line - 1, col = err.column;
        else col += err.column > 0 ? err.column - 1 : 0;
        return floe_error(FLOE_ERR_CORRUPT, "%s '%s' line %lld, column %lld: malformed JSON: %s", c->what, f->path,
                          (long long)line, (long long)col, err.text);
    }
    c->pos += (size_t)err.position;
    if (f->array) c->state = 2;
    *out = v;
    return NULL;
}

/* ------------------------------------------------------------ detection */

typedef enum { S_NULL, S_BOOL, S_BIGINT, S_DOUBLE, S_STRING, S_STRUCT, S_LIST, S_JSON } shape_kind;

typedef struct shape {
    shape_kind k;
    bool maybe_date, maybe_ts;           /* S_STRING: every string so far spells one */
    int32_t nf, capf;                    /* S_STRUCT */
    char **fname;
    struct shape **f;
    struct shape *elem;                  /* S_LIST */
} shape;

static void shape_clear(shape *s) {
    for (int32_t i = 0; i < s->nf; i++) {
        floe_free(s->fname[i]);
        shape_clear(s->f[i]);
        floe_free(s->f[i]);
    }
    floe_free(s->fname);
    floe_free(s->f);
    if (s->elem) shape_clear(s->elem);
    floe_free(s->elem);
    memset(s, 0, sizeof *s);
}

static shape_kind kind_of(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_TRUE:
    case JSON_FALSE: return S_BOOL;
    case JSON_INTEGER: return S_BIGINT;
    case JSON_REAL: return S_DOUBLE;
    case JSON_STRING: return S_STRING;
    case JSON_OBJECT: return S_STRUCT;
    case JSON_ARRAY: return S_LIST;
    default: return S_NULL;
    }
}

static floe_status observe(shape *s, const json_t *v, int32_t depth, int32_t maxd) {
    shape_kind k = kind_of(v);
    if (k == S_NULL || s->k == S_JSON) return NULL;
    if (maxd >= 0 && depth >= maxd) k = S_JSON; /* DuckDB's maximum_depth, the record at depth 1 */
    if (s->k == S_NULL) {
        s->k = k;
        s->maybe_date = s->maybe_ts = true;
    } else if (s->k != k) {
        if ((s->k == S_BIGINT && k == S_DOUBLE) || (s->k == S_DOUBLE && k == S_BIGINT)) {
            s->k = S_DOUBLE;
        } else {
            shape_clear(s);
            s->k = S_JSON;
        }
        return NULL;
    }
    if (k == S_STRING) {
        const char *t = json_string_value(v);
        size_t n = json_string_length(v);
        if (s->maybe_date && !floe_csv_fits(T_DATE, t, (int64_t)n)) s->maybe_date = false;
        if (s->maybe_ts && !floe_csv_fits(T_TIMESTAMP, t, (int64_t)n)) s->maybe_ts = false;
    } else if (k == S_STRUCT) {
        const char *key;
        json_t *fv;
        json_object_foreach((json_t *)v, key, fv) {
            int32_t i = 0;
            while (i < s->nf && strcmp(s->fname[i], key) != 0) i++;
            if (i == s->nf) {
                if (s->nf == s->capf) {
                    int32_t cap = s->capf ? s->capf * 2 : 8;
                    char **nn = floe_realloc(s->fname, (size_t)cap * sizeof *nn);
                    if (nn) s->fname = nn;
                    shape **nf = floe_realloc(s->f, (size_t)cap * sizeof *nf);
                    if (nf) s->f = nf;
                    if (!nn || !nf) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
                    s->capf = cap;
                }
                s->fname[i] = floe_strdup(key);
                s->f[i] = floe_calloc(1, sizeof(shape));
                if (!s->fname[i] || !s->f[i]) {
                    floe_free(s->fname[i]);
                    floe_free(s->f[i]);
                    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
                }
                s->nf++;
            }
            FLOE_TRY(observe(s->f[i], fv, depth + 1, maxd));
        }
    } else if (k == S_LIST) {
        if (!s->elem && !(s->elem = floe_calloc(1, sizeof(shape))))
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
        size_t i;
        json_t *e;
        json_array_foreach((json_t *)v, i, e) FLOE_TRY(observe(s->elem, e, depth + 1, maxd));
    }
    return NULL;
}

/* ----------------------------------------------------------- conversion */

/* How values become one column (or nested child) of a type. */
typedef struct conv {
    floe_type *type;
    bool json_text;      /* STRING holding any value's JSON text (strings quoted) */
    int32_t n;           /* STRUCT: fields; LIST: 1; MAP: 1 (the value) */
    char **names;        /* STRUCT field names */
    struct conv **kids;
} conv;

static void conv_free(conv *c) {
    if (!c) return;
    for (int32_t i = 0; i < c->n; i++) {
        if (c->names) floe_free(c->names[i]);
        conv_free(c->kids[i]);
    }
    floe_free(c->names);
    floe_free(c->kids);
    floe_type_release(c->type);
    floe_free(c);
}

static floe_status conv_alloc(floe_type *type, int32_t n, conv **out) {
    conv *c = floe_calloc(1, sizeof *c);
    if (!c) {
        floe_type_release(type);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
    }
    c->type = type;
    c->n = n;
    if (n > 0 && (!(c->kids = floe_calloc((size_t)n, sizeof *c->kids)) ||
                  !(c->names = floe_calloc((size_t)n, sizeof *c->names)))) {
        c->n = 0;
        conv_free(c);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
    }
    *out = c;
    return NULL;
}

/* The conversion of a given type (fields by name, map keys as strings). */
static floe_status conv_of_type(const floe_type *t, conv **out) {
    *out = NULL;
    int32_t n = t->id == FLOE_TYPE_STRUCT ? t->n_children : (t->id == FLOE_TYPE_LIST || t->id == FLOE_TYPE_MAP) ? 1 : 0;
    if (t->id == FLOE_TYPE_MAP) {
        const floe_type *kt = t->children[0].type->children[0].type;
        if (kt->id != FLOE_TYPE_STRING)
            return floe_error(FLOE_ERR_UNSUPPORTED, "JSON maps have string keys (not %s)", floe_type_id_name(kt->id));
    }
    conv *c = NULL;
    FLOE_TRY(conv_alloc(floe_type_retain((floe_type *)t), n, &c));
    floe_status st = NULL;
    for (int32_t i = 0; i < n && !st; i++) {
        const floe_type *ct = t->id == FLOE_TYPE_STRUCT ? t->children[i].type
                              : t->id == FLOE_TYPE_LIST  ? t->children[0].type
                                                         : t->children[0].type->children[1].type;
        st = conv_of_type(ct, &c->kids[i]);
        if (!st && t->id == FLOE_TYPE_STRUCT && !(c->names[i] = floe_strdup(t->children[i].name)))
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
    }
    if (st) {
        conv_free(c);
        return st;
    }
    *out = c;
    return NULL;
}

/* The conversion a detected shape asks for. */
static floe_status conv_of_shape(const shape *s, conv **out) {
    *out = NULL;
    conv *c = NULL;
    floe_status st = NULL;
    switch (s->k) {
    case S_BOOL: return conv_alloc(floe_type_primitive(FLOE_TYPE_BOOL), 0, out);
    case S_BIGINT: return conv_alloc(floe_type_primitive(FLOE_TYPE_INT64), 0, out);
    case S_DOUBLE: return conv_alloc(floe_type_primitive(FLOE_TYPE_FLOAT64), 0, out);
    case S_STRING:
        return conv_alloc(floe_type_primitive(s->maybe_date ? FLOE_TYPE_DATE32
                                              : s->maybe_ts ? FLOE_TYPE_TIMESTAMP_US
                                                            : FLOE_TYPE_STRING),
                          0, out);
    case S_NULL: return conv_alloc(floe_type_primitive(FLOE_TYPE_STRING), 0, out);
    case S_STRUCT:
        if (s->nf == 0) break; /* {} only: JSON */
        FLOE_TRY(conv_alloc(NULL, s->nf, &c));
        floe_field *fields = floe_calloc((size_t)s->nf, sizeof *fields);
        if (!fields) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
        for (int32_t i = 0; !st && i < s->nf; i++) {
            st = conv_of_shape(s->f[i], &c->kids[i]);
            if (!st && !(c->names[i] = floe_strdup(s->fname[i])))
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
            if (!st) st = floe_field_init(&fields[i], s->fname[i], c->kids[i]->type, true, -1);
        }
        if (!st) st = floe_type_struct(fields, s->nf, &c->type);
        for (int32_t i = 0; fields && i < s->nf; i++) floe_field_clear(&fields[i]);
        floe_free(fields);
        if (st) conv_free(c);
        else *out = c;
        return st;
    case S_LIST: {
        FLOE_TRY(conv_alloc(NULL, 1, &c));
        shape none;
        memset(&none, 0, sizeof none);
        st = conv_of_shape(s->elem ? s->elem : &none, &c->kids[0]);
        floe_field f;
        memset(&f, 0, sizeof f);
        if (!st) st = floe_field_init(&f, "element", c->kids[0]->type, true, -1);
        if (!st) st = floe_type_list(&f, &c->type);
        floe_field_clear(&f);
        if (st) conv_free(c);
        else *out = c;
        return st;
    }
    case S_JSON: break;
    }
    FLOE_TRY(conv_alloc(floe_type_primitive(FLOE_TYPE_STRING), 0, &c));
    c->json_text = true;
    *out = c;
    return NULL;
}

static const char *json_kind_name(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* A value's JSON text (compact; non-ASCII kept as UTF-8). */
static floe_status append_json_text(floe_builder *b, const json_t *v) {
    char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (!t) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
    floe_status st = floe_builder_append_binary(b, t, (int64_t)strlen(t));
    free(t);
    return st;
}

/* A value of another kind as text, cast to the leaf type. */
static floe_status append_cast_text(floe_builder *b, const conv *c, const json_t *v) {
    char *t = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    const char *txt = json_is_string(v) ? json_string_value(v) : t;
    size_t len = json_is_string(v) ? json_string_length(v) : t ? strlen(t) : 0;
    if (!txt) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
    floe_builder *sb = NULL;
    floe_array *s = NULL, *r = NULL;
    floe_status st = floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), 1, &sb);
    if (!st) st = floe_builder_append_binary(sb, txt, (int64_t)len);
    if (!st) st = floe_builder_finish(sb, &s);
    if (!st) {
        if (floe_exec_cast_extra(s->type, c->type)) st = floe_exec_cast_extra_array(s, c->type, 1, &r);
        else st = floe_error(FLOE_ERR_TYPE, "cannot read %s as %s", json_kind_name(v), floe_type_id_name(c->type->id));
    }
    if (!st) st = floe_builder_append_array(b, r, 0, 1);
    floe_builder_free(sb);
    floe_array_release(s);
    floe_array_release(r);
    free(t);
    return st;
}

static floe_status mismatch(const conv *c, const json_t *v) {
    return floe_error(FLOE_ERR_TYPE, "expected %s, got %s", floe_type_id_name(c->type->id), json_kind_name(v));
}

static floe_status append_value(floe_builder *b, const conv *c, const json_t *v) {
    if (!v || json_is_null(v)) return floe_builder_append_null(b);
    if (c->json_text) return append_json_text(b, v);
    switch (c->type->id) {
    case FLOE_TYPE_STRUCT: {
        if (!json_is_object(v)) return mismatch(c, v);
        for (int32_t i = 0; i < c->n; i++)
            FLOE_TRY(floe_status_wrap(append_value(floe_builder_child(b, i), c->kids[i], json_object_get(v, c->names[i])),
                                      "field \"%s\"", c->names[i]));
        return floe_builder_append_valid(b);
    }
    case FLOE_TYPE_LIST: {
        if (!json_is_array(v)) return mismatch(c, v);
        size_t i;
        json_t *e;
        json_array_foreach((json_t *)v, i, e) FLOE_TRY(append_value(floe_builder_child(b, 0), c->kids[0], e));
        return floe_builder_append_list(b);
    }
    case FLOE_TYPE_MAP: {
        if (!json_is_object(v)) return mismatch(c, v);
        const char *key;
        json_t *e;
        json_object_foreach((json_t *)v, key, e) {
            FLOE_TRY(floe_builder_append_binary(floe_builder_map_keys(b), key, (int64_t)strlen(key)));
            FLOE_TRY(append_value(floe_builder_map_values(b), c->kids[0], e));
        }
        return floe_builder_append_map(b);
    }
    case FLOE_TYPE_STRING:
        if (json_is_string(v)) return floe_builder_append_binary(b, json_string_value(v), (int64_t)json_string_length(v));
        return append_json_text(b, v);
    case FLOE_TYPE_BOOL:
        if (json_is_boolean(v)) return floe_builder_append_bool(b, json_is_true(v));
        if (json_is_string(v)) return append_cast_text(b, c, v);
        return mismatch(c, v);
    case FLOE_TYPE_INT32:
    case FLOE_TYPE_INT64: {
        int64_t x;
        if (json_is_integer(v)) {
            x = (int64_t)json_integer_value(v);
        } else if (json_is_real(v)) {
            double d = json_real_value(v);
            if (d != floor(d) || !(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
                return floe_error(FLOE_ERR_TYPE, "expected %s, got %.17g", floe_type_id_name(c->type->id), d);
            x = (int64_t)d;
        } else if (json_is_string(v)) {
            char *end = NULL;
            const char *s = json_string_value(v);
            x = strtoll(s, &end, 10);
            if (end == s || *end) return floe_error(FLOE_ERR_TYPE, "expected %s, got \"%s\"", floe_type_id_name(c->type->id), s);
        } else {
            return mismatch(c, v);
        }
        if (c->type->id == FLOE_TYPE_INT64) return floe_builder_append_int64(b, x);
        if (x < INT32_MIN || x > INT32_MAX) return floe_error(FLOE_ERR_TYPE, "integer out of range: %lld", (long long)x);
        return floe_builder_append_int32(b, (int32_t)x);
    }
    case FLOE_TYPE_FLOAT32:
    case FLOE_TYPE_FLOAT64: {
        double d;
        if (json_is_number(v)) d = json_number_value(v);
        else if (json_is_string(v)) {
            char *end = NULL;
            const char *s = json_string_value(v);
            d = strtod(s, &end);
            if (end == s || *end) return floe_error(FLOE_ERR_TYPE, "expected %s, got \"%s\"", floe_type_id_name(c->type->id), s);
        } else {
            return mismatch(c, v);
        }
        return c->type->id == FLOE_TYPE_FLOAT64 ? floe_builder_append_double(b, d) : floe_builder_append_float(b, (float)d);
    }
    default:
        if (json_is_object(v) || json_is_array(v) || json_is_boolean(v)) return mismatch(c, v);
        return append_cast_text(b, c, v);
    }
}

/* ---------------------------------------------------------------- plan */

typedef struct json_plan {
    const floe_json_options *o;
    bool objects;   /* records are objects whose fields are the columns */
    int32_t ncols;
    conv **cols;
    char **names;
    floe_schema *schema; /* with the filename column when asked */
} json_plan;

static void json_plan_free(json_plan *p) {
    for (int32_t i = 0; i < p->ncols; i++) {
        conv_free(p->cols[i]);
        floe_free(p->names[i]);
    }
    floe_free(p->cols);
    floe_free(p->names);
    floe_type_release(p->schema);
}

static floe_status plan_columns(json_plan *p, int32_t n) {
    p->cols = floe_calloc((size_t)n + 1, sizeof *p->cols);
    p->names = floe_calloc((size_t)n + 1, sizeof *p->names);
    if (!p->cols || !p->names) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
    p->ncols = n;
    return NULL;
}

/* Detect the columns on the first records of the files. */
static floe_status detect(json_file *files, int32_t nf, json_plan *p) {
    const floe_json_options *o = p->o;
    int64_t limit = o->sample_size == 0 ? DEFAULT_SAMPLE : o->sample_size;
    shape root;
    memset(&root, 0, sizeof root);
    bool all_objects = true;
    int64_t seen = 0;
    floe_status st = NULL;
    for (int32_t fi = 0; fi < nf && !st && (limit < 0 || seen < limit); fi++) {
        cursor c;
        cursor_init(&c, &files[fi], 0, files[fi].n, 1, what_of(o));
        while (!st && (limit < 0 || seen < limit)) {
            json_t *v = NULL;
            size_t at = 0;
            st = cursor_next(&c, &v, &at);
            if (st || !v) break;
            if (!json_is_null(v)) {
                if (!json_is_object(v)) all_objects = false;
                /* The record is at depth 0 here, 1 in DuckDB's count:
                 * maximum_depth 1 makes every column JSON, 2 types the
                 * columns and leaves what is inside them JSON. */
                st = observe(&root, v, 0, o->maximum_depth);
            }
            json_decref(v);
            seen++;
        }
    }
    if (!st && all_objects && root.k == S_STRUCT && root.nf > 0) {
        p->objects = true;
        st = plan_columns(p, root.nf);
        for (int32_t i = 0; !st && i < root.nf; i++) {
            st = conv_of_shape(root.f[i], &p->cols[i]);
            if (!st && !(p->names[i] = floe_strdup(root.fname[i])))
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
        }
    } else if (!st) {
        /* Scalars, arrays or a mix: the records themselves in one column. */
        if (root.k == S_STRUCT && root.nf == 0) root.k = S_JSON;
        st = plan_columns(p, 1);
        if (!st) st = conv_of_shape(&root, &p->cols[0]);
        if (!st && !(p->names[0] = floe_strdup("json")))
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
    }
    shape_clear(&root);
    return st;
}

static floe_status given_columns(json_plan *p) {
    const floe_json_options *o = p->o;
    p->objects = true;
    FLOE_TRY(plan_columns(p, o->n_columns));
    for (int32_t i = 0; i < o->n_columns; i++) {
        FLOE_TRY(conv_of_type(o->types[i], &p->cols[i]));
        if (!(p->names[i] = floe_strdup(o->names[i]))) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
    }
    return NULL;
}

static floe_status plan_schema(json_plan *p) {
    int32_t n = p->ncols + (p->o->filename ? 1 : 0);
    floe_field *fields = floe_calloc((size_t)n, sizeof *fields);
    if (!fields) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
    floe_status st = NULL;
    for (int32_t i = 0; i < p->ncols && !st; i++) st = floe_field_init(&fields[i], p->names[i], p->cols[i]->type, true, -1);
    if (!st && p->o->filename)
        st = floe_field_init(&fields[p->ncols], "filename", floe_type_primitive(FLOE_TYPE_STRING), true, -1);
    if (!st) st = floe_type_struct(fields, n, &p->schema);
    for (int32_t i = 0; i < n; i++) floe_field_clear(&fields[i]);
    floe_free(fields);
    return st;
}

/* ---------------------------------------------------------------- units */

/* A part of one file parsed by one task: the whole file, or the records
 * starting in a byte range of a newline-delimited one. */
typedef struct unit {
    const json_file *f;
    size_t begin, end;
    int64_t line; /* of begin (0: not known; counted when an error needs it) */
    floe_status st;
    floe_batch **b;
    int32_t nb, capb;
} unit;

typedef struct job {
    const json_plan *p;
    unit *u;
} job;

static floe_status unit_flush(const json_plan *p, unit *u, floe_builder **bl, int64_t rows) {
    int32_t n = p->ncols + (p->o->filename ? 1 : 0);
    floe_array **cols = floe_calloc((size_t)n, sizeof *cols);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
    floe_status st = NULL;
    for (int32_t i = 0; i < p->ncols && !st; i++) st = floe_builder_finish(bl[i], &cols[i]);
    if (!st && p->o->filename) {
        floe_builder *fb = NULL;
        size_t len = strlen(u->f->path);
        st = floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), rows, &fb);
        for (int64_t r = 0; r < rows && !st; r++) st = floe_builder_append_binary(fb, u->f->path, (int64_t)len);
        if (!st) st = floe_builder_finish(fb, &cols[p->ncols]);
        floe_builder_free(fb);
    }
    floe_batch *b = NULL;
    if (!st) st = floe_batch_new(p->schema, cols, n, rows, &b);
    for (int32_t i = 0; i < n; i++) floe_array_release(cols[i]);
    floe_free(cols);
    if (!st && u->nb == u->capb) {
        int32_t cap = u->capb ? u->capb * 2 : 4;
        floe_batch **v = floe_realloc(u->b, (size_t)cap * sizeof *v);
        if (!v) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
        else u->b = v, u->capb = cap;
    }
    if (st) {
        floe_batch_release(b);
        return st;
    }
    u->b[u->nb++] = b;
    return NULL;
}

static floe_status parse_unit(const json_plan *p, unit *u) {
    const char *what = what_of(p->o);
    int64_t begin_line = u->line;
    if (begin_line == 0) { /* count the lines before the range, once */
        int64_t col;
        line_col(u->f, 0, 1, u->begin, &begin_line, &col);
    }
    cursor c;
    cursor_init(&c, u->f, u->begin, u->end, begin_line, what);
    floe_builder **bl = floe_calloc((size_t)p->ncols, sizeof *bl);
    if (!bl) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
    floe_status st = NULL;
    for (int32_t i = 0; i < p->ncols && !st; i++) st = floe_builder_new(p->cols[i]->type, 1024, &bl[i]);
    int64_t rows = 0;
    while (!st) {
        json_t *v = NULL;
        size_t at = 0;
        st = cursor_next(&c, &v, &at);
        if (st || !v) break;
        if (p->objects) {
            if (!json_is_object(v) && !json_is_null(v)) {
                st = at_error(&c, at, "expected an object, got ", json_kind_name(v));
            } else {
                for (int32_t i = 0; i < p->ncols && !st; i++) {
                    st = append_value(bl[i], p->cols[i], json_is_null(v) ? NULL : json_object_get(v, p->names[i]));
                    if (st) {
                        char col[160];
                        snprintf(col, sizeof col, "column \"%.120s\": ", p->names[i]);
                        floe_status e = at_error(&c, at, col, floe_status_message(st));
                        floe_status_free(st);
                        st = e;
                    }
                }
            }
        } else {
            st = append_value(bl[0], p->cols[0], v);
            if (st) {
                floe_status e = at_error(&c, at, "", floe_status_message(st));
                floe_status_free(st);
                st = e;
            }
        }
        json_decref(v);
        if (!st && ++rows == FLUSH_ROWS) {
            st = unit_flush(p, u, bl, rows);
            rows = 0;
        }
    }
    if (!st && rows > 0) st = unit_flush(p, u, bl, rows);
    for (int32_t i = 0; i < p->ncols; i++) floe_builder_free(bl[i]);
    floe_free(bl);
    return st;
}

static floe_status parse_units(void *ctx, size_t b, size_t e, const floe_cancel *cancel) {
    job *j = ctx;
    for (size_t k = b; k < e; k++) {
        if (cancel && floe_cancel_is_set(cancel)) return NULL;
        j->u[k].st = parse_unit(j->p, &j->u[k]);
        if (j->u[k].st) return floe_error(FLOE_ERR_CANCELLED, "JSON range failed");
    }
    return NULL;
}

/* The units of every file: newline-delimited ones cut into ranges of
 * about range_bytes, each starting after a newline. */
static floe_status make_units(const json_file *files, int32_t nf, const floe_json_options *o, unit **out, int32_t *n) {
    size_t rb = o->range_bytes > 0 ? (size_t)o->range_bytes : (size_t)8 << 20;
    int32_t cap = 0, cnt = 0;
    unit *u = NULL;
    for (int32_t fi = 0; fi < nf; fi++) {
        const json_file *f = &files[fi];
        size_t pos = 0;
        do {
            size_t end = f->n;
            if (!f->array && f->n - pos > rb) {
                const uint8_t *nl = memchr(f->data + pos + rb, '\n', f->n - pos - rb);
                end = nl ? (size_t)(nl - f->data) + 1 : f->n;
            }
            if (cnt == cap) {
                cap = cap ? cap * 2 : 16;
                unit *v = floe_realloc(u, (size_t)cap * sizeof *v);
                if (!v) {
                    floe_free(u);
                    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
                }
                u = v;
            }
            memset(&u[cnt], 0, sizeof u[cnt]);
            u[cnt].f = f;
            u[cnt].begin = pos;
            u[cnt].end = end;
            u[cnt].line = pos == 0 ? 1 : 0;
            cnt++;
            pos = end;
        } while (pos < f->n);
    }
    *out = u;
    *n = cnt;
    return NULL;
}

floe_status floe_json_read(const char *const *patterns, int32_t n_patterns, floe_fileio *io,
                           const floe_json_options *o, floe_schema **schema_out, floe_batch ***batches,
                           int32_t *n_batches) {
    *schema_out = NULL;
    *batches = NULL;
    *n_batches = 0;
    scan_file_list list;
    memset(&list, 0, sizeof list);
    floe_fileio *use_io = io;
    floe_status st = NULL;
    for (int32_t i = 0; i < n_patterns && !st; i++) st = scan_expand_pattern(patterns[i], &use_io, &list);
    json_file *files = NULL;
    if (!st && list.n == 0) st = floe_error(FLOE_ERR_NOT_FOUND, "no JSON files to read");
    if (!st && !(files = floe_calloc((size_t)list.n, sizeof *files)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
    for (int32_t i = 0; !st && i < list.n; i++) {
        files[i].path = list.v[i];
        st = load_file(list.v[i], use_io, &files[i]);
        if (st) {
            st = floe_status_wrap(st, "%s '%s'", what_of(o), list.v[i]);
            break;
        }
        size_t k = 0;
        while (k < files[i].n && is_ws(files[i].data[k])) k++;
        files[i].array = o->format == FLOE_JSON_ARRAY ||
                         (o->format == FLOE_JSON_AUTO && k < files[i].n && files[i].data[k] == '[');
    }
    json_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.o = o;
    if (!st) st = o->n_columns > 0 ? given_columns(&plan) : detect(files, list.n, &plan);
    if (!st) st = plan_schema(&plan);
    unit *u = NULL;
    int32_t nu = 0;
    if (!st) st = make_units(files, list.n, o, &u, &nu);
    floe_threadpool *pool = NULL;
    if (!st) st = floe_threadpool_default(&pool);
    job j = {&plan, u};
    if (!st) st = floe_parallel_for(pool, (size_t)nu, 1, parse_units, &j, NULL);
    for (int32_t i = 0; i < nu; i++) {
        if (u[i].st) { /* the first failed unit in file order names the error */
            floe_status_free(st);
            st = u[i].st;
            for (int32_t k = i + 1; k < nu; k++) floe_status_free(u[k].st);
            break;
        }
    }
    floe_batch **all = NULL;
    int32_t total = 0;
    for (int32_t i = 0; i < nu; i++) total += u[i].nb;
    if (!st && !(all = floe_calloc((size_t)total + 1, sizeof *all)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory");
    int32_t k = 0;
    for (int32_t i = 0; i < nu; i++) {
        for (int32_t b = 0; b < u[i].nb; b++) {
            if (st) floe_batch_release(u[i].b[b]);
            else all[k++] = u[i].b[b];
        }
        floe_free(u[i].b);
    }
    floe_free(u);
    for (int32_t i = 0; files && i < list.n; i++) floe_free(files[i].data);
    floe_free(files);
    scan_file_list_free(&list);
    if (use_io != io) floe_fileio_free(use_io);
    if (!st) {
        *schema_out = floe_type_retain(plan.schema);
        *batches = all;
        *n_batches = k;
    } else {
        floe_free(all);
    }
    json_plan_free(&plan);
    return st;
}

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
#include "exec/plan_internal.h"
#include "exec/scan/csv_detect_types.h"
#include "exec/scan/csv_values.h"
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

/* Bytes of one file: all of it, a sample of its start, or one task's
 * range (data[0] is byte `off` of the file). */
typedef struct json_file {
    const char *path;
    uint8_t *data;
    size_t n;
    bool array;      /* the records are the elements of one top-level array */
    uint64_t off;    /* file offset of data[0] (0 for decompressed files)   */
    int64_t line;    /* line number of data[0]; 0: counted when an error needs it */
    floe_fileio *io; /* to count those lines (NULL: local)                  */
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

static floe_status open_input(const char *path, floe_fileio *io, floe_input **in) {
    if (io) return floe_fileio_open_input(io, path, in);
    return floe_input_open_local(scan_local_path(path), in);
}

/* Newlines in bytes [0, off) of a file, read in 1 MB pieces: only an
 * error's message asks, so a range's first line is never counted on the
 * good path.  0 when the file cannot be read again. */
static int64_t lines_before(const json_file *f) {
    if (f->off == 0) return 0;
    floe_input *in = NULL;
    floe_status st = open_input(f->path, f->io, &in);
    size_t cap = (size_t)1 << 20;
    uint8_t *buf = st ? NULL : floe_malloc(cap);
    int64_t l = 0;
    for (uint64_t at = 0; !st && buf && at < f->off;) {
        size_t len = f->off - at < cap ? (size_t)(f->off - at) : cap;
        st = floe_input_read(in, at, len, buf);
        for (size_t i = 0; !st && i < len; i++) l += buf[i] == '\n';
        at += len;
    }
    floe_status_free(st);
    floe_free(buf);
    if (in) floe_input_close(in);
    return l;
}

/* Line (1-based) and column (1-based, bytes) of byte `pos` of f's data:
 * counted from data[0] when an error is reported, never per record. */
static void line_col(const json_file *f, size_t pos, int64_t *line, int64_t *col) {
    int64_t l = f->line > 0 ? f->line : 1 + lines_before(f);
    size_t ls = 0;
    for (size_t i = 0; i < pos && i < f->n; i++)
        if (f->data[i] == '\n') l++, ls = i + 1;
    *line = l;
    *col = (int64_t)(pos - ls) + 1;
}

/* ---------------------------------------------------------- the cursor */

/* The records of [begin, end) of a file: a record starts before end. */
typedef struct cursor {
    const json_file *f;
    size_t pos, end;
    int state; /* array files: 0 before '[', 1 before an element, 2 after one, 3 done */
    const char *what;
} cursor;

static void cursor_init(cursor *c, const json_file *f, size_t begin, size_t end, const char *what) {
    memset(c, 0, sizeof *c);
    c->f = f;
    c->pos = begin;
    c->end = end;
    c->what = what;
}

static floe_status at_error(const cursor *c, size_t pos, const char *fmt, const char *text) {
    int64_t line, col;
    line_col(c->f, pos, &line, &col);
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
        line_col(f, c->pos, &line, &col);
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
        if (json_is_string(v)) { /* plain dates, timestamps, decimals straight in; anything else cast */
            const char *t = json_string_value(v);
            size_t n = json_string_length(v);
            int32_t day;
            int64_t us;
            floe_decimal128 dec;
            if (c->type->id == FLOE_TYPE_DATE32 && floe_csv_fast_date(t, n, &day)) return floe_builder_append_int32(b, day);
            if (c->type->id == FLOE_TYPE_TIMESTAMP_US && floe_csv_fast_timestamp(t, n, &us))
                return floe_builder_append_int64(b, us);
            if (c->type->id == FLOE_TYPE_DECIMAL128 &&
                floe_csv_fast_decimal(t, n, c->type->precision, c->type->scale, &dec))
                return floe_builder_append_decimal(b, dec);
        }
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

/* ------------------------------------------------------------- records */

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading JSON: out of memory"); }

/* One record's values onto the column builders. */
static floe_status append_record(const json_plan *p, const cursor *c, floe_builder **bl, const json_t *v, size_t at) {
    if (!p->objects) {
        floe_status st = append_value(bl[0], p->cols[0], v);
        if (!st) return NULL;
        floe_status e = at_error(c, at, "", floe_status_message(st));
        floe_status_free(st);
        return e;
    }
    if (!json_is_object(v) && !json_is_null(v)) return at_error(c, at, "expected an object, got ", json_kind_name(v));
    for (int32_t i = 0; i < p->ncols; i++) {
        floe_status st = append_value(bl[i], p->cols[i], json_is_null(v) ? NULL : json_object_get(v, p->names[i]));
        if (st) {
            char col[160];
            snprintf(col, sizeof col, "column \"%.120s\": ", p->names[i]);
            floe_status e = at_error(c, at, col, floe_status_message(st));
            floe_status_free(st);
            return e;
        }
    }
    return NULL;
}

/* Up to max_rows records from the cursor as one batch of p->schema (*out
 * NULL when none is left). */
static floe_status parse_rows(const json_plan *p, cursor *c, int64_t max_rows, floe_batch **out) {
    *out = NULL;
    int32_t n = p->ncols + (p->o->filename ? 1 : 0);
    floe_builder **bl = floe_calloc((size_t)p->ncols + 1, sizeof *bl);
    floe_array **cols = floe_calloc((size_t)n + 1, sizeof *cols);
    floe_status st = bl && cols ? NULL : oom();
    for (int32_t i = 0; i < p->ncols && !st; i++) st = floe_builder_new(p->cols[i]->type, 1024, &bl[i]);
    int64_t rows = 0;
    while (!st && rows < max_rows) {
        json_t *v = NULL;
        size_t at = 0;
        st = cursor_next(c, &v, &at);
        if (st || !v) break;
        st = append_record(p, c, bl, v, at);
        json_decref(v);
        rows++;
    }
    for (int32_t i = 0; !st && rows > 0 && i < p->ncols; i++) st = floe_builder_finish(bl[i], &cols[i]);
    if (!st && rows > 0 && p->o->filename) {
        floe_builder *fb = NULL;
        size_t len = strlen(c->f->path);
        st = floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), rows, &fb);
        for (int64_t r = 0; r < rows && !st; r++) st = floe_builder_append_binary(fb, c->f->path, (int64_t)len);
        if (!st) st = floe_builder_finish(fb, &cols[p->ncols]);
        floe_builder_free(fb);
    }
    if (!st && rows > 0) st = floe_batch_new(p->schema, cols, n, rows, out);
    for (int32_t i = 0; bl && i < p->ncols; i++) floe_builder_free(bl[i]);
    for (int32_t i = 0; cols && i < n; i++) floe_array_release(cols[i]);
    floe_free(bl);
    floe_free(cols);
    return st;
}

/* ============================================================ JsonScan
 *
 * The streamed scan.  Planning reads a bounded head of each file (the
 * first SAMPLE_BYTES while the sample of sample_size records is not yet
 * full, else PROBE_BYTES): its records feed detection, and show whether
 * the file holds one record per line.  Only such a file — not an array,
 * not compressed — is cut into byte ranges; everything else is one task,
 * read whole when it runs.  A JSON string cannot hold a raw newline, so
 * in a one-record-per-line file every newline ends a record (or a blank
 * line): a range owns the records that start after the first newline at
 * or after its begin (all of them for the file's first range) and before
 * the first newline at or after its end, reading past its end up to that
 * newline.  Neighbours agree on the cut without reading each other.
 * Line numbers are not counted on the way: an error counts the newlines
 * before its range once (lines_before). */

#define SAMPLE_BYTES ((size_t)8 << 20)
#define PROBE_BYTES ((size_t)1 << 20)
#define EXTEND_BYTES ((size_t)64 << 10)
#define BATCH_ROWS 16384

extern const floe_plan_vtable floe_json_scan_vt;

typedef struct json_task {
    char *path;
    int64_t begin, end; /* end -1: the whole file (maybe compressed, maybe an array) */
} json_task;

typedef struct json_scan_plan {
    floe_plan head;
    json_plan jp;           /* columns; jp.o points at opts               */
    floe_json_options opts; /* format, filename, what (owned)             */
    json_task *tasks;
    int32_t n_tasks;
    int32_t *first;         /* partition i: tasks [first[i], first[i + 1]) */
} json_scan_plan;

static bool is_compressed(const char *path) {
    return ends_with(path, ".gz") || ends_with(path, ".gzip") || ends_with(path, ".zst") || ends_with(path, ".zstd");
}

static bool starts_array(const floe_json_options *o, const json_file *f) {
    if (o->format != FLOE_JSON_AUTO) return o->format == FLOE_JSON_ARRAY;
    size_t k = 0;
    while (k < f->n && is_ws(f->data[k])) k++;
    return k < f->n && f->data[k] == '[';
}

static void json_scan_free(floe_plan *p_) {
    json_scan_plan *p = (json_scan_plan *)p_;
    json_plan_free(&p->jp);
    floe_free((char *)p->opts.what);
    for (int32_t i = 0; i < p->n_tasks; i++) floe_free(p->tasks[i].path);
    floe_free(p->tasks);
    floe_free(p->first);
}

/* The node from its parts; takes jp's columns and the tasks either way. */
static floe_status json_scan_new(json_plan *jp, const floe_json_options *o, json_task *tasks, int32_t n_tasks,
                                 int32_t n_partitions, floe_plan **out) {
    *out = NULL;
    json_scan_plan *p = floe_calloc(1, sizeof *p);
    if (!p) {
        json_plan_free(jp);
        for (int32_t i = 0; i < n_tasks; i++) floe_free(tasks[i].path);
        floe_free(tasks);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a JsonScan node");
    }
    p->jp = *jp;
    memset(jp, 0, sizeof *jp);
    floe_json_options_init(&p->opts);
    p->opts.format = o->format;
    p->opts.filename = o->filename;
    p->opts.what = o->what ? floe_strdup(o->what) : NULL;
    p->jp.o = &p->opts;
    p->tasks = tasks;
    p->n_tasks = n_tasks;
    floe_status st = o->what && !p->opts.what ? oom() : NULL;
    if (n_partitions < 1) n_partitions = 1;
    if (n_partitions > n_tasks && n_tasks > 0) n_partitions = n_tasks;
    if (!st && !(p->first = floe_calloc((size_t)n_partitions + 1, sizeof *p->first))) st = oom();
    for (int32_t i = 0; !st && i <= n_partitions; i++) p->first[i] = (int32_t)((int64_t)n_tasks * i / n_partitions);
    if (!st) st = plan_schema(&p->jp);
    if (!st) st = floe_exec_plan_init(&p->head, &floe_json_scan_vt, p->jp.schema, n_partitions, NULL, 0);
    if (st) {
        if (p->head.vt) floe_plan_release(&p->head);
        else {
            json_scan_free(&p->head);
            floe_free(p);
        }
        return st;
    }
    *out = &p->head;
    return NULL;
}

/* ------------------------------------------------------------ streams */

typedef struct json_stream {
    floe_stream base;
    const json_scan_plan *p;
    const floe_cancel *cancel;
    floe_fileio *io; /* for remote files; made on first need */
    int32_t next_task, end_task;
    bool loaded;     /* f and c hold a task */
    json_file f;
    cursor c;
} json_stream;

/* Read [off, off + len) of `in` onto b. */
static floe_status read_piece(floe_input *in, uint64_t off, size_t len, floe_buf *b) {
    FLOE_TRY(floe_buf_reserve(b, len + 1));
    FLOE_TRY(floe_input_read(in, off, len, b->data + b->len));
    b->len += len;
    return NULL;
}

/* Load task t: its bytes in s->f and a cursor over the records it owns. */
static floe_status load_task(json_stream *s, const json_task *t) {
    const char *what = what_of(&s->p->opts);
    json_file *f = &s->f;
    memset(f, 0, sizeof *f);
    f->path = t->path;
    if (scan_is_remote(t->path)) {
        if (!s->io) FLOE_TRY(floe_fileio_new(NULL, 0, &s->io));
        f->io = s->io;
    }
    if (t->end < 0) {
        FLOE_TRY(floe_status_wrap(load_file(t->path, f->io, f), "%s '%s'", what, t->path));
        f->line = 1;
        f->array = starts_array(&s->p->opts, f);
        cursor_init(&s->c, f, 0, f->n, what);
        return NULL;
    }
    floe_input *in = NULL;
    FLOE_TRY(floe_status_wrap(open_input(t->path, f->io, &in), "%s '%s'", what, t->path));
    floe_buf b;
    floe_buf_init(&b);
    uint64_t size = in->size, end = (uint64_t)t->end < size ? (uint64_t)t->end : size;
    floe_status st = (uint64_t)t->begin < end ? read_piece(in, (uint64_t)t->begin, (size_t)(end - (uint64_t)t->begin), &b) : NULL;
    /* On to the first newline at or after end: the next range's cut. */
    size_t k = b.len, stop = 0;
    bool found = false;
    for (uint64_t at = end; !st;) {
        const uint8_t *nl = k < b.len ? memchr(b.data + k, '\n', b.len - k) : NULL;
        if (nl) {
            found = true;
            stop = (size_t)(nl - b.data) + 1;
            break;
        }
        k = b.len;
        if (at >= size) break;
        size_t len = size - at < EXTEND_BYTES ? (size_t)(size - at) : EXTEND_BYTES;
        st = read_piece(in, at, len, &b);
        at += len;
    }
    if (!found) stop = b.len;
    floe_input_close(in);
    if (st) {
        floe_buf_free(&b);
        return floe_status_wrap(st, "%s '%s'", what, t->path);
    }
    f->n = stop;
    f->data = b.len ? floe_buf_detach(&b, NULL) : NULL;
    floe_buf_free(&b);
    f->off = (uint64_t)t->begin;
    f->line = t->begin == 0 ? 1 : 0;
    size_t pos = 0;
    if (t->begin > 0) { /* the records after the first newline */
        const uint8_t *nl = f->n ? memchr(f->data, '\n', f->n) : NULL;
        pos = nl ? (size_t)(nl - f->data) + 1 : f->n;
    }
    cursor_init(&s->c, f, pos, f->n, what);
    return NULL;
}

static floe_status json_stream_next(floe_stream *s_, floe_batch **out) {
    json_stream *s = (json_stream *)s_;
    *out = NULL;
    for (;;) {
        FLOE_TRY(floe_cancel_check(s->cancel, "JsonScan"));
        if (s->loaded) {
            FLOE_TRY(parse_rows(&s->p->jp, &s->c, BATCH_ROWS, out));
            if (*out) return NULL;
        }
        floe_free(s->f.data);
        s->f.data = NULL;
        s->loaded = false;
        if (s->next_task >= s->end_task) return NULL;
        FLOE_TRY(load_task(s, &s->p->tasks[s->next_task++]));
        s->loaded = true;
    }
}

static void json_stream_close(floe_stream *s_) {
    json_stream *s = (json_stream *)s_;
    floe_free(s->f.data);
    if (s->io) floe_fileio_free(s->io);
    floe_free(s);
}

static floe_status json_scan_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx,
                                     floe_stream **out) {
    const json_scan_plan *p = (const json_scan_plan *)p_;
    json_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a JsonScan stream");
    s->base.next = json_stream_next;
    s->base.close = json_stream_close;
    s->p = p;
    s->cancel = ctx->cancel;
    s->next_task = p->first[partition];
    s->end_task = p->first[partition + 1];
    *out = &s->base;
    return NULL;
}

/* ---------------------------------------------------------------- codec */

/* Which strings hold JSON text, in pre-order: a type alone cannot say. */
static floe_status put_flags(floe_buf *out, const conv *c) {
    FLOE_TRY(floe_codec_put_i64(out, c->json_text));
    for (int32_t i = 0; i < c->n; i++) FLOE_TRY(put_flags(out, c->kids[i]));
    return NULL;
}

static floe_status get_ranged(floe_reader *r, int64_t lo, int64_t hi, const char *what, int64_t *v) {
    FLOE_TRY(floe_codec_get_i64(r, v));
    if (*v < lo || *v > hi) return floe_error(FLOE_ERR_CORRUPT, "JsonScan: %s %lld is impossible", what, (long long)*v);
    return NULL;
}

static floe_status get_flags(floe_reader *r, conv *c) {
    int64_t v = 0;
    FLOE_TRY(get_ranged(r, 0, 1, "JSON text flag", &v));
    if (v && c->type->id != FLOE_TYPE_STRING) return floe_error(FLOE_ERR_CORRUPT, "JsonScan: JSON text in a non-string");
    c->json_text = v != 0;
    for (int32_t i = 0; i < c->n; i++) FLOE_TRY(get_flags(r, c->kids[i]));
    return NULL;
}

static floe_status json_scan_encode(const floe_plan *p_, floe_buf *out) {
    const json_scan_plan *p = (const json_scan_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->opts.format));
    FLOE_TRY(floe_codec_put_i64(out, p->jp.objects));
    FLOE_TRY(floe_codec_put_i64(out, p->opts.filename));
    FLOE_TRY(floe_codec_put_str(out, p->opts.what));
    FLOE_TRY(floe_codec_put_i64(out, p->jp.ncols));
    for (int32_t i = 0; i < p->jp.ncols; i++) {
        FLOE_TRY(floe_codec_put_str(out, p->jp.names[i]));
        FLOE_TRY(floe_codec_put_type(out, p->jp.cols[i]->type));
        FLOE_TRY(put_flags(out, p->jp.cols[i]));
    }
    FLOE_TRY(floe_codec_put_i64(out, p->head.n_partitions));
    FLOE_TRY(floe_codec_put_i64(out, p->n_tasks));
    for (int32_t i = 0; i < p->n_tasks; i++) {
        FLOE_TRY(floe_codec_put_str(out, p->tasks[i].path));
        FLOE_TRY(floe_codec_put_i64(out, p->tasks[i].begin));
        FLOE_TRY(floe_codec_put_i64(out, p->tasks[i].end));
    }
    return NULL;
}

static floe_status json_scan_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    (void)children;
    if (n_children != 0) return floe_error(FLOE_ERR_CORRUPT, "JsonScan with %d children", n_children);
    floe_json_options o;
    floe_json_options_init(&o);
    json_plan jp;
    memset(&jp, 0, sizeof jp);
    char *what = NULL;
    int64_t fmt = 0, objects = 0, fname = 0, nc = 0, np = 0, nt = 0;
    json_task *tasks = NULL;
    int32_t n_tasks = 0;
    floe_status st = get_ranged(r, FLOE_JSON_AUTO, FLOE_JSON_ARRAY, "format", &fmt);
    if (!st) st = get_ranged(r, 0, 1, "objects flag", &objects);
    if (!st) st = get_ranged(r, 0, 1, "filename flag", &fname);
    if (!st) st = floe_codec_get_str(r, &what);
    if (!st) st = get_ranged(r, 1, INT32_MAX, "column count", &nc);
    if (!st) st = plan_columns(&jp, (int32_t)nc);
    for (int32_t i = 0; !st && i < jp.ncols; i++) {
        floe_type *t = NULL;
        st = floe_codec_get_str(r, &jp.names[i]);
        if (!st && !jp.names[i]) st = floe_error(FLOE_ERR_CORRUPT, "JsonScan: a column without a name");
        if (!st) st = floe_codec_get_type(r, &t);
        if (!st) st = conv_of_type(t, &jp.cols[i]);
        floe_type_release(t);
        if (!st) st = get_flags(r, jp.cols[i]);
    }
    if (!st) st = get_ranged(r, 1, INT32_MAX, "partition count", &np);
    if (!st) st = get_ranged(r, 0, INT32_MAX, "task count", &nt);
    if (!st && nt > 0 && !(tasks = floe_calloc((size_t)nt, sizeof *tasks))) st = oom();
    for (; !st && n_tasks < nt; n_tasks++) {
        json_task *t = &tasks[n_tasks];
        st = floe_codec_get_str(r, &t->path);
        if (!st && !t->path) st = floe_error(FLOE_ERR_CORRUPT, "JsonScan: a task without a path");
        if (!st) st = get_ranged(r, 0, INT64_MAX, "range start", &t->begin);
        if (!st) st = get_ranged(r, -1, INT64_MAX, "range end", &t->end);
        if (st) {
            floe_free(t->path);
            break;
        }
    }
    jp.objects = objects != 0;
    o.format = (floe_json_format)fmt;
    o.filename = fname != 0;
    o.what = what;
    if (!st) st = json_scan_new(&jp, &o, tasks, n_tasks, (int32_t)np, out);
    else {
        json_plan_free(&jp);
        for (int32_t i = 0; i < n_tasks; i++) floe_free(tasks[i].path);
        floe_free(tasks);
    }
    floe_free(what);
    return st;
}

static floe_status json_scan_explain(const floe_plan *p_, floe_buf *out) {
    const json_scan_plan *p = (const json_scan_plan *)p_;
    int32_t files = 0;
    for (int32_t i = 0; i < p->n_tasks; i++) files += i == 0 || strcmp(p->tasks[i].path, p->tasks[i - 1].path) != 0;
    return floe_buf_printf(out, "files=%d, ranges=%d", files, p->n_tasks);
}

static floe_status json_scan_visit(const floe_plan *p_, floe_path_visit visit, void *arg) {
    const json_scan_plan *p = (const json_scan_plan *)p_;
    for (int32_t i = 0; i < p->n_tasks; i++)
        if (i == 0 || strcmp(p->tasks[i].path, p->tasks[i - 1].path) != 0) FLOE_TRY(visit(arg, p->tasks[i].path));
    return NULL;
}

const floe_plan_vtable floe_json_scan_vt = {
    .name = "JsonScan",
    .execute = json_scan_execute,
    .encode_parts = json_scan_encode,
    .decode_parts = json_scan_decode,
    .explain_parts = json_scan_explain,
    .free_parts = json_scan_free,
    .local_paths = json_scan_visit,
};

/* ------------------------------------------------------------ planning */

/* The head of a file: all of a compressed one (decompressed), else its
 * first `bytes`, cut after the last newline in them when the file goes on
 * (*truncated).  *size: the file's size (-1 compressed). */
static floe_status load_head(const char *path, floe_fileio *io, size_t bytes, json_file *f, bool *truncated,
                             int64_t *size) {
    *truncated = false;
    *size = -1;
    if (is_compressed(path)) return load_file(path, io, f);
    floe_input *in = NULL;
    FLOE_TRY(open_input(path, io, &in));
    *size = (int64_t)in->size;
    size_t n = in->size < bytes ? (size_t)in->size : bytes;
    f->data = floe_malloc(n + 1);
    floe_status st = f->data ? NULL : oom();
    if (!st && n) st = floe_input_read(in, 0, n, f->data);
    floe_input_close(in);
    if (!st && n < (size_t)*size) {
        *truncated = true;
        for (size_t k = n; k > 0; k--)
            if (f->data[k - 1] == '\n') {
                n = k;
                break;
            }
    }
    f->n = n;
    return st;
}

/* Each file's head read once: its records observed into `root` while the
 * sample is not full (detecting), and whether the file can be cut into
 * ranges (*split: plain, not an array, every record seen on one line).
 * A malformed record in a file's whole text is an error here; in a head
 * that was cut short it only makes the file one task. */
static floe_status probe_files(const scan_file_list *list, floe_fileio *io, const floe_json_options *o, bool detecting,
                               shape *root, bool *all_objects, bool *split, int64_t *sizes) {
    int64_t limit = o->sample_size == 0 ? DEFAULT_SAMPLE : o->sample_size, seen = 0;
    floe_status st = NULL;
    for (int32_t fi = 0; fi < list->n && !st; fi++) {
        const char *path = list->v[fi];
        bool want = detecting && (limit < 0 || seen < limit);
        split[fi] = false;
        sizes[fi] = -1;
        if (is_compressed(path) && !want) continue; /* one task whatever it holds */
        json_file f;
        memset(&f, 0, sizeof f);
        f.path = path;
        f.line = 1;
        f.io = io;
        bool cut = false;
        st = load_head(path, io, want ? SAMPLE_BYTES : PROBE_BYTES, &f, &cut, &sizes[fi]);
        if (st) {
            st = floe_status_wrap(st, "%s '%s'", what_of(o), path);
            floe_free(f.data);
            break;
        }
        f.array = starts_array(o, &f);
        bool one_line = !f.array && sizes[fi] >= 0;
        cursor c;
        cursor_init(&c, &f, 0, f.n, what_of(o));
        while (!st) {
            json_t *v = NULL;
            size_t at = 0;
            st = cursor_next(&c, &v, &at);
            if (st && cut) { /* the head ends inside a record: maybe a real error, found when it runs */
                floe_status_free(st);
                st = NULL;
                one_line = false;
            }
            if (st || !v) break;
            if (one_line && memchr(f.data + at, '\n', c.pos - at)) one_line = false;
            if (want && (limit < 0 || seen < limit)) {
                if (!json_is_null(v)) {
                    if (!json_is_object(v)) *all_objects = false;
                    /* The record is at depth 0 here, 1 in DuckDB's count:
                     * maximum_depth 1 makes every column JSON, 2 types the
                     * columns and leaves what is inside them JSON. */
                    st = observe(root, v, 0, o->maximum_depth);
                }
                seen++;
            }
            json_decref(v);
        }
        split[fi] = one_line;
        floe_free(f.data);
    }
    return st;
}

/* The columns a detected root shape asks for. */
static floe_status columns_of(json_plan *p, shape *root, bool all_objects) {
    floe_status st = NULL;
    if (all_objects && root->k == S_STRUCT && root->nf > 0) {
        p->objects = true;
        st = plan_columns(p, root->nf);
        for (int32_t i = 0; !st && i < root->nf; i++) {
            st = conv_of_shape(root->f[i], &p->cols[i]);
            if (!st && !(p->names[i] = floe_strdup(root->fname[i]))) st = oom();
        }
        return st;
    }
    /* Scalars, arrays or a mix: the records themselves in one column. */
    if (root->k == S_STRUCT && root->nf == 0) root->k = S_JSON;
    st = plan_columns(p, 1);
    if (!st) st = conv_of_shape(root, &p->cols[0]);
    if (!st && !(p->names[0] = floe_strdup("json"))) st = oom();
    return st;
}

static floe_status add_task(json_task **v, int32_t *n, int32_t *cap, const char *path, int64_t begin, int64_t end) {
    if (*n == *cap) {
        int32_t nc = *cap ? *cap * 2 : 16;
        json_task *t = floe_realloc(*v, (size_t)nc * sizeof *t);
        if (!t) return oom();
        *v = t;
        *cap = nc;
    }
    json_task *t = &(*v)[*n];
    if (!(t->path = floe_strdup(path))) return oom();
    t->begin = begin, t->end = end;
    (*n)++;
    return NULL;
}

floe_status floe_json_plan_scan(const char *const *patterns, int32_t n_patterns, floe_fileio *io,
                                const floe_json_options *o, int32_t n_partitions, floe_plan **out) {
    *out = NULL;
    scan_file_list list;
    memset(&list, 0, sizeof list);
    floe_fileio *use_io = io;
    floe_status st = NULL;
    for (int32_t i = 0; i < n_patterns && !st; i++) st = scan_expand_pattern(patterns[i], &use_io, &list);
    if (!st && list.n == 0) st = floe_error(FLOE_ERR_NOT_FOUND, "no JSON files to read");
    bool *split = NULL;
    int64_t *sizes = NULL;
    if (!st && (!(split = floe_calloc((size_t)list.n, sizeof *split)) || !(sizes = floe_calloc((size_t)list.n, sizeof *sizes))))
        st = oom();
    json_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.o = o;
    shape root;
    memset(&root, 0, sizeof root);
    bool all_objects = true;
    if (!st) st = probe_files(&list, use_io, o, o->n_columns == 0, &root, &all_objects, split, sizes);
    if (!st) st = o->n_columns > 0 ? given_columns(&plan) : columns_of(&plan, &root, all_objects);
    shape_clear(&root);
    int64_t rb = o->range_bytes > 0 ? o->range_bytes : (int64_t)8 << 20;
    json_task *tasks = NULL;
    int32_t nt = 0, cap = 0;
    for (int32_t fi = 0; !st && fi < list.n; fi++) {
        if (!split[fi] || sizes[fi] <= rb) {
            st = add_task(&tasks, &nt, &cap, list.v[fi], 0, -1);
            continue;
        }
        for (int64_t b = 0; !st && b < sizes[fi]; b += rb)
            st = add_task(&tasks, &nt, &cap, list.v[fi], b, b + rb < sizes[fi] ? b + rb : sizes[fi]);
    }
    floe_free(split);
    floe_free(sizes);
    scan_file_list_free(&list);
    if (use_io != io) floe_fileio_free(use_io);
    if (st) {
        json_plan_free(&plan);
        for (int32_t i = 0; i < nt; i++) floe_free(tasks[i].path);
        floe_free(tasks);
        return st;
    }
    return json_scan_new(&plan, o, tasks, nt, n_partitions, out);
}

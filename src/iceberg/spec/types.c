/*
 * types.c — the Iceberg type model (see floe/iceberg_types.h): building,
 * copying and comparing type trees, the type-string grammar, the JSON form
 * of types (Appendix C), and the schema-evolution promotion rules.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"

static const char *const type_names[FLOE_ICE_TYPE_ID_COUNT] = {
    [FLOE_ICE_UNKNOWN] = "unknown",         [FLOE_ICE_BOOLEAN] = "boolean",
    [FLOE_ICE_INT] = "int",                 [FLOE_ICE_LONG] = "long",
    [FLOE_ICE_FLOAT] = "float",             [FLOE_ICE_DOUBLE] = "double",
    [FLOE_ICE_DECIMAL] = "decimal",         [FLOE_ICE_DATE] = "date",
    [FLOE_ICE_TIME] = "time",               [FLOE_ICE_TIMESTAMP] = "timestamp",
    [FLOE_ICE_TIMESTAMPTZ] = "timestamptz", [FLOE_ICE_TIMESTAMP_NS] = "timestamp_ns",
    [FLOE_ICE_TIMESTAMPTZ_NS] = "timestamptz_ns",
    [FLOE_ICE_STRING] = "string",           [FLOE_ICE_UUID] = "uuid",
    [FLOE_ICE_FIXED] = "fixed",             [FLOE_ICE_BINARY] = "binary",
    [FLOE_ICE_VARIANT] = "variant",         [FLOE_ICE_GEOMETRY] = "geometry",
    [FLOE_ICE_GEOGRAPHY] = "geography",     [FLOE_ICE_STRUCT] = "struct",
    [FLOE_ICE_LIST] = "list",               [FLOE_ICE_MAP] = "map",
};

const char *floe_ice_type_id_name(floe_ice_type_id id) {
    if ((int)id < 0 || id >= FLOE_ICE_TYPE_ID_COUNT) return "?";
    return type_names[id];
}

static char *join_path(const char *path, const char *name);

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory building an Iceberg type"); }

static floe_ice_type *type_alloc(floe_ice_type_id id) {
    floe_ice_type *t = floe_calloc(1, sizeof *t);
    if (t) t->id = id;
    return t;
}

floe_status floe_ice_type_new(floe_ice_type_id id, floe_ice_type **out) {
    *out = NULL;
    if ((int)id < 0 || id >= FLOE_ICE_TYPE_ID_COUNT || id == FLOE_ICE_DECIMAL || id == FLOE_ICE_FIXED ||
        id == FLOE_ICE_STRUCT || id == FLOE_ICE_LIST || id == FLOE_ICE_MAP)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_ice_type_new: '%s' needs parameters",
                          floe_ice_type_id_name(id));
    *out = type_alloc(id);
    return *out ? NULL : oom();
}

floe_status floe_ice_type_decimal(int32_t precision, int32_t scale, floe_ice_type **out) {
    *out = NULL;
    if (precision < 1 || precision > 38)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "decimal precision %d is not in 1..38", precision);
    if (scale < -precision - 1000 || scale > 1000)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "decimal scale %d is out of range", scale);
    floe_ice_type *t = type_alloc(FLOE_ICE_DECIMAL);
    if (!t) return oom();
    t->precision = precision;
    t->scale = scale;
    *out = t;
    return NULL;
}

floe_status floe_ice_type_fixed(int32_t length, floe_ice_type **out) {
    *out = NULL;
    if (length < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "fixed length %d must be positive", length);
    floe_ice_type *t = type_alloc(FLOE_ICE_FIXED);
    if (!t) return oom();
    t->length = length;
    *out = t;
    return NULL;
}

floe_status floe_ice_type_struct(floe_ice_type **out) {
    *out = type_alloc(FLOE_ICE_STRUCT);
    return *out ? NULL : oom();
}

/* Grow a nested type's field array by one zeroed slot. */
static floe_ice_field *add_slot(floe_ice_type *t) {
    floe_ice_field *f = floe_realloc(t->fields, ((size_t)t->n_fields + 1) * sizeof *f);
    if (!f) return NULL;
    t->fields = f;
    memset(&f[t->n_fields], 0, sizeof *f);
    return &f[t->n_fields++];
}

/* Fill a field record; takes ownership of `type` even on failure. */
static floe_status field_init(floe_ice_field *f, int32_t id, const char *name, bool required,
                              floe_ice_type *type, const char *doc) {
    f->id = id;
    f->required = required;
    f->type = type;
    f->name = floe_strdup(name ? name : "");
    f->doc = doc ? floe_strdup(doc) : NULL;
    if (!f->name || (doc && !f->doc)) return oom();
    return NULL;
}

floe_status floe_ice_struct_add_field(floe_ice_type *st, int32_t id, const char *name, bool required,
                                      floe_ice_type *type, const char *doc) {
    if (!st || st->id != FLOE_ICE_STRUCT || !type) {
        floe_ice_type_free(type);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_ice_struct_add_field: not a struct or no type");
    }
    floe_ice_field *f = add_slot(st);
    if (!f) {
        floe_ice_type_free(type);
        return oom();
    }
    return field_init(f, id, name, required, type, doc);
}

floe_status floe_ice_type_list(int32_t element_id, bool element_required, floe_ice_type *element,
                               floe_ice_type **out) {
    *out = NULL;
    floe_ice_type *t = element ? type_alloc(FLOE_ICE_LIST) : NULL;
    floe_ice_field *f = t ? add_slot(t) : NULL;
    if (!f) {
        floe_ice_type_free(element);
        floe_ice_type_free(t);
        return element ? oom() : floe_error(FLOE_ERR_INVALID_ARGUMENT, "list needs an element type");
    }
    floe_status st = field_init(f, element_id, "element", element_required, element, NULL);
    if (st) {
        floe_ice_type_free(t);
        return st;
    }
    *out = t;
    return NULL;
}

floe_status floe_ice_type_map(int32_t key_id, floe_ice_type *key, int32_t value_id, bool value_required,
                              floe_ice_type *value, floe_ice_type **out) {
    *out = NULL;
    floe_ice_type *t = (key && value) ? type_alloc(FLOE_ICE_MAP) : NULL;
    floe_ice_field *fk = t ? add_slot(t) : NULL;
    if (!fk) {
        floe_ice_type_free(key);
        floe_ice_type_free(value);
        floe_ice_type_free(t);
        return (key && value) ? oom() : floe_error(FLOE_ERR_INVALID_ARGUMENT, "map needs key and value types");
    }
    floe_status st = field_init(fk, key_id, "key", true, key, NULL);
    floe_ice_field *fv = st ? NULL : add_slot(t);
    if (!st && !fv) st = oom();
    if (st) {
        floe_ice_type_free(value);
        floe_ice_type_free(t);
        return st;
    }
    st = field_init(fv, value_id, "value", value_required, value, NULL);
    if (st) {
        floe_ice_type_free(t);
        return st;
    }
    *out = t;
    return NULL;
}

static void value_box_free(floe_ice_value *v) {
    if (!v) return;
    floe_ice_value_free(v);
    floe_free(v);
}

void floe_ice_field_clear(floe_ice_field *f) {
    if (!f) return;
    floe_free(f->name);
    floe_free(f->doc);
    floe_ice_type_free(f->type);
    value_box_free(f->initial_default);
    value_box_free(f->write_default);
    floe_free(f->initial_default_json);
    floe_free(f->write_default_json);
    memset(f, 0, sizeof *f);
}

void floe_ice_type_free(floe_ice_type *t) {
    if (!t) return;
    for (int32_t i = 0; i < t->n_fields; i++) floe_ice_field_clear(&t->fields[i]);
    floe_free(t->fields);
    floe_free(t->crs);
    floe_free(t->algorithm);
    floe_free(t);
}

static floe_status dup_str(const char *s, char **out) {
    *out = NULL;
    if (!s) return NULL;
    *out = floe_strdup(s);
    return *out ? NULL : oom();
}

static floe_status dup_value_box(const floe_ice_value *v, floe_ice_value **out) {
    *out = NULL;
    if (!v) return NULL;
    floe_ice_value *c = floe_calloc(1, sizeof *c);
    if (!c) return oom();
    floe_status st = floe_ice_value_copy(v, c);
    if (st) {
        floe_free(c);
        return st;
    }
    *out = c;
    return NULL;
}

floe_status floe_ice_field_copy(const floe_ice_field *src, floe_ice_field *dst) {
    memset(dst, 0, sizeof *dst);
    dst->id = src->id;
    dst->required = src->required;
    floe_status st = dup_str(src->name, &dst->name);
    if (!st) st = dup_str(src->doc, &dst->doc);
    if (!st) st = dup_str(src->initial_default_json, &dst->initial_default_json);
    if (!st) st = dup_str(src->write_default_json, &dst->write_default_json);
    if (!st) st = dup_value_box(src->initial_default, &dst->initial_default);
    if (!st) st = dup_value_box(src->write_default, &dst->write_default);
    if (!st && src->type) st = floe_ice_type_copy(src->type, &dst->type);
    if (st) floe_ice_field_clear(dst);
    return st;
}

floe_status floe_ice_type_copy(const floe_ice_type *t, floe_ice_type **out) {
    *out = NULL;
    floe_ice_type *c = type_alloc(t->id);
    if (!c) return oom();
    c->precision = t->precision;
    c->scale = t->scale;
    c->length = t->length;
    floe_status st = dup_str(t->crs, &c->crs);
    if (!st) st = dup_str(t->algorithm, &c->algorithm);
    if (!st && t->n_fields > 0) {
        c->fields = floe_calloc((size_t)t->n_fields, sizeof *c->fields);
        if (!c->fields) st = oom();
        for (int32_t i = 0; !st && i < t->n_fields; i++) {
            st = floe_ice_field_copy(&t->fields[i], &c->fields[i]);
            if (!st) c->n_fields = i + 1;
        }
    }
    if (st) {
        floe_ice_type_free(c);
        return st;
    }
    *out = c;
    return NULL;
}

static bool str_eq_null(const char *a, const char *b) {
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

bool floe_ice_type_equals(const floe_ice_type *a, const floe_ice_type *b) {
    if (a == b) return true;
    if (!a || !b || a->id != b->id) return false;
    switch (a->id) {
    case FLOE_ICE_DECIMAL: return a->precision == b->precision && a->scale == b->scale;
    case FLOE_ICE_FIXED: return a->length == b->length;
    case FLOE_ICE_GEOMETRY:
    case FLOE_ICE_GEOGRAPHY: return str_eq_null(a->crs, b->crs) && str_eq_null(a->algorithm, b->algorithm);
    case FLOE_ICE_STRUCT:
    case FLOE_ICE_LIST:
    case FLOE_ICE_MAP:
        if (a->n_fields != b->n_fields) return false;
        for (int32_t i = 0; i < a->n_fields; i++) {
            const floe_ice_field *fa = &a->fields[i], *fb = &b->fields[i];
            if (fa->id != fb->id || fa->required != fb->required || strcmp(fa->name, fb->name) != 0 ||
                !floe_ice_type_equals(fa->type, fb->type))
                return false;
        }
        return true;
    default: return true;
    }
}

int floe_ice_type_min_format_version(const floe_ice_type *t) {
    switch (t->id) {
    case FLOE_ICE_UNKNOWN:
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS:
    case FLOE_ICE_VARIANT:
    case FLOE_ICE_GEOMETRY:
    case FLOE_ICE_GEOGRAPHY: return 3;
    default: break;
    }
    int v = 1;
    for (int32_t i = 0; i < t->n_fields; i++) {
        int c = floe_ice_type_min_format_version(t->fields[i].type);
        if (c > v) v = c;
    }
    return v;
}

/* Depth-first search for a variant/geo type; `path` is the dotted name of
 * the field holding `t` ("" at the top). */
static floe_status check_supported_at(const floe_ice_type *t, const char *what, const char *path) {
    if (t->id == FLOE_ICE_VARIANT || t->id == FLOE_ICE_GEOMETRY || t->id == FLOE_ICE_GEOGRAPHY) {
        if (*path)
            return floe_error(FLOE_ERR_UNSUPPORTED, "%s, field '%s': type '%s' is not supported", what, path,
                              floe_ice_type_id_name(t->id));
        return floe_error(FLOE_ERR_UNSUPPORTED, "%s: type '%s' is not supported", what, floe_ice_type_id_name(t->id));
    }
    for (int32_t i = 0; i < t->n_fields; i++) {
        char *p = join_path(path, t->fields[i].name);
        if (!p) return oom();
        floe_status st = check_supported_at(t->fields[i].type, what, p);
        floe_free(p);
        if (st) return st;
    }
    return NULL;
}

floe_status floe_ice_type_check_supported(const floe_ice_type *t, const char *what) {
    return check_supported_at(t, what ? what : "type", "");
}

/* ---- type strings ------------------------------------------------------- */

/* Parse a decimal integer in [lo, hi] at *p, skipping blanks around it. */
static bool parse_int_arg(const char **p, long lo, long hi, int32_t *out) {
    const char *s = *p;
    while (*s == ' ') s++;
    if (!isdigit((unsigned char)*s) && !(*s == '-' && isdigit((unsigned char)s[1]))) return false;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || v < lo || v > hi) return false;
    while (*end == ' ') end++;
    *out = (int32_t)v;
    *p = end;
    return true;
}

/* Copy text[0..n) trimmed of blanks into a new string. */
static char *trimmed_dup(const char *s, size_t n) {
    while (n > 0 && isspace((unsigned char)*s)) s++, n--;
    while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
    return floe_strndup(s, n);
}

/* geometry(C) / geography(C, A): the text between the parentheses. */
static floe_status parse_geo_args(floe_ice_type *t, const char *args, size_t n, const char *text) {
    const char *comma = memchr(args, ',', n);
    size_t crs_len = comma ? (size_t)(comma - args) : n;
    t->crs = trimmed_dup(args, crs_len);
    if (!t->crs) return oom();
    if (t->crs[0] == 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid type '%s': empty CRS", text);
    if (comma) {
        if (t->id != FLOE_ICE_GEOGRAPHY)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid type '%s': geometry takes one argument", text);
        t->algorithm = trimmed_dup(comma + 1, n - crs_len - 1);
        if (!t->algorithm) return oom();
        static const char *const algs[] = {"spherical", "vincenty", "thomas", "andoyer", "karney"};
        bool ok = false;
        for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++)
            if (strcasecmp(t->algorithm, algs[i]) == 0) ok = true;
        if (!ok)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid type '%s': unknown edge algorithm '%s'",
                              text, t->algorithm);
        for (char *c = t->algorithm; *c; c++) *c = (char)tolower((unsigned char)*c);
    }
    return NULL;
}

floe_status floe_ice_type_parse(const char *text, floe_ice_type **out) {
    *out = NULL;
    if (!text) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "type string is NULL");
    const char *s = text;
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
    /* The bare name runs up to '(' or '['. */
    size_t name_len = 0;
    while (name_len < n && s[name_len] != '(' && s[name_len] != '[') name_len++;
    size_t bare = name_len;
    while (bare > 0 && s[bare - 1] == ' ') bare--;
    int found = -1;
    for (int i = 0; i <= FLOE_ICE_GEOGRAPHY; i++)
        if (strlen(type_names[i]) == bare && strncasecmp(s, type_names[i], bare) == 0) found = i;
    if (found < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unknown type '%s'", text);
    floe_ice_type_id id = (floe_ice_type_id)found;
    const char *rest = s + name_len;
    size_t rest_len = n - name_len;

    if (id == FLOE_ICE_DECIMAL) {
        int32_t p, sc;
        const char *q = rest + 1;
        if (rest_len < 2 || rest[0] != '(' || rest[rest_len - 1] != ')' || !parse_int_arg(&q, 0, 1000000, &p) ||
            *q++ != ',' || !parse_int_arg(&q, -1000000, 1000000, &sc) || q != rest + rest_len - 1)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid type '%s': expected decimal(P,S)", text);
        floe_status st = floe_ice_type_decimal(p, sc, out);
        return st ? floe_status_wrap(st, "invalid type '%s'", text) : NULL;
    }
    if (id == FLOE_ICE_FIXED) {
        int32_t len;
        const char *q = rest + 1;
        if (rest_len < 2 || rest[0] != '[' || rest[rest_len - 1] != ']' || !parse_int_arg(&q, 0, INT32_MAX, &len) ||
            q != rest + rest_len - 1)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid type '%s': expected fixed[L]", text);
        floe_status st = floe_ice_type_fixed(len, out);
        return st ? floe_status_wrap(st, "invalid type '%s'", text) : NULL;
    }
    if ((id == FLOE_ICE_GEOMETRY || id == FLOE_ICE_GEOGRAPHY) && rest_len > 0) {
        if (rest[0] != '(' || rest[rest_len - 1] != ')')
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid type '%s'", text);
        floe_ice_type *t = type_alloc(id);
        if (!t) return oom();
        floe_status st = parse_geo_args(t, rest + 1, rest_len - 2, text);
        if (st) {
            floe_ice_type_free(t);
            return st;
        }
        *out = t;
        return NULL;
    }
    if (rest_len > 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid type '%s': '%s' takes no parameters", text,
                          type_names[id]);
    *out = type_alloc(id);
    return *out ? NULL : oom();
}

floe_status floe_ice_type_append(floe_buf *b, const floe_ice_type *t) {
    switch (t->id) {
    case FLOE_ICE_DECIMAL: return floe_buf_printf(b, "decimal(%d,%d)", t->precision, t->scale);
    case FLOE_ICE_FIXED: return floe_buf_printf(b, "fixed[%d]", t->length);
    case FLOE_ICE_GEOMETRY:
        if (!t->crs) return floe_buf_append_str(b, "geometry");
        return floe_buf_printf(b, "geometry(%s)", t->crs);
    case FLOE_ICE_GEOGRAPHY:
        if (!t->crs && !t->algorithm) return floe_buf_append_str(b, "geography");
        if (!t->algorithm) return floe_buf_printf(b, "geography(%s)", t->crs);
        return floe_buf_printf(b, "geography(%s,%s)", t->crs ? t->crs : "OGC:CRS84", t->algorithm);
    case FLOE_ICE_STRUCT:
        FLOE_TRY(floe_buf_append_str(b, "struct<"));
        for (int32_t i = 0; i < t->n_fields; i++) {
            const floe_ice_field *f = &t->fields[i];
            FLOE_TRY(floe_buf_printf(b, "%s%d: %s: %s ", i ? ", " : "", f->id, f->name,
                                     f->required ? "required" : "optional"));
            FLOE_TRY(floe_ice_type_append(b, f->type));
        }
        return floe_buf_append_str(b, ">");
    case FLOE_ICE_LIST:
        FLOE_TRY(floe_buf_append_str(b, "list<"));
        FLOE_TRY(floe_ice_type_append(b, t->fields[0].type));
        return floe_buf_append_str(b, ">");
    case FLOE_ICE_MAP:
        FLOE_TRY(floe_buf_append_str(b, "map<"));
        FLOE_TRY(floe_ice_type_append(b, t->fields[0].type));
        FLOE_TRY(floe_buf_append_str(b, ", "));
        FLOE_TRY(floe_ice_type_append(b, t->fields[1].type));
        return floe_buf_append_str(b, ">");
    default: return floe_buf_append_str(b, floe_ice_type_id_name(t->id));
    }
}

floe_status floe_ice_type_to_string(const floe_ice_type *t, char **out) {
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_ice_type_append(&b, t);
    if (!st && !b.data) st = floe_buf_append_str(&b, "");
    if (st) {
        floe_buf_free(&b);
        *out = NULL;
        return st;
    }
    *out = (char *)floe_buf_detach(&b, NULL);
    return NULL;
}

/* ---- promotion ---------------------------------------------------------- */

bool floe_ice_type_can_promote(const floe_ice_type *from, const floe_ice_type *to, int format_version) {
    if (floe_ice_type_equals(from, to)) return true;
    if (format_version >= 3 && from->id == FLOE_ICE_UNKNOWN) return true;
    switch (from->id) {
    case FLOE_ICE_INT: return to->id == FLOE_ICE_LONG;
    case FLOE_ICE_FLOAT: return to->id == FLOE_ICE_DOUBLE;
    case FLOE_ICE_DECIMAL:
        return to->id == FLOE_ICE_DECIMAL && to->scale == from->scale && to->precision > from->precision;
    case FLOE_ICE_DATE:
        return format_version >= 3 && (to->id == FLOE_ICE_TIMESTAMP || to->id == FLOE_ICE_TIMESTAMP_NS);
    default: return false;
    }
}

/* ---- JSON (Appendix C) -------------------------------------------------- */

static floe_status type_err(const char *ctx, const char *path, const char *fmt, const char *arg) {
    char msg[256];
    snprintf(msg, sizeof msg, fmt, arg);
    if (path && *path) return floe_error(FLOE_ERR_CORRUPT, "%s, field '%s': %s", ctx, path, msg);
    return floe_error(FLOE_ERR_CORRUPT, "%s: %s", ctx, msg);
}

/* "a.b" + "c" -> "a.b.c" in a fresh string. */
static char *join_path(const char *path, const char *name) {
    size_t a = strlen(path), n = strlen(name);
    char *s = floe_malloc(a + n + 2);
    if (!s) return NULL;
    if (a) {
        memcpy(s, path, a);
        s[a] = '.';
        memcpy(s + a + 1, name, n + 1);
    } else {
        memcpy(s, name, n + 1);
    }
    return s;
}

/* One default ("initial-default"/"write-default") of field `f`. */
static floe_status parse_default(json_t *j, floe_ice_field *f, bool initial, const char *ctx, const char *path) {
    const char *key = initial ? "initial-default" : "write-default";
    if (!j || json_is_null(j)) return NULL;
    const floe_ice_type *t = f->type;
    if (t->id == FLOE_ICE_UNKNOWN || t->id == FLOE_ICE_VARIANT || t->id == FLOE_ICE_GEOMETRY ||
        t->id == FLOE_ICE_GEOGRAPHY)
        return type_err(ctx, path, "'%s' must be null for this type", key);
    if (floe_ice_type_is_nested(t)) {
        bool ok = (t->id == FLOE_ICE_LIST) ? json_is_array(j) : json_is_object(j);
        if (!ok) return type_err(ctx, path, "'%s' has the wrong JSON type", key);
        char *txt = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
        if (!txt) return oom();
        char *copy = floe_strdup(txt);
        free(txt);
        if (!copy) return oom();
        if (initial) f->initial_default_json = copy;
        else f->write_default_json = copy;
        return NULL;
    }
    floe_ice_value *v = floe_calloc(1, sizeof *v);
    if (!v) return oom();
    floe_status st = floe_ice_value_from_json(t, j, v);
    if (st) {
        floe_free(v);
        char p[512];
        snprintf(p, sizeof p, "%s, field '%s': '%s'", ctx, path, key);
        return floe_status_wrap(st, "%s", p);
    }
    if (initial) f->initial_default = v;
    else f->write_default = v;
    return NULL;
}

static floe_status parse_field(json_t *jf, floe_ice_field *f, const char *ctx, const char *parent_path, int idx) {
    char where[32];
    snprintf(where, sizeof where, "#%d", idx);
    if (!json_is_object(jf)) return type_err(ctx, parent_path, "struct field %s is not an object", where);
    json_t *jname = json_object_get(jf, "name");
    const char *name = json_string_value(jname);
    char *path = join_path(parent_path, name ? name : where);
    if (!path) return oom();
    floe_status st = NULL;
    json_t *jid = json_object_get(jf, "id");
    json_t *jreq = json_object_get(jf, "required");
    json_t *jtype = json_object_get(jf, "type");
    json_t *jdoc = json_object_get(jf, "doc");
    if (!name) st = type_err(ctx, path, "%s", jname ? "'name' must be a string" : "missing 'name'");
    else if (!jid) st = type_err(ctx, path, "%s", "missing 'id'");
    else if (!json_is_integer(jid) || json_integer_value(jid) < 0 || json_integer_value(jid) > INT32_MAX)
        st = type_err(ctx, path, "%s", "'id' must be a non-negative 32-bit integer");
    else if (!jreq) st = type_err(ctx, path, "%s", "missing 'required'");
    else if (!json_is_boolean(jreq)) st = type_err(ctx, path, "%s", "'required' must be a boolean");
    else if (!jtype) st = type_err(ctx, path, "%s", "missing 'type'");
    else if (jdoc && !json_is_null(jdoc) && !json_is_string(jdoc))
        st = type_err(ctx, path, "%s", "'doc' must be a string");
    if (!st) {
        f->id = (int32_t)json_integer_value(jid);
        f->required = json_is_true(jreq);
        f->name = floe_strdup(name);
        if (json_is_string(jdoc)) f->doc = floe_strdup(json_string_value(jdoc));
        if (!f->name || (json_is_string(jdoc) && !f->doc)) st = oom();
    }
    if (!st) st = floe_ice_type_from_json(jtype, ctx, path, &f->type);
    if (!st) st = parse_default(json_object_get(jf, "initial-default"), f, true, ctx, path);
    if (!st) st = parse_default(json_object_get(jf, "write-default"), f, false, ctx, path);
    floe_free(path);
    return st;
}

static floe_status child_id(json_t *obj, const char *key, const char *ctx, const char *path, int32_t *out) {
    json_t *j = json_object_get(obj, key);
    if (!j) return type_err(ctx, path, "missing '%s'", key);
    if (!json_is_integer(j) || json_integer_value(j) < 0 || json_integer_value(j) > INT32_MAX)
        return type_err(ctx, path, "'%s' must be a non-negative 32-bit integer", key);
    *out = (int32_t)json_integer_value(j);
    return NULL;
}

static floe_status child_bool(json_t *obj, const char *key, const char *ctx, const char *path, bool *out) {
    json_t *j = json_object_get(obj, key);
    if (!j) return type_err(ctx, path, "missing '%s'", key);
    if (!json_is_boolean(j)) return type_err(ctx, path, "'%s' must be a boolean", key);
    *out = json_is_true(j);
    return NULL;
}

static floe_status child_type(json_t *obj, const char *key, const char *ctx, const char *path, const char *name,
                              floe_ice_type **out) {
    json_t *j = json_object_get(obj, key);
    if (!j) return type_err(ctx, path, "missing '%s'", key);
    char *p = join_path(path, name);
    if (!p) return oom();
    floe_status st = floe_ice_type_from_json(j, ctx, p, out);
    floe_free(p);
    return st;
}

static floe_status struct_from_json(json_t *j, const char *ctx, const char *path, floe_ice_type **out) {
    json_t *fields = json_object_get(j, "fields");
    if (!fields) return type_err(ctx, path, "%s", "struct is missing 'fields'");
    if (!json_is_array(fields)) return type_err(ctx, path, "%s", "struct 'fields' must be an array");
    floe_ice_type *t = type_alloc(FLOE_ICE_STRUCT);
    if (!t) return oom();
    size_t n = json_array_size(fields);
    floe_status st = NULL;
    if (n > 0) {
        t->fields = floe_calloc(n, sizeof *t->fields);
        if (!t->fields) st = oom();
    }
    for (size_t i = 0; !st && i < n; i++) {
        t->n_fields = (int32_t)i + 1; /* so a partial field is freed on error */
        st = parse_field(json_array_get(fields, i), &t->fields[i], ctx, path, (int)i);
    }
    if (st) {
        floe_ice_type_free(t);
        return st;
    }
    *out = t;
    return NULL;
}

floe_status floe_ice_type_from_json(json_t *j, const char *ctx, const char *path, floe_ice_type **out) {
    *out = NULL;
    if (!ctx) ctx = "type";
    if (!path) path = "";
    if (json_is_string(j)) {
        floe_status st = floe_ice_type_parse(json_string_value(j), out);
        if (st) {
            floe_code code = floe_status_code(st);
            floe_status_free(st);
            if (code == FLOE_ERR_OUT_OF_MEMORY) return oom();
            return type_err(ctx, path, "unknown or invalid type '%s'", json_string_value(j));
        }
        return NULL;
    }
    if (!json_is_object(j)) return type_err(ctx, path, "%s", "'type' must be a string or an object");
    const char *kind = json_string_value(json_object_get(j, "type"));
    if (!kind) return type_err(ctx, path, "%s", "nested type object has no string 'type'");
    if (strcmp(kind, "struct") == 0) return struct_from_json(j, ctx, path, out);
    floe_status st;
    if (strcmp(kind, "list") == 0) {
        int32_t id = 0;
        bool req = false;
        floe_ice_type *elem = NULL;
        if ((st = child_id(j, "element-id", ctx, path, &id)) || (st = child_bool(j, "element-required", ctx, path, &req)) ||
            (st = child_type(j, "element", ctx, path, "element", &elem)))
            return st;
        return floe_ice_type_list(id, req, elem, out);
    }
    if (strcmp(kind, "map") == 0) {
        int32_t kid = 0, vid = 0;
        bool vreq = false;
        floe_ice_type *kt = NULL, *vt = NULL;
        if ((st = child_id(j, "key-id", ctx, path, &kid)) || (st = child_id(j, "value-id", ctx, path, &vid)) ||
            (st = child_bool(j, "value-required", ctx, path, &vreq)) ||
            (st = child_type(j, "key", ctx, path, "key", &kt)))
            return st;
        if ((st = child_type(j, "value", ctx, path, "value", &vt))) {
            floe_ice_type_free(kt);
            return st;
        }
        return floe_ice_type_map(kid, kt, vid, vreq, vt, out);
    }
    return type_err(ctx, path, "unknown nested type '%s'", kind);
}

static floe_status set_new(json_t *obj, const char *key, json_t *v) {
    if (!v || json_object_set_new(obj, key, v) != 0) return oom();
    return NULL;
}

static floe_status default_to_json(const floe_ice_value *v, const char *txt, json_t **out) {
    *out = NULL;
    if (v) return floe_ice_value_to_json(v, out);
    json_error_t err;
    *out = json_loads(txt, JSON_DECODE_ANY, &err);
    return *out ? NULL : floe_error(FLOE_ERR_INTERNAL, "stored default is not JSON: %s", err.text);
}

static floe_status field_to_json(const floe_ice_field *f, json_t **out) {
    json_t *o = json_object();
    if (!o) return oom();
    floe_status st = set_new(o, "id", json_integer(f->id));
    if (!st) st = set_new(o, "name", json_string(f->name));
    if (!st) st = set_new(o, "required", json_boolean(f->required));
    json_t *jt = NULL;
    if (!st) st = floe_ice_type_to_json(f->type, &jt);
    if (!st) st = set_new(o, "type", jt);
    if (!st && f->doc) st = set_new(o, "doc", json_string(f->doc));
    for (int k = 0; k < 2 && !st; k++) {
        const floe_ice_value *v = k ? f->write_default : f->initial_default;
        const char *txt = k ? f->write_default_json : f->initial_default_json;
        if (!v && !txt) continue;
        json_t *jd = NULL;
        st = default_to_json(v, txt, &jd);
        if (!st) st = set_new(o, k ? "write-default" : "initial-default", jd);
    }
    if (st) {
        json_decref(o);
        return st;
    }
    *out = o;
    return NULL;
}

floe_status floe_ice_type_to_json(const floe_ice_type *t, json_t **out) {
    *out = NULL;
    floe_status st = NULL;
    if (floe_ice_type_is_primitive(t)) {
        char *s;
        FLOE_TRY(floe_ice_type_to_string(t, &s));
        *out = json_string(s);
        floe_free(s);
        return *out ? NULL : oom();
    }
    json_t *o = json_object();
    if (!o) return oom();
    st = set_new(o, "type", json_string(floe_ice_type_id_name(t->id)));
    if (!st && t->id == FLOE_ICE_STRUCT) {
        json_t *arr = json_array();
        st = set_new(o, "fields", arr);
        for (int32_t i = 0; !st && i < t->n_fields; i++) {
            json_t *jf = NULL;
            st = field_to_json(&t->fields[i], &jf);
            if (!st && json_array_append_new(arr, jf) != 0) st = oom();
        }
    } else if (!st && t->id == FLOE_ICE_LIST) {
        json_t *je = NULL;
        st = set_new(o, "element-id", json_integer(t->fields[0].id));
        if (!st) st = floe_ice_type_to_json(t->fields[0].type, &je);
        if (!st) st = set_new(o, "element", je);
        if (!st) st = set_new(o, "element-required", json_boolean(t->fields[0].required));
    } else if (!st) {
        json_t *jk = NULL, *jv = NULL;
        st = set_new(o, "key-id", json_integer(t->fields[0].id));
        if (!st) st = floe_ice_type_to_json(t->fields[0].type, &jk);
        if (!st) st = set_new(o, "key", jk);
        if (!st) st = set_new(o, "value-id", json_integer(t->fields[1].id));
        if (!st) st = floe_ice_type_to_json(t->fields[1].type, &jv);
        if (!st) st = set_new(o, "value", jv);
        if (!st) st = set_new(o, "value-required", json_boolean(t->fields[1].required));
    }
    if (st) {
        json_decref(o);
        return st;
    }
    *out = o;
    return NULL;
}

/* ---- shared JSON helpers ------------------------------------------------ */

floe_status floe_ice_json_parse_text(const char *text, const char *what, json_t **out) {
    *out = NULL;
    if (!text) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: no JSON text", what);
    json_error_t err;
    *out = json_loads(text, JSON_DECODE_ANY, &err);
    if (!*out)
        return floe_error(FLOE_ERR_CORRUPT, "%s: invalid JSON at line %d column %d: %s", what, err.line,
                          err.column, err.text);
    return NULL;
}

floe_status floe_ice_json_dump(json_t *j, char **out) {
    *out = NULL;
    char *txt = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!txt) return oom();
    *out = floe_strdup(txt);
    free(txt);
    return *out ? NULL : oom();
}

floe_status floe_ice_json_int32(json_t *obj, const char *key, bool required, const char *ctx, int32_t *out) {
    json_t *j = json_object_get(obj, key);
    if (!j) {
        if (required) return floe_error(FLOE_ERR_CORRUPT, "%s: missing '%s'", ctx, key);
        return NULL;
    }
    if (!json_is_integer(j) || json_integer_value(j) < INT32_MIN || json_integer_value(j) > INT32_MAX)
        return floe_error(FLOE_ERR_CORRUPT, "%s: '%s' must be a 32-bit integer", ctx, key);
    *out = (int32_t)json_integer_value(j);
    return NULL;
}

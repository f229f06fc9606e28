/*
 * schema.c — Avro schemas: parsing JSON into a schema graph, and writing it
 * back with every attribute kept.
 *
 * A schema is a graph, not a tree: a named type referenced later (or from
 * inside itself, for recursive types) is the same node.  All nodes belong to
 * a pool hung off the root, so freeing the root frees everything once.
 *
 * Attributes the model does not interpret — and Iceberg's ids, which it
 * does — are kept in `attrs` so writing reproduces them.
 */
#include "formats/avro/avro.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/memory.h"

typedef struct floe_avro_pool {
    floe_avro_schema **nodes;
    size_t n, cap;
} floe_avro_pool;

const char *floe_avro_type_name(floe_avro_type t) {
    static const char *names[] = {"null", "boolean", "int", "long", "float", "double", "bytes",
                                  "string", "record", "enum", "array", "map", "union", "fixed"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

static const struct {
    const char *name;
    floe_avro_logical lt;
} logical_names[] = {
    {"decimal", FLOE_AVRO_LT_DECIMAL},
    {"uuid", FLOE_AVRO_LT_UUID},
    {"date", FLOE_AVRO_LT_DATE},
    {"time-millis", FLOE_AVRO_LT_TIME_MILLIS},
    {"time-micros", FLOE_AVRO_LT_TIME_MICROS},
    {"timestamp-millis", FLOE_AVRO_LT_TIMESTAMP_MILLIS},
    {"timestamp-micros", FLOE_AVRO_LT_TIMESTAMP_MICROS},
    {"timestamp-nanos", FLOE_AVRO_LT_TIMESTAMP_NANOS},
    {"local-timestamp-millis", FLOE_AVRO_LT_LOCAL_TIMESTAMP_MILLIS},
    {"local-timestamp-micros", FLOE_AVRO_LT_LOCAL_TIMESTAMP_MICROS},
    {"local-timestamp-nanos", FLOE_AVRO_LT_LOCAL_TIMESTAMP_NANOS},
    {"duration", FLOE_AVRO_LT_DURATION},
};

static const char *logical_name(floe_avro_logical lt) {
    for (size_t i = 0; i < sizeof logical_names / sizeof logical_names[0]; i++)
        if (logical_names[i].lt == lt) return logical_names[i].name;
    return NULL;
}

/* ---- parse context ------------------------------------------------------ */

typedef struct parse_ctx {
    floe_avro_pool *pool;
} parse_ctx;

static floe_avro_schema *new_node(parse_ctx *cx, floe_avro_type t) {
    floe_avro_pool *p = cx->pool;
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 32;
        floe_avro_schema **nn = floe_realloc(p->nodes, cap * sizeof *nn);
        if (!nn) return NULL;
        p->nodes = nn;
        p->cap = cap;
    }
    floe_avro_schema *s = floe_calloc(1, sizeof *s);
    if (!s) return NULL;
    s->type = t;
    s->element_id = s->key_id = s->value_id = FLOE_AVRO_NO_ID;
    p->nodes[p->n++] = s;
    return s;
}

static floe_status nomem(void) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory parsing an Avro schema");
}

static int primitive_type(const char *s, floe_avro_type *t) {
    static const struct {
        const char *n;
        floe_avro_type t;
    } prims[] = {{"null", FLOE_AVRO_NULL},     {"boolean", FLOE_AVRO_BOOLEAN},
                 {"int", FLOE_AVRO_INT},       {"long", FLOE_AVRO_LONG},
                 {"float", FLOE_AVRO_FLOAT},   {"double", FLOE_AVRO_DOUBLE},
                 {"bytes", FLOE_AVRO_BYTES},   {"string", FLOE_AVRO_STRING}};
    for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++) {
        if (strcmp(s, prims[i].n) == 0) {
            *t = prims[i].t;
            return 1;
        }
    }
    return 0;
}

/* Avro names: [A-Za-z_][A-Za-z0-9_]*, dot-separated when qualified.  '$' is
 * also accepted: Java reflection writes names like "Outer$Inner". */
static int valid_name(const char *s, int dotted) {
    if (!*s) return 0;
    int start = 1;
    for (; *s; s++) {
        if (*s == '.' && dotted && !start) {
            start = 1;
            continue;
        }
        if (!(isalpha((unsigned char)*s) || *s == '_' || *s == '$' || (!start && isdigit((unsigned char)*s))))
            return 0;
        start = 0;
    }
    return !start;
}

static floe_avro_schema *lookup_name(parse_ctx *cx, const char *fullname) {
    for (size_t i = 0; i < cx->pool->n; i++) {
        floe_avro_schema *s = cx->pool->nodes[i];
        if (s->fullname && strcmp(s->fullname, fullname) == 0) return s;
    }
    return NULL;
}

/* An integer attribute such as "field-id" (ints, or digit strings, which
 * some writers emit). */
static int64_t id_attr(json_t *obj, const char *key) {
    json_t *v = json_object_get(obj, key);
    if (json_is_integer(v)) return json_integer_value(v);
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;
        long long x = strtoll(s, &end, 10);
        if (*s && !*end) return x;
    }
    return FLOE_AVRO_NO_ID;
}

/* Copy every key of `obj` not in `skip` into a new object (NULL if none). */
static floe_status extra_attrs(json_t *obj, const char *const *skip, json_t **out) {
    *out = NULL;
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        int known = 0;
        for (const char *const *s = skip; *s; s++)
            if (strcmp(*s, k) == 0) known = 1;
        if (known) continue;
        if (!*out && !(*out = json_object())) return nomem();
        if (json_object_set(*out, k, v) != 0) return nomem();
    }
    return NULL;
}

static floe_status parse_aliases(json_t *obj, const char *path, char ***out, size_t *n) {
    json_t *a = json_object_get(obj, "aliases");
    if (!a) return NULL;
    if (!json_is_array(a))
        return floe_error(FLOE_ERR_CORRUPT, "schema %s: 'aliases' must be an array of names", path);
    *out = floe_calloc(json_array_size(a) + 1, sizeof(char *));
    if (!*out) return nomem();
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        if (!json_is_string(v))
            return floe_error(FLOE_ERR_CORRUPT, "schema %s: alias %zu is not a string", path, i);
        if (!((*out)[i] = floe_strdup(json_string_value(v)))) return nomem();
        *n = i + 1;
    }
    return NULL;
}

static floe_status opt_string(json_t *obj, const char *key, const char *path, char **out) {
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v)) return NULL;
    if (!json_is_string(v))
        return floe_error(FLOE_ERR_CORRUPT, "schema %s: '%s' must be a string", path, key);
    *out = floe_strdup(json_string_value(v));
    return *out ? NULL : nomem();
}

static floe_status parse_type(parse_ctx *cx, json_t *j, const char *ns, const char *path,
                              floe_avro_schema **out);

/* Logical type on a primitive or fixed node; unknown or invalid ones are
 * left in attrs and ignored, as the spec says. */
static void apply_logical(floe_avro_schema *s, json_t *obj) {
    const char *lt = json_string_value(json_object_get(obj, "logicalType"));
    if (!lt) return;
    floe_avro_logical l = FLOE_AVRO_LT_NONE;
    for (size_t i = 0; i < sizeof logical_names / sizeof logical_names[0]; i++)
        if (strcmp(lt, logical_names[i].name) == 0) l = logical_names[i].lt;
    floe_avro_type t = s->type;
    int ok = 0;
    switch (l) {
    case FLOE_AVRO_LT_NONE: break;
    case FLOE_AVRO_LT_DECIMAL: {
        json_t *p = json_object_get(obj, "precision"), *sc = json_object_get(obj, "scale");
        if ((t == FLOE_AVRO_BYTES || t == FLOE_AVRO_FIXED) && json_is_integer(p) &&
            json_integer_value(p) > 0 && json_integer_value(p) <= 1000 &&
            (!sc || (json_is_integer(sc) && json_integer_value(sc) >= 0 &&
                     json_integer_value(sc) <= json_integer_value(p)))) {
            s->precision = (int)json_integer_value(p);
            s->scale = sc ? (int)json_integer_value(sc) : 0;
            ok = 1;
        }
        break;
    }
    case FLOE_AVRO_LT_UUID: ok = t == FLOE_AVRO_STRING || (t == FLOE_AVRO_FIXED && s->fixed_size == 16); break;
    case FLOE_AVRO_LT_DATE:
    case FLOE_AVRO_LT_TIME_MILLIS: ok = t == FLOE_AVRO_INT; break;
    case FLOE_AVRO_LT_DURATION: ok = t == FLOE_AVRO_FIXED && s->fixed_size == 12; break;
    default: ok = t == FLOE_AVRO_LONG; break;
    }
    if (ok) s->logical = l;
}

static floe_status parse_named(parse_ctx *cx, floe_avro_schema *s, json_t *obj, const char *ns,
                               const char *path) {
    json_t *nm = json_object_get(obj, "name");
    if (!json_is_string(nm))
        return floe_error(FLOE_ERR_CORRUPT, "schema %s: %s needs a string 'name'", path,
                          floe_avro_type_name(s->type));
    const char *name = json_string_value(nm);
    FLOE_TRY(opt_string(obj, "namespace", path, &s->space));
    if (!(s->name = floe_strdup(name))) return nomem();
    const char *space = s->space ? s->space : ns;
    if (strchr(name, '.')) {
        s->fullname = floe_strdup(name);
    } else if (space && *space) {
        size_t n = strlen(space) + strlen(name) + 2;
        if ((s->fullname = floe_malloc(n))) snprintf(s->fullname, n, "%s.%s", space, name);
    } else {
        s->fullname = floe_strdup(name);
    }
    if (!s->fullname) return nomem();
    if (!valid_name(s->fullname, 1))
        return floe_error(FLOE_ERR_CORRUPT, "schema %s: invalid name '%s'", path, s->fullname);
    if (lookup_name(cx, s->fullname) && lookup_name(cx, s->fullname) != s)
        return floe_error(FLOE_ERR_CORRUPT, "schema %s: type '%s' is defined twice", path, s->fullname);
    FLOE_TRY(opt_string(obj, "doc", path, &s->doc));
    FLOE_TRY(parse_aliases(obj, path, &s->aliases, &s->n_aliases));
    return NULL;
}

/* The namespace nested definitions inherit from a named type, as a fresh
 * string (the caller frees), or NULL for the null namespace. */
static char *child_ns(const floe_avro_schema *s) {
    const char *dot = strrchr(s->fullname, '.');
    return dot ? floe_strndup(s->fullname, (size_t)(dot - s->fullname)) : NULL;
}

static floe_status parse_record(parse_ctx *cx, floe_avro_schema *s, json_t *obj, const char *path) {
    json_t *fields = json_object_get(obj, "fields");
    if (!json_is_array(fields))
        return floe_error(FLOE_ERR_CORRUPT, "schema %s: record '%s' needs a 'fields' array", path,
                          s->fullname);
    size_t n = json_array_size(fields);
    s->fields = floe_calloc(n ? n : 1, sizeof *s->fields);
    if (!s->fields) return nomem();
    char *ns = child_ns(s);
    floe_status st = NULL;
    char fpath[512];
    for (size_t i = 0; i < n && !st; i++) {
        json_t *f = json_array_get(fields, i);
        floe_avro_field *fd = &s->fields[i];
        fd->field_id = FLOE_AVRO_NO_ID;
        s->n_fields = i + 1;
        if (!json_is_object(f)) {
            st = floe_error(FLOE_ERR_CORRUPT, "schema %s: field %zu of '%s' is not an object", path,
                            i, s->fullname);
            break;
        }
        const char *fname = json_string_value(json_object_get(f, "name"));
        if (!fname || !*fname) {
            st = floe_error(FLOE_ERR_CORRUPT, "schema %s: field %zu of '%s' has no name", path, i,
                            s->fullname);
            break;
        }
        for (size_t k = 0; k < i; k++) {
            if (strcmp(s->fields[k].name, fname) == 0) {
                st = floe_error(FLOE_ERR_CORRUPT, "schema %s: field '%s' appears twice in '%s'",
                                path, fname, s->fullname);
                break;
            }
        }
        if (st) break;
        /* Paths read "field 'outer.inner'" so errors point into nesting. */
        size_t pl = strlen(path);
        if (strncmp(path, "field '", 7) == 0 && pl > 8)
            snprintf(fpath, sizeof fpath, "field '%.*s.%s'", (int)(pl - 8), path + 7, fname);
        else
            snprintf(fpath, sizeof fpath, "field '%s'", fname);
        if (!(fd->name = floe_strdup(fname))) {
            st = nomem();
            break;
        }
        json_t *ft = json_object_get(f, "type");
        if (!ft) {
            st = floe_error(FLOE_ERR_CORRUPT, "schema %s: no 'type'", fpath);
            break;
        }
        st = parse_type(cx, ft, ns, fpath, &fd->type);
        if (st) break;
        json_t *def = json_object_get(f, "default");
        if (def) fd->default_value = json_incref(def);
        st = opt_string(f, "doc", fpath, &fd->doc);
        if (!st) st = parse_aliases(f, fpath, &fd->aliases, &fd->n_aliases);
        fd->field_id = id_attr(f, "field-id");
        static const char *const skip[] = {"name", "type", "default", "doc", "aliases", NULL};
        if (!st) st = extra_attrs(f, skip, &fd->attrs);
    }
    floe_free(ns);
    return st;
}

static floe_status parse_enum(floe_avro_schema *s, json_t *obj, const char *path) {
    json_t *syms = json_object_get(obj, "symbols");
    if (!json_is_array(syms))
        return floe_error(FLOE_ERR_CORRUPT, "schema %s: enum '%s' needs a 'symbols' array", path,
                          s->fullname);
    size_t n = json_array_size(syms);
    s->symbols = floe_calloc(n ? n : 1, sizeof(char *));
    if (!s->symbols) return nomem();
    for (size_t i = 0; i < n; i++) {
        const char *sym = json_string_value(json_array_get(syms, i));
        if (!sym || !valid_name(sym, 0))
            return floe_error(FLOE_ERR_CORRUPT, "schema %s: enum '%s' symbol %zu is not a valid name",
                              path, s->fullname, i);
        for (size_t k = 0; k < i; k++)
            if (strcmp(s->symbols[k], sym) == 0)
                return floe_error(FLOE_ERR_CORRUPT, "schema %s: enum '%s' repeats symbol '%s'", path,
                                  s->fullname, sym);
        if (!(s->symbols[i] = floe_strdup(sym))) return nomem();
        s->n_symbols = i + 1;
    }
    return opt_string(obj, "default", path, &s->enum_default);
}

static floe_status parse_object(parse_ctx *cx, json_t *obj, const char *ns, const char *path,
                                floe_avro_schema **out) {
    json_t *tj = json_object_get(obj, "type");
    if (!tj) return floe_error(FLOE_ERR_CORRUPT, "schema %s: object without 'type'", path);
    if (!json_is_string(tj)) return parse_type(cx, tj, ns, path, out); /* {"type": {...}} */
    const char *t = json_string_value(tj);
    floe_avro_type pt;
    floe_avro_schema *s;
    static const char *const skip_prim[] = {"type", NULL};
    static const char *const skip_named[] = {"type", "name", "namespace", "doc", "aliases",
                                             "fields", "symbols", "default", "size", NULL};
    static const char *const skip_array[] = {"type", "items", NULL};
    static const char *const skip_map[] = {"type", "values", NULL};
    const char *const *skip = skip_prim;
    floe_status st = NULL;
    if (primitive_type(t, &pt)) {
        if (!(s = new_node(cx, pt))) return nomem();
    } else if (!strcmp(t, "record") || !strcmp(t, "error")) {
        if (!(s = new_node(cx, FLOE_AVRO_RECORD))) return nomem();
        s->is_error = t[0] == 'e';
        FLOE_TRY(parse_named(cx, s, obj, ns, path));
        FLOE_TRY(parse_record(cx, s, obj, path));
        skip = skip_named;
    } else if (!strcmp(t, "enum")) {
        if (!(s = new_node(cx, FLOE_AVRO_ENUM))) return nomem();
        FLOE_TRY(parse_named(cx, s, obj, ns, path));
        FLOE_TRY(parse_enum(s, obj, path));
        skip = skip_named;
    } else if (!strcmp(t, "fixed")) {
        if (!(s = new_node(cx, FLOE_AVRO_FIXED))) return nomem();
        FLOE_TRY(parse_named(cx, s, obj, ns, path));
        json_t *sz = json_object_get(obj, "size");
        if (!json_is_integer(sz) || json_integer_value(sz) < 0 || json_integer_value(sz) > (1 << 30))
            return floe_error(FLOE_ERR_CORRUPT, "schema %s: fixed '%s' needs a non-negative 'size'",
                              path, s->fullname);
        s->fixed_size = (size_t)json_integer_value(sz);
        skip = skip_named;
    } else if (!strcmp(t, "array")) {
        if (!(s = new_node(cx, FLOE_AVRO_ARRAY))) return nomem();
        json_t *it = json_object_get(obj, "items");
        if (!it) return floe_error(FLOE_ERR_CORRUPT, "schema %s: array without 'items'", path);
        FLOE_TRY(parse_type(cx, it, ns, path, &s->items));
        s->element_id = id_attr(obj, "element-id");
        skip = skip_array;
    } else if (!strcmp(t, "map")) {
        if (!(s = new_node(cx, FLOE_AVRO_MAP))) return nomem();
        json_t *it = json_object_get(obj, "values");
        if (!it) return floe_error(FLOE_ERR_CORRUPT, "schema %s: map without 'values'", path);
        FLOE_TRY(parse_type(cx, it, ns, path, &s->values));
        s->key_id = id_attr(obj, "key-id");
        s->value_id = id_attr(obj, "value-id");
        skip = skip_map;
    } else {
        /* {"type": "SomeNamedType"}: a reference with (ignored) attributes. */
        return parse_type(cx, tj, ns, path, out);
    }
    apply_logical(s, obj);
    st = extra_attrs(obj, skip, &s->attrs);
    if (!st && s->logical != FLOE_AVRO_LT_NONE && s->attrs) {
        /* Modelled logical types are written from the model, not attrs. */
        json_object_del(s->attrs, "logicalType");
        if (s->logical == FLOE_AVRO_LT_DECIMAL) {
            json_object_del(s->attrs, "precision");
            json_object_del(s->attrs, "scale");
        }
        if (json_object_size(s->attrs) == 0) {
            json_decref(s->attrs);
            s->attrs = NULL;
        }
    }
    *out = s;
    return st;
}

static floe_status parse_union(parse_ctx *cx, json_t *arr, const char *ns, const char *path,
                               floe_avro_schema **out) {
    floe_avro_schema *s = new_node(cx, FLOE_AVRO_UNION);
    if (!s) return nomem();
    size_t n = json_array_size(arr);
    s->branches = floe_calloc(n ? n : 1, sizeof *s->branches);
    if (!s->branches) return nomem();
    for (size_t i = 0; i < n; i++) {
        floe_avro_schema *b;
        FLOE_TRY(parse_type(cx, json_array_get(arr, i), ns, path, &b));
        if (b->type == FLOE_AVRO_UNION)
            return floe_error(FLOE_ERR_CORRUPT, "schema %s: a union may not contain a union", path);
        for (size_t k = 0; k < i; k++) {
            floe_avro_schema *o = s->branches[k];
            int named = b->type == FLOE_AVRO_RECORD || b->type == FLOE_AVRO_ENUM || b->type == FLOE_AVRO_FIXED;
            if (o->type == b->type && (!named || strcmp(o->fullname, b->fullname) == 0))
                return floe_error(FLOE_ERR_CORRUPT, "schema %s: union has two '%s' branches", path,
                                  named ? b->fullname : floe_avro_type_name(b->type));
        }
        s->branches[i] = b;
        s->n_branches = i + 1;
    }
    *out = s;
    return NULL;
}

static floe_status parse_type(parse_ctx *cx, json_t *j, const char *ns, const char *path,
                              floe_avro_schema **out) {
    if (json_is_object(j)) return parse_object(cx, j, ns, path, out);
    if (json_is_array(j)) return parse_union(cx, j, ns, path, out);
    if (!json_is_string(j))
        return floe_error(FLOE_ERR_CORRUPT, "schema %s: a type must be a string, object or array", path);
    const char *t = json_string_value(j);
    floe_avro_type pt;
    if (primitive_type(t, &pt)) {
        if (!(*out = new_node(cx, pt))) return nomem();
        return NULL;
    }
    floe_avro_schema *s = NULL;
    if (!strchr(t, '.') && ns && *ns) {
        char full[1024];
        snprintf(full, sizeof full, "%s.%s", ns, t);
        s = lookup_name(cx, full);
    }
    if (!s) s = lookup_name(cx, t);
    if (!s) return floe_error(FLOE_ERR_CORRUPT, "schema %s: unknown type '%s'", path, t);
    *out = s;
    return NULL;
}

static void free_node(floe_avro_schema *s) {
    floe_free(s->name);
    floe_free(s->space);
    floe_free(s->fullname);
    floe_free(s->doc);
    for (size_t i = 0; i < s->n_aliases; i++) floe_free(s->aliases[i]);
    floe_free(s->aliases);
    for (size_t i = 0; i < s->n_fields; i++) {
        floe_avro_field *f = &s->fields[i];
        floe_free(f->name);
        floe_free(f->doc);
        for (size_t k = 0; k < f->n_aliases; k++) floe_free(f->aliases[k]);
        floe_free(f->aliases);
        if (f->default_value) json_decref(f->default_value);
        if (f->attrs) json_decref(f->attrs);
    }
    floe_free(s->fields);
    for (size_t i = 0; i < s->n_symbols; i++) floe_free(s->symbols[i]);
    floe_free(s->symbols);
    floe_free(s->enum_default);
    floe_free(s->branches);
    if (s->attrs) json_decref(s->attrs);
    floe_free(s);
}

static void pool_free(floe_avro_pool *p) {
    for (size_t i = 0; i < p->n; i++) free_node(p->nodes[i]);
    floe_free(p->nodes);
    floe_free(p);
}

void floe_avro_schema_free(floe_avro_schema *s) {
    if (!s) return;
    if (s->pool) pool_free(s->pool);
}

floe_status floe_avro_schema_from_json(json_t *j, floe_avro_schema **out) {
    *out = NULL;
    floe_avro_pool *pool = floe_calloc(1, sizeof *pool);
    if (!pool) return nomem();
    parse_ctx cx = {pool};
    floe_avro_schema *root = NULL;
    floe_status st = parse_type(&cx, j, NULL, "root", &root);
    if (st) {
        pool_free(pool);
        return st;
    }
    /* A bare reference can't be the root of a fresh pool; but primitives
     * and definitions always are new nodes, so root is in the pool. */
    root->pool = pool;
    *out = root;
    return NULL;
}

floe_status floe_avro_schema_parse(const char *text, size_t len, floe_avro_schema **out) {
    *out = NULL;
    json_error_t err;
    json_t *j = json_loadb(text, len, JSON_DECODE_ANY, &err);
    if (!j)
        return floe_error(FLOE_ERR_CORRUPT, "schema JSON: %s at line %d column %d", err.text,
                          err.line, err.column);
    floe_status st = floe_avro_schema_from_json(j, out);
    json_decref(j);
    return st;
}

/* ---- writing ------------------------------------------------------------- */

typedef struct write_ctx {
    const floe_avro_schema **seen;
    size_t n, cap;
    int oom;
} write_ctx;

static int set_new(json_t *o, const char *k, json_t *v, write_ctx *w) {
    if (!v || json_object_set_new(o, k, v) != 0) {
        w->oom = 1;
        return -1;
    }
    return 0;
}

static void merge_attrs(json_t *o, json_t *attrs, write_ctx *w) {
    const char *k;
    json_t *v;
    if (!attrs) return;
    json_object_foreach(attrs, k, v) {
        if (!json_object_get(o, k) && json_object_set(o, k, v) != 0) w->oom = 1;
    }
}

static json_t *aliases_json(char **a, size_t n, write_ctx *w) {
    json_t *arr = json_array();
    if (!arr) {
        w->oom = 1;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (json_array_append_new(arr, json_string(a[i])) != 0) w->oom = 1;
    return arr;
}

static json_t *to_json(const floe_avro_schema *s, write_ctx *w);

static json_t *named_json(const floe_avro_schema *s, write_ctx *w) {
    for (size_t i = 0; i < w->n; i++)
        if (w->seen[i] == s) return json_string(s->fullname);
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        const floe_avro_schema **nn = floe_realloc(w->seen, cap * sizeof *nn);
        if (!nn) {
            w->oom = 1;
            return NULL;
        }
        w->seen = nn;
        w->cap = cap;
    }
    w->seen[w->n++] = s;
    json_t *o = json_object();
    if (!o) return NULL;
    const char *tn = s->type == FLOE_AVRO_RECORD ? (s->is_error ? "error" : "record")
                                                 : floe_avro_type_name(s->type);
    set_new(o, "type", json_string(tn), w);
    set_new(o, "name", json_string(s->name), w);
    if (s->space) set_new(o, "namespace", json_string(s->space), w);
    if (s->doc) set_new(o, "doc", json_string(s->doc), w);
    if (s->n_aliases) set_new(o, "aliases", aliases_json(s->aliases, s->n_aliases, w), w);
    if (s->type == FLOE_AVRO_RECORD) {
        json_t *fields = json_array();
        if (!fields) w->oom = 1;
        for (size_t i = 0; fields && i < s->n_fields; i++) {
            const floe_avro_field *f = &s->fields[i];
            json_t *fo = json_object();
            if (!fo || json_array_append_new(fields, fo) != 0) {
                w->oom = 1;
                break;
            }
            set_new(fo, "name", json_string(f->name), w);
            set_new(fo, "type", to_json(f->type, w), w);
            if (f->doc) set_new(fo, "doc", json_string(f->doc), w);
            if (f->default_value) set_new(fo, "default", json_incref(f->default_value), w);
            if (f->n_aliases) set_new(fo, "aliases", aliases_json(f->aliases, f->n_aliases, w), w);
            merge_attrs(fo, f->attrs, w);
        }
        set_new(o, "fields", fields, w);
    } else if (s->type == FLOE_AVRO_ENUM) {
        set_new(o, "symbols", aliases_json(s->symbols, s->n_symbols, w), w);
        if (s->enum_default) set_new(o, "default", json_string(s->enum_default), w);
    } else {
        set_new(o, "size", json_integer((json_int_t)s->fixed_size), w);
    }
    return o;
}

static json_t *to_json(const floe_avro_schema *s, write_ctx *w) {
    json_t *o = NULL;
    switch (s->type) {
    case FLOE_AVRO_RECORD:
    case FLOE_AVRO_ENUM:
    case FLOE_AVRO_FIXED: {
        int first = 1;
        for (size_t i = 0; i < w->n; i++)
            if (w->seen[i] == s) first = 0;
        o = named_json(s, w);
        if (!first) return o;
        break;
    }
    case FLOE_AVRO_UNION:
        o = json_array();
        for (size_t i = 0; o && i < s->n_branches; i++)
            if (json_array_append_new(o, to_json(s->branches[i], w)) != 0) w->oom = 1;
        if (!o) w->oom = 1;
        return o;
    case FLOE_AVRO_ARRAY:
        o = json_object();
        if (!o) break;
        set_new(o, "type", json_string("array"), w);
        set_new(o, "items", to_json(s->items, w), w);
        break;
    case FLOE_AVRO_MAP:
        o = json_object();
        if (!o) break;
        set_new(o, "type", json_string("map"), w);
        set_new(o, "values", to_json(s->values, w), w);
        break;
    default:
        if (!s->attrs && s->logical == FLOE_AVRO_LT_NONE) return json_string(floe_avro_type_name(s->type));
        o = json_object();
        if (o) set_new(o, "type", json_string(floe_avro_type_name(s->type)), w);
        break;
    }
    if (!o) {
        w->oom = 1;
        return NULL;
    }
    if (s->logical != FLOE_AVRO_LT_NONE) {
        set_new(o, "logicalType", json_string(logical_name(s->logical)), w);
        if (s->logical == FLOE_AVRO_LT_DECIMAL) {
            set_new(o, "precision", json_integer(s->precision), w);
            set_new(o, "scale", json_integer(s->scale), w);
        }
    }
    merge_attrs(o, s->attrs, w);
    return o;
}

json_t *floe_avro_schema_to_jansson(const floe_avro_schema *s) {
    write_ctx w = {0};
    json_t *j = to_json(s, &w);
    floe_free(w.seen);
    if (w.oom) {
        if (j) json_decref(j);
        return NULL;
    }
    return j;
}

floe_status floe_avro_schema_to_json(const floe_avro_schema *s, int pretty, floe_buf *out) {
    json_t *j = floe_avro_schema_to_jansson(s);
    if (!j) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory writing an Avro schema");
    char *text = json_dumps(j, JSON_ENCODE_ANY | JSON_PRESERVE_ORDER |
                                   (pretty ? JSON_INDENT(2) : JSON_COMPACT));
    json_decref(j);
    if (!text) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory writing an Avro schema");
    floe_status st = floe_buf_append_str(out, text);
    free(text); /* jansson's allocator */
    return st;
}

/* ---- queries -------------------------------------------------------------- */

const floe_avro_schema *floe_avro_optional_inner(const floe_avro_schema *s) {
    if (s->type != FLOE_AVRO_UNION || s->n_branches != 2) return NULL;
    if (s->branches[0]->type == FLOE_AVRO_NULL) return s->branches[1];
    if (s->branches[1]->type == FLOE_AVRO_NULL) return s->branches[0];
    return NULL;
}

int floe_avro_field_index(const floe_avro_schema *rec, const char *name) {
    for (size_t i = 0; i < rec->n_fields; i++)
        if (strcmp(rec->fields[i].name, name) == 0) return (int)i;
    return -1;
}

int floe_avro_field_index_by_id(const floe_avro_schema *rec, int64_t id) {
    for (size_t i = 0; i < rec->n_fields; i++)
        if (rec->fields[i].field_id == id) return (int)i;
    return -1;
}

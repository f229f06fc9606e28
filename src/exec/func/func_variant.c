/*
 * func_variant.c — the variant functions (semi-structured values, Iceberg
 * v3 `variant`; the encoding is floe/variant.h):
 *
 *   variant_get(v, path)              the sub-variant at a Spark-style path
 *                                     ('$.a.b[0]', "$['a.b']"), NULL when
 *                                     the path does not exist;
 *   variant_get(v, path, 'type')      that sub-variant cast to the type
 *                                     (func_variant_cast.c); a value that
 *                                     does not fit is an error (Spark's
 *                                     variant_get and CAST);
 *   try_variant_get(v, path[, type])  the same, NULL when it does not fit;
 *   variant_extract(v, key)           what v -> key binds to: the field
 *                                     `key` (text) of an object, or element
 *                                     `key` (integer; negative counts from
 *                                     the end) of an array, as a variant;
 *   variant_extract_text(v, key)      v ->> key: the same as text (a
 *                                     string's contents, JSON otherwise; a
 *                                     variant null is SQL NULL);
 *   variant_typeof(v)                 'object', 'array', 'string', 'int8',
 *                                     'decimal16', 'null' ... (the value's
 *                                     kind; floe/variant.h's names);
 *   is_variant_null(v)                true for a variant null, false for
 *                                     anything else including SQL NULL.
 *
 * A variant result keeps its input's metadata column (a zero-copy slice)
 * and copies only the sub-values' bytes.  A constant path is parsed once
 * per batch, a bad one is an error at bind time.
 */
#include <string.h>

#include "exec/func/func_variant.h"
#include "exec/func/functions.h"
#include "floe/memory.h"

enum { VF_GET, VF_TRY_GET, VF_EXTRACT, VF_EXTRACT_TEXT };

static bool variant_arg(const floe_type *t) { return t->id == FLOE_TYPE_VARIANT || t->id == FLOE_TYPE_NULL; }

static bool const_string(const floe_expr *e, floe_strview *s) {
    if (e->kind != FLOE_EXPR_LITERAL || floe_array_is_null(e->literal, 0) || e->literal->type->id != FLOE_TYPE_STRING)
        return false;
    *s = floe_array_get_str(e->literal, 0);
    return true;
}

/* ---------------------------------------------------------- type rules */

static floe_status get_type(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types,
                            int32_t n, floe_type **out) {
    *out = NULL;
    if (!variant_arg(types[0]) || !fn_is_string(types[1]) || (n == 3 && !fn_is_string(types[2])))
        return fn_type_error(def, types, n);
    floe_strview s;
    if (const_string(args[1], &s)) {
        floe_variant_path p;
        FLOE_TRY_CTX(floe_variant_path_parse(s.data, (size_t)s.len, &p), "%s", def->name);
        floe_variant_path_free(&p);
    }
    if (n == 2) {
        *out = floe_type_primitive(FLOE_TYPE_VARIANT);
        return NULL;
    }
    if (!const_string(args[2], &s)) return fn_need_const(def, 2, "a type name");
    return floe_status_wrap(fv_parse_type(s.data, (size_t)s.len, out), "%s", def->name);
}

static floe_status extract_type(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types,
                                int32_t n, floe_type **out) {
    (void)args;
    if (!variant_arg(types[0]) || !(fn_is_string(types[1]) || fn_is_int(types[1])))
        return fn_type_error(def, types, n);
    *out = floe_type_primitive(def->tag == VF_EXTRACT ? FLOE_TYPE_VARIANT : FLOE_TYPE_STRING);
    return NULL;
}

static floe_status info_type(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types,
                             int32_t n, floe_type **out) {
    (void)args;
    if (!variant_arg(types[0])) return fn_type_error(def, types, n);
    *out = floe_type_primitive(def->result);
    return NULL;
}

/* --------------------------------------------------------------- kernels */

/* The sub-value of row r for the call's key/path; *found false when there
 * is none. */
static floe_status locate(const floe_func_def *def, const floe_variant_meta *m, const floe_variant *v,
                          const floe_array *key, int64_t r, const floe_variant_path *cpath, floe_variant *sub,
                          bool *found) {
    *found = false;
    if (def->tag == VF_GET || def->tag == VF_TRY_GET) {
        if (cpath) return floe_variant_path_get(m, v, cpath, sub, found);
        floe_strview s = fn_get_str(key, r);
        floe_variant_path p;
        FLOE_TRY_CTX(floe_variant_path_parse(s.data, (size_t)s.len, &p), "%s", def->name);
        floe_status st = floe_variant_path_get(m, v, &p, sub, found);
        floe_variant_path_free(&p);
        return st;
    }
    if (key->type->id == FLOE_TYPE_STRING) {
        floe_strview s = fn_get_str(key, r);
        return floe_variant_find_field(m, v, s.data, (size_t)s.len, sub, found);
    }
    if (v->kind != FLOE_VARIANT_ARRAY) return NULL;
    int64_t i = fn_get_i64(key, r), n = v->u.nest.n;
    if (i < 0) i += n; /* PostgreSQL: negative counts from the end */
    if (i < 0 || i >= n) return NULL;
    *found = true;
    return floe_variant_element(v, (uint32_t)i, sub);
}

/* A type as SQL spells it, for messages. */
static floe_status sql_type_name(const floe_type *t, floe_buf *out) {
    switch (t->id) {
    case FLOE_TYPE_BOOL: return floe_buf_append_str(out, "boolean");
    case FLOE_TYPE_INT32: return floe_buf_append_str(out, "integer");
    case FLOE_TYPE_INT64: return floe_buf_append_str(out, "bigint");
    case FLOE_TYPE_FLOAT32: return floe_buf_append_str(out, "real");
    case FLOE_TYPE_FLOAT64: return floe_buf_append_str(out, "double precision");
    case FLOE_TYPE_DECIMAL128: return floe_buf_printf(out, "decimal(%d,%d)", t->precision, t->scale);
    case FLOE_TYPE_STRING: return floe_buf_append_str(out, "text");
    case FLOE_TYPE_DATE32: return floe_buf_append_str(out, "date");
    case FLOE_TYPE_TIME64_US: return floe_buf_append_str(out, "time");
    case FLOE_TYPE_TIMESTAMP_US: return floe_buf_append_str(out, "timestamp");
    case FLOE_TYPE_TIMESTAMP_US_TZ: return floe_buf_append_str(out, "timestamptz");
    case FLOE_TYPE_BINARY: return floe_buf_append_str(out, "bytea");
    default: return floe_type_to_string(t, out);
    }
}

/* "variant_get: the variant value "abc" (string) at '$.a' cannot be cast
 * to integer". */
static floe_status no_fit(const floe_func_def *def, const floe_variant_meta *m, const floe_variant *sub,
                          const floe_array *key, int64_t r, const floe_type *to) {
    floe_buf j = FLOE_BUF_INIT, t = FLOE_BUF_INIT;
    floe_status st = floe_variant_to_json(m, sub, &j);
    if (!st) st = sql_type_name(to, &t);
    floe_strview path = key->type->id == FLOE_TYPE_STRING ? fn_get_str(key, r) : (floe_strview){"", 0};
    if (!st)
        st = floe_error(FLOE_ERR_INVALID_ARGUMENT,
                        "%s: the variant value %.*s%s (%s) at '%.*s' cannot be cast to %s (try_variant_get gives NULL "
                        "instead)",
                        def->name, j.len > 60 ? 60 : (int)j.len, floe_buf_cstr(&j), j.len > 60 ? "..." : "",
                        floe_variant_kind_name(sub->kind), path.len > 60 ? 60 : (int)path.len, path.data,
                        floe_buf_cstr(&t));
    floe_buf_free(&j);
    floe_buf_free(&t);
    return st;
}

/* The metadata column of a variant result over input v (rows slots). */
static floe_status result_metadata(const floe_array *v, int64_t rows, floe_array **out) {
    if (v->length == rows) return floe_array_slice(v->children[0], v->offset, rows, out);
    floe_builder *b = NULL;
    FLOE_TRY(floe_builder_new(floe_type_primitive(FLOE_TYPE_BINARY), rows, &b));
    floe_strview s = floe_variant_array_metadata(v, 0);
    floe_status st = NULL;
    for (int64_t r = 0; r < rows && !st; r++) st = floe_builder_append_binary(b, s.data, s.len);
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

static floe_status eval_get(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows,
                            floe_type *rtype, floe_array **out) {
    *out = NULL;
    const floe_array *v = args[0], *key = args[1];
    if (v->type->id == FLOE_TYPE_NULL || key->type->id == FLOE_TYPE_NULL) return floe_array_new_nulls(rtype, rows, out);
    bool path_fn = def->tag == VF_GET || def->tag == VF_TRY_GET, strict = def->tag == VF_GET;
    bool to_variant = rtype->id == FLOE_TYPE_VARIANT;
    (void)n;
    floe_variant_path cpath;
    bool have_cpath = false;
    floe_status st = NULL;
    if (path_fn && fn_const(key) && !floe_array_is_null(key, 0)) {
        floe_strview s = floe_array_get_str(key, 0);
        FLOE_TRY_CTX(floe_variant_path_parse(s.data, (size_t)s.len, &cpath), "%s", def->name);
        have_cpath = true;
    }
    floe_builder *b = NULL;
    floe_buffer *validity = NULL;
    floe_buf tmp = FLOE_BUF_INIT;
    st = floe_builder_new(to_variant ? floe_type_primitive(FLOE_TYPE_BINARY) : rtype, rows, &b);
    if (!st && to_variant) {
        st = floe_buffer_new((rows + 7) / 8, &validity);
        if (!st) memset(validity->data, 0xff, (size_t)validity->size);
    }
    int64_t nulls = 0;
    for (int64_t r = 0; r < rows && !st; r++) {
        floe_variant_meta m;
        floe_variant root, sub;
        bool found = false;
        if (!fn_null(v, r) && !fn_null(key, r)) {
            st = floe_variant_array_get(v, fn_at(v, r), &m, &root);
            if (!st) st = locate(def, &m, &root, key, r, have_cpath ? &cpath : NULL, &sub, &found);
        }
        if (st) break;
        if (to_variant) {
            st = found ? floe_builder_append_binary(b, sub.data, sub.size) : floe_builder_append_binary(b, "", 0);
            if (!found) {
                floe_bit_clear(validity->data, r);
                nulls++;
            }
            continue;
        }
        if (!found) {
            st = floe_builder_append_null(b);
            continue;
        }
        bool fits;
        st = fv_convert(&m, &sub, b, &tmp, &fits);
        if (!st && !fits) st = strict ? no_fit(def, &m, &sub, key, r, rtype) : floe_builder_append_null(b);
    }
    if (!st && !to_variant) st = floe_builder_finish(b, out);
    if (!st && to_variant) {
        floe_array *kids[2] = {NULL, NULL};
        st = result_metadata(v, rows, &kids[0]);
        if (!st) st = floe_builder_finish(b, &kids[1]);
        if (!st)
            st = floe_array_new(rtype, rows, 0, nulls, nulls ? validity : NULL, NULL, 0, kids, 2, out);
        floe_array_release(kids[0]);
        floe_array_release(kids[1]);
    }
    floe_builder_free(b);
    floe_buffer_release(validity);
    floe_buf_free(&tmp);
    if (have_cpath) floe_variant_path_free(&cpath);
    return st;
}

static floe_status eval_info(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows,
                             floe_type *rtype, floe_array **out) {
    (void)n;
    *out = NULL;
    const floe_array *v = args[0];
    bool is_null_fn = rtype->id == FLOE_TYPE_BOOL;
    if (v->type->id == FLOE_TYPE_NULL && !is_null_fn) return floe_array_new_nulls(rtype, rows, out);
    floe_builder *b = NULL;
    FLOE_TRY(floe_builder_new(rtype, rows, &b));
    floe_status st = NULL;
    for (int64_t r = 0; r < rows && !st; r++) {
        if (v->type->id == FLOE_TYPE_NULL || fn_null(v, r)) {
            st = is_null_fn ? floe_builder_append_bool(b, false) : floe_builder_append_null(b);
            continue;
        }
        floe_variant_meta m;
        floe_variant x;
        st = floe_variant_array_get(v, fn_at(v, r), &m, &x);
        if (st) break;
        if (is_null_fn) st = floe_builder_append_bool(b, x.kind == FLOE_VARIANT_NULL);
        else st = floe_builder_append_string(b, floe_variant_kind_name(x.kind));
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    if (st) return floe_status_wrap(st, "%s", def->name);
    return NULL;
}

const floe_func_def floe_variant_funcs[] = {
    {"variant_get", 2, 3, "variant_get(variant, string path[, string type])", get_type, eval_get, VF_GET, NULL,
     FLOE_TYPE_NULL},
    {"try_variant_get", 2, 3, "try_variant_get(variant, string path[, string type])", get_type, eval_get,
     VF_TRY_GET, NULL, FLOE_TYPE_NULL},
    {"variant_extract", 2, 2, "variant_extract(variant, string field | int index)", extract_type, eval_get,
     VF_EXTRACT, NULL, FLOE_TYPE_NULL},
    {"variant_extract_text", 2, 2, "variant_extract_text(variant, string field | int index)", extract_type,
     eval_get, VF_EXTRACT_TEXT, NULL, FLOE_TYPE_NULL},
    {"variant_typeof", 1, 1, "variant_typeof(variant)", info_type, eval_info, 0, NULL, FLOE_TYPE_STRING},
    {"is_variant_null", 1, 1, "is_variant_null(variant)", info_type, eval_info, 0, NULL, FLOE_TYPE_BOOL},
    {0},
};

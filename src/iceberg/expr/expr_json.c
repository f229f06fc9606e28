/*
 * expr_json.c — expressions to and from JSON, in the REST catalog's
 * expression form with the extensions that make round trips exact
 * ("value-type" on literals, "field-id"/"field-type" on bound predicates).
 * The plan codec ships residual filters to workers this way.
 */
#include <math.h>
#include <string.h>

#include "floe/iceberg_expr.h"
#include "floe/memory.h"
#include "iceberg/expr/expr_internal.h"
#include "iceberg/spec/ice_internal.h"

static const char *const json_op_names[] = {
    "true", "false", "and", "or", "not", "is-null", "not-null", "is-nan", "not-nan", "lt", "lt-eq",
    "gt", "gt-eq", "eq", "not-eq", "starts-with", "not-starts-with", "in", "not-in",
};
#define N_JSON_OPS ((int)(sizeof json_op_names / sizeof json_op_names[0]))

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory writing expression JSON"); }

/* The type a literal carries on its own (decimals as decimal(38, scale)). */
static floe_status literal_type(const floe_ice_value *v, floe_ice_type **out) {
    if (v->type == FLOE_ICE_DECIMAL) return floe_ice_type_decimal(38, v->scale, out);
    if (v->type == FLOE_ICE_FIXED) return floe_ice_type_fixed((int32_t)v->v.bytes.len, out);
    return floe_ice_type_new(v->type, out);
}

static floe_status set_new(json_t *obj, const char *key, json_t *val) {
    if (!val || json_object_set_new(obj, key, val) != 0) return oom();
    return NULL;
}

static floe_status set_type_string(json_t *obj, const char *key, const floe_ice_type *t) {
    char *s = NULL;
    FLOE_TRY(floe_ice_type_to_string(t, &s));
    floe_status st = set_new(obj, key, json_string(s));
    floe_free(s);
    return st;
}

/* JSON has no infinities; literals write them as the strings "Infinity"
 * and "-Infinity" (as Jackson does for Java doubles) and read them back. */
static floe_status literal_to_json(const floe_ice_value *v, json_t **out) {
    double d = v->type == FLOE_ICE_FLOAT ? v->v.f32 : v->type == FLOE_ICE_DOUBLE ? v->v.f64 : 0;
    if ((v->type == FLOE_ICE_FLOAT || v->type == FLOE_ICE_DOUBLE) && !v->is_null && isinf(d)) {
        *out = json_string(d > 0 ? "Infinity" : "-Infinity");
        return *out ? NULL : oom();
    }
    return floe_ice_value_to_json(v, out);
}

static bool literal_infinity(const floe_ice_type *type, json_t *j, floe_ice_value *out) {
    if (!type || (type->id != FLOE_ICE_FLOAT && type->id != FLOE_ICE_DOUBLE) || !json_is_string(j)) return false;
    const char *s = json_string_value(j);
    double d;
    if (strcmp(s, "Infinity") == 0) d = INFINITY;
    else if (strcmp(s, "-Infinity") == 0) d = -INFINITY;
    else return false;
    *out = type->id == FLOE_ICE_FLOAT ? floe_ice_float((float)d) : floe_ice_double(d);
    return true;
}

static floe_status pred_to_json(const floe_ice_expr *e, json_t *o) {
    FLOE_TRY(set_new(o, "term", json_string(e->name)));
    if (e->bound) {
        FLOE_TRY(set_new(o, "field-id", json_integer(e->field_id)));
        FLOE_TRY(set_type_string(o, "field-type", e->field_type));
        if (e->in_collection) FLOE_TRY(set_new(o, "in-collection", json_true()));
    }
    if (e->op < FLOE_ICE_EXPR_LT) return NULL;
    bool set = e->op == FLOE_ICE_EXPR_IN || e->op == FLOE_ICE_EXPR_NOT_IN;
    json_t *arr = NULL;
    if (set) {
        arr = json_array();
        FLOE_TRY(set_new(o, "values", arr));
    }
    for (int32_t i = 0; i < e->n_values; i++) {
        json_t *jv = NULL;
        FLOE_TRY(literal_to_json(&e->values[i], &jv));
        if (set) {
            if (json_array_append_new(arr, jv) != 0) return oom();
        } else {
            FLOE_TRY(set_new(o, "value", jv));
        }
    }
    /* Unbound literals say their type; bound ones have the field's. */
    if (!e->bound && e->n_values > 0) {
        floe_ice_type *t = NULL;
        FLOE_TRY(literal_type(&e->values[0], &t));
        floe_status st = set_type_string(o, "value-type", t);
        floe_ice_type_free(t);
        FLOE_TRY(st);
        for (int32_t i = 1; i < e->n_values; i++)
            if (e->values[i].type != e->values[0].type ||
                (e->values[i].type == FLOE_ICE_DECIMAL && e->values[i].scale != e->values[0].scale) ||
                (e->values[i].type == FLOE_ICE_FIXED && e->values[i].v.bytes.len != e->values[0].v.bytes.len))
                return floe_error(FLOE_ERR_UNSUPPORTED,
                                  "cannot write an unbound set of mixed literal types on '%s' as JSON", e->name);
    }
    return NULL;
}

static floe_status to_json(const floe_ice_expr *e, json_t **out) {
    *out = NULL;
    if (e->op == FLOE_ICE_EXPR_TRUE || e->op == FLOE_ICE_EXPR_FALSE) {
        *out = e->op == FLOE_ICE_EXPR_TRUE ? json_true() : json_false();
        return NULL;
    }
    json_t *o = json_object();
    if (!o) return oom();
    floe_status st = set_new(o, "type", json_string(json_op_names[e->op]));
    if (!st && (e->op == FLOE_ICE_EXPR_AND || e->op == FLOE_ICE_EXPR_OR)) {
        json_t *l = NULL, *r = NULL;
        st = to_json(e->left, &l);
        if (!st) st = set_new(o, "left", l);
        if (!st) st = to_json(e->right, &r);
        if (!st) st = set_new(o, "right", r);
    } else if (!st && e->op == FLOE_ICE_EXPR_NOT) {
        json_t *c = NULL;
        st = to_json(e->left, &c);
        if (!st) st = set_new(o, "child", c);
    } else if (!st) {
        st = pred_to_json(e, o);
    }
    if (st) {
        json_decref(o);
        return st;
    }
    *out = o;
    return NULL;
}

floe_status floe_ice_expr_to_json_text(const floe_ice_expr *e, char **out) {
    *out = NULL;
    if (!e) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "no expression to write");
    json_t *j = NULL;
    FLOE_TRY(to_json(e, &j));
    floe_status st = floe_ice_json_dump(j, out);
    json_decref(j);
    return st;
}

/* ---- parsing ------------------------------------------------------------- */

static floe_status bad(const char *path, const char *what) {
    return floe_error(FLOE_ERR_CORRUPT, "expression JSON at %s: %s", path, what);
}

/* A literal without a declared type: the type JSON implies. */
static floe_status untyped_literal(json_t *j, const char *path, floe_ice_value *out) {
    if (json_is_integer(j)) {
        json_int_t v = json_integer_value(j);
        *out = (v >= INT32_MIN && v <= INT32_MAX) ? floe_ice_int((int32_t)v) : floe_ice_long((int64_t)v);
        return NULL;
    }
    if (json_is_real(j)) {
        *out = floe_ice_double(json_real_value(j));
        return NULL;
    }
    if (json_is_boolean(j)) {
        *out = floe_ice_bool(json_is_true(j));
        return NULL;
    }
    if (json_is_string(j)) {
        floe_ice_value tmp = floe_ice_string(json_string_value(j), json_string_length(j));
        return floe_ice_value_copy(&tmp, out);
    }
    return bad(path, "a literal must be a number, string or boolean");
}

static floe_status parse_literal(json_t *j, const floe_ice_type *type, const char *path, floe_ice_value *out) {
    *out = floe_ice_null(FLOE_ICE_UNKNOWN);
    if (json_is_null(j)) return bad(path, "null literal");
    if (!type) return untyped_literal(j, path, out);
    if (literal_infinity(type, j, out)) return NULL;
    floe_ice_value tmp;
    FLOE_TRY_CTX(floe_ice_value_from_json(type, j, &tmp), "expression JSON at %s", path);
    /* from_json may return views into `j`; own the bytes. */
    floe_status st = floe_ice_value_copy(&tmp, out);
    floe_ice_value_free(&tmp);
    return st;
}

static floe_status parse_type_member(json_t *o, const char *key, const char *path, floe_ice_type **out) {
    *out = NULL;
    json_t *t = json_object_get(o, key);
    if (!t) return NULL;
    if (!json_is_string(t)) return bad(path, "type member must be a string");
    FLOE_TRY_CTX(floe_ice_type_parse(json_string_value(t), out), "expression JSON at %s", path);
    return NULL;
}

static floe_status parse(json_t *j, const char *path, int depth, floe_ice_expr **out);

static floe_status parse_pred(json_t *j, floe_ice_expr_op op, const char *path, floe_ice_expr **out) {
    json_t *term = json_object_get(j, "term");
    if (!json_is_string(term)) return bad(path, "predicate needs a string 'term'");
    floe_ice_type *ftype = NULL, *vtype = NULL;
    floe_ice_value *vals = NULL;
    int32_t n = 0;
    floe_ice_expr *e = NULL;
    json_t *fid = json_object_get(j, "field-id");
    floe_status st = parse_type_member(j, "field-type", path, &ftype);
    if (!st) st = parse_type_member(j, "value-type", path, &vtype);
    if (!st && fid && (!json_is_integer(fid) || !ftype || floe_ice_type_is_nested(ftype)))
        st = bad(path, "a bound predicate needs an integer 'field-id' and a primitive 'field-type'");
    /* Evaluators trust a bound predicate's shape: check it here. */
    if (!st && fid && (op == FLOE_ICE_EXPR_STARTS_WITH || op == FLOE_ICE_EXPR_NOT_STARTS_WITH) &&
        ftype->id != FLOE_ICE_STRING)
        st = bad(path, "starts-with on a field that is not a string");
    if (!st && fid && (op == FLOE_ICE_EXPR_IS_NAN || op == FLOE_ICE_EXPR_NOT_NAN) && ftype->id != FLOE_ICE_FLOAT &&
        ftype->id != FLOE_ICE_DOUBLE)
        st = bad(path, "is-nan on a field that is not a float or double");
    if (!st && op >= FLOE_ICE_EXPR_LT) {
        bool set = op == FLOE_ICE_EXPR_IN || op == FLOE_ICE_EXPR_NOT_IN;
        json_t *arr = set ? json_object_get(j, "values") : NULL;
        json_t *one = set ? NULL : json_object_get(j, "value");
        if (set && !json_is_array(arr)) st = bad(path, "set predicate needs a 'values' array");
        else if (!set && !one) st = bad(path, "predicate needs a 'value'");
        size_t cnt = set ? json_array_size(arr) : 1;
        if (!st && cnt > (size_t)INT32_MAX / 2) st = bad(path, "too many values");
        if (!st && cnt > 0 && !(vals = floe_malloc(cnt * sizeof *vals))) st = oom();
        for (size_t i = 0; !st && i < cnt; i++) {
            st = parse_literal(set ? json_array_get(arr, i) : one, fid ? ftype : vtype, path, &vals[n]);
            if (!st) n++;
        }
    }
    /* Bound sets are kept sorted and unique (evaluators search them). */
    if (!st && fid && n > 1) n = floe_ice__sort_unique(vals, n);
    if (!st) {
        e = floe_ice__expr_pred_new(op, json_string_value(term), NULL, 0);
        if (!e) st = oom();
    }
    if (!st) {
        e->values = vals;
        e->n_values = n;
        vals = NULL;
        n = 0;
        if (fid) {
            json_t *inc = json_object_get(j, "in-collection");
            e->bound = true;
            e->field_id = (int32_t)json_integer_value(fid);
            e->field_type = ftype;
            e->in_collection = json_is_true(inc);
            ftype = NULL;
        }
    }
    for (int32_t i = 0; i < n; i++) floe_ice_value_free(&vals[i]);
    floe_free(vals);
    floe_ice_type_free(ftype);
    floe_ice_type_free(vtype);
    *out = e;
    return st;
}

static floe_status parse(json_t *j, const char *path, int depth, floe_ice_expr **out) {
    *out = NULL;
    if (depth > 1000) return bad(path, "expression nested too deeply");
    const char *type = NULL;
    if (json_is_boolean(j)) type = json_is_true(j) ? "true" : "false";
    else if (json_is_string(j)) type = json_string_value(j);
    else if (json_is_object(j)) type = json_string_value(json_object_get(j, "type"));
    if (!type) return bad(path, "expected true, false or an object with a string 'type'");
    int op = -1;
    for (int i = 0; i < N_JSON_OPS; i++)
        if (strcmp(type, json_op_names[i]) == 0 || strcmp(type, floe_ice_expr_op_name((floe_ice_expr_op)i)) == 0)
            op = i;
    if (op < 0) return floe_error(FLOE_ERR_CORRUPT, "expression JSON at %s: unknown type '%s'", path, type);
    if (op == FLOE_ICE_EXPR_TRUE || op == FLOE_ICE_EXPR_FALSE) {
        *out = op == FLOE_ICE_EXPR_TRUE ? floe_ice_expr_true() : floe_ice_expr_false();
        return *out ? NULL : oom();
    }
    if (!json_is_object(j)) return bad(path, "expected an object");
    char sub[256];
    if (op == FLOE_ICE_EXPR_NOT) {
        snprintf(sub, sizeof sub, "%s.child", path);
        floe_ice_expr *c;
        FLOE_TRY(parse(json_object_get(j, "child"), sub, depth + 1, &c));
        /* keep the NOT node as written (no simplification) */
        floe_ice_expr *e = floe_ice__expr_node_new(FLOE_ICE_EXPR_NOT);
        if (!e) {
            floe_ice_expr_free(c);
            return oom();
        }
        e->left = c;
        *out = e;
        return NULL;
    }
    if (op == FLOE_ICE_EXPR_AND || op == FLOE_ICE_EXPR_OR) {
        floe_ice_expr *l, *r;
        snprintf(sub, sizeof sub, "%s.left", path);
        FLOE_TRY(parse(json_object_get(j, "left"), sub, depth + 1, &l));
        snprintf(sub, sizeof sub, "%s.right", path);
        floe_status st = parse(json_object_get(j, "right"), sub, depth + 1, &r);
        if (st) {
            floe_ice_expr_free(l);
            return st;
        }
        floe_ice_expr *e = floe_ice__expr_node_new((floe_ice_expr_op)op);
        if (!e) {
            floe_ice_expr_free(l);
            floe_ice_expr_free(r);
            return oom();
        }
        e->left = l;
        e->right = r;
        *out = e;
        return NULL;
    }
    return parse_pred(j, (floe_ice_expr_op)op, path, out);
}

floe_status floe_ice_expr_from_json_text(const char *text, floe_ice_expr **out) {
    *out = NULL;
    json_t *j = NULL;
    FLOE_TRY(floe_ice_json_parse_text(text, "expression", &j));
    floe_status st = parse(j, "$", 0, out);
    json_decref(j);
    return st;
}

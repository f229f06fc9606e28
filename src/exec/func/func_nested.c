/*
 * func_nested.c — building and taking apart nested values (lists, structs,
 * maps), what SQL's constructors and subscripts bind to:
 *
 *   list_value(a, b, ...)        ARRAY[a, b, ...]: list of the (unified)
 *       element type; never NULL itself, elements may be.
 *   named_struct('a', x, ...)    struct<a, ...> (Spark); ROW(x, y) and
 *       struct_pack(a := x) bind to it.  Never NULL itself.
 *   list_element(xs, i)          xs[i]: 1-based, NULL when i is out of
 *       range or NULL, as PostgreSQL's subscripts.
 *   element_at(m, k)             m[k]: the value of key k in map m (NULL
 *       when absent); element_at(xs, i) is list_element.
 *   map_from_arrays(ks, vs)      map(ks, vs): a map of equally long lists;
 *       NULL keys and different lengths are errors, NULL lists give NULL.
 *   array_length(xs, dim)        PostgreSQL's: the element count for
 *       dim 1, NULL for other dims and for empty lists.
 *   array_contains(xs, x)        x = ANY(xs) (PostgreSQL's three-valued
 *       result: true on a match, else NULL when xs or x or an element is
 *       NULL, else false); elements of integer, text, boolean or date
 *       types, x of the same kind.
 *
 * Kernels gather with floe_array_take, so nested element types work at
 * any depth without per-type code.
 */
#include <string.h>

#include "exec/func/functions.h"

/* ------------------------------------------------------------ helpers */

/* `a` with `rows` slots: itself, or its one constant slot repeated. */
static floe_status expand(floe_array *a, int64_t rows, floe_array **out) {
    if (a->length == rows) {
        *out = floe_array_retain(a);
        return NULL;
    }
    uint32_t *idx = floe_calloc((size_t)rows + 1, sizeof *idx);
    if (!idx) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "nested value: out of memory");
    floe_status st = floe_array_take(a, idx, rows, out);
    floe_free(idx);
    return st;
}

/* `a` with validity `v` (NULL: a's own) — same buffers and children.
 * v is indexed like a's slots (a->offset + i). */
static floe_status with_validity(floe_array *a, floe_buffer *v, floe_array **out) {
    int nb = 0;
    while (nb < 2 && a->buffers[nb]) nb++;
    return floe_array_new(a->type, a->length, a->offset, FLOE_NULL_COUNT_UNKNOWN, v, a->buffers, nb, a->children,
                          a->n_children, out);
}

static floe_status list_type_of(floe_type *elem, floe_type **out) {
    floe_field f;
    FLOE_TRY(floe_field_init(&f, "element", elem, true, -1));
    floe_status st = floe_type_list(&f, out);
    floe_field_clear(&f);
    return st;
}

/* Element range of slot i of a list array (absolute in its child). */
static void list_range(const floe_array *l, int64_t i, int64_t *b, int64_t *e) {
    const int32_t *off = (const int32_t *)l->buffers[0]->data;
    *b = off[l->offset + i];
    *e = off[l->offset + i + 1];
}

/* --------------------------------------------------------- list_value */

static floe_status list_value_type(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types,
                                   int32_t n, floe_type **out) {
    (void)args;
    floe_type *elem = NULL;
    for (int32_t i = 0; i < n; i++) {
        if (types[i]->id == FLOE_TYPE_NULL) continue;
        if (!elem) elem = types[i];
        else if (!floe_type_compatible(elem, types[i])) return fn_type_error(def, types, n);
    }
    /* ARRAY[NULL] is text[] in PostgreSQL */
    return list_type_of(elem ? elem : floe_type_primitive(FLOE_TYPE_STRING), out);
}

static floe_status list_value_eval(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows,
                                   floe_type *rtype, floe_array **out) {
    (void)def;
    *out = NULL;
    floe_type *elem = rtype->children[0].type;
    floe_array **cols = floe_calloc((size_t)n + 1, sizeof *cols);
    uint32_t *idx = floe_calloc((size_t)(rows * n) + 1, sizeof *idx);
    floe_buffer *offs = NULL;
    floe_array *all = NULL, *child = NULL;
    floe_status st = cols && idx ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "ARRAY[...]: out of memory");
    for (int32_t j = 0; j < n && !st; j++)
        st = args[j]->type->id == FLOE_TYPE_NULL ? floe_array_new_nulls(elem, rows, &cols[j]) : expand(args[j], rows, &cols[j]);
    if (!st && n > 0) st = floe_array_concat(cols, n, &all);
    for (int64_t r = 0; !st && r < rows; r++)
        for (int32_t j = 0; j < n; j++) idx[r * n + j] = (uint32_t)(j * rows + r);
    if (!st && n > 0) st = floe_array_take(all, idx, rows * n, &child);
    else if (!st) st = floe_array_new_nulls(elem, 0, &child);
    if (!st) st = floe_buffer_new((rows + 1) * (int64_t)sizeof(int32_t), &offs);
    if (!st) {
        int32_t *o = (int32_t *)offs->data;
        for (int64_t r = 0; r <= rows; r++) o[r] = (int32_t)(r * n);
        floe_type *lt = NULL;
        st = list_type_of(child->type, &lt);
        if (!st) st = floe_array_new(lt, rows, 0, 0, NULL, &offs, 1, &child, 1, out);
        floe_type_release(lt);
    }
    for (int32_t j = 0; cols && j < n; j++) floe_array_release(cols[j]);
    floe_free(cols);
    floe_free(idx);
    floe_buffer_release(offs);
    floe_array_release(all);
    floe_array_release(child);
    return st;
}

/* -------------------------------------------------------- named_struct */

static floe_status named_struct_type(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types,
                                     int32_t n, floe_type **out) {
    *out = NULL;
    if (n % 2) return fn_type_error(def, types, n);
    floe_field *f = floe_calloc((size_t)n / 2 + 1, sizeof *f);
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "named_struct: out of memory");
    floe_status st = NULL;
    int32_t k = 0;
    for (int32_t i = 0; i < n && !st; i += 2) {
        const floe_expr *a = args[i];
        if (a->kind != FLOE_EXPR_LITERAL || a->literal->type->id != FLOE_TYPE_STRING || floe_array_is_null(a->literal, 0)) {
            st = fn_need_const(def, i, "a field name");
            break;
        }
        floe_strview nm = floe_array_get_str(a->literal, 0);
        char *name = floe_strndup(nm.data, (size_t)nm.len);
        if (!name) { st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "named_struct: out of memory"); break; }
        for (int32_t j = 0; j < k && !st; j++)
            if (!strcmp(f[j].name, name)) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "named_struct: field '%s' appears twice", name);
        /* an untyped NULL field is text, as PostgreSQL's ROW(NULL) */
        floe_type *t = types[i + 1]->id == FLOE_TYPE_NULL ? floe_type_primitive(FLOE_TYPE_STRING) : types[i + 1];
        if (!st) st = floe_field_init(&f[k++], name, t, true, -1);
        floe_free(name);
    }
    if (!st) st = floe_type_struct(f, k, out);
    for (int32_t j = 0; j < k; j++) floe_field_clear(&f[j]);
    floe_free(f);
    return st;
}

static floe_status named_struct_eval(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows,
                                     floe_type *rtype, floe_array **out) {
    (void)def;
    int32_t k = n / 2;
    floe_array **cols = floe_calloc((size_t)k + 1, sizeof *cols);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "named_struct: out of memory");
    floe_status st = NULL;
    for (int32_t j = 0; j < k && !st; j++) {
        floe_array *a = args[2 * j + 1];
        st = a->type->id == FLOE_TYPE_NULL ? floe_array_new_nulls(rtype->children[j].type, rows, &cols[j])
                                           : expand(a, rows, &cols[j]);
    }
    if (!st) st = floe_array_new(rtype, rows, 0, 0, NULL, NULL, 0, cols, k, out);
    for (int32_t j = 0; j < k; j++) floe_array_release(cols[j]);
    floe_free(cols);
    return st;
}

/* ------------------------------------------------ list_element, element_at */

static floe_status element_type(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types,
                                int32_t n, floe_type **out) {
    (void)args;
    *out = NULL;
    const floe_type *c = types[0], *k = types[1];
    if (c->id == FLOE_TYPE_LIST && (fn_is_int(k))) {
        *out = floe_type_retain(c->children[0].type);
        return NULL;
    }
    if (c->id == FLOE_TYPE_MAP && def->tag == 1) {
        const floe_type *kt = c->children[0].type->children[0].type;
        bool ok = k->id == FLOE_TYPE_NULL || (fn_is_int(kt) && fn_is_int(k)) || (fn_is_string(kt) && fn_is_string(k));
        if (!ok)
            return floe_error(FLOE_ERR_TYPE, "%s: a map's key must be compared with a key of its type "
                              "(integer and text keys are supported)", def->name);
        *out = floe_type_retain(c->children[0].type->children[1].type);
        return NULL;
    }
    return fn_type_error(def, types, n);
}

/* The child slot (absolute) row r selects, or -1 for NULL. */
static int64_t list_pick(const floe_array *l, const floe_array *i, int64_t r) {
    if (floe_array_is_null(l, r) || fn_null(i, r)) return -1;
    int64_t b, e, k = fn_get_i64(i, r);
    list_range(l, r, &b, &e);
    if (k < 1 || k > e - b) return -1;
    return b + k - 1;
}

static int64_t map_pick(const floe_array *m, const floe_array *k, int64_t r) {
    if (floe_array_is_null(m, r) || k->type->id == FLOE_TYPE_NULL || fn_null(k, r)) return -1;
    const floe_array *entries = m->children[0];
    const floe_array *keys = entries->children[0];
    int64_t b, e;
    list_range(m, r, &b, &e);
    bool ints = fn_is_int(keys->type);
    int64_t want = ints ? fn_get_i64(k, r) : 0;
    floe_strview ws = ints ? (floe_strview){0} : fn_get_str(k, r);
    for (int64_t j = b; j < e; j++) {
        int64_t slot = entries->offset + j; /* keys share the entries' slots */
        if (ints) {
            int64_t v = keys->type->id == FLOE_TYPE_INT32 ? floe_array_get_int32(keys, slot) : floe_array_get_int64(keys, slot);
            if (v == want) return j;
        } else {
            floe_strview v = floe_array_get_str(keys, slot);
            if (v.len == ws.len && !memcmp(v.data, ws.data, (size_t)v.len)) return j;
        }
    }
    return -1;
}

static floe_status element_eval(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows,
                                floe_type *rtype, floe_array **out) {
    (void)n;
    (void)rtype;
    *out = NULL;
    floe_array *c = NULL;
    FLOE_TRY(expand(args[0], rows, &c));
    bool is_map = c->type->id == FLOE_TYPE_MAP;
    const floe_array *src = is_map ? c->children[0]->children[1] : c->children[0];
    int64_t base = is_map ? c->children[0]->offset : 0; /* struct children share the struct's offset */
    uint32_t *idx = floe_calloc((size_t)rows + 1, sizeof *idx);
    floe_buffer *v = NULL;
    floe_array *taken = NULL;
    floe_status st = idx ? floe_buffer_new((rows + 7) / 8, &v) : floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: out of memory", def->name);
    bool any = false;
    for (int64_t r = 0; !st && r < rows; r++) {
        int64_t j = is_map ? map_pick(c, args[1], r) : list_pick(c, args[1], r);
        if (j >= 0) {
            idx[r] = (uint32_t)(base + j);
            floe_bit_set(v->data, r);
            any = true;
        }
    }
    if (!st && !any) st = floe_array_new_nulls(rtype, rows, out);
    else if (!st) {
        floe_array *full = NULL;
        st = floe_array_slice(src, 0, src->length, &full);
        if (!st) st = floe_array_take(full, idx, rows, &taken);
        floe_array_release(full);
        /* AND the element's own validity into v */
        for (int64_t r = 0; !st && r < rows; r++)
            if (floe_array_is_null(taken, r)) floe_bit_clear(v->data, r);
        if (!st && taken->offset != 0) st = floe_error(FLOE_ERR_INTERNAL, "%s: gathered array with an offset", def->name);
        if (!st) st = with_validity(taken, v, out);
    }
    floe_buffer_release(v);
    floe_array_release(taken);
    floe_array_release(c);
    floe_free(idx);
    return st;
}

/* ------------------------------------------------------ map_from_arrays */

static floe_status map_type(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types, int32_t n,
                            floe_type **out) {
    (void)args;
    if (types[0]->id != FLOE_TYPE_LIST || types[1]->id != FLOE_TYPE_LIST) return fn_type_error(def, types, n);
    const floe_type *kt = types[0]->children[0].type;
    if (floe_type_is_nested(kt)) return floe_error(FLOE_ERR_TYPE, "%s: map keys must be a primitive type", def->name);
    floe_field kf, vf;
    FLOE_TRY(floe_field_init(&kf, "key", (floe_type *)kt, false, -1));
    floe_status st = floe_field_init(&vf, "value", types[1]->children[0].type, true, -1);
    if (!st) st = floe_type_map(&kf, &vf, false, out);
    floe_field_clear(&kf);
    if (!st) floe_field_clear(&vf);
    return st;
}

static floe_status map_eval(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows,
                            floe_type *rtype, floe_array **out) {
    (void)n;
    floe_array *ks = NULL, *vs = NULL, *kc = NULL, *vc = NULL, *entries = NULL;
    floe_buffer *offs = NULL, *valid = NULL;
    uint32_t *ki = NULL, *vi = NULL;
    floe_status st = expand(args[0], rows, &ks);
    if (!st) st = expand(args[1], rows, &vs);
    int64_t total = 0;
    if (!st) st = floe_buffer_new((rows + 1) * (int64_t)sizeof(int32_t), &offs);
    if (!st) st = floe_buffer_new((rows + 7) / 8, &valid);
    for (int64_t r = 0; !st && r < rows; r++) {
        ((int32_t *)offs->data)[r] = (int32_t)total;
        if (floe_array_is_null(ks, r) || floe_array_is_null(vs, r)) continue;
        int64_t kb, ke, vb, ve;
        list_range(ks, r, &kb, &ke);
        list_range(vs, r, &vb, &ve);
        if (ke - kb != ve - vb)
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: %lld keys but %lld values", def->name, (long long)(ke - kb),
                            (long long)(ve - vb));
        total += ke - kb;
        floe_bit_set(valid->data, r);
    }
    if (!st) ((int32_t *)offs->data)[rows] = (int32_t)total;
    if (!st && !(ki = floe_calloc((size_t)total + 1, sizeof *ki)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: out of memory", def->name);
    if (!st && !(vi = floe_calloc((size_t)total + 1, sizeof *vi)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: out of memory", def->name);
    int64_t k = 0;
    for (int64_t r = 0; !st && r < rows; r++) {
        if (!floe_bit_get(valid->data, r)) continue;
        int64_t kb, ke, vb, ve;
        list_range(ks, r, &kb, &ke);
        list_range(vs, r, &vb, &ve);
        for (int64_t j = 0; j < ke - kb; j++, k++) {
            ki[k] = (uint32_t)(kb + j);
            vi[k] = (uint32_t)(vb + j);
            if (floe_array_is_null(ks->children[0], kb + j))
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: map keys cannot be NULL", def->name);
        }
    }
    if (!st) st = floe_array_take(ks->children[0], ki, total, &kc);
    if (!st) st = floe_array_take(vs->children[0], vi, total, &vc);
    if (!st) {
        floe_array *ch[2] = {kc, vc};
        st = floe_array_new(rtype->children[0].type, total, 0, 0, NULL, NULL, 0, ch, 2, &entries);
    }
    if (!st) st = floe_array_new(rtype, rows, 0, FLOE_NULL_COUNT_UNKNOWN, valid, &offs, 1, &entries, 1, out);
    floe_array_release(ks);
    floe_array_release(vs);
    floe_array_release(kc);
    floe_array_release(vc);
    floe_array_release(entries);
    floe_buffer_release(offs);
    floe_buffer_release(valid);
    floe_free(ki);
    floe_free(vi);
    return st;
}

/* -------------------------------------------------------- array_length */

static floe_status alen_type(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types,
                             int32_t n, floe_type **out) {
    (void)args;
    if ((types[0]->id != FLOE_TYPE_LIST && types[0]->id != FLOE_TYPE_NULL) || !fn_is_int(types[1]))
        return fn_type_error(def, types, n);
    *out = floe_type_primitive(FLOE_TYPE_INT32);
    return NULL;
}

static floe_status alen_eval(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows,
                             floe_type *rtype, floe_array **out) {
    (void)def;
    (void)n;
    floe_buffer *v = NULL, *vals = NULL;
    FLOE_TRY(floe_buffer_new((rows + 7) / 8, &v));
    floe_status st = floe_buffer_new(rows * 4, &vals);
    for (int64_t r = 0; !st && r < rows; r++) {
        if (args[0]->type->id == FLOE_TYPE_NULL || fn_null(args[0], r) || fn_null(args[1], r) ||
            fn_get_i64(args[1], r) != 1)
            continue;
        int64_t b, e;
        list_range(args[0], fn_at(args[0], r), &b, &e);
        if (e == b) continue; /* PostgreSQL: an empty array has no dimensions */
        ((int32_t *)vals->data)[r] = (int32_t)(e - b);
        floe_bit_set(v->data, r);
    }
    if (st) {
        floe_buffer_release(v);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rtype, rows, v, vals, out);
}

/* ------------------------------------------------------ array_contains */

static bool int_like(const floe_type *t) {
    return fn_is_int(t) || t->id == FLOE_TYPE_DATE32 || t->id == FLOE_TYPE_BOOL;
}

static floe_status contains_type(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types,
                                 int32_t n, floe_type **out) {
    (void)args;
    if (types[0]->id == FLOE_TYPE_LIST) {
        const floe_type *e = types[0]->children[0].type, *x = types[1];
        bool ok = x->id == FLOE_TYPE_NULL || (fn_is_int(e) && fn_is_int(x)) ||
                  (int_like(e) && e->id == x->id) || (e->id == FLOE_TYPE_STRING && x->id == FLOE_TYPE_STRING);
        if (!ok) {
            if (!int_like(e) && e->id != FLOE_TYPE_STRING)
                return floe_error(FLOE_ERR_UNSUPPORTED, "%s: lists of %s are not supported (integer, text, boolean "
                                  "and date elements are)", def->name, floe_type_id_name(e->id));
            return fn_type_error(def, types, n);
        }
        *out = floe_type_primitive(FLOE_TYPE_BOOL);
        return NULL;
    }
    return fn_type_error(def, types, n);
}

static int64_t slot_i64(const floe_array *a, int64_t i) {
    switch (a->type->id) {
    case FLOE_TYPE_BOOL: return floe_array_get_bool(a, i);
    case FLOE_TYPE_INT32: case FLOE_TYPE_DATE32: return floe_array_get_int32(a, i);
    default: return floe_array_get_int64(a, i);
    }
}

static floe_status contains_eval(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows,
                                 floe_type *rtype, floe_array **out) {
    (void)def;
    (void)n;
    const floe_array *l = args[0], *x = args[1];
    const floe_array *el = l->children[0];
    bool str = el->type->id == FLOE_TYPE_STRING;
    floe_buffer *v = NULL, *vals = NULL;
    FLOE_TRY(floe_buffer_new((rows + 7) / 8, &v));
    floe_status st = floe_buffer_new((rows + 7) / 8, &vals);
    for (int64_t r = 0; !st && r < rows; r++) {
        int64_t lr = fn_at(l, r);
        if (floe_array_is_null(l, lr)) continue;
        int64_t b, e;
        list_range(l, lr, &b, &e);
        bool xnull = x->type->id == FLOE_TYPE_NULL || fn_null(x, r), found = false, saw_null = xnull && e > b;
        for (int64_t j = b; j < e && !xnull && !found; j++) {
            if (floe_array_is_null(el, j)) { saw_null = true; continue; }
            if (str) {
                floe_strview a = floe_array_get_str(el, j), w = fn_get_str(x, r);
                found = a.len == w.len && !memcmp(a.data, w.data, (size_t)a.len);
            } else {
                found = slot_i64(el, j) == slot_i64(x, fn_at(x, r));
            }
        }
        if (found) floe_bit_set(vals->data, r);
        if (found || !saw_null) floe_bit_set(v->data, r); /* else NULL */
    }
    if (st) {
        floe_buffer_release(v);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rtype, rows, v, vals, out);
}

const floe_func_def floe_nested_funcs[] = {
    {"array_contains", 2, 2, "array_contains(list, value)", contains_type, contains_eval, 0, NULL, FLOE_TYPE_NULL},
    {"list_value", 0, -1, "list_value(any, ...)", list_value_type, list_value_eval, 0, NULL, FLOE_TYPE_NULL},
    {"named_struct", 2, -1, "named_struct(string, any, ...)", named_struct_type, named_struct_eval, 0, NULL,
     FLOE_TYPE_NULL},
    {"list_element", 2, 2, "list_element(list, int)", element_type, element_eval, 0, NULL, FLOE_TYPE_NULL},
    {"element_at", 2, 2, "element_at(map, key) / element_at(list, int)", element_type, element_eval, 1, NULL,
     FLOE_TYPE_NULL},
    {"map_from_arrays", 2, 2, "map_from_arrays(list, list)", map_type, map_eval, 0, NULL, FLOE_TYPE_NULL},
    {"array_length", 2, 2, "array_length(list, int)", alen_type, alen_eval, 0, NULL, FLOE_TYPE_NULL},
    {0},
};

/*
 * variant_unshred.c — reassembling Parquet VARIANT groups, shredded or not,
 * into variant arrays (see variant_unshred.h for the rules).
 *
 * Per batch, the group's Parquet fields and the arrays built for them are
 * paired into a small tree of nodes (value / typed_value arrays and what
 * the typed_value is: primitive, object fields, array element).  Each row
 * is then encoded by one recursive walk over that tree, writing straight
 * into the output column's data; an object's or array's elements are
 * encoded into a scratch buffer of their depth first and wrapped by the
 * encoder (columnar/variant_encode.c), so a row costs no allocation once
 * the buffers have grown.  Dictionary ids of shredded field names are
 * looked up once per distinct metadata (rows usually share it byte for
 * byte) and cached in the nodes.
 */
#include "formats/parquet/variant_unshred.h"

#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/memory.h"
#include "floe/variant.h"

/* ---------------------------------------------------------- the layout */

static int child_named(const floe_pq_field *g, const char *name) {
    for (int i = 0; i < g->num_children; i++)
        if (!strcmp(g->children[i]->name, name)) return i;
    return -1;
}

/* A plain (unannotated) BYTE_ARRAY leaf: the variant's metadata and value
 * columns become the variant array's binary children as they are. */
static bool is_binary_leaf(const floe_pq_field *f) {
    return f->column && f->column->physical == FLOE_PQ_BYTE_ARRAY && !f->column->invalid &&
           f->column->kind == FLOE_PQ_KIND_BINARY;
}

/* The variant primitive a shredded leaf holds, or -1 when the spec has no
 * shredded type for it.  FLOE_VARIANT_TRUE stands for boolean. */
static int prim_kind(const floe_pq_column *c) {
    if (c->invalid) return -1;
    switch (c->kind) {
    case FLOE_PQ_KIND_BOOL: return FLOE_VARIANT_TRUE;
    case FLOE_PQ_KIND_INT8: return FLOE_VARIANT_INT8;
    case FLOE_PQ_KIND_INT16: return FLOE_VARIANT_INT16;
    case FLOE_PQ_KIND_INT32: return FLOE_VARIANT_INT32;
    case FLOE_PQ_KIND_INT64: return FLOE_VARIANT_INT64;
    case FLOE_PQ_KIND_FLOAT: return FLOE_VARIANT_FLOAT;
    case FLOE_PQ_KIND_DOUBLE: return FLOE_VARIANT_DOUBLE;
    case FLOE_PQ_KIND_DECIMAL:
        if (c->precision > 38) return -1;
        return c->physical == FLOE_PQ_INT32 ? FLOE_VARIANT_DECIMAL4
               : c->physical == FLOE_PQ_INT64 ? FLOE_VARIANT_DECIMAL8 : FLOE_VARIANT_DECIMAL16;
    case FLOE_PQ_KIND_DATE: return FLOE_VARIANT_DATE;
    case FLOE_PQ_KIND_TIME_US: return FLOE_VARIANT_TIME;
    case FLOE_PQ_KIND_TIMESTAMP_US: return c->utc ? FLOE_VARIANT_TIMESTAMP_TZ : FLOE_VARIANT_TIMESTAMP_NTZ;
    case FLOE_PQ_KIND_TIMESTAMP_NS:
        if (c->physical != FLOE_PQ_INT64) return -1; /* INT96 */
        return c->utc ? FLOE_VARIANT_TIMESTAMP_TZ_NS : FLOE_VARIANT_TIMESTAMP_NTZ_NS;
    case FLOE_PQ_KIND_STRING: return FLOE_VARIANT_STRING;
    case FLOE_PQ_KIND_BINARY: return FLOE_VARIANT_BINARY;
    case FLOE_PQ_KIND_UUID: return FLOE_VARIANT_UUID;
    default: return -1;
    }
}

static bool check_typed(const floe_pq_field *t, const char *path, char *why, size_t cap, int depth);

/* "a.b" into out (cut short when long: it only names a place). */
static void join(char *out, size_t cap, const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > cap - 2) la = cap - 2;
    memcpy(out, a, la);
    out[la] = '.';
    if (lb > cap - la - 2) lb = cap - la - 2;
    memcpy(out + la + 1, b, lb);
    out[la + 1 + lb] = 0;
}

/* A group holding value and/or typed_value (the top, an object field, an
 * array element). */
static bool check_group(const floe_pq_field *g, const char *path, bool top, char *why, size_t cap, int depth) {
    if (g->kind != FLOE_PQ_KIND_STRUCT && g->kind != FLOE_PQ_KIND_VARIANT) {
        snprintf(why, cap, "'%s' must be a group of value and typed_value", path);
        return true;
    }
    int v = child_named(g, "value"), t = child_named(g, "typed_value"), m = child_named(g, "metadata");
    for (int i = 0; i < g->num_children; i++)
        if (i != v && i != t && !(top && i == m)) {
            snprintf(why, cap, "'%s' has a field '%s' (a variant group holds %svalue and typed_value)", path,
                     g->children[i]->name, top ? "metadata, " : "");
            return true;
        }
    if (top && (m < 0 || !is_binary_leaf(g->children[m]))) {
        snprintf(why, cap, "'%s' has no binary 'metadata' field", path);
        return true;
    }
    if (v < 0 && t < 0) {
        snprintf(why, cap, "'%s' has neither 'value' nor 'typed_value'", path);
        return true;
    }
    if (v >= 0 && !is_binary_leaf(g->children[v])) {
        snprintf(why, cap, "'%s.value' is not a binary column", path);
        return true;
    }
    if (t < 0) return false;
    char sub[512];
    join(sub, sizeof sub, path, "typed_value");
    return check_typed(g->children[t], sub, why, cap, depth + 1);
}

static bool check_typed(const floe_pq_field *t, const char *path, char *why, size_t cap, int depth) {
    if (depth > 64) {
        snprintf(why, cap, "'%s': shredding nested too deeply", path);
        return true;
    }
    if (t->kind == FLOE_PQ_KIND_LIST) {
        char sub[512];
        join(sub, sizeof sub, path, "element");
        return check_group(t->children[0], sub, false, why, cap, depth);
    }
    if (t->kind == FLOE_PQ_KIND_STRUCT) {
        for (int i = 0; i < t->num_children; i++) {
            char sub[512];
            join(sub, sizeof sub, path, t->children[i]->name);
            if (check_group(t->children[i], sub, false, why, cap, depth)) return true;
        }
        return false;
    }
    if (t->column && prim_kind(t->column) >= 0) return false;
    const floe_pq_schema_element *e = t->column ? t->column->element : t->element;
    char ann[96] = "";
    if (e->logical.kind != FLOE_PQ_LT_NONE) {
        ann[0] = ' ';
        ann[1] = '(';
        floe_pq_logical_type_format(&e->logical, ann + 2, sizeof ann - 3);
        strcat(ann, ")");
    } else if (e->converted_type >= 0 && t->column) {
        snprintf(ann, sizeof ann, " (%s)", floe_pq_converted_type_name(e->converted_type));
    }
    if (!t->column) snprintf(why, cap, "'%s': a %s is not a shredded variant type", path, floe_pq_kind_name(t->kind));
    else if (e->type == FLOE_PQ_FIXED_LEN_BYTE_ARRAY)
        snprintf(why, cap, "'%s': unsupported shredded value type FIXED_LEN_BYTE_ARRAY(%d)%s", path,
                 (int)e->type_length, ann);
    else
        snprintf(why, cap, "'%s': unsupported shredded value type %s%s", path, floe_pq_type_name(e->type), ann);
    return true;
}

bool pq_variant_check(const floe_pq_field *f, char *why, size_t cap) {
    return check_group(f, f->name, true, why, cap, 0);
}

/* ----------------------------------------------------------- the nodes */

typedef enum { SH_NONE, SH_PRIM, SH_OBJECT, SH_ARRAY } shape;

typedef struct vnode vnode;
struct vnode {
    const char *name;         /* for messages */
    const floe_array *value;  /* binary, or NULL */
    const floe_array *typed;  /* or NULL */
    shape sh;
    int prim;                 /* SH_PRIM: floe_variant_kind (TRUE = boolean) */
    int32_t nfields;          /* SH_OBJECT: typed is a struct of field groups */
    vnode *fields;
    const floe_array **groups;
    int64_t *ids;             /* dictionary id per field; -2 not looked up */
    vnode *elem;              /* SH_ARRAY: typed is a list of element groups */
    const floe_array *elems;
};

typedef struct uctx {
    const char *column;
    int64_t row;
    floe_variant_meta meta;
    floe_strview meta_bytes;  /* of the row whose metadata `meta` is */
    uint64_t gen;             /* bumps when the metadata changes */
    int depth;                /* scratch levels */
    floe_buf *scratch;        /* per depth: encoded elements */
    floe_buf *refs;           /* per depth: floe_variant_field_ref[] or uint32 ends[] */
    vnode *root;
} uctx;

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory reading a variant"); }

static void free_block(void *ctx, const uint8_t *data) {
    (void)ctx;
    floe_free((void *)data);
}

static void free_node(vnode *nd) {
    if (!nd) return;
    for (int32_t i = 0; i < nd->nfields; i++) free_node(&nd->fields[i]);
    floe_free(nd->fields);
    floe_free(nd->groups);
    floe_free(nd->ids);
    if (nd->elem) {
        free_node(nd->elem);
        floe_free(nd->elem);
    }
}

/* Pair group field g (and its children's arrays kids) into node nd. */
static floe_status make_node(const floe_pq_field *g, floe_array *const *kids, vnode *nd, int depth, int *max_depth) {
    if (depth > *max_depth) *max_depth = depth;
    int v = child_named(g, "value"), t = child_named(g, "typed_value");
    nd->name = g->name;
    nd->value = v >= 0 ? kids[v] : NULL;
    nd->typed = t >= 0 ? kids[t] : NULL;
    if (t < 0) return NULL;
    const floe_pq_field *tf = g->children[t];
    const floe_array *ta = kids[t];
    if (tf->kind == FLOE_PQ_KIND_LIST) {
        nd->sh = SH_ARRAY;
        nd->elems = ta->children[0];
        nd->elem = floe_calloc(1, sizeof *nd->elem);
        if (!nd->elem) return oom();
        return make_node(tf->children[0], nd->elems->children, nd->elem, depth + 1, max_depth);
    }
    if (tf->kind == FLOE_PQ_KIND_STRUCT) {
        nd->sh = SH_OBJECT;
        nd->nfields = tf->num_children;
        nd->fields = floe_calloc((size_t)nd->nfields + 1, sizeof *nd->fields);
        nd->groups = floe_calloc((size_t)nd->nfields + 1, sizeof *nd->groups);
        nd->ids = floe_calloc((size_t)nd->nfields + 1, sizeof *nd->ids);
        if (!nd->fields || !nd->groups || !nd->ids) return oom();
        for (int32_t i = 0; i < nd->nfields; i++) {
            nd->groups[i] = ta->children[i];
            nd->ids[i] = -2;
            FLOE_TRY(make_node(tf->children[i], ta->children[i]->children, &nd->fields[i], depth + 1, max_depth));
        }
        return NULL;
    }
    nd->sh = SH_PRIM;
    nd->prim = prim_kind(tf->column);
    if (nd->prim < 0) return floe_error(FLOE_ERR_INTERNAL, "variant field '%s': unchecked shredded type", g->name);
    return NULL;
}

/* ------------------------------------------------------------ encoding */

/* Context for an error at row c->row, node nd (named unless the top). */
static floe_status wrap_row(const uctx *c, const vnode *nd, floe_status st) {
    if (!st) return NULL;
    if (nd == c->root) return floe_status_wrap(st, "variant column '%s', row %lld of the batch", c->column, (long long)c->row);
    return floe_status_wrap(st, "variant column '%s', row %lld of the batch, field '%s'", c->column, (long long)c->row,
                            nd->name);
}

#define ROW_ERR(c, ...) floe_status_wrap(floe_error(FLOE_ERR_CORRUPT, __VA_ARGS__), "variant column '%s', row %lld of the batch", \
                                         (c)->column, (long long)(c)->row)

static floe_status put_prim(uctx *c, const vnode *nd, int64_t k, floe_buf *out) {
    const floe_array *a = nd->typed;
    switch (nd->prim) {
    case FLOE_VARIANT_TRUE: return floe_variant_put_bool(out, floe_array_get_bool(a, k));
    case FLOE_VARIANT_INT8: case FLOE_VARIANT_INT16: case FLOE_VARIANT_INT32: case FLOE_VARIANT_DATE: {
        floe_status st = floe_variant_put_int(out, (floe_variant_kind)nd->prim, floe_array_get_int32(a, k));
        return wrap_row(c, nd, st);
    }
    case FLOE_VARIANT_INT64: case FLOE_VARIANT_TIME: case FLOE_VARIANT_TIMESTAMP_TZ: case FLOE_VARIANT_TIMESTAMP_NTZ:
    case FLOE_VARIANT_TIMESTAMP_TZ_NS: case FLOE_VARIANT_TIMESTAMP_NTZ_NS:
        return floe_variant_put_int(out, (floe_variant_kind)nd->prim, floe_array_get_int64(a, k));
    case FLOE_VARIANT_FLOAT: return floe_variant_put_float(out, floe_array_get_float(a, k));
    case FLOE_VARIANT_DOUBLE: return floe_variant_put_double(out, floe_array_get_double(a, k));
    case FLOE_VARIANT_DECIMAL4: case FLOE_VARIANT_DECIMAL8: case FLOE_VARIANT_DECIMAL16: {
        floe_status st = floe_variant_put_decimal(out, (floe_variant_kind)nd->prim, floe_array_get_decimal(a, k),
                                                  a->type->scale);
        return wrap_row(c, nd, st);
    }
    case FLOE_VARIANT_STRING: case FLOE_VARIANT_BINARY: {
        floe_strview s = floe_array_get_str(a, k);
        return nd->prim == FLOE_VARIANT_STRING ? floe_variant_put_string(out, s.data, (size_t)s.len)
                                               : floe_variant_put_binary(out, s.data, (size_t)s.len);
    }
    case FLOE_VARIANT_UUID: return floe_variant_put_uuid(out, floe_array_get_fixed(a, k));
    default: return floe_error(FLOE_ERR_INTERNAL, "variant primitive %d", nd->prim);
    }
}

/* The checked value bytes of nd->value at slot k. */
static floe_status residual(uctx *c, const vnode *nd, int64_t k, floe_variant *v) {
    floe_strview s = floe_array_get_str(nd->value, k);
    floe_status st = floe_variant_open((const uint8_t *)s.data, (size_t)s.len, true, v);
    if (!st) st = floe_variant_validate(&c->meta, v);
    return wrap_row(c, nd, st);
}

static floe_status field_id(uctx *c, vnode *nd, int32_t i, uint32_t *id) {
    if (nd->ids[i] == -2) {
        const char *name = nd->fields[i].name;
        nd->ids[i] = floe_variant_meta_find(&c->meta, name, strlen(name));
    }
    if (nd->ids[i] < 0)
        return ROW_ERR(c, "shredded field '%s' is not in the row's metadata dictionary", nd->fields[i].name);
    *id = (uint32_t)nd->ids[i];
    return NULL;
}

static floe_status construct(uctx *c, vnode *nd, int64_t k, int depth, floe_buf *out, bool *present);

static floe_status construct_object(uctx *c, vnode *nd, int64_t k, int depth, bool has_value, floe_buf *out) {
    floe_buf *s = &c->scratch[depth + 1], *r = &c->refs[depth + 1];
    floe_buf_clear(s);
    floe_buf_clear(r);
    const floe_array *t = nd->typed;
    int64_t g = t->offset + k;
    for (int32_t i = 0; i < nd->nfields; i++) {
        const floe_array *grp = nd->groups[i];
        if (!floe_array_is_valid(grp, g)) continue; /* an optional field group that is null: missing */
        uint32_t off = (uint32_t)s->len;
        bool pres;
        FLOE_TRY(construct(c, &nd->fields[i], grp->offset + g, depth + 1, s, &pres));
        if (!pres) continue;
        floe_variant_field_ref f = {0, nd->fields[i].name, (uint32_t)strlen(nd->fields[i].name), off,
                                    (uint32_t)(s->len - off)};
        FLOE_TRY(field_id(c, nd, i, &f.id));
        FLOE_TRY(floe_buf_append(r, &f, sizeof f));
    }
    if (has_value) {
        floe_variant v;
        FLOE_TRY(residual(c, nd, k, &v));
        if (v.kind != FLOE_VARIANT_OBJECT)
            return ROW_ERR(c, "'%s': typed_value holds shredded object fields but value is a %s, not an object "
                           "(invalid variant: non-object value with shredded fields)",
                           nd->name, floe_variant_kind_name(v.kind));
        for (uint32_t j = 0; j < v.u.nest.n; j++) {
            uint32_t id;
            floe_strview name;
            FLOE_TRY(floe_variant_field_id(&v, j, &id));
            FLOE_TRY(floe_variant_meta_name(&c->meta, id, &name));
            /* A name the typed_value shreds is the typed_value's to say,
             * present or missing there (such a file breaks the spec). */
            bool shadowed = false;
            for (int32_t q = 0; q < nd->nfields && !shadowed; q++)
                shadowed = strlen(nd->fields[q].name) == (size_t)name.len &&
                           !memcmp(nd->fields[q].name, name.data, (size_t)name.len);
            if (shadowed) continue;
            floe_variant e;
            FLOE_TRY(floe_variant_element(&v, j, &e));
            floe_variant_field_ref f = {id, name.data, (uint32_t)name.len, (uint32_t)s->len, e.size};
            FLOE_TRY(floe_buf_append(s, e.data, e.size));
            FLOE_TRY(floe_buf_append(r, &f, sizeof f));
        }
    }
    floe_variant_field_ref *refs = (floe_variant_field_ref *)(void *)r->data;
    uint32_t n = (uint32_t)(r->len / sizeof *refs);
    floe_status st = floe_variant_sort_fields(refs, n);
    if (st) return floe_status_wrap(st, "variant column '%s', row %lld of the batch", c->column, (long long)c->row);
    return floe_variant_put_object(out, refs, n, s->data, s->len);
}

static floe_status construct_array(uctx *c, vnode *nd, int64_t k, int depth, floe_buf *out) {
    floe_buf *s = &c->scratch[depth + 1], *r = &c->refs[depth + 1];
    floe_buf_clear(s);
    floe_buf_clear(r);
    int64_t start, end;
    floe_array_get_range(nd->typed, k, &start, &end);
    const floe_array *e = nd->elems;
    for (int64_t j = start; j < end; j++) {
        bool pres = false;
        if (floe_array_is_valid(e, j)) FLOE_TRY(construct(c, nd->elem, e->offset + j, depth + 1, s, &pres));
        if (!pres) FLOE_TRY(floe_variant_put_null(s)); /* a missing element is a variant null */
        uint32_t endpos = (uint32_t)s->len;
        FLOE_TRY(floe_buf_append(r, &endpos, sizeof endpos));
    }
    return floe_variant_put_array(out, (const uint32_t *)(const void *)r->data, (uint32_t)(end - start), s->data,
                                  s->len);
}

/* Encode node nd's value at slot k into out; *present false when both
 * value and typed_value are null (missing). */
static floe_status construct(uctx *c, vnode *nd, int64_t k, int depth, floe_buf *out, bool *present) {
    bool has_v = nd->value && floe_array_is_valid(nd->value, k);
    bool has_t = nd->typed && floe_array_is_valid(nd->typed, k);
    *present = has_v || has_t;
    if (!has_t) {
        if (!has_v) return NULL;
        floe_variant v;
        FLOE_TRY(residual(c, nd, k, &v));
        return floe_buf_append(out, v.data, v.size);
    }
    if (nd->sh == SH_OBJECT) return construct_object(c, nd, k, depth, has_v, out);
    if (has_v)
        return ROW_ERR(c, "'%s': value and typed_value are both set (invalid variant: conflicting value and "
                       "typed_value)", nd->name);
    if (nd->sh == SH_ARRAY) return construct_array(c, nd, k, depth, out);
    return put_prim(c, nd, k, out);
}

/* ---------------------------------------------------------------- rows */

/* Make row i's metadata current (decoded and checked once per distinct
 * bytes). */
static floe_status row_metadata(uctx *c, const floe_array *meta, int64_t i) {
    if (!floe_array_is_valid(meta, i)) return ROW_ERR(c, "metadata is null");
    floe_strview s = floe_array_get_str(meta, i);
    if (c->meta_bytes.data && s.len == c->meta_bytes.len && !memcmp(s.data, c->meta_bytes.data, (size_t)s.len))
        return NULL;
    floe_variant_meta m;
    floe_status st = floe_variant_meta_open((const uint8_t *)s.data, (size_t)s.len, true, &m);
    if (!st) st = floe_variant_meta_validate(&m);
    if (st) return floe_status_wrap(st, "variant column '%s', row %lld of the batch", c->column, (long long)c->row);
    c->meta = m;
    c->meta_bytes = s;
    c->gen++;
    return NULL;
}

static void reset_ids(vnode *nd) {
    for (int32_t i = 0; i < nd->nfields; i++) {
        nd->ids[i] = -2;
        reset_ids(&nd->fields[i]);
    }
    if (nd->elem) reset_ids(nd->elem);
}

floe_status pq_variant_unshred(const floe_pq_field *f, int64_t n, int64_t nulls, floe_buffer *validity,
                               floe_array *const *kids, floe_array **out) {
    *out = NULL;
    if (f->invalid) return floe_error(FLOE_ERR_CORRUPT, "column '%s': %s", f->name, f->invalid);
    int mi = child_named(f, "metadata");
    const floe_array *meta = kids[mi];
    uctx c;
    memset(&c, 0, sizeof c);
    c.column = f->name;
    vnode root;
    memset(&root, 0, sizeof root);
    c.root = &root;
    int max_depth = 0;
    floe_status st = make_node(f, kids, &root, 0, &max_depth);
    floe_buffer *offsets = NULL, *data = NULL;
    floe_buf bytes = FLOE_BUF_INIT;
    floe_array *value = NULL;
    if (!st) {
        c.depth = max_depth + 2;
        c.scratch = floe_calloc((size_t)c.depth, sizeof *c.scratch);
        c.refs = floe_calloc((size_t)c.depth, sizeof *c.refs);
        if (!c.scratch || !c.refs) st = oom();
    }
    /* Unshredded, with a value wherever the variant is: keep the column. */
    bool keep = !st && !root.typed && root.value;
    for (int64_t i = 0; keep && i < n; i++)
        keep = (validity && !floe_bit_get(validity->data, i)) || floe_array_is_valid(root.value, i);
    if (!st && !keep) st = floe_buffer_new((n + 1) * 4, &offsets);
    for (int64_t i = 0; !st && i < n; i++) {
        c.row = i;
        bool valid = !validity || floe_bit_get(validity->data, i);
        if (valid) {
            uint64_t gen = c.gen;
            st = row_metadata(&c, meta, i);
            if (!st && gen != c.gen) reset_ids(&root);
        }
        if (!st && valid && keep) {
            floe_variant v;
            st = residual(&c, &root, i, &v);
        } else if (!st && valid) {
            bool pres;
            st = construct(&c, &root, i, 0, &bytes, &pres);
            if (!st && !pres) st = floe_variant_put_null(&bytes); /* missing at the top: variant null */
        }
        if (!st && !keep) {
            if (bytes.len > INT32_MAX) st = floe_error(FLOE_ERR_UNSUPPORTED, "variant column '%s': more than 2 GiB "
                                                       "of values in one batch", f->name);
            else ((int32_t *)(void *)offsets->data)[i + 1] = (int32_t)bytes.len;
        }
    }
    if (!st && keep) {
        value = floe_array_retain((floe_array *)root.value);
    } else if (!st) {
        size_t len;
        uint8_t *p = floe_buf_detach(&bytes, &len);
        st = p ? floe_buffer_wrap(p, (int64_t)len, free_block, NULL, &data) : floe_buffer_new(0, &data);
        if (st) floe_free(p);
        floe_buffer *bufs[2] = {offsets, data};
        if (!st) st = floe_array_new(floe_type_primitive(FLOE_TYPE_BINARY), n, 0, 0, NULL, bufs, 2, NULL, 0, &value);
    }
    if (!st) {
        floe_array *children[2] = {(floe_array *)meta, value};
        st = floe_array_new(floe_type_primitive(FLOE_TYPE_VARIANT), n, 0, nulls, validity, NULL, 0, children, 2, out);
    }
    floe_array_release(value);
    floe_buffer_release(offsets);
    floe_buffer_release(data);
    floe_buf_free(&bytes);
    for (int i = 0; c.scratch && i < c.depth; i++) {
        floe_buf_free(&c.scratch[i]);
        floe_buf_free(&c.refs[i]);
    }
    floe_free(c.scratch);
    floe_free(c.refs);
    free_node(&root);
    return st;
}

/*
 * codec.c — the binary plan codec (docs/ARCHITECTURE.md, exec).
 *
 * A plan is written as "FLOEPLAN", a u32 version, then its node tree in
 * pre-order: each node's type name, child count, children, and then its
 * parts, written field by field by the node type's encode_parts.  Decoding
 * looks the name up in the node-type registry, decodes the children and
 * hands the reader to decode_parts, which reads the same fields and calls
 * the node's constructor — so a decoded node is built exactly like a
 * planned one.  (The PostgreSQL outfuncs/readfuncs idea, in binary.)
 *
 * Values travel as self-describing arrays: type, length, offset, null
 * count, validity and data buffers verbatim, children recursively; decoded
 * arrays are validated, so corrupt input is an error, never a wild read.
 * Integers are 8-byte little-endian; strings are a length and bytes.
 */
#include <string.h>

#include "base/buffer.h"
#include "floe/exec.h"

#define MAGIC "FLOEPLAN"
#define MAX_DEPTH 200

/* ---------------------------------------------------------------- writer */

floe_status floe_codec_put_i64(floe_buf *b, int64_t v) {
    uint8_t x[8];
    for (int i = 0; i < 8; i++) x[i] = (uint8_t)((uint64_t)v >> (8 * i));
    return floe_buf_append(b, x, 8);
}

floe_status floe_codec_put_str(floe_buf *b, const char *s) {
    if (!s) return floe_codec_put_i64(b, -1);
    size_t n = strlen(s);
    FLOE_TRY(floe_codec_put_i64(b, (int64_t)n));
    return floe_buf_append(b, s, n);
}

static floe_status put_bytes(floe_buf *b, const void *p, int64_t n) {
    FLOE_TRY(floe_codec_put_i64(b, n));
    return floe_buf_append(b, p, (size_t)n);
}

static floe_status put_field(floe_buf *b, const floe_field *f) {
    FLOE_TRY(floe_codec_put_str(b, f->name));
    FLOE_TRY(floe_codec_put_i64(b, f->nullable));
    FLOE_TRY(floe_codec_put_i64(b, f->field_id));
    return floe_codec_put_type(b, f->type);
}

floe_status floe_codec_put_type(floe_buf *b, const floe_type *t) {
    FLOE_TRY(floe_codec_put_i64(b, t->id));
    switch (t->id) {
    case FLOE_TYPE_DECIMAL128:
        FLOE_TRY(floe_codec_put_i64(b, t->precision));
        return floe_codec_put_i64(b, t->scale);
    case FLOE_TYPE_FIXED_BINARY: return floe_codec_put_i64(b, t->byte_width);
    case FLOE_TYPE_STRUCT:
        FLOE_TRY(floe_codec_put_i64(b, t->n_children));
        for (int32_t i = 0; i < t->n_children; i++) FLOE_TRY(put_field(b, &t->children[i]));
        return NULL;
    case FLOE_TYPE_LIST: return put_field(b, &t->children[0]);
    case FLOE_TYPE_MAP: {
        const floe_type *entries = t->children[0].type;
        FLOE_TRY(floe_codec_put_i64(b, t->keys_sorted));
        FLOE_TRY(put_field(b, &entries->children[0]));
        return put_field(b, &entries->children[1]);
    }
    default: return NULL;
    }
}

/* Buffers an array of this type carries in buffers[0..]. */
static int type_buffers(const floe_type *t) {
    if (t->id == FLOE_TYPE_NULL || floe_type_is_struct_like(t)) return 0;
    return floe_type_is_binary_like(t) ? 2 : 1;
}

floe_status floe_codec_put_array(floe_buf *b, const floe_array *a) {
    FLOE_TRY(floe_codec_put_type(b, a->type));
    FLOE_TRY(floe_codec_put_i64(b, a->length));
    FLOE_TRY(floe_codec_put_i64(b, a->offset));
    FLOE_TRY(floe_codec_put_i64(b, floe_array_null_count(a)));
    FLOE_TRY(floe_codec_put_i64(b, a->validity != NULL));
    if (a->validity) FLOE_TRY(put_bytes(b, a->validity->data, a->validity->size));
    for (int i = 0; i < type_buffers(a->type); i++) {
        FLOE_TRY(floe_codec_put_i64(b, a->buffers[i] != NULL));
        if (a->buffers[i]) FLOE_TRY(put_bytes(b, a->buffers[i]->data, a->buffers[i]->size));
    }
    FLOE_TRY(floe_codec_put_i64(b, a->n_children));
    for (int32_t i = 0; i < a->n_children; i++) FLOE_TRY(floe_codec_put_array(b, a->children[i]));
    return NULL;
}

floe_status floe_codec_put_batch(floe_buf *b, const floe_batch *batch) {
    FLOE_TRY(floe_codec_put_type(b, batch->schema));
    FLOE_TRY(floe_codec_put_i64(b, batch->num_rows));
    FLOE_TRY(floe_codec_put_i64(b, batch->num_columns));
    for (int32_t i = 0; i < batch->num_columns; i++) FLOE_TRY(floe_codec_put_array(b, batch->columns[i]));
    return NULL;
}

floe_status floe_codec_put_expr(floe_buf *b, const floe_expr *e) {
    FLOE_TRY(floe_codec_put_i64(b, e->kind));
    FLOE_TRY(floe_codec_put_i64(b, e->op));
    FLOE_TRY(floe_codec_put_i64(b, e->column));
    if (e->kind == FLOE_EXPR_LITERAL) FLOE_TRY(floe_codec_put_array(b, e->literal));
    if (e->kind == FLOE_EXPR_CAST) FLOE_TRY(floe_codec_put_type(b, e->cast_type));
    if (e->kind == FLOE_EXPR_CALL) FLOE_TRY(floe_codec_put_str(b, e->func));
    FLOE_TRY(floe_codec_put_i64(b, e->n_args));
    for (int32_t i = 0; i < e->n_args; i++) FLOE_TRY(floe_codec_put_expr(b, e->args[i]));
    return NULL;
}

static floe_status put_node(floe_buf *b, const floe_plan *p) {
    FLOE_TRY(floe_codec_put_str(b, p->vt->name));
    FLOE_TRY(floe_codec_put_i64(b, p->n_children));
    for (int32_t i = 0; i < p->n_children; i++) FLOE_TRY(put_node(b, p->children[i]));
    return floe_status_wrap(p->vt->encode_parts(p, b), "encoding %s", p->vt->name);
}

floe_status floe_plan_encode(const floe_plan *p, floe_buf *out) {
    uint8_t v[4];
    for (int i = 0; i < 4; i++) v[i] = (uint8_t)((uint32_t)FLOE_PLAN_CODEC_VERSION >> (8 * i));
    FLOE_TRY(floe_buf_append(out, MAGIC, 8));
    FLOE_TRY(floe_buf_append(out, v, 4));
    return put_node(out, p);
}

/* ---------------------------------------------------------------- reader */

floe_status floe_codec_get_i64(floe_reader *r, int64_t *v) {
    if (r->len - r->pos < 8)
        return floe_error(FLOE_ERR_CORRUPT, "plan truncated at offset %zu (need 8 bytes)", r->pos);
    uint64_t x = 0;
    for (int i = 0; i < 8; i++) x |= (uint64_t)r->data[r->pos + (size_t)i] << (8 * i);
    r->pos += 8;
    *v = (int64_t)x;
    return NULL;
}

/* A count/length field in [lo, hi]. */
static floe_status get_int(floe_reader *r, int64_t lo, int64_t hi, const char *what, int64_t *v) {
    size_t at = r->pos;
    FLOE_TRY(floe_codec_get_i64(r, v));
    if (*v < lo || *v > hi)
        return floe_error(FLOE_ERR_CORRUPT, "plan offset %zu: %s %lld out of range [%lld, %lld]", at, what,
                          (long long)*v, (long long)lo, (long long)hi);
    return NULL;
}

static floe_status get_bytes(floe_reader *r, const uint8_t **p, int64_t *n) {
    FLOE_TRY(get_int(r, 0, (int64_t)(r->len - r->pos - (r->len - r->pos >= 8 ? 8 : 0)), "byte length", n));
    if ((size_t)*n > r->len - r->pos)
        return floe_error(FLOE_ERR_CORRUPT, "plan truncated at offset %zu", r->pos);
    *p = r->data + r->pos;
    r->pos += (size_t)*n;
    return NULL;
}

floe_status floe_codec_get_str(floe_reader *r, char **s) {
    int64_t n;
    *s = NULL;
    FLOE_TRY(get_int(r, -1, INT32_MAX, "string length", &n));
    if (n < 0) return NULL;
    if ((size_t)n > r->len - r->pos) return floe_error(FLOE_ERR_CORRUPT, "plan truncated in a string at offset %zu", r->pos);
    if (memchr(r->data + r->pos, 0, (size_t)n))
        return floe_error(FLOE_ERR_CORRUPT, "plan offset %zu: string holds a NUL byte", r->pos);
    *s = floe_strndup((const char *)r->data + r->pos, (size_t)n);
    if (!*s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding a string");
    r->pos += (size_t)n;
    return NULL;
}

static floe_status get_type(floe_reader *r, int depth, floe_type **t);

static floe_status get_field(floe_reader *r, int depth, floe_field *f) {
    char *name = NULL;
    int64_t nullable, id;
    floe_type *t = NULL;
    floe_status st = floe_codec_get_str(r, &name);
    if (!st) st = get_int(r, 0, 1, "nullable", &nullable);
    if (!st) st = get_int(r, -1, INT32_MAX, "field id", &id);
    if (!st) st = get_type(r, depth + 1, &t);
    if (!st) st = floe_field_init(f, name ? name : "", t, nullable != 0, (int32_t)id);
    floe_free(name);
    floe_type_release(t);
    return st;
}

static floe_status get_type(floe_reader *r, int depth, floe_type **t) {
    int64_t id, a, b;
    *t = NULL;
    if (depth > MAX_DEPTH) return floe_error(FLOE_ERR_CORRUPT, "plan offset %zu: types nest too deep", r->pos);
    FLOE_TRY(get_int(r, 0, FLOE_TYPE_COUNT_ - 1, "type id", &id));
    switch ((floe_type_id)id) {
    case FLOE_TYPE_DECIMAL128:
        FLOE_TRY(get_int(r, 1, 38, "decimal precision", &a));
        FLOE_TRY(get_int(r, 0, a, "decimal scale", &b));
        return floe_type_decimal((int32_t)a, (int32_t)b, t);
    case FLOE_TYPE_FIXED_BINARY:
        FLOE_TRY(get_int(r, 1, INT32_MAX, "fixed width", &a));
        return floe_type_fixed_binary((int32_t)a, t);
    case FLOE_TYPE_STRUCT: {
        FLOE_TRY(get_int(r, 0, (int64_t)(r->len - r->pos), "field count", &a));
        floe_field *f = floe_calloc((size_t)(a ? a : 1), sizeof *f);
        if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding a struct type");
        floe_status st = NULL;
        for (int64_t i = 0; i < a && !st; i++) st = get_field(r, depth, &f[i]);
        if (!st) st = floe_type_struct(f, (int32_t)a, t);
        for (int64_t i = 0; i < a; i++) floe_field_clear(&f[i]);
        floe_free(f);
        return st;
    }
    case FLOE_TYPE_LIST: {
        floe_field f = {0};
        floe_status st = get_field(r, depth, &f);
        if (!st) st = floe_type_list(&f, t);
        floe_field_clear(&f);
        return st;
    }
    case FLOE_TYPE_MAP: {
        floe_field k = {0}, v = {0};
        floe_status st = get_int(r, 0, 1, "keys_sorted", &a);
        if (!st) st = get_field(r, depth, &k);
        if (!st) st = get_field(r, depth, &v);
        if (!st) st = floe_type_map(&k, &v, a != 0, t);
        floe_field_clear(&k);
        floe_field_clear(&v);
        return st;
    }
    default:
        *t = floe_type_primitive((floe_type_id)id);
        return *t ? NULL : floe_error(FLOE_ERR_CORRUPT, "plan: type id %lld is not primitive", (long long)id);
    }
}

floe_status floe_codec_get_type(floe_reader *r, floe_type **t) { return get_type(r, 0, t); }

static floe_status get_buffer(floe_reader *r, floe_buffer **out) {
    int64_t present, n;
    const uint8_t *p;
    *out = NULL;
    FLOE_TRY(get_int(r, 0, 1, "buffer flag", &present));
    if (!present) return NULL;
    FLOE_TRY(get_bytes(r, &p, &n));
    return floe_buffer_copy(p, n, out);
}

static floe_status get_array(floe_reader *r, int depth, floe_array **out) {
    floe_type *t = NULL;
    floe_buffer *validity = NULL, *bufs[2] = {NULL, NULL};
    floe_array **children = NULL;
    int64_t len, off, nulls, nc = 0, got = 0;
    *out = NULL;
    if (depth > MAX_DEPTH) return floe_error(FLOE_ERR_CORRUPT, "plan offset %zu: arrays nest too deep", r->pos);
    floe_status st = get_type(r, 0, &t);
    if (!st) st = get_int(r, 0, INT32_MAX, "array length", &len);
    if (!st) st = get_int(r, 0, INT32_MAX, "array offset", &off);
    if (!st) st = get_int(r, -1, len, "null count", &nulls);
    if (!st) st = get_buffer(r, &validity);
    for (int i = 0; !st && i < type_buffers(t); i++) st = get_buffer(r, &bufs[i]);
    if (!st) st = get_int(r, 0, t->n_children, "child count", &nc);
    if (!st && nc != t->n_children)
        st = floe_error(FLOE_ERR_CORRUPT, "plan offset %zu: %lld children for a %s array", r->pos, (long long)nc,
                        floe_type_id_name(t->id));
    if (!st && nc && !(children = floe_calloc((size_t)nc, sizeof *children)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding an array");
    for (; !st && got < nc; got++) st = get_array(r, depth + 1, &children[got]);
    if (!st)
        st = floe_array_new(t, len, off, nulls, validity, bufs, type_buffers(t), children, (int32_t)nc, out);
    if (!st) {
        st = floe_status_wrap(floe_array_validate(*out), "plan: decoded array");
        if (st) { floe_array_release(*out); *out = NULL; }
    }
    for (int64_t i = 0; i < got; i++) floe_array_release(children[i]);
    floe_free(children);
    floe_buffer_release(validity);
    floe_buffer_release(bufs[0]);
    floe_buffer_release(bufs[1]);
    floe_type_release(t);
    return st;
}

floe_status floe_codec_get_array(floe_reader *r, floe_array **a) { return get_array(r, 0, a); }

floe_status floe_codec_get_batch(floe_reader *r, floe_batch **out) {
    floe_type *schema = NULL;
    int64_t rows, nc = 0, got = 0;
    floe_array **cols = NULL;
    *out = NULL;
    floe_status st = floe_codec_get_type(r, &schema);
    if (!st && schema->id != FLOE_TYPE_STRUCT) st = floe_error(FLOE_ERR_CORRUPT, "plan: batch schema is not a struct");
    if (!st) st = get_int(r, 0, INT32_MAX, "batch rows", &rows);
    if (!st) st = get_int(r, 0, schema->n_children, "column count", &nc);
    if (!st && !(cols = floe_calloc((size_t)(nc ? nc : 1), sizeof *cols)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding a batch");
    for (; !st && got < nc; got++) st = floe_codec_get_array(r, &cols[got]);
    if (!st) st = floe_batch_new(schema, cols, (int32_t)nc, rows, out);
    for (int64_t i = 0; i < got; i++) floe_array_release(cols[i]);
    floe_free(cols);
    floe_type_release(schema);
    return st;
}

static floe_status get_expr(floe_reader *r, int depth, floe_expr **out) {
    int64_t kind, op, col, n = 0, got = 0;
    floe_array *lit = NULL;
    floe_type *ct = NULL;
    char *func = NULL;
    floe_expr **args = NULL;
    *out = NULL;
    if (depth > MAX_DEPTH) return floe_error(FLOE_ERR_CORRUPT, "plan offset %zu: expression nests too deep", r->pos);
    floe_status st = get_int(r, 0, FLOE_EXPR_KIND_COUNT_ - 1, "expression kind", &kind);
    if (!st) st = get_int(r, 0, 16, "operator", &op);
    if (!st) st = get_int(r, 0, INT32_MAX, "column index", &col);
    if (!st && kind == FLOE_EXPR_LITERAL) st = floe_codec_get_array(r, &lit);
    if (!st && kind == FLOE_EXPR_CAST) st = floe_codec_get_type(r, &ct);
    if (!st && kind == FLOE_EXPR_CALL) st = floe_codec_get_str(r, &func);
    if (!st) st = get_int(r, 0, (int64_t)(r->len - r->pos), "argument count", &n);
    if (!st && !(args = floe_calloc((size_t)(n ? n : 1), sizeof *args)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding an expression");
    for (; !st && got < n; got++) st = get_expr(r, depth + 1, &args[got]);
    if (!st) st = floe_expr_make((floe_expr_kind)kind, (int32_t)op, (int32_t)col, lit, ct, func, args, (int32_t)n,
                                  out);
    for (int64_t i = 0; i < got; i++) floe_expr_release(args[i]);
    floe_free(args);
    floe_array_release(lit);
    floe_type_release(ct);
    floe_free(func);
    return st;
}

floe_status floe_codec_get_expr(floe_reader *r, floe_expr **e) { return get_expr(r, 0, e); }

static floe_status get_node(floe_reader *r, int depth, floe_plan **out) {
    char *name = NULL;
    int64_t nc = 0, got = 0;
    floe_plan **children = NULL;
    size_t at = r->pos;
    *out = NULL;
    if (depth > MAX_DEPTH) return floe_error(FLOE_ERR_CORRUPT, "plan offset %zu: plan nests too deep", at);
    floe_status st = floe_codec_get_str(r, &name);
    const floe_plan_vtable *vt = NULL;
    if (!st && !name) st = floe_error(FLOE_ERR_CORRUPT, "plan offset %zu: node without a type name", at);
    if (!st && !(vt = floe_plan_lookup(name)))
        st = floe_error(FLOE_ERR_UNSUPPORTED, "plan offset %zu: unknown node type '%s'", at, name);
    if (!st) st = get_int(r, 0, (int64_t)(r->len - r->pos), "child count", &nc);
    if (!st && nc && !(children = floe_calloc((size_t)nc, sizeof *children)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding a plan");
    for (; !st && got < nc; got++) st = get_node(r, depth + 1, &children[got]);
    if (!st) st = floe_status_wrap(vt->decode_parts(r, children, (int32_t)nc, out), "decoding %s at offset %zu", name, at);
    for (int64_t i = 0; i < got; i++) floe_plan_release(children[i]);
    floe_free(children);
    floe_free(name);
    return st;
}

floe_status floe_plan_decode(const uint8_t *data, size_t len, floe_plan **out) {
    floe_reader r = {data, len, 0};
    *out = NULL;
    if (len < 12 || memcmp(data, MAGIC, 8) != 0)
        return floe_error(FLOE_ERR_CORRUPT, "not an encoded floe plan (bad magic)");
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)data[8 + i] << (8 * i);
    if (v != FLOE_PLAN_CODEC_VERSION)
        return floe_error(FLOE_ERR_UNSUPPORTED, "plan codec version %u, this build reads version %d", v,
                          FLOE_PLAN_CODEC_VERSION);
    r.pos = 12;
    FLOE_TRY(get_node(&r, 0, out));
    if (r.pos != r.len) {
        floe_plan_release(*out);
        *out = NULL;
        return floe_error(FLOE_ERR_CORRUPT, "plan: %zu trailing bytes at offset %zu", r.len - r.pos, r.pos);
    }
    return NULL;
}

floe_status floe_plan_roundtrip(const floe_plan *p, floe_plan **copy) {
    floe_buf a, b;
    *copy = NULL;
    floe_buf_init(&a);
    floe_buf_init(&b);
    floe_status st = floe_plan_encode(p, &a);
    if (!st) st = floe_plan_decode(a.data, a.len, copy);
    if (!st) st = floe_plan_encode(*copy, &b);
    if (!st && (a.len != b.len || memcmp(a.data, b.data, a.len) != 0))
        st = floe_error(FLOE_ERR_INTERNAL, "plan round trip changed the encoding (%zu vs %zu bytes): a node "
                        "type does not write or read all its parts", a.len, b.len);
    if (st) {
        floe_plan_release(*copy);
        *copy = NULL;
    }
    floe_buf_free(&a);
    floe_buf_free(&b);
    return st;
}

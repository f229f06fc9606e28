/*
 * arrow_c.c — export to and import from the Arrow C Data Interface
 * (see include/floe/arrow_c.h for the type mapping).
 *
 * Export: each exported ArrowSchema/ArrowArray node owns a private block
 * holding its strings or a reference to the floe array whose buffers it
 * points at, plus its children.  Release frees the node's children that the
 * consumer has not moved away (release != NULL), then itself, and marks the
 * struct released, as the specification requires.
 *
 * Import: the incoming ArrowArray is moved into a reference-counted holder.
 * Every floe buffer made over its memory holds one reference; when the last
 * such buffer is released, the producer's release callback runs.  Nothing
 * is copied, except that absent buffers of empty arrays are replaced by
 * small zeroed floe buffers.  The imported tree is validated before use.
 */
#include "floe/arrow_c.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "columnar/internal.h"
#include "floe/memory.h"

#define FIELD_ID_KEY "PARQUET:field_id"
#define EXT_NAME_KEY "ARROW:extension:name"
#define EXT_META_KEY "ARROW:extension:metadata"
#define UUID_EXT_NAME "arrow.uuid"
/* Arrow's canonical extension for (unshredded) Parquet variants: a struct
 * of binary metadata and value. */
#define VARIANT_EXT_NAME "arrow.parquet.variant"

/* ================================================================ export */

typedef struct {
    char *format;
    char *name;
    char *metadata;
    int64_t n_children;
    struct ArrowSchema **child_ptrs;
    struct ArrowSchema *child_structs;
} schema_priv;

static void release_schema(struct ArrowSchema *s) {
    if (!s || !s->release) return;
    schema_priv *p = s->private_data;
    if (p) {
        for (int64_t i = 0; i < p->n_children; i++) {
            struct ArrowSchema *c = &p->child_structs[i];
            if (c->release) c->release(c);
        }
        floe_free(p->child_ptrs);
        floe_free(p->child_structs);
        floe_free(p->format);
        floe_free(p->name);
        floe_free(p->metadata);
        floe_free(p);
    }
    s->release = NULL;
    s->private_data = NULL;
}

static floe_status meta_put(floe_buf *m, const char *s) {
    int32_t n = (int32_t)strlen(s);
    FLOE_TRY(floe_buf_append(m, &n, 4));
    return floe_buf_append(m, s, (size_t)n);
}

/* Arrow metadata: int32 pair count, then length-prefixed key and value. */
static floe_status build_metadata(const floe_field *f, char **out) {
    *out = NULL;
    bool ext = f->type->id == FLOE_TYPE_UUID || f->type->id == FLOE_TYPE_VARIANT;
    int32_t pairs = (f->field_id >= 0) + (ext ? 2 : 0);
    if (!pairs) return NULL;
    floe_buf m = FLOE_BUF_INIT;
    floe_status st = floe_buf_append(&m, &pairs, 4);
    if (!st && f->field_id >= 0) {
        char id[16];
        snprintf(id, sizeof id, "%d", f->field_id);
        st = meta_put(&m, FIELD_ID_KEY);
        if (!st) st = meta_put(&m, id);
    }
    if (!st && ext) {
        st = meta_put(&m, EXT_NAME_KEY);
        if (!st) st = meta_put(&m, f->type->id == FLOE_TYPE_UUID ? UUID_EXT_NAME : VARIANT_EXT_NAME);
        if (!st) st = meta_put(&m, EXT_META_KEY);
        if (!st) st = meta_put(&m, "");
    }
    if (st) {
        floe_buf_free(&m);
        return st;
    }
    size_t len;
    *out = (char *)floe_buf_detach(&m, &len);
    return NULL;
}

static floe_status format_string(const floe_type *t, char *buf, size_t cap) {
    const char *f = NULL;
    switch (t->id) {
    case FLOE_TYPE_NULL: f = "n"; break;
    case FLOE_TYPE_BOOL: f = "b"; break;
    case FLOE_TYPE_INT32: f = "i"; break;
    case FLOE_TYPE_INT64: f = "l"; break;
    case FLOE_TYPE_FLOAT32: f = "f"; break;
    case FLOE_TYPE_FLOAT64: f = "g"; break;
    case FLOE_TYPE_DATE32: f = "tdD"; break;
    case FLOE_TYPE_TIME64_US: f = "ttu"; break;
    case FLOE_TYPE_TIMESTAMP_US: f = "tsu:"; break;
    case FLOE_TYPE_TIMESTAMP_US_TZ: f = "tsu:UTC"; break;
    case FLOE_TYPE_TIMESTAMP_NS: f = "tsn:"; break;
    case FLOE_TYPE_TIMESTAMP_NS_TZ: f = "tsn:UTC"; break;
    case FLOE_TYPE_STRING: f = "u"; break;
    case FLOE_TYPE_BINARY: f = "z"; break;
    case FLOE_TYPE_UUID: f = "w:16"; break;
    case FLOE_TYPE_STRUCT:
    case FLOE_TYPE_VARIANT: f = "+s"; break;
    case FLOE_TYPE_LIST: f = "+l"; break;
    case FLOE_TYPE_MAP: f = "+m"; break;
    case FLOE_TYPE_DECIMAL128:
        snprintf(buf, cap, "d:%d,%d", t->precision, t->scale);
        return NULL;
    case FLOE_TYPE_FIXED_BINARY:
        snprintf(buf, cap, "w:%d", t->byte_width);
        return NULL;
    default:
        return floe_error(FLOE_ERR_UNSUPPORTED, "no Arrow format for type %d", (int)t->id);
    }
    snprintf(buf, cap, "%s", f);
    return NULL;
}

static floe_status export_field_rec(const floe_field *f, bool nullable, struct ArrowSchema *out, int depth) {
    memset(out, 0, sizeof *out);
    if (depth > FLOE_MAX_NESTING) return floe_error(FLOE_ERR_UNSUPPORTED, "type nested too deeply");
    const floe_type *t = f->type;
    schema_priv *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory exporting a schema");
    out->private_data = p;
    out->release = release_schema;
    char fmt[32];
    floe_status st = format_string(t, fmt, sizeof fmt);
    if (!st) {
        p->format = floe_strdup(fmt);
        p->name = floe_strdup(f->name ? f->name : "");
        if (!p->format || !p->name) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory exporting a schema");
    }
    if (!st) st = build_metadata(f, &p->metadata);
    int64_t n = floe_type_is_nested(t) ? t->n_children : 0;
    if (!st && n > 0) {
        p->child_ptrs = floe_calloc((size_t)n, sizeof *p->child_ptrs);
        p->child_structs = floe_calloc((size_t)n, sizeof *p->child_structs);
        if (!p->child_ptrs || !p->child_structs)
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory exporting a schema");
        for (int64_t i = 0; !st && i < n; i++) {
            p->child_ptrs[i] = &p->child_structs[i];
            p->n_children = i + 1;
            st = export_field_rec(&t->children[i], t->children[i].nullable, &p->child_structs[i], depth + 1);
        }
    }
    if (st) {
        release_schema(out);
        return st;
    }
    out->format = p->format;
    out->name = p->name;
    out->metadata = p->metadata;
    out->flags = (nullable ? ARROW_FLAG_NULLABLE : 0) |
                 (t->id == FLOE_TYPE_MAP && t->keys_sorted ? ARROW_FLAG_MAP_KEYS_SORTED : 0);
    out->n_children = n;
    out->children = p->child_ptrs;
    out->dictionary = NULL;
    return NULL;
}

floe_status floe_arrow_export_field(const floe_field *field, struct ArrowSchema *out) {
    return export_field_rec(field, field->nullable, out, 0);
}

floe_status floe_arrow_export_type(const floe_type *type, struct ArrowSchema *out) {
    floe_field f = {.name = "", .type = (floe_type *)type, .nullable = true, .field_id = -1};
    return export_field_rec(&f, true, out, 0);
}

floe_status floe_arrow_export_schema(const floe_schema *schema, struct ArrowSchema *out) {
    if (schema->id != FLOE_TYPE_STRUCT) {
        memset(out, 0, sizeof *out);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a schema must be a struct type");
    }
    floe_field f = {.name = "", .type = (floe_type *)schema, .nullable = false, .field_id = -1};
    return export_field_rec(&f, false, out, 0);
}

typedef struct {
    floe_array *array;  /* keeps the buffers alive */
    const void *buffers[3];
    int64_t n_children;
    struct ArrowArray **child_ptrs;
    struct ArrowArray *child_structs;
} array_priv;

static void release_array(struct ArrowArray *a) {
    if (!a || !a->release) return;
    array_priv *p = a->private_data;
    if (p) {
        for (int64_t i = 0; i < p->n_children; i++) {
            struct ArrowArray *c = &p->child_structs[i];
            if (c->release) c->release(c);
        }
        floe_free(p->child_ptrs);
        floe_free(p->child_structs);
        floe_array_release(p->array);
        floe_free(p);
    }
    a->release = NULL;
    a->private_data = NULL;
}

/* Arrow's buffer count per type (validity included). */
static int arrow_num_buffers(const floe_type *t) {
    return t->id == FLOE_TYPE_NULL ? 0 : 1 + floe_type_num_buffers(t);
}

static floe_status export_array_rec(const floe_array *a, struct ArrowArray *out, int depth) {
    memset(out, 0, sizeof *out);
    if (depth > FLOE_MAX_NESTING) return floe_error(FLOE_ERR_UNSUPPORTED, "array nested too deeply");
    array_priv *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory exporting an array");
    out->private_data = p;
    out->release = release_array;
    p->array = floe_array_retain((floe_array *)a);
    int nb = arrow_num_buffers(a->type);
    if (nb > 0) {
        p->buffers[0] = a->validity ? a->validity->data : NULL;
        for (int i = 1; i < nb; i++) p->buffers[i] = a->buffers[i - 1]->data;
    }
    floe_status st = NULL;
    if (a->n_children > 0) {
        p->child_ptrs = floe_calloc((size_t)a->n_children, sizeof *p->child_ptrs);
        p->child_structs = floe_calloc((size_t)a->n_children, sizeof *p->child_structs);
        if (!p->child_ptrs || !p->child_structs)
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory exporting an array");
        for (int64_t i = 0; !st && i < a->n_children; i++) {
            p->child_ptrs[i] = &p->child_structs[i];
            p->n_children = i + 1;
            st = export_array_rec(a->children[i], &p->child_structs[i], depth + 1);
        }
    }
    if (st) {
        release_array(out);
        return st;
    }
    out->length = a->length;
    out->offset = a->offset;
    out->null_count = floe_array_null_count(a);
    out->n_buffers = nb;
    out->buffers = p->buffers;
    out->n_children = a->n_children;
    out->children = p->child_ptrs;
    out->dictionary = NULL;
    return NULL;
}

floe_status floe_arrow_export_array(const floe_array *array, struct ArrowArray *out) {
    return export_array_rec(array, out, 0);
}

floe_status floe_arrow_export_batch(const floe_batch *batch, struct ArrowArray *out_array,
                                    struct ArrowSchema *out_schema) {
    memset(out_array, 0, sizeof *out_array);
    floe_status st = floe_arrow_export_schema(batch->schema, out_schema);
    if (st) return st;
    floe_array *s;
    st = floe_batch_to_struct(batch, &s);
    if (!st) {
        st = floe_arrow_export_array(s, out_array);
        floe_array_release(s);
    }
    if (st) release_schema(out_schema);
    return st;
}

/* ================================================================ import */

typedef struct {
    const char *ext_name;  /* ARROW:extension:name value (not NUL-terminated) */
    int32_t ext_name_len;
    int32_t field_id;
} meta_info;

static floe_status parse_metadata(const char *m, meta_info *info) {
    info->ext_name = NULL;
    info->ext_name_len = 0;
    info->field_id = -1;
    if (!m) return NULL;
    int32_t pairs;
    memcpy(&pairs, m, 4);
    if (pairs < 0) return floe_error(FLOE_ERR_CORRUPT, "schema metadata has %d pairs", pairs);
    const char *p = m + 4;
    for (int32_t i = 0; i < pairs; i++) {
        int32_t kl, vl;
        memcpy(&kl, p, 4);
        if (kl < 0) return floe_error(FLOE_ERR_CORRUPT, "schema metadata key length %d", kl);
        const char *k = p + 4;
        memcpy(&vl, k + kl, 4);
        if (vl < 0) return floe_error(FLOE_ERR_CORRUPT, "schema metadata value length %d", vl);
        const char *v = k + kl + 4;
        p = v + vl;
        if (kl == (int32_t)strlen(FIELD_ID_KEY) && memcmp(k, FIELD_ID_KEY, (size_t)kl) == 0) {
            char num[16];
            if (vl <= 0 || vl >= (int32_t)sizeof num)
                return floe_error(FLOE_ERR_CORRUPT, "bad %s value", FIELD_ID_KEY);
            memcpy(num, v, (size_t)vl);
            num[vl] = 0;
            char *end;
            errno = 0;
            long id = strtol(num, &end, 10);
            if (*end || errno || id < 0 || id > INT32_MAX)
                return floe_error(FLOE_ERR_CORRUPT, "bad %s value '%s'", FIELD_ID_KEY, num);
            info->field_id = (int32_t)id;
        } else if (kl == (int32_t)strlen(EXT_NAME_KEY) && memcmp(k, EXT_NAME_KEY, (size_t)kl) == 0) {
            info->ext_name = v;
            info->ext_name_len = vl;
        }
    }
    return NULL;
}

static floe_status parse_int(const char *s, const char **end, int32_t *out) {
    char *e;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (e == s || errno || v < 0 || v > INT32_MAX)
        return floe_error(FLOE_ERR_CORRUPT, "bad number in Arrow format '%s'", s);
    *end = e;
    *out = (int32_t)v;
    return NULL;
}

static floe_status import_field_rec(const struct ArrowSchema *s, floe_field *out, int depth);

/* Type from format string + children. */
static floe_status import_type(const struct ArrowSchema *s, const meta_info *mi, floe_type **out, int depth) {
    *out = NULL;
    const char *f = s->format;
    if (!f) return floe_error(FLOE_ERR_CORRUPT, "Arrow schema without a format");
    if (s->dictionary) return floe_error(FLOE_ERR_UNSUPPORTED, "dictionary-encoded Arrow arrays are not supported");
    static const struct {
        const char *fmt;
        floe_type_id id;
    } simple[] = {
        {"n", FLOE_TYPE_NULL},        {"b", FLOE_TYPE_BOOL},          {"i", FLOE_TYPE_INT32},
        {"l", FLOE_TYPE_INT64},       {"f", FLOE_TYPE_FLOAT32},       {"g", FLOE_TYPE_FLOAT64},
        {"tdD", FLOE_TYPE_DATE32},    {"ttu", FLOE_TYPE_TIME64_US},   {"tsu:", FLOE_TYPE_TIMESTAMP_US},
        {"tsn:", FLOE_TYPE_TIMESTAMP_NS}, {"u", FLOE_TYPE_STRING},    {"z", FLOE_TYPE_BINARY},
    };
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
        if (strcmp(f, simple[i].fmt) == 0) {
            *out = floe_type_primitive(simple[i].id);
            return NULL;
        }
    if (strncmp(f, "tsu:", 4) == 0) {
        *out = floe_type_primitive(FLOE_TYPE_TIMESTAMP_US_TZ);
        return NULL;
    }
    if (strncmp(f, "tsn:", 4) == 0) {
        *out = floe_type_primitive(FLOE_TYPE_TIMESTAMP_NS_TZ);
        return NULL;
    }
    if (strncmp(f, "d:", 2) == 0) {
        int32_t prec, scale, bits = 128;
        const char *e;
        FLOE_TRY(parse_int(f + 2, &e, &prec));
        if (*e != ',') return floe_error(FLOE_ERR_CORRUPT, "bad decimal format '%s'", f);
        FLOE_TRY(parse_int(e + 1, &e, &scale));
        if (*e == ',') FLOE_TRY(parse_int(e + 1, &e, &bits));
        if (*e) return floe_error(FLOE_ERR_CORRUPT, "bad decimal format '%s'", f);
        if (bits != 128) return floe_error(FLOE_ERR_UNSUPPORTED, "decimal%d is not supported", bits);
        return floe_type_decimal(prec, scale, out);
    }
    if (strncmp(f, "w:", 2) == 0) {
        int32_t w;
        const char *e;
        FLOE_TRY(parse_int(f + 2, &e, &w));
        if (*e) return floe_error(FLOE_ERR_CORRUPT, "bad fixed-size binary format '%s'", f);
        if (w == 16 && mi->ext_name && mi->ext_name_len == (int32_t)strlen(UUID_EXT_NAME) &&
            memcmp(mi->ext_name, UUID_EXT_NAME, strlen(UUID_EXT_NAME)) == 0) {
            *out = floe_type_primitive(FLOE_TYPE_UUID);
            return NULL;
        }
        return floe_type_fixed_binary(w, out);
    }
    bool is_struct = strcmp(f, "+s") == 0, is_list = strcmp(f, "+l") == 0, is_map = strcmp(f, "+m") == 0;
    if (!is_struct && !is_list && !is_map)
        return floe_error(FLOE_ERR_UNSUPPORTED, "Arrow format '%s' has no floe type", f);
    if (s->n_children < 0 || s->n_children > INT32_MAX || (s->n_children > 0 && !s->children))
        return floe_error(FLOE_ERR_CORRUPT, "Arrow schema '%s' has bad children", f);
    if ((is_list || is_map) && s->n_children != 1)
        return floe_error(FLOE_ERR_CORRUPT, "Arrow format '%s' needs one child, has %lld", f,
                          (long long)s->n_children);
    int32_t n = (int32_t)s->n_children;
    floe_field *fields = floe_calloc((size_t)(n > 0 ? n : 1), sizeof *fields);
    if (!fields) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory importing a schema");
    floe_status st = NULL;
    int32_t made = 0;
    for (; !st && made < n; made++) {
        st = import_field_rec(s->children[made], &fields[made], depth + 1);
        if (st) st = floe_status_wrap(st, "field %d", made);
    }
    bool variant = is_struct && mi->ext_name && mi->ext_name_len == (int32_t)strlen(VARIANT_EXT_NAME) &&
                   memcmp(mi->ext_name, VARIANT_EXT_NAME, strlen(VARIANT_EXT_NAME)) == 0;
    if (!st && variant) {
        /* Only the unshredded layout: metadata then value, both binary. */
        if (n == 2 && !strcmp(fields[0].name, "metadata") && !strcmp(fields[1].name, "value") &&
            fields[0].type->id == FLOE_TYPE_BINARY && fields[1].type->id == FLOE_TYPE_BINARY)
            *out = floe_type_primitive(FLOE_TYPE_VARIANT);
        else
            st = floe_error(FLOE_ERR_UNSUPPORTED, "Arrow %s with other fields than binary metadata and value "
                            "(shredded) is not supported", VARIANT_EXT_NAME);
    } else if (!st) {
        if (is_struct) {
            st = floe_type_struct(fields, n, out);
        } else if (is_list) {
            st = floe_type_list(&fields[0], out);
        } else {
            const floe_type *e = fields[0].type;
            if (e->id != FLOE_TYPE_STRUCT || e->n_children != 2)
                st = floe_error(FLOE_ERR_CORRUPT, "Arrow map entries must be a struct of two fields");
            else
                st = floe_type_map(&e->children[0], &e->children[1],
                                   (s->flags & ARROW_FLAG_MAP_KEYS_SORTED) != 0, out);
        }
    }
    for (int32_t i = 0; i < made; i++) floe_field_clear(&fields[i]);
    floe_free(fields);
    return st;
}

static floe_status import_field_rec(const struct ArrowSchema *s, floe_field *out, int depth) {
    memset(out, 0, sizeof *out);
    if (!s) return floe_error(FLOE_ERR_CORRUPT, "Arrow schema child is missing");
    if (depth > FLOE_MAX_NESTING) return floe_error(FLOE_ERR_UNSUPPORTED, "Arrow schema nested too deeply");
    meta_info mi;
    FLOE_TRY(parse_metadata(s->metadata, &mi));
    floe_type *t;
    FLOE_TRY_CTX(import_type(s, &mi, &t, depth), "'%s'", s->name ? s->name : "");
    floe_status st = floe_field_init(out, s->name ? s->name : "", t, (s->flags & ARROW_FLAG_NULLABLE) != 0,
                                     mi.field_id);
    floe_type_release(t);
    return st;
}

static void consume_schema(struct ArrowSchema *in) {
    if (in->release) in->release(in);
    in->release = NULL;
}

floe_status floe_arrow_import_field(struct ArrowSchema *in, floe_field *out) {
    memset(out, 0, sizeof *out);
    if (!in || !in->release) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Arrow schema is already released");
    floe_status st = import_field_rec(in, out, 0);
    consume_schema(in);
    return st;
}

floe_status floe_arrow_import_schema(struct ArrowSchema *in, floe_schema **out) {
    *out = NULL;
    floe_field f;
    FLOE_TRY(floe_arrow_import_field(in, &f));
    if (f.type->id != FLOE_TYPE_STRUCT) {
        floe_field_clear(&f);
        return floe_error(FLOE_ERR_TYPE, "an Arrow schema for a batch must be a struct (\"+s\")");
    }
    *out = floe_type_retain(f.type);
    floe_field_clear(&f);
    return NULL;
}

/* The moved ArrowArray, released when the last buffer over it goes. */
typedef struct {
    _Atomic int64_t refs;
    struct ArrowArray array;
} import_holder;

static void holder_unref(import_holder *h) {
    if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) != 1) return;
    if (h->array.release) h->array.release(&h->array);
    floe_free(h);
}

static void holder_buffer_release(void *ctx, const uint8_t *data) {
    (void)data;
    holder_unref(ctx);
}

/* A floe buffer over `bytes` of imported memory, or a zeroed stand-in when
 * the producer passed NULL for an empty buffer. */
static floe_status wrap_import(import_holder *h, const void *p, int64_t bytes, const char *what,
                               floe_buffer **out) {
    if (!p) {
        if (bytes > 0) return floe_error(FLOE_ERR_CORRUPT, "Arrow %s buffer is NULL but needs %lld bytes", what,
                                         (long long)bytes);
        return floe_buffer_new(bytes, out);
    }
    atomic_fetch_add_explicit(&h->refs, 1, memory_order_relaxed);
    floe_status st = floe_buffer_wrap(p, bytes, holder_buffer_release, h, out);
    if (st) holder_unref(h);
    return st;
}

static floe_status import_array_rec(import_holder *h, const struct ArrowArray *a, floe_type *t,
                                    floe_array **out, int depth) {
    *out = NULL;
    if (!a) return floe_error(FLOE_ERR_CORRUPT, "Arrow array child is missing");
    if (depth > FLOE_MAX_NESTING) return floe_error(FLOE_ERR_UNSUPPORTED, "Arrow array nested too deeply");
    if (a->dictionary) return floe_error(FLOE_ERR_UNSUPPORTED, "dictionary-encoded Arrow arrays are not supported");
    if (a->length < 0 || a->offset < 0 || a->length > INT32_MAX * 16LL || a->offset > INT32_MAX * 16LL)
        return floe_error(FLOE_ERR_CORRUPT, "Arrow array length %lld / offset %lld out of range",
                          (long long)a->length, (long long)a->offset);
    if (a->null_count < -1 || a->null_count > a->length)
        return floe_error(FLOE_ERR_CORRUPT, "Arrow array null count %lld for %lld slots",
                          (long long)a->null_count, (long long)a->length);
    int nb = arrow_num_buffers(t);
    /* Some producers give the null type one (absent) validity buffer. */
    if (t->id == FLOE_TYPE_NULL && a->n_buffers == 1) nb = 0;
    else if (a->n_buffers != nb || (nb > 0 && !a->buffers))
        return floe_error(FLOE_ERR_CORRUPT, "Arrow %s array has %lld buffers, needs %d",
                          floe_type_id_name(t->id), (long long)a->n_buffers, nb);
    int32_t nc = floe_type_is_nested(t) ? t->n_children : 0;
    if (a->n_children != nc || (nc > 0 && !a->children))
        return floe_error(FLOE_ERR_CORRUPT, "Arrow %s array has %lld children, needs %d",
                          floe_type_id_name(t->id), (long long)a->n_children, nc);
    int64_t end = a->offset + a->length;
    if (t->byte_width > 0 && end > INT64_MAX / t->byte_width)
        return floe_error(FLOE_ERR_CORRUPT, "Arrow array of %lld %d-byte values is too large", (long long)end,
                          t->byte_width);
    floe_buffer *validity = NULL, *bufs[2] = {NULL, NULL};
    floe_array **kids = floe_calloc((size_t)(nc > 0 ? nc : 1), sizeof *kids);
    if (!kids) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory importing an array");
    floe_status st = NULL;
    int64_t null_count = a->null_count;
    if (nb > 0 && a->buffers[0]) {
        st = wrap_import(h, a->buffers[0], (end + 7) / 8, "validity", &validity);
    } else if (nb > 0 && null_count != 0) {
        if (null_count > 0) st = floe_error(FLOE_ERR_CORRUPT, "Arrow array has %lld nulls but no validity bitmap",
                                            (long long)null_count);
        null_count = 0;
    }
    if (!st) switch (t->id) {
        case FLOE_TYPE_NULL:
        case FLOE_TYPE_STRUCT:
        case FLOE_TYPE_VARIANT:
            break;
        case FLOE_TYPE_BOOL:
            st = wrap_import(h, a->buffers[1], (end + 7) / 8, "values", &bufs[0]);
            break;
        case FLOE_TYPE_STRING:
        case FLOE_TYPE_BINARY:
        case FLOE_TYPE_LIST:
        case FLOE_TYPE_MAP: {
            if (!a->buffers[1] && a->length > 0) {
                st = floe_error(FLOE_ERR_CORRUPT, "Arrow offsets buffer is NULL");
                break;
            }
            st = wrap_import(h, a->buffers[1], a->buffers[1] ? (end + 1) * 4 : 0, "offsets", &bufs[0]);
            if (!st && !a->buffers[1]) {
                /* An empty array without offsets: stand in offsets[end] = 0. */
                floe_buffer_release(bufs[0]);
                bufs[0] = NULL;
                st = floe_buffer_new((end + 1) * 4, &bufs[0]);
            }
            if (!st && floe_type_is_binary_like(t)) {
                int32_t last = ((const int32_t *)bufs[0]->data)[end];
                if (last < 0) st = floe_error(FLOE_ERR_CORRUPT, "Arrow last offset %d is negative", last);
                else st = wrap_import(h, a->buffers[2], last, "data", &bufs[1]);
            }
            break;
        }
        default:
            st = wrap_import(h, a->buffers[1], end * t->byte_width, "values", &bufs[0]);
            break;
        }
    int32_t made = 0;
    for (; !st && made < nc; made++) {
        st = import_array_rec(h, a->children[made], t->children[made].type, &kids[made], depth + 1);
        if (st) st = floe_status_wrap(st, "child '%s'", t->children[made].name);
    }
    if (!st)
        st = floe_array_new(t, a->length, a->offset, null_count < 0 ? FLOE_NULL_COUNT_UNKNOWN : null_count,
                            validity, bufs, floe_type_num_buffers(t), kids, nc, out);
    for (int32_t i = 0; i < made; i++) floe_array_release(kids[i]);
    floe_free(kids);
    floe_buffer_release(validity);
    floe_buffer_release(bufs[0]);
    floe_buffer_release(bufs[1]);
    return st;
}

floe_status floe_arrow_import_array(struct ArrowArray *in, floe_type *type, floe_array **out) {
    *out = NULL;
    if (!in || !in->release) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Arrow array is already released");
    import_holder *h = floe_malloc(sizeof *h);
    if (!h) {
        in->release(in);
        in->release = NULL;
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory importing an array");
    }
    atomic_init(&h->refs, 1);
    h->array = *in; /* move */
    in->release = NULL;
    floe_status st = import_array_rec(h, &h->array, type, out, 0);
    if (!st) st = floe_array_validate(*out);
    if (st) {
        floe_array_release(*out);
        *out = NULL;
        st = floe_status_wrap(st, "importing an Arrow array");
    }
    holder_unref(h);
    return st;
}

floe_status floe_arrow_import_batch(struct ArrowArray *in_array, struct ArrowSchema *in_schema,
                                    floe_batch **out) {
    *out = NULL;
    floe_schema *schema = NULL;
    floe_status st = floe_arrow_import_schema(in_schema, &schema);
    if (st) {
        if (in_array && in_array->release) {
            in_array->release(in_array);
            in_array->release = NULL;
        }
        return st;
    }
    floe_array *s = NULL;
    st = floe_arrow_import_array(in_array, schema, &s);
    if (!st) st = floe_batch_from_struct(s, out);
    floe_array_release(s);
    floe_type_release(schema);
    return st;
}

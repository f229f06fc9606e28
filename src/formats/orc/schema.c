/*
 * schema.c — the ORC type tree and its floe types (see schema.h).
 */
#include "formats/orc/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buffer.h"
#include "floe/memory.h"

#define MAX_DEPTH 200

typedef struct build_ctx {
    const floe_orc_footer *footer;
    floe_orc_schema *s;
    uint32_t next;   /* next id expected in pre-order */
} build_ctx;

static floe_status corrupt(uint32_t id, const char *what) {
    return floe_error(FLOE_ERR_CORRUPT, "ORC schema: type %u: %s", id, what);
}

static char *join_path(const char *parent, const char *name) {
    size_t a = strlen(parent), b = strlen(name);
    char *p = floe_malloc(a + b + 2);
    if (!p) return NULL;
    if (a) {
        memcpy(p, parent, a);
        p[a] = '.';
        memcpy(p + a + 1, name, b + 1);
    } else {
        memcpy(p, name, b + 1);
    }
    return p;
}

static floe_status build(build_ctx *c, uint32_t id, floe_orc_column *parent, const char *name,
                         int depth) {
    if (depth > MAX_DEPTH) return corrupt(id, "nesting too deep");
    if (id != c->next) return corrupt(id, "subtypes are not in pre-order");
    if (id >= c->s->num_columns) return corrupt(id, "subtype out of range");
    c->next++;
    const floe_orc_type_msg *t = &c->footer->types[id];
    floe_orc_column *col = &c->s->columns[id];
    col->id = id;
    col->kind = t->kind;
    col->name = name;
    col->parent = parent;
    col->path = join_path(parent ? parent->path : "", name);
    if (!col->path) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    col->max_length = t->max_length;
    col->precision = t->has_precision ? t->precision : 0;
    col->scale = t->has_scale ? t->scale : 0;
    col->attributes = t->attributes;
    col->num_attributes = (int)t->num_attributes;
    col->iceberg_id = -1;
    for (size_t i = 0; i < t->num_attributes; i++) {
        const floe_orc_attribute *at = &t->attributes[i];
        if (!strcmp(at->key, "iceberg.id")) {
            char *end;
            long v = strtol(at->value, &end, 10);
            if (*end || end == at->value || v < 0 || v > INT32_MAX)
                return corrupt(id, "attribute iceberg.id is not a field id");
            col->iceberg_id = (int32_t)v;
        } else if (!strcmp(at->key, "iceberg.required")) {
            col->iceberg_required = !strcmp(at->value, "true");
        }
    }
    size_t nsub = t->num_subtypes;
    switch (t->kind) {
    case FLOE_ORC_STRUCT:
        if (t->num_field_names != nsub) return corrupt(id, "struct has unequal field names and subtypes");
        break;
    case FLOE_ORC_LIST:
        if (nsub != 1) return corrupt(id, "array must have one subtype");
        break;
    case FLOE_ORC_MAP:
        if (nsub != 2) return corrupt(id, "map must have two subtypes");
        break;
    case FLOE_ORC_UNION:
        if (nsub < 1 || nsub > 256) return corrupt(id, "uniontype must have 1 to 256 subtypes");
        break;
    case FLOE_ORC_DECIMAL:
        if (col->precision > 38 || col->scale > 38 || (col->precision && col->scale > col->precision))
            return corrupt(id, "decimal precision/scale out of range");
        /* fall through */
    default:
        if (nsub) return corrupt(id, "a primitive type has subtypes");
    }
    if (nsub) {
        col->children = floe_calloc(nsub, sizeof *col->children);
        if (!col->children) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    static const char *const digits[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
    for (size_t i = 0; i < nsub; i++) {
        const char *cn;
        char *owned = NULL;
        if (t->kind == FLOE_ORC_STRUCT) cn = t->field_names[i];
        else if (t->kind == FLOE_ORC_LIST) cn = "element";
        else if (t->kind == FLOE_ORC_MAP) cn = i ? "value" : "key";
        else if (i < 10) cn = digits[i];
        else {
            char tmp[24];
            snprintf(tmp, sizeof tmp, "%zu", i);
            cn = owned = floe_strdup(tmp);
            if (!owned) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        }
        uint32_t cid = t->subtypes[i];
        if (cid != c->next) {
            floe_free(owned);
            return corrupt(id, "subtypes are not in pre-order");
        }
        col->children[col->num_children++] = &c->s->columns[cid];
        floe_status st = build(c, cid, col, cn, depth + 1);
        /* an allocated variant name belongs to the schema once set */
        if (owned && c->s->columns[cid].name != owned) floe_free(owned);
        if (st) return st;
    }
    col->last_id = c->next - 1;
    return NULL;
}

floe_status floe_orc_schema_build(const floe_orc_footer *footer, floe_orc_schema **out) {
    *out = NULL;
    if (footer->num_types == 0) return floe_error(FLOE_ERR_CORRUPT, "ORC schema: the footer has no types");
    floe_orc_schema *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    s->num_columns = (uint32_t)footer->num_types;
    s->columns = floe_calloc(s->num_columns, sizeof *s->columns);
    if (!s->columns) {
        floe_free(s);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    build_ctx c = {footer, s, 0};
    floe_status st = build(&c, 0, NULL, "", 0);
    if (!st && c.next != s->num_columns)
        st = floe_error(FLOE_ERR_CORRUPT, "ORC schema: %u types, but the tree reaches %u",
                        s->num_columns, c.next);
    if (st) {
        floe_orc_schema_free(s);
        return st;
    }
    s->root = &s->columns[0];
    *out = s;
    return NULL;
}

void floe_orc_schema_free(floe_orc_schema *s) {
    if (!s) return;
    for (uint32_t i = 0; i < s->num_columns; i++) {
        floe_orc_column *c = &s->columns[i];
        floe_free(c->path);
        floe_free(c->children);
        /* union variant names beyond "9" were allocated */
        if (c->parent && c->parent->kind == FLOE_ORC_UNION && c->name && c->name[0] &&
            c->name[1])
            floe_free((char *)c->name);
    }
    floe_free(s->columns);
    floe_free(s);
}

const floe_orc_column *floe_orc_schema_find_path(const floe_orc_schema *s, const char *path) {
    for (uint32_t i = 1; i < s->num_columns; i++)
        if (s->columns[i].path && !strcmp(s->columns[i].path, path)) return &s->columns[i];
    return NULL;
}

const floe_orc_column *floe_orc_schema_find_iceberg_id(const floe_orc_schema *s, int32_t id) {
    for (uint32_t i = 1; i < s->num_columns; i++)
        if (s->columns[i].iceberg_id == id) return &s->columns[i];
    return NULL;
}

const char *floe_orc_column_attribute(const floe_orc_column *c, const char *key) {
    for (int i = 0; i < c->num_attributes; i++)
        if (!strcmp(c->attributes[i].key, key)) return c->attributes[i].value;
    return NULL;
}

floe_status floe_orc_column_field(const floe_orc_column *c, floe_orc_ts_unit unit, floe_field *out) {
    floe_type *t;
    FLOE_TRY(floe_orc_column_type(c, unit, &t));
    floe_status st = floe_field_init(out, c->name, t, !c->iceberg_required, c->iceberg_id);
    floe_type_release(t);
    return st;
}

floe_status floe_orc_column_type(const floe_orc_column *c, floe_orc_ts_unit unit, floe_type **out) {
    *out = NULL;
    const char *tu = floe_orc_column_attribute(c, "iceberg.timestamp-unit");
    bool ns = unit == FLOE_ORC_TS_NS || (tu && !strcasecmp(tu, "NANOS"));
    switch (c->kind) {
    case FLOE_ORC_BOOLEAN: *out = floe_type_primitive(FLOE_TYPE_BOOL); return NULL;
    case FLOE_ORC_BYTE:
    case FLOE_ORC_SHORT:
    case FLOE_ORC_INT: *out = floe_type_primitive(FLOE_TYPE_INT32); return NULL;
    case FLOE_ORC_LONG: {
        const char *lt = floe_orc_column_attribute(c, "iceberg.long-type");
        *out = floe_type_primitive(lt && !strcmp(lt, "TIME") ? FLOE_TYPE_TIME64_US : FLOE_TYPE_INT64);
        return NULL;
    }
    case FLOE_ORC_FLOAT: *out = floe_type_primitive(FLOE_TYPE_FLOAT32); return NULL;
    case FLOE_ORC_DOUBLE: *out = floe_type_primitive(FLOE_TYPE_FLOAT64); return NULL;
    case FLOE_ORC_STRING:
    case FLOE_ORC_VARCHAR:
    case FLOE_ORC_CHAR: *out = floe_type_primitive(FLOE_TYPE_STRING); return NULL;
    case FLOE_ORC_BINARY: {
        const char *bt = floe_orc_column_attribute(c, "iceberg.binary-type");
        if (bt && !strcmp(bt, "UUID")) {
            *out = floe_type_primitive(FLOE_TYPE_UUID);
            return NULL;
        }
        if (bt && !strcmp(bt, "FIXED")) {
            const char *ls = floe_orc_column_attribute(c, "iceberg.length");
            char *end;
            long len = ls ? strtol(ls, &end, 10) : -1;
            if (!ls || *end || end == ls || len < 1 || len > INT32_MAX)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "ORC column %u '%s': iceberg.binary-type FIXED needs an "
                                  "iceberg.length, got '%s'",
                                  c->id, c->path, ls ? ls : "(none)");
            return floe_type_fixed_binary((int32_t)len, out);
        }
        *out = floe_type_primitive(FLOE_TYPE_BINARY);
        return NULL;
    }
    case FLOE_ORC_DATE: *out = floe_type_primitive(FLOE_TYPE_DATE32); return NULL;
    case FLOE_ORC_TIMESTAMP:
        *out = floe_type_primitive(ns ? FLOE_TYPE_TIMESTAMP_NS : FLOE_TYPE_TIMESTAMP_US);
        return NULL;
    case FLOE_ORC_TIMESTAMP_INSTANT:
        *out = floe_type_primitive(ns ? FLOE_TYPE_TIMESTAMP_NS_TZ : FLOE_TYPE_TIMESTAMP_US_TZ);
        return NULL;
    case FLOE_ORC_DECIMAL:
        if (c->precision == 0) return floe_type_decimal(38, FLOE_ORC_HIVE11_DECIMAL_SCALE, out);
        return floe_type_decimal((int32_t)c->precision, (int32_t)c->scale, out);
    case FLOE_ORC_LIST: {
        floe_field el;
        FLOE_TRY(floe_orc_column_field(c->children[0], unit, &el));
        floe_status st = floe_type_list(&el, out);
        floe_field_clear(&el);
        return st;
    }
    case FLOE_ORC_MAP: {
        floe_field k, v;
        FLOE_TRY(floe_orc_column_field(c->children[0], unit, &k));
        floe_status st = floe_orc_column_field(c->children[1], unit, &v);
        if (!st) {
            st = floe_type_map(&k, &v, false, out);
            floe_field_clear(&v);
        }
        floe_field_clear(&k);
        return st;
    }
    case FLOE_ORC_STRUCT:
    case FLOE_ORC_UNION: {
        bool u = c->kind == FLOE_ORC_UNION;
        int n = c->num_children + (u ? 1 : 0);
        floe_field *f = floe_calloc((size_t)n + 1, sizeof *f);
        if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        floe_status st = NULL;
        int k = 0;
        if (u) {
            st = floe_field_init(&f[k], "tag", floe_type_primitive(FLOE_TYPE_INT32), true, -1);
            if (!st) k++;
        }
        for (int i = 0; !st && i < c->num_children; i++) {
            st = floe_orc_column_field(c->children[i], unit, &f[k]);
            if (!st) {
                if (u) f[k].nullable = true;
                k++;
            }
        }
        if (!st) st = floe_type_struct(f, n, out);
        for (int i = 0; i < k; i++) floe_field_clear(&f[i]);
        floe_free(f);
        return st;
    }
    }
    return floe_error(FLOE_ERR_UNSUPPORTED, "ORC type kind %d is not supported", c->kind);
}

floe_status floe_orc_column_type_string(const floe_orc_column *c, floe_buf *out) {
    switch (c->kind) {
    case FLOE_ORC_DECIMAL:
        return floe_buf_printf(out, "decimal(%u,%u)", c->precision, c->scale);
    case FLOE_ORC_VARCHAR:
    case FLOE_ORC_CHAR:
        return floe_buf_printf(out, "%s(%u)", floe_orc_kind_name(c->kind), c->max_length);
    case FLOE_ORC_LIST:
    case FLOE_ORC_MAP:
    case FLOE_ORC_UNION:
    case FLOE_ORC_STRUCT:
        FLOE_TRY(floe_buf_printf(out, "%s<", floe_orc_kind_name(c->kind)));
        for (int i = 0; i < c->num_children; i++) {
            if (i) FLOE_TRY(floe_buf_append_byte(out, ','));
            if (c->kind == FLOE_ORC_STRUCT) FLOE_TRY(floe_buf_printf(out, "%s:", c->children[i]->name));
            FLOE_TRY(floe_orc_column_type_string(c->children[i], out));
        }
        return floe_buf_append_byte(out, '>');
    default:
        return floe_buf_append_str(out, floe_orc_kind_name(c->kind));
    }
}

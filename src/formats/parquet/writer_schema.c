/*
 * writer_schema.c — turn a floe schema into the Parquet schema the writer
 * emits, and describe each leaf column (path, levels, physical type, how its
 * statistics order) for the shredder and the column writers.
 *
 * Shapes follow LogicalTypes.md and the Iceberg spec's Appendix A:
 *   list:   <opt|req> group name (LIST) { repeated group list { <opt|req> element } }
 *   map:    <opt|req> group name (MAP) { repeated group key_value {
 *               required key; <opt|req> value } }
 *   struct: <opt|req> group name { fields... }
 * Every element made from a floe field carries its Iceberg field id; the
 * synthetic `list` and `key_value` groups have none (there is no field).
 */
#include <string.h>

#include "floe/memory.h"
#include "formats/parquet/writer_internal.h"

#define MAX_NESTING 200 /* deeper types are refused, keeping recursion bounded */

typedef struct build_ctx {
    pqw_schema *s;
    int32_t cap_el, cap_leaves;
    pqw_node *nodes;         /* stack of nodes from the top-level field down */
    int32_t n_nodes;
    const char **names;      /* stack of path names */
    int32_t n_names;
    int32_t column;
} build_ctx;

int32_t pqw_decimal_bytes(int32_t precision) {
    /* Largest precision that n bytes of two's complement can hold:
     * floor(log10(2^(8n-1) - 1)). */
    static const int32_t max_digits[17] = {0, 2, 4, 6, 9, 11, 14, 16, 18, 21,
                                           23, 26, 28, 31, 33, 35, 38};
    for (int32_t n = 1; n <= 16; n++)
        if (max_digits[n] >= precision) return n;
    return 16;
}

static floe_status oom(void) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory building the Parquet schema");
}

/* Append a zeroed element; returns its index or -1. */
static int32_t add_element(build_ctx *c, const char *name) {
    pqw_schema *s = c->s;
    if (s->n_elements == c->cap_el) {
        int32_t cap = c->cap_el ? c->cap_el * 2 : 16;
        void *p = floe_realloc(s->elements, (size_t)cap * sizeof *s->elements);
        if (!p) return -1;
        s->elements = p;
        c->cap_el = cap;
    }
    floe_pq_schema_element *e = &s->elements[s->n_elements];
    memset(e, 0, sizeof *e);
    e->name = name;
    e->converted_type = FLOE_PQ_CT_NONE;
    return s->n_elements++;
}

static floe_status push(build_ctx *c, pqw_node node, const char *name, int nnames,
                        const char *name2) {
    if (c->n_nodes >= MAX_NESTING)
        return floe_error(FLOE_ERR_UNSUPPORTED, "Parquet writer: types nested deeper than %d",
                          MAX_NESTING);
    c->nodes[c->n_nodes++] = node;
    c->names[c->n_names++] = name;
    if (nnames == 2) c->names[c->n_names++] = name2;
    return NULL;
}

static void set_time_lt(floe_pq_schema_element *e, floe_pq_logical_kind kind, bool utc,
                        floe_pq_time_unit unit) {
    e->logical.kind = kind;
    e->logical.utc = utc;
    e->logical.unit = unit;
}

/* Physical type, annotations and statistics order of a primitive leaf. */
static floe_status set_primitive(floe_pq_schema_element *e, pqw_leaf *leaf, const floe_type *t,
                                 const char *name) {
    e->has_type = true;
    leaf->order = PQW_ORD_NONE;
    switch (t->id) {
    case FLOE_TYPE_NULL:
        e->type = FLOE_PQ_INT32;
        e->logical.kind = FLOE_PQ_LT_UNKNOWN;
        break;
    case FLOE_TYPE_BOOL:
        e->type = FLOE_PQ_BOOLEAN;
        leaf->order = PQW_ORD_BOOL;
        break;
    case FLOE_TYPE_INT32:
        e->type = FLOE_PQ_INT32;
        leaf->order = PQW_ORD_I32;
        break;
    case FLOE_TYPE_INT64:
        e->type = FLOE_PQ_INT64;
        leaf->order = PQW_ORD_I64;
        break;
    case FLOE_TYPE_FLOAT32:
        e->type = FLOE_PQ_FLOAT;
        leaf->order = PQW_ORD_FLOAT;
        break;
    case FLOE_TYPE_FLOAT64:
        e->type = FLOE_PQ_DOUBLE;
        leaf->order = PQW_ORD_DOUBLE;
        break;
    case FLOE_TYPE_DECIMAL128:
        if (t->precision < 1 || t->precision > 38 || t->scale < 0 || t->scale > t->precision)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "Parquet writer: column '%s': bad decimal(%d, %d)", name,
                              t->precision, t->scale);
        if (t->precision <= 9) {
            e->type = FLOE_PQ_INT32;
            leaf->order = PQW_ORD_I32;
        } else if (t->precision <= 18) {
            e->type = FLOE_PQ_INT64;
            leaf->order = PQW_ORD_I64;
        } else {
            e->type = FLOE_PQ_FIXED_LEN_BYTE_ARRAY;
            e->has_type_length = true;
            e->type_length = pqw_decimal_bytes(t->precision);
            leaf->order = PQW_ORD_SIGNED_BE;
        }
        e->converted_type = FLOE_PQ_CT_DECIMAL;
        e->has_scale = e->has_precision = true;
        e->scale = t->scale;
        e->precision = t->precision;
        e->logical.kind = FLOE_PQ_LT_DECIMAL;
        e->logical.scale = t->scale;
        e->logical.precision = t->precision;
        break;
    case FLOE_TYPE_DATE32:
        e->type = FLOE_PQ_INT32;
        e->converted_type = FLOE_PQ_CT_DATE;
        e->logical.kind = FLOE_PQ_LT_DATE;
        leaf->order = PQW_ORD_I32;
        break;
    case FLOE_TYPE_TIME64_US:
        /* Iceberg's time is a local time of day: TIME(false, MICROS).  The
         * spec asks writers to add TIME_MICROS for either adjustment. */
        e->type = FLOE_PQ_INT64;
        e->converted_type = FLOE_PQ_CT_TIME_MICROS;
        set_time_lt(e, FLOE_PQ_LT_TIME, false, FLOE_PQ_UNIT_MICROS);
        leaf->order = PQW_ORD_I64;
        break;
    case FLOE_TYPE_TIMESTAMP_US:
    case FLOE_TYPE_TIMESTAMP_US_TZ:
        e->type = FLOE_PQ_INT64;
        e->converted_type = FLOE_PQ_CT_TIMESTAMP_MICROS;
        set_time_lt(e, FLOE_PQ_LT_TIMESTAMP, t->id == FLOE_TYPE_TIMESTAMP_US_TZ,
                    FLOE_PQ_UNIT_MICROS);
        leaf->order = PQW_ORD_I64;
        break;
    case FLOE_TYPE_TIMESTAMP_NS:
    case FLOE_TYPE_TIMESTAMP_NS_TZ:
        e->type = FLOE_PQ_INT64; /* no converted type exists for nanoseconds */
        set_time_lt(e, FLOE_PQ_LT_TIMESTAMP, t->id == FLOE_TYPE_TIMESTAMP_NS_TZ,
                    FLOE_PQ_UNIT_NANOS);
        leaf->order = PQW_ORD_I64;
        break;
    case FLOE_TYPE_STRING:
        e->type = FLOE_PQ_BYTE_ARRAY;
        e->converted_type = FLOE_PQ_CT_UTF8;
        e->logical.kind = FLOE_PQ_LT_STRING;
        leaf->order = PQW_ORD_UNSIGNED_BYTES;
        leaf->is_string = true;
        break;
    case FLOE_TYPE_BINARY:
        e->type = FLOE_PQ_BYTE_ARRAY;
        leaf->order = PQW_ORD_UNSIGNED_BYTES;
        break;
    case FLOE_TYPE_FIXED_BINARY:
        if (t->byte_width < 1)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "Parquet writer: column '%s': fixed width %d", name, t->byte_width);
        e->type = FLOE_PQ_FIXED_LEN_BYTE_ARRAY;
        e->has_type_length = true;
        e->type_length = t->byte_width;
        leaf->order = PQW_ORD_UNSIGNED_BYTES;
        break;
    case FLOE_TYPE_UUID:
        e->type = FLOE_PQ_FIXED_LEN_BYTE_ARRAY;
        e->has_type_length = true;
        e->type_length = 16;
        e->logical.kind = FLOE_PQ_LT_UUID;
        leaf->order = PQW_ORD_UNSIGNED_BYTES;
        break;
    case FLOE_TYPE_VARIANT:
        return floe_error(FLOE_ERR_UNSUPPORTED, "Parquet writer: column '%s': writing variant columns is not "
                          "supported (CAST it to text for its JSON)", name);
    case FLOE_TYPE_INTERVAL:
        return floe_error(FLOE_ERR_UNSUPPORTED, "Parquet writer: column '%s': interval columns cannot be stored in "
                          "Iceberg tables or Parquet files (CAST it to text)", name);
    default:
        return floe_error(FLOE_ERR_UNSUPPORTED, "Parquet writer: column '%s': type %s", name,
                          floe_type_id_name(t->id));
    }
    leaf->phys = e->type;
    leaf->type_length = e->has_type_length ? e->type_length : 0;
    return NULL;
}

static floe_status add_leaf(build_ctx *c, const floe_type *t, int32_t field_id, int16_t def,
                            int16_t rep, int32_t el) {
    pqw_schema *s = c->s;
    if (s->n_leaves == c->cap_leaves) {
        int32_t cap = c->cap_leaves ? c->cap_leaves * 2 : 8;
        void *p = floe_realloc(s->leaves, (size_t)cap * sizeof *s->leaves);
        if (!p) return oom();
        s->leaves = p;
        c->cap_leaves = cap;
    }
    pqw_leaf *leaf = &s->leaves[s->n_leaves];
    memset(leaf, 0, sizeof *leaf);
    s->n_leaves++;
    leaf->column = c->column;
    leaf->type = t;
    leaf->field_id = field_id;
    leaf->max_def = def;
    leaf->max_rep = rep;
    leaf->depth = c->n_nodes;
    leaf->nodes = floe_malloc_array((size_t)c->n_nodes, sizeof *leaf->nodes);
    leaf->path = floe_malloc_array((size_t)c->n_names, sizeof *leaf->path);
    if (!leaf->nodes || !leaf->path) return oom();
    memcpy(leaf->nodes, c->nodes, (size_t)c->n_nodes * sizeof *leaf->nodes);
    memcpy(leaf->path, c->names, (size_t)c->n_names * sizeof *leaf->path);
    leaf->path_len = c->n_names;
    floe_buf b = FLOE_BUF_INIT;
    for (int32_t i = 0; i < c->n_names; i++) {
        floe_status st = floe_buf_printf(&b, "%s%s", i ? "." : "", c->names[i]);
        if (st) {
            floe_buf_free(&b);
            return st;
        }
    }
    leaf->dotted = (char *)floe_buf_detach(&b, NULL);
    if (!leaf->dotted) return oom();
    return set_primitive(&s->elements[el], leaf, t, leaf->dotted);
}

/* Add the element(s) for field `f` under the name `name`; def/rep are the
 * levels of its parent. */
static floe_status add_field(build_ctx *c, const floe_field *f, const char *name, bool force_req,
                             int16_t def, int16_t rep) {
    const floe_type *t = f->type;
    bool nullable = f->nullable && !force_req;
    int32_t el = add_element(c, name);
    if (el < 0) return oom();
    floe_pq_schema_element *e = &c->s->elements[el];
    e->has_repetition = true;
    e->repetition = nullable ? FLOE_PQ_OPTIONAL : FLOE_PQ_REQUIRED;
    if (f->field_id >= 0) {
        e->has_field_id = true;
        e->field_id = f->field_id;
    }
    int16_t d = (int16_t)(def + (nullable ? 1 : 0));
    if (d > 30000 || rep > 30000)
        return floe_error(FLOE_ERR_UNSUPPORTED, "Parquet writer: nesting too deep at '%s'", name);
    pqw_node node = {PQW_LEAF, nullable, 0, 0};
    int32_t n_nodes = c->n_nodes, n_names = c->n_names;
    floe_status st = NULL;

    switch (t->id) {
    case FLOE_TYPE_STRUCT:
        if (t->n_children == 0)
            return floe_error(FLOE_ERR_UNSUPPORTED,
                              "Parquet writer: struct '%s' has no fields (Parquet groups "
                              "need at least one)", name);
        e->has_num_children = true;
        e->num_children = t->n_children;
        node.kind = PQW_STRUCT;
        FLOE_TRY(push(c, node, name, 1, NULL));
        for (int32_t i = 0; i < t->n_children && !st; i++) {
            c->nodes[n_nodes].child = i;
            st = add_field(c, &t->children[i], t->children[i].name, false, d, rep);
        }
        break;
    case FLOE_TYPE_LIST: {
        e->has_num_children = true;
        e->num_children = 1;
        e->converted_type = FLOE_PQ_CT_LIST;
        e->logical.kind = FLOE_PQ_LT_LIST;
        int32_t g = add_element(c, "list");
        if (g < 0) return oom();
        e = &c->s->elements[g];
        e->has_repetition = true;
        e->repetition = FLOE_PQ_REPEATED;
        e->has_num_children = true;
        e->num_children = 1;
        node.kind = PQW_LIST;
        node.rep = (int16_t)(rep + 1);
        FLOE_TRY(push(c, node, name, 2, "list"));
        st = add_field(c, &t->children[0], "element", false, (int16_t)(d + 1), node.rep);
        break;
    }
    case FLOE_TYPE_MAP: {
        const floe_type *entries = t->children[0].type;
        if (entries->id != FLOE_TYPE_STRUCT || entries->n_children != 2)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "Parquet writer: map '%s' entries are not a key/value struct", name);
        e->has_num_children = true;
        e->num_children = 1;
        e->converted_type = FLOE_PQ_CT_MAP;
        e->logical.kind = FLOE_PQ_LT_MAP;
        int32_t g = add_element(c, "key_value");
        if (g < 0) return oom();
        e = &c->s->elements[g];
        e->has_repetition = true;
        e->repetition = FLOE_PQ_REPEATED;
        e->has_num_children = true;
        e->num_children = 2;
        node.kind = PQW_MAP;
        node.rep = (int16_t)(rep + 1);
        FLOE_TRY(push(c, node, name, 2, "key_value"));
        st = add_field(c, &entries->children[0], "key", true, (int16_t)(d + 1), node.rep);
        if (!st) {
            c->nodes[n_nodes].child = 1;
            st = add_field(c, &entries->children[1], "value", false, (int16_t)(d + 1), node.rep);
        }
        break;
    }
    default:
        FLOE_TRY(push(c, node, name, 1, NULL));
        st = add_leaf(c, t, f->field_id, d, rep, el);
        break;
    }
    c->n_nodes = n_nodes;
    c->n_names = n_names;
    return st;
}

floe_status pqw_schema_build(const floe_schema *schema, pqw_schema *out) {
    memset(out, 0, sizeof *out);
    if (!schema || schema->id != FLOE_TYPE_STRUCT)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Parquet writer: schema is not a struct");
    if (schema->n_children == 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Parquet writer: schema has no columns");
    build_ctx c = {.s = out};
    c.nodes = floe_malloc_array(MAX_NESTING + 1, sizeof *c.nodes);
    c.names = floe_malloc_array(2 * MAX_NESTING + 2, sizeof *c.names);
    floe_status st = NULL;
    if (!c.nodes || !c.names) st = oom();
    int32_t root = st ? -1 : add_element(&c, "schema");
    if (!st && root < 0) st = oom();
    if (!st) {
        out->elements[root].has_num_children = true;
        out->elements[root].num_children = schema->n_children;
    }
    for (int32_t i = 0; !st && i < schema->n_children; i++) {
        c.column = i;
        st = add_field(&c, &schema->children[i], schema->children[i].name, false, 0, 0);
    }
    floe_free(c.nodes);
    floe_free(c.names);
    if (st) {
        pqw_schema_free(out);
        return st;
    }
    out->schema = floe_type_retain((floe_type *)schema);
    return NULL;
}

void pqw_schema_free(pqw_schema *s) {
    for (int32_t i = 0; i < s->n_leaves; i++) {
        floe_free(s->leaves[i].nodes);
        floe_free(s->leaves[i].path);
        floe_free(s->leaves[i].dotted);
    }
    floe_free(s->leaves);
    floe_free(s->elements);
    floe_type_release(s->schema);
    memset(s, 0, sizeof *s);
}

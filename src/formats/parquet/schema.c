/*
 * schema.c — build the leaf columns and logical field tree of a Parquet
 * schema (see schema.h).
 *
 * Two passes.  The first rebuilds the physical tree from the flat, depth-first
 * SchemaElement list with an explicit stack (no recursion on untrusted
 * input), checking every group's child count, and computes each node's
 * definition and repetition levels and each leaf's path.  The second walks
 * that tree (its depth is bounded by the first pass) and produces the logical
 * tree, applying the LIST and MAP rules of parquet-format's LogicalTypes.md.
 */
#include "formats/parquet/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/memory.h"
#include "formats/parquet/variant_unshred.h"

/* Deeper schemas are refused: no real schema nests this far, and the bound
 * keeps the recursive second pass safe. */
#define MAX_NESTING 128

typedef struct pnode {
    const floe_pq_schema_element *e;
    int index;        /* in FileMetaData.schema */
    int parent;       /* -1 for the root */
    int *children;
    int num_children; /* filled so far (== declared once complete) */
    int declared;     /* declared number of children; -1 for a leaf */
    int16_t def, rep;
    int column;       /* leaf index, or -1 */
    int depth;
} pnode;

typedef struct id_entry {
    int32_t id;
    int seq; /* first occurrence wins among duplicates */
    const void *ptr;
} id_entry;

struct floe_pq_schema {
    floe_pq_arena arena;
    pnode *nodes;
    int num_nodes;
    floe_pq_column *columns;
    int num_columns;
    floe_pq_field *root;
    int *by_path;            /* column indexes sorted by path */
    id_entry *field_ids;     /* logical fields sorted by id */
    int num_field_ids;
    id_entry *column_ids;    /* leaf columns sorted by id */
    int num_column_ids;
};

const char *floe_pq_kind_name(floe_pq_kind k) {
    static const char *const names[] = {
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float", "double", "decimal", "date", "time_ms", "time_us", "time_ns",
        "timestamp_ms", "timestamp_us", "timestamp_ns", "string", "binary", "fixed", "uuid",
        "null", "struct", "list", "map", "variant"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static floe_status oom(void) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory building Parquet schema");
}

static void *salloc(floe_pq_schema *s, size_t n) { return floe_pq_arena_alloc(&s->arena, n); }

static floe_status bad(const pnode *n, const char *what) {
    return floe_error(FLOE_ERR_CORRUPT, "schema element %d ('%s'): %s", n->index,
                      n->e->name ? n->e->name : "", what);
}

static bool is_group_element(const floe_pq_schema_element *e) {
    /* A typed element with zero children is a leaf; an element with
     * children, or without a type, is a group. */
    return e->has_num_children && (e->num_children > 0 || !e->has_type);
}

static floe_pq_repetition repetition_of(const floe_pq_schema_element *e) {
    return e->has_repetition ? e->repetition : FLOE_PQ_REQUIRED;
}

/* ------------------------------------------------------- physical tree */

static bool group_complete(const pnode *g) { return g->num_children == g->declared; }

/* Make `g` a group expecting its declared children; `n` elements in all. */
static floe_status open_group(floe_pq_schema *s, pnode *g, int n) {
    g->declared = g->e->num_children;
    if (g->declared < 0) return bad(g, "negative num_children");
    if (g->declared > n - g->index - 1)
        return bad(g, "num_children exceeds the elements that follow");
    if (g->declared) {
        g->children = salloc(s, sizeof(int) * (size_t)g->declared);
        if (!g->children) return oom();
    }
    return NULL;
}

static floe_status build_physical(floe_pq_schema *s, const floe_pq_file_metadata *md) {
    int n = (int)md->num_schema;
    if (n <= 0) return floe_error(FLOE_ERR_CORRUPT, "schema is empty");
    s->nodes = salloc(s, sizeof(pnode) * (size_t)n);
    int *stack = salloc(s, sizeof(int) * MAX_NESTING);
    if (!s->nodes || !stack) return oom();

    pnode *root = &s->nodes[0];
    root->e = &md->schema[0];
    root->index = 0;
    root->parent = -1;
    root->column = -1;
    if (!root->e->name) return bad(root, "has no name");
    if (!is_group_element(root->e)) return bad(root, "the root must be a group");
    if (root->e->has_repetition && root->e->repetition == FLOE_PQ_REPEATED)
        return bad(root, "the root cannot be repeated");
    FLOE_TRY(open_group(s, root, n));
    int depth = 0;
    stack[depth++] = 0;

    for (int i = 1; i < n; i++) {
        pnode *node = &s->nodes[i];
        node->e = &md->schema[i];
        node->index = i;
        node->column = -1;
        node->declared = -1;
        /* The element belongs to the innermost group still missing children. */
        while (depth > 0 && group_complete(&s->nodes[stack[depth - 1]])) depth--;
        if (depth == 0) return bad(node, "follows the root's last child");
        pnode *parent = &s->nodes[stack[depth - 1]];
        node->parent = stack[depth - 1];
        parent->children[parent->num_children++] = i;
        if (!node->e->name) return bad(node, "has no name");
        floe_pq_repetition r = repetition_of(node->e);
        node->def = (int16_t)(parent->def + (r != FLOE_PQ_REQUIRED));
        node->rep = (int16_t)(parent->rep + (r == FLOE_PQ_REPEATED));
        node->depth = parent->depth + 1;
        if (is_group_element(node->e)) {
            if (depth >= MAX_NESTING)
                return floe_error(FLOE_ERR_UNSUPPORTED,
                                  "schema element %d ('%s'): nesting deeper than %d", i,
                                  node->e->name, MAX_NESTING);
            FLOE_TRY(open_group(s, node, n));
            stack[depth++] = i;
        } else if (!node->e->has_type) {
            return bad(node, "has neither a type nor children");
        } else {
            if (node->e->type == FLOE_PQ_FIXED_LEN_BYTE_ARRAY &&
                (!node->e->has_type_length || node->e->type_length <= 0))
                return bad(node, "FIXED_LEN_BYTE_ARRAY without a positive type_length");
            node->column = s->num_columns++;
        }
    }
    while (depth > 0 && group_complete(&s->nodes[stack[depth - 1]])) depth--;
    if (depth > 0)
        return bad(&s->nodes[stack[depth - 1]], "fewer children follow than num_children says");
    s->num_nodes = n;
    return NULL;
}

/* Fill the leaf column table (paths, levels, physical facts). */
static floe_status build_columns(floe_pq_schema *s) {
    s->columns = salloc(s, sizeof(floe_pq_column) * (size_t)(s->num_columns ? s->num_columns : 1));
    if (!s->columns) return oom();
    for (int i = 1; i < s->num_nodes; i++) {
        pnode *p = &s->nodes[i];
        if (p->column < 0) continue;
        floe_pq_column *c = &s->columns[p->column];
        c->index = p->column;
        c->schema_index = i;
        c->element = p->e;
        c->physical = p->e->type;
        c->type_length = p->e->type == FLOE_PQ_FIXED_LEN_BYTE_ARRAY ? p->e->type_length : 0;
        c->max_def_level = p->def;
        c->max_rep_level = p->rep;
        c->path_len = p->depth;
        c->path_parts = salloc(s, sizeof(char *) * (size_t)p->depth);
        if (!c->path_parts) return oom();
        size_t len = 0;
        int k = p->depth;
        for (pnode *q = p; q->parent >= 0; q = &s->nodes[q->parent]) {
            c->path_parts[--k] = q->e->name;
            len += strlen(q->e->name) + 1;
        }
        char *path = salloc(s, len + 1);
        if (!path) return oom();
        char *w = path;
        for (int j = 0; j < c->path_len; j++) {
            size_t l = strlen(c->path_parts[j]);
            if (j) *w++ = '.';
            memcpy(w, c->path_parts[j], l);
            w += l;
        }
        *w = 0;
        c->path = path;
    }
    return NULL;
}

/* --------------------------------------------------------- leaf kinds */

static floe_pq_kind physical_kind(floe_pq_type t) {
    switch (t) {
    case FLOE_PQ_BOOLEAN: return FLOE_PQ_KIND_BOOL;
    case FLOE_PQ_INT32: return FLOE_PQ_KIND_INT32;
    case FLOE_PQ_INT64: return FLOE_PQ_KIND_INT64;
    case FLOE_PQ_INT96: return FLOE_PQ_KIND_TIMESTAMP_NS;
    case FLOE_PQ_FLOAT: return FLOE_PQ_KIND_FLOAT;
    case FLOE_PQ_DOUBLE: return FLOE_PQ_KIND_DOUBLE;
    case FLOE_PQ_BYTE_ARRAY: return FLOE_PQ_KIND_BINARY;
    case FLOE_PQ_FIXED_LEN_BYTE_ARRAY: return FLOE_PQ_KIND_FIXED;
    }
    return FLOE_PQ_KIND_BINARY;
}

static bool decimal_physical(floe_pq_type t) {
    return t == FLOE_PQ_INT32 || t == FLOE_PQ_INT64 || t == FLOE_PQ_BYTE_ARRAY ||
           t == FLOE_PQ_FIXED_LEN_BYTE_ARRAY;
}

/* Kind from the LogicalType; -1 when it does not apply (absent, unknown to
 * floe, or not valid on this physical type). */
static int logical_kind(const floe_pq_schema_element *e, floe_pq_column *c) {
    const floe_pq_logical_type *lt = &e->logical;
    floe_pq_type t = e->type;
    switch (lt->kind) {
    case FLOE_PQ_LT_STRING:
    case FLOE_PQ_LT_ENUM:
    case FLOE_PQ_LT_JSON:
        return t == FLOE_PQ_BYTE_ARRAY ? FLOE_PQ_KIND_STRING : -1;
    case FLOE_PQ_LT_BSON:
        return t == FLOE_PQ_BYTE_ARRAY ? FLOE_PQ_KIND_BINARY : -1;
    case FLOE_PQ_LT_DECIMAL:
        if (!decimal_physical(t)) return -1;
        c->precision = lt->precision;
        c->scale = lt->scale;
        return FLOE_PQ_KIND_DECIMAL;
    case FLOE_PQ_LT_DATE:
        return t == FLOE_PQ_INT32 ? FLOE_PQ_KIND_DATE : -1;
    case FLOE_PQ_LT_TIME:
        c->utc = lt->utc;
        if (t == FLOE_PQ_INT32 && lt->unit == FLOE_PQ_UNIT_MILLIS) return FLOE_PQ_KIND_TIME_MS;
        if (t == FLOE_PQ_INT64 && lt->unit == FLOE_PQ_UNIT_MICROS) return FLOE_PQ_KIND_TIME_US;
        if (t == FLOE_PQ_INT64 && lt->unit == FLOE_PQ_UNIT_NANOS) return FLOE_PQ_KIND_TIME_NS;
        c->utc = false;
        return -1;
    case FLOE_PQ_LT_TIMESTAMP:
        if (t != FLOE_PQ_INT64) return -1;
        c->utc = lt->utc;
        switch (lt->unit) {
        case FLOE_PQ_UNIT_MILLIS: return FLOE_PQ_KIND_TIMESTAMP_MS;
        case FLOE_PQ_UNIT_MICROS: return FLOE_PQ_KIND_TIMESTAMP_US;
        case FLOE_PQ_UNIT_NANOS: return FLOE_PQ_KIND_TIMESTAMP_NS;
        default: c->utc = false; return -1;
        }
    case FLOE_PQ_LT_INTEGER:
        if (t == FLOE_PQ_INT32) {
            switch (lt->bit_width) {
            case 8: return lt->is_signed ? FLOE_PQ_KIND_INT8 : FLOE_PQ_KIND_UINT8;
            case 16: return lt->is_signed ? FLOE_PQ_KIND_INT16 : FLOE_PQ_KIND_UINT16;
            case 32: return lt->is_signed ? FLOE_PQ_KIND_INT32 : FLOE_PQ_KIND_UINT32;
            default: return -1;
            }
        }
        if (t == FLOE_PQ_INT64 && lt->bit_width == 64)
            return lt->is_signed ? FLOE_PQ_KIND_INT64 : FLOE_PQ_KIND_UINT64;
        return -1;
    case FLOE_PQ_LT_UNKNOWN:
        return FLOE_PQ_KIND_NULL;
    case FLOE_PQ_LT_UUID:
        return t == FLOE_PQ_FIXED_LEN_BYTE_ARRAY && e->type_length == 16 ? FLOE_PQ_KIND_UUID
                                                                        : -1;
    case FLOE_PQ_LT_FLOAT16:
        return t == FLOE_PQ_FIXED_LEN_BYTE_ARRAY && e->type_length == 2
                   ? FLOE_PQ_KIND_FLOAT16 : -1;
    case FLOE_PQ_LT_GEOMETRY:
    case FLOE_PQ_LT_GEOGRAPHY:
        return t == FLOE_PQ_BYTE_ARRAY ? FLOE_PQ_KIND_BINARY : -1; /* WKB */
    default:
        return -1; /* MAP, LIST, VARIANT annotate groups, not leaves */
    }
}

/* Kind from the legacy ConvertedType; -1 when it does not apply. */
static int converted_kind(const floe_pq_schema_element *e, floe_pq_column *c) {
    floe_pq_type t = e->type;
    switch (e->converted_type) {
    case FLOE_PQ_CT_UTF8:
    case FLOE_PQ_CT_ENUM:
    case FLOE_PQ_CT_JSON:
        return t == FLOE_PQ_BYTE_ARRAY ? FLOE_PQ_KIND_STRING : -1;
    case FLOE_PQ_CT_BSON:
        return t == FLOE_PQ_BYTE_ARRAY ? FLOE_PQ_KIND_BINARY : -1;
    case FLOE_PQ_CT_DECIMAL:
        if (!decimal_physical(t)) return -1;
        c->precision = e->has_precision ? e->precision : 0;
        c->scale = e->has_scale ? e->scale : 0;
        return FLOE_PQ_KIND_DECIMAL;
    case FLOE_PQ_CT_DATE:
        return t == FLOE_PQ_INT32 ? FLOE_PQ_KIND_DATE : -1;
    /* The legacy time and timestamp annotations mean UTC-adjusted values
     * (LogicalTypes.md, "backward compatibility"). */
    case FLOE_PQ_CT_TIME_MILLIS:
        if (t != FLOE_PQ_INT32) return -1;
        c->utc = true;
        return FLOE_PQ_KIND_TIME_MS;
    case FLOE_PQ_CT_TIME_MICROS:
        if (t != FLOE_PQ_INT64) return -1;
        c->utc = true;
        return FLOE_PQ_KIND_TIME_US;
    case FLOE_PQ_CT_TIMESTAMP_MILLIS:
    case FLOE_PQ_CT_TIMESTAMP_MICROS:
        if (t != FLOE_PQ_INT64) return -1;
        c->utc = true;
        return e->converted_type == FLOE_PQ_CT_TIMESTAMP_MILLIS ? FLOE_PQ_KIND_TIMESTAMP_MS
                                                                : FLOE_PQ_KIND_TIMESTAMP_US;
    case FLOE_PQ_CT_INT_8: return t == FLOE_PQ_INT32 ? FLOE_PQ_KIND_INT8 : -1;
    case FLOE_PQ_CT_INT_16: return t == FLOE_PQ_INT32 ? FLOE_PQ_KIND_INT16 : -1;
    case FLOE_PQ_CT_INT_32: return t == FLOE_PQ_INT32 ? FLOE_PQ_KIND_INT32 : -1;
    case FLOE_PQ_CT_UINT_8: return t == FLOE_PQ_INT32 ? FLOE_PQ_KIND_UINT8 : -1;
    case FLOE_PQ_CT_UINT_16: return t == FLOE_PQ_INT32 ? FLOE_PQ_KIND_UINT16 : -1;
    case FLOE_PQ_CT_UINT_32: return t == FLOE_PQ_INT32 ? FLOE_PQ_KIND_UINT32 : -1;
    case FLOE_PQ_CT_INT_64: return t == FLOE_PQ_INT64 ? FLOE_PQ_KIND_INT64 : -1;
    case FLOE_PQ_CT_UINT_64: return t == FLOE_PQ_INT64 ? FLOE_PQ_KIND_UINT64 : -1;
    case FLOE_PQ_CT_INTERVAL:
        return t == FLOE_PQ_FIXED_LEN_BYTE_ARRAY && e->type_length == 12 ? FLOE_PQ_KIND_FIXED : -1;
    default: return -1; /* MAP, MAP_KEY_VALUE, LIST annotate groups, not leaves */
    }
}

/* The physical type for messages: "INT32", "FIXED_LEN_BYTE_ARRAY(8)". */
static void physical_text(const floe_pq_schema_element *e, char *buf, size_t cap) {
    if (e->type == FLOE_PQ_FIXED_LEN_BYTE_ARRAY)
        snprintf(buf, cap, "%s(%d)", floe_pq_type_name(e->type), (int)e->type_length);
    else
        snprintf(buf, cap, "%s", floe_pq_type_name(e->type));
}

/* Mark `c` unreadable: reading it is an error saying `msg` (see
 * floe_pq_column.invalid).  The kind falls back to the physical type's so
 * nothing that only inspects the schema trips over it. */
static floe_status set_invalid(floe_pq_schema *s, floe_pq_column *c, const char *msg) {
    size_t n = strlen(msg) + 1;
    char *m = salloc(s, n);
    if (!m) return oom();
    memcpy(m, msg, n);
    c->invalid = m;
    c->kind = physical_kind(c->element->type);
    c->utc = false;
    c->precision = c->scale = 0;
    return NULL;
}

/* Decide a leaf's kind: the logical type when floe knows it, else the
 * converted type, else the physical type itself.  An annotation that does
 * not fit the physical type (TIMESTAMP on INT32, UINT_64 on INT32, DATE on
 * BYTE_ARRAY, DECIMAL with scale > precision ...) is never read as the
 * physical type: the column is marked invalid, naming the annotation. */
static floe_status classify_leaf(floe_pq_schema *s, floe_pq_column *c) {
    const floe_pq_schema_element *e = c->element;
    char ann[96], phys[64], msg[400];
    physical_text(e, phys, sizeof phys);
    int k = -1;
    bool logical = e->logical.kind != FLOE_PQ_LT_NONE && e->logical.kind != FLOE_PQ_LT_UNRECOGNIZED;
    bool converted = !logical && e->converted_type >= FLOE_PQ_CT_UTF8 && e->converted_type <= FLOE_PQ_CT_INTERVAL;
    if (logical) {
        floe_pq_logical_type_format(&e->logical, ann, sizeof ann);
        k = logical_kind(e, c);
        if (k < 0) {
            snprintf(msg, sizeof msg, "annotation %s is not valid on %s", ann, phys);
            return set_invalid(s, c, msg);
        }
    } else if (converted) {
        if (e->converted_type == FLOE_PQ_CT_DECIMAL)
            snprintf(ann, sizeof ann, "DECIMAL(%d,%d)", e->has_precision ? (int)e->precision : 0,
                     e->has_scale ? (int)e->scale : 0);
        else
            snprintf(ann, sizeof ann, "%s", floe_pq_converted_type_name(e->converted_type));
        k = converted_kind(e, c);
        if (k < 0) {
            snprintf(msg, sizeof msg, "converted type %s is not valid on %s", ann, phys);
            return set_invalid(s, c, msg);
        }
    }
    if (k < 0) k = (int)physical_kind(e->type);
    c->kind = (floe_pq_kind)k;
    if (c->kind == FLOE_PQ_KIND_TIMESTAMP_NS && e->type == FLOE_PQ_INT96)
        c->utc = true; /* INT96 holds instants (Impala/Spark; Iceberg: timestamptz) */
    if (c->kind == FLOE_PQ_KIND_DECIMAL) {
        const char *pre = logical ? "annotation" : "converted type";
        const char *why = NULL;
        char whybuf[160];
        if (c->precision < 1) {
            snprintf(whybuf, sizeof whybuf, "precision %d (must be at least 1)", (int)c->precision);
            why = whybuf;
        } else if (c->scale < 0) {
            why = "negative scale";
        } else if (c->scale > c->precision) {
            snprintf(whybuf, sizeof whybuf, "scale %d exceeds precision %d", (int)c->scale, (int)c->precision);
            why = whybuf;
        } else if ((e->type == FLOE_PQ_INT32 && c->precision > 9) ||
                   (e->type == FLOE_PQ_INT64 && c->precision > 18)) {
            snprintf(whybuf, sizeof whybuf, "precision %d is too large for %s", (int)c->precision, phys);
            why = whybuf;
        }
        if (why) {
            snprintf(msg, sizeof msg, "%s %s: %s", pre, ann, why);
            return set_invalid(s, c, msg);
        }
    }
    return NULL;
}

/* ------------------------------------------------------- logical tree */

static bool annotated_list(const floe_pq_schema_element *e) {
    if (e->logical.kind != FLOE_PQ_LT_NONE && e->logical.kind != FLOE_PQ_LT_UNRECOGNIZED)
        return e->logical.kind == FLOE_PQ_LT_LIST;
    return e->converted_type == FLOE_PQ_CT_LIST;
}

static bool annotated_map(const floe_pq_schema_element *e) {
    if (e->logical.kind != FLOE_PQ_LT_NONE && e->logical.kind != FLOE_PQ_LT_UNRECOGNIZED)
        return e->logical.kind == FLOE_PQ_LT_MAP;
    return e->converted_type == FLOE_PQ_CT_MAP || e->converted_type == FLOE_PQ_CT_MAP_KEY_VALUE;
}

static floe_pq_field *new_field(floe_pq_schema *s, const pnode *p, floe_pq_kind kind,
                                int nchildren) {
    floe_pq_field *f = salloc(s, sizeof *f);
    if (!f) return NULL;
    f->name = p->e->name;
    f->kind = kind;
    f->element = p->e;
    f->def_level = p->def;
    f->rep_level = p->rep;
    f->has_field_id = p->e->has_field_id;
    f->field_id = p->e->field_id;
    if (nchildren) {
        f->children = salloc(s, sizeof(floe_pq_field *) * (size_t)nchildren);
        if (!f->children) return NULL;
    }
    return f;
}

static floe_status convert(floe_pq_schema *s, const pnode *p, bool force_required,
                           floe_pq_field **out);

static floe_status set_child(floe_pq_field *f, int i, floe_pq_field *child) {
    f->children[i] = child;
    child->parent = f;
    return NULL;
}

/* A list node around `elem_node` (converted as required when
 * elem_required), with `outer` giving name, nullability and levels. */
static floe_status make_list(floe_pq_schema *s, const pnode *outer, bool nullable,
                             int16_t def, int16_t rep, const pnode *repeated,
                             const pnode *elem_node, bool elem_required, floe_pq_field **out) {
    floe_pq_field *f = new_field(s, outer, FLOE_PQ_KIND_LIST, 1);
    if (!f) return oom();
    f->nullable = nullable;
    f->def_level = def;
    f->rep_level = rep;
    f->elem_def_level = repeated->def;
    f->elem_rep_level = repeated->rep;
    f->num_children = 1;
    floe_pq_field *elem;
    FLOE_TRY(convert(s, elem_node, elem_required, &elem));
    /* A bare repeated field is both list and element: the id is the list's. */
    if (elem_node == outer) elem->has_field_id = false;
    set_child(f, 0, elem);
    *out = f;
    return NULL;
}

static floe_status convert_list(floe_pq_schema *s, const pnode *p, bool nullable,
                                floe_pq_field **out) {
    if (p->num_children != 1) return bad(p, "LIST group must have exactly one child");
    const pnode *r = &s->nodes[p->children[0]];
    if (repetition_of(r->e) != FLOE_PQ_REPEATED)
        return bad(p, "LIST group's child is not repeated");
    /* LogicalTypes.md backward compatibility: the repeated field itself is
     * the element when it is primitive, has several fields, or is the
     * single-field group of a legacy writer ("array", "<list>_tuple"). */
    bool repeated_is_element = r->declared < 0 || r->num_children != 1;
    if (!repeated_is_element) {
        const char *name = r->e->name, *list = p->e->name;
        size_t ll = strlen(list);
        if (strcmp(name, "array") == 0 ||
            (strncmp(name, list, ll) == 0 && strcmp(name + ll, "_tuple") == 0))
            repeated_is_element = true;
    }
    const pnode *elem = repeated_is_element ? r : &s->nodes[r->children[0]];
    return make_list(s, p, nullable, p->def, p->rep, r, elem, repeated_is_element, out);
}

static floe_status convert_map(floe_pq_schema *s, const pnode *p, bool nullable,
                               floe_pq_field **out) {
    if (p->num_children != 1) return bad(p, "MAP group must have exactly one child");
    const pnode *kv = &s->nodes[p->children[0]];
    if (repetition_of(kv->e) != FLOE_PQ_REPEATED || kv->declared < 0)
        return bad(p, "MAP group's child must be a repeated group");
    if (kv->num_children == 1) {
        /* A map without values (written by some tools): a list of keys. */
        return make_list(s, p, nullable, p->def, p->rep, kv, &s->nodes[kv->children[0]],
                         false, out);
    }
    if (kv->num_children != 2)
        return bad(p, "MAP key_value group must have a key and a value field");
    floe_pq_field *f = new_field(s, p, FLOE_PQ_KIND_MAP, 2);
    if (!f) return oom();
    f->nullable = nullable;
    f->elem_def_level = kv->def;
    f->elem_rep_level = kv->rep;
    f->num_children = 2;
    for (int i = 0; i < 2; i++) {
        floe_pq_field *c;
        FLOE_TRY(convert(s, &s->nodes[kv->children[i]], false, &c));
        set_child(f, i, c);
    }
    /* Keys must be required; optional keys (old Presto/Trino) are read as
     * they are and a null key is the reader's to reject. */
    *out = f;
    return NULL;
}

static floe_status convert(floe_pq_schema *s, const pnode *p, bool force_required,
                           floe_pq_field **out) {
    floe_pq_repetition r = force_required ? FLOE_PQ_REQUIRED : repetition_of(p->e);
    if (r == FLOE_PQ_REPEATED) {
        /* A repeated field outside a LIST/MAP: a required list of required
         * elements of the field's own type. */
        const pnode *parent = &s->nodes[p->parent];
        return make_list(s, p, false, parent->def, parent->rep, p, p, true, out);
    }
    bool nullable = r == FLOE_PQ_OPTIONAL;
    if (p->declared >= 0) {
        if (annotated_list(p->e)) return convert_list(s, p, nullable, out);
        if (annotated_map(p->e)) return convert_map(s, p, nullable, out);
        bool variant = p->e->logical.kind == FLOE_PQ_LT_VARIANT;
        floe_pq_field *f = new_field(s, p, variant ? FLOE_PQ_KIND_VARIANT : FLOE_PQ_KIND_STRUCT, p->num_children);
        if (!f) return oom();
        f->nullable = nullable;
        f->num_children = p->num_children;
        for (int i = 0; i < p->num_children; i++) {
            floe_pq_field *c;
            FLOE_TRY(convert(s, &s->nodes[p->children[i]], false, &c));
            set_child(f, i, c);
        }
        if (variant) {
            char why[256];
            if (pq_variant_check(f, why, sizeof why)) {
                size_t n = strlen(why) + 1;
                char *m = salloc(s, n);
                if (!m) return oom();
                memcpy(m, why, n);
                f->invalid = m;
            }
        }
        *out = f;
        return NULL;
    }
    floe_pq_column *col = &s->columns[p->column];
    floe_pq_field *f = new_field(s, p, col->kind, 0);
    if (!f) return oom();
    f->nullable = nullable;
    f->column = col;
    col->field = f;
    *out = f;
    return NULL;
}

/* ------------------------------------------------------------ lookups */

static int cmp_path(const void *a, const void *b, void *ctx) {
    const floe_pq_schema *s = ctx;
    return strcmp(s->columns[*(const int *)a].path, s->columns[*(const int *)b].path);
}

static int cmp_id(const void *a, const void *b) {
    const id_entry *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void collect_ids(const floe_pq_field *f, id_entry *out, int *n) {
    if (f->has_field_id) {
        out[*n].id = f->field_id;
        out[*n].seq = *n;
        out[*n].ptr = f;
        (*n)++;
    }
    for (int i = 0; i < f->num_children; i++) collect_ids(f->children[i], out, n);
}

static int count_fields(const floe_pq_field *f) {
    int n = 1;
    for (int i = 0; i < f->num_children; i++) n += count_fields(f->children[i]);
    return n;
}

static floe_status build_lookups(floe_pq_schema *s) {
    int nc = s->num_columns;
    s->by_path = salloc(s, sizeof(int) * (size_t)(nc ? nc : 1));
    if (!s->by_path) return oom();
    for (int i = 0; i < nc; i++) s->by_path[i] = i;
    qsort_r(s->by_path, (size_t)nc, sizeof(int), cmp_path, s);

    int nf = count_fields(s->root);
    s->field_ids = salloc(s, sizeof(id_entry) * (size_t)nf);
    s->column_ids = salloc(s, sizeof(id_entry) * (size_t)(nc ? nc : 1));
    if (!s->field_ids || !s->column_ids) return oom();
    collect_ids(s->root, s->field_ids, &s->num_field_ids);
    qsort(s->field_ids, (size_t)s->num_field_ids, sizeof(id_entry), cmp_id);
    for (int i = 0; i < nc; i++) {
        const floe_pq_schema_element *e = s->columns[i].element;
        if (!e->has_field_id) continue;
        id_entry *x = &s->column_ids[s->num_column_ids];
        x->id = e->field_id;
        x->seq = s->num_column_ids++;
        x->ptr = &s->columns[i];
    }
    qsort(s->column_ids, (size_t)s->num_column_ids, sizeof(id_entry), cmp_id);
    return NULL;
}

static const void *find_id(const id_entry *v, int n, int32_t id) {
    int lo = 0, hi = n;
    while (lo < hi) { /* first entry with v[i].id >= id */
        int mid = lo + (hi - lo) / 2;
        if (v[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && v[lo].id == id ? v[lo].ptr : NULL;
}

/* ---------------------------------------------------------- interface */

floe_status floe_pq_schema_build(const floe_pq_file_metadata *md, floe_pq_schema **out) {
    *out = NULL;
    floe_pq_schema *s = floe_calloc(1, sizeof *s);
    if (!s) return oom();
    floe_pq_arena_init(&s->arena);
    floe_status st = build_physical(s, md);
    if (!st) st = build_columns(s);
    for (int i = 0; !st && i < s->num_columns; i++) st = classify_leaf(s, &s->columns[i]);
    if (!st) {
        /* The root is a struct of its children, never null. */
        const pnode *root = &s->nodes[0];
        floe_pq_field *f = new_field(s, root, FLOE_PQ_KIND_STRUCT, root->num_children);
        if (!f) st = oom();
        else {
            f->num_children = root->num_children;
            f->has_field_id = false;
            s->root = f;
            for (int i = 0; !st && i < root->num_children; i++) {
                floe_pq_field *c;
                st = convert(s, &s->nodes[root->children[i]], false, &c);
                if (!st) set_child(f, i, c);
            }
        }
    }
    if (!st) st = build_lookups(s);
    if (st) {
        floe_pq_schema_free(s);
        return floe_status_wrap(st, "Parquet schema");
    }
    *out = s;
    return NULL;
}

void floe_pq_schema_free(floe_pq_schema *s) {
    if (!s) return;
    floe_pq_arena_free(&s->arena);
    floe_free(s);
}

int floe_pq_schema_num_columns(const floe_pq_schema *s) { return s->num_columns; }

const floe_pq_column *floe_pq_schema_column(const floe_pq_schema *s, int i) {
    return i >= 0 && i < s->num_columns ? &s->columns[i] : NULL;
}

const floe_pq_field *floe_pq_schema_root(const floe_pq_schema *s) { return s->root; }

const floe_pq_column *floe_pq_schema_find_column(const floe_pq_schema *s, const char *path) {
    int lo = 0, hi = s->num_columns;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(s->columns[s->by_path[mid]].path, path);
        if (c == 0) return &s->columns[s->by_path[mid]];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

const floe_pq_field *floe_pq_schema_find_field_id(const floe_pq_schema *s, int32_t field_id) {
    return find_id(s->field_ids, s->num_field_ids, field_id);
}

const floe_pq_column *floe_pq_schema_find_column_by_field_id(const floe_pq_schema *s,
                                                             int32_t field_id) {
    return find_id(s->column_ids, s->num_column_ids, field_id);
}

/* Whether the legacy Statistics.min/max (compared as signed values, bytes
 * as signed chars) are ordered the way the column's values are. */
bool floe_pq_column_legacy_order_ok(const floe_pq_column *col) {
    switch (col->kind) {
    case FLOE_PQ_KIND_BOOL:
    case FLOE_PQ_KIND_INT8:
    case FLOE_PQ_KIND_INT16:
    case FLOE_PQ_KIND_INT32:
    case FLOE_PQ_KIND_INT64:
    case FLOE_PQ_KIND_FLOAT:
    case FLOE_PQ_KIND_DOUBLE:
    case FLOE_PQ_KIND_DATE:
    case FLOE_PQ_KIND_TIME_MS:
    case FLOE_PQ_KIND_TIME_US:
    case FLOE_PQ_KIND_TIME_NS:
    case FLOE_PQ_KIND_TIMESTAMP_MS:
    case FLOE_PQ_KIND_TIMESTAMP_US:
        return true;
    case FLOE_PQ_KIND_TIMESTAMP_NS:
        return col->physical == FLOE_PQ_INT64; /* INT96 has no usable order */
    case FLOE_PQ_KIND_DECIMAL:
        return col->physical == FLOE_PQ_INT32 || col->physical == FLOE_PQ_INT64;
    default:
        return false;
    }
}

bool floe_pq_column_stats_bounds(const floe_pq_column *col, const floe_pq_statistics *s,
                                 const floe_pq_bytes **min, const floe_pq_bytes **max) {
    *min = *max = NULL;
    if (s->min_value.set && s->max_value.set) {
        *min = &s->min_value;
        *max = &s->max_value;
        return true;
    }
    if (!s->min.set || !s->max.set) return false;
    bool equal = s->min.len == s->max.len &&
                 (s->min.len == 0 || memcmp(s->min.data, s->max.data, s->min.len) == 0);
    if (!equal && !floe_pq_column_legacy_order_ok(col)) return false;
    *min = &s->min;
    *max = &s->max;
    return true;
}

/*
 * compare.c — logical equality of arrays and batches, slot by slot.
 *
 * Meant for tests and debug checks (a decoder's output against a builder's,
 * an imported array against the exported one), so it favours clarity over
 * speed: nested values are compared recursively per slot.
 */
#include <string.h>

#include "columnar/internal.h"

static bool slot_equal(const floe_array *a, int64_t i, const floe_array *b, int64_t j, int depth) {
    bool an = floe_array_is_null(a, i), bn = floe_array_is_null(b, j);
    if (an || bn) return an == bn;
    if (depth > FLOE_MAX_NESTING) return false;
    const floe_type *t = a->type;
    switch (t->id) {
    case FLOE_TYPE_NULL:
        return true;
    case FLOE_TYPE_BOOL:
        return floe_array_get_bool(a, i) == floe_array_get_bool(b, j);
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY: {
        floe_strview x = floe_array_get_str(a, i), y = floe_array_get_str(b, j);
        return x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, (size_t)x.len) == 0);
    }
    case FLOE_TYPE_STRUCT:
    case FLOE_TYPE_VARIANT: /* the same bytes */
        for (int32_t c = 0; c < a->n_children; c++)
            if (!slot_equal(a->children[c], a->offset + i, b->children[c], b->offset + j, depth + 1))
                return false;
        return true;
    case FLOE_TYPE_LIST:
    case FLOE_TYPE_MAP: {
        int64_t as, ae, bs, be;
        floe_array_get_range(a, i, &as, &ae);
        floe_array_get_range(b, j, &bs, &be);
        if (ae - as != be - bs) return false;
        for (int64_t k = 0; k < ae - as; k++)
            if (!slot_equal(a->children[0], as + k, b->children[0], bs + k, depth + 1)) return false;
        return true;
    }
    default:
        return memcmp(floe_array_get_fixed(a, i), floe_array_get_fixed(b, j), (size_t)t->byte_width) == 0;
    }
}

bool floe_array_equals(const floe_array *a, const floe_array *b) {
    if (a == b) return true;
    if (!a || !b || a->length != b->length || !floe_type_compatible(a->type, b->type)) return false;
    if (floe_array_null_count(a) != floe_array_null_count(b)) return false;
    for (int64_t i = 0; i < a->length; i++)
        if (!slot_equal(a, i, b, i, 0)) return false;
    return true;
}

bool floe_batch_equals(const floe_batch *a, const floe_batch *b) {
    if (a == b) return true;
    if (!a || !b || a->num_rows != b->num_rows || !floe_type_compatible(a->schema, b->schema)) return false;
    for (int32_t c = 0; c < a->num_columns; c++)
        if (!floe_array_equals(a->columns[c], b->columns[c])) return false;
    return true;
}

/*
 * func_struct.c — struct_extract(s, 'field'): one field of a struct column,
 * what SQL's (s).field and s.field bind to (nested access chains calls:
 * (a).b.c is struct_extract(struct_extract(a, 'b'), 'c')).
 *
 * The field name must be a constant; it is matched exactly, else ignoring
 * case (unquoted SQL names arrive lowercased).  The result is the child
 * array itself, sliced to the batch's rows, so nothing is copied; only
 * where the struct slot is null and the child's is not does it get a new
 * validity bitmap (a null struct's fields are null).
 */
#include <strings.h>
#include <string.h>

#include "base/str.h"
#include "exec/func/functions.h"

/* Index of the field named `name` in struct type `t`, or -1. */
static int32_t field_index(const floe_type *t, const char *name, size_t len) {
    for (int ci = 0; ci < 2; ci++)
        for (int32_t i = 0; i < t->n_children; i++) {
            const char *fn = t->children[i].name;
            if (strlen(fn) != len) continue;
            if (ci ? strncasecmp(fn, name, len) == 0 : memcmp(fn, name, len) == 0) return i;
        }
    return -1;
}

static floe_status struct_extract_type(const floe_func_def *def, const floe_expr *const *args,
                                       floe_type *const *types, int32_t n, floe_type **out) {
    *out = NULL;
    if (n != 2 || types[0]->id != FLOE_TYPE_STRUCT || !fn_is_string(types[1]))
        return fn_type_error(def, types, n);
    const floe_expr *k = args[1];
    if (k->kind != FLOE_EXPR_LITERAL || floe_array_is_null(k->literal, 0) || k->literal->type->id != FLOE_TYPE_STRING)
        return fn_need_const(def, 1, "a field name");
    floe_strview name = floe_array_get_str(k->literal, 0);
    int32_t i = field_index(types[0], name.data, (size_t)name.len);
    if (i < 0) {
        const char *cands[256];
        size_t nc = 0;
        for (int32_t j = 0; j < types[0]->n_children && nc < 256; j++) cands[nc++] = types[0]->children[j].name;
        return floe_status_wrap(
            floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "field", floe_str_make(name.data, (size_t)name.len), cands, nc),
            "struct_extract");
    }
    *out = floe_type_retain(types[0]->children[i].type);
    return NULL;
}

static floe_status struct_extract_eval(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows,
                                       floe_type *rtype, floe_array **out) {
    (void)n;
    (void)rtype;
    *out = NULL;
    const floe_array *s = args[0];
    if (s->length != rows)
        return floe_error(FLOE_ERR_UNSUPPORTED, "%s of a constant struct", def->name);
    floe_strview name = floe_array_get_str(args[1], 0);
    int32_t i = field_index(s->type, name.data, (size_t)name.len);
    if (i < 0 || i >= s->n_children)
        return floe_error(FLOE_ERR_INTERNAL, "%s: no field '%.*s'", def->name, (int)name.len, name.data);
    floe_array *c = NULL;
    /* Slot r of the struct is slot (offset + r) of the child. */
    FLOE_TRY(floe_array_slice(s->children[i], s->offset, rows, &c));
    if (floe_array_null_count(s) == 0 || c->type->id == FLOE_TYPE_NULL) {
        *out = c;
        return NULL;
    }
    /* Null where the struct is null: a bitmap aligned with c's offset. */
    floe_buffer *v = NULL;
    floe_status st = floe_buffer_new((c->offset + rows + 7) / 8, &v);
    for (int64_t r = 0; !st && r < rows; r++)
        if (!floe_array_is_null(s, r) && !floe_array_is_null(c, r)) floe_bit_set(v->data, c->offset + r);
    int nb = 0; /* unused buffers are NULL */
    while (nb < 2 && c->buffers[nb]) nb++;
    if (!st)
        st = floe_array_new(c->type, rows, c->offset, FLOE_NULL_COUNT_UNKNOWN, v, c->buffers, nb, c->children,
                            c->n_children, out);
    floe_buffer_release(v);
    floe_array_release(c);
    return st;
}

const floe_func_def floe_struct_funcs[] = {
    {"struct_extract", 2, 2, "struct_extract(struct, string)", struct_extract_type, struct_extract_eval, 0, NULL,
     FLOE_TYPE_NULL},
    {0},
};

/*
 * assemble.c — levels + dense values -> Arrow arrays (see assemble.h).
 *
 * Flat columns (no repetition, directly under the root) take a fast path:
 * every level entry is a slot, so validity is def == max_def and the dense
 * values are spread into place; with no nulls the decoded buffer becomes the
 * array's buffer without a copy.
 */
#include <string.h>

#include "floe/memory.h"
#include "formats/parquet/assemble.h"
#include "formats/parquet/variant_unshred.h"

static void free_block(void *ctx, const uint8_t *data) {
    (void)ctx;
    floe_free((void *)data);
}

/* Hand a floe_buf's memory to a new floe_buffer (zero copy). */
static floe_status buf_to_buffer(floe_buf *b, floe_buffer **out) {
    if (!b->data) return floe_buffer_new(0, out);
    size_t len;
    uint8_t *p = floe_buf_detach(b, &len);
    floe_status st = floe_buffer_wrap(p, (int64_t)len, free_block, NULL, out);
    if (st) floe_free(p);
    return st;
}

static const floe_pq_column *first_leaf(const floe_pq_field *f) {
    while (f->kind == FLOE_PQ_KIND_STRUCT || f->kind == FLOE_PQ_KIND_LIST ||
           f->kind == FLOE_PQ_KIND_MAP || f->kind == FLOE_PQ_KIND_VARIANT) {
        if (f->num_children == 0) return NULL;
        f = f->children[0];
    }
    return f->column;
}

/* The level entries of the node's representative leaf. */
typedef struct levels {
    const int16_t *def, *rep; /* NULL when that max level is 0 */
    int16_t def_fill;         /* every def level when def is NULL */
    int64_t n;
} levels;

static floe_status leaf_levels(const floe_pq_field *f, pq_leaf_out *const *outs, levels *lv,
                               const pq_leaf_out **leaf_out) {
    const floe_pq_column *col = first_leaf(f);
    if (!col || !outs[col->index])
        return floe_error(FLOE_ERR_INTERNAL, "field '%s' has no decoded leaf", f->name);
    const pq_leaf_out *o = outs[col->index];
    /* A leaf whose levels are all max keeps none (see pq_leaf_out). */
    bool lazy = col->max_def_level > 0 && o->def_all_max;
    lv->def = col->max_def_level > 0 && !lazy ? (const int16_t *)(const void *)o->def.data : NULL;
    lv->def_fill = lazy ? col->max_def_level : 0;
    lv->rep = col->max_rep_level > 0 ? (const int16_t *)(const void *)o->rep.data : NULL;
    lv->n = o->nlevels;
    if (leaf_out) *leaf_out = o;
    return NULL;
}

static inline int16_t lv_def(const levels *lv, int64_t i) {
    return lv->def ? lv->def[i] : lv->def_fill;
}
static inline int16_t lv_rep(const levels *lv, int64_t i) { return lv->rep ? lv->rep[i] : 0; }

/* Validity bitmap of the node's slots; *n_slots and *nulls are set, and
 * *validity is NULL when no slot is null. */
static floe_status slot_validity(const levels *lv, int16_t rad, int16_t rep_level,
                                 int16_t def_level, int64_t *n_slots, int64_t *nulls,
                                 floe_buffer **validity) {
    *validity = NULL;
    int64_t n = 0, bad = 0;
    if (rad == 0 && !lv->rep) {
        /* Flat: every entry is a slot. */
        n = lv->n;
        if (lv->def)
            for (int64_t i = 0; i < n; i++) bad += lv->def[i] < def_level;
        else if (lv->def_fill < def_level)
            bad = n;
        *n_slots = n;
        *nulls = bad;
        if (!bad) return NULL;
        FLOE_TRY(floe_buffer_new((n + 7) / 8, validity));
        uint8_t *bits = (*validity)->data;
        if (lv->def)
            for (int64_t i = 0; i < n; i++)
                bits[i >> 3] |= (uint8_t)((lv->def[i] >= def_level) << (i & 7));
        return NULL;
    }
    for (int64_t i = 0; i < lv->n; i++)
        if (lv_def(lv, i) >= rad && lv_rep(lv, i) <= rep_level) {
            n++;
            bad += lv_def(lv, i) < def_level;
        }
    *n_slots = n;
    *nulls = bad;
    if (!bad) return NULL;
    FLOE_TRY(floe_buffer_new((n + 7) / 8, validity));
    uint8_t *bits = (*validity)->data;
    int64_t k = 0;
    for (int64_t i = 0; i < lv->n; i++)
        if (lv_def(lv, i) >= rad && lv_rep(lv, i) <= rep_level) {
            if (lv_def(lv, i) >= def_level) floe_bit_set(bits, k);
            k++;
        }
    return NULL;
}

static floe_status build(const floe_pq_field *f, floe_type *t, pq_leaf_out *const *outs,
                         int16_t rad, floe_array **out);

static floe_status build_leaf(const floe_pq_field *f, floe_type *t, pq_leaf_out *const *outs,
                              int16_t rad, floe_array **out) {
    levels lv;
    const pq_leaf_out *co;
    FLOE_TRY(leaf_levels(f, outs, &lv, &co));
    pq_leaf_out *o = (pq_leaf_out *)co;
    const floe_pq_column *col = f->column;
    int16_t max_def = col->max_def_level;
    int64_t n, nulls;
    floe_buffer *validity = NULL, *bufs[2] = {NULL, NULL};
    FLOE_TRY(slot_validity(&lv, rad, col->max_rep_level, f->def_level, &n, &nulls, &validity));
    if (t->id == FLOE_TYPE_NULL) {
        floe_buffer_release(validity);
        return floe_array_new_nulls(t, n, out);
    }
    if (n - nulls != o->nvals) {
        floe_buffer_release(validity);
        return floe_error(FLOE_ERR_CORRUPT,
                          "column '%s': %lld non-null slots but %lld values decoded", col->path,
                          (long long)(n - nulls), (long long)o->nvals);
    }
    floe_status st = NULL;
    /* Which level entries are slots, and which slots carry a value. */
    bool all_slots = rad == 0 && col->max_rep_level == 0;
    if (t->id == FLOE_TYPE_BOOL) {
        st = floe_buffer_new((n + 7) / 8, &bufs[0]);
        if (!st) {
            uint8_t *bits = bufs[0]->data;
            const uint8_t *v = o->vals.data;
            int64_t k = 0, j = 0;
            for (int64_t i = 0; i < lv.n; i++) {
                int16_t d = lv_def(&lv, i);
                if (!all_slots && !(d >= rad && lv_rep(&lv, i) <= col->max_rep_level)) continue;
                if (d == max_def && v[j++]) floe_bit_set(bits, k);
                k++;
            }
        }
    } else if (floe_type_is_binary_like(t)) {
        if (!nulls && n == o->nvals) {
            if (o->nvals == 0) {
                int32_t zero = 0;
                floe_buf_clear(&o->vals);
                st = floe_buf_append(&o->vals, &zero, 4);
            }
            if (!st) st = buf_to_buffer(&o->vals, &bufs[0]);
        } else {
            st = floe_buffer_new((n + 1) * 4, &bufs[0]);
            if (!st) {
                int32_t *dst = (int32_t *)(void *)bufs[0]->data;
                const int32_t *src = (const int32_t *)(const void *)o->vals.data;
                int64_t k = 0, j = 0;
                dst[0] = 0;
                for (int64_t i = 0; i < lv.n; i++) {
                    int16_t d = lv_def(&lv, i);
                    if (!all_slots && !(d >= rad && lv_rep(&lv, i) <= col->max_rep_level)) continue;
                    dst[k + 1] = d == max_def ? src[++j] : dst[k];
                    k++;
                }
            }
        }
        if (!st) st = buf_to_buffer(&o->data, &bufs[1]);
    } else {
        size_t w = (size_t)t->byte_width;
        if (!nulls && n == o->nvals) {
            st = buf_to_buffer(&o->vals, &bufs[0]);
        } else {
            st = floe_buffer_new(n * (int64_t)w, &bufs[0]);
            if (!st) {
                uint8_t *dst = bufs[0]->data;
                const uint8_t *src = o->vals.data;
                int64_t k = 0;
                for (int64_t i = 0; i < lv.n; i++) {
                    int16_t d = lv_def(&lv, i);
                    if (!all_slots && !(d >= rad && lv_rep(&lv, i) <= col->max_rep_level)) continue;
                    if (d == max_def) {
                        memcpy(dst + k * (int64_t)w, src, w);
                        src += w;
                    }
                    k++;
                }
            }
        }
    }
    if (!st)
        st = floe_array_new(t, n, 0, nulls, validity, bufs,
                            floe_type_is_binary_like(t) ? 2 : 1, NULL, 0, out);
    floe_buffer_release(validity);
    floe_buffer_release(bufs[0]);
    floe_buffer_release(bufs[1]);
    return st;
}

static floe_status build_struct(const floe_pq_field *f, floe_type *t, pq_leaf_out *const *outs,
                                int16_t rad, floe_array **out) {
    levels lv;
    FLOE_TRY(leaf_levels(f, outs, &lv, NULL));
    int64_t n, nulls;
    floe_buffer *validity;
    FLOE_TRY(slot_validity(&lv, rad, f->rep_level, f->def_level, &n, &nulls, &validity));
    floe_array **kids = floe_calloc((size_t)f->num_children + 1, sizeof *kids);
    floe_status st = kids ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; !st && i < f->num_children; i++) {
        st = build(f->children[i], t->children[i].type, outs, rad, &kids[i]);
        if (!st && kids[i]->length != n)
            st = floe_error(FLOE_ERR_CORRUPT,
                            "field '%s': child '%s' has %lld slots, its struct %lld", f->name,
                            f->children[i]->name, (long long)kids[i]->length, (long long)n);
    }
    if (!st) st = floe_array_new(t, n, 0, nulls, validity, NULL, 0, kids, f->num_children, out);
    for (int i = 0; kids && i < f->num_children; i++) floe_array_release(kids[i]);
    floe_free(kids);
    floe_buffer_release(validity);
    return st;
}

static floe_status build_list(const floe_pq_field *f, floe_type *t, pq_leaf_out *const *outs,
                              int16_t rad, floe_array **out) {
    levels lv;
    FLOE_TRY(leaf_levels(f, outs, &lv, NULL));
    int64_t n, nulls;
    floe_buffer *validity, *offsets = NULL;
    FLOE_TRY(slot_validity(&lv, rad, f->rep_level, f->def_level, &n, &nulls, &validity));
    floe_status st = floe_buffer_new((n + 1) * 4, &offsets);
    floe_array *child = NULL;
    int64_t elems = 0;
    if (!st) {
        int32_t *off = (int32_t *)(void *)offsets->data;
        int64_t k = -1;
        off[0] = 0;
        for (int64_t i = 0; i < lv.n; i++) {
            int16_t d = lv_def(&lv, i), r = lv_rep(&lv, i);
            if (r <= f->rep_level) {
                if (d < rad) continue;
                k++;
                off[k + 1] = (int32_t)elems;
            }
            if (d >= f->elem_def_level && r <= f->elem_rep_level) {
                if (k < 0) {
                    st = floe_error(FLOE_ERR_CORRUPT,
                                    "field '%s': list element before any list (bad repetition "
                                    "levels)",
                                    f->name);
                    break;
                }
                elems++;
                if (elems > INT32_MAX) {
                    st = floe_error(FLOE_ERR_UNSUPPORTED, "field '%s': too many list elements",
                                    f->name);
                    break;
                }
                off[k + 1] = (int32_t)elems;
            }
        }
    }
    if (!st) {
        floe_type *et = t->children[0].type;
        if (f->kind == FLOE_PQ_KIND_LIST) {
            st = build(f->children[0], et, outs, f->elem_def_level, &child);
        } else {
            /* MAP: a non-null entries struct of key and value. */
            floe_array *kv[2] = {NULL, NULL};
            for (int i = 0; !st && i < 2; i++)
                st = build(f->children[i], et->children[i].type, outs, f->elem_def_level, &kv[i]);
            if (!st) st = floe_array_new(et, elems, 0, 0, NULL, NULL, 0, kv, 2, &child);
            floe_array_release(kv[0]);
            floe_array_release(kv[1]);
        }
    }
    if (!st && child->length != elems)
        st = floe_error(FLOE_ERR_CORRUPT, "field '%s': %lld list elements but %lld child slots",
                        f->name, (long long)elems, (long long)child->length);
    if (!st) st = floe_array_new(t, n, 0, nulls, validity, &offsets, 1, &child, 1, out);
    floe_array_release(child);
    floe_buffer_release(offsets);
    floe_buffer_release(validity);
    return st;
}

/* A VARIANT group: its children are built as the arrays of their own
 * (storage) types, then reassembled into variant values. */
static floe_status build_variant(const floe_pq_field *f, pq_leaf_out *const *outs, int16_t rad, floe_array **out) {
    levels lv;
    FLOE_TRY(leaf_levels(f, outs, &lv, NULL));
    int64_t n, nulls;
    floe_buffer *validity;
    FLOE_TRY(slot_validity(&lv, rad, f->rep_level, f->def_level, &n, &nulls, &validity));
    floe_array **kids = floe_calloc((size_t)f->num_children + 1, sizeof *kids);
    floe_status st = kids ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; !st && i < f->num_children; i++) {
        floe_type *ct = NULL;
        st = pq_field_type(f->children[i], 0, &ct);
        if (!st) st = build(f->children[i], ct, outs, rad, &kids[i]);
        floe_type_release(ct);
        if (!st && kids[i]->length != n)
            st = floe_error(FLOE_ERR_CORRUPT, "variant '%s': '%s' has %lld slots, the variant %lld", f->name,
                            f->children[i]->name, (long long)kids[i]->length, (long long)n);
    }
    if (!st) st = pq_variant_unshred(f, n, nulls, validity, kids, out);
    for (int i = 0; kids && i < f->num_children; i++) floe_array_release(kids[i]);
    floe_free(kids);
    floe_buffer_release(validity);
    return st;
}

static floe_status build(const floe_pq_field *f, floe_type *t, pq_leaf_out *const *outs,
                         int16_t rad, floe_array **out) {
    switch (f->kind) {
    case FLOE_PQ_KIND_STRUCT: return build_struct(f, t, outs, rad, out);
    case FLOE_PQ_KIND_VARIANT: return build_variant(f, outs, rad, out);
    case FLOE_PQ_KIND_LIST:
    case FLOE_PQ_KIND_MAP: return build_list(f, t, outs, rad, out);
    default: return build_leaf(f, t, outs, rad, out);
    }
}

floe_status pq_assemble_field(const floe_pq_field *f, floe_type *t, pq_leaf_out *const *outs,
                              floe_array **out) {
    return build(f, t, outs, 0, out);
}

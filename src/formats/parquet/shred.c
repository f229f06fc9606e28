/*
 * shred.c — Dremel record shredding: from Arrow-layout arrays to the
 * definition levels, repetition levels and leaf values of one Parquet leaf
 * column.
 *
 * For each row we walk the leaf's path (pqw_leaf.nodes) down the array
 * tree.  A null at an OPTIONAL node ends the walk with the definition level
 * reached so far; an empty list or map ends it one level deeper (the list
 * is defined, it just holds nothing); otherwise every element of a list or
 * map continues the walk, the first with the repetition level the walk
 * arrived with and the rest with the list's own level.  A value reached at
 * the leaf records its slot in the leaf array.
 *
 * Slots follow columnar.h: a struct's offset applies to its children, list
 * and map offsets index their child's logical slots.  The walk never reads
 * the offsets or children of a null slot, so they may hold anything.
 *
 * Flat columns (a single leaf node) take a loop without recursion.
 */
#include <string.h>

#include "floe/memory.h"
#include "formats/parquet/writer_internal.h"

void pqw_levels_init(pqw_levels *l) { memset(l, 0, sizeof *l); }

void pqw_levels_free(pqw_levels *l) {
    floe_free(l->def);
    floe_free(l->rep);
    floe_free(l->slots);
    memset(l, 0, sizeof *l);
}

static floe_status grow_levels(pqw_levels *l, int64_t need) {
    if (need <= l->cap) return NULL;
    int64_t cap = l->cap ? l->cap : 1024;
    while (cap < need) cap *= 2;
    int16_t *d = floe_realloc(l->def, (size_t)cap * sizeof *d);
    if (d) l->def = d;
    int16_t *r = d ? floe_realloc(l->rep, (size_t)cap * sizeof *r) : NULL;
    if (r) l->rep = r;
    if (!d || !r) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory shredding levels");
    l->cap = cap;
    return NULL;
}

static floe_status grow_slots(pqw_levels *l, int64_t need) {
    if (need <= l->slots_cap) return NULL;
    int64_t cap = l->slots_cap ? l->slots_cap : 1024;
    while (cap < need) cap *= 2;
    int64_t *s = floe_realloc(l->slots, (size_t)cap * sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory shredding values");
    l->slots = s;
    l->slots_cap = cap;
    return NULL;
}

typedef struct walk {
    const pqw_leaf *leaf;
    pqw_levels *out;
} walk;

static inline floe_status emit(walk *w, int16_t def, int16_t rep) {
    pqw_levels *l = w->out;
    if (l->n == l->cap) FLOE_TRY(grow_levels(l, l->n + 1));
    l->def[l->n] = def;
    l->rep[l->n] = rep;
    l->n++;
    return NULL;
}

static inline floe_status emit_value(walk *w, int16_t def, int16_t rep, int64_t slot) {
    pqw_levels *l = w->out;
    if (l->n_values == l->slots_cap) FLOE_TRY(grow_slots(l, l->n_values + 1));
    l->slots[l->n_values++] = slot;
    return emit(w, def, rep);
}

static floe_status null_in_required(const walk *w, int32_t k) {
    return floe_error(FLOE_ERR_CONSTRAINT,
                      "Parquet writer: column '%s': null in non-nullable field (level %d)",
                      w->leaf->dotted, (int)k);
}

/* Walk from node k at slot `slot` of array `a`. */
static floe_status visit(walk *w, int32_t k, const floe_array *a, int64_t slot, int16_t def,
                         int16_t rep) {
    const pqw_node *n = &w->leaf->nodes[k];
    if (floe_array_is_null(a, slot)) {
        if (!n->nullable) return null_in_required(w, k);
        return emit(w, def, rep);
    }
    if (n->nullable) def++;
    switch (n->kind) {
    case PQW_LEAF:
        return emit_value(w, def, rep, slot);
    case PQW_STRUCT:
        return visit(w, k + 1, a->children[n->child], a->offset + slot, def, rep);
    case PQW_LIST:
    case PQW_MAP: {
        int64_t s, e;
        floe_array_get_range(a, slot, &s, &e);
        if (s >= e) return emit(w, def, rep);
        const floe_array *child = a->children[0];
        int64_t shift = 0;
        if (n->kind == PQW_MAP) {
            /* entries is a non-null struct: its slot j is slot offset+j of key/value */
            shift = child->offset;
            child = child->children[n->child];
        }
        for (int64_t j = s; j < e; j++) {
            FLOE_TRY(visit(w, k + 1, child, shift + j, (int16_t)(def + 1),
                           j == s ? rep : n->rep));
        }
        return NULL;
    }
    }
    return floe_error(FLOE_ERR_INTERNAL, "Parquet writer: bad node kind %d", n->kind);
}

/* The leaf array under `column` along the leaf's path. */
static const floe_array *find_leaf_array(const pqw_leaf *leaf, const floe_array *a) {
    for (int32_t k = 0; k < leaf->depth - 1; k++) {
        const pqw_node *n = &leaf->nodes[k];
        if (n->kind == PQW_STRUCT) a = a->children[n->child];
        else if (n->kind == PQW_LIST) a = a->children[0];
        else a = a->children[0]->children[n->child];
    }
    return a;
}

/* A single-node path: levels straight from the validity bitmap. */
static floe_status shred_flat(const pqw_leaf *leaf, const floe_array *a, int64_t row0,
                              int64_t nrows, pqw_levels *out) {
    FLOE_TRY(grow_levels(out, nrows));
    FLOE_TRY(grow_slots(out, nrows));
    bool all_valid = a->type->id != FLOE_TYPE_NULL &&
                     (!a->validity || floe_array_null_count(a) == 0);
    if (all_valid) {
        for (int64_t i = 0; i < nrows; i++) out->slots[i] = row0 + i;
        if (leaf->max_def) for (int64_t i = 0; i < nrows; i++) out->def[i] = 1;
        out->n_values = nrows;
    } else {
        if (!leaf->nodes[0].nullable) {
            walk w = {leaf, out};
            return null_in_required(&w, 0);
        }
        int64_t nv = 0;
        for (int64_t i = 0; i < nrows; i++) {
            bool valid = floe_array_is_valid(a, row0 + i);
            out->def[i] = valid;
            out->slots[nv] = row0 + i;
            nv += valid;
        }
        out->n_values = nv;
    }
    out->n = nrows;
    return NULL;
}

floe_status pqw_shred(const pqw_leaf *leaf, const floe_array *column, int64_t row0,
                      int64_t nrows, pqw_levels *out) {
    out->n = 0;
    out->n_values = 0;
    out->leaf = find_leaf_array(leaf, column);
    if (nrows <= 0) return NULL;
    if (leaf->depth == 1) return shred_flat(leaf, column, row0, nrows, out);
    FLOE_TRY(grow_levels(out, nrows));
    walk w = {leaf, out};
    for (int64_t r = 0; r < nrows; r++) FLOE_TRY(visit(&w, 0, column, row0 + r, 0, 0));
    return NULL;
}

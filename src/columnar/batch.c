/*
 * batch.c — record batches: a schema plus equal-length columns, and the
 * batch-level operations (slice, project, take, concat, struct views).
 * Everything but take and concat is zero-copy.
 */
#include <stdatomic.h>
#include <string.h>

#include "columnar/internal.h"
#include "floe/memory.h"

/* A batch taking ownership of `columns` (array of n owned references). */
static floe_status batch_adopt(floe_schema *schema, floe_array **columns, int32_t n, int64_t rows,
                               floe_batch **out) {
    floe_batch *b = floe_calloc(1, sizeof *b);
    if (!b) {
        for (int32_t i = 0; i < n; i++) floe_array_release(columns[i]);
        floe_free(columns);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating a batch");
    }
    atomic_init(&b->refcount_, 1);
    b->schema = floe_type_retain(schema);
    b->num_rows = rows;
    b->num_columns = n;
    b->columns = columns;
    *out = b;
    return NULL;
}

static floe_array **alloc_columns(int32_t n) {
    return floe_calloc((size_t)(n > 0 ? n : 1), sizeof(floe_array *));
}

static void release_columns(floe_array **cols, int32_t n) {
    for (int32_t i = 0; i < n; i++) floe_array_release(cols[i]);
    floe_free(cols);
}

floe_status floe_batch_new(floe_schema *schema, floe_array *const *columns, int32_t num_columns,
                           int64_t num_rows, floe_batch **out) {
    *out = NULL;
    if (!schema || schema->id != FLOE_TYPE_STRUCT)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a batch schema must be a struct type");
    if (num_columns != schema->n_children)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "batch has %d columns but its schema %d fields",
                          num_columns, schema->n_children);
    if (num_rows < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative row count");
    for (int32_t i = 0; i < num_columns; i++) {
        const floe_field *f = &schema->children[i];
        if (!columns[i]) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "column '%s' is missing", f->name);
        if (columns[i]->length != num_rows)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "column '%s' has %lld rows, expected %lld",
                              f->name, (long long)columns[i]->length, (long long)num_rows);
        if (!floe_type_compatible(columns[i]->type, f->type))
            return floe_error(FLOE_ERR_TYPE, "column '%s' is %s, its field says %s", f->name,
                              floe_type_id_name(columns[i]->type->id), floe_type_id_name(f->type->id));
    }
    floe_array **cols = alloc_columns(num_columns);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating a batch");
    for (int32_t i = 0; i < num_columns; i++) cols[i] = floe_array_retain(columns[i]);
    return batch_adopt(schema, cols, num_columns, num_rows, out);
}

floe_batch *floe_batch_retain(floe_batch *b) {
    if (b) atomic_fetch_add_explicit(&b->refcount_, 1, memory_order_relaxed);
    return b;
}

void floe_batch_release(floe_batch *b) {
    if (!b) return;
    if (atomic_fetch_sub_explicit(&b->refcount_, 1, memory_order_acq_rel) != 1) return;
    release_columns(b->columns, b->num_columns);
    floe_type_release(b->schema);
    floe_free(b);
}

floe_status floe_batch_slice(const floe_batch *b, int64_t offset, int64_t length, floe_batch **out) {
    *out = NULL;
    if (offset < 0 || length < 0 || offset > b->num_rows || length > b->num_rows - offset)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "slice [%lld, +%lld) outside a batch of %lld rows",
                          (long long)offset, (long long)length, (long long)b->num_rows);
    floe_array **cols = alloc_columns(b->num_columns);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory slicing a batch");
    for (int32_t i = 0; i < b->num_columns; i++) {
        floe_status st = floe_array_slice(b->columns[i], offset, length, &cols[i]);
        if (st) {
            release_columns(cols, i);
            return st;
        }
    }
    return batch_adopt(b->schema, cols, b->num_columns, length, out);
}

floe_status floe_batch_project(const floe_batch *b, const int32_t *indices, int32_t n, floe_batch **out) {
    *out = NULL;
    if (n < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "negative column count");
    for (int32_t i = 0; i < n; i++)
        if (indices[i] < 0 || indices[i] >= b->num_columns)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "projected column %d is outside %d columns",
                              indices[i], b->num_columns);
    floe_field *fields = floe_calloc((size_t)(n > 0 ? n : 1), sizeof *fields);
    floe_array **cols = alloc_columns(n);
    floe_status st = NULL;
    floe_type *schema = NULL;
    if (!fields || !cols) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory projecting a batch");
    for (int32_t i = 0; !st && i < n; i++) {
        /* Shallow: the struct constructor copies names and retains types. */
        fields[i] = b->schema->children[indices[i]];
        cols[i] = floe_array_retain(b->columns[indices[i]]);
    }
    if (!st) st = floe_type_struct(fields, n, &schema);
    floe_free(fields);
    if (st) {
        if (cols) release_columns(cols, n);
        return st;
    }
    st = batch_adopt(schema, cols, n, b->num_rows, out);
    floe_type_release(schema);
    return st;
}

floe_status floe_batch_take(const floe_batch *b, const uint32_t *indices, int64_t n, floe_batch **out) {
    *out = NULL;
    floe_array **cols = alloc_columns(b->num_columns);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory gathering a batch");
    for (int64_t k = 0; k < n; k++)
        if ((int64_t)indices[k] >= b->num_rows) {
            floe_free(cols);
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "take index %u at %lld is outside %lld rows",
                              indices[k], (long long)k, (long long)b->num_rows);
        }
    for (int32_t i = 0; i < b->num_columns; i++) {
        floe_status st = floe_array_take(b->columns[i], indices, n, &cols[i]);
        if (st) {
            release_columns(cols, i);
            return floe_status_wrap(st, "column '%s'", b->schema->children[i].name);
        }
    }
    return batch_adopt(b->schema, cols, b->num_columns, n, out);
}

floe_status floe_batch_concat(floe_batch *const *batches, int32_t n, floe_batch **out) {
    *out = NULL;
    if (n < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "concatenating no batches");
    const floe_batch *first = batches[0];
    int64_t rows = 0;
    for (int32_t k = 0; k < n; k++) {
        if (!floe_type_compatible(batches[k]->schema, first->schema))
            return floe_error(FLOE_ERR_TYPE, "batch %d has a schema incompatible with batch 0", k);
        rows += batches[k]->num_rows;
    }
    int32_t nc = first->num_columns;
    floe_array **cols = alloc_columns(nc);
    floe_array **parts = floe_calloc((size_t)n, sizeof *parts);
    if (!cols || !parts) {
        floe_free(cols);
        floe_free(parts);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory concatenating batches");
    }
    for (int32_t i = 0; i < nc; i++) {
        for (int32_t k = 0; k < n; k++) parts[k] = batches[k]->columns[i];
        floe_status st = floe_array_concat(parts, n, &cols[i]);
        if (st) {
            floe_free(parts);
            release_columns(cols, i);
            return floe_status_wrap(st, "column '%s'", first->schema->children[i].name);
        }
    }
    floe_free(parts);
    return batch_adopt(first->schema, cols, nc, rows, out);
}

floe_status floe_batch_to_struct(const floe_batch *b, floe_array **out) {
    return floe_array_new(b->schema, b->num_rows, 0, 0, NULL, NULL, 0, b->columns, b->num_columns, out);
}

floe_status floe_batch_from_struct(const floe_array *a, floe_batch **out) {
    *out = NULL;
    if (a->type->id != FLOE_TYPE_STRUCT)
        return floe_error(FLOE_ERR_TYPE, "a batch needs a struct array, not %s", floe_type_id_name(a->type->id));
    if (floe_array_null_count(a) > 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a struct array with %lld null rows cannot be a batch",
                          (long long)floe_array_null_count(a));
    floe_array **cols = alloc_columns(a->n_children);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating a batch");
    for (int32_t i = 0; i < a->n_children; i++) {
        floe_status st = floe_array_slice(a->children[i], a->offset, a->length, &cols[i]);
        if (st) {
            release_columns(cols, i);
            return st;
        }
    }
    return batch_adopt(a->type, cols, a->n_children, a->length, out);
}

floe_status floe_batch_validate(const floe_batch *b) {
    for (int32_t i = 0; i < b->num_columns; i++) {
        if (b->columns[i]->length != b->num_rows)
            return floe_error(FLOE_ERR_CORRUPT, "column '%s' has %lld rows, expected %lld",
                              b->schema->children[i].name, (long long)b->columns[i]->length,
                              (long long)b->num_rows);
        FLOE_TRY_CTX(floe_array_validate(b->columns[i]), "column '%s'", b->schema->children[i].name);
    }
    return NULL;
}

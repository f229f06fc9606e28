/*
 * variant_unshred.h — Parquet VARIANT groups as variant columns.
 *
 * A VARIANT group holds `metadata` (binary), `value` (binary) and, when
 * shredded (VariantShredding.md), `typed_value`: a primitive column, a
 * LIST of element groups, or a group of one group per shredded object
 * field, each again with `value` and/or `typed_value`.  The assembler
 * builds the group's children as ordinary arrays and hands them here;
 * pq_variant_unshred puts every row back together as one variant value:
 *
 *   typed_value set        the shredded type's value (an object's present
 *                          fields, with the fields of a partially shredded
 *                          `value` object merged in, name-ordered; an
 *                          array's elements; a primitive)
 *   only value set         the value's bytes as they are
 *   neither                top level and array elements: variant null;
 *                          object fields: the field is missing
 *
 * A null VARIANT group is SQL NULL; a present group whose value and
 * typed_value are both null is a variant null (00), not SQL NULL.  Invalid
 * rows are errors naming the column, the row of the batch and the field:
 * value and typed_value both set where typed_value is not an object,
 * shredded object fields beside a `value` that is not an object, a
 * shredded field name missing from the row's metadata, and (validated on
 * the way) malformed metadata or value bytes.  When a partially shredded
 * object's `value` holds a field that typed_value shreds (files that break
 * the spec's rule that shredded fields are never in `value`), typed_value
 * wins, as the spec says readers that read such files must do: the field
 * is typed_value's, or missing when typed_value says so.
 *
 * Unshredded columns (no typed_value, value present wherever the variant
 * is) keep the file's metadata and value buffers: nothing is copied.
 */
#ifndef FLOE_FORMATS_PARQUET_VARIANT_UNSHRED_H
#define FLOE_FORMATS_PARQUET_VARIANT_UNSHRED_H

#include <stdbool.h>
#include <stddef.h>

#include "floe/columnar.h"
#include "formats/parquet/schema.h"

/* Check a VARIANT node's layout against the shredding spec: `metadata`
 * and `value` binary leaves, an optional `typed_value` of a shredded type
 * (the spec's primitive table, a LIST whose element group holds value /
 * typed_value, or a group of field groups), nothing else.  Returns true
 * and writes why into why[0..cap) when the layout is not readable. */
bool pq_variant_check(const floe_pq_field *f, char *why, size_t cap);

/* The variant array of n slots for VARIANT node f, from its children's
 * arrays (kids[i] built for f->children[i], n slots each) and the group's
 * own validity (NULL: no nulls). */
floe_status pq_variant_unshred(const floe_pq_field *f, int64_t n, int64_t nulls, floe_buffer *validity,
                               floe_array *const *kids, floe_array **out) FLOE_WARN_UNUSED;

#endif

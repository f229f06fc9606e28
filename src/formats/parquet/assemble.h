/*
 * assemble.h — turns decoded levels and values into Arrow-layout arrays.
 *
 * The column readers leave, per leaf column, the definition and repetition
 * levels of a batch of rows and the non-null values (pq_leaf_out).  This
 * rebuilds the logical shape from them (Dremel record assembly):
 *
 *   - a node's slots are the level entries with def >= the definition level
 *     at which the node exists (its nearest list element is present) and
 *     rep <= the node's repetition level (deeper repeats continue a slot);
 *   - a slot is valid when def >= the node's def_level;
 *   - a list/map slot holds the following entries with def >= its
 *     elem_def_level and rep <= its elem_rep_level (null list: def below
 *     def_level; empty list: def_level <= def < elem_def_level).
 *
 * Struct validity comes from the first leaf under the struct, list offsets
 * from the first leaf under the list: all leaves below a node agree on its
 * shape, and we check their slot counts match.
 */
#ifndef FLOE_FORMATS_PARQUET_ASSEMBLE_H
#define FLOE_FORMATS_PARQUET_ASSEMBLE_H

#include "floe/columnar.h"
#include "floe/status.h"
#include "formats/parquet/column_reader.h"
#include "formats/parquet/schema.h"

/* Build the array for field `f` (engine type `t`, from pq_field_type) from
 * the leaf outputs, indexed by leaf column index.  `outs` entries for the
 * leaves under f must be filled.  Leaf value buffers may be taken over
 * (zero copy), so call once per batch and reset the outputs afterwards. */
floe_status pq_assemble_field(const floe_pq_field *f, floe_type *t, pq_leaf_out *const *outs,
                              floe_array **out) FLOE_WARN_UNUSED;

#endif

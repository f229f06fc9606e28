/*
 * metadata_updates.h — table changes as the Iceberg REST protocol states
 * them: "requirements" (what the committer assumed about the table) and
 * "updates" (what it changed), both JSON arrays as in the REST OpenAPI's
 * CommitTableRequest (TableRequirement, TableUpdate).
 *
 * floe makes new table metadata whole (iceberg_table_update.h, the
 * snapshot producers).  A REST client cannot send that: it sends the
 * difference.  The client side computes it (floe_ice_md_diff); the
 * server side checks the requirements against the table's current
 * metadata and applies the updates to it (floe_ice_md_check_requirements,
 * floe_ice_md_apply_updates), then commits the result through its own
 * catalog.  Applying the diff of (base, next) to base gives next, up to
 * last-updated-ms and the metadata-log, which the committing catalog
 * maintains.
 *
 * Updates understood (OpenAPI "action" names): assign-uuid,
 * upgrade-format-version, add-schema, set-current-schema, add-spec,
 * set-default-spec, add-sort-order, set-default-sort-order, add-snapshot,
 * set-snapshot-ref, remove-snapshots, remove-snapshot-ref, set-location,
 * set-properties, remove-properties, (set/remove-statistics and
 * set/remove-partition-statistics are carried through).  -1 for
 * set-current-schema / set-default-spec / set-default-sort-order means
 * "the one added last in this request".  Requirements: assert-create,
 * assert-table-uuid, assert-ref-snapshot-id, assert-last-assigned-field-id,
 * assert-current-schema-id, assert-last-assigned-partition-id,
 * assert-default-spec-id, assert-default-sort-order-id.
 */
#ifndef FLOE_ICEBERG_METADATA_UPDATES_H
#define FLOE_ICEBERG_METADATA_UPDATES_H

#include <jansson.h>

#include "floe/iceberg_table_metadata.h"
#include "floe/status.h"

/* The requirements and updates that turn `base` into `next` (both of the
 * same table).  Requirements: assert-table-uuid, and assert-ref-snapshot-id
 * for every ref the updates move (null when base lacks it), plus
 * assert-current-schema-id / assert-last-assigned-field-id when the schema
 * changes and assert-default-spec-id / assert-last-assigned-partition-id
 * when the spec changes, as Iceberg Java's UpdateRequirements does.
 * *requirements and *updates are new JSON arrays (json_decref).
 * base NULL: a create transaction — [assert-create] and every update that
 * builds `next` from nothing. */
floe_status floe_ice_md_diff(const floe_ice_table_metadata *base, const floe_ice_table_metadata *next,
                             json_t **requirements, json_t **updates) FLOE_WARN_UNUSED;

/* Check every requirement against `current` (NULL: the table does not
 * exist, which only assert-create accepts).  A failed one is
 * FLOE_ERR_CONFLICT naming it ("requirement failed: branch main has
 * changed: expected id 1 != 2"); a malformed one FLOE_ERR_INVALID_ARGUMENT. */
floe_status floe_ice_md_check_requirements(const floe_ice_table_metadata *current,
                                           const json_t *requirements) FLOE_WARN_UNUSED;

/* `md` with every update applied in order (a new object; md untouched).
 * An unknown action or a malformed update is FLOE_ERR_INVALID_ARGUMENT
 * naming it; an update that contradicts the metadata (a snapshot id that
 * exists, a ref to a missing snapshot, a schema id in use) likewise.
 * last-updated-ms is set to now.  md NULL builds a new table from the
 * updates (after check_requirements(NULL, ...) accepted assert-create). */
floe_status floe_ice_md_apply_updates(const floe_ice_table_metadata *md, const json_t *updates,
                                      floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

#endif

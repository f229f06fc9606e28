/*
 * table_update_internal.h — the copy machinery behind iceberg_table_update.h,
 * shared with the catalog (which adds metadata-log entries at commit) and
 * with later metadata changes (appending snapshots).
 *
 * Metadata is immutable and its storage private (one arena), so a change
 * is made on its JSON form: begin gives a jansson tree of the metadata,
 * the caller edits the tree, and finish stamps last-updated-ms and parses
 * the tree into a new floe_ice_table_metadata.  Parsing validates the
 * result with the same rules as a file read from storage, so an edit
 * cannot produce metadata floe itself would refuse to read.
 */
#ifndef FLOE_ICEBERG_TABLE_UPDATE_INTERNAL_H
#define FLOE_ICEBERG_TABLE_UPDATE_INTERNAL_H

#include <stdint.h>

#include <jansson.h>

#include "floe/iceberg_schema.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/status.h"

/* The metadata as a new jansson tree (the caller owns the reference). */
floe_status floe_ice_tm_edit_begin(const floe_ice_table_metadata *md, json_t **root) FLOE_WARN_UNUSED;

/* Stamp last-updated-ms (now, but never before base's when `base` is not
 * NULL) and parse `root` into new metadata.  Consumes `root` (also on
 * failure). */
floe_status floe_ice_tm_edit_finish(const floe_ice_table_metadata *base, json_t *root,
                                    floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

/* Make `schema` the current schema of the tree `root` of metadata `base`:
 * when it has the same structure as one of base's schemas that schema id
 * becomes current, else it is added with id (highest schema id + 1).
 * last-column-id becomes max(its value, last_column_id).  `schema` is only
 * read. */
floe_status floe_ice_tm_edit_set_schema(const floe_ice_table_metadata *base, json_t *root,
                                        const floe_ice_schema *schema, int32_t last_column_id) FLOE_WARN_UNUSED;

/* Append {timestamp-ms, metadata-file} to the tree's metadata-log, then
 * drop the oldest entries beyond `max_entries` (>= 0) as Iceberg Java does
 * for write.metadata.previous-versions-max. */
floe_status floe_ice_tm_edit_add_metadata_log(json_t *root, const char *file, int64_t timestamp_ms,
                                              int32_t max_entries) FLOE_WARN_UNUSED;

/* A random (version 4) UUID as 36 lowercase characters and a NUL. */
floe_status floe_ice_uuid4(char out[37]) FLOE_WARN_UNUSED;

/* Wall-clock milliseconds since the Unix epoch. */
int64_t floe_ice_now_ms(void);

#endif

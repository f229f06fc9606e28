/*
 * iceberg_metadata_columns.h — the columns every Iceberg table has beside
 * its schema (the spec's reserved field ids): where a row lives and, in v3,
 * its lineage.  Engines expose them by name, outside `SELECT *`:
 *
 *   _file                           2147483646  string  the data file's path, as recorded
 *   _pos                            2147483645  long    the row's position in that file
 *   _spec_id                        2147483643  int     the file's partition spec id
 *   _row_id                         2147483540  long    v3 row lineage: the row's id
 *   _last_updated_sequence_number   2147483539  long    v3: the data sequence number of the
 *                                                       snapshot that last wrote the row
 *
 * The task reader fills them: _row_id and _last_updated_sequence_number
 * from the file's own columns when it has them and the value is not NULL,
 * else inherited — first_row_id + _pos, and the file's data sequence
 * number — and NULL when the table predates row lineage.
 */
#ifndef FLOE_ICEBERG_METADATA_COLUMNS_H
#define FLOE_ICEBERG_METADATA_COLUMNS_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/iceberg_types.h"

#define FLOE_ICE_MD_FILE_ID 2147483646
#define FLOE_ICE_MD_POS_ID 2147483645
#define FLOE_ICE_MD_SPEC_ID_ID 2147483643
#define FLOE_ICE_MD_ROW_ID_ID 2147483540
#define FLOE_ICE_MD_LAST_UPDATED_SEQ_ID 2147483539

/* The metadata column with field id `id` (static, never freed), or NULL. */
const floe_ice_field *floe_ice_metadata_field(int32_t id);
/* The metadata column named `name` (exact, as engines spell them), or NULL. */
const floe_ice_field *floe_ice_metadata_field_by_name(const char *name);
/* The i-th metadata column (0 .. count-1), for binding them by name. */
int32_t floe_ice_metadata_field_count(void);
const floe_ice_field *floe_ice_metadata_field_at(int32_t i);

#endif

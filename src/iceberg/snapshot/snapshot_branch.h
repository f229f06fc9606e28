/*
 * snapshot_branch.h — producing a snapshot on a branch other than main
 * (Iceberg Java's SnapshotProducer.toBranch).
 *
 * Every snapshot producer of this folder builds on the table's current
 * snapshot and makes its snapshot current.  A commit to branch b reuses
 * them unchanged: the producer is given the *branch view* of the metadata
 * (current-snapshot-id and main at b's head), and its result is then
 * *re-aimed*: the new snapshot becomes b's head while main,
 * current-snapshot-id and the snapshot-log stay as the base had them.
 * The parent of the new snapshot is thus b's head, and validations that
 * look at "the commits since the snapshot read" walk b's history.
 */
#ifndef FLOE_ICEBERG_SNAPSHOT_BRANCH_H
#define FLOE_ICEBERG_SNAPSHOT_BRANCH_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/iceberg_table_metadata.h"
#include "floe/status.h"

/* Is `branch` main (NULL, "" or "main")? */
bool floe_ice_branch_is_main(const char *branch);

/* The metadata as a producer writing to `branch` sees it.  A branch that
 * does not exist yet starts from main's current snapshot (Java's
 * SnapshotUtil.latestSnapshot); a tag is FLOE_ERR_INVALID_ARGUMENT (tags
 * cannot be written to). */
floe_status floe_ice_tm_branch_view(const floe_ice_table_metadata *md, const char *branch,
                                    floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

/* The metadata as it was when snapshot `snapshot_id` (one of md's) was
 * current: that snapshot current and main at it, all else unchanged —
 * what a metadata table of one snapshot read AS OF is built on. */
floe_status floe_ice_tm_snapshot_view(const floe_ice_table_metadata *md, int64_t snapshot_id,
                                      floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

/* `produced` (made from the branch view of `base`; its new snapshot is
 * `snapshot_id`) with `branch` pointing at that snapshot — created as a
 * branch without retention settings when absent, otherwise keeping them —
 * and main, current-snapshot-id and snapshot-log as in `base`. */
floe_status floe_ice_tm_branch_reaim(const floe_ice_table_metadata *base, const floe_ice_table_metadata *produced,
                                     const char *branch, int64_t snapshot_id,
                                     floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

/* The snapshot of `produced` that `base` does not have (the one a
 * producer added), or FLOE_ICE_NO_SNAPSHOT. */
int64_t floe_ice_tm_new_snapshot_id(const floe_ice_table_metadata *base, const floe_ice_table_metadata *produced);

#endif

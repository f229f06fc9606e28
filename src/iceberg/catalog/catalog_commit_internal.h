/*
 * catalog_commit_internal.h — the optimistic commit loop shared by the
 * catalog calls that make one snapshot (floe_catalog_append,
 * floe_catalog_replace_partitions, floe_catalog_delete_where).
 *
 * Each attempt loads the table, lets `build` make the new metadata from
 * it (writing manifests and a list, recorded in `written`), and commits
 * with a compare-and-swap.  Only a lost swap (FLOE_ERR_CONFLICT from
 * floe_catalog_commit) is retried, after a jittered exponential backoff,
 * up to max_retries times; an error from `build` — including a conflict
 * it finds while validating — is final.  Every losing or failed attempt's
 * files are deleted; data files are never touched.
 */
#ifndef FLOE_ICEBERG_CATALOG_COMMIT_INTERNAL_H
#define FLOE_ICEBERG_CATALOG_COMMIT_INTERNAL_H

#include <stdint.h>

#include "floe/catalog.h"
#include "floe/iceberg_table_update.h"
#include "floe/status.h"

/* Make the new metadata for table `t` (*out NULL: nothing to commit). */
typedef floe_status (*floe_catalog_build_fn)(const floe_ice_table *t, void *ctx, floe_ice_table_metadata **out,
                                             floe_ice_append_files *written);

/* Run the loop.  `what` names the operation in messages ("append to",
 * "overwrite", "delete from").  *snapshot_id (may be NULL) receives the
 * committed snapshot's id, or -1 when `build` had nothing to commit. */
floe_status floe_catalog_commit_retrying(floe_catalog *c, const char *ns, const char *name, const char *what,
                                         int max_retries, floe_catalog_build_fn build, void *ctx,
                                         int64_t *snapshot_id) FLOE_WARN_UNUSED;

/* Run `build` on the branch view of `t` (snapshot_branch.h) and re-aim
 * its result at `branch`: the commit of a snapshot to a branch other than
 * main.  Staging (wap.id) inside `build` is undone by the re-aiming
 * anyway, since main always stays where the base had it. */
floe_status floe_ice_branch_build(const floe_ice_table *t, const char *branch, floe_catalog_build_fn build, void *ctx,
                                  floe_ice_table_metadata **out, floe_ice_append_files *written) FLOE_WARN_UNUSED;

#endif

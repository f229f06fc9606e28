/*
 * registry.c — every procedure CALL knows, in the order an unknown name
 * lists them.  To add one: define its floe_proc_def in the file of its
 * family, declare it below and add it to k_procedures.
 */
#include <stddef.h>

#include "sql/procedures/procedure.h"

/* proc_snapshots.c */
extern const floe_proc_def floe_proc_rollback_to_snapshot;
extern const floe_proc_def floe_proc_rollback_to_timestamp;
extern const floe_proc_def floe_proc_set_current_snapshot;
extern const floe_proc_def floe_proc_cherrypick_snapshot;
extern const floe_proc_def floe_proc_publish_changes;
extern const floe_proc_def floe_proc_fast_forward;
/* proc_expire.c, proc_orphans.c */
extern const floe_proc_def floe_proc_expire_snapshots;
extern const floe_proc_def floe_proc_remove_orphan_files;
/* proc_rewrite.c, proc_manifests.c */
extern const floe_proc_def floe_proc_rewrite_data_files;
extern const floe_proc_def floe_proc_rewrite_manifests;
/* proc_register.c, proc_rewrite_deletes.c */
extern const floe_proc_def floe_proc_register_table;
extern const floe_proc_def floe_proc_add_files;
extern const floe_proc_def floe_proc_snapshot;
extern const floe_proc_def floe_proc_migrate;
extern const floe_proc_def floe_proc_rewrite_position_delete_files;

const floe_proc_def *const floe_proc_registry[] = {
    &floe_proc_rollback_to_snapshot,
    &floe_proc_rollback_to_timestamp,
    &floe_proc_set_current_snapshot,
    &floe_proc_cherrypick_snapshot,
    &floe_proc_publish_changes,
    &floe_proc_fast_forward,
    &floe_proc_expire_snapshots,
    &floe_proc_remove_orphan_files,
    &floe_proc_rewrite_data_files,
    &floe_proc_rewrite_manifests,
    &floe_proc_rewrite_position_delete_files,
    &floe_proc_register_table,
    &floe_proc_add_files,
    &floe_proc_snapshot,
    &floe_proc_migrate,
    NULL,
};

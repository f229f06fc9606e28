/*
 * proc_files.h — the files table metadata reaches, for the maintenance
 * procedures (expire_snapshots, remove_orphan_files): manifest lists,
 * manifests and the data and delete files their entries name, keyed by a
 * normalized location so that s3a:// and s3:// (and file:/x and /x) name
 * the same file.
 */
#ifndef FLOE_SQL_PROCEDURES_PROC_FILES_H
#define FLOE_SQL_PROCEDURES_PROC_FILES_H

#include <stdbool.h>

#include "base/hashmap.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/status.h"

typedef enum proc_file_kind {
    PROC_FILE_DATA = 1,
    PROC_FILE_POS_DELETES,
    PROC_FILE_EQ_DELETES,
    PROC_FILE_MANIFEST,
    PROC_FILE_MANIFEST_LIST,
    PROC_FILE_STATISTICS,
    PROC_FILE_METADATA
} proc_file_kind;

/* A set of files: normalized location -> proc_file_file (owned). */
typedef struct proc_file {
    proc_file_kind kind;
    char *location;           /* as the metadata records it */
} proc_file;

typedef struct proc_file_set {
    floe_strmap files;
} proc_file_set;

void proc_file_set_init(proc_file_set *s);
void proc_file_set_free(proc_file_set *s);

/* The comparison key of a location (floe_malloc'd): s3a:// and s3n://
 * become s3://, file:///x and file:/x become /x, repeated '/' in the path
 * collapse. */
char *proc_file_key(const char *location);

floe_status proc_file_add(proc_file_set *s, proc_file_kind kind, const char *location) FLOE_WARN_UNUSED;
bool proc_file_has(const proc_file_set *s, const char *location);

/* Add snapshot `snap`'s manifest list, its manifests and the files of
 * their entries: only live ones (ADDED, EXISTING) when live_only, else
 * every entry (a DELETED entry still names a file older snapshots read).
 * A manifest already in `s` is not read again (snapshots share most of
 * theirs: 1,000 appends reach ~10 manifests, not 10,000). */
floe_status proc_file_add_snapshot(proc_file_set *s, const floe_ice_table *t, const floe_ice_snapshot *snap,
                                   bool live_only) FLOE_WARN_UNUSED;

/* The same, but a manifest in `except` is neither added nor read: what an
 * expiry may delete is reached only through manifests no kept snapshot
 * has (Java's ReachableFileCleanup: expired manifests less current ones),
 * or through the entries proc_file_add_kept_snapshot sets aside. */
floe_status proc_file_add_snapshot_except(proc_file_set *s, const floe_ice_table *t, const floe_ice_snapshot *snap,
                                          bool live_only, const proc_file_set *except) FLOE_WARN_UNUSED;

/* A snapshot an expiry keeps (`t`: the table after the expiry): its list,
 * manifests and every file their entries name go to `kept` — but a file
 * a DELETED entry names whose deleting snapshot is gone from `t` goes to
 * `gone` instead (Java's IncrementalFileCleanup: the deletes of expired
 * snapshots, found in manifests that live on). */
floe_status proc_file_add_kept_snapshot(proc_file_set *kept, proc_file_set *gone, const floe_ice_table *t,
                                        const floe_ice_snapshot *snap) FLOE_WARN_UNUSED;

/* Everything `t`'s metadata reaches: every snapshot (all entries), the
 * statistics files, the metadata files (current, metadata-log) and
 * metadata/version-hint.text. */
floe_status proc_file_add_table(proc_file_set *s, const floe_ice_table *t) FLOE_WARN_UNUSED;

#endif

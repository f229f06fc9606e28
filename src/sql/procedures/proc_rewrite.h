/*
 * proc_rewrite.h — what the files of rewrite_data_files share: the
 * options of the bin-pack planner and the file groups it plans
 * (proc_rewrite_plan.c), which proc_rewrite.c turns into one write plan
 * per commit.
 */
#ifndef FLOE_SQL_PROCEDURES_PROC_REWRITE_H
#define FLOE_SQL_PROCEDURES_PROC_REWRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/iceberg_scan.h"
#include "floe/status.h"

/* The planner's options, with Iceberg Java's names and defaults
 * (SizeBasedFileRewritePlanner, BinPackRewriteFilePlanner). */
typedef struct rw_options {
    int64_t target;                /* target-file-size-bytes                   */
    int64_t min_size;              /* min-file-size-bytes (75% of target)      */
    int64_t max_size;              /* max-file-size-bytes (180% of target)     */
    int64_t max_group;             /* max-file-group-size-bytes (100 GB)       */
    int64_t min_input_files;       /* min-input-files (5)                      */
    int64_t delete_file_threshold; /* delete-file-threshold (INT32_MAX)        */
    double delete_ratio;           /* delete-ratio-threshold (0.3)             */
    bool rewrite_all;              /* rewrite-all                              */
    bool partial;                  /* partial-progress.enabled                 */
    int64_t max_commits;           /* partial-progress.max-commits (10)        */
    int64_t max_concurrent;        /* max-concurrent-file-group-rewrites (5)   */
} rw_options;

/* One file group: tasks[first .. first + n) of the plan, one partition. */
typedef struct rw_group {
    int32_t first, n;
    int64_t bytes;
} rw_group;

typedef struct rw_plan {
    const floe_ice_scan_task **tasks; /* the rewritten files, group by group */
    int32_t n_tasks;
    rw_group *groups;
    int32_t n_groups;
} rw_plan;

/* The groups to rewrite among the data files of `sp` (planned with one
 * task per file): per partition (spec id + partition tuple), the files
 * outside [min_size, max_size] or with too many deletes (every file with
 * rewrite_all), bin-packed in file order into groups of at most max_group
 * bytes, keeping a group that has enough files (>= min_input_files, more
 * than one), more than target bytes in more than one file, more than
 * max_size bytes, or a file with too many deletes.  The tasks point into
 * `sp`, which must outlive the plan. */
floe_status rw_plan_groups(const floe_ice_scan_plan *sp, const rw_options *o, rw_plan *out) FLOE_WARN_UNUSED;
void rw_plan_free(rw_plan *p);

/* The size the writers roll files at: Java's writeMaxFileSize, target plus
 * half the distance to max_size, so a group a little over the target does
 * not leave a tiny remainder file. */
int64_t rw_write_max_file_size(const rw_options *o);

/* Group g as a scan task group (floe_ice_scan_group_serialize's form,
 * numbered `index`) carrying exactly the deletes its files need. */
floe_status rw_group_serialize(const rw_plan *p, int32_t g, int32_t index, uint8_t **out,
                               size_t *out_len) FLOE_WARN_UNUSED;

#endif

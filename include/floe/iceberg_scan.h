/*
 * iceberg_scan.h — scan planning for Iceberg tables: "plan once on the
 * coordinator".  A plan turns (table, snapshot, projection, filter) into
 * task groups: each task is one byte range of one data file with the
 * residual filter still to apply to its rows and the delete files that
 * apply to it; groups are bin-packed by bytes so that one worker (thread
 * or rank) reads one group.
 *
 * Planning reads only metadata (manifest lists and manifests), never data
 * or delete files.  Pruning (manifest-list partition summaries, manifest
 * entry partition values, file column metrics) only drops files that
 * cannot hold a matching row.
 *
 * Delete files are attached by the spec's rules:
 *   - position deletes: data sequence number of the delete >= the data
 *     file's, and same spec and partition (or, when the delete records
 *     referenced_data_file, that path equals the data file's);
 *   - equality deletes: data sequence number of the delete > the data
 *     file's, and same spec and partition, or any data file when the
 *     delete's spec is unpartitioned;
 *   - v3 deletion vectors (position deletes in Puffin with
 *     referenced_data_file and content_offset / content_size_in_bytes): the
 *     referenced data file only.
 *
 * A task group is self-contained (owns every string, value, expression and
 * delete record it points to) so it can be serialized, shipped to a worker
 * and freed independently of the plan.
 */
#ifndef FLOE_ICEBERG_SCAN_H
#define FLOE_ICEBERG_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/iceberg_expr.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/iceberg_value.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- what to plan ---------------------------------------------------------- */

typedef enum floe_ice_snapshot_select {
    FLOE_ICE_SELECT_CURRENT = 0,    /* the table's current snapshot */
    FLOE_ICE_SELECT_ID,             /* snapshot_id */
    FLOE_ICE_SELECT_REF,            /* a branch or tag name */
    FLOE_ICE_SELECT_AS_OF           /* current at timestamp_ms */
} floe_ice_snapshot_select;

typedef struct floe_ice_snapshot_selector {
    floe_ice_snapshot_select kind;
    int64_t snapshot_id;
    const char *ref;
    int64_t timestamp_ms;
} floe_ice_snapshot_selector;

#define FLOE_ICE_DEFAULT_SPLIT_SIZE (128LL * 1024 * 1024)
#define FLOE_ICE_DEFAULT_OPEN_FILE_COST (4LL * 1024 * 1024)

struct floe_threadpool;

typedef struct floe_ice_scan_options {
    bool case_sensitive;            /* binding an unbound filter */
    int32_t target_partitions;      /* >= 1: the number of groups wanted */
    int64_t split_size;             /* 0: read.split.target-size, else 128 MiB */
    int64_t open_file_cost;         /* 0: read.split.open-file-cost, else 4 MiB */
    struct floe_threadpool *pool;   /* NULL: the default pool */
    /* Only these data files (paths as the manifests record them), when
     * only_files_set: a row-level change reading the files it rewrites. */
    bool only_files_set;
    const char *const *only_files;
    int32_t n_only_files;
} floe_ice_scan_options;

/* case_sensitive = true, target_partitions = 1, sizes from the table. */
void floe_ice_scan_options_init(floe_ice_scan_options *o);

/* ---- tasks and groups ---------------------------------------------------- */

/* One delete file that applies to a task. */
typedef struct floe_ice_scan_delete {
    floe_ice_content content;       /* POSITION_DELETES or EQUALITY_DELETES */
    bool is_dv;                     /* v3 deletion vector (a Puffin blob) */
    const char *path;               /* as recorded */
    const char *resolved_path;      /* through floe_ice_table_resolve_path */
    const char *format;             /* "parquet", "puffin", "avro", "orc" (as written) */
    int64_t record_count;
    int64_t file_size_in_bytes;
    int32_t spec_id;
    int64_t sequence_number;        /* data sequence number */
    int64_t file_sequence_number;
    int32_t n_equality_ids;         /* equality deletes; 0 otherwise */
    const int32_t *equality_ids;
    const char *referenced_data_file; /* NULL when not recorded */
    int64_t content_offset;         /* DV blob offset; -1 when not recorded */
    int64_t content_size_in_bytes;  /* DV blob length; -1 when not recorded */
} floe_ice_scan_delete;

/* One byte range of one data file. */
typedef struct floe_ice_scan_task {
    const char *path;               /* as recorded in the manifest */
    const char *resolved_path;      /* through floe_ice_table_resolve_path */
    const char *format;             /* as written ("PARQUET", "parquet", ...) */
    int64_t record_count;           /* of the whole file */
    int64_t file_size_in_bytes;
    int32_t spec_id;
    int32_t n_partition;            /* the partition tuple, spec field order */
    const floe_ice_value *partition;
    int64_t sequence_number;        /* data sequence number */
    int64_t file_sequence_number;
    bool has_first_row_id;          /* v3 row lineage */
    int64_t first_row_id;
    /* Split byte range within the file.  The splits of a file cover
     * [0, file_size) exactly: the first starts at 0, later ones at a
     * split_offsets entry (a row-group start).  A reader takes the row
     * groups whose starting offset lies in [start, start + length).
     * Files without usable split_offsets are one task (0, file size). */
    int64_t start;
    int64_t length;
    int32_t split_index;            /* 0-based split of the file */
    int32_t n_splits;               /* splits of the file (1: whole file) */
    const floe_ice_expr *residual;  /* bound to the table schema; never NULL */
    int32_t n_deletes;              /* deletes that apply, sorted by path */
    const floe_ice_scan_delete *const *deletes;
} floe_ice_scan_task;

/* Tasks are bin-packed heaviest first (weight = max(length, open-file
 * cost) + sizes of the task's delete files, DVs by blob size) onto the
 * lightest group; ties go by file order (manifest-list, then entry order)
 * and offset, so a plan is deterministic.  Within a group tasks are in
 * file order, the splits of one file adjacent. */
typedef struct floe_ice_scan_group {
    int32_t index;                  /* 0 .. n_groups-1 */
    int32_t n_tasks;
    const floe_ice_scan_task *tasks;
    int32_t n_deletes;              /* every delete the tasks reference */
    const floe_ice_scan_delete *deletes;
    int64_t weight;                 /* bin-packing weight */
    int64_t bytes;                  /* sum of task lengths */
    int64_t rows;                   /* sum of record counts of whole files */
    int32_t n_files;                /* distinct data files */
    struct floe_ice_sg_private *priv;
} floe_ice_scan_group;

void floe_ice_scan_group_free(floe_ice_scan_group *g);

/* ---- plan statistics ----------------------------------------------------- */

typedef struct floe_ice_scan_column_stats {
    int32_t field_id;
    int64_t null_count;             /* -1 when some file lacked it */
    bool has_lower, has_upper;      /* every file had a bound */
    floe_ice_value lower, upper;    /* typed by the table schema */
} floe_ice_scan_column_stats;

typedef struct floe_ice_scan_stats {
    int64_t rows;                   /* sum of record counts of the data files */
    bool rows_estimated;            /* some delete applies: rows is an upper bound */
    int64_t bytes;                  /* sum of data file sizes */
    int64_t n_data_files;
    int64_t n_delete_files;         /* distinct deletes attached to some task */
    int64_t n_tasks;
    int64_t n_manifests;            /* in the manifest list */
    int64_t n_manifests_read;       /* not pruned by summaries */
    int64_t n_files_pruned;         /* data entries dropped by partition or metrics */
    int32_t n_columns;              /* projected columns (or every column) */
    floe_ice_scan_column_stats *columns;
} floe_ice_scan_stats;

/* ---- the plan ------------------------------------------------------------ */

typedef struct floe_ice_scan_plan {
    int64_t snapshot_id;            /* FLOE_ICE_NO_SNAPSHOT for an empty table */
    int32_t schema_id;
    floe_ice_expr *filter;          /* the bound filter (true when none) */
    int32_t n_projected;            /* projected field ids (copy) */
    int32_t *projected;
    int32_t n_groups;               /* >= 1 */
    floe_ice_scan_group **groups;
    floe_ice_scan_stats stats;
    struct floe_ice_sp_private *priv;
} floe_ice_scan_plan;

/* Plan a scan of `t` at the selected snapshot.  `projected` (may be NULL
 * with n_projected 0: every column) lists the field ids to read; `filter`
 * (NULL: true) may be bound or unbound (bound here to the table's current
 * schema).  `opts` may be NULL (defaults). */
floe_status floe_ice_scan_plan_new(const floe_ice_table *t, const floe_ice_snapshot_selector *sel,
                                   const int32_t *projected, int32_t n_projected, const floe_ice_expr *filter,
                                   const floe_ice_scan_options *opts, floe_ice_scan_plan **out) FLOE_WARN_UNUSED;
void floe_ice_scan_plan_free(floe_ice_scan_plan *p);

/* Take group `i` out of the plan (the plan's slot becomes NULL and the
 * caller frees it with floe_ice_scan_group_free). */
floe_ice_scan_group *floe_ice_scan_plan_take_group(floe_ice_scan_plan *p, int32_t i);

/* ---- serialization (ship a group to a worker) ---------------------------- */

/* A compact binary form (versioned, little-endian; the residual as its
 * JSON text).  *out is floe_malloc'd. */
floe_status floe_ice_scan_group_serialize(const floe_ice_scan_group *g, uint8_t **out,
                                          size_t *out_len) FLOE_WARN_UNUSED;
/* Decode; truncated or corrupt input is FLOE_ERR_CORRUPT naming the offset. */
floe_status floe_ice_scan_group_deserialize(const uint8_t *data, size_t len,
                                            floe_ice_scan_group **out) FLOE_WARN_UNUSED;

/* ---- the process-wide manifest cache ------------------------------------- */

/* Decoded manifests keyed by resolved path (manifests are immutable), LRU within a
 * byte budget (default 256 MiB of decoded size), held under the root
 * memory tracker.  Thread-safe.  budget 0 disables caching. */
void floe_ice_manifest_cache_set_budget(int64_t bytes);
/* Drop every cached manifest. */
void floe_ice_manifest_cache_clear(void);

typedef struct floe_ice_manifest_cache_stats {
    int64_t hits, misses, evictions;
    int64_t bytes;                  /* decoded bytes held */
    int64_t entries;
} floe_ice_manifest_cache_stats;
void floe_ice_manifest_cache_stats_get(floe_ice_manifest_cache_stats *out);

#ifdef __cplusplus
}
#endif
#endif

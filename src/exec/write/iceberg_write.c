/*
 * iceberg_write.c — the IcebergWrite node (exec_write.h): each input
 * partition is one writer task that turns its rows into Iceberg data files
 * and reports them as Avro data_file records, for IcebergCommit to commit.
 *
 * Input columns: the table's top-level columns in schema order, then one
 * column per field of the default spec holding the partition value.  A
 * writer stream keeps one rolling writer (iceberg_data_writer.h) per
 * partition tuple it has seen, found through a small open-addressing table
 * keyed by the hash of the partition columns (row_hash.h).  Each batch is
 * grouped in one pass: rows get a group in first-row order; a group whose
 * rows form one run (sorted input) goes to its writer as a zero-copy
 * slice (the whole batch when it is the only group), the others are
 * gathered by a counting sort and taken — no per-row allocation.
 *
 * Fanout (default): any input order; when the writers' buffered bytes pass
 * floe.write.fanout-memory-bytes the largest is flushed (its open file is
 * finished early).  Clustered (write.fanout.enabled=false): a tuple's
 * writer is finished as soon as the next tuple starts, and a finished
 * tuple coming back is an error — the input was not sorted.
 *
 * The node's parts are the target table's description as strings (schema
 * and spec JSON, properties), the job id and the table's FileIO
 * properties (the writers' FileIO is made from them, so a writer in
 * another process reaches the same store with the same credentials id);
 * the constructor parses them once into the derived state (schema, spec,
 * partition type, settings, columnar write schema), so decode just calls
 * it again.
 *
 * The table's sort order (a constructor part) is honoured
 * by requiring each input partition ordered by the partition columns then
 * the order's fields (the planner adds the Sort), so every file's rows are
 * in that order and the file may say so (its sort_order_id); without an
 * order the node can honour, files say 0 (unsorted), never a claim the
 * rows do not keep.
 *
 * A stream that fails, or is closed before it handed its files out,
 * deletes every file it created; every created file is also reported to
 * the write job registry (floe_write_job_created) so the commit can clean
 * up after writers it never heard from.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/io_props.h"
#include "exec/plan_internal.h"
#include "exec/exchange/row_hash.h"
#include "exec/write/delta_deletes.h"
#include "floe/exec_ops.h"
#include "floe/exec_write.h"
#include "floe/iceberg_data_writer.h"
#include "floe/iceberg_partition_spec.h"
#include "floe/iceberg_schema.h"
#include "floe/iceberg_sort_order.h"
#include "floe/iceberg_task_reader.h"

#define FANOUT_MEMORY_PROP "floe.write.fanout-memory-bytes"
#define FANOUT_MEMORY_DEFAULT (INT64_C(256) << 20)

typedef struct write_plan {
    floe_plan head;
    /* parts */
    char *location, *schema_json, *spec_json, *job_id;
    int32_t format_version, sort_order_id, n_props;
    char **props; /* 2 * n_props strings */
    floe_property *io_props; /* the table's FileIO properties (none: environment) */
    size_t n_io_props;
    /* derived from the parts by the constructor */
    floe_ice_schema *schema;
    floe_ice_partition_spec *spec;
    floe_ice_type *ptype;            /* partition tuple struct */
    floe_schema *write_schema;       /* the rolling writers' batch schema */
    floe_ice_write_settings *settings;
    int32_t n_data, n_part;          /* input columns: data, then partition values */
    bool partitioned;                /* spec not (effectively) unpartitioned */
    bool fanout;
    int64_t memory_budget;
    floe_expr **part_exprs;          /* column refs of the partition columns */
    floe_sort_key *part_order;       /* n_part partition keys, then n_sort order keys */
    /* the table's sort order (a part when given; see floe_plan_iceberg_write_io) */
    char *order_json;                /* NULL: none */
    int32_t n_sort;                  /* keys of the order honoured (0: files are unsorted) */
    floe_expr **sort_exprs;
    /* row-level changes (floe_plan_iceberg_write_delta) */
    int32_t delta;                   /* FLOE_DELTA_* flags; 0: a plain write */
    int32_t n_prefix;                /* FLOE_DELTA_PREFIX when delta, else 0 */
    bool lineage;                    /* v3 rows written with their _row_id and sequence number */
    floe_ice_schema *file_schema;    /* lineage: the table schema + the two lineage fields */
    floe_schema *file_write_schema;  /* lineage: the rolling writers' batch schema */
    floe_expr *file_expr;            /* column 0: the distribution of deletes */
    bool no_rows;                    /* delta input of the prefix alone (DELETE) */
    floe_delta_old_delete *old;      /* v3: deletes applying before, sorted by data file (owned) */
    int32_t n_old;
} write_plan;

/* One partition tuple's writer. */
typedef struct fan_entry {
    uint64_t hash;
    floe_array **keys;          /* n_part one-slot arrays (the tuple) */
    floe_ice_value *values;     /* n_part, views into keys */
    floe_ice_rolling_writer *w; /* NULL once finished (clustered) */
    bool started;
    int64_t ordinal;            /* 1, 2, ... in order of appearance */
    /* per-batch grouping scratch */
    int64_t batch_group;        /* group index in the current batch, -1 */
} fan_entry;

typedef struct write_stream {
    floe_stream base;
    const write_plan *p;
    int32_t partition;
    floe_stream *child;
    const floe_cancel *cancel;
    floe_fileio *io;
    floe_ice_write_target target;
    floe_ice_file_observer observer;
    /* the fanout map: entries, and an open-addressing index over them */
    fan_entry **entries;
    int64_t n_entries, cap_entries;
    int64_t *slots; /* entry index + 1; 0 empty */
    int64_t n_slots;
    fan_entry *current; /* clustered: the open tuple */
    floe_ice_written_files done; /* finished files not handed out yet */
    /* per-batch scratch, grown to the largest batch */
    uint64_t *hashes;
    int64_t *row_group;
    uint32_t *order;
    int64_t *group_start;
    int64_t *group_first, *group_last; /* first and last row of each group */
    fan_entry **groups;
    int64_t scratch_rows;
    bool finished; /* output produced (or failed): next() gives the end */
    bool handed_out;
    /* row-level changes */
    floe_delta_deletes deletes;
    floe_ice_written_files delete_files; /* written, not handed out yet */
    int64_t changed;                     /* rows counted toward the statement's tag */
    uint32_t *write_sel;                 /* rows of the batch to write */
    int64_t write_sel_cap;
} write_stream;

/* ------------------------------------------------------------ helpers */

static void job_file_created(void *arg, const char *location) {
    floe_write_job_created((const char *)arg, location);
}

/* The Iceberg value of slot i of a partition column, typed as the
 * partition field `t` (a view into the array's bytes). */
static floe_status column_value(const floe_array *a, int64_t i, const floe_ice_type *t, floe_ice_value *out) {
    if (floe_array_is_null(a, i)) {
        *out = floe_ice_null(t->id);
        return NULL;
    }
    switch (t->id) {
    case FLOE_ICE_BOOLEAN: *out = floe_ice_bool(floe_array_get_bool(a, i)); return NULL;
    case FLOE_ICE_INT: *out = floe_ice_int(floe_array_get_int32(a, i)); return NULL;
    case FLOE_ICE_DATE: *out = floe_ice_date(floe_array_get_int32(a, i)); return NULL;
    case FLOE_ICE_LONG: *out = floe_ice_long(floe_array_get_int64(a, i)); return NULL;
    case FLOE_ICE_TIME: *out = floe_ice_time(floe_array_get_int64(a, i)); return NULL;
    case FLOE_ICE_TIMESTAMP: *out = floe_ice_timestamp(floe_array_get_int64(a, i)); return NULL;
    case FLOE_ICE_TIMESTAMPTZ: *out = floe_ice_timestamptz(floe_array_get_int64(a, i)); return NULL;
    case FLOE_ICE_TIMESTAMP_NS: *out = floe_ice_timestamp_ns(floe_array_get_int64(a, i)); return NULL;
    case FLOE_ICE_TIMESTAMPTZ_NS: *out = floe_ice_timestamptz_ns(floe_array_get_int64(a, i)); return NULL;
    case FLOE_ICE_FLOAT: *out = floe_ice_float(floe_array_get_float(a, i)); return NULL;
    case FLOE_ICE_DOUBLE: *out = floe_ice_double(floe_array_get_double(a, i)); return NULL;
    case FLOE_ICE_DECIMAL: {
        floe_decimal128 d = floe_array_get_decimal(a, i);
        *out = floe_ice_decimal((floe_int128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo), t->scale);
        return NULL;
    }
    case FLOE_ICE_STRING: {
        floe_strview v = floe_array_get_str(a, i);
        *out = floe_ice_string(v.data, (size_t)v.len);
        return NULL;
    }
    case FLOE_ICE_BINARY: {
        floe_strview v = floe_array_get_str(a, i);
        *out = floe_ice_binary((const uint8_t *)v.data, (size_t)v.len);
        return NULL;
    }
    case FLOE_ICE_FIXED: *out = floe_ice_fixed(floe_array_get_fixed(a, i), (size_t)a->type->byte_width); return NULL;
    case FLOE_ICE_UUID: *out = floe_ice_uuid(floe_array_get_fixed(a, i)); return NULL;
    default:
        return floe_error(FLOE_ERR_UNSUPPORTED, "IcebergWrite: partition values of type %s",
                          floe_ice_type_id_name(t->id));
    }
}

static void entry_free(fan_entry *e, int32_t n_part, bool abandon) {
    if (!e) return;
    floe_ice_rolling_writer_free(e->w, abandon);
    for (int32_t j = 0; e->keys && j < n_part; j++) floe_array_release(e->keys[j]);
    floe_free(e->keys);
    floe_free(e->values);
    floe_free(e);
}

/* The partition path of an entry, for messages (a placeholder if even
 * that fails). */
static char *entry_path(const write_stream *s, const fan_entry *e) {
    char *path = NULL;
    floe_status st = floe_ice_write_partition_path(s->p->spec, s->p->schema, e->values, s->p->n_part, &path);
    if (st) {
        floe_status_free(st);
        return floe_strdup("?");
    }
    return path;
}

/* Clustered input that returns to a finished tuple. */
static floe_status unsorted_error(const write_stream *s, const fan_entry *e) {
    char *path = entry_path(s, e);
    floe_status st = floe_error(FLOE_ERR_INVALID_ARGUMENT,
                                "clustered writer: input is not sorted by partition (%s seen again)",
                                path ? path : "?");
    floe_free(path);
    return st;
}

/* Append a finished writer's files to s->done. */
static floe_status finish_entry(write_stream *s, fan_entry *e) {
    if (!e->w) return NULL;
    floe_status st = floe_ice_rolling_writer_finish(e->w, &s->done);
    /* On failure the writer still owns what it created: abandon it. */
    floe_ice_rolling_writer_free(e->w, st != NULL);
    e->w = NULL;
    return st;
}

/* Delete files finished but not handed out (the stream failed). */
static void delete_done(write_stream *s) {
    for (int32_t i = 0; i < s->done.n; i++) {
        if (!s->io || !s->done.locations[i]) continue;
        floe_status_free(floe_fileio_delete(s->io, s->done.locations[i]));
    }
    floe_ice_written_files_free(&s->done);
    memset(&s->done, 0, sizeof s->done);
    for (int32_t i = 0; i < s->delete_files.n; i++) {
        if (!s->io || !s->delete_files.locations[i]) continue;
        floe_status_free(floe_fileio_delete(s->io, s->delete_files.locations[i]));
    }
    floe_ice_written_files_free(&s->delete_files);
    memset(&s->delete_files, 0, sizeof s->delete_files);
}

/* Free every writer (abandoning their files) and the finished files. */
static void abandon_all(write_stream *s) {
    for (int64_t i = 0; i < s->n_entries; i++) {
        entry_free(s->entries[i], s->p->n_part, true);
        s->entries[i] = NULL;
    }
    s->n_entries = 0;
    delete_done(s);
}

/* ------------------------------------------------------- fanout map */

static floe_status index_grow(write_stream *s) {
    int64_t n = s->n_slots ? s->n_slots * 2 : 64;
    int64_t *slots = floe_calloc((size_t)n, sizeof *slots);
    if (!slots) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergWrite: partition table of %lld", (long long)n);
    for (int64_t i = 0; i < s->n_entries; i++) {
        int64_t k = (int64_t)(s->entries[i]->hash & (uint64_t)(n - 1));
        while (slots[k]) k = (k + 1) & (n - 1);
        slots[k] = i + 1;
    }
    floe_free(s->slots);
    s->slots = slots;
    s->n_slots = n;
    return NULL;
}

/* The entry of row i's tuple, creating it (and its writer) when new. */
static floe_status find_entry(write_stream *s, floe_array *const *pcols, int64_t i, uint64_t h, fan_entry **out) {
    const write_plan *p = s->p;
    int64_t k = (int64_t)(h & (uint64_t)(s->n_slots - 1));
    for (; s->slots[k]; k = (k + 1) & (s->n_slots - 1)) {
        fan_entry *e = s->entries[s->slots[k] - 1];
        if (e->hash == h && floe_rows_equal(pcols, i, e->keys, 0, p->n_part, true)) {
            *out = e;
            return NULL;
        }
    }
    /* A new tuple. */
    if (s->n_entries == s->cap_entries) {
        int64_t cap = s->cap_entries ? s->cap_entries * 2 : 16;
        fan_entry **g = floe_realloc(s->entries, (size_t)cap * sizeof *g);
        if (!g) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergWrite: partition table");
        s->entries = g;
        s->cap_entries = cap;
    }
    fan_entry *e = floe_calloc(1, sizeof *e);
    if (!e) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergWrite: partition table");
    e->hash = h;
    e->batch_group = -1;
    floe_status st = NULL;
    int32_t np = p->n_part;
    e->keys = floe_calloc((size_t)(np ? np : 1), sizeof *e->keys);
    e->values = floe_calloc((size_t)(np ? np : 1), sizeof *e->values);
    if (!e->keys || !e->values) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergWrite: partition tuple");
    uint32_t row = (uint32_t)i;
    for (int32_t j = 0; j < np && !st; j++) {
        /* A copy of the one value, so the tuple does not pin the batch. */
        st = floe_array_take(pcols[j], &row, 1, &e->keys[j]);
        if (!st) st = column_value(e->keys[j], 0, p->ptype->fields[j].type, &e->values[j]);
    }
    if (st) {
        entry_free(e, np, true);
        return st;
    }
    s->entries[s->n_entries++] = e;
    e->ordinal = s->n_entries;
    if ((s->n_entries + 1) * 4 > s->n_slots * 3) {
        st = index_grow(s);
    } else {
        s->slots[k] = s->n_entries;
    }
    if (st) return st; /* the entry is owned by s->entries: freed with the stream */
    *out = e;
    return NULL;
}

/* Open the entry's writer when its first rows arrive. */
static floe_status open_writer(write_stream *s, fan_entry *e) {
    char prefix[128];
    /* <partition index>-<job id>-<writer ordinal>: unique per statement
     * and writer (two tuples never share a writer's names). */
    snprintf(prefix, sizeof prefix, "%05d-%s-%05lld", s->partition, s->p->job_id, (long long)e->ordinal);
    e->started = true;
    return floe_ice_rolling_writer_open(s->io, &s->target, s->p->settings, s->p->n_part ? e->values : NULL,
                                        s->p->n_part, prefix, &s->observer, &e->w);
}

/* ------------------------------------------------------- per batch */

static floe_status grow_scratch(write_stream *s, int64_t rows) {
    if (rows <= s->scratch_rows) return NULL;
    int64_t n = rows;
    uint64_t *h = floe_realloc(s->hashes, (size_t)n * sizeof *h);
    if (h) s->hashes = h;
    int64_t *rg = floe_realloc(s->row_group, (size_t)n * sizeof *rg);
    if (rg) s->row_group = rg;
    uint32_t *o = floe_realloc(s->order, (size_t)n * sizeof *o);
    if (o) s->order = o;
    int64_t *gs = floe_realloc(s->group_start, (size_t)(n + 1) * sizeof *gs);
    if (gs) s->group_start = gs;
    fan_entry **g = floe_realloc(s->groups, (size_t)n * sizeof *g);
    if (g) s->groups = g;
    int64_t *gf = floe_realloc(s->group_first, (size_t)n * sizeof *gf);
    if (gf) s->group_first = gf;
    int64_t *gl = floe_realloc(s->group_last, (size_t)n * sizeof *gl);
    if (gl) s->group_last = gl;
    if (!h || !rg || !o || !gs || !g || !gf || !gl)
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergWrite: grouping %lld rows", (long long)rows);
    s->scratch_rows = n;
    return NULL;
}

/* A NULL in a required column fails the statement, naming the table. */
static floe_status check_required(const write_stream *s, floe_array *const *columns) {
    const write_plan *p = s->p;
    for (int32_t c = 0; c < p->n_data; c++) {
        const floe_field *f = floe_schema_field(p->write_schema, c);
        if (f->nullable) continue;
        if (floe_array_null_count(columns[c]) > 0)
            return floe_error(FLOE_ERR_CONSTRAINT, "NULL value in required column '%s' of table %s", f->name,
                              p->location);
    }
    return NULL;
}

/* Flush the writers with the most buffered bytes until the total is under
 * the budget (fanout only). */
static floe_status enforce_budget(write_stream *s) {
    for (;;) {
        int64_t total = 0, best_bytes = 0;
        fan_entry *best = NULL;
        for (int64_t i = 0; i < s->n_entries; i++) {
            fan_entry *e = s->entries[i];
            if (!e->w) continue;
            int64_t b = floe_ice_rolling_writer_buffered_bytes(e->w);
            total += b;
            if (b > best_bytes) best_bytes = b, best = e;
        }
        if (total <= s->p->memory_budget || !best) return NULL;
        FLOE_TRY(floe_ice_rolling_writer_flush(best->w));
        if (floe_ice_rolling_writer_buffered_bytes(best->w) >= best_bytes) return NULL; /* nothing freed */
    }
}

/* Write n rows of `data` (the batch's data columns) to e's writer: rows
 * start .. start+n-1 when `run`, else the rows s->order[start ..]. */
static floe_status write_group(write_stream *s, fan_entry *e, const floe_batch *data, int64_t start, int64_t n,
                               bool run) {
    if (!e->w) {
        if (e->started) return unsorted_error(s, e);
        FLOE_TRY(open_writer(s, e));
    }
    if (n == data->num_rows) return floe_ice_rolling_writer_write(e->w, data);
    floe_batch *part = NULL;
    if (run) FLOE_TRY(floe_batch_slice(data, start, n, &part));
    else FLOE_TRY(floe_batch_take(data, s->order + start, n, &part));
    floe_status st = floe_ice_rolling_writer_write(e->w, part);
    floe_batch_release(part);
    return st;
}

/* Write `rows` rows: columns = the table's, then the partition values;
 * lineage (when the node keeps it) = the _row_id and sequence number
 * columns written after the table's. */
static floe_status write_rows(write_stream *s, floe_array *const *columns, floe_array *const *lineage, int64_t rows) {
    const write_plan *p = s->p;
    if (rows == 0) return NULL;
    FLOE_TRY(check_required(s, columns));
    floe_batch *data = NULL;
    if (p->lineage) {
        floe_array **cols = floe_malloc(((size_t)p->n_data + 2) * sizeof *cols);
        if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergWrite: %lld rows", (long long)rows);
        memcpy(cols, columns, (size_t)p->n_data * sizeof *cols);
        cols[p->n_data] = lineage[0];
        cols[p->n_data + 1] = lineage[1];
        floe_status bs = floe_batch_new(p->file_write_schema, cols, p->n_data + 2, rows, &data);
        floe_free(cols);
        FLOE_TRY(bs);
    } else {
        FLOE_TRY(floe_batch_new(p->write_schema, columns, p->n_data, rows, &data));
    }
    floe_status st = grow_scratch(s, rows);
    floe_array *const *pcols = columns + p->n_data;
    if (!st && p->n_part > 0) st = floe_hash_rows(pcols, p->n_part, rows, s->hashes);
    else if (!st) memset(s->hashes, 0, (size_t)rows * sizeof *s->hashes);
    /* One pass: each row's group, groups numbered in first-row order. */
    int64_t n_groups = 0;
    fan_entry *prev = NULL;
    for (int64_t i = 0; i < rows && !st; i++) {
        fan_entry *e = NULL;
        if (prev && prev->hash == s->hashes[i] && (p->n_part == 0 || floe_rows_equal(pcols, i, prev->keys, 0, p->n_part, true)))
            e = prev; /* sorted or clustered input: same tuple as the row before */
        else
            st = find_entry(s, pcols, i, s->hashes[i], &e);
        if (st) break;
        if (e->batch_group < 0) {
            /* Clustered: only the open tuple may continue, and only as the
             * batch's first group; any other started tuple has finished. */
            if (!p->fanout && e->started && !(e == s->current && n_groups == 0)) {
                st = unsorted_error(s, e);
                break;
            }
            e->batch_group = n_groups;
            s->groups[n_groups] = e;
            s->group_start[n_groups] = 0;
            s->group_first[n_groups] = i;
            n_groups++;
        } else if (!p->fanout && e != prev) {
            /* Clustered: the tuple left and came back within the batch. */
            st = unsorted_error(s, e);
            break;
        }
        s->row_group[i] = e->batch_group;
        s->group_start[e->batch_group]++;
        s->group_last[e->batch_group] = i;
        prev = e;
    }
    /* Groups whose rows are one run (sorted input) are written as slices;
     * only interleaved ones need their rows gathered. */
    bool interleaved = false;
    for (int64_t g = 0; g < n_groups && !interleaved; g++)
        interleaved = s->group_last[g] - s->group_first[g] + 1 != s->group_start[g];
    if (!st) {
        /* Counting sort: group_start becomes each group's first slot. */
        int64_t at = 0;
        for (int64_t g = 0; g < n_groups; g++) {
            int64_t c = s->group_start[g];
            s->group_start[g] = at;
            at += c;
        }
        s->group_start[n_groups] = at;
        if (interleaved) {
            for (int64_t i = 0; i < rows; i++) s->order[s->group_start[s->row_group[i]]++] = (uint32_t)i;
            for (int64_t g = n_groups; g > 0; g--) s->group_start[g] = s->group_start[g - 1];
            s->group_start[0] = 0;
        }
    }
    /* Write the groups in first-row order; clustered writers finish the
     * previous tuple when the next starts. */
    for (int64_t g = 0; g < n_groups && !st; g++) {
        fan_entry *e = s->groups[g];
        if (!p->fanout && s->current && s->current != e) {
            st = finish_entry(s, s->current);
            s->current = NULL;
            if (st) break;
        }
        int64_t start = s->group_start[g], n = s->group_start[g + 1] - start;
        bool run = s->group_last[g] - s->group_first[g] + 1 == n;
        st = write_group(s, e, data, run ? s->group_first[g] : start, n, run);
        if (!p->fanout) s->current = e;
    }
    for (int64_t g = 0; g < n_groups; g++) s->groups[g]->batch_group = -1;
    if (!st && p->fanout) st = enforce_budget(s);
    floe_batch_release(data);
    return st;
}

/* A plain write's batch: every row is written. */
static floe_status write_batch(write_stream *s, const floe_batch *b) {
    return write_rows(s, b->columns, NULL, b->num_rows);
}

/* The lineage columns of the rows `sel` (n of them) to write: their
 * _row_id, and their sequence number unless the row changed (NULL: it
 * takes the commit's). */
static floe_status lineage_columns(const floe_batch *b, const uint32_t *sel, int64_t n, floe_array **out) {
    const floe_array *rid = b->columns[3], *seq = b->columns[4], *op = b->columns[2];
    floe_builder *br = NULL, *bs = NULL;
    floe_status st = floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &br);
    if (!st) st = floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &bs);
    bool rid_typed = rid->type->id == FLOE_TYPE_INT64, seq_typed = seq->type->id == FLOE_TYPE_INT64;
    for (int64_t k = 0; !st && k < n; k++) {
        int64_t i = sel[k];
        int32_t o = floe_array_is_null(op, i) ? 0 : floe_array_get_int32(op, i);
        bool changed = (o & (FLOE_ROW_OP_DELETE | FLOE_ROW_OP_COUNT)) != 0;
        if (rid_typed && !floe_array_is_null(rid, i)) st = floe_builder_append_int64(br, floe_array_get_int64(rid, i));
        else st = floe_builder_append_null(br);
        if (st) break;
        if (!changed && seq_typed && !floe_array_is_null(seq, i))
            st = floe_builder_append_int64(bs, floe_array_get_int64(seq, i));
        else
            st = floe_builder_append_null(bs);
    }
    if (!st) st = floe_builder_finish(br, &out[0]);
    if (!st) st = floe_builder_finish(bs, &out[1]);
    floe_builder_free(br);
    floe_builder_free(bs);
    return st;
}

/* A row-level change's batch (_file, _pos, _op, then the table's columns
 * and partition values): deletes gathered, rows to write written, rows
 * counted. */
static floe_status delta_batch(write_stream *s, const floe_batch *b) {
    const write_plan *p = s->p;
    int64_t rows = b->num_rows;
    if (rows == 0) return NULL;
    const floe_array *file = b->columns[0], *pos = b->columns[1], *op = b->columns[2];
    if (rows > s->write_sel_cap) {
        uint32_t *g = floe_realloc(s->write_sel, (size_t)rows * sizeof *g);
        if (!g) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergWrite: %lld rows", (long long)rows);
        s->write_sel = g;
        s->write_sel_cap = rows;
    }
    int64_t n_write = 0;
    for (int64_t i = 0; i < rows; i++) {
        int32_t o = floe_array_is_null(op, i) ? 0 : floe_array_get_int32(op, i);
        if (o & FLOE_ROW_OP_DELETE) {
            if (floe_array_is_null(file, i) || floe_array_is_null(pos, i))
                return floe_error(FLOE_ERR_INTERNAL, "IcebergWrite: a row to delete without _file or _pos");
            floe_strview v = floe_array_get_str(file, i);
            FLOE_TRY(floe_delta_deletes_add(&s->deletes, v.data, (size_t)v.len, floe_array_get_int64(pos, i)));
        } else if (o & FLOE_ROW_OP_COUNT) {
            s->changed++; /* deleted rows are counted once each, when written */
        }
        if (o & FLOE_ROW_OP_WRITE) s->write_sel[n_write++] = (uint32_t)i;
    }
    if (n_write == 0) return NULL;
    if (p->no_rows) return floe_error(FLOE_ERR_INTERNAL, "IcebergWrite: a row to write in a delete-only change");
    int32_t nc = p->n_data + p->n_part;
    floe_array *const *cols = b->columns + p->n_prefix;
    floe_array *lineage[2] = {NULL, NULL};
    floe_status st = p->lineage ? lineage_columns(b, s->write_sel, n_write, lineage) : NULL;
    if (!st && n_write == rows) {
        st = write_rows(s, cols, lineage, rows);
        floe_array_release(lineage[0]);
        floe_array_release(lineage[1]);
        return st;
    }
    floe_array **taken = floe_calloc((size_t)nc + 1, sizeof *taken);
    if (!st && !taken) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergWrite: %lld rows", (long long)rows);
    for (int32_t c = 0; c < nc && !st; c++) st = floe_array_take(cols[c], s->write_sel, n_write, &taken[c]);
    if (!st) st = write_rows(s, taken, lineage, n_write);
    for (int32_t c = 0; taken && c < nc; c++) floe_array_release(taken[c]);
    floe_free(taken);
    floe_array_release(lineage[0]);
    floe_array_release(lineage[1]);
    return st;
}

/* The output: one row per finished file; a row-level change adds the
 * content of each (0 data, 1 position deletes) and a last row without a
 * file holding the rows the stream changed. */
static floe_status output_batch(write_stream *s, floe_batch **out) {
    const bool delta = s->p->delta != 0;
    const floe_ice_written_files *parts[2] = {&s->done, &s->delete_files};
    int64_t n = s->done.n + (delta ? s->delete_files.n + 1 : 0);
    floe_builder *b[6] = {0};
    floe_array *cols[6] = {0};
    static const floe_type_id ids[6] = {FLOE_TYPE_BINARY, FLOE_TYPE_STRING, FLOE_TYPE_INT64,
                                        FLOE_TYPE_INT64,  FLOE_TYPE_INT32,  FLOE_TYPE_INT64};
    int nc = delta ? 6 : 4;
    floe_status st = NULL;
    for (int c = 0; c < nc && !st; c++) st = floe_builder_new(floe_type_primitive(ids[c]), n, &b[c]);
    for (int k = 0; k < (delta ? 2 : 1) && !st; k++) {
        const floe_ice_written_files *f = parts[k];
        for (int32_t i = 0; i < f->n && !st; i++) {
            st = floe_builder_append_binary(b[0], f->records[i], (int64_t)f->lens[i]);
            if (!st) st = floe_builder_append_string(b[1], f->locations[i]);
            if (!st) st = floe_builder_append_int64(b[2], f->record_counts[i]);
            if (!st) st = floe_builder_append_int64(b[3], f->file_sizes[i]);
            if (!st && delta) st = floe_builder_append_int32(b[4], k);
            if (!st && delta) st = floe_builder_append_int64(b[5], 0);
        }
    }
    if (delta && !st) {
        st = floe_builder_append_null(b[0]);
        if (!st) st = floe_builder_append_null(b[1]);
        if (!st) st = floe_builder_append_int64(b[2], 0);
        if (!st) st = floe_builder_append_int64(b[3], 0);
        if (!st) st = floe_builder_append_null(b[4]);
        if (!st) st = floe_builder_append_int64(b[5], s->changed);
    }
    for (int c = 0; c < nc && !st; c++) st = floe_builder_finish(b[c], &cols[c]);
    if (!st) st = floe_batch_new(s->p->head.schema, cols, nc, n, out);
    for (int c = 0; c < nc; c++) {
        floe_builder_free(b[c]);
        floe_array_release(cols[c]);
    }
    return st;
}

/* Drain the child and write everything; then finish every writer. */
static floe_status write_all(write_stream *s) {
    floe_status st = NULL;
    for (;;) {
        floe_batch *b = NULL;
        st = floe_cancel_check(s->cancel, "IcebergWrite");
        if (!st) st = floe_stream_next(s->child, &b);
        if (st || !b) break;
        st = s->p->delta ? delta_batch(s, b) : write_batch(s, b);
        floe_batch_release(b);
        if (st) break;
    }
    if (st) return st;
    floe_stream_close(s->child);
    s->child = NULL;
    for (int64_t i = 0; i < s->n_entries && !st; i++) st = finish_entry(s, s->entries[i]);
    if (!st && s->p->delta) {
        char prefix[128];
        snprintf(prefix, sizeof prefix, "%05d-%s", s->partition, s->p->job_id);
        int64_t distinct = 0;
        bool unique = (s->p->delta & FLOE_DELTA_UNIQUE) != 0;
        st = floe_delta_deletes_write(&s->deletes, s->io, s->p->settings, prefix, &s->observer, unique,
                                      unique ? "UPDATE or MERGE" : "DELETE", s->p->format_version, s->p->old,
                                      s->p->n_old, &s->delete_files, &distinct);
        s->changed += distinct;
    }
    return st;
}

static floe_status write_next(floe_stream *s_, floe_batch **out) {
    write_stream *s = (write_stream *)s_;
    *out = NULL;
    if (s->finished) return NULL;
    s->finished = true;
    floe_status st = write_all(s);
    if (!st && (s->done.n > 0 || s->p->delta)) st = output_batch(s, out);
    if (st) {
        floe_batch_release(*out);
        *out = NULL;
        floe_stream_close(s->child);
        s->child = NULL;
        abandon_all(s);
        return floe_status_wrap_op(st, "IcebergWrite partition %d", s->partition);
    }
    /* The files now belong to whoever reads the output. */
    s->handed_out = true;
    return NULL;
}

static void write_close(floe_stream *s_) {
    write_stream *s = (write_stream *)s_;
    floe_stream_close(s->child);
    if (s->handed_out) {
        for (int64_t i = 0; i < s->n_entries; i++) entry_free(s->entries[i], s->p->n_part, false);
        floe_ice_written_files_free(&s->done);
        floe_ice_written_files_free(&s->delete_files);
    } else {
        abandon_all(s);
    }
    floe_delta_deletes_free(&s->deletes);
    floe_free(s->write_sel);
    floe_free(s->entries);
    floe_free(s->slots);
    floe_free(s->hashes);
    floe_free(s->row_group);
    floe_free(s->order);
    floe_free(s->group_start);
    floe_free(s->group_first);
    floe_free(s->group_last);
    floe_free(s->groups);
    floe_fileio_free(s->io);
    floe_free(s);
}

static floe_status write_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    const write_plan *p = (const write_plan *)p_;
    write_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening an IcebergWrite stream");
    s->base.next = write_next;
    s->base.close = write_close;
    s->p = p;
    s->partition = partition;
    s->cancel = ctx->cancel;
    s->target.location = p->location;
    s->target.format_version = p->format_version;
    s->target.schema = p->schema;
    s->target.spec = p->spec;
    s->target.sort_order_id = p->sort_order_id;
    s->target.properties = (const char *const *)p->props;
    s->target.n_properties = p->n_props;
    s->observer.created = job_file_created;
    s->observer.arg = p->job_id;
    floe_delta_deletes_init(&s->deletes);
    /* The job's failure cleanup deletes through the same FileIO settings. */
    floe_status st = floe_write_job_set_io(p->job_id, p->io_props, p->n_io_props);
    if (!st) st = floe_fileio_new(p->io_props, p->n_io_props, &s->io);
    if (!st) st = index_grow(s);
    if (!st) st = floe_plan_execute(p->head.children[0], partition, ctx, &s->child);
    if (st) {
        write_close(&s->base);
        return floe_status_wrap_op(st, "IcebergWrite partition %d", partition);
    }
    *out = &s->base;
    return NULL;
}

/* ------------------------------------------------------------- codec */

static floe_status write_encode(const floe_plan *p_, floe_buf *out) {
    const write_plan *p = (const write_plan *)p_;
    FLOE_TRY(floe_codec_put_str(out, p->location));
    FLOE_TRY(floe_codec_put_i64(out, p->format_version));
    FLOE_TRY(floe_codec_put_str(out, p->schema_json));
    FLOE_TRY(floe_codec_put_str(out, p->spec_json));
    FLOE_TRY(floe_codec_put_i64(out, p->sort_order_id));
    FLOE_TRY(floe_codec_put_i64(out, p->n_props));
    for (int32_t i = 0; i < 2 * p->n_props; i++) FLOE_TRY(floe_codec_put_str(out, p->props[i]));
    FLOE_TRY(floe_codec_put_str(out, p->job_id));
    FLOE_TRY(floe_exec_io_props_encode(out, p->io_props, p->n_io_props));
    FLOE_TRY(floe_codec_put_str(out, p->order_json ? p->order_json : ""));
    FLOE_TRY(floe_codec_put_i64(out, p->delta));
    FLOE_TRY(floe_codec_put_i64(out, p->n_old));
    for (int32_t i = 0; i < p->n_old; i++) {
        const floe_delta_old_delete *d = &p->old[i];
        FLOE_TRY(floe_codec_put_str(out, d->data_file));
        FLOE_TRY(floe_codec_put_str(out, d->location));
        FLOE_TRY(floe_codec_put_str(out, d->format));
        FLOE_TRY(floe_codec_put_i64(out, d->record_count));
        FLOE_TRY(floe_codec_put_i64(out, d->file_size));
        FLOE_TRY(floe_codec_put_i64(out, d->content_offset));
        FLOE_TRY(floe_codec_put_i64(out, d->content_size));
        FLOE_TRY(floe_codec_put_str(out, d->referenced_data_file ? d->referenced_data_file : ""));
    }
    return NULL;
}

static void old_deletes_free(floe_delta_old_delete *old, int32_t n) {
    for (int32_t i = 0; old && i < n; i++) {
        floe_free((char *)old[i].data_file);
        floe_free((char *)old[i].location);
        floe_free((char *)old[i].format);
        floe_free((char *)old[i].referenced_data_file);
    }
    floe_free(old);
}

/* The older deletes from an encoded node. */
static floe_status old_deletes_decode(floe_reader *r, floe_delta_old_delete **out, int32_t *n_out) {
    *out = NULL;
    *n_out = 0;
    int64_t n = 0;
    FLOE_TRY(floe_codec_get_i64(r, &n));
    if (n < 0 || n > (int64_t)(r->len - r->pos))
        return floe_error(FLOE_ERR_CORRUPT, "IcebergWrite: %lld older deletes", (long long)n);
    floe_delta_old_delete *old = floe_calloc((size_t)n + 1, sizeof *old);
    if (!old) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding IcebergWrite");
    floe_status st = NULL;
    int32_t got = 0;
    for (; !st && got < n; got++) {
        floe_delta_old_delete *d = &old[got];
        char *a = NULL, *b = NULL, *c = NULL, *e = NULL;
        st = floe_codec_get_str(r, &a);
        d->data_file = a;
        if (!st) st = floe_codec_get_str(r, &b);
        d->location = b;
        if (!st) st = floe_codec_get_str(r, &c);
        d->format = c;
        if (!st) st = floe_codec_get_i64(r, &d->record_count);
        if (!st) st = floe_codec_get_i64(r, &d->file_size);
        if (!st) st = floe_codec_get_i64(r, &d->content_offset);
        if (!st) st = floe_codec_get_i64(r, &d->content_size);
        if (!st) st = floe_codec_get_str(r, &e);
        if (e && !*e) {
            floe_free(e);
            e = NULL;
        }
        d->referenced_data_file = e;
        if (!st && (!d->data_file || !d->location || !d->format))
            st = floe_error(FLOE_ERR_CORRUPT, "IcebergWrite: an older delete without its files");
    }
    if (st) {
        old_deletes_free(old, got);
        return st;
    }
    *out = old;
    *n_out = (int32_t)n;
    return NULL;
}

static floe_status write_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "IcebergWrite with %d children", n_children);
    char *loc = NULL, *schema = NULL, *spec = NULL, *job = NULL, **props = NULL;
    int64_t fv = 0, so = 0, np = 0, got = 0;
    floe_property *io = NULL;
    size_t n_io = 0;
    floe_status st = floe_codec_get_str(r, &loc);
    if (!st) st = floe_codec_get_i64(r, &fv);
    if (!st) st = floe_codec_get_str(r, &schema);
    if (!st) st = floe_codec_get_str(r, &spec);
    if (!st) st = floe_codec_get_i64(r, &so);
    if (!st) st = floe_codec_get_i64(r, &np);
    if (!st && (fv < 0 || fv > INT32_MAX || so < INT32_MIN || so > INT32_MAX || np < 0 ||
                np > (int64_t)(r->len - r->pos)))
        st = floe_error(FLOE_ERR_CORRUPT, "IcebergWrite: format version %lld, sort order %lld, %lld properties",
                        (long long)fv, (long long)so, (long long)np);
    if (!st && !(props = floe_calloc((size_t)(2 * np + 1), sizeof *props)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding IcebergWrite");
    for (; !st && got < 2 * np; got++) {
        st = floe_codec_get_str(r, &props[got]);
        if (!st && !props[got]) st = floe_error(FLOE_ERR_CORRUPT, "IcebergWrite: a NULL property");
    }
    if (!st) st = floe_codec_get_str(r, &job);
    char *order = NULL;
    if (!st) st = floe_exec_io_props_decode(r, &io, &n_io);
    if (!st) st = floe_codec_get_str(r, &order);
    int64_t delta = 0;
    floe_delta_old_delete *old = NULL;
    int32_t n_old = 0;
    if (!st) st = floe_codec_get_i64(r, &delta);
    if (!st && (delta < 0 || delta > FLOE_DELTA_ALL))
        st = floe_error(FLOE_ERR_CORRUPT, "IcebergWrite: row-level flags %lld", (long long)delta);
    if (!st) st = old_deletes_decode(r, &old, &n_old);
    if (!st)
        st = floe_plan_iceberg_write_delta(children[0], loc, (int32_t)fv, schema, spec, (int32_t)so,
                                           (const char *const *)props, (int32_t)np, job, io, n_io, order,
                                           (int32_t)delta, old, n_old, out);
    old_deletes_free(old, n_old);
    floe_free(order);
    floe_exec_io_props_free(io, n_io);
    for (int64_t i = 0; props && i <= got && i < 2 * np; i++) floe_free(props[i]);
    floe_free(props);
    floe_free(loc);
    floe_free(schema);
    floe_free(spec);
    floe_free(job);
    return st;
}

static floe_status write_explain(const floe_plan *p_, floe_buf *out) {
    const write_plan *p = (const write_plan *)p_;
    FLOE_TRY(floe_buf_printf(out, "location=%s, mode=%s, spec=[", p->location, p->fanout ? "fanout" : "clustered"));
    for (int32_t j = 0; j < p->spec->n_fields; j++) {
        char tb[80];
        const floe_ice_partition_field *f = &p->spec->fields[j];
        FLOE_TRY(floe_buf_printf(out, "%s%s(%d)", j ? ", " : "",
                                 floe_ice_transform_format(&f->transform, tb, sizeof tb), f->source_id));
    }
    FLOE_TRY(floe_buf_printf(out, "], job=%s", p->job_id));
    if (p->delta)
        FLOE_TRY(floe_buf_printf(out, ", row-level=%s%s", (p->delta & FLOE_DELTA_DELETES) ? "position-deletes" : "rewrite",
                                 (p->delta & FLOE_DELTA_UNIQUE) ? " unique" : ""));
    return floe_exec_io_props_explain(out, p->io_props, p->n_io_props);
}

static floe_distribution write_required_input(const floe_plan *p_, int32_t child) {
    const write_plan *p = (const write_plan *)p_;
    (void)child;
    floe_distribution d = {FLOE_DIST_UNSPECIFIED, 0, NULL};
    if (p->delta & FLOE_DELTA_DELETES) {
        /* Every position of a data file to one writer: its one delete file. */
        d.kind = FLOE_DIST_HASH;
        d.n_exprs = 1;
        d.exprs = (floe_expr **)&p->file_expr;
        return d;
    }
    floe_ice_distribution_mode mode = floe_ice_write_settings_distribution(p->settings);
    if (mode == FLOE_ICE_DIST_NONE) return d;
    if (p->partitioned) {
        /* hash, or range served as hash + a sort */
        d.kind = FLOE_DIST_HASH;
        d.n_exprs = p->n_part;
        d.exprs = p->part_exprs;
    } else if (mode == FLOE_ICE_DIST_HASH) {
        d.kind = FLOE_DIST_HASH; /* no expressions: round robin */
    }
    return d;
}

static int32_t write_required_ordering(const floe_plan *p_, int32_t child, const floe_sort_key **keys) {
    const write_plan *p = (const write_plan *)p_;
    (void)child;
    if (p->n_sort > 0) {
        /* Sorted files: partition keys first (clustered writers need them,
         * and the order then holds within each file), then the order. */
        *keys = p->partitioned ? p->part_order : p->part_order + p->n_part;
        return (p->partitioned ? p->n_part : 0) + p->n_sort;
    }
    if (p->fanout || !p->partitioned) return 0;
    *keys = p->part_order;
    return p->n_part;
}

static void write_free(floe_plan *p_) {
    write_plan *p = (write_plan *)p_;
    floe_free(p->location);
    floe_free(p->schema_json);
    floe_free(p->spec_json);
    floe_free(p->job_id);
    for (int32_t i = 0; p->props && i < 2 * p->n_props; i++) floe_free(p->props[i]);
    floe_free(p->props);
    floe_exec_io_props_free(p->io_props, p->n_io_props);
    floe_ice_schema_free(p->schema);
    floe_ice_partition_spec_free(p->spec);
    floe_ice_type_free(p->ptype);
    floe_type_release(p->write_schema);
    floe_ice_write_settings_free(p->settings);
    for (int32_t j = 0; p->part_exprs && j < p->n_part; j++) floe_expr_release(p->part_exprs[j]);
    floe_free(p->part_exprs);
    floe_free(p->part_order);
    for (int32_t j = 0; p->sort_exprs && j < p->n_sort; j++) floe_expr_release(p->sort_exprs[j]);
    floe_free(p->sort_exprs);
    floe_free(p->order_json);
    floe_expr_release(p->file_expr);
    old_deletes_free(p->old, p->n_old);
    floe_ice_schema_free(p->file_schema);
    floe_type_release(p->file_write_schema);
}

const floe_plan_vtable floe_iceberg_write_vt = {
    .name = "IcebergWrite",
    .execute = write_execute,
    .encode_parts = write_encode,
    .decode_parts = write_decode,
    .explain_parts = write_explain,
    .required_input = write_required_input,
    .free_parts = write_free,
    .required_ordering = write_required_ordering,
    .child_read = floe_exec_child_read_local,
    .flags = FLOE_NODE_WRITES_FILES,
};

/* ------------------------------------------------------- constructor */

static floe_status output_schema(bool delta, floe_schema **out) {
    static const char *const names[] = {"data_file", "location", "record_count", "file_size", "content", "changed"};
    static const floe_type_id ids[] = {FLOE_TYPE_BINARY, FLOE_TYPE_STRING, FLOE_TYPE_INT64,
                                       FLOE_TYPE_INT64,  FLOE_TYPE_INT32,  FLOE_TYPE_INT64};
    floe_field f[6];
    int32_t made = 0, n = delta ? 6 : 4;
    floe_status st = NULL;
    for (; made < n; made++) {
        /* A row-level change's last row has no file. */
        bool nullable = delta && (made <= 1 || made == 4);
        st = floe_field_init(&f[made], names[made], floe_type_primitive(ids[made]), nullable, -1);
        if (st) break;
    }
    if (!st) st = floe_type_struct(f, n, out);
    for (int32_t i = 0; i < made; i++) floe_field_clear(&f[i]);
    return st;
}

/* The child's columns: data columns of the write schema's types, then
 * the partition values as the partition type says. */
static floe_status check_input(write_plan *p, const floe_schema *in) {
    int32_t n = floe_schema_num_fields(in) - p->n_prefix;
    if (p->n_prefix && n == 0) {
        /* DELETE: positions and lineage only, no rows to write. */
        if (!(p->delta & FLOE_DELTA_DELETES))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergWrite into %s: a row-level input without rows "
                              "must delete", p->location);
        p->no_rows = true;
        n = p->n_data + p->n_part; /* the prefix is checked below */
        for (int32_t i = 0; i < FLOE_DELTA_PREFIX; i++) {
            const floe_field *f = floe_schema_field(in, i);
            static const floe_type_id want[FLOE_DELTA_PREFIX] = {FLOE_TYPE_STRING, FLOE_TYPE_INT64, FLOE_TYPE_INT32,
                                                                 FLOE_TYPE_INT64, FLOE_TYPE_INT64};
            if (f->type->id != want[i] && !(i >= 3 && f->type->id == FLOE_TYPE_NULL))
                return floe_error(FLOE_ERR_TYPE, "IcebergWrite into %s: row-level input column %d ('%s') is %s, "
                                  "expected %s", p->location, i, f->name, floe_type_id_name(f->type->id),
                                  floe_type_id_name(want[i]));
        }
        return NULL;
    }
    if (n != p->n_data + p->n_part)
        return floe_error(FLOE_ERR_TYPE,
                          "IcebergWrite into %s: the input has %d columns, expected %s%d table columns and %d "
                          "partition values",
                          p->location, n + p->n_prefix, p->n_prefix ? "the 5 row-level columns, " : "", p->n_data,
                          p->n_part);
    static const floe_type_id prefix_types[FLOE_DELTA_PREFIX] = {FLOE_TYPE_STRING, FLOE_TYPE_INT64, FLOE_TYPE_INT32,
                                                                 FLOE_TYPE_INT64, FLOE_TYPE_INT64};
    for (int32_t i = 0; i < p->n_prefix; i++) {
        const floe_field *f = floe_schema_field(in, i);
        if (f->type->id != prefix_types[i] && f->type->id != FLOE_TYPE_NULL)
            return floe_error(FLOE_ERR_TYPE, "IcebergWrite into %s: row-level input column %d ('%s') is %s, expected %s",
                              p->location, i, f->name, floe_type_id_name(f->type->id),
                              floe_type_id_name(prefix_types[i]));
    }
    for (int32_t i = 0; i < n; i++) {
        const floe_field *f = floe_schema_field(in, p->n_prefix + i);
        floe_type *want = NULL;
        bool ok;
        if (i < p->n_data) {
            want = floe_type_retain(floe_schema_field(p->write_schema, i)->type);
            /* Nested columns get the table's field ids from the writer. */
            ok = floe_type_equals(f->type, want) ||
                 (floe_type_is_nested(want) && floe_type_compatible(f->type, want));
        } else {
            const floe_ice_type *pt = p->ptype->fields[i - p->n_data].type;
            FLOE_TRY(floe_ice_type_to_columnar(pt, &want));
            ok = floe_type_equals(f->type, want) || f->type->id == FLOE_TYPE_NULL ||
                 (pt->id == FLOE_ICE_DATE && f->type->id == FLOE_TYPE_INT32); /* day as int */
        }
        if (!ok) {
            floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
            floe_status st = floe_type_to_string(f->type, &a);
            if (!st) st = floe_type_to_string(want, &b);
            if (!st)
                st = floe_error(FLOE_ERR_TYPE, "IcebergWrite into %s: input column %d ('%s') is %s, expected %s",
                                p->location, i, f->name, floe_buf_cstr(&a), floe_buf_cstr(&b));
            floe_buf_free(&a);
            floe_buf_free(&b);
            floe_type_release(want);
            return st;
        }
        floe_type_release(want);
    }
    return NULL;
}

static floe_status parse_budget(write_plan *p) {
    p->memory_budget = FANOUT_MEMORY_DEFAULT;
    for (int32_t i = 0; i < p->n_props; i++) {
        if (strcmp(p->props[2 * i], FANOUT_MEMORY_PROP) != 0) continue;
        const char *v = p->props[2 * i + 1];
        char *end = NULL;
        errno = 0;
        long long x = strtoll(v, &end, 10);
        if (errno || end == v || *end || x < 0)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "table property %s: bad value '%s'", FANOUT_MEMORY_PROP, v);
        p->memory_budget = x;
    }
    return NULL;
}

/* The writers' settings; files record `order`'s id (none: 0, unsorted). */
static floe_status make_settings(write_plan *p, const floe_ice_sort_order *order) {
    floe_ice_write_target t = {0};
    t.location = p->location;
    t.format_version = p->format_version;
    t.schema = p->lineage ? p->file_schema : p->schema;
    t.spec = p->spec;
    t.sort_order_id = order ? order->order_id : 0;
    t.sort_order = order;
    t.properties = (const char *const *)p->props;
    t.n_properties = p->n_props;
    floe_ice_write_settings *s = NULL;
    FLOE_TRY(floe_ice_write_settings_new(&t, &s));
    floe_ice_write_settings_free(p->settings);
    p->settings = s;
    return NULL;
}

/* The key computing sort field `f` from the input's data columns, or
 * NULL (no error) when the node cannot compute it: a nested or
 * multi-column source, or a transform floe does not know. */
static floe_status sort_key_expr(const write_plan *p, const floe_ice_sort_field *f, floe_expr **out) {
    *out = NULL;
    if (f->n_source_ids != 1 || f->transform.kind == FLOE_ICE_TRANSFORM_UNKNOWN) return NULL;
    int32_t col = -1;
    for (int32_t i = 0; i < p->schema->root->n_fields; i++)
        if (p->schema->root->fields[i].id == f->source_id) col = i;
    if (col < 0 || col >= p->n_data) return NULL;
    floe_expr *c = NULL;
    FLOE_TRY(floe_expr_column(p->n_prefix + col, &c));
    if (f->transform.kind == FLOE_ICE_TRANSFORM_IDENTITY) {
        *out = c;
        return NULL;
    }
    char text[FLOE_ICE_TRANSFORM_NAME_MAX + 16];
    floe_ice_transform_format(&f->transform, text, sizeof text);
    floe_expr *lit = NULL;
    floe_status st = floe_expr_lit_string(text, &lit);
    floe_expr *args[2] = {lit, c};
    if (!st) st = floe_expr_call("iceberg_transform", args, 2, out);
    floe_expr_release(lit);
    floe_expr_release(c);
    if (st && floe_status_code(st) != FLOE_ERR_OUT_OF_MEMORY) { /* not computable: no sort claimed */
        floe_status_free(st);
        st = NULL;
        *out = NULL;
    }
    return st;
}

/* The table's sort order, applied by the constructor. */
static floe_status apply_sort_order(write_plan *p, const char *order_json) {
    for (int32_t j = 0; p->sort_exprs && j < p->n_sort; j++) floe_expr_release(p->sort_exprs[j]);
    floe_free(p->sort_exprs);
    p->sort_exprs = NULL;
    p->n_sort = 0;
    floe_free(p->order_json);
    p->order_json = NULL;
    if (!order_json || !*order_json) return make_settings(p, NULL);
    floe_ice_sort_order *o = NULL;
    FLOE_TRY_CTX(floe_ice_sort_order_from_json_text(order_json, &o), "IcebergWrite: sort order");
    int32_t n = o->n_fields;
    floe_expr **exprs = floe_calloc(n ? (size_t)n : 1, sizeof *exprs);
    floe_sort_key *keys = floe_realloc(p->part_order, ((size_t)p->n_part + (size_t)n + 1) * sizeof *keys);
    floe_status st = exprs && keys ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergWrite: sort order");
    if (keys) p->part_order = keys;
    bool all = n > 0;
    for (int32_t i = 0; !st && all && i < n; i++) {
        st = sort_key_expr(p, &o->fields[i], &exprs[i]);
        if (!st && !exprs[i]) all = false;
    }
    if (!st) st = floe_status_wrap(make_settings(p, all ? o : NULL), "IcebergWrite: sort order");
    if (!st) p->order_json = floe_strdup(order_json);
    if (!st && !p->order_json) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergWrite: sort order");
    if (!st && all) {
        for (int32_t i = 0; i < n; i++) {
            floe_sort_key *k = &p->part_order[p->n_part + i];
            k->expr = exprs[i];
            k->descending = o->fields[i].direction == FLOE_ICE_DESC;
            k->nulls_first = o->fields[i].null_order == FLOE_ICE_NULLS_FIRST;
        }
        p->sort_exprs = exprs;
        p->n_sort = n;
        exprs = NULL;
    }
    for (int32_t i = 0; exprs && i < n; i++) floe_expr_release(exprs[i]);
    floe_free(exprs);
    floe_ice_sort_order_free(o);
    return st;
}

/* How a row-level change is spread over the writers: by _file, so each
 * data file's deletes meet in one writer.  Rows without a file (MERGE's
 * inserts) would all go to the writer of NULL: they are spread by their
 * first column instead — coalesce(_file, CAST(<first column> AS text)) —
 * when that is a plain value. */
static floe_status delta_distribution(const write_plan *p, const floe_schema *in, floe_expr **out) {
    floe_expr *file = NULL, *first = NULL, *txt = NULL;
    FLOE_TRY(floe_expr_column(0, &file));
    if (p->no_rows || p->n_data == 0) {
        *out = file;
        return NULL;
    }
    const floe_type *t = floe_schema_field(in, p->n_prefix)->type;
    if (floe_type_is_nested(t) || t->id == FLOE_TYPE_VARIANT || t->id == FLOE_TYPE_NULL) {
        *out = file;
        return NULL;
    }
    floe_status st = floe_expr_column(p->n_prefix, &first);
    if (!st && t->id != FLOE_TYPE_STRING) st = floe_expr_cast(first, floe_type_primitive(FLOE_TYPE_STRING), &txt);
    else if (!st) txt = floe_expr_retain(first);
    floe_expr *args[2] = {file, txt};
    if (!st) st = floe_expr_coalesce(args, 2, out);
    floe_expr_release(file);
    floe_expr_release(first);
    floe_expr_release(txt);
    return st;
}

/* Row lineage (v3): the table schema with _row_id and
 * _last_updated_sequence_number after its columns, as the data files of a
 * row-level change carry them. */
static floe_status lineage_schema(write_plan *p) {
    json_error_t err;
    json_t *j = json_loads(p->schema_json, 0, &err), *fields = j ? json_object_get(j, "fields") : NULL;
    floe_status st = fields && json_is_array(fields) ? NULL : floe_error(FLOE_ERR_CORRUPT, "IcebergWrite: schema");
    static const struct {
        int64_t id;
        const char *name;
    } extra[2] = {{2147483540, "_row_id"}, {2147483539, "_last_updated_sequence_number"}};
    for (int i = 0; !st && i < 2; i++) {
        json_t *f = json_pack("{s:I,s:s,s:b,s:s}", "id", (json_int_t)extra[i].id, "name", extra[i].name, "required", 0,
                              "type", "long");
        if (!f || json_array_append_new(fields, f) != 0) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergWrite");
    }
    char *text = st ? NULL : json_dumps(j, JSON_COMPACT);
    if (!st && !text) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergWrite");
    if (!st) st = floe_status_wrap(floe_ice_schema_from_json_text(text, &p->file_schema), "IcebergWrite: lineage");
    if (!st) st = floe_ice_write_schema(p->file_schema, &p->file_write_schema);
    free(text);
    json_decref(j);
    return st;
}

/* Everything derived from the parts. */
static floe_status derive(write_plan *p, const floe_plan *child) {
    FLOE_TRY_CTX(floe_ice_schema_from_json_text(p->schema_json, &p->schema), "IcebergWrite: table schema");
    FLOE_TRY_CTX(floe_ice_partition_spec_from_json_text(p->spec_json, &p->spec), "IcebergWrite: partition spec");
    FLOE_TRY_CTX(floe_ice_partition_spec_partition_type(p->spec, p->schema, false, &p->ptype),
                 "IcebergWrite: partition spec");
    FLOE_TRY(floe_ice_write_schema(p->schema, &p->write_schema));
    p->n_data = floe_schema_num_fields(p->write_schema);
    p->n_part = p->spec->n_fields;
    p->partitioned = !floe_ice_partition_spec_is_unpartitioned(p->spec);
    /* v3 row-level changes keep the lineage of the rows they write. */
    p->lineage = p->delta && p->format_version >= 3 && floe_schema_num_fields(child->schema) > p->n_prefix;
    if (p->lineage) FLOE_TRY(lineage_schema(p));
    FLOE_TRY(make_settings(p, NULL));
    /* A row-level change's new rows arrive in data file order: any
     * partition at any time, so one writer per partition (fanout). */
    p->fanout = floe_ice_write_settings_fanout(p->settings) || (p->delta & FLOE_DELTA_DELETES);
    FLOE_TRY(parse_budget(p));
    FLOE_TRY(check_input(p, child->schema));
    if (p->delta) FLOE_TRY(delta_distribution(p, child->schema, &p->file_expr));
    int32_t np = p->n_part;
    p->part_exprs = floe_calloc((size_t)(np ? np : 1), sizeof *p->part_exprs);
    p->part_order = floe_calloc((size_t)(np ? np : 1), sizeof *p->part_order);
    if (!p->part_exprs || !p->part_order) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergWrite node");
    for (int32_t j = 0; j < np; j++) {
        FLOE_TRY(floe_expr_column(p->n_prefix + p->n_data + j, &p->part_exprs[j]));
        p->part_order[j].expr = p->part_exprs[j];
        p->part_order[j].descending = false;
        p->part_order[j].nulls_first = true;
    }
    return NULL;
}

floe_status floe_plan_iceberg_write(floe_plan *child, const char *location, int32_t format_version,
                                    const char *schema_json, const char *spec_json, int32_t sort_order_id,
                                    const char *const *properties, int32_t n_properties, const char *job_id,
                                    floe_plan **out) {
    return floe_plan_iceberg_write_io(child, location, format_version, schema_json, spec_json, sort_order_id,
                                      properties, n_properties, job_id, NULL, 0, NULL, out);
}

floe_status floe_plan_iceberg_write_io(floe_plan *child, const char *location, int32_t format_version,
                                       const char *schema_json, const char *spec_json, int32_t sort_order_id,
                                       const char *const *properties, int32_t n_properties, const char *job_id,
                                       const floe_property *io_props, size_t n_io_props, const char *order_json,
                                       floe_plan **out) {
    return floe_plan_iceberg_write_delta(child, location, format_version, schema_json, spec_json, sort_order_id,
                                         properties, n_properties, job_id, io_props, n_io_props, order_json, 0, NULL,
                                         0, out);
}

static int cmp_old_delete(const void *a, const void *b) {
    const floe_delta_old_delete *x = a, *y = b;
    int c = strcmp(x->data_file, y->data_file);
    return c ? c : strcmp(x->location, y->location);
}

/* Own sorted copies of the older deletes. */
static floe_status copy_old_deletes(write_plan *p, const floe_delta_old_delete *old, int32_t n) {
    if (n < 0 || (n > 0 && !old)) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergWrite: older deletes");
    p->old = floe_calloc((size_t)n + 1, sizeof *p->old);
    if (!p->old) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergWrite node");
    for (int32_t i = 0; i < n; i++) {
        const floe_delta_old_delete *d = &old[i];
        floe_delta_old_delete *c = &p->old[i];
        p->n_old = i + 1;
        *c = *d;
        c->data_file = d->data_file ? floe_strdup(d->data_file) : NULL;
        c->location = d->location ? floe_strdup(d->location) : NULL;
        c->format = d->format ? floe_strdup(d->format) : NULL;
        c->referenced_data_file = d->referenced_data_file ? floe_strdup(d->referenced_data_file) : NULL;
        if (!c->data_file || !c->location || !c->format || (d->referenced_data_file && !c->referenced_data_file))
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergWrite node");
    }
    if (n > 1) qsort(p->old, (size_t)n, sizeof *p->old, cmp_old_delete);
    return NULL;
}

floe_status floe_plan_iceberg_write_delta(floe_plan *child, const char *location, int32_t format_version,
                                          const char *schema_json, const char *spec_json, int32_t sort_order_id,
                                          const char *const *properties, int32_t n_properties, const char *job_id,
                                          const floe_property *io_props, size_t n_io_props, const char *order_json,
                                          int32_t delta, const floe_delta_old_delete *old_deletes,
                                          int32_t n_old_deletes, floe_plan **out) {
    *out = NULL;
    if (delta < 0 || delta > FLOE_DELTA_ALL || (delta && !(delta & FLOE_DELTA_ROWS)))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergWrite: row-level flags %d", (int)delta);
    if (!child || !location || !schema_json || !spec_json || !job_id || n_properties < 0 ||
        (n_properties > 0 && !properties))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergWrite: missing child, location, schema, spec or job id");
    for (int32_t i = 0; i < 2 * n_properties; i++)
        if (!properties[i]) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergWrite: property %d is NULL", i / 2);
    floe_schema *schema = NULL;
    FLOE_TRY(output_schema(delta != 0, &schema));
    write_plan *p = floe_calloc(1, sizeof *p);
    if (!p) {
        floe_type_release(schema);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergWrite node");
    }
    floe_status st = floe_exec_plan_init(&p->head, &floe_iceberg_write_vt, schema, child->n_partitions, &child, 1);
    floe_type_release(schema);
    if (!st) {
        p->location = floe_strdup(location);
        p->schema_json = floe_strdup(schema_json);
        p->spec_json = floe_strdup(spec_json);
        p->job_id = floe_strdup(job_id);
        p->format_version = format_version;
        p->sort_order_id = sort_order_id;
        p->delta = delta;
        p->n_prefix = delta ? FLOE_DELTA_PREFIX : 0;
        p->props = floe_calloc((size_t)(2 * n_properties + 1), sizeof *p->props);
        if (!p->location || !p->schema_json || !p->spec_json || !p->job_id || !p->props)
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergWrite node");
        if (!st) p->n_props = n_properties; /* the zeroed array frees safely when a copy fails */
        for (int32_t i = 0; !st && i < 2 * n_properties; i++)
            if (!(p->props[i] = floe_strdup(properties[i])))
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergWrite node");
        if (!st) st = floe_status_wrap(floe_exec_io_props_copy(io_props, n_io_props, &p->io_props), "IcebergWrite");
        if (!st) p->n_io_props = n_io_props;
    }
    if (!st) st = copy_old_deletes(p, old_deletes, n_old_deletes);
    if (!st) st = derive(p, child);
    /* A row-level change writing deletes gets its rows in data file order,
     * not the table's: its new files claim no sort order. */
    if (!st && order_json && *order_json && !(delta & FLOE_DELTA_DELETES)) st = apply_sort_order(p, order_json);
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

const char *floe_iceberg_write_location(const floe_plan *p) { return ((const write_plan *)p)->location; }
int32_t floe_iceberg_write_format_version(const floe_plan *p) { return ((const write_plan *)p)->format_version; }
const char *floe_iceberg_write_schema_json(const floe_plan *p) { return ((const write_plan *)p)->schema_json; }
const char *floe_iceberg_write_spec_json(const floe_plan *p) { return ((const write_plan *)p)->spec_json; }
int32_t floe_iceberg_write_sort_order_id(const floe_plan *p) { return ((const write_plan *)p)->sort_order_id; }
int32_t floe_iceberg_write_num_properties(const floe_plan *p) { return ((const write_plan *)p)->n_props; }
const char *const *floe_iceberg_write_properties(const floe_plan *p) {
    return (const char *const *)((const write_plan *)p)->props;
}
const char *floe_iceberg_write_job_id(const floe_plan *p) { return ((const write_plan *)p)->job_id; }
int32_t floe_iceberg_write_delta_flags(const floe_plan *p) { return ((const write_plan *)p)->delta; }
const floe_property *floe_iceberg_write_io_properties(const floe_plan *p, size_t *n) {
    *n = ((const write_plan *)p)->n_io_props;
    return ((const write_plan *)p)->io_props;
}

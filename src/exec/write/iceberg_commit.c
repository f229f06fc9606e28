/*
 * iceberg_commit.c — the IcebergCommit node (exec_write.h): the one place
 * a write statement becomes visible.  It drains its single-partition child
 * (a Coalesce over the IcebergWrite partitions), collects the Avro
 * data_file records, and commits them all in one snapshot through the
 * SQLite catalog (append, or dynamic partition replacement), retrying on
 * concurrent commits inside the catalog call.
 *
 * All or nothing: on any failure — the input's error, cancellation, the
 * commit — the child stream is closed first (so no writer keeps creating
 * files), then every file the job's writers created in this process is
 * deleted (floe_write_job_abort) and so is every file whose record
 * arrived (those may come from other processes), and the error returned.
 * A cancelled statement never reaches the commit.  Deletions go through a
 * FileIO made from the table's FileIO properties, which are parts of the
 * node (EXPLAIN shows them redacted).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/io_props.h"
#include "exec/plan_internal.h"
#include "floe/catalog.h"
#include "floe/exec_write.h"
#include "floe/fileio.h"
#include "floe/iceberg_expr.h"

typedef struct commit_plan {
    floe_plan head;
    char *catalog_uri, *ns, *name, *job_id;
    floe_commit_kind kind;
    int64_t base_snapshot_id;
    int32_t max_retries;
    floe_property *io_props; /* the table's FileIO properties (none: environment) */
    size_t n_io_props;
    /* FLOE_COMMIT_ROW_DELTA */
    floe_isolation_level isolation;
    char *conflict_filter;   /* Iceberg expression JSON; NULL: the whole table */
    char **removed;          /* data files removed whole (copy-on-write) */
    int32_t n_removed;
    char *wap_id;            /* APPEND: stage under this wap.id (NULL: commit) */
    bool replace;            /* ROW_DELTA: operation "replace" (compaction) */
    char *branch;            /* APPEND, ROW_DELTA: commit to this branch (NULL: main) */
} commit_plan;

/* The data files received so far: the batches are kept and the records
 * point into them. */
typedef struct received {
    floe_batch **batches;
    int64_t n_batches, cap_batches;
    int64_t n_files, rows;
    int64_t n_deletes;       /* row delta: delete files among n_files */
    int64_t changed;         /* row delta: the rows the statement changed */
} received;

typedef struct commit_stream {
    floe_stream base;
    const commit_plan *p;
    floe_stream *child;
    const floe_cancel *cancel;
    bool done;
} commit_stream;

static const char *const input_names[] = {"data_file", "location", "record_count", "file_size", "content", "changed"};
static const floe_type_id input_types[] = {FLOE_TYPE_BINARY, FLOE_TYPE_STRING, FLOE_TYPE_INT64,
                                           FLOE_TYPE_INT64,  FLOE_TYPE_INT32,  FLOE_TYPE_INT64};

static void received_free(received *r) {
    for (int64_t i = 0; i < r->n_batches; i++) floe_batch_release(r->batches[i]);
    floe_free(r->batches);
    memset(r, 0, sizeof *r);
}

static floe_status received_add(received *r, floe_batch *b) {
    if (r->n_batches == r->cap_batches) {
        int64_t cap = r->cap_batches ? r->cap_batches * 2 : 16;
        floe_batch **g = floe_realloc(r->batches, (size_t)cap * sizeof *g);
        if (!g) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergCommit: collecting data files");
        r->batches = g;
        r->cap_batches = cap;
    }
    r->batches[r->n_batches++] = floe_batch_retain(b);
    const floe_array *data = b->columns[0], *counts = b->columns[2];
    bool delta = b->num_columns == 6;
    for (int64_t i = 0; i < b->num_rows; i++) {
        if (delta && floe_array_is_null(data, i)) { /* a writer's count of changed rows */
            r->changed += floe_array_is_null(b->columns[5], i) ? 0 : floe_array_get_int64(b->columns[5], i);
            continue;
        }
        if (floe_array_is_null(data, i) || floe_array_is_null(b->columns[1], i))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergCommit: a data_file row without a record");
        r->rows += floe_array_is_null(counts, i) ? 0 : floe_array_get_int64(counts, i);
        r->n_files++;
        if (delta && !floe_array_is_null(b->columns[4], i) && floe_array_get_int32(b->columns[4], i) != 0)
            r->n_deletes++;
    }
    return NULL;
}

/* Delete every received location (best effort: the statement failed). */
static void delete_received(const commit_plan *p, const received *r) {
    floe_fileio *io = NULL;
    floe_status st = floe_fileio_new(p->io_props, p->n_io_props, &io);
    if (st) {
        floe_status_free(st);
        return;
    }
    char *path = NULL;
    for (int64_t k = 0; k < r->n_batches; k++) {
        const floe_array *loc = r->batches[k]->columns[1];
        for (int64_t i = 0; i < loc->length; i++) {
            if (floe_array_is_null(loc, i)) continue;
            floe_strview v = floe_array_get_str(loc, i);
            path = floe_strndup(v.data, (size_t)v.len);
            if (!path) continue;
            floe_status_free(floe_fileio_delete(io, path));
            floe_free(path);
        }
    }
    floe_fileio_free(io);
}

/* A row delta: the records split by content, committed with the
 * validations of floe_catalog_row_delta. */
static floe_status commit_delta(const commit_plan *p, const received *r, const floe_cancel *cancel,
                                int64_t *snapshot_id) {
    int64_t nd = r->n_files - r->n_deletes, nx = r->n_deletes;
    if (r->n_files > INT32_MAX)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergCommit: %lld files in one commit", (long long)r->n_files);
    const uint8_t **drecs = floe_malloc((size_t)(nd + 1) * sizeof *drecs);
    const uint8_t **xrecs = floe_malloc((size_t)(nx + 1) * sizeof *xrecs);
    size_t *dlens = floe_malloc((size_t)(nd + 1) * sizeof *dlens);
    size_t *xlens = floe_malloc((size_t)(nx + 1) * sizeof *xlens);
    floe_ice_expr *filter = NULL;
    floe_catalog *cat = NULL;
    floe_status st = drecs && xrecs && dlens && xlens ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergCommit");
    int64_t kd = 0, kx = 0;
    for (int64_t b = 0; !st && b < r->n_batches; b++) {
        const floe_batch *batch = r->batches[b];
        for (int64_t i = 0; i < batch->num_rows; i++) {
            if (floe_array_is_null(batch->columns[0], i)) continue;
            floe_strview v = floe_array_get_str(batch->columns[0], i);
            bool del = !floe_array_is_null(batch->columns[4], i) && floe_array_get_int32(batch->columns[4], i) != 0;
            if (del) {
                xrecs[kx] = (const uint8_t *)v.data;
                xlens[kx++] = (size_t)v.len;
            } else {
                drecs[kd] = (const uint8_t *)v.data;
                dlens[kd++] = (size_t)v.len;
            }
        }
    }
    if (!st && p->conflict_filter) st = floe_ice_expr_from_json_text(p->conflict_filter, &filter);
    if (!st) st = floe_catalog_open_uri(p->catalog_uri, &cat);
    if (!st) st = floe_cancel_check(cancel, "IcebergCommit");
    if (!st) {
        floe_row_delta d;
        memset(&d, 0, sizeof d);
        d.data_files = drecs;
        d.data_lens = dlens;
        d.n_data = (int32_t)kd;
        d.delete_files = xrecs;
        d.delete_lens = xlens;
        d.n_deletes = (int32_t)kx;
        d.removed_paths = (const char *const *)p->removed;
        d.n_removed = p->n_removed;
        d.base_snapshot_id = p->base_snapshot_id;
        d.conflict_filter = filter;
        d.isolation = p->isolation;
        d.operation = p->replace ? "replace" : NULL;
        d.branch = p->branch;
        const char *summary[2] = {"floe.job-id", p->job_id};
        st = floe_catalog_row_delta(cat, p->ns, p->name, &d, summary, 1, p->max_retries, snapshot_id);
    }
    floe_catalog_close(cat);
    floe_ice_expr_free(filter);
    floe_free(drecs);
    floe_free(xrecs);
    floe_free(dlens);
    floe_free(xlens);
    if (st && floe_status_code(st) == FLOE_ERR_CONFLICT)
        st = floe_status_wrap(st, "conflict with a concurrent commit; nothing was committed");
    return floe_status_wrap(st, "IcebergCommit of %s.%s", p->ns, p->name);
}

/* Commit the received files; *snapshot_id -1 when there were none. */
static floe_status do_commit(const commit_plan *p, const received *r, const floe_cancel *cancel,
                             int64_t *snapshot_id) {
    *snapshot_id = -1;
    FLOE_TRY(floe_cancel_check(cancel, "IcebergCommit"));
    if (p->kind == FLOE_COMMIT_ROW_DELTA) {
        if (r->n_files == 0 && p->n_removed == 0) return NULL;
        return commit_delta(p, r, cancel, snapshot_id);
    }
    if (r->n_files == 0) return NULL;
    if (r->n_files > INT32_MAX)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergCommit: %lld data files in one commit",
                          (long long)r->n_files);
    const uint8_t **recs = floe_malloc((size_t)r->n_files * sizeof *recs);
    size_t *lens = floe_malloc((size_t)r->n_files * sizeof *lens);
    floe_catalog *cat = NULL;
    floe_status st = NULL;
    if (!recs || !lens) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergCommit: %lld records", (long long)r->n_files);
    int64_t k = 0;
    for (int64_t b = 0; !st && b < r->n_batches; b++) {
        const floe_array *data = r->batches[b]->columns[0];
        for (int64_t i = 0; i < data->length; i++, k++) {
            floe_strview v = floe_array_get_str(data, i);
            recs[k] = (const uint8_t *)v.data;
            lens[k] = (size_t)v.len;
        }
    }
    if (!st) st = floe_catalog_open_uri(p->catalog_uri, &cat);
    /* Checked again right before the commit: cancellation while the
     * catalog opened must not commit either. */
    if (!st) st = floe_cancel_check(cancel, "IcebergCommit");
    const char *summary[4] = {"floe.job-id", p->job_id, "wap.id", p->wap_id};
    if (!st && p->kind == FLOE_COMMIT_APPEND)
        st = floe_catalog_append_branch(cat, p->ns, p->name, p->branch, recs, lens, (int32_t)r->n_files, summary,
                                        p->wap_id ? 2 : 1, p->max_retries, snapshot_id);
    else if (!st)
        st = floe_catalog_replace_partitions_branch(cat, p->ns, p->name, p->branch, recs, lens, (int32_t)r->n_files,
                                                    p->base_snapshot_id, summary, 1, p->max_retries, snapshot_id);
    floe_catalog_close(cat);
    floe_free(recs);
    floe_free(lens);
    return floe_status_wrap(st, "IcebergCommit of %s.%s", p->ns, p->name);
}

static floe_status result_batch(const commit_plan *p, const received *r, int64_t snapshot_id, floe_batch **out) {
    floe_array *cols[3] = {0};
    floe_status st = NULL;
    int64_t vals[3] = {p->kind == FLOE_COMMIT_ROW_DELTA ? r->changed : r->rows, r->n_files, snapshot_id};
    for (int c = 0; c < 3 && !st; c++) {
        floe_builder *b = NULL;
        st = floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), 1, &b);
        if (!st) st = c == 2 && snapshot_id < 0 ? floe_builder_append_null(b) : floe_builder_append_int64(b, vals[c]);
        if (!st) st = floe_builder_finish(b, &cols[c]);
        floe_builder_free(b);
    }
    if (!st) st = floe_batch_new(p->head.schema, cols, 3, 1, out);
    for (int c = 0; c < 3; c++) floe_array_release(cols[c]);
    return st;
}

/* The statement failed: stop the writers, then delete everything. */
static void fail_cleanup(commit_stream *s, const received *r) {
    floe_stream_close(s->child);
    s->child = NULL;
    floe_write_job_abort(s->p->job_id);
    if (r) delete_received(s->p, r);
}

/* A test barrier (tests/scripts/sql_rowlevel_concurrent.sh): with
 * FLOE_TEST_COMMIT_BARRIER=<file>, the commit creates <file>.waiting and
 * waits until <file> exists (at most 60 s), so a test can let another
 * process commit between this statement's read and its commit.  Unset:
 * nothing. */
static floe_status commit_barrier(const floe_cancel *cancel) {
    const char *path = getenv("FLOE_TEST_COMMIT_BARRIER");
    if (!path || !*path) return NULL;
    char waiting[4096];
    snprintf(waiting, sizeof waiting, "%s.waiting", path); /* tells the test we got here */
    FILE *f = fopen(waiting, "w");
    if (f) fclose(f);
    for (int i = 0; i < 6000 && access(path, F_OK) != 0; i++) {
        FLOE_TRY(floe_cancel_check(cancel, "IcebergCommit"));
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static floe_status commit_next(floe_stream *s_, floe_batch **out) {
    commit_stream *s = (commit_stream *)s_;
    *out = NULL;
    if (s->done) return NULL;
    s->done = true;
    received r = {0};
    floe_status st = NULL;
    for (;;) {
        floe_batch *b = NULL;
        st = floe_cancel_check(s->cancel, "IcebergCommit");
        if (!st) st = floe_stream_next(s->child, &b);
        if (st || !b) break;
        st = received_add(&r, b);
        floe_batch_release(b);
        if (st) break;
    }
    int64_t snapshot_id = -1;
    if (!st) {
        /* Every writer has finished: nothing more will be created. */
        floe_stream_close(s->child);
        s->child = NULL;
        st = commit_barrier(s->cancel);
        if (!st) st = do_commit(s->p, &r, s->cancel, &snapshot_id);
    }
    if (st) {
        if (floe_status_code(st) == FLOE_ERR_COMMIT_UNKNOWN) {
            /* The commit may have landed: its data files may be the table's
             * now.  Deleting them could corrupt it; keeping them at worst
             * leaves orphans (which remove_orphan_files-style cleanup finds). */
            floe_write_job_forget(s->p->job_id);
        } else {
            fail_cleanup(s, &r);
        }
        received_free(&r);
        return st;
    }
    floe_write_job_forget(s->p->job_id);
    st = result_batch(s->p, &r, snapshot_id, out);
    received_free(&r);
    return st;
}

static void commit_close(floe_stream *s_) {
    commit_stream *s = (commit_stream *)s_;
    /* Closed before the commit ran: the statement is abandoned. */
    if (!s->done) fail_cleanup(s, NULL);
    floe_stream_close(s->child);
    floe_free(s);
}

static floe_status commit_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx,
                                  floe_stream **out) {
    (void)partition;
    const commit_plan *p = (const commit_plan *)p_;
    commit_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening an IcebergCommit stream");
    floe_status st = floe_plan_execute(p->head.children[0], 0, ctx, &s->child);
    if (st) {
        floe_free(s);
        floe_write_job_abort(p->job_id);
        return floe_status_wrap_op(st, "IcebergCommit input");
    }
    s->base.next = commit_next;
    s->base.close = commit_close;
    s->p = p;
    s->cancel = ctx->cancel;
    *out = &s->base;
    return NULL;
}

static floe_status commit_encode(const floe_plan *p_, floe_buf *out) {
    const commit_plan *p = (const commit_plan *)p_;
    FLOE_TRY(floe_codec_put_str(out, p->catalog_uri));
    FLOE_TRY(floe_codec_put_str(out, p->ns));
    FLOE_TRY(floe_codec_put_str(out, p->name));
    FLOE_TRY(floe_codec_put_i64(out, p->kind));
    FLOE_TRY(floe_codec_put_i64(out, p->base_snapshot_id));
    FLOE_TRY(floe_codec_put_str(out, p->job_id));
    FLOE_TRY(floe_codec_put_i64(out, p->max_retries));
    FLOE_TRY(floe_codec_put_i64(out, p->isolation));
    FLOE_TRY(floe_codec_put_str(out, p->conflict_filter ? p->conflict_filter : ""));
    FLOE_TRY(floe_codec_put_i64(out, p->n_removed));
    for (int32_t i = 0; i < p->n_removed; i++) FLOE_TRY(floe_codec_put_str(out, p->removed[i]));
    FLOE_TRY(floe_codec_put_str(out, p->wap_id ? p->wap_id : ""));
    FLOE_TRY(floe_codec_put_i64(out, p->replace ? 1 : 0));
    FLOE_TRY(floe_codec_put_str(out, p->branch ? p->branch : ""));
    return floe_exec_io_props_encode(out, p->io_props, p->n_io_props);
}

static floe_status commit_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "IcebergCommit with %d children", n_children);
    char *uri = NULL, *ns = NULL, *name = NULL, *job = NULL;
    int64_t kind = 0, base = 0, retries = 0;
    floe_property *io = NULL;
    size_t n_io = 0;
    floe_status st = floe_codec_get_str(r, &uri);
    if (!st) st = floe_codec_get_str(r, &ns);
    if (!st) st = floe_codec_get_str(r, &name);
    if (!st) st = floe_codec_get_i64(r, &kind);
    if (!st) st = floe_codec_get_i64(r, &base);
    if (!st) st = floe_codec_get_str(r, &job);
    if (!st) st = floe_codec_get_i64(r, &retries);
    int64_t iso = 0, n_removed = 0, got = 0;
    char *filter = NULL, **removed = NULL;
    if (!st) st = floe_codec_get_i64(r, &iso);
    if (!st) st = floe_codec_get_str(r, &filter);
    if (!st) st = floe_codec_get_i64(r, &n_removed);
    if (!st && (kind < 0 || kind > FLOE_COMMIT_ROW_DELTA || retries < 0 || retries > INT32_MAX || iso < 0 ||
                iso > FLOE_ISOLATION_SNAPSHOT || n_removed < 0 || n_removed > (int64_t)(r->len - r->pos)))
        st = floe_error(FLOE_ERR_CORRUPT, "IcebergCommit: kind %lld, %lld retries, isolation %lld, %lld removed",
                        (long long)kind, (long long)retries, (long long)iso, (long long)n_removed);
    if (!st && !(removed = floe_calloc((size_t)n_removed + 1, sizeof *removed)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding IcebergCommit");
    for (; !st && got < n_removed; got++) st = floe_codec_get_str(r, &removed[got]);
    char *wap = NULL, *branch = NULL;
    int64_t replace = 0;
    if (!st) st = floe_codec_get_str(r, &wap);
    if (!st) st = floe_codec_get_i64(r, &replace);
    if (!st) st = floe_codec_get_str(r, &branch);
    if (!st && (replace < 0 || replace > 1 || (replace && kind != FLOE_COMMIT_ROW_DELTA)))
        st = floe_error(FLOE_ERR_CORRUPT, "IcebergCommit: replace flag %lld for kind %lld", (long long)replace,
                        (long long)kind);
    if (!st) st = floe_exec_io_props_decode(r, &io, &n_io);
    if (!st && kind == FLOE_COMMIT_ROW_DELTA)
        st = floe_plan_iceberg_commit_delta(children[0], uri, ns, name, base, job, (int32_t)retries, io, n_io,
                                            (floe_isolation_level)iso, filter && *filter ? filter : NULL,
                                            (const char *const *)removed, (int32_t)n_removed, out);
    else if (!st)
        st = floe_plan_iceberg_commit_io(children[0], uri, ns, name, (floe_commit_kind)kind, base, job,
                                         (int32_t)retries, io, n_io, out);
    if (!st && replace) st = floe_iceberg_commit_set_replace(*out);
    if (!st && wap && *wap) st = floe_iceberg_commit_set_wap_id(*out, wap);
    if (!st && branch && *branch) st = floe_iceberg_commit_set_branch(*out, branch);
    if (st && *out) {
        floe_plan_release(*out);
        *out = NULL;
    }
    floe_free(wap);
    floe_free(branch);
    for (int64_t i = 0; removed && i < n_removed; i++) floe_free(removed[i]);
    floe_free(removed);
    floe_free(filter);
    floe_exec_io_props_free(io, n_io);
    floe_free(uri);
    floe_free(ns);
    floe_free(name);
    floe_free(job);
    return st;
}

static floe_status commit_explain(const floe_plan *p_, floe_buf *out) {
    const commit_plan *p = (const commit_plan *)p_;
    FLOE_TRY(floe_buf_printf(out, "table=%s.%s, kind=%s", p->ns, p->name,
                             p->kind == FLOE_COMMIT_APPEND               ? "append"
                             : p->kind == FLOE_COMMIT_REPLACE_PARTITIONS ? "replace-partitions"
                             : p->replace                                ? "replace"
                                                                         : "row-delta"));
    if (p->kind == FLOE_COMMIT_ROW_DELTA)
        FLOE_TRY(floe_buf_printf(out, ", base_snapshot=%lld, isolation=%s, removed_files=%d",
                                 (long long)p->base_snapshot_id,
                                 p->isolation == FLOE_ISOLATION_SNAPSHOT ? "snapshot" : "serializable",
                                 (int)p->n_removed));
    if (p->kind == FLOE_COMMIT_REPLACE_PARTITIONS)
        FLOE_TRY(floe_buf_printf(out, ", base_snapshot=%lld", (long long)p->base_snapshot_id));
    if (p->branch) FLOE_TRY(floe_buf_printf(out, ", branch=%s", p->branch));
    FLOE_TRY(floe_buf_printf(out, ", job=%s, max_retries=%d", p->job_id, p->max_retries));
    return floe_exec_io_props_explain(out, p->io_props, p->n_io_props);
}

static floe_distribution commit_required_input(const floe_plan *p, int32_t child) {
    (void)p;
    (void)child;
    floe_distribution d = {FLOE_DIST_SINGLE, 0, NULL};
    return d;
}

static void commit_free(floe_plan *p_) {
    commit_plan *p = (commit_plan *)p_;
    floe_free(p->catalog_uri);
    floe_free(p->ns);
    floe_free(p->name);
    floe_free(p->job_id);
    floe_free(p->wap_id);
    floe_free(p->branch);
    floe_exec_io_props_free(p->io_props, p->n_io_props);
    floe_free(p->conflict_filter);
    for (int32_t i = 0; p->removed && i < p->n_removed; i++) floe_free(p->removed[i]);
    floe_free(p->removed);
}

const floe_plan_vtable floe_iceberg_commit_vt = {
    .name = "IcebergCommit",
    .execute = commit_execute,
    .encode_parts = commit_encode,
    .decode_parts = commit_decode,
    .explain_parts = commit_explain,
    .required_input = commit_required_input,
    .free_parts = commit_free,
    .child_read = floe_exec_child_read_local,
    .flags = FLOE_NODE_COMMITS,
};

/* The output schema: rows, files, snapshot_id (nullable). */
static floe_status commit_schema(floe_schema **out) {
    floe_field f[3];
    static const char *const names[] = {"rows", "files", "snapshot_id"};
    int32_t made = 0;
    floe_status st = NULL;
    for (; made < 3; made++) {
        st = floe_field_init(&f[made], names[made], floe_type_primitive(FLOE_TYPE_INT64), made == 2, -1);
        if (st) break;
    }
    if (!st) st = floe_type_struct(f, 3, out);
    for (int32_t i = 0; i < made; i++) floe_field_clear(&f[i]);
    return st;
}

/* The child's columns must be IcebergWrite's output (a row delta's: six). */
static floe_status check_input(const floe_plan *child, bool delta) {
    const floe_schema *s = child->schema;
    int32_t n = delta ? 6 : 4;
    if (child->n_partitions != 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "IcebergCommit: the input has %d partitions (put a CoalescePartitions over the writers)",
                          child->n_partitions);
    if (floe_schema_num_fields(s) != n)
        return floe_error(FLOE_ERR_TYPE, "IcebergCommit: the input has %d columns, expected %d (%s, %s, %s, %s%s)",
                          floe_schema_num_fields(s), n, input_names[0], input_names[1], input_names[2], input_names[3],
                          delta ? ", content, changed" : "");
    for (int32_t i = 0; i < n; i++) {
        const floe_field *f = floe_schema_field(s, i);
        if (f->type->id != input_types[i])
            return floe_error(FLOE_ERR_TYPE, "IcebergCommit: input column %d ('%s') is %s, expected %s", i, f->name,
                              floe_type_id_name(f->type->id), floe_type_id_name(input_types[i]));
    }
    return NULL;
}

floe_status floe_plan_iceberg_commit(floe_plan *child, const char *catalog_uri, const char *ns, const char *name,
                                     floe_commit_kind kind, int64_t base_snapshot_id, const char *job_id,
                                     int32_t max_retries, floe_plan **out) {
    return floe_plan_iceberg_commit_io(child, catalog_uri, ns, name, kind, base_snapshot_id, job_id, max_retries, NULL,
                                       0, out);
}

floe_status floe_plan_iceberg_commit_io(floe_plan *child, const char *catalog_uri, const char *ns, const char *name,
                                        floe_commit_kind kind, int64_t base_snapshot_id, const char *job_id,
                                        int32_t max_retries, const floe_property *io_props, size_t n_io_props,
                                        floe_plan **out) {
    *out = NULL;
    if (!child || !catalog_uri || !ns || !name || !job_id)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergCommit: missing child, catalog, table or job id");
    if (kind != FLOE_COMMIT_APPEND && kind != FLOE_COMMIT_REPLACE_PARTITIONS && kind != FLOE_COMMIT_ROW_DELTA)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergCommit: unknown commit kind %d", (int)kind);
    if (max_retries < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergCommit: max_retries %d", max_retries);
    FLOE_TRY(check_input(child, kind == FLOE_COMMIT_ROW_DELTA));
    floe_schema *schema = NULL;
    FLOE_TRY(commit_schema(&schema));
    commit_plan *p = floe_calloc(1, sizeof *p);
    if (!p) {
        floe_type_release(schema);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergCommit node");
    }
    floe_status st = floe_exec_plan_init(&p->head, &floe_iceberg_commit_vt, schema, 1, &child, 1);
    floe_type_release(schema);
    if (!st) {
        p->catalog_uri = floe_strdup(catalog_uri);
        p->ns = floe_strdup(ns);
        p->name = floe_strdup(name);
        p->job_id = floe_strdup(job_id);
        p->kind = kind;
        p->base_snapshot_id = base_snapshot_id;
        p->max_retries = max_retries;
        if (!p->catalog_uri || !p->ns || !p->name || !p->job_id)
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergCommit node");
        if (!st) st = floe_status_wrap(floe_exec_io_props_copy(io_props, n_io_props, &p->io_props), "IcebergCommit");
        if (!st) p->n_io_props = n_io_props;
    }
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

const char *floe_iceberg_commit_catalog_uri(const floe_plan *p) { return ((const commit_plan *)p)->catalog_uri; }
const char *floe_iceberg_commit_namespace(const floe_plan *p) { return ((const commit_plan *)p)->ns; }
const char *floe_iceberg_commit_table(const floe_plan *p) { return ((const commit_plan *)p)->name; }
floe_commit_kind floe_iceberg_commit_kind(const floe_plan *p) { return ((const commit_plan *)p)->kind; }
int64_t floe_iceberg_commit_base_snapshot_id(const floe_plan *p) {
    return ((const commit_plan *)p)->base_snapshot_id;
}
const char *floe_iceberg_commit_job_id(const floe_plan *p) { return ((const commit_plan *)p)->job_id; }

floe_status floe_iceberg_commit_set_wap_id(floe_plan *p_, const char *wap_id) {
    commit_plan *p = (commit_plan *)p_;
    if (p->kind != FLOE_COMMIT_APPEND)
        return floe_error(FLOE_ERR_UNSUPPORTED, "IcebergCommit: only an append can be staged under a wap.id");
    floe_free(p->wap_id);
    p->wap_id = wap_id ? floe_strdup(wap_id) : NULL;
    if (wap_id && !p->wap_id) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergCommit: out of memory");
    return NULL;
}

floe_status floe_iceberg_commit_set_replace(floe_plan *p_) {
    commit_plan *p = (commit_plan *)p_;
    if (p->kind != FLOE_COMMIT_ROW_DELTA)
        return floe_error(FLOE_ERR_UNSUPPORTED, "IcebergCommit: only a row delta can be a replace");
    p->replace = true;
    return NULL;
}

bool floe_iceberg_commit_is_replace(const floe_plan *p) { return ((const commit_plan *)p)->replace; }

const char *floe_iceberg_commit_wap_id(const floe_plan *p) { return ((const commit_plan *)p)->wap_id; }

floe_status floe_iceberg_commit_set_branch(floe_plan *p_, const char *branch) {
    commit_plan *p = (commit_plan *)p_;
    if (branch && p->kind != FLOE_COMMIT_APPEND && p->kind != FLOE_COMMIT_ROW_DELTA &&
        p->kind != FLOE_COMMIT_REPLACE_PARTITIONS)
        return floe_error(FLOE_ERR_UNSUPPORTED, "IcebergCommit: only an append, an overwrite or a row-level change can "
                          "be committed to branch %s", branch);
    floe_free(p->branch);
    p->branch = branch ? floe_strdup(branch) : NULL;
    if (branch && !p->branch) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergCommit: out of memory");
    return NULL;
}

const char *floe_iceberg_commit_branch(const floe_plan *p) { return ((const commit_plan *)p)->branch; }
int32_t floe_iceberg_commit_max_retries(const floe_plan *p) { return ((const commit_plan *)p)->max_retries; }
const floe_property *floe_iceberg_commit_io_properties(const floe_plan *p, size_t *n) {
    *n = ((const commit_plan *)p)->n_io_props;
    return ((const commit_plan *)p)->io_props;
}

floe_status floe_plan_iceberg_commit_delta(floe_plan *child, const char *catalog_uri, const char *ns, const char *name,
                                           int64_t base_snapshot_id, const char *job_id, int32_t max_retries,
                                           const floe_property *io_props, size_t n_io_props,
                                           floe_isolation_level isolation, const char *conflict_filter_json,
                                           const char *const *removed_paths, int32_t n_removed, floe_plan **out) {
    *out = NULL;
    if (n_removed < 0 || (n_removed > 0 && !removed_paths) ||
        (isolation != FLOE_ISOLATION_SERIALIZABLE && isolation != FLOE_ISOLATION_SNAPSHOT))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergCommit: bad removed files or isolation level");
    floe_plan *p_ = NULL;
    FLOE_TRY(floe_plan_iceberg_commit_io(child, catalog_uri, ns, name, FLOE_COMMIT_ROW_DELTA, base_snapshot_id, job_id,
                                         max_retries, io_props, n_io_props, &p_));
    commit_plan *p = (commit_plan *)p_;
    floe_status st = NULL;
    p->isolation = isolation;
    if (conflict_filter_json && !(p->conflict_filter = floe_strdup(conflict_filter_json)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergCommit node");
    if (!st && !(p->removed = floe_calloc((size_t)n_removed + 1, sizeof *p->removed)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergCommit node");
    for (int32_t i = 0; !st && i < n_removed; i++) {
        if (!removed_paths[i]) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergCommit: a NULL removed path");
        else if (!(p->removed[i] = floe_strdup(removed_paths[i])))
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergCommit node");
        else p->n_removed = i + 1;
    }
    if (st) {
        floe_plan_release(p_);
        return st;
    }
    *out = p_;
    return NULL;
}

floe_isolation_level floe_iceberg_commit_isolation(const floe_plan *p) { return ((const commit_plan *)p)->isolation; }
const char *floe_iceberg_commit_conflict_filter(const floe_plan *p) {
    return ((const commit_plan *)p)->conflict_filter;
}
const char *const *floe_iceberg_commit_removed(const floe_plan *p, int32_t *n) {
    *n = ((const commit_plan *)p)->n_removed;
    return (const char *const *)((const commit_plan *)p)->removed;
}

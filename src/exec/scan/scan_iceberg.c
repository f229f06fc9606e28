/*
 * scan_iceberg.c — the IcebergScan leaf node: read the task groups of an
 * Iceberg scan plan, one group per output partition.
 *
 * Planning happens once, in floe_iceberg_scan_new (the coordinator): the
 * plan's task groups are serialized into the node's parts, together with
 * where the table metadata lives and the read schema as Iceberg JSON, so a
 * node decoded in another process reads exactly its group and never plans
 * again.  Executing a partition opens the table from its (immutable)
 * metadata file through a small per-process cache and reads the group's
 * tasks, in order, with the Iceberg task reader.  The table's FileIO
 * properties (endpoint, region, floe.credentials-id ...) are parts too:
 * the partition's FileIO is made from them, so a worker reads the table
 * the way the coordinator does; EXPLAIN prints them redacted.
 *
 * Reading overlaps I/O with the consumer through scan_prefetch.h: up to
 * scan_concurrency tasks of the partition are open at once, each with up
 * to read_ahead decoded batches, read by small pool tasks (open one file,
 * or read one batch) that never block a worker on a full buffer; rows
 * come out in task order, and the consumer reads itself rather than wait
 * for a queued task.
 *
 * Ordering: a partition claims the table's sort order only when that can
 * be proved from metadata — identity sort fields over projected columns,
 * every data file written in that order (its sort_order_id), and within
 * each group consecutive files whose first-key ranges (manifest metrics)
 * cannot overlap, with nulls only at the end the order puts them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/io_props.h"
#include "exec/plan_internal.h"
#include "exec/scan/scan_prefetch.h"
#include "floe/exec_scan.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_metadata_columns.h"
#include "floe/iceberg_task_reader.h"

/* ---------------------------------------------------------- table cache */

/* Tables opened for execution, keyed by metadata file: a metadata file is
 * never rewritten, so an open table stays valid for as long as anyone
 * wants it.  Small and LRU; entries in use are never evicted (when every
 * slot is busy a table is opened privately and freed after use). */
#define TABLE_CACHE_SLOTS 8

typedef struct cached_table {
    char *location;
    bool allow_moved_paths;
    floe_property *io_props; /* what io was made from: part of the key */
    size_t n_io_props;
    floe_fileio *io;            /* for URI locations (file:, s3:); the table uses it */
    floe_ice_table *table;
    int32_t refs;
    uint64_t last_use;
    bool in_cache;
} cached_table;

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static cached_table *cache[TABLE_CACHE_SLOTS];
static uint64_t cache_clock;

static void cached_table_free(cached_table *c) {
    if (!c) return;
    floe_ice_table_free(c->table);
    if (c->io) floe_fileio_free(c->io);
    floe_exec_io_props_free(c->io_props, c->n_io_props);
    floe_free(c->location);
    floe_free(c);
}

static cached_table *cache_find_locked(const char *location, bool allow, const floe_property *props, size_t n) {
    for (int i = 0; i < TABLE_CACHE_SLOTS; i++)
        if (cache[i] && cache[i]->allow_moved_paths == allow && strcmp(cache[i]->location, location) == 0 &&
            floe_exec_io_props_equal(cache[i]->io_props, cache[i]->n_io_props, props, n))
            return cache[i];
    return NULL;
}

static floe_status table_acquire(const char *location, bool allow, const floe_property *props, size_t n_props,
                                 cached_table **out) {
    *out = NULL;
    pthread_mutex_lock(&cache_mu);
    cached_table *c = cache_find_locked(location, allow, props, n_props);
    if (c) {
        c->refs++;
        c->last_use = ++cache_clock;
    }
    pthread_mutex_unlock(&cache_mu);
    if (c) {
        *out = c;
        return NULL;
    }
    /* Open outside the lock (it reads a file), charged to the root tracker:
     * a cached table outlives the query that opened it. */
    floe_mem_tracker *prev = floe_mem_set_current(NULL);
    floe_status st = NULL;
    c = floe_calloc(1, sizeof *c);
    if (!c || !(c->location = floe_strdup(location)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening table '%s'", location);
    /* Plain paths open as local files; URIs ("file:...", "s3://...")
     * through a FileIO configured from the table's FileIO properties (the
     * environment when it has none). */
    if (!st) st = floe_exec_io_props_copy(props, n_props, &c->io_props);
    if (!st) c->n_io_props = n_props;
    if (!st && (n_props || strstr(location, "://") || strncmp(location, "file:", 5) == 0))
        st = floe_fileio_new(props, n_props, &c->io);
    if (!st) st = floe_ice_table_open(c->io, location, allow, &c->table);
    floe_mem_set_current(prev);
    if (st) {
        cached_table_free(c);
        return floe_status_wrap(st, "IcebergScan: opening table metadata '%s'", location);
    }
    c->allow_moved_paths = allow;
    c->refs = 1;
    cached_table *evicted = NULL;
    pthread_mutex_lock(&cache_mu);
    cached_table *other = cache_find_locked(location, allow, props, n_props);
    if (other) {
        /* Another thread opened it meanwhile: use that one. */
        other->refs++;
        other->last_use = ++cache_clock;
        pthread_mutex_unlock(&cache_mu);
        cached_table_free(c);
        *out = other;
        return NULL;
    }
    int victim = -1;
    for (int i = 0; i < TABLE_CACHE_SLOTS; i++) {
        if (!cache[i]) {
            victim = i;
            break;
        }
        if (cache[i]->refs == 0 && (victim < 0 || cache[i]->last_use < cache[victim]->last_use)) victim = i;
    }
    if (victim >= 0) {
        evicted = cache[victim];
        cache[victim] = c;
        c->in_cache = true;
        c->last_use = ++cache_clock;
    }
    pthread_mutex_unlock(&cache_mu);
    cached_table_free(evicted);
    *out = c;
    return NULL;
}

static void table_release(cached_table *c) {
    if (!c) return;
    pthread_mutex_lock(&cache_mu);
    bool free_it = --c->refs == 0 && !c->in_cache;
    pthread_mutex_unlock(&cache_mu);
    if (free_it) cached_table_free(c);
}

/* ------------------------------------------------------------- the node */

typedef struct group_summary {
    int32_t n_tasks, n_files;
    int64_t bytes, rows;
} group_summary;

typedef struct iceberg_plan {
    floe_plan head;
    char *metadata_location;
    char *root;
    bool allow_moved_paths;
    char *schema_json;
    floe_ice_schema *schema; /* parsed from schema_json */
    int32_t n_field_ids;
    int32_t *field_ids;
    int32_t n_groups;
    uint8_t **groups; /* serialized, as given */
    size_t *group_lens;
    floe_ice_scan_group **decoded; /* the same, deserialized once */
    group_summary *summary;
    floe_property *io_props; /* the table's FileIO properties; none for local tables */
    size_t n_io_props;
    char *residual_text; /* the residual when every task has the same one, else NULL */
    int32_t n_residuals; /* distinct residuals seen (capped at 2) */
    /* Known only when planned in this process (floe_iceberg_scan_new). */
    floe_ice_scan_plan *plan; /* groups taken out; stats, snapshot, filter */
} iceberg_plan;

static void iceberg_free(floe_plan *p_) {
    iceberg_plan *p = (iceberg_plan *)p_;
    floe_free(p->metadata_location);
    floe_free(p->root);
    floe_free(p->schema_json);
    floe_ice_schema_free(p->schema);
    floe_free(p->field_ids);
    for (int32_t i = 0; i < p->n_groups; i++) {
        if (p->groups) floe_free(p->groups[i]);
        if (p->decoded) floe_ice_scan_group_free(p->decoded[i]);
    }
    floe_free(p->groups);
    floe_free(p->group_lens);
    floe_free(p->decoded);
    floe_free(p->summary);
    floe_free(p->residual_text);
    floe_exec_io_props_free(p->io_props, p->n_io_props);
    floe_ice_scan_plan_free(p->plan);
}

/* ---------------------------------------------------------- the stream */

/* A partition reads its group's tasks in order through the shared
 * read-ahead machinery (scan_prefetch.h); one task is one unit. */
typedef struct ice_stream {
    floe_stream base;
    const iceberg_plan *p;
    const floe_ice_scan_group *g;
    int32_t partition;
    cached_table *table;
    floe_ice_task_read_options ro;
    floe_prefetch *pf;
    floe_progress *progress;   /* task bytes read are added here; may be NULL */
} ice_stream;

typedef struct ice_unit {
    floe_ice_task_reader *reader;
    const floe_ice_scan_task *task;
    int64_t reported;          /* of the task's length, added to progress */
} ice_unit;

/* Progress of a task: its byte length, in proportion to the rows read of
 * the rows its range is estimated to hold, all of it at its end. */
static void ice_unit_progress(ice_stream *s, ice_unit *u, bool end) {
    if (!s->progress) return;
    int64_t len = u->task->length > 0 ? u->task->length : 0, target = len;
    if (!end) {
        floe_ice_task_read_stats rs;
        floe_ice_task_reader_stats(u->reader, &rs);
        double rows = (double)u->task->record_count;
        if (u->task->file_size_in_bytes > len) rows = rows * (double)len / (double)u->task->file_size_in_bytes;
        target = rows > 0 ? (int64_t)((double)len * (double)rs.rows_read / rows) : 0;
        if (target >= len) target = len - 1; /* the rest when it ends */
    }
    if (target > u->reported) {
        floe_progress_add(s->progress, target - u->reported);
        u->reported = target;
    }
}

static floe_status unit_error(const ice_stream *s, const floe_ice_scan_task *task, floe_status st) {
    st = floe_status_wrap(st, "reading data file '%s'", task->resolved_path ? task->resolved_path : task->path);
    return floe_status_wrap_op(st, "IcebergScan partition %d", s->partition);
}

static floe_status ice_unit_open(void *ctx, int32_t unit, void **state) {
    ice_stream *s = ctx;
    *state = NULL;
    ice_unit *u = floe_calloc(1, sizeof *u);
    if (!u) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergScan: opening a task");
    u->task = &s->g->tasks[unit];
    floe_status st = floe_ice_task_reader_open(&s->ro, u->task, &u->reader);
    if (st) {
        st = unit_error(s, u->task, st);
        floe_free(u);
        return st;
    }
    *state = u;
    return NULL;
}

static floe_status ice_unit_next(void *ctx, void *state, floe_batch **out) {
    ice_unit *u = state;
    floe_status st = floe_ice_task_reader_next(u->reader, out);
    if (!st) ice_unit_progress(ctx, u, *out == NULL);
    return st ? unit_error(ctx, u->task, st) : NULL;
}

static void ice_unit_close(void *ctx, void *state) {
    (void)ctx;
    ice_unit *u = state;
    if (!u) return;
    floe_ice_task_reader_close(u->reader);
    floe_free(u);
}

static const floe_prefetch_ops ice_unit_ops = {ice_unit_open, ice_unit_next, ice_unit_close};

static floe_status ice_next(floe_stream *s_, floe_batch **out) {
    ice_stream *s = (ice_stream *)s_;
    *out = NULL;
    return floe_prefetch_next(s->pf, out);
}

static void ice_close(floe_stream *s_) {
    ice_stream *s = (ice_stream *)s_;
    floe_prefetch_close(s->pf); /* waits for reads in flight */
    table_release(s->table);
    floe_free(s);
}

static floe_status ice_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx,
                               floe_stream **out) {
    const iceberg_plan *p = (const iceberg_plan *)p_;
    ice_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening an IcebergScan stream");
    s->base.next = ice_next;
    s->base.close = ice_close;
    s->p = p;
    s->g = p->decoded[partition];
    s->partition = partition;
    s->progress = ctx->progress;
    floe_status st = NULL;
    if (s->g->n_tasks > 0) {
        st = table_acquire(p->metadata_location, p->allow_moved_paths, p->io_props, p->n_io_props, &s->table);
        if (!st) {
            s->ro.table = s->table->table;
            s->ro.schema = p->schema;
            s->ro.field_ids = p->field_ids;
            s->ro.n_field_ids = p->n_field_ids;
            s->ro.batch_size = ctx->batch_size > 0 ? ctx->batch_size : 0;
        }
    }
    if (!st) st = floe_prefetch_open(&ice_unit_ops, s, s->g->n_tasks, ctx, "IcebergScan", &s->pf);
    if (st) {
        ice_close(&s->base);
        return st;
    }
    *out = &s->base;
    return NULL;
}

/* ---------------------------------------------------------------- codec */

static floe_status put_blob(floe_buf *b, const uint8_t *data, size_t len) {
    FLOE_TRY(floe_codec_put_i64(b, (int64_t)len));
    return floe_buf_append(b, data, len);
}

/* A length-prefixed byte string, pointing into the reader's data. */
static floe_status get_blob(floe_reader *r, const uint8_t **data, size_t *len) {
    int64_t n;
    FLOE_TRY(floe_codec_get_i64(r, &n));
    if (n < 0 || (uint64_t)n > r->len - r->pos)
        return floe_error(FLOE_ERR_CORRUPT, "IcebergScan: blob of %lld bytes at plan offset %zu is impossible",
                          (long long)n, r->pos);
    *data = r->data + r->pos;
    *len = (size_t)n;
    r->pos += (size_t)n;
    return NULL;
}

static floe_status get_count(floe_reader *r, const char *what, int64_t max, int64_t *n) {
    FLOE_TRY(floe_codec_get_i64(r, n));
    if (*n < 0 || *n > max || *n > (int64_t)(r->len - r->pos) + 1)
        return floe_error(FLOE_ERR_CORRUPT, "IcebergScan: %s %lld at plan offset %zu is impossible", what,
                          (long long)*n, r->pos);
    return NULL;
}

static floe_status iceberg_encode(const floe_plan *p_, floe_buf *out) {
    const iceberg_plan *p = (const iceberg_plan *)p_;
    FLOE_TRY(floe_codec_put_str(out, p->metadata_location));
    FLOE_TRY(floe_codec_put_str(out, p->root));
    FLOE_TRY(floe_codec_put_i64(out, p->allow_moved_paths));
    FLOE_TRY(floe_codec_put_str(out, p->schema_json));
    FLOE_TRY(floe_codec_put_i64(out, p->n_field_ids));
    for (int32_t i = 0; i < p->n_field_ids; i++) FLOE_TRY(floe_codec_put_i64(out, p->field_ids[i]));
    FLOE_TRY(floe_codec_put_i64(out, p->n_groups));
    for (int32_t i = 0; i < p->n_groups; i++) FLOE_TRY(put_blob(out, p->groups[i], p->group_lens[i]));
    FLOE_TRY(floe_codec_put_i64(out, p->head.n_ordering));
    for (int32_t i = 0; i < p->head.n_ordering; i++) {
        FLOE_TRY(floe_codec_put_expr(out, p->head.ordering[i].expr));
        FLOE_TRY(floe_codec_put_i64(out, p->head.ordering[i].descending));
        FLOE_TRY(floe_codec_put_i64(out, p->head.ordering[i].nulls_first));
    }
    return floe_exec_io_props_encode(out, p->io_props, p->n_io_props);
}

static floe_status iceberg_decode(floe_reader *r, floe_plan *const *children, int32_t n_children,
                                  floe_plan **out) {
    (void)children;
    if (n_children != 0) return floe_error(FLOE_ERR_CORRUPT, "IcebergScan with %d children", n_children);
    char *loc = NULL, *root = NULL, *schema = NULL;
    int64_t allow = 0, n_ids = 0, n_groups = 0, n_ord = 0;
    int32_t *ids = NULL;
    const uint8_t **groups = NULL;
    size_t *lens = NULL;
    floe_sort_key *ord = NULL;
    int64_t got_ord = 0;
    floe_property *io = NULL;
    size_t n_io = 0;
    floe_status st = floe_codec_get_str(r, &loc);
    if (!st) st = floe_codec_get_str(r, &root);
    if (!st) st = floe_codec_get_i64(r, &allow);
    if (!st) st = floe_codec_get_str(r, &schema);
    if (!st) st = get_count(r, "field id count", INT32_MAX, &n_ids);
    if (!st && !(ids = floe_calloc((size_t)(n_ids ? n_ids : 1), sizeof *ids)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding IcebergScan");
    for (int64_t i = 0; !st && i < n_ids; i++) {
        int64_t v;
        st = floe_codec_get_i64(r, &v);
        if (!st && (v < 0 || v > INT32_MAX)) st = floe_error(FLOE_ERR_CORRUPT, "IcebergScan: field id %lld", (long long)v);
        if (!st) ids[i] = (int32_t)v;
    }
    if (!st) st = get_count(r, "group count", INT32_MAX, &n_groups);
    if (!st && (!(groups = floe_calloc((size_t)(n_groups ? n_groups : 1), sizeof *groups)) ||
                !(lens = floe_calloc((size_t)(n_groups ? n_groups : 1), sizeof *lens))))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding IcebergScan");
    for (int64_t i = 0; !st && i < n_groups; i++) st = get_blob(r, &groups[i], &lens[i]);
    if (!st) st = get_count(r, "ordering length", INT32_MAX, &n_ord);
    if (!st && !(ord = floe_calloc((size_t)(n_ord ? n_ord : 1), sizeof *ord)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding IcebergScan");
    for (; !st && got_ord < n_ord; got_ord++) {
        int64_t desc = 0, nf = 0;
        st = floe_codec_get_expr(r, &ord[got_ord].expr);
        if (!st) st = floe_codec_get_i64(r, &desc);
        if (!st) st = floe_codec_get_i64(r, &nf);
        ord[got_ord].descending = desc != 0;
        ord[got_ord].nulls_first = nf != 0;
        if (st) floe_expr_release(ord[got_ord].expr);
    }
    if (!st) st = floe_exec_io_props_decode(r, &io, &n_io);
    if (!st && !loc) st = floe_error(FLOE_ERR_CORRUPT, "IcebergScan without a metadata location");
    if (!st && !schema) st = floe_error(FLOE_ERR_CORRUPT, "IcebergScan without a schema");
    if (!st)
        st = floe_plan_iceberg_scan_io(loc, root, allow != 0, schema, ids, (int32_t)n_ids, groups, lens,
                                       (int32_t)n_groups, ord, (int32_t)n_ord, io, n_io, out);
    floe_exec_io_props_free(io, n_io);
    for (int64_t i = 0; i < got_ord; i++) floe_expr_release(ord[i].expr);
    floe_free(ord);
    floe_free(groups);
    floe_free(lens);
    floe_free(ids);
    floe_free(loc);
    floe_free(root);
    floe_free(schema);
    return st;
}

/* -------------------------------------------------------------- EXPLAIN */

static floe_status iceberg_explain(const floe_plan *p_, floe_buf *out) {
    const iceberg_plan *p = (const iceberg_plan *)p_;
    FLOE_TRY(floe_buf_printf(out, "table=%s, metadata=%s", p->root ? p->root : "?", p->metadata_location));
    if (p->plan) {
        if (p->plan->snapshot_id == FLOE_ICE_NO_SNAPSHOT) FLOE_TRY(floe_buf_append_str(out, ", snapshot=none"));
        else FLOE_TRY(floe_buf_printf(out, ", snapshot=%lld", (long long)p->plan->snapshot_id));
    }
    FLOE_TRY(floe_buf_append_str(out, ", projection=["));
    for (int32_t i = 0; i < p->n_field_ids; i++) {
        const char *name = floe_ice_schema_field_name(p->schema, p->field_ids[i]);
        const floe_ice_field *mf = name ? NULL : floe_ice_metadata_field(p->field_ids[i]);
        if (mf) name = mf->name;
        FLOE_TRY(floe_buf_printf(out, "%s%s", i ? ", " : "", name ? name : "?"));
    }
    FLOE_TRY(floe_buf_append_str(out, "]"));
    if (p->plan && p->plan->filter) {
        char *f = NULL;
        FLOE_TRY(floe_ice_expr_to_string(p->plan->filter, &f));
        floe_status st = strcmp(f, "true") == 0 ? NULL : floe_buf_printf(out, ", filter=%s", f);
        floe_free(f);
        FLOE_TRY(st);
    } else if (p->residual_text && strcmp(p->residual_text, "true") != 0) {
        FLOE_TRY(floe_buf_printf(out, ", residual=%s", p->residual_text));
    } else if (p->n_residuals > 1) {
        FLOE_TRY(floe_buf_append_str(out, ", residual=(differs per task)"));
    }
    if (p->head.n_ordering > 0) {
        FLOE_TRY(floe_buf_append_str(out, ", ordering=["));
        for (int32_t i = 0; i < p->head.n_ordering; i++) {
            const floe_sort_key *k = &p->head.ordering[i];
            if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
            FLOE_TRY(floe_expr_to_string(k->expr, out));
            FLOE_TRY(floe_buf_printf(out, " %s NULLS %s", k->descending ? "DESC" : "ASC",
                                     k->nulls_first ? "FIRST" : "LAST"));
        }
        FLOE_TRY(floe_buf_append_str(out, "]"));
    }
    FLOE_TRY(floe_buf_printf(out, ", groups=%d [", p->n_groups));
    for (int32_t i = 0; i < p->n_groups; i++) {
        const group_summary *g = &p->summary[i];
        FLOE_TRY(floe_buf_printf(out, "%s#%d: files=%d tasks=%d bytes=%lld rows=%lld", i ? "; " : "", i, g->n_files,
                                 g->n_tasks, (long long)g->bytes, (long long)g->rows));
    }
    FLOE_TRY(floe_buf_append_str(out, "]"));
    return floe_exec_io_props_explain(out, p->io_props, p->n_io_props);
}

static const floe_plan_vtable *iceberg_vt_ptr(void);

/* ---------------------------------------------------------- constructors */

/* Deserialize every group once: a corrupt group fails here, at
 * construction, and the summaries feed EXPLAIN. */
static floe_status decode_groups(iceberg_plan *p) {
    for (int32_t i = 0; i < p->n_groups; i++) {
        FLOE_TRY_CTX(floe_ice_scan_group_deserialize(p->groups[i], p->group_lens[i], &p->decoded[i]),
                     "IcebergScan group %d", i);
        const floe_ice_scan_group *g = p->decoded[i];
        p->summary[i].n_tasks = g->n_tasks;
        p->summary[i].n_files = g->n_files;
        p->summary[i].bytes = g->bytes;
        p->summary[i].rows = g->rows;
        for (int32_t k = 0; k < g->n_tasks && p->n_residuals < 2; k++) {
            const floe_ice_expr *res = g->tasks[k].residual;
            if (!res) continue;
            if (!p->residual_text) {
                FLOE_TRY(floe_ice_expr_to_string(res, &p->residual_text));
                p->n_residuals = 1;
                continue;
            }
            char *txt = NULL;
            FLOE_TRY(floe_ice_expr_to_string(res, &txt));
            if (strcmp(txt, p->residual_text) != 0) {
                p->n_residuals = 2;
                floe_free(p->residual_text);
                p->residual_text = NULL;
            }
            floe_free(txt);
        }
    }
    return NULL;
}

static floe_status iceberg_build(const char *metadata_location, const char *root, bool allow_moved_paths,
                                 const char *schema_json, const int32_t *field_ids, int32_t n_field_ids,
                                 const uint8_t *const *groups, const size_t *group_lens, int32_t n_groups,
                                 const floe_sort_key *ordering, int32_t n_ordering, const floe_property *io_props,
                                 size_t n_io_props, iceberg_plan *p) {
    floe_schema *out_schema = NULL;
    if (!metadata_location || !*metadata_location)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergScan: no metadata location");
    if (!schema_json) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergScan: no schema");
    if (n_groups < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergScan: %d task groups", n_groups);
    if (n_field_ids < 0 || (n_field_ids > 0 && !field_ids))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergScan: bad projection");
    p->allow_moved_paths = allow_moved_paths;
    FLOE_TRY_CTX(floe_exec_io_props_copy(io_props, n_io_props, &p->io_props), "IcebergScan");
    p->n_io_props = n_io_props;
    if (!(p->metadata_location = floe_strdup(metadata_location)) || (root && !(p->root = floe_strdup(root))) ||
        !(p->schema_json = floe_strdup(schema_json)))
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergScan node");
    FLOE_TRY_CTX(floe_ice_schema_from_json_text(schema_json, &p->schema), "IcebergScan read schema");
    for (int32_t i = 0; i < n_field_ids; i++) {
        if (floe_ice_metadata_field(field_ids[i])) continue; /* _file, _pos, _row_id ...: the reader fills them */
        const floe_ice_field *f = floe_ice_schema_find_field(p->schema, field_ids[i]);
        if (!f || floe_ice_schema_parent_id(p->schema, field_ids[i]) != -1)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergScan: field id %d is not a top-level column of the read schema",
                              field_ids[i]);
    }
    p->n_field_ids = n_field_ids;
    if (!(p->field_ids = floe_calloc((size_t)(n_field_ids ? n_field_ids : 1), sizeof *p->field_ids)))
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergScan node");
    if (n_field_ids) memcpy(p->field_ids, field_ids, (size_t)n_field_ids * sizeof *field_ids);
    if (!(p->groups = floe_calloc((size_t)n_groups, sizeof *p->groups)) ||
        !(p->group_lens = floe_calloc((size_t)n_groups, sizeof *p->group_lens)) ||
        !(p->decoded = floe_calloc((size_t)n_groups, sizeof *p->decoded)) ||
        !(p->summary = floe_calloc((size_t)n_groups, sizeof *p->summary)))
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergScan node");
    p->n_groups = n_groups;
    for (int32_t i = 0; i < n_groups; i++) {
        if (!groups[i] && group_lens[i]) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergScan: group %d missing", i);
        if (!(p->groups[i] = floe_malloc(group_lens[i] ? group_lens[i] : 1)))
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergScan node");
        if (group_lens[i]) memcpy(p->groups[i], groups[i], group_lens[i]);
        p->group_lens[i] = group_lens[i];
    }
    FLOE_TRY(decode_groups(p));
    FLOE_TRY_CTX(floe_ice_schema_to_columnar(p->schema, p->field_ids, p->n_field_ids, &out_schema),
                 "IcebergScan output schema");
    floe_status st = floe_exec_plan_init(&p->head, iceberg_vt_ptr(), out_schema, n_groups, NULL, 0);
    floe_type_release(out_schema);
    FLOE_TRY(st);
    for (int32_t i = 0; i < n_ordering; i++) {
        floe_type *t = NULL;
        FLOE_TRY_CTX(floe_expr_type(ordering[i].expr, p->head.schema, &t), "IcebergScan ordering key %d", i);
        floe_type_release(t);
    }
    return floe_exec_plan_set_ordering(&p->head, ordering, n_ordering);
}

floe_status floe_plan_iceberg_scan(const char *metadata_location, const char *root, bool allow_moved_paths,
                                   const char *schema_json, const int32_t *field_ids, int32_t n_field_ids,
                                   const uint8_t *const *groups, const size_t *group_lens, int32_t n_groups,
                                   const floe_sort_key *ordering, int32_t n_ordering, floe_plan **out) {
    return floe_plan_iceberg_scan_io(metadata_location, root, allow_moved_paths, schema_json, field_ids, n_field_ids,
                                     groups, group_lens, n_groups, ordering, n_ordering, NULL, 0, out);
}

floe_status floe_plan_iceberg_scan_io(const char *metadata_location, const char *root, bool allow_moved_paths,
                                      const char *schema_json, const int32_t *field_ids, int32_t n_field_ids,
                                      const uint8_t *const *groups, const size_t *group_lens, int32_t n_groups,
                                      const floe_sort_key *ordering, int32_t n_ordering,
                                      const floe_property *io_props, size_t n_io_props, floe_plan **out) {
    *out = NULL;
    iceberg_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an IcebergScan node");
    /* A releasable head from the start, whatever fails below. */
    p->head.vt = iceberg_vt_ptr();
    atomic_init(&p->head.refcount_, 1);
    floe_status st = iceberg_build(metadata_location, root, allow_moved_paths, schema_json, field_ids, n_field_ids,
                                   groups, group_lens, n_groups, ordering, n_ordering, io_props, n_io_props, p);
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

/* ------------------------------------------------ ordering from metadata */

static int cmp_live_path(const void *a, const void *b) {
    const floe_ice_live_file *x = *(const floe_ice_live_file *const *)a, *y = *(const floe_ice_live_file *const *)b;
    return strcmp(x->file.file_path, y->file.file_path);
}

static const floe_ice_live_file *find_live(const floe_ice_live_file *const *sorted, size_t n, const char *path) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(sorted[mid]->file.file_path, path);
        if (c == 0) return sorted[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* Null count of a column in a file, -1 when not recorded. */
static int64_t file_null_count(const floe_ice_data_file *f, int32_t id) {
    for (int32_t i = 0; i < f->null_value_counts.n; i++)
        if (f->null_value_counts.keys[i] == id) return f->null_value_counts.values[i];
    return -1;
}

/* Can every group claim the table's sort order?  Only when it is a list of
 * identity transforms of projected, non-floating columns, every data file
 * of the scan was written in it, and within each group consecutive files'
 * first-key ranges (by their metrics) cannot overlap, nulls being only
 * where the order puts them (first file / last file of the group).  Any
 * doubt answers no. */
static floe_status claim_ordering(const floe_ice_table *t, const floe_ice_scan_plan *plan,
                                  const floe_ice_schema *schema, const int32_t *ids, int32_t n_ids,
                                  floe_sort_key **keys_out, int32_t *n_keys_out) {
    *keys_out = NULL;
    *n_keys_out = 0;
    const floe_ice_table_metadata *md = t->md;
    if (plan->snapshot_id == FLOE_ICE_NO_SNAPSHOT) return NULL;
    const floe_ice_sort_order *order = floe_ice_tm_sort_order(md, md->default_sort_order_id);
    if (!order || order->n_fields == 0) return NULL;
    int32_t cols[64];
    if (order->n_fields > 64) return NULL;
    for (int32_t i = 0; i < order->n_fields; i++) {
        const floe_ice_sort_field *sf = &order->fields[i];
        if (sf->transform.kind != FLOE_ICE_TRANSFORM_IDENTITY || sf->n_source_ids != 1) return NULL;
        cols[i] = -1;
        for (int32_t j = 0; j < n_ids; j++)
            if (ids[j] == sf->source_id) cols[i] = j;
        if (cols[i] < 0) return NULL;
        const floe_ice_field *f = floe_ice_schema_find_field(schema, sf->source_id);
        if (!f || f->type->id == FLOE_ICE_FLOAT || f->type->id == FLOE_ICE_DOUBLE || f->type->n_fields > 0 ||
            f->type->id == FLOE_ICE_STRUCT || f->type->id == FLOE_ICE_LIST || f->type->id == FLOE_ICE_MAP)
            return NULL;
    }
    const floe_ice_snapshot *snap = floe_ice_tm_snapshot(md, plan->snapshot_id);
    if (!snap) return NULL;
    floe_ice_live_files *lf = NULL;
    floe_status st = floe_ice_table_live_files(t, snap, NULL, &lf);
    if (st) { /* no claim, no failure: the scan itself planned fine */
        floe_status_free(st);
        return NULL;
    }
    const floe_ice_live_file **sorted = floe_calloc(lf->n ? lf->n : 1, sizeof *sorted);
    if (!sorted) {
        floe_ice_live_files_free(lf);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "checking the scan's sort order");
    }
    size_t n_data = 0;
    for (size_t i = 0; i < lf->n; i++)
        if (lf->files[i].file.content == FLOE_ICE_CONTENT_DATA) sorted[n_data++] = &lf->files[i];
    qsort(sorted, n_data, sizeof *sorted, cmp_live_path);
    const floe_ice_sort_field *first = &order->fields[0];
    bool desc = first->direction == FLOE_ICE_DESC;
    bool nulls_first = first->null_order == FLOE_ICE_NULLS_FIRST;
    bool ok = true;
    for (int32_t gi = 0; ok && gi < plan->n_groups; gi++) {
        const floe_ice_scan_group *g = plan->groups[gi];
        if (!g) { ok = false; break; }
        floe_ice_value prev_lo, prev_hi;
        bool have_prev = false;
        const char *prev_path = NULL;
        int32_t n_files_seen = 0, first_file_with_nulls = -1;
        for (int32_t k = 0; ok && k < g->n_tasks; k++) {
            const floe_ice_scan_task *task = &g->tasks[k];
            if (prev_path && strcmp(prev_path, task->path) == 0) continue; /* next split of the same file */
            prev_path = task->path;
            const floe_ice_live_file *lfile = find_live(sorted, n_data, task->path);
            if (!lfile || !lfile->file.has_sort_order_id || lfile->file.sort_order_id != order->order_id) {
                ok = false;
                break;
            }
            int64_t nulls = file_null_count(&lfile->file, first->source_id);
            if (nulls != 0) {
                /* Nulls (or unknown): allowed only in the first file of the
                 * group under NULLS FIRST, checked for the last file below. */
                if (nulls_first && n_files_seen > 0) ok = false;
                if (first_file_with_nulls < 0) first_file_with_nulls = n_files_seen;
            }
            floe_ice_value lo, hi;
            memset(&lo, 0, sizeof lo);
            memset(&hi, 0, sizeof hi);
            floe_status b1 = floe_ice_data_file_bound(&lfile->file, schema, first->source_id, false, &lo);
            floe_status b2 = b1 ? NULL : floe_ice_data_file_bound(&lfile->file, schema, first->source_id, true, &hi);
            if (b1 || b2) {
                floe_status_free(b1);
                floe_status_free(b2);
                if (!b1) floe_ice_value_free(&lo);
                ok = false;
                break;
            }
            if (ok && have_prev) {
                /* Ascending: everything before <= everything after. */
                int c = desc ? floe_ice_value_compare(&hi, &prev_lo) : floe_ice_value_compare(&prev_hi, &lo);
                if (order->n_fields == 1 ? c > 0 : c >= 0) ok = false;
            }
            if (have_prev) {
                floe_ice_value_free(&prev_lo);
                floe_ice_value_free(&prev_hi);
            }
            prev_lo = lo;
            prev_hi = hi;
            have_prev = true;
            n_files_seen++;
        }
        if (have_prev) {
            floe_ice_value_free(&prev_lo);
            floe_ice_value_free(&prev_hi);
        }
        if (!nulls_first && first_file_with_nulls >= 0 && first_file_with_nulls != n_files_seen - 1) ok = false;
    }
    floe_free(sorted);
    floe_ice_live_files_free(lf);
    if (!ok) return NULL;
    floe_sort_key *keys = floe_calloc((size_t)order->n_fields, sizeof *keys);
    if (!keys) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "recording the scan's sort order");
    for (int32_t i = 0; i < order->n_fields && !st; i++) {
        st = floe_expr_column(cols[i], &keys[i].expr);
        keys[i].descending = order->fields[i].direction == FLOE_ICE_DESC;
        keys[i].nulls_first = order->fields[i].null_order == FLOE_ICE_NULLS_FIRST;
    }
    if (st) {
        for (int32_t i = 0; i < order->n_fields; i++) floe_expr_release(keys[i].expr);
        floe_free(keys);
        return st;
    }
    *keys_out = keys;
    *n_keys_out = order->n_fields;
    return NULL;
}

floe_status floe_iceberg_scan_new(const floe_ice_table *table, const floe_ice_snapshot_selector *snapshot,
                                  const int32_t *field_ids, int32_t n_field_ids, const floe_ice_expr *filter,
                                  int32_t target_partitions, floe_plan **out) {
    return floe_iceberg_scan_new_files(table, snapshot, field_ids, n_field_ids, filter, false, NULL, 0,
                                       target_partitions, out);
}

floe_status floe_iceberg_scan_new_files(const floe_ice_table *table, const floe_ice_snapshot_selector *snapshot,
                                        const int32_t *field_ids, int32_t n_field_ids, const floe_ice_expr *filter,
                                        bool only_files_set, const char *const *only_files, int32_t n_only_files,
                                        int32_t target_partitions, floe_plan **out) {
    *out = NULL;
    if (!table || !table->metadata_location)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "IcebergScan: no table");
    floe_ice_scan_options opts;
    floe_ice_scan_options_init(&opts);
    opts.target_partitions = target_partitions > 0 ? target_partitions : 1;
    opts.only_files_set = only_files_set;
    opts.only_files = only_files;
    opts.n_only_files = n_only_files;
    floe_ice_scan_plan *plan = NULL;
    FLOE_TRY(floe_ice_scan_plan_new(table, snapshot, field_ids, field_ids ? n_field_ids : 0, filter, &opts, &plan));
    floe_status st = NULL;
    /* Time travel (by id, ref or timestamp) reads in the schema the
     * snapshot was written with; the current snapshot in the current one. */
    const floe_ice_schema *schema = NULL;
    if (snapshot && snapshot->kind != FLOE_ICE_SELECT_CURRENT && plan->snapshot_id != FLOE_ICE_NO_SNAPSHOT) {
        const floe_ice_snapshot *snap = floe_ice_tm_snapshot(table->md, plan->snapshot_id);
        if (snap) schema = floe_ice_tm_snapshot_schema(table->md, snap);
    }
    if (!schema) schema = floe_ice_tm_schema(table->md, plan->schema_id);
    if (!schema) st = floe_error(FLOE_ERR_CORRUPT, "IcebergScan: the plan's schema %d is not in the table", plan->schema_id);
    int32_t *ids = NULL, n_ids = 0;
    char *schema_json = NULL;
    uint8_t **groups = NULL;
    size_t *lens = NULL;
    floe_sort_key *ord = NULL;
    int32_t n_ord = 0;
    /* The projection, made explicit (every top-level column when none). */
    if (!st && field_ids) {
        n_ids = n_field_ids;
        if (!(ids = floe_calloc((size_t)(n_ids ? n_ids : 1), sizeof *ids))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergScan");
        else if (n_ids) memcpy(ids, field_ids, (size_t)n_ids * sizeof *ids);
    } else if (!st) {
        n_ids = schema->root->n_fields;
        if (!(ids = floe_calloc((size_t)(n_ids ? n_ids : 1), sizeof *ids))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergScan");
        for (int32_t i = 0; !st && i < n_ids; i++) ids[i] = schema->root->fields[i].id;
    }
    if (!st) st = floe_ice_schema_to_json_text(schema, &schema_json);
    if (!st && (!(groups = floe_calloc((size_t)plan->n_groups, sizeof *groups)) ||
                !(lens = floe_calloc((size_t)plan->n_groups, sizeof *lens))))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "IcebergScan");
    for (int32_t i = 0; !st && i < plan->n_groups; i++) st = floe_ice_scan_group_serialize(plan->groups[i], &groups[i], &lens[i]);
    if (!st) st = claim_ordering(table, plan, schema, ids, n_ids, &ord, &n_ord);
    /* The table's FileIO travels as its properties (none for local files). */
    const floe_property *io_props = NULL;
    size_t n_io_props = 0;
    floe_fileio_properties(table->io, &io_props, &n_io_props);
    if (!st)
        st = floe_plan_iceberg_scan_io(table->metadata_location, table->root, table->allow_moved_paths, schema_json,
                                       ids, n_ids, (const uint8_t *const *)groups, lens, plan->n_groups, ord, n_ord,
                                       io_props, n_io_props, out);
    for (int32_t i = 0; i < n_ord; i++) floe_expr_release(ord[i].expr);
    floe_free(ord);
    for (int32_t i = 0; groups && i < plan->n_groups; i++) floe_free(groups[i]);
    floe_free(groups);
    floe_free(lens);
    floe_free(schema_json);
    floe_free(ids);
    if (st) {
        floe_ice_scan_plan_free(plan);
        return st;
    }
    /* Keep the plan for its statistics, snapshot and filter; its groups
     * live on in the node's parts, so free them now. */
    for (int32_t i = 0; i < plan->n_groups; i++) floe_ice_scan_group_free(floe_ice_scan_plan_take_group(plan, i));
    ((iceberg_plan *)*out)->plan = plan;
    return NULL;
}

/* ------------------------------------------------------------ accessors */

static int64_t iceberg_progress_total(const floe_plan *p);

/* The rows of the files its tasks read (before deletes and residuals). */
static double iceberg_estimate_rows(const floe_plan *p_) {
    const iceberg_plan *p = (const iceberg_plan *)p_;
    double n = 0;
    for (int32_t i = 0; i < p->n_groups; i++) n += (double)p->summary[i].rows;
    return n;
}

/* The metadata file; the data files it names are checked through it. */
static floe_status iceberg_local_paths(const floe_plan *p, floe_path_visit visit, void *arg) {
    return visit(arg, ((const iceberg_plan *)p)->metadata_location);
}

const floe_plan_vtable floe_iceberg_scan_vt = {
    .name = "IcebergScan",
    .execute = ice_execute,
    .encode_parts = iceberg_encode,
    .decode_parts = iceberg_decode,
    .explain_parts = iceberg_explain,
    .free_parts = iceberg_free,
    .progress_total = iceberg_progress_total,
    .estimate_rows = iceberg_estimate_rows,
    .local_paths = iceberg_local_paths,
};

static const floe_plan_vtable *iceberg_vt_ptr(void) { return &floe_iceberg_scan_vt; }

const char *floe_iceberg_scan_metadata_location(const floe_plan *p) { return ((const iceberg_plan *)p)->metadata_location; }
const char *floe_iceberg_scan_root(const floe_plan *p) { return ((const iceberg_plan *)p)->root; }
bool floe_iceberg_scan_allow_moved_paths(const floe_plan *p) { return ((const iceberg_plan *)p)->allow_moved_paths; }
const char *floe_iceberg_scan_schema_json(const floe_plan *p) { return ((const iceberg_plan *)p)->schema_json; }
int32_t floe_iceberg_scan_num_field_ids(const floe_plan *p) { return ((const iceberg_plan *)p)->n_field_ids; }
const int32_t *floe_iceberg_scan_field_ids(const floe_plan *p) { return ((const iceberg_plan *)p)->field_ids; }
int32_t floe_iceberg_scan_num_groups(const floe_plan *p) { return ((const iceberg_plan *)p)->n_groups; }

const floe_property *floe_iceberg_scan_io_properties(const floe_plan *p, size_t *n) {
    *n = ((const iceberg_plan *)p)->n_io_props;
    return ((const iceberg_plan *)p)->io_props;
}

const uint8_t *floe_iceberg_scan_group(const floe_plan *p_, int32_t i, size_t *len) {
    const iceberg_plan *p = (const iceberg_plan *)p_;
    if (i < 0 || i >= p->n_groups) {
        if (len) *len = 0;
        return NULL;
    }
    if (len) *len = p->group_lens[i];
    return p->groups[i];
}

const floe_ice_scan_stats *floe_iceberg_scan_stats(const floe_plan *p_) {
    const iceberg_plan *p = (const iceberg_plan *)p_;
    return p->plan ? &p->plan->stats : NULL;
}

static int64_t iceberg_progress_total(const floe_plan *p_) {
    const iceberg_plan *p = (const iceberg_plan *)p_;
    int64_t n = 0;
    for (int32_t i = 0; i < p->n_groups; i++)
        for (int32_t k = 0; k < p->decoded[i]->n_tasks; k++)
            n += p->decoded[i]->tasks[k].length > 0 ? p->decoded[i]->tasks[k].length : 0;
    return n;
}

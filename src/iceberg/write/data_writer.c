/*
 * data_writer.c — the rolling writer of one partition value: Parquet files
 * under the partition's directory, a new file whenever the open one
 * reaches write.target-file-size-bytes, and one Avro data_file record per
 * finished file.
 *
 * Life of a file: the first row to arrive picks the next name
 * "<prefix>-<seq, 5 digits>.parquet", the observer hears of the location,
 * the output is created through the FileIO and a Parquet writer opened on
 * it (options and the "iceberg.schema" footer key from the settings).
 * Batches are written in slices sized from the file's bytes per row so far,
 * so a file overshoots its target by at most a slice.  When the estimate
 * passes the target (or on flush/finish) the file is closed, its metrics
 * turned into a data_file record (write_metrics.c) and kept until finish
 * hands the records out.  Every location ever created is remembered so an
 * abandoned writer can delete them all.
 *
 * A NULL in a required column (at any depth: a required field of a present
 * struct, a required list element or map value) is refused before any of
 * the batch is written.
 */
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/buffer.h"
#include "floe/memory.h"
#include "iceberg/write/data_writer_internal.h"

/* Rows written to a fresh file before its bytes per row are known, and the
 * fewest rows a slice has (so the last stretch to the target is not
 * written row by row). */
#define PROBE_ROWS 1024
#define MIN_SLICE_ROWS 1024

struct floe_ice_rolling_writer {
    floe_fileio *io;
    const floe_ice_write_settings *s;
    floe_ice_value *partition;   /* owned copies */
    int32_t n_partition;
    int32_t *partition_ids;
    char *partition_path;        /* "" when unpartitioned */
    char *file_prefix;
    floe_ice_file_observer observer;
    int32_t seq;                 /* files started so far */
    bool *required_inside;       /* per top-level column: a required field below it */

    floe_pq_write_options opts;
    floe_pq_column_option *col_opts;
    floe_pq_kv kv;

    floe_pq_writer *pw;          /* the open file, or NULL */
    floe_output *out;            /* its output (owned by pw) */
    char *cur_location;

    char **created;              /* every location created */
    int32_t n_created, cap_created;
    floe_ice_written_files done; /* finished files not yet handed out */
    bool failed;
};

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Iceberg data writer"); }

/* ---- required columns ---------------------------------------------------------- */

static bool has_required_below(const floe_type *t) {
    for (int32_t i = 0; i < t->n_children; i++) {
        const floe_field *c = &t->children[i];
        /* The MAP entries struct is non-null by construction; its key too. */
        bool entries = t->id == FLOE_TYPE_MAP;
        if (!entries && !c->nullable) return true;
        if (has_required_below(c->type)) return true;
    }
    return false;
}

static floe_status null_error(const floe_ice_rolling_writer *w, const char *name) {
    return floe_error(FLOE_ERR_CONSTRAINT, "NULL value in required column '%s' of table %s", name,
                      w->s->table_location);
}

/* Check array `a` (type `wt` of the target, nullability `nullable`) and its
 * children for NULLs in required fields among the live slots: all slots
 * when `live` is NULL, else those with live[i] != 0. */
static floe_status check_array(const floe_ice_rolling_writer *w, const floe_array *a, const floe_type *wt,
                               bool nullable, const uint8_t *live, floe_buf *name) {
    if (!nullable && floe_array_null_count(a) > 0) {
        if (!live) return null_error(w, floe_buf_cstr(name));
        for (int64_t i = 0; i < a->length; i++)
            if (live[i] && floe_array_is_null(a, i)) return null_error(w, floe_buf_cstr(name));
    }
    if (!floe_type_is_nested(wt) || !has_required_below(wt)) return NULL;
    size_t name_len = name->len;
    floe_status st = NULL;
    for (int32_t c = 0; c < wt->n_children && !st; c++) {
        const floe_field *cf = &wt->children[c];
        const floe_array *ca = floe_array_child(a, wt->id == FLOE_TYPE_STRUCT ? c : 0);
        uint8_t *mask = floe_calloc((size_t)ca->length + 1, 1);
        if (!mask) return oom();
        for (int64_t i = 0; i < a->length; i++) {
            if ((live && !live[i]) || floe_array_is_null(a, i)) continue;
            if (wt->id == FLOE_TYPE_STRUCT) {
                mask[a->offset + i] = 1;
            } else {
                int64_t s0, s1;
                floe_array_get_range(a, i, &s0, &s1);
                for (int64_t k = s0; k < s1; k++) mask[k] = 1;
            }
        }
        /* MAP: the child is the entries struct; name its fields key/value. */
        bool entries = wt->id == FLOE_TYPE_MAP;
        if (!entries) st = floe_buf_printf(name, ".%s", cf->name);
        if (!st) st = check_array(w, ca, cf->type, entries ? true : cf->nullable, mask, name);
        name->len = name_len;
        if (name->data) name->data[name_len] = 0;
        floe_free(mask);
    }
    return st;
}

static floe_status check_required(const floe_ice_rolling_writer *w, const floe_batch *b) {
    const floe_schema *ws = w->s->write_schema;
    for (int32_t i = 0; i < ws->n_children; i++) {
        const floe_field *f = &ws->children[i];
        if (f->nullable && !w->required_inside[i]) continue;
        floe_buf name = FLOE_BUF_INIT;
        floe_status st = floe_buf_append_str(&name, f->name);
        if (!st) st = check_array(w, b->columns[i], f->type, f->nullable, NULL, &name);
        floe_buf_free(&name);
        if (st) return st;
    }
    return NULL;
}

/* ---- open / close files -------------------------------------------------------- */

static floe_status remember_created(floe_ice_rolling_writer *w, const char *loc) {
    if (w->n_created == w->cap_created) {
        int32_t nc = w->cap_created ? w->cap_created * 2 : 8;
        char **g = floe_realloc(w->created, (size_t)nc * sizeof *g);
        if (!g) return oom();
        w->created = g;
        w->cap_created = nc;
    }
    w->created[w->n_created] = floe_strdup(loc);
    if (!w->created[w->n_created]) return oom();
    w->n_created++;
    return NULL;
}

static floe_status open_file(floe_ice_rolling_writer *w) {
    char name[1024];
    int n = snprintf(name, sizeof name, "%s-%05d.parquet", w->file_prefix, w->seq + 1);
    if (n < 0 || (size_t)n >= sizeof name)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "data file prefix too long: '%s'", w->file_prefix);
    char *loc = NULL;
    FLOE_TRY(floe_ice_data_file_location(w->s, w->partition_path, name, &loc));
    w->seq++;
    floe_status st = remember_created(w, loc);
    if (st) {
        floe_free(loc);
        return st;
    }
    if (w->observer.created) w->observer.created(w->observer.arg, loc);
    floe_output *out = NULL;
    st = floe_fileio_create_output(w->io, loc, 0, &out);
    if (!st) st = floe_pq_writer_open(out, w->s->write_schema, &w->opts, &w->pw);
    if (st) {
        w->pw = NULL;
        floe_free(loc);
        return floe_status_wrap(st, "creating data file %s", w->created[w->n_created - 1]);
    }
    w->out = out;
    w->cur_location = loc;
    return NULL;
}

/* The data_file record of a closed file. */
static floe_status make_record(floe_ice_rolling_writer *w, const floe_pq_write_result *r, uint8_t **rec,
                               size_t *len) {
    const floe_ice_write_settings *s = w->s;
    floe_arena arena;
    floe_arena_init(&arena, 0);
    floe_ice_data_file f;
    floe_ice_data_file_init(&f);
    f.content = FLOE_ICE_CONTENT_DATA;
    f.file_path = w->cur_location;
    f.file_format = "PARQUET";
    f.spec_id = s->spec_id;
    f.n_partition = w->n_partition;
    f.partition_ids = w->partition_ids;
    f.partition = w->partition;
    f.record_count = r->record_count;
    f.file_size_in_bytes = r->file_size;
    f.n_split_offsets = r->n_row_groups;
    f.split_offsets = r->split_offsets;
    f.has_sort_order_id = true;
    f.sort_order_id = s->sort_order_id;
    floe_status st = floe_ice_metrics_from_parquet(s, s->schema, r, &arena, &f);
    if (!st) st = floe_ice_data_file_encode(s->df_codec, &f, rec, len);
    floe_arena_destroy(&arena);
    return st;
}

static floe_status close_file(floe_ice_rolling_writer *w) {
    if (!w->pw) return NULL;
    floe_pq_write_result *r = NULL;
    floe_pq_writer *pw = w->pw;
    w->pw = NULL;
    w->out = NULL;
    floe_status st = floe_pq_writer_close(pw, &r);
    uint8_t *rec = NULL;
    size_t len = 0;
    if (!st) st = make_record(w, r, &rec, &len);
    if (!st) st = floe_ice_written_files_append(&w->done, rec, len, w->cur_location, r->record_count, r->file_size);
    if (!st) {
        w->cur_location = NULL;
    } else {
        floe_free(rec);
        st = floe_status_wrap(st, "finishing data file %s", w->cur_location);
        floe_free(w->cur_location);
        w->cur_location = NULL;
    }
    floe_pq_write_result_free(r);
    return st;
}

/* ---- public ---------------------------------------------------------------------- */

static floe_status setup(floe_ice_rolling_writer *w, const floe_ice_value *partition, int32_t n_partition,
                         const char *file_prefix) {
    const floe_ice_write_settings *s = w->s;
    w->file_prefix = floe_strdup(file_prefix);
    if (!w->file_prefix) return oom();
    if (n_partition != s->spec->n_fields)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "partition spec %d has %d fields but %d values were given",
                          s->spec_id, s->spec->n_fields, n_partition);
    w->partition = floe_calloc((size_t)n_partition + 1, sizeof *w->partition);
    w->partition_ids = floe_calloc((size_t)n_partition + 1, sizeof *w->partition_ids);
    if (!w->partition || !w->partition_ids) return oom();
    for (int32_t i = 0; i < n_partition; i++) {
        FLOE_TRY(floe_ice_value_copy(&partition[i], &w->partition[i]));
        w->n_partition = i + 1;
        w->partition_ids[i] = s->spec->fields[i].field_id;
    }
    FLOE_TRY(floe_ice_partition_values_check(s->spec, s->schema, w->partition, w->n_partition));
    FLOE_TRY(floe_ice_write_partition_path(s->spec, s->schema, w->partition, w->n_partition, &w->partition_path));

    const floe_schema *ws = s->write_schema;
    w->required_inside = floe_calloc((size_t)ws->n_children + 1, sizeof *w->required_inside);
    if (!w->required_inside) return oom();
    for (int32_t i = 0; i < ws->n_children; i++) w->required_inside[i] = has_required_below(ws->children[i].type);

    floe_pq_write_options_init(&w->opts);
    w->opts.codec = s->codec;
    w->opts.level = s->level;
    w->opts.row_group_bytes = s->row_group_bytes;
    w->opts.page_bytes = s->page_bytes;
    w->opts.page_rows = s->page_rows;
    w->opts.dict_bytes = s->dict_bytes;
    w->opts.dictionary = s->dictionary;
    w->opts.data_page_v2 = s->data_page_v2;
    w->opts.bloom_max_bytes = s->bloom_max_bytes;
    if (s->n_bloom) {
        w->col_opts = floe_calloc((size_t)s->n_bloom, sizeof *w->col_opts);
        if (!w->col_opts) return oom();
        for (int32_t i = 0; i < s->n_bloom; i++) {
            w->col_opts[i].field_id = s->bloom_ids[i];
            w->col_opts[i].encoding = FLOE_PQ_WENC_DEFAULT;
            w->col_opts[i].bloom_filter = true;
        }
        w->opts.columns = w->col_opts;
        w->opts.n_columns = s->n_bloom;
    }
    w->kv.key = "iceberg.schema";
    w->kv.value = s->schema_json;
    w->opts.kv = &w->kv;
    w->opts.n_kv = 1;
    return NULL;
}

floe_status floe_ice_rolling_writer_open(floe_fileio *io, const floe_ice_write_target *t,
                                         const floe_ice_write_settings *s, const floe_ice_value *partition,
                                         int32_t n_partition, const char *file_prefix,
                                         const floe_ice_file_observer *observer, floe_ice_rolling_writer **out) {
    *out = NULL;
    if (!io || !s || !file_prefix || !*file_prefix)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "rolling writer: FileIO, settings and file prefix are required");
    floe_ice_rolling_writer *w = floe_calloc(1, sizeof *w);
    if (!w) return oom();
    w->io = io;
    w->s = s;
    if (observer) w->observer = *observer;
    (void)t; /* everything it holds was resolved into the settings */
    floe_status st = setup(w, partition, n_partition, file_prefix);
    if (st) {
        floe_ice_rolling_writer_free(w, true);
        return st;
    }
    *out = w;
    return NULL;
}

/* Rows of the next slice for the open file. */
static int64_t slice_rows(const floe_ice_rolling_writer *w, int64_t left) {
    int64_t rows = floe_pq_writer_rows(w->pw);
    int64_t n;
    if (rows == 0) {
        n = PROBE_ROWS;
    } else {
        int64_t est = floe_pq_writer_estimated_size(w->pw);
        int64_t per_row = est / rows + 1;
        n = (w->s->target_file_size - est) / per_row;
        if (n < MIN_SLICE_ROWS) n = MIN_SLICE_ROWS;
    }
    return n < left ? n : left;
}

static floe_status write_rows(floe_ice_rolling_writer *w, const floe_batch *b) {
    int64_t off = 0;
    while (off < b->num_rows) {
        if (!w->pw) FLOE_TRY(open_file(w));
        int64_t n = slice_rows(w, b->num_rows - off);
        if (off == 0 && n == b->num_rows) {
            FLOE_TRY(floe_pq_writer_write(w->pw, b));
        } else {
            floe_batch *slice = NULL;
            FLOE_TRY(floe_batch_slice(b, off, n, &slice));
            floe_status st = floe_pq_writer_write(w->pw, slice);
            floe_batch_release(slice);
            FLOE_TRY(st);
        }
        off += n;
        if (floe_pq_writer_estimated_size(w->pw) >= w->s->target_file_size) FLOE_TRY(close_file(w));
    }
    return NULL;
}

floe_status floe_ice_rolling_writer_write(floe_ice_rolling_writer *w, const floe_batch *b) {
    if (w->failed) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "rolling writer: write after a failure");
    const floe_schema *ws = w->s->write_schema;
    if (b->num_columns < ws->n_children)
        return floe_error(FLOE_ERR_TYPE, "rolling writer: batch has %d columns, table %s has %d", b->num_columns,
                          w->s->table_location, ws->n_children);
    for (int32_t i = 0; i < ws->n_children; i++)
        if (!floe_type_compatible(b->columns[i]->type, ws->children[i].type))
            return floe_error(FLOE_ERR_TYPE, "rolling writer: column %d ('%s') has the wrong type", i,
                              ws->children[i].name);
    if (b->num_rows == 0) return NULL;
    FLOE_TRY(check_required(w, b));
    /* Trailing columns (partition values) are not written. */
    floe_batch *own = NULL;
    const floe_batch *in = b;
    if (b->num_columns > ws->n_children) {
        int32_t *idx = floe_calloc((size_t)ws->n_children + 1, sizeof *idx);
        if (!idx) return oom();
        for (int32_t i = 0; i < ws->n_children; i++) idx[i] = i;
        floe_status st = floe_batch_project(b, idx, ws->n_children, &own);
        floe_free(idx);
        FLOE_TRY(st);
        in = own;
    }
    floe_status st = write_rows(w, in);
    floe_batch_release(own);
    if (st) w->failed = true;
    return st;
}

int64_t floe_ice_rolling_writer_buffered_bytes(const floe_ice_rolling_writer *w) {
    if (!w->pw) return 0;
    int64_t est = floe_pq_writer_estimated_size(w->pw);
    int64_t written = w->out ? (int64_t)w->out->bytes_written : 0;
    return est > written ? est - written : 0;
}

floe_status floe_ice_rolling_writer_flush(floe_ice_rolling_writer *w) {
    if (w->failed) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "rolling writer: flush after a failure");
    floe_status st = close_file(w);
    if (st) w->failed = true;
    return st;
}

/* Room for `extra` more files in f's arrays. */
static floe_status written_files_reserve(floe_ice_written_files *f, int32_t extra) {
    size_t n = (size_t)f->n + (size_t)extra;
    uint8_t **r = floe_realloc(f->records, n * sizeof *r);
    if (r) f->records = r;
    size_t *l = r ? floe_realloc(f->lens, n * sizeof *l) : NULL;
    if (l) f->lens = l;
    char **p = l ? floe_realloc(f->locations, n * sizeof *p) : NULL;
    if (p) f->locations = p;
    int64_t *rc = p ? floe_realloc(f->record_counts, n * sizeof *rc) : NULL;
    if (rc) f->record_counts = rc;
    int64_t *fs = rc ? floe_realloc(f->file_sizes, n * sizeof *fs) : NULL;
    if (fs) f->file_sizes = fs;
    return fs ? NULL : oom();
}

floe_status floe_ice_written_files_append(floe_ice_written_files *f, uint8_t *record, size_t len, char *location,
                                          int64_t record_count, int64_t file_size) {
    FLOE_TRY(written_files_reserve(f, 1));
    f->records[f->n] = record;
    f->lens[f->n] = len;
    f->locations[f->n] = location;
    f->record_counts[f->n] = record_count;
    f->file_sizes[f->n] = file_size;
    f->n++;
    return NULL;
}

/* Move d's files to the end of o. */
static floe_status append_out(floe_ice_written_files *o, floe_ice_written_files *d) {
    if (d->n == 0) return NULL;
    FLOE_TRY(written_files_reserve(o, d->n));
    for (int32_t i = 0; i < d->n; i++) {
        o->records[o->n + i] = d->records[i];
        o->lens[o->n + i] = d->lens[i];
        o->locations[o->n + i] = d->locations[i];
        o->record_counts[o->n + i] = d->record_counts[i];
        o->file_sizes[o->n + i] = d->file_sizes[i];
    }
    o->n += d->n;
    d->n = 0;
    return NULL;
}

floe_status floe_ice_rolling_writer_finish(floe_ice_rolling_writer *w, floe_ice_written_files *out) {
    if (w->failed) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "rolling writer: finish after a failure");
    floe_status st = close_file(w);
    if (!st) st = append_out(out, &w->done);
    w->failed = true; /* only free may follow */
    return st;
}

void floe_ice_written_files_free(floe_ice_written_files *f) {
    if (!f) return;
    for (int32_t i = 0; i < f->n; i++) {
        floe_free(f->records[i]);
        floe_free(f->locations[i]);
    }
    floe_free(f->records);
    floe_free(f->lens);
    floe_free(f->locations);
    floe_free(f->record_counts);
    floe_free(f->file_sizes);
    memset(f, 0, sizeof *f);
}

void floe_ice_rolling_writer_free(floe_ice_rolling_writer *w, bool abandon) {
    if (!w) return;
    if (w->pw) floe_pq_writer_abort(w->pw);
    if (abandon) {
        for (int32_t i = 0; i < w->n_created; i++) {
            floe_status st = floe_fileio_delete(w->io, w->created[i]);
            floe_status_free(st); /* best effort: the job registry retries */
        }
    }
    for (int32_t i = 0; i < w->n_created; i++) floe_free(w->created[i]);
    floe_free(w->created);
    floe_ice_written_files_free(&w->done);
    floe_free(w->cur_location);
    for (int32_t i = 0; i < w->n_partition; i++) floe_ice_value_free(&w->partition[i]);
    floe_free(w->partition);
    floe_free(w->partition_ids);
    floe_free(w->partition_path);
    floe_free(w->file_prefix);
    floe_free(w->required_inside);
    floe_free(w->col_opts);
    floe_free(w);
}

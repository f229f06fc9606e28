/*
 * proc_rewrite_deletes.c — rewrite_position_delete_files(table, options):
 * Spark's RewritePositionDeleteFilesProcedure (Iceberg Java's
 * RewritePositionDeleteFilesSparkAction with its bin-pack planner), for
 * format version 2 position delete files.
 *
 * The table's live position delete files are grouped by partition (spec
 * and tuple).  A file is a candidate when its size is outside
 * [min-file-size-bytes, max-file-size-bytes] (75% and 180% of
 * target-file-size-bytes, default the table's
 * write.delete.target-file-size-bytes, 64 MiB), or always with
 * rewrite-all; a group's candidates are rewritten when there are at least
 * min-input-files (5) of them and more than one, or they hold more than
 * the target, or more than the maximum, or with rewrite-all.  Rewriting
 * reads every (file_path, pos) row, drops the dangling ones (naming a data
 * file that is no longer live) and writes one position delete file per
 * data file (floe's write.delete.granularity=file layout, Java's default),
 * committed as one "replace" row delta that removes the rewritten files:
 * the new files apply to the same data, so no row changes.
 *
 * Format version 3 (Java's v3 rewrite): every live position delete file
 * is rewritten (v3 adds none; the ones left from before an upgrade are
 * merged), its positions become one deletion vector per data file — all
 * of them in one Puffin file — and the commit's DV rule removes the
 * file-scoped delete files of those data files, the rest by path.  A data
 * file that already has a DV keeps it: readers ignore position delete
 * files beside a DV (the writer of the DV merged them in), so their rows
 * for that file are dropped, as the dangling ones are.
 *
 * Result (Spark's): rewritten_delete_files_count, added_delete_files_count,
 * rewritten_bytes_count, added_bytes_count (v3: the Puffin file's bytes).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/hashmap.h"
#include "floe/catalog.h"
#include "floe/iceberg_data_writer.h"
#include "floe/iceberg_deletes.h"
#include "floe/memory.h"
#include "iceberg/update/table_update_internal.h"
#include "sql/procedures/procedure.h"
#include "sql/session_internal.h"

#define NAME_CAP 256
#define DEFAULT_DELETE_TARGET (64LL * 1024 * 1024)

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "rewrite_position_delete_files: out of memory"); }

typedef struct options {
    bool rewrite_all;
    int64_t min_input_files, target, min_size, max_size;
} options;

static floe_status parse_long(const floe_proc_call *call, const floe_proc_arg *a, const char *key, const char *v,
                              int64_t *out) {
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno || x < 0)
        return floe_proc_error(call, a, FLOE_ERR_INVALID_ARGUMENT, "option '%s' is '%s', not a non-negative integer",
                               key, v);
    *out = x;
    return NULL;
}

static floe_status parse_options(const floe_proc_call *call, const floe_ice_table_metadata *md, options *o) {
    const floe_proc_arg *a = floe_proc_get(call, "options");
    memset(o, 0, sizeof *o);
    o->min_input_files = 5;
    o->target = DEFAULT_DELETE_TARGET;
    const char *tv = floe_ice_tm_property(md, "write.delete.target-file-size-bytes");
    if (tv) FLOE_TRY(parse_long(call, NULL, "write.delete.target-file-size-bytes", tv, &o->target));
    bool have_min = false, have_max = false;
    for (int32_t i = 0; a && a->given && i < a->n; i++) {
        const char *k = a->strs[2 * i], *v = a->strs[2 * i + 1];
        if (strcmp(k, "rewrite-all") == 0) {
            if (strcasecmp(v, "true") == 0) o->rewrite_all = true;
            else if (strcasecmp(v, "false") == 0) o->rewrite_all = false;
            else return floe_proc_error(call, a, FLOE_ERR_INVALID_ARGUMENT, "option 'rewrite-all' is '%s', not true or false", v);
        } else if (strcmp(k, "min-input-files") == 0) {
            FLOE_TRY(parse_long(call, a, k, v, &o->min_input_files));
        } else if (strcmp(k, "target-file-size-bytes") == 0) {
            FLOE_TRY(parse_long(call, a, k, v, &o->target));
        } else if (strcmp(k, "min-file-size-bytes") == 0) {
            FLOE_TRY(parse_long(call, a, k, v, &o->min_size));
            have_min = true;
        } else if (strcmp(k, "max-file-size-bytes") == 0) {
            FLOE_TRY(parse_long(call, a, k, v, &o->max_size));
            have_max = true;
        } else {
            return floe_proc_error(call, a, FLOE_ERR_INVALID_ARGUMENT,
                                   "Cannot use options [%s], they are not supported by the action or the rewriter", k);
        }
    }
    if (!have_min) o->min_size = (int64_t)((double)o->target * 0.75);
    if (!have_max) o->max_size = (int64_t)((double)o->target * 1.8);
    return NULL;
}

/* The positions deleted from one data file, gathered from the group. */
typedef struct bucket {
    int64_t *pos;
    size_t n, cap;
} bucket;

typedef struct rewrite_ctx {
    floe_strmap live;      /* recorded paths of live data files -> 1 (2: it has a DV, v3) */
    floe_strmap buckets;   /* data file path -> bucket * */
    char **paths;          /* the data files of `buckets`, in first-seen order */
    size_t n_paths, cap_paths;
    int64_t dangling;
} rewrite_ctx;

static floe_status add_row(rewrite_ctx *c, const char *path, size_t len, int64_t pos) {
    char *key = floe_strndup(path, len);
    if (!key) return oom();
    if (floe_strmap_get_c(&c->live, key) != (void *)1) {
        floe_free(key);
        c->dangling++;
        return NULL;
    }
    bucket *b = floe_strmap_get_c(&c->buckets, key);
    if (!b) {
        b = floe_calloc(1, sizeof *b);
        if (c->n_paths == c->cap_paths) {
            size_t cap = c->cap_paths ? c->cap_paths * 2 : 16;
            char **grown = floe_realloc(c->paths, cap * sizeof *grown);
            if (!grown) {
                floe_free(b);
                floe_free(key);
                return oom();
            }
            c->paths = grown;
            c->cap_paths = cap;
        }
        floe_status st = b ? floe_strmap_put_c(&c->buckets, key, b, NULL) : oom();
        if (st) {
            floe_free(b);
            floe_free(key);
            return st;
        }
        c->paths[c->n_paths++] = key;
    } else {
        floe_free(key);
    }
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        int64_t *grown = floe_realloc(b->pos, cap * sizeof *grown);
        if (!grown) return oom();
        b->pos = grown;
        b->cap = cap;
    }
    b->pos[b->n++] = pos;
    return NULL;
}

static floe_status rows_fn(void *vc, const floe_batch *b) {
    rewrite_ctx *c = vc;
    const floe_array *fp = b->columns[0], *ps = b->columns[1];
    for (int64_t i = 0; i < b->num_rows; i++) {
        if (floe_array_is_null(fp, i) || floe_array_is_null(ps, i)) continue; /* deletes nothing */
        floe_strview s = floe_array_get_str(fp, i);
        int64_t pos = ps->type->id == FLOE_TYPE_INT64 ? floe_array_get_int64(ps, i) : floe_array_get_int32(ps, i);
        if (pos < 0) return floe_error(FLOE_ERR_CORRUPT, "negative pos %" PRId64, pos);
        FLOE_TRY(add_row(c, s.data, (size_t)s.len, pos));
    }
    return NULL;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void ctx_free(rewrite_ctx *c) {
    for (size_t i = 0; i < c->n_paths; i++) {
        bucket *b = floe_strmap_get_c(&c->buckets, c->paths[i]);
        if (b) floe_free(b->pos);
        floe_free(b);
        floe_free(c->paths[i]);
    }
    floe_free(c->paths);
    floe_strmap_free(&c->buckets);
    floe_strmap_free(&c->live);
}

/* Is `f` a (version 2) position delete file, not a DV? */
static bool is_pos_file(const floe_ice_data_file *f) {
    return f->content == FLOE_ICE_CONTENT_POSITION_DELETES && !f->has_content_offset;
}

/* Choose the files to rewrite: chosen[i] for live file i. */
static floe_status plan(const floe_ice_table *t, const floe_ice_live_files *lf, const options *o, uint8_t *chosen) {
    floe_strmap groups = FLOE_STRMAP_INIT; /* partition key -> 1 + first file index */
    uint8_t *cand = floe_calloc(lf->n + 1, 1);
    size_t *group_of = floe_calloc(lf->n + 1, sizeof *group_of);
    floe_status st = cand && group_of ? NULL : oom();
    for (size_t i = 0; !st && i < lf->n; i++) {
        const floe_ice_data_file *f = &lf->files[i].file;
        if (!is_pos_file(f)) continue;
        cand[i] = o->rewrite_all || f->file_size_in_bytes < o->min_size || f->file_size_in_bytes > o->max_size;
        const floe_ice_partition_spec *spec = floe_ice_tm_spec(t->md, f->spec_id);
        char *part = NULL;
        st = spec && f->n_partition == spec->n_fields ? floe_ice_partition_path(spec, f->partition, f->n_partition, &part)
                                                      : NULL;
        char key[64 + 1024];
        if (!st) snprintf(key, sizeof key, "%d/%s", (int)f->spec_id, part ? part : "?");
        floe_free(part);
        if (st) break;
        void *g = floe_strmap_get_c(&groups, key);
        if (!g) {
            g = (void *)(uintptr_t)(i + 1);
            st = floe_strmap_put_c(&groups, key, g, NULL);
        }
        group_of[i] = (size_t)(uintptr_t)g - 1;
    }
    /* Per group (named by its first file): count the candidates. */
    for (size_t g = 0; !st && g < lf->n; g++) {
        if (!is_pos_file(&lf->files[g].file) || group_of[g] != g) continue;
        int64_t n = 0, bytes = 0;
        for (size_t i = g; i < lf->n; i++)
            if (cand[i] && group_of[i] == g) n++, bytes += lf->files[i].file.file_size_in_bytes;
        if (n == 0) continue;
        bool rewrite = o->rewrite_all || (n > 1 && n >= o->min_input_files) || (n > 1 && bytes > o->target) ||
                       bytes > o->max_size;
        for (size_t i = g; rewrite && i < lf->n; i++)
            if (cand[i] && group_of[i] == g) chosen[i] = 1;
    }
    floe_free(cand);
    floe_free(group_of);
    floe_strmap_free(&groups);
    return st;
}

/* Read the chosen files, write the new ones, commit. */
static floe_status rewrite(floe_proc_call *call, const char *ns, const char *name, const floe_ice_table *t,
                           const options *o, int64_t counts[4]) {
    const floe_ice_snapshot *cur = floe_ice_tm_current_snapshot(t->md);
    if (!cur) return NULL;
    floe_ice_live_files *lf = NULL;
    FLOE_TRY(floe_ice_table_live_files(t, cur, NULL, &lf));
    rewrite_ctx c;
    memset(&c, 0, sizeof c);
    floe_strmap_init(&c.live);
    floe_strmap_init(&c.buckets);
    uint8_t *chosen = floe_calloc(lf->n + 1, 1);
    const char **removed = floe_calloc(lf->n + 1, sizeof *removed);
    floe_ice_written_files written;
    memset(&written, 0, sizeof written);
    floe_ice_write_settings *settings = NULL;
    const char **props = floe_calloc((size_t)t->md->n_properties * 2 + 1, sizeof *props);
    floe_status st = chosen && removed && props ? NULL : oom();
    bool v3 = t->md->format_version >= 3;
    for (size_t i = 0; !st && i < lf->n; i++)
        if (lf->files[i].file.content == FLOE_ICE_CONTENT_DATA)
            st = floe_strmap_put_c(&c.live, lf->files[i].file.file_path, (void *)1, NULL);
    /* v3: a data file with a DV keeps it (see the top of the file). */
    for (size_t i = 0; v3 && !st && i < lf->n; i++) {
        const floe_ice_data_file *f = &lf->files[i].file;
        if (f->content == FLOE_ICE_CONTENT_POSITION_DELETES && !is_pos_file(f) && f->referenced_data_file &&
            floe_strmap_get_c(&c.live, f->referenced_data_file))
            st = floe_strmap_put_c(&c.live, f->referenced_data_file, (void *)2, NULL);
    }
    for (size_t i = 0; v3 && !st && i < lf->n; i++) chosen[i] = is_pos_file(&lf->files[i].file);
    if (!st && !v3) st = plan(t, lf, o, chosen);
    int32_t n_removed = 0;
    for (size_t i = 0; !st && i < lf->n; i++) {
        if (!chosen[i]) continue;
        const floe_ice_live_file *f = &lf->files[i];
        if (f->file.file_format && strcasecmp(f->file.file_format, "parquet") != 0) {
            st = floe_error(FLOE_ERR_UNSUPPORTED, "position delete file '%s' is %s: only Parquet ones are rewritten",
                            f->file.file_path, f->file.file_format);
            break;
        }
        floe_input *in = NULL;
        st = f->file.file_size_in_bytes > 0
                 ? floe_fileio_open_input_sized(t->io, f->resolved_path, (uint64_t)f->file.file_size_in_bytes, &in)
                 : floe_fileio_open_input(t->io, f->resolved_path, &in);
        if (!st) {
            st = floe_ice_posdel_read_rows(in, rows_fn, &c);
            floe_input_close(in);
        }
        removed[n_removed++] = f->file.file_path;
        counts[0]++;
        counts[2] += f->file.file_size_in_bytes;
    }
    if (!st && n_removed > 0) {
        for (int32_t i = 0; i < t->md->n_properties; i++) {
            props[2 * i] = t->md->properties[i].key;
            props[2 * i + 1] = t->md->properties[i].value;
        }
        floe_ice_write_target wt = {t->md->location, t->md->format_version, floe_ice_tm_current_schema(t->md),
                                    floe_ice_tm_default_spec(t->md), 0, props, t->md->n_properties, NULL};
        st = floe_ice_write_settings_new(&wt, &settings);
    }
    char uuid[37] = {0};
    if (!st && n_removed > 0) st = floe_ice_uuid4(uuid);
    /* The writer needs a FileIO; a local table may have none (NULL). */
    floe_fileio *own_io = NULL, *io = t->io;
    if (!st && !io && c.n_paths > 0) st = floe_fileio_new(NULL, 0, &own_io), io = own_io;
    floe_ice_dv_input *dvs = v3 ? floe_calloc(c.n_paths + 1, sizeof *dvs) : NULL;
    if (!st && v3 && !dvs) st = oom();
    for (size_t k = 0; !st && k < c.n_paths; k++) {
        bucket *b = floe_strmap_get_c(&c.buckets, c.paths[k]);
        qsort(b->pos, b->n, sizeof *b->pos, cmp_i64);
        size_t m = 0;
        for (size_t j = 0; j < b->n; j++)
            if (m == 0 || b->pos[j] != b->pos[m - 1]) b->pos[m++] = b->pos[j];
        char file[96];
        snprintf(file, sizeof file, "00000-%s-%05zu-deletes.parquet", uuid, k + 1);
        if (v3) dvs[k] = (floe_ice_dv_input){c.paths[k], b->pos, (int64_t)m};
        else st = floe_ice_write_position_deletes(io, settings, c.paths[k], b->pos, (int64_t)m, file, NULL, &written);
    }
    if (!st && v3 && c.n_paths > 0) {
        char file[96];
        snprintf(file, sizeof file, "00000-%s-deletes.puffin", uuid);
        st = floe_ice_write_deletion_vectors(io, settings, dvs, (int32_t)c.n_paths, file, NULL, &written);
    }
    floe_free(dvs);
    if (!st && n_removed > 0) {
        floe_row_delta d;
        memset(&d, 0, sizeof d);
        d.delete_files = (const uint8_t *const *)written.records;
        d.delete_lens = written.lens;
        d.n_deletes = written.n;
        d.removed_delete_paths = removed;
        d.n_removed_deletes = n_removed;
        d.base_snapshot_id = cur->snapshot_id;
        d.isolation = FLOE_ISOLATION_SNAPSHOT;
        d.operation = "replace";
        int64_t sid = -1;
        floe_commit_retry r = floe_catalog_retry_settings(t->md);
        st = floe_catalog_row_delta(call->s->catalog, ns, name, &d, NULL, 0, r.num_retries, &sid);
    }
    if (!st) {
        counts[1] = written.n;
        for (int32_t i = 0; i < written.n; i++) counts[3] += written.file_sizes[i];
        if (v3 && written.n > 0) counts[3] = written.file_sizes[0]; /* one Puffin file holds them all */
    } else {
        /* nothing committed: the files written are nobody's */
        for (int32_t i = 0; i < written.n; i++) floe_status_free(floe_fileio_delete(t->io, written.locations[i]));
    }
    floe_ice_written_files_free(&written);
    floe_fileio_free(own_io);
    floe_ice_write_settings_free(settings);
    floe_free(props);
    floe_free(removed);
    floe_free(chosen);
    ctx_free(&c);
    floe_ice_live_files_free(lf);
    return st;
}

static floe_status rewrite_position_delete_files(floe_proc_call *call) {
    char ns[NAME_CAP], name[NAME_CAP];
    FLOE_TRY(floe_proc_table_name(call, floe_proc_get(call, "table"), ns, NAME_CAP, name, NAME_CAP));
    floe_ice_table *t = NULL;
    FLOE_TRY(floe_catalog_load_table(call->s->catalog, ns, name, &t));
    options o;
    floe_status st = parse_options(call, t->md, &o);
    int64_t counts[4] = {0, 0, 0, 0};
    if (!st) {
        st = rewrite(call, ns, name, t, &o, counts);
        if (st) st = floe_status_wrap(st, "rewrite_position_delete_files %s.%s", ns, name);
    }
    floe_ice_table_free(t);
    if (st) return st;
    FLOE_TRY(floe_proc_add_row(call));
    for (int k = 0; k < 4; k++) FLOE_TRY(floe_proc_add_long(call, counts[k]));
    return NULL;
}

static const floe_proc_param k_params[] = {
    {"table", FLOE_PROC_STRING, true},
    {"options", FLOE_PROC_MAP, false},
};
static const floe_proc_column k_columns[] = {
    {"rewritten_delete_files_count", FLOE_PROC_LONG},
    {"added_delete_files_count", FLOE_PROC_LONG},
    {"rewritten_bytes_count", FLOE_PROC_LONG},
    {"added_bytes_count", FLOE_PROC_LONG},
};
const floe_proc_def floe_proc_rewrite_position_delete_files = {
    "rewrite_position_delete_files", k_params, 2, k_columns, 4, rewrite_position_delete_files, true};

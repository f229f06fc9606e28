/*
 * delta_deletes.c — the position deletes of one IcebergWrite stream
 * (delta_deletes.h).
 *
 * The planner distributes a row-level change by data file (hash of
 * _file), so every position of one data file reaches one stream, which
 * keeps them per file in a map and, when its input ends, sorts each
 * file's positions and writes them as that file's one position delete
 * file — the input needs no sort, and the rows written alongside (UPDATE,
 * MERGE) stream to the data writers untouched.  Memory: 8 bytes per
 * deleted row plus one entry per data file touched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/write/delta_deletes.h"
#include "floe/iceberg_deletes.h"
#include "floe/iceberg_manifest.h"
#include "floe/memory.h"

typedef struct posvec {
    int64_t *pos;
    size_t n, cap;
    char *path; /* the data file (a copy, for the last-file check) */
    size_t len;
} posvec;

static void posvec_free(void *v) {
    posvec *p = v;
    if (!p) return;
    floe_free(p->pos);
    floe_free(p->path);
    floe_free(p);
}

void floe_delta_deletes_init(floe_delta_deletes *d) {
    floe_strmap_init(&d->files);
    d->n_positions = 0;
    d->last = NULL;
}

void floe_delta_deletes_free(floe_delta_deletes *d) {
    floe_strmap_free_with(&d->files, posvec_free);
    d->n_positions = 0;
    d->last = NULL;
}

/* The positions of data file `path`, made when new. */
static floe_status file_of(floe_delta_deletes *d, const char *path, size_t len, posvec **out) {
    posvec *v = d->last;
    if (v && v->len == len && memcmp(v->path, path, len) == 0) {
        *out = v;
        return NULL;
    }
    void **slot = NULL;
    bool inserted = false;
    floe_str key = {path, len};
    FLOE_TRY(floe_strmap_upsert(&d->files, key, &slot, &inserted));
    v = *slot;
    if (!v) {
        v = floe_calloc(1, sizeof *v);
        if (v && !(v->path = floe_malloc(len + 1))) {
            floe_free(v);
            v = NULL;
        }
        if (!v) {
            floe_strmap_remove(&d->files, key, NULL);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "collecting position deletes");
        }
        memcpy(v->path, path, len);
        v->path[len] = 0;
        v->len = len;
        *slot = v;
    }
    d->last = v;
    *out = v;
    return NULL;
}

floe_status floe_delta_deletes_add(floe_delta_deletes *d, const char *path, size_t len, int64_t pos) {
    posvec *v = NULL;
    FLOE_TRY(file_of(d, path, len, &v));
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        int64_t *g = floe_realloc(v->pos, cap * sizeof *g);
        if (!g) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "collecting position deletes");
        v->pos = g;
        v->cap = cap;
    }
    v->pos[v->n++] = pos;
    d->n_positions++;
    return NULL;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Sort and de-duplicate one file's new positions (a duplicate is an error
 * when unique). */
static floe_status settle(posvec *v, const char *path, bool unique, const char *what) {
    qsort(v->pos, v->n, sizeof *v->pos, cmp_i64);
    size_t w = 1;
    for (size_t i = 1; i < v->n; i++) {
        if (v->pos[i] == v->pos[w - 1]) {
            if (unique)
                return floe_error(FLOE_ERR_CONSTRAINT,
                                  "%s cannot affect a row a second time: row %lld of %s matches more than one "
                                  "source row",
                                  what, (long long)v->pos[i], path);
            continue;
        }
        v->pos[w++] = v->pos[i];
    }
    v->n = w;
    if (v->pos[0] < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: a negative row position (%lld) in %s", what,
                          (long long)v->pos[0], path);
    return NULL;
}

/* The first of the older deletes (sorted by data file) of `path`. */
static int32_t first_old(const floe_delta_old_delete *old, int32_t n, const char *path) {
    int32_t lo = 0, hi = n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (strcmp(old[mid].data_file, path) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Format version 3: one DV per data file, older deletes merged in. */
static floe_status write_dvs(floe_delta_deletes *d, floe_fileio *io, const floe_ice_write_settings *s,
                             const char *prefix, const floe_ice_file_observer *observer, bool unique, const char *what,
                             const floe_delta_old_delete *old, int32_t n_old, floe_ice_written_files *out,
                             int64_t *distinct) {
    size_t n_files = d->files.size;
    floe_ice_posdel **sets = floe_calloc(n_files + 1, sizeof *sets);
    floe_ice_dv_input *dvs = floe_calloc(n_files + 1, sizeof *dvs);
    floe_status st = sets && dvs ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "writing deletion vectors");
    size_t it = 0, k = 0;
    floe_str key;
    void *val = NULL;
    while (!st && floe_strmap_next(&d->files, &it, &key, &val)) {
        posvec *v = val;
        if (!v || v->n == 0) continue;
        st = settle(v, key.ptr, unique, what);
        if (!st) st = floe_ice_posdel_new(&sets[k]);
        if (!st) st = floe_ice_posdel_add(sets[k], v->pos, v->n);
        for (int32_t i = first_old(old, n_old, key.ptr); !st && i < n_old && strcmp(old[i].data_file, key.ptr) == 0;
             i++) {
            const floe_delta_old_delete *o = &old[i];
            floe_ice_data_file df;
            floe_ice_data_file_init(&df);
            df.content = FLOE_ICE_CONTENT_POSITION_DELETES;
            df.file_path = o->location;
            df.file_format = o->format;
            df.record_count = o->record_count;
            df.file_size_in_bytes = o->file_size;
            df.referenced_data_file = o->referenced_data_file;
            if (o->content_offset >= 0) {
                df.has_content_offset = true;
                df.content_offset = o->content_offset;
                df.has_content_size_in_bytes = true;
                df.content_size_in_bytes = o->content_size;
            }
            st = floe_status_wrap(floe_ice_posdel_load(sets[k], io, &df, o->location, key.ptr, NULL, NULL),
                                  "merging the deletes of %s", key.ptr);
        }
        if (!st) st = floe_ice_posdel_finish(sets[k]);
        if (!st) {
            dvs[k].data_file_path = key.ptr;
            dvs[k].positions = floe_ice_posdel_positions(sets[k]);
            dvs[k].n = floe_ice_posdel_count(sets[k]);
            *distinct += (int64_t)v->n;
            k++;
        }
    }
    char name[256];
    snprintf(name, sizeof name, "%s-deletes.puffin", prefix);
    if (!st && k > 0) st = floe_ice_write_deletion_vectors(io, s, dvs, (int32_t)k, name, observer, out);
    for (size_t i = 0; sets && i <= k && i < n_files + 1; i++) floe_ice_posdel_free(sets[i]);
    floe_free(sets);
    floe_free(dvs);
    return st;
}

floe_status floe_delta_deletes_write(floe_delta_deletes *d, floe_fileio *io, const floe_ice_write_settings *s,
                                     const char *prefix, const floe_ice_file_observer *observer, bool unique,
                                     const char *what, int32_t format_version, const floe_delta_old_delete *old,
                                     int32_t n_old, floe_ice_written_files *out, int64_t *distinct) {
    *distinct = 0;
    if (format_version >= 3) return write_dvs(d, io, s, prefix, observer, unique, what, old, n_old, out, distinct);
    size_t it = 0;
    floe_str key;
    void *val = NULL;
    int64_t seq = 0;
    while (floe_strmap_next(&d->files, &it, &key, &val)) {
        posvec *v = val;
        if (!v || v->n == 0) continue;
        FLOE_TRY(settle(v, key.ptr, unique, what));
        char name[256];
        snprintf(name, sizeof name, "%s-%05lld-deletes.parquet", prefix, (long long)++seq);
        FLOE_TRY(floe_ice_write_position_deletes(io, s, key.ptr, v->pos, (int64_t)v->n, name, observer, out));
        *distinct += (int64_t)v->n;
    }
    return NULL;
}

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
#include "floe/memory.h"

typedef struct posvec {
    int64_t *pos;
    size_t n, cap;
} posvec;

static void posvec_free(void *v) {
    posvec *p = v;
    if (!p) return;
    floe_free(p->pos);
    floe_free(p);
}

void floe_delta_deletes_init(floe_delta_deletes *d) {
    floe_strmap_init(&d->files);
    d->n_positions = 0;
}

void floe_delta_deletes_free(floe_delta_deletes *d) {
    floe_strmap_free_with(&d->files, posvec_free);
    d->n_positions = 0;
}

floe_status floe_delta_deletes_add(floe_delta_deletes *d, const char *path, size_t len, int64_t pos) {
    void **slot = NULL;
    bool inserted = false;
    floe_str key = {path, len};
    FLOE_TRY(floe_strmap_upsert(&d->files, key, &slot, &inserted));
    posvec *v = *slot;
    if (!v) {
        v = floe_calloc(1, sizeof *v);
        if (!v) {
            floe_strmap_remove(&d->files, key, NULL);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "collecting position deletes");
        }
        *slot = v;
    }
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

floe_status floe_delta_deletes_write(floe_delta_deletes *d, floe_fileio *io, const floe_ice_write_settings *s,
                                     const char *prefix, const floe_ice_file_observer *observer, bool unique,
                                     const char *what, floe_ice_written_files *out, int64_t *distinct) {
    *distinct = 0;
    size_t it = 0;
    floe_str key;
    void *val = NULL;
    int64_t seq = 0;
    while (floe_strmap_next(&d->files, &it, &key, &val)) {
        posvec *v = val;
        if (!v || v->n == 0) continue;
        qsort(v->pos, v->n, sizeof *v->pos, cmp_i64);
        size_t w = 1;
        for (size_t i = 1; i < v->n; i++) {
            if (v->pos[i] == v->pos[w - 1]) {
                if (unique)
                    return floe_error(FLOE_ERR_CONSTRAINT,
                                      "%s cannot affect a row a second time: row %lld of %s matches more than one "
                                      "source row",
                                      what, (long long)v->pos[i], key.ptr);
                continue;
            }
            v->pos[w++] = v->pos[i];
        }
        v->n = w;
        if (v->pos[0] < 0)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: a negative row position (%lld) in %s", what,
                              (long long)v->pos[0], key.ptr);
        char name[256];
        snprintf(name, sizeof name, "%s-%05lld-deletes.parquet", prefix, (long long)++seq);
        FLOE_TRY(floe_ice_write_position_deletes(io, s, key.ptr, v->pos, (int64_t)v->n, name, observer, out));
        *distinct += (int64_t)v->n;
    }
    return NULL;
}

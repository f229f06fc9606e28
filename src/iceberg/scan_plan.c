/*
 * scan_plan.c — Iceberg scan planning: snapshot -> pruned manifests ->
 * pruned data files with their delete files -> splits -> task groups.
 *
 * Steps (see floe/iceberg_scan.h for the contract):
 *  1. read the manifest list and drop manifests whose partition summaries
 *     cannot satisfy the filter's inclusive projection onto their spec;
 *  2. read the rest in parallel through the manifest cache, pruning data
 *     entries by partition values and column metrics on the pool;
 *  3. index live delete entries by (spec, partition) and by referenced data
 *     file, each list sorted by data sequence number, so that attaching
 *     deletes costs a hash look-up and a binary search per data file;
 *  4. split files at split_offsets, weigh the splits and bin-pack them
 *     (largest first onto the lightest group);
 *  5. copy every group into its own arena so it can be shipped alone.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "base/buffer.h"
#include "base/hashmap.h"
#include "base/threadpool.h"
#include "floe/iceberg_scan.h"
#include "floe/memory.h"
#include "iceberg/scan_internal.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory planning a scan"); }

void floe_ice_scan_options_init(floe_ice_scan_options *o) {
    memset(o, 0, sizeof *o);
    o->case_sensitive = true;
    o->target_partitions = 1;
}

/* ---- groups ---------------------------------------------------------------- */

struct floe_ice_sg_private {
    floe_arena arena;
    floe_ice_expr **exprs;          /* residuals owned by the group */
    int32_t n_exprs;
};

void floe_ice_scan_group_free(floe_ice_scan_group *g) {
    if (!g) return;
    if (g->priv) {
        for (int32_t i = 0; i < g->priv->n_exprs; i++) floe_ice_expr_free(g->priv->exprs[i]);
        floe_free(g->priv->exprs);
        floe_arena_destroy(&g->priv->arena);
        floe_free(g->priv);
    }
    floe_free(g);
}

struct floe_ice_sp_private {
    int unused;
};

void floe_ice_scan_plan_free(floe_ice_scan_plan *p) {
    if (!p) return;
    for (int32_t i = 0; i < p->n_groups; i++) floe_ice_scan_group_free(p->groups[i]);
    floe_free(p->groups);
    floe_ice_expr_free(p->filter);
    floe_free(p->projected);
    for (int32_t i = 0; i < p->stats.n_columns; i++) {
        floe_ice_value_free(&p->stats.columns[i].lower);
        floe_ice_value_free(&p->stats.columns[i].upper);
    }
    floe_free(p->stats.columns);
    floe_free(p->priv);
    floe_free(p);
}

floe_ice_scan_group *floe_ice_scan_plan_take_group(floe_ice_scan_plan *p, int32_t i) {
    if (!p || i < 0 || i >= p->n_groups) return NULL;
    floe_ice_scan_group *g = p->groups[i];
    p->groups[i] = NULL;
    return g;
}

/* ---- planning state -------------------------------------------------------- */

typedef struct spec_info {
    const floe_ice_partition_spec *spec;
    floe_ice_type *ptype;           /* partition struct type, NULL if unknown */
    floe_ice_expr *inclusive;       /* projection of the filter; NULL = true */
} spec_info;

/* A delete file known to the plan (strings point into cached manifests). */
typedef struct pdel {
    floe_ice_scan_delete d;
    int64_t weight;
    int32_t stamp;                  /* last group that collected it */
    int32_t gidx;                   /* its index in that group */
    bool used;
} pdel;

/* A list of delete indices sorted by sequence number. */
typedef struct dlist {
    int32_t n, cap;
    int32_t *idx;
} dlist;

/* One split of one surviving data file. */
typedef struct ptask {
    const floe_ice_manifest_entry *e;
    const floe_ice_value *partition; /* retyped */
    const floe_ice_expr *residual;
    int64_t start, length, weight;
    int32_t split_index, n_splits;
    int32_t n_deletes;
    int32_t *deletes;               /* pdel indices, sorted by path */
    int64_t ordinal;                /* file order: manifest list, then entry */
} ptask;

typedef struct planner {
    const floe_ice_table *t;
    const floe_ice_schema *schema;
    const floe_ice_snapshot *snap;
    floe_ice_expr *filter;          /* bound, NOT-free */
    bool filter_true;
    spec_info *specs;
    int32_t n_specs;
    int64_t split_size, open_cost;
    floe_threadpool *pool;
    /* manifests */
    floe_ice_manifest_list *list;
    floe_ice_manifest_file *v1_files;
    const floe_ice_manifest_file **mfs;   /* surviving manifests */
    size_t n_mfs;
    floe_ice_cached_manifest **handles;
    const floe_ice_manifest **manifests;
    uint8_t **keep;                 /* per data manifest: entry survives */
    int64_t *pruned;                /* per manifest: entries pruned */
    /* deletes */
    pdel *dels;
    int32_t n_dels, cap_dels;
    floe_strmap by_path, pos_part, eq_part;
    dlist eq_global;
    /* tasks */
    floe_arena arena;
    ptask *tasks;
    size_t n_tasks, cap_tasks;
    size_t n_files_seen;
    floe_strmap residuals;          /* partition key -> floe_ice_expr* */
    floe_buf last_key;              /* partition key of the previous file */
    const floe_ice_value *last_part; /* its retyped tuple (shared by equal keys) */
} planner;

static const spec_info *find_spec(const planner *pl, int32_t spec_id) {
    for (int32_t i = 0; i < pl->n_specs; i++)
        if (pl->specs[i].spec->spec_id == spec_id) return &pl->specs[i];
    return NULL;
}

/* Partition values typed as the spec says when the storage agrees (a day
 * stored as an int is a date). */
static bool same_storage(floe_ice_type_id a, floe_ice_type_id b) {
    bool ai = a == FLOE_ICE_INT || a == FLOE_ICE_DATE, bi = b == FLOE_ICE_INT || b == FLOE_ICE_DATE;
    bool al = a == FLOE_ICE_LONG || a == FLOE_ICE_TIME || a == FLOE_ICE_TIMESTAMP || a == FLOE_ICE_TIMESTAMPTZ ||
              a == FLOE_ICE_TIMESTAMP_NS || a == FLOE_ICE_TIMESTAMPTZ_NS;
    bool bl = b == FLOE_ICE_LONG || b == FLOE_ICE_TIME || b == FLOE_ICE_TIMESTAMP || b == FLOE_ICE_TIMESTAMPTZ ||
              b == FLOE_ICE_TIMESTAMP_NS || b == FLOE_ICE_TIMESTAMPTZ_NS;
    return (ai && bi) || (al && bl);
}

/* Copy the partition of `f` into `out` (n_partition values) retyped by `si`. */
static void retype(const spec_info *si, const floe_ice_data_file *f, floe_ice_value *out) {
    for (int32_t i = 0; i < f->n_partition; i++) {
        out[i] = f->partition[i];
        if (!si || !si->ptype) continue;
        for (int32_t k = 0; k < si->ptype->n_fields; k++) {
            if (si->ptype->fields[k].id != f->partition_ids[i]) continue;
            floe_ice_type_id want = si->ptype->fields[k].type->id;
            if (want != out[i].type && same_storage(want, out[i].type)) out[i].type = want;
            break;
        }
    }
}

/* A byte key identifying (spec id, partition tuple). */
static floe_status partition_key(floe_buf *b, int32_t spec_id, const floe_ice_value *v, int32_t n) {
    floe_buf_clear(b);
    FLOE_TRY(floe_buf_append(b, &spec_id, sizeof spec_id));
    for (int32_t i = 0; i < n; i++) {
        uint8_t hdr[2] = {(uint8_t)v[i].type, v[i].is_null};
        FLOE_TRY(floe_buf_append(b, hdr, 2));
        if (v[i].is_null) continue;
        switch (v[i].type) {
        case FLOE_ICE_BOOLEAN: FLOE_TRY(floe_buf_append(b, &v[i].v.b, 1)); break;
        case FLOE_ICE_INT:
        case FLOE_ICE_DATE: FLOE_TRY(floe_buf_append(b, &v[i].v.i32, 4)); break;
        case FLOE_ICE_FLOAT: FLOE_TRY(floe_buf_append(b, &v[i].v.f32, 4)); break;
        case FLOE_ICE_DOUBLE: FLOE_TRY(floe_buf_append(b, &v[i].v.f64, 8)); break;
        case FLOE_ICE_DECIMAL:
            FLOE_TRY(floe_buf_append(b, &v[i].v.dec, 16));
            FLOE_TRY(floe_buf_append(b, &v[i].scale, 4));
            break;
        case FLOE_ICE_UUID: FLOE_TRY(floe_buf_append(b, v[i].v.uuid, 16)); break;
        case FLOE_ICE_STRING:
        case FLOE_ICE_BINARY:
        case FLOE_ICE_FIXED: {
            uint64_t len = v[i].v.bytes.len;
            FLOE_TRY(floe_buf_append(b, &len, 8));
            FLOE_TRY(floe_buf_append(b, v[i].v.bytes.data, v[i].v.bytes.len));
            break;
        }
        default: FLOE_TRY(floe_buf_append(b, &v[i].v.i64, 8)); break;
        }
    }
    return NULL;
}

/* ---- step 1: manifests --------------------------------------------------- */

static floe_status summary_might_match(const planner *pl, const floe_ice_manifest_file *mf, bool *keep) {
    *keep = true;
    if (pl->filter_true || mf->n_partitions < 0) return NULL;
    const spec_info *si = find_spec(pl, mf->partition_spec_id);
    if (!si || !si->inclusive || mf->n_partitions != si->spec->n_fields) return NULL;
    floe_ice_partition_summary sums[mf->n_partitions > 0 ? mf->n_partitions : 1];
    for (int32_t i = 0; i < mf->n_partitions; i++) {
        const floe_ice_field_summary *fs = &mf->partitions[i];
        sums[i] = (floe_ice_partition_summary){si->spec->fields[i].field_id, fs->contains_null, fs->contains_nan,
                                               fs->lower_bound, fs->lower_len, fs->upper_bound, fs->upper_len};
    }
    floe_status st = floe_ice_manifest_might_match(si->inclusive, sums, mf->n_partitions, keep);
    if (st) return floe_status_wrap(st, "manifest %s", mf->manifest_path);
    return NULL;
}

static floe_status list_manifests(planner *pl, int64_t *n_total) {
    const floe_ice_manifest_file *files;
    size_t n;
    FLOE_TRY(floe_ice_snapshot_manifests(pl->t, pl->snap, &pl->list, &pl->v1_files, &files, &n));
    *n_total = (int64_t)n;
    pl->mfs = floe_calloc(n ? n : 1, sizeof *pl->mfs);
    if (!pl->mfs) return oom();
    for (size_t i = 0; i < n; i++) {
        bool keep;
        FLOE_TRY(summary_might_match(pl, &files[i], &keep));
        if (keep) pl->mfs[pl->n_mfs++] = &files[i];
    }
    return NULL;
}

/* ---- step 2: read and prune entries in parallel ------------------------ */

/* The metrics slot of field `id` in fm[0..*n), added when missing. */
static int32_t slot(floe_ice_field_metrics *fm, int32_t *n, int32_t id) {
    for (int32_t q = 0; q < *n; q++)
        if (fm[q].field_id == id) return q;
    fm[*n] = (floe_ice_field_metrics){id, -1, -1, -1, NULL, 0, NULL, 0};
    return (*n)++;
}

static floe_status metrics_might_match(const planner *pl, const floe_ice_data_file *f, bool *might) {
    /* Gather metrics by field id: union of keys of every map. */
    int32_t cap = 0;
    const floe_ice_count_map *cms[3] = {&f->value_counts, &f->null_value_counts, &f->nan_value_counts};
    for (int k = 0; k < 3; k++) cap += cms[k]->n > 0 ? cms[k]->n : 0;
    cap += (f->lower_bounds.n > 0 ? f->lower_bounds.n : 0) + (f->upper_bounds.n > 0 ? f->upper_bounds.n : 0);
    floe_ice_field_metrics stackbuf[64];
    floe_ice_field_metrics *fm = cap <= 64 ? stackbuf : floe_malloc_array((size_t)cap, sizeof *fm);
    if (!fm) return oom();
    int32_t n = 0;
    for (int32_t i = 0; i < f->value_counts.n; i++) fm[slot(fm, &n, f->value_counts.keys[i])].value_count = f->value_counts.values[i];
    for (int32_t i = 0; i < f->null_value_counts.n; i++)
        fm[slot(fm, &n, f->null_value_counts.keys[i])].null_count = f->null_value_counts.values[i];
    for (int32_t i = 0; i < f->nan_value_counts.n; i++)
        fm[slot(fm, &n, f->nan_value_counts.keys[i])].nan_count = f->nan_value_counts.values[i];
    for (int32_t i = 0; i < f->lower_bounds.n; i++) {
        int32_t s = slot(fm, &n, f->lower_bounds.keys[i]);
        fm[s].lower = f->lower_bounds.values[i];
        fm[s].lower_len = f->lower_bounds.lens[i];
    }
    for (int32_t i = 0; i < f->upper_bounds.n; i++) {
        int32_t s = slot(fm, &n, f->upper_bounds.keys[i]);
        fm[s].upper = f->upper_bounds.values[i];
        fm[s].upper_len = f->upper_bounds.lens[i];
    }
    floe_ice_file_metrics m = {f->record_count, n, fm};
    floe_status st = floe_ice_metrics_might_match(pl->filter, &m, might);
    if (fm != stackbuf) floe_free(fm);
    if (st) return floe_status_wrap(st, "data file %s", f->file_path);
    return NULL;
}

static floe_status prune_entries(const planner *pl, size_t i) {
    const floe_ice_manifest *m = pl->manifests[i];
    pl->keep[i] = floe_malloc(m->n_entries ? m->n_entries : 1);
    if (!pl->keep[i]) return oom();
    const spec_info *si = find_spec(pl, m->spec_id);
    int64_t pruned = 0;
    floe_ice_value pbuf[32];
    for (size_t k = 0; k < m->n_entries; k++) {
        const floe_ice_manifest_entry *e = &m->entries[k];
        bool keep = e->status != FLOE_ICE_STATUS_DELETED && e->file.content == FLOE_ICE_CONTENT_DATA;
        /* Some writers record Puffin indexes in data manifests: not rows. */
        if (keep && e->file.file_format && strcasecmp(e->file.file_format, "puffin") == 0) keep = false;
        if (keep && !pl->filter_true) {
            const floe_ice_data_file *f = &e->file;
            if (si && si->inclusive && f->n_partition == si->spec->n_fields && f->n_partition <= 32) {
                retype(si, f, pbuf);
                keep = floe_ice_partition_might_match(si->inclusive, si->spec, pbuf);
            }
            if (keep) FLOE_TRY(metrics_might_match(pl, f, &keep));
            if (!keep) pruned++;
        }
        pl->keep[i][k] = keep;
    }
    pl->pruned[i] = pruned;
    return NULL;
}

static floe_status read_range(void *ctx, size_t begin, size_t end, const floe_cancel *cancel) {
    planner *pl = ctx;
    for (size_t i = begin; i < end; i++) {
        FLOE_TRY(floe_cancel_check(cancel, "reading manifests"));
        FLOE_TRY(floe_ice_manifest_cache_get(pl->t, pl->mfs[i], &pl->handles[i], &pl->manifests[i]));
        if (pl->manifests[i]->content != FLOE_ICE_MANIFEST_DATA) continue;
        FLOE_TRY(prune_entries(pl, i));
        /* A data manifest with no surviving entry is not needed again:
         * unpin it now so the cache can evict it under its budget instead
         * of the plan holding every decoded manifest until it ends. */
        size_t n = pl->manifests[i]->n_entries;
        if (!n || !memchr(pl->keep[i], 1, n)) {
            floe_ice_manifest_cache_release(pl->handles[i]);
            pl->handles[i] = NULL;
            pl->manifests[i] = NULL;
        }
    }
    return NULL;
}

/* ---- step 3: the delete index ---------------------------------------------- */

static floe_status dlist_add(dlist *l, int32_t idx) {
    if (l->n == l->cap) {
        int32_t nc = l->cap ? l->cap * 2 : 4;
        int32_t *p = floe_realloc(l->idx, (size_t)nc * sizeof *p);
        if (!p) return oom();
        l->idx = p;
        l->cap = nc;
    }
    l->idx[l->n++] = idx;
    return NULL;
}

static floe_status map_add(floe_strmap *m, const void *key, size_t len, int32_t idx) {
    void **slot;
    bool inserted;
    FLOE_TRY(floe_strmap_upsert(m, floe_str_make(key, len), &slot, &inserted));
    if (inserted) {
        *slot = floe_calloc(1, sizeof(dlist));
        if (!*slot) return oom();
    }
    return dlist_add(*slot, idx);
}

static int64_t seq_of(int64_t s) { return s < 0 ? 0 : s; }

static int cmp_del_seq(const void *a, const void *b, void *ctx) {
    const pdel *d = ctx;
    const pdel *x = &d[*(const int32_t *)a], *y = &d[*(const int32_t *)b];
    if (x->d.sequence_number != y->d.sequence_number) return x->d.sequence_number < y->d.sequence_number ? -1 : 1;
    int c = strcmp(x->d.path, y->d.path);
    if (c) return c;
    return x->d.content_offset < y->d.content_offset ? -1 : x->d.content_offset > y->d.content_offset;
}

static void sort_list(planner *pl, dlist *l) {
    if (l->n > 1) qsort_r(l->idx, (size_t)l->n, sizeof *l->idx, cmp_del_seq, pl->dels);
}

static floe_status add_delete(planner *pl, const floe_ice_manifest_entry *e, floe_buf *key) {
    const floe_ice_data_file *f = &e->file;
    if (pl->n_dels == pl->cap_dels) {
        int32_t nc = pl->cap_dels ? pl->cap_dels * 2 : 16;
        pdel *p = floe_realloc(pl->dels, (size_t)nc * sizeof *p);
        if (!p) return oom();
        pl->dels = p;
        pl->cap_dels = nc;
    }
    int32_t idx = pl->n_dels;
    pdel *d = &pl->dels[idx];
    memset(d, 0, sizeof *d);
    d->stamp = -1;
    d->d.content = f->content;
    d->d.path = f->file_path;
    d->d.format = f->file_format ? f->file_format : "";
    d->d.record_count = f->record_count;
    d->d.file_size_in_bytes = f->file_size_in_bytes;
    d->d.spec_id = f->spec_id;
    d->d.sequence_number = seq_of(e->sequence_number);
    d->d.file_sequence_number = e->file_sequence_number;
    d->d.n_equality_ids = f->n_equality_ids > 0 ? f->n_equality_ids : 0;
    d->d.equality_ids = f->equality_ids;
    d->d.referenced_data_file = f->referenced_data_file;
    d->d.content_offset = f->has_content_offset ? f->content_offset : -1;
    d->d.content_size_in_bytes = f->has_content_size_in_bytes ? f->content_size_in_bytes : -1;
    d->d.is_dv = f->content == FLOE_ICE_CONTENT_POSITION_DELETES && f->has_content_offset &&
                 f->referenced_data_file != NULL;
    d->weight = d->d.is_dv && d->d.content_size_in_bytes >= 0 ? d->d.content_size_in_bytes : f->file_size_in_bytes;
    char *rp = NULL;
    FLOE_TRY(floe_ice_table_resolve_path(pl->t, f->file_path, &rp));
    d->d.resolved_path = floe_arena_strdup(&pl->arena, rp);
    floe_free(rp);
    if (!d->d.resolved_path) return oom();
    pl->n_dels++;

    const spec_info *si = find_spec(pl, f->spec_id);
    floe_ice_value pbuf[f->n_partition > 0 ? f->n_partition : 1];
    retype(si, f, pbuf);
    if (f->content == FLOE_ICE_CONTENT_POSITION_DELETES) {
        if (f->referenced_data_file)
            return map_add(&pl->by_path, f->referenced_data_file, strlen(f->referenced_data_file), idx);
        FLOE_TRY(partition_key(key, f->spec_id, pbuf, f->n_partition));
        return map_add(&pl->pos_part, key->data, key->len, idx);
    }
    if (f->content == FLOE_ICE_CONTENT_EQUALITY_DELETES) {
        /* Global when its spec is unpartitioned. */
        bool global = si ? si->spec->n_fields == 0 : f->n_partition == 0;
        if (global) return dlist_add(&pl->eq_global, idx);
        FLOE_TRY(partition_key(key, f->spec_id, pbuf, f->n_partition));
        return map_add(&pl->eq_part, key->data, key->len, idx);
    }
    return NULL;
}

static void sort_map_lists(planner *pl, floe_strmap *m) {
    size_t it = 0;
    floe_str k;
    void *v;
    while (floe_strmap_next(m, &it, &k, &v)) sort_list(pl, v);
}

static floe_status index_deletes(planner *pl) {
    floe_buf key;
    floe_buf_init(&key);
    floe_status st = NULL;
    for (size_t i = 0; !st && i < pl->n_mfs; i++) {
        const floe_ice_manifest *m = pl->manifests[i];
        if (!m || m->content != FLOE_ICE_MANIFEST_DELETES) continue; /* NULL: released, fully pruned */
        for (size_t k = 0; !st && k < m->n_entries; k++) {
            const floe_ice_manifest_entry *e = &m->entries[k];
            if (e->status == FLOE_ICE_STATUS_DELETED || e->file.content == FLOE_ICE_CONTENT_DATA) continue;
            st = add_delete(pl, e, &key);
        }
    }
    floe_buf_free(&key);
    if (st) return st;
    sort_map_lists(pl, &pl->by_path);
    sort_map_lists(pl, &pl->pos_part);
    sort_map_lists(pl, &pl->eq_part);
    sort_list(pl, &pl->eq_global);
    return NULL;
}

/* First index in sorted `l` whose sequence number is >= s (or > s). */
static int32_t first_from(const planner *pl, const dlist *l, int64_t s, bool strict) {
    int32_t lo = 0, hi = l->n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int64_t ds = pl->dels[l->idx[mid]].d.sequence_number;
        if (strict ? ds > s : ds >= s) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

static int cmp_del_path(const void *a, const void *b, void *ctx) {
    const pdel *d = ctx;
    const pdel *x = &d[*(const int32_t *)a], *y = &d[*(const int32_t *)b];
    int c = strcmp(x->d.path, y->d.path);
    if (c) return c;
    return x->d.content_offset < y->d.content_offset ? -1 : x->d.content_offset > y->d.content_offset;
}

/* The deletes that apply to data file `e` (partition key already in `key`). */
static floe_status match_deletes(planner *pl, const floe_ice_manifest_entry *e, const floe_buf *key, int32_t **out,
                                 int32_t *n_out) {
    *out = NULL;
    *n_out = 0;
    if (pl->n_dels == 0) return NULL;
    int64_t s = seq_of(e->sequence_number);
    const dlist *lists[4] = {
        floe_strmap_get(&pl->by_path, floe_str_c(e->file.file_path)),
        floe_strmap_get(&pl->pos_part, floe_str_make((const char *)key->data, key->len)),
        floe_strmap_get(&pl->eq_part, floe_str_make((const char *)key->data, key->len)),
        &pl->eq_global,
    };
    int32_t total = 0, from[4];
    bool has_dv = false;
    for (int k = 0; k < 4; k++) {
        if (!lists[k]) continue;
        from[k] = first_from(pl, lists[k], s, k >= 2);
        total += lists[k]->n - from[k];
        if (k == 0)
            for (int32_t j = from[k]; j < lists[k]->n; j++) has_dv |= pl->dels[lists[k]->idx[j]].d.is_dv;
    }
    if (total == 0) return NULL;
    int32_t *ids = floe_arena_alloc(&pl->arena, (size_t)total * sizeof *ids);
    if (!ids) return oom();
    int32_t n = 0;
    for (int k = 0; k < 4; k++) {
        if (!lists[k]) continue;
        for (int32_t j = from[k]; j < lists[k]->n; j++) {
            const pdel *d = &pl->dels[lists[k]->idx[j]];
            /* A DV replaces every position delete file of its data file. */
            if (has_dv && d->d.content == FLOE_ICE_CONTENT_POSITION_DELETES && !d->d.is_dv) continue;
            ids[n++] = lists[k]->idx[j];
        }
    }
    qsort_r(ids, (size_t)n, sizeof *ids, cmp_del_path, pl->dels);
    *out = ids;
    *n_out = n;
    return NULL;
}

/* ---- step 4: tasks and splits -------------------------------------------- */

static floe_status push_task(planner *pl, const ptask *t) {
    if (pl->n_tasks == pl->cap_tasks) {
        size_t nc = pl->cap_tasks ? pl->cap_tasks * 2 : 64;
        ptask *p = floe_realloc(pl->tasks, nc * sizeof *p);
        if (!p) return oom();
        pl->tasks = p;
        pl->cap_tasks = nc;
    }
    pl->tasks[pl->n_tasks++] = *t;
    return NULL;
}

/* Are split offsets usable: ascending, inside the file? */
static bool sane_offsets(const floe_ice_data_file *f) {
    if (f->n_split_offsets <= 0 || !f->split_offsets) return false;
    for (int32_t i = 0; i < f->n_split_offsets; i++) {
        int64_t o = f->split_offsets[i];
        if (o < 0 || o >= f->file_size_in_bytes) return false;
        if (i > 0 && o <= f->split_offsets[i - 1]) return false;
    }
    return true;
}

static floe_status residual_for(planner *pl, const spec_info *si, const floe_ice_value *part, int32_t n_part,
                                const floe_buf *key, const floe_ice_expr **out) {
    void **slot;
    bool inserted;
    FLOE_TRY(floe_strmap_upsert(&pl->residuals, floe_str_make((const char *)key->data, key->len), &slot, &inserted));
    if (!inserted) {
        *out = *slot;
        return NULL;
    }
    floe_ice_expr *r = NULL;
    floe_status st = NULL;
    if (pl->filter_true || !si || n_part != si->spec->n_fields) r = floe_ice_expr_copy(pl->filter);
    else st = floe_ice_expr_residual(pl->filter, si->spec, part, n_part, &r);
    if (!st && !r) st = oom();
    if (st) {
        floe_strmap_remove(&pl->residuals, floe_str_make((const char *)key->data, key->len), NULL);
        return st;
    }
    *slot = r;
    *out = r;
    return NULL;
}

static floe_status add_file(planner *pl, const floe_ice_manifest_entry *e, floe_buf *key) {
    const floe_ice_data_file *f = &e->file;
    const spec_info *si = find_spec(pl, f->spec_id);
    /* Retype into a scratch tuple first: consecutive files of a manifest
     * usually share their partition, and then share one stored tuple (the
     * groups copy it once per run of equal tuples, not once per task). */
    floe_ice_value pstack[16];
    size_t np = (size_t)(f->n_partition > 0 ? f->n_partition : 1);
    floe_ice_value *scratch = np <= 16 ? pstack : floe_arena_alloc(&pl->arena, np * sizeof *scratch);
    if (!scratch) return oom();
    retype(si, f, scratch);
    FLOE_TRY(partition_key(key, f->spec_id, scratch, f->n_partition));
    const floe_ice_value *part;
    if (pl->last_part && key->len == pl->last_key.len && memcmp(key->data, pl->last_key.data, key->len) == 0) {
        part = pl->last_part;
    } else {
        floe_ice_value *np_ = scratch;
        if (scratch == pstack) {
            np_ = floe_arena_alloc(&pl->arena, np * sizeof *np_);
            if (!np_) return oom();
            memcpy(np_, pstack, np * sizeof *np_);
        }
        floe_buf_clear(&pl->last_key);
        FLOE_TRY(floe_buf_append(&pl->last_key, key->data, key->len));
        pl->last_part = part = np_;
    }
    ptask t;
    memset(&t, 0, sizeof t);
    t.e = e;
    t.ordinal = (int64_t)pl->n_files_seen++;
    t.partition = part;
    FLOE_TRY(residual_for(pl, si, part, f->n_partition, key, &t.residual));
    FLOE_TRY(match_deletes(pl, e, key, &t.deletes, &t.n_deletes));
    int64_t del_weight = 0;
    for (int32_t i = 0; i < t.n_deletes; i++) del_weight += pl->dels[t.deletes[i]].weight;

    int64_t size = f->file_size_in_bytes > 0 ? f->file_size_in_bytes : 0;
    /* Split boundaries: 0, the offsets after the first, then the file end. */
    int32_t n_split = 1;
    int64_t bounds_stack[2] = {0, size};
    int64_t *cuts = bounds_stack;
    if (size > pl->split_size && sane_offsets(f)) {
        cuts = floe_malloc_array((size_t)f->n_split_offsets + 1, sizeof *cuts);
        if (!cuts) return oom();
        int32_t nc = 0;
        cuts[nc++] = 0;
        int64_t start = 0;
        for (int32_t i = 1; i < f->n_split_offsets; i++) {
            int64_t next_end = i + 1 < f->n_split_offsets ? f->split_offsets[i + 1] : size;
            /* Cut before row group i when adding it would exceed the target. */
            if (next_end - start > pl->split_size) {
                cuts[nc++] = f->split_offsets[i];
                start = f->split_offsets[i];
            }
        }
        cuts[nc] = size;
        n_split = nc;
    }
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < n_split; i++) {
        t.start = cuts[i];
        t.length = cuts[i + 1] - cuts[i];
        t.split_index = i;
        t.n_splits = n_split;
        t.weight = (t.length > pl->open_cost ? t.length : pl->open_cost) + del_weight;
        st = push_task(pl, &t);
    }
    if (cuts != bounds_stack) floe_free(cuts);
    return st;
}

static floe_status build_tasks(planner *pl, floe_ice_scan_stats *stats) {
    floe_buf key;
    floe_buf_init(&key);
    floe_status st = NULL;
    for (size_t i = 0; !st && i < pl->n_mfs; i++) {
        const floe_ice_manifest *m = pl->manifests[i];
        if (m && m->content != FLOE_ICE_MANIFEST_DATA) continue;
        stats->n_files_pruned += pl->pruned[i];
        if (!m) continue; /* released in read_range: every entry pruned */
        for (size_t k = 0; !st && k < m->n_entries; k++) {
            if (!pl->keep[i][k]) continue;
            st = add_file(pl, &m->entries[k], &key);
        }
    }
    floe_buf_free(&key);
    return st;
}

/* ---- step 5: bin-packing and groups ----------------------------------- */

/* Heaviest first; ties by file order (manifest-list order, then entry
 * order: fixed for a snapshot, and far cheaper than comparing paths on a
 * million files), then offset. */
static int cmp_task_weight(const void *a, const void *b) {
    const ptask *x = a, *y = b;
    if (x->weight != y->weight) return x->weight > y->weight ? -1 : 1;
    if (x->ordinal != y->ordinal) return x->ordinal < y->ordinal ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

typedef struct gslot {
    int64_t weight;
    int32_t index;
} gslot;

static bool gslot_less(const gslot *a, const gslot *b) {
    return a->weight != b->weight ? a->weight < b->weight : a->index < b->index;
}

static void heap_down(gslot *h, int32_t n, int32_t i) {
    for (;;) {
        int32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && gslot_less(&h[l], &h[m])) m = l;
        if (r < n && gslot_less(&h[r], &h[m])) m = r;
        if (m == i) return;
        gslot t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static const char *adup(floe_arena *a, const char *s) { return s ? floe_arena_strdup(a, s) : NULL; }

static floe_status copy_value(floe_arena *a, const floe_ice_value *src, floe_ice_value *dst) {
    *dst = *src;
    dst->owns_bytes = false;
    if (!src->is_null && (src->type == FLOE_ICE_STRING || src->type == FLOE_ICE_BINARY || src->type == FLOE_ICE_FIXED)) {
        dst->v.bytes.data = src->v.bytes.len ? floe_arena_memdup(a, src->v.bytes.data, src->v.bytes.len) : (const uint8_t *)"";
        if (!dst->v.bytes.data) return oom();
    }
    return NULL;
}

static floe_status copy_delete(floe_arena *a, const floe_ice_scan_delete *s, floe_ice_scan_delete *d) {
    *d = *s;
    d->path = adup(a, s->path);
    d->resolved_path = adup(a, s->resolved_path);
    d->format = adup(a, s->format ? s->format : "");
    d->referenced_data_file = adup(a, s->referenced_data_file);
    d->equality_ids = NULL;
    if (s->n_equality_ids > 0) {
        d->equality_ids = floe_arena_memdup(a, s->equality_ids, (size_t)s->n_equality_ids * sizeof(int32_t));
        if (!d->equality_ids) return oom();
    }
    if (!d->path || !d->resolved_path || !d->format || (s->referenced_data_file && !d->referenced_data_file)) return oom();
    return NULL;
}

/* Make group `gi` of the tasks at `order[0..n)` (indices into pl->tasks). */
static floe_status make_group(planner *pl, int32_t gi, const size_t *order, size_t n, floe_ice_scan_group **out) {
    floe_ice_scan_group *g = floe_calloc(1, sizeof *g);
    if (!g) return oom();
    g->priv = floe_calloc(1, sizeof *g->priv);
    if (!g->priv) {
        floe_free(g);
        return oom();
    }
    floe_arena_init(&g->priv->arena, 0);
    *out = g;
    floe_arena *a = &g->priv->arena;
    g->index = gi;
    floe_ice_scan_task *tasks = floe_arena_calloc(a, n ? n : 1, sizeof *tasks);
    if (!tasks) return oom();
    g->tasks = tasks;
    /* Deletes referenced by the group, in first-use order. */
    int32_t n_del = 0;
    for (size_t i = 0; i < n; i++) {
        const ptask *t = &pl->tasks[order[i]];
        for (int32_t k = 0; k < t->n_deletes; k++) {
            pdel *d = &pl->dels[t->deletes[k]];
            if (d->stamp != gi) {
                d->stamp = gi;
                d->gidx = n_del++;
            }
        }
    }
    floe_ice_scan_delete *dels = floe_arena_calloc(a, n_del ? (size_t)n_del : 1, sizeof *dels);
    if (!dels) return oom();
    g->deletes = dels;
    g->n_deletes = n_del;
    for (int32_t i = 0; i < pl->n_dels; i++)
        if (pl->dels[i].stamp == gi) FLOE_TRY(copy_delete(a, &pl->dels[i].d, &dels[pl->dels[i].gidx]));
    /* Residuals: one copy per distinct plan residual. */
    floe_u64map rmap;
    floe_u64map_init(&rmap);
    floe_status st = NULL;
    g->priv->exprs = floe_calloc(n ? n : 1, sizeof *g->priv->exprs);
    if (!g->priv->exprs) st = oom();
    int64_t last_ordinal = -1;
    /* Runs of tasks share what their predecessor already copied: the
     * splits of one file its paths, files of one partition the tuple,
     * every task of a format its format string. */
    const ptask *prev = NULL;
    const char *prev_format_src = NULL;
    for (size_t i = 0; !st && i < n; i++) {
        const ptask *pt = &pl->tasks[order[i]];
        const floe_ice_data_file *f = &pt->e->file;
        floe_ice_scan_task *t = &tasks[i];
        if (prev && prev->e == pt->e) {
            t->path = tasks[i - 1].path;
            t->resolved_path = tasks[i - 1].resolved_path;
        } else {
            /* Resolved here rather than while planning: one copy per file. */
            char *rp = NULL;
            st = floe_ice_table_resolve_path(pl->t, f->file_path, &rp);
            if (st) break;
            t->path = adup(a, f->file_path);
            t->resolved_path = t->path && strcmp(rp, t->path) == 0 ? t->path : adup(a, rp);
            floe_free(rp);
        }
        const char *fmt = f->file_format ? f->file_format : "";
        if (prev_format_src && strcmp(prev_format_src, fmt) == 0) t->format = tasks[i - 1].format;
        else t->format = adup(a, fmt);
        prev_format_src = fmt;
        if (!t->path || !t->resolved_path || !t->format) { st = oom(); break; }
        t->record_count = f->record_count;
        t->file_size_in_bytes = f->file_size_in_bytes;
        t->spec_id = f->spec_id;
        t->n_partition = f->n_partition > 0 ? f->n_partition : 0;
        if (prev && prev->partition == pt->partition && tasks[i - 1].n_partition == t->n_partition) {
            t->partition = tasks[i - 1].partition;
        } else {
            floe_ice_value *pv = floe_arena_calloc(a, t->n_partition ? (size_t)t->n_partition : 1, sizeof *pv);
            if (!pv) { st = oom(); break; }
            for (int32_t k = 0; !st && k < t->n_partition; k++) st = copy_value(a, &pt->partition[k], &pv[k]);
            t->partition = pv;
        }
        prev = pt;
        t->sequence_number = seq_of(pt->e->sequence_number);
        t->file_sequence_number = pt->e->file_sequence_number;
        t->has_first_row_id = f->has_first_row_id;
        t->first_row_id = f->first_row_id;
        t->start = pt->start;
        t->length = pt->length;
        t->split_index = pt->split_index;
        t->n_splits = pt->n_splits;
        uint64_t *slot;
        bool inserted;
        if (!st) st = floe_u64map_upsert(&rmap, (uint64_t)(uintptr_t)pt->residual, &slot, &inserted);
        if (st) break;
        if (inserted) {
            floe_ice_expr *c = floe_ice_expr_copy(pt->residual);
            if (!c) { st = oom(); break; }
            g->priv->exprs[g->priv->n_exprs++] = c;
            *slot = (uint64_t)(uintptr_t)c;
        }
        t->residual = (const floe_ice_expr *)(uintptr_t)*slot;
        t->n_deletes = pt->n_deletes;
        if (pt->n_deletes) {
            const floe_ice_scan_delete **dp = floe_arena_alloc(a, (size_t)pt->n_deletes * sizeof *dp);
            if (!dp) { st = oom(); break; }
            for (int32_t k = 0; k < pt->n_deletes; k++) dp[k] = &dels[pl->dels[pt->deletes[k]].gidx];
            t->deletes = dp;
        }
        g->weight += pt->weight;
        g->bytes += pt->length;
        if (pt->split_index == 0) g->rows += f->record_count;
        if (pt->ordinal != last_ordinal) g->n_files++;
        last_ordinal = pt->ordinal;
    }
    floe_u64map_free(&rmap);
    g->n_tasks = (int32_t)n;
    return st;
}

/* Within a group: file order, then offset (splits of a file adjacent). */
static int cmp_order_path(const void *a, const void *b, void *ctx) {
    const ptask *t = ctx;
    const ptask *x = &t[*(const size_t *)a], *y = &t[*(const size_t *)b];
    if (x->ordinal != y->ordinal) return x->ordinal < y->ordinal ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static floe_status pack(planner *pl, int32_t target, floe_ice_scan_plan *p) {
    if (pl->n_tasks > 1) qsort(pl->tasks, pl->n_tasks, sizeof *pl->tasks, cmp_task_weight);
    int32_t n_groups = pl->n_tasks < (size_t)target ? (int32_t)pl->n_tasks : target;
    if (n_groups < 1) n_groups = 1;
    p->groups = floe_calloc((size_t)n_groups, sizeof *p->groups);
    int32_t *assign = floe_malloc_array(pl->n_tasks ? pl->n_tasks : 1, sizeof *assign);
    gslot *heap = floe_malloc_array((size_t)n_groups, sizeof *heap);
    size_t *counts = floe_calloc((size_t)n_groups + 1, sizeof *counts);
    size_t *order = floe_malloc_array(pl->n_tasks ? pl->n_tasks : 1, sizeof *order);
    floe_status st = NULL;
    if (!p->groups || !assign || !heap || !counts || !order) st = oom();
    if (!st) {
        p->n_groups = n_groups;
        for (int32_t i = 0; i < n_groups; i++) heap[i] = (gslot){0, i};
        for (size_t i = 0; i < pl->n_tasks; i++) {
            assign[i] = heap[0].index;
            heap[0].weight += pl->tasks[i].weight;
            heap_down(heap, n_groups, 0);
            counts[assign[i] + 1]++;
        }
        for (int32_t i = 0; i < n_groups; i++) counts[i + 1] += counts[i];
        size_t *fill = floe_malloc_array((size_t)n_groups, sizeof *fill);
        if (!fill) st = oom();
        else {
            for (int32_t i = 0; i < n_groups; i++) fill[i] = counts[i];
            for (size_t i = 0; i < pl->n_tasks; i++) order[fill[assign[i]]++] = i;
            floe_free(fill);
        }
    }
    for (int32_t gi = 0; !st && gi < n_groups; gi++) {
        size_t *o = order + counts[gi];
        size_t n = counts[gi + 1] - counts[gi];
        if (n > 1) qsort_r(o, n, sizeof *o, cmp_order_path, pl->tasks);
        st = make_group(pl, gi, o, n, &p->groups[gi]);
    }
    floe_free(assign);
    floe_free(heap);
    floe_free(counts);
    floe_free(order);
    return st;
}

/* ---- statistics --------------------------------------------------------- */

static floe_status column_stats(planner *pl, floe_ice_scan_plan *p) {
    floe_ice_scan_stats *s = &p->stats;
    int32_t n = p->n_projected;
    const int32_t *ids = p->projected;
    int32_t *all = NULL;
    if (n == 0 && pl->schema && pl->schema->root) {
        all = floe_calloc((size_t)pl->schema->root->n_fields + 1, sizeof *all);
        if (!all) return oom();
        for (int32_t i = 0; i < pl->schema->root->n_fields; i++)
            if (floe_ice_type_is_primitive(pl->schema->root->fields[i].type)) all[n++] = pl->schema->root->fields[i].id;
        ids = all;
    }
    s->columns = floe_calloc(n ? (size_t)n : 1, sizeof *s->columns);
    if (!s->columns) {
        floe_free(all);
        return oom();
    }
    s->n_columns = n;
    floe_status st = NULL;
    for (int32_t c = 0; c < n; c++) {
        floe_ice_scan_column_stats *cs = &s->columns[c];
        cs->field_id = ids[c];
        const floe_ice_field *fld = pl->schema ? floe_ice_schema_find_field(pl->schema, ids[c]) : NULL;
        floe_ice_type_id tid = fld && fld->type ? fld->type->id : FLOE_ICE_LONG;
        cs->lower = floe_ice_null(tid);
        cs->upper = floe_ice_null(tid);
        bool prim = fld && floe_ice_type_is_primitive(fld->type);
        cs->has_lower = cs->has_upper = prim && pl->n_tasks > 0;
    }
    for (size_t i = 0; !st && i < pl->n_tasks; i++) {
        const ptask *t = &pl->tasks[i];
        if (t->split_index != 0) continue;
        const floe_ice_data_file *f = &t->e->file;
        for (int32_t c = 0; !st && c < n; c++) {
            floe_ice_scan_column_stats *cs = &s->columns[c];
            if (cs->null_count >= 0) {
                bool found = false;
                for (int32_t k = 0; k < f->null_value_counts.n; k++)
                    if (f->null_value_counts.keys[k] == cs->field_id) {
                        cs->null_count += f->null_value_counts.values[k];
                        found = true;
                        break;
                    }
                if (!found) cs->null_count = -1;
            }
            for (int up = 0; up < 2 && !st; up++) {
                bool *has = up ? &cs->has_upper : &cs->has_lower;
                floe_ice_value *cur = up ? &cs->upper : &cs->lower;
                if (!*has) continue;
                floe_ice_value v;
                floe_status bst = floe_ice_data_file_bound(f, pl->schema, cs->field_id, up, &v);
                if (bst) {
                    /* Missing or undecodable: the plan has no bound. */
                    floe_status_free(bst);
                    *has = false;
                    floe_ice_value_free(cur);
                    continue;
                }
                int cmp = cur->is_null ? (up ? 1 : -1) : floe_ice_value_compare(&v, cur);
                if ((up && cmp > 0) || (!up && cmp < 0)) {
                    floe_ice_value_free(cur);
                    st = floe_ice_value_copy(&v, cur);
                }
                floe_ice_value_free(&v);
            }
        }
    }
    for (int32_t c = 0; c < n; c++) {
        floe_ice_scan_column_stats *cs = &s->columns[c];
        if (cs->has_lower && cs->lower.is_null) cs->has_lower = false;
        if (cs->has_upper && cs->upper.is_null) cs->has_upper = false;
        if (pl->n_tasks == 0) cs->null_count = 0;
    }
    floe_free(all);
    return st;
}

static void base_stats(planner *pl, floe_ice_scan_plan *p) {
    floe_ice_scan_stats *s = &p->stats;
    s->n_tasks = (int64_t)pl->n_tasks;
    for (size_t i = 0; i < pl->n_tasks; i++) {
        const ptask *t = &pl->tasks[i];
        if (t->n_deletes) s->rows_estimated = true;
        for (int32_t k = 0; k < t->n_deletes; k++) pl->dels[t->deletes[k]].used = true;
        if (t->split_index != 0) continue;
        s->n_data_files++;
        s->rows += t->e->file.record_count;
        s->bytes += t->e->file.file_size_in_bytes;
    }
    for (int32_t i = 0; i < pl->n_dels; i++) s->n_delete_files += pl->dels[i].used;
}

/* ---- the driver ---------------------------------------------------------- */

static int64_t prop_size(const floe_ice_table_metadata *md, const char *key, int64_t dflt) {
    const char *v = md ? floe_ice_tm_property(md, key) : NULL;
    if (!v) return dflt;
    char *end;
    long long x = strtoll(v, &end, 10);
    return (*end || x <= 0) ? dflt : (int64_t)x;
}

static void free_list(void *v) {
    dlist *l = v;
    floe_free(l->idx);
    floe_free(l);
}

static void free_expr(void *v) { floe_ice_expr_free(v); }

static void planner_free(planner *pl) {
    for (int32_t i = 0; i < pl->n_specs; i++) {
        floe_ice_type_free(pl->specs[i].ptype);
        floe_ice_expr_free(pl->specs[i].inclusive);
    }
    floe_free(pl->specs);
    for (size_t i = 0; i < pl->n_mfs; i++) {
        if (pl->keep) floe_free(pl->keep[i]);
        if (pl->handles) floe_ice_manifest_cache_release(pl->handles[i]);
    }
    floe_free(pl->keep);
    floe_free(pl->pruned);
    floe_free(pl->handles);
    floe_free(pl->manifests);
    floe_free(pl->mfs);
    floe_free(pl->v1_files);
    floe_ice_manifest_list_free(pl->list);
    floe_free(pl->dels);
    floe_strmap_free_with(&pl->by_path, free_list);
    floe_strmap_free_with(&pl->pos_part, free_list);
    floe_strmap_free_with(&pl->eq_part, free_list);
    floe_free(pl->eq_global.idx);
    floe_strmap_free_with(&pl->residuals, free_expr);
    floe_free(pl->tasks);
    floe_buf_free(&pl->last_key);
    floe_arena_destroy(&pl->arena);
    floe_ice_expr_free(pl->filter);
}

static floe_status select_snapshot(const floe_ice_table_metadata *md, const floe_ice_snapshot_selector *sel,
                                   const floe_ice_snapshot **out) {
    *out = NULL;
    floe_ice_snapshot_select k = sel ? sel->kind : FLOE_ICE_SELECT_CURRENT;
    switch (k) {
    case FLOE_ICE_SELECT_CURRENT: *out = floe_ice_tm_current_snapshot(md); return NULL;
    case FLOE_ICE_SELECT_ID:
        *out = floe_ice_tm_snapshot(md, sel->snapshot_id);
        if (!*out) return floe_error(FLOE_ERR_NOT_FOUND, "no snapshot %" PRId64, sel->snapshot_id);
        return NULL;
    case FLOE_ICE_SELECT_REF:
        if (!sel->ref) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "snapshot selector: no ref name");
        return floe_ice_tm_snapshot_by_ref(md, sel->ref, out);
    case FLOE_ICE_SELECT_AS_OF: return floe_ice_tm_snapshot_as_of(md, sel->timestamp_ms, out);
    }
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "snapshot selector: unknown kind %d", (int)k);
}

static floe_status prepare(planner *pl, const floe_ice_expr *filter, bool case_sensitive) {
    const floe_ice_table_metadata *md = pl->t->md;
    floe_ice_expr *bound = NULL;
    if (!filter) bound = floe_ice_expr_true();
    else if (floe_ice_expr_is_bound(filter)) bound = floe_ice_expr_copy(filter);
    else FLOE_TRY_CTX(floe_ice_expr_bind(filter, pl->schema, case_sensitive, &bound), "scan filter");
    if (!bound) return oom();
    floe_status st = floe_ice_expr_rewrite_not(bound, &pl->filter);
    floe_ice_expr_free(bound);
    FLOE_TRY(st);
    pl->filter_true = pl->filter->op == FLOE_ICE_EXPR_TRUE;
    pl->n_specs = md->n_specs;
    pl->specs = floe_calloc(md->n_specs ? (size_t)md->n_specs : 1, sizeof *pl->specs);
    if (!pl->specs) return oom();
    for (int32_t i = 0; i < md->n_specs; i++) {
        spec_info *si = &pl->specs[i];
        si->spec = md->specs[i];
        floe_status tst = floe_ice_partition_spec_partition_type(si->spec, pl->schema, true, &si->ptype);
        if (tst) {
            floe_status_free(tst); /* no retyping for this spec */
            si->ptype = NULL;
        }
        if (!pl->filter_true) {
            floe_status pst = floe_ice_expr_project_inclusive(pl->filter, si->spec, &si->inclusive);
            if (pst) {
                /* A spec over a dropped column cannot prune: keep everything. */
                floe_status_free(pst);
                si->inclusive = NULL;
            }
        }
    }
    return NULL;
}

static floe_status plan(planner *pl, const floe_ice_scan_options *o, floe_ice_scan_plan *p) {
    if (!pl->snap) return pack(pl, o->target_partitions, p); /* empty table */
    FLOE_TRY(list_manifests(pl, &p->stats.n_manifests));
    p->stats.n_manifests_read = (int64_t)pl->n_mfs;
    size_t n = pl->n_mfs ? pl->n_mfs : 1;
    pl->handles = floe_calloc(n, sizeof *pl->handles);
    pl->manifests = floe_calloc(n, sizeof *pl->manifests);
    pl->keep = floe_calloc(n, sizeof *pl->keep);
    pl->pruned = floe_calloc(n, sizeof *pl->pruned);
    if (!pl->handles || !pl->manifests || !pl->keep || !pl->pruned) return oom();
    FLOE_TRY_CTX(floe_parallel_for(pl->pool, pl->n_mfs, 1, read_range, pl, NULL), "snapshot %" PRId64,
                 pl->snap->snapshot_id);
    FLOE_TRY(index_deletes(pl));
    FLOE_TRY(build_tasks(pl, &p->stats));
    base_stats(pl, p);
    FLOE_TRY(column_stats(pl, p));
    return pack(pl, o->target_partitions, p);
}

floe_status floe_ice_scan_plan_new(const floe_ice_table *t, const floe_ice_snapshot_selector *sel,
                                   const int32_t *projected, int32_t n_projected, const floe_ice_expr *filter,
                                   const floe_ice_scan_options *opts, floe_ice_scan_plan **out) {
    *out = NULL;
    if (!t || !t->md) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "scan plan: no table");
    floe_ice_scan_options o;
    if (opts) o = *opts;
    else floe_ice_scan_options_init(&o);
    if (o.target_partitions < 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "scan plan: target partitions %d < 1", (int)o.target_partitions);
    if (n_projected < 0 || (n_projected > 0 && !projected))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "scan plan: bad projection");

    planner pl;
    memset(&pl, 0, sizeof pl);
    pl.t = t;
    floe_arena_init(&pl.arena, 0);
    floe_strmap_init(&pl.by_path);
    floe_strmap_init(&pl.pos_part);
    floe_strmap_init(&pl.eq_part);
    floe_strmap_init(&pl.residuals);
    pl.split_size = o.split_size > 0 ? o.split_size : prop_size(t->md, "read.split.target-size", FLOE_ICE_DEFAULT_SPLIT_SIZE);
    pl.open_cost = o.open_file_cost > 0 ? o.open_file_cost
                                        : prop_size(t->md, "read.split.open-file-cost", FLOE_ICE_DEFAULT_OPEN_FILE_COST);
    pl.pool = o.pool;
    pl.schema = floe_ice_tm_current_schema(t->md);

    floe_ice_scan_plan *p = floe_calloc(1, sizeof *p);
    floe_status st = p ? NULL : oom();
    if (!st && !pl.pool) st = floe_threadpool_default(&pl.pool);
    if (!st) st = select_snapshot(t->md, sel, &pl.snap);
    if (!st && !pl.schema) st = floe_error(FLOE_ERR_CORRUPT, "table %s has no current schema", t->metadata_location);
    if (!st) st = prepare(&pl, filter, o.case_sensitive);
    if (!st) {
        p->snapshot_id = pl.snap ? pl.snap->snapshot_id : FLOE_ICE_NO_SNAPSHOT;
        p->schema_id = pl.schema->schema_id;
        p->n_projected = n_projected;
        p->projected = floe_malloc_array(n_projected ? (size_t)n_projected : 1, sizeof *p->projected);
        if (!p->projected) st = oom();
        else if (n_projected) memcpy(p->projected, projected, (size_t)n_projected * sizeof *projected);
    }
    if (!st) st = plan(&pl, &o, p);
    if (!st) {
        p->filter = pl.filter;
        pl.filter = NULL;
    }
    planner_free(&pl);
    if (st) {
        floe_ice_scan_plan_free(p);
        return st;
    }
    *out = p;
    return NULL;
}

/*
 * scan_plan.c — Iceberg scan planning: snapshot -> pruned manifests ->
 * pruned data files with their delete files -> splits -> task groups.
 *
 * Steps (see floe/iceberg_scan.h for the contract):
 *  1. read the manifest list and drop manifests whose partition summaries
 *     cannot satisfy the filter's inclusive projection onto their spec;
 *  2. read the rest in parallel through the manifest cache (which holds
 *     them in the compact form of scan_internal.h), pruning data entries by
 *     partition values and column metrics on the pool;
 *  3. index live delete entries by (spec, partition) and by referenced data
 *     file, each list sorted by data sequence number, so that attaching
 *     deletes costs a hash look-up and a binary search per data file;
 *  4. in parallel again, one data manifest per task: split the surviving
 *     files at split_offsets, attach their deletes and gather the plan
 *     statistics; the per-manifest results are merged in manifest order,
 *     so the plan never depends on scheduling;
 *  5. weigh the splits and bin-pack them (largest first onto the lightest
 *     group; a stable radix sort by weight of the tasks in file order),
 *     then copy every group into its own arena, groups in parallel, so
 *     that each can be shipped alone.
 *
 * A million files shaped this: per file there are a few loads from the
 * compact entry and one task record; what depends only on the partition
 * (retyping, the partition key, the residual, partition pruning) is done
 * once per run of entries sharing a tuple; metrics are looked up only for
 * the columns the filter and the statistics read; and nothing is allocated
 * per file except the group copies the API asks for.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "base/buffer.h"
#include "base/hashmap.h"
#include "base/threadpool.h"
#include "floe/iceberg_scan.h"
#include "floe/memory.h"
#include "iceberg/scan/scan_internal.h"

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
    bool used;
} pdel;

/* A list of delete indices sorted by sequence number. */
typedef struct dlist {
    int32_t n, cap;
    int32_t *idx;
} dlist;

/* One split of one surviving data file.  Tasks are kept in file order
 * (manifest-list order, then entry order, then offset), which is also the
 * order that breaks ties when packing. */
typedef struct ptask {
    const floe_ice_scan_entry *e;
    const floe_ice_value *partition; /* retyped; shared by a run of files */
    const floe_ice_expr *residual;
    const int32_t *deletes;         /* pdel indices, sorted by path */
    int64_t start, length;
    int32_t split_index, n_splits;
    int32_t n_deletes;
    int32_t spec_id;
    int32_t n_partition;
} ptask;

/* Statistics of one column over some files (see file_stats). */
typedef struct cstat {
    int64_t null_count;             /* -1 once some file lacked it */
    bool has_lower, has_upper;      /* every file so far had one */
    floe_ice_value lower, upper;    /* owned; null until the first bound */
} cstat;

/* One manifest's share of the plan, written by one task of a parallel step. */
typedef struct mpart {
    uint8_t *keep;                  /* data manifests: entry survives pruning */
    int64_t pruned;
    ptask *tasks;
    size_t n_tasks, cap_tasks;
    floe_arena arena;               /* retyped tuples, delete index lists */
    int64_t n_files, rows, bytes;
    cstat *cols;                    /* pl->n_stat_cols */
} mpart;

typedef struct planner {
    const floe_ice_table *t;
    const floe_ice_schema *schema;
    const floe_ice_snapshot *snap;
    floe_ice_expr *filter;          /* bound, NOT-free */
    bool filter_true;
    int32_t *filter_ids;            /* distinct columns the filter reads */
    int32_t n_filter_ids;
    spec_info *specs;
    int32_t n_specs;
    int64_t split_size, open_cost;
    floe_threadpool *pool;
    /* columns of the plan statistics */
    int32_t n_stat_cols;
    int32_t *stat_ids;
    const floe_ice_type **stat_types; /* NULL: not a primitive column */
    /* manifests */
    floe_ice_manifest_list *list;
    floe_ice_manifest_file *v1_files;
    const floe_ice_manifest_file **mfs;   /* surviving manifests */
    size_t n_mfs;
    floe_ice_cached_manifest **handles;
    const floe_ice_scan_manifest **manifests;
    mpart *parts;
    /* deletes */
    pdel *dels;
    int32_t n_dels, cap_dels;
    floe_strmap by_path, pos_part, eq_part;
    dlist eq_global;
    bool only_files_set;            /* read only the data files in `only` */
    floe_strmap only;
    floe_arena arena;               /* resolved delete paths */
    /* residuals by partition key, shared by the parallel task builders */
    pthread_mutex_t res_mu;
    floe_strmap residuals;          /* partition key -> floe_ice_expr* */
    /* tasks */
    size_t n_tasks;
    const ptask **order;            /* by group, file order within one */
    size_t *group_start;            /* n_groups + 1 offsets into order */
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

/* Copy tuple `src` (n values with partition field ids `ids`) into `out`
 * retyped by `si`; returns whether any type changed. */
static bool retype(const spec_info *si, int32_t n, const int32_t *ids, const floe_ice_value *src, floe_ice_value *out) {
    bool changed = false;
    for (int32_t i = 0; i < n; i++) {
        out[i] = src[i];
        if (!si || !si->ptype) continue;
        for (int32_t k = 0; k < si->ptype->n_fields; k++) {
            if (si->ptype->fields[k].id != ids[i]) continue;
            floe_ice_type_id want = si->ptype->fields[k].type->id;
            if (want != out[i].type && same_storage(want, out[i].type)) {
                out[i].type = want;
                changed = true;
            }
            break;
        }
    }
    return changed;
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

/* May any row of the file match the filter, by its column metrics?  Only
 * the columns the filter reads are looked up (the evaluator reads no
 * others). */
static floe_status metrics_might_match(const planner *pl, const floe_ice_scan_entry *e, bool *might) {
    floe_ice_field_metrics stackbuf[16];
    floe_ice_field_metrics *fm =
        pl->n_filter_ids <= 16 ? stackbuf : floe_malloc_array((size_t)pl->n_filter_ids, sizeof *fm);
    if (!fm) return oom();
    int32_t n = 0;
    for (int32_t i = 0; i < pl->n_filter_ids; i++)
        if (floe_ice_scan_metrics_find(e->metrics, pl->filter_ids[i], &fm[n])) n++;
    floe_ice_file_metrics m = {e->record_count, n, fm};
    floe_status st = floe_ice_metrics_might_match(pl->filter, &m, might);
    if (fm != stackbuf) floe_free(fm);
    if (st) return floe_status_wrap(st, "data file %s", e->path);
    return NULL;
}

static floe_status prune_entries(planner *pl, size_t i) {
    const floe_ice_scan_manifest *m = pl->manifests[i];
    mpart *mp = &pl->parts[i];
    mp->keep = floe_malloc(m->n_entries ? m->n_entries : 1);
    if (!mp->keep) return oom();
    const spec_info *si = find_spec(pl, m->spec_id);
    bool by_partition = !pl->filter_true && si && si->inclusive && m->n_partition == si->spec->n_fields &&
                        m->n_partition <= 32;
    int64_t pruned = 0;
    floe_ice_value pbuf[32];
    /* Runs of entries share their tuple and format strings: decide once
     * per run. */
    const floe_ice_value *run = NULL;
    bool have_run = false, run_match = true;
    const char *last_format = NULL;
    bool last_puffin = false;
    for (size_t k = 0; k < m->n_entries; k++) {
        const floe_ice_scan_entry *e = &m->entries[k];
        bool keep = e->status != FLOE_ICE_STATUS_DELETED && e->content == FLOE_ICE_CONTENT_DATA;
        /* Some writers record Puffin indexes in data manifests: not rows. */
        if (keep && e->format != last_format) {
            last_format = e->format;
            last_puffin = strcasecmp(e->format, "puffin") == 0;
        }
        if (keep && last_puffin) keep = false;
        if (keep && pl->only_files_set && !floe_strmap_contains(&pl->only, floe_str_c(e->path))) {
            keep = false;
            pruned++;
        }
        if (keep && !pl->filter_true) {
            if (by_partition) {
                if (!have_run || e->partition != run) {
                    if (m->n_partition) retype(si, m->n_partition, m->partition_ids, e->partition, pbuf);
                    run_match = floe_ice_partition_might_match(si->inclusive, si->spec, pbuf);
                    run = e->partition;
                    have_run = true;
                }
                keep = run_match;
            }
            if (keep) FLOE_TRY(metrics_might_match(pl, e, &keep));
            if (!keep) pruned++;
        }
        mp->keep[k] = keep;
    }
    mp->pruned = pruned;
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
        if (!n || !memchr(pl->parts[i].keep, 1, n)) {
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

static floe_status add_delete(planner *pl, const floe_ice_scan_manifest *m, const floe_ice_scan_entry *e, floe_buf *key) {
    if (pl->n_dels == pl->cap_dels) {
        int32_t nc = pl->cap_dels ? pl->cap_dels * 2 : 16;
        pdel *p = floe_realloc(pl->dels, (size_t)nc * sizeof *p);
        if (!p) return oom();
        pl->dels = p;
        pl->cap_dels = nc;
    }
    static const floe_ice_scan_del_fields none = {-1, NULL, NULL, false, false, 0, 0};
    const floe_ice_scan_del_fields *x = e->del ? e->del : &none;
    int32_t idx = pl->n_dels;
    pdel *d = &pl->dels[idx];
    memset(d, 0, sizeof *d);
    d->d.content = (floe_ice_content)e->content;
    d->d.path = e->path;
    d->d.format = e->format;
    d->d.record_count = e->record_count;
    d->d.file_size_in_bytes = e->file_size_in_bytes;
    d->d.spec_id = m->spec_id;
    d->d.sequence_number = seq_of(e->sequence_number);
    d->d.file_sequence_number = e->file_sequence_number;
    d->d.n_equality_ids = x->n_equality_ids > 0 ? x->n_equality_ids : 0;
    d->d.equality_ids = x->equality_ids;
    d->d.referenced_data_file = x->referenced_data_file;
    d->d.content_offset = x->has_content_offset ? x->content_offset : -1;
    d->d.content_size_in_bytes = x->has_content_size_in_bytes ? x->content_size_in_bytes : -1;
    d->d.is_dv = e->content == FLOE_ICE_CONTENT_POSITION_DELETES && x->has_content_offset &&
                 x->referenced_data_file != NULL;
    d->weight = d->d.is_dv && d->d.content_size_in_bytes >= 0 ? d->d.content_size_in_bytes : e->file_size_in_bytes;
    char *rp = NULL;
    FLOE_TRY(floe_ice_table_resolve_path(pl->t, e->path, &rp));
    d->d.resolved_path = floe_arena_strdup(&pl->arena, rp);
    floe_free(rp);
    if (!d->d.resolved_path) return oom();
    pl->n_dels++;

    const spec_info *si = find_spec(pl, m->spec_id);
    int32_t np = m->n_partition;
    floe_ice_value pbuf[np > 0 ? np : 1];
    if (np) retype(si, np, m->partition_ids, e->partition, pbuf);
    if (e->content == FLOE_ICE_CONTENT_POSITION_DELETES) {
        if (x->referenced_data_file)
            return map_add(&pl->by_path, x->referenced_data_file, strlen(x->referenced_data_file), idx);
        FLOE_TRY(partition_key(key, m->spec_id, pbuf, np));
        return map_add(&pl->pos_part, key->data, key->len, idx);
    }
    if (e->content == FLOE_ICE_CONTENT_EQUALITY_DELETES) {
        /* Global when its spec is unpartitioned. */
        bool global = si ? si->spec->n_fields == 0 : np == 0;
        if (global) return dlist_add(&pl->eq_global, idx);
        FLOE_TRY(partition_key(key, m->spec_id, pbuf, np));
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
        const floe_ice_scan_manifest *m = pl->manifests[i];
        if (!m || m->content != FLOE_ICE_MANIFEST_DELETES) continue; /* NULL: released, fully pruned */
        for (size_t k = 0; !st && k < m->n_entries; k++) {
            const floe_ice_scan_entry *e = &m->entries[k];
            if (e->status == FLOE_ICE_STATUS_DELETED || e->content == FLOE_ICE_CONTENT_DATA) continue;
            st = add_delete(pl, m, e, &key);
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

/* The deletes that apply to data file `e` (partition key already in `key`);
 * the list goes into `a`.  Reads the index only: safe in parallel. */
static floe_status match_deletes(const planner *pl, floe_arena *a, const floe_ice_scan_entry *e, const floe_buf *key,
                                 int32_t **out, int32_t *n_out) {
    *out = NULL;
    *n_out = 0;
    if (pl->n_dels == 0) return NULL;
    int64_t s = seq_of(e->sequence_number);
    const dlist *lists[4] = {
        floe_strmap_get(&pl->by_path, floe_str_c(e->path)),
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
    int32_t *ids = floe_arena_alloc_aligned(a, (size_t)total * sizeof *ids, _Alignof(int32_t));
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

/* ---- step 4: tasks, splits and statistics, per manifest --------------------- */

/* The residual of the filter on the partition keyed `key` (one per distinct
 * partition for the whole plan; the map is shared by the builders). */
static floe_status residual_for(planner *pl, const spec_info *si, const floe_ice_value *part, int32_t n_part,
                                const floe_buf *key, const floe_ice_expr **out) {
    floe_str k = floe_str_make((const char *)key->data, key->len);
    pthread_mutex_lock(&pl->res_mu);
    void **slot;
    bool inserted;
    floe_status st = floe_strmap_upsert(&pl->residuals, k, &slot, &inserted);
    if (!st && !inserted) *out = *slot;
    if (!st && inserted) {
        floe_ice_expr *r = NULL;
        if (pl->filter_true || !si || n_part != si->spec->n_fields) r = floe_ice_expr_copy(pl->filter);
        else st = floe_ice_expr_residual(pl->filter, si->spec, part, n_part, &r);
        if (!st && !r) st = oom();
        if (st) floe_strmap_remove(&pl->residuals, k, NULL);
        else *slot = r, *out = r;
    }
    pthread_mutex_unlock(&pl->res_mu);
    return st;
}

static floe_status push_task(mpart *mp, const ptask *t) {
    if (mp->n_tasks == mp->cap_tasks) {
        size_t nc = mp->cap_tasks ? mp->cap_tasks * 2 : 16;
        ptask *p = floe_realloc(mp->tasks, nc * sizeof *p);
        if (!p) return oom();
        mp->tasks = p;
        mp->cap_tasks = nc;
    }
    mp->tasks[mp->n_tasks++] = *t;
    return NULL;
}

/* Are split offsets usable: ascending, inside the file? */
static bool sane_offsets(const floe_ice_scan_entry *e) {
    if (e->n_split_offsets <= 0 || !e->split_offsets) return false;
    for (int32_t i = 0; i < e->n_split_offsets; i++) {
        int64_t o = e->split_offsets[i];
        if (o < 0 || o >= e->file_size_in_bytes) return false;
        if (i > 0 && o <= e->split_offsets[i - 1]) return false;
    }
    return true;
}

/* Fold file `e` into the manifest's share of the plan statistics. */
static floe_status file_stats(const planner *pl, mpart *mp, const floe_ice_scan_entry *e) {
    mp->n_files++;
    mp->rows += e->record_count;
    mp->bytes += e->file_size_in_bytes;
    for (int32_t c = 0; c < pl->n_stat_cols; c++) {
        cstat *cs = &mp->cols[c];
        if (cs->null_count < 0 && !cs->has_lower && !cs->has_upper) continue;
        floe_ice_field_metrics fm;
        floe_ice_scan_metrics_find(e->metrics, pl->stat_ids[c], &fm);
        if (cs->null_count >= 0) cs->null_count = fm.null_count >= 0 ? cs->null_count + fm.null_count : -1;
        for (int up = 0; up < 2; up++) {
            bool *has = up ? &cs->has_upper : &cs->has_lower;
            floe_ice_value *cur = up ? &cs->upper : &cs->lower;
            if (!*has) continue;
            const uint8_t *bytes = up ? fm.upper : fm.lower;
            size_t len = up ? fm.upper_len : fm.lower_len;
            floe_ice_value v;
            floe_status bst = bytes ? floe_ice_value_from_bytes(pl->stat_types[c], bytes, len, &v) : NULL;
            if (!bytes || bst) {
                /* Missing or undecodable: the plan has no bound. */
                floe_status_free(bst);
                *has = false;
                floe_ice_value_free(cur);
                continue;
            }
            int cmp = cur->is_null ? (up ? 1 : -1) : floe_ice_value_compare(&v, cur);
            floe_status st = NULL;
            if ((up && cmp > 0) || (!up && cmp < 0)) {
                floe_ice_value_free(cur);
                st = floe_ice_value_copy(&v, cur);
            }
            floe_ice_value_free(&v);
            FLOE_TRY(st);
        }
    }
    return NULL;
}

/* The tasks of one surviving data file. */
static floe_status add_file(planner *pl, mpart *mp, int32_t spec_id, int32_t n_part, const floe_ice_scan_entry *e,
                            const floe_ice_value *part, const floe_ice_expr *residual, const floe_buf *key) {
    ptask t;
    memset(&t, 0, sizeof t);
    t.e = e;
    t.partition = part;
    t.residual = residual;
    t.spec_id = spec_id;
    t.n_partition = n_part;
    int32_t *dels = NULL;
    FLOE_TRY(match_deletes(pl, &mp->arena, e, key, &dels, &t.n_deletes));
    t.deletes = dels;

    int64_t size = e->file_size_in_bytes > 0 ? e->file_size_in_bytes : 0;
    /* Split boundaries: 0, the offsets after the first, then the file end. */
    int32_t n_split = 1;
    int64_t bounds_stack[2] = {0, size};
    int64_t *cuts = bounds_stack;
    if (size > pl->split_size && sane_offsets(e)) {
        cuts = floe_malloc_array((size_t)e->n_split_offsets + 1, sizeof *cuts);
        if (!cuts) return oom();
        int32_t nc = 0;
        cuts[nc++] = 0;
        int64_t start = 0;
        for (int32_t i = 1; i < e->n_split_offsets; i++) {
            int64_t next_end = i + 1 < e->n_split_offsets ? e->split_offsets[i + 1] : size;
            /* Cut before row group i when adding it would exceed the target. */
            if (next_end - start > pl->split_size) {
                cuts[nc++] = e->split_offsets[i];
                start = e->split_offsets[i];
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
        st = push_task(mp, &t);
    }
    if (cuts != bounds_stack) floe_free(cuts);
    if (!st) st = file_stats(pl, mp, e);
    return st;
}

static floe_status build_part(planner *pl, size_t i) {
    const floe_ice_scan_manifest *m = pl->manifests[i];
    if (!m || m->content != FLOE_ICE_MANIFEST_DATA) return NULL;
    mpart *mp = &pl->parts[i];
    for (int32_t c = 0; c < pl->n_stat_cols; c++) {
        cstat *cs = &mp->cols[c];
        floe_ice_type_id tid = pl->stat_types[c] ? pl->stat_types[c]->id : FLOE_ICE_LONG;
        cs->lower = floe_ice_null(tid);
        cs->upper = floe_ice_null(tid);
        cs->has_lower = cs->has_upper = pl->stat_types[c] != NULL;
    }
    const spec_info *si = find_spec(pl, m->spec_id);
    int32_t np = m->n_partition;
    floe_buf key;
    floe_buf_init(&key);
    floe_status st = NULL;
    /* What depends on the partition only is redone when the tuple changes. */
    const floe_ice_value *run = NULL, *part = NULL;
    const floe_ice_expr *residual = NULL;
    bool have_run = false;
    for (size_t k = 0; !st && k < m->n_entries; k++) {
        if (!mp->keep[k]) continue;
        const floe_ice_scan_entry *e = &m->entries[k];
        if (!have_run || e->partition != run) {
            run = e->partition;
            have_run = true;
            part = run;
            floe_ice_value scratch[np > 0 ? np : 1];
            if (np && retype(si, np, m->partition_ids, run, scratch)) {
                floe_ice_value *copy = floe_arena_alloc_aligned(&mp->arena, (size_t)np * sizeof *copy, _Alignof(floe_ice_value));
                if (!copy) {
                    st = oom();
                    break;
                }
                memcpy(copy, scratch, (size_t)np * sizeof *copy);
                part = copy;
            }
            st = partition_key(&key, m->spec_id, part, np);
            if (!st) st = residual_for(pl, si, part, np, &key, &residual);
            if (st) break;
        }
        st = add_file(pl, mp, m->spec_id, np, e, part, residual, &key);
    }
    floe_buf_free(&key);
    return st;
}

/* Per-manifest task arrays (one task per surviving file, more only for
 * split files) and statistics, allocated on the planning thread for the
 * reason given in pack. */
static floe_status alloc_parts(planner *pl) {
    for (size_t i = 0; i < pl->n_mfs; i++) {
        const floe_ice_scan_manifest *m = pl->manifests[i];
        if (!m || m->content != FLOE_ICE_MANIFEST_DATA) continue;
        mpart *mp = &pl->parts[i];
        size_t n_keep = 0;
        for (size_t k = 0; k < m->n_entries; k++) n_keep += mp->keep[k];
        mp->tasks = floe_malloc_array(n_keep ? n_keep : 1, sizeof *mp->tasks);
        mp->cols = floe_calloc(pl->n_stat_cols ? (size_t)pl->n_stat_cols : 1, sizeof *mp->cols);
        if (!mp->tasks || !mp->cols) return oom();
        mp->cap_tasks = n_keep ? n_keep : 1;
    }
    return NULL;
}

static floe_status build_range(void *ctx, size_t begin, size_t end, const floe_cancel *cancel) {
    planner *pl = ctx;
    for (size_t i = begin; i < end; i++) {
        FLOE_TRY(floe_cancel_check(cancel, "planning tasks"));
        FLOE_TRY(build_part(pl, i));
    }
    return NULL;
}

/* ---- step 5: bin-packing and groups ----------------------------------- */

/* Heaviest first onto the lightest group (weight = max(length, open-file
 * cost) + sizes of the task's deletes); ties keep file order. */
static int64_t task_weight(const planner *pl, const ptask *t) {
    int64_t w = t->length > pl->open_cost ? t->length : pl->open_cost;
    for (int32_t i = 0; i < t->n_deletes; i++) w += pl->dels[t->deletes[i]].weight;
    return w;
}

typedef struct wkey {
    uint64_t key;                   /* ascending = heaviest first */
    uint64_t idx;                   /* task number in file order */
} wkey;

/* Stable LSD radix sort of a[0..n) by key (tmp: n more); returns the
 * sorted array (a or tmp).  Bytes every key shares cost no pass, so equal
 * or narrow weights sort in one or two passes over the tasks. */
static wkey *radix_sort(wkey *a, wkey *tmp, size_t n) {
    size_t (*counts)[256] = floe_calloc(8, sizeof *counts);
    if (!counts) return NULL;
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < 8; d++) counts[d][(a[i].key >> (8 * d)) & 255]++;
    for (int d = 0; d < 8 && n > 0; d++) {
        if (counts[d][(a[0].key >> (8 * d)) & 255] == n) continue;
        size_t pos = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = counts[d][b];
            counts[d][b] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++) tmp[counts[d][(a[i].key >> (8 * d)) & 255]++] = a[i];
        wkey *s = a;
        a = tmp;
        tmp = s;
    }
    floe_free(counts);
    return a;
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

/* Assign every task to a group and lay the tasks out by group in
 * pl->order (file order within a group, as a stable pass over the tasks
 * in file order gives). */
static floe_status assign_groups(planner *pl, int32_t n_groups) {
    size_t n = pl->n_tasks;
    pl->group_start = floe_calloc((size_t)n_groups + 1, sizeof *pl->group_start);
    pl->order = floe_malloc_array(n ? n : 1, sizeof *pl->order);
    if (!pl->group_start || !pl->order) return oom();
    if (n == 0) return NULL;
    int32_t *assign = floe_malloc_array(n, sizeof *assign);
    gslot *heap = floe_malloc_array((size_t)n_groups, sizeof *heap);
    floe_status st = (!assign || !heap) ? oom() : NULL;
    /* Tasks whose weights already fall in file order (all files below the
     * open-file cost, say, the common case for many small files) need no
     * sort; otherwise a stable sort by weight of (key, task) pairs. */
    bool sorted_already = true;
    int64_t last = INT64_MAX;
    for (size_t i = 0; !st && sorted_already && i < pl->n_mfs; i++) {
        const mpart *mp = &pl->parts[i];
        for (size_t k = 0; sorted_already && k < mp->n_tasks; k++) {
            int64_t w = task_weight(pl, &mp->tasks[k]);
            sorted_already = w <= last;
            last = w;
        }
    }
    wkey *keys = NULL, *tmp = NULL, *sorted = NULL;
    if (!st && !sorted_already) {
        keys = floe_malloc_array(n, sizeof *keys);
        tmp = floe_malloc_array(n, sizeof *tmp);
        if (!keys || !tmp) st = oom();
        size_t idx = 0;
        for (size_t i = 0; !st && i < pl->n_mfs; i++) {
            const mpart *mp = &pl->parts[i];
            for (size_t k = 0; k < mp->n_tasks; k++, idx++) {
                /* Descending signed weight as an ascending unsigned key. */
                uint64_t w = (uint64_t)task_weight(pl, &mp->tasks[k]) ^ ((uint64_t)1 << 63);
                keys[idx] = (wkey){~w, idx};
            }
        }
        if (!st && !(sorted = radix_sort(keys, tmp, n))) st = oom();
    }
    if (!st) {
        for (int32_t g = 0; g < n_groups; g++) heap[g] = (gslot){0, g};
        size_t idx = 0, mi = 0, k = 0;
        for (size_t i = 0; i < n; i++) {
            int64_t w;
            if (sorted) {
                w = (int64_t)(~sorted[i].key ^ ((uint64_t)1 << 63));
                idx = sorted[i].idx;
            } else {
                while (k == pl->parts[mi].n_tasks) mi++, k = 0;
                w = task_weight(pl, &pl->parts[mi].tasks[k++]);
                idx = i;
            }
            assign[idx] = heap[0].index;
            heap[0].weight += w;
            heap_down(heap, n_groups, 0);
        }
    }
    floe_free(keys);
    floe_free(tmp);
    floe_free(heap);
    if (!st) {
        for (size_t i = 0; i < n; i++) pl->group_start[assign[i] + 1]++;
        for (int32_t g = 0; g < n_groups; g++) pl->group_start[g + 1] += pl->group_start[g];
        size_t *fill = floe_malloc_array((size_t)n_groups, sizeof *fill);
        if (!fill) st = oom();
        else {
            memcpy(fill, pl->group_start, (size_t)n_groups * sizeof *fill);
            size_t idx = 0;
            for (size_t i = 0; i < pl->n_mfs; i++) {
                const mpart *mp = &pl->parts[i];
                for (size_t k = 0; k < mp->n_tasks; k++, idx++) pl->order[fill[assign[idx]]++] = &mp->tasks[k];
            }
            floe_free(fill);
        }
    }
    floe_free(assign);
    return st;
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

/* The group's own copies of the deletes its tasks use, in first-use order;
 * *local maps a plan delete index to its index in the group. */
static floe_status group_deletes(const planner *pl, floe_ice_scan_group *g, const ptask *const *order, size_t n,
                                 floe_u64map *local) {
    floe_arena *a = &g->priv->arena;
    int32_t n_del = 0;
    int32_t *first_use = NULL;
    floe_status st = NULL;
    if (pl->n_dels) {
        first_use = floe_malloc_array((size_t)pl->n_dels, sizeof *first_use);
        if (!first_use) return oom();
    }
    for (size_t i = 0; !st && i < n; i++) {
        const ptask *t = order[i];
        for (int32_t k = 0; !st && k < t->n_deletes; k++) {
            uint64_t *slot;
            bool inserted;
            st = floe_u64map_upsert(local, (uint64_t)t->deletes[k], &slot, &inserted);
            if (!st && inserted) {
                *slot = (uint64_t)n_del;
                first_use[n_del++] = t->deletes[k];
            }
        }
    }
    floe_ice_scan_delete *dels = NULL;
    if (!st) {
        dels = floe_arena_calloc(a, n_del ? (size_t)n_del : 1, sizeof *dels);
        if (!dels) st = oom();
    }
    for (int32_t i = 0; !st && i < n_del; i++) st = copy_delete(a, &pl->dels[first_use[i]].d, &dels[i]);
    floe_free(first_use);
    if (st) return st;
    g->deletes = dels;
    g->n_deletes = n_del;
    return NULL;
}

/* An empty group `gi` for n tasks, with its task array and a first
 * string chunk sized for them.  Called on the planning thread (see pack). */
static floe_status group_new(int32_t gi, size_t n, floe_ice_scan_group **out) {
    floe_ice_scan_group *g = floe_calloc(1, sizeof *g);
    if (!g) return oom();
    g->priv = floe_calloc(1, sizeof *g->priv);
    if (!g->priv) {
        floe_free(g);
        return oom();
    }
    *out = g;
    g->index = gi;
    /* About a path and a tuple per task; more chunks come if needed. */
    size_t chunk = n * 64;
    floe_arena_init(&g->priv->arena, chunk < FLOE_ARENA_DEFAULT_CHUNK ? FLOE_ARENA_DEFAULT_CHUNK : chunk);
    g->tasks = floe_arena_alloc(&g->priv->arena, (n ? n : 1) * sizeof *g->tasks);
    if (!g->tasks || !floe_arena_alloc_aligned(&g->priv->arena, 1, 1)) return oom();
    return NULL;
}

/* Fill group `g` with the tasks order[0..n). */
static floe_status make_group(const planner *pl, floe_ice_scan_group *g, const ptask *const *order, size_t n) {
    floe_arena *a = &g->priv->arena;
    floe_ice_scan_task *tasks = (floe_ice_scan_task *)g->tasks;
    floe_u64map local;
    floe_u64map_init(&local);
    floe_status st = group_deletes(pl, g, order, n, &local);
    /* Residuals: one copy per distinct plan residual. */
    floe_u64map rmap;
    floe_u64map_init(&rmap);
    int32_t cap_exprs = 0;
    /* Runs of tasks share what their predecessor already copied: the
     * splits of one file its paths, files of one partition the tuple,
     * every task of a format its format string. */
    const ptask *prev = NULL;
    const char *prev_format_src = NULL;
    for (size_t i = 0; !st && i < n; i++) {
        const ptask *pt = order[i];
        const floe_ice_scan_entry *e = pt->e;
        floe_ice_scan_task *t = &tasks[i];
        memset(t, 0, sizeof *t);
        if (i + 4 < n) {
            /* Tasks of a group are spread over every manifest: fetch ahead. */
            __builtin_prefetch(order[i + 4]);
            if (i + 2 < n) __builtin_prefetch(order[i + 2]->e);
        }
        if (prev && prev->e == e) {
            t->path = tasks[i - 1].path;
            t->resolved_path = tasks[i - 1].resolved_path;
        } else if (!pl->t->allow_moved_paths) {
            /* Without allow_moved_paths floe_ice_table_resolve_path returns
             * every path unchanged (its documented contract). */
            t->path = t->resolved_path = adup(a, e->path);
            g->n_files++;
        } else {
            /* Resolved here rather than while planning: one copy per file. */
            char *rp = NULL;
            st = floe_ice_table_resolve_path(pl->t, e->path, &rp);
            if (st) break;
            t->path = adup(a, e->path);
            t->resolved_path = t->path && strcmp(rp, t->path) == 0 ? t->path : adup(a, rp);
            floe_free(rp);
            g->n_files++;
        }
        if (prev_format_src && (prev_format_src == e->format || strcmp(prev_format_src, e->format) == 0))
            t->format = tasks[i - 1].format;
        else t->format = adup(a, e->format);
        prev_format_src = e->format;
        if (!t->path || !t->resolved_path || !t->format) {
            st = oom();
            break;
        }
        t->record_count = e->record_count;
        t->file_size_in_bytes = e->file_size_in_bytes;
        t->spec_id = pt->spec_id;
        t->n_partition = pt->n_partition > 0 ? pt->n_partition : 0;
        if (prev && prev->partition == pt->partition && tasks[i - 1].n_partition == t->n_partition) {
            t->partition = tasks[i - 1].partition;
        } else {
            floe_ice_value *pv = floe_arena_calloc(a, t->n_partition ? (size_t)t->n_partition : 1, sizeof *pv);
            if (!pv) {
                st = oom();
                break;
            }
            for (int32_t k = 0; !st && k < t->n_partition; k++) st = copy_value(a, &pt->partition[k], &pv[k]);
            t->partition = pv;
        }
        prev = pt;
        t->sequence_number = seq_of(e->sequence_number);
        t->file_sequence_number = e->file_sequence_number;
        t->has_first_row_id = e->has_first_row_id;
        t->first_row_id = e->has_first_row_id ? e->first_row_id : 0;
        t->start = pt->start;
        t->length = pt->length;
        t->split_index = pt->split_index;
        t->n_splits = pt->n_splits;
        uint64_t *slot;
        bool inserted;
        if (!st) st = floe_u64map_upsert(&rmap, (uint64_t)(uintptr_t)pt->residual, &slot, &inserted);
        if (st) break;
        if (inserted) {
            if (g->priv->n_exprs == cap_exprs) {
                int32_t nc = cap_exprs ? 2 * cap_exprs : 4;
                floe_ice_expr **ne = floe_realloc(g->priv->exprs, (size_t)nc * sizeof *ne);
                if (!ne) {
                    st = oom();
                    break;
                }
                g->priv->exprs = ne;
                cap_exprs = nc;
            }
            floe_ice_expr *c = floe_ice_expr_copy(pt->residual);
            if (!c) {
                st = oom();
                break;
            }
            g->priv->exprs[g->priv->n_exprs++] = c;
            *slot = (uint64_t)(uintptr_t)c;
        }
        t->residual = (const floe_ice_expr *)(uintptr_t)*slot;
        t->n_deletes = pt->n_deletes;
        if (pt->n_deletes) {
            const floe_ice_scan_delete **dp = floe_arena_alloc(a, (size_t)pt->n_deletes * sizeof *dp);
            if (!dp) {
                st = oom();
                break;
            }
            for (int32_t k = 0; k < pt->n_deletes; k++) {
                uint64_t gidx = 0;
                floe_u64map_get(&local, (uint64_t)pt->deletes[k], &gidx);
                dp[k] = &g->deletes[gidx];
            }
            t->deletes = dp;
        }
        g->weight += task_weight(pl, pt);
        g->bytes += pt->length;
        if (pt->split_index == 0) g->rows += e->record_count;
    }
    floe_u64map_free(&rmap);
    floe_u64map_free(&local);
    g->n_tasks = (int32_t)n;
    return st;
}

typedef struct group_ctx {
    const planner *pl;
    floe_ice_scan_plan *p;
} group_ctx;

static floe_status group_range(void *ctx, size_t begin, size_t end, const floe_cancel *cancel) {
    group_ctx *gc = ctx;
    const planner *pl = gc->pl;
    for (size_t gi = begin; gi < end; gi++) {
        FLOE_TRY(floe_cancel_check(cancel, "making task groups"));
        size_t from = pl->group_start[gi], to = pl->group_start[gi + 1];
        FLOE_TRY(make_group(pl, gc->p->groups[gi], pl->order + from, to - from));
    }
    return NULL;
}

static floe_status pack(planner *pl, int32_t target, floe_ice_scan_plan *p) {
    int32_t n_groups = pl->n_tasks < (size_t)target ? (int32_t)pl->n_tasks : target;
    if (n_groups < 1) n_groups = 1;
    p->groups = floe_calloc((size_t)n_groups, sizeof *p->groups);
    if (!p->groups) return oom();
    p->n_groups = n_groups;
    FLOE_TRY(assign_groups(pl, n_groups));
    /* The groups' large blocks are allocated here, on the planning thread,
     * and only filled in parallel.  A block a worker allocates comes from
     * that thread's malloc arena, and which worker builds which group
     * changes from plan to plan, so what one plan frees would seldom serve
     * the next: it would touch fresh pages instead, and first-touch page
     * faults are expensive on some virtual machines. */
    for (int32_t gi = 0; gi < n_groups; gi++)
        FLOE_TRY(group_new(gi, pl->group_start[gi + 1] - pl->group_start[gi], &p->groups[gi]));
    group_ctx gc = {pl, p};
    return floe_parallel_for(pl->pool, (size_t)n_groups, 1, group_range, &gc, NULL);
}

/* ---- statistics --------------------------------------------------------- */

/* The statistics columns: the projection, or every top-level primitive. */
static floe_status stat_columns(planner *pl, const int32_t *projected, int32_t n_projected) {
    int32_t n = n_projected;
    const floe_ice_type *root = pl->schema->root;
    int32_t cap = n_projected > 0 ? n_projected : (root ? root->n_fields : 0);
    pl->stat_ids = floe_calloc(cap ? (size_t)cap : 1, sizeof *pl->stat_ids);
    pl->stat_types = floe_calloc(cap ? (size_t)cap : 1, sizeof *pl->stat_types);
    if (!pl->stat_ids || !pl->stat_types) return oom();
    if (n_projected > 0) memcpy(pl->stat_ids, projected, (size_t)n_projected * sizeof *projected);
    else
        for (int32_t i = 0; root && i < root->n_fields; i++)
            if (floe_ice_type_is_primitive(root->fields[i].type)) pl->stat_ids[n++] = root->fields[i].id;
    pl->n_stat_cols = n;
    for (int32_t c = 0; c < n; c++) {
        const floe_ice_field *fld = floe_ice_schema_find_field(pl->schema, pl->stat_ids[c]);
        pl->stat_types[c] = fld && floe_ice_type_is_primitive(fld->type) ? fld->type : NULL;
    }
    return NULL;
}

/* Merge the manifests' statistics in manifest order (the order a single
 * pass over the files would have seen them, so ties resolve the same). */
static floe_status merge_stats(planner *pl, floe_ice_scan_plan *p) {
    floe_ice_scan_stats *s = &p->stats;
    int32_t n = pl->n_stat_cols;
    s->n_tasks = (int64_t)pl->n_tasks;
    s->columns = floe_calloc(n ? (size_t)n : 1, sizeof *s->columns);
    if (!s->columns) return oom();
    s->n_columns = n;
    for (int32_t c = 0; c < n; c++) {
        floe_ice_scan_column_stats *cs = &s->columns[c];
        cs->field_id = pl->stat_ids[c];
        const floe_ice_field *fld = floe_ice_schema_find_field(pl->schema, cs->field_id);
        floe_ice_type_id tid = fld && fld->type ? fld->type->id : FLOE_ICE_LONG;
        cs->lower = floe_ice_null(tid);
        cs->upper = floe_ice_null(tid);
        cs->has_lower = cs->has_upper = pl->stat_types[c] != NULL && pl->n_tasks > 0;
    }
    for (size_t i = 0; i < pl->n_mfs; i++) {
        mpart *mp = &pl->parts[i];
        if (mp->n_files == 0) continue;
        s->n_data_files += mp->n_files;
        s->rows += mp->rows;
        s->bytes += mp->bytes;
        for (int32_t c = 0; c < n; c++) {
            floe_ice_scan_column_stats *cs = &s->columns[c];
            cstat *ps = &mp->cols[c];
            if (cs->null_count >= 0) cs->null_count = ps->null_count >= 0 ? cs->null_count + ps->null_count : -1;
            for (int up = 0; up < 2; up++) {
                bool *has = up ? &cs->has_upper : &cs->has_lower;
                floe_ice_value *cur = up ? &cs->upper : &cs->lower;
                floe_ice_value *v = up ? &ps->upper : &ps->lower;
                if (!*has) continue;
                if (!(up ? ps->has_upper : ps->has_lower) || v->is_null) {
                    *has = false;
                    floe_ice_value_free(cur);
                    continue;
                }
                int cmp = cur->is_null ? (up ? 1 : -1) : floe_ice_value_compare(v, cur);
                if ((up && cmp > 0) || (!up && cmp < 0)) {
                    /* Take the manifest's copy. */
                    floe_ice_value_free(cur);
                    *cur = *v;
                    *v = floe_ice_null(v->type);
                }
            }
        }
    }
    for (int32_t c = 0; c < n; c++) {
        floe_ice_scan_column_stats *cs = &s->columns[c];
        if (cs->has_lower && cs->lower.is_null) cs->has_lower = false;
        if (cs->has_upper && cs->upper.is_null) cs->has_upper = false;
        if (pl->n_tasks == 0) cs->null_count = 0;
    }
    /* Deletes attached to some task. */
    for (size_t i = 0; pl->n_dels && i < pl->n_mfs; i++) {
        const mpart *mp = &pl->parts[i];
        for (size_t k = 0; k < mp->n_tasks; k++) {
            const ptask *t = &mp->tasks[k];
            if (t->n_deletes) s->rows_estimated = true;
            for (int32_t j = 0; j < t->n_deletes; j++) pl->dels[t->deletes[j]].used = true;
        }
    }
    for (int32_t i = 0; i < pl->n_dels; i++) s->n_delete_files += pl->dels[i].used;
    return NULL;
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

static void mpart_free(const planner *pl, mpart *mp) {
    floe_free(mp->keep);
    floe_free(mp->tasks);
    floe_arena_destroy(&mp->arena);
    if (mp->cols) {
        for (int32_t c = 0; c < pl->n_stat_cols; c++) {
            floe_ice_value_free(&mp->cols[c].lower);
            floe_ice_value_free(&mp->cols[c].upper);
        }
        floe_free(mp->cols);
    }
}

static void planner_free(planner *pl) {
    floe_strmap_free(&pl->only);
    for (int32_t i = 0; i < pl->n_specs; i++) {
        floe_ice_type_free(pl->specs[i].ptype);
        floe_ice_expr_free(pl->specs[i].inclusive);
    }
    floe_free(pl->specs);
    floe_free(pl->order);
    floe_free(pl->group_start);
    for (size_t i = 0; i < pl->n_mfs; i++) {
        if (pl->parts) mpart_free(pl, &pl->parts[i]);
        if (pl->handles) floe_ice_manifest_cache_release(pl->handles[i]);
    }
    floe_free(pl->parts);
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
    pthread_mutex_destroy(&pl->res_mu);
    floe_arena_destroy(&pl->arena);
    floe_ice_expr_free(pl->filter);
    floe_free(pl->filter_ids);
    floe_free(pl->stat_ids);
    floe_free(pl->stat_types);
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

/* The distinct columns the predicates of `e` read. */
static floe_status collect_filter_ids(planner *pl, const floe_ice_expr *e, int32_t *cap) {
    if (!e) return NULL;
    if (floe_ice_expr_op_is_predicate(e->op)) {
        for (int32_t i = 0; i < pl->n_filter_ids; i++)
            if (pl->filter_ids[i] == e->field_id) return NULL;
        if (pl->n_filter_ids == *cap) {
            int32_t nc = *cap ? *cap * 2 : 4;
            int32_t *p = floe_realloc(pl->filter_ids, (size_t)nc * sizeof *p);
            if (!p) return oom();
            pl->filter_ids = p;
            *cap = nc;
        }
        pl->filter_ids[pl->n_filter_ids++] = e->field_id;
        return NULL;
    }
    FLOE_TRY(collect_filter_ids(pl, e->left, cap));
    return collect_filter_ids(pl, e->right, cap);
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
    int32_t cap = 0;
    FLOE_TRY(collect_filter_ids(pl, pl->filter, &cap));
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
    pl->parts = floe_calloc(n, sizeof *pl->parts);
    if (!pl->handles || !pl->manifests || !pl->parts) return oom();
    /* Small chunks: most manifests need no retyped tuple or delete list. */
    for (size_t i = 0; i < pl->n_mfs; i++) floe_arena_init(&pl->parts[i].arena, 4096);
    FLOE_TRY_CTX(floe_parallel_for(pl->pool, pl->n_mfs, 1, read_range, pl, NULL), "snapshot %" PRId64,
                 pl->snap->snapshot_id);
    FLOE_TRY(index_deletes(pl));
    FLOE_TRY(alloc_parts(pl));
    FLOE_TRY(floe_parallel_for(pl->pool, pl->n_mfs, 1, build_range, pl, NULL));
    for (size_t i = 0; i < pl->n_mfs; i++) {
        const floe_ice_scan_manifest *m = pl->manifests[i];
        if (m && m->content != FLOE_ICE_MANIFEST_DATA) continue;
        p->stats.n_files_pruned += pl->parts[i].pruned;
        pl->n_tasks += pl->parts[i].n_tasks;
    }
    FLOE_TRY(merge_stats(pl, p));
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
    pthread_mutex_init(&pl.res_mu, NULL);
    pl.split_size = o.split_size > 0 ? o.split_size : prop_size(t->md, "read.split.target-size", FLOE_ICE_DEFAULT_SPLIT_SIZE);
    pl.open_cost = o.open_file_cost > 0 ? o.open_file_cost
                                        : prop_size(t->md, "read.split.open-file-cost", FLOE_ICE_DEFAULT_OPEN_FILE_COST);
    pl.pool = o.pool;
    pl.schema = floe_ice_tm_current_schema(t->md);
    floe_strmap_init(&pl.only);
    pl.only_files_set = o.only_files_set;

    floe_ice_scan_plan *p = floe_calloc(1, sizeof *p);
    floe_status st = p ? NULL : oom();
    if (!st && !pl.pool) st = floe_threadpool_default(&pl.pool);
    for (int32_t i = 0; !st && o.only_files_set && i < o.n_only_files; i++)
        st = floe_strmap_put_c(&pl.only, o.only_files[i], NULL, NULL);
    if (!st) st = select_snapshot(t->md, sel, &pl.snap);
    if (!st && !pl.schema) st = floe_error(FLOE_ERR_CORRUPT, "table %s has no current schema", t->metadata_location);
    if (!st) st = prepare(&pl, filter, o.case_sensitive);
    if (!st) st = stat_columns(&pl, projected, n_projected);
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

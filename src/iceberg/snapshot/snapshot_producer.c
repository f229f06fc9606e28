/*
 * snapshot_producer.c — writing one new snapshot: added manifest,
 * rewritten manifests, manifest list, summary and the metadata edit.
 * See snapshot_producer.h; the operations live in table_append.c,
 * table_overwrite.c and table_delete.c.
 *
 * The snapshot is installed by editing the metadata's JSON tree (the
 * machinery of table_update_internal.h), whose parser re-validates the
 * result.  Nothing here touches the catalog.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include <jansson.h>

#include "base/threadpool.h"
#include "floe/memory.h"
#include "iceberg/snapshot/snapshot_producer.h"
#include "iceberg/update/table_update_internal.h"

/* The reserved field id of a position delete file's file_path column. */
#define POS_DELETE_FILE_PATH_ID 2147483546

static floe_status oom(const floe_ice_producer *p) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory building a commit (%s)", p->what);
}

/* ---- tuple maps ------------------------------------------------------------ */

struct floe_ice_tuple_slot {
    bool used;
    uint64_t h;
    int32_t spec_id, n;
    const floe_ice_value *values;
    int64_t aux;
};

/* The value with its type folded onto its storage class (int-like, long-
 * like) and nulls made alike, so equal storage compares equal. */
static floe_ice_value normalized(const floe_ice_value *v) {
    floe_ice_value x = *v;
    if (x.is_null) {
        x.type = FLOE_ICE_BOOLEAN;
        x.v.i64 = 0;
        return x;
    }
    switch (x.type) {
    case FLOE_ICE_DATE: x.type = FLOE_ICE_INT; break;
    case FLOE_ICE_TIME:
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ:
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS: x.type = FLOE_ICE_LONG; break;
    default: break;
    }
    return x;
}

static uint64_t tuple_hash(int32_t spec_id, int32_t n, const floe_ice_value *values) {
    uint64_t h = ((uint64_t)(uint32_t)spec_id << 32) ^ (uint64_t)(uint32_t)n ^ 0x9e3779b97f4a7c15ULL;
    for (int32_t i = 0; i < n; i++) {
        floe_ice_value x = normalized(&values[i]);
        h = floe_ice_value_hash64(&x, h);
    }
    return h;
}

static bool tuple_equal(const struct floe_ice_tuple_slot *s, uint64_t h, int32_t spec_id, int32_t n,
                        const floe_ice_value *values) {
    if (s->h != h || s->spec_id != spec_id || s->n != n) return false;
    for (int32_t i = 0; i < n; i++) {
        floe_ice_value a = normalized(&s->values[i]), b = normalized(&values[i]);
        if (!floe_ice_value_equals(&a, &b)) return false;
    }
    return true;
}

bool floe_ice_tuple_equal(int32_t n, const floe_ice_value *a, const floe_ice_value *b) {
    for (int32_t i = 0; i < n; i++) {
        floe_ice_value x = normalized(&a[i]), y = normalized(&b[i]);
        if (!floe_ice_value_equals(&x, &y)) return false;
    }
    return true;
}

static struct floe_ice_tuple_slot *tuple_find(const floe_ice_tuple_map *m, uint64_t h, int32_t spec_id, int32_t n,
                                              const floe_ice_value *values) {
    if (!m->cap) return NULL;
    for (size_t i = (size_t)h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct floe_ice_tuple_slot *s = &m->slots[i];
        if (!s->used || tuple_equal(s, h, spec_id, n, values)) return s;
    }
}

static floe_status tuple_grow(floe_ice_tuple_map *m) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    struct floe_ice_tuple_slot *slots = floe_calloc(cap, sizeof *slots);
    if (!slots) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory in a partition set");
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].used) continue;
        size_t k = (size_t)m->slots[i].h & (cap - 1);
        while (slots[k].used) k = (k + 1) & (cap - 1);
        slots[k] = m->slots[i];
    }
    floe_free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return NULL;
}

floe_status floe_ice_tuple_map_put(floe_ice_tuple_map *m, int32_t spec_id, int32_t n, const floe_ice_value *values,
                                   int64_t **aux, bool *is_new) {
    if ((m->n + 1) * 2 > m->cap) FLOE_TRY(tuple_grow(m));
    uint64_t h = tuple_hash(spec_id, n, values);
    struct floe_ice_tuple_slot *s = tuple_find(m, h, spec_id, n, values);
    bool fresh = !s->used;
    if (fresh) {
        s->used = true;
        s->h = h;
        s->spec_id = spec_id;
        s->n = n;
        s->values = values;
        s->aux = 0;
        m->n++;
    }
    if (aux) *aux = &s->aux;
    if (is_new) *is_new = fresh;
    return NULL;
}

int64_t *floe_ice_tuple_map_get(const floe_ice_tuple_map *m, int32_t spec_id, int32_t n,
                                const floe_ice_value *values) {
    struct floe_ice_tuple_slot *s = tuple_find(m, tuple_hash(spec_id, n, values), spec_id, n, values);
    return s && s->used ? &s->aux : NULL;
}

void floe_ice_tuple_map_free(floe_ice_tuple_map *m) {
    if (!m) return;
    floe_free(m->slots);
    m->slots = NULL;
    m->cap = m->n = 0;
}

/* ---- set-up ------------------------------------------------------------------ */

/* A positive random snapshot id not used by the table (Java uses a
 * positive long from a random UUID). */
static floe_status new_snapshot_id(const floe_ice_table_metadata *md, int64_t *out) {
    for (;;) {
        uint64_t r = 0;
        size_t got = 0;
        while (got < sizeof r) {
            ssize_t k = getrandom((uint8_t *)&r + got, sizeof r - got, 0);
            if (k < 0) {
                if (errno == EINTR) continue;
                return floe_error(FLOE_ERR_IO, "cannot get random bytes for a snapshot id: %s", strerror(errno));
            }
            got += (size_t)k;
        }
        int64_t id = (int64_t)(r & (uint64_t)INT64_MAX);
        if (id != 0 && !floe_ice_tm_snapshot(md, id)) {
            *out = id;
            return NULL;
        }
    }
}

floe_status floe_ice_producer_init(floe_ice_producer *p, const floe_ice_table *t, const char *what) {
    memset(p, 0, sizeof *p);
    floe_arena_init(&p->arena, 0);
    p->t = t;
    p->md = t->md;
    p->what = what;
    const floe_ice_table_metadata *md = t->md;
    p->schema = floe_ice_tm_current_schema(md);
    p->spec = floe_ice_tm_default_spec(md);
    if (!p->schema || !p->spec)
        return floe_error(FLOE_ERR_CORRUPT, "%s: table %s has no current schema or default spec", what, md->location);
    p->parent = floe_ice_tm_current_snapshot(md);
    FLOE_TRY(new_snapshot_id(md, &p->snapshot_id));
    FLOE_TRY(floe_ice_uuid4(p->uuid));
    p->seq = md->format_version >= 2 ? md->last_sequence_number + 1 : 0;
    p->timestamp_ms = floe_ice_now_ms();
    if (p->timestamp_ms < md->last_updated_ms) p->timestamp_ms = md->last_updated_ms;
    return NULL;
}

void floe_ice_producer_destroy(floe_ice_producer *p) {
    floe_ice_data_file_codec_free(p->codec);
    for (size_t i = 0; p->manifests && i < p->n_mfs; i++) floe_ice_manifest_free(p->manifests[i]);
    floe_free(p->manifests);
    floe_free(p->files);
    floe_ice_manifest_list_free(p->list);
    floe_free(p->v1_files);
    floe_free(p->mf_begin);
    floe_free(p->removed);
    floe_arena_destroy(&p->arena);
    memset(p, 0, sizeof *p);
}

floe_status floe_ice_producer_decode_records(floe_ice_producer *p, const uint8_t *const *data, const size_t *lens,
                                             int32_t n, floe_ice_data_file **out) {
    *out = NULL;
    if (!p->codec) {
        floe_ice_type *ptype = NULL;
        FLOE_TRY(floe_ice_partition_spec_partition_type(p->spec, p->schema, false, &ptype));
        floe_status st = floe_ice_data_file_codec_new(ptype, p->md->format_version, &p->codec);
        floe_ice_type_free(ptype);
        FLOE_TRY(st);
    }
    floe_ice_data_file *files = floe_arena_calloc(&p->arena, (size_t)(n ? n : 1), sizeof *files);
    if (!files) return oom(p);
    for (int32_t i = 0; i < n; i++) {
        floe_ice_data_file *f = &files[i];
        floe_status st = floe_ice_data_file_decode(p->codec, data[i], lens[i], &p->arena, f);
        if (st) return floe_status_wrap(st, "%s: data file record %d of %d", p->what, i + 1, n);
        if (f->record_count < 0 || f->file_size_in_bytes < 0)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: record %d (%s) has a negative record count or size",
                              p->what, i + 1, f->file_path);
        f->spec_id = p->spec->spec_id;
    }
    *out = files;
    return NULL;
}

floe_status floe_ice_producer_add_records(floe_ice_producer *p, const uint8_t *const *data, const size_t *lens,
                                          int32_t n) {
    floe_ice_data_file *files = NULL;
    FLOE_TRY(floe_ice_producer_decode_records(p, data, lens, n, &files));
    for (int32_t i = 0; i < n; i++) {
        floe_ice_data_file *f = &files[i];
        if (f->content != FLOE_ICE_CONTENT_DATA)
            return floe_error(FLOE_ERR_UNSUPPORTED, "%s: record %d (%s) is a %s file; only data files can be "
                              "appended", p->what, i + 1, f->file_path, floe_ice_content_name(f->content));
        /* v3: a new file's first_row_id is null until the commit lands; the
         * manifest list assigns it (rows keeping their ids carry them in
         * their _row_id column instead). */
        f->has_first_row_id = false;
        f->first_row_id = 0;
    }
    p->added = files;
    p->n_added = n;
    return NULL;
}

/* A deletion vector: a position delete blob in a Puffin file, for one data
 * file (the spec's v3 form of position deletes). */
bool floe_ice_is_dv(const floe_ice_data_file *f) {
    return f->content == FLOE_ICE_CONTENT_POSITION_DELETES && f->has_content_offset && f->referenced_data_file;
}

floe_status floe_ice_producer_add_delete_files(floe_ice_producer *p, const floe_ice_data_file *files, int32_t n) {
    if (p->md->format_version < 2)
        return floe_error(FLOE_ERR_UNSUPPORTED, "%s: format version 1 tables have no delete files", p->what);
    floe_ice_data_file *all = floe_arena_calloc(&p->arena, (size_t)(p->n_added_deletes + n) + 1, sizeof *all);
    if (!all) return oom(p);
    if (p->n_added_deletes) memcpy(all, p->added_deletes, (size_t)p->n_added_deletes * sizeof *all);
    for (int32_t i = 0; i < n; i++) {
        const floe_ice_data_file *f = &files[i];
        if (f->content == FLOE_ICE_CONTENT_DATA)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: %s is a data file, not a delete file", p->what,
                              f->file_path);
        const floe_ice_partition_spec *spec = floe_ice_tm_spec(p->md, f->spec_id);
        if (!spec)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: delete file %s names partition spec %d, which the "
                              "table does not have", p->what, f->file_path, (int)f->spec_id);
        if (f->n_partition != spec->n_fields)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: delete file %s has %d partition values, its spec %d "
                              "fields", p->what, f->file_path, (int)f->n_partition, (int)spec->n_fields);
        bool dv = floe_ice_is_dv(f);
        /* v3 forbids adding position delete files: deletion vectors
         * replace them.  A DV in an older table no reader would expect. */
        if (f->content == FLOE_ICE_CONTENT_POSITION_DELETES && p->md->format_version >= 3 &&
            (!dv || !f->has_content_size_in_bytes || !f->file_format || strcasecmp(f->file_format, "puffin") != 0))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: %s: position deletes of a format version %d table "
                              "must be deletion vectors (a Puffin blob with content_offset, content_size_in_bytes "
                              "and referenced_data_file), not %s position delete files", p->what, f->file_path,
                              p->md->format_version, f->file_format ? f->file_format : "(no format)");
        if (dv && p->md->format_version < 3)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: %s is a deletion vector, which needs format version 3 "
                              "(the table has %d)", p->what, f->file_path, p->md->format_version);
        all[p->n_added_deletes + i] = *f;
        all[p->n_added_deletes + i].has_first_row_id = false; /* always null for delete files */
    }
    p->added_deletes = all;
    p->n_added_deletes += n;
    return NULL;
}

static floe_status load_list(floe_ice_producer *p) {
    if (p->have_list || !p->parent) return NULL;
    FLOE_TRY(floe_ice_snapshot_manifests(p->t, p->parent, &p->list, &p->v1_files, &p->mfs, &p->n_mfs));
    p->have_list = true;
    return NULL;
}

/* ---- reading the current snapshot's manifests ------------------------------ */

/* Values stored in the representation of one type and read back as
 * another (a day partition written as a plain int) take the spec's type. */
static floe_ice_type_id storage_class(floe_ice_type_id t) {
    switch (t) {
    case FLOE_ICE_DATE: return FLOE_ICE_INT;
    case FLOE_ICE_TIME:
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ:
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS: return FLOE_ICE_LONG;
    default: return t;
    }
}

static void retype(const floe_ice_type *pt, floe_ice_data_file *f) {
    for (int32_t i = 0; pt && i < f->n_partition && i < pt->n_fields; i++) {
        if (pt->fields[i].id != f->partition_ids[i]) continue;
        floe_ice_type_id want = pt->fields[i].type->id;
        if (want != f->partition[i].type && storage_class(want) == storage_class(f->partition[i].type))
            f->partition[i].type = want;
    }
}

typedef struct read_ctx {
    floe_ice_producer *p;
    const size_t *which;          /* indexes into p->mfs */
} read_ctx;

static floe_status read_range(void *vctx, size_t begin, size_t end, const floe_cancel *cancel) {
    read_ctx *c = vctx;
    floe_ice_producer *p = c->p;
    for (size_t k = begin; k < end; k++) {
        FLOE_TRY(floe_cancel_check(cancel, "reading manifests"));
        const floe_ice_manifest_file *mf = &p->mfs[c->which[k]];
        floe_input *in = NULL;
        FLOE_TRY(floe_ice_table_open_input(p->t, mf->manifest_path, mf->manifest_length, &in));
        floe_status st = floe_ice_manifest_read(in, mf->added_snapshot_id >= 0 || mf->sequence_number > 0 ? mf : NULL,
                                                &p->manifests[c->which[k]]);
        floe_input_close(in);
        FLOE_TRY_CTX(st, "%s: reading manifest %s", p->what, mf->manifest_path);
    }
    return NULL;
}

/* The partition type of spec `spec_id` (lenient: a dropped source column
 * types its field "unknown"), cached per spec in `pts`. */
static floe_status partition_type(floe_ice_producer *p, floe_ice_type **pts, int32_t spec_id, const floe_ice_type **out) {
    *out = NULL;
    for (int32_t i = 0; i < p->md->n_specs; i++) {
        if (p->md->specs[i]->spec_id != spec_id) continue;
        if (!pts[i]) FLOE_TRY(floe_ice_partition_spec_partition_type(p->md->specs[i], p->schema, true, &pts[i]));
        *out = pts[i];
        return NULL;
    }
    return NULL;
}

/* Gather the live entries of the manifests read, in list order. */
static floe_status collect(floe_ice_producer *p) {
    size_t total = 0;
    for (size_t i = 0; i < p->n_mfs; i++)
        if (p->manifests[i]) total += p->manifests[i]->n_entries;
    p->files = floe_calloc(total ? total : 1, sizeof *p->files);
    p->removed = floe_calloc(total ? total : 1, 1);
    p->mf_begin = floe_calloc(p->n_mfs + 1, sizeof *p->mf_begin);
    floe_ice_type **pts = floe_calloc(p->md->n_specs > 0 ? (size_t)p->md->n_specs : 1, sizeof *pts);
    floe_status st = p->files && p->removed && p->mf_begin && pts ? NULL : oom(p);
    for (size_t i = 0; !st && i < p->n_mfs; i++) {
        p->mf_begin[i] = p->n_files;
        floe_ice_manifest *m = p->manifests[i];
        if (!m) continue;
        const floe_ice_type *pt = NULL;
        st = partition_type(p, pts, m->spec_id, &pt);
        for (size_t k = 0; !st && k < m->n_entries; k++) {
            floe_ice_manifest_entry *e = &m->entries[k];
            if (e->status == FLOE_ICE_STATUS_DELETED) continue;
            retype(pt, &e->file);
            floe_ice_live_file *f = &p->files[p->n_files++];
            f->file = e->file;
            f->snapshot_id = e->snapshot_id;
            f->sequence_number = e->sequence_number;
            f->file_sequence_number = e->file_sequence_number;
            f->status = e->status;
            f->manifest_path = p->mfs[i].manifest_path;
            char *rp = NULL;
            st = floe_ice_table_resolve_path(p->t, e->file.file_path, &rp);
            if (st) break;
            f->resolved_path = floe_arena_strdup(&p->arena, rp);
            floe_free(rp);
            if (!f->resolved_path) st = oom(p);
        }
    }
    if (p->mf_begin) p->mf_begin[p->n_mfs] = p->n_files;
    for (int32_t i = 0; pts && i < p->md->n_specs; i++) floe_ice_type_free(pts[i]);
    floe_free(pts);
    return st;
}

floe_status floe_ice_producer_load_live(floe_ice_producer *p, floe_ice_manifest_pick_fn pick, void *ctx) {
    if (!p->parent || p->loaded) return NULL;
    FLOE_TRY(load_list(p));
    p->loaded = true;
    p->manifests = floe_calloc(p->n_mfs ? p->n_mfs : 1, sizeof *p->manifests);
    size_t *which = floe_malloc((p->n_mfs ? p->n_mfs : 1) * sizeof *which);
    floe_status st = p->manifests && which ? NULL : oom(p);
    /* Delete files make every manifest needed: whether one still applies
     * depends on all the data of its partition. */
    bool all = !pick;
    for (size_t i = 0; !st && i < p->n_mfs && !all; i++) all = p->mfs[i].content == FLOE_ICE_MANIFEST_DELETES;
    size_t n = 0;
    for (size_t i = 0; !st && i < p->n_mfs; i++) {
        bool read = true;
        if (!all) st = pick(p, &p->mfs[i], ctx, &read);
        if (!st && read) which[n++] = i;
    }
    floe_threadpool *pool = NULL;
    if (!st && n) st = floe_threadpool_default(&pool);
    read_ctx rc = {p, which};
    if (!st && n) st = floe_parallel_for(pool, n, 1, read_range, &rc, NULL);
    floe_free(which);
    if (!st) st = collect(p);
    return st;
}

floe_status floe_ice_manifest_may_hold_tuple(const floe_ice_manifest_file *mf, const floe_ice_type *ptype,
                                             const floe_ice_value *values, int32_t n, bool *may) {
    *may = true;
    if (mf->n_partitions < 0 || !ptype || mf->n_partitions != n || ptype->n_fields != n) return NULL;
    for (int32_t k = 0; k < n && *may; k++) {
        const floe_ice_field_summary *fs = &mf->partitions[k];
        const floe_ice_value *v = &values[k];
        if (v->is_null) {
            *may = fs->contains_null;
            continue;
        }
        if ((v->type == FLOE_ICE_FLOAT && isnan(v->v.f32)) || (v->type == FLOE_ICE_DOUBLE && isnan(v->v.f64))) {
            *may = fs->contains_nan != 0;
            continue;
        }
        if (!fs->lower_bound || !fs->upper_bound) {
            *may = false; /* only nulls or NaNs in this field */
            continue;
        }
        const floe_ice_type *ft = ptype->fields[k].type;
        if (ft->id == FLOE_ICE_UNKNOWN) continue;
        floe_ice_value lo, hi;
        floe_status st = floe_ice_value_from_bytes(ft, fs->lower_bound, fs->lower_len, &lo);
        if (!st) st = floe_ice_value_from_bytes(ft, fs->upper_bound, fs->upper_len, &hi);
        if (st) { /* an unreadable summary cannot prune */
            floe_status_free(st);
            continue;
        }
        floe_ice_value x = normalized(v), a = normalized(&lo), b = normalized(&hi);
        if (x.type != a.type) continue; /* types disagree: cannot prune */
        *may = floe_ice_value_compare(&a, &x) <= 0 && floe_ice_value_compare(&x, &b) <= 0;
    }
    return NULL;
}

void floe_ice_producer_remove(floe_ice_producer *p, size_t i) {
    if (!p->removed[i]) {
        p->removed[i] = 1;
        p->n_removed++;
    }
}

/* ---- orphaned delete files ------------------------------------------------ */

/* A one-value key holding a path (spec id -2 keeps it apart from tuples). */
#define PATH_KEY (-2)

static floe_status put_path(floe_ice_producer *p, floe_ice_tuple_map *m, const char *path) {
    if (!path) return NULL;
    floe_ice_value *v = floe_arena_alloc(&p->arena, sizeof *v);
    if (!v) return oom(p);
    *v = floe_ice_string_z(path);
    return floe_ice_tuple_map_put(m, PATH_KEY, 1, v, NULL, NULL);
}

static bool has_path(const floe_ice_tuple_map *m, const char *path) {
    floe_ice_value v = floe_ice_string_z(path);
    return floe_ice_tuple_map_get(m, PATH_KEY, 1, &v) != NULL;
}

const char *floe_ice_producer_single_reference(floe_ice_producer *p, const floe_ice_data_file *f) {
    if (f->referenced_data_file) return f->referenced_data_file;
    const uint8_t *lo = NULL, *hi = NULL;
    uint32_t lo_len = 0, hi_len = 0;
    for (int32_t k = 0; k < f->lower_bounds.n; k++)
        if (f->lower_bounds.keys[k] == POS_DELETE_FILE_PATH_ID) lo = f->lower_bounds.values[k], lo_len = f->lower_bounds.lens[k];
    for (int32_t k = 0; k < f->upper_bounds.n; k++)
        if (f->upper_bounds.keys[k] == POS_DELETE_FILE_PATH_ID) hi = f->upper_bounds.values[k], hi_len = f->upper_bounds.lens[k];
    if (!lo || !hi || lo_len != hi_len || memcmp(lo, hi, lo_len) != 0 || memchr(lo, 0, lo_len)) return NULL;
    return floe_arena_strndup(&p->arena, (const char *)lo, lo_len);
}

typedef struct orphan_ctx {
    floe_ice_tuple_map scope;     /* (spec, tuple) of remaining data -> min data sequence number */
    floe_ice_tuple_map left;      /* paths (recorded and resolved) of remaining data files */
    floe_ice_tuple_map gone;      /* paths of data files this commit removes */
    int64_t global_min;           /* min data sequence number of remaining data */
} orphan_ctx;

static floe_status index_data(floe_ice_producer *p, orphan_ctx *o) {
    for (size_t i = 0; i < p->n_files; i++) {
        const floe_ice_live_file *lf = &p->files[i];
        if (lf->file.content != FLOE_ICE_CONTENT_DATA) continue;
        floe_ice_tuple_map *paths = p->removed[i] ? &o->gone : &o->left;
        FLOE_TRY(put_path(p, paths, lf->file.file_path));
        FLOE_TRY(put_path(p, paths, lf->resolved_path));
        if (p->removed[i]) continue;
        int64_t seq = lf->sequence_number < 0 ? 0 : lf->sequence_number;
        if (seq < o->global_min) o->global_min = seq;
        int64_t *min = NULL;
        bool fresh = false;
        FLOE_TRY(floe_ice_tuple_map_put(&o->scope, lf->file.spec_id, lf->file.n_partition, lf->file.partition, &min,
                                        &fresh));
        if (fresh || seq < *min) *min = seq;
    }
    return NULL;
}

/* Does delete file i still apply to some remaining data file? */
static floe_status delete_still_applies(floe_ice_producer *p, orphan_ctx *o, size_t i, bool *applies) {
    const floe_ice_live_file *lf = &p->files[i];
    const floe_ice_data_file *f = &lf->file;
    *applies = true;
    if (lf->sequence_number < 0) return NULL; /* unknown: keep */
    bool pos = f->content == FLOE_ICE_CONTENT_POSITION_DELETES;
    if (pos) {
        const char *ref = floe_ice_producer_single_reference(p, f);
        if (ref) {
            char *resolved = NULL;
            FLOE_TRY(floe_ice_table_resolve_path(p->t, ref, &resolved));
            bool in_gone = has_path(&o->gone, ref) || has_path(&o->gone, resolved);
            bool in_left = has_path(&o->left, ref) || has_path(&o->left, resolved);
            floe_free(resolved);
            /* Only a reference recognised as a removed file drops it: a path
             * spelled differently from the manifest's must not lose deletes
             * (it still goes below when its whole partition is empty). */
            if (in_left) return NULL;
            if (in_gone) {
                *applies = false;
                return NULL;
            }
        }
    }
    const floe_ice_partition_spec *spec = floe_ice_tm_spec(p->md, f->spec_id);
    if (!spec) return NULL; /* unknown spec: keep */
    int64_t min = INT64_MAX;
    if (floe_ice_partition_spec_is_unpartitioned(spec)) {
        min = o->global_min;
    } else {
        const int64_t *m = floe_ice_tuple_map_get(&o->scope, f->spec_id, f->n_partition, f->partition);
        if (m) min = *m;
    }
    /* Position deletes apply to data of the same or a lower sequence
     * number, equality deletes only to strictly lower ones. */
    *applies = pos ? min <= lf->sequence_number : min < lf->sequence_number;
    return NULL;
}

floe_status floe_ice_producer_drop_orphan_deletes(floe_ice_producer *p) {
    if (!p->loaded) return NULL;
    bool any_deletes = false;
    for (size_t i = 0; i < p->n_files && !any_deletes; i++)
        any_deletes = p->files[i].file.content != FLOE_ICE_CONTENT_DATA && !p->removed[i];
    if (!any_deletes) return NULL;
    orphan_ctx o;
    memset(&o, 0, sizeof o);
    o.global_min = INT64_MAX;
    floe_status st = index_data(p, &o);
    for (size_t i = 0; !st && i < p->n_files; i++) {
        if (p->files[i].file.content == FLOE_ICE_CONTENT_DATA || p->removed[i]) continue;
        bool applies = true;
        st = delete_still_applies(p, &o, i, &applies);
        if (!st && !applies) floe_ice_producer_remove(p, i);
    }
    floe_ice_tuple_map_free(&o.scope);
    floe_ice_tuple_map_free(&o.left);
    floe_ice_tuple_map_free(&o.gone);
    return st;
}

floe_status floe_ice_producer_partition_name(const floe_ice_producer *p, int32_t spec_id,
                                             const floe_ice_value *values, int32_t n, char **out) {
    const floe_ice_partition_spec *spec = floe_ice_tm_spec(p->md, spec_id);
    if (!spec || n == 0 || spec->n_fields != n) {
        *out = floe_strdup(n == 0 ? "(unpartitioned)" : "(partition of an unknown spec)");
        return *out ? NULL : oom(p);
    }
    return floe_ice_partition_path(spec, values, n, out);
}

/* ---- partition field summaries ------------------------------------------- */

/* One field's running summary: null/NaN flags and min/max over the
 * non-null, non-NaN values (views into the files). */
typedef struct psum {
    bool contains_null, contains_nan, has_bounds;
    floe_ice_value lo, hi;
} psum;

static bool is_nan(const floe_ice_value *v) {
    return (v->type == FLOE_ICE_FLOAT && isnan(v->v.f32)) || (v->type == FLOE_ICE_DOUBLE && isnan(v->v.f64));
}

static void psum_add(psum *s, const floe_ice_value *v) {
    if (v->is_null) {
        s->contains_null = true;
    } else if (is_nan(v)) {
        s->contains_nan = true;
    } else if (!s->has_bounds) {
        s->lo = s->hi = *v;
        s->has_bounds = true;
    } else {
        if (floe_ice_value_compare(v, &s->lo) < 0) s->lo = *v;
        if (floe_ice_value_compare(v, &s->hi) > 0) s->hi = *v;
    }
}

/* Serialize the bounds into the producer's arena and fill the list form. */
static floe_status psum_finish(floe_ice_producer *p, const psum *s, floe_ice_field_summary *out) {
    memset(out, 0, sizeof *out);
    out->contains_null = s->contains_null;
    out->contains_nan = s->contains_nan ? 1 : 0;
    if (!s->has_bounds) return NULL;
    const floe_ice_value *v[2] = {&s->lo, &s->hi};
    for (int k = 0; k < 2; k++) {
        uint8_t *b = NULL;
        size_t len = 0;
        FLOE_TRY(floe_ice_value_to_bytes(v[k], &b, &len));
        uint8_t *copy = floe_arena_alloc(&p->arena, len ? len : 1);
        if (!copy) {
            floe_free(b);
            return oom(p);
        }
        if (len) memcpy(copy, b, len);
        floe_free(b);
        if (k == 0) out->lower_bound = copy, out->lower_len = (uint32_t)len;
        else out->upper_bound = copy, out->upper_len = (uint32_t)len;
    }
    return NULL;
}

/* ---- manifests and the list -------------------------------------------------- */

/* <metadata dir>/<uuid>-m<k>.avro, or the list
 * <metadata dir>/snap-<id>-1-<uuid>.avro (k < 0), as Java names them; the
 * directory is write.metadata.path when set, else <location>/metadata. */
static floe_status location_for(floe_ice_producer *p, int k, char **out) {
    const char *dir = floe_ice_tm_property(p->md, "write.metadata.path");
    const char *d = dir && *dir ? dir : p->md->location;
    size_t dl = strlen(d);
    while (dl > 1 && d[dl - 1] == '/') dl--;
    const char *sub = dir && *dir ? "" : "/metadata";
    size_t need = dl + 160;
    char *s = floe_malloc(need);
    if (!s) return oom(p);
    if (k >= 0) snprintf(s, need, "%.*s%s/%s-m%d.avro", (int)dl, d, sub, p->uuid, k);
    else snprintf(s, need, "%.*s%s/snap-%" PRId64 "-1-%s.avro", (int)dl, d, sub, p->snapshot_id, p->uuid);
    *out = s;
    return NULL;
}

/* Write `n` entries to a new manifest at `path` and fill its list record. */
static floe_status write_manifest(floe_ice_producer *p, const char *path, floe_ice_manifest_content content,
                                  const floe_ice_partition_spec *spec, const floe_ice_manifest_entry *e, size_t n,
                                  floe_ice_manifest_file *rec) {
    floe_output *out = NULL;
    FLOE_TRY(floe_fileio_create_output(p->t->io, path, 0, &out));
    floe_ice_manifest_writer_options o = {p->md->format_version, content, p->schema, spec, p->snapshot_id};
    floe_ice_manifest_writer *mw = NULL;
    floe_status st = floe_ice_manifest_writer_open(out, &o, &mw);
    for (size_t i = 0; !st && i < n; i++) st = floe_ice_manifest_writer_add(mw, &e[i]);
    if (mw) {
        if (st) floe_ice_manifest_writer_abort(mw);
        else st = floe_ice_manifest_writer_finish(mw, rec);
    }
    if (!st) rec->manifest_length = (int64_t)out->bytes_written;
    floe_status cst = floe_output_close(out);
    if (!st) st = cst;
    else floe_status_free(cst);
    if (st) return floe_status_wrap(st, "writing manifest %s", path);

    rec->manifest_path = path;
    rec->partition_spec_id = spec->spec_id;
    rec->content = content;
    rec->sequence_number = p->seq;
    /* No live entry with a known sequence number: the entries inherit
     * this snapshot's, as Java's list writer assigns. */
    if (rec->min_sequence_number < 0) rec->min_sequence_number = p->seq;
    rec->added_snapshot_id = p->snapshot_id;
    if (rec->added_files_count < 0) rec->added_files_count = 0;
    if (rec->existing_files_count < 0) rec->existing_files_count = 0;
    if (rec->deleted_files_count < 0) rec->deleted_files_count = 0;
    if (rec->added_rows_count < 0) rec->added_rows_count = 0;
    if (rec->existing_rows_count < 0) rec->existing_rows_count = 0;
    if (rec->deleted_rows_count < 0) rec->deleted_rows_count = 0;

    /* Partition summaries over every entry, deleted ones included, as
     * Java's ManifestWriter keeps them. */
    int32_t np = spec->n_fields;
    rec->n_partitions = np;
    rec->partitions = floe_arena_calloc(&p->arena, (size_t)(np ? np : 1), sizeof *rec->partitions);
    if (!rec->partitions) return oom(p);
    for (int32_t k = 0; k < np; k++) {
        psum s;
        memset(&s, 0, sizeof s);
        for (size_t i = 0; i < n; i++)
            if (k < e[i].file.n_partition) psum_add(&s, &e[i].file.partition[k]);
        FLOE_TRY(psum_finish(p, &s, &rec->partitions[k]));
    }
    return NULL;
}

/* A manifest of ADDED entries of `spec`: data files (into w->manifest) or
 * delete files (recorded among w->rewritten). */
static floe_status write_added_manifest(floe_ice_producer *p, floe_ice_append_files *w, bool deletes,
                                        const floe_ice_partition_spec *spec, const floe_ice_data_file *files,
                                        size_t n, floe_ice_manifest_file *rec) {
    char *path = NULL;
    FLOE_TRY(location_for(p, deletes ? 1 + w->n_rewritten : 0, &path));
    if (deletes) w->rewritten[w->n_rewritten++] = path;
    else w->manifest = path;
    floe_ice_manifest_entry *e = floe_malloc((n ? n : 1) * sizeof *e);
    if (!e) return oom(p);
    /* v2: ids and sequence numbers null, inherited from the list record
     * (so a retried commit only rewrites the list, as Java's would). */
    for (size_t i = 0; i < n; i++) {
        e[i].status = FLOE_ICE_STATUS_ADDED;
        e[i].snapshot_id = e[i].sequence_number = e[i].file_sequence_number = -1;
        e[i].file = files[i];
    }
    floe_status st = write_manifest(p, path, deletes ? FLOE_ICE_MANIFEST_DELETES : FLOE_ICE_MANIFEST_DATA, spec, e,
                                    n, rec);
    floe_free(e);
    return st;
}

/* The added delete files, one manifest per partition spec (a manifest has
 * one spec, and a delete file takes the spec of the data it applies to,
 * which may be older than the default), in order of first appearance. */
static floe_status write_added_deletes(floe_ice_producer *p, floe_ice_append_files *w, floe_ice_manifest_file *all,
                                       size_t *n_all) {
    size_t n = (size_t)p->n_added_deletes;
    floe_ice_data_file *group = floe_malloc((n ? n : 1) * sizeof *group);
    uint8_t *done = floe_calloc(n ? n : 1, 1);
    floe_status st = group && done ? NULL : oom(p);
    for (size_t i = 0; !st && i < n; i++) {
        if (done[i]) continue;
        int32_t spec_id = p->added_deletes[i].spec_id;
        size_t k = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && p->added_deletes[j].spec_id == spec_id) group[k++] = p->added_deletes[j], done[j] = 1;
        const floe_ice_partition_spec *spec = floe_ice_tm_spec(p->md, spec_id);
        st = spec ? write_added_manifest(p, w, true, spec, group, k, &all[(*n_all)++])
                  : floe_error(FLOE_ERR_CORRUPT, "%s: no partition spec %d", p->what, (int)spec_id);
    }
    floe_free(group);
    floe_free(done);
    return st;
}

/* Rewrite manifest i of the parent: removed entries DELETED by this
 * snapshot, the other live ones EXISTING with explicit ids and sequence
 * numbers.  Entries already DELETED are not carried over (as Java). */
static floe_status rewrite_manifest(floe_ice_producer *p, size_t i, floe_ice_append_files *w,
                                    floe_ice_manifest_file *rec) {
    size_t b = p->mf_begin[i], n = p->mf_begin[i + 1] - b;
    const floe_ice_live_file *lf = &p->files[b];
    const floe_ice_partition_spec *spec = floe_ice_tm_spec(p->md, lf[0].file.spec_id);
    if (!spec)
        return floe_error(FLOE_ERR_CORRUPT, "%s: manifest %s uses partition spec %d, which the table does not have",
                          p->what, p->mfs[i].manifest_path, (int)lf[0].file.spec_id);
    floe_ice_manifest_content content = p->md->format_version >= 2 && lf[0].file.content != FLOE_ICE_CONTENT_DATA
                                            ? FLOE_ICE_MANIFEST_DELETES
                                            : FLOE_ICE_MANIFEST_DATA;
    char *path = NULL;
    FLOE_TRY(location_for(p, 1 + w->n_rewritten, &path));
    w->rewritten[w->n_rewritten++] = path;
    floe_ice_manifest_entry *e = floe_malloc(n * sizeof *e);
    if (!e) return oom(p);
    for (size_t k = 0; k < n; k++) {
        bool gone = p->removed[b + k];
        e[k].status = gone ? FLOE_ICE_STATUS_DELETED : FLOE_ICE_STATUS_EXISTING;
        e[k].snapshot_id = gone ? p->snapshot_id : lf[k].snapshot_id;
        e[k].sequence_number = lf[k].sequence_number;
        e[k].file_sequence_number = lf[k].file_sequence_number;
        e[k].file = lf[k].file;
    }
    floe_status st = write_manifest(p, path, content, spec, e, n, rec);
    floe_free(e);
    return st;
}

/* Carry an untouched manifest over unless it holds no live file (only
 * DELETED entries of an older commit), as Java drops those. */
static bool worth_keeping(const floe_ice_manifest_file *mf) {
    return !(mf->added_files_count == 0 && mf->existing_files_count == 0);
}

static bool manifest_touched(const floe_ice_producer *p, size_t i) {
    if (!p->loaded || !p->n_removed) return false;
    for (size_t k = p->mf_begin[i]; k < p->mf_begin[i + 1]; k++)
        if (p->removed[k]) return true;
    return false;
}

static floe_status write_list(floe_ice_producer *p, const floe_ice_manifest_file *all, size_t n,
                              floe_ice_append_files *w) {
    FLOE_TRY(location_for(p, -1, &w->manifest_list));
    floe_output *out = NULL;
    FLOE_TRY(floe_fileio_create_output(p->t->io, w->manifest_list, 0, &out));
    bool v3 = p->md->format_version >= 3;
    floe_ice_manifest_list_options lo = {p->md->format_version, p->snapshot_id,
                                         p->parent ? p->parent->snapshot_id : FLOE_ICE_NO_SNAPSHOT, p->seq, v3,
                                         v3 ? p->first_row_id : 0};
    floe_status st = floe_ice_manifest_list_write(out, &lo, all, (int32_t)n);
    floe_status cst = floe_output_close(out);
    if (!st) st = cst;
    else floe_status_free(cst);
    if (st) return floe_status_wrap(st, "writing manifest list %s", w->manifest_list);
    return NULL;
}

/* v3 row lineage (spec: First Row ID Assignment): every data manifest
 * without a first_row_id — the ones this commit wrote, and older ones of a
 * table upgraded to v3 — gets the next id, which then advances by the
 * manifest's added and existing rows, the files that inherit an id from it
 * when read (an upper bound: rewritten entries keep the ids they had).
 * Manifests that have one keep it; delete manifests have none.  Sets
 * p->first_row_id and p->added_rows for the snapshot. */
static floe_status assign_row_ids(floe_ice_producer *p, floe_ice_manifest_file *all, size_t n) {
    int64_t next = p->md->has_next_row_id ? p->md->next_row_id : 0;
    p->first_row_id = next;
    for (size_t i = 0; i < n; i++) {
        floe_ice_manifest_file *mf = &all[i];
        if (mf->content != FLOE_ICE_MANIFEST_DATA || mf->has_first_row_id) continue;
        if (mf->added_rows_count < 0 || mf->existing_rows_count < 0)
            return floe_error(FLOE_ERR_UNSUPPORTED, "%s: manifest %s records no row counts, so no row ids can be "
                              "assigned to its files (format version 3)", p->what, mf->manifest_path);
        mf->has_first_row_id = true;
        mf->first_row_id = next;
        next += mf->added_rows_count + mf->existing_rows_count;
    }
    p->added_rows = next - p->first_row_id;
    return NULL;
}

static floe_status write_manifests(floe_ice_producer *p, floe_ice_append_files *w) {
    FLOE_TRY(load_list(p));
    size_t cap = p->n_mfs + 2 + (size_t)p->n_added_deletes;
    floe_ice_manifest_file *all = floe_calloc(cap, sizeof *all);
    if (!all) return oom(p);
    w->rewritten = floe_calloc(p->n_mfs + 1 + (size_t)p->n_added_deletes, sizeof *w->rewritten);
    floe_status st = w->rewritten ? NULL : oom(p);
    size_t n = 0;
    if (!st && p->n_added > 0) st = write_added_manifest(p, w, false, p->spec, p->added, (size_t)p->n_added, &all[n++]);
    if (!st && p->n_added_deletes > 0) st = write_added_deletes(p, w, all, &n);
    for (size_t i = 0; !st && i < p->n_mfs; i++) {
        if (manifest_touched(p, i)) st = rewrite_manifest(p, i, w, &all[n++]);
        else if (worth_keeping(&p->mfs[i])) all[n++] = p->mfs[i];
    }
    if (!st) st = floe_ice_producer_merge_manifests(p, &all, &n, w);
    if (!st && p->md->format_version >= 3) st = assign_row_ids(p, all, n);
    if (!st) st = write_list(p, all, n, w);
    floe_free(all);
    return st;
}

/* ---- the snapshot summary -------------------------------------------------- */

typedef struct counts {
    int64_t added_files, added_records, added_size;
    int64_t added_delete_files, added_pos_files, added_eq_files, added_pos_records, added_eq_records;
    int64_t deleted_files, deleted_records, removed_size;
    int64_t removed_delete_files, removed_pos_files, removed_eq_files, removed_pos_records, removed_eq_records;
    int64_t added_dvs, removed_dvs;
    int64_t changed_partitions;
} counts;

/* The bytes a file adds to the table: a DV's blob, not its whole Puffin
 * file (Java's ScanTaskUtil.contentSizeInBytes). */
static int64_t content_size(const floe_ice_data_file *f) {
    return floe_ice_is_dv(f) && f->has_content_size_in_bytes ? f->content_size_in_bytes : f->file_size_in_bytes;
}

static floe_status count_changes(floe_ice_producer *p, counts *c) {
    memset(c, 0, sizeof *c);
    floe_ice_tuple_map parts = {0, 0, NULL};
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < p->n_added; i++) {
        const floe_ice_data_file *f = &p->added[i];
        c->added_files++;
        c->added_records += f->record_count;
        c->added_size += f->file_size_in_bytes;
        st = floe_ice_tuple_map_put(&parts, f->spec_id, f->n_partition, f->partition, NULL, NULL);
    }
    for (int32_t i = 0; !st && i < p->n_added_deletes; i++) {
        const floe_ice_data_file *f = &p->added_deletes[i];
        bool pos = f->content == FLOE_ICE_CONTENT_POSITION_DELETES;
        c->added_delete_files++;
        c->added_size += content_size(f);
        if (pos && floe_ice_is_dv(f)) c->added_dvs++;
        else if (pos) c->added_pos_files++;
        if (pos) c->added_pos_records += f->record_count;
        else c->added_eq_files++, c->added_eq_records += f->record_count;
        st = floe_ice_tuple_map_put(&parts, f->spec_id, f->n_partition, f->partition, NULL, NULL);
    }
    for (size_t i = 0; !st && i < p->n_files; i++) {
        if (!p->removed[i]) continue;
        const floe_ice_data_file *f = &p->files[i].file;
        c->removed_size += content_size(f);
        switch (f->content) {
        case FLOE_ICE_CONTENT_DATA: c->deleted_files++, c->deleted_records += f->record_count; break;
        case FLOE_ICE_CONTENT_POSITION_DELETES:
            c->removed_delete_files++, c->removed_pos_records += f->record_count;
            if (floe_ice_is_dv(f)) c->removed_dvs++;
            else c->removed_pos_files++;
            break;
        case FLOE_ICE_CONTENT_EQUALITY_DELETES:
            c->removed_delete_files++, c->removed_eq_files++, c->removed_eq_records += f->record_count;
            break;
        }
        st = floe_ice_tuple_map_put(&parts, f->spec_id, f->n_partition, f->partition, NULL, NULL);
    }
    c->changed_partitions = (int64_t)parts.n;
    floe_ice_tuple_map_free(&parts);
    return st;
}

static const char *parent_prop(const floe_ice_snapshot *p, const char *key) {
    for (int32_t i = 0; p && i < p->n_summary; i++)
        if (strcmp(p->summary[i].key, key) == 0) return p->summary[i].value;
    return NULL;
}

static int set_num(json_t *o, const char *k, int64_t v) {
    char b[32];
    snprintf(b, sizeof b, "%" PRId64, v);
    json_t *s = json_string(b);
    return s ? json_object_set_new(o, k, s) : -1;
}

/* Java's setIf(v > 0, ...). */
static int set_pos(json_t *o, const char *k, int64_t v) { return v > 0 ? set_num(o, k, v) : 0; }

/* total-<x> = parent's total + delta, as Java's SnapshotSummary does; no
 * parent counts as zero, a parent that lacks the total leaves it out. */
static int set_total(json_t *o, const floe_ice_snapshot *parent, const char *k, int64_t delta) {
    if (!parent) return set_num(o, k, delta);
    const char *pv = parent_prop(parent, k);
    if (!pv) return 0;
    char *end = NULL;
    errno = 0;
    long long base = strtoll(pv, &end, 10);
    if (errno || end == pv || *end) return 0; /* not a number: Java would drop it too */
    return set_num(o, k, (int64_t)base + delta);
}

static floe_status build_summary(floe_ice_producer *p, const char *operation, const char *const *extra,
                                 int32_t n_extra, const char *const *kv, int32_t n_kv, json_t **out) {
    counts c;
    FLOE_TRY(count_changes(p, &c));
    json_t *o = json_object();
    if (!o) return oom(p);
    int bad = json_object_set_new(o, "operation", json_string(operation));
    for (int32_t i = 0; i < n_kv && !bad; i++)
        if (strcmp(kv[2 * i], "operation") != 0) bad = json_object_set_new(o, kv[2 * i], json_string(kv[2 * i + 1]));
    for (int32_t i = 0; i < n_extra && !bad; i++)
        bad = json_object_set_new(o, extra[2 * i], json_string(extra[2 * i + 1]));
    bad = bad || set_pos(o, "added-data-files", c.added_files);
    bad = bad || set_pos(o, "deleted-data-files", c.deleted_files);
    bad = bad || set_pos(o, "added-records", c.added_records);
    bad = bad || set_pos(o, "deleted-records", c.deleted_records);
    bad = bad || set_pos(o, "added-files-size", c.added_size);
    bad = bad || set_pos(o, "removed-files-size", c.removed_size);
    bad = bad || set_pos(o, "added-delete-files", c.added_delete_files);
    bad = bad || set_pos(o, "added-position-delete-files", c.added_pos_files);
    bad = bad || set_pos(o, "added-equality-delete-files", c.added_eq_files);
    bad = bad || set_pos(o, "added-position-deletes", c.added_pos_records);
    bad = bad || set_pos(o, "added-equality-deletes", c.added_eq_records);
    bad = bad || set_pos(o, "removed-delete-files", c.removed_delete_files);
    bad = bad || set_pos(o, "removed-position-delete-files", c.removed_pos_files);
    bad = bad || set_pos(o, "removed-equality-delete-files", c.removed_eq_files);
    bad = bad || set_pos(o, "added-dvs", c.added_dvs);
    bad = bad || set_pos(o, "removed-dvs", c.removed_dvs);
    bad = bad || set_pos(o, "removed-position-deletes", c.removed_pos_records);
    bad = bad || set_pos(o, "removed-equality-deletes", c.removed_eq_records);
    bad = bad || set_num(o, "changed-partition-count", c.changed_partitions);
    bad = bad || set_total(o, p->parent, "total-records", c.added_records - c.deleted_records);
    bad = bad || set_total(o, p->parent, "total-files-size", c.added_size - c.removed_size);
    bad = bad || set_total(o, p->parent, "total-data-files", c.added_files - c.deleted_files);
    bad = bad || set_total(o, p->parent, "total-delete-files", c.added_delete_files - c.removed_delete_files);
    bad = bad || set_total(o, p->parent, "total-position-deletes", c.added_pos_records - c.removed_pos_records);
    bad = bad || set_total(o, p->parent, "total-equality-deletes", c.added_eq_records - c.removed_eq_records);
    if (bad) {
        json_decref(o);
        return oom(p);
    }
    *out = o;
    return NULL;
}

/* ---- the metadata edit ------------------------------------------------------ */

/* The summary object's entries as the snapshot's: "operation" apart, the
 * rest in their order (what parsing the written JSON would give). */
static bool fill_summary(floe_ice_table_metadata *md, json_t *summary, floe_ice_snapshot *s) {
    size_t n = json_object_size(summary);
    s->has_summary = true;
    floe_ice_kv *kv = n ? floe_ice_tm_derived_alloc(md, n * sizeof *kv) : NULL;
    if (n && !kv) return false;
    const char *key;
    json_t *v;
    int32_t k = 0;
    json_object_foreach(summary, key, v) {
        const char *text = json_string_value(v);
        if (!text) return false;
        char *copy = floe_ice_tm_derived_strdup(md, text);
        if (!copy) return false;
        if (strcmp(key, "operation") == 0) {
            s->operation = copy;
            continue;
        }
        if (!(kv[k].key = floe_ice_tm_derived_strdup(md, key))) return false;
        kv[k++].value = copy;
    }
    s->summary = kv;
    s->n_summary = k;
    return true;
}

/* The new metadata: the base with the snapshot added, in the snapshot-log,
 * current, and "main" pointing at it (other settings of the ref kept).
 * Built as a derived copy of the base: no JSON round trip, so a commit's
 * cost does not grow with the JSON handling of a long snapshot list. */
static floe_status install_snapshot(floe_ice_producer *p, const char *list, json_t *summary,
                                    floe_ice_table_metadata **out) {
    *out = NULL;
    floe_ice_table_metadata *md = NULL;
    floe_status st = floe_ice_tm_derive(p->md, &md);
    if (st) {
        json_decref(summary);
        return st;
    }
    floe_ice_snapshot *snap = &md->snapshots[md->n_snapshots];
    memset(snap, 0, sizeof *snap);
    snap->snapshot_id = p->snapshot_id;
    snap->parent_snapshot_id = p->parent ? p->parent->snapshot_id : FLOE_ICE_NO_SNAPSHOT;
    snap->sequence_number = p->md->format_version >= 2 ? p->seq : 0;
    snap->timestamp_ms = p->timestamp_ms;
    snap->manifest_list = floe_ice_tm_derived_strdup(md, list);
    snap->has_schema_id = true;
    snap->schema_id = p->schema->schema_id;
    if (p->md->format_version >= 3) {
        snap->has_first_row_id = snap->has_added_rows = true;
        snap->first_row_id = p->first_row_id;
        snap->added_rows = p->added_rows;
    }
    bool ok = snap->manifest_list && fill_summary(md, summary, snap);
    json_decref(summary);
    if (!ok) {
        floe_ice_table_metadata_free(md);
        return oom(p);
    }
    md->n_snapshots++;
    md->snapshot_log[md->n_snapshot_log++] = (floe_ice_log_entry){p->timestamp_ms, p->snapshot_id, NULL};
    md->current_snapshot_id = p->snapshot_id;
    if (p->md->format_version >= 2) md->last_sequence_number = p->seq;
    /* v3: the ids this snapshot assigned are taken (spec: Snapshot Row IDs). */
    if (p->md->format_version >= 3) {
        md->has_next_row_id = true;
        md->next_row_id = p->first_row_id + p->added_rows;
    }
    floe_ice_snapshot_ref *main_ref = NULL;
    for (int32_t i = 0; i < md->n_refs && !main_ref; i++)
        if (strcmp(md->refs[i].name, "main") == 0) main_ref = &md->refs[i];
    if (!main_ref) {
        main_ref = &md->refs[md->n_refs];
        *main_ref = (floe_ice_snapshot_ref){floe_ice_tm_derived_strdup(md, "main"), false, 0, -1, -1, -1};
        if (!main_ref->name) {
            floe_ice_table_metadata_free(md);
            return oom(p);
        }
        md->n_refs++;
    }
    main_ref->snapshot_id = p->snapshot_id;
    main_ref->is_tag = false;
    md->refs_implied = false;
    int64_t now = floe_ice_now_ms();
    md->last_updated_ms = now < p->md->last_updated_ms ? p->md->last_updated_ms : now;
    *out = md;
    return NULL;
}

floe_status floe_ice_producer_write_existing(floe_ice_producer *p, const floe_ice_partition_spec *spec,
                                             const floe_ice_manifest_entry *e, size_t n, floe_ice_append_files *w,
                                             floe_ice_manifest_file *rec) {
    return floe_ice_producer_write_entries(p, FLOE_ICE_MANIFEST_DATA, spec, e, n, w, rec);
}

floe_status floe_ice_producer_write_entries(floe_ice_producer *p, floe_ice_manifest_content content,
                                            const floe_ice_partition_spec *spec, const floe_ice_manifest_entry *e,
                                            size_t n, floe_ice_append_files *w, floe_ice_manifest_file *rec) {
    char *path = NULL;
    FLOE_TRY(location_for(p, 1 + w->n_rewritten, &path));
    w->rewritten[w->n_rewritten++] = path;
    return write_manifest(p, path, content, spec, e, n, rec);
}

floe_status floe_ice_producer_read_manifest(floe_ice_producer *p, const floe_ice_manifest_file *mf,
                                            floe_ice_manifest **out) {
    *out = NULL;
    floe_input *in = NULL;
    FLOE_TRY(floe_ice_table_open_input(p->t, mf->manifest_path, mf->manifest_length, &in));
    floe_ice_manifest *m = NULL;
    floe_status st = floe_ice_manifest_read(in, mf->added_snapshot_id >= 0 || mf->sequence_number > 0 ? mf : NULL, &m);
    floe_input_close(in);
    FLOE_TRY_CTX(st, "%s: reading manifest %s", p->what, mf->manifest_path);
    floe_ice_type **pts = floe_calloc(p->md->n_specs > 0 ? (size_t)p->md->n_specs : 1, sizeof *pts);
    const floe_ice_type *pt = NULL;
    st = pts ? partition_type(p, pts, m->spec_id, &pt) : oom(p);
    for (size_t k = 0; !st && k < m->n_entries; k++) retype(pt, &m->entries[k].file);
    for (int32_t i = 0; pts && i < p->md->n_specs; i++) floe_ice_type_free(pts[i]);
    floe_free(pts);
    if (st) {
        floe_ice_manifest_free(m);
        return st;
    }
    *out = m;
    return NULL;
}

floe_status floe_ice_producer_commit_list(floe_ice_producer *p, floe_ice_manifest_file *all, size_t n,
                                          const char *operation, const char *const *extra_kv, int32_t n_extra,
                                          floe_ice_table_metadata **out, floe_ice_append_files *written) {
    if (p->md->format_version >= 3) FLOE_TRY(assign_row_ids(p, all, n));
    FLOE_TRY(write_list(p, all, n, written));
    json_t *summary = NULL;
    FLOE_TRY(build_summary(p, operation, extra_kv, n_extra, NULL, 0, &summary));
    return install_snapshot(p, written->manifest_list, summary, out);
}

floe_status floe_ice_producer_commit(floe_ice_producer *p, const char *operation, const char *const *extra_kv,
                                     int32_t n_extra, const char *const *kv, int32_t n_kv,
                                     floe_ice_table_metadata **out, floe_ice_append_files *written) {
    FLOE_TRY(write_manifests(p, written));
    json_t *summary = NULL;
    FLOE_TRY(build_summary(p, operation, extra_kv, n_extra, kv, n_kv, &summary));
    return install_snapshot(p, written->manifest_list, summary, out);
}

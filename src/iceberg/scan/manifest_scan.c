/*
 * manifest_scan.c — a manifest decoded into the planner's compact form
 * (scan_internal.h): what planning needs of each entry and nothing else.
 *
 * Entries come from the same entry reader as the full form (manifest.c), so
 * inheritance, field lookup by id and every error are the same.  Then, per
 * entry, strings and arrays go into one arena per manifest, a partition
 * tuple equal to the previous entry's is shared rather than copied, format
 * strings are shared the same way, and the five metrics maps (value, null
 * and NaN counts, lower and upper bounds; column sizes are not needed) are
 * merged by column id into one blob indexed by column id.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buffer.h"
#include "floe/memory.h"
#include "iceberg/manifest/manifest_avro.h"
#include "iceberg/scan/scan_internal.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding a manifest"); }

struct floe_ice_smf_private {
    floe_arena arena;
    floe_ice_df_layout layout;        /* owns partition_ids */
    floe_ice_scan_entry *entries;
};

void floe_ice_scan_manifest_free(floe_ice_scan_manifest *m) {
    if (!m) return;
    if (m->priv) {
        floe_ice_df_layout_clear(&m->priv->layout);
        floe_arena_destroy(&m->priv->arena);
        floe_free(m->priv->entries);
        floe_free(m->priv);
    }
    floe_free(m);
}

/* ---- the metrics blob ---------------------------------------------------- */

enum { MF_VALUES = 1, MF_NULLS = 2, MF_NANS = 4, MF_LOWER = 8, MF_UPPER = 16 };

/* One column's metrics while an entry's maps are merged. */
typedef struct mslot {
    int32_t id;
    uint8_t flags;
    int64_t counts[3];                /* value, null, NaN */
    const uint8_t *bound[2];          /* lower, upper */
    uint32_t bound_len[2];
} mslot;

static size_t put_varint(uint8_t *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static uint64_t zigzag(int64_t x) { return ((uint64_t)x << 1) ^ (uint64_t)(x >> 63); }

static const uint8_t *get_varint(const uint8_t *p, uint64_t *v) {
    uint64_t x = 0;
    for (int s = 0; s < 64; s += 7) {
        uint8_t b = *p++;
        x |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80)) break;
    }
    *v = x;
    return p;
}

bool floe_ice_scan_metrics_find(const uint8_t *blob, int32_t field_id, floe_ice_field_metrics *out) {
    *out = (floe_ice_field_metrics){field_id, -1, -1, -1, NULL, 0, NULL, 0};
    if (!blob) return false;
    uint32_t n;
    memcpy(&n, blob, 4);
    const uint8_t *index = blob + 4;
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int32_t id;
        memcpy(&id, index + 8 * (size_t)mid, 4);
        if (id < field_id) lo = mid + 1;
        else hi = mid;
    }
    int32_t id;
    if (lo == n || (memcpy(&id, index + 8 * (size_t)lo, 4), id != field_id)) return false;
    uint32_t off;
    memcpy(&off, index + 8 * (size_t)lo + 4, 4);
    const uint8_t *p = blob + off;
    uint8_t flags = *p++;
    int64_t *counts[3] = {&out->value_count, &out->null_count, &out->nan_count};
    for (int k = 0; k < 3; k++) {
        if (!(flags & (1 << k))) continue;
        uint64_t z;
        p = get_varint(p, &z);
        *counts[k] = (int64_t)((z >> 1) ^ (~(z & 1) + 1));
    }
    for (int k = 0; k < 2; k++) {
        if (!(flags & (MF_LOWER << k))) continue;
        uint64_t len;
        p = get_varint(p, &len);
        if (k == 0) out->lower = p, out->lower_len = (size_t)len;
        else out->upper = p, out->upper_len = (size_t)len;
        p += len;
    }
    return true;
}

/* Per-manifest decoding state. */
typedef struct sdec {
    floe_ice_manifest_reader *mr;
    floe_arena *arena;                /* the manifest's */
    floe_ice_value *ptmp;             /* n_part scratch values */
    const floe_ice_value *prev_part;  /* the last stored tuple */
    const char *prev_format;
    mslot *slots;
    size_t cap_slots;
    floe_buf blob;
} sdec;

/* The slot of column `id` among s->slots[0..*n), added when missing.
 * Maps usually list columns in one order, so look where the previous
 * look-up ended first. */
static mslot *slot_of(mslot *s, size_t *n, size_t *hint, int32_t id) {
    if (*hint < *n && s[*hint].id == id) return &s[(*hint)++];
    for (size_t i = 0; i < *n; i++)
        if (s[i].id == id) {
            *hint = i + 1;
            return &s[i];
        }
    s[*n] = (mslot){id, 0, {-1, -1, -1}, {NULL, NULL}, {0, 0}};
    *hint = *n + 1;
    return &s[(*n)++];
}

static floe_status check_map(const floe_avro_value *m, const char *what) {
    if (m && m->type != FLOE_AVRO_ARRAY && m->type != FLOE_AVRO_MAP)
        return floe_error(FLOE_ERR_CORRUPT, "'%s' is not a map", what);
    return NULL;
}

static int cmp_slot(const void *a, const void *b) {
    const mslot *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Merge the metrics maps of data_file `rec` into a blob in the arena. */
static floe_status metrics_blob(sdec *d, const floe_avro_value *rec, const uint8_t **out) {
    *out = NULL;
    const floe_ice_df_layout *l = &d->mr->layout;
    static const int map_slot[5] = {FLOE_DF_VALUE_COUNTS, FLOE_DF_NULL_COUNTS, FLOE_DF_NAN_COUNTS, FLOE_DF_LOWER,
                                    FLOE_DF_UPPER};
    static const char *const map_name[5] = {"value_counts", "null_value_counts", "nan_value_counts", "lower_bounds",
                                            "upper_bounds"};
    const floe_avro_value *maps[5];
    size_t total = 0;
    for (int k = 0; k < 5; k++) {
        maps[k] = floe_ice_avro_get(rec, l->idx[map_slot[k]]);
        FLOE_TRY(check_map(maps[k], map_name[k]));
        if (maps[k]) total += maps[k]->len;
    }
    if (!maps[0] && !maps[1] && !maps[2] && !maps[3] && !maps[4]) return NULL;
    if (total > d->cap_slots) {
        mslot *ns = floe_realloc(d->slots, total * sizeof *ns);
        if (!ns) return oom();
        d->slots = ns;
        d->cap_slots = total;
    }
    size_t n = 0;
    bool sorted = true;
    for (int k = 0; k < 5; k++) {
        const floe_avro_value *m = maps[k];
        if (!m) continue;
        size_t hint = 0;
        for (uint32_t i = 0; i < m->len; i++) {
            const floe_avro_value *kv, *v;
            int32_t key;
            FLOE_TRY_CTX(floe_ice_avro_map_entry(m, i, &kv, &v, &key), "'%s'", map_name[k]);
            size_t before = n;
            mslot *s = slot_of(d->slots, &n, &hint, key);
            if (n != before && before > 0 && d->slots[before - 1].id >= key) sorted = false;
            if (k < 3) {
                s->flags |= (uint8_t)(1 << k);
                s->counts[k] = floe_ice_avro_long(v->type == FLOE_AVRO_NULL ? NULL : v, 0);
            } else {
                int b = k - 3;
                bool bytes = v->type == FLOE_AVRO_BYTES || v->type == FLOE_AVRO_STRING || v->type == FLOE_AVRO_FIXED;
                /* A bound of another type is no bound (as the full form reads it). */
                s->flags = (uint8_t)(bytes ? s->flags | (MF_LOWER << b) : s->flags & ~(MF_LOWER << b));
                s->bound[b] = bytes ? v->u.p : NULL;
                s->bound_len[b] = bytes ? v->len : 0;
            }
        }
    }
    if (!sorted) qsort(d->slots, n, sizeof *d->slots, cmp_slot);
    /* Index, then each column's record. */
    floe_buf *b = &d->blob;
    floe_buf_clear(b);
    FLOE_TRY(floe_buf_reserve(b, 4 + 8 * n));
    uint32_t n32 = (uint32_t)n;
    FLOE_TRY(floe_buf_append(b, &n32, 4));
    if (n && !floe_buf_extend(b, 8 * n)) return oom();
    for (size_t i = 0; i < n; i++) {
        const mslot *s = &d->slots[i];
        uint32_t off = (uint32_t)b->len;
        memcpy(b->data + 4 + 8 * i, &s->id, 4);
        memcpy(b->data + 4 + 8 * i + 4, &off, 4);
        uint8_t tmp[1 + 3 * 10 + 2 * 5];
        size_t t = 0;
        tmp[t++] = s->flags;
        for (int k = 0; k < 3; k++)
            if (s->flags & (1 << k)) t += put_varint(tmp + t, zigzag(s->counts[k]));
        for (int k = 0; k < 2; k++) {
            if (!(s->flags & (MF_LOWER << k))) continue;
            t += put_varint(tmp + t, s->bound_len[k]);
            FLOE_TRY(floe_buf_append(b, tmp, t));
            t = 0;
            if (s->bound_len[k]) FLOE_TRY(floe_buf_append(b, s->bound[k], s->bound_len[k]));
        }
        if (t) FLOE_TRY(floe_buf_append(b, tmp, t));
    }
    uint8_t *p = floe_arena_alloc_aligned(d->arena, b->len, 4);
    if (!p) return oom();
    memcpy(p, b->data, b->len);
    *out = p;
    return NULL;
}

/* ---- entries ------------------------------------------------------------- */

/* Bitwise equality of two partition values (sharing needs identity, not
 * ordering: -0.0 and 0.0 stay apart). */
static bool same_value(const floe_ice_value *a, const floe_ice_value *b) {
    if (a->type != b->type || a->is_null != b->is_null) return false;
    if (a->is_null) return true;
    switch (a->type) {
    case FLOE_ICE_BOOLEAN: return a->v.b == b->v.b;
    case FLOE_ICE_INT:
    case FLOE_ICE_DATE: return a->v.i32 == b->v.i32;
    case FLOE_ICE_FLOAT: return memcmp(&a->v.f32, &b->v.f32, sizeof a->v.f32) == 0;
    case FLOE_ICE_DOUBLE: return memcmp(&a->v.f64, &b->v.f64, sizeof a->v.f64) == 0;
    case FLOE_ICE_DECIMAL: return a->scale == b->scale && a->v.dec == b->v.dec;
    case FLOE_ICE_UUID: return memcmp(a->v.uuid, b->v.uuid, 16) == 0;
    case FLOE_ICE_STRING:
    case FLOE_ICE_BINARY:
    case FLOE_ICE_FIXED:
        return a->v.bytes.len == b->v.bytes.len && memcmp(a->v.bytes.data, b->v.bytes.data, a->v.bytes.len) == 0;
    default: return a->v.i64 == b->v.i64;
    }
}

/* The entry's partition tuple: the previous one when equal, else a copy. */
static floe_status partition_of(sdec *d, const floe_avro_value *rec, const floe_ice_value **out) {
    const floe_ice_df_layout *l = &d->mr->layout;
    *out = NULL;
    if (!l->n_part) return NULL;
    const floe_avro_value *p = floe_ice_avro_get(rec, l->idx[FLOE_DF_PARTITION]);
    bool same = d->prev_part != NULL;
    for (int32_t i = 0; i < l->n_part; i++) {
        const floe_avro_value *pv = p && p->type == FLOE_AVRO_RECORD && (uint32_t)i < p->len ? &p->u.items[i] : NULL;
        floe_ice_type_id ty = l->part[i].type->id;
        if (pv && pv->type != FLOE_AVRO_NULL && (ty == FLOE_ICE_STRING || ty == FLOE_ICE_BINARY || ty == FLOE_ICE_FIXED)) {
            /* A view of the record (in the scratch arena), copied below
             * only when the tuple is new. */
            d->ptmp[i] = floe_ice_null(ty);
            d->ptmp[i].is_null = false;
            d->ptmp[i].v.bytes.data = pv->u.p;
            d->ptmp[i].v.bytes.len = pv->len;
        } else {
            FLOE_TRY(floe_ice_part_value_from_avro(&l->part[i], pv, d->arena, &d->ptmp[i]));
        }
        if (same && !same_value(&d->ptmp[i], &d->prev_part[i])) same = false;
    }
    if (same) {
        *out = d->prev_part;
        return NULL;
    }
    floe_ice_value *t = floe_arena_alloc_aligned(d->arena, (size_t)l->n_part * sizeof *t, _Alignof(floe_ice_value));
    if (!t) return oom();
    for (int32_t i = 0; i < l->n_part; i++) {
        t[i] = d->ptmp[i];
        floe_ice_type_id ty = t[i].type;
        if (!t[i].is_null && (ty == FLOE_ICE_STRING || ty == FLOE_ICE_BINARY || ty == FLOE_ICE_FIXED)) {
            char *c = floe_ice_arena_text(d->arena, t[i].v.bytes.data, t[i].v.bytes.len);
            if (!c) return oom();
            t[i].v.bytes.data = (const uint8_t *)c;
        }
    }
    d->prev_part = t;
    *out = t;
    return NULL;
}

static floe_status text_of(const floe_avro_value *v, floe_arena *a, const char **out) {
    *out = NULL;
    if (!v) return NULL;
    if (v->type != FLOE_AVRO_STRING && v->type != FLOE_AVRO_BYTES)
        return floe_error(FLOE_ERR_CORRUPT, "expected a string, found %s", floe_avro_type_name(v->type));
    *out = floe_ice_arena_text(a, v->u.p, v->len);
    return *out ? NULL : oom();
}

static floe_status format_of(sdec *d, const floe_avro_value *v, const char **out) {
    if (!v) {
        *out = "";
        return NULL;
    }
    if (v->type != FLOE_AVRO_STRING && v->type != FLOE_AVRO_BYTES)
        return floe_error(FLOE_ERR_CORRUPT, "expected a string, found %s", floe_avro_type_name(v->type));
    const char *pf = d->prev_format;
    if (pf && strlen(pf) == v->len && memcmp(pf, v->u.p, v->len) == 0) {
        *out = pf;
        return NULL;
    }
    FLOE_TRY(text_of(v, d->arena, out));
    d->prev_format = *out;
    return NULL;
}

static floe_status long_array(const floe_avro_value *l, floe_arena *a, int64_t **out, int32_t *n) {
    *out = NULL;
    *n = -1;
    if (!l) return NULL;
    if (l->type != FLOE_AVRO_ARRAY) return floe_error(FLOE_ERR_CORRUPT, "expected a list");
    *n = (int32_t)l->len;
    if (!l->len) return NULL;
    *out = floe_arena_alloc_aligned(a, l->len * sizeof **out, _Alignof(int64_t));
    if (!*out) return oom();
    for (uint32_t i = 0; i < l->len; i++) (*out)[i] = floe_ice_avro_long(&l->u.items[i], 0);
    return NULL;
}

/* Field `slot` of data_file `rec` under layout `l` (NULL when absent or null). */
#define G(slot) floe_ice_avro_get(rec, l->idx[slot])

static floe_status del_fields(sdec *d, const floe_avro_value *rec, const floe_ice_scan_del_fields **out) {
    const floe_ice_df_layout *l = &d->mr->layout;
    floe_ice_scan_del_fields *x = floe_arena_calloc(d->arena, 1, sizeof *x);
    if (!x) return oom();
    int64_t *eq = NULL;
    FLOE_TRY_CTX(long_array(G(FLOE_DF_EQUALITY_IDS), d->arena, &eq, &x->n_equality_ids), "equality_ids");
    if (x->n_equality_ids > 0) {
        int32_t *ids = floe_arena_alloc_aligned(d->arena, (size_t)x->n_equality_ids * sizeof *ids, _Alignof(int32_t));
        if (!ids) return oom();
        for (int32_t i = 0; i < x->n_equality_ids; i++) ids[i] = (int32_t)eq[i];
        x->equality_ids = ids;
    }
    FLOE_TRY_CTX(text_of(G(FLOE_DF_REFERENCED), d->arena, &x->referenced_data_file), "referenced_data_file");
    const floe_avro_value *v;
    if ((v = G(FLOE_DF_CONTENT_OFFSET))) x->has_content_offset = true, x->content_offset = floe_ice_avro_long(v, 0);
    if ((v = G(FLOE_DF_CONTENT_SIZE))) x->has_content_size_in_bytes = true, x->content_size_in_bytes = floe_ice_avro_long(v, 0);
    *out = x;
    return NULL;
}

static floe_status entry_from_avro(sdec *d, const floe_avro_value *rec, floe_ice_scan_entry *e) {
    const floe_ice_df_layout *l = &d->mr->layout;
    if (rec->type != FLOE_AVRO_RECORD) return floe_error(FLOE_ERR_CORRUPT, "data_file is not a record");
    int64_t content = floe_ice_avro_long(G(FLOE_DF_CONTENT), 0);
    if (content < 0 || content > 2) return floe_error(FLOE_ERR_CORRUPT, "data_file: unknown content %" PRId64, content);
    e->content = (uint8_t)content;
    FLOE_TRY_CTX(text_of(G(FLOE_DF_FILE_PATH), d->arena, &e->path), "data_file.file_path");
    if (!e->path) return floe_error(FLOE_ERR_CORRUPT, "data_file: file_path is null");
    FLOE_TRY_CTX(format_of(d, G(FLOE_DF_FILE_FORMAT), &e->format), "data_file.file_format");
    e->record_count = floe_ice_avro_long(G(FLOE_DF_RECORD_COUNT), -1);
    e->file_size_in_bytes = floe_ice_avro_long(G(FLOE_DF_FILE_SIZE), -1);
    FLOE_TRY(partition_of(d, rec, &e->partition));
    FLOE_TRY(metrics_blob(d, rec, &e->metrics));
    int64_t *so = NULL;
    FLOE_TRY_CTX(long_array(G(FLOE_DF_SPLIT_OFFSETS), d->arena, &so, &e->n_split_offsets), "split_offsets");
    e->split_offsets = so;
    const floe_avro_value *v = G(FLOE_DF_FIRST_ROW_ID);
    if (v) e->has_first_row_id = true, e->first_row_id = floe_ice_avro_long(v, 0);
    if (content != FLOE_ICE_CONTENT_DATA) FLOE_TRY(del_fields(d, rec, &e->del));
#undef G
    return NULL;
}

static floe_status read_entries(sdec *d, floe_ice_scan_manifest *m) {
    floe_ice_manifest_reader *mr = d->mr;
    floe_arena scratch;
    floe_arena_init(&scratch, 0);
    size_t cap = floe_ice_manifest_reader_expected(mr), n = 0;
    floe_ice_scan_entry *entries = cap ? floe_malloc_array(cap, sizeof *entries) : NULL;
    if (!entries) cap = 0;
    floe_status st = NULL;
    for (;;) {
        floe_arena_reset(&scratch);
        floe_ice_manifest_entry head;
        const floe_avro_value *df;
        int has = 0;
        st = floe_ice_manifest_reader_next(mr, &scratch, &head, &df, &has);
        if (st || !has) break;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            floe_ice_scan_entry *ne = floe_realloc(entries, nc * sizeof *ne);
            if (!ne) {
                st = oom();
                break;
            }
            entries = ne;
            cap = nc;
        }
        floe_ice_scan_entry *e = &entries[n];
        memset(e, 0, sizeof *e);
        e->status = (uint8_t)head.status;
        e->sequence_number = head.sequence_number;
        e->file_sequence_number = head.file_sequence_number;
        st = entry_from_avro(d, df, e);
        if (st) {
            st = floe_status_wrap(st, "entry %zu", n);
            break;
        }
        if (!e->has_first_row_id &&
            floe_ice_manifest_reader_row_id(mr, e->content, head.status, e->record_count, &e->first_row_id))
            e->has_first_row_id = true;
        n++;
    }
    floe_arena_destroy(&scratch);
    m->priv->entries = entries;
    m->entries = entries;
    m->n_entries = n;
    return st;
}

floe_status floe_ice_scan_manifest_read(floe_input *in, const floe_ice_manifest_file *mf, floe_ice_scan_manifest **out) {
    *out = NULL;
    floe_ice_manifest_reader mr;
    FLOE_TRY(floe_ice_manifest_reader_open(in, mf, &mr));
    floe_ice_scan_manifest *m = floe_calloc(1, sizeof *m);
    struct floe_ice_smf_private *priv = m ? floe_calloc(1, sizeof *priv) : NULL;
    sdec d;
    memset(&d, 0, sizeof d);
    floe_buf_init(&d.blob);
    floe_status st = priv ? NULL : oom();
    if (!st) {
        m->priv = priv;
        /* Sized so a typical manifest fits a chunk or two (paths and
         * metrics are about 100 bytes an entry). */
        size_t want = floe_ice_manifest_reader_expected(&mr) * 128;
        floe_arena_init(&priv->arena, want < 16384 ? 16384 : want > (1u << 20) ? (1u << 20) : want);
        m->content = mr.content;
        m->spec_id = mr.spec_id;
        m->n_partition = mr.layout.n_part;
        d.mr = &mr;
        d.arena = &priv->arena;
        d.ptmp = floe_malloc_array(mr.layout.n_part ? (size_t)mr.layout.n_part : 1, sizeof *d.ptmp);
        if (!d.ptmp) st = oom();
    }
    if (!st) st = read_entries(&d, m);
    if (m && priv) {
        /* Entries point at the layout's partition ids: keep it. */
        priv->layout = mr.layout;
        m->partition_ids = priv->layout.part_ids;
        memset(&mr.layout, 0, sizeof mr.layout);
    }
    floe_free(d.ptmp);
    floe_free(d.slots);
    floe_buf_free(&d.blob);
    floe_ice_manifest_reader_close(&mr);
    if (st) {
        floe_ice_scan_manifest_free(m);
        return floe_status_wrap(st, "manifest '%s'", in->path);
    }
    *out = m;
    return NULL;
}

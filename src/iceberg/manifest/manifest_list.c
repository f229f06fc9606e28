/*
 * manifest_list.c — Iceberg manifest lists (read any version by field id,
 * write v1/v2/v3) and the live files of a snapshot: every data and delete
 * file whose manifest entry is not DELETED, over all manifests of the
 * snapshot, read in parallel on the thread pool.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buffer.h"
#include "base/log.h"
#include "base/threadpool.h"
#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"
#include "iceberg/manifest/manifest_avro.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory in a manifest list"); }

enum {
    ML_PATH, ML_LENGTH, ML_SPEC_ID, ML_CONTENT, ML_SEQ, ML_MIN_SEQ, ML_SNAPSHOT, ML_ADDED_FILES, ML_EXISTING_FILES,
    ML_DELETED_FILES, ML_ADDED_ROWS, ML_EXISTING_ROWS, ML_DELETED_ROWS, ML_PARTITIONS, ML_KEY_METADATA, ML_FIRST_ROW_ID,
    ML_N
};

static const struct {
    int id;
    const char *names[3];
} ml_ids[ML_N] = {
    {500, {"manifest_path", NULL}},
    {501, {"manifest_length", NULL}},
    {502, {"partition_spec_id", NULL}},
    {517, {"content", NULL}},
    {515, {"sequence_number", NULL}},
    {516, {"min_sequence_number", NULL}},
    {503, {"added_snapshot_id", NULL}},
    {504, {"added_files_count", "added_data_files_count"}},
    {505, {"existing_files_count", "existing_data_files_count"}},
    {506, {"deleted_files_count", "deleted_data_files_count"}},
    {512, {"added_rows_count", NULL}},
    {513, {"existing_rows_count", NULL}},
    {514, {"deleted_rows_count", NULL}},
    {507, {"partitions", NULL}},
    {519, {"key_metadata", NULL}},
    {520, {"first_row_id", NULL}},
};

struct floe_ice_ml_private {
    floe_arena arena;
};

void floe_ice_manifest_list_free(floe_ice_manifest_list *l) {
    if (!l) return;
    if (l->priv) {
        floe_arena_destroy(&l->priv->arena);
        floe_free(l->priv);
    }
    floe_free(l->files);
    floe_free(l);
}

static floe_status summaries(const floe_avro_value *v, floe_arena *a, floe_ice_manifest_file *mf) {
    mf->n_partitions = -1;
    if (!v) return NULL;
    if (v->type != FLOE_AVRO_ARRAY) return floe_error(FLOE_ERR_CORRUPT, "'partitions' is not a list");
    mf->n_partitions = (int32_t)v->len;
    if (!v->len) return NULL;
    mf->partitions = floe_arena_calloc(a, v->len, sizeof *mf->partitions);
    if (!mf->partitions) return oom();
    for (uint32_t i = 0; i < v->len; i++) {
        const floe_avro_value *r = &v->u.items[i];
        floe_ice_field_summary *s = &mf->partitions[i];
        s->contains_nan = -1;
        if (r->type != FLOE_AVRO_RECORD) return floe_error(FLOE_ERR_CORRUPT, "partition summary %u is not a record", i);
        /* Canonical order (see canonical_summary): contains_null,
         * contains_nan, lower_bound, upper_bound. */
        const floe_avro_value *x[4];
        for (int k = 0; k < 4; k++) x[k] = floe_ice_avro_get(r, k);
        s->contains_null = floe_ice_avro_long(x[0], 0) != 0;
        if (x[1]) s->contains_nan = x[1]->u.l ? 1 : 0;
        if (x[2]) {
            s->lower_bound = (const uint8_t *)floe_ice_arena_text(a, x[2]->u.p, x[2]->len);
            s->lower_len = x[2]->len;
            if (!s->lower_bound) return oom();
        }
        if (x[3]) {
            s->upper_bound = (const uint8_t *)floe_ice_arena_text(a, x[3]->u.p, x[3]->len);
            s->upper_len = x[3]->len;
            if (!s->upper_bound) return oom();
        }
    }
    return NULL;
}

/* Positions of the summary fields are resolved per file by id when the
 * writer recorded ids; this rewrites the record into the canonical order. */
static void canonical_summary(const floe_avro_schema *rec, const floe_avro_value *in, floe_avro_value *out,
                              floe_avro_value *slots) {
    static const char *const nn[] = {"contains_null", NULL}, *const nnan[] = {"contains_nan", NULL},
                             *const nl[] = {"lower_bound", NULL}, *const nu[] = {"upper_bound", NULL};
    int idx[4] = {floe_ice_avro_find(rec, 509, nn), floe_ice_avro_find(rec, 518, nnan), floe_ice_avro_find(rec, 510, nl),
                  floe_ice_avro_find(rec, 511, nu)};
    for (int i = 0; i < 4; i++) {
        const floe_avro_value *x = floe_ice_avro_get(in, idx[i]);
        slots[i] = x ? *x : floe_avro_null();
    }
    *out = floe_avro_items(FLOE_AVRO_RECORD, slots, 4);
}

floe_status floe_ice_manifest_list_read(floe_input *in, floe_ice_manifest_list **out) {
    *out = NULL;
    FLOE_LOG_DEBUG("manifest", "read list %s", in->path);
    floe_avro_reader *r = NULL;
    FLOE_TRY_CTX(floe_avro_reader_open(in, NULL, &r), "manifest list '%s'", in->path);
    floe_ice_manifest_list *l = floe_calloc(1, sizeof *l);
    struct floe_ice_ml_private *priv = floe_calloc(1, sizeof *priv);
    floe_status st = (!l || !priv) ? oom() : NULL;
    floe_arena scratch;
    floe_arena_init(&scratch, 0);
    if (!st) {
        l->priv = priv;
        floe_arena_init(&priv->arena, 16 * 1024);
        const floe_avro_schema *ws = floe_ice_avro_record(floe_avro_reader_writer_schema(r));
        int idx[ML_N];
        for (int i = 0; i < ML_N; i++) idx[i] = ws ? floe_ice_avro_find(ws, ml_ids[i].id, ml_ids[i].names) : -1;
        if (idx[ML_PATH] < 0) st = floe_error(FLOE_ERR_CORRUPT, "not a manifest list: no 'manifest_path' field");
        const floe_avro_schema *sum_rec = NULL;
        if (!st && idx[ML_PARTITIONS] >= 0) {
            const floe_avro_schema *ps = ws->fields[idx[ML_PARTITIONS]].type;
            const floe_avro_schema *inner = floe_avro_optional_inner(ps);
            if (inner) ps = inner;
            if (ps->type == FLOE_AVRO_ARRAY) sum_rec = floe_ice_avro_record(ps->items);
        }
        size_t len;
        const uint8_t *fv = floe_avro_reader_meta(r, "format-version", &len);
        l->format_version = fv ? atoi((const char *)fv) : idx[ML_FIRST_ROW_ID] >= 0 ? 3 : idx[ML_SEQ] >= 0 ? 2 : 1;
        size_t cap = 0;
        while (!st) {
            floe_arena_reset(&scratch);
            floe_avro_value v;
            int has = 0;
            st = floe_avro_reader_next(r, &scratch, &v, &has);
            if (st || !has) break;
            if ((size_t)l->n_files == cap) {
                size_t nc = cap ? cap * 2 : 16;
                floe_ice_manifest_file *nf = floe_realloc(l->files, nc * sizeof *nf);
                if (!nf) {
                    st = oom();
                    break;
                }
                l->files = nf;
                cap = nc;
            }
            floe_ice_manifest_file *mf = &l->files[l->n_files];
            memset(mf, 0, sizeof *mf);
#define G(k) floe_ice_avro_get(&v, idx[k])
            const floe_avro_value *p = G(ML_PATH);
            if (!p || (p->type != FLOE_AVRO_STRING && p->type != FLOE_AVRO_BYTES)) {
                st = floe_error(FLOE_ERR_CORRUPT, "record %d: manifest_path is missing", l->n_files);
                break;
            }
            mf->manifest_path = floe_ice_arena_text(&priv->arena, p->u.p, p->len);
            if (!mf->manifest_path) {
                st = oom();
                break;
            }
            mf->manifest_length = floe_ice_avro_long(G(ML_LENGTH), -1);
            mf->partition_spec_id = (int32_t)floe_ice_avro_long(G(ML_SPEC_ID), 0);
            mf->content = floe_ice_avro_long(G(ML_CONTENT), 0) == 1 ? FLOE_ICE_MANIFEST_DELETES : FLOE_ICE_MANIFEST_DATA;
            mf->sequence_number = floe_ice_avro_long(G(ML_SEQ), 0);
            mf->min_sequence_number = floe_ice_avro_long(G(ML_MIN_SEQ), 0);
            mf->added_snapshot_id = floe_ice_avro_long(G(ML_SNAPSHOT), -1);
            mf->added_files_count = (int32_t)floe_ice_avro_long(G(ML_ADDED_FILES), -1);
            mf->existing_files_count = (int32_t)floe_ice_avro_long(G(ML_EXISTING_FILES), -1);
            mf->deleted_files_count = (int32_t)floe_ice_avro_long(G(ML_DELETED_FILES), -1);
            mf->added_rows_count = floe_ice_avro_long(G(ML_ADDED_ROWS), -1);
            mf->existing_rows_count = floe_ice_avro_long(G(ML_EXISTING_ROWS), -1);
            mf->deleted_rows_count = floe_ice_avro_long(G(ML_DELETED_ROWS), -1);
            const floe_avro_value *parts = G(ML_PARTITIONS);
            if (parts && sum_rec && parts->type == FLOE_AVRO_ARRAY) {
                /* Rewrite each summary into canonical field order first. */
                floe_avro_value *canon = floe_arena_alloc(&scratch, (parts->len ? parts->len : 1) * sizeof *canon);
                floe_avro_value *slots = floe_arena_alloc(&scratch, (parts->len ? parts->len : 1) * 4 * sizeof *slots);
                if (!canon || !slots) {
                    st = oom();
                    break;
                }
                for (uint32_t i = 0; i < parts->len; i++)
                    canonical_summary(sum_rec, &parts->u.items[i], &canon[i], &slots[4 * i]);
                floe_avro_value arr = floe_avro_items(FLOE_AVRO_ARRAY, canon, parts->len);
                st = summaries(&arr, &priv->arena, mf);
                if (st) break;
            } else {
                mf->n_partitions = -1;
            }
            const floe_avro_value *km = G(ML_KEY_METADATA);
            if (km && (km->type == FLOE_AVRO_BYTES || km->type == FLOE_AVRO_FIXED)) {
                mf->key_metadata = (const uint8_t *)floe_ice_arena_text(&priv->arena, km->u.p, km->len);
                if (!mf->key_metadata) {
                    st = oom();
                    break;
                }
                mf->key_metadata_len = km->len;
            }
            const floe_avro_value *fr = G(ML_FIRST_ROW_ID);
            if (fr) mf->has_first_row_id = true, mf->first_row_id = floe_ice_avro_long(fr, 0);
#undef G
            l->n_files++;
        }
    }
    floe_arena_destroy(&scratch);
    floe_avro_reader_close(r);
    if (st) {
        floe_ice_manifest_list_free(l);
        return floe_status_wrap(st, "manifest list '%s'", in->path);
    }
    *out = l;
    return NULL;
}

/* ---- writing ------------------------------------------------------------------ */

static floe_status list_schema_json(floe_buf *b, int v) {
    const char *req_int = v >= 2 ? "\"int\"" : "[\"null\",\"int\"]";
    const char *req_long = v >= 2 ? "\"long\"" : "[\"null\",\"long\"]";
    const char *dflt = v >= 2 ? "" : ",\"default\":null";
    FLOE_TRY(floe_buf_append_str(b, "{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":["
                                    "{\"name\":\"manifest_path\",\"type\":\"string\",\"field-id\":500},"
                                    "{\"name\":\"manifest_length\",\"type\":\"long\",\"field-id\":501},"
                                    "{\"name\":\"partition_spec_id\",\"type\":\"int\",\"field-id\":502},"));
    if (v >= 2)
        FLOE_TRY(floe_buf_append_str(b, "{\"name\":\"content\",\"type\":\"int\",\"field-id\":517},"
                                        "{\"name\":\"sequence_number\",\"type\":\"long\",\"field-id\":515},"
                                        "{\"name\":\"min_sequence_number\",\"type\":\"long\",\"field-id\":516},"));
    FLOE_TRY(floe_buf_append_str(b, "{\"name\":\"added_snapshot_id\",\"type\":\"long\",\"field-id\":503},"));
    static const char *const counts[] = {"added_files_count", "existing_files_count", "deleted_files_count"};
    static const char *const rows[] = {"added_rows_count", "existing_rows_count", "deleted_rows_count"};
    for (int i = 0; i < 3; i++)
        FLOE_TRY(floe_buf_printf(b, "{\"name\":\"%s\",\"type\":%s%s,\"field-id\":%d},", counts[i], req_int, dflt, 504 + i));
    for (int i = 0; i < 3; i++)
        FLOE_TRY(floe_buf_printf(b, "{\"name\":\"%s\",\"type\":%s%s,\"field-id\":%d},", rows[i], req_long, dflt, 512 + i));
    FLOE_TRY(floe_buf_append_str(
        b, "{\"name\":\"partitions\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\","
           "\"name\":\"r508\",\"fields\":[{\"name\":\"contains_null\",\"type\":\"boolean\",\"field-id\":509},"
           "{\"name\":\"contains_nan\",\"type\":[\"null\",\"boolean\"],\"default\":null,\"field-id\":518},"
           "{\"name\":\"lower_bound\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":510},"
           "{\"name\":\"upper_bound\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":511}]},"
           "\"element-id\":508}],\"default\":null,\"field-id\":507},"
           "{\"name\":\"key_metadata\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":519}"));
    if (v >= 3)
        FLOE_TRY(floe_buf_append_str(b, ",{\"name\":\"first_row_id\",\"type\":[\"null\",\"long\"],\"default\":null,"
                                        "\"field-id\":520}"));
    return floe_buf_append_str(b, "]}");
}

static floe_avro_value count_value(int v, int64_t x, floe_avro_type t) {
    /* v2+ counts are required: write 0 for unknown. */
    if (x < 0) return v >= 2 ? floe_avro_long(t, 0) : floe_avro_null();
    return floe_avro_long(t, x);
}

static floe_status file_value(const floe_ice_manifest_file *mf, int v, floe_arena *a, floe_avro_value *out) {
    floe_avro_value *it = floe_arena_alloc(a, 17 * sizeof *it);
    if (!it) return oom();
    size_t n = 0;
    if (!mf->manifest_path) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "manifest list entry without a path");
    it[n++] = floe_avro_bytes(FLOE_AVRO_STRING, mf->manifest_path, strlen(mf->manifest_path));
    it[n++] = floe_avro_long(FLOE_AVRO_LONG, mf->manifest_length);
    it[n++] = floe_avro_long(FLOE_AVRO_INT, mf->partition_spec_id);
    if (v >= 2) {
        it[n++] = floe_avro_long(FLOE_AVRO_INT, mf->content);
        it[n++] = floe_avro_long(FLOE_AVRO_LONG, mf->sequence_number);
        it[n++] = floe_avro_long(FLOE_AVRO_LONG, mf->min_sequence_number);
    }
    it[n++] = floe_avro_long(FLOE_AVRO_LONG, mf->added_snapshot_id);
    it[n++] = count_value(v, mf->added_files_count, FLOE_AVRO_INT);
    it[n++] = count_value(v, mf->existing_files_count, FLOE_AVRO_INT);
    it[n++] = count_value(v, mf->deleted_files_count, FLOE_AVRO_INT);
    it[n++] = count_value(v, mf->added_rows_count, FLOE_AVRO_LONG);
    it[n++] = count_value(v, mf->existing_rows_count, FLOE_AVRO_LONG);
    it[n++] = count_value(v, mf->deleted_rows_count, FLOE_AVRO_LONG);
    if (mf->n_partitions < 0) {
        it[n++] = floe_avro_null();
    } else {
        floe_avro_value *recs = floe_arena_alloc(a, (size_t)(mf->n_partitions + 1) * sizeof *recs);
        floe_avro_value *f = floe_arena_alloc(a, (size_t)(mf->n_partitions + 1) * 4 * sizeof *f);
        if (!recs || !f) return oom();
        for (int32_t i = 0; i < mf->n_partitions; i++) {
            const floe_ice_field_summary *s = &mf->partitions[i];
            floe_avro_value *x = &f[4 * i];
            x[0] = floe_avro_long(FLOE_AVRO_BOOLEAN, s->contains_null);
            x[1] = s->contains_nan < 0 ? floe_avro_null() : floe_avro_long(FLOE_AVRO_BOOLEAN, s->contains_nan);
            x[2] = s->lower_bound ? floe_avro_bytes(FLOE_AVRO_BYTES, s->lower_bound, s->lower_len) : floe_avro_null();
            x[3] = s->upper_bound ? floe_avro_bytes(FLOE_AVRO_BYTES, s->upper_bound, s->upper_len) : floe_avro_null();
            recs[i] = floe_avro_items(FLOE_AVRO_RECORD, x, 4);
        }
        it[n++] = floe_avro_items(FLOE_AVRO_ARRAY, recs, (size_t)mf->n_partitions);
    }
    it[n++] = mf->key_metadata ? floe_avro_bytes(FLOE_AVRO_BYTES, mf->key_metadata, mf->key_metadata_len) : floe_avro_null();
    if (v >= 3) it[n++] = mf->has_first_row_id ? floe_avro_long(FLOE_AVRO_LONG, mf->first_row_id) : floe_avro_null();
    *out = floe_avro_items(FLOE_AVRO_RECORD, it, n);
    return NULL;
}

floe_status floe_ice_manifest_list_write(floe_output *out, const floe_ice_manifest_list_options *o,
                                         const floe_ice_manifest_file *files, int32_t n) {
    int v = o->format_version;
    if (v < 1 || v > FLOE_ICE_MAX_FORMAT_VERSION)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "manifest list: unsupported format version %d", v);
    floe_buf b = FLOE_BUF_INIT;
    floe_avro_schema *schema = NULL;
    floe_status st = list_schema_json(&b, v);
    if (!st) st = floe_avro_schema_parse(floe_buf_cstr(&b), b.len, &schema);
    floe_buf_free(&b);
    if (st) return st;
    char vals[5][32];
    floe_avro_meta meta[5];
    size_t k = 0;
#define M(K_, fmt, x)                                                      \
    do {                                                                    \
        snprintf(vals[k], sizeof vals[k], fmt, x);                          \
        meta[k].key = (char *)(K_);                                        \
        meta[k].value = (uint8_t *)vals[k];                                 \
        meta[k].len = strlen(vals[k]);                                      \
        k++;                                                                \
    } while (0)
    M("snapshot-id", "%" PRId64, o->snapshot_id);
    M("parent-snapshot-id", "%s", "null");
    if (o->parent_snapshot_id != FLOE_ICE_NO_SNAPSHOT) {
        k--;
        M("parent-snapshot-id", "%" PRId64, o->parent_snapshot_id);
    }
    if (v >= 2) M("sequence-number", "%" PRId64, o->sequence_number);
    M("format-version", "%d", v);
    if (v >= 3 && o->has_first_row_id) M("first-row-id", "%" PRId64, o->first_row_id);
#undef M
    floe_avro_writer *w = NULL;
    floe_avro_writer_options wo = {FLOE_AVRO_CODEC_DEFLATE, 0, 0};
    st = floe_avro_writer_open(out, schema, meta, k, &wo, &w);
    floe_arena a;
    floe_arena_init(&a, 0);
    for (int32_t i = 0; !st && i < n; i++) {
        floe_arena_reset(&a);
        floe_avro_value rec;
        st = file_value(&files[i], v, &a, &rec);
        if (!st) st = floe_avro_writer_append(w, &rec);
        if (st) st = floe_status_wrap(st, "manifest list entry %d", i);
    }
    floe_arena_destroy(&a);
    if (w) {
        if (st) floe_avro_writer_abort(w);
        else st = floe_avro_writer_finish(w);
    }
    floe_avro_schema_free(schema);
    return floe_status_wrap(st, "writing manifest list '%s'", out->path ? out->path : "?");
}

/* ---- live files ------------------------------------------------------------ */

struct floe_ice_lf_private {
    floe_ice_manifest_list *list;
    floe_ice_manifest_file *v1_files; /* v1 snapshots without a manifest list */
    floe_ice_manifest **manifests;
    size_t n_manifests;
    floe_arena arena;
};

void floe_ice_live_files_free(floe_ice_live_files *lf) {
    if (!lf) return;
    if (lf->priv) {
        for (size_t i = 0; i < lf->priv->n_manifests; i++) floe_ice_manifest_free(lf->priv->manifests[i]);
        floe_free(lf->priv->manifests);
        floe_free(lf->priv->v1_files);
        floe_ice_manifest_list_free(lf->priv->list);
        floe_arena_destroy(&lf->priv->arena);
        floe_free(lf->priv);
    }
    floe_free(lf->files);
    floe_free(lf);
}

floe_status floe_ice_snapshot_manifests(const floe_ice_table *t, const floe_ice_snapshot *snap,
                                        floe_ice_manifest_list **list,
                                        floe_ice_manifest_file **v1_files,
                                        const floe_ice_manifest_file **files, size_t *n) {
    *list = NULL;
    *v1_files = NULL;
    *files = NULL;
    *n = 0;
    /* v3 table encryption: the manifest list (and what it lists) is
     * encrypted with a key from the table's encryption-keys.  Reading it
     * as plain Avro would fail somewhere obscure, or worse: say so. */
    if (snap->key_id)
        return floe_error(FLOE_ERR_UNSUPPORTED,
                          "snapshot %" PRId64 " is encrypted (its manifest list uses encryption key '%s'): "
                          "reading encrypted Iceberg tables is not supported", snap->snapshot_id, snap->key_id);
    if (snap->manifest_list) {
        floe_input *in = NULL;
        FLOE_TRY_CTX(floe_ice_table_open_input(t, snap->manifest_list, -1, &in), "snapshot %" PRId64,
                     snap->snapshot_id);
        floe_status st = floe_ice_manifest_list_read(in, list);
        floe_input_close(in);
        FLOE_TRY_CTX(st, "snapshot %" PRId64, snap->snapshot_id);
        *files = (*list)->files;
        *n = (size_t)(*list)->n_files;
        for (size_t i = 0; i < *n; i++)
            if ((*files)[i].key_metadata)
                return floe_error(FLOE_ERR_UNSUPPORTED,
                                  "snapshot %" PRId64 ": manifest '%s' is encrypted (it has key_metadata): reading "
                                  "encrypted Iceberg tables is not supported", snap->snapshot_id,
                                  (*files)[i].manifest_path);
        return NULL;
    }
    size_t m = (size_t)snap->n_manifests;
    floe_ice_manifest_file *v1 = floe_calloc(m ? m : 1, sizeof *v1);
    if (!v1) return oom();
    for (size_t i = 0; i < m; i++) {
        v1[i].manifest_path = snap->manifests[i];
        v1[i].added_snapshot_id = snap->snapshot_id;
        v1[i].manifest_length = -1;
        v1[i].n_partitions = -1;
    }
    *v1_files = v1;
    *files = v1;
    *n = m;
    return NULL;
}

typedef struct read_ctx {
    const floe_ice_table *t;
    const floe_ice_manifest_file *files;
    floe_ice_manifest **out;
} read_ctx;

static floe_status read_range(void *vctx, size_t begin, size_t end, const floe_cancel *cancel) {
    read_ctx *c = vctx;
    for (size_t i = begin; i < end; i++) {
        FLOE_TRY(floe_cancel_check(cancel, "reading manifests"));
        const floe_ice_manifest_file *mf = &c->files[i];
        FLOE_TRY(floe_ice_table_read_manifest(c->t, mf, mf->added_snapshot_id >= 0 || mf->sequence_number > 0 ? mf : NULL,
                                              &c->out[i]));
    }
    return NULL;
}

/* Values stored in the representation of one type and read back as
 * another (a day partition written as a plain int, a timestamp as a long)
 * take the spec's type when the storage is the same. */
static bool same_storage(floe_ice_type_id a, floe_ice_type_id b) {
    bool ai = a == FLOE_ICE_INT || a == FLOE_ICE_DATE, bi = b == FLOE_ICE_INT || b == FLOE_ICE_DATE;
    bool al = a == FLOE_ICE_LONG || a == FLOE_ICE_TIME || a == FLOE_ICE_TIMESTAMP || a == FLOE_ICE_TIMESTAMPTZ ||
              a == FLOE_ICE_TIMESTAMP_NS || a == FLOE_ICE_TIMESTAMPTZ_NS;
    bool bl = b == FLOE_ICE_LONG || b == FLOE_ICE_TIME || b == FLOE_ICE_TIMESTAMP || b == FLOE_ICE_TIMESTAMPTZ ||
              b == FLOE_ICE_TIMESTAMP_NS || b == FLOE_ICE_TIMESTAMPTZ_NS;
    return (ai && bi) || (al && bl);
}

static void retype_partition(const floe_ice_table_metadata *md, const floe_ice_type *pt, floe_ice_data_file *f) {
    (void)md;
    for (int32_t i = 0; pt && i < f->n_partition; i++) {
        for (int32_t k = 0; k < pt->n_fields; k++) {
            if (pt->fields[k].id != f->partition_ids[i]) continue;
            floe_ice_type_id want = pt->fields[k].type->id;
            if (want != f->partition[i].type && same_storage(want, f->partition[i].type)) f->partition[i].type = want;
            break;
        }
    }
}

static floe_status collect(const floe_ice_table *t, floe_ice_live_files *lf, const floe_ice_manifest_file *files) {
    struct floe_ice_lf_private *p = lf->priv;
    /* Partition types of the specs, by position in md->specs (lenient: a
     * spec over a dropped column still lines up by field id). */
    int32_t n_specs = t->md ? t->md->n_specs : 0;
    floe_ice_type **pts = floe_calloc(n_specs ? (size_t)n_specs : 1, sizeof *pts);
    if (!pts) return oom();
    for (int32_t i = 0; i < n_specs; i++) {
        const floe_ice_schema *sc = floe_ice_tm_current_schema(t->md);
        floe_status st = floe_ice_partition_spec_partition_type(t->md->specs[i], sc, true, &pts[i]);
        if (st) {
            floe_status_free(st); /* no retyping for this spec */
            pts[i] = NULL;
        }
    }
    floe_status st = NULL;
    size_t total = 0;
    for (size_t i = 0; i < p->n_manifests; i++) total += p->manifests[i]->n_entries;
    lf->files = floe_calloc(total ? total : 1, sizeof *lf->files);
    if (!lf->files) st = oom();
    for (size_t i = 0; !st && i < p->n_manifests; i++) {
        const floe_ice_manifest *m = p->manifests[i];
        const floe_ice_type *pt = NULL;
        for (int32_t s = 0; s < n_specs; s++)
            if (t->md->specs[s]->spec_id == m->spec_id) pt = pts[s];
        for (size_t k = 0; !st && k < m->n_entries; k++) {
            floe_ice_manifest_entry *e = &m->entries[k];
            if (e->status == FLOE_ICE_STATUS_DELETED) continue;
            retype_partition(t->md, pt, &e->file);
            floe_ice_live_file *f = &lf->files[lf->n++];
            f->file = e->file;
            f->snapshot_id = e->snapshot_id;
            f->sequence_number = e->sequence_number;
            f->file_sequence_number = e->file_sequence_number;
            f->status = e->status;
            f->manifest_path = files[i].manifest_path;
            char *rp = NULL;
            st = floe_ice_table_resolve_path(t, e->file.file_path, &rp);
            if (st) break;
            f->resolved_path = floe_arena_strdup(&p->arena, rp);
            floe_free(rp);
            if (!f->resolved_path) st = oom();
        }
    }
    for (int32_t i = 0; i < n_specs; i++) floe_ice_type_free(pts[i]);
    floe_free(pts);
    return st;
}

static floe_status live_files(const floe_ice_table *t, const floe_ice_snapshot *snap, floe_threadpool *pool,
                              floe_ice_live_files *lf) {
    struct floe_ice_lf_private *p = lf->priv;
    const floe_ice_manifest_file *files;
    size_t n;
    FLOE_TRY(floe_ice_snapshot_manifests(t, snap, &p->list, &p->v1_files, &files, &n));
    p->manifests = floe_calloc(n ? n : 1, sizeof *p->manifests);
    if (!p->manifests) return oom();
    p->n_manifests = n;
    lf->n_manifests = n;
    if (!pool) FLOE_TRY(floe_threadpool_default(&pool));
    read_ctx c = {t, files, p->manifests};
    FLOE_TRY_CTX(floe_parallel_for(pool, n, 1, read_range, &c, NULL), "snapshot %" PRId64, snap->snapshot_id);
    return collect(t, lf, files);
}

floe_status floe_ice_table_live_files(const floe_ice_table *t, const floe_ice_snapshot *snap, floe_threadpool *pool,
                                      floe_ice_live_files **out) {
    *out = NULL;
    if (!snap) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "live files: no snapshot given");
    floe_ice_live_files *lf = floe_calloc(1, sizeof *lf);
    if (!lf) return oom();
    lf->priv = floe_calloc(1, sizeof *lf->priv);
    if (!lf->priv) {
        floe_free(lf);
        return oom();
    }
    floe_arena_init(&lf->priv->arena, 0);
    floe_status st = live_files(t, snap, pool, lf);
    if (st) {
        floe_ice_live_files_free(lf);
        return st;
    }
    *out = lf;
    return NULL;
}

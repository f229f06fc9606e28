/*
 * scan_codec.c — task groups to bytes and back, so the coordinator can
 * ship a group to a worker.  The form is compact binary, little-endian:
 *
 *   "FLSG" u32 version=1
 *   i32 index, i64 weight, i64 bytes, i64 rows, i32 n_files
 *   i32 n_deletes, then each delete
 *   i32 n_tasks, then each task (deletes as i32 indices into the list)
 *
 * Strings are u32 length + bytes (0xFFFFFFFF = NULL); values are u8 type,
 * u8 null, i32 scale, then the payload; the residual is its JSON text
 * (floe_ice_expr_to_json_text).  Every read is bounds-checked: truncated
 * or corrupt input is an error naming the offset, never a crash.
 */
#include <string.h>

#include "base/arena.h"
#include "base/buffer.h"
#include "floe/iceberg_scan.h"
#include "floe/memory.h"

#define SG_MAGIC "FLSG"
#define SG_VERSION 1u

struct floe_ice_sg_private {
    floe_arena arena;
    floe_ice_expr **exprs;
    int32_t n_exprs;
};

/* ---- writing --------------------------------------------------------------- */

static floe_status w_bytes(floe_buf *b, const void *p, size_t n) { return floe_buf_append(b, p, n); }
static floe_status w_i32(floe_buf *b, int32_t v) { return w_bytes(b, &v, 4); }
static floe_status w_i64(floe_buf *b, int64_t v) { return w_bytes(b, &v, 8); }

static floe_status w_str(floe_buf *b, const char *s) {
    if (!s) return w_i32(b, -1);
    size_t n = strlen(s);
    if (n > INT32_MAX) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "task group: string too long");
    FLOE_TRY(w_i32(b, (int32_t)n));
    return w_bytes(b, s, n);
}

static floe_status w_value(floe_buf *b, const floe_ice_value *v) {
    uint8_t hdr[2] = {(uint8_t)v->type, v->is_null};
    FLOE_TRY(w_bytes(b, hdr, 2));
    FLOE_TRY(w_i32(b, v->scale));
    if (v->is_null) return NULL;
    switch (v->type) {
    case FLOE_ICE_BOOLEAN: return w_bytes(b, &v->v.b, 1);
    case FLOE_ICE_INT:
    case FLOE_ICE_DATE: return w_i32(b, v->v.i32);
    case FLOE_ICE_FLOAT: return w_bytes(b, &v->v.f32, 4);
    case FLOE_ICE_DOUBLE: return w_bytes(b, &v->v.f64, 8);
    case FLOE_ICE_DECIMAL: return w_bytes(b, &v->v.dec, 16);
    case FLOE_ICE_UUID: return w_bytes(b, v->v.uuid, 16);
    case FLOE_ICE_STRING:
    case FLOE_ICE_BINARY:
    case FLOE_ICE_FIXED:
        FLOE_TRY(w_i64(b, (int64_t)v->v.bytes.len));
        return w_bytes(b, v->v.bytes.data, v->v.bytes.len);
    default: return w_i64(b, v->v.i64);
    }
}

static floe_status w_delete(floe_buf *b, const floe_ice_scan_delete *d) {
    FLOE_TRY(w_i32(b, (int32_t)d->content));
    FLOE_TRY(w_i32(b, d->is_dv));
    FLOE_TRY(w_str(b, d->path));
    FLOE_TRY(w_str(b, d->resolved_path));
    FLOE_TRY(w_str(b, d->format));
    FLOE_TRY(w_i64(b, d->record_count));
    FLOE_TRY(w_i64(b, d->file_size_in_bytes));
    FLOE_TRY(w_i32(b, d->spec_id));
    FLOE_TRY(w_i64(b, d->sequence_number));
    FLOE_TRY(w_i64(b, d->file_sequence_number));
    FLOE_TRY(w_i32(b, d->n_equality_ids));
    for (int32_t i = 0; i < d->n_equality_ids; i++) FLOE_TRY(w_i32(b, d->equality_ids[i]));
    FLOE_TRY(w_str(b, d->referenced_data_file));
    FLOE_TRY(w_i64(b, d->content_offset));
    return w_i64(b, d->content_size_in_bytes);
}

static floe_status w_task(floe_buf *b, const floe_ice_scan_group *g, const floe_ice_scan_task *t) {
    FLOE_TRY(w_str(b, t->path));
    FLOE_TRY(w_str(b, t->resolved_path));
    FLOE_TRY(w_str(b, t->format));
    FLOE_TRY(w_i64(b, t->record_count));
    FLOE_TRY(w_i64(b, t->file_size_in_bytes));
    FLOE_TRY(w_i32(b, t->spec_id));
    FLOE_TRY(w_i32(b, t->n_partition));
    for (int32_t i = 0; i < t->n_partition; i++) FLOE_TRY(w_value(b, &t->partition[i]));
    FLOE_TRY(w_i64(b, t->sequence_number));
    FLOE_TRY(w_i64(b, t->file_sequence_number));
    FLOE_TRY(w_i32(b, t->has_first_row_id));
    FLOE_TRY(w_i64(b, t->first_row_id));
    FLOE_TRY(w_i64(b, t->start));
    FLOE_TRY(w_i64(b, t->length));
    FLOE_TRY(w_i32(b, t->split_index));
    FLOE_TRY(w_i32(b, t->n_splits));
    char *json = NULL;
    FLOE_TRY(floe_ice_expr_to_json_text(t->residual, &json));
    floe_status st = w_str(b, json);
    floe_free(json);
    FLOE_TRY(st);
    FLOE_TRY(w_i32(b, t->n_deletes));
    for (int32_t i = 0; i < t->n_deletes; i++) {
        ptrdiff_t k = t->deletes[i] - g->deletes;
        if (k < 0 || k >= g->n_deletes)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "task group: a task's delete is not in the group's list");
        FLOE_TRY(w_i32(b, (int32_t)k));
    }
    return NULL;
}

floe_status floe_ice_scan_group_serialize(const floe_ice_scan_group *g, uint8_t **out, size_t *out_len) {
    *out = NULL;
    *out_len = 0;
    floe_buf b;
    floe_buf_init(&b);
    uint32_t version = SG_VERSION;
    floe_status st = w_bytes(&b, SG_MAGIC, 4);
    if (!st) st = w_bytes(&b, &version, 4);
    if (!st) st = w_i32(&b, g->index);
    if (!st) st = w_i64(&b, g->weight);
    if (!st) st = w_i64(&b, g->bytes);
    if (!st) st = w_i64(&b, g->rows);
    if (!st) st = w_i32(&b, g->n_files);
    if (!st) st = w_i32(&b, g->n_deletes);
    for (int32_t i = 0; !st && i < g->n_deletes; i++) st = w_delete(&b, &g->deletes[i]);
    if (!st) st = w_i32(&b, g->n_tasks);
    for (int32_t i = 0; !st && i < g->n_tasks; i++) st = w_task(&b, g, &g->tasks[i]);
    if (st) {
        floe_buf_free(&b);
        return floe_status_wrap(st, "serializing task group %d", (int)g->index);
    }
    *out = b.data;
    *out_len = b.len;
    return NULL;
}

/* ---- reading --------------------------------------------------------------- */

typedef struct rd {
    const uint8_t *p;
    size_t len, off;
    floe_arena *a;
} rd;

static floe_status short_read(const rd *r, size_t n) {
    return floe_error(FLOE_ERR_CORRUPT, "task group: truncated at offset %zu (need %zu bytes of %zu)", r->off, n,
                      r->len);
}

static floe_status r_bytes(rd *r, void *dst, size_t n) {
    if (r->len - r->off < n) return short_read(r, n);
    memcpy(dst, r->p + r->off, n);
    r->off += n;
    return NULL;
}
static floe_status r_i32(rd *r, int32_t *v) { return r_bytes(r, v, 4); }
static floe_status r_i64(rd *r, int64_t *v) { return r_bytes(r, v, 8); }

static floe_status r_count(rd *r, int32_t *v, size_t min_each, const char *what) {
    size_t at = r->off;
    FLOE_TRY(r_i32(r, v));
    if (*v < 0 || (size_t)*v * min_each > r->len - r->off)
        return floe_error(FLOE_ERR_CORRUPT, "task group: bad %s count %d at offset %zu", what, (int)*v, at);
    return NULL;
}

static floe_status r_str(rd *r, const char **out) {
    size_t at = r->off;
    int32_t n;
    FLOE_TRY(r_i32(r, &n));
    if (n == -1) {
        *out = NULL;
        return NULL;
    }
    if (n < 0 || (size_t)n > r->len - r->off)
        return floe_error(FLOE_ERR_CORRUPT, "task group: bad string length %d at offset %zu", (int)n, at);
    char *s = floe_arena_strndup(r->a, (const char *)r->p + r->off, (size_t)n);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding a task group");
    r->off += (size_t)n;
    *out = s;
    return NULL;
}

static floe_status r_value(rd *r, floe_ice_value *v) {
    size_t at = r->off;
    uint8_t hdr[2];
    FLOE_TRY(r_bytes(r, hdr, 2));
    memset(v, 0, sizeof *v);
    v->type = (floe_ice_type_id)hdr[0];
    v->is_null = hdr[1] != 0;
    FLOE_TRY(r_i32(r, &v->scale));
    if (hdr[1] > 1 || hdr[0] > FLOE_ICE_BINARY)
        return floe_error(FLOE_ERR_CORRUPT, "task group: bad value header at offset %zu", at);
    if (v->is_null) return NULL;
    switch (v->type) {
    case FLOE_ICE_BOOLEAN: {
        uint8_t x;
        FLOE_TRY(r_bytes(r, &x, 1));
        v->v.b = x != 0;
        return NULL;
    }
    case FLOE_ICE_INT:
    case FLOE_ICE_DATE: return r_i32(r, &v->v.i32);
    case FLOE_ICE_FLOAT: return r_bytes(r, &v->v.f32, 4);
    case FLOE_ICE_DOUBLE: return r_bytes(r, &v->v.f64, 8);
    case FLOE_ICE_DECIMAL: return r_bytes(r, &v->v.dec, 16);
    case FLOE_ICE_UUID: return r_bytes(r, v->v.uuid, 16);
    case FLOE_ICE_STRING:
    case FLOE_ICE_BINARY:
    case FLOE_ICE_FIXED: {
        int64_t n;
        FLOE_TRY(r_i64(r, &n));
        if (n < 0 || (uint64_t)n > r->len - r->off)
            return floe_error(FLOE_ERR_CORRUPT, "task group: bad value length at offset %zu", at);
        v->v.bytes.data = n ? floe_arena_memdup(r->a, r->p + r->off, (size_t)n) : (const uint8_t *)"";
        if (!v->v.bytes.data) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding a task group");
        v->v.bytes.len = (size_t)n;
        r->off += (size_t)n;
        return NULL;
    }
    default: return r_i64(r, &v->v.i64);
    }
}

static floe_status r_delete(rd *r, floe_ice_scan_delete *d) {
    int32_t x;
    FLOE_TRY(r_i32(r, &x));
    d->content = (floe_ice_content)x;
    FLOE_TRY(r_i32(r, &x));
    d->is_dv = x != 0;
    FLOE_TRY(r_str(r, &d->path));
    FLOE_TRY(r_str(r, &d->resolved_path));
    FLOE_TRY(r_str(r, &d->format));
    FLOE_TRY(r_i64(r, &d->record_count));
    FLOE_TRY(r_i64(r, &d->file_size_in_bytes));
    FLOE_TRY(r_i32(r, &d->spec_id));
    FLOE_TRY(r_i64(r, &d->sequence_number));
    FLOE_TRY(r_i64(r, &d->file_sequence_number));
    FLOE_TRY(r_count(r, &d->n_equality_ids, 4, "equality id"));
    int32_t *ids = floe_arena_alloc(r->a, (size_t)(d->n_equality_ids ? d->n_equality_ids : 1) * sizeof *ids);
    if (!ids) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding a task group");
    for (int32_t i = 0; i < d->n_equality_ids; i++) FLOE_TRY(r_i32(r, &ids[i]));
    d->equality_ids = d->n_equality_ids ? ids : NULL;
    FLOE_TRY(r_str(r, &d->referenced_data_file));
    FLOE_TRY(r_i64(r, &d->content_offset));
    FLOE_TRY(r_i64(r, &d->content_size_in_bytes));
    if (!d->path || !d->resolved_path) return floe_error(FLOE_ERR_CORRUPT, "task group: delete without a path");
    return NULL;
}

static floe_status r_task(rd *r, floe_ice_scan_group *g, floe_ice_scan_task *t) {
    int32_t x;
    FLOE_TRY(r_str(r, &t->path));
    FLOE_TRY(r_str(r, &t->resolved_path));
    FLOE_TRY(r_str(r, &t->format));
    if (!t->path || !t->resolved_path) return floe_error(FLOE_ERR_CORRUPT, "task group: task without a path");
    FLOE_TRY(r_i64(r, &t->record_count));
    FLOE_TRY(r_i64(r, &t->file_size_in_bytes));
    FLOE_TRY(r_i32(r, &t->spec_id));
    FLOE_TRY(r_count(r, &t->n_partition, 6, "partition value"));
    floe_ice_value *pv = floe_arena_calloc(r->a, (size_t)(t->n_partition ? t->n_partition : 1), sizeof *pv);
    if (!pv) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding a task group");
    for (int32_t i = 0; i < t->n_partition; i++) FLOE_TRY(r_value(r, &pv[i]));
    t->partition = pv;
    FLOE_TRY(r_i64(r, &t->sequence_number));
    FLOE_TRY(r_i64(r, &t->file_sequence_number));
    FLOE_TRY(r_i32(r, &x));
    t->has_first_row_id = x != 0;
    FLOE_TRY(r_i64(r, &t->first_row_id));
    FLOE_TRY(r_i64(r, &t->start));
    FLOE_TRY(r_i64(r, &t->length));
    FLOE_TRY(r_i32(r, &t->split_index));
    FLOE_TRY(r_i32(r, &t->n_splits));
    size_t at = r->off;
    const char *json;
    FLOE_TRY(r_str(r, &json));
    if (!json) return floe_error(FLOE_ERR_CORRUPT, "task group: task without a residual at offset %zu", at);
    floe_ice_expr *e = NULL;
    FLOE_TRY_CTX(floe_ice_expr_from_json_text(json, &e), "task group: residual at offset %zu", at);
    g->priv->exprs[g->priv->n_exprs++] = e;
    t->residual = e;
    FLOE_TRY(r_count(r, &t->n_deletes, 4, "task delete"));
    const floe_ice_scan_delete **dp = floe_arena_alloc(r->a, (size_t)(t->n_deletes ? t->n_deletes : 1) * sizeof *dp);
    if (!dp) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding a task group");
    for (int32_t i = 0; i < t->n_deletes; i++) {
        at = r->off;
        FLOE_TRY(r_i32(r, &x));
        if (x < 0 || x >= g->n_deletes)
            return floe_error(FLOE_ERR_CORRUPT, "task group: delete index %d out of range at offset %zu", (int)x, at);
        dp[i] = &g->deletes[x];
    }
    t->deletes = t->n_deletes ? dp : NULL;
    return NULL;
}

static floe_status decode(rd *r, floe_ice_scan_group *g) {
    char magic[4];
    uint32_t version;
    FLOE_TRY(r_bytes(r, magic, 4));
    if (memcmp(magic, SG_MAGIC, 4) != 0) return floe_error(FLOE_ERR_CORRUPT, "task group: bad magic at offset 0");
    FLOE_TRY(r_bytes(r, &version, 4));
    if (version != SG_VERSION)
        return floe_error(FLOE_ERR_UNSUPPORTED, "task group: version %u (this build reads %u)", version, SG_VERSION);
    FLOE_TRY(r_i32(r, &g->index));
    FLOE_TRY(r_i64(r, &g->weight));
    FLOE_TRY(r_i64(r, &g->bytes));
    FLOE_TRY(r_i64(r, &g->rows));
    FLOE_TRY(r_i32(r, &g->n_files));
    int32_t nd;
    FLOE_TRY(r_count(r, &nd, 8, "delete"));
    floe_ice_scan_delete *dels = floe_arena_calloc(r->a, (size_t)(nd ? nd : 1), sizeof *dels);
    if (!dels) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding a task group");
    g->deletes = dels;
    for (int32_t i = 0; i < nd; i++) {
        FLOE_TRY(r_delete(r, &dels[i]));
        g->n_deletes = i + 1;
    }
    int32_t nt;
    FLOE_TRY(r_count(r, &nt, 16, "task"));
    floe_ice_scan_task *tasks = floe_arena_calloc(r->a, (size_t)(nt ? nt : 1), sizeof *tasks);
    g->priv->exprs = floe_calloc((size_t)(nt ? nt : 1), sizeof *g->priv->exprs);
    if (!tasks || !g->priv->exprs) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding a task group");
    g->tasks = tasks;
    for (int32_t i = 0; i < nt; i++) {
        FLOE_TRY(r_task(r, g, &tasks[i]));
        g->n_tasks = i + 1;
    }
    if (r->off != r->len)
        return floe_error(FLOE_ERR_CORRUPT, "task group: %zu trailing bytes at offset %zu", r->len - r->off, r->off);
    return NULL;
}

floe_status floe_ice_scan_group_deserialize(const uint8_t *data, size_t len, floe_ice_scan_group **out) {
    *out = NULL;
    floe_ice_scan_group *g = floe_calloc(1, sizeof *g);
    if (!g) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding a task group");
    g->priv = floe_calloc(1, sizeof *g->priv);
    if (!g->priv) {
        floe_free(g);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding a task group");
    }
    floe_arena_init(&g->priv->arena, 0);
    rd r = {data, len, 0, &g->priv->arena};
    floe_status st = decode(&r, g);
    if (st) {
        floe_ice_scan_group_free(g);
        return st;
    }
    *out = g;
    return NULL;
}

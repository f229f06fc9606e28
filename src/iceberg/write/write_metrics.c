/*
 * write_metrics.c — a finished Parquet file's column metrics, as the
 * data_file record of Iceberg Java's Parquet writer carries them
 * (ParquetMetrics.metrics with MetricsConfig modes):
 *
 *   mode none      nothing for the column, not even its size;
 *   any other      column_sizes (compressed bytes, page headers included);
 *                  for a column not inside a list or map also value and
 *                  null counts, and NaN counts for float/double;
 *   truncate(N)    also bounds, strings cut to N code points and binary to
 *   / full         N bytes (full: uncut); the upper bound of a cut value is
 *                  incremented at its last position that can be, and
 *                  dropped when none can (UnicodeUtil/BinaryUtil).
 *
 * Columns inside lists and maps get only their size (Java's MetricsVisitor
 * returns no metrics for repeated fields).  Bounds use the spec's
 * single-value serialization (Appendix D): the Parquet writer's PLAIN
 * bounds already are that for every type but decimals, which are turned
 * from INT32/INT64 little-endian or FIXED big-endian into the fewest
 * big-endian two's complement bytes.
 *
 * Known difference: float/double bounds come from the Parquet writer,
 * which (as the Parquet spec asks) widens a zero minimum to -0.0 and a
 * zero maximum to +0.0; Java's FloatFieldMetrics keeps the zero's sign as
 * seen.  Both bound the data; floe's are never tighter.
 */
#include <string.h>

#include "base/arena.h"
#include "floe/memory.h"
#include "formats/parquet/parquet_meta.h"
#include "iceberg/write/data_writer_internal.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "data file metrics"); }

/* ---- truncation -------------------------------------------------------------- */

size_t floe_ice_truncate_lower(const uint8_t *v, size_t len, int32_t w, bool is_string) {
    if (w < 0) w = 0;
    if (!is_string) return len < (size_t)w ? len : (size_t)w;
    return floe_ice_utf8_prefix_len(v, len, w);
}

static uint32_t decode_cp(const uint8_t *p, size_t n) {
    switch (n) {
    case 1: return p[0];
    case 2: return ((uint32_t)(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
    case 3: return ((uint32_t)(p[0] & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
    default:
        return ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) | ((uint32_t)(p[2] & 0x3F) << 6) |
               (p[3] & 0x3F);
    }
}

static size_t encode_cp(uint32_t cp, uint8_t *o) {
    if (cp < 0x80) {
        o[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (uint8_t)(0xC0 | (cp >> 6));
        o[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (uint8_t)(0xE0 | (cp >> 12));
        o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (uint8_t)(0xF0 | (cp >> 18));
    o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

bool floe_ice_truncate_upper(const uint8_t *v, size_t len, int32_t w, bool is_string, uint8_t *out,
                             size_t *out_len) {
    size_t keep = floe_ice_truncate_lower(v, len, w, is_string);
    *out_len = 0;
    if (keep == len) { /* short enough: the value itself */
        if (len) memcpy(out, v, len);
        *out_len = len;
        return true;
    }
    if (!is_string) {
        /* Increment the last byte that does not overflow; drop the rest. */
        for (size_t i = keep; i-- > 0;) {
            if (v[i] != 0xFF) {
                memcpy(out, v, i);
                out[i] = (uint8_t)(v[i] + 1);
                *out_len = i + 1;
                return true;
            }
        }
        return false;
    }
    /* Strings: walk the kept prefix's code points from the end and
     * increment the last one that can be (not U+10FFFF; U+D7FF goes to
     * U+E000, skipping the surrogates), dropping what follows it. */
    size_t end = keep;
    while (end > 0) {
        size_t at = end - 1;
        while (at > 0 && (v[at] & 0xC0) == 0x80 && end - at < 4) at--;
        uint32_t cp = decode_cp(v + at, end - at);
        if (cp < 0x10FFFF) {
            uint32_t next = cp == 0xD7FF ? 0xE000 : cp + 1;
            memcpy(out, v, at);
            *out_len = at + encode_cp(next, out + at);
            return true;
        }
        end = at;
    }
    return false;
}

/* ---- decimals ------------------------------------------------------------------- */

/* A decimal bound from the Parquet writer to Appendix D bytes. */
static floe_status decimal_bound(const floe_pq_column_result *c, const uint8_t *b, size_t len, int32_t scale,
                                 uint8_t **out, size_t *out_len) {
    floe_int128 v = 0;
    if (c->physical_type == FLOE_PQ_INT32 && len == 4) {
        int32_t x;
        memcpy(&x, b, 4);
        v = x;
    } else if (c->physical_type == FLOE_PQ_INT64 && len == 8) {
        int64_t x;
        memcpy(&x, b, 8);
        v = x;
    } else if ((c->physical_type == FLOE_PQ_FIXED_LEN_BYTE_ARRAY || c->physical_type == FLOE_PQ_BYTE_ARRAY) &&
               len >= 1 && len <= 16) {
        v = (int8_t)b[0]; /* sign from the first byte */
        for (size_t i = 1; i < len; i++) v = (floe_int128)(((unsigned __int128)v << 8) | b[i]);
    } else {
        return floe_error(FLOE_ERR_INTERNAL, "decimal bound of column '%s': %zu bytes of physical type %d",
                          c->path, len, c->physical_type);
    }
    floe_ice_value dv = floe_ice_decimal(v, scale);
    return floe_ice_value_to_bytes(&dv, out, out_len);
}

/* ---- the maps -------------------------------------------------------------------- */

typedef struct maps {
    floe_ice_count_map sizes, values, nulls, nans;
    floe_ice_bound_map lower, upper;
} maps;

static void count_put(floe_ice_count_map *m, int32_t id, int64_t v) {
    for (int32_t i = 0; i < m->n; i++)
        if (m->keys[i] == id) {
            m->values[i] += v;
            return;
        }
    m->keys[m->n] = id;
    m->values[m->n++] = v;
}

static floe_status alloc_counts(floe_arena *a, floe_ice_count_map *m, int32_t n) {
    m->n = 0;
    m->keys = floe_arena_calloc(a, (size_t)n + 1, sizeof *m->keys);
    m->values = floe_arena_calloc(a, (size_t)n + 1, sizeof *m->values);
    return m->keys && m->values ? NULL : oom();
}

static floe_status alloc_bounds(floe_arena *a, floe_ice_bound_map *m, int32_t n) {
    m->n = 0;
    m->keys = floe_arena_calloc(a, (size_t)n + 1, sizeof *m->keys);
    m->values = floe_arena_calloc(a, (size_t)n + 1, sizeof *m->values);
    m->lens = floe_arena_calloc(a, (size_t)n + 1, sizeof *m->lens);
    return m->keys && m->values && m->lens ? NULL : oom();
}

static floe_status bound_put(floe_arena *a, floe_ice_bound_map *m, int32_t id, const uint8_t *b, size_t len) {
    uint8_t *copy = floe_arena_memdup(a, len ? b : (const uint8_t *)"", len ? len : 1);
    if (!copy) return oom();
    m->keys[m->n] = id;
    m->values[m->n] = copy;
    m->lens[m->n++] = (uint32_t)len;
    return NULL;
}

/* Lower and upper bound of one column per its mode. */
static floe_status column_bounds(floe_arena *a, maps *mp, const floe_pq_column_result *c, const floe_ice_type *t,
                                 floe_ice_metrics_mode mode) {
    int32_t id = c->field_id;
    if (t->id == FLOE_ICE_DECIMAL) {
        uint8_t *lo = NULL, *hi = NULL;
        size_t ll = 0, hl = 0;
        floe_status st = decimal_bound(c, c->min, c->min_len, t->scale, &lo, &ll);
        if (!st) st = decimal_bound(c, c->max, c->max_len, t->scale, &hi, &hl);
        if (!st) st = bound_put(a, &mp->lower, id, lo, ll);
        if (!st) st = bound_put(a, &mp->upper, id, hi, hl);
        floe_free(lo);
        floe_free(hi);
        return st;
    }
    if ((t->id == FLOE_ICE_STRING || t->id == FLOE_ICE_BINARY) && mode.kind == FLOE_ICE_METRICS_TRUNCATE) {
        bool is_string = t->id == FLOE_ICE_STRING;
        size_t ll = floe_ice_truncate_lower(c->min, c->min_len, mode.length, is_string);
        FLOE_TRY(bound_put(a, &mp->lower, id, c->min, ll));
        uint8_t *up = floe_malloc(c->max_len + 8);
        if (!up) return oom();
        size_t ul = 0;
        floe_status st = NULL;
        if (floe_ice_truncate_upper(c->max, c->max_len, mode.length, is_string, up, &ul))
            st = bound_put(a, &mp->upper, id, up, ul);
        floe_free(up);
        return st;
    }
    FLOE_TRY(bound_put(a, &mp->lower, id, c->min, c->min_len));
    return bound_put(a, &mp->upper, id, c->max, c->max_len);
}

floe_status floe_ice_metrics_from_parquet(const floe_ice_write_settings *s, const floe_ice_schema *schema,
                                          const floe_pq_write_result *r, floe_arena *a, floe_ice_data_file *f) {
    maps mp;
    int32_t n = r->n_columns;
    FLOE_TRY(alloc_counts(a, &mp.sizes, n));
    FLOE_TRY(alloc_counts(a, &mp.values, n));
    FLOE_TRY(alloc_counts(a, &mp.nulls, n));
    FLOE_TRY(alloc_counts(a, &mp.nans, n));
    FLOE_TRY(alloc_bounds(a, &mp.lower, n));
    FLOE_TRY(alloc_bounds(a, &mp.upper, n));
    for (int32_t i = 0; i < n; i++) {
        const floe_pq_column_result *c = &r->columns[i];
        if (c->field_id < 0) continue;
        const floe_ice_field *fld = floe_ice_schema_find_field(schema, c->field_id);
        if (!fld) continue;
        floe_ice_metrics_mode mode = floe_ice_write_settings_mode(s, c->field_id);
        if (mode.kind == FLOE_ICE_METRICS_NONE) continue;
        count_put(&mp.sizes, c->field_id, c->compressed_size);
        if (c->repeated) continue;
        count_put(&mp.values, c->field_id, c->value_count);
        count_put(&mp.nulls, c->field_id, c->null_count);
        const floe_ice_type *t = fld->type;
        if (t->id == FLOE_ICE_FLOAT || t->id == FLOE_ICE_DOUBLE) count_put(&mp.nans, c->field_id, c->nan_count);
        if (mode.kind == FLOE_ICE_METRICS_COUNTS || !c->has_bounds) continue;
        if (t->id == FLOE_ICE_UNKNOWN || floe_ice_type_is_nested(t)) continue;
        FLOE_TRY(column_bounds(a, &mp, c, t, mode));
    }
    f->column_sizes = mp.sizes;
    f->value_counts = mp.values;
    f->null_value_counts = mp.nulls;
    f->nan_value_counts = mp.nans;
    f->lower_bounds = mp.lower;
    f->upper_bounds = mp.upper;
    return NULL;
}

/*
 * write_settings.c — a write target's table properties resolved once into
 * an immutable floe_ice_write_settings: rolling size, distribution and
 * fanout, file layout, Parquet options, Bloom filter columns and the
 * metrics mode of every field.
 *
 * Property names and defaults are Iceberg Java's (TableProperties,
 * Parquet.Context, MetricsConfig).  Where Java silently falls back on a
 * value that does not parse (an invalid metrics mode is logged and
 * ignored there), floe refuses it with FLOE_ERR_INVALID_ARGUMENT naming
 * the property and value, as iceberg_data_writer.h promises.  Column names
 * in metrics and Bloom filter properties that the schema lacks are ignored,
 * as Java does when it writes (MetricsConfig.forTable only maps the names
 * it finds; Parquet's setBloomFilterConfig skips missing fields).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buffer.h"
#include "floe/iceberg_sort_order.h"
#include "floe/iceberg_task_reader.h"
#include "floe/memory.h"
#include "iceberg/write/data_writer_internal.h"

#define METRICS_COLUMN_PREFIX "write.metadata.metrics.column."
#define BLOOM_COLUMN_PREFIX "write.parquet.bloom-filter-enabled.column."

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "write settings"); }

static floe_status bad(const char *key, const char *value, const char *why) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "table property '%s' = '%s': %s", key, value, why);
}

/* The value of `key` (the last one if repeated), or NULL. */
static const char *prop(const floe_ice_write_target *t, const char *key) {
    const char *v = NULL;
    for (int32_t i = 0; i < t->n_properties; i++)
        if (t->properties[2 * i] && strcmp(t->properties[2 * i], key) == 0) v = t->properties[2 * i + 1];
    return v;
}

static floe_status prop_long(const floe_ice_write_target *t, const char *key, int64_t def, int64_t min,
                             int64_t max, int64_t *out) {
    const char *v = prop(t, key);
    *out = def;
    if (!v) return NULL;
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno) return bad(key, v, "not an integer");
    if (x < min || x > max) {
        char why[96];
        snprintf(why, sizeof why, "must be between %lld and %lld", (long long)min, (long long)max);
        return bad(key, v, why);
    }
    *out = x;
    return NULL;
}

static floe_status parse_bool(const char *key, const char *v, bool *out) {
    if (strcasecmp(v, "true") == 0) *out = true;
    else if (strcasecmp(v, "false") == 0) *out = false;
    else return bad(key, v, "must be true or false");
    return NULL;
}

static floe_status prop_bool(const floe_ice_write_target *t, const char *key, bool def, bool *out) {
    const char *v = prop(t, key);
    *out = def;
    return v ? parse_bool(key, v, out) : NULL;
}

bool floe_ice_metrics_mode_parse(const char *text, floe_ice_metrics_mode *out) {
    if (strcasecmp(text, "none") == 0) *out = (floe_ice_metrics_mode){FLOE_ICE_METRICS_NONE, 0};
    else if (strcasecmp(text, "counts") == 0) *out = (floe_ice_metrics_mode){FLOE_ICE_METRICS_COUNTS, 0};
    else if (strcasecmp(text, "full") == 0) *out = (floe_ice_metrics_mode){FLOE_ICE_METRICS_FULL, 0};
    else {
        /* Java: truncate\((\d+)\) on the lower-cased text, length > 0. */
        if (strncasecmp(text, "truncate(", 9) != 0) return false;
        const char *p = text + 9;
        int64_t n = 0;
        if (*p < '0' || *p > '9') return false;
        for (; *p >= '0' && *p <= '9'; p++) {
            n = n * 10 + (*p - '0');
            if (n > INT32_MAX) return false;
        }
        if (p[0] != ')' || p[1] || n <= 0) return false;
        *out = (floe_ice_metrics_mode){FLOE_ICE_METRICS_TRUNCATE, (int32_t)n};
    }
    return true;
}

/* ---- Parquet codec -------------------------------------------------------- */

static floe_status parse_codec(const char *key, const char *v, floe_codec *out) {
    static const struct {
        const char *name;
        floe_codec codec;
    } names[] = {
        {"zstd", FLOE_CODEC_ZSTD},          {"snappy", FLOE_CODEC_SNAPPY}, {"gzip", FLOE_CODEC_GZIP},
        {"lz4", FLOE_CODEC_LZ4_RAW},        {"lz4_raw", FLOE_CODEC_LZ4_RAW}, {"brotli", FLOE_CODEC_BROTLI},
        {"uncompressed", FLOE_CODEC_NONE}, {"none", FLOE_CODEC_NONE},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(v, names[i].name) == 0) {
            *out = names[i].codec;
            return NULL;
        }
    if (strcasecmp(v, "lzo") == 0)
        return floe_error(FLOE_ERR_UNSUPPORTED, "table property '%s' = '%s': floe cannot write LZO", key, v);
    return bad(key, v, "unknown compression codec (zstd, snappy, gzip, lz4, lz4_raw, brotli, uncompressed)");
}

/* ---- metrics modes ---------------------------------------------------------- */

/* Every field id of `t` (at any depth), appended to ids. */
static floe_status collect_ids(const floe_ice_type *t, int32_t **ids, int32_t *n, int32_t *cap) {
    for (int32_t i = 0; i < t->n_fields; i++) {
        if (*n == *cap) {
            int32_t nc = *cap ? *cap * 2 : 32;
            int32_t *g = floe_realloc(*ids, (size_t)nc * sizeof *g);
            if (!g) return oom();
            *ids = g;
            *cap = nc;
        }
        (*ids)[(*n)++] = t->fields[i].id;
        FLOE_TRY(collect_ids(t->fields[i].type, ids, n, cap));
    }
    return NULL;
}

/* The number of ids Java's TypeUtil.getProjectedIds counts: primitive
 * struct fields, plus a list's element / a map's key and value when the
 * element (value) is not itself nested.  (A map with a nested value does
 * not count its key: Java's quirk, kept so the limit triggers alike.) */
static int64_t projected_id_count(const floe_ice_type *t) {
    int64_t n = 0;
    switch (t->id) {
    case FLOE_ICE_STRUCT:
        for (int32_t i = 0; i < t->n_fields; i++) {
            const floe_ice_type *ft = t->fields[i].type;
            if (floe_ice_type_is_primitive(ft)) n++;
            else n += projected_id_count(ft);
        }
        return n;
    case FLOE_ICE_LIST:
        if (floe_ice_type_is_primitive(t->fields[0].type)) return 1;
        return projected_id_count(t->fields[0].type);
    case FLOE_ICE_MAP:
        if (floe_ice_type_is_primitive(t->fields[1].type)) return 2 + projected_id_count(t->fields[0].type);
        return projected_id_count(t->fields[0].type) + projected_id_count(t->fields[1].type);
    default:
        return 0;
    }
}

typedef struct limit_ctx {
    int32_t limit;
    int32_t n;
    int32_t *ids;
} limit_ctx;

static void limit_add(limit_ctx *c, int32_t id) {
    for (int32_t i = 0; i < c->n; i++)
        if (c->ids[i] == id) return;
    c->ids[c->n++] = id;
}

/* Java's MetricsConfig.limitFieldIds: breadth first within each struct
 * (a struct's primitive fields before its nested ones' children), lists'
 * elements and maps' keys/values when primitive, up to `limit` ids. */
static void limit_visit(limit_ctx *c, const floe_ice_type *t) {
    switch (t->id) {
    case FLOE_ICE_STRUCT:
        for (int32_t i = 0; i < t->n_fields && c->n < c->limit; i++)
            if (floe_ice_type_is_primitive(t->fields[i].type)) limit_add(c, t->fields[i].id);
        for (int32_t i = 0; i < t->n_fields && c->n < c->limit; i++) limit_visit(c, t->fields[i].type);
        break;
    case FLOE_ICE_LIST:
        if (c->n < c->limit && floe_ice_type_is_primitive(t->fields[0].type)) limit_add(c, t->fields[0].id);
        limit_visit(c, t->fields[0].type);
        break;
    case FLOE_ICE_MAP:
        if (c->n < c->limit && floe_ice_type_is_primitive(t->fields[0].type)) limit_add(c, t->fields[0].id);
        if (c->n < c->limit && floe_ice_type_is_primitive(t->fields[1].type)) limit_add(c, t->fields[1].id);
        limit_visit(c, t->fields[0].type);
        limit_visit(c, t->fields[1].type);
        break;
    default:
        break;
    }
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int32_t find_mode_slot(const floe_ice_write_settings *s, int32_t id) {
    int32_t lo = 0, hi = s->n_modes - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (s->mode_ids[mid] == id) return mid;
        if (s->mode_ids[mid] < id) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

floe_ice_metrics_mode floe_ice_write_settings_mode(const floe_ice_write_settings *s, int32_t id) {
    int32_t i = find_mode_slot(s, id);
    return i < 0 ? (floe_ice_metrics_mode){FLOE_ICE_METRICS_NONE, 0} : s->modes[i];
}

static void set_mode(floe_ice_write_settings *s, int32_t id, floe_ice_metrics_mode m) {
    int32_t i = find_mode_slot(s, id);
    if (i >= 0) s->modes[i] = m;
}

/* MetricsConfig.from(props, schema, sortOrder), resolved per field id. */
static floe_status resolve_metrics(floe_ice_write_settings *s, const floe_ice_write_target *t) {
    const floe_ice_schema *schema = t->schema;
    int32_t cap = 0;
    FLOE_TRY(collect_ids(schema->root, &s->mode_ids, &s->n_modes, &cap));
    if (s->n_modes) qsort(s->mode_ids, (size_t)s->n_modes, sizeof *s->mode_ids, cmp_i32);
    s->modes = floe_calloc((size_t)s->n_modes + 1, sizeof *s->modes);
    if (!s->modes) return oom();

    const floe_ice_metrics_mode trunc16 = {FLOE_ICE_METRICS_TRUNCATE, 16};
    int64_t max_inferred;
    FLOE_TRY(prop_long(t, "write.metadata.metrics.max-inferred-column-defaults", 100, INT32_MIN, INT32_MAX,
                       &max_inferred));
    if (max_inferred < 0) max_inferred = 100; /* Java logs and falls back */

    floe_ice_metrics_mode def;
    const char *key = "write.metadata.metrics.default";
    const char *dv = prop(t, key);
    if (dv) {
        if (!floe_ice_metrics_mode_parse(dv, &def)) return bad(key, dv, "not a metrics mode (none, counts, truncate(N), full)");
        for (int32_t i = 0; i < s->n_modes; i++) s->modes[i] = def;
    } else if (projected_id_count(schema->root) <= max_inferred) {
        def = trunc16;
        for (int32_t i = 0; i < s->n_modes; i++) s->modes[i] = def;
    } else {
        /* Wide table: only the first max_inferred columns get the default. */
        def = (floe_ice_metrics_mode){FLOE_ICE_METRICS_NONE, 0};
        limit_ctx lc = {(int32_t)max_inferred, 0, floe_calloc((size_t)max_inferred + 1, sizeof(int32_t))};
        if (!lc.ids) return oom();
        limit_visit(&lc, schema->root);
        for (int32_t i = 0; i < lc.n; i++) set_mode(s, lc.ids[i], trunc16);
        floe_free(lc.ids);
    }

    /* Sorted columns: at least truncate(16). */
    if (t->sort_order) {
        floe_ice_metrics_mode sm =
            (def.kind == FLOE_ICE_METRICS_NONE || def.kind == FLOE_ICE_METRICS_COUNTS) ? trunc16 : def;
        for (int32_t i = 0; i < t->sort_order->n_fields; i++) {
            const floe_ice_sort_field *sf = &t->sort_order->fields[i];
            if (floe_ice_transform_preserves_order(&sf->transform)) set_mode(s, sf->source_id, sm);
        }
    }

    /* Per-column overrides (names the schema lacks are ignored). */
    size_t plen = strlen(METRICS_COLUMN_PREFIX);
    for (int32_t i = 0; i < t->n_properties; i++) {
        const char *k = t->properties[2 * i], *v = t->properties[2 * i + 1];
        if (!k || strncmp(k, METRICS_COLUMN_PREFIX, plen) != 0) continue;
        floe_ice_metrics_mode m;
        if (!v || !floe_ice_metrics_mode_parse(v, &m))
            return bad(k, v ? v : "", "not a metrics mode (none, counts, truncate(N), full)");
        const floe_ice_field *f = floe_ice_schema_find_by_name(schema, k + plen, true);
        if (f) set_mode(s, f->id, m);
    }
    return NULL;
}

/* ---- Bloom filters ------------------------------------------------------------- */

static floe_status resolve_bloom(floe_ice_write_settings *s, const floe_ice_write_target *t) {
    size_t plen = strlen(BLOOM_COLUMN_PREFIX);
    s->bloom_ids = floe_calloc((size_t)t->n_properties + 1, sizeof *s->bloom_ids);
    if (!s->bloom_ids) return oom();
    for (int32_t i = 0; i < t->n_properties; i++) {
        const char *k = t->properties[2 * i], *v = t->properties[2 * i + 1];
        if (!k || strncmp(k, BLOOM_COLUMN_PREFIX, plen) != 0) continue;
        bool on;
        FLOE_TRY(parse_bool(k, v ? v : "", &on));
        const floe_ice_field *f = floe_ice_schema_find_by_name(t->schema, k + plen, true);
        if (!f || !floe_ice_type_is_primitive(f->type)) continue; /* Java: skipped */
        int32_t j = 0;
        while (j < s->n_bloom && s->bloom_ids[j] != f->id) j++;
        if (on && j == s->n_bloom) s->bloom_ids[s->n_bloom++] = f->id;
        if (!on && j < s->n_bloom) s->bloom_ids[j] = s->bloom_ids[--s->n_bloom];
    }
    return NULL;
}

/* ---- locations ------------------------------------------------------------------- */

static char *strip_slash_dup(const char *p) {
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/') n--;
    char *r = floe_malloc(n + 1);
    if (!r) return NULL;
    memcpy(r, p, n);
    r[n] = 0;
    return r;
}

/* Java's pathContext: "<parent name>/<name>" of the table location. */
static char *path_context(const char *loc) {
    size_t n = strlen(loc);
    const char *slash = memrchr(loc, '/', n);
    const char *name = slash ? slash + 1 : loc;
    if (!slash || slash == loc) return floe_strdup(name);
    const char *pslash = memrchr(loc, '/', (size_t)(slash - loc));
    const char *pname = pslash ? pslash + 1 : loc;
    size_t pl = (size_t)(slash - pname);
    /* "s3://bucket/t": the parent is the bucket ("s3:" has no name after "//"). */
    if (pl == 0) return floe_strdup(name);
    floe_buf b = FLOE_BUF_INIT;
    if (floe_buf_append(&b, pname, pl) || floe_buf_append_byte(&b, '/') || floe_buf_append_str(&b, name)) {
        floe_buf_free(&b);
        return NULL;
    }
    return (char *)floe_buf_detach(&b, NULL);
}

static floe_status resolve_layout(floe_ice_write_settings *s, const floe_ice_write_target *t) {
    static const char *const deprecated[] = {"write.object-storage.path", "write.folder-storage.path"};
    for (size_t i = 0; i < 2; i++) {
        const char *v = prop(t, deprecated[i]);
        if (v) return bad(deprecated[i], v, "deprecated: use 'write.data.path' instead");
    }
    if (!t->location || !*t->location)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "write target has no table location");
    s->table_location = strip_slash_dup(t->location);
    if (!s->table_location) return oom();
    const char *dp = prop(t, "write.data.path");
    if (dp && !*dp) return bad("write.data.path", dp, "empty path");
    if (dp) {
        s->data_path = strip_slash_dup(dp);
    } else {
        floe_buf b = FLOE_BUF_INIT;
        if (floe_buf_printf(&b, "%s/data", s->table_location)) {
            floe_buf_free(&b);
            return oom();
        }
        s->data_path = (char *)floe_buf_detach(&b, NULL);
    }
    if (!s->data_path) return oom();
    FLOE_TRY(prop_bool(t, "write.object-storage.enabled", false, &s->object_storage));
    FLOE_TRY(prop_bool(t, "write.object-storage.partitioned-paths", true, &s->partitioned_paths));
    /* Java: a storage location inside the table needs no table context. */
    if (s->object_storage && strncmp(s->data_path, s->table_location, strlen(s->table_location)) != 0) {
        s->object_context = path_context(s->table_location);
        if (!s->object_context) return oom();
    }
    return NULL;
}

/* ---- the whole -------------------------------------------------------------------- */

static floe_status resolve_general(floe_ice_write_settings *s, const floe_ice_write_target *t) {
    const char *key = "write.format.default";
    const char *v = prop(t, key);
    if (v && strcasecmp(v, "parquet") != 0) {
        if (strcasecmp(v, "avro") == 0 || strcasecmp(v, "orc") == 0)
            return floe_error(FLOE_ERR_UNSUPPORTED, "table property '%s' = '%s': floe writes only Parquet data files",
                              key, v);
        return bad(key, v, "unknown file format (parquet, avro, orc)");
    }
    FLOE_TRY(prop_long(t, "write.target-file-size-bytes", 536870912LL, 1, INT64_MAX, &s->target_file_size));
    FLOE_TRY(prop_bool(t, "write.fanout.enabled", true, &s->fanout));
    key = "write.distribution-mode";
    v = prop(t, key);
    s->distribution = FLOE_ICE_DIST_HASH;
    if (v) {
        if (strcasecmp(v, "none") == 0) s->distribution = FLOE_ICE_DIST_NONE;
        else if (strcasecmp(v, "hash") == 0) s->distribution = FLOE_ICE_DIST_HASH;
        else if (strcasecmp(v, "range") == 0) s->distribution = FLOE_ICE_DIST_RANGE;
        else return bad(key, v, "must be none, hash or range");
    }
    return NULL;
}

static floe_status resolve_parquet(floe_ice_write_settings *s, const floe_ice_write_target *t) {
    const char *key = "write.parquet.compression-codec";
    const char *v = prop(t, key);
    s->codec = FLOE_CODEC_ZSTD;
    if (v) FLOE_TRY(parse_codec(key, v, &s->codec));
    int64_t x;
    FLOE_TRY(prop_long(t, "write.parquet.compression-level", 0, INT32_MIN, INT32_MAX, &x));
    s->level = (int)x;
    FLOE_TRY(prop_long(t, "write.parquet.row-group-size-bytes", 134217728, 1, INT32_MAX, &s->row_group_bytes));
    FLOE_TRY(prop_long(t, "write.parquet.page-size-bytes", 1048576, 1, INT32_MAX, &s->page_bytes));
    FLOE_TRY(prop_long(t, "write.parquet.page-row-limit", 20000, 1, INT32_MAX, &s->page_rows));
    FLOE_TRY(prop_long(t, "write.parquet.dict-size-bytes", 2097152, 1, INT32_MAX, &s->dict_bytes));
    FLOE_TRY(prop_long(t, "write.parquet.bloom-filter-max-bytes", 1048576, 1, INT32_MAX, &s->bloom_max_bytes));
    key = "write.parquet.page-version";
    v = prop(t, key);
    if (v && strcasecmp(v, "v1") != 0 && strcasecmp(v, "v2") != 0) return bad(key, v, "must be v1 or v2");
    s->data_page_v2 = v && strcasecmp(v, "v2") == 0;
    FLOE_TRY(prop_bool(t, "parquet.enable.dictionary", true, &s->dictionary));
    return floe_ice_schema_to_json_text(t->schema, &s->schema_json);
}

static floe_status resolve_records(floe_ice_write_settings *s, const floe_ice_write_target *t) {
    s->format_version = t->format_version;
    s->sort_order_id = t->sort_order_id;
    if (t->format_version < 1 || t->format_version > 3)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "write target: format version %d", t->format_version);
    FLOE_TRY(floe_ice_schema_copy(t->schema, &s->schema));
    if (t->spec) FLOE_TRY(floe_ice_partition_spec_copy(t->spec, &s->spec));
    else FLOE_TRY(floe_ice_partition_spec_new(0, &s->spec));
    s->spec_id = s->spec->spec_id;
    s->unpartitioned = floe_ice_partition_spec_is_unpartitioned(s->spec);
    FLOE_TRY(floe_ice_partition_spec_partition_type(s->spec, s->schema, false, &s->partition_type));
    FLOE_TRY(floe_ice_data_file_codec_new(s->partition_type, t->format_version, &s->df_codec));
    return floe_ice_write_schema(s->schema, &s->write_schema);
}

floe_status floe_ice_write_settings_new(const floe_ice_write_target *t, floe_ice_write_settings **out) {
    *out = NULL;
    if (!t || !t->schema) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "write target has no schema");
    floe_ice_write_settings *s = floe_calloc(1, sizeof *s);
    if (!s) return oom();
    floe_status st = resolve_general(s, t);
    if (!st) st = resolve_layout(s, t);
    if (!st) st = resolve_parquet(s, t);
    if (!st) st = resolve_bloom(s, t);
    if (!st) st = resolve_metrics(s, t);
    if (!st) st = resolve_records(s, t);
    if (st) {
        floe_ice_write_settings_free(s);
        return st;
    }
    *out = s;
    return NULL;
}

void floe_ice_write_settings_free(floe_ice_write_settings *s) {
    if (!s) return;
    floe_free(s->table_location);
    floe_free(s->data_path);
    floe_free(s->object_context);
    floe_free(s->bloom_ids);
    floe_free(s->schema_json);
    floe_free(s->mode_ids);
    floe_free(s->modes);
    floe_ice_schema_free(s->schema);
    floe_ice_partition_spec_free(s->spec);
    floe_ice_type_free(s->partition_type);
    floe_ice_data_file_codec_free(s->df_codec);
    floe_type_release(s->write_schema);
    floe_free(s);
}

int64_t floe_ice_write_settings_target_file_size(const floe_ice_write_settings *s) { return s->target_file_size; }
bool floe_ice_write_settings_fanout(const floe_ice_write_settings *s) { return s->fanout; }
floe_ice_distribution_mode floe_ice_write_settings_distribution(const floe_ice_write_settings *s) {
    return s->distribution;
}

floe_status floe_ice_write_schema(const floe_ice_schema *schema, floe_schema **out) {
    *out = NULL;
    FLOE_TRY(floe_ice_type_check_supported(schema->root, "table schema"));
    return floe_ice_schema_to_columnar(schema, NULL, 0, out);
}

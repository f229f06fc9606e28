/*
 * proc_add_files.c — add_files(table, source_table, partition_filter,
 * check_duplicate_files, parallelism): Spark's AddFilesProcedure for a
 * folder of Parquet files, source_table => '`parquet`.`/path/to/dir`'.
 *
 * Every file below the folder (not those whose name, or a folder's on the
 * way, starts with '_' or '.': _SUCCESS, .crc) is registered as a data
 * file of the table in one append; nothing is copied or rewritten, so
 * the files now belong to the table (expiry and orphan removal may delete
 * them later, as with any data file).
 *
 *   - Partitions come from Hive-style folders, k=v/… (percent-escapes
 *     decoded, __HIVE_DEFAULT_PARTITION__ null); the table's partition
 *     spec must be identity on columns named like them (Spark's rule),
 *     and an unpartitioned table takes no such folders.  partition_filter
 *     => map('k', 'v', …) adds only the files of matching folders.
 *   - The files' columns are matched to the table's by their Parquet field
 *     ids or, without them, by name: the table then gets a
 *     schema.name-mapping.default made from its schema, if it has none
 *     (committed first, as Spark's add_files does), so readers map them.
 *   - Metrics from each footer, for top-level primitive columns: sizes,
 *     value and null counts, and bounds where the Parquet statistics are
 *     exact in Iceberg's form (int, long, date, microsecond timestamps,
 *     strings, from min_value / max_value); other columns carry none,
 *     which readers take as "may hold anything".
 *   - check_duplicate_files (default true): a file the table already has
 *     live is an error, with Spark's message.
 *
 * Result (Spark's): added_files_count, changed_partition_count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/arena.h"
#include "base/buffer.h"
#include "base/hashmap.h"
#include "floe/catalog.h"
#include "floe/fileio.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "formats/parquet/file.h"
#include "sql/procedures/proc_add_files.h"
#include "sql/procedures/procedure.h"
#include "sql/session_internal.h"

#define NAME_CAP 256
#define HIVE_NULL "__HIVE_DEFAULT_PARTITION__"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "add_files: out of memory"); }

/* ------------------------------------------------------------- the source */

/* '`parquet`.`/dir`' (or parquet.`/dir`): the format and the folder. */
static floe_status parse_source(const floe_proc_call *call, const floe_proc_arg *a, char *fmt, size_t fmt_cap,
                                char **dir) {
    const char *s = a->str, *dot = NULL;
    bool quoted = *s == '`';
    const char *f0 = quoted ? s + 1 : s;
    const char *f1 = quoted ? strchr(f0, '`') : strchr(f0, '.');
    if (f1) dot = quoted ? f1 + 1 : f1;
    if (!f1 || !dot || *dot != '.' || dot[1] != '`' || (size_t)(f1 - f0) >= fmt_cap || strlen(dot + 2) < 2 ||
        dot[strlen(dot) - 1] != '`')
        return floe_proc_error(call, a, FLOE_ERR_INVALID_ARGUMENT,
                               "source_table must name a folder of files as `format`.`path` (e.g. "
                               "'`parquet`.`/data/events`'); a catalog table as the source is not supported");
    snprintf(fmt, fmt_cap, "%.*s", (int)(f1 - f0), f0);
    for (char *c = fmt; *c; c++)
        if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
    *dir = floe_strndup(dot + 2, strlen(dot + 2) - 1);
    return *dir ? NULL : oom();
}

typedef struct listed {
    char *location;
    uint64_t size;
} listed;

typedef struct listing {
    const char *root; /* with its trailing '/' */
    listed *files;
    size_t n, cap;
} listing;

/* Hidden: a name below the root that starts with '_' or '.'. */
static bool hidden(const char *rel) {
    for (const char *p = rel; *p;) {
        if (*p == '_' || *p == '.') return true;
        const char *slash = strchr(p, '/');
        if (!slash) break;
        p = slash + 1;
    }
    return false;
}

static floe_status on_file(void *ctx, const floe_file_info *info) {
    listing *l = ctx;
    const char *rel = info->location + strlen(l->root);
    if (strncmp(info->location, l->root, strlen(l->root)) != 0 || hidden(rel)) return NULL;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        listed *g = floe_realloc(l->files, cap * sizeof *g);
        if (!g) return oom();
        l->files = g;
        l->cap = cap;
    }
    l->files[l->n].location = floe_strdup(info->location);
    l->files[l->n].size = info->size;
    if (!l->files[l->n].location) return oom();
    l->n++;
    return NULL;
}

static int by_location(const void *a, const void *b) {
    return strcmp(((const listed *)a)->location, ((const listed *)b)->location);
}

/* ------------------------------------------------------------ partitions */

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Hive's escaping of partition values: %XX. */
static char *unescape(floe_arena *a, const char *s, size_t n) {
    char *out = floe_arena_alloc(a, n + 1);
    if (!out) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            out[k++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
            i += 2;
        } else {
            out[k++] = s[i];
        }
    }
    out[k] = 0;
    return out;
}

/* The k=v folders of `rel` (the path below the root): keys[i] = vals[i]. */
typedef struct hive_dirs {
    int32_t n;
    const char *keys[32], *vals[32];
} hive_dirs;

/* Folders that are not k=v are refused unless plain_ok (an unpartitioned
 * table takes files anywhere below the root). */
static floe_status parse_dirs(floe_arena *a, const char *location, const char *rel, bool plain_ok, hive_dirs *d) {
    d->n = 0;
    for (const char *p = rel;;) {
        const char *slash = strchr(p, '/');
        if (!slash) return NULL; /* the file name */
        const char *eq = memchr(p, '=', (size_t)(slash - p));
        if (!eq && plain_ok) {
            p = slash + 1;
            continue;
        }
        if (!eq || eq == p)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "add_files: '%s' is in a folder that is not a partition (key=value): '%.*s'", location,
                              (int)(slash - p), p);
        if (d->n == 32) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "add_files: '%s': too many partition folders", location);
        d->keys[d->n] = unescape(a, p, (size_t)(eq - p));
        d->vals[d->n] = unescape(a, eq + 1, (size_t)(slash - eq - 1));
        if (!d->keys[d->n] || !d->vals[d->n]) return oom();
        d->n++;
        p = slash + 1;
    }
}

static const char *dir_value(const hive_dirs *d, const char *key) {
    for (int32_t i = 0; i < d->n; i++)
        if (strcmp(d->keys[i], key) == 0) return d->vals[i];
    return NULL;
}

/* ---------------------------------------------------------------- metrics */

/* Bounds of one column across the row groups, kept while every row group
 * has exact-form statistics. */
typedef struct col_acc {
    int32_t field_id;
    floe_ice_type_id type;
    bool bounds_ok, nulls_ok;
    int64_t size, values, nulls;
    const uint8_t *lo, *hi;
    uint32_t lo_len, hi_len;
} col_acc;

/* Can the Parquet statistics of this column be Iceberg bounds as they
 * are (the same bytes: little-endian ints, UTF-8 strings)? */
static bool bounds_usable(const floe_pq_schema_element *e, floe_ice_type_id t) {
    const floe_pq_logical_type *lt = &e->logical;
    switch (t) {
    case FLOE_ICE_INT:
        return e->type == FLOE_PQ_INT32 && (lt->kind == FLOE_PQ_LT_NONE || (lt->kind == FLOE_PQ_LT_INTEGER && lt->is_signed)) &&
               (e->converted_type == FLOE_PQ_CT_NONE || e->converted_type == FLOE_PQ_CT_INT_32);
    case FLOE_ICE_LONG:
        return e->type == FLOE_PQ_INT64 && (lt->kind == FLOE_PQ_LT_NONE || (lt->kind == FLOE_PQ_LT_INTEGER && lt->is_signed)) &&
               (e->converted_type == FLOE_PQ_CT_NONE || e->converted_type == FLOE_PQ_CT_INT_64);
    case FLOE_ICE_DATE: return e->type == FLOE_PQ_INT32 && (lt->kind == FLOE_PQ_LT_DATE || e->converted_type == FLOE_PQ_CT_DATE);
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ:
        return e->type == FLOE_PQ_INT64 && lt->kind == FLOE_PQ_LT_TIMESTAMP && lt->unit == FLOE_PQ_UNIT_MICROS &&
               lt->utc == (t == FLOE_ICE_TIMESTAMPTZ);
    case FLOE_ICE_STRING:
        return e->type == FLOE_PQ_BYTE_ARRAY && (lt->kind == FLOE_PQ_LT_STRING || e->converted_type == FLOE_PQ_CT_UTF8);
    default: return false;
    }
}

static int64_t le_int(const uint8_t *b, uint32_t len) {
    if (len == 4) {
        int32_t v;
        memcpy(&v, b, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, b, 8);
    return v;
}

/* a < b in the column's order. */
static bool less(floe_ice_type_id t, const uint8_t *a, uint32_t al, const uint8_t *b, uint32_t bl) {
    if (t != FLOE_ICE_STRING) return le_int(a, al) < le_int(b, bl);
    int c = memcmp(a, b, al < bl ? al : bl);
    return c < 0 || (c == 0 && al < bl);
}

static void acc_bounds(col_acc *c, const floe_pq_statistics *s) {
    uint32_t want = c->type == FLOE_ICE_INT || c->type == FLOE_ICE_DATE ? 4 : 8;
    if (!s->min_value.set || !s->max_value.set ||
        (c->type != FLOE_ICE_STRING && (s->min_value.len != want || s->max_value.len != want))) {
        c->bounds_ok = false;
        return;
    }
    if (!c->lo || less(c->type, s->min_value.data, s->min_value.len, c->lo, c->lo_len)) {
        c->lo = s->min_value.data;
        c->lo_len = s->min_value.len;
    }
    if (!c->hi || less(c->type, c->hi, c->hi_len, s->max_value.data, s->max_value.len)) {
        c->hi = s->max_value.data;
        c->hi_len = s->max_value.len;
    }
}

/* The table's column for a top-level Parquet column (by field id, else by
 * name, as a name mapping would), or NULL when it is none or not top-level. */
static const floe_ice_field *column_of(const floe_ice_schema *schema, const floe_pq_schema_element *e) {
    const floe_ice_field *f = e->has_field_id ? floe_ice_schema_find_field(schema, e->field_id)
                                              : floe_ice_schema_find_by_name(schema, e->name, true);
    for (int32_t i = 0; f && i < schema->root->n_fields; i++)
        if (&schema->root->fields[i] == f) return f;
    return NULL;
}

/* The footer's top-level primitive columns that are table columns: one
 * accumulator each in acc[0..*n_acc), and chunk_acc[k] the accumulator of
 * column chunk k (-1: none).  Returns the number of column chunks (leaves). */
static int32_t leaf_columns(const floe_pq_file_metadata *m, const floe_ice_schema *schema, col_acc *acc,
                            int32_t *n_acc, int32_t *chunk_acc, bool *had_ids) {
    int32_t nc = m->num_schema ? m->schema[0].num_children : 0, leaf_index = 0;
    *had_ids = true;
    *n_acc = 0;
    /* The flattened schema: element i's children follow it. */
    uint32_t at = 1;
    for (int32_t c = 0; c < nc && at < m->num_schema; c++) {
        const floe_pq_schema_element *e = &m->schema[at];
        if (!e->has_field_id) *had_ids = false;
        /* Count the leaves below e (skipping its subtree). */
        uint32_t end = at + 1;
        int32_t pending = e->has_num_children ? e->num_children : 0, leaves = pending ? 0 : 1;
        while (pending > 0 && end < m->num_schema) {
            const floe_pq_schema_element *x = &m->schema[end++];
            pending--;
            if (x->has_num_children && x->num_children > 0) pending += x->num_children;
            else leaves++;
        }
        const floe_ice_field *col = column_of(schema, e);
        bool primitive = !(e->has_num_children && e->num_children > 0) && e->has_type;
        for (int32_t k = 0; k < leaves; k++) chunk_acc[leaf_index + k] = -1;
        if (col && primitive && col->type->id < FLOE_ICE_STRUCT) {
            col_acc *x = &acc[*n_acc];
            x->field_id = col->id;
            x->type = col->type->id;
            x->bounds_ok = bounds_usable(e, col->type->id);
            x->nulls_ok = true;
            chunk_acc[leaf_index] = (*n_acc)++;
        }
        leaf_index += leaves;
        at = end;
    }
    return leaf_index;
}

/* Sizes, counts and bounds summed over the row groups' column chunks. */
static void sum_row_groups(const floe_pq_file_metadata *m, int32_t n_chunks, const int32_t *chunk_acc, col_acc *acc) {
    for (uint32_t g = 0; g < m->num_row_groups; g++) {
        const floe_pq_row_group *rg = &m->row_groups[g];
        for (uint32_t k = 0; k < rg->num_columns && (int32_t)k < n_chunks; k++) {
            if (chunk_acc[k] < 0 || !rg->columns[k].has_meta_data) continue;
            col_acc *x = &acc[chunk_acc[k]];
            const floe_pq_column_meta *cm = &rg->columns[k].meta_data;
            x->size += cm->total_compressed_size;
            x->values += cm->num_values;
            if (cm->has_statistics && cm->statistics.has_null_count) x->nulls += cm->statistics.null_count;
            else x->nulls_ok = false;
            if (x->bounds_ok && cm->has_statistics) acc_bounds(x, &cm->statistics);
            else x->bounds_ok = false;
        }
    }
}

/* The accumulators as f's metric maps (strings in `a`). */
static floe_status fill_metric_maps(floe_arena *a, const floe_pq_file_metadata *m, const col_acc *acc, int32_t n,
                                    floe_ice_data_file *f) {
    floe_ice_count_map *maps[3] = {&f->column_sizes, &f->value_counts, &f->null_value_counts};
    for (int i = 0; i < 3; i++) {
        maps[i]->keys = floe_arena_calloc(a, (size_t)n + 1, sizeof(int32_t));
        maps[i]->values = floe_arena_calloc(a, (size_t)n + 1, sizeof(int64_t));
        if (!maps[i]->keys || !maps[i]->values) return oom();
        maps[i]->n = 0; /* from -1, "no map" */
    }
    floe_ice_bound_map *bm[2] = {&f->lower_bounds, &f->upper_bounds};
    for (int i = 0; i < 2; i++) {
        bm[i]->keys = floe_arena_calloc(a, (size_t)n + 1, sizeof(int32_t));
        bm[i]->values = floe_arena_calloc(a, (size_t)n + 1, sizeof(uint8_t *));
        bm[i]->lens = floe_arena_calloc(a, (size_t)n + 1, sizeof(uint32_t));
        if (!bm[i]->keys || !bm[i]->values || !bm[i]->lens) return oom();
        bm[i]->n = 0;
    }
    /* Bounds need a defined column order, and a row group to come from. */
    bool bounds = m->num_column_orders > 0 && m->num_row_groups > 0;
    for (int32_t i = 0; i < n; i++) {
        const col_acc *x = &acc[i];
        f->column_sizes.keys[f->column_sizes.n] = x->field_id;
        f->column_sizes.values[f->column_sizes.n++] = x->size;
        f->value_counts.keys[f->value_counts.n] = x->field_id;
        f->value_counts.values[f->value_counts.n++] = x->values;
        if (x->nulls_ok) {
            f->null_value_counts.keys[f->null_value_counts.n] = x->field_id;
            f->null_value_counts.values[f->null_value_counts.n++] = x->nulls;
        }
        if (x->bounds_ok && bounds && x->lo && x->hi) {
            const uint8_t *lo = floe_arena_memdup(a, x->lo, x->lo_len ? x->lo_len : 1);
            const uint8_t *hi = floe_arena_memdup(a, x->hi, x->hi_len ? x->hi_len : 1);
            if (!lo || !hi) return oom();
            f->lower_bounds.keys[f->lower_bounds.n] = x->field_id;
            f->lower_bounds.values[f->lower_bounds.n] = lo;
            f->lower_bounds.lens[f->lower_bounds.n++] = x->lo_len;
            f->upper_bounds.keys[f->upper_bounds.n] = x->field_id;
            f->upper_bounds.values[f->upper_bounds.n] = hi;
            f->upper_bounds.lens[f->upper_bounds.n++] = x->hi_len;
        }
    }
    return NULL;
}

/* Fill f's metrics from the footer (strings in `a`); *had_ids: whether the
 * file's top-level columns carry field ids. */
static floe_status footer_metrics(floe_arena *a, const floe_pq_file *pf, const floe_ice_schema *schema,
                                  floe_ice_data_file *f, bool *had_ids) {
    const floe_pq_file_metadata *m = pf->meta;
    f->record_count = m->num_rows;
    int32_t nc = m->num_schema ? m->schema[0].num_children : 0, n_acc = 0;
    col_acc *acc = floe_arena_calloc(a, (size_t)nc + 1, sizeof *acc);
    int32_t *chunk_acc = floe_arena_calloc(a, (size_t)m->num_schema + 1, sizeof *chunk_acc);
    if (!acc || !chunk_acc) return oom();
    int32_t n_chunks = leaf_columns(m, schema, acc, &n_acc, chunk_acc, had_ids);
    sum_row_groups(m, n_chunks, chunk_acc, acc);
    FLOE_TRY(fill_metric_maps(a, m, acc, n_acc, f));
    if (m->num_row_groups > 0) {
        f->split_offsets = floe_arena_calloc(a, m->num_row_groups, sizeof(int64_t));
        if (!f->split_offsets) return oom();
        f->n_split_offsets = 0;
        for (uint32_t g = 0; g < m->num_row_groups; g++) {
            const floe_pq_row_group *rg = &m->row_groups[g];
            if (!rg->has_file_offset) {
                f->n_split_offsets = -1;
                break;
            }
            f->split_offsets[f->n_split_offsets++] = rg->file_offset;
        }
    }
    return NULL;
}

/* ----------------------------------------------------------- name mapping */

/* Iceberg's name mapping of a struct's fields (list elements are
 * "element", map parts "key" / "value"), as a JSON array. */
static json_t *mapping_of(const floe_ice_type *t) {
    json_t *arr = json_array();
    for (int32_t i = 0; arr && i < t->n_fields; i++) {
        const floe_ice_field *f = &t->fields[i];
        const char *name = t->id == FLOE_ICE_LIST ? "element" : t->id == FLOE_ICE_MAP ? (i ? "value" : "key") : f->name;
        json_t *o = json_pack("{s:I,s:[s]}", "field-id", (json_int_t)f->id, "names", name);
        if (o && f->type->id >= FLOE_ICE_STRUCT) {
            json_t *sub = mapping_of(f->type);
            if (!sub || json_object_set_new(o, "fields", sub)) {
                json_decref(o);
                o = NULL;
            }
        }
        if (!o || json_array_append_new(arr, o)) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static floe_status set_mapping(floe_proc_call *call, const floe_ice_table *t, void *ctx, floe_ice_table_metadata **out) {
    (void)call;
    (void)ctx;
    *out = NULL;
    if (floe_ice_tm_property(t->md, "schema.name-mapping.default")) return NULL; /* someone set one meanwhile */
    json_t *m = mapping_of(floe_ice_tm_current_schema(t->md)->root);
    char *text = m ? json_dumps(m, JSON_COMPACT) : NULL;
    json_decref(m);
    if (!text) return oom();
    const char *kv[2] = {"schema.name-mapping.default", text};
    floe_status st = floe_ice_tm_set_properties(t->md, kv, 1, out);
    free(text);
    return st;
}

/* ------------------------------------------------------------ the call */

typedef struct run {
    floe_arena arena;
    listing l;
    uint8_t **recs;
    size_t *lens;
    int32_t n_recs;
    floe_ice_data_file_codec *codec;
    floe_ice_type *ptype;
    floe_ice_live_files *live;
    floe_strmap parts; /* partition folder path -> 1 */
} run;

static void run_free(run *r) {
    for (size_t i = 0; i < r->l.n; i++) floe_free(r->l.files[i].location);
    floe_free(r->l.files);
    for (int32_t i = 0; i < r->n_recs; i++) floe_free(r->recs[i]);
    floe_free(r->recs);
    floe_free(r->lens);
    floe_ice_data_file_codec_free(r->codec);
    floe_ice_type_free(r->ptype);
    floe_ice_live_files_free(r->live);
    floe_strmap_free(&r->parts);
    floe_arena_destroy(&r->arena);
}

/* Does the file's folder match partition_filter? */
static bool filter_match(const floe_proc_arg *pf, const hive_dirs *d) {
    for (int32_t i = 0; pf && pf->given && i < pf->n; i++) {
        const char *v = dir_value(d, pf->strs[2 * i]);
        if (!v || strcmp(v, pf->strs[2 * i + 1]) != 0) return false;
    }
    return true;
}

/* One file's data_file record, encoded, appended to r->recs (or skipped
 * by the filter). */
static floe_status add_one(floe_proc_call *call, run *r, const floe_ice_table *t, const listed *lf,
                           const floe_proc_arg *pfilter, bool *had_ids) {
    const floe_ice_table_metadata *md = t->md;
    const floe_ice_schema *schema = floe_ice_tm_current_schema(md);
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(md);
    hive_dirs d;
    FLOE_TRY(parse_dirs(&r->arena, lf->location, lf->location + strlen(r->l.root), !spec || spec->n_fields == 0, &d));
    if (!filter_match(pfilter, &d)) return NULL;
    floe_ice_data_file f;
    floe_ice_data_file_init(&f);
    f.content = FLOE_ICE_CONTENT_DATA;
    f.file_path = lf->location;
    f.file_format = "PARQUET";
    f.file_size_in_bytes = (int64_t)lf->size;
    f.spec_id = spec ? spec->spec_id : 0;
    int32_t np = spec ? spec->n_fields : 0;
    if (np == 0 && d.n > 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "add_files: '%s' is in partition folder %s=%s, but the table is not partitioned", lf->location,
                          d.keys[0], d.vals[0]);
    if (np != d.n && np > 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "add_files: '%s' has %d partition folders; the table's partition spec has %d fields",
                          lf->location, (int)d.n, (int)np);
    floe_ice_value *vals = np ? floe_arena_calloc(&r->arena, (size_t)np, sizeof *vals) : NULL;
    int32_t *ids = np ? floe_arena_calloc(&r->arena, (size_t)np, sizeof *ids) : NULL;
    if (np && (!vals || !ids)) return oom();
    floe_status st = NULL;
    for (int32_t i = 0; i < np && !st; i++) {
        const floe_ice_partition_field *pf = &spec->fields[i];
        const floe_ice_field *src = floe_ice_schema_find_field(schema, pf->source_id);
        ids[i] = pf->field_id;
        const char *v = src ? dir_value(&d, src->name) : NULL;
        if (!v) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "add_files: '%s' has no partition folder for column %s",
                            lf->location, src ? src->name : "?");
        } else if (!strcmp(v, HIVE_NULL)) {
            vals[i] = floe_ice_null(src->type->id);
        } else {
            floe_ice_value parsed;
            st = floe_ice_value_parse(src->type, v, &parsed);
            if (st) {
                st = floe_status_wrap(st, "add_files: partition value %s=%s of '%s'", src->name, v, lf->location);
            } else {
                vals[i] = parsed;
                /* The record is encoded below; the bytes must live until then. */
                if (parsed.owns_bytes) {
                    vals[i].v.bytes.data = floe_arena_memdup(&r->arena, parsed.v.bytes.data, parsed.v.bytes.len + 1);
                    vals[i].owns_bytes = false;
                    floe_ice_value_free(&parsed);
                    if (!vals[i].v.bytes.data) st = oom();
                }
            }
        }
    }
    FLOE_TRY(st);
    f.n_partition = np;
    f.partition_ids = ids;
    f.partition = vals;
    floe_input *in = NULL;
    floe_pq_file *pq = NULL;
    st = floe_fileio_open_input_sized(t->io, lf->location, lf->size, &in);
    if (!st) st = floe_pq_file_open(in, &pq);
    if (!st) st = footer_metrics(&r->arena, pq, schema, &f, had_ids);
    if (st) st = floe_status_wrap(st, "add_files: reading the Parquet footer of '%s'", lf->location);
    uint8_t *rec = NULL;
    size_t len = 0;
    if (!st) st = floe_ice_data_file_encode(r->codec, &f, &rec, &len);
    floe_pq_file_close(pq);
    floe_input_close(in);
    FLOE_TRY(st);
    r->recs[r->n_recs] = rec;
    r->lens[r->n_recs++] = len;
    /* The partition's folder, counted once. */
    const char *rel = lf->location + strlen(r->l.root), *slash = strrchr(rel, '/');
    char *key = floe_arena_strndup(&r->arena, rel, slash ? (size_t)(slash - rel) : 0);
    if (!key) return oom();
    if (!floe_strmap_contains(&r->parts, floe_str_c(key))) FLOE_TRY(floe_strmap_put(&r->parts, floe_str_c(key), (void *)1, NULL));
    (void)call;
    return NULL;
}

floe_status proc_parquet_source(const floe_proc_call *call, const floe_proc_arg *sa, char **dir) {
    char fmt[32];
    FLOE_TRY(parse_source(call, sa, fmt, sizeof fmt, dir));
    if (strcmp(fmt, "parquet") == 0) return NULL;
    floe_free(*dir);
    *dir = NULL;
    return floe_proc_error(call, sa, FLOE_ERR_UNSUPPORTED,
                           "%s: format '%s' is not supported (only `parquet`.`path`)", call->def->name, fmt);
}

floe_status proc_add_files_from(floe_proc_call *call, const char *ns, const char *name, const floe_proc_arg *sa,
                                const char *dir, const floe_proc_arg *pfilter, bool check_dup, int64_t *added,
                                int64_t *changed_partitions) {
    run r;
    memset(&r, 0, sizeof r);
    floe_arena_init(&r.arena, 64 * 1024);
    floe_strmap_init(&r.parts);
    floe_ice_table *t = NULL;
    size_t dl = strlen(dir);
    char *root = floe_malloc(dl + 2);
    floe_status st = root ? NULL : oom();
    if (!st) {
        memcpy(root, dir, dl);
        root[dl] = dl && dir[dl - 1] == '/' ? 0 : '/';
        root[dl + 1] = 0;
        r.l.root = root;
        st = floe_catalog_load_table(call->s->catalog, ns, name, &t);
    }
    if (!st) st = floe_fileio_list(t->io, root, on_file, &r.l);
    /* Never the table's own metadata (migrate: the folder is its location). */
    size_t ml = t ? strlen(t->md->location) : 0;
    for (size_t i = 0; !st && i < r.l.n; i++) {
        const char *loc = r.l.files[i].location;
        if (strncmp(loc, t->md->location, ml) == 0 && strncmp(loc + ml, "/metadata/", 10) == 0) {
            floe_free(r.l.files[i].location);
            r.l.files[i--] = r.l.files[--r.l.n];
        }
    }
    if (!st && r.l.n == 0)
        st = floe_proc_error(call, sa, FLOE_ERR_NOT_FOUND, "add_files: no files under '%s'", dir);
    if (!st && r.l.n > 1) qsort(r.l.files, r.l.n, sizeof *r.l.files, by_location);
    if (!st && r.l.n > INT32_MAX) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "add_files: too many files");
    /* Already in the table? */
    const floe_ice_snapshot *cur = st ? NULL : floe_ice_tm_current_snapshot(t->md);
    if (!st && cur && check_dup) {
        st = floe_ice_table_live_files(t, cur, NULL, &r.live);
        floe_strmap have;
        floe_strmap_init(&have);
        for (size_t i = 0; !st && r.live && i < r.live->n; i++)
            st = floe_strmap_put(&have, floe_str_c(r.live->files[i].file.file_path), (void *)1, NULL);
        floe_buf dups = FLOE_BUF_INIT;
        for (size_t i = 0; !st && i < r.l.n; i++)
            if (floe_strmap_contains(&have, floe_str_c(r.l.files[i].location)))
                st = floe_buf_printf(&dups, "%s%s", dups.len ? ", " : "", r.l.files[i].location);
        if (!st && dups.len)
            st = floe_proc_error(call, sa, FLOE_ERR_ALREADY_EXISTS,
                                 "Cannot complete import because data files to be imported already exist within the "
                                 "target table: %s. This is disabled by default as Iceberg is not designed for "
                                 "multiple references to the same file within the same table. If you are sure, you "
                                 "may set 'check_duplicate_files' to false to force the import.",
                                 floe_buf_cstr(&dups));
        floe_buf_free(&dups);
        floe_strmap_free(&have);
    }
    if (!st) {
        const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(t->md);
        st = spec ? floe_ice_partition_spec_partition_type(spec, floe_ice_tm_current_schema(t->md), false, &r.ptype)
                  : floe_ice_type_struct(&r.ptype);
    }
    if (!st) st = floe_ice_data_file_codec_new(r.ptype, t->md->format_version, &r.codec);
    if (!st) {
        r.recs = floe_calloc(r.l.n, sizeof *r.recs);
        r.lens = floe_calloc(r.l.n, sizeof *r.lens);
        if (!r.recs || !r.lens) st = oom();
    }
    bool all_ids = true;
    for (size_t i = 0; !st && i < r.l.n; i++) {
        bool had_ids = true;
        st = add_one(call, &r, t, &r.l.files[i], pfilter, &had_ids);
        all_ids &= had_ids;
    }
    /* Files matched by name need the table's name mapping to be read. */
    if (!st && r.n_recs > 0 && !all_ids && !floe_ice_tm_property(t->md, "schema.name-mapping.default"))
        st = floe_proc_commit(call, ns, name, set_mapping, NULL);
    int64_t sid = -1;
    if (!st && r.n_recs > 0) {
        const char *summary[2] = {"added-by", "add_files"};
        st = floe_catalog_append(call->s->catalog, ns, name, (const uint8_t *const *)r.recs, r.lens, r.n_recs, summary,
                                 0, floe_catalog_retry_settings(t->md).num_retries, &sid);
        (void)summary;
    }
    int64_t n_parts = r.n_recs > 0 && floe_ice_tm_default_spec(t->md) && floe_ice_tm_default_spec(t->md)->n_fields > 0
                          ? (int64_t)floe_strmap_size(&r.parts)
                          : 0;
    *added = r.n_recs;
    *changed_partitions = n_parts;
    run_free(&r);
    floe_ice_table_free(t);
    floe_free(root);
    if (st && !strstr(floe_status_message(st), "add_files")) st = floe_status_wrap(st, "add_files into %s.%s", ns, name);
    return st;
}

static floe_status add_files(floe_proc_call *call) {
    const floe_proc_arg *ta = floe_proc_get(call, "table"), *sa = floe_proc_get(call, "source_table");
    const floe_proc_arg *dup = floe_proc_get(call, "check_duplicate_files");
    const floe_proc_arg *par = floe_proc_get(call, "parallelism");
    if (par->given && par->i64 <= 0)
        return floe_proc_error(call, par, FLOE_ERR_INVALID_ARGUMENT, "Parallelism should be larger than 0");
    char ns[NAME_CAP], name[NAME_CAP];
    FLOE_TRY(floe_proc_table_name(call, ta, ns, NAME_CAP, name, NAME_CAP));
    char *dir = NULL;
    FLOE_TRY(proc_parquet_source(call, sa, &dir));
    int64_t added = 0, parts = 0;
    floe_status st = proc_add_files_from(call, ns, name, sa, dir, floe_proc_get(call, "partition_filter"),
                                         !dup->given || dup->b, &added, &parts);
    floe_free(dir);
    if (!st) st = floe_proc_add_row(call);
    if (!st) st = floe_proc_add_long(call, added);
    if (!st) st = floe_proc_add_long(call, parts);
    return st;
}

static const floe_proc_param k_params[] = {
    {"table", FLOE_PROC_STRING, true},
    {"source_table", FLOE_PROC_STRING, true},
    {"partition_filter", FLOE_PROC_MAP, false},
    {"check_duplicate_files", FLOE_PROC_BOOL, false},
    {"parallelism", FLOE_PROC_LONG, false},
};
static const floe_proc_column k_columns[] = {
    {"added_files_count", FLOE_PROC_LONG},
    {"changed_partition_count", FLOE_PROC_LONG},
};
const floe_proc_def floe_proc_add_files = {"add_files", k_params, 5, k_columns, 2, add_files, true};

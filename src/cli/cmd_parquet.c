/*
 * cmd_parquet.c — `floe parquet`: look inside Parquet files.
 *
 *   floe parquet schema FILE   the schema: physical tree (types, repetition,
 *                              annotations, field ids), leaf columns with
 *                              their engine types and levels, logical fields
 *   floe parquet meta FILE     the footer: writer, rows, row groups and, per
 *                              column chunk, type, encodings, codec, sizes,
 *                              statistics rendered by type, page indexes
 *
 * Sub-commands are rows of the `subcommands` table below; adding one (e.g.
 * `cat`, implemented elsewhere) is one row plus its prototype.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "cli/cmd_parquet_cat.h"
#include "cli/commands.h"
#include "formats/parquet/file.h"

typedef struct pq_subcommand {
    const char *name;
    const char *args;
    const char *summary;
    /* argv[0] is the sub-command name. */
    floe_status (*run)(int argc, char **argv);
} pq_subcommand;

static floe_status cmd_schema(int argc, char **argv);
static floe_status cmd_meta(int argc, char **argv);

static const pq_subcommand subcommands[] = {
    {"schema", "FILE", "print the schema: types, repetition, field ids, levels", cmd_schema},
    {"meta", "FILE", "print the footer: row groups, column chunks, statistics", cmd_meta},
    {"cat", "FILE ...", "print rows: [--columns a,b] [--limit N] [--format table|csv|jsonl]",
     floe_cli_parquet_cat},
    {NULL, NULL, NULL, NULL},
};

static void usage(FILE *out) {
    fputs("usage: floe parquet COMMAND ...\n\nCommands:\n", out);
    for (const pq_subcommand *c = subcommands; c->name; c++)
        fprintf(out, "  %-7s %-10s %s\n", c->name, c->args, c->summary);
}

floe_status floe_cli_parquet(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? floe_error(FLOE_ERR_INVALID_ARGUMENT, "parquet: missing command")
                        : NULL;
    }
    for (const pq_subcommand *c = subcommands; c->name; c++)
        if (strcmp(argv[1], c->name) == 0) return c->run(argc - 1, argv + 1);
    usage(stderr);
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "parquet: unknown command '%s'", argv[1]);
}

static floe_status open_one(int argc, char **argv, floe_pq_file **f) {
    if (argc != 2)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "usage: floe parquet %s FILE", argv[0]);
    return floe_pq_file_open_path(argv[1], f);
}

/* --------------------------------------------------------------- schema */

static const char *physical_lower(const floe_pq_schema_element *e, char *buf, size_t cap) {
    static const char *const names[] = {"boolean", "int32", "int64", "int96",
                                        "float", "double", "binary", "fixed_len_byte_array"};
    if (e->type == FLOE_PQ_FIXED_LEN_BYTE_ARRAY) {
        snprintf(buf, cap, "fixed_len_byte_array(%d)", (int)e->type_length);
        return buf;
    }
    return (unsigned)e->type < 8 ? names[e->type] : "?";
}

static void annotation(const floe_pq_schema_element *e, char *buf, size_t cap) {
    buf[0] = 0;
    if (e->logical.kind != FLOE_PQ_LT_NONE) {
        char lt[96];
        floe_pq_logical_type_format(&e->logical, lt, sizeof lt);
        snprintf(buf, cap, " (%s)", lt);
    } else if (e->converted_type == FLOE_PQ_CT_DECIMAL) {
        snprintf(buf, cap, " (DECIMAL(%d,%d))", (int)e->precision, (int)e->scale);
    } else if (e->converted_type != FLOE_PQ_CT_NONE) {
        snprintf(buf, cap, " (%s)", floe_pq_converted_type_name(e->converted_type));
    }
}

/* Print elements [*i ...] of one group at `depth` (an explicit index walk:
 * the schema has been validated, so children counts are consistent). */
static void print_elements(const floe_pq_file_metadata *md, uint32_t *i, int count, int depth) {
    for (int k = 0; k < count && *i < md->num_schema; k++) {
        const floe_pq_schema_element *e = &md->schema[(*i)++];
        char ann[128], tbuf[48], id[32] = "";
        annotation(e, ann, sizeof ann);
        if (e->has_field_id) snprintf(id, sizeof id, " = %d", (int)e->field_id);
        const char *rep = floe_pq_repetition_name(e->has_repetition ? e->repetition : 0);
        bool group = e->has_num_children && (e->num_children > 0 || !e->has_type);
        if (group) {
            printf("%*s%s group %s%s%s {\n", depth * 2, "", rep, e->name, ann, id);
            print_elements(md, i, e->num_children, depth + 1);
            printf("%*s}\n", depth * 2, "");
        } else {
            printf("%*s%s %s %s%s%s;\n", depth * 2, "", rep,
                   physical_lower(e, tbuf, sizeof tbuf), e->name, ann, id);
        }
    }
}

static void kind_text(floe_pq_kind kind, const floe_pq_column *c, char *buf, size_t cap) {
    if (c && c->invalid)
        snprintf(buf, cap, "invalid");
    else if (c && kind == FLOE_PQ_KIND_DECIMAL)
        snprintf(buf, cap, "decimal(%d,%d)", (int)c->precision, (int)c->scale);
    else if (c && kind >= FLOE_PQ_KIND_TIME_MS && kind <= FLOE_PQ_KIND_TIMESTAMP_NS && c->utc)
        snprintf(buf, cap, "%s utc", floe_pq_kind_name(kind));
    else if (c && kind == FLOE_PQ_KIND_FIXED)
        snprintf(buf, cap, "fixed(%d)", (int)c->type_length);
    else
        snprintf(buf, cap, "%s", floe_pq_kind_name(kind));
}

static void print_field(const floe_pq_field *f, int depth) {
    char kind[64], id[32] = "", levels[64] = "";
    kind_text(f->kind, f->column, kind, sizeof kind);
    if (f->has_field_id) snprintf(id, sizeof id, " id=%d", (int)f->field_id);
    if (f->kind == FLOE_PQ_KIND_LIST || f->kind == FLOE_PQ_KIND_MAP)
        snprintf(levels, sizeof levels, " def=%d rep=%d elem_def=%d elem_rep=%d",
                 f->def_level, f->rep_level, f->elem_def_level, f->elem_rep_level);
    else
        snprintf(levels, sizeof levels, " def=%d rep=%d", f->def_level, f->rep_level);
    const char *invalid = f->column && f->column->invalid ? f->column->invalid : f->invalid;
    printf("%*s%s: %s%s%s%s%s%s%s\n", depth * 2, "", f->name, kind,
           f->nullable ? " nullable" : " not null", id, levels, invalid ? " (" : "", invalid ? invalid : "",
           invalid ? ")" : "");
    for (int i = 0; i < f->num_children; i++) print_field(f->children[i], depth + 1);
}

static floe_status cmd_schema(int argc, char **argv) {
    floe_pq_file *f;
    FLOE_TRY(open_one(argc, argv, &f));
    const floe_pq_file_metadata *md = f->meta;
    const floe_pq_schema *s = f->schema;
    printf("message %s {\n", md->schema[0].name);
    uint32_t i = 1;
    print_elements(md, &i, md->schema[0].num_children, 1);
    printf("}\n\ncolumns (%d):\n", floe_pq_schema_num_columns(s));
    for (int c = 0; c < floe_pq_schema_num_columns(s); c++) {
        const floe_pq_column *col = floe_pq_schema_column(s, c);
        char kind[64], id[32] = "";
        kind_text(col->kind, col, kind, sizeof kind);
        if (col->element->has_field_id)
            snprintf(id, sizeof id, "  id=%d", (int)col->element->field_id);
        printf("  %3d  %-40s %-20s %-18s max_def=%d max_rep=%d%s\n", c, col->path,
               floe_pq_type_name(col->physical), kind, col->max_def_level, col->max_rep_level,
               id);
    }
    printf("\nfields:\n");
    const floe_pq_field *root = floe_pq_schema_root(s);
    for (int c = 0; c < root->num_children; c++) print_field(root->children[c], 1);
    floe_pq_file_close(f);
    return NULL;
}

/* ----------------------------------------------------- value rendering */

static int64_t rd_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    if (n < 8 && (v >> (8 * n - 1)) & 1) v |= ~(uint64_t)0 << (8 * n); /* sign-extend */
    return (int64_t)v;
}

/* Days since 1970-01-01 to a civil date (proleptic Gregorian). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

static void fmt_date(floe_buf *b, int64_t days) {
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    floe_status_free(floe_buf_printf(b, "%04" PRId64 "-%02u-%02u", y, m, d));
}

/* A time of day or timestamp from a count of `per_sec` units. */
static void fmt_timestamp(floe_buf *b, int64_t v, int64_t per_sec, int digits, bool date,
                          bool utc) {
    int64_t secs = v / per_sec, frac = v % per_sec;
    if (frac < 0) {
        frac += per_sec;
        secs--;
    }
    int64_t days = secs / 86400, sod = secs % 86400;
    if (sod < 0) {
        sod += 86400;
        days--;
    }
    if (date) {
        fmt_date(b, days);
        floe_status_free(floe_buf_append_byte(b, 'T'));
    }
    floe_status_free(floe_buf_printf(b, "%02d:%02d:%02d", (int)(sod / 3600),
                                     (int)(sod / 60 % 60), (int)(sod % 60)));
    if (digits) floe_status_free(floe_buf_printf(b, ".%0*" PRId64, digits, frac));
    if (utc) floe_status_free(floe_buf_append_byte(b, 'Z'));
}

/* An unscaled integer (as decimal digits, sign first) with `scale`. */
static void fmt_scaled(floe_buf *b, const char *digits, bool neg, int scale) {
    size_t n = strlen(digits);
    if (neg) floe_status_free(floe_buf_append_byte(b, '-'));
    if (scale <= 0) {
        floe_status_free(floe_buf_append_str(b, digits));
        return;
    }
    if (n <= (size_t)scale) {
        floe_status_free(floe_buf_append_str(b, "0."));
        for (size_t i = n; i < (size_t)scale; i++) floe_status_free(floe_buf_append_byte(b, '0'));
        floe_status_free(floe_buf_append_str(b, digits));
    } else {
        floe_status_free(floe_buf_append(b, digits, n - (size_t)scale));
        floe_status_free(floe_buf_append_byte(b, '.'));
        floe_status_free(floe_buf_append_str(b, digits + n - scale));
    }
}

static void u128_digits(unsigned __int128 v, char *out) {
    char tmp[48];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    out[n] = 0;
}

static void fmt_decimal_int(floe_buf *b, __int128 v, int scale) {
    char digits[48];
    bool neg = v < 0;
    u128_digits(neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v,
                digits);
    fmt_scaled(b, digits, neg, scale);
}

static void fmt_hex(floe_buf *b, const uint8_t *p, uint32_t n) {
    uint32_t shown = n > 32 ? 32 : n;
    floe_status_free(floe_buf_append_str(b, "0x"));
    for (uint32_t i = 0; i < shown; i++) floe_status_free(floe_buf_printf(b, "%02x", p[i]));
    if (shown < n) floe_status_free(floe_buf_printf(b, "... (%u bytes)", n));
}

static void fmt_string(floe_buf *b, const uint8_t *p, uint32_t n) {
    uint32_t shown = n > 64 ? 64 : n;
    floe_status_free(floe_buf_append_byte(b, '"'));
    for (uint32_t i = 0; i < shown; i++) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\') floe_status_free(floe_buf_printf(b, "\\%c", c));
        else if (c < 0x20 || c == 0x7f) floe_status_free(floe_buf_printf(b, "\\x%02x", c));
        else floe_status_free(floe_buf_append_byte(b, c)); /* UTF-8 passes through */
    }
    floe_status_free(floe_buf_append_byte(b, '"'));
    if (shown < n) floe_status_free(floe_buf_printf(b, "... (%u bytes)", n));
}

static double half_to_double(uint16_t h) {
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v;
    if (exp == 0) v = ldexp(mant, -24);
    else if (exp == 31) v = mant ? NAN : INFINITY;
    else v = ldexp(mant | 0x400, exp - 25);
    return (h & 0x8000) ? -v : v;
}

/* Render one statistics value of column `c`. */
static void fmt_value(floe_buf *b, const floe_pq_column *c, const floe_pq_bytes *v) {
    const uint8_t *p = v->data;
    uint32_t n = v->len;
    switch (c->physical) {
    case FLOE_PQ_BOOLEAN:
        if (n >= 1) { floe_status_free(floe_buf_append_str(b, p[0] ? "true" : "false")); return; }
        break;
    case FLOE_PQ_INT32:
        if (n != 4) break;
        switch (c->kind) {
        case FLOE_PQ_KIND_UINT8: case FLOE_PQ_KIND_UINT16: case FLOE_PQ_KIND_UINT32:
            floe_status_free(floe_buf_printf(b, "%" PRIu32, (uint32_t)rd_le(p, 4))); return;
        case FLOE_PQ_KIND_DATE: fmt_date(b, rd_le(p, 4)); return;
        case FLOE_PQ_KIND_TIME_MS: fmt_timestamp(b, rd_le(p, 4), 1000, 3, false, c->utc); return;
        case FLOE_PQ_KIND_DECIMAL: fmt_decimal_int(b, rd_le(p, 4), c->scale); return;
        default: floe_status_free(floe_buf_printf(b, "%" PRId64, rd_le(p, 4))); return;
        }
    case FLOE_PQ_INT64:
        if (n != 8) break;
        switch (c->kind) {
        case FLOE_PQ_KIND_UINT64: floe_status_free(floe_buf_printf(b, "%" PRIu64, (uint64_t)rd_le(p, 8))); return;
        case FLOE_PQ_KIND_TIME_US: fmt_timestamp(b, rd_le(p, 8), 1000000, 6, false, c->utc); return;
        case FLOE_PQ_KIND_TIME_NS: fmt_timestamp(b, rd_le(p, 8), 1000000000, 9, false, c->utc); return;
        case FLOE_PQ_KIND_TIMESTAMP_MS: fmt_timestamp(b, rd_le(p, 8), 1000, 3, true, c->utc); return;
        case FLOE_PQ_KIND_TIMESTAMP_US: fmt_timestamp(b, rd_le(p, 8), 1000000, 6, true, c->utc); return;
        case FLOE_PQ_KIND_TIMESTAMP_NS: fmt_timestamp(b, rd_le(p, 8), 1000000000, 9, true, c->utc); return;
        case FLOE_PQ_KIND_DECIMAL: fmt_decimal_int(b, rd_le(p, 8), c->scale); return;
        default: floe_status_free(floe_buf_printf(b, "%" PRId64, rd_le(p, 8))); return;
        }
    case FLOE_PQ_INT96:
        if (n != 12) break;
        {
            /* nanoseconds of the day, then the Julian day number */
            int64_t nanos = rd_le(p, 8), jd = (int64_t)(uint32_t)rd_le(p + 8, 4);
            int64_t days = jd - 2440588;
            floe_buf tmp = FLOE_BUF_INIT;
            fmt_date(b, days);
            floe_status_free(floe_buf_append_byte(b, 'T'));
            fmt_timestamp(&tmp, nanos, 1000000000, 9, false, false);
            floe_status_free(floe_buf_append_str(b, floe_buf_cstr(&tmp)));
            floe_buf_free(&tmp);
            return;
        }
    case FLOE_PQ_FLOAT:
        if (n != 4) break;
        {
            float f;
            memcpy(&f, p, 4);
            floe_status_free(floe_buf_printf(b, "%.9g", (double)f));
            return;
        }
    case FLOE_PQ_DOUBLE:
        if (n != 8) break;
        {
            double d;
            memcpy(&d, p, 8);
            floe_status_free(floe_buf_printf(b, "%.17g", d));
            return;
        }
    case FLOE_PQ_BYTE_ARRAY:
    case FLOE_PQ_FIXED_LEN_BYTE_ARRAY:
        if (c->kind == FLOE_PQ_KIND_STRING) { fmt_string(b, p, n); return; }
        if (c->kind == FLOE_PQ_KIND_UUID && n == 16) {
            for (int i = 0; i < 16; i++) {
                if (i == 4 || i == 6 || i == 8 || i == 10) floe_status_free(floe_buf_append_byte(b, '-'));
                floe_status_free(floe_buf_printf(b, "%02x", p[i]));
            }
            return;
        }
        if (c->kind == FLOE_PQ_KIND_FLOAT16 && n == 2) {
            floe_status_free(floe_buf_printf(b, "%g", half_to_double((uint16_t)(p[0] | p[1] << 8))));
            return;
        }
        if (c->kind == FLOE_PQ_KIND_DECIMAL && n >= 1 && n <= 16) {
            /* big-endian two's complement */
            unsigned __int128 u = (p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
            for (uint32_t i = 0; i < n; i++) u = u << 8 | p[i];
            fmt_decimal_int(b, (__int128)u, c->scale);
            return;
        }
        fmt_hex(b, p, n);
        return;
    }
    floe_status_free(floe_buf_printf(b, "(%u bytes: ", n));
    fmt_hex(b, p, n);
    floe_status_free(floe_buf_append_byte(b, ')'));
}

/* "min .. max" from the newer min_value/max_value, else the legacy pair. */
static void print_stats(const floe_pq_column *c, const floe_pq_statistics *s) {
    floe_buf b = FLOE_BUF_INIT;
    const floe_pq_bytes *mn = s->min_value.set ? &s->min_value : &s->min;
    const floe_pq_bytes *mx = s->max_value.set ? &s->max_value : &s->max;
    if (mn->set || mx->set) {
        floe_status_free(floe_buf_append_str(&b, " min="));
        if (mn->set) fmt_value(&b, c, mn);
        else floe_status_free(floe_buf_append_str(&b, "-"));
        floe_status_free(floe_buf_append_str(&b, " max="));
        if (mx->set) fmt_value(&b, c, mx);
        else floe_status_free(floe_buf_append_str(&b, "-"));
        const floe_pq_bytes *lo, *hi;
        if (!s->min_value.set && !s->max_value.set)
            floe_status_free(floe_buf_append_str(
                &b, floe_pq_column_stats_bounds(c, s, &lo, &hi) ? " (legacy)"
                                                                : " (legacy, order unreliable)"));
        if (s->has_is_min_value_exact && !s->is_min_value_exact)
            floe_status_free(floe_buf_append_str(&b, " (min inexact)"));
        if (s->has_is_max_value_exact && !s->is_max_value_exact)
            floe_status_free(floe_buf_append_str(&b, " (max inexact)"));
    }
    if (s->has_null_count) floe_status_free(floe_buf_printf(&b, " nulls=%" PRId64, s->null_count));
    if (s->has_distinct_count) floe_status_free(floe_buf_printf(&b, " distinct=%" PRId64, s->distinct_count));
    if (s->has_nan_count) floe_status_free(floe_buf_printf(&b, " nans=%" PRId64, s->nan_count));
    printf("      stats:%s\n", b.len ? floe_buf_cstr(&b) : " (none)");
    floe_buf_free(&b);
}

/* ----------------------------------------------------------------- meta */

static void print_chunk(const floe_pq_file *f, int row_group, const floe_pq_column_chunk *cc,
                        const floe_pq_column *col, int index) {
    const floe_pq_column_meta *m = &cc->meta_data;
    char kind[64];
    kind_text(col->kind, col, kind, sizeof kind);
    printf("    column %d %s: %s (%s) codec=%s values=%" PRId64 "\n", index, col->path,
           floe_pq_type_name(m->type), kind, floe_pq_codec_name(m->codec), m->num_values);
    printf("      encodings:");
    for (uint32_t e = 0; e < m->num_encodings; e++)
        printf(" %s", floe_pq_encoding_name(m->encodings[e]));
    printf("\n      compressed=%" PRId64 " uncompressed=%" PRId64 " data_page_offset=%" PRId64,
           m->total_compressed_size, m->total_uncompressed_size, m->data_page_offset);
    if (m->has_dictionary_page_offset)
        printf(" dictionary_page_offset=%" PRId64, m->dictionary_page_offset);
    if (cc->file_path) printf(" file_path=%s", cc->file_path);
    printf("\n");
    if (m->has_statistics) print_stats(col, &m->statistics);
    else printf("      stats: (none)\n");
    printf("      page index: column_index=%s offset_index=%s",
           cc->has_column_index ? "yes" : "no", cc->has_offset_index ? "yes" : "no");
    if (cc->has_offset_index) {
        /* The page count is worth one small read; a bad index is reported
         * in place rather than failing the whole listing. */
        floe_pq_offset_index *oi = NULL;
        floe_status st = floe_pq_file_read_offset_index(f, row_group, index, &oi);
        if (st) printf(" (unreadable: %s)", floe_status_message(st));
        else printf(" pages=%u", oi->num_pages);
        floe_status_free(st);
        floe_pq_offset_index_free(oi);
    }
    if (m->has_bloom_filter_offset) {
        printf(" bloom_filter_offset=%" PRId64, m->bloom_filter_offset);
        if (m->has_bloom_filter_length) printf(" bloom_filter_length=%d", (int)m->bloom_filter_length);
    }
    printf("\n");
    if (m->num_encoding_stats) {
        printf("      page encodings:");
        for (uint32_t e = 0; e < m->num_encoding_stats; e++)
            printf(" %s/%s x%d", floe_pq_page_type_name(m->encoding_stats[e].page_type),
                   floe_pq_encoding_name(m->encoding_stats[e].encoding),
                   (int)m->encoding_stats[e].count);
        printf("\n");
    }
}

static floe_status cmd_meta(int argc, char **argv) {
    floe_pq_file *f;
    FLOE_TRY(open_one(argc, argv, &f));
    const floe_pq_file_metadata *md = f->meta;
    printf("file: %s\n", f->path);
    printf("size: %" PRIu64 " bytes, footer: %" PRIu32 " bytes at offset %" PRIu64 "\n",
           f->size, f->footer_len, f->footer_offset);
    printf("version: %d\n", (int)md->version);
    printf("created_by: %s\n", md->created_by ? md->created_by : "(unknown)");
    printf("rows: %" PRId64 "\n", md->num_rows);
    printf("columns: %d\n", floe_pq_schema_num_columns(f->schema));
    printf("row groups: %" PRIu32 "\n", md->num_row_groups);
    if (md->num_key_value_metadata) {
        printf("key_value_metadata:\n");
        for (uint32_t i = 0; i < md->num_key_value_metadata; i++) {
            const floe_pq_key_value *kv = &md->key_value_metadata[i];
            if (!kv->value) printf("  %s (no value)\n", kv->key);
            else if (kv->value_len > 80) printf("  %s = %.80s... (%u bytes)\n", kv->key, kv->value, kv->value_len);
            else printf("  %s = %s\n", kv->key, kv->value);
        }
    }
    for (uint32_t g = 0; g < md->num_row_groups; g++) {
        const floe_pq_row_group *rg = &md->row_groups[g];
        printf("row group %" PRIu32 ": rows=%" PRId64 " total_byte_size=%" PRId64, g,
               rg->num_rows, rg->total_byte_size);
        if (rg->has_total_compressed_size) printf(" compressed=%" PRId64, rg->total_compressed_size);
        if (rg->has_file_offset) printf(" file_offset=%" PRId64, rg->file_offset);
        if (rg->has_ordinal) printf(" ordinal=%d", (int)rg->ordinal);
        printf("\n");
        for (uint32_t s = 0; s < rg->num_sorting_columns; s++) {
            const floe_pq_sorting_column *sc = &rg->sorting_columns[s];
            const floe_pq_column *col = floe_pq_schema_column(f->schema, sc->column_idx);
            printf("  sorted by %s %s nulls %s\n", col ? col->path : "(bad column index)",
                   sc->descending ? "desc" : "asc", sc->nulls_first ? "first" : "last");
        }
        for (uint32_t c = 0; c < rg->num_columns; c++)
            print_chunk(f, (int)g, &rg->columns[c], floe_pq_schema_column(f->schema, (int)c),
                        (int)c);
    }
    floe_pq_file_close(f);
    return NULL;
}

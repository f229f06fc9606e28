/*
 * pq_fixture.h — Parquet files as other tools write them, for tests: columns
 * written by floe's writer as plain INT32 / INT64 / FIXED_LEN_BYTE_ARRAY /
 * BYTE_ARRAY, then the footer rewritten with the annotations under test
 * (a LogicalType, a ConvertedType with precision/scale, or INT96 as the
 * physical type of a FIXED[12] column, whose PLAIN bytes are the same).
 * Column statistics are dropped from the rewritten footer and no page
 * statistics or page index are written: they were computed for the written
 * type, not for the annotation.
 *
 * Shared by tests/tools/pq_fixture.c (files for the DuckDB cross-checks in
 * tests/scripts/parquet_fixtures_vs_duckdb.sh) and the unit tests.
 */
#ifndef FLOE_TESTS_PQ_FIXTURE_H
#define FLOE_TESTS_PQ_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/parquet/file.h"
#include "formats/parquet/parquet_meta.h"
#include "formats/parquet/writer.h"

typedef enum pqfx_kind { PQFX_I32, PQFX_I64, PQFX_FIXED, PQFX_BINARY } pqfx_kind;

#define PQFX_MAX_ROWS 64

/* One top-level column.  Values: ints[] (I32/I64), or bytes[]/lens[]
 * (FIXED: `width` bytes each; BINARY: lens[i] bytes); null[i] makes row i
 * null (then the column is optional). */
typedef struct pqfx_col {
    const char *name;
    pqfx_kind kind;
    int width;
    int64_t ints[PQFX_MAX_ROWS];
    uint8_t bytes[PQFX_MAX_ROWS][48];
    int lens[PQFX_MAX_ROWS];
    bool null[PQFX_MAX_ROWS];
    /* What the footer says: */
    bool int96;                   /* FIXED[12] written, INT96 in the footer */
    floe_pq_logical_type logical; /* kind NONE: no LogicalType */
    int32_t converted;            /* FLOE_PQ_CT_NONE (set by pqfx_col_init): none */
    int32_t precision, scale;     /* written when > 0 / >= 0 with a converted DECIMAL */
} pqfx_col;

static inline void pqfx_col_init(pqfx_col *c, const char *name, pqfx_kind kind, int width) {
    memset(c, 0, sizeof *c);
    c->name = name;
    c->kind = kind;
    c->width = width;
    c->converted = FLOE_PQ_CT_NONE;
    c->precision = -1;
    c->scale = -1;
}

/* Decimal text ("-12345", digits only) as big-endian two's complement in
 * `width` bytes (<= 48); false when it does not fit. */
static inline bool pqfx_decimal_bytes(const char *text, int width, uint8_t *out) {
    bool neg = *text == '-';
    if (neg) text++;
    memset(out, 0, (size_t)width);
    for (; *text; text++) {
        unsigned carry = (unsigned)(*text - '0');
        for (int i = width - 1; i >= 0; i--) {
            unsigned v = out[i] * 10u + carry;
            out[i] = (uint8_t)v;
            carry = v >> 8;
        }
        if (carry || (out[0] & 0x80)) return false;
    }
    if (neg) { /* two's complement: invert and add one */
        unsigned carry = 1;
        for (int i = width - 1; i >= 0; i--) {
            unsigned v = (uint8_t)~out[i] + carry;
            out[i] = (uint8_t)v;
            carry = v >> 8;
        }
    }
    return true;
}

/* The same in the fewest bytes (as Arrow writes BYTE_ARRAY decimals). */
static inline int pqfx_decimal_min_bytes(const char *text, uint8_t *out) {
    uint8_t full[48];
    if (!pqfx_decimal_bytes(text, 48, full)) return -1;
    int skip = 0;
    while (skip < 47 && ((full[skip] == 0 && !(full[skip + 1] & 0x80)) ||
                         (full[skip] == 0xff && (full[skip + 1] & 0x80))))
        skip++;
    memcpy(out, full + skip, (size_t)(48 - skip));
    return 48 - skip;
}

static inline floe_status pqfx_column_array(const pqfx_col *c, int rows, floe_type **type,
                                            floe_array **out) {
    floe_type *t = NULL;
    switch (c->kind) {
    case PQFX_I32: t = floe_type_primitive(FLOE_TYPE_INT32); break;
    case PQFX_I64: t = floe_type_primitive(FLOE_TYPE_INT64); break;
    case PQFX_FIXED: FLOE_TRY(floe_type_fixed_binary(c->width, &t)); break;
    case PQFX_BINARY: t = floe_type_primitive(FLOE_TYPE_BINARY); break;
    }
    floe_builder *b = NULL;
    floe_status st = floe_builder_new(t, rows, &b);
    for (int i = 0; !st && i < rows; i++) {
        if (c->null[i]) st = floe_builder_append_null(b);
        else if (c->kind == PQFX_I32) st = floe_builder_append_int32(b, (int32_t)c->ints[i]);
        else if (c->kind == PQFX_I64) st = floe_builder_append_int64(b, c->ints[i]);
        else if (c->kind == PQFX_FIXED) st = floe_builder_append_fixed(b, c->bytes[i]);
        else st = floe_builder_append_binary(b, c->bytes[i], c->lens[i]);
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    if (st) floe_type_release(t);
    else *type = t;
    return st;
}

/* Whole file into memory. */
static inline floe_status pqfx_slurp(const char *path, floe_buf *out) {
    floe_input *in = NULL;
    FLOE_TRY(floe_input_open_local(path, &in));
    uint64_t size = in->size;
    floe_status st = floe_buf_reserve(out, (size_t)size);
    if (!st) st = floe_input_read(in, 0, (size_t)size, out->data);
    if (!st) out->len = (size_t)size;
    floe_input_close(in);
    return st;
}

/* Write the data of open file f (read from `plain`) to `path` with f's
 * footer, as changed by the caller; closes f and removes `plain`. */
static inline floe_status pqfx_write_footer(floe_pq_file *f, const char *plain, const char *path) {
    floe_buf data = FLOE_BUF_INIT, footer = FLOE_BUF_INIT;
    floe_output *out = NULL;
    floe_status st = pqfx_slurp(plain, &data);
    if (!st) st = floe_pq_encode_file_metadata(f->meta, &footer);
    uint64_t data_end = f->footer_offset;
    floe_pq_file_close(f);
    if (!st) st = floe_output_create_local(path, 1, &out);
    if (!st) {
        uint8_t tail[8];
        uint32_t flen = (uint32_t)footer.len;
        for (int i = 0; i < 4; i++) tail[i] = (uint8_t)(flen >> (8 * i));
        memcpy(tail + 4, "PAR1", 4);
        st = floe_output_write(out, data.data, (size_t)data_end);
        if (!st) st = floe_output_write(out, footer.data, footer.len);
        if (!st) st = floe_output_write(out, tail, 8);
        if (!st) st = floe_output_close(out);
        else floe_output_abort(out);
    }
    floe_buf_free(&data);
    floe_buf_free(&footer);
    remove(plain);
    return st;
}

/* Write `rows` rows of the columns to `path` with the footer's annotations. */
static inline floe_status pqfx_write(const char *path, const pqfx_col *cols, int ncols, int rows) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.plain", path);
    floe_field fields[32];
    floe_array *arrays[32];
    if (ncols > 32 || rows > PQFX_MAX_ROWS)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "pqfx: too many columns or rows");
    floe_status st = NULL;
    int made = 0;
    for (; !st && made < ncols; made++) {
        floe_type *t = NULL;
        bool nullable = false;
        for (int i = 0; i < rows; i++) nullable |= cols[made].null[i];
        st = pqfx_column_array(&cols[made], rows, &t, &arrays[made]);
        if (st) break;
        st = floe_field_init(&fields[made], cols[made].name, t, nullable, -1);
        floe_type_release(t);
        if (st) {
            floe_array_release(arrays[made]);
            break;
        }
    }
    floe_schema *schema = NULL;
    floe_batch *batch = NULL;
    if (!st) st = floe_type_struct(fields, ncols, &schema);
    if (!st) st = floe_batch_new(schema, arrays, ncols, rows, &batch);
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.codec = FLOE_CODEC_NONE;
    o.write_page_index = false;
    o.write_page_stats = false;
    floe_output *out = NULL;
    floe_pq_writer *w = NULL;
    if (!st) st = floe_output_create_local(tmp, 1, &out);
    if (!st) st = floe_pq_writer_open(out, schema, &o, &w);
    if (!st) st = floe_pq_writer_write(w, batch);
    if (!st) {
        st = floe_pq_writer_close(w, NULL);
        w = NULL;
    }
    floe_pq_writer_abort(w);
    floe_batch_release(batch);
    floe_type_release(schema);
    for (int i = 0; i < made; i++) {
        floe_field_clear(&fields[i]);
        floe_array_release(arrays[i]);
    }
    if (st) return st;

    /* Rewrite the footer. */
    floe_pq_file *f = NULL;
    FLOE_TRY(floe_pq_file_open_path(tmp, &f));
    floe_pq_file_metadata *md = f->meta;
    for (uint32_t i = 1; i < md->num_schema && (int)i <= ncols; i++) {
        floe_pq_schema_element *e = &md->schema[i];
        const pqfx_col *c = &cols[i - 1];
        e->logical = c->logical;
        if (c->logical.kind == FLOE_PQ_LT_NONE) e->logical.kind = FLOE_PQ_LT_NONE;
        e->converted_type = c->converted;
        e->has_precision = c->precision >= 0;
        e->precision = c->precision;
        e->has_scale = c->scale >= 0;
        e->scale = c->scale;
        if (c->int96) {
            e->type = FLOE_PQ_INT96;
            e->has_type_length = false;
            e->type_length = 0;
        }
    }
    md->column_orders = NULL; /* orders were for the written types */
    md->num_column_orders = 0;
    for (uint32_t g = 0; g < md->num_row_groups; g++) {
        for (uint32_t k = 0; k < md->row_groups[g].num_columns; k++) {
            floe_pq_column_meta *m = &md->row_groups[g].columns[k].meta_data;
            m->has_statistics = false;
            memset(&m->statistics, 0, sizeof m->statistics);
            if ((int)k < ncols && cols[k].int96) m->type = FLOE_PQ_INT96;
        }
    }
    return pqfx_write_footer(f, tmp, path);
}

/* Write `batch` with floe's writer, then annotate as VARIANT(1) every
 * group whose name is one of names[0..n) (groups of binary `metadata` and
 * `value`, as Spark and Iceberg write unshredded variants).  Field ids the
 * writer gave the groups' children are dropped: the spec wants none. */
static inline floe_status pqfx_write_variant(const char *path, floe_batch *batch, const char *const *names, int n) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.plain", path);
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.codec = FLOE_CODEC_NONE;
    floe_output *out = NULL;
    floe_pq_writer *w = NULL;
    floe_status st = floe_output_create_local(tmp, 1, &out);
    if (!st) st = floe_pq_writer_open(out, batch->schema, &o, &w);
    if (!st) st = floe_pq_writer_write(w, batch);
    if (!st) {
        st = floe_pq_writer_close(w, NULL);
        w = NULL;
    }
    floe_pq_writer_abort(w);
    if (st) return st;
    floe_pq_file *f = NULL;
    FLOE_TRY(floe_pq_file_open_path(tmp, &f));
    floe_pq_file_metadata *md = f->meta;
    for (uint32_t i = 1; i < md->num_schema; i++) {
        floe_pq_schema_element *e = &md->schema[i];
        bool hit = false;
        for (int k = 0; k < n; k++) hit |= e->name && !strcmp(e->name, names[k]);
        if (!hit || !e->has_num_children || e->num_children <= 0) continue;
        memset(&e->logical, 0, sizeof e->logical);
        e->logical.kind = FLOE_PQ_LT_VARIANT;
        e->logical.raw_id = (int16_t)FLOE_PQ_LT_VARIANT;
        e->logical.algorithm = -1;
        e->logical.variant_version = 1;
        for (uint32_t j = i + 1; j <= i + (uint32_t)e->num_children && j < md->num_schema; j++)
            md->schema[j].has_field_id = false;
    }
    return pqfx_write_footer(f, tmp, path);
}

/* ------------------------------------------------------ named fixtures */

static inline floe_pq_logical_type pqfx_lt(floe_pq_logical_kind k) {
    floe_pq_logical_type lt;
    memset(&lt, 0, sizeof lt);
    lt.kind = k;
    lt.raw_id = (int16_t)k;
    lt.algorithm = -1;
    lt.variant_version = -1;
    return lt;
}

static inline floe_pq_logical_type pqfx_lt_decimal(int32_t p, int32_t s) {
    floe_pq_logical_type lt = pqfx_lt(FLOE_PQ_LT_DECIMAL);
    lt.precision = p;
    lt.scale = s;
    return lt;
}

/* Digits that n bytes of two's complement hold: floor(log10(2^(8n-1) - 1)). */
static inline int pqfx_max_digits(int n) {
    static const int d[] = {0, 2, 4, 6, 9, 11, 14, 16, 18, 21, 23, 26, 28, 31, 33, 35, 38,
                            40, 43, 45, 47, 50, 52, 55, 57, 59, 62, 64, 67, 69, 71, 74, 76};
    return n >= 0 && n <= 32 ? d[n] : 0;
}

/* A decimal column (FIXED of `width`, or BINARY in the fewest bytes when
 * width is 0) holding the texts (NULL = null). */
static inline void pqfx_decimal_col(pqfx_col *c, const char *name, int width, int32_t p,
                                    int32_t s, const char *const *vals, int n) {
    pqfx_col_init(c, name, width ? PQFX_FIXED : PQFX_BINARY, width);
    c->logical = pqfx_lt_decimal(p, s);
    c->converted = FLOE_PQ_CT_DECIMAL;
    c->precision = p;
    c->scale = s;
    for (int i = 0; i < n; i++) {
        if (!vals[i]) c->null[i] = true;
        else if (width) pqfx_decimal_bytes(vals[i], width, c->bytes[i]);
        else c->lens[i] = pqfx_decimal_min_bytes(vals[i], c->bytes[i]);
    }
}

static inline void pqfx_nines(char *out, int digits, bool neg) {
    int k = 0;
    if (neg) out[k++] = '-';
    for (int i = 0; i < digits; i++) out[k++] = '9';
    out[k] = 0;
}

/* Julian day and nanoseconds of the day of a civil UTC time (INT96). */
static inline void pqfx_int96(int64_t y, int m, int d, int64_t nanos_of_day, uint8_t out[12]) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468; /* since 1970-01-01 */
    int32_t jd = (int32_t)(days + 2440588);
    memcpy(out, &nanos_of_day, 8);
    memcpy(out + 8, &jd, 4);
}

#define PQFX_ROWS 8

/* Decimals that fit 128 bits on every physical type and width, negative
 * values, nulls, a converted-type-only column. */
static inline int pqfx_decimals(pqfx_col *cols) {
    int n = 0;
    static const char *const i32v[] = {"0", "1", "-1", "999999999", "-999999999", "12345", "-12345", NULL};
    pqfx_col_init(&cols[n], "d32_9_2", PQFX_I32, 0);
    cols[n].logical = pqfx_lt_decimal(9, 2);
    cols[n].converted = FLOE_PQ_CT_DECIMAL;
    cols[n].precision = 9;
    cols[n].scale = 2;
    for (int i = 0; i < PQFX_ROWS; i++) {
        if (i32v[i]) cols[n].ints[i] = atoll(i32v[i]);
        else cols[n].null[i] = true;
    }
    n++;
    static const int64_t i32s[] = {0, 9, -9, 5, -5, 1, -1, 3};
    pqfx_col_init(&cols[n], "d32_1_0", PQFX_I32, 0);
    cols[n].converted = FLOE_PQ_CT_DECIMAL; /* converted type only */
    cols[n].precision = 1;
    cols[n].scale = 0;
    memcpy(cols[n].ints, i32s, sizeof i32s);
    n++;
    static const int64_t i64v[] = {0, 999999999999999999LL, -999999999999999999LL, 123456789012345678LL,
                                   -1, 1, 10000, 0};
    pqfx_col_init(&cols[n], "d64_18_4", PQFX_I64, 0);
    cols[n].logical = pqfx_lt_decimal(18, 4);
    cols[n].converted = FLOE_PQ_CT_DECIMAL;
    cols[n].precision = 18;
    cols[n].scale = 4;
    memcpy(cols[n].ints, i64v, sizeof i64v);
    cols[n].null[7] = true;
    n++;
    static const int64_t i64s[] = {0, 9999999999LL, -9999999999LL, 42, -42, 2147483648LL, -2147483649LL, 7};
    pqfx_col_init(&cols[n], "d64_10_0", PQFX_I64, 0);
    cols[n].logical = pqfx_lt_decimal(10, 0); /* LogicalType only */
    memcpy(cols[n].ints, i64s, sizeof i64s);
    n++;
    static char names[17][32];
    static char texts[17][PQFX_ROWS][48];
    for (int w = 1; w <= 16; w++) {
        int p = pqfx_max_digits(w), s = p / 2;
        const char *v[PQFX_ROWS];
        pqfx_nines(texts[w][0], p, false);
        pqfx_nines(texts[w][1], p, true);
        snprintf(texts[w][2], 48, "0");
        snprintf(texts[w][3], 48, "1");
        snprintf(texts[w][4], 48, "-1");
        snprintf(texts[w][5], 48, "%.*s", p, "12345678901234567890123456789012345678");
        snprintf(texts[w][6], 48, "-%.*s", p > 1 ? p - 1 : 1, "98765432109876543210987654321098765432");
        for (int i = 0; i < 7; i++) v[i] = texts[w][i];
        v[7] = NULL;
        snprintf(names[w], sizeof names[w], "fx%d_%d_%d", w, p, s);
        pqfx_decimal_col(&cols[n++], names[w], w, p, s, v, PQFX_ROWS);
    }
    static const char *const wide[] = {"99999999999999999999999999999999999999",
                                       "-99999999999999999999999999999999999999", "0", "-1", "1",
                                       "170141183460469231731687303715884105727",
                                       "-170141183460469231731687303715884105727", NULL};
    /* FIXED[20] holding 38 digits: the extra bytes are sign fill. */
    static const char *const w38[] = {wide[0], wide[1], wide[2], wide[3], wide[4], "123", "-123", NULL};
    pqfx_decimal_col(&cols[n++], "fx20_38_6", 20, 38, 6, w38, PQFX_ROWS);
    pqfx_decimal_col(&cols[n++], "ba_38_10", 0, 38, 10, w38, PQFX_ROWS);
    static const char *const small[] = {"0", "127", "128", "-128", "-129", "99999", "-99999", NULL};
    pqfx_decimal_col(&cols[n++], "ba_5_2", 0, 5, 2, small, PQFX_ROWS);
    pqfx_decimal_col(&cols[n], "cv_fx6_12_3", 6, 12, 3, small, PQFX_ROWS);
    cols[n++].logical = pqfx_lt(FLOE_PQ_LT_NONE); /* converted type only */
    return n;
}

/* Decimals of precision 39 and more (pandas / Arrow decimal256). */
static inline int pqfx_big_decimals(pqfx_col *cols) {
    int n = 0;
    static char t[8][80];
    pqfx_nines(t[0], 40, false);
    pqfx_nines(t[1], 40, true);
    static const char *const v40[] = {t[0], t[1], "0", "1", "-1", "1234567890123456789012345678901234567890",
                                      "-1000000000000000000000000000000000000000", NULL};
    pqfx_decimal_col(&cols[n++], "fx17_40_5", 17, 40, 5, v40, PQFX_ROWS);
    pqfx_nines(t[2], 76, false);
    pqfx_nines(t[3], 76, true);
    static const char *const v76[] = {t[2], t[3], "0", "-5", "100000000000000000000000000000000000000000000000000",
                                      "170141183460469231731687303715884105728",
                                      "-170141183460469231731687303715884105729", NULL};
    pqfx_decimal_col(&cols[n++], "fx32_76_0", 32, 76, 0, v76, PQFX_ROWS);
    static const char *const v50[] = {"12345678901234567890123456789012345678901234567890",
                                      "-12345678901234567890123456789012345678901234567890",
                                      "0", "1", "-1", "99999999999999999999", "-314159265358979323846", NULL};
    pqfx_decimal_col(&cols[n++], "ba_50_20", 0, 50, 20, v50, PQFX_ROWS);
    static const char *const v39[] = {"999999999999999999999999999999999999999", "-1", "0", "1",
                                      "-999999999999999999999999999999999999999", "42", "-42", "7"};
    pqfx_decimal_col(&cols[n], "cv_ba_39_0", 0, 39, 0, v39, PQFX_ROWS);
    cols[n++].logical = pqfx_lt(FLOE_PQ_LT_NONE); /* converted type only */
    static const char *const v45[] = {"123456789012345678901234567890123456789012345",
                                      "-123456789012345678901234567890123456789012345", "0", "1", "-1",
                                      "5", "-5", NULL};
    pqfx_decimal_col(&cols[n++], "fx19_45_45", 19, 45, 45, v45, PQFX_ROWS);
    return n;
}

/* INT96 timestamps inside and outside the nanosecond range (1677-2262). */
static inline int pqfx_int96_range(pqfx_col *cols) {
    pqfx_col_init(&cols[0], "ts", PQFX_FIXED, 12);
    cols[0].int96 = true;
    const int64_t S = 1000000000LL, H = 3600 * S;
    pqfx_int96(2024, 1, 1, 12 * H + 34 * 60 * S + 56 * S + 123456789, cols[0].bytes[0]);
    pqfx_int96(1970, 1, 1, 0, cols[0].bytes[1]);
    pqfx_int96(1969, 12, 31, 24 * H - 1000, cols[0].bytes[2]);
    pqfx_int96(1500, 6, 15, 7 * H, cols[0].bytes[3]);
    pqfx_int96(3000, 1, 1, S / 2, cols[0].bytes[4]);
    pqfx_int96(9999, 12, 31, 24 * H - 1000, cols[0].bytes[5]);
    pqfx_int96(1, 1, 1, 0, cols[0].bytes[6]);
    cols[0].null[7] = true;
    pqfx_col_init(&cols[1], "id", PQFX_I32, 0);
    for (int i = 0; i < PQFX_ROWS; i++) cols[1].ints[i] = i;
    return 2;
}

/* INT96 timestamps all inside the nanosecond range. */
static inline int pqfx_int96_in_range(pqfx_col *cols) {
    pqfx_col_init(&cols[0], "ts", PQFX_FIXED, 12);
    cols[0].int96 = true;
    const int64_t S = 1000000000LL, H = 3600 * S;
    for (int i = 0; i < PQFX_ROWS; i++)
        pqfx_int96(1700 + 70 * i, 1 + i, 1 + 3 * i, i * H + 654321000LL * (i % 2), cols[0].bytes[i]);
    return 1;
}

/* Annotations floe reads as they are meant, unusual as they are. */
static inline int pqfx_unusual(pqfx_col *cols) {
    int n = 0;
    static const int64_t v[PQFX_ROWS] = {0, 1, -1, 100, -100, 127, -128, 42};
    static const int64_t u[PQFX_ROWS] = {0, 1, 255, 100, 200, 127, 128, 42};
    pqfx_col_init(&cols[n], "i8_ct", PQFX_I32, 0);
    cols[n].converted = FLOE_PQ_CT_INT_8;
    memcpy(cols[n++].ints, v, sizeof v);
    pqfx_col_init(&cols[n], "u8_ct", PQFX_I32, 0);
    cols[n].converted = FLOE_PQ_CT_UINT_8;
    memcpy(cols[n++].ints, u, sizeof u);
    pqfx_col_init(&cols[n], "u32_lt", PQFX_I32, 0);
    cols[n].logical = pqfx_lt(FLOE_PQ_LT_INTEGER);
    cols[n].logical.bit_width = 32;
    cols[n].converted = FLOE_PQ_CT_UINT_32;
    for (int i = 0; i < PQFX_ROWS; i++) cols[n].ints[i] = (int32_t)(uint32_t)(4000000000u - (uint32_t)i * 3);
    n++;
    pqfx_col_init(&cols[n], "time_ms_ct", PQFX_I32, 0);
    cols[n].converted = FLOE_PQ_CT_TIME_MILLIS;
    for (int i = 0; i < PQFX_ROWS; i++) cols[n].ints[i] = i * 3723004;
    n++;
    pqfx_col_init(&cols[n], "date_ct", PQFX_I32, 0);
    cols[n].converted = FLOE_PQ_CT_DATE;
    for (int i = 0; i < PQFX_ROWS; i++) cols[n].ints[i] = 19000 + i * 400 - 1600;
    n++;
    pqfx_col_init(&cols[n], "ts_ms_ct", PQFX_I64, 0);
    cols[n].converted = FLOE_PQ_CT_TIMESTAMP_MILLIS;
    for (int i = 0; i < PQFX_ROWS; i++) cols[n].ints[i] = 1700000000123LL + i * 86400001LL;
    n++;
    pqfx_col_init(&cols[n], "utf8_ct", PQFX_BINARY, 0);
    cols[n].converted = FLOE_PQ_CT_UTF8;
    for (int i = 0; i < PQFX_ROWS; i++) cols[n].lens[i] = snprintf((char *)cols[n].bytes[i], 48, "s%d", i);
    n++;
    pqfx_col_init(&cols[n], "uuid", PQFX_FIXED, 16);
    cols[n].logical = pqfx_lt(FLOE_PQ_LT_UUID);
    for (int i = 0; i < PQFX_ROWS; i++)
        for (int k = 0; k < 16; k++) cols[n].bytes[i][k] = (uint8_t)(i * 17 + k);
    n++;
    pqfx_col_init(&cols[n], "half", PQFX_FIXED, 2);
    cols[n].logical = pqfx_lt(FLOE_PQ_LT_FLOAT16);
    static const uint16_t h[PQFX_ROWS] = {0x0000, 0x3c00, 0xbc00, 0x4000, 0x3800, 0x7bff, 0x0001, 0xc500};
    for (int i = 0; i < PQFX_ROWS; i++) memcpy(cols[n].bytes[i], &h[i], 2);
    n++;
    return n;
}

/* One invalid annotation (`what`) beside a valid column; the names are the
 * fixture names of pq_fixture.c. */
static inline int pqfx_bad(const char *what, pqfx_col *cols) {
    pqfx_col_init(&cols[0], "ok", PQFX_I32, 0);
    for (int i = 0; i < PQFX_ROWS; i++) cols[0].ints[i] = i;
    pqfx_col *c = &cols[1];
    if (!strcmp(what, "bad_timestamp_int32")) {
        pqfx_col_init(c, "ts", PQFX_I32, 0);
        c->logical = pqfx_lt(FLOE_PQ_LT_TIMESTAMP);
        c->logical.unit = FLOE_PQ_UNIT_MILLIS;
        c->logical.utc = true;
    } else if (!strcmp(what, "bad_uint64_int32")) {
        pqfx_col_init(c, "u", PQFX_I32, 0);
        c->converted = FLOE_PQ_CT_UINT_64;
    } else if (!strcmp(what, "bad_date_binary")) {
        pqfx_col_init(c, "d", PQFX_BINARY, 0);
        c->logical = pqfx_lt(FLOE_PQ_LT_DATE);
        c->converted = FLOE_PQ_CT_DATE;
        for (int i = 0; i < PQFX_ROWS; i++) c->lens[i] = snprintf((char *)c->bytes[i], 48, "2024-01-0%d", i + 1);
    } else if (!strcmp(what, "bad_decimal_scale")) {
        pqfx_col_init(c, "dec", PQFX_I32, 0);
        c->logical = pqfx_lt_decimal(4, 6);
        c->converted = FLOE_PQ_CT_DECIMAL;
        c->precision = 4;
        c->scale = 6;
    } else if (!strcmp(what, "bad_string_int64")) {
        pqfx_col_init(c, "s", PQFX_I64, 0);
        c->logical = pqfx_lt(FLOE_PQ_LT_STRING);
    } else {
        return 0;
    }
    for (int i = 0; c->kind != PQFX_BINARY && i < PQFX_ROWS; i++) c->ints[i] = 1000 + i;
    return 2;
}

/* Write fixture `name` to `path`; INVALID_ARGUMENT for an unknown name. */
static inline floe_status pqfx_write_named(const char *name, const char *path) {
    pqfx_col *cols = floe_calloc(32, sizeof *cols);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "pqfx");
    int n = 0;
    if (!strcmp(name, "decimals")) n = pqfx_decimals(cols);
    else if (!strcmp(name, "big_decimals")) n = pqfx_big_decimals(cols);
    else if (!strcmp(name, "int96_range")) n = pqfx_int96_range(cols);
    else if (!strcmp(name, "int96_in_range")) n = pqfx_int96_in_range(cols);
    else if (!strcmp(name, "unusual")) n = pqfx_unusual(cols);
    else n = pqfx_bad(name, cols);
    floe_status st = n ? pqfx_write(path, cols, n, PQFX_ROWS)
                       : floe_error(FLOE_ERR_INVALID_ARGUMENT, "pqfx: no fixture '%s'", name);
    floe_free(cols);
    return st;
}

static const char *const PQFX_BAD_NAMES[] = {"bad_timestamp_int32", "bad_uint64_int32", "bad_date_binary",
                                              "bad_decimal_scale", "bad_string_int64"};

#endif

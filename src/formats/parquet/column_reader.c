/*
 * column_reader.c — one leaf column chunk: pages -> levels + dense values in
 * the engine's layout (see column_reader.h for the type mapping).
 *
 * Per data page we decode all definition and repetition levels up front
 * (they are small, and knowing them lets us count the page's non-null values
 * and find row boundaries), then decode values lazily as rows are asked for,
 * straight into the caller's buffer when no conversion is needed.
 * Dictionary pages are decoded and converted to the engine type once, so a
 * dictionary-encoded page costs an index decode plus a gather.
 */
#include <math.h>
#include <string.h>

#include "floe/memory.h"
#include "formats/parquet/column_reader.h"

/* ------------------------------------------------------------ type mapping */

static floe_type *prim(floe_type_id id) {
    return floe_type_primitive(id);
}

/* Target layout, conversion and engine type of a leaf. */
static floe_status leaf_plan(const floe_pq_column *col, int flags, pq_target *target,
                             pq_conv *conv, size_t *width, floe_type **type) {
    floe_pq_type p = col->physical;
    bool utc = col->utc;
    *conv = PQ_CONV_NONE;
    *target = PQ_T_FIXED;
    *width = 0;
    floe_type *t = NULL;
    if (col->invalid) return floe_error(FLOE_ERR_CORRUPT, "column '%s': %s", col->path, col->invalid);
    switch (col->kind) {
    case FLOE_PQ_KIND_BOOL:
        if (p != FLOE_PQ_BOOLEAN) goto bad;
        *target = PQ_T_BOOL;
        t = prim(FLOE_TYPE_BOOL);
        break;
    case FLOE_PQ_KIND_INT8: case FLOE_PQ_KIND_INT16: case FLOE_PQ_KIND_INT32:
    case FLOE_PQ_KIND_UINT8: case FLOE_PQ_KIND_UINT16: case FLOE_PQ_KIND_DATE:
        if (p != FLOE_PQ_INT32) goto bad;
        t = prim(col->kind == FLOE_PQ_KIND_DATE ? FLOE_TYPE_DATE32 : FLOE_TYPE_INT32);
        break;
    case FLOE_PQ_KIND_UINT32:
        if (p == FLOE_PQ_INT32) *conv = PQ_CONV_U32_TO_I64;
        else if (p != FLOE_PQ_INT64) goto bad;
        t = prim(FLOE_TYPE_INT64);
        break;
    case FLOE_PQ_KIND_INT64:
        if (p != FLOE_PQ_INT64) goto bad;
        t = prim(FLOE_TYPE_INT64);
        break;
    case FLOE_PQ_KIND_UINT64:
        /* Iceberg and floe have no unsigned types, and int64 cannot hold
         * 2^63 and above: decimal(20, 0) holds every value exactly. */
        if (p == FLOE_PQ_INT32) *conv = PQ_CONV_U32_TO_I64;
        else if (p == FLOE_PQ_INT64) *conv = PQ_CONV_U64_DEC;
        else goto bad;
        if (p == FLOE_PQ_INT32) t = prim(FLOE_TYPE_INT64);
        else FLOE_TRY(floe_type_decimal(20, 0, &t));
        break;
    case FLOE_PQ_KIND_FLOAT16:
        if (p != FLOE_PQ_FIXED_LEN_BYTE_ARRAY || col->type_length != 2) goto bad;
        *conv = PQ_CONV_F16;
        t = prim(FLOE_TYPE_FLOAT32);
        break;
    case FLOE_PQ_KIND_FLOAT:
        if (p != FLOE_PQ_FLOAT) goto bad;
        t = prim(FLOE_TYPE_FLOAT32);
        break;
    case FLOE_PQ_KIND_DOUBLE:
        if (p != FLOE_PQ_DOUBLE) goto bad;
        t = prim(FLOE_TYPE_FLOAT64);
        break;
    case FLOE_PQ_KIND_DECIMAL:
        if (col->precision < 1)
            return floe_error(FLOE_ERR_CORRUPT, "column '%s': decimal precision %d", col->path,
                              col->precision);
        if (col->precision > 38) {
            /* Wider than decimal128 (pandas / Arrow decimal256): a double,
             * as DuckDB reads them — about 16 significant digits kept. */
            if (p == FLOE_PQ_FIXED_LEN_BYTE_ARRAY) *conv = PQ_CONV_DEC_FIXED_F64;
            else if (p == FLOE_PQ_BYTE_ARRAY) *conv = PQ_CONV_DEC_BINARY_F64;
            else goto bad;
            t = prim(FLOE_TYPE_FLOAT64);
            break;
        }
        switch (p) {
        case FLOE_PQ_INT32: *conv = PQ_CONV_DEC32; break;
        case FLOE_PQ_INT64: *conv = PQ_CONV_DEC64; break;
        case FLOE_PQ_FIXED_LEN_BYTE_ARRAY: *conv = PQ_CONV_DEC_FIXED; break;
        case FLOE_PQ_BYTE_ARRAY: *conv = PQ_CONV_DEC_BINARY; break;
        default: goto bad;
        }
        FLOE_TRY(floe_type_decimal(col->precision, col->scale, &t));
        break;
    case FLOE_PQ_KIND_TIME_MS:
        if (p != FLOE_PQ_INT32) goto bad;
        *conv = PQ_CONV_I32_MUL1000;
        t = prim(FLOE_TYPE_TIME64_US);
        break;
    case FLOE_PQ_KIND_TIME_US: case FLOE_PQ_KIND_TIME_NS:
        if (p != FLOE_PQ_INT64) goto bad;
        if (col->kind == FLOE_PQ_KIND_TIME_NS) *conv = PQ_CONV_I64_DIV1000;
        t = prim(FLOE_TYPE_TIME64_US);
        break;
    case FLOE_PQ_KIND_TIMESTAMP_MS: case FLOE_PQ_KIND_TIMESTAMP_US:
        if (p != FLOE_PQ_INT64) goto bad;
        if (col->kind == FLOE_PQ_KIND_TIMESTAMP_MS) *conv = PQ_CONV_I64_MUL1000;
        t = prim(utc ? FLOE_TYPE_TIMESTAMP_US_TZ : FLOE_TYPE_TIMESTAMP_US);
        break;
    case FLOE_PQ_KIND_TIMESTAMP_NS:
        if (p == FLOE_PQ_INT96 && !(flags & PQ_INT96_AS_NS)) {
            *conv = PQ_CONV_INT96_US;
            t = prim(utc ? FLOE_TYPE_TIMESTAMP_US_TZ : FLOE_TYPE_TIMESTAMP_US);
            break;
        }
        if (p == FLOE_PQ_INT96) *conv = PQ_CONV_INT96_NS;
        else if (p != FLOE_PQ_INT64) goto bad;
        t = prim(utc ? FLOE_TYPE_TIMESTAMP_NS_TZ : FLOE_TYPE_TIMESTAMP_NS);
        break;
    case FLOE_PQ_KIND_STRING: case FLOE_PQ_KIND_BINARY:
        if (p != FLOE_PQ_BYTE_ARRAY) goto bad;
        *target = PQ_T_BINARY;
        t = prim(col->kind == FLOE_PQ_KIND_STRING ? FLOE_TYPE_STRING : FLOE_TYPE_BINARY);
        break;
    case FLOE_PQ_KIND_FIXED:
        if (p == FLOE_PQ_INT96) {
            /* INT96 without a timestamp reading: keep the 12 raw bytes. */
            FLOE_TRY(floe_type_fixed_binary(12, &t));
            break;
        }
        if (p != FLOE_PQ_FIXED_LEN_BYTE_ARRAY || col->type_length <= 0) goto bad;
        FLOE_TRY(floe_type_fixed_binary(col->type_length, &t));
        break;
    case FLOE_PQ_KIND_UUID:
        if (p != FLOE_PQ_FIXED_LEN_BYTE_ARRAY || col->type_length != 16) goto bad;
        t = prim(FLOE_TYPE_UUID);
        break;
    case FLOE_PQ_KIND_NULL:
        *target = PQ_T_NULL;
        t = prim(FLOE_TYPE_NULL);
        break;
    default:
        goto bad;
    }
    if (*target == PQ_T_FIXED) *width = (size_t)t->byte_width;
    *type = t;
    return NULL;
bad:
    return floe_error(FLOE_ERR_UNSUPPORTED, "column '%s': %s stored as %s is not supported",
                      col->path, floe_pq_kind_name(col->kind), floe_pq_type_name(p));
}

floe_status pq_leaf_type(const floe_pq_column *col, int flags, floe_type **out) {
    pq_target t;
    pq_conv c;
    size_t w;
    return leaf_plan(col, flags, &t, &c, &w, out);
}

floe_status pq_field_type(const floe_pq_field *f, int flags, floe_type **out) {
    *out = NULL;
    if (f->kind == FLOE_PQ_KIND_VARIANT) {
        if (f->invalid) return floe_error(FLOE_ERR_CORRUPT, "column '%s': %s", f->name, f->invalid);
        *out = floe_type_primitive(FLOE_TYPE_VARIANT);
        return NULL;
    }
    if (f->kind == FLOE_PQ_KIND_STRUCT) {
        floe_field *fields = floe_calloc((size_t)f->num_children + 1, sizeof *fields);
        if (!fields) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory for a struct type");
        floe_status st = NULL;
        int i;
        for (i = 0; i < f->num_children && !st; i++) {
            const floe_pq_field *c = f->children[i];
            floe_type *ct;
            st = pq_field_type(c, flags, &ct);
            if (st) break;
            st = floe_field_init(&fields[i], c->name, ct, c->nullable,
                                 c->has_field_id ? c->field_id : -1);
            floe_type_release(ct);
        }
        if (!st) st = floe_type_struct(fields, f->num_children, out);
        for (int j = 0; j < f->num_children; j++) floe_field_clear(&fields[j]);
        floe_free(fields);
        return st;
    }
    if (f->kind == FLOE_PQ_KIND_LIST || f->kind == FLOE_PQ_KIND_MAP) {
        floe_field kids[2];
        memset(kids, 0, sizeof kids);
        floe_status st = NULL;
        int n = f->kind == FLOE_PQ_KIND_LIST ? 1 : 2;
        if (f->num_children != n)
            return floe_error(FLOE_ERR_CORRUPT, "field '%s': %s with %d children", f->name,
                              floe_pq_kind_name(f->kind), f->num_children);
        static const char *const names[2][2] = {{"element", NULL}, {"key", "value"}};
        for (int i = 0; i < n && !st; i++) {
            const floe_pq_field *c = f->children[i];
            floe_type *ct;
            st = pq_field_type(c, flags, &ct);
            if (st) break;
            st = floe_field_init(&kids[i], names[n - 1][i], ct, i == 0 && n == 2 ? false : c->nullable,
                                 c->has_field_id ? c->field_id : -1);
            floe_type_release(ct);
        }
        if (!st)
            st = n == 1 ? floe_type_list(&kids[0], out) : floe_type_map(&kids[0], &kids[1], false, out);
        for (int i = 0; i < n; i++) floe_field_clear(&kids[i]);
        return st;
    }
    if (!f->column) return floe_error(FLOE_ERR_CORRUPT, "field '%s' has no column", f->name);
    return pq_leaf_type(f->column, flags, out);
}

/* ------------------------------------------------------------- leaf output */

void pq_leaf_out_init(pq_leaf_out *o) {
    memset(o, 0, sizeof *o);
    o->def_all_max = true;
}

void pq_leaf_out_reset(pq_leaf_out *o) {
    floe_buf_clear(&o->def);
    floe_buf_clear(&o->rep);
    floe_buf_clear(&o->vals);
    floe_buf_clear(&o->data);
    o->nlevels = o->nvals = o->rows = 0;
    o->def_all_max = true;
}

void pq_leaf_out_free(pq_leaf_out *o) {
    floe_buf_free(&o->def);
    floe_buf_free(&o->rep);
    floe_buf_free(&o->vals);
    floe_buf_free(&o->data);
    pq_leaf_out_init(o);
}

/* --------------------------------------------------------------- converts */

static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        float v = ldexpf((float)man, -24);
        return sign ? -v : v;
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* Big-endian two's complement of `len` bytes -> decimal128. */
static floe_status be_to_decimal(const uint8_t *b, size_t len, floe_decimal128 *out,
                                 const pq_column_reader *c) {
    if (len == 0) {
        out->lo = 0;
        out->hi = 0;
        return NULL;
    }
    uint8_t fill = (b[0] & 0x80) ? 0xff : 0x00;
    if (len > 16) {
        /* Wider than 128 bits: fine only if the extra bytes are sign fill. */
        for (size_t i = 0; i < len - 16; i++)
            if (b[i] != fill || ((b[len - 16] & 0x80) != (fill & 0x80)))
                return floe_error(FLOE_ERR_UNSUPPORTED,
                                  "column '%s': decimal value does not fit 128 bits", c->name);
        b += len - 16;
        len = 16;
    }
    uint8_t le[16];
    for (size_t i = 0; i < 16; i++) le[i] = i < len ? b[len - 1 - i] : fill;
    memcpy(&out->lo, le, 8);
    memcpy(&out->hi, le + 8, 8);
    return NULL;
}

/* Big-endian two's complement of `len` bytes, over 10^scale, as the
 * nearest double (accumulated in long double, then rounded once). */
static double be_to_double(const uint8_t *b, size_t len, int32_t scale) {
    if (len == 0) return 0.0;
    bool neg = (b[0] & 0x80) != 0;
    long double v = 0;
    for (size_t i = 0; i < len; i++) v = v * 256.0L + (long double)(uint8_t)(neg ? ~b[i] : b[i]);
    if (neg) v = -(v + 1.0L); /* -x = ~x + 1 */
    return (double)(v / powl(10.0L, (long double)scale));
}

/* Convert n physical values (fixed layout in `src`, or binary offsets/data)
 * into the target layout at dst. */
static floe_status convert(const pq_column_reader *c, const uint8_t *src, const int32_t *offs,
                           const uint8_t *bdata, size_t n, uint8_t *dst) {
    switch (c->conv) {
    case PQ_CONV_NONE:
        memcpy(dst, src, n * c->width);
        break;
    case PQ_CONV_U32_TO_I64:
        for (size_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, src + 4 * i, 4);
            int64_t w = (int64_t)v;
            memcpy(dst + 8 * i, &w, 8);
        }
        break;
    case PQ_CONV_I32_MUL1000:
        for (size_t i = 0; i < n; i++) {
            int32_t v;
            memcpy(&v, src + 4 * i, 4);
            int64_t w = (int64_t)v * 1000;
            memcpy(dst + 8 * i, &w, 8);
        }
        break;
    case PQ_CONV_I64_MUL1000:
    case PQ_CONV_I64_DIV1000:
        for (size_t i = 0; i < n; i++) {
            int64_t v;
            memcpy(&v, src + 8 * i, 8);
            v = c->conv == PQ_CONV_I64_MUL1000 ? (int64_t)((uint64_t)v * 1000u) : v / 1000;
            memcpy(dst + 8 * i, &v, 8);
        }
        break;
    case PQ_CONV_INT96_NS:
    case PQ_CONV_INT96_US:
        for (size_t i = 0; i < n; i++) {
            int64_t nanos, v;
            int32_t jd;
            memcpy(&nanos, src + 12 * i, 8);
            memcpy(&jd, src + 12 * i + 8, 4);
            int64_t days = (int64_t)jd - 2440588;
            if (c->conv == PQ_CONV_INT96_US) {
                /* Two's-complement wrap, as Spark computes it both ways: its
                 * writer wraps far-future instants, and this gets them back. */
                v = (int64_t)((uint64_t)days * 86400000000ull + (uint64_t)(nanos / 1000));
            } else if (__builtin_mul_overflow(days, 86400000000000LL, &v) ||
                       __builtin_add_overflow(v, nanos, &v)) {
                return floe_error(FLOE_ERR_UNSUPPORTED,
                                  "column '%s': INT96 timestamp (julian day %d) is outside the "
                                  "nanosecond range (years 1677-2262); read it with INT96 as "
                                  "microseconds (the default)",
                                  c->name, jd);
            }
            memcpy(dst + 8 * i, &v, 8);
        }
        break;
    case PQ_CONV_U64_DEC:
        for (size_t i = 0; i < n; i++) {
            floe_decimal128 d;
            memcpy(&d.lo, src + 8 * i, 8);
            d.hi = 0;
            memcpy(dst + 16 * i, &d, 16);
        }
        break;
    case PQ_CONV_F16:
        for (size_t i = 0; i < n; i++) {
            uint16_t h;
            memcpy(&h, src + 2 * i, 2);
            float f = half_to_float(h);
            memcpy(dst + 4 * i, &f, 4);
        }
        break;
    case PQ_CONV_DEC32:
    case PQ_CONV_DEC64:
        for (size_t i = 0; i < n; i++) {
            int64_t v;
            if (c->conv == PQ_CONV_DEC32) {
                int32_t x;
                memcpy(&x, src + 4 * i, 4);
                v = x;
            } else {
                memcpy(&v, src + 8 * i, 8);
            }
            floe_decimal128 d = floe_decimal128_from_int64(v);
            memcpy(dst + 16 * i, &d, 16);
        }
        break;
    case PQ_CONV_DEC_FIXED:
        for (size_t i = 0; i < n; i++) {
            floe_decimal128 d;
            FLOE_TRY(be_to_decimal(src + c->phys_width * i, c->phys_width, &d, c));
            memcpy(dst + 16 * i, &d, 16);
        }
        break;
    case PQ_CONV_DEC_BINARY:
        for (size_t i = 0; i < n; i++) {
            floe_decimal128 d;
            FLOE_TRY(be_to_decimal(bdata + offs[i], (size_t)(offs[i + 1] - offs[i]), &d, c));
            memcpy(dst + 16 * i, &d, 16);
        }
        break;
    case PQ_CONV_DEC_FIXED_F64:
        for (size_t i = 0; i < n; i++) {
            double d = be_to_double(src + c->phys_width * i, c->phys_width, c->col->scale);
            memcpy(dst + 8 * i, &d, 8);
        }
        break;
    case PQ_CONV_DEC_BINARY_F64:
        for (size_t i = 0; i < n; i++) {
            double d = be_to_double(bdata + offs[i], (size_t)(offs[i + 1] - offs[i]), c->col->scale);
            memcpy(dst + 8 * i, &d, 8);
        }
        break;
    }
    return NULL;
}

/* BYTE_ARRAY values converted into a fixed-width target (decimals). */
static bool binary_source(const pq_column_reader *c) {
    return c->conv == PQ_CONV_DEC_BINARY || c->conv == PQ_CONV_DEC_BINARY_F64;
}

/* ------------------------------------------------------------------ setup */

floe_status pq_column_reader_init(pq_column_reader *c, const floe_pq_column *col,
                                  const uint8_t *chunk, size_t len, uint64_t origin,
                                  int32_t codec, int64_t num_values, bool verify_crc,
                                  int flags) {
    /* Keep the scratch buffers of a recycled reader (see
     * pq_column_reader_recycle): reusing warm memory avoids page faults. */
    floe_buf keep[8] = {c->pages.scratch, c->page_def, c->page_rep, c->idx,
                        c->phys,          c->phys_data, c->dict_vals, c->dict_data};
    memset(c, 0, sizeof *c);
    c->pages.scratch = keep[0];
    c->page_def = keep[1];
    c->page_rep = keep[2];
    c->idx = keep[3];
    c->phys = keep[4];
    c->phys_data = keep[5];
    c->dict_vals = keep[6];
    c->dict_data = keep[7];
    floe_buf_clear(&c->page_def);
    floe_buf_clear(&c->page_rep);
    floe_buf_clear(&c->idx);
    floe_buf_clear(&c->phys);
    floe_buf_clear(&c->phys_data);
    floe_buf_clear(&c->dict_vals);
    floe_buf_clear(&c->dict_data);
    c->col = col;
    c->name = floe_strdup(col->path ? col->path : "?");
    if (!c->name) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    floe_type *t = NULL;
    floe_status st = leaf_plan(col, flags, &c->target, &c->conv, &c->width, &t);
    floe_type_release(t);
    if (st) {
        pq_column_reader_free(c);
        return st;
    }
    switch (col->physical) {
    case FLOE_PQ_INT32: case FLOE_PQ_FLOAT: c->phys_width = 4; break;
    case FLOE_PQ_INT64: case FLOE_PQ_DOUBLE: c->phys_width = 8; break;
    case FLOE_PQ_INT96: c->phys_width = 12; break;
    case FLOE_PQ_FIXED_LEN_BYTE_ARRAY: c->phys_width = (size_t)col->type_length; break;
    default: c->phys_width = 0;
    }
    floe_codec fc;
    if ((st = pq_codec_from_parquet(codec, &fc))) {
        st = floe_status_wrap(st, "column '%s'", c->name);
        pq_column_reader_free(c);
        return st;
    }
    floe_buf scratch = c->pages.scratch;
    pq_page_reader_init(&c->pages, chunk, len, origin, fc, col->max_def_level,
                        col->max_rep_level, num_values, c->name);
    c->pages.scratch = scratch;
    floe_buf_clear(&c->pages.scratch);
    c->pages.verify_crc = verify_crc;
    return NULL;
}

static void drop_page_decoders(pq_column_reader *c) {
    if (c->delta_live) pq_delta_free(&c->delta);
    if (c->dlba_live) pq_dlba_free(&c->dlba);
    if (c->dba_live) pq_dba_free(&c->dba);
    c->delta_live = c->dlba_live = c->dba_live = false;
}

void pq_column_reader_recycle(pq_column_reader *c) {
    drop_page_decoders(c);
    floe_free(c->name);
    c->name = NULL;
    c->has_dict = false;
}

void pq_column_reader_free(pq_column_reader *c) {
    drop_page_decoders(c);
    pq_page_reader_free(&c->pages);
    floe_buf_free(&c->dict_vals);
    floe_buf_free(&c->dict_data);
    floe_buf_free(&c->page_def);
    floe_buf_free(&c->page_rep);
    floe_buf_free(&c->idx);
    floe_buf_free(&c->phys);
    floe_buf_free(&c->phys_data);
    floe_free(c->name);
    c->name = NULL;
}

/* ---------------------------------------------------------------- pages */

static floe_status load_dictionary(pq_column_reader *c, const pq_page *p) {
    if (p->encoding != FLOE_PQ_ENC_PLAIN && p->encoding != FLOE_PQ_ENC_PLAIN_DICTIONARY)
        return floe_error(FLOE_ERR_UNSUPPORTED,
                          "column '%s': dictionary page at offset %llu uses encoding %s",
                          c->name, (unsigned long long)p->offset,
                          floe_pq_encoding_name(p->encoding));
    if (p->num_values < 0)
        return floe_error(FLOE_ERR_CORRUPT, "column '%s': dictionary page at offset %llu has %d values",
                          c->name, (unsigned long long)p->offset, p->num_values);
    if (c->target == PQ_T_NULL) {
        /* A null-typed column never looks its values up. */
        c->dict_n = 0;
        c->has_dict = true;
        return NULL;
    }
    if (c->target == PQ_T_BOOL)
        return floe_error(FLOE_ERR_CORRUPT, "column '%s': dictionary page for a BOOLEAN column",
                          c->name);
    size_t n = (size_t)p->num_values;
    /* Check the count against the bytes before sizing anything by it. */
    size_t min_bytes = c->target == PQ_T_BINARY || binary_source(c) ? 4 : c->phys_width;
    if (min_bytes && n > p->values_len / min_bytes)
        return floe_error(FLOE_ERR_CORRUPT,
                          "column '%s': dictionary page at offset %llu claims %zu values in %zu "
                          "bytes",
                          c->name, (unsigned long long)p->offset, n, p->values_len);
    pq_plain d;
    pq_plain_init(&d, p->values, p->values_len, p->values_offset);
    floe_buf_clear(&c->dict_vals);
    floe_buf_clear(&c->dict_data);
    if (c->target == PQ_T_BINARY) {
        int32_t *off = (int32_t *)(void *)floe_buf_extend(&c->dict_vals, (n + 1) * 4);
        if (!off) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory for a dictionary");
        off[0] = 0;
        FLOE_TRY_CTX(pq_plain_binary(&d, off, &c->dict_data, n), "column '%s': dictionary", c->name);
        if (c->col->kind == FLOE_PQ_KIND_STRING && n) {
            size_t bad = pq_utf8_check(off, c->dict_data.data, n);
            if (bad < n)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "column '%s': dictionary entry %zu is not valid UTF-8 (page at "
                                  "offset %llu)",
                                  c->name, bad, (unsigned long long)p->offset);
        }
        int32_t longest = 0;
        for (size_t i = 0; i < n; i++)
            if (off[i + 1] - off[i] > longest) longest = off[i + 1] - off[i];
        c->dict_max_len = (uint32_t)longest;
        /* Slack after the last value lets the gather copy short strings
         * with fixed-size moves. */
        FLOE_TRY(floe_buf_reserve(&c->dict_data, PQ_GATHER_SLACK));
    } else {
        uint8_t *dst = floe_buf_extend(&c->dict_vals, n * c->width + 1);
        if (!dst) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory for a dictionary");
        c->dict_vals.len = n * c->width;
        if (binary_source(c)) {
            floe_buf_clear(&c->phys);
            floe_buf_clear(&c->phys_data);
            int32_t *off = (int32_t *)(void *)floe_buf_extend(&c->phys, (n + 1) * 4);
            if (!off) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory for a dictionary");
            off[0] = 0;
            FLOE_TRY_CTX(pq_plain_binary(&d, off, &c->phys_data, n), "column '%s': dictionary",
                         c->name);
            FLOE_TRY(convert(c, NULL, off, c->phys_data.data, n, dst));
        } else {
            const uint8_t *src;
            FLOE_TRY_CTX(pq_plain_fixed_view(&d, c->phys_width, n, &src),
                         "column '%s': dictionary", c->name);
            FLOE_TRY(convert(c, src, NULL, NULL, n, dst));
        }
    }
    c->dict_n = (uint32_t)n;
    c->has_dict = true;
    return NULL;
}

/* True when the page's definition levels are one RLE run of max_def that
 * covers every entry: the common "no nulls" page, which then needs neither
 * level decoding nor counting. Anything else returns false and takes the
 * general path, which also reports corruption. */
static bool def_page_all_max(const pq_page *p, int16_t max) {
    const uint8_t *q = p->def;
    size_t len = p->def_len;
    if (!q) return false;
    if (!p->v2_levels) {
        uint32_t m;
        if (p->def_encoding != FLOE_PQ_ENC_RLE || len < 4) return false;
        memcpy(&m, q, 4);
        if (m > len - 4) return false;
        q += 4;
        len = m;
    }
    uint64_t h = 0;
    size_t i = 0;
    for (int shift = 0;; shift += 7) {
        if (i >= len || shift > 28) return false;
        uint8_t b = q[i++];
        h |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
    }
    if ((h & 1) || (h >> 1) < (uint64_t)p->num_values) return false; /* bit-packed or short */
    size_t vb = (size_t)(pq_bit_width((uint64_t)max) + 7) / 8;
    if (vb > len - i) return false;
    uint32_t v = 0;
    for (size_t k = 0; k < vb; k++) v |= (uint32_t)q[i + k] << (8 * k);
    return v == (uint32_t)max;
}

static floe_status decode_levels(pq_column_reader *c, const pq_page *p, bool rep, floe_buf *buf) {
    int16_t max = rep ? c->col->max_rep_level : c->col->max_def_level;
    const uint8_t *data = rep ? p->rep : p->def;
    size_t len = rep ? p->rep_len : p->def_len;
    int32_t enc = rep ? p->rep_encoding : p->def_encoding;
    size_t n = (size_t)p->num_values;
    floe_buf_clear(buf);
    int16_t *out = (int16_t *)(void *)floe_buf_extend(buf, n * 2 + 2);
    if (!out) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory for levels");
    buf->len = n * 2;
    int bw = pq_bit_width((uint64_t)max);
    uint64_t at = p->values_offset;
    if (enc == FLOE_PQ_ENC_BIT_PACKED && !p->v2_levels) {
        size_t used;
        return pq_bitpacked_legacy_decode(data, len, bw, at, out, n, &used);
    }
    pq_rle d;
    if (p->v2_levels) {
        FLOE_TRY(pq_rle_init(&d, data, len, bw, at));
    } else {
        size_t used;
        FLOE_TRY(pq_rle_init_prefixed(&d, data, len, bw, at, &used));
    }
    return pq_rle_get_i16_max(&d, out, n, max);
}

static floe_status start_values(pq_column_reader *c, const pq_page *p) {
    drop_page_decoders(c);
    c->enc = p->encoding;
    uint64_t at = p->values_offset;
    switch (p->encoding) {
    case FLOE_PQ_ENC_PLAIN:
        pq_plain_init(&c->plain, p->values, p->values_len, at);
        return NULL;
    case FLOE_PQ_ENC_PLAIN_DICTIONARY:
    case FLOE_PQ_ENC_RLE_DICTIONARY:
        if (!c->has_dict)
            return floe_error(FLOE_ERR_CORRUPT,
                              "column '%s': dictionary-encoded page at offset %llu but no "
                              "dictionary page",
                              c->name, (unsigned long long)p->offset);
        if (p->values_len == 0) {
            if (c->vals_n > 0)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "column '%s': page at offset %llu lacks its index bit width",
                                  c->name, (unsigned long long)p->offset);
            return pq_rle_init(&c->rle, p->values, 0, 0, at);
        }
        return pq_rle_init(&c->rle, p->values + 1, p->values_len - 1, p->values[0], at + 1);
    case FLOE_PQ_ENC_RLE:
        if (c->target != PQ_T_BOOL) break;
        {
            size_t used;
            return pq_rle_init_prefixed(&c->rle, p->values, p->values_len, 1, at, &used);
        }
    case FLOE_PQ_ENC_DELTA_BINARY_PACKED:
        if (c->col->physical != FLOE_PQ_INT32 && c->col->physical != FLOE_PQ_INT64) break;
        FLOE_TRY(pq_delta_init(&c->delta, p->values, p->values_len,
                               c->col->physical == FLOE_PQ_INT32, at));
        c->delta_live = true;
        return NULL;
    case FLOE_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
        if (c->col->physical != FLOE_PQ_BYTE_ARRAY) break;
        FLOE_TRY(pq_dlba_init(&c->dlba, p->values, p->values_len, at));
        c->dlba_live = true;
        return NULL;
    case FLOE_PQ_ENC_DELTA_BYTE_ARRAY:
        if (c->col->physical != FLOE_PQ_BYTE_ARRAY &&
            c->col->physical != FLOE_PQ_FIXED_LEN_BYTE_ARRAY)
            break;
        FLOE_TRY(pq_dba_init(&c->dba, p->values, p->values_len, at));
        c->dba_live = true;
        return NULL;
    case FLOE_PQ_ENC_BYTE_STREAM_SPLIT:
        if (c->phys_width == 0) break;
        if ((uint64_t)c->vals_n * c->phys_width > p->values_len)
            return floe_error(FLOE_ERR_CORRUPT,
                              "column '%s': BYTE_STREAM_SPLIT page at offset %llu too short",
                              c->name, (unsigned long long)p->offset);
        return NULL;
    default:
        break;
    }
    return floe_error(FLOE_ERR_UNSUPPORTED,
                      "column '%s': page at offset %llu uses encoding %s for %s values",
                      c->name, (unsigned long long)p->offset, floe_pq_encoding_name(p->encoding),
                      floe_pq_type_name(c->col->physical));
}

/* Load the next data page (reading a dictionary page on the way); sets
 * c->eof at the end of the chunk. */
static floe_status next_page(pq_column_reader *c) {
    for (;;) {
        bool eof;
        FLOE_TRY(pq_page_next(&c->pages, &c->page, &eof));
        if (eof) {
            c->eof = true;
            c->in_page = false;
            return NULL;
        }
        if (c->page.type == FLOE_PQ_PAGE_DICTIONARY) {
            FLOE_TRY(load_dictionary(c, &c->page));
            continue;
        }
        const pq_page *p = &c->page;
        if (p->num_values < 0)
            return floe_error(FLOE_ERR_CORRUPT, "column '%s': page at offset %llu has %d values",
                              c->name, (unsigned long long)p->offset, p->num_values);
        if (c->col->max_rep_level > 0) FLOE_TRY_CTX(decode_levels(c, p, true, &c->page_rep),
                                                   "column '%s': repetition levels", c->name);
        c->lvl_n = p->num_values;
        c->lvl_pos = 0;
        c->page_all_def = c->col->max_def_level > 0 && def_page_all_max(p, c->col->max_def_level);
        if (c->col->max_def_level > 0 && !c->page_all_def) {
            FLOE_TRY_CTX(decode_levels(c, p, false, &c->page_def),
                         "column '%s': definition levels", c->name);
            const int16_t *d = (const int16_t *)(const void *)c->page_def.data;
            int16_t max = c->col->max_def_level;
            int64_t nn = 0;
            for (int64_t i = 0; i < c->lvl_n; i++) nn += d[i] == max;
            c->vals_n = nn;
            /* Levels that merely happen to be all max (bit-packed, or split
             * into runs) still spare the batch its copies and counts. */
            c->page_all_def = nn == c->lvl_n;
        } else {
            c->vals_n = c->lvl_n;
        }
        c->vals_pos = 0;
        if (c->col->max_rep_level > 0 && c->lvl_n > 0 &&
            ((const int16_t *)(const void *)c->page_rep.data)[0] != 0 && c->page.v2_levels)
            return floe_error(FLOE_ERR_CORRUPT,
                              "column '%s': data page v2 at offset %llu does not start a row",
                              c->name, (unsigned long long)p->offset);
        FLOE_TRY_CTX(start_values(c, p), "column '%s'", c->name);
        c->in_page = true;
        return NULL;
    }
}

/* Decode n physical values into phys (fixed) or phys/phys_data (binary). */
static floe_status decode_phys_fixed(pq_column_reader *c, size_t n, uint8_t *dst) {
    switch (c->enc) {
    case FLOE_PQ_ENC_PLAIN:
        return pq_plain_fixed(&c->plain, c->phys_width, dst, n);
    case FLOE_PQ_ENC_DELTA_BINARY_PACKED:
        return c->col->physical == FLOE_PQ_INT32
                   ? pq_delta_get_i32(&c->delta, (int32_t *)(void *)dst, n)
                   : pq_delta_get_i64(&c->delta, (int64_t *)(void *)dst, n);
    case FLOE_PQ_ENC_BYTE_STREAM_SPLIT:
        return pq_bss_decode(c->page.values, c->page.values_len, c->phys_width,
                             (uint64_t)c->vals_n, (uint64_t)c->vals_pos, n, dst,
                             c->page.values_offset);
    case FLOE_PQ_ENC_DELTA_BYTE_ARRAY:
        return pq_dba_get_fixed(&c->dba, c->phys_width, dst, n);
    default:
        return floe_error(FLOE_ERR_INTERNAL, "column '%s': encoding %d reached the fixed decoder",
                          c->name, c->enc);
    }
}

static floe_status decode_phys_binary(pq_column_reader *c, size_t n, int32_t *offs,
                                      floe_buf *data) {
    switch (c->enc) {
    case FLOE_PQ_ENC_PLAIN: return pq_plain_binary(&c->plain, offs, data, n);
    case FLOE_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: return pq_dlba_get(&c->dlba, offs, data, n);
    case FLOE_PQ_ENC_DELTA_BYTE_ARRAY: return pq_dba_get(&c->dba, offs, data, n);
    default:
        return floe_error(FLOE_ERR_INTERNAL, "column '%s': encoding %d reached the binary decoder",
                          c->name, c->enc);
    }
}

static bool is_dict_enc(int32_t e) {
    return e == FLOE_PQ_ENC_PLAIN_DICTIONARY || e == FLOE_PQ_ENC_RLE_DICTIONARY;
}

/* Append n non-null values of the current page to out. */
static floe_status decode_values(pq_column_reader *c, size_t n, pq_leaf_out *out) {
    if (n == 0 || c->target == PQ_T_NULL) {
        c->vals_pos += (int64_t)n;
        return NULL;
    }
    uint32_t *idx = NULL;
    if (is_dict_enc(c->enc)) {
        floe_buf_clear(&c->idx);
        FLOE_TRY(floe_buf_reserve(&c->idx, n * 4));
        idx = (uint32_t *)(void *)c->idx.data;
        FLOE_TRY(pq_rle_get_u32_max(&c->rle, idx, n, c->dict_n));
    }
    if (c->target == PQ_T_BOOL) {
        uint8_t *dst = floe_buf_extend(&out->vals, n);
        if (!dst) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding values");
        if (c->enc == FLOE_PQ_ENC_PLAIN) FLOE_TRY(pq_plain_bool(&c->plain, dst, n));
        else FLOE_TRY(pq_rle_get_u8(&c->rle, dst, n));
    } else if (c->target == PQ_T_BINARY) {
        if (out->vals.len == 0) {
            int32_t zero = 0;
            FLOE_TRY(floe_buf_append(&out->vals, &zero, 4));
        }
        if (!floe_buf_extend(&out->vals, n * 4))
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding values");
        int32_t *offs = (int32_t *)(void *)out->vals.data + out->nvals;
        if (idx)
            FLOE_TRY(pq_dict_gather_binary_checked((const int32_t *)(const void *)c->dict_vals.data,
                                                   c->dict_data.data, c->dict_n, c->dict_max_len,
                                                   idx, n, offs, &out->data, c->page.offset));
        else {
            FLOE_TRY(decode_phys_binary(c, n, offs, &out->data));
            if (c->col->kind == FLOE_PQ_KIND_STRING) {
                size_t bad = pq_utf8_check(offs, out->data.data, n);
                if (bad < n)
                    return floe_error(FLOE_ERR_CORRUPT,
                                      "column '%s': string value %lld of the page is not valid "
                                      "UTF-8",
                                      c->name, (long long)(c->vals_pos + (int64_t)bad));
            }
        }
    } else {
        uint8_t *dst = floe_buf_extend(&out->vals, n * c->width);
        if (!dst) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding values");
        if (idx) {
            /* pq_rle_get_u32_max checked every index above. */
            pq_dict_gather_fixed_checked(c->dict_vals.data, c->width, idx, n, dst);
        } else if (c->conv == PQ_CONV_NONE) {
            FLOE_TRY(decode_phys_fixed(c, n, dst));
        } else if (binary_source(c)) {
            floe_buf_clear(&c->phys);
            floe_buf_clear(&c->phys_data);
            int32_t *offs = (int32_t *)(void *)floe_buf_extend(&c->phys, (n + 1) * 4);
            if (!offs) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding values");
            offs[0] = 0;
            FLOE_TRY(decode_phys_binary(c, n, offs, &c->phys_data));
            FLOE_TRY(convert(c, NULL, offs, c->phys_data.data, n, dst));
        } else {
            floe_buf_clear(&c->phys);
            uint8_t *ph = floe_buf_extend(&c->phys, n * c->phys_width);
            if (!ph) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory decoding values");
            FLOE_TRY(decode_phys_fixed(c, n, ph));
            FLOE_TRY(convert(c, ph, NULL, NULL, n, dst));
        }
    }
    out->nvals += (int64_t)n;
    c->vals_pos += (int64_t)n;
    return NULL;
}

static floe_status append_levels(floe_buf *dst, const floe_buf *src, int64_t from, int64_t n) {
    return floe_buf_append(dst, src->data + from * 2, (size_t)n * 2);
}

/* Append n definition levels equal to max. */
static floe_status fill_levels(floe_buf *dst, int16_t max, int64_t n) {
    int16_t *d = (int16_t *)(void *)floe_buf_extend(dst, (size_t)n * 2);
    if (!d && n) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory for levels");
    for (int64_t i = 0; i < n; i++) d[i] = max;
    return NULL;
}

/* Append the definition levels of page entries [from, from + take) and
 * count the non-null ones.  While every level so far is max the output keeps
 * none (def_all_max); the first page with a null writes them out. */
static floe_status take_def_levels(pq_column_reader *c, pq_leaf_out *out, int64_t from,
                                   int64_t take, int64_t *nn) {
    int16_t max_def = c->col->max_def_level;
    if (c->page_all_def) {
        *nn = take;
        return out->def_all_max ? NULL : fill_levels(&out->def, max_def, take);
    }
    if (out->def_all_max) {
        floe_buf_clear(&out->def);
        FLOE_TRY(fill_levels(&out->def, max_def, out->nlevels));
        out->def_all_max = false;
    }
    FLOE_TRY(append_levels(&out->def, &c->page_def, from, take));
    const int16_t *d = (const int16_t *)(const void *)c->page_def.data + from;
    int64_t k = 0;
    for (int64_t i = 0; i < take; i++) k += d[i] == max_def;
    *nn = k;
    return NULL;
}

/* Size the output for a flat batch up front: the buffers were handed to the
 * previous batch's arrays, and growing them by doubling costs copies and
 * page faults. */
static floe_status presize(pq_column_reader *c, int64_t max_rows, pq_leaf_out *out) {
    size_t n = (size_t)max_rows;
    if (c->col->max_def_level > 0) FLOE_TRY(floe_buf_reserve(&out->def, n * 2));
    if (c->col->max_rep_level > 0) return NULL; /* entries per row unknown */
    switch (c->target) {
    case PQ_T_FIXED: return floe_buf_reserve(&out->vals, n * c->width);
    case PQ_T_BOOL: return floe_buf_reserve(&out->vals, n);
    case PQ_T_BINARY:
        FLOE_TRY(floe_buf_reserve(&out->vals, (n + 1) * 4));
        return floe_buf_reserve(&out->data, c->last_data_bytes + c->last_data_bytes / 8);
    default: return NULL;
    }
}

floe_status pq_column_read(pq_column_reader *c, int64_t max_rows, pq_leaf_out *out) {
    const int16_t max_def = c->col->max_def_level, max_rep = c->col->max_rep_level;
    int64_t rows = 0;
    FLOE_TRY(presize(c, max_rows, out));
    while (!c->eof) {
        if (!c->in_page || c->lvl_pos == c->lvl_n) {
            c->in_page = false;
            if (rows == max_rows && max_rep == 0) break;
            FLOE_TRY(next_page(c));
            continue;
        }
        int64_t take, from = c->lvl_pos;
        bool stop = false;
        if (max_rep == 0) {
            take = c->lvl_n - from;
            if (take > max_rows - rows) take = max_rows - rows;
            rows += take;
            stop = rows == max_rows;
        } else {
            /* A row starts at each rep level 0; stop before row max_rows + 1. */
            const int16_t *r = (const int16_t *)(const void *)c->page_rep.data;
            int64_t i = from;
            for (; i < c->lvl_n; i++) {
                if (r[i] == 0) {
                    if (rows == max_rows) {
                        stop = true;
                        break;
                    }
                    rows++;
                }
            }
            take = i - from;
        }
        int64_t nn = take;
        if (max_def > 0) FLOE_TRY(take_def_levels(c, out, from, take, &nn));
        if (max_rep > 0) FLOE_TRY(append_levels(&out->rep, &c->page_rep, from, take));
        floe_status st = decode_values(c, (size_t)nn, out);
        if (st) return floe_status_wrap(st, "column '%s': page at offset %llu", c->name,
                                        (unsigned long long)c->page.offset);
        c->lvl_pos += take;
        out->nlevels += take;
        if (stop) break;
    }
    out->rows += rows;
    c->last_data_bytes = out->data.len;
    return NULL;
}

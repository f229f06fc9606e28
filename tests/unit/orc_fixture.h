/*
 * orc_fixture.h — a small ORC file writer for tests.
 *
 * floe reads ORC but has no ORC writer, and none is installed on the
 * machines the tests run on, so tests that need ORC files of their own
 * (Iceberg delete files, files without field ids) write them with this.
 * It follows the ORC v1 specification (apache/orc site/specification/
 * ORCv1.md and orc_proto.proto) and writes what Iceberg Java's ORC writer
 * would for the same rows, within a deliberately small range:
 *
 *   - file version 0.12, compression NONE, one stripe (none for 0 rows);
 *   - the root is a struct of flat columns of kind int, bigint or string,
 *     each carrying the attributes Iceberg's ORCSchemaUtil writes:
 *     "iceberg.id" (the field id), "iceberg.long-type" ("LONG", on bigint)
 *     and "iceberg.required" ("true" or "false"), or none at all (a file
 *     written without Iceberg);
 *   - integers: DIRECT encoding, DATA stream in signed integer RLE v1
 *     (runs of a fixed delta, literals of zigzag varints);
 *   - strings: DIRECT encoding, the bytes in DATA, their lengths in LENGTH
 *     (unsigned integer RLE v1);
 *   - a PRESENT stream (boolean RLE over byte RLE) on a column with nulls;
 *   - file statistics in the Footer and stripe statistics in the Metadata
 *     section (numberOfValues, hasNull, integer min/max/sum, string
 *     min/max/length sum), so readers can skip the stripe;
 *   - with row_index_stride > 0, ROW_INDEX streams: a row group every
 *     `stride` rows, each with its statistics and the stream positions
 *     where it starts (every run-length encoding restarts at a row group,
 *     so a position is a byte offset, then 0 values into the run, then
 *     for booleans the bits of the first byte already used).
 *
 * Protobuf messages are written by hand (proto2 wire format: varints,
 * zigzag sint64, length-delimited fields, packed repeated uint32/uint64).
 * Everything is static inline and aborts on allocation failure: it is test
 * support, not part of libfloe.
 *
 *   orcfx_column cols[2] = {
 *       {"id", ORCFX_LONG, 1, true, ids, NULL, NULL},
 *       {"name", ORCFX_STRING, 2, false, NULL, names, NULL}};
 *   int64_t size = orcfx_write(path, cols, 2, n_rows, NULL);   // -1: I/O error
 */
#ifndef FLOE_TEST_ORC_FIXTURE_H
#define FLOE_TEST_ORC_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column kinds, with their ORC Type.Kind numbers. */
typedef enum orcfx_kind { ORCFX_INT = 3, ORCFX_LONG = 4, ORCFX_STRING = 7 } orcfx_kind;

typedef struct orcfx_column {
    const char *name;
    orcfx_kind kind;
    int32_t iceberg_id;      /* the iceberg.id attribute; < 0: no Iceberg attributes */
    bool required;           /* iceberg.required "true" (else "false") */
    const int64_t *ints;     /* INT / LONG: one value per row */
    const char *const *strs; /* STRING: one per row; a NULL entry is a null */
    const bool *nulls;       /* true where the row's value is null; NULL: none */
} orcfx_column;

typedef struct orcfx_options {
    uint32_t row_index_stride; /* > 0: ROW_INDEX streams, a row group per this many rows */
    bool no_statistics;        /* write neither file nor stripe statistics */
} orcfx_options;

/* ---- byte buffers ------------------------------------------------------- */

typedef struct orcfx_buf {
    uint8_t *p;
    size_t n, cap;
} orcfx_buf;

static inline void orcfx_put(orcfx_buf *b, const void *d, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n) cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) abort();
        b->p = p;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}

static inline void orcfx_byte(orcfx_buf *b, uint8_t v) { orcfx_put(b, &v, 1); }

static inline void orcfx_free(orcfx_buf *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* Base-128 varint, low 7 bits first. */
static inline void orcfx_uvarint(orcfx_buf *b, uint64_t v) {
    while (v >= 0x80) {
        orcfx_byte(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    orcfx_byte(b, (uint8_t)v);
}

static inline uint64_t orcfx_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

/* ---- protobuf ----------------------------------------------------------- */

#define ORCFX_PB_VARINT 0
#define ORCFX_PB_LEN 2

static inline void orcfx_pb_uint(orcfx_buf *b, uint32_t field, uint64_t v) {
    orcfx_uvarint(b, (uint64_t)field << 3 | ORCFX_PB_VARINT);
    orcfx_uvarint(b, v);
}

static inline void orcfx_pb_sint(orcfx_buf *b, uint32_t field, int64_t v) { orcfx_pb_uint(b, field, orcfx_zigzag(v)); }

static inline void orcfx_pb_bytes(orcfx_buf *b, uint32_t field, const void *d, size_t n) {
    orcfx_uvarint(b, (uint64_t)field << 3 | ORCFX_PB_LEN);
    orcfx_uvarint(b, n);
    orcfx_put(b, d, n);
}

static inline void orcfx_pb_str(orcfx_buf *b, uint32_t field, const char *s) { orcfx_pb_bytes(b, field, s, strlen(s)); }

/* A nested message (its bytes in m, which is then freed). */
static inline void orcfx_pb_msg(orcfx_buf *b, uint32_t field, orcfx_buf *m) {
    orcfx_pb_bytes(b, field, m->p, m->n);
    orcfx_free(m);
}

/* A packed repeated varint field. */
static inline void orcfx_pb_packed(orcfx_buf *b, uint32_t field, const uint64_t *v, size_t n) {
    orcfx_buf m = {0};
    for (size_t i = 0; i < n; i++) orcfx_uvarint(&m, v[i]);
    orcfx_pb_msg(b, field, &m);
}

/* ---- run-length encodings ----------------------------------------------- */

/* Byte RLE: runs of 3..130 equal bytes (control 0..127 = length - 3, then
 * the byte), literal groups of 1..128 (control -1..-128, then the bytes). */
static inline void orcfx_byte_rle(orcfx_buf *out, const uint8_t *v, size_t n) {
    size_t i = 0;
    while (i < n) {
        size_t run = 1;
        while (i + run < n && run < 130 && v[i + run] == v[i]) run++;
        if (run >= 3) {
            orcfx_byte(out, (uint8_t)(run - 3));
            orcfx_byte(out, v[i]);
            i += run;
            continue;
        }
        /* literals up to the next run of 3 (or 128 of them) */
        size_t lit = 0;
        while (i + lit < n && lit < 128 &&
               !(i + lit + 2 < n && v[i + lit] == v[i + lit + 1] && v[i + lit] == v[i + lit + 2]))
            lit++;
        orcfx_byte(out, (uint8_t)(-(int)lit));
        orcfx_put(out, v + i, lit);
        i += lit;
    }
}

/* Integer RLE v1: runs of 3..130 values of a fixed delta in [-128, 127]
 * (control length - 3, the delta byte, the first value as a varint),
 * literal groups of 1..128 varints (control -count).  Signed values are
 * zigzag encoded. */
static inline bool orcfx_rle_v1_run_at(const int64_t *v, size_t n, size_t i, size_t *len, int64_t *delta) {
    if (i + 2 >= n) return false;
    /* differences computed in unsigned arithmetic: no overflow for any longs */
    int64_t d = (int64_t)((uint64_t)v[i + 1] - (uint64_t)v[i]);
    if (d < -128 || d > 127 || (int64_t)((uint64_t)v[i + 2] - (uint64_t)v[i + 1]) != d) return false;
    size_t k = 3;
    while (i + k < n && k < 130 && (int64_t)((uint64_t)v[i + k] - (uint64_t)v[i + k - 1]) == d) k++;
    *len = k;
    *delta = d;
    return true;
}

static inline void orcfx_int_rle_v1(orcfx_buf *out, const int64_t *v, size_t n, bool is_signed) {
    size_t i = 0;
    while (i < n) {
        size_t len;
        int64_t d;
        if (orcfx_rle_v1_run_at(v, n, i, &len, &d)) {
            orcfx_byte(out, (uint8_t)(len - 3));
            orcfx_byte(out, (uint8_t)(int8_t)d);
            orcfx_uvarint(out, is_signed ? orcfx_zigzag(v[i]) : (uint64_t)v[i]);
            i += len;
            continue;
        }
        size_t lit = 0;
        while (i + lit < n && lit < 128 && !orcfx_rle_v1_run_at(v, n, i + lit, &len, &d)) lit++;
        orcfx_byte(out, (uint8_t)(-(int)lit));
        for (size_t k = 0; k < lit; k++)
            orcfx_uvarint(out, is_signed ? orcfx_zigzag(v[i + k]) : (uint64_t)v[i + k]);
        i += lit;
    }
}

/* ---- statistics --------------------------------------------------------- */

typedef struct orcfx_stats {
    uint64_t count; /* non-null values */
    bool has_null;
    bool sum_ok;
    int64_t imin, imax, isum;
    const char *smin, *smax; /* borrowed from the rows */
    int64_t len_sum;
} orcfx_stats;

static inline bool orcfx_is_null(const orcfx_column *c, int64_t row) {
    return (c->nulls && c->nulls[row]) || (c->kind == ORCFX_STRING && !c->strs[row]);
}

/* Statistics of column c over rows [from, to). */
static inline orcfx_stats orcfx_stats_of(const orcfx_column *c, int64_t from, int64_t to) {
    orcfx_stats s;
    memset(&s, 0, sizeof s);
    s.sum_ok = true;
    for (int64_t r = from; r < to; r++) {
        if (orcfx_is_null(c, r)) {
            s.has_null = true;
            continue;
        }
        if (c->kind == ORCFX_STRING) {
            const char *v = c->strs[r];
            if (!s.count || strcmp(v, s.smin) < 0) s.smin = v;
            if (!s.count || strcmp(v, s.smax) > 0) s.smax = v;
            s.len_sum += (int64_t)strlen(v);
        } else {
            int64_t v = c->ints[r];
            if (!s.count || v < s.imin) s.imin = v;
            if (!s.count || v > s.imax) s.imax = v;
            /* ORC records no sum once it overflows */
            if (s.sum_ok && __builtin_add_overflow(s.isum, v, &s.isum)) s.sum_ok = false;
        }
        s.count++;
    }
    return s;
}

/* ColumnStatistics of column c (NULL: the root struct, `rows` values). */
static inline void orcfx_stats_msg(orcfx_buf *out, const orcfx_column *c, int64_t from, int64_t to) {
    if (!c) {
        orcfx_pb_uint(out, 1, (uint64_t)(to - from)); /* numberOfValues */
        orcfx_pb_uint(out, 10, 0);                    /* hasNull */
        return;
    }
    orcfx_stats s = orcfx_stats_of(c, from, to);
    orcfx_pb_uint(out, 1, s.count);
    orcfx_buf m = {0};
    if (c->kind == ORCFX_STRING) {
        if (s.count) {
            orcfx_pb_str(&m, 1, s.smin);
            orcfx_pb_str(&m, 2, s.smax);
            orcfx_pb_sint(&m, 3, s.len_sum);
        }
        orcfx_pb_msg(out, 4, &m); /* stringStatistics */
    } else {
        if (s.count) {
            orcfx_pb_sint(&m, 1, s.imin);
            orcfx_pb_sint(&m, 2, s.imax);
            if (s.sum_ok) orcfx_pb_sint(&m, 3, s.isum);
        }
        orcfx_pb_msg(out, 2, &m); /* intStatistics */
    }
    orcfx_pb_uint(out, 10, s.has_null ? 1 : 0);
}

/* ---- one column's streams ----------------------------------------------- */

/* The streams of one column in the stripe, with each row group's start
 * positions in them (as its RowIndexEntry lists them). */
/* Positions of a row group in one column: PRESENT (offset, bytes, bits),
 * then DATA (offset, values) and for strings DATA (offset) and LENGTH
 * (offset, values). */
#define ORCFX_MAX_POS 6

typedef struct orcfx_streams {
    bool has_present;
    orcfx_buf present, data, length;
    uint64_t *pos;  /* per row group: ORCFX_MAX_POS slots */
    int *npos;
} orcfx_streams;

static inline void orcfx_encode_column(const orcfx_column *c, int64_t rows, int64_t stride, int64_t groups,
                                       orcfx_streams *s) {
    memset(s, 0, sizeof *s);
    s->pos = calloc((size_t)groups + 1, ORCFX_MAX_POS * sizeof *s->pos);
    s->npos = calloc((size_t)groups + 1, sizeof *s->npos);
    if (!s->pos || !s->npos) abort();
    for (int64_t r = 0; r < rows && !s->has_present; r++) s->has_present = orcfx_is_null(c, r);
    /* PRESENT: one bit per row, most significant bit first, packed across
     * the whole stripe; byte runs restart at the byte holding a group's
     * first row. */
    uint8_t *bits = NULL;
    if (s->has_present) {
        bits = calloc((size_t)(rows + 7) / 8 + 1, 1);
        if (!bits) abort();
        for (int64_t r = 0; r < rows; r++)
            if (!orcfx_is_null(c, r)) bits[r / 8] |= (uint8_t)(0x80 >> (r % 8));
    }
    int64_t *vals = calloc((size_t)rows + 1, sizeof *vals);
    if (!vals) abort();
    for (int64_t g = 0; g < groups; g++) {
        int64_t from = g * stride, to = from + stride < rows ? from + stride : rows;
        uint64_t *p = &s->pos[g * ORCFX_MAX_POS];
        int np = 0;
        if (s->has_present) {
            int64_t b0 = from / 8, b1 = g + 1 < groups ? to / 8 : (rows + 7) / 8;
            p[np++] = s->present.n;
            p[np++] = 0;
            p[np++] = (uint64_t)(from % 8);
            orcfx_byte_rle(&s->present, bits + b0, (size_t)(b1 - b0));
        }
        /* the group's non-null values */
        size_t n = 0;
        if (c->kind == ORCFX_STRING) {
            p[np++] = s->data.n;
            for (int64_t r = from; r < to; r++) {
                if (orcfx_is_null(c, r)) continue;
                size_t len = strlen(c->strs[r]);
                orcfx_put(&s->data, c->strs[r], len);
                vals[n++] = (int64_t)len;
            }
            p[np++] = s->length.n;
            p[np++] = 0;
            orcfx_int_rle_v1(&s->length, vals, n, false);
        } else {
            for (int64_t r = from; r < to; r++)
                if (!orcfx_is_null(c, r)) vals[n++] = c->ints[r];
            p[np++] = s->data.n;
            p[np++] = 0;
            orcfx_int_rle_v1(&s->data, vals, n, true);
        }
        s->npos[g] = np;
    }
    free(vals);
    free(bits);
}

static inline void orcfx_streams_free(orcfx_streams *s) {
    orcfx_free(&s->present);
    orcfx_free(&s->data);
    orcfx_free(&s->length);
    free(s->pos);
    free(s->npos);
}

/* A Stream message (kind, column, length) into the stripe footer. */
static inline void orcfx_stream_entry(orcfx_buf *sf, int kind, uint32_t column, uint64_t length) {
    orcfx_buf m = {0};
    orcfx_pb_uint(&m, 1, (uint64_t)kind);
    orcfx_pb_uint(&m, 2, column);
    orcfx_pb_uint(&m, 3, length);
    orcfx_pb_msg(sf, 1, &m);
}

/* ---- the file ------------------------------------------------------------ */

/* A Type message for column c (NULL: the root struct of n_cols fields). */
static inline void orcfx_type_msg(orcfx_buf *footer, const orcfx_column *cols, int n_cols, const orcfx_column *c) {
    orcfx_buf t = {0};
    if (!c) {
        orcfx_pb_uint(&t, 1, 12); /* STRUCT */
        uint64_t *sub = calloc((size_t)n_cols + 1, sizeof *sub);
        if (!sub) abort();
        for (int i = 0; i < n_cols; i++) sub[i] = (uint64_t)i + 1;
        orcfx_pb_packed(&t, 2, sub, (size_t)n_cols);
        free(sub);
        for (int i = 0; i < n_cols; i++) orcfx_pb_str(&t, 3, cols[i].name);
    } else {
        orcfx_pb_uint(&t, 1, (uint64_t)c->kind);
        if (c->iceberg_id >= 0) {
            char id[16];
            snprintf(id, sizeof id, "%d", (int)c->iceberg_id);
            orcfx_buf a = {0};
            orcfx_pb_str(&a, 1, "iceberg.id");
            orcfx_pb_str(&a, 2, id);
            orcfx_pb_msg(&t, 7, &a); /* attributes: StringPair */
            if (c->kind == ORCFX_LONG) {
                orcfx_pb_str(&a, 1, "iceberg.long-type");
                orcfx_pb_str(&a, 2, "LONG");
                orcfx_pb_msg(&t, 7, &a);
            }
            orcfx_pb_str(&a, 1, "iceberg.required");
            orcfx_pb_str(&a, 2, c->required ? "true" : "false");
            orcfx_pb_msg(&t, 7, &a);
        }
    }
    orcfx_pb_msg(footer, 4, &t);
}

/* Write the file; its size, or -1 when it cannot be written. */
static inline int64_t orcfx_write(const char *path, const orcfx_column *cols, int n_cols, int64_t rows,
                                  const orcfx_options *opts) {
    orcfx_options o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    int64_t stride = o.row_index_stride ? (int64_t)o.row_index_stride : (rows ? rows : 1);
    int64_t groups = rows ? (rows + stride - 1) / stride : 0;
    orcfx_buf file = {0};
    orcfx_put(&file, "ORC", 3);

    /* The stripe: index streams, data streams, stripe footer. */
    orcfx_buf sf = {0};
    uint64_t index_len = 0, data_len = 0, sf_len = 0;
    if (rows > 0) {
        orcfx_streams *cs = calloc((size_t)n_cols + 1, sizeof *cs);
        if (!cs) abort();
        for (int i = 0; i < n_cols; i++) orcfx_encode_column(&cols[i], rows, stride, groups, &cs[i]);
        if (o.row_index_stride) {
            for (int col = 0; col <= n_cols; col++) {
                orcfx_buf ri = {0};
                for (int64_t g = 0; g < groups; g++) {
                    int64_t from = g * stride, to = from + stride < rows ? from + stride : rows;
                    orcfx_buf e = {0}, st = {0};
                    if (col) orcfx_pb_packed(&e, 1, &cs[col - 1].pos[g * ORCFX_MAX_POS], (size_t)cs[col - 1].npos[g]);
                    orcfx_stats_msg(&st, col ? &cols[col - 1] : NULL, from, to);
                    orcfx_pb_msg(&e, 2, &st);
                    orcfx_pb_msg(&ri, 1, &e); /* RowIndex.entry */
                }
                orcfx_stream_entry(&sf, 6, (uint32_t)col, ri.n); /* ROW_INDEX */
                orcfx_put(&file, ri.p, ri.n);
                index_len += ri.n;
                orcfx_free(&ri);
            }
        }
        for (int i = 0; i < n_cols; i++) {
            orcfx_streams *s = &cs[i];
            uint32_t col = (uint32_t)i + 1;
            if (s->has_present) {
                orcfx_stream_entry(&sf, 0, col, s->present.n); /* PRESENT */
                orcfx_put(&file, s->present.p, s->present.n);
                data_len += s->present.n;
            }
            orcfx_stream_entry(&sf, 1, col, s->data.n); /* DATA */
            orcfx_put(&file, s->data.p, s->data.n);
            data_len += s->data.n;
            if (cols[i].kind == ORCFX_STRING) {
                orcfx_stream_entry(&sf, 2, col, s->length.n); /* LENGTH */
                orcfx_put(&file, s->length.p, s->length.n);
                data_len += s->length.n;
            }
            orcfx_streams_free(s);
        }
        free(cs);
        for (int col = 0; col <= n_cols; col++) { /* ColumnEncoding DIRECT, the root too */
            orcfx_buf e = {0};
            orcfx_pb_uint(&e, 1, 0);
            orcfx_pb_msg(&sf, 2, &e);
        }
        sf_len = sf.n;
        orcfx_put(&file, sf.p, sf.n);
        orcfx_free(&sf);
    }
    uint64_t content_len = file.n;

    /* Metadata: the stripe's statistics. */
    size_t meta_start = file.n;
    if (rows > 0 && !o.no_statistics) {
        orcfx_buf ss = {0};
        for (int col = 0; col <= n_cols; col++) {
            orcfx_buf st = {0};
            orcfx_stats_msg(&st, col ? &cols[col - 1] : NULL, 0, rows);
            orcfx_pb_msg(&ss, 1, &st); /* StripeStatistics.colStats */
        }
        orcfx_buf md = {0};
        orcfx_pb_msg(&md, 1, &ss); /* Metadata.stripeStats */
        orcfx_put(&file, md.p, md.n);
        orcfx_free(&md);
    }
    uint64_t meta_len = file.n - meta_start;

    /* Footer. */
    orcfx_buf ft = {0};
    orcfx_pb_uint(&ft, 1, 3);           /* headerLength */
    orcfx_pb_uint(&ft, 2, content_len); /* contentLength */
    if (rows > 0) {
        orcfx_buf si = {0};
        orcfx_pb_uint(&si, 1, 3); /* offset */
        orcfx_pb_uint(&si, 2, index_len);
        orcfx_pb_uint(&si, 3, data_len);
        orcfx_pb_uint(&si, 4, sf_len);
        orcfx_pb_uint(&si, 5, (uint64_t)rows);
        orcfx_pb_msg(&ft, 3, &si);
    }
    orcfx_type_msg(&ft, cols, n_cols, NULL);
    for (int i = 0; i < n_cols; i++) orcfx_type_msg(&ft, cols, n_cols, &cols[i]);
    orcfx_pb_uint(&ft, 6, (uint64_t)rows); /* numberOfRows */
    if (!o.no_statistics)
        for (int col = 0; col <= n_cols; col++) {
            orcfx_buf st = {0};
            orcfx_stats_msg(&st, col ? &cols[col - 1] : NULL, 0, rows);
            orcfx_pb_msg(&ft, 7, &st);
        }
    orcfx_pb_uint(&ft, 8, o.row_index_stride); /* rowIndexStride (0: no row index) */
    uint64_t footer_len = ft.n;
    orcfx_put(&file, ft.p, ft.n);
    orcfx_free(&ft);

    /* PostScript (never compressed), then its length in the last byte. */
    orcfx_buf ps = {0};
    orcfx_pb_uint(&ps, 1, footer_len);
    orcfx_pb_uint(&ps, 2, 0);           /* compression NONE */
    orcfx_pb_uint(&ps, 3, 256u * 1024); /* compressionBlockSize */
    static const uint64_t version[2] = {0, 12};
    orcfx_pb_packed(&ps, 4, version, 2);
    orcfx_pb_uint(&ps, 5, meta_len);
    orcfx_pb_uint(&ps, 6, 6); /* writerVersion: statistics in UTF-8 and UTC (ORC-135) */
    orcfx_pb_str(&ps, 8000, "ORC");
    if (ps.n > 255) abort();
    orcfx_put(&file, ps.p, ps.n);
    orcfx_byte(&file, (uint8_t)ps.n);
    orcfx_free(&ps);

    int64_t size = (int64_t)file.n;
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(file.p, 1, file.n, f) != file.n) size = -1;
    if (f && fclose(f) != 0) size = -1;
    orcfx_free(&file);
    return size;
}

#endif

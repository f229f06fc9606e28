/*
 * pq_sample_data.h — a deterministic table with every type the Parquet
 * writer supports, nulls at every level and nested lists, maps and structs.
 *
 * Shared by tests/tools/pq_write_sample.c (whose output DuckDB checks in
 * tests/scripts/parquet_duckdb_reads_floe.sh, which computes the same
 * values with SQL — keep the formulas there in step with these) and the
 * unit tests.  Row i (0-based) holds:
 *
 *   id   int64 required          i                                   (field id 1)
 *   b    bool                    null if i%11==0, else i%3==0        (2)
 *   i32  int32                   null if i%5==0, else i*7-5000       (3)
 *   i64  int64 required          i*1000003-4000000000                (4)
 *   f32  float32                 NaN if i%97==0, else i*0.5-100      (5)
 *   f64  float64                 null if i%9==0, NaN if i%101==1, else i*1.25-3.5 (6)
 *   d9   decimal(9,2)            null if i%8==0, else unscaled i*12345-6000000 (7)
 *   d18  decimal(18,3)           unscaled i*1234567891-5000000000000 (8)
 *   d38  decimal(38,10)          unscaled (i-5000)*10^21 + (i-5000)*7 (9)
 *   dt   date                    null if i%10==0, else i-3000        (10)
 *   tm   time(us)                (i*7919*1000003) mod 86400000000    (11)
 *   ts   timestamp(us)           1700000000000000 + i*3600000123     (12)
 *   tstz timestamptz(us)         700000000000000 + i*3600000123      (13)
 *   tsns timestamp(ns)           1700000000000000000 + i*123456789   (14)
 *   s    string                  null if i%4==1; 'é-'||i if i%50==0; else 'str-'||i (15)
 *   bin  binary                  'b'||i                              (16)
 *   fx   fixed[3]                chr(65+i%26) chr(97+i%26) chr(48+i%10) (17)
 *   u    uuid                    UUIDS[i%4]                          (18)
 *   l    list<int32>             null if i%7==3, [] if i%7==4, else
 *                                [i+j for j in 0..i%4] with j==1 null when i%3==0 (19; element 20)
 *   m    map<string,int64>       null if i%6==5, {} if i%6==4, else
 *                                {'k'||j: j*i (null if j==2)} for j in 0..i%3 (21; key 22, value 23)
 *   st   struct                  null if i%13==0, else               (24)
 *          a int32               null if i%2==0, else i              (25)
 *          n struct              null if i%3==0, else                (26)
 *            c string            'c'||i                              (27)
 *   ll   list<list<int64>>       null if i%17==0, else [[i]*k for k in 0..i%3], (28; 29; 30)
 *                                inner list k null when k==1 and i%2==1
 *   ms   map<string, struct<x int32, y list<string>>>               (31; key 32, value 33;
 *                                                                     x 34, y 35, element 36)
 *                                null if i%5==2, {} if i%5==3, else for j in 0..i%2:
 *                                'm'||j -> null if j==1 and i%4==0, else
 *                                  {x: null if j==0 and i%3==0 else i+j,
 *                                   y: null if i%7==0 else ['y'||i||'-'||k for k in 0..j]
 *                                      with k==1 null}
 */
#ifndef FLOE_TESTS_PQ_SAMPLE_DATA_H
#define FLOE_TESTS_PQ_SAMPLE_DATA_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "floe/columnar.h"
#include "floe/status.h"

static const char *const PQ_SAMPLE_UUIDS[4] = {
    "00112233445566778899aabbccddeeff", "ffffffffffffffffffffffffffffffff",
    "0123456789abcdef0123456789abcdef", "80000000000000000000000000000001"};

static inline void pq_sample_uuid(int64_t i, uint8_t out[16]) {
    const char *h = PQ_SAMPLE_UUIDS[i % 4];
    for (int k = 0; k < 16; k++) {
        unsigned v;
        sscanf(h + 2 * k, "%2x", &v);
        out[k] = (uint8_t)v;
    }
}

static inline floe_field pq_sample_field(const char *name, floe_type *t, bool nullable,
                                         int32_t id) {
    floe_field f = {(char *)name, t, nullable, id};
    return f;
}

/* The schema (caller releases). */
static inline floe_status pq_sample_schema(floe_schema **out) {
    floe_type *d9 = NULL, *d18 = NULL, *d38 = NULL, *fx = NULL, *l = NULL, *m = NULL,
              *inner_n = NULL, *st = NULL, *l_in = NULL, *ll = NULL, *ys = NULL, *xy = NULL,
              *ms = NULL;
    floe_status s = NULL;
    if (!s) s = floe_type_decimal(9, 2, &d9);
    if (!s) s = floe_type_decimal(18, 3, &d18);
    if (!s) s = floe_type_decimal(38, 10, &d38);
    if (!s) s = floe_type_fixed_binary(3, &fx);
    if (!s) {
        floe_field e = pq_sample_field("element", floe_type_primitive(FLOE_TYPE_INT32), true, 20);
        s = floe_type_list(&e, &l);
    }
    if (!s) {
        floe_field k = pq_sample_field("key", floe_type_primitive(FLOE_TYPE_STRING), false, 22);
        floe_field v = pq_sample_field("value", floe_type_primitive(FLOE_TYPE_INT64), true, 23);
        s = floe_type_map(&k, &v, false, &m);
    }
    if (!s) {
        floe_field c = pq_sample_field("c", floe_type_primitive(FLOE_TYPE_STRING), true, 27);
        s = floe_type_struct(&c, 1, &inner_n);
    }
    if (!s) {
        floe_field f[2] = {pq_sample_field("a", floe_type_primitive(FLOE_TYPE_INT32), true, 25),
                           pq_sample_field("n", inner_n, true, 26)};
        s = floe_type_struct(f, 2, &st);
    }
    if (!s) {
        floe_field e = pq_sample_field("element", floe_type_primitive(FLOE_TYPE_INT64), false, 30);
        s = floe_type_list(&e, &l_in);
    }
    if (!s) {
        floe_field e = pq_sample_field("element", l_in, true, 29);
        s = floe_type_list(&e, &ll);
    }
    if (!s) {
        floe_field e = pq_sample_field("element", floe_type_primitive(FLOE_TYPE_STRING), true, 36);
        s = floe_type_list(&e, &ys);
    }
    if (!s) {
        floe_field f[2] = {pq_sample_field("x", floe_type_primitive(FLOE_TYPE_INT32), true, 34),
                           pq_sample_field("y", ys, true, 35)};
        s = floe_type_struct(f, 2, &xy);
    }
    if (!s) {
        floe_field k = pq_sample_field("key", floe_type_primitive(FLOE_TYPE_STRING), false, 32);
        floe_field v = pq_sample_field("value", xy, true, 33);
        s = floe_type_map(&k, &v, false, &ms);
    }
    if (!s) {
        floe_field f[] = {
            pq_sample_field("id", floe_type_primitive(FLOE_TYPE_INT64), false, 1),
            pq_sample_field("b", floe_type_primitive(FLOE_TYPE_BOOL), true, 2),
            pq_sample_field("i32", floe_type_primitive(FLOE_TYPE_INT32), true, 3),
            pq_sample_field("i64", floe_type_primitive(FLOE_TYPE_INT64), false, 4),
            pq_sample_field("f32", floe_type_primitive(FLOE_TYPE_FLOAT32), true, 5),
            pq_sample_field("f64", floe_type_primitive(FLOE_TYPE_FLOAT64), true, 6),
            pq_sample_field("d9", d9, true, 7),
            pq_sample_field("d18", d18, true, 8),
            pq_sample_field("d38", d38, true, 9),
            pq_sample_field("dt", floe_type_primitive(FLOE_TYPE_DATE32), true, 10),
            pq_sample_field("tm", floe_type_primitive(FLOE_TYPE_TIME64_US), true, 11),
            pq_sample_field("ts", floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), true, 12),
            pq_sample_field("tstz", floe_type_primitive(FLOE_TYPE_TIMESTAMP_US_TZ), true, 13),
            pq_sample_field("tsns", floe_type_primitive(FLOE_TYPE_TIMESTAMP_NS), true, 14),
            pq_sample_field("s", floe_type_primitive(FLOE_TYPE_STRING), true, 15),
            pq_sample_field("bin", floe_type_primitive(FLOE_TYPE_BINARY), true, 16),
            pq_sample_field("fx", fx, true, 17),
            pq_sample_field("u", floe_type_primitive(FLOE_TYPE_UUID), true, 18),
            pq_sample_field("l", l, true, 19),
            pq_sample_field("m", m, true, 21),
            pq_sample_field("st", st, true, 24),
            pq_sample_field("ll", ll, true, 28),
            pq_sample_field("ms", ms, true, 31),
        };
        s = floe_type_struct(f, (int32_t)(sizeof f / sizeof f[0]), out);
    }
    floe_type_release(d9);
    floe_type_release(d18);
    floe_type_release(d38);
    floe_type_release(fx);
    floe_type_release(l);
    floe_type_release(m);
    floe_type_release(inner_n);
    floe_type_release(st);
    floe_type_release(l_in);
    floe_type_release(ll);
    floe_type_release(ys);
    floe_type_release(xy);
    floe_type_release(ms);
    return s;
}

static inline floe_decimal128 pq_sample_d38(int64_t i) {
    __int128 u = (__int128)(i - 5000) * ((__int128)1000000000000000000ll * 1000) +
                 (__int128)(i - 5000) * 7;
    floe_decimal128 d = {(uint64_t)u, (int64_t)(u >> 64)};
    return d;
}

#define PQ_TRY(x) do { floe_status st_ = (x); if (st_) return st_; } while (0)

/* Append row i to the per-column builders b[0..22]. */
static inline floe_status pq_sample_row(floe_builder **b, int64_t i) {
    char txt[64];
    PQ_TRY(floe_builder_append_int64(b[0], i));
    PQ_TRY(i % 11 == 0 ? floe_builder_append_null(b[1]) : floe_builder_append_bool(b[1], i % 3 == 0));
    PQ_TRY(i % 5 == 0 ? floe_builder_append_null(b[2])
                      : floe_builder_append_int32(b[2], (int32_t)(i * 7 - 5000)));
    PQ_TRY(floe_builder_append_int64(b[3], i * 1000003 - 4000000000ll));
    PQ_TRY(floe_builder_append_float(b[4], i % 97 == 0 ? NAN : (float)(i * 0.5 - 100)));
    PQ_TRY(i % 9 == 0 ? floe_builder_append_null(b[5])
                      : floe_builder_append_double(b[5], i % 101 == 1 ? NAN : i * 1.25 - 3.5));
    PQ_TRY(i % 8 == 0 ? floe_builder_append_null(b[6])
                      : floe_builder_append_decimal(b[6], floe_decimal128_from_int64(i * 12345 - 6000000)));
    PQ_TRY(floe_builder_append_decimal(b[7], floe_decimal128_from_int64(i * 1234567891ll - 5000000000000ll)));
    PQ_TRY(floe_builder_append_decimal(b[8], pq_sample_d38(i)));
    PQ_TRY(i % 10 == 0 ? floe_builder_append_null(b[9])
                       : floe_builder_append_int32(b[9], (int32_t)(i - 3000)));
    PQ_TRY(floe_builder_append_int64(b[10], (i * 7919 * 1000003) % 86400000000ll));
    PQ_TRY(floe_builder_append_int64(b[11], 1700000000000000ll + i * 3600000123ll));
    PQ_TRY(floe_builder_append_int64(b[12], 700000000000000ll + i * 3600000123ll));
    PQ_TRY(floe_builder_append_int64(b[13], 1700000000000000000ll + i * 123456789ll));
    if (i % 4 == 1) {
        PQ_TRY(floe_builder_append_null(b[14]));
    } else {
        snprintf(txt, sizeof txt, i % 50 == 0 ? "\xc3\xa9-%lld" : "str-%lld", (long long)i);
        PQ_TRY(floe_builder_append_string(b[14], txt));
    }
    snprintf(txt, sizeof txt, "b%lld", (long long)i);
    PQ_TRY(floe_builder_append_binary(b[15], txt, (int64_t)strlen(txt)));
    char fx[3] = {(char)(65 + i % 26), (char)(97 + i % 26), (char)(48 + i % 10)};
    PQ_TRY(floe_builder_append_fixed(b[16], fx));
    uint8_t u[16];
    pq_sample_uuid(i, u);
    PQ_TRY(floe_builder_append_fixed(b[17], u));
    /* l */
    if (i % 7 == 3) {
        PQ_TRY(floe_builder_append_null(b[18]));
    } else {
        if (i % 7 != 4) {
            floe_builder *e = floe_builder_child(b[18], 0);
            for (int64_t j = 0; j <= i % 4; j++)
                PQ_TRY(j == 1 && i % 3 == 0 ? floe_builder_append_null(e)
                                            : floe_builder_append_int32(e, (int32_t)(i + j)));
        }
        PQ_TRY(floe_builder_append_list(b[18]));
    }
    /* m */
    if (i % 6 == 5) {
        PQ_TRY(floe_builder_append_null(b[19]));
    } else {
        if (i % 6 != 4) {
            floe_builder *k = floe_builder_map_keys(b[19]), *v = floe_builder_map_values(b[19]);
            for (int64_t j = 0; j <= i % 3; j++) {
                snprintf(txt, sizeof txt, "k%lld", (long long)j);
                PQ_TRY(floe_builder_append_string(k, txt));
                PQ_TRY(j == 2 ? floe_builder_append_null(v) : floe_builder_append_int64(v, j * i));
            }
        }
        PQ_TRY(floe_builder_append_map(b[19]));
    }
    /* st */
    if (i % 13 == 0) {
        PQ_TRY(floe_builder_append_null(b[20]));
    } else {
        floe_builder *a = floe_builder_child(b[20], 0), *n = floe_builder_child(b[20], 1);
        PQ_TRY(i % 2 == 0 ? floe_builder_append_null(a) : floe_builder_append_int32(a, (int32_t)i));
        if (i % 3 == 0) {
            PQ_TRY(floe_builder_append_null(n));
        } else {
            snprintf(txt, sizeof txt, "c%lld", (long long)i);
            PQ_TRY(floe_builder_append_string(floe_builder_child(n, 0), txt));
            PQ_TRY(floe_builder_append_valid(n));
        }
        PQ_TRY(floe_builder_append_valid(b[20]));
    }
    /* ll */
    if (i % 17 == 0) {
        PQ_TRY(floe_builder_append_null(b[21]));
    } else {
        floe_builder *inner = floe_builder_child(b[21], 0);
        for (int64_t k = 0; k <= i % 3; k++) {
            if (k == 1 && i % 2 == 1) {
                PQ_TRY(floe_builder_append_null(inner));
                continue;
            }
            floe_builder *e = floe_builder_child(inner, 0);
            for (int64_t j = 0; j < k; j++) PQ_TRY(floe_builder_append_int64(e, i));
            PQ_TRY(floe_builder_append_list(inner));
        }
        PQ_TRY(floe_builder_append_list(b[21]));
    }
    /* ms */
    if (i % 5 == 2) {
        PQ_TRY(floe_builder_append_null(b[22]));
    } else {
        if (i % 5 != 3) {
            floe_builder *k = floe_builder_map_keys(b[22]), *v = floe_builder_map_values(b[22]);
            for (int64_t j = 0; j <= i % 2; j++) {
                snprintf(txt, sizeof txt, "m%lld", (long long)j);
                PQ_TRY(floe_builder_append_string(k, txt));
                if (j == 1 && i % 4 == 0) {
                    PQ_TRY(floe_builder_append_null(v));
                    continue;
                }
                floe_builder *x = floe_builder_child(v, 0), *y = floe_builder_child(v, 1);
                PQ_TRY(j == 0 && i % 3 == 0 ? floe_builder_append_null(x)
                                            : floe_builder_append_int32(x, (int32_t)(i + j)));
                if (i % 7 == 0) {
                    PQ_TRY(floe_builder_append_null(y));
                } else {
                    floe_builder *ye = floe_builder_child(y, 0);
                    for (int64_t q = 0; q <= j; q++) {
                        snprintf(txt, sizeof txt, "y%lld-%lld", (long long)i, (long long)q);
                        PQ_TRY(q == 1 ? floe_builder_append_null(ye)
                                      : floe_builder_append_string(ye, txt));
                    }
                    PQ_TRY(floe_builder_append_list(y));
                }
                PQ_TRY(floe_builder_append_valid(v));
            }
        }
        PQ_TRY(floe_builder_append_map(b[22]));
    }
    return NULL;
}

/* Rows [row0, row0+n) as a batch. */
static inline floe_status pq_sample_batch(floe_schema *schema, int64_t row0, int64_t n,
                                          floe_batch **out) {
    int32_t nc = schema->n_children;
    floe_builder *b[32] = {0};
    floe_array *cols[32] = {0};
    floe_status st = NULL;
    for (int32_t c = 0; !st && c < nc; c++) st = floe_builder_new(schema->children[c].type, n, &b[c]);
    for (int64_t i = row0; !st && i < row0 + n; i++) st = pq_sample_row(b, i);
    for (int32_t c = 0; !st && c < nc; c++) st = floe_builder_finish(b[c], &cols[c]);
    if (!st) st = floe_batch_new(schema, cols, nc, n, out);
    for (int32_t c = 0; c < nc; c++) {
        floe_builder_free(b[c]);
        floe_array_release(cols[c]);
    }
    return st;
}

#endif

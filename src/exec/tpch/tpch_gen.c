/*
 * tpch_gen.c — the TpchGen leaf node (include/floe/exec_tpch.h): the rows
 * of one TPC-H table at a scale factor, following the specification v3.0.1
 * clause 4.2.3, generated batch by batch with nothing materialised.
 *
 * What follows the spec exactly: row counts (SF x 10,000 suppliers,
 * 200,000 parts, 4 partsupp rows per part, 150,000 customers, 1,500,000
 * orders, 1..7 lines per order; 25 nations, 5 regions); the sparse order
 * keys (order i gets key ((i >> 3) << 5) + (i & 7): the first 8 of every
 * 32 keys); o_custkey never a multiple of 3; the ps_suppkey / l_suppkey
 * formula; p_retailprice's formula and l_extendedprice = l_quantity x
 * p_retailprice; o_orderdate uniform in [1992-01-01, 1998-12-31 - 151
 * days]; l_shipdate = o_orderdate + [1, 121], l_commitdate = o_orderdate +
 * [30, 90], l_receiptdate = l_shipdate + [1, 30]; l_returnflag R or A when
 * received by 1995-06-17, else N; l_linestatus O when shipped after it,
 * else F; o_orderstatus F / O when all lines are, else P; o_totalprice =
 * sum(l_extendedprice x (1 + l_tax) x (1 - l_discount)); the value ranges
 * of every other column; p_name from five distinct colours of the 92;
 * the phone format; names "Supplier#", "Customer#", "Clerk#" with 9-digit
 * keys; comments cut from a pool of grammar text (tpch_text.c).
 *
 * Where it deviates (byte equality with dbgen is not a goal):
 *  - random numbers come from a counter-based stream per (column group,
 *    key) instead of dbgen's per-column Lehmer streams, so values differ
 *    from dbgen's while following the same distributions;
 *  - the text pool is 16 MiB instead of 300 MB (tpch_text.c);
 *  - the SF x 5 suppliers whose comments hold "Customer ... Complaints"
 *    and the SF x 5 holding "Customer ... Recommends" are exactly that
 *    many (dbgen picks each row with probability 0.05%), chosen by a
 *    fixed permutation of the supplier keys;
 *  - o_totalprice is the exact sum rounded to cents (dbgen truncates each
 *    line's terms);
 *  - counts for a fractional scale factor are rounded to the nearest row
 *    (at least one).
 *
 * Partitions: each owns a contiguous range of rows (of orders for orders
 * and lineitem), so concatenated in order they give the table in key
 * order; every value depends on its row's key alone, so the result is the
 * same for any partition count.
 */
#include <math.h>
#include <strings.h>
#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "base/str.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "exec/tpch/tpch_dists.h"
#include "exec/tpch/tpch_text.h"
#include "floe/exec_tpch.h"

/* ---- tables and columns -------------------------------------------------- */

typedef enum tpch_table {
    T_NATION = 0, T_REGION, T_PART, T_SUPPLIER, T_PARTSUPP, T_CUSTOMER, T_ORDERS, T_LINEITEM, T_COUNT_
} tpch_table;

const char *const floe_tpch_tables[] = {"nation",   "region",   "part",   "supplier",
                                        "partsupp", "customer", "orders", "lineitem", NULL};

typedef enum col_kind { K_I64, K_I32, K_DATE, K_DEC, K_STR } col_kind;

typedef struct col_spec {
    const char *name;
    col_kind kind;
    int32_t max_len; /* K_STR: the longest value, bytes */
} col_spec;

#define MAX_COLS 16

static const col_spec k_nation[] = {
    {"n_nationkey", K_I64, 0}, {"n_name", K_STR, 25}, {"n_regionkey", K_I64, 0}, {"n_comment", K_STR, 114}};
static const col_spec k_region[] = {{"r_regionkey", K_I64, 0}, {"r_name", K_STR, 25}, {"r_comment", K_STR, 115}};
static const col_spec k_part[] = {{"p_partkey", K_I64, 0},    {"p_name", K_STR, 64},      {"p_mfgr", K_STR, 25},
                                  {"p_brand", K_STR, 10},     {"p_type", K_STR, 25},      {"p_size", K_I32, 0},
                                  {"p_container", K_STR, 10}, {"p_retailprice", K_DEC, 0}, {"p_comment", K_STR, 22}};
static const col_spec k_supplier[] = {{"s_suppkey", K_I64, 0},   {"s_name", K_STR, 32},   {"s_address", K_STR, 40},
                                      {"s_nationkey", K_I64, 0}, {"s_phone", K_STR, 15},  {"s_acctbal", K_DEC, 0},
                                      {"s_comment", K_STR, 100}};
static const col_spec k_partsupp[] = {{"ps_partkey", K_I64, 0},
                                      {"ps_suppkey", K_I64, 0},
                                      {"ps_availqty", K_I32, 0},
                                      {"ps_supplycost", K_DEC, 0},
                                      {"ps_comment", K_STR, 198}};
static const col_spec k_customer[] = {{"c_custkey", K_I64, 0},   {"c_name", K_STR, 32},      {"c_address", K_STR, 40},
                                      {"c_nationkey", K_I64, 0}, {"c_phone", K_STR, 15},     {"c_acctbal", K_DEC, 0},
                                      {"c_mktsegment", K_STR, 10}, {"c_comment", K_STR, 116}};
static const col_spec k_orders[] = {{"o_orderkey", K_I64, 0},     {"o_custkey", K_I64, 0},  {"o_orderstatus", K_STR, 1},
                                    {"o_totalprice", K_DEC, 0},   {"o_orderdate", K_DATE, 0},
                                    {"o_orderpriority", K_STR, 15}, {"o_clerk", K_STR, 32},  {"o_shippriority", K_I32, 0},
                                    {"o_comment", K_STR, 78}};
static const col_spec k_lineitem[] = {
    {"l_orderkey", K_I64, 0},     {"l_partkey", K_I64, 0},     {"l_suppkey", K_I64, 0},       {"l_linenumber", K_I32, 0},
    {"l_quantity", K_DEC, 0},     {"l_extendedprice", K_DEC, 0}, {"l_discount", K_DEC, 0},    {"l_tax", K_DEC, 0},
    {"l_returnflag", K_STR, 1},   {"l_linestatus", K_STR, 1},  {"l_shipdate", K_DATE, 0},     {"l_commitdate", K_DATE, 0},
    {"l_receiptdate", K_DATE, 0}, {"l_shipinstruct", K_STR, 17}, {"l_shipmode", K_STR, 7},    {"l_comment", K_STR, 43}};

static const struct {
    const col_spec *cols;
    int32_t n;
} k_tables[T_COUNT_] = {
    {k_nation, 4}, {k_region, 3}, {k_part, 9}, {k_supplier, 7}, {k_partsupp, 5}, {k_customer, 8}, {k_orders, 9}, {k_lineitem, 16},
};

/* Random stream ids, one per column group. */
enum { S_NATION = 1, S_REGION, S_PART, S_SUPPLIER, S_PARTSUPP, S_CUSTOMER, S_ORDERS, S_LINES };

/* Dates as days since 1970-01-01 (clause 4.2.2.12). */
#define STARTDATE 8035     /* 1992-01-01 */
#define CURRENTDATE 9298   /* 1995-06-17 */
#define ENDDATE 10591      /* 1998-12-31 */

/* ---- the node -------------------------------------------------------------- */

typedef struct gen_plan {
    floe_plan head;
    tpch_table table;
    double sf;
    /* Derived from sf (rebuilt by the constructor, never shipped). */
    int64_t n_supplier, n_part, n_customer, n_orders, n_clerks;
    int64_t units;       /* rows, or orders for orders/lineitem */
    int64_t bbb;         /* suppliers with each kind of Customer comment */
    int64_t perm_a, perm_b;
} gen_plan;

static int64_t scaled(int64_t base, double sf) {
    double v = floor((double)base * sf + 0.5);
    return v < 1 ? 1 : (int64_t)v;
}

static int64_t retail_cents(int64_t partkey) {
    return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

/* ps_suppkey for supplier i (0..3) of a part, and l_suppkey for a random i
 * (clause 4.2.3). */
static int64_t supp_for_part(int64_t partkey, int64_t i, int64_t s) {
    return (partkey + i * (s / 4 + (partkey - 1) / s)) % s + 1;
}

static int64_t orderkey_of(int64_t idx) {
    int64_t i = idx + 1;
    return ((i >> 3) << 5) + (i & 7);
}

static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* ---- a batch under construction ------------------------------------------ */

typedef struct col_out {
    floe_builder *b;
    void *vals;        /* fixed width: the batch's values in the builder */
    int32_t *offs;     /* string: n + 1 offsets into data */
    char *data;
    int64_t data_cap;
    int32_t data_len;
} col_out;

typedef struct gen_stream {
    floe_stream base;
    const gen_plan *p;
    const floe_cancel *cancel;
    floe_progress *progress;
    int64_t batch_size;
    int64_t next, end; /* units still to produce: [next, end) */
    const char *pool;
    int32_t n_cols;
    const col_spec *spec;
    col_out c[MAX_COLS];
    int64_t offs_cap;
} gen_stream;

static floe_status batch_begin(gen_stream *s, int64_t n) {
    const gen_plan *p = s->p;
    if (n + 1 > s->offs_cap) {
        for (int32_t i = 0; i < s->n_cols; i++) {
            if (s->spec[i].kind != K_STR) continue;
            int32_t *o = floe_realloc(s->c[i].offs, (size_t)(n + 1) * sizeof(int32_t));
            if (!o) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "TpchGen: string offsets of %lld rows", (long long)n);
            s->c[i].offs = o;
        }
        s->offs_cap = n + 1;
    }
    for (int32_t i = 0; i < s->n_cols; i++) {
        col_out *c = &s->c[i];
        const floe_type *t = p->head.schema->children[i].type;
        FLOE_TRY(floe_builder_new((floe_type *)t, n, &c->b));
        if (s->spec[i].kind == K_STR) {
            int64_t need = n * s->spec[i].max_len;
            if (need > INT32_MAX) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "TpchGen: batch of %lld rows too large", (long long)n);
            if (need > c->data_cap) {
                char *d = floe_realloc(c->data, (size_t)need);
                if (!d) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "TpchGen: string data of %lld rows", (long long)n);
                c->data = d;
                c->data_cap = need;
            }
            c->data_len = 0;
            c->offs[0] = 0;
        } else {
            FLOE_TRY(floe_builder_extend_values(c->b, n, &c->vals));
        }
    }
    return NULL;
}

static void batch_discard(gen_stream *s) {
    for (int32_t i = 0; i < s->n_cols; i++) {
        floe_builder_free(s->c[i].b);
        s->c[i].b = NULL;
        s->c[i].vals = NULL;
    }
}

static floe_status batch_finish(gen_stream *s, int64_t n, floe_batch **out) {
    floe_array *cols[MAX_COLS] = {0};
    floe_status st = NULL;
    for (int32_t i = 0; i < s->n_cols && !st; i++) {
        col_out *c = &s->c[i];
        if (s->spec[i].kind == K_STR)
            st = floe_builder_append_binary_values(c->b, c->offs, (const uint8_t *)c->data, n, NULL);
        if (!st) st = floe_builder_finish(c->b, &cols[i]);
    }
    batch_discard(s);
    if (!st) st = floe_batch_new(s->p->head.schema, cols, s->n_cols, n, out);
    for (int32_t i = 0; i < s->n_cols; i++) floe_array_release(cols[i]);
    return st;
}

/* Row writers.  String space was reserved by batch_begin (max_len per
 * row), so appends cannot fail. */
static inline void put_i64(col_out *c, int64_t row, int64_t v) { ((int64_t *)c->vals)[row] = v; }
static inline void put_i32(col_out *c, int64_t row, int32_t v) { ((int32_t *)c->vals)[row] = v; }
static inline void put_dec(col_out *c, int64_t row, int64_t cents) {
    ((floe_decimal128 *)c->vals)[row] = floe_decimal128_from_int64(cents);
}
static inline char *put_str(col_out *c, int64_t row, const char *v, int32_t len) {
    char *dst = c->data + c->data_len;
    memcpy(dst, v, (size_t)len);
    c->data_len += len;
    c->offs[row + 1] = c->data_len;
    return dst;
}
static inline void put_cstr(col_out *c, int64_t row, const char *v) { put_str(c, row, v, (int32_t)strlen(v)); }

/* A comment of spec length [lo, hi] from the text pool. */
static inline char *put_text(gen_stream *s, col_out *c, int64_t row, tpch_rng *r, int32_t lo, int32_t hi) {
    int64_t off;
    int32_t len;
    tpch_text_pick(r, lo, hi, &off, &len);
    return put_str(c, row, s->pool + off, len);
}

/* ---- the tables -------------------------------------------------------------- */

static void gen_nation(gen_stream *s, int64_t key, int64_t row) {
    tpch_rng r;
    tpch_rng_seed(&r, S_NATION, (uint64_t)key);
    put_i64(&s->c[0], row, key);
    put_cstr(&s->c[1], row, tpch_nations[key].name);
    put_i64(&s->c[2], row, tpch_nations[key].region);
    put_text(s, &s->c[3], row, &r, 31, 114);
}

static void gen_region(gen_stream *s, int64_t key, int64_t row) {
    tpch_rng r;
    tpch_rng_seed(&r, S_REGION, (uint64_t)key);
    put_i64(&s->c[0], row, key);
    put_cstr(&s->c[1], row, tpch_regions[key]);
    put_text(s, &s->c[2], row, &r, 31, 115);
}

static void gen_part(gen_stream *s, int64_t key, int64_t row) {
    tpch_rng r;
    tpch_rng_seed(&r, S_PART, (uint64_t)key);
    char buf[80];
    int32_t n = 0;
    int32_t picked[5];
    for (int32_t i = 0; i < 5; i++) {
        /* Five distinct colours: redraw a repeat (rare: 5 of 92). */
        int32_t c;
        bool dup;
        do {
            c = (int32_t)tpch_rng_range(&r, 0, TPCH_N_COLORS - 1);
            dup = false;
            for (int32_t j = 0; j < i; j++) dup |= picked[j] == c;
        } while (dup);
        picked[i] = c;
        if (i) buf[n++] = ' ';
        size_t l = strlen(tpch_colors[c]);
        memcpy(buf + n, tpch_colors[c], l);
        n += (int32_t)l;
    }
    put_i64(&s->c[0], row, key);
    put_str(&s->c[1], row, buf, n);
    int64_t m = tpch_rng_range(&r, 1, 5);
    n = snprintf(buf, sizeof buf, "Manufacturer#%d", (int)m);
    put_str(&s->c[2], row, buf, n);
    n = snprintf(buf, sizeof buf, "Brand#%d%d", (int)m, (int)tpch_rng_range(&r, 1, 5));
    put_str(&s->c[3], row, buf, n);
    n = snprintf(buf, sizeof buf, "%s %s %s", tpch_type_s1[tpch_rng_range(&r, 0, 5)],
                 tpch_type_s2[tpch_rng_range(&r, 0, 4)], tpch_type_s3[tpch_rng_range(&r, 0, 4)]);
    put_str(&s->c[4], row, buf, n);
    put_i32(&s->c[5], row, (int32_t)tpch_rng_range(&r, 1, 50));
    n = snprintf(buf, sizeof buf, "%s %s", tpch_container_s1[tpch_rng_range(&r, 0, 4)],
                 tpch_container_s2[tpch_rng_range(&r, 0, 7)]);
    put_str(&s->c[6], row, buf, n);
    put_dec(&s->c[7], row, retail_cents(key));
    put_text(s, &s->c[8], row, &r, 5, 22);
}

static void gen_supplier(gen_stream *s, int64_t key, int64_t row) {
    const gen_plan *p = s->p;
    tpch_rng r;
    tpch_rng_seed(&r, S_SUPPLIER, (uint64_t)key);
    char buf[64];
    put_i64(&s->c[0], row, key);
    put_str(&s->c[1], row, buf, tpch_keyed_name("Supplier#", key, buf));
    put_str(&s->c[2], row, buf, tpch_vstring(&r, 10, 40, buf));
    int64_t nation = tpch_rng_range(&r, 0, 24);
    put_i64(&s->c[3], row, nation);
    tpch_phone(&r, nation, buf);
    put_str(&s->c[4], row, buf, 15);
    put_dec(&s->c[5], row, tpch_rng_range(&r, -99999, 999999));
    int64_t off;
    int32_t len;
    tpch_text_pick(&r, 25, 100, &off, &len);
    char *cmt = put_str(&s->c[6], row, s->pool + off, len);
    /* SF x 5 suppliers each get "Customer ... Complaints" / "Customer ...
     * Recommends" at a random place (clause 4.2.3, S_COMMENT). */
    int64_t v = (int64_t)(((unsigned __int128)(uint64_t)p->perm_a * (uint64_t)(key - 1) + (uint64_t)p->perm_b) %
                          (uint64_t)p->n_supplier);
    if (v < 2 * p->bbb) {
        const char *tail = v < p->bbb ? "Complaints" : "Recommends";
        int32_t gap = (int32_t)tpch_rng_range(&r, 0, len - 18);
        int32_t at = (int32_t)tpch_rng_range(&r, 0, len - 18 - gap);
        memcpy(cmt + at, "Customer", 8);
        memcpy(cmt + at + 8 + gap, tail, 10);
    }
}

static void gen_partsupp(gen_stream *s, int64_t idx, int64_t row) {
    const gen_plan *p = s->p;
    tpch_rng r;
    tpch_rng_seed(&r, S_PARTSUPP, (uint64_t)idx);
    int64_t partkey = idx / 4 + 1;
    put_i64(&s->c[0], row, partkey);
    put_i64(&s->c[1], row, supp_for_part(partkey, idx % 4, p->n_supplier));
    put_i32(&s->c[2], row, (int32_t)tpch_rng_range(&r, 1, 9999));
    put_dec(&s->c[3], row, tpch_rng_range(&r, 100, 100000));
    put_text(s, &s->c[4], row, &r, 49, 198);
}

static void gen_customer(gen_stream *s, int64_t key, int64_t row) {
    tpch_rng r;
    tpch_rng_seed(&r, S_CUSTOMER, (uint64_t)key);
    char buf[64];
    put_i64(&s->c[0], row, key);
    put_str(&s->c[1], row, buf, tpch_keyed_name("Customer#", key, buf));
    put_str(&s->c[2], row, buf, tpch_vstring(&r, 10, 40, buf));
    int64_t nation = tpch_rng_range(&r, 0, 24);
    put_i64(&s->c[3], row, nation);
    tpch_phone(&r, nation, buf);
    put_str(&s->c[4], row, buf, 15);
    put_dec(&s->c[5], row, tpch_rng_range(&r, -99999, 999999));
    put_cstr(&s->c[6], row, tpch_segments[tpch_rng_range(&r, 0, 4)]);
    put_text(s, &s->c[7], row, &r, 29, 116);
}

/* An order with its lines: orders and lineitem are both cut from it. */
typedef struct tpch_line {
    int64_t partkey, suppkey, ext_cents;
    int32_t qty, discount, tax;
    int32_t ship, commit, receipt;
    char rflag, lstatus;
    int32_t instruct, mode;
    int64_t cmt_off;
    int32_t cmt_len;
} tpch_line;

typedef struct tpch_order {
    int64_t key, custkey, total_cents, clerk;
    int32_t date, priority, n_lines;
    char status;
    int64_t cmt_off;
    int32_t cmt_len;
    tpch_line lines[7];
} tpch_order;

/* Lines of order idx: the first draw of its stream. */
static int32_t order_lines(int64_t idx) {
    tpch_rng r;
    tpch_rng_seed(&r, S_ORDERS, (uint64_t)idx);
    return (int32_t)tpch_rng_range(&r, 1, 7);
}

static void gen_order(const gen_plan *p, int64_t idx, tpch_order *o) {
    tpch_rng r;
    tpch_rng_seed(&r, S_ORDERS, (uint64_t)idx);
    o->n_lines = (int32_t)tpch_rng_range(&r, 1, 7);
    o->key = orderkey_of(idx);
    /* Uniform over the customers whose key is not a multiple of 3. */
    int64_t j = tpch_rng_range(&r, 0, p->n_customer - p->n_customer / 3 - 1);
    o->custkey = 3 * (j / 2) + j % 2 + 1;
    o->date = (int32_t)tpch_rng_range(&r, STARTDATE, ENDDATE - 151);
    o->priority = (int32_t)tpch_rng_range(&r, 0, 4);
    o->clerk = tpch_rng_range(&r, 1, p->n_clerks);
    tpch_text_pick(&r, 19, 78, &o->cmt_off, &o->cmt_len);
    int64_t total = 0; /* cents x 10^4 */
    int32_t n_f = 0;
    for (int32_t l = 0; l < o->n_lines; l++) {
        tpch_line *x = &o->lines[l];
        tpch_rng lr;
        tpch_rng_seed(&lr, S_LINES, (uint64_t)idx * 8 + (uint64_t)l);
        x->partkey = tpch_rng_range(&lr, 1, p->n_part);
        x->suppkey = supp_for_part(x->partkey, tpch_rng_range(&lr, 0, 3), p->n_supplier);
        x->qty = (int32_t)tpch_rng_range(&lr, 1, 50);
        x->discount = (int32_t)tpch_rng_range(&lr, 0, 10);
        x->tax = (int32_t)tpch_rng_range(&lr, 0, 8);
        x->ship = o->date + (int32_t)tpch_rng_range(&lr, 1, 121);
        x->commit = o->date + (int32_t)tpch_rng_range(&lr, 30, 90);
        x->receipt = x->ship + (int32_t)tpch_rng_range(&lr, 1, 30);
        char ra = tpch_rng_range(&lr, 0, 1) ? 'R' : 'A';
        x->rflag = x->receipt <= CURRENTDATE ? ra : 'N';
        x->lstatus = x->ship > CURRENTDATE ? 'O' : 'F';
        x->instruct = (int32_t)tpch_rng_range(&lr, 0, 3);
        x->mode = (int32_t)tpch_rng_range(&lr, 0, 6);
        tpch_text_pick(&lr, 10, 43, &x->cmt_off, &x->cmt_len);
        x->ext_cents = x->qty * retail_cents(x->partkey);
        total += x->ext_cents * (100 + x->tax) * (100 - x->discount);
        n_f += x->lstatus == 'F';
    }
    o->total_cents = (total + 5000) / 10000;
    o->status = n_f == o->n_lines ? 'F' : n_f == 0 ? 'O' : 'P';
}

static void put_order(gen_stream *s, const tpch_order *o, int64_t row) {
    char buf[64];
    put_i64(&s->c[0], row, o->key);
    put_i64(&s->c[1], row, o->custkey);
    put_str(&s->c[2], row, &o->status, 1);
    put_dec(&s->c[3], row, o->total_cents);
    put_i32(&s->c[4], row, o->date);
    put_cstr(&s->c[5], row, tpch_priorities[o->priority]);
    put_str(&s->c[6], row, buf, tpch_keyed_name("Clerk#", o->clerk, buf));
    put_i32(&s->c[7], row, 0);
    put_str(&s->c[8], row, s->pool + o->cmt_off, o->cmt_len);
}

static void put_line(gen_stream *s, const tpch_order *o, int32_t l, int64_t row) {
    const tpch_line *x = &o->lines[l];
    put_i64(&s->c[0], row, o->key);
    put_i64(&s->c[1], row, x->partkey);
    put_i64(&s->c[2], row, x->suppkey);
    put_i32(&s->c[3], row, l + 1);
    put_dec(&s->c[4], row, (int64_t)x->qty * 100);
    put_dec(&s->c[5], row, x->ext_cents);
    put_dec(&s->c[6], row, x->discount);
    put_dec(&s->c[7], row, x->tax);
    put_str(&s->c[8], row, &x->rflag, 1);
    put_str(&s->c[9], row, &x->lstatus, 1);
    put_i32(&s->c[10], row, x->ship);
    put_i32(&s->c[11], row, x->commit);
    put_i32(&s->c[12], row, x->receipt);
    put_cstr(&s->c[13], row, tpch_instructions[x->instruct]);
    put_cstr(&s->c[14], row, tpch_modes[x->mode]);
    put_str(&s->c[15], row, s->pool + x->cmt_off, x->cmt_len);
}

/* ---- the stream ---------------------------------------------------------- */

static floe_status gen_next(floe_stream *s_, floe_batch **out) {
    gen_stream *s = (gen_stream *)s_;
    const gen_plan *p = s->p;
    *out = NULL;
    FLOE_TRY(floe_cancel_check(s->cancel, "TpchGen"));
    if (s->next >= s->end) return NULL;
    int64_t units, rows;
    if (p->table == T_LINEITEM) {
        /* Whole orders, as many as fit the batch (at least one). */
        units = 0;
        rows = 0;
        while (s->next + units < s->end) {
            int32_t n = order_lines(s->next + units);
            if (units > 0 && rows + n > s->batch_size) break;
            rows += n;
            units++;
        }
    } else {
        units = s->end - s->next < s->batch_size ? s->end - s->next : s->batch_size;
        rows = units;
    }
    floe_status st = batch_begin(s, rows);
    if (st) {
        batch_discard(s);
        return st;
    }
    int64_t first = s->next;
    switch (p->table) {
    case T_NATION:
        for (int64_t i = 0; i < rows; i++) gen_nation(s, first + i, i);
        break;
    case T_REGION:
        for (int64_t i = 0; i < rows; i++) gen_region(s, first + i, i);
        break;
    case T_PART:
        for (int64_t i = 0; i < rows; i++) gen_part(s, first + i + 1, i);
        break;
    case T_SUPPLIER:
        for (int64_t i = 0; i < rows; i++) gen_supplier(s, first + i + 1, i);
        break;
    case T_PARTSUPP:
        for (int64_t i = 0; i < rows; i++) gen_partsupp(s, first + i, i);
        break;
    case T_CUSTOMER:
        for (int64_t i = 0; i < rows; i++) gen_customer(s, first + i + 1, i);
        break;
    case T_ORDERS:
        for (int64_t i = 0; i < rows; i++) {
            tpch_order o;
            gen_order(p, first + i, &o);
            put_order(s, &o, i);
        }
        break;
    case T_LINEITEM: {
        int64_t row = 0;
        for (int64_t i = 0; i < units; i++) {
            tpch_order o;
            gen_order(p, first + i, &o);
            for (int32_t l = 0; l < o.n_lines; l++) put_line(s, &o, l, row++);
        }
        break;
    }
    default: break;
    }
    st = batch_finish(s, rows, out);
    if (st) return st;
    s->next += units;
    floe_progress_add(s->progress, units);
    return NULL;
}

static void gen_close(floe_stream *s_) {
    gen_stream *s = (gen_stream *)s_;
    batch_discard(s);
    for (int32_t i = 0; i < s->n_cols; i++) {
        floe_free(s->c[i].offs);
        floe_free(s->c[i].data);
    }
    floe_free(s);
}

static floe_status gen_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    const gen_plan *p = (const gen_plan *)p_;
    const char *pool = NULL;
    FLOE_TRY(tpch_text_pool(&pool));
    gen_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a TpchGen stream");
    s->base.next = gen_next;
    s->base.close = gen_close;
    s->p = p;
    s->cancel = ctx->cancel;
    s->progress = ctx->progress;
    s->batch_size = ctx->batch_size > 0 ? ctx->batch_size : 8192;
    s->pool = pool;
    s->spec = k_tables[p->table].cols;
    s->n_cols = k_tables[p->table].n;
    int32_t n = p->head.n_partitions;
    s->next = (int64_t)((__int128)p->units * partition / n);
    s->end = (int64_t)((__int128)p->units * (partition + 1) / n);
    *out = &s->base;
    return NULL;
}

/* ---- parts, codec, explain ------------------------------------------------ */

static floe_status gen_encode(const floe_plan *p_, floe_buf *out) {
    const gen_plan *p = (const gen_plan *)p_;
    int64_t bits;
    memcpy(&bits, &p->sf, sizeof bits);
    FLOE_TRY(floe_codec_put_str(out, floe_tpch_tables[p->table]));
    FLOE_TRY(floe_codec_put_i64(out, bits));
    return floe_codec_put_i64(out, p->head.n_partitions);
}

static floe_status gen_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    (void)children;
    if (n_children != 0) return floe_error(FLOE_ERR_CORRUPT, "TpchGen with %d children", n_children);
    char *table = NULL;
    int64_t bits, np;
    FLOE_TRY(floe_codec_get_str(r, &table));
    floe_status st = floe_codec_get_i64(r, &bits);
    if (!st) st = floe_codec_get_i64(r, &np);
    if (!st && (np < 1 || np > INT32_MAX))
        st = floe_error(FLOE_ERR_CORRUPT, "TpchGen: partition count %lld is impossible", (long long)np);
    if (!st) {
        double sf;
        memcpy(&sf, &bits, sizeof sf);
        st = floe_plan_tpch_gen(table, sf, (int32_t)np, out);
    }
    floe_free(table);
    return st;
}

static floe_status gen_explain(const floe_plan *p_, floe_buf *out) {
    const gen_plan *p = (const gen_plan *)p_;
    return floe_buf_printf(out, "table=%s, sf=%g", floe_tpch_tables[p->table], p->sf);
}

/* Progress is counted in the units the generator produces (rows, or
 * orders for orders and lineitem). */
static int64_t gen_progress_total(const floe_plan *p) { return ((const gen_plan *)p)->units; }

static double gen_estimate_rows(const floe_plan *p) {
    const gen_plan *g = (const gen_plan *)p;
    return (double)g->units * (g->table == T_LINEITEM ? 4 : 1);
}

const floe_plan_vtable floe_tpch_gen_vt = {
    .name = "TpchGen",
    .execute = gen_execute,
    .encode_parts = gen_encode,
    .decode_parts = gen_decode,
    .explain_parts = gen_explain,
    .progress_total = gen_progress_total,
    .estimate_rows = gen_estimate_rows,
};

static int find_table(const char *name) {
    for (int i = 0; i < T_COUNT_; i++)
        if (name && strcasecmp(name, floe_tpch_tables[i]) == 0) return i;
    return -1;
}

static floe_status make_schema(tpch_table t, floe_schema **out) {
    floe_field f[MAX_COLS];
    int32_t n = k_tables[t].n;
    floe_type *dec = NULL;
    FLOE_TRY(floe_type_decimal(15, 2, &dec));
    floe_status st = NULL;
    int32_t made = 0;
    for (; made < n && !st; made++) {
        const col_spec *c = &k_tables[t].cols[made];
        floe_type *ty = c->kind == K_I64    ? floe_type_primitive(FLOE_TYPE_INT64)
                        : c->kind == K_I32  ? floe_type_primitive(FLOE_TYPE_INT32)
                        : c->kind == K_DATE ? floe_type_primitive(FLOE_TYPE_DATE32)
                        : c->kind == K_DEC  ? dec
                                            : floe_type_primitive(FLOE_TYPE_STRING);
        st = floe_field_init(&f[made], c->name, ty, false, -1);
        if (st) break;
    }
    if (!st) st = floe_type_struct(f, n, out);
    for (int32_t i = 0; i < made && i < n; i++) floe_field_clear(&f[i]);
    floe_type_release(dec);
    return st;
}

floe_status floe_plan_tpch_gen(const char *table, double sf, int32_t n_partitions, floe_plan **out) {
    *out = NULL;
    int t = find_table(table);
    if (t < 0)
        return floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "TPC-H table", floe_str_c(table ? table : ""),
                                       floe_tpch_tables, T_COUNT_);
    if (!(sf > 0 && sf <= 100000))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "tpch_gen: scale factor %g is out of range (0, 100000]", sf);
    if (n_partitions < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "tpch_gen: %d partitions", n_partitions);
    gen_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a TpchGen node");
    p->table = (tpch_table)t;
    p->sf = sf;
    p->n_supplier = scaled(10000, sf);
    p->n_part = scaled(200000, sf);
    p->n_customer = scaled(150000, sf);
    p->n_orders = scaled(1500000, sf);
    p->n_clerks = scaled(1000, sf);
    p->bbb = p->n_supplier * 5 / 10000;
    /* A permutation r -> (a r + b) mod S of the supplier keys picks the
     * rows whose comments mention Customer complaints / recommendations. */
    int64_t a = (int64_t)((double)p->n_supplier * 0.6180339887) | 1;
    while (gcd64(a, p->n_supplier) != 1) a++;
    p->perm_a = a % p->n_supplier;
    p->perm_b = p->n_supplier / 3;
    switch (p->table) {
    case T_NATION: p->units = 25; break;
    case T_REGION: p->units = 5; break;
    case T_PART: p->units = p->n_part; break;
    case T_SUPPLIER: p->units = p->n_supplier; break;
    case T_PARTSUPP: p->units = 4 * p->n_part; break;
    case T_CUSTOMER: p->units = p->n_customer; break;
    default: p->units = p->n_orders; break;
    }
    floe_schema *schema = NULL;
    floe_status st = make_schema(p->table, &schema);
    /* The head must be initialised before any release of the node. */
    floe_status init = floe_exec_plan_init(&p->head, &floe_tpch_gen_vt, schema, n_partitions, NULL, 0);
    if (!st) st = init;
    else floe_status_free(init);
    floe_type_release(schema);
    if (!st) {
        /* Partitions are contiguous key ranges: each is sorted by the first
         * column (the key; partsupp's part key repeats). */
        floe_expr *c0 = NULL;
        st = floe_expr_column(0, &c0);
        if (!st) {
            floe_sort_key k = {c0, false, false};
            st = floe_exec_plan_set_ordering(&p->head, &k, 1);
        }
        floe_expr_release(c0);
    }
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

const char *floe_tpch_gen_table(const floe_plan *p) { return floe_tpch_tables[((const gen_plan *)p)->table]; }
double floe_tpch_gen_scale(const floe_plan *p) { return ((const gen_plan *)p)->sf; }

int64_t floe_tpch_table_rows(const char *table, double sf) {
    switch (find_table(table)) {
    case T_NATION: return 25;
    case T_REGION: return 5;
    case T_PART: return scaled(200000, sf);
    case T_SUPPLIER: return scaled(10000, sf);
    case T_PARTSUPP: return 4 * scaled(200000, sf);
    case T_CUSTOMER: return scaled(150000, sf);
    case T_ORDERS: return scaled(1500000, sf);
    case T_LINEITEM: return 4 * scaled(1500000, sf);
    default: return -1;
    }
}

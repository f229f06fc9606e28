/*
 * orc_meta.c — decoding ORC's protobuf metadata messages (see orc_meta.h).
 *
 * Each decoder is one loop over the message's fields: known fields are
 * read with the wire type checked, unknown ones skipped.  Repeated
 * sub-messages are counted first (floe_orc_pb_count) so their arrays are
 * allocated once in the arena.
 */
#include "formats/orc/orc_meta.h"

#include <string.h>

#include "formats/orc/proto.h"

#define MAX_ARRAY (1u << 26) /* sanity bound on repeated fields */

static floe_status bad(const char *msg, uint32_t field, const char *what) {
    return floe_error(FLOE_ERR_CORRUPT, "ORC %s: field %u: %s", msg, field, what);
}

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory"); }

const char *floe_orc_compression_name(int c) {
    static const char *const n[] = {"NONE", "ZLIB", "SNAPPY", "LZO", "LZ4", "ZSTD"};
    return c >= 0 && c <= 5 ? n[c] : "?";
}

const char *floe_orc_kind_name(int k) {
    static const char *const n[] = {"boolean", "tinyint", "smallint", "int", "bigint",
                                    "float", "double", "string", "binary", "timestamp",
                                    "array", "map", "struct", "uniontype", "decimal",
                                    "date", "varchar", "char",
                                    "timestamp with local time zone"};
    return k >= 0 && k <= FLOE_ORC_KIND_MAX ? n[k] : "?";
}

const char *floe_orc_stream_kind_name(int k) {
    static const char *const n[] = {"PRESENT", "DATA", "LENGTH", "DICTIONARY_DATA",
                                    "DICTIONARY_COUNT", "SECONDARY", "ROW_INDEX",
                                    "BLOOM_FILTER", "BLOOM_FILTER_UTF8", "ENCRYPTED_INDEX",
                                    "ENCRYPTED_DATA"};
    if (k >= 0 && k <= 10) return n[k];
    if (k == 100) return "STRIPE_STATISTICS";
    if (k == 101) return "FILE_STATISTICS";
    return "?";
}

const char *floe_orc_encoding_name(int e) {
    static const char *const n[] = {"DIRECT", "DICTIONARY", "DIRECT_V2", "DICTIONARY_V2"};
    return e >= 0 && e <= 3 ? n[e] : "?";
}

/* A string/bytes field copied into the arena, NUL-terminated. */
static bool read_bytes(floe_orc_pb *r, floe_arena *a, floe_orc_bytes *out) {
    const uint8_t *d;
    size_t n;
    if (!floe_orc_pb_bytes(r, &d, &n)) return false;
    uint8_t *c = floe_arena_alloc(a, n + 1);
    if (!c) return false;
    memcpy(c, d, n);
    c[n] = 0;
    out->data = c;
    out->len = n;
    out->set = true;
    return true;
}

static bool read_str(floe_orc_pb *r, floe_arena *a, const char **out) {
    floe_orc_bytes b;
    if (!read_bytes(r, a, &b)) return false;
    *out = (const char *)b.data;
    return true;
}

/* Count a repeated field and allocate its array (NULL with *n = 0 when
 * absent).  false: malformed or out of memory. */
static bool alloc_repeated(const uint8_t *d, size_t len, uint32_t field, bool packed,
                           size_t elem, floe_arena *a, void **out, size_t *cap) {
    int64_t n = floe_orc_pb_count(d, len, field, packed);
    *out = NULL;
    *cap = 0;
    if (n < 0 || (uint64_t)n > MAX_ARRAY) return false;
    if (n == 0) return true;
    *out = floe_arena_calloc(a, (size_t)n, elem);
    if (!*out) return false;
    *cap = (size_t)n;
    return true;
}

#define SCALAR(var)                                                     \
    do {                                                                \
        uint64_t v_;                                                    \
        if (!floe_orc_pb_scalar(&r, w, &v_)) return bad(MSG, f, "bad value"); \
        (var) = v_;                                                     \
    } while (0)
#define SUBMSG(dp, np)                                                  \
    do {                                                                \
        if (w != FLOE_ORC_WIRE_LEN || !floe_orc_pb_bytes(&r, &(dp), &(np))) \
            return bad(MSG, f, "bad length-delimited value");          \
    } while (0)
#define SKIP()                                                          \
    do {                                                                \
        if (!floe_orc_pb_skip(&r, w)) return bad(MSG, f, "truncated or bad wire type"); \
    } while (0)

/* ------------------------------------------------------------ statistics */

#undef MSG
#define MSG "ColumnStatistics"
floe_status floe_orc_decode_stats(const uint8_t *d, size_t n, floe_arena *a, floe_orc_stats *out) {
    memset(out, 0, sizeof *out);
    floe_orc_pb r = floe_orc_pb_init(d, n);
    while (!floe_orc_pb_done(&r)) {
        uint32_t f;
        int w;
        if (!floe_orc_pb_tag(&r, &f, &w)) return bad(MSG, 0, "bad tag");
        const uint8_t *sd;
        size_t sn;
        switch (f) {
        case 1: SCALAR(out->num_values); out->has_num_values = true; continue;
        case 10: { uint64_t v; SCALAR(v); out->has_null = v != 0; out->has_has_null = true; continue; }
        case 11: SCALAR(out->bytes_on_disk); out->has_bytes_on_disk = true; continue;
        case 2: case 3: case 4: case 5: case 6: case 7: case 8: case 9: case 12: break;
        default: SKIP(); continue;
        }
        SUBMSG(sd, sn);
        floe_orc_pb s = floe_orc_pb_init(sd, sn);
        static const floe_orc_stats_kind kinds[] = {
            0, 0, FLOE_ORC_STATS_INT, FLOE_ORC_STATS_DOUBLE, FLOE_ORC_STATS_STRING,
            FLOE_ORC_STATS_BUCKET, FLOE_ORC_STATS_DECIMAL, FLOE_ORC_STATS_DATE,
            FLOE_ORC_STATS_BINARY, FLOE_ORC_STATS_TIMESTAMP, 0, 0, FLOE_ORC_STATS_COLLECTION};
        out->kind = kinds[f];
        while (!floe_orc_pb_done(&s)) {
            uint32_t g;
            int sw;
            if (!floe_orc_pb_tag(&s, &g, &sw)) return bad(MSG, f, "bad nested tag");
            uint64_t v = 0;
            bool ok = true;
            if (f == 4 || f == 6) { /* string / decimal: strings + sum */
                if (g == 1) ok = sw == 2 && read_bytes(&s, a, &out->str_min), out->has_min = ok;
                else if (g == 2) ok = sw == 2 && read_bytes(&s, a, &out->str_max), out->has_max = ok;
                else if (g == 3 && f == 4) {
                    ok = floe_orc_pb_scalar(&s, sw, &v);
                    out->len_sum = floe_orc_unzigzag(v);
                    out->has_sum = true;
                } else if (g == 3) ok = sw == 2 && read_bytes(&s, a, &out->dec_sum), out->has_sum = ok;
                else if (g == 4 && f == 4) ok = sw == 2 && read_bytes(&s, a, &out->str_lower);
                else if (g == 5 && f == 4) ok = sw == 2 && read_bytes(&s, a, &out->str_upper);
                else ok = floe_orc_pb_skip(&s, sw);
            } else if (f == 3) { /* double */
                if (g >= 1 && g <= 3 && sw == FLOE_ORC_WIRE_I64) {
                    ok = floe_orc_pb_fixed64(&s, &v);
                    double x;
                    memcpy(&x, &v, 8);
                    if (g == 1) out->dbl_min = x, out->has_min = true;
                    else if (g == 2) out->dbl_max = x, out->has_max = true;
                    else out->dbl_sum = x, out->has_sum = true;
                } else ok = floe_orc_pb_skip(&s, sw);
            } else if (f == 5) { /* bucket */
                if (g == 1) {
                    uint64_t tmp[64];
                    size_t k = 0;
                    if (sw == FLOE_ORC_WIRE_LEN) {
                        const uint8_t *bd;
                        size_t bn;
                        ok = floe_orc_pb_bytes(&s, &bd, &bn);
                        floe_orc_pb bs = floe_orc_pb_init(bd, bn);
                        if (ok && !floe_orc_pb_done(&bs)) ok = floe_orc_pb_varint(&bs, &tmp[0]), k = 1;
                    } else {
                        ok = floe_orc_pb_scalar(&s, sw, &tmp[0]);
                        k = 1;
                    }
                    if (ok && k && !out->has_sum) out->true_count = tmp[0], out->has_sum = true;
                } else ok = floe_orc_pb_skip(&s, sw);
            } else if (g <= 6 && sw != FLOE_ORC_WIRE_LEN) {
                ok = floe_orc_pb_scalar(&s, sw, &v);
                int64_t z = floe_orc_unzigzag(v);
                if (f == 2 || f == 7) { /* int, date */
                    if (g == 1) out->int_min = z, out->has_min = true;
                    else if (g == 2) out->int_max = z, out->has_max = true;
                    else if (g == 3 && f == 2) out->int_sum = z, out->has_sum = true;
                } else if (f == 8) {
                    if (g == 1) out->len_sum = z, out->has_sum = true;
                } else if (f == 9) {
                    if (g == 1) out->ts_min = z, out->has_min = true;
                    else if (g == 2) out->ts_max = z, out->has_max = true;
                    else if (g == 3) out->ts_min_utc = z, out->has_utc = true, out->has_min = true;
                    else if (g == 4) out->ts_max_utc = z, out->has_utc = true, out->has_max = true;
                    else if (g == 5) out->ts_min_nanos = (int32_t)v - 1;
                    else if (g == 6) out->ts_max_nanos = (int32_t)v - 1;
                } else if (f == 12) {
                    if (g == 1) out->coll_min = v, out->has_min = true;
                    else if (g == 2) out->coll_max = v, out->has_max = true;
                    else if (g == 3) out->coll_total = v, out->has_sum = true;
                }
            } else ok = floe_orc_pb_skip(&s, sw);
            if (!ok) return bad(MSG, f, "malformed nested statistics");
        }
    }
    /* minimumNanos/maximumNanos are stored + 1 so 0 means absent. */
    if (out->ts_min_nanos < 0) out->ts_min_nanos = 0;
    if (out->ts_max_nanos < 0) out->ts_max_nanos = 0;
    return NULL;
}

/* ------------------------------------------------------------ postscript */

#undef MSG
#define MSG "PostScript"
floe_status floe_orc_decode_postscript(const uint8_t *d, size_t n, floe_orc_postscript *out) {
    memset(out, 0, sizeof *out);
    floe_orc_pb r = floe_orc_pb_init(d, n);
    while (!floe_orc_pb_done(&r)) {
        uint32_t f;
        int w;
        if (!floe_orc_pb_tag(&r, &f, &w)) return bad(MSG, 0, "bad tag");
        uint64_t v;
        switch (f) {
        case 1: SCALAR(out->footer_length); break;
        case 2:
            SCALAR(v);
            if (v > 5) return bad(MSG, f, "unknown compression kind");
            out->compression = (int)v;
            break;
        case 3: SCALAR(out->block_size); out->has_block_size = true; break;
        case 4: {
            uint64_t tmp[4];
            size_t k = 0;
            if (w == FLOE_ORC_WIRE_LEN) {
                const uint8_t *vd;
                size_t vn;
                SUBMSG(vd, vn);
                floe_orc_pb vr = floe_orc_pb_init(vd, vn);
                while (!floe_orc_pb_done(&vr)) {
                    if (!floe_orc_pb_varint(&vr, &v)) return bad(MSG, f, "bad version");
                    if (k < 4) tmp[k++] = v;
                }
            } else {
                SCALAR(v);
                tmp[k++] = v;
            }
            for (size_t i = 0; i < k && out->num_version < 4; i++)
                out->version[out->num_version++] = (uint32_t)tmp[i];
            break;
        }
        case 5: SCALAR(out->metadata_length); break;
        case 6: SCALAR(v); out->writer_version = (uint32_t)v; break;
        case 7: SCALAR(out->stripe_stats_length); break;
        case 8000: {
            const uint8_t *md;
            size_t mn;
            SUBMSG(md, mn);
            if (mn != 3 || memcmp(md, "ORC", 3) != 0) return bad(MSG, f, "magic is not 'ORC'");
            out->has_magic = true;
            break;
        }
        default: SKIP();
        }
    }
    return NULL;
}

/* ---------------------------------------------------------------- footer */

#undef MSG
#define MSG "Type"
static floe_status decode_type(const uint8_t *d, size_t n, floe_arena *a, floe_orc_type_msg *t) {
    void *p;
    size_t cap_sub, cap_names, cap_attr;
    t->kind = -1;
    if (!alloc_repeated(d, n, 2, true, sizeof(uint32_t), a, &p, &cap_sub)) return bad(MSG, 2, "malformed");
    t->subtypes = p;
    if (!alloc_repeated(d, n, 3, false, sizeof(char *), a, &p, &cap_names)) return bad(MSG, 3, "malformed");
    t->field_names = p;
    if (!alloc_repeated(d, n, 7, false, sizeof(floe_orc_attribute), a, &p, &cap_attr))
        return bad(MSG, 7, "malformed");
    t->attributes = p;
    floe_orc_pb r = floe_orc_pb_init(d, n);
    while (!floe_orc_pb_done(&r)) {
        uint32_t f;
        int w;
        if (!floe_orc_pb_tag(&r, &f, &w)) return bad(MSG, 0, "bad tag");
        uint64_t v;
        switch (f) {
        case 1:
            SCALAR(v);
            if (v > FLOE_ORC_KIND_MAX) return bad(MSG, f, "unknown type kind");
            t->kind = (int)v;
            break;
        case 2: {
            uint64_t tmp[1];
            if (w == FLOE_ORC_WIRE_LEN) {
                const uint8_t *sd;
                size_t sn;
                SUBMSG(sd, sn);
                floe_orc_pb sr = floe_orc_pb_init(sd, sn);
                while (!floe_orc_pb_done(&sr)) {
                    if (!floe_orc_pb_varint(&sr, &tmp[0]) || t->num_subtypes >= cap_sub ||
                        tmp[0] > UINT32_MAX)
                        return bad(MSG, f, "bad subtype list");
                    t->subtypes[t->num_subtypes++] = (uint32_t)tmp[0];
                }
            } else {
                SCALAR(v);
                if (t->num_subtypes >= cap_sub || v > UINT32_MAX) return bad(MSG, f, "bad subtype");
                t->subtypes[t->num_subtypes++] = (uint32_t)v;
            }
            break;
        }
        case 3:
            if (w != 2 || t->num_field_names >= cap_names ||
                !read_str(&r, a, &t->field_names[t->num_field_names]))
                return bad(MSG, f, "bad field name");
            t->num_field_names++;
            break;
        case 4: SCALAR(v); t->max_length = (uint32_t)v; t->has_max_length = true; break;
        case 5: SCALAR(v); t->precision = (uint32_t)v; t->has_precision = true; break;
        case 6: SCALAR(v); t->scale = (uint32_t)v; t->has_scale = true; break;
        case 7: {
            const uint8_t *sd;
            size_t sn;
            SUBMSG(sd, sn);
            if (t->num_attributes >= cap_attr) return bad(MSG, f, "too many attributes");
            floe_orc_attribute *at = &t->attributes[t->num_attributes++];
            at->key = "";
            at->value = "";
            floe_orc_pb sr = floe_orc_pb_init(sd, sn);
            while (!floe_orc_pb_done(&sr)) {
                uint32_t g;
                int sw;
                if (!floe_orc_pb_tag(&sr, &g, &sw)) return bad(MSG, f, "bad attribute");
                bool ok;
                if (g == 1 && sw == 2) ok = read_str(&sr, a, &at->key);
                else if (g == 2 && sw == 2) ok = read_str(&sr, a, &at->value);
                else ok = floe_orc_pb_skip(&sr, sw);
                if (!ok) return bad(MSG, f, "bad attribute");
            }
            break;
        }
        default: SKIP();
        }
    }
    if (t->kind < 0) return bad(MSG, 1, "required kind is missing");
    return NULL;
}

#undef MSG
#define MSG "Footer"
floe_status floe_orc_decode_footer(const uint8_t *d, size_t n, floe_arena *a, floe_orc_footer *out) {
    memset(out, 0, sizeof *out);
    void *p;
    size_t cap_stripes, cap_types, cap_meta, cap_stats;
    if (!alloc_repeated(d, n, 3, false, sizeof(floe_orc_stripe_info), a, &p, &cap_stripes))
        return bad(MSG, 3, "malformed");
    out->stripes = p;
    if (!alloc_repeated(d, n, 4, false, sizeof(floe_orc_type_msg), a, &p, &cap_types))
        return bad(MSG, 4, "malformed");
    out->types = p;
    if (!alloc_repeated(d, n, 5, false, sizeof(floe_orc_user_meta), a, &p, &cap_meta))
        return bad(MSG, 5, "malformed");
    out->user_meta = p;
    if (!alloc_repeated(d, n, 7, false, sizeof(floe_orc_stats), a, &p, &cap_stats))
        return bad(MSG, 7, "malformed");
    out->stats = p;
    floe_orc_pb r = floe_orc_pb_init(d, n);
    while (!floe_orc_pb_done(&r)) {
        uint32_t f;
        int w;
        if (!floe_orc_pb_tag(&r, &f, &w)) return bad(MSG, 0, "bad tag");
        const uint8_t *sd;
        size_t sn;
        uint64_t v;
        switch (f) {
        case 1: SCALAR(out->header_length); break;
        case 2: SCALAR(out->content_length); break;
        case 3: {
            SUBMSG(sd, sn);
            if (out->num_stripes >= cap_stripes) return bad(MSG, f, "count");
            floe_orc_stripe_info *s = &out->stripes[out->num_stripes++];
            floe_orc_pb sr = floe_orc_pb_init(sd, sn);
            while (!floe_orc_pb_done(&sr)) {
                uint32_t g;
                int sw;
                if (!floe_orc_pb_tag(&sr, &g, &sw)) return bad("StripeInformation", 0, "bad tag");
                uint64_t x = 0;
                bool ok = g >= 1 && g <= 5 ? floe_orc_pb_scalar(&sr, sw, &x) : floe_orc_pb_skip(&sr, sw);
                if (!ok) return bad("StripeInformation", g, "bad value");
                if (g == 1) s->offset = x;
                else if (g == 2) s->index_length = x;
                else if (g == 3) s->data_length = x;
                else if (g == 4) s->footer_length = x;
                else if (g == 5) s->num_rows = x;
            }
            break;
        }
        case 4: {
            SUBMSG(sd, sn);
            if (out->num_types >= cap_types) return bad(MSG, f, "count");
            FLOE_TRY_CTX(decode_type(sd, sn, a, &out->types[out->num_types]), "Footer.types[%zu]",
                         out->num_types);
            out->num_types++;
            break;
        }
        case 5: {
            SUBMSG(sd, sn);
            if (out->num_user_meta >= cap_meta) return bad(MSG, f, "count");
            floe_orc_user_meta *um = &out->user_meta[out->num_user_meta++];
            um->name = "";
            floe_orc_pb sr = floe_orc_pb_init(sd, sn);
            while (!floe_orc_pb_done(&sr)) {
                uint32_t g;
                int sw;
                if (!floe_orc_pb_tag(&sr, &g, &sw)) return bad("UserMetadataItem", 0, "bad tag");
                bool ok;
                if (g == 1 && sw == 2) ok = read_str(&sr, a, &um->name);
                else if (g == 2 && sw == 2) ok = read_bytes(&sr, a, &um->value);
                else ok = floe_orc_pb_skip(&sr, sw);
                if (!ok) return bad("UserMetadataItem", g, "bad value");
            }
            break;
        }
        case 6: SCALAR(out->num_rows); break;
        case 7:
            SUBMSG(sd, sn);
            if (out->num_stats >= cap_stats) return bad(MSG, f, "count");
            FLOE_TRY_CTX(floe_orc_decode_stats(sd, sn, a, &out->stats[out->num_stats]),
                         "Footer.statistics[%zu]", out->num_stats);
            out->num_stats++;
            break;
        case 8: SCALAR(v); out->row_index_stride = (uint32_t)v; break;
        case 9: SCALAR(v); out->writer = (uint32_t)v; out->has_writer = true; break;
        case 10: SKIP(); out->has_encryption = true; break;
        case 11: SCALAR(v); out->calendar = (int)(v & 3); break;
        case 12:
            if (w != 2 || !read_str(&r, a, &out->software_version)) return bad(MSG, f, "bad softwareVersion");
            break;
        default: SKIP();
        }
    }
    return NULL;
}

#undef MSG
#define MSG "Metadata"
floe_status floe_orc_decode_metadata(const uint8_t *d, size_t n, floe_arena *a, floe_orc_metadata *out) {
    memset(out, 0, sizeof *out);
    void *p;
    size_t cap;
    if (!alloc_repeated(d, n, 1, false, sizeof(floe_orc_stripe_stats), a, &p, &cap))
        return bad(MSG, 1, "malformed");
    out->stripes = p;
    floe_orc_pb r = floe_orc_pb_init(d, n);
    while (!floe_orc_pb_done(&r)) {
        uint32_t f;
        int w;
        if (!floe_orc_pb_tag(&r, &f, &w)) return bad(MSG, 0, "bad tag");
        if (f != 1) {
            SKIP();
            continue;
        }
        const uint8_t *sd;
        size_t sn;
        SUBMSG(sd, sn);
        if (out->num_stripes >= cap) return bad(MSG, f, "count");
        floe_orc_stripe_stats *ss = &out->stripes[out->num_stripes];
        size_t cc;
        if (!alloc_repeated(sd, sn, 1, false, sizeof(floe_orc_stats), a, &p, &cc))
            return bad("StripeStatistics", 1, "malformed");
        ss->cols = p;
        floe_orc_pb sr = floe_orc_pb_init(sd, sn);
        while (!floe_orc_pb_done(&sr)) {
            uint32_t g;
            int sw;
            if (!floe_orc_pb_tag(&sr, &g, &sw)) return bad("StripeStatistics", 0, "bad tag");
            const uint8_t *cd;
            size_t cn;
            if (g != 1) {
                if (!floe_orc_pb_skip(&sr, sw)) return bad("StripeStatistics", g, "bad value");
                continue;
            }
            if (sw != 2 || !floe_orc_pb_bytes(&sr, &cd, &cn) || ss->num_cols >= cc)
                return bad("StripeStatistics", g, "bad colStats");
            FLOE_TRY_CTX(floe_orc_decode_stats(cd, cn, a, &ss->cols[ss->num_cols]),
                         "Metadata.stripeStats[%zu].colStats[%zu]", out->num_stripes, ss->num_cols);
            ss->num_cols++;
        }
        out->num_stripes++;
    }
    return NULL;
}

/* ---------------------------------------------------------- stripe footer */

#undef MSG
#define MSG "StripeFooter"
floe_status floe_orc_decode_stripe_footer(const uint8_t *d, size_t n, floe_arena *a,
                                          floe_orc_stripe_footer *out) {
    memset(out, 0, sizeof *out);
    void *p;
    size_t cap_s, cap_e;
    if (!alloc_repeated(d, n, 1, false, sizeof(floe_orc_stream_info), a, &p, &cap_s))
        return bad(MSG, 1, "malformed");
    out->streams = p;
    if (!alloc_repeated(d, n, 2, false, sizeof(floe_orc_col_encoding), a, &p, &cap_e))
        return bad(MSG, 2, "malformed");
    out->encodings = p;
    floe_orc_pb r = floe_orc_pb_init(d, n);
    while (!floe_orc_pb_done(&r)) {
        uint32_t f;
        int w;
        if (!floe_orc_pb_tag(&r, &f, &w)) return bad(MSG, 0, "bad tag");
        const uint8_t *sd;
        size_t sn;
        if (f == 1 || f == 2) {
            SUBMSG(sd, sn);
            floe_orc_pb sr = floe_orc_pb_init(sd, sn);
            floe_orc_stream_info *s = NULL;
            floe_orc_col_encoding *e = NULL;
            if (f == 1) {
                if (out->num_streams >= cap_s) return bad(MSG, f, "count");
                s = &out->streams[out->num_streams++];
                s->kind = -1;
            } else {
                if (out->num_encodings >= cap_e) return bad(MSG, f, "count");
                e = &out->encodings[out->num_encodings++];
                e->kind = -1;
            }
            while (!floe_orc_pb_done(&sr)) {
                uint32_t g;
                int sw;
                uint64_t x = 0;
                if (!floe_orc_pb_tag(&sr, &g, &sw)) return bad(f == 1 ? "Stream" : "ColumnEncoding", 0, "bad tag");
                bool ok = g <= 3 ? floe_orc_pb_scalar(&sr, sw, &x) : floe_orc_pb_skip(&sr, sw);
                if (!ok) return bad(f == 1 ? "Stream" : "ColumnEncoding", g, "bad value");
                if (s) {
                    if (g == 1) s->kind = x > 1000 ? 1000 : (int)x;
                    else if (g == 2) {
                        if (x > UINT32_MAX) return bad("Stream", g, "column id out of range");
                        s->column = (uint32_t)x;
                    } else if (g == 3) s->length = x;
                } else {
                    if (g == 1) {
                        if (x > 3) return bad("ColumnEncoding", g, "unknown encoding kind");
                        e->kind = (int)x;
                    } else if (g == 2) e->dictionary_size = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
                }
            }
            if (s && s->kind < 0) return bad("Stream", 1, "required kind is missing");
            if (e && e->kind < 0) return bad("ColumnEncoding", 1, "required kind is missing");
        } else if (f == 3) {
            if (w != 2 || !read_str(&r, a, &out->writer_timezone)) return bad(MSG, f, "bad writerTimezone");
        } else if (f == 4) {
            SKIP();
            out->num_encryption++;
        } else {
            SKIP();
        }
    }
    return NULL;
}

/* -------------------------------------------------------------- indexes */

#undef MSG
#define MSG "RowIndex"
floe_status floe_orc_decode_row_index(const uint8_t *d, size_t n, floe_arena *a,
                                      floe_orc_row_index *out) {
    memset(out, 0, sizeof *out);
    void *p;
    size_t cap;
    if (!alloc_repeated(d, n, 1, false, sizeof(floe_orc_index_entry), a, &p, &cap))
        return bad(MSG, 1, "malformed");
    out->entries = p;
    floe_orc_pb r = floe_orc_pb_init(d, n);
    while (!floe_orc_pb_done(&r)) {
        uint32_t f;
        int w;
        if (!floe_orc_pb_tag(&r, &f, &w)) return bad(MSG, 0, "bad tag");
        if (f != 1) {
            SKIP();
            continue;
        }
        const uint8_t *sd;
        size_t sn;
        SUBMSG(sd, sn);
        if (out->num_entries >= cap) return bad(MSG, f, "count");
        floe_orc_index_entry *e = &out->entries[out->num_entries];
        size_t pc;
        if (!alloc_repeated(sd, sn, 1, true, sizeof(uint64_t), a, &p, &pc))
            return bad("RowIndexEntry", 1, "malformed");
        e->positions = p;
        floe_orc_pb sr = floe_orc_pb_init(sd, sn);
        while (!floe_orc_pb_done(&sr)) {
            uint32_t g;
            int sw;
            if (!floe_orc_pb_tag(&sr, &g, &sw)) return bad("RowIndexEntry", 0, "bad tag");
            if (g == 1) {
                if (!floe_orc_pb_repeated_u64(&sr, sw, e->positions, pc, &e->num_positions))
                    return bad("RowIndexEntry", g, "bad positions");
            } else if (g == 2) {
                const uint8_t *cd;
                size_t cn;
                if (sw != 2 || !floe_orc_pb_bytes(&sr, &cd, &cn)) return bad("RowIndexEntry", g, "bad statistics");
                FLOE_TRY_CTX(floe_orc_decode_stats(cd, cn, a, &e->stats), "RowIndex.entry[%zu]",
                             out->num_entries);
                e->has_stats = true;
            } else if (!floe_orc_pb_skip(&sr, sw)) {
                return bad("RowIndexEntry", g, "bad value");
            }
        }
        out->num_entries++;
    }
    return NULL;
}

#undef MSG
#define MSG "BloomFilterIndex"
floe_status floe_orc_decode_bloom_index(const uint8_t *d, size_t n, floe_arena *a,
                                        floe_orc_bloom_index *out) {
    memset(out, 0, sizeof *out);
    void *p;
    size_t cap;
    if (!alloc_repeated(d, n, 1, false, sizeof(floe_orc_bloom_filter), a, &p, &cap))
        return bad(MSG, 1, "malformed");
    out->filters = p;
    floe_orc_pb r = floe_orc_pb_init(d, n);
    while (!floe_orc_pb_done(&r)) {
        uint32_t f;
        int w;
        if (!floe_orc_pb_tag(&r, &f, &w)) return bad(MSG, 0, "bad tag");
        if (f != 1) {
            SKIP();
            continue;
        }
        const uint8_t *sd;
        size_t sn;
        SUBMSG(sd, sn);
        if (out->num_filters >= cap) return bad(MSG, f, "count");
        floe_orc_bloom_filter *bf = &out->filters[out->num_filters++];
        int64_t words = floe_orc_pb_count(sd, sn, 2, false);
        if (words < 0) return bad("BloomFilter", 2, "malformed");
        /* Packed fixed64 words come as one length-delimited run: count bytes. */
        floe_orc_pb sr = floe_orc_pb_init(sd, sn);
        size_t total = 0;
        bool odd = false; /* a field of an unexpected wire type */
        while (!floe_orc_pb_done(&sr)) {
            uint32_t g;
            int sw;
            if (!floe_orc_pb_tag(&sr, &g, &sw)) return bad("BloomFilter", 0, "bad tag");
            const uint8_t *bd;
            size_t bn;
            if ((g == 2 || g == 3) && sw == 2) {
                if (!floe_orc_pb_bytes(&sr, &bd, &bn)) return bad("BloomFilter", g, "bad bitset");
                total += (bn + 7) / 8;
            } else if (g == 2) {
                total++;
                odd |= sw != FLOE_ORC_WIRE_I64;
                if (!floe_orc_pb_skip(&sr, sw)) return bad("BloomFilter", g, "bad bitset");
            } else if (g == 3 || (g == 1 && sw != FLOE_ORC_WIRE_VARINT)) {
                odd = true;
                if (!floe_orc_pb_skip(&sr, sw)) return bad("BloomFilter", g, "bad value");
            } else if (!floe_orc_pb_skip(&sr, sw)) {
                return bad("BloomFilter", g, "bad value");
            }
        }
        if (total > MAX_ARRAY) return bad("BloomFilter", 2, "too large");
        bf->bitset = total ? floe_arena_calloc(a, total, 8) : NULL;
        if (total && !bf->bitset) return oom();
        sr = floe_orc_pb_init(sd, sn);
        while (!floe_orc_pb_done(&sr)) {
            uint32_t g;
            int sw;
            uint64_t x;
            if (!floe_orc_pb_tag(&sr, &g, &sw)) return bad("BloomFilter", 0, "bad tag");
            const uint8_t *bd;
            size_t bn;
            if (g == 1) {
                if (!floe_orc_pb_scalar(&sr, sw, &x)) return bad("BloomFilter", g, "bad value");
                bf->num_hash_functions = x > 1024 ? 1024 : (uint32_t)x;
            } else if ((g == 3 && sw != 2) || (g == 2 && sw != 2 && sw != FLOE_ORC_WIRE_I64)) {
                if (!floe_orc_pb_skip(&sr, sw)) return bad("BloomFilter", g, "bad value");
            } else if ((g == 2 || g == 3) && sw == 2) {
                if (!floe_orc_pb_bytes(&sr, &bd, &bn)) return bad("BloomFilter", g, "bad bitset");
                if (bn) memcpy((uint8_t *)(bf->bitset + bf->num_words), bd, bn);
                bf->num_words += (bn + 7) / 8;
            } else if (g == 2) {
                if (!floe_orc_pb_scalar(&sr, sw, &x)) return bad("BloomFilter", g, "bad bitset");
                bf->bitset[bf->num_words++] = x;
            } else if (!floe_orc_pb_skip(&sr, sw)) {
                return bad("BloomFilter", g, "bad value");
            }
        }
        /* writers use a handful of hash functions over whole 64-bit words */
        bf->usable = !odd && bf->num_words > 0 && bf->num_hash_functions >= 1 &&
                     bf->num_hash_functions <= 64;
    }
    return NULL;
}

/*
 * variant.c — decoding the Variant binary encoding (see floe/variant.h):
 * metadata dictionaries, value headers, elements and fields, deep
 * validation, strict equality, paths, and slots of variant arrays.
 *
 * Every size is computed in 64 bits before it is compared with the bytes
 * at hand, so a count or offset near 2^32 cannot wrap a check.  Nested
 * values are walked recursively with the depth bounded by
 * FLOE_VARIANT_MAX_DEPTH.  The columnar layer holds this code because
 * variant is one of its types: the value formatter (format.c) prints
 * variants as JSON, and every layer above reads them.
 */
#include "floe/variant.h"

#include <string.h>

#include "base/buffer.h"
#include "base/str.h"
#include "floe/memory.h"

static uint32_t rd_le(const uint8_t *p, int n) {
    uint32_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static uint64_t rd_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

#define BAD_AT(top, p, ...) floe_status_wrap(floe_error(FLOE_ERR_CORRUPT, __VA_ARGS__), \
                                             "variant value, byte %u", (unsigned)((p) - (top)))

const char *floe_variant_kind_name(floe_variant_kind k) {
    switch (k) {
    case FLOE_VARIANT_NULL: return "null";
    case FLOE_VARIANT_TRUE:
    case FLOE_VARIANT_FALSE: return "boolean";
    case FLOE_VARIANT_INT8: return "int8";
    case FLOE_VARIANT_INT16: return "int16";
    case FLOE_VARIANT_INT32: return "int32";
    case FLOE_VARIANT_INT64: return "int64";
    case FLOE_VARIANT_DOUBLE: return "double";
    case FLOE_VARIANT_DECIMAL4: return "decimal4";
    case FLOE_VARIANT_DECIMAL8: return "decimal8";
    case FLOE_VARIANT_DECIMAL16: return "decimal16";
    case FLOE_VARIANT_DATE: return "date";
    case FLOE_VARIANT_TIMESTAMP_TZ: return "timestamptz";
    case FLOE_VARIANT_TIMESTAMP_NTZ: return "timestamp";
    case FLOE_VARIANT_FLOAT: return "float";
    case FLOE_VARIANT_BINARY: return "binary";
    case FLOE_VARIANT_STRING: return "string";
    case FLOE_VARIANT_TIME: return "time";
    case FLOE_VARIANT_TIMESTAMP_TZ_NS: return "timestamptz_ns";
    case FLOE_VARIANT_TIMESTAMP_NTZ_NS: return "timestamp_ns";
    case FLOE_VARIANT_UUID: return "uuid";
    case FLOE_VARIANT_OBJECT: return "object";
    case FLOE_VARIANT_ARRAY: return "array";
    }
    return "?";
}

/* ------------------------------------------------------------ metadata */

floe_status floe_variant_meta_open(const uint8_t *p, size_t n, bool exact, floe_variant_meta *m) {
    memset(m, 0, sizeof *m);
    if (n < 1) return floe_error(FLOE_ERR_CORRUPT, "variant metadata is empty");
    uint8_t h = p[0];
    if ((h & 0x0F) != 1)
        return floe_error(FLOE_ERR_UNSUPPORTED, "variant metadata version %d (floe reads version 1)", h & 0x0F);
    int os = ((h >> 6) & 3) + 1;
    if (n < (size_t)1 + (size_t)os)
        return floe_error(FLOE_ERR_CORRUPT, "variant metadata: %zu bytes cannot hold the dictionary size", n);
    uint64_t dict = rd_le(p + 1, os);
    uint64_t head = 1 + (uint64_t)os + (dict + 1) * (uint64_t)os;
    if (head > n)
        return floe_error(FLOE_ERR_CORRUPT,
                          "variant metadata: a dictionary of %llu names needs %llu offset bytes, %zu bytes in all",
                          (unsigned long long)dict, (unsigned long long)((dict + 1) * (uint64_t)os), n);
    const uint8_t *offs = p + 1 + os;
    uint32_t prev = rd_le(offs, os);
    if (prev != 0) return floe_error(FLOE_ERR_CORRUPT, "variant metadata: first dictionary offset is %u, not 0", prev);
    for (uint64_t i = 1; i <= dict; i++) {
        uint32_t o = rd_le(offs + i * (uint64_t)os, os);
        if (o < prev)
            return floe_error(FLOE_ERR_CORRUPT, "variant metadata: dictionary offset %llu (%u) is less than the one before (%u)",
                              (unsigned long long)i, o, prev);
        prev = o;
    }
    uint64_t size = head + prev;
    if (size > n)
        return floe_error(FLOE_ERR_CORRUPT, "variant metadata: names end at byte %llu, past its %zu bytes",
                          (unsigned long long)size, n);
    if (exact && size != n)
        return floe_error(FLOE_ERR_CORRUPT, "variant metadata: %zu bytes after its dictionary", n - (size_t)size);
    m->data = p;
    m->size = (uint32_t)size;
    m->dict_size = (uint32_t)dict;
    m->offset_size = (uint8_t)os;
    m->sorted = (h >> 4) & 1;
    m->offsets = offs;
    m->strings = p + head;
    return NULL;
}

static floe_strview meta_name_at(const floe_variant_meta *m, uint32_t id) {
    uint32_t a = rd_le(m->offsets + (uint64_t)id * m->offset_size, m->offset_size);
    uint32_t b = rd_le(m->offsets + ((uint64_t)id + 1) * m->offset_size, m->offset_size);
    floe_strview s = {(const char *)m->strings + a, (int32_t)(b - a)};
    return s;
}

floe_status floe_variant_meta_name(const floe_variant_meta *m, uint32_t id, floe_strview *out) {
    if (id >= m->dict_size)
        return floe_error(FLOE_ERR_CORRUPT, "variant field id %u is outside the metadata's %u names", id,
                          m->dict_size);
    *out = meta_name_at(m, id);
    return NULL;
}

static int name_cmp(const char *a, size_t al, const char *b, size_t bl) {
    int c = memcmp(a, b, al < bl ? al : bl);
    if (c) return c;
    return al < bl ? -1 : al > bl;
}

int64_t floe_variant_meta_find(const floe_variant_meta *m, const char *name, size_t len) {
    if (m->sorted) {
        uint32_t lo = 0, hi = m->dict_size;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            floe_strview s = meta_name_at(m, mid);
            int c = name_cmp(s.data, (size_t)s.len, name, len);
            if (c == 0) return mid;
            if (c < 0) lo = mid + 1;
            else hi = mid;
        }
        /* A dictionary wrongly flagged sorted is found by the scan below. */
    }
    for (uint32_t i = 0; i < m->dict_size; i++) {
        floe_strview s = meta_name_at(m, i);
        if ((size_t)s.len == len && !memcmp(s.data, name, len)) return i;
    }
    return -1;
}

floe_status floe_variant_meta_validate(const floe_variant_meta *m) {
    for (uint32_t i = 0; i < m->dict_size; i++) {
        floe_strview s = meta_name_at(m, i);
        size_t bad;
        if (!floe_utf8_valid(s.data, (size_t)s.len, &bad))
            return floe_error(FLOE_ERR_CORRUPT, "variant metadata: name %u is not UTF-8 (byte %zu)", i, bad);
        if (m->sorted && i > 0) {
            floe_strview p = meta_name_at(m, i - 1);
            if (name_cmp(p.data, (size_t)p.len, s.data, (size_t)s.len) >= 0)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "variant metadata: flagged sorted, but name %u ('%.*s') does not follow '%.*s'", i,
                                  s.len > 40 ? 40 : s.len, s.data, p.len > 40 ? 40 : p.len, p.data);
        }
    }
    return NULL;
}

/* --------------------------------------------------------------- values */

/* Bytes of a primitive's data after the header, -1 for an unknown id. */
static int prim_width(int id) {
    switch (id) {
    case 0: case 1: case 2: return 0;
    case 3: return 1;
    case 4: return 2;
    case 5: case 11: case 14: return 4;
    case 6: case 7: case 12: case 13: case 17: case 18: case 19: return 8;
    case 8: return 5;
    case 9: return 9;
    case 10: return 17;
    case 20: return 16;
    case 15: case 16: return 4; /* the length; the bytes follow */
    default: return -1;
    }
}

/* Decode the value at p, which has `avail` bytes up to the end of what
 * contains it; top is the top-level value for error offsets. */
static floe_status decode(const uint8_t *top, const uint8_t *p, uint64_t avail, floe_variant *v) {
    memset(v, 0, sizeof *v);
    v->top = top;
    v->data = p;
    if (avail < 1) return BAD_AT(top, p, "value is missing (no bytes left)");
    uint8_t h = p[0];
    int basic = h & 3, vh = h >> 2;
    uint64_t size;
    if (basic == 0) {
        int w = prim_width(vh);
        if (w < 0) return BAD_AT(top, p, "unknown primitive type id %d", vh);
        size = 1 + (uint64_t)w;
        if (size > avail)
            return BAD_AT(top, p, "%s needs %llu bytes, %llu left", floe_variant_kind_name((floe_variant_kind)vh),
                          (unsigned long long)size, (unsigned long long)avail);
        const uint8_t *d = p + 1;
        v->kind = (floe_variant_kind)vh;
        switch (vh) {
        case 3: v->u.i = (int8_t)d[0]; break;
        case 4: v->u.i = (int16_t)rd_le(d, 2); break;
        case 5: case 11: v->u.i = (int32_t)rd_le(d, 4); break;
        case 6: case 12: case 13: case 17: case 18: case 19: v->u.i = (int64_t)rd_le64(d); break;
        case 7: {
            uint64_t bits = rd_le64(d);
            memcpy(&v->u.d, &bits, 8);
            break;
        }
        case 14: {
            uint32_t bits = rd_le(d, 4);
            memcpy(&v->u.f, &bits, 4);
            break;
        }
        case 8: case 9: case 10: {
            if (d[0] > 38) return BAD_AT(top, p, "decimal scale %u exceeds 38", d[0]);
            v->u.dec.scale = d[0];
            if (vh == 10) {
                v->u.dec.unscaled.lo = rd_le64(d + 1);
                v->u.dec.unscaled.hi = (int64_t)rd_le64(d + 9);
            } else {
                int64_t x = vh == 8 ? (int32_t)rd_le(d + 1, 4) : (int64_t)rd_le64(d + 1);
                v->u.dec.unscaled = floe_decimal128_from_int64(x);
            }
            break;
        }
        case 15: case 16: {
            uint64_t len = rd_le(d, 4);
            size += len;
            if (size > avail)
                return BAD_AT(top, p, "%s of %llu bytes runs past the %llu bytes left", vh == 15 ? "binary" : "string",
                              (unsigned long long)len, (unsigned long long)(avail - 5));
            v->u.bytes.p = d + 4;
            v->u.bytes.len = (uint32_t)len;
            break;
        }
        case 20: v->u.bytes.p = d; v->u.bytes.len = 16; break;
        default: break;
        }
        if (vh == 1) v->u.b = true;
    } else if (basic == 1) {
        size = 1 + (uint64_t)vh;
        if (size > avail)
            return BAD_AT(top, p, "short string of %d bytes runs past the %llu bytes left", vh,
                          (unsigned long long)(avail - 1));
        v->kind = FLOE_VARIANT_STRING;
        v->u.bytes.p = p + 1;
        v->u.bytes.len = (uint32_t)vh;
    } else {
        bool obj = basic == 2;
        int large = obj ? (vh >> 4) & 1 : (vh >> 2) & 1;
        int id_size = obj ? ((vh >> 2) & 3) + 1 : 0;
        int off_size = (vh & 3) + 1;
        int nb = large ? 4 : 1;
        const char *what = obj ? "object" : "array";
        if (1 + (uint64_t)nb > avail) return BAD_AT(top, p, "%s header runs past the %llu bytes left", what,
                                                    (unsigned long long)avail);
        uint64_t n = rd_le(p + 1, nb);
        uint64_t lists = (uint64_t)nb + n * (uint64_t)id_size + (n + 1) * (uint64_t)off_size;
        if (1 + lists > avail)
            return BAD_AT(top, p, "%s of %llu elements needs %llu bytes of ids and offsets, %llu left", what,
                          (unsigned long long)n, (unsigned long long)lists, (unsigned long long)(avail - 1));
        v->kind = obj ? FLOE_VARIANT_OBJECT : FLOE_VARIANT_ARRAY;
        v->u.nest.n = (uint32_t)n;
        v->u.nest.id_size = (uint8_t)id_size;
        v->u.nest.off_size = (uint8_t)off_size;
        v->u.nest.ids = p + 1 + nb;
        v->u.nest.offs = v->u.nest.ids + n * (uint64_t)id_size;
        v->u.nest.vals = v->u.nest.offs + (n + 1) * (uint64_t)off_size;
        uint64_t vals_len = rd_le(v->u.nest.offs + n * (uint64_t)off_size, off_size);
        size = 1 + lists + vals_len;
        if (size > avail)
            return BAD_AT(top, p, "%s's last offset %llu runs past the %llu value bytes left", what,
                          (unsigned long long)vals_len, (unsigned long long)(avail - 1 - lists));
        v->u.nest.vals_len = (uint32_t)vals_len;
    }
    v->size = (uint32_t)size;
    return NULL;
}

floe_status floe_variant_open(const uint8_t *p, size_t n, bool exact, floe_variant *v) {
    FLOE_TRY(decode(p, p, n, v));
    if (exact && v->size != n)
        return floe_error(FLOE_ERR_CORRUPT, "variant value: %zu bytes after a %s of %u bytes", n - v->size,
                          floe_variant_kind_name(v->kind), v->size);
    return NULL;
}

floe_status floe_variant_element(const floe_variant *v, uint32_t i, floe_variant *out) {
    if (v->kind != FLOE_VARIANT_OBJECT && v->kind != FLOE_VARIANT_ARRAY)
        return BAD_AT(v->top, v->data, "%s has no elements", floe_variant_kind_name(v->kind));
    if (i >= v->u.nest.n)
        return BAD_AT(v->top, v->data, "element %u of a %s of %u", i, floe_variant_kind_name(v->kind), v->u.nest.n);
    uint32_t off = rd_le(v->u.nest.offs + (uint64_t)i * v->u.nest.off_size, v->u.nest.off_size);
    if (off >= v->u.nest.vals_len)
        return BAD_AT(v->top, v->data, "%s element %u starts at offset %u, past its %u value bytes",
                      floe_variant_kind_name(v->kind), i, off, v->u.nest.vals_len);
    return decode(v->top, v->u.nest.vals + off, v->u.nest.vals_len - off, out);
}

floe_status floe_variant_field_id(const floe_variant *v, uint32_t i, uint32_t *id) {
    if (v->kind != FLOE_VARIANT_OBJECT || i >= v->u.nest.n)
        return BAD_AT(v->top, v->data, "field %u of a %s", i, floe_variant_kind_name(v->kind));
    *id = rd_le(v->u.nest.ids + (uint64_t)i * v->u.nest.id_size, v->u.nest.id_size);
    return NULL;
}

/* Name of field i of object v. */
static floe_status field_name(const floe_variant_meta *m, const floe_variant *v, uint32_t i, floe_strview *out) {
    uint32_t id;
    FLOE_TRY(floe_variant_field_id(v, i, &id));
    if (id >= m->dict_size)
        return BAD_AT(v->top, v->data, "object field %u has id %u, outside the metadata's %u names", i, id,
                      m->dict_size);
    *out = meta_name_at(m, id);
    return NULL;
}

floe_status floe_variant_find_field(const floe_variant_meta *m, const floe_variant *v, const char *name,
                                    size_t len, floe_variant *out, bool *found) {
    *found = false;
    if (v->kind != FLOE_VARIANT_OBJECT) return NULL;
    uint32_t lo = 0, hi = v->u.nest.n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        floe_strview s;
        FLOE_TRY(field_name(m, v, mid, &s));
        int c = name_cmp(s.data, (size_t)s.len, name, len);
        if (c == 0) {
            *found = true;
            return floe_variant_element(v, mid, out);
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* ----------------------------------------------------------- validation */

static floe_status validate(const floe_variant_meta *m, const floe_variant *v, int depth) {
    if (depth > FLOE_VARIANT_MAX_DEPTH)
        return BAD_AT(v->top, v->data, "nested deeper than %d levels", FLOE_VARIANT_MAX_DEPTH);
    if (v->kind == FLOE_VARIANT_STRING) {
        size_t bad;
        if (!floe_utf8_valid(v->u.bytes.p, v->u.bytes.len, &bad))
            return BAD_AT(v->top, v->u.bytes.p + bad, "string is not UTF-8");
        return NULL;
    }
    if (v->kind != FLOE_VARIANT_OBJECT && v->kind != FLOE_VARIANT_ARRAY) return NULL;
    floe_strview prev = {NULL, 0};
    for (uint32_t i = 0; i < v->u.nest.n; i++) {
        if (v->kind == FLOE_VARIANT_OBJECT) {
            floe_strview s;
            FLOE_TRY(field_name(m, v, i, &s));
            if (i > 0 && name_cmp(prev.data, (size_t)prev.len, s.data, (size_t)s.len) >= 0)
                return BAD_AT(v->top, v->data, "object field '%.*s' %s '%.*s' (fields must be unique and in name order)",
                              s.len > 40 ? 40 : s.len, s.data,
                              name_cmp(prev.data, (size_t)prev.len, s.data, (size_t)s.len) ? "comes after" : "repeats",
                              prev.len > 40 ? 40 : prev.len, prev.data);
            prev = s;
        }
        floe_variant c;
        FLOE_TRY(floe_variant_element(v, i, &c));
        FLOE_TRY(validate(m, &c, depth + 1));
    }
    return NULL;
}

floe_status floe_variant_validate(const floe_variant_meta *m, const floe_variant *v) { return validate(m, v, 0); }

floe_status floe_variant_check(const uint8_t *meta, size_t meta_len, const uint8_t *value, size_t value_len) {
    floe_variant_meta m;
    floe_variant v;
    FLOE_TRY(floe_variant_meta_open(meta, meta_len, true, &m));
    FLOE_TRY(floe_variant_meta_validate(&m));
    FLOE_TRY(floe_variant_open(value, value_len, true, &v));
    return floe_variant_validate(&m, &v);
}

/* ------------------------------------------------------------- equality */

static floe_status equal(const floe_variant_meta *ma, const floe_variant *a, const floe_variant_meta *mb,
                         const floe_variant *b, int depth, bool *eq) {
    *eq = false;
    if (depth > FLOE_VARIANT_MAX_DEPTH) return BAD_AT(a->top, a->data, "nested too deeply to compare");
    if (a->kind != b->kind) return NULL;
    switch (a->kind) {
    case FLOE_VARIANT_NULL: case FLOE_VARIANT_TRUE: case FLOE_VARIANT_FALSE:
        *eq = true;
        return NULL;
    case FLOE_VARIANT_DOUBLE: *eq = !memcmp(&a->u.d, &b->u.d, 8); return NULL;
    case FLOE_VARIANT_FLOAT: *eq = !memcmp(&a->u.f, &b->u.f, 4); return NULL;
    case FLOE_VARIANT_DECIMAL4: case FLOE_VARIANT_DECIMAL8: case FLOE_VARIANT_DECIMAL16:
        *eq = a->u.dec.scale == b->u.dec.scale && a->u.dec.unscaled.lo == b->u.dec.unscaled.lo &&
              a->u.dec.unscaled.hi == b->u.dec.unscaled.hi;
        return NULL;
    case FLOE_VARIANT_BINARY: case FLOE_VARIANT_STRING: case FLOE_VARIANT_UUID:
        *eq = a->u.bytes.len == b->u.bytes.len && !memcmp(a->u.bytes.p, b->u.bytes.p, a->u.bytes.len);
        return NULL;
    case FLOE_VARIANT_OBJECT: case FLOE_VARIANT_ARRAY:
        if (a->u.nest.n != b->u.nest.n) return NULL;
        for (uint32_t i = 0; i < a->u.nest.n; i++) {
            if (a->kind == FLOE_VARIANT_OBJECT) {
                floe_strview x, y;
                FLOE_TRY(field_name(ma, a, i, &x));
                FLOE_TRY(field_name(mb, b, i, &y));
                if (x.len != y.len || memcmp(x.data, y.data, (size_t)x.len)) return NULL;
            }
            floe_variant ca, cb;
            bool e;
            FLOE_TRY(floe_variant_element(a, i, &ca));
            FLOE_TRY(floe_variant_element(b, i, &cb));
            FLOE_TRY(equal(ma, &ca, mb, &cb, depth + 1, &e));
            if (!e) return NULL;
        }
        *eq = true;
        return NULL;
    default:
        *eq = a->u.i == b->u.i;
        return NULL;
    }
}

floe_status floe_variant_equal(const floe_variant_meta *ma, const floe_variant *a, const floe_variant_meta *mb,
                               const floe_variant *b, bool *eq) {
    return equal(ma, a, mb, b, 0, eq);
}

/* ---------------------------------------------------------------- paths */

static floe_status path_error(const char *s, size_t n, size_t pos, const char *why) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid variant path '%.*s' at character %zu: %s",
                      (int)(n > 200 ? 200 : n), s, pos + 1, why);
}

floe_status floe_variant_path_parse(const char *s, size_t n, floe_variant_path *out) {
    memset(out, 0, sizeof *out);
    if (n == 0 || s[0] != '$') return path_error(s, n, 0, "a path starts with '$'");
    out->text = floe_malloc(n + 1);
    /* At most one segment per two characters after the '$'. */
    out->segs = floe_calloc(n / 2 + 1, sizeof *out->segs);
    if (!out->text || !out->segs) {
        floe_variant_path_free(out);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "parsing a variant path");
    }
    memcpy(out->text, s, n);
    out->text[n] = 0;
    const char *t = out->text;
    size_t i = 1;
    floe_status st = NULL;
    while (i < n && !st) {
        floe_variant_path_seg *g = &out->segs[out->n];
        if (t[i] == '.') {
            size_t j = i + 1;
            while (j < n && t[j] != '.' && t[j] != '[') j++;
            if (j == i + 1) {
                st = path_error(s, n, i, "a name must follow '.'");
                break;
            }
            g->name = t + i + 1;
            g->len = (uint32_t)(j - i - 1);
            i = j;
        } else if (t[i] == '[' && i + 1 < n && (t[i + 1] == '\'' || t[i + 1] == '"')) {
            char q = t[i + 1];
            size_t j = i + 2;
            while (j < n && t[j] != q) j++;
            if (j + 1 >= n || t[j + 1] != ']') {
                st = path_error(s, n, i, "a quoted name must end with a quote and ']'");
                break;
            }
            g->name = t + i + 2;
            g->len = (uint32_t)(j - i - 2);
            i = j + 2;
        } else if (t[i] == '[') {
            size_t j = i + 1;
            uint64_t x = 0;
            while (j < n && t[j] >= '0' && t[j] <= '9' && x <= UINT32_MAX) x = x * 10 + (uint64_t)(t[j++] - '0');
            if (j == i + 1 || j >= n || t[j] != ']' || x > UINT32_MAX) {
                st = path_error(s, n, i, "'[' takes a non-negative index or a quoted name, then ']'");
                break;
            }
            g->is_index = true;
            g->index = (uint32_t)x;
            i = j + 1;
        } else {
            st = path_error(s, n, i, "expected '.', '[' or the end");
            break;
        }
        out->n++;
    }
    if (st) floe_variant_path_free(out);
    return st;
}

void floe_variant_path_free(floe_variant_path *p) {
    floe_free(p->segs);
    floe_free(p->text);
    memset(p, 0, sizeof *p);
}

floe_status floe_variant_path_get(const floe_variant_meta *m, const floe_variant *v, const floe_variant_path *path,
                                  floe_variant *out, bool *found) {
    floe_variant cur = *v;
    *found = false;
    for (int32_t k = 0; k < path->n; k++) {
        const floe_variant_path_seg *g = &path->segs[k];
        floe_variant next;
        if (g->is_index) {
            if (cur.kind != FLOE_VARIANT_ARRAY || g->index >= cur.u.nest.n) return NULL;
            FLOE_TRY(floe_variant_element(&cur, g->index, &next));
        } else {
            bool f;
            FLOE_TRY(floe_variant_find_field(m, &cur, g->name, g->len, &next, &f));
            if (!f) return NULL;
        }
        cur = next;
    }
    *out = cur;
    *found = true;
    return NULL;
}

/* ------------------------------------------------------- variant arrays */

floe_status floe_variant_array_get(const floe_array *a, int64_t i, floe_variant_meta *m, floe_variant *v) {
    floe_strview mv = floe_variant_array_metadata(a, i), vv = floe_variant_array_value(a, i);
    FLOE_TRY(floe_variant_meta_open((const uint8_t *)mv.data, (size_t)mv.len, true, m));
    return floe_variant_open((const uint8_t *)vv.data, (size_t)vv.len, true, v);
}

floe_status floe_variant_array_from_struct(const floe_array *s, floe_array **out) {
    *out = NULL;
    const floe_type *t = s->type;
    int mi = -1, vi = -1;
    for (int32_t i = 0; t->id == FLOE_TYPE_STRUCT && i < t->n_children; i++) {
        const char *name = t->children[i].name;
        if (name && !strcmp(name, "metadata") && mi < 0) mi = i;
        else if (name && !strcmp(name, "value") && vi < 0) vi = i;
        else mi = vi = -2;
    }
    if (mi < 0 || vi < 0 || t->n_children != 2 || t->children[mi].type->id != FLOE_TYPE_BINARY ||
        t->children[vi].type->id != FLOE_TYPE_BINARY)
        return floe_error(FLOE_ERR_TYPE, "a variant must be a struct of binary metadata and value");
    floe_array *kids[2] = {s->children[mi], s->children[vi]};
    FLOE_TRY(floe_array_new(floe_type_primitive(FLOE_TYPE_VARIANT), s->length, s->offset, FLOE_NULL_COUNT_UNKNOWN,
                            s->validity, NULL, 0, kids, 2, out));
    floe_status st = floe_array_validate(*out);
    for (int64_t i = 0; !st && i < s->length; i++) {
        if (floe_array_is_null(*out, i)) continue;
        floe_strview m = floe_variant_array_metadata(*out, i), v = floe_variant_array_value(*out, i);
        st = floe_variant_check((const uint8_t *)m.data, (size_t)m.len, (const uint8_t *)v.data, (size_t)v.len);
        if (st) st = floe_status_wrap(st, "variant at slot %lld", (long long)i);
    }
    if (st) {
        floe_array_release(*out);
        *out = NULL;
    }
    return st;
}

floe_status floe_builder_append_variant(floe_builder *b, const void *meta, size_t meta_len, const void *value,
                                        size_t value_len) {
    if (floe_builder_type(b)->id != FLOE_TYPE_VARIANT)
        return floe_error(FLOE_ERR_TYPE, "appending a variant to a %s builder",
                          floe_type_id_name(floe_builder_type(b)->id));
    FLOE_TRY(floe_builder_append_binary(floe_builder_child(b, 0), meta, (int64_t)meta_len));
    FLOE_TRY(floe_builder_append_binary(floe_builder_child(b, 1), value, (int64_t)value_len));
    return floe_builder_append_valid(b);
}

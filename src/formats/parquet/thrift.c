/*
 * thrift.c — Thrift compact protocol reader and writer (see thrift.h).
 *
 * Wire format summary (Apache Thrift "compact protocol"):
 *   - integers i16/i32/i64 are zigzag-encoded ULEB128 varints; i8 is a byte;
 *   - double is 8 bytes little-endian; binary is a varint length + bytes;
 *   - a field header is one byte (id delta << 4 | type) when the id grows by
 *     1..15 over the previous field of the same struct, else the type byte
 *     followed by the id as a zigzag varint; a zero byte ends the struct;
 *   - bool fields carry their value in the header's type nibble (1/2);
 *   - a list/set header is (size << 4 | elem type), size 15 meaning "a varint
 *     size follows"; a map header is a varint size then (key << 4 | value)
 *     when the size is not zero.
 *
 * The reader is written for footers with thousands of columns: no allocation,
 * no per-call setup, one bounds check per primitive.
 */
#include "formats/parquet/thrift.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ reader */

void floe_thrift_reader_init(floe_thrift_reader *r, const uint8_t *data, size_t len,
                             uint64_t origin) {
    r->base = data;
    r->p = data;
    r->end = data + len;
    r->origin = origin;
    r->depth = 0;
}

floe_status floe_thrift_error(const floe_thrift_reader *r, const char *fmt, ...) {
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return floe_error(FLOE_ERR_CORRUPT, "thrift: %s at offset %" PRIu64, what,
                      floe_thrift_offset(r));
}

floe_status floe_thrift_read_varint(floe_thrift_reader *r, uint64_t *v) {
    const uint8_t *p = r->p;
    uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (p >= r->end) return floe_thrift_error(r, "truncated varint");
        uint8_t b = *p++;
        /* The tenth byte may only contribute the top bit of 64. */
        if (shift == 63 && b > 1) return floe_thrift_error(r, "varint overflows 64 bits");
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            r->p = p;
            *v = x;
            return NULL;
        }
    }
    return floe_thrift_error(r, "varint longer than 10 bytes");
}

static inline int64_t unzigzag(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

/* A zigzag varint that must fit in [lo, hi]. */
static floe_status read_zigzag(floe_thrift_reader *r, int64_t lo, int64_t hi,
                               const char *what, int64_t *v) {
    uint64_t u;
    const uint8_t *start = r->p;
    floe_status st = floe_thrift_read_varint(r, &u);
    if (st) return st;
    int64_t x = unzigzag(u);
    if (x < lo || x > hi) {
        r->p = start;
        return floe_thrift_error(r, "%s value %" PRId64 " out of range", what, x);
    }
    *v = x;
    return NULL;
}

floe_status floe_thrift_read_i8(floe_thrift_reader *r, int8_t *v) {
    if (r->p >= r->end) return floe_thrift_error(r, "truncated i8");
    *v = (int8_t)*r->p++;
    return NULL;
}

floe_status floe_thrift_read_i16(floe_thrift_reader *r, int16_t *v) {
    int64_t x;
    floe_status st = read_zigzag(r, INT16_MIN, INT16_MAX, "i16", &x);
    if (!st) *v = (int16_t)x;
    return st;
}

floe_status floe_thrift_read_i32(floe_thrift_reader *r, int32_t *v) {
    int64_t x;
    floe_status st = read_zigzag(r, INT32_MIN, INT32_MAX, "i32", &x);
    if (!st) *v = (int32_t)x;
    return st;
}

floe_status floe_thrift_read_i64(floe_thrift_reader *r, int64_t *v) {
    uint64_t u;
    floe_status st = floe_thrift_read_varint(r, &u);
    if (!st) *v = unzigzag(u);
    return st;
}

floe_status floe_thrift_read_double(floe_thrift_reader *r, double *v) {
    if (floe_thrift_remaining(r) < 8) return floe_thrift_error(r, "truncated double");
    uint64_t bits = 0;
    for (int i = 7; i >= 0; i--) bits = bits << 8 | r->p[i];
    memcpy(v, &bits, sizeof *v);
    r->p += 8;
    return NULL;
}

/* A non-negative i32 length/count stored as a plain (not zigzag) varint. */
static floe_status read_size(floe_thrift_reader *r, const char *what, uint32_t *n) {
    uint64_t u;
    const uint8_t *start = r->p;
    floe_status st = floe_thrift_read_varint(r, &u);
    if (st) return st;
    if (u > INT32_MAX) {
        r->p = start;
        return floe_thrift_error(r, "%s %" PRIu64 " too large", what, u);
    }
    *n = (uint32_t)u;
    return NULL;
}

floe_status floe_thrift_read_binary(floe_thrift_reader *r, const uint8_t **data,
                                    uint32_t *len) {
    const uint8_t *start = r->p;
    uint32_t n;
    floe_status st = read_size(r, "binary length", &n);
    if (st) return st;
    if (n > floe_thrift_remaining(r)) {
        size_t left = floe_thrift_remaining(r);
        r->p = start;
        return floe_thrift_error(r, "binary of %u bytes but only %zu left", n, left);
    }
    *data = r->p;
    *len = n;
    r->p += n;
    return NULL;
}

floe_status floe_thrift_read_uuid(floe_thrift_reader *r, const uint8_t **uuid16) {
    if (floe_thrift_remaining(r) < 16) return floe_thrift_error(r, "truncated uuid");
    *uuid16 = r->p;
    r->p += 16;
    return NULL;
}

floe_status floe_thrift_read_bool_elem(floe_thrift_reader *r, bool *v) {
    if (r->p >= r->end) return floe_thrift_error(r, "truncated bool");
    uint8_t b = *r->p;
    if (b > 2) return floe_thrift_error(r, "invalid bool byte %u", b);
    r->p++;
    *v = b == 1;
    return NULL;
}

floe_status floe_thrift_struct_enter(floe_thrift_reader *r) {
    if (r->depth >= FLOE_THRIFT_MAX_DEPTH)
        return floe_thrift_error(r, "nesting deeper than %d", FLOE_THRIFT_MAX_DEPTH);
    r->depth++;
    return NULL;
}

static inline bool valid_type(unsigned t) { return t >= 1 && t <= 13; }

floe_status floe_thrift_read_field(floe_thrift_reader *r, int16_t *last_id,
                                   floe_thrift_type *type, int16_t *id) {
    if (r->p >= r->end) return floe_thrift_error(r, "truncated struct (no STOP)");
    uint8_t b = *r->p;
    if (b == 0) {
        r->p++;
        *type = FLOE_THRIFT_STOP;
        *id = 0;
        return NULL;
    }
    unsigned t = b & 0x0f, delta = b >> 4;
    if (!valid_type(t)) return floe_thrift_error(r, "invalid field type %u", t);
    r->p++;
    int32_t fid;
    if (delta) {
        fid = (int32_t)*last_id + (int32_t)delta;
        if (fid > INT16_MAX) {
            r->p--;
            return floe_thrift_error(r, "field id overflows i16");
        }
    } else {
        int16_t x;
        floe_status st = floe_thrift_read_i16(r, &x);
        if (st) return st;
        fid = x;
    }
    *last_id = (int16_t)fid;
    *id = (int16_t)fid;
    *type = (floe_thrift_type)t;
    return NULL;
}

/* The fewest bytes one element of a type occupies, to bound counts. */
static size_t min_elem_size(floe_thrift_type t) {
    switch (t) {
    case FLOE_THRIFT_DOUBLE: return 8;
    case FLOE_THRIFT_UUID: return 16;
    default: return 1;
    }
}

floe_status floe_thrift_read_list(floe_thrift_reader *r, floe_thrift_type *elem,
                                  uint32_t *count) {
    const uint8_t *start = r->p;
    if (r->p >= r->end) return floe_thrift_error(r, "truncated list header");
    uint8_t b = *r->p++;
    unsigned t = b & 0x0f;
    uint32_t n = b >> 4;
    if (n == 15) {
        floe_status st = read_size(r, "list size", &n);
        if (st) return st;
    }
    if (n == 0) {
        *elem = valid_type(t) ? (floe_thrift_type)t : FLOE_THRIFT_STOP;
        *count = 0;
        return NULL;
    }
    if (!valid_type(t)) {
        r->p = start;
        return floe_thrift_error(r, "invalid list element type %u", t);
    }
    /* Bool elements are typed TRUE by most writers, FALSE by some. */
    if (t == FLOE_THRIFT_FALSE) t = FLOE_THRIFT_TRUE;
    if ((uint64_t)n * min_elem_size((floe_thrift_type)t) > floe_thrift_remaining(r)) {
        size_t left = floe_thrift_remaining(r);
        r->p = start;
        return floe_thrift_error(r, "list of %u elements but only %zu bytes left", n, left);
    }
    *elem = (floe_thrift_type)t;
    *count = n;
    return NULL;
}

floe_status floe_thrift_read_map(floe_thrift_reader *r, floe_thrift_type *key,
                                 floe_thrift_type *value, uint32_t *count) {
    const uint8_t *start = r->p;
    uint32_t n;
    floe_status st = read_size(r, "map size", &n);
    if (st) return st;
    if (n == 0) {
        *key = *value = FLOE_THRIFT_STOP;
        *count = 0;
        return NULL;
    }
    if (r->p >= r->end) return floe_thrift_error(r, "truncated map header");
    uint8_t b = *r->p++;
    unsigned kt = b >> 4, vt = b & 0x0f;
    if (!valid_type(kt) || !valid_type(vt)) {
        r->p = start;
        return floe_thrift_error(r, "invalid map key/value types %u/%u", kt, vt);
    }
    if (kt == FLOE_THRIFT_FALSE) kt = FLOE_THRIFT_TRUE;
    if (vt == FLOE_THRIFT_FALSE) vt = FLOE_THRIFT_TRUE;
    size_t per = min_elem_size((floe_thrift_type)kt) + min_elem_size((floe_thrift_type)vt);
    if ((uint64_t)n * per > floe_thrift_remaining(r)) {
        size_t left = floe_thrift_remaining(r);
        r->p = start;
        return floe_thrift_error(r, "map of %u entries but only %zu bytes left", n, left);
    }
    *key = (floe_thrift_type)kt;
    *value = (floe_thrift_type)vt;
    *count = n;
    return NULL;
}

static floe_status skip_value(floe_thrift_reader *r, floe_thrift_type type, bool elem);

static floe_status skip_struct(floe_thrift_reader *r) {
    floe_status st = floe_thrift_struct_enter(r);
    if (st) return st;
    int16_t last = 0;
    for (;;) {
        floe_thrift_type t;
        int16_t id;
        if ((st = floe_thrift_read_field(r, &last, &t, &id))) return st;
        if (t == FLOE_THRIFT_STOP) break;
        if ((st = skip_value(r, t, false))) return st;
    }
    floe_thrift_struct_leave(r);
    return NULL;
}

static floe_status skip_elems(floe_thrift_reader *r, floe_thrift_type t, uint32_t n) {
    floe_status st;
    /* Fixed-size elements are skipped in one step. */
    size_t fixed = t == FLOE_THRIFT_DOUBLE ? 8 : t == FLOE_THRIFT_UUID ? 16
                 : (t == FLOE_THRIFT_I8 || t == FLOE_THRIFT_TRUE) ? 1 : 0;
    if (fixed && t != FLOE_THRIFT_TRUE) {
        if ((uint64_t)n * fixed > floe_thrift_remaining(r))
            return floe_thrift_error(r, "truncated list of %u fixed-size elements", n);
        r->p += (size_t)n * fixed;
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        if ((st = skip_value(r, t, true))) return st;
    return NULL;
}

static floe_status skip_value(floe_thrift_reader *r, floe_thrift_type type, bool elem) {
    floe_status st;
    uint64_t u;
    const uint8_t *d;
    uint32_t n;
    switch (type) {
    case FLOE_THRIFT_TRUE:
    case FLOE_THRIFT_FALSE:
        if (elem) {
            bool b;
            return floe_thrift_read_bool_elem(r, &b);
        }
        return NULL; /* a bool field's value is in its header */
    case FLOE_THRIFT_I8:
        if (r->p >= r->end) return floe_thrift_error(r, "truncated i8");
        r->p++;
        return NULL;
    case FLOE_THRIFT_I16:
    case FLOE_THRIFT_I32:
    case FLOE_THRIFT_I64:
        return floe_thrift_read_varint(r, &u);
    case FLOE_THRIFT_DOUBLE:
        if (floe_thrift_remaining(r) < 8) return floe_thrift_error(r, "truncated double");
        r->p += 8;
        return NULL;
    case FLOE_THRIFT_UUID:
        if (floe_thrift_remaining(r) < 16) return floe_thrift_error(r, "truncated uuid");
        r->p += 16;
        return NULL;
    case FLOE_THRIFT_BINARY:
        return floe_thrift_read_binary(r, &d, &n);
    case FLOE_THRIFT_STRUCT:
        return skip_struct(r);
    case FLOE_THRIFT_LIST:
    case FLOE_THRIFT_SET: {
        floe_thrift_type et;
        if ((st = floe_thrift_struct_enter(r))) return st;
        if ((st = floe_thrift_read_list(r, &et, &n))) return st;
        if ((st = skip_elems(r, et, n))) return st;
        floe_thrift_struct_leave(r);
        return NULL;
    }
    case FLOE_THRIFT_MAP: {
        floe_thrift_type kt, vt;
        if ((st = floe_thrift_struct_enter(r))) return st;
        if ((st = floe_thrift_read_map(r, &kt, &vt, &n))) return st;
        for (uint32_t i = 0; i < n; i++) {
            if ((st = skip_value(r, kt, true))) return st;
            if ((st = skip_value(r, vt, true))) return st;
        }
        floe_thrift_struct_leave(r);
        return NULL;
    }
    case FLOE_THRIFT_STOP:
        break;
    }
    return floe_thrift_error(r, "cannot skip value of type %d", (int)type);
}

floe_status floe_thrift_skip(floe_thrift_reader *r, floe_thrift_type type) {
    return skip_value(r, type, false);
}

/* ------------------------------------------------------------------ writer */

void floe_thrift_writer_init(floe_thrift_writer *w, floe_buf *out) {
    w->out = out;
    w->depth = 0;
    w->last_id = 0;
    w->failed = FLOE_OK;
}

floe_status floe_thrift_writer_status(const floe_thrift_writer *w) {
    switch (w->failed) {
    case FLOE_OK: return NULL;
    case FLOE_ERR_OUT_OF_MEMORY: return floe_error(w->failed, "thrift: out of memory");
    default:
        return floe_error(w->failed, "thrift: writer misuse (unbalanced or too deep nesting)");
    }
}

static void put(floe_thrift_writer *w, const void *p, size_t n) {
    if (w->failed) return;
    floe_buf *b = w->out;
    /* Fast path: room for the bytes and floe_buf's trailing NUL. */
    if (b->data && b->cap - b->len > n) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = 0;
        return;
    }
    uint8_t *dst = floe_buf_extend(b, n);
    if (!dst) {
        w->failed = FLOE_ERR_OUT_OF_MEMORY;
        return;
    }
    memcpy(dst, p, n);
}

static void put_byte(floe_thrift_writer *w, uint8_t b) { put(w, &b, 1); }

void floe_thrift_write_varint(floe_thrift_writer *w, uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    put(w, tmp, n);
}

static inline uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

void floe_thrift_write_i8(floe_thrift_writer *w, int8_t v) { put_byte(w, (uint8_t)v); }
void floe_thrift_write_i16(floe_thrift_writer *w, int16_t v) { floe_thrift_write_varint(w, zigzag(v)); }
void floe_thrift_write_i32(floe_thrift_writer *w, int32_t v) { floe_thrift_write_varint(w, zigzag(v)); }
void floe_thrift_write_i64(floe_thrift_writer *w, int64_t v) { floe_thrift_write_varint(w, zigzag(v)); }

void floe_thrift_write_double(floe_thrift_writer *w, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint8_t tmp[8];
    for (int i = 0; i < 8; i++) tmp[i] = (uint8_t)(bits >> (8 * i));
    put(w, tmp, 8);
}

void floe_thrift_write_binary(floe_thrift_writer *w, const void *data, uint32_t len) {
    floe_thrift_write_varint(w, len);
    if (len) put(w, data, len);
}

void floe_thrift_write_string(floe_thrift_writer *w, const char *s) {
    floe_thrift_write_binary(w, s, (uint32_t)strlen(s));
}

/* The compact-protocol document says 1/0, but most implementations (Java,
 * C++, Go, ...) write 1/2 and some readers accept only that, so floe writes
 * 1/2 and reads 0, 1 and 2. */
void floe_thrift_write_bool_elem(floe_thrift_writer *w, bool v) {
    put_byte(w, v ? FLOE_THRIFT_TRUE : FLOE_THRIFT_FALSE);
}

void floe_thrift_write_uuid(floe_thrift_writer *w, const uint8_t uuid16[16]) {
    put(w, uuid16, 16);
}

void floe_thrift_write_struct_begin(floe_thrift_writer *w) {
    if (w->failed) return;
    if (w->depth >= FLOE_THRIFT_MAX_DEPTH) {
        w->failed = FLOE_ERR_INTERNAL;
        return;
    }
    w->saved_ids[w->depth++] = w->last_id;
    w->last_id = 0;
}

void floe_thrift_write_struct_end(floe_thrift_writer *w) {
    if (w->failed) return;
    if (w->depth <= 0) {
        w->failed = FLOE_ERR_INTERNAL;
        return;
    }
    put_byte(w, FLOE_THRIFT_STOP);
    w->last_id = w->saved_ids[--w->depth];
}

void floe_thrift_write_field(floe_thrift_writer *w, floe_thrift_type type, int16_t id) {
    int32_t delta = (int32_t)id - w->last_id;
    if (delta > 0 && delta <= 15) {
        put_byte(w, (uint8_t)(delta << 4 | type));
    } else {
        put_byte(w, (uint8_t)type);
        floe_thrift_write_i16(w, id);
    }
    w->last_id = id;
}

void floe_thrift_write_field_bool(floe_thrift_writer *w, int16_t id, bool v) {
    floe_thrift_write_field(w, v ? FLOE_THRIFT_TRUE : FLOE_THRIFT_FALSE, id);
}

void floe_thrift_write_list(floe_thrift_writer *w, floe_thrift_type elem, uint32_t count) {
    if (elem == FLOE_THRIFT_FALSE) elem = FLOE_THRIFT_TRUE;
    if (count < 15) {
        put_byte(w, (uint8_t)(count << 4 | elem));
    } else {
        put_byte(w, (uint8_t)(0xf0 | elem));
        floe_thrift_write_varint(w, count);
    }
}

void floe_thrift_write_set(floe_thrift_writer *w, floe_thrift_type elem, uint32_t count) {
    floe_thrift_write_list(w, elem, count);
}

void floe_thrift_write_map(floe_thrift_writer *w, floe_thrift_type key,
                           floe_thrift_type value, uint32_t count) {
    floe_thrift_write_varint(w, count);
    if (count) {
        if (key == FLOE_THRIFT_FALSE) key = FLOE_THRIFT_TRUE;
        if (value == FLOE_THRIFT_FALSE) value = FLOE_THRIFT_TRUE;
        put_byte(w, (uint8_t)(key << 4 | value));
    }
}

void floe_thrift_write_field_i32(floe_thrift_writer *w, int16_t id, int32_t v) {
    floe_thrift_write_field(w, FLOE_THRIFT_I32, id);
    floe_thrift_write_i32(w, v);
}

void floe_thrift_write_field_i64(floe_thrift_writer *w, int16_t id, int64_t v) {
    floe_thrift_write_field(w, FLOE_THRIFT_I64, id);
    floe_thrift_write_i64(w, v);
}

void floe_thrift_write_field_binary(floe_thrift_writer *w, int16_t id, const void *data,
                                    uint32_t len) {
    floe_thrift_write_field(w, FLOE_THRIFT_BINARY, id);
    floe_thrift_write_binary(w, data, len);
}

void floe_thrift_write_field_string(floe_thrift_writer *w, int16_t id, const char *s) {
    floe_thrift_write_field_binary(w, id, s, (uint32_t)strlen(s));
}

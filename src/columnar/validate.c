/*
 * validate.c — checking that an array is well-formed before trusting it.
 *
 * Arrays imported through the Arrow C Data Interface (or assembled by a
 * decoder from file bytes) may be corrupt.  Every later access is unchecked
 * for speed, so this is the one place that proves buffer sizes, offsets,
 * child lengths, UTF-8 and map keys are sound.  Errors name the path to the
 * bad array ("a.element.value") and the slot.
 */
#include <stdio.h>
#include <string.h>

#include "columnar/internal.h"

typedef struct {
    char path[512];
} vpath;

static floe_status bad(const vpath *p, const char *fmt, ...) FLOE_PRINTF(2, 3);
static floe_status bad(const vpath *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_status st = floe_errorv(FLOE_ERR_CORRUPT, fmt, ap);
    va_end(ap);
    if (p->path[0]) st = floe_status_wrap(st, "array '%s'", p->path);
    return st;
}

/* See internal.h. */
int floe_utf8_seq_len(const uint8_t *s, int64_t n) {
    uint8_t c = s[0];
    if (c < 0x80) return 1;
    if (c < 0xC2) return 0;
    if (c < 0xE0) return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c < 0xF0) {
        if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && s[1] < 0xA0) return 0; /* overlong */
        if (c == 0xED && s[1] >= 0xA0) return 0; /* surrogates */
        return 3;
    }
    if (c < 0xF5) {
        if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && s[1] < 0x90) return 0;
        if (c == 0xF4 && s[1] >= 0x90) return 0;
        return 4;
    }
    return 0;
}

static bool utf8_valid(const uint8_t *s, int64_t n) {
    int64_t i = 0;
    while (i < n) {
        /* Fast path over ASCII, 8 bytes at a time. */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (w & 0x8080808080808080ull) break;
            i += 8;
        }
        if (i >= n) break;
        int k = floe_utf8_seq_len(s + i, n - i);
        if (!k) return false;
        i += k;
    }
    return true;
}

static floe_status need_bytes(const vpath *p, const floe_buffer *buf, const char *what, int64_t bytes) {
    if (!buf) return bad(p, "%s buffer is missing", what);
    if (buf->size < bytes)
        return bad(p, "%s buffer has %lld bytes, needs %lld", what, (long long)buf->size, (long long)bytes);
    return NULL;
}

/* Offsets of slots [offset, offset+length]: start >= 0, non-decreasing,
 * last <= limit. */
static floe_status check_offsets(const vpath *p, const floe_array *a, int64_t limit, const char *limit_what) {
    FLOE_TRY(need_bytes(p, a->buffers[0], "offsets", (a->offset + a->length + 1) * 4));
    const int32_t *o = (const int32_t *)a->buffers[0]->data + a->offset;
    if (o[0] < 0) return bad(p, "first offset %d is negative", o[0]);
    for (int64_t i = 0; i < a->length; i++)
        if (o[i + 1] < o[i]) return bad(p, "offset %d at slot %lld is less than %d", o[i + 1], (long long)(i + 1), o[i]);
    if (o[a->length] > limit)
        return bad(p, "last offset %d is beyond the %lld %s", o[a->length], (long long)limit, limit_what);
    return NULL;
}

static void path_push(vpath *p, size_t *saved, const char *name) {
    *saved = strlen(p->path);
    snprintf(p->path + *saved, sizeof p->path - *saved, "%s%s", *saved ? "." : "", name ? name : "?");
}

static floe_status validate_rec(const floe_array *a, vpath *p, int depth);

static floe_status validate_child(const floe_array *a, int32_t i, vpath *p, int depth) {
    size_t saved;
    path_push(p, &saved, a->type->children[i].name);
    const floe_array *c = a->children[i];
    floe_status st = NULL;
    if (!c) st = bad(p, "child array is missing");
    else if (!floe_type_compatible(c->type, a->type->children[i].type))
        st = bad(p, "child array is %s, its field says %s", floe_type_id_name(c->type->id),
                 floe_type_id_name(a->type->children[i].type->id));
    else st = validate_rec(c, p, depth + 1);
    p->path[saved] = 0;
    return st;
}

static floe_status validate_rec(const floe_array *a, vpath *p, int depth) {
    const floe_type *t = a->type;
    if (depth > FLOE_MAX_NESTING) return bad(p, "nesting deeper than %d", FLOE_MAX_NESTING);
    if (a->length < 0 || a->offset < 0 || a->length > INT64_MAX / 16 - a->offset)
        return bad(p, "length %lld / offset %lld out of range", (long long)a->length, (long long)a->offset);
    int64_t end = a->offset + a->length;
    if (a->validity) FLOE_TRY(need_bytes(p, a->validity, "validity", (end + 7) / 8));
    int64_t nc = atomic_load_explicit(&((floe_array *)a)->null_count_, memory_order_relaxed);
    if (nc != FLOE_NULL_COUNT_UNKNOWN && t->id != FLOE_TYPE_NULL) {
        int64_t real = a->validity ? a->length - floe_bitmap_count(a->validity->data, a->offset, a->length) : 0;
        if (real != nc) return bad(p, "null count says %lld, the bitmap %lld", (long long)nc, (long long)real);
    }
    int32_t want_children = floe_type_is_nested(t) ? t->n_children : 0;
    if (a->n_children != want_children)
        return bad(p, "%s array has %d children, needs %d", floe_type_id_name(t->id), a->n_children, want_children);

    switch (t->id) {
    case FLOE_TYPE_NULL:
        return NULL;
    case FLOE_TYPE_BOOL:
        return need_bytes(p, a->buffers[0], "values", (end + 7) / 8);
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY: {
        if (!a->buffers[1]) return bad(p, "data buffer is missing");
        FLOE_TRY(check_offsets(p, a, a->buffers[1]->size, "data bytes"));
        if (t->id == FLOE_TYPE_STRING) {
            const int32_t *o = (const int32_t *)a->buffers[0]->data + a->offset;
            for (int64_t i = 0; i < a->length; i++)
                if (!utf8_valid(a->buffers[1]->data + o[i], o[i + 1] - o[i]))
                    return bad(p, "string at slot %lld is not valid UTF-8", (long long)i);
        }
        return NULL;
    }
    case FLOE_TYPE_STRUCT:
    case FLOE_TYPE_VARIANT:
        for (int32_t i = 0; i < a->n_children; i++) {
            FLOE_TRY(validate_child(a, i, p, depth));
            if (a->children[i]->length < end)
                return bad(p, "field '%s' has %lld slots, the struct needs %lld", t->children[i].name,
                           (long long)a->children[i]->length, (long long)end);
        }
        /* A variant's metadata and value are there wherever it is (their
         * bytes are checked when they are decoded, not here). */
        for (int32_t i = 0; t->id == FLOE_TYPE_VARIANT && i < a->n_children; i++)
            for (int64_t s = 0; s < a->length; s++)
                if (floe_array_is_valid(a, s) && floe_array_is_null(a->children[i], a->offset + s))
                    return bad(p, "variant at slot %lld has a null %s", (long long)s, t->children[i].name);
        return NULL;
    case FLOE_TYPE_LIST:
    case FLOE_TYPE_MAP: {
        if (!a->children || !a->children[0]) return bad(p, "child array is missing");
        FLOE_TRY(check_offsets(p, a, a->children[0]->length, "child slots"));
        FLOE_TRY(validate_child(a, 0, p, depth));
        if (t->id == FLOE_TYPE_MAP) {
            const floe_array *e = a->children[0];
            const int32_t *o = (const int32_t *)a->buffers[0]->data + a->offset;
            int64_t lo = o[0], hi = o[a->length];
            if (e->type->id != FLOE_TYPE_STRUCT || e->n_children != 2)
                return bad(p, "map entries are not a struct of key and value");
            if (e->validity && floe_bitmap_count(e->validity->data, e->offset + lo, hi - lo) != hi - lo)
                return bad(p, "map has a null entry");
            const floe_array *k = e->children[0];
            if (k->validity && k->type->id != FLOE_TYPE_NULL &&
                floe_bitmap_count(k->validity->data, k->offset + e->offset + lo, hi - lo) != hi - lo)
                return bad(p, "map has a null key");
            if (k->type->id == FLOE_TYPE_NULL && hi > lo) return bad(p, "map has a null key");
        }
        return NULL;
    }
    default:
        if (t->byte_width <= 0) return bad(p, "type %s has no width", floe_type_id_name(t->id));
        if (end > INT64_MAX / t->byte_width) return bad(p, "%lld values of %d bytes overflow", (long long)end, t->byte_width);
        return need_bytes(p, a->buffers[0], "values", end * t->byte_width);
    }
}

floe_status floe_array_validate(const floe_array *a) {
    if (!a || !a->type) return floe_error(FLOE_ERR_CORRUPT, "array or its type is missing");
    vpath p;
    p.path[0] = 0;
    return validate_rec(a, &p, 0);
}

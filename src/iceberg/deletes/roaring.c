/*
 * roaring.c — decoding and encoding portable Roaring bitmaps (see
 * roaring.h and https://github.com/RoaringBitmap/RoaringFormatSpec).
 *
 * Decoding never builds containers: members go straight into a sorted
 * int64 array, which is what the delete index wants.  Each container is
 * checked against its descriptive header (cardinality), keys must ascend,
 * array values and runs must ascend without overlap, so a decoded bitmap is
 * always strictly ascending — the callers rely on that.
 */
#include "iceberg/deletes/roaring.h"

#include <stdbool.h>
#include <string.h>

#include "floe/memory.h"

#define COOKIE_NO_RUN 12346u
#define COOKIE_RUN 12347u
#define NO_OFFSET_THRESHOLD 4u
#define ARRAY_MAX 4096u
#define BITMAP_BYTES 8192u

void floe_i64vec_free(floe_i64vec *a) {
    floe_free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

floe_status floe_i64vec_reserve(floe_i64vec *a, size_t extra) {
    if (a->cap - a->n >= extra) return NULL;
    size_t cap = a->cap ? a->cap : 64;
    while (cap - a->n < extra) {
        if (cap > SIZE_MAX / 2 / sizeof(int64_t))
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "position array of %zu entries", a->n + extra);
        cap *= 2;
    }
    int64_t *v = floe_realloc(a->v, cap * sizeof(int64_t));
    if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "position array of %zu entries", cap);
    a->v = v;
    a->cap = cap;
    return NULL;
}

floe_status floe_i64vec_push(floe_i64vec *a, int64_t x) {
    if (a->n == a->cap) FLOE_TRY(floe_i64vec_reserve(a, 1));
    a->v[a->n++] = x;
    return NULL;
}

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32); }

static floe_status truncated(size_t off, size_t need, size_t len, const char *what) {
    return floe_error(FLOE_ERR_CORRUPT, "roaring bitmap: %s at byte %zu needs %zu bytes, only %zu left", what, off,
                      need, off <= len ? len - off : 0);
}

/* Decode one container's members (base = high<<32 | key<<16). */
static floe_status decode_container(const uint8_t *d, size_t len, size_t *off, bool is_run, uint32_t card,
                                    int64_t base, floe_i64vec *out) {
    size_t o = *off;
    FLOE_TRY(floe_i64vec_reserve(out, card));
    if (is_run) {
        if (len - o < 2) return truncated(o, 2, len, "run container");
        uint32_t nruns = rd16(d + o);
        if (len - o - 2 < (size_t)nruns * 4) return truncated(o, 2 + (size_t)nruns * 4, len, "run container");
        uint32_t total = 0;
        int64_t next_free = 0; /* first value a run may start at */
        for (uint32_t r = 0; r < nruns; r++) {
            uint32_t start = rd16(d + o + 2 + 4 * r), l = rd16(d + o + 4 + 4 * r);
            if ((int64_t)start < next_free || start + l > 0xFFFFu)
                return floe_error(FLOE_ERR_CORRUPT, "roaring bitmap: run %u at byte %zu overlaps or overflows", r,
                                  o + 2 + 4 * (size_t)r);
            total += l + 1;
            if (total > card)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "roaring bitmap: run container at byte %zu holds more than its cardinality %u", o,
                                  card);
            for (uint32_t v = start; v <= start + l; v++) out->v[out->n++] = base | v;
            next_free = (int64_t)start + l + 1;
        }
        if (total != card)
            return floe_error(FLOE_ERR_CORRUPT, "roaring bitmap: run container at byte %zu holds %u values, header says %u",
                              o, total, card);
        *off = o + 2 + (size_t)nruns * 4;
    } else if (card <= ARRAY_MAX) {
        if (len - o < (size_t)card * 2) return truncated(o, (size_t)card * 2, len, "array container");
        int32_t prev = -1;
        for (uint32_t i = 0; i < card; i++) {
            uint16_t v = rd16(d + o + 2 * i);
            if ((int32_t)v <= prev)
                return floe_error(FLOE_ERR_CORRUPT, "roaring bitmap: array container values not ascending at byte %zu",
                                  o + 2 * (size_t)i);
            prev = v;
            out->v[out->n++] = base | v;
        }
        *off = o + (size_t)card * 2;
    } else {
        if (len - o < BITMAP_BYTES) return truncated(o, BITMAP_BYTES, len, "bitmap container");
        size_t before = out->n;
        for (uint32_t w = 0; w < BITMAP_BYTES / 8; w++) {
            uint64_t word = rd64(d + o + 8 * w);
            if (out->n - before + (size_t)__builtin_popcountll(word) > card)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "roaring bitmap: bitmap container at byte %zu holds more than its cardinality %u", o,
                                  card);
            while (word) {
                int b = __builtin_ctzll(word);
                out->v[out->n++] = base | (int64_t)(w * 64 + (uint32_t)b);
                word &= word - 1;
            }
        }
        if (out->n - before != card)
            return floe_error(FLOE_ERR_CORRUPT, "roaring bitmap: bitmap container at byte %zu holds %zu values, header says %u",
                              o, out->n - before, card);
        *off = o + BITMAP_BYTES;
    }
    return NULL;
}

floe_status floe_roaring32_decode(const uint8_t *d, size_t len, uint32_t high, floe_i64vec *out, size_t *consumed) {
    if (len < 4) return truncated(0, 4, len, "cookie");
    uint32_t cookie = rd32(d);
    uint32_t n;
    size_t off;
    const uint8_t *runs = NULL;
    if ((cookie & 0xFFFFu) == COOKIE_RUN) {
        n = (cookie >> 16) + 1;
        size_t rb = (n + 7) / 8;
        if (len - 4 < rb) return truncated(4, rb, len, "run-container bitset");
        runs = d + 4;
        off = 4 + rb;
    } else if (cookie == COOKIE_NO_RUN) {
        if (len < 8) return truncated(4, 4, len, "container count");
        n = rd32(d + 4);
        if (n > 65536)
            return floe_error(FLOE_ERR_CORRUPT, "roaring bitmap: %u containers at byte 4 (at most 65536)", n);
        off = 8;
    } else {
        return floe_error(FLOE_ERR_CORRUPT, "roaring bitmap: unknown cookie 0x%08x at byte 0", cookie);
    }
    size_t hdr = off;
    if (len - off < (size_t)n * 4) return truncated(off, (size_t)n * 4, len, "container headers");
    off += (size_t)n * 4;
    if (!runs || n >= NO_OFFSET_THRESHOLD) {
        if (len - off < (size_t)n * 4) return truncated(off, (size_t)n * 4, len, "container offsets");
        off += (size_t)n * 4;
    }
    int32_t prev_key = -1;
    for (uint32_t i = 0; i < n; i++) {
        uint16_t key = rd16(d + hdr + 4 * i);
        uint32_t card = (uint32_t)rd16(d + hdr + 4 * i + 2) + 1;
        if ((int32_t)key <= prev_key)
            return floe_error(FLOE_ERR_CORRUPT, "roaring bitmap: container keys not ascending at byte %zu",
                              hdr + 4 * (size_t)i);
        prev_key = key;
        bool is_run = runs && (runs[i / 8] >> (i % 8)) & 1;
        int64_t base = ((int64_t)high << 32) | ((int64_t)key << 16);
        FLOE_TRY(decode_container(d, len, &off, is_run, card, base, out));
    }
    *consumed = off;
    return NULL;
}

floe_status floe_roaring64_decode(const uint8_t *d, size_t len, floe_i64vec *out) {
    if (len < 8) return truncated(0, 8, len, "bitmap count");
    uint64_t n = rd64(d);
    if (n > (len - 8) / 8)
        return floe_error(FLOE_ERR_CORRUPT, "roaring bitmap: %llu 32-bit bitmaps cannot fit in %zu bytes",
                          (unsigned long long)n, len);
    size_t off = 8;
    int64_t prev = -1;
    for (uint64_t i = 0; i < n; i++) {
        if (len - off < 4) return truncated(off, 4, len, "high key");
        uint32_t key = rd32(d + off);
        if (key > (uint32_t)INT32_MAX)
            return floe_error(FLOE_ERR_CORRUPT,
                              "roaring bitmap: invalid unsigned key %u at byte %zu (positions need keys <= %d)", key, off,
                              INT32_MAX);
        if ((int64_t)key <= prev)
            return floe_error(FLOE_ERR_CORRUPT, "roaring bitmap: high keys not ascending at byte %zu", off);
        prev = key;
        off += 4;
        size_t used;
        floe_status st = floe_roaring32_decode(d + off, len - off, key, out, &used);
        if (st) return floe_status_wrap(st, "32-bit bitmap %llu starting at byte %zu", (unsigned long long)i, off);
        off += used;
    }
    if (off != len)
        return floe_error(FLOE_ERR_CORRUPT, "roaring bitmap: %zu trailing bytes after byte %zu", len - off, off);
    return NULL;
}

/* ---- encoding -------------------------------------------------------------- */

static void wr16(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void wr32(uint8_t *p, uint32_t v) {
    wr16(p, v & 0xFFFF);
    wr16(p + 2, v >> 16);
}

typedef struct container_plan {
    uint16_t key;
    uint32_t card;
    uint32_t nruns;
    uint8_t kind; /* 0 array, 1 bitmap, 2 run */
    size_t first; /* index into pos */
} container_plan;

static size_t plan_bytes(const container_plan *c) {
    return c->kind == 2 ? 2 + 4 * (size_t)c->nruns : c->kind == 1 ? BITMAP_BYTES : 2 * (size_t)c->card;
}

/* Encode pos[0..n) (all with the same high key) as one 32-bit bitmap. */
static floe_status encode32(const int64_t *pos, size_t n, floe_buf *out) {
    container_plan *cs = floe_malloc(sizeof(*cs) * (n < 65536 ? n : 65536) + sizeof(*cs));
    if (!cs) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "roaring encode");
    uint32_t nc = 0;
    bool any_run = false;
    for (size_t i = 0; i < n;) {
        container_plan *c = &cs[nc++];
        c->key = (uint16_t)((pos[i] >> 16) & 0xFFFF);
        c->first = i;
        c->card = 0;
        c->nruns = 0;
        int64_t prev = -2;
        while (i < n && ((pos[i] >> 16) & 0xFFFF) == c->key) {
            if (pos[i] != prev + 1) c->nruns++;
            prev = pos[i];
            c->card++;
            i++;
        }
        size_t arr = c->card <= ARRAY_MAX ? 2 * (size_t)c->card : BITMAP_BYTES;
        c->kind = c->card <= ARRAY_MAX ? 0 : 1;
        if (2 + 4 * (size_t)c->nruns < arr) {
            c->kind = 2;
            any_run = true;
        }
    }
    size_t head = any_run ? 4 + (nc + 7) / 8 : 8;
    size_t hdr = head;
    head += 4 * (size_t)nc;
    bool offsets = !any_run || nc >= NO_OFFSET_THRESHOLD;
    size_t offs = head;
    if (offsets) head += 4 * (size_t)nc;
    size_t total = head;
    for (uint32_t i = 0; i < nc; i++) total += plan_bytes(&cs[i]);
    uint8_t *p = floe_buf_extend(out, total);
    if (!p) {
        floe_free(cs);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "roaring encode of %zu bytes", total);
    }
    memset(p, 0, total);
    if (any_run) {
        wr32(p, COOKIE_RUN | ((nc - 1) << 16));
        for (uint32_t i = 0; i < nc; i++)
            if (cs[i].kind == 2) p[4 + i / 8] |= (uint8_t)(1u << (i % 8));
    } else {
        wr32(p, COOKIE_NO_RUN);
        wr32(p + 4, nc);
    }
    size_t o = head;
    for (uint32_t i = 0; i < nc; i++) {
        const container_plan *c = &cs[i];
        wr16(p + hdr + 4 * i, c->key);
        wr16(p + hdr + 4 * i + 2, c->card - 1);
        if (offsets) wr32(p + offs + 4 * i, (uint32_t)o);
        const int64_t *v = pos + c->first;
        if (c->kind == 0) {
            for (uint32_t k = 0; k < c->card; k++) wr16(p + o + 2 * k, (uint32_t)(v[k] & 0xFFFF));
        } else if (c->kind == 1) {
            for (uint32_t k = 0; k < c->card; k++) {
                uint32_t lo = (uint32_t)(v[k] & 0xFFFF);
                p[o + lo / 8] |= (uint8_t)(1u << (lo % 8));
            }
        } else {
            wr16(p + o, c->nruns);
            uint32_t r = 0;
            for (uint32_t k = 0; k < c->card;) {
                uint32_t start = (uint32_t)(v[k] & 0xFFFF), l = 0;
                while (k + l + 1 < c->card && v[k + l + 1] == v[k + l] + 1) l++;
                wr16(p + o + 2 + 4 * r, start);
                wr16(p + o + 4 + 4 * r, l);
                r++;
                k += l + 1;
            }
        }
        o += plan_bytes(c);
    }
    floe_free(cs);
    return NULL;
}

floe_status floe_roaring64_encode(const int64_t *pos, size_t n, floe_buf *out) {
    for (size_t i = 0; i < n; i++)
        if (pos[i] < 0 || (i && pos[i] <= pos[i - 1]))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "roaring encode: positions must be non-negative and strictly ascending (index %zu)", i);
    uint64_t nb = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || (pos[i] >> 32) != (pos[i - 1] >> 32)) nb++;
    uint8_t hdr[8];
    wr32(hdr, (uint32_t)nb);
    wr32(hdr + 4, (uint32_t)(nb >> 32));
    FLOE_TRY(floe_buf_append(out, hdr, 8));
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && (pos[j] >> 32) == (pos[i] >> 32)) j++;
        uint8_t k[4];
        wr32(k, (uint32_t)(pos[i] >> 32));
        FLOE_TRY(floe_buf_append(out, k, 4));
        FLOE_TRY(encode32(pos + i, j - i, out));
        i = j;
    }
    return NULL;
}

/*
 * arena.c — chunked bump allocator (see arena.h).
 *
 * Chunks are floe_malloc blocks with a small header in front; the list is
 * newest first.  A dedicated chunk for a large request is linked *behind*
 * the current chunk so the current chunk's free space stays usable for the
 * small requests that follow.
 */
#include "base/arena.h"

#include <string.h>

#include "floe/memory.h"

struct floe_arena_chunk {
    floe_arena_chunk *next;
    size_t size; /* usable bytes after the header */
};

/* floe_malloc returns 16-byte aligned memory and the header is 16 bytes, so
 * chunk data starts 16-byte aligned; larger alignments are found inside. */
_Static_assert(sizeof(floe_arena_chunk) == 16, "chunk header keeps 16-byte alignment");

/* Chunks smaller than this make the large-request threshold meaningless. */
#define MIN_CHUNK 256

static uint8_t *chunk_data(floe_arena_chunk *c) { return (uint8_t *)(c + 1); }

void floe_arena_init(floe_arena *a, size_t chunk_size) {
    if (chunk_size == 0) chunk_size = FLOE_ARENA_DEFAULT_CHUNK;
    if (chunk_size < MIN_CHUNK) chunk_size = MIN_CHUNK;
    a->ptr = NULL;
    a->end = NULL;
    a->chunks = NULL;
    a->first = NULL;
    a->chunk_size = chunk_size;
    a->reserved = 0;
}

void floe_arena_destroy(floe_arena *a) {
    floe_arena_chunk *c = a->chunks;
    while (c) {
        floe_arena_chunk *next = c->next;
        floe_free(c);
        c = next;
    }
    floe_arena_init(a, a->chunk_size);
}

void floe_arena_reset(floe_arena *a) {
    floe_arena_chunk *c = a->chunks;
    while (c) {
        floe_arena_chunk *next = c->next;
        if (c != a->first) floe_free(c);
        c = next;
    }
    a->chunks = a->first;
    if (a->first) {
        a->first->next = NULL;
        a->ptr = chunk_data(a->first);
        a->end = a->ptr + a->first->size;
        a->reserved = a->first->size;
    } else {
        a->ptr = a->end = NULL;
        a->reserved = 0;
    }
}

static floe_arena_chunk *new_chunk(size_t size) {
    if (size > SIZE_MAX - sizeof(floe_arena_chunk)) return NULL;
    floe_arena_chunk *c = floe_malloc(sizeof(floe_arena_chunk) + size);
    if (!c) return NULL;
    c->next = NULL;
    c->size = size;
    return c;
}

static void *align_up(uint8_t *p, size_t align) {
    return (void *)(((uintptr_t)p + (align - 1)) & ~(uintptr_t)(align - 1));
}

void *floe_arena_alloc_slow(floe_arena *a, size_t n, size_t align) {
    if (align == 0 || (align & (align - 1)) != 0 || align > FLOE_ARENA_MAX_ALIGN) return NULL;
    if (n > SIZE_MAX - sizeof(floe_arena_chunk) - align) return NULL;
    size_t need = n + align - 1; /* worst-case padding for the alignment */

    if (n > a->chunk_size / 4) {
        /* Large: its own chunk, kept behind the current one. */
        floe_arena_chunk *c = new_chunk(need);
        if (!c) return NULL;
        if (a->chunks && a->ptr) {
            c->next = a->chunks->next;
            a->chunks->next = c;
        } else {
            c->next = a->chunks;
            a->chunks = c;
        }
        a->reserved += c->size;
        return align_up(chunk_data(c), align);
    }

    floe_arena_chunk *c = new_chunk(a->chunk_size);
    if (!c) return NULL;
    c->next = a->chunks;
    a->chunks = c;
    if (!a->first) a->first = c;
    a->reserved += c->size;
    uint8_t *p = align_up(chunk_data(c), align);
    a->ptr = p + n;
    a->end = chunk_data(c) + c->size;
    return p;
}

void *floe_arena_calloc(floe_arena *a, size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return NULL;
    void *p = floe_arena_alloc(a, count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

void *floe_arena_memdup(floe_arena *a, const void *p, size_t n) {
    /* Aligned for any type: the copy may be a struct or an array. */
    void *out = floe_arena_alloc(a, n);
    if (out && n) memcpy(out, p, n);
    return out;
}

char *floe_arena_strndup(floe_arena *a, const char *s, size_t n) {
    if (!s) return NULL;
    size_t len = strnlen(s, n);
    char *out = floe_arena_alloc_aligned(a, len + 1, 1);
    if (!out) return NULL;
    memcpy(out, s, len);
    out[len] = '\0';
    return out;
}

char *floe_arena_strdup(floe_arena *a, const char *s) {
    return s ? floe_arena_strndup(a, s, strlen(s)) : NULL;
}

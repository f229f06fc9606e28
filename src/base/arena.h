/*
 * arena.h — bump ("region") allocator for per-batch and per-query memory.
 *
 * An arena hands out memory by advancing a pointer inside a chunk obtained
 * from floe_malloc (so every byte is charged to the tracker current when
 * the chunk was allocated).  Individual allocations are never freed; the
 * whole arena is reset between batches (keeping its first chunk, so a
 * steady-state batch loop allocates nothing from the system) or destroyed
 * at the end of a query.  Requests larger than a quarter of the chunk size
 * get a chunk of their own so they do not waste the rest of a chunk.
 *
 * The fast path (floe_arena_alloc*) is inline: an add, a mask and a compare.
 * An arena is not thread-safe: use one per thread or per task.
 *
 *   floe_arena a;
 *   floe_arena_init(&a, 0);
 *   int32_t *v = floe_arena_alloc_aligned(&a, n * sizeof *v, 64);
 *   if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, ...);
 *   ...
 *   floe_arena_reset(&a);       (next batch)
 *   floe_arena_destroy(&a);     (done)
 */
#ifndef FLOE_BASE_ARENA_H
#define FLOE_BASE_ARENA_H

#include <stddef.h>
#include <stdint.h>

/* Default chunk size when floe_arena_init is given 0. */
#define FLOE_ARENA_DEFAULT_CHUNK (64 * 1024)
/* Largest alignment floe_arena_alloc_aligned accepts. */
#define FLOE_ARENA_MAX_ALIGN 64
/* Alignment of floe_arena_alloc (enough for any scalar type). */
#define FLOE_ARENA_ALIGN 16

typedef struct floe_arena_chunk floe_arena_chunk;

typedef struct floe_arena {
    uint8_t *ptr;             /* next free byte of the current chunk       */
    uint8_t *end;             /* one past the current chunk's last byte    */
    floe_arena_chunk *chunks; /* every chunk, newest first                 */
    floe_arena_chunk *first;  /* the chunk kept by reset (NULL until one)  */
    size_t chunk_size;        /* usable bytes of an ordinary chunk         */
    size_t reserved;          /* bytes held in chunks (for statistics)     */
} floe_arena;

/* Prepare an empty arena; no memory is allocated until the first request.
 * chunk_size 0 means FLOE_ARENA_DEFAULT_CHUNK. */
void floe_arena_init(floe_arena *a, size_t chunk_size);

/* Free every chunk.  The arena may be initialised again afterwards. */
void floe_arena_destroy(floe_arena *a);

/* Forget every allocation, free all chunks but the first and make it
 * current again.  Pointers handed out before become invalid. */
void floe_arena_reset(floe_arena *a);

/* Bytes currently held from floe_malloc by this arena's chunks. */
static inline size_t floe_arena_reserved_bytes(const floe_arena *a) { return a->reserved; }

/* Out-of-line path: open a new chunk (or a dedicated one) and allocate. */
void *floe_arena_alloc_slow(floe_arena *a, size_t n, size_t align);

/* `n` bytes aligned to `align` (a power of two, 1..FLOE_ARENA_MAX_ALIGN).
 * Returns NULL when memory is exhausted or `align` is invalid.  n == 0
 * returns a valid, unique-enough pointer that must not be dereferenced. */
static inline void *floe_arena_alloc_aligned(floe_arena *a, size_t n, size_t align) {
    if (align != 0 && (align & (align - 1)) == 0 && align <= FLOE_ARENA_MAX_ALIGN) {
        uintptr_t p = ((uintptr_t)a->ptr + (align - 1)) & ~(uintptr_t)(align - 1);
        uintptr_t end = (uintptr_t)a->end;
        if (a->ptr && p <= end && n <= end - p) {
            a->ptr = (uint8_t *)(p + n);
            return (void *)p;
        }
    }
    return floe_arena_alloc_slow(a, n, align);
}

/* `n` bytes aligned to FLOE_ARENA_ALIGN; NULL when memory is exhausted. */
static inline void *floe_arena_alloc(floe_arena *a, size_t n) {
    return floe_arena_alloc_aligned(a, n, FLOE_ARENA_ALIGN);
}

/* `count * size` zeroed bytes, NULL on overflow or exhaustion. */
void *floe_arena_calloc(floe_arena *a, size_t count, size_t size);

/* Copies into the arena; NULL when memory is exhausted.  strdup of NULL is
 * NULL.  strndup copies at most n bytes and always NUL-terminates.  memdup
 * returns FLOE_ARENA_ALIGN-aligned memory; string copies are unaligned. */
char *floe_arena_strdup(floe_arena *a, const char *s);
char *floe_arena_strndup(floe_arena *a, const char *s, size_t n);
void *floe_arena_memdup(floe_arena *a, const void *p, size_t n);

#endif

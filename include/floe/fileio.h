/*
 * fileio.h — floe's FileIO: reading and writing files wherever they live.
 *
 * Readers (Parquet, Avro, metadata JSON) see only floe_input: a random-access
 * byte source with a known size.  Writers see only floe_output: an append-only
 * sink that becomes visible at floe_output_close() and is discarded by
 * floe_output_abort().  Local files and in-memory bytes are implemented here;
 * S3 plugs in behind the same interface.
 *
 * Every error names the path and the byte range involved.
 */
#ifndef FLOE_FILEIO_H
#define FLOE_FILEIO_H

#include <stddef.h>
#include <stdint.h>

#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct floe_input floe_input;
typedef struct floe_output floe_output;

typedef struct floe_input_ops {
    /* Read exactly `len` bytes at `offset` into `dst`; reading past the end is
     * a FLOE_ERR_CORRUPT/IO error naming the range, never a short read. */
    floe_status (*read_at)(floe_input *in, uint64_t offset, size_t len, uint8_t *dst);
    void (*close)(floe_input *in);
} floe_input_ops;

struct floe_input {
    const floe_input_ops *ops;
    char *path;     /* for messages; owned */
    uint64_t size;  /* total bytes */
    _Atomic uint64_t bytes_read; /* statistics: bytes fetched so far */
    _Atomic uint64_t read_calls; /* statistics: read_at calls so far */
};

typedef struct floe_output_ops {
    floe_status (*write)(floe_output *out, const void *data, size_t len);
    /* Make the file visible/durable and free the object. */
    floe_status (*close)(floe_output *out);
    /* Discard what was written (best effort) and free the object. */
    void (*abort)(floe_output *out);
} floe_output_ops;

struct floe_output {
    const floe_output_ops *ops;
    char *path;
    uint64_t bytes_written;
};

/* Open a local file for random-access reading. */
floe_status floe_input_open_local(const char *path, floe_input **out) FLOE_WARN_UNUSED;

/* Wrap bytes in memory (not copied; they must outlive the input).  `name`
 * appears in error messages. */
floe_status floe_input_from_memory(const uint8_t *data, size_t len, const char *name,
                                   floe_input **out) FLOE_WARN_UNUSED;

static inline floe_status floe_input_read(floe_input *in, uint64_t offset, size_t len,
                                          uint8_t *dst) {
    return in->ops->read_at(in, offset, len, dst);
}
void floe_input_close(floe_input *in);

/* Read a whole input into a new floe_malloc'd block (caller frees). */
floe_status floe_input_read_all(floe_input *in, uint8_t **data, size_t *len) FLOE_WARN_UNUSED;

/* Create a local file for writing.  The bytes go to a temporary name beside
 * `path` and are renamed into place on close, so a reader never sees a
 * half-written file and abort leaves nothing behind.  Parent directories are
 * created.  Fails with FLOE_ERR_ALREADY_EXISTS if `path` exists and
 * `overwrite` is false. */
floe_status floe_output_create_local(const char *path, int overwrite,
                                     floe_output **out) FLOE_WARN_UNUSED;

static inline floe_status floe_output_write(floe_output *out, const void *data, size_t len) {
    return out->ops->write(out, data, len);
}
floe_status floe_output_close(floe_output *out) FLOE_WARN_UNUSED;
void floe_output_abort(floe_output *out);

#ifdef __cplusplus
}
#endif
#endif

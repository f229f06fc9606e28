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

#include "floe/property.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct floe_input floe_input;
typedef struct floe_output floe_output;
struct floe_buf; /* src/base/buffer.h: floe_credentials_export's output */

typedef struct floe_input_ops {
    /* Read exactly `len` bytes at `offset` into `dst`; reading past the end is
     * a FLOE_ERR_CORRUPT/IO error naming the range, never a short read. */
    floe_status (*read_at)(floe_input *in, uint64_t offset, size_t len, uint8_t *dst);
    void (*close)(floe_input *in);
    /* Optional: the whole object in one request, however long it really
     * is (floe_malloc'd, NUL-terminated; *len its length).  An object store
     * opened with a recorded size that is wrong (a manifest list's
     * manifest_length written short by some writers) still reads whole.
     * NULL: floe_input_read_all reads [0, size) with read_at. */
    floe_status (*read_all)(floe_input *in, uint8_t **data, size_t *len);
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


/* ---- FileIO: one object for every supported location ------------------------
 *
 * A floe_fileio opens locations by their scheme:
 *   /abs/path, rel/path, file:/path, file:///path   local files
 *   s3://bucket/key, s3a://..., s3n://...           S3 (or any S3-compatible store)
 * It is configured once from a string->string property map using Iceberg's
 * property names, falling back to the usual AWS_* environment variables:
 *
 *   s3.endpoint                  http(s)://host[:port] (AWS_ENDPOINT_URL_S3,
 *                                AWS_ENDPOINT_URL); default AWS for the region
 *   s3.region, client.region     (AWS_REGION, AWS_DEFAULT_REGION); us-east-1
 *   s3.access-key-id, s3.secret-access-key, s3.session-token
 *                                (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 *                                AWS_SESSION_TOKEN); none at all = anonymous
 *   s3.path-style-access         true/false; default false, but path style is
 *                                used anyway for IP-address/localhost endpoints
 *                                and for bucket names with dots
 *   s3.multipart.part-size-bytes multipart part size; default 8 MiB, min 5 MiB
 *   s3.multipart.num-threads     parts uploaded in the background per output
 *                                while the writer fills the next; default 2
 *                                (0 = upload in the writer's thread)
 *   s3.retry.num-retries         retries after the first attempt; default 5
 *   s3.retry.min-wait-ms, s3.retry.max-wait-ms   backoff bounds; 100 / 10000
 * floe additions (not Iceberg names):
 *   s3.retry.total-timeout-ms    give up retrying after this long; 120000
 *   s3.connect-timeout-ms        default 10000
 *   s3.request-timeout-ms        whole single attempt; default 300000
 *   s3.list.max-keys             page size of listings; default 1000
 *   s3.connect-to                curl CONNECT_TO rule "host:port:addr:port"
 *                                (send requests for host:port to addr:port)
 *   floe.credentials-id          take the S3 keys (s3.access-key-id,
 *                                s3.secret-access-key, s3.session-token)
 *                                from the process-wide credential store
 *                                under this id at every request, refreshed
 *                                as they near expiry (see below); the
 *                                FileIO's own keys are used while the store
 *                                has none for the id
 * Secrets (secret key, session token) never appear in messages or logs.
 *
 * One floe_fileio may be shared by many threads.  It must outlive nothing:
 * inputs and outputs keep what they need, so it may be freed while they
 * are still open.
 */
typedef struct floe_fileio floe_fileio;

/* floe_property (a key and a value) is in property.h. */

typedef struct floe_file_info {
    const char *location;     /* in the scheme the listing was asked with */
    uint64_t size;            /* bytes */
    int64_t last_modified_ms; /* Unix milliseconds; -1 when unknown */
} floe_file_info;

/* Called once per listed file; returning an error stops the listing and
 * floe_fileio_list returns that error.  `info` is valid only during the call. */
typedef floe_status (*floe_fileio_list_fn)(void *ctx, const floe_file_info *info);

/* Make a FileIO from `nprops` key/value pairs (NULL/0 for none).  Bad values
 * (a part size below 5 MiB, a non-number) are FLOE_ERR_INVALID_ARGUMENT. */
floe_status floe_fileio_new(const floe_property *props, size_t nprops,
                            floe_fileio **out) FLOE_WARN_UNUSED;
void floe_fileio_free(floe_fileio *io);

/* Open a location for random-access reading (its size is known on return). */
floe_status floe_fileio_open_input(floe_fileio *io, const char *location,
                                   floe_input **out) FLOE_WARN_UNUSED;

/* The same when the size is already known (Iceberg manifests record every
 * data file's size): S3 then skips its HEAD request.  Local files report
 * their real size.  A wrong size surfaces as an error on read. */
floe_status floe_fileio_open_input_sized(floe_fileio *io, const char *location, uint64_t size,
                                         floe_input **out) FLOE_WARN_UNUSED;

/* Create a location for writing; nothing is visible until floe_output_close.
 * With overwrite false an existing object is FLOE_ERR_ALREADY_EXISTS. */
floe_status floe_fileio_create_output(floe_fileio *io, const char *location, int overwrite,
                                      floe_output **out) FLOE_WARN_UNUSED;

/* Delete a file or object.  Deleting something that does not exist succeeds
 * (as it does on S3), so retried cleanups are harmless. */
floe_status floe_fileio_delete(floe_fileio *io, const char *location) FLOE_WARN_UNUSED;

/* Set *exists to 1 if the file or object exists, else 0. */
floe_status floe_fileio_exists(floe_fileio *io, const char *location,
                               int *exists) FLOE_WARN_UNUSED;

/* Call `fn` for every file whose location starts with `prefix` (S3 prefix
 * semantics: "s3://b/dir/" lists everything under dir/, recursively; for
 * local paths, regular files below the prefix's directory whose path starts
 * with the prefix).  Order is unspecified. */
floe_status floe_fileio_list(floe_fileio *io, const char *prefix, floe_fileio_list_fn fn,
                             void *ctx) FLOE_WARN_UNUSED;

/* The properties the FileIO was made with, in the order given (NULL/0 for
 * none), so that a plan node can make the same FileIO in another process.
 * Owned by the FileIO; valid while it lives.  `io` may be NULL (no
 * properties).  They may hold secrets: print them only through
 * floe_redact_kv_list. */
void floe_fileio_properties(const floe_fileio *io, const floe_property **props, size_t *n);

/* ---- the credential store --------------------------------------------------
 *
 * Process-wide and thread-safe: short-lived storage credentials (vended by
 * a REST catalog) are kept here under an opaque id, e.g.
 * "rest:<catalog uri>#db.t", and every FileIO whose property
 * floe.credentials-id names that id reads its S3 keys from here at each
 * request.  A refresh thus reaches every FileIO using the id at once, and
 * a FileIO made from shipped properties in another process (an MPI worker)
 * uses whatever the coordinator exported to it.
 *
 * Before each request the S3 client refreshes an entry through its
 * refresher when the expiry is within max(5 s, 1/5 of the credentials'
 * lifetime) — capped at half the lifetime, so that credentials living only
 * seconds are not refreshed before every request — and once more, retrying
 * the request once, when S3 answers 400/403 ExpiredToken,
 * InvalidAccessKeyId or TokenRefreshRequired.  Refreshes are single
 * flight: one thread calls the refresher, the others wait for its result.
 */

/* Store (replace) the credentials of `id`: S3 properties such as
 * s3.access-key-id, s3.secret-access-key, s3.session-token (copied; other
 * keys are kept and exported too), valid until expires_at_ms (Unix
 * milliseconds; 0 or less = no known expiry, never refreshed early). */
floe_status floe_credentials_put(const char *id, const floe_property *props, size_t n,
                                 int64_t expires_at_ms) FLOE_WARN_UNUSED;

/* Fetch new credentials for `id` and floe_credentials_put them.  Called
 * without any store lock held, by one thread at a time per id. */
typedef floe_status (*floe_credentials_refresh_fn)(void *ctx, const char *id);

/* Register (fn non-NULL) or remove (fn NULL) the refresher of `id`; `ctx`
 * must stay valid until it is removed or the id forgotten.  Creating the
 * entry if needed: a FileIO reading `id` before any put then calls the
 * refresher for its first credentials. */
void floe_credentials_set_refresher(const char *id, floe_credentials_refresh_fn fn, void *ctx);

/* Drop `id` (its credentials and refresher).  A refresh running for it at
 * that moment may still put its result; forget again after. */
void floe_credentials_forget(const char *id);

/* For the MPI runtime: every entry's properties and expiry as bytes (appended
 * to `out`, a floe_buf from base/buffer.h; they contain secrets — send,
 * never print), and applying such bytes in another process (an entry whose
 * local copy expires later is kept; refreshers are never shipped).  Corrupt
 * bytes are FLOE_ERR_CORRUPT and change nothing. */
floe_status floe_credentials_export(struct floe_buf *out) FLOE_WARN_UNUSED;
floe_status floe_credentials_import(const uint8_t *p, size_t n) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif

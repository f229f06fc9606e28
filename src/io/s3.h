/*
 * s3.h — floe's S3 client behind the FileIO interface (internal to io).
 *
 * Requests are plain HTTP through libcurl, signed with curl's built-in AWS
 * Signature V4 (CURLOPT_AWS_SIGV4).  Reads are ranged GETs, writes are one PUT
 * or a multipart upload, listings are ListObjectsV2.  Transient failures (5xx,
 * 429/SlowDown, timeouts, dropped connections) are retried with exponential
 * backoff and full jitter, bounded in count and in total time.
 *
 * A client is reference counted: every input and output it opens holds a
 * reference, so the FileIO that made it can be freed first.  All functions
 * are safe to call from many threads at once.
 *
 * Secrets (secret key, session token) are kept here and handed only to curl;
 * no message or log line ever contains them.
 */
#ifndef FLOE_IO_S3_H
#define FLOE_IO_S3_H

#include <stddef.h>
#include <stdint.h>

#include "floe/fileio.h"

typedef struct floe_s3_config {
    char *endpoint;      /* "http(s)://host[:port][/path]", NULL = AWS */
    char *region;        /* never NULL after floe_s3_config_from_props */
    char *access_key_id; /* NULL = anonymous requests */
    char *secret_access_key;
    char *session_token; /* NULL unless temporary credentials */
    int path_style;       /* 1 = force path style */
    size_t part_size;     /* multipart part size, >= 5 MiB */
    int upload_threads;   /* uploader threads per multipart output (0 = inline) */
    int max_retries;      /* retries after the first attempt */
    long retry_min_wait_ms, retry_max_wait_ms, retry_total_ms;
    long connect_timeout_ms, request_timeout_ms;
    int list_max_keys; /* 1..1000 */
    char *connect_to;  /* curl CONNECT_TO rule, or NULL */
    char *credentials_id; /* floe.credentials-id: keys from the credential store, or NULL */
} floe_s3_config;

#define FLOE_S3_MIN_PART_SIZE ((size_t)5 << 20)
#define FLOE_S3_DEFAULT_PART_SIZE ((size_t)8 << 20)

/* Fill `cfg` from Iceberg-named properties, then AWS_* environment variables
 * for what the properties leave unset (see fileio.h for the names).  Strings
 * are floe_malloc'd; release with floe_s3_config_clear. */
floe_status floe_s3_config_from_props(const floe_property *props, size_t nprops,
                                      floe_s3_config *cfg) FLOE_WARN_UNUSED;
void floe_s3_config_clear(floe_s3_config *cfg);

/* 1 if `location` starts with s3://, s3a:// or s3n://. */
int floe_s3_is_location(const char *location);

typedef struct floe_s3_client floe_s3_client;

/* Make a client from a copy of `cfg`; the caller keeps `cfg`. */
floe_status floe_s3_client_new(const floe_s3_config *cfg, floe_s3_client **out) FLOE_WARN_UNUSED;
/* Drop the caller's reference; freed when the last input/output closes. */
void floe_s3_client_release(floe_s3_client *c);

floe_status floe_s3_open_input(floe_s3_client *c, const char *location,
                               floe_input **out) FLOE_WARN_UNUSED;
/* Same without the HEAD request, trusting a size the caller knows. */
floe_status floe_s3_open_input_sized(floe_s3_client *c, const char *location, uint64_t size,
                                     floe_input **out) FLOE_WARN_UNUSED;
floe_status floe_s3_create_output(floe_s3_client *c, const char *location, int overwrite,
                                  floe_output **out) FLOE_WARN_UNUSED;
floe_status floe_s3_delete(floe_s3_client *c, const char *location) FLOE_WARN_UNUSED;
floe_status floe_s3_exists(floe_s3_client *c, const char *location, int *exists) FLOE_WARN_UNUSED;
floe_status floe_s3_list(floe_s3_client *c, const char *prefix, floe_fileio_list_fn fn,
                         void *ctx) FLOE_WARN_UNUSED;

/* Counters for tests and EXPLAIN ANALYZE: HTTP attempts made and how many
 * of them were retries. */
void floe_s3_client_stats(floe_s3_client *c, uint64_t *attempts, uint64_t *retries);

#endif

/*
 * s3_internal.h — what the pieces of the S3 client share (internal to io;
 * the interface is io/s3.h).
 *
 *   s3.c          configuration, the client and its curl handle pool,
 *                 s3:// locations and their URLs
 *   s3_request.c  one request: SigV4 headers, curl callbacks, retries with
 *                 backoff, error messages (s3_perform)
 *   s3_xml.c      the little XML reading and escaping S3 needs
 *   s3_object.c   inputs (ranged GETs, HEAD for the size), delete, exists
 *   s3_upload.c   outputs: one PUT, or a multipart upload with background
 *                 part uploads
 *   s3_list.c     listings (ListObjectsV2 with continuation)
 */
#ifndef FLOE_IO_S3_INTERNAL_H
#define FLOE_IO_S3_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "base/buffer.h"
#include "base/log.h"
#include "io/s3.h"

/* Debug lines go through base/log.h (which redacts every message again as
 * a last line of defence); callers never pass a secret. */
#define S3_DEBUG(...) FLOE_LOG_DEBUG("s3", __VA_ARGS__)

/* ---- client (s3.c) ---------------------------------------------------------- */

struct floe_s3_client {
    floe_s3_config cfg;
    _Atomic int refs;
    char sigv4[96];   /* "aws:amz:<region>:s3" */
    char *scheme;     /* "http" or "https" */
    char *hostport;   /* endpoint host[:port] */
    char *base_path;  /* endpoint path without trailing '/', often "" */
    int host_is_ip;   /* IP literal or localhost: virtual hosting cannot work */
    pthread_mutex_t lock;
    CURL **idle;
    size_t nidle, idle_cap;
    _Atomic uint64_t attempts, retries;
};

/* Another reference to `c` (each input and output holds one). */
floe_s3_client *s3_client_ref(floe_s3_client *c);
/* A curl easy handle from the pool (or a new one; NULL: out of memory),
 * and back into the pool after the request. */
CURL *s3_handle_acquire(floe_s3_client *c);
void s3_handle_release(floe_s3_client *c, CURL *h);

/* Percent-encode per SigV4 into `b` ('/' kept when `keep_slash`). */
floe_status s3_uri_encode(floe_buf *b, const char *s, size_t n, int keep_slash) FLOE_WARN_UNUSED;

/* ---- locations (s3.c) ------------------------------------------------------- */

typedef struct s3_loc {
    char *scheme; /* "s3", "s3a" or "s3n" */
    char *bucket;
    char *key; /* may be "" for bucket-level operations */
} s3_loc;

void s3_loc_free(s3_loc *l);
/* Split an s3:// (s3a://, s3n://) location; need_key: it must name an object. */
floe_status s3_loc_parse(const char *location, int need_key, s3_loc *l) FLOE_WARN_UNUSED;
/* The request URL for `l` (path style or virtual hosted), with `query`. */
floe_status s3_build_url(floe_s3_client *c, const s3_loc *l, int bucket_level, const char *query,
                         floe_buf *url) FLOE_WARN_UNUSED;

/* ---- XML (s3_xml.c) ---------------------------------------------------------- */

/* The next <tag> element in [p, end): its text (not decoded) in *text /
 * *text_len and the position after it; NULL when there is none. */
const char *s3_xml_next(const char *p, const char *end, const char *tag, const char **text, size_t *text_len);
/* The decoded text of the first <tag> in [p, end), or empty with *found 0. */
floe_status s3_xml_get(const char *p, const char *end, const char *tag, floe_buf *out,
                       int *found) FLOE_WARN_UNUSED;
/* Append `s` with &, < and > escaped. */
floe_status s3_xml_escape(floe_buf *b, const char *s) FLOE_WARN_UNUSED;

/* ---- one request, with retries (s3_request.c) ---------------------------------- */

typedef struct s3_req {
    const char *method; /* GET HEAD PUT POST DELETE */
    const s3_loc *loc;
    int bucket_level;   /* URL names the bucket only (listing) */
    const char *query;  /* canonical query string or NULL */
    const uint8_t *body;
    size_t body_len;
    const char *content_type;
    char range[64];      /* "bytes=a-b" or "" */
    int if_none_match;   /* send If-None-Match: * (create only) */
    uint8_t *dst;        /* 2xx body goes straight here (ranged reads) */
    size_t dst_len;
    uint64_t dst_skip_if_200; /* a server ignoring Range sends the whole object */
    size_t max_body;          /* cap on buffered bodies */
    int errors_in_200;        /* CompleteMultipartUpload can fail inside a 200 */
} s3_req;

typedef struct s3_resp {
    long status;
    floe_buf body;
    size_t dst_done;
    char etag[200];
    char bucket_region[64]; /* x-amz-bucket-region, sent with wrong-region errors */
    int64_t content_length; /* -1 if unknown */
    int attempts;
    const struct s3_creds *creds; /* during s3_perform: the keys signing it (scrubbed from messages) */
} s3_resp;

/* Make the request, retrying transient failures; on an HTTP error *rs
 * still holds the status and body (the caller frees it with s3_resp_free). */
floe_status s3_perform(floe_s3_client *c, const s3_req *rq, s3_resp *rs) FLOE_WARN_UNUSED;
void s3_resp_free(s3_resp *rs);
/* The S3 error code and message from an error body, scrubbed of secrets. */
void s3_error_details(const floe_s3_client *c, const s3_resp *rs, floe_buf *code, floe_buf *msg);
/* "scheme://bucket/key" for messages. */
void s3_loc_text(const s3_loc *l, char *buf, size_t cap);

/* ---- objects (s3_object.c) ------------------------------------------------------ */

/* HEAD an object for its size (a failure is explained by a one-byte GET). */
floe_status s3_head_object(floe_s3_client *c, const s3_loc *l, int64_t *size) FLOE_WARN_UNUSED;

#endif

/*
 * s3_object.c — FileIO operations on one S3 object: inputs (ranged GETs,
 * the whole object in one GET, a HEAD for the size), delete and exists.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/memory.h"
#include "io/s3_internal.h"

/* ---- input ---------------------------------------------------------------- */

typedef struct s3_input {
    floe_input base;
    floe_s3_client *c;
    s3_loc loc;
} s3_input;

static floe_status s3_read_at(floe_input *in, uint64_t offset, size_t len, uint8_t *dst) {
    s3_input *si = (s3_input *)in;
    if (offset > in->size || len > in->size - offset)
        return floe_error(FLOE_ERR_CORRUPT,
                          "'%s': read of %zu bytes at offset %llu is past the end of the object "
                          "(%llu bytes)",
                          in->path, len, (unsigned long long)offset, (unsigned long long)in->size);
    atomic_fetch_add_explicit(&in->read_calls, 1, memory_order_relaxed);
    if (len == 0) return NULL;
    s3_req rq = {.method = "GET", .loc = &si->loc, .dst = dst, .dst_len = len,
                 .dst_skip_if_200 = offset, .max_body = 1 << 20};
    snprintf(rq.range, sizeof rq.range, "bytes=%llu-%llu", (unsigned long long)offset,
             (unsigned long long)(offset + len - 1));
    s3_resp rs = {0};
    floe_status st = s3_perform(si->c, &rq, &rs);
    if (!st && rs.dst_done != len)
        st = floe_error(FLOE_ERR_IO, "'%s': short read: %zu of %zu bytes at offset %llu", in->path,
                        rs.dst_done, len, (unsigned long long)offset);
    s3_resp_free(&rs);
    if (!st) atomic_fetch_add_explicit(&in->bytes_read, len, memory_order_relaxed);
    return st;
}

static void s3_input_close(floe_input *in) {
    s3_input *si = (s3_input *)in;
    floe_s3_client_release(si->c);
    s3_loc_free(&si->loc);
    floe_free(in->path);
    floe_free(si);
}

/* The whole object with one unranged GET.  The size the input was opened
 * with is only a hint here: Iceberg metadata records manifest_length, and
 * some writers record it wrong, while the object itself is intact.  A
 * reader that wants all of it gets all of it. */
static floe_status s3_read_all(floe_input *in, uint8_t **data, size_t *len) {
    s3_input *si = (s3_input *)in;
    atomic_fetch_add_explicit(&in->read_calls, 1, memory_order_relaxed);
    s3_req rq = {.method = "GET", .loc = &si->loc, .max_body = (size_t)1 << 31};
    s3_resp rs = {0};
    floe_status st = s3_perform(si->c, &rq, &rs);
    if (!st) st = floe_buf_append(&rs.body, "", 1); /* NUL for text readers */
    if (st) {
        s3_resp_free(&rs);
        return floe_status_wrap(st, "reading '%s' whole", in->path);
    }
    *len = rs.body.len - 1;
    *data = (uint8_t *)rs.body.data;
    atomic_fetch_add_explicit(&in->bytes_read, *len, memory_order_relaxed);
    return NULL;
}

static const floe_input_ops s3_input_ops = {s3_read_at, s3_input_close, s3_read_all};

/* HEAD an object.  A failed HEAD carries no body, so for a clear message
 * the error is fetched again with a one-byte GET, whose body names the S3
 * error code (NoSuchKey vs NoSuchBucket, AccessDenied ...). */
floe_status s3_head_object(floe_s3_client *c, const s3_loc *l, int64_t *size) {
    s3_req rq = {.method = "HEAD", .loc = l, .max_body = 1 << 16};
    s3_resp rs = {0};
    floe_status st = s3_perform(c, &rq, &rs);
    if (st && rs.status >= 300 && rs.status < 500 && rs.status != 429) {
        s3_req g = {.method = "GET", .loc = l, .range = "bytes=0-0", .max_body = 1 << 16};
        s3_resp grs = {0};
        floe_status gst = s3_perform(c, &g, &grs);
        if (gst && grs.status == rs.status && grs.body.len) {
            floe_status_free(st);
            st = gst;
        } else if ((!gst || grs.status == 416) && c->cfg.credentials_id && (rs.status == 400 || rs.status == 403)) {
            /* The GET went through (with refreshed keys; 416 is an empty
             * object): the HEAD's failure was the keys', so ask again. */
            floe_status_free(gst);
            floe_status_free(st);
            s3_resp_free(&rs);
            memset(&rs, 0, sizeof rs);
            st = s3_perform(c, &rq, &rs);
        } else {
            floe_status_free(gst);
        }
        s3_resp_free(&grs);
    }
    if (!st && rs.content_length < 0) {
        char where[1200];
        s3_loc_text(l, where, sizeof where);
        st = floe_error(FLOE_ERR_IO, "%s: HEAD response has no Content-Length", where);
    }
    *size = rs.content_length;
    s3_resp_free(&rs);
    return st;
}

/* Open with a known size (size >= 0) or HEAD the object for it (size < 0). */
static floe_status open_input(floe_s3_client *c, const char *location, int64_t size,
                              floe_input **out) {
    *out = NULL;
    s3_loc l;
    FLOE_TRY(s3_loc_parse(location, 1, &l));
    floe_status st = size < 0 ? s3_head_object(c, &l, &size) : NULL;
    if (st) {
        s3_loc_free(&l);
        return st;
    }
    s3_input *si = floe_calloc(1, sizeof *si);
    char *p = floe_strdup(location);
    if (!si || !p) {
        floe_free(si);
        floe_free(p);
        s3_loc_free(&l);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening '%s'", location);
    }
    si->base.ops = &s3_input_ops;
    si->base.path = p;
    si->base.size = (uint64_t)size;
    si->c = s3_client_ref(c);
    si->loc = l;
    *out = &si->base;
    return NULL;
}

floe_status floe_s3_open_input(floe_s3_client *c, const char *location, floe_input **out) {
    return open_input(c, location, -1, out);
}

floe_status floe_s3_open_input_sized(floe_s3_client *c, const char *location, uint64_t size,
                                     floe_input **out) {
    if (size > (uint64_t)INT64_MAX) {
        *out = NULL;
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s': impossible size %llu", location,
                          (unsigned long long)size);
    }
    return open_input(c, location, (int64_t)size, out);
}

/* ---- delete, exists ----------------------------------------------------------- */

floe_status floe_s3_delete(floe_s3_client *c, const char *location) {
    s3_loc l;
    FLOE_TRY(s3_loc_parse(location, 1, &l));
    s3_req rq = {.method = "DELETE", .loc = &l, .max_body = 1 << 16};
    s3_resp rs = {0};
    floe_status st = s3_perform(c, &rq, &rs);
    if (st && rs.status == 404 && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
        /* S3 itself answers 204 for a missing key; some stores say 404 NoSuchKey. */
        floe_buf code = FLOE_BUF_INIT, msg = FLOE_BUF_INIT;
        s3_error_details(c, &rs, &code, &msg);
        if (strcmp(floe_buf_cstr(&code), "NoSuchKey") == 0) {
            floe_status_free(st);
            st = NULL;
        }
        floe_buf_free(&code);
        floe_buf_free(&msg);
    }
    s3_resp_free(&rs);
    s3_loc_free(&l);
    return st;
}

floe_status floe_s3_exists(floe_s3_client *c, const char *location, int *exists) {
    *exists = 0;
    s3_loc l;
    FLOE_TRY(s3_loc_parse(location, 1, &l));
    s3_req rq = {.method = "HEAD", .loc = &l, .max_body = 1 << 16};
    s3_resp rs = {0};
    floe_status st = s3_perform(c, &rq, &rs);
    if (st && c->cfg.credentials_id && (rs.status == 400 || rs.status == 403)) {
        /* Perhaps expired keys: a one-byte GET says so in its body (and
         * refreshes them); its answer stands for the HEAD's. */
        s3_req g = {.method = "GET", .loc = &l, .range = "bytes=0-0", .max_body = 1 << 16};
        floe_status_free(st);
        s3_resp_free(&rs);
        memset(&rs, 0, sizeof rs);
        st = s3_perform(c, &g, &rs);
        if (st && rs.status == 416) { /* an empty object: it exists */
            floe_status_free(st);
            st = NULL;
        }
    }
    if (!st) {
        *exists = 1;
    } else if (rs.status == 404) {
        /* A HEAD cannot tell a missing key from a missing bucket (no
         * body); either way the object does not exist. */
        floe_status_free(st);
        st = NULL;
    }
    s3_resp_free(&rs);
    s3_loc_free(&l);
    return st;
}

/* "2026-11-29T17:25:35.000Z" -> Unix ms, or -1. */

/*
 * s3_upload.c — S3 outputs (floe_output): one PUT, or a multipart upload
 * whose parts upload on background threads once a part fills.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "base/log.h"
#include "floe/memory.h"
#include "io/s3_internal.h"

/* ---- output: one PUT, or a multipart upload once a part fills --------------
 *
 * Bytes collect in `buf` until a part is full.  The first full part starts
 * a multipart upload and s3.multipart.num-threads uploader threads for this
 * output; each later part is handed to them (the writer keeps filling the
 * next one meanwhile) and the writer waits only when that many parts are
 * already queued or in flight, which bounds memory to (threads + 1) parts.
 * With 0 threads, parts upload in the writer's thread.  The first failure
 * is kept; later parts are skipped, and close/abort abort the upload. */

typedef struct part_job {
    int number; /* 1-based part number */
    uint8_t *data;
    size_t len;
    struct part_job *next;
} part_job;

typedef struct s3_output {
    floe_output base;
    floe_s3_client *c;
    s3_loc loc;
    int overwrite;
    floe_buf buf;     /* bytes of the part being filled */
    char *upload_id;  /* non-NULL once multipart has started; then immutable */
    size_t nparts;    /* parts handed out so far */
    /* Shared with the uploaders, under mu once they run: */
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a job was queued or finished, or stopping */
    char **etags;      /* etags[i] for part i+1, set as parts finish */
    size_t parts_cap;
    part_job *head, *tail;
    int pending;       /* jobs queued or uploading */
    int stopping;
    floe_status failed; /* first failure */
    pthread_t *threads;
    int nthreads;
} s3_output;

#define S3_MAX_PARTS 10000

static floe_status start_multipart(s3_output *so) {
    s3_req rq = {.method = "POST", .loc = &so->loc, .query = "uploads=",
                 .content_type = "application/octet-stream", .max_body = 1 << 16};
    s3_resp rs = {0};
    floe_status st = s3_perform(so->c, &rq, &rs);
    if (!st) {
        floe_buf id = FLOE_BUF_INIT;
        int found = 0;
        const char *b = (const char *)rs.body.data;
        st = b ? s3_xml_get(b, b + rs.body.len, "UploadId", &id, &found) : NULL;
        if (!st && (!found || id.len == 0))
            st = floe_error(FLOE_ERR_IO, "%s: CreateMultipartUpload response has no UploadId",
                            so->base.path);
        if (!st) so->upload_id = (char *)floe_buf_detach(&id, NULL);
        floe_buf_free(&id);
    }
    s3_resp_free(&rs);
    return st;
}

static floe_status upload_query(const s3_output *so, int part, floe_buf *q) {
    floe_buf_clear(q);
    if (part > 0) FLOE_TRY(floe_buf_printf(q, "partNumber=%d&", part));
    FLOE_TRY(floe_buf_append_str(q, "uploadId="));
    return s3_uri_encode(q, so->upload_id, strlen(so->upload_id), 0);
}

/* UploadPart; on success *etag is a floe_malloc'd copy of the part's ETag.
 * Reads only what is immutable once the upload started. */
static floe_status put_part(s3_output *so, int part, const uint8_t *data, size_t len, char **etag) {
    *etag = NULL;
    floe_buf q = FLOE_BUF_INIT;
    floe_status st = upload_query(so, part, &q);
    s3_req rq = {.method = "PUT", .loc = &so->loc, .query = floe_buf_cstr(&q), .body = data,
                 .body_len = len, .content_type = "application/octet-stream", .max_body = 1 << 16};
    s3_resp rs = {0};
    if (!st) st = s3_perform(so->c, &rq, &rs);
    if (!st && !rs.etag[0])
        st = floe_error(FLOE_ERR_IO, "%s: UploadPart %d response has no ETag", so->base.path, part);
    if (!st && !(*etag = floe_strdup(rs.etag)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: part ETag", so->base.path);
    s3_resp_free(&rs);
    floe_buf_free(&q);
    return st ? floe_status_wrap(st, "part %d", part) : NULL;
}

/* Record the outcome of one part (caller holds mu when threads run). */
static void part_done(s3_output *so, int part, floe_status st, char *etag) {
    if (st) {
        if (!so->failed) so->failed = st;
        else floe_status_free(st);
        floe_free(etag);
    } else {
        so->etags[part - 1] = etag;
    }
}

static void *uploader_main(void *arg) {
    s3_output *so = arg;
    pthread_mutex_lock(&so->mu);
    for (;;) {
        while (!so->head && !so->stopping) pthread_cond_wait(&so->cv, &so->mu);
        part_job *job = so->head;
        if (!job) break; /* stopping, and nothing left */
        so->head = job->next;
        if (!so->head) so->tail = NULL;
        int skip = so->failed != NULL; /* after a failure the upload is doomed */
        pthread_mutex_unlock(&so->mu);
        char *etag = NULL;
        floe_status st = skip ? NULL : put_part(so, job->number, job->data, job->len, &etag);
        pthread_mutex_lock(&so->mu);
        if (!skip) part_done(so, job->number, st, etag);
        so->pending--;
        pthread_cond_broadcast(&so->cv);
        floe_free(job->data);
        floe_free(job);
    }
    pthread_mutex_unlock(&so->mu);
    return NULL;
}

static void start_uploaders(s3_output *so) {
    int want = so->c->cfg.upload_threads;
    if (want <= 0) return;
    so->threads = floe_calloc((size_t)want, sizeof *so->threads);
    if (!so->threads) return; /* upload in the writer's thread instead */
    for (int i = 0; i < want; i++) {
        if (pthread_create(&so->threads[i], NULL, uploader_main, so) != 0) break;
        so->nthreads++;
    }
}

/* Let the uploaders drain the queue and exit; join them. */
static void stop_uploaders(s3_output *so) {
    if (!so->nthreads) return;
    pthread_mutex_lock(&so->mu);
    so->stopping = 1;
    pthread_cond_broadcast(&so->cv);
    pthread_mutex_unlock(&so->mu);
    for (int i = 0; i < so->nthreads; i++) pthread_join(so->threads[i], NULL);
    so->nthreads = 0;
}

/* A copy of the first failure, or NULL. */
static floe_status output_failure(s3_output *so) {
    pthread_mutex_lock(&so->mu);
    floe_status st = so->failed ? floe_error(floe_status_code(so->failed), "%s: upload failed: %s",
                                             so->base.path, floe_status_message(so->failed))
                                : NULL;
    pthread_mutex_unlock(&so->mu);
    return st;
}

/* Hand the full (or, at close, last) part in `buf` to the uploaders. */
static floe_status submit_part(s3_output *so) {
    if (!so->upload_id) {
        FLOE_TRY(start_multipart(so));
        start_uploaders(so);
    }
    if (so->nparts >= S3_MAX_PARTS)
        return floe_error(FLOE_ERR_UNSUPPORTED,
                          "%s: more than %d parts of %zu bytes; raise s3.multipart.part-size-bytes",
                          so->base.path, S3_MAX_PARTS, so->c->cfg.part_size);
    part_job *job = floe_calloc(1, sizeof *job);
    if (!job) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: part buffer", so->base.path);
    floe_status st = NULL;
    pthread_mutex_lock(&so->mu);
    if (so->nparts == so->parts_cap) {
        size_t cap = so->parts_cap ? so->parts_cap * 2 : 16;
        char **p = floe_realloc(so->etags, cap * sizeof *p);
        if (p) {
            memset(p + so->parts_cap, 0, (cap - so->parts_cap) * sizeof *p);
            so->etags = p;
            so->parts_cap = cap;
        } else {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: part list", so->base.path);
        }
    }
    while (!st && so->nthreads && so->pending >= so->nthreads && !so->failed)
        pthread_cond_wait(&so->cv, &so->mu);
    pthread_mutex_unlock(&so->mu);
    if (!st) st = output_failure(so);
    if (st) {
        floe_free(job);
        return st;
    }
    job->number = (int)++so->nparts;
    job->len = so->buf.len;
    job->data = floe_buf_detach(&so->buf, NULL);
    if (!so->nthreads) { /* no uploader threads: upload here */
        char *etag = NULL;
        st = put_part(so, job->number, job->data, job->len, &etag);
        part_done(so, job->number, st, etag);
        floe_free(job->data);
        floe_free(job);
        return output_failure(so);
    }
    pthread_mutex_lock(&so->mu);
    if (so->tail) so->tail->next = job;
    else so->head = job;
    so->tail = job;
    so->pending++;
    pthread_cond_broadcast(&so->cv);
    pthread_mutex_unlock(&so->mu);
    return NULL;
}

static floe_status s3_write(floe_output *out, const void *data, size_t len) {
    s3_output *so = (s3_output *)out;
    FLOE_TRY(output_failure(so));
    const uint8_t *p = data;
    size_t part = so->c->cfg.part_size;
    while (len) {
        size_t take = part - so->buf.len;
        if (take > len) take = len;
        floe_status st = floe_buf_append(&so->buf, p, take);
        if (!st && so->buf.len == part) st = submit_part(so);
        if (st) {
            pthread_mutex_lock(&so->mu);
            if (!so->failed) so->failed = floe_error(floe_status_code(st), "%s", floe_status_message(st));
            pthread_mutex_unlock(&so->mu);
            return st;
        }
        p += take;
        len -= take;
        out->bytes_written += take;
    }
    return NULL;
}

static floe_status put_whole(s3_output *so) {
    s3_req rq = {.method = "PUT", .loc = &so->loc, .body = so->buf.data, .body_len = so->buf.len,
                 .content_type = "application/octet-stream", .if_none_match = !so->overwrite,
                 .max_body = 1 << 16};
    s3_resp rs = {0};
    floe_status st = s3_perform(so->c, &rq, &rs);
    s3_resp_free(&rs);
    return st;
}

/* A retried CompleteMultipartUpload answered 404 NoSuchUpload: the earlier
 * attempt may have succeeded and only its response been lost.  If the
 * object now exists with exactly our size, it did. */
static floe_status completed_after_all(s3_output *so, const s3_resp *rs, floe_status st) {
    floe_buf code = FLOE_BUF_INIT, msg = FLOE_BUF_INIT;
    s3_error_details(so->c, rs, &code, &msg);
    int no_upload = strcmp(floe_buf_cstr(&code), "NoSuchUpload") == 0;
    floe_buf_free(&code);
    floe_buf_free(&msg);
    if (!no_upload) return st;
    int64_t size = -1;
    floe_status hst = s3_head_object(so->c, &so->loc, &size);
    if (hst || size < 0 || (uint64_t)size != so->base.bytes_written) {
        floe_status_free(hst);
        return st;
    }
    S3_DEBUG("%s: completion was lost in transit but took effect", so->base.path);
    floe_status_free(st);
    return NULL;
}

static floe_status complete_multipart(s3_output *so) {
    floe_status st = so->buf.len ? submit_part(so) : NULL;
    stop_uploaders(so); /* waits for every part */
    if (st) return st;
    FLOE_TRY(output_failure(so));
    for (size_t i = 0; i < so->nparts; i++)
        if (!so->etags[i]) return floe_error(FLOE_ERR_INTERNAL, "%s: part %zu has no ETag", so->base.path, i + 1);
    floe_buf xml = FLOE_BUF_INIT, q = FLOE_BUF_INIT;
    st = floe_buf_append_str(&xml, "<CompleteMultipartUpload>");
    for (size_t i = 0; !st && i < so->nparts; i++) {
        st = floe_buf_printf(&xml, "<Part><PartNumber>%zu</PartNumber><ETag>", i + 1);
        if (!st) st = s3_xml_escape(&xml, so->etags[i]);
        if (!st) st = floe_buf_append_str(&xml, "</ETag></Part>");
    }
    if (!st) st = floe_buf_append_str(&xml, "</CompleteMultipartUpload>");
    if (!st) st = upload_query(so, 0, &q);
    if (!st) {
        s3_req rq = {.method = "POST", .loc = &so->loc, .query = floe_buf_cstr(&q),
                     .body = xml.data, .body_len = xml.len, .content_type = "application/xml",
                     .if_none_match = !so->overwrite, .max_body = 1 << 20, .errors_in_200 = 1};
        s3_resp rs = {0};
        st = s3_perform(so->c, &rq, &rs);
        if (st && rs.status == 404 && rs.attempts > 1) st = completed_after_all(so, &rs, st);
        s3_resp_free(&rs);
    }
    floe_buf_free(&xml);
    floe_buf_free(&q);
    return st;
}

static void abort_multipart(s3_output *so) {
    if (!so->upload_id) return;
    floe_buf q = FLOE_BUF_INIT;
    floe_status st = upload_query(so, 0, &q);
    if (!st) {
        s3_req rq = {.method = "DELETE", .loc = &so->loc, .query = floe_buf_cstr(&q), .max_body = 1 << 16};
        s3_resp rs = {0};
        st = s3_perform(so->c, &rq, &rs);
        s3_resp_free(&rs);
    }
    floe_buf_free(&q);
    /* Best effort: a bucket lifecycle rule reclaims what is left. */
    if (st) S3_DEBUG("abandoning multipart upload of %s: %s", so->base.path, floe_status_message(st));
    floe_status_free(st);
}

static void s3_output_free(s3_output *so) {
    stop_uploaders(so);
    for (size_t i = 0; i < so->nparts; i++) floe_free(so->etags[i]);
    floe_free(so->etags);
    floe_free(so->threads);
    floe_free(so->upload_id);
    floe_buf_free(&so->buf);
    floe_status_free(so->failed);
    pthread_cond_destroy(&so->cv);
    pthread_mutex_destroy(&so->mu);
    floe_s3_client_release(so->c);
    s3_loc_free(&so->loc);
    floe_free(so->base.path);
    floe_free(so);
}

static floe_status s3_output_close(floe_output *out) {
    s3_output *so = (s3_output *)out;
    floe_status st = NULL;
    if (so->upload_id) {
        st = complete_multipart(so); /* also reports an earlier failure */
        if (st) abort_multipart(so);
    } else if (so->failed) {
        st = floe_error(floe_status_code(so->failed), "%s: not written: %s", out->path,
                        floe_status_message(so->failed));
    } else {
        st = put_whole(so);
    }
    s3_output_free(so);
    return st;
}

static void s3_output_abort(floe_output *out) {
    s3_output *so = (s3_output *)out;
    /* Mark the upload failed so queued parts are skipped, let the parts
     * already in flight finish, then abort it. */
    pthread_mutex_lock(&so->mu);
    if (!so->failed) so->failed = floe_error(FLOE_ERR_CANCELLED, "%s: aborted", out->path);
    pthread_mutex_unlock(&so->mu);
    stop_uploaders(so);
    abort_multipart(so);
    s3_output_free(so);
}

static const floe_output_ops s3_output_ops = {s3_write, s3_output_close, s3_output_abort};

floe_status floe_s3_create_output(floe_s3_client *c, const char *location, int overwrite,
                                  floe_output **out) {
    *out = NULL;
    s3_loc l;
    FLOE_TRY(s3_loc_parse(location, 1, &l));
    if (!overwrite) {
        /* Early, friendly check; the final PUT/complete also sends
         * If-None-Match: * so a racing writer cannot be overwritten on
         * stores that honour it. */
        int exists = 0;
        floe_status st = floe_s3_exists(c, location, &exists);
        if (!st && exists) st = floe_error(FLOE_ERR_ALREADY_EXISTS, "'%s' already exists", location);
        if (st) {
            s3_loc_free(&l);
            return st;
        }
    }
    s3_output *so = floe_calloc(1, sizeof *so);
    char *p = floe_strdup(location);
    if (!so || !p) {
        floe_free(so);
        floe_free(p);
        s3_loc_free(&l);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "creating '%s'", location);
    }
    so->base.ops = &s3_output_ops;
    so->base.path = p;
    pthread_mutex_init(&so->mu, NULL);
    pthread_cond_init(&so->cv, NULL);
    so->c = s3_client_ref(c);
    so->loc = l;
    so->overwrite = overwrite;
    *out = &so->base;
    return NULL;
}

/*
 * s3_list.c — listing S3 objects under a prefix: ListObjectsV2 pages,
 * followed through their continuation tokens.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buffer.h"
#include "floe/memory.h"
#include "io/s3_internal.h"

/* ---- list ------------------------------------------------------------------------ */

static int64_t parse_iso8601_ms(const char *s) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int ms = 0;
    const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest) return -1;
    if (*rest == '.') {
        rest++;
        int digits = 0;
        while (isdigit((unsigned char)*rest)) {
            if (digits < 3) ms = ms * 10 + (*rest - '0');
            digits++;
            rest++;
        }
        while (digits++ < 3) ms *= 10;
    }
    time_t t = timegm(&tm);
    if (t == (time_t)-1) return -1;
    return (int64_t)t * 1000 + ms;
}

typedef struct list_page {
    floe_buf key, size, modified, token, truncated, location;
} list_page;

static void list_page_free(list_page *p) {
    floe_buf_free(&p->key);
    floe_buf_free(&p->size);
    floe_buf_free(&p->modified);
    floe_buf_free(&p->token);
    floe_buf_free(&p->truncated);
    floe_buf_free(&p->location);
}

/* Hand each <Contents> of one ListObjectsV2 page to `fn`; set *more and
 * leave the next continuation token in pg->token. */
static floe_status list_emit(const s3_loc *l, const floe_buf *body, list_page *pg,
                             floe_fileio_list_fn fn, void *ctx, int *more) {
    const char *b = (const char *)body->data, *e = b + body->len;
    const char *t;
    size_t tl;
    int found;
    *more = 0;
    if (!b || !s3_xml_next(b, e, "ListBucketResult", &t, &tl))
        return floe_error(FLOE_ERR_CORRUPT, "s3://%s/%s: listing response is not a ListBucketResult",
                          l->bucket, l->key);
    e = t + tl;
    const char *p = t;
    while ((p = s3_xml_next(p, e, "Contents", &t, &tl)) != NULL) {
        const char *ce = t + tl;
        FLOE_TRY(s3_xml_get(t, ce, "Key", &pg->key, &found));
        if (!found) return floe_error(FLOE_ERR_CORRUPT, "s3://%s: listed object without a Key", l->bucket);
        FLOE_TRY(s3_xml_get(t, ce, "Size", &pg->size, &found));
        char *end = NULL;
        errno = 0;
        unsigned long long sz = found ? strtoull(floe_buf_cstr(&pg->size), &end, 10) : 0;
        if (!found || !pg->size.len || *end || errno)
            return floe_error(FLOE_ERR_CORRUPT, "s3://%s/%s: listed without a valid Size", l->bucket,
                              floe_buf_cstr(&pg->key));
        FLOE_TRY(s3_xml_get(t, ce, "LastModified", &pg->modified, &found));
        floe_buf_clear(&pg->location);
        FLOE_TRY(floe_buf_printf(&pg->location, "%s://%s/%s", l->scheme, l->bucket, floe_buf_cstr(&pg->key)));
        floe_file_info info = {floe_buf_cstr(&pg->location), sz,
                               found ? parse_iso8601_ms(floe_buf_cstr(&pg->modified)) : -1};
        FLOE_TRY(fn(ctx, &info));
    }
    FLOE_TRY(s3_xml_get(b, (const char *)body->data + body->len, "IsTruncated", &pg->truncated, &found));
    if (found && strcmp(floe_buf_cstr(&pg->truncated), "true") == 0) {
        floe_buf prev = pg->token;
        floe_buf_init(&pg->token);
        floe_status st = s3_xml_get(b, (const char *)body->data + body->len, "NextContinuationToken",
                                 &pg->token, &found);
        if (!st && (!found || !pg->token.len ||
                    (prev.len == pg->token.len && memcmp(prev.data, pg->token.data, prev.len) == 0)))
            st = floe_error(FLOE_ERR_CORRUPT,
                            "s3://%s/%s: truncated listing without a new continuation token",
                            l->bucket, l->key);
        floe_buf_free(&prev);
        FLOE_TRY(st);
        *more = 1;
    }
    return NULL;
}

floe_status floe_s3_list(floe_s3_client *c, const char *prefix, floe_fileio_list_fn fn, void *ctx) {
    s3_loc l;
    FLOE_TRY(s3_loc_parse(prefix, 0, &l));
    list_page pg;
    memset(&pg, 0, sizeof pg);
    floe_buf q = FLOE_BUF_INIT;
    floe_status st = NULL;
    for (int more = 1; more && !st;) {
        /* Canonical order: continuation-token, list-type, max-keys, prefix. */
        floe_buf_clear(&q);
        if (pg.token.len) {
            st = floe_buf_append_str(&q, "continuation-token=");
            if (!st) st = s3_uri_encode(&q, (const char *)pg.token.data, pg.token.len, 0);
            if (!st) st = floe_buf_append_byte(&q, '&');
        }
        if (!st) st = floe_buf_printf(&q, "list-type=2&max-keys=%d&prefix=", c->cfg.list_max_keys);
        if (!st) st = s3_uri_encode(&q, l.key, strlen(l.key), 0);
        if (st) break;
        s3_req rq = {.method = "GET", .loc = &l, .bucket_level = 1, .query = floe_buf_cstr(&q),
                     .max_body = 64 << 20};
        s3_resp rs = {0};
        st = s3_perform(c, &rq, &rs);
        if (!st) st = list_emit(&l, &rs.body, &pg, fn, ctx, &more);
        s3_resp_free(&rs);
    }
    floe_buf_free(&q);
    list_page_free(&pg);
    s3_loc_free(&l);
    return st;
}

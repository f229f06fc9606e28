/*
 * io_props.c — FileIO properties as parts of Iceberg plan nodes
 * (io_props.h).
 */
#include <string.h>

#include "base/buffer.h"
#include "base/redact.h"
#include "exec/io_props.h"

/* Property lists are short (a dozen S3 settings); more is corrupt input. */
#define MAX_IO_PROPS 4096

static void zero_free(const char *s) {
    if (!s) return;
    memset((char *)s, 0, strlen(s));
    floe_free((char *)s);
}

void floe_exec_io_props_free(floe_property *p, size_t n) {
    if (!p) return;
    for (size_t i = 0; i < n; i++) {
        zero_free(p[i].key);
        zero_free(p[i].value);
    }
    floe_free(p);
}

floe_status floe_exec_io_props_copy(const floe_property *src, size_t n, floe_property **out) {
    *out = NULL;
    if (!n) return NULL;
    if (!src) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%zu FileIO properties given as NULL", n);
    floe_property *p = floe_calloc(n, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "copying FileIO properties");
    for (size_t i = 0; i < n; i++) {
        if (!src[i].key || !src[i].value) {
            floe_exec_io_props_free(p, n);
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "FileIO property %zu has no key or no value", i);
        }
        p[i].key = floe_strdup(src[i].key);
        p[i].value = floe_strdup(src[i].value);
        if (!p[i].key || !p[i].value) {
            floe_exec_io_props_free(p, n);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "copying FileIO properties");
        }
    }
    *out = p;
    return NULL;
}

bool floe_exec_io_props_equal(const floe_property *a, size_t na, const floe_property *b, size_t nb) {
    if (na != nb) return false;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i].key, b[i].key) != 0 || strcmp(a[i].value, b[i].value) != 0) return false;
    return true;
}

floe_status floe_exec_io_props_encode(floe_buf *out, const floe_property *p, size_t n) {
    FLOE_TRY(floe_codec_put_i64(out, (int64_t)n));
    for (size_t i = 0; i < n; i++) {
        FLOE_TRY(floe_codec_put_str(out, p[i].key));
        FLOE_TRY(floe_codec_put_str(out, p[i].value));
    }
    return NULL;
}

floe_status floe_exec_io_props_decode(floe_reader *r, floe_property **out, size_t *n) {
    *out = NULL;
    *n = 0;
    int64_t count;
    size_t at = r->pos;
    FLOE_TRY(floe_codec_get_i64(r, &count));
    /* each property needs at least two 8-byte string lengths */
    if (count < 0 || count > MAX_IO_PROPS || (uint64_t)count * 16 > r->len - r->pos)
        return floe_error(FLOE_ERR_CORRUPT, "plan offset %zu: %lld FileIO properties is impossible", at,
                          (long long)count);
    if (!count) return NULL;
    floe_property *p = floe_calloc((size_t)count, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding FileIO properties");
    floe_status st = NULL;
    for (int64_t i = 0; i < count && !st; i++) {
        st = floe_codec_get_str(r, (char **)&p[i].key);
        if (!st) st = floe_codec_get_str(r, (char **)&p[i].value);
        if (!st && (!p[i].key || !p[i].value))
            st = floe_error(FLOE_ERR_CORRUPT, "plan offset %zu: FileIO property %lld without a key or value", r->pos,
                            (long long)i);
    }
    if (st) {
        floe_exec_io_props_free(p, (size_t)count);
        return st;
    }
    *out = p;
    *n = (size_t)count;
    return NULL;
}

floe_status floe_exec_io_props_explain(floe_buf *out, const floe_property *p, size_t n) {
    if (!n) return NULL;
    const char **keys = floe_calloc(n, sizeof *keys), **vals = floe_calloc(n, sizeof *vals);
    floe_status st = keys && vals ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "printing FileIO properties");
    for (size_t i = 0; !st && i < n; i++) {
        keys[i] = p[i].key;
        vals[i] = p[i].value;
    }
    if (!st) st = floe_buf_append_str(out, ", io=[");
    if (!st) st = floe_redact_kv_list(out, keys, vals, n);
    if (!st) st = floe_buf_append_str(out, "]");
    floe_free(keys);
    floe_free(vals);
    return st;
}

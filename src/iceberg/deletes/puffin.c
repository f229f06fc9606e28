/*
 * puffin.c — Puffin files: reading the footer and blobs, and writing.
 *
 * Layout: "PFA1" blob* footer, footer = "PFA1" payload payload_size(int32
 * LE) flags(4 bytes) "PFA1".  Flag byte 0 bit 0 says the JSON payload is an
 * LZ4 frame.  Unknown flag bits are ignored, unknown blob types and extra
 * JSON keys are tolerated (readers skip what they don't use).  Blob ranges
 * are checked to lie between the leading magic and the footer.
 */
#include <lz4frame.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "floe/iceberg_deletes.h"
#include "floe/memory.h"
#include "base/buffer.h"
#include "formats/compress.h"

static const uint8_t MAGIC[4] = {0x50, 0x46, 0x41, 0x31}; /* "PFA1" */
#define FOOTER_TAIL 12                                 /* size + flags + magic */

struct floe_ice_puffin_private {
    json_t *root;            /* strings of the metadata point into it */
    floe_ice_puffin_blob *blobs;
    const char **file_props; /* keys then values */
    uint64_t file_size;
    uint64_t blobs_end;      /* where the footer starts */
};

/* ---- LZ4 frames (Puffin's "lz4"; not the Parquet flavours) ---- */

static floe_status lz4_frame_decompress(const uint8_t *src, size_t len, floe_buf *out) {
    LZ4F_dctx *dctx;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "lz4 frame context");
    size_t in_off = 0;
    size_t hint = 1;
    floe_status st = NULL;
    while (hint != 0) {
        if (in_off >= len) {
            st = floe_error(FLOE_ERR_CORRUPT, "lz4 frame: truncated after %zu bytes", len);
            break;
        }
        uint8_t *dst = floe_buf_extend(out, 65536);
        if (!dst) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "lz4 frame output");
            break;
        }
        size_t dst_len = 65536, src_len = len - in_off;
        hint = LZ4F_decompress(dctx, dst, &dst_len, src + in_off, &src_len, NULL);
        out->len -= 65536 - dst_len;
        if (LZ4F_isError(hint)) {
            st = floe_error(FLOE_ERR_CORRUPT, "lz4 frame: %s at input byte %zu", LZ4F_getErrorName(hint), in_off);
            break;
        }
        in_off += src_len;
        if (src_len == 0 && dst_len == 0 && hint != 0) { /* no progress: never loop forever */
            st = floe_error(FLOE_ERR_CORRUPT, "lz4 frame: stuck at input byte %zu", in_off);
            break;
        }
    }
    LZ4F_freeDecompressionContext(dctx);
    return st;
}

static floe_status lz4_frame_compress(const uint8_t *src, size_t len, floe_buf *out) {
    size_t bound = LZ4F_compressFrameBound(len, NULL);
    uint8_t *dst = floe_buf_extend(out, bound);
    if (!dst) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "lz4 frame output");
    size_t n = LZ4F_compressFrame(dst, bound, src, len, NULL);
    if (LZ4F_isError(n)) {
        out->len -= bound;
        return floe_error(FLOE_ERR_INTERNAL, "lz4 frame: %s", LZ4F_getErrorName(n));
    }
    out->len -= bound - n;
    return NULL;
}

/* ---- reading ----------------------------------------------------------------- */

static floe_status get_int(json_t *o, const char *key, bool required, int64_t *out, const char *path, size_t i) {
    json_t *j = json_object_get(o, key);
    if (!j || json_is_null(j)) {
        if (required) return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': blob %zu has no '%s'", path, i, key);
        *out = -1;
        return NULL;
    }
    if (!json_is_integer(j))
        return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': blob %zu: '%s' is not an integer", path, i, key);
    *out = json_integer_value(j);
    return NULL;
}

/* Properties object -> parallel key/value arrays (one allocation). */
static floe_status get_props(json_t *o, const char *path, const char ***kv, int32_t *n) {
    *kv = NULL;
    *n = 0;
    json_t *p = json_object_get(o, "properties");
    if (!p || json_is_null(p)) return NULL;
    if (!json_is_object(p)) return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': 'properties' is not an object", path);
    size_t m = json_object_size(p);
    const char **a = floe_calloc(2 * m + 1, sizeof(char *));
    if (!a) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "puffin properties");
    const char *k;
    json_t *v;
    size_t i = 0;
    json_object_foreach(p, k, v) {
        if (!json_is_string(v)) {
            floe_free(a);
            return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': property '%s' is not a string", path, k);
        }
        a[i] = k;
        a[m + i] = json_string_value(v);
        i++;
    }
    *kv = a;
    *n = (int32_t)m;
    return NULL;
}

static floe_status parse_blob(json_t *b, size_t i, struct floe_ice_puffin_private *pv, const char *path,
                              floe_ice_puffin_blob *out) {
    if (!json_is_object(b)) return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': blob %zu is not an object", path, i);
    json_t *t = json_object_get(b, "type");
    if (!json_is_string(t)) return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': blob %zu has no string 'type'", path, i);
    out->type = json_string_value(t);
    json_t *f = json_object_get(b, "fields");
    if (f && !json_is_null(f)) {
        if (!json_is_array(f)) return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': blob %zu: 'fields' is not a list", path, i);
        size_t m = json_array_size(f);
        int32_t *ids = floe_calloc(m + 1, sizeof(int32_t));
        if (!ids) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "puffin fields");
        out->fields = ids;
        for (size_t k = 0; k < m; k++) {
            json_t *e = json_array_get(f, k);
            if (!json_is_integer(e) || json_integer_value(e) < INT32_MIN || json_integer_value(e) > INT32_MAX)
                return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': blob %zu: field %zu is not an int", path, i, k);
            ids[k] = (int32_t)json_integer_value(e);
        }
        out->n_fields = (int32_t)m;
    }
    FLOE_TRY(get_int(b, "snapshot-id", false, &out->snapshot_id, path, i));
    FLOE_TRY(get_int(b, "sequence-number", false, &out->sequence_number, path, i));
    FLOE_TRY(get_int(b, "offset", true, &out->offset, path, i));
    FLOE_TRY(get_int(b, "length", true, &out->length, path, i));
    if (out->offset < 4 || out->length < 0 || (uint64_t)out->offset > pv->blobs_end ||
        (uint64_t)out->length > pv->blobs_end - (uint64_t)out->offset)
        return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': blob %zu range [%lld, +%lld) is outside the blob area [4, %llu)",
                          path, i, (long long)out->offset, (long long)out->length, (unsigned long long)pv->blobs_end);
    json_t *c = json_object_get(b, "compression-codec");
    if (c && !json_is_null(c)) {
        if (!json_is_string(c))
            return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': blob %zu: 'compression-codec' is not a string", path, i);
        out->compression_codec = json_string_value(c);
    }
    const char **kv;
    FLOE_TRY(get_props(b, path, &kv, &out->n_properties));
    if (kv) {
        out->property_keys = kv;
        out->property_values = kv + out->n_properties;
    }
    return NULL;
}

void floe_ice_puffin_free(floe_ice_puffin *p) {
    if (!p) return;
    struct floe_ice_puffin_private *pv = p->priv;
    if (pv) {
        for (int32_t i = 0; i < p->n_blobs; i++) {
            floe_free((void *)pv->blobs[i].fields);
            floe_free((void *)pv->blobs[i].property_keys);
        }
        floe_free(pv->blobs);
        floe_free(pv->file_props);
        if (pv->root) json_decref(pv->root);
        floe_free(pv);
    }
    floe_free(p);
}

static floe_status parse_footer(floe_ice_puffin *p, const uint8_t *json, size_t len, const char *path) {
    struct floe_ice_puffin_private *pv = p->priv;
    json_error_t je;
    pv->root = json_loadb((const char *)json, len, 0, &je);
    if (!pv->root)
        return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': footer JSON: %s (at payload byte %d)", path, je.text,
                          je.position);
    if (!json_is_object(pv->root)) return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': footer is not a JSON object", path);
    json_t *blobs = json_object_get(pv->root, "blobs");
    if (!json_is_array(blobs)) return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': footer has no 'blobs' list", path);
    size_t n = json_array_size(blobs);
    pv->blobs = floe_calloc(n + 1, sizeof(floe_ice_puffin_blob));
    if (!pv->blobs) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "puffin blobs");
    p->blobs = pv->blobs;
    for (size_t i = 0; i < n; i++) {
        p->n_blobs = (int32_t)(i + 1); /* so free() sees what was allocated */
        FLOE_TRY(parse_blob(json_array_get(blobs, i), i, pv, path, &pv->blobs[i]));
    }
    FLOE_TRY(get_props(pv->root, path, &pv->file_props, &p->n_properties));
    if (pv->file_props) {
        p->property_keys = pv->file_props;
        p->property_values = pv->file_props + p->n_properties;
    }
    return NULL;
}

floe_status floe_ice_puffin_open(floe_input *in, floe_ice_puffin **out) {
    *out = NULL;
    const char *path = in->path ? in->path : "?";
    uint64_t size = in->size;
    if (size < 4 + 4 + FOOTER_TAIL)
        return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': %llu bytes is too short for a Puffin file", path,
                          (unsigned long long)size);
    uint8_t head[4], tail[FOOTER_TAIL];
    FLOE_TRY(floe_input_read(in, 0, 4, head));
    FLOE_TRY(floe_input_read(in, size - FOOTER_TAIL, FOOTER_TAIL, tail));
    if (memcmp(head, MAGIC, 4) != 0)
        return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': no PFA1 magic at byte 0", path);
    if (memcmp(tail + 8, MAGIC, 4) != 0)
        return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': no PFA1 magic at byte %llu (end of footer)", path,
                          (unsigned long long)(size - 4));
    uint32_t plen = (uint32_t)tail[0] | ((uint32_t)tail[1] << 8) | ((uint32_t)tail[2] << 16) | ((uint32_t)tail[3] << 24);
    if (plen > INT32_MAX || (uint64_t)plen > size - 4 - 4 - FOOTER_TAIL)
        return floe_error(FLOE_ERR_CORRUPT, "puffin '%s': footer payload size %u does not fit in %llu bytes", path, plen,
                          (unsigned long long)size);
    uint64_t fstart = size - FOOTER_TAIL - plen - 4;
    bool compressed = tail[4] & 1;
    floe_ice_puffin *p = floe_calloc(1, sizeof(*p));
    struct floe_ice_puffin_private *pv = floe_calloc(1, sizeof(*pv));
    uint8_t *payload = floe_malloc(plen + 4 + 1);
    floe_buf dec;
    floe_buf_init(&dec);
    floe_status st = NULL;
    if (!p || !pv || !payload) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "puffin footer");
        goto done;
    }
    p->priv = pv;
    pv->file_size = size;
    pv->blobs_end = fstart;
    st = floe_input_read(in, fstart, plen + 4, payload);
    if (st) goto done;
    if (memcmp(payload, MAGIC, 4) != 0) {
        st = floe_error(FLOE_ERR_CORRUPT, "puffin '%s': no PFA1 magic at byte %llu (start of footer)", path,
                        (unsigned long long)fstart);
        goto done;
    }
    const uint8_t *json = payload + 4;
    size_t jlen = plen;
    if (compressed) {
        st = floe_status_wrap(lz4_frame_decompress(payload + 4, plen, &dec), "puffin '%s': footer payload", path);
        if (st) goto done;
        json = dec.data;
        jlen = dec.len;
    }
    st = parse_footer(p, json, jlen, path);
done:
    floe_free(payload);
    floe_buf_free(&dec);
    if (st) {
        if (!p || !p->priv) floe_free(pv);
        floe_ice_puffin_free(p);
        return st;
    }
    *out = p;
    return NULL;
}

const char *floe_ice_puffin_blob_property(const floe_ice_puffin_blob *b, const char *key) {
    for (int32_t i = 0; i < b->n_properties; i++)
        if (strcmp(b->property_keys[i], key) == 0) return b->property_values[i];
    return NULL;
}

floe_status floe_ice_puffin_read_blob(const floe_ice_puffin *p, floe_input *in, int32_t i, uint8_t **data,
                                      size_t *len) {
    *data = NULL;
    *len = 0;
    const char *path = in->path ? in->path : "?";
    if (i < 0 || i >= p->n_blobs)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "puffin '%s': no blob %d (%d blobs)", path, i, p->n_blobs);
    const floe_ice_puffin_blob *b = &p->blobs[i];
    size_t n = (size_t)b->length;
    uint8_t *raw = floe_malloc(n ? n : 1);
    if (!raw) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "puffin blob of %zu bytes", n);
    floe_status st = floe_input_read(in, (uint64_t)b->offset, n, raw);
    if (st) {
        floe_free(raw);
        return floe_status_wrap(st, "puffin '%s': blob %d", path, i);
    }
    const char *codec = b->compression_codec;
    if (!codec) {
        *data = raw;
        *len = n;
        return NULL;
    }
    floe_buf out;
    floe_buf_init(&out);
    if (strcmp(codec, "zstd") == 0)
        st = floe_decompress_grow(FLOE_CODEC_ZSTD, raw, n, &out);
    else if (strcmp(codec, "lz4") == 0)
        st = lz4_frame_decompress(raw, n, &out);
    else
        st = floe_error(FLOE_ERR_UNSUPPORTED, "compression codec '%s'", codec);
    floe_free(raw);
    if (st) {
        floe_buf_free(&out);
        return floe_status_wrap(st, "puffin '%s': blob %d at byte %lld", path, i, (long long)b->offset);
    }
    size_t olen;
    uint8_t *d = floe_buf_detach(&out, &olen);
    if (!d) d = floe_malloc(1);
    if (!d) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "puffin blob");
    *data = d;
    *len = olen;
    return NULL;
}

/* ---- writing ------------------------------------------------------------------- */

struct floe_ice_puffin_writer {
    floe_output *out;
    uint64_t pos;
    json_t *blobs;
};

floe_status floe_ice_puffin_writer_open(floe_output *out, floe_ice_puffin_writer **w) {
    *w = NULL;
    floe_ice_puffin_writer *x = floe_calloc(1, sizeof(*x));
    if (!x) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "puffin writer");
    x->out = out;
    x->blobs = json_array();
    floe_status st = x->blobs ? floe_output_write(out, MAGIC, 4) : floe_error(FLOE_ERR_OUT_OF_MEMORY, "puffin writer");
    if (st) {
        floe_ice_puffin_writer_abort(x);
        return st;
    }
    x->pos = 4;
    *w = x;
    return NULL;
}

void floe_ice_puffin_writer_abort(floe_ice_puffin_writer *w) {
    if (!w) return;
    if (w->blobs) json_decref(w->blobs);
    floe_free(w);
}

static floe_status blob_json(const floe_ice_puffin_blob_spec *s, uint64_t off, size_t len, json_t **out) {
    json_t *b = json_object(), *f = json_array(), *props = NULL;
    if (!b || !f) goto oom;
    json_object_set_new(b, "type", json_string(s->type));
    for (int32_t i = 0; i < s->n_fields; i++) json_array_append_new(f, json_integer(s->fields[i]));
    json_object_set_new(b, "fields", f);
    f = NULL;
    json_object_set_new(b, "snapshot-id", json_integer(s->snapshot_id));
    json_object_set_new(b, "sequence-number", json_integer(s->sequence_number));
    json_object_set_new(b, "offset", json_integer((json_int_t)off));
    json_object_set_new(b, "length", json_integer((json_int_t)len));
    if (s->compression_codec) json_object_set_new(b, "compression-codec", json_string(s->compression_codec));
    if (s->n_properties > 0) {
        props = json_object();
        if (!props) goto oom;
        for (int32_t i = 0; i < s->n_properties; i++)
            json_object_set_new(props, s->property_keys[i], json_string(s->property_values[i]));
        json_object_set_new(b, "properties", props);
    }
    *out = b;
    return NULL;
oom:
    if (b) json_decref(b);
    if (f) json_decref(f);
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "puffin blob metadata");
}

floe_status floe_ice_puffin_writer_add(floe_ice_puffin_writer *w, const floe_ice_puffin_blob_spec *spec,
                                       const uint8_t *data, size_t len, int64_t *offset, int64_t *length) {
    floe_buf comp;
    floe_buf_init(&comp);
    const uint8_t *bytes = data;
    size_t n = len;
    floe_status st = NULL;
    if (spec->compression_codec) {
        if (strcmp(spec->compression_codec, "zstd") == 0)
            st = floe_compress(FLOE_CODEC_ZSTD, 0, data, len, &comp);
        else if (strcmp(spec->compression_codec, "lz4") == 0)
            st = lz4_frame_compress(data, len, &comp);
        else
            st = floe_error(FLOE_ERR_UNSUPPORTED, "puffin: compression codec '%s'", spec->compression_codec);
        bytes = comp.data;
        n = comp.len;
    }
    json_t *b = NULL;
    if (!st) st = blob_json(spec, w->pos, n, &b);
    if (!st) st = floe_output_write(w->out, bytes, n);
    floe_buf_free(&comp);
    if (st) {
        if (b) json_decref(b);
        return st;
    }
    json_array_append_new(w->blobs, b);
    if (offset) *offset = (int64_t)w->pos;
    if (length) *length = (int64_t)n;
    w->pos += n;
    return NULL;
}

floe_status floe_ice_puffin_writer_finish(floe_ice_puffin_writer *w, bool compress_footer) {
    json_t *root = json_object();
    floe_status st = NULL;
    char *text = NULL;
    floe_buf foot;
    floe_buf_init(&foot);
    if (!root) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "puffin footer");
        goto done;
    }
    json_object_set(root, "blobs", w->blobs);
    text = json_dumps(root, JSON_COMPACT);
    if (!text) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "puffin footer");
        goto done;
    }
    st = floe_buf_append(&foot, MAGIC, 4);
    size_t before = foot.len;
    if (!st) {
        if (compress_footer)
            st = lz4_frame_compress((const uint8_t *)text, strlen(text), &foot);
        else
            st = floe_buf_append(&foot, text, strlen(text));
    }
    if (!st) {
        uint32_t plen = (uint32_t)(foot.len - before);
        uint8_t tail[FOOTER_TAIL] = {(uint8_t)plen, (uint8_t)(plen >> 8), (uint8_t)(plen >> 16), (uint8_t)(plen >> 24),
                                     compress_footer ? 1 : 0, 0, 0, 0, 0x50, 0x46, 0x41, 0x31};
        st = floe_buf_append(&foot, tail, FOOTER_TAIL);
    }
    if (!st) st = floe_output_write(w->out, foot.data, foot.len);
done:
    free(text);
    if (root) json_decref(root);
    floe_buf_free(&foot);
    floe_ice_puffin_writer_abort(w);
    return st;
}

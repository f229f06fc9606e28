/*
 * arrow_stream.c — the Arrow C Stream Interface over floe batches (see
 * include/floe/arrow_c.h).
 *
 * Export wraps a floe_batch_source: get_next pulls one batch and exports it
 * as a struct array.  Import wraps a producer's stream: each get_next result
 * is imported zero-copy with floe_arrow_import_batch's machinery.  Errors
 * cross the boundary as errno codes plus a message kept in the stream.
 */
#include <errno.h>
#include <string.h>

#include "floe/arrow_c.h"
#include "floe/memory.h"

/* ================================================================ export */

typedef struct {
    floe_schema *schema;
    floe_batch_source src;
    char *last_error;
} stream_priv;

static int errno_for(floe_status st) {
    switch (floe_status_code(st)) {
    case FLOE_ERR_OUT_OF_MEMORY: return ENOMEM;
    case FLOE_ERR_IO:
    case FLOE_ERR_CORRUPT: return EIO;
    default: return EINVAL;
    }
}

/* Remember the error's message for get_last_error and return its errno. */
static int fail(stream_priv *p, floe_status st) {
    int code = errno_for(st);
    floe_free(p->last_error);
    p->last_error = floe_strdup(floe_status_message(st));
    floe_status_free(st);
    return code;
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
    stream_priv *p = s->private_data;
    floe_status st = floe_arrow_export_schema(p->schema, out);
    return st ? fail(p, st) : 0;
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
    stream_priv *p = s->private_data;
    memset(out, 0, sizeof *out);
    floe_batch *b = NULL;
    floe_status st = p->src.next(p->src.ctx, &b);
    if (st) return fail(p, st);
    if (!b) return 0; /* end of stream: out->release stays NULL */
    if (!floe_type_compatible(b->schema, p->schema)) {
        floe_batch_release(b);
        return fail(p, floe_error(FLOE_ERR_TYPE, "a batch's schema does not match the stream's"));
    }
    floe_array *sa;
    st = floe_batch_to_struct(b, &sa);
    floe_batch_release(b);
    if (st) return fail(p, st);
    /* Export under the stream's schema type so field names match. */
    floe_array *view;
    st = floe_array_new(p->schema, sa->length, 0, 0, NULL, NULL, 0, sa->children, sa->n_children, &view);
    floe_array_release(sa);
    if (st) return fail(p, st);
    st = floe_arrow_export_array(view, out);
    floe_array_release(view);
    return st ? fail(p, st) : 0;
}

static const char *stream_last_error(struct ArrowArrayStream *s) {
    stream_priv *p = s->private_data;
    return p->last_error;
}

static void stream_release(struct ArrowArrayStream *s) {
    if (!s || !s->release) return;
    stream_priv *p = s->private_data;
    if (p->src.close) p->src.close(p->src.ctx);
    floe_type_release(p->schema);
    floe_free(p->last_error);
    floe_free(p);
    s->release = NULL;
    s->private_data = NULL;
}

floe_status floe_arrow_export_stream(floe_schema *schema, floe_batch_source source,
                                     struct ArrowArrayStream *out) {
    memset(out, 0, sizeof *out);
    if (!schema || schema->id != FLOE_TYPE_STRUCT || !source.next)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a stream needs a struct schema and a batch source");
    stream_priv *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory exporting a stream");
    p->schema = floe_type_retain(schema);
    p->src = source;
    out->get_schema = stream_get_schema;
    out->get_next = stream_get_next;
    out->get_last_error = stream_last_error;
    out->release = stream_release;
    out->private_data = p;
    return NULL;
}

/* ================================================================ import */

struct floe_arrow_stream_reader {
    struct ArrowArrayStream stream;
    floe_schema *schema;
};

static floe_status stream_error(struct ArrowArrayStream *s, int code, const char *what) {
    const char *msg = s->get_last_error ? s->get_last_error(s) : NULL;
    return floe_error(code == ENOMEM ? FLOE_ERR_OUT_OF_MEMORY : FLOE_ERR_IO, "Arrow stream %s failed: %s", what,
                      msg ? msg : strerror(code));
}

floe_status floe_arrow_stream_open(struct ArrowArrayStream *in, floe_arrow_stream_reader **out) {
    *out = NULL;
    if (!in || !in->release) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Arrow stream is already released");
    floe_arrow_stream_reader *r = floe_calloc(1, sizeof *r);
    if (!r) {
        in->release(in);
        in->release = NULL;
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory opening an Arrow stream");
    }
    r->stream = *in; /* move */
    in->release = NULL;
    struct ArrowSchema sch;
    memset(&sch, 0, sizeof sch);
    floe_status st = NULL;
    if (!r->stream.get_schema || !r->stream.get_next) {
        st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "Arrow stream lacks callbacks");
    } else {
        int rc = r->stream.get_schema(&r->stream, &sch);
        if (rc) st = stream_error(&r->stream, rc, "get_schema");
        else st = floe_arrow_import_schema(&sch, &r->schema);
    }
    if (st) {
        floe_arrow_stream_close(r);
        return st;
    }
    *out = r;
    return NULL;
}

const floe_schema *floe_arrow_stream_schema(const floe_arrow_stream_reader *r) { return r->schema; }

floe_status floe_arrow_stream_next(floe_arrow_stream_reader *r, floe_batch **out) {
    *out = NULL;
    struct ArrowArray arr;
    memset(&arr, 0, sizeof arr);
    int rc = r->stream.get_next(&r->stream, &arr);
    if (rc) return stream_error(&r->stream, rc, "get_next");
    if (!arr.release) return NULL; /* end */
    floe_array *sa;
    FLOE_TRY(floe_arrow_import_array(&arr, r->schema, &sa));
    floe_status st = floe_batch_from_struct(sa, out);
    floe_array_release(sa);
    return st;
}

void floe_arrow_stream_close(floe_arrow_stream_reader *r) {
    if (!r) return;
    if (r->stream.release) r->stream.release(&r->stream);
    floe_type_release(r->schema);
    floe_free(r);
}

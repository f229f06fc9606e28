/*
 * messages.c — the encode/decode of every message of the MPI runtime
 * (the layouts are listed in messages.h).  Pure byte work, no MPI: the
 * transport (transport.c) moves what these produce, and the unit test
 * (tests/unit/dist/test_messages.c) round-trips each kind without MPI.
 */
#include "dist/messages.h"

#include <string.h>

#include "dist/dist_internal.h"
#include "floe/exec.h"
#include "floe/memory.h"

/* The last code of floe_code (include/floe/status.h): an ERROR carrying a
 * larger one, or FLOE_OK, is decoded as FLOE_ERR_INTERNAL. */
#define LAST_CODE FLOE_ERR_COMMIT_UNKNOWN

/* The fixed heads, in numbers. */
#define OUT_HEAD 3
#define DONE_HEAD 8
#define ERROR_HEAD 3
#define FETCH_HEAD 4
#define DATA_HEAD 2
#define FETCH_END_HEAD 3
#define STREAM_HEAD 5
#define CREDIT_HEAD 5
#define CHECKED_HEAD 2

_Static_assert(DIST_MSG_STREAM_HEAD == 8 * STREAM_HEAD, "DIST_MSG_STREAM_HEAD is the STREAM head's bytes");

static void put64(uint8_t *p, int64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

static int64_t get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return (int64_t)v;
}

const char *dist_msg_name(int tag) {
    switch (tag) {
    case DIST_MSG_TASK: return "TASK";
    case DIST_MSG_OUT: return "OUT";
    case DIST_MSG_DONE: return "DONE";
    case DIST_MSG_ERROR: return "ERROR";
    case DIST_MSG_CANCEL: return "CANCEL";
    case DIST_MSG_STOP: return "STOP";
    case DIST_MSG_BYE: return "BYE";
    case DIST_MSG_HEARTBEAT: return "HEARTBEAT";
    case DIST_MSG_FETCH: return "FETCH";
    case DIST_MSG_DATA: return "DATA";
    case DIST_MSG_FETCH_END: return "FETCH_END";
    case DIST_MSG_STREAM: return "STREAM";
    case DIST_MSG_CREDIT: return "CREDIT";
    case DIST_MSG_CHECK: return "CHECK";
    case DIST_MSG_CHECKED: return "CHECKED";
    default: return "?";
    }
}

/* A message of `n` head numbers followed by `tail` bytes (may be NULL). */
static floe_status make(int tag, const int64_t *head, int n, const void *tail, size_t tail_len, uint8_t **buf,
                        size_t *len) {
    *buf = NULL;
    *len = 0;
    size_t total = (size_t)n * 8 + tail_len;
    uint8_t *b = floe_malloc(total ? total : 1);
    if (!b) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "encoding a %s message (%zu bytes)", dist_msg_name(tag), total);
    for (int i = 0; i < n; i++) put64(b + 8 * i, head[i]);
    if (tail_len) memcpy(b + 8 * n, tail, tail_len);
    *buf = b;
    *len = total;
    return NULL;
}

/* Read the `n` head numbers of a message, which must have them. */
static floe_status head_get(int tag, const uint8_t *buf, size_t len, int64_t *head, int n) {
    if (len < (size_t)n * 8)
        return floe_error(FLOE_ERR_CORRUPT, "%s message of %zu bytes (at least %d expected)", dist_msg_name(tag), len,
                          8 * n);
    for (int i = 0; i < n; i++) head[i] = get64(buf + 8 * i);
    return NULL;
}

static floe_status int32_field(int tag, const char *what, int64_t v, int32_t *out) {
    if (v < 0 || v > INT32_MAX)
        return floe_error(FLOE_ERR_CORRUPT, "%s message: %s %lld out of range", dist_msg_name(tag), what,
                          (long long)v);
    *out = (int32_t)v;
    return NULL;
}

uint8_t *dist_msg_blob_in_place(uint8_t *buf, const uint8_t *blob, size_t blob_len) {
    if (blob_len) memmove(buf, blob, blob_len);
    return buf;
}

/* ------------------------------------------------------------------ TASK */

void dist_msg_task_ids(const uint8_t *buf, size_t len, int64_t *query, int64_t *task) {
    /* task.c's head: "FLOETASK", version, query id, task id, ... */
    *query = len >= 32 ? get64(buf + 16) : -1;
    *task = len >= 32 ? get64(buf + 24) : -1;
}

/* ------------------------------------------------------------------- OUT */

floe_status dist_msg_out_encode(const dist_msg_out *m, uint8_t **buf, size_t *len) {
    const int64_t head[OUT_HEAD] = {m->query, m->task, m->bucket};
    return make(DIST_MSG_OUT, head, OUT_HEAD, m->blob, m->blob_len, buf, len);
}

floe_status dist_msg_out_decode(const uint8_t *buf, size_t len, dist_msg_out *m) {
    int64_t h[OUT_HEAD];
    FLOE_TRY(head_get(DIST_MSG_OUT, buf, len, h, OUT_HEAD));
    m->query = h[0];
    m->task = h[1];
    m->bucket = h[2];
    m->blob = buf + 8 * OUT_HEAD;
    m->blob_len = len - 8 * OUT_HEAD;
    return NULL;
}

/* ------------------------------------------------------------------ DONE */

floe_status dist_msg_done_put(const dist_msg_done *m, floe_buf *out) {
    const int64_t head[DONE_HEAD] = {m->query,   m->task,       m->rows,       m->bytes,
                                     m->batches, m->elapsed_us, m->peak_xbytes, m->waited_us};
    for (int i = 0; i < DONE_HEAD; i++) FLOE_TRY(floe_codec_put_i64(out, head[i]));
    return NULL;
}

floe_status dist_msg_done_decode(const uint8_t *buf, size_t len, dist_msg_done *m) {
    int64_t h[DONE_HEAD];
    FLOE_TRY(head_get(DIST_MSG_DONE, buf, len, h, DONE_HEAD));
    m->query = h[0];
    m->task = h[1];
    m->rows = h[2];
    m->bytes = h[3];
    m->batches = h[4];
    m->elapsed_us = h[5];
    m->peak_xbytes = h[6];
    m->waited_us = h[7];
    m->node_stats_len = len - 8 * DONE_HEAD;
    m->node_stats = m->node_stats_len ? buf + 8 * DONE_HEAD : NULL;
    return NULL;
}

floe_status dist_msg_node_stats_decode(const uint8_t *p, size_t n, dist_msg_node_stats *s) {
    if (!p || n < 8) return floe_error(FLOE_ERR_CORRUPT, "node statistics of %zu bytes", p ? n : 0);
    int64_t count = get64(p);
    if (count < 0 || (n - 8) / 8 / DIST_NODE_FIELDS < (size_t)count)
        return floe_error(FLOE_ERR_CORRUPT, "node statistics: %lld nodes in %zu bytes", (long long)count, n);
    s->count = count;
    s->values = p + 8;
    return NULL;
}

int64_t dist_msg_node_stat(const dist_msg_node_stats *s, int64_t node, int field) {
    return get64(s->values + ((size_t)node * DIST_NODE_FIELDS + (size_t)field) * 8);
}

/* ----------------------------------------------------------------- ERROR */

floe_status dist_msg_error_encode(const dist_msg_error *m, uint8_t **buf, size_t *len) {
    const int64_t head[ERROR_HEAD] = {m->query, m->task, (int64_t)m->code};
    return make(DIST_MSG_ERROR, head, ERROR_HEAD, m->text, m->text ? m->text_len : 0, buf, len);
}

floe_status dist_msg_error_decode(const uint8_t *buf, size_t len, dist_msg_error *m) {
    int64_t h[ERROR_HEAD];
    FLOE_TRY(head_get(DIST_MSG_ERROR, buf, len, h, ERROR_HEAD));
    m->query = h[0];
    m->task = h[1];
    m->code = h[2] > FLOE_OK && h[2] <= LAST_CODE ? (floe_code)h[2] : FLOE_ERR_INTERNAL;
    m->text = (const char *)buf + 8 * ERROR_HEAD;
    m->text_len = len - 8 * ERROR_HEAD;
    return NULL;
}

/* ---------------------------------------------------------- CANCEL, STOP */

floe_status dist_msg_cancel_encode(int64_t query, uint8_t **buf, size_t *len) {
    return make(DIST_MSG_CANCEL, &query, 1, NULL, 0, buf, len);
}

floe_status dist_msg_cancel_decode(const uint8_t *buf, size_t len, int64_t *query) {
    return head_get(DIST_MSG_CANCEL, buf, len, query, 1);
}

floe_status dist_msg_empty_encode(int tag, uint8_t **buf, size_t *len) {
    return make(tag, NULL, 0, NULL, 0, buf, len);
}

/* ------------------------------------------------- FETCH, DATA, FETCH_END */

floe_status dist_msg_fetch_encode(const dist_msg_fetch *m, uint8_t **buf, size_t *len) {
    const int64_t head[FETCH_HEAD] = {m->query, m->id, m->exchange, m->part};
    return make(DIST_MSG_FETCH, head, FETCH_HEAD, NULL, 0, buf, len);
}

floe_status dist_msg_fetch_decode(const uint8_t *buf, size_t len, dist_msg_fetch *m) {
    int64_t h[FETCH_HEAD];
    FLOE_TRY(head_get(DIST_MSG_FETCH, buf, len, h, FETCH_HEAD));
    m->query = h[0];
    m->id = h[1];
    FLOE_TRY(int32_field(DIST_MSG_FETCH, "exchange", h[2], &m->exchange));
    return int32_field(DIST_MSG_FETCH, "partition", h[3], &m->part);
}

floe_status dist_msg_data_encode(const dist_msg_data *m, uint8_t **buf, size_t *len) {
    const int64_t head[DATA_HEAD] = {m->query, m->id};
    return make(DIST_MSG_DATA, head, DATA_HEAD, m->blob, m->blob_len, buf, len);
}

floe_status dist_msg_data_decode(const uint8_t *buf, size_t len, dist_msg_data *m) {
    int64_t h[DATA_HEAD];
    FLOE_TRY(head_get(DIST_MSG_DATA, buf, len, h, DATA_HEAD));
    m->query = h[0];
    m->id = h[1];
    m->blob = buf + 8 * DATA_HEAD;
    m->blob_len = len - 8 * DATA_HEAD;
    return NULL;
}

floe_status dist_msg_fetch_end_encode(const dist_msg_fetch_end *m, uint8_t **buf, size_t *len) {
    const int64_t head[FETCH_END_HEAD] = {m->query, m->id, m->failed ? 1 : 0};
    return make(DIST_MSG_FETCH_END, head, FETCH_END_HEAD, NULL, 0, buf, len);
}

floe_status dist_msg_fetch_end_decode(const uint8_t *buf, size_t len, dist_msg_fetch_end *m) {
    int64_t h[FETCH_END_HEAD];
    FLOE_TRY(head_get(DIST_MSG_FETCH_END, buf, len, h, FETCH_END_HEAD));
    m->query = h[0];
    m->id = h[1];
    m->failed = h[2] != 0;
    return NULL;
}

/* -------------------------------------------------------- STREAM, CREDIT */

floe_status dist_msg_stream_encode(const dist_msg_stream *m, uint8_t **buf, size_t *len) {
    const int64_t head[STREAM_HEAD] = {m->query, m->exchange, m->part, m->producer, m->end ? 1 : 0};
    return make(DIST_MSG_STREAM, head, STREAM_HEAD, m->blob, m->blob_len, buf, len);
}

floe_status dist_msg_stream_decode(const uint8_t *buf, size_t len, dist_msg_stream *m) {
    int64_t h[STREAM_HEAD];
    FLOE_TRY(head_get(DIST_MSG_STREAM, buf, len, h, STREAM_HEAD));
    m->query = h[0];
    FLOE_TRY(int32_field(DIST_MSG_STREAM, "exchange", h[1], &m->exchange));
    FLOE_TRY(int32_field(DIST_MSG_STREAM, "partition", h[2], &m->part));
    FLOE_TRY(int32_field(DIST_MSG_STREAM, "producer", h[3], &m->producer));
    m->end = h[4] != 0;
    m->blob = buf + 8 * STREAM_HEAD;
    m->blob_len = len - 8 * STREAM_HEAD;
    return NULL;
}

floe_status dist_msg_credit_encode(const dist_msg_credit *m, uint8_t **buf, size_t *len) {
    const int64_t head[CREDIT_HEAD] = {m->query, m->exchange, m->producer, m->part, m->n};
    return make(DIST_MSG_CREDIT, head, CREDIT_HEAD, NULL, 0, buf, len);
}

floe_status dist_msg_credit_decode(const uint8_t *buf, size_t len, dist_msg_credit *m) {
    int64_t h[CREDIT_HEAD];
    FLOE_TRY(head_get(DIST_MSG_CREDIT, buf, len, h, CREDIT_HEAD));
    m->query = h[0];
    FLOE_TRY(int32_field(DIST_MSG_CREDIT, "exchange", h[1], &m->exchange));
    FLOE_TRY(int32_field(DIST_MSG_CREDIT, "producer", h[2], &m->producer));
    FLOE_TRY(int32_field(DIST_MSG_CREDIT, "partition", h[3], &m->part));
    return int32_field(DIST_MSG_CREDIT, "credit count", h[4], &m->n);
}

/* ------------------------------------------------------- CHECK, CHECKED */

floe_status dist_msg_check_encode(const dist_msg_check *m, uint8_t **buf, size_t *len) {
    *buf = NULL;
    *len = 0;
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_codec_put_i64(&b, m->query);
    if (!st) st = floe_codec_put_i64(&b, m->n);
    for (int32_t i = 0; i < m->n && !st; i++) {
        st = floe_codec_put_i64(&b, m->files[i].size);
        if (!st) st = floe_codec_put_i64(&b, m->files[i].mtime);
        if (!st) st = floe_codec_put_str(&b, m->files[i].path);
    }
    if (st) {
        floe_buf_free(&b);
        return st;
    }
    *buf = floe_buf_detach(&b, len);
    floe_buf_free(&b);
    return NULL;
}

floe_status dist_msg_check_decode(const uint8_t *buf, size_t len, dist_msg_check *m) {
    memset(m, 0, sizeof *m);
    m->query = -1;
    floe_reader r = {buf, len, 0};
    int64_t q = 0, n = 0;
    FLOE_TRY(floe_codec_get_i64(&r, &q));
    m->query = q;
    FLOE_TRY(floe_codec_get_i64(&r, &n));
    /* each file takes at least 24 bytes */
    if (n < 0 || (uint64_t)n > (len - r.pos) / 24)
        return floe_error(FLOE_ERR_CORRUPT, "CHECK message: %lld files in %zu bytes", (long long)n, len);
    if (n > 0 && !(m->files = floe_calloc((size_t)n, sizeof *m->files)))
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding a CHECK message");
    for (int64_t i = 0; i < n; i++) {
        dist_msg_check_file *f = &m->files[i];
        FLOE_TRY(floe_codec_get_i64(&r, &f->size));
        FLOE_TRY(floe_codec_get_i64(&r, &f->mtime));
        FLOE_TRY(floe_codec_get_str(&r, &f->path));
        m->n++;
        if (!f->path) return floe_error(FLOE_ERR_CORRUPT, "CHECK message: file %lld has no path", (long long)i);
    }
    return NULL;
}

void dist_msg_check_clear(dist_msg_check *m) {
    for (int32_t i = 0; m->files && i < m->n; i++) floe_free(m->files[i].path);
    floe_free(m->files);
    m->files = NULL;
    m->n = 0;
}

floe_status dist_msg_checked_encode(const dist_msg_checked *m, uint8_t **buf, size_t *len) {
    const int64_t head[CHECKED_HEAD] = {m->query, m->ok ? 1 : 0};
    return make(DIST_MSG_CHECKED, head, CHECKED_HEAD, m->why, m->why ? m->why_len : 0, buf, len);
}

floe_status dist_msg_checked_decode(const uint8_t *buf, size_t len, dist_msg_checked *m) {
    int64_t h[CHECKED_HEAD];
    FLOE_TRY(head_get(DIST_MSG_CHECKED, buf, len, h, CHECKED_HEAD));
    m->query = h[0];
    m->ok = h[1] != 0;
    m->why = (const char *)buf + 8 * CHECKED_HEAD;
    m->why_len = len - 8 * CHECKED_HEAD;
    return NULL;
}

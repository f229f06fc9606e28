/*
 * messages.h — every message of the MPI runtime: its tag, its fields and
 * their encoding, in one place (messages.c).
 *
 * A message is MPI_BYTE data whose MPI tag is its kind (DIST_MSG_*).
 * Numbers are little-endian int64 (floe_codec_put_i64), a fixed head of
 * them first, then, for some kinds, a trailing blob or text:
 *
 *   TASK      0 → w   the task codec's bytes (dist_task_encode, task.c):
 *                     inputs inline, named by the ranks holding them, or
 *                     streamed
 *   OUT       w → 0   query, task, bucket, then one blob of encoded batches
 *                     (output of a stage the last stage reads)
 *   DONE      w → 0   query, task, rows, bytes, batches, elapsed µs, peak
 *                     streamed bytes, µs waited for credits; then
 *                     (EXPLAIN ANALYZE) the metrics of each plan node
 *                     (dist_node_stats_put's form)
 *   ERROR     w → 0   query, task, the error's floe_code, then its text
 *   FETCH     w → w   query, fetch id, exchange, partition: send me what
 *                     you hold of it
 *   DATA      w → w   query, fetch id, then one blob
 *   FETCH_END w → w   query, fetch id, failed (0/1): no more DATA
 *   STREAM    w → w   query, exchange, partition, producer task, end flag,
 *                     then one blob (none with the end flag)
 *   CREDIT    w → w   query, exchange, producer task, partition, n: room
 *                     for n more blobs
 *   CHECK     0 → w   query, count, then per file: size, mtime, path
 *                     (codec string) — do you see these local files as I
 *                     do?
 *   CHECKED   w → 0   query, ok (0/1), then what differs
 *   CANCEL    0 → w   query: it is over — cancel its running tasks, drop
 *                     the exchange data held or queued for it
 *   STOP      0 → w   (empty) finish, answer BYE, leave the loop
 *   BYE       w → 0   (empty)
 *   HEARTBEAT w → 0   (empty) every second while the rank has tasks: it
 *                     is alive, however long they run
 *
 * ("w" is any rank running tasks, rank 0 included.)  Every rank runs the
 * same binary, so a layout changes here alone, on both sides at once.
 *
 * Encoders return a floe_malloc'd buffer (*buf, *len) ready to be sent,
 * which the caller owns.  Decoders check the length (FLOE_ERR_CORRUPT when
 * a message is too short or a field is out of range) and fill a struct
 * whose blob / text pointers point into the message buffer (borrowed).
 * Nothing here needs MPI: the unit test runs without it.
 */
#ifndef FLOE_DIST_MESSAGES_H
#define FLOE_DIST_MESSAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/status.h"

/* The MPI tags (values are on the wire: append, never renumber). */
typedef enum dist_msg_tag {
    DIST_MSG_TASK = 1,
    DIST_MSG_OUT,
    DIST_MSG_DONE,
    DIST_MSG_ERROR,
    DIST_MSG_CANCEL,
    DIST_MSG_STOP,
    DIST_MSG_BYE,
    DIST_MSG_FETCH,
    DIST_MSG_DATA,
    DIST_MSG_FETCH_END,
    DIST_MSG_STREAM,
    DIST_MSG_CREDIT,
    DIST_MSG_CHECK,
    DIST_MSG_CHECKED,
    DIST_MSG_HEARTBEAT
} dist_msg_tag;

/* "OUT", "DONE", ... ("?" for an unknown tag), for messages and logs. */
const char *dist_msg_name(int tag);

/* ---- TASK: the task codec's bytes (task.c) ------------------------------- */

/* The query and task ids of a task message that may not decode (to answer
 * it with an ERROR); -1 each when the message is too short. */
void dist_msg_task_ids(const uint8_t *buf, size_t len, int64_t *query, int64_t *task);

/* ---- OUT ------------------------------------------------------------------ */

typedef struct dist_msg_out {
    int64_t query, task, bucket;
    const uint8_t *blob; /* decode: into the message */
    size_t blob_len;
} dist_msg_out;

floe_status dist_msg_out_encode(const dist_msg_out *m, uint8_t **buf, size_t *len) FLOE_WARN_UNUSED;
floe_status dist_msg_out_decode(const uint8_t *buf, size_t len, dist_msg_out *m) FLOE_WARN_UNUSED;

/* ---- DONE ----------------------------------------------------------------- */

typedef struct dist_msg_done {
    int64_t query, task;
    int64_t rows, bytes, batches, elapsed_us;
    int64_t peak_xbytes; /* the rank's peak streamed exchange bytes in this query */
    int64_t waited_us;   /* time the task waited for credits */
    const uint8_t *node_stats; /* decode: into the message; NULL when there are none */
    size_t node_stats_len;
} dist_msg_done;

/* Appends the fixed head to `out`; EXPLAIN ANALYZE appends the node
 * statistics after it (dist_node_stats_put). */
floe_status dist_msg_done_put(const dist_msg_done *m, floe_buf *out) FLOE_WARN_UNUSED;
floe_status dist_msg_done_decode(const uint8_t *buf, size_t len, dist_msg_done *m) FLOE_WARN_UNUSED;

/* The per node statistics of dist_node_stats_put: a count, then
 * DIST_NODE_FIELDS numbers per node. */
typedef struct dist_msg_node_stats {
    int64_t count;
    const uint8_t *values; /* into the message */
} dist_msg_node_stats;

floe_status dist_msg_node_stats_decode(const uint8_t *p, size_t n, dist_msg_node_stats *s) FLOE_WARN_UNUSED;
/* Field `field` (0 ≤ field < DIST_NODE_FIELDS) of node `node` (< count). */
int64_t dist_msg_node_stat(const dist_msg_node_stats *s, int64_t node, int field);

/* ---- ERROR ---------------------------------------------------------------- */

/* A task failed (or could not start): the coordinator returns an error
 * with the same code and text, naming the rank and the task. */
typedef struct dist_msg_error {
    int64_t query, task;
    floe_code code; /* never FLOE_OK: decoding makes an unknown one FLOE_ERR_INTERNAL */
    const char *text; /* text_len bytes, not NUL-terminated (decode: into the message) */
    size_t text_len;
} dist_msg_error;

floe_status dist_msg_error_encode(const dist_msg_error *m, uint8_t **buf, size_t *len) FLOE_WARN_UNUSED;
floe_status dist_msg_error_decode(const uint8_t *buf, size_t len, dist_msg_error *m) FLOE_WARN_UNUSED;

/* ---- CANCEL --------------------------------------------------------------- */

floe_status dist_msg_cancel_encode(int64_t query, uint8_t **buf, size_t *len) FLOE_WARN_UNUSED;
floe_status dist_msg_cancel_decode(const uint8_t *buf, size_t len, int64_t *query) FLOE_WARN_UNUSED;

/* ---- STOP, BYE: no fields ------------------------------------------------- */

floe_status dist_msg_empty_encode(int tag, uint8_t **buf, size_t *len) FLOE_WARN_UNUSED;

/* ---- FETCH, DATA, FETCH_END ----------------------------------------------- */

typedef struct dist_msg_fetch {
    int64_t query, id;
    int32_t exchange, part;
} dist_msg_fetch;

floe_status dist_msg_fetch_encode(const dist_msg_fetch *m, uint8_t **buf, size_t *len) FLOE_WARN_UNUSED;
floe_status dist_msg_fetch_decode(const uint8_t *buf, size_t len, dist_msg_fetch *m) FLOE_WARN_UNUSED;

typedef struct dist_msg_data {
    int64_t query, id;
    const uint8_t *blob; /* decode: into the message */
    size_t blob_len;
} dist_msg_data;

floe_status dist_msg_data_encode(const dist_msg_data *m, uint8_t **buf, size_t *len) FLOE_WARN_UNUSED;
floe_status dist_msg_data_decode(const uint8_t *buf, size_t len, dist_msg_data *m) FLOE_WARN_UNUSED;

typedef struct dist_msg_fetch_end {
    int64_t query, id;
    bool failed; /* the holder could not send everything */
} dist_msg_fetch_end;

floe_status dist_msg_fetch_end_encode(const dist_msg_fetch_end *m, uint8_t **buf, size_t *len) FLOE_WARN_UNUSED;
floe_status dist_msg_fetch_end_decode(const uint8_t *buf, size_t len, dist_msg_fetch_end *m) FLOE_WARN_UNUSED;

/* ---- STREAM, CREDIT ------------------------------------------------------- */

typedef struct dist_msg_stream {
    int64_t query;
    int32_t exchange, part, producer;
    bool end;            /* no more blobs from this producer (blob_len 0) */
    const uint8_t *blob; /* decode: into the message */
    size_t blob_len;
} dist_msg_stream;

/* Bytes a STREAM message adds to its blob. */
#define DIST_MSG_STREAM_HEAD 40

floe_status dist_msg_stream_encode(const dist_msg_stream *m, uint8_t **buf, size_t *len) FLOE_WARN_UNUSED;
floe_status dist_msg_stream_decode(const uint8_t *buf, size_t len, dist_msg_stream *m) FLOE_WARN_UNUSED;

typedef struct dist_msg_credit {
    int64_t query;
    int32_t exchange, producer, part, n;
} dist_msg_credit;

floe_status dist_msg_credit_encode(const dist_msg_credit *m, uint8_t **buf, size_t *len) FLOE_WARN_UNUSED;
floe_status dist_msg_credit_decode(const uint8_t *buf, size_t len, dist_msg_credit *m) FLOE_WARN_UNUSED;

/* ---- CHECK, CHECKED ------------------------------------------------------- */

typedef struct dist_msg_check_file {
    int64_t size, mtime;
    char *path; /* encode: borrowed; decode: floe_malloc'd */
} dist_msg_check_file;

typedef struct dist_msg_check {
    int64_t query;
    int32_t n;
    dist_msg_check_file *files; /* encode: borrowed; decode: floe_malloc'd */
} dist_msg_check;

floe_status dist_msg_check_encode(const dist_msg_check *m, uint8_t **buf, size_t *len) FLOE_WARN_UNUSED;
/* On failure too, m->query is the message's query id when it has one
 * (else -1), so the check can be answered; clear m either way. */
floe_status dist_msg_check_decode(const uint8_t *buf, size_t len, dist_msg_check *m) FLOE_WARN_UNUSED;
void dist_msg_check_clear(dist_msg_check *m);

typedef struct dist_msg_checked {
    int64_t query;
    bool ok;
    const char *why; /* what differs: why_len bytes, not NUL-terminated (decode: into the message) */
    size_t why_len;
} dist_msg_checked;

floe_status dist_msg_checked_encode(const dist_msg_checked *m, uint8_t **buf, size_t *len) FLOE_WARN_UNUSED;
floe_status dist_msg_checked_decode(const uint8_t *buf, size_t len, dist_msg_checked *m) FLOE_WARN_UNUSED;

/* ---- blobs in place ------------------------------------------------------- */

/* A decoded message's blob, moved to the start of its own buffer `buf`
 * (which the caller then hands on as the blob: no copy).  Returns buf. */
uint8_t *dist_msg_blob_in_place(uint8_t *buf, const uint8_t *blob, size_t blob_len);

#endif

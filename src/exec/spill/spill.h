/*
 * spill.h — spill files: record batches an operator cannot keep in memory,
 * written to a temporary file and read back in the same order.
 *
 * Layout (floe's own, not meant to outlive the process): one frame per
 * batch, a 16-byte header — "FSPL", the uncompressed length, the
 * compressed length, the row count (u32 little-endian each) — then the
 * batch in the plan codec's columnar form (floe_codec_put_batch: the
 * schema, then per column its validity and value buffers) compressed as
 * one raw LZ4 block.
 *
 * The file is anonymous: it is made with O_TMPFILE (or mkstemp and
 * unlinked at once) in the temp directory, so no name is left behind on
 * any exit path — success, error, cancellation or a crash; closing the
 * file (or the process ending) gives the space back.
 */
#ifndef FLOE_EXEC_SPILL_H
#define FLOE_EXEC_SPILL_H

#include <stdint.h>

#include "floe/exec.h"

typedef struct floe_spill_file floe_spill_file;

/* The directory spill files go to: `dir` when set, else $TMPDIR/floe,
 * else /tmp/floe (into buf). */
void floe_spill_dir(const char *dir, char *buf, size_t cap);

/* A new, empty spill file in floe_spill_dir(dir) (the last directory
 * level is created when missing).  `what` names the operator for errors:
 * "Sort: spill file in '/tmp/floe': No space left on device". */
floe_status floe_spill_open(const char *dir, const char *what, floe_spill_file **out) FLOE_WARN_UNUSED;

/* Append one batch (rows of a slice only, not its whole buffers:
 * a sliced batch is compacted first). */
floe_status floe_spill_write(floe_spill_file *f, const floe_batch *b) FLOE_WARN_UNUSED;

/* Give back the scratch buffers a write or read keeps for the next frame
 * (about twice the frame): for an operator writing many files in turn, so
 * the files it is not writing hold no memory.  The next write or read
 * allocates them again. */
void floe_spill_drop_buffers(floe_spill_file *f);

/* Batches and bytes written so far (bytes: on disk, compressed). */
int64_t floe_spill_batches(const floe_spill_file *f);
int64_t floe_spill_bytes(const floe_spill_file *f);
int64_t floe_spill_rows(const floe_spill_file *f);

/* Read the next batch from the read position (the start of the file
 * until the first read); *out = NULL after the last one.  Writing after
 * reading started is FLOE_ERR_INVALID_ARGUMENT. */
floe_status floe_spill_read(floe_spill_file *f, floe_batch **out) FLOE_WARN_UNUSED;

/* Close and free (NULL-safe); the space goes back to the file system. */
void floe_spill_close(floe_spill_file *f);

/* A stream reading f from its start; it owns f (closing the stream
 * closes the file). */
floe_status floe_spill_stream(floe_spill_file *f, floe_stream **out) FLOE_WARN_UNUSED;

/* Bytes a batch's buffers hold (validity, values, children): what keeping
 * it in memory costs, for operators deciding when to spill. */
int64_t floe_batch_bytes(const floe_batch *b);

#endif

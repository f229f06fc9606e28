/*
 * io_props.h — the FileIO properties an Iceberg plan node carries (scan,
 * write, commit), so that the node makes the same FileIO in whatever
 * process runs it: encoding them as plan parts, printing them redacted,
 * copying and comparing them.
 *
 * Encoding: a count, then key and value strings (floe_codec_put_str), in
 * the order given — decode then encode gives the same bytes.  Printing
 * goes through floe_redact_kv_list only: the properties may hold keys,
 * secrets and tokens.
 */
#ifndef FLOE_EXEC_IO_PROPS_H
#define FLOE_EXEC_IO_PROPS_H

#include <stddef.h>

#include "floe/exec.h"
#include "floe/fileio.h"

/* Copy `n` properties (keys and values must be non-NULL); NULL/0 for none. */
floe_status floe_exec_io_props_copy(const floe_property *src, size_t n, floe_property **out) FLOE_WARN_UNUSED;
/* Free a copy, zeroing the values (they may be secrets). */
void floe_exec_io_props_free(floe_property *p, size_t n);
/* Same keys and values in the same order. */
bool floe_exec_io_props_equal(const floe_property *a, size_t na, const floe_property *b, size_t nb);

floe_status floe_exec_io_props_encode(struct floe_buf *out, const floe_property *p, size_t n) FLOE_WARN_UNUSED;
floe_status floe_exec_io_props_decode(floe_reader *r, floe_property **out, size_t *n) FLOE_WARN_UNUSED;

/* Append ", io=[k=v, secret=***]" for EXPLAIN; nothing when n is 0. */
floe_status floe_exec_io_props_explain(struct floe_buf *out, const floe_property *p, size_t n) FLOE_WARN_UNUSED;

#endif

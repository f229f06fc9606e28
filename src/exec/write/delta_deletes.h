/*
 * delta_deletes.h — the positions one IcebergWrite stream deletes in a
 * row-level change, gathered per data file and written as delete files
 * when the stream's input ends (see delta_deletes.c).
 */
#ifndef FLOE_EXEC_WRITE_DELTA_DELETES_H
#define FLOE_EXEC_WRITE_DELTA_DELETES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "floe/exec_write.h"
#include "floe/fileio.h"
#include "floe/iceberg_data_writer.h"

typedef struct floe_delta_deletes {
    floe_strmap files;    /* data file path -> struct posvec * */
    int64_t n_positions;
    struct posvec *last;  /* the file of the last position added: scans give a file's rows together */
} floe_delta_deletes;

void floe_delta_deletes_init(floe_delta_deletes *d);
void floe_delta_deletes_free(floe_delta_deletes *d);

/* Row `pos` of data file `path` (len bytes) is deleted. */
floe_status floe_delta_deletes_add(floe_delta_deletes *d, const char *path, size_t len, int64_t pos) FLOE_WARN_UNUSED;

/* Format version 2: write one position delete file per data file, named
 * "<prefix>-<n, 5 digits>-deletes.parquet"; 3: one Puffin file
 * "<prefix>-deletes.puffin" with a deletion vector per data file holding
 * its new positions and those of `old` (sorted by data file) that apply to
 * it; appending their records to
 * *out (on failure the files written so far stay in *out, for the caller
 * to delete).  A position given twice is dropped when !unique (DELETE
 * ... USING matching a row twice deletes it once) and FLOE_ERR_CONSTRAINT
 * when unique (UPDATE, MERGE: the SQL standard's cardinality violation;
 * `what` names the statement in the message).  *distinct: the positions
 * written. */
floe_status floe_delta_deletes_write(floe_delta_deletes *d, floe_fileio *io, const floe_ice_write_settings *s,
                                     const char *prefix, const floe_ice_file_observer *observer, bool unique,
                                     const char *what, int32_t format_version, const floe_delta_old_delete *old,
                                     int32_t n_old, floe_ice_written_files *out, int64_t *distinct) FLOE_WARN_UNUSED;

#endif

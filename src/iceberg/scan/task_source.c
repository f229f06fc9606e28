/*
 * task_source.c — opening a task's data or delete file as a source of its
 * format (task_source.h), and the one way such files are opened.
 */
#include <string.h>
#include <strings.h>

#include "iceberg/scan/task_source.h"

floe_status floe_ice_source_open_input(floe_fileio *io, const char *location, int64_t size, floe_input **in) {
    *in = NULL;
    /* A table without a FileIO reads plain paths with the local reader
     * directly (nothing to make, no environment to parse); only a URI
     * needs one then.  `size` (the manifest's) spares S3 a HEAD request. */
    bool uri = strstr(location, "://") != NULL || strncmp(location, "file:", 5) == 0;
    if (!io && !uri) return floe_input_open_local(location, in);
    if (!io)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s': a URI needs a FileIO to be opened through", location);
    return size > 0 ? floe_fileio_open_input_sized(io, location, (uint64_t)size, in)
                    : floe_fileio_open_input(io, location, in);
}

floe_status floe_ice_source_open(const char *format, floe_fileio *io, const char *location, int64_t size,
                                 floe_ice_source **out) {
    *out = NULL;
    /* A file without a recorded format is Parquet, as floe and the
     * engines it reads from write (the manifest field is required). */
    if (!format || strcasecmp(format, "parquet") == 0) return floe_ice_parquet_source_open(io, location, size, out);
    if (strcasecmp(format, "avro") == 0) return floe_ice_avro_source_open(io, location, size, out);
    if (strcasecmp(format, "orc") == 0) return floe_ice_orc_source_open(io, location, size, out);
    return floe_error(FLOE_ERR_UNSUPPORTED, "'%s': %s files are not supported", location, format);
}

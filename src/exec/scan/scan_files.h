/*
 * scan_files.h — the files a ParquetScan reads: paths and globs expanded
 * (local or s3://, `**` matching any number of directories), and Hive
 * partitions: `key=value` directories of each path, typed as DuckDB types
 * them.  Internal to src/exec/scan/.
 */
#ifndef FLOE_EXEC_SCAN_SCAN_FILES_H
#define FLOE_EXEC_SCAN_SCAN_FILES_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/exec_scan.h"
#include "floe/fileio.h"
#include "floe/status.h"

typedef struct scan_file_list {
    char **v;
    uint64_t *size; /* bytes when known (0: unknown), per file */
    int32_t n, cap;
} scan_file_list;

void scan_file_list_free(scan_file_list *l);

/* A local path without a "file:" scheme; whether a path is on S3. */
const char *scan_local_path(const char *path);
bool scan_is_remote(const char *path);

/* Add the files `pattern` names to `out` (sorted within the pattern, each
 * file once).  `*io` is made on first need (remote patterns) and kept by
 * the caller.  A pattern that matches nothing is FLOE_ERR_NOT_FOUND. */
floe_status scan_expand_pattern(const char *pattern, floe_fileio **io, scan_file_list *out) FLOE_WARN_UNUSED;

/* The Hive partitions of a list of files: keys sorted by name, each file's
 * value per key (NULL: SQL NULL), each key's type. */
typedef struct scan_hive {
    int32_t n_keys;
    char **keys;
    floe_type **types;  /* int64, date32, timestamp (µs) or string */
    int32_t n_files;
    char ***values;     /* [file][key] */
} scan_hive;

void scan_hive_free(scan_hive *h);

/* Parse the `key=value` directories of every file (keys and values
 * URL-decoded; `__HIVE_DEFAULT_PARTITION__`, an empty value and NULL in
 * any case are NULL; a key repeated in one path keeps its first value) and
 * type each key over every file's value as DuckDB does: int64 when every
 * non-null value is a decimal integer without a leading zero, date when
 * every one is a date, timestamp when every one is a date and time, else
 * string — judged by the folder name as it is spelled, before decoding
 * (so a timestamp whose ':' are escaped, as Hive writes them, is text).
 * mode AUTO: partitions only when every file has the same, non-empty set
 * of keys (else h->n_keys is 0); ON: files with different keys are an
 * error naming both; OFF: none. */
floe_status scan_hive_parse(const scan_file_list *files, floe_hive_mode mode, scan_hive *h) FLOE_WARN_UNUSED;

/* A partition value as a one-row array of `type` (NULL text: a null). */
floe_status scan_hive_value(const char *text, floe_type *type, floe_array **out) FLOE_WARN_UNUSED;

#endif

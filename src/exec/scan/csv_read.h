/*
 * csv_read.h — CSV files read into batches: the dialect (delimiter, quote,
 * header) and the column types detected on a sample as DuckDB's read_csv
 * does, then the whole input parsed in parallel by byte ranges (see
 * csv_read.c for why the ranges split only at record boundaries).  The
 * SQL layer's read_csv / read_csv_auto and COPY ... FROM plan a CsvScan
 * node (floe_csv_plan_scan) that parses the ranges when the plan runs.
 */
#ifndef FLOE_EXEC_SCAN_CSV_READ_H
#define FLOE_EXEC_SCAN_CSV_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/exec.h"
#include "floe/fileio.h"
#include "floe/status.h"

typedef struct floe_csv_options {
    int delim;            /* -1: detect among , | ; \t                      */
    int quote;            /* -1: '"'; 0: no quoting                          */
    int escape;           /* -1: the quote character                          */
    int header;           /* -1: detect; 0 no; 1 yes                          */
    const char *nullstr;  /* unquoted text read as NULL ("" default)          */
    bool quoted_nulls;    /* a quoted field equal to nullstr is NULL too
                           * (DuckDB's allow_quoted_nulls; COPY FROM: false,
                           * as PostgreSQL)                                   */
    bool auto_detect;     /* false: every column VARCHAR unless typed         */
    bool all_varchar;
    int64_t skip;         /* lines skipped before anything is read           */
    bool filename;        /* add a `filename` column                          */
    /* Column names (n_names, may be 0) and types (n_types; 0: detect).
     * With types given, a file must have exactly that many fields. */
    const char *const *names;
    int32_t n_names;
    floe_type *const *types;
    int32_t n_types;
    /* Rows of this many fields or more per parallel range: ranges are
     * ~range_bytes each (0: 8 MB). */
    int64_t range_bytes;
    /* Prefix of cast error messages ("COPY t"); NULL: "read_csv". */
    const char *what;
} floe_csv_options;

void floe_csv_options_init(floe_csv_options *o);

/* Read every file the patterns name (globs, local or through `io`, which
 * may be NULL for local files; .gz and .zst decompressed) into *batches
 * (n_batches of them, file order) of *schema. */
floe_status floe_csv_read(const char *const *patterns, int32_t n_patterns, floe_fileio *io,
                          const floe_csv_options *o, floe_schema **schema, floe_batch ***batches,
                          int32_t *n_batches) FLOE_WARN_UNUSED;

/* A CsvScan plan node over the files the patterns name: the dialect and
 * the columns detected at plan time on the first file's sample; the
 * files' byte ranges (one per compressed file) dealt to at most
 * n_partitions partitions and parsed when the plan runs.  `io` as for
 * floe_csv_read (NULL: local files). */
floe_status floe_csv_plan_scan(const char *const *patterns, int32_t n_patterns, floe_fileio *io,
                               const floe_csv_options *o, int32_t n_partitions, floe_plan **out) FLOE_WARN_UNUSED;

#endif

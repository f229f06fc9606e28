/*
 * pq_fixture.c — test tool: write the Parquet fixtures of pq_fixture.h
 * (annotations as other tools write them: decimals of every physical type
 * and width, decimals of precision above 38, INT96 timestamps outside the
 * nanosecond range, unusual and invalid annotations) for the DuckDB
 * cross-checks of tests/scripts/parquet_fixtures_vs_duckdb.sh.
 *
 * usage: pq_fixture NAME OUT.parquet
 *   NAME: decimals | big_decimals | int96_range | int96_in_range | unusual |
 *         bad_timestamp_int32 | bad_uint64_int32 | bad_date_binary |
 *         bad_decimal_scale | bad_string_int64
 * Not installed; built for the script tests only.
 */
#include <stdio.h>

#include "pq_fixture.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: pq_fixture NAME OUT.parquet\n");
        return 2;
    }
    floe_status st = pqfx_write_named(argv[1], argv[2]);
    if (st) {
        fprintf(stderr, "pq_fixture: %s\n", floe_status_message(st));
        floe_status_free(st);
        return 1;
    }
    return 0;
}

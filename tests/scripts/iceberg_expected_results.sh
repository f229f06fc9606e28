#!/usr/bin/env bash
# Every duckdb-iceberg test table with expected results, read by `floe scan`:
# the generated_spec{1,2}_0_001 tables against their expected_results dumps,
# and the simple iceberg_scan queries of the sqllogictest files under
# test/sql against their expected rows (see iceberg_expected_results.py).
# Queries beyond the harness are listed as UNSUPPORTED with the reason; any
# FAIL fails the test.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TESTDATA=${FLOE_TESTDATA:-${FLOE_TESTDATA_DEFAULT:-/work/shared/testdata}}
if [ ! -d "$TESTDATA/duckdb__duckdb-iceberg" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: test data missing under CI=true"; exit 1; fi
    echo "SKIP: shared test data not found"; exit 0
fi
exec python3 "$SRC/tests/scripts/iceberg_expected_results.py" "$FLOE_BIN" "$TESTDATA/duckdb__duckdb-iceberg"

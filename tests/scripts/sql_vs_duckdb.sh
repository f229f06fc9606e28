#!/usr/bin/env bash
# Analytical SQL (filters, aggregates, joins of every kind, sorts, set
# operations, scalar functions) over the same Parquet files must give
# DuckDB's results: tests/scripts/sql_vs_duckdb.mjs runs each query through
# `floe -c` and through the DuckDB npm peer and compares the rows.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
skip_test() {
    if [ "${CI:-}" = true ]; then echo "FAIL: $1 under CI=true"; exit 1; fi
    echo "SKIP: $1"; exit 0
}
command -v node >/dev/null && [ -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ] ||
    skip_test "node or @duckdb/node-api not installed"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sql_vs_duckdb.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"   # floe's default warehouse (./warehouse) lands here
node "$SRC/tests/scripts/sql_vs_duckdb.mjs" "$FLOE_BIN" "$TMP/data"

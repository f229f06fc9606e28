#!/usr/bin/env bash
# TPC-H at SF 0.01: `floe tpch generate --parquet` writes the eight tables,
# DuckDB finds the spec's row counts in them, and every query of bench/tpch/
# that floe can run (all but those bench/tpch/MISSING.md lists) returns
# DuckDB's result over the same files (bench/tpch/tpch.mjs check).
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
skip_test() {
    if [ "${CI:-}" = true ]; then echo "FAIL: $1 under CI=true"; exit 1; fi
    echo "SKIP: $1"; exit 0
}
command -v node >/dev/null && [ -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ] ||
    skip_test "node or @duckdb/node-api not installed"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tpch_vs_duckdb.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
"$FLOE_BIN" tpch generate --sf 0.01 --parquet "$TMP/data"
node "$SRC/bench/tpch/tpch.mjs" counts "$TMP/data" 0.01
node "$SRC/bench/tpch/tpch.mjs" check "$FLOE_BIN" "$TMP/data" 0.01

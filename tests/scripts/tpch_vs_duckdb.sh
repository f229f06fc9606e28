#!/usr/bin/env bash
# TPC-H at SF 0.01: `floe tpch generate --parquet` writes the eight tables,
# DuckDB finds the spec's row counts in them, and every query of bench/tpch/
# that floe can run (all but those bench/tpch/MISSING.md lists) returns
# DuckDB's result over the same files (bench/tpch/tpch.mjs check).  Iceberg
# mode (CREATE TABLE AS) writes tables holding the same rows, and refuses
# to overwrite one without --replace.
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

# Iceberg mode: the same rows as the Parquet files.
"$FLOE_BIN" tpch generate --sf 0.01 --warehouse "$TMP/wh" --tables region,orders
if "$FLOE_BIN" tpch generate --sf 0.01 --warehouse "$TMP/wh" --tables region 2> "$TMP/err"; then
    echo "FAIL: an existing table was overwritten without --replace"; exit 1
fi
grep -q -- "--replace" "$TMP/err" || { echo "FAIL: no --replace hint: $(cat "$TMP/err")"; exit 1; }
"$FLOE_BIN" tpch generate --sf 0.01 --warehouse "$TMP/wh" --tables region --replace
got=$("$FLOE_BIN" --warehouse "$TMP/wh" --format csv -c "SELECT count(*), sum(o_totalprice), max(o_comment) FROM tpch.orders" \
      -c "SELECT count(*) FROM tpch.region")
want=$("$FLOE_BIN" --warehouse "$TMP/wh" --format csv \
      -c "SELECT count(*), sum(o_totalprice), max(o_comment) FROM read_parquet('$TMP/data/orders.parquet')" \
      -c "SELECT count(*) FROM read_parquet('$TMP/data/region.parquet')")
if [ "$got" != "$want" ]; then
    echo "FAIL: Iceberg tables differ from the Parquet files"; echo "$got"; echo "$want"; exit 1
fi
echo "ok   Iceberg mode: tpch.orders and tpch.region hold the Parquet files' rows"

#!/usr/bin/env bash
# demo.sh — the main job `make run` shows, on data it makes itself.
#
# Until floe's SQL engine lands, this is the format tool-chain at work: DuckDB
# (the npm test peer) writes a small lineitem-shaped Parquet file, and floe
# reads it — schema, metadata, rows — and then shows an Iceberg manifest-style
# Avro file it writes and reads back.
set -euo pipefail
floe=${1:-build/release/floe}
here=$(cd "$(dirname "$0")/.." && pwd)
out="$here/demo-out"
mkdir -p "$out"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "floe --version"
"$floe" --version

step "a sample: 50,000 lineitem-shaped rows written by DuckDB (zstd Parquet)"
node "$here/bench/gen_lineitem.mjs" "$out/lineitem.parquet" 50000 zstd

step "floe parquet schema demo-out/lineitem.parquet"
"$floe" parquet schema "$out/lineitem.parquet"

step "floe parquet meta demo-out/lineitem.parquet"
"$floe" parquet meta "$out/lineitem.parquet" | sed -n "1,40p"  # sed reads it all: no SIGPIPE

step "floe parquet cat demo-out/lineitem.parquet --limit 8"
"$floe" parquet cat "$out/lineitem.parquet" --limit 8 \
  --columns l_orderkey,l_quantity,l_extendedprice,l_returnflag,l_shipdate,l_shipmode

step "the same rows as JSON lines"
"$floe" parquet cat "$out/lineitem.parquet" --limit 3 --format jsonl

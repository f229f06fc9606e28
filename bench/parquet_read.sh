#!/usr/bin/env bash
# bench/parquet_read.sh — time decoding every column of a 6-million-row
# lineitem-shaped Parquet file (zstd, 122,880-row row groups, written by
# DuckDB with bench/gen_lineitem.mjs) with floe and with DuckDB.
#
#   bench/parquet_read.sh [BUILD_DIR] [THREADS] [RUNS]
#
# BUILD_DIR (default build/release) is configured with
# -DCMAKE_BUILD_TYPE=Release and the pq_read_bench target built if missing.
# THREADS defaults to the number of CPUs, RUNS to 5 (after one warm-up).
#  floe:   bench/pq_read_bench.c: row groups spread over a THREADS-worker
#          pool, one reader per row group, every column decoded to batches;
#  DuckDB: SELECT min(COLUMNS(*)) FROM read_parquet(...) with THREADS
#          threads (bench/duckdb_time.mjs; the npm peer).
# The file is generated once and cached in bench/data/ (git-ignored).
# Prints the raw JSON of both engines, then one markdown table row:
#   | parquet read, lineitem 6M zstd | threads | floe s | DuckDB s | floe/DuckDB |
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build/release}
THREADS=${2:-$(nproc)}
RUNS=${3:-5}
DATA=$ROOT/bench/data
FILE=$DATA/lineitem_6m_zstd.parquet
mkdir -p "$DATA"
if [ ! -f "$FILE" ]; then
    node "$ROOT/bench/gen_lineitem.mjs" "$FILE.tmp" 6000000 zstd >&2
    mv "$FILE.tmp" "$FILE"
fi
if [ ! -x "$BUILD/pq_read_bench" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$BUILD" -j2 --target pq_read_bench > /dev/null
fi
floe=$("$BUILD/pq_read_bench" read "$FILE" "$THREADS" "$RUNS")
duck=$(node "$ROOT/bench/duckdb_time.mjs" "$THREADS" "$RUNS" \
       "SELECT min(COLUMNS(*)) FROM read_parquet('$FILE')")
echo "$floe"
echo "$duck"
python3 - "$floe" "$duck" <<'PY'
import json, sys
f, d = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert f["rows"] == 6000000, f"floe decoded {f['rows']} rows"
print(f"| parquet read, lineitem 6M zstd | {f['threads']} | {f['median']:.3f} s "
      f"| {d['median']:.3f} s | {f['median'] / d['median']:.2f} |")
PY

#!/usr/bin/env bash
# bench/sql_q1_q6.sh — TPC-H Q1-like and Q6-like SQL over the 6-million-row
# lineitem Parquet file (bench/gen_lineitem.mjs), floe vs DuckDB with the same
# thread count.
#
#   bench/sql_q1_q6.sh [BUILD_DIR] [THREADS] [RUNS]
#
# floe:   one `floe -f` process runs the query RUNS+1 times with \timing on
#         (the first run warms the page cache and is dropped); each time is
#         the whole statement: parse, plan, execute, print (CSV to /dev/null).
# DuckDB: bench/duckdb_time.mjs (warm-up, then RUNS runs, in process).
# Prints one markdown row per query:
#   | query | threads | floe median s | DuckDB median s | floe/DuckDB |
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
if [ ! -x "$BUILD/floe" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$BUILD" -j2 --target floe > /dev/null
fi
Q1="SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
 sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
 sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
 avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order
FROM read_parquet('$FILE') WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"
Q6="SELECT sum(l_extendedprice * l_discount) AS revenue FROM read_parquet('$FILE')
WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
  AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sql_bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
for name in Q1 Q6; do
    sql=${!name}
    { echo '\timing on'; for _ in $(seq 0 "$RUNS"); do echo "$sql;"; done; } > "$TMP/$name.sql"
    floe_times=$(cd "$TMP" && FLOE_THREADS=$THREADS "$BUILD/floe" --format csv -f "$TMP/$name.sql" |
                 sed -n 's/^Time: \([0-9.]*\) ms$/\1/p' | tail -n "$RUNS" | tr '\n' ' ')
    duck=$(node "$ROOT/bench/duckdb_time.mjs" "$THREADS" "$RUNS" "$sql")
    echo "floe $name ms: $floe_times" >&2
    echo "$duck" >&2
    python3 - "$name" "$THREADS" "$floe_times" "$duck" <<'PY'
import json, statistics, sys
name, threads, ft, duck = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
f = statistics.median(float(x) / 1000 for x in ft.split())
d = duck["median"]
print(f"| {name}-like, lineitem 6M zstd Parquet | {threads} | {f:.3f} s | {d:.3f} s | {f / d:.2f} |")
PY
done

#!/usr/bin/env bash
# bench/analytic.sh — the analytic SQL of step 13 over TPC-H SF 1 lineitem
# (5,997,278 rows, `floe tpch generate --parquet`), floe vs DuckDB with the
# same thread count over the same Parquet files:
#
#   running sum  sum(l_quantity) OVER (PARTITION BY l_orderkey ORDER BY l_linenumber)
#   rank         rank() OVER (PARTITION BY l_orderkey ORDER BY l_extendedprice DESC)
#   rollup       GROUP BY ROLLUP(l_returnflag, l_linestatus, l_shipmode)
#   percentile   percentile_cont(0.5) WITHIN GROUP (ORDER BY l_extendedprice) per l_shipmode
#
#   bench/analytic.sh [BUILD_DIR] [THREADS] [RUNS]
#
# Each window query is wrapped in an aggregate over its whole result (a sum
# of the window values, a count of the rank-1 rows), so every row's window
# value is computed but printing costs nothing; the grouped queries print
# their few rows.  floe: one `floe -f` process runs the query RUNS+1 times
# with \timing on (the first run is dropped); DuckDB: bench/duckdb_time.mjs.
# Before timing, each query's result in floe must equal DuckDB's (CSV rows,
# numbers rounded to 6 significant digits): a wrong answer stops the bench.
# Prints markdown rows:  | query | threads | floe median s | DuckDB median s | floe/DuckDB |
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build/release}" && pwd)
THREADS=${2:-$(nproc)}
RUNS=${3:-5}
DATA=$ROOT/bench/data/tpch-sf1-lineitem
if [ ! -x "$BUILD/floe" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$BUILD" -j2 --target floe > /dev/null
fi
if [ ! -f "$DATA/lineitem.parquet" ]; then
    rm -rf "$DATA.tmp"
    "$BUILD/floe" tpch generate --sf 1 --tables lineitem --parquet "$DATA.tmp" > /dev/null
    mv "$DATA.tmp" "$DATA"
fi
LI="read_parquet('$DATA/lineitem.parquet')"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/analytic_bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

names=("running sum" "rank" "rollup 3 columns" "percentile_cont per group")
query() {
    case $1 in
    0) echo "SELECT count(*) AS n, sum(s) AS total FROM (SELECT sum(l_quantity) OVER (PARTITION BY l_orderkey
             ORDER BY l_linenumber) AS s FROM $LI) w" ;;
    1) echo "SELECT count(*) AS firsts FROM (SELECT rank() OVER (PARTITION BY l_orderkey
             ORDER BY l_extendedprice DESC) AS r FROM $LI) w WHERE r = 1" ;;
    2) echo "SELECT l_returnflag, l_linestatus, l_shipmode, sum(l_quantity) AS qty, count(*) AS n FROM $LI
             GROUP BY ROLLUP(l_returnflag, l_linestatus, l_shipmode)
             ORDER BY l_returnflag NULLS LAST, l_linestatus NULLS LAST, l_shipmode NULLS LAST" ;;
    3) echo "SELECT l_shipmode, percentile_cont(0.5) WITHIN GROUP (ORDER BY l_extendedprice) AS median_price
             FROM $LI GROUP BY l_shipmode ORDER BY l_shipmode" ;;
    esac
}
# Rows as CSV with numbers rounded to 6 significant digits (decimals and
# doubles print differently in the two engines).
canon() { python3 -c '
import csv, sys
for row in csv.reader(sys.stdin):
    out = []
    for v in row:
        try: out.append("%.6g" % float(v))
        except ValueError: out.append(v)
    print(",".join(out))'; }

for i in 0 1 2 3; do
    sql=$(query $i | tr '\n' ' ')
    FLOE_THREADS=$THREADS "$BUILD/floe" --format csv -c "$sql" | tail -n +2 | canon > "$TMP/floe.csv"
    node --input-type=module -e '
      import { DuckDBInstance } from "'"$ROOT"'/tests/peers/duckdb.mjs";
      const inst = await DuckDBInstance.create(":memory:", { threads: "'"$THREADS"'" });
      const con = await inst.connect();
      const r = await con.runAndReadAll(process.argv[1]);
      for (const row of r.getRowsJson()) console.log(row.map(v => v === null ? "" : String(v)).join(","));
    ' "$sql" | canon > "$TMP/duck.csv"
    if ! cmp -s "$TMP/floe.csv" "$TMP/duck.csv"; then
        echo "analytic.sh: ${names[$i]}: floe and DuckDB disagree" >&2
        diff "$TMP/floe.csv" "$TMP/duck.csv" | head -20 >&2
        exit 1
    fi
    { echo '\timing on'; for _ in $(seq 0 "$RUNS"); do echo "$sql;"; done; } > "$TMP/q.sql"
    floe_times=$(cd "$TMP" && FLOE_THREADS=$THREADS "$BUILD/floe" --format csv -f "$TMP/q.sql" |
                 sed -n 's/^Time: \([0-9.]*\) ms$/\1/p' | tail -n "$RUNS" | tr '\n' ' ')
    duck=$(node "$ROOT/bench/duckdb_time.mjs" "$THREADS" "$RUNS" "$sql")
    echo "floe ${names[$i]} ms: $floe_times" >&2
    echo "$duck" >&2
    python3 - "${names[$i]}" "$THREADS" "$floe_times" "$duck" <<'PY'
import json, statistics, sys
name, threads, ft, duck = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
f = statistics.median(float(x) / 1000 for x in ft.split())
d = duck["median"]
print(f"| {name} | {threads} | {f:.3f} s | {d:.3f} s | {f / d:.2f} |")
PY
done

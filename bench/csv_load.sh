#!/usr/bin/env bash
# bench/csv_load.sh — CSV load speed: TPC-H lineitem at scale factor SF
# (`floe tpch generate --parquet`, then COPY ... TO a CSV with a header),
# read by floe's streamed read_csv (CsvScan: 8 MB byte ranges parsed on
# the threads) and by DuckDB's read_csv, same thread count, same file:
#
#   aggregate   SELECT count(*), sum(l_quantity), sum(l_extendedprice), max(l_shipdate) FROM read_csv(...)
#   CTAS        CREATE TABLE AS SELECT * FROM read_csv(...) into an Iceberg table (floe only)
#
#   bench/csv_load.sh [BUILD_DIR] [THREADS] [RUNS] [SF]
#
# floe: one `floe -f` process runs the statement RUNS+1 times with \timing
# on (the first run is dropped); DuckDB: bench/duckdb_time.mjs.  Before
# timing, the aggregate's row in floe must equal DuckDB's (numbers to 6
# significant digits).  MB/s is the CSV file's size over the median.
# Prints markdown rows:  | query | threads | floe s (MB/s) | DuckDB s (MB/s) | floe/DuckDB |
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build/release}" && pwd)
THREADS=${2:-$(nproc)}
RUNS=${3:-5}
SF=${4:-1}
DATA=$ROOT/bench/data/tpch-sf$SF-lineitem-csv
if [ ! -x "$BUILD/floe" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$BUILD" -j2 --target floe > /dev/null
fi
if [ ! -f "$DATA/lineitem.csv" ]; then
    rm -rf "$DATA.tmp"
    "$BUILD/floe" tpch generate --sf "$SF" --tables lineitem --parquet "$DATA.tmp" > /dev/null
    "$BUILD/floe" -c "COPY (SELECT * FROM read_parquet('$DATA.tmp/lineitem.parquet')) TO '$DATA.tmp/lineitem.csv' (FORMAT csv, HEADER)" > /dev/null
    rm -f "$DATA.tmp/lineitem.parquet"
    mv "$DATA.tmp" "$DATA"
fi
CSV=$DATA/lineitem.csv
MB=$(python3 -c "import os; print(os.path.getsize('$CSV') / 1e6)")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/csv_bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
AGG="SELECT count(*) AS n, sum(l_quantity) AS q, sum(l_extendedprice) AS p, max(l_shipdate) AS d FROM read_csv('$CSV')"
canon() { python3 -c '
import csv, sys
for row in csv.reader(sys.stdin):
    out = []
    for v in row:
        try: out.append("%.6g" % float(v))
        except ValueError: out.append(v)
    print(",".join(out))'; }
FLOE_THREADS=$THREADS "$BUILD/floe" --format csv -c "$AGG" | tail -n +2 | canon > "$TMP/floe.csv"
node --input-type=module -e '
  import { DuckDBInstance } from "'"$ROOT"'/tests/peers/duckdb.mjs";
  const inst = await DuckDBInstance.create(":memory:", { threads: "'"$THREADS"'" });
  const con = await inst.connect();
  const r = await con.runAndReadAll(process.argv[1]);
  for (const row of r.getRowsJson()) console.log(row.map(v => v === null ? "" : String(v)).join(","));
' "$AGG" | canon > "$TMP/duck.csv"
if ! cmp -s "$TMP/floe.csv" "$TMP/duck.csv"; then
    echo "csv_load.sh: floe and DuckDB disagree" >&2
    diff "$TMP/floe.csv" "$TMP/duck.csv" >&2
    exit 1
fi
row() { # name, floe ms list, duckdb json or ""
    python3 - "$1" "$THREADS" "$2" "$3" "$MB" <<'PY'
import json, statistics, sys
name, threads, ft, duck, mb = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
f = statistics.median(float(x) / 1000 for x in ft.split())
if duck:
    d = json.loads(duck)["median"]
    print(f"| {name} | {threads} | {f:.3f} s ({mb / f:.0f} MB/s) | {d:.3f} s ({mb / d:.0f} MB/s) | {f / d:.2f} |")
else:
    print(f"| {name} | {threads} | {f:.3f} s ({mb / f:.0f} MB/s) | — | — |")
PY
}
{ echo '\timing on'; for _ in $(seq 0 "$RUNS"); do echo "$AGG;"; done; } > "$TMP/q.sql"
ft=$(cd "$TMP" && FLOE_THREADS=$THREADS "$BUILD/floe" --format csv -f "$TMP/q.sql" |
     sed -n 's/^Time: \([0-9.]*\) ms$/\1/p' | tail -n "$RUNS" | tr '\n' ' ')
duck=$(node "$ROOT/bench/duckdb_time.mjs" "$THREADS" "$RUNS" "$AGG")
echo "floe aggregate ms: $ft" >&2
echo "$duck" >&2
row "read_csv + count/sum/max (SF $SF, $(printf '%.0f' "$MB") MB)" "$ft" "$duck"
# CTAS into Iceberg: a fresh table each run.
{ echo '\timing on'; for i in $(seq 0 "$RUNS"); do echo "CREATE TABLE li$i AS SELECT * FROM read_csv('$CSV');"; done; } > "$TMP/c.sql"
ft=$(cd "$TMP" && FLOE_THREADS=$THREADS "$BUILD/floe" --warehouse "$TMP/wh" --format csv -f "$TMP/c.sql" |
     sed -n 's/^Time: \([0-9.]*\) ms$/\1/p' | tail -n "$RUNS" | tr '\n' ' ')
echo "floe CTAS ms: $ft" >&2
row "CREATE TABLE AS SELECT * FROM read_csv (Iceberg, SF $SF)" "$ft" ""

#!/usr/bin/env bash
# bench/json_load.sh — JSON load speed: a generated newline-delimited JSON
# file of ROWS records (~97 bytes each: 2.1 M rows is ~200 MB; integers,
# a UTF-8 string, a double, a date, a struct and a list, written by
# DuckDB's COPY ... TO), read by floe's read_json (JsonScan: 8 MB byte
# ranges parsed on the threads) and by DuckDB's read_json, same threads:
#
#   aggregate   SELECT count(*), sum(id), sum(x), max(d), sum(st.a), count(l) FROM read_json(...)
#
#   bench/json_load.sh [BUILD_DIR] [THREADS] [RUNS] [ROWS]
#
# floe: one `floe -f` process runs the statement RUNS+1 times with \timing
# on (the first run dropped); DuckDB: bench/duckdb_time.mjs.  Before
# timing, the aggregate's row in floe must equal DuckDB's (numbers to 6
# significant digits).  MB/s is the file's size over the median.
# Prints a markdown row:  | query | threads | floe s (MB/s) | DuckDB s (MB/s) | floe/DuckDB |
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build/release}" && pwd)
THREADS=${2:-$(nproc)}
RUNS=${3:-3}
ROWS=${4:-2100000}
DATA=$ROOT/bench/data/json-$ROWS
JSON=$DATA/rows.json
if [ ! -f "$JSON" ]; then
    rm -rf "$DATA.tmp" && mkdir -p "$DATA.tmp"
    node --input-type=module -e '
      import { DuckDBInstance } from "'"$ROOT"'/tests/peers/duckdb.mjs";
      const con = await (await DuckDBInstance.create(":memory:")).connect();
      await con.run(process.argv[1]);
    ' "COPY (SELECT i AS id, 'name ✓ ' || (i % 1000) AS s, i * 0.5 AS x, DATE '2000-01-01' + CAST(i % 9000 AS integer) AS d,
                {'a': i % 100, 'b': 'é' || (i % 10)} AS st, [i % 3, i % 5] AS l FROM range($ROWS) g(i))
           TO '$DATA.tmp/rows.json' (FORMAT json)"
    mv "$DATA.tmp" "$DATA"
fi
MB=$(python3 -c "import os; print(os.path.getsize('$JSON') / 1e6)")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/json_bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
AGG="SELECT count(*) AS n, sum(id) AS si, sum(x) AS sx, CAST(max(d) AS varchar) AS d, sum(st.a) AS sa, count(l) AS nl FROM read_json('$JSON')"
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
    echo "json_load.sh: floe and DuckDB disagree" >&2
    diff "$TMP/floe.csv" "$TMP/duck.csv" >&2
    exit 1
fi
{ echo '\timing on'; for _ in $(seq 0 "$RUNS"); do echo "$AGG;"; done; } > "$TMP/q.sql"
ft=$(cd "$TMP" && FLOE_THREADS=$THREADS "$BUILD/floe" --format csv -f "$TMP/q.sql" |
     sed -n 's/^Time: \([0-9.]*\) ms$/\1/p' | tail -n "$RUNS" | tr '\n' ' ')
duck=$(node "$ROOT/bench/duckdb_time.mjs" "$THREADS" "$RUNS" "$AGG")
echo "floe aggregate ms: $ft" >&2
echo "$duck" >&2
python3 - "$THREADS" "$ft" "$duck" "$MB" "$ROWS" <<'PY'
import json, statistics, sys
threads, ft, duck, mb, rows = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]
f = statistics.median(float(x) / 1000 for x in ft.split())
d = json.loads(duck)["median"]
print(f"| read_json + count/sum/max ({rows} rows, {mb:.0f} MB) | {threads} | {f:.3f} s ({mb / f:.0f} MB/s) | {d:.3f} s ({mb / d:.0f} MB/s) | {f / d:.2f} |")
PY

#!/usr/bin/env bash
# bench/sql_insert.sh — loading the 6-million-row lineitem Parquet file into
# an Iceberg table partitioned by month(l_shipdate): floe INSERT vs DuckDB
# COPY … (FORMAT parquet, PARTITION_BY …) of the same rows to Parquet files
# partitioned by month, with the same thread count.
#
#   bench/sql_insert.sh [BUILD_DIR] [THREADS] [RUNS]
#
# floe:   per run, a fresh table (CREATE TABLE … PARTITIONED BY
#         (month(l_shipdate)), in a separate process, untimed), then one
#         `floe -f` process with \timing on runs the INSERT … SELECT; the
#         time is the whole statement: plan, read, partition, shuffle, write
#         Parquet, commit.  The first run is a warm-up and is dropped.
# DuckDB: bench/duckdb_time.mjs (warm-up, then RUNS runs, in process) of
#         COPY (SELECT *, date_trunc('month', l_shipdate) AS ship_month …)
#         TO dir (FORMAT parquet, PARTITION_BY (ship_month), OVERWRITE).
# Both write zstd Parquet.  Prints one markdown row:
#   | threads | floe median s | floe rows/s | floe files | DuckDB median s | DuckDB files | floe/DuckDB |
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
TMP=$(mktemp -d "${TMPDIR:-/tmp}/insert_bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
WH=$TMP/wh
floe() { FLOE_THREADS=$THREADS "$BUILD/floe" --warehouse "$WH" --format csv "$@"; }

floe -c "CREATE SCHEMA bench" > /dev/null
floe -c "CREATE TABLE bench.src AS SELECT * FROM read_parquet('$FILE') LIMIT 0" > /dev/null
echo '\timing on' > "$TMP/insert.sql"
echo "INSERT INTO bench.li SELECT * FROM read_parquet('$FILE');" >> "$TMP/insert.sql"
times=()
files=0
for run in $(seq 0 "$RUNS"); do
    floe -c "DROP TABLE IF EXISTS bench.li PURGE" \
         -c "CREATE TABLE bench.li PARTITIONED BY (month(l_shipdate)) AS SELECT * FROM bench.src" > /dev/null
    t=$(cd "$TMP" && floe -f "$TMP/insert.sql" | sed -n 's/^Time: \([0-9.]*\) ms$/\1/p' | tail -n 1)
    [ -n "$t" ] || { echo "floe INSERT failed" >&2; exit 1; }
    rows=$(floe -c "SELECT count(*) FROM bench.li" | tail -n 1)
    [ "$rows" = 6000000 ] || { echo "floe wrote $rows rows, expected 6000000" >&2; exit 1; }
    files=$(floe -c "SELECT count(*) FROM bench.\"li\$files\"" | tail -n 1)
    [ "$run" -gt 0 ] && times+=("$t")
done
OUT=$TMP/duck
DUCK_SQL="COPY (SELECT *, date_trunc('month', l_shipdate) AS ship_month FROM read_parquet('$FILE'))
TO '$OUT' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (ship_month), OVERWRITE)"
duck=$(node "$ROOT/bench/duckdb_time.mjs" "$THREADS" "$RUNS" "$DUCK_SQL")
duck_files=$(find "$OUT" -name '*.parquet' | wc -l)
echo "floe INSERT ms: ${times[*]}  files: $files" >&2
echo "$duck  files: $duck_files" >&2
python3 - "$THREADS" "${times[*]}" "$files" "$duck" "$duck_files" <<'PY'
import json, statistics, sys
threads, ft, files, duck, dfiles = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4]), sys.argv[5]
f = statistics.median(float(x) / 1000 for x in ft.split())
d = duck["median"]
print(f"| {threads} | {f:.3f} s | {6e6 / f / 1e6:.1f} M | {files} | {d:.3f} s | {dfiles} | {f / d:.2f} |")
PY

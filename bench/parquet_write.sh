#!/usr/bin/env bash
# bench/parquet_write.sh — time writing the 6-million-row lineitem table
# (bench/parquet_read.sh's file) as zstd Parquet with floe and with DuckDB,
# both from data already in memory, so only the writing is timed:
#  floe:   bench/pq_read_bench.c reads the file into memory batches with
#          floe's reader (untimed), then writes them with floe's writer
#          (zstd, default options; one writer, one thread);
#  DuckDB: CREATE TABLE t AS SELECT * FROM read_parquet(...) (untimed), then
#          COPY t TO ... (FORMAT parquet, COMPRESSION zstd) with THREADS
#          threads (bench/duckdb_time.mjs).
#
#   bench/parquet_write.sh [BUILD_DIR] [THREADS] [RUNS]
#
# Defaults as in bench/parquet_read.sh.  Output files go to a temporary
# directory.  Prints the raw JSON of both engines and one markdown row:
#   | parquet write, lineitem 6M zstd | floe threads / DuckDB threads | floe s | DuckDB s | floe/DuckDB |
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build/release}
THREADS=${2:-$(nproc)}
RUNS=${3:-5}
FILE=$ROOT/bench/data/lineitem_6m_zstd.parquet
if [ ! -f "$FILE" ]; then
    mkdir -p "$ROOT/bench/data"
    node "$ROOT/bench/gen_lineitem.mjs" "$FILE.tmp" 6000000 zstd >&2
    mv "$FILE.tmp" "$FILE"
fi
if [ ! -x "$BUILD/pq_read_bench" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$BUILD" -j2 --target pq_read_bench > /dev/null
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
floe=$("$BUILD/pq_read_bench" write "$FILE" "$TMP/floe.parquet" "$RUNS")
# bench/duckdb_time.mjs times one statement with no untimed setup, so the
# DuckDB side (load the table, warm up, time the COPY) is inline here.
duck=$(node --input-type=module - "$THREADS" "$RUNS" "$FILE" "$TMP/duck.parquet" <<EOS
import { DuckDBInstance } from '$ROOT/tests/peers/duckdb.mjs';
const [threads, runs, file, out] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const con = await inst.connect();
const version = (await con.runAndReadAll('SELECT version() AS v')).getRowObjectsJson()[0].v;
await con.run(\`CREATE TABLE t AS SELECT * FROM read_parquet('\${file}')\`);
const sql = \`COPY t TO '\${out}' (FORMAT parquet, COMPRESSION zstd)\`;
await con.run(sql);
const times = [];
for (let i = 0; i < Number(runs); i++) {
  const t0 = process.hrtime.bigint();
  await con.run(sql);
  times.push(Number(process.hrtime.bigint() - t0) / 1e9);
}
const sorted = [...times].sort((a, b) => a - b);
console.log(JSON.stringify({ engine: 'duckdb', version, threads: Number(threads), runs: times,
                             median: sorted[Math.floor(sorted.length / 2)] }));
EOS
)
echo "$floe"
echo "$duck"
python3 - "$floe" "$duck" "$(stat -c %s "$TMP/floe.parquet")" "$(stat -c %s "$TMP/duck.parquet")" <<'PY'
import json, sys
f, d = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert f["rows"] == 6000000, f"floe wrote {f['rows']} rows"
print(f"files: floe {int(sys.argv[3]) / 1e6:.1f} MB, DuckDB {int(sys.argv[4]) / 1e6:.1f} MB")
print(f"| parquet write, lineitem 6M zstd | {f['threads']} / {d['threads']} | {f['median']:.3f} s "
      f"| {d['median']:.3f} s | {f['median'] / d['median']:.2f} |")
PY

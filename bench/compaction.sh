#!/usr/bin/env bash
# bench/compaction.sh — CALL system.rewrite_data_files (bin-pack) over a
# table of many small files: FILES Parquet files of ROWS_PER_FILE rows each
# (id bigint, p int, s varchar, v double; unpartitioned, one INSERT whose
# writer rolls a file per batch), compacted into files of the default
# 512 MB target.  Prints bytes/s and files/s (rewritten bytes and files
# over the CALL's wall time, median of RUNS), and a reference: DuckDB
# reading the same data files (read_parquet over the list) and writing one
# Parquet file with COPY — DuckDB has no Iceberg compaction, so this is
# the read + write work alone, without planning, deletes or a commit.
#
#   bench/compaction.sh [BUILD_DIR] [THREADS] [RUNS] [FILES] [ROWS_PER_FILE]
#
# Defaults: 2 threads, 3 runs, 10,000 files of 100 rows (sized for a
# 2-core machine; scale FILES up on a bigger one).  Every run starts from
# the small files again (rollback_to_snapshot to the snapshot before, the
# previous run's output left as orphans, untimed); after each run the
# table's count(*) and sum(id) must equal what they were before, and the
# table must hold one data file: a wrong result stops the bench.
# Prints markdown rows:
#   | files | rows | bytes | threads | floe median s | bytes/s | files/s | DuckDB read+COPY s | bytes/s |
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build/release}" && pwd)
THREADS=${2:-2}
RUNS=${3:-3}
FILES=${4:-10000}
ROWS=${5:-100}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/compaction_bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
if [ ! -x "$BUILD/floe" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$BUILD" -j2 --target floe > /dev/null
fi
W=$TMP/wh
floe() { FLOE_THREADS=$THREADS "$BUILD/floe" --warehouse "$W" --format csv "$@"; }
q() { floe -c "$1" | tail -n +2; }
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# ---- data: one INSERT, a file per batch of ROWS rows
total=$((FILES * ROWS))
floe -c "CREATE SCHEMA db;
  CREATE TABLE db.t (id bigint, p int, s varchar, v double) WITH ('write.target-file-size-bytes' = '1');
  SET batch_size = $ROWS;
  INSERT INTO db.t SELECT x, CAST(x % 8 AS int), 'row-' || CAST(x AS varchar), x * 0.5
  FROM generate_series(1, $total) g(x);
  ALTER TABLE db.t RESET ('write.target-file-size-bytes')" > /dev/null
nfiles=$(q "SELECT count(*) FROM db.t\$files")
bytes=$(q "SELECT sum(file_size_in_bytes) FROM db.t\$files")
want=$(q "SELECT count(*), sum(id) FROM db.t")
base=$(q "SELECT snapshot_id FROM db.t\$snapshots ORDER BY committed_at DESC LIMIT 1")
q "SELECT file_path FROM db.t\$files" > "$TMP/files.txt"

# ---- floe: the CALL, timed as wall time of the process
times=()
for _ in $(seq 1 "$RUNS"); do
    t0=$(date +%s.%N)
    row=$(q "CALL system.rewrite_data_files(table => 'db.t')")
    t1=$(date +%s.%N)
    [ "$(echo "$row" | cut -d, -f1)" = "$nfiles" ] || { echo "bench: rewrote [$row], expected $nfiles files" >&2; exit 1; }
    [ "$(q "SELECT count(*), sum(id) FROM db.t")" = "$want" ] || { echo "bench: rows differ after compaction" >&2; exit 1; }
    [ "$(q "SELECT count(*) FROM db.t\$files")" = 1 ] || { echo "bench: not one file after compaction" >&2; exit 1; }
    times+=("$(echo "$t1 - $t0" | bc -l)")
    floe -c "CALL system.rollback_to_snapshot('db.t', $base)" > /dev/null
done
fl=$(printf '%s\n' "${times[@]}" | median)

# ---- DuckDB: read the same files, COPY them into one Parquet file
duck=""
if command -v node > /dev/null && [ -d "$ROOT/tests/peers/node_modules/@duckdb/node-api" ]; then
    cat > "$TMP/duck.mjs" <<JS
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '$ROOT/tests/peers/duckdb.mjs';
const files = readFileSync('$TMP/files.txt', 'utf8').trim().split('\n');
const con = await (await DuckDBInstance.create(':memory:', { threads: '$THREADS' })).connect();
const list = files.map(f => "'" + f + "'").join(',');
const times = [];
for (let i = 0; i < $RUNS; i++) {
  const t0 = process.hrtime.bigint();
  await con.run(\`COPY (SELECT * FROM read_parquet([\${list}])) TO '$TMP/duck.parquet' (FORMAT parquet)\`);
  times.push(Number(process.hrtime.bigint() - t0) / 1e9);
}
const n = (await con.runAndReadAll("SELECT count(*) FROM '$TMP/duck.parquet'")).getRows()[0][0];
if (String(n) !== '$total') { console.error('DuckDB wrote ' + n + ' rows'); process.exit(1); }
times.sort((a, b) => a - b);
console.log(times[Math.floor(times.length / 2)].toFixed(3));
JS
    duck=$(node "$TMP/duck.mjs")
fi
rate() { echo "$1 / $2" | bc -l | xargs printf '%.0f'; }
echo "| files | rows | bytes | threads | floe median s | bytes/s | files/s | DuckDB read+COPY s | bytes/s |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '| %s | %s | %s | %s | %.3f | %s | %s | %s | %s |\n' "$nfiles" "$total" "$bytes" "$THREADS" "$fl" \
    "$(rate "$bytes" "$fl")" "$(rate "$nfiles" "$fl")" "${duck:-n/a}" "${duck:+$(rate "$bytes" "$duck")}"

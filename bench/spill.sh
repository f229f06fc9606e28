#!/usr/bin/env bash
# spill.sh — out-of-core operators under a memory limit, floe against
# DuckDB (the npm peer in tests/peers): an N-row ORDER BY with OFFSET and
# an N-group GROUP BY, both over generate_series, under
# memory_limit = LIMIT; wall time and peak RSS from /usr/bin/time -v.
#
# usage: bench/spill.sh [N=20000000] [LIMIT=256MB] [THREADS=2]
# Needs build/release/floe and `npm ci` in tests/peers.  One run each, cold.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-20000000}
LIMIT=${2:-256MB}
THREADS=${3:-2}
FLOE=${FLOE_BIN:-$ROOT/build/release/floe}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

SORT="SELECT sum(x), count(*) FROM (SELECT x FROM generate_series(1, $N) a(x) ORDER BY x DESC OFFSET $((N - 1000))) t"
AGG="SELECT count(*), sum(c) FROM (SELECT x, count(*) AS c FROM generate_series(1, $N) a(x) GROUP BY x) t"

cat > "$TMP/duck.mjs" <<JS
import { DuckDBInstance } from '$ROOT/tests/peers/duckdb.mjs';
const inst = await DuckDBInstance.create(':memory:', { threads: '$THREADS', memory_limit: '$LIMIT',
                                                       temp_directory: '$TMP/duck_tmp' });
const con = await inst.connect();
const r = await con.runAndReadAll(process.argv[2]);
console.log(JSON.stringify(r.getRowsJson()));
JS

# one measurement: name engine sql -> "engine name seconds peak_MiB result"
measure() {
    local name=$1 engine=$2 sql=$3 out rc=0
    if [ "$engine" = floe ]; then
        /usr/bin/time -v -o "$TMP/time" "$FLOE" --warehouse "$TMP/wh" --format csv --memory-limit "$LIMIT" \
            -c "SET target_partitions = $THREADS" -c "SET temp_directory = '$TMP/floe_tmp'" -c "$sql" \
            >"$TMP/out" 2>&1 || rc=$?
    else
        (cd "$ROOT/tests/peers" && /usr/bin/time -v -o "$TMP/time" node "$TMP/duck.mjs" "$sql") >"$TMP/out" 2>&1 || rc=$?
    fi
    local secs rss
    secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$TMP/time")
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$TMP/time")
    out=$(tail -1 "$TMP/out" | tr '\n' ' ')
    [ $rc -eq 0 ] || out="FAILED: $(tail -1 "$TMP/out")"
    printf '%-6s %-5s %8ss %6s MiB  %s\n' "$engine" "$name" "$secs" "$rss" "$out"
}

echo "N=$N memory_limit=$LIMIT threads=$THREADS  load: $(cut -d' ' -f1-3 /proc/loadavg)"
for e in floe duckdb; do measure sort "$e" "$SORT"; done
for e in floe duckdb; do measure agg "$e" "$AGG"; done

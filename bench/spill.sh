#!/usr/bin/env bash
# spill.sh — out-of-core operators under a memory limit, floe against
# DuckDB (the npm peer in tests/peers): an N-row ORDER BY with OFFSET, an
# N-group GROUP BY over N rows (agg) and an N-group GROUP BY over 2N rows
# with a sum (agg2: x % N, every group met twice), all over
# generate_series, under memory_limit = LIMIT; wall time and peak RSS from
# /usr/bin/time -v, the median of RUNS runs (each line, then the median).
#
# usage: bench/spill.sh [N=20000000] [LIMIT=256MB] [THREADS=2] [QUERIES="sort agg agg2"] [RUNS=1]
# Needs build/release/floe and `npm ci` in tests/peers.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-20000000}
LIMIT=${2:-256MB}
THREADS=${3:-2}
QUERIES=${4:-sort agg agg2}
RUNS=${5:-1}
FLOE=${FLOE_BIN:-$ROOT/build/release/floe}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

SORT="SELECT sum(x), count(*) FROM (SELECT x FROM generate_series(1, $N) a(x) ORDER BY x DESC OFFSET $((N - 1000))) t"
AGG="SELECT count(*), sum(c) FROM (SELECT x, count(*) AS c FROM generate_series(1, $N) a(x) GROUP BY x) t"
AGG2="SELECT count(*), sum(c), sum(s) FROM (SELECT x % $N AS k, count(*) AS c, sum(x) AS s FROM generate_series(1, $((2 * N))) a(x) GROUP BY 1) t"

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

# the median of RUNS measurements: name engine sql
median_of() {
    local name=$1 engine=$2 sql=$3
    : > "$TMP/runs"
    for _ in $(seq "$RUNS"); do measure "$name" "$engine" "$sql" | tee -a "$TMP/runs"; done
    [ "$RUNS" -gt 1 ] || return 0
    sort -t' ' -k3 -g <(awk '{print $1, $2, $3+0, $4}' "$TMP/runs") | awk -v n="$RUNS" \
        'NR == int((n + 1) / 2) {printf "%-6s %-5s median %ss, %s MiB\n", $1, $2, $3, $4}'
}

echo "N=$N memory_limit=$LIMIT threads=$THREADS  load: $(cut -d' ' -f1-3 /proc/loadavg)"
for q in $QUERIES; do
    case $q in
    sort) sql=$SORT ;;
    agg) sql=$AGG ;;
    agg2) sql=$AGG2 ;;
    *) echo "unknown query '$q' (sort, agg, agg2)" >&2; exit 2 ;;
    esac
    for e in floe duckdb; do median_of "$q" "$e" "$sql"; done
done

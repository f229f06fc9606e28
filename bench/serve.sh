#!/usr/bin/env bash
# bench/serve.sh — throughput of `floe serve`: the 22 TPC-H queries of
# bench/tpch/ over Parquet files, sent by CLIENTS psql clients at once (each
# one session running all 22 in a rotated order), against DuckDB running the
# same with CLIENTS connections to one in-process instance
# (bench/serve_duckdb.mjs) — the same files, threads and mix.  Also one
# client alone.  Reports queries/s (median of RUNS) and floe/DuckDB time.
#
#   bench/serve.sh [SF] [CLIENTS] [RUNS] [THREADS]     (defaults 0.1 8 3 2)
#
# Data: bench/data/tpch-sf<SF> (`floe tpch generate --sf SF --parquet`).
# The server's result rows go to /dev/null in psql; every result is checked
# separately by tests/scripts/tpch_serve.sh (served = shell).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SF=${1:-0.1}
CLIENTS=${2:-8}
RUNS=${3:-3}
THREADS=${4:-2}
FLOE=$ROOT/build/release/floe
[ -x "$FLOE" ] || { echo "build floe first (make build)" >&2; exit 1; }
command -v psql >/dev/null || { echo "psql (postgresql-client) is needed" >&2; exit 1; }
DATA=$ROOT/bench/data/tpch-sf$SF
[ -f "$DATA/lineitem.parquet" ] || "$FLOE" tpch generate --sf "$SF" --parquet "$DATA"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench_serve.XXXXXX")
SERVER=""
cleanup() {
    [ -z "$SERVER" ] || { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }
    rm -rf "$TMP"
}
trap cleanup EXIT

files=()
for i in $(seq -w 1 22); do
    node "$ROOT/bench/tpch/tpch.mjs" sql "q$i" "$DATA" "$SF" >"$TMP/q$i.sql"
    files+=("$TMP/q$i.sql")
done
# client c's script: the 22 in the order DuckDB's connection c runs them
for c in $(seq 0 $((CLIENTS - 1))); do
    : >"$TMP/client$c.sql"
    for i in $(seq 0 21); do cat "${files[$(((i + c * 3) % 22))]}" >>"$TMP/client$c.sql"; echo ";" >>"$TMP/client$c.sql"; done
done

: >"$TMP/serve.out"
FLOE_THREADS=$THREADS "$FLOE" serve --warehouse "$TMP/wh" --port 0 >"$TMP/serve.out" 2>"$TMP/serve.log" &
SERVER=$!
PORT=""
for _ in $(seq 1 300); do
    PORT=$(sed -n 's/^floe serve: listening on .*:\([0-9]*\)$/\1/p' "$TMP/serve.out")
    [ -n "$PORT" ] && break
    sleep 0.1
done
[ -n "$PORT" ] || { cat "$TMP/serve.log"; echo "floe serve did not start" >&2; exit 1; }

# wall seconds for N clients of floe serve
floe_run() {
    local n=$1 t0 t1 pids=() c
    t0=$(date +%s.%N)
    for c in $(seq 0 $((n - 1))); do
        psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U floe -d floe -f "$TMP/client$c.sql" >/dev/null &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
duck_run() {
    node "$ROOT/bench/serve_duckdb.mjs" "$THREADS" "$1" "${files[@]}" | sed 's/.*"seconds":\([0-9.]*\).*/\1/' |
        awk '{ printf "%.2f", $1 }'
}
median() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "SF=$SF clients=$CLIENTS runs=$RUNS threads=$THREADS  load: $(cut -d' ' -f1-3 /proc/loadavg)"
for n in 1 "$CLIENTS"; do
    fl="" dk=""
    for _ in $(seq "$RUNS"); do
        fl="$fl $(floe_run "$n")"
        dk="$dk $(duck_run "$n")"
    done
    fm=$(echo $fl | median) dm=$(echo $dk | median)
    q=$((n * 22))
    awk -v n="$n" -v q="$q" -v fm="$fm" -v dm="$dm" -v fl="$fl" -v dk="$dk" 'BEGIN {
        printf "| %d | %d | %.2f s (%s) | %.1f | %.2f s (%s) | %.1f | %.2f |\n",
               n, q, fm, fl, q / fm, dm, dk, q / dm, fm / dm }'
done
echo "duckdb: $(node -e "import('$ROOT/tests/peers/duckdb.mjs').then(async m => { const i = await m.DuckDBInstance.create(':memory:'); const c = await i.connect(); console.log((await c.runAndReadAll('SELECT version() v')).getRowObjectsJson()[0].v); })")"

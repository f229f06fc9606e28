#!/usr/bin/env bash
# The 22 TPC-H queries of bench/tpch/ at SF 0.01 through `floe serve`
# (psql --csv on 127.0.0.1) give exactly what the shell gives over the same
# Iceberg warehouse (`floe --format csv`), first one client at a time, then
# eight psql clients at once, each running all 22 in its own order.
# (bench/serve.sh times the same at larger scale: queries/s.)
# Needs psql (postgresql-client): a skip when missing, a failure under CI=true.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
fail() { echo "FAIL: $*"; exit 1; }
if ! command -v psql >/dev/null; then
    [ "${CI:-}" = true ] && fail "psql not found (postgresql-client) under CI=true"
    echo "SKIP: psql not found (Debian package postgresql-client)"; exit 0
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tpch_serve.XXXXXX")
SERVER=""
cleanup() {
    [ -z "$SERVER" ] || { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }
    rm -rf "$TMP"
}
trap cleanup EXIT
SF=0.01
"$FLOE_BIN" tpch generate --sf "$SF" --warehouse "$TMP/wh" >"$TMP/gen.log" 2>&1 || { cat "$TMP/gen.log"; fail "tpch generate"; }

: >"$TMP/serve.out"
"$FLOE_BIN" serve --warehouse "$TMP/wh" --port 0 >"$TMP/serve.out" 2>"$TMP/serve.log" &
SERVER=$!
PORT=""
for _ in $(seq 1 300); do
    PORT=$(sed -n 's/^floe serve: listening on .*:\([0-9]*\)$/\1/p' "$TMP/serve.out")
    [ -n "$PORT" ] && break
    kill -0 "$SERVER" 2>/dev/null || { cat "$TMP/serve.log"; fail "floe serve exited"; }
    sleep 0.1
done
[ -n "$PORT" ] || fail "floe serve did not start listening"

# The queries with their placeholders filled in for the warehouse's tables
# (bench/tpch/tpch.mjs does the same for Parquet files).
fraction=$(awk -v sf="$SF" 'BEGIN { printf "%.10g", 0.0001 / sf }')
queries=()
for f in "$SRC"/bench/tpch/q[0-9][0-9].sql; do
    q=$(basename "$f" .sql)
    sed -e 's/{q11_fraction}/'"$fraction"'/g' -e 's/{\([a-z]*\)}/tpch.\1/g' "$f" >"$TMP/$q.sql"
    ! grep -q '{' "$TMP/$q.sql" || fail "$q: a placeholder is left"
    queries+=("$q")
done
[ ${#queries[@]} -eq 22 ] || fail "expected 22 queries in bench/tpch, found ${#queries[@]}"

client() { psql -X -q -v ON_ERROR_STOP=1 --csv -h 127.0.0.1 -p "$PORT" -U floe -d floe "$@"; }
for q in "${queries[@]}"; do
    "$FLOE_BIN" --warehouse "$TMP/wh" --format csv -f "$TMP/$q.sql" >"$TMP/$q.shell" 2>&1 ||
        fail "$q in the shell: $(head -5 "$TMP/$q.shell")"
    [ "$(wc -l <"$TMP/$q.shell")" -ge 2 ] || fail "$q: the shell returned no rows"
    client -f "$TMP/$q.sql" >"$TMP/$q.served" 2>&1 || fail "$q through floe serve: $(head -5 "$TMP/$q.served")"
    cmp -s "$TMP/$q.shell" "$TMP/$q.served" ||
        fail "$q: floe serve and the shell differ: $(diff "$TMP/$q.shell" "$TMP/$q.served" | head -6)"
done
echo "ok: 22 TPC-H queries through floe serve equal the shell's results"

# Eight clients at once, each through all 22 in a rotated order (four each
# in a sanitizer build, where a query is ten times slower).
per_client=22
if [ -n "${FLOE_BINARY_DIR:-}" ] && grep -Eq '^FLOE_(SANITIZE|TSAN):BOOL=ON' "$FLOE_BINARY_DIR/CMakeCache.txt" 2>/dev/null; then
    per_client=4
fi
pids=()
for c in $(seq 0 7); do
    (
        for i in $(seq 0 $((per_client - 1))); do
            q=${queries[$(((i + c * 3) % 22))]}
            client -f "$TMP/$q.sql" >"$TMP/$q.c$c" 2>&1 || { echo "client $c, $q: $(head -3 "$TMP/$q.c$c")"; exit 1; }
            cmp -s "$TMP/$q.shell" "$TMP/$q.c$c" || { echo "client $c, $q: differs from the shell"; exit 1; }
        done
    ) &
    pids+=($!)
done
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
[ "$bad" -eq 0 ] || fail "$bad of 8 concurrent clients saw an error or a different result"
kill -0 "$SERVER" 2>/dev/null || fail "floe serve died under 8 clients"
echo "ok: 8 concurrent clients, $((8 * per_client)) queries, every result equal to the shell's"

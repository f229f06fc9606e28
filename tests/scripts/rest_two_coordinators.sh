#!/usr/bin/env bash
# rest_two_coordinators.sh — two floe processes commit to one table
# through `floe rest-server` at the same time, repeatedly.
#
# Each process runs N one-row INSERTs back to back into the same table.
# Commits that lose a race are answered 409 by the server (its
# requirement check: the branch moved), which the client maps to
# FLOE_ERR_CONFLICT, so the commit loop reloads and retries.  All 2N
# commits must land: 2N snapshots (plus none lost or doubled) and exactly
# the 2N rows, each once.  The server's log must show at least one 409
# when the processes really overlapped (reported, not required: timing).
set -euo pipefail
src=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bindir=${FLOE_BINARY_DIR:-$src/build/release}
FLOE_BIN=${FLOE_BIN:-$bindir/floe}
[ -x "$FLOE_BIN" ] || { echo "FAIL: $FLOE_BIN not built"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rest_two_coordinators.XXXXXX")
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=rest_server_lib.bash
. "$src/tests/scripts/rest_server_lib.bash"
trap 'rest_server_cleanup; rm -rf "$tmp"' EXIT

rand=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
secret="tc-${rand}-secret"
rest_server_start "$tmp/wh" --client-id coord --client-secret "$secret" --token-lifetime 600
floe() { timeout 300 "$FLOE_BIN" --catalog "rest:$rest_url" --catalog-credential "coord:$secret" --format csv "$@"; }

# Short, many retries: the test is about every commit landing.
floe -c "CREATE SCHEMA db" \
     -c "CREATE TABLE db.t (writer int, k int)" \
     -c "ALTER TABLE db.t SET ('commit.retry.num-retries' = '50', 'commit.retry.min-wait-ms' = '10', 'commit.retry.max-wait-ms' = '200')" \
     >"$tmp/setup.out" 2>&1 || fail "setup: $(cat "$tmp/setup.out")"

n=15
for w in 1 2; do
  for ((k = 1; k <= n; k++)); do echo "INSERT INTO db.t VALUES ($w, $k);"; done >"$tmp/w$w.sql"
done
floe -f "$tmp/w1.sql" >"$tmp/w1.out" 2>&1 &
p1=$!
floe -f "$tmp/w2.sql" >"$tmp/w2.out" 2>&1 &
p2=$!
rc1=0 rc2=0
wait "$p1" || rc1=$?
wait "$p2" || rc2=$?
[ "$rc1" = 0 ] || fail "writer 1 failed (exit $rc1): $(cat "$tmp/w1.out")"
[ "$rc2" = 0 ] || fail "writer 2 failed (exit $rc2): $(cat "$tmp/w2.out")"

floe -c "SELECT count(*) AS n, count(DISTINCT writer * 1000 + k) AS d, sum(k) AS s FROM db.t" >"$tmp/count.out" 2>&1 ||
  fail "count: $(cat "$tmp/count.out")"
[ "$(tail -n 1 "$tmp/count.out")" = "$((2 * n)),$((2 * n)),$((n * (n + 1)))" ] ||
  fail "expected $((2 * n)) distinct rows summing to $((n * (n + 1))): $(cat "$tmp/count.out")"
floe -c "SELECT count(*) AS n FROM db.\"t\$snapshots\"" >"$tmp/snaps.out" 2>&1 || fail "snapshots: $(cat "$tmp/snaps.out")"
[ "$(tail -n 1 "$tmp/snaps.out")" = "$((2 * n))" ] || fail "expected $((2 * n)) snapshots: $(cat "$tmp/snaps.out")"

conflicts=$(grep -c 'POST /v1/namespaces/db/tables/t 409' "$rest_log" || true)
rest_server_stop
if grep -q "$rand" "$rest_log"; then fail "the secret appears in the server log"; fi
echo "rest_two_coordinators: ok ($((2 * n)) commits landed; $conflicts lost races retried)"

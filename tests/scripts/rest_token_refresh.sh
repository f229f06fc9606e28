#!/usr/bin/env bash
# rest_token_refresh.sh — one long-lived floe process stays authenticated
# to a REST catalog whose tokens live 2 seconds.
#
# `floe rest-server --token-lifetime 2`; one `floe --catalog rest:...
# --catalog-credential ...` process reads statements from a pipe, one
# INSERT a second for ~12 s (six token lifetimes), then a count.  Every
# statement must succeed, the count must be exact, the server's log must
# show several tokens issued to the client, and the client's info log
# must show the refreshes — never the token or the secret.  Then the
# server restarts under a running session (its tokens are forgotten): the
# next statement is answered 401, the client fetches a new token and
# retries, and the statement succeeds.
set -euo pipefail
src=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bindir=${FLOE_BINARY_DIR:-$src/build/release}
FLOE_BIN=${FLOE_BIN:-$bindir/floe}
[ -x "$FLOE_BIN" ] || { echo "FAIL: $FLOE_BIN not built"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rest_token_refresh.XXXXXX")
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=rest_server_lib.bash
. "$src/tests/scripts/rest_server_lib.bash"
trap 'rest_server_cleanup; rm -rf "$tmp"' EXIT

rand=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
secret="tr-${rand}-secret"
rest_server_start "$tmp/wh" --client-id refresher --client-secret "$secret" --token-lifetime 2

n=12
{
  echo "CREATE SCHEMA IF NOT EXISTS db;"
  echo "CREATE TABLE db.t (i int, at timestamp);"
  for ((i = 1; i <= n; i++)); do
    echo "INSERT INTO db.t VALUES ($i, now());"
    sleep 1
  done
  echo "SELECT count(*) AS n, sum(i) AS s FROM db.t;"
} | FLOE_LOG=info timeout 120 "$FLOE_BIN" --catalog "rest:$rest_url" --catalog-credential "refresher:$secret" \
      --format csv >"$tmp/out" 2>"$tmp/client.log" || fail "the piped session failed: $(cat "$tmp/out" "$tmp/client.log")"

[ "$(tail -n 1 "$tmp/out")" = "$n,$((n * (n + 1) / 2))" ] ||
  fail "expected $n rows summing to $((n * (n + 1) / 2)), got: $(cat "$tmp/out")"

issued=$(grep -c 'token issued client=refresher expires_in=2' "$rest_log" || true)
[ "$issued" -ge 4 ] || fail "the server issued $issued tokens in ~${n} s of 2 s tokens (expected >= 4): $(cat "$rest_log")"
refreshed=$(grep -c 'OAuth2 token refreshed' "$tmp/client.log" || true)
[ "$refreshed" -ge 3 ] || fail "the client logged $refreshed refreshes: $(cat "$tmp/client.log")"

rest_server_stop
log1=$rest_log

# A token the server no longer knows (it restarted: tokens live in its
# memory) is answered 401; the client fetches a new one and retries, and
# the statement succeeds.  Long tokens here, so only the 401 refreshes.
rest_server_start "$tmp/wh" --client-id refresher --client-secret "$secret" --token-lifetime 600
port=${rest_url##*:}
mkfifo "$tmp/in"
FLOE_LOG=info timeout 120 "$FLOE_BIN" --catalog "rest:$rest_url" --catalog-credential "refresher:$secret" \
  --format csv <"$tmp/in" >"$tmp/out2" 2>"$tmp/client2.log" &
floe_pid=$!
exec 3>"$tmp/in"
echo "INSERT INTO db.t VALUES (100, now());" >&3
for ((i = 0; i < 100; i++)); do
  grep -q 'POST /v1/namespaces/db/tables/t 200' "$rest_log" && break
  sleep 0.1
done
rest_server_stop
# (3>&-: the server must not hold the session's pipe open)
rest_server_start "$tmp/wh" --client-id refresher --client-secret "$secret" --token-lifetime 600 --port "$port" 3>&-
[ "${rest_url##*:}" = "$port" ] || fail "the restarted server listens on ${rest_url}, not port $port"
echo "INSERT INTO db.t VALUES (101, now());" >&3
echo "SELECT count(*) AS n FROM db.t;" >&3
exec 3>&-
rc=0; wait "$floe_pid" || rc=$?; [ "$rc" = 0 ] || fail "the session across a server restart failed (exit $rc): $(cat "$tmp/out2" "$tmp/client2.log")"
[ "$(tail -n 1 "$tmp/out2")" = "$((n + 2))" ] || fail "count after the restart: $(cat "$tmp/out2")"
grep -q "rejected the token (401)" "$tmp/client2.log" || fail "no 401 retry logged: $(cat "$tmp/client2.log")"
grep -q "401 invalid token" "$rest_log" || fail "the restarted server logged no rejected token: $(cat "$rest_log")"
rest_server_stop

for f in "$log1" "$rest_log" "$tmp/client.log" "$tmp/client2.log" "$tmp/out" "$tmp/out2"; do
  if grep -q "$rand" "$f"; then fail "the secret appears in $f"; fi
done
echo "rest_token_refresh: ok ($issued tokens issued, $refreshed refreshes logged; 401 retried after a restart)"

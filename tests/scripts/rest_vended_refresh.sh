#!/usr/bin/env bash
# rest_vended_refresh.sh — vended S3 credentials that expire during a
# statement are refreshed from the catalog, and the statement succeeds.
#
# `floe rest-server` keeps its tables on S3 (the s3rver peer,
# tests/peers/s3_peer.bash) and vends the S3 keys with a 1-second lifetime.
# The client has no AWS_* credentials of its own.  One INSERT of 3 million
# rows into a bucketed table runs for several seconds, well past the keys'
# lifetime: the S3 client must ask the credential store, whose refresher
# (the REST client) calls GET .../tables/t/credentials.  The rows must all
# be there, the client must log the refresh and the server must show the
# credentials request.  Skips when node or the s3rver peer is missing,
# except under CI=true.
set -euo pipefail
src=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bindir=${FLOE_BINARY_DIR:-$src/build/release}
FLOE_BIN=${FLOE_BIN:-$bindir/floe}

skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL: $*"; exit 1; fi
  echo "SKIP: $*"
  exit 0
}
command -v node >/dev/null 2>&1 || skip "node is not installed"
[ -f "$src/tests/peers/node_modules/s3rver/package.json" ] ||
  skip "s3rver not installed under tests/peers/node_modules (run scripts/install-deps.sh)"
[ -x "$FLOE_BIN" ] || { echo "FAIL: $FLOE_BIN not built"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rest_vended_refresh.XXXXXX")
peer_pid=
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=rest_server_lib.bash
. "$src/tests/scripts/rest_server_lib.bash"
cleanup() {
  rest_server_cleanup
  [ -n "$peer_pid" ] && kill "$peer_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

bucket=floe-vend
# shellcheck source=../peers/s3_peer.bash
source "$src/tests/peers/s3_peer.bash"
s3_peer_start "$bucket" vendref
rest_server_start "s3://$bucket/wh" --catalog-db "$tmp/catalog.db" \
  --vend "s3.access-key-id=$AWS_ACCESS_KEY_ID" --vend "s3.secret-access-key=$secret" \
  --vend "s3.endpoint=$AWS_ENDPOINT_URL" --vend s3.path-style-access=true --credential-lifetime 1

n=3000000
env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u AWS_ENDPOINT_URL FLOE_LOG=info \
  timeout 300 "$FLOE_BIN" --catalog "rest:$rest_url" --format csv \
  -c "CREATE SCHEMA s" \
  -c "CREATE TABLE s.t (id bigint, v string) PARTITIONED BY (bucket(8, id))" \
  -c "INSERT INTO s.t SELECT i, 'value ' || CAST(i AS varchar) FROM generate_series(1, $n) AS g(i)" \
  -c "SELECT count(*) AS n, count(DISTINCT id) AS d FROM s.t" >"$tmp/out" 2>"$tmp/client.log" ||
  fail "the session failed: $(cat "$tmp/out"; tail -20 "$tmp/client.log")"
[ "$(tail -n 1 "$tmp/out")" = "$n,$n" ] || fail "expected $n distinct rows: $(cat "$tmp/out")"
refreshes=$(grep -c 'refreshed the storage credentials of table s.t' "$tmp/client.log" || true)
[ "$refreshes" -ge 1 ] || fail "no storage credential refresh logged in a statement past the keys' lifetime: $(cat "$tmp/client.log")"
grep -q 'GET /v1/namespaces/s/tables/t/credentials 200' "$rest_log" ||
  fail "the server saw no credentials request: $(cat "$rest_log")"
rest_server_stop
if grep -qF -- "$secret" "$tmp/client.log" "$tmp/out" "$rest_log"; then fail "the S3 secret appears in a log"; fi
echo "rest_vended_refresh: ok ($refreshes refreshes during the statements)"

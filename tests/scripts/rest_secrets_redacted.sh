#!/usr/bin/env bash
# rest_secrets_redacted.sh — a whole REST session logged at debug level
# shows no secret.
#
# `floe rest-server` keeps its tables on S3 (the s3rver peer behind a
# SigV4-checking proxy, tests/peers/s3_peer.bash), requires OAuth2 client
# credentials and vends the S3 keys (access key, secret key, a 4 s
# expiry) to clients.  (No session token: s3rver rejects any.)  The floe client runs with FLOE_LOG=debug
# and WITHOUT any AWS_* variables: it can only reach S3 with the vended
# keys.  It creates, inserts, selects, alters and drops.  Then the client's
# log and output and the server's log are searched for the client secret,
# the S3 secret key and any bearer or access token:
# none may appear (a redacted "***" must), and the debug log must really
# contain the requests (so the test is not vacuous).
# Skips when node or the s3rver peer is missing, except under CI=true.
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

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rest_secrets.XXXXXX")
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

bucket=floe-rest
# shellcheck source=../peers/s3_peer.bash
source "$src/tests/peers/s3_peer.bash"
s3_peer_start "$bucket" restsec
s3_endpoint=$AWS_ENDPOINT_URL
client_secret="cs-${rand}-clientsecret"

# The server reaches S3 with the AWS_* variables s3_peer_start set; it
# vends the same keys (and a session token) to its clients.
FLOE_LOG=debug rest_server_start "s3://$bucket/wh" --catalog-db "$tmp/catalog.db" \
  --client-id sec-client --client-secret "$client_secret" --token-lifetime 3 \
  --vend "s3.access-key-id=$AWS_ACCESS_KEY_ID" --vend "s3.secret-access-key=$secret" \
  --vend "s3.endpoint=$s3_endpoint" \
  --vend s3.path-style-access=true --vend client.region=us-east-1 --credential-lifetime 4

# The client has no AWS credentials of its own.
floe() {
  env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u AWS_ENDPOINT_URL FLOE_LOG=debug \
    timeout 180 "$FLOE_BIN" --catalog "rest:$rest_url" --catalog-credential "sec-client:$client_secret" --format csv "$@"
}
{
  echo "CREATE SCHEMA s;"
  echo "CREATE TABLE s.t (id bigint, v string) PARTITIONED BY (bucket(4, id));"
  echo "INSERT INTO s.t VALUES (1, 'one'), (2, 'two'), (3, 'three');"
  sleep 4 # past a token's and the vended keys' lifetime
  echo "ALTER TABLE s.t ADD COLUMN w int;"
  echo "INSERT INTO s.t VALUES (4, 'four', 4);"
  echo "SELECT count(*) AS n, sum(id) AS s FROM s.t;"
  echo "DROP TABLE s.t PURGE;"
} | floe >"$tmp/client.out" 2>"$tmp/client.log" ||
  fail "the session failed: $(cat "$tmp/client.out"; tail -30 "$tmp/client.log")"
grep -qx '4,10' "$tmp/client.out" || fail "wrong result: $(cat "$tmp/client.out")"

# The data really went to S3 through the vended keys.
grep -q "X-Iceberg-Access-Delegation" "$tmp/client.log" || fail "no load with vended credentials in the debug log"
grep -q '\[s3\]' "$tmp/client.log" || fail "the client log has no S3 lines: the test would prove nothing"
grep -q 'REST request' "$tmp/client.log" || fail "the client's debug log has no REST requests"
grep -q '\*\*\*' "$tmp/client.log" || fail "nothing redacted in the client log: are the secrets logged at all?"

rest_server_stop
# Every token the server issued: the client's log never shows them; the
# server logs only "token issued", so collect them from nowhere but the
# secrets we know, plus any bearer value anywhere.
leaks=0
for f in "$tmp/client.log" "$tmp/client.out" "$rest_log"; do
  for s in "$client_secret" "$secret" "$rand"; do
    if grep -qF -- "$s" "$f"; then
      echo "LEAK in $(basename "$f"): $(grep -F -- "$s" "$f" | head -3)"
      leaks=$((leaks + 1))
    fi
  done
  if grep -E 'Bearer [A-Za-z0-9._~+/=-]{8,}' "$f" | grep -v 'Bearer \*\*\*' | grep -q .; then
    echo "LEAK in $(basename "$f"): a bearer token: $(grep -E 'Bearer [A-Za-z0-9._~+/=-]{8,}' "$f" | head -3)"
    leaks=$((leaks + 1))
  fi
  if grep -E '"access_token" *: *"[^*"]' "$f" | grep -q .; then
    echo "LEAK in $(basename "$f"): an access_token: $(grep -E '"access_token" *: *"[^*"]' "$f" | head -3)"
    leaks=$((leaks + 1))
  fi
done
[ "$leaks" = 0 ] || fail "$leaks secret(s) in the logs"
grep -q 'OAuth2 token refreshed' "$tmp/client.log" || fail "no token refresh in the client log (3 s tokens, 4 s pause)"
echo "rest_secrets_redacted: ok ($(wc -l <"$tmp/client.log") client log lines, $(wc -l <"$rest_log") server log lines," \
  "$(grep -c 'credentials .* stored' "$tmp/client.log" || true) credential puts," \
  "$(grep -c 'refreshed the storage credentials' "$tmp/client.log" || true) credential refreshes)"

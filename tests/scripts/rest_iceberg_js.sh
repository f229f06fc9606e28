#!/usr/bin/env bash
# The JavaScript Iceberg REST client iceberg-js (npm peer) creates, lists,
# loads, changes and drops namespaces and tables on `floe rest-server`
# (tests/scripts/rest_iceberg_js.mjs): once without authentication, once
# with OAuth2 client credentials and vended storage credentials.  The
# server must stop cleanly on SIGTERM, and its log must show the token it
# issued but neither the client secret nor the vended secret.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
skip_test() {
    if [ "${CI:-}" = true ]; then echo "FAIL: $1 under CI=true"; exit 1; fi
    echo "SKIP: $1"; exit 0
}
fail() { echo "FAIL: $*"; exit 1; }
command -v node >/dev/null && [ -d "$SRC/tests/peers/node_modules/iceberg-js" ] ||
    skip_test "node or the iceberg-js npm peer not installed (scripts/install-deps.sh)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rest_iceberg_js.XXXXXX")
# shellcheck source=rest_server_lib.bash
. "$SRC/tests/scripts/rest_server_lib.bash"
trap 'rest_server_cleanup; rm -rf "$tmp"' EXIT

run_js() { timeout 120 node "$SRC/tests/scripts/rest_iceberg_js.mjs" "$@" || fail "iceberg-js checks failed ($*)"; }

# 1. No authentication.
rest_server_start "$tmp/wh1"
run_js "$rest_url" none
rest_server_stop
grep -q 'POST /v1/namespaces/js_ns/tables 200' "$rest_log" || fail "the server log has no request lines"

# 2. OAuth2 client credentials, vended credentials.
rand=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
client_secret="cs-${rand}-secret"
vend_secret="vs-${rand}-secret"
rest_server_start "$tmp/wh2" --client-id js-client --client-secret "$client_secret" --token-lifetime 600 \
    --vend s3.access-key-id=AKIAJSTEST --vend "s3.secret-access-key=$vend_secret" \
    --vend s3.session-token=sess-$rand --credential-lifetime 900
run_js "$rest_url" oauth js-client "$client_secret" AKIAJSTEST
rest_server_stop
grep -q 'token issued client=js-client expires_in=600' "$rest_log" || fail "no 'token issued' line in the log"
grep -q '401 missing token' "$rest_log" || fail "no '401 missing token' line in the log"
grep -q '401 invalid token' "$rest_log" || fail "no '401 invalid token' line in the log"
if grep -q "$rand" "$rest_log"; then fail "a secret appears in the server log: $(grep "$rand" "$rest_log")"; fi
echo "rest_iceberg_js: ok"

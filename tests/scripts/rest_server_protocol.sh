#!/usr/bin/env bash
# `floe rest-server` speaks the Iceberg REST protocol as the OpenAPI
# describes it, checked with curl: the error model on bad input (bad JSON,
# missing fields, unknown routes, bad names, oversized bodies) with the
# server still answering afterwards; OAuth2 tokens that stop working after
# --token-lifetime (401 and a "401 expired token" log line) and token
# exchange; 400 randomly mutated request bodies (rest_server_protocol_fuzz.py)
# never give a 5xx; a commit whose requirement fails is 409 CommitFailedException,
# and concurrent commits to one table all land; register, rename,
# namespace properties, purge, the credentials endpoint; a clean exit on
# SIGTERM; no secret in the log.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
skip_test() {
    if [ "${CI:-}" = true ]; then echo "FAIL: $1 under CI=true"; exit 1; fi
    echo "SKIP: $1"; exit 0
}
fail() { echo "FAIL: $*"; exit 1; }
command -v curl >/dev/null && command -v python3 >/dev/null || skip_test "curl or python3 not installed"
# The interpreter itself: a version-manager shim in front of python3 can
# cost seconds per start on a busy machine, and this test starts it often.
py=$(python3 -c 'import sys; print(sys.executable)')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rest_server_protocol.XXXXXX")
# shellcheck source=rest_server_lib.bash
. "$SRC/tests/scripts/rest_server_lib.bash"
trap 'rest_server_cleanup; rm -rf "$tmp"' EXIT

auth=()
checks=0
ok() { checks=$((checks + 1)); echo "ok $checks $*"; }

# req METHOD PATH [BODY [curl options...]]: sets $code, the body in $tmp/body.
req() {
  local method=$1 path=$2
  shift 2
  local args=(-sS -m 30 -o "$tmp/body" -w '%{http_code}')
  if [ "$method" = HEAD ]; then args+=(-I); else args+=(-X "$method"); fi
  if [ $# -gt 0 ]; then args+=(--data-binary "$1"); shift; fi
  code=$(curl "${args[@]}" "${auth[@]}" "$@" "$rest_url$path") || fail "curl $method $path failed"
}
# jv EXPR: a Python expression over the response body d.
jv() { "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$tmp/body" "$1"; }
expect() { # expect CODE WHAT
  [ "$code" = "$1" ] || fail "$2: HTTP $code, expected $1: $(head -c 400 "$tmp/body")"
  ok "$2 -> $1"
}
expect_error() { # expect_error CODE TYPE MESSAGE-SUBSTRING WHAT
  [ "$code" = "$1" ] || fail "$4: HTTP $code, expected $1: $(head -c 400 "$tmp/body")"
  local got
  got=$(jv "d['error']['type'] + '|' + str(d['error']['code']) + '|' + d['error']['message']") ||
    fail "$4: not the error model: $(head -c 400 "$tmp/body")"
  case "$got" in
    "$2|$1|"*"$3"*) ok "$4 -> $1 $2" ;;
    *) fail "$4: expected $2/$1 with '$3', got: $got" ;;
  esac
}
schema='{"type":"struct","fields":[{"id":1,"name":"id","type":"long","required":true},{"id":2,"name":"s","type":"string","required":false}]}'

# ---- 1. protocol and error model, no authentication ---------------------------
rest_server_start "$tmp/wh" --vend s3.access-key-id=AKIAPROTO --vend s3.secret-access-key=vend-secret-xyzzy \
    --credential-lifetime 120

req GET /v1/config
expect 200 "GET /v1/config"
[ "$(jv "'prefix' in d['overrides'] or 'prefix' in d['defaults']")" = False ] || fail "config names a prefix"
[ "$(jv "'POST /v1/{prefix}/namespaces/{namespace}/register' in d['endpoints']")" = True ] ||
  fail "config endpoints lack register"

req POST /v1/namespaces '{"namespace": ["db"'
expect_error 400 BadRequestException "CreateNamespaceRequest: invalid JSON" "bad JSON"
req POST /v1/namespaces '[1,2]'
expect_error 400 BadRequestException "must be a JSON object" "a JSON array body"
req POST /v1/namespaces '{"properties":{}}'
expect_error 400 BadRequestException "'namespace'" "a namespace request without namespace"
req POST /v1/namespaces '{"namespace":["a","b"]}'
expect_error 400 BadRequestException "one-level" "a two-level namespace"
req POST /v1/namespaces '{"namespace":[".."]}'
expect_error 400 BadRequestException "not allowed" "namespace '..'"
req POST /v1/namespaces '{"namespace":["db"],"properties":{"owner":7}}'
expect_error 400 BadRequestException "'owner' must be a string" "a non-string property"
req POST /v1/namespaces
expect_error 400 BadRequestException "no body" "no body"
req GET /v1/no/such/route
expect_error 404 NotFoundException "no route" "an unknown route"
req GET /v2/config
expect_error 404 NotFoundException "no route" "a path outside /v1"
req PUT /v1/namespaces '{}'
expect_error 405 MethodNotAllowedException "PUT" "PUT /v1/namespaces"
req GET /v1/namespaces/a%zz
expect_error 400 BadRequestException "percent-escape" "a bad percent-escape"
req GET /v1/namespaces/a%00b
expect_error 400 BadRequestException "percent-escape" "an escaped NUL"
head -c 17000000 /dev/zero >"$tmp/big"
req POST /v1/namespaces @"$tmp/big"
expect_error 413 BadRequestException "larger than" "a 17 MB body"
req GET /v1/namespaces/nope
expect_error 404 NoSuchNamespaceException "nope" "load a missing namespace"
req HEAD /v1/namespaces/nope
expect 404 "HEAD a missing namespace"

# namespaces and properties
req POST /v1/namespaces '{"namespace":["db"],"properties":{"owner":"alice","dept":"eng"}}'
expect 200 "create namespace db"
[ "$(jv "d['namespace'] == ['db'] and d['properties']['owner'] == 'alice'")" = True ] || fail "create answer"
req POST /v1/namespaces '{"namespace":["db"]}'
expect_error 409 AlreadyExistsException "db" "create db again"
req HEAD /v1/namespaces/db
expect 204 "HEAD db"
req POST /v1/namespaces/db/properties '{"updates":{"owner":"bob","tier":"gold"},"removals":["dept","ghost"]}'
expect 200 "update namespace properties"
[ "$(jv "sorted(d['updated']) == ['owner','tier'] and d['removed'] == ['dept'] and d['missing'] == ['ghost']")" = True ] ||
  fail "update properties answer: $(cat "$tmp/body")"
req GET /v1/namespaces/db
[ "$(jv "d['properties'] == {'owner':'bob','tier':'gold'}")" = True ] || fail "properties after update: $(cat "$tmp/body")"
ok "namespace properties updated and removed"
req POST /v1/namespaces/db/properties '{"updates":{"x":"1"},"removals":["x"]}'
expect_error 422 UnprocessableEntityException "both updated and removed" "a key both set and removed"
req POST /v1/namespaces/nope/properties '{"updates":{"x":"1"}}'
expect_error 404 NoSuchNamespaceException "nope" "properties of a missing namespace"
req POST /v1/namespaces '{"namespace":["other"]}'
expect 200 "create namespace other"
req GET '/v1/namespaces?pageSize=1'
[ "$(jv "d['namespaces'] == [['db']] and d['next-page-token'] == 'db'")" = True ] || fail "page 1: $(cat "$tmp/body")"
req GET '/v1/namespaces?pageSize=1&pageToken=db'
[ "$(jv "d['namespaces'] == [['other']] and 'next-page-token' not in d")" = True ] || fail "page 2: $(cat "$tmp/body")"
ok "namespace pages"

# tables: create errors, load, vended credentials
req POST /v1/namespaces/db/tables '{"schema":'"$schema"'}'
expect_error 400 BadRequestException "'name'" "create a table without a name"
req POST /v1/namespaces/db/tables '{"name":"t"}'
expect_error 400 BadRequestException "'schema'" "create a table without a schema"
req POST /v1/namespaces/db/tables '{"name":"t","schema":{"type":"struct","fields":[{"id":1,"name":"a","type":"wat","required":true}]}}'
expect_error 400 BadRequestException "wat" "create a table with an unknown type"
req GET /v1/namespaces/db/tables/a%2Fb
expect_error 400 BadRequestException "slash" "a table path segment with an escaped slash"
req POST /v1/namespaces/db/tables '{"name":"a/b","schema":'"$schema"'}'
expect_error 400 BadRequestException "slash" "a table name with a slash"
req POST /v1/namespaces/db/tables '{"name":"t","schema":'"$schema"',"properties":{"format-version":"1"}}'
expect 200 "create table db.t (format-version 1)"
[ "$(jv "d['metadata']['format-version'] == 1 and 'format-version' not in d['metadata']['properties']")" = True ] ||
  fail "format-version property"
uuid=$(jv "d['metadata']['table-uuid']")
loc1=$(jv "d['metadata-location']")
[ -f "$loc1" ] || fail "no metadata file at $loc1"
req GET /v1/namespaces/db/tables/t
expect 200 "load db.t"
[ "$(jv "d['config']['s3.access-key-id'] == 'AKIAPROTO' and d['storage-credentials'][0]['prefix'] == d['metadata']['location']")" = True ] ||
  fail "vended credentials on load: $(cat "$tmp/body")"
exp1=$(jv "int(d['config']['s3.session-token-expires-at-ms'])")
now=$(($(date +%s) * 1000))
[ "$exp1" -gt $((now + 100000)) ] && [ "$exp1" -lt $((now + 140000)) ] || fail "expiry $exp1 is not now+120 s ($now)"
ok "vended credentials expire at now + --credential-lifetime"
sleep 1
req GET /v1/namespaces/db/tables/t/credentials
expect 200 "GET credentials"
exp2=$(jv "int(d['storage-credentials'][0]['config']['s3.session-token-expires-at-ms'])")
[ "$exp2" -gt "$exp1" ] || fail "credentials endpoint did not give a fresh expiry ($exp2 <= $exp1)"
ok "the credentials endpoint gives a fresh expiry"
req GET /v1/namespaces/db/tables/nope/credentials
expect_error 404 NoSuchTableException "nope" "credentials of a missing table"
req HEAD /v1/namespaces/db/tables/t
expect 204 "HEAD db.t"

# commits
req POST /v1/namespaces/db/tables/t '{"requirements":[{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":12345}],"updates":[]}'
expect_error 409 CommitFailedException "requirement failed" "a commit whose requirement fails"
req POST /v1/namespaces/db/tables/t '{"requirements":[{"type":"assert-table-uuid","uuid":"'"$uuid"'"}],"updates":[{"action":"set-properties","updates":{"k":"v"}}]}'
expect 200 "a commit whose requirement holds"
[ "$(jv "d['metadata']['properties']['k'] == 'v' and d['metadata']['metadata-log'][-1]['metadata-file'] == '$loc1'")" = True ] ||
  fail "commit answer: $(head -c 600 "$tmp/body")"
req POST /v1/namespaces/db/tables/t '{"requirements":[]}'
expect_error 400 BadRequestException "'updates'" "a commit without updates"
req POST /v1/namespaces/db/tables/t '{"requirements":[],"updates":[{"action":"no-such-action"}]}'
expect_error 400 BadRequestException "no-such-action" "an unknown update action"
req POST /v1/namespaces/db/tables/nope '{"requirements":[],"updates":[]}'
expect_error 404 NoSuchTableException "nope" "a commit to a missing table"
# A create transaction: stage-create writes nothing; a commit asserting
# create makes the table from its updates (at the default location when
# they set none); a second one finds it exists.
req POST /v1/namespaces/db/tables '{"name":"staged","schema":'"$schema"',"stage-create":true}'
expect 200 "stage-create db.staged"
[ "$(jv "'metadata-location' not in d and d['metadata']['format-version'] == 2")" = True ] ||
  fail "a staged create has no metadata-location: $(head -c 300 "$tmp/body")"
req HEAD /v1/namespaces/db/tables/staged
expect 404 "a staged table does not exist yet"
create_tx='{"requirements":[{"type":"assert-create"}],"updates":[
 {"action":"assign-uuid","uuid":"0b6c3e2a-1111-4222-8333-944455556666"},
 {"action":"upgrade-format-version","format-version":2},
 {"action":"add-schema","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":true}]},"last-column-id":1},
 {"action":"set-current-schema","schema-id":-1},
 {"action":"add-spec","spec":{"spec-id":0,"fields":[]}},{"action":"set-default-spec","spec-id":-1},
 {"action":"add-sort-order","sort-order":{"order-id":0,"fields":[]}},{"action":"set-default-sort-order","sort-order-id":-1},
 {"action":"set-properties","updates":{"created.by":"tx"}}]}'
req POST /v1/namespaces/db/tables/staged "$create_tx"
expect 200 "commit the create transaction"
[ "$(jv "d['metadata']['table-uuid'] == '0b6c3e2a-1111-4222-8333-944455556666' and d['metadata']['location'].endswith('/db/staged') and d['metadata']['properties']['created.by'] == 'tx'")" = True ] ||
  fail "create transaction answer: $(head -c 600 "$tmp/body")"
req GET /v1/namespaces/db/tables/staged
expect 200 "load the table the transaction created"
req POST /v1/namespaces/db/tables/staged "$create_tx"
expect_error 409 CommitFailedException "" "a second create transaction"
req POST /v1/namespaces/nope/tables/staged "$create_tx"
expect_error 404 NoSuchNamespaceException "nope" "a create transaction in a missing namespace"
req DELETE '/v1/namespaces/db/tables/staged?purgeRequested=true'
expect 204 "drop db.staged"
# Eight clients commit to one table at once: every commit lands (the
# server retries a lost swap when the requirements still hold).
pids=()
for i in 1 2 3 4 5 6 7 8; do
  curl -sS -m 60 -o "$tmp/c$i" -w '%{http_code}' -X POST \
    --data-binary '{"requirements":[{"type":"assert-table-uuid","uuid":"'"$uuid"'"}],"updates":[{"action":"set-properties","updates":{"p'$i'":"'$i'"}}]}' \
    "$rest_url/v1/namespaces/db/tables/t" >"$tmp/code$i" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a concurrent commit's curl failed"; done
for i in 1 2 3 4 5 6 7 8; do [ "$(cat "$tmp/code$i")" = 200 ] || fail "concurrent commit $i: $(cat "$tmp/code$i") $(cat "$tmp/c$i")"; done
req GET /v1/namespaces/db/tables/t
[ "$(jv "all(d['metadata']['properties'].get('p%d' % i) == str(i) for i in range(1, 9))")" = True ] ||
  fail "not every concurrent commit is in the table: $(jv "d['metadata']['properties']")"
ok "8 concurrent commits all land"

# rename
req POST /v1/namespaces/db/tables '{"name":"u","schema":'"$schema"'}'
expect 200 "create table db.u"
req POST /v1/tables/rename '{"source":{"namespace":["db"],"name":"t"},"destination":{"namespace":["db"],"name":"u"}}'
expect_error 409 AlreadyExistsException "db.u" "rename onto an existing table"
req POST /v1/tables/rename '{"source":{"namespace":["db"],"name":"zz"},"destination":{"namespace":["db"],"name":"y"}}'
expect_error 404 NoSuchTableException "db.zz" "rename a missing table"
req POST /v1/tables/rename '{"source":{"namespace":["db"],"name":"t"},"destination":{"namespace":["nope"],"name":"t"}}'
expect_error 404 NoSuchNamespaceException "nope" "rename into a missing namespace"
req POST /v1/tables/rename '{"source":{"namespace":["db"],"name":"t"}}'
expect_error 400 BadRequestException "destination" "rename without a destination"
req POST /v1/tables/rename '{"source":{"namespace":["db"],"name":"t"},"destination":{"namespace":["other"],"name":"t2"}}'
expect 204 "rename db.t to other.t2"
req GET /v1/namespaces/other/tables/t2
[ "$code" = 200 ] && [ "$(jv "d['metadata']['table-uuid']")" = "$uuid" ] || fail "other.t2 is not the renamed table"
req HEAD /v1/namespaces/db/tables/t
expect 404 "HEAD the old name"
ok "rename keeps the table"

# register: drop the entry (no purge), register its metadata file again
req GET /v1/namespaces/other/tables/t2
loc=$(jv "d['metadata-location']")
req DELETE /v1/namespaces/other/tables/t2
expect 204 "drop other.t2 (no purge)"
[ -f "$loc" ] || fail "a drop without purge deleted $loc"
req POST /v1/namespaces/db/register '{"name":"back","metadata-location":"'"$loc"'"}'
expect 200 "register the dropped table as db.back"
[ "$(jv "d['metadata']['table-uuid'] == '$uuid' and d['metadata-location'] == '$loc'")" = True ] || fail "register answer"
req POST /v1/namespaces/db/register '{"name":"back","metadata-location":"'"$loc"'"}'
expect_error 409 AlreadyExistsException "back" "register an existing name"
req POST /v1/namespaces/db/register '{"name":"ghost","metadata-location":"'"$tmp"'/none.metadata.json"}'
expect_error 400 BadRequestException "" "register a missing metadata file"
req POST /v1/namespaces/nope/register '{"name":"x","metadata-location":"'"$loc"'"}'
expect_error 404 NoSuchNamespaceException "nope" "register into a missing namespace"
req POST /v1/namespaces/db/register '{"name":"x"}'
expect_error 400 BadRequestException "metadata-location" "register without a location"

# drop with purge, namespace drops
req DELETE /v1/namespaces/db
expect_error 409 NamespaceNotEmptyException "db" "drop a namespace holding tables"
req DELETE '/v1/namespaces/db/tables/back?purgeRequested=maybe'
expect_error 400 BadRequestException "purgeRequested" "purgeRequested=maybe"
req DELETE '/v1/namespaces/db/tables/back?purgeRequested=true'
expect 204 "drop db.back with purge"
[ ! -e "$loc" ] || fail "purge left $loc"
req DELETE /v1/namespaces/db/tables/u
expect 204 "drop db.u"
req DELETE /v1/namespaces/db
expect 204 "drop namespace db"
req DELETE /v1/namespaces/db
expect_error 404 NoSuchNamespaceException "db" "drop it again"
# 400 mutated request bodies (fixed seed): never a 5xx, always the error model.
timeout 300 "$py" "$SRC/tests/scripts/rest_server_protocol_fuzz.py" "$rest_url" 20261130 400 >"$tmp/fuzz.out" 2>&1 ||
  fail "mutated requests: $(grep -m5 FAIL "$tmp/fuzz.out"; tail -3 "$tmp/fuzz.out")"
ok "400 mutated requests: $(tail -1 "$tmp/fuzz.out")"
req GET /v1/config
expect 200 "the server still answers after all the bad input"
rest_server_stop
ok "SIGTERM: clean exit"
if grep -q 'vend-secret-xyzzy' "$rest_log"; then fail "the vended secret appears in the log"; fi

# ---- 2. OAuth2 with 1-second tokens ---------------------------------------------
rand=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
secret="proto-${rand}-secret"
rest_server_start "$tmp/wh" --client-id proto --client-secret "$secret" --token-lifetime 1
# token FORM: POST /v1/oauth/tokens, $tok the token.  Tokens live one
# second here, so the answer is parsed without starting a program and
# checked (check_token_answer) only after the token has been used.
token() {
  req POST /v1/oauth/tokens "$1" -H 'Content-Type: application/x-www-form-urlencoded'
  [ "$code" = 200 ] || fail "POST /v1/oauth/tokens: HTTP $code: $(cat "$tmp/body")"
  [[ $(<"$tmp/body") =~ \"access_token\":\"([0-9a-f]+)\" ]] || fail "no access_token in $(cat "$tmp/body")"
  tok=${BASH_REMATCH[1]}
  cp "$tmp/body" "$tmp/token.json"
}
check_token_answer() {
  "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["token_type"] == "bearer" and d["expires_in"] == 1 and d["issued_token_type"].endswith(":access_token")))' \
    "$tmp/token.json" || fail "token answer: $(cat "$tmp/token.json")"
  ok "$1"
}
req GET /v1/config
expect_error 401 NotAuthorizedException "bearer token is required" "GET /v1/config without a token"
req POST /v1/oauth/tokens "grant_type=client_credentials&client_id=proto&client_secret=wrong"
[ "$code" = 401 ] && [ "$(jv "d['error']")" = invalid_client ] || fail "a wrong secret: $code $(cat "$tmp/body")"
ok "a wrong client secret -> 401 invalid_client"
req POST /v1/oauth/tokens "grant_type=password&username=x"
[ "$code" = 400 ] && [ "$(jv "d['error']")" = unsupported_grant_type ] || fail "grant_type=password: $code"
ok "an unsupported grant -> 400 unsupported_grant_type"
token "grant_type=client_credentials&client_id=proto&client_secret=$secret&scope=catalog"
auth=(-H "Authorization: Bearer $tok")
req GET /v1/namespaces
expect 200 "a request with a fresh token"
check_token_answer "client credentials in the form -> a bearer token for 1 s"
# HTTP Basic client authentication, and token exchange for a fresh token.
auth=(-u "proto:$secret")
token "grant_type=client_credentials&scope=catalog"
tok1=$tok
auth=(-H "Authorization: Bearer $tok1")
token "grant_type=urn:ietf:params:oauth:grant-type:token-exchange&subject_token=$tok1&subject_token_type=urn:ietf:params:oauth:token-type:access_token"
[ "$tok" != "$tok1" ] || fail "token exchange returned the same token"
check_token_answer "HTTP Basic client credentials, then token exchange -> a new token"
sleep 2.2
req GET /v1/namespaces
expect_error 401 NotAuthorizedException "expired" "a request after the token's lifetime"
req POST /v1/oauth/tokens "grant_type=urn:ietf:params:oauth:grant-type:token-exchange&subject_token=$tok1"
[ "$code" = 401 ] && [ "$(jv "d['error']")" = invalid_grant ] || fail "exchange of an expired token: $code"
ok "exchanging an expired token -> 401 invalid_grant"
auth=(-H "Authorization: Bearer 0123456789abcdef")
req GET /v1/namespaces
expect_error 401 NotAuthorizedException "not valid" "a made-up token"
auth=()
token "grant_type=client_credentials&client_id=proto&client_secret=$secret"
auth=(-H "Authorization: Bearer $tok")
req GET /v1/namespaces
expect 200 "a new token works again"
check_token_answer "a new token after the old expired"
rest_server_stop
grep -q '401 expired token' "$rest_log" || fail "no '401 expired token' in the log"
grep -q '401 invalid token' "$rest_log" || fail "no '401 invalid token' in the log"
[ "$(grep -c 'token issued client=proto expires_in=1' "$rest_log")" = 4 ] ||
  fail "expected 4 'token issued' lines: $(grep 'token issued' "$rest_log")"
ok "the log shows tokens issued and refused"
if grep -q "$rand" "$rest_log"; then fail "the client secret appears in the log"; fi
if grep -q "${tok:0:16}" "$rest_log"; then fail "a token appears in the log"; fi
ok "no secret or token in the log"
echo "$checks passed, 0 failed"

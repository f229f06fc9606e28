#!/usr/bin/env bash
# `floe serve` with real PostgreSQL clients on 127.0.0.1 (a free port the
# server picks and prints): psql runs DDL, INSERT and SELECT and sees what
# `floe -c` sees; errors come back as ErrorResponses with SQLSTATEs and the
# session goes on; psycopg2 gets typed Python values, per-session settings,
# concurrent sessions whose every INSERT is kept, and a cancelled statement
# (tests/scripts/pg_serve_py.py); node-postgres runs parameterised queries
# and named prepared statements over the extended protocol and logs in with
# SCRAM-SHA-256, a wrong password refused with 28P01 (md5 and cleartext with
# --auth, TLS with --tls-cert/--tls-key, --max-connections by psql)
# (tests/scripts/pg_serve_node.mjs).  The log must never show a password.
#
# Needs psql (postgresql-client), python3's psycopg2 (python3-psycopg2) and
# node with tests/peers' pg: each missing one is a skip of its part, a
# failure under CI=true.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
fail() { echo "FAIL: $*"; exit 1; }
skipped=()
missing() {
    [ "${CI:-}" = true ] && fail "$1 (missing under CI=true)"
    echo "SKIP: $1"
    skipped+=("$1")
}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pg_serve.XXXXXX")
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$TMP"
}
trap cleanup EXIT
W=$TMP/warehouse
PASSWORD='pencil-Z9!'

# start NAME ARGS...: a server in the background; sets PORT.
start() {
    local name=$1
    shift
    : >"$TMP/$name.out" # exists before the background shell opens it
    FLOE_LOG=info "$FLOE_BIN" serve --warehouse "$W" --port 0 "$@" >"$TMP/$name.out" 2>"$TMP/$name.log" &
    PIDS+=($!)
    for _ in $(seq 1 300); do
        PORT=$(sed -n 's/^floe serve: listening on .*:\([0-9]*\)$/\1/p' "$TMP/$name.out")
        [ -n "$PORT" ] && return 0
        kill -0 "${PIDS[-1]}" 2>/dev/null || { cat "$TMP/$name.log"; fail "server $name exited"; }
        sleep 0.1
    done
    fail "server $name did not start listening"
}

"$FLOE_BIN" --warehouse "$W" -c "CREATE TABLE conc (k int, n int) WITH ('commit.retry.num-retries' = '20')" \
    -c "CREATE TABLE log (id int)"
start trust
TRUST_PORT=$PORT
printf '%s\n' "$PASSWORD" >"$TMP/pw"
start scram --user tester --password-file "$TMP/pw"
AUTH_PORT=$PORT

if command -v psql >/dev/null 2>&1; then
    P=(timeout 120 psql -X -q -h 127.0.0.1 -p "$TRUST_PORT" -U tester -d floe -v ON_ERROR_STOP=1)
    "${P[@]}" -c "CREATE TABLE items (id int, name text, price decimal(10, 2), day date, ts timestamp, ok boolean, big bigint)"
    "${P[@]}" -c "INSERT INTO items VALUES (1, 'alpha', 10, DATE '2024-01-02', TIMESTAMP '2024-01-02 03:04:05.25', true, 9000000000),
                  (2, 'beta', 20.5, DATE '2024-03-04', NULL, false, -1), (3, NULL, NULL, NULL, NULL, NULL, NULL)"
    q="SELECT id, name, price, day, big FROM items ORDER BY id"
    got=$("${P[@]}" -A -t -F, -c "$q")
    want=$("$FLOE_BIN" --warehouse "$W" --format csv -c "$q" | tail -n +2)
    [ "$got" = "$want" ] || fail "psql and floe -c differ: psql: $got / floe: $want"
    # values in PostgreSQL's text output (expected: PostgreSQL 15 with TimeZone UTC)
    q="SELECT 1.5::float8, 1e15::float8, 123456789012345::float8, 0.0001::float8, 0.00001::float8, 1e-7::float8,
         100::float8, -0.5::float8, 1234567::float4, 0.1::float4, 3.4e38::float4, 'NaN'::float8,
         TIMESTAMP '2024-01-02 03:04:05', TIMESTAMP '2024-01-02 03:04:05.120', TIMESTAMPTZ '2024-01-02 03:04:05.000001+00',
         DATE '0001-01-01', TIME '12:34:56.5', INTERVAL '1 year 2 months 3 days 04:05:06.7', INTERVAL '-1 day',
         12.340::numeric(10,3), true, false, '\\x0102ff'::bytea, 'a''b', NULL::int, 9223372036854775807::bigint,
         (-2147483648)::int, '8c0e6a8e-0f5d-4e8a-9b7a-1c2d3e4f5a6b'::uuid, 2::smallint"
    want='1.5|1e+15|123456789012345|0.0001|1e-05|1e-07|100|-0.5|1.234567e+06|0.1|3.4e+38|NaN|2024-01-02 03:04:05|2024-01-02 03:04:05.12|2024-01-02 03:04:05.000001+00|0001-01-01|12:34:56.5|1 year 2 mons 3 days 04:05:06.7|-1 days|12.340|t|f|\x0102ff|a'"'"'b||9223372036854775807|-2147483648|8c0e6a8e-0f5d-4e8a-9b7a-1c2d3e4f5a6b|2'
    got=$("${P[@]}" -A -t -c "$q")
    [ "$got" = "$want" ] || fail "text values differ from PostgreSQL's: got $got, want $want"
    # session information, answered by the server
    got=$(timeout 60 psql -X -A -t -F'|' -h 127.0.0.1 -p "$TRUST_PORT" -U tester -d mydb -c "SELECT version(),
        pg_catalog.current_setting('server_version_num'), current_setting('TimeZone'), current_database(), current_user,
        current_schema()")
    [[ "$got" == "PostgreSQL 15.0 (floe "*")"*"|150000|UTC|mydb|tester|default" ]] || fail "session functions: $got"
    # tags and row counts as psql prints them
    out=$(timeout 60 psql -X -h 127.0.0.1 -p "$TRUST_PORT" -U tester -d floe \
        -c "INSERT INTO log SELECT 100 + g FROM generate_series(1, 3) g(g)" -c "DELETE FROM log WHERE id > 100" \
        -c "BEGIN" -c "COMMIT" -c "SELECT 1 AS one")
    for want in "INSERT 0 3" "DELETE 3" "BEGIN" "COMMIT" "(1 row)"; do
        grep -qxF "$want" <<<"$out" || fail "psql output lacks '$want': $out"
    done
    # an error in a script: reported with its SQLSTATE and position, the session goes on
    printf '%s\n' "SELECT count(*) FROM items;" "SELECT * FROM no_such_table;" "SELECT 41 + 1 AS answer;" >"$TMP/s.sql"
    out=$(timeout 60 psql -X -h 127.0.0.1 -p "$TRUST_PORT" -U tester -d floe -v VERBOSITY=verbose -f "$TMP/s.sql" 2>&1)
    grep -q "ERROR:  42P01: table default.no_such_table does not exist" <<<"$out" || fail "psql error: $out"
    grep -q "LINE 1: SELECT \* FROM no_such_table" <<<"$out" || fail "psql error position: $out"
    grep -qx "     42" <<<"$out" || fail "the session did not go on after the error: $out"
    # passwords: SCRAM by default; a wrong one is refused
    got=$(PGPASSWORD=$PASSWORD timeout 60 psql -X -A -t -h 127.0.0.1 -p "$AUTH_PORT" -U tester -d floe -c "SELECT count(*) FROM items")
    [ "$got" = 3 ] || fail "psql with the right password: $got"
    if PGPASSWORD=wrong timeout 60 psql -X -h 127.0.0.1 -p "$AUTH_PORT" -U tester -d floe -c "SELECT 1" >"$TMP/bad.out" 2>&1; then
        fail "a wrong password was accepted"
    fi
    grep -q 'password authentication failed for user "tester"' "$TMP/bad.out" || fail "wrong password: $(cat "$TMP/bad.out")"
    if PGPASSWORD=$PASSWORD timeout 60 psql -X -h 127.0.0.1 -p "$AUTH_PORT" -U someone -d floe -c "SELECT 1" >/dev/null 2>&1; then
        fail "another user name was accepted"
    fi
    echo "ok: psql: DDL, INSERT, SELECT as floe -c, tags, errors, SCRAM"
    # md5 and cleartext, when asked for
    for method in md5 password; do
        start "$method" --user tester --password-file "$TMP/pw" --auth "$method"
        got=$(PGPASSWORD=$PASSWORD timeout 60 psql -X -A -t -h 127.0.0.1 -p "$PORT" -U tester -d floe -c "SELECT 5")
        [ "$got" = 5 ] || fail "--auth $method with the right password: $got"
        if PGPASSWORD=wrong timeout 60 psql -X -h 127.0.0.1 -p "$PORT" -U tester -d floe -c "SELECT 1" >/dev/null 2>&1; then
            fail "--auth $method accepted a wrong password"
        fi
    done
    # --max-connections: one more session is refused with 53300 while one is open
    start limit --max-connections 1
    timeout 60 psql -X -q -h 127.0.0.1 -p "$PORT" -U a -d floe -c "SELECT 1" -c '\! sleep 4' >/dev/null &
    holder=$!
    for _ in $(seq 1 100); do grep -q "session 1: user" "$TMP/limit.log" && break; sleep 0.1; done
    if timeout 60 psql -X -h 127.0.0.1 -p "$PORT" -U b -d floe -c "SELECT 1" >"$TMP/limit.out" 2>&1; then
        fail "a connection over --max-connections was accepted"
    fi
    grep -q "sorry, too many clients already" "$TMP/limit.out" || fail "over the limit: $(cat "$TMP/limit.out")"
    wait $holder || fail "the session under the limit failed"
    # TLS: offered with --tls-cert/--tls-key (a throwaway self-signed
    # certificate); a server without it answers an SSLRequest 'N'.
    if command -v openssl >/dev/null 2>&1; then
        openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 2 \
            -keyout "$TMP/key.pem" -out "$TMP/cert.pem" >/dev/null 2>&1 || fail "openssl req failed"
        start tls --tls-cert "$TMP/cert.pem" --tls-key "$TMP/key.pem" --user tester --password-file "$TMP/pw"
        out=$(PGPASSWORD=$PASSWORD timeout 60 psql -X "host=127.0.0.1 port=$PORT user=tester dbname=floe sslmode=require" \
            -c '\conninfo' -A -t -c "SELECT count(*) FROM items")
        grep -q "^SSL connection (protocol: TLSv1" <<<"$out" || fail "no TLS: $out"
        grep -qx 3 <<<"$out" || fail "query over TLS: $out"
        if timeout 60 psql -X "host=127.0.0.1 port=$TRUST_PORT user=tester dbname=floe sslmode=require" -c "SELECT 1" \
            >"$TMP/nossl.out" 2>&1; then
            fail "sslmode=require connected to a server without TLS"
        fi
        grep -q "server does not support SSL" "$TMP/nossl.out" || fail "no-TLS refusal: $(cat "$TMP/nossl.out")"
        echo "ok: psql over TLS"
    else
        missing "openssl not found (for a test certificate)"
    fi
else
    missing "psql not found (Debian package postgresql-client)"
    "$FLOE_BIN" --warehouse "$W" -c "CREATE TABLE items (id int, name text, price decimal(10, 2), day date, ts timestamp, ok boolean, big bigint)" \
        -c "INSERT INTO items VALUES (1, 'alpha', 10, DATE '2024-01-02', TIMESTAMP '2024-01-02 03:04:05.25', true, 9000000000),
            (2, 'beta', 20.5, DATE '2024-03-04', NULL, false, -1), (3, NULL, NULL, NULL, NULL, NULL, NULL)"
fi

PY=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import psycopg2' 2>/dev/null; then PY=$p; break; fi
done
if [ -n "$PY" ]; then
    timeout 300 "$PY" "$SRC/tests/scripts/pg_serve_py.py" "$TRUST_PORT"
else
    missing "python3 module psycopg2 not found (Debian package python3-psycopg2)"
fi

if command -v node >/dev/null 2>&1 && [ -d "$SRC/tests/peers/node_modules/pg" ]; then
    timeout 300 node "$SRC/tests/scripts/pg_serve_node.mjs" "$TRUST_PORT" "$AUTH_PORT" tester "$PASSWORD"
else
    missing "node or tests/peers' pg not installed (scripts/install-deps.sh)"
fi

# Both servers stop on SIGTERM, and their logs name sessions but never the password.
for p in "${PIDS[@]}"; do kill -TERM "$p"; done
for p in "${PIDS[@]}"; do wait "$p" || fail "a server exited with status $? on SIGTERM"; done
PIDS=()
grep -q "session 1: " "$TMP/trust.log" || fail "no session lines in the log"
if grep -qF "$PASSWORD" "$TMP"/*.log; then fail "a password reached the log"; fi
echo "ok: floe serve${skipped:+ (skipped: ${skipped[*]})}"

#!/usr/bin/env bash
# psql's describe commands against `floe serve` on 127.0.0.1: \dt, \d t,
# \d v, \dn, \l, \dv, \df, \du and \dt s2.* run the catalog queries psql 15
# sends (pg_class, pg_attribute, pg_namespace, ... built from floe's
# catalog: src/sql/pg_catalog_tables.c) and show floe's tables, views,
# schemas and columns with PostgreSQL's type names.  When PostgreSQL 15's
# server is installed, \d t of the same table on a throwaway socket-only
# cluster prints the same column table (its schema "public" read as floe's
# "default").
#
# The session's SET TimeZone shows timestamptz values in that zone, with
# PostgreSQL's offsets ("+05:30", LMT's "+00:19:32"), and current_user /
# version() work inside larger expressions.
#
# Needs psql (postgresql-client): missing, a skip (a failure under CI=true).
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
fail() { echo "FAIL: $*"; exit 1; }
skip() {
    [ "${CI:-}" = true ] && fail "$1 (missing under CI=true)"
    echo "SKIP: $1"
    exit 77
}
command -v psql >/dev/null 2>&1 || skip "psql not found (Debian package postgresql-client)"
base=${TMPDIR:-/tmp}
as_pg=()
if [ "$(id -u)" = 0 ]; then
    as_pg=(runuser -u postgres --)
    base=/tmp # the postgres user must reach the directory
fi
TMP=$(mktemp -d "$base/pg_serve_psql_catalog.XXXXXX")
SERVER=""
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    if [ -f "$TMP/pg/postmaster.pid" ]; then
        "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$TMP/pg" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT
W=$TMP/warehouse
DDL="CREATE TABLE t (id int, name text, price decimal(10, 2), d date, ts timestamp, tz timestamptz, ok boolean,
     big bigint, f double precision, b bytea)"
"$FLOE_BIN" --warehouse "$W" -c "$DDL" -c "CREATE VIEW v AS SELECT id, name FROM t" -c "CREATE SCHEMA s2" \
    -c "CREATE TABLE s2.u (x int)" >/dev/null

: >"$TMP/serve.out"
"$FLOE_BIN" serve --warehouse "$W" --port 0 >"$TMP/serve.out" 2>"$TMP/serve.log" &
SERVER=$!
PORT=""
for _ in $(seq 1 300); do
    PORT=$(sed -n 's/^floe serve: listening on .*:\([0-9]*\)$/\1/p' "$TMP/serve.out")
    [ -n "$PORT" ] && break
    kill -0 "$SERVER" 2>/dev/null || { cat "$TMP/serve.log"; fail "floe serve exited"; }
    sleep 0.1
done
[ -n "$PORT" ] || fail "floe serve did not start listening"
P=(timeout 60 psql -X -h 127.0.0.1 -p "$PORT" -U tester -d floe -v ON_ERROR_STOP=1)

# expect COMMAND WANT: psql's unaligned output of COMMAND is WANT
expect() {
    local got
    got=$("${P[@]}" -A -F'|' -c "$1" 2>&1) || fail "$1: psql failed: $got"
    [ "$got" = "$2" ] || fail "$1: got
$got
want
$2"
    echo "ok: $1"
}

expect '\dt' 'List of relations
Schema|Name|Type|Owner
default|t|table|tester
(1 row)'
expect '\dv' 'List of relations
Schema|Name|Type|Owner
default|v|view|tester
(1 row)'
expect '\d' 'List of relations
Schema|Name|Type|Owner
default|t|table|tester
default|v|view|tester
(2 rows)'
expect '\dt s2.*' 'List of relations
Schema|Name|Type|Owner
s2|u|table|tester
(1 row)'
expect '\dn' 'List of schemas
Name|Owner
default|tester
s2|tester
(2 rows)'
D_T='Table "default.t"
Column|Type|Collation|Nullable|Default
id|integer|||
name|text|||
price|numeric(10,2)|||
d|date|||
ts|timestamp without time zone|||
tz|timestamp with time zone|||
ok|boolean|||
big|bigint|||
f|double precision|||
b|bytea|||'
expect '\d t' "$D_T"
expect '\d v' 'View "default.v"
Column|Type|Collation|Nullable|Default
id|integer|||
name|text|||'
expect '\d s2.u' 'Table "s2.u"
Column|Type|Collation|Nullable|Default
x|integer|||'
expect '\l' 'List of databases
Name|Owner|Encoding|Collate|Ctype|ICU Locale|Locale Provider|Access privileges
floe|tester|UTF8|C.UTF-8|C.UTF-8||libc|
(1 row)'
expect '\df' 'List of functions
Schema|Name|Result data type|Argument data types|Type
(0 rows)'
expect '\du' 'List of roles
Role name|Attributes|Member of
tester|Superuser, Create role, Create DB, Replication, Bypass RLS|{}'
# a relation that is not there: psql's own message, the session goes on
got=$("${P[@]}" -c '\d nosuch' 2>&1 || true)
[ "$got" = 'Did not find any relation named "nosuch".' ] || fail "\\d nosuch: $got"
echo "ok: \\d nosuch"
# information_schema from psql, the same as from floe -c
q="SELECT table_schema, table_name, column_name, data_type FROM information_schema.columns ORDER BY 1, 2, ordinal_position"
got=$("${P[@]}" -A -t -F, -c "$q")
want=$("$FLOE_BIN" --warehouse "$W" --format csv -c "$q" | tail -n +2)
[ "$got" = "$want" ] || fail "information_schema.columns: psql: $got / floe -c: $want"
echo "ok: information_schema.columns through psql and floe -c"
# SET TimeZone: timestamptz text in the session's zone (PostgreSQL 15's output)
TZQ="SELECT TIMESTAMPTZ '2024-01-02 03:04:05.5+00', TIMESTAMPTZ '2024-07-02 03:04:05+00',
     TIMESTAMPTZ '1900-01-01 00:00:00+00'"
tz_out() { for z in UTC Europe/Berlin Asia/Kolkata America/New_York Europe/Amsterdam; do
    "$@" -A -t -q -c "SET TimeZone = '$z'" -c "$TZQ"; done; }
TZ_WANT='2024-01-02 03:04:05.5+00|2024-07-02 03:04:05+00|1900-01-01 00:00:00+00
2024-01-02 04:04:05.5+01|2024-07-02 05:04:05+02|1900-01-01 01:00:00+01
2024-01-02 08:34:05.5+05:30|2024-07-02 08:34:05+05:30|1900-01-01 05:21:10+05:21:10
2024-01-01 22:04:05.5-05|2024-07-01 23:04:05-04|1899-12-31 19:00:00-05
2024-01-02 04:04:05.5+01|2024-07-02 05:04:05+02|1900-01-01 00:19:32+00:19:32'
got=$(tz_out "${P[@]}")
[ "$got" = "$TZ_WANT" ] || fail "timestamptz under SET TimeZone: got $got"
echo "ok: timestamptz text in the session's TimeZone"
got=$("${P[@]}" -A -t -c "SELECT upper(current_user), version() LIKE 'PostgreSQL%', current_database() || '!'")
[ "$got" = "TESTER|t|floe!" ] || fail "session functions in expressions: $got"
echo "ok: session functions inside expressions"
# arrays in PostgreSQL's text (psql's \du "Member of" reads one)
AQ="SELECT ARRAY[1,2,NULL], ARRAY['a b','c'], ARRAY[ARRAY[1,2],ARRAY[3,4]], ARRAY(SELECT 1 WHERE false)"
got=$("${P[@]}" -A -t -c "$AQ")
[ "$got" = '{1,2,NULL}|{"a b",c}|{{1,2},{3,4}}|{}' ] || fail "array text: $got"
echo "ok: arrays in PostgreSQL's text"

# The same \d t and timestamptz text from PostgreSQL 15 itself.
if [ ! -x "$PGBIN/initdb" ]; then
    echo "SKIP: PostgreSQL 15 server not found in $PGBIN (the \\d t cross-check)"
    exit 0
fi
if [ ${#as_pg[@]} -gt 0 ]; then
    id postgres >/dev/null 2>&1 || { echo "SKIP: root and no postgres user (the \\d t cross-check)"; exit 0; }
    chown postgres "$TMP"
fi
"${as_pg[@]}" "$PGBIN/initdb" -D "$TMP/pg" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$TMP/initdb.log" 2>&1 ||
    { cat "$TMP/initdb.log"; fail "initdb failed"; }
PGPORT=$((20000 + $$ % 20000))
"${as_pg[@]}" "$PGBIN/pg_ctl" -D "$TMP/pg" -l "$TMP/pg.log" -w -t 60 \
    -o "-c listen_addresses='' -k $TMP -p $PGPORT -c fsync=off" start >/dev/null ||
    { cat "$TMP/pg.log"; fail "the PostgreSQL server did not start"; }
PG=(timeout 60 psql -X -h "$TMP" -p "$PGPORT" -U postgres -d postgres -v ON_ERROR_STOP=1)
"${PG[@]}" -q -c "$DDL"
got=$("${PG[@]}" -A -F'|' -c '\d t' | sed 's/^Table "public\.t"$/Table "default.t"/')
[ "$got" = "$D_T" ] || fail "PostgreSQL's \\d t differs from floe's: $got"
echo "ok: \\d t as PostgreSQL 15 prints it"
got=$(tz_out "${PG[@]}")
[ "$got" = "$TZ_WANT" ] || fail "PostgreSQL's timestamptz text differs: $got"
echo "ok: timestamptz text as PostgreSQL 15 prints it"
got=$("${PG[@]}" -A -t -c "$AQ")
[ "$got" = '{1,2,NULL}|{"a b",c}|{{1,2},{3,4}}|{}' ] || fail "PostgreSQL's array text differs: $got"
echo "ok: array text as PostgreSQL 15 prints it"

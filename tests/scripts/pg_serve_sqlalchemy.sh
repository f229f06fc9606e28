#!/usr/bin/env bash
# SQLAlchemy (psycopg2 dialect) and pandas through `floe serve` on
# 127.0.0.1, cross-checked step by step against a throwaway PostgreSQL 15
# on a unix socket (tests/scripts/pg_serve_sqlalchemy.py): reflection of a
# table, Core INSERT / SELECT with parameters, read_sql, read_sql_table,
# to_sql.  Needs python3-sqlalchemy, python3-pandas, python3-psycopg2 and
# postgresql-15 (scripts/install-deps.sh): a skip when missing, a failure
# under CI=true.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
fail() { echo "FAIL: $*"; exit 1; }
skip() { [ "${CI:-}" = true ] && fail "$* (missing under CI=true)"; echo "SKIP: $*"; exit 0; }

[ -x "$PGBIN/initdb" ] || skip "PostgreSQL 15 not found in $PGBIN (Debian package postgresql-15)"
PY=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import psycopg2, sqlalchemy, pandas' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || skip "python3 modules psycopg2, sqlalchemy, pandas (python3-psycopg2 python3-sqlalchemy python3-pandas)"

as_pg=()
base=${TMPDIR:-/tmp}
if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || skip "running as root and there is no postgres user to run the server"
    as_pg=(runuser -u postgres --)
    base=/tmp
fi
TMP=$(mktemp -d "$base/pg_serve_sqlalchemy.XXXXXX")
DATA="$TMP/data"
SERVER=""
cleanup() {
    [ -z "$SERVER" ] || { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }
    if [ -f "$DATA/postmaster.pid" ]; then
        "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
[ ${#as_pg[@]} -eq 0 ] || chown postgres "$TMP"

"${as_pg[@]}" "$PGBIN/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
    >"$TMP/initdb.log" 2>&1 || { cat "$TMP/initdb.log"; fail "initdb failed"; }
PGPORT=$((20000 + ($$ + 7) % 20000))
"${as_pg[@]}" "$PGBIN/pg_ctl" -D "$DATA" -l "$TMP/server.log" -w -t 60 \
    -o "-c listen_addresses='' -k $TMP -p $PGPORT -c fsync=off -c full_page_writes=off" start >/dev/null ||
    { cat "$TMP/server.log"; fail "the PostgreSQL server did not start"; }

: >"$TMP/floe.out"
"$FLOE_BIN" serve --warehouse "$TMP/wh" --port 0 >"$TMP/floe.out" 2>"$TMP/floe.log" &
SERVER=$!
PORT=""
for _ in $(seq 1 300); do
    PORT=$(sed -n 's/^floe serve: listening on .*:\([0-9]*\)$/\1/p' "$TMP/floe.out")
    [ -n "$PORT" ] && break
    kill -0 "$SERVER" 2>/dev/null || { cat "$TMP/floe.log"; fail "floe serve exited"; }
    sleep 0.1
done
[ -n "$PORT" ] || fail "floe serve did not start listening"

timeout 300 "$PY" "$SRC/tests/scripts/pg_serve_sqlalchemy.py" \
    "postgresql+psycopg2://floe@127.0.0.1:$PORT/floe" \
    "postgresql+psycopg2://postgres@/postgres?host=$TMP&port=$PGPORT" ||
    { tail -20 "$TMP/floe.log"; fail "SQLAlchemy / pandas differ between floe serve and PostgreSQL"; }

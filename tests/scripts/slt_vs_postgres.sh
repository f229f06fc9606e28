#!/usr/bin/env bash
# The sqllogictest files whose expected rows are PostgreSQL 15's (a
# "# expected: postgresql 15" line in their header) re-run against a real
# PostgreSQL 15 by tests/tools/slt_postgres.py: every record but the
# floe-only ones ("skipif postgresql", "onlyif floe") must give the same
# rows there.  The server is a throwaway cluster (initdb + pg_ctl) in a
# temporary directory, on a unix socket only (no TCP), stopped and removed
# on every exit.  The harness must also reject the opted-in files under
# tests/sql/bad/ (each names on its "# expect:" line what it must report),
# so it is not simply passing everything.
#
# Needs /usr/lib/postgresql/15/bin (postgresql-15) and python3's psycopg2
# (python3-psycopg2), both from scripts/install-deps.sh: a skip when
# missing, a failure under CI=true.  As root the server runs as `postgres`.
set -euo pipefail
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
fail() { echo "FAIL: $*"; exit 1; }
skip() { [ "${CI:-}" = true ] && fail "$* (missing under CI=true)"; echo "SKIP: $*"; exit 0; }

[ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/pg_ctl" ] ||
    skip "PostgreSQL 15 not found in $PGBIN (Debian package postgresql-15)"
# Debian's python3-psycopg2 is in /usr/bin/python3's path; a python3 ahead of
# it in PATH (pyenv, a venv) may not see it.
PY=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import psycopg2' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || skip "python3 module psycopg2 not found (Debian package python3-psycopg2)"

as_pg=()
base=${TMPDIR:-/tmp}
if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || skip "running as root and there is no postgres user to run the server"
    as_pg=(runuser -u postgres --)
    base=/tmp # the postgres user must reach the directory
fi
TMP=$(mktemp -d "$base/slt_vs_postgres.XXXXXX")
DATA="$TMP/data"
cleanup() {
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
# The socket's name carries the port: any port works without TCP.
PORT=$((20000 + $$ % 20000))
"${as_pg[@]}" "$PGBIN/pg_ctl" -D "$DATA" -l "$TMP/server.log" -w -t 60 \
    -o "-c listen_addresses='' -k $TMP -p $PORT -c fsync=off -c full_page_writes=off" start >/dev/null ||
    { cat "$TMP/server.log"; fail "the PostgreSQL server did not start"; }

harness() { "$PY" "$SRC/tests/tools/slt_postgres.py" --host "$TMP" --port "$PORT" --user postgres "$@"; }

mapfile -t files < <(grep -l -x '# expected: postgresql 15' "$SRC"/tests/sql/*.slt || true)
[ ${#files[@]} -gt 0 ] || fail "no file in tests/sql says '# expected: postgresql 15'"
failures=0
harness "${files[@]}" || failures=$((failures + 1))

# Deliberately wrong files: the harness must fail them, saying what is wrong.
for f in "$SRC"/tests/sql/bad/*.slt; do
    grep -q -x '# expected: postgresql 15' "$f" || continue
    want=$(sed -n 's/^# expect: //p' "$f" | head -1)
    set +e
    out=$(harness "$f" 2>&1)
    rc=$?
    set -e
    if [ "$rc" -ne 1 ]; then
        echo "FAIL: $(basename "$f"): harness exit status $rc, expected 1"; echo "$out"; failures=$((failures + 1))
    elif ! grep -qF -- "$want" <<<"$out"; then
        echo "FAIL: $(basename "$f"): harness output lacks '$want'"; echo "$out"; failures=$((failures + 1))
    else
        echo "ok: bad/$(basename "$f") rejected by PostgreSQL ($want)"
    fi
done
[ "$failures" -eq 0 ] || fail "$failures failure(s) against PostgreSQL"
echo "all ${#files[@]} opted-in files agree with PostgreSQL"

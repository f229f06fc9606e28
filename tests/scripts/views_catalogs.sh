#!/usr/bin/env bash
# views_catalogs.sh — Iceberg views through the catalogs other than the
# warehouse's own (which tests/sql/views.slt covers): a SQLite catalog
# database apart from the tables (--catalog FILE, rows with iceberg_type
# 'VIEW' as Iceberg Java's JdbcCatalog keeps them), and the REST catalog
# (floe's `floe rest-server` on 127.0.0.1: create, load, replace as a
# commit, list, rename, drop).  Each view metadata file is checked against the
# view spec (check_view_metadata.py).
set -euo pipefail
src=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bindir=${FLOE_BINARY_DIR:-$src/build/release}
FLOE_BIN=${FLOE_BIN:-$bindir/floe}
[ -x "$FLOE_BIN" ] || { echo "FAIL: $FLOE_BIN not built"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 missing"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/views_catalogs.XXXXXX")
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=rest_server_lib.bash
. "$src/tests/scripts/rest_server_lib.bash"
trap 'rest_server_cleanup; rm -rf "$tmp"' EXIT
check="$src/tests/scripts/check_view_metadata.py"
expect() { # expect FILE EXPECTED-TEXT WHAT
  [ "$(cat "$1")" = "$2" ] || fail "$3: expected
$2
got
$(cat "$1")"
}

run_views() { # run_views NAME floe-args...: the same statements on one catalog
  local name=$1
  shift
  timeout 120 "$FLOE_BIN" "$@" --format csv \
    -c "CREATE SCHEMA s" \
    -c "CREATE TABLE s.t (a int, b string)" \
    -c "INSERT INTO s.t VALUES (1, 'x'), (2, 'y')" \
    -c "CREATE VIEW s.v (k, label) AS SELECT a, upper(b) FROM s.t" \
    >"$tmp/$name.1" 2>&1 || fail "$name: create: $(cat "$tmp/$name.1")"
  timeout 120 "$FLOE_BIN" "$@" --format csv \
    -c "SELECT * FROM s.v ORDER BY k" \
    -c "CREATE OR REPLACE VIEW s.v AS SELECT a * 10 AS ten FROM s.t" \
    -c "CREATE VIEW s.w AS SELECT sum(ten) AS total FROM s.v" \
    -c "SELECT * FROM s.w" \
    -c "SHOW VIEWS IN s" \
    -c "SHOW TABLES IN s" \
    >"$tmp/$name.2" 2>&1 || fail "$name: use: $(cat "$tmp/$name.2")"
  expect "$tmp/$name.2" "k,label
1,X
2,Y
total
30
view_name
v
w
table_name
t" "$name: views"
  if timeout 60 "$FLOE_BIN" "$@" -c "CREATE VIEW s.t AS SELECT 1 AS one" >"$tmp/$name.3" 2>&1; then
    fail "$name: a view over a table's name was created"
  fi
  grep -q 'relation "s.t" already exists' "$tmp/$name.3" || fail "$name: clash message: $(cat "$tmp/$name.3")"
  if timeout 60 "$FLOE_BIN" "$@" -c "INSERT INTO s.v VALUES (1)" >"$tmp/$name.4" 2>&1; then
    fail "$name: INSERT into a view succeeded"
  fi
  grep -q 'views are read-only' "$tmp/$name.4" || fail "$name: insert message: $(cat "$tmp/$name.4")"
}

# ---- SQLite catalog database apart from the tables --------------------------
run_views sqlite --catalog "$tmp/cat.db" --warehouse "$tmp/wh1"
[ "$(python3 - "$tmp/cat.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(";".join(f"{n}={t}" for n, t in db.execute(
    "SELECT table_name, iceberg_type FROM iceberg_tables ORDER BY table_name")))
PY
)" = "t=TABLE;v=VIEW;w=VIEW" ] || fail "sqlite: iceberg_tables rows are not typed as JdbcCatalog's"
vloc=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT metadata_location FROM iceberg_tables WHERE table_name='v'\").fetchone()[0])" "$tmp/cat.db")
case "$vloc" in "$tmp/wh1/s/v/metadata/00001-"*.metadata.json) ;; *) fail "sqlite: view metadata at $vloc" ;; esac
python3 "$check" "$vloc" 2 "SELECT a, upper(b) FROM s.t" "SELECT a * 10 AS ten FROM s.t" || fail "sqlite: view metadata"

# A database made before views (no iceberg_type column) is upgraded.
python3 - "$tmp/old.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL, "
           "table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000), "
           "PRIMARY KEY (catalog_name, table_namespace, table_name))")
db.commit()
PY
timeout 60 "$FLOE_BIN" --catalog "$tmp/old.db" --warehouse "$tmp/wh0" --format csv \
  -c "CREATE TABLE t0 (a int)" -c "CREATE VIEW v0 AS SELECT a FROM t0" -c "SHOW VIEWS" -c "SHOW TABLES" \
  >"$tmp/old.out" 2>&1 || fail "old database: $(cat "$tmp/old.out")"
expect "$tmp/old.out" "view_name
v0
table_name
t0" "old database"

# ---- REST catalog: floe rest-server -----------------------------------------
rest_server_start "$tmp/wh2"
run_views rest --catalog "rest:$rest_url"
python3 - "$rest_url" "$check" <<'PY' || fail "rest: protocol"
import json, subprocess, sys, urllib.request, urllib.error
url, check = sys.argv[1], sys.argv[2]
def call(method, path, body=None):
    req = urllib.request.Request(url + "/v1" + path, method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            text = r.read()
            return r.status, json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")
st, lst = call("GET", "/namespaces/s/views")
assert st == 200 and sorted(i["name"] for i in lst["identifiers"]) == ["v", "w"], lst
st, res = call("GET", "/namespaces/s/views/v")
assert st == 200 and res["metadata-location"].endswith(".metadata.json"), res
subprocess.run([sys.executable, check, res["metadata-location"], "2", "SELECT a, upper(b) FROM s.t",
                "SELECT a * 10 AS ten FROM s.t"], check=True)
# a replace with a stale view-uuid is refused
st, err = call("POST", "/namespaces/s/views/v", {"requirements": [{"type": "assert-view-uuid", "uuid": "0" * 8 + "-0000-0000-0000-" + "0" * 12}],
                                                 "updates": []})
assert st == 409 and err["error"]["type"] == "CommitFailedException", (st, err)
st, err = call("GET", "/namespaces/s/views/nope")
assert st == 404 and err["error"]["type"] == "NoSuchViewException", (st, err)
st, _ = call("DELETE", "/namespaces/s/views/w")
assert st == 204, st
st, _ = call("DELETE", "/namespaces/s/views/w")
assert st == 404, st
PY
# ALTER VIEW ... RENAME through POST /v1/views/rename, into another namespace too.
timeout 60 "$FLOE_BIN" --catalog "rest:$rest_url" --format csv -c "CREATE SCHEMA s2" \
  -c "ALTER VIEW s.v RENAME TO v2" -c "SHOW VIEWS IN s" -c "SELECT sum(ten) AS total FROM s.v2" \
  -c "ALTER VIEW s.v2 SET SCHEMA s2" -c "SHOW VIEWS IN s2" >"$tmp/rest.6" 2>&1 ||
  fail "rest: rename: $(cat "$tmp/rest.6")"
expect "$tmp/rest.6" "view_name
v2
total
30
view_name
v2" "rest: after renames"
if timeout 60 "$FLOE_BIN" --catalog "rest:$rest_url" -c "ALTER VIEW s2.nope RENAME TO x" >"$tmp/rest.7" 2>&1; then
  fail "rest: renamed a view that does not exist"
fi
grep -q 'view s2.nope does not exist' "$tmp/rest.7" || fail "rest: missing view message: $(cat "$tmp/rest.7")"
timeout 60 "$FLOE_BIN" --catalog "rest:$rest_url" -c "CREATE VIEW s2.other AS SELECT 1 AS one" >/dev/null 2>&1 ||
  fail "rest: create s2.other"
if timeout 60 "$FLOE_BIN" --catalog "rest:$rest_url" -c "ALTER VIEW s2.v2 RENAME TO other" >"$tmp/rest.8" 2>&1; then
  fail "rest: renamed a view onto another"
fi
grep -q 'already exists' "$tmp/rest.8" || fail "rest: rename clash message: $(cat "$tmp/rest.8")"
timeout 60 "$FLOE_BIN" --catalog "rest:$rest_url" --format csv -c "DROP VIEW s2.other" -c "ALTER VIEW s2.v2 SET SCHEMA s" \
  -c "ALTER VIEW s.v2 RENAME TO v" >"$tmp/rest.9" 2>&1 || fail "rest: rename back: $(cat "$tmp/rest.9")"
timeout 60 "$FLOE_BIN" --catalog "rest:$rest_url" --format csv -c "SHOW VIEWS IN s" -c "DROP VIEW s.v" \
  -c "SHOW VIEWS IN s" >"$tmp/rest.5" 2>&1 || fail "rest: drop: $(cat "$tmp/rest.5")"
expect "$tmp/rest.5" "view_name
v
view_name" "rest: after drops"
rest_server_stop
echo "views_catalogs: ok"

#!/usr/bin/env bash
# CALL system.register_table(table, metadata_file) as Spark's
# RegisterTableProcedure: a table written in one catalog is registered by
# its metadata file under a new name in a new schema of another catalog
# (and of the same one); the result row is Spark's (current snapshot,
# total records, total data files); the registered table reads the same
# rows, history and time travel; an existing name, a missing or unparsable
# file and an empty argument are errors that register nothing.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sql_register_table.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
A() { "$FLOE_BIN" --warehouse "$tmp/a" --format csv "$@"; }
B() { "$FLOE_BIN" --warehouse "$tmp/b" --format csv "$@"; }
qa() { A -c "$1" | tail -n +2; }
qb() { B -c "$1" | tail -n +2; }
expect() { # expect ACTUAL EXPECTED WHAT
  [ "$1" = "$2" ] || fail "$3: expected [$2], got [$1]"
}
expect_error() { # expect_error WAREHOUSE-FN SQL TEXT
  local out
  if out=$("$1" -c "$2" 2>&1); then fail "no error for: $2"; fi
  case "$out" in *"$3"*) ;; *) fail "error for [$2] lacks [$3]: $out" ;; esac
}

A -c "CREATE SCHEMA s" \
  -c "CREATE TABLE s.t (id bigint, p int, s string) PARTITIONED BY (p) WITH ('write.delete.mode' = 'merge-on-read')" \
  -c "INSERT INTO s.t VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c')" \
  -c "INSERT INTO s.t VALUES (4, 2, 'd'), (5, 3, 'e')" \
  -c "DELETE FROM s.t WHERE id = 2" > /dev/null
meta=$(ls "$tmp"/a/s/t/metadata/*.metadata.json | sort | tail -n 1)
want=$(qa "SELECT id, p, s FROM s.t ORDER BY id")
cur=$(qa "SELECT snapshot_id FROM s.t\$snapshots ORDER BY committed_at DESC, snapshot_id LIMIT 1")
first=$(qa "SELECT snapshot_id FROM s.t\$snapshots ORDER BY committed_at, snapshot_id LIMIT 1")
ndata=$(qa "SELECT count(*) FROM s.t\$data_files")

# ---- another catalog, a new schema, a new name
B -c "CREATE SCHEMA n" > /dev/null
expect "$(qb "CALL system.register_table(table => 'n.r', metadata_file => '$meta')")" "$cur,5,$ndata" \
  "register_table result (current snapshot, the summary's total-records: rows in data files, before deletes, total data files)"
expect "$(qb "SELECT id, p, s FROM n.r ORDER BY id")" "$want" "rows of the registered table"
expect "$(qb "SELECT count(*) FROM n.r\$snapshots")" "3" "snapshots of the registered table"
expect "$(qb "SELECT count(*) FROM n.r\$position_deletes")" "1" "its position deletes"
expect "$(qb "SELECT count(*), sum(id) FROM n.r FOR VERSION AS OF $first")" "3,6" "time travel in the registered table"
expect "$(qb "SHOW TABLES IN n" | tr '\n' ' ')" "r " "SHOW TABLES lists it"

# ---- the same catalog, positional arguments, catalog-qualified name
A -c "CREATE SCHEMA s2" > /dev/null
expect "$(qa "CALL system.register_table('floe.s2.copy', '$meta')")" "$cur,5,$ndata" "positional register_table"
expect "$(qa "SELECT id, p, s FROM s2.copy ORDER BY id")" "$want" "rows of the copy"

# ---- the registered table is an ordinary table: a write commits there
B -c "INSERT INTO n.r VALUES (6, 3, 'f')" > /dev/null
expect "$(qb "SELECT count(*), sum(id) FROM n.r")" "5,19" "rows after an INSERT into the registered table"
expect "$(qa "SELECT count(*), sum(id) FROM s.t")" "4,13" "the original catalog's entry did not move"

# ---- errors, and nothing registered by them
expect_error B "CALL system.register_table(table => 'n.r', metadata_file => '$meta')" "Table already exists: n.r"
expect "$(qb "SELECT count(*) FROM n.r")" "5" "an existing table is left alone"
expect_error B "CALL system.register_table(table => 'n.x', metadata_file => '$tmp/nope/v9.metadata.json')" \
  "cannot open '$tmp/nope/v9.metadata.json'"
echo '{"format-version": 2' > "$tmp/broken.metadata.json"
expect_error B "CALL system.register_table(table => 'n.x', metadata_file => '$tmp/broken.metadata.json')" \
  "broken.metadata.json"
expect_error B "CALL system.register_table(table => 'n.x', metadata_file => '')" \
  "Cannot handle an empty argument metadata_file"
expect_error B "CALL system.register_table(table => 'nosuch.x', metadata_file => '$meta')" "namespace 'nosuch' does not exist"
expect_error B "CALL system.register_table(table => 'n.x')" "metadata_file"
expect "$(qb "SHOW TABLES IN n" | tr '\n' ' ')" "r " "no table registered by the failed calls"
echo "OK"

#!/usr/bin/env bash
# CALL system.rewrite_position_delete_files as Spark's procedure (Java's
# bin-pack planner for position delete files): a partition with 7 small
# position delete files (min-input-files 5) is rewritten into one file per
# data file, one with 2 is left; the rows read and the deleted positions
# listed by $position_deletes stay exactly the same; the commit is a
# "replace"; rewrite-all takes every group; a second run has nothing to
# do; unknown options are refused (v3: sql_rewrite_deletes_v3.sh).
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sql_rewrite_position_deletes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
W=$tmp/wh
floe() { "$FLOE_BIN" --warehouse "$W" --format csv "$@"; }
q() { floe -c "$1" | tail -n +2; }
fail() { echo "FAIL: $*"; exit 1; }
expect() { # expect ACTUAL EXPECTED WHAT
  [ "$1" = "$2" ] || fail "$3: expected [$2], got [$1]"
}
expect_error() { # expect_error SQL TEXT
  local out
  if out=$(floe -c "$1" 2>&1); then fail "no error for: $1"; fi
  case "$out" in *"$2"*) ;; *) fail "error for [$1] lacks [$2]: $out" ;; esac
}

floe -c "CREATE SCHEMA db" \
     -c "CREATE TABLE db.t (id bigint, p int) PARTITIONED BY (p) WITH ('write.delete.mode' = 'merge-on-read')" \
     -c "INSERT INTO db.t SELECT g, g % 2 FROM generate_series(1, 20) g" > /dev/null
expect "$(q "CALL system.rewrite_position_delete_files('db.t')")" "0,0,0,0" "no delete files: nothing to do"
for id in 1 2 3 4 5 7 9 11 13; do echo "DELETE FROM db.t WHERE id = $id;"; done > del.sql
floe -f del.sql > /dev/null
rows=$(q "SELECT id FROM db.t ORDER BY id")
dels=$(q "SELECT file_path, pos FROM db.t\$position_deletes ORDER BY file_path, pos")
expect "$(q "SELECT count(*) FROM db.t\$delete_files")" "9" "one delete file per DELETE"

res=$(q "CALL system.rewrite_position_delete_files(table => 'db.t')")
expect "$(echo "$res" | cut -d, -f1,2)" "7,1" "rewritten / added delete files (p=1: 7 files, p=0: 2 left)"
expect "$(q "SELECT count(*) FROM db.t\$delete_files")" "3" "delete files after the rewrite"
expect "$(q "SELECT id FROM db.t ORDER BY id")" "$rows" "rows after the rewrite"
expect "$(q "SELECT file_path, pos FROM db.t\$position_deletes ORDER BY file_path, pos")" "$dels" "deleted positions"
expect "$(q "SELECT operation FROM db.t\$snapshots ORDER BY committed_at DESC LIMIT 1")" "replace" "a replace snapshot"
expect "$(q "SELECT count(*) FROM db.t\$delete_files WHERE partition.p = 1")" "1" "one file for the one data file of p=1"
# the bytes reported are those of the files removed and added
added=$(q "SELECT sum(file_size_in_bytes) FROM db.t\$delete_files WHERE partition.p = 1")
expect "$(echo "$res" | cut -d, -f4)" "$added" "added_bytes_count"

expect "$(q "CALL system.rewrite_position_delete_files(table => 'db.t')")" "0,0,0,0" "nothing left to rewrite"
res=$(q "CALL system.rewrite_position_delete_files(table => 'db.t', options => map('rewrite-all', 'true'))")
expect "$(echo "$res" | cut -d, -f1,2)" "3,2" "rewrite-all"
expect "$(q "SELECT id FROM db.t ORDER BY id")" "$rows" "rows after rewrite-all"
expect "$(q "SELECT file_path, pos FROM db.t\$position_deletes ORDER BY file_path, pos")" "$dels" "positions after rewrite-all"
# a later row-level DELETE still works on top of the rewritten files
floe -c "DELETE FROM db.t WHERE id = 20" > /dev/null
expect "$(q "SELECT count(*), sum(id) FROM db.t")" "10,135" "rows after one more DELETE"

expect_error "CALL system.rewrite_position_delete_files(table => 'db.t', options => map('bogus', '1'))" \
  "Cannot use options [bogus], they are not supported by the action or the rewriter"
expect_error "CALL system.rewrite_position_delete_files(table => 'db.t', options => map('min-input-files', 'x'))" \
  "option 'min-input-files' is 'x'"
echo "OK"

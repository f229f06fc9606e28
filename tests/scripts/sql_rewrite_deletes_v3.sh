#!/usr/bin/env bash
# CALL system.rewrite_position_delete_files on a format version 3 table:
# a v2 merge-on-read table with position delete files is upgraded to v3
# (SET TBLPROPERTIES ('format-version' = '3'), as Spark), one more DELETE
# gives one data file a deletion vector (merging its older files), then the
# call merges every position delete file into deletion vectors — one per
# data file, in one Puffin file — committed as a "replace": afterwards
# $delete_files lists only DVs, one per data file, the rows read and the
# deleted positions are the same, and an independent reader of the spec
# (dv_check.py) finds in each DV exactly the positions $position_deletes
# listed before.  Downgrades and unknown versions are refused.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sql_rewrite_deletes_v3.XXXXXX")
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
     -c "CREATE TABLE db.t (id bigint, p int, s varchar) PARTITIONED BY (p) WITH ('write.delete.mode' = 'merge-on-read', 'format-version' = '2')" \
     -c "INSERT INTO db.t SELECT g, CAST(g % 3 AS int), 'r' || CAST(g AS varchar) FROM generate_series(1, 3000) g" \
     -c "INSERT INTO db.t SELECT g, CAST(g % 3 AS int), 'late' FROM generate_series(3001, 3600) g" > /dev/null
for c in "id % 7 = 0" "id BETWEEN 100 AND 400" "id % 11 = 1" "id > 3500" "id IN (5, 3002, 3004)"; do
  echo "DELETE FROM db.t WHERE $c;"
done > del.sql
floe -f del.sql > /dev/null
pos_files=$(q "SELECT count(*) FROM db.t\$delete_files")
[ "$pos_files" -ge 10 ] || fail "expected many position delete files, got $pos_files"

expect_error "ALTER TABLE db.t SET TBLPROPERTIES ('format-version' = '1')" "Cannot downgrade v2 table to v1"
expect_error "ALTER TABLE db.t SET TBLPROPERTIES ('format-version' = '4')" "unsupported format version: v4"
floe -c "ALTER TABLE db.t SET TBLPROPERTIES ('format-version' = '3', 'floe.note' = 'upgraded')" > /dev/null
expect "$(q "SELECT value FROM db.t\$properties WHERE key = 'floe.note'")" "upgraded" "property set with the upgrade"
# still the same rows and the same v2 delete files after the upgrade
expect "$(q "SELECT count(*) FROM db.t\$delete_files")" "$pos_files" "delete files after the upgrade"
# a DELETE in v3 writes a DV for each data file it touches, merging (and
# removing) that file's older position delete files
floe -c "DELETE FROM db.t WHERE id = 3013" > /dev/null
dv_before=$(q "SELECT count(*) FROM db.t\$delete_files WHERE content_offset IS NOT NULL")
expect "$dv_before" "1" "one DV after the v3 DELETE"
left=$(q "SELECT count(*) FROM db.t\$delete_files WHERE content_offset IS NULL")
[ "$left" -gt 0 ] || fail "no position delete files left to merge"
data_with_pos=$(q "SELECT count(DISTINCT referenced_data_file) FROM db.t\$delete_files WHERE content_offset IS NULL")

rows=$(q "SELECT id, p, s FROM db.t ORDER BY id")
dels=$(q "SELECT file_path, pos FROM db.t\$position_deletes ORDER BY file_path, pos")
nrows=$(q "SELECT count(*) FROM db.t")

res=$(q "CALL system.rewrite_position_delete_files(table => 'db.t')")
expect "$(echo "$res" | cut -d, -f1,2)" "$left,$data_with_pos" "rewritten / added delete files"
expect "$(q "SELECT count(*) FROM db.t\$delete_files WHERE content_offset IS NULL OR file_format <> 'PUFFIN'")" "0" \
  "only deletion vectors left"
expect "$(q "SELECT count(*), count(DISTINCT referenced_data_file) FROM db.t\$delete_files")" \
  "$((data_with_pos + 1)),$((data_with_pos + 1))" "one DV per data file"
expect "$(q "SELECT count(*) FROM db.t")" "$nrows" "row count after the rewrite"
expect "$(q "SELECT id, p, s FROM db.t ORDER BY id")" "$rows" "rows after the rewrite"
expect "$(q "SELECT file_path, pos FROM db.t\$position_deletes ORDER BY file_path, pos")" "$dels" "deleted positions"
expect "$(q "SELECT operation FROM db.t\$snapshots ORDER BY committed_at DESC LIMIT 1")" "replace" "a replace snapshot"
# rewritten bytes: the removed files; added bytes: the one Puffin file
expect "$(q "SELECT count(DISTINCT file_path) FROM db.t\$delete_files")" "2" "the old DV's Puffin file and the new one"
newp=$(q "SELECT file_path FROM db.t\$delete_files GROUP BY file_path HAVING count(*) = $data_with_pos")
[ -n "$newp" ] || fail "no Puffin file holds the $data_with_pos new DVs"
expect "$(echo "$res" | cut -d, -f4)" "$(stat -c %s "${newp#file:}")" "added_bytes_count"

# every DV, read by the spec reader, holds exactly the positions listed before
if command -v python3 > /dev/null; then
  q "SELECT file_path, content_offset, content_size_in_bytes, record_count, referenced_data_file FROM db.t\$delete_files" > dvs
  : > got
  while IFS=, read -r puffin off len count ref; do
    python3 "$SRC/tests/scripts/dv_check.py" "${puffin#file:}" "$off" "$len" > one || fail "DV check failed: $puffin"
    expect "$(head -1 one)" "$ref" "blob's referenced-data-file"
    expect "$(($(wc -l < one) - 1))" "$count" "record_count of the DV of $ref"
    tail -n +2 one | sed "s|^|$ref,|" >> got
  done < dvs
  expect "$(sort got)" "$(echo "$dels" | sort)" "positions in the DVs (dv_check.py)"
elif [ "${CI:-}" = true ]; then fail "python3 missing under CI=true"; fi

expect "$(q "CALL system.rewrite_position_delete_files(table => 'db.t')")" "0,0,0,0" "nothing left to rewrite"
# row-level changes go on on top of the DVs
floe -c "DELETE FROM db.t WHERE id IN (1, 2, 3)" > /dev/null
expect "$(q "SELECT count(*) FROM db.t")" "$((nrows - $(echo "$rows" | grep -c -E '^(1|2|3),')))" "rows after one more DELETE"
expect "$(q "SELECT count(*) - count(DISTINCT referenced_data_file) FROM db.t\$delete_files")" "0" "still one DV per data file"
echo "OK"

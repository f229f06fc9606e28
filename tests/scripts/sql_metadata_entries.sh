#!/usr/bin/env bash
# The file and entry metadata tables ($data_files, $delete_files,
# $all_files, $all_data_files, $all_delete_files, $entries, $all_entries,
# $all_manifests;
# Spark's names and columns) against $files and $snapshots, and $entries /
# $all_entries against the manifests read independently with python3-avro
# (metadata_entries_check.py); an unknown metadata table lists the valid
# names.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
src=${FLOE_SOURCE_DIR:?FLOE_SOURCE_DIR not set}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sql_metadata_entries.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
W=$tmp/wh
floe() { "$FLOE_BIN" --warehouse "$W" --format csv "$@"; }
q() { floe -c "$1" | tail -n +2; }
expect() { [ "$1" = "$2" ] || fail "$3: expected [$2], got [$1]"; }

floe -c "CREATE SCHEMA db; CREATE TABLE db.t (a int, p int) PARTITIONED BY (p)
  WITH ('write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read');
  INSERT INTO db.t VALUES (1, 1), (2, 1), (3, 2); INSERT INTO db.t VALUES (4, 2);
  DELETE FROM db.t WHERE a = 2; UPDATE db.t SET a = 30 WHERE a = 3;
  INSERT OVERWRITE db.t SELECT a, p FROM db.t WHERE p = 1" >/dev/null

files=$(q "SELECT count(*) FROM db.t\$files")
data=$(q "SELECT count(*) FROM db.t\$data_files")
dels=$(q "SELECT count(*) FROM db.t\$delete_files")
expect "$((data + dels))" "$files" "data + delete files = files"
expect "$(q "SELECT count(*) FROM db.t\$data_files WHERE content <> 0")" "0" "data_files content"
expect "$(q "SELECT count(*) FROM db.t\$delete_files WHERE content = 0")" "0" "delete_files content"
[ "$dels" -ge 1 ] || fail "expected a delete file, got $dels"
# all_*: a superset of the current files, each path once
expect "$(q "SELECT count(*) FROM db.t\$files f WHERE f.file_path NOT IN (SELECT file_path FROM db.t\$all_files)")" "0" "files within all_files"
expect "$(q "SELECT count(*) - count(DISTINCT file_path) FROM db.t\$all_files")" "0" "all_files distinct"
alld=$(q "SELECT count(*) FROM db.t\$all_data_files"); allx=$(q "SELECT count(*) FROM db.t\$all_delete_files")
expect "$((alld + allx))" "$(q "SELECT count(*) FROM db.t\$all_files")" "all data + all deletes"
# the overwrite removed files that older snapshots still hold
[ "$(q "SELECT count(*) FROM db.t\$all_files")" -gt "$files" ] || fail "all_files should hold removed files"
# entries: live ones are $files; every snapshot id is a snapshot
expect "$(q "SELECT count(*) FROM db.t\$entries WHERE status <> 2")" "$files" "live entries = files"
expect "$(q "SELECT count(*) FROM db.t\$all_entries e WHERE e.snapshot_id NOT IN (SELECT snapshot_id FROM db.t\$snapshots)")" "0" "entry snapshots"
[ "$(q "SELECT count(*) FROM db.t\$entries WHERE status = 2")" -ge 1 ] || fail "overwrite should leave DELETED entries"
# against python3-avro
for which in current all; do
  table=entries; [ $which = all ] && table=all_entries
  got=$(q "SELECT status, snapshot_id, sequence_number, file_sequence_number, data_file.content, data_file.file_path, data_file.record_count FROM db.t\$$table" | LC_ALL=C sort)
  want=$(/usr/bin/python3 -W ignore "$src/tests/scripts/metadata_entries_check.py" "$W/db/t" $which | LC_ALL=C sort)
  expect "$got" "$want" "\$$table vs python3-avro"
done
# all_manifests: each snapshot's list; the current one's rows are $manifests
expect "$(q "SELECT count(*) FROM db.t\$all_manifests WHERE reference_snapshot_id = (SELECT snapshot_id FROM db.t\$refs WHERE name = 'main')")" \
  "$(q "SELECT count(*) FROM db.t\$manifests")" "all_manifests of the current snapshot"
expect "$(q "SELECT count(DISTINCT reference_snapshot_id) FROM db.t\$all_manifests")" "$(q "SELECT count(*) FROM db.t\$snapshots")" "all_manifests snapshots"
# an unknown metadata table names the valid ones
out=$(floe -c "SELECT * FROM db.t\$entrys" 2>&1 || true)
case "$out" in *"did you mean 'entries'"*"valid: snapshots,"*"all_entries"*) ;; *) fail "unknown metadata table: $out" ;; esac
echo "sql_metadata_entries: ok"

#!/usr/bin/env bash
# Manifest merging on commit, as Iceberg Java's MergingSnapshotProducer /
# ManifestMergeManager do it (commit.manifest-merge.enabled,
# commit.manifest.min-count-to-merge, commit.manifest.target-size-bytes):
# 120 single-row INSERTs in one script leave 21 manifests (merged into one
# at the 100th), every row, snapshot and file there, each file's entry with
# the snapshot id and sequence numbers of the INSERT that added it (read by
# python3-avro from the manifests), time travel to old snapshots right;
# with merging off the count grows; delete manifests merge apart from data
# manifests; DELETED entries of older snapshots are dropped; bad values are
# named.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sql_manifest_merge.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
W=$tmp/wh
floe() { "$FLOE_BIN" --warehouse "$W" --format csv "$@"; }
q() { floe -c "$1" | tail -n +2; }
fail() { echo "FAIL: $*"; exit 1; }
expect() { # expect ACTUAL EXPECTED WHAT
  [ "$1" = "$2" ] || fail "$3: expected [$2], got [$1]"
}
inserts() { # inserts TABLE FIRST LAST: one floe -f script of single-row INSERTs
  local i
  for i in $(seq "$2" "$3"); do echo "INSERT INTO $1 VALUES ($i, 'row $i');"; done > ins.sql
  floe -f ins.sql > /dev/null
}

# ---- defaults: min-count 100, 8 MiB target
floe -c "CREATE SCHEMA db" -c "CREATE TABLE db.t (id bigint, s string)" > /dev/null
inserts db.t 1 99
expect "$(q "SELECT count(*) FROM db.t\$manifests")" "99" "99 INSERTs: no merge yet"
inserts db.t 100 120
# the 100th commit merges its new manifest with the 99 before; 20 more follow
expect "$(q "SELECT count(*) FROM db.t\$manifests")" "21" "manifests after 120 INSERTs"
expect "$(q "SELECT sum(added_data_files_count), sum(existing_data_files_count) FROM db.t\$manifests")" "21,99" \
  "added / existing files in the manifests"
expect "$(q "SELECT count(*), sum(id), count(DISTINCT s) FROM db.t")" "120,7260,120" "rows"
expect "$(q "SELECT count(*) FROM db.t\$snapshots")" "120" "snapshots"
expect "$(q "SELECT count(*), sum(record_count) FROM db.t\$files")" "120,120" "files"
expect "$(q "SELECT count(*) FROM db.t\$snapshots WHERE operation <> 'append'")" "0" "all appends"
s50=$(q "SELECT snapshot_id FROM db.t\$snapshots ORDER BY committed_at, snapshot_id LIMIT 1 OFFSET 49")
s100=$(q "SELECT snapshot_id FROM db.t\$snapshots ORDER BY committed_at, snapshot_id LIMIT 1 OFFSET 99")
expect "$(q "SELECT count(*), sum(id) FROM db.t FOR VERSION AS OF $s50")" "50,1275" "time travel to the 50th INSERT"
expect "$(q "SELECT count(*), sum(id) FROM db.t FOR VERSION AS OF $s100")" "100,5050" "time travel to the merge"
# The merged manifests, read by python3-avro: every file's live entry
# carries the id and sequence number of the snapshot that added it
# (found in that snapshot's own list), EXISTING in a manifest another
# snapshot wrote (the 99 merged), ADDED in its own.
/usr/bin/python3 -W ignore - "$W/db/t" <<'PY' || fail "python3-avro check of the merged manifests"
import glob, json, sys
import avro.datafile, avro.io
table = sys.argv[1]
def rows(path):
    with open(path.replace("file:", ""), "rb") as f:
        return list(avro.datafile.DataFileReader(f, avro.io.DatumReader()))
md = json.load(open(max(glob.glob(table + "/metadata/*.metadata.json"))))
snaps = md["snapshots"]
assert len(snaps) == 120
added = {}  # file path -> (snapshot id, sequence number)
for s in snaps:
    mine = []
    for m in rows(s["manifest-list"]):
        if m["added_snapshot_id"] != s["snapshot-id"]:
            continue
        for e in rows(m["manifest_path"]):
            sid = e["snapshot_id"] if e["snapshot_id"] is not None else m["added_snapshot_id"]
            if e["status"] == 1 and sid == s["snapshot-id"]:
                mine.append(e["data_file"]["file_path"])
    assert len(mine) == 1, (s["snapshot-id"], mine)
    added[mine[0]] = (s["snapshot-id"], s["sequence-number"])
cur = [s for s in snaps if s["snapshot-id"] == md["current-snapshot-id"]][0]
seen = merged = 0
for m in rows(cur["manifest-list"]):
    for e in rows(m["manifest_path"]):
        sid = e["snapshot_id"] if e["snapshot_id"] is not None else m["added_snapshot_id"]
        seq = e["sequence_number"] if e["sequence_number"] is not None else m["sequence_number"]
        fseq = e["file_sequence_number"] if e["file_sequence_number"] is not None else m["sequence_number"]
        want = added[e["data_file"]["file_path"]]
        assert (sid, seq, fseq) == (want[0], want[1], want[1]), (e, want)
        # ADDED in the manifest its snapshot wrote, EXISTING once merged
        assert e["status"] == (1 if sid == m["added_snapshot_id"] else 0), e
        merged += m["added_snapshot_id"] != sid
        seen += 1
assert (seen, merged) == (120, 99), (seen, merged)
PY
# the manifests this commit wrote and merged away are gone from storage
n0=$(ls "$W"/db/t/metadata/*-m0.avro | wc -l)
n1=$(ls "$W"/db/t/metadata/*-m1.avro | wc -l)
[ "$n0,$n1" = "119,1" ] || fail "$n0 added and $n1 merged manifests on storage (expected 119 and 1)"

# ---- merging off: one more manifest per INSERT
floe -c "CREATE TABLE db.off (id bigint, s string) WITH ('commit.manifest-merge.enabled' = 'false', 'commit.manifest.min-count-to-merge' = '2')" > /dev/null
inserts db.off 1 30
expect "$(q "SELECT count(*) FROM db.off\$manifests")" "30" "manifests with merging off"
expect "$(q "SELECT count(*), sum(id) FROM db.off")" "30,465" "rows with merging off"

# ---- a tiny target: every manifest its own bin, nothing merges
floe -c "CREATE TABLE db.tiny (id bigint, s string) WITH ('commit.manifest.min-count-to-merge' = '2', 'commit.manifest.target-size-bytes' = '1')" > /dev/null
inserts db.tiny 1 6
expect "$(q "SELECT count(*) FROM db.tiny\$manifests")" "6" "manifests with a 1-byte target"

# ---- a small min-count: data and delete manifests merge apart; merged
# DELETED entries of older snapshots are dropped
floe -c "CREATE TABLE db.d (id bigint, s string) WITH ('commit.manifest.min-count-to-merge' = '3', 'write.delete.mode' = 'merge-on-read', 'format-version' = '2')" > /dev/null
inserts db.d 1 4
# 1, 2, 3 -> merged; 4 -> 2 manifests
expect "$(q "SELECT count(*) FROM db.d\$manifests")" "2" "min-count 3 after 4 INSERTs"
floe -c "INSERT INTO db.d SELECT id + 100, s FROM db.d" > /dev/null # one file of 4 rows
floe -c "DELETE FROM db.d WHERE id = 101" -c "DELETE FROM db.d WHERE id = 102" > /dev/null
expect "$(q "SELECT content, count(*) FROM db.d\$manifests GROUP BY content ORDER BY content")" $'0,1\n1,2' \
  "data manifests merged at the third commit, two delete manifests"
floe -c "DELETE FROM db.d WHERE id = 103" > /dev/null
expect "$(q "SELECT content, count(*) FROM db.d\$manifests GROUP BY content ORDER BY content")" $'0,1\n1,1' \
  "three delete manifests merged"
expect "$(q "SELECT count(*) FROM db.d\$delete_files")" "3" "position delete files"
expect "$(q "SELECT count(*), sum(id) FROM db.d")" "5,114" "rows after row-level deletes"
# a whole-file delete leaves a DELETED entry; the next merge drops it
floe -c "DELETE FROM db.d WHERE id = 1" > /dev/null
expect "$(q "SELECT count(*) FROM db.d\$entries WHERE status = 2")" "1" "the whole-file delete's entry"
floe -c "INSERT INTO db.d VALUES (7, 'x')" -c "INSERT INTO db.d VALUES (8, 'y')" > /dev/null
expect "$(q "SELECT count(*), sum(id) FROM db.d")" "6,128" "rows after a file delete and appends"
/usr/bin/python3 -W ignore - "$W/db/d" <<'PY' || fail "python3-avro check of merged DELETED entries"
import glob, json, sys
import avro.datafile, avro.io
def rows(path):
    with open(path.replace("file:", ""), "rb") as f:
        return list(avro.datafile.DataFileReader(f, avro.io.DatumReader()))
md = json.load(open(max(glob.glob(sys.argv[1] + "/metadata/*.metadata.json"))))
cur = [s for s in md["snapshots"] if s["snapshot-id"] == md["current-snapshot-id"]][0]
data = [m for m in rows(cur["manifest-list"]) if m["content"] == 0]
assert len(data) == 1, "%d data manifests" % len(data)
for e in rows(data[0]["manifest_path"]):
    assert e["status"] != 2, ("stale DELETED entry", e)
PY

# ---- specs merge apart, highest spec id first; only the new manifest's
# bin waits for min-count: two manifests of an older spec merge at once
floe -c "CREATE TABLE db.ev (id bigint, p int) PARTITIONED BY (p)" \
     -c "INSERT INTO db.ev VALUES (1, 1)" -c "INSERT INTO db.ev VALUES (2, 2)" \
     -c "ALTER TABLE db.ev ADD PARTITION FIELD bucket(4, id)" -c "INSERT INTO db.ev VALUES (3, 1)" > /dev/null
expect "$(q "SELECT partition_spec_id, added_data_files_count, existing_data_files_count FROM db.ev\$manifests")" \
  $'1,1,0\n0,0,2' "manifests per spec after partition evolution"
expect "$(q "SELECT count(*), sum(id) FROM db.ev WHERE p = 1")" "2,4" "pruned read after the merge"

# ---- v3: merged entries keep their row ids (explicit first_row_id); the
# merged manifest takes fresh ids for its ADDED file (Java's list writer
# also reserves its existing rows, so ids may skip, never repeat)
floe -c "CREATE TABLE db.v3 (id bigint) WITH ('format-version' = '3', 'commit.manifest.min-count-to-merge' = '3')" \
     -c "INSERT INTO db.v3 VALUES (1)" -c "INSERT INTO db.v3 VALUES (2), (3)" > /dev/null
before=$(q "SELECT id, _row_id, _last_updated_sequence_number FROM db.v3 ORDER BY id")
floe -c "INSERT INTO db.v3 VALUES (4)" -c "INSERT INTO db.v3 VALUES (5)" > /dev/null
expect "$(q "SELECT count(*) FROM db.v3\$manifests")" "2" "v3 manifests after the merge"
expect "$(q "SELECT id, _row_id, _last_updated_sequence_number FROM db.v3 WHERE id <= 3 ORDER BY id")" "$before" \
  "row ids and sequence numbers kept by the merge"
expect "$(q "SELECT count(DISTINCT _row_id), min(_row_id) FROM db.v3")" "5,0" "row ids unique"
expect "$(q "SELECT _last_updated_sequence_number FROM db.v3 WHERE id >= 4 ORDER BY id" | tr '\n' ' ')" "3 4 " \
  "sequence numbers of the later rows"

# ---- bad values are named
floe -c "CREATE TABLE db.bad (id bigint) WITH ('commit.manifest.min-count-to-merge' = 'many')" > /dev/null
if out=$(floe -c "INSERT INTO db.bad VALUES (1)" 2>&1); then fail "no error for a bad min-count"; fi
case "$out" in *"commit.manifest.min-count-to-merge is 'many': not an integer"*) ;; *) fail "bad min-count: $out" ;; esac
floe -c "ALTER TABLE db.bad SET ('commit.manifest.min-count-to-merge' = '5', 'commit.manifest-merge.enabled' = 'yes')" > /dev/null
if out=$(floe -c "INSERT INTO db.bad VALUES (1)" 2>&1); then fail "no error for a bad enabled"; fi
case "$out" in *"commit.manifest-merge.enabled is 'yes': must be true or false"*) ;; *) fail "bad enabled: $out" ;; esac
expect "$(q "SELECT count(*) FROM db.bad")" "0" "nothing committed by the failed INSERTs"
echo "OK"

#!/usr/bin/env bash
# expire_snapshots options as Spark's procedure:
#   clean_expired_metadata => true (Java's cleanExpiredMetadata): the
#   partition specs and schemas no kept snapshot uses are dropped from the
#   metadata (the default spec and current schema always stay); a spec a
#   kept snapshot's manifests still use stays; without the option nothing
#   but snapshots goes; the rows read do not change;
#   max_concurrent_deletes => n deletes on n threads exactly the files a
#   run without it deletes (same counts, same files left on storage: the
#   live ones); n <= 0 is refused with Spark's message.
# Trino's forms, ALTER TABLE t EXECUTE expire_snapshots(retention_threshold
# => '7d') and remove_orphan_files(...): a threshold under the minimum
# retention (7 days, SET expire_snapshots_min_retention_s /
# remove_orphan_files_min_retention_s) is refused as Trino refuses it; with
# the minimum lowered they expire and clean like Spark's procedures.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sql_expire_options.XXXXXX")
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
command -v python3 > /dev/null || { [ "${CI:-}" = true ] && fail "python3 missing under CI=true"; echo "SKIP: python3"; exit 0; }
# specs and schemas of the current metadata file: "[spec ids] [schema ids]"
meta() {
  local f
  f=$(q "SELECT file FROM $1\$metadata_log_entries ORDER BY timestamp DESC LIMIT 1")
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sorted(s["spec-id"] for s in d["partition-specs"]), sorted(s["schema-id"] for s in d["schemas"]))' "${f#file:}"
}
FUTURE="TIMESTAMP '2999-01-01 00:00:00'"

# t: the spec-0 data is deleted, so after expiry only spec 1 / schema 1 are used
floe -c "CREATE SCHEMA db" \
     -c "CREATE TABLE db.t (id bigint, p int) PARTITIONED BY (p)" \
     -c "INSERT INTO db.t VALUES (1, 1), (2, 2)" \
     -c "ALTER TABLE db.t ADD COLUMN s varchar" \
     -c "ALTER TABLE db.t ADD PARTITION FIELD bucket(4, id)" \
     -c "DELETE FROM db.t WHERE p IN (1, 2)" \
     -c "INSERT INTO db.t VALUES (3, 1, 'x'), (4, 2, 'y')" > /dev/null
# u: the spec-0 data lives on, so spec 0 stays; schema 0 goes
floe -c "CREATE TABLE db.u (id bigint, p int) PARTITIONED BY (p)" \
     -c "INSERT INTO db.u VALUES (1, 1), (2, 2)" \
     -c "ALTER TABLE db.u ADD COLUMN s varchar" \
     -c "ALTER TABLE db.u ADD PARTITION FIELD bucket(4, id)" \
     -c "INSERT INTO db.u VALUES (3, 1, 'x')" > /dev/null
expect "$(meta db.t)" "[0, 1] [0, 1]" "t before"
rows_t=$(q "SELECT * FROM db.t ORDER BY id")
rows_u=$(q "SELECT * FROM db.u ORDER BY id")

# without the option: snapshots go, specs and schemas stay
res=$(q "CALL system.expire_snapshots(table => 'db.t', older_than => $FUTURE, retain_last => 1)")
expect "$(echo "$res" | cut -d, -f1)" "2" "data files of the expired snapshots deleted"
expect "$(q "SELECT count(*) FROM db.t\$snapshots")" "1" "one snapshot left"
expect "$(meta db.t)" "[0, 1] [0, 1]" "specs and schemas kept without clean_expired_metadata"
# with it (nothing more to expire): the unused spec and schema go
expect "$(q "CALL system.expire_snapshots(table => 'db.t', clean_expired_metadata => true)")" "0,0,0,0,0,0" "nothing deleted"
expect "$(meta db.t)" "[1] [1]" "t after clean_expired_metadata"
expect "$(q "SELECT * FROM db.t ORDER BY id")" "$rows_t" "t's rows"
floe -c "INSERT INTO db.t VALUES (5, 3, 'z')" > /dev/null
expect "$(q "SELECT count(*) FROM db.t")" "3" "t takes writes afterwards"

# expiring and cleaning in one call; spec 0 is still used by a kept manifest
q "CALL system.expire_snapshots(table => 'db.u', older_than => $FUTURE, retain_last => 1, clean_expired_metadata => true)" > /dev/null
expect "$(meta db.u)" "[0, 1] [1]" "u: spec 0 still used, schema 0 not"
expect "$(q "SELECT * FROM db.u ORDER BY id")" "$rows_u" "u's rows"
expect "$(q "SELECT count(*) FROM db.u WHERE p = 1")" "2" "u's spec-0 file still pruned and read by its spec"

# max_concurrent_deletes: two tables with the same 40 appends (a manifest
# merge every few commits) expired with and without it
for tb in seq par; do
  floe -c "CREATE TABLE db.$tb (id bigint, p int) PARTITIONED BY (p)" > /dev/null
  for i in $(seq 1 40); do echo "INSERT INTO db.$tb VALUES ($i, $((i % 4)));"; done > ins.sql
  floe -f ins.sql > /dev/null
done
expect_error "CALL system.expire_snapshots(table => 'db.par', max_concurrent_deletes => 0)" \
  "max_concurrent_deletes should have value > 0, value: 0"
expect_error "CALL system.expire_snapshots(table => 'db.par', max_concurrent_deletes => -3)" \
  "max_concurrent_deletes should have value > 0, value: -3"
expect "$(q "SELECT count(*) FROM db.par\$snapshots")" "40" "a refused call expires nothing"
floe -c "DELETE FROM db.seq WHERE p = 1" -c "DELETE FROM db.par WHERE p = 1" \
     -c "INSERT INTO db.seq VALUES (41, 1)" -c "INSERT INTO db.par VALUES (41, 1)" > /dev/null
a=$(q "CALL system.expire_snapshots(table => 'db.seq', older_than => $FUTURE, retain_last => 1)")
b=$(q "CALL system.expire_snapshots(table => 'db.par', older_than => $FUTURE, retain_last => 1, max_concurrent_deletes => 4)")
expect "$b" "$a" "counts with 4 threads and with one"
[ "$(echo "$b" | cut -d, -f1)" -ge 10 ] || fail "expected the p = 1 files deleted: $b"
[ "$(echo "$b" | cut -d, -f5)" = 41 ] || fail "expected 41 manifest lists deleted: $b"
for tb in seq par; do
  loc=$(q "SELECT file FROM db.$tb\$metadata_log_entries ORDER BY timestamp DESC LIMIT 1")
  loc=${loc#file:}; loc=${loc%/metadata/*}
  expect "$(find "$loc/data" -name '*.parquet' | sort | sed "s|^$loc/||")" \
    "$(q "SELECT file_path FROM db.$tb\$files ORDER BY file_path" | sed "s|^file:||; s|^$loc/||")" "$tb: the live data files are all that is left"
  expect "$(find "$loc/metadata" -name 'snap-*.avro' | wc -l)" "1" "$tb: the manifest list of the kept snapshot"
done
expect "$(q "SELECT count(*), sum(id) FROM db.par")" "$(q "SELECT count(*), sum(id) FROM db.seq")" "same rows"

# ---- Trino's ALTER TABLE ... EXECUTE expire_snapshots / remove_orphan_files
floe -c "CREATE TABLE db.tr (id int)" -c "INSERT INTO db.tr VALUES (1)" -c "INSERT INTO db.tr VALUES (2)" \
     -c "INSERT INTO db.tr VALUES (3)" > /dev/null
expect_error "ALTER TABLE db.tr EXECUTE expire_snapshots(retention_threshold => '1d')" \
  "Retention specified (1.00d) is shorter than the minimum retention configured in the system (7.00d)"
expect_error "ALTER TABLE db.tr EXECUTE remove_orphan_files(retention_threshold => '36h')" \
  "Retention specified (1.50d) is shorter than the minimum retention configured in the system (7.00d)"
expect_error "ALTER TABLE db.tr EXECUTE expire_snapshots(retention_threshold => 'soon')" "invalid duration 'soon'"
expect_error "ALTER TABLE db.tr EXECUTE vacuum" "procedures: optimize, expire_snapshots, remove_orphan_files"
# the default threshold (7 days) expires nothing made just now
expect "$(q "ALTER TABLE db.tr EXECUTE expire_snapshots")" "0,0,0,0,0,0" "expire_snapshots with the default 7d"
expect "$(q "SELECT count(*) FROM db.tr\$snapshots")" "3" "snapshots kept by 7d"
trloc=$(q "SELECT file FROM db.tr\$metadata_log_entries ORDER BY timestamp DESC LIMIT 1")
trloc=${trloc#file:}; trloc=${trloc%/metadata/*}
echo stray > "$trloc/data/stray-from-a-killed-writer.parquet"
out=$(floe -c "SET expire_snapshots_min_retention_s = 0" -c "SET remove_orphan_files_min_retention_s = 0" \
  -c "ALTER TABLE db.tr EXECUTE expire_snapshots(retention_threshold => '0s')" \
  -c "ALTER TABLE db.tr EXECUTE remove_orphan_files(retention_threshold => '0s')" \
  -c "SELECT count(*) AS n FROM db.tr\$snapshots" -c "SELECT sum(id) AS s FROM db.tr")
expect "$(echo "$out" | grep -c 'stray-from-a-killed-writer.parquet')" "1" "remove_orphan_files lists the stray file: $out"
[ ! -e "$trloc/data/stray-from-a-killed-writer.parquet" ] || fail "the stray file is still there"
case "$out" in *"
0,0,0,0,2,0
"*) ;; *) fail "expire_snapshots(retention_threshold => '0s') did not delete two manifest lists: $out" ;; esac
case "$out" in *"
n
1
s
6") ;; *) fail "after Trino's expiry: $out" ;; esac
echo "OK"

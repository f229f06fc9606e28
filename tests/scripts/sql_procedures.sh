#!/usr/bin/env bash
# CALL procedures against Spark's documented behaviour (docs/docs/
# spark-procedures.md of Iceberg): snapshot management (rollback_to_snapshot,
# rollback_to_timestamp, set_current_snapshot, cherrypick_snapshot,
# fast_forward) changes what readers see; expire_snapshots and
# remove_orphan_files leave on storage exactly the files the retained
# metadata references (read independently by proc_files_check.py with
# python3-avro), also after a killed writer left *.tmp and unreferenced
# data files; a reader of a retained snapshot still works, also while the
# files go; argument errors
# as Spark reports them; the same through the REST catalog and with -f.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
src=${FLOE_SOURCE_DIR:?FLOE_SOURCE_DIR not set}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sql_procedures.XXXXXX")
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=rest_server_lib.bash
. "$src/tests/scripts/rest_server_lib.bash"
trap 'rest_server_cleanup; rm -rf "$tmp"' EXIT
W=$tmp/wh
floe() { "$FLOE_BIN" --warehouse "$W" --format csv "$@"; }
q() { floe -c "$1" | tail -n +2; }
expect() { # expect ACTUAL EXPECTED WHAT
  [ "$1" = "$2" ] || fail "$3: expected [$2], got [$1]"
}
expect_error() { # expect_error SQL TEXT
  local out
  if out=$(floe -c "$1" 2>&1); then fail "no error for: $1"; fi
  case "$out" in *"$2"*) ;; *) fail "error for [$1] lacks [$2]: $out" ;; esac
}
snap() { q "SELECT snapshot_id FROM db.t\$snapshots ORDER BY committed_at, snapshot_id LIMIT 1 OFFSET $1"; }

floe -c "CREATE SCHEMA db; CREATE TABLE db.t (a int);
  INSERT INTO db.t VALUES (1); INSERT INTO db.t VALUES (2); INSERT INTO db.t VALUES (3)" >/dev/null
s1=$(snap 0); s2=$(snap 1); s3=$(snap 2)

# ---- rollback_to_snapshot: named arguments, table => accepted
expect "$(q "CALL system.rollback_to_snapshot(table => 'db.t', snapshot_id => $s1)")" "$s3,$s1" "rollback result"
expect "$(q "SELECT a FROM db.t ORDER BY a")" "1" "rows after rollback"
# s2 and s3 still exist (a reader can time-travel to them)
expect "$(q "SELECT count(*) FROM db.t FOR VERSION AS OF $s3")" "3" "time travel after rollback"
# not an ancestor any more: Java refuses
expect_error "CALL system.rollback_to_snapshot('db.t', $s3)" "not an ancestor of the current state"

# ---- cherrypick_snapshot: s2 is a child of the current s1: fast-forward
expect "$(q "CALL system.cherrypick_snapshot('db.t', $s2)")" "$s1,$s2" "cherrypick result"
expect "$(q "SELECT a FROM db.t ORDER BY a" | tr '\n' ' ')" "1 2 " "rows after cherrypick"

# ---- set_current_snapshot: any snapshot, by id (positional, catalog-qualified) or by ref
expect "$(q "CALL floe.system.set_current_snapshot('db.t', $s3)")" "$s2,$s3" "set_current result"
expect "$(q "SELECT count(*) FROM db.t")" "3" "rows after set_current"
expect "$(q "CALL system.set_current_snapshot(table => 'db.t', ref => 'main')")" "$s3,$s3" "set_current ref"
expect_error "CALL system.set_current_snapshot(table => 'db.t', snapshot_id => $s1, ref => 'main')" \
  "either snapshot_id or ref must be provided, not both"

# ---- rollback_to_timestamp: the latest ancestor older than the time
t3=$(q "SELECT committed_at FROM db.t\$snapshots WHERE snapshot_id = $s3")
expect "$(q "CALL system.rollback_to_timestamp('db.t', TIMESTAMP '$t3')")" "$s3,$s2" "rollback_to_timestamp result"
expect "$(q "SELECT count(*) FROM db.t")" "2" "rows after rollback_to_timestamp"
expect "$(q "CALL system.set_current_snapshot('db.t', $s3)")" "$s2,$s3" "back to s3"

# ---- fast_forward: a missing branch is created at `to`; then moved forward
expect "$(q "CALL system.fast_forward('db.t', 'audit', 'main')")" "audit,,$s3" "fast_forward create"
floe -c "INSERT INTO db.t VALUES (4)" >/dev/null
s4=$(snap 3)
expect "$(q "SELECT count(*) FROM db.t FOR VERSION AS OF 'audit'")" "3" "branch before fast_forward"
expect "$(q "CALL system.fast_forward(table => 'db.t', branch => 'audit', to => 'main')")" "audit,$s3,$s4" \
  "fast_forward result"
expect "$(q "SELECT count(*) FROM db.t FOR VERSION AS OF 'audit'")" "4" "branch after fast_forward"

# ---- write-audit-publish: with write.wap.enabled and spark.wap.id an INSERT
# stages a snapshot (summary wap.id) that readers do not see until published
floe -c "CREATE TABLE db.w (a int) WITH ('write.wap.enabled' = 'true'); INSERT INTO db.w VALUES (1)" >/dev/null
w1=$(q "SELECT snapshot_id FROM db.w\$snapshots")
expect "$(q "SET spark.wap.id = 'audit-1'; INSERT INTO db.w VALUES (2); SELECT count(*) FROM db.w")" "1" "staged rows unseen"
staged=$(q "SELECT snapshot_id FROM db.w\$snapshots WHERE parent_id = $w1")
expect "$(q "SELECT count(*) FROM db.w FOR VERSION AS OF $staged")" "2" "staged snapshot readable by id"
expect "$(floe -c "SELECT summary FROM db.w\$snapshots WHERE snapshot_id = $staged" | grep -c 'wap.id.*audit-1')" "1" "summary wap.id"
expect "$(q "CALL system.publish_changes('db.w', 'audit-1')")" "$w1,$staged" "publish_changes result"
expect "$(q "SELECT count(*) FROM db.w")" "2" "published rows"
expect_error "CALL system.publish_changes('db.w', 'audit-1')" "duplicate request to cherry pick wap id that was published already: audit-1"
expect_error "CALL system.publish_changes('db.w', 'nope')" "cannot apply unknown WAP ID 'nope'"
# cherrypick_snapshot of a staged snapshot; without write.wap.enabled the id is ignored
expect "$(q "SET wap.id = 'audit-2'; INSERT INTO db.w VALUES (3); SELECT count(*) FROM db.w")" "2" "second staged"
st2=$(q "SELECT snapshot_id FROM db.w\$snapshots WHERE parent_id = $staged")
expect "$(q "CALL system.cherrypick_snapshot(table => 'db.w', snapshot_id => $st2)")" "$staged,$st2" "cherrypick a WAP snapshot"
expect "$(q "SELECT count(*) FROM db.w")" "3" "cherry-picked rows"
expect "$(q "CREATE TABLE db.w2 (a int); SET spark.wap.id = 'x'; INSERT INTO db.w2 VALUES (9); SELECT count(*) FROM db.w2")" \
  "1" "no WAP without write.wap.enabled"

# ---- argument errors as Spark reports them
expect_error "CALL system.no_such_thing('db.t')" "unknown procedure 'no_such_thing' (procedures: rollback_to_snapshot"
expect_error "CALL system.rollback_to_snapshot(table => 'db.t')" "missing required parameters: [snapshot_id]"
expect_error "CALL system.rollback_to_snapshot(table => 'db.t', snapshot_id => 'x')" \
  "wrong argument type for snapshot_id: expected long, got string"
expect_error "CALL system.rollback_to_snapshot(tabel => 'db.t', snapshot_id => 1)" "unknown argument 'tabel' (did you mean 'table'?)"
expect_error "CALL system.rollback_to_snapshot('db.t', snapshot_id => 1)" "named and positional arguments cannot be mixed"
expect_error "CALL system.rollback_to_snapshot('db.nope', 1)" "table db.nope does not exist"
expect_error "CALL other.system.rollback_to_snapshot('db.t', 1)" "unknown catalog 'other'"
expect_error "CALL system.expire_snapshots('db.t', retain_last => 0)" "named and positional"
expect_error "CALL system.expire_snapshots(table => 'db.t', retain_last => 0)" "number of snapshots to retain must be at least 1"

# ---- expire_snapshots: a delete and more inserts, then keep the last 2
floe -c "DELETE FROM db.t WHERE a = 1; INSERT INTO db.t VALUES (5)" >/dev/null
T=$W/db/t
check_exact() { # the files on storage are exactly those the metadata references
  (cd "$T" && find . -type f | sed 's|^\./||' | grep -v '^metadata/version-hint.text$' | sort) >"$tmp/on_disk"
  /usr/bin/python3 -W ignore "$src/tests/scripts/proc_files_check.py" "$T" | grep -v "^metadata/version-hint.text$" >"$tmp/referenced"
  cat "$tmp/extra" >>"$tmp/referenced" 2>/dev/null || true
  sort -o "$tmp/referenced" "$tmp/referenced"
  diff "$tmp/referenced" "$tmp/on_disk" >"$tmp/diff" || fail "$1: storage != referenced files: $(cat "$tmp/diff" | tr "\n" " ")"
}
n_snaps=$(q "SELECT count(*) FROM db.t\$snapshots")
expect "$n_snaps" "6" "snapshots before expiring"
# retain_last applies to every branch: main keeps s6, 'audit' keeps its
# head s4; s1, s2, s3 and s5 (main's, older than older_than) are expired
res=$(q "CALL system.expire_snapshots(table => 'db.t', older_than => now(), retain_last => 1)")
expect "$(q "SELECT snapshot_id FROM db.t\$snapshots ORDER BY committed_at" | tr '\n' ' ')" "$s4 $(q "SELECT snapshot_id FROM db.t\$refs WHERE name = 'main'") " "snapshots after expire"
# s1's data file is still live in s4: no data file goes; 4 manifest lists do
expect "$(echo "$res" | cut -d, -f1,2,3,5,6)" "0,0,0,4,0" "expire_snapshots counts"
check_exact "after expire_snapshots"
expect "$(q "SELECT a FROM db.t ORDER BY a" | tr '\n' ' ')" "2 3 4 5 " "current rows after expire"
expect "$(q "SELECT a FROM db.t FOR VERSION AS OF $s4 ORDER BY a" | tr '\n' ' ')" "1 2 3 4 " "retained snapshot s4 reads"
expect_error "CALL system.expire_snapshots(table => 'db.t', snapshot_ids => array($s4))" "still referenced by ref audit"
# a data file only expired snapshots reach is deleted; the kept snapshot reads
floe -c "CREATE TABLE db.u (a int); INSERT INTO db.u VALUES (1); INSERT INTO db.u VALUES (2);
  DELETE FROM db.u WHERE a = 1; INSERT INTO db.u VALUES (3)" >/dev/null
u_last=$(q "SELECT snapshot_id FROM db.u\$refs WHERE name = 'main'")
res=$(q "CALL system.expire_snapshots(table => 'db.u', older_than => now(), snapshot_ids => ARRAY[$(q "SELECT snapshot_id FROM db.u\$snapshots ORDER BY committed_at LIMIT 1")])")
expect "$(echo "$res" | cut -d, -f1,2,3,5)" "1,0,0,3" "expire_snapshots on u (the a=1 file, 3 lists)"
expect "$(q "SELECT snapshot_id FROM db.u\$snapshots")" "$u_last" "u keeps its current snapshot"
T=$W/db/u check_exact "u after expire_snapshots"
expect "$(q "SELECT a FROM db.u FOR VERSION AS OF $u_last ORDER BY a" | tr '\n' ' ')" "2 3 " "u's retained snapshot reads"
# nothing more to expire: no commit, zero counts
expect "$(q "CALL system.expire_snapshots(table => 'db.t', older_than => TIMESTAMP '2000-01-01 00:00:00')")" \
  "0,0,0,0,0,0" "expire nothing"

# ---- remove_orphan_files: a killed writer's leftovers
mkdir -p "$T/data/part=x"
some=$(find "$T/data" -name '*.parquet' | head -1)
cp "$some" "$T/data/part=x/00009-dead-writer.parquet"
echo partial >"$T/data/00010-dead.parquet.tmp"
echo partial >"$T/metadata/snap-dead.avro.tmp"
touch -d '4 days ago' "$T/data/part=x/00009-dead-writer.parquet" "$T/data/00010-dead.parquet.tmp" "$T/metadata/snap-dead.avro.tmp"
echo fresh >"$T/data/00011-in-flight.parquet"   # newer than older_than: never touched
printf '%s\n' "data/00011-in-flight.parquet" >"$tmp/extra"
dry=$(q "CALL system.remove_orphan_files(table => 'db.t', dry_run => true)")
expect "$dry" "$(printf '%s\n' "$T/data/00010-dead.parquet.tmp" "$T/data/part=x/00009-dead-writer.parquet" "$T/metadata/snap-dead.avro.tmp")" \
  "dry run lists the orphans"
[ -f "$T/data/00010-dead.parquet.tmp" ] || fail "dry run deleted a file"
# location given with file:// finds the same files (file:/x and /x are one file)
real=$(q "CALL system.remove_orphan_files(table => 'db.t', location => 'file://$T/data')")
expect "$real" "$(printf '%s\n' "file://$T/data/00010-dead.parquet.tmp" "file://$T/data/part=x/00009-dead-writer.parquet")" \
  "orphans under the location"
expect "$(q "CALL system.remove_orphan_files('db.t')")" "$T/metadata/snap-dead.avro.tmp" "remaining orphan"
check_exact "after remove_orphan_files"
expect "$(q "CALL system.remove_orphan_files('db.t')")" "" "no orphans left"
expect "$(q "SELECT a FROM db.t FOR VERSION AS OF $s4 ORDER BY a" | tr '\n' ' ')" "1 2 3 4 " "retained snapshot after orphans"
rm "$T/data/00011-in-flight.parquet"; : >"$tmp/extra"

# ---- a reader of a retained snapshot, running while expiry and orphan
# cleanup delete files, never fails and always sees the same rows
floe -c "CREATE TABLE db.c (a int, p int) PARTITIONED BY (p)" >/dev/null
for i in 1 2 3 4 5 6; do floe -c "INSERT INTO db.c VALUES ($i, $((i % 2))), ($((i + 10)), 2)" >/dev/null; done
floe -c "DELETE FROM db.c WHERE p = 2 AND a < 13; INSERT INTO db.c VALUES (7, 1)" >/dev/null
c_keep=$(q "SELECT snapshot_id FROM db.c\$refs WHERE name = 'main'")
c_want=$(q "SELECT count(*), sum(a) FROM db.c FOR VERSION AS OF $c_keep")
: >"$tmp/reads"
( while [ ! -e "$tmp/stop" ]; do
    if out=$(q "SELECT count(*), sum(a) FROM db.c FOR VERSION AS OF $c_keep" 2>&1); then echo "$out" >>"$tmp/reads"
    else echo "ERROR: $out" >>"$tmp/reads"; fi
  done ) &
reader=$!
sleep 0.3
# first the inserts before the delete (the delete keeps the files it
# removed: a changelog of it reads them), then the delete too
c_res=$(q "CALL system.expire_snapshots(table => 'db.c', older_than => now(), retain_last => 2)")
T=$W/db/c check_exact "db.c after the first expiry under a reader"
c_res2=$(q "CALL system.expire_snapshots(table => 'db.c', older_than => now(), retain_last => 1)")
echo partial >"$W/db/c/data/00099-dead.parquet.tmp"; touch -d '4 days ago' "$W/db/c/data/00099-dead.parquet.tmp"
q "CALL system.remove_orphan_files(table => 'db.c')" >/dev/null
sleep 0.3
touch "$tmp/stop"; wait "$reader"; rm -f "$tmp/stop"
expect "$(echo "$c_res" | cut -d, -f1,5)" "0,6" "first expiry of db.c: no data file, 6 manifest lists"
expect "$(echo "$c_res2" | cut -d, -f1,5)" "2,1" "second expiry of db.c: the 2 files the delete removed, its list"
n_reads=$(wc -l <"$tmp/reads")
[ "$n_reads" -ge 2 ] || fail "the concurrent reader ran only $n_reads times"
bad=$(grep -v -x -F "$c_want" "$tmp/reads" | head -3 || true)
[ -z "$bad" ] || fail "a reader of retained snapshot $c_keep failed or saw other rows during expiry: $bad"
T=$W/db/c check_exact "db.c after expiry under a reader"

# ---- -f script
main=$(q "SELECT snapshot_id FROM db.t\$refs WHERE name = 'main'")
printf "CALL system.set_current_snapshot(\n  table => 'db.t',\n  snapshot_id => %s);\nSELECT count(*) FROM db.t;\n" "$s4" >"$tmp/p.sql"
expect "$(floe -f "$tmp/p.sql" | tr '\n' ' ')" "previous_snapshot_id,current_snapshot_id $main,$s4 count 4 " "-f script"

# ---- through the REST catalog
rest_server_start "$tmp/rwh"
rf() { timeout 120 "$FLOE_BIN" --catalog "rest:$rest_url" --format csv -c "$1" | tail -n +2; }
rf "CREATE SCHEMA r; CREATE TABLE r.t (a int); INSERT INTO r.t VALUES (1); INSERT INTO r.t VALUES (2)" >/dev/null
r1=$(rf "SELECT snapshot_id FROM r.t\$snapshots ORDER BY committed_at LIMIT 1")
r2=$(rf "SELECT snapshot_id FROM r.t\$snapshots ORDER BY committed_at LIMIT 1 OFFSET 1")
expect "$(rf "CALL system.rollback_to_snapshot(table => 'r.t', snapshot_id => $r1)")" "$r2,$r1" "REST rollback"
expect "$(rf "SELECT count(*) FROM r.t")" "1" "REST rows after rollback"
expect "$(rf "CALL system.expire_snapshots(table => 'r.t', older_than => now(), retain_last => 1)")" "1,0,0,1,1,0" "REST expire"
expect "$(rf "SELECT count(*) FROM r.t\$snapshots")" "1" "REST snapshots after expire"
rest_server_stop

# ---- under mpirun: the coordinator runs the procedures; a staged INSERT
# written by every rank is published
if command -v mpirun >/dev/null 2>&1; then
  # as mpi_lib.bash: Open MPI's by-design leaks suppressed (full stacks)
  export LSAN_OPTIONS="suppressions=$src/tests/lsan-mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
  mpi=(mpirun --oversubscribe -np 2 -x LSAN_OPTIONS -x ASAN_OPTIONS)
  [ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
  fm() { timeout 180 "${mpi[@]}" "$FLOE_BIN" --warehouse "$W" --format csv -c "$1" | tail -n +2; }
  fm "CREATE TABLE db.m (a int) WITH ('write.wap.enabled' = 'true'); INSERT INTO db.m VALUES (1)" >/dev/null
  m1=$(q "SELECT snapshot_id FROM db.m\$snapshots")
  expect "$(fm "SET spark.wap.id = 'mpi'; INSERT INTO db.m SELECT * FROM generate_series(1, 100); SELECT count(*) FROM db.m")" \
    "1" "mpirun: staged INSERT unseen"
  ms=$(q "SELECT snapshot_id FROM db.m\$snapshots WHERE parent_id = $m1")
  expect "$(fm "CALL system.publish_changes(table => 'db.m', wap_id => 'mpi')")" "$m1,$ms" "mpirun: publish_changes"
  expect "$(fm "CALL system.rollback_to_snapshot('db.m', $m1)")" "$ms,$m1" "mpirun: rollback"
  expect "$(q "SELECT count(*) FROM db.m")" "1" "rows after mpirun rollback"
elif [ "${CI:-}" = true ]; then
  fail "mpirun is not installed"
fi
echo "ok"

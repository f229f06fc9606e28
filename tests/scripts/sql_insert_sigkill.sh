#!/usr/bin/env bash
# A floe process killed with SIGKILL in the middle of a big INSERT leaves
# the table as it was: readable, the same snapshots, the same rows.  (The
# files the dead writers had started are orphans no metadata references;
# readers never see them.)  A later INSERT works normally.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sql_insert_sigkill.XXXXXX")
PID=
cleanup() {
    if [ -n "$PID" ]; then kill -9 "$PID" 2>/dev/null || true; fi
    rm -rf "$TMP"
}
trap cleanup EXIT
W=$TMP/warehouse
q() { "$FLOE_BIN" --warehouse "$W" --format csv -c "$1" | tail -n +2; }
"$FLOE_BIN" --warehouse "$W" -c "CREATE TABLE t (k bigint, g int, s string) PARTITIONED BY (bucket(8, k)) WITH ('write.target-file-size-bytes' = '1048576');
  INSERT INTO t SELECT k, CAST(k % 10 AS int), 'row ' || CAST(k AS text) FROM generate_series(1, 1000) g(k);"
before_snaps=$(q 'SELECT count(*) FROM "t$snapshots"')
before_rows=$(q 'SELECT count(*), sum(k) FROM t')
before_meta=$(ls "$W/default/t/metadata" | sort | tr '\n' ' ')

# A big INSERT: tens of millions of rows take far longer than the wait below.
"$FLOE_BIN" --warehouse "$W" -c "INSERT INTO t SELECT k, CAST(k % 10 AS int), 'row ' || CAST(k AS text) FROM generate_series(1, 200000000) g(k)" > "$TMP/out" 2>&1 &
PID=$!
# Wait until the writers have produced data files (or 20 s), then kill.
for _ in $(seq 1 200); do
    n=$(find "$W/default/t/data" -name '*.parquet' | wc -l)
    [ "$n" -gt 8 ] && break
    sleep 0.1
done
sleep 0.5
kill -0 "$PID" 2>/dev/null || { echo "FAIL: the INSERT finished before it could be killed"; cat "$TMP/out"; exit 1; }
kill -9 "$PID"
wait "$PID" 2>/dev/null || true
PID=
echo "killed after $(find "$W/default/t/data" -name '*.parquet' | wc -l) data files existed"

after_snaps=$(q 'SELECT count(*) FROM "t$snapshots"')
after_rows=$(q 'SELECT count(*), sum(k) FROM t')
after_meta=$(ls "$W/default/t/metadata" | sort | tr '\n' ' ')
[ "$after_snaps" = "$before_snaps" ] || { echo "FAIL: snapshots $before_snaps -> $after_snaps"; exit 1; }
[ "$after_rows" = "$before_rows" ] || { echo "FAIL: rows $before_rows -> $after_rows"; exit 1; }
# no new metadata, manifest or manifest list became part of the table
committed=$(q 'SELECT count(*) FROM "t$manifests"')
[ "$committed" = 1 ] || { echo "FAIL: $committed manifests after the kill (1 before)"; exit 1; }
[ "$after_meta" = "$before_meta" ] || { echo "FAIL: metadata files changed: $before_meta -> $after_meta"; exit 1; }
[ "$(q 'SELECT count(*) FROM t WHERE g = 3')" = 100 ] || { echo "FAIL: table not readable after the kill"; exit 1; }

# The table takes the next INSERT normally.
"$FLOE_BIN" --warehouse "$W" -c "INSERT INTO t VALUES (5000, 0, 'after')"
[ "$(q 'SELECT count(*) FROM "t$snapshots"')" = $((before_snaps + 1)) ] || { echo "FAIL: INSERT after the kill did not commit"; exit 1; }
[ "$(q 'SELECT count(*) FROM t')" = 1001 ] || { echo "FAIL: wrong row count after the next INSERT"; exit 1; }
echo "ok: SIGKILL mid-INSERT left $before_snaps snapshot(s) and $before_rows (rows,sum) unchanged"

#!/usr/bin/env bash
# bench/expire.sh — CALL system.expire_snapshots over a table of SNAPSHOTS
# snapshots: SNAPSHOTS single-row INSERTs (one commit each; Iceberg Java's
# default manifest merging keeps ~SNAPSHOTS/100 manifests), then every
# snapshot but the last expired (older_than => now(), retain_last => 1).
# Prints the CALL's wall time (median of RUNS), snapshots/s and files/s
# (manifest lists and manifests deleted over that time).
#
#   bench/expire.sh [BUILD_DIR] [RUNS] [SNAPSHOTS]
#
# Defaults: 3 runs, 1,000 snapshots.  The table is built once (about a
# minute: one process, SNAPSHOTS commits) and restored from a copy before each
# run (untimed), so every run expires the same SNAPSHOTS - 1 snapshots.  After
# each run the rows must be unchanged, one snapshot must be left and the
# files the CALL reports deleted must be gone from the table's folder: a
# wrong result stops the bench.  DuckDB has no snapshot expiry (nor does
# its Iceberg extension write), so there is no reference figure.
# Prints a markdown row:
#   | snapshots | distinct manifests before | files deleted | floe median s | snapshots/s | files/s |
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build/release}" && pwd)
RUNS=${2:-3}
SNAPS=${3:-1000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/expire_bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
if [ ! -x "$BUILD/floe" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$BUILD" -j2 --target floe > /dev/null
fi
floe() { "$BUILD/floe" --warehouse "$1" --format csv -c "$2"; }
q() { floe "$1" "$2" | tail -n +2; }
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# ---- the table: SNAPSHOTS commits from one script
{
    echo "CREATE SCHEMA db; CREATE TABLE db.t (id bigint, s varchar);"
    for i in $(seq 1 "$SNAPS"); do echo "INSERT INTO db.t VALUES ($i, 'row-$i');"; done
} > "$TMP/build.sql"
# (the metadata names absolute paths: runs restore the same folder)
W=$TMP/wh
"$BUILD/floe" --warehouse "$W" -f "$TMP/build.sql" > /dev/null
want=$(q "$W" "SELECT count(*), sum(id) FROM db.t")
[ "$(q "$W" 'SELECT count(*) FROM db."t$snapshots"')" = "$SNAPS" ] || { echo "bench: not $SNAPS snapshots" >&2; exit 1; }
manifests=$(q "$W" 'SELECT count(DISTINCT path) FROM db."t$all_manifests"')
cp -a "$W" "$TMP/pristine"

times=()
deleted=0
for _ in $(seq 1 "$RUNS"); do
    rm -rf "$W"
    cp -a "$TMP/pristine" "$W"
    before=$(find "$W" -type f | wc -l)
    t0=$(date +%s.%N)
    row=$(q "$W" "CALL system.expire_snapshots(table => 'db.t', older_than => now(), retain_last => 1)")
    t1=$(date +%s.%N)
    after=$(find "$W" -type f | wc -l)
    deleted=$(echo "$row" | awk -F, '{s = 0; for (i = 1; i <= NF; i++) s += $i; print s}')
    [ "$(echo "$row" | cut -d, -f5)" = $((SNAPS - 1)) ] || { echo "bench: expired [$row], want $((SNAPS - 1)) manifest lists" >&2; exit 1; }
    # (the commit itself adds one metadata file)
    [ $((before - after + 1)) = "$deleted" ] || { echo "bench: $((before - after + 1)) files went, the CALL says $deleted" >&2; exit 1; }
    [ "$(q "$W" 'SELECT count(*) FROM db."t$snapshots"')" = 1 ] || { echo "bench: not one snapshot left" >&2; exit 1; }
    [ "$(q "$W" "SELECT count(*), sum(id) FROM db.t")" = "$want" ] || { echo "bench: rows differ after expiry" >&2; exit 1; }
    times+=("$(echo "$t1 - $t0" | bc -l)")
done
fl=$(printf '%s\n' "${times[@]}" | median)
echo "| $SNAPS | $manifests | $deleted | $fl | $(echo "($SNAPS - 1) / $fl" | bc) | $(echo "$deleted / $fl" | bc) |"

#!/usr/bin/env bash
# demo_make_run.sh — `make run`'s main job (scripts/demo.sh) runs to the end
# and shows the right answers: the million-row sample, its aggregates, and
# the partitioned Iceberg table loaded with INSERT (row count, one file per
# partition value, time travel to the first load).  Needs nothing outside
# the repository.
set -euo pipefail
src=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bindir=${FLOE_BINARY_DIR:-$src/build/release}
FLOE_BIN=${FLOE_BIN:-$bindir/floe}
[ -x "$FLOE_BIN" ] || { echo "FAIL: $FLOE_BIN not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

FLOE_DEMO_OUT=$tmp/out bash "$src/scripts/demo.sh" "$FLOE_BIN" >"$tmp/demo.log" 2>&1 ||
  { tail -n 30 "$tmp/demo.log"; fail "scripts/demo.sh failed"; }
log=$tmp/demo.log
# Time travel: the table now, and as of the first INSERT.
grep -Eq '1100000[^0-9]+1000000' "$log" || fail "the time-travel line (1100000 now, 1000000 first) is missing"
wh=$tmp/out/warehouse
files=$("$FLOE_BIN" --warehouse "$wh" --format csv -c 'SELECT count(*) FROM "sales$files"' | tail -n 1)
parts=$("$FLOE_BIN" --warehouse "$wh" --format csv -c 'SELECT count(*) FROM "sales$partitions"' | tail -n 1)
snaps=$("$FLOE_BIN" --warehouse "$wh" --format csv -c 'SELECT count(*) FROM "sales$snapshots"' | tail -n 1)
total=$("$FLOE_BIN" --warehouse "$wh" --format csv -c 'SELECT count(*) FROM sales' | tail -n 1)
[ "$snaps" = 2 ] || fail "expected 2 snapshots (two INSERTs), got $snaps"
[ "$total" = 1100000 ] || fail "expected 1100000 rows after the two INSERTs, got $total"
[ "$files" = "$parts" ] || fail "$files files for $parts partition values: not one writer per value"
echo "ok: make run's demo: $total rows in $parts partitions, $files files, $snaps snapshots"

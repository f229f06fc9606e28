#!/usr/bin/env bash
# bench/orc_read.sh — time floe decoding the same rows from ORC and from
# Parquet, on one thread.
#
#   bench/orc_read.sh [BUILD_DIR] [RUNS] [ORC FILES...]
#
# No ORC writer can be installed here (no Debian package or npm module
# writes ORC), so the inputs are the largest of apache/orc's example files
# in the shared test data: demo-11-zlib.orc (1,920,800 rows, RLE v1),
# demo-12-zlib.orc (the same rows, RLE v2 and dictionaries),
# nulls-at-end-snappy.orc (70,000 rows, 7 types, nulls) and
# TestOrcFile.testSeek.orc (32,768 rows of nested structs, lists, maps).
# Each is copied to Parquet by floe itself (bench/orc_read_bench.c: ORC
# reader -> Parquet writer with the ORC file's codec family, zlib -> gzip),
# then both are decoded RUNS times after one warm-up.  Prints the raw JSON, then one markdown table row per file:
#   | file | rows | ORC bytes | floe ORC s | Parquet bytes | floe Parquet s | ORC/Parquet |
# then two rows timing row-group skipping (predicates vs none) on demo-12-zlib.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build/release}
RUNS=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
TESTDATA=${FLOE_TESTDATA:-$ROOT/../shared/testdata}
EX=$TESTDATA/apache__orc/examples
FILES=("$@")
[ ${#FILES[@]} -gt 0 ] || FILES=("$EX/demo-11-zlib.orc" "$EX/demo-12-zlib.orc" \
    "$EX/nulls-at-end-snappy.orc" "$EX/TestOrcFile.testSeek.orc")
DATA=$ROOT/bench/data
mkdir -p "$DATA"
[ -f "$BUILD/CMakeCache.txt" ] || cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$BUILD" -j2 --target orc_read_bench > /dev/null  # a bench target: not in "all"
for f in "${FILES[@]}"; do
    name=$(basename "$f" .orc)
    out=$("$BUILD/orc_read_bench" "$f" "$DATA/$name.parquet" "$RUNS")
    echo "$out"
    python3 - "$name" "$out" <<'PY'
import json, sys
name = sys.argv[1]
o, p = [json.loads(l) for l in sys.argv[2].splitlines()]
assert o["rows"] == p["rows"]
print(f"| {name} | {o['rows']:,} | {o['bytes']:,} | {o['median']:.4f} s "
      f"| {p['bytes']:,} | {p['median']:.4f} s | {o['median'] / p['median']:.2f} |")
PY
done
# Row-group skipping: demo-12-zlib's _col0 is the row number (1..1920800),
# 193 row groups of 10,000 rows; keep about 10%: from the middle (one seek)
# and from the start (none).
for range in "960001 1152001" "1 192001"; do
    set -- $range
    out=$("$BUILD/orc_read_bench" skip "$EX/demo-12-zlib.orc" _col0 "$1" "$2" "$RUNS")
    echo "$out"
    python3 - "$1" "$2" "$out" <<'PY'
import json, sys
lo, hi, j = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
print(f"| demo-12-zlib, _col0 in [{lo}, {hi}) | {j['rows_kept']:,} of {j['rows_total']:,} rows, "
      f"{j['row_groups_skipped']} of {j['row_groups']} groups skipped, {j['seeks']} seeks "
      f"| {j['median_skip']:.4f} s | {j['median_full']:.4f} s | {j['median_skip'] / j['median_full']:.2f} |")
PY
done

#!/usr/bin/env bash
# bench/manifest_decode.sh — time decoding a 100,000-entry Iceberg manifest
# (written by floe: v2, two partition fields, metrics maps, bounds, split
# offsets) with floe and with python3-avro.
#
#   bench/manifest_decode.sh [BUILD_DIR] [ENTRIES]
#
# BUILD_DIR (default build/release) must hold the ice_manifest_tool test
# program; build it with -DCMAKE_BUILD_TYPE=Release for meaningful numbers.
# Prints one line per decoder: "<decoder> entries N seconds S" (floe: best
# of 5 runs; python3-avro: one run).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build/release}
N=${2:-100000}
TOOL=$BUILD/ice_manifest_tool
[ -x "$TOOL" ] || { echo "no $TOOL: build the ice_manifest_tool target first" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$TOOL" write "$TMP" "$N" 2 > /dev/null
echo "manifest: $N entries, $(stat -c %s "$TMP/manifest.avro") bytes (deflate)"
printf 'floe          '
"$TOOL" decode "$TMP/manifest.avro" 5
printf 'python3-avro  '
/usr/bin/python3 -W ignore - "$TMP/manifest.avro" <<'PY'
import sys, time
import avro.datafile, avro.io
t0 = time.monotonic()
with open(sys.argv[1], "rb") as f:
    n = sum(1 for _ in avro.datafile.DataFileReader(f, avro.io.DatumReader()))
print(f"entries {n} seconds {time.monotonic() - t0:.4f}")
PY

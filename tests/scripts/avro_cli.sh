#!/usr/bin/env bash
# `floe avro schema|meta|cat|rewrite` on Apache Avro's weather files: the
# output people and scripts rely on, and clear failures on bad input.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
TESTDATA=${FLOE_TESTDATA:-${FLOE_TESTDATA_DEFAULT:-}}
D="$TESTDATA/apache__avro/share/test/data"
if [ ! -f "$D/weather.avro" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: test data missing under CI=true"; exit 1; fi
    echo "SKIP: shared test data not found"; exit 0
fi
TMP=$(mktemp -d "${FLOE_BINARY_DIR:-/tmp}/avro_cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# cat: every codec gives weather.json exactly; --limit stops early
for f in weather weather-deflate weather-snappy weather-zstd; do
    "$FLOE_BIN" avro cat "$D/$f.avro" --format jsonl | cmp -s - "$D/weather.json" || fail "cat $f.avro"
done
[ "$("$FLOE_BIN" avro cat "$D/weather.avro" --limit 2 | wc -l)" = 2 ] || fail "cat --limit"

# schema: pretty JSON of the embedded schema
"$FLOE_BIN" avro schema "$D/weather.avro" > "$TMP/schema.json"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["name"]=="Weather" and s["namespace"]=="test" and [f["name"] for f in s["fields"]]==["station","time","temp"]' "$TMP/schema.json" \
    || fail "schema"

# meta: codec, counts
"$FLOE_BIN" avro meta "$D/weather-zstd.avro" > "$TMP/meta.txt"
grep -qx 'codec: zstandard' "$TMP/meta.txt" || fail "meta codec"
grep -qx 'records: 5' "$TMP/meta.txt" || fail "meta records"
grep -qx 'blocks: 1' "$TMP/meta.txt" || fail "meta blocks"

# rewrite: snappy copy reads back the same
"$FLOE_BIN" avro rewrite "$D/weather.avro" "$TMP/w.avro" --codec snappy
"$FLOE_BIN" avro meta "$TMP/w.avro" | grep -qx 'codec: snappy' || fail "rewrite codec"
"$FLOE_BIN" avro cat "$TMP/w.avro" | cmp -s - "$D/weather.json" || fail "rewrite content"

# errors: non-zero exit and a message naming the file and problem
if "$FLOE_BIN" avro cat "$D/weather.json" 2> "$TMP/err"; then fail "non-Avro file accepted"; fi
grep -q "not an Avro container file" "$TMP/err" || fail "error message: $(cat "$TMP/err")"
head -c 200 "$D/weather-deflate.avro" > "$TMP/cut.avro"
if "$FLOE_BIN" avro cat "$TMP/cut.avro" > /dev/null 2> "$TMP/err"; then fail "truncated file accepted"; fi
grep -q "cut.avro" "$TMP/err" || fail "truncation message: $(cat "$TMP/err")"
if "$FLOE_BIN" avro frobnicate x 2> "$TMP/err"; then fail "bad subcommand accepted"; fi
grep -q "usage: floe avro" "$TMP/err" || fail "usage"
echo "ok"

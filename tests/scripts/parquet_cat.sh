#!/usr/bin/env bash
# `floe parquet cat` on apache/parquet-testing files: known rows in each
# output format, --columns / --limit, and clean failures (unknown column,
# corrupt page CRC) with a non-zero exit status and a message.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
TESTDATA=${FLOE_TESTDATA:-${FLOE_TESTDATA_DEFAULT:-}}
D="$TESTDATA/apache__parquet-testing/data"
if [ -z "$TESTDATA" ] || [ ! -d "$D" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: test data missing under CI=true"; exit 1; fi
    echo "SKIP: shared test data not found"; exit 0
fi
fail() { echo "FAIL: $*"; exit 1; }

got=$("$FLOE_BIN" parquet cat "$D/alltypes_plain.parquet" --columns id,bool_col --format csv)
want=$'id,bool_col\n4,true\n5,false\n6,true\n7,false\n2,true\n3,false\n0,true\n1,false'
[ "$got" = "$want" ] || fail "alltypes_plain csv: got [$got]"

got=$("$FLOE_BIN" parquet cat "$D/list_columns.parquet" --format jsonl --limit 2)
want=$'{"int64_list":[1,2,3],"utf8_list":["abc","efg","hij"]}\n{"int64_list":[null,1],"utf8_list":null}'
[ "$got" = "$want" ] || fail "list_columns jsonl: got [$got]"

got=$("$FLOE_BIN" parquet cat "$D/nested_maps.snappy.parquet" --columns b --limit 1)
echo "$got" | grep -q '(1 row)' || fail "table footer missing: [$got]"

if out=$("$FLOE_BIN" parquet cat "$D/alltypes_plain.parquet" --columns nope 2>&1); then
    fail "unknown column accepted"
fi
echo "$out" | grep -q "no column 'nope'" || fail "unknown column message: [$out]"

if out=$("$FLOE_BIN" parquet cat "$D/datapage_v1-corrupt-checksum.parquet" --format csv 2>&1 >/dev/null); then
    fail "corrupt CRC accepted"
fi
echo "$out" | grep -q "page CRC mismatch" || fail "CRC message: [$out]"
echo "OK"

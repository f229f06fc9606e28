#!/usr/bin/env bash
# `floe orc schema|meta|cat` on apache/orc's example files: the facts they
# print are the known ones (types and floe types, Iceberg ids and
# attributes, postscript, stripes, streams, encodings, statistics), rows in
# each output format with --columns / --limit, and a missing, corrupt,
# LZO, encrypted or future-version file gives a non-zero exit and a
# message naming the file and the feature.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
TESTDATA=${FLOE_TESTDATA:-${FLOE_TESTDATA_DEFAULT:-}}
EX="$TESTDATA/apache__orc/examples"
if [ -z "$TESTDATA" ] || [ ! -d "$EX" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: test data missing under CI=true"; exit 1; fi
    echo "SKIP: shared test data not found"; exit 0
fi

fail() { echo "FAIL: $*"; exit 1; }
expect() { grep -qF -- "$2" <<<"$1" || fail "missing '$2' in output:
$1"; }

# --- schema ---------------------------------------------------------------
out=$("$FLOE_BIN" orc schema "$EX/TestOrcFile.test1.orc")
expect "$out" "struct<boolean1:boolean,byte1:tinyint,short1:smallint,int1:int,long1:bigint"
expect "$out" "columns (24):"
expect "$out" "     2    byte1: tinyint -> int32"
expect "$out" "    12        element: struct"
expect "$out" "    20      key: string -> string"

out=$("$FLOE_BIN" orc schema "$EX/complextypes_iceberg.orc")
expect "$out" "     1    id: bigint -> int64  iceberg.id=1  iceberg.long-type=LONG  iceberg.required=false"
expect "$out" "     8      key: string -> string  iceberg.id=10  iceberg.required=true"
expect "$out" "    29              element: double -> float64  iceberg.id=29"

out=$("$FLOE_BIN" orc schema "$EX/decimal.orc")
expect "$out" "decimal(10,5) -> decimal(10, 5)"

out=$("$FLOE_BIN" orc schema "$EX/TestOrcFile.testUnionAndTimestamp.orc")
expect "$out" "timestamp -> timestamp_us"
expect "$out" "    union: uniontype"

# --- meta -----------------------------------------------------------------
out=$("$FLOE_BIN" orc meta "$EX/TestOrcFile.test1.orc")
expect "$out" "postscript: version=0.12 writer_version=1 compression=ZLIB block_size=10000"
expect "$out" "rows: 2"
expect "$out" "stripes: 1"
expect "$out" "column 4 int1: values=2 has_null=false min=65536 max=65536 sum=131072"
expect "$out" 'column 9 string1: values=2 has_null=false min="bye" max="hi" total_length=5'
expect "$out" "stripe 0: offset=3 index=570 data=243 footer=199 rows=2 first_row=0"
expect "$out" "writer_timezone: US/Pacific"
expect "$out" "column 0 ROW_INDEX offset=3 length=11"
expect "$out" "column 1 boolean1: DIRECT"

out=$("$FLOE_BIN" orc meta "$EX/TestOrcFile.testStripeLevelStats.orc")
expect "$out" "stripes: 3"
expect "$out" "stripe 2: offset=418 index=72 data=42 footer=65 rows=1000 first_row=10000"
expect "$out" "column 1 int1: values=5000 has_null=false min=2 max=2 sum=10000"

out=$("$FLOE_BIN" orc meta "$EX/demo-12-zlib.orc")
expect "$out" "dictionary_size="
expect "$out" "DIRECT_V2"

out=$("$FLOE_BIN" orc meta "$EX/TestVectorOrcFile.testZstd.0.12.orc")
expect "$out" "compression=ZSTD"

# --- cat ------------------------------------------------------------------
got=$("$FLOE_BIN" orc cat "$EX/TestOrcFile.test1.orc" --columns int1,string1 --format csv)
want=$'int1,string1\n65536,hi\n65536,bye'
[ "$got" = "$want" ] || fail "test1 csv: got [$got]"

got=$("$FLOE_BIN" orc cat "$EX/TestOrcFile.test1.orc" --columns list,map --format jsonl --limit 1)
want='{"list":[{"int1":3,"string1":"good"},{"int1":4,"string1":"bad"}],"map":{}}'
[ "$got" = "$want" ] || fail "test1 jsonl: got [$got]"

got=$("$FLOE_BIN" orc cat "$EX/TestOrcFile.testUnionAndTimestamp.orc" --format jsonl --limit 2)
want=$'{"time":"2000-03-12 15:00:00","union":{"tag":0,"0":42,"1":null},"decimal":12345678.654745600000000000}\n{"time":"2000-03-20 12:00:00.123456","union":{"tag":1,"0":null,"1":"hello"},"decimal":-5643.234000000000000000}'
[ "$got" = "$want" ] || fail "union jsonl: got [$got]"

got=$("$FLOE_BIN" orc cat "$EX/TestOrcFile.testStringAndBinaryStatistics.orc")
expect "$got" " \\x0001020304   | foo"
expect "$got" "(4 rows)"

got=$("$FLOE_BIN" orc cat "$EX/TestOrcFile.testDate2038.orc" --limit 1 --format csv)
expect "$got" "2038-05-05 12:34:56.1,2038-12-25"

got=$("$FLOE_BIN" orc cat "$EX/demo-11-zlib.orc" --format csv | wc -l)
[ "$got" = 1920801 ] || fail "demo-11-zlib rows: $got"

# --- failures -------------------------------------------------------------
run_fails() {
    local needle=$1; shift
    local err
    if err=$("$@" 2>&1); then fail "'$*' succeeded"; fi
    grep -qF -- "$needle" <<<"$err" || fail "'$*' said '$err', expected '$needle'"
}
run_fails "no-such-file.orc" "$FLOE_BIN" orc meta "$EX/no-such-file.orc"
run_fails "LZO compression is not supported" "$FLOE_BIN" orc cat "$EX/TestVectorOrcFile.testLzo.orc"
run_fails "ORC column encryption is not supported" "$FLOE_BIN" orc schema "$EX/encrypted/sample1.orc"
run_fails "future ORC version 19.99" "$FLOE_BIN" orc meta "$EX/version1999.orc"
run_fails "zero.orc': empty file" "$FLOE_BIN" orc schema "$EX/zero.orc"
run_fails "not an ORC file" "$FLOE_BIN" orc schema "$EX/TestCSVFileImport.test10rows.csv"
run_fails "column 9 'date_string_col' (string, DICTIONARY_V2): DICTIONARY_DATA stream" \
    "$FLOE_BIN" orc cat "$EX/corrupt/negative_dict_entry_lengths.orc"
run_fails "LENGTH stream is missing" "$FLOE_BIN" orc cat "$EX/corrupt/missing_length_stream_in_string_dict.orc"
run_fails "stripe 0: stripe footer at offset 336" "$FLOE_BIN" orc cat "$EX/corrupt/stripe_footer_bad_column_encodings.orc"
out=$("$FLOE_BIN" orc meta "$EX/corrupt/stripe_footer_bad_column_encodings.orc")
expect "$out" "(stripe footer unreadable: "
run_fails "no column 'nope'" "$FLOE_BIN" orc cat "$EX/TestOrcFile.test1.orc" --columns nope
run_fails "unknown command 'frobnicate'" "$FLOE_BIN" orc frobnicate
run_fails "usage: floe orc schema FILE" "$FLOE_BIN" orc schema

echo "OK: floe orc schema/meta/cat"

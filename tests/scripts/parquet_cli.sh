#!/usr/bin/env bash
# `floe parquet schema` and `floe parquet meta` on files of
# apache/parquet-testing: the facts they print are the known ones (types,
# annotations, levels, row counts, statistics rendered by type), and a
# missing, encrypted or corrupt file gives a non-zero exit and a message
# naming the file.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
TESTDATA=${FLOE_TESTDATA:-${FLOE_TESTDATA_DEFAULT:-}}
PQT="$TESTDATA/apache__parquet-testing"
if [ -z "$TESTDATA" ] || [ ! -d "$PQT/data" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: test data missing under CI=true"; exit 1; fi
    echo "SKIP: shared test data not found"; exit 0
fi

fail() { echo "FAIL: $*"; exit 1; }
# expect OUTPUT LITERAL: the literal text must appear in the output.
expect() { grep -qF -- "$2" <<<"$1" || fail "missing '$2' in output:
$1"; }

# --- schema ---------------------------------------------------------------
out=$("$FLOE_BIN" parquet schema "$PQT/data/alltypes_plain.parquet")
expect "$out" "message schema {"
expect "$out" "  optional int32 id;"
expect "$out" "  optional int96 timestamp_col;"
expect "$out" "columns (11):"
expect "$out" "timestamp_ns utc"
expect "$out" "  id: int32 nullable def=1 rep=0"

out=$("$FLOE_BIN" parquet schema "$PQT/data/nested_maps.snappy.parquet")
expect "$out" "optional group a (MAP) {"
expect "$out" "a: map nullable def=1 rep=0 elem_def=2 elem_rep=1"
expect "$out" "value: map nullable def=3 rep=1 elem_def=4 elem_rep=2"

out=$("$FLOE_BIN" parquet schema "$PQT/data/old_list_structure.parquet")
expect "$out" "repeated group array (LIST) {"
expect "$out" "array: int32 not null def=2 rep=2"

out=$("$FLOE_BIN" parquet schema "$PQT/data/byte_array_decimal.parquet")
expect "$out" "(DECIMAL(4,2))"
expect "$out" "decimal(4,2)"

# --- meta -----------------------------------------------------------------
out=$("$FLOE_BIN" parquet meta "$PQT/data/alltypes_plain.parquet")
expect "$out" "created_by: impala version 1.3.0-INTERNAL"
expect "$out" "rows: 8"
expect "$out" "row groups: 1"
expect "$out" "row group 0: rows=8 total_byte_size=671"
expect "$out" "column 0 id: INT32 (int32) codec=UNCOMPRESSED values=8"
expect "$out" "encodings: RLE PLAIN_DICTIONARY PLAIN"
expect "$out" "compressed=73 uncompressed=73 data_page_offset=49 dictionary_page_offset=4"

out=$("$FLOE_BIN" parquet meta "$PQT/data/int32_decimal.parquet")
expect "$out" "stats: min=1.00 max=24.00 (legacy) nulls=0"

out=$("$FLOE_BIN" parquet meta "$PQT/data/sort_columns.parquet")
expect "$out" "sorted by a desc nulls first"
expect "$out" 'stats: min="a" max="c" nulls=0'

out=$("$FLOE_BIN" parquet meta "$PQT/data/alltypes_tiny_pages.parquet")
expect "$out" "page index: column_index=yes offset_index=yes pages=325"

out=$("$FLOE_BIN" parquet meta "$PQT/data/data_index_bloom_encoding_stats.parquet")
expect "$out" "bloom_filter_offset="
expect "$out" "page encodings: DATA_PAGE/PLAIN x1"

# --- failures -------------------------------------------------------------
# run_fails NEEDLE CMD...: the command must exit non-zero and say NEEDLE.
run_fails() {
    local needle=$1; shift
    local err
    if err=$("$@" 2>&1); then fail "'$*' succeeded"; fi
    grep -qF -- "$needle" <<<"$err" || fail "'$*' said '$err', expected '$needle'"
}
run_fails "no-such-file.parquet" "$FLOE_BIN" parquet meta "$PQT/data/no-such-file.parquet"
run_fails "PARQUET-1481.parquet" "$FLOE_BIN" parquet schema "$PQT/bad_data/PARQUET-1481.parquet"
run_fails "invalid type -7 at offset" "$FLOE_BIN" parquet meta "$PQT/bad_data/PARQUET-1481.parquet"
run_fails "encrypted Parquet is not supported" \
    "$FLOE_BIN" parquet meta "$PQT/data/uniform_encryption.parquet.encrypted"
# Not a Parquet file at all.
run_fails "no PAR1 magic" "$FLOE_BIN" parquet schema "$PQT/data/README.md"
run_fails "unknown command 'frobnicate'" "$FLOE_BIN" parquet frobnicate
run_fails "usage: floe parquet schema FILE" "$FLOE_BIN" parquet schema

echo "OK: floe parquet schema/meta"

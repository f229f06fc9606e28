#!/usr/bin/env bash
# floe reads what DuckDB reads: every non-encrypted Parquet file of
# apache/parquet-testing (data/ and data/geospatial/) and Iceberg's encoding
# fixtures is dumped in full by `floe parquet cat --format jsonl` and by
# DuckDB's read_parquet (tests/peers/parquet_canon.mjs), both brought to one
# canonical typed form and compared exactly, row by row in file order
# (tests/scripts/parquet_canon.py says what the canonical form is per type).
#
# Files DuckDB cannot read or reads differently on purpose are in SKIP with
# the reason; floe bugs not fixed yet are in KNOWN with the reason (a KNOWN
# file that starts matching is reported, not failed).  The *_expect.csv files
# and the Iceberg ENC/ vs PLAIN/ twins are also checked by the unit test
# formats.parquet_reader; here they are checked against DuckDB as well.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TESTDATA=${FLOE_TESTDATA:-${FLOE_TESTDATA_DEFAULT:-}}
PQT="$TESTDATA/apache__parquet-testing/data"
ICE="$TESTDATA/apache__iceberg/parquet/src/testFixtures/resources/encodings"
skip_test() {
    if [ "${CI:-}" = true ]; then echo "FAIL: $1 under CI=true"; exit 1; fi
    echo "SKIP: $1"; exit 0
}
[ -n "$TESTDATA" ] && [ -d "$PQT" ] || skip_test "shared test data not found"
command -v node >/dev/null && [ -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ] ||
    skip_test "node or @duckdb/node-api not installed"
command -v python3 >/dev/null || skip_test "python3 not installed"

# Files not compared, with the reason (path relative to $PQT or "ice:<ENC>/<f>").
BSS_INT="DuckDB reads BYTE_STREAM_SPLIT only for FLOAT/DOUBLE (floe's reading is checked against the PLAIN twin in formats.parquet_reader)"
HADOOP_LZ4="DuckDB does not support the deprecated LZ4 (Hadoop framing) codec"
CRC="page CRC deliberately wrong: floe verifies CRCs and refuses the file, DuckDB does not check (formats.parquet_reader covers both)"
declare -A SKIP=(
    [byte_stream_split_extended.gzip.parquet]=$BSS_INT
    [ice:BYTE_STREAM_SPLIT/int32.parquet]=$BSS_INT
    [ice:BYTE_STREAM_SPLIT/int32_with_nulls.parquet]=$BSS_INT
    [ice:BYTE_STREAM_SPLIT/int64.parquet]=$BSS_INT
    [ice:BYTE_STREAM_SPLIT/int64_with_nulls.parquet]=$BSS_INT
    [ice:BYTE_STREAM_SPLIT/uuid.parquet]=$BSS_INT
    [ice:BYTE_STREAM_SPLIT/uuid_with_nulls.parquet]=$BSS_INT
    [hadoop_lz4_compressed.parquet]=$HADOOP_LZ4
    [hadoop_lz4_compressed_larger.parquet]=$HADOOP_LZ4
    [non_hadoop_lz4_compressed.parquet]=$HADOOP_LZ4
    [datapage_v1-corrupt-checksum.parquet]=$CRC
    [rle-dict-uncompressed-corrupt-checksum.parquet]=$CRC
    [large_string_map.brotli.parquet]="DuckDB fails: 'Cannot create a string longer than 0x1fffffe8 characters'"
    [map_no_value.parquet]="DuckDB fails: 'MAP_KEY_VALUE requires two children' (a map without values)"
    [int96_from_spark.parquet]="Spark wrapped year 290000 into INT96's 64-bit nanoseconds: floe undoes the wrap as Spark reads it back (formats.parquet_reader checks the values), DuckDB reads 226414 BC"
)
# floe bugs still open: compared, a difference is expected.
declare -A KNOWN=(
)
# Timestamps whose time-zone flag floe and DuckDB set differently on purpose;
# the instants must match, the flag is not compared for these files:
#  - INT96: floe reads it as a UTC instant (timestamptz, as Iceberg and Spark
#    mean it), DuckDB as a naive timestamp;
#  - legacy TIMESTAMP_MICROS/MILLIS converted types without a logical type:
#    the Parquet spec says isAdjustedToUTC=true, floe follows it, DuckDB
#    reads them as naive timestamps (nested_structs.rust.parquet).
declare -A TZ_LENIENT=(
    [alltypes_plain.parquet]=1 [alltypes_plain.snappy.parquet]=1
    [alltypes_dictionary.parquet]=1 [alltypes_tiny_pages.parquet]=1
    [alltypes_tiny_pages_plain.parquet]=1 [nested_structs.rust.parquet]=1
)

TMP=$(mktemp -d "${TMPDIR:-/tmp}/pq_vs_duckdb.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

files=()
names=()
for f in "$PQT"/*.parquet "$PQT"/*/*.parquet; do
    [ -e "$f" ] || continue
    files+=("$f"); names+=("${f#"$PQT"/}")
done
for f in "$ICE"/*/*.parquet; do
    [ -e "$f" ] || continue
    files+=("$f"); names+=("ice:${f#"$ICE"/}")
done
[ "${#files[@]}" -gt 50 ] || { echo "FAIL: only ${#files[@]} Parquet files found under $PQT"; exit 1; }

: > "$TMP/list"
for i in "${!files[@]}"; do
    n=${names[$i]}
    if [ -n "${SKIP[$n]:-}" ]; then expect="skip:${SKIP[$n]}"
    elif [ -n "${KNOWN[$n]:-}" ]; then expect="known:${KNOWN[$n]}"
    else expect=ok; fi
    opts=""
    [ -n "${TZ_LENIENT[$n]:-}" ] && opts=tz-lenient
    printf '%s\t%s\t%s\t%s\t%s\n' "$i" "${files[$i]}" "$expect" "$opts" "$n" >> "$TMP/list"
    [[ $expect == skip:* ]] && continue
    rc=0
    "$FLOE_BIN" parquet cat "${files[$i]}" --format jsonl > "$TMP/$i.floe.jsonl" 2> "$TMP/$i.err" || rc=$?
    [ "$rc" = 0 ] || { echo "exit $rc"; cat "$TMP/$i.err"; } > "$TMP/$i.floe.err"
done
node "$SRC/tests/peers/parquet_canon.mjs" "$TMP" "$TMP/list"
python3 "$SRC/tests/scripts/parquet_canon.py" "$TMP" "$TMP/list"
echo "PASS: floe and DuckDB read the same values from ${#files[@]} Parquet files"

#!/usr/bin/env bash
# floe reads DuckDB's Parquet files: DuckDB writes one table holding every
# type it can write (integers of all widths signed and unsigned, floats with
# NaN/inf/-0, decimals of four precisions, strings, blobs, uuid, dates,
# times, timestamps in every unit with and without time zone, intervals,
# enums, json, lists, fixed arrays, structs, maps, lists of structs, maps of
# lists — nulls at every level, empty lists and maps) with field ids, under
# several codecs, Parquet format versions and row-group sizes.  floe must
# read the same values as DuckDB (the canonical comparison of
# tests/scripts/parquet_canon.py), and `floe parquet schema` must show the
# field id of every schema element DuckDB wrote one for.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
skip_test() {
    if [ "${CI:-}" = true ]; then echo "FAIL: $1 under CI=true"; exit 1; fi
    echo "SKIP: $1"; exit 0
}
command -v node >/dev/null && [ -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ] ||
    skip_test "node or @duckdb/node-api not installed"
command -v python3 >/dev/null || skip_test "python3 not installed"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pq_floe_reads_duckdb.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# name|COPY options
CONFIGS=(
  "zstd|COMPRESSION zstd, FIELD_IDS 'auto'"
  "snappy|COMPRESSION snappy, FIELD_IDS 'auto', ROW_GROUP_SIZE 700"
  "gzip|COMPRESSION gzip, FIELD_IDS 'auto'"
  "uncompressed|COMPRESSION uncompressed, FIELD_IDS 'auto', ROW_GROUP_SIZE 1000"
  "lz4|COMPRESSION lz4, FIELD_IDS 'auto'"
  "brotli|COMPRESSION brotli, FIELD_IDS 'auto'"
  "v2_zstd|COMPRESSION zstd, FIELD_IDS 'auto', PARQUET_VERSION v2"
  "v2_snappy_small|COMPRESSION snappy, FIELD_IDS 'auto', PARQUET_VERSION v2, ROW_GROUP_SIZE 500"
  "explicit_ids|COMPRESSION zstd, FIELD_IDS {id: 100, i64: 101, l: {__duckdb_field_id: 102, element: 103}, st: {__duckdb_field_id: 104, a: 105, c: {__duckdb_field_id: 106, d: 107}}, m: {__duckdb_field_id: 108, key: 109, value: 110}}"
)

cat > "$TMP/gen.mjs" <<EOF
import { DuckDBInstance } from '$SRC/tests/peers/duckdb.mjs';
const [dir, ...configs] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await inst.connect();
await con.run(\`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')\`);
// Columns the explicit_ids configuration names come first; the others are
// the same formulas with nulls sprinkled at different periods.
await con.run(\`CREATE TABLE t AS SELECT
  i::INTEGER AS id,
  CASE WHEN i%11=0 THEN NULL WHEN i%11=1 THEN 9223372036854775807 WHEN i%11=2 THEN -9223372036854775808
       ELSE (i-1500)*6148914691236517 END::BIGINT AS i64,
  CASE WHEN i%7=3 THEN NULL WHEN i%7=4 THEN [] ELSE list_transform(range(i%5), j -> CASE WHEN j=2 THEN NULL ELSE i*j END) END::INTEGER[] AS l,
  CASE WHEN i%9=0 THEN NULL ELSE {'a': CASE WHEN i%2=0 THEN NULL ELSE i END,
       'c': CASE WHEN i%3=0 THEN NULL ELSE {'d': DATE '2000-01-01' + i::INTEGER} END} END AS st,
  CASE WHEN i%6=5 THEN NULL WHEN i%6=4 THEN MAP {} ELSE
       map_from_entries(list_transform(range(i%3+1), j -> {'key': 'k' || j, 'value': CASE WHEN j=1 THEN NULL ELSE i+j END})) END
       ::MAP(VARCHAR, INTEGER) AS m,
  CASE WHEN i%7=0 THEN NULL ELSE i%3=0 END AS b,
  CASE WHEN i%5=1 THEN NULL ELSE (i%256-128) END::TINYINT AS i8,
  CASE WHEN i%5=2 THEN NULL ELSE (i*37%65536-32768) END::SMALLINT AS i16,
  CASE WHEN i%5=3 THEN NULL WHEN i%17=0 THEN -2147483648 ELSE (i*1000003%2147483647-1000000000) END::INTEGER AS i32,
  CASE WHEN i%5=4 THEN NULL ELSE i%256 END::UTINYINT AS u8,
  (i*7%65536)::USMALLINT AS u16,
  CASE WHEN i%4=0 THEN 4294967295 ELSE i*2654435761%4294967296 END::UINTEGER AS u32,
  CASE WHEN i%3=0 THEN 9223372036854775807 ELSE i*1000000007 END::UBIGINT AS u64,
  CASE WHEN i%13=0 THEN NULL WHEN i%13=1 THEN 'NaN' WHEN i%13=2 THEN 'inf' WHEN i%13=3 THEN '-inf'
       WHEN i%13=4 THEN '-0.0' WHEN i%13=5 THEN '1.17549435e-38' ELSE (i/7.0)::VARCHAR END::FLOAT AS f32,
  CASE WHEN i%13=6 THEN NULL WHEN i%13=7 THEN 'NaN' WHEN i%13=8 THEN '-inf' WHEN i%13=9 THEN '-0.0'
       WHEN i%13=10 THEN '4.9e-324' WHEN i%13=11 THEN '1.7976931348623157e308' ELSE (i/3.0)::VARCHAR END::DOUBLE AS f64,
  CASE WHEN i%8=0 THEN NULL ELSE ((i%19999)-9999)/10 END::DECIMAL(4,1) AS d4,
  CASE WHEN i%8=1 THEN NULL ELSE (i*12345-6000000)/100 END::DECIMAL(9,2) AS d9,
  CASE WHEN i%8=2 THEN NULL WHEN i%8=3 THEN '-999999999999.999999'::DECIMAL(18,6)
       ELSE (((i-1500)*1234567891)::DECIMAL(18,0) / 1000000)::DECIMAL(18,6) END AS d18,
  CASE WHEN i%8=4 THEN NULL WHEN i%8=5 THEN '9999999999999999999999999999.9999999999'::DECIMAL(38,10)
       ELSE (((i-1500)::HUGEINT * 1000000000000000000::HUGEINT * 100000::HUGEINT + i)::VARCHAR || '.' || lpad((i*7)::VARCHAR, 10, '0'))::DECIMAL(38,10) END AS d38,
  CASE WHEN i%10=0 THEN NULL WHEN i%10=1 THEN '' WHEN i%10=2 THEN 'ünïcødé ' || i || ' 🦆'
       WHEN i%10=3 THEN 'quote" back\\\\ tab	nl
' ELSE 'str-' || i END AS s,
  CASE WHEN i%9=1 THEN NULL WHEN i%9=2 THEN ''::BLOB ELSE ('\\\\x00\\\\xFF' || i || '\\\\x80')::BLOB END AS bin,
  CASE WHEN i%6=0 THEN NULL ELSE md5(i::VARCHAR)::UUID END AS u,
  CASE WHEN i%10=5 THEN NULL WHEN i%10=6 THEN DATE '0001-01-01' WHEN i%10=7 THEN DATE '9999-12-31'
       WHEN i%10=8 THEN DATE '1969-12-31' ELSE DATE '1970-01-01' + (i*37-20000)::INTEGER END AS dt,
  CASE WHEN i%10=9 THEN NULL ELSE TIME '00:00:00' + to_microseconds((i*7919*1000003) % 86400000000) END AS tm,
  CASE WHEN i%12=0 THEN NULL WHEN i%12=1 THEN TIMESTAMP '1900-01-01 00:00:00.000001'
       ELSE make_timestamp(1600000000000000 + i*3600000123) END AS ts,
  CASE WHEN i%12=2 THEN NULL ELSE make_timestamp(1000000000000000 - i*86400000007)::TIMESTAMPTZ END AS tstz,
  CASE WHEN i%12=3 THEN NULL ELSE make_timestamp_ns(1700000000000000000 + i*123456789) END AS tsns,
  CASE WHEN i%12=4 THEN NULL ELSE make_timestamp(1600000000000000 + i*1000)::TIMESTAMP_MS END AS tsms,
  CASE WHEN i%12=5 THEN NULL ELSE make_timestamp(1600000000000000 + i*1000000)::TIMESTAMP_S END AS tss,
  CASE WHEN i%12=6 THEN NULL ELSE (TIME '01:02:03' + to_microseconds(i * 1000))::TIMETZ END AS ttz,
  CASE WHEN i%14=0 THEN NULL ELSE to_months(i%13) + to_days(i%40) + to_milliseconds(i*1001) END AS iv,
  CASE WHEN i%5=0 THEN NULL ELSE (['sad', 'ok', 'happy'])[i%3+1] END::mood AS e,
  CASE WHEN i%5=1 THEN NULL ELSE json_object('k', i, 'v', [i, NULL]) END AS js,
  CASE WHEN i%8=6 THEN NULL ELSE ['a' || i, NULL, ''] END AS ls,
  CASE WHEN i%9=4 THEN NULL ELSE [[i, NULL], NULL, [], [i+1]] END::BIGINT[][] AS ll,
  CASE WHEN i%10=4 THEN NULL ELSE [i, i+1, NULL] END::INTEGER[3] AS arr,
  CASE WHEN i%11=5 THEN NULL ELSE [{'x': i, 'y': NULL}, NULL, {'x': NULL, 'y': 'y' || i}] END
       ::STRUCT(x INTEGER, y VARCHAR)[] AS lst,
  CASE WHEN i%4=2 THEN NULL ELSE map_from_entries([{'key': i, 'value': ['v' || i, NULL]}, {'key': -i-1, 'value': NULL}]) END
       ::MAP(INTEGER, VARCHAR[]) AS mil,
  CASE WHEN i%15=0 THEN NULL ELSE {'deep': {'deeper': CASE WHEN i%2=0 THEN NULL ELSE [{'z': i::DECIMAL(9,2) / 4}] END}} END AS nest,
  NULL::INTEGER AS all_null
  FROM range(3000) t(i)\`);
// UINT_64 values of 2^63 and above, in a file of their own.
await con.run(\`COPY (SELECT i::INTEGER AS id, CASE WHEN i%2=0 THEN 18446744073709551615 ELSE 9223372036854775808 + i END::UBIGINT AS u64
  FROM range(10) t(i)) TO '\${dir}/uint64_high.parquet' (FORMAT parquet)\`);
for (const c of configs) {
  const [name, opts] = c.split('|');
  await con.run(\`COPY t TO '\${dir}/\${name}.parquet' (FORMAT parquet, \${opts})\`);
  const ids = (await con.runAndReadAll(\`SELECT name, field_id FROM parquet_schema('\${dir}/\${name}.parquet')\`))
    .getRowObjectsJson().slice(1).map((r) => [r.name, r.field_id === null ? null : Number(r.field_id)]);
  const { writeFileSync } = await import('node:fs');
  writeFileSync(\`\${dir}/\${name}.ids.json\`, JSON.stringify(ids));
}
EOF
node "$TMP/gen.mjs" "$TMP" "${CONFIGS[@]}"

# floe parquet schema: (name, field id) of every element, in schema order,
# equal to what DuckDB's parquet_schema() says it wrote.
cat > "$TMP/ids.py" <<'EOF'
import json, re, sys
schema_text, want_file = sys.argv[1], sys.argv[2]
got, inside = [], False
for line in open(schema_text):
    if line.startswith("message "):
        inside = True
        continue
    if inside and line.startswith("}"):
        break
    m = re.match(r"\s*(?:required|optional|repeated)\s+(.*?)(?:\s*=\s*(-?\d+))?\s*[{;]\s*$", line)
    if inside and m:
        body = re.sub(r"\s+\(.*\)$", "", m.group(1))
        got.append([body.split()[-1], int(m.group(2)) if m.group(2) else None])
want = json.load(open(want_file))
if got != want:
    print(f"field ids differ:\n  floe   {got}\n  DuckDB {want}")
    sys.exit(1)
n = sum(1 for _, i in want if i is not None)
if n == 0:
    print("no field ids written")
    sys.exit(1)
EOF

fails=0
: > "$TMP/list"
for i in "${!CONFIGS[@]}"; do
    name=${CONFIGS[$i]%%|*}
    f="$TMP/$name.parquet"
    "$FLOE_BIN" parquet schema "$f" > "$TMP/$name.schema"
    python3 "$TMP/ids.py" "$TMP/$name.schema" "$TMP/$name.ids.json" || { echo "FAIL: $name: field ids"; fails=$((fails+1)); }
    printf '%s\t%s\tok\t\t%s\n' "$i" "$f" "$name" >> "$TMP/list"
    rc=0
    "$FLOE_BIN" parquet cat "$f" --format jsonl > "$TMP/$i.floe.jsonl" 2> "$TMP/$i.err" || rc=$?
    [ "$rc" = 0 ] || { echo "exit $rc"; cat "$TMP/$i.err"; } > "$TMP/$i.floe.err"
done
# UINT_64 values of 2^63 and above (floe reads UINT_64 as decimal(20, 0)).
n=${#CONFIGS[@]}
printf '%s\t%s\tok\t\t%s\n' "$n" "$TMP/uint64_high.parquet" uint64_high >> "$TMP/list"
rc=0
"$FLOE_BIN" parquet cat "$TMP/uint64_high.parquet" --format jsonl > "$TMP/$n.floe.jsonl" 2> "$TMP/$n.err" || rc=$?
[ "$rc" = 0 ] || { echo "exit $rc"; cat "$TMP/$n.err"; } > "$TMP/$n.floe.err"
node "$SRC/tests/peers/parquet_canon.mjs" "$TMP" "$TMP/list"
python3 "$SRC/tests/scripts/parquet_canon.py" "$TMP" "$TMP/list" || fails=$((fails+1))
[ "$fails" = 0 ] || { echo "FAIL: floe does not read DuckDB's files as DuckDB does"; exit 1; }
echo "PASS: floe reads DuckDB's Parquet files (${#CONFIGS[@]} configurations) with their field ids"

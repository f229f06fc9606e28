#!/usr/bin/env bash
# Parquet files as other tools write them (tests/tools/pq_fixture.h), read
# by floe (`floe -c`, read_parquet) and by DuckDB, cell by cell:
#   - decimals: INT32, INT64, FIXED_LEN_BYTE_ARRAY of every width 1..16 and
#     20 (sign fill), BYTE_ARRAY in the fewest bytes, negative values, nulls,
#     converted type only: equal as text;
#   - big_decimals: precision above 38 reads as a double in both (DuckDB's
#     rule); DuckDB 1.5 misreads widths that are not a multiple of 8 bytes,
#     so only the FIXED[32] column is compared (the unit test
#     formats.parquet_decimals checks every column against the exact value);
#   - int96_range / int96_in_range: INT96 timestamps before 1677 and after
#     2262 (old Hive / Impala files) and inside that range read at
#     microseconds in both (floe: timestamptz, DuckDB: a naive timestamp;
#     the '+00' is not compared);
#   - unusual: valid but unusual annotations (converted types alone, INT_8,
#     UINT_8, UINT_32, TIME_MILLIS, DATE, TIMESTAMP_MILLIS, UTF8, UUID,
#     FLOAT16) read as meant;
#   - bad_*: an annotation that does not fit its physical type (TIMESTAMP on
#     INT32, UINT_64 on INT32, DATE on BYTE_ARRAY, DECIMAL(4,6), STRING on
#     INT64) makes floe's read fail naming the file, the column and the
#     annotation (DuckDB errors on some, reads others as the physical type;
#     printed, not compared).  read_parquet needs every column's type, so
#     the whole scan fails; the Parquet reader still reads the file's other
#     columns (formats.parquet_annotations).
# Numbers compare to 15 significant digits, text exactly.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:?FLOE_SOURCE_DIR not set}
BIN=${FLOE_BINARY_DIR:?FLOE_BINARY_DIR not set}
TOOL="$BIN/pq_fixture"
[ -x "$TOOL" ] || { echo "FAIL: $TOOL not built (cmake --build ... --target pq_fixture)"; exit 1; }
if ! command -v node >/dev/null || [ ! -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: DuckDB peer missing under CI=true"; exit 1; fi
    echo "SKIP: node or @duckdb/node-api not installed"; exit 0
fi
TMP=$(mktemp -d "${BIN}/pq_fixtures.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"   # floe's default warehouse (./warehouse) lands here

# fixture|columns compared ('*' = all)
CHECKS=(
    "decimals|*"
    "big_decimals|fx32_76_0"
    "int96_range|*"
    "int96_in_range|*"
    "unusual|*"
)
# fixture|column|annotation named in floe's error
BAD=(
    "bad_timestamp_int32|ts|TIMESTAMP(MILLIS,utc) is not valid on INT32"
    "bad_uint64_int32|u|UINT_64 is not valid on INT32"
    "bad_date_binary|d|DATE is not valid on BYTE_ARRAY"
    "bad_decimal_scale|dec|DECIMAL(4,6): scale 6 exceeds precision 4"
    "bad_string_int64|s|STRING is not valid on INT64"
)
fail=0
for b in "${BAD[@]}"; do
    IFS='|' read -r name col ann <<< "$b"
    f="$TMP/$name.parquet"
    "$TOOL" "$name" "$f"
    if out=$("$FLOE_BIN" -c "SELECT * FROM read_parquet('$f')" 2>&1); then
        echo "FAIL $name: floe read it: $out"; fail=1; continue
    fi
    for want in "$f" "column '$col'" "$ann"; do
        [[ $out == *"$want"* ]] || { echo "FAIL $name: error lacks '$want': $out"; fail=1; }
    done
    echo "ok   $name: $out"
done
[ "$fail" = 0 ] || exit 1
for c in "${CHECKS[@]}"; do "$TOOL" "${c%%|*}" "$TMP/${c%%|*}.parquet"; done

cat > "$TMP/cmp.mjs" <<JS
import { execFileSync } from 'node:child_process';
import { DuckDBInstance } from '$SRC/tests/peers/duckdb.mjs';
const [floe, dir, ...checks] = process.argv.slice(2);
const con = await (await DuckDBInstance.create(':memory:')).connect();
function parseCsv(text) {
  const rows = []; let row = [], f = '', q = false, was = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (q) { if (c === '"' && text[i + 1] === '"') { f += '"'; i++; } else if (c === '"') q = false; else f += c; }
    else if (c === '"') { q = true; was = true; }
    else if (c === ',' || c === '\n') { row.push(f === '' && !was ? null : f); f = ''; was = false;
      if (c === '\n') { rows.push(row); row = []; } }
    else f += c;
  }
  return rows;
}
const norm = (v) => v === null ? 'NULL' : String(v).replace('T', ' ').replace(/\+00$/, '').replace(/(\.\d*?)0+$/, '\$1').replace(/\.$/, '');
const num = (s) => /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(s);
function same(a, b) {
  if (a === b) return true;
  if (num(a) && num(b)) { const x = Number(a), y = Number(b); return Math.abs(x - y) <= 1e-15 * Math.max(Math.abs(x), Math.abs(y)); }
  return false;
}
let bad = 0, cells = 0;
for (const check of checks) {
  const [name, cols] = check.split('|');
  const path = dir + '/' + name + '.parquet';
  const sel = cols === '*' ? '*' : cols;
  const mine = parseCsv(execFileSync(floe, ['--format', 'csv', '-c', 'SELECT ' + sel + " FROM read_parquet('" + path + "')"], { encoding: 'utf8' }));
  const header = mine.shift();
  const dsel = header.map((h) => 'CAST("' + h + '" AS VARCHAR)').join(', ');
  const duck = (await con.runAndReadAll('SELECT ' + dsel + " FROM read_parquet('" + path + "')")).getRowsJson();
  if (duck.length !== mine.length) { console.log('FAIL', name, 'rows', mine.length, duck.length); bad++; continue; }
  for (let r = 0; r < duck.length; r++)
    for (let c = 0; c < header.length; c++) {
      cells++;
      const a = norm(mine[r][c]), b = norm(duck[r][c]);
      if (!same(a, b)) { bad++; console.log('MISMATCH', name, header[c], 'row', r, 'floe', a, 'duckdb', b); }
    }
  console.log('ok  ', name, header.length, 'columns');
}
console.log(cells + ' cells compared, ' + bad + ' mismatches');
process.exit(bad ? 1 : 0);
JS
node "$TMP/cmp.mjs" "$FLOE_BIN" "$TMP" "${CHECKS[@]}"
cat > "$TMP/duck_bad.mjs" <<JS
import { DuckDBInstance } from '$SRC/tests/peers/duckdb.mjs';
const con = await (await DuckDBInstance.create(':memory:')).connect();
for (const f of process.argv.slice(2)) {
  try { await con.runAndReadAll("SELECT * FROM read_parquet('" + f + "')"); console.log('DuckDB reads', f.replace(/.*\//, '')); }
  catch (e) { console.log('DuckDB fails', f.replace(/.*\//, '') + ':', e.message.split('\n')[0]); }
}
JS
node "$TMP/duck_bad.mjs" "$TMP"/bad_*.parquet

#!/usr/bin/env bash
# floe's Parquet reader against DuckDB on every Parquet file in the shared
# test data (Spark, PyIceberg, DuckDB, Impala, parquet-mr, arrow writers):
# for each file DuckDB reads, the row count and each column's non-null count
# must match, and so must the sum of every numeric column and the total
# length in characters of every string column.  Files either reader rejects
# on purpose are skipped (floe's own tests check those failures).
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:?FLOE_SOURCE_DIR not set}
TESTDATA=${FLOE_TESTDATA:-${FLOE_TESTDATA_DEFAULT:-}}
if [ -z "$TESTDATA" ] || [ ! -d "$TESTDATA" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: test data missing under CI=true"; exit 1; fi
    echo "SKIP: shared test data not found"; exit 0
fi
if ! command -v node >/dev/null || [ ! -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ] ||
   ! command -v python3 >/dev/null; then
    if [ "${CI:-}" = true ]; then echo "FAIL: node/duckdb/python3 missing under CI=true"; exit 1; fi
    echo "SKIP: node, @duckdb/node-api or python3 not installed"; exit 0
fi
TMP=$(mktemp -d "${FLOE_BINARY_DIR:-/tmp}/pq_vs_duckdb.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

cat > "$TMP/duck.mjs" <<JS
import { DuckDBInstance } from '$SRC/tests/peers/duckdb.mjs';
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
for (const f of process.argv.slice(2)) {
  try {
    const src = "read_parquet('" + f.replace(/'/g, "''") + "', hive_partitioning=false)";
    const d = (await con.runAndReadAll('DESCRIBE SELECT * FROM ' + src)).getRowObjectsJson();
    const ex = ['count(*)::DOUBLE'], cols = [];
    for (const r of d) {
      const c = '"' + r.column_name.replace(/"/g, '""') + '"';
      ex.push('count(' + c + ')::DOUBLE');
      let kind = null;
      if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|FLOAT|DOUBLE|DECIMAL)/.test(r.column_type)) {
        kind = 'num'; ex.push('sum(' + c + '::DOUBLE)');
      } else if (r.column_type === 'VARCHAR') {
        kind = 'str'; ex.push('sum(length(' + c + '))::DOUBLE');
      } else ex.push('NULL');
      cols.push([r.column_name, kind]);
    }
    const row = (await con.runAndReadAll('SELECT ' + ex.map((e, i) => e + ' AS s' + i).join(', ') + ' FROM ' + src)).getRowObjectsJson()[0];
    console.log(JSON.stringify({ f, cols, vals: ex.map((_, i) => row['s' + i]) }));
  } catch (e) { /* DuckDB cannot read it: nothing to compare */ }
}
JS

cat > "$TMP/cmp.py" <<'PY'
import json, math, subprocess, sys
floe, bad, files, cols_checked = sys.argv[1], 0, 0, 0
for line in sys.stdin:
    d = json.loads(line)
    p = subprocess.run([floe, 'parquet', 'cat', d['f'], '--format', 'jsonl'], capture_output=True, text=True)
    if p.returncode:
        continue  # rejected on purpose (corrupt CRC, INT96 range, ...): unit tests cover these
    rows = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    if rows and set(rows[0].keys()) != set(c[0] for c in d['cols']):
        continue  # DuckDB renamed columns (case-insensitive duplicates)
    files += 1
    vals = d['vals']
    def close(a, b):
        b = 0.0 if b is None else float(b)
        return math.isnan(b) or abs(a - b) <= 1e-6 * max(1.0, abs(b))
    if not close(len(rows), vals[0]):
        print("MISMATCH rows", d['f'], len(rows), vals[0]); bad += 1; continue
    for i, (name, kind) in enumerate(d['cols']):
        got = [r.get(name) for r in rows if r.get(name) is not None]
        if not close(len(got), vals[1 + 2 * i]):
            print("MISMATCH non-null count", d['f'], name, len(got), vals[1 + 2 * i]); bad += 1
        if kind == 'num':
            s = sum(float(v) for v in got if v not in ('NaN', 'Infinity', '-Infinity'))
        elif kind == 'str':
            s = sum(len(v) for v in got)
        else:
            continue
        cols_checked += 1
        if not close(s, vals[2 + 2 * i]):
            print("MISMATCH sum", d['f'], name, s, vals[2 + 2 * i]); bad += 1
print(f"{files} files, {cols_checked} column sums compared, {bad} mismatches")
sys.exit(1 if bad or files < 100 else 0)
PY

mapfile -t FILES < <(find "$TESTDATA" -name '*.parquet' -not -path '*shredded_variant*' \
                     -not -path '*bad_data*' -not -name '*encrypt*' | sort)
node "$TMP/duck.mjs" "${FILES[@]}" > "$TMP/duck.jsonl"
python3 "$TMP/cmp.py" "$FLOE_BIN" < "$TMP/duck.jsonl"

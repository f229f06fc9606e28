#!/usr/bin/env bash
# CSV between floe and DuckDB: floe writes a CSV (COPY ... TO, quotes,
# delimiters, newlines, NULLs, unicode, dates, decimals, negatives) that
# DuckDB's read_csv must read to the same rows; DuckDB writes one
# (COPY ... TO (FORMAT csv)) that floe's read_csv must read to the same
# rows.  Rows are compared as text after both sides format them alike.
set -euo pipefail
# (the expected rows are checked non-empty below)
SRC=${FLOE_SOURCE_DIR:?FLOE_SOURCE_DIR not set}
FLOE=${FLOE_BIN:?FLOE_BIN not set}
if ! command -v node >/dev/null || [ ! -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: DuckDB peer missing under CI=true"; exit 1; fi
    echo "SKIP: node or @duckdb/node-api not installed"; exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ROWS="SELECT i AS id, CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN 'a,b' WHEN 2 THEN 'say \"hi\"' WHEN 3 THEN 'two' || chr(10) || 'lines' ELSE 'héllo ✓' || i END AS s, DATE '2024-01-01' + i AS d, CAST(i AS decimal(10,2)) / 4 - 100 AS n FROM generate_series(1, 500) g(i)"
# What each side prints per row: id|s-with-newlines-as-\n|d|n
Q="SELECT id, coalesce(replace(s, chr(10), '\\n'), '<null>') AS s, CAST(d AS varchar) AS d, CAST(CAST(n AS decimal(10,2)) AS varchar) AS n FROM"

"$FLOE" -c "COPY ($ROWS) TO '$TMP/floe.csv' (FORMAT csv, HEADER)" >/dev/null
"$FLOE" --format csv -c "$Q ($ROWS) x ORDER BY id" > "$TMP/expected.txt"
[ "$(wc -l < "$TMP/expected.txt")" -eq 501 ] || { echo "FAIL: expected 501 lines"; exit 1; }

cat > "$TMP/duck.mjs" <<'JS'
import {DuckDBInstance} from '@duckdb/node-api';
const [mode, dir, q, rows] = process.argv.slice(2);
const con = await (await DuckDBInstance.create(':memory:')).connect();
if (mode === 'write') {
  await con.run(`COPY (${rows}) TO '${dir}/duck.csv' (FORMAT csv, HEADER)`);
} else {
  const r = await con.runAndReadAll(`${q} read_csv('${dir}/floe.csv') x ORDER BY id`);
  const out = [r.columnNames().join(',')];
  for (const row of r.getRowsJS()) out.push(row.map(v => {
    const t = String(v);
    return /[",\n]/.test(t) ? '"' + t.replaceAll('"', '""') + '"' : t;
  }).join(','));
  console.log(out.join('\n'));
}
JS
ln -sfn "$SRC/tests/peers/node_modules" "$TMP/node_modules"
DQ="SELECT id, coalesce(replace(s, chr(10), '\\n'), '<null>') AS s, CAST(d AS varchar) AS d, CAST(CAST(n AS decimal(10,2)) AS varchar) AS n FROM"
(cd "$TMP" && node duck.mjs read "$TMP" "$DQ" "") > "$TMP/duck_reads_floe.txt"
diff "$TMP/expected.txt" "$TMP/duck_reads_floe.txt" > "$TMP/d1" || { echo "FAIL: DuckDB reads floe's CSV differently:"; head -20 "$TMP/d1"; exit 1; }

DROWS="SELECT i AS id, CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN 'a,b' WHEN 2 THEN 'say \"hi\"' WHEN 3 THEN 'two' || chr(10) || 'lines' ELSE 'héllo ✓' || i END AS s, DATE '2024-01-01' + CAST(i AS integer) AS d, CAST(i AS decimal(10,2)) / 4 - 100 AS n FROM range(1, 501) g(i)"
(cd "$TMP" && node duck.mjs write "$TMP" "" "$DROWS")
"$FLOE" --format csv -c "$Q read_csv('$TMP/duck.csv') x ORDER BY id" > "$TMP/floe_reads_duck.txt"
diff "$TMP/expected.txt" "$TMP/floe_reads_duck.txt" > "$TMP/d2" || { echo "FAIL: floe reads DuckDB's CSV differently:"; head -20 "$TMP/d2"; exit 1; }
echo "OK: floe and DuckDB read each other's CSV (500 rows)"

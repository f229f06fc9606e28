#!/usr/bin/env bash
# JSON between floe and DuckDB: DuckDB writes newline-delimited JSON
# (COPY ... TO 'x.json': NULLs, unicode, escapes, nested structs and lists,
# dates, timestamps, decimals) that floe's read_json must read to the same
# aggregates DuckDB's read_json gives; floe writes the rows back (COPY ...
# TO '.ndjson') and DuckDB must read them to the same aggregates again.
set -euo pipefail
SRC=${FLOE_SOURCE_DIR:?FLOE_SOURCE_DIR not set}
FLOE=${FLOE_BIN:?FLOE_BIN not set}
if ! command -v node >/dev/null || [ ! -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: DuckDB peer missing under CI=true"; exit 1; fi
    echo "SKIP: node or @duckdb/node-api not installed"; exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/duck.mjs" <<'JS'
import {DuckDBInstance} from '@duckdb/node-api';
const con = await (await DuckDBInstance.create(':memory:')).connect();
const [mode, arg] = process.argv.slice(2);
if (mode === 'run') await con.run(arg);
else {
  const r = await con.runAndReadAll(arg);
  for (const row of r.getRowsJS()) console.log(row.map(v => v === null ? 'NULL' : String(v)).join('|'));
}
JS
ln -sfn "$SRC/tests/peers/node_modules" "$TMP/node_modules"
ROWS="SELECT i AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE 'h\"é' || chr(10) || '✓ \\u' || i END AS s, DATE '2024-01-01' + CAST(i AS integer) AS d, TIMESTAMP '2024-01-01 10:00:00.25' + to_seconds(i) AS ts, CAST(i AS decimal(10,2)) / 4 - 100 AS n, {'a': i, 'b': [i, NULL, i * 2], 'c': {'x': 'q' || i}} AS st, CASE WHEN i % 5 = 0 THEN NULL ELSE [i, i + 1] END AS l, i % 2 = 0 AS b FROM range(1, 2001) g(i)"
(cd "$TMP" && node duck.mjs run "COPY ($ROWS) TO '$TMP/duck.json'")
# The same aggregates on both sides, each printed as text with fixed digits.
AGG="count(*), count(s), sum(length(s)), length(min(s)), length(max(s)), sum(CASE WHEN s LIKE 'h\"é' || chr(10) || '✓ %' THEN 1 ELSE 0 END), CAST(min(d) AS varchar), CAST(max(d) AS varchar), CAST(max(ts) AS varchar), CAST(CAST(sum(n) AS decimal(18,2)) AS varchar), sum(st.a), max(st.c.x), count(l), sum(CASE WHEN b THEN 1 ELSE 0 END)"
(cd "$TMP" && node duck.mjs query "SELECT $AGG FROM read_json('$TMP/duck.json')") > "$TMP/expected.txt"
[ -s "$TMP/expected.txt" ] || { echo "FAIL: DuckDB gave no aggregates"; exit 1; }
# floe prints timestamps with six fraction digits; DuckDB trims them.
norm() { sed -E 's/(:[0-9]{2}\.[0-9]*[1-9])0+\b/\1/g; s/\bt\b/true/g'; }
"$FLOE" --format csv -c "SELECT $AGG FROM read_json('$TMP/duck.json')" | tail -n +2 | tr ',' '|' | norm > "$TMP/floe.txt"
diff "$TMP/expected.txt" "$TMP/floe.txt" > "$TMP/d1" || { echo "FAIL: floe reads DuckDB's JSON differently:"; cat "$TMP/d1"; exit 1; }
"$FLOE" -c "COPY (SELECT * FROM read_json('$TMP/duck.json')) TO '$TMP/floe.ndjson'" >/dev/null
(cd "$TMP" && node duck.mjs query "SELECT $AGG FROM read_json('$TMP/floe.ndjson')") > "$TMP/back.txt"
diff "$TMP/expected.txt" "$TMP/back.txt" > "$TMP/d2" || { echo "FAIL: DuckDB reads floe's JSON differently:"; cat "$TMP/d2"; exit 1; }
echo "OK: floe and DuckDB read each other's JSON (2000 rows, nested)"

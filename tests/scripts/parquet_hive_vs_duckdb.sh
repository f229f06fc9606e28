#!/usr/bin/env bash
# read_parquet over Hive-partitioned folders, floe against DuckDB: DuckDB
# writes the data set (COPY ... PARTITION_BY: integer, date, text with '/'
# and blanks escaped as %2F / %20, timestamp with ':' escaped, NULL as
# __HIVE_DEFAULT_PARTITION__) plus folders of its own naming (text that
# looks like a number with a leading zero, NULL, a key that is also a file
# column); each query runs through `floe -c` and DuckDB and the rows must be
# equal (as multisets unless ordered; floats to 9 digits).  Partition
# columns, their types (by what the queries do with them: both type a value
# by its folder name as spelled, so the escaped timestamps are text),
# hive_partitioning => false, pruning by partition values (a WHERE that
# rules the unreadable k=9 file out reads past it; without it floe fails
# naming that file).  Not compared: an empty value (k=), NULL in floe, ''
# in DuckDB.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:?FLOE_SOURCE_DIR not set}
if ! command -v node >/dev/null || [ ! -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: DuckDB peer missing under CI=true"; exit 1; fi
    echo "SKIP: node or @duckdb/node-api not installed"; exit 0
fi
TMP=$(mktemp -d "${FLOE_BINARY_DIR:-/tmp}/pq_hive.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"   # floe's default warehouse (./warehouse) lands here

cat > "$TMP/hive.mjs" <<JS
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { DuckDBInstance } from '$SRC/tests/peers/duckdb.mjs';
const [floe, work] = process.argv.slice(2);
const con = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
await con.run(\`COPY (SELECT i AS id, i * 1.5 AS v, 'n' || (i % 4) AS name, (i % 3) AS k,
  DATE '2024-01-01' + CAST(i % 2 AS INTEGER) AS d,
  CASE WHEN i % 5 = 0 THEN NULL ELSE 'a/b c' || (i % 2) END AS s,
  TIMESTAMP '2024-01-02 03:04:05' + INTERVAL (i % 2) HOUR AS ts
  FROM range(0, 500) t(i)) TO '\${work}/pb' (FORMAT parquet, PARTITION_BY (k, d, s, ts))\`);
const dirs = [['code=007/kk=5', 1], ['code=12/kk=NULL', 2], ['code=__HIVE_DEFAULT_PARTITION__/kk=-3', 3], ['code=abc/kk=40', 4]];
for (const [d, i] of dirs) {
  mkdirSync(work + '/own/' + d, { recursive: true });
  await con.run(\`COPY (SELECT \${i} AS id, \${i * 100} AS kk, 'x\${i}' AS t) TO '\${work}/own/\${d}/f.parquet'\`);
}
const P = \`read_parquet('\${work}/pb/**/*.parquet')\`, O = \`read_parquet('\${work}/own/*/*/*.parquet')\`;
// an unreadable file in its own partition: only a WHERE ruling it out reads past it
mkdirSync(work + '/pr/k=1', { recursive: true });
mkdirSync(work + '/pr/k=2', { recursive: true });
mkdirSync(work + '/pr/k=9', { recursive: true });
await con.run(\`COPY (SELECT range AS x FROM range(0, 10)) TO '\${work}/pr/k=1/f.parquet'\`);
await con.run(\`COPY (SELECT range AS x FROM range(10, 15)) TO '\${work}/pr/k=2/f.parquet'\`);
writeFileSync(work + '/pr/k=9/f.parquet', 'this is not a Parquet file');
const R = \`read_parquet('\${work}/pr/*/*.parquet')\`;
const queries = [
  { sql: \`SELECT * FROM \${P} ORDER BY id\`, ordered: true },
  { sql: \`SELECT k, d, s, ts, count(*), sum(v), min(name) FROM \${P} GROUP BY k, d, s, ts\` },
  { sql: \`SELECT k * 10, d + 1, length(s), length(ts) FROM \${P} WHERE id < 30\` },
  { sql: \`SELECT count(*), sum(id) FROM \${P} WHERE k = 2 AND d = DATE '2024-01-02'\` },
  { sql: \`SELECT id FROM \${P} WHERE s IS NULL AND k IN (0, 1) AND id < 100\` },
  { sql: \`SELECT id, s FROM \${P} WHERE s = 'a/b c1' AND ts > '2024-01-02 03:30:00' AND id < 60\` },
  { sql: \`SELECT count(*) FROM read_parquet('\${work}/pb/**/*.parquet', hive_partitioning => false)\` },
  { sql: \`SELECT * FROM \${O} ORDER BY id\`, ordered: true },
  { sql: \`SELECT id, length(code), kk + 1, t FROM \${O} WHERE kk IS NOT NULL\` },
  { sql: \`SELECT count(*) FROM \${O} WHERE code = '007' OR code IS NULL\` },
  { sql: \`SELECT k, count(*), sum(x) FROM \${R} WHERE k < 9 GROUP BY k\` },
  { sql: \`SELECT x FROM \${R} WHERE k IN (2, 5)\` },
];
const norm = (v) => {
  if (v === null || v === undefined || v === '') return 'NULL';
  const s = String(v);
  if (/^-?\\d+(\\.\\d+)?(e[-+]?\\d+)?\$/i.test(s)) {
    const x = Number(s);
    return Number.isInteger(x) && !s.includes('.') ? s : x.toPrecision(9).replace(/\\.?0+\$/, '');
  }
  return s.replace('T', ' ').replace(/(\\d\\d:\\d\\d:\\d\\d)\\.0+\$/, '\$1').replace(/(\\.\\d*?)0+\$/, '\$1');
};
function parseCsv(text) {
  const rows = []; let row = [], f = '', q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (q) { if (c === '"' && text[i + 1] === '"') { f += '"'; i++; } else if (c === '"') q = false; else f += c; }
    else if (c === '"') q = true;
    else if (c === ',' || c === '\\n') { row.push(norm(f)); f = ''; if (c === '\\n') { rows.push(row); row = []; } }
    else f += c;
  }
  return rows.slice(1);
}
let failed = 0;
for (const q of queries) {
  const duck = (await con.runAndReadAll(q.sql)).getRowsJson().map((r) => r.map(norm));
  let mine;
  try {
    mine = parseCsv(execFileSync(floe, ['--format', 'csv', '-c', q.sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
  } catch (e) { console.log('FAIL (floe error)', q.sql, '\\n ', String(e.stderr).trim()); failed++; continue; }
  const key = (r) => JSON.stringify(r);
  const a = q.ordered ? mine.map(key) : mine.map(key).sort(), b = q.ordered ? duck.map(key) : duck.map(key).sort();
  if (a.length !== b.length || a.some((x, i) => x !== b[i])) {
    failed++;
    console.log('FAIL', q.sql, '\\n  floe', a.length, 'rows, DuckDB', b.length);
    for (let i = 0; i < Math.max(a.length, b.length) && i < 5; i++) if (a[i] !== b[i]) console.log('  row', i, 'floe', a[i], 'duckdb', b[i]);
  } else console.log('ok  ', q.sql.replace(/\\s+/g, ' ').replace(work, '').slice(0, 110), '(' + a.length + ' rows)');
}
// without the WHERE both must fail on the unreadable file
let floeFailed = false;
try { execFileSync(floe, ['-c', \`SELECT count(*) FROM \${R}\`], { stdio: 'pipe' }); } catch (e) { floeFailed = /k=9\\/f\\.parquet/.test(String(e.stderr)); }
if (!floeFailed) { console.log('FAIL: floe read past the unreadable k=9 file without a WHERE'); failed++; }
console.log((queries.length - failed) + '/' + queries.length + " queries equal DuckDB's results");
process.exit(failed ? 1 : 0);
JS
node "$TMP/hive.mjs" "$FLOE_BIN" "$TMP"

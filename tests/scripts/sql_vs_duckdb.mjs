// sql_vs_duckdb.mjs — analytical queries over the same Parquet files, run
// by floe (the `floe` binary, `-c`, CSV output) and by DuckDB (the npm
// peer); the results must be equal row for row (as multisets unless the
// query orders them; floats to 9 significant digits).
//
// usage: node tests/scripts/sql_vs_duckdb.mjs FLOE_BIN WORKDIR
// DuckDB writes the input files (nulls, strings, decimals, dates, skewed
// keys) into WORKDIR; each query reads them through read_parquet().
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { DuckDBInstance } from '../peers/duckdb.mjs';

const [floe, work] = process.argv.slice(2);
if (!floe || !work) {
  console.error('usage: node sql_vs_duckdb.mjs FLOE_BIN WORKDIR');
  process.exit(2);
}
mkdirSync(work, { recursive: true });
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await inst.connect();

// ---- inputs -------------------------------------------------------------
const facts = `${work}/facts.parquet`;
const dims = `${work}/dims.parquet`;
await con.run(`COPY (
  SELECT i AS id,
         (i * 7919) % 97 AS k,
         CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 13) END AS g,
         CAST((i * 31) % 1000 AS DECIMAL(12,2)) / 10 AS price,
         CAST(i % 50 AS INTEGER) AS qty,
         (i % 17) * 0.25 AS ratio,
         CASE WHEN i % 7 = 0 THEN NULL ELSE 'name_' || (i % 23) END AS name,
         DATE '1995-01-01' + CAST(i % 2000 AS INTEGER) AS day,
         TIMESTAMP '2020-01-01 00:00:00' + to_seconds(i * 3637) AS ts,
         i % 3 = 0 AS flag
  FROM range(0, 200000) t(i)) TO '${facts}' (FORMAT parquet, ROW_GROUP_SIZE 20000)`);
await con.run(`COPY (
  SELECT k, 'dim_' || k AS label, CASE WHEN k % 5 = 0 THEN NULL ELSE k % 4 END AS region
  FROM range(0, 120) t(k) WHERE k % 9 <> 4) TO '${dims}' (FORMAT parquet)`);

const F = `read_parquet('${facts}')`;
const D = `read_parquet('${dims}')`;

// ---- queries (ordered: compare in order; else as multisets) ---------------
const queries = [
  { sql: `SELECT count(*), count(g), sum(qty), min(price), max(price), avg(price), sum(price) FROM ${F}` },
  { sql: `SELECT g, count(*), sum(qty), avg(ratio), min(name), max(day) FROM ${F} GROUP BY g` },
  { sql: `SELECT k, g, count(*) AS n, sum(price) FROM ${F} WHERE qty > 10 GROUP BY k, g HAVING count(*) > 20` },
  { sql: `SELECT count(*) FROM ${F} WHERE name LIKE 'name\\_1%' ESCAPE '\\'` },
  { sql: `SELECT count(*), sum(qty) FROM ${F} WHERE day BETWEEN DATE '1996-01-01' AND DATE '1996-12-31' AND price < 50` },
  { sql: `SELECT id, price FROM ${F} WHERE g IS NULL AND k IN (3, 5, 7) AND id < 5000` },
  { sql: `SELECT id, name, price FROM ${F} ORDER BY price DESC, id ASC LIMIT 25`, ordered: true },
  { sql: `SELECT name, g FROM ${F} WHERE id < 300 ORDER BY name NULLS FIRST, g DESC NULLS LAST, id`, ordered: true },
  { sql: `SELECT DISTINCT g, flag FROM ${F}` },
  { sql: `SELECT count(DISTINCT k), count(DISTINCT name) FROM ${F}` },
  { sql: `SELECT d.label, count(*), sum(f.qty) FROM ${F} f JOIN ${D} d ON f.k = d.k GROUP BY d.label` },
  { sql: `SELECT f.k, d.label FROM ${F} f LEFT JOIN ${D} d ON f.k = d.k WHERE f.id < 400` },
  { sql: `SELECT d.k, count(f.id) FROM ${D} d LEFT JOIN ${F} f ON f.k = d.k AND f.qty = 3 GROUP BY d.k` },
  { sql: `SELECT d.region, count(*) FROM ${F} f, ${D} d WHERE f.k = d.k AND f.flag GROUP BY d.region` },
  { sql: `SELECT count(*) FROM ${F} WHERE k IN (SELECT k FROM ${D} WHERE region = 1)` },
  { sql: `SELECT count(*) FROM ${F} f WHERE NOT EXISTS (SELECT 1 FROM ${D} d WHERE d.k = f.k)` },
  { sql: `SELECT count(*) FROM ${F} WHERE k NOT IN (SELECT k FROM ${D} WHERE region IS NOT NULL)` },
  { sql: `SELECT a.k, a.n, b.label FROM (SELECT k, count(*) AS n FROM ${F} GROUP BY k) a FULL JOIN ${D} b ON a.k = b.k` },
  { sql: `SELECT g, CASE WHEN qty < 10 THEN 'small' WHEN qty < 30 THEN 'mid' ELSE 'big' END AS size, count(*)
          FROM ${F} GROUP BY 1, 2` },
  { sql: `SELECT extract(year FROM day) AS y, extract(month FROM day) AS m, count(*) FROM ${F} GROUP BY 1, 2` },
  { sql: `SELECT date_trunc('month', ts) AS mo, count(*) FROM ${F} WHERE id < 20000 GROUP BY 1` },
  { sql: `SELECT upper(name), length(name), substring(name, 2, 3), coalesce(name, '?') || '!' FROM ${F} WHERE id < 100` },
  { sql: `SELECT round(price * 1.5, 1), CAST(qty AS DOUBLE) / 4, qty % 7, abs(qty - 25) FROM ${F} WHERE id < 100` },
  { sql: `SELECT k FROM ${F} WHERE id < 50 UNION ALL SELECT k FROM ${D}` },
  { sql: `SELECT k FROM ${F} WHERE id < 500 UNION SELECT k FROM ${D}` },
  { sql: `SELECT count(*) FROM ${F} WHERE day + INTERVAL '30' DAY > DATE '1999-06-01'` },
  { sql: `SELECT id FROM ${F} ORDER BY id LIMIT 10 OFFSET 100`, ordered: true },
];

// ---- normalisation ------------------------------------------------------
function norm(v) {
  if (v === null || v === undefined || v === '') return 'NULL';
  const s = String(v);
  if (/^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(s)) {
    const x = Number(s);
    return Number.isInteger(x) && !s.includes('.') ? s : x.toPrecision(9).replace(/\.?0+$/, '');
  }
  if (s === 'true' || s === 'false') return s;
  return s.replace(/T/, ' ').replace(/(\d\d:\d\d:\d\d)\.0+$/, '$1');
}

function parseCsv(text) {
  const rows = [];
  let row = [], field = '', quoted = false, wasQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') { quoted = true; wasQuoted = true; }
    else if (c === ',') { row.push(wasQuoted ? { q: field } : field); field = ''; wasQuoted = false; }
    else if (c === '\n') {
      row.push(wasQuoted ? { q: field } : field); rows.push(row); row = []; field = ''; wasQuoted = false;
    } else field += c;
  }
  return rows.slice(1).map((r) => r.map((f) => (typeof f === 'object' ? (f.q === '' ? '(empty)' : norm(f.q)) : norm(f))));
}

let failed = 0;
for (const q of queries) {
  const duck = (await con.runAndReadAll(q.sql)).getRowsJson().map((r) => r.map(norm));
  let out;
  try {
    out = execFileSync(floe, ['--format', 'csv', '-c', q.sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    console.log(`FAIL (floe error) ${q.sql}\n  ${String(e.stderr).trim()}`);
    failed++;
    continue;
  }
  const mine = parseCsv(out);
  const key = (r) => JSON.stringify(r);
  const a = q.ordered ? mine.map(key) : mine.map(key).sort();
  const b = q.ordered ? duck.map(key) : duck.map(key).sort();
  if (a.length !== b.length || a.some((x, i) => x !== b[i])) {
    failed++;
    console.log(`FAIL ${q.sql}\n  floe ${a.length} rows, DuckDB ${b.length}`);
    for (let i = 0; i < Math.max(a.length, b.length) && i < 5; i++)
      if (a[i] !== b[i]) console.log(`  row ${i}: floe ${a[i]}  duckdb ${b[i]}`);
  } else {
    console.log(`ok   ${q.sql.replace(/\s+/g, ' ').slice(0, 100)} (${a.length} rows)`);
  }
}
console.log(`${queries.length - failed}/${queries.length} queries equal DuckDB's results`);
process.exit(failed ? 1 : 0);

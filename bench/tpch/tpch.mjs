// tpch.mjs — the TPC-H queries of bench/tpch/ against data files: placeholder
// substitution, and result checks of floe against DuckDB (the npm peer).
//
//   node bench/tpch/tpch.mjs sql QUERY DATA_DIR SF
//       print query QUERY (q01 .. q22, or a path) with {table} replaced by
//       read_parquet('DATA_DIR/table.parquet') and {q11_fraction} by 0.0001/SF
//   node bench/tpch/tpch.mjs counts DATA_DIR SF
//       check the row count of every data file against the spec's
//   node bench/tpch/tpch.mjs missing
//       print the queries bench/tpch/MISSING.md lists as not runnable
//   node bench/tpch/tpch.mjs check FLOE_BIN DATA_DIR SF [QUERY ...]
//       run each query (default: all but the missing ones) in floe (`floe
//       --format csv -f`) and in DuckDB over the same files and compare
//       the results; one "ok"/"FAIL" line per query, exit 1 on any FAIL
//
// Results compare first as multisets of rows: values normalised (numbers
// to 2 decimal places, dates as YYYY-MM-DD), rows sorted, then compared
// value by value with numbers equal within 0.01 + 1e-9 relative (floe's
// decimal quotients and DuckDB's doubles agree only that far).  Then in
// order: every query orders by keys that make its rows unique (ties in
// sums of money are possible in principle, absent at the scale factors
// used), so the order must be DuckDB's too.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const TABLES = ['nation', 'region', 'part', 'supplier', 'partsupp', 'customer', 'orders', 'lineitem'];

export function queryPath(q) {
  return /^q\d\d$/.test(q) ? join(HERE, `${q}.sql`) : q;
}

export function allQueries() {
  return Array.from({ length: 22 }, (_, i) => `q${String(i + 1).padStart(2, '0')}`);
}

// Queries MISSING.md lists as not runnable: table rows "| q19 | ... |".
export function missingQueries() {
  const text = readFileSync(join(HERE, 'MISSING.md'), 'utf8');
  return [...text.matchAll(/^\|\s*(q\d\d)\s*\|/gm)].map((m) => m[1]);
}

export function substitute(sql, dataDir, sf) {
  let out = sql.replace(/\{q11_fraction\}/g, String(0.0001 / Number(sf)));
  for (const t of TABLES) out = out.replaceAll(`{${t}}`, `read_parquet('${dataDir}/${t}.parquet')`);
  const left = out.match(/\{[a-z_0-9]+\}/);
  if (left) throw new Error(`unknown placeholder ${left[0]}`);
  return out;
}

// ---- normalisation ---------------------------------------------------------
const NUM = /^-?\d+(\.\d+)?(e[-+]?\d+)?$/i;

function norm(v) {
  if (v === null || v === undefined) return 'NULL';
  const s = String(v);
  if (NUM.test(s)) return Number(s).toFixed(2);
  return s.replace(/T00:00:00(\.0+)?Z?$/, '');
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
    else if (c === ',') { row.push(wasQuoted ? field : field === '' ? null : field); field = ''; wasQuoted = false; }
    else if (c === '\n') {
      row.push(wasQuoted ? field : field === '' ? null : field); rows.push(row); row = []; field = ''; wasQuoted = false;
    } else field += c;
  }
  return rows.slice(1); // header
}

function sameValue(a, b) {
  if (a === b) return true;
  if (NUM.test(a) && NUM.test(b)) {
    const x = Number(a), y = Number(b);
    return Math.abs(x - y) <= 0.01 + 1e-9 * Math.max(Math.abs(x), Math.abs(y));
  }
  return false;
}

// Compare two result sets; null when equal, else a short explanation.
export function compareRows(mine, theirs) {
  const key = (r) => JSON.stringify(r);
  const a = mine.map((r) => r.map(norm)).sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
  const b = theirs.map((r) => r.map(norm)).sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
  if (a.length !== b.length) return `floe ${a.length} rows, DuckDB ${b.length}`;
  const sameRow = (x, y) => x.length === y.length && x.every((v, j) => sameValue(v, y[j]));
  for (let i = 0; i < a.length; i++)
    if (!sameRow(a[i], b[i])) return `row ${i} (sorted): floe ${key(a[i])} DuckDB ${key(b[i])}`;
  const oa = mine.map((r) => r.map(norm)), ob = theirs.map((r) => r.map(norm));
  for (let i = 0; i < oa.length; i++)
    if (!sameRow(oa[i], ob[i])) return `same rows in another order: row ${i} is floe ${key(oa[i])} DuckDB ${key(ob[i])}`;
  return null;
}

async function check(floe, dataDir, sf, queries) {
  const { DuckDBInstance } = await import('../../tests/peers/duckdb.mjs');
  const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
  const con = await inst.connect();
  const tmp = mkdtempSync(join(tmpdir(), 'tpch-check-'));
  let failed = 0;
  try {
    for (const q of queries) {
      const sql = substitute(readFileSync(queryPath(q), 'utf8'), dataDir, sf);
      const file = join(tmp, `${basename(q, '.sql')}.sql`);
      writeFileSync(file, sql);
      let out;
      try {
        out = execFileSync(floe, ['--format', 'csv', '-f', file], {
          encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: tmp, maxBuffer: 1 << 28,
        });
      } catch (e) {
        console.log(`FAIL ${q}: floe error: ${String(e.stderr).trim().split('\n')[0]}`);
        failed++;
        continue;
      }
      const duck = (await con.runAndReadAll(sql)).getRowsJson();
      const diff = compareRows(parseCsv(out), duck);
      if (diff) {
        console.log(`FAIL ${q}: ${diff}`);
        failed++;
      } else {
        console.log(`ok   ${q} (${duck.length} rows)`);
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`${queries.length - failed}/${queries.length} queries equal DuckDB's results`);
  return failed ? 1 : 0;
}

// Row counts of the data files as DuckDB reads them, against the spec's:
// exact for every table but lineitem (1..7 lines per order: within 2% of 4
// per order).
async function counts(dataDir, sf) {
  const { DuckDBInstance } = await import('../../tests/peers/duckdb.mjs');
  const con = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
  const scaled = (base) => Math.max(1, Math.round(base * Number(sf)));
  const want = {
    nation: 25, region: 5, part: scaled(200000), supplier: scaled(10000), partsupp: 4 * scaled(200000),
    customer: scaled(150000), orders: scaled(1500000), lineitem: 4 * scaled(1500000),
  };
  let bad = 0;
  for (const t of TABLES) {
    const n = Number((await con.runAndReadAll(`SELECT count(*) FROM read_parquet('${dataDir}/${t}.parquet')`)).getRows()[0][0]);
    const ok = t === 'lineitem' ? Math.abs(n - want[t]) <= 0.02 * want[t] : n === want[t];
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${t}: ${n} rows (spec: ${t === 'lineitem' ? '~' : ''}${want[t]})`);
    bad += ok ? 0 : 1;
  }
  return bad ? 1 : 0;
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'sql' && args.length === 3) {
  process.stdout.write(substitute(readFileSync(queryPath(args[0]), 'utf8'), args[1], args[2]));
} else if (cmd === 'counts' && args.length === 2) {
  process.exitCode = await counts(args[0], args[1]);
} else if (cmd === 'missing') {
  console.log(missingQueries().join('\n'));
} else if (cmd === 'check' && args.length >= 3) {
  const [floe, dataDir, sf, ...qs] = args;
  const skip = new Set(missingQueries());
  const queries = qs.length ? qs : allQueries().filter((q) => !skip.has(q));
  process.exitCode = await check(floe, dataDir, sf, queries);
} else {
  console.error('usage: node tpch.mjs sql QUERY DATA_DIR SF | counts DATA_DIR SF | missing | check FLOE_BIN DATA_DIR SF [QUERY ...]');
  process.exitCode = 2;
}

// rowlevel_duckdb.mjs — DuckDB's side of bench/rowlevel.sh: the same
// row-level statements on DuckDB's own table (loaded from the Parquet file of
// the same lineitem), a fresh copy per run, untimed.
//
// usage: node bench/rowlevel_duckdb.mjs THREADS RUNS LINEITEM.parquet STATEMENTS.json
// STATEMENTS.json: [{"name":..., "setup": [sql...], "sql": "..."}] with the
// table called li and the pristine copy li0.  Prints one JSON line per
// statement: {"name", "runs", "median", "changed", "count", "checksum"}.
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '../tests/peers/duckdb.mjs';

const [threads, runsArg, parquet, stmtsFile] = process.argv.slice(2);
if (!stmtsFile) {
  console.error('usage: node rowlevel_duckdb.mjs THREADS RUNS LINEITEM.parquet STATEMENTS.json');
  process.exit(2);
}
const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const con = await inst.connect();
const one = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson()[0];
await con.run(`CREATE TABLE li0 AS SELECT * FROM read_parquet('${parquet}')`);
const stmts = JSON.parse(readFileSync(stmtsFile, 'utf8'));
for (const s of stmts) for (const q of s.setup || []) await con.run(q);
for (const s of stmts) {
  const runs = [];
  let changed = null;
  let check = null;
  for (let i = 0; i < Number(runsArg); i++) {
    await con.run('CREATE OR REPLACE TABLE li AS SELECT * FROM li0');
    const t0 = process.hrtime.bigint();
    const r = await con.runAndReadAll(s.sql);
    runs.push(Number(process.hrtime.bigint() - t0) / 1e9);
    const row = r.getRowObjectsJson()[0];
    changed = row ? Number(Object.values(row)[0]) : null;
    check = await one('SELECT count(*) AS n, CAST(sum(l_extendedprice) AS VARCHAR) AS s FROM li');
  }
  const sorted = [...runs].sort((a, b) => a - b);
  console.log(JSON.stringify({ name: s.name, runs, median: sorted[Math.floor(sorted.length / 2)], changed,
                               count: Number(check.n), checksum: String(check.s) }));
}

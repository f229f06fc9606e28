// insert_script_duckdb.mjs — the single-row INSERT script of
// bench/insert_script.sh run by DuckDB (the npm peer) into a table of a
// DuckDB database file, one statement at a time as a client would.
//
// usage: node bench/insert_script_duckdb.mjs DBFILE SCRIPT.sql
// Prints one JSON line: {"version":...,"n":N,"ms":[per-statement ms...]}
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '../tests/peers/duckdb.mjs';

const [dbFile, script] = process.argv.slice(2);
if (!script) {
  console.error('usage: node insert_script_duckdb.mjs DBFILE SCRIPT.sql');
  process.exit(2);
}
const inst = await DuckDBInstance.create(dbFile);
const con = await inst.connect();
const version = (await con.runAndReadAll('SELECT version() AS v')).getRowObjectsJson()[0].v;
await con.runAndReadAll('CREATE TABLE t (id BIGINT, s VARCHAR)');
const ms = [];
for (const line of readFileSync(script, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const t0 = process.hrtime.bigint();
  await con.runAndReadAll(line.replace('db.t', 't'));
  ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
console.log(JSON.stringify({ version, n: ms.length, ms }));

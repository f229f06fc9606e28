// serve_duckdb.mjs — DuckDB's side of bench/serve.sh: CLIENTS connections to
// one in-process DuckDB instance (THREADS threads), each running the given
// query files in a rotated order at the same time, as floe serve's psql
// clients do.  Prints one JSON line: {"engine":"duckdb","version":...,
// "clients":N,"queries":M,"seconds":s}.
//
// usage: node bench/serve_duckdb.mjs THREADS CLIENTS FILE...
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '../tests/peers/duckdb.mjs';

const [threadsArg, clientsArg, ...files] = process.argv.slice(2);
if (!files.length) {
  console.error('usage: node serve_duckdb.mjs THREADS CLIENTS FILE...');
  process.exit(2);
}
const sqls = files.map((f) => readFileSync(f, 'utf8'));
const inst = await DuckDBInstance.create(':memory:', { threads: String(threadsArg) });
const first = await inst.connect();
const version = (await first.runAndReadAll('SELECT version() AS v')).getRowObjectsJson()[0].v;
const clients = Number(clientsArg);
const cons = [];
for (let c = 0; c < clients; c++) cons.push(await inst.connect());
const t0 = process.hrtime.bigint();
await Promise.all(cons.map(async (con, c) => {
  for (let i = 0; i < sqls.length; i++) await con.runAndReadAll(sqls[(i + c * 3) % sqls.length]);
}));
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(JSON.stringify({ engine: 'duckdb', version, clients, queries: clients * sqls.length, seconds }));

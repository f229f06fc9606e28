// duckdb_time.mjs — time one SQL statement in DuckDB (the npm peer).
//
// usage: node bench/duckdb_time.mjs THREADS RUNS "SQL"
// Runs the statement once to warm up, then RUNS times, and prints one JSON
// line: {"engine":"duckdb","version":...,"threads":N,"runs":[seconds...],"median":s}
import { DuckDBInstance } from '../tests/peers/duckdb.mjs';

const [threadsArg, runsArg, sql] = process.argv.slice(2);
if (!sql) {
  console.error('usage: node duckdb_time.mjs THREADS RUNS "SQL"');
  process.exit(2);
}
const inst = await DuckDBInstance.create(':memory:', { threads: String(threadsArg) });
const con = await inst.connect();
const version = (await con.runAndReadAll('SELECT version() AS v')).getRowObjectsJson()[0].v;
await con.runAndReadAll(sql);
const runs = [];
for (let i = 0; i < Number(runsArg); i++) {
  const t0 = process.hrtime.bigint();
  await con.runAndReadAll(sql);
  runs.push(Number(process.hrtime.bigint() - t0) / 1e9);
}
const sorted = [...runs].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
console.log(JSON.stringify({ engine: 'duckdb', version, threads: Number(threadsArg), runs, median }));

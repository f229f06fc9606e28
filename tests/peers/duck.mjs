import {DuckDBInstance} from '@duckdb/node-api';
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
for (const q of process.argv.slice(2)) {
  try {
    const r = await con.runAndReadAll(q);
    console.log(JSON.stringify(r.columnNames()), JSON.stringify(r.columnTypes().map(t=>t.toString())));
    for (const row of r.getRowsJS()) console.log(JSON.stringify(row, (k,v)=> typeof v === 'bigint' ? v.toString() : v));
  } catch (e) { console.log('ERROR', e.message); }
}

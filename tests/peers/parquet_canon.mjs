// parquet_canon.mjs — dump Parquet files as DuckDB reads them, in an exact,
// typed JSON form that tests/scripts/parquet_canon.py compares with floe's
// `floe parquet cat --format jsonl`.
//
// usage: node parquet_canon.mjs OUTDIR LISTFILE
// LISTFILE lines are "<index>\t<path>\t<expectation>..." (the list that
// tests/scripts/parquet_vs_duckdb.sh writes); files whose expectation starts
// with "skip:" are not read.  For each other file writes
// OUTDIR/<index>.duck.jsonl:
//   line 1: {"names": [...], "types": [type...]} where a type is
//           {"t": "INTEGER"} | {"t": "DECIMAL", "s": scale}
//           | {"t": "LIST", "e": type} | {"t": "MAP", "k": type, "v": type}
//           | {"t": "STRUCT", "f": [[name, type], ...]}
//   then one JSON array per row, values exact and unrounded:
//     integers, decimals, floats as text (floats via JS shortest round trip,
//     exact for a double; "NaN", "Infinity", "-Infinity"); dates as days since
//     1970-01-01; times as ns since midnight; timestamps as ns since the epoch
//     (any unit scaled); blobs as hex; uuids as text; intervals as
//     [months, days, micros]; geometries as hex of their WKB; structs as [[name, value], ...] in type order;
//     lists as arrays; maps as [[key, value], ...].
// A file DuckDB cannot read gets {"error": "..."} as its only line.  Rows
// come in file order (a single-threaded scan with insertion order kept).
import { DuckDBInstance, DuckDBTypeId as T } from './duckdb.mjs';
import { readFileSync, writeFileSync } from 'node:fs';

const [outDir, listFile] = process.argv.slice(2);
if (!listFile) {
  console.error('usage: node parquet_canon.mjs OUTDIR LISTFILE');
  process.exit(2);
}
const files = readFileSync(listFile, 'utf8').split('\n').filter((l) => l)
  .map((l) => l.split('\t')).filter((f) => !f[2].startsWith('skip:'));
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await inst.connect();

function typeTree(t) {
  switch (t.typeId) {
    case T.DECIMAL: return { t: 'DECIMAL', s: t.scale };
    case T.LIST: case T.ARRAY: return { t: 'LIST', e: typeTree(t.valueType) };
    case T.MAP: return { t: 'MAP', k: typeTree(t.keyType), v: typeTree(t.valueType) };
    case T.STRUCT: return { t: 'STRUCT', f: t.entryNames.map((n, i) => [n, typeTree(t.entryTypes[i])]) };
    case T.GEOMETRY: return { t: 'BLOB' };
    default: return { t: T[t.typeId] };
  }
}

const hex = (bytes) => Buffer.from(bytes).toString('hex');
const NS = { [T.TIMESTAMP_S]: 1000000000n, [T.TIMESTAMP_MS]: 1000000n, [T.TIMESTAMP]: 1000n,
             [T.TIMESTAMP_TZ]: 1000n, [T.TIMESTAMP_NS]: 1n };

function value(t, v) {
  if (v === null || v === undefined) return null;
  switch (t.typeId) {
    case T.BOOLEAN: return v;
    case T.TINYINT: case T.SMALLINT: case T.INTEGER: case T.BIGINT: case T.HUGEINT:
    case T.UTINYINT: case T.USMALLINT: case T.UINTEGER: case T.UBIGINT: case T.UHUGEINT:
      return String(v);
    case T.FLOAT: case T.DOUBLE: // String(-0) is "0": keep the sign
      return Number.isNaN(v) ? 'NaN' : Object.is(v, -0) ? '-0' : String(v);
    case T.DECIMAL: {
      const neg = v.value < 0n;
      let digits = (neg ? -v.value : v.value).toString().padStart(v.scale + 1, '0');
      if (v.scale > 0) digits = digits.slice(0, -v.scale) + '.' + digits.slice(-v.scale);
      return (neg ? '-' : '') + digits;
    }
    case T.VARCHAR: case T.ENUM: return String(v);
    case T.BLOB: case T.BIT: case T.GEOMETRY: return hex(v.bytes);
    case T.UUID: return v.toString();
    case T.DATE: return v.days;
    case T.TIME: return String(v.micros * 1000n);
    case T.TIME_NS: return String(v.nanos);
    case T.TIME_TZ: return [String(v.micros * 1000n), v.offset];
    case T.TIMESTAMP_S: return String(v.seconds * NS[t.typeId]);
    case T.TIMESTAMP_MS: return String(v.millis * NS[t.typeId]);
    case T.TIMESTAMP: case T.TIMESTAMP_TZ: return String(v.micros * NS[t.typeId]);
    case T.TIMESTAMP_NS: return String(v.nanos);
    case T.INTERVAL: return [v.months, v.days, String(v.micros)];
    case T.LIST: case T.ARRAY: return v.items.map((x) => value(t.valueType, x));
    case T.MAP: return v.entries.map((e) => [value(t.keyType, e.key), value(t.valueType, e.value)]);
    case T.STRUCT: return t.entryNames.map((n, i) => [n, value(t.entryTypes[i], v.entries[n])]);
    default: return { unsupported: T[t.typeId], text: String(v) };
  }
}

for (const [index, path] of files) {
  const out = `${outDir}/${index}.duck.jsonl`;
  try {
    const q = `SELECT * FROM read_parquet('${path.replace(/'/g, "''")}')`;
    const r = await con.runAndReadAll(q);
    const types = r.columnTypes();
    const lines = [JSON.stringify({ names: r.columnNames(), types: types.map(typeTree) })];
    for (const row of r.getRows()) lines.push(JSON.stringify(row.map((v, c) => value(types[c], v))));
    writeFileSync(out, lines.join('\n') + '\n');
  } catch (e) {
    writeFileSync(out, JSON.stringify({ error: String(e.message ?? e).split('\n')[0] }) + '\n');
  }
}

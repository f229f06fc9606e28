// gen_lineitem.mjs — write a lineitem-shaped Parquet file with DuckDB.
//
// usage: node bench/gen_lineitem.mjs OUT.parquet [ROWS=6000000] [CODEC=zstd]
//
// DuckDB's tpch extension cannot be downloaded here, so the columns are made
// from deterministic hash expressions with TPC-H-like domains: the same file
// every run, 16 columns of the lineitem types (int64 keys, decimal(15,2)
// money, char flags, dates, short and long strings).
import { DuckDBInstance } from '../tests/peers/duckdb.mjs';

const [out, rowsArg, codecArg] = process.argv.slice(2);
if (!out) {
  console.error('usage: node gen_lineitem.mjs OUT.parquet [ROWS] [CODEC]');
  process.exit(2);
}
const rows = Number(rowsArg ?? 6000000);
const codec = codecArg ?? 'zstd';
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const h = (salt, mod) => `(hash(i * 7919 + ${salt}) % ${mod})::BIGINT`;
await con.run(`
  COPY (
    SELECT
      (i // 4 + 1)::BIGINT                                  AS l_orderkey,
      (${h(1, 200000)} + 1)::BIGINT                          AS l_partkey,
      (${h(2, 10000)} + 1)::BIGINT                           AS l_suppkey,
      (i % 4 + 1)::INTEGER                                  AS l_linenumber,
      ((${h(3, 50)} + 1))::DECIMAL(15,2)                     AS l_quantity,
      ((${h(4, 10000000)} + 90000) / 100.0)::DECIMAL(15,2)   AS l_extendedprice,
      (${h(5, 11)} / 100.0)::DECIMAL(15,2)                   AS l_discount,
      (${h(6, 9)} / 100.0)::DECIMAL(15,2)                    AS l_tax,
      ['A','N','R'][${h(7, 3)} + 1]                          AS l_returnflag,
      ['F','O'][${h(8, 2)} + 1]                              AS l_linestatus,
      (DATE '1992-01-02' + ${h(9, 2526)}::INTEGER)           AS l_shipdate,
      (DATE '1992-01-31' + ${h(10, 2466)}::INTEGER)          AS l_commitdate,
      (DATE '1992-01-03' + ${h(11, 2556)}::INTEGER)          AS l_receiptdate,
      ['DELIVER IN PERSON','COLLECT COD','NONE','TAKE BACK RETURN'][${h(12, 4)} + 1] AS l_shipinstruct,
      ['REG AIR','AIR','RAIL','SHIP','TRUCK','MAIL','FOB'][${h(13, 7)} + 1] AS l_shipmode,
      'comment ' || md5(i::VARCHAR)[1:${h(14, 20)} + 8]  AS l_comment
    FROM range(${rows}) t(i)
  ) TO '${out.replace(/'/g, "''")}' (FORMAT parquet, COMPRESSION ${codec}, ROW_GROUP_SIZE 122880)`);
const r = await con.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${out.replace(/'/g, "''")}')`);
console.log(`wrote ${out}: ${r.getRowObjectsJson()[0].n} rows, ${codec}`);

#!/usr/bin/env bash
# Files written across partition evolution, read by DuckDB (npm
# @duckdb/node-api, read_parquet — DuckDB's iceberg extension is not
# available offline, so the data files are read directly):
#   1. DuckDB reads exactly the rows floe reads from the table, from the
#      files $files lists, and each file holds the record_count $files says;
#   2. every file of the day(ts) specs holds one day, every file of the
#      month(ts) spec one month — the day/month $files gives it;
#   3. files written after WRITE ORDERED BY id DESC have their rows in that
#      order (the sort order id they record is not an empty claim).
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
skip_test() {
    if [ "${CI:-}" = true ]; then echo "FAIL: $1 under CI=true"; exit 1; fi
    echo "SKIP: $1"; exit 0
}
command -v node >/dev/null && [ -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ] ||
    skip_test "node or @duckdb/node-api not installed"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/partition_evolution_duckdb.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
W=$TMP/warehouse
q() { "$FLOE_BIN" --warehouse "$W" --format csv -c "$1" | tail -n +2; }
ROWS="SELECT k, to_timestamp(1704067200 + k * 7919)::timestamp, 'c' || CAST(k % 5 AS text) FROM generate_series"

"$FLOE_BIN" --warehouse "$W" -c "
SET target_partitions = 3;
CREATE TABLE ev (id bigint, ts timestamp, category string) PARTITIONED BY (day(ts));
INSERT INTO ev $ROWS(1, 200) g(k);
ALTER TABLE ev ADD PARTITION FIELD bucket(4, id);
INSERT INTO ev $ROWS(201, 400) g(k);
ALTER TABLE ev REPLACE PARTITION FIELD ts_day WITH month(ts);
INSERT INTO ev $ROWS(401, 600) g(k);
ALTER TABLE ev WRITE ORDERED BY id DESC;
INSERT INTO ev $ROWS(601, 800) g(k);"

q "SELECT id, strftime(ts, '%Y-%m-%d %H:%M:%S'), category FROM ev ORDER BY id" > "$TMP/floe.csv"
[ "$(wc -l < "$TMP/floe.csv")" = 800 ] || { echo "FAIL: floe reads $(wc -l < "$TMP/floe.csv") rows, not 800"; exit 1; }
# path, spec, records, sort order, the day or month of the partition (days/months since 1970)
q "SELECT file_path, spec_id, record_count, sort_order_id,
     coalesce(CAST(CAST(partition.ts_day AS date) - DATE '1970-01-01' AS text), ''),
     coalesce(CAST(partition.ts_month AS text), '')
   FROM \"ev\$files\" ORDER BY file_path" > "$TMP/files.csv"
cut -d, -f2 "$TMP/files.csv" | sort | uniq -c | awk '{printf "spec %s: %s files\n", $2, $1}'

cat > "$TMP/duck.mjs" <<JS
import { readFileSync, writeFileSync } from 'node:fs';
import { DuckDBInstance } from '$SRC/tests/peers/duckdb.mjs';
const files = readFileSync('$TMP/files.csv', 'utf8').trim().split('\n').map((l) => l.split(',').map((x) => x.replace(/^"(.*)"$/, '\$1')));
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await inst.connect();
const list = '[' + files.map((f) => "'" + f[0].replace(/'/g, "''") + "'").join(', ') + ']';
const rows = (await con.runAndReadAll(\`SELECT id, strftime(ts, '%Y-%m-%d %H:%M:%S'), category
  FROM read_parquet(\${list}) ORDER BY id\`)).getRowsJson();
writeFileSync('$TMP/duck.csv', rows.map((r) => r.map((v) => String(v)).join(',')).join('\n') + '\n');
const per = (await con.runAndReadAll(\`SELECT filename, count(*),
    min(date_diff('day', DATE '1970-01-01', CAST(ts AS date))), max(date_diff('day', DATE '1970-01-01', CAST(ts AS date))),
    min(date_diff('month', DATE '1970-01-01', CAST(ts AS date))), max(date_diff('month', DATE '1970-01-01', CAST(ts AS date))),
    bool_and(id <= coalesce(prev, id))
  FROM (SELECT *, lag(id) OVER (PARTITION BY filename ORDER BY file_row_number) AS prev
        FROM read_parquet(\${list}, filename = true, file_row_number = true))
  GROUP BY filename\`)).getRowsJson();
const byName = new Map(per.map((r) => [r[0], r]));
let bad = 0;
for (const [path, spec, count, order, day, month] of files) {
  const r = byName.get(path);
  if (!r) { console.error('DuckDB read nothing from', path); bad++; continue; }
  if (String(r[1]) !== count) { console.error(path, 'holds', r[1], 'rows, \$files says', count); bad++; }
  if (day !== '' && !(String(r[2]) === day && String(r[3]) === day)) {
    console.error(path, '(spec', spec + ') holds days', r[2], '..', r[3], 'its partition is day', day); bad++;
  }
  if (month !== '' && !(String(r[4]) === month && String(r[5]) === month)) {
    console.error(path, '(spec', spec + ') holds months', r[4], '..', r[5], 'its partition is month', month); bad++;
  }
  if (order === '1' && r[6] !== true) { console.error(path, 'records sort order 1 but its ids are not descending'); bad++; }
}
const sorted = files.filter((f) => f[3] === '1').length;
if (sorted === 0) { console.error('no file records the sort order'); bad++; }
process.exit(bad ? 1 : 0);
JS
node "$TMP/duck.mjs" || { echo "FAIL: DuckDB check"; exit 1; }
if ! diff "$TMP/floe.csv" "$TMP/duck.csv" > "$TMP/diff"; then
    echo "FAIL: DuckDB reads different rows from floe's data files:"; head -20 "$TMP/diff"; exit 1
fi
echo "ok: DuckDB reads the same 800 rows from $(wc -l < "$TMP/files.csv") data files of 3 specs; partitions and sort order hold"

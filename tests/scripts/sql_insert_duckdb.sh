#!/usr/bin/env bash
# The files an INSERT writes, read by other implementations:
#   1. DuckDB (npm @duckdb/node-api) reads floe's data files with
#      read_parquet and gets exactly the rows floe reads from the table;
#      every column of every file carries the table's field id;
#   2. python3-avro reads the manifest list and manifests: the data files
#      they list are $files' paths, their record counts add up to the
#      table's rows, and each entry's partition tuple is the one in its
#      file's partition path.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
skip_test() {
    if [ "${CI:-}" = true ]; then echo "FAIL: $1 under CI=true"; exit 1; fi
    echo "SKIP: $1"; exit 0
}
command -v node >/dev/null && [ -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ] ||
    skip_test "node or @duckdb/node-api not installed"
/usr/bin/python3 -c 'import avro.datafile' 2>/dev/null || skip_test "python3-avro not installed"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sql_insert_duckdb.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
W=$TMP/warehouse
q() { "$FLOE_BIN" --warehouse "$W" --format csv -c "$1" | tail -n +2; }

"$FLOE_BIN" --warehouse "$W" -c "
SET target_partitions = 3;
CREATE TABLE t (id bigint NOT NULL, i int, s string, d date, ts timestamp, n decimal(12,2), x double precision, b boolean)
  PARTITIONED BY (bucket(4, id), month(d), s);
INSERT INTO t SELECT k, CAST(k % 7 AS int), CASE WHEN k % 9 = 0 THEN NULL ELSE 'grp' || CAST(k % 3 AS text) END,
  DATE '2023-11-15' + CAST(k % 100 AS int), to_timestamp(1700000000 + k * 3607)::timestamp,
  CAST(k * 0.25 AS decimal(12,2)), CAST(k AS double precision) / 8, k % 2 = 0
  FROM generate_series(1, 3000) g(k);
INSERT INTO t (id, s, d) VALUES (1000001, 'late', DATE '2024-06-01'), (1000002, NULL, NULL);"

# The same projection in both engines (formatted the same way).
COLS="id, coalesce(CAST(i AS varchar), 'NULL'), coalesce(s, 'NULL'), coalesce(CAST(d AS varchar), 'NULL'),
  coalesce(strftime(ts, '%Y-%m-%d %H:%M:%S'), 'NULL'), coalesce(CAST(n AS varchar), 'NULL'),
  coalesce(CAST(x * 8 AS bigint), -1), coalesce(CAST(b AS varchar), 'NULL')"
q "SELECT $COLS FROM t ORDER BY id" > "$TMP/floe.csv"
q 'SELECT file_path FROM "t$files" ORDER BY file_path' > "$TMP/files.txt"
[ "$(wc -l < "$TMP/floe.csv")" = 3002 ] || { echo "FAIL: floe reads $(wc -l < "$TMP/floe.csv") rows, not 3002"; exit 1; }

cat > "$TMP/duck.mjs" <<JS
import { readFileSync, writeFileSync } from 'node:fs';
import { DuckDBInstance } from '$SRC/tests/peers/duckdb.mjs';
const files = readFileSync('$TMP/files.txt', 'utf8').trim().split('\n');
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await inst.connect();
const list = '[' + files.map((f) => "'" + f.replace(/'/g, "''") + "'").join(', ') + ']';
const rows = (await con.runAndReadAll(\`SELECT $COLS FROM read_parquet(\${list}) ORDER BY id\`)).getRowsJson();
writeFileSync('$TMP/duck.csv', rows.map((r) => r.map((v) => String(v)).join(',')).join('\n') + '\n');
// field ids: id=1 ... b=8, in every file
const ids = (await con.runAndReadAll(\`SELECT file_name, name, field_id FROM parquet_schema(\${list}) WHERE name <> 'table'\`)).getRowsJson();
const want = { id: 1, i: 2, s: 3, d: 4, ts: 5, n: 6, x: 7, b: 8 };
let bad = 0;
for (const [file, name, fid] of ids) {
  if (!(name in want)) continue;
  if (Number(fid) !== want[name]) { console.error('field id of', name, 'in', file, 'is', fid); bad++; }
}
const seen = ids.filter(([, name]) => name in want).length;
if (seen !== files.length * 8) { console.error('expected', files.length * 8, 'columns, saw', seen); bad++; }
process.exit(bad ? 1 : 0);
JS
node "$TMP/duck.mjs" || { echo "FAIL: DuckDB check"; exit 1; }
# floe's CSV quotes nothing here (no commas or quotes in the values)
if ! diff "$TMP/floe.csv" "$TMP/duck.csv" > "$TMP/diff"; then
    echo "FAIL: DuckDB reads different rows from floe's data files:"; head -20 "$TMP/diff"; exit 1
fi

# Manifests, through python3-avro.
q 'SELECT manifest_list FROM "t$snapshots" ORDER BY committed_at DESC LIMIT 1' > "$TMP/list.txt"
/usr/bin/python3 - "$TMP/list.txt" "$TMP/files.txt" <<'PY'
import sys, warnings, urllib.parse
warnings.simplefilter("ignore")
import avro.datafile, avro.io

def read(path):
    with open(path, "rb") as f:
        r = avro.datafile.DataFileReader(f, avro.io.DatumReader())
        meta = dict(r.meta)
        recs = list(r)
        r.close()
    return meta, recs

mlist = open(sys.argv[1]).read().strip()
files = set(open(sys.argv[2]).read().split())
_, manifests = read(mlist)
assert len(manifests) == 2, "two appends: two manifests, got %d" % len(manifests)
paths, rows = set(), 0
for m in manifests:
    meta, entries = read(m["manifest_path"])
    assert meta["format-version"] in (b"2", "2"), meta["format-version"]
    assert m["added_files_count"] == len(entries), "manifest list counts"
    for e in entries:
        assert e["status"] == 1, "ADDED entries"
        df = e["data_file"]
        paths.add(df["file_path"])
        rows += df["record_count"]
        part = df["partition"]
        # the partition path names each field: id_bucket=N/d_month=YYYY-MM/s=...
        dirs = df["file_path"].split("/")[-4:-1]
        got = dict(urllib.parse.unquote_plus(x).split("=", 1) for x in dirs)
        assert got["id_bucket"] == str(part["id_bucket"]), (got, part)
        mm = part["d_month"]
        want_month = "null" if mm is None else "%04d-%02d" % (1970 + mm // 12, mm % 12 + 1)
        assert got["d_month"] == want_month, (got, part)
        assert got["s"] == ("null" if part["s"] is None else part["s"]), (got, part)
assert paths == files, "manifests list exactly $files' paths"
assert rows == 3002, "record counts add up to %d" % rows
print("python3-avro: %d manifests, %d data files, %d rows" % (len(manifests), len(paths), rows))
PY
echo "ok: DuckDB reads the same 3002 rows from $(wc -l < "$TMP/files.txt") data files; python3-avro reads the manifests"

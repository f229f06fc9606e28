#!/usr/bin/env bash
# Nested columns written from SQL (array<T>, struct<...>, map<K, V>, T[]
# through CREATE TABLE, INSERT ... VALUES, INSERT ... SELECT and CTAS) are
# nested Parquet with Iceberg field ids: floe reads the table back, and
# DuckDB (npm @duckdb/node-api) reads the data files with the same values
# and finds every nested field's id (element, key and value included)
# where the table metadata puts it.  A copy-on-write UPDATE of nested
# columns (array_append, ||, a new map) leaves data files DuckDB reads with
# floe's values; unnest() over the table — FROM with ORDINALITY, select-list
# SRFs in lockstep — agrees with DuckDB's unnest over those files, and with
# itself under `mpirun -np 2` (skipped without mpirun, except under CI=true).
# A filter on a struct field (st.a = 150) prunes data files by its metrics.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
skip_test() {
    if [ "${CI:-}" = true ]; then echo "FAIL: $1 under CI=true"; exit 1; fi
    echo "SKIP: $1"; exit 0
}
command -v node >/dev/null && [ -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ] ||
    skip_test "node or @duckdb/node-api not installed"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nested_iceberg_duckdb.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
W=$TMP/warehouse
q() { "$FLOE_BIN" --warehouse "$W" --format csv -c "$1" | tail -n +2; }

"$FLOE_BIN" --warehouse "$W" -c "
CREATE TABLE t (id bigint, xs array<bigint>, st struct<a: int, b: string, c: array<struct<d: double>>>,
                m map<string, int>, tags text[]);
INSERT INTO t VALUES
  (1, ARRAY[1, 2, 3], struct_pack(a := 10, b := 'x', c := ARRAY[ROW(1.5), ROW(2.5)]), map(ARRAY['k', 'j'], ARRAY[5, 6]), ARRAY['p', NULL]),
  (2, NULL, NULL, NULL, NULL),
  (3, ARRAY[]::bigint[], named_struct('a', 30, 'b', NULL, 'c', NULL), map(ARRAY['a'], ARRAY[NULL]), ARRAY[]::text[]);
INSERT INTO t SELECT k, ARRAY[k, k * k], ROW(CAST(k AS int), 'g' || CAST(k % 3 AS text), ARRAY[ROW(k / 4.0)]),
  map(ARRAY['k'], ARRAY[CAST(k AS int)]), ARRAY['n' || CAST(k AS text)]
  FROM generate_series(4, 400) g(k);
CREATE TABLE c AS SELECT id, xs, st FROM t WHERE st.a > 200;"

# The same scalar projection in both engines (1-based subscripts in both;
# doubles scaled to integers, which both print alike).
COLS="id, coalesce(CAST(xs[1] AS varchar), 'N'), coalesce(CAST(xs[2] AS varchar), 'N'),
  coalesce(CAST(cardinality(xs) AS varchar), 'N'), coalesce(CAST(st.a AS varchar), 'N'), coalesce(st.b, 'N'),
  coalesce(CAST(CAST(st.c[1].d * 1000 AS bigint) AS varchar), 'N'), coalesce(CAST(CAST(st.c[2].d * 1000 AS bigint) AS varchar), 'N'),
  coalesce(CAST(m['k'] AS varchar), 'N'), coalesce(CAST(m['a'] AS varchar), 'N'),
  coalesce(tags[1], 'N'), coalesce(CAST(cardinality(tags) AS varchar), 'N')"
q "SELECT $COLS FROM t ORDER BY id" > "$TMP/floe.csv"
[ "$(wc -l < "$TMP/floe.csv")" = 400 ] || { echo "FAIL: floe reads $(wc -l < "$TMP/floe.csv") rows, not 400"; exit 1; }
grep -qx '1,1,2,3,10,x,1500,2500,5,N,p,2' "$TMP/floe.csv" || { echo "FAIL: row 1 reads back as"; head -1 "$TMP/floe.csv"; exit 1; }
grep -qx '3,N,N,0,30,N,N,N,N,N,N,0' "$TMP/floe.csv" || { echo "FAIL: row 3 reads back as"; sed -n 3p "$TMP/floe.csv"; exit 1; }
[ "$(q 'SELECT count(*), sum(st.a), sum(cardinality(xs)) FROM c')" = "200,60100,400" ] ||
    { echo "FAIL: the CTAS copy reads $(q 'SELECT count(*), sum(st.a), sum(cardinality(xs)) FROM c')"; exit 1; }
q 'SELECT file_path FROM "t$files" ORDER BY file_path' > "$TMP/files.txt"
q 'SELECT file_path FROM "c$files" ORDER BY file_path' > "$TMP/cfiles.txt"
META=$(ls "$W"/default/t/metadata/*.metadata.json | sort | tail -1)

cat > "$TMP/duck.mjs" <<JS
import { readFileSync, writeFileSync } from 'node:fs';
import { DuckDBInstance } from '$SRC/tests/peers/duckdb.mjs';
const files = readFileSync('$TMP/files.txt', 'utf8').trim().split('\n');
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await inst.connect();
const list = (fs) => '[' + fs.map((f) => "'" + f.replace(/'/g, "''") + "'").join(', ') + ']';
// DuckDB's m['k'] is the value (NULL when absent), as floe's
const cols = \`$COLS\`.replaceAll('cardinality(', 'len(');
const rows = (await con.runAndReadAll(\`SELECT \${cols} FROM read_parquet(\${list(files)}) ORDER BY id\`)).getRowsJson();
writeFileSync('$TMP/duck.csv', rows.map((r) => r.map((v) => String(v)).join(',')).join('\n') + '\n');
// every Parquet field with an id must carry the id the table metadata gives that path
const md = JSON.parse(readFileSync('$META', 'utf8'));
const schema = md.schemas.find((s) => s['schema-id'] === md['current-schema-id']);
const want = new Map();
const walk = (t, path) => {
  if (typeof t !== 'object') return;
  if (t.type === 'struct') for (const f of t.fields) { want.set(path + f.name, f.id); walk(f.type, path + f.name + '.'); }
  if (t.type === 'list') { want.set(path + 'element', t['element-id']); walk(t.element, path + 'element.'); }
  if (t.type === 'map') {
    want.set(path + 'key', t['key-id']); want.set(path + 'value', t['value-id']);
    walk(t.key, path + 'key.'); walk(t.value, path + 'value.');
  }
};
walk(schema, '');
let bad = 0;
for (const file of files) {
  const fields = (await con.runAndReadAll(\`SELECT name, field_id, num_children FROM parquet_schema('\${file}')\`)).getRowsJson();
  // rebuild paths from the flattened schema (depth-first, num_children each), skipping
  // Parquet's repeated "list" / "key_value" groups, which Iceberg has no field for
  let i = 1, seen = 0;
  const visit = (prefix) => {
    const [name, fid, n] = fields[i++];
    const skip = name === 'list' || name === 'key_value';
    const path = skip ? prefix : prefix + name;
    if (!skip) {
      seen++;
      if (!want.has(path)) { console.error('unexpected field', path, 'in', file); bad++; }
      else if (Number(fid) !== want.get(path)) { console.error('field id of', path, 'is', fid, 'not', want.get(path)); bad++; }
    }
    for (let k = 0; k < Number(n ?? 0); k++) visit(skip ? path : path + '.');
  };
  const [, , top] = fields[0];
  for (let k = 0; k < Number(top); k++) visit('');
  if (seen !== want.size) { console.error(file, 'has', seen, 'fields, the schema', want.size); bad++; }
}
// the CTAS copy's files hold the same nested values as the rows they came from
const cfiles = readFileSync('$TMP/cfiles.txt', 'utf8').trim().split('\n');
const agg = (await con.runAndReadAll(\`SELECT count(*), sum(st.a), sum(len(xs)), sum(st.c[1].d) FROM read_parquet(\${list(cfiles)})\`)).getRowsJson();
if (agg[0].map(String).join(',') !== '200,60100,400,15025') { console.error('DuckDB reads the CTAS files as', agg[0]); bad++; }
process.exit(bad ? 1 : 0);
JS
node "$TMP/duck.mjs" || { echo "FAIL: DuckDB check"; exit 1; }
if ! diff "$TMP/floe.csv" "$TMP/duck.csv" > "$TMP/diff"; then
    echo "FAIL: DuckDB reads different values from floe's data files:"; head -20 "$TMP/diff"; exit 1
fi

# ---- UPDATE of nested columns, then unnest, against DuckDB
"$FLOE_BIN" --warehouse "$W" -c "
CREATE TABLE u (id bigint, xs array<bigint>, tags text[], m map<string, int>) WITH ('write.update.mode' = 'copy-on-write');
INSERT INTO u SELECT k, CASE WHEN k % 5 = 0 THEN NULL ELSE ARRAY[k, k + 1] END, ARRAY['t' || CAST(k AS text)],
  map(ARRAY['k'], ARRAY[CAST(k AS int)]) FROM generate_series(1, 300) g(k);
UPDATE u SET xs = array_append(xs, id * 10), tags = tags || 'x', m = map(ARRAY['k', 'u'], ARRAY[CAST(id AS int), 1])
  WHERE id % 3 = 0;
UPDATE u SET xs = ARRAY[]::bigint[] WHERE id = 7;"
[ "$(q 'SELECT count(*) FROM "u$files" WHERE content <> 0')" = 0 ] || { echo "FAIL: copy-on-write UPDATE left delete files"; exit 1; }
q 'SELECT file_path FROM "u$files" ORDER BY file_path' > "$TMP/ufiles.txt"
UCOLS="id, coalesce(array_to_string(xs, ';') || '.', 'N'), coalesce(array_to_string(tags, ';'), 'N'), coalesce(CAST(m['k'] AS varchar), 'N'), coalesce(CAST(m['u'] AS varchar), 'N')"
q "SELECT $UCOLS FROM u ORDER BY id" > "$TMP/u_floe.csv"
grep -qx '3,3;4;30.,t3;x,3,1' "$TMP/u_floe.csv" || { echo "FAIL: updated row 3 reads back as"; sed -n 3p "$TMP/u_floe.csv"; exit 1; }
# unnest: FROM with ORDINALITY, and two select-list SRFs in lockstep (NULL-padded)
q "SELECT id, x, n FROM u, unnest(u.xs) WITH ORDINALITY AS e(x, n) ORDER BY id, n" > "$TMP/un_floe.csv"
q "SELECT id, coalesce(CAST(a AS varchar), 'N'), coalesce(b, 'N') FROM (SELECT id, unnest(xs) AS a, unnest(tags) AS b FROM u) s ORDER BY id, 2, 3" > "$TMP/srf_floe.csv"
cat > "$TMP/duck_u.mjs" <<JS
import { readFileSync, writeFileSync } from 'node:fs';
import { DuckDBInstance } from '$SRC/tests/peers/duckdb.mjs';
const files = readFileSync('$TMP/ufiles.txt', 'utf8').trim().split('\n');
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await inst.connect();
const src = 'read_parquet([' + files.map((f) => "'" + f.replace(/'/g, "''") + "'").join(', ') + '])';
const out = async (sql, file) => {
  const rows = (await con.runAndReadAll(sql)).getRowsJson();
  writeFileSync(file, rows.map((r) => r.map((v) => String(v)).join(',')).join('\n') + '\n');
};
await out(\`SELECT $UCOLS FROM \${src} ORDER BY id\`, '$TMP/u_duck.csv');
await out(\`SELECT id, unnest(xs) AS x, generate_subscripts(xs, 1) AS n FROM \${src} ORDER BY id, n\`, '$TMP/un_duck.csv');
await out(\`SELECT id, coalesce(CAST(a AS varchar), 'N'), coalesce(b, 'N') FROM (SELECT id, unnest(xs) AS a, unnest(tags) AS b FROM \${src}) s ORDER BY id, 2, 3\`, '$TMP/srf_duck.csv');
JS
node "$TMP/duck_u.mjs" || { echo "FAIL: DuckDB check of the updated table"; exit 1; }
for f in u un srf; do
    if ! diff "$TMP/${f}_floe.csv" "$TMP/${f}_duck.csv" > "$TMP/diff"; then
        echo "FAIL: DuckDB and floe differ ($f):"; head -20 "$TMP/diff"; exit 1
    fi
done
[ "$(wc -l < "$TMP/un_floe.csv")" = 578 ] || { echo "FAIL: unnest gives $(wc -l < "$TMP/un_floe.csv") rows, not 578 (array_append(NULL, x) is {x})"; exit 1; }

# ---- a filter on a struct field prunes data files by that field's metrics
for i in 0 1 2 3; do
    "$FLOE_BIN" --warehouse "$W" -c "$([ $i = 0 ] && echo 'CREATE TABLE p (id int, st struct<a: int, b: string>);')
      INSERT INTO p SELECT k, CASE WHEN k % 7 = 0 THEN NULL ELSE struct_pack(a := k, b := 'x' || CAST(k AS text)) END
      FROM generate_series($((i * 100 + 1)), $((i * 100 + 100))) g(k)" > /dev/null
done
plan=$(q "EXPLAIN SELECT id FROM p WHERE st.a = 150")
grep -q 'filter=st.a == 150' <<<"$plan" && grep -q 'files=1 ' <<<"$plan" ||
    { echo "FAIL: st.a = 150 does not prune p's files by st.a's bounds: $plan"; exit 1; }
[ "$(q 'SELECT count(*), min(id) FROM p WHERE st.a = 150')" = "1,150" ] || { echo "FAIL: st.a = 150 on p"; exit 1; }
[ "$(q "SELECT count(*) FROM p WHERE st.a BETWEEN 120 AND 210 AND st.b LIKE 'x1%'")" = "69" ] ||
    { echo "FAIL: a range and prefix on p's struct fields reads $(q "SELECT count(*) FROM p WHERE st.a BETWEEN 120 AND 210 AND st.b LIKE 'x1%'")"; exit 1; }
[ "$(q 'SELECT count(*) FROM p WHERE st.a IS NULL')" = "57" ] || { echo "FAIL: st.a IS NULL on p"; exit 1; }

# ---- the same unnest under mpirun -np 2 (the Unnest node through the plan codec)
if command -v mpirun >/dev/null 2>&1; then
    mpi=(mpirun --oversubscribe)
    [ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
    export OMPI_MCA_btl_vader_single_copy_mechanism=none
    export LSAN_OPTIONS="suppressions=$SRC/tests/lsan-mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    for sql in "SELECT id, x, n FROM u, unnest(u.xs) WITH ORDINALITY AS e(x, n) ORDER BY id, n" \
               "SELECT id % 4 AS k, count(*), sum(x) FROM u LEFT JOIN LATERAL unnest(xs) AS e(x) ON true GROUP BY 1 ORDER BY 1"; do
        local_out=$(q "$sql")
        # (Open MPI's by-design leaks match tests/lsan-mpi.supp only with full malloc stacks)
        mpi_out=$(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0" timeout 180 "${mpi[@]}" -np 2 \
            -x LSAN_OPTIONS -x ASAN_OPTIONS "$FLOE_BIN" --warehouse "$W" --format csv -c "$sql" | tail -n +2) ||
            { echo "FAIL: mpirun -np 2 failed: $sql"; exit 1; }
        [ "$local_out" = "$mpi_out" ] || { echo "FAIL: mpirun -np 2 differs for $sql"; diff <(echo "$local_out") <(echo "$mpi_out") | head; exit 1; }
    done
elif [ "${CI:-}" = true ]; then
    echo "FAIL: mpirun is not installed under CI=true"; exit 1
fi
echo "PASS: nested columns round-trip (floe and DuckDB agree on $(wc -l < "$TMP/floe.csv") rows and every field id; an UPDATEd nested table and unnest over it agree with DuckDB, and unnest under mpirun)"

#!/usr/bin/env bash
# floe's Parquet writer against DuckDB: tests/tools/pq_write_sample writes
# the sample table of tests/tools/pq_sample_data.h (every type, nulls at
# every nesting level, lists, maps, structs, lists of lists, maps of structs
# of lists) under several
# codec/encoding/page/row-group settings; DuckDB reads each file and must
# find, row by row and column by column, the values this script computes
# with SQL from the same formulas, plus:
#   - every Parquet schema element's field_id and the converted types;
#   - per row group min/max/null-count statistics equal to DuckDB's own
#     aggregates over the expected rows (NaN excluded from float bounds);
#   - the key-value metadata;
#   - Bloom filters (the "bloom" file): DuckDB's probe never rules out the
#     row group holding a present value, and rules out most absent ones.
set -euo pipefail
SRC=${FLOE_SOURCE_DIR:?FLOE_SOURCE_DIR not set}
BIN=${FLOE_BINARY_DIR:?FLOE_BINARY_DIR not set}
TOOL="$BIN/pq_write_sample"
[ -x "$TOOL" ] || { echo "FAIL: $TOOL not built (cmake --build ... --target pq_write_sample)"; exit 1; }
if ! command -v node >/dev/null || [ ! -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: DuckDB peer missing under CI=true"; exit 1; fi
    echo "SKIP: node or @duckdb/node-api not installed"; exit 0
fi
TMP=$(mktemp -d "${BIN}/pq_duckdb.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

ROWS=10000
RG=3000
# name|options
CONFIGS=(
  "zstd|--codec zstd"
  "snappy_plain|--codec snappy --no-dict"
  "gzip_fallback|--codec gzip --dict-bytes 3000 --batch 333"
  "lz4_delta_rle|--codec lz4_raw --delta --rle-bool"
  "none_small_pages|--codec none --no-page-index --page-rows 50 --batch 777"
  "brotli|--codec brotli --level 3"
  "v2_zstd|--codec zstd --v2 --dict-bytes 5000"
  "v2_none_delta|--codec none --v2 --delta --rle-bool --no-crc"
  "legacy_dict_snappy|--codec snappy --legacy-dict --page-rows 20000"
  "bloom|--codec zstd --bloom"
)
for c in "${CONFIGS[@]}"; do
    name=${c%%|*}
    opts=${c#*|}
    # shellcheck disable=SC2086
    "$TOOL" "$TMP/$name.parquet" --rows $ROWS --rg-rows $RG $opts >/dev/null
done

cat > "$TMP/check.mjs" <<EOF
import { DuckDBInstance } from '$SRC/tests/peers/duckdb.mjs';
const [dir, rows, rg, ...names] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const all = async (q) => (await con.runAndReadAll(q)).getRowObjectsJson();
let failures = 0;
const fail = (m) => { console.log('FAIL: ' + m); failures++; };

// Decimal text from an unscaled integer, parsed back exactly.
await con.run(\`CREATE MACRO fmt_dec(u, s) AS
  (CASE WHEN u < 0 THEN '-' ELSE '' END) || (abs(u) // (10::HUGEINT ** s)::HUGEINT)::VARCHAR
  || '.' || lpad((abs(u) % (10::HUGEINT ** s)::HUGEINT)::VARCHAR, s, '0')\`);
await con.run(\`CREATE TABLE exp AS SELECT
  i::BIGINT AS id,
  CASE WHEN i%11=0 THEN NULL ELSE i%3=0 END AS b,
  CASE WHEN i%5=0 THEN NULL ELSE (i*7-5000)::INTEGER END AS i32,
  (i*1000003-4000000000)::BIGINT AS i64,
  CASE WHEN i%97=0 THEN 'NaN'::FLOAT ELSE (i*0.5-100)::FLOAT END AS f32,
  CASE WHEN i%9=0 THEN NULL WHEN i%101=1 THEN 'NaN'::DOUBLE ELSE i*1.25-3.5 END AS f64,
  CASE WHEN i%8=0 THEN NULL ELSE fmt_dec((i*12345-6000000)::HUGEINT, 2)::DECIMAL(9,2) END AS d9,
  fmt_dec((i*1234567891-5000000000000)::HUGEINT, 3)::DECIMAL(18,3) AS d18,
  fmt_dec((i-5000)::HUGEINT * 1000000000::HUGEINT * 1000000000000::HUGEINT + (i-5000)*7, 10)::DECIMAL(38,10) AS d38,
  CASE WHEN i%10=0 THEN NULL ELSE DATE '1970-01-01' + (i-3000)::INTEGER END AS dt,
  TIME '00:00:00' + to_microseconds((i*7919*1000003) % 86400000000) AS tm,
  1700000000000000 + i*3600000123 AS ts,
  700000000000000 + i*3600000123 AS tstz,
  1700000000000000000 + i*123456789 AS tsns,
  CASE WHEN i%4=1 THEN NULL WHEN i%50=0 THEN 'é-' || i ELSE 'str-' || i END AS s,
  ('b' || i)::BLOB AS bin,
  (chr((65+i%26)::INTEGER) || chr((97+i%26)::INTEGER) || chr((48+i%10)::INTEGER))::BLOB AS fx,
  (['00112233-4455-6677-8899-aabbccddeeff', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
    '01234567-89ab-cdef-0123-456789abcdef', '80000000-0000-0000-0000-000000000001'][i%4+1])::UUID AS u,
  (CASE WHEN i%7=3 THEN NULL WHEN i%7=4 THEN []
   ELSE list_transform(range(i%4+1), j -> CASE WHEN j=1 AND i%3=0 THEN NULL ELSE i+j END) END)::INTEGER[] AS l,
  (CASE WHEN i%6=5 THEN NULL WHEN i%6=4 THEN MAP {}
   ELSE map_from_entries(list_transform(range(i%3+1), j -> {'key': 'k'||j, 'value': CASE WHEN j=2 THEN NULL ELSE j*i END})) END)::MAP(VARCHAR, BIGINT) AS m,
  (CASE WHEN i%13=0 THEN NULL ELSE {'a': CASE WHEN i%2=0 THEN NULL ELSE i END,
                                    'n': CASE WHEN i%3=0 THEN NULL ELSE {'c': 'c'||i} END} END)::STRUCT(a INTEGER, n STRUCT(c VARCHAR)) AS st,
  (CASE WHEN i%17=0 THEN NULL
   ELSE list_transform(range(i%3+1), k -> CASE WHEN k=1 AND i%2=1 THEN NULL ELSE list_transform(range(k), j -> i) END) END)::BIGINT[][] AS ll,
  (CASE WHEN i%5=2 THEN NULL WHEN i%5=3 THEN MAP {}
   ELSE map_from_entries(list_transform(range(i%2+1), j -> {'key': 'm'||j,
     'value': CASE WHEN j=1 AND i%4=0 THEN NULL ELSE {'x': CASE WHEN j=0 AND i%3=0 THEN NULL ELSE i+j END,
        'y': CASE WHEN i%7=0 THEN NULL ELSE list_transform(range(j+1), q -> CASE WHEN q=1 THEN NULL ELSE 'y'||i||'-'||q END) END} END}))
   END)::MAP(VARCHAR, STRUCT(x INTEGER, y VARCHAR[])) AS ms
  FROM range(\${rows}) t(i)\`);

const cols = ['b','i32','i64','f32','f64','d9','d18','d38','dt','tm','ts','tstz','tsns','s','bin','fx','u','l','m','st','ll','ms'];
const expIds = [['schema',null],['id',1],['b',2],['i32',3],['i64',4],['f32',5],['f64',6],['d9',7],['d18',8],['d38',9],
  ['dt',10],['tm',11],['ts',12],['tstz',13],['tsns',14],['s',15],['bin',16],['fx',17],['u',18],
  ['l',19],['list',null],['element',20],['m',21],['key_value',null],['key',22],['value',23],
  ['st',24],['a',25],['n',26],['c',27],['ll',28],['list',null],['element',29],['list',null],['element',30],
  ['ms',31],['key_value',null],['key',32],['value',33],['x',34],['y',35],['list',null],['element',36]];
const expConverted = {d9:'DECIMAL', d18:'DECIMAL', d38:'DECIMAL', dt:'DATE', tm:'TIME_MICROS', ts:'TIMESTAMP_MICROS',
  tstz:'TIMESTAMP_MICROS', s:'UTF8', l:'LIST', m:'MAP'};

for (const name of names) {
  const f = \`\${dir}/\${name}.parquet\`;
  await con.run(\`CREATE OR REPLACE VIEW got AS SELECT id, b, i32, i64, f32, f64, d9, d18, d38, dt, tm,
      epoch_us(ts) AS ts, epoch_us(tstz) AS tstz, epoch_ns(tsns) AS tsns, s, bin, fx, u, l, m, st, ll, ms
      FROM read_parquet('\${f}')\`);
  const n = await all('SELECT count(*) AS n, count(DISTINCT id) AS d FROM got');
  if (Number(n[0].n) !== Number(rows) || Number(n[0].d) !== Number(rows)) fail(\`\${name}: \${n[0].n} rows\`);
  const diffs = cols.map(c => \`count(*) FILTER (WHERE g.\${c} IS DISTINCT FROM e.\${c}) AS \${c}\`).join(', ');
  const d = (await all(\`SELECT \${diffs} FROM got g FULL JOIN exp e USING (id)\`))[0];
  for (const c of cols) {
    if (Number(d[c]) !== 0) {
      const ex = await all(\`SELECT id, g.\${c}::VARCHAR AS got, e.\${c}::VARCHAR AS want FROM got g FULL JOIN exp e USING (id)
                           WHERE g.\${c} IS DISTINCT FROM e.\${c} ORDER BY id LIMIT 3\`);
      fail(\`\${name}: column \${c}: \${d[c]} rows differ, e.g. \${JSON.stringify(ex)}\`);
    }
  }
  // Field ids and converted types.
  const sch = await all(\`SELECT name, field_id, converted_type FROM parquet_schema('\${f}')\`);
  const ids = sch.map(r => [r.name, r.field_id === null ? null : Number(r.field_id)]);
  if (JSON.stringify(ids) !== JSON.stringify(expIds)) fail(\`\${name}: field ids \${JSON.stringify(ids)}\`);
  for (const r of sch)
    if (expConverted[r.name] && r.converted_type !== expConverted[r.name])
      fail(\`\${name}: \${r.name} converted type \${r.converted_type}\`);
  // Key-value metadata.
  const kv = await all(\`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('\${f}') ORDER BY k\`);
  if (JSON.stringify(kv) !== JSON.stringify([{k:'floe.sample', v:'pq_write_sample'}, {k:'iceberg.schema', v:'{}'}]))
    fail(\`\${name}: kv metadata \${JSON.stringify(kv)}\`);
  const cb = await all(\`SELECT created_by FROM parquet_file_metadata('\${f}')\`);
  if (!String(cb[0].created_by).startsWith('floe version ')) fail(\`\${name}: created_by \${cb[0].created_by}\`);
  // Row group statistics of flat columns.
  for (const c of ['id', 'i32', 'i64', 'f32', 'f64', 'd9', 'd18', 'dt', 's', 'b']) {
    const got = await all(\`SELECT row_group_id AS rg, stats_min_value AS lo, stats_max_value AS hi, stats_null_count AS nulls
        FROM parquet_metadata('\${f}') WHERE path_in_schema = '\${c}' ORDER BY rg\`);
    const fl = (c === 'f32' || c === 'f64');
    const want = await all(\`SELECT id // \${rg} AS rg,
        (min(\${c}) FILTER (WHERE \${fl ? \`NOT isnan(\${c})\` : 'true'}))::VARCHAR AS lo,
        (max(\${c}) FILTER (WHERE \${fl ? \`NOT isnan(\${c})\` : 'true'}))::VARCHAR AS hi,
        count(*) FILTER (WHERE \${c} IS NULL) AS nulls
        FROM exp GROUP BY ALL ORDER BY rg\`);
    const norm = (rs) => JSON.stringify(rs.map(r => [Number(r.rg), r.lo, r.hi, Number(r.nulls)]));
    if (norm(got) !== norm(want)) fail(\`\${name}: stats of \${c}: got \${norm(got)} want \${norm(want)}\`);
  }
  if (name.includes('bloom')) {
    // Literal of a row's value, as DuckDB must see it to probe the filter.
    const lit = {
      i32: 'i32::VARCHAR', i64: 'i64::VARCHAR', s: "'''' || s || ''''",
      u: "'''' || u::VARCHAR || '''::UUID'", d38: "'''' || d38::VARCHAR || '''::DECIMAL(38,10)'",
      fx: "'unhex(''' || hex(fx) || ''')'",
    };
    for (const [c, e] of Object.entries(lit)) {
      const rowsq = await all(\`SELECT id, \${e} AS v FROM exp WHERE \${c} IS NOT NULL AND id % 97 = 5\`);
      for (const r of rowsq) {
        const p = await all(\`SELECT row_group_id AS rg, bloom_filter_excludes AS x FROM parquet_bloom_probe('\${f}', '\${c}', \${r.v})\`);
        const mine = p.find(q => Number(q.rg) === Math.floor(Number(r.id) / Number(rg)));
        if (!mine || mine.x !== false) fail(\`\${name}: bloom filter of \${c} excludes present value \${r.v} (row \${r.id})\`);
      }
      // DuckDB cannot probe UUID or FIXED-decimal filters (it never excludes).
      const absent = { i32: '123456789', i64: '77', s: "'absent'", fx: "unhex('000000')" }[c];
      if (!absent) continue;
      const p = await all(\`SELECT count(*) FILTER (WHERE bloom_filter_excludes) AS x, count(*) AS n FROM parquet_bloom_probe('\${f}', '\${c}', \${absent})\`);
      if (Number(p[0].x) < Number(p[0].n) - 1) fail(\`\${name}: bloom filter of \${c} keeps absent \${absent} in \${p[0].n - p[0].x} row groups\`);
    }
  }
  console.log(\`ok \${name}\`);
}
process.exit(failures ? 1 : 0);
EOF

names=()
for c in "${CONFIGS[@]}"; do names+=("${c%%|*}"); done
node "$TMP/check.mjs" "$TMP" "$ROWS" "$RG" "${names[@]}"
echo "PASS: DuckDB reads floe's Parquet files (${#names[@]} configurations)"

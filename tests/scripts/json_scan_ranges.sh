#!/usr/bin/env bash
# The streamed JsonScan (src/exec/scan/json_read.c) against DuckDB's
# read_json: newline-delimited JSON written by DuckDB (UTF-8, NULLs,
# nested structs and lists) cut into many small byte ranges (range_bytes
# => 97 / 1000, so records straddle range edges) reads to the aggregates
# DuckDB gives for the same file; so do copies with CRLF line ends and
# blank lines, a glob of two files, DuckDB's array form and pretty-printed
# multi-line records (one range each: they cannot be cut safely), and the
# same queries under `mpirun -np 2` (the ranges travel in the plan).  A
# malformed record and a mistyped value in the middle of a many-range file
# are errors naming the file and the right line.  Skips without DuckDB's
# node package or mpirun, except under CI=true.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
FLOE_SOURCE_DIR=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/scripts/mpi_lib.bash
source "$FLOE_SOURCE_DIR/tests/scripts/mpi_lib.bash"
if ! command -v node >/dev/null || [ ! -d "$FLOE_SOURCE_DIR/tests/peers/node_modules/@duckdb/node-api" ]; then
  skip "node or @duckdb/node-api not installed"
fi
cat > "$tmp/duck.mjs" <<'JS'
import {DuckDBInstance} from '@duckdb/node-api';
const con = await (await DuckDBInstance.create(':memory:')).connect();
const [mode, arg] = process.argv.slice(2);
if (mode === 'run') await con.run(arg);
else {
  const r = await con.runAndReadAll(arg);
  for (const row of r.getRowsJS()) console.log(row.map(v => v === null ? 'NULL' : String(v)).join(','));
}
JS
ln -sfn "$FLOE_SOURCE_DIR/tests/peers/node_modules" "$tmp/node_modules"
duck() { (cd "$tmp" && node duck.mjs "$@"); }

ROWS="SELECT i AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE 'héllo ✓ \"q\" ' || i END AS s, DATE '2024-01-01' + CAST(i AS integer) AS d,
      i * 0.25 AS x, {'a': i, 'b': [i, NULL], 'c': {'z': 'ü' || i}} AS st, CASE WHEN i % 5 = 0 THEN NULL ELSE [i, i + 1] END AS l
      FROM range(1, 3001) g(i)"
duck run "COPY ($ROWS) TO '$tmp/a.json'"
duck run "COPY ($ROWS) TO '$tmp/arr.json' (FORMAT json, ARRAY true)"
# CRLF line ends and blank lines (some of spaces) every seventh record.
awk '{ printf "%s\r\n", $0; if (NR % 7 == 0) printf "\r\n  \n" }' "$tmp/a.json" > "$tmp/crlf.json"
# Pretty-printed records, one after another: records span lines.
python3 -c "import json,sys
for l in open(sys.argv[1]): print(json.dumps(json.loads(l), indent=2, ensure_ascii=False))" "$tmp/a.json" > "$tmp/pretty.json"
cp "$tmp/a.json" "$tmp/m1.json"
cp "$tmp/a.json" "$tmp/m2.json"

AGG="count(*), count(s), sum(id), sum(length(s)), length(max(s)), sum(CASE WHEN s LIKE 'héllo ✓ \"q\" %' THEN 1 ELSE 0 END), CAST(min(d) AS varchar), CAST(max(d) AS varchar), CAST(sum(x) * 4 AS bigint), sum(st.a), max(st.c.z), count(l), sum(l[2])"
want=$(duck query "SELECT $AGG FROM read_json('$tmp/a.json')")
[ -n "$want" ] || fail "DuckDB gave no aggregates"
check() { # label, query, expected
  local got
  got=$(floe -c "$2" | tail -n +2) || fail "$1: query failed"
  [ "$got" = "$3" ] || fail "$1: got '$got', want '$3' (DuckDB)"
}
for f in a crlf arr pretty; do
  duckf=$(duck query "SELECT $AGG FROM read_json('$tmp/$f.json')")
  [ "$duckf" = "$want" ] || fail "DuckDB reads $f.json as '$duckf', a.json as '$want'"
  check "$f, one range" "SELECT $AGG FROM read_json('$tmp/$f.json')" "$want"
  check "$f, 97-byte ranges" "SELECT $AGG FROM read_json('$tmp/$f.json', range_bytes => 97)" "$want"
  check "$f, 1000-byte ranges" "SELECT $AGG FROM read_json('$tmp/$f.json', range_bytes => 1000)" "$want"
done
check "read_ndjson" "SELECT $AGG FROM read_ndjson('$tmp/crlf.json', range_bytes => 97)" "$want"
want2=$(duck query "SELECT count(*), sum(id), count(s) FROM read_json('$tmp/m*.json')")
check "glob" "SELECT count(*), sum(id), count(s) FROM read_json('$tmp/m*.json', range_bytes => 61)" "$want2"
plan() { floe -c "EXPLAIN SELECT count(*) FROM read_json('$tmp/$1', range_bytes => 97)"; }
grep -q "JsonScan: files=1, ranges=[0-9][0-9][0-9]" <<<"$(plan crlf.json)" || fail "no split JsonScan: $(plan crlf.json)"
grep -q "JsonScan: files=1, ranges=1\b" <<<"$(plan pretty.json)" || fail "pretty-printed file split: $(plan pretty.json)"
grep -q "JsonScan: files=1, ranges=1\b" <<<"$(plan arr.json)" || fail "array file split: $(plan arr.json)"

# COPY FROM json: the same scan.
floe -c "CREATE TABLE t (id bigint, s varchar, d date, x double, st struct<a: bigint, b: array<bigint>, c: struct<z: varchar>>, l array<bigint>)" >/dev/null
floe -c "COPY t FROM '$tmp/crlf.json' (FORMAT json)" >/dev/null
check "COPY FROM" "SELECT $AGG FROM t" "$want"

# Errors in the middle of a many-range file name the file and the line.
awk 'NR == 2001 { print "{\"id\": 1, \"s\": \"x\",, }"; next } { print }' "$tmp/a.json" > "$tmp/bad.json"
if err=$(floe -c "SELECT count(*) FROM read_json('$tmp/bad.json', range_bytes => 97)" 2>&1); then fail "malformed JSON read"; fi
grep -q "bad.json' line 2001, column 20: malformed JSON" <<<"$err" || fail "malformed JSON error: $err"
awk 'NR == 2502 { print "{\"id\": \"zz\"}"; next } { print }' "$tmp/crlf.json" > "$tmp/badtype.json"
if err=$(floe -c "SELECT count(*) FROM read_json('$tmp/badtype.json', range_bytes => 97, sample_size => 50)" 2>&1); then
  fail "mistyped value read"
fi
grep -q "badtype.json' line 2502, column 1: column \"id\": expected int64" <<<"$err" || fail "type error: $err"

# Under mpirun -np 2: the same answers as alone.
for q in "SELECT $AGG FROM read_json('$tmp/crlf.json', range_bytes => 97)" \
         "SELECT id % 7 AS k, count(*), sum(x), max(s), max(st.c.z) FROM read_json('$tmp/m*.json', range_bytes => 113) GROUP BY 1 ORDER BY 1"; do
  local_out=$(floe -c "$q")
  mpi_out=$(floe_np 2 -c "$q") || fail "mpirun -np 2 failed: $q"
  [ "$local_out" = "$mpi_out" ] || fail "mpirun -np 2 differs for $q: '$mpi_out' vs '$local_out'"
done
echo "OK: JsonScan ranges vs DuckDB (CRLF, blank lines, UTF-8, array, pretty), glob, COPY FROM, error lines, mpirun -np 2"

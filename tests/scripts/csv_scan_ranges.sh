#!/usr/bin/env bash
# The streamed CsvScan (src/exec/scan/csv_read.c): a file cut into many
# small byte ranges (range_bytes => 97, so quoted fields with newlines
# straddle range edges) reads to the same aggregates as the file read as
# one range, through a glob of several files, gzip and zstd copies (one
# range each), COPY t FROM and `mpirun -np 2` (the ranges travel in the
# plan to the workers).  A bad UTF-8 byte is an error naming the file, the
# line and the column.  Skips the MPI part when mpirun is missing, except
# under CI=true.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
FLOE_SOURCE_DIR=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/scripts/mpi_lib.bash
source "$FLOE_SOURCE_DIR/tests/scripts/mpi_lib.bash"

ROWS="SELECT i AS id, CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN 'a,\"b\"' || chr(10) || 'c' || chr(10) ELSE 'héllo ✓' || i END AS s,
      DATE '2024-01-01' + i AS d, CAST(i AS decimal(10,2)) / 4 AS n FROM generate_series(1, 3000) g(i)"
floe -c "COPY ($ROWS) TO '$tmp/a.csv' (FORMAT csv, HEADER)" >/dev/null
floe -c "COPY ($ROWS) TO '$tmp/m1.csv' (FORMAT csv, HEADER)" >/dev/null
floe -c "COPY ($ROWS) TO '$tmp/m2.csv' (FORMAT csv, HEADER)" >/dev/null
gzip -c "$tmp/a.csv" > "$tmp/a.csv.gz"
zstd -q -c "$tmp/a.csv" > "$tmp/a.csv.zst"
AGG="count(*), count(s), sum(id), sum(length(s)), sum(CAST(n AS decimal(10,2))), min(d), max(d), sum(CAST(position(chr(10) IN s) AS bigint))"
want=$(floe -c "SELECT $AGG FROM ($ROWS) x")
[ -n "$want" ] || fail "no expected rows"
check() { # label, query
  local got
  got=$(floe -c "$2") || fail "$1: query failed"
  [ "$got" = "$3" ] || fail "$1: got '$got', want '$3'"
}
check "one range" "SELECT $AGG FROM read_csv('$tmp/a.csv')" "$want"
check "97-byte ranges" "SELECT $AGG FROM read_csv('$tmp/a.csv', range_bytes => 97)" "$want"
check "gzip" "SELECT $AGG FROM read_csv('$tmp/a.csv.gz', range_bytes => 97)" "$want"
check "zstd" "SELECT $AGG FROM read_csv('$tmp/a.csv.zst')" "$want"
want2=$(floe -c "SELECT count(*) * 2 AS count, sum(id) * 2 AS sum FROM ($ROWS) x")
check "glob" "SELECT count(*), sum(id) FROM read_csv('$tmp/m*.csv', range_bytes => 61)" "$want2"
plan=$(floe -c "EXPLAIN SELECT count(*) FROM read_csv('$tmp/a.csv', range_bytes => 97)")
grep -q "CsvScan: files=1, ranges=[0-9][0-9][0-9]" <<<"$plan" || fail "EXPLAIN shows no split CsvScan: $plan"

# COPY FROM: the same streamed path.
floe -c "CREATE TABLE t (id bigint, s varchar, d date, n decimal(10,2))" >/dev/null
floe -c "COPY t FROM '$tmp/a.csv' (FORMAT csv, HEADER)" >/dev/null
check "COPY FROM" "SELECT $AGG FROM t" "$want"

# Bad UTF-8: file, line and column named.
printf 'a,b\n1,ok\n2,x\xffy\n' > "$tmp/bad.csv"
if err=$(floe -c "SELECT * FROM read_csv('$tmp/bad.csv')" 2>&1); then fail "bad UTF-8 read without error"; fi
grep -q "bad.csv' line 3, column b: invalid UTF-8 byte 0xff" <<<"$err" || fail "bad UTF-8 error: $err"

# Under mpirun -np 2: the same answers as alone.
for q in "SELECT $AGG FROM read_csv('$tmp/a.csv', range_bytes => 97)" \
         "SELECT id % 7 AS k, count(*), sum(CAST(n AS decimal(10,2))) FROM read_csv('$tmp/m*.csv', range_bytes => 113) GROUP BY 1 ORDER BY 1"; do
  local_out=$(floe -c "$q")
  mpi_out=$(floe_np 2 -c "$q") || fail "mpirun -np 2 failed: $q"
  [ "$local_out" = "$mpi_out" ] || fail "mpirun -np 2 differs for $q: '$mpi_out' vs '$local_out'"
done
echo "OK: CsvScan ranges, gz/zst, glob, COPY FROM, bad UTF-8, mpirun -np 2"

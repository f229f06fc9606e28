#!/usr/bin/env bash
# Row-level changes under MPI: the same DELETE / UPDATE / MERGE statements
# run on two copies of one table, one with `floe -c` alone, one under
# `mpirun -np 3` (the scan, the delete-file and data writers on every rank,
# the commit on rank 0).  After each statement both tables hold exactly the
# same rows, the distributed one gained exactly one snapshot (one commit),
# and each data file got at most one position delete file from it.  A
# statement that fails on a worker (a cardinality violation) commits
# nothing and leaves no file behind.
#
# Skips when mpirun is missing, except under CI=true.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
FLOE_SOURCE_DIR=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/scripts/mpi_lib.bash
source "$FLOE_SOURCE_DIR/tests/scripts/mpi_lib.bash"

# Two copies of one table: several files per partition (three INSERTs).
for t in tl td; do
  floe -c "CREATE TABLE $t (id bigint NOT NULL, p int, tag varchar, v double) PARTITIONED BY (p)" >/dev/null
  for part in 0 1 2; do
    floe -c "INSERT INTO $t SELECT x, CAST(x % 4 AS int), 't' || CAST(x % 7 AS varchar), x * 0.5
             FROM generate_series($part * 20000 + 1, $part * 20000 + 20000) g(x)" >/dev/null
  done
done
floe -c "CREATE TABLE src (id bigint, nv double, op varchar)" >/dev/null
floe -c "INSERT INTO src SELECT x * 37, x * 1.5, CASE WHEN x % 5 = 0 THEN 'd' ELSE 'u' END
         FROM generate_series(1, 3000) g(x)" >/dev/null

snapshots() { floe -c "SELECT count(*) FROM \"$1\$snapshots\"" | tail -1; }
same_rows() {
  local want got
  want=$(floe -c "SELECT count(*), sum(id), sum(p), min(tag), max(tag), sum(v) FROM tl")
  got=$(floe -c "SELECT count(*), sum(id), sum(p), min(tag), max(tag), sum(v) FROM td")
  [ "$got" = "$want" ] || fail "after '$1': distributed table differs: $got (local: $want)"
  want=$(floe -c "SELECT id, p, tag, v FROM tl WHERE id % 997 = 0 ORDER BY id")
  got=$(floe -c "SELECT id, p, tag, v FROM td WHERE id % 997 = 0 ORDER BY id")
  [ "$got" = "$want" ] || fail "after '$1': sampled rows differ"
}

statements=(
  "DELETE FROM %T WHERE id % 10 = 3"
  "UPDATE %T SET v = v * 2, tag = 'upd' WHERE id % 100 = 7"
  "UPDATE %T SET p = 9 WHERE id BETWEEN 1000 AND 1999"
  "DELETE FROM %T AS t USING src WHERE t.id = src.id AND src.op = 'd'"
  "MERGE INTO %T AS t USING src ON t.id = src.id WHEN MATCHED AND src.op = 'u' THEN UPDATE SET v = src.nv
     WHEN NOT MATCHED THEN INSERT VALUES (src.id + 1000000, 5, src.op, src.nv)"
  "DELETE FROM %T WHERE p = 5 AND id % 2 = 0"
)
for s in "${statements[@]}"; do
  before=$(snapshots td)
  floe -c "${s//%T/tl}" >/dev/null || fail "local: '$s' failed"
  floe_np 3 -c "${s//%T/td}" >/dev/null || fail "distributed: '$s' failed"
  same_rows "$s"
  after=$(snapshots td)
  [ "$after" = $((before + 1)) ] || fail "'$s' under mpirun made $((after - before)) snapshots, not 1"
done

# every position delete file names one data file; none names one twice
dup=$(floe -c "SELECT count(*) - count(DISTINCT file_path) FROM \"td\$files\" WHERE content = 1" | tail -1)
[ "$dup" = 0 ] || fail "delete file paths repeat: $dup"

# a cardinality violation found by a worker: nothing committed, no file left
floe -c "INSERT INTO src VALUES (37, 1.0, 'u')" >/dev/null # id 37 now has two source rows
before=$(snapshots td)
files_before=$(find "$tmp/wh" -path '*td/data*' -type f | wc -l)
set +e
err=$(floe_np 3 -c "MERGE INTO td USING src ON td.id = src.id WHEN MATCHED THEN UPDATE SET v = src.nv" 2>&1 >/dev/null)
rc=$?
set -e
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "a MERGE matching a row twice: exit $rc"
grep -q "cannot affect a row a second time" <<<"$err" || fail "cardinality error not reported: $err"
[ "$(snapshots td)" = "$before" ] || fail "a failed distributed MERGE committed"
files_after=$(find "$tmp/wh" -path '*td/data*' -type f | wc -l)
[ "$files_after" = "$files_before" ] || fail "a failed distributed MERGE left files ($files_before -> $files_after)"
echo "ok: ${#statements[@]} row-level statements under mpirun -np 3 equal local, one commit each"

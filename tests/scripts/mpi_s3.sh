#!/usr/bin/env bash
# The MPI runtime on S3 (s3rver, from npm under tests/peers): an Iceberg
# table with position deletes uploaded to the bucket is scanned under
# `mpirun -np 3` (workers read the files with the credentials the scan's
# FileIO carries) with the same rows as a local run; a partitioned INSERT
# into a table whose warehouse is on S3 writes from the workers and commits
# once on rank 0.  Skips when mpirun, node, s3rver or the test data are
# missing, except under CI=true.  With FLOE_MPI_RIG=netns the ranks run on
# three simulated hosts (tests/scripts/netns_rig.bash) and s3rver on host
# 1's address on their bridge, so every host reaches it over the network
# (exit 77 where the namespaces cannot be made).
set -euo pipefail
src=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bindir=${FLOE_BINARY_DIR:-$src/build/release}
FLOE_BIN=${FLOE_BIN:-$bindir/floe}
put=$bindir/s3_put_tree
data=${FLOE_TESTDATA:-${FLOE_TESTDATA_DEFAULT:-$src/../shared/testdata}}/duckdb__duckdb-iceberg

skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL: $*"; exit 1; fi
  echo "SKIP: $*"
  exit 0
}
command -v mpirun >/dev/null 2>&1 || skip "mpirun is not installed"
command -v node >/dev/null 2>&1 || skip "node is not installed"
[ -f "$src/tests/peers/node_modules/s3rver/package.json" ] ||
  skip "s3rver not installed under tests/peers/node_modules (run scripts/install-deps.sh)"
table=data/iceberg/generated_spec2_0_001/pyspark_iceberg_table
[ -d "$data/$table" ] || skip "test data not found at $data/$table (set FLOE_TESTDATA)"
for b in "$FLOE_BIN" "$put"; do
  [ -x "$b" ] || { echo "FAIL: $b not built"; exit 1; }
done

tmp=$(mktemp -d)
peer_pid=
cleanup() {
  [ -n "$peer_pid" ] && kill "$peer_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# FLOE_MPI_RIG=netns: the peer, the local runs and mpirun on host 1
rig=()
if [ "${FLOE_MPI_RIG:-}" = netns ]; then
  # shellcheck source=tests/scripts/netns_rig.bash
  source "$src/tests/scripts/netns_rig.bash"
  netns_rig_up
  rig=("$netns_rig_dir/on" 1)
  # shellcheck disable=SC2034 # read by s3_peer_start
  s3_peer_wrap=("${rig[@]}")
  export FLOE_TEST_S3_LISTEN=10.77.0.1
fi

bucket=floe-mpi
# shellcheck source=../peers/s3_peer.bash
source "$src/tests/peers/s3_peer.bash"
s3_peer_start "$bucket" floempi

${rig[@]+"${rig[@]}"} "$put" "$data/$table" "s3://$bucket/tables/posdel" >"$tmp/put.out" 2>&1 ||
  fail "uploading the table: $(cat "$tmp/put.out")"

mpi=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
[ ${#rig[@]} -gt 0 ] && mpi=("${netns_rig_mpi[@]}")
export LSAN_OPTIONS="suppressions=$src/tests/lsan-mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
asan_local=${ASAN_OPTIONS:-}
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
floe() { ASAN_OPTIONS=$asan_local ${rig[@]+"${rig[@]}"} "$FLOE_BIN" --format csv "$@"; }
floe_np() {
  local np=$1
  shift
  timeout 300 "${mpi[@]}" -np "$np" -x LSAN_OPTIONS -x ASAN_OPTIONS -x AWS_ENDPOINT_URL -x AWS_ACCESS_KEY_ID \
    -x AWS_SECRET_ACCESS_KEY -x AWS_REGION "$FLOE_BIN" --format csv "$@"
}

T="iceberg_scan('s3://$bucket/tables/posdel', allow_moved_paths => true)"
for q in "SELECT count(*) FROM $T" \
         "SELECT * FROM $T" \
         "SELECT l_partkey_int % 10 AS g, count(*), min(l_comment_string) FROM $T GROUP BY 1"; do
  want=$(floe --warehouse "$tmp/wh" -c "SET target_partitions = 4" -c "$q" | sort)
  [ -n "$want" ] || fail "local: $q printed nothing"
  got=$(floe_np 3 --warehouse "$tmp/wh" -c "SET target_partitions = 4" -c "$q" | sort) ||
    fail "-np 3 exited non-zero: $q"
  [ "$got" = "$want" ] || fail "-np 3 on S3 differs from local: $q"
done

# A partitioned table on S3, written by the workers.
cat=(--catalog "$tmp/cat.db" --warehouse "s3://$bucket/wh")
writes_unavailable() {
  [ "${CI:-}" = true ] && fail "$*"
  echo "note: $* — distributed writes to S3 not tested"
  echo "PASS (reads)"
  exit 0
}
floe "${cat[@]}" -c "CREATE TABLE t (id bigint NOT NULL, p int) PARTITIONED BY (p)" >/dev/null 2>&1 ||
  writes_unavailable "CREATE TABLE on an S3 warehouse fails locally"
if ! floe "${cat[@]}" -c "CREATE TABLE tl (id bigint NOT NULL, p int) PARTITIONED BY (p)" \
     -c "INSERT INTO tl SELECT x, CAST(x % 4 AS int) FROM generate_series(1, 20000) g(x)" >"$tmp/ins.out" 2>&1; then
  writes_unavailable "INSERT into an S3 warehouse fails locally: $(head -c 300 "$tmp/ins.out")"
fi
floe_np 3 "${cat[@]}" -c "INSERT INTO t SELECT x, CAST(x % 4 AS int) FROM generate_series(1, 20000) g(x)" \
  >/dev/null || fail "distributed INSERT on S3 exited non-zero"
want=$(floe "${cat[@]}" -c "SELECT p, count(*), sum(id) FROM tl GROUP BY p ORDER BY p")
got=$(floe "${cat[@]}" -c "SELECT p, count(*), sum(id) FROM t GROUP BY p ORDER BY p")
[ "$got" = "$want" ] || fail "distributed INSERT on S3 wrote other rows: $got"
got=$(floe "${cat[@]}" -c 'SELECT count(*) FROM "t$files"')
[ "$got" = "count
4" ] || fail "distributed INSERT on S3: files $got (want one per partition value)"
got=$(floe "${cat[@]}" -c 'SELECT count(*) FROM "t$snapshots"')
[ "$got" = "count
1" ] || fail "distributed INSERT on S3: snapshots $got"

echo "PASS"

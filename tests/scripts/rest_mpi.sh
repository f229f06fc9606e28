#!/usr/bin/env bash
# rest_mpi.sh — a REST catalog with vended S3 credentials under mpirun.
#
# `floe rest-server` keeps its tables on S3 (s3rver peer), requires OAuth2
# client credentials and vends the S3 keys.  `mpirun -np 3 floe --catalog
# rest:... --catalog-credential ...` runs with NO AWS_* credentials: rank 0
# authenticates and loads the tables; the workers write and read the files
# with the vended keys rank 0 ships them (the credential store).  An
# INSERT (written on the workers, committed once on rank 0) and a
# distributed count must give exactly the rows of a local run.  Skips when
# mpirun, node or s3rver are missing, except under CI=true.  With
# FLOE_MPI_RIG=netns the ranks run on three simulated hosts
# (tests/scripts/netns_rig.bash), s3rver and the rest-server on host 1's
# bridge address (exit 77 where the namespaces cannot be made).
set -euo pipefail
src=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bindir=${FLOE_BINARY_DIR:-$src/build/release}
FLOE_BIN=${FLOE_BIN:-$bindir/floe}

skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL: $*"; exit 1; fi
  echo "SKIP: $*"
  exit 0
}
command -v mpirun >/dev/null 2>&1 || skip "mpirun is not installed"
command -v node >/dev/null 2>&1 || skip "node is not installed"
[ -f "$src/tests/peers/node_modules/s3rver/package.json" ] ||
  skip "s3rver not installed under tests/peers/node_modules (run scripts/install-deps.sh)"
[ -x "$FLOE_BIN" ] || { echo "FAIL: $FLOE_BIN not built"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rest_mpi.XXXXXX")
peer_pid=
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=rest_server_lib.bash
. "$src/tests/scripts/rest_server_lib.bash"
cleanup() {
  rest_server_cleanup
  [ -n "$peer_pid" ] && kill "$peer_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# FLOE_MPI_RIG=netns: the peers, the local run and mpirun on host 1
rig=()
rest_host=()
if [ "${FLOE_MPI_RIG:-}" = netns ]; then
  # shellcheck source=tests/scripts/netns_rig.bash
  source "$src/tests/scripts/netns_rig.bash"
  netns_rig_up
  rig=("$netns_rig_dir/on" 1)
  # shellcheck disable=SC2034 # read by s3_peer_start and rest_server_start
  s3_peer_wrap=("${rig[@]}") rest_server_wrap=("${rig[@]}")
  export FLOE_TEST_S3_LISTEN=10.77.0.1
  rest_host=(--host 10.77.0.1)
fi

bucket=floe-rest-mpi
# shellcheck source=../peers/s3_peer.bash
source "$src/tests/peers/s3_peer.bash"
s3_peer_start "$bucket" restmpi
client_secret="cs-${rand}-mpi"
rest_server_start "s3://$bucket/wh" ${rest_host[@]+"${rest_host[@]}"} --catalog-db "$tmp/catalog.db" \
  --client-id mpi-client --client-secret "$client_secret" --token-lifetime 600 \
  --vend "s3.access-key-id=$AWS_ACCESS_KEY_ID" --vend "s3.secret-access-key=$secret" \
  --vend "s3.endpoint=$AWS_ENDPOINT_URL" --vend s3.path-style-access=true --credential-lifetime 600
endpoint=$AWS_ENDPOINT_URL
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_ENDPOINT_URL

mpi=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
[ ${#rig[@]} -gt 0 ] && mpi=("${netns_rig_mpi[@]}")
export LSAN_OPTIONS="suppressions=$src/tests/lsan-mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
cat_args=(--catalog "rest:$rest_url" --catalog-credential "mpi-client:$client_secret" --format csv)

FLOE_THREADS=1 timeout 300 "${mpi[@]}" -np 3 -x LSAN_OPTIONS -x ASAN_OPTIONS -x FLOE_THREADS "$FLOE_BIN" \
  "${cat_args[@]}" \
  -c "CREATE SCHEMA s" \
  -c "CREATE TABLE s.t (id bigint, v string) PARTITIONED BY (bucket(4, id))" \
  -c "INSERT INTO s.t SELECT i, 'v' || CAST(i % 7 AS varchar) FROM generate_series(1, 100000) AS g(i)" \
  -c "SELECT count(*) AS n, sum(id) AS s, count(DISTINCT v) AS d FROM s.t" \
  -c "EXPLAIN SELECT count(*) FROM s.t" >"$tmp/mpi.out" 2>"$tmp/mpi.err" ||
  fail "mpirun session failed: $(cat "$tmp/mpi.out" "$tmp/mpi.err" | tail -30)"
grep -qx '100000,5000050000,7' "$tmp/mpi.out" || fail "wrong distributed result: $(cat "$tmp/mpi.out")"
grep -q 'Distributed over 3 ranks' "$tmp/mpi.out" || fail "the query did not run on the workers: $(cat "$tmp/mpi.out")"
grep -q 'IcebergScan' "$tmp/mpi.out" || fail "no scan in EXPLAIN: $(cat "$tmp/mpi.out")"

# The same count in one local process.
timeout 120 ${rig[@]+"${rig[@]}"} "$FLOE_BIN" "${cat_args[@]}" -c "SELECT count(*) AS n, sum(id) AS s FROM s.t" >"$tmp/local.out" 2>&1 ||
  fail "local count: $(cat "$tmp/local.out")"
grep -qx '100000,5000050000' "$tmp/local.out" || fail "wrong local result: $(cat "$tmp/local.out")"

rest_server_stop
for f in "$tmp/mpi.out" "$tmp/mpi.err" "$rest_log"; do
  if grep -qF -- "$rand" "$f"; then fail "a secret appears in $f"; fi
done
echo "rest_mpi: ok (S3 via vended keys on 3 ranks, endpoint $endpoint)"

#!/usr/bin/env bash
# iceberg_s3_scan.sh — Iceberg tables on S3 read end to end, deletes included.
#
# Starts the s3rver peer (tests/peers/s3rver_launch.mjs: s3rver behind a
# SigV4-checking proxy on 127.0.0.1), copies test tables from the shared
# test data into its bucket with floe's own S3 client (tests/tools/
# s3_put_tree.c), then runs the same queries through `floe -c` against
# s3://bucket/... and against the local copy and requires identical output:
#   - position deletes (generated_spec2_0_001, Spark merge-on-read),
#   - equality deletes (equality_deletes/mytable, and a dropped key column),
#   - deletion vectors (legacy_bare_deletion_vector, and unknown_puffin,
#     whose manifest list records a manifest_length 42 bytes short: the
#     reader trusts recorded lengths first and re-reads at the real length),
#   - Hive-partitioned Parquet files through read_parquet ('**' over the
#     listing, partition columns, files pruned by them),
# each with several partitions and with FLOE_PLAN_ROUNDTRIP=1 (the scan node
# rebuilt from its parts, as a worker does, opening the table from its s3://
# metadata location).  S3 settings come from AWS_* variables only; the
# secret key is fresh and distinctive and must appear in no output (results,
# EXPLAIN, errors, debug logs).
# Skips when node, the s3rver peer or the test data is missing, except under
# CI=true, where that fails.
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
command -v node >/dev/null 2>&1 || skip "node is not installed"
[ -f "$src/tests/peers/node_modules/s3rver/package.json" ] ||
  skip "s3rver not installed under tests/peers/node_modules (run scripts/install-deps.sh)"
[ -d "$data/data/persistent" ] || skip "test data not found at $data (set FLOE_TESTDATA)"
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

# A fresh, distinctive secret: the proxy checks every signature with it.
bucket=floe-scan
# shellcheck source=../peers/s3_peer.bash
source "$src/tests/peers/s3_peer.bash"
s3_peer_start "$bucket" floescan

# name|path below the test data root
tables="
posdel|data/iceberg/generated_spec2_0_001/pyspark_iceberg_table
eqdel|data/persistent/equality_deletes/warehouse/mydb/mytable
eqdel_dropped|data/persistent/equality_delete_dropped_column/mytable
dv_legacy|data/persistent/legacy_bare_deletion_vector/warehouse/default/legacy_bare_deletion_vector
dv_puffin|data/persistent/unknown_puffin/namespace/test_table

"
for row in $tables; do
  name=${row%%|*}
  path=${row#*|}
  [ -d "$data/$path" ] || skip "test table $path missing"
  "$put" "$data/$path" "s3://$bucket/tables/$name" >"$tmp/put.out" 2>&1 ||
    fail "uploading $path: $(cat "$tmp/put.out")"
done

# Queries per table: {T} is replaced by the table function call.
queries_for() {
  case $1 in
    posdel) cat <<'EOF'
SELECT count(*) FROM {T}
SELECT * FROM {T}
SELECT l_partkey_int, l_comment_string FROM {T} WHERE l_partkey_int > 100
EOF
    ;;
    eqdel) cat <<'EOF'
SELECT count(*) FROM {T}
SELECT * FROM {T}
SELECT name FROM {T} WHERE id >= 4
EOF
    ;;
    *) cat <<'EOF'
SELECT count(*) FROM {T}
SELECT * FROM {T}
EOF
    ;;
  esac
}

# Run one query with floe; rows sorted (scan order is not fixed).
#   run OUT SQL [SETTING] — SETTING (a SET statement) runs first when given.
run() {
  local out=$1 sql=$2 setting=${3:-}
  local args=(--warehouse "$tmp/wh" --format csv)
  [ -z "$setting" ] || args+=(-c "$setting")
  args+=(-c "$sql")
  if ! "$FLOE_BIN" "${args[@]}" >"$out.raw" 2>"$out.err"; then
    echo "query failed: $sql" >&2
    cat "$out.err" >&2
    return 1
  fi
  { head -n 1 "$out.raw"; tail -n +2 "$out.raw" | LC_ALL=C sort; } >"$out"
}

n=0
for row in $tables; do
  name=${row%%|*}
  path=${row#*|}
  local_t="iceberg_scan('$data/$path', allow_moved_paths => true)"
  s3_t="iceberg_scan('s3://$bucket/tables/$name', allow_moved_paths => true)"
  while IFS= read -r q; do
    [ -n "$q" ] || continue
    n=$((n + 1))
    run "$tmp/local.$n" "${q//\{T\}/$local_t}" || fail "local query: $q on $name"
    [ -s "$tmp/local.$n" ] || fail "no output from the local query $q on $name"
    sql=${q//\{T\}/$s3_t}
    for mode in plain parts roundtrip; do
      case $mode in
        plain) run "$tmp/s3.$n.$mode" "$sql" ;;
        parts) run "$tmp/s3.$n.$mode" "$sql" "SET target_partitions = 3" ;;
        roundtrip) FLOE_PLAN_ROUNDTRIP=1 run "$tmp/s3.$n.$mode" "$sql" ;;
      esac || fail "S3 query ($mode): $q on $name"
      if ! cmp -s "$tmp/local.$n" "$tmp/s3.$n.$mode"; then
        echo "FAIL: $name ($mode): S3 and local results differ for: $q"
        diff "$tmp/local.$n" "$tmp/s3.$n.$mode" | head -20
        exit 1
      fi
    done
  done < <(queries_for "$name")
  echo "ok: $name ($(($(wc -l <"$tmp/local.$n") - 1)) rows in the last query) identical over S3 and locally"
done

# Hive-partitioned Parquet files over S3: `**` matched against the
# listing, the partition columns from the keys, pruning by them.
for k in 1 2 3; do
  "$FLOE_BIN" --warehouse "$tmp/wh" -c "COPY (SELECT x, x * 0.5 AS v FROM generate_series($k * 100, $k * 100 + 49) AS g(x))
    TO '$tmp/hive/k=$k/day=2024-01-0$k/f.parquet'" >/dev/null || fail "writing the Hive files"
done
"$put" "$tmp/hive" "s3://$bucket/hive" >"$tmp/put.out" 2>&1 || fail "uploading the Hive files: $(cat "$tmp/put.out")"
hive_local="read_parquet('$tmp/hive/**/*.parquet')"
hive_s3="read_parquet('s3://$bucket/hive/**/*.parquet')"
for q in "SELECT * FROM {T}" "SELECT k, day, count(*), sum(v) FROM {T} GROUP BY k, day" "SELECT x, k FROM {T} WHERE k >= 2 AND day < DATE '2024-01-03'"; do
  n=$((n + 1))
  run "$tmp/local.$n" "${q//\{T\}/$hive_local}" || fail "local Hive query: $q"
  for mode in plain parts roundtrip; do
    sql=${q//\{T\}/$hive_s3}
    case $mode in
      plain) run "$tmp/s3.$n.$mode" "$sql" ;;
      parts) run "$tmp/s3.$n.$mode" "$sql" "SET target_partitions = 3" ;;
      roundtrip) FLOE_PLAN_ROUNDTRIP=1 run "$tmp/s3.$n.$mode" "$sql" ;;
    esac || fail "S3 Hive query ($mode): $q"
    cmp -s "$tmp/local.$n" "$tmp/s3.$n.$mode" || { diff "$tmp/local.$n" "$tmp/s3.$n.$mode" | head; fail "S3 and local differ ($mode): $q"; }
  done
done
[ "$(tail -n +2 "$tmp/local.$n" | wc -l)" = 50 ] || fail "the pruned Hive query read $(tail -n +2 "$tmp/local.$n" | wc -l) rows, not 50"
run "$tmp/explain.hive" "EXPLAIN SELECT x FROM read_parquet('s3://$bucket/hive/**/*.parquet') WHERE k = 3" || fail "EXPLAIN of the Hive scan"
grep -q "k=3/day=2024-01-03/f.parquet" "$tmp/explain.hive" && ! grep -q "k=1/" "$tmp/explain.hive" ||
  fail "the Hive scan over S3 does not drop the other partitions: $(cat "$tmp/explain.hive")"
echo "ok: Hive-partitioned read_parquet identical over S3 and locally"

# The expected row counts, so identical-but-wrong output cannot pass.
expect_count() {
  local name=$1 want=$2
  run "$tmp/count.$name" "SELECT count(*) FROM iceberg_scan('s3://$bucket/tables/$name', allow_moved_paths => true)" ||
    fail "count of $name"
  got=$(tail -n 1 "$tmp/count.$name")
  [ "$got" = "$want" ] || fail "$name over S3: count $got, expected $want"
}
expect_count eqdel 2
expect_count dv_legacy 2

# The files really came from S3: the proxy counted GETs of data files.
gets=$(curl -s "http://127.0.0.1:$port/__floe/count?key=/tables/posdel/data/&method=GET" 2>/dev/null ||
       node -e "fetch('http://127.0.0.1:$port/__floe/count?key=/tables/posdel/data/&method=GET').then(r=>r.text()).then(t=>console.log(t))")
[ "${gets:-0}" -gt 0 ] || fail "the proxy saw no GET of posdel's data files (got '${gets:-}')"

# EXPLAIN, a failing read and a debug log must not show the secret.
run "$tmp/explain" "EXPLAIN SELECT * FROM iceberg_scan('s3://$bucket/tables/eqdel', allow_moved_paths => true)" ||
  fail "EXPLAIN over S3"
grep -q "s3://$bucket/tables/eqdel" "$tmp/explain" || fail "EXPLAIN does not name the S3 table: $(cat "$tmp/explain")"
if "$FLOE_BIN" --warehouse "$tmp/wh" -c "SELECT * FROM iceberg_scan('s3://$bucket/tables/missing', allow_moved_paths => true)" \
  >"$tmp/missing.out" 2>&1; then
  fail "reading a missing S3 table succeeded"
fi
grep -q "Error" "$tmp/missing.out" || fail "no error for a missing S3 table: $(cat "$tmp/missing.out")"
FLOE_LOG=debug "$FLOE_BIN" --warehouse "$tmp/wh" -c "SELECT count(*) FROM iceberg_scan('s3://$bucket/tables/dv_legacy', allow_moved_paths => true)" \
  >"$tmp/debug.out" 2>&1 || fail "debug run: $(tail -n 5 "$tmp/debug.out")"
for f in "$tmp"/*; do
  [ -f "$f" ] || continue
  if grep -qF -- "$rand" "$f"; then
    echo "FAIL: the secret key leaked into $(basename "$f"):"
    grep -nF -- "$rand" "$f" | head -3 | sed "s/$rand/<RAND>/g"
    exit 1
  fi
done
echo "ok: $n queries x 3 modes identical; no secret in any output"

#!/usr/bin/env bash
# Compaction: CALL system.rewrite_data_files as Spark / Iceberg Java define
# it.  A table of 40 small appends compacts to one file per partition with
# the same rows (sorted full content and aggregates before and after) and a
# "replace" snapshot; after row-level DELETEs (position deletes in v2,
# deletion vectors in v3) compaction leaves no live delete file, and DuckDB
# reading the new data files with read_parquet agrees with floe's scan;
# `where` rewrites only the partitions it may match; the bin-pack rules
# (min-input-files, file size bounds, delete-file-threshold, rewrite-all);
# partial progress commits several times; a DELETE committed while the
# rewrite runs (FLOE_TEST_COMMIT_BARRIER) is refused as a conflict with
# nothing committed and no file left behind, an INSERT is committed on
# top; option errors as Java reports them; under `mpirun -np 3` one commit
# and the same rows and counts as locally.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:?FLOE_SOURCE_DIR not set}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sql_compaction.XXXXXX")
BPID=
cleanup() {
  [ -n "$BPID" ] && kill "$BPID" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
W=$TMP/wh
fail() { echo "FAIL: $*"; exit 1; }
floe() { "$FLOE_BIN" --warehouse "$W" --format csv "$@"; }
q() { floe -c "$1" | tail -n +2; }
expect() { # expect ACTUAL EXPECTED WHAT
  [ "$1" = "$2" ] || fail "$3: expected [$2], got [$1]"
}
expect_error() { # expect_error SQL TEXT
  local out
  if out=$(floe -c "$1" 2>&1); then fail "no error for: $1"; fi
  case "$out" in *"$2"*) ;; *) fail "error for [$1] lacks [$2]: $out" ;; esac
}
nfiles() { q "SELECT count(*) FROM $1\$files WHERE content = ${2:-0}"; }
nsnaps() { q "SELECT count(*) FROM $1\$snapshots"; }
content() { q "SELECT * FROM $1 ORDER BY id"; }
aggs() { q "SELECT count(*), sum(id), sum(p), min(s), max(s), sum(v) FROM $1"; }

# make TABLE VERSION: 40 appends of 5 rows over 4 partitions
make() {
  local sql="CREATE TABLE $1 (id bigint, p int, s varchar, v double) PARTITIONED BY (p)
             WITH ('format-version' = '$2');"
  for i in $(seq 0 39); do
    sql="$sql INSERT INTO $1 SELECT $i * 5 + x, CAST($i % 4 AS int), 's' || CAST(($i * 5 + x) % 9 AS varchar),
         ($i * 5 + x) * 0.25 FROM generate_series(1, 5) g(x);"
  done
  floe -c "CREATE SCHEMA IF NOT EXISTS db; $sql" >/dev/null
}

# ---- 40 small appends compact to one file per partition, same rows
make db.t 2
expect "$(nfiles db.t)" "40" "files before"
before=$(content db.t)
agg_before=$(aggs db.t)
snaps=$(nsnaps db.t)
expect "$(q "CALL system.rewrite_data_files(table => 'db.t')" | cut -d, -f1,2,4,5)" "40,4,0,0" "result row"
expect "$(nfiles db.t)" "4" "files after"
expect "$(q "SELECT count(DISTINCT partition.p) FROM db.t\$files")" "4" "one file per partition"
expect "$(content db.t)" "$before" "rows after compaction"
expect "$(aggs db.t)" "$agg_before" "aggregates after compaction"
expect "$(nsnaps db.t)" "$((snaps + 1))" "one snapshot"
expect "$(q "SELECT operation FROM db.t\$snapshots ORDER BY committed_at DESC LIMIT 1")" "replace" "operation"
summary=$(q "SELECT summary FROM db.t\$snapshots ORDER BY committed_at DESC LIMIT 1")
case "$summary" in *'"added-data-files"":""4"'*'"deleted-data-files"":""40"'*) ;;
  *) fail "replace summary: $summary" ;; esac
# rewritten_bytes_count: the bytes the removed files had
bytes=$(q "CALL system.rewrite_data_files(table => 'db.t', options => map('rewrite-all', 'true'))" | cut -d, -f3)
expect "$bytes" "$(q "SELECT sum(file_size_in_bytes) FROM db.t\$files FOR VERSION AS OF
  $(q "SELECT parent_id FROM db.t\$snapshots ORDER BY committed_at DESC LIMIT 1")")" "rewritten_bytes_count"
# nothing to do: one file per partition, no snapshot
snaps=$(nsnaps db.t)
expect "$(q "CALL system.rewrite_data_files('db.t')")" "0,0,0,0,0" "nothing to rewrite"
expect "$(nsnaps db.t)" "$snaps" "no snapshot when nothing is rewritten"
expect "$(content db.t)" "$before" "rows after rewrite-all"

# ---- after row-level DELETEs: no live delete file; DuckDB agrees
check_deletes() { # TABLE VERSION
  make "$1" "$2"
  floe -c "DELETE FROM $1 WHERE id % 7 = 0; DELETE FROM $1 WHERE id % 11 = 0" >/dev/null
  [ "$(nfiles "$1" 1)" -gt 0 ] || fail "$1: the DELETEs wrote no position deletes"
  local want
  want=$(content "$1")
  floe -c "CALL system.rewrite_data_files(table => '$1')" >/dev/null
  expect "$(nfiles "$1" 1)" "0" "$1: delete files after compaction"
  expect "$(q "SELECT count(*) FROM $1\$files WHERE content <> 0")" "0" "$1: no delete files at all"
  expect "$(content "$1")" "$want" "$1: rows after compaction"
  expect "$(q "SELECT count(*) FROM $1 WHERE id % 7 = 0 OR id % 11 = 0")" "0" "$1: deleted rows stay deleted"
  if command -v node >/dev/null && [ -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ]; then
    local files
    files=$(q "SELECT '''' || file_path || '''' FROM $1\$files WHERE content = 0" | paste -sd, -)
    cat > "$TMP/duck.mjs" <<JS
import { DuckDBInstance } from '$SRC/tests/peers/duckdb.mjs';
const con = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
const r = await con.runAndReadAll("SELECT id, p, s, CAST(v * 4 AS BIGINT) FROM read_parquet([$files]) ORDER BY id");
for (const row of r.getRows()) console.log(row.map(String).join(','));
JS
    local duck
    duck=$(node "$TMP/duck.mjs") || fail "$1: DuckDB could not read the new data files"
    # v in quarters: the two print doubles differently (1 / 1.0)
    expect "$duck" "$(q "SELECT id, p, s, CAST(v * 4 AS bigint) FROM $1 ORDER BY id")" \
      "$1: DuckDB read_parquet of the new files"
  elif [ "${CI:-}" = true ]; then
    fail "DuckDB peer missing under CI=true"
  fi
}
check_deletes db.d2 2
check_deletes db.d3 3

# ---- where: only the partitions it may match
make db.w 2
other=$(q "SELECT file_path FROM db.w\$files WHERE partition.p <> 1 ORDER BY 1")
expect "$(q "CALL system.rewrite_data_files(table => 'db.w', \"where\" => 'p = 1 AND id > 0')" | cut -d, -f1,2)" \
  "10,1" "where result"
expect "$(q "SELECT file_path FROM db.w\$files WHERE partition.p <> 1 ORDER BY 1")" "$other" "other partitions untouched"
expect "$(q "SELECT count(*) FROM db.w\$files WHERE partition.p = 1")" "1" "partition 1 compacted"
expect "$(q "CALL system.rewrite_data_files(table => 'db.w', \"where\" => 'p = 42')")" "0,0,0,0,0" "where matching nothing"
expect "$(q "CALL system.rewrite_data_files(table => 'db.w', \"where\" => 'false')")" "0,0,0,0,0" "where false"
expect_error "CALL system.rewrite_data_files(table => 'db.w', \"where\" => 'nope = 1')" "where 'nope = 1'"
expect_error "CALL system.rewrite_data_files(table => 'db.w', \"where\" => 'length(s) + id > 3')" \
  "cannot select files by it"

# ---- the bin-pack rules
# a partition with fewer than min-input-files small files is left alone
make db.b 2
expect "$(q "CALL system.rewrite_data_files(table => 'db.b', options => map('min-input-files', '11'))")" "0,0,0,0,0" \
  "min-input-files above the group size"
expect "$(q "CALL system.rewrite_data_files(table => 'db.b', options => map('min-input-files', '10'))" | cut -d, -f1,2)" \
  "40,4" "min-input-files equal to the group size"
# a group of one file is rewritten only when it is too large or has deletes
expect "$(q "CALL system.rewrite_data_files(table => 'db.b', options => map('min-input-files', '1'))")" "0,0,0,0,0" \
  "one file per partition"
floe -c "DELETE FROM db.b WHERE id = 3" >/dev/null
expect "$(q "CALL system.rewrite_data_files(table => 'db.b', options => map('delete-file-threshold', '1'))" | cut -d, -f1,2,5)" \
  "1,1,1" "delete-file-threshold"
# files larger than max-file-size-bytes are split: target 1 KiB
expect "$(q "CALL system.rewrite_data_files(table => 'db.b', options => map('target-file-size-bytes', '1000',
  'min-file-size-bytes', '10', 'max-file-size-bytes', '1100'))" | cut -d, -f1)" "4" "too large files rewritten"
expect "$(aggs db.b)" "$(q "SELECT count(*), sum(id), sum(p), min(s), max(s), sum(v) FROM db.t WHERE id <> 3")" \
  "rows after the bin-pack rules"

# ---- partial progress: groups spread over several commits (largest first)
make db.pp 2
floe -c "INSERT INTO db.pp VALUES (1001, 3, 'x', 0.5), (1002, 3, 'y', 1.5)" >/dev/null
agg_pp=$(aggs db.pp)
snaps=$(nsnaps db.pp)
head_pp=$(q "SELECT snapshot_id FROM db.pp\$snapshots ORDER BY committed_at DESC LIMIT 1")
expect "$(q "CALL system.rewrite_data_files(table => 'db.pp', options => map('partial-progress.enabled', 'true',
  'partial-progress.max-commits', '4', 'rewrite-job-order', 'files-desc'))" | cut -d, -f1,2)" "41,4" \
  "partial progress result"
expect "$(nsnaps db.pp)" "$((snaps + 4))" "partial progress: four commits"
expect "$(q "SELECT summary FROM db.pp\$snapshots WHERE parent_id = $head_pp" |
  grep -o '"deleted-data-files"":""[0-9]*')" '"deleted-data-files"":""11' "files-desc: the largest group first"
expect "$(aggs db.pp)" "$agg_pp" "partial progress rows"

# ---- strategy => 'sort': each group sorted, by sort_order or the table's order
file_rows() { # TABLE COLUMNS: each data file's rows in file order, one line per file
  local f
  for f in $(q "SELECT file_path FROM $1\$files WHERE content = 0 ORDER BY partition.p"); do
    q "SELECT $2 FROM read_parquet('$f')" | tr '\n' ' '
    echo
  done
}
floe -c "CREATE TABLE db.s (a int, b varchar, p int) PARTITIONED BY (p);
  INSERT INTO db.s VALUES (3, 'c', 0), (NULL, 'n', 0); INSERT INTO db.s VALUES (1, 'a', 0), (5, NULL, 1);
  INSERT INTO db.s VALUES (2, 'b', 1), (4, 'd', 1)" >/dev/null
expect "$(q "CALL system.rewrite_data_files(table => 'db.s', strategy => 'sort', sort_order => 'a DESC NULLS LAST',
  options => map('rewrite-all', 'true'))" | cut -d, -f2)" "2" "sort result"
expect "$(file_rows db.s a)" "$(printf '3 1  \n5 4 2 \n')" "sorted by a DESC NULLS LAST"
expect "$(q "SELECT DISTINCT sort_order_id FROM db.s\$files")" "0" "an order the table lacks is not recorded"
floe -c "ALTER TABLE db.s WRITE ORDERED BY b ASC NULLS LAST" >/dev/null
floe -c "CALL system.rewrite_data_files(table => 'db.s', strategy => 'sort', options => map('rewrite-all', 'true'))" >/dev/null
expect "$(file_rows db.s b)" "$(printf 'a c n \nb d  \n')" "sorted by the table's order"
expect "$(q "SELECT DISTINCT sort_order_id FROM db.s\$files")" "1" "the table's order is recorded"
expect "$(q "SELECT count(*), sum(a), min(b), max(b) FROM db.s")" "6,15,a,n" "rows after sorting"
# zorder(a, b): rows in Z-order of (a, b)
floe -c "CREATE TABLE db.z (a int, b int); INSERT INTO db.z SELECT x % 4, x / 4 FROM generate_series(0, 7) g(x);
  INSERT INTO db.z SELECT x % 4, x / 4 FROM generate_series(8, 15) g(x)" >/dev/null
floe -c "CALL system.rewrite_data_files(table => 'db.z', sort_order => 'zorder(a, b)',
  options => map('rewrite-all', 'true'))" >/dev/null
f=$(q "SELECT file_path FROM db.z\$files")
expect "$(q "SELECT a || ':' || b FROM read_parquet('$f')" | tr '\n' ' ')" \
  "0:0 0:1 1:0 1:1 0:2 0:3 1:2 1:3 2:0 2:1 3:0 3:1 2:2 2:3 3:2 3:3 " "zorder(a, b)"
expect "$(q "SELECT iceberg_zorder(1, 2), iceberg_zorder(-1)")" "\\xc0000000000000000000000000000006,\\x7fffffffffffffff" \
  "iceberg_zorder bytes"
expect_error "CALL system.rewrite_data_files(table => 'db.z', sort_order => 'zorder(a, nope)')" "cannot find field 'nope'"
expect_error "CALL system.rewrite_data_files(table => 'db.z', strategy => 'binpack', sort_order => 'a')" \
  "Cannot set sort_order with the binpack strategy"

# ---- Trino: ALTER TABLE t EXECUTE optimize[(file_size_threshold => ...)]
make db.o 2
want=$(content db.o)
expect "$(q "ALTER TABLE db.o EXECUTE optimize(file_size_threshold => '10MB')" | cut -d, -f1,2)" "40,4" "optimize"
expect "$(content db.o)" "$want" "rows after optimize"
floe -c "INSERT INTO db.o VALUES (1001, 1, 'x', 1.0); DELETE FROM db.o WHERE id = 1002 OR id = 5" >/dev/null
want=$(content db.o)
# under a 1-byte threshold only the file with a delete is rewritten
expect "$(q "ALTER TABLE db.o EXECUTE optimize('1B')" | cut -d, -f1,2,5)" "1,1,1" "optimize: the file with deletes"
expect "$(nfiles db.o 1)" "0" "optimize: no delete files"
expect "$(q "ALTER TABLE db.o EXECUTE optimize" | cut -d, -f1,2)" "2,1" "optimize: the two small files"
expect "$(content db.o)" "$want" "rows after the second optimize"
expect_error "ALTER TABLE db.o EXECUTE optimize(file_size_threshold => '10 parsecs')" "invalid data size '10 parsecs'"
expect_error "ALTER TABLE db.o EXECUTE vacuum" "unknown table procedure 'vacuum'"

# ---- errors as Java reports them
expect_error "CALL system.rewrite_data_files(table => 'db.t', options => map('bogus', '1'))" \
  "Cannot use options [bogus], they are not supported"
expect_error "CALL system.rewrite_data_files(table => 'db.t', options => map('min-file-size-bytes', '600000000'))" \
  "must be > 'min-file-size-bytes'"
expect_error "CALL system.rewrite_data_files(table => 'db.t', options => map('min-input-files', '0'))" \
  "'min-input-files' is set to 0 but must be > 0"
expect_error "CALL system.rewrite_data_files(table => 'db.t', strategy => 'magic')" "unsupported strategy: magic"
expect_error "CALL system.rewrite_data_files(table => 'db.t', options => map('rewrite-job-order', 'bogus'))" \
  "Invalid rewrite job order name: bogus"
floe -c "CREATE TABLE db.e (a int)" >/dev/null
expect "$(q "CALL system.rewrite_data_files(table => 'db.e')")" "0,0,0,0,0" "empty table"
expect_error "CALL system.rewrite_data_files(table => 'db.nope')" "db.nope"
expect_error "CALL system.rewrite_data_files(table => 'db.t', strategy => 'sort')" \
  "Cannot sort data without a valid sort order"

# ---- rewrite_manifests: the manifests clustered by partition, sized by
# commit.manifest.target-size-bytes; python3-avro reads them
make db.m 2
floe -c "DELETE FROM db.m WHERE id % 5 = 0" >/dev/null
nman=$(q "SELECT count(*) FROM db.m\$manifests WHERE content = 0")
want=$(content db.m)
expect "$(q "CALL system.rewrite_manifests('db.m')")" "$nman,1" "rewrite_manifests result"
expect "$(content db.m)" "$want" "rows after rewrite_manifests"
expect "$(q "SELECT operation FROM db.m\$snapshots ORDER BY committed_at DESC LIMIT 1")" "replace" "manifests: replace"
summary=$(q "SELECT summary FROM db.m\$snapshots ORDER BY committed_at DESC LIMIT 1")
case "$summary" in *'"manifests-created"":""1"'*'"manifests-replaced"":""'"$nman"'"'*'"entries-processed"":""40"'*) ;;
  *) fail "rewrite_manifests summary: $summary" ;; esac
floe -c "ALTER TABLE db.m SET ('commit.manifest.target-size-bytes' = '1')" >/dev/null
expect "$(q "CALL system.rewrite_manifests(table => 'db.m', use_caching => false)")" "1,40" "one entry per manifest"
floe -c "ALTER TABLE db.m SET ('commit.manifest.target-size-bytes' = '3500')" >/dev/null
floe -c "CALL system.rewrite_manifests(table => 'db.m')" >/dev/null
expect "$(content db.m)" "$want" "rows after sized rewrite_manifests"
# every manifest: EXISTING entries of one partition range, partitions in
# order across manifests, as many live files as $files lists
/usr/bin/python3 -W ignore - "$W/db/m" "$(nfiles db.m)" <<'PY' || fail "python3-avro check of the rewritten manifests"
import glob, json, sys
import avro.datafile, avro.io
table, want = sys.argv[1], int(sys.argv[2])
def rows(path):
    with open(path.replace("file:", ""), "rb") as f:
        return list(avro.datafile.DataFileReader(f, avro.io.DatumReader()))
meta = max(glob.glob(table + "/metadata/*.metadata.json"))
md = json.load(open(meta))
snap = [s for s in md["snapshots"] if s["snapshot-id"] == md["current-snapshot-id"]][0]
ranges, live = [], 0
for m in rows(snap["manifest-list"]):
    if m["content"] != 0:
        continue
    ps = []
    for e in rows(m["manifest_path"]):
        assert e["status"] == 0, "entry status %r" % e["status"]
        assert e["snapshot_id"] is not None and e["sequence_number"] is not None
        ps.append(e["data_file"]["partition"]["p"])
        live += 1
    assert ps == sorted(ps), "entries not clustered: %r" % ps
    ranges.append((min(ps), max(ps)))
ranges.sort()
for a, b in zip(ranges, ranges[1:]):
    assert a[1] <= b[0], "manifests overlap: %r" % ranges
assert len(ranges) > 1, "expected several manifests, got %r" % ranges
assert live == want, "live entries %d, $files %d" % (live, want)
PY
expect_error "CALL system.rewrite_manifests('db.nothing_here')" "nothing_here"
floe -c "CREATE TABLE db.empty (a int)" >/dev/null
expect "$(q "CALL system.rewrite_manifests('db.empty')")" "0,0" "rewrite_manifests of an empty table"

# ---- a concurrent DELETE of rewritten rows is a conflict; an INSERT is not
run_b() { # SQL: start it in the background, stopped at its commit barrier
  rm -f "$TMP/go" "$TMP/go.waiting"
  FLOE_TEST_COMMIT_BARRIER="$TMP/go" "$FLOE_BIN" --warehouse "$W" --format csv -c "$1" >"$TMP/b.out" 2>"$TMP/b.err" &
  BPID=$!
  for _ in $(seq 1 1200); do
    [ -e "$TMP/go.waiting" ] && return 0
    kill -0 "$BPID" 2>/dev/null || { cat "$TMP/b.err"; fail "the rewrite ended before its commit"; }
    sleep 0.05
  done
  fail "the rewrite never reached its commit"
}
finish_b() {
  touch "$TMP/go"
  local rc=0
  wait "$BPID" || rc=$?
  BPID=
  return $rc
}
data_files() { find "$W/db/$1/data" -type f -name '*.parquet' | sort; }
make db.c 2
files_before=$(data_files c)
run_b "CALL system.rewrite_data_files(table => 'db.c')"
floe -c "DELETE FROM db.c WHERE id = 17" >/dev/null
snaps=$(nsnaps db.c)
want=$(content db.c)
if finish_b; then fail "the rewrite committed over a concurrent DELETE"; fi
grep -q "conflict" "$TMP/b.err" || fail "conflict error: $(cat "$TMP/b.err")"
grep -q "added delete file" "$TMP/b.err" || fail "conflict error names the delete file: $(cat "$TMP/b.err")"
expect "$(nsnaps db.c)" "$snaps" "nothing committed after the conflict"
expect "$(content db.c)" "$want" "rows after the refused rewrite"
# the rewrite's own files are gone again: only the DELETE's delete file is new
expect "$(comm -13 <(echo "$files_before") <(data_files c) | grep -vc -- '-deletes' || true)" "0" \
  "files left by the refused rewrite"
run_b "CALL system.rewrite_data_files(table => 'db.c')"
floe -c "INSERT INTO db.c VALUES (1000, 1, 'new', 1.5)" >/dev/null
finish_b || fail "the rewrite failed over a concurrent INSERT: $(cat "$TMP/b.err")"
expect "$(q "SELECT count(*) FROM db.c WHERE id = 1000")" "1" "the concurrent INSERT's row"
expect "$(q "SELECT count(*) FROM db.c")" "$(( $(echo "$want" | wc -l) + 1 ))" "rows after rewrite on top of INSERT"
expect "$(nfiles db.c 1)" "0" "the DELETE's delete file was compacted away"

# ---- under mpirun -np 3: one commit, the same rows and counts as locally
if command -v mpirun >/dev/null 2>&1; then
  mpi=(mpirun --oversubscribe -np 3 -x LSAN_OPTIONS -x ASAN_OPTIONS)
  [ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
  export LSAN_OPTIONS="suppressions=$SRC/tests/lsan-mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  fm() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0" timeout 300 "${mpi[@]}" \
           "$FLOE_BIN" --warehouse "$W" --format csv -c "$1" | tail -n +2; }
  make db.ml 2
  make db.md 2
  floe -c "DELETE FROM db.ml WHERE id % 13 = 0; DELETE FROM db.md WHERE id % 13 = 0" >/dev/null
  snaps=$(nsnaps db.md)
  local_row=$(q "CALL system.rewrite_data_files(table => 'db.ml')")
  dist_row=$(fm "CALL system.rewrite_data_files(table => 'db.md')")
  expect "$(echo "$dist_row" | cut -d, -f1,2,4,5)" "$(echo "$local_row" | cut -d, -f1,2,4,5)" "mpirun: result row"
  expect "$(nsnaps db.md)" "$((snaps + 1))" "mpirun: one commit"
  expect "$(content db.md)" "$(content db.ml)" "mpirun: rows"
  expect "$(nfiles db.md)" "4" "mpirun: files"
  expect "$(nfiles db.md 1)" "0" "mpirun: delete files"
elif [ "${CI:-}" = true ]; then
  fail "mpirun is not installed"
fi
echo "OK"

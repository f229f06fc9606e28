#!/usr/bin/env bash
# The MPI runtime on three simulated hosts (tests/scripts/netns_rig.bash:
# one network namespace and hostname per host, a private bridge, Open
# MPI's launcher entering the namespaces instead of ssh, TCP only): the
# distributed suite's core cases give what `floe -c` alone gives —
# queries over Parquet files, a warehouse Iceberg table and the test
# data's lineitem table (GROUP BY, joins, ORDER BY, windows, DISTINCT),
# a partitioned INSERT (writers on every host, one commit), row-level
# DELETE / UPDATE / MERGE (one commit each) and rewrite_data_files
# (one replace snapshot).  The ranks run on hosts floe-h1..3 (a hanging
# job ends at the rig's timeout, leaving nothing on them) and the
# exchanges cross the bridge (byte counters of the hosts' links).  A
# path only host 1 sees (NETNS_RIG_HIDE: a Parquet file, an Iceberg
# table's metadata) fails a query — and an INSERT, which then commits
# nothing and writes no file — before any task runs, naming the rank, its
# host and the path.
#
# Exits 77 (ctest's skip) when the namespaces cannot be made — no
# CAP_SYS_ADMIN or no iproute2 — also under CI=true; missing mpirun or
# test data fail under CI=true as in the other MPI tests.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
FLOE_SOURCE_DIR=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/scripts/mpi_lib.bash
source "$FLOE_SOURCE_DIR/tests/scripts/mpi_lib.bash"
if [ -z "${netns_rig_dir:-}" ]; then # (not made already by FLOE_MPI_RIG=netns)
  # shellcheck source=tests/scripts/netns_rig.bash
  source "$FLOE_SOURCE_DIR/tests/scripts/netns_rig.bash"
  netns_rig_up
fi

# floe_hosts [NAME[=VALUE]...] -- ARGS...: floe on the three hosts, one rank
# each (the NAMEs passed to every rank with -x)
floe_hosts() {
  local pass=(-x LSAN_OPTIONS -x ASAN_OPTIONS)
  while [ "$1" != -- ]; do pass+=(-x "$1"); shift; done
  shift
  netns_rig_mpirun -np 3 "${pass[@]}" "$FLOE_BIN" --warehouse "$tmp/wh" --format csv "$@"
}

# ---- the hosts: one rank on each, each with its own name ---------------------
got=$(netns_rig_mpirun -np 3 hostname | sort | tr '\n' ' ')
[ "$got" = "floe-h1 floe-h2 floe-h3 " ] || fail "ranks' hostnames: '$got' (want floe-h1 floe-h2 floe-h3)"
# a job that hangs is ended by the rig's timeout (its SIGTERM reaches
# mpirun itself), and nothing stays behind on hosts 2 and 3
rc=0
NETNS_RIG_TIMEOUT=2 netns_rig_mpirun -np 3 sleep 60 || rc=$?
[ "$rc" = 124 ] || fail "a hanging job under the rig's timeout: exit $rc"
for _ in $(seq 1 50); do
  left=$(ip netns pids "$netns_rig_id-h2"; ip netns pids "$netns_rig_id-h3")
  [ -z "$left" ] && break
  sleep 0.2
done
[ -z "$left" ] || fail "a timed-out job left processes on hosts 2 and 3: $left"

# ---- data: Parquet files, a dimension, a warehouse Iceberg table -------------
floe -c "COPY (SELECT x AS id, x % 97 AS k, CAST(x % 13 AS varchar) AS tag, x * 0.5 AS v
               FROM generate_series(1, 40000) t(x)) TO '$tmp/f1.parquet'" >/dev/null
floe -c "COPY (SELECT x AS id, NULL::bigint AS k, 'z' AS tag, x * 0.5 AS v
               FROM generate_series(40001, 45000) t(x)) TO '$tmp/f2.parquet'" >/dev/null
floe -c "COPY (SELECT x AS k, 'name' || CAST(x AS varchar) AS name FROM generate_series(0, 60) t(x))
         TO '$tmp/dim.parquet'" >/dev/null
fact="read_parquet('$tmp/f*.parquet')"
dim="read_parquet('$tmp/dim.parquet')"
floe -c "CREATE TABLE ev (id bigint NOT NULL, p int, tag varchar, v double) PARTITIONED BY (p)" >/dev/null
for part in 0 1 2; do
  floe -c "INSERT INTO ev SELECT x, CAST(x % 4 AS int), 't' || CAST(x % 7 AS varchar), x * 0.25
           FROM generate_series($part * 10000 + 1, $part * 10000 + 10000) g(x)" >/dev/null
done

# Queries; "@o " before one whose rows are compared in order (unique keys).
queries=(
  "SELECT tag, count(*), sum(v), min(id), max(id), avg(k) FROM $fact GROUP BY tag"
  "@o SELECT k, tag, id FROM $fact ORDER BY k NULLS FIRST, tag, id LIMIT 40"
  "SELECT d.name, count(*) FROM $fact f JOIN $dim d ON f.k = d.k GROUP BY d.name"
  "SELECT count(*), sum(a.v + b.v) FROM $fact a JOIN $fact b ON a.id = b.id + 1"
  "SELECT DISTINCT tag FROM $fact"
  "SELECT k, id, row_number() OVER (PARTITION BY k ORDER BY id), sum(v) OVER (PARTITION BY k ORDER BY id
     ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM $fact WHERE id % 500 = 3"
  "SELECT p, count(*), sum(id), min(tag), max(v) FROM ev GROUP BY p"
  "SELECT id, p, tag FROM ev WHERE p = 2 AND id % 1000 = 6"
  "@o SELECT e.id, e.tag, f.tag FROM ev e JOIN $fact f ON e.id = f.id WHERE e.id % 997 = 0 ORDER BY e.id"
)
td=${FLOE_TESTDATA:-${FLOE_TESTDATA_DEFAULT:-$FLOE_SOURCE_DIR/../shared/testdata}}
li="$td/duckdb__duckdb-iceberg/data/persistent/iceberg/lineitem_iceberg"
if [ -d "$li" ]; then
  ice="iceberg_scan('$li', allow_moved_paths => true)"
  queries+=(
    "SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity), sum(l_extendedprice), avg(l_discount)
       FROM $ice WHERE l_shipdate <= date '1998-09-02' GROUP BY 1, 2"
    "@o SELECT l_orderkey, l_linenumber, l_quantity FROM $ice WHERE l_quantity > 49 ORDER BY l_orderkey, l_linenumber"
  )
elif [ "${CI:-}" = true ]; then
  fail "test data not found at $td"
else
  echo "note: lineitem queries skipped (no test data at $td)"
fi

# One script for all queries (one mpirun), a separator row after each; a
# segment is compared sorted (header first) unless its query is "@o".
script="$tmp/queries.sql"
: >"$script"
ordered=()
for q in "${queries[@]}"; do
  if [ "${q#@o }" != "$q" ]; then ordered+=(yes); else ordered+=(no); fi
  printf '%s;\nSELECT %s AS sep;\n' "${q#@o }" "'@@'" >>"$script"
done
canon() {
  local i=0 seg=""
  while IFS= read -r line; do
    if [ "$line" = "@@" ]; then
      if [ "${ordered[$i]}" = yes ]; then printf '%s' "$seg"; else
        printf '%s' "$seg" | { IFS= read -r h; echo "$h"; sort; }; fi
      echo "== end of query $i"
      i=$((i + 1))
      seg=""
    elif [ "$line" != "sep" ]; then
      seg+="$line"$'\n'
    fi
  done
}
want=$(floe -f "$script" | canon)
[ "$(grep -c '^== end' <<<"$want")" = "${#queries[@]}" ] || fail "local run: $want"
got=$(floe_hosts -- -f "$script" | canon) || fail "the queries on 3 hosts exited non-zero"
if [ "$got" != "$want" ]; then
  diff <(echo "$want") <(echo "$got") | head -20
  fail "the queries on 3 hosts differ from local (segments numbered after the queries array)"
fi
echo "ok: ${#queries[@]} queries on 3 hosts equal local"

# ---- the exchanges cross the bridge ------------------------------------------
# A GROUP BY over distinct keys moves every row through the hash exchange
# (~18 MB): hosts 2 and 3 each send and receive megabytes on their links.
link_bytes() { # N: bytes host N's link carried so far, both ways
  local d=/sys/class/net/v$1/statistics
  ip netns exec "$netns_rig_id-sw" sh -c "echo \$((\$(cat $d/rx_bytes) + \$(cat $d/tx_bytes)))"
}
big="SELECT count(*), sum(n), sum(x), min(s) FROM (SELECT x, repeat('abcdefgh', 8) AS s, count(*) AS n
     FROM generate_series(1, 200000) t(x) GROUP BY x, s) q"
want=$(floe -c "$big")
b2=$(link_bytes 2)
b3=$(link_bytes 3)
got=$(floe_hosts -- -c "$big") || fail "the repartition on 3 hosts exited non-zero"
[ "$got" = "$want" ] || fail "the repartition on 3 hosts differs from local: $got"
b2=$(($(link_bytes 2) - b2))
b3=$(($(link_bytes 3) - b3))
[ "$b2" -gt $((2 << 20)) ] && [ "$b3" -gt $((2 << 20)) ] ||
  fail "the repartition did not cross the bridge: host 2 moved $b2 bytes, host 3 $b3"
echo "ok: the repartition moved $b2 bytes over host 2's link, $b3 over host 3's"

# ---- INSERT: writers on every host, one commit on rank 0 ---------------------
ins="SELECT id, CAST(k % 6 AS int) AS p, tag FROM $fact WHERE k IS NOT NULL"
floe -c "CREATE TABLE il (id bigint NOT NULL, p int, tag varchar) PARTITIONED BY (p)" -c "INSERT INTO il $ins" >/dev/null
floe -c "CREATE TABLE ih (id bigint NOT NULL, p int, tag varchar) PARTITIONED BY (p)" >/dev/null
floe_hosts -- -c "INSERT INTO ih $ins" >/dev/null || fail "INSERT on 3 hosts exited non-zero"
want=$(floe -c "SELECT p, count(*), sum(id), min(tag), max(tag) FROM il GROUP BY p ORDER BY p")
got=$(floe -c "SELECT p, count(*), sum(id), min(tag), max(tag) FROM ih GROUP BY p ORDER BY p")
[ "$got" = "$want" ] || fail "INSERT on 3 hosts wrote other rows: $got (local: $want)"
[ "$(floe -c 'SELECT count(*) FROM "ih$files"' | tail -1)" = 6 ] || fail "INSERT on 3 hosts: not one file per partition"
[ "$(floe -c 'SELECT count(*) FROM "ih$snapshots"' | tail -1)" = 1 ] || fail "INSERT on 3 hosts: not one commit"
echo "ok: INSERT on 3 hosts equals local, one commit"

# ---- row-level DML and compaction on two copies of one table ------------------
for t in tl th; do
  floe -c "CREATE TABLE $t (id bigint NOT NULL, p int, tag varchar, v double) PARTITIONED BY (p)" >/dev/null
  for part in $(seq 0 5); do
    floe -c "INSERT INTO $t SELECT x, CAST(x % 3 AS int), 't' || CAST(x % 7 AS varchar), x * 0.5
             FROM generate_series($part * 5000 + 1, $part * 5000 + 5000) g(x)" >/dev/null
  done
done
floe -c "CREATE TABLE src (id bigint, nv double)" -c "INSERT INTO src SELECT x * 37, x * 1.5 FROM generate_series(1, 900) g(x)" >/dev/null
snapshots() { floe -c "SELECT count(*) FROM \"$1\$snapshots\"" | tail -1; }
same_rows() { # WHAT
  local w g
  w=$(floe -c "SELECT count(*), sum(id), sum(p), min(tag), max(tag), sum(v) FROM tl")
  g=$(floe -c "SELECT count(*), sum(id), sum(p), min(tag), max(tag), sum(v) FROM th")
  [ "$g" = "$w" ] || fail "after $1 the table changed on 3 hosts differs: $g (local: $w)"
  w=$(floe -c "SELECT id, p, tag, v FROM tl WHERE id % 331 = 0 ORDER BY id")
  g=$(floe -c "SELECT id, p, tag, v FROM th WHERE id % 331 = 0 ORDER BY id")
  [ "$g" = "$w" ] || fail "after $1 sampled rows differ"
}
statements=(
  "DELETE FROM %T WHERE id % 10 = 3"
  "UPDATE %T SET v = v * 2, tag = 'upd' WHERE id % 100 = 7"
  "MERGE INTO %T AS t USING src ON t.id = src.id WHEN MATCHED THEN UPDATE SET v = src.nv
     WHEN NOT MATCHED THEN INSERT VALUES (src.id + 1000000, 1, 'new', src.nv)"
)
for s in "${statements[@]}"; do
  before=$(snapshots th)
  floe -c "${s//%T/tl}" >/dev/null || fail "local: '$s' failed"
  floe_hosts -- -c "${s//%T/th}" >/dev/null || fail "on 3 hosts: '$s' failed"
  same_rows "'$s'"
  [ "$(snapshots th)" = $((before + 1)) ] || fail "'$s' on 3 hosts did not commit exactly once"
done
echo "ok: ${#statements[@]} row-level statements on 3 hosts equal local, one commit each"

# Compaction on two more copies made alike (appends and a DELETE, all
# local: the DML above wrote other files on 3 hosts than alone), so the
# procedure's counts compare too.
for t in cl ch; do
  floe -c "CREATE TABLE $t (id bigint NOT NULL, p int, tag varchar, v double) PARTITIONED BY (p)" >/dev/null
  for part in $(seq 0 7); do
    floe -c "INSERT INTO $t SELECT x, CAST(x % 3 AS int), 't' || CAST(x % 7 AS varchar), x * 0.5
             FROM generate_series($part * 4000 + 1, $part * 4000 + 4000) g(x)" >/dev/null
  done
  floe -c "DELETE FROM $t WHERE id % 10 = 3" >/dev/null
done
call="CALL system.rewrite_data_files(table => '%T', options => map('rewrite-all', 'true'))"
before=$(snapshots ch)
want=$(floe -c "${call//%T/cl}") || fail "local compaction failed"
got=$(floe_hosts -- -c "${call//%T/ch}") || fail "compaction on 3 hosts exited non-zero"
# files rewritten and added, failed, delete files removed (the bytes
# rewritten differ with the table's name inside the delete files)
[ "$(cut -d, -f1,2,4,5 <<<"$got")" = "$(cut -d, -f1,2,4,5 <<<"$want")" ] ||
  fail "compaction on 3 hosts: '$got', locally '$want'"
w=$(floe -c "SELECT count(*), sum(id), sum(p), min(tag), max(tag), sum(v) FROM cl")
g=$(floe -c "SELECT count(*), sum(id), sum(p), min(tag), max(tag), sum(v) FROM ch")
[ "$g" = "$w" ] || fail "after compaction on 3 hosts: $g (local: $w)"
[ "$(floe -c 'SELECT count(*) FROM "ch$files" WHERE content = 0' | tail -1)" = 3 ] ||
  fail "compaction on 3 hosts: not one data file per partition"
[ "$(snapshots ch)" = $((before + 1)) ] || fail "compaction on 3 hosts did not commit exactly once"
op=$(floe -c "SELECT operation FROM \"ch\$snapshots\" ORDER BY committed_at DESC LIMIT 1" | tail -1)
[ "$op" = replace ] || fail "compaction on 3 hosts committed '$op', not replace"
echo "ok: rewrite_data_files on 3 hosts equals local ($(tail -1 <<<"$got"))"

# ---- a path only host 1 sees: caught before any task runs ---------------------
mkdir -p "$tmp/nodelocal"
floe -c "COPY (SELECT x AS id, CAST(x % 6 AS int) AS p, 'local' AS tag FROM generate_series(1, 500) t(x))
         TO '$tmp/nodelocal/only_h1.parquet'" >/dev/null
nl="read_parquet('$tmp/nodelocal/only_h1.parquet')"
hidden() { # PATH ARGS...: floe on 3 hosts, $tmp/nodelocal empty on hosts 2 and 3
  local rc=0 path=$1
  shift
  err=$(NETNS_RIG_HIDE=$tmp/nodelocal floe_hosts -- "$@" 2>&1 >/dev/null) || rc=$?
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "a path only host 1 sees: exit $rc ($*)"
  grep -Eq "rank [12] on host 'floe-h[23]' does not see the files rank 0 \(host 'floe-h1'\) planned from: \
'$path' cannot be opened here" <<<"$err" ||
    fail "a path only host 1 sees is not reported with rank, host and path: $err"
}
hidden "$tmp/nodelocal/only_h1.parquet" -c "SELECT count(*) FROM $nl"
files_before=$(find "$tmp/wh" -path '*ih/data*' -type f | wc -l)
hidden "$tmp/nodelocal/only_h1.parquet" -c "INSERT INTO ih SELECT * FROM $nl"
[ "$(floe -c 'SELECT count(*) FROM "ih$snapshots"' | tail -1)" = 1 ] || fail "an INSERT from a node-local path committed"
[ "$(find "$tmp/wh" -path '*ih/data*' -type f | wc -l)" = "$files_before" ] ||
  fail "an INSERT from a node-local path wrote files"
# an Iceberg table in a node-local warehouse: its metadata file
"$FLOE_BIN" --warehouse "$tmp/nodelocal/wh" -c "CREATE TABLE nlt (id bigint)" -c "INSERT INTO nlt VALUES (1), (2)" >/dev/null
hidden "$tmp/nodelocal/wh/default/nlt/metadata/[^']*\.metadata\.json" --warehouse "$tmp/nodelocal/wh" \
  -c "SELECT count(*) FROM nlt"
# seen by every host, the same file passes
got=$(floe_hosts -- -c "SELECT count(*) FROM $nl" | tail -1) || fail "a path every host sees was refused"
[ "$got" = 500 ] || fail "a path every host sees: $got"
echo "ok: a path only host 1 sees is caught before any task runs"

echo "PASS"

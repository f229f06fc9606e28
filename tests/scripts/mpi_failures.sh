#!/usr/bin/env bash
# Failures under MPI: a rank that dies or stops mid-job ends the job on
# every rank within 30 s — never an MPI hang — with nothing committed and
# the table readable.
#
#   1. SIGKILL of rank 1 in the middle of a large INSERT (mpirun's default:
#      the launcher ends the job): non-zero exit, no snapshot, the rows as
#      before, and what the dead job left on storage is exactly what
#      remove_orphan_files finds (and removes).
#   2. The same kill with Open MPI's recovery on (the launcher lets the
#      other ranks live): rank 0 finds rank 1 silent, names rank, host and
#      task, runs the commit stage's failure cleanup and MPI_Aborts; the
#      only files left are the ones rank 1's own writers had open.
#   3. SIGSTOP of rank 1 in the middle of a long SELECT: rank 0 fails it
#      after FLOE_DIST_RANK_TIMEOUT (default 20 s) of silence, names it,
#      and every rank — the stopped one too — is gone.
#
# The rank's process is found through /proc (its environment holds the
# job's marker and OMPI_COMM_WORLD_RANK); the moment to strike is read
# from rank 0's debug log (the task handed to rank 1) and the files
# appearing.  Everything runs under `timeout`.  Skips when mpirun is
# missing, except under CI=true.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
FLOE_SOURCE_DIR=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/scripts/mpi_lib.bash
source "$FLOE_SOURCE_DIR/tests/scripts/mpi_lib.bash"
mpirun --version 2>&1 | grep -q "Open MPI" || skip "mpirun is not Open MPI's (the rank is found by OMPI_COMM_WORLD_RANK)"

# does process $1 have the environment entry $2? (Read whole, then matched:
# piping tr into `grep -q` under pipefail fails when grep exits first.)
env_has() {
  local e
  e=$(tr '\0' '\n' 2>/dev/null <"/proc/$1/environ") || return 1
  grep -qxF -- "$2" <<<"$e"
}
# the rank's pid in job $1 ("" while it has not started)
rank_pid() {
  local p
  for p in $(pgrep -x floe 2>/dev/null; pgrep -f "^$FLOE_BIN " 2>/dev/null); do
    if env_has "$p" "FLOE_TEST_JOB=$1" && env_has "$p" "OMPI_COMM_WORLD_RANK=$2"; then
      echo "$p"
      return
    fi
  done
}
job_pids() { # every process of job $1 still there (zombies aside)
  local p
  for p in $(pgrep -f "^$FLOE_BIN " 2>/dev/null); do
    env_has "$p" "FLOE_TEST_JOB=$1" || continue
    [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = Z ] || echo "$p"
  done
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# start_job NAME EXTRA_MPIRUN_ARGS SQL: mpirun -np 3 in the background,
# stdout/stderr/exit code in $tmp/NAME.{out,err,rc}
start_job() {
  local name=$1 extra=$2 sql=$3
  # shellcheck disable=SC2086
  (
    set +e
    FLOE_LOG=debug FLOE_TEST_JOB=$name timeout 150 "${mpi[@]}" $extra -np 3 -x FLOE_LOG -x FLOE_TEST_JOB \
      -x LSAN_OPTIONS -x ASAN_OPTIONS "$FLOE_BIN" --warehouse "$tmp/wh" --format csv -c "$sql" \
      >"$tmp/$name.out" 2>"$tmp/$name.err"
    echo $? >"$tmp/$name.rc"
  ) &
  job=$!
}
# wait_for DESC SECONDS CMD...: until CMD succeeds (fail after SECONDS or
# when the job ended first)
wait_for() {
  local desc=$1 limit=$2 t0
  shift 2
  t0=$(now)
  until "$@"; do
    if ! kill -0 "$job" 2>/dev/null; then fail "the job ended before $desc: $(tail -5 "$tmp/$name.err")"; fi
    if awk -v a="$t0" -v b="$(now)" -v l="$limit" 'BEGIN { exit !(b - a > l) }'; then fail "no $desc within ${limit} s"; fi
    sleep 0.1
  done
}
# end_job: wait for the job after the signal at $t_sig; its exit code in rc
end_job() {
  wait "$job" || true
  t_end=$(now)
  rc=$(cat "$tmp/$name.rc")
  took=$(secs "$t_sig" "$t_end")
  awk -v t="$took" 'BEGIN { exit !(t <= 30) }' || fail "$name: the job took $took s after the signal (limit 30)"
  [ "$rc" != 124 ] || fail "$name: the job hung (timeout)"
  sleep 0.5
  local left
  left=$(job_pids "$name")
  [ -z "$left" ] || {
    kill -KILL $left 2>/dev/null || true
    fail "$name: processes of the job still run after mpirun ended: $left"
  }
}
snapshots() { floe -c "SELECT count(*) FROM \"$1\$snapshots\"" | tail -1; }
rows() { floe -c "SELECT count(*), sum(id) FROM $1" | tail -1; }
data_files() { (cd "$tmp/wh/default/$1" && find data -type f 2>/dev/null | sort); }
orphans() { # what remove_orphan_files would delete (dry run), relative
  floe -c "CALL system.remove_orphan_files(table => 'default.$1', older_than => TIMESTAMP '2999-01-01 00:00:00', dry_run => true)" |
    tail -n +2 | sed "s|.*/default/$1/||" | grep '^data/' | sort || true
}
big_insert() { echo "INSERT INTO $1 SELECT x, CAST(x % 8 AS int), 'row ' || CAST(x AS varchar) FROM generate_series(1, 100000000) g(x)"; }

for t in k r; do
  floe -c "CREATE TABLE $t (id bigint, p int, s varchar) PARTITIONED BY (p)" >/dev/null
  floe -c "INSERT INTO $t SELECT x, CAST(x % 8 AS int), 'base' FROM generate_series(1, 1000) g(x)" >/dev/null
done
floe -c "CREATE TABLE q (id bigint, s varchar)" >/dev/null
floe -c "INSERT INTO q SELECT x, 'row ' || CAST(x AS varchar) FROM generate_series(1, 3000000) g(x)" >/dev/null

# ---- 1. SIGKILL mid-INSERT, the launcher ends the job --------------------
name=kill_default
snaps=$(snapshots k) before=$(rows k) files_before=$(data_files k)
start_job "$name" "" "$(big_insert k)"
wait_for "a writer of rank 1" 60 grep -qs "(stage 1, partition [0-9]*) to rank 1" "$tmp/$name.err"
wait_for "rank 1's process" 20 test -n "$(rank_pid "$name" 1)"
sleep 3 # writing (100M rows: the INSERT takes well over 10 s even on an idle machine)
kill -0 "$job" 2>/dev/null || fail "$name: the INSERT ended before the kill"
kill -KILL "$(rank_pid "$name" 1)"
t_sig=$(now)
end_job
[ "$rc" != 0 ] || fail "$name: mpirun exited 0 after rank 1 was killed"
grep -q "rank 1" "$tmp/$name.err" || fail "$name: the error does not name rank 1: $(tail -5 "$tmp/$name.err")"
[ "$(snapshots k)" = "$snaps" ] || fail "$name: a snapshot was committed"
[ "$(rows k)" = "$before" ] || fail "$name: the table's rows changed: $(rows k) (before: $before)"
left=$(comm -13 <(echo "$files_before") <(data_files k))
[ "$(orphans k)" = "$left" ] || fail "$name: left files ($left) are not what remove_orphan_files finds ($(orphans k))"
floe -c "CALL system.remove_orphan_files(table => 'default.k', older_than => TIMESTAMP '2999-01-01 00:00:00')" >/dev/null
[ "$(data_files k)" = "$files_before" ] || fail "$name: remove_orphan_files left files of the dead job"
[ "$(rows k)" = "$before" ] || fail "$name: rows changed after remove_orphan_files"
echo "ok: $name: ended $took s after the kill (exit $rc); $(echo "$left" | grep -c . || true) files left, all orphans"

# ---- 2. SIGKILL mid-INSERT, the ranks left alive: rank 0 cleans up -------
name=kill_recovery
snaps=$(snapshots r) before=$(rows r) files_before=$(data_files r)
start_job "$name" "--mca orte_enable_recovery 1" "$(big_insert r)"
wait_for "a writer of rank 1" 60 grep -qs "(stage 1, partition [0-9]*) to rank 1" "$tmp/$name.err"
wait_for "rank 1's process" 20 test -n "$(rank_pid "$name" 1)"
sleep 3 # writing (100M rows: the INSERT takes well over 10 s even on an idle machine)
kill -0 "$job" 2>/dev/null || fail "$name: the INSERT ended before the kill"
victim=$(rank_pid "$name" 1)
kill -KILL "$victim"
t_sig=$(now)
end_job
# (Open MPI 4.1's mpirun exits 0 after MPI_Abort once recovery is on: the
# error on stderr is what tells)
err=$(grep -v DEBUG "$tmp/$name.err")
echo "$err" | grep -q "rank 1 (host '[^']*') did not answer within [0-9]* s while running task [0-9]* (stage [0-9], partition [0-9]*)" ||
  fail "$name: the error does not name rank, host and task: $err"
echo "$err" | grep -q "was lost: ending the MPI job" || fail "$name: rank 0 did not end the job: $err"
[ "$(snapshots r)" = "$snaps" ] || fail "$name: a snapshot was committed"
[ "$(rows r)" = "$before" ] || fail "$name: the table's rows changed"
# what rank 1's process had open (named .tmp-<its pid>-N) and the
# finished files of its writers (partitions from rank 0's log) are all
# that is left: the other ranks' writers deleted theirs when cancelled,
# and rank 0 deleted the files reported to it
mine=$(grep -o "(stage 1, partition [0-9]*) to rank 1" "$tmp/$name.err" | grep -o "partition [0-9]*" | awk '{printf "%05d\n", $2}')
left=$(comm -13 <(echo "$files_before") <(data_files r))
while read -r f; do
  [ -n "$f" ] || continue
  part=$(basename "$f" | cut -c1-5)
  case "$f" in
  *".tmp-$victim-"*) ;; # being written by rank 1's process
  *.parquet) echo "$mine" | grep -qx "$part" || fail "$name: $f is left, but rank 1 did not write partition $part" ;;
  *) fail "$name: a file not rank 1's is left: $f" ;;
  esac
done <<<"$left"
[ "$(orphans r)" = "$left" ] || fail "$name: left files are not what remove_orphan_files finds"
echo "ok: $name: ended $took s after the kill, rank named; $(echo "$left" | grep -c . || true) files left, rank 1's own"

# ---- 3. SIGSTOP mid-SELECT -----------------------------------------------
name=stop_select
start_job "$name" "" "SELECT s, count(*) FROM q GROUP BY s ORDER BY 2 DESC, 1 LIMIT 3"
wait_for "a task of rank 1" 60 grep -qs ") to rank 1" "$tmp/$name.err"
wait_for "rank 1's process" 20 test -n "$(rank_pid "$name" 1)"
sleep 0.5
victim=$(rank_pid "$name" 1)
kill -STOP "$victim"
t_sig=$(now)
trap 'kill -CONT "$victim" 2>/dev/null; kill -KILL "$victim" 2>/dev/null; rm -rf "$tmp"' EXIT
end_job
[ "$rc" != 0 ] || fail "$name: mpirun exited 0 with rank 1 stopped: $(tail -3 "$tmp/$name.out")"
err=$(grep -v DEBUG "$tmp/$name.err")
echo "$err" | grep -q "rank 1 (host '[^']*') did not answer within 20 s while running task [0-9]* (stage [0-9]" ||
  fail "$name: the error does not name rank, host and task: $err"
! kill -0 "$victim" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$victim/stat" 2>/dev/null)" = Z ] ||
  fail "$name: the stopped rank 1 still exists"
[ "$(floe -c "SELECT count(*) FROM q" | tail -1)" = 3000000 ] || fail "$name: the table is not readable after"
echo "ok: $name: ended $took s after SIGSTOP, rank, host and task named"

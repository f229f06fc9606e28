#!/usr/bin/env bash
# Row-level changes from two processes at once, made to overlap exactly:
# process B runs with FLOE_TEST_COMMIT_BARRIER, so it reads and writes its
# files, then waits right before its commit while process A commits; then B
# commits against A's snapshot, and Iceberg Java's validations decide:
#   - disjoint partitions (serializable, filters on the partition column):
#     both commit;
#   - merge-on-read deletes of other rows of the same data file: A added a
#     delete file for the data file B deletes from, which B's condition
#     cannot rule out: B fails with a conflict naming both files, as Java's
#     validateNoConflictingDeleteFiles does (run again, it commits);
#   - copy-on-write deletes from the same data file: B's file was rewritten
#     by A, so B fails with a conflict, commits nothing and leaves no file;
#   - serializable: A appends a row B's condition matches: B fails; with
#     write.delete.isolation-level=snapshot the same B commits.
# After each case the table holds the rows of one serial order of the
# statements that committed.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sql_rowlevel_concurrent.XXXXXX")
BPID=
cleanup() {
    [ -n "$BPID" ] && kill "$BPID" 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT
W=$TMP/warehouse
fail() { echo "FAIL: $*"; exit 1; }
floe() { "$FLOE_BIN" --warehouse "$W" --format csv "$@"; }
q() { floe -c "$1" | tail -n +2; }

# run_b SQL: start B in the background, stopped at its commit barrier
run_b() {
    rm -f "$TMP/go" "$TMP/go.waiting"
    FLOE_TEST_COMMIT_BARRIER="$TMP/go" "$FLOE_BIN" --warehouse "$W" -c "$1" > "$TMP/b.out" 2> "$TMP/b.err" &
    BPID=$!
    for _ in $(seq 1 600); do
        [ -e "$TMP/go.waiting" ] && return 0
        kill -0 "$BPID" 2>/dev/null || { cat "$TMP/b.err"; fail "B ended before its commit: $1"; }
        sleep 0.05
    done
    fail "B never reached its commit: $1"
}
# finish_b: let B commit; its exit status
finish_b() {
    touch "$TMP/go"
    local rc=0
    wait "$BPID" || rc=$?
    BPID=
    return $rc
}
data_files() { find "$W" -path "*/$1/data/*" -type f | sort; }

floe -c "CREATE TABLE t (id bigint, p int, v int) PARTITIONED BY (p)" >/dev/null
floe -c "INSERT INTO t SELECT k, CAST(k % 2 AS int), CAST(k AS int) FROM generate_series(1, 20) g(k)" >/dev/null

# ---- disjoint partitions: both commit
run_b "UPDATE t SET v = v + 1000 WHERE p = 1"
floe -c "UPDATE t SET v = v + 2000 WHERE p = 0" >/dev/null || fail "A's UPDATE failed"
finish_b || { cat "$TMP/b.err"; fail "B's UPDATE of another partition did not commit"; }
got=$(q "SELECT p, min(v), max(v), count(*) FROM t GROUP BY p ORDER BY p" | tr '\n' ' ')
[ "$got" = "0,2002,2020,10 1,1001,1019,10 " ] || fail "disjoint updates: $got"

# ---- merge-on-read deletes of other rows of one data file: A's delete file
# applies to the data file B deletes from, and B's condition cannot rule it
# out, so B fails (Java's validateNoConflictingDeleteFiles), commits nothing
run_b "DELETE FROM t WHERE id = 3"
floe -c "DELETE FROM t WHERE id = 5" >/dev/null || fail "A's DELETE failed"
if finish_b; then fail "B committed over A's delete file for the same data file"; fi
grep -qi "conflict" "$TMP/b.err" || fail "B's error does not say conflict: $(cat "$TMP/b.err")"
grep -q "applies to data file" "$TMP/b.err" || fail "B's conflict does not name the files: $(cat "$TMP/b.err")"
got=$(q "SELECT count(*), sum(id) FROM t WHERE p = 1")
[ "$got" = "9,95" ] || fail "after the delete conflict: $got (want only A's delete)"
# retried by the user, B now commits on A's snapshot
floe -c "DELETE FROM t WHERE id = 3" >/dev/null || fail "B's DELETE run again failed"
got=$(q "SELECT count(*), sum(id) FROM t WHERE p = 1")
[ "$got" = "8,92" ] || fail "two deletes of one file: $got"

# ---- copy-on-write deletes from one data file: B conflicts
floe -c "CREATE TABLE c (id bigint, p int) PARTITIONED BY (p) WITH ('write.delete.mode' = 'copy-on-write')" >/dev/null
floe -c "INSERT INTO c SELECT k, CAST(k % 2 AS int) FROM generate_series(1, 20) g(k)" >/dev/null
snaps=$(q 'SELECT count(*) FROM "c$snapshots"')
before=$(data_files c)
run_b "DELETE FROM c WHERE id = 3"
floe -c "DELETE FROM c WHERE id = 5" >/dev/null || fail "A's copy-on-write DELETE failed"
if finish_b; then fail "B's copy-on-write DELETE of a file A rewrote committed"; fi
grep -qi "conflict" "$TMP/b.err" || fail "B's error does not say conflict: $(cat "$TMP/b.err")"
grep -q "data/" "$TMP/b.err" || fail "B's conflict does not name the file: $(cat "$TMP/b.err")"
[ "$(q 'SELECT count(*) FROM "c$snapshots"')" = $((snaps + 1)) ] || fail "copy-on-write conflict: B committed"
after=$(data_files c)
# nothing that was there went away; the one new file is A's rewrite (B's was deleted)
[ "$(comm -23 <(echo "$before") <(echo "$after") | wc -l)" = 0 ] || fail "a file that was there before went missing"
new_files=$(comm -13 <(echo "$before") <(echo "$after") | wc -l)
[ "$new_files" = 1 ] || fail "after B's conflict $new_files new files (want A's one rewrite; B's must be deleted)"
got=$(q "SELECT count(*), sum(id) FROM c")
[ "$got" = "19,205" ] || fail "after the copy-on-write conflict: $got (want only A's delete)"

# ---- serializable: a concurrent append matching B's condition fails B
run_b "DELETE FROM t WHERE v > 2015"
floe -c "INSERT INTO t VALUES (100, 0, 5000)" >/dev/null || fail "A's INSERT failed"
if finish_b; then fail "B committed though A appended a row its condition matches (serializable)"; fi
grep -qi "conflict" "$TMP/b.err" || fail "serializable conflict not reported: $(cat "$TMP/b.err")"
got=$(q "SELECT count(*) FROM t WHERE v > 2015")
[ "$got" = "4" ] || fail "after the serializable conflict: $got rows with v > 2015 (want 3 + A's)"

# ---- the same under snapshot isolation: B commits (A's row survives)
floe -c "ALTER TABLE t SET ('write.delete.isolation-level' = 'snapshot')" >/dev/null
run_b "DELETE FROM t WHERE v > 2015"
floe -c "INSERT INTO t VALUES (101, 0, 6000)" >/dev/null || fail "A's INSERT failed"
finish_b || { cat "$TMP/b.err"; fail "B did not commit under snapshot isolation"; }
got=$(q "SELECT id FROM t WHERE v > 2015 ORDER BY id" | tr '\n' ' ')
[ "$got" = "101 " ] || fail "snapshot isolation: rows with v > 2015: $got (want only A's new row)"
# ---- on a branch: validated against the branch's own history.  A delete on
# main in between is no conflict (main is not the branch); a delete on the
# branch itself, of the same data file, is.
floe -c "CREATE SCHEMA br; CREATE TABLE br.b (id bigint, v int)" >/dev/null
floe -c "INSERT INTO br.b SELECT k, CAST(k AS int) FROM generate_series(1, 10) g(k)" >/dev/null
floe -c "ALTER TABLE br.b CREATE BRANCH dev" >/dev/null
run_b "DELETE FROM br.b.branch_dev WHERE id = 1"
floe -c "DELETE FROM br.b WHERE id = 2" >/dev/null || fail "A's DELETE on main failed"
finish_b || { cat "$TMP/b.err"; fail "B's branch DELETE conflicted with a change on main"; }
got=$(q "SELECT count(*), sum(id) FROM br.b.branch_dev")
[ "$got" = "9,54" ] || fail "branch after B's delete: $got (want only B's delete)"
got=$(q "SELECT count(*), sum(id) FROM br.b")
[ "$got" = "9,53" ] || fail "main after A's delete: $got (want only A's delete)"
run_b "DELETE FROM br.b.branch_dev WHERE id = 3"
floe -c "SET write.branch = 'dev'; DELETE FROM br.b WHERE id = 4" >/dev/null || fail "A's DELETE on the branch failed"
if finish_b; then fail "B committed over A's delete file on the same branch"; fi
grep -qi "conflict" "$TMP/b.err" || fail "branch conflict not reported: $(cat "$TMP/b.err")"
got=$(q "SELECT count(*), sum(id) FROM br.b.branch_dev")
[ "$got" = "8,50" ] || fail "branch after the conflict: $got (want only A's second delete)"
echo "ok: overlapping row-level changes validated as Iceberg Java does"

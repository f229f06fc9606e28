#!/usr/bin/env bash
# A long-running floe shell sees another process's catalog changes on its
# very next statement: nothing about a table is cached across statements.
# Process B (a shell reading statements from a FIFO) describes a table,
# process A (floe -c) ALTERs it / creates and drops tables, and B's next
# statement shows the change, INSERTs included.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sql_sees_other.XXXXXX")
B_PID=
cleanup() {
    exec 3>&- 2>/dev/null || true
    if [ -n "$B_PID" ]; then kill "$B_PID" 2>/dev/null || true; fi
    rm -rf "$TMP"
}
trap cleanup EXIT
cd "$TMP"
W=$TMP/warehouse
"$FLOE_BIN" --warehouse "$W" -c "CREATE TABLE t (a int, b string)"
mkfifo in
"$FLOE_BIN" --warehouse "$W" --format csv < in > out 2> err &
B_PID=$!
exec 3> in

# Send one statement to B and wait (up to 20 s) until its output holds the
# expected line `want` for the n-th time.
ask() { # sql want count
    echo "$1" >&3
    for _ in $(seq 1 200); do
        if [ "$(grep -c -x -- "$2" out || true)" -ge "$3" ]; then return 0; fi
        if ! kill -0 "$B_PID" 2>/dev/null; then echo "FAIL: shell B exited"; cat err; exit 1; fi
        sleep 0.1
    done
    echo "FAIL: after '$1' expected line '$2' (x$3); B printed:"; cat out; cat err; exit 1
}

ask "DESCRIBE t;" "b,varchar,YES," 1
"$FLOE_BIN" --warehouse "$W" -c "ALTER TABLE t ADD COLUMN c bigint"
ask "DESCRIBE t;" "c,bigint,YES," 1
"$FLOE_BIN" --warehouse "$W" -c "ALTER TABLE t RENAME COLUMN b TO bee"
ask "DESCRIBE t;" "bee,varchar,YES," 1
"$FLOE_BIN" --warehouse "$W" -c "ALTER TABLE t DROP COLUMN a"
echo "DESCRIBE t;" >&3
# after the drop, DESCRIBE lists bee and c but not a: wait for the 4th header
for _ in $(seq 1 200); do
    [ "$(grep -c -x 'column_name,data_type,nullable,comment' out)" -ge 4 ] && break
    sleep 0.1
done
last=$(awk '/^column_name,/{block=""} {block=block $0 "\n"} END{printf "%s", block}' out)
if printf '%s' "$last" | grep -q '^a,'; then echo "FAIL: dropped column a still described:"; printf '%s' "$last"; exit 1; fi
printf '%s' "$last" | grep -q '^bee,' || { echo "FAIL: bee missing after drop"; printf '%s' "$last"; exit 1; }
# INSERTs by another process: B's next SELECT counts the new rows
ask "SELECT 'rows=' || CAST(count(*) AS text) FROM t;" "rows=0" 1
"$FLOE_BIN" --warehouse "$W" -c "INSERT INTO t (bee, c) VALUES ('one', 1), ('two', 2)"
ask "SELECT 'rows=' || CAST(count(*) AS text) FROM t;" "rows=2" 1
"$FLOE_BIN" --warehouse "$W" -c "INSERT INTO t (c) SELECT k FROM generate_series(1, 3) g(k)"
ask "SELECT 'rows=' || CAST(count(*) AS text) || ';sum=' || CAST(sum(c) AS text) FROM t;" "rows=5;sum=9" 1
"$FLOE_BIN" --warehouse "$W" -c "CREATE TABLE u (x int)"
ask "SHOW TABLES;" "u" 1
"$FLOE_BIN" --warehouse "$W" -c "DROP TABLE u"
echo "SELECT * FROM u;" >&3
for _ in $(seq 1 200); do grep -q "u" err && break; sleep 0.1; done
grep -qi "does not exist\|not found" err || { echo "FAIL: B still sees dropped table u"; cat out err; exit 1; }
echo "ok: shell B saw ADD, RENAME, DROP COLUMN, CREATE and DROP TABLE and INSERTs from another process"

#!/usr/bin/env bash
# The `floe` SQL front: -c, -f, statements on a pipe, output formats,
# --warehouse / $FLOE_WAREHOUSE, "Error: ..." and exit status 1 at the first
# failing statement of a script, \timing, --help, the file subcommands
# still dispatching, and (on a pseudo-terminal) the interactive shell:
# continuation lines, Ctrl-C cancelling a running statement and the prompt
# coming back.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
floe() { "$FLOE_BIN" --warehouse "$tmp/wh" "$@"; }

# -c: one statement, table format by default
out=$(floe -c "SELECT 40 + 2 AS answer")
[ "$out" = " answer
--------
     42
(1 row)" ] || fail "-c table output: $out"

# several -c run in order in one session
out=$(floe --format csv -c "SET target_partitions = 3" -c "SHOW target_partitions")
[ "$out" = "target_partitions
3" ] || fail "-c twice: $out"

# csv and jsonl, NULL and the empty string kept apart
out=$(floe --format csv -c "VALUES (1, 'a'), (2, ''), (3, NULL)")
[ "$out" = 'column1,column2
1,a
2,""
3,' ] || fail "csv: $out"
out=$(floe --format=jsonl -c "SELECT x, x * 2 AS y FROM generate_series(1, 2) AS g(x) ORDER BY x")
[ "$out" = '{"x":1,"y":2}
{"x":2,"y":4}' ] || fail "jsonl: $out"

# -f: statements over several lines; the catalog persists in --warehouse
cat >"$tmp/script.sql" <<'EOF'
CREATE TABLE t (id bigint,
                name text);  -- a comment; with a ; inside
SHOW TABLES;
EOF
out=$(floe -f "$tmp/script.sql")
[ "$out" = "CREATE TABLE
 table_name
------------
 t
(1 row)" ] || fail "-f: $out"
# statements without rows print psql's tag, with its count, in the table
# format; csv and jsonl stay rows only
out=$(floe -c "INSERT INTO t VALUES (1, 'a'), (2, 'b')" -c "DELETE FROM t WHERE id = 1" -c "UPDATE t SET name = 'c'")
[ "$out" = "INSERT 0 2
DELETE 1
UPDATE 1" ] || fail "tags: $out"
out=$(floe --format csv -c "DELETE FROM t WHERE id = 2")
[ -z "$out" ] || fail "csv printed a tag: $out"
out=$(FLOE_WAREHOUSE="$tmp/wh" "$FLOE_BIN" --format csv -c "SHOW TABLES")
[ "$out" = "table_name
t" ] || fail "FLOE_WAREHOUSE: $out"

# a script stops at its first error: exit 1, "Error: " on stderr, later
# statements not run, earlier output kept
printf 'SELECT 1 AS a;\nSELEC 2;\nSELECT 3 AS c;\n' >"$tmp/bad.sql"
set +e
floe --format csv -f "$tmp/bad.sql" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "-f with an error: exit $rc"
[ "$(cat "$tmp/out")" = "a
1" ] || fail "-f with an error, stdout: $(cat "$tmp/out")"
# the error names the script, the line (2) and column of the bad word
grep -qF "Error: $tmp/bad.sql:2:1: syntax error at or near \"SELEC\"" "$tmp/err" || fail "-f error text: $(cat "$tmp/err")"
# a runtime error names the line its statement starts on
printf 'SELECT 1;\n\n-- a comment\nSELECT CAST(x AS integer)\n  FROM (VALUES (1), (2)) AS v(y), (VALUES (%s)) AS w(x);\n' "'x'" >"$tmp/bad2.sql"
set +e
floe -f "$tmp/bad2.sql" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "-f runtime error: exit $rc"
grep -qF "Error: $tmp/bad2.sql:4: invalid input syntax for type integer: \"x\"" "$tmp/err" ||
  fail "-f runtime error text: $(cat "$tmp/err")"
# no operator chains in what users read
grep -q 'partition\|Projection\|Coalesce' "$tmp/err" && fail "engine-internal names in: $(cat "$tmp/err")"
# a script file that is not there: an error, and no warehouse made for it
set +e
"$FLOE_BIN" --warehouse "$tmp/never" -f "$tmp/missing.sql" 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 1 ] && grep -q "cannot open '$tmp/missing.sql'" "$tmp/err" || fail "missing script: $rc $(cat "$tmp/err")"
[ ! -e "$tmp/never" ] || fail "a missing script made the warehouse $tmp/never"

# the same from a pipe, and from -c
set +e
printf 'SELECT 1 AS a;\nSELECT * FROM nope;\nSELECT 3;\n' | floe --format csv >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "pipe with an error: exit $rc"
grep -q '^Error: .*nope does not exist' "$tmp/err" || fail "pipe error text: $(cat "$tmp/err")"
[ "$(cat "$tmp/out")" = "a
1" ] || fail "pipe output: $(cat "$tmp/out")"
set +e
floe -c "SELECT 1/0" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "-c error: exit $rc"
grep -q '^Error: .*division by zero' "$tmp/err" || fail "-c error text: $(cat "$tmp/err")"

# a pipe: the last statement may lack its semicolon; shell commands work
out=$(printf '\\timing on\nSELECT 7 AS seven' | floe --format csv)
printf '%s\n' "$out" | grep -q '^seven$' || fail "pipe without ;: $out"
printf '%s\n' "$out" | grep -Eq '^Time: [0-9]+\.[0-9]+ ms$' || fail "\\timing: $out"
set +e
printf '\\bogus\n' | floe >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 1 ] && grep -q 'unknown command \\bogus' "$tmp/err" || fail "unknown shell command: $rc $(cat "$tmp/err")"

# EXPLAIN prints the plan's lines bare
out=$(floe -c "EXPLAIN SELECT count(*) FROM generate_series(1, 10) AS g(x)")
printf '%s\n' "$out" | grep -q 'GenerateSeries' || fail "EXPLAIN: $out"
printf '%s\n' "$out" | grep -q -- '---' && fail "EXPLAIN framed as a table: $out"

# options and the other commands
help=$("$FLOE_BIN" --help)
grep -q -- '-c SQL' <<<"$help" || fail "--help lacks -c"
grep -q 'parquet' <<<"$help" || fail "--help lacks the parquet command"
set +e
"$FLOE_BIN" --format xml -c "SELECT 1" 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "unknown output format 'xml'" "$tmp/err" || fail "--format xml: $rc"
floe --format csv -c "COPY (SELECT x FROM generate_series(1, 5) AS g(x)) TO '$tmp/x.parquet'" >/dev/null
"$FLOE_BIN" parquet schema "$tmp/x.parquet" | grep -q 'x: int64' || fail "floe parquet after COPY"

# the interactive shell on a pseudo-terminal
python3 - "$FLOE_BIN" "$tmp" <<'EOF' || fail "interactive shell"
import os, pty, select, sys, time
binary, tmp = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.environ["HOME"] = tmp
    os.execv(binary, [binary, "--warehouse", tmp + "/wh"])
out = b""
def wait_for(text, timeout=60):
    global out
    end = time.time() + timeout
    while text.encode() not in out:
        if time.time() > end:
            sys.exit("timed out waiting for %r; output so far:\n%s" % (text, out.decode(errors="replace")))
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                out += os.read(fd, 65536)
            except OSError:
                sys.exit("shell ended early:\n" + out.decode(errors="replace"))
wait_for("floe> ")
os.write(fd, b"SELECT 6 *\n")
wait_for("...> ")
os.write(fd, b"7 AS product;\n")
wait_for("42")
# a statement that would run for hours: Ctrl-C cancels it
os.write(fd, b"SELECT max(x) FROM generate_series(1, 1000000000000) AS g(x);\n")
time.sleep(1.0)
os.write(fd, b"\x03")
wait_for("Error:")
wait_for("cancel")
os.write(fd, b"SELECT 'still here' AS s;\n")
wait_for("still here")
# Ctrl-C at the prompt drops a half-typed statement
os.write(fd, b"SELECT\n")
wait_for("...> ")
os.write(fd, b"\x03")
time.sleep(0.3)
os.write(fd, b"SELECT 'fresh' AS f;\n")
wait_for("fresh")
os.write(fd, b"\\q\n")
_, status = os.waitpid(pid, 0)
if status != 0:
    sys.exit("exit status %d" % status)
if not os.path.exists(os.path.join(tmp, ".floe_history")):
    print("note: no history file written (no libedit?)")
EOF
echo "cli_sql: all checks passed"

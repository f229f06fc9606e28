#!/usr/bin/env bash
# The shell's psql-style commands: \d \dt \dv \dn (with patterns), \x, \t,
# \pset null / footer / format, \o, \i, \echo — from a pipe and -c — and,
# on a pseudo-terminal, tab completion of keywords, schemas, tables and
# columns, and results longer than the terminal going through the pager.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
floe() { "$FLOE_BIN" --warehouse "$tmp/wh" "$@"; }

floe -c "CREATE SCHEMA sales" \
     -c "CREATE TABLE sales.orders (id bigint NOT NULL, customer text, placed timestamptz)" \
     -c "CREATE TABLE sales.items (order_id bigint, sku text)" \
     -c "CREATE SCHEMA hr" \
     -c "CREATE TABLE hr.staff (name text)" \
     -c "CREATE VIEW sales.big AS SELECT id FROM sales.orders WHERE id > 100" \
     -c "INSERT INTO sales.orders VALUES (1, 'ann', TIMESTAMPTZ '2024-05-01 10:00:00+00'), (2, NULL, NULL)" >/dev/null

# \dt: every table, psql's title and columns, sorted by schema and name
out=$(floe -c '\dt')
[ "$out" = "    List of relations
 Schema |  Name  | Type
--------+--------+-------
 hr     | staff  | table
 sales  | items  | table
 sales  | orders | table
(3 rows)" ] || fail "\\dt: $out"

# patterns: schema.*, a bare name in any schema, wildcards, case
out=$(floe --format csv -c '\dt sales.*')
[ "$out" = "Schema,Name,Type
sales,items,table
sales,orders,table" ] || fail "\\dt sales.*: $out"
out=$(floe --format csv -c '\dt *st?ff')
[ "$out" = "Schema,Name,Type
hr,staff,table" ] || fail "\\dt *st?ff: $out"
out=$(floe --format csv -c '\dt SALES.ORD*')
[ "$out" = "Schema,Name,Type
sales,orders,table" ] || fail "\\dt SALES.ORD*: $out"
out=$(floe -c '\dt nothing_like_this')
[ "$out" = 'Did not find any relation named "nothing_like_this".' ] || fail "\\dt no match: $out"

# \dv, \d (tables and views), \dn
out=$(floe --format csv -c '\dv')
[ "$out" = "Schema,Name,Type
sales,big,view" ] || fail "\\dv: $out"
out=$(floe --format csv -c '\d')
[ "$out" = "Schema,Name,Type
hr,staff,table
sales,big,view
sales,items,table
sales,orders,table" ] || fail "\\d: $out"
out=$(floe --format csv -c '\dn')
printf '%s\n' "$out" | grep -qx 'sales' && printf '%s\n' "$out" | grep -qx 'hr' && [ "$(head -1 <<<"$out")" = Name ] ||
  fail "\\dn: $out"
out=$(floe --format csv -c '\dn h*')
[ "$out" = "Name
hr" ] || fail "\\dn h*: $out"

# \d NAME: the columns under Table "schema.name"; NOT NULL shown
out=$(floe -c '\d sales.orders')
[ "$out" = '              Table "sales.orders"
  Column  |           Type           | Nullable
----------+--------------------------+----------
 id       | bigint                   | not null
 customer | varchar                  |
 placed   | timestamp with time zone |
(3 rows)' ] || {
  # the type spelling is DESCRIBE's; check the shape when it differs
  printf '%s\n' "$out" | head -1 | grep -q 'Table "sales.orders"' &&
    printf '%s\n' "$out" | grep -Eq '^ id +\| bigint +\| not null$' &&
    printf '%s\n' "$out" | grep -Eq '^ customer +\| [a-z]' || fail "\\d sales.orders: $out"
}
out=$(floe -c '\d big')
printf '%s\n' "$out" | head -1 | grep -q 'View "sales.big"' && printf '%s\n' "$out" | grep -Eq '^ id +\| bigint' ||
  fail "\\d big: $out"
set +e
floe -c '\d nosuch' >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 1 ] && grep -q 'Did not find any relation named "nosuch"' "$tmp/err" || fail "\\d nosuch: $rc $(cat "$tmp/err")"

# \x: expanded records as psql prints them; (0 rows) for none
out=$(printf '\\x\nSELECT id, customer FROM sales.orders ORDER BY id;\nSELECT 1 AS a WHERE false;\n' | floe)
[ "$out" = "-[ RECORD 1 ]--
id       | 1
customer | ann
-[ RECORD 2 ]--
id       | 2
customer | NULL
(0 rows)" ] || fail "\\x: $out"

# \pset null, \t (rows only), \pset footer off, \pset format csv
out=$(printf "\\\\pset null '(null)'\n\\\\t on\nSELECT customer FROM sales.orders ORDER BY id;\n" | floe)
[ "$out" = " ann
 (null)" ] || fail "\\pset null + \\t: $out"
out=$(printf '\\pset footer off\nSELECT 7 AS n;\n' | floe)
[ "$out" = " n
---
 7" ] || fail "\\pset footer off: $out"
out=$(printf '\\pset format csv\nSELECT 7 AS n;\n' | floe)
[ "$out" = "n
7" ] || fail "\\pset format csv: $out"
set +e
printf '\\pset bogus 1\n' | floe >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 1 ] && grep -q "unknown option 'bogus'" "$tmp/err" || fail "\\pset bogus: $rc"

# \o FILE sends results there, \o alone back; \echo; \i runs a file
printf 'SELECT 41 + 1 AS answer;\n' >"$tmp/inc.sql"
out=$(printf "\\\\o $tmp/result.txt\nSELECT 'to the file' AS s;\n\\\\o\n\\\\echo back 'on screen'\n\\\\i $tmp/inc.sql\n" |
      floe --format csv)
[ "$out" = "back on screen
answer
42" ] || fail "\\o / \\echo / \\i: $out"
[ "$(cat "$tmp/result.txt")" = "s
to the file" ] || fail "\\o file: $(cat "$tmp/result.txt")"

# interactive: tab completion and the pager
FLOE_BIN="$FLOE_BIN" python3 - "$tmp" <<'EOF' || fail "interactive completion / pager"
import os, pty, re, select, struct, sys, time, fcntl, termios
# libedit redraws a line with cursor moves ("sel" CR ESC[10G "ect "): match
# on the text a terminal would show, lines rendered with CR, ESC[nG, ESC[K
def plain(b):
    lines, line, col = [], [], 0
    for m in re.finditer(rb"\x1b\[([0-9;?]*)([A-Za-z])|(.)", b, re.S):
        if m.group(3) is None:
            arg, op = m.group(1), m.group(2)
            if op == b"G":
                col = max(int(arg or b"1") - 1, 0)
            elif op == b"K":
                del line[col:]
            elif op == b"C":
                col += int(arg or b"1")
            elif op == b"D":
                col = max(col - int(arg or b"1"), 0)
            continue
        c = m.group(3)
        if c == b"\n":
            lines.append(b"".join(line))
            line, col = [], 0
        elif c == b"\r":
            col = 0
        elif c == b"\x08":
            col = max(col - 1, 0)
        elif c == b"\x07":
            pass
        else:
            while len(line) < col:
                line.append(b" ")
            if col < len(line):
                line[col] = c
            else:
                line.append(c)
            col += 1
    lines.append(b"".join(line))
    return b"\n".join(lines)
tmp = sys.argv[1]
binary = os.environ["FLOE_BIN"]
pager = os.path.join(tmp, "pager.sh")
with open(pager, "w") as f:
    f.write("#!/bin/sh\necho PAGER-START\ncat\necho PAGER-END\n")
os.chmod(pager, 0o755)
pid, fd = pty.fork()
if pid == 0:
    os.environ["HOME"] = tmp
    os.environ["FLOE_PAGER"] = pager
    os.execv(binary, [binary, "--warehouse", tmp + "/wh"])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
out = b""
def wait_for(text, timeout=60):
    global out
    end = time.time() + timeout
    while text.encode() not in plain(out):
        if time.time() > end:
            sys.exit("timed out waiting for %r; output so far:\n%s" % (text, out.decode(errors="replace")))
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                out += os.read(fd, 65536)
            except OSError:
                sys.exit("shell ended early:\n" + out.decode(errors="replace"))
wait_for("floe> ")
# a keyword, a schema, a table in it, then a column of that table
os.write(fd, b"sel\t")
wait_for("select ")
os.write(fd, b"id FROM sal\t")
wait_for("sales.")
os.write(fd, b"ord\t")
wait_for("sales.orders ")
# a column of the table the line names
os.write(fd, b"WHERE cust\t")
wait_for("customer ")
os.write(fd, b"IS NOT NULL;\n")
wait_for("(1 row)")
# short results print straight; long ones go through the pager
out = b""
os.write(fd, b"SELECT 'short' AS s;\n")
wait_for("(1 row)")
if b"PAGER-START" in out:
    sys.exit("a one-row result went through the pager")
out = b""
os.write(fd, b"SELECT x FROM generate_series(1, 100) AS g(x);\n")
wait_for("PAGER-END")
if b"(100 rows)" not in out:
    sys.exit("pager output lacks the rows:\n" + out.decode(errors="replace"))
# \pset pager off: straight again
out = b""
os.write(fd, b"\\pset pager off\nSELECT x FROM generate_series(1, 100) AS g(x);\n")
wait_for("(100 rows)")
if b"PAGER-START" in out:
    sys.exit("\\pset pager off still paged")
# a long generate_series draws the progress bar on the terminal
out = b""
os.write(fd, b"SELECT count(*) FROM generate_series(1, 400000000) AS g(x);\n")
wait_for("(1 row)", timeout=300)
if not re.search(rb"\[[=> ]{30}\] +[0-9]+%", out):
    sys.exit("no progress bar for generate_series:\n" + out.decode(errors="replace"))
os.write(fd, b"\\q\n")
_, status = os.waitpid(pid, 0)
if status != 0:
    sys.exit("exit status %d" % status)
EOF
echo "shell_meta: all checks passed"

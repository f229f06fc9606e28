#!/usr/bin/env bash
# COPY ... FROM STDIN / TO STDOUT in the shell: `floe -c "COPY t FROM STDIN
# (FORMAT csv, HEADER)" < file.csv` loads the process's standard input in
# one commit, `COPY t TO STDOUT (FORMAT csv|json)` writes the rows to
# standard output (PostgreSQL's CSV rules: quoted only when needed, empty
# unquoted field = NULL), empty input commits nothing, no temporary file is
# left, and the text format (PostgreSQL's default) is refused by name.
# Also COPY t [(cols)] FROM 'file.parquet' (columns by position, one
# commit), and its errors (missing file, column count).
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/copy_stdio.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export TMPDIR=$TMP/tmp
mkdir -p "$TMPDIR"
cd "$TMP"
floe() { "$FLOE_BIN" --warehouse "$TMP/wh" --format csv "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

floe -c "CREATE TABLE c (id int, name string, x double)" > /dev/null
printf 'id,name,x\n1,plain,1.5\n2,"with, comma",\n3,"quote ""q""",-2\n4,,0\n' > in.csv
floe -c "COPY c FROM STDIN (FORMAT csv, HEADER)" < in.csv > /dev/null
out=$(floe -c "COPY (SELECT * FROM c ORDER BY id) TO STDOUT (FORMAT csv, HEADER)")
want=$'id,name,x\n1,plain,1.5\n2,"with, comma",\n3,"quote ""q""",-2\n4,,0'
[ "$out" = "$want" ] || { echo "got:"; echo "$out"; echo "want:"; echo "$want"; fail "CSV round trip"; }
[ "$(floe -c "SELECT count(*) FROM c WHERE name IS NULL AND id = 4" | tail -n 1)" = 1 ] || fail "empty field is not NULL"
json=$(floe -c "COPY (SELECT id, name FROM c WHERE id = 2) TO STDOUT (FORMAT json)")
[ "$json" = '{"id":2,"name":"with, comma"}' ] || fail "JSON to stdout: $json"
floe -c "COPY c FROM STDIN (FORMAT csv)" < /dev/null > /dev/null
[ "$(floe -c "SELECT count(*) FROM c" | tail -n 1)" = 4 ] || fail "empty stdin changed the table"
if floe -c "COPY c TO STDOUT" > err.txt 2>&1; then fail "COPY TO STDOUT without FORMAT succeeded"; fi
grep -q "text format is not supported" err.txt || { cat err.txt; fail "no clear error for the text format"; }
if printf '1,2,x\n' | floe -c "COPY c FROM STDIN (FORMAT csv)" > err.txt 2>&1; then fail "bad CSV accepted"; fi
# Parquet in: all columns, a column list, and the errors
floe -c "COPY (SELECT x AS id, 'n' || x AS name, x / 2.0 AS x FROM generate_series(1, 1000) g(x)) TO 'three.parquet'" \
     -c "COPY (SELECT x AS id FROM generate_series(1, 10) g(x)) TO 'one.parquet'" > /dev/null
floe -c "COPY c FROM 'three.parquet' (FORMAT parquet)" -c "COPY c (id) FROM 'one.parquet'" > /dev/null
[ "$(floe -c "SELECT count(*), count(name), sum(id), sum(x) FROM c WHERE id > 0" | tail -n 1)" = "1014,1003,500565,250249.5" ] ||
    fail "Parquet rows: $(floe -c "SELECT count(*), count(name), sum(id), sum(x) FROM c WHERE id > 0" | tail -n 1)"
if floe -c "COPY c FROM 'missing.parquet'" > err.txt 2>&1; then fail "a missing Parquet file was accepted"; fi
grep -q "missing.parquet" err.txt || { cat err.txt; fail "the error does not name the file"; }
if floe -c "COPY c (id) FROM 'three.parquet'" > err.txt 2>&1; then fail "a column count mismatch was accepted"; fi
grep -q "more expressions" err.txt || { cat err.txt; fail "no clear error for the column count"; }
[ "$(floe -c "SELECT count(*) FROM c" | tail -n 1)" = 1014 ] || fail "a failed COPY changed the table"
[ -z "$(ls "$TMPDIR")" ] || { ls "$TMPDIR"; fail "temporary files left behind"; }
echo "OK"

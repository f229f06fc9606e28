#!/usr/bin/env bash
# floe's deletion vectors read by an independent reader written from the
# spec (tests/scripts/dv_check.py: Puffin footer, DV framing, CRC-32,
# portable 64-bit Roaring): after each row-level DELETE / UPDATE / MERGE on
# a format version 3 table, every live DV holds exactly the positions of
# the rows deleted from its data file so far (found by `_file, _pos` before
# each statement), one live DV per data file, its record_count the DV's
# cardinality; and the updated rows kept their _row_id.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dv_python_check.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { [ "${CI:-}" = true ] && fail "python3 missing under CI=true"; echo "SKIP: python3"; exit 0; }
floe() { "$FLOE_BIN" --warehouse "$TMP/wh" --format csv "$@"; }
q() { floe -c "$1" | tail -n +2; }

floe -c "CREATE TABLE t (id bigint, p int, s varchar) PARTITIONED BY (p) WITH (format_version = 3)" >/dev/null
# big enough for bitmap and run containers (more than 4096 positions in a file)
floe -c "INSERT INTO t SELECT k, CAST(k % 2 AS int), 'r' || CAST(k AS varchar) FROM generate_series(1, 30000) g(k)" >/dev/null
floe -c "INSERT INTO t SELECT k, 3, 'late' FROM generate_series(30001, 31000) g(k)" >/dev/null
: > "$TMP/expected"
# statement, and the condition of the rows it deletes from their files
run() {
    q "SELECT _file, _pos FROM t WHERE $2" | tr ',' ' ' >> "$TMP/expected"
    floe -c "$1" >/dev/null || fail "'$1' failed"
}
check() {
    q 'SELECT file_path, content_offset, content_size_in_bytes, record_count, referenced_data_file FROM "t$files" WHERE content = 1' \
        > "$TMP/dvs"
    [ -s "$TMP/dvs" ] || fail "no deletion vectors after: $1"
    : > "$TMP/got"
    while IFS=, read -r puffin off len count ref; do
        python3 "$SRC/tests/scripts/dv_check.py" "$puffin" "$off" "$len" > "$TMP/one" || fail "DV check failed: $puffin"
        [ "$(head -1 "$TMP/one")" = "$ref" ] || fail "blob names $(head -1 "$TMP/one"), the entry $ref"
        [ "$(($(wc -l < "$TMP/one") - 1))" = "$count" ] || fail "record_count $count, DV of $ref has $(($(wc -l < "$TMP/one") - 1))"
        tail -n +2 "$TMP/one" | sed "s|^|$ref |" >> "$TMP/got"
    done < "$TMP/dvs"
    dup=$(cut -d, -f5 "$TMP/dvs" | sort | uniq -d | wc -l)
    [ "$dup" = 0 ] || fail "a data file has two live DVs after: $1"
    sort "$TMP/expected" > "$TMP/e"
    sort "$TMP/got" > "$TMP/g"
    cmp -s "$TMP/e" "$TMP/g" || { diff "$TMP/e" "$TMP/g" | head; fail "DV positions differ after: $1"; }
}
run "DELETE FROM t WHERE id % 5 = 0" "id % 5 = 0"
check "DELETE 1"
run "DELETE FROM t WHERE id BETWEEN 1000 AND 9000" "id BETWEEN 1000 AND 9000"  # runs, merged with the first DV
check "DELETE 2"
before=$(q "SELECT _row_id FROM t WHERE id IN (20001, 30501) ORDER BY id" | tr '\n' ' ')
run "UPDATE t SET s = 'upd' WHERE id IN (20001, 30501)" "id IN (20001, 30501)"
check "UPDATE"
after=$(q "SELECT _row_id FROM t WHERE id IN (20001, 30501) ORDER BY id" | tr '\n' ' ')
[ "$before" = "$after" ] || fail "updated rows changed _row_id: $before -> $after"
run "MERGE INTO t USING (SELECT id FROM t WHERE id % 1000 = 1) AS m ON t.id = m.id WHEN MATCHED THEN DELETE" \
    "id % 1000 = 1"
check "MERGE"
rows=$(q "SELECT count(*) FROM t")
want=$((31000 - $(wc -l < "$TMP/expected") + 2)) # the 2 updated rows live on in a new file
[ "$rows" = "$want" ] || fail "rows $rows, want $want"
echo "ok: $(wc -l < "$TMP/expected") deleted positions in $(wc -l < "$TMP/dvs") DVs checked bit for bit"

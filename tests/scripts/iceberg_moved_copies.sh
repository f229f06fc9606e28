#!/usr/bin/env bash
# iceberg_moved_copies.sh — every shared Iceberg table with deletes
# (position deletes, deletion vectors, equality deletes) copied to a new
# directory reads exactly as the original does, with the row count its own
# test files expect (also as count(*)).  Then each is rewritten as if another engine had
# written it at s3://, hdfs:// or file:/// (iceberg_rewrite_paths.py: every
# recorded path, the position delete files' file_path column included) and
# copied here: the same rows again.  Delete files name data files by the
# path recorded when they were written, while the data files are found
# through the path remapper (allow_moved_paths); a reader that compared
# deletes against remapped paths would bring deleted rows back.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
TESTDATA=${FLOE_TESTDATA:-${FLOE_TESTDATA_DEFAULT:-}}
if [ -z "$TESTDATA" ] || [ ! -d "$TESTDATA" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: test data missing under CI=true"; exit 1; fi
    echo "SKIP: shared test data not found"; exit 0
fi
if ! /usr/bin/python3 -c 'import avro.datafile' 2>/dev/null; then
    if [ "${CI:-}" = true ]; then echo "FAIL: python3-avro missing under CI=true"; exit 1; fi
    echo "SKIP: python3-avro not installed"; exit 0
fi
ROOT=$TESTDATA/duckdb__duckdb-iceberg
TMP=$(mktemp -d "${TMPDIR:-/tmp}/iceberg_moved.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# table (below the repo root) | the rows of its current snapshot, as the
# tables' own test files (tests/sql/iceberg_*.slt, expected_results/) say:
# fewer than their data files hold, so a delete that stops applying shows
TABLES=(
    "data/iceberg/generated_spec2_0_001/pyspark_iceberg_table|6592"
    "data/persistent/equality_delete_cross_partition/warehouse/ns/t|3"
    "data/persistent/equality_delete_dropped_column/mytable|3"
    "data/persistent/equality_delete_extra_column/warehouse/ns/t|3"
    "data/persistent/equality_deletes/warehouse/mydb/mytable|2"
    "data/persistent/equality_deletes/warehouse/mydb/mytable_partitioned|3"
    "data/persistent/legacy_bare_deletion_vector/warehouse/default/legacy_bare_deletion_vector|2"
    "data/persistent/unknown_puffin/namespace/test_table|2"
)

rows() { # dir -> every row as csv, sorted
    "$FLOE_BIN" --format csv -c "SELECT * FROM iceberg_scan('$1', allow_moved_paths => true)" | tail -n +2 | LC_ALL=C sort
}

fail=0
n=0
for entry in "${TABLES[@]}"; do
    t=${entry%|*}
    want=${entry#*|}
    src=$ROOT/$t
    [ -d "$src" ] || { echo "FAIL: $t missing from the test data"; fail=1; continue; }
    dst=$TMP/copy$n/$(basename "$t")
    mkdir -p "$(dirname "$dst")"
    cp -r "$src" "$dst"
    n=$((n + 1))
    rows "$src" > "$TMP/orig.csv"
    rows "$dst" > "$TMP/copy.csv"
    if [ "$(wc -l < "$TMP/orig.csv")" != "$want" ]; then
        echo "FAIL: $t: $(wc -l < "$TMP/orig.csv") rows, its test files expect $want"
        fail=1
        continue
    fi
    if ! cmp -s "$TMP/orig.csv" "$TMP/copy.csv"; then
        echo "FAIL: $t: the copy reads differently from the original:"
        diff "$TMP/orig.csv" "$TMP/copy.csv" | head -10
        fail=1
        continue
    fi
    # count(*) alone (no column needed) must count the same rows: an
    # answer from manifest record counts would include deleted ones
    cnt=$("$FLOE_BIN" --format csv -c "SELECT count(*) FROM iceberg_scan('$dst', allow_moved_paths => true)" | tail -n +2)
    if [ "$cnt" != "$want" ]; then
        echo "FAIL: $t: count(*) says $cnt, the rows are $want"
        fail=1
        continue
    fi
    echo "ok: $t: $(wc -l < "$TMP/copy.csv") rows, the same in the copy and by count(*)"
    # The same table as written at an absolute location of another system
    # — every recorded path (data, deletes, DV references, the delete
    # files' own file_path column) under s3://, hdfs:// or file:/// — and
    # copied here: still the same rows.
    for prefix in "s3://old-bucket/wh/t$n" "hdfs://namenode:8020/warehouse/t$n" "file:///old/place/t$n"; do
        re=$TMP/re$n/$(basename "$t")
        rm -rf "$TMP/re$n"
        mkdir -p "$TMP/re$n"
        cp -r "$src" "$re"
        if ! out=$(/usr/bin/python3 "$(dirname "$0")/iceberg_rewrite_paths.py" "$re" "$prefix" "$FLOE_BIN" 2>&1); then
            echo "FAIL: rewriting $t to $prefix: $out"; fail=1; continue
        fi
        rows "$re" > "$TMP/re.csv"
        if ! cmp -s "$TMP/orig.csv" "$TMP/re.csv"; then
            echo "FAIL: $t recorded under $prefix reads differently ($out):"
            diff "$TMP/orig.csv" "$TMP/re.csv" | head -10
            fail=1
        else
            echo "ok: $t recorded under $prefix ($out): the same rows"
        fi
    done
done

[ $fail = 0 ] && echo "ok: $n copies of tables with deletes read as their originals"
exit $fail

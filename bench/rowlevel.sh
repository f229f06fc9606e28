#!/usr/bin/env bash
# bench/rowlevel.sh — row-level changes on TPC-H SF 1 lineitem (6 million
# rows): UPDATE of 1% and of 30% of the rows, DELETE of 5%, MERGE of 10k and
# of 1M source rows (half match a row and update it, half are new and
# inserted), in floe merge-on-read and copy-on-write (Iceberg table from
# `floe tpch generate`) and in DuckDB on its own table loaded from the same
# rows (bench/rowlevel_duckdb.mjs).
#
#   bench/rowlevel.sh [BUILD_DIR] [THREADS] [RUNS]
#
# Every timed run starts from a fresh copy of the table (the warehouse
# copied back, untimed).  floe's time is the statement in one `floe -f`
# process with \timing on: plan, scan, write, commit.  After each floe run
# the table's count(*) and sum(l_extendedprice) must equal DuckDB's after
# the same statement, and so must the row count in the tag: a wrong answer
# stops the bench.  Prints markdown rows:
#   | statement | rows changed | floe MoR s | rows/s | files (data + delete) | floe CoW s | rows/s | files | DuckDB s | MoR/DuckDB | CoW/DuckDB |
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build/release}" && pwd)
THREADS=${2:-$(nproc)}
RUNS=${3:-3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rowlevel_bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
if [ ! -x "$BUILD/floe" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$BUILD" -j2 --target floe > /dev/null
fi
floe_in() { local wh=$1; shift; FLOE_THREADS=$THREADS "$BUILD/floe" --warehouse "$wh" --format csv "$@"; }

# ---- data: lineitem as Iceberg (two warehouses: the write modes) and Parquet
"$BUILD/floe" tpch generate --sf 1 --tables lineitem --warehouse "$TMP/wh_mor" > /dev/null
"$BUILD/floe" tpch generate --sf 1 --tables lineitem --parquet "$TMP/pq" > /dev/null
cols="l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag,
  l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode, l_comment"
shifted="l_orderkey + 1000000000 AS l_orderkey, ${cols#l_orderkey, }"
src_sql() { # NAME MODULUS: half matching rows, half new ones
    echo "CREATE TABLE $1 AS SELECT $cols FROM $3 WHERE l_orderkey % $2 = 0
          UNION ALL SELECT $shifted FROM $3 WHERE l_orderkey % $2 = 1"
}
floe_in "$TMP/wh_mor" -c "$(src_sql tpch.src10k 4800 tpch.lineitem)" -c "$(src_sql tpch.src1m 12 tpch.lineitem)" > /dev/null
# (a warehouse's catalog names its files by absolute path: each mode gets its own)
"$BUILD/floe" tpch generate --sf 1 --tables lineitem --warehouse "$TMP/wh_cow" > /dev/null
floe_in "$TMP/wh_cow" -c "$(src_sql tpch.src10k 4800 tpch.lineitem)" -c "$(src_sql tpch.src1m 12 tpch.lineitem)" \
    -c "ALTER TABLE tpch.lineitem SET ('write.delete.mode' = 'copy-on-write', 'write.update.mode' = 'copy-on-write',
        'write.merge.mode' = 'copy-on-write')" > /dev/null
cp -a "$TMP/wh_mor" "$TMP/pristine_mor"
cp -a "$TMP/wh_cow" "$TMP/pristine_cow"

vals=""
for c in $(echo "$cols" | tr -d ' \n' | tr ',' ' '); do vals="${vals:+$vals, }s.$c"; done
merge() { # TARGET SOURCE
    echo "MERGE INTO $1 AS t USING $2 AS s ON t.l_orderkey = s.l_orderkey AND t.l_linenumber = s.l_linenumber
          WHEN MATCHED THEN UPDATE SET l_comment = 'merged', l_quantity = s.l_quantity + 1
          WHEN NOT MATCHED THEN INSERT VALUES ($vals)"
}
names=("UPDATE 1%" "UPDATE 30%" "DELETE 5%" "MERGE 10k" "MERGE 1M")
stmt() { # INDEX TABLE SOURCE-PREFIX
    case $1 in
    0) echo "UPDATE $2 SET l_comment = 'x' WHERE l_orderkey % 100 = 0" ;;
    1) echo "UPDATE $2 SET l_comment = 'x', l_tax = l_tax + 0.01 WHERE l_orderkey % 10 < 3" ;;
    2) echo "DELETE FROM $2 WHERE l_orderkey % 20 = 0" ;;
    3) merge "$2" "${3}src10k" ;;
    4) merge "$2" "${3}src1m" ;;
    esac
}

# ---- DuckDB
{
    echo "["
    for i in 0 1 2 3 4; do
        sql=$(stmt $i li "" | tr '\n' ' ')
        setup=""
        [ $i = 3 ] && setup=$(src_sql src10k 4800 li0 | tr '\n' ' ')
        [ $i = 4 ] && setup=$(src_sql src1m 12 li0 | tr '\n' ' ')
        printf '%s{"name": "%s", "setup": [%s], "sql": "%s"}\n' "$([ $i = 0 ] || echo ,)" "${names[$i]}" \
            "${setup:+\"$setup\"}" "$sql"
    done
    echo "]"
} > "$TMP/stmts.json"
node "$ROOT/bench/rowlevel_duckdb.mjs" "$THREADS" "$RUNS" "$TMP/pq/lineitem.parquet" "$TMP/stmts.json" > "$TMP/duck.jsonl"

# ---- floe: MODE INDEX -> "median changed files" (checked against DuckDB)
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
run_floe() {
    local mode=$1 i=$2 times=() changed="" files=""
    local duck
    duck=$(sed -n "$((i + 1))p" "$TMP/duck.jsonl")
    for run in $(seq 1 "$RUNS"); do
        rm -rf "$TMP/wh_$mode"
        cp -a "$TMP/pristine_$mode" "$TMP/wh_$mode"
        { echo '\timing on'; stmt "$i" tpch.lineitem tpch. | tr '\n' ' '; echo ';'; } > "$TMP/s.sql"
        out=$(cd "$TMP" && FLOE_THREADS=$THREADS "$BUILD/floe" --warehouse "$TMP/wh_$mode" -f "$TMP/s.sql")
        t=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms$/\1/p' | tail -n 1)
        changed=$(echo "$out" | sed -n 's/^\(UPDATE\|DELETE\|MERGE\) \([0-9]*\)$/\2/p' | tail -n 1)
        [ -n "$t" ] && [ -n "$changed" ] || { echo "floe $mode '${names[$i]}' failed: $out" >&2; exit 1; }
        times+=("$(awk -v ms="$t" 'BEGIN {printf "%.3f", ms / 1000}')")
        got=$(floe_in "$TMP/wh_$mode" -c "SELECT count(*), CAST(sum(l_extendedprice) AS varchar) FROM tpch.lineitem" | tail -n 1)
        want=$(node -e 'const d = JSON.parse(process.argv[1]); console.log(d.count + "," + d.checksum)' "$duck")
        want_changed=$(node -e 'console.log(JSON.parse(process.argv[1]).changed)' "$duck")
        [ "$got" = "$want" ] || { echo "WRONG ANSWER: floe $mode '${names[$i]}': $got, DuckDB $want" >&2; exit 1; }
        [ "$changed" = "$want_changed" ] || { echo "WRONG COUNT: floe $mode '${names[$i]}': $changed, DuckDB $want_changed" >&2; exit 1; }
        files=$(floe_in "$TMP/wh_$mode" -c "SELECT summary FROM tpch.\"lineitem\$snapshots\" ORDER BY committed_at DESC LIMIT 1" |
                tail -n 1 | node -e 'let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
                    const j = JSON.parse(s.trim().replace(/^"|"$/g, "").replace(/""/g, "\""));
                    console.log((j["added-data-files"] || 0) + " + " + (j["added-delete-files"] || 0)); })')
    done
    echo "$(median "${times[@]}") $changed $files"
}

echo "| statement | rows changed | floe MoR s | rows/s | files (data + delete) | floe CoW s | rows/s | files | DuckDB s | MoR/DuckDB | CoW/DuckDB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for i in 0 1 2 3 4; do
    r=$(run_floe mor $i) || exit 1
    read -r mt mc mf1 _ mf2 <<< "$r"
    r=$(run_floe cow $i) || exit 1
    read -r ct cc cf1 _ cf2 <<< "$r"
    d=$(sed -n "$((i + 1))p" "$TMP/duck.jsonl" | node -e 'let s = ""; process.stdin.on("data", d => s += d).on("end", () => console.log(JSON.parse(s).median.toFixed(3)))')
    awk -v n="${names[$i]}" -v c="$mc" -v mt="$mt" -v ct="$ct" -v d="$d" -v mf="$mf1 + $mf2" -v cf="$cf1 + $cf2" 'BEGIN {
        printf "| %s | %d | %.3f | %.0f | %s | %.3f | %.0f | %s | %.3f | %.2f | %.2f |\n",
            n, c, mt, c / mt, mf, ct, c / ct, cf, d, mt / d, ct / d }'
done

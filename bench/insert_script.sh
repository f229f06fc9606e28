#!/usr/bin/env bash
# bench/insert_script.sh — a script of N single-row INSERTs
# (`INSERT INTO db.t VALUES (i, 'row i');` × N) run by one `floe -f`
# process against a fresh SQLite-catalog warehouse, at N = 500 and 2000:
# is the cost of one INSERT flat in N?
#
#   bench/insert_script.sh [BUILD_DIR]
#
# Per N: the first N - 100 INSERTs run in one process, the last 100 in a
# second one; of those 100, the median \timing (each one the whole
# statement: plan, write one Parquet file and one manifest, commit) and the
# CPU time (user + system of that process / 100: on a shared machine wall
# time mostly measures the neighbours), and the ratios at N = 2000 over
# N = 500 (1.0 = flat).  DuckDB
# (bench/insert_script_duckdb.mjs) runs the same statements into a table of
# a DuckDB database file, for reference.  floe runs twice: with the
# defaults (manifests merged on commit, as Java's merge append) and with
# commit.manifest-merge.enabled=false (a fast append: one more manifest in
# the list per INSERT).  Prints one markdown row each:
#   | engine | median ms/INSERT at 500 | at 2000 | 2000/500 | CPU ms/INSERT at 500 | at 2000 | 2000/500 |
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build/release}
BUILD=$(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD") # absolute: the runs cd elsewhere
if [ ! -x "$BUILD/floe" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$BUILD" -j2 --target floe > /dev/null
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/insert_script_bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
floe_run() { # N MERGE: prints the last 100 INSERTs' ms, one a line; CPU seconds to $TMP/cpuN
    local wh=$TMP/wh$1$2
    "$BUILD/floe" --warehouse "$wh" -c "CREATE SCHEMA db" \
        -c "CREATE TABLE db.t (id bigint, s string) WITH ('commit.manifest-merge.enabled' = '$2')" > /dev/null
    head -n $(($1 - 100)) "$TMP/s$1.sql" > "$TMP/h$1.sql"
    { echo '\timing on'; tail -n 100 "$TMP/s$1.sql"; } > "$TMP/t$1.sql"
    (cd "$TMP" && "$BUILD/floe" --warehouse "$wh" -f "$TMP/h$1.sql" > /dev/null)
    (cd "$TMP" && /usr/bin/time -f "%U %S" -o "$TMP/cpu$1$2" "$BUILD/floe" --warehouse "$wh" -f "$TMP/t$1.sql") |
        sed -n 's/^Time: \([0-9.]*\) ms$/\1/p'
    rows=$("$BUILD/floe" --warehouse "$wh" --format csv -c "SELECT count(*) FROM db.t" | tail -n 1)
    [ "$rows" = "$1" ] || { echo "floe wrote $rows rows, expected $1" >&2; exit 1; }
}
for n in 500 2000; do
    for i in $(seq 1 $n); do echo "INSERT INTO db.t VALUES ($i, 'row $i');"; done > "$TMP/s$n.sql"
    floe_run $n true > "$TMP/floe${n}true.ms"
    floe_run $n false > "$TMP/floe${n}false.ms"
    node "$ROOT/bench/insert_script_duckdb.mjs" "$TMP/duck$n.db" "$TMP/s$n.sql" > "$TMP/duck$n.json"
done
python3 - "$TMP" <<'PY'
import json, statistics, sys
tmp = sys.argv[1]
def row(name, ms500, ms2000, cpu):
    a, b = statistics.median(ms500[-100:]), statistics.median(ms2000[-100:])
    c = f"{cpu[0]:.1f} | {cpu[1]:.1f} | {cpu[1] / cpu[0]:.2f}" if cpu else "— | — | —"
    print(f"| {name} | {a:.1f} | {b:.1f} | {b / a:.2f} | {c} |")
for merge, name in (("true", "floe"), ("false", "floe, merge off")):
    fl = {n: [float(x) for x in open(f"{tmp}/floe{n}{merge}.ms")] for n in (500, 2000)}
    assert len(fl[500]) == 100 and len(fl[2000]) == 100, "floe printed too few timings"
    cpu = [sum(float(x) for x in open(f"{tmp}/cpu{n}{merge}").read().split()[-2:]) * 1000 / 100 for n in (500, 2000)]
    row(name, fl[500], fl[2000], cpu)
dk = {n: json.load(open(f"{tmp}/duck{n}.json")) for n in (500, 2000)}
row(f"DuckDB {dk[500]['version']}", dk[500]["ms"], dk[2000]["ms"], None)
PY

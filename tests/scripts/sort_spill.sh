#!/usr/bin/env bash
# sort_spill.sh — an ORDER BY that spills under --memory-limit gives the
# in-memory result, really writes to the temp directory while it runs,
# and leaves that directory empty afterwards: on success, on a failing
# query and when the process is killed mid-sort.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
spill="$tmp/spill"
q="SELECT sum(x), min(x), max(x), count(*) FROM (SELECT x FROM generate_series(1, 2000000) a(x) ORDER BY x DESC OFFSET 1999000) t"
floe() { "$FLOE_BIN" --warehouse "$tmp/wh" --format csv "$@"; }

want=$(floe -c "$q")
got=$(floe --memory-limit 32MB -c "SET temp_directory = '$spill'" -c "$q")
[ "$got" = "$want" ] || { echo "FAIL: spilled '$got' != in-memory '$want'"; exit 1; }
[ -d "$spill" ] || { echo "FAIL: the sort did not spill to $spill"; exit 1; }
[ -z "$(ls -A "$spill")" ] || { echo "FAIL: $spill not empty after the query"; ls -la "$spill"; exit 1; }

# a failing query (division by zero after the sort has spilled)
if floe --memory-limit 32MB -c "SET temp_directory = '$spill'" \
        -c "SELECT 1 / (x - 1000) FROM (SELECT x FROM generate_series(1, 2000000) a(x) ORDER BY x OFFSET 1999990) t UNION ALL SELECT 1 / 0" >/dev/null 2>"$tmp/err"; then
    echo "FAIL: division by zero succeeded"; exit 1
fi
[ -z "$(ls -A "$spill")" ] || { echo "FAIL: $spill not empty after an error"; exit 1; }

# killed while sorting: the files are anonymous, nothing is left
floe --memory-limit 32MB -c "SET temp_directory = '$spill'" \
     -c "SELECT count(*) FROM (SELECT x FROM generate_series(1, 20000000) a(x) ORDER BY x DESC OFFSET 1) t" >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
[ -z "$(ls -A "$spill")" ] || { echo "FAIL: $spill not empty after kill -9"; exit 1; }
echo "ok: sort spill"
